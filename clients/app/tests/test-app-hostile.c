// SPDX-License-Identifier: GPL-3.0-or-later
/* The app's views on hostile and huge captures, written here with
 * sysprof_capture_writer: times at G_MININT64 and G_MAXINT64, marks of
 * G_MAXINT64 nanoseconds, counters of NaN, infinities and 1e300, a header
 * whose start is G_MAXINT64, thousands of metadata entries, counter
 * categories and kinds of marks.
 *
 * Every view is shown and drawn, zoomed out, zoomed into the last
 * microsecond (where the ruler's ticks once never ended), panned, selected
 * by drags and clicks, and asked for tooltips.  Run under UBSan
 * (halt_on_error) it fails on any overflow; anywhere, on a hang (meson's
 * timeout), a crash, or views that make a widget per entry of a huge
 * capture or print wrapped-around times.
 *
 *   test-app-hostile
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "app-test-util.h"
#include "sysprof-chart.h"
#include "sysprof-view.h"

#define MS G_GINT64_CONSTANT (1000000)
#define T0 G_GINT64_CONSTANT (1000000000000)

static char *work_dir;

static SysprofCaptureAddress addresses[4] = { 0x1000, 0x2000, 0x3000, 0x4000 };

/* ------------------------------------------------------------------------ */
/* Captures */

static SysprofCaptureWriter *
writer_new (const char *name, char **path)
{
  SysprofCaptureWriter *writer;

  *path = g_build_filename (work_dir, name, NULL);
  writer = sysprof_capture_writer_new (*path, 0);
  g_assert_nonnull (writer);
  return writer;
}

static void
writer_finish (SysprofCaptureWriter *writer)
{
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
}

static void
add_samples (SysprofCaptureWriter *writer, guint n)
{
  g_assert_true (sysprof_capture_writer_add_process (writer, T0, 0, 100, "/usr/bin/hostile --arg"));
  for (guint i = 0; i < n; i++)
    g_assert_true (sysprof_capture_writer_add_sample (writer, T0 + i * MS, i % 4, 100, 100, addresses, 4));
}

/* Counters in @n_categories categories; @special: their values are NaN,
 * infinities and +-1e300 among normal ones. */
static void
add_counters (SysprofCaptureWriter *writer, guint n_counters, guint n_categories, gboolean special)
{
  static const double                    specials[] = { NAN, INFINITY, -INFINITY, 1e300, -1e300, 5.0 };
  g_autofree SysprofCaptureCounter      *counters = g_new0 (SysprofCaptureCounter, n_counters);
  g_autofree unsigned int               *ids = g_new0 (unsigned int, n_counters);
  g_autofree SysprofCaptureCounterValue *values = g_new0 (SysprofCaptureCounterValue, n_counters);
  unsigned int                           first = sysprof_capture_writer_request_counter (writer, n_counters);

  for (guint i = 0; i < n_counters; i++)
    {
      g_snprintf (counters[i].category, sizeof counters[i].category, "Category %u", i % n_categories);
      g_snprintf (counters[i].name, sizeof counters[i].name, "Counter %u", i);
      g_snprintf (counters[i].description, sizeof counters[i].description, "bytes of something");
      counters[i].id = first + i;
      counters[i].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
      ids[i] = first + i;
    }
  g_assert_true (sysprof_capture_writer_define_counters (writer, T0, 0, 1, counters, n_counters));
  for (guint k = 0; k < 6; k++)
    {
      for (guint i = 0; i < n_counters; i++)
        values[i].vdbl = special ? specials[(i + k) % G_N_ELEMENTS (specials)] : i + k;
      g_assert_true (sysprof_capture_writer_set_counters (writer, T0 + k * 100 * MS, 0, 1, ids, values, n_counters));
    }
  /* And one value at the beginning of time. */
  values[0].vdbl = 3;
  g_assert_true (sysprof_capture_writer_set_counters (writer, G_MININT64, 0, 1, ids, values, 1));
}

/* Frames at both ends of time, marks whose durations overflow when added,
 * special counter values, and many metadata entries. */
