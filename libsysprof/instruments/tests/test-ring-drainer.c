// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofRingDrainer: rings written as a producer would (and as a hostile
 * one would), drained by the main loop or pass by pass into a capture, read
 * back.  The attacks of a hostile producer are tests of their own: digits
 * to the end of a ring, lengths changed while we drain, hundreds of full
 * rings, a capture that must stop growing. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sysprof-instruments.h>
#include <zstd.h>

#include "sysprof-ring-drainer-private.h"

typedef struct
{
  char                 *path;
  int                   fd;
  SysprofCaptureWriter *writer;
  SysprofRingDrainer   *drainer;
} Fixture;

static void
fixture_init_rings (Fixture *f, guint max_rings)
{
  g_autoptr (GError) error = NULL;

  f->fd = g_file_open_tmp ("test-ring-drainer-XXXXXX.syscap", &f->path, &error);
  g_assert_no_error (error);
  f->writer = sysprof_capture_writer_new_from_fd (dup (f->fd), 0);
  g_assert_nonnull (f->writer);
  f->drainer = sysprof_ring_drainer_new (max_rings);
}

static void
fixture_init (Fixture *f)
{
  fixture_init_rings (f, 4);
}

/* A ring of @n_pages from the drainer, mapped as its producer would. */
static SysprofMappedRingBuffer *
producer_ring (Fixture *f, guint n_pages)
{
  g_autoptr (GError) error = NULL;
  SysprofMappedRingBuffer *ring;
  int                      fd = sysprof_ring_drainer_create_ring (f->drainer, n_pages, &error);

  g_assert_no_error (error);
  ring = sysprof_mapped_ring_buffer_new_writer (fd);
  g_assert_nonnull (ring);
  close (fd);
  return ring;
}

static void
fixture_clear (Fixture *f)
{
  g_clear_object (&f->drainer);
  g_clear_pointer (&f->writer, sysprof_capture_writer_unref);
  close (f->fd);
  g_unlink (f->path);
  g_free (f->path);
}

static void
write_mark_at (SysprofMappedRingBuffer *ring, const char *name, gint64 time)
{
  SysprofCaptureMark *mark;
  gsize               len = sizeof *mark + 8;

  while ((mark = sysprof_mapped_ring_buffer_allocate (ring, len)) == NULL)
    g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
  memset (mark, 0, len);
  mark->frame.len = (guint16) len;
  mark->frame.type = SYSPROF_CAPTURE_FRAME_MARK;
  mark->frame.pid = 42;
  mark->frame.time = time;
  g_strlcpy (mark->group, "test", sizeof mark->group);
  g_strlcpy (mark->name, name, sizeof mark->name);
  sysprof_mapped_ring_buffer_advance (ring, len);
}

static void
write_mark (SysprofMappedRingBuffer *ring, const char *name)
{
  write_mark_at (ring, name, 1000);
}

static void
write_end (SysprofMappedRingBuffer *ring)
{
  SysprofCaptureFrame *end = sysprof_mapped_ring_buffer_allocate (ring, sizeof *end);

  g_assert_nonnull (end);
  memset (end, 0, sizeof *end);
  end->len = sizeof *end;
  end->type = 0xFF;
  sysprof_mapped_ring_buffer_advance (ring, sizeof *end);
}

/* Reads the capture back: marks by name, lost events summed. */
static guint
count_marks (Fixture *f, const char *name, guint64 *lost)
{
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;
  guint                   n = 0;

  g_assert_true (sysprof_capture_writer_flush (f->writer));
  reader = sysprof_capture_reader_new (f->path);
  g_assert_nonnull (reader);
  *lost = 0;
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_MARK)
        {
          const SysprofCaptureMark *mark = sysprof_capture_reader_read_mark (reader);

          g_assert_nonnull (mark);
          if (g_str_equal (mark->name, name))
            n++;
        }
      else if (type == SYSPROF_CAPTURE_FRAME_METADATA)
        {
          const SysprofCaptureMetadata *meta = sysprof_capture_reader_read_metadata (reader);

          g_assert_nonnull (meta);
          if (g_str_equal (meta->id, SYSPROF_LOST_EVENTS_METADATA_ID))
            *lost += g_ascii_strtoull (meta->metadata, NULL, 10);
        }
      else
        g_assert_true (sysprof_capture_reader_skip (reader));
    }
  sysprof_capture_reader_unref (reader);
  return n;
}

/* 10000 marks through a one-page ring: it wraps many times, and the producer
 * only makes progress when the main loop drains. */
static void
test_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  SysprofMappedRingBuffer *ring;
  Fixture                  f;
  guint64                  lost;
  int                      fd;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  fd = sysprof_ring_drainer_create_ring (f.drainer, 1, &error);
  g_assert_no_error (error);
  ring = sysprof_mapped_ring_buffer_new_writer (fd);
  g_assert_nonnull (ring);
  close (fd);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_rings (f.drainer), ==, 1);
  for (guint i = 0; i < 10000; i++)
    write_mark (ring, "round");
  write_end (ring);
  /* The end frame frees the slot. */
  while (sysprof_ring_drainer_get_n_rings (f.drainer) > 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, 10000);
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (count_marks (&f, "round", &lost), ==, 10000);
  g_assert_cmpuint (lost, ==, 0);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 0);
  sysprof_mapped_ring_buffer_unref (ring);
  fixture_clear (&f);
}

/* sysprofd drains each session's rings in a thread of its own: the drainer's
 * source lives in that thread's context, and closing or dropping the drainer
 * there must remove it from there (g_source_remove() would look in the
 * default context, miss it, and leave a source pointing at freed memory). */
static gpointer
other_context_thread (gpointer data)
{
  GMainContext            *context = g_main_context_new ();
  SysprofMappedRingBuffer *ring;
  Fixture                  f;
  guint64                  lost;

  (void) data;
  g_main_context_push_thread_default (context);
  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  ring = producer_ring (&f, 1);
  for (guint i = 0; i < 100; i++)
    write_mark (ring, "other-context");
  /* Drained by its source, in this context only. */
  while (sysprof_ring_drainer_get_n_frames (f.drainer) < 100)
    g_main_context_iteration (context, TRUE);
  g_assert_false (g_main_context_pending (g_main_context_default ()));
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (count_marks (&f, "other-context", &lost), ==, 100);
  /* A second drainer dropped while its source is attached. */
  g_clear_object (&f.drainer);
  f.drainer = sysprof_ring_drainer_new (4);
  sysprof_mapped_ring_buffer_unref (ring);
  ring = producer_ring (&f, 1);
  sysprof_mapped_ring_buffer_unref (ring);
  fixture_clear (&f);
  /* Nothing of theirs is left to dispatch. */
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  return NULL;
}

static void
test_other_context (void)
{
  g_thread_join (g_thread_new ("other-context", other_context_thread, NULL));
}

/* Two threads' rings written before a drain: the capture has their frames
 * merged in time order. */
