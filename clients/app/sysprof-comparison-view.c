// SPDX-License-Identifier: GPL-3.0-or-later
/* The comparison page (sysprof-comparison-view.h). */

#include "sysprof-comparison-row.h"
#include "sysprof-comparison-view.h"

#define ROW_KEY "sysprof-comparison-row"

struct _SysprofComparisonView
{
  SysprofCallgraphBackedView parent_instance;

  SysprofDocument      *before;
  SysprofCallgraph     *before_callgraph;
  GCancellable         *before_cancellable; /* while BEFORE's callgraph is built */
  char                 *before_error;
  SysprofCallgraphDiff *diff;

  GListStore *rows;
  GtkWidget  *summary_label;
  GtkWidget  *column_view;
  GtkWidget  *canvas;
  GtkWidget  *canvas_scrolled;
  guint       scroll_idle;
};

G_DEFINE_FINAL_TYPE (SysprofComparisonView, sysprof_comparison_view, SYSPROF_TYPE_CALLGRAPH_BACKED_VIEW)

static void
update_busy (SysprofCallgraphBackedView *backed)
{
  SysprofComparisonView *self = SYSPROF_COMPARISON_VIEW (backed);
  const char            *error = sysprof_comparison_view_get_error (self);
  gboolean building = sysprof_callgraph_backed_view_get_building (backed) || self->before_cancellable != NULL;

  sysprof_view_set_busy (SYSPROF_VIEW (self), building, building ? "Comparing the captures…" : NULL);
  if (error != NULL)
    sysprof_view_set_error (SYSPROF_VIEW (self), error);
}

static void
clear_comparison (SysprofComparisonView *self)
{
  g_list_store_remove_all (self->rows);
  sysprof_flamegraph_canvas_set_diff (SYSPROF_FLAMEGRAPH_CANVAS (self->canvas), NULL);
  g_clear_object (&self->diff);
  gtk_label_set_text (GTK_LABEL (self->summary_label), "");
}

/* Both callgraphs are there: compare them. */
static void
build_comparison (SysprofComparisonView *self)
{
  SysprofCallgraph *after = sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  g_autofree char  *before_name = NULL;
  g_autofree char  *summary = NULL;
  g_autoptr (GPtrArray) items = NULL;
  guint n;

  if (after == NULL || self->before_callgraph == NULL)
    return;
  clear_comparison (self);
  self->diff = sysprof_callgraph_diff_new (self->before_callgraph, after, SYSPROF_CALLGRAPH_DIFF_SORT_SELF);
  n = sysprof_callgraph_diff_get_n_rows (self->diff);
  items = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, sysprof_comparison_row_new (self->diff, i));
  g_list_store_splice (self->rows, 0, 0, items->pdata, items->len);
  sysprof_flamegraph_canvas_set_diff (SYSPROF_FLAMEGRAPH_CANVAS (self->canvas), self->diff);

  before_name = g_file_get_basename (sysprof_document_get_file (self->before));
  summary = g_strdup_printf ("Compared with %s: %" G_GUINT64_FORMAT " samples there, %" G_GUINT64_FORMAT
                             " here.  Shares of each capture's samples; changes in points, largest first.  "
                             "Flame graph: red grew, blue shrank (strongest: %.2f points).",
                             before_name, sysprof_callgraph_get_n_samples (self->before_callgraph),
                             sysprof_callgraph_get_n_samples (after),
                             sysprof_callgraph_diff_get_max_node_change (self->diff));
  gtk_label_set_text (GTK_LABEL (self->summary_label), summary);
}

