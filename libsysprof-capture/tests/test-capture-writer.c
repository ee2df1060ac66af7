// SPDX-License-Identifier: GPL-3.0-or-later
/* Writer round trips: every frame type field by field, limits, JIT map,
 * counters, files, pipes, splice/cat and a full disk. */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include <sysprof-capture.h>

static char *
tmp_path (const char *name)
{
  static char *dir;

  if (dir == NULL)
    dir = g_dir_make_tmp ("test-capture-writer-XXXXXX", NULL);
  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static SysprofCaptureReader *
reopen (const char *path)
{
  SysprofCaptureError   error;
  SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (path, &error);

  if (reader == NULL)
    g_error ("%s", error.message);
  return reader;
}

static uint64_t
addr_at (const void *frame_base, size_t header, unsigned i)
{
  uint64_t v;

  memcpy (&v, (const uint8_t *) frame_base + header + 8 * i, 8);
  return v;
}

static void
test_round_trip_every_type (void)
{
  g_autofree char           *path = tmp_path ("every-type.syscap");
  SysprofCaptureWriter      *w = sysprof_capture_writer_new (path, 0);
  SysprofCaptureReader      *r;
  SysprofCaptureAddress      addrs[5] = { 1, 2, SYSPROF_CAPTURE_ADDRESS_KERNEL, 0xffffffff81000000, 5 };
  SysprofCaptureCounter      ctr[2] = { 0 };
  SysprofCaptureCounterValue vals[2];
  unsigned int               ids[2];
  static const uint8_t       blob[7] = { 9, 8, 7, 6, 5, 4, 3 };
  SysprofCaptureStat         stat;
  const SysprofCaptureFrame *f;
  unsigned int               counter;

  g_assert_nonnull (w);

  g_assert_true (sysprof_capture_writer_add_timestamp (w, 10, 1, 11));
  g_assert_true (sysprof_capture_writer_add_sample (w, 20, 0, 21, 22, addrs, 5));
  g_assert_true (sysprof_capture_writer_add_map (w, 30, -1, 31, 0x1000, 0x2000, 0x300, 4242, "/lib/x.so"));
  g_assert_true (sysprof_capture_writer_add_process (w, 40, 1, 41, "cmd --arg"));
  g_assert_true (sysprof_capture_writer_add_fork (w, 50, 1, 51, 52));
  g_assert_true (sysprof_capture_writer_add_exit (w, 60, 1, 61));
  counter = sysprof_capture_writer_request_counter (w, 2);
  g_assert_cmpuint (counter, ==, 1);
  g_strlcpy (ctr[0].category, "Cat", sizeof ctr[0].category);
  g_strlcpy (ctr[0].name, "Name", sizeof ctr[0].name);
  g_strlcpy (ctr[0].description, "Desc", sizeof ctr[0].description);
  ctr[0].id = counter;
  ctr[0].type = SYSPROF_CAPTURE_COUNTER_INT64;
  ctr[0].value.v64 = -5;
  ctr[1] = ctr[0];
  ctr[1].id = counter + 1;
  ctr[1].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
  ctr[1].value.vdbl = 0.25;
  g_assert_true (sysprof_capture_writer_define_counters (w, 80, -1, -1, ctr, 2));
  ids[0] = counter;
  ids[1] = counter + 1;
  vals[0].v64 = 77;
  vals[1].vdbl = 3.5;
  g_assert_true (sysprof_capture_writer_set_counters (w, 90, -1, -1, ids, vals, 2));
  g_assert_true (sysprof_capture_writer_add_mark (w, 100, 0, 101, 1000, "grp", "nm", "msg"));
  g_assert_true (sysprof_capture_writer_add_metadata (w, 110, 0, 111, "meta-id", "k=v\n", -1));
  g_assert_true (sysprof_capture_writer_add_log (w, 120, 0, 121, 64, "Dom", "hello"));
  g_assert_true (sysprof_capture_writer_add_file (w, 130, -1, -1, "/f", true, blob, sizeof blob));
  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 140, 1, 141, 142, 0xabc0, 96, addrs, 2));
  g_assert_true (sysprof_capture_writer_add_overlay (w, 150, -1, 151, 3, "/host/layer", "/app"));
  g_assert_true (sysprof_capture_writer_add_trace (w, 160, 0, 161, 162, addrs, 3, true));
  g_assert_true (sysprof_capture_writer_add_dbus_message (w, 170, 0, 171, SYSPROF_CAPTURE_DBUS_TYPE_A11Y, 0x155, blob,
                                                          sizeof blob));
  /* Everything before is written: the JITMAP frame, which a flush writes
   * ahead of what is buffered, comes last here. */
  g_assert_true (sysprof_capture_writer_flush (w));
  g_assert_cmpuint (sysprof_capture_writer_add_jitmap (w, "jitted"), ==, SYSPROF_CAPTURE_JITMAP_MARK | 1);

  sysprof_capture_writer_stat (w, &stat);
  g_assert_cmpuint (stat.frame_count[SYSPROF_CAPTURE_FRAME_SAMPLE], ==, 1);
  g_assert_cmpuint (sysprof_capture_stat_get (&stat, SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE), ==, 1);
  g_assert_cmpuint (stat.frame_count[SYSPROF_CAPTURE_FRAME_JITMAP], ==, 0);
  g_assert_true (sysprof_capture_writer_flush (w));
  sysprof_capture_writer_stat (w, &stat);
  g_assert_cmpuint (stat.frame_count[SYSPROF_CAPTURE_FRAME_JITMAP], ==, 1);
  sysprof_capture_writer_unref (w);

  r = reopen (path);
  g_assert_cmpint (sysprof_capture_reader_get_byte_order (r), ==, SYSPROF_CAPTURE_BYTE_ORDER_LITTLE_ENDIAN);
  g_assert_cmpint (strlen (sysprof_capture_reader_get_time (r)), ==, 20);

  {
    const SysprofCaptureTimestamp *ts = sysprof_capture_reader_read_timestamp (r);
    g_assert_nonnull (ts);
    g_assert_cmpint (ts->frame.time, ==, 10);
    g_assert_cmpint (ts->frame.cpu, ==, 1);
    g_assert_cmpint (ts->frame.pid, ==, 11);
    g_assert_cmpuint (ts->frame.len, ==, 24);
  }
  {
    const SysprofCaptureSample *s;

    /* Asking for the wrong type fails without consuming the frame. */
    g_assert_null (sysprof_capture_reader_read_map (r));
    g_assert_cmpint (errno, ==, EINVAL);
    s = sysprof_capture_reader_read_sample (r);
    g_assert_nonnull (s);
    g_assert_cmpint (s->frame.time, ==, 20);
    g_assert_cmpint (s->frame.pid, ==, 21);
    g_assert_cmpint (s->tid, ==, 22);
    g_assert_cmpuint (s->n_addrs, ==, 5);
    g_assert_cmpuint (s->frame.len, ==, 32 + 5 * 8);
    for (unsigned i = 0; i < 5; i++)
      g_assert_cmpuint (addr_at (s, sizeof *s, i), ==, addrs[i]);
  }
  {
    const SysprofCaptureMap *m = sysprof_capture_reader_read_map (r);
    g_assert_nonnull (m);
    g_assert_cmpint (m->frame.cpu, ==, -1);
    g_assert_cmpuint (m->start, ==, 0x1000);
    g_assert_cmpuint (m->end, ==, 0x2000);
    g_assert_cmpuint (m->offset, ==, 0x300);
    g_assert_cmpuint (m->inode, ==, 4242);
    g_assert_cmpstr (m->filename, ==, "/lib/x.so");
    g_assert_null (sysprof_capture_map_get_build_id (m));
  }
  {
    const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (r);
    g_assert_nonnull (p);
    g_assert_cmpint (p->frame.pid, ==, 41);
    g_assert_cmpstr (p->cmdline, ==, "cmd --arg");
  }
  {
    const SysprofCaptureFork *fk = sysprof_capture_reader_read_fork (r);
    g_assert_nonnull (fk);
    g_assert_cmpint (fk->frame.pid, ==, 51);
    g_assert_cmpint (fk->child_pid, ==, 52);
  }
  {
    const SysprofCaptureExit *ex = sysprof_capture_reader_read_exit (r);
    g_assert_nonnull (ex);
    g_assert_cmpint (ex->frame.pid, ==, 61);
  }
  {
    const SysprofCaptureCounterDefine *d = sysprof_capture_reader_read_counter_define (r);
    SysprofCaptureCounterValue         v;
    g_assert_nonnull (d);
    g_assert_cmpuint (d->n_counters, ==, 2);
    g_assert_cmpstr (d->counters[0].category, ==, "Cat");
    g_assert_cmpstr (d->counters[0].name, ==, "Name");
    g_assert_cmpstr (d->counters[0].description, ==, "Desc");
    g_assert_cmpuint (d->counters[0].id, ==, counter);
    g_assert_cmpuint (d->counters[0].type, ==, SYSPROF_CAPTURE_COUNTER_INT64);
    memcpy (&v, (const uint8_t *) &d->counters[0] + 120, 8);
    g_assert_cmpint (v.v64, ==, -5);
    g_assert_cmpuint (d->counters[1].id, ==, counter + 1);
    g_assert_cmpuint (d->counters[1].type, ==, SYSPROF_CAPTURE_COUNTER_DOUBLE);
    memcpy (&v, (const uint8_t *) &d->counters[1] + 120, 8);
    g_assert_cmpfloat (v.vdbl, ==, 0.25);
  }
  {
    const SysprofCaptureCounterSet *s = sysprof_capture_reader_read_counter_set (r);
    SysprofCaptureCounterValues     g;
    g_assert_nonnull (s);
    g_assert_cmpuint (s->n_values, ==, 1);
    memcpy (&g, &s->values[0], sizeof g);
    g_assert_cmpuint (g.ids[0], ==, counter);
    g_assert_cmpuint (g.ids[1], ==, counter + 1);
    g_assert_cmpuint (g.ids[2], ==, 0);
    g_assert_cmpint (g.values[0].v64, ==, 77);
    g_assert_cmpfloat (g.values[1].vdbl, ==, 3.5);
    g_assert_cmpint (g.values[7].v64, ==, 0);
  }
  {
    const SysprofCaptureMark *m = sysprof_capture_reader_read_mark (r);
    g_assert_nonnull (m);
    g_assert_cmpint (m->duration, ==, 1000);
    g_assert_cmpstr (m->group, ==, "grp");
    g_assert_cmpstr (m->name, ==, "nm");
    g_assert_cmpstr (m->message, ==, "msg");
  }
  {
    const SysprofCaptureMetadata *m = sysprof_capture_reader_read_metadata (r);
    g_assert_nonnull (m);
    g_assert_cmpstr (m->id, ==, "meta-id");
    g_assert_cmpstr (m->metadata, ==, "k=v\n");
  }
  {
    const SysprofCaptureLog *l = sysprof_capture_reader_read_log (r);
    g_assert_nonnull (l);
    g_assert_cmpuint (l->severity, ==, 64);
    g_assert_cmpstr (l->domain, ==, "Dom");
    g_assert_cmpstr (l->message, ==, "hello");
  }
  {
    const SysprofCaptureFileChunk *c = sysprof_capture_reader_read_file (r);
    g_assert_nonnull (c);
    g_assert_true (c->is_last);
    g_assert_cmpuint (c->len, ==, sizeof blob);
    g_assert_cmpstr (c->path, ==, "/f");
    g_assert_cmpmem (c->data, c->len, blob, sizeof blob);
  }
  {
    const SysprofCaptureAllocation *a = sysprof_capture_reader_read_allocation (r);
    g_assert_nonnull (a);
    g_assert_cmpuint (a->alloc_addr, ==, 0xabc0);
    g_assert_cmpint (a->alloc_size, ==, 96);
    g_assert_cmpint (a->tid, ==, 142);
    g_assert_cmpuint (a->n_addrs, ==, 2);
    g_assert_cmpuint (addr_at (a, sizeof *a, 1), ==, 2);
  }
  {
    const SysprofCaptureOverlay *o = sysprof_capture_reader_read_overlay (r);
    g_assert_nonnull (o);
    g_assert_cmpuint (o->layer, ==, 3);
    g_assert_cmpuint (o->src_len, ==, strlen ("/host/layer"));
    g_assert_cmpuint (o->dst_len, ==, strlen ("/app"));
    g_assert_cmpstr (sysprof_capture_overlay_get_src (o), ==, "/host/layer");
    g_assert_cmpstr (sysprof_capture_overlay_get_dst (o), ==, "/app");
  }
  {
    const SysprofCaptureTrace *t = sysprof_capture_reader_read_trace (r);
    g_assert_nonnull (t);
    g_assert_cmpint (t->frame.type, ==, SYSPROF_CAPTURE_FRAME_TRACE);
    g_assert_true (t->entering);
    g_assert_cmpint (t->tid, ==, 162);
    g_assert_cmpuint (t->n_addrs, ==, 3);
    g_assert_cmpuint (addr_at (t, sizeof *t, 2), ==, SYSPROF_CAPTURE_ADDRESS_KERNEL);
  }
  {
    const SysprofCaptureDBusMessage *m = sysprof_capture_reader_read_dbus_message (r);
    g_assert_nonnull (m);
    g_assert_cmpuint (m->bus_type, ==, SYSPROF_CAPTURE_DBUS_TYPE_A11Y);
    g_assert_cmpuint (m->flags, ==, 0x155);
    g_assert_cmpmem (m->message, m->message_len, blob, sizeof blob);
  }
  {
    const SysprofCaptureJitmap *j = sysprof_capture_reader_read_jitmap (r);
    g_assert_nonnull (j);
    g_assert_cmpint (j->frame.cpu, ==, -1);
    g_assert_cmpint (j->frame.pid, ==, getpid ());
    g_assert_cmpuint (j->n_jitmaps, ==, 1);
    g_assert_cmpuint (addr_at (j, sizeof *j, 0), ==, SYSPROF_CAPTURE_JITMAP_MARK | 1);
    g_assert_cmpstr ((const char *) j->data + 8, ==, "jitted");
  }

  f = sysprof_capture_reader_read_frame (r);
  g_assert_null (f);
  g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), >=, 170);
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), >=, sysprof_capture_reader_get_start_time (r));
  sysprof_capture_reader_unref (r);
}

