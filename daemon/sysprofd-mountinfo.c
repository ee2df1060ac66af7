// SPDX-License-Identifier: GPL-3.0-or-later
/* A process's view of the file system: its mount table, and how a path it
 * sees maps to a path in the daemon's own mount namespace. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sysprofd-mountinfo.h"
#include "sysprofd-proc.h"

/* A container host can have tens of thousands of mounts (~150 bytes each). */
#define MOUNTINFO_MAX (64 * 1024 * 1024)
/* As the kernel's MAXSYMLINKS. */
#define MAX_SYMLINKS 40
/* As the kernel's XATTR_SIZE_MAX. */
#define ACL_MAX (64 * 1024)

int
sysprofd_mountinfo_open_process (int pid, GError **error)
{
  char path[32];
  int  fd;

  if (pid <= 0)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Invalid pid %d: process ids are positive", pid);
      return -1;
    }
  g_snprintf (path, sizeof path, "/proc/%d", pid);
  fd = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;

      if (saved == ENOENT)
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "No process with pid %d", pid);
      else
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open %s: %s", path, g_strerror (saved));
    }
  return fd;
}

static SysprofMountTable *
read_mountinfo_at (int proc_fd, int pid, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  int fd = openat (proc_fd, "mountinfo", O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    {
      int saved = errno;

      /* A zombie keeps /proc/PID but has no mount namespace any more. */
      if (saved == ENOENT || saved == EINVAL || saved == ESRCH)
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Process %d has exited", pid);
      else
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open /proc/%d/mountinfo: %s", pid,
                     g_strerror (saved));
      return NULL;
    }
  bytes = sysprofd_read_fd (fd, MOUNTINFO_MAX, error);
  close (fd);
  if (bytes == NULL)
    {
      g_prefix_error (error, "/proc/%d/mountinfo: ", pid);
      return NULL;
    }
  return sysprof_mount_table_new (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

SysprofMountTable *
sysprofd_mountinfo_read (int pid, GError **error)
{
  SysprofMountTable *mounts;
  int                proc_fd = sysprofd_mountinfo_open_process (pid, error);

  if (proc_fd < 0)
    return NULL;
  mounts = read_mountinfo_at (proc_fd, pid, error);
  close (proc_fd);
  return mounts;
}

/* D-Bus strings must be UTF-8; paths need not be. */
static GVariant *
string_variant (const char *s)
{
  if (g_utf8_validate (s, -1, NULL))
    return g_variant_new_string (s);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (s, -1);
      return g_variant_new_string (valid);
    }
}

GVariant *
sysprofd_mount_to_variant (const SysprofMount *mount)
{
  GVariantDict dict;

  g_return_val_if_fail (mount != NULL, NULL);

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "mount-id", "i", (gint32) mount->mount_id);
  g_variant_dict_insert (&dict, "parent-id", "i", (gint32) mount->parent_id);
  g_variant_dict_insert (&dict, "major", "u", mount->major);
  g_variant_dict_insert (&dict, "minor", "u", mount->minor);
  g_variant_dict_insert_value (&dict, "root", string_variant (mount->root));
  g_variant_dict_insert_value (&dict, "mount-point", string_variant (mount->mount_point));
  g_variant_dict_insert_value (&dict, "options", string_variant (mount->options));
  g_variant_dict_insert_value (&dict, "fstype", string_variant (mount->fstype));
  g_variant_dict_insert_value (&dict, "source", string_variant (mount->source));
  g_variant_dict_insert_value (&dict, "super-options", string_variant (mount->super_options));
  return g_variant_dict_end (&dict);
}

/* Queues the components of @path so that the first one is popped first.
 * "." stays: like any name, it is looked up in a directory, which must be
 * one the caller can search. */
static void
push_components (GPtrArray *pending, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = g_strv_length (parts); i > 0; i--)
    if (parts[i - 1][0] != 0)
      g_ptr_array_add (pending, g_strdup (parts[i - 1]));
}

