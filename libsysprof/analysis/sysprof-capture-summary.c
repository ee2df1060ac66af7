// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-capture-summary.h"

/* Times come from the file: a hostile one can hold any 64-bit value, and
 * signed overflow would be undefined. */
static gint64
saturated_sub (gint64 a, gint64 b)
{
  gint64 r;

  if (__builtin_sub_overflow (a, b, &r))
    return b < 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static gint64
saturated_add (gint64 a, gint64 b)
{
  gint64 r;

  if (__builtin_add_overflow (a, b, &r))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static void
clear_counter (gpointer data)
{
  SysprofSummaryCounter *counter = data;

  g_free (counter->category);
  g_free (counter->name);
  g_free (counter->description);
  g_clear_pointer (&counter->values, g_array_unref);
  g_free (counter);
}

static void
clear_mark (gpointer data)
{
  SysprofSummaryMark *mark = data;

  g_free (mark->group);
  g_free (mark->name);
  g_free (mark->message);
}

static void
clear_log (gpointer data)
{
  SysprofSummaryLog *log = data;

  g_free (log->domain);
  g_free (log->message);
}

static void
clear_process (gpointer data)
{
  g_free (((SysprofSummaryProcess *) data)->cmdline);
}

static void
clear_file (gpointer data)
{
  g_free (((SysprofSummaryFile *) data)->path);
}

static void
clear_metadata (gpointer data)
{
  SysprofSummaryMetadata *metadata = data;

  g_free (metadata->id);
  g_free (metadata->text);
}

typedef struct
{
  SysprofCaptureSummary        *self;
  GHashTable                   *processes; /* pid -> index + 1 in self->processes */
  GHashTable                   *counters;  /* id -> SysprofSummaryCounter */
  GHashTable                   *files;     /* path -> index + 1 in self->files */
  gint64                        last_time;
  GHashTable                   *late_allocations; /* ms -> count, see count_allocation() */
  guint64                       n;
  guint64                       file_size;
  SysprofCaptureSummaryProgress progress;
  gpointer                      user_data;
  GCancellable                 *cancellable;
  GError                      **error;
  gboolean                      cancelled;
  char                         *damage; /* the first frame that could not be read */
} Scan;

static SysprofSummaryProcess *
scan_process (Scan *scan, gint32 pid, gint64 time)
{
  SysprofCaptureSummary *self = scan->self;
  SysprofSummaryProcess *process;
  guint                  index = GPOINTER_TO_UINT (g_hash_table_lookup (scan->processes, GINT_TO_POINTER (pid)));

  if (index == 0)
    {
      SysprofSummaryProcess fresh = { .pid = pid, .begin_ns = time, .end_ns = time };

      g_array_append_val (self->processes, fresh);
      index = self->processes->len;
      g_hash_table_insert (scan->processes, GINT_TO_POINTER (pid), GUINT_TO_POINTER (index));
    }
  process = &g_array_index (self->processes, SysprofSummaryProcess, index - 1);
  if (time < process->begin_ns)
    process->begin_ns = time;
  if (!process->exited && time > process->end_ns)
    process->end_ns = time;
  return process;
}

static char *
fixed_string (const char *field, gsize size)
{
  return g_utf8_make_valid (field, strnlen (field, size));
}

/* Frames carry strings that the capture's writer terminated; a hostile file
 * may not have, so lengths are bounded by the frame. */
static char *
tail_string (const SysprofCaptureFrame *frame, const char *string)
{
  gsize available = frame->len - (gsize) (string - (const char *) frame);

  return g_utf8_make_valid (string, strnlen (string, available));
}

static void
scan_counter_define (Scan *scan, const SysprofCaptureCounterDefine *def)
{
  for (guint i = 0; i < def->n_counters; i++)
    {
      const SysprofCaptureCounter *raw = &def->counters[i];
      SysprofSummaryCounter       *counter;

      if (g_hash_table_contains (scan->counters, GUINT_TO_POINTER (raw->id)))
        continue;
      counter = g_new0 (SysprofSummaryCounter, 1);
      counter->id = raw->id;
      counter->category = fixed_string (raw->category, sizeof raw->category);
      counter->name = fixed_string (raw->name, sizeof raw->name);
      counter->description = fixed_string (raw->description, sizeof raw->description);
      counter->is_double = raw->type == SYSPROF_CAPTURE_COUNTER_DOUBLE;
      counter->values = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryCounterValue));
      counter->min = G_MAXDOUBLE;
      counter->max = -G_MAXDOUBLE;
      g_ptr_array_add (scan->self->counters, counter);
      g_hash_table_insert (scan->counters, GUINT_TO_POINTER (raw->id), counter);
    }
}

