// SPDX-License-Identifier: BSD-2-Clause-Patent
/* collector-api: a program that reports to a profiler through
 * libsysprof-capture-4's collector the way GLib (glib/gtrace.c) and GTK
 * (gdk/gdkprofiler.c) do: it asks whether it is profiled, sends marks
 * (plain, printf and vprintf, with and without a message), logs, and an
 * integer and a double counter it requests, defines and sets.
 *
 * Built twice by tests/dropin/run-dropin.sh, against our installed library
 * and against Debian's 3.46, and run under our sysprof-cli: both must put
 * the same marks, logs and counter values into the capture.
 *
 * Usage: collector-api report N      (report N of each, print "active")
 *        collector-api inactive      (no profiler: every call a no-op)
 *        collector-api late          (SYSPROF_CONTROL_FD set after the
 *                                     start: is_active answers from the
 *                                     environment and asks for no ring) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sysprof-capture.h>

#define FAIL(...)                    \
  do                                 \
    {                                \
      fprintf (stderr, __VA_ARGS__); \
      fputc ('\n', stderr);          \
      exit (1);                      \
    }                                \
  while (0)

/* GLib's g_trace_mark() hands its va_list on. */
static void
trace_mark (int64_t begin, int64_t duration, const char *group, const char *name, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  sysprof_collector_mark_vprintf (begin, duration, group, name, format, args);
  va_end (args);
}

/* GLib's g_trace_define_int64_counter(): 0 from the collector means "not
 * traced". */
static unsigned int
define_counter (const char *group, const char *name, const char *description, int type)
{
  SysprofCaptureCounter counter;
  unsigned int          id = sysprof_collector_request_counters (1);

  if (id == 0)
    return 0;
  memset (&counter, 0, sizeof counter);
  counter.id = id;
  counter.type = type;
  if (type == SYSPROF_CAPTURE_COUNTER_DOUBLE)
    counter.value.vdbl = 0;
  else
    counter.value.v64 = 0;
  snprintf (counter.category, sizeof counter.category, "%s", group);
  snprintf (counter.name, sizeof counter.name, "%s", name);
  snprintf (counter.description, sizeof counter.description, "%s", description);
  sysprof_collector_define_counters (&counter, 1);
  return id;
}

static int
report (int n)
{
  unsigned int frames, fps;
  int64_t      begin;

  if (!sysprof_collector_is_active ())
    FAIL ("not profiled: run under a profiler");
  frames = define_counter ("gtk", "frames", "Frames drawn", SYSPROF_CAPTURE_COUNTER_INT64);
  fps = define_counter ("gtk", "fps", "Frames per second", SYSPROF_CAPTURE_COUNTER_DOUBLE);
  if (frames == 0 || fps == 0 || frames == fps)
    FAIL ("counters: %u %u", frames, fps);
  begin = SYSPROF_CAPTURE_CURRENT_TIME;
  for (int i = 0; i < n; i++)
    {
      SysprofCaptureCounterValue value;
      int64_t                    t = begin + (int64_t) i * 1000000;

      sysprof_collector_mark (t, 250000, "gtk", "layout", NULL);
      sysprof_collector_mark (t + 300000, 100000, "gtk", "snapshot", "toplevel");
      sysprof_collector_mark_printf (t + 500000, 50000, "glib", "GSource.dispatch", "%s #%d", "idle", i);
      trace_mark (t + 600000, 20000, "gtk", "style", "%d nodes", i * 3);
      sysprof_collector_log (1 << 4, "Gtk", "a warning");
      sysprof_collector_log_printf (1 << 6, "GLib", "info %d", i);
      value.v64 = i + 1;
      sysprof_collector_set_counters (&frames, &value, 1);
      value.vdbl = 60.0 - i / 4.0;
      sysprof_collector_set_counters (&fps, &value, 1);
    }
  printf ("active\n");
  return 0;
}

static int
inactive (void)
{
  SysprofCaptureCounter      counter;
  SysprofCaptureCounterValue value = { .v64 = 1 };
  unsigned int               id = 1;

  if (sysprof_collector_is_active ())
    FAIL ("is_active without a profiler");
  if (sysprof_collector_request_counters (1) != 0)
    FAIL ("counter ids without a profiler");
  memset (&counter, 0, sizeof counter);
  sysprof_collector_mark (SYSPROF_CAPTURE_CURRENT_TIME, 1, "gtk", "layout", NULL);
  sysprof_collector_mark_printf (SYSPROF_CAPTURE_CURRENT_TIME, 1, "g", "n", "%d", 1);
  sysprof_collector_log (1 << 4, "Gtk", "nobody hears this");
  sysprof_collector_define_counters (&counter, 1);
  sysprof_collector_set_counters (&id, &value, 1);
  printf ("inactive\n");
  return 0;
}

static int
late (void)
{
  int  fds[2];
  char value[16];
  char byte;

  if (sysprof_collector_is_active ())
    FAIL ("is_active before the variable is set");
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, fds) != 0)
    FAIL ("socketpair: %s", strerror (errno));
  snprintf (value, sizeof value, "%d", fds[1]);
  setenv ("SYSPROF_CONTROL_FD", value, 1);
  if (!sysprof_collector_is_active ())
    FAIL ("is_active does not see the variable set after the start");
  /* It answered without asking for a ring. */
  if (recv (fds[0], &byte, 1, MSG_DONTWAIT) != -1 || (errno != EAGAIN && errno != EWOULDBLOCK))
    FAIL ("is_active wrote to the control channel");
  printf ("late active\n");
  return 0;
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (argc == 3 && strcmp (argv[1], "report") == 0)
    return report (atoi (argv[2]));
  if (argc == 2 && strcmp (argv[1], "inactive") == 0)
    return inactive ();
  if (argc == 2 && strcmp (argv[1], "late") == 0)
    return late ();
  fprintf (stderr, "usage: collector-api report N | inactive | late\n");
  return 2;
}