static void
test_limits (void)
{
  g_autofree char                       *path = tmp_path ("limits.syscap");
  SysprofCaptureWriter                  *w = sysprof_capture_writer_new (path, 0);
  g_autofree SysprofCaptureAddress      *addrs = g_new0 (SysprofCaptureAddress, SYSPROF_CAPTURE_MAX_ADDRS + 1);
  g_autofree char                       *long_cmd = g_strnfill (65528 - 24 - 1, 'c');
  g_autofree char                       *too_long_cmd = g_strnfill (65528 - 24, 'c');
  g_autofree char                       *huge = g_strnfill (100000, 'm');
  g_autofree uint8_t                    *chunk = g_malloc (SYSPROF_CAPTURE_FILE_CHUNK_MAX + 1);
  g_autofree uint8_t                    *big_msg = g_malloc (SYSPROF_CAPTURE_DBUS_MESSAGE_MAX + 1);
  g_autofree SysprofCaptureCounter      *many = g_new0 (SysprofCaptureCounter, 600);
  g_autofree unsigned int               *ids = g_new0 (unsigned int, 6000);
  g_autofree SysprofCaptureCounterValue *vals = g_new0 (SysprofCaptureCounterValue, 6000);
  SysprofCaptureReader                  *r;
  SysprofCaptureFrameType                type;
  unsigned int                           n_ctrdef = 0, n_defined = 0, n_ctrset = 0, n_values = 0;

  for (unsigned i = 0; i <= SYSPROF_CAPTURE_MAX_ADDRS; i++)
    addrs[i] = i * 3 + 1;
  memset (chunk, 0x5a, SYSPROF_CAPTURE_FILE_CHUNK_MAX + 1);
  memset (big_msg, 1, SYSPROF_CAPTURE_DBUS_MESSAGE_MAX + 1);

  /* The largest frames fit, one more element does not. */
  g_assert_true (sysprof_capture_writer_add_sample (w, 1, 0, 1, 1, addrs, SYSPROF_CAPTURE_MAX_ADDRS));
  g_assert_false (sysprof_capture_writer_add_sample (w, 1, 0, 1, 1, addrs, SYSPROF_CAPTURE_MAX_ADDRS + 1));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_true (sysprof_capture_writer_add_process (w, 2, 0, 1, long_cmd));
  g_assert_false (sysprof_capture_writer_add_process (w, 2, 0, 1, too_long_cmd));
  g_assert_cmpint (errno, ==, E2BIG);
  g_assert_true (sysprof_capture_writer_add_file (w, 3, 0, 1, "/big", false, chunk, SYSPROF_CAPTURE_FILE_CHUNK_MAX));
  g_assert_false (
      sysprof_capture_writer_add_file (w, 3, 0, 1, "/big", false, chunk, SYSPROF_CAPTURE_FILE_CHUNK_MAX + 1));
  /* Fixed fields at and past their limits: 23 / 39 / 31 / 255 characters survive. */
  g_assert_true (sysprof_capture_writer_add_mark (w, 4, 0, 1, 0, "GGGGGGGGGGGGGGGGGGGGGGG+overflow",
                                                  "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN+overflow", huge));
  g_assert_true (sysprof_capture_writer_add_log (w, 5, 0, 1, 16, "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD+overflow", huge));
  g_assert_true (sysprof_capture_writer_add_dbus_message (w, 6, 0, 1, 0, 0, big_msg, SYSPROF_CAPTURE_DBUS_MESSAGE_MAX));
  g_assert_true (
      sysprof_capture_writer_add_dbus_message (w, 7, 0, 1, 0, 0, big_msg, SYSPROF_CAPTURE_DBUS_MESSAGE_MAX + 1));
  for (unsigned i = 0; i < 600; i++)
    {
      g_snprintf (many[i].name, sizeof many[i].name, "counter %u", i);
      many[i].id = i + 1;
    }
  g_assert_true (sysprof_capture_writer_define_counters (w, 8, -1, -1, many, 600));
  for (unsigned i = 0; i < 6000; i++)
    {
      ids[i] = i % 600 + 1;
      vals[i].v64 = i;
    }
  g_assert_true (sysprof_capture_writer_set_counters (w, 9, -1, -1, ids, vals, 6000));
  g_assert_cmpuint (sysprof_capture_writer_request_counter (w, SYSPROF_CAPTURE_COUNTER_ID_MAX + 1), ==, 0);
  sysprof_capture_writer_unref (w);

  r = reopen (path);
  {
    const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (r);
    g_assert_nonnull (s);
    g_assert_cmpuint (s->n_addrs, ==, SYSPROF_CAPTURE_MAX_ADDRS);
    g_assert_cmpuint (addr_at (s, sizeof *s, SYSPROF_CAPTURE_MAX_ADDRS - 1), ==,
                      (SYSPROF_CAPTURE_MAX_ADDRS - 1) * 3 + 1);
  }
  {
    const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (r);
    g_assert_nonnull (p);
    g_assert_cmpuint (p->frame.len, ==, 65528);
    g_assert_cmpstr (p->cmdline, ==, long_cmd);
  }
  {
    const SysprofCaptureFileChunk *c = sysprof_capture_reader_read_file (r);
    g_assert_nonnull (c);
    g_assert_cmpuint (c->len, ==, SYSPROF_CAPTURE_FILE_CHUNK_MAX);
    g_assert_cmpmem (c->data, c->len, chunk, SYSPROF_CAPTURE_FILE_CHUNK_MAX);
  }
  {
    const SysprofCaptureMark *m = sysprof_capture_reader_read_mark (r);
    g_assert_nonnull (m);
    g_assert_cmpstr (m->group, ==, "GGGGGGGGGGGGGGGGGGGGGGG");
    g_assert_cmpstr (m->name, ==, "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN");
    g_assert_cmpuint (strlen (m->message), ==, 65528 - 96 - 1);
  }
  {
    const SysprofCaptureLog *l = sysprof_capture_reader_read_log (r);
    g_assert_nonnull (l);
    g_assert_cmpstr (l->domain, ==, "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD");
    g_assert_cmpuint (strlen (l->message), ==, 65528 - 64 - 1);
  }
  {
    const SysprofCaptureDBusMessage *m = sysprof_capture_reader_read_dbus_message (r);
    g_assert_nonnull (m);
    g_assert_cmpuint (m->message_len, ==, SYSPROF_CAPTURE_DBUS_MESSAGE_MAX);
    g_assert_cmpuint (m->flags, ==, 0);
    m = sysprof_capture_reader_read_dbus_message (r);
    g_assert_nonnull (m);
    g_assert_cmpuint (m->message_len, ==, 0);
    g_assert_cmpuint (m->flags, ==, SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE);
  }
  /* Big counter definitions and value sets are split over frames, nothing dropped. */
  while (sysprof_capture_reader_peek_type (r, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_CTRDEF)
        {
          const SysprofCaptureCounterDefine *d = sysprof_capture_reader_read_counter_define (r);
          g_assert_nonnull (d);
          g_assert_cmpstr (d->counters[0].name, ==, n_defined == 0 ? "counter 0" : "counter 511");
          n_ctrdef++;
          n_defined += d->n_counters;
        }
      else if (type == SYSPROF_CAPTURE_FRAME_CTRSET)
        {
          const SysprofCaptureCounterSet *s = sysprof_capture_reader_read_counter_set (r);
          g_assert_nonnull (s);
          n_ctrset++;
          for (unsigned i = 0; i < s->n_values; i++)
            for (unsigned j = 0; j < 8; j++)
              n_values += s->values[i].ids[j] != 0;
        }
      else
        g_assert_true (sysprof_capture_reader_skip (r));
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
  g_assert_cmpuint (n_ctrdef, ==, 2);
  g_assert_cmpuint (n_defined, ==, 600);
  g_assert_cmpuint (n_ctrset, ==, 2);
  g_assert_cmpuint (n_values, ==, 6000);
  sysprof_capture_reader_unref (r);
}

static void
test_argument_checks (void)
{
  g_autofree char      *path = tmp_path ("args.syscap");
  SysprofCaptureWriter *w = sysprof_capture_writer_new (path, 0);

  errno = 0;
  g_assert_false (sysprof_capture_writer_add_sample (NULL, 0, 0, 0, 0, NULL, 0));
  g_assert_cmpint (errno, ==, EINVAL);
  errno = 0;
  g_assert_false (sysprof_capture_writer_add_sample (w, 0, 0, 0, 0, NULL, 3));
  g_assert_cmpint (errno, ==, EINVAL);
  errno = 0;
  g_assert_null (sysprof_capture_writer_new_from_fd (-1, 0));
  g_assert_cmpint (errno, ==, EINVAL);
  errno = 0;
  g_assert_null (sysprof_capture_writer_new (path, 1000));
  g_assert_cmpint (errno, ==, EINVAL);
  errno = 0;
  g_assert_false (sysprof_capture_writer_add_overlay (w, 0, 0, 0, 256, "/a", "/b"));
  g_assert_cmpint (errno, ==, EINVAL);
  {
    SysprofCaptureFrame bad = { .len = 20, .type = SYSPROF_CAPTURE_FRAME_EXIT };
    errno = 0;
    g_assert_false (sysprof_capture_writer_add_raw (w, &bad));
    g_assert_cmpint (errno, ==, EINVAL);
  }
  sysprof_capture_writer_unref (NULL);
  sysprof_capture_reader_unref (NULL);
  sysprof_capture_writer_unref (w);
}

static void
test_jitmap_dedup (void)
{
  g_autofree char      *path = tmp_path ("jit.syscap");
  SysprofCaptureWriter *w = sysprof_capture_writer_new (path, 0);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SysprofCaptureReader    *r;
  SysprofCaptureJitmapIter iter;
  SysprofCaptureAddress    addr;
  const char              *name;
  SysprofCaptureStat       stat;
  unsigned int             n = 0;

  g_autoptr (GHashTable) names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  SysprofCaptureAddress last = 0;

  /* Enough names to need several JITMAP frames (a frame holds 32 KiB of
   * entries and 512 names): within a frame a name keeps its address, so
   * the second add of each hands the first one's back; after a frame is
   * written the table starts over (as upstream's), and the same name gets a
   * new address, which the capture maps to it too. */
  for (unsigned round = 0; round < 2; round++)
    for (unsigned i = 0; i < 2500; i++)
      {
        g_autofree char      *nm = g_strdup_printf ("js::function_number_%u", i);
        SysprofCaptureAddress a = sysprof_capture_writer_add_jitmap (w, nm);

        g_assert_cmpuint (a & SYSPROF_CAPTURE_JITMAP_MARK, ==, SYSPROF_CAPTURE_JITMAP_MARK);
        g_assert_cmpuint (a, >, last);
        last = a;
        g_assert_cmpuint (sysprof_capture_writer_add_jitmap (w, nm), ==, a);
        g_hash_table_insert (names, GSIZE_TO_POINTER ((gsize) a), g_steal_pointer (&nm));
      }
  g_assert_true (sysprof_capture_writer_flush (w));
  sysprof_capture_writer_stat (w, &stat);
  g_assert_cmpuint (stat.frame_count[SYSPROF_CAPTURE_FRAME_JITMAP], >, 1);
  sysprof_capture_writer_unref (w);

  r = reopen (path);
  g_assert_true (sysprof_capture_jitmap_iter_init_reader (&iter, r));
  while (sysprof_capture_jitmap_iter_next (&iter, &addr, &name))
    {
      g_autofree char *key = g_strdup_printf ("%" G_GUINT64_FORMAT, addr);

      g_assert_cmpstr (name, ==, g_hash_table_lookup (names, GSIZE_TO_POINTER ((gsize) addr)));
      g_assert_false (g_hash_table_contains (seen, key));
      g_hash_table_add (seen, g_steal_pointer (&key));
      n++;
    }
  sysprof_capture_jitmap_iter_clear (&iter);
  g_assert_cmpuint (n, ==, 5000);
  g_assert_cmpuint (g_hash_table_size (names), ==, 5000);
  sysprof_capture_reader_unref (r);
}

static void
test_file_fd (void)
{
  g_autofree char      *path = tmp_path ("files.syscap");
  g_autofree char      *src = tmp_path ("source.bin");
  g_autofree char      *empty = tmp_path ("empty.bin");
  g_autofree char      *out = tmp_path ("out.bin");
  g_autofree uint8_t   *data = g_malloc (150001);
  g_autofree char      *got = NULL;
  gsize                 got_len = 0;
  SysprofCaptureWriter *w = sysprof_capture_writer_new (path, 0);
  SysprofCaptureReader *r;
  const char          **files;
  int                   fd;

  for (unsigned i = 0; i < 150001; i++)
    data[i] = (uint8_t) (i * 7 + i / 256);
  g_assert_true (g_file_set_contents (src, (char *) data, 150001, NULL));
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));

  fd = open (src, O_RDONLY);
  g_assert_true (sysprof_capture_writer_add_file_fd (w, 1, -1, -1, "/proc/big", fd));
  close (fd);
  g_assert_true (sysprof_capture_writer_add_sample (w, 2, 0, 1, 1, NULL, 0));
  fd = open (empty, O_RDONLY);
  g_assert_true (sysprof_capture_writer_add_file_fd (w, 3, -1, -1, "/proc/empty", fd));
  close (fd);
  g_assert_true (sysprof_capture_writer_add_file (w, 4, -1, -1, "/proc/kallsyms.gz", true, data, 10));
  sysprof_capture_writer_unref (w);

  r = reopen (path);
  files = sysprof_capture_reader_list_files (r);
  g_assert_nonnull (files);
  g_assert_cmpstr (files[0], ==, "/proc/big");
  g_assert_cmpstr (files[1], ==, "/proc/empty");
  g_assert_cmpstr (files[2], ==, "/proc/kallsyms.gz");
  g_assert_null (files[3]);
  free (files);

  fd = open (out, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  g_assert_true (sysprof_capture_reader_read_file_fd (r, "/proc/big", fd));
  close (fd);
  g_assert_true (g_file_get_contents (out, &got, &got_len, NULL));
  g_assert_cmpmem (got, got_len, data, 150001);

  fd = open (out, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  g_assert_true (sysprof_capture_reader_read_file_fd (r, "/proc/empty", fd));
  close (fd);
  g_clear_pointer (&got, g_free);
  g_assert_true (g_file_get_contents (out, &got, &got_len, NULL));
  g_assert_cmpuint (got_len, ==, 0);

  g_assert_false (sysprof_capture_reader_find_file (r, "/nope"));
  g_assert_cmpint (errno, ==, ENOENT);
  sysprof_capture_reader_unref (r);
}

/* Continuous recording's cut: each capture whole, with its own header and
 * JIT map, and ids that never mean two things across them. */
static void
test_switch_fd (void)
{
  g_autofree char      *first = tmp_path ("first.syscap");
  g_autofree char      *second = tmp_path ("second.syscap");
  SysprofCaptureWriter *w = sysprof_capture_writer_new (first, 0);
  SysprofCaptureReader *r;
  SysprofCaptureAddress jit1, jit2, addrs[2];
  SysprofCaptureStat    stat;
  unsigned int          counter1, counter2;
  int                   fd;

  g_assert_nonnull (w);
  jit1 = sysprof_capture_writer_add_jitmap (w, "before-the-cut");
  addrs[0] = jit1;
  addrs[1] = 0x1234;
  g_assert_true (sysprof_capture_writer_add_sample (w, SYSPROF_CAPTURE_CURRENT_TIME, 0, 1, 1, addrs, 2));
  counter1 = sysprof_capture_writer_request_counter (w, 1);

  /* A directory cannot hold a capture: nothing changes. */
  fd = open (g_get_tmp_dir (), O_RDONLY | O_DIRECTORY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_false (sysprof_capture_writer_switch_fd (w, fd));
  close (fd);
  g_assert_true (sysprof_capture_writer_add_sample (w, SYSPROF_CAPTURE_CURRENT_TIME, 0, 1, 1, addrs, 2));

  fd = open (second, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (sysprof_capture_writer_switch_fd (w, fd));
  sysprof_capture_writer_stat (w, &stat);
  g_assert_cmpuint (stat.frame_count[SYSPROF_CAPTURE_FRAME_SAMPLE], ==, 0);
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, sizeof (SysprofCaptureFileHeader));
  jit2 = sysprof_capture_writer_add_jitmap (w, "after-the-cut");
  g_assert_cmpuint (jit2, !=, jit1);
  counter2 = sysprof_capture_writer_request_counter (w, 1);
  g_assert_cmpuint (counter2, !=, counter1);
  addrs[0] = jit2;
  g_assert_true (sysprof_capture_writer_add_sample (w, SYSPROF_CAPTURE_CURRENT_TIME, 0, 1, 1, addrs, 2));
  sysprof_capture_writer_unref (w);

  for (guint i = 0; i < 2; i++)
    {
      const SysprofCaptureJitmap *jitmap;
      guint                       n_samples = 0;
      SysprofCaptureFrameType     type;

      r = reopen (i == 0 ? first : second);
      g_assert_cmpint (sysprof_capture_reader_get_start_time (r), <=, sysprof_capture_reader_get_end_time (r));
      while (sysprof_capture_reader_peek_type (r, &type))
        {
          if (type == SYSPROF_CAPTURE_FRAME_JITMAP)
            {
              g_assert_nonnull ((jitmap = sysprof_capture_reader_read_jitmap (r)));
              g_assert_cmpuint (jitmap->n_jitmaps, ==, 1);
              g_assert_cmpstr ((const char *) jitmap->data + 8, ==, i == 0 ? "before-the-cut" : "after-the-cut");
            }
          else if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
            {
              const SysprofCaptureSample *sample = sysprof_capture_reader_read_sample (r);

              g_assert_nonnull (sample);
              g_assert_cmpuint (sample->addrs[0], ==, i == 0 ? jit1 : jit2);
              n_samples++;
            }
          else
            g_assert_true (sysprof_capture_reader_skip (r));
        }
      g_assert_cmpuint (n_samples, ==, i == 0 ? 2 : 1);
      sysprof_capture_reader_unref (r);
    }
}

typedef struct
{
  int   fd;
  guint n;
} PipeWriter;

static gpointer
pipe_writer_thread (gpointer data)
{
  PipeWriter           *pw = data;
  SysprofCaptureWriter *w = sysprof_capture_writer_new_from_fd (pw->fd, 0);
  SysprofCaptureAddress addrs[16];

  g_assert_nonnull (w);
  for (guint i = 0; i < pw->n; i++)
    {
      for (guint j = 0; j < 16; j++)
        addrs[j] = i * 100 + j;
      g_assert_true (sysprof_capture_writer_add_sample (w, i, 0, 1, (int) i, addrs, 16));
    }
  /* After the samples: a flush writes the JITMAP frame ahead of what it
   * buffers. */
  g_assert_true (sysprof_capture_writer_flush (w));
  g_assert_true (sysprof_capture_writer_add_jitmap (w, "through-a-pipe") != 0);
  sysprof_capture_writer_unref (w);
  return NULL;
}

static void
stream_round_trip (bool use_socket)
{
  int                         fds[2];
  PipeWriter                  pw;
  GThread                    *thread;
  SysprofCaptureReader       *r;
  const SysprofCaptureSample *s;
  guint                       n = 0;

  if (use_socket)
    g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  else
    g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  pw.fd = fds[1];
  pw.n = 20000; /* several MiB: the pipe fills and both sides take turns */
  thread = g_thread_new ("pipe-writer", pipe_writer_thread, &pw);

  r = sysprof_capture_reader_new_from_fd (fds[0]);
  g_assert_nonnull (r);
  while ((s = sysprof_capture_reader_read_sample (r)))
    {
      g_assert_cmpint (s->tid, ==, (int) n);
      g_assert_cmpuint (addr_at (s, sizeof *s, 15), ==, n * 100 + 15);
      n++;
    }
  g_assert_cmpuint (n, ==, pw.n);
  g_assert_nonnull (sysprof_capture_reader_read_jitmap (r));
  g_assert_null (sysprof_capture_reader_read_frame (r));
  g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
  /* A pipe can be read once only. */
  g_assert_false (sysprof_capture_reader_reset (r));
  g_assert_cmpint (errno, ==, ESPIPE);
  g_thread_join (thread);
  sysprof_capture_reader_unref (r);
}

static void
test_pipe (void)
{
  stream_round_trip (false);
}

static void
test_socket (void)
{
  stream_round_trip (true);
}

static void
write_numbered (SysprofCaptureWriter *w, guint first, guint n)
{
  for (guint i = first; i < first + n; i++)
    {
      SysprofCaptureAddress a[2] = { i, i + 1 };
      g_assert_true (sysprof_capture_writer_add_sample (w, i, 0, 1, (int) i, a, 2));
    }
}

static void
test_splice_and_create_reader (void)
{
  g_autofree char            *p1 = tmp_path ("splice-1.syscap");
  g_autofree char            *p2 = tmp_path ("splice-2.syscap");
  g_autofree char            *p3 = tmp_path ("saved.syscap");
  SysprofCaptureWriter       *a = sysprof_capture_writer_new (p1, 0);
  SysprofCaptureWriter       *b = sysprof_capture_writer_new (p2, 0);
  SysprofCaptureReader       *r;
  SysprofCaptureStat          stat;
  const SysprofCaptureSample *s;
  guint                       n = 0;

  write_numbered (a, 0, 1000);
  write_numbered (b, 1000, 500);
  g_assert_true (sysprof_capture_writer_splice (b, a));
  g_assert_true (sysprof_capture_writer_save_as (a, p3));

  r = sysprof_capture_writer_create_reader (a);
  g_assert_nonnull (r);
  g_assert_true (sysprof_capture_reader_get_stat (r, &stat));
  g_assert_cmpuint (stat.frame_count[SYSPROF_CAPTURE_FRAME_SAMPLE], ==, 1500);
  while ((s = sysprof_capture_reader_read_sample (r)))
    g_assert_cmpint (s->tid, ==, (int) n++);
  g_assert_cmpuint (n, ==, 1500);
  sysprof_capture_reader_unref (r);

  /* save_as made an independent complete copy. */
  r = reopen (p3);
  n = 0;
  while ((s = sysprof_capture_reader_read_sample (r)))
    g_assert_cmpint (s->tid, ==, (int) n++);
  g_assert_cmpuint (n, ==, 1500);
  g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
  sysprof_capture_reader_unref (r);

  sysprof_capture_writer_unref (a);
  sysprof_capture_writer_unref (b);
}

static void
test_cat_remaps (void)
{
  g_autofree char           *p1 = tmp_path ("cat-1.syscap");
  g_autofree char           *p2 = tmp_path ("cat-2.syscap");
  g_autofree char           *pout = tmp_path ("cat-out.syscap");
  SysprofCaptureWriter      *w;
  SysprofCaptureReader      *r;
  SysprofCaptureCounter      c = { 0 };
  SysprofCaptureCounterValue v = { .v64 = 0 };
  unsigned int               id;
  g_autoptr (GHashTable) jit_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GHashTable             *counter_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  SysprofCaptureFrameType type;
  guint                   n_samples = 0, n_sets = 0;

  /* Two captures whose JIT addresses and counter ids collide. */
  for (unsigned k = 0; k < 2; k++)
    {
      SysprofCaptureAddress a[2];
      w = sysprof_capture_writer_new (k ? p2 : p1, 0);
      a[0] = sysprof_capture_writer_add_jitmap (w, k ? "second::fn" : "first::fn");
      a[1] = 0x1234;
      g_assert_cmpuint (a[0], ==, SYSPROF_CAPTURE_JITMAP_MARK | 1);
      id = sysprof_capture_writer_request_counter (w, 1);
      g_assert_cmpuint (id, ==, 1);
      g_snprintf (c.name, sizeof c.name, "%s", k ? "second-counter" : "first-counter");
      c.id = id;
      g_assert_true (sysprof_capture_writer_define_counters (w, 100 * k + 1, -1, -1, &c, 1));
      v.v64 = 1000 + k;
      g_assert_true (sysprof_capture_writer_set_counters (w, 100 * k + 2, -1, -1, &id, &v, 1));
      g_assert_true (sysprof_capture_writer_add_sample (w, 100 * k + 3, 0, 1, (int) k, a, 2));
      sysprof_capture_writer_unref (w);
    }

  w = sysprof_capture_writer_new (pout, 0);
  for (unsigned k = 0; k < 2; k++)
    {
      r = reopen (k ? p2 : p1);
      g_assert_true (sysprof_capture_writer_cat (w, r));
      sysprof_capture_reader_unref (r);
    }
  sysprof_capture_writer_unref (w);

  r = reopen (pout);
  {
    SysprofCaptureJitmapIter iter;
    SysprofCaptureAddress    addr;
    const char              *name;

    g_assert_true (sysprof_capture_jitmap_iter_init_reader (&iter, r));
    while (sysprof_capture_jitmap_iter_next (&iter, &addr, &name))
      g_hash_table_insert (jit_names, GSIZE_TO_POINTER (addr), g_strdup (name));
    sysprof_capture_jitmap_iter_clear (&iter);
  }
  g_assert_cmpuint (g_hash_table_size (jit_names), ==, 2);

  while (sysprof_capture_reader_peek_type (r, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_CTRDEF)
        {
          const SysprofCaptureCounterDefine *d = sysprof_capture_reader_read_counter_define (r);
          g_assert_false (g_hash_table_contains (counter_names, GUINT_TO_POINTER (d->counters[0].id)));
          g_hash_table_insert (counter_names, GUINT_TO_POINTER (d->counters[0].id), g_strdup (d->counters[0].name));
        }
      else if (type == SYSPROF_CAPTURE_FRAME_CTRSET)
        {
          const SysprofCaptureCounterSet *s = sysprof_capture_reader_read_counter_set (r);
          const char                 *nm = g_hash_table_lookup (counter_names, GUINT_TO_POINTER (s->values[0].ids[0]));
          SysprofCaptureCounterValues g;

          memcpy (&g, &s->values[0], sizeof g);
          /* Each value still belongs to its own capture's counter. */
          g_assert_cmpstr (nm, ==, g.values[0].v64 == 1000 ? "first-counter" : "second-counter");
          n_sets++;
        }
      else if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (r);
          const char *nm = g_hash_table_lookup (jit_names, GSIZE_TO_POINTER (addr_at (s, sizeof *s, 0)));

          g_assert_cmpstr (nm, ==, s->tid == 0 ? "first::fn" : "second::fn");
          g_assert_cmpuint (addr_at (s, sizeof *s, 1), ==, 0x1234);
          n_samples++;
        }
      else
        sysprof_capture_reader_skip (r);
    }
  g_assert_cmpuint (n_samples, ==, 2);
  g_assert_cmpuint (n_sets, ==, 2);
  g_assert_cmpint (sysprof_capture_reader_get_start_time (r), <=, sysprof_capture_reader_get_end_time (r));
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), >=, 103);
  g_hash_table_unref (counter_names);
  sysprof_capture_reader_unref (r);
}

