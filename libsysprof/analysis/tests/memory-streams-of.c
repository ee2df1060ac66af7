// SPDX-License-Identifier: GPL-3.0-or-later
/* Test helper: the memory streams of a capture of ALLOCATION frames (see
 * memory-streams-of.h), so that every analysis can be checked on both forms
 * of the same events. */
#include <string.h>

#include <sysprof-capture.h>

#include "memory-streams-of.h"

typedef struct
{
  gint32                     pid;
  gint32                     tid;
  SysprofMemoryStreamEncoder enc;
  guint8                     buffer[SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY];
  GHashTable                *stack_ids; /* GBytes of the frames → id */
  guint64                    next_id;
  guint                      n_events;
  guint                      n_blocks;
  gint64                     last_time;
} Stream;

static void
stream_free (gpointer data)
{
  Stream *s = data;

  g_hash_table_unref (s->stack_ids);
  g_free (s);
}

static void
stream_write (SysprofCaptureWriter *writer, Stream *s, gboolean is_last)
{
  char          path[256];
  const guint8 *data;
  gsize         len;
  guint8        z[2 * SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY];
  gsize         z_len = 0;

  data = sysprof_memory_stream_encoder_get_block (&s->enc, &len);
  /* Every other block compressed, when that pays. */
  if (s->n_blocks++ % 2 == 1)
    z_len = sysprof_memory_stream_compress (data, len, z, sizeof z, 1);
  g_assert_true (sysprof_memory_stream_format_path (path, sizeof path, s->tid));
  g_assert_true (sysprof_capture_writer_add_file (writer, s->last_time, -1, s->pid, path, is_last, z_len > 0 ? z : data,
                                                  z_len > 0 ? z_len : len));
  sysprof_memory_stream_encoder_clear (&s->enc);
}

/* Adds a record through @add, writing the block first when it is full. */
#define ADD(writer, s, call)             \
  G_STMT_START                           \
  {                                      \
    if (!(call))                         \
      {                                  \
        stream_write (writer, s, FALSE); \
        g_assert_true (call);            \
      }                                  \
  }                                      \
  G_STMT_END

static void
add_event (SysprofCaptureWriter *writer, Stream *s, const SysprofCaptureAllocation *a)
{
  const SysprofCaptureAddress *frames =
      (const SysprofCaptureAddress *) (gconstpointer) ((const guint8 *) a + sizeof *a);
  guint64 id = 0;

  if (a->alloc_size <= 0)
    ADD (writer, s, sysprof_memory_stream_encoder_add_release (&s->enc, a->frame.time, a->alloc_addr));
  else
    {
      if (a->n_addrs > 0)
        {
          g_autoptr (GBytes) key = g_bytes_new (frames, a->n_addrs * sizeof *frames);

          id = GPOINTER_TO_SIZE (g_hash_table_lookup (s->stack_ids, key));
          if (id == 0)
            {
              id = ++s->next_id;
              g_hash_table_insert (s->stack_ids, g_bytes_ref (key), GSIZE_TO_POINTER (id));
              ADD (writer, s, sysprof_memory_stream_encoder_add_stack (&s->enc, id, frames, a->n_addrs));
            }
        }
      ADD (writer, s,
           sysprof_memory_stream_encoder_add_allocation (&s->enc, a->frame.time, a->alloc_addr, (guint64) a->alloc_size,
                                                         id));
    }
  s->last_time = a->frame.time;
}

void
memory_streams_of (const char *frames_path, const char *streams_path, guint block_events, guint64 lost)
{
  SysprofCaptureReader *reader = sysprof_capture_reader_new (frames_path);
  SysprofCaptureWriter *writer = sysprof_capture_writer_new (streams_path, 0);
  g_autoptr (GHashTable) streams = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, stream_free);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  SysprofCaptureFrameType type;

  g_assert_nonnull (reader);
  g_assert_nonnull (writer);
  g_assert_true (sysprof_capture_writer_set_time_range (writer, sysprof_capture_reader_get_start_time (reader),
                                                        sysprof_capture_reader_get_end_time (reader)));
  g_assert_true (sysprof_capture_reader_reset (reader));
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureAllocation *a;
      gint64                          key;
      Stream                         *s;

      if (type != SYSPROF_CAPTURE_FRAME_ALLOCATION)
        {
          const SysprofCaptureFrame *frame = sysprof_capture_reader_read_frame (reader);

          g_assert_nonnull (frame);
          g_assert_true (sysprof_capture_writer_add_raw (writer, frame));
          continue;
        }
      a = sysprof_capture_reader_read_allocation (reader);
      g_assert_nonnull (a);
      key = (gint64) ((guint64) (guint32) a->frame.pid << 32 | (guint32) a->tid);
      if (!(s = g_hash_table_lookup (streams, &key)))
        {
          s = g_new0 (Stream, 1);
          s->pid = a->frame.pid;
          s->tid = a->tid;
          s->stack_ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
          g_assert_true (sysprof_memory_stream_encoder_init (&s->enc, s->buffer, sizeof s->buffer));
          if (lost > 0)
            g_assert_true (sysprof_memory_stream_encoder_add_lost (&s->enc, lost));
          g_hash_table_insert (streams, g_memdup2 (&key, sizeof key), s);
          g_ptr_array_add (order, s);
        }
      add_event (writer, s, a);
      if (++s->n_events % block_events == 0)
        stream_write (writer, s, FALSE);
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);
  for (guint i = order->len; i-- > 0;)
    stream_write (writer, g_ptr_array_index (order, i), TRUE);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  sysprof_capture_reader_unref (reader);
}
