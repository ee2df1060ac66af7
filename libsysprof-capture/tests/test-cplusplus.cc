// SPDX-License-Identifier: GPL-3.0-or-later
// The public headers must compile as C++ (GLib and GTK include them), and the
// pinned layouts must hold there too.
#include <sysprof-capture.h>

#include <cstdio>

static_assert (sizeof (SysprofCaptureFileHeader) == 256, "header size in C++");
static_assert (sizeof (SysprofCaptureSample) == 32, "sample size in C++");

int
main ()
{
  SysprofCaptureWriter *writer = sysprof_capture_writer_new ("/dev/null", 0);

  if (writer == nullptr)
    return 1;
  SysprofCaptureAddress addrs[2] = { 1, 2 };
  bool                  ok = sysprof_capture_writer_add_sample (writer, 1, 0, 1, 1, addrs, 2);
  sysprof_capture_writer_unref (writer);
  std::printf ("%s\n", ok ? "ok 1 - C++ include and call" : "not ok 1");
  std::printf ("1..1\n");
  return ok ? 0 : 1;
}
