// SPDX-License-Identifier: GPL-3.0-or-later
/* A fixed amount of work in code built without frame pointers, timed: the
 * subject of bench/run-unwind-bench.sh (what DWARF unwinding while recording
 * costs the recorded program).  It does the same number of iterations in
 * every run, so a slower run means the recorder took something from it.
 *
 *   nofp-workload [-r ROUNDS]
 *     does ROUNDS rounds (default 2500, about 4-5 s on one idle vCPU here) of
 *       main > run > stage_outer > stage_inner > mix_leaf           ~60 %
 *       main > run > sort_pass > qsort (libc) > order_items         ~40 %
 *     built -O2 -fomit-frame-pointer (bench/meson.build), so only CFI leads
 *     from the leaves back to main; the qsort chain goes through libc, whose
 *     frames have no frame pointer either.  Every function keeps a frame of
 *     its own (noinline, a volatile local).  tests/workloads/nofp-chain has
 *     the same shape but runs for a time rather than a fixed amount of work.
 *
 *   nofp-workload -- COMMAND [ARG...]
 *     runs COMMAND (for instance Debian's `xz -9 -T1 -c FILE`, also built
 *     without frame pointers) with standard output to /dev/null and times it
 *     the same way: a fixed amount of work from a program we did not build.
 *
 * It prints one line on standard output:
 *   nofp-workload: work=rounds:2500 elapsed=4.567890 s cpu=4.560000 s checksum=0x...
 * elapsed is wall-clock time (CLOCK_MONOTONIC) around the work; cpu its user
 * and system time (getrusage of this process, or of the command).  The
 * checksum is the same in every run with the same ROUNDS (0 for a command).
 * Exit status: 0, 2 on a usage error, 1 if the command failed. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE       __attribute__ ((noinline))
#define N_ITEMS        1500
#define STEPS_PER_RND  40
#define DEFAULT_ROUNDS 2500
#define MAX_ROUNDS     10000000L

typedef struct
{
  uint64_t key;
  uint32_t tag;
} Item;

/* Written where the compiler cannot see it read, so no work is dropped. */
static volatile uint64_t escape;

NOINLINE uint64_t mix_leaf (uint64_t x);
NOINLINE uint64_t stage_inner (uint64_t x);
NOINLINE uint64_t stage_outer (uint64_t x);
NOINLINE int      order_items (const void *pa, const void *pb);
NOINLINE uint64_t sort_pass (Item *items, uint64_t seed);
NOINLINE uint64_t run (long rounds);

/* xorshift64*: the hot leaf of the first chain. */
NOINLINE uint64_t
mix_leaf (uint64_t x)
{
  for (int i = 0; i < 11000; i++)
    {
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      x *= 0x2545F4914F6CDD1Du;
    }
  return x;
}

/* The middle and outer frames keep a volatile slot, so each has a frame of
 * its own on the stack and calls rather than jumps. */
NOINLINE uint64_t
stage_inner (uint64_t x)
{
  volatile uint64_t slot = mix_leaf (x ^ 0x9E3779B97F4A7C15u);

  return slot - 7;
}

NOINLINE uint64_t
stage_outer (uint64_t x)
{
  volatile uint64_t slot = stage_inner (x + 11);

  return slot * 3;
}

/* The comparator does some hashing of both keys, so that the time of the
 * second chain is here (under libc's qsort), not in qsort itself. */
NOINLINE int
order_items (const void *pa, const void *pb)
{
  const Item *a = pa, *b = pb;
  uint64_t    ha = a->key, hb = b->key;

  for (int i = 0; i < 30; i++)
    {
      ha = (ha ^ (ha >> 31)) * 0xBF58476D1CE4E5B9u;
      hb = (hb ^ (hb >> 31)) * 0xBF58476D1CE4E5B9u;
    }
  if (ha != hb)
    return ha < hb ? -1 : 1;
  return (a->tag > b->tag) - (a->tag < b->tag);
}

