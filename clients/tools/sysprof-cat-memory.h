// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCatMemory: what `sysprof-cat --expand-memory` and `--compact-memory`
 * do to one input while sysprof_capture_writer_cat_full re-emits its frames.
 *
 * Every allocation event of the input (ALLOCATION frames and memory streams,
 * read through SysprofAllocationCursor in time order) is written again,
 * either as an ALLOCATION frame (expand) or into a stream of its thread
 * (compact), among the other frames by time: before a frame goes out, the
 * events earlier than it (or as early, from frames before it) do.  The
 * input's own ALLOCATION frames, stream chunks and "sysprof.memory-stream"
 * summaries are left out.  Nothing grows with the number of events: the
 * cursor holds one block per stream being merged, the compactor one stack
 * table per stream.  Errors: false / NULL with errno (the writer's, ENOMEM,
 * ESPIPE for an input that cannot be read twice). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <sysprof-capture.h>

#include "sysprof-cat-compactor.h"

typedef enum
{
  SYSPROF_CAT_MEMORY_EXPAND,
  SYSPROF_CAT_MEMORY_COMPACT,
} SysprofCatMemoryMode;

typedef struct _SysprofCatMemory SysprofCatMemory;

typedef struct
{
  uint64_t                 events;  /* written */
  uint64_t                 streams; /* of the input */
  uint64_t                 errors;  /* unsound stream blocks and frames, left out */
  uint64_t                 lost;    /* events the trackers said they lost (streams' lost records) */
  const char              *error;   /* the first of them, described; NULL without */
  SysprofCatCompactorStats compact; /* compaction only */
} SysprofCatMemoryReport;

/* For @reader's capture (its position is not moved), writing into @writer,
 * which must outlive the pass; @level: zstd level of compacted blocks. */
SysprofCatMemory *sysprof_cat_memory_new (SysprofCaptureWriter *writer,
                                          SysprofCaptureReader *reader,
                                          SysprofCatMemoryMode  mode,
                                          int                   level);
/* Accepts NULL. */
void sysprof_cat_memory_free (SysprofCatMemory *self);
/* The SysprofCaptureCatFunc of the pass (@user_data: the SysprofCatMemory). */
SysprofCaptureCatAction sysprof_cat_memory_filter (SysprofCaptureWriter      *writer,
                                                   const SysprofCaptureFrame *frame,
                                                   uint64_t                   offset,
                                                   void                      *user_data);
/* After the merge (whole or stopped by damage): the events left, the last
 * stream blocks, and METADATA frames for what the streams said was lost
 * and (compaction) the streams written. */
bool sysprof_cat_memory_finish (SysprofCatMemory *self);
/* Valid until the pass is freed. */
void sysprof_cat_memory_get_report (SysprofCatMemory *self, SysprofCatMemoryReport *report);