static void
on_before_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofCallgraph) callgraph =
      sysprof_document_callgraph_finish (SYSPROF_DOCUMENT (object), result, &error);
  SysprofComparisonView *self;

  /* Cancelled: the view is gone or asked again; @user_data is not to be
   * touched. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = SYSPROF_COMPARISON_VIEW (user_data);
  g_clear_object (&self->before_cancellable);
  if (callgraph == NULL)
    {
      g_autofree char *name = g_file_get_basename (sysprof_document_get_file (self->before));

      self->before_error = g_strdup_printf ("Cannot compare with %s: %s", name, error->message);
    }
  else
    self->before_callgraph = g_steal_pointer (&callgraph);
  update_busy (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  build_comparison (self);
}

/* BEFORE's callgraph, with the functions focused and hidden in AFTER. */
static void
request_before (SysprofComparisonView *self)
{
  SysprofDocument   *after = sysprof_view_get_document (SYSPROF_VIEW (self));
  const char *const *focused = sysprof_document_get_focused_functions (after);
  const char *const *hidden = sysprof_document_get_hidden_functions (after);

  if (self->before_cancellable != NULL)
    g_cancellable_cancel (self->before_cancellable);
  g_clear_object (&self->before_cancellable);
  g_clear_object (&self->before_callgraph);
  g_clear_pointer (&self->before_error, g_free);
  clear_comparison (self);

  sysprof_document_reset_functions (self->before);
  for (guint i = 0; focused != NULL && focused[i] != NULL; i++)
    sysprof_document_focus_function (self->before, focused[i]);
  for (guint i = 0; hidden != NULL && hidden[i] != NULL; i++)
    sysprof_document_hide_function (self->before, hidden[i]);

  self->before_cancellable = g_cancellable_new ();
  update_busy (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  /* No reference: dispose cancels, and a cancelled callback returns before
   * it looks at the view. */
  sysprof_document_callgraph_async (self->before, SYSPROF_CALLGRAPH_SOURCE_SAMPLES, SYSPROF_CALLGRAPH_WEIGHT_COUNT,
                                    self->before_cancellable, on_before_ready, self);
}

static void
sysprof_comparison_view_filter_changed (SysprofView *view)
{
  SysprofComparisonView *self = SYSPROF_COMPARISON_VIEW (view);

  SYSPROF_VIEW_CLASS (sysprof_comparison_view_parent_class)->filter_changed (view);
  if (self->before != NULL)
    request_before (self);
}

static void
sysprof_comparison_view_callgraph_cleared (SysprofCallgraphBackedView *backed)
{
  clear_comparison (SYSPROF_COMPARISON_VIEW (backed));
}

static void
sysprof_comparison_view_callgraph_ready (SysprofCallgraphBackedView *backed, SysprofCallgraph *callgraph)
{
  (void) callgraph;
  build_comparison (SYSPROF_COMPARISON_VIEW (backed));
}

/* ------------------------------------------------------------------------ */
/* The table */

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  SysprofComparisonColumn column = GPOINTER_TO_INT (user_data);
  GtkWidget              *label = gtk_label_new (NULL);

  (void) factory;
  if (column == SYSPROF_COMPARISON_COLUMN_NAME || column == SYSPROF_COMPARISON_COLUMN_LIBRARY)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      sysprof_view_label_text_tooltip (label);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0f);
      gtk_widget_add_css_class (label, "numeric");
    }
  if (column == SYSPROF_COMPARISON_COLUMN_LIBRARY)
    gtk_widget_add_css_class (label, "dim-label");
  gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  SysprofComparisonColumn column = GPOINTER_TO_INT (user_data);
  SysprofComparisonRow   *row = gtk_list_item_get_item (item);
  GtkWidget              *label = gtk_list_item_get_child (item);
  g_autofree char        *text = sysprof_comparison_row_dup_text (row, column);

  (void) factory;
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_remove_css_class (label, "error");
  gtk_widget_remove_css_class (label, "accent");
  if (column == SYSPROF_COMPARISON_COLUMN_SELF_CHANGE || column == SYSPROF_COMPARISON_COLUMN_TOTAL_CHANGE)
    {
      double change = column == SYSPROF_COMPARISON_COLUMN_SELF_CHANGE ? row->row->self_change : row->row->total_change;

      /* Red grew, blue shrank, as in the flame graph below. */
      if (change >= 0.005)
        gtk_widget_add_css_class (label, "error");
      else if (change <= -0.005)
        gtk_widget_add_css_class (label, "accent");
    }
}

