// SPDX-License-Identifier: GPL-3.0-or-later
/* bench-unwind.c
 *
 * The two unwinders of libsysprof-memory.so (preload/sysprof-backtrace.c),
 * compared on what decides the tracker's default:
 *
 *  1. speed: ns per backtrace at a stack depth of about 8 and 32 frames,
 *     frame pointers against libunwind's unw_backtrace (DWARF, with its
 *     per-thread cache warmed up), called exactly as the tracker calls them;
 *  2. accuracy: the stack seen from a function called back by code built
 *     without frame pointers (glibc's qsort, GLib's g_ptr_array_sort), the
 *     way a malloc hook is called by g_malloc or operator new.  Each trace
 *     is printed with dladdr() names and checked for the frames that must be
 *     there (the bench's own callers of qsort).
 *
 * Built with frame pointers.  Addresses are named after the bench's own
 * functions (by address range) or else by dladdr().
 * Usage: bench-unwind [-n ITERATIONS]
 */

#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "sysprof-backtrace.h"

#define NOINLINE  __attribute__ ((noinline))
#define MAX_DEPTH 64
#define BARRIER() __asm__ volatile("" ::: "memory")

int main (int argc, char **argv);

typedef enum
{
  METHOD_FP,
  METHOD_DWARF,
} Method;

typedef struct
{
  Method             method;
  unsigned long      iterations;
  SysprofStackBounds bounds;
  uint64_t           addrs[MAX_DEPTH];
  int                n;
  double             ns;
} Run;

static volatile uint64_t sink;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * UINT64_C (1000000000) + (uint64_t) ts.tv_nsec;
}

/* Plays the exported malloc hook: the backtrace starts at its caller. */
static NOINLINE void
hook (Run *run)
{
  const void *ret = __builtin_return_address (0);
  const void *frame = __builtin_frame_address (0);
  uint64_t    t0, t1;

  /* Warm-up: libunwind fills its cache, the stack bounds are found. */
  for (int i = 0; i < 100; i++)
    run->n = run->method == METHOD_FP ? sysprof_backtrace_fp (ret, frame, &run->bounds, run->addrs, MAX_DEPTH)
                                      : sysprof_backtrace_dwarf (ret, run->addrs, MAX_DEPTH);
  t0 = now_ns ();
  for (unsigned long i = 0; i < run->iterations; i++)
    {
      if (run->method == METHOD_FP)
        run->n = sysprof_backtrace_fp (ret, frame, &run->bounds, run->addrs, MAX_DEPTH);
      else
        run->n = sysprof_backtrace_dwarf (ret, run->addrs, MAX_DEPTH);
      sink += run->addrs[run->n - 1];
    }
  t1 = now_ns ();
  run->ns = (double) (t1 - t0) / (double) run->iterations;
}

/* A chain of @depth frames above the hook. */
static NOINLINE void
descend (Run *run, int depth)
{
  if (depth <= 1)
    hook (run);
  else
    descend (run, depth - 1);
  BARRIER ();
}

/* ---- accuracy ------------------------------------------------------------- */

typedef struct
{
  Run fp;
  Run dwarf;
} Pair;

static Pair *current_pair;

static NOINLINE void
capture_both (void)
{
  const void *ret = __builtin_return_address (0);
  const void *frame = __builtin_frame_address (0);

  current_pair->fp.n = sysprof_backtrace_fp (ret, frame, &current_pair->fp.bounds, current_pair->fp.addrs, MAX_DEPTH);
  current_pair->dwarf.n = sysprof_backtrace_dwarf (ret, current_pair->dwarf.addrs, MAX_DEPTH);
  BARRIER ();
}

static int
compare_ints (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;

  if (current_pair->fp.n == 0)
    capture_both ();
  return (x > y) - (x < y);
}

static gint
compare_ptrs (gconstpointer a, gconstpointer b)
{
  intptr_t x = (intptr_t) * (gconstpointer const *) a, y = (intptr_t) * (gconstpointer const *) b;

  if (current_pair->fp.n == 0)
    capture_both ();
  return (x > y) - (x < y);
}

static NOINLINE void
qsort_inner (void)
{
  int values[64];

  for (int i = 0; i < 64; i++)
    values[i] = (i * 37) % 64;
  qsort (values, 64, sizeof values[0], compare_ints);
  sink += (uint64_t) values[3];
}

static NOINLINE void
qsort_outer (void)
{
  qsort_inner ();
  BARRIER ();
}

static NOINLINE void
glib_inner (void)
{
  GPtrArray *array = g_ptr_array_new ();

  for (intptr_t i = 0; i < 64; i++)
    g_ptr_array_add (array, (gpointer) ((i * 37) % 64));
  g_ptr_array_sort (array, compare_ptrs);
  sink += (uint64_t) (uintptr_t) g_ptr_array_index (array, 3);
  g_ptr_array_unref (array);
}

