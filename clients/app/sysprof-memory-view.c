// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMemoryView: libsysprof's memory analyses of the capture's
 * allocation records: a summary, then pages for the allocation callgraph's
 * functions, leaks, temporary allocations, cross-thread frees, the heap over
 * time and the difference of the live heap at two moments.
 *
 * Three pieces of work feed it, each in the document's worker:
 *  - the analysis of the selection (SysprofMemoryOptions' window is the
 *    document's selection): summary, leaks, temporary, cross-thread;
 *  - the allocation callgraph, through the document's shared cache (it
 *    follows the selection and the focused and hidden functions), which
 *    SysprofCallgraphBackedView asks for;
 *  - the analysis of the whole capture, with points for the chart and two
 *    snapshots for the difference.  It ignores the selection on purpose:
 *    the live heap at a moment counts every allocation made before it, and
 *    the chart is drawn under the shared timeline, which shades the
 *    selection itself.
 * Each is redone only when what it depends on changes: the selection; the
 * whole filter; the two moments (which move to the new selection's ends).
 * A newer request cancels the older one, and so does disposing the view. */

#include <math.h>

#include "sysprof-chart.h"
#include "sysprof-memory-table.h"
#include "sysprof-memory-view.h"

/* Points of the heap over time: about one per 3 pixels of a wide window. */
#define HEAP_POINTS 400
/* Typing in a time picker recomputes the difference after this pause. */
#define DIFF_DELAY_MS 400

typedef enum
{
  STAT_ALLOCATIONS,
  STAT_FREES,
  STAT_ALLOCATED,
  STAT_PEAK,
  STAT_LEAKED,
  STAT_TEMPORARY,
  STAT_CROSS_THREAD,
  STAT_LOST,
  N_STATS
} Stat;

static const char *const stat_names[N_STATS] = {
  "allocations", "frees", "allocated", "peak live", "leaked", "temporary", "cross-thread frees", "lost events",
};

/* Fields of the rows of each table (see SysprofMemoryRow). */
enum
{
  TEXT_FUNCTION = 0,
  TEXT_LIBRARY = 1,
  TEXT_STATUS = 2,
};

enum
{
  FN_SELF = 0,
  FN_TOTAL,
  FN_SELF_BYTES,
  FN_TOTAL_BYTES,
};

enum
{
  SITE_ALLOCATIONS = 0,
  SITE_BYTES,
};

enum
{
  CROSS_ALLOC_TID = 0,
  CROSS_FREE_TID,
  CROSS_FREES,
  CROSS_BYTES,
};

enum
{
  DIFF_ALLOCATIONS_A = 0,
  DIFF_BYTES_A,
  DIFF_ALLOCATIONS_B,
  DIFF_BYTES_B,
  DIFF_DELTA_BYTES,
};

struct _SysprofMemoryView
{
  SysprofCallgraphBackedView parent_instance;

  /* Summary */
  GtkWidget *scope_label;
  GtkWidget *lost_warning;
  GtkWidget *lost_label;
  GtkWidget *stat_values[N_STATS];
  GtkWidget *stat_captions[N_STATS];
  GtkWidget *stat_details[N_STATS];
  GtkWidget *stat_tiles[N_STATS];

  /* Pages */
  GtkWidget          *stack;
  SysprofMemoryTable *functions;
  SysprofMemoryTable *leaks;
  SysprofMemoryTable *temporary;
  SysprofMemoryTable *cross_thread;
  SysprofMemoryTable *diff;
  GtkWidget          *chart_slot;
  GtkWidget          *chart;
  GtkWidget          *heap_label;
  GtkWidget          *spin_a;
  GtkWidget          *spin_b;
  GtkWidget          *diff_label;
  guint               diff_timeout;

  /* The selection the analysis was asked for, to tell a change of the
   * selection from one of the focused or hidden functions. */
  gint64 selection_begin;
  gint64 selection_end;
  /* The moments of the difference, exactly (the pickers round them). */
  gint64 diff_a_ns;
  gint64 diff_b_ns;
  /* The moments of the pending heap analysis, and of the one shown. */
  gint64 heap_requested_ns[2];
  gint64 heap_shown_ns[2];

  SysprofMemoryAnalysis *analysis;
  SysprofMemoryAnalysis *heap;
  /* Non-NULL while that work is pending. */
  GCancellable *analysis_cancellable;
  GCancellable *heap_cancellable;
  char         *analysis_error;
  char         *heap_error;
};

G_DEFINE_FINAL_TYPE (SysprofMemoryView, sysprof_memory_view, SYSPROF_TYPE_CALLGRAPH_BACKED_VIEW)

static void request_heap (SysprofMemoryView *self);

/* ------------------------------------------------------------------------ */
/* Helpers */

static char *
format_seconds (gint64 ns)
{
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

static char *
describe_scope (SysprofMemoryView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  g_autofree char *begin = NULL;
  g_autofree char *end = NULL;

  if (self->selection_begin == G_MININT64 && self->selection_end == G_MAXINT64)
    {
      g_autofree char *duration = format_seconds (sysprof_document_get_duration (document));

      return g_strdup_printf ("the whole capture (%s)", duration);
    }
  begin = format_seconds (self->selection_begin == G_MININT64 ? 0 : self->selection_begin);
  end = self->selection_end == G_MAXINT64 ? format_seconds (sysprof_document_get_duration (document))
                                          : format_seconds (self->selection_end);
  return g_strdup_printf ("the selection, %s to %s", begin, end);
}

static SysprofMemoryRow *
site_row (const SysprofSymbol *site)
{
  SysprofMemoryRow *row = sysprof_memory_row_new ();

  sysprof_memory_row_set_text (row, TEXT_FUNCTION, site->name);
  sysprof_memory_row_set_text (row, TEXT_LIBRARY, site->library);
  return row;
}

/* The callgraph's and the analyses' work at once. */
static void
update_busy (SysprofCallgraphBackedView *view)
{
  SysprofMemoryView *self = SYSPROF_MEMORY_VIEW (view);
  const char        *callgraph_error = sysprof_callgraph_backed_view_get_error (view);
  const char        *what = NULL;
  const char        *error;

  if (self->analysis_cancellable != NULL)
    what = "Analysing the allocations…";
  else if (sysprof_callgraph_backed_view_get_building (view))
    what = "Building the allocation callgraph…";
  else if (self->heap_cancellable != NULL)
    what = "Computing the heap over time…";

  sysprof_view_set_busy (SYSPROF_VIEW (self), what != NULL, what);

  /* set_busy (FALSE) shows the child again: the error goes on top of it. */
  error = self->analysis_error ? self->analysis_error : callgraph_error ? callgraph_error : self->heap_error;
  if (what == NULL && error != NULL)
    sysprof_view_set_error (SYSPROF_VIEW (self), error);
}

static void
cancel_work (GCancellable **cancellable)
{
  if (*cancellable != NULL)
    {
      g_cancellable_cancel (*cancellable);
      g_clear_object (cancellable);
    }
}

/* ------------------------------------------------------------------------ */
/* Summary */

/* Takes @value, @detail and @tooltip. */
static void
set_stat (SysprofMemoryView *self, Stat stat, char *value, char *detail, char *tooltip)
{
  gtk_label_set_text (GTK_LABEL (self->stat_values[stat]), value);
  gtk_label_set_text (GTK_LABEL (self->stat_details[stat]), detail ? detail : "");
  gtk_widget_set_tooltip_text (self->stat_tiles[stat], tooltip);
  g_free (value);
  g_free (detail);
  g_free (tooltip);
}

static char *
plural (guint64 n, const char *one, const char *many)
{
  g_autofree char *count = sysprof_memory_format_count (n);

  return g_strdup_printf ("%s %s", count, n == 1 ? one : many);
}

static void
show_summary (SysprofMemoryView *self)
{
  const SysprofMemorySummary *s = sysprof_memory_analysis_get_summary (self->analysis);
  g_autofree char            *scope = describe_scope (self);
  g_autofree char            *text = NULL;
  g_autofree char            *when = format_seconds (s->peak_time_ns);

  text = g_strdup_printf ("Allocation records of %s: %u thread%s in %u process%s.", scope, s->n_threads,
                          s->n_threads == 1 ? "" : "s", s->n_processes, s->n_processes == 1 ? "" : "es");
  gtk_label_set_text (GTK_LABEL (self->scope_label), text);

  set_stat (self, STAT_ALLOCATIONS, sysprof_memory_format_count (s->allocations), NULL,
            g_strdup_printf ("%" G_GUINT64_FORMAT " allocations in %s (%" G_GUINT64_FORMAT
                             " allocation records in the capture)",
                             s->allocations, scope, s->records_read));
  set_stat (self, STAT_FREES, sysprof_memory_format_count (s->frees),
            s->unmatched_frees > 0 ? plural (s->unmatched_frees, "unmatched", "unmatched") : NULL,
            g_strdup_printf ("%" G_GUINT64_FORMAT " frees of live allocations, %" G_GUINT64_FORMAT
                             " bytes freed.\n%" G_GUINT64_FORMAT " unmatched frees (of blocks allocated before "
                             "the recording or outside the selection), %" G_GUINT64_FORMAT
                             " unmatched allocations (live addresses allocated again: a missed free).",
                             s->frees, s->bytes_freed, s->unmatched_frees, s->unmatched_allocations));
  set_stat (self, STAT_ALLOCATED, sysprof_memory_format_size (s->bytes_allocated), NULL,
            g_strdup_printf ("%" G_GUINT64_FORMAT " bytes allocated, %" G_GUINT64_FORMAT " bytes freed",
                             s->bytes_allocated, s->bytes_freed));
  set_stat (self, STAT_PEAK, sysprof_memory_format_size (s->peak_bytes),
            s->peak_bytes > 0 ? g_strdup_printf ("at %s", when) : NULL,
            g_strdup_printf ("%" G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT " live allocations at %s (from "
                             "the capture's start), the most at any time of %s",
                             s->peak_bytes, s->peak_allocations, when, scope));
  set_stat (self, STAT_LEAKED, sysprof_memory_format_size (s->live_bytes),
            plural (s->live_allocations, "allocation", "allocations"),
            g_strdup_printf ("%" G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT
                             " allocations still live at the end of %s",
                             s->live_bytes, s->live_allocations, scope));
  set_stat (self, STAT_TEMPORARY, sysprof_memory_format_count (s->temporary_allocations),
            sysprof_memory_format_size (s->temporary_bytes),
            g_strdup_printf ("%" G_GUINT64_FORMAT " allocations (%" G_GUINT64_FORMAT
                             " bytes) freed by the same thread before it allocated anything else",
                             s->temporary_allocations, s->temporary_bytes));
  set_stat (self, STAT_CROSS_THREAD, sysprof_memory_format_count (s->cross_thread_frees),
            sysprof_memory_format_size (s->cross_thread_bytes),
            g_strdup_printf ("%" G_GUINT64_FORMAT " frees (%" G_GUINT64_FORMAT
                             " bytes) by a thread other than the one that allocated",
                             s->cross_thread_frees, s->cross_thread_bytes));
  set_stat (self, STAT_LOST, sysprof_memory_format_count (s->lost_events), NULL,
            g_strdup_printf ("%" G_GUINT64_FORMAT " allocation records the recording could not keep", s->lost_events));

  /* Lost records make frees unmatched and blocks look leaked: every
   * number above is then a lower or an upper bound, which must not go
   * unnoticed. */
  if (s->lost_events > 0)
    {
      g_autofree char *count = sysprof_memory_format_count (s->lost_events);
      g_autofree char *warning = g_strdup_printf ("%s events were lost while recording: these numbers are incomplete, "
                                                  "some frees are unmatched and some “leaks” are not leaks.",
                                                  count);

      gtk_label_set_text (GTK_LABEL (self->lost_label), warning);
      gtk_widget_add_css_class (self->stat_values[STAT_LOST], "error");
      gtk_widget_add_css_class (self->stat_captions[STAT_LOST], "error");
    }
  else
    {
      gtk_widget_remove_css_class (self->stat_values[STAT_LOST], "error");
      gtk_widget_remove_css_class (self->stat_captions[STAT_LOST], "error");
    }
  gtk_widget_set_visible (self->lost_warning, s->lost_events > 0);
}

/* ------------------------------------------------------------------------ */
/* Leaks, temporary allocations, cross-thread frees */

static void
fill_sites (SysprofMemoryTable *table, GArray *sites)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_full (sites->len, g_object_unref);

  for (guint i = 0; i < sites->len; i++)
    {
      const SysprofMemorySite *site = &g_array_index (sites, SysprofMemorySite, i);
      SysprofMemoryRow        *row = site_row (site->site);

      sysprof_memory_row_set_value (row, SITE_ALLOCATIONS, (gint64) site->allocations);
      sysprof_memory_row_set_value (row, SITE_BYTES, (gint64) site->bytes);
      g_ptr_array_add (rows, row);
    }
  sysprof_memory_table_set_rows (table, rows);
}

static void
fill_cross_thread (SysprofMemoryTable *table, GArray *frees)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_full (frees->len, g_object_unref);

  for (guint i = 0; i < frees->len; i++)
    {
      const SysprofMemoryCrossThread *cross = &g_array_index (frees, SysprofMemoryCrossThread, i);
      SysprofMemoryRow               *row = site_row (cross->site);

      sysprof_memory_row_set_value (row, CROSS_ALLOC_TID, cross->alloc_tid);
      sysprof_memory_row_set_value (row, CROSS_FREE_TID, cross->free_tid);
      sysprof_memory_row_set_value (row, CROSS_FREES, (gint64) cross->frees);
      sysprof_memory_row_set_value (row, CROSS_BYTES, (gint64) cross->bytes);
      g_ptr_array_add (rows, row);
    }
  sysprof_memory_table_set_rows (table, rows);
}

