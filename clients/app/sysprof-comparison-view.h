// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofComparisonView: the window's capture (AFTER) compared with another
 * one (BEFORE, "Compare With…" or `sysprof --compare BEFORE AFTER`), as
 * `sysprof-report diff` compares them (SysprofCallgraphDiff): a table of
 * the functions with their self and total shares of each capture's samples
 * and the change in points, biggest change of self first, and AFTER's
 * flame graph with each frame coloured by the change of its share (red
 * grew, blue shrank).
 *
 * AFTER's callgraph follows the window's filter (selection, focused and
 * hidden functions) like the other views; BEFORE's is of the whole
 * capture, with the same functions focused and hidden.  The view is not in
 * the list of kinds the window makes for every capture: the window adds it
 * when a comparison is asked for. */
#pragma once

#include "sysprof-callgraph-backed-view.h"
#include "sysprof-flamegraph-canvas.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_COMPARISON_VIEW (sysprof_comparison_view_get_type ())
G_DECLARE_FINAL_TYPE (
    SysprofComparisonView, sysprof_comparison_view, SYSPROF, COMPARISON_VIEW, SysprofCallgraphBackedView)

/* Both documents loaded. */
SysprofView     *sysprof_comparison_view_new (SysprofDocument *after, SysprofDocument *before);
SysprofDocument *sysprof_comparison_view_get_before (SysprofComparisonView *self);
/* The comparison shown, or NULL until both callgraphs arrived. */
SysprofCallgraphDiff *sysprof_comparison_view_get_diff (SysprofComparisonView *self);
/* The table's rows (SysprofComparisonRow), in the order shown. */
GListModel              *sysprof_comparison_view_get_rows (SysprofComparisonView *self);
SysprofFlamegraphCanvas *sysprof_comparison_view_get_canvas (SysprofComparisonView *self);
/* Why the comparison could not be made (a callgraph failed: a capture
 * damaged past its scan), shown in the view; NULL otherwise. */
const char *sysprof_comparison_view_get_error (SysprofComparisonView *self);

G_END_DECLS
