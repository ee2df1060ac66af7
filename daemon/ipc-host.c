// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc-host.h"
#include "sysprof-dbus-contract.h"
#include "sysprofd-dispatcher.h"
#include "sysprofd-credentials.h"
#include "sysprofd-flatpak.h"
#include "sysprofd-mountinfo.h"
#include "sysprofd-proc.h"

/* Real ones are a few hundred bytes. */
#define FLATPAK_INFO_MAX (1024 * 1024)

static void
do_get_kernel_symbols (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autofree char       *contents = NULL;
  g_autoptr (GError) error = NULL;
  GVariantBuilder builder;
  char           *line;
  char           *save = NULL;

  if (!g_file_get_contents ("/proc/kallsyms", &contents, NULL, &error))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot read /proc/kallsyms: %s", error->message);
      return;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(tys)"));
  for (line = strtok_r (contents, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char   *end;
      guint64 addr = g_ascii_strtoull (line, &end, 16);
      char    type;
      char   *name;
      char   *tab;

      if (end == line || end[0] != ' ' || end[1] == 0 || end[2] != ' ')
        continue;
      type = end[1];
      name = end + 3;
      /* Module symbols carry "\t[module]": keep the module as part of the name. */
      if ((tab = strchr (name, '\t')))
        *tab = ' ';
      if (!g_utf8_validate (name, -1, NULL))
        continue;
      g_variant_builder_add (&builder, "(tys)", addr, (guchar) type, name);
    }

  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@a(tys))", g_variant_builder_end (&builder)));
}

static void
do_get_mount_info (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (SysprofMountTable) mounts = NULL;
  guint n_mounts;
  g_autoptr (GError) error = NULL;
  GVariantBuilder builder;
  gint32          pid;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(i)", &pid);
  if (!(mounts = sysprofd_mountinfo_read (pid, &error)))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  n_mounts = sysprof_mount_table_get_n_mounts (mounts);
  for (guint i = 0; i < n_mounts; i++)
    g_variant_builder_add_value (&builder, sysprofd_mount_to_variant (sysprof_mount_table_get_mount (mounts, i)));
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@aa{sv})", g_variant_builder_end (&builder)));
}

/* Established Sysprof clients send paths as C strings, with their NUL. */
static char *
path_from_bytes (GVariant *bytes, GError **error)
{
  gsize         len;
  const guint8 *data = g_variant_get_fixed_array (bytes, &len, 1);

  while (len > 0 && data[len - 1] == 0)
    len--;
  if (len == 0 || memchr (data, 0, len) != NULL)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "The path is empty or contains a NUL byte");
      return NULL;
    }
  return g_strndup ((const char *) data, len);
}

/* Who calls, as the dispatcher learnt it from the bus. */
static SysprofdCredentials *
credentials_of (SysprofdCall *call)
{
  guint             n_groups;
  const guint32    *groups = sysprofd_call_get_groups (call, &n_groups);
  g_autofree gid_t *gids = g_new (gid_t, MAX (n_groups, 1));

  if (n_groups == 0)
    return sysprofd_credentials_from_user_database ((uid_t) sysprofd_call_get_uid (call));
  for (guint i = 0; i < n_groups; i++)
    gids[i] = (gid_t) groups[i];
  return sysprofd_credentials_new ((uid_t) sysprofd_call_get_uid (call), SYSPROFD_CREDENTIALS_NO_GID, gids, n_groups);
}

static void
do_resolve_path (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GVariant) path_bytes = NULL;
  g_autoptr (SysprofdCredentials) creds = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *host_path = NULL;
  gint32           pid;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(i@ay)", &pid, &path_bytes);
  /* The path is the caller's choice: it is resolved with the caller's right
   * to search directories, not the daemon's. */
  if (!(path = path_from_bytes (path_bytes, &error)) || !(creds = credentials_of (call)) ||
      !(host_path = sysprofd_mountinfo_resolve_path (pid, path, creds, &error)))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@ay)", g_variant_new_bytestring (host_path)));
}

/* The real uid of @pid, as the daemon's user namespace sees it. */
static gboolean
get_process_uid (int pid, uid_t *uid)
{
  guint32  uids[4];
  gint64   tgid;
  int      proc_fd;
  gboolean ok;

  if ((proc_fd = sysprofd_mountinfo_open_process (pid, NULL)) < 0)
    return FALSE;
  ok = sysprofd_process_read_ids (proc_fd, &tgid, uids);
  close (proc_fd);
  if (ok)
    *uid = (uid_t) uids[0];
  return ok;
}

/* The /.flatpak-info of @pid's root into @info, which stays NULL when there
 * is none or it is unusable.  FALSE only when the process cannot be looked
 * into at all. */
