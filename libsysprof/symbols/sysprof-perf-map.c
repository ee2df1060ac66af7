// SPDX-License-Identifier: GPL-3.0-or-later
/* Perf maps: reading them safely, and parsing them as the untrusted text
 * they are (fuzzed by tests/fuzz/fuzz-perf-map.c).  A perf map lies in a
 * world-writable /tmp: another user can plant /tmp/perf-PID.map before the
 * process exists, or a symlink there to a file the reader may read; so the
 * file must be a regular file, reached without following a symlink at the
 * end or a magic link anywhere, and belong to the process's user. */

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysprof-perf-map-private.h"

#define MAX_NAME_LEN 4096
/* Overlapping ranges are looked for among this many entries before the
 * address; maps whose ranges do not overlap need one. */
#define MAX_OVERLAP_SCAN 64

typedef struct
{
  guint64 start;
  guint64 end;
  guint32 seq;  /* line order: the later wins */
  guint32 name; /* offset in names */
} Entry;

struct _SysprofPerfMap
{
  GArray     *entries; /* Entry, sorted by start then seq */
  GByteArray *names;   /* NUL-terminated names */
};

/* Hexadecimal at *@p, with an optional 0x; FALSE on no digit or overflow. */
static gboolean
parse_hex (const char **p, const char *end, guint64 *value)
{
  const char *s = *p;
  guint64     v = 0;
  guint       digits = 0;

  if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  for (; s < end && g_ascii_isxdigit (*s); s++, digits++)
    {
      if (v >> 60)
        return FALSE;
      v = (v << 4) | (guint64) g_ascii_xdigit_value (*s);
    }
  if (digits == 0)
    return FALSE;
  *p = s;
  *value = v;
  return TRUE;
}

static const char *
skip_blanks (const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

static void
parse_line (SysprofPerfMap *self, const char *p, const char *end, guint32 seq)
{
  guint64 start, size;
  Entry   entry;

  p = skip_blanks (p, end);
  if (!parse_hex (&p, end, &start) || p == end || (*p != ' ' && *p != '\t'))
    return;
  p = skip_blanks (p, end);
  if (!parse_hex (&p, end, &size) || p == end || (*p != ' ' && *p != '\t'))
    return;
  p = skip_blanks (p, end);
  while (end > p && g_ascii_isspace (end[-1]))
    end--;
  if (size == 0 || start + size < start || p == end)
    return;

  {
    g_autofree char *name = g_utf8_make_valid (p, MIN (end - p, MAX_NAME_LEN));

    /* A NUL inside the line ends the name there. */
    if (name[0] == '\0')
      return;
    entry.start = start;
    entry.end = start + size;
    entry.seq = seq;
    entry.name = self->names->len;
    g_byte_array_append (self->names, (const guint8 *) name, strlen (name) + 1);
    g_array_append_val (self->entries, entry);
  }
}

static int
compare_entries (gconstpointer a, gconstpointer b)
{
  const Entry *ea = a, *eb = b;

  if (ea->start != eb->start)
    return ea->start < eb->start ? -1 : 1;
  return ea->seq < eb->seq ? -1 : ea->seq > eb->seq;
}

SysprofPerfMap *
sysprof_perf_map_new (const char *text, gsize len)
{
  SysprofPerfMap *self = g_new0 (SysprofPerfMap, 1);
  const char     *p = text, *end;
  guint32         seq = 0;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->names = g_byte_array_new ();
  len = MIN (len, SYSPROF_PERF_MAP_MAX_SIZE);
  end = text + len;
  while (p < end)
    {
      const char *eol = memchr (p, '\n', (gsize) (end - p));

      if (eol == NULL)
        eol = end;
      parse_line (self, p, eol, seq++);
      p = eol + 1;
    }
  g_array_sort (self->entries, compare_entries);
  return self;
}

void
sysprof_perf_map_free (SysprofPerfMap *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->entries);
  g_byte_array_unref (self->names);
  g_free (self);
}

guint
sysprof_perf_map_get_n_entries (SysprofPerfMap *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->entries->len;
}

const char *
sysprof_perf_map_lookup (SysprofPerfMap *self, guint64 address, guint64 *begin, guint64 *end)
{
  const Entry *entries = (const Entry *) (gconstpointer) self->entries->data;
  const Entry *best = NULL;
  guint        lo = 0, hi = self->entries->len;

  g_return_val_if_fail (self != NULL, NULL);

  /* The first entry starting after @address. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (entries[mid].start <= address)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint i = lo, scanned = 0; i > 0 && scanned < MAX_OVERLAP_SCAN; i--, scanned++)
    {
      const Entry *e = &entries[i - 1];
      if (address < e->end && (best == NULL || e->seq > best->seq))
        best = e;
    }
  if (best == NULL)
    return NULL;
  *begin = best->start;
  *end = best->end;
  return (const char *) self->names->data + best->name;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */
