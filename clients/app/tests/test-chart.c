// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofChart on a real document (a capture given on the command line),
 * in a real window under Xvfb: the time axis follows the document's
 * visible range, tooltips read the values under the pointer, dragging
 * selects through the document and a click clears, and a scrolled chart
 * maps rows through its adjustment.  Rows of extreme times and values
 * (what hostile captures hold) read and draw without overflow.
 *
 * And SysprofTimeAxis, which the chart, the timeline and the marks
 * waterfall share: its mapping and ticks at the ends of the gint64 range,
 * where they once overflowed or never ended, and its drag.
 *
 *   test-chart CAPTURE
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app-test-util.h"
#include "sysprof-chart.h"
#include "sysprof-time-axis.h"

static SysprofDocument *document;
static gint64           duration;

typedef struct
{
  GtkWidget *window;
  GtkWidget *scroller;
  GtkWidget *chart;
} Fixture;

#define WIDTH  (SYSPROF_CHART_GUTTER + 1000)
#define HEIGHT 400

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  sysprof_document_set_visible_range (document, 0, duration);
  sysprof_document_set_selection (document, G_MININT64, G_MAXINT64);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), WIDTH, HEIGHT);
  f->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (f->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  f->chart = sysprof_chart_new (document);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (f->scroller), f->chart);
  gtk_window_set_child (GTK_WINDOW (f->window), f->scroller);
}

static void
fixture_show (Fixture *f)
{
  gtk_window_present (GTK_WINDOW (f->window));
  app_test_settle ();
  g_assert_cmpint (gtk_widget_get_width (f->chart), ==, WIDTH);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  (void) data;
  gtk_window_destroy (GTK_WINDOW (f->window));
  sysprof_document_set_visible_range (document, 0, duration);
  sysprof_document_set_selection (document, G_MININT64, G_MAXINT64);
}

/* The x of @time as the chart (and the timeline) maps it. */
static double
x_of (gint64 time)
{
  gint64 begin, end;

  sysprof_document_get_visible_range (document, &begin, &end);
  return SYSPROF_CHART_GUTTER + 1000.0 * (double) (time - begin) / (double) (end - begin);
}

static GtkGesture *
find_drag (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);
  GtkGesture *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_DRAG (controller))
        found = GTK_GESTURE (controller);
    }
  g_assert_nonnull (found);
  return found;
}

static void
test_time_axis (Fixture *f, gconstpointer data)
{
  SysprofChart *chart = SYSPROF_CHART (f->chart);

  (void) data;
  fixture_show (f);
  g_assert_cmpint (sysprof_chart_get_time_at_x (chart, SYSPROF_CHART_GUTTER), ==, 0);
  g_assert_cmpint (sysprof_chart_get_time_at_x (chart, WIDTH), ==, duration);
  /* The gutter is not on the axis: it clamps to the range's start. */
  g_assert_cmpint (sysprof_chart_get_time_at_x (chart, 10), ==, 0);

  sysprof_document_set_visible_range (document, duration / 4, duration / 2);
  g_assert_cmpint (sysprof_chart_get_time_at_x (chart, SYSPROF_CHART_GUTTER), ==, duration / 4);
  g_assert_cmpint (sysprof_chart_get_time_at_x (chart, WIDTH), ==, duration / 2);
  g_assert_cmpint (sysprof_chart_get_time_at_x (chart, SYSPROF_CHART_GUTTER + 500), ==,
                   duration / 4 + llround ((duration / 2 - duration / 4) * 0.5));
}

