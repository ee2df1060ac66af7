// SPDX-License-Identifier: GPL-3.0-or-later
/* bench-unwind.c
 *
 * The unwinders of libsysprof-memory.so (preload/sysprof-backtrace.c and the
 * unwind cache, preload/sysprof-unwind-cache.c), compared on what decides
 * the tracker's default:
 *
 *  1. speed: ns per backtrace, called exactly as the tracker calls them (from
 *     a "hook" built with frame pointers, starting at its caller), on chains
 *     built without frame pointers like most of Debian (preload/tests/
 *     nofp-chain.c: frames whose CFA follows rsp, large frames saving
 *     registers, alloca frames whose CFA follows rbp), CHAIN = 10, 30 and 60
 *     frames deep, plus main and libc's start-up frames:
 *       repeat  the same stack every time (an allocation in a loop);
 *       mix     the same outer chain and one of 8 inner parts of 1 to 4
 *               frames at random (a program's allocation sites under one
 *               event loop or interpreter);
 *     methods: fp (frame pointers: sees little here), dwarf (libunwind's
 *     unw_backtrace, its per-thread caches warm), cached (the unwind cache,
 *     warm: its rules learned on the first calls), dwarf-step (libunwind's
 *     unw_step loop, what unw_backtrace does for the whole stack when one
 *     frame is not in the forms of its fast path; a hundredth of -n).  Each figure is the
 *     best of 3 runs of -n calls, minus the same loop without a backtrace.
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
#include <x86intrin.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "nofp-chain.h"
#include "sysprof-backtrace.h"
#include "sysprof-unwind-cache.h"

#define NOINLINE  __attribute__ ((noinline))
#define MAX_DEPTH 128
#define BARRIER() __asm__ volatile("" ::: "memory")
#define N_TIPS    8

int main (int argc, char **argv);

typedef enum
{
  METHOD_NONE,
  METHOD_FP,
  METHOD_DWARF,
  METHOD_CACHED,
  /* libunwind's unw_step loop: what unw_backtrace falls back to for the
   * whole stack when one frame is not in its fast path's forms. */
  METHOD_STEP,
  N_METHODS
} Method;

static const char *const method_names[N_METHODS] = { "none", "fp", "dwarf", "cached", "dwarf-step" };

/* unw_step from here, as unw_backtrace's slow path does. */
static NOINLINE int
step_backtrace (uint64_t *addrs, int max)
{
  unw_context_t context;
  unw_cursor_t  cursor;
  unw_word_t    ip;
  int           n = 0;

  unw_getcontext (&context);
  if (unw_init_local (&cursor, &context) < 0)
    return 0;
  while (n < max && unw_step (&cursor) > 0 && unw_get_reg (&cursor, UNW_REG_IP, &ip) == 0)
    addrs[n++] = ip;
  return n;
}

