// SPDX-License-Identifier: GPL-3.0-or-later
/* bench-unwind-preload.c: libbench-unwind-preload.so
 *
 * The unwind cache against libunwind inside a real program: preloaded, it
 * hooks malloc and, for every allocation, takes the stack both ways (the
 * unwind cache, preload/sysprof-unwind-cache.c, and unw_backtrace through
 * sysprof_backtrace_dwarf), as libsysprof-memory.so would, timing each with
 * the TSC around the unwinder alone and alternating which goes first (the
 * second finds the stack in the CPU caches).  At exit it prints on stderr:
 *
 *   bench-unwind-preload: backtraces=N frames=F libunwind_ns=A cached_ns=B libunwind/cached=R
 *     stepped=S reused=U differed=D learned=L fallback=K
 *
 * (per backtrace: frames, ns each way; frames the cache found with a rule or
 * reused from the previous walk; stacks that differed, which must be 0).
 * Only the main thread's allocations are measured.  For Debian's python3:
 *
 *   PYTHONMALLOC=malloc LD_PRELOAD=BUILDDIR/bench/libbench-unwind-preload.so python3 SCRIPT
 */

#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "sysprof-backtrace.h"
#include "sysprof-unwind-cache.h"

#define MAX_ADDRS 64

void *malloc (size_t size);

static void *(*real_malloc) (size_t);
static __thread int        busy;
static pid_t               main_tid;
static SysprofUnwindCache *cache;
static SysprofStackBounds  bounds;
static uint64_t            n, frames, ticks_libunwind, ticks_cached, differed, flip;

static __attribute__ ((noinline)) void
measure (const void *ret, const void *frame)
{
  uint64_t want[MAX_ADDRS], got[MAX_ADDRS], t0, t1, t2, cached, libunwind;
  int      n_want, n_got;

  if (flip++ & 1)
    {
      t0 = __rdtsc ();
      n_got = sysprof_unwind_cache_walk (cache, ret, frame, &bounds, got, MAX_ADDRS, NULL);
      t1 = __rdtsc ();
      n_want = sysprof_backtrace_dwarf (ret, want, MAX_ADDRS);
      t2 = __rdtsc ();
      cached = t1 - t0;
      libunwind = t2 - t1;
    }
  else
    {
      t0 = __rdtsc ();
      n_want = sysprof_backtrace_dwarf (ret, want, MAX_ADDRS);
      t1 = __rdtsc ();
      n_got = sysprof_unwind_cache_walk (cache, ret, frame, &bounds, got, MAX_ADDRS, NULL);
      t2 = __rdtsc ();
      libunwind = t1 - t0;
      cached = t2 - t1;
    }
  if (n_got < 0)
    {
      /* Learning: not a repeated stack, not counted. */
      sysprof_unwind_cache_learn (cache, want, n_want);
      return;
    }
  if (n_got != n_want || memcmp (got, want, (size_t) n_want * sizeof want[0]) != 0)
    differed++;
  n++;
  frames += (uint64_t) n_want;
  ticks_cached += cached;
  ticks_libunwind += libunwind;
}

void *
malloc (size_t size)
{
  void *p;

  if (real_malloc == NULL)
    real_malloc = (void *(*) (size_t)) dlsym (RTLD_NEXT, "malloc");
  p = real_malloc (size);
  if (!busy && cache != NULL && gettid () == main_tid)
    {
      busy = 1;
      measure (__builtin_return_address (0), __builtin_frame_address (0));
      busy = 0;
    }
  return p;
}

__attribute__ ((constructor)) static void
bench_init (void)
{
  busy = 1;
  sysprof_backtrace_dwarf_init ();
  if (sysprof_stack_bounds_init (&bounds))
    cache = sysprof_unwind_cache_new ();
  main_tid = gettid ();
  busy = 0;
}

__attribute__ ((destructor)) static void
bench_fini (void)
{
  SysprofUnwindCacheStats stats;
  struct timespec         a, b;
  uint64_t                c0, c1;
  double                  ticks_per_ns;
  char                    line[512];
  int                     len;

  if (cache == NULL || n == 0)
    return;
  busy = 1;
  clock_gettime (CLOCK_MONOTONIC, &a);
  c0 = __rdtsc ();
  do
    clock_gettime (CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 50000000L);
  c1 = __rdtsc ();
  ticks_per_ns = (double) (c1 - c0) / (double) ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
  sysprof_unwind_cache_get_stats (cache, &stats);
  len = snprintf (
      line, sizeof line,
      "bench-unwind-preload: backtraces=%llu frames=%.1f libunwind_ns=%.0f cached_ns=%.0f "
      "libunwind/cached=%.2f\n  stepped=%.1f reused=%.1f differed=%llu learned=%llu fallback=%llu\n",
      (unsigned long long) n, (double) frames / (double) n, (double) ticks_libunwind / ticks_per_ns / (double) n,
      (double) ticks_cached / ticks_per_ns / (double) n, (double) ticks_libunwind / (double) ticks_cached,
      (double) stats.frames_stepped / (double) stats.walks, (double) stats.frames_reused / (double) stats.walks,
      (unsigned long long) differed, (unsigned long long) stats.learned, (unsigned long long) stats.fallback);
  if (len > 0 && write (STDERR_FILENO, line, (size_t) len) < 0)
    return;
}