NOINLINE uint64_t
sort_pass (Item *items, uint64_t seed)
{
  volatile size_t count = N_ITEMS;

  for (uint32_t i = 0; i < N_ITEMS; i++)
    {
      seed += 0x9E3779B97F4A7C15u;
      items[i].key = seed ^ (seed >> 29);
      items[i].tag = i;
    }
  qsort (items, count, sizeof *items, order_items);
  /* Used after the call: sort_pass stays on the stack under qsort. */
  return items[0].key ^ items[N_ITEMS - 1].tag;
}

NOINLINE uint64_t
run (long rounds)
{
  static Item items[N_ITEMS];
  uint64_t    x = 88172645463325252u, acc = 0;

  for (long r = 0; r < rounds; r++)
    {
      /* About 3 : 2 between the two chains on this machine. */
      for (int i = 0; i < STEPS_PER_RND; i++)
        x = stage_outer (x);
      /* The items depend on the chain, so neither part can be skipped. */
      acc = acc * 1099511628211u + sort_pass (items, x);
    }
  escape = acc;
  return acc ^ x;
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static double
seconds (struct timeval tv)
{
  return (double) tv.tv_sec + (double) tv.tv_usec / 1e6;
}

static int
usage (const char *why)
{
  fprintf (stderr, "nofp-workload: %s\nusage: nofp-workload [-r ROUNDS] | nofp-workload -- COMMAND [ARG...]\n", why);
  return 2;
}

/* Runs argv[0] with its output to /dev/null; its CPU time in *cpu. */
static int
run_command (char **argv, double *cpu)
{
  struct rusage ru;
  int           status;
  pid_t         pid = fork ();

  if (pid < 0)
    {
      fprintf (stderr, "nofp-workload: fork: %s\n", strerror (errno));
      return -1;
    }
  if (pid == 0)
    {
      int null = open ("/dev/null", O_WRONLY);

      if (null < 0 || dup2 (null, STDOUT_FILENO) < 0)
        _exit (127);
      execvp (argv[0], argv);
      fprintf (stderr, "nofp-workload: cannot run %s: %s\n", argv[0], strerror (errno));
      _exit (127);
    }
  while (wait4 (pid, &status, 0, &ru) < 0)
    if (errno != EINTR)
      {
        fprintf (stderr, "nofp-workload: wait: %s\n", strerror (errno));
        return -1;
      }
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "nofp-workload: %s failed (status 0x%x)\n", argv[0], (unsigned) status);
      return -1;
    }
  *cpu = seconds (ru.ru_utime) + seconds (ru.ru_stime);
  return 0;
}

int
main (int argc, char *argv[])
{
  long          rounds = DEFAULT_ROUNDS;
  uint64_t      checksum = 0;
  double        start, elapsed, cpu;
  struct rusage ru;
  int           opt;

  while ((opt = getopt (argc, argv, "+r:h")) != -1)
    {
      char *end;

      switch (opt)
        {
        case 'r':
          errno = 0;
          rounds = strtol (optarg, &end, 10);
          if (errno != 0 || *end != '\0' || end == optarg || rounds < 1 || rounds > MAX_ROUNDS)
            return usage ("-r needs a number of rounds from 1 to 10000000");
          break;
        case 'h': printf ("usage: nofp-workload [-r ROUNDS] | nofp-workload -- COMMAND [ARG...]\n"); return 0;
        default: return usage ("unknown option");
        }
    }

  start = now ();
  if (optind < argc)
    {
      if (run_command (argv + optind, &cpu) != 0)
        return 1;
      elapsed = now () - start;
      printf ("nofp-workload: work=command:%s elapsed=%.6f s cpu=%.6f s checksum=0x0\n", argv[optind], elapsed, cpu);
      return 0;
    }

  checksum = run (rounds);
  elapsed = now () - start;
  getrusage (RUSAGE_SELF, &ru);
  cpu = seconds (ru.ru_utime) + seconds (ru.ru_stime);
  printf ("nofp-workload: work=rounds:%ld elapsed=%.6f s cpu=%.6f s checksum=0x%016" PRIx64 "\n", rounds, elapsed, cpu,
          checksum);
  return 0;
}
