// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

#include <sysprof-mount-namespace.h>

#include "sysprofd-credentials.h"

G_BEGIN_DECLS

/* Opens /proc/PID as an O_PATH directory.  A pid <= 0 or of no process is
 * G_DBUS_ERROR_INVALID_ARGS naming the pid. */
int sysprofd_mountinfo_open_process (int pid, GError **error);

/* The mounts of process @pid, parsed by libsysprof/symbols' mount table
 * (the text is the kernel's, the parser the one the symbolizer uses on
 * captured text). */
SysprofMountTable *sysprofd_mountinfo_read (int pid, GError **error);

/* Opens @path (absolute) the way process @pid would, from its root directory:
 * symbolic links are followed inside that root, "/" and ".." never leave it,
 * magic links are never followed.  Returns an O_PATH fd of the file and, in
 * @canonical if not NULL, its path from the process's root without symbolic
 * links, "." or "..".  G_DBUS_ERROR_FILE_NOT_FOUND when there is no such file.
 *
 * With @creds, every directory a name is looked up in (symlink targets
 * included) must be searchable by that caller, judged before the lookup:
 * otherwise G_DBUS_ERROR_ACCESS_DENIED naming the directory and the uid, and
 * not the rest of @path.  NULL @creds is the daemon's own use: no check. */
int sysprofd_mountinfo_open_in_process (
    int pid, const char *path, const SysprofdCredentials *creds, char **canonical, GError **error);

/* The a{sv} of Host.GetMountInfo for one mount (floating). */
GVariant *sysprofd_mount_to_variant (const SysprofMount *mount);

/* Host.ResolvePath: @path (absolute, as process @pid sees it) translated to a
 * path of the daemon's mount namespace, by the rule documented in
 * org.gnome.Sysprof3.Host.xml.  G_DBUS_ERROR_INVALID_ARGS for a bad pid or a
 * relative path, FILE_NOT_FOUND when the process sees no such file.  @creds
 * as for sysprofd_mountinfo_open_in_process(), except that a path naming a
 * file the process maps (its /proc/PID/maps name, and that very file) is
 * resolved without the check. */
char *sysprofd_mountinfo_resolve_path (int pid, const char *path, const SysprofdCredentials *creds, GError **error);

G_END_DECLS