typedef struct
{
  Method              method;
  SysprofStackBounds  bounds;
  SysprofUnwindCache *cache;
  uint64_t            addrs[MAX_DEPTH];
  int                 n;
  uint64_t            frames;
  uint64_t            ticks; /* TSC ticks inside the unwinder */
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
hook (void *data)
{
  Run        *run = data;
  const void *ret = __builtin_return_address (0);
  const void *frame = __builtin_frame_address (0);
  uint64_t    t0 = __rdtsc ();

  switch (run->method)
    {
    case METHOD_NONE: run->n = 1; break;
    case METHOD_FP: run->n = sysprof_backtrace_fp (ret, frame, &run->bounds, run->addrs, MAX_DEPTH); break;
    case METHOD_DWARF: run->n = sysprof_backtrace_dwarf (ret, run->addrs, MAX_DEPTH); break;
    case METHOD_STEP: run->n = step_backtrace (run->addrs, MAX_DEPTH); break;
    case METHOD_CACHED:
      run->n = sysprof_unwind_cache_walk (run->cache, ret, frame, &run->bounds, run->addrs, MAX_DEPTH, NULL);
      if (run->n < 0)
        {
          run->n = sysprof_backtrace_dwarf (ret, run->addrs, MAX_DEPTH);
          sysprof_unwind_cache_learn (run->cache, run->addrs, run->n);
        }
      break;
    default: g_assert_not_reached ();
    }
  run->ticks += __rdtsc () - t0;
  run->frames += (uint64_t) run->n;
  sink += run->addrs[run->n - 1];
}

/* @iterations chains, each one of @paths (@n_paths of them, chosen by a
 * fixed sequence); returns TSC ticks per backtrace (timed around the
 * unwinder alone: the chains cost more than some of the walks). */
static NOINLINE double
time_chains (Run *run, char **paths, guint n_paths, unsigned long iterations)
{
  uint32_t x = 12345;

  run->frames = 0;
  run->ticks = 0;
  for (unsigned long i = 0; i < iterations; i++)
    {
      x = x * 1103515245 + 12345;
      sysprof_nofp_chain (paths[(x >> 16) % n_paths], hook, run);
    }
  return (double) run->ticks / (double) iterations;
}

/* TSC ticks per nanosecond, against CLOCK_MONOTONIC over 50 ms. */
static double
ticks_per_ns (void)
{
  uint64_t t0 = now_ns (), c0 = __rdtsc (), t1, c1;

  do
    t1 = now_ns ();
  while (t1 - t0 < 50000000);
  c1 = __rdtsc ();
  return (double) (c1 - c0) / (double) (t1 - t0);
}

/* The speed table: per chain depth and scenario, each method's ns per
 * backtrace (the loop's own cost taken off) and frames seen; the cached
 * stacks are checked against libunwind's first. */
static void
speed (unsigned long iterations)
{
  static const int         chains[] = { 10, 30, 60 };
  static const char *const tips[N_TIPS] = { "a", "b", "ab", "ba", "ca", "aab", "bca", "abca" };
  double                   tpn = ticks_per_ns ();
  double                   reused[2] = { 0, 0 };

  for (guint c = 0; c < G_N_ELEMENTS (chains); c++)
    {
      g_autofree char *trunk = g_malloc0 ((gsize) chains[c] + 1);
      char            *paths[N_TIPS] = { NULL };

      /* Mostly rsp-based frames, an alloca frame now and then. */
      for (int i = 0; i < chains[c]; i++)
        trunk[i] = i % 7 == 6 ? 'c' : i % 2 ? 'b' : 'a';
      for (guint t = 0; t < N_TIPS; t++)
        paths[t] = g_strconcat (trunk, tips[t], NULL);
      for (guint scenario = 0; scenario < 2; scenario++)
        {
          guint  n_paths = scenario == 0 ? 1 : N_TIPS;
          double best[N_METHODS];
          double frames[N_METHODS];

          for (int m = 0; m < N_METHODS; m++)
            best[m] = G_MAXDOUBLE;
          for (guint round = 0; round < 3; round++)
            for (int m = 0; m < N_METHODS; m++)
              {
                /* The slow path, a hundred times less. */
                unsigned long n = m == METHOD_STEP ? MAX (iterations / 100, 1) : iterations;
                Run           run = { .method = (Method) m };
                double        ticks;

                sysprof_stack_bounds_init (&run.bounds);
                run.cache = sysprof_unwind_cache_new ();
                /* Warm-up: libunwind's caches and ours learn. */
                time_chains (&run, paths, n_paths, m == METHOD_STEP ? 10 : 1000);
                ticks = time_chains (&run, paths, n_paths, n);
                best[m] = MIN (best[m], ticks);
                frames[m] = (double) run.frames / (double) n;
                if (m == METHOD_CACHED && round == 0)
                  {
                    SysprofUnwindCacheStats stats;

                    sysprof_unwind_cache_get_stats (run.cache, &stats);
                    reused[scenario] = (double) stats.frames_reused / (double) stats.walks;
                  }
                sysprof_unwind_cache_free (run.cache);
              }
          for (int m = METHOD_FP; m < N_METHODS; m++)
            printf ("speed chain=%d scenario=%s method=%s frames=%.1f ns_per_backtrace=%.1f\n", chains[c],
                    scenario == 0 ? "repeat" : "mix", method_names[m], frames[m], (best[m] - best[METHOD_NONE]) / tpn);
          printf ("speed chain=%d scenario=%s dwarf/cached=%.2f cached_frames_reused=%.1f\n", chains[c],
                  scenario == 0 ? "repeat" : "mix",
                  (best[METHOD_DWARF] - best[METHOD_NONE]) / (best[METHOD_CACHED] - best[METHOD_NONE]),
                  reused[scenario]);
        }
      for (guint t = 0; t < N_TIPS; t++)
        g_free (paths[t]);
    }
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
  unsigned long            iterations = 200000;
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
  speed (iterations);
  accuracy ("qsort", qsort_outer, qsort_chain);
  accuracy ("g_ptr_array_sort", glib_outer, glib_chain);
  return 0;
}
