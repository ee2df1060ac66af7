// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "sysprof-capture-error.h"
#include "sysprof-memory-analysis-private.h"
#include "sysprof-memory-live-table-private.h"
#include "sysprof-memory-sites-private.h"
#include "sysprof-memory-stacks-private.h"
#include "sysprof-stack-stash-private.h"

G_DEFINE_FINAL_TYPE (SysprofMemoryAnalysis, sysprof_memory_analysis, G_TYPE_OBJECT)

static void
sysprof_memory_analysis_finalize (GObject *object)
{
  SysprofMemoryAnalysis *self = SYSPROF_MEMORY_ANALYSIS (object);

  g_clear_object (&self->symbolizer);
  g_clear_pointer (&self->points, g_free);
  g_clear_pointer (&self->leaks, g_array_unref);
  g_clear_pointer (&self->temporary, g_array_unref);
  g_clear_pointer (&self->cross_thread, g_array_unref);
  g_clear_pointer (&self->snapshots, g_ptr_array_unref);
  g_clear_pointer (&self->no_stack, g_free);
  g_clear_pointer (&self->record_error, g_free);

  G_OBJECT_CLASS (sysprof_memory_analysis_parent_class)->finalize (object);
}

static void
sysprof_memory_analysis_class_init (SysprofMemoryAnalysisClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_memory_analysis_finalize;
}

static void
sysprof_memory_analysis_init (SysprofMemoryAnalysis *self)
{
  self->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
}

void
sysprof_memory_options_init (SysprofMemoryOptions *options)
{
  g_return_if_fail (options != NULL);

  *options = (SysprofMemoryOptions) SYSPROF_MEMORY_OPTIONS_INIT;
}

const char *
sysprof_memory_diff_status_to_string (SysprofMemoryDiffStatus status)
{
  switch (status)
    {
    case SYSPROF_MEMORY_DIFF_UNCHANGED: return "unchanged";
    case SYSPROF_MEMORY_DIFF_GROWN: return "grown";
    case SYSPROF_MEMORY_DIFF_SHRUNK: return "shrunk";
    case SYSPROF_MEMORY_DIFF_NEW: return "new";
    case SYSPROF_MEMORY_DIFF_GONE: return "gone";
    default: return "unknown";
    }
}

/* ------------------------------------------------------------------------ */
/* Threads: the last allocation of each, for temporary allocations. */

typedef struct
{
  gint32  pid;
  gint32  tid;
  guint64 last_address; /* 0: none pending (freed, or nothing allocated yet) */
} Thread;

typedef struct
{
  GHashTable *by_key;     /* (pid << 32 | tid) as guint64* → Thread*, owning */
  Thread     *recent[64]; /* by tid & 63 */
} Threads;

static Thread *
threads_lookup_slow (Threads *threads, gint32 pid, gint32 tid)
{
  guint64  key = (guint64) (guint32) pid << 32 | (guint32) tid;
  guint64 *stored;
  Thread  *thread = g_hash_table_lookup (threads->by_key, &key);

  if (thread == NULL)
    {
      /* One block: the key, then the thread. */
      stored = g_malloc0 (sizeof (guint64) + sizeof (Thread));
      *stored = key;
      thread = (Thread *) (stored + 1);
      thread->pid = pid;
      thread->tid = tid;
      g_hash_table_insert (threads->by_key, stored, thread);
    }
  threads->recent[(guint32) tid & 63] = thread;
  return thread;
}

static inline Thread *
threads_lookup (Threads *threads, gint32 pid, gint32 tid)
{
  Thread *thread = threads->recent[(guint32) tid & 63];

  if (G_LIKELY (thread != NULL && thread->tid == tid && thread->pid == pid))
    return thread;
  return threads_lookup_slow (threads, pid, tid);
}

/* ------------------------------------------------------------------------ */
/* Reading */

typedef struct
{
  gint64 time; /* absolute */
  guint  index;
} PendingSnapshot;

/* One ALLOCATION frame that passed the filters, as the reading thread hands
 * it to the analysing thread: the stack already interned. */
typedef struct
{
  gint64  time;
  guint64 address;
  guint64 size; /* 0: a free */
  gint32  pid;
  gint32  tid;
  guint32 stack;
  guint32 tid_kept;
} Record;

/* Records go in batches: one queue operation per batch, not per record. */
#define BATCH_RECORDS 4096
/* How many records ahead the analysing thread asks for live-table slots. */
#define PREFETCH_AHEAD 8

typedef struct
{
  guint  n_records;
  Record records[BATCH_RECORDS];
} Batch;

/* Live allocations per stack node at one time. */
typedef struct
{
  guint32 node;
  guint32 padding;
  guint64 allocations;
  guint64 bytes;
} NodeCount;

typedef struct
{
  gint32   pid;
  gboolean valid;
  gboolean keep;
  guint32  process_node;
} PidSlot;

typedef struct
{
  guint32 node;
  gint32  alloc_tid;
  gint32  free_tid;
  guint32 padding;
  guint64 frees;
  guint64 bytes;
} CrossKey;

