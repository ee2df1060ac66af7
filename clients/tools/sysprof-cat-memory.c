// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCatMemory: allocation events re-encoded while merging (see the
 * header). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysprof-cat-memory.h"

/* The METADATA id of the streams' summary (libsysprof's ring drainer writes
 * one per recording: "blocks=N raw-bytes=N stored-bytes=N compressed=N
 * refused=N zstd-level=N"); it describes streams that expansion removes and
 * compaction replaces. */
#define STREAM_SUMMARY_ID "sysprof.memory-stream"

typedef struct
{
  SysprofCaptureAddress src;
  SysprofCaptureAddress dst;
} JitEntry;

struct _SysprofCatMemory
{
  SysprofCaptureWriter    *writer;
  SysprofAllocationCursor *cursor;
  SysprofCatMemoryMode     mode;
  SysprofCatCompactor     *compactor;
  /* The input's JIT addresses and the output's, sorted by src. */
  JitEntry *jit;
  size_t    n_jit;
  /* The cursor's next event, when have_next. */
  SysprofAllocationEvent next;
  bool                   have_next;
  bool                   finished;
  int                    level;
  int64_t                last_time; /* of the frames and events written */
  uint64_t               events;
  SysprofCaptureAddress  frames[SYSPROF_CAPTURE_MAX_ADDRS];
};

static int
compare_jit (const void *a, const void *b)
{
  const JitEntry *ja = a;
  const JitEntry *jb = b;

  return ja->src < jb->src ? -1 : ja->src > jb->src;
}

/* Names the output gives the input's JIT addresses: the writer hands out one
 * address per name, the same the merge gives the name. */
static bool
load_jit (SysprofCatMemory *self, SysprofCaptureReader *reader)
{
  SysprofCaptureJitmapIter iter;
  SysprofCaptureAddress    addr;
  const char              *name;
  size_t                   size = 0;
  bool                     ok = true;

  if (!sysprof_capture_jitmap_iter_init_reader (&iter, reader))
    return false;
  while (ok && sysprof_capture_jitmap_iter_next (&iter, &addr, &name))
    {
      SysprofCaptureAddress dst = sysprof_capture_writer_add_jitmap (self->writer, name);

      if (dst == 0)
        ok = false;
      else if (self->n_jit == size)
        {
          JitEntry *jit = realloc (self->jit, (size ? size * 2 : 64) * sizeof *jit);

          if (jit == NULL)
            {
              errno = ENOMEM;
              ok = false;
            }
          else
            {
              self->jit = jit;
              size = size ? size * 2 : 64;
            }
        }
      if (ok)
        self->jit[self->n_jit++] = (JitEntry){ addr, dst };
    }
  sysprof_capture_jitmap_iter_clear (&iter);
  if (self->n_jit > 1)
    qsort (self->jit, self->n_jit, sizeof *self->jit, compare_jit);
  return ok;
}

static const SysprofCaptureAddress *
translate (SysprofCatMemory *self, const SysprofAllocationEvent *event)
{
  if (self->n_jit == 0)
    return event->frames;
  for (uint32_t i = 0; i < event->n_frames; i++)
    {
      SysprofCaptureAddress a = event->frames[i];

      /* Kernel addresses share the mark bits but are never in the table. */
      if ((a & SYSPROF_CAPTURE_JITMAP_MARK) == SYSPROF_CAPTURE_JITMAP_MARK)
        {
          JitEntry        key = { a, 0 };
          const JitEntry *found = bsearch (&key, self->jit, self->n_jit, sizeof key, compare_jit);

          if (found != NULL)
            a = found->dst;
        }
      self->frames[i] = a;
    }
  return self->frames;
}

SysprofCatMemory *
sysprof_cat_memory_new (SysprofCaptureWriter *writer,
                        SysprofCaptureReader *reader,
                        SysprofCatMemoryMode  mode,
                        int                   level)
{
  SysprofCatMemory *self = calloc (1, sizeof *self);

  if (self == NULL)
    {
      errno = ENOMEM;
      return NULL;
    }
  self->writer = writer;
  self->mode = mode;
  self->level = level;
  if (!load_jit (self, reader) || !(self->cursor = sysprof_allocation_cursor_new (reader)) ||
      (mode == SYSPROF_CAT_MEMORY_COMPACT && !(self->compactor = sysprof_cat_compactor_new (writer, level))))
    {
      int saved = errno;

      sysprof_cat_memory_free (self);
      errno = saved;
      return NULL;
    }
  self->have_next = sysprof_allocation_cursor_next (self->cursor, &self->next);
  return self;
}

void
sysprof_cat_memory_free (SysprofCatMemory *self)
{
  if (self == NULL)
    return;
  sysprof_cat_compactor_free (self->compactor);
  sysprof_allocation_cursor_unref (self->cursor);
  free (self->jit);
  free (self);
}