static void
test_line_tooltip (Fixture *f, gconstpointer data)
{
  SysprofChart                          *chart = SYSPROF_CHART (f->chart);
  guint                                  n = 1000000;
  g_autofree SysprofSummaryCounterValue *points = g_new (SysprofSummaryCounterValue, n);
  g_autofree char                       *text = NULL;
  g_autofree char                       *gutter = NULL;
  guint                                  row;

  (void) data;
  /* A million points, in reverse order (the chart sorts a copy), valued
   * by their index. */
  for (guint i = 0; i < n; i++)
    {
      points[n - 1 - i].time_ns = (gint64) i * (duration / n);
      points[n - 1 - i].value = i;
    }
  row = sysprof_chart_add_line (chart, "Line", points, n, 0, n, TRUE);
  sysprof_chart_set_row_description (chart, row, "what the line is");
  sysprof_chart_set_row_unit (chart, row, "things");
  g_assert_cmpuint (row, ==, 0);
  g_assert_cmpuint (sysprof_chart_get_n_rows (chart), ==, 1);
  fixture_show (f);

  /* Pointing at the time of point 500000: its value, not a neighbour's. */
  {
    gint64           t = (gint64) 500000 * (duration / n);
    double           x = x_of (t);
    gint64           at = sysprof_chart_get_time_at_x (chart, x);
    guint            expected = (guint) (at / (duration / n));
    g_autofree char *want = g_strdup_printf (": %u things", MIN (expected, n - 1));

    text = sysprof_chart_describe_point (chart, x, 10);
    g_assert_nonnull (text);
    g_assert_true (g_str_has_prefix (text, "Line\nwhat the line is\n"));
    g_assert_true (g_str_has_suffix (text, want));
  }

  /* In the gutter: only what the row is; below the rows: nothing. */
  gutter = sysprof_chart_describe_point (chart, 20, 10);
  g_assert_cmpstr (gutter, ==, "Line\nwhat the line is");
  g_assert_null (sysprof_chart_describe_point (chart, 500, 100));
}

static void
test_ticks_and_spans (Fixture *f, gconstpointer data)
{
  SysprofChart    *chart = SYSPROF_CHART (f->chart);
  gint64           per_pixel = duration / 1000;
  gint64           times[7];
  gint64           begins[2] = { duration / 10, duration / 2 };
  gint64           ends[2] = { duration / 5, duration / 2 };
  g_autofree char *busy = NULL;
  g_autofree char *empty = NULL;
  g_autofree char *span = NULL;
  g_autofree char *instant = NULL;
  g_autofree char *nothing = NULL;
  guint            ticks, spans;

  (void) data;
  /* Five ticks inside pixel column 100, two far away. */
  for (guint i = 0; i < 5; i++)
    times[i] = 100 * per_pixel + per_pixel / 4 + (gint64) i;
  times[5] = 900 * per_pixel;
  times[6] = 10;
  ticks = sysprof_chart_add_ticks (chart, "Ticks", times, G_N_ELEMENTS (times));
  sysprof_chart_set_row_unit (chart, ticks, "samples");
  spans = sysprof_chart_add_spans (chart, "Spans", begins, ends, 2);
  g_assert_cmpuint (spans, ==, 1);
  sysprof_chart_set_row_height (chart, 20);
  fixture_show (f);

  g_assert_cmpint (sysprof_chart_get_row_at_y (chart, 5), ==, 0);
  g_assert_cmpint (sysprof_chart_get_row_at_y (chart, 25), ==, 1);
  g_assert_cmpint (sysprof_chart_get_row_at_y (chart, 45), ==, -1);
  g_assert_cmpstr (sysprof_chart_get_row_label (chart, 1), ==, "Spans");

  busy = sysprof_chart_describe_point (chart, SYSPROF_CHART_GUTTER + 100.5, 5);
  g_assert_nonnull (strstr (busy, ": 5 samples in "));
  empty = sysprof_chart_describe_point (chart, SYSPROF_CHART_GUTTER + 500.5, 5);
  g_assert_nonnull (strstr (empty, ": 0 samples in "));

  span = sysprof_chart_describe_point (chart, x_of (duration * 3 / 20), 25);
  g_assert_true (g_str_has_prefix (span, "Spans\n"));
  g_assert_nonnull (strstr (span, " to "));
  /* A zero-length span can still be pointed at. */
  instant = sysprof_chart_describe_point (chart, x_of (duration / 2), 25);
  g_assert_nonnull (strstr (instant, " to "));
  nothing = sysprof_chart_describe_point (chart, x_of (duration * 4 / 5), 25);
  g_assert_true (g_str_has_suffix (nothing, ": none"));

  sysprof_chart_clear (chart);
  g_assert_cmpuint (sysprof_chart_get_n_rows (chart), ==, 0);
}

