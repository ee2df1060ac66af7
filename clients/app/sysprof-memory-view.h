// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMemoryView: libsysprof's memory analyses of the capture's
 * allocation records (see sysprof-memory-view.c). */
#pragma once

#include "sysprof-callgraph-backed-view.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_MEMORY_VIEW (sysprof_memory_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMemoryView, sysprof_memory_view, SYSPROF, MEMORY_VIEW, SysprofCallgraphBackedView)

/* The analysis of the current selection whose summary, leaks, temporary
 * allocations and cross-thread frees are shown, or NULL while the view is
 * busy.  Owned by the view. */
SysprofMemoryAnalysis *sysprof_memory_view_get_analysis (SysprofMemoryView *self);
/* The analysis of the whole capture behind "Heap over time" and
 * "Difference" (its points, and its snapshots 0 and 1 at the two times of
 * the difference), or NULL while the view is busy.  Owned by the view. */
SysprofMemoryAnalysis *sysprof_memory_view_get_heap_analysis (SysprofMemoryView *self);
/* The two moments the "Difference" page compares, in nanoseconds from the
 * capture's start; setting them moves the pickers and recomputes. */
void sysprof_memory_view_get_diff_times (SysprofMemoryView *self, gint64 *a_ns, gint64 *b_ns);
void sysprof_memory_view_set_diff_times (SysprofMemoryView *self, gint64 a_ns, gint64 b_ns);

G_END_DECLS
