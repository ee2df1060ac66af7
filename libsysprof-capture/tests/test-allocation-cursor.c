// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofAllocationCursor over captures written with the real writer:
 * ALLOCATION frames and memory streams (raw and zstd blocks) merged in time
 * order, blocks of an idle thread written late, thread ids used again,
 * thousands of threads, hostile blocks and paths, truncated captures. */

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include <sysprof-capture.h>

/* GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

/* ------------------------------------------------------------------------ */
/* Writing streams with the library's encoder */

typedef struct
{
  SysprofCaptureWriter      *writer;
  int32_t                    pid;
  int32_t                    tid;
  SysprofMemoryStreamEncoder enc;
  guint8                     buffer[4096];
} Stream;

static Stream *
stream_new (SysprofCaptureWriter *writer, int32_t pid, int32_t tid)
{
  Stream *s = g_new0 (Stream, 1);

  s->writer = writer;
  s->pid = pid;
  s->tid = tid;
  g_assert_true (sysprof_memory_stream_encoder_init (&s->enc, s->buffer, sizeof s->buffer));
  return s;
}

/* Writes the stream's block as a FILE_CHUNK at @time, zstd-compressed when
 * @compress. */
static void
stream_write (Stream *s, int64_t time, gboolean is_last, gboolean compress)
{
  char          path[256];
  const guint8 *data;
  gsize         len;
  guint8        z[8192];

  data = sysprof_memory_stream_encoder_get_block (&s->enc, &len);
  if (compress)
    {
      len = sysprof_memory_stream_compress (data, len, z, sizeof z, 3);
      g_assert_cmpuint (len, >, 0);
      data = z;
    }
  g_assert_true (sysprof_memory_stream_format_path (path, sizeof path, s->tid));
  g_assert_true (sysprof_capture_writer_add_file (s->writer, time, -1, s->pid, path, is_last, data, len));
  sysprof_memory_stream_encoder_clear (&s->enc);
}

static void
stream_alloc (Stream *s, int64_t time, guint64 address, guint64 size, guint64 stack)
{
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&s->enc, time, address, size, stack));
}

static void
stream_free (Stream *s, int64_t time, guint64 address)
{
  g_assert_true (sysprof_memory_stream_encoder_add_release (&s->enc, time, address));
}

static void
stream_stack (Stream *s, guint64 id, const SysprofCaptureAddress *frames, guint n)
{
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&s->enc, id, frames, n));
}

/* ------------------------------------------------------------------------ */
/* Reading */

static void
clear_event (gpointer data)
{
  SysprofAllocationEvent *e = data;

  g_free ((gpointer) e->frames);
}

/* Every event of @path, with a copy of its frames; in time order unless it
 * holds ALLOCATION frames that are not (@sorted false). */
static GArray *
read_events (const char *path, gboolean sorted, SysprofAllocationCursorStats *stats, char **error)
{
  SysprofCaptureReader    *reader = sysprof_capture_reader_new (path);
  SysprofAllocationCursor *cursor;
  SysprofAllocationEvent   event;
  GArray                  *events = g_array_new (FALSE, TRUE, sizeof (SysprofAllocationEvent));
  int64_t                  last = G_MININT64;

  g_array_set_clear_func (events, clear_event);
  g_assert_nonnull (reader);
  cursor = sysprof_allocation_cursor_new (reader);
  g_assert_nonnull (cursor);
  while (sysprof_allocation_cursor_next (cursor, &event))
    {
      g_assert_true ((event.n_frames == 0) == (event.frames == NULL));
      g_assert_cmpuint (sysprof_allocation_cursor_get_offset (cursor), ==, event.offset);
      if (sorted)
        g_assert_cmpint (event.time, >=, last);
      last = event.time;
      event.frames = g_memdup2 (event.frames, event.n_frames * sizeof *event.frames);
      g_array_append_val (events, event);
    }
  /* The end stays the end. */
  g_assert_false (sysprof_allocation_cursor_next (cursor, &event));
  if (stats != NULL)
    sysprof_allocation_cursor_get_stats (cursor, stats);
  if (error != NULL)
    *error = g_strdup (sysprof_allocation_cursor_get_error (cursor));
  sysprof_allocation_cursor_unref (cursor);
  sysprof_capture_reader_unref (reader);
  return events;
}

