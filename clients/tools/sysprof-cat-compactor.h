// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCatCompactor: allocation events (from SysprofAllocationCursor) to
 * memory streams (libsysprof-capture/memory-stream.md), for
 * `sysprof-cat --compact-memory`.  One stream per (pid, tid); each distinct
 * stack of a stream is defined once and named by its id; blocks are written
 * as FILE_CHUNK frames when full (zstd 'Z' blocks when smaller) and every
 * stream ends with an is_last block.  Errors: false with errno (the writer's,
 * or ENOMEM). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <sysprof-capture.h>

typedef struct _SysprofCatCompactor SysprofCatCompactor;

typedef struct
{
  uint64_t streams;
  uint64_t blocks;
  uint64_t raw_bytes;    /* of the blocks, before compression */
  uint64_t stored_bytes; /* as written */
  uint64_t compressed;   /* blocks written as 'Z' */
  uint64_t stacks;       /* stack definitions written */
  uint64_t resets;       /* streams reset to stay within what readers keep */
  /* What streams cannot carry exactly (the event is kept, changed): */
  uint64_t backwards;      /* a time before the thread's previous event: written with that time */
  uint64_t release_stacks; /* the stack of a release (streams have none) */
  uint64_t long_stacks;    /* stacks of over SYSPROF_MEMORY_STREAM_MAX_FRAMES frames, cut */
  uint64_t bad_sizes;      /* negative sizes, written as 2^63-1 */
} SysprofCatCompactorStats;

/* Writes into @writer (not owned: it must outlive the compactor); @level is
 * the zstd level of the compressed blocks.  NULL with errno ENOMEM. */
SysprofCatCompactor *sysprof_cat_compactor_new (SysprofCaptureWriter *writer, int level);
/* Accepts NULL. */
void sysprof_cat_compactor_free (SysprofCatCompactor *self);
/* Adds @event to its thread's stream, with @frames (the event's stack as the
 * output capture names its addresses) instead of event->frames.  Events of a
 * thread are expected in time order. */
bool sysprof_cat_compactor_add (SysprofCatCompactor          *self,
                                const SysprofAllocationEvent *event,
                                const SysprofCaptureAddress  *frames);
/* Writes the last block of every stream (is_last).  The compactor is then
 * empty: events added after start new streams. */
bool sysprof_cat_compactor_finish (SysprofCatCompactor *self);
void sysprof_cat_compactor_get_stats (SysprofCatCompactor *self, SysprofCatCompactorStats *stats);
