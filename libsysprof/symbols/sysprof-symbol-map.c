// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-capture-error.h"
#include "sysprof-frame-table-private.h"
#include "sysprof-symbol-map.h"
#include "sysprof-symbolizer-private.h"

#define SYMBOLS_PATH "__symbols__"

typedef struct
{
  gint32                pid;
  SysprofAddressContext context;
  guint64               address;
  gint64                time;        /* of the first frame holding it */
  gboolean              frames_only; /* the call before a return address: only in the frame table */
} Site;

typedef struct
{
  guint64              begin;
  guint64              end;
  gint32               pid;
  const SysprofSymbol *symbol;
} Range;

static guint
site_hash (gconstpointer data)
{
  const Site *site = data;

  return (guint) (site->address ^ (site->address >> 29)) * 2654435761u ^ (guint) site->pid;
}

static gboolean
site_equal (gconstpointer a, gconstpointer b)
{
  const Site *sa = a, *sb = b;

  return sa->address == sb->address && sa->pid == sb->pid;
}

static int
compare_site (gconstpointer a, gconstpointer b)
{
  const Site *sa = a, *sb = b;

  if (sa->pid != sb->pid)
    return sa->pid < sb->pid ? -1 : 1;
  return sa->address < sb->address ? -1 : sa->address > sb->address;
}

/* The time of a site is its earliest: the allocation cursor hands out the
 * streams' stacks after the frames, not in capture order. */
static void
note_site (GHashTable *sites, const Site *key)
{
  Site *found = g_hash_table_lookup (sites, key);

  if (found == NULL)
    g_hash_table_add (sites, g_memdup2 (key, sizeof *key));
  else if (key->time < found->time)
    found->time = key->time;
}

static void
add_sites (GHashTable *sites, gint32 pid, gint64 time, const guint8 *addrs, guint n_addrs)
{
  SysprofAddressContext context = SYSPROF_ADDRESS_CONTEXT_NONE;
  gboolean              caller = FALSE;

  for (guint i = 0; i < n_addrs; i++)
    {
      SysprofAddressContext marker;
      SysprofCaptureAddress addr;
      Site                  key;

      memcpy (&addr, addrs + i * sizeof addr, sizeof addr);
      key = (Site){ pid, context, addr, time, FALSE };
      if (sysprof_address_is_context_switch (addr, &marker))
        {
          context = marker;
          caller = FALSE;
          continue;
        }
      /* Address 0 (a broken unwind) names nothing, and a record starting and
       * ending at 0 reads as the end of the table to Sysprof 3.46. */
      if (addr == 0)
        continue;
      note_site (sites, &key);
      /* The callgraph reads the inlines and line of a return address at
       * the call before it (sysprof-callgraph.c): that one too. */
      if (context == SYSPROF_ADDRESS_CONTEXT_USER || context == SYSPROF_ADDRESS_CONTEXT_NONE)
        {
          if (caller && addr > 1)
            {
              key.address = addr - 1;
              key.frames_only = TRUE;
              note_site (sites, &key);
            }
          caller = TRUE;
        }
    }
}

static gboolean
set_reader_error (SysprofCaptureReader *reader, GError **error)
{
  const SysprofCaptureError *err = sysprof_capture_reader_get_error (reader);

  if (err->code == 0)
    return TRUE;
  return sysprof_set_capture_error (error, err, "Cannot read the capture");
}

/* Stacks already looked at, so that a capture of millions of allocations
 * from a few thousand distinct stacks costs one hash of each stack rather
 * than a lookup per address.  Bounded: past MAX_STACKS distinct stacks the
 * rest is looked at address by address. */
#define MAX_STACKS      262144
#define MAX_STACK_ADDRS 1024

typedef struct
{
  guint   hash;
  gint32  pid;
  guint   n_addrs;
  guint64 addrs[];
} Stack;

static guint
stack_hash (gconstpointer data)
{
  return ((const Stack *) data)->hash;
}

static gboolean
stack_equal (gconstpointer a, gconstpointer b)
{
  const Stack *sa = a, *sb = b;

  return sa->hash == sb->hash && sa->pid == sb->pid && sa->n_addrs == sb->n_addrs &&
         memcmp (sa->addrs, sb->addrs, sa->n_addrs * sizeof (guint64)) == 0;
}