static GArray *
read_all (const char *path, SysprofAllocationCursorStats *stats, char **error)
{
  return read_events (path, TRUE, stats, error);
}

/* Compares what was read with @expected (time, pid, tid, address, size,
 * frames). */
static void
assert_events (GArray *got, const SysprofAllocationEvent *expected, guint n)
{
  for (guint i = 0; i < MIN (got->len, n); i++)
    {
      const SysprofAllocationEvent *g = &g_array_index (got, SysprofAllocationEvent, i);
      const SysprofAllocationEvent *e = &expected[i];

      if (g->time != e->time || g->pid != e->pid || g->tid != e->tid || g->address != e->address ||
          g->size != e->size || g->n_frames != e->n_frames ||
          (e->n_frames > 0 && memcmp (g->frames, e->frames, e->n_frames * sizeof *e->frames) != 0))
        g_error ("event %u: got time %" G_GINT64_FORMAT " pid %d tid %d address 0x%" G_GINT64_MODIFIER
                 "x size %" G_GINT64_FORMAT " %u frames, expected time %" G_GINT64_FORMAT
                 " pid %d tid %d address 0x%" G_GINT64_MODIFIER "x size %" G_GINT64_FORMAT
                 " %u frames (or other frames)",
                 i, g->time, g->pid, g->tid, g->address, g->size, g->n_frames, e->time, e->pid, e->tid, e->address,
                 e->size, e->n_frames);
    }
  g_assert_cmpuint (got->len, ==, n);
}

/* Offsets of the frames of @path, in order. */
static GArray *
frame_offsets (const char *path)
{
  SysprofCaptureReader   *reader = sysprof_capture_reader_new (path);
  SysprofCaptureFrameType type;
  GArray                 *offsets = g_array_new (FALSE, FALSE, sizeof (guint64));

  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      guint64 offset = sysprof_capture_reader_get_offset (reader);

      g_array_append_val (offsets, offset);
      sysprof_capture_reader_skip (reader);
    }
  sysprof_capture_reader_unref (reader);
  return offsets;
}

/* ------------------------------------------------------------------------ */

static const SysprofCaptureAddress stack_a[] = { 0xa1, 0xa2, 0xa3 };
static const SysprofCaptureAddress stack_b[] = { 0xb1 };
static const SysprofCaptureAddress stack_c[] = { 0xc1, 0xc2 };
static const SysprofCaptureAddress stack_p[] = { 0xf1, 0xf2 };

/* Capture order, and what it holds (time: event):
 *   P1 ALLOCATION 5 | C1 raw: 11, 21 | P2 ALLOCATION 30 | A1: 10, 20, 30 |
 *   A2: 40, 50 | C2 zstd: 50, 60 | P3 ALLOCATION 55 |
 *   B (an idle thread's only block, written last): 12, 22, 32, 42 | A3: the
 *   end of A, no event.
 * Ties: P2 before A's 30 and A's 50 before C's, by capture order. */
