// SPDX-License-Identifier: GPL-3.0-or-later

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sysprof-ring-drainer-private.h"

#define DEFAULT_MAX_RINGS 1024
#define DRAIN_MS          1
/* How long one tick may go on with passes while frames are left: a busy
 * producer (a memory trace writes ~1 GB/s) needs most of a core, and the
 * millisecond between ticks is what lower-priority work of the context gets.
 * One pass is ~0.5 ms, so a tick is a few of them. */
#define DRAIN_SLICE_US 4000
/* Sysprof's collector ends a ring with a bare frame header of this type. */
#define FRAME_END 0xFF
/* A frame stamped less than this ahead of the start of a pass waits for the
 * next one (see drain_pass); farther ahead it is on another clock, and taken. */
#define HOLD_NS (10 * 1000 * 1000)
/* Raw blocks shorter than this are not worth compressing. */
#define MIN_PACK 64
/* Counter ids a drainer gives the processes it drains, at most. */
#define MAX_COUNTER_IDS 65536
/* The length of a frame of @n bytes: the next multiple of 8. */
#define FRAME_LEN(n) (((gsize) (n) + SYSPROF_CAPTURE_ALIGN - 1) & ~(gsize) (SYSPROF_CAPTURE_ALIGN - 1))

typedef struct
{
  SysprofMappedRingBuffer *buffer;
  gboolean                 ended;
  /* The process writing the ring: the pid of its first frame.  A ring is
   * one thread's (or one process's late events), so it never changes. */
  gboolean has_pid;
  gint32   pid;
} Ring;

/* Where a pass stands in one ring's published bytes.  Everything behind
 * @data belongs to the producer and may change while we look: @next is our
 * copy of the header at @pos, read once and checked (pos + next.len <= avail),
 * and the only header used for that frame. */
typedef struct
{
  Ring               *ring;
  const guint8       *data;
  size_t              avail;
  size_t              pos;
  SysprofCaptureFrame next;
  gboolean            invalid;
  gint64              horizon;
} Cursor;

struct _SysprofRingDrainer
{
  GObject parent_instance;

  SysprofCaptureWriter *writer;
  GPtrArray            *rings; /* of Ring, in the order they were created */
  guint                 max_rings;
  GSource              *source; /* in self->context, not always the default one */
  GMainContext         *context;
  gboolean              closed;
  gboolean              limit_reached;
  guint64               max_bytes;
  guint64               n_frames;
  guint64               n_lost;
  guint64               n_reported;

  /* Kept from pass to pass: a cursor per ring, the merge heap (indexes into
   * cursors) and room for one frame copied out of its ring. */
  Cursor *cursors;
  guint  *heap;
  guint   n_allocated;
  guint8 *frame;

  guint last_frames;
  gsize last_bytes;

  /* (pid << 24 | the process's counter id) -> the capture's counter id. */
  GHashTable *counter_ids;

  /* Memory streams (see take_stream_chunk). */
  SysprofMemoryStreamCompressor *zstd;
  guint8                        *packed; /* a 'Z' block's frame */
  /* Allocation and release records of the raw blocks taken. */
  SysprofMemoryStreamCounts stream_counts;
  guint64                   stream_blocks;
  guint64                   stream_packed;
  guint64                   stream_refused;
  guint64                   stream_raw_bytes;
  guint64                   stream_stored_bytes;
};

G_DEFINE_FINAL_TYPE (SysprofRingDrainer, sysprof_ring_drainer, G_TYPE_OBJECT)

static void
ring_free (gpointer data)
{
  Ring *ring = data;

  g_clear_pointer (&ring->buffer, sysprof_mapped_ring_buffer_unref);
  g_free (ring);
}

/* By pointer: g_source_remove() only looks in the default main context. */
static void
clear_source (SysprofRingDrainer *self)
{
  if (self->source != NULL)
    {
      g_source_destroy (self->source);
      g_clear_pointer (&self->source, g_source_unref);
    }
}

static void
sysprof_ring_drainer_finalize (GObject *object)
{
  SysprofRingDrainer *self = SYSPROF_RING_DRAINER (object);

  clear_source (self);
  g_clear_pointer (&self->rings, g_ptr_array_unref);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->cursors, g_free);
  g_clear_pointer (&self->heap, g_free);
  g_clear_pointer (&self->frame, g_free);
  g_clear_pointer (&self->packed, g_free);
  g_clear_pointer (&self->zstd, sysprof_memory_stream_compressor_free);
  g_clear_pointer (&self->counter_ids, g_hash_table_unref);

  G_OBJECT_CLASS (sysprof_ring_drainer_parent_class)->finalize (object);
}