/* FNV-1a, a word at a time, over the pid and the addresses. */
static guint
hash_stack (gint32 pid, const guint8 *addrs, guint n_addrs)
{
  guint64 h = 14695981039346656037u ^ (guint32) pid;

  for (guint i = 0; i < n_addrs; i++)
    {
      guint64 addr;

      memcpy (&addr, addrs + i * sizeof addr, sizeof addr);
      h = (h ^ addr) * 1099511628211u;
    }
  return (guint) (h ^ (h >> 32));
}

/* Whether this exact stack of @pid was seen before (and remembers it). */
static gboolean
stack_seen (GHashTable *stacks, gint32 pid, const guint8 *addrs, guint n_addrs)
{
  /* The key is built on the stack; only new stacks are copied. */
  guint64 buf[(sizeof (Stack) + MAX_STACK_ADDRS * sizeof (guint64)) / sizeof (guint64)];
  Stack  *key = (Stack *) (void *) buf;
  gsize   size = sizeof *key + n_addrs * sizeof (guint64);

  if (n_addrs > MAX_STACK_ADDRS)
    return FALSE;
  key->hash = hash_stack (pid, addrs, n_addrs);
  key->pid = pid;
  key->n_addrs = n_addrs;
  memcpy (key->addrs, addrs, n_addrs * sizeof (guint64));
  if (g_hash_table_contains (stacks, key))
    return TRUE;
  if (g_hash_table_size (stacks) < MAX_STACKS)
    g_hash_table_add (stacks, g_memdup2 (key, size));
  return FALSE;
}

static void
add_stack (GHashTable *sites, GHashTable *stacks, gint32 pid, gint64 time, const guint8 *addrs, guint n_addrs)
{
  if (n_addrs == 0 || stack_seen (stacks, pid, addrs, n_addrs))
    return;
  add_sites (sites, pid, time, addrs, n_addrs);
}

typedef struct
{
  GHashTable *sites;
  GHashTable *stacks;
  gint32      pid;
} Collect;

/* A stack record of a memory stream of process collect->pid. */
static void
collect_stream_stack (gint64 time, const SysprofCaptureAddress *frames, unsigned int n_frames, void *user_data)
{
  Collect *c = user_data;

  add_stack (c->sites, c->stacks, c->pid, time, (const guint8 *) frames, n_frames);
}

/* Every (pid, address) a SAMPLE, TRACE or ALLOCATION frame or a memory
 * stream holds, in one pass over the frames (a set of sites needs no time
 * order).  Of a stream, only its stack records are read (every address its
 * events can name), not its events: SysprofMemoryStreamScanner.  An unsound
 * block gives the stacks before its fault; the analyses report it. */
static GHashTable *
collect_sites (SysprofCaptureReader *reader, GError **error)
{
  g_autoptr (GHashTable) sites = g_hash_table_new_full (site_hash, site_equal, g_free, NULL);
  g_autoptr (GHashTable) stacks = g_hash_table_new_full (stack_hash, stack_equal, g_free, NULL);
  SysprofMemoryStreamScanner *scanner = NULL;
  Collect                     collect = { sites, stacks, 0 };
  SysprofCaptureFrameType     type;
  gboolean                    ok;

  sysprof_capture_reader_reset (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (reader);
          if (s == NULL)
            break;
          add_stack (sites, stacks, s->frame.pid, s->frame.time, (const guint8 *) s + sizeof *s, s->n_addrs);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_TRACE)
        {
          const SysprofCaptureTrace *t = sysprof_capture_reader_read_trace (reader);
          if (t == NULL)
            break;
          add_stack (sites, stacks, t->frame.pid, t->frame.time, (const guint8 *) t + sizeof *t, t->n_addrs);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
        {
          const SysprofCaptureAllocation *a = sysprof_capture_reader_read_allocation (reader);
          if (a == NULL)
            break;
          add_stack (sites, stacks, a->frame.pid, a->frame.time, (const guint8 *) a + sizeof *a, a->n_addrs);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
        {
          const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);
          gint32                         tid;

          if (chunk == NULL)
            break;
          /* A block the drainer found without stack records is skipped
           * unread (most of them: a thread defines its stacks early). */
          if (!sysprof_memory_stream_parse_path (chunk->path, &tid) ||
              (chunk->padding1 & SYSPROF_MEMORY_STREAM_CHUNK_NO_STACKS))
            continue;
          if (scanner == NULL && (scanner = sysprof_memory_stream_scanner_new ()) == NULL)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot read memory streams: out of memory");
              return NULL;
            }
          collect.pid = chunk->frame.pid;
          sysprof_memory_stream_scanner_scan (scanner, chunk->data, chunk->len, collect_stream_stack, &collect);
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }
  sysprof_memory_stream_scanner_free (scanner);
  ok = set_reader_error (reader, error);
  sysprof_capture_reader_reset (reader);
  return ok ? g_steal_pointer (&sites) : NULL;
}

