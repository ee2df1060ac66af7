// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>

#include "sysprof-capture-reader.h"
#include "sysprof-memory-stream.h"

SYSPROF_BEGIN_DECLS

typedef struct _SysprofAllocationCursor SysprofAllocationCursor;

/* What a cursor has read; streams, blocks and allocation_frames are known
 * from its creation, the rest grows as events are read. */
typedef struct
{
  uint64_t events;            /* events returned */
  uint64_t allocation_frames; /* ALLOCATION frames in the capture */
  uint64_t streams;           /* memory streams (a reused thread id starts another) */
  uint64_t blocks;            /* their blocks */
  uint64_t errors;            /* unsound blocks, refused stacks, unusable frames */
  uint64_t lost;              /* events the trackers counted in lost records */
  uint64_t stacks;            /* stack definitions accepted */
  uint64_t reserved[9];
} SysprofAllocationCursorStats;

/* Every allocation and release of the capture of @reader (whose position is
 * not moved), from ALLOCATION frames and memory streams together, in time
 * order; events with equal times come in the order of the frames carrying
 * them.  ALLOCATION frames keep their capture order among themselves (writers
 * write them in time order).  Creating the cursor reads the capture once to
 * find the blocks of every stream (24 bytes kept per block); reading then
 * holds one block per stream whose events are being merged and the stacks of
 * the streams not yet ended, never the events.  NULL with errno: EINVAL,
 * ENOMEM, ESPIPE (a pipe cannot be read twice). */
SYSPROF_AVAILABLE_IN_ALL
SysprofAllocationCursor *sysprof_allocation_cursor_new (SysprofCaptureReader *reader);

/* The event an ALLOCATION frame stands for, as the cursor hands it out (for
 * frames a caller takes in the first pass, see the options); @frame as the
 * reader returns it, @offset its capture offset.  Inline: it runs once per
 * frame. */
static inline void
sysprof_allocation_event_from_frame (const SysprofCaptureAllocation *frame,
                                     uint64_t                        offset,
                                     SysprofAllocationEvent         *event)
{
  event->time = frame->frame.time;
  event->pid = frame->frame.pid;
  event->tid = frame->tid;
  event->address = frame->alloc_addr;
  event->size = frame->alloc_size;
  /* The reader hands out 8-byte aligned frames; the struct is only packed
   * for its layout. */
  event->frames =
      frame->n_addrs ? (const SysprofCaptureAddress *) (const void *) ((const uint8_t *) frame + sizeof *frame) : NULL;
  event->n_frames = frame->n_addrs;
  event->cpu = frame->frame.cpu;
  event->stack_key = 0;
  event->offset = offset;
}

/* Called by the first pass for each frame of a type the options name, with
 * @reader at that frame: the callback may read it with the reader's typed
 * functions or leave it (the cursor then steps over it).  Return false to
 * stop: creating the cursor then fails with ECANCELED. */
typedef bool (*SysprofAllocationCursorFrameFunc) (SysprofCaptureReader   *reader,
                                                  SysprofCaptureFrameType type,
                                                  void                   *user_data);
/* The first pass's position, every 65536 frames and at its end. */
typedef void (*SysprofAllocationCursorProgress) (uint64_t offset, void *user_data);

/* The options will grow: set @size to sizeof (SysprofAllocationCursorOptions)
 * and the fields not used to 0. */
typedef struct
{
  size_t size;
  /* The first pass reads every frame anyway: an analysis that also needs
   * other frames (METADATA, MARK, samples...) takes them here rather than
   * reading the capture once more.  Bit (1 << type) for each type given to
   * @frame_func; UINT64_MAX gives every frame, unknown types included.  ALLOCATION frames given to it are not events of
   * the cursor, which then merges the streams only: a consumer that needs no time order between the two (counts, sets)
   * reads a capture of ALLOCATION frames in this one pass. */
  uint64_t                         frame_types;
  SysprofAllocationCursorFrameFunc frame_func;
  SysprofAllocationCursorProgress  progress;
  void                            *user_data;
} SysprofAllocationCursorOptions;

/* sysprof_allocation_cursor_new() with options (NULL: none); also NULL with
 * errno ECANCELED when the frame callback stopped the first pass. */
SYSPROF_AVAILABLE_IN_ALL
SysprofAllocationCursor *sysprof_allocation_cursor_new_full (SysprofCaptureReader                 *reader,
                                                             const SysprofAllocationCursorOptions *options);
SYSPROF_AVAILABLE_IN_ALL
SysprofAllocationCursor *sysprof_allocation_cursor_ref (SysprofAllocationCursor *self);
/* Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_allocation_cursor_unref (SysprofAllocationCursor *self);

/* The next event (its frames valid until the next call), or false at the
 * end: get_capture_error then says whether the capture was read to its end.
 * Unsound stream blocks do not stop the cursor (get_stats, get_error). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_allocation_cursor_next (SysprofAllocationCursor *self, SysprofAllocationEvent *event);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_allocation_cursor_get_stats (SysprofAllocationCursor *self, SysprofAllocationCursorStats *stats);
/* A sentence describing the first error counted in the stats (naming the
 * capture offset of the frame at fault), or NULL when there was none. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_allocation_cursor_get_error (SysprofAllocationCursor *self);
/* Why the capture could not be read to its end (code 0 when it could): the
 * events before that point are returned, those after it cannot be found. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCaptureError *sysprof_allocation_cursor_get_capture_error (SysprofAllocationCursor *self);
/* One memory stream, for reports per process or thread.  The counts are
 * final once the cursor returned its last event. */
typedef struct
{
  int32_t  pid;
  int32_t  tid;
  uint64_t blocks;
  uint64_t lost;   /* events its tracker counted in lost records */
  uint64_t errors; /* unsound blocks, refused stacks */
  uint64_t reserved[5];
} SysprofAllocationStreamInfo;

/* Stream @index (0 to stats.streams - 1, in the order of their first
 * blocks), or false with EINVAL past the last one. */
SYSPROF_AVAILABLE_IN_ALL
bool
sysprof_allocation_cursor_get_stream (SysprofAllocationCursor *self, uint64_t index, SysprofAllocationStreamInfo *info);
/* Capture offset of the frame that carried the last event returned, for
 * progress reports. */
SYSPROF_AVAILABLE_IN_ALL
uint64_t sysprof_allocation_cursor_get_offset (SysprofAllocationCursor *self);

SYSPROF_END_DECLS
