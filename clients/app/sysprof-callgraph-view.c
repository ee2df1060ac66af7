// SPDX-License-Identifier: GPL-3.0-or-later
/* The callgraph page: a table of functions (self and total, searchable,
 * sortable), the callers and callees of the selected one, and the top-down
 * call tree on a second tab.  The callgraph comes from the document (its
 * worker builds it and caches it, so the flame graph shares it); a change
 * of the filter asks for a new one and cancels the request before (see
 * request_callgraph() for when).
 *
 * A right click on a function of any table (or Shift+F10, the Menu key)
 * offers to focus on it or hide it; both go into the document's filter,
 * which every view follows. */

#include <string.h>

#include "sysprof-callgraph-view.h"
#include "sysprof-function-filter.h"

/* ------------------------------------------------------------------------ */
/* Rows of the tables */

#define SYSPROF_TYPE_CALLGRAPH_VIEW_ROW (sysprof_callgraph_view_row_get_type ())
G_DECLARE_FINAL_TYPE (SysprofCallgraphViewRow, sysprof_callgraph_view_row, SYSPROF, CALLGRAPH_VIEW_ROW, GObject)

/* One line of a table: a function (functions, callers and callees tables)
 * or a node (call tree).  The row keeps the callgraph alive, since both
 * point into it. */
struct _SysprofCallgraphViewRow
{
  GObject                         parent_instance;
  SysprofCallgraph               *callgraph;
  const SysprofCallgraphFunction *function;
  const SysprofCallgraphNode     *node;
  guint64                         self;
  guint64                         total;
  guint64                         base;   /* the root's total: 100 % */
  char                           *folded; /* name, case-folded, for the search */
};

G_DEFINE_FINAL_TYPE (SysprofCallgraphViewRow, sysprof_callgraph_view_row, G_TYPE_OBJECT)

static void
sysprof_callgraph_view_row_finalize (GObject *object)
{
  SysprofCallgraphViewRow *row = SYSPROF_CALLGRAPH_VIEW_ROW (object);

  g_clear_object (&row->callgraph);
  g_free (row->folded);
  G_OBJECT_CLASS (sysprof_callgraph_view_row_parent_class)->finalize (object);
}

static void
sysprof_callgraph_view_row_class_init (SysprofCallgraphViewRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_callgraph_view_row_finalize;
}

static void
sysprof_callgraph_view_row_init (SysprofCallgraphViewRow *row)
{
  (void) row;
}

static SysprofCallgraphViewRow *
row_new (SysprofCallgraph               *callgraph,
         const SysprofCallgraphFunction *function,
         const SysprofCallgraphNode     *node,
         guint64                         self,
         guint64                         total)
{
  SysprofCallgraphViewRow *row = g_object_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW, NULL);

  row->callgraph = g_object_ref (callgraph);
  row->function = function;
  row->node = node;
  row->self = self;
  row->total = total;
  row->base = sysprof_callgraph_get_root (callgraph)->total;
  return row;
}

static const char *
row_name (SysprofCallgraphViewRow *row)
{
  return row->function->symbol->name;
}

/* The rows of a table are GtkTreeListRows in the call tree. */
static SysprofCallgraphViewRow *
row_of_item (gpointer item)
{
  if (GTK_IS_TREE_LIST_ROW (item))
    {
      g_autoptr (GObject) inner = gtk_tree_list_row_get_item (item);

      /* The tree list row holds the other reference. */
      return SYSPROF_CALLGRAPH_VIEW_ROW (inner);
    }
  return item;
}

/* ------------------------------------------------------------------------ */
/* The view */

struct _SysprofCallgraphView
{
  SysprofView parent_instance;

  GCancellable     *cancellable;
  SysprofCallgraph *callgraph; /* shown; NULL while a new one is computed */
  gboolean          stale;     /* the filter changed while the page was hidden */

