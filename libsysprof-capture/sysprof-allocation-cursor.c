// SPDX-License-Identifier: BSD-2-Clause-Patent
/* Every allocation event of a capture, in time order, from ALLOCATION frames
 * and memory streams (memory-stream.md) together.
 *
 * The blocks of a stream are spread over the capture, and a block of an idle
 * thread can be written long after its events, so capture order is not time
 * order: the cursor merges sources by time.  A first pass indexes the blocks
 * of every stream (offset, a lower bound of the times of the events left in
 * the stream from that block on, next block: 24 bytes each).  The merge then
 * keeps a heap of sources keyed by the time of their next event; a stream
 * whose next block is not loaded is keyed by that block's lower bound, and
 * loaded (one seek of a private reader) only when it reaches the top.  So only
 * the streams whose events are being merged hold a block, thousands of
 * threads cost their stack tables and little else, and nothing grows with
 * the number of events.  A reader per stream would be simpler but holds a
 * 512 KiB buffer and a file descriptor each. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "sysprof-allocation-cursor.h"
#include "sysprof-capture-reader-private.h"
#include "sysprof-capture-util-private.h"
#include "sysprof-memory-stream-private.h"

#define NONE UINT32_MAX

typedef struct
{
  uint64_t offset; /* of the FILE_CHUNK frame */
  int64_t  lower;  /* no event of the stream from this block on is earlier */
  uint32_t next;   /* the stream's next block, or NONE */
  uint32_t padding;
} Block;

typedef struct
{
  int32_t                     pid;
  int32_t                     tid;
  bool                        plain; /* the ALLOCATION frames */
  bool                        ready; /* head is the next event; else block is to be loaded */
  uint32_t                    first; /* first block */
  uint32_t                    block; /* current block, or the last one while indexing */
  uint32_t                    n_blocks;
  SysprofMemoryStreamDecoder *decoder;
  /* Of its decoder, once freed. */
  uint64_t               lost;
  uint64_t               errors;
  SysprofAllocationEvent head;
  int64_t                key_time;
  uint64_t               key_offset;
} Source;

/* (pid, tid) to the stream still open with that thread id; NONE once it ended. */
typedef struct
{
  uint64_t key;
  uint32_t source;
  bool     used;
} OpenSlot;

struct _SysprofAllocationCursor
{
  atomic_int ref_count;

  SysprofCaptureReader          *blocks_reader;
  SysprofCaptureReader          *plain_reader;
  SysprofMemoryStreamShared     *shared;
  SysprofCaptureError            capture_error;
  SysprofAllocationCursorOptions options;

  Block   *blocks;
  uint32_t n_blocks;
  size_t   blocks_size;

  Source  *sources;
  uint32_t n_sources;
  size_t   sources_size;

  uint32_t *heap;
  uint32_t  n_heap;
  /* The least key time of the sources below the top: while the top's next
   * event is earlier, the top stays (threads holding a lock, such as
   * python3's GIL, write long runs of events), so no sift is needed. */
  int64_t  limit;
  uint32_t pending; /* the source of the event last returned, advanced on the next call */

  uint64_t first_plain_offset;
  uint64_t last_plain_offset;

  uint64_t last_offset;
  uint64_t events;
  uint64_t allocation_frames;
  uint64_t n_streams;
  uint64_t errors;
  /* Of the decoders already freed. */
  uint64_t done_errors;
  uint64_t done_lost;
  uint64_t done_stacks;

  char error[512];
};

static void note_error (SysprofAllocationCursor *self, const char *format, ...) SYSPROF_PRINTF (2, 3);

static void
note_error (SysprofAllocationCursor *self, const char *format, ...)
{
  va_list args;

  self->errors++;
  if (self->error[0] != 0)
    return;
  va_start (args, format);
  vsnprintf (self->error, sizeof self->error, format, args);
  va_end (args);
}

/* A decoder's first error is the cursor's when the cursor has none yet. */
static void
note_decoder_error (SysprofAllocationCursor *self, SysprofMemoryStreamDecoder *decoder)
{
  const char *message;

  if (self->error[0] == 0 && (message = sysprof_memory_stream_decoder_get_error (decoder)))
    snprintf (self->error, sizeof self->error, "%s", message);
}