static void
show_analysis (SysprofMemoryView *self)
{
  g_autoptr (GArray) leaks = sysprof_memory_analysis_list_leaks (self->analysis);
  g_autoptr (GArray) temporary = sysprof_memory_analysis_list_temporary (self->analysis);
  g_autoptr (GArray) cross = sysprof_memory_analysis_list_cross_thread (self->analysis);
  g_autofree char *scope = describe_scope (self);
  g_autofree char *text = NULL;

  show_summary (self);

  fill_sites (self->leaks, leaks);
  text = g_strdup_printf ("Allocations still live at the end of %s, by allocation site (the first frame outside "
                          "the allocator).",
                          scope);
  sysprof_memory_table_set_description (self->leaks, text);
  g_clear_pointer (&text, g_free);

  fill_sites (self->temporary, temporary);
  fill_cross_thread (self->cross_thread, cross);
}

/* ------------------------------------------------------------------------ */
/* Allocation callgraph */

static void
show_callgraph (SysprofCallgraphBackedView *view, SysprofCallgraph *callgraph)
{
  SysprofMemoryView *self = SYSPROF_MEMORY_VIEW (view);
  SysprofDocument   *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  const char *const *focus = sysprof_document_get_focused_functions (document);
  const char *const *hide = sysprof_document_get_hidden_functions (document);
  guint              n_functions = sysprof_callgraph_get_n_functions (callgraph);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_full (n_functions, g_object_unref);
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *scope = describe_scope (self);
  g_autofree char *count = sysprof_memory_format_count (sysprof_callgraph_get_n_samples (callgraph));
  g_autofree char *size = sysprof_memory_format_size (sysprof_callgraph_get_n_bytes (callgraph));

  /* The root ("[Everything]") is the summary's; processes and functions
   * are the table. */
  for (guint i = 1; i < n_functions; i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);
      SysprofMemoryRow               *row;

      if (function->kind == SYSPROF_CALLGRAPH_FUNCTION_ROOT)
        continue;
      row = site_row (function->symbol);
      sysprof_memory_row_set_value (row, FN_SELF, (gint64) function->self);
      sysprof_memory_row_set_value (row, FN_TOTAL, (gint64) function->total);
      sysprof_memory_row_set_value (row, FN_SELF_BYTES, (gint64) function->self_bytes);
      sysprof_memory_row_set_value (row, FN_TOTAL_BYTES, (gint64) function->total_bytes);
      g_ptr_array_add (rows, row);
    }
  sysprof_memory_table_set_rows (self->functions, rows);

  g_string_append_printf (text,
                          "%s allocations (%s) in %s.  Self: allocations made at the function itself (the "
                          "allocator's frames are left out); total: made by it or by the functions it calls.",
                          count, size, scope);
  if (focus != NULL && focus[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", (char **) focus);

      g_string_append_printf (text, "  Focused on %s.", names);
    }
  if (hide != NULL && hide[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", (char **) hide);

      g_string_append_printf (text, "  Hidden: %s.", names);
    }
  sysprof_memory_table_set_description (self->functions, text->str);
}

/* ------------------------------------------------------------------------ */
/* Heap over time and difference */

static void
show_chart (SysprofMemoryView *self)
{
  const SysprofMemorySummary            *s = sysprof_memory_analysis_get_summary (self->heap);
  const SysprofMemoryPoint              *points;
  g_autofree SysprofSummaryCounterValue *bytes = NULL;
  g_autofree SysprofSummaryCounterValue *allocations = NULL;
  g_autofree char                       *peak = NULL;
  g_autofree char                       *when = NULL;
  g_autofree char                       *live = NULL;
  g_autofree char                       *text = NULL;
  guint64                                max_bytes = 0;
  guint64                                max_allocations = 0;
  guint                                  n_points = 0;
  guint                                  row;

  points = sysprof_memory_analysis_get_points (self->heap, &n_points);
  bytes = g_new0 (SysprofSummaryCounterValue, MAX (n_points, 1));
  allocations = g_new0 (SysprofSummaryCounterValue, MAX (n_points, 1));
  for (guint i = 0; i < n_points; i++)
    {
      /* Each point's peak since the previous one: a spike between two
       * points stays visible. */
      bytes[i].time_ns = points[i].time_ns;
      bytes[i].value = (double) points[i].peak_bytes;
      allocations[i].time_ns = points[i].time_ns;
      allocations[i].value = (double) points[i].live_allocations;
      max_bytes = MAX (max_bytes, points[i].peak_bytes);
      max_allocations = MAX (max_allocations, points[i].live_allocations);
    }

  peak = sysprof_memory_format_size (s->peak_bytes);
  when = format_seconds (s->peak_time_ns);
  live = sysprof_memory_format_size (s->live_bytes);

  if (self->chart != NULL)
    {
      g_autofree char *bytes_description = g_strdup_printf ("%s peak", peak);
      g_autofree char *allocations_description =
          g_strdup_printf ("%" G_GUINT64_FORMAT " live allocations at most", max_allocations);

      sysprof_chart_clear (SYSPROF_CHART (self->chart));
      row = sysprof_chart_add_line (SYSPROF_CHART (self->chart), "Live bytes", bytes, n_points, 0,
                                    (double) MAX (max_bytes, 1), TRUE);
      sysprof_chart_set_row_description (SYSPROF_CHART (self->chart), row, bytes_description);
      row = sysprof_chart_add_line (SYSPROF_CHART (self->chart), "Live allocations", allocations, n_points, 0,
                                    (double) MAX (max_allocations, 1), FALSE);
      sysprof_chart_set_row_description (SYSPROF_CHART (self->chart), row, allocations_description);
    }

  text = g_strdup_printf ("Peak %s (%" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
                          " allocations) at %s; %s live at the end of the capture.",
                          peak, s->peak_bytes, s->peak_allocations, when, live);
  gtk_label_set_text (GTK_LABEL (self->heap_label), text);
}

static void
show_diff (SysprofMemoryView *self)
{
  g_autoptr (GArray) diff = sysprof_memory_analysis_diff_snapshots (self->heap, 0, 1);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_full (diff->len, g_object_unref);
  g_autofree char *when_a = format_seconds (self->heap_shown_ns[0]);
  g_autofree char *when_b = format_seconds (self->heap_shown_ns[1]);
  g_autofree char *bytes_a = NULL;
  g_autofree char *bytes_b = NULL;
  g_autofree char *text = NULL;
  guint64          total_bytes_a = 0;
  guint64          total_bytes_b = 0;
  guint64          total_allocations_a = 0;
  guint64          total_allocations_b = 0;

  for (guint i = 0; i < diff->len; i++)
    {
      const SysprofMemoryDiffRow *d = &g_array_index (diff, SysprofMemoryDiffRow, i);
      SysprofMemoryRow           *row = site_row (d->site);

      sysprof_memory_row_set_text (row, TEXT_STATUS, sysprof_memory_diff_status_to_string (d->status));
      sysprof_memory_row_set_value (row, DIFF_ALLOCATIONS_A, (gint64) d->allocations_a);
      sysprof_memory_row_set_value (row, DIFF_BYTES_A, (gint64) d->bytes_a);
      sysprof_memory_row_set_value (row, DIFF_ALLOCATIONS_B, (gint64) d->allocations_b);
      sysprof_memory_row_set_value (row, DIFF_BYTES_B, (gint64) d->bytes_b);
      sysprof_memory_row_set_value (row, DIFF_DELTA_BYTES, d->delta_bytes);
      g_ptr_array_add (rows, row);
      total_bytes_a += d->bytes_a;
      total_bytes_b += d->bytes_b;
      total_allocations_a += d->allocations_a;
      total_allocations_b += d->allocations_b;
    }
  sysprof_memory_table_set_rows (self->diff, rows);

  bytes_a = sysprof_memory_format_size (total_bytes_a);
  bytes_b = sysprof_memory_format_size (total_bytes_b);
  text = g_strdup_printf ("Live at A (%s): %s in %" G_GUINT64_FORMAT
                          " allocations.  Live at B (%s): %s in %" G_GUINT64_FORMAT
                          " allocations.  Sites by the largest change first; a moment counts every allocation "
                          "made since the start of the capture and not freed by then.",
                          when_a, bytes_a, total_allocations_a, when_b, bytes_b, total_allocations_b);
  gtk_label_set_text (GTK_LABEL (self->diff_label), text);
}

/* ------------------------------------------------------------------------ */
/* Work */

typedef struct
{
  SysprofMemoryOptions options;
  gint64               snapshot_ns[2];
} MemoryJob;

static void
memory_progress (guint64 bytes_read, guint64 bytes_total, gpointer user_data)
{
  if (bytes_total > 0)
    sysprof_document_set_work_progress (user_data, (double) bytes_read / bytes_total);
}

static gpointer
memory_work (SysprofDocument      *document,
             SysprofCaptureReader *reader,
             SysprofSymbolizer    *symbolizer,
             gpointer              data,
             GCancellable         *cancellable,
             GError              **error)
{
  MemoryJob *job = data;

  /* The analysis reads the capture in one go: a request cancelled while
   * it waited in the queue is skipped, one cancelled later completes and
   * its result is dropped. */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  return sysprof_memory_analysis_new (reader, symbolizer, &job->options, memory_progress, document, error);
}

/* Callbacks of cancelled work must not touch the view: the view cancels
 * its work when it is disposed, and a superseded request is cancelled, so
 * the callbacks of finished work are the only ones that reach it. */
static gboolean
was_cancelled (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
analysis_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofMemoryAnalysis) analysis = sysprof_document_run_finish (SYSPROF_DOCUMENT (object), result, &error);
  SysprofMemoryView *self;

  if (was_cancelled (error))
    return;
  self = SYSPROF_MEMORY_VIEW (user_data);
  g_clear_object (&self->analysis_cancellable);
  if (analysis == NULL)
    self->analysis_error = g_strdup (error->message);
  else
    {
      g_set_object (&self->analysis, analysis);
      show_analysis (self);
    }
  update_busy (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
}

static void
request_analysis (SysprofMemoryView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  MemoryJob       *job = g_new0 (MemoryJob, 1);

  cancel_work (&self->analysis_cancellable);
  g_clear_pointer (&self->analysis_error, g_free);
  self->analysis_cancellable = g_cancellable_new ();

  sysprof_memory_options_init (&job->options);
  job->options.begin_ns = self->selection_begin;
  job->options.end_ns = self->selection_end;
  sysprof_document_run_async (document, "Analysing the allocations", memory_work, job, g_free, g_object_unref,
                              self->analysis_cancellable, analysis_done, self);
  update_busy (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
}

static void
heap_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofMemoryAnalysis) heap = sysprof_document_run_finish (SYSPROF_DOCUMENT (object), result, &error);
  SysprofMemoryView *self;

  if (was_cancelled (error))
    return;
  self = SYSPROF_MEMORY_VIEW (user_data);
  g_clear_object (&self->heap_cancellable);
  if (heap == NULL)
    self->heap_error = g_strdup (error->message);
  else
    {
      g_set_object (&self->heap, heap);
      self->heap_shown_ns[0] = self->heap_requested_ns[0];
      self->heap_shown_ns[1] = self->heap_requested_ns[1];
      show_chart (self);
      show_diff (self);
    }
  update_busy (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
}

static void
request_heap (SysprofMemoryView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  MemoryJob       *job = g_new0 (MemoryJob, 1);

  g_clear_handle_id (&self->diff_timeout, g_source_remove);
  cancel_work (&self->heap_cancellable);
  g_clear_pointer (&self->heap_error, g_free);
  self->heap_cancellable = g_cancellable_new ();

  sysprof_memory_options_init (&job->options);
  job->options.n_points = HEAP_POINTS;
  job->snapshot_ns[0] = self->heap_requested_ns[0] = self->diff_a_ns;
  job->snapshot_ns[1] = self->heap_requested_ns[1] = self->diff_b_ns;
  job->options.snapshot_ns = job->snapshot_ns;
  job->options.n_snapshots = G_N_ELEMENTS (job->snapshot_ns);
  sysprof_document_run_async (document, "Computing the heap over time", memory_work, job, g_free, g_object_unref,
                              self->heap_cancellable, heap_done, self);
  update_busy (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
}

/* ------------------------------------------------------------------------ */
/* Time pickers */

static double
ns_to_seconds (gint64 ns)
{
  return ns / 1e9;
}

static void
show_diff_times (SysprofMemoryView *self)
{
  GtkWidget *spins[2] = { self->spin_a, self->spin_b };
  gint64     times[2] = { self->diff_a_ns, self->diff_b_ns };

  for (guint i = 0; i < 2; i++)
    {
      g_signal_handlers_block_matched (spins[i], G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spins[i]), ns_to_seconds (times[i]));
      g_signal_handlers_unblock_matched (spins[i], G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
    }
}

/* The start and end of the selection, or a quarter and three quarters of
 * the capture without one. */
static void
reset_diff_times (SysprofMemoryView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  gint64           duration = sysprof_document_get_duration (document);

  if (self->selection_begin == G_MININT64 && self->selection_end == G_MAXINT64)
    {
      self->diff_a_ns = duration / 4;
      self->diff_b_ns = duration - duration / 4;
    }
  else
    {
      self->diff_a_ns = CLAMP (self->selection_begin, 0, duration);
      self->diff_b_ns = CLAMP (self->selection_end, 0, duration);
    }
  show_diff_times (self);
}

static gboolean
diff_timeout_cb (gpointer user_data)
{
  SysprofMemoryView *self = user_data;

  self->diff_timeout = 0;
  request_heap (self);
  return G_SOURCE_REMOVE;
}

static void
on_spin_value_changed (GtkSpinButton *spin, SysprofMemoryView *self)
{
  gint64 ns = (gint64) llround (gtk_spin_button_get_value (spin) * 1e9);

  if (GTK_WIDGET (spin) == self->spin_a)
    self->diff_a_ns = ns;
  else
    self->diff_b_ns = ns;
  g_clear_handle_id (&self->diff_timeout, g_source_remove);
  self->diff_timeout = g_timeout_add (DIFF_DELAY_MS, diff_timeout_cb, self);
}

static void
on_use_selection_clicked (GtkButton *button, SysprofMemoryView *self)
{
  (void) button;
  reset_diff_times (self);
  request_heap (self);
}

static void
setup_time_pickers (SysprofMemoryView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  double           duration = ns_to_seconds (sysprof_document_get_duration (document));
  double           step = 0.001;

  /* About a hundred steps over the capture, in round numbers. */
  while (step * 1000 <= duration)
    step *= 10;
  for (guint i = 0; i < 2; i++)
    {
      GtkSpinButton *spin = GTK_SPIN_BUTTON (i == 0 ? self->spin_a : self->spin_b);

      gtk_spin_button_set_range (spin, 0, duration);
      gtk_spin_button_set_increments (spin, step, step * 10);
    }
}

/* ------------------------------------------------------------------------ */
/* SysprofView */

static gboolean
sysprof_memory_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_allocations (document) > 0;
}

static void
sysprof_memory_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofMemoryView *self = SYSPROF_MEMORY_VIEW (view);

  self->chart = sysprof_chart_new (document);
  sysprof_chart_set_row_height (SYSPROF_CHART (self->chart), 180);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->chart), GTK_ACCESSIBLE_PROPERTY_LABEL, "Heap over time", -1);
  gtk_box_append (GTK_BOX (self->chart_slot), self->chart);

  sysprof_document_get_selection (document, &self->selection_begin, &self->selection_end);
  setup_time_pickers (self);
  reset_diff_times (self);

  request_analysis (self);
  /* Asks for the callgraph. */
  SYSPROF_VIEW_CLASS (sysprof_memory_view_parent_class)->load (view, document);
  request_heap (self);
}