  GtkWidget *box;
  GtkWidget *filter_slot; /* the focus/hide bar, once the document is known */
  GtkWidget *total_label;
  GtkWidget *range_label;
  GtkWidget *search_entry;
  GtkWidget *stack;

  GListStore         *functions;
  GtkCustomFilter    *search_filter;
  GtkSingleSelection *functions_selection;
  GtkWidget          *functions_view;
  GListStore         *callers;
  GListStore         *callees;
  GtkWidget          *callers_view;
  GtkWidget          *callees_view;
  GListStore         *tree_roots;
  GtkTreeListModel   *tree;
  GtkWidget          *tree_view;

  char *needle; /* case-folded search text, or NULL */

  /* The right-click menu and the function it is about. */
  GtkWidget *menu;
};

G_DEFINE_FINAL_TYPE (SysprofCallgraphView, sysprof_callgraph_view, SYSPROF_TYPE_VIEW)

typedef enum
{
  COLUMN_NAME,
  COLUMN_TREE_NAME,
  COLUMN_LIBRARY,
  COLUMN_SELF,
  COLUMN_SELF_PERCENT,
  COLUMN_TOTAL,
  COLUMN_TOTAL_PERCENT,
} Column;

/* Key of the data that ties a cell's widget to its row, for the right
 * click, which only knows the widget under the pointer. */
#define ROW_KEY "sysprof-callgraph-row"

static double
percent (guint64 value, guint64 base)
{
  return base > 0 ? 100.0 * (double) value / (double) base : 0.0;
}

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  Column     column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  if (column == COLUMN_NAME || column == COLUMN_TREE_NAME || column == COLUMN_LIBRARY)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0f);
      gtk_widget_add_css_class (label, "numeric");
    }
  if (column == COLUMN_LIBRARY)
    gtk_widget_add_css_class (label, "dim-label");
  if (column == COLUMN_TREE_NAME)
    {
      GtkWidget *expander = gtk_tree_expander_new ();

      gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), label);
      gtk_list_item_set_child (item, expander);
    }
  else
    gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  Column                   column = GPOINTER_TO_INT (user_data);
  gpointer                 object = gtk_list_item_get_item (item);
  SysprofCallgraphViewRow *row = row_of_item (object);
  GtkWidget               *child = gtk_list_item_get_child (item);
  GtkWidget               *label = child;
  g_autofree char         *text = NULL;

  (void) factory;
  if (column == COLUMN_TREE_NAME)
    {
      gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), GTK_TREE_LIST_ROW (object));
      label = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child));
    }
  switch (column)
    {
    case COLUMN_NAME:
    case COLUMN_TREE_NAME: text = g_strdup (row_name (row)); break;
    case COLUMN_LIBRARY: text = g_strdup (row->function->symbol->library); break;
    case COLUMN_SELF: text = g_strdup_printf ("%" G_GUINT64_FORMAT, row->self); break;
    case COLUMN_SELF_PERCENT: text = g_strdup_printf ("%.2f %%", percent (row->self, row->base)); break;
    case COLUMN_TOTAL: text = g_strdup_printf ("%" G_GUINT64_FORMAT, row->total); break;
    case COLUMN_TOTAL_PERCENT: text = g_strdup_printf ("%.2f %%", percent (row->total, row->base)); break;
    default: g_assert_not_reached ();
    }
  gtk_label_set_text (GTK_LABEL (label), text);
  if (column == COLUMN_NAME || column == COLUMN_TREE_NAME)
    gtk_widget_set_tooltip_text (label,
                                 row->function->symbol->library[0] != '\0' ? row->function->symbol->library : NULL);
  g_object_set_data (G_OBJECT (child), ROW_KEY, row);
}

static void
cell_unbind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *child = gtk_list_item_get_child (item);

  (void) factory;
  if (GPOINTER_TO_INT (user_data) == COLUMN_TREE_NAME)
    gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), NULL);
  g_object_set_data (G_OBJECT (child), ROW_KEY, NULL);
}

