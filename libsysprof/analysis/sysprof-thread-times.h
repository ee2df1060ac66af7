// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofThreadTimes: per thread, how long it waited off the CPU (the
 * off-CPU samples of the scheduler details, sysprof-cli --scheduler) and how
 * often it was sampled on it: which threads wait, how often, and the longest
 * wait.  From the frames of a capture (sysprof-report threads) or from a
 * SysprofCaptureSummary (the app's threads view).
 */
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-capture-summary.h"

G_BEGIN_DECLS

typedef struct
{
  gint32 pid;
  gint32 tid;
  /* The process's name (its last PROCESS frame's command line, "" when the
   * capture names none). */
  char *process;
  /* On-CPU samples of the thread in the window. */
  guint64 n_samples;
  /* Waits that overlap the window, and their nanoseconds within it. */
  guint64 n_waits;
  gint64  off_cpu_ns;
  gint64  longest_wait_ns;
} SysprofThreadTime;

typedef struct
{
  /* Nanoseconds from the capture's start; G_MININT64 / G_MAXINT64 for all.
   * A wait counts for the part of it inside the window. */
  gint64 begin_ns;
  gint64 end_ns;
  /* Only these processes (NULL or n_pids 0: all). */
  const gint32 *pids;
  guint         n_pids;
} SysprofThreadTimesOptions;

#define SYSPROF_THREAD_TIMES_OPTIONS_INIT \
  {                                       \
    G_MININT64, G_MAXINT64, NULL, 0       \
  }

/* A GArray of SysprofThreadTime (with a clear function), most time off the
 * CPU first (then most samples, then pid and tid), of every thread with a
 * sample or a wait in the window, from @reader read from its start.  NULL
 * with @error when the capture is corrupt or truncated. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_thread_times_from_reader (SysprofCaptureReader            *reader,
                                          const SysprofThreadTimesOptions *options,
                                          GError                         **error);
/* The same from a summary. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_thread_times_from_summary (const SysprofCaptureSummary     *summary,
                                           const SysprofThreadTimesOptions *options);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_thread_time_clear (SysprofThreadTime *time);

G_END_DECLS
