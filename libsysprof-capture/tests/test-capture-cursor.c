// SPDX-License-Identifier: GPL-3.0-or-later
/* Cursor and conditions: every condition kind, AND/OR, reverse iteration,
 * early stop, reset, and damaged captures. */

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include <sysprof-capture.h>

#define N_FRAMES 300

static char *capture_path;

/* Frame i: time i, pid i % 3 + 1; types cycle SAMPLE, EXIT, FILE_CHUNK ("/a" or "/b"),
 * and every 50th frame is a CTRSET of counter 1 + (i / 50) % 2 after both counters are defined. */
static void
build_capture (void)
{
  g_autofree char      *dir = g_dir_make_tmp ("test-capture-cursor-XXXXXX", NULL);
  SysprofCaptureWriter *w;
  SysprofCaptureCounter defs[2] = { { .name = "one", .id = 1 }, { .name = "two", .id = 2 } };

  capture_path = g_build_filename (dir, "cursor.syscap", NULL);
  w = sysprof_capture_writer_new (capture_path, 0);
  g_assert_cmpuint (sysprof_capture_writer_request_counter (w, 2), ==, 1);
  g_assert_true (sysprof_capture_writer_define_counters (w, 0, -1, 1, defs, 2));
  for (int i = 1; i < N_FRAMES; i++)
    {
      int pid = i % 3 + 1;

      if (i % 50 == 0)
        {
          unsigned int               id = 1 + (i / 50) % 2;
          SysprofCaptureCounterValue v = { .v64 = i };
          g_assert_true (sysprof_capture_writer_set_counters (w, i, -1, pid, &id, &v, 1));
          continue;
        }
      switch (i % 3)
        {
        case 0:
          {
            SysprofCaptureAddress a = (SysprofCaptureAddress) i;
            g_assert_true (sysprof_capture_writer_add_sample (w, i, 0, pid, pid, &a, 1));
          }
          break;
        case 1: g_assert_true (sysprof_capture_writer_add_exit (w, i, 0, pid)); break;
        default:
          g_assert_true (sysprof_capture_writer_add_file (w, i, 0, pid, (i / 3) % 2 ? "/a" : "/b", false,
                                                          (const uint8_t *) "x", 1));
          break;
        }
    }
  sysprof_capture_writer_unref (w);
}

typedef struct
{
  GArray *times;
  guint   stop_after;
} Collect;

static bool
collect_cb (const SysprofCaptureFrame *frame, void *user_data)
{
  Collect *c = user_data;
  int64_t  t = frame->time;

  g_array_append_val (c->times, t);
  return c->stop_after == 0 || c->times->len < c->stop_after;
}

/* Runs the cursor with @cond (NULL = no condition) and compares with @pred applied to every frame. */
static GArray *
run_cursor (SysprofCaptureCondition *cond, gboolean reverse)
{
  SysprofCaptureReader *r = sysprof_capture_reader_new (capture_path);
  SysprofCaptureCursor *cursor = sysprof_capture_cursor_new (r);
  Collect               c = { g_array_new (FALSE, FALSE, sizeof (int64_t)), 0 };

  /* The cursor works on its own copy: the reader passed in is not moved. */
  g_assert_true (sysprof_capture_reader_read_frame (r) != NULL);
  if (cond)
    sysprof_capture_cursor_add_condition (cursor, cond);
  if (reverse)
    sysprof_capture_cursor_reverse (cursor);
  g_assert_true (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  sysprof_capture_cursor_unref (cursor);
  sysprof_capture_reader_unref (r);
  return c.times;
}

typedef gboolean (*Pred) (int i);

static void
check (SysprofCaptureCondition *cond, Pred pred)
{
  SysprofCaptureCondition *copy = cond ? sysprof_capture_condition_copy (cond) : NULL;
  g_autoptr (GArray) fwd = run_cursor (cond, FALSE);
  g_autoptr (GArray) rev = run_cursor (copy, TRUE);
  g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (int64_t));

  for (int i = 0; i < N_FRAMES; i++)
    if (pred (i))
      {
        int64_t t = i;
        g_array_append_val (expected, t);
      }

  g_assert_cmpmem (fwd->data, fwd->len * sizeof (int64_t), expected->data, expected->len * sizeof (int64_t));
  g_assert_cmpuint (rev->len, ==, fwd->len);
  for (guint i = 0; i < rev->len; i++)
    g_assert_cmpint (g_array_index (rev, int64_t, i), ==, g_array_index (fwd, int64_t, fwd->len - 1 - i));
}

static int
frame_pid (int i)
{
  return i == 0 ? 1 : i % 3 + 1;
}
static gboolean
is_ctrset (int i)
{
  return i > 0 && i % 50 == 0;
}
static gboolean
is_sample (int i)
{
  return i > 0 && !is_ctrset (i) && i % 3 == 0;
}
static gboolean
is_file (int i)
{
  return i > 0 && !is_ctrset (i) && i % 3 == 2;
}
static gboolean
is_file_a (int i)
{
  return is_file (i) && (i / 3) % 2;
}

static gboolean
pred_all (int i)
{
  (void) i;
  return TRUE;
}
static gboolean
pred_types (int i)
{
  return is_sample (i) || is_ctrset (i);
}
static gboolean
pred_time (int i)
{
  return i >= 10 && i <= 20;
}
static gboolean
pred_pid (int i)
{
  return frame_pid (i) == 2 || frame_pid (i) == 3;
}
static gboolean
pred_counter_two (int i)
{
  return i == 0 || (is_ctrset (i) && (i / 50) % 2 == 1);
}
static gboolean
pred_file_a (int i)
{
  return is_file_a (i);
}
static gboolean
pred_and (int i)
{
  return is_sample (i) && i >= 100 && i <= 200;
}
static gboolean
pred_or (int i)
{
  return is_file_a (i) || frame_pid (i) == 1;
}