static int
compare_names (SysprofCallgraphViewRow *a, SysprofCallgraphViewRow *b)
{
  int cmp = g_strcmp0 (row_name (a), row_name (b));

  return cmp != 0 ? cmp : g_strcmp0 (a->function->symbol->library, b->function->symbol->library);
}

static int
compare_values (guint64 a, guint64 b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

/* Ascending: the column view reverses it for a descending sort. */
static int
compare_rows (gconstpointer pa, gconstpointer pb, gpointer user_data)
{
  SysprofCallgraphViewRow *a = (SysprofCallgraphViewRow *) pa;
  SysprofCallgraphViewRow *b = (SysprofCallgraphViewRow *) pb;
  int                      cmp = 0;

  switch ((Column) GPOINTER_TO_INT (user_data))
    {
    case COLUMN_LIBRARY: cmp = g_strcmp0 (a->function->symbol->library, b->function->symbol->library); break;
    case COLUMN_SELF:
    case COLUMN_SELF_PERCENT: cmp = compare_values (a->self, b->self); break;
    case COLUMN_TOTAL:
    case COLUMN_TOTAL_PERCENT: cmp = compare_values (a->total, b->total); break;
    case COLUMN_NAME:
    case COLUMN_TREE_NAME:
    default: break;
    }
  return cmp != 0 ? cmp : compare_names (a, b);
}

/* Descending totals, the table's default order.  The rows go into the
 * store in that order: the sort model's sort (a timsort) then checks them
 * in one pass, where sorting tens of thousands of functions through the
 * column view's sorter stalls the main thread for a large part of a
 * second. */
static int
compare_rows_by_total_descending (gconstpointer pa, gconstpointer pb, gpointer user_data)
{
  (void) user_data;
  return compare_rows (*(gconstpointer const *) pb, *(gconstpointer const *) pa, GINT_TO_POINTER (COLUMN_TOTAL));
}

static GtkColumnViewColumn *
add_column (GtkColumnView *view, const char *title, Column column, gboolean sortable, gboolean expand)
{
  GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *col;

  g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (column));
  g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), GINT_TO_POINTER (column));
  g_signal_connect (factory, "unbind", G_CALLBACK (cell_unbind), GINT_TO_POINTER (column));
  col = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_expand (col, expand);
  gtk_column_view_column_set_resizable (col, TRUE);
  if (sortable)
    {
      g_autoptr (GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows, GINT_TO_POINTER (column), NULL));

      gtk_column_view_column_set_sorter (col, sorter);
    }
  gtk_column_view_append_column (view, col);
  /* The view holds it. */
  g_object_unref (col);
  return col;
}

static GtkWidget *
scrolled (GtkWidget *child)
{
  GtkWidget *window = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (window), child);
  gtk_widget_set_vexpand (window, TRUE);
  gtk_widget_set_hexpand (window, TRUE);
  return window;
}

static void
set_accessible_label (GtkWidget *widget, const char *label)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/* GtkColumnView 4.8 has no scroll_to(): its inner list view has the
 * action. */
