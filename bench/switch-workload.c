// SPDX-License-Identifier: GPL-3.0-or-later
/* A fixed number of context switches, for measuring what a scheduler recorder
 * (sysprof-cli --scheduler, perf sched record) costs the program it records
 * (bench/run-sched-bench.sh).
 *
 * PAIRS pairs of threads pass a one-byte token back and forth over two pipes,
 * TRIPS round trips per pair.  Each side does WORK iterations of arithmetic
 * before it passes the token on, then blocks in read() until the token comes
 * back: every round trip puts each thread of the pair to sleep once, two
 * switches of the workload's threads per round trip (and as many of the idle
 * task's, when a CPU has nothing else to run).  WORK sets the rate: on the
 * 2-vCPU machine of bench/README.md the default makes 25,000-50,000 switches a
 * second with two pairs (about 4 s alone; the rate depends on how busy the
 * other vCPU is), -w 8000 70,000-120,000 and -w 40000 about 12,000.
 *
 * The threads block through non-inlined functions built with frame pointers,
 * so the stack of a thread leaving the CPU is the same for every recorder:
 *
 *   pair_thread > ping_loop > wait_token > read
 *   pair_thread > pong_loop > wait_token > read
 *               > ping_loop/pong_loop > pass_token > write    (preempted)
 *               > ping_loop/pong_loop > spin                  (preempted)
 *
 *   switch-workload [-p PAIRS] [-n TRIPS] [-w WORK]
 *     -p PAIRS  thread pairs, default 2
 *     -n TRIPS  round trips per pair, default 30000
 *     -w WORK   iterations of arithmetic per side and round trip, default 20000
 *
 * It prints one line on standard output when every pair has finished:
 *   switch-workload: pairs=2 trips=30000 work=20000 elapsed=4.012345 s cpu=4.234567 s switches=120312
 *   switches_per_s=29985 voluntary=70000 checksum=0x...
 * elapsed is wall-clock time (CLOCK_MONOTONIC) from before the first thread
 * starts to after the last one is joined.  cpu is the process's user and
 * system time over the same span.  switches counts the times the pairs'
 * threads left a CPU (getrusage RUSAGE_THREAD of each, voluntary: blocked in
 * read or write; the rest preempted), measured rather than assumed, since
 * how many switches a round trip takes depends on where the threads ran.
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

#define DEFAULT_PAIRS 2
#define DEFAULT_TRIPS 30000L
#define DEFAULT_WORK  20000L
#define MAX_PAIRS     64
#define MAX_TRIPS     1000000000L
#define MAX_WORK      100000000L

typedef struct
{
  pthread_t thread;
  int       in;  /* the token arrives here */
  int       out; /* and leaves here */
  int       ping;
  long      trips;
  long      work;
  uint64_t  checksum;
  long      voluntary;
  long      involuntary;
  int       failed;
} Side;

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static double
cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6 + (double) ru.ru_stime.tv_sec +
         (double) ru.ru_stime.tv_usec / 1e6;
}

/* What a thread does between two waits: a dependent chain the compiler cannot
 * fold, so WORK sets a fixed time per round trip. */