static void
test_merge (void)
{
  g_autoptr (GError) error = NULL;
  SysprofMappedRingBuffer *rings[2];
  SysprofCaptureReader    *reader;
  SysprofCaptureFrameType  type;
  Fixture                  f;
  gint64                   last = 0;
  guint                    n = 0;

  fixture_init (&f);
  for (guint r = 0; r < 2; r++)
    {
      int fd = sysprof_ring_drainer_create_ring (f.drainer, 4, &error);

      g_assert_no_error (error);
      rings[r] = sysprof_mapped_ring_buffer_new_writer (fd);
      close (fd);
    }
  /* Ring 0 holds odd times, ring 1 even ones, in bursts. */
  for (gint64 t = 1; t <= 200; t++)
    write_mark_at (rings[(t / 7) % 2 == 0 ? t % 2 : 1 - t % 2], "merge", t * 10);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  sysprof_ring_drainer_close (f.drainer);
  g_assert_true (sysprof_capture_writer_flush (f.writer));
  reader = sysprof_capture_reader_new (f.path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureMark *mark;

      g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_MARK);
      mark = sysprof_capture_reader_read_mark (reader);
      g_assert_cmpint (mark->frame.time, >, last);
      last = mark->frame.time;
      n++;
    }
  g_assert_cmpuint (n, ==, 200);
  sysprof_capture_reader_unref (reader);
  for (guint r = 0; r < 2; r++)
    sysprof_mapped_ring_buffer_unref (rings[r]);
  fixture_clear (&f);
}

static void
write_counter_frames (SysprofMappedRingBuffer *ring, gint32 pid, guint id, const char *name, gint64 value)
{
  SysprofCaptureCounterDefine *def;
  SysprofCaptureCounterSet    *set;
  gsize                        def_len = sizeof *def + sizeof (SysprofCaptureCounter);
  gsize                        set_len = sizeof *set + sizeof (SysprofCaptureCounterValues);

  def = sysprof_mapped_ring_buffer_allocate (ring, def_len);
  g_assert_nonnull (def);
  memset (def, 0, def_len);
  def->frame.len = (guint16) def_len;
  def->frame.type = SYSPROF_CAPTURE_FRAME_CTRDEF;
  def->frame.pid = pid;
  def->frame.time = 100;
  def->n_counters = 1;
  def->counters[0].id = id;
  g_strlcpy (def->counters[0].category, "app", sizeof def->counters[0].category);
  g_strlcpy (def->counters[0].name, name, sizeof def->counters[0].name);
  sysprof_mapped_ring_buffer_advance (ring, def_len);

  set = sysprof_mapped_ring_buffer_allocate (ring, set_len);
  g_assert_nonnull (set);
  memset (set, 0, set_len);
  set->frame.len = (guint16) set_len;
  set->frame.type = SYSPROF_CAPTURE_FRAME_CTRSET;
  set->frame.pid = pid;
  set->frame.time = 200;
  set->n_values = 1;
  set->values[0].ids[0] = id;
  set->values[0].values[0].v64 = value;
  sysprof_mapped_ring_buffer_advance (ring, set_len);
}

/* Two processes that both number a counter 1 (upstream's collector counts
 * from 1, as the recorder's own counters do), beside a counter of the
 * capture's own: each gets an id of the capture, and each value stays with
 * its counter. */
static void
test_counter_ids (void)
{
  SysprofMappedRingBuffer *rings[2];
  SysprofCaptureReader    *reader;
  SysprofCaptureFrameType  type;
  g_autoptr (GHashTable) names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Fixture f;
  guint   own;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  own = sysprof_capture_writer_request_counter (f.writer, 1);
  g_assert_cmpuint (own, ==, 1);
  for (guint r = 0; r < 2; r++)
    {
      rings[r] = producer_ring (&f, 4);
      write_counter_frames (rings[r], 100 + (gint32) r, 1, r == 0 ? "first" : "second", 10 + r);
    }
  sysprof_ring_drainer_close (f.drainer);
  g_assert_true (sysprof_capture_writer_flush (f.writer));

  reader = sysprof_capture_reader_new (f.path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_CTRDEF)
        {
          const SysprofCaptureCounterDefine *def = sysprof_capture_reader_read_counter_define (reader);

          g_assert_cmpuint (def->n_counters, ==, 1);
          g_assert_cmpuint (def->counters[0].id, !=, own);
          g_assert_false (g_hash_table_contains (names, GUINT_TO_POINTER (def->counters[0].id)));
          g_hash_table_insert (names, GUINT_TO_POINTER (def->counters[0].id), g_strdup (def->counters[0].name));
        }
      else if (type == SYSPROF_CAPTURE_FRAME_CTRSET)
        {
          const SysprofCaptureCounterSet *set = sysprof_capture_reader_read_counter_set (reader);
          const char                     *name = g_hash_table_lookup (names, GUINT_TO_POINTER (set->values[0].ids[0]));

          g_assert_nonnull (name);
          g_hash_table_insert (values, g_strdup (name), GSIZE_TO_POINTER ((gsize) set->values[0].values[0].v64));
        }
      else
        g_assert_true (sysprof_capture_reader_skip (reader));
    }
  sysprof_capture_reader_unref (reader);
  g_assert_cmpuint (g_hash_table_size (names), ==, 2);
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (values, "first")), ==, 10);
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (values, "second")), ==, 11);
  for (guint r = 0; r < 2; r++)
    sysprof_mapped_ring_buffer_unref (rings[r]);
  fixture_clear (&f);
}

