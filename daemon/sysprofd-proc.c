// SPDX-License-Identifier: GPL-3.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprofd-proc.h"

#define PROC_FILE_MAX (64 * 1024 * 1024)

static int
open_beneath (int dirfd, const char *path)
{
  struct open_how how = {
    .flags = O_RDONLY | O_CLOEXEC | O_NOCTTY,
    /* BENEATH: no "..", no absolute symlinks out.  NO_MAGICLINKS: no
     * /proc/PID/root, /proc/PID/cwd or /proc/PID/fd/N, which would reach any
     * file of any process. */
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
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

int
sysprofd_proc_open (const guint8 *path, gsize path_len, GError **error)
{
  g_autofree char *str = NULL;
  g_autofree char *shown = NULL;
  const char      *root;
  const char      *rest;
  int              dirfd;
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

  if (g_str_has_prefix (str, "/proc/"))
    root = "/proc";
  else if (g_str_has_prefix (str, "/sys/"))
    root = "/sys";
  else
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Access to %s denied: only files under /proc and /sys", shown);
      return -1;
    }
  rest = str + strlen (root) + 1;
  while (*rest == '/')
    rest++;
  if (*rest == 0)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "%s is not a file", shown);
      return -1;
    }

  dirfd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    {
      saved = errno;
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open %s: %s", root, g_strerror (saved));
      return -1;
    }
  fd = open_beneath (dirfd, rest);
  saved = errno;
  close (dirfd);

  if (fd >= 0)
    return fd;

  switch (saved)
    {
    case EXDEV:
    case ELOOP:
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Access to %s denied: it leads outside %s (through \"..\", a symlink or a /proc magic link)", shown,
                   root);
      break;
    case ENOENT:
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
  return -1;
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
  bytes = sysprofd_read_fd (fd, PROC_FILE_MAX, NULL);
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
  bytes = sysprofd_read_fd (fd, PROC_FILE_MAX, NULL);
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

      if (!strstr (attributes, files[i]) || !(contents = read_pid_file (dirfd, files[i])))
        continue;
      insert_string (&dict, files[i], contents);
    }
  close (dirfd);

  return g_variant_dict_end (&dict);
}
