// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

/* Writers buffer frames in memory and write() them when the buffer fills or on
 * sysprof_capture_writer_flush().  @buffer_size 0 picks the default; otherwise it
 * must be a multiple of the page size.  The fd may be a regular file, a pipe or a
 * socket: header end_time is rewritten only when the fd is seekable. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureWriter *sysprof_capture_writer_new (const char *filename, size_t buffer_size);
/* Takes ownership of @fd (also on failure). */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureWriter *sysprof_capture_writer_new_from_fd (int fd, size_t buffer_size);
/* Uses the fd number in $SYSPROF_TRACE_FD (dup'ed); NULL with errno ENOENT when unset. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureWriter *sysprof_capture_writer_new_from_env (size_t buffer_size);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureWriter *sysprof_capture_writer_ref (SysprofCaptureWriter *self);
/* Flushes and closes on the last reference.  Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_writer_unref (SysprofCaptureWriter *self);
SYSPROF_AVAILABLE_IN_ALL
size_t sysprof_capture_writer_get_buffer_size (SysprofCaptureWriter *self);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_writer_stat (SysprofCaptureWriter *self, SysprofCaptureStat *stat);
/* Bytes handed to the fd so far plus what is still buffered. */
SYSPROF_AVAILABLE_IN_ALL
uint64_t sysprof_capture_writer_get_size (SysprofCaptureWriter *self);
/* Caps the capture at @max_bytes as get_size() counts them (0: no cap, the
 * default).  From then on every add function, and splice, refuses a frame
 * that would take the capture beyond the cap: it fails with errno EFBIG and
 * writes nothing of it, while a smaller frame that still fits is taken.  JIT
 * map entries count when they are added, so the JITMAP frame that flush()
 * owes always fits.  A cap below the current size keeps what is there and
 * refuses all that follows.  Setting 0 lifts the cap, for instance for the
 * last frames of a session stopped at its limit.  A cap first moves the
 * pending JIT map into the buffer (it was accepted without the cap): false
 * with errno when that fails, and the cap is not set. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_set_max_size (SysprofCaptureWriter *self, uint64_t max_bytes);

SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_timestamp (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_exit (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid);
SYSPROF_AVAILABLE_IN_ALL
bool
sysprof_capture_writer_add_fork (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, int32_t child_pid);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_process (
    SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, const char *cmdline);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_map (SysprofCaptureWriter *self,
                                     int64_t               time,
                                     int                   cpu,
                                     int32_t               pid,
                                     uint64_t              start,
                                     uint64_t              end,
                                     uint64_t              offset,
                                     uint64_t              inode,
                                     const char           *filename);
/* Stores "filename\0@build_id" as Sysprof 45+ does; @build_id is lower-case hex. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_map_with_build_id (SysprofCaptureWriter *self,
                                                   int64_t               time,
                                                   int                   cpu,
                                                   int32_t               pid,
                                                   uint64_t              start,
                                                   uint64_t              end,
                                                   uint64_t              offset,
                                                   uint64_t              inode,
                                                   const char           *filename,
                                                   const char           *build_id);
/* Returns the pseudo address (SYSPROF_CAPTURE_JITMAP_MARK | n) standing for
 * @name, the same one for the same name; 0 with errno on failure. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureAddress sysprof_capture_writer_add_jitmap (SysprofCaptureWriter *self, const char *name);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_sample (SysprofCaptureWriter        *self,
                                        int64_t                      time,
                                        int                          cpu,
                                        int32_t                      pid,
                                        int32_t                      tid,
                                        const SysprofCaptureAddress *addrs,
                                        unsigned int                 n_addrs);
/* Our extension: an off-CPU sample (see SYSPROF_CAPTURE_SAMPLE_OFF_CPU), the
 * stack @addrs (innermost first, as for a sample) with
 * SYSPROF_CAPTURE_ADDRESS_USER and the "[off-CPU]" JIT-map address appended
 * as its outermost frames, and @off_cpu_usec (at least 1).  @n_addrs is at
 * most SYSPROF_CAPTURE_MAX_ADDRS - 2. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_off_cpu_sample (SysprofCaptureWriter        *self,
                                                int64_t                      time,
                                                int                          cpu,
                                                int32_t                      pid,
                                                int32_t                      tid,
                                                const SysprofCaptureAddress *addrs,
                                                unsigned int                 n_addrs,
                                                uint32_t                     off_cpu_usec);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_trace (SysprofCaptureWriter        *self,
                                       int64_t                      time,
                                       int                          cpu,
                                       int32_t                      pid,
                                       int32_t                      tid,
                                       const SysprofCaptureAddress *addrs,
                                       unsigned int                 n_addrs,
                                       bool                         entering);
/* Reserves @n_counters consecutive ids and returns the first; 0 with errno on exhaustion. */
SYSPROF_AVAILABLE_IN_ALL
unsigned int sysprof_capture_writer_request_counter (SysprofCaptureWriter *self, unsigned int n_counters);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_define_counters (SysprofCaptureWriter        *self,
                                             int64_t                      time,
                                             int                          cpu,
                                             int32_t                      pid,
                                             const SysprofCaptureCounter *counters,
                                             unsigned int                 n_counters);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_set_counters (SysprofCaptureWriter             *self,
                                          int64_t                           time,
                                          int                               cpu,
                                          int32_t                           pid,
                                          const unsigned int               *counters_ids,
                                          const SysprofCaptureCounterValue *values,
                                          unsigned int                      n_counters);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_mark (SysprofCaptureWriter *self,
                                      int64_t               time,
                                      int                   cpu,
                                      int32_t               pid,
                                      uint64_t              duration,
                                      const char           *group,
                                      const char           *name,
                                      const char           *message);
