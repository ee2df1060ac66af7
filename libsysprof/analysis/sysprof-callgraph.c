// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "sysprof-capture-error.h"
#include "sysprof-callgraph.h"
#include "sysprof-callgraph-samples-private.h"
#include "sysprof-allocators.h"
#include "sysprof-memory-live-table-private.h"
#include "sysprof-perf-recorder.h"
#include "sysprof-stack-cache-private.h"
#include "sysprof-stack-stash-private.h"
#include "sysprof-symbolizer.h"

/* Tags of the raw tree (stack of addresses).  An address node's tag is the
 * perf context it was sampled in (SysprofAddressContext, NONE when the
 * sample carried no marker); context and process nodes are flagged. */
#define TAG_CONTEXT 0x100u /* | the context; key 0 */
#define TAG_PROCESS 0x200u /* key: the pid */
/* | the context: a user address that is a return address (every user frame
 * but the innermost), whose source line is that of the call before it. */
#define TAG_CALLER 0x8u

/* Perf context markers are the addresses -32 … -2560: one comparison keeps
 * the call out of the loop over ordinary addresses. */
#define MARKER_MIN ((SysprofCaptureAddress) -4096)

/* Without a context marker, addresses from here on are the kernel's
 * (x86-64, aarch64). */
#define USER_ADDRESS_END G_GUINT64_CONSTANT (0xffff800000000000)

/* The largest stack a SAMPLE frame holds (n_addrs is 16 bits), plus the
 * context node that may close it. */
#define MAX_KEYS (G_MAXUINT16 + 1)

/* The size of SysprofCallgraphFilter before focus and hide were added:
 * callers built against it still work, with the later fields' defaults. */
#define FILTER_SIZE_1 G_STRUCT_OFFSET (SysprofCallgraphFilter, focus)

/* What the filter's focus and hide lists say of a function. */
#define MARK_FOCUS 1u
#define MARK_HIDE  2u

/* A raw node that the focus leaves out of the tree (above every focused
 * frame); the tree's node numbers never reach it. */
#define UNMAPPED G_MAXUINT32

struct _SysprofCallgraph
{
  GObject parent_instance;

  SysprofSymbolizer        *symbolizer;
  SysprofCallgraphFunction *functions;
  guint                     n_functions;
  guint                     functions_allocated;
  SysprofCallgraphNode     *nodes;
  guint                     n_nodes;
  guint64                   n_samples;
  guint64                   n_samples_read;
  char                     *unwind_summary; /* METADATA sysprof.unwind, or NULL */
  guint64                   n_record_errors;
  guint64                   n_bytes;
  SysprofCallgraphSource    source;
  gboolean                  lines;   /* functions are (symbol, file, line) */
  SysprofSampleLog         *samples; /* the filter's keep_samples */

  /* While building. */
  GHashTable *symbol_functions;  /* const SysprofSymbol * → function index + 1 */
  GHashTable *process_functions; /* label → function index + 1 */
  guint       context_functions[8];
  GPtrArray  *owned_symbols; /* SysprofSymbol + label in one block each */
};

G_DEFINE_FINAL_TYPE (SysprofCallgraph, sysprof_callgraph, G_TYPE_OBJECT)

static void
sysprof_callgraph_finalize (GObject *object)
{
  SysprofCallgraph *self = SYSPROF_CALLGRAPH (object);

  g_clear_object (&self->symbolizer);
  g_clear_pointer (&self->unwind_summary, g_free);
  _sysprof_table_free (self->functions, self->functions_allocated * sizeof *self->functions);
  _sysprof_table_free (self->nodes, self->n_nodes * sizeof *self->nodes);
  g_clear_pointer (&self->symbol_functions, g_hash_table_unref);
  g_clear_pointer (&self->process_functions, g_hash_table_unref);
  g_clear_pointer (&self->owned_symbols, g_ptr_array_unref);
  g_clear_pointer (&self->samples, _sysprof_sample_log_free);

  G_OBJECT_CLASS (sysprof_callgraph_parent_class)->finalize (object);
}

static void
sysprof_callgraph_class_init (SysprofCallgraphClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_callgraph_finalize;
}

static void
sysprof_callgraph_init (SysprofCallgraph *self)
{
  self->symbol_functions = g_hash_table_new (NULL, NULL);
  self->process_functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->owned_symbols = g_ptr_array_new_with_free_func (g_free);
}

void
sysprof_callgraph_filter_init (SysprofCallgraphFilter *filter)
{
  g_return_if_fail (filter != NULL);

  *filter = (SysprofCallgraphFilter) SYSPROF_CALLGRAPH_FILTER_INIT;
}

/* ------------------------------------------------------------------------ */
/* Functions */

static guint
add_function (SysprofCallgraph *self, const SysprofSymbol *symbol, SysprofCallgraphFunctionKind kind)
{
  guint index = self->n_functions;

  if (G_UNLIKELY (index == self->functions_allocated))
    self->functions = _sysprof_table_grow (self->functions, sizeof *self->functions, &self->functions_allocated);
  self->functions[index] = (SysprofCallgraphFunction){ .symbol = symbol, .kind = kind, .index = index };
  self->n_functions++;
  return index;
}

/* A symbol of the callgraph's own (root, process, context): the struct and
 * its name in one block. */
static const SysprofSymbol *
new_owned_symbol (SysprofCallgraph *self, const char *name)
{
  gsize          len = strlen (name) + 1;
  SysprofSymbol *symbol = g_malloc (sizeof *symbol + len);
  char          *copy = (char *) (symbol + 1);

  memcpy (copy, name, len);
  symbol->name = copy;
  symbol->library = "";
  symbol->kind = SYSPROF_SYMBOL_CONTEXT;
  g_ptr_array_add (self->owned_symbols, symbol);
  return symbol;
}

static guint
process_function (SysprofCallgraph *self, gint32 pid)
{
  const char      *name = sysprof_symbolizer_get_process_name (self->symbolizer, pid);
  g_autofree char *label = name != NULL ? g_strdup_printf ("[%s]", name) : g_strdup_printf ("[Process %d]", pid);
  gpointer         found = g_hash_table_lookup (self->process_functions, label);
  guint            index;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  index = add_function (self, new_owned_symbol (self, label), SYSPROF_CALLGRAPH_FUNCTION_PROCESS);
  g_hash_table_insert (self->process_functions, g_steal_pointer (&label), GUINT_TO_POINTER (index + 1));
  return index;
}

static guint
context_function (SysprofCallgraph *self, SysprofAddressContext context)
{
  const char *label;

  if ((guint) context >= G_N_ELEMENTS (self->context_functions))
    context = SYSPROF_ADDRESS_CONTEXT_NONE;
  /* "- - unknown - -" for NONE. */
  label = sysprof_address_context_to_string (context);
  if (self->context_functions[context] == 0)
    self->context_functions[context] =
        add_function (self, new_owned_symbol (self, label), SYSPROF_CALLGRAPH_FUNCTION_CONTEXT) + 1;
  return self->context_functions[context] - 1;
}

static guint
symbol_function (SysprofCallgraph *self, const SysprofSymbol *symbol)
{
  gpointer found = g_hash_table_lookup (self->symbol_functions, symbol);
  guint    index;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  index = add_function (self, symbol, SYSPROF_CALLGRAPH_FUNCTION_CODE);
  g_hash_table_insert (self->symbol_functions, (gpointer) symbol, GUINT_TO_POINTER (index + 1));
  return index;
}

/* The function a frame stands for: its symbol's, or with lines its own
 * (frames are interned like symbols, so the pointer is the identity). */