static void
sysprof_memory_view_filter_changed (SysprofView *view)
{
  SysprofMemoryView *self = SYSPROF_MEMORY_VIEW (view);
  SysprofDocument   *document = sysprof_view_get_document (view);
  gint64             begin;
  gint64             end;

  /* The memory analyses only depend on the selection; the callgraph also
   * on the focused and hidden functions. */
  sysprof_document_get_selection (document, &begin, &end);
  if (begin != self->selection_begin || end != self->selection_end)
    {
      self->selection_begin = begin;
      self->selection_end = end;
      request_analysis (self);
      reset_diff_times (self);
      request_heap (self);
    }
  /* Asks for the callgraph. */
  SYSPROF_VIEW_CLASS (sysprof_memory_view_parent_class)->filter_changed (view);
}

SysprofMemoryAnalysis *
sysprof_memory_view_get_analysis (SysprofMemoryView *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_VIEW (self), NULL);

  return sysprof_view_get_busy (SYSPROF_VIEW (self)) ? NULL : self->analysis;
}

SysprofMemoryAnalysis *
sysprof_memory_view_get_heap_analysis (SysprofMemoryView *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_VIEW (self), NULL);

  return sysprof_view_get_busy (SYSPROF_VIEW (self)) ? NULL : self->heap;
}