static void
test_merge (void)
{
  g_autofree char             *path = tmp_path ("merge.syscap");
  SysprofCaptureWriter        *w = sysprof_capture_writer_new (path, 0);
  Stream                      *a = stream_new (w, 100, 101);
  Stream                      *b = stream_new (w, 100, 102);
  Stream                      *c = stream_new (w, 200, 201);
  SysprofAllocationCursorStats stats;
  g_autofree char             *error = NULL;
  g_autoptr (GArray) events = NULL;
  const SysprofAllocationEvent expected[] = {
    { 5, 50, 51, 0x5005, 8, stack_p, 2 },     { 10, 100, 101, 0x1010, 16, stack_a, 3 },
    { 11, 200, 201, 0x2011, 24, stack_c, 2 }, { 12, 100, 102, 0x3012, 32, stack_b, 1 },
    { 20, 100, 101, 0x1010, 0, NULL, 0 },     { 21, 200, 201, 0x2011, 0, NULL, 0 },
    { 22, 100, 102, 0x3012, 0, NULL, 0 },     { 30, 50, 51, 0x5005, 0, NULL, 0 },
    { 30, 100, 101, 0x1030, 48, stack_a, 3 }, { 32, 100, 102, 0x3032, 64, NULL, 0 },
    { 40, 100, 101, 0x1040, 72, stack_a, 3 }, { 42, 100, 102, 0x3032, 0, NULL, 0 },
    { 50, 100, 101, 0x1030, 0, NULL, 0 },     { 50, 200, 201, 0x2050, 80, stack_c, 2 },
    { 55, 50, 51, 0x5055, 96, stack_p, 2 },   { 60, 200, 201, 0x2050, 0, NULL, 0 },
  };

  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 5, 0, 50, 51, 0x5005, 8, stack_p, 2));

  stream_stack (c, 1, stack_c, 2);
  stream_alloc (c, 11, 0x2011, 24, 1);
  stream_free (c, 21, 0x2011);
  stream_write (c, 25, false, false);

  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 30, 1, 50, 51, 0x5005, 0, NULL, 0));

  stream_stack (a, 1, stack_a, 3);
  stream_alloc (a, 10, 0x1010, 16, 1);
  stream_free (a, 20, 0x1010);
  stream_alloc (a, 30, 0x1030, 48, 1);
  stream_write (a, 35, false, false);
  /* Id 1 of A, defined in its first block. */
  stream_alloc (a, 40, 0x1040, 72, 1);
  stream_free (a, 50, 0x1030);
  stream_write (a, 52, false, false);

  stream_alloc (c, 50, 0x2050, 80, 1);
  stream_free (c, 60, 0x2050);
  stream_write (c, 61, true, true);

  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 55, 0, 50, 51, 0x5055, 96, stack_p, 2));

  stream_stack (b, 1, stack_b, 1);
  stream_alloc (b, 12, 0x3012, 32, 1);
  stream_free (b, 22, 0x3012);
  stream_alloc (b, 32, 0x3032, 64, 0);
  stream_free (b, 42, 0x3032);
  stream_write (b, 100, true, false);

  stream_write (a, 101, true, false);
  sysprof_capture_writer_unref (w);

  events = read_all (path, &stats, &error);
  assert_events (events, expected, G_N_ELEMENTS (expected));
  g_assert_null (error);
  g_assert_cmpuint (stats.events, ==, G_N_ELEMENTS (expected));
  g_assert_cmpuint (stats.allocation_frames, ==, 3);
  g_assert_cmpuint (stats.streams, ==, 3);
  g_assert_cmpuint (stats.blocks, ==, 6);
  g_assert_cmpuint (stats.errors, ==, 0);
  g_assert_cmpuint (stats.stacks, ==, 3);
  g_assert_cmpuint (stats.lost, ==, 0);

  g_free (a);
  g_free (b);
  g_free (c);
}

/* A thread id used again after is_last is a new stream, whose ids start
 * afresh; without is_last, defining id 1 again is an error (which ends its
 * block, event included). */
static void
test_tid_reuse (void)
{
  g_autofree char             *path = tmp_path ("reuse.syscap");
  SysprofCaptureWriter        *w = sysprof_capture_writer_new (path, 0);
  Stream                      *s = stream_new (w, 300, 7);
  SysprofAllocationCursorStats stats;
  g_autofree char             *error = NULL;
  g_autoptr (GArray) events = NULL;
  g_autoptr (GArray) offsets = NULL;
  g_autofree char             *want = NULL;
  const SysprofAllocationEvent expected[] = {
    { 1, 300, 7, 0x10, 8, stack_a, 3 },
    { 2, 300, 7, 0x20, 8, stack_c, 2 },
  };

  stream_stack (s, 1, stack_a, 3);
  stream_alloc (s, 1, 0x10, 8, 1);
  stream_write (s, 1, true, false);

  /* The thread's id, reused: a new stream, and a new encoder. */
  g_free (s);
  s = stream_new (w, 300, 7);
  stream_stack (s, 1, stack_c, 2);
  stream_alloc (s, 2, 0x20, 8, 1);
  stream_write (s, 2, false, false);
  stream_stack (s, 1, stack_b, 1);
  stream_alloc (s, 3, 0x30, 8, 1);
  stream_write (s, 3, false, false);
  sysprof_capture_writer_unref (w);

  events = read_all (path, &stats, &error);
  assert_events (events, expected, G_N_ELEMENTS (expected));
  g_assert_cmpuint (stats.streams, ==, 2);
  g_assert_cmpuint (stats.blocks, ==, 3);
  g_assert_cmpuint (stats.errors, ==, 1);
  offsets = frame_offsets (path);
  want = g_strdup_printf ("memory stream of thread 7 of process 300, the block at capture offset %" G_GUINT64_FORMAT
                          ": stack id 1 is defined twice (byte 2)",
                          g_array_index (offsets, guint64, 2));
  g_assert_cmpstr (error, ==, want);
  g_free (s);
}

