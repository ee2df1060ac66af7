// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDocument: what the app's views are chosen from.  A capture with
 * known frames of every kind is scanned and every scan result checked; a
 * damaged capture still loads what precedes the damage and says so; a
 * file that is no capture is refused with its name; the worker computes and
 * caches callgraphs under the shared filter.  No GTK here: this runs under
 * ASan with the other unit tests. */
#include <glib/gstdio.h>
#include <string.h>

#include "sysprof-document.h"

#define MS 1000000LL

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static gboolean
writer_ok (gboolean ok)
{
  g_assert_true (ok);
  return ok;
}

/* Frames at known times (ms from t0): see the assertions for their sense. */
static void
write_capture (const char *path)
{
  SysprofCaptureWriter      *writer = sysprof_capture_writer_new (path, 0);
  int64_t                    t0 = SYSPROF_CAPTURE_CURRENT_TIME;
  SysprofCaptureAddress      stack[3] = { 0x1000, 0x2000, 0x3000 };
  SysprofCaptureCounter      counters[2] = { 0 };
  unsigned int               ids[2] = { 7, 8 };
  SysprofCaptureCounterValue values[2];

  g_assert_nonnull (writer);
  writer_ok (sysprof_capture_writer_add_process (writer, t0 + 1 * MS, 0, 100, "/usr/bin/worker --fast"));
  writer_ok (sysprof_capture_writer_add_fork (writer, t0 + 2 * MS, 0, 100, 101));
  for (int i = 0; i < 10; i++)
    writer_ok (sysprof_capture_writer_add_sample (writer, t0 + (10 + i * 10) * MS, i % 3, 100, 100, stack, 3));
  writer_ok (sysprof_capture_writer_add_sample (writer, t0 + 50 * MS, 1, 101, 102, stack, 2));
  writer_ok (sysprof_capture_writer_add_exit (writer, t0 + 300 * MS, 0, 101));

  g_strlcpy (counters[0].category, "CPU Percent", sizeof counters[0].category);
  g_strlcpy (counters[0].name, "Total", sizeof counters[0].name);
  counters[0].id = 7;
  counters[0].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
  g_strlcpy (counters[1].category, "Disk", sizeof counters[1].category);
  g_strlcpy (counters[1].name, "Reads", sizeof counters[1].name);
  counters[1].id = 8;
  counters[1].type = SYSPROF_CAPTURE_COUNTER_INT64;
  writer_ok (sysprof_capture_writer_define_counters (writer, t0 + 3 * MS, -1, -1, counters, 2));
  for (int i = 0; i < 4; i++)
    {
      values[0].vdbl = 10.0 * (i + 1);
      values[1].v64 = 1000 * i;
      writer_ok (sysprof_capture_writer_set_counters (writer, t0 + (100 + i * 100) * MS, -1, -1, ids, values, 2));
    }

  writer_ok (sysprof_capture_writer_add_mark (writer, t0 + 200 * MS, 0, 100, 30 * MS, "gtk", "frame", "one"));
  writer_ok (sysprof_capture_writer_add_mark (writer, t0 + 150 * MS, 0, 100, 10 * MS, "gtk", "frame", "two"));
  writer_ok (sysprof_capture_writer_add_log (writer, t0 + 120 * MS, 0, 100, G_LOG_LEVEL_WARNING, "Gtk", "careful"));
  writer_ok (sysprof_capture_writer_add_metadata (writer, t0 + 5 * MS, -1, -1, SYSPROF_LOST_EVENTS_METADATA_ID,
                                                  "12 allocation records dropped", -1));
  writer_ok (sysprof_capture_writer_add_metadata (writer, t0 + 5 * MS, -1, -1, "hostname", "buildbox", -1));
  writer_ok (sysprof_capture_writer_add_file (writer, t0 + 6 * MS, -1, -1, "/proc/mounts", FALSE,
                                              (const uint8_t *) "proc /proc ", 11));
  writer_ok (sysprof_capture_writer_add_file (writer, t0 + 6 * MS, -1, -1, "/proc/mounts", TRUE,
                                              (const uint8_t *) "proc rw 0 0\n", 12));
  /* Gzipped as Sysprof 45+ stores files. */
  {
    g_autoptr (GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
    g_autoptr (GOutputStream) memory = g_memory_output_stream_new_resizable ();
    g_autoptr (GOutputStream) out = g_converter_output_stream_new (memory, G_CONVERTER (compressor));
    g_autoptr (GBytes) packed = NULL;

    g_assert_true (g_output_stream_write_all (out, "processor\t: 0\n", 14, NULL, NULL, NULL));
    g_assert_true (g_output_stream_close (out, NULL, NULL));
    packed = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
    writer_ok (sysprof_capture_writer_add_file (writer, t0 + 6 * MS, -1, -1, "/proc/cpuinfo.gz", TRUE,
                                                g_bytes_get_data (packed, NULL), g_bytes_get_size (packed)));
  }
  writer_ok (sysprof_capture_writer_add_allocation_copy (writer, t0 + 60 * MS, 0, 100, 100, 0xabc0, 64, stack, 3));
  writer_ok (sysprof_capture_writer_add_allocation_copy (writer, t0 + 70 * MS, 0, 100, 100, 0xabc0, 0, NULL, 0));
  writer_ok (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  f->dir = g_dir_make_tmp ("test-document-XXXXXX", NULL);
  f->path = g_build_filename (f->dir, "known.syscap", NULL);
  write_capture (f->path);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  (void) data;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->path);
}

static void
load_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GError **error = user_data;

  if (!sysprof_document_load_finish (SYSPROF_DOCUMENT (object), result, error) && *error == NULL)
    g_assert_not_reached ();
}

