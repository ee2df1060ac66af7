// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCatCompactor: allocation events to memory streams (see the header).
 *
 * Memory: a stream holds its stack table (each distinct stack once) and,
 * while it is being written, one block buffer of 60 KiB.  At most
 * MAX_OPEN_BLOCKS streams hold a buffer: a program of thousands of threads
 * gets its least recently active streams' blocks written early (smaller
 * blocks) rather than gigabytes of buffers.  Stack tables are bounded as the
 * readers bound them (memory-stream.md, "Errors"): a stream that would define
 * more ids than a reader keeps is reset first, and when all the streams
 * together would pass half of what a reader keeps over all streams, every
 * stream is reset.  Half, because a reader merging by time may still hold
 * the old definitions of a stream whose reset it has not reached while it
 * reads the new ones of another. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysprof-cat-compactor.h"
#include "sysprof-thread-map.h"

#define MAX_OPEN_BLOCKS   1024
#define GLOBAL_MAX_STACKS (SYSPROF_MEMORY_STREAM_MAX_STORED_STACKS / 2)
#define GLOBAL_MAX_FRAMES (SYSPROF_MEMORY_STREAM_MAX_STORED_FRAMES / 2)

typedef struct
{
  uint64_t hash;
  uint64_t id; /* 0: empty slot */
  uint64_t start;
  uint32_t n_frames;
  uint32_t padding;
} StackEntry;

typedef struct
{
  int32_t                    pid;
  int32_t                    tid;
  int64_t                    last_time;
  uint8_t                   *buffer; /* NULL: no block being written */
  SysprofMemoryStreamEncoder encoder;
  uint32_t                   open_slot;
  bool                       started; /* a block was written */
  /* The stack table: ids 1..n_ids, frames in one array. */
  StackEntry            *entries;
  size_t                 entries_size; /* power of two, or 0 */
  uint64_t               n_ids;
  SysprofCaptureAddress *frames;
  size_t                 n_frames;
  size_t                 frames_size;
} Stream;

struct _SysprofCatCompactor
{
  SysprofCaptureWriter    *writer;
  int                      level;
  Stream                 **streams;
  size_t                   n_streams;
  size_t                   streams_size;
  SysprofThreadMap         by_thread;
  Stream                  *open[MAX_OPEN_BLOCKS];
  uint32_t                 n_open;
  uint64_t                 total_ids;
  uint64_t                 total_frames;
  uint8_t                  zblock[SYSPROF_MEMORY_STREAM_MAX_BLOCK];
  SysprofCatCompactorStats stats;
};