typedef struct
{
  /* Read-only during the pass. */
  SysprofMemoryAnalysis      *self;
  const SysprofMemoryOptions *options;
  /* Batches: full ones to the analysing thread, empty ones back. */
  GAsyncQueue *full;
  GAsyncQueue *empty;

  /* The reading thread's. */
  SysprofMemoryStacks stacks;
  GHashTable         *pid_verdicts;
  PidSlot             pid_slots[256];
  gint64              begin; /* absolute, inclusive */
  gint64              end;
  guint64             records_read;
  guint64             lost_events;
  /* Progress: the first pass of the cursor, then the streams' events. */
  SysprofCallgraphProgress progress;
  gpointer                 progress_data;
  guint64                  bytes_total;
  guint64                  n_frames;
  /* The batch being filled. */
  Batch *batch;
  /* The first pass: ALLOCATION frames taken there (see read_records()),
   * whether a stream chunk was met, and their record errors. */
  gboolean frames_in_first_pass;
  guint64  first_pass_frames;
  gboolean stream_seen;
  gboolean mixed;
  guint64  frame_errors;
  char    *frame_error;

  /* Two threads writing to one cache line slow each other down: the
   * analysing thread's fields start well away from the reading thread's
   * (and the summary is written by the analysing thread only). */
  char separator[128];

  /* The analysing thread's. */
  SysprofMemoryLiveTable live;
  Threads                threads;
  guint64                live_bytes;
  /* Temporary allocations per stack node. */
  GArray *temporary; /* NodeCount indexed by node (node field unused) */
  /* Cross-thread frees by (node, alloc_tid, free_tid). */
  GHashTable *cross; /* CrossKey* → itself, owning */
  /* Over time. */
  gint64 *point_times;
  guint   next_point;
  guint64 interval_peak;
  /* Snapshots, by time. */
  PendingSnapshot *pending;
  guint            n_pending;
  guint            next_pending;
  GPtrArray       *snapshot_counts; /* per snapshot index: GArray of NodeCount */
  /* One more than the largest stack id seen: the reading thread owns the
   * tree. */
  guint32 n_stacks;
} Builder;

static guint
cross_hash (gconstpointer key)
{
  const CrossKey *k = key;

  return k->node * 2654435761u ^ (guint) k->alloc_tid * 40503u ^ (guint) k->free_tid;
}

static gboolean
cross_equal (gconstpointer a, gconstpointer b)
{
  const CrossKey *ka = a;
  const CrossKey *kb = b;

  return ka->node == kb->node && ka->alloc_tid == kb->alloc_tid && ka->free_tid == kb->free_tid;
}

static gboolean
id_listed (const gint32 *ids, gsize n_ids, gint32 id)
{
  for (gsize i = 0; i < n_ids; i++)
    if (ids[i] == id)
      return TRUE;
  return FALSE;
}

static gint64
add_saturating (gint64 base, gint64 offset)
{
  if (offset == G_MININT64 || offset == G_MAXINT64)
    return offset;
  if (offset > 0 && base > G_MAXINT64 - offset)
    return G_MAXINT64;
  if (offset < 0 && base < G_MININT64 - offset)
    return G_MININT64;
  return base + offset;
}

static gboolean
pid_kept (const SysprofMemoryOptions *options, gint32 pid)
{
  return options->n_pids == 0 || id_listed (options->pids, options->n_pids, pid);
}

static inline PidSlot *
pid_slot (Builder *builder, gint32 pid, gint64 time)
{
  PidSlot *slot = &builder->pid_slots[(guint32) pid & 255];

  if (G_UNLIKELY (!slot->valid || slot->pid != pid))
    {
      const SysprofMemoryOptions *options = builder->options;
      gpointer                    verdict = g_hash_table_lookup (builder->pid_verdicts, GINT_TO_POINTER (pid));

      slot->valid = TRUE;
      slot->pid = pid;
      if (verdict != NULL)
        slot->keep = GPOINTER_TO_UINT (verdict) == 1;
      else
        {
          slot->keep = pid_kept (options, pid);
          g_hash_table_insert (builder->pid_verdicts, GINT_TO_POINTER (pid), GUINT_TO_POINTER (slot->keep ? 1 : 2));
        }
      slot->process_node = slot->keep ? _sysprof_memory_stacks_process_node (&builder->stacks, pid, time) : 0;
    }
  return slot;
}

static GArray *
count_live_by_node (Builder *builder)
{
  g_autoptr (GArray) dense = g_array_new (FALSE, TRUE, sizeof (NodeCount));
  GArray *compact = g_array_new (FALSE, FALSE, sizeof (NodeCount));

  g_array_set_size (dense, builder->n_stacks);
  for (guint64 i = 0; i <= builder->live.mask; i++)
    {
      const SysprofMemoryLiveEntry *e = &builder->live.entries[i];

      if (e->address != 0)
        {
          NodeCount *c = &g_array_index (dense, NodeCount, e->stack);

          c->allocations++;
          c->bytes += e->size;
        }
    }
  for (guint32 i = 0; i < dense->len; i++)
    {
      NodeCount *c = &g_array_index (dense, NodeCount, i);

      if (c->allocations > 0)
        {
          c->node = i;
          g_array_append_val (compact, *c);
        }
    }
  return compact;
}