static char *
write_extremes (void)
{
  g_autofree char      *path = NULL;
  SysprofCaptureWriter *writer = writer_new ("extremes.syscap", &path);

  add_samples (writer, 100);
  g_assert_true (sysprof_capture_writer_add_sample (writer, G_MININT64, 0, 100, 100, addresses, 4));
  g_assert_true (sysprof_capture_writer_add_sample (writer, G_MAXINT64, 0, 100, 100, addresses, 4));
  g_assert_true (sysprof_capture_writer_add_process (writer, G_MININT64, 0, 200, "/bin/early"));
  g_assert_true (sysprof_capture_writer_add_exit (writer, T0 + 50 * MS, 0, 200));
  g_assert_true (sysprof_capture_writer_add_mark (writer, G_MININT64, 0, 100, 10 * MS, "g", "early", "early"));
  /* Five: even clamped to 2^61 ns, their total is past G_MAXINT64. */
  for (guint i = 0; i < 5; i++)
    g_assert_true (sysprof_capture_writer_add_mark (writer, T0 + i * MS, 0, 100, G_MAXINT64, "g", "huge", "huge"));
  g_assert_true (sysprof_capture_writer_add_mark (writer, T0 + 2 * MS, 0, 100, 5 * MS, "g", "small", "small"));
  g_assert_true (sysprof_capture_writer_add_log (writer, G_MININT64, 0, 100, 1 << 4, "d", "early log"));
  g_assert_true (sysprof_capture_writer_add_log (writer, G_MAXINT64, 0, 100, 1 << 4, "d", "late log"));
  /* D-Bus messages at both ends of time, one too large to keep, and bytes
   * that say they are a call but are no message. */
  {
    static const guint8 fake_call[] = "l\001\000\001";
    g_autofree guint8  *big = g_malloc0 (SYSPROF_CAPTURE_DBUS_MESSAGE_MAX + 1);

    g_assert_true (sysprof_capture_writer_add_dbus_message (writer, G_MININT64, -1, 100, 1, 0, fake_call, 2));
    g_assert_true (sysprof_capture_writer_add_dbus_message (writer, G_MAXINT64, -1, 100, 3, 0, fake_call, 4));
    g_assert_true (sysprof_capture_writer_add_dbus_message (writer, T0 + MS, -1, 100, 0, 0, big,
                                                            SYSPROF_CAPTURE_DBUS_MESSAGE_MAX + 1));
    g_assert_true (sysprof_capture_writer_add_dbus_message (writer, T0 + 2 * MS, -1, 100, 2, 0, fake_call, 0));
  }
  add_counters (writer, 12, 2, TRUE);
  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *id = g_strdup_printf ("key-%u", i);

      g_assert_true (sysprof_capture_writer_add_metadata (writer, T0, 0, 100, id, "value", -1));
    }
  g_assert_true (sysprof_capture_writer_set_time_range (writer, T0, T0 + 1000 * MS));
  writer_finish (writer);
  return g_steal_pointer (&path);
}

/* The header says the capture started at G_MAXINT64. */
static char *
write_late_start (void)
{
  g_autofree char      *path = NULL;
  SysprofCaptureWriter *writer = writer_new ("late-start.syscap", &path);

  add_samples (writer, 100);
  g_assert_true (sysprof_capture_writer_add_mark (writer, T0, 0, 100, 5 * MS, "g", "n", "m"));
  g_assert_true (sysprof_capture_writer_set_time_range (writer, G_MAXINT64, G_MAXINT64));
  writer_finish (writer);
  return g_steal_pointer (&path);
}

/* Many counter categories and many kinds of marks. */
static char *
write_many (void)
{
  g_autofree char      *path = NULL;
  SysprofCaptureWriter *writer = writer_new ("many.syscap", &path);

  add_samples (writer, 10);
  add_counters (writer, 3000, 1500, FALSE);
  for (guint i = 0; i < 5000; i++)
    {
      g_autofree char *name = g_strdup_printf ("mark-%u", i);

      g_assert_true (sysprof_capture_writer_add_mark (writer, T0 + i * MS / 10, 0, 100, MS, "group", name, ""));
    }
  g_assert_true (sysprof_capture_writer_set_time_range (writer, T0, T0 + 1000 * MS));
  writer_finish (writer);
  return g_steal_pointer (&path);
}

/* ------------------------------------------------------------------------ */
/* Looking into the window */

static void
find_all (GtkWidget *root, GType type, GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    find_all (child, type, found);
}

static GtkWidget *
find_first (GtkWidget *root, GType type)
{
  g_autoptr (GPtrArray) found = g_ptr_array_new ();

  find_all (root, type, found);
  return found->len > 0 ? g_ptr_array_index (found, 0) : NULL;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (void) widget;
  (void) clock;
  ++*(guint *) data;
  return G_SOURCE_CONTINUE;
}

static gboolean
two_frames (gpointer data)
{
  return *(guint *) data >= 2;
}

