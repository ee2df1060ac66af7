// SPDX-License-Identifier: GPL-3.0-or-later
/* capture-to-new-format IN OUT: rewrite a capture the way Sysprof 45+ lays
 * its captures out (test fixture generator).
 *
 * Debian 12 has no Sysprof newer than 3.46, so captures of the NEW line
 * cannot be recorded here; this produces one from a real 3.46 recording
 * with every difference between the two lines of the format (GNOME/sysprof
 * 45's capture writer against 3.46's):
 *   - embedded files gzipped and stored as PATH.gz, in chunks of
 *     32 KiB - 284 bytes (/proc/kallsyms.gz, /proc/PID/mountinfo.gz, ...);
 *   - MAP frames with a build-id suffix ("filename\0@\0": the NEW sampler's
 *     build-id is empty in practice);
 *   - reverse frame-index TIMESTAMP frames (padding2 = 0x53504958, the
 *     previous index's offset at +24, the newest one's offset in the header
 *     at +88), every FRAME_INDEX_INTERVAL frames instead of 65,536 so that
 *     small fixtures hold several;
 *   - the NEW metadata keys (org.gnome.sysprof.version, uname.*, n-cpu, ...);
 *   - frames of the two NEW types, TRACE and DBUS_MESSAGE.
 * Everything else is copied frame by frame, unchanged.  The header keeps
 * the input's start and end times, so times compare between the two. */

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sysprof-capture.h>

#define NEW_FILE_CHUNK_SIZE  (32 * 1024 - 284)
#define FRAME_INDEX_INTERVAL 100
#define HEADER_INDEX_OFFSET  88

typedef struct
{
  SysprofCaptureWriter *writer;
  guint64               n_frames;
  guint64               last_index;
  GHashTable           *files; /* path -> GByteArray, until its last chunk */
} Converter;

static void G_GNUC_NORETURN
die (const char *what)
{
  fprintf (stderr, "capture-to-new-format: %s: %s\n", what, g_strerror (errno));
  exit (1);
}

static void
check (gboolean ok, const char *what)
{
  if (!ok)
    die (what);
}

static void
add_frame_index (Converter *self, gint64 time)
{
  struct
  {
    SysprofCaptureFrame frame;
    guint64             previous;
  } index = { 0 };
  guint64 offset = sysprof_capture_writer_get_size (self->writer);

  index.frame.len = sizeof index;
  index.frame.cpu = -1;
  index.frame.pid = -1;
  index.frame.time = time;
  index.frame.type = SYSPROF_CAPTURE_FRAME_TIMESTAMP;
  index.frame.padding2 = SYSPROF_CAPTURE_FRAME_INDEX_MAGIC;
  index.previous = self->last_index;
  check (sysprof_capture_writer_add_raw (self->writer, &index.frame), "frame index");
  self->last_index = offset;
}

static void
count_frame (Converter *self, gint64 time)
{
  if (++self->n_frames % FRAME_INDEX_INTERVAL == 0)
    add_frame_index (self, time);
}

static GBytes *
gzip (const guint8 *data, gsize len)
{
  g_autoptr (GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
  g_autoptr (GOutputStream) memory = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) out = g_converter_output_stream_new (memory, G_CONVERTER (compressor));
  g_autoptr (GError) error = NULL;

  if (!g_output_stream_write_all (out, data, len, NULL, NULL, &error) || !g_output_stream_close (out, NULL, &error))
    {
      fprintf (stderr, "capture-to-new-format: gzip: %s\n", error->message);
      exit (1);
    }
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
}

static void
add_gzipped_file (Converter *self, const SysprofCaptureFileChunk *last, GByteArray *contents)
{
  g_autoptr (GBytes) packed = gzip (contents->data, contents->len);
  g_autofree char *path = g_strdup_printf ("%.*s.gz", (int) sizeof last->path - 4, last->path);
  gsize            size;
  const guint8    *data = g_bytes_get_data (packed, &size);
  gsize            done = 0;

  do
    {
      gsize n = MIN (size - done, NEW_FILE_CHUNK_SIZE);

      check (sysprof_capture_writer_add_file (self->writer, last->frame.time, last->frame.cpu, last->frame.pid, path,
                                              done + n == size, data + done, n),
             path);
      count_frame (self, last->frame.time);
      done += n;
    }
  while (done < size);
}

static void
convert_file_chunk (Converter *self, const SysprofCaptureFileChunk *chunk)
{
  g_autofree char *path = g_strndup (chunk->path, sizeof chunk->path);
  GByteArray      *contents = g_hash_table_lookup (self->files, path);

  if (contents == NULL)
    {
      contents = g_byte_array_new ();
      g_hash_table_insert (self->files, g_strdup (path), contents);
    }
  g_byte_array_append (contents, chunk->data, chunk->len);
  if (chunk->is_last)
    {
      add_gzipped_file (self, chunk, contents);
      g_hash_table_remove (self->files, path);
    }
}

