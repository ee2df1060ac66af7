// SPDX-License-Identifier: GPL-3.0-or-later
/* Reader robustness: big-endian files, truncation at every byte, corrupt
 * frames with errors naming their offset, Sysprof 45+ additions. */

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include <sysprof-capture.h>

#include "capture-swap.h"

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static int
memfd_with (const void *data, size_t len)
{
  int fd = memfd_create ("test-capture", MFD_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, data, len), ==, (ssize_t) len);
  return fd;
}

/* A capture with every frame type, including a Sysprof 45+ index frame. */
static GBytes *
build_all_types (GArray *boundaries)
{
  g_autofree char           *path = tmp_path ("all.syscap");
  SysprofCaptureWriter      *w = sysprof_capture_writer_new (path, 0);
  SysprofCaptureAddress      a[4] = { 1, SYSPROF_CAPTURE_ADDRESS_USER, 3, 4 };
  SysprofCaptureCounter      c = { .category = "C", .name = "N", .description = "D", .id = 1 };
  SysprofCaptureCounterValue v = { .v64 = 9 };
  unsigned int               id = 1;
  static const uint8_t       msg[9] = "dbus-msg";
  struct
  {
    SysprofCaptureFrame frame;
    uint64_t            prev;
  } idx = {
    .frame = { .len = 32,
               .cpu = -1,
               .pid = -1,
               .time = 5,
               .type = SYSPROF_CAPTURE_FRAME_TIMESTAMP,
               .padding2 = SYSPROF_CAPTURE_FRAME_INDEX_MAGIC },
  };
  g_autofree char *contents = NULL;
  gsize            len;

  g_assert_cmpuint (sysprof_capture_writer_request_counter (w, 1), ==, 1);
  g_assert_true (sysprof_capture_writer_add_timestamp (w, 1, 0, 1));
  g_assert_true (sysprof_capture_writer_add_sample (w, 2, 0, 1, 2, a, 4));
  g_assert_true (
      sysprof_capture_writer_add_map_with_build_id (w, 3, 0, 1, 0x1000, 0x2000, 0, 7, "/lib/a.so", "abcdef"));
  g_assert_true (sysprof_capture_writer_add_process (w, 4, 0, 1, "proc"));
  g_assert_true (sysprof_capture_writer_add_raw (w, &idx.frame));
  g_assert_true (sysprof_capture_writer_add_fork (w, 6, 0, 1, 2));
  g_assert_true (sysprof_capture_writer_define_counters (w, 7, 0, 1, &c, 1));
  g_assert_true (sysprof_capture_writer_set_counters (w, 8, 0, 1, &id, &v, 1));
  g_assert_true (sysprof_capture_writer_add_mark (w, 9, 0, 1, 3, "g", "n", "m"));
  g_assert_true (sysprof_capture_writer_add_metadata (w, 10, 0, 1, "id", "meta", -1));
  g_assert_true (sysprof_capture_writer_add_log (w, 11, 0, 1, 8, "dom", "log"));
  g_assert_true (sysprof_capture_writer_add_file (w, 12, 0, 1, "/proc/mounts.gz", true, msg, 5));
  g_assert_true (sysprof_capture_writer_add_allocation_copy (w, 13, 0, 1, 2, 0x10, 16, a, 3));
  g_assert_true (sysprof_capture_writer_add_overlay (w, 14, 0, 1, 0, "/src", "/dst"));
  g_assert_true (sysprof_capture_writer_add_trace (w, 15, 0, 1, 2, a, 2, false));
  g_assert_true (sysprof_capture_writer_add_dbus_message (w, 16, 0, 1, 1, 2, msg, sizeof msg));
  /* Written first: the JITMAP frame, which a flush writes ahead of what is
   * buffered, comes last here. */
  g_assert_true (sysprof_capture_writer_flush (w));
  g_assert_true (sysprof_capture_writer_add_jitmap (w, "jit") != 0);
  g_assert_true (sysprof_capture_writer_add_exit (w, 17, 0, 1));
  sysprof_capture_writer_unref (w);

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));

  if (boundaries != NULL)
    {
      size_t pos = 256;

      while (pos < len)
        {
          uint16_t flen;
          g_array_append_val (boundaries, pos);
          memcpy (&flen, contents + pos, 2);
          pos += flen;
        }
      g_array_append_val (boundaries, pos);
    }

  return g_bytes_new_take (g_steal_pointer (&contents), len);
}