static void
scroll_to (GtkWidget *column_view, guint position)
{
  for (GtkWidget *child = gtk_widget_get_first_child (column_view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      gtk_widget_activate_action (child, "list.scroll-to-item", "u", position);
}

/* ------------------------------------------------------------------------ */
/* Search */

static gboolean
search_match (gpointer item, gpointer user_data)
{
  SysprofCallgraphView    *self = user_data;
  SysprofCallgraphViewRow *row = item;

  if (self->needle == NULL)
    return TRUE;
  if (row->folded == NULL)
    row->folded = g_utf8_casefold (row_name (row), -1);
  return strstr (row->folded, self->needle) != NULL;
}

static void
apply_search (SysprofCallgraphView *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  g_clear_pointer (&self->needle, g_free);
  if (text[0] != '\0')
    self->needle = g_utf8_casefold (text, -1);
  gtk_filter_changed (GTK_FILTER (self->search_filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
on_search_changed (GtkSearchEntry *entry, SysprofCallgraphView *self)
{
  (void) entry;
  apply_search (self);
}

/* ------------------------------------------------------------------------ */
/* Callers and callees of the selected function */

static void
fill_edges (GListStore *store, SysprofCallgraph *callgraph, GArray *edges)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; edges != NULL && i < edges->len; i++)
    {
      const SysprofCallgraphEdge *edge = &g_array_index (edges, SysprofCallgraphEdge, i);

      g_ptr_array_add (rows, row_new (callgraph, edge->function, NULL, 0, edge->samples));
    }
  g_list_store_splice (store, 0, g_list_model_get_n_items (G_LIST_MODEL (store)), rows->pdata, rows->len);
}

static void
on_function_selected (GtkSingleSelection *selection, GParamSpec *pspec, SysprofCallgraphView *self)
{
  SysprofCallgraphViewRow *row = gtk_single_selection_get_selected_item (selection);
  g_autoptr (GArray) callers = NULL;
  g_autoptr (GArray) callees = NULL;

  (void) pspec;
  if (row != NULL)
    {
      callers = sysprof_callgraph_list_callers (row->callgraph, row->function);
      callees = sysprof_callgraph_list_callees (row->callgraph, row->function);
    }
  fill_edges (self->callers, row != NULL ? row->callgraph : NULL, callers);
  fill_edges (self->callees, row != NULL ? row->callgraph : NULL, callees);
}

/* Selects @function in the functions table, clearing the search when it
 * hides it and @clear_search; FALSE when the table does not show it. */
static gboolean
select_function (SysprofCallgraphView *self, const char *name, const char *library, gboolean clear_search)
{
  GListModel *model = G_LIST_MODEL (self->functions_selection);

  for (int attempt = 0; attempt < 2; attempt++)
    {
      guint n = g_list_model_get_n_items (model);

      for (guint i = 0; i < n; i++)
        {
          g_autoptr (SysprofCallgraphViewRow) row = g_list_model_get_item (model, i);

          if (strcmp (row_name (row), name) == 0 && g_strcmp0 (row->function->symbol->library, library) == 0)
            {
              gtk_single_selection_set_selected (self->functions_selection, i);
              scroll_to (self->functions_view, i);
              return TRUE;
            }
        }
      if (self->needle == NULL || !clear_search)
        break;
      gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
      apply_search (self);
    }
  return FALSE;
}

/* Activating a caller or callee goes to it in the functions table. */
static void
on_edge_activate (GtkColumnView *view, guint position, SysprofCallgraphView *self)
{
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (view));
  g_autoptr (SysprofCallgraphViewRow) row = g_list_model_get_item (model, position);

  if (row != NULL)
    select_function (self, row_name (row), row->function->symbol->library, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Showing a callgraph */

static void
update_header (SysprofCallgraphView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  g_autofree char *total = NULL;
  g_autofree char *range = NULL;

  if (self->callgraph == NULL)
    total = g_strdup ("…");
  else
    {
      guint64 n = sysprof_callgraph_get_root (self->callgraph)->total;

      total = n == 0 ? g_strdup ("No samples") : g_strdup_printf ("%" G_GUINT64_FORMAT " samples", n);
    }
  if (sysprof_document_has_selection (document))
    {
      gint64 begin, end;

      sysprof_document_get_selection (document, &begin, &end);
      /* An open end is the capture's. */
      begin = MAX (begin, 0);
      end = MIN (end, sysprof_document_get_duration (document));
      range = g_strdup_printf ("in the selection %.3f s – %.3f s", begin / 1e9, end / 1e9);
    }
  else
    range = g_strdup ("in the whole capture");
  gtk_label_set_text (GTK_LABEL (self->total_label), total);
  gtk_label_set_text (GTK_LABEL (self->range_label), range);
}

static void
show_callgraph (SysprofCallgraphView *self, SysprofCallgraph *callgraph)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char            *selected_name = NULL;
  g_autofree char            *selected_library = NULL;
  SysprofCallgraphViewRow    *selected = gtk_single_selection_get_selected_item (self->functions_selection);
  const SysprofCallgraphNode *node = sysprof_callgraph_get_root (callgraph);
  SysprofCallgraphViewRow    *root;
  GtkTreeListRow             *root_row;
  guint                       n = sysprof_callgraph_get_n_functions (callgraph);

  /* The function selected before stays selected when it is still there. */
  if (selected != NULL)
    {
      selected_name = g_strdup (row_name (selected));
      selected_library = g_strdup (selected->function->symbol->library);
    }

  g_set_object (&self->callgraph, callgraph);
  for (guint i = 0; i < n; i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);

      g_ptr_array_add (rows, row_new (callgraph, function, NULL, function->self, function->total));
    }
  g_ptr_array_sort_with_data (rows, compare_rows_by_total_descending, NULL);
  g_list_store_splice (self->functions, 0, g_list_model_get_n_items (G_LIST_MODEL (self->functions)), rows->pdata,
                       rows->len);

  if (selected_name == NULL || !select_function (self, selected_name, selected_library, FALSE))
    gtk_single_selection_set_selected (self->functions_selection, 0);

  root = row_new (callgraph, node->function, node, node->self, node->total);
  g_list_store_splice (self->tree_roots, 0, g_list_model_get_n_items (G_LIST_MODEL (self->tree_roots)),
                       (gpointer *) &root, 1);
  g_object_unref (root);
  /* The root and the processes under it are what everybody opens first. */
  root_row = gtk_tree_list_model_get_row (self->tree, 0);
  if (root_row != NULL)
    {
      gtk_tree_list_row_set_expanded (root_row, TRUE);
      g_object_unref (root_row);
    }

  update_header (self);
}

static void
on_callgraph_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  SysprofCallgraphView *self;

  callgraph = sysprof_document_callgraph_finish (SYSPROF_DOCUMENT (object), result, &error);
  /* Cancelled: the view was disposed or asked for another one since, so
   * @user_data must not be touched. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self = SYSPROF_CALLGRAPH_VIEW (user_data);
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
  if (callgraph == NULL)
    {
      update_header (self);
      sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
      return;
    }
  show_callgraph (self, callgraph);
}

/* A page nobody looks at does not compute (unless @now): it asks when it
 * is shown.  Dragging a selection on the timeline then only costs the
 * analyses of the page in view, and the second of the callgraph and flame
 * graph pages to be shown finds the callgraph in the document's cache (or
 * joins its computation when the first is still at it). */
static void
request_callgraph (SysprofCallgraphView *self, gboolean now)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->callgraph);
  update_header (self);

  if (!now && !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
      return;
    }
  self->stale = FALSE;
  self->cancellable = g_cancellable_new ();
  sysprof_view_set_busy (SYSPROF_VIEW (self), TRUE, "Building the callgraph…");
  /* No reference: dispose cancels, and a cancelled callback returns before
   * it looks at the view. */
  sysprof_document_callgraph_async (document, SYSPROF_CALLGRAPH_SOURCE_SAMPLES, SYSPROF_CALLGRAPH_WEIGHT_COUNT,
                                    self->cancellable, on_callgraph_ready, self);
}

