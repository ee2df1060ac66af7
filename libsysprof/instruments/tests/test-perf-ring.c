// SPDX-License-Identifier: GPL-3.0-or-later
/* The perf ring reader and the record decoder on synthetic data: rings laid out
 * like a perf mapping in ordinary memory, with records that wrap around the end
 * of the data area, and hand-made records of every kind the recorder handles.
 * Needs no privileges. */
#include <errno.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-instruments.h"
#include "sysprof-perf-recorder-private.h"
#include "sysprof-perf-ring-private.h"

typedef struct
{
  struct perf_event_mmap_page *page;
  guint64                     *words;
  guint8                      *data;
  gsize                        data_size;
  SysprofPerfRing             *ring;
} FakeRing;

static void
fake_ring_init (FakeRing *fake, gsize data_size, guint64 start)
{
  fake->page = g_new0 (struct perf_event_mmap_page, 1);
  fake->words = g_new0 (guint64, data_size / 8);
  fake->data = (guint8 *) fake->words;
  fake->data_size = data_size;
  fake->page->data_head = start;
  fake->page->data_tail = start;
  fake->ring = _sysprof_perf_ring_new_for_memory (fake->page, fake->data, data_size);
  g_assert_nonnull (fake->ring);
}

static void
fake_ring_clear (FakeRing *fake)
{
  g_clear_pointer (&fake->ring, _sysprof_perf_ring_free);
  g_clear_pointer (&fake->page, g_free);
  g_clear_pointer (&fake->words, g_free);
}

/* What the kernel does: copy the record at data_head (wrapping), advance it. */
static void
fake_ring_put (FakeRing *fake, const void *record, gsize len)
{
  guint64 head = fake->page->data_head;

  g_assert_cmpuint (len % 8, ==, 0);
  g_assert_cmpuint (head - fake->page->data_tail + len, <=, fake->data_size);
  for (gsize i = 0; i < len; i++)
    fake->data[(head + i) & (fake->data_size - 1)] = ((const guint8 *) record)[i];
  fake->page->data_head = head + len;
}

/* A record: a header, then u32/u64 fields and strings, sized at the end. */
static GByteArray *
record_new (guint32 type, guint16 misc)
{
  struct perf_event_header header = { .type = type, .misc = misc, .size = 0 };
  GByteArray              *b = g_byte_array_new ();

  g_byte_array_append (b, (const guint8 *) &header, sizeof header);
  return b;
}

static void
put_u32 (GByteArray *b, guint32 v)
{
  g_byte_array_append (b, (const guint8 *) &v, sizeof v);
}

static void
put_u64 (GByteArray *b, guint64 v)
{
  g_byte_array_append (b, (const guint8 *) &v, sizeof v);
}

static void
put_string (GByteArray *b, const char *s)
{
  static const guint8 zeros[8] = { 0 };

  g_byte_array_append (b, (const guint8 *) s, strlen (s) + 1);
  if (b->len % 8 != 0)
    g_byte_array_append (b, zeros, 8 - b->len % 8);
}

static void
put_sample_id (GByteArray *b, guint32 pid, guint32 tid, guint64 time, guint32 cpu)
{
  put_u32 (b, pid);
  put_u32 (b, tid);
  put_u64 (b, time);
  put_u32 (b, cpu);
  put_u32 (b, 0);
}

static GByteArray *
record_finish (GByteArray *b)
{
  struct perf_event_header *header = (struct perf_event_header *) b->data;

  g_assert_cmpuint (b->len % 8, ==, 0);
  g_assert_cmpuint (b->len, <=, G_MAXUINT16);
  header->size = (guint16) b->len;
  return b;
}

/* Ring ------------------------------------------------------------------------- */

typedef struct
{
  GPtrArray *records;
  gboolean   misaligned;
} Collected;

static void
collect_cb (const struct perf_event_header *record, gpointer user_data)
{
  Collected *c = user_data;

  if (GPOINTER_TO_SIZE (record) % 8 != 0)
    c->misaligned = TRUE;
  g_ptr_array_add (c->records, g_bytes_new (record, record->size));
}

/* A record of @len bytes whose payload is @seq repeated. */
static GByteArray *
numbered_record (guint64 seq, gsize len)
{
  GByteArray *b = record_new (PERF_RECORD_SAMPLE, 0);

  while (b->len < len)
    put_u64 (b, seq);
  return record_finish (b);
}

static void
assert_numbered (GBytes *bytes, guint64 seq, gsize len)
{
  gsize                           size;
  const guint8                   *data = g_bytes_get_data (bytes, &size);
  const struct perf_event_header *header = (const struct perf_event_header *) data;

  g_assert_cmpuint (size, ==, len);
  g_assert_cmpuint (header->size, ==, len);
  for (gsize off = sizeof *header; off < len; off += 8)
    {
      guint64 v;

      memcpy (&v, data + off, sizeof v);
      g_assert_cmpuint (v, ==, seq);
    }
}