static void
test_drag_selects (Fixture *f, gconstpointer data)
{
  SysprofChart *chart = SYSPROF_CHART (f->chart);
  GtkGesture   *drag;
  gint64        begin, end;

  (void) data;
  sysprof_chart_add_ticks (chart, "Row", NULL, 0);
  fixture_show (f);
  drag = find_drag (f->chart);

  /* Right to left, as a drag may go. */
  g_signal_emit_by_name (drag, "drag-begin", (double) SYSPROF_CHART_GUTTER + 600, 5.0);
  g_signal_emit_by_name (drag, "drag-update", -400.0, 0.0);
  g_assert_false (sysprof_document_has_selection (document));
  g_signal_emit_by_name (drag, "drag-end", -400.0, 0.0);
  sysprof_document_get_selection (document, &begin, &end);
  g_assert_cmpint (begin, ==, sysprof_chart_get_time_at_x (chart, SYSPROF_CHART_GUTTER + 200));
  g_assert_cmpint (end, ==, sysprof_chart_get_time_at_x (chart, SYSPROF_CHART_GUTTER + 600));

  /* A drag past the right edge stops at the end of the visible range. */
  g_signal_emit_by_name (drag, "drag-begin", (double) SYSPROF_CHART_GUTTER + 900, 5.0);
  g_signal_emit_by_name (drag, "drag-update", 5000.0, 0.0);
  g_signal_emit_by_name (drag, "drag-end", 5000.0, 0.0);
  sysprof_document_get_selection (document, &begin, &end);
  g_assert_cmpint (end, ==, duration);

  /* A click clears. */
  g_signal_emit_by_name (drag, "drag-begin", (double) SYSPROF_CHART_GUTTER + 300, 5.0);
  g_signal_emit_by_name (drag, "drag-update", 1.0, 0.0);
  g_signal_emit_by_name (drag, "drag-end", 1.0, 0.0);
  g_assert_false (sysprof_document_has_selection (document));

  /* The labels are not on the time axis. */
  g_signal_emit_by_name (drag, "drag-begin", 50.0, 5.0);
  g_signal_emit_by_name (drag, "drag-update", 400.0, 0.0);
  g_signal_emit_by_name (drag, "drag-end", 400.0, 0.0);
  g_assert_false (sysprof_document_has_selection (document));
}

static void
test_scrolled (Fixture *f, gconstpointer data)
{
  SysprofChart  *chart = SYSPROF_CHART (f->chart);
  GtkAdjustment *vadjustment;
  gint64         begin = duration / 3;
  gint64         end = duration / 2;

  (void) data;
  for (guint i = 0; i < 3000; i++)
    {
      g_autofree char *label = g_strdup_printf ("Process %u", i);

      sysprof_chart_add_spans (chart, label, &begin, &end, 1);
    }
  fixture_show (f);

  /* The chart scrolls itself: the window did not grow to 3000 rows. */
  g_assert_cmpint (gtk_widget_get_height (f->chart), <=, HEIGHT);
  vadjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (f->scroller));
  g_assert_cmpfloat (gtk_adjustment_get_upper (vadjustment), ==, 3000 * 32);
  g_assert_cmpfloat (gtk_adjustment_get_page_size (vadjustment), ==, gtk_widget_get_height (f->chart));

  gtk_adjustment_set_value (vadjustment, 32 * 2000 + 16);
  g_assert_cmpint (sysprof_chart_get_row_at_y (chart, 0), ==, 2000);
  g_assert_cmpint (sysprof_chart_get_row_at_y (chart, 20), ==, 2001);
  {
    g_autofree char *text = sysprof_chart_describe_point (chart, x_of (duration * 2 / 5), 20);

    g_assert_true (g_str_has_prefix (text, "Process 2001\n"));
  }
  gtk_adjustment_set_value (vadjustment, 1e9);
  app_test_settle ();
  g_assert_cmpint (sysprof_chart_get_row_at_y (chart, gtk_widget_get_height (f->chart) - 1), ==, 2999);
}