/* Writes the events before @time, and those at @time carried by frames
 * before @offset (the order of the input for equal times). */
static bool
write_events_before (SysprofCatMemory *self, int64_t time, uint64_t offset)
{
  while (self->have_next && (self->next.time < time || (self->next.time == time && self->next.offset < offset)))
    {
      const SysprofAllocationEvent *e = &self->next;
      const SysprofCaptureAddress  *frames = translate (self, e);
      bool                          ok;

      if (self->mode == SYSPROF_CAT_MEMORY_EXPAND)
        ok = sysprof_capture_writer_add_allocation_copy (self->writer, e->time, e->cpu, e->pid, e->tid, e->address,
                                                         e->size, frames, e->n_frames);
      else
        ok = sysprof_cat_compactor_add (self->compactor, e, frames);
      if (!ok)
        return false;
      if (e->time > self->last_time)
        self->last_time = e->time;
      self->events++;
      self->have_next = sysprof_allocation_cursor_next (self->cursor, &self->next);
    }
  return true;
}

SysprofCaptureCatAction
sysprof_cat_memory_filter (SysprofCaptureWriter      *writer,
                           const SysprofCaptureFrame *frame,
                           uint64_t                   offset,
                           void                      *user_data)
{
  SysprofCatMemory *self = user_data;

  (void) writer;
  /* The cursor hands out what these carry. */
  if (frame->type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
    return SYSPROF_CAPTURE_CAT_DROP;
  if (frame->type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK &&
      strncmp (((const SysprofCaptureFileChunk *) frame)->path, SYSPROF_MEMORY_STREAM_PATH_PREFIX,
               sizeof SYSPROF_MEMORY_STREAM_PATH_PREFIX - 1) == 0)
    return SYSPROF_CAPTURE_CAT_DROP;
  if (frame->type == SYSPROF_CAPTURE_FRAME_METADATA &&
      strncmp (((const SysprofCaptureMetadata *) frame)->id, STREAM_SUMMARY_ID, sizeof STREAM_SUMMARY_ID) == 0)
    return SYSPROF_CAPTURE_CAT_DROP;

  if (!write_events_before (self, frame->time, offset))
    return SYSPROF_CAPTURE_CAT_FAIL;
  if (frame->time > self->last_time)
    self->last_time = frame->time;
  return SYSPROF_CAPTURE_CAT_COPY;
}

bool
sysprof_cat_memory_finish (SysprofCatMemory *self)
{
  SysprofAllocationCursorStats stats;
  char                         text[256];

  if (self->finished)
    return true;
  self->finished = true;
  /* No event is carried by a frame at UINT64_MAX: all of them go. */
  if (!write_events_before (self, INT64_MAX, UINT64_MAX))
    return false;

  sysprof_allocation_cursor_get_stats (self->cursor, &stats);
  if (stats.lost > 0)
    {
      /* The streams' lost records become what losses are elsewhere: the
       * cursor sums them over all processes, hence pid -1. */
      snprintf (text, sizeof text, "%" PRIu64 " memory streams: events the tracker could not record", stats.lost);
      if (!sysprof_capture_writer_add_metadata (self->writer, self->last_time, -1, -1, SYSPROF_LOST_EVENTS_METADATA_ID,
                                                text, -1))
        return false;
    }

  if (self->compactor != NULL)
    {
      SysprofCatCompactorStats c;

      if (!sysprof_cat_compactor_finish (self->compactor))
        return false;
      sysprof_cat_compactor_get_stats (self->compactor, &c);
      if (c.blocks > 0)
        {
          snprintf (text, sizeof text,
                    "blocks=%" PRIu64 " raw-bytes=%" PRIu64 " stored-bytes=%" PRIu64 " compressed=%" PRIu64
                    " refused=0 zstd-level=%d",
                    c.blocks, c.raw_bytes, c.stored_bytes, c.compressed, self->level);
          if (!sysprof_capture_writer_add_metadata (self->writer, self->last_time, -1, -1, STREAM_SUMMARY_ID, text, -1))
            return false;
        }
    }
  return true;
}

void
sysprof_cat_memory_get_report (SysprofCatMemory *self, SysprofCatMemoryReport *report)
{
  SysprofAllocationCursorStats stats;

  memset (report, 0, sizeof *report);
  sysprof_allocation_cursor_get_stats (self->cursor, &stats);
  report->events = self->events;
  report->streams = stats.streams;
  report->errors = stats.errors;
  report->lost = stats.lost;
  report->error = sysprof_allocation_cursor_get_error (self->cursor);
  if (self->compactor != NULL)
    sysprof_cat_compactor_get_stats (self->compactor, &report->compact);
}
