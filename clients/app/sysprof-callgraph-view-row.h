// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphViewRow: a line of the callgraph view's tables, a
 * function (functions, callers and callees tables) or a node (call tree),
 * made by the tables' models when GTK asks for it.  Its fields are read
 * directly by the tables' cells and sorters. */
#pragma once

#include <sysprof.h>

G_BEGIN_DECLS

/* A probe row asks the functions table's sorter for its sort columns (see
 * read_sort_keys() in sysprof-callgraph-view.c). */
typedef struct
{
  guint known; /* bit per column already named */
  int   asked; /* the column the last comparison asked, or -1 */
} SysprofCallgraphSortProbe;

#define SYSPROF_TYPE_CALLGRAPH_VIEW_ROW (sysprof_callgraph_view_row_get_type ())
G_DECLARE_FINAL_TYPE (SysprofCallgraphViewRow, sysprof_callgraph_view_row, SYSPROF, CALLGRAPH_VIEW_ROW, GObject)

/* The row keeps the callgraph alive, since both the function and the node
 * point into it.  A probe has no function. */
struct _SysprofCallgraphViewRow
{
  GObject                         parent_instance;
  SysprofCallgraph               *callgraph;
  const SysprofCallgraphFunction *function;
  const SysprofCallgraphNode     *node;
  guint64                         self;
  guint64                         total;
  guint64                         base; /* the root's total: 100 % */
  SysprofCallgraphSortProbe      *probe;
};

/* @node: NULL in the tables of functions. */
SysprofCallgraphViewRow *sysprof_callgraph_view_row_new (SysprofCallgraph               *callgraph,
                                                         const SysprofCallgraphFunction *function,
                                                         const SysprofCallgraphNode     *node,
                                                         guint64                         self,
                                                         guint64                         total);

G_END_DECLS
