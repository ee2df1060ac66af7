// SPDX-License-Identifier: GPL-3.0-or-later
/* memory-workload: allocations with exactly known numbers, for the memory
 * tracing tests.  Usage:
 *
 *   memory-workload [THREADS N TEMPS CROSS LEAKS GROW]
 *   (defaults 2 1000 100 10 7 50)
 *
 * Each of THREADS threads, in this order:
 *   1. churn_alloc: N allocations of (i % 64 + 1) * 16 bytes, each freed by
 *      the same thread 16 allocations later (so none is "temporary");
 *   2. cross_alloc: CROSS allocations of 100 bytes, freed later by the main
 *      thread (cross-thread frees);
 *   3. the last 16 churn blocks are freed;
 *   4. temp_alloc: TEMPS allocations of 48 bytes, each freed right away,
 *      before the thread allocates anything else (temporary).
 * Then the main thread frees every cross_alloc block, makes LEAKS allocations
 * of 1000 bytes in leak_alloc that are never freed, marks "grow-begin",
 * makes GROW allocations of 4096 bytes in grow_alloc, marks "grow-end" and
 * frees them.  The two marks (group "memory-workload") come through the
 * collector of the preloaded tracker when there is one.
 *
 * Per allocation site, then: churn_alloc THREADS*N allocations (none leaked,
 * none temporary), cross_alloc THREADS*CROSS (all freed by another thread),
 * temp_alloc THREADS*TEMPS (all temporary), leak_alloc LEAKS (all leaked,
 * 1000 bytes each), grow_alloc GROW (live between the marks only; the last
 * of them is temporary: main frees it before allocating anything else).
 * With CROSS = 0 the last churn block of each thread is temporary too.
 * Only libc and the functions here: no other library allocates on the way.
 * Prints "ok" and the parameters at the end. */

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 16

/* Never inlined, so each is its own allocation site. */
#define SITE __attribute__ ((noinline))

typedef struct
{
  long   n, temps, cross;
  void **cross_blocks; /* cross of them, for the main thread to free */
} Worker;

/* Keeps the compiler from proving the blocks unused. */
static void *volatile sink;

SITE static void *
churn_alloc (size_t size)
{
  void *p = malloc (size);

  sink = p;
  return p;
}

SITE static void *
cross_alloc (void)
{
  void *p = malloc (100);

  sink = p;
  return p;
}

SITE static void
temp_alloc (void)
{
  void *p = malloc (48);

  sink = p;
  memset (p, 1, 48);
  free (p);
}

SITE static void *
leak_alloc (void)
{
  void *p = malloc (1000);

  sink = p;
  return p;
}

SITE static void *
grow_alloc (void)
{
  void *p = malloc (4096);

  sink = p;
  return p;
}

static void *
worker_main (void *data)
{
  Worker *w = data;
  void   *window[WINDOW] = { 0 };

  for (long i = 0; i < w->n; i++)
    {
      void *p = churn_alloc ((size_t) (i % 64 + 1) * 16);

      if (p == NULL)
        abort ();
      free (window[i % WINDOW]);
      window[i % WINDOW] = p;
    }
  for (long i = 0; i < w->cross; i++)
    if ((w->cross_blocks[i] = cross_alloc ()) == NULL)
      abort ();
  for (int i = 0; i < WINDOW; i++)
    free (window[i]);
  for (long i = 0; i < w->temps; i++)
    temp_alloc ();
  return NULL;
}

typedef void (*MarkFunc) (int64_t time, int64_t duration, const char *group, const char *mark, const char *message);

static int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Through the tracker's collector (a second collector in this process would
 * talk on the same control socket). */
static void
mark (const char *name)
{
  MarkFunc func = (MarkFunc) (uintptr_t) dlsym (RTLD_DEFAULT, "sysprof_collector_mark");

  if (func != NULL)
    func (now_ns (), 0, "memory-workload", name, "");
}

static long
arg (int argc, char **argv, int i, long fallback)
{
  return argc > i ? strtol (argv[i], NULL, 10) : fallback;
}

int
main (int argc, char **argv)
{
  long       n_threads = arg (argc, argv, 1, 2);
  long       n = arg (argc, argv, 2, 1000);
  long       temps = arg (argc, argv, 3, 100);
  long       cross = arg (argc, argv, 4, 10);
  long       leaks = arg (argc, argv, 5, 7);
  long       grow = arg (argc, argv, 6, 50);
  pthread_t *threads;
  Worker    *workers;
  void     **grown;

  if (n_threads < 1 || n_threads > 64 || n < 0 || temps < 0 || cross < 0 || leaks < 0 || grow < 0)
    {
      fprintf (stderr, "usage: memory-workload [THREADS N TEMPS CROSS LEAKS GROW]\n");
      return 2;
    }
  /* The workload's own bookkeeping, allocated before anything is counted
   * (these are main's sites, not the ones the tests look at). */
  threads = calloc ((size_t) n_threads, sizeof *threads);
  workers = calloc ((size_t) n_threads, sizeof *workers);
  grown = calloc ((size_t) grow + 1, sizeof *grown);
  if (threads == NULL || workers == NULL || grown == NULL)
    return 1;
  for (long t = 0; t < n_threads; t++)
    {
      workers[t].n = n;
      workers[t].temps = temps;
      workers[t].cross = cross;
      if ((workers[t].cross_blocks = calloc ((size_t) cross + 1, sizeof (void *))) == NULL)
        return 1;
    }

  for (long t = 0; t < n_threads; t++)
    if (pthread_create (&threads[t], NULL, worker_main, &workers[t]) != 0)
      return 1;
  for (long t = 0; t < n_threads; t++)
    pthread_join (threads[t], NULL);

  for (long t = 0; t < n_threads; t++)
    for (long i = 0; i < cross; i++)
      free (workers[t].cross_blocks[i]);
  for (long i = 0; i < leaks; i++)
    if (leak_alloc () == NULL)
      return 1;

  mark ("grow-begin");
  for (long i = 0; i < grow; i++)
    if ((grown[i] = grow_alloc ()) == NULL)
      return 1;
  mark ("grow-end");
  for (long i = 0; i < grow; i++)
    free (grown[i]);

  printf ("ok threads=%ld n=%ld temps=%ld cross=%ld leaks=%ld grow=%ld\n", n_threads, n, temps, cross, leaks, grow);
  return 0;
}