/* Points and snapshots at or before @time are taken before a record of
 * @time is applied; G_MAXINT64 takes them all. */
static inline void
reach_time (Builder *builder, gint64 time)
{
  SysprofMemoryAnalysis *self = builder->self;

  while (builder->next_point < self->n_points && builder->point_times[builder->next_point] < time)
    {
      SysprofMemoryPoint *point = &self->points[builder->next_point];

      point->live_bytes = builder->live_bytes;
      point->live_allocations = builder->live.n_entries;
      point->peak_bytes = MAX (builder->interval_peak, builder->live_bytes);
      builder->interval_peak = builder->live_bytes;
      builder->next_point++;
    }
  while (builder->next_pending < builder->n_pending && builder->pending[builder->next_pending].time < time)
    {
      g_ptr_array_index (builder->snapshot_counts, builder->pending[builder->next_pending].index) =
          count_live_by_node (builder);
      builder->next_pending++;
    }
}

static void
add_lost_events (Builder *builder, const SysprofCaptureMetadata *metadata)
{
  const char *text = metadata->metadata;
  guint64     n;
  char       *end;

  if (strncmp (metadata->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof metadata->id) != 0)
    return;
  if (metadata->frame.pid != -1 && !pid_kept (builder->options, metadata->frame.pid))
    return;
  if (!g_ascii_isdigit (text[0]))
    return;
  n = g_ascii_strtoull (text, &end, 10);
  builder->lost_events += n;
}

static inline guint
size_class (guint64 size)
{
  return 63 - (guint) __builtin_clzll (size);
}

static inline void
apply_allocation (Builder *builder, const Record *record)
{
  SysprofMemorySummary   *summary = &builder->self->summary;
  guint64                 size = record->size;
  SysprofMemoryLiveEntry *entry;
  Thread                 *thread;
  guint class;

  if (record->stack >= builder->n_stacks)
    builder->n_stacks = record->stack + 1;
  summary->allocations++;
  summary->bytes_allocated += size;
  class = size_class (size);
  summary->class_allocations[class]++;
  summary->class_bytes[class] += size;

  entry = _sysprof_memory_live_table_lookup (&builder->live, record->pid, record->address);
  if (entry->address != 0)
    {
      /* Its free was missed (or lost): the new block replaces it. */
      summary->unmatched_allocations++;
      summary->unmatched_allocation_bytes += entry->size;
      builder->live_bytes -= entry->size;
      *entry = (SysprofMemoryLiveEntry){ record->address, size, record->pid, record->tid, record->stack, 0 };
    }
  else
    {
      *entry = (SysprofMemoryLiveEntry){ record->address, size, record->pid, record->tid, record->stack, 0 };
      _sysprof_memory_live_table_commit_insert (&builder->live);
    }
  builder->live_bytes += size;
  if (builder->live_bytes > builder->interval_peak)
    builder->interval_peak = builder->live_bytes;
  if (builder->live_bytes > summary->peak_bytes)
    {
      summary->peak_bytes = builder->live_bytes;
      summary->peak_allocations = builder->live.n_entries;
      summary->peak_time_ns = record->time;
    }

  thread = threads_lookup (&builder->threads, record->pid, record->tid);
  thread->last_address = record->address;
}

static void
add_cross_thread (Builder *builder, const SysprofMemoryLiveEntry *entry, gint32 free_tid)
{
  CrossKey  key = { entry->stack, entry->tid, free_tid, 0, 0, 0 };
  CrossKey *found = g_hash_table_lookup (builder->cross, &key);

  if (found == NULL)
    {
      found = g_memdup2 (&key, sizeof key);
      g_hash_table_add (builder->cross, found);
    }
  found->frees++;
  found->bytes += entry->size;
}

static inline void
apply_free (Builder *builder, const Record *record)
{
  SysprofMemorySummary   *summary = &builder->self->summary;
  gint32                  pid = record->pid;
  SysprofMemoryLiveEntry *entry = _sysprof_memory_live_table_lookup (&builder->live, pid, record->address);
  Thread                 *thread;

  if (entry->address == 0)
    {
      /* Unknown to us; another thread's frees only count when they release
       * what the kept threads allocated. */
      if (record->tid_kept)
        {
          summary->unmatched_frees++;
          threads_lookup (&builder->threads, pid, record->tid);
        }
      return;
    }

  thread = threads_lookup (&builder->threads, pid, record->tid);
  summary->frees++;
  summary->bytes_freed += entry->size;
  builder->live_bytes -= entry->size;

  if (entry->tid != record->tid)
    {
      summary->cross_thread_frees++;
      summary->cross_thread_bytes += entry->size;
      add_cross_thread (builder, entry, record->tid);
    }
  else if (thread->last_address == record->address)
    {
      /* Live, by this thread, at the address of its last allocation: it is
       * that allocation (a later one by this thread at this address would
       * have replaced it), and nothing was allocated since. */
      NodeCount *c;

      if (entry->stack >= builder->temporary->len)
        g_array_set_size (builder->temporary, MAX (entry->stack + 1, builder->temporary->len * 2));
      c = &g_array_index (builder->temporary, NodeCount, entry->stack);
      c->allocations++;
      c->bytes += entry->size;
      summary->temporary_allocations++;
      summary->temporary_bytes += entry->size;
      thread->last_address = 0;
    }
  _sysprof_memory_live_table_remove (&builder->live, entry);
}

