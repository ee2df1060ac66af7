// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-capture-error.h"
#include "sysprof-thread-times.h"

/* Threads are keyed by (pid, tid): a tid reused by another process during
 * the recording is another thread. */
typedef struct
{
  GHashTable                      *threads; /* "pid/tid"-packed guint64 -> SysprofThreadTime* */
  GHashTable                      *names;   /* pid -> char * */
  const SysprofThreadTimesOptions *options;
} Acc;

void
sysprof_thread_time_clear (SysprofThreadTime *time)
{
  g_clear_pointer (&time->process, g_free);
}

static gboolean
pid_wanted (const SysprofThreadTimesOptions *options, gint32 pid)
{
  if (options->pids == NULL || options->n_pids == 0)
    return TRUE;
  for (guint i = 0; i < options->n_pids; i++)
    if (options->pids[i] == pid)
      return TRUE;
  return FALSE;
}

static SysprofThreadTime *
thread_of (Acc *acc, gint32 pid, gint32 tid)
{
  guint64            key = ((guint64) (guint32) pid << 32) | (guint32) tid;
  SysprofThreadTime *t = g_hash_table_lookup (acc->threads, &key);

  if (t == NULL)
    {
      guint64 *stored = g_memdup2 (&key, sizeof key);

      t = g_new0 (SysprofThreadTime, 1);
      t->pid = pid;
      t->tid = tid;
      g_hash_table_insert (acc->threads, stored, t);
    }
  return t;
}

static void
add_sample (Acc *acc, gint64 time_ns, gint32 pid, gint32 tid)
{
  if (time_ns < acc->options->begin_ns || time_ns > acc->options->end_ns || !pid_wanted (acc->options, pid))
    return;
  thread_of (acc, pid, tid)->n_samples++;
}

static void
add_wait (Acc *acc, gint64 time_ns, gint64 duration_ns, gint32 pid, gint32 tid)
{
  gint64             end = time_ns + CLAMP (duration_ns, 0, SYSPROF_SUMMARY_TIME_LIMIT);
  gint64             from = MAX (time_ns, acc->options->begin_ns);
  gint64             to = MIN (end, acc->options->end_ns);
  SysprofThreadTime *t;

  if (to < from || !pid_wanted (acc->options, pid))
    return;
  t = thread_of (acc, pid, tid);
  t->n_waits++;
  /* Saturating: a hostile capture may hold many waits of 71 minutes. */
  t->off_cpu_ns = t->off_cpu_ns > G_MAXINT64 - (to - from) ? G_MAXINT64 : t->off_cpu_ns + (to - from);
  t->longest_wait_ns = MAX (t->longest_wait_ns, to - from);
}

static gint
compare_times (gconstpointer a, gconstpointer b)
{
  const SysprofThreadTime *x = a, *y = b;

  if (x->off_cpu_ns != y->off_cpu_ns)
    return x->off_cpu_ns > y->off_cpu_ns ? -1 : 1;
  if (x->n_samples != y->n_samples)
    return x->n_samples > y->n_samples ? -1 : 1;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static GArray *
finish (Acc *acc)
{
  GArray            *rows = g_array_new (FALSE, FALSE, sizeof (SysprofThreadTime));
  GHashTableIter     iter;
  SysprofThreadTime *t;

  g_array_set_clear_func (rows, (GDestroyNotify) sysprof_thread_time_clear);
  g_hash_table_iter_init (&iter, acc->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &t))
    {
      SysprofThreadTime row = *t;
      const char       *name = g_hash_table_lookup (acc->names, GINT_TO_POINTER (t->pid));

      row.process = g_strdup (name ? name : "");
      g_array_append_val (rows, row);
    }
  g_array_sort (rows, compare_times);
  g_hash_table_unref (acc->threads);
  g_hash_table_unref (acc->names);
  return rows;
}

static void
acc_init (Acc *acc, const SysprofThreadTimesOptions *options)
{
  static const SysprofThreadTimesOptions all = SYSPROF_THREAD_TIMES_OPTIONS_INIT;

  acc->threads = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  acc->names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  acc->options = options ? options : &all;
}

