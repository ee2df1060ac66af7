// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-memory-analysis-private.h is private to libsysprof/analysis."
#endif

#include "sysprof-memory-analysis.h"

G_BEGIN_DECLS

struct _SysprofMemoryAnalysis
{
  GObject parent_instance;

  SysprofSymbolizer   *symbolizer;
  SysprofMemorySummary summary;
  gint64               start_time;
  SysprofMemoryPoint  *points;
  guint                n_points;
  GArray              *leaks;        /* SysprofMemorySite, sorted */
  GArray              *temporary;    /* SysprofMemorySite, sorted */
  GArray              *cross_thread; /* SysprofMemoryCrossThread, sorted */
  GPtrArray           *snapshots;    /* per snapshot of the options: GArray of SysprofMemorySite */
  SysprofSymbol       *no_stack;     /* the site of allocations without a stack; name in the same block */
  char                *record_error; /* the first of summary.record_errors */
};

G_END_DECLS