static void
sysprof_ring_drainer_class_init (SysprofRingDrainerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_ring_drainer_finalize;
}

static void
sysprof_ring_drainer_init (SysprofRingDrainer *self)
{
  self->rings = g_ptr_array_new_with_free_func (ring_free);
  self->frame = g_malloc (SYSPROF_CAPTURE_MAX_FRAME_LEN);
  self->counter_ids = g_hash_table_new (NULL, NULL);
}

SysprofRingDrainer *
sysprof_ring_drainer_new (guint max_rings)
{
  SysprofRingDrainer *self = g_object_new (SYSPROF_TYPE_RING_DRAINER, NULL);

  self->max_rings = max_rings ? max_rings : DEFAULT_MAX_RINGS;
  self->context = g_main_context_ref_thread_default ();
  return self;
}

void
sysprof_ring_drainer_set_writer (SysprofRingDrainer *self, SysprofCaptureWriter *writer)
{
  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));
  g_return_if_fail (writer != NULL);

  if (self->writer == writer)
    return;
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  self->writer = sysprof_capture_writer_ref (writer);
}

void
sysprof_ring_drainer_set_max_bytes (SysprofRingDrainer *self, guint64 max_bytes)
{
  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));

  self->max_bytes = max_bytes;
  self->limit_reached = FALSE;
}

