// SPDX-License-Identifier: GPL-3.0-or-later
/* test-app: drives the app's real widgets under Xvfb for the tests.
 *
 *   test-app views CAPTURE EXPECTED SHOTDIR
 *       Opens CAPTURE; the views shown must be exactly EXPECTED (comma-
 *       separated ids, any order); writes SHOTDIR/<view>.png for each and
 *       SHOTDIR/window.png.  Exit 0 when they match.
 *   test-app shot CAPTURE SHOTDIR
 *       The same without expectations; prints the view ids.
 *   test-app selection CAPTURE FROM TO
 *       Selects the timeline from FROM to TO (fractions of its plot width),
 *       as a drag does, waits for the callgraph view, and prints
 *       "selection BEGIN END" (seconds from the capture's start, 9 decimals),
 *       "samples N" (the view's total) and then the view's functions as
 *       "function<TAB>library<TAB>self<TAB>total" lines.
 *   test-app lines CAPTURE FUNCTION [LIBRARY]
 *       Shows the callgraph view, selects the row of FUNCTION (of LIBRARY,
 *       when given) in its functions table as a click does (the list's
 *       "list.select-item" action), waits until the source lines label is
 *       filled for it and prints the label's text.
 *   test-app record SHOTDIR COMMAND...
 *       On the recorder page, launches COMMAND through the form, presses
 *       Record, Stop after two seconds, and waits for the capture to open
 *       with its callgraph; prints "capture PATH" and "samples N", then
 *       "marks GROUP N" per group of marks.  TEST_APP_SWITCHES (comma-
 *       separated widget names, e.g. "trace-fd-switch") are turned on first.
 *   test-app drop CAPTURE
 *       Drops CAPTURE on an empty window, as a file manager does (the
 *       window's drop target receives a GdkFileList), and prints the views
 *       of the window it loads into.
 *   test-app time CAPTURE
 *       Opens CAPTURE in a window and prints "loaded_ms T" (the views are
 *       added) and "callgraph_ms T" (the callgraph view shows its table),
 *       from the window's creation; for bench/run-app-bench.sh.
 *   test-app details CAPTURE
 *       Shows the details view of CAPTURE and prints each of its rows as
 *       "TITLE<TAB>VALUE" (the value label's text), depth first.
 *   test-app groups CAPTURE VIEW
 *       Shows VIEW (marks or logs), chooses each entry of its group drop-
 *       down in turn, as a click does, waits until the view has filtered
 *       and prints "ENTRY<TAB>COUNT" (the entry's label and the view's
 *       count label).
 *   test-app offcpu CAPTURE SHOTDIR
 *       A capture recorded with --scheduler: chooses "Off CPU" in the
 *       callgraph view's source drop-down, waits for the callgraph and
 *       prints "total T" (microseconds) and its functions as `selection`
 *       does; then shows the threads view and prints "chart_rows N" and
 *       each row of its table as "thread<TAB>PID<TAB>TID<TAB>OFF_CPU_NS<TAB>
 *       WAITS"; writes SHOTDIR/offcpu-callgraph.png and threads.png.
 *   test-app dbus CAPTURE SHOTDIR MEMBER
 *       Shows the D-Bus view of CAPTURE, prints its count label ("count
 *       TEXT"), the rows whose member is MEMBER ("member MEMBER N"), selects
 *       the first of them and prints the body shown ("body TEXT"); then the
 *       timeline's "D-Bus" row: "timeline_ticks N" (its ticks),
 *       "timeline_tooltip TEXT" (the tooltip over the first message's
 *       tick, lines joined by " | ") and "timeline_width_matches 1|0" (the
 *       rows span the ruler's width, so times line up); saves
 *       SHOTDIR/dbus.png, the window with the view and the row.
 *   test-app compare BEFORE AFTER SHOTDIR [FOCUS [FROM TO]]
 *       Opens AFTER, focuses on the functions FOCUS names (comma-separated;
 *       "-": none) as the callgraph's menu does, compares it with BEFORE as
 *       "Compare With…" does (sysprof_window_compare), waits for the
 *       comparison view and writes SHOTDIR/comparison.png.  With FROM and
 *       TO, then selects that part
 *       of AFTER's timeline as the selection verb does, waits for the
 *       comparison to follow and prints "selection BEGIN END" (seconds).
 *       Prints the comparison table's rows as the cells show
 *       them, in order, "function<TAB>library<TAB>before_self<TAB>
 *       after_self<TAB>self_change<TAB>before_total<TAB>after_total<TAB>
 *       total_change" (percent signs left out), then "frame FUNCTION R G B
 *       CHANGE" for the widest frame of each function in the differential
 *       flame graph: the colour it is drawn in (0-255) and its change in
 *       points.  When BEFORE cannot be opened or read: "error MESSAGE" and
 *       "page PAGE" (the window's page), exit 1.
 *   test-app refused SHOTDIR
 *       Records the whole system and expects a refusal on the page (for a
 *       user polkit says no to); prints the message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app-test-util.h"
#include "sysprof-callgraph-view-row.h"
#include "sysprof-callgraph-view.h"
#include "sysprof-chart.h"
#include "sysprof-comparison-row.h"
#include "sysprof-comparison-view.h"
#include "sysprof-dbus-row.h"
#include "sysprof-group-dropdown.h"
#include "sysprof-thread-item.h"
#include "sysprof-time-axis.h"
#include "sysprof-view.h"

#ifndef SYSPROF_CHART_GUTTER
#define SYSPROF_CHART_GUTTER 160
#endif

static int
usage (void)
{
  fprintf (stderr, "usage: test-app "
                   "views|shot|selection|lines|record|drop|time|details|groups|dbus|offcpu|compare|refused ARGS (see "
                   "the source)\n");
  return 2;
}

static gboolean
save_view_shots (SysprofWindow *window, const char *shot_dir)
{
  g_auto (GStrv) ids = app_test_list_views (window);
  gboolean ok = TRUE;

  g_mkdir_with_parents (shot_dir, 0755);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autofree char *png = g_strdup_printf ("%s/%s.png", shot_dir, ids[i]);
      g_autoptr (GError) error = NULL;

      if (!app_test_show_view (window, ids[i], 60))
        {
          fprintf (stderr, "view %s: still busy after 60 s\n", ids[i]);
          ok = FALSE;
          continue;
        }
      if (!app_test_save_png (GTK_WIDGET (window), png, &error))
        {
          fprintf (stderr, "view %s: %s\n", ids[i], error->message);
          ok = FALSE;
        }
    }
  return ok;
}

static int
cmd_views (const char *capture, const char *expected, const char *shot_dir, gboolean check)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (capture, 120, &error);
  g_auto (GStrv) ids = NULL;
  g_auto (GStrv) want = NULL;
  g_autoptr (GString) got = g_string_new (NULL);
  gboolean ok = TRUE;

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  ids = app_test_list_views (window);
  for (guint i = 0; ids[i] != NULL; i++)
    g_string_append_printf (got, "%s%s", i ? "," : "", ids[i]);
  printf ("views %s\n", got->str);

  if (check)
    {
      want = g_strsplit (expected, ",", -1);
      for (guint i = 0; want[i] != NULL; i++)
        if (!g_strv_contains ((const char *const *) ids, want[i]))
          {
            fprintf (stderr, "missing view: %s\n", want[i]);
            ok = FALSE;
          }
      for (guint i = 0; ids[i] != NULL; i++)
        if (!g_strv_contains ((const char *const *) want, ids[i]))
          {
            fprintf (stderr, "unexpected view: %s\n", ids[i]);
            ok = FALSE;
          }
    }
  if (!save_view_shots (window, shot_dir))
    ok = FALSE;
  gtk_window_destroy (GTK_WINDOW (window));
  return ok ? 0 : 1;
}

static void
print_rows (GtkWidget *widget)
{
  if (ADW_IS_ACTION_ROW (widget) && g_object_get_data (G_OBJECT (widget), "value-label") != NULL)
    printf ("%s\t%s\n", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)),
            gtk_label_get_text (GTK_LABEL (g_object_get_data (G_OBJECT (widget), "value-label"))));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    print_rows (child);
}

static int
cmd_details (const char *capture)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (capture, 120, &error);

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  if (!app_test_show_view (window, "details", 60))
    {
      fprintf (stderr, "the details view is still busy after 60 s\n");
      return 1;
    }
  print_rows (GTK_WIDGET (window));
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

/* TRUE when no filter model below the column views of @widget has items
 * left to filter (the logs view filters incrementally). */
