// SPDX-License-Identifier: GPL-3.0-or-later
/* The CPU samples over time: one row of sample density per CPU, then one per
 * process that was sampled, busiest first. */
#include <string.h>

#include "sysprof-chart.h"
#include "sysprof-thread-task.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_SAMPLES_VIEW (sysprof_samples_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofSamplesView, sysprof_samples_view, SYSPROF, SAMPLES_VIEW, SysprofView)

struct _SysprofSamplesView
{
  SysprofView parent_instance;

  GtkWidget    *summary;
  GtkWidget    *chart;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (SysprofSamplesView, sysprof_samples_view, SYSPROF_TYPE_VIEW)

typedef struct
{
  gint32  pid;
  GArray *times; /* gint64 */
} ProcessTimes;

/* The samples' times split by CPU and by process. */
typedef struct
{
  guint      n_cpus;
  GArray   **cpus;      /* n_cpus arrays of gint64 */
  GPtrArray *processes; /* ProcessTimes*, most samples first */
  guint64    n_samples;
} Grouped;

static void
process_times_free (gpointer data)
{
  ProcessTimes *p = data;

  g_array_unref (p->times);
  g_free (p);
}

static void
grouped_free (gpointer data)
{
  Grouped *g = data;

  /* A grouping cancelled while counting has no arrays yet. */
  for (guint i = 0; i < g->n_cpus; i++)
    g_clear_pointer (&g->cpus[i], g_array_unref);
  g_free (g->cpus);
  g_ptr_array_unref (g->processes);
  g_free (g);
}

typedef struct
{
  GArray *samples;
  guint   n_cpus;
} GroupInput;

static void
group_input_free (gpointer data)
{
  GroupInput *input = data;

  g_array_unref (input->samples);
  g_free (input);
}

static int
compare_by_samples (gconstpointer a, gconstpointer b)
{
  const ProcessTimes *pa = *(ProcessTimes *const *) a;
  const ProcessTimes *pb = *(ProcessTimes *const *) b;

  if (pa->times->len != pb->times->len)
    return pa->times->len > pb->times->len ? -1 : 1;
  return pa->pid < pb->pid ? -1 : pa->pid > pb->pid;
}

/* Off the main thread: a million samples take a few tens of milliseconds
 * to split.  The document's samples are immutable once it is loaded.  They
 * are counted first, so that every array is made at its size: growing
 * arrays of a million times copies them and touches twice the memory. */
static void
group_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GroupInput *input = task_data;
  Grouped    *g = g_new0 (Grouped, 1);
  g_autoptr (GHashTable) by_pid = g_hash_table_new (NULL, NULL);
  g_autofree guint *cpu_counts = NULL;
  GHashTableIter    iter;
  gpointer          key, value;

  (void) source;
  g->n_cpus = input->n_cpus;
  g->cpus = g_new0 (GArray *, MAX (g->n_cpus, 1));
  g->processes = g_ptr_array_new_with_free_func (process_times_free);
  g->n_samples = input->samples->len;

  /* How many samples each CPU and each process (by pid) has. */
  cpu_counts = g_new0 (guint, MAX (g->n_cpus, 1));
  for (guint i = 0; i < input->samples->len; i++)
    {
      const SysprofSummarySample *s = &g_array_index (input->samples, SysprofSummarySample, i);
      gpointer                    count;

      if ((i & 0xffff) == 0 && g_cancellable_is_cancelled (cancellable))
        {
          grouped_free (g);
          g_task_return_error_if_cancelled (task);
          return;
        }
      if (s->cpu >= 0 && (guint) s->cpu < g->n_cpus)
        cpu_counts[s->cpu]++;
      count = g_hash_table_lookup (by_pid, GINT_TO_POINTER (s->pid));
      g_hash_table_insert (by_pid, GINT_TO_POINTER (s->pid), GUINT_TO_POINTER (GPOINTER_TO_UINT (count) + 1));
    }
  for (guint i = 0; i < g->n_cpus; i++)
    g->cpus[i] = g_array_sized_new (FALSE, FALSE, sizeof (gint64), cpu_counts[i]);
  /* by_pid now maps to the process's ProcessTimes. */
  g_hash_table_iter_init (&iter, by_pid);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ProcessTimes *p = g_new0 (ProcessTimes, 1);