static gboolean
read_flatpak_info (int pid, SysprofdFlatpakInfo **info, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  char        fd_path[64];
  struct stat st;
  int         path_fd;
  int         fd;

  if ((path_fd = sysprofd_mountinfo_open_in_process (pid, "/.flatpak-info", NULL, NULL, &local_error)) < 0)
    {
      if (g_error_matches (local_error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* The sandbox controls this file: a FIFO would block the reading thread
   * forever, and a huge file would be read into memory. */
  if (fstat (path_fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_size > FLATPAK_INFO_MAX)
    {
      g_debug ("Process %d: /.flatpak-info is not a regular file of reasonable size", pid);
      close (path_fd);
      return TRUE;
    }
  /* Reopening through /proc/self/fd opens the inode just checked, not
   * whatever the name leads to now. */
  g_snprintf (fd_path, sizeof fd_path, "/proc/self/fd/%d", path_fd);
  fd = open (fd_path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  close (path_fd);
  if (fd < 0)
    return TRUE;
  bytes = sysprofd_read_fd (fd, FLATPAK_INFO_MAX, &local_error);
  close (fd);
  if (bytes == NULL)
    {
      g_debug ("Process %d: cannot read /.flatpak-info: %s", pid, local_error->message);
      return TRUE;
    }
  *info = sysprofd_flatpak_info_parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL);
  return TRUE;
}

/* Resolved with the daemon's rights, not the caller's (unlike ResolvePath):
 * the caller names only the process, and the names looked up are fixed
 * (/usr/lib/debug and /.flatpak-info in the process's root) or made by
 * Flatpak's layout, so the answer is which debug directories exist, which is
 * what the method is for.  One limit: the app-path and runtime-path of
 * /.flatpak-info are taken as written, and whoever starts a sandbox writes
 * that file, so such a caller can learn whether DIR/lib/debug is a
 * directory for a DIR it chooses. */
static GPtrArray *
list_debug_directories (int pid, GError **error)
{
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (struct stat));
  g_autoptr (SysprofdFlatpakInfo) info = NULL;
  g_autoptr (GError) local_error = NULL;
  char *usr_debug;

  if ((usr_debug = sysprofd_mountinfo_resolve_path (pid, "/usr/lib/debug", NULL, &local_error)))
    g_ptr_array_add (candidates, usr_debug);
  else if (!g_error_matches (local_error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (!read_flatpak_info (pid, &info, error))
    return NULL;
  if (info != NULL)
    {
      g_autofree char *home = NULL;
      uid_t            uid;

      if (get_process_uid (pid, &uid))
        sysprofd_lookup_user (uid, NULL, NULL, &home);
      g_ptr_array_extend_and_steal (candidates, sysprofd_flatpak_info_debug_directories (info, home));
    }

  /* The namespace's /usr/lib/debug is often one of the Flatpak directories
   * under another name (runtime-path/lib/debug, a .Debug extension through
   * "active"): the inode decides what is a duplicate. */
  for (guint i = 0; i < candidates->len; i++)
    {
      struct stat st;
      gboolean    duplicate = FALSE;

      if (stat (candidates->pdata[i], &st) < 0 || !S_ISDIR (st.st_mode))
        continue;
      for (guint j = 0; j < seen->len && !duplicate; j++)
        duplicate = g_array_index (seen, struct stat, j).st_dev == st.st_dev &&
                    g_array_index (seen, struct stat, j).st_ino == st.st_ino;
      if (duplicate)
        continue;
      g_array_append_val (seen, st);
      g_ptr_array_add (found, g_strdup (candidates->pdata[i]));
    }
  return g_steal_pointer (&found);
}

/* The aay of @dirs (NULL: none), floating. */
static GVariant *
dirs_to_variant (GPtrArray *dirs)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aay"));
  for (guint i = 0; dirs != NULL && i < dirs->len; i++)
    g_variant_builder_add_value (&builder, g_variant_new_bytestring (dirs->pdata[i]));
  return g_variant_builder_end (&builder);
}

static void
do_list_debug_directories (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GPtrArray) dirs = NULL;
  g_autoptr (GError) error = NULL;
  gint32 pid;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(i)", &pid);
  if (!(dirs = list_debug_directories (pid, &error)))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@aay)", dirs_to_variant (dirs)));
}

/* Whether @pid names no running process: a batch answers that with its own
 * error, so that the caller can ask about another process instead. */
static gboolean
process_gone (int pid)
{
  char        path[64];
  struct stat st;

  if (pid <= 0)
    return FALSE;
  /* A zombie keeps /proc/PID but no namespaces. */
  g_snprintf (path, sizeof path, "/proc/%d/ns/mnt", pid);
  return stat (path, &st) < 0 && (errno == ENOENT || errno == ESRCH || errno == EINVAL);
}

/* The (error, message) of a batch's answer. */
static void
batch_error (int pid, const GError *error, const char **name, char **message)
{
  g_autofree char *encoded = NULL;

  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS) && process_gone (pid))
    {
      *name = "org.freedesktop.DBus.Error.UnixProcessIdUnknown";
      *message = g_strdup_printf ("No process with pid %d", pid);
      return;
    }
  /* Our errors are all G_DBUS_ERROR, which encodes as its D-Bus name. */
  encoded = g_dbus_error_encode_gerror (error);
  *name = g_intern_string (encoded);
  *message = g_strdup (error->message);
}