static guint
frame_function (SysprofCallgraph *self, const SysprofSymbolFrame *frame)
{
  gpointer found;
  guint    index;

  if (!self->lines)
    return symbol_function (self, frame->symbol);
  if ((found = g_hash_table_lookup (self->symbol_functions, frame)) != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  index = add_function (self, frame->symbol, SYSPROF_CALLGRAPH_FUNCTION_CODE);
  self->functions[index].file = frame->file;
  self->functions[index].line = frame->line;
  g_hash_table_insert (self->symbol_functions, (gpointer) frame, GUINT_TO_POINTER (index + 1));
  return index;
}

static inline const SysprofCallgraphFunction *
function_at (SysprofCallgraph *self, guint index)
{
  return &self->functions[index];
}

/* ------------------------------------------------------------------------ */
/* Reading */

typedef struct
{
  const SysprofCallgraphFilter *filter;
  SysprofSymbolizer            *symbolizer;
  GHashTable                   *pid_verdicts; /* pid → 1 keep, 2 drop */
  gint64                        begin;        /* absolute times, inclusive */
  gint64                        end;
} FilterState;

static gboolean
comm_matches (const char *name, const char *comm)
{
  const char *space;
  const char *slash;
  gsize       len;

  if (g_str_equal (name, comm))
    return TRUE;
  space = strchr (name, ' ');
  len = space != NULL ? (gsize) (space - name) : strlen (name);
  for (slash = name + len; slash > name && slash[-1] != '/'; slash--)
    ;
  len -= (gsize) (slash - name);
  if (strlen (comm) == len && strncmp (slash, comm, len) == 0)
    return TRUE;
  /* A name the kernel cut to its 15 characters (TASK_COMM_LEN, what a
   * process started during the recording is named by): the name asked for
   * starting with it. */
  return strlen (name) == 15 && strchr (name, ' ') == NULL && g_str_has_prefix (comm, name);
}

static gboolean
pid_passes (FilterState *state, gint32 pid)
{
  const SysprofCallgraphFilter *filter = state->filter;
  gpointer                      verdict = g_hash_table_lookup (state->pid_verdicts, GINT_TO_POINTER (pid));
  gboolean                      keep = TRUE;

  if (verdict != NULL)
    return GPOINTER_TO_UINT (verdict) == 1;

  if (filter->n_pids > 0)
    {
      keep = FALSE;
      for (gsize i = 0; i < filter->n_pids && !keep; i++)
        keep = filter->pids[i] == pid;
    }
  if (keep && filter->n_comms > 0)
    {
      const char *name = sysprof_symbolizer_get_process_name (state->symbolizer, pid);

      keep = FALSE;
      for (gsize i = 0; name != NULL && i < filter->n_comms && !keep; i++)
        keep = comm_matches (name, filter->comms[i]);
    }

  g_hash_table_insert (state->pid_verdicts, GINT_TO_POINTER (pid), GUINT_TO_POINTER (keep ? 1 : 2));
  return keep;
}

static gboolean
tid_passes (const SysprofCallgraphFilter *filter, gint32 tid)
{
  for (gsize i = 0; i < filter->n_tids; i++)
    if (filter->tids[i] == tid)
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

static inline gboolean
context_has_node (SysprofAddressContext context)
{
  return context != SYSPROF_ADDRESS_CONTEXT_NONE && context != SYSPROF_ADDRESS_CONTEXT_USER;
}

static inline gboolean
context_is_kernel (SysprofAddressContext context)
{
  return context == SYSPROF_ADDRESS_CONTEXT_KERNEL || context == SYSPROF_ADDRESS_CONTEXT_HYPERVISOR ||
         context == SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL;
}

typedef struct
{
  SysprofStackStash *stash;
  gint64            *times; /* per raw node: the first sample that made it */
  guint32            times_allocated;
  guint64           *keys; /* MAX_KEYS each: one sample's path, filled from the end */
  guint32           *tags;
  gboolean           no_kernel;
  /* Allocation sources: bytes per raw node (those that end an allocation). */
  GArray *bytes;
  /* Judges which user addresses can be code. */
  SysprofSymbolizer *symbolizer;
  /* The filter's keep_samples: every sample that counts, or NULL. */
  SysprofSampleLog *log;
} RawBuilder;

/* The raw nodes from @from on were made by a sample at @time. */
static void
raw_set_times (RawBuilder *raw, guint32 from, gint64 time)
{
  guint32 n = _sysprof_stack_stash_get_n_nodes (raw->stash);

  while (raw->times_allocated < n)
    raw->times = _sysprof_table_grow (raw->times, sizeof *raw->times, &raw->times_allocated);
  for (guint32 i = from; i < n; i++)
    raw->times[i] = time;
}

static inline guint32
raw_child (RawBuilder *raw, guint32 parent, guint64 key, guint32 tag, gint64 time)
{
  gboolean created;
  guint32  node = _sysprof_stack_stash_child (raw->stash, parent, key, tag, &created);

  if (G_UNLIKELY (created))
    raw_set_times (raw, node, time);
  return node;
}

/* Turns the sample into keys: addresses tagged with their context, and a
 * context node at the outer end of every run in a non-user context (where
 * Sysprof 3.46 puts "- - kernel - -").  The addresses come innermost first,
 * so the keys are written from the end of the buffer backwards and come out
 * outermost first.  Then the path is added below @process_node; returns its
 * innermost node. */
static guint32
add_sample (RawBuilder *raw, guint32 process_node, gint32 pid, const SysprofCaptureAddress *addrs, guint n, gint64 time)
{
  SysprofAddressContext context = SYSPROF_ADDRESS_CONTEXT_NONE;
  gboolean              dropping = FALSE;
  gboolean              caller = FALSE; /* a user frame was met in this run */
  guint                 pos = MAX_KEYS;
  guint32               n_before = _sysprof_stack_stash_get_n_nodes (raw->stash);
  guint32               node;

  for (guint i = 0; i < n; i++)
    {
      SysprofCaptureAddress address = addrs[i];
      SysprofAddressContext next;

      if (G_UNLIKELY (address >= MARKER_MIN) && sysprof_address_is_context_switch (address, &next))
        {
          if (context_has_node (context))
            {
              pos--;
              raw->keys[pos] = 0;
              raw->tags[pos] = TAG_CONTEXT | context;
            }
          context = next;
          dropping = raw->no_kernel && context_is_kernel (context);
          caller = FALSE;
          continue;
        }
      /* Address 0 is where a frame-pointer walk through code built without
       * frame pointers ends up: no frame, and no place to show it. */
      if (dropping || address == 0)
        continue;
      /* A user address that cannot be code is data a frame-pointer walk
       * took for a return address: the stack ends before it, since what
       * the walk found beyond it is no better. */
      if ((context == SYSPROF_ADDRESS_CONTEXT_USER ||
           (context == SYSPROF_ADDRESS_CONTEXT_NONE && address < USER_ADDRESS_END)) &&
          !sysprof_symbolizer_is_code_address (raw->symbolizer, pid, time, address))
        break;
      pos--;
      raw->keys[pos] = address;
      raw->tags[pos] = context;
      if (context == SYSPROF_ADDRESS_CONTEXT_USER || context == SYSPROF_ADDRESS_CONTEXT_NONE)
        {
          raw->tags[pos] |= caller ? TAG_CALLER : 0;
          caller = TRUE;
        }
    }
  if (context_has_node (context))
    {
      pos--;
      raw->keys[pos] = 0;
      raw->tags[pos] = TAG_CONTEXT | context;
    }

  node = _sysprof_stack_stash_add_path (raw->stash, process_node, &raw->keys[pos], &raw->tags[pos], MAX_KEYS - pos);

  /* The nodes this sample created: resolve them at its time. */
  if (_sysprof_stack_stash_get_n_nodes (raw->stash) > n_before)
    raw_set_times (raw, n_before, time);
  return node;
}

/* ------------------------------------------------------------------------ */
/* Most samples repeat a stack seen before: the stack cache finds its
 * innermost node, and the count stays in the cache entry until the end. */

typedef struct
{
  gint32   pid;
  gboolean valid;
  guint32  node; /* the process node, 0 when the filter drops the pid */
} PidSlot;

/* The allocation sources: every allocation through SysprofAllocationCursor,
 * ALLOCATION frames and memory streams alike. */
typedef struct
{
  SysprofCallgraph             *self;
  const SysprofCallgraphFilter *filter;
  RawBuilder                   *raw;
  FilterState                   state;
  PidSlot                       pid_slots[256]; /* by pid & 255 */
  SysprofStackCache             cache;
  SysprofStackKeyCache          by_key; /* stream events' stacks */
  SysprofMemoryLiveTable        live;   /* the leak source's */
  gboolean                      leaks;
  char                         *unwind_summary;
  guint64                       frame_errors;
  SysprofCallgraphProgress      progress;
  gpointer                      progress_data;
  guint64                       bytes_total;
  guint64                       n_frames;
} AllocationReading;

static guint32
allocation_node (AllocationReading *r, guint32 process_node, const SysprofAllocationEvent *event)
{
  SysprofStackKeySlot    *slot = NULL;
  SysprofStackCacheEntry *entry;
  guint64                 hash_a, hash_b;
  guint32                 node;

  /* A stream event names its stack by a key: no hash of the frames. */
  if (event->stack_key != 0 && (slot = _sysprof_stack_key_cache_lookup (&r->by_key, event->stack_key)) != NULL &&
      G_LIKELY (slot->node != 0 && slot->pid == event->pid))
    {
      if (!r->leaks)
        _sysprof_stack_stash_get_nodes (r->raw->stash)[slot->node].self++;
      return slot->node;
    }

  _sysprof_stack_cache_hash (event->pid, event->frames, event->n_frames, &hash_a, &hash_b);
  entry = _sysprof_stack_cache_lookup (&r->cache, hash_a, hash_b);
  if (G_LIKELY (entry->node != 0))
    {
      if (!r->leaks)
        entry->count++;
      node = entry->node;
    }
  else
    {
      node = add_sample (r->raw, process_node, event->pid, event->frames, event->n_frames, event->time);
      *entry = (SysprofStackCacheEntry){ hash_a, hash_b, node, 0, r->leaks ? 0 : 1 };
      _sysprof_stack_cache_commit_insert (&r->cache);
    }
  if (slot != NULL && slot->node == 0)
    *slot = (SysprofStackKeySlot){ event->pid, node };
  return node;
}

static void
take_allocation (AllocationReading *r, const SysprofAllocationEvent *event)
{
  SysprofCallgraph *self = r->self;
  RawBuilder       *raw = r->raw;
  PidSlot          *pid_slot;
  guint64           size;
  guint32           node;

  if (event->address == 0)
    return;
  if (event->size <= 0)
    {
      SysprofMemoryLiveEntry *live_entry;

      /* A free: only the live allocations of the leak source care. */
      if (!r->leaks || event->time < r->state.begin || event->time > r->state.end)
        return;
      live_entry = _sysprof_memory_live_table_lookup (&r->live, event->pid, event->address);
      if (live_entry->address != 0)
        {
          if (r->raw->log != NULL && live_entry->padding != 0)
            _sysprof_sample_log_drop (r->raw->log, live_entry->padding - 1);
          _sysprof_memory_live_table_remove (&r->live, live_entry);
        }
      return;
    }
  self->n_samples_read++;
  size = (guint64) event->size;

  pid_slot = &r->pid_slots[(guint32) event->pid & (G_N_ELEMENTS (r->pid_slots) - 1)];
  if (G_UNLIKELY (!pid_slot->valid || pid_slot->pid != event->pid))
    {
      pid_slot->valid = TRUE;
      pid_slot->pid = event->pid;
      pid_slot->node = 0;
      if (pid_passes (&r->state, pid_slot->pid))
        pid_slot->node = raw_child (raw, SYSPROF_STACK_STASH_ROOT, (guint32) pid_slot->pid, TAG_PROCESS, event->time);
    }
  if (pid_slot->node == 0)
    return;
  if (r->filter->n_tids > 0 && !tid_passes (r->filter, event->tid))
    return;
  if (event->time < r->state.begin || event->time > r->state.end)
    return;

  node = allocation_node (r, pid_slot->node, event);
  if (!r->leaks)
    {
      if (raw->bytes->len <= node)
        g_array_set_size (raw->bytes, _sysprof_stack_stash_get_n_nodes (raw->stash));
      g_array_index (raw->bytes, guint64, node) += size;
      self->n_samples++;
      self->n_bytes += size;
      if (raw->log != NULL)
        _sysprof_sample_log_add (raw->log, node, event->tid, event->cpu, event->time,
                                 r->filter->weight == SYSPROF_CALLGRAPH_WEIGHT_BYTES ? size : 1, size);
    }
  else
    {
      SysprofMemoryLiveEntry *live_entry = _sysprof_memory_live_table_lookup (&r->live, event->pid, event->address);
      gboolean                is_new = live_entry->address == 0;
      guint32                 record = 0; /* the sample log's index + 1 */

      /* A live address allocated again: its free was missed. */
      if (raw->log != NULL)
        {
          if (!is_new && live_entry->padding != 0)
            _sysprof_sample_log_drop (raw->log, live_entry->padding - 1);
          record = _sysprof_sample_log_add (raw->log, node, event->tid, event->cpu, event->time,
                                            r->filter->weight == SYSPROF_CALLGRAPH_WEIGHT_BYTES ? size : 1, size) +
                   1;
        }
      *live_entry = (SysprofMemoryLiveEntry){ event->address, size, event->pid, event->tid, node, record };
      if (is_new)
        _sysprof_memory_live_table_commit_insert (&r->live);
    }
}

/* The cursor's first pass: METADATA (how the recorder unwound the stacks,
 * the last one counts) and the ALLOCATION frames, in capture order. */
static bool
take_allocation_frame (SysprofCaptureReader *reader, SysprofCaptureFrameType type, void *user_data)
{
  AllocationReading *r = user_data;

  if (r->progress != NULL && (++r->n_frames & 0xffff) == 0)
    r->progress (sysprof_capture_reader_get_offset (reader), r->bytes_total * 2, r->progress_data);

  if (type == SYSPROF_CAPTURE_FRAME_METADATA)
    {
      const SysprofCaptureMetadata *meta = sysprof_capture_reader_read_metadata (reader);

      if (meta != NULL && strncmp (meta->id, SYSPROF_UNWIND_METADATA_ID, sizeof meta->id) == 0)
        {
          g_free (r->unwind_summary);
          r->unwind_summary = g_strndup (meta->metadata, meta->frame.len - sizeof *meta);
        }
    }
  else
    {
      const SysprofCaptureAllocation *a = sysprof_capture_reader_read_allocation (reader);
      SysprofAllocationEvent          event;

      if (a == NULL)
        {
          r->frame_errors++;
          return true;
        }
      sysprof_allocation_event_from_frame (a, UINT64_MAX, &event);
      take_allocation (r, &event);
    }
  return true;
}

/* The allocation sources.  Their results are per process (counts of
 * stacks; leaks keyed by (pid, address)): the ALLOCATION frames are taken
 * in the cursor's first pass, in capture order, and the streams' events
 * then, merged in time order.  One pass over a capture of frames, as
 * before; exact as long as a process's records are all in one form, which
 * is how every tracker writes them. */
static gboolean
read_allocations (SysprofCallgraph             *self,
                  SysprofCaptureReader         *reader,
                  const SysprofCallgraphFilter *filter,
                  RawBuilder                   *raw,
                  SysprofCallgraphProgress      progress,
                  gpointer                      user_data,
                  GError                      **error)
{
  g_autoptr (GHashTable) pid_verdicts = g_hash_table_new (NULL, NULL);
  gint64                         start = sysprof_capture_reader_get_start_time (reader);
  const char                    *filename = sysprof_capture_reader_get_filename (reader);
  AllocationReading              r = { 0 };
  SysprofAllocationCursorOptions options = {
    .size = sizeof options,
    .frame_types = 1u << SYSPROF_CAPTURE_FRAME_METADATA | 1u << SYSPROF_CAPTURE_FRAME_ALLOCATION,
    .frame_func = take_allocation_frame,
    .user_data = &r,
  };
  SysprofAllocationCursor     *cursor;
  SysprofAllocationCursorStats stats;
  SysprofAllocationEvent       event;
  const SysprofCaptureError   *capture_error;
  GStatBuf                     st;
  gboolean                     ok = TRUE;
  guint64                      n_events = 0;
  guint64                      read_offset = 0;

  r.self = self;
  r.filter = filter;
  r.raw = raw;
  r.state = (FilterState){ filter, self->symbolizer, pid_verdicts, add_saturating (start, filter->begin_ns),
                           add_saturating (start, filter->end_ns) };
  r.leaks = self->source == SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS;
  r.progress = progress;
  r.progress_data = user_data;
  if (progress != NULL && filename != NULL && g_stat (filename, &st) == 0 && S_ISREG (st.st_mode))
    r.bytes_total = (guint64) st.st_size;
  _sysprof_stack_cache_init (&r.cache);
  if (r.leaks)
    _sysprof_memory_live_table_init (&r.live);

  cursor = sysprof_allocation_cursor_new_full (reader, &options);
  if (cursor == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot read the allocation records: %s",
                   g_strerror (saved));
      ok = FALSE;
    }
  while (ok && sysprof_allocation_cursor_next (cursor, &event))
    {
      if (progress != NULL && (++n_events & 0xffff) == 0)
        {
          read_offset = MAX (read_offset, sysprof_allocation_cursor_get_offset (cursor));
          progress (r.bytes_total + MIN (read_offset, r.bytes_total), r.bytes_total * 2, user_data);
        }
      take_allocation (&r, &event);
    }

  {
    SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (raw->stash);

    for (guint32 i = 0; i <= r.cache.mask; i++)
      if (r.cache.entries[i].node != 0)
        nodes[r.cache.entries[i].node].self += r.cache.entries[i].count;
    g_array_set_size (raw->bytes, _sysprof_stack_stash_get_n_nodes (raw->stash));
    if (r.leaks)
      for (guint64 i = 0; i <= r.live.mask; i++)
        if (r.live.entries[i].address != 0)
          {
            nodes[r.live.entries[i].stack].self++;
            g_array_index (raw->bytes, guint64, r.live.entries[i].stack) += r.live.entries[i].size;
            self->n_samples++;
            self->n_bytes += r.live.entries[i].size;
          }
    /* Weighted by bytes: the bytes become self, the base of percentages. */
    if (filter->weight == SYSPROF_CALLGRAPH_WEIGHT_BYTES)
      {
        for (guint32 i = 0; i < raw->bytes->len; i++)
          nodes[i].self = g_array_index (raw->bytes, guint64, i);
        self->n_samples = self->n_bytes;
      }
  }
  _sysprof_stack_cache_clear (&r.cache);
  _sysprof_stack_key_cache_clear (&r.by_key);
  if (r.leaks)
    _sysprof_memory_live_table_clear (&r.live);
  g_free (self->unwind_summary);
  self->unwind_summary = g_steal_pointer (&r.unwind_summary);

  if (!ok)
    return FALSE;
  sysprof_allocation_cursor_get_stats (cursor, &stats);
  self->n_record_errors = stats.errors + r.frame_errors;
  capture_error = sysprof_allocation_cursor_get_capture_error (cursor);
  if (capture_error->code != 0)
    ok = sysprof_set_capture_error (error, capture_error, NULL);
  else if (stats.allocation_frames == 0 && stats.streams == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "the capture has no allocation records; record with sysprof-cli --memprof");
      ok = FALSE;
    }
  sysprof_allocation_cursor_unref (cursor);
  if (ok && progress != NULL)
    progress (r.bytes_total * 2, r.bytes_total * 2, user_data);
  return ok;
}

