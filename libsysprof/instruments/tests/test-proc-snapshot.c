// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof_proc_snapshot_write and sysprof_kallsyms_write, read back with the
 * capture reader.  Work unprivileged (other users' processes are then only
 * partly described). */
#include <fcntl.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-instruments.h"

static SysprofCaptureWriter *
new_temp_writer (char **path)
{
  g_autoptr (GError) error = NULL;
  int                   fd = g_file_open_tmp ("test-proc-snapshot-XXXXXX.syscap", path, &error);
  SysprofCaptureWriter *writer;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (writer);
  return writer;
}

/* The embedded file @path, reassembled through the reader. */
static GBytes *
read_embedded_file (SysprofCaptureReader *reader, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp_path = NULL;
  g_autofree char *contents = NULL;
  gsize            len = 0;
  int              fd = g_file_open_tmp ("test-proc-snapshot-file-XXXXXX", &tmp_path, &error);

  g_assert_no_error (error);
  g_assert_true (sysprof_capture_reader_read_file_fd (reader, path, fd));
  close (fd);
  g_file_get_contents (tmp_path, &contents, &len, &error);
  g_assert_no_error (error);
  g_unlink (tmp_path);
  return g_bytes_new_take (g_steal_pointer (&contents), len);
}

static gboolean
list_contains (const char **files, const char *path)
{
  for (guint i = 0; files[i] != NULL; i++)
    if (g_str_equal (files[i], path))
      return TRUE;
  return FALSE;
}