/* Lost records are summed; a bad block ends with an error that names its
 * offset while the other streams and the next blocks go on; a stream path
 * that names no thread is counted too. */
static void
test_errors_and_lost (void)
{
  g_autofree char             *path = tmp_path ("hostile.syscap");
  SysprofCaptureWriter        *w = sysprof_capture_writer_new (path, 0);
  Stream                      *s = stream_new (w, 900, 9);
  Stream                      *t = stream_new (w, 900, 10);
  SysprofAllocationCursorStats stats;
  g_autofree char             *error = NULL;
  g_autoptr (GArray) events = NULL;
  g_autoptr (GArray) offsets = NULL;
  g_autofree char             *want = NULL;
  static const guint8          bad[] = { 'R', 5, SYSPROF_MEMORY_STREAM_TAG_RELEASE, 0, 2, 0x06, 0 };
  const SysprofAllocationEvent expected[] = {
    { 1, 900, 9, 0x10, 8, NULL, 0 }, { 2, 900, 10, 0x11, 0, NULL, 0 }, { 5, 900, 9, 1, 0, NULL, 0 },
    { 7, 900, 9, 0x20, 8, NULL, 0 }, { 8, 900, 10, 0x21, 0, NULL, 0 },
  };

  stream_alloc (s, 1, 0x10, 8, 0);
  g_assert_true (sysprof_memory_stream_encoder_add_lost (&s->enc, 40));
  stream_write (s, 1, false, false);
  stream_free (t, 2, 0x11);
  g_assert_true (sysprof_memory_stream_encoder_add_lost (&t->enc, 2));
  stream_write (t, 2, false, true);
  /* Thread 9's second block: a release at 5, then an unknown tag. */
  g_assert_true (sysprof_capture_writer_add_file (w, 5, -1, 900, "sysprof/memory-stream/9", false, bad, sizeof bad));
  g_assert_true (sysprof_capture_writer_add_file (w, 6, -1, 900, "sysprof/memory-stream/nine", false, bad, sizeof bad));
  stream_alloc (s, 7, 0x20, 8, 0);
  stream_write (s, 7, true, false);
  stream_free (t, 8, 0x21);
  stream_write (t, 8, true, false);
  sysprof_capture_writer_unref (w);

  events = read_all (path, &stats, &error);
  assert_events (events, expected, G_N_ELEMENTS (expected));
  g_assert_cmpuint (stats.errors, ==, 2);
  g_assert_cmpuint (stats.lost, ==, 42);
  g_assert_cmpuint (stats.streams, ==, 2);
  g_assert_cmpuint (stats.blocks, ==, 5);
  /* Per stream: what a report per process or thread shows. */
  {
    SysprofCaptureReader       *reader = sysprof_capture_reader_new (path);
    SysprofAllocationCursor    *cursor = sysprof_allocation_cursor_new (reader);
    SysprofAllocationStreamInfo info;
    SysprofAllocationEvent      ev;

    while (sysprof_allocation_cursor_next (cursor, &ev))
      ;
    g_assert_true (sysprof_allocation_cursor_get_stream (cursor, 0, &info));
    g_assert_cmpint (info.pid, ==, 900);
    g_assert_cmpint (info.tid, ==, 9);
    g_assert_cmpuint (info.blocks, ==, 3);
    g_assert_cmpuint (info.lost, ==, 40);
    g_assert_cmpuint (info.errors, ==, 1);
    g_assert_true (sysprof_allocation_cursor_get_stream (cursor, 1, &info));
    g_assert_cmpint (info.tid, ==, 10);
    g_assert_cmpuint (info.blocks, ==, 2);
    g_assert_cmpuint (info.lost, ==, 2);
    g_assert_cmpuint (info.errors, ==, 0);
    errno = 0;
    g_assert_false (sysprof_allocation_cursor_get_stream (cursor, 2, &info));
    g_assert_cmpint (errno, ==, EINVAL);
    sysprof_allocation_cursor_unref (cursor);
    sysprof_capture_reader_unref (reader);
  }
  /* The path was met first, while indexing. */
  offsets = frame_offsets (path);
  want = g_strdup_printf ("the FILE_CHUNK frame at capture offset %" G_GUINT64_FORMAT
                          " has the path \"sysprof/memory-stream/nine\", which names no thread",
                          g_array_index (offsets, guint64, 3));
  g_assert_cmpstr (error, ==, want);
  g_free (s);
  g_free (t);

  /* Without the bad path, the block's error is the first. */
  g_clear_pointer (&path, g_free);
  g_clear_pointer (&error, g_free);
  g_clear_pointer (&want, g_free);
  g_clear_pointer (&events, g_array_unref);
  g_clear_pointer (&offsets, g_array_unref);
  path = tmp_path ("hostile2.syscap");
  w = sysprof_capture_writer_new (path, 0);
  g_assert_true (sysprof_capture_writer_add_file (w, 5, -1, 900, "sysprof/memory-stream/9", false, bad, sizeof bad));
  sysprof_capture_writer_unref (w);
  events = read_all (path, &stats, &error);
  g_assert_cmpuint (events->len, ==, 1);
  offsets = frame_offsets (path);
  want = g_strdup_printf ("memory stream of thread 9 of process 900, the block at capture offset %" G_GUINT64_FORMAT
                          ": unknown record tag 0x06 (byte 5)",
                          g_array_index (offsets, guint64, 0));
  g_assert_cmpstr (error, ==, want);
}