/* ------------------------------------------------------------------------ */
/* Focus and hide */

/* Offers to focus on @row's function or hide it, pointing at @rect (in the
 * box's coordinates). */
static void
open_menu (SysprofCallgraphView *self, SysprofCallgraphViewRow *row, const GdkRectangle *rect)
{
  sysprof_function_filter_popup (SYSPROF_VIEW (self), GTK_POPOVER_MENU (self->menu), "callgraph", row_name (row),
                                 row->function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE, rect);
}

static void
on_secondary_click (GtkGestureClick *gesture, int n_press, double x, double y, SysprofCallgraphView *self)
{
  GtkWidget               *picked = gtk_widget_pick (self->box, x, y, GTK_PICK_DEFAULT);
  SysprofCallgraphViewRow *row = NULL;

  (void) n_press;
  for (GtkWidget *widget = picked; widget != NULL && widget != self->box; widget = gtk_widget_get_parent (widget))
    if ((row = g_object_get_data (G_OBJECT (widget), ROW_KEY)) != NULL)
      break;
  if (row == NULL)
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  open_menu (self, row, &(GdkRectangle){ (int) x, (int) y, 1, 1 });
}

/* Shift+F10 or the Menu key: the menu of the selected row of the table
 * that has the keyboard focus. */
static gboolean
on_menu_key (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (widget);
  GtkWidget            *focus = gtk_root_get_focus (gtk_widget_get_root (widget));
  GtkWidget            *tables[] = { self->functions_view, self->callers_view, self->callees_view, self->tree_view };
  graphene_rect_t       bounds;

  (void) args;
  (void) user_data;
  if (focus == NULL || !gtk_widget_compute_bounds (focus, self->box, &bounds))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    if (focus == tables[i] || gtk_widget_is_ancestor (focus, tables[i]))
      {
        GtkSelectionModel       *model = gtk_column_view_get_model (GTK_COLUMN_VIEW (tables[i]));
        gpointer                 item = gtk_single_selection_get_selected_item (GTK_SINGLE_SELECTION (model));
        SysprofCallgraphViewRow *row = item != NULL ? row_of_item (item) : NULL;

        if (row == NULL)
          return FALSE;
        open_menu (self, row,
                   &(GdkRectangle){ (int) bounds.origin.x, (int) bounds.origin.y, (int) bounds.size.width,
                                    (int) bounds.size.height });
        return TRUE;
      }
  return FALSE;
}