/* Rows of what hostile captures hold: times at both ends of a gint64,
 * spans across all of it, NaN, infinities and 1e300. */
static void
test_extreme_rows (Fixture *f, gconstpointer data)
{
  SysprofChart *chart = SYSPROF_CHART (f->chart);
  const gint64  times[] = { G_MININT64, G_MININT64 + 1, 0, duration / 2, G_MAXINT64 - 1, G_MAXINT64 };
  const gint64  begins[] = { G_MININT64, duration / 2 };
  const gint64  ends[] = { G_MAXINT64, duration / 2 };
  const SysprofSummaryCounterValue points[] = {
    { G_MININT64, 1e300 }, { 0, NAN }, { duration / 4, 1e300 }, { duration / 2, -INFINITY }, { G_MAXINT64, 5 },
  };
  const SysprofSummaryCounterValue nans[] = { { 0, NAN }, { duration, NAN } };
  g_autofree char                 *span = NULL;
  g_autofree char                 *huge = NULL;
  g_autofree char                 *nan = NULL;
  g_autofree char                 *heading = NULL;
  guint                            row;

  (void) data;
  g_assert_cmpuint (sysprof_chart_add_heading (chart, "Extremes"), ==, 0);
  sysprof_chart_add_ticks (chart, "Ticks", times, G_N_ELEMENTS (times));
  sysprof_chart_add_spans (chart, "Spans", begins, ends, G_N_ELEMENTS (begins));
  row = sysprof_chart_add_line (chart, "Bytes", points, G_N_ELEMENTS (points), -INFINITY, NAN, TRUE);
  sysprof_chart_set_row_value_format (chart, row, SYSPROF_CHART_VALUE_BYTES);
  sysprof_chart_add_line (chart, "NaN", nans, G_N_ELEMENTS (nans), NAN, NAN, FALSE);
  sysprof_chart_set_row_height (chart, 20);
  fixture_show (f);

  /* A heading is only its title. */
  heading = sysprof_chart_describe_point (chart, x_of (duration / 2), 5);
  g_assert_cmpstr (heading, ==, "Extremes");
  /* The span of the whole gint64: its length saturates, it does not wrap
   * around to -1 ns. */
  span = sysprof_chart_describe_point (chart, x_of (duration / 4), 45);
  g_assert_true (g_str_has_suffix (span, "(9223372036.855 s)"));
  /* 1e300 bytes: as many as a guint64 holds (18.4 EB, a no-break space
   * before the unit), not an undefined cast. */
  huge = sysprof_chart_describe_point (chart, x_of (duration / 4 + duration / 100), 65);
  g_assert_nonnull (strstr (huge, ": 18.4"));
  g_assert_true (g_str_has_suffix (huge, "EB"));
  nan = sysprof_chart_describe_point (chart, x_of (duration / 2), 85);
  g_assert_true (g_str_has_suffix (nan, ": not a number"));
  for (int x = 0; x <= WIDTH; x += 7)
    for (int y = 0; y < 100; y += 10)
      g_free (sysprof_chart_describe_point (chart, x, y));

  /* Drawn at every zoom, down to the last microsecond. */
  sysprof_document_set_visible_range (document, duration - 1000, duration);
  app_test_settle ();
  sysprof_document_set_visible_range (document, G_MININT64, G_MAXINT64);
  app_test_settle ();
  sysprof_document_set_selection (document, G_MININT64 + 1, G_MAXINT64 - 1);
  app_test_settle ();
}

/* ------------------------------------------------------------------------ */
/* SysprofTimeAxis */

