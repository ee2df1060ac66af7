// SPDX-License-Identifier: GPL-3.0-or-later
/* The callgraph page: a table of functions (self and total, searchable,
 * sortable), the callers and callees of the selected one, and the top-down
 * call tree on a second tab.  The callgraph comes from the document (its
 * worker builds it and caches it, so the flame graph shares it); a change
 * of the filter asks for a new one and cancels the request before, when
 * SysprofCallgraphBackedView says.
 *
 * A capture can have hundreds of thousands of functions and of nodes: the
 * tables' models sort and search plain arrays of the callgraph's functions
 * and nodes, and make the GObject of a row only when GTK asks for it (the
 * rows on screen, mostly).  The callers and callees of the selected
 * function take a walk of the whole tree: the document's worker does it.
 *
 * A right click on a function of any table (or Shift+F10, the Menu key)
 * offers to focus on it or hide it; both go into the document's filter,
 * which every view follows. */

#include "sysprof-callgraph-child-list.h"
#include "sysprof-callgraph-function-list.h"
#include "sysprof-callgraph-source-dropdown.h"
#include "sysprof-callgraph-view.h"
#include "sysprof-function-filter.h"

/* ------------------------------------------------------------------------ */
/* Rows and their order */

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

/* The sorters of the functions table's columns.  The table sorts its
 * functions itself (see SysprofCallgraphFunctionList), so the column view's
 * sorter only runs on the probes of read_sort_keys(); for anything else
 * they compare like the table (whose rows have their function's counts). */
static int
compare_rows (gconstpointer pa, gconstpointer pb, gpointer user_data)
{
  const SysprofCallgraphViewRow *a = pa;
  const SysprofCallgraphViewRow *b = pb;
  SysprofCallgraphColumn         column = GPOINTER_TO_INT (user_data);

  if (G_UNLIKELY (a->probe != NULL))
    {
      if ((a->probe->known & (1u << column)) != 0)
        return 0;
      a->probe->asked = (int) column;
      return -1;
    }
  return sysprof_callgraph_function_list_compare (a->function, b->function, column);
}

/* The sort columns of @sorter, the column view's, into @keys; returns
 * their number.  GTK 4.8 does not tell them (primary-sort-column is 4.10),
 * but the column view's sorter asks its columns' sorters in order, turns
 * the answer round for a descending column and stops at the first answer
 * that is not "equal".  compare_rows() answers "smaller" for a probe when
 * its column is not known yet, "equal" when it is: each comparison of two
 * probes names the next sort column, and its sign the direction. */
static guint
read_sort_keys (GtkSorter *sorter, SysprofCallgraphSortKey keys[SYSPROF_CALLGRAPH_N_COLUMNS])
{
  g_autoptr (SysprofCallgraphViewRow) a = g_object_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW, NULL);
  g_autoptr (SysprofCallgraphViewRow) b = g_object_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW, NULL);
  SysprofCallgraphSortProbe probe = { 0, -1 };
  guint                     n = 0;

  a->probe = b->probe = &probe;
  while (n < SYSPROF_CALLGRAPH_N_COLUMNS)
    {
      GtkOrdering order;

      probe.asked = -1;
      order = gtk_sorter_compare (sorter, a, b);
      if (order == GTK_ORDERING_EQUAL || probe.asked < 0)
        break;
      keys[n].column = (SysprofCallgraphColumn) probe.asked;
      keys[n].descending = order == GTK_ORDERING_LARGER;
      probe.known |= 1u << probe.asked;
      n++;
    }
  return n;
}

static GListModel *
create_tree_children (gpointer item, gpointer user_data)
{
  SysprofCallgraphViewRow *row = item;

  (void) user_data;
  if (row->node->first_child == NULL)
    return NULL;
  return sysprof_callgraph_child_list_new (row->callgraph, row->node);
}

/* ------------------------------------------------------------------------ */
/* The view */

struct _SysprofCallgraphView
{
  SysprofCallgraphBackedView parent_instance;

