// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphFunctionList: the model of the callgraph view's
 * functions table, the functions of a callgraph as SysprofCallgraphViewRow,
 * sorted by the table's sort columns and filtered by the search.
 *
 * It does what a GListStore under a GtkSortListModel and a
 * GtkFilterListModel did, in the same order (ties in the sort columns keep
 * the order by total, largest first), without making a GObject per
 * function up front: with 180,000 functions those models took most of a
 * second of the main thread. */
#pragma once

#include "sysprof-callgraph-view-row.h"

G_BEGIN_DECLS

/* The columns of the callgraph view's tables. */
typedef enum
{
  SYSPROF_CALLGRAPH_COLUMN_NAME,
  SYSPROF_CALLGRAPH_COLUMN_TREE_NAME,
  SYSPROF_CALLGRAPH_COLUMN_LIBRARY,
  SYSPROF_CALLGRAPH_COLUMN_SELF,
  SYSPROF_CALLGRAPH_COLUMN_SELF_PERCENT,
  SYSPROF_CALLGRAPH_COLUMN_TOTAL,
  SYSPROF_CALLGRAPH_COLUMN_TOTAL_PERCENT,
  SYSPROF_CALLGRAPH_N_COLUMNS
} SysprofCallgraphColumn;

/* How the functions table is sorted: its sort columns, first one first. */
typedef struct
{
  SysprofCallgraphColumn column;
  gboolean               descending;
} SysprofCallgraphSortKey;

#define SYSPROF_TYPE_CALLGRAPH_FUNCTION_LIST (sysprof_callgraph_function_list_get_type ())
G_DECLARE_FINAL_TYPE (
    SysprofCallgraphFunctionList, sysprof_callgraph_function_list, SYSPROF, CALLGRAPH_FUNCTION_LIST, GObject)

/* Empty until it is given a callgraph. */
SysprofCallgraphFunctionList *sysprof_callgraph_function_list_new (void);
/* Replaces the functions with @callgraph's (NULL: none). */
void sysprof_callgraph_function_list_set_callgraph (SysprofCallgraphFunctionList *self, SysprofCallgraph *callgraph);
void sysprof_callgraph_function_list_set_sort (SysprofCallgraphFunctionList  *self,
                                               const SysprofCallgraphSortKey *keys,
                                               guint                          n_keys);
/* @needle: case-folded, or NULL for no search. */
void sysprof_callgraph_function_list_set_needle (SysprofCallgraphFunctionList *self, const char *needle);
/* The position of function @name of @library, or G_MAXUINT when not shown. */
guint sysprof_callgraph_function_list_find (SysprofCallgraphFunctionList *self, const char *name, const char *library);

/* The order of @column, ascending, ties by name: a descending sort reverses
 * all of it. */
int sysprof_callgraph_function_list_compare (const SysprofCallgraphFunction *a,
                                             const SysprofCallgraphFunction *b,
                                             SysprofCallgraphColumn          column);

G_END_DECLS