static void
scan_counter_set (Scan *scan, const SysprofCaptureCounterSet *set, gint64 time)
{
  for (guint i = 0; i < set->n_values; i++)
    for (guint j = 0; j < G_N_ELEMENTS (set->values[i].ids); j++)
      {
        SysprofSummaryCounter     *counter;
        SysprofSummaryCounterValue value = { .time_ns = time };

        if (set->values[i].ids[j] == 0)
          continue;
        counter = g_hash_table_lookup (scan->counters, GUINT_TO_POINTER (set->values[i].ids[j]));
        if (counter == NULL)
          continue;
        value.value = counter->is_double ? set->values[i].values[j].vdbl : (double) set->values[i].values[j].v64;
        counter->min = MIN (counter->min, value.value);
        counter->max = MAX (counter->max, value.value);
        g_array_append_val (counter->values, value);
      }
}

static void
scan_file_chunk (Scan *scan, const SysprofCaptureFileChunk *chunk)
{
  SysprofCaptureSummary *self = scan->self;
  g_autofree char       *path = fixed_string (chunk->path, sizeof chunk->path);
  guint                  index = GPOINTER_TO_UINT (g_hash_table_lookup (scan->files, path));

  if (index == 0)
    {
      SysprofSummaryFile file = { .path = g_strdup (path) };

      g_array_append_val (self->files, file);
      index = self->files->len;
      g_hash_table_insert (scan->files, g_strdup (path), GUINT_TO_POINTER (index));
    }
  g_array_index (self->files, SysprofSummaryFile, index - 1).size += chunk->len;
}

static void
scan_metadata (Scan *scan, const SysprofCaptureMetadata *frame)
{
  SysprofCaptureSummary *self = scan->self;
  SysprofSummaryMetadata metadata = {
    .id = fixed_string (frame->id, sizeof frame->id),
    .text = tail_string (&frame->frame, frame->metadata),
  };

  if (strcmp (metadata.id, SYSPROF_LOST_EVENTS_METADATA_ID) == 0)
    self->n_lost_events += g_ascii_strtoull (metadata.text, NULL, 10);
  else if ((strcmp (metadata.id, "hostname") == 0 || strcmp (metadata.id, "host") == 0) && self->host == NULL)
    self->host = g_strdup (metadata.text);
  g_array_append_val (self->metadata, metadata);
}

static int
compare_processes (gconstpointer a, gconstpointer b)
{
  const SysprofSummaryProcess *pa = a;
  const SysprofSummaryProcess *pb = b;

  if (pa->begin_ns != pb->begin_ns)
    return pa->begin_ns < pb->begin_ns ? -1 : 1;
  return pa->pid < pb->pid ? -1 : pa->pid > pb->pid;
}

static int
compare_files (gconstpointer a, gconstpointer b)
{
  return strcmp (((const SysprofSummaryFile *) a)->path, ((const SysprofSummaryFile *) b)->path);
}

