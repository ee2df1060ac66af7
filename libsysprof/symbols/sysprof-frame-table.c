// SPDX-License-Identifier: GPL-3.0-or-later
/* The `__symbol_frames__` table (layout in sysprof-frame-table-private.h).
 *
 * A separate file rather than a new version of `__symbols__`: Sysprof 3.46
 * reads `__symbols__` with no version field and no way to skip what it does
 * not know, so that file keeps its established format (outermost function
 * per range, unnamed functions of stripped code as "lib+0xSTART"), and what
 * it cannot carry lives here, where a version field lets later formats be
 * told apart.  The reader validates everything once at load, so lookups
 * index without checks. */

#include <string.h>

#include "sysprof-frame-table-private.h"

#define MAGIC       "SPFRAMES"
#define HEADER_SIZE 32
#define RECORD_SIZE 32
#define FRAME_SIZE  24

typedef struct
{
  guint64 begin;
  guint64 end;
  gint32  pid;
  guint32 first;
  guint32 n;
  guint32 reserved;
} Record;

typedef struct
{
  guint32 name;
  guint32 library;
  guint32 file;
  guint32 line;
  guint32 kind;
  guint32 reserved;
} Frame;

G_STATIC_ASSERT (sizeof (Record) == RECORD_SIZE);
G_STATIC_ASSERT (sizeof (Frame) == FRAME_SIZE);

struct _SysprofFrameTable
{
  GBytes        *bytes; /* ours, converted to host order in place */
  const Record  *records;
  guint32        n_records;
  const Frame   *frames;
  guint32        n_frames;
  const guint32 *links;
  guint32        n_links;
  const char    *strings;
  guint32        strings_size;
};

static gboolean
invalid (GError **error, const char *why)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", SYSPROF_FRAME_TABLE_PATH, why);
  return FALSE;
}

static guint32
get_u32 (const guint8 *p, gboolean swap)
{
  guint32 v;

  memcpy (&v, p, sizeof v);
  return swap ? GUINT32_SWAP_LE_BE (v) : v;
}

static gboolean
string_ok (const SysprofFrameTable *self, guint32 offset)
{
  return offset < self->strings_size;
}

static gboolean
validate (SysprofFrameTable *self, GError **error)
{
  for (guint32 i = 0; i < self->n_frames; i++)
    {
      const Frame *f = &self->frames[i];

      if (!string_ok (self, f->name) || !string_ok (self, f->library) || !string_ok (self, f->file))
        return invalid (error, "a string offset past the string table");
      if (self->strings[f->name] == '\0')
        return invalid (error, "a frame without a name");
      if (f->kind != SYSPROF_SYMBOL_USER && f->kind != SYSPROF_SYMBOL_UNRESOLVED)
        return invalid (error, "a frame of an unknown kind");
    }
  for (guint32 i = 0; i < self->n_links; i++)
    if (self->links[i] >= self->n_frames)
      return invalid (error, "a link to a frame that does not exist");
  for (guint32 i = 0; i < self->n_records; i++)
    {
      const Record *r = &self->records[i];

      if (r->begin >= r->end)
        return invalid (error, "an empty range");
      if (r->n > SYSPROF_FRAME_TABLE_MAX_FRAMES)
        return invalid (error, "a chain of too many frames");
      if (r->first > self->n_links || r->n > self->n_links - r->first)
        return invalid (error, "a chain past the links");
      if (i > 0)
        {
          const Record *p = &self->records[i - 1];

          if (p->pid > r->pid || (p->pid == r->pid && p->end > r->begin))
            return invalid (error, "records out of order or overlapping");
        }
    }
  return TRUE;
}

