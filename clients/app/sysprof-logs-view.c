// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofLogsView: the LOG frames of a capture as a table (time, severity,
 * domain, message), filtered by a search entry, a severity, a domain (the
 * source: "Gtk", "GLib-GIO", a program's own) and the document's
 * selection.
 *
 * The rows are built once, off the main thread; the filters only re-run an
 * incremental GtkFilterListModel, so typing stays responsive on captures
 * with many messages. */
#include "sysprof-group-dropdown.h"
#include "sysprof-logs-row.h"
#include "sysprof-thread-task.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_LOGS_VIEW (sysprof_logs_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofLogsView, sysprof_logs_view, SYSPROF, LOGS_VIEW, SysprofView)

/* ------------------------------------------------------------------------ */
/* Severities */

/* Most severe first: a LOG frame carries GLogLevelFlags, and when several
 * level bits are set the most severe names it. */
static const struct
{
  GLogLevelFlags flag;
  const char    *name;
} severities[] = {
  { G_LOG_LEVEL_ERROR, "Error" },     { G_LOG_LEVEL_CRITICAL, "Critical" }, { G_LOG_LEVEL_WARNING, "Warning" },
  { G_LOG_LEVEL_MESSAGE, "Message" }, { G_LOG_LEVEL_INFO, "Info" },         { G_LOG_LEVEL_DEBUG, "Debug" },
};

/* Index in severities[], or G_N_ELEMENTS (severities) when no level bit is
 * set. */
static guint
severity_rank (guint flags)
{
  for (guint i = 0; i < G_N_ELEMENTS (severities); i++)
    if (flags & severities[i].flag)
      return i;
  return G_N_ELEMENTS (severities);
}

static const char *
severity_name (guint flags)
{
  guint rank = severity_rank (flags);

  return rank < G_N_ELEMENTS (severities) ? severities[rank].name : "Unknown";
}

/* ------------------------------------------------------------------------ */
/* Filter */

/* What the filter keeps; owned by the GtkCustomFilter so that it lives as
 * long as the filter does. */
typedef struct
{
  gint64 begin_ns;
  gint64 end_ns;
  /* 0: every severity, else 1 + the index in severities[]. */
  guint severity;
  /* Case-folded search text, NULL when empty. */
  char *query;
  /* Only this domain, NULL for all. */
  char *domain;
} LogsFilter;

static void
logs_filter_free (gpointer data)
{
  LogsFilter *filter = data;

  g_free (filter->query);
  g_free (filter->domain);
  g_free (filter);
}

static gboolean
logs_filter_match (gpointer item, gpointer user_data)
{
  const LogsFilter        *filter = user_data;
  const SysprofSummaryLog *log = SYSPROF_LOGS_ROW (item)->log;

  if (log->time_ns < filter->begin_ns || log->time_ns > filter->end_ns)
    return FALSE;
  if (filter->severity != 0 && severity_rank (log->severity) != filter->severity - 1)
    return FALSE;
  if (filter->domain != NULL && strcmp (log->domain, filter->domain) != 0)
    return FALSE;
  if (filter->query != NULL && strstr (SYSPROF_LOGS_ROW (item)->folded, filter->query) == NULL)
    return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Columns */

typedef struct
{
  const char *title;
  /* The cell's text, newly allocated. */
  char *(*text) (SysprofLogsRow *row);
  GCompareDataFunc compare;
  gboolean         numeric;
  gboolean         expand;
  /* Long texts are cut by the column: show them whole on hover. */
  gboolean tooltip;
  /* Errors and warnings stand out. */
  gboolean severity;
} Column;

static char *
time_text (SysprofLogsRow *row)
{
  return g_strdup_printf ("%.3f s", row->log->time_ns / 1e9);
}

static char *
severity_text (SysprofLogsRow *row)
{
  return g_strdup (severity_name (row->log->severity));
}

static char *
domain_text (SysprofLogsRow *row)
{
  return g_strdup (row->log->domain);
}

static char *
message_text (SysprofLogsRow *row)
{
  return g_strdup (row->log->message);
}

static int
compare_time (gconstpointer a, gconstpointer b, gpointer user_data)
{
  gint64 ta = SYSPROF_LOGS_ROW ((gpointer) a)->log->time_ns;
  gint64 tb = SYSPROF_LOGS_ROW ((gpointer) b)->log->time_ns;

  (void) user_data;
  return ta < tb ? GTK_ORDERING_SMALLER : ta > tb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
compare_severity (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint ra = severity_rank (SYSPROF_LOGS_ROW ((gpointer) a)->log->severity);
  guint rb = severity_rank (SYSPROF_LOGS_ROW ((gpointer) b)->log->severity);

  /* Most severe first when ascending, like the dropdown. */
  if (ra != rb)
    return ra < rb ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  return compare_time (a, b, user_data);
}

static int
ordering (int cmp)
{
  return cmp < 0 ? GTK_ORDERING_SMALLER : cmp > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
compare_domain (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = strcmp (SYSPROF_LOGS_ROW ((gpointer) a)->log->domain, SYSPROF_LOGS_ROW ((gpointer) b)->log->domain);

  return cmp != 0 ? ordering (cmp) : compare_time (a, b, user_data);
}

static int
compare_message (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = strcmp (SYSPROF_LOGS_ROW ((gpointer) a)->log->message, SYSPROF_LOGS_ROW ((gpointer) b)->log->message);

  return cmp != 0 ? ordering (cmp) : compare_time (a, b, user_data);
}

static const Column columns[] = {
  { "Time", time_text, compare_time, .numeric = TRUE },
  { "Severity", severity_text, compare_severity, .severity = TRUE },
  { "Domain", domain_text, compare_domain },
  { "Message", message_text, compare_message, .expand = TRUE, .tooltip = TRUE },
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
  SysprofLogsRow  *row = gtk_list_item_get_item (list_item);
  GtkWidget       *label = gtk_list_item_get_child (list_item);
  g_autofree char *text = column->text (row);

  (void) factory;
  gtk_label_set_text (GTK_LABEL (label), text);
  if (column->severity)
    {
      guint rank = severity_rank (row->log->severity);

      gtk_widget_remove_css_class (label, "error");
      gtk_widget_remove_css_class (label, "warning");
      if (rank <= 1)
        gtk_widget_add_css_class (label, "error");
      else if (rank == 2)
        gtk_widget_add_css_class (label, "warning");
    }
}

/* ------------------------------------------------------------------------ */
/* The view */

struct _SysprofLogsView
{
  SysprofView parent_instance;

  GCancellable       *cancellable;
  GtkFilterListModel *filtered;
  GtkCustomFilter    *filter;
  LogsFilter         *state; /* owned by @filter */
  GtkWidget          *search_entry;
  GtkWidget          *severity_dropdown;
  GtkWidget          *domain_dropdown;
  GtkWidget          *count_label;
  GtkWidget          *column_view;
  guint               n_logs;
};

G_DEFINE_FINAL_TYPE (SysprofLogsView, sysprof_logs_view, SYSPROF_TYPE_VIEW)

static gboolean
sysprof_logs_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_LOG) > 0;
}

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

static void
update_count (SysprofLogsView *self)
{
  guint            shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
  g_autofree char *shown_text = format_count (shown);
  g_autofree char *total_text = format_count (self->n_logs);
  g_autofree char *text = NULL;

  if (shown == self->n_logs)
    text = g_strdup_printf ("%s message%s", shown_text, shown == 1 ? "" : "s");
  else
    text = g_strdup_printf ("%s of %s messages", shown_text, total_text);
  gtk_label_set_text (GTK_LABEL (self->count_label), text);
}

static void
on_items_changed (GListModel *model, guint position, guint removed, guint added, SysprofLogsView *self)
{
  (void) model;
  (void) position;
  (void) removed;
  (void) added;
  update_count (self);
}

static void
refilter (SysprofLogsView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  const char      *text;

  /* Widgets may still notify while the view is torn down. */
  if (self->state == NULL || document == NULL)
    return;
  text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  sysprof_document_get_selection (document, &self->state->begin_ns, &self->state->end_ns);
  self->state->severity = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->severity_dropdown));
  if (self->state->severity == GTK_INVALID_LIST_POSITION)
    self->state->severity = 0;
  g_free (self->state->domain);
  self->state->domain = g_strdup (sysprof_group_dropdown_get_group (self->domain_dropdown));
  g_clear_pointer (&self->state->query, g_free);
  if (text != NULL && text[0] != '\0')
    self->state->query = g_utf8_casefold (text, -1);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
on_search_changed (GtkSearchEntry *entry, SysprofLogsView *self)
{
  (void) entry;
  refilter (self);
}

static void
on_dropdown_changed (GObject *dropdown, GParamSpec *pspec, SysprofLogsView *self)
{
  (void) dropdown;
  (void) pspec;
  refilter (self);
}

typedef struct
{
  GListStore *store;
  /* domain -> number of messages */
  GHashTable *domains;
} Rows;

static void
rows_free (gpointer data)
{
  Rows *rows = data;

  g_clear_object (&rows->store);
  g_clear_pointer (&rows->domains, g_hash_table_unref);
  g_free (rows);
}

/* Runs in a thread of its own: it only reads the document's scan results,
 * which never change after loading, so it need not wait behind the
 * analyses in the document's worker. */
static void
build_rows_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SysprofDocument *document = task_data;
  GArray          *logs = sysprof_document_get_logs (document);
  g_autoptr (GPtrArray) items = g_ptr_array_new_full (logs->len, g_object_unref);
  Rows *rows = g_new0 (Rows, 1);

  (void) source;
  rows->store = g_list_store_new (SYSPROF_TYPE_LOGS_ROW);
  /* The domains are the document's strings, which outlive the view. */
  rows->domains = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < logs->len; i++)
    {
      const SysprofSummaryLog *log = &g_array_index (logs, SysprofSummaryLog, i);

      if ((i & 0xfff) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      g_ptr_array_add (items, sysprof_logs_row_new (document, log));
      sysprof_group_dropdown_count (rows->domains, log->domain);
    }
  g_list_store_splice (rows->store, 0, 0, items->pdata, items->len);
  g_task_return_pointer (task, rows, rows_free);
}