  GtkWidget *box;
  GtkWidget *filter_slot; /* the focus/hide bar, once the document is known */
  GtkWidget *total_label;
  GtkWidget *range_label;
  GtkWidget *source_dropdown;
  GtkWidget *search_entry;
  GtkWidget *stack;

  SysprofCallgraphFunctionList *functions;
  GtkSingleSelection           *functions_selection;
  GtkWidget                    *functions_view;
  GtkSorter                    *sorter; /* the functions view's */
  gulong                        sort_handler;
  gboolean                      quiet; /* selection changes that do not ask for callers and callees */
  GCancellable                 *edges_cancellable;
  GListStore                   *callers;
  GListStore                   *callees;
  GtkWidget                    *callers_view;
  GtkWidget                    *callees_view;
  GtkWidget                    *lines_label; /* the selected function's source lines */
  SysprofCallgraph             *lines;       /* by source line, for lines_for; made on first selection */
  SysprofCallgraph             *lines_for;   /* the callgraph @lines belongs to */
  GListStore                   *tree_roots;
  GtkTreeListModel             *tree;
  GtkWidget                    *tree_view;
  gboolean                      expand_root; /* when the call tree is next shown */

  char *needle; /* case-folded search text, or NULL */

  /* The right-click menu and the function it is about. */
  GtkWidget *menu;
};

G_DEFINE_FINAL_TYPE (SysprofCallgraphView, sysprof_callgraph_view, SYSPROF_TYPE_CALLGRAPH_BACKED_VIEW)

/* Key of the data that ties a cell's widgets to its row, for the right
 * click, which only knows the widget under the pointer, and for the
 * tooltip. */
#define ROW_KEY "sysprof-callgraph-row"

static double
percent (guint64 value, guint64 base)
{
  return base > 0 ? 100.0 * (double) value / (double) base : 0.0;
}

/* The library of a name cell's function, asked when the pointer rests on
 * it: setting the tooltip text in every bind costs GTK a round trip to the
 * X server each time. */
static gboolean
on_name_query_tooltip (
    GtkWidget *label, int x, int y, gboolean keyboard_tooltip, GtkTooltip *tooltip, gpointer user_data)
{
  SysprofCallgraphViewRow *row = g_object_get_data (G_OBJECT (label), ROW_KEY);
  const char              *library;

  (void) x;
  (void) y;
  (void) keyboard_tooltip;
  (void) user_data;
  if (row == NULL || row->function == NULL)
    return FALSE;
  library = row->function->symbol->library;
  if (library == NULL || library[0] == '\0')
    return FALSE;
  gtk_tooltip_set_text (tooltip, library);
  return TRUE;
}

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  SysprofCallgraphColumn column = GPOINTER_TO_INT (user_data);
  GtkWidget             *label = gtk_label_new (NULL);

  (void) factory;
  if (column == SYSPROF_CALLGRAPH_COLUMN_NAME || column == SYSPROF_CALLGRAPH_COLUMN_TREE_NAME ||
      column == SYSPROF_CALLGRAPH_COLUMN_LIBRARY)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0f);
      gtk_widget_add_css_class (label, "numeric");
    }
  if (column == SYSPROF_CALLGRAPH_COLUMN_LIBRARY)
    gtk_widget_add_css_class (label, "dim-label");
  if (column == SYSPROF_CALLGRAPH_COLUMN_NAME || column == SYSPROF_CALLGRAPH_COLUMN_TREE_NAME)
    {
      gtk_widget_set_has_tooltip (label, TRUE);
      g_signal_connect (label, "query-tooltip", G_CALLBACK (on_name_query_tooltip), NULL);
    }
  if (column == SYSPROF_CALLGRAPH_COLUMN_TREE_NAME)
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
  SysprofCallgraphColumn   column = GPOINTER_TO_INT (user_data);
  gpointer                 object = gtk_list_item_get_item (item);
  SysprofCallgraphViewRow *row = row_of_item (object);
  GtkWidget               *child = gtk_list_item_get_child (item);
  GtkWidget               *label = child;
  g_autofree char         *text = NULL;

  (void) factory;
  if (column == SYSPROF_CALLGRAPH_COLUMN_TREE_NAME)
    {
      gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), GTK_TREE_LIST_ROW (object));
      label = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child));
    }
  switch (column)
    {
    case SYSPROF_CALLGRAPH_COLUMN_NAME:
    case SYSPROF_CALLGRAPH_COLUMN_TREE_NAME: text = g_strdup (row_name (row)); break;
    case SYSPROF_CALLGRAPH_COLUMN_LIBRARY: text = g_strdup (row->function->symbol->library); break;
    case SYSPROF_CALLGRAPH_COLUMN_SELF:
      text = sysprof_callgraph_source_format (sysprof_callgraph_get_source (row->callgraph), row->self);
      break;
    case SYSPROF_CALLGRAPH_COLUMN_SELF_PERCENT:
      text = g_strdup_printf ("%.2f %%", percent (row->self, row->base));
      break;
    case SYSPROF_CALLGRAPH_COLUMN_TOTAL:
      text = sysprof_callgraph_source_format (sysprof_callgraph_get_source (row->callgraph), row->total);
      break;
    case SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT:
      text = g_strdup_printf ("%.2f %%", percent (row->total, row->base));
      break;
    case SYSPROF_CALLGRAPH_N_COLUMNS:
    default: g_assert_not_reached ();
    }
  gtk_label_set_text (GTK_LABEL (label), text);
  g_object_set_data (G_OBJECT (child), ROW_KEY, row);
  g_object_set_data (G_OBJECT (label), ROW_KEY, row);
}