/* Limits and bad sizes; after close no ring is handed out. */
static void
test_limits (void)
{
  g_autoptr (GError) error = NULL;
  Fixture f;
  int     fds[4];

  fixture_init (&f);
  g_assert_cmpint (sysprof_ring_drainer_create_ring (f.drainer, 3, &error), ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (sysprof_ring_drainer_create_ring (f.drainer, 2048, &error), ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    {
      fds[i] = sysprof_ring_drainer_create_ring (f.drainer, 0, &error);
      g_assert_no_error (error);
      g_assert_cmpint (fds[i], >=, 0);
    }
  g_assert_cmpint (sysprof_ring_drainer_create_ring (f.drainer, 1, &error), ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
  g_clear_error (&error);
  /* The default size. */
  g_assert_cmpint (lseek (fds[0], 0, SEEK_END), ==,
                   (SYSPROF_RING_DRAINER_DEFAULT_PAGES + 1) * (off_t) sysconf (_SC_PAGESIZE));
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_rings (f.drainer), ==, 0);
  g_assert_cmpint (sysprof_ring_drainer_create_ring (f.drainer, 1, &error), ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    close (fds[i]);
  fixture_clear (&f);
}

/* A hostile producer: garbage and impossible positions cost lost frames,
 * counted in the capture, and never the sound ring next to it.  Losses the
 * producers report themselves count too. */
static void
test_hostile (void)
{
  g_autoptr (GError) error = NULL;
  SysprofMappedRingBuffer *good;
  Fixture                  f;
  guint8                  *head, *body;
  guint32                 *h;
  long                     page = sysconf (_SC_PAGESIZE);
  guint64                  lost;
  int                      bad_fd, good_fd;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  bad_fd = sysprof_ring_drainer_create_ring (f.drainer, 1, &error);
  g_assert_no_error (error);
  good_fd = sysprof_ring_drainer_create_ring (f.drainer, 1, &error);
  g_assert_no_error (error);
  good = sysprof_mapped_ring_buffer_new_writer (good_fd);
  close (good_fd);

  head = mmap (NULL, (size_t) page, PROT_READ | PROT_WRITE, MAP_SHARED, bad_fd, 0);
  body = mmap (NULL, (size_t) page, PROT_READ | PROT_WRITE, MAP_SHARED, bad_fd, page);
  g_assert_true (head != MAP_FAILED && body != MAP_FAILED);
  h = (guint32 *) (void *) head;
  for (guint round = 0; round < 30; round++)
    {
      for (long i = 0; i < page; i++)
        body[i] = (guint8) g_random_int ();
      if (round % 3 == 1)
        {
          /* A plausible header whose length runs past the tail. */
          memset (body, 0, 24);
          ((SysprofCaptureFrame *) (void *) body)->len = 4000;
          ((SysprofCaptureFrame *) (void *) body)->type = SYSPROF_CAPTURE_FRAME_LOG;
        }
      __atomic_store_n (&h[1], round % 3 == 2 ? 0xFFFFFFF0u : 64u, __ATOMIC_SEQ_CST);
      write_mark (good, "good");
      for (guint i = 0; i < 5; i++)
        g_main_context_iteration (NULL, TRUE);
    }
  /* A producer's own report of 7 events it could not write. */
  {
    SysprofCaptureMetadata *meta;
    gsize                   len = sizeof *meta + 32;

    meta = sysprof_mapped_ring_buffer_allocate (good, len);
    g_assert_nonnull (meta);
    memset (meta, 0, len);
    meta->frame.len = (guint16) len;
    meta->frame.type = SYSPROF_CAPTURE_FRAME_METADATA;
    g_strlcpy (meta->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof meta->id);
    g_strlcpy (meta->metadata, "7 collector: test", 32);
    sysprof_mapped_ring_buffer_advance (good, len);
  }
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), >, 7);
  g_assert_cmpuint (count_marks (&f, "good", &lost), ==, 30);
  g_assert_cmpuint (lost, ==, sysprof_ring_drainer_get_n_lost (f.drainer));
  munmap (head, (size_t) page);
  munmap (body, (size_t) page);
  close (bad_fd);
  sysprof_mapped_ring_buffer_unref (good);
  fixture_clear (&f);
}

/* Publishes a frame of @len bytes and @type at the tail, zero-filled but for
 * its header; returns it for the caller to fill before the next call. */
static SysprofCaptureFrame *
write_frame (SysprofMappedRingBuffer *ring, gsize len, SysprofCaptureFrameType type, gint32 pid, gint64 time)
{
  SysprofCaptureFrame *frame = sysprof_mapped_ring_buffer_allocate (ring, len);

  g_assert_nonnull (frame);
  memset (frame, 0, len);
  frame->len = (guint16) len;
  frame->type = type;
  frame->pid = pid;
  frame->time = time;
  g_assert_true (sysprof_mapped_ring_buffer_advance (ring, len));
  return frame;
}

/* The attack on the lost-events count: a METADATA frame
 * SYSPROF_LOST_EVENTS_METADATA_ID whose text is ASCII digits with no NUL,
 * the rest of the ring digits too, and its header (whose first 8 bytes are
 * digits as well) 8 bytes before the end of the body.  A parse that does not
 * stop at the frame's end runs through the second mapping of the body, whose
 * end is the end of the ring's mapping.  Ours reads the frame's copy as a
 * reader of the capture reads it: the text ends where the frame does, its
 * last byte made a NUL. */
static void
test_lost_events_digits (void)
{
  SysprofMappedRingBuffer *ring;
  SysprofCaptureMetadata  *meta;
  Fixture                  f;
  const gsize              meta_len = 0x3030; /* "00" */
  gsize                    size, filler;
  guint                    n_fillers = 0;
  guint8                  *p;
  guint64                  lost;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  ring = producer_ring (&f, 4);
  size = sysprof_mapped_ring_buffer_get_size (ring);
  g_assert_cmpuint (meta_len, <, size);
  /* Marks up to 8 bytes before the end, drained: the consumer's head is there. */
  for (filler = size - 8; filler > 0;)
    {
      gsize len = filler > 16384 + 128 ? 16384 : filler;

      write_frame (ring, len, SYSPROF_CAPTURE_FRAME_MARK, 1, 1);
      g_assert_false (_sysprof_ring_drainer_drain_pass (f.drainer));
      filler -= len;
      n_fillers++;
    }
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 0);

  p = sysprof_mapped_ring_buffer_allocate (ring, meta_len);
  g_assert_nonnull (p);
  /* The whole ring: digits (the doubled mapping makes p .. p + size one run). */
  memset (p, '9', size);
  memset (p, '0', meta_len);
  meta = (SysprofCaptureMetadata *) (void *) p;
  g_assert_cmpuint (meta->frame.len, ==, meta_len);
  meta->frame.type = SYSPROF_CAPTURE_FRAME_METADATA;
  memset (meta->id, 0, sizeof meta->id);
  g_strlcpy (meta->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof meta->id);
  /* "000…00429": a reader of the capture sees "000…0042". */
  memcpy (p + meta_len - 3, "429", 3);
  g_assert_true (sysprof_mapped_ring_buffer_advance (ring, meta_len));

  g_assert_false (_sysprof_ring_drainer_drain_pass (f.drainer));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 42);
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (count_marks (&f, "", &lost), ==, n_fillers);
  g_assert_cmpuint (lost, ==, 42);
  sysprof_mapped_ring_buffer_unref (ring);
  fixture_clear (&f);
}

typedef struct
{
  int      fd;
  gsize    size;
  guint32  seed;
  gboolean done;
} Flipper;

/* A producer that writes frames and, between them, changes what it wrote:
 * bytes, lengths (published or not), the tail, whole plausible headers. */