static void
build_rows_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofLogsView *self = SYSPROF_LOGS_VIEW (object);
  Rows            *rows;
  g_autoptr (GError) error = NULL;

  (void) user_data;
  rows = g_task_propagate_pointer (G_TASK (result), &error);
  if (rows == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
          sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
        }
      return;
    }
  self->n_logs = g_list_model_get_n_items (G_LIST_MODEL (rows->store));
  sysprof_group_dropdown_set_groups (self->domain_dropdown, rows->domains);
  refilter (self);
  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (rows->store));
  update_count (self);
  rows_free (rows);
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
}

static void
sysprof_logs_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofLogsView *self = SYSPROF_LOGS_VIEW (view);
  g_autoptr (GTask) task = NULL;

  sysprof_view_set_busy (view, TRUE, "Reading the log…");
  task = g_task_new (self, self->cancellable, build_rows_done, NULL);
  g_task_set_source_tag (task, sysprof_logs_view_load);
  g_task_set_task_data (task, g_object_ref (document), g_object_unref);
  sysprof_thread_task_run (g_steal_pointer (&task), build_rows_thread, rows_free);
}

static void
sysprof_logs_view_filter_changed (SysprofView *view)
{
  SysprofLogsView *self = SYSPROF_LOGS_VIEW (view);
  gint64           begin, end;

  /* Only the selection matters to logs, not focused or hidden
   * functions. */
  sysprof_document_get_selection (sysprof_view_get_document (view), &begin, &end);
  if (self->state != NULL && (begin != self->state->begin_ns || end != self->state->end_ns))
    refilter (self);
}

