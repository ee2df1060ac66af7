// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofChart on a real document (a capture given on the command line),
 * in a real window under Xvfb: the time axis follows the document's
 * visible range, tooltips read the values under the pointer, dragging
 * selects through the document and a click clears, and a scrolled chart
 * maps rows through its adjustment.
 *
 *   test-chart CAPTURE
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app-test-util.h"
#include "sysprof-chart.h"

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
  SysprofChart                           *chart = SYSPROF_CHART (f->chart);
  guint                                   n = 1000000;
  g_autofree SysprofDocumentCounterValue *points = g_new (SysprofDocumentCounterValue, n);
  g_autofree char                        *text = NULL;
  g_autofree char                        *gutter = NULL;
  guint                                   row;

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
  status = g_test_run ();
  g_clear_object (&document);
  return status;
}