static void
cell_unbind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *child = gtk_list_item_get_child (item);

  (void) factory;
  if (GPOINTER_TO_INT (user_data) == SYSPROF_CALLGRAPH_COLUMN_TREE_NAME)
    {
      g_object_set_data (G_OBJECT (gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child))), ROW_KEY, NULL);
      gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), NULL);
    }
  g_object_set_data (G_OBJECT (child), ROW_KEY, NULL);
}

static GtkColumnViewColumn *
add_column (GtkColumnView *view, const char *title, SysprofCallgraphColumn column, gboolean sortable, gboolean expand)
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
/* Sort and search */

static void
on_sort_changed (GtkSorter *sorter, GtkSorterChange change, SysprofCallgraphView *self)
{
  SysprofCallgraphSortKey keys[SYSPROF_CALLGRAPH_N_COLUMNS];
  guint                   n = read_sort_keys (sorter, keys);

  (void) change;
  sysprof_callgraph_function_list_set_sort (self->functions, keys, n);
}

static void
apply_search (SysprofCallgraphView *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  g_clear_pointer (&self->needle, g_free);
  if (text[0] != '\0')
    self->needle = g_utf8_casefold (text, -1);
  sysprof_callgraph_function_list_set_needle (self->functions, self->needle);
}

static void
on_search_changed (GtkSearchEntry *entry, SysprofCallgraphView *self)
{
  (void) entry;
  apply_search (self);
}

/* ------------------------------------------------------------------------ */
/* Callers and callees of the selected function */

typedef struct
{
  SysprofCallgraph               *callgraph;
  const SysprofCallgraphFunction *function;
  GArray                         *callers; /* SysprofCallgraphEdge, once listed */
  GArray                         *callees;
  /* Source lines: the callgraph by line (given, or made by the worker with
   * the filter below), and the text listing the function's lines. */
  SysprofCallgraph *lines;
  gint64            begin_ns, end_ns;
  GStrv             focus, hide;
  char             *lines_text;
} Edges;

static void
edges_free (gpointer data)
{
  Edges *edges = data;

  g_clear_object (&edges->callgraph);
  g_clear_pointer (&edges->callers, g_array_unref);
  g_clear_pointer (&edges->callees, g_array_unref);
  g_clear_object (&edges->lines);
  g_clear_pointer (&edges->focus, g_strfreev);
  g_clear_pointer (&edges->hide, g_strfreev);
  g_free (edges->lines_text);
  g_free (edges);
}

static gint
compare_by_self (gconstpointer a, gconstpointer b)
{
  const SysprofCallgraphFunction *fa = *(const SysprofCallgraphFunction *const *) a;
  const SysprofCallgraphFunction *fb = *(const SysprofCallgraphFunction *const *) b;

  if (fa->self != fb->self)
    return fa->self > fb->self ? -1 : 1;
  return fa->total > fb->total ? -1 : fa->total < fb->total;
}