static void
add_new_metadata (Converter *self, SysprofCaptureReader *reader, gint64 time)
{
  const char *entries[][2] = {
    { "org.gnome.sysprof.app-id", "org.gnome.Sysprof" },
    { "org.gnome.sysprof.version", "47.0 (emulated by capture-to-new-format)" },
    { "capture-time", sysprof_capture_reader_get_time (reader) },
    { "n-cpu", "2" },
    { "page-size", "4096" },
    { "buffer-size", "524288" },
    { "uname.sysname", "Linux" },
    { "uname.release", "6.1.0" },
    { "uname.machine", "x86_64" },
    { "hostname", "fixture-host" },
    { "spawnable.cwd", "/" },
    { "spawnable.argv", "sysprof-cli --no-battery -f" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      check (sysprof_capture_writer_add_metadata (self->writer, time, -1, -1, entries[i][0], entries[i][1], -1),
             entries[i][0]);
      count_frame (self, time);
    }
}

/* A D-Bus method call header as the NEW monitor stores it: the raw wire
 * message (little endian, METHOD_CALL, serial @serial, no body). */
static void
add_dbus_call (Converter *self, gint64 time, gint32 pid, guint32 serial)
{
  guint8 message[16] = { 'l', 1, 0, 1 };

  message[8] = serial & 0xff;
  message[9] = (serial >> 8) & 0xff;
  check (sysprof_capture_writer_add_dbus_message (self->writer, time, 0, pid, 2 /* GBusType session */, 0, message,
                                                  sizeof message),
         "D-Bus message");
  count_frame (self, time);
}

static void
convert (SysprofCaptureReader *reader, Converter *self)
{
  SysprofCaptureFrame frame;
  guint               n_samples = 0;
  gboolean            metadata_written = FALSE;

  while (sysprof_capture_reader_peek_frame (reader, &frame))
    {
      if (!metadata_written)
        {
          add_new_metadata (self, reader, frame.time);
          metadata_written = TRUE;
        }

      switch ((int) frame.type)
        {
        case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
          {
            const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);

            if (chunk == NULL)
              goto damaged;
            convert_file_chunk (self, chunk);
            continue;
          }

        case SYSPROF_CAPTURE_FRAME_MAP:
          {
            const SysprofCaptureMap *map = sysprof_capture_reader_read_map (reader);

            if (map == NULL)
              goto damaged;
            check (sysprof_capture_writer_add_map_with_build_id (self->writer, map->frame.time, map->frame.cpu,
                                                                 map->frame.pid, map->start, map->end, map->offset,
                                                                 map->inode, map->filename, ""),
                   "map");
            break;
          }

        case SYSPROF_CAPTURE_FRAME_SAMPLE:
          {
            const SysprofCaptureSample *sample = sysprof_capture_reader_read_sample (reader);

            if (sample == NULL)
              goto damaged;
            check (sysprof_capture_writer_add_raw (self->writer, &sample->frame), "sample");
            /* A few traced calls and D-Bus messages alongside the samples,
             * in their pids and at their times. */
            if (n_samples++ % 50 == 0)
              {
                /* The reader's frames are 8-byte aligned; the struct is
                 * packed, so its member's address may not be taken. */
                const SysprofCaptureAddress *addrs =
                    (const SysprofCaptureAddress *) (const void *) ((const guint8 *) sample + sizeof *sample);

                count_frame (self, sample->frame.time);
                check (sysprof_capture_writer_add_trace (self->writer, sample->frame.time, sample->frame.cpu,
                                                         sample->frame.pid, sample->tid, addrs, sample->n_addrs,
                                                         n_samples % 100 == 1),
                       "trace");
                count_frame (self, sample->frame.time);
                add_dbus_call (self, sample->frame.time, sample->frame.pid, n_samples);
                continue;
              }
            break;
          }

        default:
          {
            const SysprofCaptureFrame *raw = sysprof_capture_reader_read_frame (reader);

            if (raw == NULL)
              goto damaged;
            check (sysprof_capture_writer_add_raw (self->writer, raw), "frame");
            break;
          }
        }
      count_frame (self, frame.time);
    }

  if (sysprof_capture_reader_get_error (reader) != NULL && sysprof_capture_reader_get_error (reader)->code != 0)
    goto damaged;
  return;

damaged:
  fprintf (stderr, "capture-to-new-format: the input is damaged: %s\n",
           sysprof_capture_reader_get_error (reader) ? sysprof_capture_reader_get_error (reader)->message : "?");
  exit (1);
}

int
main (int argc, char **argv)
{
  SysprofCaptureReader *reader;
  Converter             self = { 0 };
  int                   fd;

  if (argc != 3)
    {
      fprintf (stderr, "usage: capture-to-new-format IN OUT\n");
      return 2;
    }
  reader = sysprof_capture_reader_new (argv[1]);
  if (reader == NULL)
    die (argv[1]);
  self.writer = sysprof_capture_writer_new (argv[2], 0);
  if (self.writer == NULL)
    die (argv[2]);
  self.files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_byte_array_unref);

  convert (reader, &self);
  if (g_hash_table_size (self.files) != 0)
    {
      fprintf (stderr, "capture-to-new-format: %s: an embedded file has no last chunk\n", argv[1]);
      return 1;
    }
  check (sysprof_capture_writer_set_time_range (self.writer, sysprof_capture_reader_get_start_time (reader),
                                                sysprof_capture_reader_get_end_time (reader)),
         "time range");
  check (sysprof_capture_writer_flush (self.writer), argv[2]);
  sysprof_capture_writer_unref (self.writer);
  sysprof_capture_reader_unref (reader);
  g_hash_table_unref (self.files);

  /* The header points at the newest index frame (little endian, as the
   * writer wrote the file on this host). */
  fd = open (argv[2], O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    die (argv[2]);
  {
    guint64 offset = GUINT64_TO_LE (self.last_index);

    if (pwrite (fd, &offset, sizeof offset, HEADER_INDEX_OFFSET) != sizeof offset)
      die (argv[2]);
  }
  close (fd);
  return 0;
}
