// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphDiff (sysprof-callgraph-diff.h): the functions of two
 * callgraphs matched by name, library and source line, and the frames of
 * AFTER's tree matched with BEFORE's by path. */
#include <math.h>
#include <string.h>

#include "sysprof-callgraph-diff.h"

struct _SysprofCallgraphDiff
{
  GObject           parent_instance;
  SysprofCallgraph *graphs[2]; /* before, after */
  guint64           n_samples[2];
  GArray           *rows;       /* SysprofCallgraphDiffRow, sorted */
  GHashTable       *node_match; /* AFTER's node -> BEFORE's node */
  double            max_node_change;
};

G_DEFINE_FINAL_TYPE (SysprofCallgraphDiff, sysprof_callgraph_diff, G_TYPE_OBJECT)

static void
sysprof_callgraph_diff_finalize (GObject *object)
{
  SysprofCallgraphDiff *self = SYSPROF_CALLGRAPH_DIFF (object);

  g_clear_object (&self->graphs[0]);
  g_clear_object (&self->graphs[1]);
  g_clear_pointer (&self->rows, g_array_unref);
  g_clear_pointer (&self->node_match, g_hash_table_unref);
  G_OBJECT_CLASS (sysprof_callgraph_diff_parent_class)->finalize (object);
}

static void
sysprof_callgraph_diff_class_init (SysprofCallgraphDiffClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_callgraph_diff_finalize;
}

static void
sysprof_callgraph_diff_init (SysprofCallgraphDiff *self)
{
  (void) self;
}

static double
share (guint64 count, guint64 of)
{
  return of > 0 ? 100.0 * (double) count / (double) of : 0.0;
}

/* What makes two functions of different callgraphs the same: their symbols
 * are interned by different symbolizers, so pointers cannot tell. */
static char *
function_key (const SysprofCallgraphFunction *function)
{
  return g_strdup_printf ("%d\x1f%s\x1f%s\x1f%s\x1f%u", (int) function->kind, function->symbol->name,
                          function->symbol->library, function->file != NULL ? function->file : "", function->line);
}

/* One key per function of @graph, by index. */
static GPtrArray *
function_keys (SysprofCallgraph *graph)
{
  guint      n = sysprof_callgraph_get_n_functions (graph);
  GPtrArray *keys = g_ptr_array_new_full (n, g_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (keys, function_key (sysprof_callgraph_get_function (graph, i)));
  return keys;
}

static gboolean
function_is_listed (const SysprofCallgraphFunction *function)
{
  return function->kind != SYSPROF_CALLGRAPH_FUNCTION_ROOT && function->kind != SYSPROF_CALLGRAPH_FUNCTION_PROCESS &&
         function->total > 0;
}

static const SysprofCallgraphNode *
next_node (const SysprofCallgraphNode *node)
{
  if (node->first_child != NULL)
    return node->first_child;
  for (; node != NULL; node = node->parent)
    if (node->next_sibling != NULL)
      return node->next_sibling;
  return NULL;
}

static void
build_rows (SysprofCallgraphDiff *self, GPtrArray *keys[2])
{
  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal); /* key -> row index + 1 */

  for (guint side = 0; side < 2; side++)
    for (guint i = 0; i < keys[side]->len; i++)
      {
        const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (self->graphs[side], i);
        SysprofCallgraphDiffRow        *row;
        guint                           at;

        if (!function_is_listed (function))
          continue;
        at = GPOINTER_TO_UINT (g_hash_table_lookup (index, keys[side]->pdata[i]));
        if (at == 0)
          {
            SysprofCallgraphDiffRow empty = { 0 };

            g_array_append_val (self->rows, empty);
            at = self->rows->len;
            g_hash_table_insert (index, keys[side]->pdata[i], GUINT_TO_POINTER (at));
          }
        row = &g_array_index (self->rows, SysprofCallgraphDiffRow, at - 1);
        /* Two functions of one callgraph with the same key (two symbols of
         * one name in one library) are one row. */
        if (row->function[side] == NULL)
          row->function[side] = function;
        row->self[side] += function->self;
        row->total[side] += function->total;
      }

  for (guint i = 0; i < self->rows->len; i++)
    {
      SysprofCallgraphDiffRow *row = &g_array_index (self->rows, SysprofCallgraphDiffRow, i);

      for (guint side = 0; side < 2; side++)
        {
          row->self_percent[side] = share (row->self[side], self->n_samples[side]);
          row->total_percent[side] = share (row->total[side], self->n_samples[side]);
        }
      row->self_change = row->self_percent[1] - row->self_percent[0];
      row->total_change = row->total_percent[1] - row->total_percent[0];
    }
}

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SysprofCallgraphDiffRow *ra = a;
  const SysprofCallgraphDiffRow *rb = b;
  gboolean                       by_total = GPOINTER_TO_INT (user_data);
  double                         ca = fabs (by_total ? ra->total_change : ra->self_change);
  double                         cb = fabs (by_total ? rb->total_change : rb->self_change);

  if (ca != cb)
    return ca > cb ? -1 : 1;
  return strcmp (sysprof_callgraph_diff_row_get_function (ra)->symbol->name,
                 sysprof_callgraph_diff_row_get_function (rb)->symbol->name);
}

/* "PARENT\x1eKEY": a node of BEFORE by its parent and function. */
static char *
child_key (gconstpointer parent, const char *function_key)
{
  return g_strdup_printf ("%p\x1e%s", parent, function_key);
}

