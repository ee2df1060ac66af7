// SPDX-License-Identifier: GPL-3.0-or-later
/* Mapped ring buffer: frames across the wrap point, a full ring, and a
 * consumer facing a hostile header and body. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include <sysprof-capture.h>

typedef struct
{
  guint32 next;
  guint   n_frames;
  gsize   n_bytes;
} Expect;

static gsize
page (void)
{
  return (gsize) sysconf (_SC_PAGESIZE);
}

static void
fill_frame (guint8 *p, gsize len, guint32 seq)
{
  SysprofCaptureFrame *f = (SysprofCaptureFrame *) p;

  memset (p, 0, len);
  f->len = (guint16) len;
  f->cpu = -1;
  f->pid = (gint32) seq;
  f->time = (gint64) seq * 1000;
  f->type = SYSPROF_CAPTURE_FRAME_TIMESTAMP;
  for (gsize i = sizeof *f; i < len; i++)
    p[i] = (guint8) (seq + i);
}

/* Takes one frame per call and checks its sequence and payload. */
static bool
check_frame (const void *data, size_t *len, void *user_data)
{
  Expect                    *expect = user_data;
  const SysprofCaptureFrame *f = data;
  const guint8              *p = data;

  g_assert_cmpuint (*len, >=, sizeof *f);
  g_assert_cmpuint (f->len, <=, *len);
  g_assert_cmpint (f->pid, ==, (gint32) expect->next);
  for (gsize i = sizeof *f; i < f->len; i++)
    g_assert_cmpuint (p[i], ==, (guint8) (expect->next + i));
  expect->next++;
  expect->n_frames++;
  expect->n_bytes += f->len;
  *len = f->len;
  return true;
}

static void
test_round_trip (void)
{
  SysprofMappedRingBuffer *reader = sysprof_mapped_ring_buffer_new_reader (page ());
  SysprofMappedRingBuffer *writer;
  Expect                   expect = { 0 };
  guint32                  seq = 0;
  int                      fd;

  g_assert_nonnull (reader);
  g_assert_true (sysprof_mapped_ring_buffer_is_empty (reader));
  fd = sysprof_mapped_ring_buffer_dup_fd (reader);
  g_assert_cmpint (fd, >=, 0);
  /* The consumer seals its memfd: the producer cannot shrink it. */
  g_assert_cmpint (ftruncate (fd, 0), !=, 0);
  writer = sysprof_mapped_ring_buffer_new_writer (fd);
  close (fd);
  g_assert_nonnull (writer);
  g_assert_cmpuint (sysprof_mapped_ring_buffer_get_size (writer), ==, page ());

  /* Odd frame sizes walk the tail over the end of the ring many times. */
  while (seq < 5000)
    {
      gsize   len = 24 + 8 * (seq % 37);
      guint8 *p = sysprof_mapped_ring_buffer_allocate (writer, len);

      if (p == NULL)
        {
          g_assert_cmpint (errno, ==, EAGAIN);
          g_assert_true (sysprof_mapped_ring_buffer_drain (reader, check_frame, &expect));
          continue;
        }
      fill_frame (p, len, seq++);
      g_assert_true (sysprof_mapped_ring_buffer_advance (writer, len));
    }
  g_assert_true (sysprof_mapped_ring_buffer_drain (reader, check_frame, &expect));
  g_assert_true (sysprof_mapped_ring_buffer_is_empty (reader));
  g_assert_cmpuint (expect.n_frames, ==, 5000);
  g_assert_cmpuint (expect.n_bytes, >, 10 * page ());

  sysprof_mapped_ring_buffer_unref (writer);
  sysprof_mapped_ring_buffer_unref (reader);
}

/* Peek offers everything published, contiguous across the end of the ring;
 * consume takes part of it, never more than offered. */
