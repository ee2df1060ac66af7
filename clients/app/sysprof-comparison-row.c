// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-comparison-row.h"

G_DEFINE_FINAL_TYPE (SysprofComparisonRow, sysprof_comparison_row, G_TYPE_OBJECT)

static void
sysprof_comparison_row_finalize (GObject *object)
{
  SysprofComparisonRow *row = SYSPROF_COMPARISON_ROW (object);

  g_clear_object (&row->diff);
  G_OBJECT_CLASS (sysprof_comparison_row_parent_class)->finalize (object);
}

static void
sysprof_comparison_row_class_init (SysprofComparisonRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_comparison_row_finalize;
}

static void
sysprof_comparison_row_init (SysprofComparisonRow *row)
{
  (void) row;
}

SysprofComparisonRow *
sysprof_comparison_row_new (SysprofCallgraphDiff *diff, guint index)
{
  SysprofComparisonRow *row;

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_DIFF (diff), NULL);
  g_return_val_if_fail (index < sysprof_callgraph_diff_get_n_rows (diff), NULL);

  row = g_object_new (SYSPROF_TYPE_COMPARISON_ROW, NULL);
  row->diff = g_object_ref (diff);
  row->row = sysprof_callgraph_diff_get_row (diff, index);
  return row;
}

char *
sysprof_comparison_row_dup_text (SysprofComparisonRow *row, SysprofComparisonColumn column)
{
  const SysprofCallgraphDiffRow *r;

  g_return_val_if_fail (SYSPROF_IS_COMPARISON_ROW (row), NULL);

  r = row->row;
  switch (column)
    {
    case SYSPROF_COMPARISON_COLUMN_NAME: return g_strdup (sysprof_callgraph_diff_row_get_function (r)->symbol->name);
    case SYSPROF_COMPARISON_COLUMN_LIBRARY:
      return g_strdup (sysprof_callgraph_diff_row_get_function (r)->symbol->library);
    case SYSPROF_COMPARISON_COLUMN_BEFORE_SELF: return g_strdup_printf ("%.2f %%", r->self_percent[0]);
    case SYSPROF_COMPARISON_COLUMN_AFTER_SELF: return g_strdup_printf ("%.2f %%", r->self_percent[1]);
    case SYSPROF_COMPARISON_COLUMN_SELF_CHANGE: return g_strdup_printf ("%+.2f", r->self_change);
    case SYSPROF_COMPARISON_COLUMN_BEFORE_TOTAL: return g_strdup_printf ("%.2f %%", r->total_percent[0]);
    case SYSPROF_COMPARISON_COLUMN_AFTER_TOTAL: return g_strdup_printf ("%.2f %%", r->total_percent[1]);
    case SYSPROF_COMPARISON_COLUMN_TOTAL_CHANGE: return g_strdup_printf ("%+.2f", r->total_change);
    case SYSPROF_COMPARISON_N_COLUMNS:
    default: g_return_val_if_reached (NULL);
    }
}