/* Loads @path; NULL with *@error set when it fails. */
static SysprofDocument *
load (const char *path, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SysprofDocument) document = sysprof_document_new (file);

  sysprof_document_load_async (document, NULL, load_cb, error);
  while (!sysprof_document_is_loaded (document) && *error == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *error ? NULL : g_steal_pointer (&document);
}

static void
test_scan (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofDocument) document = load (f->path, &error);
  GArray                      *samples, *marks, *logs, *processes, *files;
  GPtrArray                   *counters;
  const SysprofSummaryProcess *p100 = NULL, *p101 = NULL;
  const SysprofSummaryCounter *cpu, *disk;
  g_autoptr (GBytes) mounts = NULL;
  g_autoptr (GBytes) cpuinfo = NULL;

  (void) data;
  g_assert_no_error (error);

  g_assert_cmpuint (sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_SAMPLE), ==, 11);
  g_assert_cmpuint (sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_ALLOCATION), ==, 2);
  g_assert_cmpuint (sysprof_document_get_n_allocations (document), ==, 1);
  /* The allocation at 60 ms (the free at 70 ms is not counted). */
  {
    GArray                               *buckets = sysprof_document_get_allocation_buckets (document);
    const SysprofSummaryAllocationBucket *b;

    g_assert_cmpuint (buckets->len, ==, 1);
    b = &g_array_index (buckets, SysprofSummaryAllocationBucket, 0);
    g_assert_true (b->ms == 60 || b->ms == 59);
    g_assert_cmpuint (b->count, ==, 1);
  }
  g_assert_cmpuint (sysprof_document_get_n_lost_events (document), ==, 12);
  g_assert_cmpuint (sysprof_document_get_n_cpus (document), ==, 3);
  g_assert_cmpstr (sysprof_document_get_host (document), ==, "buildbox");
  /* To the last frame: the counters at 400 ms (the header's end time is the
   * writer's last flush, a little later). */
  g_assert_cmpint (sysprof_document_get_duration (document), >=, 400 * MS);
  g_assert_cmpint (sysprof_document_get_duration (document), <, 500 * MS);

  samples = sysprof_document_get_samples (document);
  g_assert_cmpuint (samples->len, ==, 11);
  for (guint i = 1; i < samples->len; i++)
    g_assert_cmpint (g_array_index (samples, SysprofSummarySample, i - 1).time_ns, <=,
                     g_array_index (samples, SysprofSummarySample, i).time_ns);

  /* Marks in time order, whatever the capture's order. */
  marks = sysprof_document_get_marks (document);
  g_assert_cmpuint (marks->len, ==, 2);
  g_assert_cmpstr (g_array_index (marks, SysprofSummaryMark, 0).message, ==, "two");
  g_assert_cmpint (g_array_index (marks, SysprofSummaryMark, 0).duration_ns, ==, 10 * MS);
  g_assert_cmpstr (g_array_index (marks, SysprofSummaryMark, 1).group, ==, "gtk");
  g_assert_cmpstr (g_array_index (marks, SysprofSummaryMark, 1).name, ==, "frame");

  logs = sysprof_document_get_logs (document);
  g_assert_cmpuint (logs->len, ==, 1);
  g_assert_cmpuint (g_array_index (logs, SysprofSummaryLog, 0).severity, ==, G_LOG_LEVEL_WARNING);
  g_assert_cmpstr (g_array_index (logs, SysprofSummaryLog, 0).domain, ==, "Gtk");
  g_assert_cmpstr (g_array_index (logs, SysprofSummaryLog, 0).message, ==, "careful");

  processes = sysprof_document_get_processes (document);
  for (guint i = 0; i < processes->len; i++)
    {
      const SysprofSummaryProcess *p = &g_array_index (processes, SysprofSummaryProcess, i);

      if (p->pid == 100)
        p100 = p;
      else if (p->pid == 101)
        p101 = p;
    }
  g_assert_nonnull (p100);
  g_assert_nonnull (p101);
  g_assert_cmpstr (p100->cmdline, ==, "/usr/bin/worker --fast");
  g_assert_cmpuint (p100->n_samples, ==, 10);
  g_assert_cmpuint (p100->n_allocations, ==, 1);
  g_assert_false (p100->exited);
  g_assert_true (p101->exited);
  g_assert_cmpuint (p101->n_samples, ==, 1);
  g_assert_cmpint (p101->end_ns - p101->begin_ns, >=, 298 * MS - 2 * MS);

  counters = sysprof_document_get_counters (document);
  g_assert_cmpuint (counters->len, ==, 2);
  cpu = g_ptr_array_index (counters, 0);
  disk = g_ptr_array_index (counters, 1);
  g_assert_cmpstr (cpu->category, ==, "CPU Percent");
  g_assert_true (cpu->is_double);
  g_assert_cmpuint (cpu->values->len, ==, 4);
  g_assert_cmpfloat (cpu->min, ==, 10.0);
  g_assert_cmpfloat (cpu->max, ==, 40.0);
  g_assert_false (disk->is_double);
  g_assert_cmpfloat (disk->max, ==, 3000.0);
  g_assert_cmpstrv (sysprof_document_get_counter_categories (document),
                    ((const char *const[]){ "CPU Percent", "Disk", NULL }));

  files = sysprof_document_get_files (document);
  g_assert_cmpuint (files->len, ==, 2);
  g_assert_cmpstr (g_array_index (files, SysprofSummaryFile, 0).path, ==, "/proc/cpuinfo.gz");
  g_assert_cmpstr (g_array_index (files, SysprofSummaryFile, 1).path, ==, "/proc/mounts");
  g_assert_cmpuint (g_array_index (files, SysprofSummaryFile, 1).size, ==, 23);
  mounts = sysprof_document_read_file (document, "/proc/mounts", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (mounts, NULL), g_bytes_get_size (mounts), "proc /proc proc rw 0 0\n", 23);
  /* A gzipped file reads as the text it stands for. */
  cpuinfo = sysprof_document_read_file (document, "/proc/cpuinfo.gz", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (cpuinfo, NULL), g_bytes_get_size (cpuinfo), "processor\t: 0\n", 14);
  g_assert_null (sysprof_document_read_file (document, "/etc/passwd", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static void
test_damaged (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofDocument) document = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *cut = g_build_filename (f->dir, "cut.syscap", NULL);
  g_autofree char *junk = g_build_filename (f->dir, "junk.syscap", NULL);
  GArray          *metadata;
  gboolean         damage_noted = FALSE;
  gsize            length;

  (void) data;
  g_assert_true (g_file_get_contents (f->path, &contents, &length, NULL));
  /* Cut in the middle of the frames: what precedes is kept. */
  g_assert_true (g_file_set_contents (cut, contents, 256 + (gssize) (length - 256) / 2 + 5, NULL));
  document = load (cut, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sysprof_document_get_n_frames_total (document), >, 0);
  metadata = sysprof_document_get_metadata (document);
  for (guint i = 0; i < metadata->len; i++)
    if (strcmp (g_array_index (metadata, SysprofSummaryMetadata, i).id, "sysprof-app.damage") == 0)
      damage_noted = TRUE;
  g_assert_true (damage_noted);

  g_assert_true (g_file_set_contents (junk,
                                      "this is not a capture at all, but it is long enough to have a header? "
                                      "no: a capture header is 256 bytes",
                                      -1, NULL));
  g_clear_object (&document);
  document = load (junk, &error);
  g_assert_null (document);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "junk.syscap"));
}

