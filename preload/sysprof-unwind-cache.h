// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* A per-thread cache that makes a repeated DWARF backtrace cheap, giving
 * exactly what libunwind's unw_backtrace gives (sysprof_backtrace_dwarf).
 *
 * Two levels:
 *
 *  - Rules per return address (sysprof-unwind-rule.h): how to get from a
 *    frame to its caller, learned from libunwind once per address.  A walk
 *    with them is a table look-up and two loads per frame, instead of
 *    libunwind's context capture, cursor set-up and its own look-up.
 *  - The previous walk: the frames of a thread's consecutive stacks mostly
 *    share their outer part (main, the event loop, the interpreter).  When
 *    the walk reaches a frame with the same stack pointer, frame pointer and
 *    return address as a frame of the previous walk, what lies above is the
 *    same if the words the walk read there (each return address, each saved
 *    rbp) still hold the same values: those are compared, without look-ups
 *    and independently of each other, and the previous frames reused.
 *
 * Both only ever repeat what a walk with the rules would do, which is what
 * libunwind does: the rules are libunwind's, and the reuse checks every word
 * the walk would read.  Anything the rules do not cover (an address not
 * learned yet, a FALLBACK rule, a frame outside the thread's stack: a
 * sigaltstack, a coroutine) makes the walk return -1, and the caller asks
 * libunwind, then learns from its answer.
 *
 * No lock, no malloc (mmap), no system call on a walk; learning takes the
 * loader's lock and a few microseconds per new address.  The rules of one
 * thread are at most 64 Ki addresses (1 MiB); a full table empties itself.
 * After dlclose(), sysprof_unwind_cache_forget_all() makes every thread's
 * cache empty itself (an address may then hold other code). */

#include <stdbool.h>
#include <stdint.h>

#include "sysprof-backtrace.h"

typedef struct _SysprofUnwindCache SysprofUnwindCache;

/* A new cache (mmap), or NULL. */
SysprofUnwindCache *sysprof_unwind_cache_new (void);
void                sysprof_unwind_cache_free (SysprofUnwindCache *self);

/* The backtrace from the caller of a hooked function, as
 * sysprof_backtrace_dwarf (@ret, @addrs, @max) gives it: @ret is the hook's
 * return address and @frame its frame address (__builtin_frame_address (0)
 * of a function built with frame pointers), @bounds the calling thread's
 * stack.  Returns the number of addresses, or -1 when the cache cannot say:
 * then call sysprof_backtrace_dwarf() and give its answer to
 * sysprof_unwind_cache_learn().  @same_as_last (may be NULL) tells whether
 * the addresses are those of the previous successful walk. */
int sysprof_unwind_cache_walk (SysprofUnwindCache       *self,
                               const void               *ret,
                               const void               *frame,
                               const SysprofStackBounds *bounds,
                               uint64_t                 *addrs,
                               int                       max,
                               bool                     *same_as_last);

/* Learns the rules of the return addresses in @addrs (libunwind's answer)
 * that the cache does not know yet. */
void sysprof_unwind_cache_learn (SysprofUnwindCache *self, const uint64_t *addrs, int n_addrs);

/* Every thread's cache forgets what it learned, at its next walk. */
void sysprof_unwind_cache_forget_all (void);

/* Counters of one cache: walks answered, walks that needed libunwind,
 * addresses learned and of those FALLBACK, walks that reused the previous
 * one above some frame, frames found with a rule and frames reused. */
typedef struct
{
  uint64_t walks;
  uint64_t misses;
  uint64_t learned;
  uint64_t fallback;
  uint64_t reused;
  uint64_t frames_stepped;
  uint64_t frames_reused;
} SysprofUnwindCacheStats;

void sysprof_unwind_cache_get_stats (const SysprofUnwindCache *self, SysprofUnwindCacheStats *stats);