static guint32
string_offset (GHashTable *offsets, GByteArray *table, gsize base, const char *str)
{
  gpointer found;
  guint32  offset;

  if (str == NULL || str[0] == '\0')
    return (guint32) base; /* the "" every table starts with */
  if (g_hash_table_lookup_extended (offsets, str, NULL, &found))
    return GPOINTER_TO_UINT (found);
  offset = (guint32) (base + table->len);
  g_byte_array_append (table, (const guint8 *) str, (guint) strlen (str) + 1);
  g_hash_table_insert (offsets, (gpointer) str, GUINT_TO_POINTER (offset));
  return offset;
}

/* The ranges, sorted by (pid, begin), made disjoint: a later range that
 * overlaps an earlier one of the same pid starts where that one ends (only
 * mappings replaced during the recording do this). */
static GArray *
sort_sites (GHashTable *sites)
{
  GArray        *sorted = g_array_sized_new (FALSE, FALSE, sizeof (Site), g_hash_table_size (sites));
  GHashTableIter iter;
  gpointer       key;

  g_hash_table_iter_init (&iter, sites);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_array_append_vals (sorted, key, 1);
  g_array_sort (sorted, compare_site);
  return sorted;
}

static GArray *
build_ranges (SysprofSymbolizer       *symbolizer,
              GArray                  *sorted,
              SysprofSymbolMapProgress progress,
              gpointer                 user_data,
              GCancellable            *cancellable,
              GError                 **error)
{
  g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  guint64 total = sorted->len;

  /* What only the live host can tell (processes in other mount namespaces)
   * is asked in one go, once per namespace and file, rather than at each
   * lookup. */
  for (guint i = 0; i < sorted->len; i++)
    {
      const Site *site = &g_array_index (sorted, Site, i);
      _sysprof_symbolizer_plan_lookup (symbolizer, site->pid, site->time, site->context, site->address);
    }
  _sysprof_symbolizer_ask_host (symbolizer);

  for (guint i = 0; i < sorted->len; i++)
    {
      const Site *site = &g_array_index (sorted, Site, i);
      Range       range = { 0, 0, site->pid, NULL };
      Range      *last = ranges->len ? &g_array_index (ranges, Range, ranges->len - 1) : NULL;

      if ((i % 4096) == 0)
        {
          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            return NULL;
          if (progress != NULL)
            progress (i, total, user_data);
        }
      if (site->frames_only)
        continue;
      /* Addresses are sorted: one inside the previous range resolves to it. */
      if (last != NULL && last->pid == site->pid && last->begin <= site->address && site->address < last->end)
        continue;
      range.symbol = sysprof_symbolizer_lookup_range (symbolizer, site->pid, site->time, site->context, site->address,
                                                      &range.begin, &range.end);
      if (last != NULL && last->pid == range.pid && range.begin < last->end)
        range.begin = last->end;
      if (range.begin > site->address || range.end <= site->address)
        {
          range.begin = site->address;
          range.end = site->address + 1;
        }
      if (last != NULL && last->pid == range.pid && last->symbol == range.symbol && last->end == range.begin)
        last->end = range.end;
      else
        g_array_append_val (ranges, range);
    }
  if (progress != NULL)
    progress (total, total, user_data);
  return g_steal_pointer (&ranges);
}