static gboolean
filters_done (GtkWidget *widget)
{
  if (GTK_IS_COLUMN_VIEW (widget))
    {
      GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (widget)));

      while (model != NULL)
        {
          if (GTK_IS_FILTER_LIST_MODEL (model) && gtk_filter_list_model_get_pending (GTK_FILTER_LIST_MODEL (model)) > 0)
            return FALSE;
          if (GTK_IS_SINGLE_SELECTION (model))
            model = gtk_single_selection_get_model (GTK_SINGLE_SELECTION (model));
          else if (GTK_IS_SORT_LIST_MODEL (model))
            model = gtk_sort_list_model_get_model (GTK_SORT_LIST_MODEL (model));
          else if (GTK_IS_FILTER_LIST_MODEL (model))
            model = gtk_filter_list_model_get_model (GTK_FILTER_LIST_MODEL (model));
          else
            model = NULL;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (!filters_done (child))
      return FALSE;
  return TRUE;
}

static gboolean
view_filtered (gpointer data)
{
  GtkWidget *view = data;

  return !sysprof_view_get_busy (SYSPROF_VIEW (view)) && filters_done (view);
}

static int
cmd_groups (const char *capture, const char *view_id)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (capture, 120, &error);
  GtkWidget       *view, *dropdown, *count;
  GListModel      *entries;
  int              status = 0;

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  if (!app_test_show_view (window, view_id, 60))
    {
      fprintf (stderr, "the %s view is missing or still busy after 60 s\n", view_id);
      return 1;
    }
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), view_id);
  dropdown = app_test_find_named (view, "group-dropdown");
  count = app_test_find_named (view, "count-label");
  if (dropdown == NULL || count == NULL)
    {
      fprintf (stderr, "the %s view has no group-dropdown or count-label\n", view_id);
      return 1;
    }
  entries = gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown));
  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), i);
      if (!app_test_wait_for (view_filtered, view, 60))
        {
          fprintf (stderr, "entry %u: still filtering after 60 s\n", i);
          status = 1;
          break;
        }
      app_test_settle ();
      printf ("%s\t%s\n", gtk_string_list_get_string (GTK_STRING_LIST (entries), i),
              gtk_label_get_text (GTK_LABEL (count)));
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}