/* cat_full: the function sees every frame with its offset, in order, drops
 * what it asks to, adds frames before the one it sees, and stops the merge. */
static SysprofCaptureCatAction
cat_func (SysprofCaptureWriter *w, const SysprofCaptureFrame *frame, uint64_t offset, void *user_data)
{
  uint64_t *last_offset = user_data;

  g_assert_cmpuint (offset, >, *last_offset);
  *last_offset = offset;
  if (frame->type != SYSPROF_CAPTURE_FRAME_MARK)
    return SYSPROF_CAPTURE_CAT_COPY;
  if (g_str_equal (((const SysprofCaptureMark *) frame)->name, "drop"))
    return SYSPROF_CAPTURE_CAT_DROP;
  if (g_str_equal (((const SysprofCaptureMark *) frame)->name, "fail"))
    {
      errno = ENOTRECOVERABLE;
      return SYSPROF_CAPTURE_CAT_FAIL;
    }
  g_assert_true (sysprof_capture_writer_add_log (w, frame->time, -1, -1, 0, "before", "the mark"));
  return SYSPROF_CAPTURE_CAT_COPY;
}

static void
test_cat_full (void)
{
  g_autofree char        *pin = tmp_path ("cat-full-in.syscap");
  g_autofree char        *pout = tmp_path ("cat-full-out.syscap");
  const char             *names[] = { "keep", "drop", "keep", "fail", "keep" };
  SysprofCaptureWriter   *w = sysprof_capture_writer_new (pin, 0);
  SysprofCaptureReader   *r;
  SysprofCaptureFrameType type;
  uint64_t                last_offset = 0;
  g_autoptr (GString) got = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_true (sysprof_capture_writer_add_mark (w, 10 + i, -1, -1, 0, "group", names[i], ""));
  sysprof_capture_writer_unref (w);

  w = sysprof_capture_writer_new (pout, 0);
  r = reopen (pin);
  errno = 0;
  g_assert_false (sysprof_capture_writer_cat_full (w, r, cat_func, &last_offset));
  g_assert_cmpint (errno, ==, ENOTRECOVERABLE);
  sysprof_capture_reader_unref (r);
  sysprof_capture_writer_unref (w);

  r = reopen (pout);
  while (sysprof_capture_reader_peek_type (r, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_MARK)
        g_string_append_printf (got, "mark %s;", sysprof_capture_reader_read_mark (r)->name);
      else if (type == SYSPROF_CAPTURE_FRAME_LOG)
        g_string_append_printf (got, "log %s;", sysprof_capture_reader_read_log (r)->domain);
      else
        sysprof_capture_reader_skip (r);
    }
  g_assert_cmpstr (got->str, ==, "log before;mark keep;log before;mark keep;");
  sysprof_capture_reader_unref (r);
}

