// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-callgraph-view-row.h"

G_DEFINE_FINAL_TYPE (SysprofCallgraphViewRow, sysprof_callgraph_view_row, G_TYPE_OBJECT)

static void
sysprof_callgraph_view_row_finalize (GObject *object)
{
  SysprofCallgraphViewRow *row = SYSPROF_CALLGRAPH_VIEW_ROW (object);

  g_clear_object (&row->callgraph);
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

SysprofCallgraphViewRow *
sysprof_callgraph_view_row_new (SysprofCallgraph               *callgraph,
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