static gboolean
callgraph_ready (gpointer data)
{
  SysprofCallgraphView *view = data;

  return !sysprof_view_get_busy (SYSPROF_VIEW (view)) && sysprof_callgraph_view_get_callgraph (view) != NULL;
}

static void
print_callgraph (SysprofCallgraph *callgraph)
{
  for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);

      /* As sysprof-report top lists them: code and context, no root or
       * process nodes. */
      if (function->kind != SYSPROF_CALLGRAPH_FUNCTION_CODE && function->kind != SYSPROF_CALLGRAPH_FUNCTION_CONTEXT)
        continue;
      printf ("%s\t%s\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", function->symbol->name,
              function->symbol->library ? function->symbol->library : "", function->self, function->total);
    }
}

static int
cmd_selection (const char *capture, double from, double to)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (capture, 120, &error);
  SysprofTimeline *timeline;
  GtkWidget       *view;
  int              width;
  gint64           begin, end;

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "callgraph");
  if (view == NULL)
    {
      fprintf (stderr, "no callgraph view\n");
      return 1;
    }
  app_test_show_view (window, "callgraph", 60);
  timeline = sysprof_window_get_timeline (window);
  width = gtk_widget_get_width (GTK_WIDGET (timeline));
  /* The plot starts after the gutter: fractions are of the plot area. */
  sysprof_timeline_select_pixels (timeline, SYSPROF_CHART_GUTTER + from * (width - SYSPROF_CHART_GUTTER),
                                  SYSPROF_CHART_GUTTER + to * (width - SYSPROF_CHART_GUTTER));
  sysprof_document_get_selection (sysprof_window_get_document (window), &begin, &end);
  if (!app_test_wait_for (callgraph_ready, view, 60))
    {
      fprintf (stderr, "the callgraph did not follow the selection within 60 s\n");
      return 1;
    }
  printf ("selection %.9f %.9f\n", begin / 1e9, end / 1e9);
  printf ("samples %" G_GUINT64_FORMAT "\n", sysprof_callgraph_view_get_total (SYSPROF_CALLGRAPH_VIEW (view)));
  print_callgraph (sysprof_callgraph_view_get_callgraph (SYSPROF_CALLGRAPH_VIEW (view)));
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

/* The position of @name (of @library, unless NULL) among the functions of
 * @model, or G_MAXUINT. */
static guint
find_function_row (GListModel *model, const char *name, const char *library)
{
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SysprofCallgraphViewRow) row = g_list_model_get_item (model, i);

      if (g_strcmp0 (row->function->symbol->name, name) == 0 &&
          (library == NULL || g_strcmp0 (row->function->symbol->library, library) == 0))
        return i;
    }
  return G_MAXUINT;
}

typedef struct
{
  GtkSelectionModel *model;
  guint              position;
  GtkLabel          *label;
} LinesWait;

/* Selecting a function empties the label at once; the worker's answer for
 * that function fills it (an answer for a function selected before is
 * dropped). */
static gboolean
lines_filled (gpointer data)
{
  LinesWait *wait = data;

  return gtk_selection_model_is_selected (wait->model, wait->position) && gtk_label_get_text (wait->label)[0] != '\0';
}

