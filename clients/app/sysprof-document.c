// SPDX-License-Identifier: GPL-3.0-or-later

#include <errno.h>
#include <string.h>

#include "sysprof-document.h"
#include "sysprof-thread-task.h"

/* How many callgraphs stay cached: the callgraph and flamegraph views ask
 * for the same one, the memory view for two more. */
#define CALLGRAPH_CACHE_SIZE 4

typedef struct
{
  SysprofCallgraphSource source;
  SysprofCallgraphWeight weight;
  gint64                 begin_ns;
  gint64                 end_ns;
  char                 **focus;
  char                 **hide;
  SysprofCallgraph      *callgraph; /* NULL while it is being computed */
  GPtrArray             *waiters;   /* GTask: the callers waiting for it */
} CachedCallgraph;

struct _SysprofDocument
{
  GObject parent_instance;

  GFile *file;
  char  *path;
  char  *title;

  SysprofCaptureReader *reader;
  SysprofSymbolizer    *symbolizer;
  gboolean              loaded;

  /* Written by the loading thread, read-only once loaded. */
  char                  *capture_time;
  guint64                file_size;
  SysprofCaptureSummary *scan;

  /* Filter. */
  gint64     selection_begin;
  gint64     selection_end;
  gint64     visible_begin;
  gint64     visible_end;
  GPtrArray *focused;
  GPtrArray *hidden;

  /* The worker: one thread, so analyses never share the symbolizer. */
  GThreadPool *pool;
  GMutex       progress_mutex;
  double       progress;
  char        *progress_text;
  guint        progress_idle;
  guint        n_queued;

  GPtrArray *callgraph_cache;   /* CachedCallgraph, most recent last */
  GPtrArray *callgraph_pending; /* CachedCallgraph being computed */
};

G_DEFINE_FINAL_TYPE (SysprofDocument, sysprof_document, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_FILE,
  PROP_PROGRESS,
  PROP_PROGRESS_TEXT,
  N_PROPS
};

enum
{
  FILTER_CHANGED,
  VISIBLE_RANGE_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint       signals[N_SIGNALS];

static void
cached_callgraph_free (gpointer data)
{
  CachedCallgraph *cached = data;

  g_strfreev (cached->focus);
  g_strfreev (cached->hide);
  g_clear_object (&cached->callgraph);
  g_clear_pointer (&cached->waiters, g_ptr_array_unref);
  g_free (cached);
}

/* Progress is set from the worker and shown on the main thread: the value
 * is kept under a lock and one idle at a time notifies it. */
static gboolean
notify_progress_idle (gpointer user_data)
{
  SysprofDocument *self = user_data;

  g_mutex_lock (&self->progress_mutex);
  self->progress_idle = 0;
  g_mutex_unlock (&self->progress_mutex);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS_TEXT]);
  return G_SOURCE_REMOVE;
}

static void
set_progress (SysprofDocument *self, double fraction, const char *text)
{
  g_mutex_lock (&self->progress_mutex);
  self->progress = fraction;
  if (text != NULL)
    {
      g_free (self->progress_text);
      self->progress_text = g_strdup (text);
    }
  if (self->progress_idle == 0)
    self->progress_idle =
        g_idle_add_full (G_PRIORITY_DEFAULT, notify_progress_idle, g_object_ref (self), g_object_unref);
  g_mutex_unlock (&self->progress_mutex);
}

void
sysprof_document_set_work_progress (SysprofDocument *self, double fraction)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));

  set_progress (self, CLAMP (fraction, 0.0, 1.0), NULL);
}

double
sysprof_document_get_progress (SysprofDocument *self)
{
  double progress;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), -1);

  g_mutex_lock (&self->progress_mutex);
  progress = self->progress;
  g_mutex_unlock (&self->progress_mutex);
  return progress;
}