static void
test_axis_arithmetic (void)
{
  g_assert_cmpint (sysprof_time_add (G_MAXINT64, 1), ==, G_MAXINT64);
  g_assert_cmpint (sysprof_time_add (G_MININT64, -1), ==, G_MININT64);
  g_assert_cmpint (sysprof_time_add (G_MAXINT64, G_MININT64), ==, -1);
  g_assert_cmpint (sysprof_time_sub (G_MININT64, 1), ==, G_MININT64);
  g_assert_cmpint (sysprof_time_sub (G_MAXINT64, G_MININT64), ==, G_MAXINT64);
  g_assert_cmpint (sysprof_time_sub (0, G_MININT64), ==, G_MAXINT64);
  g_assert_cmpint (sysprof_time_sub (5, 7), ==, -2);
  g_assert_cmpfloat (sysprof_time_diff (G_MAXINT64, G_MININT64), ==, 18446744073709551615.0);
  g_assert_cmpfloat (sysprof_time_diff (G_MININT64, G_MAXINT64), ==, -18446744073709551615.0);
  g_assert_cmpfloat (sysprof_time_diff (7, 5), ==, 2);
  g_assert_cmpint (sysprof_time_from_double (NAN), ==, 0);
  g_assert_cmpint (sysprof_time_from_double (INFINITY), ==, G_MAXINT64);
  g_assert_cmpint (sysprof_time_from_double (-1e300), ==, G_MININT64);
  g_assert_cmpint (sysprof_time_from_double (9223372036854775808.0), ==, G_MAXINT64);
  g_assert_cmpint (sysprof_time_from_double (-9223372036854775808.0), ==, G_MININT64);
  g_assert_cmpint (sysprof_time_from_double (-2.5), ==, -3);
  g_assert_cmpint (sysprof_time_from_double (1e15 + 0.4), ==, 1000000000000000);
}

