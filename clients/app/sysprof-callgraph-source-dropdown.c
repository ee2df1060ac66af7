// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-callgraph-source-dropdown.h"
#include "sysprof-document.h"

/* In the drop-down's order. */
static const SysprofCallgraphSource sources[] = {
  SYSPROF_CALLGRAPH_SOURCE_SAMPLES,
  SYSPROF_CALLGRAPH_SOURCE_OFF_CPU,
  SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK,
};

gboolean
sysprof_callgraph_source_is_time (SysprofCallgraphSource source)
{
  return source == SYSPROF_CALLGRAPH_SOURCE_OFF_CPU || source == SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK;
}

char *
sysprof_callgraph_source_format (SysprofCallgraphSource source, guint64 value)
{
  if (sysprof_callgraph_source_is_time (source))
    return g_strdup_printf ("%.1f ms", (double) value / 1000.0);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
}

char *
sysprof_callgraph_source_describe_total (SysprofCallgraphSource source, guint64 total)
{
  switch (source)
    {
    case SYSPROF_CALLGRAPH_SOURCE_OFF_CPU:
      return total == 0 ? g_strdup ("No waits") : g_strdup_printf ("%.3f s off the CPU", (double) total / 1e6);
    case SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK:
      return total == 0 ? g_strdup ("No samples") : g_strdup_printf ("%.3f s on and off the CPU", (double) total / 1e6);
    case SYSPROF_CALLGRAPH_SOURCE_SAMPLES:
    case SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS:
    case SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS:
    default: return total == 0 ? g_strdup ("No samples") : g_strdup_printf ("%" G_GUINT64_FORMAT " samples", total);
    }
}

static void
on_selected (GtkDropDown *dropdown, GParamSpec *pspec, SysprofCallgraphBackedView *view)
{
  guint selected = gtk_drop_down_get_selected (dropdown);

  (void) pspec;
  if (selected < G_N_ELEMENTS (sources))
    sysprof_callgraph_backed_view_set_source (view, sources[selected]);
}

GtkWidget *
sysprof_callgraph_source_dropdown_new (SysprofCallgraphBackedView *view)
{
  static const char *const labels[] = { "On CPU", "Off CPU (waiting)", "On and off CPU", NULL };
  GtkWidget               *dropdown = gtk_drop_down_new_from_strings (labels);

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW (view), NULL);

  gtk_widget_set_tooltip_text (dropdown, "What the callgraph weighs: samples on the CPU, the time threads waited "
                                         "off it (recorded with --scheduler), or both in time");
  gtk_accessible_update_property (GTK_ACCESSIBLE (dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL, "Weigh", -1);
  gtk_widget_set_visible (dropdown, FALSE);
  gtk_widget_set_name (dropdown, "source-dropdown");
  g_signal_connect_object (dropdown, "notify::selected", G_CALLBACK (on_selected), view, 0);
  return dropdown;
}

void
sysprof_callgraph_source_dropdown_update (GtkWidget *dropdown, SysprofDocument *document)
{
  g_return_if_fail (GTK_IS_DROP_DOWN (dropdown));

  gtk_widget_set_visible (dropdown, sysprof_document_get_waits (document)->len > 0);
}