static gboolean
source_is_allocations (SysprofCallgraphSource source)
{
  return source == SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS || source == SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS;
}

/* The sampling period in microseconds, from the "frequency=HZ" of the
 * scheduler metadata. */
static guint64
period_from_scheduler_metadata (const char *text, gsize len, guint64 fallback)
{
  g_autofree char *copy = g_strndup (text, len);
  const char      *at = strstr (copy, "frequency=");
  guint64          hz;

  if (at == NULL)
    return fallback;
  hz = g_ascii_strtoull (at + strlen ("frequency="), NULL, 10);
  if (hz == 0 || hz > 1000000)
    return fallback;
  return MAX (1000000 / hz, 1);
}

static gboolean
read_samples (SysprofCallgraph             *self,
              SysprofCaptureReader         *reader,
              const SysprofCallgraphFilter *filter,
              RawBuilder                   *raw,
              SysprofCallgraphProgress      progress,
              gpointer                      user_data,
              GError                      **error)
{
  g_autoptr (GHashTable) pid_verdicts = g_hash_table_new (NULL, NULL);
  FilterState                state = { filter, self->symbolizer, pid_verdicts, G_MININT64, G_MAXINT64 };
  gint64                     start = sysprof_capture_reader_get_start_time (reader);
  const SysprofCaptureError *reader_error;
  SysprofCaptureFrameType    type;
  guint64                    bytes_total = 0;
  guint64                    n_frames = 0;
  PidSlot                    pid_slots[256] = { { 0 } }; /* by pid & 255: samples of a few processes interleave */
  PidSlot                   *pid_slot;
  const char                *filename = sysprof_capture_reader_get_filename (reader);
  GStatBuf                   st;
  SysprofStackCache          cache;
  SysprofStackCacheEntry    *entry;
  guint64                    hash_a, hash_b;
  gboolean                   want_on_cpu = self->source != SYSPROF_CALLGRAPH_SOURCE_OFF_CPU;
  gboolean                   want_off_cpu = self->source != SYSPROF_CALLGRAPH_SOURCE_SAMPLES;
  guint64                    on_cpu_weight = 1;

  if (self->source == SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK)
    on_cpu_weight = 1000000 / 997;
  _sysprof_stack_cache_init (&cache);
  state.begin = add_saturating (start, filter->begin_ns);
  state.end = add_saturating (start, filter->end_ns);

  if (progress != NULL && filename != NULL && g_stat (filename, &st) == 0 && S_ISREG (st.st_mode))
    bytes_total = (guint64) st.st_size;

  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureAddress *addrs;
      guint                        n_addrs;
      gint32                       pid, tid;
      gint64                       time;
      const SysprofCaptureSample  *sample;
      guint32                      off_usec;
      guint64                      weight;
      guint32                      node;

      if (progress != NULL && (++n_frames & 0xffff) == 0)
        progress (sysprof_capture_reader_get_offset (reader), bytes_total, user_data);

      if (type == SYSPROF_CAPTURE_FRAME_METADATA)
        {
          const SysprofCaptureMetadata *meta = sysprof_capture_reader_read_metadata (reader);

          if (meta == NULL)
            break;
          /* How the recorder unwound the stacks (the last one counts). */
          if (strncmp (meta->id, SYSPROF_UNWIND_METADATA_ID, sizeof meta->id) == 0)
            {
              g_free (self->unwind_summary);
              self->unwind_summary = g_strndup (meta->metadata, meta->frame.len - sizeof *meta);
            }
          /* Written at the end: samples read before weigh the default. */
          else if (self->source == SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK &&
                   strncmp (meta->id, SYSPROF_SCHEDULER_METADATA_ID, sizeof meta->id) == 0)
            on_cpu_weight =
                period_from_scheduler_metadata (meta->metadata, meta->frame.len - sizeof *meta, on_cpu_weight);
          continue;
        }
      if (type != SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          if (!sysprof_capture_reader_skip (reader))
            break;
          continue;
        }

      if ((sample = sysprof_capture_reader_read_sample (reader)) == NULL)
        break;
      self->n_samples_read++;
      off_usec = sysprof_capture_sample_get_off_cpu_usec (sample);
      if (off_usec != 0 ? !want_off_cpu : !want_on_cpu)
        continue;
      weight = off_usec != 0 ? off_usec : on_cpu_weight;
      /* The reader hands out 8-byte aligned frames; the struct is only
       * packed for its layout. */
      addrs = (const SysprofCaptureAddress *) (gconstpointer) ((const guint8 *) sample + sizeof *sample);
      n_addrs = sample->n_addrs;
      /* Off-CPU stacks alone: without the frames that set them apart (the
       * user context marker and "[off-CPU]"). */
      if (off_usec != 0 && self->source == SYSPROF_CALLGRAPH_SOURCE_OFF_CPU && n_addrs >= 2 &&
          (addrs[n_addrs - 1] & SYSPROF_CAPTURE_JITMAP_MARK) == SYSPROF_CAPTURE_JITMAP_MARK &&
          addrs[n_addrs - 2] == SYSPROF_CAPTURE_ADDRESS_USER)
        n_addrs -= 2;
      pid = sample->frame.pid;
      tid = sample->tid;
      time = sample->frame.time;

      pid_slot = &pid_slots[(guint32) pid & (G_N_ELEMENTS (pid_slots) - 1)];
      if (G_UNLIKELY (!pid_slot->valid || pid_slot->pid != pid))
        {
          pid_slot->valid = TRUE;
          pid_slot->pid = pid;
          pid_slot->node = 0;
          if (pid_passes (&state, pid_slot->pid))
            pid_slot->node = raw_child (raw, SYSPROF_STACK_STASH_ROOT, (guint32) pid_slot->pid, TAG_PROCESS, time);
        }
      if (pid_slot->node == 0)
        continue;
      if (filter->n_tids > 0 && !tid_passes (filter, tid))
        continue;
      if (time < state.begin || time > state.end)
        continue;

      _sysprof_stack_cache_hash (pid, addrs, n_addrs, &hash_a, &hash_b);
      entry = _sysprof_stack_cache_lookup (&cache, hash_a, hash_b);
      if (G_LIKELY (entry->node != 0))
        {
          entry->count += weight;
          node = entry->node;
        }
      else
        {
          node = add_sample (raw, pid_slot->node, pid, addrs, n_addrs, time);
          /* A stack of markers only ends at the process node: the cache
           * keeps it as its own entry (node 0 is the root, never hit). */
          *entry = (SysprofStackCacheEntry){ hash_a, hash_b, node, 0, weight };
          _sysprof_stack_cache_commit_insert (&cache);
        }
      self->n_samples += weight;
      if (raw->log != NULL)
        _sysprof_sample_log_add (raw->log, node, tid, sample->frame.cpu, time, weight, 0);
    }

  {
    SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (raw->stash);

    for (guint32 i = 0; i <= cache.mask; i++)
      if (cache.entries[i].node != 0)
        nodes[cache.entries[i].node].self += cache.entries[i].count;
    _sysprof_stack_cache_clear (&cache);
  }

  reader_error = sysprof_capture_reader_get_error (reader);
  if (reader_error->code != 0)
    return sysprof_set_capture_error (error, reader_error, NULL);

  if (progress != NULL)
    progress (sysprof_capture_reader_get_offset (reader), bytes_total, user_data);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* From raw addresses to functions */

