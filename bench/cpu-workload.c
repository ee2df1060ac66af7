// SPDX-License-Identifier: GPL-3.0-or-later
/* A fixed amount of CPU-bound work, for measuring what a profiler costs the
 * program it records (bench/run-record-bench.sh) and for making large
 * captures (bench/run-report-bench.sh).  Unlike tests/workloads/hot-functions,
 * which spins for a given time, this program always does the same number of
 * iterations, so a slower run means the recorder took CPU from it.
 *
 * The work goes through a few nested, non-inlined functions built with frame
 * pointers, so every sample has a stack of 5-7 frames that perf, Sysprof 3.46
 * and ours all unwind the same way:
 *
 *   main > run_job > run_round > leaf_mix                                  ~38 %
 *                              > chain_outer > chain_inner > leaf_hash   ~36 %
 *                              > leaf_float                                ~26 %
 *
 * No system calls, no memory traffic beyond a 16 KiB table: the only
 * slow-down a recorder can cause is the time its interrupts, its own threads
 * and its page faults take from this one.
 *
 *   cpu-workload [-j JOBS] [-r ROUNDS | -t SECONDS]
 *     -j JOBS     run JOBS copies in parallel (fork), default 1
 *     -r ROUNDS   rounds per copy, default 160000 (~5-6 s on one idle Zen 5 vCPU)
 *     -t SECONDS  instead, every copy works until SECONDS have passed: not a
 *                 fixed amount of work, but a capture of a predictable size
 *                 (run-report-bench.sh), however busy the machine is
 *
 * It prints one line on standard output when every copy has finished:
 *   cpu-workload: jobs=1 rounds=160000 elapsed=6.123456 s cpu=6.101234 s checksum=0x...
 * elapsed is wall-clock time (CLOCK_MONOTONIC) from before the first fork to
 * after the last copy exited.  cpu is the user and system time of the work
 * (getrusage of this process and of the copies): unlike elapsed it does not
 * grow while other programs hold the CPU, but it still grows with the time the
 * kernel spends on sampling interrupts and with cache misses caused by the
 * recorder.  The checksum is the same in every run (with -j, the copies'
 * results are discarded and it covers one round).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TABLE_SIZE     2048 /* 16 KiB of uint64_t: stays in L1 */
#define MIX_ITERS      10000
#define HASH_ITERS     3000
#define FLOAT_ITERS    1600
#define DEFAULT_ROUNDS 160000
#define MAX_JOBS       256
#define MAX_ROUNDS     100000000L
#define MAX_SECONDS    86400

static uint64_t table[TABLE_SIZE];

/* GCC 12 sets up no frame in a leaf function that needs no stack, even with
 * -mno-omit-leaf-frame-pointer, and a frame-pointer unwinder then skips the
 * leaf's caller.  Taking the frame's address makes it build one. */
#define KEEP_FRAME() __asm__ volatile("" ::"r"(__builtin_frame_address (0)))

static double
timeval_s (const struct timeval *tv)
{
  return (double) tv->tv_sec + (double) tv->tv_usec / 1e6;
}

/* User and system time of this process and of the copies it waited for. */
static double
cpu_s (void)
{
  struct rusage self;
  struct rusage children;

  getrusage (RUSAGE_SELF, &self);
  getrusage (RUSAGE_CHILDREN, &children);
  return timeval_s (&self.ru_utime) + timeval_s (&self.ru_stime) + timeval_s (&children.ru_utime) +
         timeval_s (&children.ru_stime);
}

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Each loop carries a dependency from one iteration to the next, so the
 * compiler can neither vectorize it nor fold it away, and its cost per
 * iteration is the same on every run. */
__attribute__ ((noinline)) static uint64_t
leaf_mix (uint64_t x)
{
  KEEP_FRAME ();
  for (unsigned i = 0; i < MIX_ITERS; i++)
    x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}

__attribute__ ((noinline)) static uint64_t
leaf_hash (uint64_t x)
{
  KEEP_FRAME ();
  for (unsigned i = 0; i < HASH_ITERS; i++)
    {
      x ^= table[x & (TABLE_SIZE - 1)];
      x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9u;
    }
  return x;
}

__attribute__ ((noinline)) static uint64_t
chain_inner (uint64_t x)
{
  uint64_t r = leaf_hash (x);
  __asm__ volatile("" ::: "memory"); /* keeps this frame: no tail call */
  return r;
}