static char *
join_components (GPtrArray *names)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < names->len; i++)
    {
      g_string_append_c (out, '/');
      g_string_append (out, names->pdata[i]);
    }
  if (out->len == 0)
    g_string_append_c (out, '/');
  return g_string_free (out, FALSE);
}

/* The directory @names leads to from @root_fd.  The kernel keeps it inside
 * the root, and refuses symlinks: the names were checked to be none, and one
 * that has become a symlink since is an error, not a detour. */
static int
reopen_directory (int root_fd, GPtrArray *names)
{
  g_autofree char *path = join_components (names);
  struct open_how  how = {
     .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
     .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };

  return (int) syscall (SYS_openat2, root_fd, path, &how, sizeof how);
}

static void
set_walk_error (GError **error, int saved, int pid, const char *path)
{
  g_autofree char *shown = sysprofd_escape_text (path);

  switch (saved)
    {
    case ENOENT:
    case ENOTDIR:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND, "%s does not exist for process %d", shown, pid);
      break;
    case EACCES:
    case EPERM:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED, "Cannot resolve %s for process %d: %s", shown, pid,
                   g_strerror (saved));
      break;
    default:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot resolve %s for process %d: %s", shown, pid,
                   g_strerror (saved));
      break;
    }
}

/* Whether @creds could look names up in the directory @dir_fd, decided from
 * the directory alone, never from the name to be looked up: that is what keeps
 * the answer from telling whether a name exists where the caller cannot look.
 * A POSIX access ACL is evaluated when the directory has one, since its named
 * entries can refuse what the mode bits show.  Errors refuse. */
static gboolean
may_search (const SysprofdCredentials *creds, int dir_fd)
{
  g_autofree guint8 *acl = NULL;
  char               fd_path[64];
  struct stat        st;
  ssize_t            len;

  if (fstat (dir_fd, &st) < 0 || !S_ISDIR (st.st_mode))
    return FALSE;
  if (creds->uid == 0)
    return TRUE;

  /* fgetxattr() refuses O_PATH descriptors; the path through /proc/self/fd
   * reaches the same inode. */
  g_snprintf (fd_path, sizeof fd_path, "/proc/self/fd/%d", dir_fd);
  if ((len = getxattr (fd_path, "system.posix_acl_access", NULL, 0)) < 0)
    return (errno == ENODATA || errno == EOPNOTSUPP) && sysprofd_credentials_can_search (creds, &st);
  if (len == 0 || len > ACL_MAX)
    return FALSE;
  acl = g_malloc ((gsize) len);
  /* An ACL that grew in between fails with ERANGE, and so refuses. */
  if ((len = getxattr (fd_path, "system.posix_acl_access", acl, (gsize) len)) < 0)
    return FALSE;
  return sysprofd_credentials_can_search_acl (creds, &st, acl, (gsize) len);
}

static int
open_root (int pid, GError **error)
{
  int proc_fd;
  int root_fd;
  int saved;

  if ((proc_fd = sysprofd_mountinfo_open_process (pid, error)) < 0)
    return -1;
  root_fd = openat (proc_fd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  saved = errno;
  close (proc_fd);
  if (root_fd >= 0)
    return root_fd;

  if (saved == ENOENT || saved == ESRCH)
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Process %d has exited", pid);
  else
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open the root directory of process %d: %s", pid,
                 g_strerror (saved));
  return -1;
}

/* The walk is done one component at a time, in user space, instead of with
 * openat2(RESOLVE_IN_ROOT) alone: it gives the canonical path along with the
 * file, which the kernel has no way to tell for a file of another mount
 * namespace (/proc/self/fd/N shows it relative to the wrong root).  Every
 * lookup is openat(dir, one-component, O_NOFOLLOW); ".." drops the last
 * canonical component and reopens from the root.  So nothing leaves the
 * process's root: not "..", not an absolute symlink, and not a magic link
 * (its target is read as text, as if it were a plain symlink).  At most three
 * fds are open at a time, however deep the path.
 *
 * The daemon walks as root; with @creds, it also refuses to look into a
 * directory the caller could not search, so that a caller learns no more
 * than its own lookups would tell it. */