/* ------------------------------------------------------------------------ */
/* First pass: the blocks of every stream */

static bool
add_source (SysprofAllocationCursor *self, uint32_t *index)
{
  if (!_sysprof_grow ((void **) &self->sources, &self->sources_size, self->n_sources, sizeof *self->sources, 64,
                      NONE - 1))
    return false;
  *index = self->n_sources++;
  memset (&self->sources[*index], 0, sizeof self->sources[*index]);
  return true;
}

typedef struct
{
  OpenSlot *slots;
  size_t    mask;
  size_t    used;
} OpenMap;

static inline size_t
open_home (const OpenMap *map, uint64_t key)
{
  return (size_t) ((key * 0x9E3779B97F4A7C15u) >> 20) & map->mask;
}

static OpenSlot *
open_lookup (OpenMap *map, uint64_t key)
{
  size_t i;

  if ((map->used + 1) * 2 > (map->slots ? map->mask + 1 : 0))
    {
      size_t    size = map->slots ? (map->mask + 1) * 2 : 256;
      OpenSlot *slots = calloc (size, sizeof *slots);
      OpenMap   grown = { slots, size - 1, map->used };

      if (slots == NULL)
        return NULL;
      if (map->slots != NULL)
        for (size_t j = 0; j <= map->mask; j++)
          if (map->slots[j].used)
            {
              for (i = open_home (&grown, map->slots[j].key); slots[i].used; i = (i + 1) & grown.mask)
                ;
              slots[i] = map->slots[j];
            }
      free (map->slots);
      *map = grown;
    }

  for (i = open_home (map, key); map->slots[i].used; i = (i + 1) & map->mask)
    if (map->slots[i].key == key)
      return &map->slots[i];
  map->slots[i].used = true;
  map->slots[i].key = key;
  map->slots[i].source = NONE;
  map->used++;
  return &map->slots[i];
}

/* The smallest time an event of @data can have: its base_time (every dt is
 * unsigned), read without decoding the records.  INT64_MAX for a block that
 * holds no events or cannot be read (the decoder will say why). */
static int64_t
block_lower_bound (SysprofAllocationCursor *self, const uint8_t *data, size_t len, uint8_t **raw, size_t *raw_size)
{
  const uint8_t *p;
  size_t         raw_len = len;
  uint64_t       base;
  char           why[192];

  if (len == 0)
    return INT64_MAX;
  if (data[0] == SYSPROF_MEMORY_STREAM_BLOCK_ZSTD)
    {
      if (!_sysprof_memory_stream_inflate (self->shared, data, len, raw, raw_size, &raw_len, why, sizeof why))
        return INT64_MAX;
      data = *raw;
    }
  if (raw_len == 0 || data[0] != SYSPROF_MEMORY_STREAM_BLOCK_RAW)
    return INT64_MAX;
  p = data + 1;
  if (_sysprof_read_varint (&p, data + raw_len, &base) != SYSPROF_VARINT_OK || base > INT64_MAX)
    return INT64_MAX;
  return (int64_t) base;
}

static bool
index_chunk (SysprofAllocationCursor       *self,
             OpenMap                       *open,
             const SysprofCaptureFileChunk *chunk,
             uint64_t                       offset,
             uint8_t                      **raw,
             size_t                        *raw_size)
{
  OpenSlot *slot;
  Source   *source;
  int32_t   tid;
  uint32_t  index;

  if (!sysprof_memory_stream_parse_path (chunk->path, &tid))
    {
      note_error (self,
                  "the FILE_CHUNK frame at capture offset %" PRIu64 " has the path \"%.64s\", which names no thread",
                  offset, chunk->path);
      return true;
    }
  if (self->n_blocks == NONE - 1)
    {
      note_error (self, "the capture has more than %u memory stream blocks; the rest are ignored", NONE - 1);
      return true;
    }

  if (!(slot = open_lookup (open, ((uint64_t) (uint32_t) chunk->frame.pid << 32) | (uint32_t) tid)))
    return false;
  if (slot->source == NONE)
    {
      if (!add_source (self, &index))
        return false;
      slot->source = index;
      self->sources[index].pid = chunk->frame.pid;
      self->sources[index].tid = tid;
      self->sources[index].block = NONE;
      self->n_streams++;
    }
  source = &self->sources[slot->source];
  source->n_blocks++;

  if (!_sysprof_grow ((void **) &self->blocks, &self->blocks_size, self->n_blocks, sizeof *self->blocks, 256, NONE))
    return false;
  self->blocks[self->n_blocks] = (Block){
    .offset = offset,
    .lower = block_lower_bound (self, chunk->data, chunk->len, raw, raw_size),
    .next = NONE,
  };
  if (source->block == NONE)
    source->first = self->n_blocks;
  else
    self->blocks[source->block].next = self->n_blocks;
  source->block = self->n_blocks++;

  /* A thread id used again after its thread ended starts another stream. */
  if (chunk->is_last)
    slot->source = NONE;
  return true;
}

