// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarkStats on captures written here with marks of known durations
 * (the expected figures computed by the test from the same list, by a plain
 * loop), on Sysprof 3.46's marks fixture (against a count of its MARK frames),
 * through the summary path, the filters, hostile durations and damage. */
#include <glib/gstdio.h>
#include <string.h>

#include "sysprof-analysis.h"

typedef struct
{
  gint64      offset_ns; /* from the capture's start */
  gint32      pid;
  const char *group;
  const char *name;
  gint64      duration;
} TestMark;

#define START G_GINT64_CONSTANT (1000000000000)

static const TestMark test_marks[] = {
  { 10, 100, "gtk", "layout", 5000 },   { 20, 100, "gtk", "layout", 1000 },         { 30, 100, "gtk", "layout", 3000 },
  { 40, 100, "gtk", "layout", 100000 }, { 50, 100, "gtk", "snapshot", 700 },        { 60, 100, "gtk", "snapshot", 900 },
  { 70, 200, "glib", "idle", 40 },      { 80, 200, "gtk", "layout", 2000 },         { 90, 200, "glib", "idle", 60 },
  { 100, 200, "glib", "idle", -5 },     { 5000000000, 100, "gtk", "layout", 8000 },
};

static char *
write_capture (const TestMark *marks, guint n)
{
  g_autofree char      *path = NULL;
  int                   fd = g_file_open_tmp ("test-mark-stats-XXXXXX.syscap", &path, NULL);
  SysprofCaptureWriter *writer;

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  writer = sysprof_capture_writer_new (path, 0);
  g_assert_nonnull (writer);
  g_assert_true (sysprof_capture_writer_set_time_range (writer, START, START + 6 * G_GINT64_CONSTANT (1000000000)));
  for (guint i = 0; i < n; i++)
    g_assert_true (sysprof_capture_writer_add_mark (writer, START + marks[i].offset_ns, 0, marks[i].pid,
                                                    (guint64) marks[i].duration, marks[i].group, marks[i].name,
                                                    "message"));
  sysprof_capture_writer_flush (writer);
  sysprof_capture_writer_unref (writer);
  return g_steal_pointer (&path);
}

/* What the stats of (group, name) must be, by a loop over @marks. */
static void
check_row (const GArray *rows, const TestMark *marks, guint n, const char *group, const char *name, gint32 pid)
{
  g_autoptr (GArray) d = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 total = 0;
  guint  found = 0;

  for (guint i = 0; i < n; i++)
    if (g_str_equal (marks[i].group, group) && g_str_equal (marks[i].name, name) && (pid == 0 || marks[i].pid == pid))
      {
        gint64 v = MAX (marks[i].duration, 0);

        /* Insertion sort: a handful of values. */
        guint j = d->len;
        g_array_append_val (d, v);
        while (j > 0 && g_array_index (d, gint64, j - 1) > v)
          {
            g_array_index (d, gint64, j) = g_array_index (d, gint64, j - 1);
            j--;
          }
        g_array_index (d, gint64, j) = v;
        total += v;
      }
  for (guint r = 0; r < rows->len; r++)
    {
      const SysprofMarkStat *row = &g_array_index (rows, SysprofMarkStat, r);

      if (!g_str_equal (row->group, group) || !g_str_equal (row->name, name))
        continue;
      found++;
      g_assert_cmpuint (row->count, ==, d->len);
      g_assert_cmpfloat (row->total_ns, ==, (double) total);
      g_assert_cmpint (row->min_ns, ==, g_array_index (d, gint64, 0));
      g_assert_cmpint (row->max_ns, ==, g_array_index (d, gint64, d->len - 1));
      if (d->len % 2 == 1)
        g_assert_cmpfloat (row->median_ns, ==, (double) g_array_index (d, gint64, d->len / 2));
      else
        g_assert_cmpfloat (
            row->median_ns, ==,
            ((double) g_array_index (d, gint64, d->len / 2 - 1) + g_array_index (d, gint64, d->len / 2)) / 2);
      g_assert_cmpfloat_with_epsilon (row->mean_ns, (double) total / d->len, 1e-6);
    }
  g_assert_cmpuint (found, ==, d->len > 0 ? 1 : 0);
}