static int
cmd_lines (const char *capture, const char *name, const char *library)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (capture, 120, &error);
  GtkWidget       *view, *functions, *list = NULL;
  LinesWait        wait = { NULL, G_MAXUINT, NULL };

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "callgraph");
  if (view == NULL || !app_test_show_view (window, "callgraph", 60) || !app_test_wait_for (callgraph_ready, view, 60))
    {
      fprintf (stderr, "%s: no callgraph view within 60 s\n", capture);
      return 1;
    }
  functions = app_test_find_named (view, "functions-view");
  wait.label = GTK_LABEL (app_test_find_named (view, "lines-label"));
  if (functions == NULL || wait.label == NULL)
    {
      fprintf (stderr, "the callgraph view has no functions-view or no lines-label\n");
      return 1;
    }
  wait.model = gtk_column_view_get_model (GTK_COLUMN_VIEW (functions));
  wait.position = find_function_row (G_LIST_MODEL (wait.model), name, library);
  if (wait.position == G_MAXUINT)
    {
      fprintf (stderr, "%s%s%s is not in the functions table\n", name, library ? " of " : "", library ? library : "");
      return 1;
    }
  /* A click on a row: the column view's list scrolls to it and its row
   * activates "list.select-item" (position, no Ctrl, no Shift). */
  for (GtkWidget *child = gtk_widget_get_first_child (functions); child != NULL && list == NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      list = child;
  if (list == NULL || !gtk_widget_activate_action (list, "list.scroll-to-item", "u", wait.position) ||
      !gtk_widget_activate_action (list, "list.select-item", "(ubb)", wait.position, FALSE, FALSE))
    {
      fprintf (stderr, "the functions table did not scroll to and select row %u (no list.* actions?)\n", wait.position);
      return 1;
    }
  if (!app_test_wait_for (lines_filled, &wait, 60))
    {
      fprintf (stderr, "the source lines of %s were not shown within 60 s (%s, label \"%s\")\n", name,
               gtk_selection_model_is_selected (wait.model, wait.position) ? "selected" : "not selected",
               gtk_label_get_text (wait.label));
      return 1;
    }
  printf ("%s\n", gtk_label_get_text (wait.label));
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

typedef struct
{
  SysprofWindow *window;
  double         seconds;
  gint64         start;
} RecordWait;

static gboolean
elapsed (gpointer data)
{
  RecordWait *wait = data;

  return g_get_monotonic_time () - wait->start >= (gint64) (wait->seconds * G_USEC_PER_SEC);
}

static gboolean
recording_running (gpointer data)
{
  SysprofRecorderPage *page = sysprof_window_get_recorder_page (data);
  SysprofRecording    *recording = sysprof_recorder_page_get_recording (page);

  return sysprof_recorder_page_get_error (page) != NULL ||
         (recording != NULL && sysprof_recording_get_phase (recording) == SYSPROF_RECORDING_PHASE_RECORDING);
}

static gboolean
capture_shown (gpointer data)
{
  SysprofWindow *window = data;

  if (sysprof_recorder_page_get_error (sysprof_window_get_recorder_page (window)) != NULL)
    return TRUE;
  return g_strcmp0 (sysprof_window_get_page (window), "capture") == 0 && !sysprof_window_is_busy (window);
}

static gboolean
shot (GtkWidget *widget, const char *dir, const char *name)
{
  g_autofree char *png = g_strdup_printf ("%s/%s.png", dir, name);
  g_autoptr (GError) error = NULL;

  if (!app_test_save_png (widget, png, &error))
    {
      fprintf (stderr, "%s: %s\n", png, error->message);
      return FALSE;
    }
  return TRUE;
}

static SysprofWindow *
recorder_window (void)
{
  SysprofWindow *window = sysprof_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 860);
  sysprof_window_show_recorder (window);
  gtk_window_present (GTK_WINDOW (window));
  app_test_settle ();
  return window;
}

static void
print_mark_groups (SysprofDocument *document)
{
  GArray *marks = sysprof_document_get_marks (document);
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer       key, value;

  for (guint i = 0; i < marks->len; i++)
    sysprof_group_dropdown_count (counts, g_array_index (marks, SysprofSummaryMark, i).group);
  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    printf ("marks %s %u\n", (const char *) key, GPOINTER_TO_UINT (value));
}

static int
cmd_record (const char *shot_dir, char **argv)
{
  SysprofWindow   *window = recorder_window ();
  GtkWidget       *root = GTK_WIDGET (window);
  g_autofree char *line = NULL;
  RecordWait       wait = { window, 2.0, 0 };
  GtkWidget       *view;
  const char      *error;
  g_autoptr (GString) quoted = g_string_new (NULL);

  g_mkdir_with_parents (shot_dir, 0755);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      g_autofree char *word = g_shell_quote (argv[i]);

      g_string_append_printf (quoted, "%s%s", i ? " " : "", word);
    }
  /* Fill the form as a user would, through its widgets. */
  gtk_check_button_set_active (GTK_CHECK_BUTTON (app_test_find_named (root, "mode-command")), TRUE);
  /* DWARF unwinding is offered, and on by default. */
  if (!gtk_switch_get_active (GTK_SWITCH (app_test_find_named (root, "unwind-switch"))))
    {
      fprintf (stderr, "test-app: the unwind switch is off by default\n");
      return 1;
    }
  if (g_getenv ("TEST_APP_SWITCHES") != NULL)
    {
      g_auto (GStrv) names = g_strsplit (g_getenv ("TEST_APP_SWITCHES"), ",", -1);

      for (guint i = 0; names[i] != NULL; i++)
        {
          GtkWidget *sw = app_test_find_named (root, names[i]);

          if (sw == NULL || !GTK_IS_SWITCH (sw) || !gtk_widget_is_sensitive (sw))
            {
              fprintf (stderr, "test-app: no switch %s that can be turned on\n", names[i]);
              return 1;
            }
          gtk_switch_set_active (GTK_SWITCH (sw), TRUE);
        }
    }
  gtk_editable_set_text (GTK_EDITABLE (app_test_find_named (root, "command-entry")), quoted->str);
  app_test_settle ();
  shot (root, shot_dir, "recorder");
  gtk_widget_activate (app_test_find_named (root, "record-button"));
  if (!app_test_wait_for (recording_running, window, 30))
    {
      fprintf (stderr, "the recording did not start within 30 s\n");
      return 1;
    }
  if ((error = sysprof_recorder_page_get_error (sysprof_window_get_recorder_page (window))) != NULL)
    {
      fprintf (stderr, "recording refused: %s\n", error);
      return 1;
    }
  wait.start = g_get_monotonic_time ();
  app_test_wait_for (elapsed, &wait, 10);
  shot (root, shot_dir, "recording");
  gtk_widget_activate (app_test_find_named (root, "stop-button"));
  if (!app_test_wait_for (capture_shown, window, 120))
    {
      fprintf (stderr, "the capture did not open within 120 s (page %s)\n", sysprof_window_get_page (window));
      return 1;
    }
  if ((error = sysprof_recorder_page_get_error (sysprof_window_get_recorder_page (window))) != NULL)
    {
      fprintf (stderr, "recording failed: %s\n", error);
      return 1;
    }
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "callgraph");
  if (view == NULL || !app_test_show_view (window, "callgraph", 60))
    {
      fprintf (stderr, "the capture has no callgraph view\n");
      return 1;
    }
  shot (root, shot_dir, "recorded-callgraph");
  line = g_file_get_path (sysprof_document_get_file (sysprof_window_get_document (window)));
  printf ("capture %s\n", line);
  printf ("samples %" G_GUINT64_FORMAT "\n", sysprof_callgraph_view_get_total (SYSPROF_CALLGRAPH_VIEW (view)));
  print_mark_groups (sysprof_window_get_document (window));
  /* How the page had the stacks unwound (its default). */
  printf ("unwind %s\n",
          sysprof_callgraph_get_unwind_summary (sysprof_callgraph_view_get_callgraph (SYSPROF_CALLGRAPH_VIEW (view))));
  print_callgraph (sysprof_callgraph_view_get_callgraph (SYSPROF_CALLGRAPH_VIEW (view)));
  fflush (stdout);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static gboolean
