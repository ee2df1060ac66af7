// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

typedef enum
{
  /* SAMPLE frames: a count of samples. */
  SYSPROF_CALLGRAPH_SOURCE_SAMPLES,
  /* Allocations (size > 0) with their stacks, from ALLOCATION frames and
   * memory streams alike (SysprofAllocationCursor): a count of
   * allocations, and their bytes.  The time window, pids and tids select
   * allocations. */
  SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS,
  /* Only the allocations still live at the end (of the capture or the time
   * window), following the rules of sysprof-memory-analysis.h: frees in
   * the window by any thread of the selected processes release them. */
  SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS,
  /* Off-CPU samples (scheduler details, SYSPROF_CAPTURE_SAMPLE_OFF_CPU): the
   * stacks threads left the CPU with, weighted by how long they stayed off
   * it.  Every count (self, total, edges, n_samples) is in microseconds;
   * the "[off-CPU]" frame those stacks end with is left out. */
  SYSPROF_CALLGRAPH_SOURCE_OFF_CPU,
  /* Both, in microseconds: each on-CPU sample weighs the sampling period
   * (1 s / the frequency of the capture's "sysprof.scheduler" metadata, else
   * 1 s / 997), each off-CPU sample its wait.  The off-CPU stacks keep their
   * "[off-CPU]" frame, outermost: under each process the tree shows where
   * the time went on the CPU and, below that frame, where it was waited. */
  SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK,
} SysprofCallgraphSource;

typedef enum
{
  SYSPROF_CALLGRAPH_WEIGHT_COUNT, /* samples, or allocations */
  SYSPROF_CALLGRAPH_WEIGHT_BYTES, /* bytes of the allocations */
} SysprofCallgraphWeight;

/* Which samples and frames count.  The struct will grow: set @size to
 * sizeof (SysprofCallgraphFilter), most simply by starting from
 * SYSPROF_CALLGRAPH_FILTER_INIT or sysprof_callgraph_filter_init().  A
 * sample counts when it passes every condition that is set. */