static void
test_axis_mapping (void)
{
  const struct
  {
    gint64 begin, end;
  } ranges[] = {
    { G_MININT64, G_MAXINT64 },       { G_MAXINT64 - 1000, G_MAXINT64 }, { G_MININT64, G_MININT64 + 1000 }, { 0, 1 },
    { 1000000000000, 1000001000000 },
  };
  SysprofTimeAxis axis;
  double          x1, x2;

  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      gint64 begin = ranges[r].begin;
      gint64 end = ranges[r].end;
      double ns_per_pixel;

      sysprof_time_axis_init (&axis, begin, end, 160, 1000);
      ns_per_pixel = sysprof_time_axis_ns_per_pixel (&axis);
      g_assert_cmpint (sysprof_time_axis_time_at_x (&axis, 160), ==, begin);
      g_assert_cmpint (sysprof_time_axis_time_at_x (&axis, 1160), ==, end);
      /* Outside the plot, and NaN: clamped. */
      g_assert_cmpint (sysprof_time_axis_time_at_x (&axis, -1e300), ==, begin);
      g_assert_cmpint (sysprof_time_axis_time_at_x (&axis, INFINITY), ==, end);
      g_assert_cmpint (sysprof_time_axis_time_at_x (&axis, NAN), ==, begin);
      g_assert_cmpfloat (sysprof_time_axis_x_of_time (&axis, begin), ==, 160);
      g_assert_cmpfloat (sysprof_time_axis_x_of_time (&axis, end), ==, 1160);
      /* Times far outside map far outside, finite. */
      g_assert_true (isfinite (sysprof_time_axis_x_of_time (&axis, G_MININT64)));
      g_assert_true (isfinite (sysprof_time_axis_x_of_time (&axis, G_MAXINT64)));
      g_assert_cmpfloat (sysprof_time_axis_x_of_time (&axis, G_MININT64), <=, 160);
      g_assert_cmpfloat (sysprof_time_axis_x_of_time (&axis, G_MAXINT64), >=, 1160);
      /* There and back, to within a pixel (or a nanosecond, when it is
       * wider). */
      for (double x = 160; x <= 1160; x += 12.5)
        {
          gint64 t = sysprof_time_axis_time_at_x (&axis, x);

          g_assert_cmpint (t, >=, begin);
          g_assert_cmpint (t, <=, end);
          g_assert_cmpfloat (fabs (sysprof_time_axis_x_of_time (&axis, t) - x), <=, MAX (1.0, 1.0 / ns_per_pixel));
          g_assert_cmpfloat (fabs (sysprof_time_diff (sysprof_time_axis_time_at_x (&axis, x), t)), <=,
                             MAX (ns_per_pixel, 1));
        }
      /* Ranges clamp to the plot, and are at least a pixel wide. */
      g_assert_true (sysprof_time_axis_range_x (&axis, G_MININT64, G_MAXINT64, &x1, &x2));
      g_assert_cmpfloat (x1, ==, 160);
      g_assert_cmpfloat (x2, ==, 1160);
      g_assert_true (sysprof_time_axis_range_x (&axis, begin, begin, &x1, &x2));
      g_assert_cmpfloat (x2 - x1, ==, 1);
    }

  /* The middle of everything is 0, give or take a pixel's time. */
  sysprof_time_axis_init (&axis, G_MININT64, G_MAXINT64, 0, 1000);
  g_assert_cmpint (llabs (sysprof_time_axis_time_at_x (&axis, 500)), <=, G_MAXINT64 / 500);
  g_assert_false (sysprof_time_axis_range_x (&axis, G_MININT64, G_MININT64, &x1, &x2) &&
                  sysprof_time_axis_range_x (&axis, G_MAXINT64, G_MININT64, &x1, &x2));

  /* Empty ranges and widths become the smallest there is. */
  sysprof_time_axis_init (&axis, G_MAXINT64, G_MAXINT64, 0, 0);
  g_assert_cmpint (axis.begin, ==, G_MAXINT64 - 1);
  g_assert_cmpint (axis.end, ==, G_MAXINT64);
  g_assert_cmpfloat (axis.width, ==, 1);
  sysprof_time_axis_init (&axis, 10, 5, 0, NAN);
  g_assert_cmpint (axis.begin, ==, 10);
  g_assert_cmpint (axis.end, ==, 11);
  g_assert_cmpfloat (axis.width, ==, 1);
  g_assert_false (sysprof_time_axis_range_x (&axis, 0, 9, &x1, &x2));
  g_assert_false (sysprof_time_axis_range_x (&axis, 12, 20, &x1, &x2));
}