static gpointer
flipper_thread (gpointer data)
{
  Flipper                 *fl = data;
  SysprofMappedRingBuffer *ring = sysprof_mapped_ring_buffer_new_writer (fl->fd);
  gsize                    page = (gsize) sysconf (_SC_PAGESIZE);
  guint8                  *map = mmap (NULL, page + fl->size, PROT_READ | PROT_WRITE, MAP_SHARED, fl->fd, 0);
  guint32                 *hdr = (guint32 *) (void *) map;
  guint8                  *body = map + page;
  GRand                   *rand = g_rand_new_with_seed (fl->seed);

  g_assert_nonnull (ring);
  g_assert_true (map != MAP_FAILED);
  for (guint i = 0; i < 100000; i++)
    {
      guint   what = (guint) g_rand_int_range (rand, 0, 100);
      gsize   at = (gsize) g_rand_int_range (rand, 0, (gint32) fl->size) & ~(gsize) 7;
      guint8 *p;

      if (what < 60)
        {
          gsize len = 24 + 8 * (gsize) g_rand_int_range (rand, 0, 40);

          /* EAGAIN when full, EBADMSG after we spoilt the tail. */
          if ((p = sysprof_mapped_ring_buffer_allocate (ring, len)) == NULL)
            {
              g_thread_yield ();
              continue;
            }
          memset (p, '7', len);
          ((SysprofCaptureFrame *) (void *) p)->len = (guint16) len;
          ((SysprofCaptureFrame *) (void *) p)->type =
              what % 2 ? SYSPROF_CAPTURE_FRAME_TIMESTAMP : SYSPROF_CAPTURE_FRAME_METADATA;
          if (what % 2 == 0 && len > sizeof (SysprofCaptureMetadata))
            g_strlcpy (((SysprofCaptureMetadata *) (void *) p)->id, SYSPROF_LOST_EVENTS_METADATA_ID, 40);
          sysprof_mapped_ring_buffer_advance (ring, len);
        }
      else if (what < 70)
        {
          guint16 len = (guint16) g_rand_int (rand);

          memcpy (body + at, &len, sizeof len);
        }
      else if (what < 75)
        {
          /* The length of the frame the consumer is about to take, changed
           * as fast as we can: between any two reads of it, it differs. */
          guint32 head = __atomic_load_n (&hdr[0], __ATOMIC_ACQUIRE) % (guint32) fl->size;

          for (guint k = 0; k < 20000; k++)
            __atomic_store_n ((guint16 *) (void *) (body + (head & ~7u)), k % 2 ? 0xFFF8 : 24, __ATOMIC_RELAXED);
        }
      else if (what < 85)
        body[g_rand_int_range (rand, 0, (gint32) fl->size)] = (guint8) g_rand_int (rand);
      else if (what < 95)
        {
          /* Back, forth, or anywhere. */
          guint32 tail = what < 92 ? (guint32) at : g_rand_int (rand);

          __atomic_store_n (&hdr[1], tail, __ATOMIC_RELEASE);
        }
      else
        {
          SysprofCaptureFrame header = {
            .len = (guint16) (24 + 8 * g_rand_int_range (rand, 0, 8000)),
            .type = (guint32) g_rand_int_range (rand, 1, SYSPROF_CAPTURE_FRAME_LAST),
          };

          if (at + sizeof header <= fl->size)
            memcpy (body + at, &header, sizeof header);
        }
    }
  g_atomic_int_set (&fl->done, TRUE);
  g_rand_free (rand);
  munmap (map, page + fl->size);
  sysprof_mapped_ring_buffer_unref (ring);
  return NULL;
}

/* Reads the capture to its end (every frame valid) and counts its frames. */
static guint
count_frames (Fixture *f)
{
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;
  guint                   n = 0;

  g_assert_true (sysprof_capture_writer_flush (f->writer));
  reader = sysprof_capture_reader_new (f->path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      g_assert_true (sysprof_capture_reader_skip (reader));
      n++;
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);
  sysprof_capture_reader_unref (reader);
  return n;
}

/* Lengths, bytes and the tail changed while we drain, with a writer that
 * takes frames and, the second time, one that refuses them (the path where a
 * frame is skipped without being written: a drainer that re-read the length
 * there went past the published bytes, then past the mapping, SIGBUS).
 * Nothing outside a ring's mapping is read and the capture reads back
 * valid. */
static void
test_flipping_producer (gconstpointer data)
{
  gboolean refusing = GPOINTER_TO_INT (data);
  g_autoptr (GError) error = NULL;
  Fixture  f;
  Flipper  fl = { 0 };
  GThread *thread;
  guint64  cap = 0;
  guint    n;

  fixture_init (&f);
  if (refusing)
    {
      cap = sysprof_capture_writer_get_size (f.writer) + 4096;
      g_assert_true (sysprof_capture_writer_set_max_size (f.writer, cap));
    }
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  fl.fd = sysprof_ring_drainer_create_ring (f.drainer, 2, &error);
  g_assert_no_error (error);
  fl.size = 2 * (gsize) sysconf (_SC_PAGESIZE);
  fl.seed = refusing ? 0xF11Bu : 0xF11Au;
  thread = g_thread_new ("flipper", flipper_thread, &fl);
  while (!g_atomic_int_get (&fl.done))
    _sysprof_ring_drainer_drain_pass (f.drainer);
  g_thread_join (thread);
  close (fl.fd);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), >, 0);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), >, 0);
  g_assert_true (sysprof_ring_drainer_get_limit_reached (f.drainer) == refusing);
  sysprof_ring_drainer_close (f.drainer);
  n = sysprof_ring_drainer_get_n_frames (f.drainer);
  if (refusing)
    g_assert_cmpuint (sysprof_capture_writer_get_size (f.writer), <=, cap);
  /* Close adds the lost-events frame when the cap leaves room for it. */
  g_assert_cmpuint (count_frames (&f), >=, n);
  g_assert_cmpuint (count_frames (&f), <=, n + 1);
  fixture_clear (&f);
}

/* Rings whose first frame is invalid: random bytes (an odd length), or a
 * plausible SAMPLE header whose addresses run past its end. */
