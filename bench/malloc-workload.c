// SPDX-License-Identifier: GPL-3.0-or-later
/* A fixed number of malloc/free pairs, for measuring what a memory profiler
 * costs the program it records and how many of its allocations it keeps
 * (bench/run-memory-bench.sh).
 *
 * THREADS threads each make PAIRS allocations and free every one of them.
 * Sizes and call paths come from a per-thread xorshift generator with a fixed
 * seed, so every run makes the same calls in the same order per thread:
 *
 *   size 8-128 B  11/16   size 129-1024 B  4/16   size 1-4 KiB  1/16
 *   calloc 1/8 of all allocations, malloc the rest; no realloc, whose
 *   accounting differs between profilers (a free plus an allocation, or one
 *   call to an allocation function)
 *
 * Each new block goes into a random slot of a 256-entry window and the block
 * it replaces is freed, so lifetimes vary (from 1 to hundreds of iterations)
 * as in a real program, rather than every free following its malloc.  The
 * window is emptied at the end: frees = allocations, nothing leaks.
 *
 * The calls go through non-inlined functions built with frame pointers and no
 * sibling calls, so an allocation's stack is 8-10 frames deep counting the
 * thread's start and malloc itself, along three paths (plus two for frees):
 *
 *   worker_main > worker_run > worker_step > path_small > small_outer > small_inner > make_block
 *                                          > path_medium > medium_inner > make_block
 *                                          > path_large > make_block
 *               ... worker_step > drop_block > release_block > free
 *
 * Every block's first and last bytes are written and read back, so the
 * compiler cannot drop an allocation and the allocator's memory is touched.
 *
 *   malloc-workload [-t THREADS] [-n PAIRS] [-r RATE]
 *     -t THREADS  threads, default 2
 *     -n PAIRS    malloc/free pairs per thread, default 10000000
 *     -r RATE     at most RATE pairs a second per thread (paced every 1000
 *                 pairs: a long run at a steady rate, bench/run-memory-
 *                 longrun.sh); default: as fast as it can
 *
 * It prints one line on standard output when every thread has finished:
 *   malloc-workload: threads=2 pairs=10000000 allocations=20000000 frees=20000000 elapsed=1.234567 s cpu=2.345678 s
 * checksum=0x... allocations counts this program's own calls to malloc and calloc (not those of the C library, the
 * dynamic loader or a profiler).  elapsed is wall-clock time (CLOCK_MONOTONIC) from before the first thread starts to
 * after the last one is joined, so a profiler's start-up and finishing are left out. cpu is the process's user and
 * system time over the same span.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define WINDOW          256 /* live blocks per thread: a power of two */
#define DEFAULT_THREADS 2
#define DEFAULT_PAIRS   10000000L
#define MAX_THREADS     64
#define MAX_PAIRS       1000000000L

typedef struct
{
  uint64_t  rng;
  long      pairs;
  long      rate; /* pairs a second at most; 0: no pacing */
  long      allocations;
  long      frees;
  uint64_t  checksum;
  int       failed;
  pthread_t thread;
} Worker;

static double
timeval_s (const struct timeval *tv)
{
  return (double) tv->tv_sec + (double) tv->tv_usec / 1e6;
}

static double
cpu_s (void)
{
  struct rusage self;

  getrusage (RUSAGE_SELF, &self);
  return timeval_s (&self.ru_utime) + timeval_s (&self.ru_stime);
}

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static inline uint64_t
next_random (Worker *w)
{
  uint64_t x = w->rng;

  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  w->rng = x;
  return x;
}

/* The block stores its own size in its first 4 bytes, and its last byte (at
 * index 7 or more) is a mark computed from the size, checked when it is
 * freed. */
__attribute__ ((noinline)) static unsigned char *
make_block (Worker *w, size_t size, int zeroed)
{
  unsigned char *p = zeroed ? calloc (1, size) : malloc (size);

  if (p == NULL)
    {
      w->failed = 1;
      return NULL;
    }
  w->allocations++;
  memcpy (p, &(uint32_t){ (uint32_t) size }, sizeof (uint32_t));
  p[size - 1] = (unsigned char) (size * 31u);
  return p;
}

__attribute__ ((noinline)) static unsigned char *
small_inner (Worker *w, uint64_t r)
{
  return make_block (w, 8 + (size_t) (r >> 20) % 121, (r & 0x700) == 0);
}

__attribute__ ((noinline)) static unsigned char *
small_outer (Worker *w, uint64_t r)
{
  return small_inner (w, r);
}

__attribute__ ((noinline)) static unsigned char *
path_small (Worker *w, uint64_t r)
{
  return small_outer (w, r);
}

__attribute__ ((noinline)) static unsigned char *
medium_inner (Worker *w, uint64_t r)
{
  return make_block (w, 129 + (size_t) (r >> 20) % 896, (r & 0x700) == 0);
}