typedef struct
{
  gsize size;
  /* Process ids (the frame's pid); @n_pids 0: any. */
  const gint32 *pids;
  gsize         n_pids;
  /* Thread ids (the sample's tid); @n_tids 0: any. */
  const gint32 *tids;
  gsize         n_tids;
  /* Process names, as sysprof_symbolizer_get_process_name() gives them; a
   * name also matches the base name of its first word (so "sh" matches
   * "/bin/sh -c true"), and a name the kernel cut to 15 characters matches
   * the names it begins (so "blocking-worklo" matches "blocking-workload").
   * @n_comms 0: any. */
  const char *const *comms;
  gsize              n_comms;
  /* Time window in nanoseconds from the capture's start time (the header's),
   * both ends included.  G_MININT64 / G_MAXINT64: unbounded. */
  gint64 begin_ns;
  gint64 end_ns;
  /* Drop the frames sampled in kernel context (kernel, hypervisor, guest
   * kernel).  The context node ("- - kernel - -") stays, and carries the time
   * spent below it as its own. */
  gboolean no_kernel;
  /* What the callgraph is made of (SYSPROF_CALLGRAPH_SOURCE_SAMPLES, the
   * SAMPLE frames, by default). */
  SysprofCallgraphSource source;
  /* What self and total count for the allocation sources: allocations
   * (SYSPROF_CALLGRAPH_WEIGHT_COUNT, the default) or their bytes. */
  SysprofCallgraphWeight weight;
  /* Allocation sources: keep the allocator's frames on the inner end of the
   * stacks.  By default they are dropped (the weight goes to the allocation
   * site, see sysprof-memory-analysis.h), except the outermost frame of a
   * stack made of allocator frames only. */
  gboolean keep_allocator_frames;

  /* Fields added after the first version: a caller built against that one
   * sets a smaller @size, and they keep their defaults (no focus, nothing
   * hidden).
   *
   * Focus and hide name functions exactly as the callgraph shows them
   * (SysprofSymbol.name: "main", "g_main_context_iteration", "0x7f12…" for
   * an address without a symbol).  Only code frames match: process nodes
   * ("[sh]"), context nodes ("- - kernel - -") and the root never do.  They
   * apply to the frames the other fields leave (after @no_kernel, and after
   * the allocator frames are dropped unless @keep_allocator_frames), which
   * is what makes "focus on what I see" work.  The names are looked up once
   * per distinct function, not once per frame.
   *
   * Focus (@n_focus > 0): only the samples (or allocations) with at least
   * one of these functions on their stack count, and each such stack is cut
   * to start at its outermost frame of any of them: the process node and
   * the callers are dropped, so the tree is [Everything] → focused function
   * → its callees.  The root's total, sysprof_callgraph_get_n_samples() and
   * so the base of every percentage, is the number of those samples: the
   * percentages read as shares of the time spent in the focused functions,
   * which is the question a focused view asks.  A frame of a focused
   * function further in (recursion, or another focused function called by
   * the first) stays an ordinary frame below the cut.
   *
   * Hide: the frames of these functions are removed from the stacks, their
   * callees joining the caller.  Hiding never drops a sample: the samples
   * whose innermost frame was hidden count as self of the next frame
   * outward that is kept (a code frame, or the context node "- - kernel - -"
   * or process node when every code frame outward is hidden; with a focus,
   * the frame where the stack was cut), so that totals stay the same and
   * only the shape of the tree changes.
   *
   * Both: the focus is applied first (it picks the samples and the cut
   * point), then the hidden frames are removed.  A function both focused
   * and hidden decides the cut like any focused function, then its frames
   * are removed too: the tree is [Everything] → its callees, merged, and
   * the samples that end in it (or in hidden frames right below it) have no
   * frame left and are the root's self: hiding never drops a sample, and
   * keeping the frame would show what was asked to go.
   * sysprof_callgraph_foreach_stack() reports them as the stack made of the
   * root alone.  The names are read during sysprof_callgraph_new() only. */
  const char *const *focus;
  gsize              n_focus;
  const char *const *hide;
  gsize              n_hide;

  /* Added with source lines (a smaller @size: FALSE).  Each frame is a
   * source line rather than a function: the functions of the callgraph are
   * (function, file, line), SysprofCallgraphFunction.file and .line say
   * which, and a function's lines are its rows (the innermost frame: the
   * line executing; an outer frame: the line of the call).  Frames without
   * debug info have no file and line 0. */
  gboolean lines;

  /* Added with sysprof_callgraph_foreach_sample() (a smaller @size: FALSE).
   * Keep every sample (or allocation) that counts, with its thread, CPU,
   * time and the raw stack it was taken with, for that function: about 40
   * bytes per sample, and 32 per distinct stack, for the life of the
   * callgraph. */
  gboolean keep_samples;
} SysprofCallgraphFilter;

#define SYSPROF_CALLGRAPH_FILTER_INIT                                                                           \
  {                                                                                                             \
    sizeof (SysprofCallgraphFilter), NULL, 0, NULL, 0, NULL, 0, G_MININT64, G_MAXINT64, FALSE,                  \
        SYSPROF_CALLGRAPH_SOURCE_SAMPLES, SYSPROF_CALLGRAPH_WEIGHT_COUNT, FALSE, NULL, 0, NULL, 0, FALSE, FALSE \
  }

SYSPROF_AVAILABLE_IN_ALL
void sysprof_callgraph_filter_init (SysprofCallgraphFilter *filter);

typedef enum
{
  SYSPROF_CALLGRAPH_FUNCTION_ROOT,    /* "[Everything]": the root, every sample */
  SYSPROF_CALLGRAPH_FUNCTION_PROCESS, /* "[name]": the processes of that name (or "[Process PID]") */
  SYSPROF_CALLGRAPH_FUNCTION_CONTEXT, /* "- - kernel - -": where a stack enters another perf context */
  SYSPROF_CALLGRAPH_FUNCTION_CODE,    /* a symbol of the symbolizer, resolved or not */
} SysprofCallgraphFunctionKind;