refused_or_running (gpointer data)
{
  SysprofRecorderPage *page = sysprof_window_get_recorder_page (data);
  SysprofRecording    *recording = sysprof_recorder_page_get_recording (page);

  return sysprof_recorder_page_get_error (page) != NULL ||
         (recording != NULL && sysprof_recording_get_phase (recording) >= SYSPROF_RECORDING_PHASE_RECORDING);
}

static int
cmd_refused (const char *shot_dir)
{
  SysprofWindow *window = recorder_window ();
  const char    *error;

  g_mkdir_with_parents (shot_dir, 0755);
  gtk_widget_activate (app_test_find_named (GTK_WIDGET (window), "record-button"));
  if (!app_test_wait_for (refused_or_running, window, 30))
    {
      fprintf (stderr, "neither refused nor recording after 30 s\n");
      return 1;
    }
  error = sysprof_recorder_page_get_error (sysprof_window_get_recorder_page (window));
  if (error == NULL)
    {
      fprintf (stderr, "the recording was not refused\n");
      sysprof_recording_stop (sysprof_recorder_page_get_recording (sysprof_window_get_recorder_page (window)));
      return 1;
    }
  app_test_settle ();
  shot (GTK_WIDGET (window), shot_dir, "refused");
  printf ("error %s\n", error);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static gboolean loaded (gpointer data);

static int
cmd_drop (const char *capture)
{
  SysprofWindow *window = sysprof_window_new (NULL);
  g_autoptr (GListModel) controllers = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (capture);
  g_auto (GValue) value = G_VALUE_INIT;
  g_auto (GStrv) ids = NULL;
  g_autofree char *joined = NULL;
  GSList          *files = g_slist_prepend (NULL, file);
  GtkDropTarget   *target = NULL;
  gboolean         accepted = FALSE;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  sysprof_window_show_recorder (window);
  gtk_window_present (GTK_WINDOW (window));
  app_test_settle ();

  controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers) && target == NULL; i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        target = GTK_DROP_TARGET (controller);
    }
  if (target == NULL)
    {
      fprintf (stderr, "the window has no drop target\n");
      return 1;
    }
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_set_boxed (&value, files);
  g_slist_free (files);
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &accepted);
  if (!accepted)
    {
      fprintf (stderr, "the drop was refused\n");
      return 1;
    }
  if (!app_test_wait_for (loaded, window, 120) || g_strcmp0 (sysprof_window_get_page (window), "capture") != 0)
    {
      fprintf (stderr, "%s: %s\n", capture, sysprof_window_get_error (window) ?: "not loaded within 120 s");
      return 1;
    }
  ids = app_test_list_views (window);
  joined = g_strjoinv (",", ids);
  printf ("views %s\n", joined);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static gboolean
loaded (gpointer data)
{
  const char *page = sysprof_window_get_page (data);

  return g_strcmp0 (page, "capture") == 0 || g_strcmp0 (page, "error") == 0;
}