/* @metadata_len -1 means strlen(@metadata). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_metadata (SysprofCaptureWriter *self,
                                          int64_t               time,
                                          int                   cpu,
                                          int32_t               pid,
                                          const char           *id,
                                          const char           *metadata,
                                          ssize_t               metadata_len);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_log (SysprofCaptureWriter *self,
                                     int64_t               time,
                                     int                   cpu,
                                     int32_t               pid,
                                     int                   severity,
                                     const char           *domain,
                                     const char           *message);
/* One FILE_CHUNK; @data_len at most SYSPROF_CAPTURE_FILE_CHUNK_MAX. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_file (SysprofCaptureWriter *self,
                                      int64_t               time,
                                      int                   cpu,
                                      int32_t               pid,
                                      const char           *path,
                                      bool                  is_last,
                                      const uint8_t        *data,
                                      size_t                data_len);
/* Reads @fd to its end and stores it as FILE_CHUNK frames (an empty file gives one empty last chunk). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_file_fd (
    SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, const char *path, int fd);
/* @backtrace_func fills the addresses directly into the frame. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_allocation (SysprofCaptureWriter *self,
                                            int64_t               time,
                                            int                   cpu,
                                            int32_t               pid,
                                            int32_t               tid,
                                            SysprofCaptureAddress alloc_addr,
                                            int64_t               alloc_size,
                                            SysprofBacktraceFunc  backtrace_func,
                                            void                 *backtrace_data);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_allocation_copy (SysprofCaptureWriter        *self,
                                                 int64_t                      time,
                                                 int                          cpu,
                                                 int32_t                      pid,
                                                 int32_t                      tid,
                                                 SysprofCaptureAddress        alloc_addr,
                                                 int64_t                      alloc_size,
                                                 const SysprofCaptureAddress *addrs,
                                                 unsigned int                 n_addrs);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_overlay (
    SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, uint32_t layer, const char *src, const char *dst);
/* A message longer than SYSPROF_CAPTURE_DBUS_MESSAGE_MAX is stored without its
 * body and with SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE set. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_dbus_message (SysprofCaptureWriter *self,
                                              int64_t               time,
                                              int                   cpu,
                                              int32_t               pid,
                                              uint16_t              bus_type,
                                              uint16_t              flags,
                                              const uint8_t        *message,
                                              size_t                message_len);
/* Appends an already encoded frame (e.g. drained from a ring buffer) after
 * checking its header: len multiple of 8, at least 24, type known. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_add_raw (SysprofCaptureWriter *self, const SysprofCaptureFrame *frame);
/* Appends the frame at @data, in memory another process may change while we
 * read it (a ring buffer shared with a profiled program): its length is read
 * once (it must be at most @avail), the frame is copied into the writer and
 * only the copy is checked, as a reader checks frames from a file
 * (sysprof_capture_frame_validate).  Returns the frame's length, or 0 with
 * errno EBADMSG when the frame is invalid (nothing written; the frame
 * boundaries after it cannot be trusted) or the writer's errno when it could
 * not be written. */
