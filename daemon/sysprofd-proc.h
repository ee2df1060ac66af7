// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Opens a file under /proc or /sys for reading.  @path comes from a D-Bus
 * caller: it may end in NULs (Sysprof clients send C strings) and is resolved
 * beneath /proc or /sys with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS),
 * so "..", /proc/PID/root, cwd and fd/N never lead outside.  Returns the fd, or
 * -1 with a G_DBUS_ERROR (ACCESS_DENIED for escapes, FILE_NOT_FOUND, FAILED). */
int sysprofd_proc_open (const guint8 *path, gsize path_len, GError **error);
/* @text (a path a caller sent, or text from /proc or mountinfo) as valid
 * UTF-8 for an error message or a D-Bus string: bytes that are not UTF-8 and
 * control characters become \xNN and a backslash \\, so the text stays
 * recognizable and tells apart what was escaped. */
char *sysprofd_escape_text (const char *text);
/* Reads @fd to its end (at most @max bytes; more is an error). */
GBytes *sysprofd_read_fd (int fd, gsize max, GError **error);
/* Every numeric entry of /proc. */
GArray *sysprofd_list_processes (GError **error);
/* The dictionary of GetProcessInfo for one pid, or NULL if it is gone. */
GVariant *sysprofd_process_info (int pid, const char *attributes);

G_END_DECLS