static GtkWidget *
find_named (GtkWidget *widget, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (widget), name) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_named (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
label_filled (gpointer data)
{
  return gtk_label_get_text (GTK_LABEL (data))[0] != 0;
}

/* The timeline's D-Bus row: its ticks, and the tooltip over the first
 * message. */
static gboolean
print_timeline_dbus (SysprofWindow *window)
{
  GtkWidget *rows = app_test_find_named (GTK_WIDGET (window), "timeline-rows");
  GtkWidget *ruler = GTK_WIDGET (sysprof_window_get_timeline (window));
  GArray    *messages = sysprof_document_get_dbus_messages (sysprof_window_get_document (window));
  int        row = -1;

  if (rows == NULL || !SYSPROF_IS_CHART (rows))
    {
      fprintf (stderr, "no rows under the timeline\n");
      return FALSE;
    }
  for (guint i = 0; i < sysprof_chart_get_n_rows (SYSPROF_CHART (rows)); i++)
    if (g_strcmp0 (sysprof_chart_get_row_label (SYSPROF_CHART (rows), i), "D-Bus") == 0)
      row = (int) i;
  if (row < 0 || messages->len == 0)
    {
      fprintf (stderr, "no D-Bus row under the timeline\n");
      return FALSE;
    }
  printf ("timeline_ticks %u\n", sysprof_chart_get_row_n_points (SYSPROF_CHART (rows), row));
  printf ("timeline_width_matches %d\n", gtk_widget_get_width (rows) == gtk_widget_get_width (ruler));
  for (int y = 0; y < gtk_widget_get_height (rows); y++)
    if (sysprof_chart_get_row_at_y (SYSPROF_CHART (rows), y) == row)
      {
        SysprofTimeAxis  axis;
        g_autofree char *tooltip = NULL;
        g_auto (GStrv) lines = NULL;
        g_autofree char *joined = NULL;

        sysprof_time_axis_init_for_widget (&axis, sysprof_window_get_document (window), rows);
        tooltip = sysprof_chart_describe_point (
            SYSPROF_CHART (rows),
            sysprof_time_axis_x_of_time (&axis, g_array_index (messages, SysprofSummaryDbusMessage, 0).time_ns), y);
        lines = g_strsplit (tooltip != NULL ? tooltip : "", "\n", -1);
        joined = g_strjoinv (" | ", lines);
        printf ("timeline_tooltip %s\n", joined);
        break;
      }
  return TRUE;
}

static int
cmd_dbus (const char *capture, const char *shot_dir, const char *member)
{
  SysprofWindow *window = sysprof_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (capture);
  g_autoptr (GError) error = NULL;
  g_autofree char   *png = NULL;
  g_autofree char   *body = NULL;
  GtkWidget         *view, *label, *table, *body_view;
  GtkSelectionModel *model;
  GtkTextIter        begin, end;
  guint              n = 0, first = GTK_INVALID_LIST_POSITION;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  sysprof_window_open (window, file, FALSE);
  gtk_window_present (GTK_WINDOW (window));
  if (!app_test_wait_for (loaded, window, 120) || g_strcmp0 (sysprof_window_get_page (window), "capture") != 0 ||
      !app_test_show_view (window, "dbus", 60))
    {
      fprintf (stderr, "%s: no D-Bus view\n", capture);
      return 1;
    }
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "dbus");
  label = find_named (view, "count-label");
  table = find_named (view, "dbus-messages");
  body_view = find_named (view, "dbus-body");
  if (label == NULL || table == NULL || body_view == NULL || !app_test_wait_for (label_filled, label, 60))
    {
      fprintf (stderr, "%s: the D-Bus view did not fill\n", capture);
      return 1;
    }
  printf ("count %s\n", gtk_label_get_text (GTK_LABEL (label)));
  model = gtk_column_view_get_model (GTK_COLUMN_VIEW (table));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr (SysprofDbusRow) row = g_list_model_get_item (G_LIST_MODEL (model), i);

      if (g_strcmp0 (row->message->member, member) == 0)
        {
          if (n++ == 0)
            first = i;
        }
    }
  printf ("member %s %u\n", member, n);
  if (!print_timeline_dbus (window))
    return 1;
  if (first != GTK_INVALID_LIST_POSITION)
    {
      gtk_selection_model_select_item (model, first, TRUE);
      app_test_settle ();
      gtk_text_buffer_get_bounds (gtk_text_view_get_buffer (GTK_TEXT_VIEW (body_view)), &begin, &end);
      body = gtk_text_buffer_get_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (body_view)), &begin, &end, FALSE);
      printf ("body %s\n", body);
    }
  g_mkdir_with_parents (shot_dir, 0755);
  png = g_build_filename (shot_dir, "dbus.png", NULL);
  if (!app_test_save_png (GTK_WIDGET (window), png, &error))
    {
      fprintf (stderr, "%s: %s\n", png, error->message);
      return 1;
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static int
cmd_time (const char *capture)
{
  gint64         start = g_get_monotonic_time ();
  SysprofWindow *window = sysprof_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (capture);
  GtkWidget *view;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  sysprof_window_open (window, file, FALSE);
  gtk_window_present (GTK_WINDOW (window));
  if (!app_test_wait_for (loaded, window, 600) || g_strcmp0 (sysprof_window_get_page (window), "capture") != 0)
    {
      fprintf (stderr, "%s: %s\n", capture, sysprof_window_get_error (window) ?: "not loaded within 600 s");
      return 1;
    }
  printf ("loaded_ms %.1f\n", (g_get_monotonic_time () - start) / 1000.0);
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "callgraph");
  if (view == NULL || !app_test_wait_for (callgraph_ready, view, 600))
    {
      fprintf (stderr, "%s: no callgraph within 600 s\n", capture);
      return 1;
    }
  printf ("callgraph_ms %.1f\n", (g_get_monotonic_time () - start) / 1000.0);
  printf ("samples %" G_GUINT64_FORMAT "\n", sysprof_callgraph_view_get_total (SYSPROF_CALLGRAPH_VIEW (view)));
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static int
cmd_offcpu (const char *capture, const char *shot_dir)
{
  g_autofree char *error = NULL;
  SysprofWindow   *window = app_test_open (capture, 120, &error);
  GtkWidget       *view, *dropdown, *threads, *table, *chart;
  GListModel      *rows;
  int              status = 0;

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "callgraph");
  if (view == NULL || !app_test_show_view (window, "callgraph", 60) ||
      (dropdown = app_test_find_named (view, "source-dropdown")) == NULL || !gtk_widget_get_visible (dropdown))
    {
      fprintf (stderr, "no callgraph view with a visible source drop-down\n");
      return 1;
    }
  /* As a click on the second entry does. */
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), 1);
  if (!app_test_wait_for (callgraph_ready, view, 60) ||
      sysprof_callgraph_get_source (sysprof_callgraph_view_get_callgraph (SYSPROF_CALLGRAPH_VIEW (view))) !=
          SYSPROF_CALLGRAPH_SOURCE_OFF_CPU)
    {
      fprintf (stderr, "the off-CPU callgraph did not arrive within 60 s\n");
      return 1;
    }
  app_test_settle ();
  printf ("total %" G_GUINT64_FORMAT "\n", sysprof_callgraph_view_get_total (SYSPROF_CALLGRAPH_VIEW (view)));
  print_callgraph (sysprof_callgraph_view_get_callgraph (SYSPROF_CALLGRAPH_VIEW (view)));
  if (shot_dir != NULL && !shot (GTK_WIDGET (window), shot_dir, "offcpu-callgraph"))
    status = 1;

  if (!app_test_show_view (window, "threads", 60) ||
      (threads = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "threads")) == NULL ||
      (table = app_test_find_named (threads, "threads-table")) == NULL ||
      (chart = app_test_find_named (threads, "threads-chart")) == NULL)
    {
      fprintf (stderr, "no threads view with its table and chart\n");
      return 1;
    }
  printf ("chart_rows %u\n", sysprof_chart_get_n_rows (SYSPROF_CHART (chart)));
  rows = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (table)));
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (SysprofThreadItem) item = g_list_model_get_item (rows, i);

      printf ("thread\t%d\t%d\t%" G_GINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", item->time.pid, item->time.tid,
              item->time.off_cpu_ns, item->time.n_waits);
    }
  if (shot_dir != NULL && !shot (GTK_WIDGET (window), shot_dir, "threads"))
    status = 1;
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}