/* 3000 threads, ten events each, in three blocks per thread written round
 * robin: every event comes out, in time order. */
static void
test_many_threads (void)
{
  g_autofree char             *path = tmp_path ("threads.syscap");
  SysprofCaptureWriter        *w = sysprof_capture_writer_new (path, 0);
  const guint                  n_threads = 3000;
  Stream                     **streams = g_new0 (Stream *, n_threads);
  SysprofAllocationCursorStats stats;
  g_autoptr (GArray) events = NULL;

  for (guint i = 0; i < n_threads; i++)
    {
      streams[i] = stream_new (w, 4000, 1 + i);
      stream_stack (streams[i], 1, stack_a, 1 + i % 3);
    }
  for (guint blk = 0; blk < 3; blk++)
    for (guint i = 0; i < n_threads; i++)
      {
        /* Blocks of 4, 3 and 3 events: times k * n_threads + i. */
        for (guint k = blk == 0 ? 0 : 1 + 3 * blk; k < 4 + 3 * blk; k++)
          stream_alloc (streams[i], (int64_t) k * n_threads + i, 0x1000 + k, 1 + i, 1);
        stream_write (streams[i], blk, blk == 2, blk == 1);
      }
  sysprof_capture_writer_unref (w);

  events = read_all (path, &stats, NULL);
  g_assert_cmpuint (events->len, ==, 10 * n_threads);
  for (guint j = 0; j < events->len; j++)
    {
      const SysprofAllocationEvent *e = &g_array_index (events, SysprofAllocationEvent, j);

      g_assert_cmpint (e->time, ==, j);
      g_assert_cmpint (e->tid, ==, 1 + j % n_threads);
      g_assert_cmpint (e->size, ==, 1 + j % n_threads);
      g_assert_cmpuint (e->address, ==, 0x1000 + j / n_threads);
      g_assert_cmpuint (e->n_frames, ==, 1 + (j % n_threads) % 3);
    }
  g_assert_cmpuint (stats.streams, ==, n_threads);
  g_assert_cmpuint (stats.blocks, ==, 3 * n_threads);
  g_assert_cmpuint (stats.errors, ==, 0);
  g_assert_cmpuint (stats.stacks, ==, n_threads);
  for (guint i = 0; i < n_threads; i++)
    g_free (streams[i]);
  g_free (streams);
}

/* Memory follows the streams being merged, not the events or the blocks:
 * 300 threads that lived one after the other, each with one 40 KB block
 * (12 MB in all), written in the reverse order of their times.  A cursor
 * that loaded every stream's block up front would hold all 12 MB. */
