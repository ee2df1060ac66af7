// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-cli --continuous: a continuous session of sysprofd, each finished
 * period stored in the output directory, exported to pprof and pushed when
 * asked, the directory kept within its retention. */

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gstdio.h>

#include "cli-continuous.h"
#include "cli-period-dir.h"
#include "cli-pusher.h"

/* How long the end waits for the push queue to empty. */
#define FINAL_PUSH_MS 10000

typedef struct
{
  char  *capture;
  gint64 begin_usec;
  gint64 end_usec;
} Conversion;

typedef struct
{
  const CliContinuousOptions *options;
  SysprofContinuousRecording *recording;
  CliPeriodDir               *dir;
  CliPusher                  *pusher;
  GMainLoop                  *loop;
  char                       *report; /* sysprof-report, for the pprof exports */
  GQueue                      conversions;
  gboolean                    converting;
  gboolean                    ended; /* the recording is over: quit once the exports are done */
  guint                       n_periods;
  guint                       n_failed_exports;
  int                         exit_status;
} Continuous;

static void
conversion_free (Conversion *c)
{
  g_free (c->capture);
  g_free (c);
}

static char *
find_report (void)
{
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  const char      *env = g_getenv ("SYSPROF_REPORT");

  if (env != NULL && *env != 0)
    return g_strdup (env);
  if (self_exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self_exe);
      g_autofree char *sibling = g_build_filename (dir, "sysprof-report", NULL);

      if (g_file_test (sibling, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&sibling);
    }
  return g_find_program_in_path ("sysprof-report");
}

static void maybe_quit (Continuous *cont);
static void next_conversion (Continuous *cont);

static void
conversion_done_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Continuous *cont = data;
  Conversion *c = g_queue_pop_head (&cont->conversions);
  g_autoptr (GError) error = NULL;
  g_autofree char *pprof = cli_period_dir_pprof_path (c->capture);
  g_autofree char *temp = cli_period_dir_temporary_path (cont->dir, pprof);

  g_autofree char *said = NULL;

  cont->converting = FALSE;
  /* sysprof-report names the file it wrote: only its complaints are shown. */
  if (!g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result, NULL, &said, &error) ||
      !g_subprocess_get_successful (G_SUBPROCESS (source)) || g_rename (temp, pprof) != 0)
    {
      fprintf (stderr, "sysprof-cli: no pprof export of %s: %s\n", c->capture,
               error != NULL ? error->message
               : !g_subprocess_get_successful (G_SUBPROCESS (source))
                   ? (said != NULL && *said ? g_strstrip (said) : "sysprof-report failed")
                   : g_strerror (errno));
      g_unlink (temp);
      cont->n_failed_exports++;
    }
  else if (cont->pusher != NULL)
    cli_pusher_enqueue (cont->pusher, pprof, c->begin_usec, c->end_usec);
  conversion_free (c);
  next_conversion (cont);
  maybe_quit (cont);
}

/* One export at a time: a machine profiled continuously is not to be
 * loaded by its profiler. */
static void
next_conversion (Continuous *cont)
{
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *pprof = NULL;
  g_autofree char *temp = NULL;
  Conversion      *c;

  while (!cont->converting && (c = g_queue_peek_head (&cont->conversions)) != NULL)
    {
      pprof = cli_period_dir_pprof_path (c->capture);
      temp = cli_period_dir_temporary_path (cont->dir, pprof);
      process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                  cont->report, "export", "--format", "pprof", "-o", temp, c->capture, NULL);
      if (process != NULL)
        {
          cont->converting = TRUE;
          g_subprocess_communicate_utf8_async (process, NULL, NULL, conversion_done_cb, cont);
          return;
        }
      fprintf (stderr, "sysprof-cli: cannot run %s for the pprof export: %s\n", cont->report, error->message);
      g_clear_error (&error);
      g_clear_pointer (&pprof, g_free);
      g_clear_pointer (&temp, g_free);
      cont->n_failed_exports++;
      conversion_free (g_queue_pop_head (&cont->conversions));
    }
}