static void
add_column (GtkColumnView *view, const char *title, SysprofComparisonColumn column, gboolean expand)
{
  GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *col;

  g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (column));
  g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), GINT_TO_POINTER (column));
  col = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_expand (col, expand);
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_append_column (view, col);
  g_object_unref (col);
}

/* ------------------------------------------------------------------------ */
/* The flame graph keeps its root, at the bottom, in view. */

static gboolean
scroll_to_bottom (gpointer user_data)
{
  SysprofComparisonView *self = user_data;
  GtkAdjustment         *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->canvas_scrolled));

  self->scroll_idle = 0;
  gtk_adjustment_set_value (adjustment,
                            gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
  return G_SOURCE_REMOVE;
}

/* From an idle: the viewport sets the value it wants right after it
 * changes the bounds. */
static void
on_vadjustment_changed (GtkAdjustment *adjustment, SysprofComparisonView *self)
{
  (void) adjustment;
  if (self->scroll_idle == 0)
    self->scroll_idle = g_idle_add (scroll_to_bottom, self);
}

/* ------------------------------------------------------------------------ */

static void
sysprof_comparison_view_dispose (GObject *object)
{
  SysprofComparisonView *self = SYSPROF_COMPARISON_VIEW (object);

  if (self->before_cancellable != NULL)
    g_cancellable_cancel (self->before_cancellable);
  g_clear_object (&self->before_cancellable);
  g_clear_handle_id (&self->scroll_idle, g_source_remove);
  G_OBJECT_CLASS (sysprof_comparison_view_parent_class)->dispose (object);
}

static void
sysprof_comparison_view_finalize (GObject *object)
{
  SysprofComparisonView *self = SYSPROF_COMPARISON_VIEW (object);

  g_clear_object (&self->diff);
  g_clear_object (&self->before_callgraph);
  g_clear_object (&self->before);
  g_clear_object (&self->rows);
  g_free (self->before_error);
  G_OBJECT_CLASS (sysprof_comparison_view_parent_class)->finalize (object);
}

static void
sysprof_comparison_view_class_init (SysprofComparisonViewClass *klass)
{
  GObjectClass                    *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass                *view_class = SYSPROF_VIEW_CLASS (klass);
  SysprofCallgraphBackedViewClass *backed_class = SYSPROF_CALLGRAPH_BACKED_VIEW_CLASS (klass);

  object_class->dispose = sysprof_comparison_view_dispose;
  object_class->finalize = sysprof_comparison_view_finalize;
  view_class->filter_changed = sysprof_comparison_view_filter_changed;
  backed_class->callgraph_cleared = sysprof_comparison_view_callgraph_cleared;
  backed_class->callgraph_ready = sysprof_comparison_view_callgraph_ready;
  backed_class->update_busy = update_busy;
  sysprof_view_class_set_info (view_class, "comparison", "Comparison", "view-dual-symbolic", 35);
  sysprof_callgraph_backed_view_class_set_callgraph (backed_class, SYSPROF_CALLGRAPH_SOURCE_SAMPLES,
                                                     SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_AT_LOAD,
                                                     "Comparing the captures…");
}

