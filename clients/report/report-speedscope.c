// SPDX-License-Identifier: GPL-3.0-or-later
/* speedscope's file format from the callgraph of each thread.
 *
 * Per thread, the stacks of speedscope's sampled profiles must be those of
 * one thread, and the callgraph groups them by process name.  Each thread's
 * profile is therefore the callgraph built again with the report's filter
 * and the thread's id added to it (SysprofCallgraphFilter.tids), rather than
 * the SAMPLE frames walked here: the same code then decides every weight
 * (focus, hide, --no-kernel, inlined frames, the frames a frame-pointer walk
 * invented, off-CPU and wall-clock weights, allocation sites, leaks), so
 * the functions' self weights are those of `sysprof-report top`, and the
 * threads' totals add up to its total (checked before writing).  The price
 * is one pass over the capture per thread: the threads are first listed by
 * one cheap pass, and only the busiest @max_threads get a callgraph of their
 * own, the rest one callgraph together ("other threads"), so an export
 * reads the capture at most max_threads + 3 times. */

#include <errno.h>
#include <string.h>

#include "report-json.h"
#include "report-speedscope.h"

typedef struct
{
  gint32  tid;
  gint32  pid; /* the first met; a tid reused by another process joins it */
  guint64 count;
} Thread;

static gint64
add_saturating (gint64 a, gint64 b)
{
  if (b > 0 && a > G_MAXINT64 - b)
    return G_MAXINT64;
  if (b < 0 && a < G_MININT64 - b)
    return G_MININT64;
  return a + b;
}

static gboolean
tid_selected (const SysprofCallgraphFilter *filter, gint32 tid)
{
  if (filter->n_tids == 0)
    return TRUE;
  for (gsize i = 0; i < filter->n_tids; i++)
    if (filter->tids[i] == tid)
      return TRUE;
  return FALSE;
}

static void
count_thread (GHashTable *index, GArray *threads, gint32 pid, gint32 tid)
{
  gpointer found = g_hash_table_lookup (index, GINT_TO_POINTER (tid));
  Thread   thread = { tid, pid, 1 };

  if (found != NULL)
    {
      g_array_index (threads, Thread, GPOINTER_TO_UINT (found) - 1).count++;
      return;
    }
  g_array_append_val (threads, thread);
  g_hash_table_insert (index, GINT_TO_POINTER (tid), GUINT_TO_POINTER (threads->len));
}

/* The threads with samples (or allocations) in the time window, by tid,
 * with a rough count to rank them: the callgraphs apply the rest of the
 * filter. */
static gboolean
list_threads (SysprofCaptureReader *reader, const Report *report, GArray *threads, GError **error)
{
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  const SysprofCallgraphFilter *filter = report->filter;
  gint64                        start = sysprof_capture_reader_get_start_time (reader);
  gint64                        begin = add_saturating (start, filter->begin_ns);
  gint64                        end = add_saturating (start, filter->end_ns);
  const SysprofCaptureError    *capture_error;

  if (report->memory)
    {
      SysprofAllocationCursor *cursor = sysprof_allocation_cursor_new (reader);
      SysprofAllocationEvent   event;

      if (cursor == NULL)
        {
          int code = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (code), "Cannot read the allocations: %s",
                       g_strerror (code));
          return FALSE;
        }
      while (sysprof_allocation_cursor_next (cursor, &event))
        if (event.size > 0 && event.time >= begin && event.time <= end && tid_selected (filter, event.tid))
          count_thread (index, threads, event.pid, event.tid);
      capture_error = sysprof_allocation_cursor_get_capture_error (cursor);
      if (capture_error->code != 0)
        {
          sysprof_set_capture_error (error, capture_error, NULL);
          sysprof_allocation_cursor_unref (cursor);
          return FALSE;
        }
      sysprof_allocation_cursor_unref (cursor);
      return TRUE;
    }

  {
    SysprofCaptureFrameType type;

    sysprof_capture_reader_reset (reader);
    while (sysprof_capture_reader_peek_type (reader, &type))
      {
        const SysprofCaptureSample *sample;

        if (type != SYSPROF_CAPTURE_FRAME_SAMPLE)
          {
            if (!sysprof_capture_reader_skip (reader))
              break;
            continue;
          }
        if ((sample = sysprof_capture_reader_read_sample (reader)) == NULL)
          break;
        if (sample->frame.time >= begin && sample->frame.time <= end && tid_selected (filter, sample->tid))
          count_thread (index, threads, sample->frame.pid, sample->tid);
      }
  }
  capture_error = sysprof_capture_reader_get_error (reader);
  if (capture_error->code != 0)
    return sysprof_set_capture_error (error, capture_error, NULL);
  return TRUE;
}