/* A full disk (here: RLIMIT_FSIZE) fails the write with a clear errno; what
 * reached the disk stays readable and what was buffered is not thrown away. */
static void
test_disk_full (void)
{
  g_autofree char *path = tmp_path ("full.syscap");
  pid_t            child;
  int              status;

  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      struct rlimit         rl;
      SysprofCaptureWriter *w;
      guint                 i;
      int                   err;

      signal (SIGXFSZ, SIG_IGN);
      getrlimit (RLIMIT_FSIZE, &rl);
      rl.rlim_cur = 300 * 1024;
      setrlimit (RLIMIT_FSIZE, &rl);

      w = sysprof_capture_writer_new (path, 0);
      if (w == NULL)
        _exit (10);
      for (i = 0; i < 100000; i++)
        {
          SysprofCaptureAddress a[8] = { i, i, i, i, i, i, i, i };
          if (!sysprof_capture_writer_add_sample (w, i, 0, 1, (int) i, a, 8))
            break;
        }
      err = errno;
      if (i == 100000 || err != EFBIG)
        _exit (11);
      if (sysprof_capture_writer_flush (w) || errno != EFBIG)
        _exit (12);
      /* Space comes back: the buffered frames are written after all. */
      rl.rlim_cur = RLIM_INFINITY;
      setrlimit (RLIMIT_FSIZE, &rl);
      if (!sysprof_capture_writer_flush (w))
        _exit (13);
      sysprof_capture_writer_unref (w);
      _exit (0);
    }
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  {
    SysprofCaptureReader       *r = reopen (path);
    const SysprofCaptureSample *s;
    guint                       n = 0;

    while ((s = sysprof_capture_reader_read_sample (r)))
      g_assert_cmpint (s->tid, ==, (int) n++);
    g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
    /* Every frame the writer accepted is there: 300 KiB of 96-byte frames at least. */
    g_assert_cmpuint (n, >=, 300 * 1024 / 96 - 10);
    sysprof_capture_reader_unref (r);
  }
}