static void
sysprof_comparison_view_init (SysprofComparisonView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *table_scrolled = gtk_scrolled_window_new ();
  g_autoptr (GtkNoSelection) selection = NULL;

  self->rows = g_list_store_new (SYSPROF_TYPE_COMPARISON_ROW);

  self->summary_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary_label), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->summary_label), TRUE);
  gtk_widget_set_margin_start (self->summary_label, 12);
  gtk_widget_set_margin_end (self->summary_label, 12);
  gtk_widget_set_margin_top (self->summary_label, 6);
  gtk_widget_set_margin_bottom (self->summary_label, 6);
  gtk_widget_set_name (self->summary_label, "comparison-summary");
  gtk_box_append (GTK_BOX (box), self->summary_label);

  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->rows)));
  self->column_view = gtk_column_view_new (GTK_SELECTION_MODEL (g_steal_pointer (&selection)));
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (self->column_view), TRUE);
  gtk_widget_add_css_class (self->column_view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->column_view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Functions compared", -1);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Function", SYSPROF_COMPARISON_COLUMN_NAME, TRUE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Library", SYSPROF_COMPARISON_COLUMN_LIBRARY, FALSE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Self Before", SYSPROF_COMPARISON_COLUMN_BEFORE_SELF, FALSE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Self After", SYSPROF_COMPARISON_COLUMN_AFTER_SELF, FALSE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Change", SYSPROF_COMPARISON_COLUMN_SELF_CHANGE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Total Before", SYSPROF_COMPARISON_COLUMN_BEFORE_TOTAL, FALSE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Total After", SYSPROF_COMPARISON_COLUMN_AFTER_TOTAL, FALSE);
  add_column (GTK_COLUMN_VIEW (self->column_view), "Total Change", SYSPROF_COMPARISON_COLUMN_TOTAL_CHANGE, FALSE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (table_scrolled), self->column_view);
  gtk_widget_set_vexpand (table_scrolled, TRUE);

  self->canvas = sysprof_flamegraph_canvas_new ();
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->canvas), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Differential flame graph", -1);
  self->canvas_scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->canvas_scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->canvas_scrolled), self->canvas);
  g_signal_connect (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->canvas_scrolled)), "changed",
                    G_CALLBACK (on_vadjustment_changed), self);

  gtk_paned_set_start_child (GTK_PANED (paned), table_scrolled);
  gtk_paned_set_end_child (GTK_PANED (paned), self->canvas_scrolled);
  gtk_paned_set_position (GTK_PANED (paned), 260);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), paned);

  sysprof_view_set_child (SYSPROF_VIEW (self), box);
}

SysprofView *
sysprof_comparison_view_new (SysprofDocument *after, SysprofDocument *before)
{
  SysprofComparisonView *self;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (after), NULL);
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (before), NULL);

  /* Its load() asks for AFTER's callgraph, then BEFORE's is asked here. */
  self = SYSPROF_COMPARISON_VIEW (sysprof_view_new (SYSPROF_TYPE_COMPARISON_VIEW, after));
  self->before = g_object_ref (before);
  request_before (self);
  return SYSPROF_VIEW (self);
}

SysprofDocument *
sysprof_comparison_view_get_before (SysprofComparisonView *self)
{
  g_return_val_if_fail (SYSPROF_IS_COMPARISON_VIEW (self), NULL);
  return self->before;
}

SysprofCallgraphDiff *
sysprof_comparison_view_get_diff (SysprofComparisonView *self)
{
  g_return_val_if_fail (SYSPROF_IS_COMPARISON_VIEW (self), NULL);
  return self->diff;
}

GListModel *
sysprof_comparison_view_get_rows (SysprofComparisonView *self)
{
  g_return_val_if_fail (SYSPROF_IS_COMPARISON_VIEW (self), NULL);
  return G_LIST_MODEL (self->rows);
}

SysprofFlamegraphCanvas *
sysprof_comparison_view_get_canvas (SysprofComparisonView *self)
{
  g_return_val_if_fail (SYSPROF_IS_COMPARISON_VIEW (self), NULL);
  return SYSPROF_FLAMEGRAPH_CANVAS (self->canvas);
}

const char *
sysprof_comparison_view_get_error (SysprofComparisonView *self)
{
  const char *error;

  g_return_val_if_fail (SYSPROF_IS_COMPARISON_VIEW (self), NULL);
  error = sysprof_callgraph_backed_view_get_error (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  return error != NULL ? error : self->before_error;
}