static void
test_memory_bound (void)
{
#if SANITIZED
  g_test_skip ("the sanitizer's allocator is not the one mallinfo2() describes");
#else
  g_autofree char         *path = tmp_path ("bound.syscap");
  SysprofCaptureWriter    *w = sysprof_capture_writer_new (path, 0);
  const guint              n_threads = 300;
  const guint              n_events = 6000;
  SysprofCaptureReader    *reader;
  SysprofAllocationCursor *cursor;
  SysprofAllocationEvent   ev;
  struct mallinfo2         before, during;
  size_t                   peak = 0;
  guint64                  n = 0;

  for (guint i = n_threads; i-- > 0;)
    {
      SysprofMemoryStreamEncoder enc;
      g_autofree guint8         *buffer = g_malloc (SYSPROF_MEMORY_STREAM_MAX_BLOCK);
      const guint8              *data;
      char                       name[256];
      gsize                      len;

      g_assert_true (sysprof_memory_stream_encoder_init (&enc, buffer, SYSPROF_MEMORY_STREAM_MAX_BLOCK));
      g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 1, stack_a, 3));
      for (guint k = 0; k < n_events; k++)
        g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, (int64_t) i * n_events + k,
                                                                     0x10000 * (guint64) k, 1 + k % 1000, 1));
      data = sysprof_memory_stream_encoder_get_block (&enc, &len);
      g_assert_cmpuint (len, >, 30000);
      g_assert_true (sysprof_memory_stream_format_path (name, sizeof name, 1 + i));
      g_assert_true (sysprof_capture_writer_add_file (w, n_threads - i, -1, 77, name, true, data, len));
    }
  sysprof_capture_writer_unref (w);

  reader = sysprof_capture_reader_new (path);
  before = mallinfo2 ();
  cursor = sysprof_allocation_cursor_new (reader);
  while (sysprof_allocation_cursor_next (cursor, &ev))
    {
      g_assert_cmpint (ev.time, ==, n);
      if (n++ % 1000 == 0)
        {
          during = mallinfo2 ();
          peak = MAX (peak, during.uordblks + during.hblkhd);
        }
    }
  g_assert_cmpuint (n, ==, (guint64) n_threads * n_events);
  g_test_message ("heap in use while reading: %zu bytes more than before", peak - (before.uordblks + before.hblkhd));
  /* Readers' buffers (512 KiB), the block index, one block and its stacks. */
  g_assert_cmpuint (peak - (before.uordblks + before.hblkhd), <, 2 * 1024 * 1024);
  sysprof_allocation_cursor_unref (cursor);
  sysprof_capture_reader_unref (reader);
#endif
}

/* Captures of earlier versions: ALLOCATION frames come out exactly in
 * capture order, even where their times are not sorted. */
static void
test_allocation_frames_only (void)
{
  g_autofree char             *path = tmp_path ("plain.syscap");
  SysprofCaptureWriter        *w = sysprof_capture_writer_new (path, 0);
  SysprofAllocationCursorStats stats;
  g_autoptr (GArray) events = NULL;
  const SysprofAllocationEvent expected[] = {
    { 10, 1, 2, 0x100, 5, stack_p, 2 },
    { 10, 3, 4, 0x200, 0, NULL, 0 },
    { 9, 1, 2, 0x300, -1, stack_p + 1, 1 },
    { 20, 1, 2, 0x100, 0, NULL, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const SysprofAllocationEvent *e = &expected[i];

      if (i == 1)
        g_assert_true (sysprof_capture_writer_add_sample (w, 11, 0, 1, 2, stack_p, 2));
      g_assert_true (sysprof_capture_writer_add_allocation_copy (w, e->time, 0, e->pid, e->tid, e->address, e->size,
                                                                 e->frames, e->n_frames));
    }
  sysprof_capture_writer_unref (w);

  events = read_events (path, FALSE, &stats, NULL);
  assert_events (events, expected, G_N_ELEMENTS (expected));
  g_assert_cmpuint (stats.allocation_frames, ==, 4);
  g_assert_cmpuint (stats.streams, ==, 0);
  g_assert_cmpuint (stats.errors, ==, 0);
}

/* Cut in the middle of the last block: the capture error says so and the
 * events of the frames before it are there. */
static void
test_truncated (void)
{
  g_autofree char         *path = tmp_path ("cut.syscap");
  SysprofCaptureWriter    *w = sysprof_capture_writer_new (path, 0);
  Stream                  *s = stream_new (w, 1, 1);
  SysprofCaptureReader    *reader;
  SysprofAllocationCursor *cursor;
  SysprofAllocationEvent   ev;
  g_autoptr (GArray) offsets = NULL;
  guint n = 0;

  stream_alloc (s, 1, 0x10, 8, 0);
  stream_write (s, 1, false, false);
  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 2, 0, 1, 1, 0x20, 8, NULL, 0));
  stream_alloc (s, 3, 0x30, 8, 0);
  stream_write (s, 3, true, false);
  sysprof_capture_writer_unref (w);

  offsets = frame_offsets (path);
  g_assert_cmpint (truncate (path, (off_t) g_array_index (offsets, guint64, offsets->len - 1) + 30), ==, 0);

  reader = sysprof_capture_reader_new (path);
  cursor = sysprof_allocation_cursor_new (reader);
  while (sysprof_allocation_cursor_next (cursor, &ev))
    g_assert_cmpint (ev.time, ==, ++n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (sysprof_allocation_cursor_get_capture_error (cursor)->code, ==, EIO);
  g_assert_null (sysprof_allocation_cursor_get_error (cursor));
  sysprof_allocation_cursor_unref (cursor);
  sysprof_capture_reader_unref (reader);
  g_free (s);
}