static gboolean
not_busy (gpointer data)
{
  return !sysprof_window_is_busy (data);
}

/* Waits until the window is idle and drew a frame: quicker than
 * app_test_settle (), and this test draws hundreds of times. */
static void
draw_now (GtkWidget *widget)
{
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (widget));
  guint      frames = 0;
  guint      tick = gtk_widget_add_tick_callback (window, count_frame, &frames, NULL);

  g_assert_true (app_test_wait_for (not_busy, window, 60));
  gtk_widget_queue_draw (window);
  g_assert_true (app_test_wait_for (two_frames, &frames, 30));
  gtk_widget_remove_tick_callback (window, tick);
}

static GtkWidget *
view_of (SysprofWindow *window, const char *id)
{
  GtkStack  *stack = sysprof_window_get_views (window);
  GtkWidget *view = gtk_stack_get_child_by_name (stack, id);

  g_assert_nonnull (view);
  gtk_stack_set_visible_child (stack, view);
  draw_now (view);
  return view;
}

static GtkGesture *
find_drag (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_DRAG (controller))
        return GTK_GESTURE (controller);
    }
  g_assert_not_reached ();
}

static void
drag (GtkWidget *widget, double x, double dx)
{
  GtkGesture *gesture = find_drag (widget);

  g_signal_emit_by_name (gesture, "drag-begin", x, 5.0);
  g_signal_emit_by_name (gesture, "drag-update", dx, 0.0);
  g_signal_emit_by_name (gesture, "drag-end", dx, 0.0);
  draw_now (widget);
}

/* One step of the mouse wheel on the timeline: a pan, or with Ctrl a zoom
 * (the handler reads no modifier from an emitted signal: a pan). */
static void
scroll_timeline (SysprofWindow *window, double dy)
{
  GtkWidget *timeline = GTK_WIDGET (sysprof_window_get_timeline (window));
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (timeline);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      gboolean handled = FALSE;

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller))
        g_signal_emit_by_name (controller, "scroll", 0.0, dy, &handled);
    }
  draw_now (timeline);
}

static void
assert_visible_range_sane (SysprofDocument *document)
{
  gint64 begin, end;

  sysprof_document_get_visible_range (document, &begin, &end);
  g_assert_cmpint (begin, >=, 0);
  g_assert_cmpint (end, >, begin);
  g_assert_cmpint (end, <=, MAX (sysprof_document_get_duration (document), 1000));
}

/* Tooltips over the whole plot of every chart of @view, and drags on
 * them. */
static void
poke_charts (GtkWidget *view)
{
  g_autoptr (GPtrArray) charts = g_ptr_array_new ();

  find_all (view, SYSPROF_TYPE_CHART, charts);
  for (guint i = 0; i < charts->len; i++)
    {
      SysprofChart *chart = g_ptr_array_index (charts, i);
      int           width = gtk_widget_get_width (GTK_WIDGET (chart));

      for (int y = 2; y < MIN (gtk_widget_get_height (GTK_WIDGET (chart)), 400); y += 11)
        for (int x = 0; x <= width; x += MAX (width / 16, 1))
          g_free (sysprof_chart_describe_point (chart, x, y));
      if (i == 0 && width > SYSPROF_CHART_GUTTER + 100)
        {
          drag (GTK_WIDGET (chart), SYSPROF_CHART_GUTTER + 10, 80);
          drag (GTK_WIDGET (chart), SYSPROF_CHART_GUTTER + 10, 1);
        }
    }
}

static void
poke_waterfall (GtkWidget *view)
{
  GtkWidget *waterfall = find_first (view, g_type_from_name ("SysprofMarksWaterfall"));
  int        width;

  g_assert_nonnull (waterfall);
  width = gtk_widget_get_width (waterfall);
  for (int y = 2; y < MIN (gtk_widget_get_height (waterfall), 400); y += 11)
    for (int x = 0; x <= width; x += MAX (width / 16, 1))
      {
        GtkTooltip *tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
        gboolean    shown = FALSE;

        g_signal_emit_by_name (waterfall, "query-tooltip", x, y, FALSE, tooltip, &shown);
        g_object_unref (tooltip);
      }
  /* A click on the marks at the start selects their span; a drag a range. */
  drag (waterfall, SYSPROF_CHART_GUTTER + 1, 0);
  drag (waterfall, SYSPROF_CHART_GUTTER + 10, 80);
}