char *
sysprof_document_dup_progress_text (SysprofDocument *self)
{
  char *text;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);

  /* A copy: the worker replaces the text at any time. */
  g_mutex_lock (&self->progress_mutex);
  text = g_strdup (self->progress_text);
  g_mutex_unlock (&self->progress_mutex);
  return text;
}

/* The scan shows frames beyond +-SYSPROF_SUMMARY_TIME_LIMIT at the limit;
 * libsysprof's analyses read their real times: a selection reaching the
 * limit reaches them too. */
static gint64
filter_begin (gint64 selection_begin)
{
  return selection_begin <= -SYSPROF_SUMMARY_TIME_LIMIT ? G_MININT64 : selection_begin;
}

static gint64
filter_end (gint64 selection_end)
{
  return selection_end >= SYSPROF_SUMMARY_TIME_LIMIT ? G_MAXINT64 : selection_end;
}

/* ------------------------------------------------------------------------ */
/* Worker */

typedef struct
{
  SysprofDocumentWork work;
  gpointer            data;
  GDestroyNotify      data_free;
  GDestroyNotify      result_free;
  char               *what;
} Work;

static void
work_free (gpointer data)
{
  Work *work = data;

  if (work->data_free != NULL && work->data != NULL)
    work->data_free (work->data);
  g_free (work->what);
  g_free (work);
}

static gboolean
release_task (gpointer user_data)
{
  (void) user_data;
  return G_SOURCE_REMOVE;
}

/* The worker's reference to its task may be the document's last (when the
 * main thread already dropped everything else): the document would then be
 * finalized in the worker, which would wait for itself in
 * g_thread_pool_free().  So the task is released on its own main context. */
static void
release_task_on_main_context (GTask *task)
{
  GSource *source = g_idle_source_new ();

  g_source_set_callback (source, release_task, task, g_object_unref);
  g_source_set_static_name (source, "[sysprof] release worker task");
  g_source_attach (source, g_task_get_context (task));
  g_source_unref (source);
}

static void
run_work (GTask *task, SysprofDocument *self)
{
  Work                 *work = g_task_get_task_data (task);
  SysprofCaptureReader *reader;
  GError               *error = NULL;
  gpointer              result;

  if (g_task_return_error_if_cancelled (task))
    return;

  set_progress (self, 0.0, work->what);
  reader = sysprof_capture_reader_copy (self->reader);
  if (reader == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot open the capture again: %s", self->path,
                               g_strerror (errno));
      return;
    }
  sysprof_capture_reader_reset (reader);
  result = work->work (self, reader, self->symbolizer, work->data, g_task_get_cancellable (task), &error);
  sysprof_capture_reader_unref (reader);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, work->result_free);
}

static void
worker_func (gpointer task_data, gpointer user_data)
{
  GTask *task = task_data;

  run_work (task, user_data);
  release_task_on_main_context (task);
}

/* The worker's task completes on the main thread; it hands its result to
 * the caller's task there, after the progress bar was updated. */
static void
work_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofDocument *self = SYSPROF_DOCUMENT (object);
  g_autoptr (GTask) outer = user_data;
  Work    *work = g_task_get_task_data (G_TASK (result));
  GError  *error = NULL;
  gpointer value;

  if (--self->n_queued == 0)
    set_progress (self, -1.0, "");
  value = g_task_propagate_pointer (G_TASK (result), &error);
  if (error != NULL)
    g_task_return_error (outer, error);
  else
    g_task_return_pointer (outer, value, work->result_free);
}

void
sysprof_document_run_async (SysprofDocument    *self,
                            const char         *what,
                            SysprofDocumentWork work_func,
                            gpointer            data,
                            GDestroyNotify      data_free,
                            GDestroyNotify      result_free,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  GTask *outer;
  GTask *inner;
  Work  *work;

  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));
  g_return_if_fail (self->loaded);
  g_return_if_fail (work_func != NULL);

  work = g_new0 (Work, 1);
  work->work = work_func;
  work->data = data;
  work->data_free = data_free;
  work->result_free = result_free;
  work->what = g_strdup (what ? what : "Analysing");

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, sysprof_document_run_async);
  inner = g_task_new (self, cancellable, work_done, outer);
  g_task_set_task_data (inner, work, work_free);
  self->n_queued++;
  g_thread_pool_push (self->pool, inner, NULL);
}