static void
test_ring_wrap (void)
{
  FakeRing  fake;
  Collected c = { g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref), FALSE };
  g_autoptr (GByteArray) a = numbered_record (1, 48);
  g_autoptr (GByteArray) b = numbered_record (2, 64);

  /* Free-running positions: 232 is offset 232 of a 256-byte area, so the
   * 48-byte record A covers 232..255 and 0..23. */
  fake_ring_init (&fake, 256, 232);
  fake_ring_put (&fake, a->data, a->len);
  fake_ring_put (&fake, b->data, b->len);

  g_assert_cmpuint (_sysprof_perf_ring_drain (fake.ring, collect_cb, &c), ==, 2);
  g_assert_false (c.misaligned);
  assert_numbered (c.records->pdata[0], 1, 48);
  assert_numbered (c.records->pdata[1], 2, 64);
  g_assert_cmpuint (fake.page->data_tail, ==, fake.page->data_head);
  g_assert_cmpuint (fake.page->data_tail, ==, 232 + 48 + 64);
  g_assert_cmpuint (_sysprof_perf_ring_get_n_resyncs (fake.ring), ==, 0);

  /* Nothing new: nothing delivered. */
  g_assert_cmpuint (_sysprof_perf_ring_drain (fake.ring, collect_cb, &c), ==, 0);

  g_ptr_array_unref (c.records);
  fake_ring_clear (&fake);
}

static void
test_ring_laps (void)
{
  FakeRing  fake;
  Collected c = { g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref), FALSE };
  guint64   next_put = 0;
  guint64   next_check = 0;

  /* Many laps around a small ring with sizes that put every record boundary
   * somewhere else, draining at irregular moments. */
  fake_ring_init (&fake, 512, 0);
  for (guint round = 0; round < 200; round++)
    {
      for (guint k = 0; k < 1 + round % 4; k++)
        {
          gsize len = 16 + 8 * ((next_put * 7) % 13);
          g_autoptr (GByteArray) r = numbered_record (next_put, len);

          if (fake.page->data_head - fake.page->data_tail + len > fake.data_size)
            break;
          fake_ring_put (&fake, r->data, r->len);
          next_put++;
        }
      if (round % 3 != 0)
        {
          _sysprof_perf_ring_drain (fake.ring, collect_cb, &c);
          for (; next_check < next_put; next_check++)
            assert_numbered (c.records->pdata[next_check], next_check, 16 + 8 * ((next_check * 7) % 13));
        }
    }
  g_assert_false (c.misaligned);
  g_assert_cmpuint (next_put, >, 200);
  g_assert_cmpuint (fake.page->data_head, >, 10 * fake.data_size);

  g_ptr_array_unref (c.records);
  fake_ring_clear (&fake);
}

static void
test_ring_corrupt (void)
{
  FakeRing  fake;
  Collected c = { g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref), FALSE };
  g_autoptr (GByteArray) good = numbered_record (5, 32);
  struct perf_event_header bad[2] = { { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = 0 } };

  fake_ring_init (&fake, 256, 0);
  fake_ring_put (&fake, good->data, good->len);
  fake_ring_put (&fake, bad, sizeof bad);
  fake_ring_put (&fake, good->data, good->len);

  /* The good record before the garbage arrives; the rest is given up. */
  g_assert_cmpuint (_sysprof_perf_ring_drain (fake.ring, collect_cb, &c), ==, 1);
  g_assert_cmpuint (_sysprof_perf_ring_get_n_resyncs (fake.ring), ==, 1);
  g_assert_cmpuint (fake.page->data_tail, ==, fake.page->data_head);

  /* A head too far ahead of the tail is garbage too. */
  fake.page->data_head = fake.page->data_tail + 4096;
  g_assert_cmpuint (_sysprof_perf_ring_drain (fake.ring, collect_cb, &c), ==, 0);
  g_assert_cmpuint (_sysprof_perf_ring_get_n_resyncs (fake.ring), ==, 2);
  g_assert_cmpuint (fake.page->data_tail, ==, fake.page->data_head);

  g_ptr_array_unref (c.records);
  fake_ring_clear (&fake);
}

/* Decoding ------------------------------------------------------------------- */

static void
feed_cb (const struct perf_event_header *record, gpointer user_data)
{
  _sysprof_perf_recorder_handle_record (user_data, record);
}