      p->pid = GPOINTER_TO_INT (key);
      p->times = g_array_sized_new (FALSE, FALSE, sizeof (gint64), GPOINTER_TO_UINT (value));
      g_ptr_array_add (g->processes, p);
      g_hash_table_iter_replace (&iter, p);
    }

  for (guint i = 0; i < input->samples->len; i++)
    {
      const SysprofSummarySample *s = &g_array_index (input->samples, SysprofSummarySample, i);
      ProcessTimes               *p;

      if ((i & 0xffff) == 0 && g_cancellable_is_cancelled (cancellable))
        {
          grouped_free (g);
          g_task_return_error_if_cancelled (task);
          return;
        }
      if (s->cpu >= 0 && (guint) s->cpu < g->n_cpus)
        g_array_append_val (g->cpus[s->cpu], s->time_ns);
      p = g_hash_table_lookup (by_pid, GINT_TO_POINTER (s->pid));
      g_array_append_val (p->times, s->time_ns);
    }

  g_ptr_array_sort (g->processes, compare_by_samples);
  g_task_return_pointer (task, g, grouped_free);
}

/* A short name for @pid: the program of its command line, or what the
 * symbolizer calls it (a forked child goes by its parent's name); NULL
 * when nothing names it. */
static char *
process_name (SysprofDocument *document, const SysprofSummaryProcess *process, gint32 pid)
{
  const char *cmdline = process != NULL ? process->cmdline : NULL;
  g_auto (GStrv) words = NULL;

  if (cmdline == NULL || cmdline[0] == '\0')
    cmdline = sysprof_document_get_process_name (document, pid);
  if (cmdline == NULL || cmdline[0] == '\0')
    return NULL;
  words = g_strsplit_set (cmdline, " \t", 2);
  if (words[0] == NULL || words[0][0] == '\0')
    return g_strdup (cmdline);
  /* "/usr/bin/gnome-shell --x" reads "gnome-shell"; "[kworker/0:1]" is a
   * kernel thread's name, not a path. */
  if (words[0][0] != '[' && strchr (words[0], '/') != NULL)
    return g_path_get_basename (words[0]);
  return g_strdup (words[0]);
}

static void
show_grouped (SysprofSamplesView *self, Grouped *g)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  SysprofChart    *chart = SYSPROF_CHART (self->chart);
  GArray          *processes = sysprof_document_get_processes (document);
  g_autoptr (GHashTable) by_pid = g_hash_table_new (NULL, NULL);
  g_autofree char *summary = NULL;
  double           total = MAX (g->n_samples, 1);
  GdkRGBA          cpu_color;

  for (guint i = 0; i < processes->len; i++)
    {
      SysprofSummaryProcess *p = &g_array_index (processes, SysprofSummaryProcess, i);

      g_hash_table_insert (by_pid, GINT_TO_POINTER (p->pid), p);
    }

  sysprof_chart_clear (chart);
  gdk_rgba_parse (&cpu_color, "#1c71d8");
  for (guint i = 0; i < g->n_cpus; i++)
    {
      g_autofree char *label = g_strdup_printf ("CPU %u", i);
      g_autofree char *description =
          g_strdup_printf ("%u samples (%.1f %% of all)", g->cpus[i]->len, 100.0 * g->cpus[i]->len / total);
      guint row = sysprof_chart_add_ticks (chart, label, (const gint64 *) (gpointer) g->cpus[i]->data, g->cpus[i]->len);

      sysprof_chart_set_row_description (chart, row, description);
      sysprof_chart_set_row_unit (chart, row, "samples");
      sysprof_chart_set_row_color (chart, row, &cpu_color);
    }
  for (guint i = 0; i < g->processes->len; i++)
    {
      const ProcessTimes          *pt = g_ptr_array_index (g->processes, i);
      const SysprofSummaryProcess *p = g_hash_table_lookup (by_pid, GINT_TO_POINTER (pt->pid));
      g_autofree char             *name = process_name (document, p, pt->pid);
      g_autofree char             *label = NULL;
      g_autofree char             *description = NULL;
      guint                        row;

      label = name != NULL ? g_strdup_printf ("%s (%d)", name, pt->pid) : g_strdup_printf ("pid %d", pt->pid);
      description = g_strdup_printf (
          "%s%spid %d: %u samples (%.1f %% of all)", p != NULL && p->cmdline[0] != '\0' ? p->cmdline : "",
          p != NULL && p->cmdline[0] != '\0' ? "\n" : "", pt->pid, pt->times->len, 100.0 * pt->times->len / total);
      row = sysprof_chart_add_ticks (chart, label, (const gint64 *) (gpointer) pt->times->data, pt->times->len);
      sysprof_chart_set_row_description (chart, row, description);
      sysprof_chart_set_row_unit (chart, row, "samples");
    }

  if (g->n_cpus > 0)
    summary = g_strdup_printf ("%" G_GUINT64_FORMAT " samples on %u %s, %u %s", g->n_samples, g->n_cpus,
                               g->n_cpus == 1 ? "CPU" : "CPUs", g->processes->len,
                               g->processes->len == 1 ? "process" : "processes");
  else
    /* Sysprof 3.46 writes its perf samples with cpu -1. */
    summary = g_strdup_printf ("%" G_GUINT64_FORMAT " samples in %u %s (the capture does not say on which CPU)",
                               g->n_samples, g->processes->len, g->processes->len == 1 ? "process" : "processes");
  gtk_label_set_text (GTK_LABEL (self->summary), summary);
}