static int
one_frame_backtrace (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *user_data)
{
  (void) n_addrs;
  addrs[0] = 0x1234;
  return GPOINTER_TO_INT (user_data);
}

/* Asserts that every kind of frame is refused with EFBIG and that nothing
 * of it reaches the capture. */
static void
assert_all_refused (SysprofCaptureWriter *w)
{
  SysprofCaptureAddress addrs[2] = { 1, 2 };
  SysprofCaptureCounter ctr = { .id = 1 };
  guint8                raw[32] = { 0 };
  SysprofCaptureFrame  *f = (SysprofCaptureFrame *) raw;
  uint64_t              size = sysprof_capture_writer_get_size (w);

  f->len = sizeof raw;
  f->type = SYSPROF_CAPTURE_FRAME_TIMESTAMP;
  errno = 0;
  g_assert_false (sysprof_capture_writer_add_timestamp (w, 1, 0, 1));
  g_assert_cmpint (errno, ==, EFBIG);
  errno = 0;
  g_assert_false (sysprof_capture_writer_add_sample (w, 1, 0, 1, 1, addrs, 2));
  g_assert_cmpint (errno, ==, EFBIG);
  errno = 0;
  g_assert_false (sysprof_capture_writer_add_allocation (w, 1, 0, 1, 1, 0x10, 8, one_frame_backtrace, NULL));
  g_assert_cmpint (errno, ==, EFBIG);
  errno = 0;
  g_assert_false (sysprof_capture_writer_define_counters (w, 1, 0, 1, &ctr, 1));
  g_assert_cmpint (errno, ==, EFBIG);
  errno = 0;
  g_assert_false (sysprof_capture_writer_add_raw (w, f));
  g_assert_cmpint (errno, ==, EFBIG);
  errno = 0;
  g_assert_cmpuint (sysprof_capture_writer_add_untrusted (w, raw, sizeof raw), ==, 0);
  g_assert_cmpint (errno, ==, EFBIG);
  errno = 0;
  g_assert_cmpuint (sysprof_capture_writer_add_jitmap (w, "refused"), ==, 0);
  g_assert_cmpint (errno, ==, EFBIG);
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, size);
}