static void
test_axis_ticks (void)
{
  const struct
  {
    gint64 begin, end;
    double width;
  } ranges[] = {
    /* Where a double loop of t += step never advanced. */
    { G_MAXINT64 - 1000, G_MAXINT64, 1000 },
    { G_MAXINT64 - 5000, G_MAXINT64, 1240 },
    { (G_GINT64_CONSTANT (1) << 61) - 1000, G_GINT64_CONSTANT (1) << 61, 1240 },
    { G_MININT64, G_MININT64 + 1000, 1000 },
    { G_MININT64, G_MAXINT64, 1000 },
    { G_MININT64, G_MAXINT64, 1 },
    { G_MININT64, G_MAXINT64, 1e6 },
    { 0, 1, 1e6 },
    { -7, 3, 1000 },
  };
  gint64           ticks[64];
  gint64           step;
  guint            n;
  SysprofTimeAxis  axis;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autofree char *d = NULL;
  g_autofree char *e = NULL;
  g_autofree char *f = NULL;

  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      guint              max = SYSPROF_TIME_AXIS_MAX_TICKS (ranges[r].width);
      g_autofree gint64 *all = g_new (gint64, max);

      sysprof_time_axis_init (&axis, ranges[r].begin, ranges[r].end, 0, ranges[r].width);
      step = sysprof_time_axis_tick_step (&axis, 100);
      g_assert_cmpint (step, >=, 1);
      g_assert_cmpint (step, <=, G_GINT64_CONSTANT (5000000000000000000));
      n = sysprof_time_axis_ticks (&axis, step, all, max);
      g_assert_cmpuint (n, <=, max);
      g_assert_cmpuint (n, <=, ranges[r].width / 40 + 2);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpint (all[i], >=, axis.begin);
          g_assert_cmpint (all[i], <=, axis.end);
          g_assert_cmpint (all[i] % step, ==, 0);
          if (i > 0)
            g_assert_cmpint (sysprof_time_sub (all[i], all[i - 1]), ==, step);
        }
      /* About every 100 pixels: a range of more than two steps has ticks. */
      if (sysprof_time_diff (axis.end, axis.begin) >= 2.0 * (double) step)
        g_assert_cmpuint (n, >=, 2);
    }

  /* Exactly: one second over 1000 pixels, a tick every 100 ms. */
  sysprof_time_axis_init (&axis, 0, 1000000000, 160, 1000);
  step = sysprof_time_axis_tick_step (&axis, 100);
  g_assert_cmpint (step, ==, 100000000);
  g_assert_cmpuint (sysprof_time_axis_ticks (&axis, step, ticks, G_N_ELEMENTS (ticks)), ==, 11);
  g_assert_cmpint (ticks[10], ==, 1000000000);
  /* 1.5 s over 1000 pixels: 150 ms a step is 200 ms, from the first
   * multiple after the start. */
  sysprof_time_axis_init (&axis, 250000001, 1750000001, 160, 1000);
  step = sysprof_time_axis_tick_step (&axis, 100);
  g_assert_cmpint (step, ==, 200000000);
  n = sysprof_time_axis_ticks (&axis, step, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 7);
  g_assert_cmpint (ticks[0], ==, 400000000);
  g_assert_cmpint (ticks[6], ==, 1600000000);
  /* Below zero, the first multiple is the ceiling too. */
  sysprof_time_axis_init (&axis, -250, 250, 0, 1000);
  step = sysprof_time_axis_tick_step (&axis, 100);
  g_assert_cmpint (step, ==, 50);
  n = sysprof_time_axis_ticks (&axis, step, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 11);
  g_assert_cmpint (ticks[0], ==, -250);
  /* At most @max_ticks. */
  g_assert_cmpuint (sysprof_time_axis_ticks (&axis, 1, ticks, 3), ==, 3);
  g_assert_cmpint (ticks[2], ==, -248);

  a = sysprof_time_axis_format_tick (1500000000, 500000000);
  g_assert_cmpstr (a, ==, "1.5 s");
  b = sysprof_time_axis_format_tick (-500000000, 100000000);
  g_assert_cmpstr (b, ==, "-0.5 s");
  c = sysprof_time_axis_format_tick (2000000000, 1000000000);
  g_assert_cmpstr (c, ==, "2 s");
  d = sysprof_time_axis_format_tick (G_MININT64, 1);
  g_assert_cmpstr (d, ==, "-9223372036.854775808 s");
  e = sysprof_time_axis_format_tick (G_MAXINT64 - 7, 100);
  g_assert_cmpstr (e, ==, "9223372036.8547758 s");
  f = sysprof_time_axis_format_tick (1520000000, 20000000);
  g_assert_cmpstr (f, ==, "1.52 s");
}

