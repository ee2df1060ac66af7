// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>
#include <zlib.h>

#include <gio/gio.h>

#include "report-pprof.h"

/* Field numbers of profile.proto (github.com/google/pprof/proto). */
enum
{
  PROFILE_SAMPLE_TYPE = 1,
  PROFILE_SAMPLE = 2,
  PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4,
  PROFILE_FUNCTION = 5,
  PROFILE_STRING_TABLE = 6,
  PROFILE_TIME_NANOS = 9,
  PROFILE_DURATION_NANOS = 10,
  PROFILE_PERIOD_TYPE = 11,
  PROFILE_PERIOD = 12,
  PROFILE_COMMENT = 13,
  VALUE_TYPE_TYPE = 1,
  VALUE_TYPE_UNIT = 2,
  SAMPLE_LOCATION_ID = 1,
  SAMPLE_VALUE = 2,
  SAMPLE_LABEL = 3,
  LABEL_KEY = 1,
  LABEL_STR = 2,
  LABEL_NUM = 3,
  LABEL_NUM_UNIT = 4,
  MAPPING_ID = 1,
  MAPPING_MEMORY_START = 2,
  MAPPING_MEMORY_LIMIT = 3,
  MAPPING_FILE_OFFSET = 4,
  MAPPING_FILENAME = 5,
  MAPPING_BUILD_ID = 6,
  MAPPING_HAS_FUNCTIONS = 7,
  MAPPING_HAS_FILENAMES = 8,
  MAPPING_HAS_LINE_NUMBERS = 9,
  MAPPING_HAS_INLINE_FRAMES = 10,
  LOCATION_ID = 1,
  LOCATION_MAPPING_ID = 2,
  LOCATION_ADDRESS = 3,
  LOCATION_LINE = 4,
  LINE_FUNCTION_ID = 1,
  LINE_LINE = 2,
  FUNCTION_ID = 1,
  FUNCTION_NAME = 2,
  FUNCTION_SYSTEM_NAME = 3,
  FUNCTION_FILENAME = 4,
};

/* Protocol buffers' wire types. */
enum
{
  WIRE_VARINT = 0,
  WIRE_BYTES = 2,
};

typedef struct
{
  guint64             start;
  guint64             limit;
  guint64             offset;
  guint64             filename; /* string indexes */
  guint64             build_id;
  ReportPprofSymbolic symbolic; /* what all its locations know */
} Mapping;

struct _ReportPprof
{
  GHashTable *strings; /* char * -> index + 1 */
  GPtrArray  *string_table;
  /* Contents (GBytes) -> id, for interning. */
  GHashTable *mapping_ids;
  GHashTable *function_ids;
  GHashTable *location_ids;
  GArray     *mappings; /* Mapping, id - 1 */
  GByteArray *sample_types;
  GByteArray *samples;
  GByteArray *location_msgs;
  GByteArray *function_msgs;
  GByteArray *tail; /* time, duration, period, comments */
  guint       n_values;
};