/* A cap on the capture's size: frames that would pass it are refused
 * (EFBIG), smaller ones still fit, JIT map entries count when they are
 * added, the cap can be lifted, and a reader reads the capture to its end. */
static void
test_max_size (void)
{
  g_autofree char                *path = tmp_path ("max-size.syscap");
  g_autofree char                *other_path = tmp_path ("max-size-other.syscap");
  SysprofCaptureWriter           *w = sysprof_capture_writer_new (path, 0);
  SysprofCaptureWriter           *other = sysprof_capture_writer_new (other_path, 0);
  const gsize                     mark_len = (sizeof (SysprofCaptureMark) + 2 + 7) / 8 * 8;
  SysprofCaptureReader           *r;
  SysprofCaptureFrameType         type;
  const SysprofCaptureAllocation *alloc;
  const SysprofCaptureJitmap     *jitmap;
  SysprofCaptureAddress           jit;
  uint64_t                        cap;
  guint                           n_marks = 0, n_read = 0;

  g_assert_nonnull (w);
  g_assert_false (sysprof_capture_writer_set_max_size (NULL, 1));
  g_assert_cmpint (errno, ==, EINVAL);

  /* 50 marks fit, then room for a timestamp (24 bytes) and 8 bytes more. */
  cap = sysprof_capture_writer_get_size (w) + 50 * mark_len + 24 + 8;
  g_assert_true (sysprof_capture_writer_set_max_size (w, cap));
  while (sysprof_capture_writer_add_mark (w, n_marks, 0, 1, 0, "group", "mark", "m"))
    n_marks++;
  g_assert_cmpint (errno, ==, EFBIG);
  g_assert_cmpuint (n_marks, ==, 50);
  g_assert_true (sysprof_capture_writer_add_timestamp (w, 100, 0, 1));
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, cap - 8);
  assert_all_refused (w);
  /* The buffer reaches the file: still within the cap. */
  g_assert_true (sysprof_capture_writer_flush (w));
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, cap - 8);

  /* An allocation is checked at the length its backtrace gave it. */
  cap = sysprof_capture_writer_get_size (w) + sizeof (SysprofCaptureAllocation);
  g_assert_true (sysprof_capture_writer_set_max_size (w, cap));
  g_assert_false (
      sysprof_capture_writer_add_allocation (w, 101, 0, 1, 1, 0x10, 8, one_frame_backtrace, GINT_TO_POINTER (1)));
  g_assert_cmpint (errno, ==, EFBIG);
  g_assert_true (sysprof_capture_writer_add_allocation (w, 102, 0, 1, 1, 0x20, 16, one_frame_backtrace, NULL));
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, cap);
  assert_all_refused (w);

  /* A JIT entry takes its share of the cap at once; flush() writes its
   * frame within the cap. */
  cap = sysprof_capture_writer_get_size (w) + (sizeof (SysprofCaptureJitmap) + 8 + 4 + 7) / 8 * 8;
  g_assert_true (sysprof_capture_writer_set_max_size (w, cap));
  jit = sysprof_capture_writer_add_jitmap (w, "jit");
  g_assert_cmpuint (jit, !=, 0);
  g_assert_cmpuint (sysprof_capture_writer_add_jitmap (w, "jit"), ==, jit);
  assert_all_refused (w);
  g_assert_true (sysprof_capture_writer_flush (w));
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, cap);

  /* Splice is all or nothing. */
  write_numbered (other, 0, 10);
  g_assert_false (sysprof_capture_writer_splice (other, w));
  g_assert_cmpint (errno, ==, EFBIG);
  g_assert_cmpuint (sysprof_capture_writer_get_size (w), ==, cap);

  /* Lifted: the owner writes its last frames. */
  g_assert_true (sysprof_capture_writer_set_max_size (w, 0));
  g_assert_true (sysprof_capture_writer_add_mark (w, 200, 0, 1, 0, "group", "last", "m"));
  g_assert_true (sysprof_capture_writer_splice (other, w));
  /* A cap below the size keeps what is there and refuses the rest. */
  g_assert_true (sysprof_capture_writer_set_max_size (w, 1));
  assert_all_refused (w);
  g_assert_true (sysprof_capture_writer_flush (w));

  r = reopen (path);
  while (sysprof_capture_reader_peek_type (r, &type))
    {
      switch ((int) type)
        {
        case SYSPROF_CAPTURE_FRAME_MARK:
          g_assert_nonnull (sysprof_capture_reader_read_mark (r));
          n_read++;
          break;
        case SYSPROF_CAPTURE_FRAME_ALLOCATION:
          alloc = sysprof_capture_reader_read_allocation (r);
          g_assert_nonnull (alloc);
          g_assert_cmpuint (alloc->alloc_addr, ==, 0x20);
          g_assert_cmpuint (alloc->n_addrs, ==, 0);
          break;
        case SYSPROF_CAPTURE_FRAME_JITMAP:
          jitmap = sysprof_capture_reader_read_jitmap (r);
          g_assert_nonnull (jitmap);
          g_assert_cmpuint (jitmap->n_jitmaps, ==, 1);
          g_assert_cmpstr ((const char *) jitmap->data + 8, ==, "jit");
          break;
        default: g_assert_true (sysprof_capture_reader_skip (r)); break;
        }
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
  g_assert_cmpuint (n_read, ==, 51);
  sysprof_capture_reader_unref (r);
  sysprof_capture_writer_unref (other);
  sysprof_capture_writer_unref (w);
}

