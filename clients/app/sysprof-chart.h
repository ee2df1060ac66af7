// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofChart: a chart over the capture's time axis, for the time-based
 * views (samples, counters, processes, heap over time).
 *
 * It draws the document's visible time range (the timeline's zoom) and
 * shades its selection, so every chart lines up with the shared timeline
 * ruler.  Dragging on a chart selects a range too, through the document.
 * Rows are stacked top to bottom; each row has a label on the left.
 *
 * It is a GtkScrollable: put it directly in a GtkScrolledWindow and it only
 * draws the rows in view, so charts of thousands of processes stay fast.
 * Elsewhere (in a box) it asks for the height of all its rows.
 */
#pragma once

#include <gtk/gtk.h>

#include "sysprof-document.h"

G_BEGIN_DECLS

/* Width in pixels of the row labels on the left of every chart; the plot
 * spans the rest of the widget, up to its right edge.  The timeline ruler
 * uses the same gutter, so a time has the same x in the ruler and in a
 * chart that starts at the same x and is as wide. */
#define SYSPROF_CHART_GUTTER 160

#define SYSPROF_TYPE_CHART (sysprof_chart_get_type ())
G_DECLARE_FINAL_TYPE (SysprofChart, sysprof_chart, SYSPROF, CHART, GtkWidget)

typedef enum
{
  /* A line through the points (time_ns, value), filled below when asked. */
  SYSPROF_CHART_ROW_LINE,
  /* One tick per time: sample density (cpu and process rows). */
  SYSPROF_CHART_ROW_TICKS,
  /* Spans [begin, end]: process lifetimes, marks. */
  SYSPROF_CHART_ROW_SPANS,
  /* No data: the title of the rows below it, across the row. */
  SYSPROF_CHART_ROW_HEADING,
} SysprofChartRowKind;

/* How a line's values read in tooltips. */
typedef enum
{
  SYSPROF_CHART_VALUE_NUMBER,  /* 1234.5, then the row's unit if any */
  SYSPROF_CHART_VALUE_PERCENT, /* 12.5 % */
  SYSPROF_CHART_VALUE_BYTES,   /* 1.2 MB (g_format_size) */
} SysprofChartValueFormat;

GtkWidget *sysprof_chart_new (SysprofDocument *document);
/* Height of every row in pixels (default 32). */
void sysprof_chart_set_row_height (SysprofChart *self, int height);

/* Each returns the row's index.  The data is copied. */
guint sysprof_chart_add_line (SysprofChart                     *self,
                              const char                       *label,
                              const SysprofSummaryCounterValue *points,
                              guint                             n_points,
                              double                            min,
                              double                            max,
                              gboolean                          fill);
guint sysprof_chart_add_ticks (SysprofChart *self, const char *label, const gint64 *times_ns, guint n_times);
guint sysprof_chart_add_spans (
    SysprofChart *self, const char *label, const gint64 *begins_ns, const gint64 *ends_ns, guint n_spans);
/* A row that titles the rows after it (their category); colors start
 * again after it.  Many groups of rows are one scrolled chart this way,
 * which draws only the rows in view. */
guint sysprof_chart_add_heading (SysprofChart *self, const char *label);
/* A tooltip-friendly description of the row's values ("12.5 MiB peak"). */
void  sysprof_chart_set_row_description (SysprofChart *self, guint row, const char *description);
guint sysprof_chart_get_n_rows (SysprofChart *self);
void  sysprof_chart_clear (SysprofChart *self);

/* Additions. */
/* How the tooltip writes a line's value at the pointer (default NUMBER). */
void sysprof_chart_set_row_value_format (SysprofChart *self, guint row, SysprofChartValueFormat format);
/* What a row counts or measures ("samples", "MHz"): ticks' tooltips say
 * "12 samples in 8 ms"; NUMBER values are followed by it. */
void sysprof_chart_set_row_unit (SysprofChart *self, guint row, const char *unit);
/* The row's color (default: one of a palette, by row index). */
void        sysprof_chart_set_row_color (SysprofChart *self, guint row, const GdkRGBA *color);
const char *sysprof_chart_get_row_label (SysprofChart *self, guint row);
/* Its points, ticks or spans (0 for a heading). */
guint sysprof_chart_get_row_n_points (SysprofChart *self, guint row);
/* The row at @y in widget coordinates (scrolling included), or -1. */
int sysprof_chart_get_row_at_y (SysprofChart *self, double y);
/* The time at @x in widget coordinates, clamped to the visible range. */
gint64 sysprof_chart_get_time_at_x (SysprofChart *self, double x);
/* The tooltip text for the point (@x, @y), or NULL outside the rows; what
 * the chart's tooltip shows, for tests. */
char *sysprof_chart_describe_point (SysprofChart *self, double x, double y);

G_END_DECLS