static guint64
add_saturated (guint64 a, guint64 b)
{
  return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

/* Producers report the events they lost in METADATA frames of their own;
 * counting them as they pass gives a live figure.  @frame is our validated
 * copy, and the number is read within its @len bytes: the text need not end
 * before the frame does (a ring of digits once made us read past its
 * mapping). */
static void
count_reported (SysprofRingDrainer *self, const guint8 *frame, gsize len)
{
  const SysprofCaptureMetadata *meta = (const SysprofCaptureMetadata *) (const void *) frame;
  guint64                       n = 0;

  if (len <= sizeof *meta || strncmp (meta->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof meta->id) != 0)
    return;
  for (gsize i = 0; i < len - sizeof *meta && g_ascii_isdigit (meta->metadata[i]); i++)
    {
      guint digit = (guint) (meta->metadata[i] - '0');

      if (n > (G_MAXUINT64 - digit) / 10)
        {
          n = G_MAXUINT64;
          break;
        }
      n = n * 10 + digit;
    }
  self->n_reported = add_saturated (self->n_reported, n);
}

/* Reads and checks the header of the next frame: TRUE when @c->next holds a
 * frame that lies whole within what was published.  Bytes that cannot start
 * a frame make the ring invalid; the end-of-stream frame ends it. */
static gboolean
cursor_next (Cursor *c)
{
  size_t left = c->avail - c->pos;

  if (left == 0)
    return FALSE;
  if (left < sizeof c->next)
    {
      c->invalid = TRUE;
      return FALSE;
    }
  memcpy (&c->next, c->data + c->pos, sizeof c->next);
  if (c->next.type == FRAME_END)
    {
      c->ring->ended = TRUE;
      c->pos = c->avail;
      return FALSE;
    }
  if (c->next.len < sizeof c->next || c->next.len % SYSPROF_CAPTURE_ALIGN != 0 || c->next.len > left ||
      c->next.type == 0 || c->next.type >= SYSPROF_CAPTURE_FRAME_LAST)
    {
      c->invalid = TRUE;
      return FALSE;
    }
  /* Not yet: see drain_pass. */
  if (c->next.time > c->horizon && c->next.time - c->horizon < HOLD_NS)
    return FALSE;
  return TRUE;
}

/* Whether the frame at @a comes before the one at @b: by time, and for equal
 * times by ring, the first created first. */
static inline gboolean
cursor_before (const Cursor *cursors, guint a, guint b)
{
  return cursors[a].next.time < cursors[b].next.time || (cursors[a].next.time == cursors[b].next.time && a < b);
}

/* Restores the min-heap below @i, whose key may have grown. */
static void
heap_sift_down (const Cursor *cursors, guint *heap, guint n, guint i)
{
  for (;;)
    {
      guint least = i;
      guint left = 2 * i + 1;
      guint right = left + 1;
      guint tmp;

      if (left < n && cursor_before (cursors, heap[left], heap[least]))
        least = left;
      if (right < n && cursor_before (cursors, heap[right], heap[least]))
        least = right;
      if (least == i)
        return;
      tmp = heap[i];
      heap[i] = heap[least];
      heap[least] = tmp;
      i = least;
    }
}

/* Whether the limit stops a frame of @len bytes; once it does, it stops them
 * all. */
static gboolean
limit_stops (SysprofRingDrainer *self, gsize len)
{
  guint64 size;

  if (self->limit_reached || self->max_bytes == 0)
    return self->limit_reached;
  size = sysprof_capture_writer_get_size (self->writer);
  if (size > self->max_bytes || self->max_bytes - size < len)
    self->limit_reached = TRUE;
  return self->limit_reached;
}

/* ---- memory streams ------------------------------------------------------ */

/* Whether @path (NUL-terminated by the frame's validation) names a memory
 * stream: SYSPROF_MEMORY_STREAM_PATH_PREFIX and then anything. */
static gboolean
is_stream_path (const char *path)
{
  return strncmp (path, SYSPROF_MEMORY_STREAM_PATH_PREFIX, strlen (SYSPROF_MEMORY_STREAM_PATH_PREFIX)) == 0;
}

/* The length of the path when it is exactly the prefix and a thread id
 * (1 to 2^31 - 1 in decimal, no leading zero), else 0. */
static gsize
stream_path_len (const char *path)
{
  gsize   prefix = strlen (SYSPROF_MEMORY_STREAM_PATH_PREFIX);
  guint64 tid = 0;
  gsize   i;

  if (path[prefix] < '1' || path[prefix] > '9')
    return 0;
  for (i = prefix; g_ascii_isdigit (path[i]); i++)
    {
      tid = tid * 10 + (guint64) (path[i] - '0');
      if (tid > G_MAXINT32)
        return 0;
    }
  return path[i] == 0 ? i : 0;
}

/* The chunk's raw block as a 'Z' block (memory-stream.md: 'Z', the raw
 * length as a varint, one zstd frame of the whole raw block) in a frame of
 * its own, or NULL when it would not be smaller. */
static const SysprofCaptureFrame *
pack_chunk (SysprofRingDrainer *self, const SysprofCaptureFileChunk *chunk)
{
  SysprofCaptureFileChunk *out;
  gsize                    packed, frame_len;

  /* A zstd frame alone takes a dozen bytes. */
  if (chunk->len < MIN_PACK)
    return NULL;
  if (self->zstd == NULL)
    {
      if ((self->zstd = sysprof_memory_stream_compressor_new (SYSPROF_RING_DRAINER_ZSTD_LEVEL)) == NULL)
        return NULL;
      self->packed = g_malloc (sizeof *out + SYSPROF_MEMORY_STREAM_MAX_BLOCK + SYSPROF_CAPTURE_ALIGN);
    }
  out = (SysprofCaptureFileChunk *) (gpointer) self->packed;
  memcpy (out, chunk, sizeof *out);
  /* Room for less than the raw block only: it fails when it cannot do
   * better, and the block is stored as it came. */
  packed = sysprof_memory_stream_compressor_pack (self->zstd, chunk->data, chunk->len, out->data, chunk->len - 1);
  if (packed == 0)
    return NULL;
  out->len = (guint32) packed;
  frame_len = FRAME_LEN (sizeof *out + out->len);
  memset (out->data + out->len, 0, frame_len - sizeof *out - out->len);
  out->frame.len = (guint16) frame_len;
  return &out->frame;
}

/* A memory stream's block (FILE_CHUNK "sysprof/memory-stream/TID", our
 * validated copy in self->frame): what to write for it, or NULL when it is
 * refused.  The producer claims the thread id; it must be a well-formed one,
 * the frame must be the ring's own process's, the block at most
 * SYSPROF_MEMORY_STREAM_MAX_BLOCK bytes and the frame no longer
 * than it needs.  The block's content is not looked at here beyond its first
 * byte (the reader's decoder checks the rest): a raw block ('R') is
 * compressed when that makes it smaller, anything else is kept as it is. */
static const SysprofCaptureFrame *
take_stream_chunk (SysprofRingDrainer *self, const Ring *ring, gsize len)
{
  SysprofCaptureFileChunk   *chunk = (SysprofCaptureFileChunk *) (gpointer) self->frame;
  const SysprofCaptureFrame *packed;
  gsize                      path_len = stream_path_len (chunk->path);

  if (path_len == 0 || chunk->len == 0 || chunk->len > SYSPROF_MEMORY_STREAM_MAX_BLOCK ||
      len != FRAME_LEN (sizeof *chunk + chunk->len) || chunk->frame.pid != ring->pid)
    {
      self->stream_refused++;
      return NULL;
    }
  /* Nothing of the producer's but the fields: zeros behind the path and
   * the data, no stray flag bits. */
  memset (chunk->path + path_len, 0, sizeof chunk->path - path_len);
  memset (chunk->data + chunk->len, 0, len - sizeof *chunk - chunk->len);
  chunk->padding1 = 0;
  self->stream_blocks++;
  self->stream_raw_bytes += chunk->len;
  if (chunk->data[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW)
    {
      guint64 stacks = self->stream_counts.stacks;

      /* Figures, and the hint that the block defines no stack (the symbol
       * map then skips it): a malformed block is counted up to its fault,
       * gets no hint, and is kept as it came, for the reader's decoder to
       * describe. */
      if (sysprof_memory_stream_count (chunk->data, chunk->len, &self->stream_counts) &&
          self->stream_counts.stacks == stacks)
        chunk->padding1 = SYSPROF_MEMORY_STREAM_CHUNK_NO_STACKS;
    }
  if (chunk->data[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW && (packed = pack_chunk (self, chunk)) != NULL)
    {
      self->stream_packed++;
      self->stream_stored_bytes += ((const SysprofCaptureFileChunk *) (gconstpointer) packed)->len;
      return packed;
    }
  self->stream_stored_bytes += chunk->len;
  return &chunk->frame;
}

/* ---- counters --------------------------------------------------------------- */

/* The capture's id for counter @id of process @pid, asked of the writer the
 * first time: each process numbers its counters as it likes (upstream's
 * collector from 1, as the recorder's own counters are), so two would
 * collide in one capture.  0 when no more can be given. */
static guint
capture_counter_id (SysprofRingDrainer *self, gint32 pid, guint id)
{
  gpointer key = GSIZE_TO_POINTER (((gsize) (guint32) pid << 24) | (id & SYSPROF_CAPTURE_COUNTER_ID_MAX));
  guint    capture_id = GPOINTER_TO_UINT (g_hash_table_lookup (self->counter_ids, key));

  if (capture_id != 0)
    return capture_id;
  if (g_hash_table_size (self->counter_ids) >= MAX_COUNTER_IDS ||
      (capture_id = sysprof_capture_writer_request_counter (self->writer, 1)) == 0)
    return 0;
  g_hash_table_insert (self->counter_ids, key, GUINT_TO_POINTER (capture_id));
  return capture_id;
}

/* Gives the counters of a CTRDEF or CTRSET frame (validated, in our copy)
 * the capture's ids; FALSE when they cannot all have one. */
static gboolean
renumber_counters (SysprofRingDrainer *self, gint32 pid, SysprofCaptureFrame *frame)
{
  if (frame->type == SYSPROF_CAPTURE_FRAME_CTRDEF)
    {
      SysprofCaptureCounterDefine *def = (SysprofCaptureCounterDefine *) (void *) frame;

      for (guint i = 0; i < def->n_counters; i++)
        {
          guint id = capture_counter_id (self, pid, def->counters[i].id);

          if (id == 0)
            return FALSE;
          def->counters[i].id = id;
        }
    }
  else
    {
      SysprofCaptureCounterSet *set = (SysprofCaptureCounterSet *) (void *) frame;

      for (guint i = 0; i < set->n_values; i++)
        for (guint j = 0; j < G_N_ELEMENTS (set->values[i].ids); j++)
          if (set->values[i].ids[j] != 0 &&
              (set->values[i].ids[j] = capture_counter_id (self, pid, set->values[i].ids[j])) == 0)
            return FALSE;
    }
  return TRUE;
}

/* ---- passes ---------------------------------------------------------------- */

/* Takes the frame at @c into the writer, or counts it lost; FALSE when it is
 * invalid (and with it, what its ring holds). */
static gboolean
take_frame (SysprofRingDrainer *self, Cursor *c)
{
  const SysprofCaptureFrame *frame;
  gsize                      len = c->next.len;

  if (limit_stops (self, len))
    {
      self->n_lost++;
      c->pos += len;
      return TRUE;
    }
  /* The only read of the frame's bytes.  From here on we look at our copy,
   * with the header that was checked and merged by. */
  memcpy (self->frame, c->data + c->pos, len);
  memcpy (self->frame, &c->next, sizeof c->next);
  c->pos += len;
  if (!sysprof_capture_frame_validate (self->frame, len))
    return FALSE;
  if (!c->ring->has_pid)
    {
      c->ring->has_pid = TRUE;
      c->ring->pid = c->next.pid;
    }
  frame = (const SysprofCaptureFrame *) (const void *) self->frame;
  /* By the ring's process: a frame claiming another's pid does not reach
   * that process's counters. */
  if ((c->next.type == SYSPROF_CAPTURE_FRAME_CTRDEF || c->next.type == SYSPROF_CAPTURE_FRAME_CTRSET) &&
      !renumber_counters (self, c->ring->pid, (SysprofCaptureFrame *) (void *) self->frame))
    {
      self->n_lost++;
      return TRUE;
    }
  if (c->next.type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK &&
      is_stream_path (((const SysprofCaptureFileChunk *) (const void *) self->frame)->path) &&
      (frame = take_stream_chunk (self, c->ring, len)) == NULL)
    {
      /* Refused: this frame is lost, not the ring. */
      self->n_lost++;
      return TRUE;
    }
  if (!sysprof_capture_writer_add_raw (self->writer, frame))
    {
      /* The frame is lost, not the ring: the disk is full, or the capture
       * reached its size (the writer's own cap, or the file size limit). */
      if (errno == EFBIG)
        self->limit_reached = TRUE;
      self->n_lost++;
      return TRUE;
    }
  self->n_frames++;
  if (c->next.type == SYSPROF_CAPTURE_FRAME_METADATA)
    count_reported (self, self->frame, len);
  return TRUE;
}

static void
ensure_cursors (SysprofRingDrainer *self, guint n)
{
  if (n <= self->n_allocated)
    return;
  self->cursors = g_renew (Cursor, self->cursors, n);
  self->heap = g_renew (guint, self->heap, n);
  self->n_allocated = n;
}

/* Copies what the rings hold now, merged by time, up to the pass budgets.
 * Each ring is in time order (one thread writes it), and a reader of the
 * capture must see an allocation before a free of it done by another thread
 * just after: the ring whose next frame is the earliest goes first, found
 * with a binary heap (log2 of the rings per frame).  Stopping at a budget
 * keeps the order: everything copied came before everything left.
 *
 * The rings are looked at one after the other, so a frame published in ring
 * A just after we looked at A, then one in ring B stamped later, would be
 * written first.  Hence the horizon: a pass takes only frames stamped before
 * it started (until close).  A frame stamped after another was published
 * (the memory tracker's thread that writes another thread's last block, after
 * taking it over from that thread) is then never written before it: if the
 * later one is taken, it was stamped before the pass began, so the earlier
 * was already published when we looked.  Returns TRUE when frames were left
 * for the next pass. */
static gboolean
drain_pass (SysprofRingDrainer *self)
{
  guint    n = self->rings->len;
  guint    n_heap = 0;
  guint    frames = 0;
  gsize    bytes = 0;
  gboolean left = FALSE;
  gint64   horizon = self->closed ? G_MAXINT64 : SYSPROF_CAPTURE_CURRENT_TIME;

  self->last_frames = 0;
  self->last_bytes = 0;
  if (self->writer == NULL || n == 0)
    return FALSE;
  ensure_cursors (self, n);
  for (guint i = 0; i < n; i++)
    {
      Cursor *c = &self->cursors[i];

      memset (c, 0, sizeof *c);
      c->ring = g_ptr_array_index (self->rings, i);
      c->horizon = horizon;
      if (c->ring->ended)
        continue;
      if ((c->data = sysprof_mapped_ring_buffer_peek (c->ring->buffer, &c->avail)) == NULL)
        c->invalid = TRUE;
      else if (cursor_next (c))
        self->heap[n_heap++] = i;
    }
  for (guint i = n_heap / 2; i-- > 0;)
    heap_sift_down (self->cursors, self->heap, n_heap, i);

  while (n_heap > 0)
    {
      Cursor *c = &self->cursors[self->heap[0]];

      if (frames == SYSPROF_RING_DRAINER_PASS_FRAMES || c->next.len > SYSPROF_RING_DRAINER_PASS_BYTES - bytes)
        {
          left = TRUE;
          break;
        }
      frames++;
      bytes += c->next.len;
      if (!take_frame (self, c))
        c->invalid = TRUE;
      else if (cursor_next (c))
        {
          heap_sift_down (self->cursors, self->heap, n_heap, 0);
          continue;
        }
      /* This ring is done for this pass. */
      self->heap[0] = self->heap[--n_heap];
      heap_sift_down (self->cursors, self->heap, n_heap, 0);
    }

  for (guint i = 0; i < n; i++)
    {
      Cursor *c = &self->cursors[i];

      /* An invalid ring has lost its frame boundaries: drop what it holds.
       * Consuming fails when the producer moved the tail back under us. */
      if (c->invalid || (c->pos > 0 && !sysprof_mapped_ring_buffer_consume (c->ring->buffer, c->pos)))
        {
          self->n_lost++;
          sysprof_mapped_ring_buffer_clear (c->ring->buffer);
        }
    }
  self->last_frames = frames;
  self->last_bytes = bytes;
  return left;
}

gboolean
_sysprof_ring_drainer_drain_pass (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), FALSE);
  return drain_pass (self);
}

void
_sysprof_ring_drainer_get_last_pass (SysprofRingDrainer *self, guint *n_frames, gsize *n_bytes)
{
  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));
  *n_frames = self->last_frames;
  *n_bytes = self->last_bytes;
}

