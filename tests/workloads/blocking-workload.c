// SPDX-License-Identifier: GPL-3.0-or-later
/* A program that waits in known functions for known times, for the off-CPU
 * analyses (test-scheduler.sh).  Its main thread, in turn:
 *
 *   wait_in_sleep      nanosleep() for ROUNDS x 50 ms
 *   wait_in_pipe_read  read() of a pipe that a helper thread writes 40 ms later
 *   wait_in_mutex      pthread_mutex_lock() of a mutex a helper holds for 30 ms
 *
 * and measures the time each function took (CLOCK_MONOTONIC around each
 * call), printing at the end one line per function, "NAME SECONDS", so a
 * test compares what the recording attributes to each with what happened.
 *
 *   blocking-workload [ROUNDS]   (default 8)
 *
 * Or, to load a recorder of switches:
 *
 *   blocking-workload ping TRIPS
 *
 * two threads pass a byte back and forth over two pipes TRIPS times, waiting
 * in wait_for_token for it when it is not there yet, and print "waits N":
 * how many times the two threads left the CPU of their own accord, as the
 * kernel counted them (getrusage's voluntary context switches of each
 * thread).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* noipa keeps GCC from cloning them under other names; clang has no such
 * attribute and does not clone noinline functions. */
#if defined(__clang__)
#define NOINLINE __attribute__ ((noinline))
#else
#define NOINLINE __attribute__ ((noinline, noipa))
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t           held;
static int             pipe_fds[2];

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

  while (nanosleep (&ts, &ts) != 0)
    ;
}

NOINLINE static void
wait_in_sleep (void)
{
  sleep_ms (50);
}

static void *
write_later (void *data)
{
  (void) data;
  sleep_ms (40);
  if (write (pipe_fds[1], "x", 1) != 1)
    abort ();
  return NULL;
}

NOINLINE static void
wait_in_pipe_read (void)
{
  char c;

  if (read (pipe_fds[0], &c, 1) != 1)
    abort ();
}

static void *
hold_lock (void *data)
{
  (void) data;
  pthread_mutex_lock (&lock);
  sem_post (&held);
  sleep_ms (30);
  pthread_mutex_unlock (&lock);
  return NULL;
}

NOINLINE static void
wait_in_mutex (void)
{
  pthread_mutex_lock (&lock);
  pthread_mutex_unlock (&lock);
}

static int  ping_fds[2][2];
static long pong_waits;

static long
thread_waits (void)
{
  struct rusage usage;

  return getrusage (RUSAGE_THREAD, &usage) == 0 ? usage.ru_nvcsw : 0;
}

NOINLINE static void
wait_for_token (int fd)
{
  char c;

  if (read (fd, &c, 1) != 1)
    abort ();
}

static void *
pong (void *data)
{
  long trips = (long) (intptr_t) data;

  for (long i = 0; i < trips; i++)
    {
      wait_for_token (ping_fds[0][0]);
      if (write (ping_fds[1][1], "y", 1) != 1)
        abort ();
    }
  pong_waits = thread_waits ();
  return NULL;
}

static int
ping (long trips)
{
  pthread_t thread;
  long      waits;

  if (trips < 1 || pipe (ping_fds[0]) != 0 || pipe (ping_fds[1]) != 0 ||
      pthread_create (&thread, NULL, pong, (void *) (intptr_t) trips) != 0)
    return 1;
  for (long i = 0; i < trips; i++)
    {
      if (write (ping_fds[0][1], "x", 1) != 1)
        abort ();
      wait_for_token (ping_fds[1][0]);
    }
  waits = thread_waits ();
  pthread_join (thread, NULL);
  printf ("waits %ld\n", waits + pong_waits);
  return 0;
}

int
main (int argc, char **argv)
{
  int    rounds = argc > 1 ? atoi (argv[1]) : 8;
  double in_sleep = 0, in_pipe = 0, in_mutex = 0;

  if (argc > 2 && strcmp (argv[1], "ping") == 0)
    return ping (atol (argv[2]));
  if (rounds < 1 || pipe (pipe_fds) != 0 || sem_init (&held, 0, 0) != 0)
    return 1;

  for (int i = 0; i < rounds; i++)
    {
      pthread_t thread;
      double    t;

      t = now_s ();
      wait_in_sleep ();
      in_sleep += now_s () - t;

      if (pthread_create (&thread, NULL, write_later, NULL) != 0)
        return 1;
      t = now_s ();
      wait_in_pipe_read ();
      in_pipe += now_s () - t;
      pthread_join (thread, NULL);

      if (pthread_create (&thread, NULL, hold_lock, NULL) != 0)
        return 1;
      while (sem_wait (&held) != 0)
        ;
      t = now_s ();
      wait_in_mutex ();
      in_mutex += now_s () - t;
      pthread_join (thread, NULL);
    }

  printf ("wait_in_sleep %.6f\nwait_in_pipe_read %.6f\nwait_in_mutex %.6f\n", in_sleep, in_pipe, in_mutex);
  return 0;
}