static gboolean
batch_within_limit (GDBusMethodInvocation *invocation, gsize n, const char *what)
{
  if (n <= SYSPROF_DBUS_MAX_BATCH)
    return TRUE;
  g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                                         "%" G_GSIZE_FORMAT " %s in one call; at most %u are allowed", n, what,
                                         SYSPROF_DBUS_MAX_BATCH);
  return FALSE;
}

static void
do_resolve_paths (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GVariant) requests = NULL;
  g_autoptr (SysprofdCredentials) creds = NULL;
  GVariantBuilder builder;
  gsize           n;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(@a(iay))", &requests);
  n = g_variant_n_children (requests);
  if (!batch_within_limit (invocation, n, "paths"))
    return;
  /* Each request is judged as ResolvePath judges it, with the same caller. */
  if (!(creds = credentials_of (call)))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                             "Cannot tell the groups of uid %u", sysprofd_call_get_uid (call));
      return;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(ayss)"));
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GVariant) path_bytes = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *path = NULL;
      g_autofree char *host_path = NULL;
      g_autofree char *message = NULL;
      const char      *name = "";
      gint32           pid;

      g_variant_get_child (requests, i, "(i@ay)", &pid, &path_bytes);
      if (!(path = path_from_bytes (path_bytes, &error)) ||
          !(host_path = sysprofd_mountinfo_resolve_path (pid, path, creds, &error)))
        batch_error (pid, error, &name, &message);
      g_variant_builder_add (&builder, "(@ayss)", g_variant_new_bytestring (host_path ? host_path : ""), name,
                             message ? message : "");
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@a(ayss))", g_variant_builder_end (&builder)));
}

static void
do_list_debug_directories_for_pids (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GVariant) pids = NULL;
  GVariantBuilder builder;
  const gint32   *ids;
  gsize           n;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(@ai)", &pids);
  ids = g_variant_get_fixed_array (pids, &n, sizeof (gint32));
  if (!batch_within_limit (invocation, n, "pids"))
    return;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(aayss)"));
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GPtrArray) dirs = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *message = NULL;
      const char      *name = "";

      if (!(dirs = list_debug_directories (ids[i], &error)))
        batch_error (ids[i], error, &name, &message);
      g_variant_builder_add (&builder, "(@aayss)", dirs_to_variant (dirs), name, message ? message : "");
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@a(aayss))", g_variant_builder_end (&builder)));
}

static void
dispatch (GDBusMethodInvocation *invocation, SysprofdCallFunc func)
{
  sysprofd_dispatch (invocation, SYSPROFD_CALL_IN_WORKER, NULL, func, NULL, NULL);
}

static gboolean
handle_get_kernel_symbols (IpcHost *host, GDBusMethodInvocation *invocation)
{
  (void) host;
  dispatch (invocation, do_get_kernel_symbols);
  return TRUE;
}

static gboolean
handle_get_mount_info (IpcHost *host, GDBusMethodInvocation *invocation, gint pid)
{
  (void) host, (void) pid;
  dispatch (invocation, do_get_mount_info);
  return TRUE;
}

static gboolean
handle_resolve_path (IpcHost *host, GDBusMethodInvocation *invocation, gint pid, GVariant *path)
{
  (void) host, (void) pid, (void) path;
  dispatch (invocation, do_resolve_path);
  return TRUE;
}

static gboolean
handle_list_debug_directories (IpcHost *host, GDBusMethodInvocation *invocation, gint pid)
{
  (void) host, (void) pid;
  dispatch (invocation, do_list_debug_directories);
  return TRUE;
}

static gboolean
handle_resolve_paths (IpcHost *host, GDBusMethodInvocation *invocation, GVariant *requests)
{
  (void) host, (void) requests;
  dispatch (invocation, do_resolve_paths);
  return TRUE;
}

static gboolean
handle_list_debug_directories_for_pids (IpcHost *host, GDBusMethodInvocation *invocation, GVariant *pids)
{
  (void) host, (void) pids;
  dispatch (invocation, do_list_debug_directories_for_pids);
  return TRUE;
}

IpcHost *
ipc_host_impl_new (void)
{
  IpcHost *host = ipc_host_skeleton_new ();

  g_signal_connect (host, "handle-get-kernel-symbols", G_CALLBACK (handle_get_kernel_symbols), NULL);
  g_signal_connect (host, "handle-get-mount-info", G_CALLBACK (handle_get_mount_info), NULL);
  g_signal_connect (host, "handle-resolve-path", G_CALLBACK (handle_resolve_path), NULL);
  g_signal_connect (host, "handle-list-debug-directories", G_CALLBACK (handle_list_debug_directories), NULL);
  g_signal_connect (host, "handle-resolve-paths", G_CALLBACK (handle_resolve_paths), NULL);
  g_signal_connect (host, "handle-list-debug-directories-for-pids", G_CALLBACK (handle_list_debug_directories_for_pids),
                    NULL);
  return host;
}
