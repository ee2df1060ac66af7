// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the capture summary the app's views are drawn from
 * (libsysprof/analysis/sysprof-capture-summary.c), which turns every frame kind into the tables the
 * views draw from (strings bounded by their frames, counters, process
 * lifetimes, embedded files, per-millisecond allocation counts).  Inputs are
 * served through a memfd because the reader works on file descriptors.
 * Beyond not crashing, the scan's promises to the views are checked: times
 * within SYSPROF_SUMMARY_TIME_LIMIT, tables in time order, one allocation
 * bucket per millisecond, D-Bus messages' bytes within what the summary
 * kept and their types those SysprofDbusMessages decodes from the capture
 * itself. */

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-analysis.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define LIMIT SYSPROF_SUMMARY_TIME_LIMIT

static void
check_promises (const SysprofCaptureSummary *scan)
{
  g_assert (scan->duration >= 0 && scan->duration <= LIMIT);
  for (guint i = 0; i < scan->samples->len; i++)
    {
      gint64 t = g_array_index (scan->samples, SysprofSummarySample, i).time_ns;

      g_assert (t >= -LIMIT && t <= LIMIT);
      g_assert (i == 0 || g_array_index (scan->samples, SysprofSummarySample, i - 1).time_ns <= t);
    }
  for (guint i = 0; i < scan->waits->len; i++)
    {
      const SysprofSummaryWait *w = &g_array_index (scan->waits, SysprofSummaryWait, i);

      g_assert (w->time_ns >= -LIMIT && w->time_ns <= LIMIT);
      g_assert (w->duration_ns > 0 && w->duration_ns <= LIMIT);
      g_assert (i == 0 || (w - 1)->time_ns <= w->time_ns);
    }
  for (guint i = 0; i < scan->marks->len; i++)
    {
      const SysprofSummaryMark *mark = &g_array_index (scan->marks, SysprofSummaryMark, i);

      g_assert (mark->time_ns >= -LIMIT && mark->time_ns <= LIMIT);
      g_assert (mark->duration_ns >= 0 && mark->duration_ns <= LIMIT);
    }
  for (guint i = 0; i < scan->processes->len; i++)
    {
      const SysprofSummaryProcess *p = &g_array_index (scan->processes, SysprofSummaryProcess, i);

      g_assert (p->begin_ns >= -LIMIT && p->begin_ns <= LIMIT);
      g_assert (p->end_ns >= -LIMIT && p->end_ns <= LIMIT);
    }
  for (guint i = 0; i < scan->allocation_buckets->len; i++)
    {
      const SysprofSummaryAllocationBucket *b =
          &g_array_index (scan->allocation_buckets, SysprofSummaryAllocationBucket, i);

      g_assert (b->ms >= 0 && b->count > 0);
      g_assert (i == 0 || (b - 1)->ms < b->ms);
    }
  for (guint i = 0; i < scan->dbus_messages->len; i++)
    {
      const SysprofSummaryDbusMessage *m = &g_array_index (scan->dbus_messages, SysprofSummaryDbusMessage, i);

      g_assert (m->time_ns >= -LIMIT && m->time_ns <= LIMIT);
      g_assert (i == 0 || (m - 1)->time_ns <= m->time_ns);
      g_assert (m->bus_type <= SYSPROF_CAPTURE_DBUS_TYPE_OTHER);
      g_assert (m->type <= G_DBUS_MESSAGE_TYPE_SIGNAL);
      g_assert (!m->too_large || (m->length == 0 && !m->kept && m->type == G_DBUS_MESSAGE_TYPE_INVALID));
      g_assert (!m->kept || (guint64) m->offset + m->length <= scan->dbus_bytes->len);
    }
  g_assert (scan->dbus_bytes->len <= SYSPROF_SUMMARY_DBUS_BYTES_LIMIT);
}

static gboolean
damaged (const SysprofCaptureSummary *scan)
{
  for (guint i = 0; i < scan->metadata->len; i++)
    if (g_str_equal (g_array_index (scan->metadata, SysprofSummaryMetadata, i).id, "sysprof-app.damage"))
      return TRUE;
  return FALSE;
}