static void
put_varint (GByteArray *out, guint64 v)
{
  guint8 buf[10];
  guint  n = 0;

  do
    {
      buf[n++] = (guint8) ((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    }
  while (v != 0);
  g_byte_array_append (out, buf, n);
}

static void
put_tag (GByteArray *out, guint field, guint wire)
{
  put_varint (out, ((guint64) field << 3) | wire);
}

/* A scalar field; proto3 leaves zeros out. */
static void
put_uint (GByteArray *out, guint field, guint64 v)
{
  if (v == 0)
    return;
  put_tag (out, field, WIRE_VARINT);
  put_varint (out, v);
}

static void
put_bytes (GByteArray *out, guint field, const guint8 *data, gsize len)
{
  put_tag (out, field, WIRE_BYTES);
  put_varint (out, len);
  g_byte_array_append (out, data, (guint) len);
}

/* An embedded message, consumed. */
static void
put_message (GByteArray *out, guint field, GByteArray *message)
{
  put_bytes (out, field, message->data, message->len);
  g_byte_array_unref (message);
}

ReportPprof *
report_pprof_new (void)
{
  ReportPprof *self = g_new0 (ReportPprof, 1);

  self->strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->string_table = g_ptr_array_new_with_free_func (g_free);
  self->mapping_ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  self->function_ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  self->location_ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  self->mappings = g_array_new (FALSE, FALSE, sizeof (Mapping));
  self->sample_types = g_byte_array_new ();
  self->samples = g_byte_array_new ();
  self->location_msgs = g_byte_array_new ();
  self->function_msgs = g_byte_array_new ();
  self->tail = g_byte_array_new ();
  /* Index 0 is "", as the format asks. */
  g_ptr_array_add (self->string_table, g_strdup (""));
  g_hash_table_insert (self->strings, g_strdup (""), GSIZE_TO_POINTER (1));
  return self;
}

void
report_pprof_free (ReportPprof *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->strings);
  g_ptr_array_unref (self->string_table);
  g_hash_table_unref (self->mapping_ids);
  g_hash_table_unref (self->function_ids);
  g_hash_table_unref (self->location_ids);
  g_array_unref (self->mappings);
  g_byte_array_unref (self->sample_types);
  g_byte_array_unref (self->samples);
  g_byte_array_unref (self->location_msgs);
  g_byte_array_unref (self->function_msgs);
  g_byte_array_unref (self->tail);
  g_free (self);
}

/* The index of @str in the string table (valid UTF-8: protobuf strings
 * must be). */
static guint64
string_index (ReportPprof *self, const char *str)
{
  g_autofree char *valid = NULL;
  gpointer         found;

  if (str == NULL || str[0] == '\0')
    return 0;
  if ((found = g_hash_table_lookup (self->strings, str)) != NULL)
    return GPOINTER_TO_SIZE (found) - 1;
  valid = g_utf8_make_valid (str, -1);
  g_ptr_array_add (self->string_table, g_steal_pointer (&valid));
  /* Keyed by the caller's spelling, which maps to the valid one. */
  g_hash_table_insert (self->strings, g_strdup (str), GSIZE_TO_POINTER (self->string_table->len));
  return self->string_table->len - 1;
}

static GByteArray *
value_type (ReportPprof *self, const char *type, const char *unit)
{
  GByteArray *m = g_byte_array_new ();

  put_uint (m, VALUE_TYPE_TYPE, string_index (self, type));
  put_uint (m, VALUE_TYPE_UNIT, string_index (self, unit));
  return m;
}

void
report_pprof_add_sample_type (ReportPprof *self, const char *type, const char *unit)
{
  put_message (self->sample_types, PROFILE_SAMPLE_TYPE, value_type (self, type, unit));
  self->n_values++;
}

void
report_pprof_set_period (ReportPprof *self, const char *type, const char *unit, gint64 period)
{
  put_message (self->tail, PROFILE_PERIOD_TYPE, value_type (self, type, unit));
  put_uint (self->tail, PROFILE_PERIOD, (guint64) period);
}

void
report_pprof_set_time (ReportPprof *self, gint64 time_nanos, gint64 duration_nanos)
{
  put_uint (self->tail, PROFILE_TIME_NANOS, (guint64) time_nanos);
  put_uint (self->tail, PROFILE_DURATION_NANOS, (guint64) duration_nanos);
}

void
report_pprof_add_comment (ReportPprof *self, const char *comment)
{
  put_tag (self->tail, PROFILE_COMMENT, WIRE_VARINT);
  put_varint (self->tail, string_index (self, comment));
}

/* The id of @key's contents in @ids, or 0 after inserting @id for it. */
static guint64
intern (GHashTable *ids, const guint64 *key, guint n, guint64 id)
{
  g_autoptr (GBytes) bytes = g_bytes_new (key, n * sizeof *key);
  gpointer found = g_hash_table_lookup (ids, bytes);

  if (found != NULL)
    return GPOINTER_TO_SIZE (found);
  g_hash_table_insert (ids, g_steal_pointer (&bytes), GSIZE_TO_POINTER ((gsize) id));
  return 0;
}

guint64
report_pprof_mapping (
    ReportPprof *self, guint64 start, guint64 limit, guint64 offset, const char *filename, const char *build_id)
{
  Mapping mapping = { start, limit, offset, string_index (self, filename), string_index (self, build_id), ~0u };
  guint64 key[] = { start, limit, offset, mapping.filename, mapping.build_id };
  guint64 id = self->mappings->len + 1;
  guint64 found = intern (self->mapping_ids, key, G_N_ELEMENTS (key), id);

  if (found != 0)
    return found;
  g_array_append_val (self->mappings, mapping);
  return id;
}

guint64
report_pprof_function (ReportPprof *self, const char *name, const char *filename)
{
  guint64     key[] = { string_index (self, name), string_index (self, filename) };
  guint64     id = g_hash_table_size (self->function_ids) + 1;
  guint64     found = intern (self->function_ids, key, G_N_ELEMENTS (key), id);
  GByteArray *function;

  if (found != 0)
    return found;
  function = g_byte_array_new ();
  put_uint (function, FUNCTION_ID, id);
  put_uint (function, FUNCTION_NAME, key[0]);
  put_uint (function, FUNCTION_SYSTEM_NAME, key[0]);
  put_uint (function, FUNCTION_FILENAME, key[1]);
  put_message (self->function_msgs, PROFILE_FUNCTION, function);
  return id;
}

guint64
report_pprof_location (ReportPprof           *self,
                       guint64                mapping,
                       guint64                address,
                       const ReportPprofLine *lines,
                       guint                  n_lines,
                       ReportPprofSymbolic    symbolic)
{
  g_autofree guint64 *key = g_new (guint64, 2 + 2 * n_lines);
  guint64             id = g_hash_table_size (self->location_ids) + 1;
  guint64             found;
  GByteArray         *location;

  g_return_val_if_fail (mapping <= self->mappings->len, 0);

  key[0] = mapping;
  key[1] = address;
  for (guint i = 0; i < n_lines; i++)
    {
      key[2 + 2 * i] = lines[i].function;
      key[3 + 2 * i] = lines[i].line;
    }
  if ((found = intern (self->location_ids, key, 2 + 2 * n_lines, id)) != 0)
    return found;
  if (mapping != 0)
    g_array_index (self->mappings, Mapping, mapping - 1).symbolic &= symbolic;

  location = g_byte_array_new ();
  put_uint (location, LOCATION_ID, id);
  put_uint (location, LOCATION_MAPPING_ID, mapping);
  put_uint (location, LOCATION_ADDRESS, address);
  for (guint i = 0; i < n_lines; i++)
    {
      GByteArray *line = g_byte_array_new ();

      put_uint (line, LINE_FUNCTION_ID, lines[i].function);
      put_uint (line, LINE_LINE, lines[i].line);
      put_message (location, LOCATION_LINE, line);
    }
  put_message (self->location_msgs, PROFILE_LOCATION, location);
  return id;
}

void
report_pprof_add_sample (ReportPprof            *self,
                         const guint64          *locations,
                         guint                   n_locations,
                         const gint64           *values,
                         const ReportPprofLabel *labels,
                         guint                   n_labels)
{
  GByteArray *sample = g_byte_array_new ();
  GByteArray *packed = g_byte_array_new ();

  /* Repeated scalars packed, as proto3 writes them. */
  for (guint i = 0; i < n_locations; i++)
    put_varint (packed, locations[i]);
  if (packed->len > 0)
    put_bytes (sample, SAMPLE_LOCATION_ID, packed->data, packed->len);
  g_byte_array_set_size (packed, 0);
  for (guint i = 0; i < self->n_values; i++)
    put_varint (packed, (guint64) values[i]);
  if (packed->len > 0)
    put_bytes (sample, SAMPLE_VALUE, packed->data, packed->len);
  g_byte_array_unref (packed);
  for (guint i = 0; i < n_labels; i++)
    {
      GByteArray *label = g_byte_array_new ();

      put_uint (label, LABEL_KEY, string_index (self, labels[i].key));
      if (labels[i].str != NULL)
        put_uint (label, LABEL_STR, string_index (self, labels[i].str));
      else
        {
          /* int64: a negative number is its two's complement. */
          put_uint (label, LABEL_NUM, (guint64) labels[i].num);
          put_uint (label, LABEL_NUM_UNIT, string_index (self, labels[i].num_unit));
        }
      put_message (sample, SAMPLE_LABEL, label);
    }
  put_message (self->samples, PROFILE_SAMPLE, sample);
}

/* pprof takes the mappings of one binary as one (Merge, on reading: the
 * same size rounded up to 4 KiB, offset, and build-id or else file) and
 * keeps the first one's has_* fields: those of each mapping say what the
 * locations of all the binary's mappings have (the same library in every
 * process, whatever its address). */
static void
merge_symbolic (ReportPprof *self)
{
  g_autoptr (GHashTable) binaries =
      g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);

  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < self->mappings->len; i++)
      {
        Mapping *mapping = &g_array_index (self->mappings, Mapping, i);
        guint64  key[] = { (mapping->limit - mapping->start + 0xfff) & ~G_GUINT64_CONSTANT (0xfff), mapping->offset,
                           mapping->build_id != 0, mapping->build_id != 0 ? mapping->build_id : mapping->filename };
        g_autoptr (GBytes) bytes = g_bytes_new (key, sizeof key);
        gpointer found = g_hash_table_lookup (binaries, bytes);

        /* With a bit above the flags: no flag at all is no NULL. */
        if (pass == 0)
          g_hash_table_insert (
              binaries, g_steal_pointer (&bytes),
              GUINT_TO_POINTER ((found != NULL ? GPOINTER_TO_UINT (found) : ~0u) & (mapping->symbolic | 0x100)));
        else
          mapping->symbolic = GPOINTER_TO_UINT (found) & 0xff;
      }
}