static gboolean
drain_all_cb (gpointer data)
{
  SysprofRingDrainer *self = data;
  gint64              deadline = g_get_monotonic_time () + DRAIN_SLICE_US;

  /* Pass after pass while frames are left, for at most the slice: one pass
   * a tick capped draining at 8192 frames a millisecond, which a memory
   * trace outruns (its producer then waited for room in its ring). */
  while (drain_pass (self) && g_get_monotonic_time () < deadline)
    ;
  for (guint i = 0; i < self->rings->len;)
    {
      Ring *ring = g_ptr_array_index (self->rings, i);

      if (ring->ended)
        g_ptr_array_remove_index (self->rings, i);
      else
        i++;
    }
  if (self->rings->len == 0)
    {
      g_clear_pointer (&self->source, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
ensure_source (SysprofRingDrainer *self)
{
  GSource *source;

  if (self->source != NULL)
    return;
  source = g_timeout_source_new (DRAIN_MS);
  /* Ahead of D-Bus calls and perf records: a full ring stalls its producer.
   * A pass is bounded, so what runs at a lower priority still gets the time
   * between passes. */
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, drain_all_cb, self, NULL);
  g_source_set_static_name (source, "[sysprof-ring-drainer]");
  g_source_attach (source, self->context);
  self->source = source;
}

int
sysprof_ring_drainer_create_ring (SysprofRingDrainer *self, guint n_pages, GError **error)
{
  Ring *ring;
  int   fd;

  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), -1);

  if (n_pages == 0)
    n_pages = SYSPROF_RING_DRAINER_DEFAULT_PAGES;
  if ((n_pages & (n_pages - 1)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "a ring buffer has a power of two of data pages, not %u", n_pages);
      return -1;
    }
  if (n_pages > SYSPROF_RING_DRAINER_MAX_PAGES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "a ring buffer has at most %u data pages, not %u",
                   SYSPROF_RING_DRAINER_MAX_PAGES, n_pages);
      return -1;
    }
  if (self->closed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "the recording no longer takes ring buffers");
      return -1;
    }
  if (self->rings->len >= self->max_rings)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                   "at most %u ring buffers may be open at once (one per thread of a traced program)", self->max_rings);
      return -1;
    }

  ring = g_new0 (Ring, 1);
  if (!(ring->buffer = sysprof_mapped_ring_buffer_new_reader ((size_t) n_pages * (size_t) sysconf (_SC_PAGESIZE))) ||
      (fd = sysprof_mapped_ring_buffer_dup_fd (ring->buffer)) < 0)
    {
      int saved = errno;

      ring_free (ring);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create a ring buffer: %s",
                   g_strerror (saved));
      return -1;
    }
  g_ptr_array_add (self->rings, ring);
  ensure_source (self);
  return fd;
}

