// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarksView: the MARK frames of a capture.
 *
 * On top, a waterfall: one row per (group, name), each mark a bar over the
 * document's visible range, lined up with the timeline ruler (same gutter);
 * clicking a mark selects its span, dragging selects a range.  Below, two
 * tables restricted to the document's selection: per (group, name) the
 * count and the total, min, max, mean and median durations, and every mark.
 * A drop-down narrows all of it to one group, the marks' source ("gtk",
 * "glib", "gjs", a program's own).
 *
 * A mark belongs to the selection when it overlaps it: a long mark that
 * covers the whole selection is what was going on then.
 *
 * The waterfall's rows and the tables are built in a thread of their own:
 * they only read the document's scan results, which never change after
 * loading, so they need not wait behind the analyses in the document's
 * worker. */
#include <string.h>

#include "sysprof-group-dropdown.h"
#include "sysprof-mark-key.h"
#include "sysprof-marks-item.h"
#include "sysprof-marks-stat.h"
#include "sysprof-marks-waterfall.h"
#include "sysprof-thread-task.h"
#include "sysprof-time-axis.h"
#include "sysprof-view.h"

/* The list of every mark stops there: GtkSortListModel sorts and frees
 * its items on the main thread, and half a million marks would freeze the
 * window for seconds.  The summary always counts them all. */
#define MAX_LISTED_MARKS 100000

#define SYSPROF_TYPE_MARKS_VIEW (sysprof_marks_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksView, sysprof_marks_view, SYSPROF, MARKS_VIEW, SysprofView)

/* ------------------------------------------------------------------------ */
/* Counts and order */

/* Digits in groups of three, apart by a narrow no-break space: readable in
 * every locale, unlike a comma or a dot. */
static char *
format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  gsize            len = strlen (digits);
  GString         *out = g_string_new (NULL);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (out, "\u202f");
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