/* One function of the callgraph, read-only, valid as long as the callgraph.
 * Counts are numbers of samples, or what the filter's source and weight
 * say (allocations, bytes): "samples" below stands for them. */
typedef struct
{
  /* Name, library and symbol kind.  CODE functions share the symbolizer's
   * interned symbol (the callgraph keeps the symbolizer alive); the others
   * have symbols of kind SYSPROF_SYMBOL_CONTEXT owned by the callgraph, with
   * library "". */
  const SysprofSymbol         *symbol;
  SysprofCallgraphFunctionKind kind;
  /* Position for sysprof_callgraph_get_function(); 0 is the root. */
  guint index;
  /* Samples whose innermost frame is this function. */
  guint64 self;
  /* Samples with this function anywhere in the stack, each counted once even
   * when the function recurses. */
  guint64 total;
  /* Allocation sources: the bytes of the same allocations (0 for samples). */
  guint64 self_bytes;
  guint64 total_bytes;
  /* With the filter's @lines: the source line this function stands for
   * (NULL and 0 when unknown); otherwise always NULL and 0. */
  const char *file;
  guint       line;
} SysprofCallgraphFunction;

/* A node of the top-down tree: the root, then one node per process name,
 * then the frames from the outermost in (with a focus: the root, then the
 * focused functions); a node is one path from the root.  Read-only, valid
 * as long as the callgraph. */
typedef struct _SysprofCallgraphNode SysprofCallgraphNode;
struct _SysprofCallgraphNode
{
  const SysprofCallgraphFunction *function;
  const SysprofCallgraphNode     *parent;       /* NULL for the root */
  const SysprofCallgraphNode     *first_child;  /* children by total, largest first (ties by name) */
  const SysprofCallgraphNode     *next_sibling; /* NULL: the last child */
  guint64                         self;         /* samples that end here */
  guint64                         total;        /* samples that pass through here */
  guint                           depth;        /* 0 for the root, 1 for processes (or focused functions) */
  guint64                         self_bytes;   /* allocation sources: bytes of self and total */
  guint64                         total_bytes;
};

/* A caller or callee of a function and the samples in which that call is on
 * the stack (each sample once, recursion included). */
typedef struct
{
  const SysprofCallgraphFunction *function;
  guint64                         samples;
  guint64                         bytes; /* allocation sources: their bytes */
} SysprofCallgraphEdge;

/* Progress of the reading pass: @bytes_read of @bytes_total (0 when unknown,
 * e.g. a pipe).  Called every 65536 frames and once at the end. */
typedef void (*SysprofCallgraphProgress) (guint64 bytes_read, guint64 bytes_total, gpointer user_data);

/* The frames of one distinct stack, outermost first, starting with the
 * process node, or with a focused function (the root is left out);
 * @n_samples samples ended with it.  The samples a focused and hidden
 * function leaves without any frame (see SysprofCallgraphFilter) come as
 * the stack made of the root alone.  Return FALSE to stop. */
typedef gboolean (*SysprofCallgraphStackFunc) (const SysprofCallgraphFunction *const *frames,
                                               guint                                  n_frames,
                                               guint64                                n_samples,
                                               gpointer                               user_data);

#define SYSPROF_TYPE_CALLGRAPH (sysprof_callgraph_get_type ())

/* The callgraph of the SAMPLE frames of a capture, the way Sysprof shows it:
 * per-function self and total, callers and callees, a top-down tree and the
 * distinct stacks.  A frame in code that was inlined stands for several
 * functions (the symbolizer's sysprof_symbolizer_lookup_frames()): each is
 * a frame of its own, as perf and Hotspot show them.  A user-space address
 * that cannot be code (sysprof_symbolizer_is_code_address(): it lies in no
 * executable mapping of the process) ends its stack there: a frame-pointer
 * walk through code without frame pointers reads data as return addresses,
 * and those frames and all beyond them are dropped (the sample still
 * counts).  Kernel frames are not concerned.
 *
 * Stacks are first collected as raw addresses in a prefix tree per process
 * (identical stacks collapse), then each distinct (pid, address, context) is
 * resolved once, then the tree of functions is built from the distinct
 * paths: the cost of symbolizing does not grow with the number of samples.
 * Frames in a non-user perf context are preceded, on their outer side, by a
 * context node ("- - kernel - -"), as in Sysprof 3.46; the markers themselves
 * are not frames.  Immutable once built. */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofCallgraph, sysprof_callgraph, SYSPROF, CALLGRAPH, GObject)

