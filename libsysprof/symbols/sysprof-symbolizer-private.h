// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-symbolizer-private.h is private to libsysprof/symbols."
#endif

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* The `__symbols__` record (see sysprof-symbol-map.h), in the byte order of its writer. */
typedef struct
{
  guint64 addr_begin;
  guint64 addr_end;
  guint32 pid;
  guint32 name_offset;
  guint32 tag_offset;
  guint32 padding;
} SysprofSymbolMapRecord;

G_STATIC_ASSERT (sizeof (SysprofSymbolMapRecord) == 32);

/* TRUE when the capture carried a `__symbols__` table. */
gboolean _sysprof_symbolizer_has_embedded_symbols (SysprofSymbolizer *self);

/* Before looking up many addresses: note each of them with plan_lookup, then
 * ask_host asks the host (sysprof_symbolizer_set_host) everything their
 * lookups will need, once per mount namespace and file and in batches, where
 * the lookups alone would ask one question at a time. */
void _sysprof_symbolizer_plan_lookup (
    SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofAddressContext context, SysprofCaptureAddress address);
void _sysprof_symbolizer_ask_host (SysprofSymbolizer *self);
/* Questions asked of the host so far (an item of a batch counts as one). */
guint _sysprof_symbolizer_get_n_host_questions (SysprofSymbolizer *self);

/* The files read from this machine that the capture should carry (the perf
 * maps of sysprof_symbolizer_read_perf_maps): their paths and contents. */
guint
_sysprof_symbolizer_get_files_to_embed (SysprofSymbolizer *self, const char *const **paths, GBytes *const **contents);

G_END_DECLS
