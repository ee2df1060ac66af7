// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli-period-dir.h"

#define PREFIX         "sysprof-"
#define CAPTURE_SUFFIX ".syscap"
#define PPROF_SUFFIX   ".pb.gz"
/* Temporary files: hidden, and never mistaken for a period. */
#define TEMP_PREFIX ".sysprof-partial-"

struct _CliPeriodDir
{
  char   *path;
  guint64 keep_seconds;
  guint64 keep_bytes;
};

static gboolean
is_capture_name (const char *name)
{
  return g_str_has_prefix (name, PREFIX) && g_str_has_suffix (name, CAPTURE_SUFFIX);
}

CliPeriodDir *
cli_period_dir_open (const char *path, guint64 keep_seconds, guint64 keep_bytes, GError **error)
{
  g_autoptr (GDir) dir = NULL;
  CliPeriodDir *self;
  const char   *name;

  if (g_mkdir_with_parents (path, 0750) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create %s: %s", path, g_strerror (saved));
      return NULL;
    }
  if ((dir = g_dir_open (path, 0, error)) == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, TEMP_PREFIX))
      {
        g_autofree char *stale = g_build_filename (path, name, NULL);

        g_unlink (stale);
      }
  self = g_new0 (CliPeriodDir, 1);
  self->path = g_strdup (path);
  self->keep_seconds = keep_seconds;
  self->keep_bytes = keep_bytes;
  return self;
}

void
cli_period_dir_free (CliPeriodDir *self)
{
  if (self == NULL)
    return;
  g_free (self->path);
  g_free (self);
}

const char *
cli_period_dir_get_path (CliPeriodDir *self)
{
  return self->path;
}

char *
cli_period_dir_temporary_path (CliPeriodDir *self, const char *final_path)
{
  g_autofree char *base = g_path_get_basename (final_path);

  return g_strdup_printf ("%s/" TEMP_PREFIX "%s", self->path, base);
}

char *
cli_period_dir_pprof_path (const char *capture)
{
  g_autofree char *stem = g_strndup (capture, strlen (capture) - strlen (CAPTURE_SUFFIX));

  g_return_val_if_fail (g_str_has_suffix (capture, CAPTURE_SUFFIX), NULL);
  return g_strconcat (stem, PPROF_SUFFIX, NULL);
}

static gboolean
copy_all (int from, int to, GError **error)
{
  char  buf[65536];
  off_t offset = 0;

  for (;;)
    {
      ssize_t n = pread (from, buf, sizeof buf, offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot read the period: %s",
                       g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        return TRUE;
      for (ssize_t done = 0; done < n;)
        {
          ssize_t w = write (to, buf + done, (size_t) (n - done));

          if (w < 0 && errno == EINTR)
            continue;
          if (w <= 0)
            {
              int saved = w < 0 ? errno : EIO;

              g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot write the period: %s",
                           g_strerror (saved));
              return FALSE;
            }
          done += w;
        }
      offset += n;
    }
}

char *
cli_period_dir_store (CliPeriodDir *self, gint64 begin_usec, int fd, GError **error)
{
  g_autoptr (GDateTime) when = g_date_time_new_from_unix_utc (begin_usec / G_USEC_PER_SEC);
  g_autofree char *stamp = g_date_time_format (when, "%Y%m%dT%H%M%S");
  g_autofree char *final = NULL;
  g_autofree char *temp = NULL;
  int              out;

  final = g_strdup_printf ("%s/" PREFIX "%s.%06" G_GINT64_FORMAT "Z" CAPTURE_SUFFIX, self->path, stamp,
                           begin_usec % G_USEC_PER_SEC);
  temp = cli_period_dir_temporary_path (self, final);
  if ((out = open (temp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0640)) < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create %s: %s", temp, g_strerror (saved));
      return NULL;
    }
  if (!copy_all (fd, out, error) || fsync (out) != 0 || close (out) != 0 || g_rename (temp, final) != 0)
    {
      int saved = errno;

      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot write %s: %s", final,
                     g_strerror (saved));
      close (out);
      g_unlink (temp);
      return NULL;
    }
  return g_steal_pointer (&final);
}

static int
compare_path_ptrs (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
cli_period_dir_list_without_pprof (CliPeriodDir *self)
{
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = g_dir_open (self->path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (is_capture_name (name))
      {
        g_autofree char *capture = g_build_filename (self->path, name, NULL);
        g_autofree char *pprof = cli_period_dir_pprof_path (capture);

        if (!g_file_test (pprof, G_FILE_TEST_EXISTS))
          g_ptr_array_add (found, g_steal_pointer (&capture));
      }
  g_ptr_array_sort (found, compare_path_ptrs);
  return g_steal_pointer (&found);
}

typedef struct
{
  char   *capture;
  gint64  mtime;
  guint64 bytes;
} Entry;

static void
entry_free (gpointer data)
{
  Entry *e = data;

  g_free (e->capture);
  g_free (e);
}

static int
compare_entries (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 ((*(Entry *const *) a)->capture, (*(Entry *const *) b)->capture);
}

static void
remove_period (const Entry *e)
{
  g_autofree char *pprof = cli_period_dir_pprof_path (e->capture);

  g_unlink (e->capture);
  g_unlink (pprof);
}

guint
cli_period_dir_prune (CliPeriodDir *self, GError **error)
{
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (entry_free);
  g_autoptr (GDir) dir = NULL;
  const char *name;
  guint64     total = 0;
  gint64      now = g_get_real_time () / G_USEC_PER_SEC;
  guint       first = 0, removed = 0;

  if ((dir = g_dir_open (self->path, 0, error)) == NULL)
    return 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (is_capture_name (name))
      {
        Entry           *e = g_new0 (Entry, 1);
        g_autofree char *pprof = NULL;
        struct stat      st;

        e->capture = g_build_filename (self->path, name, NULL);
        pprof = cli_period_dir_pprof_path (e->capture);
        if (stat (e->capture, &st) == 0)
          {
            e->mtime = st.st_mtime;
            e->bytes += (guint64) st.st_size;
          }
        if (stat (pprof, &st) == 0)
          e->bytes += (guint64) st.st_size;
        total += e->bytes;
        g_ptr_array_add (entries, e);
      }
  g_ptr_array_sort (entries, compare_entries);

  /* Oldest first; the newest stays whatever the limits. */
  for (; first + 1 < entries->len; first++)
    {
      const Entry *e = entries->pdata[first];
      gboolean     too_old = self->keep_seconds > 0 && now - e->mtime > (gint64) self->keep_seconds;
      gboolean     too_big = self->keep_bytes > 0 && total > self->keep_bytes;

      if (!too_old && !too_big)
        break;
      remove_period (e);
      total -= e->bytes;
      removed++;
    }
  return removed;
}
