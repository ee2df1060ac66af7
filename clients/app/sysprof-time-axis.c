// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>

#include "sysprof-chart.h"
#include "sysprof-time-axis.h"

/* ------------------------------------------------------------------------ */
/* Arithmetic */

gint64
sysprof_time_add (gint64 a, gint64 b)
{
  gint64 sum;

  if (__builtin_add_overflow (a, b, &sum))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return sum;
}

gint64
sysprof_time_sub (gint64 a, gint64 b)
{
  gint64 difference;

  if (__builtin_sub_overflow (a, b, &difference))
    return b < 0 ? G_MAXINT64 : G_MININT64;
  return difference;
}

double
sysprof_time_diff (gint64 a, gint64 b)
{
  /* The distance between two gint64 always fits in a guint64, and the
   * unsigned subtraction wraps where the signed one would overflow. */
  if (a >= b)
    return (double) ((guint64) a - (guint64) b);
  return -(double) ((guint64) b - (guint64) a);
}

gint64
sysprof_time_from_double (double ns)
{
  if (isnan (ns))
    return 0;
  /* 2^63: the first double above G_MAXINT64, and exactly G_MININT64. */
  if (ns >= 9223372036854775808.0)
    return G_MAXINT64;
  if (ns <= -9223372036854775808.0)
    return G_MININT64;
  return (gint64) round (ns);
}

/* ------------------------------------------------------------------------ */
/* Mapping */

void
sysprof_time_axis_init (SysprofTimeAxis *self, gint64 begin, gint64 end, double x, double width)
{
  g_return_if_fail (self != NULL);

  if (end <= begin)
    {
      if (begin == G_MAXINT64)
        begin = G_MAXINT64 - 1;
      end = begin + 1;
    }
  self->begin = begin;
  self->end = end;
  self->x = isfinite (x) ? x : 0;
  self->width = width >= 1 ? MIN (width, 1e9) : 1;
}

void
sysprof_time_axis_init_for_widget (SysprofTimeAxis *self, SysprofDocument *document, GtkWidget *widget)
{
  gint64 begin, end;

  sysprof_document_get_visible_range (document, &begin, &end);
  sysprof_time_axis_init (self, begin, end, SYSPROF_CHART_GUTTER, gtk_widget_get_width (widget) - SYSPROF_CHART_GUTTER);
}

static double
span (const SysprofTimeAxis *self)
{
  return sysprof_time_diff (self->end, self->begin);
}

double
sysprof_time_axis_x_of_time (const SysprofTimeAxis *self, gint64 time)
{
  /* At most 2^64 ns over at least 1 ns, times 1e9 pixels: finite. */
  return self->x + self->width * sysprof_time_diff (time, self->begin) / span (self);
}

gint64
sysprof_time_axis_time_at_x (const SysprofTimeAxis *self, double x)
{
  double fraction = CLAMP ((x - self->x) / self->width, 0.0, 1.0);
  double offset;

  if (isnan (fraction))
    return self->begin;
  offset = round (fraction * span (self));
  /* Rounding may go past the end, and the whole span may not fit in a
   * gint64: offsets are added as unsigned, below the span. */
  if (offset >= span (self))
    return self->end;
  return (gint64) ((guint64) self->begin + (guint64) offset);
}

double
sysprof_time_axis_ns_per_pixel (const SysprofTimeAxis *self)
{
  return span (self) / self->width;
}

gboolean
sysprof_time_axis_range_x (const SysprofTimeAxis *self, gint64 begin, gint64 end, double *x1, double *x2)
{
  double right = self->x + self->width;

  if (end < self->begin || begin > self->end || end < begin)
    return FALSE;
  *x1 = CLAMP (sysprof_time_axis_x_of_time (self, MAX (begin, self->begin)), self->x, right);
  *x2 = CLAMP (sysprof_time_axis_x_of_time (self, MIN (end, self->end)), self->x, right);
  *x2 = MAX (*x2, *x1 + 1);
  return TRUE;
}

void
sysprof_time_axis_select (const SysprofTimeAxis *self, SysprofDocument *document, double x1, double x2)
{
  gint64 t1 = sysprof_time_axis_time_at_x (self, MIN (x1, x2));
  gint64 t2 = sysprof_time_axis_time_at_x (self, MAX (x1, x2));

  if (t2 <= t1)
    sysprof_document_set_selection (document, G_MININT64, G_MAXINT64);
  else
    sysprof_document_set_selection (document, t1, t2);
}

/* ------------------------------------------------------------------------ */
/* Ticks */

/* The largest step: 5e18 ns, as 1e19 does not fit in a gint64.  A range of
 * the whole gint64 then has at most four ticks. */