/* A name from the file: valid UTF-8, up to its NUL or the frame's end. */
static char *
frame_string (const SysprofCaptureFrame *frame, const char *start)
{
  gsize       max = frame->len - (gsize) ((const guint8 *) start - (const guint8 *) frame);
  const char *nul = memchr (start, 0, max);

  return g_utf8_make_valid (start, nul ? (gssize) (nul - start) : (gssize) max);
}

/* @time from @start, within the summary's limits whatever the file says. */
static gint64
relative_time (gint64 time, gint64 start)
{
  gint64 rel;

  if (__builtin_sub_overflow (time, start, &rel))
    return time > start ? SYSPROF_SUMMARY_TIME_LIMIT : -SYSPROF_SUMMARY_TIME_LIMIT;
  return CLAMP (rel, -SYSPROF_SUMMARY_TIME_LIMIT, SYSPROF_SUMMARY_TIME_LIMIT);
}

GArray *
sysprof_thread_times_from_reader (SysprofCaptureReader            *reader,
                                  const SysprofThreadTimesOptions *options,
                                  GError                         **error)
{
  const SysprofCaptureError *reader_error;
  SysprofCaptureFrameType    type;
  gint64                     start;
  Acc                        acc;

  g_return_val_if_fail (reader != NULL, NULL);

  if (!sysprof_capture_reader_reset (reader))
    {
      sysprof_set_capture_error (error, sysprof_capture_reader_get_error (reader), "The capture cannot be rewound");
      return NULL;
    }
  start = sysprof_capture_reader_get_start_time (reader);
  acc_init (&acc, options);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          const SysprofCaptureSample *sample = sysprof_capture_reader_read_sample (reader);
          guint32                     usec;

          if (sample == NULL)
            break;
          usec = sysprof_capture_sample_get_off_cpu_usec (sample);
          if (usec != 0)
            add_wait (&acc, relative_time (sample->frame.time, start), (gint64) usec * 1000, sample->frame.pid,
                      sample->tid);
          else
            add_sample (&acc, relative_time (sample->frame.time, start), sample->frame.pid, sample->tid);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_PROCESS)
        {
          const SysprofCaptureProcess *process = sysprof_capture_reader_read_process (reader);

          if (process == NULL)
            break;
          g_hash_table_insert (acc.names, GINT_TO_POINTER (process->frame.pid),
                               frame_string (&process->frame, process->cmdline));
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }
  reader_error = sysprof_capture_reader_get_error (reader);
  if (reader_error->code != 0)
    {
      g_array_unref (finish (&acc));
      sysprof_set_capture_error (error, reader_error, NULL);
      return NULL;
    }
  return finish (&acc);
}

GArray *
sysprof_thread_times_from_summary (const SysprofCaptureSummary *summary, const SysprofThreadTimesOptions *options)
{
  Acc acc;

  g_return_val_if_fail (summary != NULL, NULL);

  acc_init (&acc, options);
  for (guint i = 0; i < summary->samples->len; i++)
    {
      const SysprofSummarySample *s = &g_array_index (summary->samples, SysprofSummarySample, i);

      add_sample (&acc, s->time_ns, s->pid, s->tid);
    }
  for (guint i = 0; i < summary->waits->len; i++)
    {
      const SysprofSummaryWait *w = &g_array_index (summary->waits, SysprofSummaryWait, i);

      add_wait (&acc, w->time_ns, w->duration_ns, w->pid, w->tid);
    }
  for (guint i = 0; i < summary->processes->len; i++)
    {
      const SysprofSummaryProcess *p = &g_array_index (summary->processes, SysprofSummaryProcess, i);

      if (p->cmdline != NULL && p->cmdline[0] != 0)
        g_hash_table_insert (acc.names, GINT_TO_POINTER (p->pid), g_strdup (p->cmdline));
    }
  return finish (&acc);
}
