// SPDX-License-Identifier: GPL-3.0-or-later
/* The threads of a capture recorded with scheduler details (--scheduler):
 * for the threads that waited most, when each ran and when it waited, on
 * the time axis; and a sortable table of every thread's time off the CPU
 * (SysprofThreadTimes) in the selection. */
#include <string.h>

#include "sysprof-chart.h"
#include "sysprof-thread-item.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_THREADS_VIEW (sysprof_threads_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofThreadsView, sysprof_threads_view, SYSPROF, THREADS_VIEW, SysprofView)

struct _SysprofThreadsView
{
  SysprofView parent_instance;

  GtkWidget  *summary_label;
  GListStore *store;
};

G_DEFINE_FINAL_TYPE (SysprofThreadsView, sysprof_threads_view, SYSPROF_TYPE_VIEW)

#define THREAD_ROW_HEIGHT 18
/* Threads drawn on the time axis: those that waited most.  The table has
 * them all. */
#define MAX_CHART_THREADS 48

typedef enum
{
  COLUMN_PROCESS,
  COLUMN_PID,
  COLUMN_TID,
  COLUMN_OFF_CPU,
  COLUMN_WAITS,
  COLUMN_LONGEST,
  COLUMN_SAMPLES,
  N_COLUMNS
} Column;

static const char *const column_titles[N_COLUMNS] = {
  "Process", "PID", "TID", "Off CPU", "Waits", "Longest wait", "Samples",
};

/* The program of a command line: "/usr/bin/gjs -m x" reads "gjs". */
static char *
short_name (const char *cmdline)
{
  g_auto (GStrv) words = g_strsplit_set (cmdline != NULL ? cmdline : "", " \t", 2);

  if (words[0] == NULL || words[0][0] == '\0')
    return g_strdup (cmdline != NULL ? cmdline : "");
  if (words[0][0] != '[' && strchr (words[0], '/') != NULL)
    return g_path_get_basename (words[0]);
  return g_strdup (words[0]);
}

static char *
milliseconds (gint64 ns)
{
  return g_strdup_printf ("%.1f ms", (double) ns / 1e6);
}

static char *
column_text (SysprofThreadItem *item, Column column)
{
  const SysprofThreadTime *t = &item->time;

  switch (column)
    {
    case COLUMN_PROCESS: return short_name (t->process);
    case COLUMN_PID: return g_strdup_printf ("%d", t->pid);
    case COLUMN_TID: return g_strdup_printf ("%d", t->tid);
    case COLUMN_OFF_CPU: return milliseconds (t->off_cpu_ns);
    case COLUMN_WAITS: return g_strdup_printf ("%" G_GUINT64_FORMAT, t->n_waits);
    case COLUMN_LONGEST: return milliseconds (t->longest_wait_ns);
    case COLUMN_SAMPLES: return g_strdup_printf ("%" G_GUINT64_FORMAT, t->n_samples);
    case N_COLUMNS:
    default: g_assert_not_reached ();
    }
}

#define COMPARE(a, b) ((a) < (b) ? -1 : (a) > (b))

static int
compare_items (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SysprofThreadTime *ta = &((const SysprofThreadItem *) a)->time;
  const SysprofThreadTime *tb = &((const SysprofThreadItem *) b)->time;
  int                      result;

  switch ((Column) GPOINTER_TO_INT (user_data))
    {
    case COLUMN_PROCESS: result = g_utf8_collate (ta->process, tb->process); break;
    case COLUMN_PID: result = COMPARE (ta->pid, tb->pid); break;
    case COLUMN_TID: result = COMPARE (ta->tid, tb->tid); break;
    case COLUMN_OFF_CPU: result = COMPARE (ta->off_cpu_ns, tb->off_cpu_ns); break;
    case COLUMN_WAITS: result = COMPARE (ta->n_waits, tb->n_waits); break;
    case COLUMN_LONGEST: result = COMPARE (ta->longest_wait_ns, tb->longest_wait_ns); break;
    case COLUMN_SAMPLES: result = COMPARE (ta->n_samples, tb->n_samples); break;
    case N_COLUMNS:
    default: g_assert_not_reached ();
    }
  return result != 0 ? result : COMPARE (ta->tid, tb->tid);
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  Column     column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  if (column == COLUMN_PROCESS)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      sysprof_view_label_text_tooltip (label);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  gtk_list_item_set_child (list_item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  SysprofThreadItem *item = gtk_list_item_get_item (list_item);
  g_autofree char   *text = column_text (item, GPOINTER_TO_INT (user_data));

  (void) factory;
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (list_item)), text);
}