void
sysprof_memory_view_get_diff_times (SysprofMemoryView *self, gint64 *a_ns, gint64 *b_ns)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_VIEW (self));

  if (a_ns != NULL)
    *a_ns = self->diff_a_ns;
  if (b_ns != NULL)
    *b_ns = self->diff_b_ns;
}

void
sysprof_memory_view_set_diff_times (SysprofMemoryView *self, gint64 a_ns, gint64 b_ns)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_VIEW (self));
  g_return_if_fail (sysprof_view_get_document (SYSPROF_VIEW (self)) != NULL);

  self->diff_a_ns = a_ns;
  self->diff_b_ns = b_ns;
  show_diff_times (self);
  request_heap (self);
}

static void
sysprof_memory_view_dispose (GObject *object)
{
  SysprofMemoryView *self = SYSPROF_MEMORY_VIEW (object);

  g_clear_handle_id (&self->diff_timeout, g_source_remove);
  cancel_work (&self->analysis_cancellable);
  cancel_work (&self->heap_cancellable);
  g_clear_object (&self->analysis);
  g_clear_object (&self->heap);
  g_clear_pointer (&self->analysis_error, g_free);
  g_clear_pointer (&self->heap_error, g_free);

  G_OBJECT_CLASS (sysprof_memory_view_parent_class)->dispose (object);
}