static int
ordering_of (double a, double b)
{
  return a < b ? GTK_ORDERING_SMALLER : a > b ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
ordering_of_strings (const char *a, const char *b)
{
  int cmp = strcmp (a, b);

  return cmp < 0 ? GTK_ORDERING_SMALLER : cmp > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

/* ------------------------------------------------------------------------ */
/* Columns of both tables */

typedef struct
{
  const char *title;
  /* The cell's text, newly allocated. */
  char *(*text) (gpointer item);
  GCompareDataFunc compare;
  gboolean         numeric;
  gboolean         expand;
  /* Long texts are cut by the column: show them whole on hover. */
  gboolean tooltip;
} Column;

/* Plain casts: the stores hold nothing else, and sorting a hundred
 * thousand marks calls these millions of times. */
#define STAT(item) ((SysprofMarksStat *) (item))
#define MARK(item) (((SysprofMarksItem *) (item))->mark)

static char *
stat_group_text (gpointer item)
{
  return g_strdup (STAT (item)->group);
}

static char *
stat_name_text (gpointer item)
{
  return g_strdup (STAT (item)->name);
}

static char *
stat_count_text (gpointer item)
{
  return format_count (STAT (item)->count);
}

static char *
stat_total_text (gpointer item)
{
  return sysprof_time_format_duration (STAT (item)->total_ns);
}

static char *
stat_min_text (gpointer item)
{
  return sysprof_time_format_duration (STAT (item)->min_ns);
}

static char *
stat_max_text (gpointer item)
{
  return sysprof_time_format_duration (STAT (item)->max_ns);
}

static char *
stat_mean_text (gpointer item)
{
  return sysprof_time_format_duration (STAT (item)->mean_ns);
}

static char *
stat_median_text (gpointer item)
{
  return sysprof_time_format_duration (STAT (item)->median_ns);
}

static int
compare_stat_group (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = ordering_of_strings (STAT ((gpointer) a)->group, STAT ((gpointer) b)->group);

  (void) user_data;
  return cmp != GTK_ORDERING_EQUAL ? cmp : ordering_of_strings (STAT ((gpointer) a)->name, STAT ((gpointer) b)->name);
}

static int
compare_stat_name (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = ordering_of_strings (STAT ((gpointer) a)->name, STAT ((gpointer) b)->name);

  return cmp != GTK_ORDERING_EQUAL ? cmp : compare_stat_group (a, b, user_data);
}

#define COMPARE_STAT_FIELD(field)                                                        \
  static int compare_stat_##field (gconstpointer a, gconstpointer b, gpointer user_data) \
  {                                                                                      \
    int cmp = ordering_of (STAT ((gpointer) a)->field, STAT ((gpointer) b)->field);      \
                                                                                         \
    return cmp != GTK_ORDERING_EQUAL ? cmp : compare_stat_group (a, b, user_data);       \
  }

COMPARE_STAT_FIELD (count)
COMPARE_STAT_FIELD (total_ns)
COMPARE_STAT_FIELD (min_ns)
COMPARE_STAT_FIELD (max_ns)
COMPARE_STAT_FIELD (mean_ns)
COMPARE_STAT_FIELD (median_ns)

static const Column stat_columns[] = {
  { "Group", stat_group_text, compare_stat_group, .tooltip = TRUE },
  { "Name", stat_name_text, compare_stat_name, .expand = TRUE, .tooltip = TRUE },
  { "Count", stat_count_text, compare_stat_count, .numeric = TRUE },
  { "Total", stat_total_text, compare_stat_total_ns, .numeric = TRUE },
  { "Min", stat_min_text, compare_stat_min_ns, .numeric = TRUE },
  { "Max", stat_max_text, compare_stat_max_ns, .numeric = TRUE },
  { "Mean", stat_mean_text, compare_stat_mean_ns, .numeric = TRUE },
  { "Median", stat_median_text, compare_stat_median_ns, .numeric = TRUE },
};

/* The column the summary is sorted by at first: the most time first. */
#define STAT_COLUMN_TOTAL 3

static char *
mark_time_text (gpointer item)
{
  return g_strdup_printf ("%.6f s", MARK (item)->time_ns / 1e9);
}

static char *
mark_duration_text (gpointer item)
{
  return sysprof_time_format_duration (MARK (item)->duration_ns);
}

static char *
mark_group_text (gpointer item)
{
  return g_strdup (MARK (item)->group);
}

static char *
mark_name_text (gpointer item)
{
  return g_strdup (MARK (item)->name);
}

static char *
mark_message_text (gpointer item)
{
  return g_strdup (MARK (item)->message);
}

static int
compare_mark_time (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SysprofSummaryMark *ma = MARK ((gpointer) a);
  const SysprofSummaryMark *mb = MARK ((gpointer) b);

  (void) user_data;
  if (ma->time_ns != mb->time_ns)
    return ma->time_ns < mb->time_ns ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  /* Same time: keep the document's order, so that sorting is stable. */
  return ma < mb ? GTK_ORDERING_SMALLER : ma > mb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
compare_mark_duration (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = ordering_of (MARK ((gpointer) a)->duration_ns, MARK ((gpointer) b)->duration_ns);

  return cmp != GTK_ORDERING_EQUAL ? cmp : compare_mark_time (a, b, user_data);
}

#define COMPARE_MARK_STRING(field)                                                          \
  static int compare_mark_##field (gconstpointer a, gconstpointer b, gpointer user_data)    \
  {                                                                                         \
    int cmp = ordering_of_strings (MARK ((gpointer) a)->field, MARK ((gpointer) b)->field); \
                                                                                            \
    return cmp != GTK_ORDERING_EQUAL ? cmp : compare_mark_time (a, b, user_data);           \
  }

COMPARE_MARK_STRING (group)
COMPARE_MARK_STRING (name)
COMPARE_MARK_STRING (message)

static const Column mark_columns[] = {
  { "Time", mark_time_text, compare_mark_time, .numeric = TRUE },
  { "Duration", mark_duration_text, compare_mark_duration, .numeric = TRUE },
  { "Group", mark_group_text, compare_mark_group, .tooltip = TRUE },
  { "Name", mark_name_text, compare_mark_name, .tooltip = TRUE },
  { "Message", mark_message_text, compare_mark_message, .expand = TRUE, .tooltip = TRUE },
};

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const Column *column = user_data;
  GtkWidget    *label = gtk_label_new (NULL);

  (void) factory;
  gtk_label_set_xalign (GTK_LABEL (label), column->numeric ? 1.0f : 0.0f);
  if (column->numeric)
    gtk_widget_add_css_class (label, "numeric");
  else
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (column->tooltip)
    sysprof_view_label_text_tooltip (label);
  gtk_list_item_set_child (list_item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const Column    *column = user_data;
  GtkWidget       *label = gtk_list_item_get_child (list_item);
  g_autofree char *text = column->text (gtk_list_item_get_item (list_item));

  (void) factory;
  gtk_label_set_text (GTK_LABEL (label), text);
}

/* A sortable table of @columns, sorted by @sort_column at first; *@sorted
 * receives the sort model, whose model the caller replaces with its data. */
static GtkWidget *
create_table (const Column      *columns,
              guint              n_columns,
              guint              sort_column,
              GtkSortType        sort_type,
              const char        *accessible_label,
              GtkSortListModel **sorted)
{
  GtkWidget          *view = gtk_column_view_new (NULL);
  GtkWidget          *scrolled = gtk_scrolled_window_new ();
  GtkSingleSelection *selection;

  *sorted = gtk_sort_list_model_new (NULL, g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view))));
  gtk_sort_list_model_set_incremental (*sorted, TRUE);
  selection = gtk_single_selection_new (G_LIST_MODEL (*sorted));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view), GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);

  for (guint i = 0; i < n_columns; i++)
    {
      GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      g_autoptr (GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (columns[i].compare, NULL, NULL));

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), (gpointer) &columns[i]);
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), (gpointer) &columns[i]);
      column = gtk_column_view_column_new (columns[i].title, factory);
      gtk_column_view_column_set_sorter (column, sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, columns[i].expand);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      if (i == sort_column)
        gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), column, sort_type);
      g_object_unref (column);
    }

  gtk_widget_add_css_class (view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  return scrolled;
}