static bool
index_capture (SysprofAllocationCursor *self)
{
  SysprofCaptureReader      *r = self->blocks_reader;
  OpenMap                    open = { 0 };
  _sysprof_autofree uint8_t *raw = NULL;
  size_t                     raw_size = 0;
  SysprofCaptureFrameType    type;
  const size_t               prefix_len = sizeof SYSPROF_MEMORY_STREAM_PATH_PREFIX - 1;
  bool                       ok = true;

  uint64_t n_frames = 0;

  while (ok && sysprof_capture_reader_peek_type (r, &type))
    {
      /* peek stepped over any index frame: this is the frame's offset. */
      uint64_t                       offset = sysprof_capture_reader_get_offset (r);
      const SysprofCaptureFileChunk *chunk;

      if (self->options.progress != NULL && (++n_frames & 0xffff) == 0)
        self->options.progress (offset, self->options.user_data);

      if (type < 64 ? (self->options.frame_types >> type) & 1 : self->options.frame_types == UINT64_MAX)
        {
          if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
            self->allocation_frames++;
          if (!self->options.frame_func (r, type, self->options.user_data))
            {
              free (open.slots);
              self->capture_error = *sysprof_capture_reader_get_error (r);
              errno = ECANCELED;
              return false;
            }
          if (type != SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
            {
              if (sysprof_capture_reader_get_offset (r) == offset)
                sysprof_capture_reader_skip (r);
              continue;
            }
          /* A stream chunk given to the caller is still a stream's block:
           * read again if the caller read it, then indexed. */
          if (sysprof_capture_reader_get_offset (r) != offset && !_sysprof_capture_reader_seek (r, offset))
            break;
        }

      if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
        {
          if (sysprof_capture_reader_read_allocation (r) == NULL)
            {
              note_error (self, "%s", sysprof_capture_reader_get_error (r)->message);
              sysprof_capture_reader_skip (r);
              continue;
            }
          self->allocation_frames++;
          if (self->last_plain_offset == 0)
            self->first_plain_offset = offset;
          self->last_plain_offset = offset;
        }
      else if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
        {
          if (!(chunk = sysprof_capture_reader_read_file (r)))
            {
              note_error (self, "%s", sysprof_capture_reader_get_error (r)->message);
              sysprof_capture_reader_skip (r);
              continue;
            }
          if (strncmp (chunk->path, SYSPROF_MEMORY_STREAM_PATH_PREFIX, prefix_len) == 0)
            ok = index_chunk (self, &open, chunk, offset, &raw, &raw_size);
        }
      else
        sysprof_capture_reader_skip (r);
    }
  free (open.slots);
  self->capture_error = *sysprof_capture_reader_get_error (r);
  if (self->options.progress != NULL)
    self->options.progress (sysprof_capture_reader_get_offset (r), self->options.user_data);
  if (!ok)
    {
      errno = ENOMEM;
      return false;
    }

  /* Blocks point only forward: from the last to the first, each lower bound
   * becomes the least of its stream's blocks from it on, since a block with
   * no events (or an unsound one) says nothing of the blocks after it. */
  for (uint32_t i = self->n_blocks; i-- > 0;)
    if (self->blocks[i].next != NONE && self->blocks[self->blocks[i].next].lower < self->blocks[i].lower)
      self->blocks[i].lower = self->blocks[self->blocks[i].next].lower;
  return true;
}

/* ------------------------------------------------------------------------ */
/* The merge */

static inline bool
source_before (const SysprofAllocationCursor *self, uint32_t a, uint32_t b)
{
  const Source *sa = &self->sources[a];
  const Source *sb = &self->sources[b];

  if (sa->key_time != sb->key_time)
    return sa->key_time < sb->key_time;
  if (sa->key_offset != sb->key_offset)
    return sa->key_offset < sb->key_offset;
  return a < b;
}

static void
heap_sift_down (SysprofAllocationCursor *self, uint32_t i)
{
  uint32_t *heap = self->heap;
  uint32_t  item = heap[i];

  for (;;)
    {
      uint32_t child = 2 * i + 1;

      if (child >= self->n_heap)
        break;
      if (child + 1 < self->n_heap && source_before (self, heap[child + 1], heap[child]))
        child++;
      if (!source_before (self, heap[child], item))
        break;
      heap[i] = heap[child];
      i = child;
    }
  heap[i] = item;
}

static void
heap_pop (SysprofAllocationCursor *self)
{
  self->heap[0] = self->heap[--self->n_heap];
  if (self->n_heap > 0)
    heap_sift_down (self, 0);
}

/* Only the top's key changes between two sifts: the children's least key
 * holds until the top changes. */
static void
heap_set_limit (SysprofAllocationCursor *self)
{
  self->limit = INT64_MAX;
  for (uint32_t i = 1; i < 3 && i < self->n_heap; i++)
    if (self->sources[self->heap[i]].key_time < self->limit)
      self->limit = self->sources[self->heap[i]].key_time;
}

/* After the top source moved on (@more: it has another event). */
static inline void
heap_top_moved (SysprofAllocationCursor *self, bool more)
{
  if (more && self->sources[self->heap[0]].key_time < self->limit)
    return;
  if (more)
    heap_sift_down (self, 0);
  else
    heap_pop (self);
  heap_set_limit (self);
}

static void
stream_wait_for (SysprofAllocationCursor *self, Source *source, uint32_t block)
{
  source->ready = false;
  source->block = block;
  source->key_time = self->blocks[block].lower;
  source->key_offset = self->blocks[block].offset;
}

static void
stream_finish (SysprofAllocationCursor *self, Source *source)
{
  SysprofMemoryStreamStats stats;

  if (source->decoder != NULL)
    {
      sysprof_memory_stream_decoder_get_stats (source->decoder, &stats);
      source->lost = stats.lost;
      source->errors = stats.errors;
      self->done_errors += stats.errors;
      self->done_lost = stats.lost > UINT64_MAX - self->done_lost ? UINT64_MAX : self->done_lost + stats.lost;
      self->done_stacks += stats.stacks;
      sysprof_memory_stream_decoder_free (source->decoder);
      source->decoder = NULL;
    }
}

/* Moves the stream at the top of the heap to its next event: from its
 * current block, or from the blocks after it.  Returns false when the
 * stream is over (the caller pops it). */
static bool
stream_step (SysprofAllocationCursor *self, Source *source)
{
  uint32_t next;
  bool     got;

  if (source->ready)
    {
      got = sysprof_memory_stream_decoder_next (source->decoder, &source->head);
      if (got)
        {
          source->key_time = source->head.time;
          return true;
        }
      /* A problem ends the block: the decoder says what it was now. */
      note_decoder_error (self, source->decoder);
      _sysprof_memory_stream_decoder_trim (source->decoder);
      next = self->blocks[source->block].next;
      if (next == NONE)
        {
          stream_finish (self, source);
          return false;
        }
      stream_wait_for (self, source, next);
      return true;
    }

  /* Load the block it waits for; a block without events lets the stream
   * wait for the one after it. */
  {
    const Block                   *block = &self->blocks[source->block];
    const SysprofCaptureFileChunk *chunk = NULL;

    if (source->decoder == NULL &&
        !(source->decoder = _sysprof_memory_stream_decoder_new_shared (source->pid, source->tid, self->shared)))
      note_error (self, "out of memory for the memory stream of thread %d of process %d", source->tid, source->pid);
    else if (!_sysprof_capture_reader_seek (self->blocks_reader, block->offset) ||
             !(chunk = sysprof_capture_reader_read_file (self->blocks_reader)))
      note_error (self, "the FILE_CHUNK frame at capture offset %" PRIu64 " cannot be read again", block->offset);
    else if (!sysprof_memory_stream_decoder_feed (source->decoder, chunk->data, chunk->len, block->offset))
      note_error (self, "out of memory for the block at capture offset %" PRIu64, block->offset);
    else
      {
        source->ready = true;
        return stream_step (self, source);
      }

    if (block->next == NONE)
      {
        stream_finish (self, source);
        return false;
      }
    stream_wait_for (self, source, block->next);
    return true;
  }
}

static bool
plain_step (SysprofAllocationCursor *self, Source *source)
{
  SysprofCaptureReader   *r = self->plain_reader;
  SysprofCaptureFrameType type;

  while (sysprof_capture_reader_peek_type (r, &type))
    {
      uint64_t                        offset = sysprof_capture_reader_get_offset (r);
      const SysprofCaptureAllocation *a;

      if (offset > self->last_plain_offset)
        break;
      /* Unsound frames were counted by the first pass. */
      if (type != SYSPROF_CAPTURE_FRAME_ALLOCATION || !(a = sysprof_capture_reader_read_allocation (r)))
        {
          sysprof_capture_reader_skip (r);
          continue;
        }
      sysprof_allocation_event_from_frame (a, offset, &source->head);
      source->key_time = a->frame.time;
      source->key_offset = offset;
      return true;
    }
  return false;
}

static bool
cursor_start (SysprofAllocationCursor *self)
{
  uint32_t plain;

  if (self->last_plain_offset > 0)
    {
      if (!(self->plain_reader = sysprof_capture_reader_copy (self->blocks_reader)) ||
          !_sysprof_capture_reader_seek (self->plain_reader, self->first_plain_offset) || !add_source (self, &plain))
        return false;
      self->sources[plain].plain = true;
      self->sources[plain].ready = true;
    }

  if (self->n_sources > 0 && !(self->heap = malloc (self->n_sources * sizeof *self->heap)))
    return false;
  for (uint32_t i = 0; i < self->n_sources; i++)
    {
      Source *source = &self->sources[i];

      if (source->plain)
        {
          if (!plain_step (self, source))
            continue;
        }
      else
        stream_wait_for (self, source, source->first);
      self->heap[self->n_heap++] = i;
    }
  for (uint32_t i = self->n_heap / 2; i-- > 0;)
    heap_sift_down (self, i);
  heap_set_limit (self);
  return true;
}

SysprofAllocationCursor *
sysprof_allocation_cursor_new (SysprofCaptureReader *reader)
{
  return sysprof_allocation_cursor_new_full (reader, NULL);
}

SysprofAllocationCursor *
sysprof_allocation_cursor_new_full (SysprofCaptureReader *reader, const SysprofAllocationCursorOptions *options)
{
  SysprofAllocationCursor *self;

  sysprof_return_val_if_fail (reader != NULL, NULL);
  sysprof_return_val_if_fail (options == NULL || options->size >= sizeof *options, NULL);
  sysprof_return_val_if_fail (options == NULL || options->frame_types == 0 || options->frame_func != NULL, NULL);

  if (!(self = calloc (1, sizeof *self)))
    return NULL;
  atomic_init (&self->ref_count, 1);
  if (options != NULL)
    self->options = *options;
  self->pending = NONE;
  if (!(self->shared = _sysprof_memory_stream_shared_new (SYSPROF_MEMORY_STREAM_MAX_STORED_STACKS,
                                                          SYSPROF_MEMORY_STREAM_MAX_STORED_FRAMES)) ||
      !(self->blocks_reader = sysprof_capture_reader_copy (reader)) ||
      !sysprof_capture_reader_reset (self->blocks_reader) || !index_capture (self) || !cursor_start (self))
    {
      int saved = errno ? errno : ENOMEM;

      sysprof_allocation_cursor_unref (self);
      errno = saved;
      return NULL;
    }
  return self;
}

SysprofAllocationCursor *
sysprof_allocation_cursor_ref (SysprofAllocationCursor *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);

  atomic_fetch_add (&self->ref_count, 1);
  return self;
}

