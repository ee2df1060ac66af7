// SPDX-License-Identifier: GPL-3.0-or-later
/* make-marks-logs-capture OUT.syscap: a capture of marks and logs only, with
 * known contents, like an application instrumented with the collector API
 * writes: 3 "render/frame" marks (10, 20, 30 ms), 2 "io/read" marks (5 ms),
 * and 4 logs (one per severity: critical, warning, message, debug), over
 * one second.  No samples, processes, counters or files. */
#include <stdio.h>

#include <sysprof-capture.h>

#define MS 1000000LL

int
main (int argc, char **argv)
{
  SysprofCaptureWriter *writer;
  int64_t               t0;
  bool                  ok = true;

  if (argc != 2)
    {
      fprintf (stderr, "usage: make-marks-logs-capture OUT.syscap\n");
      return 2;
    }
  if (!(writer = sysprof_capture_writer_new (argv[1], 0)))
    {
      perror (argv[1]);
      return 1;
    }
  t0 = SYSPROF_CAPTURE_CURRENT_TIME;
  for (int i = 0; i < 3; i++)
    ok &= sysprof_capture_writer_add_mark (writer, t0 + (100 + 250 * i) * MS, 0, 4242, (uint64_t) (10 * (i + 1)) * MS,
                                           "render", "frame", "a frame");
  for (int i = 0; i < 2; i++)
    ok &= sysprof_capture_writer_add_mark (writer, t0 + (300 + 400 * i) * MS, 0, 4242, 5 * MS, "io", "read",
                                           "/etc/hosts");
  ok &=
      sysprof_capture_writer_add_log (writer, t0 + 150 * MS, 0, 4242, 1 << 3 /* critical */, "app", "disk almost full");
  ok &= sysprof_capture_writer_add_log (writer, t0 + 400 * MS, 0, 4242, 1 << 4 /* warning */, "app", "slow frame");
  ok &= sysprof_capture_writer_add_log (writer, t0 + 600 * MS, 0, 4242, 1 << 5 /* message */, "net", "connected");
  ok &= sysprof_capture_writer_add_log (writer, t0 + 1000 * MS, 0, 4242, 1 << 7 /* debug */, "net", "idle");
  ok &= sysprof_capture_writer_flush (writer);
  sysprof_capture_writer_unref (writer);
  if (!ok)
    {
      fprintf (stderr, "make-marks-logs-capture: cannot write %s\n", argv[1]);
      return 1;
    }
  return 0;
}