gpointer
sysprof_document_run_finish (SysprofDocument *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ------------------------------------------------------------------------ */
/* Loading */

static void
scan_progress (double fraction, gpointer user_data)
{
  /* The symbols load meanwhile and usually finish first: the scan is most
   * of the wait. */
  set_progress (user_data, 0.9 * fraction, NULL);
}

/* Shared by the loading thread and the symbols thread: a cancelled or
 * failed scan does not wait for the symbols (their load cannot be
 * cancelled), the last of the two frees it. */
typedef struct
{
  gint                  ref_count;
  SysprofSymbolizer    *symbolizer;
  SysprofCaptureReader *reader;
  GError               *error;
} SymbolLoad;

static void
symbol_load_unref (SymbolLoad *load)
{
  if (!g_atomic_int_dec_and_test (&load->ref_count))
    return;
  g_object_unref (load->symbolizer);
  sysprof_capture_reader_unref (load->reader);
  g_clear_error (&load->error);
  g_free (load);
}

static gpointer
load_symbols_thread (gpointer data)
{
  SymbolLoad *load = data;

  sysprof_symbolizer_load (load->symbolizer, load->reader, &load->error);
  symbol_load_unref (load);
  return NULL;
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SysprofDocument      *self = source;
  SysprofCaptureError   capture_error = { 0 };
  SysprofCaptureReader *reader;
  SysprofCaptureReader *copy;
  g_autoptr (GFileInfo) info = NULL;
  g_autoptr (SysprofCaptureSummary) scan = NULL;
  g_autoptr (GThread) symbols_thread = NULL;
  SysprofCaptureReader *symbols_reader;
  SymbolLoad           *symbols;
  GError               *error = NULL;
  gboolean              scanned;

  (void) task_data;
  set_progress (self, 0.0, "Reading the capture");
  info = g_file_query_info (self->file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  if (info != NULL)
    self->file_size = g_file_info_get_size (info);

  reader = sysprof_capture_reader_new_with_error (self->path, &capture_error);
  if (reader == NULL)
    {
      g_autoptr (GError) open_error = NULL;

      sysprof_set_capture_error (&open_error, &capture_error, "%s", self->path);
      g_task_return_error (task, g_steal_pointer (&open_error));
      return;
    }
  self->reader = reader;
  self->capture_time = g_strdup (sysprof_capture_reader_get_time (reader));
  scan = sysprof_capture_summary_new (sysprof_capture_reader_get_start_time (reader),
                                      sysprof_capture_reader_get_end_time (reader));

  /* The symbolizer reads its own copy of the capture (the maps, kallsyms
   * and embedded symbols) and the ELF files they name, in a second thread
   * while this one scans: on two cores the load takes the longer of the
   * two rather than their sum. */
  self->symbolizer = sysprof_symbolizer_new ();
  copy = sysprof_capture_reader_copy (reader);
  symbols_reader = sysprof_capture_reader_copy (reader);
  if (symbols_reader == NULL || copy == NULL)
    {
      g_clear_pointer (&symbols_reader, sysprof_capture_reader_unref);
      g_clear_pointer (&copy, sysprof_capture_reader_unref);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot open the capture again: %s", self->path,
                               g_strerror (errno));
      return;
    }
  sysprof_capture_reader_reset (symbols_reader);
  symbols = g_new0 (SymbolLoad, 1);
  symbols->ref_count = 2;
  symbols->symbolizer = g_object_ref (self->symbolizer);
  symbols->reader = symbols_reader;
  symbols_thread = g_thread_try_new ("sysprof-symbols", load_symbols_thread, symbols, NULL);
  if (symbols_thread == NULL)
    load_symbols_thread (symbols);

  sysprof_capture_reader_reset (copy);
  scanned = sysprof_capture_summary_read (scan, copy, self->file_size, scan_progress, self, cancellable, &error);
  sysprof_capture_reader_unref (copy);
  if (!scanned)
    {
      /* The symbols thread finishes on its own. */
      symbol_load_unref (symbols);
      g_task_return_error (task, error);
      return;
    }

  set_progress (self, 0.9, "Loading symbols");
  if (symbols_thread != NULL)
    g_thread_join (g_steal_pointer (&symbols_thread));
  if (symbols->error != NULL)
    {
      /* Without symbols the views still show addresses: keep going, and
       * tell the user why names are missing. */
      sysprof_capture_summary_add_metadata (scan, "sysprof-app.symbols", symbols->error->message);
    }
  symbol_load_unref (symbols);
  self->scan = g_steal_pointer (&scan);
  g_task_return_pointer (task, GINT_TO_POINTER (TRUE), NULL);
}

void
sysprof_document_load_async (SysprofDocument    *self,
                             GCancellable       *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer            user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));
  g_return_if_fail (self->reader == NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sysprof_document_load_async);
  sysprof_thread_task_run (g_steal_pointer (&task), load_thread, NULL);
}