static int
compare_marks (gconstpointer a, gconstpointer b)
{
  gint64 ta = ((const SysprofSummaryMark *) a)->time_ns;
  gint64 tb = ((const SysprofSummaryMark *) b)->time_ns;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_logs (gconstpointer a, gconstpointer b)
{
  gint64 ta = ((const SysprofSummaryLog *) a)->time_ns;
  gint64 tb = ((const SysprofSummaryLog *) b)->time_ns;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_samples (gconstpointer a, gconstpointer b)
{
  gint64 ta = ((const SysprofSummarySample *) a)->time_ns;
  gint64 tb = ((const SysprofSummarySample *) b)->time_ns;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_waits (gconstpointer a, gconstpointer b)
{
  gint64 ta = ((const SysprofSummaryWait *) a)->time_ns;
  gint64 tb = ((const SysprofSummaryWait *) b)->time_ns;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_dbus_messages (gconstpointer a, gconstpointer b)
{
  gint64 ta = ((const SysprofSummaryDbusMessage *) a)->time_ns;
  gint64 tb = ((const SysprofSummaryDbusMessage *) b)->time_ns;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* A capture's frames are mostly in order already: checking costs one pass,
 * sorting a million of them costs 20. */
static void
sort_if_needed (GArray *array, GCompareFunc compare)
{
  gsize size = g_array_get_element_size (array);

  for (guint i = 1; i < array->len; i++)
    if (compare (array->data + (i - 1) * size, array->data + i * size) > 0)
      {
        g_array_sort (array, compare);
        return;
      }
}

static void
finish_scan (SysprofCaptureSummary *self)
{
  g_autoptr (GPtrArray) categories = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  /* Frames of different CPUs and threads arrive in the capture a little out
   * of order; the charts and tables want time order. */
  sort_if_needed (self->samples, compare_samples);
  sort_if_needed (self->waits, compare_waits);
  sort_if_needed (self->marks, compare_marks);
  sort_if_needed (self->logs, compare_logs);
  /* Stable (as g_ptr_array_sort is for SysprofDbusMessages): messages of
   * the same time stay in capture order either way. */
  sort_if_needed (self->dbus_messages, compare_dbus_messages);
  sort_if_needed (self->processes, compare_processes);
  sort_if_needed (self->files, compare_files);

  for (guint i = 0; i < self->counters->len; i++)
    {
      SysprofSummaryCounter *counter = g_ptr_array_index (self->counters, i);

      if (counter->values->len == 0)
        counter->min = counter->max = 0;
      if (g_hash_table_add (seen, counter->category))
        g_ptr_array_add (categories, g_strdup (counter->category));
    }
  g_ptr_array_sort (categories, compare_names);
  g_ptr_array_add (categories, NULL);
  self->counter_categories = (char **) g_ptr_array_steal (categories, NULL);
}

static gint64
clamp_time (gint64 time)
{
  return CLAMP (time, -SYSPROF_SUMMARY_TIME_LIMIT, SYSPROF_SUMMARY_TIME_LIMIT);
}

static void
count_allocation (Scan *scan, gint64 time)
{
  GArray                         *buckets = scan->self->allocation_buckets;
  SysprofSummaryAllocationBucket *last;
  gint64                          ms = time / 1000000;

  /* Frames before the start are not drawn. */
  if (ms < 0)
    return;
  last = buckets->len > 0 ? &g_array_index (buckets, SysprofSummaryAllocationBucket, buckets->len - 1) : NULL;
  if (last != NULL && last->ms == ms)
    last->count++;
  else if (last == NULL || ms > last->ms)
    {
      SysprofSummaryAllocationBucket bucket = { .ms = ms, .count = 1 };

      g_array_append_val (buckets, bucket);
    }
  else
    {
      /* Out of order (threads' rings are flushed in turns): counted aside
       * and merged at the end, so any order costs at most one entry per
       * millisecond. */
      gpointer key = GSIZE_TO_POINTER ((gsize) ms);

      g_hash_table_insert (scan->late_allocations, key,
                           GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (scan->late_allocations, key)) + 1));
    }
}

static int
compare_buckets (gconstpointer a, gconstpointer b)
{
  const SysprofSummaryAllocationBucket *x = a, *y = b;

  return (x->ms > y->ms) - (x->ms < y->ms);
}

static void
merge_late_allocations (Scan *scan)
{
  GArray        *buckets = scan->self->allocation_buckets;
  GHashTableIter iter;
  gpointer       key, value;
  guint          out = 0;

  if (g_hash_table_size (scan->late_allocations) == 0)
    return;
  g_hash_table_iter_init (&iter, scan->late_allocations);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      SysprofSummaryAllocationBucket bucket = {
        .ms = (gint64) GPOINTER_TO_SIZE (key),
        .count = GPOINTER_TO_SIZE (value),
      };

      g_array_append_val (buckets, bucket);
    }
  g_array_sort (buckets, compare_buckets);
  for (guint i = 0; i < buckets->len; i++)
    {
      SysprofSummaryAllocationBucket *b = &g_array_index (buckets, SysprofSummaryAllocationBucket, i);

      if (out > 0 && g_array_index (buckets, SysprofSummaryAllocationBucket, out - 1).ms == b->ms)
        g_array_index (buckets, SysprofSummaryAllocationBucket, out - 1).count += b->count;
      else
        g_array_index (buckets, SysprofSummaryAllocationBucket, out++) = *b;
    }
  g_array_set_size (buckets, out);
}

/* The type is the fixed header's second byte, after its endianness mark;
 * the reader checked that message_len bytes are in the frame, and nothing
 * else about them is trusted. */
static void
scan_dbus_message (Scan *scan, const SysprofCaptureDBusMessage *frame, gint64 time)
{
  SysprofCaptureSummary    *self = scan->self;
  SysprofSummaryDbusMessage message = {
    .time_ns = time,
    .bus_type = frame->bus_type,
    .too_large = (frame->flags & SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE) != 0,
    .type = G_DBUS_MESSAGE_TYPE_INVALID,
  };

  if (!message.too_large)
    {
      message.length = frame->message_len;
      /* 16 bytes: endianness, type, flags, version, body length, serial,
       * header fields' length. */
      if (frame->message_len >= 16 && (frame->message[0] == 'l' || frame->message[0] == 'B') &&
          frame->message[1] >= G_DBUS_MESSAGE_TYPE_METHOD_CALL && frame->message[1] <= G_DBUS_MESSAGE_TYPE_SIGNAL)
        message.type = frame->message[1];
      if (self->dbus_bytes->len + (guint64) frame->message_len <= SYSPROF_SUMMARY_DBUS_BYTES_LIMIT)
        {
          message.offset = self->dbus_bytes->len;
          message.kept = TRUE;
          g_byte_array_append (self->dbus_bytes, frame->message, frame->message_len);
        }
      else
        self->n_dbus_dropped++;
    }
  g_array_append_val (self->dbus_messages, message);
}

/* A frame that cannot be read: what precedes it is kept, and the first
 * such frame is named in a "sysprof-app.damage" entry.  Reading goes on
 * after it, as the allocation cursor's first pass does. */
static bool
note_damage (Scan *scan, SysprofCaptureReader *reader)
{
  if (scan->damage == NULL)
    scan->damage = g_strdup (sysprof_capture_reader_get_error (reader)->message);
  return true;
}

/* One frame of the first pass of the allocation cursor (every frame),
 * ALLOCATION frames included: what it says needs no time order. */
/* An allocation, from an ALLOCATION frame or a memory stream. */
static void
scan_allocation (Scan *scan, gint32 pid, gint64 time)
{
  scan->self->n_allocations++;
  scan_process (scan, pid, time)->n_allocations++;
  count_allocation (scan, time);
}

static bool
scan_frame (SysprofCaptureReader *reader, SysprofCaptureFrameType type, void *user_data)
{
  Scan                  *scan = user_data;
  SysprofCaptureSummary *self = scan->self;
  SysprofCaptureFrame    frame;
  gint64                 time;

  (void) type;
  if (!sysprof_capture_reader_peek_frame (reader, &frame))
    return true;
  time = clamp_time (saturated_sub (frame.time, self->start_time));
  if (frame.type < SYSPROF_CAPTURE_FRAME_LAST)
    self->n_frames[frame.type]++;
  self->n_frames_total++;
  if (time > scan->last_time)
    scan->last_time = time;
  if ((++scan->n & 0xffff) == 0)
    {
      if (g_cancellable_set_error_if_cancelled (scan->cancellable, scan->error))
        {
          scan->cancelled = TRUE;
          return false;
        }
      if (scan->progress != NULL && scan->file_size > 0)
        scan->progress ((double) sysprof_capture_reader_get_offset (reader) / scan->file_size, scan->user_data);
    }

  switch ((int) frame.type)
    {
    case SYSPROF_CAPTURE_FRAME_SAMPLE:
      {
        const SysprofCaptureSample *sample = sysprof_capture_reader_read_sample (reader);
        SysprofSummarySample        s;

        if (sample == NULL)
          return note_damage (scan, reader);
        if (sysprof_capture_sample_get_off_cpu_usec (sample) != 0)
          {
            SysprofSummaryWait w = { time, (gint64) sysprof_capture_sample_get_off_cpu_usec (sample) * 1000,
                                     sample->frame.pid, sample->tid };

            g_array_append_val (self->waits, w);
            break;
          }
        s.time_ns = time;
        s.cpu = sample->frame.cpu;
        s.pid = sample->frame.pid;
        s.tid = sample->tid;
        g_array_append_val (self->samples, s);
        if (s.cpu >= 0 && (guint) s.cpu + 1 > self->n_cpus && s.cpu < 65536)
          self->n_cpus = s.cpu + 1;
        scan_process (scan, s.pid, time)->n_samples++;
        break;
      }

    case SYSPROF_CAPTURE_FRAME_PROCESS:
      {
        const SysprofCaptureProcess *process = sysprof_capture_reader_read_process (reader);
        SysprofSummaryProcess       *p;

        if (process == NULL)
          return note_damage (scan, reader);
        p = scan_process (scan, process->frame.pid, time);
        g_free (p->cmdline);
        p->cmdline = tail_string (&process->frame, process->cmdline);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_FORK:
      {
        const SysprofCaptureFork *fork = sysprof_capture_reader_read_fork (reader);

        if (fork == NULL)
          return note_damage (scan, reader);
        if (fork->child_pid != fork->frame.pid)
          scan_process (scan, fork->child_pid, time);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_EXIT:
      {
        const SysprofCaptureExit *exit = sysprof_capture_reader_read_exit (reader);
        SysprofSummaryProcess    *p;

        if (exit == NULL)
          return note_damage (scan, reader);
        p = scan_process (scan, exit->frame.pid, time);
        p->end_ns = time;
        p->exited = TRUE;
        break;
      }

    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      {
        const SysprofCaptureCounterDefine *def = sysprof_capture_reader_read_counter_define (reader);

        if (def == NULL)
          return note_damage (scan, reader);
        scan_counter_define (scan, def);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_CTRSET:
      {
        const SysprofCaptureCounterSet *set = sysprof_capture_reader_read_counter_set (reader);

        if (set == NULL)
          return note_damage (scan, reader);
        scan_counter_set (scan, set, time);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_MARK:
      {
        const SysprofCaptureMark *raw = sysprof_capture_reader_read_mark (reader);
        SysprofSummaryMark        mark;

        if (raw == NULL)
          return note_damage (scan, reader);
        mark.time_ns = time;
        mark.duration_ns = CLAMP (raw->duration, 0, SYSPROF_SUMMARY_TIME_LIMIT);
        mark.pid = raw->frame.pid;
        mark.group = fixed_string (raw->group, sizeof raw->group);
        mark.name = fixed_string (raw->name, sizeof raw->name);
        mark.message = tail_string (&raw->frame, raw->message);
        g_array_append_val (self->marks, mark);
        if (saturated_add (time, mark.duration_ns) > scan->last_time)
          scan->last_time = saturated_add (time, mark.duration_ns);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_LOG:
      {
        const SysprofCaptureLog *raw = sysprof_capture_reader_read_log (reader);
        SysprofSummaryLog        log;

        if (raw == NULL)
          return note_damage (scan, reader);
        log.time_ns = time;
        log.pid = raw->frame.pid;
        log.severity = raw->severity;
        log.domain = fixed_string (raw->domain, sizeof raw->domain);
        log.message = tail_string (&raw->frame, raw->message);
        g_array_append_val (self->logs, log);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_METADATA:
      {
        const SysprofCaptureMetadata *metadata = sysprof_capture_reader_read_metadata (reader);

        if (metadata == NULL)
          return note_damage (scan, reader);
        scan_metadata (scan, metadata);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      {
        const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);

        if (chunk == NULL)
          return note_damage (scan, reader);
        /* A memory stream's block is not a file (its allocations are
         * counted with the cursor's events). */
        if (strncmp (chunk->path, SYSPROF_MEMORY_STREAM_PATH_PREFIX, sizeof SYSPROF_MEMORY_STREAM_PATH_PREFIX - 1) != 0)
          scan_file_chunk (scan, chunk);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      {
        const SysprofCaptureAllocation *alloc = sysprof_capture_reader_read_allocation (reader);

        if (alloc == NULL)
          return note_damage (scan, reader);
        if (alloc->alloc_size > 0)
          scan_allocation (scan, alloc->frame.pid, time);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE:
      {
        const SysprofCaptureDBusMessage *message = sysprof_capture_reader_read_dbus_message (reader);

        if (message == NULL)
          return note_damage (scan, reader);
        scan_dbus_message (scan, message, time);
        break;
      }

    default:
      if (!sysprof_capture_reader_skip (reader))
        return note_damage (scan, reader);
      break;
    }
  return true;
}

gboolean
sysprof_capture_summary_read (SysprofCaptureSummary        *self,
                              SysprofCaptureReader         *reader,
                              guint64                       file_size,
                              SysprofCaptureSummaryProgress progress,
                              gpointer                      user_data,
                              GCancellable                 *cancellable,
                              GError                      **error)
{
  Scan scan = {
    .self = self,
    .processes = g_hash_table_new (NULL, NULL),
    .counters = g_hash_table_new (NULL, NULL),
    .files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .last_time = 0,
    .late_allocations = g_hash_table_new (NULL, NULL),
    .file_size = file_size,
    .progress = progress,
    .user_data = user_data,
    .cancellable = cancellable,
    .error = error,
  };
  SysprofAllocationCursorOptions options = {
    .size = sizeof options,
    .frame_types = G_MAXUINT64,
    .frame_func = scan_frame,
    .user_data = &scan,
  };
  SysprofAllocationCursor   *cursor;
  SysprofAllocationEvent     event;
  const SysprofCaptureError *capture_error = NULL;
  gboolean                   ok = TRUE;

  /* Every frame is scanned in the cursor's first pass (one pass over a
   * capture without streams); then the streams' allocations are counted. */
  cursor = sysprof_allocation_cursor_new_full (reader, &options);
  if (cursor != NULL)
    {
      SysprofAllocationCursorStats stats;

      /* The first pass took the ALLOCATION frames: these are the streams'. */
      while (sysprof_allocation_cursor_next (cursor, &event))
        {
          self->n_stream_events++;
          if (event.size > 0)
            scan_allocation (&scan, event.pid, clamp_time (saturated_sub (event.time, self->start_time)));
        }
      sysprof_allocation_cursor_get_stats (cursor, &stats);
      self->n_stream_blocks = stats.blocks;
      capture_error = sysprof_allocation_cursor_get_capture_error (cursor);
    }
  else if (scan.cancelled)
    ok = FALSE;
  else
    {
      /* A reader that cannot be read twice (a pipe): its frames only. */
      SysprofCaptureFrameType type;

      while (sysprof_capture_reader_peek_type (reader, &type))
        {
          guint64 offset = sysprof_capture_reader_get_offset (reader);

          if (!scan_frame (reader, type, &scan))
            {
              ok = FALSE;
              break;
            }
          if (sysprof_capture_reader_get_offset (reader) == offset && !sysprof_capture_reader_skip (reader))
            break;
        }
      capture_error = sysprof_capture_reader_get_error (reader);
    }

  if (ok && (scan.damage != NULL || (capture_error != NULL && capture_error->code != 0)))
    {
      /* A damaged capture still shows what was read before the damage; the
       * analyses report the damage themselves when they reach it. */
      SysprofSummaryMetadata metadata = {
        .id = g_strdup ("sysprof-app.damage"),
        .text = g_strdup (scan.damage != NULL || capture_error == NULL ? scan.damage : capture_error->message),
      };

      g_array_append_val (self->metadata, metadata);
    }
  sysprof_allocation_cursor_unref (cursor);
  g_free (scan.damage);

  self->duration = CLAMP (MAX (self->duration, scan.last_time), 0, SYSPROF_SUMMARY_TIME_LIMIT);
  merge_late_allocations (&scan);

  /* Processes seen only through other frames end with the capture. */
  for (guint i = 0; i < self->processes->len; i++)
    {
      SysprofSummaryProcess *p = &g_array_index (self->processes, SysprofSummaryProcess, i);

      if (p->cmdline == NULL)
        p->cmdline = g_strdup ("");
      if (!p->exited)
        p->end_ns = self->duration;
    }

  g_hash_table_unref (scan.processes);
  g_hash_table_unref (scan.counters);
  g_hash_table_unref (scan.files);
  g_hash_table_unref (scan.late_allocations);
  if (ok)
    finish_scan (self);
  return ok;
}

SysprofCaptureSummary *
sysprof_capture_summary_new (gint64 start_time, gint64 end_time)
{
  SysprofCaptureSummary *self = g_new0 (SysprofCaptureSummary, 1);

  self->start_time = start_time;
  self->duration = CLAMP (saturated_sub (end_time, start_time), 0, SYSPROF_SUMMARY_TIME_LIMIT);
  self->samples = g_array_new (FALSE, FALSE, sizeof (SysprofSummarySample));
  self->waits = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryWait));
  self->counters = g_ptr_array_new_with_free_func (clear_counter);
  self->marks = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryMark));
  g_array_set_clear_func (self->marks, clear_mark);
  self->logs = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryLog));
  g_array_set_clear_func (self->logs, clear_log);
  self->processes = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryProcess));
  g_array_set_clear_func (self->processes, clear_process);
  self->files = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryFile));
  g_array_set_clear_func (self->files, clear_file);
  self->metadata = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryMetadata));
  g_array_set_clear_func (self->metadata, clear_metadata);
  self->allocation_buckets = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryAllocationBucket));
  self->dbus_messages = g_array_new (FALSE, FALSE, sizeof (SysprofSummaryDbusMessage));
  self->dbus_bytes = g_byte_array_new ();
  return self;
}

void
sysprof_capture_summary_free (SysprofCaptureSummary *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->samples);
  g_array_unref (self->waits);
  g_ptr_array_unref (self->counters);
  g_strfreev (self->counter_categories);
  g_array_unref (self->marks);
  g_array_unref (self->logs);
  g_array_unref (self->processes);
  g_array_unref (self->files);
  g_array_unref (self->metadata);
  g_free (self->host);
  g_array_unref (self->allocation_buckets);
  g_array_unref (self->dbus_messages);
  g_byte_array_unref (self->dbus_bytes);
  g_free (self);
}

void
sysprof_capture_summary_add_metadata (SysprofCaptureSummary *self, const char *id, const char *text)
{
  SysprofSummaryMetadata metadata = { .id = g_strdup (id), .text = g_strdup (text) };

  g_array_append_val (self->metadata, metadata);
}