/* Kernel addresses from here on (x86-64, aarch64) when no marker says. */
#define USER_ADDRESS_END G_GUINT64_CONSTANT (0xffff800000000000)

/* The `__symbol_frames__` table: for the user addresses, their inline
 * frames and lines (where the debug info gives more than `__symbols__`
 * says), and the addresses that are no code.  NULL when there is nothing
 * to say.  @sites is sorted by (pid, address). */
static GBytes *
build_frame_table (SysprofSymbolizer *symbolizer, GArray *sorted, GCancellable *cancellable, GError **error)
{
  g_autoptr (SysprofFrameTableBuilder) builder = _sysprof_frame_table_builder_new ();
  gint32  last_pid = 0;
  guint64 last_end = 0;

  for (guint i = 0; i < sorted->len; i++)
    {
      const Site                      *site = &g_array_index (sorted, Site, i);
      const SysprofSymbolFrame *const *frames = NULL;
      guint64                          begin, end;
      guint                            n;

      if ((i % 4096) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (site->context != SYSPROF_ADDRESS_CONTEXT_USER &&
          (site->context != SYSPROF_ADDRESS_CONTEXT_NONE || site->address >= USER_ADDRESS_END))
        continue;
      if (site->pid == last_pid && site->address < last_end)
        continue;
      if (!sysprof_symbolizer_is_code_address (symbolizer, site->pid, site->time, site->address))
        {
          n = 0;
          begin = site->address;
          end = site->address + 1;
        }
      else
        {
          n = sysprof_symbolizer_lookup_frames (symbolizer, site->pid, site->time, SYSPROF_ADDRESS_CONTEXT_USER,
                                                site->address, &frames, &begin, &end);
          /* What `__symbols__` says already is not repeated. */
          if (n == 0 || (n == 1 && frames[0]->file == NULL))
            continue;
        }
      if (site->pid == last_pid && begin < last_end)
        begin = last_end;
      if (begin > site->address || end <= site->address)
        {
          begin = site->address;
          end = site->address + 1;
        }
      _sysprof_frame_table_builder_add (builder, site->pid, begin, end, frames, n);
      last_pid = site->pid;
      last_end = end;
    }
  if (_sysprof_frame_table_builder_get_n_records (builder) == 0)
    return NULL;
  return _sysprof_frame_table_builder_finish (builder);
}

static GBytes *
serialize (GArray *ranges)
{
  g_autoptr (GHashTable) offsets = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GByteArray) strings = g_byte_array_new ();
  g_autoptr (GByteArray) out = g_byte_array_new ();
  gsize                  base = ((gsize) ranges->len + 1) * sizeof (SysprofSymbolMapRecord);
  SysprofSymbolMapRecord zero = { 0 };

  /* Offset 0 would mean "none", so the table starts with an empty string. */
  g_byte_array_append (strings, (const guint8 *) "", 1);
  for (guint i = 0; i < ranges->len; i++)
    {
      const Range           *range = &g_array_index (ranges, Range, i);
      SysprofSymbolMapRecord record = { 0 };

      record.addr_begin = range->begin;
      /* The last address, inclusive: what Sysprof 3.46 writes and reads. */
      record.addr_end = range->end - 1;
      record.pid = (guint32) range->pid;
      /* Interned names: the pointer is the identity. */
      record.name_offset = string_offset (offsets, strings, base, range->symbol->name);
      record.tag_offset = string_offset (offsets, strings, base, range->symbol->library);
      g_byte_array_append (out, (const guint8 *) &record, sizeof record);
    }
  g_byte_array_append (out, (const guint8 *) &zero, sizeof zero);
  g_byte_array_append (out, strings->data, strings->len);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

static gboolean
write_all (int fd, const guint8 *data, gsize len, off_t offset, GError **error)
{
  while (len > 0)
    {
      ssize_t n = pwrite (fd, data, len, offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : ENOSPC;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot append the symbol table: %s",
                       g_strerror (saved));
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
      offset += n;
    }
  return TRUE;
}

/* @contents as FILE_CHUNK frames of @path, through a memfd. */
static gboolean
add_file_bytes (SysprofCaptureWriter *writer, gint64 time, const char *path, GBytes *contents, GError **error)
{
  int           fd = memfd_create ("sysprof-file", MFD_CLOEXEC);
  gsize         len;
  const guint8 *data = g_bytes_get_data (contents, &len);
  gboolean      ok;

  ok = fd >= 0 && write_all (fd, data, len, 0, error) &&
       sysprof_capture_writer_add_file_fd (writer, time, -1, -1, path, fd);
  if (fd >= 0)
    close (fd);
  return ok;
}

/* FILE_CHUNK frames of @table (and @frame_table after it), after the files
 * @symbolizer read to embed (perf maps), as raw bytes: a writer on a memfd
 * makes them, the file header it starts with is dropped. */
static GBytes *
frames_for_table (GBytes *table, GBytes *frame_table, SysprofSymbolizer *symbolizer, gint64 time, GError **error)
{
  const char *const    *extra_paths = NULL;
  GBytes *const        *extra_contents = NULL;
  guint                 n_extra = _sysprof_symbolizer_get_files_to_embed (symbolizer, &extra_paths, &extra_contents);
  int                   table_fd = memfd_create ("sysprof-symbols", MFD_CLOEXEC);
  int                   frames_fd = memfd_create ("sysprof-frames", MFD_CLOEXEC);
  int                   frame_table_fd = frame_table != NULL ? memfd_create ("sysprof-frame-table", MFD_CLOEXEC) : -1;
  int                   writer_fd = -1;
  SysprofCaptureWriter *writer = NULL;
  g_autoptr (GBytes) result = NULL;
  gsize         len, frame_table_len = 0;
  const guint8 *data = g_bytes_get_data (table, &len);
  const guint8 *frame_table_data = frame_table != NULL ? g_bytes_get_data (frame_table, &frame_table_len) : NULL;
  struct stat   st;

  if (table_fd < 0 || frames_fd < 0 || !write_all (table_fd, data, len, 0, error) ||
      (frame_table != NULL &&
       (frame_table_fd < 0 || !write_all (frame_table_fd, frame_table_data, frame_table_len, 0, error))))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Cannot create a memory file: %s",
                     g_strerror (errno));
      goto out;
    }
  if ((writer_fd = fcntl (frames_fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      (writer = sysprof_capture_writer_new_from_fd (writer_fd, 0)) == NULL ||
      /* Sysprof 3.46's reader, looking for a file, steps over the frame that
       * follows a chunk of another file: right after the daemon's kallsyms
       * chunks, our first chunk would be lost to it.  A TIMESTAMP frame in
       * between is what it steps over instead. */
      !sysprof_capture_writer_add_timestamp (writer, time, -1, -1))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Cannot encode the symbol table: %s",
                   g_strerror (errno));
      goto out;
    }
  for (guint i = 0; i < n_extra; i++)
    if (!add_file_bytes (writer, time, extra_paths[i], extra_contents[i], error) ||
        !sysprof_capture_writer_add_timestamp (writer, time, -1, -1))
      {
        if (error != NULL && *error == NULL)
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Cannot embed %s: %s", extra_paths[i],
                       g_strerror (errno));
        goto out;
      }
  if (!sysprof_capture_writer_add_file_fd (writer, time, -1, -1, SYMBOLS_PATH, table_fd) ||
      /* The same step for readers looking for a file after ours. */
      (frame_table_fd >= 0 &&
       (!sysprof_capture_writer_add_timestamp (writer, time, -1, -1) ||
        !sysprof_capture_writer_add_file_fd (writer, time, -1, -1, SYSPROF_FRAME_TABLE_PATH, frame_table_fd))) ||
      !sysprof_capture_writer_flush (writer) || fstat (frames_fd, &st) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Cannot encode the symbol table: %s",
                   g_strerror (errno));
      goto out;
    }
  {
    gsize   size = (gsize) st.st_size;
    guint8 *buf;

    if (size < sizeof (SysprofCaptureFileHeader))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot encode the symbol table");
        goto out;
      }
    buf = g_malloc (size);
    if (pread (frames_fd, buf, size, 0) != (ssize_t) size)
      {
        g_free (buf);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot encode the symbol table");
        goto out;
      }
    {
      g_autoptr (GBytes) all = g_bytes_new_take (buf, size);
      result =
          g_bytes_new_from_bytes (all, sizeof (SysprofCaptureFileHeader), size - sizeof (SysprofCaptureFileHeader));
    }
  }

