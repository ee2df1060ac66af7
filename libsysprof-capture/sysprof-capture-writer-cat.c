// SPDX-License-Identifier: BSD-2-Clause-Patent
/* Merging one capture into another.  JIT pseudo addresses and counter ids are
 * only unique within the writer that produced them, so every frame is decoded
 * and re-emitted through the typed add_* calls with both translated; copying
 * bytes would make two captures' ids collide. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include "sysprof-capture-reader-private.h"
#include "sysprof-capture-util-private.h"
#include "sysprof-capture-writer-private.h"

typedef struct
{
  uint64_t src;
  uint64_t dst;
} Translation;

typedef struct
{
  Translation *items;
  size_t       len;
  size_t       size;
  bool         sorted;
} TranslationTable;

static void
table_clear (TranslationTable *t)
{
  free (t->items);
  memset (t, 0, sizeof *t);
}

static bool
table_add (TranslationTable *t, uint64_t src, uint64_t dst)
{
  if (t->len == t->size)
    {
      size_t       new_size = t->size ? t->size * 2 : 64;
      Translation *items = realloc (t->items, new_size * sizeof *items);

      if (items == NULL)
        return false;
      t->items = items;
      t->size = new_size;
    }
  t->items[t->len++] = (Translation){ src, dst };
  t->sorted = false;
  return true;
}

static int
compare_translation (const void *a, const void *b)
{
  const Translation *ta = a;
  const Translation *tb = b;

  return ta->src < tb->src ? -1 : ta->src > tb->src;
}

/* Returns the translation of @src, or @src itself when unknown. */
static uint64_t
table_lookup (TranslationTable *t, uint64_t src)
{
  size_t lo = 0;
  size_t hi;

  if (t->len == 0)
    return src;
  if (!t->sorted)
    {
      qsort (t->items, t->len, sizeof *t->items, compare_translation);
      t->sorted = true;
    }

  /* Later definitions of the same source id win. */
  hi = t->len;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;

      if (t->items[mid].src <= src)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0 && t->items[lo - 1].src == src)
    return t->items[lo - 1].dst;
  return src;
}

/* @in points into a packed frame: read it bytewise. */
static void
translate_addrs (TranslationTable *jit, const void *in, unsigned int n, SysprofCaptureAddress *out)
{
  memcpy (out, in, (size_t) n * sizeof *out);
  for (unsigned int i = 0; i < n; i++)
    {
      SysprofCaptureAddress a = out[i];

      /* Kernel addresses share the mark bits but are never in the table. */
      if ((a & SYSPROF_CAPTURE_JITMAP_MARK) == SYSPROF_CAPTURE_JITMAP_MARK)
        a = table_lookup (jit, a);
      out[i] = a;
    }
}

bool
sysprof_capture_writer_cat (SysprofCaptureWriter *self, SysprofCaptureReader *reader)
{
  return sysprof_capture_writer_cat_full (self, reader, NULL, NULL);
}