static void
callgraph_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofCallgraph **out = user_data;
  g_autoptr (GError) error = NULL;

  *out = sysprof_document_callgraph_finish (SYSPROF_DOCUMENT (object), result, &error);
  g_assert_no_error (error);
}

static SysprofCallgraph *
callgraph_of (SysprofDocument *document)
{
  SysprofCallgraph *callgraph = NULL;

  sysprof_document_callgraph_async (document, SYSPROF_CALLGRAPH_SOURCE_SAMPLES, SYSPROF_CALLGRAPH_WEIGHT_COUNT, NULL,
                                    callgraph_cb, &callgraph);
  while (callgraph == NULL)
    g_main_context_iteration (NULL, TRUE);
  return callgraph;
}

static void
count_signal (SysprofDocument *document, guint *count)
{
  (void) document;
  (*count)++;
}

static void
test_filter (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofDocument) document = load (f->path, &error);
  g_autoptr (SysprofCallgraph) all = NULL;
  g_autoptr (SysprofCallgraph) again = NULL;
  g_autoptr (SysprofCallgraph) window = NULL;
  guint  changes = 0;
  gint64 begin, end;

  (void) data;
  g_assert_no_error (error);
  g_signal_connect (document, "filter-changed", G_CALLBACK (count_signal), &changes);

  /* Two views asking at once share one computation. */
  {
    SysprofCallgraph *first = NULL, *second = NULL;

    sysprof_document_callgraph_async (document, SYSPROF_CALLGRAPH_SOURCE_SAMPLES, SYSPROF_CALLGRAPH_WEIGHT_COUNT, NULL,
                                      callgraph_cb, &first);
    sysprof_document_callgraph_async (document, SYSPROF_CALLGRAPH_SOURCE_SAMPLES, SYSPROF_CALLGRAPH_WEIGHT_COUNT, NULL,
                                      callgraph_cb, &second);
    while (first == NULL || second == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_true (first == second);
    all = first;
    g_object_unref (second);
  }
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (all), ==, 11);
  /* Asked again with the same filter: the cached one. */
  again = callgraph_of (document);
  g_assert_true (again == all);

  /* Samples at 10, 20, ..., 100 ms and 50 ms: [25 ms, 55 ms] holds 30, 40,
   * 50 (twice). */
  sysprof_document_set_selection (document, 55 * MS, 25 * MS);
  g_assert_cmpuint (changes, ==, 1);
  sysprof_document_get_selection (document, &begin, &end);
  g_assert_cmpint (begin, ==, 25 * MS);
  g_assert_true (sysprof_document_has_selection (document));
  window = callgraph_of (document);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (window), ==, 4);

  sysprof_document_hide_function (document, "main");
  sysprof_document_hide_function (document, "main");
  g_assert_cmpuint (changes, ==, 2);
  g_assert_cmpstrv (sysprof_document_get_hidden_functions (document), ((const char *const[]){ "main", NULL }));
  sysprof_document_focus_function (document, "run");
  g_assert_cmpstrv (sysprof_document_get_focused_functions (document), ((const char *const[]){ "run", NULL }));
  sysprof_document_reset_functions (document);
  g_assert_cmpuint (changes, ==, 4);
  g_assert_null (sysprof_document_get_hidden_functions (document)[0]);

  sysprof_document_set_visible_range (document, 10 * MS, 20 * MS);
  sysprof_document_get_visible_range (document, &begin, &end);
  g_assert_cmpint (begin, ==, 10 * MS);
  g_assert_cmpint (end, ==, 20 * MS);
}