typedef struct
{
  GString *types;    /* one letter per frame given: M(etadata), A(llocation), F(ile chunk) */
  guint64  metadata; /* the numbers the METADATA frames carry */
  guint    stop_at;  /* stop at that frame given (1-based); 0: never */
  guint64  last_progress;
} Given;

static bool
take_frame (SysprofCaptureReader *reader, SysprofCaptureFrameType type, void *user_data)
{
  Given *given = user_data;

  if (type == SYSPROF_CAPTURE_FRAME_METADATA)
    {
      const SysprofCaptureMetadata *m = sysprof_capture_reader_read_metadata (reader);

      g_assert_nonnull (m);
      given->metadata += g_ascii_strtoull (m->metadata, NULL, 10);
      g_string_append_c (given->types, 'M');
    }
  else if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
    {
      /* Left to the cursor, which steps over it. */
      g_string_append_c (given->types, 'A');
    }
  else
    {
      g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_FILE_CHUNK);
      /* Read: the cursor still indexes the block. */
      g_assert_nonnull (sysprof_capture_reader_read_file (reader));
      g_string_append_c (given->types, 'F');
    }
  return given->stop_at == 0 || given->types->len < given->stop_at;
}

static void
note_progress (uint64_t offset, void *user_data)
{
  Given *given = user_data;

  g_assert_cmpuint (offset, >=, given->last_progress);
  given->last_progress = offset;
}

/* The first pass hands the caller the frames it asks for; ALLOCATION frames
 * taken that way are not events, the streams' events still are. */
static void
test_frame_callback (void)
{
  g_autofree char               *path = tmp_path ("callback.syscap");
  SysprofCaptureWriter          *w = sysprof_capture_writer_new (path, 0);
  Stream                        *s = stream_new (w, 5, 6);
  SysprofCaptureReader          *reader;
  SysprofAllocationCursor       *cursor;
  SysprofAllocationEvent         ev;
  SysprofAllocationCursorStats   stats;
  Given                          given = { g_string_new (NULL), 0, 0, 0 };
  SysprofAllocationCursorOptions options = {
    .size = sizeof options,
    .frame_types = (1u << SYSPROF_CAPTURE_FRAME_METADATA) | (1u << SYSPROF_CAPTURE_FRAME_ALLOCATION) |
                   (1u << SYSPROF_CAPTURE_FRAME_FILE_CHUNK),
    .frame_func = take_frame,
    .progress = note_progress,
    .user_data = &given,
  };
  guint n = 0;

  g_assert_true (sysprof_capture_writer_add_metadata (w, 1, -1, 5, SYSPROF_LOST_EVENTS_METADATA_ID, "3", -1));
  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 2, 0, 5, 5, 0x20, 8, NULL, 0));
  g_assert_true (sysprof_capture_writer_add_sample (w, 3, 0, 5, 5, stack_p, 2));
  stream_alloc (s, 1, 0x10, 8, 0);
  stream_free (s, 4, 0x10);
  stream_write (s, 4, true, false);
  g_assert_true (sysprof_capture_writer_add_metadata (w, 5, -1, 5, SYSPROF_LOST_EVENTS_METADATA_ID, "4 x", -1));
  sysprof_capture_writer_unref (w);

  reader = sysprof_capture_reader_new (path);
  cursor = sysprof_allocation_cursor_new_full (reader, &options);
  g_assert_nonnull (cursor);
  g_assert_cmpstr (given.types->str, ==, "MAFM");
  g_assert_cmpuint (given.metadata, ==, 7);
  {
    GStatBuf st;

    /* The end of the first pass is the end of the file. */
    g_assert_cmpint (g_stat (path, &st), ==, 0);
    g_assert_cmpuint (given.last_progress, ==, (guint64) st.st_size);
  }
  while (sysprof_allocation_cursor_next (cursor, &ev))
    {
      g_assert_cmpint (ev.tid, ==, 6);
      g_assert_cmpint (ev.time, ==, n == 0 ? 1 : 4);
      n++;
    }
  g_assert_cmpuint (n, ==, 2);
  sysprof_allocation_cursor_get_stats (cursor, &stats);
  g_assert_cmpuint (stats.allocation_frames, ==, 1);
  g_assert_cmpuint (stats.streams, ==, 1);
  g_assert_cmpuint (stats.errors, ==, 0);
  sysprof_allocation_cursor_unref (cursor);

  /* Stopped at the second frame given. */
  g_string_truncate (given.types, 0);
  given.stop_at = 2;
  errno = 0;
  g_assert_null (sysprof_allocation_cursor_new_full (reader, &options));
  g_assert_cmpint (errno, ==, ECANCELED);
  g_assert_cmpstr (given.types->str, ==, "MA");

  sysprof_capture_reader_unref (reader);
  g_string_free (given.types, TRUE);
  g_free (s);
}