static void
test_snapshot_self (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *mountinfo_path = g_strdup_printf ("/proc/%d/mountinfo", getpid ());
  g_autofree char *expected_mountinfo = NULL;
  g_autoptr (GBytes) mountinfo = NULL;
  SysprofCaptureWriter   *writer;
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;
  const char            **files;
  guint64                 code = GPOINTER_TO_SIZE (test_snapshot_self);
  guint                   n_processes = 0;
  guint                   n_own_process = 0;
  guint                   n_own_maps = 0;
  gboolean                own_code_mapped = FALSE;
  gboolean                own_mountinfo_chunk = FALSE;
  gsize                   expected_len = 0;

  writer = new_temp_writer (&path);
  g_assert_true (sysprof_proc_snapshot_write (writer, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      switch ((int) type)
        {
        case SYSPROF_CAPTURE_FRAME_PROCESS:
          {
            const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (reader);

            g_assert_nonnull (p);
            g_assert_cmpstr (p->cmdline, !=, "");
            n_processes++;
            if (p->frame.pid == getpid ())
              {
                /* "/path/to/test-proc-snapshot --tap ...": NULs became spaces. */
                g_assert_nonnull (strstr (p->cmdline, "test-proc-snapshot"));
                g_assert_nonnull (strchr (p->cmdline, ' '));
                n_own_process++;
              }
            break;
          }
        case SYSPROF_CAPTURE_FRAME_MAP:
          {
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (reader);

            g_assert_nonnull (m);
            g_assert_cmphex (m->end, >, m->start);
            g_assert_true (m->filename[0] == '/' || m->filename[0] == '[');
            if (m->frame.pid == getpid ())
              {
                n_own_maps++;
                if (code >= m->start && code < m->end)
                  {
                    g_assert_true (g_str_has_suffix (m->filename, "/test-proc-snapshot"));
                    g_assert_cmpuint (m->inode, !=, 0);
                    own_code_mapped = TRUE;
                  }
              }
            break;
          }
        case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
          {
            const SysprofCaptureFileChunk *f = sysprof_capture_reader_read_file (reader);

            g_assert_nonnull (f);
            if (g_str_equal (f->path, mountinfo_path))
              {
                g_assert_cmpint (f->frame.pid, ==, getpid ());
                own_mountinfo_chunk = TRUE;
              }
            break;
          }
        default: g_assert_not_reached ();
        }
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);

  g_test_message ("%u processes, %u maps of our own", n_processes, n_own_maps);
  g_assert_cmpuint (n_processes, >, 1);
  g_assert_cmpuint (n_own_process, ==, 1);
  g_assert_cmpuint (n_own_maps, >, 3);
  g_assert_true (own_code_mapped);
  g_assert_true (own_mountinfo_chunk);

  files = sysprof_capture_reader_list_files (reader);
  g_assert_nonnull (files);
  g_assert_true (list_contains (files, mountinfo_path));
  g_assert_true (list_contains (files, "/proc/mounts"));
  g_assert_true (list_contains (files, "/proc/cpuinfo"));
  free (files);

  /* Our mount table did not change meanwhile. */
  mountinfo = read_embedded_file (reader, mountinfo_path);
  g_file_get_contents ("/proc/self/mountinfo", &expected_mountinfo, &expected_len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (mountinfo, NULL), g_bytes_get_size (mountinfo), expected_mountinfo, expected_len);

  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

/* Only the symbols that hold the given addresses, and the ones after them
 * (where they end), in a capture: the same names for those addresses. */
static void
test_kallsyms_for (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) addresses = g_hash_table_new (NULL, NULL);
  g_autofree char *all = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GBytes) embedded = NULL;
  g_autofree char      *text = NULL;
  SysprofCaptureWriter *writer;
  SysprofCaptureReader *reader;
  guint64               schedule = 0, next = G_MAXUINT64;
  guint                 n_lines = 0;

  if (!g_file_get_contents ("/proc/kallsyms", &all, NULL, NULL))
    {
      g_test_skip ("No /proc/kallsyms");
      return;
    }
  /* schedule's address, and the lowest text symbol above it. */
  for (const char *line = all; *line != 0;)
    {
      const char *nl = strchrnul (line, '\n');
      char       *end;
      guint64     addr = g_ascii_strtoull (line, &end, 16);

      if (end + 3 < nl && end[0] == ' ' && strchr ("tT", end[1]) != NULL && end[2] == ' ')
        {
          if (strncmp (end + 3, "schedule", 8) == 0 && (end[11] == '\n' || end[11] == '\0'))
            schedule = addr;
        }
      line = *nl != 0 ? nl + 1 : nl;
    }
  if (schedule == 0)
    {
      g_test_skip ("No readable address for schedule (kptr_restrict, or not root)");
      return;
    }
  for (const char *line = all; *line != 0;)
    {
      const char *nl = strchrnul (line, '\n');
      char       *end;
      guint64     addr = g_ascii_strtoull (line, &end, 16);

      if (end + 3 < nl && end[0] == ' ' && strchr ("tTwW", end[1]) != NULL && addr > schedule && addr < next)
        next = addr;
      line = *nl != 0 ? nl + 1 : nl;
    }
  g_hash_table_add (addresses, GSIZE_TO_POINTER ((gsize) (schedule + 4)));

  writer = new_temp_writer (&path);
  g_assert_true (sysprof_kallsyms_write_for (writer, addresses, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  embedded = read_embedded_file (reader, "/proc/kallsyms");
  sysprof_capture_reader_unref (reader);
  g_unlink (path);
  text = g_strndup (g_bytes_get_data (embedded, NULL), g_bytes_get_size (embedded));
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, " schedule\n"));
  for (const char *line = text; *line != 0;)
    {
      const char *nl = strchrnul (line, '\n');
      guint64     addr = g_ascii_strtoull (line, NULL, 16);

      /* schedule (and its aliases), and what follows it. */
      g_assert_true (addr == schedule || addr == next);
      n_lines++;
      line = *nl != 0 ? nl + 1 : nl;
    }
  g_assert_cmpuint (n_lines, >=, 2);
  g_assert_cmpuint (n_lines, <=, 8);

  /* No address: an empty table, still there (readers look for it). */
  g_hash_table_remove_all (addresses);
  g_clear_pointer (&path, g_free);
  writer = new_temp_writer (&path);
  g_assert_true (sysprof_kallsyms_write_for (writer, addresses, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  reader = sysprof_capture_reader_new (path);
  g_clear_pointer (&embedded, g_bytes_unref);
  embedded = read_embedded_file (reader, "/proc/kallsyms");
  g_assert_nonnull (embedded);
  g_assert_cmpuint (g_bytes_get_size (embedded), ==, 0);
  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

static void
test_kallsyms (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GBytes) kallsyms = NULL;
  g_autofree char      *text = NULL;
  SysprofCaptureWriter *writer;
  SysprofCaptureReader *reader;
  const char          **files;
  guint                 n_nonzero = 0;

  if (!g_file_test ("/proc/kallsyms", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("No /proc/kallsyms");
      return;
    }

  writer = new_temp_writer (&path);
  g_assert_true (sysprof_kallsyms_write (writer, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  files = sysprof_capture_reader_list_files (reader);
  g_assert_nonnull (files);
  g_assert_true (list_contains (files, "/proc/kallsyms"));
  free (files);

  kallsyms = read_embedded_file (reader, "/proc/kallsyms");
  g_assert_cmpuint (g_bytes_get_size (kallsyms), >, 1000);
  text = g_strndup (g_bytes_get_data (kallsyms, NULL), g_bytes_get_size (kallsyms));
  /* Walked by hand: g_strsplit is quadratic under ASan's strstr interceptor. */
  for (const char *line = text; *line != 0;)
    {
      const char *nl = strchrnul (line, '\n');
      char       *end;
      guint64     addr = g_ascii_strtoull (line, &end, 16);

      /* "address type name [module]" */
      g_assert_true (end < nl && end[0] == ' ' && end[1] != 0 && end[2] == ' ');
      n_nonzero += addr != 0;
      line = *nl != 0 ? nl + 1 : nl;
    }
  g_test_message ("%zu bytes of kallsyms, %u non-zero addresses", g_bytes_get_size (kallsyms), n_nonzero);
  /* Readers without CAP_SYSLOG see zeros; root sees addresses unless
   * kptr_restrict is 2. */
  if (geteuid () == 0)
    {
      g_autofree char *restrict_str = NULL;

      if (g_file_get_contents ("/proc/sys/kernel/kptr_restrict", &restrict_str, NULL, NULL) && atoi (restrict_str) < 2)
        g_assert_cmpuint (n_nonzero, >, 0);
    }

  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sysprof/ProcSnapshot/self", test_snapshot_self);
  g_test_add_func ("/Sysprof/Kallsyms/write", test_kallsyms);
  g_test_add_func ("/Sysprof/Kallsyms/write-for", test_kallsyms_for);
  return g_test_run ();
}
