// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Offline translation of a path as a profiled process saw it (inside its
 * mount namespace: a container, a Flatpak sandbox, bind mounts, a chroot) to
 * paths on the host where the symbolizer runs.  The inputs are texts: the
 * process's /proc/PID/mountinfo as the capture embeds it, and the host's
 * /proc/self/mountinfo.  The process may be long gone, so this is steps 2 and
 * 3 of Host.ResolvePath (org.gnome.Sysprof3.Host.xml) done on text alone:
 * nothing here touches the file system except reading /proc/self/mountinfo
 * when asked to, and an optional existence check the caller supplies.
 *
 * Paths are taken as written: symbolic links inside the process's view cannot
 * be followed.  The kernel's own paths (MAP frames) have none. */

/* A parsed mountinfo text.  Immutable once built, with an atomic reference
 * count: it may be shared between namespaces and threads.  Tables are interned
 * by text: building one for a text that a live table was built from returns
 * that table, so the hundreds of processes of a capture that share the host's
 * mount namespace (equal mountinfo texts) share one table, and so do
 * namespaces built with the same host text. */
typedef struct _SysprofMountTable SysprofMountTable;

/* Lines that do not parse are skipped; the text is untrusted. */
SysprofMountTable *sysprof_mount_table_new (const char *mountinfo, gsize len);
/* The table of this process's /proc/self/mountinfo, read now. */
SysprofMountTable *sysprof_mount_table_new_for_self (GError **error);
SysprofMountTable *sysprof_mount_table_ref (SysprofMountTable *self);
void               sysprof_mount_table_unref (SysprofMountTable *self);
/* The number of lines that parsed. */
guint sysprof_mount_table_get_n_mounts (SysprofMountTable *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofMountTable, sysprof_mount_table_unref)

/* One process's view translated to the host's.  Reference counted; not
 * thread-safe (its tables are). */
typedef struct _SysprofMountNamespace SysprofMountNamespace;

/* Whether @host_path exists on the host (for instance g_file_test); used to
 * drop candidates that textual matching alone cannot rule out. */
typedef gboolean (*SysprofMountExistsFunc) (const char *host_path, gpointer user_data);

/* @process_mountinfo: the text of the process's /proc/PID/mountinfo.
 * @host_mountinfo: the text of the host's /proc/self/mountinfo, or NULL to
 * read it now (an unreadable one gives an empty table: no candidates).
 * Malformed lines are skipped.  Never NULL. */
SysprofMountNamespace *sysprof_mount_namespace_new (const char *process_mountinfo,
                                                    gsize       process_len,
                                                    const char *host_mountinfo,
                                                    gsize       host_len);
/* As sysprof_mount_namespace_new() with a host table the caller parsed once
 * (sysprof_mount_table_new, _new_for_self) and shares between namespaces:
 * the cheapest way to build one namespace per process of a capture.  The
 * namespace takes its own reference to @host. */
SysprofMountNamespace *
sysprof_mount_namespace_new_with_host (const char *process_mountinfo, gsize process_len, SysprofMountTable *host);
SysprofMountNamespace *sysprof_mount_namespace_ref (SysprofMountNamespace *self);
void                   sysprof_mount_namespace_unref (SysprofMountNamespace *self);
/* Candidates for which @func returns FALSE are left out of translate().
 * @destroy is called on @user_data when replaced or when @self is freed. */
void sysprof_mount_namespace_set_exists_func (SysprofMountNamespace *self,
                                              SysprofMountExistsFunc func,
                                              gpointer               user_data,
                                              GDestroyNotify         destroy);

/* Host paths for @path (absolute, as the process saw it), best first; a
 * NULL-terminated array, empty when there is none (a relative path, a path
 * on a file system the host does not mount, such as a sandbox's tmpfs).
 *
 * The rule, as ResolvePath's:
 *  1. @path is normalized lexically: repeated slashes and "." go, ".." drops
 *     the previous component (never above "/").
 *  2. The process's mount holding it: the deepest mount on its path that the
 *     process can see — the longest mount point that is a prefix of it, where
 *     a mount covered by a later mount on the same place or on one of its
 *     parent directories does not count (parent ids tell).  The path inside
 *     that file system is the mount's root field followed by what @path has
 *     below the mount point.
 *  3. Host mounts with the same major:minor whose root field is that path or
 *     one of its parent directories are candidates: the very same mount
 *     (equal mount id) first, then the longest root, then the most recent
 *     (later in the host text).  Each gives its mount point followed by the
 *     rest of the path; one whose result the host would resolve through
 *     another mount (its mount point, or a directory below it, is covered on
 *     the host) names another file and is left out, and so is one the exists
 *     function rejects.
 *
 * So when the process and the host see the same mount at the same place (the
 * same namespace), @path itself comes first. */
char **sysprof_mount_namespace_translate (SysprofMountNamespace *self, const char *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofMountNamespace, sysprof_mount_namespace_unref)

G_END_DECLS
