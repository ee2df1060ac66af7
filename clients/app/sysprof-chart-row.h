// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofChartRow: a row of SysprofChart, its data in time order, how a
 * time is found in it, and what it draws for a visible range and width:
 * its points decimated to a few per pixel column, cached so that redraws
 * (a drag, a selection) do not walk a million points again.  The chart
 * reads and sets its fields directly; times may be anything a capture
 * holds, see SysprofTimeAxis. */
#pragma once

#include "sysprof-chart.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 begin;
  gint64 end;
} SysprofChartSpan;

/* A point of a decimated line: plot x (0 = the gutter's edge) and value. */
typedef struct
{
  float  x;
  double value;
} SysprofChartVertex;

typedef struct
{
  SysprofChartRowKind     kind;
  char                   *label;
  char                   *description;
  char                   *unit;
  SysprofChartValueFormat format;
  GdkRGBA                 color;
  gboolean                has_color;
  /* Its place among the rows since the last heading: its palette color. */
  guint    color_index;
  gboolean fill;
  double   min;
  double   max;
  /* In time order.  LINE: SysprofSummaryCounterValue; TICKS: gint64;
   * SPANS: SysprofChartSpan, by begin; HEADING: nothing. */
  GArray *data;
  /* SPANS: the longest span, so that the first span reaching a time is
   * found by bisection.  Unsigned: a span may cover every gint64. */
  guint64 max_span;

  /* What the row draws for the visible range [cache_begin, cache_end] over
   * cache_width pixels, so that redraws (a drag, a selection) do not walk a
   * million points again.  LINE: SysprofChartVertex, at most four per
   * pixel column; TICKS: guint per pixel column; SPANS: pairs of float x,
   * merged. */
  GArray *cache;
  gint64  cache_begin;
  gint64  cache_end;
  int     cache_width;
  guint   cache_max;
} SysprofChartRow;

/* @data: its points, in time order (see @data above); taken.  @label may be
 * NULL. */
SysprofChartRow *sysprof_chart_row_new (SysprofChartRowKind kind, const char *label, GArray *data);
void             sysprof_chart_row_free (gpointer data);

/* TICKS: the first tick at @t or later. */
guint sysprof_chart_row_first_tick (const SysprofChartRow *self, gint64 t);
/* SPANS: the first span that may reach @t or later. */
guint sysprof_chart_row_first_span (const SysprofChartRow *self, gint64 t);
/* LINE: the first point after @t. */
guint sysprof_chart_row_point_after (const SysprofChartRow *self, gint64 t);

/* Fills the cache for [@begin, @end] over @width pixels, unless it holds
 * them already. */
void sysprof_chart_row_update_cache (SysprofChartRow *self, gint64 begin, gint64 end, int width);
/* Nothing to draw in the cache. */
gboolean sysprof_chart_row_cache_empty (const SysprofChartRow *self);

G_END_DECLS
