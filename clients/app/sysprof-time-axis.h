// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofTimeAxis: the capture's time on a plot's x axis, as the timeline
 * ruler, the charts and the marks waterfall share it: the mapping of a
 * time range onto a plot's pixels and back, the ruler's ticks, and the
 * drag that selects a range.  One implementation, so that a time has the
 * same x everywhere and a drag behaves the same on each.
 *
 * Times come from captures, which may hold anything: every function takes
 * any gint64 and never overflows (a hostile capture must not crash the app
 * or hang it in a loop that cannot advance).
 */
#pragma once

#include <gtk/gtk.h>

#include "sysprof-document.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 begin; /* the time at @x */
  gint64 end;   /* the time at @x + @width, > @begin */
  double x;     /* the plot's left edge, in widget coordinates */
  double width; /* the plot's width in pixels, >= 1 */
} SysprofTimeAxis;

/* Saturating: the result clamped to [G_MININT64, G_MAXINT64]. */
gint64 sysprof_time_add (gint64 a, gint64 b);
gint64 sysprof_time_sub (gint64 a, gint64 b);
/* @a - @b as a double, without overflow. */
double sysprof_time_diff (gint64 a, gint64 b);
/* @ns rounded and clamped to a gint64; NaN is 0. */
gint64 sysprof_time_from_double (double ns);

/* @end <= @begin: the range becomes [begin, begin + 1] (or [end - 1, end]
 * at G_MAXINT64); @width below 1 (or NaN): 1. */
void sysprof_time_axis_init (SysprofTimeAxis *self, gint64 begin, gint64 end, double x, double width);
/* The document's visible range over the plot of a chart-like @widget:
 * from SYSPROF_CHART_GUTTER to its right edge. */
void sysprof_time_axis_init_for_widget (SysprofTimeAxis *self, SysprofDocument *document, GtkWidget *widget);

/* The x of @time, not clamped to the plot (but always finite). */
double sysprof_time_axis_x_of_time (const SysprofTimeAxis *self, gint64 time);
/* The time at @x, clamped to [begin, end]. */
gint64 sysprof_time_axis_time_at_x (const SysprofTimeAxis *self, double x);
/* Nanoseconds per pixel. */
double sysprof_time_axis_ns_per_pixel (const SysprofTimeAxis *self);
/* The x range of [@begin, @end] on the plot, clamped to its edges and at
 * least a pixel wide; FALSE when it is all before or after the plot. */
gboolean sysprof_time_axis_range_x (const SysprofTimeAxis *self, gint64 begin, gint64 end, double *x1, double *x2);
/* Selects in @document the times under @x1..@x2 (in any order); an empty
 * range clears the selection. */
void sysprof_time_axis_select (const SysprofTimeAxis *self, SysprofDocument *document, double x1, double x2);

/* Ticks: 1, 2 or 5 times a power of ten nanoseconds, about every @spacing
 * pixels (at least one nanosecond, and at most 5e18). */
gint64 sysprof_time_axis_tick_step (const SysprofTimeAxis *self, double spacing);
/* The most ticks a plot of @width pixels draws: a tick every 40 pixels. */
#define SYSPROF_TIME_AXIS_MAX_TICKS(width) ((guint) (MIN (MAX ((width), 0), 1e6) / 40) + 2)
/* Fills @ticks with the multiples of @step in [begin, end], in order, at
 * most @max_ticks of them; returns how many. */
guint sysprof_time_axis_ticks (const SysprofTimeAxis *self, gint64 step, gint64 *ticks, guint max_ticks);
/* "1.5 s": @time in seconds with the decimals @step needs. */
char *sysprof_time_axis_format_tick (gint64 time, gint64 step);

/* A duration in the unit that keeps it short: 850 ns, 12.34 µs, 20.00 ms,
 * 1.50 s (as the marks show them). */
char *sysprof_time_format_duration (double ns);

/* Drag to select, for a widget whose plot starts at @min_x.  A press that
 * moves less than SYSPROF_TIME_DRAG_THRESHOLD pixels is a click. */
#define SYSPROF_TIME_DRAG_THRESHOLD 3.0

typedef struct
{
  gboolean active;
  gboolean moved;
  double   start_x;
  double   x;
} SysprofTimeDrag;

void sysprof_time_drag_begin (SysprofTimeDrag *self, double x, double min_x);
void sysprof_time_drag_update (SysprofTimeDrag *self, double dx, double min_x, double max_x);
/* Ends the drag.  A drag selects its range in @document (through @axis)
 * and returns TRUE; a click returns FALSE and leaves the selection to the
 * caller. */
gboolean
     sysprof_time_drag_end (SysprofTimeDrag *self, double dx, const SysprofTimeAxis *axis, SysprofDocument *document);
void sysprof_time_drag_cancel (SysprofTimeDrag *self);
/* The x range being dragged, to shade; FALSE before it moved. */
gboolean sysprof_time_drag_get_range (const SysprofTimeDrag *self, double *x1, double *x2);

G_END_DECLS