/* ------------------------------------------------------------------------ */

static gboolean
sysprof_callgraph_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_SAMPLE) > 0;
}

static void
sysprof_callgraph_view_load (SysprofView *view, SysprofDocument *document)
{
  gtk_box_append (GTK_BOX (SYSPROF_CALLGRAPH_VIEW (view)->filter_slot), sysprof_function_filter_bar_new (document));
  /* The main result of a capture: computed right away, before the page is
   * shown. */
  request_callgraph (SYSPROF_CALLGRAPH_VIEW (view), TRUE);
}

static void
sysprof_callgraph_view_filter_changed (SysprofView *view)
{
  request_callgraph (SYSPROF_CALLGRAPH_VIEW (view), FALSE);
}

static void
sysprof_callgraph_view_map (GtkWidget *widget)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (widget);

  GTK_WIDGET_CLASS (sysprof_callgraph_view_parent_class)->map (widget);
  if (self->stale)
    request_callgraph (self, TRUE);
}

guint64
sysprof_callgraph_view_get_total (SysprofCallgraphView *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_VIEW (self), 0);

  return self->callgraph != NULL ? sysprof_callgraph_get_root (self->callgraph)->total : 0;
}

SysprofCallgraph *
sysprof_callgraph_view_get_callgraph (SysprofCallgraphView *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_VIEW (self), NULL);

  return self->callgraph;
}

static void
sysprof_callgraph_view_dispose (GObject *object)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  /* The popover is parented to the box, which the base class destroys. */
  g_clear_pointer (&self->menu, gtk_widget_unparent);

  G_OBJECT_CLASS (sysprof_callgraph_view_parent_class)->dispose (object);
}

