// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>
#include <string.h>

#include "sysprof-chart-row.h"
#include "sysprof-time-axis.h"

SysprofChartRow *
sysprof_chart_row_new (SysprofChartRowKind kind, const char *label, GArray *data)
{
  SysprofChartRow *row = g_new0 (SysprofChartRow, 1);

  row->kind = kind;
  row->label = g_strdup (label != NULL ? label : "");
  row->data = data;
  row->cache = g_array_new (FALSE, FALSE,
                            kind == SYSPROF_CHART_ROW_LINE    ? sizeof (SysprofChartVertex)
                            : kind == SYSPROF_CHART_ROW_TICKS ? sizeof (guint)
                                                              : sizeof (float));
  row->cache_width = -1;
  row->format = SYSPROF_CHART_VALUE_NUMBER;
  return row;
}

void
sysprof_chart_row_free (gpointer data)
{
  SysprofChartRow *row = data;

  g_free (row->label);
  g_free (row->description);
  g_free (row->unit);
  g_clear_pointer (&row->data, g_array_unref);
  g_clear_pointer (&row->cache, g_array_unref);
  g_free (row);
}

/* ------------------------------------------------------------------------ */
/* Searching the rows' data, all in time order */

guint
sysprof_chart_row_first_tick (const SysprofChartRow *self, gint64 t)
{
  GArray *times = self->data;
  guint   lo = 0, hi = times->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (times, gint64, mid) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static guint
points_lower_bound (GArray *points, gint64 t)
{
  guint lo = 0, hi = points->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (points, SysprofSummaryCounterValue, mid).time_ns < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint
sysprof_chart_row_first_span (const SysprofChartRow *row, gint64 t)
{
  /* @t minus the longest span, or G_MININT64 when that is below it. */
  gint64 from =
      row->max_span >= (guint64) t - (guint64) G_MININT64 ? G_MININT64 : (gint64) ((guint64) t - row->max_span);
  guint lo = 0, hi = row->data->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (row->data, SysprofChartSpan, mid).begin < from)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint
sysprof_chart_row_point_after (const SysprofChartRow *self, gint64 t)
{
  GArray *points = self->data;
  guint   lo = 0, hi = points->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (points, SysprofSummaryCounterValue, mid).time_ns <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ------------------------------------------------------------------------ */
/* Decimation: what a row draws for the visible range and width */

/* The points of a line that fall in one pixel column. */
typedef struct
{
  gint64 column;
  double x;
  double first;
  double last;
  double low;
  double high;
  guint  count;
} Column;

static void
push_vertex (GArray *vertices, double x, double value)
{
  SysprofChartVertex v = { (float) x, value };

  g_array_append_val (vertices, v);
}

/* A column of one point keeps its exact x; a busier one becomes its first,
 * lowest, highest and last values, which keep both the envelope and the
 * joins to its neighbours: at most four vertices per pixel, whatever the
 * number of points. */
static void
flush_column (GArray *vertices, Column *bin)
{
  if (bin->count == 1)
    push_vertex (vertices, bin->x, bin->first);
  else if (bin->count > 1)
    {
      double cx = (double) bin->column + 0.5;

      push_vertex (vertices, cx, bin->first);
      push_vertex (vertices, cx, bin->low);
      push_vertex (vertices, cx, bin->high);
      push_vertex (vertices, cx, bin->last);
    }
  bin->count = 0;
}

/* @axis: the visible range over the plot, x 0 at the gutter's edge. */
static void
cache_line (SysprofChartRow *row, const SysprofTimeAxis *axis)
{
  GArray *points = row->data;
  gint64  begin = axis->begin;
  gint64  end = axis->end;
  double  width = axis->width;
  guint   lo = points_lower_bound (points, begin);
  guint   hi = sysprof_chart_row_point_after (row, end);
  gint64  column = G_MININT64;
  Column  bin = { 0 };

  /* The points just outside the range carry the line to the edges. */
  if (lo > 0)
    lo--;
  if (hi < points->len)
    hi++;
  if (hi - lo < 2 && (hi == lo || g_array_index (points, SysprofSummaryCounterValue, lo).time_ns < begin ||
                      g_array_index (points, SysprofSummaryCounterValue, lo).time_ns > end))
    return;

  for (guint i = lo; i < hi; i++)
    {
      const SysprofSummaryCounterValue *p = &g_array_index (points, SysprofSummaryCounterValue, i);
      double                            x = sysprof_time_axis_x_of_time (axis, p->time_ns);
      double                            value = p->value;
      gint64                            c;

      /* Far outside points would overflow cairo's fixed-point coordinates:
       * interpolate the line where it crosses just outside the plot. */
      if (x < -1 && i + 1 < hi)
        {
          const SysprofSummaryCounterValue *q = &g_array_index (points, SysprofSummaryCounterValue, i + 1);
          double                            qx = sysprof_time_axis_x_of_time (axis, q->time_ns);

          value = p->value + (q->value - p->value) * (-1 - x) / MAX (qx - x, 1e-9);
          x = -1;
        }
      else if (x > width + 1 && i > lo)
        {
          const SysprofSummaryCounterValue *o = &g_array_index (points, SysprofSummaryCounterValue, i - 1);
          double                            ox = sysprof_time_axis_x_of_time (axis, o->time_ns);

          value = o->value + (p->value - o->value) * (width + 1 - ox) / MAX (x - ox, 1e-9);
          x = width + 1;
        }
      else if (x < -1 || x > width + 1)
        continue;
      /* Counters may hold NaN: no point, the line joins its neighbours. */
      if (isnan (value))
        continue;

      c = (gint64) floor (x);
      if (c != column)
        {
          flush_column (row->cache, &bin);
          column = c;
        }
      if (bin.count == 0)
        {
          bin.first = bin.low = bin.high = value;
          bin.x = x;
          bin.column = c;
        }
      bin.low = MIN (bin.low, value);
      bin.high = MAX (bin.high, value);
      bin.last = value;
      bin.count++;
    }
  flush_column (row->cache, &bin);
}

static void
cache_ticks (SysprofChartRow *row, const SysprofTimeAxis *axis)
{
  GArray *times = row->data;
  guint   width = (guint) axis->width;
  guint  *counts;

  g_array_set_size (row->cache, width);
  counts = (guint *) (gpointer) row->cache->data;
  memset (counts, 0, sizeof (guint) * width);
  for (guint i = sysprof_chart_row_first_tick (row, axis->begin); i < times->len; i++)
    {
      gint64 t = g_array_index (times, gint64, i);
      gint64 c;

      if (t > axis->end)
        break;
      c = CLAMP ((gint64) sysprof_time_axis_x_of_time (axis, t), 0, (gint64) width - 1);
      if (++counts[c] > row->cache_max)
        row->cache_max = counts[c];
    }
}

static void
cache_spans (SysprofChartRow *row, const SysprofTimeAxis *axis)
{
  double width = axis->width;

  /* Spans are sorted by begin, not end: a long one that started before the
   * range may reach into it, but none longer than the longest. */
  for (guint i = sysprof_chart_row_first_span (row, axis->begin); i < row->data->len; i++)
    {
      const SysprofChartSpan *span = &g_array_index (row->data, SysprofChartSpan, i);
      float                   x0, x1;

      if (span->begin > axis->end)
        break;
      if (span->end < axis->begin)
        continue;
      x0 = (float) MAX (sysprof_time_axis_x_of_time (axis, span->begin), -1.0);
      x1 = (float) MIN (sysprof_time_axis_x_of_time (axis, span->end), width + 1.0);
      /* Short spans stay visible. */
      if (x1 - x0 < 1)
        x1 = x0 + 1;
      if (row->cache->len >= 2 && x0 <= g_array_index (row->cache, float, row->cache->len - 1))
        {
          float *last_x1 = &g_array_index (row->cache, float, row->cache->len - 1);

          *last_x1 = MAX (*last_x1, x1);
          continue;
        }
      g_array_append_val (row->cache, x0);
      g_array_append_val (row->cache, x1);
    }
}

void
sysprof_chart_row_update_cache (SysprofChartRow *row, gint64 begin, gint64 end, int width)
{
  SysprofTimeAxis axis;

  if (row->cache_width == width && row->cache_begin == begin && row->cache_end == end)
    return;

  row->cache_width = width;
  row->cache_begin = begin;
  row->cache_end = end;
  row->cache_max = 0;
  g_array_set_size (row->cache, 0);
  sysprof_time_axis_init (&axis, begin, end, 0, width);
  switch (row->kind)
    {
    case SYSPROF_CHART_ROW_LINE: cache_line (row, &axis); break;
    case SYSPROF_CHART_ROW_TICKS: cache_ticks (row, &axis); break;
    case SYSPROF_CHART_ROW_SPANS: cache_spans (row, &axis); break;
    case SYSPROF_CHART_ROW_HEADING: break;
    default: g_assert_not_reached ();
    }
}

gboolean
sysprof_chart_row_cache_empty (const SysprofChartRow *row)
{
  return row->kind == SYSPROF_CHART_ROW_TICKS ? row->cache_max == 0 : row->cache->len == 0;
}