/* Rewinds @reader and reads it to the end; @symbolizer must have been
 * loaded from the same capture (the callgraph keeps a reference on it).
 * @filter NULL: every sample.  With an allocation source, a capture without
 * ALLOCATION frames or memory streams fails with G_IO_ERROR_NOT_FOUND (as
 * sysprof_memory_analysis_new() does).  @progress may be NULL.  A capture that cannot
 * be read to its end (corrupt or truncated) fails with G_IO_ERROR_INVALID_DATA
 * (another G_IO_ERROR code for an I/O error) and the reader's message, which
 * names the byte offset. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCallgraph *sysprof_callgraph_new (SysprofCaptureReader         *reader,
                                         SysprofSymbolizer            *symbolizer,
                                         const SysprofCallgraphFilter *filter,
                                         SysprofCallgraphProgress      progress,
                                         gpointer                      user_data,
                                         GError                      **error);
/* Samples that passed the filter: the root's total, and the base of every
 * percentage. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_callgraph_get_n_samples (SysprofCallgraph *self);
/* Allocation sources: records that could not be read (unsound memory
 * stream blocks, refused stacks, unusable ALLOCATION frames); they are
 * missing from the tree.  0 for samples. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_callgraph_get_n_record_errors (SysprofCallgraph *self);
/* SAMPLE frames in the capture, filtered or not; for the allocation
 * sources, the ALLOCATION frames of allocations. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_callgraph_get_n_samples_read (SysprofCallgraph *self);
/* How the recorder unwound user stacks: the text of the capture's METADATA
 * "sysprof.unwind" (see sysprof_perf_recorder_get_unwind_summary()), or
 * NULL when it has none (captures of other recorders, older ones). */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_callgraph_get_unwind_summary (SysprofCallgraph *self);
/* Allocation sources: the bytes of the allocations that passed (the root's
 * total_bytes); 0 for samples. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_callgraph_get_n_bytes (SysprofCallgraph *self);
/* The source the callgraph was built from. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCallgraphSource sysprof_callgraph_get_source (SysprofCallgraph *self);
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_callgraph_get_n_functions (SysprofCallgraph *self);
/* Functions in the order they were met; 0 is the root.  Only functions with
 * a node in the tree are there: not a hidden function, nor one that only
 * appears where a focus cut the stacks, or only folded into allocation
 * sites. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCallgraphFunction *sysprof_callgraph_get_function (SysprofCallgraph *self, guint index);
/* The function named @name (exactly) in @library (NULL: any library; of
 * several, the one with the largest total), or NULL. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofCallgraphFunction *
sysprof_callgraph_find_function (SysprofCallgraph *self, const char *name, const char *library);
SYSPROF_AVAILABLE_IN_ALL
const SysprofCallgraphNode *sysprof_callgraph_get_root (SysprofCallgraph *self);
/* The functions that call @function directly (a process node when it is the
 * outermost frame, a context node when it is the first kernel frame, the
 * root where a focus cut the stacks), as a GArray of SysprofCallgraphEdge,
 * most samples first (ties by name). */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_callgraph_list_callers (SysprofCallgraph *self, const SysprofCallgraphFunction *function);