static void
assert_same_frames (SysprofCaptureReader *a, SysprofCaptureReader *b)
{
  const SysprofCaptureFrame *fa;
  guint                      n = 0;

  for (;;)
    {
      g_autofree void           *copy = NULL;
      const SysprofCaptureFrame *fb;

      fa = sysprof_capture_reader_read_frame (a);
      if (fa == NULL)
        break;
      copy = g_memdup2 (fa, fa->len);
      fb = sysprof_capture_reader_read_frame (b);
      g_assert_nonnull (fb);
      /* Host-order frames must be identical byte for byte, padding included. */
      g_assert_cmpmem (copy, ((const SysprofCaptureFrame *) copy)->len, fb, fb->len);
      n++;
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (a)->code, ==, 0);
  g_assert_null (sysprof_capture_reader_read_frame (b));
  g_assert_cmpint (sysprof_capture_reader_get_error (b)->code, ==, 0);
  g_assert_cmpuint (n, >, 0);
}

static void
check_big_endian_of (const void *data, size_t len)
{
  g_autofree uint8_t   *be = g_memdup2 (data, len);
  SysprofCaptureReader *le_reader;
  SysprofCaptureReader *be_reader;

  g_assert_true (capture_swap_to_big_endian (be, len));
  g_assert_cmpmem (be, 4, "\xfd\xca\x97\x5e", 4);

  le_reader = sysprof_capture_reader_new_from_fd (memfd_with (data, len));
  be_reader = sysprof_capture_reader_new_from_fd (memfd_with (be, len));
  g_assert_nonnull (le_reader);
  g_assert_nonnull (be_reader);
  g_assert_cmpint (sysprof_capture_reader_get_byte_order (be_reader), ==, SYSPROF_CAPTURE_BYTE_ORDER_BIG_ENDIAN);
  g_assert_cmpint (sysprof_capture_reader_get_start_time (be_reader), ==,
                   sysprof_capture_reader_get_start_time (le_reader));
  g_assert_cmpint (sysprof_capture_reader_get_end_time (be_reader), ==,
                   sysprof_capture_reader_get_end_time (le_reader));
  assert_same_frames (le_reader, be_reader);

  /* Rewinding must not convert frames a second time. */
  g_assert_true (sysprof_capture_reader_reset (le_reader));
  g_assert_true (sysprof_capture_reader_reset (be_reader));
  assert_same_frames (le_reader, be_reader);

  {
    const char **le_files = sysprof_capture_reader_list_files (le_reader);
    const char **be_files = sysprof_capture_reader_list_files (be_reader);
    guint        i;

    for (i = 0; le_files[i]; i++)
      g_assert_cmpstr (le_files[i], ==, be_files[i]);
    g_assert_null (be_files[i]);
    free (le_files);
    free (be_files);
  }

  sysprof_capture_reader_unref (le_reader);
  sysprof_capture_reader_unref (be_reader);
}

static void
test_big_endian_all_types (void)
{
  g_autoptr (GBytes) bytes = build_all_types (NULL);
  gsize       len;
  const void *data = g_bytes_get_data (bytes, &len);

  check_big_endian_of (data, len);
}

static void
test_big_endian_fixtures (void)
{
  static const char *fixtures[] = { "sysprof-3.46-perf.syscap", "sysprof-3.46-memprof.syscap",
                                    "sysprof-3.46-marks.syscap" };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "..", "tests", "data", fixtures[i], NULL);
      g_autofree char *contents = NULL;
      gsize            len;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      check_big_endian_of (contents, len);
    }
}

/* Every prefix of a capture: a clean end exactly at frame boundaries, else an
 * error naming the offset of the cut frame; never a crash, never a hang. */
