// SPDX-License-Identifier: GPL-3.0-or-later
// The public header must compile as C++ (GLib programs in C++ include it).
#include <sysprof.h>

#include <cstdio>

int
main ()
{
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer = sysprof_capture_writer_new ("/dev/null", 0);
  SysprofPerfRecorder       *recorder;
  bool                       ok;

  if (writer == nullptr)
    return 1;
  recorder = sysprof_perf_recorder_new (writer);
  ok = options.size == sizeof options && !sysprof_perf_recorder_is_running (recorder) &&
       sysprof_perf_recorder_get_event_name (recorder) == nullptr;
  g_object_unref (recorder);
  sysprof_capture_writer_unref (writer);
  std::printf ("%s\n", ok ? "ok 1 - C++ include and call" : "not ok 1");
  std::printf ("1..1\n");
  return ok ? 0 : 1;
}