/* The analysing thread: applies the records in order. */
static gpointer
analyse_batches (gpointer data)
{
  Builder *builder = data;
  Batch   *batch;

  while ((batch = g_async_queue_pop (builder->full))->n_records > 0)
    {
      for (guint i = 0; i < batch->n_records; i++)
        {
          const Record *record = &batch->records[i];

          if (i + PREFETCH_AHEAD < batch->n_records)
            _sysprof_memory_live_table_prefetch (&builder->live, record[PREFETCH_AHEAD].pid,
                                                 record[PREFETCH_AHEAD].address);
          reach_time (builder, record->time);
          if (record->size > 0)
            apply_allocation (builder, record);
          else
            apply_free (builder, record);
        }
      batch->n_records = 0;
      g_async_queue_push (builder->empty, batch);
    }
  /* The end: an empty batch. */
  reach_time (builder, G_MAXINT64);
  g_free (batch);
  return NULL;
}

static Batch *
next_batch (Builder *builder, Batch *batch)
{
  g_async_queue_push (builder->full, batch);
  batch = g_async_queue_try_pop (builder->empty);
  if (batch == NULL)
    {
      batch = g_new (Batch, 1);
      batch->n_records = 0;
    }
  return batch;
}

/* One record, from an ALLOCATION frame or a stream, to the analysing
 * thread (the filters and the stack interning are the reading thread's). */
static inline __attribute__ ((always_inline)) void
take_event (Builder *builder, const SysprofAllocationEvent *event)
{
  const SysprofMemoryOptions *options = builder->options;
  PidSlot                    *slot;
  Record                     *record;
  Batch                      *batch = builder->batch;

  builder->records_read++;
  if (event->address == 0)
    return;
  if (event->time < builder->begin || event->time > builder->end)
    return;
  slot = pid_slot (builder, event->pid, event->time);
  if (!slot->keep)
    return;

  record = &batch->records[batch->n_records];
  record->time = event->time;
  record->address = event->address;
  record->size = event->size > 0 ? (guint64) event->size : 0;
  record->pid = event->pid;
  record->tid = event->tid;
  record->tid_kept = options->n_tids == 0 || id_listed (options->tids, options->n_tids, event->tid);
  record->stack = 0;
  if (record->size > 0)
    {
      if (!record->tid_kept)
        return;
      record->stack = _sysprof_memory_stacks_intern_event (&builder->stacks, slot->process_node, event);
    }
  if (++batch->n_records == BATCH_RECORDS)
    builder->batch = next_batch (builder, batch);
}

static void
note_frame_error (Builder *builder, SysprofCaptureReader *reader)
{
  if (builder->frame_errors++ == 0)
    builder->frame_error = g_strdup (sysprof_capture_reader_get_error (reader)->message);
}

/* The cursor's first pass hands over the METADATA frames (the lost events)
 * and, when the analysis takes them there, the ALLOCATION frames and the
 * stream chunks (to notice a capture holding both). */
static bool
take_frame (SysprofCaptureReader *reader, SysprofCaptureFrameType type, void *user_data)
{
  Builder *builder = user_data;

  if (builder->progress != NULL && (++builder->n_frames & 0xffff) == 0)
    builder->progress (sysprof_capture_reader_get_offset (reader), builder->bytes_total * 2, builder->progress_data);

  if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
    {
      const SysprofCaptureAllocation *a;
      SysprofAllocationEvent          event;

      if (builder->stream_seen)
        return !(builder->mixed = TRUE);
      if (!(a = sysprof_capture_reader_read_allocation (reader)))
        {
          note_frame_error (builder, reader);
          return true;
        }
      builder->first_pass_frames++;
      sysprof_allocation_event_from_frame (a, UINT64_MAX, &event);
      take_event (builder, &event);
    }
  else if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
    {
      /* Only the path is looked at: the cursor indexes the chunk. */
      const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);

      if (chunk != NULL &&
          strncmp (chunk->path, SYSPROF_MEMORY_STREAM_PATH_PREFIX, sizeof SYSPROF_MEMORY_STREAM_PATH_PREFIX - 1) == 0)
        {
          if (builder->first_pass_frames > 0 || builder->frame_errors > 0)
            return !(builder->mixed = TRUE);
          builder->stream_seen = TRUE;
        }
    }
  else
    {
      const SysprofCaptureMetadata *metadata = sysprof_capture_reader_read_metadata (reader);

      /* An unsound frame is stepped over, as the cursor does with any other. */
      if (metadata != NULL)
        add_lost_events (builder, metadata);
    }
  return true;
}