/* One address node of the raw tree, to resolve.  @group is the process's
 * ordinal times 16 plus the node's tag (context, TAG_CALLER): sorted by
 * (group, address), the addresses of one process and context come
 * together, in order. */
typedef struct
{
  guint64 address;
  guint32 group;
  guint32 node;
} Pending;

/* LSD radix sort on (group, address), 16 bits a pass, skipping the passes
 * whose digit is the same everywhere (most of them: processes are few and
 * addresses share their high bits).  Linear whatever the input, unlike a
 * quicksort a crafted capture could make quadratic. */
static void
sort_pending (Pending *v, gsize n)
{
  Pending          *tmp = _sysprof_table_alloc0 (MAX (n, 1) * sizeof *tmp);
  g_autofree gsize *count = g_new (gsize, 65536);
  Pending          *from = v;
  Pending          *to = tmp;

  for (guint pass = 0; pass < 6; pass++)
    {
      guint shift = (pass % 4) * 16;
      gsize sum = 0;

#define DIGIT(e) ((guint) (pass < 4 ? (e).address >> shift : (guint64) (e).group >> shift) & 0xffff)
      memset (count, 0, 65536 * sizeof *count);
      for (gsize i = 0; i < n; i++)
        count[DIGIT (from[i])]++;
      if (n == 0 || count[DIGIT (from[0])] == n)
        continue;
      for (guint d = 0; d < 65536; d++)
        {
          gsize c = count[d];

          count[d] = sum;
          sum += c;
        }
      for (gsize i = 0; i < n; i++)
        to[count[DIGIT (from[i])]++] = from[i];
#undef DIGIT
      {
        Pending *swap = from;

        from = to;
        to = swap;
      }
    }
  if (from != v)
    memcpy (v, from, n * sizeof *v);
  _sysprof_table_free (tmp, MAX (n, 1) * sizeof *tmp);
}