/* The functions @function calls directly, likewise. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_callgraph_list_callees (SysprofCallgraph *self, const SysprofCallgraphFunction *function);
/* Calls @func once per distinct stack of functions (stacks that differ only
 * in addresses within the same functions are one), in depth-first order of
 * the tree.  The counts add up to sysprof_callgraph_get_n_samples(). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_callgraph_foreach_stack (SysprofCallgraph *self, SysprofCallgraphStackFunc func, gpointer user_data);

/* One frame of a sample (see sysprof_callgraph_foreach_sample()). */
typedef struct
{
  const SysprofCallgraphFunction *function;
  /* Where the frame was sampled: the instruction pointer of the innermost
   * code frame, a return address in the others (as perf records them); 0
   * for the frames that stand for no code (the process node, a context
   * node, the root). */
  SysprofCaptureAddress address;
  /* The perf context @address was sampled in (SYSPROF_ADDRESS_CONTEXT_NONE
   * in a sample without context markers). */
  SysprofAddressContext context;
  /* TRUE when the next frame outward comes from the same address: this
   * function was inlined into that one there. */
  gboolean inlined;
  /* The source line of the frame when the debug info gives it (the line
   * executing; in a caller, the line of the call), whether or not the
   * filter's @lines made functions of lines; NULL and 0 when unknown. */
  const char *file;
  guint       line;
} SysprofCallgraphSampleFrame;

/* One sample (or allocation) that counts, as the callgraph counted it. */
typedef struct
{
  gint32 pid;
  gint32 tid;
  /* -1 when unknown (allocations of memory streams). */
  gint32 cpu;
  /* The capture's clock, in nanoseconds (an off-CPU sample: when its
   * thread left the CPU; an allocation: when it was made). */
  gint64 time;
  /* What it adds to the counts of its frames' functions: 1, or its
   * microseconds (off-CPU, wall-clock), or its bytes (an allocation
   * weighted by bytes).  The weights add up to
   * sysprof_callgraph_get_n_samples(). */
  guint64 weight;
  /* An allocation's bytes; 0 for a sample. */
  guint64 bytes;
  /* Samples with the same @stack have the same @pid and frames. */
  guint32 stack;
  /* Innermost first, as the callgraph counts it (after --no-kernel, focus,
   * hide and the allocator frames): @frames[0] has the sample as its self,
   * the last is the process node (or, with a focus, the focused function
   * the stack was cut at).  A sample that a focused and hidden function
   * left without any frame has the root alone. */
  const SysprofCallgraphSampleFrame *frames;
  guint                              n_frames;
} SysprofCallgraphSample;

/* Return FALSE to stop.  @sample is valid during the call only. */
typedef gboolean (*SysprofCallgraphSampleFunc) (const SysprofCallgraphSample *sample, gpointer user_data);

/* Calls @func once per sample (or allocation) that counts, in time order
 * (those of the same time in capture order), for a callgraph built with
 * the filter's @keep_samples.  Summed over the
 * samples, the weight of each function's frames (once per sample for
 * total) is the function's self and total. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_callgraph_foreach_sample (SysprofCallgraph *self, SysprofCallgraphSampleFunc func, gpointer user_data);
/* What foreach_sample_full may leave out, for a consumer that aggregates. */
typedef enum
{
  SYSPROF_CALLGRAPH_SAMPLE_DEFAULT = 0,
  /* The frames of each stack (SysprofCallgraphSample.stack) with its first
   * sample only: the next samples of the stack have @n_frames 0 and @frames
   * NULL (their pid, thread, time and weights are there).  Building a
   * sample's frames is most of the cost of iterating. */
  SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE = 1 << 0,
} SysprofCallgraphSampleFlags;
/* foreach_sample, with @flags. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_callgraph_foreach_sample_full (SysprofCallgraph           *self,
                                            SysprofCallgraphSampleFlags flags,
                                            SysprofCallgraphSampleFunc  func,
                                            gpointer                    user_data);
/* The symbolizer the callgraph was built with (its functions' symbols are
 * that symbolizer's). */
SYSPROF_AVAILABLE_IN_ALL
SysprofSymbolizer *sysprof_callgraph_get_symbolizer (SysprofCallgraph *self);

G_END_DECLS