static gint
compare_threads (gconstpointer a, gconstpointer b)
{
  const Thread *x = a, *y = b;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

typedef struct
{
  ReportJson *json;
  GHashTable *frame_index; /* key string -> index + 1 */
  GPtrArray  *frames;      /* const SysprofCallgraphFunction *, the first of each key */
  GArray     *weights;     /* guint64, the current profile's */
  GArray     *stack;       /* guint, the current sample's frame indexes */
  /* Every callgraph stays alive until the frames are written: the frames
   * table points into them. */
  GPtrArray *callgraphs;
} Writer;

/* The file of a frame: its source file with --lines (and line), else its
 * library, so that functions of the same name in two libraries stay two
 * frames, as they are two rows of `sysprof-report top`. */
static const char *
frame_file (const SysprofCallgraphFunction *function)
{
  if (function->file != NULL)
    return function->file;
  return function->symbol->library;
}

static guint
frame_of (Writer *w, const SysprofCallgraphFunction *function)
{
  const char      *file = frame_file (function);
  g_autofree char *key =
      g_strdup_printf ("%s%c%s%c%u", function->symbol->name, 0x1f, file != NULL ? file : "", 0x1f, function->line);
  gpointer found = g_hash_table_lookup (w->frame_index, key);

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  g_ptr_array_add (w->frames, (gpointer) function);
  g_hash_table_insert (w->frame_index, g_steal_pointer (&key), GUINT_TO_POINTER (w->frames->len));
  return w->frames->len - 1;
}

/* One sample of the profile per distinct stack: its frames outermost
 * first, without the root and the process node (the profile is the
 * thread). */
static gboolean
add_stack (const SysprofCallgraphFunction *const *frames, guint n_frames, guint64 n_samples, gpointer user_data)
{
  Writer *w = user_data;

  g_array_set_size (w->stack, 0);
  for (guint i = 0; i < n_frames; i++)
    {
      guint index;

      if (frames[i]->kind == SYSPROF_CALLGRAPH_FUNCTION_ROOT || frames[i]->kind == SYSPROF_CALLGRAPH_FUNCTION_PROCESS)
        continue;
      index = frame_of (w, frames[i]);
      g_array_append_val (w->stack, index);
    }
  report_json_newline (w->json);
  report_json_begin_array (w->json);
  for (guint i = 0; i < w->stack->len; i++)
    report_json_uint (w->json, g_array_index (w->stack, guint, i));
  report_json_end_array (w->json);
  g_array_append_val (w->weights, n_samples);
  return TRUE;
}

static void
write_profile (Writer *w, const char *name, const char *unit, SysprofCallgraph *callgraph)
{
  guint64 total = 0;

  g_array_set_size (w->weights, 0);
  report_json_newline (w->json);
  report_json_begin_object (w->json);
  report_json_key (w->json, "type");
  report_json_string (w->json, "sampled");
  report_json_key (w->json, "name");
  report_json_string (w->json, name);
  report_json_key (w->json, "unit");
  report_json_string (w->json, unit);
  report_json_key (w->json, "samples");
  report_json_begin_array (w->json);
  sysprof_callgraph_foreach_stack (callgraph, add_stack, w);
  report_json_end_array (w->json);
  report_json_key (w->json, "weights");
  report_json_begin_array (w->json);
  for (guint i = 0; i < w->weights->len; i++)
    {
      guint64 weight = g_array_index (w->weights, guint64, i);

      report_json_uint (w->json, weight);
      total += weight;
    }
  report_json_end_array (w->json);
  /* The weights are no times (or not only: --wall-clock): the profile
   * spans their sum, as speedscope shows a sampled profile. */
  report_json_key (w->json, "startValue");
  report_json_uint (w->json, 0);
  report_json_key (w->json, "endValue");
  report_json_uint (w->json, total);
  report_json_end_object (w->json);
}

static void
write_frames (Writer *w)
{
  report_json_key (w->json, "shared");
  report_json_begin_object (w->json);
  report_json_key (w->json, "frames");
  report_json_begin_array (w->json);
  for (guint i = 0; i < w->frames->len; i++)
    {
      const SysprofCallgraphFunction *function = w->frames->pdata[i];
      const char                     *file = frame_file (function);

      report_json_newline (w->json);
      report_json_begin_object (w->json);
      report_json_key (w->json, "name");
      report_json_string (w->json, function->symbol->name);
      if (file != NULL && file[0] != '\0')
        {
          report_json_key (w->json, "file");
          report_json_string (w->json, file);
        }
      if (function->line > 0)
        {
          report_json_key (w->json, "line");
          report_json_uint (w->json, function->line);
        }
      report_json_end_object (w->json);
    }
  report_json_end_array (w->json);
  report_json_end_object (w->json);
}

/* What speedscope calls the weights' unit. */
static const char *
unit_of (const Report *report)
{
  if (report->time_weighted)
    return "microseconds";
  if (report->memory_bytes)
    return "bytes";
  return "none";
}

static char *
thread_name (SysprofSymbolizer *symbolizer, const Thread *thread)
{
  const char *process = sysprof_symbolizer_get_process_name (symbolizer, thread->pid);

  if (process == NULL)
    return g_strdup_printf ("Process (%d)/%d", thread->pid, thread->tid);
  return g_strdup_printf ("%s (%d)/%d", process, thread->pid, thread->tid);
}

GBytes *
report_speedscope_build (const Report *report, guint max_threads, GError **error)
{
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (Thread));
  g_autoptr (GArray) rest = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (ReportJson) json = report_json_new ();
  g_autoptr (GHashTable) frame_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) frames = g_ptr_array_new ();
  g_autoptr (GArray) weights = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) callgraphs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char      *capture_name = g_path_get_basename (report->capture_path);
  Writer                w = { json, frame_index, frames, weights, stack, callgraphs };
  SysprofCaptureReader *reader;
  guint                 n_own;
  guint64               sum = 0;
  const char           *unit = unit_of (report);

  reader =
      report_open_capture (report->capture_path, report->debug_dirs, report->no_local_files, TRUE, &symbolizer, error);
  if (reader == NULL)
    return NULL;
  if (!list_threads (reader, report, threads, error))
    {
      sysprof_capture_reader_unref (reader);
      g_prefix_error (error, "%s: ", report->capture_path);
      return NULL;
    }
  g_array_sort (threads, compare_threads);
  n_own = max_threads == 0 ? threads->len : MIN (threads->len, max_threads);
  for (guint i = n_own; i < threads->len; i++)
    g_array_append_val (rest, g_array_index (threads, Thread, i).tid);

  report_json_begin_object (json);
  report_json_key (json, "$schema");
  report_json_string (json, "https://www.speedscope.app/file-format-schema.json");
  report_json_key (json, "name");
  report_json_string (json, capture_name);
  report_json_key (json, "exporter");
  report_json_string (json, "sysprof-report " SYSPROF_PROJECT_VERSION);
  report_json_key (json, "activeProfileIndex");
  report_json_uint (json, 0);
  report_json_key (json, "profiles");
  report_json_begin_array (json);
  report_json_newline (json);
  for (guint i = 0; i <= n_own; i++)
    {
      SysprofCallgraphFilter filter = *report->filter;
      g_autofree char       *name = NULL;
      SysprofCallgraph      *callgraph;

      if (i < n_own)
        {
          const Thread *thread = &g_array_index (threads, Thread, i);

          filter.tids = &thread->tid;
          filter.n_tids = 1;
          name = thread_name (symbolizer, thread);
        }
      else if (rest->len > 0)
        {
          filter.tids = (const gint32 *) (gpointer) rest->data;
          filter.n_tids = rest->len;
          name = g_strdup_printf ("%u other threads", rest->len);
        }
      else
        break;

      callgraph = sysprof_callgraph_new (reader, symbolizer, &filter, NULL, NULL, error);
      if (callgraph == NULL)
        {
          sysprof_capture_reader_unref (reader);
          g_prefix_error (error, "%s: ", report->capture_path);
          return NULL;
        }
      g_ptr_array_add (callgraphs, callgraph);
      /* A thread whose samples the rest of the filter dropped has none. */
      if (sysprof_callgraph_get_n_samples (callgraph) == 0)
        continue;
      sum += sysprof_callgraph_get_n_samples (callgraph);
      write_profile (&w, name, unit, callgraph);
    }
  report_json_end_array (json);
  report_json_newline (json);
  sysprof_capture_reader_unref (reader);

  /* Every sample has one thread: the profiles must hold them all, once. */
  if (sum != sysprof_callgraph_get_n_samples (report->callgraph))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: the threads' profiles weigh %" G_GUINT64_FORMAT " in all, the callgraph %" G_GUINT64_FORMAT,
                   report->capture_path, sum, sysprof_callgraph_get_n_samples (report->callgraph));
      return NULL;
    }

  write_frames (&w);
  report_json_end_object (json);
  return report_json_finish (json);
}
