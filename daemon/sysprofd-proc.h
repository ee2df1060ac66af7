// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Opens a file under /proc or /sys for reading, for a caller of uid
 * @caller_uid.  @path comes from a D-Bus caller: it may end in NULs (Sysprof
 * clients send C strings).  Only files of the allowlist
 * (sysprofd-proc-allowlist.h) are opened; they are resolved with openat2()
 * beneath /proc or /sys without magic links (and without any symlink in a
 * process's directory), opened non-blocking, must be regular files, and the
 * kernel's name of the opened file is checked against the allowlist again.
 * Returns the fd, or -1 with a G_DBUS_ERROR (ACCESS_DENIED, FILE_NOT_FOUND,
 * INVALID_ARGS, FAILED). */
int sysprofd_proc_open (const guint8 *path, gsize path_len, guint32 caller_uid, GError **error);
/* @text (a path a caller sent, or text from /proc or mountinfo) as valid
 * UTF-8 for an error message or a D-Bus string: bytes that are not UTF-8 and
 * control characters become \xNN and a backslash \\, so the text stays
 * recognizable and tells apart what was escaped. */
char *sysprofd_escape_text (const char *text);
/* Tgid and the four uids (real, effective, saved, filesystem) of the process
 * or thread whose /proc directory @pid_fd is, from its status file. */
gboolean sysprofd_process_read_ids (int pid_fd, gint64 *tgid, guint32 uids[4]);
/* Whether every uid of process @pid (real, effective, saved, filesystem) is
 * @uid and the kernel agrees (a process that is not dumpable, after a
 * setuid exec for instance, has its /proc directory owned by root).  The
 * daemon's own process is nobody's. */
gboolean sysprofd_process_is_owned_by (int pid, guint32 uid);
/* Reads @fd to its end (at most @max bytes; more is an error). */
GBytes *sysprofd_read_fd (int fd, gsize max, GError **error);
/* Every numeric entry of /proc. */
GArray *sysprofd_list_processes (GError **error);
/* The dictionary of GetProcessInfo for one pid, or NULL if it is gone. */
GVariant *sysprofd_process_info (int pid, const char *attributes);

G_END_DECLS