void
sysprof_ring_drainer_close (SysprofRingDrainer *self)
{
  guint64 budget = 0;
  guint64 taken = 0;

  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));

  if (self->closed)
    return;
  self->closed = TRUE;
  clear_source (self);
  /* What the rings hold, in passes of the usual size.  A producer still
   * running could keep us here, so no more than all of them can hold at once
   * (a pass that stops at a budget has taken 192 KiB at least). */
  for (guint i = 0; i < self->rings->len; i++)
    {
      Ring *ring = g_ptr_array_index (self->rings, i);

      budget += sysprof_mapped_ring_buffer_get_size (ring->buffer);
    }
  while (drain_pass (self) && (taken += self->last_bytes) < budget)
    ;
  g_ptr_array_set_size (self->rings, 0);
  if (self->writer != NULL && self->n_lost > 0)
    {
      g_autofree char *text =
          g_strdup_printf ("%" G_GUINT64_FORMAT " ring buffers: invalid frames, or frames not written (a write error "
                           "or the size limit)",
                           self->n_lost);

      sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                           SYSPROF_LOST_EVENTS_METADATA_ID, text, -1);
    }
  if (self->writer != NULL && (self->stream_blocks > 0 || self->stream_refused > 0))
    {
      g_autofree char *text = g_strdup_printf (
          "blocks=%" G_GUINT64_FORMAT " raw-bytes=%" G_GUINT64_FORMAT " stored-bytes=%" G_GUINT64_FORMAT
          " compressed=%" G_GUINT64_FORMAT " refused=%" G_GUINT64_FORMAT " zstd-level=%d allocations=%" G_GUINT64_FORMAT
          " releases=%" G_GUINT64_FORMAT " stacks=%" G_GUINT64_FORMAT " lost=%" G_GUINT64_FORMAT,
          self->stream_blocks, self->stream_raw_bytes, self->stream_stored_bytes, self->stream_packed,
          self->stream_refused, SYSPROF_RING_DRAINER_ZSTD_LEVEL, self->stream_counts.allocations,
          self->stream_counts.releases, self->stream_counts.stacks, self->stream_counts.lost);

      sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                           SYSPROF_MEMORY_STREAM_METADATA_ID, text, -1);
    }
}

