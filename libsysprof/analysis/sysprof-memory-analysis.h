// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-allocators.h"
#include "sysprof-callgraph.h"
#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* Memory analyses of the allocation records of a capture (the records of
 * sysprof-cli --memprof or Sysprof's libsysprof-memory preload): ALLOCATION
 * frames and memory streams (libsysprof-capture/memory-stream.md) alike,
 * read through SysprofAllocationCursor; the same events give the same
 * results in either form.
 *
 * Records.  A record with size > 0 is an allocation of size bytes at
 * address by thread tid; size <= 0 is a free of address by tid.  realloc
 * appears as a free of the old address followed by an allocation of the new
 * one; calloc as one allocation of nmemb * size.  Records of address 0
 * (free (NULL), failed allocations) are ignored.  Allocations are keyed by
 * (pid, address) and records are taken in time order (ALLOCATION frames in
 * file order, which is time order in the captures of sysprof-cli and
 * Sysprof).
 *
 *  - A free of an address that is not live (allocated before the recording
 *    or outside the filters) is an "unmatched free": counted, not an error,
 *    and not among the frees.
 *  - An allocation of an address that is still live (its free was missed)
 *    replaces the old allocation, which is counted as an "unmatched
 *    allocation" (its bytes neither freed nor live).  So, always:
 *    allocations = frees + unmatched_allocations + live_allocations.
 *
 * Allocation site: the first frame, innermost first, that is not part of
 * the allocator, i.e. neither a function of sysprof_memory_symbol_is_allocator()
 * nor a frame of the preload library.  Our tracker records the caller of
 * malloc as the first frame, Sysprof 3.46's preload its own frames and the
 * allocator's first; both give the same site.  A stack made only of
 * allocator frames has its outermost frame as site; an allocation without
 * a stack has the site "[no stack]".  Sites are symbols of the symbolizer
 * (or of the analysis for "[no stack]"), resolved once per distinct
 * (pid, address) after the capture is read; equal functions of different
 * processes are one site.
 *
 * Temporary allocation: an allocation freed by the same thread before that
 * thread makes any other allocation (Sysprof 3.46's and heaptrack's notion
 * of "allocated and freed right away"; frees of other blocks in between do
 * not matter).  The free of realloc's old block counts when nothing else was
 * allocated since it.
 *
 * Cross-thread free: a free by a thread other than the one that made the
 * allocation.
 *
 * Lost events: the sum of the counts of the METADATA frames with id
 * SYSPROF_LOST_EVENTS_METADATA_ID (records the tracker or the daemon could
 * not keep) of the processes that pass the pid filter, plus those of pid -1,
 * and of the lost records of the memory streams of those processes (events
 * a tracker thread could not record).  The results are computed without
 * them: a capture with lost events has unmatched frees and allocations, and
 * leaks that are not leaks.
 *
 * Record errors: unsound stream blocks (garbage, unknown stack ids, a
 * truncated block), stacks past the readers' bounds and unusable ALLOCATION
 * frames are counted and described, and their records are missing from the
 * results; they do not stop the analysis.
 */

/* What to read and what to compute.  The struct will grow: set @size to
 * sizeof (SysprofMemoryOptions), most simply by starting from
 * SYSPROF_MEMORY_OPTIONS_INIT or sysprof_memory_options_init(). */
typedef struct
{
  gsize size;
  /* Process ids (the frame's pid); @n_pids 0: any. */
  const gint32 *pids;
  gsize         n_pids;
  /* Threads: their allocations, and the frees of those allocations by any
   * thread.  Frees by other threads of addresses they do not know are
   * ignored, not counted as unmatched.  @n_tids 0: any. */
  const gint32 *tids;
  gsize         n_tids;
  /* Time window in nanoseconds from the capture's start time, both ends
   * included; G_MININT64 / G_MAXINT64: unbounded.  Records outside it are
   * ignored, as if the recording had covered the window only (the frees of
   * blocks allocated before it are unmatched, the blocks live at its end are
   * the leaks). */
  gint64 begin_ns;
  gint64 end_ns;
  /* Over time: live bytes and allocations at @n_points evenly spaced times
   * from the window's start to its end (the capture's when unbounded),
   * both included.  0: none; 1: the end only. */
  guint n_points;
  /* Live allocations by site at these times (nanoseconds from the capture's
   * start), for sysprof_memory_analysis_diff_snapshots(). */
  const gint64 *snapshot_ns;
  gsize         n_snapshots;
  /* TRUE: @symbolizer has not been loaded yet, and the analysis loads it
   * from the capture itself, in a thread of its own while it reads the
   * allocation records (on a copy of the reader): the two passes over the
   * capture overlap.  Sites are only resolved after both. */
  gboolean load_symbolizer;
} SysprofMemoryOptions;