static void
first_pass_progress (uint64_t offset, void *user_data)
{
  Builder *builder = user_data;

  builder->progress (offset, builder->bytes_total * 2, builder->progress_data);
}

/* The reading thread (the caller's): the cursor, the filters and the stack
 * tree; the analysing thread does the rest.  Reading a capture costs about
 * as much as analysing it, and the two overlap.
 *
 * Every allocation comes from SysprofAllocationCursor, ALLOCATION frames and
 * memory streams alike, in time order (ALLOCATION frames in capture order,
 * as before).  The cursor reads the capture twice: a first pass over every
 * frame to find the streams' blocks, then the merge.  The other frames the
 * analysis needs, the METADATA of lost events, carry counts that do not
 * depend on time: they are taken in the first pass rather than in a pass
 * of their own or interleaved with the events.
 *
 * A capture holds ALLOCATION frames (older trackers, Sysprof 3.46) or
 * streams, hardly ever both.  So with @frames_in_first_pass the ALLOCATION
 * frames are analysed as the first pass meets them, in capture order, and
 * the merge only has the streams' events: a capture of frames is read once,
 * as fast as before the cursor.  When the first pass meets both forms it
 * stops (*@mixed), and the caller starts again without. */
static gboolean
read_records (Builder                 *builder,
              SysprofCaptureReader    *reader,
              gboolean                 frames_in_first_pass,
              gboolean                *mixed,
              SysprofCallgraphProgress progress,
              gpointer                 user_data,
              GError                 **error)
{
  SysprofMemoryAnalysis         *self = builder->self;
  const SysprofMemoryOptions    *options = builder->options;
  const SysprofCaptureError     *capture_error;
  SysprofAllocationCursorOptions cursor_options = {
    .size = sizeof cursor_options,
    .frame_types = 1u << SYSPROF_CAPTURE_FRAME_METADATA,
    .frame_func = take_frame,
    .progress = progress != NULL ? first_pass_progress : NULL,
    .user_data = builder,
  };
  SysprofAllocationCursor     *cursor;
  SysprofAllocationCursorStats stats;
  SysprofAllocationEvent       event;
  guint64                      n_events = 0;
  guint64                      read_offset = 0;
  const char                  *filename = sysprof_capture_reader_get_filename (reader);
  GStatBuf                     st;
  GThread                     *thread;

  *mixed = FALSE;
  if (frames_in_first_pass)
    cursor_options.frame_types |= 1u << SYSPROF_CAPTURE_FRAME_ALLOCATION | 1u << SYSPROF_CAPTURE_FRAME_FILE_CHUNK;
  if (progress != NULL && filename != NULL && g_stat (filename, &st) == 0 && S_ISREG (st.st_mode))
    builder->bytes_total = (guint64) st.st_size;
  builder->progress = progress;
  builder->progress_data = user_data;

  builder->batch = g_new (Batch, 1);
  builder->batch->n_records = 0;
  thread = g_thread_new ("memory-analysis", analyse_batches, builder);

  cursor = sysprof_allocation_cursor_new_full (reader, &cursor_options);
  while (cursor != NULL && sysprof_allocation_cursor_next (cursor, &event))
    {
      /* Stream events' offsets are not in order: the furthest so far. */
      if (progress != NULL && (++n_events & 0xffff) == 0)
        {
          read_offset = MAX (read_offset, sysprof_allocation_cursor_get_offset (cursor));
          progress (builder->bytes_total + MIN (read_offset, builder->bytes_total), builder->bytes_total * 2,
                    user_data);
        }
      take_event (builder, &event);
    }

  if (builder->batch->n_records > 0)
    builder->batch = next_batch (builder, builder->batch);
  g_async_queue_push (builder->full, g_steal_pointer (&builder->batch));
  g_thread_join (thread);

  if (cursor == NULL)
    {
      int saved = errno;

      if (builder->mixed)
        {
          *mixed = TRUE;
          return FALSE;
        }
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot read the allocation records: %s",
                   g_strerror (saved));
      return FALSE;
    }

  /* The streams' lost records, per process like the METADATA ones. */
  sysprof_allocation_cursor_get_stats (cursor, &stats);
  for (guint64 i = 0; i < stats.streams; i++)
    {
      SysprofAllocationStreamInfo info;

      if (sysprof_allocation_cursor_get_stream (cursor, i, &info) && pid_kept (options, info.pid))
        self->summary.lost_stream_events += info.lost;
    }
  self->summary.records_read = builder->records_read;
  self->summary.lost_events = builder->lost_events + self->summary.lost_stream_events;
  self->summary.record_errors = stats.errors + builder->frame_errors;
  if (builder->frame_errors > 0)
    self->record_error = g_strdup (builder->frame_error);
  else if (stats.errors > 0)
    self->record_error = g_strdup (sysprof_allocation_cursor_get_error (cursor));

  capture_error = sysprof_allocation_cursor_get_capture_error (cursor);
  if (capture_error->code != 0)
    {
      sysprof_set_capture_error (error, capture_error, NULL);
      sysprof_allocation_cursor_unref (cursor);
      return FALSE;
    }
  sysprof_allocation_cursor_unref (cursor);
  if (stats.allocation_frames == 0 && stats.streams == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "the capture has no allocation records; record with sysprof-cli --memprof");
      return FALSE;
    }

  if (progress != NULL)
    progress (builder->bytes_total * 2, builder->bytes_total * 2, user_data);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* From stack nodes to sites */