gboolean
sysprof_document_load_finish (SysprofDocument *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (g_task_propagate_pointer (G_TASK (result), error) == NULL)
    return FALSE;
  self->loaded = TRUE;
  self->visible_begin = 0;
  self->visible_end = MAX (self->scan->duration, 1000);
  set_progress (self, -1.0, "");
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Callgraphs */

typedef struct
{
  SysprofCallgraphFilter filter;
  char                 **focus;
  char                 **hide;
} CallgraphWork;

static void
callgraph_work_free (gpointer data)
{
  CallgraphWork *work = data;

  g_strfreev (work->focus);
  g_strfreev (work->hide);
  g_free (work);
}

static void
callgraph_progress (guint64 bytes_read, guint64 bytes_total, gpointer user_data)
{
  if (bytes_total > 0)
    sysprof_document_set_work_progress (user_data, (double) bytes_read / bytes_total);
}

static gpointer
callgraph_work (SysprofDocument      *self,
                SysprofCaptureReader *reader,
                SysprofSymbolizer    *symbolizer,
                gpointer              data,
                GCancellable         *cancellable,
                GError              **error)
{
  CallgraphWork *work = data;

  (void) cancellable;
  return sysprof_callgraph_new (reader, symbolizer, &work->filter, callgraph_progress, self, error);
}

static gboolean
same_strv (char **a, const char *const *b)
{
  return g_strv_equal ((const char *const *) a, b);
}

static CachedCallgraph *
find_entry (SysprofDocument *self, GPtrArray *entries, SysprofCallgraphSource source, SysprofCallgraphWeight weight)
{
  for (guint i = 0; i < entries->len; i++)
    {
      CachedCallgraph *cached = g_ptr_array_index (entries, i);

      if (cached->source == source && cached->weight == weight && cached->begin_ns == self->selection_begin &&
          cached->end_ns == self->selection_end &&
          same_strv (cached->focus, sysprof_document_get_focused_functions (self)) &&
          same_strv (cached->hide, sysprof_document_get_hidden_functions (self)))
        return cached;
    }
  return NULL;
}

/* Every caller waiting for @entry gets the callgraph (or the error); a
 * caller whose cancellable fired in the meantime gets CANCELLED from its
 * GTask. */
static void
callgraph_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofDocument *self = SYSPROF_DOCUMENT (object);
  CachedCallgraph *entry = user_data;
  g_autoptr (GPtrArray) waiters = g_steal_pointer (&entry->waiters);
  g_autoptr (GError) error = NULL;

  guint index;

  if (g_ptr_array_find (self->callgraph_pending, entry, &index))
    g_ptr_array_steal_index_fast (self->callgraph_pending, index);
  entry->callgraph = sysprof_document_run_finish (self, result, &error);
  for (guint i = 0; i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);

      if (entry->callgraph != NULL)
        g_task_return_pointer (task, g_object_ref (entry->callgraph), g_object_unref);
      else
        g_task_return_error (task, g_error_copy (error));
    }
  if (entry->callgraph == NULL)
    {
      cached_callgraph_free (entry);
      return;
    }
  if (self->callgraph_cache->len == CALLGRAPH_CACHE_SIZE)
    g_ptr_array_remove_index (self->callgraph_cache, 0);
  g_ptr_array_add (self->callgraph_cache, entry);
}

