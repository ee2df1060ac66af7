// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_COMPILATION)
#error "sysprof-symbolizer-private.h is private to libsysprof."
#endif

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* The `__symbols__` record (reference §5.3), in the byte order of its writer. */
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

/* Like sysprof_symbolizer_lookup, and also gives the range of run-time
 * addresses of @pid known to resolve to the same symbol, [*begin, *end)
 * (the whole function for an ELF symbol, the address alone otherwise). */
const SysprofSymbol *_sysprof_symbolizer_lookup_range (SysprofSymbolizer    *self,
                                                       gint32                pid,
                                                       gint64                time,
                                                       SysprofAddressContext context,
                                                       SysprofCaptureAddress address,
                                                       guint64              *begin,
                                                       guint64              *end);

/* TRUE when the capture carried a `__symbols__` table. */
gboolean _sysprof_symbolizer_has_embedded_symbols (SysprofSymbolizer *self);

/* Debug directories for the binaries of one process (host paths, e.g. from
 * sysprofd's ListDebugDirectories for a Flatpak), searched before the global
 * ones. */
void _sysprof_symbolizer_set_process_debug_dirs (SysprofSymbolizer *self, gint32 pid, const char *const *dirs);

/* What only the live host can tell about a process (sysprofd's Host
 * interface, see sysprof-host-resolver.h).  Both may be NULL; both are
 * called at most once per question and may return NULL. */
typedef struct
{
  /* Host paths of the directories holding @pid's separate debug files. */
  char **(*list_debug_dirs) (gint32 pid, gpointer user_data);
  /* A host path naming the file @pid sees at @path. */
  char *(*resolve_path) (gint32 pid, const char *path, gpointer user_data);
} SysprofSymbolizerHost;

/* Used for processes the capture shows in a mount namespace other than
 * ours, while symbolizing (e.g. right after recording, when the processes
 * may still run); @host is copied, @user_data must outlive @self. */
void _sysprof_symbolizer_set_host (SysprofSymbolizer *self, const SysprofSymbolizerHost *host, gpointer user_data);

G_END_DECLS