#define SYSPROF_MEMORY_OPTIONS_INIT                                                            \
  {                                                                                            \
    sizeof (SysprofMemoryOptions), NULL, 0, NULL, 0, G_MININT64, G_MAXINT64, 0, NULL, 0, FALSE \
  }

SYSPROF_AVAILABLE_IN_ALL
void sysprof_memory_options_init (SysprofMemoryOptions *options);

/* Size classes of the summary: class i holds the allocations of
 * 2^i .. 2^(i+1) - 1 bytes (class 0: 1 byte, class 3: 8-15 bytes, ...). */
#define SYSPROF_MEMORY_N_SIZE_CLASSES 64

typedef struct
{
  /* ALLOCATION frames in the capture, filtered or not. */
  guint64 records_read;
  /* Of the records that passed the filters: */
  guint64 allocations;
  guint64 frees; /* that released a live allocation */
  guint64 bytes_allocated;
  guint64 bytes_freed;
  /* The largest live bytes after any record, and the time of the first
   * record that reached it (nanoseconds from the capture's start; 0 when
   * nothing was allocated). */
  guint64 peak_bytes;
  guint64 peak_allocations; /* live allocations at that time */
  gint64  peak_time_ns;
  /* Live at the end of the capture (or window): the leaks. */
  guint64 live_allocations;
  guint64 live_bytes;
  guint64 temporary_allocations;
  guint64 temporary_bytes;
  guint64 cross_thread_frees;
  guint64 cross_thread_bytes;
  guint64 unmatched_frees;
  guint64 unmatched_allocations;
  guint64 unmatched_allocation_bytes; /* of the replaced allocations */
  guint64 lost_events;                /* METADATA and streams together */
  /* Distinct threads and processes among the records that passed. */
  guint n_threads;
  guint n_processes;
  /* Allocations and their bytes by size class (see above). */
  guint64 class_allocations[SYSPROF_MEMORY_N_SIZE_CLASSES];
  guint64 class_bytes[SYSPROF_MEMORY_N_SIZE_CLASSES];
  /* Of lost_events, those the memory streams' lost records counted. */
  guint64 lost_stream_events;
  /* Records that could not be read (see "Record errors" above), all
   * processes; sysprof_memory_analysis_get_record_error() names the first. */
  guint64 record_errors;
} SysprofMemorySummary;

/* Allocations grouped by site (leaks, temporary allocations). */
typedef struct
{
  const SysprofSymbol *site;
  guint64              allocations;
  guint64              bytes;
} SysprofMemorySite;

/* Cross-thread frees grouped by (site, allocating thread, freeing thread). */
typedef struct
{
  const SysprofSymbol *site;
  gint32               alloc_tid;
  gint32               free_tid;
  guint64              frees;
  guint64              bytes;
} SysprofMemoryCrossThread;

/* One point of the heap over time. */
typedef struct
{
  gint64  time_ns; /* from the capture's start */
  guint64 live_bytes;
  guint64 live_allocations;
  /* The most live bytes since the previous point (or the start), this
   * point included: spikes between two points stay visible. */
  guint64 peak_bytes;
} SysprofMemoryPoint;

typedef enum
{
  SYSPROF_MEMORY_DIFF_UNCHANGED,
  SYSPROF_MEMORY_DIFF_GROWN,  /* more bytes (or as many bytes and more allocations) in B */
  SYSPROF_MEMORY_DIFF_SHRUNK, /* fewer */
  SYSPROF_MEMORY_DIFF_NEW,    /* live allocations in B only */
  SYSPROF_MEMORY_DIFF_GONE,   /* live allocations in A only */
} SysprofMemoryDiffStatus;

