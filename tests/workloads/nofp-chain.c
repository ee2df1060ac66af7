// SPDX-License-Identifier: GPL-3.0-or-later
/* nofp-chain SECONDS: a workload built without frame pointers (as most of a
 * distribution is), with two known ways to its hot code:
 *
 *   main -> run -> chain_outer -> chain_middle -> chain_leaf        about 60 %
 *   main -> run -> sort_round -> qsort (libc) -> compare_keys      about 40 %
 *
 * The second goes through libc's qsort, whose own frame has no frame
 * pointer either: only CFI leads from compare_keys back to main.  Each
 * function keeps a frame of its own (noinline, a volatile local). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__ ((noinline))

static volatile uint64_t sink;

NOINLINE uint64_t chain_leaf (uint64_t v);
NOINLINE uint64_t chain_middle (uint64_t v);
NOINLINE uint64_t chain_outer (uint64_t v);
NOINLINE int      compare_keys (const void *a, const void *b);
NOINLINE void     sort_round (uint32_t *keys, size_t n);
NOINLINE void     run (double seconds);

NOINLINE uint64_t
chain_leaf (uint64_t v)
{
  for (int i = 0; i < 20000; i++)
    v = v * 6364136223846793005u + 1442695040888963407u;
  return v;
}

NOINLINE uint64_t
chain_middle (uint64_t v)
{
  volatile uint64_t keep = chain_leaf (v);

  return keep + 1;
}

NOINLINE uint64_t
chain_outer (uint64_t v)
{
  volatile uint64_t keep = chain_middle (v);

  return keep ^ 3;
}

NOINLINE int
compare_keys (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

  /* Some work per comparison, so that the time is here, not in qsort. */
  for (int i = 0; i < 40; i++)
    x = x * 1103515245u + 12345u, y = y * 1103515245u + 12345u;
  return (x > y) - (x < y);
}

NOINLINE void
sort_round (uint32_t *keys, size_t n)
{
  volatile size_t keep = n;

  for (size_t i = 0; i < n; i++)
    keys[i] = (uint32_t) (sink + i * 2654435761u);
  qsort (keys, keep, sizeof *keys, compare_keys);
  /* Not a tail call: sort_round stays on the stack under qsort. */
  sink += keys[0];
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void
run (double seconds)
{
  static uint32_t keys[2000];
  double          end = now () + seconds;
  uint64_t        v = 1;

  while (now () < end)
    {
      /* Calibrated on this workload: about 3 : 2. */
      for (int i = 0; i < 50; i++)
        v = chain_outer (v);
      sink = v;
      sort_round (keys, 2000);
    }
}

int
main (int argc, char *argv[])
{
  run (argc > 1 ? atof (argv[1]) : 3.0);
  return sink == 42;
}
