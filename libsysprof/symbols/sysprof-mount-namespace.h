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

/* One line of a mountinfo text (proc_pid_mountinfo(5)): root, mount_point,
 * fstype and source have the kernel's octal escapes decoded, the option
 * lists are as written; ids are at most G_MAXINT32, as the kernel prints
 * them.  Strings live as long as their table. */
typedef struct
{
  guint64     mount_id;
  guint64     parent_id;
  guint       major;
  guint       minor;
  const char *root;
  const char *mount_point;
  const char *options;
  const char *fstype;
  const char *source;
  const char *super_options;
} SysprofMount;

/* Whether @host_path exists on the host (for instance g_file_test); used to
 * drop candidates that textual matching alone cannot rule out. */
typedef gboolean (*SysprofMountExistsFunc) (const char *host_path, gpointer user_data);

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
/* The number of lines that parsed, and each of them in text order. */
guint               sysprof_mount_table_get_n_mounts (SysprofMountTable *self);
const SysprofMount *sysprof_mount_table_get_mount (SysprofMountTable *self, guint index);

/* The part of @path below @dir ("" or "/x/y"), or NULL when @path is neither
 * @dir nor inside it; roots that are not paths (nsfs's "net:[4026531840]")
 * never match.  And @dir followed by such a @rest. */
const char *sysprof_mount_path_below (const char *path, const char *dir);
char       *sysprof_mount_path_join (const char *dir, const char *rest);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofMountTable, sysprof_mount_table_unref)

/* One process's view translated to the host's.  Reference counted; not
 * thread-safe (its tables are). */
typedef struct _SysprofMountNamespace SysprofMountNamespace;

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

/* Step 3 of the rule below, for a caller that found the process's mount
 * itself (sysprofd, by the file's mount id): host paths, best first, of
 * @fs_path, a path inside the file system of @holder (a mount of the
 * process's table: its root followed by what lies below its mount point).
 * @exists may be NULL.  A NULL-terminated array, possibly empty. */
char **sysprof_mount_table_find_host_paths (SysprofMountTable     *host,
                                            const SysprofMount    *holder,
                                            const char            *fs_path,
                                            SysprofMountExistsFunc exists,
                                            gpointer               user_data);

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
