// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-callgraph-function-list.h"

static int
compare_names (const SysprofCallgraphFunction *a, const SysprofCallgraphFunction *b)
{
  int cmp = g_strcmp0 (a->symbol->name, b->symbol->name);

  return cmp != 0 ? cmp : g_strcmp0 (a->symbol->library, b->symbol->library);
}

static int
compare_values (guint64 a, guint64 b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

int
sysprof_callgraph_function_list_compare (const SysprofCallgraphFunction *a,
                                         const SysprofCallgraphFunction *b,
                                         SysprofCallgraphColumn          column)
{
  int cmp = 0;

  switch (column)
    {
    case SYSPROF_CALLGRAPH_COLUMN_LIBRARY: cmp = g_strcmp0 (a->symbol->library, b->symbol->library); break;
    case SYSPROF_CALLGRAPH_COLUMN_SELF:
    case SYSPROF_CALLGRAPH_COLUMN_SELF_PERCENT: cmp = compare_values (a->self, b->self); break;
    case SYSPROF_CALLGRAPH_COLUMN_TOTAL:
    case SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT: cmp = compare_values (a->total, b->total); break;
    case SYSPROF_CALLGRAPH_COLUMN_NAME:
    case SYSPROF_CALLGRAPH_COLUMN_TREE_NAME:
    case SYSPROF_CALLGRAPH_N_COLUMNS:
    default: break;
    }
  return cmp != 0 ? cmp : compare_names (a, b);
}

struct _SysprofCallgraphFunctionList
{
  GObject parent_instance;

  SysprofCallgraph                *callgraph; /* NULL: empty */
  guint                            n_functions;
  SysprofCallgraphViewRow        **rows;   /* by function index, made when first asked for */
  char                           **folded; /* by function index: the name case-folded, for the search */
  const SysprofCallgraphFunction **sorted; /* all of them, in the table's order */
  const SysprofCallgraphFunction **shown;  /* those of @sorted the search matches */
  guint                            n_shown;

  SysprofCallgraphSortKey keys[SYSPROF_CALLGRAPH_N_COLUMNS];
  guint                   n_keys;
  char                   *needle; /* case-folded search text, or NULL */
};

static GType
function_list_get_item_type (GListModel *model)
{
  (void) model;
  return SYSPROF_TYPE_CALLGRAPH_VIEW_ROW;
}

static guint
function_list_get_n_items (GListModel *model)
{
  return SYSPROF_CALLGRAPH_FUNCTION_LIST (model)->n_shown;
}

static SysprofCallgraphViewRow *
function_list_row (SysprofCallgraphFunctionList *self, const SysprofCallgraphFunction *function)
{
  SysprofCallgraphViewRow **row = &self->rows[function->index];

  /* Made once: GtkSingleSelection finds its item again by identity. */
  if (*row == NULL)
    *row = sysprof_callgraph_view_row_new (self->callgraph, function, NULL, function->self, function->total);
  return *row;
}

static gpointer
function_list_get_item (GListModel *model, guint position)
{
  SysprofCallgraphFunctionList *self = SYSPROF_CALLGRAPH_FUNCTION_LIST (model);

  if (position >= self->n_shown)
    return NULL;
  return g_object_ref (function_list_row (self, self->shown[position]));
}

static void
function_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = function_list_get_item_type;
  iface->get_n_items = function_list_get_n_items;
  iface->get_item = function_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SysprofCallgraphFunctionList,
                               sysprof_callgraph_function_list,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, function_list_model_init))

static void
function_list_clear (SysprofCallgraphFunctionList *self)
{
  for (guint i = 0; self->rows != NULL && i < self->n_functions; i++)
    g_clear_object (&self->rows[i]);
  for (guint i = 0; self->folded != NULL && i < self->n_functions; i++)
    g_free (self->folded[i]);
  g_clear_pointer (&self->rows, g_free);
  g_clear_pointer (&self->folded, g_free);
  g_clear_pointer (&self->sorted, g_free);
  g_clear_pointer (&self->shown, g_free);
  g_clear_object (&self->callgraph);
  self->n_functions = 0;
  self->n_shown = 0;
}

static void
sysprof_callgraph_function_list_finalize (GObject *object)
{
  SysprofCallgraphFunctionList *self = SYSPROF_CALLGRAPH_FUNCTION_LIST (object);

  function_list_clear (self);
  g_free (self->needle);
  G_OBJECT_CLASS (sysprof_callgraph_function_list_parent_class)->finalize (object);
}

static void
sysprof_callgraph_function_list_class_init (SysprofCallgraphFunctionListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_callgraph_function_list_finalize;
}

static void
sysprof_callgraph_function_list_init (SysprofCallgraphFunctionList *self)
{
  (void) self;
}

/* The table's order: the sort columns, then what the table showed before
 * the first sort, the functions by total, largest first (ties by name,
 * the larger first, then in the callgraph's order). */
