// SPDX-License-Identifier: GPL-3.0-or-later
/* Files embedded in a capture (FILE_CHUNK frames): /proc/mounts, mountinfo,
 * kallsyms, the __symbols__ table, ...
 *
 * Sysprof 3.46 stores them as they are.  Sysprof 45+ gzips most of them and
 * stores them as PATH.gz: a reader asking for
 * "/proc/kallsyms" gets the contents either way.
 */
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-symbols.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* Decompressed embedded files larger than this are refused (a hostile
 * capture could hold a gzip bomb); a real kallsyms is about 10 MB, a
 * mountinfo a few kB, a __symbols__ table tens of MB. */
#define SYSPROF_EMBEDDED_FILE_MAX_SIZE ((gsize) 1 << 30)
/* What one capture's gzipped files may decompress to together. */
#define SYSPROF_EMBEDDED_FILES_BUDGET ((gsize) 2 << 30)

/* The contents of @path in @reader: its chunks, in capture order, up to the
 * one marked last; or, when there is no file by that name, those of
 * "@path.gz", decompressed.  The reader is read from its start and left at
 * its end.  NULL with G_IO_ERROR_NOT_FOUND when neither is embedded; NULL
 * with G_IO_ERROR_INVALID_DATA when the gzip data is damaged or too big. */
GBytes *sysprof_embedded_file_read (SysprofCaptureReader *reader, const char *path, GError **error);

/* @data (a gzip stream, possibly of several members) decompressed; NULL
 * with G_IO_ERROR_INVALID_DATA when it is damaged, truncated, followed by
 * other data or decompresses to more than @max_size bytes.  @what names it
 * in the message. */
GBytes *sysprof_gunzip (const guint8 *data, gsize len, gsize max_size, const char *what, GError **error);

/* Whether @stored_path, as a FILE_CHUNK frame names it, is the gzipped
 * form of another ("PATH.gz"). */
gboolean sysprof_embedded_file_is_gzipped (const char *stored_path);

G_END_DECLS
