// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-memory-sites-private.h is private to libsysprof/analysis."
#endif

#include "sysprof-memory-analysis.h"
#include "sysprof-stack-stash-private.h"

G_BEGIN_DECLS

/* The allocation site of every stack of a prefix tree whose nodes are: the
 * root, one node per process (depth 1, key = pid), then the frames'
 * addresses from the outermost in.  Each node's symbol is looked up once
 * per distinct (pid, address), at @times[node] (the time of the record
 * that created it), only when a site question reaches it; the answers are
 * memoized per node. */
typedef struct _SysprofMemorySites SysprofMemorySites;

SysprofMemorySites *_sysprof_memory_sites_new (SysprofSymbolizer      *symbolizer,
                                               const SysprofStackNode *nodes,
                                               guint32                 n_nodes,
                                               const gint64           *times,
                                               const SysprofSymbol    *no_stack);
void                _sysprof_memory_sites_free (SysprofMemorySites *self);
/* The site of the stack that ends at @node (a process node: @no_stack). */
const SysprofSymbol *_sysprof_memory_sites_get (SysprofMemorySites *self, guint32 node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofMemorySites, _sysprof_memory_sites_free)

/* Rows by site: adds (@allocations, @bytes) to the row of @site in @rows
 * (GArray of SysprofMemorySite), found through @index (symbol → row + 1). */
void _sysprof_memory_sites_accumulate (
    GArray *rows, GHashTable *index, const SysprofSymbol *site, guint64 allocations, guint64 bytes);
/* Most bytes first, then most allocations, then name and library. */
gint _sysprof_memory_site_compare (gconstpointer a, gconstpointer b);

G_END_DECLS
