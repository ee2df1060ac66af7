// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-elf-loader-private.h is private to libsysprof/symbols."
#endif

#include <gio/gio.h>

#include "sysprof-debuginfod-private.h"
#include "sysprof-elf-private.h"

G_BEGIN_DECLS

/* Opens ELF files by host path, caches them, and finds their separate debug
 * files.  Paths are host paths: translating a process's paths through its
 * mount namespace is the caller's business.  Not thread-safe. */
typedef struct _SysprofElfLoader SysprofElfLoader;

SysprofElfLoader *sysprof_elf_loader_new (void);
SysprofElfLoader *sysprof_elf_loader_ref (SysprofElfLoader *self);
void              sysprof_elf_loader_unref (SysprofElfLoader *self);

/* The directories searched for debug files, in order (host paths); replaces
 * the list (NULL: none).  Default: just "/usr/lib/debug". */
void               sysprof_elf_loader_set_debug_dirs (SysprofElfLoader *self, const char *const *dirs);
const char *const *sysprof_elf_loader_get_debug_dirs (SysprofElfLoader *self);

/* Where debug files are fetched when no local one is found (NULL: nowhere,
 * the default); forgets the files loaded so far. */
void sysprof_elf_loader_set_debuginfod (SysprofElfLoader *self, SysprofDebuginfod *debuginfod);
/* The one set, or NULL; loaders made from this one pass it on. */
SysprofDebuginfod *sysprof_elf_loader_get_debuginfod (SysprofElfLoader *self);

/* Loads @host_path, cached by path and revalidated against the file's device,
 * inode, size and mtime at every call (failures are cached the same way),
 * and attaches its debug file, the first candidate accepted of:
 *  1. by build-id, in each debug dir: <dir>/.build-id/<2 hex>/<rest>.debug,
 *     accepted when its build-id is the binary's;
 *  2. by .gnu_debuglink: <dir of binary>/<link>, <dir of binary>/.debug/<link>,
 *     then <debug dir>/<dir of binary>/<link> for each debug dir, accepted
 *     when the CRC-32 of the whole candidate is the debuglink's and, when
 *     both have one, the build-ids match.
 * Returns a new reference, or NULL with @error. */
SysprofElf *sysprof_elf_loader_load (SysprofElfLoader *self, const char *host_path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofElfLoader, sysprof_elf_loader_unref)

G_END_DECLS