/* Where @function's samples were, line by line, hottest first (at most
 * 12): the lines it ran, then the lines of its calls (total only). */
static char *
describe_lines (SysprofCallgraph *lines, const SysprofCallgraphFunction *function)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  g_autoptr (GString) text = g_string_new (NULL);
  guint64 base = sysprof_callgraph_get_n_samples (lines);

  for (guint i = 0; i < sysprof_callgraph_get_n_functions (lines); i++)
    {
      const SysprofCallgraphFunction *f = sysprof_callgraph_get_function (lines, i);

      /* Symbols are the symbolizer's, interned: the same pointer. */
      if (f->symbol == function->symbol && f->file != NULL)
        g_ptr_array_add (rows, (gpointer) f);
    }
  if (rows->len == 0)
    return g_strdup_printf ("%s: no source lines (no debug info for it)", function->symbol->name);
  g_ptr_array_sort (rows, compare_by_self);
  g_string_append_printf (text, "%s, in %s\n\nHottest lines (self, total):", function->symbol->name,
                          ((const SysprofCallgraphFunction *) rows->pdata[0])->file);
  for (guint i = 0; i < MIN (rows->len, 12u); i++)
    {
      const SysprofCallgraphFunction *f = rows->pdata[i];
      g_autofree char                *base_name = g_path_get_basename (f->file);

      g_string_append_printf (text, "\n  %s:%u  %.1f%%  %.1f%%", base_name, f->line, percent (f->self, base),
                              percent (f->total, base));
    }
  if (rows->len > 12)
    g_string_append_printf (text, "\n  (%u more lines)", rows->len - 12);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static gboolean
function_is_code (const SysprofCallgraphFunction *function)
{
  return function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE;
}

/* In the worker: each list is a walk of the whole tree (hundreds of
 * thousands of nodes in a big capture).  The callgraph is immutable. */
static gpointer
list_edges (SysprofDocument      *document,
            SysprofCaptureReader *reader,
            SysprofSymbolizer    *symbolizer,
            gpointer              data,
            GCancellable         *cancellable,
            GError              **error)
{
  Edges *request = data;
  Edges *edges = g_new0 (Edges, 1);

  (void) document;
  edges->callgraph = g_object_ref (request->callgraph);
  edges->function = request->function;
  edges->callers = sysprof_callgraph_list_callers (edges->callgraph, edges->function);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      edges_free (edges);
      return NULL;
    }
  edges->callees = sysprof_callgraph_list_callees (edges->callgraph, edges->function);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      edges_free (edges);
      return NULL;
    }

  /* The same callgraph by source line, made once per callgraph shown. */
  if (request->lines != NULL)
    edges->lines = g_object_ref (request->lines);
  else if (function_is_code (edges->function))
    {
      SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
      g_autoptr (GError) local_error = NULL;

      filter.begin_ns = request->begin_ns;
      filter.end_ns = request->end_ns;
      filter.focus = (const char *const *) request->focus;
      filter.n_focus = request->focus != NULL ? g_strv_length (request->focus) : 0;
      filter.hide = (const char *const *) request->hide;
      filter.n_hide = request->hide != NULL ? g_strv_length (request->hide) : 0;
      filter.source = sysprof_callgraph_get_source (edges->callgraph);
      filter.lines = TRUE;
      edges->lines = sysprof_callgraph_new (reader, symbolizer, &filter, NULL, NULL, &local_error);
    }
  if (edges->lines != NULL && function_is_code (edges->function))
    edges->lines_text = describe_lines (edges->lines, edges->function);
  return edges;
}

static void
fill_edges (GListStore *store, SysprofCallgraph *callgraph, GArray *edges)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; edges != NULL && i < edges->len; i++)
    {
      const SysprofCallgraphEdge *edge = &g_array_index (edges, SysprofCallgraphEdge, i);

      g_ptr_array_add (rows, sysprof_callgraph_view_row_new (callgraph, edge->function, NULL, 0, edge->samples));
    }
  g_list_store_splice (store, 0, g_list_model_get_n_items (G_LIST_MODEL (store)), rows->pdata, rows->len);
}