static void
spoil_ring (int fd, gsize size, GRand *rand, gboolean plausible)
{
  gsize    page = (gsize) sysconf (_SC_PAGESIZE);
  guint8  *map = mmap (NULL, page + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  guint32 *hdr = (guint32 *) (void *) map;
  guint8  *body = map + page;

  g_assert_true (map != MAP_FAILED);
  for (gsize i = 0; i < size; i++)
    body[i] = (guint8) g_rand_int (rand);
  body[0] |= 1;
  if (plausible)
    {
      SysprofCaptureSample *sample = (SysprofCaptureSample *) (void *) body;

      sample->frame.len = 4096;
      sample->frame.type = SYSPROF_CAPTURE_FRAME_SAMPLE;
      sample->n_addrs = 4096;
    }
  __atomic_store_n (&hdr[1], (guint32) size - 8, __ATOMIC_RELEASE);
  munmap (map, page + size);
}

/* Drains with passes until one leaves nothing behind; asserts each is within
 * the budgets and, when it left frames, that it stopped at one of them.
 * Returns the number of passes. */
static guint
drain_bounded (Fixture *f, guint *first_frames, gsize *first_bytes)
{
  guint passes = 0;

  for (;;)
    {
      gboolean left = _sysprof_ring_drainer_drain_pass (f->drainer);
      guint    frames;
      gsize    bytes;

      _sysprof_ring_drainer_get_last_pass (f->drainer, &frames, &bytes);
      g_assert_cmpuint (frames, <=, SYSPROF_RING_DRAINER_PASS_FRAMES);
      g_assert_cmpuint (bytes, <=, SYSPROF_RING_DRAINER_PASS_BYTES);
      if (passes++ == 0)
        {
          *first_frames = frames;
          *first_bytes = bytes;
        }
      if (!left)
        return passes;
      g_assert_true (frames == SYSPROF_RING_DRAINER_PASS_FRAMES ||
                     bytes > SYSPROF_RING_DRAINER_PASS_BYTES - SYSPROF_CAPTURE_MAX_FRAME_LEN);
    }
}

/* 256 rings, half full of garbage, half full of valid frames: each pass
 * takes at most its budget of frames (small frames) or of bytes (large
 * ones), whatever the rings hold, and the rest comes with later passes. */
static void
test_bounded_passes (void)
{
  SysprofMappedRingBuffer *good[128];
  GRand                   *rand = g_rand_new_with_seed (0x256);
  Fixture                  f;
  gsize                    size = 4 * (gsize) sysconf (_SC_PAGESIZE);
  guint                    per_ring = 0, n_good = 0;
  guint                    passes, frames;
  gsize                    bytes;

  fixture_init_rings (&f, 256);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  for (guint r = 0; r < 256; r++)
    {
      g_autoptr (GError) error = NULL;
      int fd;

      if (r % 2 == 0)
        {
          good[n_good++] = producer_ring (&f, 4);
          continue;
        }
      fd = sysprof_ring_drainer_create_ring (f.drainer, 4, &error);
      g_assert_no_error (error);
      spoil_ring (fd, size, rand, r % 4 == 1);
      close (fd);
    }

  /* Small frames: the frame budget binds. */
  for (guint r = 0; r < n_good; r++)
    for (guint i = 0; sysprof_mapped_ring_buffer_allocate (good[r], 24) != NULL; i++)
      {
        write_frame (good[r], 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, (gint32) r, i);
        if (r == 0)
          per_ring++;
      }
  g_assert_cmpuint (n_good * per_ring, >, 4 * SYSPROF_RING_DRAINER_PASS_FRAMES);
  passes = drain_bounded (&f, &frames, &bytes);
  g_assert_cmpuint (frames, ==, SYSPROF_RING_DRAINER_PASS_FRAMES);
  g_assert_cmpuint (passes, ==,
                    (n_good * per_ring + SYSPROF_RING_DRAINER_PASS_FRAMES - 1) / SYSPROF_RING_DRAINER_PASS_FRAMES);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, n_good * per_ring);
  /* Each garbage ring lost what it held, counted once. */
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 128);

  /* Large frames: the byte budget binds. */
  for (guint r = 0; r < n_good; r++)
    for (guint i = 0; sysprof_mapped_ring_buffer_allocate (good[r], 2048) != NULL; i++)
      write_frame (good[r], 2048, SYSPROF_CAPTURE_FRAME_TIMESTAMP, (gint32) r, i);
  passes = drain_bounded (&f, &frames, &bytes);
  g_assert_cmpuint (bytes, ==, SYSPROF_RING_DRAINER_PASS_BYTES);
  g_assert_cmpuint (passes, >=, 2);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, n_good * per_ring + n_good * (size / 2048 - 1));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 128);

  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (count_frames (&f), ==, sysprof_ring_drainer_get_n_frames (f.drainer) + 1);
  for (guint r = 0; r < n_good; r++)
    sysprof_mapped_ring_buffer_unref (good[r]);
  g_rand_free (rand);
  fixture_clear (&f);
}

typedef struct
{
  gint64 time;
  gint32 ring;
  gint32 seq;
} Stamp;

static int
compare_stamps (gconstpointer a, gconstpointer b)
{
  const Stamp *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->ring != y->ring)
    return x->ring < y->ring ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* 256 rings, each in time order with many equal times, drained over several
 * bounded passes: the capture holds their frames in the order a sort by
 * (time, ring) gives. */
static void
test_merge_many (void)
{
  SysprofMappedRingBuffer *rings[256];
  g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (Stamp));
  SysprofCaptureReader          *reader;
  const SysprofCaptureTimestamp *ts;
  GRand                         *rand = g_rand_new_with_seed (0x4EAB);
  Fixture                        f;
  guint                          passes, frames, n = 0;
  gsize                          bytes;

  fixture_init_rings (&f, G_N_ELEMENTS (rings));
  for (guint r = 0; r < G_N_ELEMENTS (rings); r++)
    {
      gint64 time = g_rand_int_range (rand, 0, 50);

      rings[r] = producer_ring (&f, 2);
      for (gint32 seq = 0; sysprof_mapped_ring_buffer_allocate (rings[r], 24) != NULL; seq++)
        {
          Stamp                stamp = { time, (gint32) r, seq };
          SysprofCaptureFrame *frame = write_frame (rings[r], 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, (gint32) r, time);

          frame->cpu = (gint16) seq;
          g_array_append_val (expected, stamp);
          time += g_rand_int_range (rand, 0, 4);
        }
    }
  g_array_sort (expected, compare_stamps);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  passes = drain_bounded (&f, &frames, &bytes);
  g_assert_cmpuint (passes, >, 2);

  g_assert_true (sysprof_capture_writer_flush (f.writer));
  reader = sysprof_capture_reader_new (f.path);
  g_assert_nonnull (reader);
  while ((ts = sysprof_capture_reader_read_timestamp (reader)) != NULL)
    {
      const Stamp *want = &g_array_index (expected, Stamp, n++);

      g_assert_cmpint (ts->frame.time, ==, want->time);
      g_assert_cmpint (ts->frame.pid, ==, want->ring);
      g_assert_cmpint (ts->frame.cpu, ==, want->seq);
    }
  g_assert_cmpuint (n, ==, expected->len);
  sysprof_capture_reader_unref (reader);
  for (guint r = 0; r < G_N_ELEMENTS (rings); r++)
    sysprof_mapped_ring_buffer_unref (rings[r]);
  g_rand_free (rand);
  fixture_clear (&f);
}

/* The drainer's limit: the capture stops growing at it, the frames after it
 * are counted lost and leave their ring, get_limit_reached turns TRUE; a new
 * limit (0: none) lets frames through again. */
static void
test_max_bytes (void)
{
  SysprofMappedRingBuffer *ring;
  Fixture                  f;
  const gsize              mark_len = sizeof (SysprofCaptureMark) + 8;
  guint64                  cap, lost;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  ring = producer_ring (&f, 16);
  cap = sysprof_capture_writer_get_size (f.writer) + 100 * mark_len + 50;
  sysprof_ring_drainer_set_max_bytes (f.drainer, cap);
  for (guint i = 0; i < 300; i++)
    write_mark_at (ring, "capped", i);
  g_assert_false (sysprof_ring_drainer_get_limit_reached (f.drainer));
  g_assert_false (_sysprof_ring_drainer_drain_pass (f.drainer));
  g_assert_true (sysprof_ring_drainer_get_limit_reached (f.drainer));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, 100);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 200);
  g_assert_cmpuint (sysprof_capture_writer_get_size (f.writer), <=, cap);
  /* Consumed, not left to stall the producer. */
  g_assert_true (sysprof_mapped_ring_buffer_is_empty (ring));

  for (guint i = 0; i < 10; i++)
    write_mark_at (ring, "capped", 300 + i);
  g_assert_false (_sysprof_ring_drainer_drain_pass (f.drainer));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, 100);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 210);
  g_assert_cmpuint (sysprof_capture_writer_get_size (f.writer), <=, cap);

  sysprof_ring_drainer_set_max_bytes (f.drainer, 0);
  g_assert_false (sysprof_ring_drainer_get_limit_reached (f.drainer));
  for (guint i = 0; i < 5; i++)
    write_mark_at (ring, "capped", 400 + i);
  g_assert_false (_sysprof_ring_drainer_drain_pass (f.drainer));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, 105);
  g_assert_false (sysprof_ring_drainer_get_limit_reached (f.drainer));

  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (count_marks (&f, "capped", &lost), ==, 105);
  g_assert_cmpuint (lost, ==, 210);
  sysprof_mapped_ring_buffer_unref (ring);
  fixture_clear (&f);
}

