// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCounterRecorder recording this machine's /proc counters, read back
 * with the capture reader, and its /proc parsers fed malformed text. */
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-instruments.h"

static SysprofCaptureWriter *
new_temp_writer (char **path)
{
  g_autoptr (GError) error = NULL;
  int                   fd = g_file_open_tmp ("test-counter-recorder-XXXXXX.syscap", path, &error);
  SysprofCaptureWriter *writer;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (writer);
  return writer;
}

static gboolean
quit_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  g_main_context_wakeup (NULL);
  return G_SOURCE_REMOVE;
}

static void
run_main_loop (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, quit_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

typedef struct
{
  char  category[32];
  char  name[32];
  guint type;
} Def;

static const Def *
find_def (GHashTable *defs, const char *category, const char *name)
{
  GHashTableIter iter;
  gpointer       value;

  g_hash_table_iter_init (&iter, defs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const Def *def = value;

      if (g_str_equal (def->category, category) && g_str_equal (def->name, name))
        return def;
    }
  return NULL;
}

static guint
id_of (GHashTable *defs, const Def *def)
{
  GHashTableIter iter;
  gpointer       key, value;

  g_hash_table_iter_init (&iter, defs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (value == def)
      return GPOINTER_TO_UINT (key);
  g_assert_not_reached ();
}

static void
test_record_all (void)
{
  static const char *const counters[] = { "cpu", "memory", "disk", "network", "cpu", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) defs = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autofree char        *path = NULL;
  SysprofCounterRecorder *recorder;
  SysprofCaptureWriter   *writer;
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;
  const Def              *combined, *used, *total, *available, *reads, *writes, *rx, *tx;
  guint                   n_cpu_counters = 0;
  guint                   n_sets = 0;
  guint                   n_counters;
  guint64                 n_samples;
  gint64                  last_time = G_MININT64;

  writer = new_temp_writer (&path);
  recorder = sysprof_counter_recorder_new (writer);
  g_assert_false (sysprof_counter_recorder_is_running (recorder));
  g_assert_true (sysprof_counter_recorder_start (recorder, counters, 100, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_counter_recorder_is_running (recorder));
  n_counters = sysprof_counter_recorder_get_n_counters (recorder);
  /* Combined CPU, memory ×3, the Combined disk pair, network ×2 at least. */
  g_assert_cmpuint (n_counters, >=, 8);

  run_main_loop (600);
  sysprof_counter_recorder_stop (recorder);
  g_assert_false (sysprof_counter_recorder_is_running (recorder));
  n_samples = sysprof_counter_recorder_get_n_samples (recorder);
  /* ~6 ticks of 100 ms plus the one of stop; a loaded machine may skip some. */
  g_assert_cmpuint (n_samples, >=, 3);
  g_assert_cmpuint (sysprof_counter_recorder_get_n_write_errors (recorder), ==, 0);
  /* Stopping again does nothing. */
  sysprof_counter_recorder_stop (recorder);
  g_assert_cmpuint (sysprof_counter_recorder_get_n_samples (recorder), ==, n_samples);
  g_object_unref (recorder);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_CTRDEF)
        {
          const SysprofCaptureCounterDefine *def = sysprof_capture_reader_read_counter_define (reader);

          g_assert_nonnull (def);
          g_assert_cmpint (def->frame.pid, ==, -1);
          g_assert_cmpint (def->frame.cpu, ==, -1);
          g_assert_cmpuint (n_sets, ==, 0);
          for (guint i = 0; i < def->n_counters; i++)
            {
              const SysprofCaptureCounter *c = &def->counters[i];
              Def                         *d = g_new0 (Def, 1);

              g_assert_cmpuint (c->id, !=, 0);
              g_assert_false (g_hash_table_contains (defs, GUINT_TO_POINTER (c->id)));
              g_assert_nonnull (memchr (c->category, '\0', sizeof c->category));
              g_assert_nonnull (memchr (c->name, '\0', sizeof c->name));
              g_assert_nonnull (memchr (c->description, '\0', sizeof c->description));
              g_strlcpy (d->category, c->category, sizeof d->category);
              g_strlcpy (d->name, c->name, sizeof d->name);
              d->type = c->type;
              g_hash_table_insert (defs, GUINT_TO_POINTER (c->id), d);
              if (g_str_equal (c->category, "CPU Percent"))
                {
                  g_assert_cmpuint (c->type, ==, SYSPROF_CAPTURE_COUNTER_DOUBLE);
                  g_assert_true (g_str_equal (c->name, "Combined") || g_str_has_prefix (c->name, "Total CPU "));
                  n_cpu_counters++;
                }
              else if (g_str_equal (c->category, "Disk"))
                {
                  g_assert_cmpuint (c->type, ==, SYSPROF_CAPTURE_COUNTER_INT64);
                  g_assert_true (g_str_has_prefix (c->name, "Total Reads (") ||
                                 g_str_has_prefix (c->name, "Total Writes ("));
                  g_assert_true (g_str_has_suffix (c->name, ")"));
                }
              else if (g_str_equal (c->category, "Network"))
                g_assert_cmpstr (c->description, ==, "Combined");
              else
                g_assert_cmpstr (c->category, ==, "Memory");
            }
          continue;
        }

      if (type == SYSPROF_CAPTURE_FRAME_CTRSET)
        {
          const SysprofCaptureCounterSet *set = sysprof_capture_reader_read_counter_set (reader);
          double                          mem_used = -1, mem_total = -1, mem_available = -1;
          guint                           n_values = 0;

          g_assert_nonnull (set);
          g_assert_cmpint (set->frame.pid, ==, -1);
          g_assert_cmpint (set->frame.cpu, ==, -1);
          g_assert_cmpint (set->frame.time, >=, last_time);
          last_time = set->frame.time;
          for (guint g = 0; g < set->n_values; g++)
            for (guint i = 0; i < 8; i++)
              {
                guint                      id = set->values[g].ids[i];
                SysprofCaptureCounterValue v = set->values[g].values[i];
                const Def                 *d;

                if (id == 0)
                  continue;
                d = g_hash_table_lookup (defs, GUINT_TO_POINTER (id));
                g_assert_nonnull (d);
                n_values++;
                if (g_str_equal (d->category, "CPU Percent"))
                  {
                    g_assert_cmpfloat (v.vdbl, >=, 0.0);
                    g_assert_cmpfloat (v.vdbl, <=, 100.0);
                  }
                else if (g_str_equal (d->category, "Memory"))
                  {
                    if (g_str_equal (d->name, "Used"))
                      mem_used = v.vdbl;
                    else if (g_str_equal (d->name, "Total"))
                      mem_total = v.vdbl;
                    else
                      mem_available = v.vdbl;
                  }
                else
                  g_assert_cmpint (v.v64, >=, 0);
              }
          /* Every counter in every sample. */
          g_assert_cmpuint (n_values, ==, g_hash_table_size (defs));
          g_assert_cmpfloat (mem_used, >, 0.0);
          g_assert_cmpfloat (mem_used, <=, mem_total);
          g_assert_cmpfloat (mem_available, <=, mem_total);
          g_assert_cmpfloat (mem_used + mem_available, ==, mem_total);
          n_sets++;
          continue;
        }

      g_assert_true (sysprof_capture_reader_skip (reader));
    }

  g_assert_cmpuint (g_hash_table_size (defs), ==, n_counters);
  g_assert_cmpuint (n_sets, ==, n_samples);
  g_assert_cmpuint (n_sets, >=, 3);

  /* Combined plus one per online CPU (at least one). */
  g_assert_cmpuint (n_cpu_counters, >=, 2);
  g_assert_nonnull ((combined = find_def (defs, "CPU Percent", "Combined")));
  g_assert_nonnull ((used = find_def (defs, "Memory", "Used")));
  g_assert_nonnull ((total = find_def (defs, "Memory", "Total")));
  g_assert_nonnull ((available = find_def (defs, "Memory", "Available")));
  g_assert_cmpuint (used->type, ==, SYSPROF_CAPTURE_COUNTER_DOUBLE);
  g_assert_nonnull ((reads = find_def (defs, "Disk", "Total Reads (Combined)")));
  g_assert_nonnull ((writes = find_def (defs, "Disk", "Total Writes (Combined)")));
  g_assert_nonnull ((rx = find_def (defs, "Network", "RX Bytes")));
  g_assert_nonnull ((tx = find_def (defs, "Network", "TX Bytes")));
  g_assert_cmpuint (rx->type, ==, SYSPROF_CAPTURE_COUNTER_INT64);
  g_assert_cmpuint (tx->type, ==, SYSPROF_CAPTURE_COUNTER_INT64);
  /* Ids come from one request: consecutive, starting with the first CPU one. */
  g_assert_cmpuint (id_of (defs, combined), <, id_of (defs, used));
  g_assert_cmpuint (id_of (defs, used), <, id_of (defs, reads));
  g_assert_cmpuint (id_of (defs, reads), <, id_of (defs, rx));

  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

static guint
count_frames (const char *path, SysprofCaptureFrameType wanted)
{
  SysprofCaptureReader   *reader = sysprof_capture_reader_new (path);
  SysprofCaptureFrameType type;
  guint                   n = 0;

  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == wanted)
        n++;
      g_assert_true (sysprof_capture_reader_skip (reader));
    }
  sysprof_capture_reader_unref (reader);
  return n;
}