static __attribute__ ((noinline)) uint64_t
spin (uint64_t x, long work)
{
  for (long i = 0; i < work; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
  __asm__ volatile("" : "+r"(x));
  return x;
}

/* Blocks until the token comes: the switch every recorder sees. */
static __attribute__ ((noinline)) int
wait_token (Side *s, unsigned char *token)
{
  for (;;)
    {
      ssize_t n = read (s->in, token, 1);

      if (n == 1)
        return 0;
      if (n < 0 && errno == EINTR)
        continue;
      return -1;
    }
}

static __attribute__ ((noinline)) int
pass_token (Side *s, unsigned char token)
{
  for (;;)
    {
      ssize_t n = write (s->out, &token, 1);

      if (n == 1)
        return 0;
      if (n < 0 && errno == EINTR)
        continue;
      return -1;
    }
}

static __attribute__ ((noinline)) void
ping_loop (Side *s)
{
  uint64_t      x = 0x9E3779B97F4A7C15u ^ (uint64_t) (uintptr_t) s;
  unsigned char token = 0;

  for (long i = 0; i < s->trips; i++)
    {
      x = spin (x, s->work);
      if (pass_token (s, (unsigned char) (token + 1)) != 0 || wait_token (s, &token) != 0)
        {
          s->failed = 1;
          break;
        }
    }
  s->checksum = x + token;
}

static __attribute__ ((noinline)) void
pong_loop (Side *s)
{
  uint64_t      x = 0xD1B54A32D192ED03u ^ (uint64_t) (uintptr_t) s;
  unsigned char token = 0;

  for (long i = 0; i < s->trips; i++)
    {
      if (wait_token (s, &token) != 0)
        {
          s->failed = 1;
          break;
        }
      x = spin (x, s->work);
      if (pass_token (s, token) != 0)
        {
          s->failed = 1;
          break;
        }
    }
  s->checksum = x + token;
}

static void *
pair_thread (void *data)
{
  Side         *s = data;
  struct rusage ru;

  pthread_setname_np (pthread_self (), s->ping ? "switch-ping" : "switch-pong");
  if (s->ping)
    ping_loop (s);
  else
    pong_loop (s);
  /* This thread's own switches, up to here. */
  getrusage (RUSAGE_THREAD, &ru);
  s->voluntary = ru.ru_nvcsw;
  s->involuntary = ru.ru_nivcsw;
  return NULL;
}

static int
usage (void)
{
  fprintf (stderr, "usage: switch-workload [-p PAIRS] [-n TRIPS] [-w WORK]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  static Side sides[2 * MAX_PAIRS];
  long        pairs = DEFAULT_PAIRS;
  long        trips = DEFAULT_TRIPS;
  long        work = DEFAULT_WORK;
  long        voluntary = 0;
  long        involuntary = 0;
  uint64_t    checksum = 0;
  int         failed = 0;
  double      start;
  double      cpu_start;
  double      elapsed;
  double      cpu;
  int         opt;

  while ((opt = getopt (argc, argv, "p:n:w:")) != -1)
    {
      char *end = NULL;
      long  v;

      if (opt == '?')
        return usage ();
      errno = 0;
      v = strtol (optarg, &end, 10);
      if (errno != 0 || end == optarg || *end != '\0')
        return usage ();
      switch (opt)
        {
        case 'p':
          if (v < 1 || v > MAX_PAIRS)
            return usage ();
          pairs = v;
          break;
        case 'n':
          if (v < 1 || v > MAX_TRIPS)
            return usage ();
          trips = v;
          break;
        case 'w':
          if (v < 0 || v > MAX_WORK)
            return usage ();
          work = v;
          break;
        default: return usage ();
        }
    }
  if (optind != argc)
    return usage ();

  for (long p = 0; p < pairs; p++)
    {
      Side *ping = &sides[2 * p];
      Side *pong = &sides[2 * p + 1];
      int   to_pong[2];
      int   to_ping[2];

      if (pipe (to_pong) != 0 || pipe (to_ping) != 0)
        {
          fprintf (stderr, "switch-workload: pipe: %s\n", strerror (errno));
          return 1;
        }
      *ping = (Side){ .in = to_ping[0], .out = to_pong[1], .ping = 1, .trips = trips, .work = work };
      *pong = (Side){ .in = to_pong[0], .out = to_ping[1], .ping = 0, .trips = trips, .work = work };
    }

  fflush (stdout);
  start = now_s ();
  cpu_start = cpu_s ();
  for (long t = 0; t < 2 * pairs; t++)
    {
      int err = pthread_create (&sides[t].thread, NULL, pair_thread, &sides[t]);

      if (err != 0)
        {
          fprintf (stderr, "switch-workload: pthread_create: %s\n", strerror (err));
          return 1;
        }
    }
  for (long t = 0; t < 2 * pairs; t++)
    {
      pthread_join (sides[t].thread, NULL);
      voluntary += sides[t].voluntary;
      involuntary += sides[t].involuntary;
      checksum += sides[t].checksum;
      failed |= sides[t].failed;
    }
  elapsed = now_s () - start;
  cpu = cpu_s () - cpu_start;

  if (failed)
    {
      fprintf (stderr, "switch-workload: a pipe failed\n");
      return 1;
    }
  printf ("switch-workload: pairs=%ld trips=%ld work=%ld elapsed=%.6f s cpu=%.6f s switches=%ld switches_per_s=%.0f "
          "voluntary=%ld checksum=0x%016" PRIx64 "\n",
          pairs, trips, work, elapsed, cpu, voluntary + involuntary, (double) (voluntary + involuntary) / elapsed,
          voluntary, checksum);
  return 0;
}