static void
test_truncation_every_offset (void)
{
  g_autoptr (GArray) boundaries = g_array_new (FALSE, FALSE, sizeof (size_t));
  g_autoptr (GBytes) bytes = build_all_types (boundaries);
  gsize          len;
  const uint8_t *data = g_bytes_get_data (bytes, &len);

  for (size_t cut = 0; cut < len; cut++)
    {
      SysprofCaptureError   error;
      SysprofCaptureReader *r = sysprof_capture_reader_new_from_fd_with_error (memfd_with (data, cut), &error);
      size_t                expected_frames = 0;
      size_t                last_boundary = 256;
      size_t                n = 0;

      if (cut < 256)
        {
          g_assert_null (r);
          g_assert_cmpint (error.code, ==, EBADMSG);
          g_assert_nonnull (strstr (error.message, "offset 0"));
          continue;
        }
      g_assert_nonnull (r);

      for (guint i = 0; i < boundaries->len; i++)
        {
          size_t b = g_array_index (boundaries, size_t, i);
          if (b <= cut)
            {
              last_boundary = b;
              expected_frames = i;
            }
        }

      while (sysprof_capture_reader_read_frame (r))
        n++;

      if (cut == last_boundary)
        g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
      else
        {
          g_autofree char           *needle = g_strdup_printf ("offset %zu", last_boundary);
          const SysprofCaptureError *e = sysprof_capture_reader_get_error (r);

          g_assert_cmpint (e->code, ==, EIO);
          g_assert_cmpuint (e->offset, ==, last_boundary);
          g_assert_nonnull (strstr (e->message, needle));
        }
      /* The index frame is skipped transparently, so frames read <= frames before the cut. */
      g_assert_cmpuint (n, <=, expected_frames);
      g_assert_cmpuint (n + 1, >=, expected_frames);

      /* Everything else stays safe on the damaged file too. */
      g_assert_true (sysprof_capture_reader_reset (r));
      free (sysprof_capture_reader_list_files (r));
      (void) sysprof_capture_reader_get_end_time (r);
      {
        SysprofCaptureCursor *cursor = sysprof_capture_cursor_new (r);
        sysprof_capture_cursor_reverse (cursor);
        sysprof_capture_cursor_foreach (cursor, (SysprofCaptureCursorCallback) (void (*) (void)) g_nullify_pointer,
                                        NULL);
        sysprof_capture_cursor_unref (cursor);
      }
      sysprof_capture_reader_unref (r);
    }
}

/* Builds header + the given frames; returns the file as a memfd. */
static SysprofCaptureReader *
reader_for_frames (const void *frames, size_t len, SysprofCaptureError *error)
{
  g_autoptr (GBytes) base = build_all_types (NULL);
  g_autofree uint8_t *file = g_malloc (256 + len);

  memcpy (file, g_bytes_get_data (base, NULL), 256);
  memcpy (file + 256, frames, len);
  return sysprof_capture_reader_new_from_fd_with_error (memfd_with (file, 256 + len), error);
}

static void
expect_error (SysprofCaptureReader *r, int code, const char *fragment)
{
  const SysprofCaptureError *e = sysprof_capture_reader_get_error (r);

  g_assert_cmpint (e->code, ==, code);
  if (strstr (e->message, fragment) == NULL)
    g_error ("error \"%s\" does not mention \"%s\"", e->message, fragment);
}