static void
group_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SysprofSamplesView *self = SYSPROF_SAMPLES_VIEW (source);
  g_autoptr (GError) error = NULL;
  Grouped *g;

  (void) user_data;
  g = g_task_propagate_pointer (G_TASK (result), &error);
  if (g == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
          sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
        }
      return;
    }
  show_grouped (self, g);
  grouped_free (g);
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
}

static void
sysprof_samples_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofSamplesView *self = SYSPROF_SAMPLES_VIEW (view);
  GroupInput         *input = g_new0 (GroupInput, 1);
  g_autoptr (GTask) task = NULL;

  self->chart = sysprof_chart_new (document);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->chart), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "CPU samples over time (per CPU and per process)", -1);
  {
    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *scroller = gtk_scrolled_window_new ();

    self->summary = gtk_label_new ("");
    gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
    gtk_widget_set_margin_start (self->summary, 8);
    gtk_widget_set_margin_top (self->summary, 4);
    gtk_widget_set_margin_bottom (self->summary, 4);
    gtk_widget_add_css_class (self->summary, "dim-label");
    gtk_box_append (GTK_BOX (box), self->summary);
    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->chart);
    gtk_widget_set_vexpand (scroller, TRUE);
    gtk_box_append (GTK_BOX (box), scroller);
    sysprof_view_set_child (view, box);
  }

  input->samples = g_array_ref (sysprof_document_get_samples (document));
  input->n_cpus = sysprof_document_get_n_cpus (document);
  sysprof_view_set_busy (view, TRUE, "Grouping the samples by CPU and process…");
  task = g_task_new (self, self->cancellable, group_done, NULL);
  g_task_set_source_tag (task, sysprof_samples_view_load);
  g_task_set_task_data (task, input, group_input_free);
  sysprof_thread_task_run (g_steal_pointer (&task), group_thread, grouped_free);
}

static gboolean
sysprof_samples_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_SAMPLE) > 0;
}

static void
sysprof_samples_view_dispose (GObject *object)
{
  SysprofSamplesView *self = SYSPROF_SAMPLES_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sysprof_samples_view_parent_class)->dispose (object);
}

static void
sysprof_samples_view_class_init (SysprofSamplesViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_samples_view_dispose;

  view_class->has_data = sysprof_samples_view_has_data;
  view_class->load = sysprof_samples_view_load;
  sysprof_view_class_set_info (view_class, "samples", "CPU Samples", "text-x-generic-symbolic", 10);
}

static void
sysprof_samples_view_init (SysprofSamplesView *self)
{
  self->cancellable = g_cancellable_new ();
}
