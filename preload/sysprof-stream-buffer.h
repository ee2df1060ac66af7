// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* The memory tracker's per-thread block buffers: each thread gathers its
 * events into one block of its memory stream (libsysprof-capture/memory-
 * stream.md) and the block is written to the thread's ring as one FILE_CHUNK
 * frame (sysprof_collector_write_memory_stream) when
 *
 *  - the next event might not fit (the caller asks for room),
 *  - its first event is SYSPROF_STREAM_BUFFER_MAX_AGE_NS old (checked at
 *    each event, with the event's time),
 *  - another thread finds it that old while the owner is idle (a sweep, at
 *    most every SYSPROF_STREAM_BUFFER_MAX_AGE_NS, by a thread that writes:
 *    a thread that stops allocating does not keep its events),
 *  - the thread exits (the stream's last block, is_last),
 *  - the process calls exit(): every thread's block, as its last,
 *  - the tracker is about to describe the mappings (after dlopen): every
 *    thread's block.
 * In the child of a fork the parent's blocks are dropped (the parent writes
 * them) and the calling thread starts a new stream.
 *
 * A block that cannot be written (the collector gave up waiting for room:
 * its events are counted lost) may have defined stack ids: the stream's
 * stack table is emptied and the next block starts with a reset record.
 *
 * Ownership, one atomic per event: a buffer's state word is IDLE, BUSY (its
 * owner is adding an event), TAKEN (another thread is writing it out) or
 * ENDED (its stream is over).  The owner enters with one compare-and-swap
 * IDLE -> BUSY and leaves with a release store of IDLE (a plain store on
 * x86-64); another thread takes a buffer only with IDLE -> TAKEN, so the two
 * never touch the block at once, and its writes are visible to the owner's
 * next CAS (acquire).  At exit() a BUSY owner is waited for (it is in the
 * middle of one event, bounded); a sweep never waits.  A buffer taken at
 * exit() becomes ENDED: its owner, if it still runs, records its further
 * events as ALLOCATION frames.  Blocks taken from another thread go to the
 * taker's ring with the owner's thread id in their path; the ring drainer's
 * horizon keeps them after the owner's earlier blocks.
 *
 * The buffers and their list take a lock only when a thread gets its buffer
 * or ends, and for a sweep (try-lock: a sweep that would wait is skipped).
 * Memory comes from mmap: about 64 KiB a thread, plus its stack table. */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sysprof-capture.h>

#include "sysprof-stack-table.h"

#define SYSPROF_STREAM_BUFFER_SIZE       SYSPROF_MEMORY_STREAM_MAX_BLOCK
#define SYSPROF_STREAM_BUFFER_MAX_AGE_NS (10 * 1000 * 1000)

typedef enum
{
  SYSPROF_STREAM_BUFFER_IDLE = 0,
  SYSPROF_STREAM_BUFFER_BUSY,
  SYSPROF_STREAM_BUFFER_TAKEN,
  SYSPROF_STREAM_BUFFER_ENDED,
} SysprofStreamBufferState;

typedef struct _SysprofStreamBuffer SysprofStreamBuffer;

struct _SysprofStreamBuffer
{
  _Atomic uint32_t state;
  int32_t          tid;
  /* Events in the block (what is lost if it cannot be written). */
  _Atomic uint32_t n_events;
  /* The time of the block's first event (0: no block begun), read by
   * sweeps. */
  _Atomic int64_t first_time;
  /* Blocks written so far: a stream that wrote none needs no last block. */
  uint64_t n_blocks;
  /* The stream's stack ids. */
  SysprofStackTable *stacks;
  /* A block was lost: the next one starts by forgetting every stack id
   * (the lost block may have defined some). */
  bool                 need_reset;
  SysprofStreamBuffer *prev, *next; /* the list, under its lock */
  /* libsysprof-capture's encoder writes the block into data; only the
   * holder of the state uses it. */
  SysprofMemoryStreamEncoder encoder;
  _Alignas(8) uint8_t data[SYSPROF_STREAM_BUFFER_SIZE];
};