/* "unchanged", "grown", "shrunk", "new", "gone". */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_memory_diff_status_to_string (SysprofMemoryDiffStatus status);

/* Live allocations of one site in A and in B. */
typedef struct
{
  const SysprofSymbol    *site;
  guint64                 allocations_a;
  guint64                 bytes_a;
  guint64                 allocations_b;
  guint64                 bytes_b;
  gint64                  delta_allocations; /* b - a */
  gint64                  delta_bytes;
  SysprofMemoryDiffStatus status;
} SysprofMemoryDiffRow;

#define SYSPROF_TYPE_MEMORY_ANALYSIS (sysprof_memory_analysis_get_type ())

/* All memory analyses of a capture, computed in one pass over it.  Stacks
 * are interned in a prefix tree as they are read (a live allocation holds
 * a 32-bit stack id), live allocations are in an open addressing table,
 * and only the distinct sites are symbolized, at the end.  Immutable once
 * built. */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofMemoryAnalysis, sysprof_memory_analysis, SYSPROF, MEMORY_ANALYSIS, GObject)

/* Reads the capture of @reader (whose position is not moved) to the end; @symbolizer must have been
 * loaded from the same capture (the analysis keeps a reference on it),
 * unless the options ask the analysis to load it.
 * @options NULL: every record, no points, no snapshots.  @progress may be
 * NULL (called every 65536 frames and at the end; the file is read twice,
 * and bytes_total is twice its size).  Fails with G_IO_ERROR_NOT_FOUND ("the
 * capture has no allocation records; record with sysprof-cli --memprof")
 * when the capture holds neither an ALLOCATION frame nor a memory stream,
 * and like sysprof_callgraph_new() on a capture that cannot be read to its
 * end. */
SYSPROF_AVAILABLE_IN_ALL
SysprofMemoryAnalysis *sysprof_memory_analysis_new (SysprofCaptureReader       *reader,
                                                    SysprofSymbolizer          *symbolizer,
                                                    const SysprofMemoryOptions *options,
                                                    SysprofCallgraphProgress    progress,
                                                    gpointer                    user_data,
                                                    GError                    **error);
SYSPROF_AVAILABLE_IN_ALL
const SysprofMemorySummary *sysprof_memory_analysis_get_summary (SysprofMemoryAnalysis *self);
/* Allocations live at the end, by site, as a GArray of SysprofMemorySite:
 * most bytes first (ties: most allocations, then by name). */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_memory_analysis_list_leaks (SysprofMemoryAnalysis *self);
/* Temporary allocations by site, likewise. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_memory_analysis_list_temporary (SysprofMemoryAnalysis *self);
/* Cross-thread frees as a GArray of SysprofMemoryCrossThread, most bytes
 * first (ties: most frees, name, alloc_tid, free_tid). */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_memory_analysis_list_cross_thread (SysprofMemoryAnalysis *self);
/* The options' n_points points, in time order; *@n_points receives their
 * number.  Owned by the analysis. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofMemoryPoint *sysprof_memory_analysis_get_points (SysprofMemoryAnalysis *self, guint *n_points);
/* A sentence describing the first of summary.record_errors, or NULL. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_memory_analysis_get_record_error (SysprofMemoryAnalysis *self);
/* The start time of the capture (its header's), the origin of every time
 * of the results. */
SYSPROF_AVAILABLE_IN_ALL
gint64 sysprof_memory_analysis_get_start_time (SysprofMemoryAnalysis *self);
/* Live allocations at the options' snapshot @a (A) against snapshot @b
 * (B), as a GArray of SysprofMemoryDiffRow for every site live at either
 * (unchanged ones included): largest |delta_bytes| first (ties: largest
 * bytes_b, then by name).  A snapshot at time T holds the allocations live
 * after every record at or before T. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_memory_analysis_diff_snapshots (SysprofMemoryAnalysis *self, guint a, guint b);
/* Live allocations at the end of @a against those at the end of @b (two
 * captures, or two windows of one), sites matched by function name and
 * library; same order.  The rows' sites belong to @a or @b: keep both. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_memory_analysis_diff (SysprofMemoryAnalysis *a, SysprofMemoryAnalysis *b);

G_END_DECLS