static void
on_edges_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  Edges                *edges = sysprof_document_run_finish (SYSPROF_DOCUMENT (object), result, &error);
  SysprofCallgraphView *self;

  /* Cancelled: another function was selected since, or the view was
   * disposed, so @user_data must not be touched. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = SYSPROF_CALLGRAPH_VIEW (user_data);
  g_clear_object (&self->edges_cancellable);
  if (edges == NULL)
    {
      sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
      return;
    }
  fill_edges (self->callers, edges->callgraph, edges->callers);
  fill_edges (self->callees, edges->callgraph, edges->callees);
  if (edges->lines != NULL && self->lines == NULL)
    {
      self->lines = g_object_ref (edges->lines);
      g_set_object (&self->lines_for, edges->callgraph);
    }
  gtk_label_set_text (GTK_LABEL (self->lines_label), edges->lines_text != NULL ? edges->lines_text : "");
  edges_free (edges);
}

static void
cancel_edges (SysprofCallgraphView *self)
{
  if (self->edges_cancellable != NULL)
    g_cancellable_cancel (self->edges_cancellable);
  g_clear_object (&self->edges_cancellable);
}

/* The tables empty at once (they would show another function's callers),
 * and fill when the worker has listed them. */
static void
on_function_selected (GtkSingleSelection *selection, GParamSpec *pspec, SysprofCallgraphView *self)
{
  SysprofCallgraphViewRow *row = gtk_single_selection_get_selected_item (selection);
  Edges                   *request;

  (void) pspec;
  if (self->quiet)
    return;
  cancel_edges (self);
  fill_edges (self->callers, NULL, NULL);
  fill_edges (self->callees, NULL, NULL);
  gtk_label_set_text (GTK_LABEL (self->lines_label), "");
  if (row == NULL)
    return;
  request = g_new0 (Edges, 1);
  request->callgraph = g_object_ref (row->callgraph);
  request->function = row->function;
  /* The lines of another callgraph (the filter changed) are made again. */
  if (self->lines != NULL && self->lines_for != row->callgraph)
    {
      g_clear_object (&self->lines);
      g_clear_object (&self->lines_for);
    }
  if (self->lines != NULL)
    request->lines = g_object_ref (self->lines);
  else
    {
      SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;

      sysprof_document_fill_callgraph_filter (sysprof_view_get_document (SYSPROF_VIEW (self)), &filter);
      request->begin_ns = filter.begin_ns;
      request->end_ns = filter.end_ns;
      request->focus = g_strdupv ((char **) filter.focus);
      request->hide = g_strdupv ((char **) filter.hide);
    }
  self->edges_cancellable = g_cancellable_new ();
  /* No reference: dispose cancels, and a cancelled callback returns before
   * it looks at the view. */
  sysprof_document_run_async (sysprof_view_get_document (SYSPROF_VIEW (self)), "Listing callers and callees",
                              list_edges, request, edges_free, edges_free, self->edges_cancellable, on_edges_ready,
                              self);
}

/* Selects @function in the functions table, clearing the search when it
 * hides it and @clear_search; FALSE when the table does not show it. */
