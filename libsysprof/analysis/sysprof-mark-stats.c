// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-capture-error.h"
#include "sysprof-mark-stats.h"

/* One (group, name) while marks are read: its durations, kept for the
 * median (8 bytes a mark; a capture's marks are few next to its samples). */
typedef struct
{
  char   *group;
  char   *name;
  GArray *durations; /* gint64 */
  double  total;
} Acc;

static void
acc_free (gpointer data)
{
  Acc *acc = data;

  g_free (acc->group);
  g_free (acc->name);
  g_array_unref (acc->durations);
  g_free (acc);
}

void
sysprof_mark_stat_clear (SysprofMarkStat *stat)
{
  g_clear_pointer (&stat->group, g_free);
  g_clear_pointer (&stat->name, g_free);
}

static gboolean
pid_wanted (const SysprofMarkStatsOptions *options, gint32 pid)
{
  if (options->pids == NULL || options->n_pids == 0)
    return TRUE;
  for (guint i = 0; i < options->n_pids; i++)
    if (options->pids[i] == pid)
      return TRUE;
  return FALSE;
}

/* Takes one mark (@group and @name valid UTF-8, owned by the caller). */
static void
add_mark (GHashTable                    *accs,
          const SysprofMarkStatsOptions *options,
          gint64                         time_ns,
          gint32                         pid,
          const char                    *group,
          const char                    *name,
          gint64                         duration)
{
  g_autofree char *key = NULL;
  Acc             *acc;
  gint64           last;

  duration = CLAMP (duration, 0, SYSPROF_SUMMARY_TIME_LIMIT);
  last = options->overlapping && time_ns < G_MAXINT64 - duration ? time_ns + duration : time_ns;
  if (time_ns > options->end_ns || last < options->begin_ns || !pid_wanted (options, pid) ||
      (options->group != NULL && strcmp (options->group, group) != 0))
    return;
  /* Group names hold no NUL: "group\nname" would be ambiguous, "\1" is not
   * in the text of any real mark and only merges two hostile ones. */
  key = g_strconcat (group, "\1", name, NULL);
  if ((acc = g_hash_table_lookup (accs, key)) == NULL)
    {
      acc = g_new0 (Acc, 1);
      acc->group = g_strdup (group);
      acc->name = g_strdup (name);
      acc->durations = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_hash_table_insert (accs, g_steal_pointer (&key), acc);
    }
  g_array_append_val (acc->durations, duration);
  acc->total += (double) duration;
}

static gint
compare_durations (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static gint
compare_stats (gconstpointer a, gconstpointer b)
{
  const SysprofMarkStat *x = a, *y = b;
  int                    cmp;

  if (x->total_ns != y->total_ns)
    return x->total_ns > y->total_ns ? -1 : 1;
  if ((cmp = strcmp (x->group, y->group)) != 0)
    return cmp;
  return strcmp (x->name, y->name);
}

static GArray *
finish (GHashTable *accs)
{
  GArray        *rows = g_array_new (FALSE, FALSE, sizeof (SysprofMarkStat));
  GHashTableIter iter;
  Acc           *acc;

  g_array_set_clear_func (rows, (GDestroyNotify) sysprof_mark_stat_clear);
  g_hash_table_iter_init (&iter, accs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &acc))
    {
      GArray         *d = acc->durations;
      SysprofMarkStat row = { 0 };

      g_array_sort (d, compare_durations);
      row.group = g_strdup (acc->group);
      row.name = g_strdup (acc->name);
      row.count = d->len;
      row.total_ns = acc->total;
      row.min_ns = g_array_index (d, gint64, 0);
      row.max_ns = g_array_index (d, gint64, d->len - 1);
      row.median_ns =
          d->len % 2 == 1
              ? (double) g_array_index (d, gint64, d->len / 2)
              : ((double) g_array_index (d, gint64, d->len / 2 - 1) + (double) g_array_index (d, gint64, d->len / 2)) /
                    2;
      row.mean_ns = acc->total / d->len;
      g_array_append_val (rows, row);
    }
  g_array_sort (rows, compare_stats);
  return rows;
}

static GHashTable *
new_accs (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, acc_free);
}

GArray *
sysprof_mark_stats_from_reader (SysprofCaptureReader *reader, const SysprofMarkStatsOptions *options, GError **error)
{
  static const SysprofMarkStatsOptions all = SYSPROF_MARK_STATS_OPTIONS_INIT;
  g_autoptr (GHashTable) accs = new_accs ();
  SysprofCaptureFrameType    type;
  const SysprofCaptureError *capture_error;
  gint64                     start;

  g_return_val_if_fail (reader != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (options == NULL)
    options = &all;
  if (!sysprof_capture_reader_reset (reader))
    {
      sysprof_set_capture_error (error, sysprof_capture_reader_get_error (reader), NULL);
      return NULL;
    }
  start = sysprof_capture_reader_get_start_time (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureMark *mark;
      g_autofree char          *group = NULL;
      g_autofree char          *name = NULL;
      gint64                    time;

      if (type != SYSPROF_CAPTURE_FRAME_MARK)
        {
          if (!sysprof_capture_reader_skip (reader))
            break;
          continue;
        }
      if ((mark = sysprof_capture_reader_read_mark (reader)) == NULL)
        break;
      /* Saturating: a hostile time must not wrap into the window. */
      if (mark->frame.time < 0 && start > G_MAXINT64 + mark->frame.time)
        time = G_MININT64;
      else if (mark->frame.time > 0 && start < G_MININT64 + mark->frame.time)
        time = G_MAXINT64;
      else
        time = mark->frame.time - start;
      group = g_utf8_make_valid (mark->group, strnlen (mark->group, sizeof mark->group));
      name = g_utf8_make_valid (mark->name, strnlen (mark->name, sizeof mark->name));
      add_mark (accs, options, time, mark->frame.pid, group, name, mark->duration);
    }
  capture_error = sysprof_capture_reader_get_error (reader);
  if (capture_error->code != 0)
    {
      sysprof_set_capture_error (error, capture_error, NULL);
      return NULL;
    }
  return finish (accs);
}

GArray *
sysprof_mark_stats_from_summary_marks (const SysprofSummaryMark      *marks,
                                       guint                          n_marks,
                                       const SysprofMarkStatsOptions *options)
{
  static const SysprofMarkStatsOptions all = SYSPROF_MARK_STATS_OPTIONS_INIT;
  g_autoptr (GHashTable) accs = new_accs ();

  g_return_val_if_fail (marks != NULL || n_marks == 0, NULL);

  if (options == NULL)
    options = &all;
  for (guint i = 0; i < n_marks; i++)
    add_mark (accs, options, marks[i].time_ns, marks[i].pid, marks[i].group, marks[i].name, marks[i].duration_ns);
  return finish (accs);
}