static GArray *
sites_of_counts (SysprofMemorySites *sites, const NodeCount *counts, guint n, gboolean dense)
{
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (SysprofMemorySite));

  for (guint i = 0; i < n; i++)
    if (counts[i].allocations > 0)
      _sysprof_memory_sites_accumulate (rows, index, _sysprof_memory_sites_get (sites, dense ? i : counts[i].node),
                                        counts[i].allocations, counts[i].bytes);
  g_array_sort (rows, _sysprof_memory_site_compare);
  return rows;
}

static gint
compare_cross (gconstpointer a, gconstpointer b)
{
  const SysprofMemoryCrossThread *ca = a;
  const SysprofMemoryCrossThread *cb = b;
  int                             cmp;

  if (ca->bytes != cb->bytes)
    return ca->bytes > cb->bytes ? -1 : 1;
  if (ca->frees != cb->frees)
    return ca->frees > cb->frees ? -1 : 1;
  if ((cmp = strcmp (ca->site->name, cb->site->name)) != 0)
    return cmp;
  if (ca->alloc_tid != cb->alloc_tid)
    return ca->alloc_tid < cb->alloc_tid ? -1 : 1;
  return ca->free_tid < cb->free_tid ? -1 : ca->free_tid > cb->free_tid;
}

typedef struct
{
  const SysprofSymbol *site;
  gint32               alloc_tid;
  gint32               free_tid;
} CrossSiteKey;

static guint
cross_site_hash (gconstpointer key)
{
  const CrossSiteKey *k = key;

  return g_direct_hash (k->site) ^ (guint) k->alloc_tid * 2654435761u ^ (guint) k->free_tid * 40503u;
}

static gboolean
cross_site_equal (gconstpointer a, gconstpointer b)
{
  const CrossSiteKey *ka = a;
  const CrossSiteKey *kb = b;

  return ka->site == kb->site && ka->alloc_tid == kb->alloc_tid && ka->free_tid == kb->free_tid;
}

/* Several stacks have the same site: their rows merge. */
static GArray *
cross_thread_rows (Builder *builder, SysprofMemorySites *sites)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (SysprofMemoryCrossThread));
  g_autoptr (GHashTable) index = g_hash_table_new_full (cross_site_hash, cross_site_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer       key;

  g_hash_table_iter_init (&iter, builder->cross);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const CrossKey *k = key;
      CrossSiteKey    site_key = { _sysprof_memory_sites_get (sites, k->node), k->alloc_tid, k->free_tid };
      guint           row = GPOINTER_TO_UINT (g_hash_table_lookup (index, &site_key));

      if (row == 0)
        {
          SysprofMemoryCrossThread empty = { site_key.site, k->alloc_tid, k->free_tid, 0, 0 };

          g_array_append_val (rows, empty);
          row = rows->len;
          g_hash_table_insert (index, g_memdup2 (&site_key, sizeof site_key), GUINT_TO_POINTER (row));
        }
      g_array_index (rows, SysprofMemoryCrossThread, row - 1).frees += k->frees;
      g_array_index (rows, SysprofMemoryCrossThread, row - 1).bytes += k->bytes;
    }
  g_array_sort (rows, compare_cross);
  return rows;
}

static void
build_results (SysprofMemoryAnalysis *self, Builder *builder)
{
  const SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (builder->stacks.stash);
  guint32                 n_nodes = _sysprof_stack_stash_get_n_nodes (builder->stacks.stash);
  g_autoptr (SysprofMemorySites) sites = NULL;
  g_autoptr (GArray) live = NULL;
  g_autoptr (GHashTable) pids = g_hash_table_new (NULL, NULL);
  GHashTableIter iter;
  gpointer       value;

  sites = _sysprof_memory_sites_new (self->symbolizer, nodes, n_nodes,
                                     (const gint64 *) (gpointer) builder->stacks.times->data, self->no_stack);

  live = count_live_by_node (builder);
  self->leaks = sites_of_counts (sites, (const NodeCount *) (gpointer) live->data, live->len, FALSE);
  self->temporary =
      sites_of_counts (sites, (const NodeCount *) (gpointer) builder->temporary->data, builder->temporary->len, TRUE);
  self->cross_thread = cross_thread_rows (builder, sites);
  for (guint i = 0; i < builder->snapshot_counts->len; i++)
    {
      GArray *counts = g_ptr_array_index (builder->snapshot_counts, i);

      g_ptr_array_add (self->snapshots,
                       sites_of_counts (sites, (const NodeCount *) (gpointer) counts->data, counts->len, FALSE));
    }

  self->summary.live_allocations = builder->live.n_entries;
  self->summary.live_bytes = builder->live_bytes;
  if (self->summary.peak_bytes > 0)
    self->summary.peak_time_ns -= self->start_time;

  g_hash_table_iter_init (&iter, builder->threads.by_key);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const Thread *thread = value;

      self->summary.n_threads++;
      g_hash_table_add (pids, GINT_TO_POINTER (thread->pid));
    }
  self->summary.n_processes = g_hash_table_size (pids);
}

