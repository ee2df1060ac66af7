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

/* @path beneath @root_fd taken as the root, or as it is with -1. */
static int
open_beneath (int root_fd, const char *path)
{
  struct open_how how = { 0 };

  /* The file itself must not be a symlink (O_NOFOLLOW); on the way, no magic
   * link, and only symlinks that stay in the process's root. */
  how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;
  how.resolve = RESOLVE_NO_MAGICLINKS | (root_fd >= 0 ? RESOLVE_IN_ROOT : 0);
  return (int) syscall (SYS_openat2, root_fd >= 0 ? root_fd : AT_FDCWD, path, &how, sizeof how);
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
sysprof_perf_map_read_for_process (gint32 pid, gboolean exited_in_our_tmp, GError **error)
{
  g_autofree char *proc_dir = g_strdup_printf ("/proc/%d", pid);
  g_autofree char *status_path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *status = NULL;
  g_autofree char *what = NULL;
  GBytes          *bytes;
  gint64           ns_pid = 0, uid = 0;
  int              root_fd, fd;

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
      if ((fd = open_beneath (-1, path)) < 0)
        {
          int errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", path, g_strerror (errsv));
          return NULL;
        }
      bytes = read_checked (fd, path, getuid (), error);
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
    g_autofree char *root = g_strdup_printf ("/proc/%d/root", pid);
    g_autofree char *path = g_strdup_printf ("tmp/perf-%" G_GINT64_FORMAT ".map", ns_pid);

    /* Only for a process this one may look into (the kernel's ptrace check). */
    if ((root_fd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
      {
        int errsv = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", root, g_strerror (errsv));
        return NULL;
      }
    what = g_strdup_printf ("/tmp/perf-%" G_GINT64_FORMAT ".map of process %d", ns_pid, pid);
    fd = open_beneath (root_fd, path);
    close (root_fd);
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