/* Every view, at every zoom the timeline gets to. */
static void
poke_everything (SysprofWindow *window)
{
  SysprofDocument *document = sysprof_window_get_document (window);
  SysprofTimeline *timeline = sysprof_window_get_timeline (window);
  gint64           duration = sysprof_document_get_duration (document);
  g_auto (GStrv) ids = app_test_list_views (window);
  const struct
  {
    gint64 begin, end;
  } ranges[] = {
    { 0, duration },
    /* The last microsecond of a capture that ends 73 years in: ticks of
     * 100 ns at 2.3e9 s, where adding them to a double does nothing. */
    { duration - 1000, duration },
    { 0, 1000 },
    { duration / 2, duration / 2 + 5000 },
    { G_MININT64, G_MAXINT64 },
  };

  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      sysprof_document_set_visible_range (document, ranges[r].begin, ranges[r].end);
      assert_visible_range_sane (document);
      for (guint i = 0; ids[i] != NULL; i++)
        {
          GtkWidget *view = view_of (window, ids[i]);

          if (strcmp (ids[i], "marks") == 0)
            poke_waterfall (view);
          poke_charts (view);
          draw_now (view);
        }

      /* The rows under the ruler (D-Bus). */
      if (app_test_find_named (GTK_WIDGET (window), "timeline-rows") != NULL)
        poke_charts (app_test_find_named (GTK_WIDGET (window), "timeline-rows"));

      /* The timeline: zoom out past the capture, in again, pan both
       * ways, select and clear. */
      sysprof_timeline_zoom (timeline, 4.0);
      draw_now (GTK_WIDGET (timeline));
      assert_visible_range_sane (document);
      sysprof_timeline_zoom (timeline, 0.001);
      draw_now (GTK_WIDGET (timeline));
      assert_visible_range_sane (document);
      scroll_timeline (window, 1);
      assert_visible_range_sane (document);
      scroll_timeline (window, -1);
      assert_visible_range_sane (document);
      sysprof_timeline_select_pixels (timeline, SYSPROF_CHART_GUTTER + 10, SYSPROF_CHART_GUTTER + 300);
      draw_now (GTK_WIDGET (timeline));
      drag (GTK_WIDGET (timeline), SYSPROF_CHART_GUTTER + 50, 200);
      drag (GTK_WIDGET (timeline), SYSPROF_CHART_GUTTER + 50, 0);
      g_assert_false (sysprof_document_has_selection (document));
      sysprof_timeline_zoom_reset (timeline);
      draw_now (GTK_WIDGET (timeline));
    }
}

static SysprofWindow *
open_window (const char *path)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (path, 120, &error);

  if (window == NULL)
    g_error ("%s: %s", path, error);
  return window;
}

/* The title → value rows (AdwActionRow) of the details view. */
static const char *
details_value (GtkWidget *view, const char *title)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();

  find_all (view, ADW_TYPE_ACTION_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);

      if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), title) == 0)
        return gtk_label_get_text (g_object_get_data (G_OBJECT (row), "value-label"));
    }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Tests */

