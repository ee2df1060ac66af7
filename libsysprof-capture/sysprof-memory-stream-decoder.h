// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysprof-memory-stream.h"

SYSPROF_BEGIN_DECLS

typedef struct _SysprofMemoryStreamDecoder SysprofMemoryStreamDecoder;

/* What a decoder has seen so far. */
typedef struct
{
  uint64_t blocks;  /* blocks fed */
  uint64_t events;  /* events returned */
  uint64_t stacks;  /* stack records accepted */
  uint64_t resets;  /* reset records */
  uint64_t lost;    /* sum of the lost records (saturated) */
  uint64_t errors;  /* blocks ended by an error, refused stacks included */
  uint64_t skipped; /* events of a block not read when the next was fed */
  uint64_t reserved[9];
} SysprofMemoryStreamStats;

/* The decoder of one stream: the blocks of thread @tid of process @pid, in
 * the order they were written.  It keeps the stream's stack ids, bounded by
 * SYSPROF_MEMORY_STREAM_MAX_STACKS (and its own store by the STORED bounds).
 * NULL with errno ENOMEM. */
SYSPROF_AVAILABLE_IN_ALL
SysprofMemoryStreamDecoder *sysprof_memory_stream_decoder_new (int32_t pid, int32_t tid);
/* Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_memory_stream_decoder_free (SysprofMemoryStreamDecoder *self);

/* Starts the next block of the stream ('R' or 'Z', copied: @block need not
 * outlive the call).  @offset is the capture offset of its FILE_CHUNK frame,
 * named in error descriptions, or UINT64_MAX.  The rest of the previous
 * block is decoded first: its stack, reset and lost records apply, its events
 * are skipped (and counted).  An unsound block is not an error of the call:
 * it is counted and described (get_error), its events before the problem are
 * returned, and the next block decodes normally.  false with errno only for
 * EINVAL (NULL arguments) and ENOMEM. */
SYSPROF_AVAILABLE_IN_ALL
bool
sysprof_memory_stream_decoder_feed (SysprofMemoryStreamDecoder *self, const void *block, size_t len, uint64_t offset);
/* The next event of the current block: true with @event filled (its frames
 * valid until the next call), false at the end of the block or where an
 * error ended it. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_decoder_next (SysprofMemoryStreamDecoder *self, SysprofAllocationEvent *event);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_memory_stream_decoder_get_stats (SysprofMemoryStreamDecoder *self, SysprofMemoryStreamStats *stats);
/* A sentence describing the first error (naming the thread, the block's
 * capture offset and the byte in the block), or NULL when there was none. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_memory_stream_decoder_get_error (SysprofMemoryStreamDecoder *self);

/* Only the stack records of blocks, for a symbolizer: every address a
 * stream's events can name, without the events (stepped over, not decoded:
 * several times cheaper than a decoder).  Blocks on their own, in any order;
 * stack ids are not checked. */
typedef struct _SysprofMemoryStreamScanner SysprofMemoryStreamScanner;

/* @time: the block's base_time or the time of the event before the stack
 * record, a lower bound of the time of every event that uses it (the
 * tracker writes a block before the mappings change). */
typedef void (*SysprofMemoryStreamStackFunc) (int64_t                      time,
                                              const SysprofCaptureAddress *frames,
                                              unsigned int                 n_frames,
                                              void                        *user_data);

/* NULL with errno ENOMEM. */
SYSPROF_AVAILABLE_IN_ALL
SysprofMemoryStreamScanner *sysprof_memory_stream_scanner_new (void);
/* Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_memory_stream_scanner_free (SysprofMemoryStreamScanner *self);
/* Calls @func for each stack record (with at least one frame) of the block
 * @block ('R' or 'Z'; empty: none).  false with errno EINVAL when the block is
 * unsound (the stacks before the fault were given), ENOMEM. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_scanner_scan (SysprofMemoryStreamScanner  *self,
                                         const void                  *block,
                                         size_t                       len,
                                         SysprofMemoryStreamStackFunc func,
                                         void                        *user_data);

SYSPROF_END_DECLS