int
sysprofd_mountinfo_open_in_process (
    int pid, const char *path, const SysprofdCredentials *creds, char **canonical, GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) pending = g_ptr_array_new_with_free_func (g_free);
  guint    links = 0;
  gboolean denied = FALSE;
  int      root_fd;
  int      cur;
  int      saved = 0;

  g_return_val_if_fail (path != NULL, -1);

  if (path[0] != '/')
    {
      g_autofree char *shown = sysprofd_escape_text (path);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   "The path \"%s\" is not absolute: give it as process %d sees it from its root directory", shown,
                   pid);
      return -1;
    }
  /* As the kernel; it also bounds the work a caller can ask for. */
  if (strlen (path) >= PATH_MAX)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "The path is longer than %d bytes", PATH_MAX - 1);
      return -1;
    }

  if ((root_fd = open_root (pid, error)) < 0)
    return -1;
  if ((cur = fcntl (root_fd, F_DUPFD_CLOEXEC, 0)) < 0)
    {
      saved = errno;
      goto fail;
    }
  push_components (pending, path);

  while (pending->len > 0)
    {
      g_autofree char *name = g_ptr_array_steal_index (pending, pending->len - 1);
      struct stat      st;
      int              fd;

      /* Every component is a lookup in @cur, "." and ".." too (the kernel
       * checks those as well), and so is every one a symlink leads through. */
      if (creds != NULL && !may_search (creds, cur))
        {
          denied = TRUE;
          goto fail;
        }

      if (g_str_equal (name, "."))
        continue;
      if (g_str_equal (name, ".."))
        {
          /* ".." of the root is the root, as for the process itself. */
          if (names->len > 0)
            {
              g_ptr_array_remove_index (names, names->len - 1);
              close (cur);
              if ((cur = reopen_directory (root_fd, names)) < 0)
                {
                  saved = errno;
                  goto fail;
                }
            }
          continue;
        }

      fd = openat (cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 || fstat (fd, &st) < 0)
        {
          saved = errno;
          if (fd >= 0)
            close (fd);
          goto fail;
        }

      if (S_ISLNK (st.st_mode))
        {
          char    target[PATH_MAX];
          ssize_t n;

          if (++links > MAX_SYMLINKS)
            {
              saved = ELOOP;
              close (fd);
              goto fail;
            }
          n = readlinkat (fd, "", target, sizeof target - 1);
          saved = n < 0 ? errno : ENOENT;
          close (fd);
          if (n <= 0)
            goto fail;
          target[n] = 0;
          if (target[0] == '/')
            {
              g_ptr_array_remove_range (names, 0, names->len);
              close (cur);
              if ((cur = fcntl (root_fd, F_DUPFD_CLOEXEC, 0)) < 0)
                {
                  saved = errno;
                  goto fail;
                }
            }
          push_components (pending, target);
          continue;
        }

      if (pending->len > 0 && !S_ISDIR (st.st_mode))
        {
          saved = ENOTDIR;
          close (fd);
          goto fail;
        }
      close (cur);
      cur = fd;
      g_ptr_array_add (names, g_steal_pointer (&name));
    }

  close (root_fd);
  if (canonical != NULL)
    *canonical = join_components (names);
  return cur;

fail:
  if (denied)
    {
      /* The directory and the uid, never the rest of @path: the message must
       * be the same whether the name looked for exists or not. */
      g_autofree char *dir = join_components (names);
      g_autofree char *shown = sysprofd_escape_text (dir);

      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Access denied: uid %u cannot search %s as process %d sees it", (guint) creds->uid, shown, pid);
    }
  else
    set_walk_error (error, saved, pid, path);
  if (cur >= 0)
    close (cur);
  close (root_fd);
  return -1;
}

/* The candidate must be the very file: another file system's subvolume, or
 * a file covered on the host, has the same name and another inode. */
typedef struct
{
  dev_t dev;
  ino_t ino;
} SameFile;