/* The writer's own cap (set by the session for all its writers) stops the
 * drainer the same way. */
static void
test_writer_max_size (void)
{
  SysprofMappedRingBuffer *ring;
  Fixture                  f;
  const gsize              mark_len = sizeof (SysprofCaptureMark) + 8;
  guint64                  cap, lost;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  ring = producer_ring (&f, 16);
  cap = sysprof_capture_writer_get_size (f.writer) + 50 * mark_len;
  g_assert_true (sysprof_capture_writer_set_max_size (f.writer, cap));
  for (guint i = 0; i < 80; i++)
    write_mark_at (ring, "capped", i);
  g_assert_false (_sysprof_ring_drainer_drain_pass (f.drainer));
  g_assert_true (sysprof_ring_drainer_get_limit_reached (f.drainer));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, 50);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 30);
  g_assert_cmpuint (sysprof_capture_writer_get_size (f.writer), ==, cap);
  g_assert_true (sysprof_mapped_ring_buffer_is_empty (ring));
  /* The owner lifts the cap for its last frames; the rings stay stopped. */
  g_assert_true (sysprof_capture_writer_set_max_size (f.writer, 0));
  write_mark_at (ring, "capped", 100);
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (count_marks (&f, "capped", &lost), ==, 50);
  g_assert_cmpuint (lost, ==, 31);
  sysprof_mapped_ring_buffer_unref (ring);
  fixture_clear (&f);
}

/* ---- memory streams ---------------------------------------------------------- */

#define STREAM_PATH_MAX 256

/* Publishes a FILE_CHUNK frame: @path copied into the 256-byte field as is
 * (@path_bytes of it, so that bytes after its NUL can be garbage), @len
 * bytes of @data, and a frame of @frame_len bytes (0: what it needs). */
static void
write_chunk_raw (SysprofMappedRingBuffer *ring,
                 gint32                   pid,
                 gint64                   time,
                 const char              *path,
                 gsize                    path_bytes,
                 gboolean                 is_last,
                 const guint8            *data,
                 gsize                    len,
                 gsize                    frame_len)
{
  SysprofCaptureFileChunk *chunk;

  if (frame_len == 0)
    frame_len = (sizeof *chunk + len + 7) & ~(gsize) 7;
  chunk = (SysprofCaptureFileChunk *) write_frame (ring, frame_len, SYSPROF_CAPTURE_FRAME_FILE_CHUNK, pid, time);
  chunk->is_last = is_last;
  chunk->len = (guint32) len;
  memcpy (chunk->path, path, MIN (path_bytes, sizeof chunk->path));
  memcpy (chunk->data, data, len);
}

static void
write_chunk (
    SysprofMappedRingBuffer *ring, gint32 pid, const char *path, gboolean is_last, const guint8 *data, gsize len)
{
  write_chunk_raw (ring, pid, 1000, path, strlen (path) + 1, is_last, data, len, 0);
}

/* The FILE_CHUNK frames of the capture, copied, in order; the memory-stream
 * summary's text in @summary. */
static GPtrArray *
read_chunks (Fixture *f, char **summary)
{
  GPtrArray              *chunks = g_ptr_array_new_with_free_func (g_free);
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;

  g_assert_true (sysprof_capture_writer_flush (f->writer));
  reader = sysprof_capture_reader_new (f->path);
  g_assert_nonnull (reader);
  *summary = NULL;
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
        {
          const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);

          g_assert_nonnull (chunk);
          g_ptr_array_add (chunks, g_memdup2 (chunk, chunk->frame.len));
        }
      else if (type == SYSPROF_CAPTURE_FRAME_METADATA)
        {
          const SysprofCaptureMetadata *meta = sysprof_capture_reader_read_metadata (reader);

          g_assert_nonnull (meta);
          if (g_str_equal (meta->id, SYSPROF_MEMORY_STREAM_METADATA_ID))
            {
              g_assert_null (*summary);
              *summary = g_strdup (meta->metadata);
            }
        }
      else
        g_assert_true (sysprof_capture_reader_skip (reader));
    }
  sysprof_capture_reader_unref (reader);
  return chunks;
}

/* A raw block as the tracker makes them (libsysprof-capture's encoder),
 * @len bytes at most: a stack, then allocations and releases of a few sizes
 * at nearby addresses.  Returns its length; *@n_events says how many. */
static gsize
fill_raw_block (guint8 *block, gsize len, guint32 seed, guint *n_events)
{
  static const SysprofCaptureAddress frames[3] = { 0x401000, 0x401100, 0x7f0000001000 };
  g_autofree guint8                 *buffer = g_malloc (len);
  SysprofMemoryStreamEncoder         enc;
  GRand                             *rand = g_rand_new_with_seed (seed);
  const guint8                      *data;
  gint64                             time = 1000;
  gsize                              n;

  *n_events = 0;
  g_assert_true (sysprof_memory_stream_encoder_init (&enc, buffer, len));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 1, frames, 3));
  while (sysprof_memory_stream_encoder_get_room (&enc) >= 64)
    {
      SysprofCaptureAddress addr = 0x5000 + 16 * (guint) g_rand_int_range (rand, 0, 64);

      time += g_rand_int_range (rand, 50, 250);
      g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, time, addr,
                                                                   16 * (guint) g_rand_int_range (rand, 1, 5), 1));
      g_assert_true (sysprof_memory_stream_encoder_add_release (&enc, time + 10, addr));
      *n_events += 2;
    }
  data = sysprof_memory_stream_encoder_get_block (&enc, &n);
  memcpy (block, data, n);
  g_rand_free (rand);
  return n;
}

static void
assert_chunk_header (const SysprofCaptureFileChunk *chunk, gint32 pid, gint64 time, const char *path, gboolean is_last)
{
  g_assert_cmpint (chunk->frame.pid, ==, pid);
  g_assert_cmpint (chunk->frame.time, ==, time);
  g_assert_cmpstr (chunk->path, ==, path);
  g_assert_cmpint (chunk->is_last, ==, is_last);
  g_assert_cmpuint (chunk->frame.len, ==, (sizeof *chunk + chunk->len + 7) & ~(gsize) 7);
  /* Zeros behind the path and behind the data. */
  for (gsize i = strlen (path); i < sizeof chunk->path; i++)
    g_assert_cmpint (chunk->path[i], ==, 0);
  for (gsize i = sizeof *chunk + chunk->len; i < chunk->frame.len; i++)
    g_assert_cmpint (((const guint8 *) chunk)[i], ==, 0);
}

