// SPDX-License-Identifier: GPL-3.0-or-later
/* A CPU-bound program whose profile is known in advance, for the tests, the
 * demo and the benchmarks.  Each round runs the hot functions for fixed
 * amounts of work, so their shares of the samples of this process are:
 *
 *   hot_compute_a   40 %   (this executable)
 *   hot_compute_b   30 %   (libhotlib.so, a shared library)
 *   hot_compute_c   20 %   (this executable, reached through outer_c, middle_c)
 *   hot_syscalls    10 %   (mostly in the kernel: getppid system calls)
 *
 * The three compute functions run the same loop body, HOT_SPIN_STEP, for
 * 4, 3 and 2 units of iterations: their ratios hold whatever the CPU speed
 * or preemption.  The system calls are calibrated at start-up to take as long
 * as one unit.  Built with frame pointers so perf's callchains reach main;
 * noipa keeps GCC from cloning the functions under other names (.constprop.0).
 *
 *   hot-functions [SECONDS [A B C]]   run for about SECONDS (default 3, fractions allowed);
 *                                     A, B, C: the units of hot_compute_a, _b and _c per round
 *                                     (default 4 3 2; the system calls stay one unit), so that
 *                                     a test can change the shares in a known way
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hotlib.h"

#define UNIT_NS 1000000.0 /* one unit of work is about 1 ms: rounds of 10 ms */

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

HOT_NOINLINE static unsigned long
hot_compute_a (unsigned long iterations)
{
  volatile unsigned long acc = 1;

  for (unsigned long i = 0; i < iterations; i++)
    HOT_SPIN_STEP (acc);
  return acc;
}

HOT_NOINLINE static unsigned long
hot_compute_c (unsigned long iterations)
{
  volatile unsigned long acc = 3;

  for (unsigned long i = 0; i < iterations; i++)
    HOT_SPIN_STEP (acc);
  return acc;
}

HOT_NOINLINE static unsigned long
middle_c (unsigned long iterations)
{
  unsigned long r = hot_compute_c (iterations);
  __asm__ volatile("" ::: "memory"); /* keeps this frame: no tail call */
  return r;
}

HOT_NOINLINE static unsigned long
outer_c (unsigned long iterations)
{
  unsigned long r = middle_c (iterations);
  __asm__ volatile("" ::: "memory");
  return r;
}

/* The system call straight from this function: libc's getppid() keeps no
 * frame pointer, and a frame-pointer unwind from inside it would skip
 * hot_syscalls. */
static inline unsigned long
raw_getppid (void)
{
#if defined(__x86_64__)
  unsigned long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(110 /* __NR_getppid */) : "rcx", "r11", "memory");
  return ret;
#else
  return (unsigned long) getppid ();
#endif
}

HOT_NOINLINE static unsigned long
hot_syscalls (unsigned long calls)
{
  unsigned long n = 0;

  for (unsigned long i = 0; i < calls; i++)
    n += raw_getppid ();
  return n;
}

/* The fastest of a few timings of @fn doing @n: the least disturbed one. */
static double
best_time (unsigned long (*fn) (unsigned long), unsigned long n)
{
  double best = 1e30;

  for (int i = 0; i < 5; i++)
    {
      double t0 = now_ns ();
      fn (n);
      double t = now_ns () - t0;
      if (t < best)
        best = t;
    }
  return best > 0 ? best : 1;
}

int
main (int argc, char **argv)
{
  double        seconds = argc > 1 ? strtod (argv[1], NULL) : 3.0;
  long          units[3] = { 4, 3, 2 };
  unsigned long unit, calls;
  double        end;
  unsigned long sink = 0;

  if (argc == 5)
    for (int i = 0; i < 3; i++)
      units[i] = strtol (argv[2 + i], NULL, 10);
  if (!(seconds > 0 && seconds <= 86400) || (argc != 5 && argc > 2) || units[0] < 0 || units[0] > 100 || units[1] < 0 ||
      units[1] > 100 || units[2] < 0 || units[2] > 100)
    {
      fprintf (stderr, "usage: hot-functions [SECONDS [A B C]]\n");
      return 2;
    }
  unit = (unsigned long) (200000 * UNIT_NS / best_time (hot_compute_a, 200000));
  calls = (unsigned long) (2000 * UNIT_NS / best_time (hot_syscalls, 2000));
  if (unit == 0)
    unit = 1;
  if (calls == 0)
    calls = 1;

  end = now_ns () + seconds * 1e9;
  while (now_ns () < end)
    {
      sink += hot_compute_a ((unsigned long) units[0] * unit);
      sink += hot_compute_b ((unsigned long) units[1] * unit);
      sink += outer_c ((unsigned long) units[2] * unit);
      sink += hot_syscalls (calls);
    }
  return sink == 42 ? 1 : 0;
}
