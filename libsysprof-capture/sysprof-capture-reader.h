// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

/* Why a reader stopped: code is 0 at a clean end of file, otherwise an errno
 * value (EBADMSG corrupt data, EIO truncated, or the failing syscall's errno),
 * offset the byte offset in the file of the header or frame at fault, and
 * message a complete sentence naming that offset. */
typedef struct
{
  int      code;
  uint64_t offset;
  char     message[256];
} SysprofCaptureError;

typedef enum
{
  SYSPROF_CAPTURE_BYTE_ORDER_LITTLE_ENDIAN = 1234,
  SYSPROF_CAPTURE_BYTE_ORDER_BIG_ENDIAN = 4321,
} SysprofCaptureByteOrder;

typedef struct
{
  /* Opaque. */
  void        *p1;
  void        *p2;
  unsigned int u1;
  void        *p3;
  void        *p4;
} SysprofCaptureJitmapIter;

/* Opening validates the 256-byte header; NULL with errno on failure (EBADMSG
 * for a file that is not a capture).  The _with_error variants also fill @error. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_reader_new (const char *filename);
/* Checks one host-order frame of @len bytes from an untrusted source (a ring
 * buffer, a peer) as the reader checks frames of a file: header length equal
 * to @len, 8-aligned, a known type, and a payload that fits its layout.
 * Fixed-size and trailing strings get a terminating NUL forced in, so validate
 * a private copy.  Returns false with errno EBADMSG when the frame is unsound. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_frame_validate (void *frame, size_t len);
/* Takes ownership of @fd (also on failure).  Pipes work for one forward pass. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_reader_new_from_fd (int fd);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_reader_new_with_error (const char *filename, SysprofCaptureError *error);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_reader_new_from_fd_with_error (int fd, SysprofCaptureError *error);
/* A second reader on the same file with its own position (seekable files only). */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_reader_copy (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_reader_ref (SysprofCaptureReader *self);
/* Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_reader_unref (SysprofCaptureReader *self);

SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_capture_reader_get_filename (SysprofCaptureReader *self);
/* The capture_time string of the header (wall-clock UTC, ISO 8601). */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_capture_reader_get_time (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
int64_t sysprof_capture_reader_get_start_time (SysprofCaptureReader *self);
/* The header end time, or (when the writer never finalized it) the latest
 * frame time, mark durations included; scans the file once in that case. */
SYSPROF_AVAILABLE_IN_ALL
int64_t sysprof_capture_reader_get_end_time (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
int sysprof_capture_reader_get_byte_order (SysprofCaptureReader *self);
/* Position of the next frame in the file. */
SYSPROF_AVAILABLE_IN_ALL
uint64_t sysprof_capture_reader_get_offset (SysprofCaptureReader *self);
/* The reason the last call failed, or code 0 after a clean end of file. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureError *sysprof_capture_reader_get_error (SysprofCaptureReader *self);

/* Iteration.  peek_* look at the next frame without consuming it and return
 * false at the end of the file or on an error (see get_error).  Frames of an
 * unknown type are reported by peek_type and can be skipped; Sysprof 45+
 * frame-index frames are skipped transparently.  Every frame is returned in host
 * byte order and has been validated against its type's layout. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_peek_type (SysprofCaptureReader *self, SysprofCaptureFrameType *type);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_peek_frame (SysprofCaptureReader *self, SysprofCaptureFrame *frame);
/* Moves past the next frame, even one whose payload is invalid. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_skip (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_reset (SysprofCaptureReader *self);

/* Read and consume the next frame.  The pointer stays valid until the next call
 * on this reader.  NULL with errno (EBADMSG and an error naming the offset for a
 * corrupt frame, which is then still the next frame; EINVAL for another type). */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureFrame *sysprof_capture_reader_read_frame (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureTimestamp *sysprof_capture_reader_read_timestamp (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureSample *sysprof_capture_reader_read_sample (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureMap *sysprof_capture_reader_read_map (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureProcess *sysprof_capture_reader_read_process (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureFork *sysprof_capture_reader_read_fork (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureExit *sysprof_capture_reader_read_exit (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureJitmap *sysprof_capture_reader_read_jitmap (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureCounterDefine *sysprof_capture_reader_read_counter_define (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureCounterSet *sysprof_capture_reader_read_counter_set (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureMark *sysprof_capture_reader_read_mark (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureMetadata *sysprof_capture_reader_read_metadata (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureLog *sysprof_capture_reader_read_log (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureFileChunk *sysprof_capture_reader_read_file (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureAllocation *sysprof_capture_reader_read_allocation (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureOverlay *sysprof_capture_reader_read_overlay (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureTrace *sysprof_capture_reader_read_trace (SysprofCaptureReader *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureDBusMessage *sysprof_capture_reader_read_dbus_message (SysprofCaptureReader *self);

/* The build-id stored after a MAP filename by Sysprof 45+ ("name\0@hex"), or NULL. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_capture_map_get_build_id (const SysprofCaptureMap *map);
/* The src and dst strings of an overlay frame returned by the reader. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_capture_overlay_get_src (const SysprofCaptureOverlay *overlay);
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_capture_overlay_get_dst (const SysprofCaptureOverlay *overlay);

/* Embedded files.  list_files returns a sorted, de-duplicated, NULL-terminated
 * array the caller frees with free() (the strings live in the same block).
 * Paths ending in ".gz" (Sysprof 45+ compresses most files) are listed as they
 * are stored. */
SYSPROF_AVAILABLE_IN_ALL
const char **sysprof_capture_reader_list_files (SysprofCaptureReader *self);
/* Reads on from the reader's position to the first chunk of @path and
 * returns it (read: the reader stands after it); NULL (errno ENOENT) when
 * no chunk of @path follows. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureFileChunk *sysprof_capture_reader_find_file (SysprofCaptureReader *self, const char *path);
/* Writes every chunk of @path, in order, to @fd; stops at the chunk marked
 * last.  Unlike upstream's, it looks from the start of the capture, not
 * from the reader's position. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_read_file_fd (SysprofCaptureReader *self, const char *path, int fd);

/* Appends every frame of @self (raw bytes) to @dest. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_splice (SysprofCaptureReader *self, SysprofCaptureWriter *dest);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_save_as (SysprofCaptureReader *self, const char *filename);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_reader_get_stat (SysprofCaptureReader *self, SysprofCaptureStat *st_buf);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_reader_set_stat (SysprofCaptureReader *self, const SysprofCaptureStat *st_buf);

/* Iterates the entries of one JITMAP frame (from a read_jitmap, valid until
 * the reader moves), as upstream's does; needs no clearing. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_jitmap_iter_init (SysprofCaptureJitmapIter *iter, const SysprofCaptureJitmap *jitmap);
/* Ours: iterates the entries of every JITMAP frame of the capture, through a
 * copy of @reader (whose position is not disturbed); clear it after. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_jitmap_iter_init_reader (SysprofCaptureJitmapIter *iter, SysprofCaptureReader *reader);
/* The next entry: its address and name (either may be NULL); false at the end. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_jitmap_iter_next (SysprofCaptureJitmapIter *iter, SysprofCaptureAddress *addr, const char **name);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_jitmap_iter_clear (SysprofCaptureJitmapIter *iter);

SYSPROF_END_DECLS