static void
sysprof_memory_view_class_init (SysprofMemoryViewClass *klass)
{
  GObjectClass                    *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass                *view_class = SYSPROF_VIEW_CLASS (klass);
  SysprofCallgraphBackedViewClass *backed_class = SYSPROF_CALLGRAPH_BACKED_VIEW_CLASS (klass);

  object_class->dispose = sysprof_memory_view_dispose;
  view_class->has_data = sysprof_memory_view_has_data;
  view_class->load = sysprof_memory_view_load;
  view_class->filter_changed = sysprof_memory_view_filter_changed;
  backed_class->callgraph_ready = show_callgraph;
  backed_class->update_busy = update_busy;
  sysprof_view_class_set_info (view_class, "memory", "Memory", "text-x-generic-symbolic", 40);
  /* Like the analyses, built at once at every change of the filter, shown
   * or not; update_busy() tells which of the three is pending. */
  sysprof_callgraph_backed_view_class_set_callgraph (
      backed_class, SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS,
      SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_AT_LOAD | SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_WHILE_HIDDEN, NULL);
}

/* ------------------------------------------------------------------------ */
/* Widgets */

static GtkWidget *
build_summary (SysprofMemoryView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *flow = gtk_flow_box_new ();
  GtkWidget *icon;

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);

  self->lost_warning = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_add_css_class (self->lost_warning, "card");
  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  gtk_widget_add_css_class (icon, "warning");
  gtk_widget_set_margin_start (icon, 12);
  gtk_box_append (GTK_BOX (self->lost_warning), icon);
  self->lost_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->lost_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->lost_label), 0.0f);
  gtk_widget_add_css_class (self->lost_label, "warning");
  gtk_widget_add_css_class (self->lost_label, "heading");
  gtk_widget_set_margin_top (self->lost_label, 8);
  gtk_widget_set_margin_bottom (self->lost_label, 8);
  gtk_widget_set_margin_end (self->lost_label, 12);
  gtk_box_append (GTK_BOX (self->lost_warning), self->lost_label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->lost_warning), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Lost events warning", -1);
  gtk_widget_set_visible (self->lost_warning, FALSE);
  gtk_box_append (GTK_BOX (box), self->lost_warning);

  self->scope_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->scope_label), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->scope_label), TRUE);
  gtk_widget_add_css_class (self->scope_label, "dim-label");
  gtk_box_append (GTK_BOX (box), self->scope_label);

  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (flow), TRUE);
  gtk_flow_box_set_min_children_per_line (GTK_FLOW_BOX (flow), 2);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), N_STATS);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (flow), 6);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (flow), 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (flow), GTK_ACCESSIBLE_PROPERTY_LABEL, "Memory summary", -1);
  for (guint i = 0; i < N_STATS; i++)
    {
      GtkWidget *tile = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

      gtk_widget_add_css_class (tile, "card");
      self->stat_values[i] = gtk_label_new ("–");
      gtk_widget_add_css_class (self->stat_values[i], "title-3");
      gtk_widget_add_css_class (self->stat_values[i], "numeric");
      gtk_widget_set_margin_top (self->stat_values[i], 8);
      self->stat_captions[i] = gtk_label_new (stat_names[i]);
      gtk_widget_add_css_class (self->stat_captions[i], "caption-heading");
      /* The detail line is there even when empty: the tiles line up. */
      self->stat_details[i] = gtk_label_new (NULL);
      gtk_widget_add_css_class (self->stat_details[i], "caption");
      gtk_widget_add_css_class (self->stat_details[i], "dim-label");
      gtk_widget_add_css_class (self->stat_details[i], "numeric");
      gtk_widget_set_margin_bottom (self->stat_details[i], 8);
      gtk_box_append (GTK_BOX (tile), self->stat_values[i]);
      gtk_box_append (GTK_BOX (tile), self->stat_captions[i]);
      gtk_box_append (GTK_BOX (tile), self->stat_details[i]);
      gtk_widget_set_size_request (tile, 120, -1);
      self->stat_tiles[i] = tile;
      gtk_flow_box_append (GTK_FLOW_BOX (flow), tile);
    }
  gtk_box_append (GTK_BOX (box), flow);
  return box;
}