static void
test_corrupt_frames (void)
{
  uint8_t                 buf[512];
  SysprofCaptureFrame    *f = (SysprofCaptureFrame *) buf;
  SysprofCaptureFrameType type;
  SysprofCaptureReader   *r;

  /* A length below the frame header loses the frame boundaries: fatal. */
  memset (buf, 0, sizeof buf);
  f->len = 16;
  f->type = SYSPROF_CAPTURE_FRAME_EXIT;
  r = reader_for_frames (buf, 64, NULL);
  g_assert_false (sysprof_capture_reader_peek_type (r, &type));
  expect_error (r, EBADMSG, "offset 256: length 16 is shorter than the 24-byte frame header");
  g_assert_false (sysprof_capture_reader_skip (r));
  sysprof_capture_reader_unref (r);

  /* A misaligned length. */
  f->len = 28;
  r = reader_for_frames (buf, 64, NULL);
  g_assert_null (sysprof_capture_reader_read_frame (r));
  expect_error (r, EBADMSG, "length 28 is not a multiple of 8");
  sysprof_capture_reader_unref (r);

  /* A sample claiming more addresses than it holds; the next frame is still readable. */
  memset (buf, 0, sizeof buf);
  f->len = 40;
  f->type = SYSPROF_CAPTURE_FRAME_SAMPLE;
  ((SysprofCaptureSample *) f)->n_addrs = 500;
  ((SysprofCaptureFrame *) (buf + 40))->len = 24;
  ((SysprofCaptureFrame *) (buf + 40))->type = SYSPROF_CAPTURE_FRAME_EXIT;
  ((SysprofCaptureFrame *) (buf + 40))->pid = 77;
  r = reader_for_frames (buf, 64, NULL);
  g_assert_true (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_SAMPLE);
  g_assert_null (sysprof_capture_reader_read_sample (r));
  g_assert_cmpint (errno, ==, EBADMSG);
  expect_error (r, EBADMSG, "corrupt SAMPLE frame at offset 256: it claims 500 addresses");
  g_assert_true (sysprof_capture_reader_skip (r));
  g_assert_cmpint (sysprof_capture_reader_read_exit (r)->frame.pid, ==, 77);
  sysprof_capture_reader_unref (r);

  /* Strings without their NUL. */
  memset (buf, 'x', sizeof buf);
  memset (buf, 0, 24);
  f->len = 48;
  f->type = SYSPROF_CAPTURE_FRAME_PROCESS;
  r = reader_for_frames (buf, 48, NULL);
  g_assert_null (sysprof_capture_reader_read_process (r));
  expect_error (r, EBADMSG, "command line is not NUL-terminated");
  sysprof_capture_reader_unref (r);

  memset (buf, 'x', sizeof buf);
  memset (buf, 0, 28);
  f->len = 64;
  f->type = SYSPROF_CAPTURE_FRAME_JITMAP;
  ((SysprofCaptureJitmap *) f)->n_jitmaps = 1;
  r = reader_for_frames (buf, 64, NULL);
  g_assert_null (sysprof_capture_reader_read_jitmap (r));
  expect_error (r, EBADMSG, "JIT map entry 0 has no NUL-terminated name");
  sysprof_capture_reader_unref (r);

  /* Mark strings are forced to terminate instead (as Sysprof does). */
  memset (buf, 'y', sizeof buf);
  memset (buf, 0, 32);
  f->len = 104;
  f->type = SYSPROF_CAPTURE_FRAME_MARK;
  r = reader_for_frames (buf, 104, NULL);
  {
    const SysprofCaptureMark *m = sysprof_capture_reader_read_mark (r);
    g_assert_nonnull (m);
    g_assert_cmpuint (strlen (m->group), ==, 23);
    g_assert_cmpuint (strlen (m->name), ==, 39);
    g_assert_cmpuint (strlen (m->message), ==, 7);
  }
  sysprof_capture_reader_unref (r);

  /* Counted arrays past the frame end. */
  memset (buf, 0, sizeof buf);
  f->len = 288;
  f->type = SYSPROF_CAPTURE_FRAME_FILE_CHUNK;
  ((SysprofCaptureFileChunk *) f)->len = 100;
  r = reader_for_frames (buf, 288, NULL);
  g_assert_null (sysprof_capture_reader_read_file (r));
  expect_error (r, EBADMSG, "claims 100 data bytes");
  sysprof_capture_reader_unref (r);

  memset (buf, 0, sizeof buf);
  f->len = 64;
  f->type = SYSPROF_CAPTURE_FRAME_OVERLAY;
  ((SysprofCaptureOverlay *) f)->src_len = 20;
  ((SysprofCaptureOverlay *) f)->dst_len = 20;
  r = reader_for_frames (buf, 64, NULL);
  g_assert_null (sysprof_capture_reader_read_overlay (r));
  expect_error (r, EBADMSG, "paths need 74 bytes");
  sysprof_capture_reader_unref (r);

  memset (buf, 0, sizeof buf);
  f->len = 160;
  f->type = SYSPROF_CAPTURE_FRAME_CTRDEF;
  ((SysprofCaptureCounterDefine *) f)->n_counters = 2;
  r = reader_for_frames (buf, 160, NULL);
  g_assert_null (sysprof_capture_reader_read_counter_define (r));
  expect_error (r, EBADMSG, "claims 2 counters");
  sysprof_capture_reader_unref (r);

  /* Frames claiming more bytes than the file has. */
  memset (buf, 0, sizeof buf);
  f->len = 4096;
  f->type = SYSPROF_CAPTURE_FRAME_SAMPLE;
  r = reader_for_frames (buf, 64, NULL);
  g_assert_null (sysprof_capture_reader_read_frame (r));
  expect_error (r, EIO, "truncated frame at offset 256: it is 4096 bytes long but only 64 bytes remain");
  sysprof_capture_reader_unref (r);
}

