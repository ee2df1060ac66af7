// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysprof-perf-map-file.h"
#include "sysprof-proc-open-private.h"

/* @value of the "KEY:\t..." line of /proc/PID/status, field @last ? last : first. */
static gboolean
status_field (const char *status, const char *key, gboolean last, gint64 *value)
{
  g_autofree char *prefix = g_strconcat ("\n", key, ":", NULL);
  const char      *line = strstr (status, prefix);
  g_auto (GStrv) fields = NULL;
  g_autofree char *text = NULL;
  guint            n;

  if (line == NULL)
    return FALSE;
  line += strlen (prefix);
  text = g_strndup (line, strcspn (line, "\n"));
  fields = g_strsplit_set (g_strstrip (text), " \t", -1);
  n = g_strv_length (fields);
  for (guint i = 0; i < n; i++)
    if (fields[i][0] == '\0')
      continue;
    else if (!last || i == n - 1)
      return g_ascii_string_to_signed (fields[i], 10, 0, G_MAXINT32, value, NULL);
  return FALSE;
}

static GBytes *
read_checked (int fd, const char *what, uid_t owner, GError **error)
{
  struct stat st;
  GByteArray *bytes;
  gsize       want;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s is not a regular file", what);
      return NULL;
    }
  if (st.st_uid != owner)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s belongs to uid %u, not to the process's user (%u)", what, (guint) st.st_uid, (guint) owner);
      return NULL;
    }
  want = (gsize) MIN ((guint64) st.st_size, (guint64) SYSPROF_PERF_MAP_MAX_SIZE);
  bytes = g_byte_array_sized_new ((guint) want);
  while (bytes->len < want)
    {
      guint8  buf[65536];
      ssize_t n = read (fd, buf, MIN (sizeof buf, want - bytes->len));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          g_byte_array_unref (bytes);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", what, g_strerror (errsv));
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (bytes, buf, (guint) n);
    }
  /* A map cut at the size limit (or being written) ends at its last whole line. */
  while (bytes->len > 0 && bytes->data[bytes->len - 1] != '\n')
    bytes->len--;
  return g_byte_array_free_to_bytes (bytes);
}

GBytes *
sysprof_perf_map_file_read (gint32 pid, gboolean exited_in_our_tmp, uid_t exited_owner, GError **error)
{
  g_autofree char *proc_dir = g_strdup_printf ("/proc/%d", pid);
  g_autofree char *status_path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *status = NULL;
  g_autofree char *what = NULL;
  GBytes          *bytes;
  gint64           ns_pid = 0, uid = 0;
  int              fd;

  g_return_val_if_fail (pid > 0, NULL);

  if (!g_file_test (proc_dir, G_FILE_TEST_IS_DIR))
    {
      /* Exited: its /tmp is ours only if the caller says so. */
      g_autofree char *path = g_strdup_printf ("/tmp/perf-%d.map", pid);

      if (!exited_in_our_tmp)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Process %d exited and its /tmp is not ours", pid);
          return NULL;
        }
      /* The file itself must not be a symbolic link. */
      if ((fd = _sysprof_open_in_process_root (0, path, TRUE)) < 0)
        {
          int errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", path, g_strerror (errsv));
          return NULL;
        }
      bytes = read_checked (fd, path, exited_owner, error);
      close (fd);
      return bytes;
    }

  if (!g_file_get_contents (status_path, &status, NULL, error))
    return NULL;
  if (!status_field (status, "NSpid", TRUE, &ns_pid))
    ns_pid = pid;
  if (!status_field (status, "Uid", FALSE, &uid))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s has no Uid", status_path);
      return NULL;
    }

  {
    g_autofree char *path = g_strdup_printf ("/tmp/perf-%" G_GINT64_FORMAT ".map", ns_pid);

    /* Only for a process this one may look into (the kernel's ptrace check). */
    what = g_strdup_printf ("/tmp/perf-%" G_GINT64_FORMAT ".map of process %d", ns_pid, pid);
    fd = _sysprof_open_in_process_root (pid, path, TRUE);
  }
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", what, g_strerror (errsv));
      return NULL;
    }
  bytes = read_checked (fd, what, (uid_t) uid, error);
  close (fd);
  return bytes;
}

gboolean
sysprof_perf_map_file_note_process (gint32 pid, uid_t *owner, gboolean *in_our_tmp)
{
  g_autofree char *status_path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *root_tmp = g_strdup_printf ("/proc/%d/root/tmp", pid);
  g_autofree char *status = NULL;
  struct stat      theirs, ours;
  gint64           uid = 0;

  g_return_val_if_fail (pid > 0, FALSE);
  g_return_val_if_fail (owner != NULL, FALSE);
  g_return_val_if_fail (in_our_tmp != NULL, FALSE);

  if (!g_file_get_contents (status_path, &status, NULL, NULL) || !status_field (status, "Uid", FALSE, &uid))
    return FALSE;
  *owner = (uid_t) uid;
  /* A container's /tmp has the same name and another inode: the map of an
   * exited process there is not the file of that name here. */
  *in_our_tmp = stat (root_tmp, &theirs) == 0 && stat ("/tmp", &ours) == 0 && theirs.st_dev == ours.st_dev &&
                theirs.st_ino == ours.st_ino;
  return TRUE;
}