static void
queue_conversion (Continuous *cont, const char *capture, gint64 begin_usec, gint64 end_usec)
{
  Conversion *c = g_new0 (Conversion, 1);

  c->capture = g_strdup (capture);
  c->begin_usec = begin_usec;
  c->end_usec = end_usec;
  g_queue_push_tail (&cont->conversions, c);
  next_conversion (cont);
}

static void
period_cb (
    SysprofContinuousRecording *recording, guint index, gint64 begin_usec, gint64 end_usec, int fd, gpointer data)
{
  Continuous *cont = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *capture = NULL;
  guint            removed;

  (void) recording;
  /* A period that cannot be stored is lost, the recording goes on: the
   * next one may find room. */
  if ((capture = cli_period_dir_store (cont->dir, begin_usec, fd, &error)) == NULL)
    {
      fprintf (stderr, "sysprof-cli: period %u lost: %s\n", index, error->message);
      cont->exit_status = 1;
      return;
    }
  cont->n_periods++;
  fprintf (stderr, "sysprof-cli: period %u: %s (%.1f s)\n", index, capture,
           (double) (end_usec - begin_usec) / G_USEC_PER_SEC);
  if (cont->options->pprof)
    queue_conversion (cont, capture, begin_usec, end_usec);
  if ((removed = cli_period_dir_prune (cont->dir, &error)) > 0)
    fprintf (stderr, "sysprof-cli: removed %u old period(s) to keep within the retention\n", removed);
  else if (error != NULL)
    fprintf (stderr, "sysprof-cli: retention: %s\n", error->message);
}

static void
maybe_quit (Continuous *cont)
{
  if (cont->ended && !cont->converting && cont->conversions.length == 0)
    g_main_loop_quit (cont->loop);
}

static void
failed_cb (SysprofContinuousRecording *recording, const GError *error, gpointer data)
{
  Continuous *cont = data;

  (void) recording;
  fprintf (stderr, "sysprof-cli: %s\n", error->message);
  cont->exit_status = 1;
  cont->ended = TRUE;
  maybe_quit (cont);
}

static void
stopped_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Continuous *cont = data;
  g_autoptr (GError) error = NULL;

  if (!sysprof_continuous_recording_stop_finish (SYSPROF_CONTINUOUS_RECORDING (source), result, &error))
    {
      if (!cont->ended)
        fprintf (stderr, "sysprof-cli: %s\n", error->message);
      cont->exit_status = 1;
    }
  cont->ended = TRUE;
  maybe_quit (cont);
}