/* A hostile clock: frames at the extremes of int64, allocations out of
 * order and one far in the future, a mark lasting INT64_MAX.  Every time is
 * kept within SYSPROF_SUMMARY_TIME_LIMIT, and the allocations' density
 * costs one bucket per millisecond that has any. */
static void
test_hostile_times (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "hostile.syscap", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofDocument) document = NULL;
  SysprofCaptureWriter                 *writer = sysprof_capture_writer_new (path, 0);
  int64_t                               t0 = SYSPROF_CAPTURE_CURRENT_TIME;
  SysprofCaptureAddress                 stack[1] = { 0x1000 };
  const int64_t                         alloc_ms[] = { 5, 3, 5, 1, 5, 40, 3 };
  const gint64                          expect_ms[] = { 1, 3, 5, 40, 1000000000000, SYSPROF_SUMMARY_TIME_LIMIT / MS };
  const guint64                         expect_count[] = { 1, 2, 3, 1, 1, 1 };
  GArray                               *buckets, *samples, *marks;
  const SysprofSummaryAllocationBucket *b;

  (void) data;
  g_assert_nonnull (writer);
  for (guint i = 0; i < G_N_ELEMENTS (alloc_ms); i++)
    writer_ok (sysprof_capture_writer_add_allocation_copy (writer, t0 + alloc_ms[i] * MS, 0, 100, 100, 0x100 + i, 16,
                                                           stack, 1));
  /* 31 years after the start: a dense array would need 4 TB. */
  writer_ok (
      sysprof_capture_writer_add_allocation_copy (writer, t0 + 1000000000000 * MS, 0, 100, 100, 0x200, 16, stack, 1));
  writer_ok (sysprof_capture_writer_add_allocation_copy (writer, G_MAXINT64, 0, 100, 100, 0x300, 16, stack, 1));
  writer_ok (sysprof_capture_writer_add_sample (writer, G_MININT64, 0, 100, 100, stack, 1));
  writer_ok (sysprof_capture_writer_add_mark (writer, t0 + 10 * MS, 0, 100, G_MAXINT64, "g", "forever", ""));
  writer_ok (sysprof_capture_writer_add_mark (writer, G_MAXINT64, 0, 100, G_MAXINT64, "g", "late", ""));
  writer_ok (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  document = load (path, &error);
  g_assert_no_error (error);

  buckets = sysprof_document_get_allocation_buckets (document);
  g_assert_cmpuint (buckets->len, ==, G_N_ELEMENTS (expect_ms));
  for (guint i = 0; i < buckets->len; i++)
    {
      b = &g_array_index (buckets, SysprofSummaryAllocationBucket, i);
      g_assert_cmpint (b->ms, ==, expect_ms[i]);
      g_assert_cmpuint (b->count, ==, expect_count[i]);
    }

  g_assert_cmpint (sysprof_document_get_duration (document), ==, SYSPROF_SUMMARY_TIME_LIMIT);
  samples = sysprof_document_get_samples (document);
  g_assert_cmpuint (samples->len, ==, 1);
  g_assert_cmpint (g_array_index (samples, SysprofSummarySample, 0).time_ns, ==, -SYSPROF_SUMMARY_TIME_LIMIT);
  marks = sysprof_document_get_marks (document);
  g_assert_cmpuint (marks->len, ==, 2);
  for (guint i = 0; i < marks->len; i++)
    {
      const SysprofSummaryMark *mark = &g_array_index (marks, SysprofSummaryMark, i);

      g_assert_cmpint (mark->time_ns, <=, SYSPROF_SUMMARY_TIME_LIMIT);
      g_assert_cmpint (mark->duration_ns, ==, SYSPROF_SUMMARY_TIME_LIMIT);
    }
  g_assert_cmpint (g_array_index (marks, SysprofSummaryMark, 1).time_ns, ==, SYSPROF_SUMMARY_TIME_LIMIT);

  /* A selection past the limits is clamped so its ends can be subtracted;
   * the visible range stays within the capture. */
  {
    gint64 begin, end;

    sysprof_document_set_selection (document, G_MININT64 + 1, G_MAXINT64);
    sysprof_document_get_selection (document, &begin, &end);
    g_assert_cmpint (begin, ==, -SYSPROF_SUMMARY_TIME_LIMIT);
    g_assert_cmpint (end, ==, 2 * SYSPROF_SUMMARY_TIME_LIMIT);
    /* The sample at G_MININT64, shown at -LIMIT, is in a selection from
     * -LIMIT for the callgraph too. */
    {
      g_autoptr (SysprofCallgraph) edge = NULL;

      sysprof_document_set_selection (document, -SYSPROF_SUMMARY_TIME_LIMIT, 0);
      edge = callgraph_of (document);
      g_assert_cmpuint (sysprof_callgraph_get_n_samples (edge), ==, 1);
    }
    sysprof_document_set_selection (document, G_MININT64, G_MAXINT64);
    g_assert_false (sysprof_document_has_selection (document));
    sysprof_document_set_visible_range (document, G_MAXINT64 - 10, G_MAXINT64);
    sysprof_document_get_visible_range (document, &begin, &end);
    g_assert_cmpint (end, <=, SYSPROF_SUMMARY_TIME_LIMIT);
    g_assert_cmpint (begin, <, end);
  }
}

