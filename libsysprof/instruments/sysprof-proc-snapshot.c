// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdio.h>

#include "sysprof-proc-snapshot.h"

/* Longer command lines are cut: a PROCESS frame must stay below the 64 KiB
 * frame limit, and the start of a command line is what identifies it. */
#define CMDLINE_MAX 4096

static gboolean
set_write_error (GError **error, const char *what)
{
  int errsv = errno;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot add %s to the capture: %s", what,
               g_strerror (errsv));
  return FALSE;
}

/* Stores @data as FILE_CHUNK frames of at most SYSPROF_CAPTURE_FILE_CHUNK_MAX
 * bytes, the last one marked; an empty file gives one empty last chunk. */
static gboolean
write_file_chunks (
    SysprofCaptureWriter *writer, gint64 time, int pid, const char *path, const char *data, gsize len, GError **error)
{
  gsize pos = 0;

  do
    {
      gsize n = MIN (len - pos, SYSPROF_CAPTURE_FILE_CHUNK_MAX);

      if (!sysprof_capture_writer_add_file (writer, time, -1, pid, path, pos + n == len, (const guint8 *) data + pos,
                                            n))
        return set_write_error (error, path);
      pos += n;
    }
  while (pos < len);

  return TRUE;
}

/* The whole file, or NULL when it cannot be read (process gone, no access). */
static char *
read_proc_file (const char *path, gsize *len)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, len, NULL))
    return NULL;
  return contents;
}

/* "argv0 arg1 ...", or "[comm]" for kernel threads and zombies (whose
 * cmdline is empty), or NULL when the process is gone. */
static char *
read_command_line (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/cmdline", pid);
  g_autofree char *contents = NULL;
  gsize            len = 0;

  contents = read_proc_file (path, &len);
  if (contents != NULL && len > 0)
    {
      len = MIN (len, CMDLINE_MAX);
      contents[len] = 0;
      for (gsize i = 0; i < len; i++)
        if (contents[i] == 0)
          contents[i] = ' ';
      return g_strchomp (g_steal_pointer (&contents));
    }

  g_clear_pointer (&path, g_free);
  g_clear_pointer (&contents, g_free);
  path = g_strdup_printf ("/proc/%d/comm", pid);
  contents = read_proc_file (path, &len);
  if (contents == NULL)
    return NULL;
  return g_strdup_printf ("[%s]", g_strchomp (contents));
}

/* One line of /proc/PID/maps: "start-end perms offset major:minor inode path",
 * the path (which may contain spaces, or be empty) running to the end. */
static gboolean
parse_maps_line (
    char *line, guint64 *start, guint64 *end, char perms[5], guint64 *offset, guint64 *inode, const char **path)
{
  unsigned long long s, e, off, ino;
  unsigned int       major, minor;
  int                consumed = 0;

  if (sscanf (line, "%llx-%llx %4s %llx %x:%x %llu%n", &s, &e, perms, &off, &major, &minor, &ino, &consumed) != 7 ||
      consumed <= 0)
    return FALSE;

  line += consumed;
  while (*line == ' ' || *line == '\t')
    line++;
  g_strchomp (line);

  *start = s;
  *end = e;
  *offset = off;
  *inode = ino;
  *path = line;
  return TRUE;
}

static gboolean
write_maps (SysprofCaptureWriter *writer, gint64 time, int pid, GError **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/maps", pid);
  g_autofree char *line = NULL;
  size_t           line_size = 0;
  FILE            *file;
  gboolean         ret = TRUE;

  /* "e": O_CLOEXEC. */
  file = fopen (path, "re");
  if (file == NULL)
    return TRUE;

  while (getline (&line, &line_size, file) > 0)
    {
      guint64     start, end, offset, inode;
      char        perms[5] = { 0 };
      const char *filename;

      if (!parse_maps_line (line, &start, &end, perms, &offset, &inode, &filename))
        continue;

      /* File-backed mappings (all of them, not only the executable ones: a
       * symbolizer needs the read-only first segment of an ELF to find its
       * load address), and anonymous executable ones (JIT code, [vdso]),
       * named as perf names them. */
      if (filename[0] != '/')
        {
          if (perms[2] != 'x')
            continue;
          if (filename[0] == 0)
            filename = "//anon";
        }

      if (!sysprof_capture_writer_add_map (writer, time, -1, pid, start, end, offset, inode, filename))
        {
          ret = set_write_error (error, "a MAP frame");
          break;
        }
    }

  fclose (file);
  return ret;
}

static gboolean
write_process (SysprofCaptureWriter *writer, int pid, GError **error)
{
  g_autofree char *cmdline = NULL;
  g_autofree char *mountinfo_path = NULL;
  g_autofree char *mountinfo = NULL;
  gsize            mountinfo_len = 0;
  gint64           now = sysprof_clock_get_current_time ();

  cmdline = read_command_line (pid);
  if (cmdline == NULL)
    return TRUE;
  if (!sysprof_capture_writer_add_process (writer, now, -1, pid, cmdline))
    return set_write_error (error, "a PROCESS frame");

  if (!write_maps (writer, now, pid, error))
    return FALSE;

  /* Read whole before writing, so that a process exiting midway leaves no
   * file without its last chunk. */
  mountinfo_path = g_strdup_printf ("/proc/%d/mountinfo", pid);
  mountinfo = read_proc_file (mountinfo_path, &mountinfo_len);
  if (mountinfo != NULL && !write_file_chunks (writer, now, pid, mountinfo_path, mountinfo, mountinfo_len, error))
    return FALSE;

  return TRUE;
}

static gboolean
write_global_file (SysprofCaptureWriter *writer, const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize            len = 0;
  g_autoptr (GError) local_error = NULL;

  /* Missing in some containers: not worth failing the snapshot for. */
  if (!g_file_get_contents (path, &contents, &len, &local_error))
    return TRUE;
  return write_file_chunks (writer, sysprof_clock_get_current_time (), -1, path, contents, len, error);
}

gboolean
sysprof_proc_snapshot_write (SysprofCaptureWriter *writer, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GDir) dir = NULL;
  const char *name;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  sysprof_clock_init ();

  dir = g_dir_open ("/proc", 0, &local_error);
  if (dir == NULL)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code), "Cannot list processes: %s",
                   local_error->message);
      return FALSE;
    }

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char   *end;
      guint64 pid = g_ascii_strtoull (name, &end, 10);

      if (end == name || *end != 0 || pid == 0 || pid > G_MAXINT32)
        continue;
      if (!write_process (writer, (int) pid, error))
        return FALSE;
    }

  return write_global_file (writer, "/proc/mounts", error) && write_global_file (writer, "/proc/cpuinfo", error);
}

gboolean
sysprof_proc_snapshot_write_pids (SysprofCaptureWriter *writer, const int *pids, gsize n_pids, GError **error)
{
  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (pids != NULL || n_pids == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  sysprof_clock_init ();
  for (gsize i = 0; i < n_pids; i++)
    if (pids[i] > 0 && !write_process (writer, pids[i], error))
      return FALSE;
  return write_global_file (writer, "/proc/mounts", error) && write_global_file (writer, "/proc/cpuinfo", error);
}