static void
test_bad_headers (void)
{
  g_autoptr (GBytes) base = build_all_types (NULL);
  g_autofree uint8_t *file = g_bytes_unref_to_data (g_bytes_ref (base), &(gsize){ 0 });
  SysprofCaptureError error;

  memcpy (file, "GIF8", 4);
  g_assert_null (sysprof_capture_reader_new_from_fd_with_error (memfd_with (file, 300), &error));
  g_assert_cmpint (error.code, ==, EBADMSG);
  g_assert_cmpstr (error.message, ==,
                   "not a Sysprof capture: bad magic 47 49 46 38 at offset 0 (expected 5e 97 ca fd)");
  g_assert_cmpint (errno, ==, EBADMSG);

  g_assert_null (sysprof_capture_reader_new_with_error ("/nonexistent/capture.syscap", &error));
  g_assert_cmpint (error.code, ==, ENOENT);
  g_assert_nonnull (strstr (error.message, "/nonexistent/capture.syscap"));

  g_assert_null (sysprof_capture_reader_new_with_error ("/", &error));
  g_assert_cmpint (error.code, ==, EISDIR);
}

static void
test_unknown_and_index_frames (void)
{
  uint8_t                 buf[96] = { 0 };
  SysprofCaptureFrame    *f;
  SysprofCaptureFrameType type;
  SysprofCaptureReader   *r;

  /* index frame, unknown type 42, exit */
  f = (SysprofCaptureFrame *) buf;
  f->len = 32;
  f->type = SYSPROF_CAPTURE_FRAME_TIMESTAMP;
  f->padding2 = SYSPROF_CAPTURE_FRAME_INDEX_MAGIC;
  f = (SysprofCaptureFrame *) (buf + 32);
  f->len = 40;
  f->type = 42;
  f = (SysprofCaptureFrame *) (buf + 72);
  f->len = 24;
  f->type = SYSPROF_CAPTURE_FRAME_EXIT;
  f->pid = 9;

  r = reader_for_frames (buf, sizeof buf, NULL);
  g_assert_true (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (type, ==, 42);
  g_assert_cmpuint (sysprof_capture_reader_get_offset (r), ==, 256 + 32);
  g_assert_null (sysprof_capture_reader_read_exit (r));
  g_assert_true (sysprof_capture_reader_skip (r));
  g_assert_cmpint (sysprof_capture_reader_read_exit (r)->frame.pid, ==, 9);
  g_assert_false (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (sysprof_capture_reader_get_error (r)->code, ==, 0);
  sysprof_capture_reader_unref (r);
}

static void
test_unfinished_end_time (void)
{
  /* A capture whose writer never rewrote end_time (pipe, crash): the end is
   * found by scanning, marks count until they end. */
  g_autoptr (GBytes) base = build_all_types (NULL);
  gsize                 len;
  g_autofree uint8_t   *file = g_memdup2 (g_bytes_get_data (base, &len), g_bytes_get_size (base));
  SysprofCaptureReader *r;
  int64_t               zero = 0;
  int64_t               start = 1;

  /* Start before every frame so the scan result is visible; end_time 0 < start = unfinished. */
  memcpy (file + 72, &start, 8);
  memcpy (file + 80, &zero, 8);
  int64_t                    latest = 0;
  const SysprofCaptureFrame *f;

  r = sysprof_capture_reader_new_from_fd (memfd_with (file, len));
  g_assert_nonnull (r);
  /* The latest frame is the JITMAP, stamped at flush time. */
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), >, 17);
  while ((f = sysprof_capture_reader_read_frame (r)))
    latest = MAX (latest, f->time);
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), ==, latest);
  sysprof_capture_reader_unref (r);
}