static gpointer
quick_work (SysprofDocument      *document,
            SysprofCaptureReader *reader,
            SysprofSymbolizer    *symbolizer,
            gpointer              data,
            GCancellable         *cancellable,
            GError              **error)
{
  (void) document;
  (void) reader;
  (void) symbolizer;
  (void) cancellable;
  (void) error;
  return data;
}

static void
work_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  sysprof_document_run_finish (SYSPROF_DOCUMENT (object), result, &error);
  g_assert_no_error (error);
  (*(guint *) user_data)++;
}

static GThread *main_thread;
static gint     finalized_off_main;

static void
note_finalize_thread (gpointer data, GObject *where)
{
  (void) data;
  (void) where;
  if (g_thread_self () != main_thread)
    g_atomic_int_inc (&finalized_off_main);
}

/* The main thread drops its document while the worker (or the loading
 * thread) may still hold a task: the document must still be finalized on
 * the main thread (in the worker, g_thread_pool_free() would wait for
 * itself and every such document would leave a thread stuck). */
static void
test_released_on_main_thread (Fixture *f, gconstpointer data)
{
  (void) data;
  main_thread = g_thread_self ();
  for (guint i = 0; i < 200; i++)
    {
      g_autoptr (GError) error = NULL;
      SysprofDocument *document = load (f->path, &error);
      guint            done = 0;
      gint64           deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

      g_assert_no_error (error);
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_object_weak_ref (G_OBJECT (document), note_finalize_thread, NULL);
      g_object_add_weak_pointer (G_OBJECT (document), (gpointer *) &document);
      sysprof_document_run_async (document, "quick", quick_work, NULL, NULL, NULL, NULL, work_done_cb, &done);
      g_object_unref (document);
      /* Polled: a finalize in another thread would not wake the loop. */
      while ((done == 0 || document != NULL) && g_get_monotonic_time () < deadline)
        if (!g_main_context_iteration (NULL, FALSE))
          g_usleep (100);
      g_assert_cmpuint (done, ==, 1);
      g_assert_null (document);
    }
  g_assert_cmpint (g_atomic_int_get (&finalized_off_main), ==, 0);
}