SYSPROF_AVAILABLE_IN_ALL
size_t sysprof_capture_writer_add_untrusted (SysprofCaptureWriter *self, const void *data, size_t avail);

/* Writes the pending JIT map and the buffer, then (seekable fds) end_time. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_flush (SysprofCaptureWriter *self);
/* Ends the capture being written and goes on in a new one (continuous
 * recording cuts its captures so): flushes (the pending JIT map, the buffer,
 * end_time), closes the old fd, and starts a capture in @fd, which the
 * writer then owns: a new header whose start is now, the frame counts of
 * sysprof_capture_writer_stat() and get_size() from zero, the max-size cap
 * kept.  JIT addresses and counter ids keep counting, so that they never
 * mean two things to a program that reads both captures; a new capture
 * knows none of the old one's JIT names or counter definitions: whoever
 * needs them there adds them again.  False with errno when the old capture
 * could not be finished or the new one begun: the writer then still writes
 * the old capture, and @fd is not taken. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_switch_fd (SysprofCaptureWriter *self, int fd);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_save_as (SysprofCaptureWriter *self, const char *filename);
/* Flushes and opens a reader on a duplicate of the fd (seekable fds only). */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_writer_create_reader (SysprofCaptureWriter *self);
/* Appends every frame of @self to @dest as raw bytes (no re-mapping). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_splice (SysprofCaptureWriter *self, SysprofCaptureWriter *dest);
/* Re-emits every frame of @reader into @self, giving its JIT addresses and
 * counter ids new values that cannot collide with those already in @self. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_cat (SysprofCaptureWriter *self, SysprofCaptureReader *reader);

/* What a SysprofCaptureCatFunc decides for a frame. */
typedef enum
{
  SYSPROF_CAPTURE_CAT_COPY, /* re-emitted, as sysprof_capture_writer_cat does */
  SYSPROF_CAPTURE_CAT_DROP, /* left out */
  SYSPROF_CAPTURE_CAT_FAIL, /* the merge stops and fails with the errno set */
} SysprofCaptureCatAction;

/* Sees each readable frame of the source (at @offset in it) before it is
 * re-emitted, and may first add frames of its own to @self, which then
 * precede it.  @frame's addresses and counter ids are the source's: JIT
 * addresses translate by name (sysprof_capture_writer_add_jitmap returns the
 * address @self gives a name it has, and the merge registers every name of
 * the source before the first frame). */
typedef SysprofCaptureCatAction (*SysprofCaptureCatFunc) (SysprofCaptureWriter      *self,
                                                          const SysprofCaptureFrame *frame,
                                                          uint64_t                   offset,
                                                          void                      *user_data);
/* sysprof_capture_writer_cat, with @func (NULL: none) deciding frame by
 * frame (sysprof-cat's memory stream expansion and compaction). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_cat_full (SysprofCaptureWriter *self,
                                      SysprofCaptureReader *reader,
                                      SysprofCaptureCatFunc func,
                                      void                 *user_data);
/* Overrides the header start and end times written by the next flush. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_writer_set_time_range (SysprofCaptureWriter *self, int64_t start_time, int64_t end_time);

#define SYSPROF_CAPTURE_FILE_CHUNK_MAX   (SYSPROF_CAPTURE_MAX_FRAME_LEN - sizeof (SysprofCaptureFileChunk) - 4)
#define SYSPROF_CAPTURE_DBUS_MESSAGE_MAX (65536 - 28 - 16)

SYSPROF_END_DECLS