static GtkWidget *
create_table (SysprofThreadsView *self)
{
  GtkWidget           *view = gtk_column_view_new (NULL);
  GtkSortListModel    *sorted;
  GtkNoSelection      *selection;
  GtkColumnViewColumn *off_cpu = NULL;

  for (int i = 0; i < N_COLUMNS; i++)
    {
      GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      GtkSorter           *sorter = GTK_SORTER (gtk_custom_sorter_new (compare_items, GINT_TO_POINTER (i), NULL));

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GINT_TO_POINTER (i));
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GINT_TO_POINTER (i));
      column = gtk_column_view_column_new (column_titles[i], factory);
      gtk_column_view_column_set_sorter (column, sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      if (i == COLUMN_PROCESS)
        gtk_column_view_column_set_expand (column, TRUE);
      if (i == COLUMN_OFF_CPU)
        off_cpu = column;
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      g_object_unref (sorter);
      if (i != COLUMN_OFF_CPU)
        g_object_unref (column);
    }
  /* Most time off the CPU first, as sysprof-report threads. */
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), off_cpu, GTK_SORT_DESCENDING);
  g_object_unref (off_cpu);

  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                    g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view))));
  selection = gtk_no_selection_new (G_LIST_MODEL (sorted));
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view), GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_widget_set_name (view, "threads-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Threads table", -1);
  return view;
}

/* The table and its summary, for the selection. */
static void
update_table (SysprofThreadsView *self)
{
  SysprofDocument          *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  SysprofThreadTimesOptions options = SYSPROF_THREAD_TIMES_OPTIONS_INIT;
  g_autoptr (GArray) times = NULL;
  g_autofree char *summary = NULL;
  gint64           off_cpu = 0;
  guint64          waits = 0;

  if (sysprof_document_has_selection (document))
    sysprof_document_get_selection (document, &options.begin_ns, &options.end_ns);
  times = sysprof_thread_times_from_summary (sysprof_document_get_summary (document), &options);
  g_list_store_remove_all (self->store);
  for (guint i = 0; i < times->len; i++)
    {
      const SysprofThreadTime *t = &g_array_index (times, SysprofThreadTime, i);
      g_autoptr (SysprofThreadItem) item = sysprof_thread_item_new (t);

      off_cpu = MIN (off_cpu + t->off_cpu_ns, SYSPROF_SUMMARY_TIME_LIMIT);
      waits += t->n_waits;
      g_list_store_append (self->store, item);
    }
  summary = g_strdup_printf ("%u threads waited %.3f s off the CPU in %" G_GUINT64_FORMAT " waits %s", times->len,
                             (double) off_cpu / 1e9, waits,
                             sysprof_document_has_selection (document) ? "in the selection" : "in the whole capture");
  gtk_label_set_text (GTK_LABEL (self->summary_label), summary);
}

/* Each of the threads that waited most in the whole capture: a heading,
 * its running spans (between its waits, from its first to its last
 * event) and its waiting spans. */