#define MAX_STEP G_GINT64_CONSTANT (5000000000000000000)

gint64
sysprof_time_axis_tick_step (const SysprofTimeAxis *self, double spacing)
{
  double raw = span (self) * MAX (spacing, 1.0) / self->width;

  /* The smallest 1, 2 or 5 times a power of ten not below @raw: in whole
   * nanoseconds, so that adding it to a time always moves on. */
  for (gint64 power = 1;; power *= 10)
    {
      if (raw <= (double) power)
        return power;
      if (raw <= (double) (2 * power))
        return 2 * power;
      if (raw <= (double) (5 * power) || 5 * power == MAX_STEP)
        return 5 * power;
    }
}

guint
sysprof_time_axis_ticks (const SysprofTimeAxis *self, gint64 step, gint64 *ticks, guint max_ticks)
{
  gint64 quotient;
  gint64 t;
  guint  n = 0;

  g_return_val_if_fail (step > 0, 0);
  g_return_val_if_fail (ticks != NULL || max_ticks == 0, 0);

  /* The first multiple of @step at or after begin: division truncates
   * towards zero, which is the ceiling below zero. */
  quotient = self->begin / step;
  if (self->begin > 0 && self->begin % step != 0)
    quotient++;
  if (__builtin_mul_overflow (quotient, step, &t))
    return 0;
  while (n < max_ticks && t <= self->end)
    {
      ticks[n++] = t;
      if (__builtin_add_overflow (t, step, &t))
        break;
    }
  return n;
}

char *
sysprof_time_axis_format_tick (gint64 time, gint64 step)
{
  /* Magnitude as unsigned: -G_MININT64 does not fit in a gint64. */
  guint64 magnitude = time < 0 ? (guint64) (-(time + 1)) + 1 : (guint64) time;
  guint64 seconds = magnitude / 1000000000;
  guint64 nanoseconds = magnitude % 1000000000;
  guint64 unit = 1000000000;
  int     decimals = 0;

  /* As many decimals as the step has digits below the second: 0.5 s steps
   * read 1.5 s, 20 ms steps 1.52 s. */
  for (gint64 s = MAX (step, 1); s < 1000000000 && decimals < 9; s *= 10)
    {
      decimals++;
      unit /= 10;
    }
  if (decimals == 0)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT " s", time < 0 ? "-" : "", seconds);
  return g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%0*" G_GUINT64_FORMAT " s", time < 0 ? "-" : "", seconds, decimals,
                          nanoseconds / unit);
}

/* The thresholds are where the rounded value would reach 1000. */
char *
sysprof_time_format_duration (double ns)
{
  if (ns < 999.5)
    return g_strdup_printf ("%.0f ns", ns);
  if (ns < 999995.0)
    return g_strdup_printf ("%.2f µs", ns / 1e3);
  if (ns < 999995000.0)
    return g_strdup_printf ("%.2f ms", ns / 1e6);
  return g_strdup_printf ("%.2f s", ns / 1e9);
}

/* ------------------------------------------------------------------------ */
/* Dragging */

void
sysprof_time_drag_begin (SysprofTimeDrag *self, double x, double min_x)
{
  self->active = TRUE;
  self->moved = FALSE;
  self->start_x = MAX (x, min_x);
  self->x = self->start_x;
}

void
sysprof_time_drag_update (SysprofTimeDrag *self, double dx, double min_x, double max_x)
{
  if (!self->active)
    return;
  self->x = CLAMP (self->start_x + dx, min_x, MAX (min_x, max_x));
  if (fabs (dx) >= SYSPROF_TIME_DRAG_THRESHOLD)
    self->moved = TRUE;
}

gboolean
sysprof_time_drag_end (SysprofTimeDrag *self, double dx, const SysprofTimeAxis *axis, SysprofDocument *document)
{
  self->active = FALSE;
  if (fabs (dx) >= SYSPROF_TIME_DRAG_THRESHOLD)
    self->moved = TRUE;
  if (!self->moved)
    return FALSE;
  sysprof_time_axis_select (axis, document, self->start_x, self->x);
  return TRUE;
}

void
sysprof_time_drag_cancel (SysprofTimeDrag *self)
{
  self->active = FALSE;
  self->moved = FALSE;
}

gboolean
sysprof_time_drag_get_range (const SysprofTimeDrag *self, double *x1, double *x2)
{
  if (!self->active || !self->moved)
    return FALSE;
  *x1 = MIN (self->start_x, self->x);
  *x2 = MAX (self->start_x, self->x);
  return TRUE;
}