void
sysprof_document_callgraph_async (SysprofDocument       *self,
                                  SysprofCallgraphSource source,
                                  SysprofCallgraphWeight weight,
                                  GCancellable          *cancellable,
                                  GAsyncReadyCallback    callback,
                                  gpointer               user_data)
{
  g_autoptr (GTask) task = NULL;
  CachedCallgraph *entry;
  CallgraphWork   *work;

  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));
  g_return_if_fail (self->loaded);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sysprof_document_callgraph_async);

  if ((entry = find_entry (self, self->callgraph_cache, source, weight)) != NULL)
    {
      g_task_return_pointer (task, g_object_ref (entry->callgraph), g_object_unref);
      return;
    }
  /* The same callgraph already being computed (the callgraph and flame
   * graph views ask at once): wait for it rather than computing it twice. */
  if ((entry = find_entry (self, self->callgraph_pending, source, weight)) != NULL)
    {
      g_ptr_array_add (entry->waiters, g_steal_pointer (&task));
      return;
    }

  entry = g_new0 (CachedCallgraph, 1);
  entry->source = source;
  entry->weight = weight;
  entry->begin_ns = self->selection_begin;
  entry->end_ns = self->selection_end;
  entry->focus = g_strdupv ((char **) sysprof_document_get_focused_functions (self));
  entry->hide = g_strdupv ((char **) sysprof_document_get_hidden_functions (self));
  entry->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (entry->waiters, g_steal_pointer (&task));
  g_ptr_array_add (self->callgraph_pending, entry);

  work = g_new0 (CallgraphWork, 1);
  sysprof_callgraph_filter_init (&work->filter);
  work->focus = g_strdupv (entry->focus);
  work->hide = g_strdupv (entry->hide);
  work->filter.begin_ns = filter_begin (entry->begin_ns);
  work->filter.end_ns = filter_end (entry->end_ns);
  work->filter.source = source;
  work->filter.weight = weight;
  work->filter.focus = (const char *const *) work->focus;
  work->filter.n_focus = g_strv_length (work->focus);
  work->filter.hide = (const char *const *) work->hide;
  work->filter.n_hide = g_strv_length (work->hide);

  /* Shared by every waiter, so no single caller's cancellable stops it. */
  sysprof_document_run_async (self,
                              source == SYSPROF_CALLGRAPH_SOURCE_SAMPLES      ? "Building the callgraph"
                              : source == SYSPROF_CALLGRAPH_SOURCE_OFF_CPU    ? "Building the off-CPU callgraph"
                              : source == SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK ? "Building the on- and off-CPU callgraph"
                                                                              : "Building the allocation callgraph",
                              callgraph_work, work, callgraph_work_free, g_object_unref, NULL, callgraph_done, entry);
}

SysprofCallgraph *
sysprof_document_callgraph_finish (SysprofDocument *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ------------------------------------------------------------------------ */
/* Filter */

void
sysprof_document_get_selection (SysprofDocument *self, gint64 *begin_ns, gint64 *end_ns)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));

  if (begin_ns != NULL)
    *begin_ns = self->selection_begin;
  if (end_ns != NULL)
    *end_ns = self->selection_end;
}

