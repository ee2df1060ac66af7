// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-symbols.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* The `__symbols__` file of the established capture format (sysprof-symbol-map.c of GNOME/sysprof 3.46):
 * 32-byte records {u64 begin, u64 end, u32 pid, u32 name, u32 tag, u32 pad}
 * sorted by (pid, begin), an all-zero terminator, then a string table;
 * string offsets count from the start of the file.  Both ends of a range are
 * inclusive (Sysprof 3.46 writes a single address as begin == end), kernel
 * addresses are stored under the pid of the sample. */
typedef struct _SysprofSymbolMap SysprofSymbolMap;

/* Progress of the embedding: @done of @total addresses resolved. */
typedef void (*SysprofSymbolMapProgress) (guint64 done, guint64 total, gpointer user_data);

/* Resolves every address of every SAMPLE, TRACE and ALLOCATION frame of the
 * capture in @fd (opened read-write, e.g. the file a recording just
 * finished) with @symbolizer (loaded from this very capture; NULL: a new one
 * loaded from it, using local files) and appends the `__symbols__` table at the end of the file,
 * so the capture reports the same names on a machine without the binaries.
 * A capture that already holds a `__symbols__` table is left unchanged.
 * The file is only written once the table is complete: when cancelled or
 * failing it is left as it was. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_symbol_map_append_to_fd (int                      fd,
                                          SysprofSymbolizer       *symbolizer,
                                          SysprofSymbolMapProgress progress,
                                          gpointer                 user_data,
                                          GCancellable            *cancellable,
                                          GError                 **error);

/* The two halves of sysprof_symbol_map_append_to_fd, for callers that must
 * decide between them (e.g. whether to still touch the file): build returns
 * the frames to append (empty when the capture already has a table) without
 * writing anything; append writes them at the end of @fd, and on failure
 * truncates the file back to its previous size. */
SYSPROF_AVAILABLE_IN_ALL
GBytes *sysprof_symbol_map_build (int                      fd,
                                  SysprofSymbolizer       *symbolizer,
                                  SysprofSymbolMapProgress progress,
                                  gpointer                 user_data,
                                  GCancellable            *cancellable,
                                  GError                 **error);
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_symbol_map_append (int fd, GBytes *frames, GError **error);

G_END_DECLS