static GtkWidget *
create_chart (SysprofDocument *document, guint *n_rows)
{
  static const GdkRGBA running_color = { 0.20f, 0.60f, 0.30f, 1.0f };
  static const GdkRGBA waiting_color = { 0.80f, 0.30f, 0.25f, 1.0f };
  GArray              *waits = sysprof_document_get_waits (document);
  GArray              *samples = sysprof_document_get_samples (document);
  GtkWidget           *chart = sysprof_chart_new (document);
  g_autoptr (GArray) times = sysprof_thread_times_from_summary (sysprof_document_get_summary (document), NULL);
  guint n = MIN (times->len, MAX_CHART_THREADS);

  sysprof_chart_set_row_height (SYSPROF_CHART (chart), THREAD_ROW_HEIGHT);
  gtk_accessible_update_property (GTK_ACCESSIBLE (chart), GTK_ACCESSIBLE_PROPERTY_LABEL, "Threads running and waiting",
                                  -1);
  for (guint i = 0; i < n; i++)
    {
      const SysprofThreadTime *t = &g_array_index (times, SysprofThreadTime, i);
      g_autoptr (GArray) wait_begins = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr (GArray) wait_ends = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr (GArray) run_begins = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr (GArray) run_ends = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autofree char *name = short_name (t->process);
      g_autofree char *heading = g_strdup_printf ("%s (%d)", name, t->tid);
      g_autofree char *description = NULL;
      gint64           first = G_MAXINT64, last = G_MININT64, cursor;
      guint            row;

      if (t->n_waits == 0)
        break;
      for (guint j = 0; j < waits->len; j++)
        {
          const SysprofSummaryWait *w = &g_array_index (waits, SysprofSummaryWait, j);
          gint64                    end = w->time_ns + w->duration_ns;

          if (w->tid != t->tid || w->pid != t->pid)
            continue;
          g_array_append_val (wait_begins, w->time_ns);
          g_array_append_val (wait_ends, end);
          first = MIN (first, w->time_ns);
          last = MAX (last, end);
        }
      for (guint j = 0; j < samples->len; j++)
        {
          const SysprofSummarySample *s = &g_array_index (samples, SysprofSummarySample, j);

          if (s->tid == t->tid && s->pid == t->pid)
            {
              first = MIN (first, s->time_ns);
              last = MAX (last, s->time_ns);
            }
        }
      /* Running (or ready to run): between the waits, in time order. */
      cursor = first;
      for (guint j = 0; j < wait_begins->len; j++)
        {
          gint64 begin = g_array_index (wait_begins, gint64, j);
          gint64 end = g_array_index (wait_ends, gint64, j);

          if (begin > cursor)
            {
              g_array_append_val (run_begins, cursor);
              g_array_append_val (run_ends, begin);
            }
          cursor = MAX (cursor, end);
        }
      if (last > cursor)
        {
          g_array_append_val (run_begins, cursor);
          g_array_append_val (run_ends, last);
        }

      description = g_strdup_printf ("%s, pid %d, thread %d\n%.1f ms off the CPU in %" G_GUINT64_FORMAT
                                     " waits (longest %.1f ms), %" G_GUINT64_FORMAT " samples on it",
                                     t->process, t->pid, t->tid, (double) t->off_cpu_ns / 1e6, t->n_waits,
                                     (double) t->longest_wait_ns / 1e6, t->n_samples);
      row = sysprof_chart_add_heading (SYSPROF_CHART (chart), heading);
      sysprof_chart_set_row_description (SYSPROF_CHART (chart), row, description);
      row = sysprof_chart_add_spans (SYSPROF_CHART (chart), "running", (const gint64 *) (gpointer) run_begins->data,
                                     (const gint64 *) (gpointer) run_ends->data, run_begins->len);
      sysprof_chart_set_row_color (SYSPROF_CHART (chart), row, &running_color);
      sysprof_chart_set_row_description (SYSPROF_CHART (chart), row, description);
      row = sysprof_chart_add_spans (SYSPROF_CHART (chart), "waiting", (const gint64 *) (gpointer) wait_begins->data,
                                     (const gint64 *) (gpointer) wait_ends->data, wait_begins->len);
      sysprof_chart_set_row_color (SYSPROF_CHART (chart), row, &waiting_color);
      sysprof_chart_set_row_description (SYSPROF_CHART (chart), row, description);
    }
  *n_rows = sysprof_chart_get_n_rows (SYSPROF_CHART (chart));
  return chart;
}

static void
sysprof_threads_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofThreadsView *self = SYSPROF_THREADS_VIEW (view);
  GtkWidget          *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget          *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget          *chart_scroller = gtk_scrolled_window_new ();
  GtkWidget          *table_scroller = gtk_scrolled_window_new ();
  guint               n_rows = 0;
  GtkWidget          *chart = create_chart (document, &n_rows);

  gtk_widget_set_name (chart, "threads-chart");
  self->summary_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary_label), 0.0f);
  gtk_widget_add_css_class (self->summary_label, "dim-label");
  gtk_widget_set_margin_start (self->summary_label, 12);
  gtk_widget_set_margin_top (self->summary_label, 6);
  gtk_widget_set_margin_bottom (self->summary_label, 6);
  gtk_box_append (GTK_BOX (box), self->summary_label);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (chart_scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (chart_scroller), chart);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (table_scroller), create_table (self));
  gtk_paned_set_start_child (GTK_PANED (paned), chart_scroller);
  gtk_paned_set_end_child (GTK_PANED (paned), table_scroller);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_size_request (chart_scroller, -1, 72);
  gtk_widget_set_size_request (table_scroller, -1, 96);
  gtk_paned_set_position (GTK_PANED (paned), MIN ((int) n_rows * THREAD_ROW_HEIGHT + 2, 420));
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), paned);
  update_table (self);
  sysprof_view_set_child (view, box);
}

static void
sysprof_threads_view_filter_changed (SysprofView *view)
{
  update_table (SYSPROF_THREADS_VIEW (view));
}

static gboolean
sysprof_threads_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_waits (document)->len > 0;
}

static void
sysprof_threads_view_dispose (GObject *object)
{
  g_clear_object (&SYSPROF_THREADS_VIEW (object)->store);
  G_OBJECT_CLASS (sysprof_threads_view_parent_class)->dispose (object);
}

static void
sysprof_threads_view_class_init (SysprofThreadsViewClass *klass)
{
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sysprof_threads_view_dispose;
  view_class->has_data = sysprof_threads_view_has_data;
  view_class->load = sysprof_threads_view_load;
  view_class->filter_changed = sysprof_threads_view_filter_changed;
  sysprof_view_class_set_info (view_class, "threads", "Threads", "text-x-generic-symbolic", 85);
}

static void
sysprof_threads_view_init (SysprofThreadsView *self)
{
  self->store = g_list_store_new (SYSPROF_TYPE_THREAD_ITEM);
}