static guint
function_of_symbol (SysprofCallgraph *self, const SysprofSymbol *symbol, guint64 address)
{
  g_autofree char *name = NULL;
  SysprofSymbol   *owned;

  if (G_LIKELY (symbol != NULL))
    return symbol_function (self, symbol);

  /* The symbolizer promises a symbol; should it fail, the address stays
   * visible rather than disappearing from the stack. */
  name = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);
  owned = (SysprofSymbol *) new_owned_symbol (self, name);
  owned->kind = SYSPROF_SYMBOL_UNRESOLVED;
  return add_function (self, owned, SYSPROF_CALLGRAPH_FUNCTION_CODE);
}

/* The functions inlined at some address nodes, inside the function of the
 * node: for node i with chain_len[i] > 0, pool[chain_start[i] ...] holds
 * their function indexes, outermost first.  Most nodes have none: the
 * arrays are made when the first one is met. */
typedef struct
{
  guint32 *chain_start;
  guint8  *chain_len;
  GArray  *pool;
  guint32  n_nodes;
} InlineChains;

static void
inline_chains_clear (InlineChains *chains)
{
  _sysprof_table_free (chains->chain_start, chains->n_nodes * sizeof *chains->chain_start);
  _sysprof_table_free (chains->chain_len, chains->n_nodes * sizeof *chains->chain_len);
  g_clear_pointer (&chains->pool, g_array_unref);
}

/* The function of every address node, in @functions (indexed by node), and
 * the functions inlined there in @chains.  Each distinct (pid, context,
 * address) is resolved once; sorted, the addresses of one function come
 * together, and the range the symbolizer reports for its frames answers
 * its neighbours without asking again. */
static void
resolve_addresses (SysprofCallgraph  *self,
                   RawBuilder        *raw,
                   const guint32     *ordinals,
                   GArray            *process_pids,
                   const gboolean    *keep,
                   guint             *functions,
                   InlineChains      *chains,
                   SysprofSampleNode *log_nodes)
{
  guint32                 n = _sysprof_stack_stash_get_n_nodes (raw->stash);
  const SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (raw->stash);
  const gint64           *times = raw->times;
  const gint32           *pids = (const gint32 *) (gpointer) process_pids->data;
  Pending                *p = _sysprof_table_alloc0 (n * sizeof *p);
  guint                   n_pending = 0;
  gboolean                have_range = FALSE;
  guint32                 range_group = 0;
  guint64                 range_begin = 0;
  guint64                 range_end = 0;
  guint                   range_function = 0;
  guint32                 range_chain = 0;
  guint8                  range_chain_len = 0;
  /* What the symbolizer said, for the sample log. */
  const SysprofSymbolFrame *const *range_frames = NULL;
  guint                            range_n_frames = 0;

  for (guint32 i = 1; i < n; i++)
    if ((nodes[i].tag & (TAG_CONTEXT | TAG_PROCESS)) == 0 && (keep == NULL || keep[i]))
      p[n_pending++] = (Pending){ nodes[i].key, ordinals[i] << 4 | nodes[i].tag, i };
  sort_pending (p, n_pending);

  for (guint i = 0; i < n_pending; i++)
    {
      if (!have_range || p[i].group != range_group || p[i].address < range_begin || p[i].address >= range_end)
        {
          gint32                           pid = pids[p[i].group >> 4];
          guint32                          context = p[i].group & 7;
          const SysprofSymbolFrame *const *frames = NULL;
          guint n_frames = sysprof_symbolizer_lookup_frames (self->symbolizer, pid, times[p[i].node], context,
                                                             p[i].address, &frames, &range_begin, &range_end);

          /* A return address: the inlines and the line of the call, which
           * is the instruction before it, when that is the same function
           * (a call that never returns can end a function). */
          /* Only where there is debug info: without, the call before gives
           * the same function and no line. */
          if ((p[i].group & TAG_CALLER) != 0 && n_frames > 0 && p[i].address > 0 &&
              (n_frames > 1 || frames[0]->file != NULL))
            {
              const SysprofSymbolFrame *const *call = NULL;
              guint64                          call_begin, call_end;
              guint n_call = sysprof_symbolizer_lookup_frames (self->symbolizer, pid, times[p[i].node], context,
                                                               p[i].address - 1, &call, &call_begin, &call_end);

              if (n_call > 0 && call[n_call - 1]->symbol == frames[n_frames - 1]->symbol)
                {
                  frames = call;
                  n_frames = n_call;
                  /* The answer holds for the return addresses just after
                   * the range, as long as they are still in the function. */
                  range_begin = MAX (range_begin, call_begin + 1);
                  range_end = MIN (range_end, call_end + 1);
                }
              else
                range_begin = p[i].address, range_end = p[i].address + 1;
            }
          if (range_begin > p[i].address || range_end <= p[i].address)
            {
              range_begin = p[i].address;
              range_end = p[i].address + 1;
            }
          range_frames = frames;
          range_n_frames = frames != NULL ? MIN (n_frames, G_MAXUINT16) : 0;
          if (n_frames == 0 || frames == NULL)
            {
              range_function = function_of_symbol (self, NULL, p[i].address);
              range_chain_len = 0;
            }
          else
            {
              /* Innermost first: the last is the function of the node. */
              range_function = frame_function (self, frames[n_frames - 1]);
              range_chain_len = (guint8) MIN (n_frames - 1, G_MAXUINT8);
              if (range_chain_len > 0)
                {
                  if (chains->pool == NULL)
                    {
                      chains->n_nodes = n;
                      chains->chain_start = _sysprof_table_alloc0 (n * sizeof *chains->chain_start);
                      chains->chain_len = _sysprof_table_alloc0 (n * sizeof *chains->chain_len);
                      chains->pool = g_array_new (FALSE, FALSE, sizeof (guint));
                    }
                  range_chain = chains->pool->len;
                  for (guint f = range_chain_len; f > 0; f--)
                    {
                      guint function = frame_function (self, frames[f - 1]);
                      g_array_append_val (chains->pool, function);
                    }
                }
            }
          range_group = p[i].group;
          have_range = TRUE;
        }
      functions[p[i].node] = range_function;
      if (log_nodes != NULL)
        {
          log_nodes[p[i].node].frames = range_frames;
          log_nodes[p[i].node].n_frames = (guint16) range_n_frames;
        }
      if (range_chain_len > 0)
        {
          chains->chain_start[p[i].node] = range_chain;
          chains->chain_len[p[i].node] = range_chain_len;
        }
    }
  _sysprof_table_free (p, n * sizeof *p);
}

/* Allocation sources: the raw nodes that carry weight (some stacks lose all
 * theirs when only leaks count); the others make no function and no node. */
static gboolean *
weighted_nodes (RawBuilder *raw)
{
  guint32                 n = _sysprof_stack_stash_get_n_nodes (raw->stash);
  const SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (raw->stash);
  g_autofree guint64     *totals = g_new (guint64, n);
  gboolean               *keep = g_new (gboolean, n);

  for (guint32 i = 0; i < n; i++)
    totals[i] = nodes[i].self + g_array_index (raw->bytes, guint64, i);
  for (guint32 i = n - 1; i > 0; i--)
    totals[nodes[i].parent] += totals[i];
  for (guint32 i = 0; i < n; i++)
    keep[i] = totals[i] > 0;
  return keep;
}

/* Allocation sources: the inner run of allocator frames of every stack
 * (nodes that are allocator functions with only such nodes below them),
 * but never the outermost frame. */
