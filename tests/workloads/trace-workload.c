// SPDX-License-Identifier: GPL-3.0-or-later
/* A program that writes a whole capture of its own into the descriptor a
 * profiler hands it, as programs built to write Sysprof traces and GJS's
 * profiler do: $SYSPROF_TRACE_FD (through libsysprof-capture's
 * sysprof_capture_writer_new_from_env) or, in gjs mode, $GJS_TRACE_FD
 * (only when GJS_ENABLE_PROFILER=1, as GJS checks).
 *
 * What it writes: two "JavaScript" functions in a JIT map ("js:outer
 * (app.js:1)" and "js:inner (app.js:7)"), SAMPLES samples of the stack
 * inner <- outer 1 ms apart, MARKS marks (group "trace-test", name "tick",
 * duration 2000 ns) and a counter "trace-test/ticks" set to 1, 2, 3 …
 * beside them.  It prints "trace ok PID" on success.
 *
 * Usage: trace-workload sysprof|gjs|garbage|nothing [SAMPLES [MARKS]]
 *   garbage: a sound capture, then bytes that are not a frame
 *   nothing: writes nothing (the profiler must say so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sysprof-capture.h>

int
main (int argc, char **argv)
{
  const char                *mode = argc > 1 ? argv[1] : "sysprof";
  long                       n_samples = argc > 2 ? strtol (argv[2], NULL, 10) : 200;
  long                       n_marks = argc > 3 ? strtol (argv[3], NULL, 10) : 50;
  SysprofCaptureWriter      *writer;
  SysprofCaptureAddress      stack[2];
  SysprofCaptureCounter      counter = { 0 };
  SysprofCaptureCounterValue value;
  unsigned int               id;
  int                        pid = getpid ();
  int                        fd;

  if (strcmp (mode, "nothing") == 0)
    {
      printf ("trace ok %d\n", pid);
      return 0;
    }
  if (strcmp (mode, "gjs") == 0)
    {
      const char *v = getenv ("GJS_TRACE_FD");
      const char *enabled = getenv ("GJS_ENABLE_PROFILER");

      if (v == NULL || enabled == NULL || strcmp (enabled, "1") != 0)
        {
          fprintf (stderr, "trace-workload: no GJS_TRACE_FD with GJS_ENABLE_PROFILER=1\n");
          return 1;
        }
      fd = atoi (v);
      writer = sysprof_capture_writer_new_from_fd (dup (fd), 0);
    }
  else
    writer = sysprof_capture_writer_new_from_env (0);
  if (writer == NULL)
    {
      fprintf (stderr, "trace-workload: no trace descriptor\n");
      return 1;
    }

  /* The frames of a JavaScript stack, innermost first. */
  stack[1] = sysprof_capture_writer_add_jitmap (writer, "js:outer (app.js:1)");
  stack[0] = sysprof_capture_writer_add_jitmap (writer, "js:inner (app.js:7)");
  id = sysprof_capture_writer_request_counter (writer, 1);
  counter.id = id;
  snprintf (counter.category, sizeof counter.category, "trace-test");
  snprintf (counter.name, sizeof counter.name, "ticks");
  snprintf (counter.description, sizeof counter.description, "marks written so far");
  sysprof_capture_writer_define_counters (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, pid, &counter, 1);

  for (long i = 0; i < n_samples || i < n_marks; i++)
    {
      struct timespec ms = { 0, 1000000 };

      if (i < n_samples)
        sysprof_capture_writer_add_sample (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, pid, pid, stack, 2);
      if (i < n_marks)
        {
          sysprof_capture_writer_add_mark (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, pid, 2000, "trace-test", "tick",
                                           "a tick");
          value.v64 = i + 1;
          sysprof_capture_writer_set_counters (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, pid, &id, &value, 1);
        }
      nanosleep (&ms, NULL);
    }
  sysprof_capture_writer_flush (writer);
  sysprof_capture_writer_unref (writer);

  if (strcmp (mode, "garbage") == 0)
    {
      static const char junk[] = "this is not a frame, and neither is the rest of it";
      const char       *v = getenv ("SYSPROF_TRACE_FD");

      if (v == NULL || pwrite (atoi (v), junk, sizeof junk, lseek (atoi (v), 0, SEEK_END)) != sizeof junk)
        return 1;
    }
  printf ("trace ok %d\n", pid);
  return 0;
}
