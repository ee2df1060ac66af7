// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofRingDrainer: rings written as a producer would (and as a hostile
 * one would), drained by the main loop into a capture, read back. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sysprof.h>

typedef struct
{
  char                 *path;
  int                   fd;
  SysprofCaptureWriter *writer;
  SysprofRingDrainer   *drainer;
} Fixture;

static void
fixture_init (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  f->fd = g_file_open_tmp ("test-ring-drainer-XXXXXX.syscap", &f->path, &error);
  g_assert_no_error (error);
  f->writer = sysprof_capture_writer_new_from_fd (dup (f->fd), 0);
  g_assert_nonnull (f->writer);
  f->drainer = sysprof_ring_drainer_new (4);
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
    g_main_context_iteration (NULL, TRUE);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/RingDrainer/round-trip", test_round_trip);
  g_test_add_func ("/Libsysprof/RingDrainer/merge", test_merge);
  g_test_add_func ("/Libsysprof/RingDrainer/limits", test_limits);
  g_test_add_func ("/Libsysprof/RingDrainer/hostile", test_hostile);
  return g_test_run ();
}