static gint
compare_pending (gconstpointer a, gconstpointer b)
{
  const PendingSnapshot *pa = a;
  const PendingSnapshot *pb = b;

  if (pa->time != pb->time)
    return pa->time < pb->time ? -1 : 1;
  return pa->index < pb->index ? -1 : pa->index > pb->index;
}

static void
builder_init (Builder *builder, SysprofMemoryAnalysis *self, const SysprofMemoryOptions *options)
{
  memset (builder, 0, sizeof *builder);
  builder->self = self;
  builder->options = options;
  _sysprof_memory_stacks_init (&builder->stacks);
  _sysprof_memory_live_table_init (&builder->live);
  builder->threads.by_key = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  builder->pid_verdicts = g_hash_table_new (NULL, NULL);
  builder->temporary = g_array_new (FALSE, TRUE, sizeof (NodeCount));
  builder->cross = g_hash_table_new_full (cross_hash, cross_equal, g_free, NULL);
  builder->snapshot_counts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  builder->full = g_async_queue_new ();
  builder->empty = g_async_queue_new_full (g_free);
}

static void
builder_clear (Builder *builder)
{
  _sysprof_memory_stacks_clear (&builder->stacks);
  _sysprof_memory_live_table_clear (&builder->live);
  g_clear_pointer (&builder->threads.by_key, g_hash_table_unref);
  g_clear_pointer (&builder->pid_verdicts, g_hash_table_unref);
  g_clear_pointer (&builder->temporary, g_array_unref);
  g_clear_pointer (&builder->cross, g_hash_table_unref);
  g_clear_pointer (&builder->point_times, g_free);
  g_clear_pointer (&builder->pending, g_free);
  g_clear_pointer (&builder->snapshot_counts, g_ptr_array_unref);
  g_clear_pointer (&builder->full, g_async_queue_unref);
  g_clear_pointer (&builder->empty, g_async_queue_unref);
  g_clear_pointer (&builder->frame_error, g_free);
}

/* Point i of n at lo + (hi - lo) * i / (n - 1), without overflow. */
static void
plan_points (SysprofMemoryAnalysis *self, Builder *builder, SysprofCaptureReader *reader)
{
  const SysprofMemoryOptions *options = builder->options;
  gint64                      lo = MAX (builder->begin, self->start_time);
  gint64                      hi = builder->end;
  guint                       n = options->n_points;

  if (n == 0)
    return;
  if (options->end_ns == G_MAXINT64)
    hi = sysprof_capture_reader_get_end_time (reader);
  if (hi < lo)
    hi = lo;
  self->n_points = n;
  self->points = g_new0 (SysprofMemoryPoint, n);
  builder->point_times = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    {
      guint64 span = (guint64) hi - (guint64) lo;
      guint64 offset = n == 1 ? span : span / (n - 1) * i + span % (n - 1) * i / (n - 1);

      builder->point_times[i] = lo + (gint64) offset;
      self->points[i].time_ns = builder->point_times[i] - self->start_time;
    }
}

static void
builder_start (Builder                    *builder,
               SysprofMemoryAnalysis      *self,
               const SysprofMemoryOptions *options,
               SysprofCaptureReader       *reader)
{
  builder_init (builder, self, options);
  builder->begin = add_saturating (self->start_time, options->begin_ns);
  builder->end = add_saturating (self->start_time, options->end_ns);
  plan_points (self, builder, reader);
  if (options->n_snapshots > 0)
    {
      builder->n_pending = (guint) options->n_snapshots;
      builder->pending = g_new (PendingSnapshot, builder->n_pending);
      for (guint i = 0; i < builder->n_pending; i++)
        builder->pending[i] = (PendingSnapshot){ add_saturating (self->start_time, options->snapshot_ns[i]), i };
      qsort (builder->pending, builder->n_pending, sizeof *builder->pending, compare_pending);
      g_ptr_array_set_size (builder->snapshot_counts, (guint) builder->n_pending);
    }
}

typedef struct
{
  SysprofSymbolizer    *symbolizer;
  SysprofCaptureReader *reader;
  GError               *error;
} SymbolLoad;