static NOINLINE void
glib_outer (void)
{
  glib_inner ();
  BARRIER ();
}

static void accuracy (const char *label, void (*outer) (void), const char *const *names);

/* The bench's functions that the accuracy checks look for: static, so
 * dladdr() cannot name them. */
static const struct
{
  const char *name;
  const void *start;
} own_functions[] = {
  { "compare_ints", (const void *) compare_ints }, { "compare_ptrs", (const void *) compare_ptrs },
  { "qsort_inner", (const void *) qsort_inner },   { "qsort_outer", (const void *) qsort_outer },
  { "glib_inner", (const void *) glib_inner },     { "glib_outer", (const void *) glib_outer },
  { "accuracy", (const void *) accuracy },         { "main", (const void *) main },
};

static const char *
name_of (uint64_t addr)
{
  const char *best = NULL;
  uintptr_t   best_start = 0;
  Dl_info     info;

  if (dladdr ((void *) (uintptr_t) addr, &info) != 0 && info.dli_sname != NULL)
    return info.dli_sname;
  /* The closest start below @addr, if the function can be that long. */
  for (size_t i = 0; i < sizeof own_functions / sizeof own_functions[0]; i++)
    {
      uintptr_t start = (uintptr_t) own_functions[i].start;

      if (start < addr && addr - start < 512 && start > best_start)
        {
          best = own_functions[i].name;
          best_start = start;
        }
    }
  if (best != NULL)
    return best;
  if (dladdr ((void *) (uintptr_t) addr, &info) == 0)
    return "?";
  return info.dli_fname ? strrchr (info.dli_fname, '/') ? strrchr (info.dli_fname, '/') + 1 : info.dli_fname : "?";
}

/* Whether the trace holds @names in this order (other frames between). */
static int
has_chain (const Run *run, const char *const *names)
{
  int k = 0;

  for (int i = 0; i < run->n && names[k]; i++)
    if (strcmp (name_of (run->addrs[i]), names[k]) == 0)
      k++;
  return names[k] == NULL;
}

static void
print_trace (const char *label, const char *method, const Run *run, const char *const *names)
{
  printf ("accuracy %s method=%s frames=%d complete=%s:", label, method, run->n, has_chain (run, names) ? "yes" : "no");
  for (int i = 0; i < run->n; i++)
    printf (" %s", name_of (run->addrs[i]));
  printf ("\n");
}

static void
accuracy (const char *label, void (*outer) (void), const char *const *names)
{
  Pair pair;

  memset (&pair, 0, sizeof pair);
  sysprof_stack_bounds_init (&pair.fp.bounds);
  current_pair = &pair;
  outer ();
  current_pair = NULL;
  print_trace (label, "fp", &pair.fp, names);
  print_trace (label, "dwarf", &pair.dwarf, names);
}

int
main (int argc, char **argv)
{
  static const char *const qsort_chain[] = { "compare_ints", "qsort_inner", "qsort_outer", "main", NULL };
  static const char *const glib_chain[] = { "compare_ptrs", "glib_inner", "glib_outer", "main", NULL };
  static const int         depths[] = { 8, 32 };
  unsigned long            iterations = 1000000;
  int                      opt;

  while ((opt = getopt (argc, argv, "n:")) != -1)
    {
      if (opt == 'n')
        iterations = strtoul (optarg, NULL, 10);
      else
        {
          fprintf (stderr, "usage: %s [-n ITERATIONS]\n", argv[0]);
          return 2;
        }
    }
  if (iterations == 0)
    iterations = 1;
  if (!sysprof_backtrace_have_dwarf ())
    {
      fprintf (stderr, "bench-unwind: built without libunwind\n");
      return 1;
    }
  sysprof_backtrace_dwarf_init ();

  for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
    {
      for (int m = METHOD_FP; m <= METHOD_DWARF; m++)
        {
          Run run = { .method = (Method) m, .iterations = iterations };

          sysprof_stack_bounds_init (&run.bounds);
          /* The chain plus main and libc's start-up frames: depth + ~3. */
          descend (&run, depths[d]);
          printf ("speed method=%s chain=%d frames=%d ns_per_backtrace=%.1f ns_per_frame=%.2f\n",
                  m == METHOD_FP ? "fp" : "dwarf", depths[d], run.n, run.ns, run.ns / run.n);
        }
    }

  accuracy ("qsort", qsort_outer, qsort_chain);
  accuracy ("g_ptr_array_sort", glib_outer, glib_chain);
  return 0;
}