static void
test_known (void)
{
  g_autofree char *path = write_capture (test_marks, G_N_ELEMENTS (test_marks));
  g_autoptr (GError) error = NULL;
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  g_autoptr (GArray) rows = sysprof_mark_stats_from_reader (reader, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 3);
  check_row (rows, test_marks, G_N_ELEMENTS (test_marks), "gtk", "layout", 0);
  check_row (rows, test_marks, G_N_ELEMENTS (test_marks), "gtk", "snapshot", 0);
  check_row (rows, test_marks, G_N_ELEMENTS (test_marks), "glib", "idle", 0);
  /* Most total time first. */
  g_assert_cmpstr (g_array_index (rows, SysprofMarkStat, 0).name, ==, "layout");
  g_assert_cmpstr (g_array_index (rows, SysprofMarkStat, 2).name, ==, "idle");

  /* Filters: one process; one group; a window of the first 75 ns. */
  {
    const gint32            pids[] = { 200 };
    SysprofMarkStatsOptions options = SYSPROF_MARK_STATS_OPTIONS_INIT;
    g_autoptr (GArray) by_pid = NULL;
    g_autoptr (GArray) by_group = NULL;
    g_autoptr (GArray) in_window = NULL;

    options.pids = pids;
    options.n_pids = 1;
    by_pid = sysprof_mark_stats_from_reader (reader, &options, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (by_pid->len, ==, 2);
    check_row (by_pid, test_marks, G_N_ELEMENTS (test_marks), "gtk", "layout", 200);
    check_row (by_pid, test_marks, G_N_ELEMENTS (test_marks), "glib", "idle", 200);

    options = (SysprofMarkStatsOptions) SYSPROF_MARK_STATS_OPTIONS_INIT;
    options.group = "glib";
    by_group = sysprof_mark_stats_from_reader (reader, &options, &error);
    g_assert_cmpuint (by_group->len, ==, 1);

    options = (SysprofMarkStatsOptions) SYSPROF_MARK_STATS_OPTIONS_INIT;
    options.begin_ns = 15;
    options.end_ns = 75;
    in_window = sysprof_mark_stats_from_reader (reader, &options, &error);
    g_assert_cmpuint (in_window->len, ==, 3);
    check_row (in_window, test_marks + 1, 6, "gtk", "layout", 0);
    check_row (in_window, test_marks + 1, 6, "gtk", "snapshot", 0);
    check_row (in_window, test_marks + 1, 6, "glib", "idle", 0);

    /* Overlapping: the mark at 10 ns lasting 5000 ns crosses [15, 75]. */
    {
      g_autoptr (GArray) crossing = NULL;

      options.overlapping = TRUE;
      crossing = sysprof_mark_stats_from_reader (reader, &options, &error);
      check_row (crossing, test_marks, 7, "gtk", "layout", 0);
    }
  }

  /* The summary path gives the same rows. */
  {
    g_autoptr (SysprofCaptureSummary) summary =
        sysprof_capture_summary_new (sysprof_capture_reader_get_start_time (reader), 0);
    g_autoptr (GArray) again = NULL;

    g_assert_true (sysprof_capture_summary_read (summary, reader, 0, NULL, NULL, NULL, &error));
    again = sysprof_mark_stats_from_summary_marks ((const SysprofSummaryMark *) (gpointer) summary->marks->data,
                                                   summary->marks->len, NULL);
    g_assert_cmpuint (again->len, ==, rows->len);
    for (guint i = 0; i < rows->len; i++)
      {
        const SysprofMarkStat *a = &g_array_index (rows, SysprofMarkStat, i);
        const SysprofMarkStat *b = &g_array_index (again, SysprofMarkStat, i);

        g_assert_cmpstr (a->group, ==, b->group);
        g_assert_cmpstr (a->name, ==, b->name);
        g_assert_cmpuint (a->count, ==, b->count);
        g_assert_cmpfloat (a->total_ns, ==, b->total_ns);
        g_assert_cmpfloat (a->median_ns, ==, b->median_ns);
      }
  }
  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

/* Durations past the limit count as the limit; their total goes past
 * G_MAXINT64 without wrapping. */
static void
test_hostile_durations (void)
{
  const TestMark marks[] = {
    { 1, 1, "x", "big", G_MAXINT64 }, { 2, 1, "x", "big", G_MAXINT64 }, { 3, 1, "x", "big", G_MAXINT64 },
    { 4, 1, "x", "big", G_MAXINT64 }, { 5, 1, "x", "big", G_MAXINT64 },
  };
  g_autofree char *path = write_capture (marks, G_N_ELEMENTS (marks));
  g_autoptr (GError) error = NULL;
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  g_autoptr (GArray) rows = sysprof_mark_stats_from_reader (reader, NULL, &error);
  const SysprofMarkStat *row;

  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 1);
  row = &g_array_index (rows, SysprofMarkStat, 0);
  g_assert_cmpuint (row->count, ==, 5);
  g_assert_cmpint (row->max_ns, ==, SYSPROF_SUMMARY_TIME_LIMIT);
  g_assert_cmpfloat (row->mean_ns, ==, (double) SYSPROF_SUMMARY_TIME_LIMIT);
  g_assert_cmpfloat (row->total_ns, ==, 5.0 * (double) SYSPROF_SUMMARY_TIME_LIMIT);
  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

/* A capture cut inside a frame: an error naming the damage, no rows. */
static void
test_truncated (void)
{
  g_autofree char *path = write_capture (test_marks, G_N_ELEMENTS (test_marks));
  g_autoptr (GError) error = NULL;
  GStatBuf              st;
  SysprofCaptureReader *reader;
  GArray               *rows;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (truncate (path, st.st_size - 20), ==, 0);
  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  rows = sysprof_mark_stats_from_reader (reader, NULL, &error);
  g_assert_null (rows);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

/* Sysprof 3.46's fixture: every MARK frame counted once, in its row. */
static void
test_fixture_346 (void)
{
  g_autofree char *path =
      g_test_build_filename (G_TEST_DIST, "..", "..", "..", "tests", "data", "sysprof-3.46-marks.syscap", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SysprofCaptureReader   *reader = sysprof_capture_reader_new (path);
  SysprofCaptureFrameType type;
  g_autoptr (GArray) rows = NULL;
  guint64 n = 0;

  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureMark *mark;
      char                     *key;

      if (type != SYSPROF_CAPTURE_FRAME_MARK)
        {
          sysprof_capture_reader_skip (reader);
          continue;
        }
      mark = sysprof_capture_reader_read_mark (reader);
      key = g_strdup_printf ("%s/%s", mark->group, mark->name);
      g_hash_table_insert (counts, key, GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (counts, key)) + 1));
      n++;
    }
  g_assert_cmpuint (n, >, 0);
  rows = sysprof_mark_stats_from_reader (reader, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, g_hash_table_size (counts));
  for (guint i = 0; i < rows->len; i++)
    {
      const SysprofMarkStat *row = &g_array_index (rows, SysprofMarkStat, i);
      g_autofree char       *key = g_strdup_printf ("%s/%s", row->group, row->name);

      g_assert_cmpuint (row->count, ==, GPOINTER_TO_SIZE (g_hash_table_lookup (counts, key)));
      g_assert_cmpfloat (row->min_ns, <=, row->median_ns);
      g_assert_cmpfloat (row->median_ns, <=, row->max_ns);
      g_assert_cmpfloat (row->min_ns, <=, row->mean_ns);
      g_assert_cmpfloat (row->mean_ns, <=, row->max_ns);
    }
  sysprof_capture_reader_unref (reader);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/MarkStats/known", test_known);
  g_test_add_func ("/MarkStats/hostile-durations", test_hostile_durations);
  g_test_add_func ("/MarkStats/truncated", test_truncated);
  g_test_add_func ("/MarkStats/fixture-346", test_fixture_346);
  return g_test_run ();
}