static void
test_peek_consume (void)
{
  SysprofMappedRingBuffer *reader = sysprof_mapped_ring_buffer_new_reader (page ());
  SysprofMappedRingBuffer *writer;
  Expect                   expect = { 0 };
  guint32                  seq = 0;
  int                      fd = sysprof_mapped_ring_buffer_dup_fd (reader);

  writer = sysprof_mapped_ring_buffer_new_writer (fd);
  close (fd);
  while (seq < 3000)
    {
      gsize       len = 24 + 8 * (seq % 29);
      guint8     *p = sysprof_mapped_ring_buffer_allocate (writer, len);
      const void *data;
      size_t      avail, took = 0;

      if (p != NULL)
        {
          fill_frame (p, len, seq++);
          g_assert_true (sysprof_mapped_ring_buffer_advance (writer, len));
          if (seq % 7 != 0)
            continue;
        }
      data = sysprof_mapped_ring_buffer_peek (reader, &avail);
      g_assert_nonnull (data);
      g_assert_cmpuint (avail, <, page ());
      /* Every other time only the first frame. */
      while (took < avail && (took == 0 || seq % 2 == 0))
        {
          size_t one = avail - took;

          check_frame ((const guint8 *) data + took, &one, &expect);
          took += one;
        }
      g_assert_false (sysprof_mapped_ring_buffer_consume (reader, avail + 8));
      g_assert_cmpint (errno, ==, EINVAL);
      g_assert_false (sysprof_mapped_ring_buffer_consume (reader, 4));
      g_assert_true (sysprof_mapped_ring_buffer_consume (reader, took));
    }
  while (!sysprof_mapped_ring_buffer_is_empty (reader))
    g_assert_true (sysprof_mapped_ring_buffer_drain (reader, check_frame, &expect));
  g_assert_cmpuint (expect.n_frames, ==, 3000);
  sysprof_mapped_ring_buffer_unref (writer);
  sysprof_mapped_ring_buffer_unref (reader);
}

static bool
consume_nothing (const void *data, size_t *len, void *user_data)
{
  (void) data;
  (void) user_data;
  *len = 0;
  return true;
}

static void
test_full (void)
{
  SysprofMappedRingBuffer *reader = sysprof_mapped_ring_buffer_new_reader (page ());
  SysprofMappedRingBuffer *writer;
  Expect                   expect = { 0 };
  guint                    n = 0;
  int                      fd = sysprof_mapped_ring_buffer_dup_fd (reader);

  writer = sysprof_mapped_ring_buffer_new_writer (fd);
  close (fd);
  g_assert_nonnull (writer);
  g_assert_null (sysprof_mapped_ring_buffer_allocate (writer, page ()));
  for (guint8 *p; (p = sysprof_mapped_ring_buffer_allocate (writer, 64)) != NULL; n++)
    {
      fill_frame (p, 64, n);
      g_assert_true (sysprof_mapped_ring_buffer_advance (writer, 64));
    }
  g_assert_cmpint (errno, ==, EAGAIN);
  /* Never up to head: one frame's worth stays free. */
  g_assert_cmpuint (n, ==, page () / 64 - 1);
  g_assert_true (sysprof_mapped_ring_buffer_drain (reader, consume_nothing, NULL));
  g_assert_null (sysprof_mapped_ring_buffer_allocate (writer, 64));
  g_assert_true (sysprof_mapped_ring_buffer_drain (reader, check_frame, &expect));
  g_assert_cmpuint (expect.n_frames, ==, n);
  g_assert_nonnull (sysprof_mapped_ring_buffer_allocate (writer, 64));

  /* Wrong arguments. */
  g_assert_null (sysprof_mapped_ring_buffer_new_reader (100));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_false (sysprof_mapped_ring_buffer_advance (writer, 12));
  g_assert_false (sysprof_mapped_ring_buffer_drain (writer, consume_nothing, NULL));
  sysprof_mapped_ring_buffer_unref (NULL);

  sysprof_mapped_ring_buffer_unref (writer);
  sysprof_mapped_ring_buffer_unref (reader);
}