void
sysprof_allocation_cursor_unref (SysprofAllocationCursor *self)
{
  if (self == NULL || atomic_fetch_sub (&self->ref_count, 1) != 1)
    return;

  for (uint32_t i = 0; i < self->n_sources; i++)
    sysprof_memory_stream_decoder_free (self->sources[i].decoder);
  free (self->sources);
  free (self->blocks);
  free (self->heap);
  _sysprof_memory_stream_shared_free (self->shared);
  sysprof_capture_reader_unref (self->blocks_reader);
  sysprof_capture_reader_unref (self->plain_reader);
  free (self);
}

bool
sysprof_allocation_cursor_next (SysprofAllocationCursor *self, SysprofAllocationEvent *event)
{
  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (event != NULL, false);

  /* The source of the last event is still at the top: its next event is only
   * read now, since reading it may free the frames handed out. */
  if (self->pending != NONE)
    {
      Source *source = &self->sources[self->pending];
      bool    more = source->plain ? plain_step (self, source) : stream_step (self, source);

      self->pending = NONE;
      heap_top_moved (self, more);
    }

  while (self->n_heap > 0)
    {
      uint32_t top = self->heap[0];
      Source  *source = &self->sources[top];

      if (!source->ready)
        {
          heap_top_moved (self, stream_step (self, source));
          continue;
        }

      *event = source->head;
      self->pending = top;
      self->events++;
      self->last_offset = source->head.offset;
      return true;
    }
  return false;
}