/* Raw blocks are compressed into 'Z' blocks that decompress to exactly the
 * bytes the tracker wrote; blocks that would not shrink, and blocks that are
 * not raw, are written as they came. */
static void
test_stream_compress (void)
{
  static guint8 big[SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK], noise[5000], zblock[100], other[50];
  static guint8 out[SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK];
  g_autoptr (GPtrArray) chunks = NULL;
  g_autofree char               *summary = NULL;
  g_autofree char               *want = NULL;
  SysprofMappedRingBuffer       *ring;
  const SysprofCaptureFileChunk *c;
  GRand                         *rand = g_rand_new_with_seed (0x5a);
  guint64                        blocks, packed, refused, raw, stored;
  guint64                        raw_len = 0;
  gsize                          shift = 0, n = 1, big_len;
  guint                          n_events;
  Fixture                        f;

  big_len = fill_raw_block (big, sizeof big, 1, &n_events);
  g_assert_cmpuint (big_len, >, sizeof big - 128);
  noise[0] = 'R';
  for (gsize i = 1; i < sizeof noise; i++)
    noise[i] = (guint8) g_rand_int (rand);
  zblock[0] = 'Z';
  for (gsize i = 1; i < sizeof zblock; i++)
    zblock[i] = (guint8) g_rand_int (rand);
  for (gsize i = 0; i < sizeof other; i++)
    other[i] = 'x';

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  ring = producer_ring (&f, 64);
  write_chunk (ring, 42, "sysprof/memory-stream/42", FALSE, big, big_len);
  write_chunk (ring, 42, "sysprof/memory-stream/42", FALSE, noise, sizeof noise);
  write_chunk (ring, 42, "sysprof/memory-stream/43", FALSE, zblock, sizeof zblock);
  write_chunk (ring, 42, "sysprof/memory-stream/43", FALSE, other, sizeof other);
  write_chunk (ring, 42, "sysprof/memory-stream/42", TRUE, (const guint8 *) "R\001", 2);
  sysprof_ring_drainer_close (f.drainer);

  chunks = read_chunks (&f, &summary);
  g_assert_cmpuint (chunks->len, ==, 5);
  /* 'Z', the raw length, then one zstd frame of the whole raw block. */
  c = g_ptr_array_index (chunks, 0);
  assert_chunk_header (c, 42, 1000, "sysprof/memory-stream/42", FALSE);
  g_assert_cmpint (c->data[0], ==, 'Z');
  do
    raw_len |= (guint64) (c->data[n] & 0x7F) << shift, shift += 7;
  while (c->data[n++] & 0x80);
  g_assert_cmpuint (raw_len, ==, big_len);
  g_assert_cmpuint (c->len, <, big_len / 2);
  g_assert_cmpuint (ZSTD_decompress (out, sizeof out, c->data + n, c->len - n), ==, big_len);
  g_assert_cmpmem (out, big_len, big, big_len);
  /* Noise does not shrink; the others are not raw blocks. */
  c = g_ptr_array_index (chunks, 1);
  assert_chunk_header (c, 42, 1000, "sysprof/memory-stream/42", FALSE);
  g_assert_cmpmem (c->data, c->len, noise, sizeof noise);
  c = g_ptr_array_index (chunks, 2);
  assert_chunk_header (c, 42, 1000, "sysprof/memory-stream/43", FALSE);
  g_assert_cmpmem (c->data, c->len, zblock, sizeof zblock);
  c = g_ptr_array_index (chunks, 3);
  g_assert_cmpmem (c->data, c->len, other, sizeof other);
  c = g_ptr_array_index (chunks, 4);
  assert_chunk_header (c, 42, 1000, "sysprof/memory-stream/42", TRUE);
  g_assert_cmpmem (c->data, c->len, "R\001", 2);
  /* The hint that a block defines no stack: only on sound raw blocks
   * without a stack record ("R\001" holds no record at all). */
  g_assert_cmpuint (((const SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 0))->padding1, ==, 0);
  g_assert_cmpuint (((const SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 2))->padding1, ==, 0);
  g_assert_cmpuint (((const SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 3))->padding1, ==, 0);
  g_assert_cmpuint (c->padding1, ==, SYSPROF_MEMORY_STREAM_CHUNK_NO_STACKS);

  sysprof_ring_drainer_get_memory_streams (f.drainer, &blocks, &packed, &refused, &raw, &stored);
  g_assert_cmpuint (blocks, ==, 5);
  g_assert_cmpuint (packed, ==, 1);
  g_assert_cmpuint (refused, ==, 0);
  g_assert_cmpuint (raw, ==, big_len + sizeof noise + sizeof zblock + sizeof other + 2);
  g_assert_cmpuint (stored, ==, raw - big_len + ((const SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 0))->len);
  /* The events counted are those of the real block and of the noise up to
   * its first fault (a few records at most): the 'Z' block is not counted,
   * and "R\001" holds none. */
  g_assert_cmpuint (sysprof_ring_drainer_get_n_stream_events (f.drainer), >=, n_events);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_stream_events (f.drainer), <, n_events + 100);
  want = g_strdup_printf ("blocks=5 raw-bytes=%" G_GUINT64_FORMAT " stored-bytes=%" G_GUINT64_FORMAT
                          " compressed=1 refused=0 zstd-level=%d allocations=",
                          raw, stored, SYSPROF_RING_DRAINER_ZSTD_LEVEL);
  g_assert_true (g_str_has_prefix (summary, want));
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, 0);
  sysprof_mapped_ring_buffer_unref (ring);
  g_rand_free (rand);
  fixture_clear (&f);
}

/* A hostile producer's memory streams: every malformed chunk is refused and
 * counted, and nothing else is lost; what is taken has no stray bytes. */