static void
test_writer_rejects_bad_header (void)
{
  SysprofMappedRingBuffer *reader = sysprof_mapped_ring_buffer_new_reader (2 * page ());
  int                      fd = sysprof_mapped_ring_buffer_dup_fd (reader);
  guint32                 *hdr = mmap (NULL, page (), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  /* offset, size: each off from the file (page + 2 pages). */
  const guint32 p = (guint32) page ();
  const guint32 bad[][2] = {
    { p + 8, 2 * p }, { 0, 2 * p }, { p, 0 }, { p, 2 * p + 8 }, { p, p }, { p, (guint32) -p }
  };

  g_assert_true (hdr != MAP_FAILED);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      hdr[2] = bad[i][0];
      hdr[3] = bad[i][1];
      g_assert_null (sysprof_mapped_ring_buffer_new_writer (fd));
      g_assert_cmpint (errno, ==, EINVAL);
    }
  hdr[2] = p;
  hdr[3] = 2 * p;
  sysprof_mapped_ring_buffer_unref (sysprof_mapped_ring_buffer_new_writer (fd));
  munmap (hdr, page ());
  close (fd);
  g_assert_null (sysprof_mapped_ring_buffer_new_writer (-1));
  sysprof_mapped_ring_buffer_unref (reader);
}

typedef struct
{
  gsize offered;
  guint calls;
} Hostile;

/* What a careful consumer does: looks at every byte it is offered, takes
 * some, sometimes all. */
static bool
touch_all (const void *data, size_t *len, void *user_data)
{
  Hostile      *h = user_data;
  const guint8 *p = data;
  guint8        sum = 0;

  for (gsize i = 0; i < *len; i++)
    sum ^= p[i];
  h->offered += *len;
  h->calls++;
  *len = (h->calls % 3) ? (*len / 2) & ~(size_t) 7 : *len;
  return sum != 0xFF || h->calls % 2;
}