void
sysprof_allocation_cursor_get_stats (SysprofAllocationCursor *self, SysprofAllocationCursorStats *stats)
{
  sysprof_return_if_fail (self != NULL);
  sysprof_return_if_fail (stats != NULL);

  memset (stats, 0, sizeof *stats);
  stats->events = self->events;
  stats->allocation_frames = self->allocation_frames;
  stats->streams = self->n_streams;
  stats->blocks = self->n_blocks;
  stats->errors = self->errors + self->done_errors;
  stats->lost = self->done_lost;
  stats->stacks = self->done_stacks;
  for (uint32_t i = 0; i < self->n_sources; i++)
    if (self->sources[i].decoder != NULL)
      {
        SysprofMemoryStreamStats s;

        sysprof_memory_stream_decoder_get_stats (self->sources[i].decoder, &s);
        stats->errors += s.errors;
        stats->lost = s.lost > UINT64_MAX - stats->lost ? UINT64_MAX : stats->lost + s.lost;
        stats->stacks += s.stacks;
      }
}

const char *
sysprof_allocation_cursor_get_error (SysprofAllocationCursor *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return self->error[0] ? self->error : NULL;
}

const SysprofCaptureError *
sysprof_allocation_cursor_get_capture_error (SysprofAllocationCursor *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return &self->capture_error;
}

bool
sysprof_allocation_cursor_get_stream (SysprofAllocationCursor *self, uint64_t index, SysprofAllocationStreamInfo *info)
{
  const Source *source;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (info != NULL, false);

  /* Streams are the first sources, in the order the first pass met them. */
  if (index >= self->n_streams)
    {
      errno = EINVAL;
      return false;
    }
  source = &self->sources[index];
  memset (info, 0, sizeof *info);
  info->pid = source->pid;
  info->tid = source->tid;
  info->blocks = source->n_blocks;
  info->lost = source->lost;
  info->errors = source->errors;
  if (source->decoder != NULL)
    {
      SysprofMemoryStreamStats stats;

      sysprof_memory_stream_decoder_get_stats (source->decoder, &stats);
      info->lost = stats.lost;
      info->errors = stats.errors;
    }
  return true;
}

uint64_t
sysprof_allocation_cursor_get_offset (SysprofAllocationCursor *self)
{
  sysprof_return_val_if_fail (self != NULL, 0);
  return self->last_offset;
}