static gboolean
comparison_done (gpointer data)
{
  SysprofWindow *window = data;
  GtkWidget     *view = gtk_stack_get_child_by_name (sysprof_window_get_views (window), "comparison");

  if (sysprof_window_get_compare_error (window) != NULL)
    return TRUE;
  return view != NULL && !sysprof_window_is_busy (window) &&
         (sysprof_comparison_view_get_diff (SYSPROF_COMPARISON_VIEW (view)) != NULL ||
          sysprof_comparison_view_get_error (SYSPROF_COMPARISON_VIEW (view)) != NULL);
}

/* @text without a trailing " %". */
static void
print_cell (SysprofComparisonRow *row, SysprofComparisonColumn column)
{
  g_autofree char *text = sysprof_comparison_row_dup_text (row, column);

  if (g_str_has_suffix (text, " %"))
    text[strlen (text) - 2] = '\0';
  printf ("%s%s", column > 0 ? "\t" : "", text);
}

static int
cmd_compare (
    const char *before, const char *after, const char *shot_dir, const char *focus, const char *from, const char *to)
{
  g_autofree char *error = NULL;
  g_autofree char *png = g_strdup_printf ("%s/comparison.png", shot_dir);
  g_autoptr (GFile) before_file = g_file_new_for_path (before);
  g_autoptr (GHashTable) widest = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) png_error = NULL;
  SysprofWindow           *window = app_test_open (after, 120, &error);
  SysprofComparisonView   *view;
  SysprofFlamegraphCanvas *canvas;
  SysprofCallgraphDiff    *diff;
  GListModel              *rows;
  GHashTableIter           iter;
  gpointer                 value;

  if (window == NULL)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  if (focus != NULL && !g_str_equal (focus, "-"))
    {
      g_auto (GStrv) names = g_strsplit (focus, ",", -1);

      for (guint i = 0; names[i] != NULL; i++)
        sysprof_document_focus_function (sysprof_window_get_document (window), names[i]);
    }
  sysprof_window_compare (window, before_file);
  if (!app_test_wait_for (comparison_done, window, 300))
    {
      fprintf (stderr, "no comparison within 300 s\n");
      return 1;
    }
  if (sysprof_window_get_compare_error (window) != NULL)
    {
      printf ("error %s\npage %s\n", sysprof_window_get_compare_error (window), sysprof_window_get_page (window));
      gtk_window_destroy (GTK_WINDOW (window));
      return 1;
    }
  view = SYSPROF_COMPARISON_VIEW (gtk_stack_get_child_by_name (sysprof_window_get_views (window), "comparison"));
  if (sysprof_comparison_view_get_error (view) != NULL)
    {
      printf ("error %s\npage %s\n", sysprof_comparison_view_get_error (view), sysprof_window_get_page (window));
      gtk_window_destroy (GTK_WINDOW (window));
      return 1;
    }
  if (!app_test_show_view (window, "comparison", 60))
    {
      fprintf (stderr, "the comparison view is still busy after 60 s\n");
      return 1;
    }
  g_mkdir_with_parents (shot_dir, 0755);
  if (!app_test_save_png (GTK_WIDGET (window), png, &png_error))
    {
      fprintf (stderr, "%s: %s\n", png, png_error->message);
      return 1;
    }

  if (from != NULL)
    {
      SysprofTimeline *timeline = sysprof_window_get_timeline (window);
      int              width = gtk_widget_get_width (GTK_WIDGET (timeline));
      double           f = g_ascii_strtod (from, NULL), t = g_ascii_strtod (to, NULL);
      gint64           begin, end;

      /* The plot starts after the gutter: fractions are of the plot area. */
      sysprof_timeline_select_pixels (timeline, SYSPROF_CHART_GUTTER + f * (width - SYSPROF_CHART_GUTTER),
                                      SYSPROF_CHART_GUTTER + t * (width - SYSPROF_CHART_GUTTER));
      sysprof_document_get_selection (sysprof_window_get_document (window), &begin, &end);
      if (!app_test_wait_for (comparison_done, window, 300) || sysprof_comparison_view_get_error (view) != NULL)
        {
          fprintf (stderr, "the comparison did not follow the selection\n");
          return 1;
        }
      printf ("selection %.9f %.9f\n", begin / 1e9, end / 1e9);
    }

  rows = sysprof_comparison_view_get_rows (view);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (SysprofComparisonRow) row = g_list_model_get_item (rows, i);

      for (guint c = 0; c < SYSPROF_COMPARISON_N_COLUMNS; c++)
        print_cell (row, c);
      printf ("\n");
    }

  /* The widest frame of each function, as the canvas draws it. */
  canvas = sysprof_comparison_view_get_canvas (view);
  diff = sysprof_comparison_view_get_diff (view);
  for (const SysprofCallgraphNode *node = sysprof_callgraph_get_root (sysprof_callgraph_diff_get_after (diff));
       node != NULL;)
    {
      const SysprofCallgraphNode *best = g_hash_table_lookup (widest, node->function->symbol->name);

      if (node->function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE && (best == NULL || node->total > best->total))
        g_hash_table_insert (widest, (gpointer) node->function->symbol->name, (gpointer) node);
      if (node->first_child != NULL)
        node = node->first_child;
      else
        {
          while (node != NULL && node->next_sibling == NULL)
            node = node->parent;
          node = node != NULL ? node->next_sibling : NULL;
        }
    }
  g_hash_table_iter_init (&iter, widest);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const SysprofCallgraphNode *node = value;
      GdkRGBA                     color;

      sysprof_flamegraph_canvas_get_node_color (canvas, node, &color);
      printf ("frame %s %d %d %d %+.2f\n", node->function->symbol->name, (int) (color.red * 255 + 0.5),
              (int) (color.green * 255 + 0.5), (int) (color.blue * 255 + 0.5),
              sysprof_callgraph_diff_get_node_change (diff, node, NULL, NULL));
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    return usage ();
  if (!app_test_init ())
    return 77;
  if (strcmp (argv[1], "views") == 0 && argc == 5)
    return cmd_views (argv[2], argv[3], argv[4], TRUE);
  if (strcmp (argv[1], "shot") == 0 && argc == 4)
    return cmd_views (argv[2], NULL, argv[3], FALSE);
  if (strcmp (argv[1], "selection") == 0 && argc == 5)
    return cmd_selection (argv[2], g_ascii_strtod (argv[3], NULL), g_ascii_strtod (argv[4], NULL));
  if (strcmp (argv[1], "lines") == 0 && (argc == 4 || argc == 5))
    return cmd_lines (argv[2], argv[3], argc == 5 ? argv[4] : NULL);
  if (strcmp (argv[1], "record") == 0 && argc >= 4)
    return cmd_record (argv[2], argv + 3);
  if (strcmp (argv[1], "drop") == 0 && argc == 3)
    return cmd_drop (argv[2]);
  if (strcmp (argv[1], "time") == 0 && argc == 3)
    return cmd_time (argv[2]);
  if (strcmp (argv[1], "details") == 0 && argc == 3)
    return cmd_details (argv[2]);
  if (strcmp (argv[1], "groups") == 0 && argc == 4)
    return cmd_groups (argv[2], argv[3]);
  if (strcmp (argv[1], "offcpu") == 0 && argc == 4)
    return cmd_offcpu (argv[2], argv[3]);
  if (strcmp (argv[1], "dbus") == 0 && argc == 5)
    return cmd_dbus (argv[2], argv[3], argv[4]);
  if (strcmp (argv[1], "compare") == 0 && (argc == 5 || argc == 6 || argc == 8))
    return cmd_compare (argv[2], argv[3], argv[4], argc >= 6 ? argv[5] : NULL, argc == 8 ? argv[6] : NULL,
                        argc == 8 ? argv[7] : NULL);
  if (strcmp (argv[1], "refused") == 0 && argc == 3)
    return cmd_refused (argv[2]);
  return usage ();
}