static void
sysprof_callgraph_view_finalize (GObject *object)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (object);

  g_clear_object (&self->callgraph);
  g_clear_object (&self->functions);
  g_clear_object (&self->search_filter);
  g_clear_object (&self->functions_selection);
  g_clear_object (&self->callers);
  g_clear_object (&self->callees);
  g_clear_object (&self->tree_roots);
  g_clear_object (&self->tree);
  g_free (self->needle);

  G_OBJECT_CLASS (sysprof_callgraph_view_parent_class)->finalize (object);
}

static void
sysprof_callgraph_view_class_init (SysprofCallgraphViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass   *widget_class = GTK_WIDGET_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_callgraph_view_dispose;
  object_class->finalize = sysprof_callgraph_view_finalize;
  view_class->has_data = sysprof_callgraph_view_has_data;
  view_class->load = sysprof_callgraph_view_load;
  view_class->filter_changed = sysprof_callgraph_view_filter_changed;
  widget_class->map = sysprof_callgraph_view_map;
  sysprof_view_class_set_info (view_class, "callgraph", "Callgraph", "text-x-generic-symbolic", 20);

  sysprof_function_filter_install_actions (widget_class, "callgraph");
  gtk_widget_class_add_binding (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, on_menu_key, NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Menu, 0, on_menu_key, NULL);
}

static GtkWidget *
build_functions_page (SysprofCallgraphView *self)
{
  GtkFilterListModel  *filtered;
  GtkSortListModel    *sorted;
  GtkColumnViewColumn *total_column;
  GtkWidget           *edges_paned;
  GtkWidget           *paned;

  /* Sorted, then filtered: a search only filters the sorted list again in
   * one pass, where a sort after the filter would sort every match at each
   * key press. */
  self->functions = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->functions_view = gtk_column_view_new (NULL);
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->functions)),
                                    g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->functions_view))));
  self->search_filter = gtk_custom_filter_new (search_match, self, NULL);
  filtered = gtk_filter_list_model_new (G_LIST_MODEL (sorted), GTK_FILTER (g_object_ref (self->search_filter)));
  self->functions_selection = gtk_single_selection_new (G_LIST_MODEL (filtered));
  gtk_column_view_set_model (GTK_COLUMN_VIEW (self->functions_view), GTK_SELECTION_MODEL (self->functions_selection));
  g_signal_connect (self->functions_selection, "notify::selected-item", G_CALLBACK (on_function_selected), self);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Function", COLUMN_NAME, TRUE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Library", COLUMN_LIBRARY, TRUE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Self", COLUMN_SELF, TRUE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Self %", COLUMN_SELF_PERCENT, TRUE, FALSE);
  total_column = add_column (GTK_COLUMN_VIEW (self->functions_view), "Total", COLUMN_TOTAL, TRUE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Total %", COLUMN_TOTAL_PERCENT, TRUE, FALSE);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (self->functions_view), total_column, GTK_SORT_DESCENDING);
  set_accessible_label (self->functions_view, "Functions");

  self->callers = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->callers_view = gtk_column_view_new (
      GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->callers)))));
  add_column (GTK_COLUMN_VIEW (self->callers_view), "Callers", COLUMN_NAME, FALSE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->callers_view), "Samples", COLUMN_TOTAL, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->callers_view), "%", COLUMN_TOTAL_PERCENT, FALSE, FALSE);
  g_signal_connect (self->callers_view, "activate", G_CALLBACK (on_edge_activate), self);
  set_accessible_label (self->callers_view, "Callers");

  self->callees = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->callees_view = gtk_column_view_new (
      GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->callees)))));
  add_column (GTK_COLUMN_VIEW (self->callees_view), "Callees", COLUMN_NAME, FALSE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->callees_view), "Samples", COLUMN_TOTAL, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->callees_view), "%", COLUMN_TOTAL_PERCENT, FALSE, FALSE);
  g_signal_connect (self->callees_view, "activate", G_CALLBACK (on_edge_activate), self);
  set_accessible_label (self->callees_view, "Callees");

  edges_paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (edges_paned), scrolled (self->callers_view));
  gtk_paned_set_end_child (GTK_PANED (edges_paned), scrolled (self->callees_view));
  gtk_paned_set_resize_start_child (GTK_PANED (edges_paned), TRUE);
  gtk_paned_set_resize_end_child (GTK_PANED (edges_paned), TRUE);

  paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_start_child (GTK_PANED (paned), scrolled (self->functions_view));
  gtk_paned_set_end_child (GTK_PANED (paned), edges_paned);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  return paned;
}

