// SPDX-License-Identifier: GPL-3.0-or-later
/* The processes of a capture: their lifetimes on the time axis, and a
 * sortable table of what the capture knows of each (command line, pid,
 * begin, end, exit, samples, allocations). */
#include <string.h>

#include "sysprof-chart.h"
#include "sysprof-process-item.h"
#include "sysprof-view.h"

/* ------------------------------------------------------------------------ */
/* The view */

#define SYSPROF_TYPE_PROCESSES_VIEW (sysprof_processes_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofProcessesView, sysprof_processes_view, SYSPROF, PROCESSES_VIEW, SysprofView)

struct _SysprofProcessesView
{
  SysprofView parent_instance;

  GtkWidget *chart_scroller;
};

#define PROCESS_ROW_HEIGHT 24

G_DEFINE_FINAL_TYPE (SysprofProcessesView, sysprof_processes_view, SYSPROF_TYPE_VIEW)

typedef enum
{
  COLUMN_NAME,
  COLUMN_PID,
  COLUMN_BEGIN,
  COLUMN_END,
  COLUMN_EXITED,
  COLUMN_SAMPLES,
  COLUMN_ALLOCATIONS,
  COLUMN_CMDLINE,
  N_COLUMNS
} Column;

static const char *const column_titles[N_COLUMNS] = {
  "Process", "PID", "Begin", "End", "Exited", "Samples", "Allocations", "Command line",
};

/* What the capture calls @pid: the program of its command line, else what
 * the symbolizer calls it (a forked child goes by its parent's name);
 * NULL when nothing names it. */
static char *
process_name (SysprofDocument *document, const SysprofSummaryProcess *process)
{
  const char *cmdline = process->cmdline;
  g_auto (GStrv) words = NULL;

  if (cmdline == NULL || cmdline[0] == '\0')
    cmdline = sysprof_document_get_process_name (document, process->pid);
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

static char *
format_seconds (gint64 ns)
{
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

static char *
column_text (SysprofProcessItem *item, Column column)
{
  const SysprofSummaryProcess *p = &item->process;

  switch (column)
    {
    case COLUMN_NAME: return g_strdup (item->name != NULL ? item->name : "");
    case COLUMN_PID: return g_strdup_printf ("%d", p->pid);
    case COLUMN_BEGIN: return format_seconds (p->begin_ns);
    case COLUMN_END: return format_seconds (p->end_ns);
    case COLUMN_EXITED: return g_strdup (p->exited ? "yes" : "no");
    case COLUMN_SAMPLES: return g_strdup_printf ("%" G_GUINT64_FORMAT, p->n_samples);
    case COLUMN_ALLOCATIONS: return g_strdup_printf ("%" G_GUINT64_FORMAT, p->n_allocations);
    case COLUMN_CMDLINE: return g_strdup (p->cmdline);
    case N_COLUMNS:
    default: g_assert_not_reached ();
    }
}

#define COMPARE(a, b) ((a) < (b) ? -1 : (a) > (b))

static int
compare_items (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SysprofProcessItem    *ia = a;
  const SysprofProcessItem    *ib = b;
  const SysprofSummaryProcess *pa = &ia->process;
  const SysprofSummaryProcess *pb = &ib->process;
  int                          result;

  switch ((Column) GPOINTER_TO_INT (user_data))
    {
    case COLUMN_NAME: result = g_utf8_collate (ia->name ? ia->name : "", ib->name ? ib->name : ""); break;
    case COLUMN_PID: result = COMPARE (pa->pid, pb->pid); break;
    case COLUMN_BEGIN: result = COMPARE (pa->begin_ns, pb->begin_ns); break;
    case COLUMN_END: result = COMPARE (pa->end_ns, pb->end_ns); break;
    case COLUMN_EXITED: result = COMPARE (pa->exited, pb->exited); break;
    case COLUMN_SAMPLES: result = COMPARE (pa->n_samples, pb->n_samples); break;
    case COLUMN_ALLOCATIONS: result = COMPARE (pa->n_allocations, pb->n_allocations); break;
    case COLUMN_CMDLINE: result = g_utf8_collate (pa->cmdline, pb->cmdline); break;
    case N_COLUMNS:
    default: g_assert_not_reached ();
    }
  /* Ties keep a stable, meaningful order. */
  return result != 0 ? result : COMPARE (pa->pid, pb->pid);
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  Column     column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  switch (column)
    {
    case COLUMN_PID:
    case COLUMN_BEGIN:
    case COLUMN_END:
    case COLUMN_SAMPLES:
    case COLUMN_ALLOCATIONS:
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
      break;
    case COLUMN_NAME:
    case COLUMN_EXITED:
    case COLUMN_CMDLINE:
    case N_COLUMNS:
    default:
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      break;
    }
  if (column == COLUMN_CMDLINE)
    {
      sysprof_view_label_text_tooltip (label);
    }
  gtk_list_item_set_child (list_item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  SysprofProcessItem *item = gtk_list_item_get_item (list_item);
  g_autofree char    *text = column_text (item, GPOINTER_TO_INT (user_data));
  GtkWidget          *label = gtk_list_item_get_child (list_item);

  (void) factory;
  gtk_label_set_text (GTK_LABEL (label), text);
}

/* Picking a process in the table brings its lifetime into view. */
static void
selection_changed_cb (GtkSingleSelection *selection, GParamSpec *pspec, SysprofProcessesView *self)
{
  SysprofProcessItem *item = gtk_single_selection_get_selected_item (selection);
  GtkAdjustment      *vadjustment;
  double              y;

  (void) pspec;
  if (item == NULL)
    return;
  vadjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->chart_scroller));
  y = (double) item->chart_row * PROCESS_ROW_HEIGHT;
  if (y < gtk_adjustment_get_value (vadjustment) ||
      y + PROCESS_ROW_HEIGHT > gtk_adjustment_get_value (vadjustment) + gtk_adjustment_get_page_size (vadjustment))
    gtk_adjustment_set_value (vadjustment, y - (gtk_adjustment_get_page_size (vadjustment) - PROCESS_ROW_HEIGHT) / 2);
}

static GtkWidget *
create_table (SysprofProcessesView *self, GListStore *store)
{
  GtkWidget          *view = gtk_column_view_new (NULL);
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;

  for (int i = 0; i < N_COLUMNS; i++)
    {
      GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      GtkSorter           *sorter = GTK_SORTER (gtk_custom_sorter_new (compare_items, GINT_TO_POINTER (i), NULL));

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GINT_TO_POINTER (i));
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GINT_TO_POINTER (i));
      column = gtk_column_view_column_new (column_titles[i], factory);
      gtk_column_view_column_set_sorter (column, sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      if (i == COLUMN_CMDLINE)
        gtk_column_view_column_set_expand (column, TRUE);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      g_object_unref (sorter);
      g_object_unref (column);
    }

  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (store)),
                                    g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view))));
  selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  /* Nothing is picked until the user picks a process. */
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_single_selection_set_selected (selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_object (selection, "notify::selected-item", G_CALLBACK (selection_changed_cb), self, 0);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view), GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Processes table", -1);
  return view;
}

