// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-kallsyms.h"

#define KALLSYMS_PATH "/proc/kallsyms"

gboolean
sysprof_kallsyms_write (SysprofCaptureWriter *writer, GError **error)
{
  gboolean written;
  int      errsv;
  int      fd;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  fd = open (KALLSYMS_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot open %s: %s", KALLSYMS_PATH,
                   g_strerror (errsv));
      return FALSE;
    }

  written = sysprof_capture_writer_add_file_fd (writer, sysprof_clock_get_current_time (), -1, -1, KALLSYMS_PATH, fd);
  errsv = errno;
  close (fd);

  if (!written)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot embed %s in the capture: %s",
                   KALLSYMS_PATH, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  guint64 addr;
  guint32 offset; /* of the line in the text */
  guint32 len;    /* of the line, newline included */
} Line;

static gint
compare_lines (gconstpointer a, gconstpointer b)
{
  const Line *la = a, *lb = b;

  if (la->addr != lb->addr)
    return la->addr < lb->addr ? -1 : 1;
  return la->offset < lb->offset ? -1 : la->offset > lb->offset;
}

/* The text symbols of @text ("ADDRESS TYPE NAME [MODULE]"), sorted by
 * address (modules come after the kernel in the file, not in order). */
static GArray *
text_lines (const char *text, gsize len)
{
  GArray     *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  const char *p = text, *end = text + len;

  while (p < end)
    {
      const char *eol = memchr (p, '\n', (gsize) (end - p));
      const char *next = eol ? eol + 1 : end;
      char       *addr_end = NULL;
      Line        line;

      line.addr = g_ascii_strtoull (p, &addr_end, 16);
      if (addr_end != p && addr_end + 3 <= next && addr_end[0] == ' ' && strchr ("tTwW", addr_end[1]) != NULL &&
          addr_end[1] != '\0' && addr_end[2] == ' ')
        {
          line.offset = (guint32) (p - text);
          line.len = (guint32) (next - p);
          g_array_append_val (lines, line);
        }
      p = next;
    }
  g_array_sort (lines, compare_lines);
  return lines;
}

gboolean
sysprof_kallsyms_write_for (SysprofCaptureWriter *writer, GHashTable *addresses, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GArray) lines = NULL;
  g_autoptr (GString) out = NULL;
  g_autofree guint8 *keep = NULL;
  GHashTableIter     iter;
  gpointer           key;
  gsize              len;
  int                fd = -1;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (addresses != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!g_file_get_contents (KALLSYMS_PATH, &text, &len, &local_error))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code), "Cannot read %s: %s",
                   KALLSYMS_PATH, local_error->message);
      return FALSE;
    }
  lines = text_lines (text, len);
  keep = g_malloc0 (lines->len + 1);

  g_hash_table_iter_init (&iter, addresses);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      guint64     addr = (guint64) GPOINTER_TO_SIZE (key);
      const Line *v = (const Line *) (gpointer) lines->data;
      guint       lo = 0, hi = lines->len;

      if (hi == 0 || addr < v[0].addr)
        continue;
      /* The last symbol at or below @addr, and the next one above it. */
      while (hi - lo > 1)
        {
          guint mid = lo + (hi - lo) / 2;

          if (v[mid].addr <= addr)
            lo = mid;
          else
            hi = mid;
        }
      keep[lo] = TRUE;
      for (guint i = lo + 1; i < lines->len; i++)
        if (v[i].addr > v[lo].addr)
          {
            keep[i] = TRUE;
            break;
          }
    }

  out = g_string_new (NULL);
  for (guint i = 0; i < lines->len; i++)
    if (keep[i])
      {
        const Line *line = &g_array_index (lines, Line, i);

        g_string_append_len (out, text + line->offset, line->len);
        if (out->str[out->len - 1] != '\n')
          g_string_append_c (out, '\n');
      }

  /* Through a memory file: the writer cuts it into chunks. */
  if ((fd = memfd_create ("kallsyms", MFD_CLOEXEC)) < 0 || write (fd, out->str, out->len) != (gssize) out->len ||
      lseek (fd, 0, SEEK_SET) != 0 ||
      !sysprof_capture_writer_add_file_fd (writer, sysprof_clock_get_current_time (), -1, -1, KALLSYMS_PATH, fd))
    {
      int errsv = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot embed %s in the capture: %s",
                   KALLSYMS_PATH, g_strerror (errsv));
      return FALSE;
    }
  close (fd);
  return TRUE;
}