/* The worker replaces the progress text at every work while the main
 * thread reads it: a copy each time (under ASan a shared pointer would be
 * a use after free). */
static void
test_progress_text (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofDocument) document = load (f->path, &error);
  const guint n = 3000;
  guint       done = 0;
  gsize       seen = 0;

  (void) data;
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *what = g_strdup_printf ("work %u%s", i, i % 2 ? " with a longer text than the others" : "");

      sysprof_document_run_async (document, what, quick_work, NULL, NULL, NULL, NULL, work_done_cb, &done);
    }
  while (done < n)
    {
      g_autofree char *text = sysprof_document_dup_progress_text (document);

      if (text != NULL && g_str_has_prefix (text, "work "))
        seen++;
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpuint (seen, >, 0);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  /* Idle again: no work, no text. */
  g_assert_cmpfloat (sysprof_document_get_progress (document), <, 0);
}

/* Memory streams are allocation records, not embedded files: a capture with
 * two ALLOCATION frames, a stream of two blocks (3 allocations, 1 release;
 * the second block zstd-compressed as the drainer writes them) and one real
 * file. */
static void
test_memory_streams (Fixture *f, gconstpointer data)
{
  g_autofree char            *path = g_build_filename (f->dir, "streams.syscap", NULL);
  SysprofCaptureWriter       *writer = sysprof_capture_writer_new (path, 0);
  SysprofMemoryStreamEncoder  encoder;
  const SysprofCaptureAddress stack[] = { 0x401000, 0x402000 };
  guint8                      buffer[4096];
  guint8                      packed[4096];
  const guint8               *block;
  gsize                       len;
  char                        stream_path[256];
  const guint8                mounts[] = "none / tmpfs rw 0 0\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofDocument) document = NULL;
  GArray *files;

  (void) data;
  g_assert_nonnull (writer);
  writer_ok (sysprof_capture_writer_add_allocation_copy (writer, 10 * MS, 0, 300, 300, 0x1000, 64, stack, 2));
  writer_ok (sysprof_capture_writer_add_allocation_copy (writer, 11 * MS, 0, 300, 300, 0x1000, 0, NULL, 0));
  g_assert_true (sysprof_memory_stream_format_path (stream_path, sizeof stream_path, 301));
  g_assert_true (sysprof_memory_stream_encoder_init (&encoder, buffer, sizeof buffer));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&encoder, 1, stack, 2));
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&encoder, 12 * MS, 0x2000, 32, 1));
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&encoder, 13 * MS, 0x3000, 48, 1));
  block = sysprof_memory_stream_encoder_get_block (&encoder, &len);
  writer_ok (sysprof_capture_writer_add_file (writer, 14 * MS, -1, 300, stream_path, FALSE, block, len));
  sysprof_memory_stream_encoder_clear (&encoder);
  for (guint i = 0; i < 100; i++)
    g_assert_true (sysprof_memory_stream_encoder_add_allocation (&encoder, 15 * MS, 0x4000, 16, 1));
  g_assert_true (sysprof_memory_stream_encoder_add_release (&encoder, 16 * MS, 0x2000));
  block = sysprof_memory_stream_encoder_get_block (&encoder, &len);
  len = sysprof_memory_stream_compress (block, len, packed, sizeof packed, 1);
  g_assert_cmpuint (len, >, 0);
  writer_ok (sysprof_capture_writer_add_file (writer, 17 * MS, -1, 300, stream_path, TRUE, packed, len));
  writer_ok (
      sysprof_capture_writer_add_file (writer, 18 * MS, -1, 300, "/proc/mounts", TRUE, mounts, sizeof mounts - 1));
  writer_ok (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  document = load (path, &error);
  g_assert_no_error (error);
  /* 1 + 102 allocations; 4 + 103 events; the two blocks apart. */
  g_assert_cmpuint (sysprof_document_get_n_allocations (document), ==, 1 + 102);
  g_assert_cmpuint (sysprof_document_get_n_allocation_events (document), ==, 2 + 103);
  g_assert_cmpuint (sysprof_document_get_n_stream_events (document), ==, 103);
  g_assert_cmpuint (sysprof_document_get_n_stream_blocks (document), ==, 2);
  g_assert_cmpuint (sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_FILE_CHUNK), ==, 3);
  files = sysprof_document_get_files (document);
  g_assert_cmpuint (files->len, ==, 1);
  g_assert_cmpstr (g_array_index (files, SysprofSummaryFile, 0).path, ==, "/proc/mounts");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/document/scan", Fixture, NULL, fixture_set_up, test_scan, fixture_tear_down);
  g_test_add ("/document/damaged", Fixture, NULL, fixture_set_up, test_damaged, fixture_tear_down);
  g_test_add ("/document/filter", Fixture, NULL, fixture_set_up, test_filter, fixture_tear_down);
  g_test_add ("/document/hostile-times", Fixture, NULL, fixture_set_up, test_hostile_times, fixture_tear_down);
  g_test_add ("/document/released-on-main-thread", Fixture, NULL, fixture_set_up, test_released_on_main_thread,
              fixture_tear_down);
  g_test_add ("/document/progress-text", Fixture, NULL, fixture_set_up, test_progress_text, fixture_tear_down);
  g_test_add ("/document/memory-streams", Fixture, NULL, fixture_set_up, test_memory_streams, fixture_tear_down);
  return g_test_run ();
}
