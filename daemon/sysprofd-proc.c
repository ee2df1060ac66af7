// SPDX-License-Identifier: GPL-3.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-dbus-contract.h"
#include "sysprofd-proc-allowlist.h"
#include "sysprofd-proc.h"

#define PROC_FILE_MAX   (64 * 1024 * 1024)
#define PROC_STATUS_MAX (64 * 1024)

static int
open_beneath (int dirfd, const char *path, int flags, guint64 resolve)
{
  /* openat2() refuses O_NOCTTY beside O_PATH. */
  struct open_how how = {
    .flags = (guint64) flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY),
    .resolve = resolve,
  };

  return (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);
}

char *
sysprofd_escape_text (const char *text)
{
  GString *out;

  g_return_val_if_fail (text != NULL, NULL);

  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p;)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      /* -1 and -2: not UTF-8 here, or cut short by the end of the string. */
      if (c == (gunichar) -1 || c == (gunichar) -2 || c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", (guchar) *p++);
      else if (c == '\\')
        {
          g_string_append (out, "\\\\");
          p++;
        }
      else
        {
          const char *next = g_utf8_next_char (p);

          g_string_append_len (out, p, next - p);
          p = next;
        }
    }
  return g_string_free (out, FALSE);
}

static void
set_open_error (GError **error, int saved, const char *shown, const char *root)
{
  switch (saved)
    {
    case EXDEV:
    case ELOOP:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Access to %s denied: it leads outside %s (through a symlink or a /proc magic link)", shown, root);
      break;
    case ENOENT:
    case ESRCH:
    case ENOTDIR: g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND, "%s does not exist", shown); break;
    case EACCES:
    case EPERM:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED, "Access to %s denied: %s", shown,
                   g_strerror (saved));
      break;
    case ENOSYS:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_NOT_SUPPORTED,
                   "This kernel lacks openat2(), which sysprofd needs to open %s safely", shown);
      break;
    default:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open %s: %s", shown, g_strerror (saved));
      break;
    }
}

gboolean
sysprofd_process_read_ids (int pid_fd, gint64 *tgid, guint32 uids[4])
{
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean have_tgid = FALSE, have_uid = FALSE;
  int      fd = openat (pid_fd, "status", O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return FALSE;
  bytes = sysprofd_read_fd (fd, PROC_STATUS_MAX, NULL);
  close (fd);
  if (bytes == NULL)
    return FALSE;
  text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (g_str_has_prefix (lines[i], "Tgid:"))
        {
          *tgid = g_ascii_strtoll (lines[i] + 5, NULL, 10);
          have_tgid = TRUE;
        }
      else if (g_str_has_prefix (lines[i], "Uid:"))
        {
          char *p = lines[i] + 4;

          for (guint k = 0; k < 4; k++)
            {
              char   *end;
              guint64 v = g_ascii_strtoull (p, &end, 10);

              if (end == p || v > G_MAXUINT32)
                return FALSE;
              uids[k] = (guint32) v;
              p = end;
            }
          have_uid = TRUE;
        }
    }
  return have_tgid && have_uid;
}

/* The directory /proc/PID of a process the caller may read @request of. */
static int
open_process (int proc_fd, const SysprofdProcRequest *request, guint32 caller_uid, const char *shown, GError **error)
{
  char        name[16];
  struct stat st;
  gint64      tgid = 0;
  guint32     uids[4];
  int         pid_fd;
  int         saved;

  g_snprintf (name, sizeof name, "%d", request->pid);
  /* No symlinks at all: "self" and "thread-self" are not numbers anyway. */
  pid_fd =
      open_beneath (proc_fd, name, O_PATH | O_DIRECTORY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  if (pid_fd < 0)
    {
      saved = errno;
      if (saved == ENOENT)
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND, "%s does not exist: no process %d", shown,
                     request->pid);
      else
        set_open_error (error, saved, shown, "/proc");
      return -1;
    }
  if (!sysprofd_process_read_ids (pid_fd, &tgid, uids) || fstat (pid_fd, &st) != 0)
    {
      close (pid_fd);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND, "%s does not exist: process %d is gone", shown,
                   request->pid);
      return -1;
    }
  /* Any thread of the daemon is /proc/TID too, listed or not. */
  if (tgid == (gint64) getpid ())
    {
      close (pid_fd);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED, "Access to %s denied: it is sysprofd's own process",
                   shown);
      return -1;
    }
  /* Owned: every uid of the process is the caller's, and the kernel agrees
   * (a process that is not dumpable has its /proc directory owned by root). */
  if (request->scope == SYSPROFD_PROC_SCOPE_OWN_PROCESS && caller_uid != 0 &&
      (uids[0] != caller_uid || uids[1] != caller_uid || uids[2] != caller_uid || uids[3] != caller_uid ||
       st.st_uid != caller_uid))
    {
      close (pid_fd);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Access to %s denied: process %d is not the caller's (uid %u); of other users' processes only "
                   "maps, mountinfo, cmdline, comm, stat, statm and cgroup can be read",
                   shown, request->pid, caller_uid);
      return -1;
    }
  return pid_fd;
}