static void
test_decode (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  SysprofCaptureWriter   *writer;
  SysprofCaptureReader   *reader;
  SysprofPerfRecorder    *recorder;
  SysprofCaptureFrameType type;
  FakeRing                fake;
  GByteArray             *r;
  int                     fd;
  guint                   n_frames = 0;

  /* SAMPLE with a kernel and a user part. */
  r = record_new (PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
  put_u64 (r, 0xffffffff81000010);
  put_u32 (r, 42);
  put_u32 (r, 43);
  put_u64 (r, 1000);
  put_u32 (r, 1);
  put_u32 (r, 0);
  put_u64 (r, 4);
  put_u64 (r, PERF_CONTEXT_KERNEL);
  put_u64 (r, 0xffffffff81000010);
  put_u64 (r, PERF_CONTEXT_USER);
  put_u64 (r, 0x401000);
  g_ptr_array_add (records, record_finish (r));

  /* SAMPLE with an empty callchain. */
  r = record_new (PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  put_u64 (r, 0x402000);
  put_u32 (r, 42);
  put_u32 (r, 42);
  put_u64 (r, 1100);
  put_u32 (r, 0);
  put_u32 (r, 0);
  put_u64 (r, 0);
  g_ptr_array_add (records, record_finish (r));

  /* SAMPLE claiming more addresses than it holds: dropped. */
  r = record_new (PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  put_u64 (r, 0x403000);
  put_u32 (r, 42);
  put_u32 (r, 42);
  put_u64 (r, 1200);
  put_u32 (r, 0);
  put_u32 (r, 0);
  put_u64 (r, 1000);
  put_u64 (r, 0x403000);
  g_ptr_array_add (records, record_finish (r));

  /* MMAP2 with device and inode. */
  r = record_new (PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
  put_u32 (r, 42);
  put_u32 (r, 42);
  put_u64 (r, 0x400000);
  put_u64 (r, 0x3000);
  put_u64 (r, 0x1000);
  put_u32 (r, 8);
  put_u32 (r, 1);
  put_u64 (r, 1234);
  put_u64 (r, 0);
  put_u32 (r, 5);
  put_u32 (r, 2);
  put_string (r, "/usr/bin/foo with space");
  put_sample_id (r, 42, 42, 900, 1);
  g_ptr_array_add (records, record_finish (r));

  /* Plain MMAP. */
  r = record_new (PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
  put_u32 (r, 42);
  put_u32 (r, 42);
  put_u64 (r, 0x7f0000000000);
  put_u64 (r, 0x1000);
  put_u64 (r, 0);
  put_string (r, "//anon");
  put_sample_id (r, 42, 42, 901, 1);
  g_ptr_array_add (records, record_finish (r));

  /* COMM of the main thread, then of another thread (ignored). */
  r = record_new (PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
  put_u32 (r, 42);
  put_u32 (r, 42);
  put_string (r, "foo");
  put_sample_id (r, 42, 42, 902, 0);
  g_ptr_array_add (records, record_finish (r));
  r = record_new (PERF_RECORD_COMM, 0);
  put_u32 (r, 42);
  put_u32 (r, 44);
  put_string (r, "worker");
  put_sample_id (r, 42, 44, 903, 0);
  g_ptr_array_add (records, record_finish (r));

  /* FORK of a process, then of a thread (ignored), then EXIT of the process. */
  r = record_new (PERF_RECORD_FORK, 0);
  put_u32 (r, 50);
  put_u32 (r, 42);
  put_u32 (r, 50);
  put_u32 (r, 42);
  put_u64 (r, 904);
  put_sample_id (r, 42, 42, 904, 1);
  g_ptr_array_add (records, record_finish (r));
  r = record_new (PERF_RECORD_FORK, 0);
  put_u32 (r, 42);
  put_u32 (r, 42);
  put_u32 (r, 45);
  put_u32 (r, 42);
  put_u64 (r, 905);
  put_sample_id (r, 42, 42, 905, 1);
  g_ptr_array_add (records, record_finish (r));
  r = record_new (PERF_RECORD_EXIT, 0);
  put_u32 (r, 50);
  put_u32 (r, 42);
  put_u32 (r, 50);
  put_u32 (r, 42);
  put_u64 (r, 906);
  put_sample_id (r, 50, 50, 906, 0);
  g_ptr_array_add (records, record_finish (r));

  /* LOST, and a record type we do not handle. */
  r = record_new (PERF_RECORD_LOST, 0);
  put_u64 (r, 1);
  put_u64 (r, 7);
  put_sample_id (r, 0, 0, 907, 0);
  g_ptr_array_add (records, record_finish (r));
  r = record_new (PERF_RECORD_THROTTLE, 0);
  put_u64 (r, 908);
  put_u64 (r, 1);
  put_u64 (r, 1);
  put_sample_id (r, 0, 0, 908, 0);
  g_ptr_array_add (records, record_finish (r));

  fd = g_file_open_tmp ("test-perf-ring-XXXXXX.syscap", &path, &error);
  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (writer);
  recorder = sysprof_perf_recorder_new (writer);

  /* Through a ring whose end falls inside the first record. */
  fake_ring_init (&fake, 1024, 1024 - 24);
  for (guint i = 0; i < records->len; i++)
    {
      GByteArray *b = records->pdata[i];

      fake_ring_put (&fake, b->data, b->len);
    }
  g_assert_cmpuint (_sysprof_perf_ring_drain (fake.ring, feed_cb, recorder), ==, records->len);
  fake_ring_clear (&fake);

  g_assert_cmpuint (sysprof_perf_recorder_get_n_samples (recorder), ==, 2);
  g_assert_cmpuint (sysprof_perf_recorder_get_n_frames (recorder), ==, 7);
  g_assert_cmpuint (sysprof_perf_recorder_get_n_lost (recorder), ==, 7);
  g_assert_cmpuint (sysprof_perf_recorder_get_n_write_errors (recorder), ==, 0);
  g_object_unref (recorder);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      switch (n_frames++)
        {
        case 0:
          {
            const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (reader);
            g_assert_nonnull (s);
            g_assert_cmpint (s->frame.time, ==, 1000);
            g_assert_cmpint (s->frame.cpu, ==, 1);
            g_assert_cmpint (s->frame.pid, ==, 42);
            g_assert_cmpint (s->tid, ==, 43);
            g_assert_cmpuint (s->n_addrs, ==, 4);
            g_assert_cmphex (s->addrs[0], ==, SYSPROF_CAPTURE_ADDRESS_KERNEL);
            g_assert_cmphex (s->addrs[1], ==, 0xffffffff81000010);
            g_assert_cmphex (s->addrs[2], ==, SYSPROF_CAPTURE_ADDRESS_USER);
            g_assert_cmphex (s->addrs[3], ==, 0x401000);
            break;
          }
        case 1:
          {
            const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (reader);
            g_assert_nonnull (s);
            g_assert_cmpint (s->frame.time, ==, 1100);
            g_assert_cmpuint (s->n_addrs, ==, 1);
            g_assert_cmphex (s->addrs[0], ==, 0x402000);
            break;
          }
        case 2:
          {
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (reader);
            g_assert_nonnull (m);
            g_assert_cmpint (m->frame.time, ==, 900);
            g_assert_cmpint (m->frame.cpu, ==, 1);
            g_assert_cmpint (m->frame.pid, ==, 42);
            g_assert_cmphex (m->start, ==, 0x400000);
            g_assert_cmphex (m->end, ==, 0x403000);
            g_assert_cmphex (m->offset, ==, 0x1000);
            g_assert_cmpuint (m->inode, ==, 1234);
            g_assert_cmpstr (m->filename, ==, "/usr/bin/foo with space");
            break;
          }
        case 3:
          {
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (reader);
            g_assert_nonnull (m);
            g_assert_cmphex (m->start, ==, 0x7f0000000000);
            g_assert_cmphex (m->end, ==, 0x7f0000001000);
            g_assert_cmpuint (m->inode, ==, 0);
            g_assert_cmpstr (m->filename, ==, "//anon");
            break;
          }
        case 4:
          {
            const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (reader);
            g_assert_nonnull (p);
            g_assert_cmpint (p->frame.time, ==, 902);
            g_assert_cmpint (p->frame.pid, ==, 42);
            g_assert_cmpstr (p->cmdline, ==, "foo");
            break;
          }
        case 5:
          {
            const SysprofCaptureFork *f = sysprof_capture_reader_read_fork (reader);
            g_assert_nonnull (f);
            g_assert_cmpint (f->frame.time, ==, 904);
            g_assert_cmpint (f->frame.pid, ==, 42);
            g_assert_cmpint (f->child_pid, ==, 50);
            break;
          }
        case 6:
          {
            const SysprofCaptureExit *e = sysprof_capture_reader_read_exit (reader);
            g_assert_nonnull (e);
            g_assert_cmpint (e->frame.time, ==, 906);
            g_assert_cmpint (e->frame.pid, ==, 50);
            break;
          }
        default: g_assert_not_reached ();
        }
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);
  g_assert_cmpuint (n_frames, ==, 7);
  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sysprof/PerfRing/wrap", test_ring_wrap);
  g_test_add_func ("/Sysprof/PerfRing/laps", test_ring_laps);
  g_test_add_func ("/Sysprof/PerfRing/corrupt", test_ring_corrupt);
  g_test_add_func ("/Sysprof/PerfRecorder/decode", test_decode);
  return g_test_run ();
}