/* ------------------------------------------------------------------------ */
/* Summarizing the selection, in a thread */

typedef struct
{
  SysprofDocument *document;
  gint64           begin_ns;
  gint64           end_ns;
  gboolean         with_rows;
  gboolean         with_groups;
  /* Only this group's marks; NULL for all. */
  char *group;
} Request;

typedef struct
{
  GPtrArray  *rows; /* the waterfall's, only when asked */
  GListStore *stats;
  /* The first MAX_LISTED_MARKS of the @n_marks marks in the selection. */
  GListStore *marks;
  guint       n_marks;
  /* group -> number of marks in the whole capture, only when asked */
  GHashTable *groups;
} Summary;

static void
request_free (gpointer data)
{
  Request *request = data;

  g_object_unref (request->document);
  g_free (request->group);
  g_free (request);
}

static void
summary_free (gpointer data)
{
  Summary *summary = data;

  g_clear_pointer (&summary->rows, g_ptr_array_unref);
  g_clear_object (&summary->stats);
  g_clear_object (&summary->marks);
  g_clear_pointer (&summary->groups, g_hash_table_unref);
  g_free (summary);
}

static SysprofMarksStat *
stat_of (const SysprofMarkStat *row)
{
  SysprofMarksStat *stat = g_object_new (SYSPROF_TYPE_MARKS_STAT, NULL);

  stat->group = g_strdup (row->group);
  stat->name = g_strdup (row->name);
  stat->count = (guint) MIN (row->count, G_MAXUINT);
  stat->total_ns = row->total_ns;
  stat->min_ns = row->min_ns;
  stat->max_ns = row->max_ns;
  stat->mean_ns = row->mean_ns;
  stat->median_ns = row->median_ns;
  return stat;
}

static void
summarize_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Request                *request = task_data;
  GArray                 *marks = sysprof_document_get_marks (request->document);
  SysprofMarkStatsOptions options = SYSPROF_MARK_STATS_OPTIONS_INIT;
  g_autoptr (GArray) rows = NULL;
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) stats = g_ptr_array_new_with_free_func (g_object_unref);
  Summary *summary = g_new0 (Summary, 1);

  (void) source;
  if (request->with_rows)
    summary->rows = sysprof_marks_waterfall_build_rows (marks, request->group);
  if (request->with_groups)
    {
      /* The groups are the document's strings, which outlive the view. */
      summary->groups = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < marks->len; i++)
        sysprof_group_dropdown_count (summary->groups, g_array_index (marks, SysprofSummaryMark, i).group);
    }

  for (guint i = 0; i < marks->len; i++)
    {
      const SysprofSummaryMark *mark = &g_array_index (marks, SysprofSummaryMark, i);

      if ((i & 0xffff) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      /* Marks are in time order: none after this one starts in time. */
      if (mark->time_ns > request->end_ns)
        break;
      if (sysprof_time_add (mark->time_ns, mark->duration_ns) < request->begin_ns)
        continue;
      if (request->group != NULL && strcmp (mark->group, request->group) != 0)
        continue;

      summary->n_marks++;
      if (items->len < MAX_LISTED_MARKS)
        g_ptr_array_add (items, sysprof_marks_item_new (request->document, mark));
    }

  /* Per (group, name), every mark the selection crosses. */
  options.begin_ns = request->begin_ns;
  options.end_ns = request->end_ns;
  options.overlapping = TRUE;
  options.group = request->group;
  rows =
      sysprof_mark_stats_from_summary_marks ((const SysprofSummaryMark *) (gpointer) marks->data, marks->len, &options);
  for (guint i = 0; i < rows->len; i++)
    g_ptr_array_add (stats, stat_of (&g_array_index (rows, SysprofMarkStat, i)));

  summary->stats = g_list_store_new (SYSPROF_TYPE_MARKS_STAT);
  g_list_store_splice (summary->stats, 0, 0, stats->pdata, stats->len);
  summary->marks = g_list_store_new (SYSPROF_TYPE_MARKS_ITEM);
  g_list_store_splice (summary->marks, 0, 0, items->pdata, items->len);
  g_task_return_pointer (task, summary, summary_free);
}