bool
sysprof_capture_writer_cat_full (SysprofCaptureWriter *self,
                                 SysprofCaptureReader *reader,
                                 SysprofCaptureCatFunc func,
                                 void                 *user_data)
{
  TranslationTable         jit = { 0 };
  TranslationTable         counters = { 0 };
  SysprofCaptureReader    *src = NULL;
  SysprofCaptureJitmapIter iter;
  SysprofCaptureAddress    addr;
  const char              *name;
  int64_t                  start_time;
  int64_t                  end_time;
  SysprofCaptureAddress   *addrs = NULL;
  bool                     ok = false;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (reader != NULL, false);

  addrs = malloc (SYSPROF_CAPTURE_MAX_ADDRS * sizeof *addrs);
  if (addrs == NULL)
    return false;

  /* Pass 1: register every JIT name of the source in the destination. */
  if (!sysprof_capture_jitmap_iter_init_reader (&iter, reader))
    goto out;
  while (sysprof_capture_jitmap_iter_next (&iter, &addr, &name))
    {
      SysprofCaptureAddress dst = sysprof_capture_writer_add_jitmap (self, name);

      if (dst == 0 || !table_add (&jit, addr, dst))
        {
          sysprof_capture_jitmap_iter_clear (&iter);
          goto out;
        }
    }
  sysprof_capture_jitmap_iter_clear (&iter);

  /* Pass 2: re-emit every frame. */
  if (!(src = sysprof_capture_reader_copy (reader)) || !sysprof_capture_reader_reset (src))
    goto out;

  for (;;)
    {
      SysprofCaptureFrameType    type;
      const SysprofCaptureFrame *frame;
      uint64_t                   offset;
      bool                       added = true;

      if (!sysprof_capture_reader_peek_type (src, &type))
        break;
      offset = sysprof_capture_reader_get_offset (src);
      if (!(frame = sysprof_capture_reader_read_frame (src)))
        {
          /* A corrupt payload: the rest can still be merged. */
          sysprof_capture_reader_skip (src);
          continue;
        }
      if (func != NULL)
        {
          SysprofCaptureCatAction action = func (self, frame, offset, user_data);

          if (action == SYSPROF_CAPTURE_CAT_FAIL)
            goto out;
          if (action == SYSPROF_CAPTURE_CAT_DROP)
            continue;
        }

      switch (type)
        {
        case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
          added = sysprof_capture_writer_add_timestamp (self, frame->time, frame->cpu, frame->pid);
          break;

        case SYSPROF_CAPTURE_FRAME_EXIT:
          added = sysprof_capture_writer_add_exit (self, frame->time, frame->cpu, frame->pid);
          break;

        case SYSPROF_CAPTURE_FRAME_FORK:
          added = sysprof_capture_writer_add_fork (self, frame->time, frame->cpu, frame->pid,
                                                   ((const SysprofCaptureFork *) frame)->child_pid);
          break;

        case SYSPROF_CAPTURE_FRAME_PROCESS:
          added = sysprof_capture_writer_add_process (self, frame->time, frame->cpu, frame->pid,
                                                      ((const SysprofCaptureProcess *) frame)->cmdline);
          break;

        case SYSPROF_CAPTURE_FRAME_MAP:
          {
            const SysprofCaptureMap *map = (const SysprofCaptureMap *) frame;

            added = sysprof_capture_writer_add_map_with_build_id (self, frame->time, frame->cpu, frame->pid, map->start,
                                                                  map->end, map->offset, map->inode, map->filename,
                                                                  sysprof_capture_map_get_build_id (map));
          }
          break;

        case SYSPROF_CAPTURE_FRAME_JITMAP:
          /* Already registered in pass 1; the destination emits its own. */
          break;

        case SYSPROF_CAPTURE_FRAME_SAMPLE:
        case SYSPROF_CAPTURE_FRAME_TRACE:
          {
            const SysprofCaptureTrace *s = (const SysprofCaptureTrace *) frame;

            translate_addrs (&jit, (const uint8_t *) s + sizeof *s, s->n_addrs, addrs);
            if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
              added = sysprof_capture_writer_add_sample (self, frame->time, frame->cpu, frame->pid, s->tid, addrs,
                                                         s->n_addrs);
            else
              added = sysprof_capture_writer_add_trace (self, frame->time, frame->cpu, frame->pid, s->tid, addrs,
                                                        s->n_addrs, s->entering);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_CTRDEF:
          {
            const SysprofCaptureCounterDefine *def = (const SysprofCaptureCounterDefine *) frame;
            SysprofCaptureCounter             *defs;

            if (def->n_counters == 0)
              break;
            if (!(defs = malloc (def->n_counters * sizeof *defs)))
              goto out;
            for (unsigned int i = 0; i < def->n_counters; i++)
              {
                unsigned int id = sysprof_capture_writer_request_counter (self, 1);

                if (id == 0 || !table_add (&counters, def->counters[i].id, id))
                  {
                    free (defs);
                    goto out;
                  }
                defs[i] = def->counters[i];
                defs[i].id = id;
              }
            added = sysprof_capture_writer_define_counters (self, frame->time, frame->cpu, frame->pid, defs,
                                                            def->n_counters);
            free (defs);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_CTRSET:
          {
            const SysprofCaptureCounterSet *set = (const SysprofCaptureCounterSet *) frame;
            unsigned int                   *ids;
            SysprofCaptureCounterValue     *values;
            unsigned int                    n = 0;

            ids = malloc ((size_t) set->n_values * 8 * sizeof *ids + 1);
            values = malloc ((size_t) set->n_values * 8 * sizeof *values + 1);
            if (ids == NULL || values == NULL)
              {
                free (ids);
                free (values);
                goto out;
              }
            for (unsigned int i = 0; i < set->n_values; i++)
              for (unsigned int j = 0; j < 8; j++)
                {
                  if (set->values[i].ids[j] == 0)
                    continue;
                  ids[n] = (unsigned int) table_lookup (&counters, set->values[i].ids[j]);
                  values[n] = set->values[i].values[j];
                  n++;
                }
            added = sysprof_capture_writer_set_counters (self, frame->time, frame->cpu, frame->pid, ids, values, n);
            free (ids);
            free (values);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_MARK:
          {
            const SysprofCaptureMark *m = (const SysprofCaptureMark *) frame;

            added = sysprof_capture_writer_add_mark (self, frame->time, frame->cpu, frame->pid, (uint64_t) m->duration,
                                                     m->group, m->name, m->message);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_METADATA:
          {
            const SysprofCaptureMetadata *m = (const SysprofCaptureMetadata *) frame;

            added =
                sysprof_capture_writer_add_metadata (self, frame->time, frame->cpu, frame->pid, m->id, m->metadata, -1);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_LOG:
          {
            const SysprofCaptureLog *l = (const SysprofCaptureLog *) frame;

            added = sysprof_capture_writer_add_log (self, frame->time, frame->cpu, frame->pid, (int) l->severity,
                                                    l->domain, l->message);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
          {
            const SysprofCaptureFileChunk *c = (const SysprofCaptureFileChunk *) frame;

            added = sysprof_capture_writer_add_file (self, frame->time, frame->cpu, frame->pid, c->path, c->is_last,
                                                     c->data, c->len);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_ALLOCATION:
          {
            const SysprofCaptureAllocation *a = (const SysprofCaptureAllocation *) frame;

            translate_addrs (&jit, (const uint8_t *) a + sizeof *a, a->n_addrs, addrs);
            added = sysprof_capture_writer_add_allocation_copy (self, frame->time, frame->cpu, frame->pid, a->tid,
                                                                a->alloc_addr, a->alloc_size, addrs, a->n_addrs);
          }
          break;

        case SYSPROF_CAPTURE_FRAME_OVERLAY:
          {
            const SysprofCaptureOverlay *o = (const SysprofCaptureOverlay *) frame;

            added = sysprof_capture_writer_add_overlay (self, frame->time, frame->cpu, frame->pid, o->layer,
                                                        sysprof_capture_overlay_get_src (o),
                                                        sysprof_capture_overlay_get_dst (o));
          }
          break;

        case SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE:
          {
            const SysprofCaptureDBusMessage *m = (const SysprofCaptureDBusMessage *) frame;

            added = sysprof_capture_writer_add_dbus_message (self, frame->time, frame->cpu, frame->pid, m->bus_type,
                                                             m->flags, m->message, m->message_len);
          }
          break;

        default:
          /* Unknown types carry ids we cannot translate: dropped, as Sysprof does. */
          break;
        }

      if (!added)
        goto out;
    }

  if (sysprof_capture_reader_get_error (src)->code != 0)
    {
      errno = sysprof_capture_reader_get_error (src)->code;
      goto out;
    }

  start_time = sysprof_capture_reader_get_start_time (reader);
  end_time = sysprof_capture_reader_get_end_time (reader);
  ok = _sysprof_capture_writer_extend_time_range (self, start_time, end_time);

out:
  {
    int saved = errno;

    sysprof_capture_reader_unref (src);
    table_clear (&jit);
    table_clear (&counters);
    free (addrs);
    errno = saved;
  }
  return ok;
}