static void
test_invalid_name (void)
{
  static const char *const bad[] = { "cpu", "gpu", NULL };
  static const char *const empty[] = { NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char        *path = NULL;
  SysprofCaptureWriter   *writer = new_temp_writer (&path);
  SysprofCounterRecorder *recorder = sysprof_counter_recorder_new (writer);

  g_assert_false (sysprof_counter_recorder_start (recorder, bad, 0, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "gpu"));
  g_assert_false (sysprof_counter_recorder_is_running (recorder));
  g_assert_cmpuint (sysprof_counter_recorder_get_n_counters (recorder), ==, 0);
  g_clear_error (&error);

  /* A failed start can be retried; none requested records nothing. */
  g_assert_true (sysprof_counter_recorder_start (recorder, empty, 0, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_counter_recorder_is_running (recorder));
  run_main_loop (50);
  sysprof_counter_recorder_stop (recorder);
  g_assert_cmpuint (sysprof_counter_recorder_get_n_samples (recorder), ==, 0);
  g_object_unref (recorder);

  /* NULL is none too; disposing stops a running recorder. */
  recorder = sysprof_counter_recorder_new (writer);
  g_assert_true (sysprof_counter_recorder_start (recorder, NULL, 0, &error));
  g_assert_no_error (error);
  g_object_unref (recorder);

  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  g_assert_cmpuint (count_frames (path, SYSPROF_CAPTURE_FRAME_CTRDEF), ==, 0);
  g_assert_cmpuint (count_frames (path, SYSPROF_CAPTURE_FRAME_CTRSET), ==, 0);
  g_unlink (path);
}

/* Dispose writes the last sample. */
static void
test_dispose_stops (void)
{
  static const char *const memory[] = { "memory", NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char        *path = NULL;
  SysprofCaptureWriter   *writer = new_temp_writer (&path);
  SysprofCounterRecorder *recorder = sysprof_counter_recorder_new (writer);

  g_assert_true (sysprof_counter_recorder_start (recorder, memory, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sysprof_counter_recorder_get_n_counters (recorder), ==, 3);
  g_object_unref (recorder);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  g_assert_cmpuint (count_frames (path, SYSPROF_CAPTURE_FRAME_CTRDEF), ==, 1);
  g_assert_cmpuint (count_frames (path, SYSPROF_CAPTURE_FRAME_CTRSET), ==, 1);
  g_unlink (path);
}

static void
test_parse_stat (void)
{
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (SysprofCpuTimes));
  const SysprofCpuTimes *t;

  _sysprof_counter_parse_stat ("cpu  10 20 30 40 50 60 70 80 90 100\n"
                               "cpu0 1 2 3 4 5 6 7 8\n"
                               "cpu1 1 2 3\n"                           /* too short */
                               "cpu2 1 2 x 4 5\n"                       /* garbage */
                               "cpux 1 2 3 4 5\n"                       /* not a number */
                               "cpu3 5 5 5 5\n"                         /* old kernels: 4 fields */
                               "cpu4 99999999999999999999999 1 1 1 1\n" /* overflow */
                               "intr 1 2 3\n"
                               "cpu7 1 1 1 1 1", /* no final newline */
                               times);
  g_assert_cmpuint (times->len, ==, 4);
  t = &g_array_index (times, SysprofCpuTimes, 0);
  g_assert_cmpint (t->cpu, ==, -1);
  g_assert_cmpuint (t->total, ==, 10 + 20 + 30 + 40 + 50 + 60 + 70 + 80);
  g_assert_cmpuint (t->idle, ==, 40 + 50);
  t = &g_array_index (times, SysprofCpuTimes, 1);
  g_assert_cmpint (t->cpu, ==, 0);
  g_assert_cmpuint (t->total, ==, 36);
  g_assert_cmpuint (t->idle, ==, 9);
  t = &g_array_index (times, SysprofCpuTimes, 2);
  g_assert_cmpint (t->cpu, ==, 3);
  g_assert_cmpuint (t->total, ==, 20);
  g_assert_cmpuint (t->idle, ==, 5);
  t = &g_array_index (times, SysprofCpuTimes, 3);
  g_assert_cmpint (t->cpu, ==, 7);
  g_assert_cmpuint (t->total, ==, 5);

  g_array_set_size (times, 0);
  _sysprof_counter_parse_stat ("", times);
  _sysprof_counter_parse_stat ("\n\n\ncpu\n", times);
  g_assert_cmpuint (times->len, ==, 0);
}

static void
test_parse_meminfo (void)
{
  guint64 total = 0, available = 0;

  g_assert_true (_sysprof_counter_parse_meminfo ("MemTotal:       1000 kB\n"
                                                 "MemFree:         100 kB\n"
                                                 "MemAvailable:    400 kB\n"
                                                 "Bogus\n",
                                                 &total, &available));
  g_assert_cmpuint (total, ==, 1000 * 1024);
  g_assert_cmpuint (available, ==, 400 * 1024);

  /* Without MemAvailable: MemFree + Buffers + Cached. */
  g_assert_true (_sysprof_counter_parse_meminfo ("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 10 kB\nCached: 20 kB",
                                                 &total, &available));
  g_assert_cmpuint (available, ==, 130 * 1024);

  /* Never more available than total. */
  g_assert_true (_sysprof_counter_parse_meminfo ("MemTotal: 10 kB\nMemAvailable: 20 kB\n", &total, &available));
  g_assert_cmpuint (available, ==, total);

  g_assert_false (_sysprof_counter_parse_meminfo ("", &total, &available));
  g_assert_false (_sysprof_counter_parse_meminfo ("MemTotal: lots\n", &total, &available));
  g_assert_false (_sysprof_counter_parse_meminfo ("MemTotal: 99999999999999999999 kB\n", &total, &available));
}

static void
test_parse_diskstats (void)
{
  g_autoptr (GArray) disks = g_array_new (FALSE, FALSE, sizeof (SysprofDiskBytes));
  const SysprofDiskBytes *d;

  _sysprof_counter_parse_diskstats ("   8       0 sda 100 0 2 0 300 0 4 0 0 0 0\n"
                                    "   8       1 sda1 1 2\n"
                                    " 259 0 nvme0n1 1 1 x 1 1 1 1 1 1\n"
                                    " 1 2 a-device-name-far-longer-than-thirty-one 1 1 1 1 1 1 1 1 1\n"
                                    "   7 0 loop0 0 0 0 0 0 0 0 0",
                                    disks);
  g_assert_cmpuint (disks->len, ==, 2);
  d = &g_array_index (disks, SysprofDiskBytes, 0);
  g_assert_cmpstr (d->name, ==, "sda");
  g_assert_cmpuint (d->read_bytes, ==, 2 * 512);
  g_assert_cmpuint (d->write_bytes, ==, 4 * 512);
  d = &g_array_index (disks, SysprofDiskBytes, 1);
  g_assert_cmpstr (d->name, ==, "loop0");
  g_assert_cmpuint (d->read_bytes, ==, 0);
}

static void
test_parse_net_dev (void)
{
  guint64 rx = 1, tx = 1;

  _sysprof_counter_parse_net_dev (
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier "
      "compressed\n"
      "    lo: 5000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0\n"
      "  eth0:1000 1 0 0 0 0 0 0 2000 2 0 0 0 0 0 0\n"
      " wlan0: 30 1 0 0 0 0 0 0 40 1 0 0 0 0 0 0\n"
      " short: 1 2 3\n"
      " bad: x 1 0 0 0 0 0 0 40 1 0 0 0 0 0 0\n"
      "no colon here 1 2 3 4 5 6 7 8 9 10",
      &rx, &tx);
  g_assert_cmpuint (rx, ==, 1030);
  g_assert_cmpuint (tx, ==, 2040);

  _sysprof_counter_parse_net_dev ("", &rx, &tx);
  g_assert_cmpuint (rx, ==, 0);
  g_assert_cmpuint (tx, ==, 0);
}

/* Random bytes and truncations of real files never crash the parsers. */
static void
test_parse_garbage (void)
{
  static const char *const files[] = { "/proc/stat", "/proc/meminfo", "/proc/diskstats", "/proc/net/dev" };
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (SysprofCpuTimes));
  g_autoptr (GArray) disks = g_array_new (FALSE, FALSE, sizeof (SysprofDiskBytes));
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  g_autofree char *long_line = g_strnfill (10000, '1');
  guint64          a, b;

  for (guint round = 0; round < 2000; round++)
    {
      gsize            len = g_rand_int_range (rand, 0, 512);
      g_autofree char *buf = g_malloc (len + 1);

      for (gsize i = 0; i < len; i++)
        {
          static const char alphabet[] = "cpu0123456789 \t\n:MemTotalkB-x";

          buf[i] = g_rand_boolean (rand) ? alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]
                                         : (char) g_rand_int_range (rand, 1, 256);
        }
      buf[len] = '\0';
      _sysprof_counter_parse_stat (buf, times);
      _sysprof_counter_parse_meminfo (buf, &a, &b);
      _sysprof_counter_parse_diskstats (buf, disks);
      _sysprof_counter_parse_net_dev (buf, &a, &b);
      g_array_set_size (times, 0);
      g_array_set_size (disks, 0);
    }

  _sysprof_counter_parse_stat (long_line, times);
  _sysprof_counter_parse_diskstats (long_line, disks);
  g_assert_cmpuint (times->len, ==, 0);
  g_assert_cmpuint (disks->len, ==, 0);

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *contents = NULL;
      gsize            len = 0;

      if (!g_file_get_contents (files[f], &contents, &len, NULL))
        continue;
      for (gsize cut = 0; cut <= len; cut += 1 + cut / 8)
        {
          g_autofree char *prefix = g_strndup (contents, cut);

          _sysprof_counter_parse_stat (prefix, times);
          _sysprof_counter_parse_meminfo (prefix, &a, &b);
          _sysprof_counter_parse_diskstats (prefix, disks);
          _sysprof_counter_parse_net_dev (prefix, &a, &b);
          g_array_set_size (times, 0);
          g_array_set_size (disks, 0);
        }
    }
}

int
main (int argc, char *argv[])
{
  sysprof_clock_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/counter-recorder/record-all", test_record_all);
  g_test_add_func ("/counter-recorder/invalid-name", test_invalid_name);
  g_test_add_func ("/counter-recorder/dispose-stops", test_dispose_stops);
  g_test_add_func ("/counter-recorder/parse/stat", test_parse_stat);
  g_test_add_func ("/counter-recorder/parse/meminfo", test_parse_meminfo);
  g_test_add_func ("/counter-recorder/parse/diskstats", test_parse_diskstats);
  g_test_add_func ("/counter-recorder/parse/net-dev", test_parse_net_dev);
  g_test_add_func ("/counter-recorder/parse/garbage", test_parse_garbage);

  return g_test_run ();
}