static gboolean *
allocator_tails (SysprofCallgraph *self, RawBuilder *raw, const gboolean *keep, const guint *functions)
{
  guint32                 n = _sysprof_stack_stash_get_n_nodes (raw->stash);
  const SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (raw->stash);
  gboolean               *tail = g_new0 (gboolean, n);

  for (guint32 i = 1; i < n; i++)
    tail[i] = keep[i] && nodes[i].depth >= 3 && (nodes[i].tag & (TAG_CONTEXT | TAG_PROCESS)) == 0 &&
              sysprof_memory_symbol_is_allocator (function_at (self, functions[i])->symbol);
  /* Children come after their parents: a child outside the tail takes its
   * parent out before the parent is looked at. */
  for (guint32 i = n - 1; i > 0; i--)
    if (keep[i] && !tail[i])
      tail[nodes[i].parent] = FALSE;
  return tail;
}

/* One byte per function: MARK_FOCUS, MARK_HIDE.  Each name goes into a
 * hash table once and each distinct function is looked up once, so the
 * cost does not grow with the number of frames or samples.  Only code
 * functions match (see SysprofCallgraphFilter).  NULL when both lists are
 * empty. */
static guint8 *
mark_functions (SysprofCallgraph *self, const SysprofCallgraphFilter *filter)
{
  g_autoptr (GHashTable) names = NULL;
  guint8 *marks;

  if (filter->n_focus == 0 && filter->n_hide == 0)
    return NULL;
  names = g_hash_table_new (g_str_hash, g_str_equal);
  for (gsize i = 0; i < filter->n_focus + filter->n_hide; i++)
    {
      gboolean    focus = i < filter->n_focus;
      const char *name = focus ? filter->focus[i] : filter->hide[i - filter->n_focus];
      guint       mark = GPOINTER_TO_UINT (g_hash_table_lookup (names, name));

      g_hash_table_insert (names, (gpointer) name, GUINT_TO_POINTER (mark | (focus ? MARK_FOCUS : MARK_HIDE)));
    }

  marks = g_new0 (guint8, self->n_functions);
  for (guint i = 0; i < self->n_functions; i++)
    {
      const SysprofCallgraphFunction *function = function_at (self, i);

      if (function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE)
        marks[i] = (guint8) GPOINTER_TO_UINT (g_hash_table_lookup (names, function->symbol->name));
    }
  return marks;
}

/* The node of @function below @parent in the tree of functions, as focus
 * and hide decide: UNMAPPED above every focused frame; the outermost
 * focused frame of a path becomes a child of the root (the root itself
 * when it is hidden too); a hidden frame is its parent's node. */
static guint32
map_frame (SysprofStackStash *tree, const guint8 *marks, guint32 parent, guint function)
{
  guint mark = marks != NULL ? marks[function] : 0;

  if (parent == UNMAPPED && (mark & MARK_FOCUS) == 0)
    return UNMAPPED;
  if (parent == UNMAPPED)
    parent = SYSPROF_STACK_STASH_ROOT; /* the cut */
  if ((mark & MARK_HIDE) != 0)
    return parent;
  return _sysprof_stack_stash_child (tree, parent, function, 0, NULL);
}

/* Parents come before their children in the raw array, so one pass in
 * order maps every raw node to its node of functions.  @tree_bytes
 * receives the bytes per node of the tree (allocation sources; it stays
 * empty for samples).
 *
 * Focus and hide are decided here, per raw node rather than per sample: a
 * raw node is one path, so whether a focused function is above it, and
 * where the cut is, is the same for every sample that ends there.  A node
 * above every focused frame maps to UNMAPPED and its samples go nowhere;
 * the outermost focused frame of a path maps to a child of the root (or to
 * the root itself when it is hidden too); a hidden frame maps to its
 * parent's node, which then receives its samples. */
static SysprofStackStash *
build_function_tree (SysprofCallgraph             *self,
                     RawBuilder                   *raw,
                     const SysprofCallgraphFilter *filter,
                     GArray                       *tree_bytes,
                     SysprofSampleNode            *log_nodes)
{
  g_autoptr (SysprofStackStash) tree = _sysprof_stack_stash_new ();
  guint32                 n = _sysprof_stack_stash_get_n_nodes (raw->stash);
  const SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (raw->stash);
  guint32                *ordinals = _sysprof_table_alloc0 (n * sizeof *ordinals); /* of the process above each node */
  g_autoptr (GArray) process_pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  guint               *functions = _sysprof_table_alloc0 (n * sizeof *functions);
  guint32             *mapped = _sysprof_table_alloc0 (n * sizeof *mapped);
  g_autofree gboolean *keep = NULL;
  g_autofree gboolean *tail = NULL;
  g_autofree guint8   *marks = NULL;
  gboolean             allocations = source_is_allocations (self->source);
  InlineChains         chains = { NULL, NULL, NULL, 0 };

  if (allocations)
    keep = weighted_nodes (raw);

  ordinals[0] = 0;
  for (guint32 i = 1; i < n; i++)
    {
      const SysprofStackNode *r = &nodes[i];

      if (log_nodes != NULL)
        {
          log_nodes[i].parent = r->parent;
          log_nodes[i].value = r->key;
          log_nodes[i].kind = r->tag == TAG_PROCESS         ? SYSPROF_SAMPLE_NODE_PROCESS
                              : (r->tag & TAG_CONTEXT) != 0 ? SYSPROF_SAMPLE_NODE_CONTEXT
                                                            : SYSPROF_SAMPLE_NODE_ADDRESS;
          log_nodes[i].context = (guint8) (r->tag & 7);
        }
      if (r->tag == TAG_PROCESS)
        {
          gint32 pid = (gint32) (guint32) r->key;

          ordinals[i] = process_pids->len;
          g_array_append_val (process_pids, pid);
          if (keep == NULL || keep[i])
            functions[i] = process_function (self, pid);
        }
      else
        {
          ordinals[i] = ordinals[r->parent];
          if (r->tag & TAG_CONTEXT)
            functions[i] = context_function (self, r->tag & ~TAG_CONTEXT);
        }
    }
  resolve_addresses (self, raw, ordinals, process_pids, keep, functions, &chains, log_nodes);
  if (allocations && !filter->keep_allocator_frames)
    tail = allocator_tails (self, raw, keep, functions);
  marks = mark_functions (self, filter);

  mapped[0] = filter->n_focus > 0 ? UNMAPPED : SYSPROF_STACK_STASH_ROOT;
  if (log_nodes != NULL && mapped[0] != UNMAPPED)
    log_nodes[0].tree_node = mapped[0];
  for (guint32 i = 1; i < n; i++)
    {
      guint32 parent = mapped[nodes[i].parent];

      if (keep != NULL && !keep[i])
        continue;
      /* Allocator frames folded into the site are not frames the
       * callgraph shows: neither focus nor hide sees them. */
      if (tail != NULL && tail[i])
        mapped[i] = parent;
      else
        {
          /* The node's function, then those inlined in it, inward. */
          mapped[i] = map_frame (tree, marks, parent, functions[i]);
          if (chains.pool != NULL)
            for (guint c = 0; c < chains.chain_len[i]; c++)
              mapped[i] =
                  map_frame (tree, marks, mapped[i], g_array_index (chains.pool, guint, chains.chain_start[i] + c));
        }
      if (mapped[i] == UNMAPPED)
        continue;
      if (log_nodes != NULL)
        log_nodes[i].tree_node = mapped[i];
      _sysprof_stack_stash_get_nodes (tree)[mapped[i]].self += nodes[i].self;
      if (allocations)
        {
          if (tree_bytes->len <= mapped[i])
            g_array_set_size (tree_bytes, _sysprof_stack_stash_get_n_nodes (tree));
          g_array_index (tree_bytes, guint64, mapped[i]) += g_array_index (raw->bytes, guint64, i);
        }
    }
  /* Samples have no bytes: the array stays empty. */
  if (allocations)
    g_array_set_size (tree_bytes, _sysprof_stack_stash_get_n_nodes (tree));
  _sysprof_table_free (ordinals, n * sizeof *ordinals);
  _sysprof_table_free (functions, n * sizeof *functions);
  _sysprof_table_free (mapped, n * sizeof *mapped);
  inline_chains_clear (&chains);
  return g_steal_pointer (&tree);
}

static gint
compare_children (gconstpointer a, gconstpointer b, gpointer user_data)
{
  gpointer               *closure = user_data;
  SysprofCallgraph       *self = closure[0];
  const SysprofStackNode *nodes = closure[1];
  const SysprofStackNode *na = &nodes[GPOINTER_TO_UINT (a)];
  const SysprofStackNode *nb = &nodes[GPOINTER_TO_UINT (b)];
  int                     cmp;

  if (na->total != nb->total)
    return na->total > nb->total ? -1 : 1;
  cmp = strcmp (function_at (self, (guint) na->key)->symbol->name, function_at (self, (guint) nb->key)->symbol->name);
  if (cmp != 0)
    return cmp;
  return na->key < nb->key ? -1 : na->key > nb->key;
}

/* ------------------------------------------------------------------------ */
/* Walking the public tree */

