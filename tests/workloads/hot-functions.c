// SPDX-License-Identifier: GPL-3.0-or-later
/* A CPU-bound program whose profile is known in advance, for the tests, the
 * demo and the benchmarks.  Each round gives every hot function a fixed slice
 * of wall-clock time, so their shares of the samples of this process are:
 *
 *   hot_compute_a   40 %   (this executable)
 *   hot_compute_b   30 %   (libhotlib.so, a shared library)
 *   hot_compute_c   20 %   (this executable, reached through a deeper chain)
 *   hot_syscalls    10 %   (mostly in the kernel: getppid() in a loop)
 *
 * Built with frame pointers so perf's callchains reach main.
 *
 *   hot-functions [SECONDS]        run for SECONDS (default 3, fractions allowed)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hotlib.h"

#define ROUND_NS 10000000 /* 10 ms per round: 4 + 3 + 2 + 1 */

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* The clock is read once per 4096 iterations, so its own cost (vdso) stays
 * far below a percent of the slice. */
__attribute__ ((noinline)) static unsigned long
hot_compute_a (double budget_ns)
{
  volatile unsigned long acc = 1;
  double                 end = now_ns () + budget_ns;

  do
    for (unsigned i = 0; i < 4096; i++)
      acc = acc * 6364136223846793005ul + 1442695040888963407ul;
  while (now_ns () < end);
  return acc;
}

__attribute__ ((noinline)) static unsigned long
hot_compute_c (double budget_ns)
{
  volatile unsigned long acc = 3;
  double                 end = now_ns () + budget_ns;

  do
    for (unsigned i = 0; i < 4096; i++)
      acc = (acc ^ (acc >> 7)) * 0x9E3779B97F4A7C15ul;
  while (now_ns () < end);
  return acc;
}

__attribute__ ((noinline)) static unsigned long
middle_c (double budget_ns)
{
  unsigned long r = hot_compute_c (budget_ns);
  __asm__ volatile("" ::: "memory"); /* keeps this frame: no tail call */
  return r;
}

__attribute__ ((noinline)) static unsigned long
outer_c (double budget_ns)
{
  unsigned long r = middle_c (budget_ns);
  __asm__ volatile("" ::: "memory");
  return r;
}

__attribute__ ((noinline)) static unsigned long
hot_syscalls (double budget_ns)
{
  unsigned long n = 0;
  double        end = now_ns () + budget_ns;

  do
    for (unsigned i = 0; i < 64; i++)
      n += (unsigned long) getppid ();
  while (now_ns () < end);
  return n;
}

int
main (int argc, char **argv)
{
  double        seconds = argc > 1 ? strtod (argv[1], NULL) : 3.0;
  double        end;
  unsigned long sink = 0;

  if (seconds <= 0 || seconds > 86400)
    {
      fprintf (stderr, "usage: hot-functions [SECONDS]\n");
      return 2;
    }
  end = now_ns () + seconds * 1e9;
  while (now_ns () < end)
    {
      sink += hot_compute_a (ROUND_NS * 0.4);
      sink += hot_compute_b (ROUND_NS * 0.3);
      sink += outer_c (ROUND_NS * 0.2);
      sink += hot_syscalls (ROUND_NS * 0.1);
    }
  return sink == 42 ? 1 : 0;
}
