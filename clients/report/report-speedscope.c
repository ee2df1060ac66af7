// SPDX-License-Identifier: GPL-3.0-or-later
/* speedscope's file format from the callgraph's samples, one profile per
 * thread.
 *
 * Per thread, the stacks of speedscope's sampled profiles must be those of
 * one thread, and the callgraph groups them by process name.  The callgraph
 * is therefore built keeping its samples (SysprofCallgraphFilter.keep_samples)
 * and each sample goes to its thread's profile, with the frames the
 * callgraph gave it: the same code decides every weight (focus, hide,
 * --no-kernel, inlined frames, the frames a frame-pointer walk invented,
 * off-CPU and wall-clock weights, allocation sites, leaks), so the
 * functions' self weights are those of `sysprof-report top`, and the
 * threads' totals add up to its total (checked before writing).  The
 * busiest @max_threads threads get a profile of their own, the rest one
 * together ("other threads").  Two passes over the kept samples, none over
 * the capture: an export costs about what top costs. */

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

typedef struct
{
  GHashTable *index; /* tid -> index + 1 in threads */
  GArray     *threads;
} ThreadCount;

static gboolean
count_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  ThreadCount *count = user_data;

  count_thread (count->index, count->threads, sample->pid, sample->tid);
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
  GHashTable *frame_index;  /* key string -> index + 1 */
  GPtrArray  *frames;       /* const SysprofCallgraphFunction *, the first of each key */
  GArray     *frame_ids;    /* guint: every stack's frame indexes, end to end */
  GHashTable *stacks;       /* stack id + 1 -> StackFrames index + 1 */
  GArray     *stack_frames; /* StackFrames */
  GHashTable *profile_of;   /* tid -> profile + 1 */
  guint       n_profiles;
  GPtrArray  *entries;     /* per profile, GArray of Entry */
  GPtrArray  *entry_index; /* per profile, GHashTable stack id + 1 -> Entry index + 1 */
} Writer;

/* A stack's frame indexes: frame_ids[first .. first + n), outermost first. */
typedef struct
{
  guint first;
  guint n;
} StackFrames;

/* A stack of a profile, and what its samples weigh. */
typedef struct
{
  guint   stack_frames;
  guint64 weight;
} Entry;

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

/* The frame indexes of the stack of @sample, made from its frames the first
 * time (FRAMES_ONCE gives them then): outermost first, without the root
 * and the process node (the profile is the thread). */
static guint
stack_frames_of (Writer *w, const SysprofCallgraphSample *sample)
{
  gpointer    found = g_hash_table_lookup (w->stacks, GUINT_TO_POINTER (sample->stack + 1));
  StackFrames frames = { w->frame_ids->len, 0 };

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  for (guint i = sample->n_frames; i > 0; i--)
    {
      const SysprofCallgraphFunction *function = sample->frames[i - 1].function;
      guint                           index;

      if (function->kind == SYSPROF_CALLGRAPH_FUNCTION_ROOT || function->kind == SYSPROF_CALLGRAPH_FUNCTION_PROCESS)
        continue;
      index = frame_of (w, function);
      g_array_append_val (w->frame_ids, index);
      frames.n++;
    }
  g_array_append_val (w->stack_frames, frames);
  g_hash_table_insert (w->stacks, GUINT_TO_POINTER (sample->stack + 1), GUINT_TO_POINTER (w->stack_frames->len));
  return w->stack_frames->len - 1;
}

static gboolean
collect_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  Writer     *w = user_data;
  guint       profile = GPOINTER_TO_UINT (g_hash_table_lookup (w->profile_of, GINT_TO_POINTER (sample->tid))) - 1;
  guint       frames = stack_frames_of (w, sample);
  GArray     *entries = w->entries->pdata[profile];
  GHashTable *index = w->entry_index->pdata[profile];
  gpointer    found = g_hash_table_lookup (index, GUINT_TO_POINTER (sample->stack + 1));

  if (found == NULL)
    {
      Entry entry = { frames, 0 };

      g_array_append_val (entries, entry);
      found = GUINT_TO_POINTER (entries->len);
      g_hash_table_insert (index, GUINT_TO_POINTER (sample->stack + 1), found);
    }
  g_array_index (entries, Entry, GPOINTER_TO_UINT (found) - 1).weight += sample->weight;
  return TRUE;
}