/* The app's D-Bus view decodes the summary's bytes, sysprof-report the
 * capture's: the same messages, and the header's type the summary read is
 * the one GDBus decodes. */
static void
check_dbus (const SysprofCaptureSummary *scan, SysprofCaptureReader *reader)
{
  g_autoptr (GPtrArray) from_summary = sysprof_dbus_messages_from_summary (scan);
  g_autoptr (GPtrArray) from_reader = sysprof_dbus_messages_from_reader (reader, NULL, NULL);

  g_assert (from_summary != NULL && from_summary->len == scan->dbus_messages->len);
  for (guint i = 0; i < from_summary->len; i++)
    {
      const SysprofDbusMessage        *m = from_summary->pdata[i];
      const SysprofSummaryDbusMessage *s = &g_array_index (scan->dbus_messages, SysprofSummaryDbusMessage, i);

      g_assert (m->time_ns == s->time_ns && m->bus_type == s->bus_type);
      if (m->state == SYSPROF_DBUS_MESSAGE_DECODED && s->type != G_DBUS_MESSAGE_TYPE_INVALID)
        g_assert (m->type == s->type);
      if (s->type == G_DBUS_MESSAGE_TYPE_INVALID)
        g_assert (m->state != SYSPROF_DBUS_MESSAGE_DECODED || m->type > G_DBUS_MESSAGE_TYPE_SIGNAL);
    }
  if (from_reader == NULL || damaged (scan))
    return;
  /* Times past the limit are clamped in the summary, not in the reader's
   * list: their order may differ there. */
  for (guint i = 0; i < scan->dbus_messages->len; i++)
    if (ABS (g_array_index (scan->dbus_messages, SysprofSummaryDbusMessage, i).time_ns) == LIMIT)
      return;
  g_assert (from_reader->len == from_summary->len);
  for (guint i = 0; i < from_reader->len; i++)
    {
      const SysprofDbusMessage *a = from_summary->pdata[i];
      const SysprofDbusMessage *b = from_reader->pdata[i];

      g_assert (a->bus_type == b->bus_type && a->size == b->size && a->state == b->state && a->type == b->type);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  SysprofCaptureReader  *reader;
  SysprofCaptureSummary *scan;
  int                    fd = memfd_create ("fuzz-capture-summary", MFD_CLOEXEC);

  if (fd < 0)
    return 0;
  if (write (fd, data, size) != (ssize_t) size || lseek (fd, 0, SEEK_SET) != 0)
    {
      close (fd);
      return 0;
    }
  /* The reader owns @fd from here, also when it refuses the header. */
  reader = sysprof_capture_reader_new_from_fd (fd);
  if (reader == NULL)
    return 0;
  scan = sysprof_capture_summary_new (sysprof_capture_reader_get_start_time (reader),
                                      sysprof_capture_reader_get_end_time (reader));
  if (sysprof_capture_summary_read (scan, reader, size, NULL, NULL, NULL, NULL))
    {
      g_autoptr (GArray) from_summary = NULL;
      g_autoptr (GArray) from_reader = NULL;

      check_promises (scan);
      check_dbus (scan, reader);
      /* The threads' times (off-CPU samples), both ways. */
      from_summary = sysprof_thread_times_from_summary (scan, NULL);
      from_reader = sysprof_thread_times_from_reader (reader, NULL, NULL);
      for (guint i = 0; i < from_summary->len; i++)
        {
          const SysprofThreadTime *t = &g_array_index (from_summary, SysprofThreadTime, i);

          g_assert (t->off_cpu_ns >= 0 && t->longest_wait_ns <= t->off_cpu_ns);
          g_assert (t->n_waits > 0 || t->n_samples > 0);
        }
      for (guint i = 0; from_reader != NULL && i < from_reader->len; i++)
        {
          const SysprofThreadTime *t = &g_array_index (from_reader, SysprofThreadTime, i);

          g_assert (t->off_cpu_ns >= 0 && t->longest_wait_ns <= t->off_cpu_ns &&
                    g_utf8_validate (t->process, -1, NULL));
        }
    }
  sysprof_capture_summary_free (scan);
  sysprof_capture_reader_unref (reader);
  return 0;
}