gboolean
sysprof_document_has_selection (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), FALSE);

  return self->selection_begin != G_MININT64 || self->selection_end != G_MAXINT64;
}

void
sysprof_document_set_selection (SysprofDocument *self, gint64 begin_ns, gint64 end_ns)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));

  if (begin_ns > end_ns)
    {
      gint64 tmp = begin_ns;

      begin_ns = end_ns;
      end_ns = tmp;
    }
  /* Scan times are within +-LIMIT (marks end within 2 LIMIT): a selection
   * within [-LIMIT, 2 LIMIT] covers them all, and the views can subtract
   * its ends without overflow.  The whole capture stays G_MININT64 /
   * G_MAXINT64, which the views test for. */
  if (begin_ns != G_MININT64 || end_ns != G_MAXINT64)
    {
      begin_ns = CLAMP (begin_ns, -SYSPROF_SUMMARY_TIME_LIMIT, 2 * SYSPROF_SUMMARY_TIME_LIMIT);
      end_ns = CLAMP (end_ns, -SYSPROF_SUMMARY_TIME_LIMIT, 2 * SYSPROF_SUMMARY_TIME_LIMIT);
    }
  if (begin_ns == self->selection_begin && end_ns == self->selection_end)
    return;
  self->selection_begin = begin_ns;
  self->selection_end = end_ns;
  g_signal_emit (self, signals[FILTER_CHANGED], 0);
}

void
sysprof_document_get_visible_range (SysprofDocument *self, gint64 *begin_ns, gint64 *end_ns)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));

  if (begin_ns != NULL)
    *begin_ns = self->visible_begin;
  if (end_ns != NULL)
    *end_ns = self->visible_end;
}

void
sysprof_document_set_visible_range (SysprofDocument *self, gint64 begin_ns, gint64 end_ns)
{
  gint64 duration;

  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));

  /* At least a microsecond, within the capture (whose duration is at most
   * SYSPROF_SUMMARY_TIME_LIMIT, so this cannot overflow). */
  duration = MAX (self->scan->duration, 1000);

  begin_ns = CLAMP (begin_ns, 0, duration - 1000);
  end_ns = CLAMP (end_ns, begin_ns + 1000, duration);
  if (begin_ns == self->visible_begin && end_ns == self->visible_end)
    return;
  self->visible_begin = begin_ns;
  self->visible_end = end_ns;
  g_signal_emit (self, signals[VISIBLE_RANGE_CHANGED], 0);
}

static const char *const *
names_of (GPtrArray *names)
{
  return (const char *const *) names->pdata;
}

const char *const *
sysprof_document_get_focused_functions (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);

  return names_of (self->focused);
}

const char *const *
sysprof_document_get_hidden_functions (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);

  return names_of (self->hidden);
}

static void
add_name (SysprofDocument *self, GPtrArray *names, const char *name)
{
  for (guint i = 0; i + 1 < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return;
  /* Keep the array NULL-terminated for names_of(). */
  g_ptr_array_insert (names, names->len - 1, g_strdup (name));
  g_signal_emit (self, signals[FILTER_CHANGED], 0);
}

void
sysprof_document_focus_function (SysprofDocument *self, const char *name)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));
  g_return_if_fail (name != NULL);

  add_name (self, self->focused, name);
}

void
sysprof_document_hide_function (SysprofDocument *self, const char *name)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));
  g_return_if_fail (name != NULL);

  add_name (self, self->hidden, name);
}

void
sysprof_document_reset_functions (SysprofDocument *self)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));

  if (self->focused->len == 1 && self->hidden->len == 1)
    return;
  g_ptr_array_set_size (self->focused, 0);
  g_ptr_array_add (self->focused, NULL);
  g_ptr_array_set_size (self->hidden, 0);
  g_ptr_array_add (self->hidden, NULL);
  g_signal_emit (self, signals[FILTER_CHANGED], 0);
}