static void
test_conditions (void)
{
  static const SysprofCaptureFrameType types[] = { SYSPROF_CAPTURE_FRAME_SAMPLE, SYSPROF_CAPTURE_FRAME_CTRSET };
  static const int32_t                 pids[] = { 2, 3 };
  static const unsigned int            counters[] = { 2 };
  static const int32_t                 pid_one[] = { 1 };

  check (NULL, pred_all);
  check (sysprof_capture_condition_new_where_type_in (2, types), pred_types);
  check (sysprof_capture_condition_new_where_time_between (20, 10), pred_time);
  check (sysprof_capture_condition_new_where_pid_in (2, pids), pred_pid);
  check (sysprof_capture_condition_new_where_counter_in (1, counters), pred_counter_two);
  check (sysprof_capture_condition_new_where_file ("/a"), pred_file_a);
  check (sysprof_capture_condition_new_and (sysprof_capture_condition_new_where_type_in (1, types),
                                            sysprof_capture_condition_new_where_time_between (100, 200)),
         pred_and);
  check (sysprof_capture_condition_new_or (sysprof_capture_condition_new_where_file ("/a"),
                                           sysprof_capture_condition_new_where_pid_in (1, pid_one)),
         pred_or);
}

static void
test_multiple_conditions_are_ored (void)
{
  static const int32_t  pid_one[] = { 1 };
  SysprofCaptureReader *r = sysprof_capture_reader_new (capture_path);
  SysprofCaptureCursor *cursor = sysprof_capture_cursor_new (r);
  Collect               c = { g_array_new (FALSE, FALSE, sizeof (int64_t)), 0 };
  guint                 expected = 0;

  sysprof_capture_cursor_add_condition (cursor, sysprof_capture_condition_new_where_file ("/a"));
  sysprof_capture_cursor_add_condition (cursor, sysprof_capture_condition_new_where_pid_in (1, pid_one));
  g_assert_true (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  for (int i = 0; i < N_FRAMES; i++)
    expected += pred_or (i);
  g_assert_cmpuint (c.times->len, ==, expected);
  g_array_unref (c.times);
  sysprof_capture_cursor_unref (cursor);
  sysprof_capture_reader_unref (r);
}

static void
test_stop_reset_reverse (void)
{
  SysprofCaptureReader *r = sysprof_capture_reader_new (capture_path);
  SysprofCaptureCursor *cursor = sysprof_capture_cursor_new (r);
  Collect               c = { g_array_new (FALSE, FALSE, sizeof (int64_t)), 5 };

  /* Stop after 5, continue where it stopped, then reset. */
  g_assert_true (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  g_assert_cmpuint (c.times->len, ==, 5);
  c.stop_after = 8;
  g_assert_true (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  g_assert_cmpuint (c.times->len, ==, 8);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpint (g_array_index (c.times, int64_t, i), ==, i);

  g_array_set_size (c.times, 0);
  c.stop_after = 3;
  sysprof_capture_cursor_reset (cursor);
  sysprof_capture_cursor_reverse (cursor);
  g_assert_true (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  g_assert_cmpuint (c.times->len, ==, 3);
  g_assert_cmpint (g_array_index (c.times, int64_t, 0), ==, N_FRAMES - 1);
  g_assert_cmpint (g_array_index (c.times, int64_t, 2), ==, N_FRAMES - 3);
  /* Reverse also resumes where it stopped. */
  c.stop_after = 4;
  g_assert_true (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  g_assert_cmpint (g_array_index (c.times, int64_t, 3), ==, N_FRAMES - 4);

  g_array_unref (c.times);
  sysprof_capture_cursor_unref (cursor);
  sysprof_capture_reader_unref (r);
}

static void
test_damaged_capture (void)
{
  g_autofree char      *contents = NULL;
  gsize                 len;
  SysprofCaptureReader *r;
  SysprofCaptureCursor *cursor;
  Collect               c = { g_array_new (FALSE, FALSE, sizeof (int64_t)), 0 };
  int                   fd;

  g_assert_true (g_file_get_contents (capture_path, &contents, &len, NULL));
  fd = memfd_create ("damaged", MFD_CLOEXEC);
  g_assert_cmpint (write (fd, contents, len - 5), ==, (ssize_t) (len - 5));
  r = sysprof_capture_reader_new_from_fd (fd);
  cursor = sysprof_capture_cursor_new (r);

  errno = 0;
  g_assert_false (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  g_assert_cmpint (errno, ==, EIO);
  g_assert_cmpuint (c.times->len, ==, N_FRAMES - 1);

  g_array_set_size (c.times, 0);
  sysprof_capture_cursor_reset (cursor);
  sysprof_capture_cursor_reverse (cursor);
  g_assert_false (sysprof_capture_cursor_foreach_checked (cursor, collect_cb, &c));
  g_assert_cmpuint (c.times->len, ==, N_FRAMES - 1);
  g_assert_cmpint (g_array_index (c.times, int64_t, 0), ==, N_FRAMES - 2);

  g_array_unref (c.times);
  sysprof_capture_cursor_unref (cursor);
  sysprof_capture_reader_unref (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  build_capture ();
  g_test_add_func ("/Capture/Cursor/conditions", test_conditions);
  g_test_add_func ("/Capture/Cursor/multiple-conditions-or", test_multiple_conditions_are_ored);
  g_test_add_func ("/Capture/Cursor/stop-reset-reverse", test_stop_reset_reverse);
  g_test_add_func ("/Capture/Cursor/damaged-capture", test_damaged_capture);
  return g_test_run ();
}
