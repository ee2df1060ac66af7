// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-sched-switch-private.h"

/* A format file's lines look like
 *   ID: 372
 *   	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 * (Documentation/trace/events.rst).  Only the lines we need are read. */

#define MAX_FIELD_OFFSET 4096

typedef struct
{
  const char *name;
  guint       offset;
  guint       size;
  gboolean    found;
} Field;

/* The number after @key in [line, end), up to a ';' or the end. */
static gboolean
read_number (const char *line, const char *end, const char *key, guint64 *value)
{
  gsize       key_len = strlen (key);
  const char *p = line;

  while (p + key_len <= end && (p = memchr (p, key[0], (gsize) (end - p))) != NULL && p + key_len <= end)
    {
      if (memcmp (p, key, key_len) == 0)
        {
          guint64 v = 0;
          gsize   digits = 0;

          for (p += key_len; p < end && g_ascii_isdigit (*p) && digits < 12; p++, digits++)
            v = v * 10 + (guint64) (*p - '0');
          if (digits == 0 || digits == 12)
            return FALSE;
          *value = v;
          return TRUE;
        }
      p++;
    }
  return FALSE;
}

/* The name declared by "field:TYPE NAME[N];" in [line, end). */
static gboolean
field_is (const char *line, const char *end, const char *name)
{
  const char *decl = NULL;
  const char *stop;
  const char *name_end;
  gsize       len = strlen (name);

  for (const char *p = line; p + 6 <= end; p++)
    if (memcmp (p, "field:", 6) == 0)
      {
        decl = p + 6;
        break;
      }
  if (decl == NULL || (stop = memchr (decl, ';', (gsize) (end - decl))) == NULL)
    return FALSE;
  name_end = memchr (decl, '[', (gsize) (stop - decl));
  if (name_end == NULL)
    name_end = stop;
  /* The identifier that ends the declaration, after a space or a '*'. */
  if ((gsize) (name_end - decl) < len + 1 || memcmp (name_end - len, name, len) != 0)
    return FALSE;
  return name_end[-(gssize) len - 1] == ' ' || name_end[-(gssize) len - 1] == '\t' ||
         name_end[-(gssize) len - 1] == '*';
}

gboolean
_sysprof_sched_switch_format_parse (const char *text, gsize length, SysprofSchedSwitchFormat *format, GError **error)
{
  Field fields[] = {
    { "prev_comm", 0, 0, FALSE },
    { "prev_pid", 0, 0, FALSE },
    { "prev_state", 0, 0, FALSE },
    { "next_pid", 0, 0, FALSE },
  };
  const char *p = text;
  const char *end = text + length;
  gboolean    have_id = FALSE;
  guint64     id = 0;

  g_return_val_if_fail (text != NULL || length == 0, FALSE);
  g_return_val_if_fail (format != NULL, FALSE);

  while (p < end)
    {
      const char *eol = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = eol ? eol : end;

      if (line_end - p >= 4 && memcmp (p, "ID: ", 4) == 0)
        have_id = read_number (p, line_end, "ID: ", &id);
      else
        for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
          {
            guint64 offset, size;

            if (fields[i].found || !field_is (p, line_end, fields[i].name))
              continue;
            if (!read_number (p, line_end, "offset:", &offset) || !read_number (p, line_end, "size:", &size) ||
                offset > MAX_FIELD_OFFSET || size == 0 || size > 64)
              break;
            fields[i].offset = (guint) offset;
            fields[i].size = (guint) size;
            fields[i].found = TRUE;
            break;
          }
      p = line_end + 1;
    }

  if (!have_id || id == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "The sched_switch tracepoint's format has no ID line");
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (!fields[i].found)
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "The sched_switch tracepoint's format has no usable field %s", fields[i].name);
        return FALSE;
      }
  if (fields[1].size != 4 || fields[3].size != 4 || (fields[2].size != 4 && fields[2].size != 8))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "The sched_switch tracepoint's fields have unexpected sizes (prev_pid %u, prev_state %u, "
                   "next_pid %u)",
                   fields[1].size, fields[2].size, fields[3].size);
      return FALSE;
    }

  format->id = id;
  format->prev_comm_offset = fields[0].offset;
  format->prev_comm_size = MIN (fields[0].size, 16u);
  format->prev_pid_offset = fields[1].offset;
  format->prev_state_offset = fields[2].offset;
  format->prev_state_size = fields[2].size;
  format->next_pid_offset = fields[3].offset;
  format->min_size = 0;
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    format->min_size = MAX (format->min_size, fields[i].offset + fields[i].size);
  return TRUE;
}

gboolean
_sysprof_sched_switch_format_load (SysprofSchedSwitchFormat *format, GError **error)
{
  static const char *const paths[] = {
    "/sys/kernel/tracing/events/sched/sched_switch/format",
    "/sys/kernel/debug/tracing/events/sched/sched_switch/format",
  };
  g_autoptr (GError) first_error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GError) local_error = NULL;
      g_autofree char *text = NULL;
      gsize            length;

      if (g_file_get_contents (paths[i], &text, &length, &local_error))
        return _sysprof_sched_switch_format_parse (text, length, format, error);
      if (first_error == NULL && !g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        first_error = g_steal_pointer (&local_error);
    }
  if (first_error != NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "Cannot read the sched_switch tracepoint: %s",
                 first_error->message);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 "Scheduler details need tracefs, which is not mounted (as root: mount -t tracefs nodev "
                 "/sys/kernel/tracing)");
  return FALSE;
}

gboolean
_sysprof_sched_switch_read (const SysprofSchedSwitchFormat *format,
                            const guint8                   *raw,
                            gsize                           size,
                            SysprofSchedSwitch             *out)
{
  gint32 pid;

  if (raw == NULL || size < format->min_size)
    return FALSE;
  memcpy (out->prev_comm, raw + format->prev_comm_offset, format->prev_comm_size);
  out->prev_comm[format->prev_comm_size] = 0;
  memcpy (&pid, raw + format->prev_pid_offset, sizeof pid);
  out->prev_pid = pid;
  if (format->prev_state_size == 8)
    memcpy (&out->prev_state, raw + format->prev_state_offset, 8);
  else
    {
      guint32 state;

      memcpy (&state, raw + format->prev_state_offset, 4);
      out->prev_state = state;
    }
  memcpy (&pid, raw + format->next_pid_offset, sizeof pid);
  out->next_pid = pid;
  return TRUE;
}