void
sysprof_document_fill_callgraph_filter (SysprofDocument *self, SysprofCallgraphFilter *filter)
{
  g_return_if_fail (SYSPROF_IS_DOCUMENT (self));
  g_return_if_fail (filter != NULL);

  filter->begin_ns = filter_begin (self->selection_begin);
  filter->end_ns = filter_end (self->selection_end);
  filter->focus = names_of (self->focused);
  filter->n_focus = self->focused->len - 1;
  filter->hide = names_of (self->hidden);
  filter->n_hide = self->hidden->len - 1;
}

/* ------------------------------------------------------------------------ */
/* Accessors */

SysprofDocument *
sysprof_document_new (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  return g_object_new (SYSPROF_TYPE_DOCUMENT, "file", file, NULL);
}

GFile *
sysprof_document_get_file (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->file;
}

const char *
sysprof_document_get_title (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->title;
}

gboolean
sysprof_document_is_loaded (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), FALSE);
  return self->loaded;
}

const char *
sysprof_document_get_capture_time (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->capture_time;
}

gint64
sysprof_document_get_start_time (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->start_time;
}

gint64
sysprof_document_get_duration (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->duration;
}

guint64
sysprof_document_get_file_size (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->file_size;
}

guint64
sysprof_document_get_n_frames (SysprofDocument *self, SysprofCaptureFrameType type)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  g_return_val_if_fail ((guint) type < SYSPROF_CAPTURE_FRAME_LAST, 0);
  return self->scan->n_frames[type];
}

guint64
sysprof_document_get_n_frames_total (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_frames_total;
}

guint64
sysprof_document_get_n_lost_events (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_lost_events;
}

guint64
sysprof_document_get_n_allocations (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_allocations;
}

guint64
sysprof_document_get_n_allocation_events (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_frames[SYSPROF_CAPTURE_FRAME_ALLOCATION] + self->scan->n_stream_events;
}

guint64
sysprof_document_get_n_stream_events (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_stream_events;
}

guint64
sysprof_document_get_n_stream_blocks (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_stream_blocks;
}

guint
sysprof_document_get_n_cpus (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), 0);
  return self->scan->n_cpus;
}

GArray *
sysprof_document_get_samples (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->samples;
}

GArray *
sysprof_document_get_waits (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->waits;
}

SysprofCaptureSummary *
sysprof_document_get_summary (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan;
}

GArray *
sysprof_document_get_allocation_buckets (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->allocation_buckets;
}

GPtrArray *
sysprof_document_get_counters (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->counters;
}

const char *const *
sysprof_document_get_counter_categories (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return (const char *const *) self->scan->counter_categories;
}

GArray *
sysprof_document_get_marks (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->marks;
}

GArray *
sysprof_document_get_logs (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->logs;
}

GArray *
sysprof_document_get_dbus_messages (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->dbus_messages;
}

GArray *
sysprof_document_get_processes (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->processes;
}

GArray *
sysprof_document_get_files (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->files;
}

GArray *
sysprof_document_get_metadata (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->metadata;
}

const char *
sysprof_document_get_host (SysprofDocument *self)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  return self->scan->host;
}

const char *
sysprof_document_get_process_name (SysprofDocument *self, gint32 pid)
{
  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);

  /* The symbolizer's process table is filled by its load and only read
   * afterwards, so reading it here while the worker runs is safe. */
  return self->symbolizer ? sysprof_symbolizer_get_process_name (self->symbolizer, pid) : NULL;
}