/* The calling thread's buffer, created on its first call (mmap, the list's
 * lock); NULL once the thread's stream ended (its exit, exit()) or when no
 * buffer can be had: record as frames then.  Everything below runs under the
 * tracker's recursion guard (it may reach the collector, which may
 * allocate). */
SysprofStreamBuffer *sysprof_stream_buffer_get (void);

bool _sysprof_stream_buffer_wait (SysprofStreamBuffer *self);

/* The owner's side of one event.
 * begin(): false when the stream ended (record the event as a frame); waits
 *   while another thread writes the block out.
 * reserve(): room for @max_bytes more records: the block is written out
 *   first when they might not fit, and a block is begun at @time when none
 *   is (after a lost block, with the reset record).  Returns the encoder to
 *   add the event's records to; they fit.  The stack table may have been
 *   emptied: look stacks up after it.
 * commit(): one event was added; ends the block when its first event is
 *   SYSPROF_STREAM_BUFFER_MAX_AGE_NS old at @time, and now and then sweeps
 *   other threads' old blocks.
 * end(): the state back to IDLE. */
static inline bool
sysprof_stream_buffer_begin (SysprofStreamBuffer *self)
{
  uint32_t expected = SYSPROF_STREAM_BUFFER_IDLE;

  if (__builtin_expect (atomic_compare_exchange_strong_explicit (&self->state, &expected, SYSPROF_STREAM_BUFFER_BUSY,
                                                                 memory_order_acquire, memory_order_relaxed),
                        1))
    return true;
  return _sysprof_stream_buffer_wait (self);
}

SysprofMemoryStreamEncoder *sysprof_stream_buffer_reserve (SysprofStreamBuffer *self, size_t max_bytes, int64_t time);
void                        sysprof_stream_buffer_commit (SysprofStreamBuffer *self, int64_t time);

static inline void
sysprof_stream_buffer_end (SysprofStreamBuffer *self)
{
  atomic_store_explicit (&self->state, SYSPROF_STREAM_BUFFER_IDLE, memory_order_release);
}

/* Writes out the caller's block and those of idle threads now (before the
 * mappings are described again): a thread in the middle of an event keeps
 * its block.  Outside begin()/end(). */
void sysprof_stream_buffers_flush_all (void);
/* The calling thread ends: its block is written as its stream's last, its
 * buffer freed; its later events are frames.  From a thread-exit handler. */
void sysprof_stream_buffer_thread_exit (void);
/* At exit(): every thread's block is written as its stream's last, threads
 * in the middle of an event waited for (up to about 2 s each; a thread
 * stuck longer loses its block, counted); later events of every thread are
 * frames. */
void sysprof_stream_buffers_close (void);
/* From the handler of a signal that ends the process (sysprof-memory-
 * collector.c installs it where the program left the default action): as
 * close(), but it never blocks for long: the list's lock and threads in the
 * middle of an event are waited for 1 s in all, and the calling thread's
 * own buffer, if the signal came in the middle of one of its events, is
 * counted lost.  Uses only what a handler may: atomics, sched_yield,
 * clock_gettime, a mutex try-lock (the lock cannot be held by an
 * interrupted owner forever: the handler gives up), and the collector's
 * ring write, which is safe against its own interruption. */
void sysprof_stream_buffers_close_from_signal (void);
/* pthread_atfork handlers (the list's lock must not be held across fork).
 * In the child, the parent's blocks are dropped (the parent writes them)
 * and the calling thread, if it had a buffer, starts a new stream under its
 * new thread id with no stack ids. */
void sysprof_stream_buffers_fork_prepare (void);
void sysprof_stream_buffers_fork_parent (void);
void sysprof_stream_buffers_fork_child (void);