/* Depth first, children in order; @leave may be NULL.  @enter returns FALSE
 * to stop the walk. */
typedef gboolean (*NodeVisit) (const SysprofCallgraphNode *node, gpointer user_data);

static void
walk_nodes (const SysprofCallgraphNode *root, NodeVisit enter, NodeVisit leave, gpointer user_data)
{
  const SysprofCallgraphNode *current = root;

  if (!enter (current, user_data))
    return;
  for (;;)
    {
      if (current->first_child != NULL)
        {
          current = current->first_child;
          if (!enter (current, user_data))
            return;
          continue;
        }
      for (;;)
        {
          if (leave != NULL)
            leave (current, user_data);
          if (current == root)
            return;
          if (current->next_sibling != NULL)
            {
              current = current->next_sibling;
              if (!enter (current, user_data))
                return;
              break;
            }
          current = current->parent;
        }
    }
}

typedef struct
{
  SysprofCallgraph *self;
  guint32          *on_path; /* per function: how many nodes of the current path */
} TotalsWalk;

static gboolean
totals_enter (const SysprofCallgraphNode *node, gpointer user_data)
{
  TotalsWalk               *walk = user_data;
  SysprofCallgraphFunction *function = (SysprofCallgraphFunction *) node->function;

  function->self += node->self;
  function->self_bytes += node->self_bytes;
  if (walk->on_path[function->index]++ == 0)
    {
      function->total += node->total;
      function->total_bytes += node->total_bytes;
    }
  return TRUE;
}

static gboolean
totals_leave (const SysprofCallgraphNode *node, gpointer user_data)
{
  TotalsWalk *walk = user_data;

  walk->on_path[node->function->index]--;
  return TRUE;
}

/* Keeps the functions that have a node in @tree, in their order, and
 * returns the new index of every old one.  The others (hidden functions,
 * callers a focus cut away, functions only made of folded allocator frames
 * or of stacks that carry no weight) were resolved but would show as
 * functions with nothing in them. */
static guint *
drop_unused_functions (SysprofCallgraph *self, SysprofStackStash *tree)
{
  guint32                 n = _sysprof_stack_stash_get_n_nodes (tree);
  const SysprofStackNode *nodes = _sysprof_stack_stash_get_nodes (tree);
  guint                  *renumber = g_new0 (guint, self->n_functions);
  guint                   n_kept = 0;

  for (guint32 i = 0; i < n; i++)
    renumber[nodes[i].key] = 1;
  /* In place: a function only moves down. */
  for (guint i = 0; i < self->n_functions; i++)
    if (renumber[i] != 0 || i == 0)
      {
        self->functions[n_kept] = self->functions[i];
        self->functions[n_kept].index = renumber[i] = n_kept;
        n_kept++;
      }
  self->n_functions = n_kept;
  return renumber;
}

static void
publish_tree (SysprofCallgraph *self, SysprofStackStash *tree, GArray *tree_bytes)
{
  const SysprofStackNode *nodes;
  gpointer                closure[2];
  guint32                 n = _sysprof_stack_stash_get_n_nodes (tree);
  SysprofCallgraphNode   *out;
  g_autofree guint32     *on_path = NULL;
  TotalsWalk              walk;
  g_autofree guint       *renumber = NULL;
  /* Allocation sources only. */
  const guint64 *bytes = tree_bytes->len > 0 ? (const guint64 *) (gpointer) tree_bytes->data : NULL;

  _sysprof_stack_stash_compute_totals (tree);
  nodes = _sysprof_stack_stash_get_nodes (tree);
  closure[0] = self;
  closure[1] = (gpointer) nodes;
  /* Sorted by the old numbers; renumbering keeps their order. */
  _sysprof_stack_stash_sort_children (tree, compare_children, closure);
  renumber = drop_unused_functions (self, tree);

  out = _sysprof_table_alloc0 (n * sizeof *out);
  for (guint32 i = 0; i < n; i++)
    {
      const SysprofStackNode *s = &nodes[i];

      out[i].function = function_at (self, renumber[s->key]);
      out[i].parent = i == SYSPROF_STACK_STASH_ROOT ? NULL : &out[s->parent];
      out[i].first_child = s->first_child != SYSPROF_STACK_STASH_NONE ? &out[s->first_child] : NULL;
      out[i].next_sibling = s->next_sibling != SYSPROF_STACK_STASH_NONE ? &out[s->next_sibling] : NULL;
      out[i].self = s->self;
      out[i].total = s->total;
      out[i].depth = s->depth;
      out[i].self_bytes = out[i].total_bytes = bytes != NULL ? bytes[i] : 0;
    }
  /* Children come after their parents. */
  for (guint32 i = n - 1; bytes != NULL && i > 0; i--)
    out[nodes[i].parent].total_bytes += out[i].total_bytes;
  self->nodes = out;
  self->n_nodes = n;

  on_path = g_new0 (guint32, self->n_functions);
  walk.self = self;
  walk.on_path = on_path;
  walk_nodes (&self->nodes[0], totals_enter, totals_leave, &walk);
}

SysprofCallgraph *
sysprof_callgraph_new (SysprofCaptureReader         *reader,
                       SysprofSymbolizer            *symbolizer,
                       const SysprofCallgraphFilter *filter,
                       SysprofCallgraphProgress      progress,
                       gpointer                      user_data,
                       GError                      **error)
{
  /* First: it closes last, after the temporary tables are freed. */
  g_auto (SysprofTableScope) scope G_GNUC_UNUSED = _sysprof_table_scope_enter ();
  SysprofCallgraphFilter           full_filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  g_autoptr (SysprofCallgraph) self = NULL;
  g_autoptr (SysprofStackStash) tree = NULL;
  g_autofree guint64 *keys = NULL;
  g_autofree guint32 *tags = NULL;
  g_autoptr (SysprofStackStash) stash = NULL;
  g_autoptr (GArray) raw_bytes = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_autoptr (GArray) tree_bytes = g_array_new (FALSE, TRUE, sizeof (guint64));
  RawBuilder raw;

  g_return_val_if_fail (reader != NULL, NULL);
  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (symbolizer), NULL);
  g_return_val_if_fail (filter == NULL || filter->size >= FILTER_SIZE_1, NULL);
  g_return_val_if_fail (filter == NULL || filter->n_pids == 0 || filter->pids != NULL, NULL);
  g_return_val_if_fail (filter == NULL || filter->n_tids == 0 || filter->tids != NULL, NULL);
  g_return_val_if_fail (filter == NULL || filter->n_comms == 0 || filter->comms != NULL, NULL);
  g_return_val_if_fail (filter == NULL || (guint) filter->source <= SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK, NULL);
  g_return_val_if_fail (filter == NULL || (guint) filter->weight <= SYSPROF_CALLGRAPH_WEIGHT_BYTES, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The fields a smaller (older) struct lacks keep their defaults. */
  if (filter != NULL)
    memcpy (&full_filter, filter, MIN (filter->size, sizeof full_filter));
  full_filter.size = sizeof full_filter;
  filter = &full_filter;
  g_return_val_if_fail (filter->n_focus == 0 || filter->focus != NULL, NULL);
  g_return_val_if_fail (filter->n_hide == 0 || filter->hide != NULL, NULL);
  for (gsize i = 0; i < filter->n_focus; i++)
    g_return_val_if_fail (filter->focus[i] != NULL, NULL);
  for (gsize i = 0; i < filter->n_hide; i++)
    g_return_val_if_fail (filter->hide[i] != NULL, NULL);

  self = g_object_new (SYSPROF_TYPE_CALLGRAPH, NULL);
  self->symbolizer = g_object_ref (symbolizer);
  self->lines = filter->lines;
  add_function (self, new_owned_symbol (self, "[Everything]"), SYSPROF_CALLGRAPH_FUNCTION_ROOT);

  keys = g_new (guint64, MAX_KEYS);
  tags = g_new (guint32, MAX_KEYS);
  stash = _sysprof_stack_stash_new ();
  self->source = filter->source;

  if (!sysprof_capture_reader_reset (reader))
    {
      sysprof_set_capture_error (error, sysprof_capture_reader_get_error (reader), "The capture cannot be rewound");
      return NULL;
    }
  if (filter->keep_samples)
    self->samples = _sysprof_sample_log_new ();
  raw = (RawBuilder){ stash, NULL, 0, keys, tags, filter->no_kernel, raw_bytes, symbolizer, self->samples };
  /* The root's time. */
  raw_set_times (&raw, 0, 0);
  if (!source_is_allocations (self->source)
          ? !read_samples (self, reader, filter, &raw, progress, user_data, error)
          : !read_allocations (self, reader, filter, &raw, progress, user_data, error))
    {
      _sysprof_table_free (raw.times, raw.times_allocated * sizeof *raw.times);
      return NULL;
    }
  g_clear_pointer (&keys, g_free);
  g_clear_pointer (&tags, g_free);

  if (self->samples != NULL)
    _sysprof_sample_log_finish (self->samples);
  tree = build_function_tree (
      self, &raw, filter, tree_bytes,
      self->samples != NULL ? _sysprof_sample_log_set_n_nodes (self->samples, _sysprof_stack_stash_get_n_nodes (stash))
                            : NULL);
  g_clear_pointer (&stash, _sysprof_stack_stash_free);
  _sysprof_table_free (raw.times, raw.times_allocated * sizeof *raw.times);
  g_clear_pointer (&raw_bytes, g_array_unref);
  publish_tree (self, tree, tree_bytes);
  /* Samples outside the focus were counted while reading: the root has
   * the ones that are left. */
  if (filter->n_focus > 0)
    {
      self->n_samples = self->nodes[0].total;
      self->n_bytes = source_is_allocations (self->source) ? self->nodes[0].total_bytes : 0;
    }

  g_clear_pointer (&self->symbol_functions, g_hash_table_unref);
  g_clear_pointer (&self->process_functions, g_hash_table_unref);
  return g_steal_pointer (&self);
}