__attribute__ ((noinline)) static uint64_t
chain_outer (uint64_t x)
{
  uint64_t r = chain_inner (x + 1);
  __asm__ volatile("" ::: "memory");
  return r;
}

__attribute__ ((noinline)) static uint64_t
leaf_float (uint64_t x)
{
  double d = (double) (x & 0xffff) + 1.0;

  KEEP_FRAME ();
  for (unsigned i = 0; i < FLOAT_ITERS; i++)
    d = d * 1.0000001 + 0.5 / d;
  return x ^ (uint64_t) d;
}

__attribute__ ((noinline)) static uint64_t
run_round (uint64_t x)
{
  x = leaf_mix (x);
  x = chain_outer (x);
  x = leaf_float (x);
  __asm__ volatile("" ::: "memory");
  return x;
}

__attribute__ ((noinline)) static uint64_t
run_job (long rounds, double deadline, uint64_t seed)
{
  uint64_t x = seed;

  if (deadline > 0)
    /* One round is tens of microseconds; a clock read (vDSO) is far less. */
    while (now_s () < deadline)
      x = run_round (x);
  else
    for (long i = 0; i < rounds; i++)
      x = run_round (x);
  __asm__ volatile("" ::: "memory");
  return x;
}

static void
fill_table (void)
{
  uint64_t x = 0x243F6A8885A308D3u;

  for (unsigned i = 0; i < TABLE_SIZE; i++)
    {
      x = x * 6364136223846793005u + 1442695040888963407u;
      table[i] = x;
    }
}

static int
usage (void)
{
  fprintf (stderr, "usage: cpu-workload [-j JOBS] [-r ROUNDS | -t SECONDS]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  long     jobs = 1;
  long     rounds = DEFAULT_ROUNDS;
  long     seconds = 0;
  double   deadline = 0;
  uint64_t checksum = 0;
  double   start;
  double   cpu_start;
  double   elapsed;
  double   cpu;
  int      opt;
  int      failed = 0;

  while ((opt = getopt (argc, argv, "j:r:t:")) != -1)
    {
      char *end = NULL;
      long  v;

      errno = 0;
      v = strtol (optarg, &end, 10);
      if (errno != 0 || end == optarg || *end != '\0')
        return usage ();
      switch (opt)
        {
        case 'j':
          if (v < 1 || v > MAX_JOBS)
            return usage ();
          jobs = v;
          break;
        case 'r':
          if (v < 1 || v > MAX_ROUNDS)
            return usage ();
          rounds = v;
          break;
        case 't':
          if (v < 1 || v > MAX_SECONDS)
            return usage ();
          seconds = v;
          break;
        default: return usage ();
        }
    }
  if (optind != argc)
    return usage ();

  fill_table ();
  start = now_s ();
  cpu_start = cpu_s ();
  if (seconds > 0)
    deadline = start + (double) seconds;
  if (jobs == 1)
    checksum = run_job (rounds, deadline, 1);
  else
    {
      /* Every copy computes the same value from the same seed; the parent only
       * waits, so it takes no CPU from them. */
      for (long j = 0; j < jobs; j++)
        {
          pid_t pid = fork ();

          if (pid < 0)
            {
              fprintf (stderr, "cpu-workload: fork: %s\n", strerror (errno));
              return 1;
            }
          if (pid == 0)
            _exit (run_job (rounds, deadline, 1) == 0 ? 1 : 0);
        }
      for (long j = 0; j < jobs; j++)
        {
          int status;

          if (wait (&status) < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
            failed = 1;
        }
    }
  elapsed = now_s () - start;
  cpu = cpu_s () - cpu_start;

  /* The copies' results stay in the children; one round here makes a
   * checksum that still tells one build of this program from another. */
  if (jobs > 1)
    checksum = run_job (1, 0, 1);
  if (seconds > 0)
    printf ("cpu-workload: jobs=%ld seconds=%ld elapsed=%.6f s cpu=%.6f s\n", jobs, seconds, elapsed, cpu);
  else
    printf ("cpu-workload: jobs=%ld rounds=%ld elapsed=%.6f s cpu=%.6f s checksum=0x%016" PRIx64 "\n", jobs, rounds,
            elapsed, cpu, checksum);
  return failed;
}