static uint64_t
mix (uint64_t h, uint64_t v)
{
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

static bool
grow (void **items, size_t *size, size_t need, size_t item_size)
{
  size_t new_size = *size ? *size : 64;
  void  *p;

  if (need <= *size)
    return true;
  while (new_size < need)
    new_size *= 2;
  if (!(p = realloc (*items, new_size * item_size)))
    {
      errno = ENOMEM;
      return false;
    }
  *items = p;
  *size = new_size;
  return true;
}

SysprofCatCompactor *
sysprof_cat_compactor_new (SysprofCaptureWriter *writer, int level)
{
  SysprofCatCompactor *self = calloc (1, sizeof *self);

  if (self == NULL)
    {
      errno = ENOMEM;
      return NULL;
    }
  self->writer = writer;
  self->level = level;
  return self;
}

static void
stream_forget_stacks (SysprofCatCompactor *self, Stream *s)
{
  self->total_ids -= s->n_ids;
  self->total_frames -= s->n_frames;
  free (s->entries);
  free (s->frames);
  s->entries = NULL;
  s->frames = NULL;
  s->entries_size = s->n_frames = s->frames_size = 0;
  s->n_ids = 0;
}

static void
stream_free (SysprofCatCompactor *self, Stream *s)
{
  stream_forget_stacks (self, s);
  free (s->buffer);
  free (s);
}

void
sysprof_cat_compactor_free (SysprofCatCompactor *self)
{
  if (self == NULL)
    return;
  for (size_t i = 0; i < self->n_streams; i++)
    stream_free (self, self->streams[i]);
  free (self->streams);
  sysprof_thread_map_clear (&self->by_thread);
  free (self);
}

/* Writes the block of @s (empty or not) as one FILE_CHUNK frame. */
static bool
write_block (SysprofCatCompactor *self, Stream *s, bool is_last)
{
  char           path[256];
  const uint8_t *data = NULL;
  size_t         len = 0;
  size_t         zlen = 0;

  if (s->buffer != NULL && !sysprof_memory_stream_encoder_is_empty (&s->encoder))
    {
      data = sysprof_memory_stream_encoder_get_block (&s->encoder, &len);
      /* A 'Z' block only where it is smaller; ENOSPC says it is not. */
      zlen = sysprof_memory_stream_compress (data, len, self->zblock, len - 1, self->level);
      if (zlen == 0 && errno != ENOSPC)
        return false;
      self->stats.raw_bytes += len;
      if (zlen > 0)
        {
          data = self->zblock;
          len = zlen;
          self->stats.compressed++;
        }
    }
  /* An empty last block is a chunk without data (memory-stream.md). */
  sysprof_memory_stream_format_path (path, sizeof path, s->tid);
  if (!sysprof_capture_writer_add_file (self->writer, s->last_time, -1, s->pid, path, is_last, data, len))
    return false;
  self->stats.blocks++;
  self->stats.stored_bytes += len;
  s->started = true;
  if (s->buffer != NULL)
    sysprof_memory_stream_encoder_clear (&s->encoder);
  return true;
}

/* Writes out and frees the buffer of the open stream in @slot. */
static bool
close_block (SysprofCatCompactor *self, uint32_t slot)
{
  Stream *s = self->open[slot];

  if (!sysprof_memory_stream_encoder_is_empty (&s->encoder) && !write_block (self, s, false))
    return false;
  free (s->buffer);
  s->buffer = NULL;
  self->open[slot] = self->open[--self->n_open];
  self->open[slot]->open_slot = slot;
  return true;
}

static bool
stream_open (SysprofCatCompactor *self, Stream *s)
{
  if (s->buffer != NULL)
    return true;
  if (self->n_open == MAX_OPEN_BLOCKS)
    {
      uint32_t oldest = 0;

      for (uint32_t i = 1; i < self->n_open; i++)
        if (self->open[i]->last_time < self->open[oldest]->last_time)
          oldest = i;
      if (!close_block (self, oldest))
        return false;
    }
  if (!(s->buffer = malloc (SYSPROF_MEMORY_STREAM_MAX_BLOCK)))
    {
      errno = ENOMEM;
      return false;
    }
  sysprof_memory_stream_encoder_init (&s->encoder, s->buffer, SYSPROF_MEMORY_STREAM_MAX_BLOCK);
  s->open_slot = self->n_open;
  self->open[self->n_open++] = s;
  return true;
}

static Stream *
find_stream (SysprofCatCompactor *self, int32_t pid, int32_t tid)
{
  Stream *s = sysprof_thread_map_lookup (&self->by_thread, pid, tid);

  if (s != NULL)
    return s;
  if (!grow ((void **) &self->streams, &self->streams_size, self->n_streams + 1, sizeof *self->streams) ||
      !(s = calloc (1, sizeof *s)) || !sysprof_thread_map_insert (&self->by_thread, pid, tid, s))
    {
      free (s);
      errno = ENOMEM;
      return NULL;
    }
  s->pid = pid;
  s->tid = tid;
  self->streams[self->n_streams++] = s;
  self->stats.streams++;
  return s;
}

static bool
add_reset (SysprofCatCompactor *self, Stream *s)
{
  if (!stream_open (self, s))
    return false;
  if (!sysprof_memory_stream_encoder_add_reset (&s->encoder))
    {
      if (!write_block (self, s, false))
        return false;
      sysprof_memory_stream_encoder_add_reset (&s->encoder);
    }
  stream_forget_stacks (self, s);
  self->stats.resets++;
  return true;
}

static uint64_t
hash_stack (const SysprofCaptureAddress *frames, unsigned int n)
{
  uint64_t h = n;

  for (unsigned int i = 0; i < n; i++)
    h = mix (h, frames[i]);
  return h;
}

/* The id of @frames in @s, defining it first when new (0 with errno on a
 * failure). */
static uint64_t
stack_id (SysprofCatCompactor *self, Stream *s, const SysprofCaptureAddress *frames, unsigned int n)
{
  uint64_t    hash = hash_stack (frames, n);
  StackEntry *e;
  size_t      mask;
  size_t      i;

  if (s->entries_size > 0)
    {
      mask = s->entries_size - 1;
      for (i = hash & mask; s->entries[i].id != 0; i = (i + 1) & mask)
        if (s->entries[i].hash == hash && s->entries[i].n_frames == n &&
            memcmp (s->frames + s->entries[i].start, frames, n * sizeof *frames) == 0)
          return s->entries[i].id;
    }

  /* A new stack: within what readers keep (see the top of the file). */
  if (s->n_ids + 1 > SYSPROF_MEMORY_STREAM_MAX_STACKS && !add_reset (self, s))
    return 0;
  if (self->total_ids + 1 > GLOBAL_MAX_STACKS || self->total_frames + n > GLOBAL_MAX_FRAMES)
    for (size_t j = 0; j < self->n_streams; j++)
      if (self->streams[j]->n_ids > 0 && !add_reset (self, self->streams[j]))
        return 0;

  if ((s->n_ids + 1) * 2 > s->entries_size)
    {
      size_t      new_size = s->entries_size ? s->entries_size * 2 : 64;
      StackEntry *entries = calloc (new_size, sizeof *entries);

      if (entries == NULL)
        {
          errno = ENOMEM;
          return 0;
        }
      for (size_t j = 0; j < s->entries_size; j++)
        if (s->entries[j].id != 0)
          {
            for (i = s->entries[j].hash & (new_size - 1); entries[i].id != 0; i = (i + 1) & (new_size - 1))
              ;
            entries[i] = s->entries[j];
          }
      free (s->entries);
      s->entries = entries;
      s->entries_size = new_size;
    }
  /* Resetting every stream may have written out this one's block. */
  if (!grow ((void **) &s->frames, &s->frames_size, s->n_frames + n, sizeof *s->frames) || !stream_open (self, s))
    return 0;

  if (!sysprof_memory_stream_encoder_add_stack (&s->encoder, s->n_ids + 1, frames, n))
    {
      if (!write_block (self, s, false))
        return 0;
      sysprof_memory_stream_encoder_add_stack (&s->encoder, s->n_ids + 1, frames, n);
    }
  self->stats.stacks++;

  mask = s->entries_size - 1;
  for (i = hash & mask; s->entries[i].id != 0; i = (i + 1) & mask)
    ;
  e = &s->entries[i];
  e->hash = hash;
  e->id = ++s->n_ids;
  e->start = s->n_frames;
  e->n_frames = n;
  memcpy (s->frames + s->n_frames, frames, n * sizeof *frames);
  s->n_frames += n;
  self->total_ids++;
  self->total_frames += n;
  return e->id;
}

bool
sysprof_cat_compactor_add (SysprofCatCompactor          *self,
                           const SysprofAllocationEvent *event,
                           const SysprofCaptureAddress  *frames)
{
  Stream  *s = find_stream (self, event->pid, event->tid);
  int64_t  time = event->time;
  uint64_t id = 0;
  bool     added;

  if (s == NULL || !stream_open (self, s))
    return false;

  /* Times never go backwards in a stream (nor below 0). */
  if (time < s->last_time || time < 0)
    {
      self->stats.backwards++;
      time = s->last_time;
    }
  s->last_time = time;

  if (event->size == 0)
    {
      if (event->n_frames > 0)
        self->stats.release_stacks++;
      added = sysprof_memory_stream_encoder_add_release (&s->encoder, time, event->address);
      if (!added)
        {
          if (!write_block (self, s, false))
            return false;
          sysprof_memory_stream_encoder_add_release (&s->encoder, time, event->address);
        }
      return true;
    }

  if (event->size < 0)
    self->stats.bad_sizes++;
  if (event->n_frames > 0)
    {
      unsigned int n = event->n_frames;

      if (n > SYSPROF_MEMORY_STREAM_MAX_FRAMES)
        {
          self->stats.long_stacks++;
          n = SYSPROF_MEMORY_STREAM_MAX_FRAMES;
        }
      if (!(id = stack_id (self, s, frames, n)))
        return false;
    }
  added = sysprof_memory_stream_encoder_add_allocation (&s->encoder, time, event->address,
                                                        event->size < 0 ? UINT64_MAX : (uint64_t) event->size, id);
  if (!added)
    {
      if (!write_block (self, s, false))
        return false;
      sysprof_memory_stream_encoder_add_allocation (&s->encoder, time, event->address,
                                                    event->size < 0 ? UINT64_MAX : (uint64_t) event->size, id);
    }
  return true;
}

bool
sysprof_cat_compactor_finish (SysprofCatCompactor *self)
{
  bool ok = true;

  for (size_t i = 0; i < self->n_streams; i++)
    {
      Stream *s = self->streams[i];

      /* A stream whose blocks were all written ends with an empty chunk. */
      if (ok && (s->buffer != NULL || s->started))
        ok = write_block (self, s, true);
      stream_free (self, s);
    }
  self->n_streams = 0;
  self->n_open = 0;
  sysprof_thread_map_clear (&self->by_thread);
  return ok;
}

void
sysprof_cat_compactor_get_stats (SysprofCatCompactor *self, SysprofCatCompactorStats *stats)
{
  *stats = self->stats;
}
