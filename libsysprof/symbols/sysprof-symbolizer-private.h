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

/* Debug directories for the binaries of one process (host paths, e.g. from
 * sysprofd's ListDebugDirectories for a Flatpak), searched before the global
 * ones. */
void _sysprof_symbolizer_set_process_debug_dirs (SysprofSymbolizer *self, gint32 pid, const char *const *dirs);

/* The files read from this machine that the capture should carry (the perf
 * maps of sysprof_symbolizer_read_perf_maps): their paths and contents. */
guint
_sysprof_symbolizer_get_files_to_embed (SysprofSymbolizer *self, const char *const **paths, GBytes *const **contents);

G_END_DECLS