guint64
sysprof_callgraph_get_n_record_errors (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), 0);

  return self->n_record_errors;
}

guint64
sysprof_callgraph_get_n_samples (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), 0);

  return self->n_samples;
}

const char *
sysprof_callgraph_get_unwind_summary (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);
  return self->unwind_summary;
}

guint64
sysprof_callgraph_get_n_samples_read (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), 0);

  return self->n_samples_read;
}

guint64
sysprof_callgraph_get_n_bytes (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), 0);

  return self->n_bytes;
}

SysprofCallgraphSource
sysprof_callgraph_get_source (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), SYSPROF_CALLGRAPH_SOURCE_SAMPLES);

  return self->source;
}

guint
sysprof_callgraph_get_n_functions (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), 0);

  return self->n_functions;
}

const SysprofCallgraphFunction *
sysprof_callgraph_get_function (SysprofCallgraph *self, guint index)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);
  g_return_val_if_fail (index < self->n_functions, NULL);

  return function_at (self, index);
}

const SysprofCallgraphFunction *
sysprof_callgraph_find_function (SysprofCallgraph *self, const char *name, const char *library)
{
  const SysprofCallgraphFunction *best = NULL;

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->n_functions; i++)
    {
      const SysprofCallgraphFunction *function = function_at (self, i);

      if (!g_str_equal (function->symbol->name, name))
        continue;
      if (library != NULL && !g_str_equal (function->symbol->library, library))
        continue;
      if (best == NULL || function->total > best->total)
        best = function;
    }
  return best;
}

const SysprofCallgraphNode *
sysprof_callgraph_get_root (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);

  return &self->nodes[0];
}

/* ------------------------------------------------------------------------ */
/* Callers and callees */

typedef struct
{
  const SysprofCallgraphFunction *function;
  gboolean                        callers; /* else callees */
  guint32                        *on_path; /* per other function: edges with it on the current path */
  guint64                        *samples;
  guint64                        *bytes;
} EdgeWalk;

/* The other end of the edge between @node and its parent, when that edge
 * touches the function of interest. */
static const SysprofCallgraphFunction *
edge_other (EdgeWalk *walk, const SysprofCallgraphNode *node)
{
  if (node->parent == NULL)
    return NULL;
  if (walk->callers)
    return node->function == walk->function ? node->parent->function : NULL;
  return node->parent->function == walk->function ? node->function : NULL;
}

static gboolean
edge_enter (const SysprofCallgraphNode *node, gpointer user_data)
{
  EdgeWalk                       *walk = user_data;
  const SysprofCallgraphFunction *other = edge_other (walk, node);

  /* An edge already on the path (recursion) has counted these samples. */
  if (other != NULL && walk->on_path[other->index]++ == 0)
    {
      walk->samples[other->index] += node->total;
      walk->bytes[other->index] += node->total_bytes;
    }
  return TRUE;
}

static gboolean
edge_leave (const SysprofCallgraphNode *node, gpointer user_data)
{
  EdgeWalk                       *walk = user_data;
  const SysprofCallgraphFunction *other = edge_other (walk, node);

  if (other != NULL)
    walk->on_path[other->index]--;
  return TRUE;
}

static gint
compare_edges (gconstpointer a, gconstpointer b)
{
  const SysprofCallgraphEdge *ea = a;
  const SysprofCallgraphEdge *eb = b;
  int                         cmp;

  if (ea->samples != eb->samples)
    return ea->samples > eb->samples ? -1 : 1;
  cmp = strcmp (ea->function->symbol->name, eb->function->symbol->name);
  if (cmp != 0)
    return cmp;
  return ea->function->index < eb->function->index ? -1 : ea->function->index > eb->function->index;
}

static GArray *
list_edges (SysprofCallgraph *self, const SysprofCallgraphFunction *function, gboolean callers)
{
  g_autofree guint32 *on_path = g_new0 (guint32, self->n_functions);
  g_autofree guint64 *samples = g_new0 (guint64, self->n_functions);
  g_autofree guint64 *bytes = g_new0 (guint64, self->n_functions);
  EdgeWalk            walk = { function, callers, on_path, samples, bytes };
  GArray             *edges = g_array_new (FALSE, FALSE, sizeof (SysprofCallgraphEdge));

  walk_nodes (&self->nodes[0], edge_enter, edge_leave, &walk);
  for (guint i = 0; i < self->n_functions; i++)
    if (samples[i] > 0)
      {
        SysprofCallgraphEdge edge = { function_at (self, i), samples[i], bytes[i] };
        g_array_append_val (edges, edge);
      }
  g_array_sort (edges, compare_edges);
  return edges;
}

static gboolean
owns_function (SysprofCallgraph *self, const SysprofCallgraphFunction *function)
{
  return function != NULL && function->index < self->n_functions && function_at (self, function->index) == function;
}

GArray *
sysprof_callgraph_list_callers (SysprofCallgraph *self, const SysprofCallgraphFunction *function)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);
  g_return_val_if_fail (owns_function (self, function), NULL);

  return list_edges (self, function, TRUE);
}

GArray *
sysprof_callgraph_list_callees (SysprofCallgraph *self, const SysprofCallgraphFunction *function)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);
  g_return_val_if_fail (owns_function (self, function), NULL);

  return list_edges (self, function, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Distinct stacks */

typedef struct
{
  SysprofCallgraphStackFunc func;
  gpointer                  user_data;
  GPtrArray                *path;
} StackWalk;

static gboolean
stack_enter (const SysprofCallgraphNode *node, gpointer user_data)
{
  StackWalk *walk = user_data;

  /* The root ends samples only when a focused and hidden function left
   * them without a frame: they are the stack of the root alone, so that
   * the counts still add up. */
  if (node->depth == 0)
    {
      const SysprofCallgraphFunction *root = node->function;

      return node->self == 0 || walk->func (&root, 1, node->self, walk->user_data);
    }
  if (walk->path->len < node->depth)
    g_ptr_array_set_size (walk->path, node->depth);
  walk->path->pdata[node->depth - 1] = (gpointer) node->function;
  if (node->self == 0)
    return TRUE;
  return walk->func ((const SysprofCallgraphFunction *const *) walk->path->pdata, node->depth, node->self,
                     walk->user_data);
}

void
sysprof_callgraph_foreach_stack (SysprofCallgraph *self, SysprofCallgraphStackFunc func, gpointer user_data)
{
  g_autoptr (GPtrArray) path = g_ptr_array_new ();
  StackWalk walk = { func, user_data, path };

  g_return_if_fail (SYSPROF_IS_CALLGRAPH (self));
  g_return_if_fail (func != NULL);

  walk_nodes (&self->nodes[0], stack_enter, NULL, &walk);
}

/* ------------------------------------------------------------------------ */
/* Samples */

void
sysprof_callgraph_foreach_sample (SysprofCallgraph *self, SysprofCallgraphSampleFunc func, gpointer user_data)
{
  g_return_if_fail (SYSPROF_IS_CALLGRAPH (self));
  g_return_if_fail (func != NULL);
  g_return_if_fail (self->samples != NULL);

  _sysprof_sample_log_foreach (self->samples, self->nodes, FALSE, func, user_data);
}

void
sysprof_callgraph_foreach_sample_full (SysprofCallgraph           *self,
                                       SysprofCallgraphSampleFlags flags,
                                       SysprofCallgraphSampleFunc  func,
                                       gpointer                    user_data)
{
  g_return_if_fail (SYSPROF_IS_CALLGRAPH (self));
  g_return_if_fail (func != NULL);
  g_return_if_fail (self->samples != NULL);

  _sysprof_sample_log_foreach (self->samples, self->nodes, (flags & SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE) != 0, func,
                               user_data);
}

SysprofSymbolizer *
sysprof_callgraph_get_symbolizer (SysprofCallgraph *self)
{
  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH (self), NULL);

  return self->symbolizer;
}
