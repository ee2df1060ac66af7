// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDocument: one opened capture, as the app sees it.
 *
 * Loading reads the capture once, off the main thread, and keeps what the
 * views need to decide whether they have data and to draw their charts
 * (frame counts, samples' times, counters, marks, logs, processes, embedded
 * files, metadata); it also loads the symbolizer.  After that the document is
 * immutable except for the filter: the selected time range and the functions
 * focused or hidden, shared by every view of a window.
 *
 * Analyses run in the document's one worker thread, one at a time, each on
 * its own copy of the reader; the symbolizer is only touched there.  Results
 * come back on the main thread.
 *
 * Error contract: the async functions report failures through their GTask
 * (G_IO_ERROR, a message naming the capture and what failed); the rest
 * cannot fail.  Times are nanoseconds from the capture's start (its header's
 * time), like libsysprof's filters.
 */
#pragma once

#include <gio/gio.h>
#include <sysprof.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_DOCUMENT (sysprof_document_get_type ())
G_DECLARE_FINAL_TYPE (SysprofDocument, sysprof_document, SYSPROF, DOCUMENT, GObject)

/* Opens and scans @file off the main thread.  Progress: the "progress"
 * property (0 to 1) of the returned document moves while it loads.  The
 * document is only usable after _load_finish(). */