/* One sample of the profile per distinct stack, with what it weighs. */
static guint64
write_profile (Writer *w, const char *name, const char *unit, GArray *entries)
{
  guint64 total = 0;

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
  for (guint i = 0; i < entries->len; i++)
    {
      const StackFrames *frames =
          &g_array_index (w->stack_frames, StackFrames, g_array_index (entries, Entry, i).stack_frames);

      report_json_newline (w->json);
      report_json_begin_array (w->json);
      for (guint j = 0; j < frames->n; j++)
        report_json_uint (w->json, g_array_index (w->frame_ids, guint, frames->first + j));
      report_json_end_array (w->json);
    }
  report_json_end_array (w->json);
  report_json_key (w->json, "weights");
  report_json_begin_array (w->json);
  for (guint i = 0; i < entries->len; i++)
    {
      guint64 weight = g_array_index (entries, Entry, i).weight;

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
  return total;
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
  SysprofCallgraph  *callgraph = report->callgraph;
  SysprofSymbolizer *symbolizer = sysprof_callgraph_get_symbolizer (callgraph);
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (Thread));
  g_autoptr (GHashTable) thread_index = g_hash_table_new (NULL, NULL);
  g_autoptr (ReportJson) json = report_json_new ();
  g_autoptr (GHashTable) frame_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) frames = g_ptr_array_new ();
  g_autoptr (GArray) frame_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GHashTable) stacks = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) stack_frames = g_array_new (FALSE, FALSE, sizeof (StackFrames));
  g_autoptr (GHashTable) profile_of = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GPtrArray) entry_index = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_autofree char *capture_name = g_path_get_basename (report->capture_path);
  Writer      w = { json, frame_index, frames, frame_ids, stacks, stack_frames, profile_of, 0, entries, entry_index };
  ThreadCount count = { thread_index, threads };
  guint       n_own;
  guint64     sum = 0;
  const char *unit = unit_of (report);

  sysprof_callgraph_foreach_sample_full (callgraph, SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE, count_sample, &count);
  g_array_sort (threads, compare_threads);
  n_own = max_threads == 0 ? threads->len : MIN (threads->len, max_threads);
  w.n_profiles = n_own + (threads->len > n_own ? 1 : 0);
  for (guint i = 0; i < threads->len; i++)
    g_hash_table_insert (profile_of, GINT_TO_POINTER (g_array_index (threads, Thread, i).tid),
                         GUINT_TO_POINTER (MIN (i, n_own) + 1));
  for (guint i = 0; i < w.n_profiles; i++)
    {
      g_ptr_array_add (entries, g_array_new (FALSE, FALSE, sizeof (Entry)));
      g_ptr_array_add (entry_index, g_hash_table_new (NULL, NULL));
    }
  sysprof_callgraph_foreach_sample_full (callgraph, SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE, collect_sample, &w);

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
  for (guint i = 0; i < w.n_profiles; i++)
    {
      g_autofree char *name = NULL;

      if (i < n_own)
        name = thread_name (symbolizer, &g_array_index (threads, Thread, i));
      else
        name = g_strdup_printf ("%u other threads", threads->len - n_own);
      /* A thread whose samples weigh nothing (leaks freed) has no profile. */
      if (((GArray *) entries->pdata[i])->len == 0)
        continue;
      sum += write_profile (&w, name, unit, entries->pdata[i]);
    }
  report_json_end_array (json);
  report_json_newline (json);

  /* Every sample has one thread: the profiles must hold them all, once. */
  if (sum != sysprof_callgraph_get_n_samples (callgraph))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: the threads' profiles weigh %" G_GUINT64_FORMAT " in all, the callgraph %" G_GUINT64_FORMAT,
                   report->capture_path, sum, sysprof_callgraph_get_n_samples (callgraph));
      return NULL;
    }

  write_frames (&w);
  report_json_end_object (json);
  return report_json_finish (json);
}