static void
test_empty_and_pipe (void)
{
  g_autofree char             *path = tmp_path ("empty.syscap");
  SysprofCaptureWriter        *w = sysprof_capture_writer_new (path, 0);
  SysprofCaptureReader        *reader;
  SysprofAllocationCursor     *cursor;
  SysprofAllocationEvent       ev;
  SysprofAllocationCursorStats stats;
  int                          fds[2];
  g_autofree char             *contents = NULL;
  gsize                        len;

  sysprof_capture_writer_unref (w);
  reader = sysprof_capture_reader_new (path);
  cursor = sysprof_allocation_cursor_new (reader);
  g_assert_false (sysprof_allocation_cursor_next (cursor, &ev));
  sysprof_allocation_cursor_get_stats (cursor, &stats);
  g_assert_cmpuint (stats.events + stats.streams + stats.blocks + stats.errors, ==, 0);
  g_assert_cmpint (sysprof_allocation_cursor_get_capture_error (cursor)->code, ==, 0);
  sysprof_allocation_cursor_unref (cursor);
  sysprof_capture_reader_unref (reader);

  /* A pipe cannot be read twice. */
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpint (pipe (fds), ==, 0);
  g_assert_cmpint (write (fds[1], contents, len), ==, (gssize) len);
  close (fds[1]);
  reader = sysprof_capture_reader_new_from_fd (fds[0]);
  g_assert_nonnull (reader);
  errno = 0;
  g_assert_null (sysprof_allocation_cursor_new (reader));
  g_assert_cmpint (errno, ==, ESPIPE);
  sysprof_capture_reader_unref (reader);

  errno = 0;
  g_assert_null (sysprof_allocation_cursor_new (NULL));
  g_assert_cmpint (errno, ==, EINVAL);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("test-allocation-cursor-XXXXXX", NULL);

  g_test_add_func ("/AllocationCursor/merge", test_merge);
  g_test_add_func ("/AllocationCursor/thread-id-reuse", test_tid_reuse);
  g_test_add_func ("/AllocationCursor/errors-and-lost", test_errors_and_lost);
  g_test_add_func ("/AllocationCursor/many-threads", test_many_threads);
  g_test_add_func ("/AllocationCursor/memory-bound", test_memory_bound);
  g_test_add_func ("/AllocationCursor/allocation-frames-only", test_allocation_frames_only);
  g_test_add_func ("/AllocationCursor/truncated", test_truncated);
  g_test_add_func ("/AllocationCursor/empty-and-pipe", test_empty_and_pipe);
  g_test_add_func ("/AllocationCursor/frame-callback", test_frame_callback);

  ret = g_test_run ();
  {
    g_autoptr (GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name (dir)))
      {
        g_autofree char *p = tmp_path (name);
        g_unlink (p);
      }
    g_rmdir (tmp_dir);
  }
  g_free (tmp_dir);
  return ret;
}