SysprofDocument *sysprof_document_new (GFile *file);
void             sysprof_document_load_async (SysprofDocument    *self,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
gboolean         sysprof_document_load_finish (SysprofDocument *self, GAsyncResult *result, GError **error);

GFile      *sysprof_document_get_file (SysprofDocument *self);
const char *sysprof_document_get_title (SysprofDocument *self);
gboolean    sysprof_document_is_loaded (SysprofDocument *self);
/* What the worker is doing, for a progress bar: 0 to 1, or -1 when idle. */
double sysprof_document_get_progress (SysprofDocument *self);
/* What it is doing ("Loading symbols"), a copy: free it. */
char *sysprof_document_dup_progress_text (SysprofDocument *self);

/* The capture's header: its time as written ("2026-12-02T10:00:00+0000"), its
 * start (the origin of every time here, in the capture's clock) and its
 * duration (to the header's end time, or the last frame when that is
 * missing). */
const char *sysprof_document_get_capture_time (SysprofDocument *self);
gint64      sysprof_document_get_start_time (SysprofDocument *self);
gint64      sysprof_document_get_duration (SysprofDocument *self);
guint64     sysprof_document_get_file_size (SysprofDocument *self);

guint64 sysprof_document_get_n_frames (SysprofDocument *self, SysprofCaptureFrameType type);
guint64 sysprof_document_get_n_frames_total (SysprofDocument *self);
/* Events the recording lost, from the "sysprof.lost-events" metadata. */
guint64 sysprof_document_get_n_lost_events (SysprofDocument *self);
/* Allocations: ALLOCATION frames with a size (the others are frees) and the
 * allocation records of memory streams. */
guint64 sysprof_document_get_n_allocations (SysprofDocument *self);
/* Allocations and frees, from ALLOCATION frames and memory streams. */
guint64 sysprof_document_get_n_allocation_events (SysprofDocument *self);
/* Of them, those of memory streams, and the streams' blocks (FILE_CHUNK
 * frames sysprof/memory-stream/TID, not listed as files). */
guint64 sysprof_document_get_n_stream_events (SysprofDocument *self);
guint64 sysprof_document_get_n_stream_blocks (SysprofDocument *self);
/* Highest cpu number of the samples plus one (0 without samples). */
guint sysprof_document_get_n_cpus (SysprofDocument *self);

/* SysprofSummarySample, in time order. */
GArray *sysprof_document_get_samples (SysprofDocument *self);
/* SysprofSummaryWait (threads off the CPU: --scheduler), in time order. */
GArray *sysprof_document_get_waits (SysprofDocument *self);
/* The whole scan, for the analyses made from one (thread times). */
SysprofCaptureSummary *sysprof_document_get_summary (SysprofDocument *self);
/* SysprofSummaryAllocationBucket, by ms: only the milliseconds with
 * allocations. */
GArray *sysprof_document_get_allocation_buckets (SysprofDocument *self);
/* SysprofSummaryCounter*, in the order of their definitions. */
GPtrArray *sysprof_document_get_counters (SysprofDocument *self);
/* The distinct categories of the counters, sorted; NULL-terminated. */
const char *const *sysprof_document_get_counter_categories (SysprofDocument *self);
/* SysprofSummaryMark, in time order. */
GArray *sysprof_document_get_marks (SysprofDocument *self);
/* SysprofSummaryLog, in time order. */
GArray *sysprof_document_get_logs (SysprofDocument *self);
/* SysprofSummaryDbusMessage, in time order (their bytes: the summary's). */
GArray *sysprof_document_get_dbus_messages (SysprofDocument *self);
/* SysprofSummaryProcess, by begin time. */
GArray *sysprof_document_get_processes (SysprofDocument *self);
/* SysprofSummaryFile, by path; memory streams are not files. */
GArray *sysprof_document_get_files (SysprofDocument *self);
/* SysprofSummaryMetadata, in capture order. */
GArray *sysprof_document_get_metadata (SysprofDocument *self);
/* Host name, when the capture names it (metadata or embedded files), or NULL. */
const char *sysprof_document_get_host (SysprofDocument *self);
/* The name of process @pid as the symbolizer knows it, or NULL. */
const char *sysprof_document_get_process_name (SysprofDocument *self, gint32 pid);

/* The contents of the embedded file @path (as the scan lists it), read in
 * the calling thread; a gzipped one ("PATH.gz", Sysprof 45+) decompressed
 * (as stored when it is not gzip data or decompresses to over 256 MiB).
 * NULL with @error when there is none by that path. */
GBytes *sysprof_document_read_file (SysprofDocument *self, const char *path, GError **error);

/* The filter shared by the views of a window.  The selection is the time
 * range every view is restricted to (G_MININT64 / G_MAXINT64: the whole
 * capture); "filter-changed" is emitted when it or the focused and hidden
 * functions change. */
void     sysprof_document_get_selection (SysprofDocument *self, gint64 *begin_ns, gint64 *end_ns);
void     sysprof_document_set_selection (SysprofDocument *self, gint64 begin_ns, gint64 end_ns);
gboolean sysprof_document_has_selection (SysprofDocument *self);
/* The part of the capture the time-based views show (the timeline's zoom):
 * [0, duration] at first; "visible-range-changed" when it changes. */
void sysprof_document_get_visible_range (SysprofDocument *self, gint64 *begin_ns, gint64 *end_ns);
void sysprof_document_set_visible_range (SysprofDocument *self, gint64 begin_ns, gint64 end_ns);
/* Focus: only the stacks through these functions, starting at them.  Hide:
 * these functions' frames are left out of the stacks.  Names as the
 * callgraph shows them. */
const char *const *sysprof_document_get_focused_functions (SysprofDocument *self);
const char *const *sysprof_document_get_hidden_functions (SysprofDocument *self);
void               sysprof_document_focus_function (SysprofDocument *self, const char *name);
void               sysprof_document_hide_function (SysprofDocument *self, const char *name);
void               sysprof_document_reset_functions (SysprofDocument *self);
/* Fills @filter's time window, focus and hidden functions. */
void sysprof_document_fill_callgraph_filter (SysprofDocument *self, SysprofCallgraphFilter *filter);

/* Runs @work in the document's worker thread, after the work queued before
 * it.  @reader is a copy of the capture's reader for this work only, rewound;
 * @symbolizer is loaded.  @work returns its result (freed with @result_free
 * if nobody takes it) or NULL with @error set.  _run_finish() returns the
 * result, owned by the caller.  Use sysprof_document_set_work_progress()
 * from @work to move the progress bar. */
typedef gpointer (*SysprofDocumentWork) (SysprofDocument      *document,
                                         SysprofCaptureReader *reader,
                                         SysprofSymbolizer    *symbolizer,
                                         gpointer              data,
                                         GCancellable         *cancellable,
                                         GError              **error);
void     sysprof_document_run_async (SysprofDocument    *self,
                                     const char         *what,
                                     SysprofDocumentWork work,
                                     gpointer            data,
                                     GDestroyNotify      data_free,
                                     GDestroyNotify      result_free,
                                     GCancellable       *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer            user_data);
gpointer sysprof_document_run_finish (SysprofDocument *self, GAsyncResult *result, GError **error);
/* Thread-safe: @fraction (0 to 1) of the current work is done. */
void sysprof_document_set_work_progress (SysprofDocument *self, double fraction);

/* The callgraph of @source / @weight under the current filter (time window,
 * focus, hidden functions), computed in the worker, shared between the
 * views that ask for the same one (the last few are cached). */
void              sysprof_document_callgraph_async (SysprofDocument       *self,
                                                    SysprofCallgraphSource source,
                                                    SysprofCallgraphWeight weight,
                                                    GCancellable          *cancellable,
                                                    GAsyncReadyCallback    callback,
                                                    gpointer               user_data);
SysprofCallgraph *sysprof_document_callgraph_finish (SysprofDocument *self, GAsyncResult *result, GError **error);

G_END_DECLS