/* The mappings, once every location has said what it knows. */
static void
put_mappings (ReportPprof *self, GByteArray *out)
{
  merge_symbolic (self);
  for (guint i = 0; i < self->mappings->len; i++)
    {
      const Mapping *mapping = &g_array_index (self->mappings, Mapping, i);
      GByteArray    *m = g_byte_array_new ();

      put_uint (m, MAPPING_ID, i + 1);
      put_uint (m, MAPPING_MEMORY_START, mapping->start);
      put_uint (m, MAPPING_MEMORY_LIMIT, mapping->limit);
      put_uint (m, MAPPING_FILE_OFFSET, mapping->offset);
      put_uint (m, MAPPING_FILENAME, mapping->filename);
      put_uint (m, MAPPING_BUILD_ID, mapping->build_id);
      put_uint (m, MAPPING_HAS_FUNCTIONS, (mapping->symbolic & REPORT_PPROF_FUNCTIONS) != 0);
      put_uint (m, MAPPING_HAS_FILENAMES, (mapping->symbolic & REPORT_PPROF_FILENAMES) != 0);
      put_uint (m, MAPPING_HAS_LINE_NUMBERS, (mapping->symbolic & REPORT_PPROF_LINE_NUMBERS) != 0);
      put_uint (m, MAPPING_HAS_INLINE_FRAMES, (mapping->symbolic & REPORT_PPROF_INLINE_FRAMES) != 0);
      put_message (out, PROFILE_MAPPING, m);
    }
}