static void
sysprof_logs_view_dispose (GObject *object)
{
  SysprofLogsView *self = SYSPROF_LOGS_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  if (self->filtered != NULL)
    g_signal_handlers_disconnect_by_func (self->filtered, on_items_changed, self);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  self->state = NULL;

  G_OBJECT_CLASS (sysprof_logs_view_parent_class)->dispose (object);
}

static void
sysprof_logs_view_finalize (GObject *object)
{
  SysprofLogsView *self = SYSPROF_LOGS_VIEW (object);

  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sysprof_logs_view_parent_class)->finalize (object);
}

static void
sysprof_logs_view_class_init (SysprofLogsViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_logs_view_dispose;
  object_class->finalize = sysprof_logs_view_finalize;
  view_class->has_data = sysprof_logs_view_has_data;
  view_class->load = sysprof_logs_view_load;
  view_class->filter_changed = sysprof_logs_view_filter_changed;
  sysprof_view_class_set_info (view_class, "logs", "Logs", "text-x-generic-symbolic", 70);
}

static GtkWidget *
create_column_view (SysprofLogsView *self)
{
  GtkWidget           *view = gtk_column_view_new (NULL);
  GtkColumnViewColumn *time_column = NULL;
  GtkSortListModel    *sorted;
  GtkSingleSelection  *selection;

  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
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
      if (i == 0)
        time_column = column;
      g_object_unref (column);
    }

  self->filter = gtk_custom_filter_new (logs_filter_match, self->state, logs_filter_free);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (g_object_ref (self->filter)));
  gtk_filter_list_model_set_incremental (self->filtered, TRUE);
  g_signal_connect (self->filtered, "items-changed", G_CALLBACK (on_items_changed), self);

  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->filtered)),
                                    g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view))));
  gtk_sort_list_model_set_incremental (sorted, TRUE);
  selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view), GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);

  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), time_column, GTK_SORT_ASCENDING);
  gtk_widget_add_css_class (view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Log messages", -1);
  return view;
}

