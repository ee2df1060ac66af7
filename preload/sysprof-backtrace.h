// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* Backtraces of the calling thread for the memory tracker, starting at the
 * caller of a hooked function.  Two methods:
 *
 *  - frame pointers: follows the chain of saved frame pointers, reading only
 *    inside the thread's stack.  Fast; frames of code built without frame
 *    pointers (most of Debian's libraries) are skipped or end the walk.
 *  - DWARF (libunwind's unw_backtrace): follows the unwind tables, so it sees
 *    through code without frame pointers; slower.
 *
 * Both write return addresses, outermost last.  They take no lock and make
 * no system call once sysprof_stack_bounds_init() ran on the thread. */

#include <stdbool.h>
#include <stdint.h>

typedef struct
{
  uintptr_t lo; /* lowest address of the stack */
  uintptr_t hi; /* one past the highest */
} SysprofStackBounds;

/* The extent of the calling thread's stack, from pthread_getattr_np() (for
 * the main thread: /proc/self/maps and RLIMIT_STACK).  May allocate.  False
 * (and empty bounds) when it cannot be found. */
bool sysprof_stack_bounds_init (SysprofStackBounds *bounds);

/* Walks the frame-pointer chain.  @ret is the first address (the return
 * address of the hooked function) and @frame that function's frame address
 * (__builtin_frame_address (0)): the walk goes on from the frame it saved.
 * Every frame must lie inside @bounds, above the previous one and aligned;
 * the walk stops at the first that does not, or after @max addresses.
 * Returns the number of addresses written (0 only when @max is 0). */
int
sysprof_backtrace_fp (const void *ret, const void *frame, const SysprofStackBounds *bounds, uint64_t *addrs, int max);

/* Whether sysprof_backtrace_dwarf() is available (built with libunwind). */
bool sysprof_backtrace_have_dwarf (void);

/* Sets up libunwind's per-thread cache; call once before the first
 * sysprof_backtrace_dwarf(). */
void sysprof_backtrace_dwarf_init (void);

/* Unwinds the calling thread with libunwind and writes the frames from the
 * one returning to @ret on (the frames of the tracker itself are left out);
 * at most @max.  When @ret is not found, writes @ret alone. */
int sysprof_backtrace_dwarf (const void *ret, uint64_t *addrs, int max);