SysprofFrameTable *
_sysprof_frame_table_new (GBytes *bytes, gboolean swap, GError **error)
{
  g_autoptr (SysprofFrameTable) self = NULL;
  const guint8 *data;
  guint8       *copy;
  gsize         size;
  guint64       need;
  guint32       version;

  g_return_val_if_fail (bytes != NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (size < HEADER_SIZE || memcmp (data, MAGIC, 8) != 0)
    {
      invalid (error, "not a frame table");
      return NULL;
    }
  version = get_u32 (data + 8, swap);
  if (version != SYSPROF_FRAME_TABLE_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: version %u, this reader knows version %u",
                   SYSPROF_FRAME_TABLE_PATH, version, SYSPROF_FRAME_TABLE_VERSION);
      return NULL;
    }

  self = g_new0 (SysprofFrameTable, 1);
  self->n_records = get_u32 (data + 12, swap);
  self->n_frames = get_u32 (data + 16, swap);
  self->n_links = get_u32 (data + 20, swap);
  self->strings_size = get_u32 (data + 24, swap);
  /* 64-bit sums of 32-bit counts cannot overflow. */
  need = HEADER_SIZE + (guint64) self->n_records * RECORD_SIZE + (guint64) self->n_frames * FRAME_SIZE +
         (guint64) self->n_links * 4 + self->strings_size;
  if (need != size)
    {
      invalid (error, "its size is not what its header says (truncated?)");
      return NULL;
    }
  if (self->strings_size == 0 || data[size - 1] != '\0' || data[size - self->strings_size] != '\0')
    {
      invalid (error, "a string table that does not start and end with NUL");
      return NULL;
    }

  /* Ours to convert, and 8-byte aligned for the records. */
  copy = g_malloc (size);
  memcpy (copy, data, size);
  self->bytes = g_bytes_new_take (copy, size);
  self->records = (const Record *) (gconstpointer) (copy + HEADER_SIZE);
  self->frames = (const Frame *) (gconstpointer) (copy + HEADER_SIZE + (gsize) self->n_records * RECORD_SIZE);
  self->links = (const guint32 *) (gconstpointer) ((const guint8 *) self->frames + (gsize) self->n_frames * FRAME_SIZE);
  self->strings = (const char *) (self->links + self->n_links);

  if (swap)
    {
      Record  *r = (Record *) (gpointer) self->records;
      guint32 *words = (guint32 *) (gpointer) self->frames;

      for (guint32 i = 0; i < self->n_records; i++)
        {
          r[i].begin = GUINT64_SWAP_LE_BE (r[i].begin);
          r[i].end = GUINT64_SWAP_LE_BE (r[i].end);
          r[i].pid = (gint32) GUINT32_SWAP_LE_BE ((guint32) r[i].pid);
          r[i].first = GUINT32_SWAP_LE_BE (r[i].first);
          r[i].n = GUINT32_SWAP_LE_BE (r[i].n);
        }
      /* Frames and links are all 32-bit words, one after the other. */
      for (guint64 i = 0; i < (guint64) self->n_frames * (FRAME_SIZE / 4) + self->n_links; i++)
        words[i] = GUINT32_SWAP_LE_BE (words[i]);
    }

  if (!validate (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

void
_sysprof_frame_table_free (SysprofFrameTable *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_free (self);
}

guint
_sysprof_frame_table_get_n_records (SysprofFrameTable *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_records;
}

gboolean
_sysprof_frame_table_lookup (
    SysprofFrameTable *self, gint32 pid, guint64 address, guint *record, guint64 *begin, guint64 *end, guint *n_frames)
{
  guint32 lo = 0, hi;

  g_return_val_if_fail (self != NULL, FALSE);

  hi = self->n_records;
  while (lo < hi)
    {
      guint32       mid = lo + (hi - lo) / 2;
      const Record *r = &self->records[mid];

      if (r->pid < pid || (r->pid == pid && r->end <= address))
        lo = mid + 1;
      else if (r->pid > pid || r->begin > address)
        hi = mid;
      else
        {
          *record = mid;
          *begin = r->begin;
          *end = r->end;
          *n_frames = r->n;
          return TRUE;
        }
    }
  return FALSE;
}

void
_sysprof_frame_table_get_frame (SysprofFrameTable *self,
                                guint              record,
                                guint              i,
                                const char       **name,
                                const char       **library,
                                const char       **file,
                                guint             *line,
                                SysprofSymbolKind *kind)
{
  const Frame *f;

  g_return_if_fail (self != NULL);
  g_return_if_fail (record < self->n_records && i < self->records[record].n);

  f = &self->frames[self->links[self->records[record].first + i]];
  *name = self->strings + f->name;
  *library = self->strings + f->library;
  *file = f->file != 0 && self->strings[f->file] != '\0' ? self->strings + f->file : NULL;
  *line = *file != NULL ? f->line : 0;
  *kind = (SysprofSymbolKind) f->kind;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

struct _SysprofFrameTableBuilder
{
  GArray     *records; /* Record */
  GArray     *frames;  /* Frame */
  GArray     *links;   /* guint32 */
  GByteArray *strings;
  GHashTable *string_offsets; /* string -> offset */
  GHashTable *frame_indexes;  /* const SysprofSymbolFrame * -> index + 1 */
};

SysprofFrameTableBuilder *
_sysprof_frame_table_builder_new (void)
{
  SysprofFrameTableBuilder *self = g_new0 (SysprofFrameTableBuilder, 1);

  self->records = g_array_new (FALSE, FALSE, sizeof (Record));
  self->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  self->links = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->strings = g_byte_array_new ();
  g_byte_array_append (self->strings, (const guint8 *) "", 1);
  self->string_offsets = g_hash_table_new (g_str_hash, g_str_equal);
  self->frame_indexes = g_hash_table_new (NULL, NULL);
  return self;
}

void
_sysprof_frame_table_builder_free (SysprofFrameTableBuilder *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->records);
  g_array_unref (self->frames);
  g_array_unref (self->links);
  g_byte_array_unref (self->strings);
  g_hash_table_unref (self->string_offsets);
  g_hash_table_unref (self->frame_indexes);
  g_free (self);
}

/* The strings are the symbolizer's, interned: they outlive the builder. */
static guint32
add_string (SysprofFrameTableBuilder *self, const char *str)
{
  gpointer found;
  guint32  offset;

  if (str == NULL || str[0] == '\0')
    return 0;
  if (g_hash_table_lookup_extended (self->string_offsets, str, NULL, &found))
    return GPOINTER_TO_UINT (found);
  offset = self->strings->len;
  g_byte_array_append (self->strings, (const guint8 *) str, (guint) strlen (str) + 1);
  g_hash_table_insert (self->string_offsets, (gpointer) str, GUINT_TO_POINTER (offset));
  return offset;
}

static guint32
add_frame (SysprofFrameTableBuilder *self, const SysprofSymbolFrame *frame)
{
  gpointer found = g_hash_table_lookup (self->frame_indexes, frame);
  Frame    f = { 0 };

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  f.name = add_string (self, frame->symbol->name);
  f.library = add_string (self, frame->symbol->library);
  f.file = add_string (self, frame->file);
  f.line = f.file != 0 ? frame->line : 0;
  f.kind = frame->symbol->kind == SYSPROF_SYMBOL_UNRESOLVED ? SYSPROF_SYMBOL_UNRESOLVED : SYSPROF_SYMBOL_USER;
  g_array_append_val (self->frames, f);
  g_hash_table_insert (self->frame_indexes, (gpointer) frame, GUINT_TO_POINTER (self->frames->len));
  return self->frames->len - 1;
}

void
_sysprof_frame_table_builder_add (SysprofFrameTableBuilder        *self,
                                  gint32                           pid,
                                  guint64                          begin,
                                  guint64                          end,
                                  const SysprofSymbolFrame *const *frames,
                                  guint                            n_frames)
{
  guint32 links[SYSPROF_FRAME_TABLE_MAX_FRAMES];
  Record  record = { begin, end, pid, self->links->len, 0, 0 };
  Record *last = self->records->len > 0 ? &g_array_index (self->records, Record, self->records->len - 1) : NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (begin < end);
  g_return_if_fail (last == NULL || last->pid < pid || (last->pid == pid && last->end <= begin));

  n_frames = MIN (n_frames, SYSPROF_FRAME_TABLE_MAX_FRAMES);
  /* Names are required; a frame without one cannot be written. */
  for (guint i = 0; i < n_frames; i++)
    if (frames[i]->symbol->name[0] == '\0')
      return;
  for (guint i = 0; i < n_frames; i++)
    links[i] = add_frame (self, frames[i]);
  /* memcmp of 0 bytes still wants valid pointers, which an empty array has not. */
  if (last != NULL && last->pid == pid && last->end == begin && last->n == n_frames &&
      (n_frames == 0 ||
       memcmp (&g_array_index (self->links, guint32, last->first), links, n_frames * sizeof links[0]) == 0))
    {
      last->end = end;
      return;
    }
  record.n = n_frames;
  g_array_append_vals (self->links, links, n_frames);
  g_array_append_val (self->records, record);
}

guint
_sysprof_frame_table_builder_get_n_records (SysprofFrameTableBuilder *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->records->len;
}

GBytes *
_sysprof_frame_table_builder_finish (SysprofFrameTableBuilder *self)
{
  GByteArray *out = g_byte_array_new ();
  guint32     header[6] = { SYSPROF_FRAME_TABLE_VERSION, self->records->len,
                            self->frames->len,           self->links->len,
                            self->strings->len,          0 };

  g_byte_array_append (out, (const guint8 *) MAGIC, 8);
  g_byte_array_append (out, (const guint8 *) header, sizeof header);
  g_byte_array_append (out, (const guint8 *) self->records->data, self->records->len * RECORD_SIZE);
  g_byte_array_append (out, (const guint8 *) self->frames->data, self->frames->len * FRAME_SIZE);
  g_byte_array_append (out, (const guint8 *) self->links->data, self->links->len * 4);
  g_byte_array_append (out, self->strings->data, self->strings->len);
  return g_byte_array_free_to_bytes (out);
}