GBytes *
sysprof_document_read_file (SysprofDocument *self, const char *path, GError **error)
{
  SysprofCaptureReader *reader;
  GBytes               *bytes;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (self->loaded, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  /* Embedded files are small (mountinfo, symbol tables): read on the spot
   * with a reader of our own rather than queueing behind an analysis. */
  reader = sysprof_capture_reader_copy (self->reader);
  if (reader == NULL)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: cannot open the capture again: %s",
                   self->path, g_strerror (errno));
      return NULL;
    }
  bytes = sysprof_embedded_file_read (reader, path, error);
  if (bytes != NULL && sysprof_embedded_file_is_gzipped (path))
    {
      /* Stored gzipped (Sysprof 45+): shown as the text it stands for;
       * as stored when it is no gzip data after all.  Bounded: it is shown
       * on the main thread. */
      GBytes *plain = sysprof_gunzip (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), 256 << 20, path, NULL);

      if (plain != NULL)
        {
          g_bytes_unref (bytes);
          bytes = plain;
        }
    }
  sysprof_capture_reader_unref (reader);
  return bytes;
}

/* ------------------------------------------------------------------------ */

static void
sysprof_document_finalize (GObject *object)
{
  SysprofDocument *self = SYSPROF_DOCUMENT (object);

  /* The pool holds a reference to the document through its tasks, so it is
   * idle here; wait for its thread to go. */
  g_thread_pool_free (self->pool, TRUE, TRUE);
  g_clear_pointer (&self->callgraph_cache, g_ptr_array_unref);
  g_clear_pointer (&self->callgraph_pending, g_ptr_array_unref);
  g_clear_object (&self->file);
  g_free (self->path);
  g_free (self->title);
  g_clear_pointer (&self->reader, sysprof_capture_reader_unref);
  g_clear_object (&self->symbolizer);
  g_free (self->capture_time);
  g_clear_pointer (&self->scan, sysprof_capture_summary_free);
  g_clear_pointer (&self->focused, g_ptr_array_unref);
  g_clear_pointer (&self->hidden, g_ptr_array_unref);
  g_free (self->progress_text);
  g_mutex_clear (&self->progress_mutex);

  G_OBJECT_CLASS (sysprof_document_parent_class)->finalize (object);
}

static void
sysprof_document_constructed (GObject *object)
{
  SysprofDocument *self = SYSPROF_DOCUMENT (object);

  G_OBJECT_CLASS (sysprof_document_parent_class)->constructed (object);

  self->path = g_file_get_path (self->file);
  if (self->path == NULL)
    self->path = g_file_get_uri (self->file);
  self->title = g_file_get_basename (self->file);
}

static void
sysprof_document_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SysprofDocument *self = SYSPROF_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_FILE: g_value_set_object (value, self->file); break;
    case PROP_PROGRESS: g_value_set_double (value, sysprof_document_get_progress (self)); break;
    case PROP_PROGRESS_TEXT: g_value_take_string (value, sysprof_document_dup_progress_text (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sysprof_document_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SysprofDocument *self = SYSPROF_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_FILE: self->file = g_value_dup_object (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sysprof_document_class_init (SysprofDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = sysprof_document_constructed;
  object_class->finalize = sysprof_document_finalize;
  object_class->get_property = sysprof_document_get_property;
  object_class->set_property = sysprof_document_set_property;

  properties[PROP_FILE] = g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROGRESS] =
      g_param_spec_double ("progress", NULL, NULL, -1, 1, -1, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROGRESS_TEXT] =
      g_param_spec_string ("progress-text", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[FILTER_CHANGED] = g_signal_new ("filter-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
  signals[VISIBLE_RANGE_CHANGED] = g_signal_new ("visible-range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sysprof_document_init (SysprofDocument *self)
{
  self->selection_begin = G_MININT64;
  self->selection_end = G_MAXINT64;
  self->focused = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->focused, NULL);
  self->hidden = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->hidden, NULL);
  self->callgraph_cache = g_ptr_array_new_with_free_func (cached_callgraph_free);
  self->callgraph_pending = g_ptr_array_new_with_free_func (cached_callgraph_free);
  self->progress = -1;
  g_mutex_init (&self->progress_mutex);
  self->pool = g_thread_pool_new (worker_func, self, 1, FALSE, NULL);
}