static gboolean
is_same_file (const char *host_path, gpointer data)
{
  const SameFile *file = data;
  struct stat     st;

  return stat (host_path, &st) == 0 && st.st_dev == file->dev && st.st_ino == file->ino;
}

/* Steps 2 and 3 of the rule in org.gnome.Sysprof3.Host.xml; step 3 is the
 * symbolizer's own (sysprof_mount_table_find_host_paths). */
static char *
translate_to_host (int pid, int fd, const char *canonical)
{
  g_autoptr (SysprofMountTable) theirs = NULL;
  g_autoptr (SysprofMountTable) ours = NULL;
  g_auto (GStrv) found = NULL;
  g_autofree char    *fs_path = NULL;
  const SysprofMount *holder = NULL;
  const char         *below = NULL;
  struct statx        stx;
  struct stat         st;
  SameFile            file;
  gboolean            have_mnt_id;
  guint               n;
  int                 self_fd;

  if (fstat (fd, &st) < 0)
    return NULL;
  have_mnt_id = statx (fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID);

  if (!(theirs = sysprofd_mountinfo_read (pid, NULL)))
    return NULL;

  /* The mount holding the file: by its id, or (kernels before 5.8) the
   * deepest mount of the file's device on its path, the latest if stacked. */
  n = sysprof_mount_table_get_n_mounts (theirs);
  for (guint i = 0; i < n; i++)
    {
      const SysprofMount *m = sysprof_mount_table_get_mount (theirs, i);
      const char         *rest;

      if (have_mnt_id ? m->mount_id != stx.stx_mnt_id : makedev (m->major, m->minor) != st.st_dev)
        continue;
      if (!(rest = sysprof_mount_path_below (canonical, m->mount_point)))
        continue;
      if (holder == NULL || strlen (m->mount_point) >= strlen (holder->mount_point))
        {
          holder = m;
          below = rest;
        }
    }
  if (holder == NULL)
    return NULL;
  fs_path = sysprof_mount_path_join (holder->root, below);

  if ((self_fd = open ("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
    return NULL;
  ours = read_mountinfo_at (self_fd, getpid (), NULL);
  close (self_fd);
  if (ours == NULL)
    return NULL;

  file = (SameFile){ st.st_dev, st.st_ino };
  found = sysprof_mount_table_find_host_paths (ours, holder, fs_path, is_same_file, &file);
  return found[0] != NULL ? g_strdup (found[0]) : NULL;
}

/* What /proc/PID/maps shows for @path: the kernel writes a newline in a
 * pathname as \012 and every other byte as it is. */
static char *
maps_form (const char *path)
{
  GString *out = g_string_sized_new (strlen (path));

  for (const char *p = path; *p; p++)
    if (*p == '\n')
      g_string_append (out, "\\012");
    else
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* Whether the line of maps @name (@name_len bytes, without the newline) is
 * @wanted, or @wanted with the " (deleted)" the kernel appends for a file
 * deleted since it was mapped: clients strip that suffix before asking. */
static gboolean
maps_name_matches (const char *name, gsize name_len, const char *wanted, gsize wanted_len)
{
  static const char deleted[] = " (deleted)";

  if (name_len < wanted_len || memcmp (name, wanted, wanted_len) != 0)
    return FALSE;
  return name_len == wanted_len ||
         (name_len == wanted_len + strlen (deleted) && memcmp (name + wanted_len, deleted, strlen (deleted)) == 0);
}

/* Whether process @pid maps the file @st under the name @path.  The names in
 * maps are hostile text: whoever named a file chose them, and they need not
 * name the file in the process's tree at all (a file on a mount the process
 * has detached shows its path inside that mount, which can read like any path
 * of the process's own tree; a file can be named "x (deleted)").  So a name
 * only picks the lines, and a line counts only when it shows this very file:
 * its device and inode, or those /proc/PID/map_files/RANGE leads to (the same
 * as fstat() reports on btrfs subvolumes, where maps shows the superblock's
 * device). */
static gboolean
is_mapped_file (int pid, const char *path, const struct stat *st)
{
  g_autofree char *wanted = maps_form (path);
  g_autofree char *line = NULL;
  gsize            wanted_len = strlen (wanted);
  size_t           line_size = 0;
  gboolean         found = FALSE;
  ssize_t          n;
  FILE            *maps;
  int              proc_fd;
  int              fd;

  if ((proc_fd = sysprofd_mountinfo_open_process (pid, NULL)) < 0)
    return FALSE;
  if ((fd = openat (proc_fd, "maps", O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 || !(maps = fdopen (fd, "r")))
    {
      if (fd >= 0)
        close (fd);
      close (proc_fd);
      return FALSE;
    }

  /* Line by line: a process can have some 65,000 mappings. */
  while (!found && (n = getline (&line, &line_size, maps)) > 0)
    {
      unsigned long start;
      unsigned long end;
      unsigned long inode;
      unsigned int  major;
      unsigned int  minor;
      int           name_at = -1;
      gsize         name_len;
      char          range[64];
      struct stat   mapped;

      /* "start-end perms offset major:minor inode", padding, the pathname
       * (absolute, so the padding cannot eat any of it). */
      if (sscanf (line, "%lx-%lx %*s %*s %x:%x %lu %n", &start, &end, &major, &minor, &inode, &name_at) != 5 ||
          name_at < 0 || name_at > n)
        continue;
      name_len = (gsize) (n - name_at);
      if (name_len > 0 && line[name_at + name_len - 1] == '\n')
        name_len--;
      if (!maps_name_matches (line + name_at, name_len, wanted, wanted_len))
        continue;

      if (makedev (major, minor) == st->st_dev && (guint64) inode == (guint64) st->st_ino)
        found = TRUE;
      else
        {
          g_snprintf (range, sizeof range, "map_files/%lx-%lx", start, end);
          found =
              fstatat (proc_fd, range, &mapped, 0) == 0 && mapped.st_dev == st->st_dev && mapped.st_ino == st->st_ino;
        }
    }
  fclose (maps);
  close (proc_fd);
  return found;
}

/* The one exception to the caller's credentials: the file process @pid maps
 * under the name @path.  A profiler must find the libraries of a root
 * process, wherever they lie; and the name is in /proc/PID/maps, which
 * authorized callers read through GetProcFile anyway, so resolving it tells
 * them nothing new.  The file is opened before maps is read: two files alive
 * at once never share a device and inode, so a match is this file, even if
 * the process unmaps it right after. */
static int
open_mapped_file (int pid, const char *path, char **canonical)
{
  g_autofree char *found = NULL;
  struct stat      st;
  int              fd;

  if ((fd = sysprofd_mountinfo_open_in_process (pid, path, NULL, &found, NULL)) < 0)
    return -1;
  if (fstat (fd, &st) < 0 || !is_mapped_file (pid, path, &st))
    {
      close (fd);
      return -1;
    }
  *canonical = g_steal_pointer (&found);
  return fd;
}

char *
sysprofd_mountinfo_resolve_path (int pid, const char *path, const SysprofdCredentials *creds, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autofree char *canonical = NULL;
  char            *host;
  int              fd;

  g_return_val_if_fail (path != NULL, NULL);

  fd = sysprofd_mountinfo_open_in_process (pid, path, creds, &canonical, &local_error);
  /* Only a refusal looks further; whatever maps says, the refusal stands
   * unless the path leads to the mapped file itself, so the answer for any
   * other name still does not depend on whether it exists. */
  if (fd < 0 && creds != NULL && g_error_matches (local_error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
    fd = open_mapped_file (pid, path, &canonical);
  if (fd < 0)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  host = translate_to_host (pid, fd, canonical);
  close (fd);
  if (host != NULL)
    return host;

  /* Step 4: the canonical path has no symlink an opener would resolve
   * against its own root instead of the process's. */
  return g_strdup_printf ("/proc/%d/root%s", pid, g_str_equal (canonical, "/") ? "" : canonical);
}