__attribute__ ((noinline)) static unsigned char *
path_medium (Worker *w, uint64_t r)
{
  return medium_inner (w, r);
}

__attribute__ ((noinline)) static unsigned char *
path_large (Worker *w, uint64_t r)
{
  return make_block (w, 1025 + (size_t) (r >> 20) % 3072, (r & 0x700) == 0);
}

__attribute__ ((noinline)) static void
release_block (Worker *w, unsigned char *p)
{
  uint32_t size;

  memcpy (&size, p, sizeof size);
  if (p[size - 1] != (unsigned char) (size * 31u))
    w->failed = 1;
  w->checksum += size;
  free (p);
  w->frees++;
}

__attribute__ ((noinline)) static void
drop_block (Worker *w, unsigned char *p)
{
  if (p != NULL)
    release_block (w, p);
}

__attribute__ ((noinline)) static void
worker_step (Worker *w, unsigned char **window)
{
  uint64_t       r = next_random (w);
  unsigned       slot = (unsigned) (r >> 8) & (WINDOW - 1);
  unsigned char *p;

  switch (r & 15)
    {
    case 15: p = path_large (w, r); break;
    case 11:
    case 12:
    case 13:
    case 14: p = path_medium (w, r); break;
    default: p = path_small (w, r); break;
    }
  drop_block (w, window[slot]);
  window[slot] = p;
}

__attribute__ ((noinline)) static void
worker_run (Worker *w)
{
  unsigned char *window[WINDOW] = { NULL };
  double         start = now_s ();

  for (long i = 0; i < w->pairs && !w->failed; i++)
    {
      worker_step (w, window);
      /* Ahead of the rate: sleep until the pair is due. */
      if (w->rate > 0 && i % 1000 == 999)
        {
          double ahead = start + (double) (i + 1) / (double) w->rate - now_s ();

          if (ahead > 0)
            {
              struct timespec ts = { (time_t) ahead, (long) ((ahead - (double) (time_t) ahead) * 1e9) };

              nanosleep (&ts, NULL);
            }
        }
    }
  for (unsigned i = 0; i < WINDOW; i++)
    drop_block (w, window[i]);
}

static void *
worker_main (void *data)
{
  worker_run (data);
  return NULL;
}

static int
usage (void)
{
  fprintf (stderr, "usage: malloc-workload [-t THREADS] [-n PAIRS] [-r RATE]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  static Worker workers[MAX_THREADS];
  long          threads = DEFAULT_THREADS;
  long          pairs = DEFAULT_PAIRS;
  long          rate = 0;
  long          allocations = 0;
  long          frees = 0;
  uint64_t      checksum = 0;
  int           failed = 0;
  double        start;
  double        cpu_start;
  double        elapsed;
  double        cpu;
  int           opt;

  while ((opt = getopt (argc, argv, "t:n:r:")) != -1)
    {
      char *end = NULL;
      long  v;

      /* An unknown option has no argument. */
      if (opt == '?')
        return usage ();
      errno = 0;
      v = strtol (optarg, &end, 10);
      if (errno != 0 || end == optarg || *end != '\0')
        return usage ();
      switch (opt)
        {
        case 't':
          if (v < 1 || v > MAX_THREADS)
            return usage ();
          threads = v;
          break;
        case 'n':
          if (v < 1 || v > MAX_PAIRS)
            return usage ();
          pairs = v;
          break;
        case 'r':
          if (v < 1)
            return usage ();
          rate = v;
          break;
        default: return usage ();
        }
    }
  if (optind != argc)
    return usage ();

  /* stdout's buffer is allocated here, before the timed part. */
  fflush (stdout);
  start = now_s ();
  cpu_start = cpu_s ();
  for (long t = 0; t < threads; t++)
    {
      int err;

      workers[t].rng = 0x9E3779B97F4A7C15u * (uint64_t) (t + 1);
      workers[t].pairs = pairs;
      workers[t].rate = rate;
      err = pthread_create (&workers[t].thread, NULL, worker_main, &workers[t]);
      if (err != 0)
        {
          fprintf (stderr, "malloc-workload: pthread_create: %s\n", strerror (err));
          return 1;
        }
    }
  for (long t = 0; t < threads; t++)
    {
      pthread_join (workers[t].thread, NULL);
      allocations += workers[t].allocations;
      frees += workers[t].frees;
      checksum += workers[t].checksum;
      failed |= workers[t].failed;
    }
  elapsed = now_s () - start;
  cpu = cpu_s () - cpu_start;

  if (failed || frees != allocations)
    {
      fprintf (stderr, "malloc-workload: an allocation failed or a block was overwritten\n");
      return 1;
    }
  printf ("malloc-workload: threads=%ld pairs=%ld allocations=%ld frees=%ld elapsed=%.6f s cpu=%.6f s "
          "checksum=0x%016" PRIx64 "\n",
          threads, pairs, allocations, frees, elapsed, cpu, checksum);
  return 0;
}