static void
match_nodes (SysprofCallgraphDiff *self, GPtrArray *keys[2])
{
  g_autoptr (GHashTable) children = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const SysprofCallgraphNode *before_root = sysprof_callgraph_get_root (self->graphs[0]);
  const SysprofCallgraphNode *after_root = sysprof_callgraph_get_root (self->graphs[1]);

  for (const SysprofCallgraphNode *node = before_root->first_child; node != NULL; node = next_node (node))
    {
      char *key;

      /* A node no sample passed through (a process the filter left empty)
       * is no frame. */
      if (node->total == 0)
        continue;
      key = child_key (node->parent, keys[0]->pdata[node->function->index]);
      /* Children come largest first: of two with one key, the first stays. */
      if (g_hash_table_contains (children, key))
        g_free (key);
      else
        g_hash_table_insert (children, key, (gpointer) node);
    }

  g_hash_table_insert (self->node_match, (gpointer) after_root, (gpointer) before_root);
  for (const SysprofCallgraphNode *node = after_root; node != NULL; node = next_node (node))
    {
      const SysprofCallgraphNode *before = NULL;
      double                      change;

      if (node->parent != NULL)
        {
          const SysprofCallgraphNode *before_parent = g_hash_table_lookup (self->node_match, node->parent);

          if (before_parent != NULL)
            {
              g_autofree char *key = child_key (before_parent, keys[1]->pdata[node->function->index]);

              before = g_hash_table_lookup (children, key);
            }
          if (before != NULL)
            g_hash_table_insert (self->node_match, (gpointer) node, (gpointer) before);
        }
      change = sysprof_callgraph_diff_get_node_change (self, node, NULL, NULL);
      self->max_node_change = MAX (self->max_node_change, fabs (change));
    }
}

SysprofCallgraphDiff *
sysprof_callgraph_diff_new (SysprofCallgraph *before, SysprofCallgraph *after, SysprofCallgraphDiffSort sort)
{
  SysprofCallgraphDiff *self;
  GPtrArray            *keys[2];

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (before), NULL);
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (after), NULL);

  self = g_object_new (SYSPROF_TYPE_CALLGRAPH_DIFF, NULL);
  self->graphs[0] = g_object_ref (before);
  self->graphs[1] = g_object_ref (after);
  self->rows = g_array_new (FALSE, FALSE, sizeof (SysprofCallgraphDiffRow));
  self->node_match = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint side = 0; side < 2; side++)
    {
      self->n_samples[side] = sysprof_callgraph_get_n_samples (self->graphs[side]);
      keys[side] = function_keys (self->graphs[side]);
    }

  build_rows (self, keys);
  g_array_sort_with_data (self->rows, compare_rows, GINT_TO_POINTER (sort == SYSPROF_CALLGRAPH_DIFF_SORT_TOTAL));
  match_nodes (self, keys);

  g_ptr_array_unref (keys[0]);
  g_ptr_array_unref (keys[1]);
  return self;
}

SysprofCallgraph *
sysprof_callgraph_diff_get_before (SysprofCallgraphDiff *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), NULL);
  return self->graphs[0];
}

SysprofCallgraph *
sysprof_callgraph_diff_get_after (SysprofCallgraphDiff *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), NULL);
  return self->graphs[1];
}

guint
sysprof_callgraph_diff_get_n_rows (SysprofCallgraphDiff *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), 0);
  return self->rows->len;
}

const SysprofCallgraphDiffRow *
sysprof_callgraph_diff_get_row (SysprofCallgraphDiff *self, guint index)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), NULL);
  g_return_val_if_fail (index < self->rows->len, NULL);
  return &g_array_index (self->rows, SysprofCallgraphDiffRow, index);
}

const SysprofCallgraphFunction *
sysprof_callgraph_diff_row_get_function (const SysprofCallgraphDiffRow *row)
{
  g_return_val_if_fail (row != NULL, NULL);
  return row->function[1] != NULL ? row->function[1] : row->function[0];
}

const SysprofCallgraphNode *
sysprof_callgraph_diff_get_before_node (SysprofCallgraphDiff *self, const SysprofCallgraphNode *node)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), NULL);
  g_return_val_if_fail (node != NULL, NULL);
  return g_hash_table_lookup (self->node_match, node);
}

double
sysprof_callgraph_diff_get_node_change (SysprofCallgraphDiff       *self,
                                        const SysprofCallgraphNode *node,
                                        double                     *before_percent,
                                        double                     *after_percent)
{
  const SysprofCallgraphNode *before;
  double                      b, a;

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), 0);
  g_return_val_if_fail (node != NULL, 0);

  before = g_hash_table_lookup (self->node_match, node);
  b = before != NULL ? share (before->total, self->n_samples[0]) : 0.0;
  a = share (node->total, self->n_samples[1]);
  if (before_percent != NULL)
    *before_percent = b;
  if (after_percent != NULL)
    *after_percent = a;
  return a - b;
}

double
sysprof_callgraph_diff_get_max_node_change (SysprofCallgraphDiff *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (self), 0);
  return self->max_node_change;
}

/* A box with no change, and the two ends of the scale. */
static const guint8 neutral_rgb[3] = { 226, 226, 222 };
static const guint8 grew_rgb[3] = { 222, 40, 32 };
static const guint8 shrank_rgb[3] = { 40, 96, 228 };

void
sysprof_callgraph_diff_colour_for_change (double change, double max_change, guint8 rgb[3])
{
  const guint8 *end = change >= 0 ? grew_rgb : shrank_rgb;
  double        t = max_change > 0 && isfinite (change) ? MIN (fabs (change) / max_change, 1.0) : 0.0;

  g_return_if_fail (rgb != NULL);
  for (guint i = 0; i < 3; i++)
    rgb[i] = (guint8) (neutral_rgb[i] + t * ((double) end[i] - neutral_rgb[i]) + 0.5);
}