static void
test_axis_drag (void)
{
  SysprofTimeAxis axis;
  SysprofTimeDrag drag = { 0 };
  double          x1, x2;
  gint64          begin, end;

  sysprof_time_axis_init (&axis, 0, duration, 160, 1000);
  sysprof_document_set_selection (document, G_MININT64, G_MAXINT64);

  /* Right to left, past the plot's left edge: from its start. */
  sysprof_time_drag_begin (&drag, 600, 160);
  g_assert_false (sysprof_time_drag_get_range (&drag, &x1, &x2));
  sysprof_time_drag_update (&drag, -1000, 160, 1160);
  g_assert_true (sysprof_time_drag_get_range (&drag, &x1, &x2));
  g_assert_cmpfloat (x1, ==, 160);
  g_assert_cmpfloat (x2, ==, 600);
  g_assert_true (sysprof_time_drag_end (&drag, -1000, &axis, document));
  g_assert_false (sysprof_time_drag_get_range (&drag, &x1, &x2));
  sysprof_document_get_selection (document, &begin, &end);
  g_assert_cmpint (begin, ==, 0);
  g_assert_cmpint (end, ==, sysprof_time_axis_time_at_x (&axis, 600));

  /* A press before the plot starts at its edge; a click is no drag. */
  sysprof_time_drag_begin (&drag, 20, 160);
  g_assert_cmpfloat (drag.start_x, ==, 160);
  sysprof_time_drag_update (&drag, 2, 160, 1160);
  g_assert_false (sysprof_time_drag_end (&drag, 2, &axis, document));
  sysprof_document_get_selection (document, &begin, &end);
  g_assert_cmpint (begin, ==, 0);

  /* Dragged back to where it started: an empty range clears. */
  sysprof_time_drag_begin (&drag, 500, 160);
  sysprof_time_drag_update (&drag, 50, 160, 1160);
  sysprof_time_drag_update (&drag, 0, 160, 1160);
  g_assert_true (sysprof_time_drag_end (&drag, 0, &axis, document));
  g_assert_false (sysprof_document_has_selection (document));

  /* Cancelled: nothing to shade. */
  sysprof_time_drag_begin (&drag, 500, 160);
  sysprof_time_drag_update (&drag, 50, 160, 1160);
  sysprof_time_drag_cancel (&drag);
  g_assert_false (sysprof_time_drag_get_range (&drag, &x1, &x2));
}

static gboolean
loaded (gpointer data)
{
  return *(gboolean *) data;
}

static void
load_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (sysprof_document_load_finish (SYSPROF_DOCUMENT (source), result, &error));
  g_assert_no_error (error);
  *(gboolean *) data = TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GFile) file = NULL;
  gboolean done = FALSE;
  int      status;

  g_test_init (&argc, &argv, NULL);
  if (argc != 2)
    {
      fprintf (stderr, "usage: test-chart CAPTURE\n");
      return 2;
    }
  if (!app_test_init ())
    return 77;

  file = g_file_new_for_commandline_arg (argv[1]);
  document = sysprof_document_new (file);
  sysprof_document_load_async (document, NULL, load_done, &done);
  g_assert_true (app_test_wait_for (loaded, &done, 60));
  duration = sysprof_document_get_duration (document);
  g_assert_cmpint (duration, >, 1000000);

  g_test_add ("/App/Chart/time-axis", Fixture, NULL, fixture_set_up, test_time_axis, fixture_tear_down);
  g_test_add ("/App/Chart/line-tooltip", Fixture, NULL, fixture_set_up, test_line_tooltip, fixture_tear_down);
  g_test_add ("/App/Chart/ticks-and-spans", Fixture, NULL, fixture_set_up, test_ticks_and_spans, fixture_tear_down);
  g_test_add ("/App/Chart/drag-selects", Fixture, NULL, fixture_set_up, test_drag_selects, fixture_tear_down);
  g_test_add ("/App/Chart/scrolled", Fixture, NULL, fixture_set_up, test_scrolled, fixture_tear_down);
  g_test_add ("/App/Chart/extreme-rows", Fixture, NULL, fixture_set_up, test_extreme_rows, fixture_tear_down);
  g_test_add_func ("/App/TimeAxis/arithmetic", test_axis_arithmetic);
  g_test_add_func ("/App/TimeAxis/mapping", test_axis_mapping);
  g_test_add_func ("/App/TimeAxis/ticks", test_axis_ticks);
  g_test_add_func ("/App/TimeAxis/drag", test_axis_drag);
  status = g_test_run ();
  g_clear_object (&document);
  return status;
}