static gboolean
select_function (SysprofCallgraphView *self, const char *name, const char *library, gboolean clear_search)
{
  for (int attempt = 0; attempt < 2; attempt++)
    {
      guint position = sysprof_callgraph_function_list_find (self->functions, name, library);

      if (position != G_MAXUINT)
        {
          gtk_single_selection_set_selected (self->functions_selection, position);
          scroll_to (self->functions_view, position);
          return TRUE;
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
  SysprofDocument  *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  SysprofCallgraph *callgraph = sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  g_autofree char  *total = NULL;
  g_autofree char  *range = NULL;

  if (callgraph == NULL)
    total = g_strdup ("…");
  else
    {
      total = sysprof_callgraph_source_describe_total (sysprof_callgraph_get_source (callgraph),
                                                       sysprof_callgraph_get_root (callgraph)->total);
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

/* The root and the processes under it are what everybody opens first.
 * Done when the call tree is shown: a hidden column view still makes and
 * binds the widgets of its rows. */
static void
expand_root (SysprofCallgraphView *self)
{
  GtkTreeListRow *root_row;

  if (!self->expand_root || g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (self->stack)), "tree") != 0)
    return;
  self->expand_root = FALSE;
  root_row = gtk_tree_list_model_get_row (self->tree, 0);
  if (root_row != NULL)
    {
      gtk_tree_list_row_set_expanded (root_row, TRUE);
      g_object_unref (root_row);
    }
}

static void
on_page_changed (GtkStack *stack, GParamSpec *pspec, SysprofCallgraphView *self)
{
  (void) stack;
  (void) pspec;
  expand_root (self);
}

static void
sysprof_callgraph_view_callgraph_ready (SysprofCallgraphBackedView *view, SysprofCallgraph *callgraph)
{
  SysprofCallgraphView       *self = SYSPROF_CALLGRAPH_VIEW (view);
  g_autofree char            *selected_name = NULL;
  g_autofree char            *selected_library = NULL;
  SysprofCallgraphViewRow    *selected = gtk_single_selection_get_selected_item (self->functions_selection);
  const SysprofCallgraphNode *node = sysprof_callgraph_get_root (callgraph);
  SysprofCallgraphViewRow    *root;

  /* The function selected before stays selected when it is still there. */
  if (selected != NULL)
    {
      selected_name = g_strdup (row_name (selected));
      selected_library = g_strdup (selected->function->symbol->library);
    }

  /* The selection moves a few times on the way: the callers and callees
   * are asked for once, at the end. */
  self->quiet = TRUE;
  sysprof_callgraph_function_list_set_callgraph (self->functions, callgraph);
  if (selected_name == NULL || !select_function (self, selected_name, selected_library, FALSE))
    gtk_single_selection_set_selected (self->functions_selection, 0);
  self->quiet = FALSE;
  on_function_selected (self->functions_selection, NULL, self);

  root = sysprof_callgraph_view_row_new (callgraph, node->function, node, node->self, node->total);
  g_list_store_splice (self->tree_roots, 0, g_list_model_get_n_items (G_LIST_MODEL (self->tree_roots)),
                       (gpointer *) &root, 1);
  g_object_unref (root);
  self->expand_root = TRUE;
  expand_root (self);

  update_header (self);
}

/* The callers and callees of the old callgraph are not worth finishing. */
static void
sysprof_callgraph_view_callgraph_cleared (SysprofCallgraphBackedView *view)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (view);

  cancel_edges (self);
  update_header (self);
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
  sysprof_callgraph_source_dropdown_update (SYSPROF_CALLGRAPH_VIEW (view)->source_dropdown, document);
  SYSPROF_VIEW_CLASS (sysprof_callgraph_view_parent_class)->load (view, document);
}

guint64
sysprof_callgraph_view_get_total (SysprofCallgraphView *self)
{
  SysprofCallgraph *callgraph;

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_VIEW (self), 0);

  callgraph = sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  return callgraph != NULL ? sysprof_callgraph_get_root (callgraph)->total : 0;
}

SysprofCallgraph *
sysprof_callgraph_view_get_callgraph (SysprofCallgraphView *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_VIEW (self), NULL);

  return sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
}

static void
sysprof_callgraph_view_dispose (GObject *object)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (object);

  cancel_edges (self);
  /* Nothing to expand while the pages go. */
  self->expand_root = FALSE;
  /* The columns leave the sorter as the column view goes: nothing to sort
   * then. */
  if (self->sorter != NULL)
    g_clear_signal_handler (&self->sort_handler, self->sorter);
  g_clear_object (&self->sorter);
  /* The popover is parented to the box, which the base class destroys. */
  g_clear_pointer (&self->menu, gtk_widget_unparent);

  G_OBJECT_CLASS (sysprof_callgraph_view_parent_class)->dispose (object);
}

