// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphChildList: the model of the children of a node of the
 * callgraph view's call tree, as SysprofCallgraphViewRow.  GtkTreeExpander
 * asks every row it shows whether it can expand, which makes (and drops)
 * the model of its children: counting them is all that costs, until GTK
 * asks for a row. */
#pragma once

#include <gio/gio.h>
#include <sysprof.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_CALLGRAPH_CHILD_LIST (sysprof_callgraph_child_list_get_type ())
G_DECLARE_FINAL_TYPE (SysprofCallgraphChildList, sysprof_callgraph_child_list, SYSPROF, CALLGRAPH_CHILD_LIST, GObject)

/* @parent: a node of @callgraph. */
GListModel *sysprof_callgraph_child_list_new (SysprofCallgraph *callgraph, const SysprofCallgraphNode *parent);

G_END_DECLS