static void
test_hostile (void)
{
  gsize                    size = 4 * page ();
  SysprofMappedRingBuffer *reader = sysprof_mapped_ring_buffer_new_reader (size);
  int                      fd = sysprof_mapped_ring_buffer_dup_fd (reader);
  guint8                  *map = mmap (NULL, page () + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  guint32                 *hdr = (guint32 *) map;
  GRand                   *rand = g_rand_new_with_seed (0x5157);

  g_assert_true (map != MAP_FAILED);
  for (guint round = 0; round < 20000; round++)
    {
      Hostile h = { 0 };
      bool    ok;

      for (gsize i = 0; i < 64; i++)
        map[page () + g_rand_int_range (rand, 0, (gint32) size)] = (guint8) g_rand_int (rand);
      switch (round % 4)
        {
        case 0: /* anything */
          hdr[0] = g_rand_int (rand);
          hdr[1] = g_rand_int (rand);
          break;
        case 1: /* in range, aligned */
          hdr[0] = g_rand_int_range (rand, 0, (gint32) size) & ~7u;
          hdr[1] = g_rand_int_range (rand, 0, (gint32) size) & ~7u;
          break;
        case 2: /* in range, maybe misaligned */
          hdr[0] = g_rand_int_range (rand, 0, (gint32) size);
          hdr[1] = g_rand_int_range (rand, 0, (gint32) size);
          break;
        default: /* the size and offset words are the producer's to spoil */
          hdr[2] = g_rand_int (rand);
          hdr[3] = g_rand_int (rand);
          hdr[0] = (guint32) size - 8;
          hdr[1] = (guint32) size - 16;
          break;
        }
      ok = sysprof_mapped_ring_buffer_drain (reader, touch_all, &h);
      if (!ok)
        {
          g_assert_cmpint (errno, ==, EBADMSG);
          sysprof_mapped_ring_buffer_clear (reader);
          g_assert_true (sysprof_mapped_ring_buffer_is_empty (reader));
        }
      /* Bounded: never more than one body per drain, read from the mapping. */
      g_assert_cmpuint (h.offered, <=, size * h.calls);
      g_assert_cmpuint (h.calls, <=, size / 8 + 1);
    }
  g_rand_free (rand);
  munmap (map, page () + size);
  close (fd);
  sysprof_mapped_ring_buffer_unref (reader);
}

/* The head word lies in the producer's memory: whatever it writes there, the
 * consumer goes on from where it is, frame after frame. */
static void
test_head_is_ours (void)
{
  SysprofMappedRingBuffer *reader = sysprof_mapped_ring_buffer_new_reader (page ());
  SysprofMappedRingBuffer *writer;
  Expect                   expect = { 0 };
  int                      fd = sysprof_mapped_ring_buffer_dup_fd (reader);
  guint32                 *hdr = mmap (NULL, page (), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const guint32            spoilt[] = { 4, 0xFFFFFFF8u, (guint32) page () - 8, 0 };
  guint32                  seq = 0;

  g_assert_true (hdr != MAP_FAILED);
  writer = sysprof_mapped_ring_buffer_new_writer (fd);
  close (fd);
  for (guint round = 0; round < 400; round++)
    {
      const void *data;
      size_t      avail, one;

      for (guint i = 0; i < 3; i++)
        {
          guint8 *p = sysprof_mapped_ring_buffer_allocate (writer, 48);

          g_assert_nonnull (p);
          fill_frame (p, 48, seq++);
          g_assert_true (sysprof_mapped_ring_buffer_advance (writer, 48));
        }
      __atomic_store_n (&hdr[0], spoilt[round % G_N_ELEMENTS (spoilt)], __ATOMIC_SEQ_CST);
      /* One frame by peek and consume, the others by drain. */
      data = sysprof_mapped_ring_buffer_peek (reader, &avail);
      g_assert_nonnull (data);
      g_assert_cmpuint (avail, ==, 3 * 48);
      one = avail;
      check_frame (data, &one, &expect);
      g_assert_true (sysprof_mapped_ring_buffer_consume (reader, one));
      __atomic_store_n (&hdr[0], spoilt[(round + 1) % G_N_ELEMENTS (spoilt)], __ATOMIC_SEQ_CST);
      g_assert_false (sysprof_mapped_ring_buffer_is_empty (reader));
      g_assert_true (sysprof_mapped_ring_buffer_drain (reader, check_frame, &expect));
      g_assert_true (sysprof_mapped_ring_buffer_is_empty (reader));
      /* What the producer reads back is where the consumer stands. */
      g_assert_cmpuint (__atomic_load_n (&hdr[0], __ATOMIC_SEQ_CST), ==, __atomic_load_n (&hdr[1], __ATOMIC_SEQ_CST));
    }
  g_assert_cmpuint (expect.n_frames, ==, seq);
  munmap (hdr, page ());
  sysprof_mapped_ring_buffer_unref (writer);
  sysprof_mapped_ring_buffer_unref (reader);
}

static void
test_frame_validate (void)
{
  guint8              buf[128] = { 0 };
  SysprofCaptureMark *mark = (SysprofCaptureMark *) buf;

  mark->frame.len = sizeof buf;
  mark->frame.type = SYSPROF_CAPTURE_FRAME_MARK;
  memset (mark->name, 'x', sizeof mark->name);
  memset (buf + sizeof *mark, 'y', sizeof buf - sizeof *mark);
  g_assert_true (sysprof_capture_frame_validate (buf, sizeof buf));
  /* Strings were terminated in place. */
  g_assert_cmpuint (mark->name[sizeof mark->name - 1], ==, 0);
  g_assert_cmpuint (buf[sizeof buf - 1], ==, 0);
  g_assert_false (sysprof_capture_frame_validate (buf, sizeof buf - 8));
  g_assert_cmpint (errno, ==, EBADMSG);
  mark->frame.len = 96;
  g_assert_false (sysprof_capture_frame_validate (buf, 96));
  mark->frame.len = sizeof buf;
  mark->frame.type = 0xFF;
  g_assert_false (sysprof_capture_frame_validate (buf, sizeof buf));
  mark->frame.type = SYSPROF_CAPTURE_FRAME_SAMPLE;
  ((SysprofCaptureSample *) buf)->n_addrs = 100;
  g_assert_false (sysprof_capture_frame_validate (buf, sizeof buf));
  g_assert_false (sysprof_capture_frame_validate (NULL, 0));
  g_assert_cmpint (errno, ==, EINVAL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Capture/MappedRingBuffer/round-trip", test_round_trip);
  g_test_add_func ("/Capture/MappedRingBuffer/full", test_full);
  g_test_add_func ("/Capture/MappedRingBuffer/peek-consume", test_peek_consume);
  g_test_add_func ("/Capture/MappedRingBuffer/writer-rejects-bad-header", test_writer_rejects_bad_header);
  g_test_add_func ("/Capture/MappedRingBuffer/hostile", test_hostile);
  g_test_add_func ("/Capture/MappedRingBuffer/head-is-ours", test_head_is_ours);
  g_test_add_func ("/Capture/MappedRingBuffer/frame-validate", test_frame_validate);
  return g_test_run ();
}
