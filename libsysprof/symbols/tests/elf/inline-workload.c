// SPDX-License-Identifier: GPL-3.0-or-later
/* Workload with a known call chain, an inlined function and known source
 * lines, built -O2 -g (without and with frame pointers):
 *
 *   main -> inline_middle -> inline_outer -> inline_mix (always_inline)
 *   main -> grouped_lib_run (libgrouped.so, whose static functions do the work)
 *
 * Lines the tests check carry a LINE: marker comment, looked up in this file
 * at test time.  Usage: inline-workload [SECONDS] (default 2); with
 * --report it prints where its functions are and its maps, and exits. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned long grouped_lib_run (unsigned long rounds);
void          grouped_lib_report (void);

/* Not static: a test may look for it in .symtab. */
__attribute__ ((noinline)) unsigned long inline_outer (unsigned long seed, unsigned long n);
__attribute__ ((noinline)) unsigned long inline_middle (unsigned long seed, unsigned long n);
__attribute__ ((noinline)) unsigned long inline_settle (unsigned long x);

static inline __attribute__ ((always_inline)) unsigned long
inline_mix (unsigned long x)
{
  x ^= x << 13; /* LINE:mix-a */
  x ^= x >> 7;  /* LINE:mix-b */
  x ^= x << 17; /* LINE:mix-c */
  return x;
}

/* A call keeps inline_outer from being a leaf: GCC gives leaves no frame
 * even with frame pointers, and the kernel's walk would then skip
 * inline_middle. */
__attribute__ ((noinline)) unsigned long
inline_settle (unsigned long x)
{
  __asm__ volatile("" : "+r"(x));
  return x;
}

__attribute__ ((noinline)) unsigned long
inline_outer (unsigned long seed, unsigned long n)
{
  for (unsigned long i = 0; i < n; i++)
    seed = inline_mix (seed) + i;  /* LINE:mix-call */
  return inline_settle (seed) + 1; /* not a tail call: the frame stays */
}

__attribute__ ((noinline)) unsigned long
inline_middle (unsigned long seed, unsigned long n)
{
  return inline_outer (seed, n) + 1; /* LINE:outer-call */
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
  double                 seconds = 2, start = now ();
  volatile unsigned long sink = 0;

  if (argc > 1 && strcmp (argv[1], "--report") == 0)
    {
      char  line[4096];
      FILE *maps = fopen ("/proc/self/maps", "r");

      printf ("func inline_outer %#jx\n", (uintmax_t) (uintptr_t) inline_outer);
      printf ("func inline_middle %#jx\n", (uintmax_t) (uintptr_t) inline_middle);
      grouped_lib_report ();
      while (maps != NULL && fgets (line, sizeof line, maps) != NULL)
        printf ("map %s", line);
      if (maps != NULL)
        fclose (maps);
      return 0;
    }
  if (argc > 1)
    seconds = atof (argv[1]);

  /* Two thirds in the inlined code, one third in the library. */
  while (now () - start < seconds)
    {
      sink += inline_middle (sink, 2000000); /* LINE:middle-call */
      sink += grouped_lib_run (300000);
    }
  return (int) (sink & 1) * 0;
}
