// SPDX-License-Identifier: GPL-3.0-or-later
/* debug-frames SECONDS: a program built without unwind tables and
 * without frame pointers (-fno-asynchronous-unwind-tables -g), so that its
 * only call frame information is .debug_frame, in the file itself:
 *
 *   main -> run -> frame_outer -> frame_leaf        nearly all the time
 *
 * Unwinding it reads the file's DWARF (libdw's dwarf_begin_elf), which is
 * what a confined unwinder must survive: libdw looks for the file's
 * directory by name there (realpath of /proc/self/fd/N). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__ ((noinline))

static volatile uint64_t sink;

NOINLINE uint64_t frame_leaf (uint64_t v);
NOINLINE uint64_t frame_outer (uint64_t v);
NOINLINE void     run (double seconds);

NOINLINE uint64_t
frame_leaf (uint64_t v)
{
  for (int i = 0; i < 20000; i++)
    v = v * 6364136223846793005u + 1442695040888963407u;
  return v;
}

NOINLINE uint64_t
frame_outer (uint64_t v)
{
  volatile uint64_t keep = frame_leaf (v);

  return keep ^ 5;
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
  double   end = now () + seconds;
  uint64_t v = 1;

  while (now () < end)
    {
      for (int i = 0; i < 50; i++)
        v = frame_outer (v);
      sink = v;
    }
}

int
main (int argc, char *argv[])
{
  run (argc > 1 ? atof (argv[1]) : 3.0);
  return sink == 42;
}