static void
test_stream_hostile (void)
{
  static const char *const bad_paths[] = {
    "sysprof/memory-stream/",
    "sysprof/memory-stream/0",
    "sysprof/memory-stream/-1",
    "sysprof/memory-stream/12a",
    "sysprof/memory-stream/01",
    "sysprof/memory-stream/2147483648",
    "sysprof/memory-stream/99999999999",
    "sysprof/memory-stream/1/2",
    "sysprof/memory-stream/ 7",
  };
  static guint8 block[SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK + 8];
  char          path[STREAM_PATH_MAX];
  g_autoptr (GPtrArray) chunks = NULL;
  g_autofree char         *summary = NULL;
  SysprofMappedRingBuffer *a, *b;
  GRand                   *rand = g_rand_new_with_seed (0xbad);
  guint64                  refused, blocks;
  guint                    n_refused = 0;
  Fixture                  f;

  for (gsize i = 0; i < sizeof block; i++)
    block[i] = (guint8) g_rand_int (rand);
  block[0] = 'R';
  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  a = producer_ring (&f, 64);
  b = producer_ring (&f, 64);

  /* Ring a belongs to pid 42 (its first frame's). */
  write_mark_at (a, "first", 1000);
  for (guint i = 0; i < G_N_ELEMENTS (bad_paths); i++, n_refused++)
    write_chunk (a, 42, bad_paths[i], FALSE, block, 16);
  /* Another process's stream in this ring. */
  write_chunk (a, 43, "sysprof/memory-stream/43", FALSE, block, 16), n_refused++;
  /* Too large a block; an empty one; a frame longer than its block. */
  write_chunk (a, 42, "sysprof/memory-stream/42", FALSE, block, SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK + 1),
      n_refused++;
  write_chunk (a, 42, "sysprof/memory-stream/42", FALSE, block, 0), n_refused++;
  write_chunk_raw (a, 42, 1000, "sysprof/memory-stream/42", 25, FALSE, block, 10, 400), n_refused++;
  /* Taken: garbage after the path's NUL (zeroed), the largest thread id,
   * noise as data (kept raw), and a file that is not a stream at all, from
   * any pid (written untouched, as before). */
  memset (path, '#', sizeof path);
  memcpy (path, "sysprof/memory-stream/42", 25);
  write_chunk_raw (a, 42, 1000, path, sizeof path, FALSE, block, 300, 0);
  write_chunk (a, 42, "sysprof/memory-stream/2147483647", TRUE, block, SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK);
  write_chunk (a, 43, "some/other/file", FALSE, block, 16);
  /* Ring b starts with a chunk: pid 7 is its process's. */
  write_chunk (b, 7, "sysprof/memory-stream/7", FALSE, block, 20);
  write_chunk (b, 42, "sysprof/memory-stream/42", FALSE, block, 20), n_refused++;
  write_chunk (b, 7, "sysprof/memory-stream/8", FALSE, block, 20);
  sysprof_ring_drainer_close (f.drainer);

  chunks = read_chunks (&f, &summary);
  g_assert_cmpuint (chunks->len, ==, 5);
  assert_chunk_header (g_ptr_array_index (chunks, 0), 42, 1000, "sysprof/memory-stream/42", FALSE);
  g_assert_cmpuint (((SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 0))->len, ==, 300);
  g_assert_cmpmem (((SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 0))->data, 300, block, 300);
  assert_chunk_header (g_ptr_array_index (chunks, 1), 42, 1000, "sysprof/memory-stream/2147483647", TRUE);
  g_assert_cmpstr (((SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 2))->path, ==, "some/other/file");
  g_assert_cmpint (((SysprofCaptureFileChunk *) g_ptr_array_index (chunks, 2))->frame.pid, ==, 43);
  assert_chunk_header (g_ptr_array_index (chunks, 3), 7, 1000, "sysprof/memory-stream/7", FALSE);
  assert_chunk_header (g_ptr_array_index (chunks, 4), 7, 1000, "sysprof/memory-stream/8", FALSE);

  sysprof_ring_drainer_get_memory_streams (f.drainer, &blocks, NULL, &refused, NULL, NULL);
  g_assert_cmpuint (refused, ==, n_refused);
  g_assert_cmpuint (blocks, ==, 4);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_lost (f.drainer), ==, n_refused);
  g_assert_cmpuint (n_refused, ==, G_N_ELEMENTS (bad_paths) + 5);
  g_assert_nonnull (strstr (summary, " refused=14 "));
  sysprof_mapped_ring_buffer_unref (a);
  sysprof_mapped_ring_buffer_unref (b);
  g_rand_free (rand);
  fixture_clear (&f);
}

/* A pass takes only what was stamped before it began: a frame stamped a
 * little ahead waits for a later pass (close takes it at once), one far
 * ahead (another clock) does not wait. */
static void
test_horizon (void)
{
  SysprofMappedRingBuffer *a, *b;
  Fixture                  f;
  guint                    frames;
  gsize                    bytes;
  gint64                   now;

  fixture_init (&f);
  sysprof_ring_drainer_set_writer (f.drainer, f.writer);
  a = producer_ring (&f, 1);
  b = producer_ring (&f, 1);
  now = SYSPROF_CAPTURE_CURRENT_TIME;
  write_frame (a, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 1, now);
  write_frame (b, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 2, now + 300 * 1000 * 1000);
  write_frame (b, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 2, now + 301 * 1000 * 1000);
  _sysprof_ring_drainer_drain_pass (f.drainer);
  _sysprof_ring_drainer_get_last_pass (f.drainer, &frames, &bytes);
  g_assert_cmpuint (frames, ==, 3);
  /* 5 ms ahead: not yet, nor what its ring holds behind it. */
  now = SYSPROF_CAPTURE_CURRENT_TIME;
  write_frame (a, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 1, now + 5 * 1000 * 1000);
  write_frame (a, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 1, now + 6 * 1000 * 1000);
  write_frame (b, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 2, now);
  _sysprof_ring_drainer_drain_pass (f.drainer);
  _sysprof_ring_drainer_get_last_pass (f.drainer, &frames, &bytes);
  g_assert_cmpuint (frames, ==, 1);
  g_usleep (7000);
  _sysprof_ring_drainer_drain_pass (f.drainer);
  _sysprof_ring_drainer_get_last_pass (f.drainer, &frames, &bytes);
  g_assert_cmpuint (frames, ==, 2);
  write_frame (a, 24, SYSPROF_CAPTURE_FRAME_TIMESTAMP, 1, SYSPROF_CAPTURE_CURRENT_TIME + 5 * 1000 * 1000);
  sysprof_ring_drainer_close (f.drainer);
  g_assert_cmpuint (sysprof_ring_drainer_get_n_frames (f.drainer), ==, 7);
  sysprof_mapped_ring_buffer_unref (a);
  sysprof_mapped_ring_buffer_unref (b);
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/RingDrainer/round-trip", test_round_trip);
  g_test_add_func ("/Libsysprof/RingDrainer/merge", test_merge);
  g_test_add_func ("/Libsysprof/RingDrainer/counter-ids", test_counter_ids);
  g_test_add_func ("/Libsysprof/RingDrainer/other-context", test_other_context);
  g_test_add_func ("/Libsysprof/RingDrainer/limits", test_limits);
  g_test_add_func ("/Libsysprof/RingDrainer/hostile", test_hostile);
  g_test_add_func ("/Libsysprof/RingDrainer/lost-events-digits", test_lost_events_digits);
  g_test_add_data_func ("/Libsysprof/RingDrainer/flipping-producer", GINT_TO_POINTER (FALSE), test_flipping_producer);
  g_test_add_data_func ("/Libsysprof/RingDrainer/flipping-producer-refused", GINT_TO_POINTER (TRUE),
                        test_flipping_producer);
  g_test_add_func ("/Libsysprof/RingDrainer/bounded-passes", test_bounded_passes);
  g_test_add_func ("/Libsysprof/RingDrainer/merge-many", test_merge_many);
  g_test_add_func ("/Libsysprof/RingDrainer/max-bytes", test_max_bytes);
  g_test_add_func ("/Libsysprof/RingDrainer/writer-max-size", test_writer_max_size);
  g_test_add_func ("/Libsysprof/RingDrainer/stream-compress", test_stream_compress);
  g_test_add_func ("/Libsysprof/RingDrainer/stream-hostile", test_stream_hostile);
  g_test_add_func ("/Libsysprof/RingDrainer/horizon", test_horizon);
  return g_test_run ();
}