/* ------------------------------------------------------------------------ */
/* The view */

struct _SysprofMarksView
{
  SysprofView parent_instance;

  GCancellable     *cancellable;
  GtkWidget        *paned;
  GtkWidget        *waterfall;
  GtkWidget        *count_label;
  GtkWidget        *group_dropdown;
  GtkSortListModel *stats_model;
  GtkSortListModel *marks_model;
  gboolean          have_rows;
  gboolean          have_groups;
  /* The selection of the last summary asked for. */
  gint64 begin_ns;
  gint64 end_ns;
};

G_DEFINE_FINAL_TYPE (SysprofMarksView, sysprof_marks_view, SYSPROF_TYPE_VIEW)

static gboolean
sysprof_marks_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_MARK) > 0;
}

static void on_group_changed (GObject *dropdown, GParamSpec *pspec, SysprofMarksView *self);

static void
summarize_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (object);
  SysprofDocument  *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  g_autoptr (GError) error = NULL;
  Summary         *summary;
  guint            n_marks;
  g_autofree char *text = NULL;
  g_autofree char *count = NULL;

  (void) user_data;
  summary = g_task_propagate_pointer (G_TASK (result), &error);
  if (summary == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
          sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
        }
      return;
    }

  if (summary->rows != NULL)
    {
      guint n_rows = summary->rows->len;

      sysprof_marks_waterfall_set_rows (SYSPROF_MARKS_WATERFALL (self->waterfall), g_steal_pointer (&summary->rows));
      /* Show every row when there are few, a scrollable part of them
       * otherwise; the tables get the rest. */
      gtk_paned_set_position (GTK_PANED (self->paned), (int) MIN (n_rows, 10) * SYSPROF_MARKS_WATERFALL_ROW_HEIGHT + 2);
      self->have_rows = TRUE;
    }
  if (summary->groups != NULL)
    {
      /* Setting the groups selects "All", which asks for a summary of
       * all: the one just made. */
      g_signal_handlers_block_by_func (self->group_dropdown, on_group_changed, self);
      sysprof_group_dropdown_set_groups (self->group_dropdown, summary->groups);
      g_signal_handlers_unblock_by_func (self->group_dropdown, on_group_changed, self);
      self->have_groups = TRUE;
    }
  gtk_sort_list_model_set_model (self->stats_model, G_LIST_MODEL (summary->stats));
  gtk_sort_list_model_set_model (self->marks_model, G_LIST_MODEL (summary->marks));

  n_marks = summary->n_marks;
  count = format_count (n_marks);
  text = g_strdup_printf ("%s mark%s%s", count, n_marks == 1 ? "" : "s",
                          sysprof_document_has_selection (document) ? " in the selection" : "");
  if (n_marks > MAX_LISTED_MARKS)
    {
      g_autofree char *limit = format_count (MAX_LISTED_MARKS);
      g_autofree char *shown = g_strdup_printf ("%s; All Marks lists the first %s", text, limit);

      g_free (text);
      text = g_steal_pointer (&shown);
    }
  gtk_label_set_text (GTK_LABEL (self->count_label), text);
  summary_free (summary);
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
}

