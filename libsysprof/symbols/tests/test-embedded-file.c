// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof_embedded_file_read(): a file stored as it is (Sysprof 3.46), the
 * same file gzipped under PATH.gz in several chunks (Sysprof 45+), a plain
 * file preferred to its gzipped twin, and the failures: no such file,
 * damaged or truncated gzip data, a gzip bomb. */
#include <glib/gstdio.h>
#include <string.h>

#include <sysprof-symbols.h>

static GBytes *
gzip (const char *text, gsize len)
{
  g_autoptr (GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr (GOutputStream) memory = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) out = g_converter_output_stream_new (memory, G_CONVERTER (compressor));

  g_assert_true (g_output_stream_write_all (out, text, len, NULL, NULL, NULL));
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
}

/* Adds @data as @path in chunks of @chunk bytes. */
static void
add_file (SysprofCaptureWriter *writer, const char *path, const guint8 *data, gsize len, gsize chunk)
{
  gsize done = 0;

  do
    {
      gsize n = MIN (chunk, len - done);

      g_assert_true (sysprof_capture_writer_add_file (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1, path,
                                                      done + n == len, data + done, n));
      done += n;
    }
  while (done < len);
}

static void
add_bytes (SysprofCaptureWriter *writer, const char *path, GBytes *bytes, gsize chunk)
{
  gsize         len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  add_file (writer, path, data, len, chunk);
}

static void
test_read (void)
{
  g_autofree char *dir = g_dir_make_tmp ("test-embedded-file-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "files.syscap", NULL);
  g_autoptr (GString) kallsyms = g_string_new (NULL);
  g_autofree char *zeros = g_malloc0 (8 << 20);
  g_autoptr (GBytes) packed = NULL;
  g_autoptr (GBytes) bomb = NULL;
  g_autoptr (GBytes) got = NULL;
  g_autoptr (GError) error = NULL;
  SysprofCaptureWriter *writer = sysprof_capture_writer_new (path, 0);
  SysprofCaptureReader *reader;
  gsize                 len;

  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (kallsyms, "ffffffff8%07x T function_%u\n", i * 16, i);
  packed = gzip (kallsyms->str, kallsyms->len);
  g_assert_cmpuint (g_bytes_get_size (packed), >, 3 * 1000);
  bomb = gzip (zeros, 8 << 20);

  g_assert_nonnull (writer);
  add_file (writer, "/proc/mounts", (const guint8 *) "proc /proc proc rw 0 0\n", 23, 10);
  /* Chunks of 1000 bytes, with other frames between them. */
  {
    gsize         plen;
    const guint8 *pdata = g_bytes_get_data (packed, &plen);

    for (gsize done = 0; done < plen; done += 1000)
      {
        gsize n = MIN (1000, plen - done);

        g_assert_true (sysprof_capture_writer_add_file (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                                        "/proc/kallsyms.gz", done + n == plen, pdata + done, n));
        g_assert_true (sysprof_capture_writer_add_timestamp (writer, SYSPROF_CAPTURE_CURRENT_TIME, 0, 1));
      }
  }
  /* Both forms: the plain one wins. */
  add_file (writer, "/proc/cpuinfo", (const guint8 *) "plain\n", 6, 100);
  {
    g_autoptr (GBytes) twin = gzip ("gzipped\n", 8);

    add_bytes (writer, "/proc/cpuinfo.gz", twin, 100);
  }
  {
    static const char damaged[] = "\x1f\x8b\x08\x00 certainly not deflate data";

    add_file (writer, "/damaged.gz", (const guint8 *) damaged, sizeof damaged - 1, 100);
  }
  {
    g_autoptr (GBytes) whole = gzip ("some text that will be cut short", 32);

    add_file (writer, "/truncated.gz", g_bytes_get_data (whole, NULL), g_bytes_get_size (whole) - 12, 100);
  }
  add_bytes (writer, "/bomb.gz", bomb, 4000);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);

  got = sysprof_embedded_file_read (reader, "/proc/mounts", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (got, &len), len, "proc /proc proc rw 0 0\n", 23);
  g_clear_pointer (&got, g_bytes_unref);

  got = sysprof_embedded_file_read (reader, "/proc/kallsyms", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (got, &len), len, kallsyms->str, kallsyms->len);
  g_clear_pointer (&got, g_bytes_unref);

  got = sysprof_embedded_file_read (reader, "/proc/cpuinfo", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (got, &len), len, "plain\n", 6);
  g_clear_pointer (&got, g_bytes_unref);

  /* The stored name still reads as stored. */
  got = sysprof_embedded_file_read (reader, "/proc/cpuinfo.gz", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (got), >, 8);
  g_assert_cmpuint (((const guint8 *) g_bytes_get_data (got, NULL))[0], ==, 0x1f);
  g_clear_pointer (&got, g_bytes_unref);

  got = sysprof_embedded_file_read (reader, "/proc/missing", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (got);
  g_assert_nonnull (strstr (error->message, "/proc/missing"));
  g_clear_error (&error);

  got = sysprof_embedded_file_read (reader, "/damaged", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "/damaged.gz"));
  g_clear_error (&error);

  got = sysprof_embedded_file_read (reader, "/truncated", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* 8 MiB of zeros is fine by the default limit, refused by a smaller one. */
  got = sysprof_embedded_file_read (reader, "/bomb", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (got), ==, 8 << 20);
  g_clear_pointer (&got, g_bytes_unref);
  got = sysprof_gunzip (g_bytes_get_data (bomb, NULL), g_bytes_get_size (bomb), 1 << 20, "bomb", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_null (got);
  g_assert_nonnull (strstr (error->message, "bomb"));
  g_clear_error (&error);

  /* Two gzip members one after the other are one file; anything else
   * after the stream is damage. */
  {
    g_autoptr (GBytes) one = gzip ("first ", 6);
    g_autoptr (GBytes) two = gzip ("second\n", 7);
    g_autoptr (GByteArray) both = g_byte_array_new ();

    g_byte_array_append (both, g_bytes_get_data (one, NULL), g_bytes_get_size (one));
    g_byte_array_append (both, g_bytes_get_data (two, NULL), g_bytes_get_size (two));
    got = sysprof_gunzip (both->data, both->len, 1024, "members", &error);
    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (got, NULL), g_bytes_get_size (got), "first second\n", 13);
    g_clear_pointer (&got, g_bytes_unref);

    g_byte_array_set_size (both, g_bytes_get_size (one));
    g_byte_array_append (both, (const guint8 *) "junk", 4);
    got = sysprof_gunzip (both->data, both->len, 1024, "trailing", &error);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_null (got);
    g_clear_error (&error);
  }

  g_assert_true (sysprof_embedded_file_is_gzipped ("__symbols__.gz"));
  g_assert_false (sysprof_embedded_file_is_gzipped ("__symbols__"));
  g_assert_false (sysprof_embedded_file_is_gzipped (".gz"));

  sysprof_capture_reader_unref (reader);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/embedded-file/read", test_read);
  return g_test_run ();
}