static void
add_page (SysprofMemoryView *self, GtkWidget *child, const char *name, const char *title)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  gtk_stack_add_titled (GTK_STACK (self->stack), child, name, title);
}

static SysprofMemoryTable *
new_table (const char *label)
{
  return SYSPROF_MEMORY_TABLE (sysprof_memory_table_new (label));
}

static void
add_site_columns (SysprofMemoryTable *table)
{
  sysprof_memory_table_add_column (table, "Function", SYSPROF_MEMORY_COLUMN_TEXT, TEXT_FUNCTION);
  gtk_column_view_column_set_fixed_width (
      sysprof_memory_table_add_column (table, "Library", SYSPROF_MEMORY_COLUMN_TEXT, TEXT_LIBRARY), 160);
}

static void
build_pages (SysprofMemoryView *self)
{
  GtkColumnViewColumn *column;
  GtkWidget           *box;
  GtkWidget           *controls;
  GtkWidget           *button;
  GtkWidget           *scrolled;
  GtkWidget           *label;

  /* Allocations: the functions of the allocation callgraph. */
  self->functions = new_table ("Allocations by function");
  add_site_columns (self->functions);
  sysprof_memory_table_add_column (self->functions, "Self", SYSPROF_MEMORY_COLUMN_COUNT, FN_SELF);
  sysprof_memory_table_add_column (self->functions, "Total", SYSPROF_MEMORY_COLUMN_COUNT, FN_TOTAL);
  column = sysprof_memory_table_add_column (self->functions, "Self Bytes", SYSPROF_MEMORY_COLUMN_BYTES, FN_SELF_BYTES);
  sysprof_memory_table_add_column (self->functions, "Total Bytes", SYSPROF_MEMORY_COLUMN_BYTES, FN_TOTAL_BYTES);
  sysprof_memory_table_sort_by (self->functions, column);
  sysprof_memory_table_set_empty_text (self->functions, "No allocations in this range");
  add_page (self, GTK_WIDGET (self->functions), "allocations", "Allocations");

  /* Leaks */
  self->leaks = new_table ("Leaks");
  add_site_columns (self->leaks);
  sysprof_memory_table_add_column (self->leaks, "Leaked Allocations", SYSPROF_MEMORY_COLUMN_COUNT, SITE_ALLOCATIONS);
  column = sysprof_memory_table_add_column (self->leaks, "Leaked Bytes", SYSPROF_MEMORY_COLUMN_BYTES, SITE_BYTES);
  sysprof_memory_table_sort_by (self->leaks, column);
  sysprof_memory_table_set_empty_text (self->leaks, "Nothing leaked");
  add_page (self, GTK_WIDGET (self->leaks), "leaks", "Leaks");

  /* Temporary allocations */
  self->temporary = new_table ("Temporary allocations");
  add_site_columns (self->temporary);
  sysprof_memory_table_add_column (self->temporary, "Allocations", SYSPROF_MEMORY_COLUMN_COUNT, SITE_ALLOCATIONS);
  column = sysprof_memory_table_add_column (self->temporary, "Bytes", SYSPROF_MEMORY_COLUMN_BYTES, SITE_BYTES);
  sysprof_memory_table_sort_by (self->temporary, column);
  sysprof_memory_table_set_description (
      self->temporary, "Temporary: an allocation freed by the same thread before that thread allocates anything "
                       "else (frees of other blocks in between do not matter; the old block of a realloc counts).  "
                       "Often a buffer that could live on the stack or be reused.");
  sysprof_memory_table_set_empty_text (self->temporary, "No temporary allocations");
  add_page (self, GTK_WIDGET (self->temporary), "temporary", "Temporary");

  /* Cross-thread frees */
  self->cross_thread = new_table ("Cross-thread frees");
  add_site_columns (self->cross_thread);
  sysprof_memory_table_add_column (self->cross_thread, "Allocating Thread", SYSPROF_MEMORY_COLUMN_ID, CROSS_ALLOC_TID);
  sysprof_memory_table_add_column (self->cross_thread, "Freeing Thread", SYSPROF_MEMORY_COLUMN_ID, CROSS_FREE_TID);
  sysprof_memory_table_add_column (self->cross_thread, "Frees", SYSPROF_MEMORY_COLUMN_COUNT, CROSS_FREES);
  column = sysprof_memory_table_add_column (self->cross_thread, "Bytes", SYSPROF_MEMORY_COLUMN_BYTES, CROSS_BYTES);
  sysprof_memory_table_sort_by (self->cross_thread, column);
  sysprof_memory_table_set_description (self->cross_thread,
                                        "Frees by a thread other than the one that made the allocation, by "
                                        "allocation site and pair of threads.");
  sysprof_memory_table_set_empty_text (self->cross_thread, "No cross-thread frees");
  add_page (self, GTK_WIDGET (self->cross_thread), "cross-thread", "Cross-thread Frees");

  /* Heap over time: the chart comes with the document (load). */
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  label = gtk_label_new ("Live heap over the whole capture, at " G_STRINGIFY (
      HEAP_POINTS) " points: each point "
                   "is the most live bytes since the previous one, so short spikes stay visible.");
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 6);
  gtk_box_append (GTK_BOX (box), label);
  self->chart_slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->chart_slot);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);
  self->heap_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->heap_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->heap_label), 0.0f);
  gtk_widget_set_margin_start (self->heap_label, 12);
  gtk_widget_set_margin_end (self->heap_label, 12);
  gtk_widget_set_margin_bottom (self->heap_label, 6);
  gtk_box_append (GTK_BOX (box), self->heap_label);
  add_page (self, box, "heap", "Heap over Time");

  /* Difference of two moments */
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  controls = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (controls, 12);
  gtk_widget_set_margin_end (controls, 12);
  gtk_widget_set_margin_top (controls, 6);
  for (guint i = 0; i < 2; i++)
    {
      GtkWidget *spin = gtk_spin_button_new_with_range (0, 1, 0.001);

      gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 3);
      gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
      gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      i == 0 ? "Moment A in seconds" : "Moment B in seconds", -1);
      g_signal_connect (spin, "value-changed", G_CALLBACK (on_spin_value_changed), self);
      gtk_box_append (GTK_BOX (controls), gtk_label_new (i == 0 ? "Compare the live heap at A" : "with B"));
      gtk_box_append (GTK_BOX (controls), spin);
      gtk_box_append (GTK_BOX (controls), gtk_label_new ("s"));
      if (i == 0)
        self->spin_a = spin;
      else
        self->spin_b = spin;
    }
  button = gtk_button_new_with_label ("Use the Selection");
  gtk_widget_set_tooltip_text (button, "A and B at the start and end of the selection (without one: at a quarter and "
                                       "three quarters of the capture)");
  gtk_widget_set_margin_start (button, 12);
  g_signal_connect (button, "clicked", G_CALLBACK (on_use_selection_clicked), self);
  gtk_box_append (GTK_BOX (controls), button);
  gtk_box_append (GTK_BOX (box), controls);

  self->diff_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->diff_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->diff_label), 0.0f);
  gtk_widget_add_css_class (self->diff_label, "dim-label");
  gtk_widget_set_margin_start (self->diff_label, 12);
  gtk_widget_set_margin_end (self->diff_label, 12);
  gtk_box_append (GTK_BOX (box), self->diff_label);

  /* Rows stay in the analysis' order (largest change first) until a
   * header is clicked. */
  self->diff = new_table ("Live heap difference");
  add_site_columns (self->diff);
  sysprof_memory_table_add_column (self->diff, "Allocations A", SYSPROF_MEMORY_COLUMN_COUNT, DIFF_ALLOCATIONS_A);
  sysprof_memory_table_add_column (self->diff, "Bytes A", SYSPROF_MEMORY_COLUMN_BYTES, DIFF_BYTES_A);
  sysprof_memory_table_add_column (self->diff, "Allocations B", SYSPROF_MEMORY_COLUMN_COUNT, DIFF_ALLOCATIONS_B);
  sysprof_memory_table_add_column (self->diff, "Bytes B", SYSPROF_MEMORY_COLUMN_BYTES, DIFF_BYTES_B);
  sysprof_memory_table_add_column (self->diff, "Change", SYSPROF_MEMORY_COLUMN_DELTA, DIFF_DELTA_BYTES);
  sysprof_memory_table_add_column (self->diff, "Status", SYSPROF_MEMORY_COLUMN_STATUS, TEXT_STATUS);
  sysprof_memory_table_set_empty_text (self->diff, "Nothing live at either moment");
  gtk_widget_set_vexpand (GTK_WIDGET (self->diff), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->diff));
  add_page (self, box, "difference", "Difference");
}

static void
sysprof_memory_view_init (SysprofMemoryView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *switcher;

  self->selection_begin = G_MININT64;
  self->selection_end = G_MAXINT64;

  gtk_box_append (GTK_BOX (box), build_summary (self));

  self->stack = gtk_stack_new ();
  gtk_stack_set_transition_type (GTK_STACK (self->stack), GTK_STACK_TRANSITION_TYPE_NONE);
  gtk_widget_set_vexpand (self->stack, TRUE);
  build_pages (self);

  switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->stack));
  gtk_widget_set_halign (switcher, GTK_ALIGN_CENTER);
  gtk_widget_set_margin_top (switcher, 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (switcher), GTK_ACCESSIBLE_PROPERTY_LABEL, "Memory analyses", -1);
  gtk_box_append (GTK_BOX (box), switcher);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (box), self->stack);

  sysprof_view_set_child (SYSPROF_VIEW (self), box);
}