gboolean
sysprofd_process_is_owned_by (int pid, guint32 uid)
{
  char        name[16];
  struct stat st;
  gint64      tgid = 0;
  guint32     uids[4];
  gboolean    owned;
  int         pid_fd;

  if (pid <= 0)
    return FALSE;
  g_snprintf (name, sizeof name, "/proc/%d", pid);
  if ((pid_fd = open (name, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
    return FALSE;
  owned = sysprofd_process_read_ids (pid_fd, &tgid, uids) && fstat (pid_fd, &st) == 0 && tgid != (gint64) getpid () &&
          uids[0] == uid && uids[1] == uid && uids[2] == uid && uids[3] == uid && st.st_uid == uid;
  /* Threads can hold other credentials than their leader. */
  if (owned)
    {
      int            task_fd = openat (pid_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DIR           *dir = task_fd >= 0 ? fdopendir (task_fd) : NULL;
      struct dirent *ent;

      if (dir == NULL)
        {
          owned = FALSE;
          if (task_fd >= 0)
            close (task_fd);
        }
      while (owned && (ent = readdir (dir)) != NULL)
        {
          gint64 task_tgid = 0;
          int    tid_fd;

          if (!g_ascii_isdigit (ent->d_name[0]))
            continue;
          tid_fd = openat (dirfd (dir), ent->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
          owned = tid_fd >= 0 && sysprofd_process_read_ids (tid_fd, &task_tgid, uids) && uids[0] == uid &&
                  uids[1] == uid && uids[2] == uid && uids[3] == uid;
          if (tid_fd >= 0)
            close (tid_fd);
        }
      if (dir != NULL)
        closedir (dir);
    }
  close (pid_fd);
  return owned;
}

/* After openat2 resolved it, the file must be what the allowlist allowed:
 * the kernel's name of the open file is checked, not only the request. */
static gboolean
check_resolved (int fd, const SysprofdProcRequest *request, const char *shown, GError **error)
{
  g_autofree char *link = g_strdup_printf ("/proc/self/fd/%d", fd);
  g_autofree char *target = g_file_read_link (link, NULL);
  g_autofree char *expected = NULL;
  g_autofree char *via_self = NULL;
  gboolean         ok = FALSE;

  if (target == NULL)
    ok = FALSE;
  else if (request->scope != SYSPROFD_PROC_SCOPE_SYSTEM)
    {
      expected = g_strdup_printf ("/proc/%d/%s", request->pid, request->below);
      ok = g_str_equal (target, expected);
    }
  else if (g_str_equal (request->root, "/proc"))
    {
      /* /proc/mounts and /proc/net are links to the daemon's own. */
      expected = g_strdup_printf ("/proc/%s", request->below);
      via_self = g_strdup_printf ("/proc/%d/%s", (int) getpid (), request->below);
      ok = g_str_equal (target, expected) || g_str_equal (target, via_self);
    }
  else
    {
      const char *leaf = strrchr (request->below, '/');

      expected = g_strdup_printf ("/%s", leaf ? leaf + 1 : request->below);
      ok = g_str_has_prefix (target, "/sys/") && g_str_has_suffix (target, expected);
    }
  if (!ok)
    {
      g_autofree char *target_shown = target ? sysprofd_escape_text (target) : g_strdup ("an unknown file");

      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED, "Access to %s denied: it resolves to %s", shown,
                   target_shown);
    }
  return ok;
}

int
sysprofd_proc_open (const guint8 *path, gsize path_len, guint32 caller_uid, GError **error)
{
  g_auto (SysprofdProcRequest) request = { 0 };
  g_autofree char *str = NULL;
  g_autofree char *shown = NULL;
  struct stat      st;
  int              root_fd;
  int              dir_fd;
  int              fd;
  int              saved;

  g_return_val_if_fail (path != NULL || path_len == 0, -1);

  /* Established clients send the path with its trailing NUL. */
  while (path_len > 0 && path[path_len - 1] == 0)
    path_len--;
  if (path_len == 0 || memchr (path, 0, path_len) != NULL)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "The path is empty or contains a NUL byte");
      return -1;
    }
  str = g_strndup ((const char *) path, path_len);
  /* The caller chose the bytes: error messages must still be UTF-8. */
  shown = sysprofd_escape_text (str);
  if (!sysprofd_proc_allowlist_match (str, &request, error))
    return -1;

  if ((root_fd = open (request.root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
    {
      saved = errno;
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open %s: %s", request.root, g_strerror (saved));
      return -1;
    }
  if (request.scope == SYSPROFD_PROC_SCOPE_SYSTEM)
    {
      /* Non-blocking: nothing allowed blocks, but a read must never wait. */
      fd = open_beneath (root_fd, request.below, O_RDONLY | O_NONBLOCK, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
      saved = errno;
      close (root_fd);
    }
  else
    {
      dir_fd = open_process (root_fd, &request, caller_uid, shown, error);
      close (root_fd);
      if (dir_fd < 0)
        return -1;
      fd = open_beneath (dir_fd, request.below, O_RDONLY | O_NONBLOCK,
                         RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
      saved = errno;
      close (dir_fd);
      /* The process may have run a setuid program between the check and the
       * open: checked again, on the file now open. */
      if (fd >= 0 && request.scope == SYSPROFD_PROC_SCOPE_OWN_PROCESS && caller_uid != 0 &&
          !sysprofd_process_is_owned_by (request.pid, caller_uid))
        {
          close (fd);
          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                       "Access to %s denied: process %d is not the caller's (uid %u)", shown, request.pid, caller_uid);
          return -1;
        }
    }
  if (fd < 0)
    {
      set_open_error (error, saved, shown, request.root);
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED, "Access to %s denied: not a regular file", shown);
      return -1;
    }
  if (!check_resolved (fd, &request, shown, error))
    {
      close (fd);
      return -1;
    }
  return fd;
}

GBytes *
sysprofd_read_fd (int fd, gsize max, GError **error)
{
  g_autoptr (GByteArray) buf = g_byte_array_new ();

  for (;;)
    {
      guint8  chunk[16384];
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0)
        {
          int saved = errno;

          if (saved == EINTR)
            continue;
          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Read error: %s", g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      if (buf->len + (gsize) n > max)
        {
          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                       "The file is larger than %" G_GSIZE_FORMAT " bytes", max);
          return NULL;
        }
      g_byte_array_append (buf, chunk, (guint) n);
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&buf));
}

GArray *
sysprofd_list_processes (GError **error)
{
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  DIR           *dir = opendir ("/proc");
  struct dirent *ent;

  if (dir == NULL)
    {
      int saved = errno;
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot list /proc: %s", g_strerror (saved));
      return NULL;
    }
  while ((ent = readdir (dir)))
    {
      gint64 pid;
      char  *end;

      if (!g_ascii_isdigit (ent->d_name[0]))
        continue;
      pid = g_ascii_strtoll (ent->d_name, &end, 10);
      if (*end == 0 && pid > 0 && pid <= G_MAXINT32)
        {
          gint32 p = (gint32) pid;
          g_array_append_val (pids, p);
        }
    }
  closedir (dir);
  return g_steal_pointer (&pids);
}

static char *
read_pid_file (int pid_dirfd, const char *name)
{
  g_autoptr (GBytes) bytes = NULL;
  int fd = openat (pid_dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return NULL;
  bytes = sysprofd_read_fd (fd, SYSPROF_DBUS_PROC_INFO_FILE_MAX, NULL);
  close (fd);
  if (bytes == NULL)
    return NULL;
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/* NUL-separated arguments become one shell-quoted line, as Sysprof does. */
static char *
cmdline_to_string (int pid_dirfd)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  const char *data;
  gsize       len;
  gsize       pos = 0;
  int         fd = openat (pid_dirfd, "cmdline", O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return NULL;
  bytes = sysprofd_read_fd (fd, SYSPROF_DBUS_PROC_INFO_FILE_MAX, NULL);
  close (fd);
  if (bytes == NULL)
    return NULL;

  data = g_bytes_get_data (bytes, &len);
  while (pos < len)
    {
      const char      *arg = data + pos;
      gsize            arg_len = strnlen (arg, len - pos);
      g_autofree char *copy = g_strndup (arg, arg_len);

      if (out->len)
        g_string_append_c (out, ' ');
      if (strpbrk (copy, " \t\n'\"\\") != NULL)
        {
          g_autofree char *quoted = g_shell_quote (copy);
          g_string_append (out, quoted);
        }
      else
        g_string_append (out, copy);
      pos += arg_len + 1;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* D-Bus strings must be UTF-8; /proc content need not be. */
static void
insert_string (GVariantDict *dict, const char *key, char *value)
{
  g_strchomp (value);
  if (g_utf8_validate (value, -1, NULL))
    g_variant_dict_insert (dict, key, "s", value);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (value, -1);
      g_variant_dict_insert (dict, key, "s", valid);
    }
}

GVariant *
sysprofd_process_info (int pid, const char *attributes)
{
  static const char *const files[] = { "comm", "maps", "statm", "mountinfo", "cgroup" };
  g_autofree char         *dir = g_strdup_printf ("/proc/%d", pid);
  GVariantDict             dict;
  int                      dirfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (dirfd < 0)
    return NULL;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "pid", "i", pid);

  /* Attribute names are matched as substrings, as the established daemon does. */
  if (strstr (attributes, "cmdline"))
    {
      g_autofree char *cmdline = cmdline_to_string (dirfd);
      if (cmdline)
        insert_string (&dict, "cmdline", cmdline);
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *contents = NULL;

      if (!strstr (attributes, files[i]))
        continue;
      /* The daemon's own layout (its ASLR) is nobody's business. */
      if (pid == (int) getpid () && (g_str_equal (files[i], "maps") || g_str_equal (files[i], "mountinfo")))
        continue;
      if (!(contents = read_pid_file (dirfd, files[i])))
        continue;
      insert_string (&dict, files[i], contents);
    }
  close (dirfd);

  return g_variant_dict_end (&dict);
}