out:
  sysprof_capture_writer_unref (writer);
  if (table_fd >= 0)
    close (table_fd);
  if (frame_table_fd >= 0)
    close (frame_table_fd);
  if (frames_fd >= 0)
    close (frames_fd);
  return g_steal_pointer (&result);
}

GBytes *
sysprof_symbol_map_build (int                      fd,
                          SysprofSymbolizer       *symbolizer,
                          SysprofSymbolMapProgress progress,
                          gpointer                 user_data,
                          GCancellable            *cancellable,
                          GError                 **error)
{
  g_autoptr (SysprofSymbolizer) owned = NULL;
  g_autoptr (GHashTable) sites = NULL;
  g_autoptr (GArray) ranges = NULL;
  g_autoptr (GArray) sorted = NULL;
  g_autoptr (GBytes) table = NULL;
  g_autoptr (GBytes) frame_table = NULL;
  g_autoptr (GError) local_error = NULL;
  GBytes               *frames = NULL;
  SysprofCaptureReader *reader;
  SysprofCaptureError   cerr = { 0 };
  int                   rfd;

  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (symbolizer == NULL || SYSPROF_IS_SYMBOLIZER (symbolizer), NULL);

  if ((rfd = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      (reader = sysprof_capture_reader_new_from_fd_with_error (rfd, &cerr)) == NULL)
    {
      sysprof_set_capture_error (error, &cerr, "Cannot read the capture");
      return NULL;
    }

  if (symbolizer == NULL)
    {
      owned = sysprof_symbolizer_new ();
      if (!sysprof_symbolizer_load (owned, reader, error))
        goto out;
      symbolizer = owned;
    }
  /* The symbolizer's pass over the capture already saw any table. */
  if (_sysprof_symbolizer_has_embedded_symbols (symbolizer))
    {
      frames = g_bytes_new (NULL, 0);
      goto out;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error) || (sites = collect_sites (reader, error)) == NULL)
    goto out;
  sorted = sort_sites (sites);
  if ((ranges = build_ranges (symbolizer, sorted, progress, user_data, cancellable, error)) == NULL)
    goto out;
  frame_table = build_frame_table (symbolizer, sorted, cancellable, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      goto out;
    }
  table = serialize (ranges);
  frames = frames_for_table (table, frame_table, symbolizer, sysprof_capture_reader_get_end_time (reader), error);

out:
  sysprof_capture_reader_unref (reader);
  return frames;
}