static gpointer
load_symbols (gpointer data)
{
  SymbolLoad *load = data;

  sysprof_symbolizer_load (load->symbolizer, load->reader, &load->error);
  return NULL;
}

SysprofMemoryAnalysis *
sysprof_memory_analysis_new (SysprofCaptureReader       *reader,
                             SysprofSymbolizer          *symbolizer,
                             const SysprofMemoryOptions *options,
                             SysprofCallgraphProgress    progress,
                             gpointer                    user_data,
                             GError                    **error)
{
  static const SysprofMemoryOptions defaults = SYSPROF_MEMORY_OPTIONS_INIT;
  g_autoptr (SysprofMemoryAnalysis) self = NULL;
  SysprofSymbol *no_stack;
  Builder        builder;
  gboolean       ok;
  gboolean       mixed;
  SymbolLoad     load = { NULL, NULL, NULL };
  GThread       *loader = NULL;

  g_return_val_if_fail (reader != NULL, NULL);
  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (symbolizer), NULL);
  g_return_val_if_fail (options == NULL || options->size >= sizeof (SysprofMemoryOptions), NULL);
  g_return_val_if_fail (options == NULL || options->n_pids == 0 || options->pids != NULL, NULL);
  g_return_val_if_fail (options == NULL || options->n_tids == 0 || options->tids != NULL, NULL);
  g_return_val_if_fail (options == NULL || options->n_snapshots == 0 || options->snapshot_ns != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (options == NULL)
    options = &defaults;

  self = g_object_new (SYSPROF_TYPE_MEMORY_ANALYSIS, NULL);
  self->symbolizer = g_object_ref (symbolizer);
  no_stack = g_malloc0 (sizeof *no_stack + sizeof "[no stack]");
  memcpy (no_stack + 1, "[no stack]", sizeof "[no stack]");
  no_stack->name = (const char *) (no_stack + 1);
  no_stack->library = "";
  no_stack->kind = SYSPROF_SYMBOL_CONTEXT;
  self->no_stack = no_stack;

  if (!sysprof_capture_reader_reset (reader))
    {
      sysprof_set_capture_error (error, sysprof_capture_reader_get_error (reader), "The capture cannot be rewound");
      return NULL;
    }
  self->start_time = sysprof_capture_reader_get_start_time (reader);

  builder_start (&builder, self, options, reader);
  /* get_end_time may have scanned the file. */
  if (self->n_points > 0 && !sysprof_capture_reader_reset (reader))
    {
      builder_clear (&builder);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The capture cannot be rewound.");
      return NULL;
    }

  if (options->load_symbolizer)
    {
      load.symbolizer = symbolizer;
      load.reader = sysprof_capture_reader_copy (reader);
      if (load.reader != NULL)
        loader = g_thread_new ("memory-symbols", load_symbols, &load);
      else if (!sysprof_symbolizer_load (symbolizer, reader, error))
        {
          /* A reader that cannot be copied: one pass after the other. */
          builder_clear (&builder);
          return NULL;
        }
    }

  ok = read_records (&builder, reader, TRUE, &mixed, progress, user_data, error);
  if (mixed)
    {
      /* ALLOCATION frames and streams: again, all merged in time order. */
      builder_clear (&builder);
      memset (&self->summary, 0, sizeof self->summary);
      g_clear_pointer (&self->points, g_free);
      self->n_points = 0;
      builder_start (&builder, self, options, reader);
      ok = read_records (&builder, reader, FALSE, &mixed, progress, user_data, error);
    }
  if (loader != NULL)
    {
      g_thread_join (loader);
      sysprof_capture_reader_unref (load.reader);
      if (load.error != NULL)
        {
          if (ok)
            g_propagate_error (error, g_steal_pointer (&load.error));
          g_clear_error (&load.error);
          ok = FALSE;
        }
    }
  if (ok)
    build_results (self, &builder);
  builder_clear (&builder);
  return ok ? g_steal_pointer (&self) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Results */

const SysprofMemorySummary *
sysprof_memory_analysis_get_summary (SysprofMemoryAnalysis *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);

  return &self->summary;
}

GArray *
sysprof_memory_analysis_list_leaks (SysprofMemoryAnalysis *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);

  return g_array_copy (self->leaks);
}

GArray *
sysprof_memory_analysis_list_temporary (SysprofMemoryAnalysis *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);

  return g_array_copy (self->temporary);
}

GArray *
sysprof_memory_analysis_list_cross_thread (SysprofMemoryAnalysis *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);

  return g_array_copy (self->cross_thread);
}

const SysprofMemoryPoint *
sysprof_memory_analysis_get_points (SysprofMemoryAnalysis *self, guint *n_points)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);
  g_return_val_if_fail (n_points != NULL, NULL);

  *n_points = self->n_points;
  return self->points;
}

const char *
sysprof_memory_analysis_get_record_error (SysprofMemoryAnalysis *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);

  return self->record_error;
}

gint64
sysprof_memory_analysis_get_start_time (SysprofMemoryAnalysis *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), 0);

  return self->start_time;
}