static int
compare_sorted (gconstpointer pa, gconstpointer pb, gpointer user_data)
{
  SysprofCallgraphFunctionList   *self = user_data;
  const SysprofCallgraphFunction *a = *(const SysprofCallgraphFunction *const *) pa;
  const SysprofCallgraphFunction *b = *(const SysprofCallgraphFunction *const *) pb;
  int                             cmp;

  for (guint i = 0; i < self->n_keys; i++)
    if ((cmp = sysprof_callgraph_function_list_compare (a, b, self->keys[i].column)) != 0)
      return self->keys[i].descending ? -cmp : cmp;
  if ((cmp = sysprof_callgraph_function_list_compare (b, a, SYSPROF_CALLGRAPH_COLUMN_TOTAL)) != 0)
    return cmp;
  return compare_values (a->index, b->index);
}

static gboolean
function_list_matches (SysprofCallgraphFunctionList *self, const SysprofCallgraphFunction *function)
{
  char **folded;

  if (self->needle == NULL)
    return TRUE;
  folded = &self->folded[function->index];
  if (*folded == NULL)
    *folded = g_utf8_casefold (function->symbol->name, -1);
  return strstr (*folded, self->needle) != NULL;
}

/* Sorts (when @sort) and searches again, and tells the views what changed:
 * one range, from the first row that differs to the last, as
 * GtkSortListModel and GtkFilterListModel do, so that the selection can
 * find its row again. */
static void
function_list_update (SysprofCallgraphFunctionList *self, gboolean sort)
{
  g_autofree const SysprofCallgraphFunction **old = g_steal_pointer (&self->shown);
  guint                                       old_n = self->n_shown;
  guint                                       n = 0;
  guint                                       prefix = 0;
  guint                                       suffix = 0;

  if (self->callgraph == NULL)
    return;
  if (sort)
    g_qsort_with_data (self->sorted, (gint) self->n_functions, sizeof *self->sorted, compare_sorted, self);
  self->shown = g_new (const SysprofCallgraphFunction *, MAX (self->n_functions, 1));
  for (guint i = 0; i < self->n_functions; i++)
    if (function_list_matches (self, self->sorted[i]))
      self->shown[n++] = self->sorted[i];
  self->n_shown = n;

  while (prefix < MIN (old_n, n) && old[prefix] == self->shown[prefix])
    prefix++;
  while (suffix < MIN (old_n, n) - prefix && old[old_n - 1 - suffix] == self->shown[n - 1 - suffix])
    suffix++;
  if (prefix != old_n || prefix != n)
    g_list_model_items_changed (G_LIST_MODEL (self), prefix, old_n - prefix - suffix, n - prefix - suffix);
}

/* The old rows go first, in a change of their own: none of them is among
 * the new ones, and GtkSingleSelection would otherwise look for its row
 * among all of them. */
void
sysprof_callgraph_function_list_set_callgraph (SysprofCallgraphFunctionList *self, SysprofCallgraph *callgraph)
{
  guint old_n = self->n_shown;

  function_list_clear (self);
  if (old_n > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old_n, 0);
  if (callgraph == NULL)
    return;
  self->callgraph = g_object_ref (callgraph);
  self->n_functions = sysprof_callgraph_get_n_functions (callgraph);
  self->rows = g_new0 (SysprofCallgraphViewRow *, self->n_functions);
  self->folded = g_new0 (char *, self->n_functions);
  self->sorted = g_new (const SysprofCallgraphFunction *, MAX (self->n_functions, 1));
  for (guint i = 0; i < self->n_functions; i++)
    self->sorted[i] = sysprof_callgraph_get_function (callgraph, i);
  function_list_update (self, TRUE);
}

void
sysprof_callgraph_function_list_set_sort (SysprofCallgraphFunctionList  *self,
                                          const SysprofCallgraphSortKey *keys,
                                          guint                          n_keys)
{
  memcpy (self->keys, keys, n_keys * sizeof *keys);
  self->n_keys = n_keys;
  function_list_update (self, TRUE);
}

void
sysprof_callgraph_function_list_set_needle (SysprofCallgraphFunctionList *self, const char *needle)
{
  g_free (self->needle);
  self->needle = g_strdup (needle);
  function_list_update (self, FALSE);
}

guint
sysprof_callgraph_function_list_find (SysprofCallgraphFunctionList *self, const char *name, const char *library)
{
  for (guint i = 0; i < self->n_shown; i++)
    if (strcmp (self->shown[i]->symbol->name, name) == 0 && g_strcmp0 (self->shown[i]->symbol->library, library) == 0)
      return i;
  return G_MAXUINT;
}

SysprofCallgraphFunctionList *
sysprof_callgraph_function_list_new (void)
{
  return g_object_new (SYSPROF_TYPE_CALLGRAPH_FUNCTION_LIST, NULL);
}