GBytes *
report_pprof_encode (ReportPprof *self, GError **error)
{
  g_autoptr (GByteArray) profile = g_byte_array_new ();
  g_autoptr (GByteArray) out = NULL;
  z_stream z = { 0 };
  int      ret;

  g_byte_array_append (profile, self->sample_types->data, self->sample_types->len);
  g_byte_array_append (profile, self->samples->data, self->samples->len);
  put_mappings (self, profile);
  g_byte_array_append (profile, self->location_msgs->data, self->location_msgs->len);
  g_byte_array_append (profile, self->function_msgs->data, self->function_msgs->len);
  for (guint i = 0; i < self->string_table->len; i++)
    {
      const char *s = self->string_table->pdata[i];

      put_bytes (profile, PROFILE_STRING_TABLE, (const guint8 *) s, strlen (s));
    }
  g_byte_array_append (profile, self->tail->data, self->tail->len);

  /* gzip (windowBits 15 + 16), as pprof writes its files. */
  if (deflateInit2 (&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot compress the profile: %s",
                   z.msg ? z.msg : "zlib refused to start");
      return NULL;
    }
  out = g_byte_array_sized_new ((guint) deflateBound (&z, profile->len));
  g_byte_array_set_size (out, (guint) deflateBound (&z, profile->len));
  z.next_in = profile->data;
  z.avail_in = profile->len;
  z.next_out = out->data;
  z.avail_out = out->len;
  ret = deflate (&z, Z_FINISH);
  if (ret != Z_STREAM_END)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot compress the profile: %s",
                   z.msg ? z.msg : "deflate did not finish");
      deflateEnd (&z);
      return NULL;
    }
  g_byte_array_set_size (out, (guint) z.total_out);
  deflateEnd (&z);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}
