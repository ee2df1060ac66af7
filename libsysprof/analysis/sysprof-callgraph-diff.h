// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphDiff: two callgraphs of CPU samples compared (issue 18),
 * as `sysprof-report diff` and the app's comparison view show them.
 *
 * Shares, not counts: each function's (and each frame's) samples are taken
 * as a percentage of its own callgraph's samples, since two recordings
 * seldom last equally long, and a change is AFTER's share minus BEFORE's,
 * in points of percent.
 *
 * Two views of the same comparison:
 * - functions: one row per function of either callgraph (name, library,
 *   and with source lines, file and line), its self and total samples and
 *   shares on each side, sorted by the size of the change;
 * - frames: each node of AFTER's top-down tree matched with the node of
 *   BEFORE at the same path (the same functions from the root), for a
 *   differential flame graph drawn from AFTER's tree.  A path only BEFORE
 *   has has no node of AFTER: it is not in this view (its loss shows in the
 *   change of its parent's frame, whose total it was part of).
 */
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>

#include "sysprof-callgraph.h"

G_BEGIN_DECLS

typedef enum
{
  SYSPROF_CALLGRAPH_DIFF_SORT_SELF,  /* by the size of self_change */
  SYSPROF_CALLGRAPH_DIFF_SORT_TOTAL, /* by the size of total_change */
} SysprofCallgraphDiffSort;

/* One function of either callgraph.  Index 0 of the arrays is BEFORE, 1 is
 * AFTER.  A function is there when some stack has it (not the root, nor a
 * process node); a function one side lacks has 0 there. */
typedef struct
{
  /* The function on each side, NULL on the side that lacks it; valid as
   * long as the diff (it keeps both callgraphs). */
  const SysprofCallgraphFunction *function[2];
  guint64                         self[2];
  guint64                         total[2];
  /* Percent of that side's samples (sysprof_callgraph_get_n_samples()); 0
   * when it has none. */
  double self_percent[2];
  double total_percent[2];
  /* AFTER's percent minus BEFORE's, in points. */
  double self_change;
  double total_change;
} SysprofCallgraphDiffRow;

#define SYSPROF_TYPE_CALLGRAPH_DIFF (sysprof_callgraph_diff_get_type ())

SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofCallgraphDiff, sysprof_callgraph_diff, SYSPROF, CALLGRAPH_DIFF, GObject)

/* Compares @before with @after (both kept).  Both should have been built
 * with the same filter's shape (source, lines) for the rows to be of the
 * same kind; nothing else is required: the functions are matched by name,
 * library, file and line.  Never fails: an empty side has shares of 0. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCallgraphDiff *
sysprof_callgraph_diff_new (SysprofCallgraph *before, SysprofCallgraph *after, SysprofCallgraphDiffSort sort);
SYSPROF_AVAILABLE_IN_ALL
SysprofCallgraph *sysprof_callgraph_diff_get_before (SysprofCallgraphDiff *self);
SYSPROF_AVAILABLE_IN_ALL
SysprofCallgraph *sysprof_callgraph_diff_get_after (SysprofCallgraphDiff *self);

/* The rows, largest change (of self or total, as @sort said) first, ties by
 * name. */
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_callgraph_diff_get_n_rows (SysprofCallgraphDiff *self);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCallgraphDiffRow *sysprof_callgraph_diff_get_row (SysprofCallgraphDiff *self, guint index);
/* The name of a row's function (from AFTER when both have it). */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCallgraphFunction *sysprof_callgraph_diff_row_get_function (const SysprofCallgraphDiffRow *row);

/* Frames: @node is a node of AFTER's tree.  The node of BEFORE at the same
 * path, or NULL when BEFORE has no such frame (or one without samples). */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCallgraphNode *sysprof_callgraph_diff_get_before_node (SysprofCallgraphDiff       *self,
                                                                    const SysprofCallgraphNode *node);
/* The frame's total as a percent of each side's samples (@before_percent
 * 0 when BEFORE lacks it), and the change in points, which it returns. */
SYSPROF_AVAILABLE_IN_ALL
double sysprof_callgraph_diff_get_node_change (SysprofCallgraphDiff       *self,
                                               const SysprofCallgraphNode *node,
                                               double                     *before_percent,
                                               double                     *after_percent);
/* The largest size of a frame's change over AFTER's tree (0 when none
 * changed): what a differential flame graph scales its colours to. */
SYSPROF_AVAILABLE_IN_ALL
double sysprof_callgraph_diff_get_max_node_change (SysprofCallgraphDiff *self);

/* The colour of a frame that changed by @change points when the largest
 * change is @max_change, as Brendan Gregg's differential flame graphs
 * colour them: red where the share grew, blue where it shrank, a light
 * grey where it stayed, the full colour at the largest change.  Shared by
 * sysprof-report's SVG and the app's canvas so that both read alike. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_callgraph_diff_colour_for_change (double change, double max_change, guint8 rgb[3]);

G_END_DECLS
