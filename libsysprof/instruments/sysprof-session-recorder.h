// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-perf-recorder.h"

G_BEGIN_DECLS

/* What a session records.  The struct will grow: set @size to
 * sizeof (SysprofSessionRecorderOptions), most simply by starting from
 * SYSPROF_SESSION_RECORDER_OPTIONS_INIT. */
typedef struct
{
  gsize size;
  /* Sample stacks with perf (SysprofPerfRecorder); TRUE by default. */
  gboolean cpu_sampling;
  /* Samples per second and CPU, 0 for the default (see SysprofPerfRecorderOptions). */
  guint frequency_hz;
  /* Processes to sample; @n_pids 0 samples the whole system. */
  const int *pids;
  gsize      n_pids;
  /* System counters ("cpu", "memory", "disk", "network"), NULL-terminated;
   * NULL or empty for none. */
  const char *const *counters;
  /* At most this many perf events, see SysprofPerfRecorderOptions; 0: no limit. */
  guint max_perf_events;
  /* Only what the processes of @pids show of themselves: user-space samples
   * (see SysprofPerfRecorderOptions.user_only), a /proc snapshot of @pids
   * alone, and no kernel symbols (their addresses would give away the
   * kernel's layout). */
  gboolean own_processes_only;
  /* How user stacks are unwound, the stack copied per sample and the
   * unwinding helper: see SysprofPerfRecorderOptions. */
  SysprofPerfUnwind unwind;
  guint             stack_size;
  const char       *unwinder_path;
  /* See SysprofPerfRecorderOptions.embed_perf_maps. */
  gboolean embed_perf_maps;
  /* Scheduler details, with @cpu_sampling: see
   * SysprofPerfRecorderOptions.scheduler.  Not with @own_processes_only
   * (tracepoints show every task's switches). */
  gboolean scheduler;
  /* Record the messages of the system bus (SysprofDbusMonitor; needs
   * root).  FALSE by default. */
  gboolean system_bus;
} SysprofSessionRecorderOptions;

#define SYSPROF_SESSION_RECORDER_OPTIONS_INIT                                                                         \
  {                                                                                                                   \
    sizeof (SysprofSessionRecorderOptions), TRUE, 0, NULL, 0, NULL, 0, 0, SYSPROF_PERF_UNWIND_DEFAULT, 0, NULL, 0, 0, \
        0                                                                                                             \
  }

#define SYSPROF_TYPE_SESSION_RECORDER (sysprof_session_recorder_get_type ())

/* The instruments of one recording session, as sysprofd runs them and as a
 * root client runs them in-process: at start a /proc snapshot
 * (sysprof_proc_snapshot_write), then perf sampling (SysprofPerfRecorder) and
 * the system counters (SysprofCounterRecorder) and the messages of the
 * system bus (SysprofDbusMonitor) streamed into the writer; at
 * stop the remaining records, the kernel symbols (sysprof_kallsyms_write) and
 * a flush.  Needs root or CAP_PERFMON for sampling, CAP_SYSLOG for real kernel
 * addresses.
 *
 * Problems that leave a usable capture (an incomplete /proc snapshot, kernel
 * symbols that cannot be embedded) are not errors: they are emitted as the
 * "warning" signal, void (*) (SysprofSessionRecorder *, const char *message,
 * gpointer user_data). */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofSessionRecorder, sysprof_session_recorder, SYSPROF, SESSION_RECORDER, GObject)

/* Keeps a reference on @writer. */
SYSPROF_AVAILABLE_IN_ALL
SysprofSessionRecorder *sysprof_session_recorder_new (SysprofCaptureWriter *writer);
/* Writes the /proc snapshot and starts the instruments (@options NULL =
 * defaults: whole-system sampling at the default frequency, no counters).
 * Sources are attached to the thread-default main context.  On failure the
 * message says which instrument failed, nothing is left running, and what was
 * written so far is flushed; a recorder starts once. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_session_recorder_start (SysprofSessionRecorder              *self,
                                         const SysprofSessionRecorderOptions *options,
                                         GError                             **error);
/* Stops the instruments, writes what they still buffer, embeds the kernel
 * symbols and flushes the writer.  Fails only when the capture could not be
 * written completely.  Does nothing (and succeeds) when not recording. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_session_recorder_stop (SysprofSessionRecorder *self, GError **error);
/* Continuous recording: ends the capture being written as stop would (what
 * the instruments buffer, the perf maps, the kernel symbols its samples
 * need, the header's end time) without stopping anything, and goes on in a
 * new capture written to @fd (the recorder's writer owns it then; see
 * sysprof_capture_writer_switch_fd), which starts with a /proc snapshot
 * and the counters' definitions, so that each capture reads alone.  On
 * failure (G_IO_ERROR, from the errno) recording goes on in the old capture
 * and @fd is not taken. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_session_recorder_cut (SysprofSessionRecorder *self, int fd, GError **error);
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_session_recorder_is_running (SysprofSessionRecorder *self);
/* The perf event sampled ("cycles", "cpu-clock") once started, NULL without
 * sampling. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_session_recorder_get_event_name (SysprofSessionRecorder *self);
/* Perf records the kernel dropped so far (also after stop). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_session_recorder_get_n_lost (SysprofSessionRecorder *self);

G_END_DECLS