static void
test_copy_is_independent (void)
{
  g_autoptr (GBytes) base = build_all_types (NULL);
  SysprofCaptureReader *r =
      sysprof_capture_reader_new_from_fd (memfd_with (g_bytes_get_data (base, NULL), g_bytes_get_size (base)));
  SysprofCaptureReader *copy;

  g_assert_nonnull (sysprof_capture_reader_read_timestamp (r));
  copy = sysprof_capture_reader_copy (r);
  g_assert_nonnull (sysprof_capture_reader_read_sample (copy));
  g_assert_nonnull (sysprof_capture_reader_read_map (copy));
  /* The original did not move. */
  g_assert_nonnull (sysprof_capture_reader_read_sample (r));
  {
    const SysprofCaptureMap *m = sysprof_capture_reader_read_map (r);
    g_assert_cmpstr (sysprof_capture_map_get_build_id (m), ==, "abcdef");
  }
  sysprof_capture_reader_unref (copy);
  sysprof_capture_reader_unref (r);
}

/* A damaged chunk of another file between the chunks of /a: find_file and
 * read_file_fd step over it and still get all of /a. */
static void
test_damaged_chunk_between (void)
{
  g_autofree char      *path = tmp_path ("chunks.syscap");
  SysprofCaptureWriter *w = sysprof_capture_writer_new (path, 0);
  g_autofree char      *contents = NULL;
  gsize                 len;
  SysprofCaptureReader *r;
  char                  got[16] = "";
  int                   fd;

  g_assert_true (sysprof_capture_writer_add_file (w, 1, -1, -1, "/a", false, (const uint8_t *) "hello", 5));
  g_assert_true (sysprof_capture_writer_add_file (w, 2, -1, -1, "/b", true, (const uint8_t *) "bad", 3));
  g_assert_true (sysprof_capture_writer_add_file (w, 3, -1, -1, "/a", true, (const uint8_t *) " world", 6));
  sysprof_capture_writer_unref (w);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  /* The /b chunk (the second frame, after 256 + 296 bytes) claims more
   * data than its frame holds. */
  g_assert_cmpuint (len, >, 552 + 28);
  contents[552 + 26] = (char) 0xff;
  contents[552 + 27] = (char) 0xff;

  r = sysprof_capture_reader_new_from_fd (memfd_with (contents, len));
  g_assert_nonnull (r);
  g_assert_null (sysprof_capture_reader_find_file (r, "/b"));
  g_assert_true (sysprof_capture_reader_reset (r));
  g_assert_nonnull (sysprof_capture_reader_find_file (r, "/a"));
  fd = memfd_create ("out", MFD_CLOEXEC);
  g_assert_true (sysprof_capture_reader_read_file_fd (r, "/a", fd));
  g_assert_cmpint (pread (fd, got, sizeof got - 1, 0), ==, 11);
  g_assert_cmpstr (got, ==, "hello world");
  close (fd);
  sysprof_capture_reader_unref (r);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("test-capture-reader-XXXXXX", NULL);
  g_test_add_func ("/Capture/Reader/big-endian/all-types", test_big_endian_all_types);
  g_test_add_func ("/Capture/Reader/big-endian/sysprof-3.46-fixtures", test_big_endian_fixtures);
  g_test_add_func ("/Capture/Reader/truncation-every-offset", test_truncation_every_offset);
  g_test_add_func ("/Capture/Reader/corrupt-frames", test_corrupt_frames);
  g_test_add_func ("/Capture/Reader/bad-headers", test_bad_headers);
  g_test_add_func ("/Capture/Reader/unknown-and-index-frames", test_unknown_and_index_frames);
  g_test_add_func ("/Capture/Reader/unfinished-end-time", test_unfinished_end_time);
  g_test_add_func ("/Capture/Reader/copy", test_copy_is_independent);
  g_test_add_func ("/Capture/Reader/damaged-chunk-between", test_damaged_chunk_between);
  ret = g_test_run ();
  return ret;
}