static void
sysprof_logs_view_init (SysprofLogsView *self)
{
  GtkWidget  *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget  *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget  *scrolled = gtk_scrolled_window_new ();
  const char *choices[G_N_ELEMENTS (severities) + 2] = { "All severities" };

  self->cancellable = g_cancellable_new ();
  self->state = g_new0 (LogsFilter, 1);
  self->state->begin_ns = G_MININT64;
  self->state->end_ns = G_MAXINT64;

  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 6);

  self->search_entry = gtk_search_entry_new ();
  gtk_widget_set_hexpand (self->search_entry, TRUE);
  g_object_set (self->search_entry, "placeholder-text", "Search domains and messages", NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search_entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Search log messages", -1);
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (on_search_changed), self);
  gtk_box_append (GTK_BOX (bar), self->search_entry);

  for (guint i = 0; i < G_N_ELEMENTS (severities); i++)
    choices[i + 1] = severities[i].name;
  self->severity_dropdown = gtk_drop_down_new_from_strings (choices);
  gtk_widget_set_tooltip_text (self->severity_dropdown, "Show only the messages of this severity");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->severity_dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL, "Severity",
                                  -1);
  g_signal_connect (self->severity_dropdown, "notify::selected", G_CALLBACK (on_dropdown_changed), self);
  gtk_box_append (GTK_BOX (bar), self->severity_dropdown);

  self->domain_dropdown = sysprof_group_dropdown_new ("All domains", "Domain");
  gtk_widget_set_name (self->domain_dropdown, "group-dropdown");
  g_signal_connect (self->domain_dropdown, "notify::selected", G_CALLBACK (on_dropdown_changed), self);
  gtk_box_append (GTK_BOX (bar), self->domain_dropdown);

  self->count_label = gtk_label_new ("");
  gtk_widget_set_name (self->count_label, "count-label");
  gtk_widget_add_css_class (self->count_label, "dim-label");
  gtk_widget_add_css_class (self->count_label, "numeric");
  gtk_box_append (GTK_BOX (bar), self->count_label);
  gtk_box_append (GTK_BOX (box), bar);

  self->column_view = create_column_view (self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->column_view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);

  sysprof_view_set_child (SYSPROF_VIEW (self), box);
}
