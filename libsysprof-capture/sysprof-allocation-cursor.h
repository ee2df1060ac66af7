// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#if !defined(SYSPROF_CAPTURE_INSIDE) && !defined(SYSPROF_CAPTURE_COMPILATION)
#error "Only <sysprof-capture.h> can be included directly."
#endif

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
/* Capture offset of the frame that carried the last event returned, for
 * progress reports. */
SYSPROF_AVAILABLE_IN_ALL
uint64_t sysprof_allocation_cursor_get_offset (SysprofAllocationCursor *self);

SYSPROF_END_DECLS