static char *
describe_process (const SysprofSummaryProcess *p)
{
  g_autofree char *begin = format_seconds (p->begin_ns);
  g_autofree char *end = format_seconds (p->end_ns);
  g_autofree char *life = NULL;

  if (p->exited)
    life = g_strdup_printf ("from %s, exited at %s", begin, end);
  else
    life = g_strdup_printf ("from %s to the end of the capture (%s)", begin, end);
  return g_strdup_printf ("%s%spid %d, %s\n%" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT " allocations",
                          p->cmdline, p->cmdline[0] != '\0' ? "\n" : "", p->pid, life, p->n_samples, p->n_allocations);
}

static void
sysprof_processes_view_load (SysprofView *view, SysprofDocument *document)
{
  GArray               *processes = sysprof_document_get_processes (document);
  GtkWidget            *chart = sysprof_chart_new (document);
  GtkWidget            *chart_scroller = gtk_scrolled_window_new ();
  SysprofProcessesView *self = SYSPROF_PROCESSES_VIEW (view);
  GtkWidget            *table_scroller = gtk_scrolled_window_new ();
  GtkWidget            *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GListStore           *store = g_list_store_new (SYSPROF_TYPE_PROCESS_ITEM);

  gtk_accessible_update_property (GTK_ACCESSIBLE (chart), GTK_ACCESSIBLE_PROPERTY_LABEL, "Process lifetimes", -1);
  sysprof_chart_set_row_height (SYSPROF_CHART (chart), PROCESS_ROW_HEIGHT);

  /* The document keeps processes by begin time: the chart reads as a
   * waterfall of when each one appeared. */
  for (guint i = 0; i < processes->len; i++)
    {
      const SysprofSummaryProcess *p = &g_array_index (processes, SysprofSummaryProcess, i);
      g_autoptr (SysprofProcessItem) item = sysprof_process_item_new (p, process_name (document, p));
      g_autofree char *label = NULL;
      g_autofree char *description = describe_process (p);
      guint            row;

      label = item->name != NULL ? g_strdup_printf ("%s (%d)", item->name, p->pid) : g_strdup_printf ("pid %d", p->pid);
      row = sysprof_chart_add_spans (SYSPROF_CHART (chart), label, &p->begin_ns, &p->end_ns, 1);
      item->chart_row = row;
      sysprof_chart_set_row_description (SYSPROF_CHART (chart), row, description);
      g_list_store_append (store, item);
    }

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (chart_scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (chart_scroller), chart);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (table_scroller), create_table (self, store));
  g_object_unref (store);

  self->chart_scroller = chart_scroller;
  gtk_paned_set_start_child (GTK_PANED (paned), chart_scroller);
  gtk_paned_set_end_child (GTK_PANED (paned), table_scroller);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_size_request (chart_scroller, -1, 72);
  gtk_widget_set_size_request (table_scroller, -1, 96);
  /* The chart takes what its rows need, up to half of a usual window;
   * the table gets the rest. */
  gtk_paned_set_position (GTK_PANED (paned), MIN ((int) MIN (processes->len, 16) * PROCESS_ROW_HEIGHT + 2, 360));
  sysprof_view_set_child (view, paned);
}

static gboolean
sysprof_processes_view_has_data (SysprofDocument *document)
{
  GArray *processes = sysprof_document_get_processes (document);

  if (sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_PROCESS) > 0 ||
      sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_FORK) > 0 ||
      sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_EXIT) > 0)
    return TRUE;
  for (guint i = 0; i < processes->len; i++)
    if (g_array_index (processes, SysprofSummaryProcess, i).n_samples > 0)
      return TRUE;
  return FALSE;
}

static void
sysprof_processes_view_class_init (SysprofProcessesViewClass *klass)
{
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  view_class->has_data = sysprof_processes_view_has_data;
  view_class->load = sysprof_processes_view_load;
  sysprof_view_class_set_info (view_class, "processes", "Processes", "text-x-generic-symbolic", 80);
}

static void
sysprof_processes_view_init (SysprofProcessesView *self)
{
  (void) self;
}