static void
test_extremes (gconstpointer data)
{
  SysprofWindow *window = open_window (data);
  GtkWidget     *details;
  GtkWidget     *marks;
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();

  poke_everything (window);

  /* The D-Bus messages: one tick each under the ruler. */
  {
    GtkWidget *timeline_rows = app_test_find_named (GTK_WIDGET (window), "timeline-rows");

    g_assert_nonnull (timeline_rows);
    g_assert_cmpstr (sysprof_chart_get_row_label (SYSPROF_CHART (timeline_rows), 0), ==, "D-Bus");
    g_assert_cmpuint (sysprof_chart_get_row_n_points (SYSPROF_CHART (timeline_rows), 0), ==, 4);
  }

  /* Two thousand metadata entries: a few rows, and a table of them all
   * that only makes the rows in view. */
  details = view_of (window, "details");
  find_all (details, ADW_TYPE_PREFERENCES_ROW, rows);
  g_assert_cmpuint (rows->len, <, 100);
  g_assert_nonnull (details_value (details, "key-0"));
  g_assert_null (details_value (details, "key-1999"));

  /* The marks of G_MAXINT64 ns: their total does not wrap around. */
  marks = view_of (window, "marks");
  sysprof_document_set_selection (sysprof_window_get_document (window), G_MININT64, G_MAXINT64);
  g_assert_true (app_test_show_view (window, "marks", 60));
  {
    g_autoptr (GPtrArray) stacks = g_ptr_array_new ();
    g_autoptr (GPtrArray) labels = g_ptr_array_new ();
    gboolean   found = FALSE;
    GtkWidget *summary = NULL;

    find_all (marks, GTK_TYPE_STACK, stacks);
    for (guint i = 0; i < stacks->len && summary == NULL; i++)
      summary = gtk_stack_get_child_by_name (g_ptr_array_index (stacks, i), "summary");
    g_assert_nonnull (summary);
    find_all (summary, GTK_TYPE_LABEL, labels);
    for (guint i = 0; i < labels->len; i++)
      {
        const char *text = gtk_label_get_text (g_ptr_array_index (labels, i));

        g_assert_false (text[0] == '-');
        /* 5 * 2^61 ns */
        found |= strcmp (text, "11529215046.07 s") == 0;
      }
    g_assert_true (found);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  app_test_settle ();
}

static void
test_late_start (gconstpointer data)
{
  SysprofWindow *window = open_window (data);
  GtkWidget     *details = view_of (window, "details");
  const char    *start = details_value (details, "Start");
  const char    *end = details_value (details, "End");

  /* Past the largest time, the end stays there instead of wrapping to
   * the most negative one. */
  g_assert_cmpstr (start, ==, "9223372036.854775807 s");
  g_assert_cmpstr (end, ==, "9223372036.854775807 s");
  poke_everything (window);
  gtk_window_destroy (GTK_WINDOW (window));
  app_test_settle ();
}

static void
test_many (gconstpointer data)
{
  SysprofWindow *window = open_window (data);
  GtkWidget     *counters = view_of (window, "counters");
  GtkWidget     *marks;
  GtkWidget     *waterfall;
  g_autoptr (GPtrArray) charts = g_ptr_array_new ();

  /* 1500 categories of counters: one scrolled chart of a heading and two
   * lines each, not 1500 charts of all their rows. */
  find_all (counters, SYSPROF_TYPE_CHART, charts);
  g_assert_cmpuint (charts->len, ==, 1);
  g_assert_cmpuint (sysprof_chart_get_n_rows (g_ptr_array_index (charts, 0)), ==, 1500 * 3);
  g_assert_cmpstr (sysprof_chart_get_row_label (g_ptr_array_index (charts, 0), 0), ==, "Category 0");
  g_assert_cmpint (gtk_widget_get_height (g_ptr_array_index (charts, 0)), <=,
                   gtk_widget_get_height (GTK_WIDGET (window)));

  /* 5000 kinds of marks: the waterfall scrolls itself, it is not 5000
   * rows tall. */
  marks = view_of (window, "marks");
  waterfall = find_first (marks, g_type_from_name ("SysprofMarksWaterfall"));
  g_assert_true (GTK_IS_SCROLLABLE (waterfall));
  g_assert_cmpint (gtk_widget_get_height (waterfall), <=, gtk_widget_get_height (GTK_WIDGET (window)));
  {
    GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (waterfall));
    GtkTooltip    *tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
    gboolean       shown = FALSE;

    g_assert_cmpfloat (gtk_adjustment_get_upper (vadjustment), ==, 5000 * 24);
    /* Scrolled to the last row (mark-999, the last name in order), the
     * tooltip is of its mark. */
    gtk_adjustment_set_value (vadjustment, 1e9);
    sysprof_document_set_visible_range (sysprof_window_get_document (window), 999 * MS / 10, 999 * MS / 10 + MS);
    draw_now (waterfall);
    g_signal_emit_by_name (waterfall, "query-tooltip", SYSPROF_CHART_GUTTER + 100,
                           gtk_widget_get_height (waterfall) - 5, FALSE, tooltip, &shown);
    g_assert_true (shown);
    g_object_unref (tooltip);
  }
  poke_everything (window);
  gtk_window_destroy (GTK_WINDOW (window));
  app_test_settle ();
}

int
main (int argc, char **argv)
{
  g_autofree char *extremes = NULL;
  g_autofree char *late_start = NULL;
  g_autofree char *many = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  if (!app_test_init ())
    return 77;

  work_dir = g_dir_make_tmp ("test-app-hostile-XXXXXX", &error);
  g_assert_no_error (error);
  extremes = write_extremes ();
  late_start = write_late_start ();
  many = write_many ();

  g_test_add_data_func ("/App/Hostile/extremes", extremes, test_extremes);
  g_test_add_data_func ("/App/Hostile/late-start", late_start, test_late_start);
  g_test_add_data_func ("/App/Hostile/many", many, test_many);
  status = g_test_run ();

  g_unlink (extremes);
  g_unlink (late_start);
  g_unlink (many);
  g_rmdir (work_dir);
  g_free (work_dir);
  return status;
}