gboolean
sysprof_symbol_map_append (int fd, GBytes *frames, GError **error)
{
  gsize         len;
  const guint8 *data;
  off_t         end;

  g_return_val_if_fail (fd >= 0, FALSE);
  g_return_val_if_fail (frames != NULL, FALSE);

  data = g_bytes_get_data (frames, &len);
  if (len == 0)
    return TRUE;
  /* After everything the recorder wrote: the header stays valid and readers
   * meet the table as ordinary FILE_CHUNK frames. */
  if ((end = lseek (fd, 0, SEEK_END)) < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Cannot append to the capture: %s",
                   g_strerror (errno));
      return FALSE;
    }
  if (!write_all (fd, data, len, end, error))
    {
      /* Half a table would hide the end of the file from readers. */
      if (ftruncate (fd, end) != 0)
        g_prefix_error (error, "(and the capture could not be cut back to its %" G_GINT64_FORMAT " bytes) ",
                        (gint64) end);
      return FALSE;
    }
  return TRUE;
}

gboolean
sysprof_symbol_map_append_to_fd (int                      fd,
                                 SysprofSymbolizer       *symbolizer,
                                 SysprofSymbolMapProgress progress,
                                 gpointer                 user_data,
                                 GCancellable            *cancellable,
                                 GError                 **error)
{
  g_autoptr (GBytes) frames = sysprof_symbol_map_build (fd, symbolizer, progress, user_data, cancellable, error);

  return frames != NULL && sysprof_symbol_map_append (fd, frames, error);
}