guint
sysprof_ring_drainer_get_n_rings (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return self->rings->len;
}

guint64
sysprof_ring_drainer_get_n_bytes (SysprofRingDrainer *self)
{
  guint64 total = 0;
  long    page = sysconf (_SC_PAGESIZE);

  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  for (guint i = 0; i < self->rings->len; i++)
    {
      Ring *ring = g_ptr_array_index (self->rings, i);

      total += (guint64) sysprof_mapped_ring_buffer_get_size (ring->buffer) + (guint64) (page > 0 ? page : 4096);
    }
  return total;
}

guint64
sysprof_ring_drainer_get_n_frames (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return self->n_frames;
}

guint64
sysprof_ring_drainer_get_n_lost (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return add_saturated (self->n_lost, self->n_reported);
}

gboolean
sysprof_ring_drainer_get_limit_reached (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), FALSE);
  return self->limit_reached;
}

guint64
sysprof_ring_drainer_get_n_stream_events (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return self->stream_counts.allocations + self->stream_counts.releases;
}

void
sysprof_ring_drainer_get_memory_streams (SysprofRingDrainer *self,
                                         guint64            *n_blocks,
                                         guint64            *n_compressed,
                                         guint64            *n_refused,
                                         guint64            *raw_bytes,
                                         guint64            *stored_bytes)
{
  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));
  if (n_blocks != NULL)
    *n_blocks = self->stream_blocks;
  if (n_compressed != NULL)
    *n_compressed = self->stream_packed;
  if (n_refused != NULL)
    *n_refused = self->stream_refused;
  if (raw_bytes != NULL)
    *raw_bytes = self->stream_raw_bytes;
  if (stored_bytes != NULL)
    *stored_bytes = self->stream_stored_bytes;
}