static void
sysprof_callgraph_view_finalize (GObject *object)
{
  SysprofCallgraphView *self = SYSPROF_CALLGRAPH_VIEW (object);

  g_clear_object (&self->functions);
  g_clear_object (&self->functions_selection);
  g_clear_object (&self->callers);
  g_clear_object (&self->callees);
  g_clear_object (&self->tree_roots);
  g_clear_object (&self->tree);
  g_clear_object (&self->lines);
  g_clear_object (&self->lines_for);
  g_free (self->needle);

  G_OBJECT_CLASS (sysprof_callgraph_view_parent_class)->finalize (object);
}

static void
sysprof_callgraph_view_class_init (SysprofCallgraphViewClass *klass)
{
  GObjectClass                    *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass                  *widget_class = GTK_WIDGET_CLASS (klass);
  SysprofViewClass                *view_class = SYSPROF_VIEW_CLASS (klass);
  SysprofCallgraphBackedViewClass *backed_class = SYSPROF_CALLGRAPH_BACKED_VIEW_CLASS (klass);

  object_class->dispose = sysprof_callgraph_view_dispose;
  object_class->finalize = sysprof_callgraph_view_finalize;
  view_class->has_data = sysprof_callgraph_view_has_data;
  view_class->load = sysprof_callgraph_view_load;
  backed_class->callgraph_cleared = sysprof_callgraph_view_callgraph_cleared;
  backed_class->callgraph_ready = sysprof_callgraph_view_callgraph_ready;
  sysprof_view_class_set_info (view_class, "callgraph", "Callgraph", "text-x-generic-symbolic", 20);
  /* The main result of a capture: computed right away, before the page is
   * shown. */
  sysprof_callgraph_backed_view_class_set_callgraph (backed_class, SYSPROF_CALLGRAPH_SOURCE_SAMPLES,
                                                     SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_AT_LOAD,
                                                     "Building the callgraph…");

  sysprof_function_filter_install_actions (widget_class, "callgraph");
  gtk_widget_class_add_binding (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, on_menu_key, NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Menu, 0, on_menu_key, NULL);
}