static gboolean
stop_cb (gpointer data)
{
  Continuous *cont = data;

  if (!cont->ended)
    {
      fprintf (stderr, "sysprof-cli: stopping; the period under way is finished and stored\n");
      sysprof_continuous_recording_stop_async (cont->recording, stopped_cb, cont);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
duration_cb (gpointer data)
{
  stop_cb (data);
  return G_SOURCE_REMOVE;
}

static void
started_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Continuous *cont = data;
  g_autoptr (GError) error = NULL;

  if (!sysprof_continuous_recording_start_finish (SYSPROF_CONTINUOUS_RECORDING (source), result, &error))
    {
      fprintf (stderr, "sysprof-cli: cannot record continuously: %s\n", error->message);
      cont->exit_status = 1;
      cont->ended = TRUE;
      maybe_quit (cont);
      return;
    }
  fprintf (stderr, "sysprof-cli: recording continuously, a capture every %u s into %s\n", cont->options->period,
           cli_period_dir_get_path (cont->dir));
  if (cont->options->duration > 0)
    g_timeout_add_seconds (cont->options->duration, duration_cb, cont);
}

int
cli_continuous_run (const CliContinuousOptions *options)
{
  g_autoptr (SysprofContinuousRecording) recording = NULL;
  g_autoptr (CliPeriodDir) dir = NULL;
  g_autoptr (CliPusher) pusher = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *report = NULL;
  Continuous       cont = { 0 };
  guint            sigint, sigterm;

  if ((dir = cli_period_dir_open (options->output_dir, options->keep_seconds, options->keep_bytes, &error)) == NULL)
    {
      fprintf (stderr, "sysprof-cli: %s\n", error->message);
      return 1;
    }
  if (options->pprof && (report = find_report ()) == NULL)
    {
      fprintf (stderr, "sysprof-cli: sysprof-report, which makes the pprof exports, is not installed\n");
      return 1;
    }
  if (options->push_url != NULL)
    {
      g_autofree char *queue = g_build_filename (options->output_dir, "push-queue", NULL);

      if ((pusher =
               cli_pusher_new (options->push_url, options->push_name,
                               options->frequency ? options->frequency : SYSPROF_CONTINUOUS_RECORDING_DEFAULT_FREQUENCY,
                               queue, &error)) == NULL)
        {
          fprintf (stderr, "sysprof-cli: --push: %s\n", error->message);
          return 2;
        }
    }

  loop = g_main_loop_new (NULL, FALSE);
  cont.options = options;
  cont.dir = dir;
  cont.pusher = pusher;
  cont.loop = loop;
  cont.report = report;

  /* Exports a killed run did not finish. */
  if (options->pprof)
    {
      g_autoptr (GPtrArray) pending = cli_period_dir_list_without_pprof (dir);

      for (guint i = 0; i < pending->len; i++)
        {
          GStatBuf st;
          gint64   end = g_stat (pending->pdata[i], &st) == 0 ? (gint64) st.st_mtime * G_USEC_PER_SEC : 0;

          queue_conversion (&cont, pending->pdata[i], end - (gint64) options->period * G_USEC_PER_SEC, end);
        }
    }

  recording = sysprof_continuous_recording_new (options->period);
  sysprof_continuous_recording_set_frequency (recording, options->frequency);
  sysprof_continuous_recording_set_unwind (recording, options->unwind);
  sysprof_continuous_recording_set_max_bytes (recording, options->max_bytes);
  g_signal_connect (recording, "period", G_CALLBACK (period_cb), &cont);
  g_signal_connect (recording, "failed", G_CALLBACK (failed_cb), &cont);
  cont.recording = recording;

  sigint = g_unix_signal_add (SIGINT, stop_cb, &cont);
  sigterm = g_unix_signal_add (SIGTERM, stop_cb, &cont);
  sysprof_continuous_recording_start_async (recording, NULL, started_cb, &cont);
  g_main_loop_run (loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);

  if (pusher != NULL && cli_pusher_get_n_queued (pusher) > 0 && !cli_pusher_drain (pusher, FINAL_PUSH_MS))
    fprintf (stderr, "sysprof-cli: %u profile(s) not pushed yet: they stay queued in %s/push-queue for the next run\n",
             cli_pusher_get_n_queued (pusher), options->output_dir);
  fprintf (stderr, "sysprof-cli: %u period(s) stored", cont.n_periods);
  if (sysprof_continuous_recording_get_n_dropped (recording) > 0)
    fprintf (stderr, ", %u dropped by sysprofd (not taken in time)",
             sysprof_continuous_recording_get_n_dropped (recording));
  if (cont.n_failed_exports > 0)
    fprintf (stderr, ", %u without a pprof export", cont.n_failed_exports);
  if (pusher != NULL)
    fprintf (stderr, ", %u pushed, %u not pushed (dropped)", cli_pusher_get_n_sent (pusher),
             cli_pusher_get_n_dropped (pusher));
  fprintf (stderr, "\n");
  g_queue_clear_full (&cont.conversions, (GDestroyNotify) conversion_free);
  return cont.exit_status;
}