static GListModel *
create_tree_children (gpointer item, gpointer user_data)
{
  SysprofCallgraphViewRow *row = item;
  GListStore              *children;

  (void) user_data;
  if (row->node->first_child == NULL)
    return NULL;
  children = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  for (const SysprofCallgraphNode *child = row->node->first_child; child != NULL; child = child->next_sibling)
    {
      g_autoptr (SysprofCallgraphViewRow) child_row =
          row_new (row->callgraph, child->function, child, child->self, child->total);

      g_list_store_append (children, child_row);
    }
  return G_LIST_MODEL (children);
}

static GtkWidget *
build_tree_page (SysprofCallgraphView *self)
{
  self->tree_roots = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->tree_roots)), FALSE, FALSE,
                                        create_tree_children, NULL, NULL);
  self->tree_view =
      gtk_column_view_new (GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->tree)))));
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Function", COLUMN_TREE_NAME, FALSE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Self", COLUMN_SELF, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Self %", COLUMN_SELF_PERCENT, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Total", COLUMN_TOTAL, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Total %", COLUMN_TOTAL_PERCENT, FALSE, FALSE);
  set_accessible_label (self->tree_view, "Call tree");
  return scrolled (self->tree_view);
}

static void
sysprof_callgraph_view_init (SysprofCallgraphView *self)
{
  GtkWidget  *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget  *switcher = gtk_stack_switcher_new ();
  GtkGesture *secondary = gtk_gesture_click_new ();
  g_autoptr (GMenu) empty = g_menu_new ();

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);
  self->total_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->total_label, "title-2");
  set_accessible_label (self->total_label, "Samples");
  self->range_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->range_label, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (self->range_label), 0.0f);
  gtk_widget_set_hexpand (self->range_label, TRUE);
  self->search_entry = gtk_search_entry_new ();
  g_object_set (self->search_entry, "placeholder-text", "Search functions", NULL);
  set_accessible_label (self->search_entry, "Search functions");
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (on_search_changed), self);
  gtk_box_append (GTK_BOX (header), self->total_label);
  gtk_box_append (GTK_BOX (header), self->range_label);
  gtk_box_append (GTK_BOX (header), self->search_entry);
  gtk_box_append (GTK_BOX (header), switcher);
  gtk_box_append (GTK_BOX (self->box), header);

  self->filter_slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->box), self->filter_slot);

  self->stack = gtk_stack_new ();
  gtk_stack_add_titled (GTK_STACK (self->stack), build_functions_page (self), "functions", "Functions");
  gtk_stack_add_titled (GTK_STACK (self->stack), build_tree_page (self), "tree", "Call Tree");
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->stack));
  gtk_box_append (GTK_BOX (self->box), self->stack);

  self->menu = gtk_popover_menu_new_from_model (G_MENU_MODEL (empty));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
  gtk_popover_set_position (GTK_POPOVER (self->menu), GTK_POS_BOTTOM);
  gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->menu, self->box);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (secondary), GDK_BUTTON_SECONDARY);
  /* Before the rows' own gestures; it only claims a click on a row. */
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (secondary), GTK_PHASE_CAPTURE);
  g_signal_connect (secondary, "pressed", G_CALLBACK (on_secondary_click), self);
  gtk_widget_add_controller (self->box, GTK_EVENT_CONTROLLER (secondary));

  sysprof_view_set_child (SYSPROF_VIEW (self), self->box);
}
