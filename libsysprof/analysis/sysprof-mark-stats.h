// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarkStats: the marks of a capture (GTK's frame clock, layout and
 * snapshot phases, GLib's main-loop work, a program's own) summed up per
 * group and name: how many, and their durations' total, least, greatest,
 * mean and median.  From the MARK frames of a capture, or from the marks a
 * SysprofCaptureSummary already holds (the app).
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
  char   *group;
  char   *name;
  guint64 count;
  /* Nanoseconds.  A negative duration in the file counts as 0, and one
   * over SYSPROF_SUMMARY_TIME_LIMIT as that limit.  The total is a double:
   * the sum of many long marks does not fit in a gint64 (it is exact up to
   * 2^53 ns, 104 days). */
  double total_ns;
  gint64 min_ns;
  gint64 max_ns;
  double mean_ns;
  /* The middle duration; of an even count, the mean of the two middle ones. */
  double median_ns;
} SysprofMarkStat;

typedef struct
{
  /* Marks that start within [begin_ns, end_ns], nanoseconds from the
   * capture's start (its start time); G_MININT64 and G_MAXINT64 for all.
   * With overlapping, the marks that overlap it instead (a view's
   * selection shows every mark it crosses). */
  gint64   begin_ns;
  gint64   end_ns;
  gboolean overlapping;
  /* Only these processes (NULL or n_pids 0: all). */
  const gint32 *pids;
  guint         n_pids;
  /* Only this group (NULL: all). */
  const char *group;
} SysprofMarkStatsOptions;

#define SYSPROF_MARK_STATS_OPTIONS_INIT          \
  {                                              \
    G_MININT64, G_MAXINT64, FALSE, NULL, 0, NULL \
  }

/* A GArray of SysprofMarkStat (with a clear function), most total time first
 * (then group, then name), from every MARK frame of @reader read from its
 * start.  NULL with @error when the capture is corrupt or truncated (the
 * error names the offset); the marks before the damage are then lost too,
 * since a partial summary would look complete. */
SYSPROF_AVAILABLE_IN_ALL
GArray *
sysprof_mark_stats_from_reader (SysprofCaptureReader *reader, const SysprofMarkStatsOptions *options, GError **error);
/* The same from @n_marks marks of a summary (their times are already from
 * the capture's start). */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_mark_stats_from_summary_marks (const SysprofSummaryMark      *marks,
                                               guint                          n_marks,
                                               const SysprofMarkStatsOptions *options);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_mark_stat_clear (SysprofMarkStat *stat);

G_END_DECLS