static void
summarize (SysprofMarksView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  Request         *request = g_new0 (Request, 1);
  g_autoptr (GTask) task = NULL;

  /* A newer selection makes the summary in flight useless. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  request->document = g_object_ref (document);
  request->with_rows = !self->have_rows;
  request->with_groups = !self->have_groups;
  request->group = g_strdup (sysprof_group_dropdown_get_group (self->group_dropdown));
  sysprof_document_get_selection (document, &request->begin_ns, &request->end_ns);
  self->begin_ns = request->begin_ns;
  self->end_ns = request->end_ns;

  sysprof_view_set_busy (SYSPROF_VIEW (self), TRUE, "Summarizing the marks…");
  task = g_task_new (self, self->cancellable, summarize_done, NULL);
  g_task_set_source_tag (task, summarize);
  g_task_set_task_data (task, request, request_free);
  sysprof_thread_task_run (g_steal_pointer (&task), summarize_thread, summary_free);
}

/* The waterfall shows the group's rows only. */
static void
on_group_changed (GObject *dropdown, GParamSpec *pspec, SysprofMarksView *self)
{
  (void) dropdown;
  (void) pspec;
  if (sysprof_view_get_document (SYSPROF_VIEW (self)) == NULL)
    return;
  self->have_rows = FALSE;
  summarize (self);
}

static void
sysprof_marks_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (view);
  GtkWidget        *scrolled = gtk_scrolled_window_new ();

  self->waterfall = sysprof_marks_waterfall_new (document);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->waterfall);
  gtk_paned_set_start_child (GTK_PANED (self->paned), scrolled);
  summarize (self);
}

static void
sysprof_marks_view_filter_changed (SysprofView *view)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (view);
  gint64            begin, end;

  /* Only the selection matters to marks, not focused or hidden
   * functions. */
  sysprof_document_get_selection (sysprof_view_get_document (view), &begin, &end);
  if (begin != self->begin_ns || end != self->end_ns)
    summarize (self);
}

static void
sysprof_marks_view_dispose (GObject *object)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sysprof_marks_view_parent_class)->dispose (object);
}

static void
sysprof_marks_view_class_init (SysprofMarksViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_marks_view_dispose;
  view_class->has_data = sysprof_marks_view_has_data;
  view_class->load = sysprof_marks_view_load;
  view_class->filter_changed = sysprof_marks_view_filter_changed;
  sysprof_view_class_set_info (view_class, "marks", "Marks", "text-x-generic-symbolic", 60);
}

static void
sysprof_marks_view_init (SysprofMarksView *self)
{
  GtkWidget *tables = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *bar = gtk_center_box_new ();
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *switcher = gtk_stack_switcher_new ();

  self->paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_shrink_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (self->paned), FALSE);

  gtk_stack_add_titled (GTK_STACK (stack),
                        create_table (stat_columns, G_N_ELEMENTS (stat_columns), STAT_COLUMN_TOTAL, GTK_SORT_DESCENDING,
                                      "Mark statistics", &self->stats_model),
                        "summary", "Summary");
  gtk_stack_add_titled (
      GTK_STACK (stack),
      create_table (mark_columns, G_N_ELEMENTS (mark_columns), 0, GTK_SORT_ASCENDING, "Marks", &self->marks_model),
      "marks", "All Marks");
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (stack));
  gtk_accessible_update_property (GTK_ACCESSIBLE (switcher), GTK_ACCESSIBLE_PROPERTY_LABEL, "Mark tables", -1);

  self->count_label = gtk_label_new ("");
  gtk_widget_set_name (self->count_label, "count-label");
  gtk_widget_add_css_class (self->count_label, "dim-label");
  gtk_widget_set_margin_end (self->count_label, 6);
  self->group_dropdown = sysprof_group_dropdown_new ("All groups", "Mark group");
  gtk_widget_set_name (self->group_dropdown, "group-dropdown");
  gtk_widget_set_margin_start (self->group_dropdown, 6);
  g_signal_connect (self->group_dropdown, "notify::selected", G_CALLBACK (on_group_changed), self);
  gtk_center_box_set_start_widget (GTK_CENTER_BOX (bar), self->group_dropdown);
  gtk_center_box_set_center_widget (GTK_CENTER_BOX (bar), switcher);
  gtk_center_box_set_end_widget (GTK_CENTER_BOX (bar), self->count_label);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 6);
  gtk_box_append (GTK_BOX (tables), bar);
  gtk_widget_set_vexpand (stack, TRUE);
  gtk_box_append (GTK_BOX (tables), stack);
  gtk_paned_set_end_child (GTK_PANED (self->paned), tables);

  sysprof_view_set_child (SYSPROF_VIEW (self), self->paned);
}
