// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofComparisonRow: a line of the comparison view's table, one
 * function of a SysprofCallgraphDiff.  Its fields are read directly by the
 * table's cells. */
#pragma once

#include <sysprof.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_COMPARISON_ROW (sysprof_comparison_row_get_type ())
G_DECLARE_FINAL_TYPE (SysprofComparisonRow, sysprof_comparison_row, SYSPROF, COMPARISON_ROW, GObject)

/* The row keeps the diff alive: @row points into it. */
struct _SysprofComparisonRow
{
  GObject                        parent_instance;
  SysprofCallgraphDiff          *diff;
  const SysprofCallgraphDiffRow *row;
};

typedef enum
{
  SYSPROF_COMPARISON_COLUMN_NAME,
  SYSPROF_COMPARISON_COLUMN_LIBRARY,
  SYSPROF_COMPARISON_COLUMN_BEFORE_SELF, /* percent of BEFORE's samples */
  SYSPROF_COMPARISON_COLUMN_AFTER_SELF,
  SYSPROF_COMPARISON_COLUMN_SELF_CHANGE, /* points */
  SYSPROF_COMPARISON_COLUMN_BEFORE_TOTAL,
  SYSPROF_COMPARISON_COLUMN_AFTER_TOTAL,
  SYSPROF_COMPARISON_COLUMN_TOTAL_CHANGE,
  SYSPROF_COMPARISON_N_COLUMNS,
} SysprofComparisonColumn;

SysprofComparisonRow *sysprof_comparison_row_new (SysprofCallgraphDiff *diff, guint index);
/* The text of @column's cell: the name, the library, "40.00 %", "-20.00". */
char *sysprof_comparison_row_dup_text (SysprofComparisonRow *row, SysprofComparisonColumn column);

G_END_DECLS
