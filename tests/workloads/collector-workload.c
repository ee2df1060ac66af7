// SPDX-License-Identifier: GPL-3.0-or-later
/* A program that reports through libsysprof-capture's collector, as GTK and
 * GLib do when a profiler hands them $SYSPROF_CONTROL_FD: THREADS threads
 * each write MARKS marks (group "collector-test", name "step", duration
 * 1000 + i ns, message "thread T mark I") and one log ("collector-test",
 * "thread T done"), then the process exits.  It prints "active 1" when the
 * collector found a profiler, "active 0" otherwise, so a test can tell a
 * missing channel from lost events.
 *
 * Usage: collector-workload [THREADS [MARKS]] (default 2 and 100). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <sysprof-capture.h>

static long n_marks = 100;

static void *
thread_main (void *data)
{
  long t = (long) (intptr_t) data;

  for (long i = 0; i < n_marks; i++)
    sysprof_collector_mark_printf (SYSPROF_CAPTURE_CURRENT_TIME, 1000 + i, "collector-test", "step",
                                   "thread %ld mark %ld", t, i);
  sysprof_collector_log_printf (4, "collector-test", "thread %ld done", t);
  return NULL;
}

int
main (int argc, char **argv)
{
  long      n_threads = argc > 1 ? strtol (argv[1], NULL, 10) : 2;
  pthread_t threads[64];

  if (argc > 2)
    n_marks = strtol (argv[2], NULL, 10);
  if (n_threads < 1 || n_threads > 64 || n_marks < 0)
    {
      fprintf (stderr, "usage: collector-workload [THREADS (1-64) [MARKS]]\n");
      return 2;
    }
  printf ("active %d\n", sysprof_collector_is_active () ? 1 : 0);
  fflush (stdout);
  for (long t = 0; t < n_threads; t++)
    pthread_create (&threads[t], NULL, thread_main, (void *) (intptr_t) t);
  for (long t = 0; t < n_threads; t++)
    pthread_join (threads[t], NULL);
  return 0;
}