static GtkWidget *
build_functions_page (SysprofCallgraphView *self)
{
  GtkColumnViewColumn *total_column;
  GtkWidget           *edges_paned;
  GtkWidget           *paned;

  self->functions = sysprof_callgraph_function_list_new ();
  self->functions_view = gtk_column_view_new (NULL);
  self->functions_selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->functions)));
  gtk_column_view_set_model (GTK_COLUMN_VIEW (self->functions_view), GTK_SELECTION_MODEL (self->functions_selection));
  g_signal_connect (self->functions_selection, "notify::selected-item", G_CALLBACK (on_function_selected), self);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Function", SYSPROF_CALLGRAPH_COLUMN_NAME, TRUE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Library", SYSPROF_CALLGRAPH_COLUMN_LIBRARY, TRUE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Self", SYSPROF_CALLGRAPH_COLUMN_SELF, TRUE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Self %", SYSPROF_CALLGRAPH_COLUMN_SELF_PERCENT, TRUE, FALSE);
  total_column =
      add_column (GTK_COLUMN_VIEW (self->functions_view), "Total", SYSPROF_CALLGRAPH_COLUMN_TOTAL, TRUE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->functions_view), "Total %", SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT, TRUE, FALSE);
  /* The header clicks change the column view's sorter; the table sorts. */
  self->sorter = g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->functions_view)));
  self->sort_handler = g_signal_connect (self->sorter, "changed", G_CALLBACK (on_sort_changed), self);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (self->functions_view), total_column, GTK_SORT_DESCENDING);
  set_accessible_label (self->functions_view, "Functions");
  gtk_widget_set_name (self->functions_view, "functions-view");

  self->callers = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->callers_view = gtk_column_view_new (
      GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->callers)))));
  add_column (GTK_COLUMN_VIEW (self->callers_view), "Callers", SYSPROF_CALLGRAPH_COLUMN_NAME, FALSE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->callers_view), "Samples", SYSPROF_CALLGRAPH_COLUMN_TOTAL, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->callers_view), "%", SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT, FALSE, FALSE);
  g_signal_connect (self->callers_view, "activate", G_CALLBACK (on_edge_activate), self);
  set_accessible_label (self->callers_view, "Callers");

  self->callees = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->callees_view = gtk_column_view_new (
      GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->callees)))));
  add_column (GTK_COLUMN_VIEW (self->callees_view), "Callees", SYSPROF_CALLGRAPH_COLUMN_NAME, FALSE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->callees_view), "Samples", SYSPROF_CALLGRAPH_COLUMN_TOTAL, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->callees_view), "%", SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT, FALSE, FALSE);
  g_signal_connect (self->callees_view, "activate", G_CALLBACK (on_edge_activate), self);
  set_accessible_label (self->callees_view, "Callees");

  /* The selected function's source lines, hottest first: a plain text
   * that can be selected and copied. */
  self->lines_label = gtk_label_new (NULL);
  gtk_label_set_selectable (GTK_LABEL (self->lines_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->lines_label), 0.0f);
  gtk_label_set_yalign (GTK_LABEL (self->lines_label), 0.0f);
  gtk_widget_add_css_class (self->lines_label, "monospace");
  gtk_widget_set_margin_start (self->lines_label, 6);
  gtk_widget_set_margin_top (self->lines_label, 6);
  set_accessible_label (self->lines_label, "Source lines");
  gtk_widget_set_name (self->lines_label, "lines-label");

  edges_paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  {
    GtkWidget *inner = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);

    gtk_paned_set_start_child (GTK_PANED (inner), scrolled (self->callees_view));
    gtk_paned_set_end_child (GTK_PANED (inner), scrolled (self->lines_label));
    gtk_paned_set_resize_start_child (GTK_PANED (inner), TRUE);
    gtk_paned_set_resize_end_child (GTK_PANED (inner), TRUE);
    gtk_paned_set_start_child (GTK_PANED (edges_paned), scrolled (self->callers_view));
    gtk_paned_set_end_child (GTK_PANED (edges_paned), inner);
  }
  gtk_paned_set_resize_start_child (GTK_PANED (edges_paned), TRUE);
  gtk_paned_set_resize_end_child (GTK_PANED (edges_paned), TRUE);

  paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_start_child (GTK_PANED (paned), scrolled (self->functions_view));
  gtk_paned_set_end_child (GTK_PANED (paned), edges_paned);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  return paned;
}

static GtkWidget *
build_tree_page (SysprofCallgraphView *self)
{
  self->tree_roots = g_list_store_new (SYSPROF_TYPE_CALLGRAPH_VIEW_ROW);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->tree_roots)), FALSE, FALSE,
                                        create_tree_children, NULL, NULL);
  self->tree_view =
      gtk_column_view_new (GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->tree)))));
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Function", SYSPROF_CALLGRAPH_COLUMN_TREE_NAME, FALSE, TRUE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Self", SYSPROF_CALLGRAPH_COLUMN_SELF, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Self %", SYSPROF_CALLGRAPH_COLUMN_SELF_PERCENT, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Total", SYSPROF_CALLGRAPH_COLUMN_TOTAL, FALSE, FALSE);
  add_column (GTK_COLUMN_VIEW (self->tree_view), "Total %", SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT, FALSE, FALSE);
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
  self->source_dropdown = sysprof_callgraph_source_dropdown_new (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  gtk_box_append (GTK_BOX (header), self->total_label);
  gtk_box_append (GTK_BOX (header), self->range_label);
  gtk_box_append (GTK_BOX (header), self->source_dropdown);
  gtk_box_append (GTK_BOX (header), self->search_entry);
  gtk_box_append (GTK_BOX (header), switcher);
  gtk_box_append (GTK_BOX (self->box), header);

  self->filter_slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->box), self->filter_slot);

  self->stack = gtk_stack_new ();
  gtk_stack_add_titled (GTK_STACK (self->stack), build_functions_page (self), "functions", "Functions");
  gtk_stack_add_titled (GTK_STACK (self->stack), build_tree_page (self), "tree", "Call Tree");
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->stack));
  g_signal_connect (self->stack, "notify::visible-child", G_CALLBACK (on_page_changed), self);
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