static void
test_from_env (void)
{
  g_autofree char      *path = tmp_path ("env.syscap");
  int                   fd = open (path, O_CREAT | O_RDWR | O_TRUNC, 0600);
  g_autofree char      *num = g_strdup_printf ("%d", fd);
  SysprofCaptureWriter *w;

  g_unsetenv ("SYSPROF_TRACE_FD");
  g_assert_null (sysprof_capture_writer_new_from_env (0));
  g_assert_cmpint (errno, ==, ENOENT);
  g_setenv ("SYSPROF_TRACE_FD", "1", TRUE);
  g_assert_null (sysprof_capture_writer_new_from_env (0));
  g_assert_cmpint (errno, ==, EBADF);
  g_setenv ("SYSPROF_TRACE_FD", num, TRUE);
  w = sysprof_capture_writer_new_from_env (0);
  g_assert_nonnull (w);
  g_assert_true (sysprof_capture_writer_add_exit (w, 5, 0, 5));
  sysprof_capture_writer_unref (w);
  close (fd);
  g_unsetenv ("SYSPROF_TRACE_FD");

  {
    SysprofCaptureReader     *r = reopen (path);
    const SysprofCaptureExit *e = sysprof_capture_reader_read_exit (r);
    g_assert_nonnull (e);
    g_assert_cmpint (e->frame.pid, ==, 5);
    sysprof_capture_reader_unref (r);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Capture/Writer/round-trip", test_round_trip_every_type);
  g_test_add_func ("/Capture/Writer/limits", test_limits);
  g_test_add_func ("/Capture/Writer/argument-checks", test_argument_checks);
  g_test_add_func ("/Capture/Writer/jitmap-dedup", test_jitmap_dedup);
  g_test_add_func ("/Capture/Writer/file-fd", test_file_fd);
  g_test_add_func ("/Capture/Writer/switch-fd", test_switch_fd);
  g_test_add_func ("/Capture/Writer/pipe", test_pipe);
  g_test_add_func ("/Capture/Writer/socket", test_socket);
  g_test_add_func ("/Capture/Writer/splice", test_splice_and_create_reader);
  g_test_add_func ("/Capture/Writer/cat-remaps", test_cat_remaps);
  g_test_add_func ("/Capture/Writer/cat-full", test_cat_full);
  g_test_add_func ("/Capture/Writer/disk-full", test_disk_full);
  g_test_add_func ("/Capture/Writer/max-size", test_max_size);
  g_test_add_func ("/Capture/Writer/from-env", test_from_env);
  return g_test_run ();
}
