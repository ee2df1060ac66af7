// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphView: the functions of the samples with their self and
 * total, their callers and callees, and the top-down call tree, under the
 * document's filter.  What it shows is exposed for tests.
 *
 * Widgets the tests drive have names (gtk_widget_set_name):
 * "functions-view" (the GtkColumnView of the functions, whose rows are
 * SysprofCallgraphViewRow) and "lines-label" (the selected function's
 * source lines, filled by the worker after each selection). */
#pragma once

#include "sysprof-callgraph-backed-view.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_CALLGRAPH_VIEW (sysprof_callgraph_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofCallgraphView, sysprof_callgraph_view, SYSPROF, CALLGRAPH_VIEW, SysprofCallgraphBackedView)

/* The root's total of the callgraph shown (the samples of the current
 * filter), 0 while it is being computed. */
guint64 sysprof_callgraph_view_get_total (SysprofCallgraphView *self);
/* The callgraph shown, or NULL while it is being computed. */
SysprofCallgraph *sysprof_callgraph_view_get_callgraph (SysprofCallgraphView *self);

G_END_DECLS
