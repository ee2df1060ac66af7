// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-embedded-file.h"

gboolean
sysprof_embedded_file_is_gzipped (const char *stored_path)
{
  g_return_val_if_fail (stored_path != NULL, FALSE);

  return g_str_has_suffix (stored_path, ".gz") && strlen (stored_path) > 3;
}

GBytes *
sysprof_gunzip (const guint8 *data, gsize len, gsize max_size, const char *what, GError **error)
{
  g_autoptr (GZlibDecompressor) decompressor = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  gsize in_done = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  for (;;)
    {
      g_autoptr (GError) local_error = NULL;
      guint8           buffer[65536];
      gsize            read = 0, written = 0;
      GConverterResult result;

      result = g_converter_convert (G_CONVERTER (decompressor), data + in_done, len - in_done, buffer, sizeof buffer,
                                    G_CONVERTER_INPUT_AT_END, &read, &written, &local_error);
      if (result == G_CONVERTER_ERROR)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: damaged gzip data: %s", what,
                       local_error->message);
          return NULL;
        }
      in_done += read;
      if (written > max_size - MIN (out->len, max_size))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: decompresses to more than %" G_GSIZE_FORMAT " MiB, refused", what, max_size >> 20);
          return NULL;
        }
      g_byte_array_append (out, buffer, (guint) written);
      if (result == G_CONVERTER_FINISHED)
        {
          /* RFC 1952 allows several members one after the other. */
          if (in_done == len)
            break;
          if (len - in_done < 2 || data[in_done] != 0x1f || data[in_done + 1] != 0x8b)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: data after the end of the gzip stream",
                           what);
              return NULL;
            }
          g_converter_reset (G_CONVERTER (decompressor));
          continue;
        }
      /* Every input consumed and nothing more coming: the stream was cut. */
      if (read == 0 && written == 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: truncated gzip data", what);
          return NULL;
        }
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* The chunks of @path, concatenated; FALSE when there is none. */
static gboolean
collect_chunks (SysprofCaptureReader *reader, const char *path, GByteArray *out)
{
  SysprofCaptureFrameType        type;
  const SysprofCaptureFileChunk *first;

  sysprof_capture_reader_reset (reader);
  if ((first = sysprof_capture_reader_find_file (reader, path)) == NULL)
    return FALSE;
  g_byte_array_append (out, first->data, first->len);
  if (first->is_last)
    return TRUE;
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureFileChunk *chunk;

      if (type != SYSPROF_CAPTURE_FRAME_FILE_CHUNK || (chunk = sysprof_capture_reader_read_file (reader)) == NULL)
        {
          /* Another frame, or a damaged chunk: stepped over. */
          if (!sysprof_capture_reader_skip (reader))
            break;
          continue;
        }
      if (strncmp (chunk->path, path, sizeof chunk->path) != 0)
        continue;
      g_byte_array_append (out, chunk->data, chunk->len);
      if (chunk->is_last)
        break;
    }
  return TRUE;
}

GBytes *
sysprof_embedded_file_read (SysprofCaptureReader *reader, const char *path, GError **error)
{
  g_autoptr (GByteArray) contents = g_byte_array_new ();
  g_autofree char *gz_path = NULL;

  g_return_val_if_fail (reader != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (collect_chunks (reader, path, contents))
    return g_byte_array_free_to_bytes (g_steal_pointer (&contents));
  gz_path = g_strconcat (path, ".gz", NULL);
  if (collect_chunks (reader, gz_path, contents))
    return sysprof_gunzip (contents->data, contents->len, SYSPROF_EMBEDDED_FILE_MAX_SIZE, gz_path, error);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "The capture embeds no file %s", path);
  return NULL;
}
