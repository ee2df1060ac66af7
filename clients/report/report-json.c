// SPDX-License-Identifier: GPL-3.0-or-later
#include "report-json.h"

/* What is open, innermost last: '{' or '[', and whether a value was
 * written in it (a comma goes before the next). */
typedef struct
{
  char     kind;
  gboolean has_value;
  gboolean after_key; /* objects: a key waits for its value */
} Level;

struct _ReportJson
{
  GString *out;
  GArray  *levels;  /* Level */
  gboolean done;    /* the top-level value is written */
  gboolean newline; /* a line break before the next value or key */
};

ReportJson *
report_json_new (void)
{
  ReportJson *self = g_new0 (ReportJson, 1);

  self->out = g_string_sized_new (4096);
  self->levels = g_array_new (FALSE, FALSE, sizeof (Level));
  return self;
}

void
report_json_free (ReportJson *self)
{
  if (self == NULL)
    return;
  g_string_free (self->out, TRUE);
  g_array_unref (self->levels);
  g_free (self);
}

static Level *
current (ReportJson *self)
{
  return self->levels->len > 0 ? &g_array_index (self->levels, Level, self->levels->len - 1) : NULL;
}

static void
put_newline (ReportJson *self)
{
  if (self->newline)
    g_string_append_c (self->out, '\n');
  self->newline = FALSE;
}

/* Before any value: the comma, or nothing after a key; FALSE when a value
 * cannot go here (a member without its key, a second top-level value). */
static gboolean
before_value (ReportJson *self)
{
  Level *level = current (self);

  if (level == NULL)
    {
      g_return_val_if_fail (!self->done, FALSE);
      return TRUE;
    }
  if (level->kind == '{')
    {
      g_return_val_if_fail (level->after_key, FALSE);
      level->after_key = FALSE;
      return TRUE;
    }
  if (level->has_value)
    g_string_append_c (self->out, ',');
  level->has_value = TRUE;
  put_newline (self);
  return TRUE;
}

static void
after_value (ReportJson *self)
{
  if (self->levels->len == 0)
    self->done = TRUE;
}

static void
open_level (ReportJson *self, char kind)
{
  Level level = { kind, FALSE, FALSE };

  if (!before_value (self))
    return;
  g_string_append_c (self->out, kind);
  g_array_append_val (self->levels, level);
}

static void
close_level (ReportJson *self, char kind)
{
  Level *level = current (self);

  g_return_if_fail (level != NULL && level->kind == kind && !level->after_key);
  g_string_append_c (self->out, kind == '{' ? '}' : ']');
  g_array_set_size (self->levels, self->levels->len - 1);
  after_value (self);
}

void
report_json_begin_object (ReportJson *self)
{
  open_level (self, '{');
}

void
report_json_end_object (ReportJson *self)
{
  close_level (self, '{');
}

void
report_json_begin_array (ReportJson *self)
{
  open_level (self, '[');
}

void
report_json_end_array (ReportJson *self)
{
  close_level (self, '[');
}

void
report_json_key (ReportJson *self, const char *key)
{
  Level *level = current (self);

  g_return_if_fail (level != NULL && level->kind == '{' && !level->after_key);
  if (level->has_value)
    g_string_append_c (self->out, ',');
  level->has_value = TRUE;
  level->after_key = TRUE;
  put_newline (self);
  report_json_append_string (self->out, key);
  g_string_append_c (self->out, ':');
}

void
report_json_append_string (GString *out, const char *value)
{
  g_autofree char *valid = g_utf8_make_valid (value != NULL ? value : "", -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          /* The other control characters (JSON forbids them raw) and DEL. */
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\u%04x", c);
          /* U+2028 and U+2029 are valid JSON but end a line in older
           * JavaScript: escaped, the file can be pasted into a script. */
          else if (c == 0xe2 && (guchar) p[1] == 0x80 && ((guchar) p[2] == 0xa8 || (guchar) p[2] == 0xa9))
            {
              g_string_append_printf (out, "\\u%04x", (guchar) p[2] == 0xa8 ? 0x2028 : 0x2029);
              p += 2;
            }
          else
            g_string_append_c (out, (char) c);
        }
    }
  g_string_append_c (out, '"');
}

void
report_json_string (ReportJson *self, const char *value)
{
  if (!before_value (self))
    return;
  report_json_append_string (self->out, value);
  after_value (self);
}

void
report_json_int (ReportJson *self, gint64 value)
{
  if (!before_value (self))
    return;
  g_string_append_printf (self->out, "%" G_GINT64_FORMAT, value);
  after_value (self);
}

void
report_json_uint (ReportJson *self, guint64 value)
{
  if (!before_value (self))
    return;
  g_string_append_printf (self->out, "%" G_GUINT64_FORMAT, value);
  after_value (self);
}

void
report_json_bool (ReportJson *self, gboolean value)
{
  if (!before_value (self))
    return;
  g_string_append (self->out, value ? "true" : "false");
  after_value (self);
}

void
report_json_newline (ReportJson *self)
{
  self->newline = TRUE;
}

GBytes *
report_json_finish (ReportJson *self)
{
  GString *out;

  g_return_val_if_fail (self->done && self->levels->len == 0, NULL);
  g_string_append_c (self->out, '\n');
  out = g_steal_pointer (&self->out);
  self->out = g_string_new (NULL);
  return g_string_free_to_bytes (out);
}
