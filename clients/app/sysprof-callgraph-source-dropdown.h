// SPDX-License-Identifier: GPL-3.0-or-later
/* The drop-down of the callgraph and flame graph views that chooses what
 * their callgraph weighs: on-CPU samples, the time threads waited off the
 * CPU (captures recorded with --scheduler), or both in time.  Shown only
 * when the document has waits.  And how a weight of each source reads. */
#pragma once

#include "sysprof-callgraph-backed-view.h"

G_BEGIN_DECLS

/* A GtkDropDown that sets @view's source; hidden until
 * sysprof_callgraph_source_dropdown_update() finds waits in @view's
 * document. */
GtkWidget *sysprof_callgraph_source_dropdown_new (SysprofCallgraphBackedView *view);
/* At the view's load: shown when the document has waits. */
void sysprof_callgraph_source_dropdown_update (GtkWidget *dropdown, SysprofDocument *document);
/* "123" samples, or "12.3 ms" for the sources counted in microseconds. */
char *sysprof_callgraph_source_format (SysprofCallgraphSource source, guint64 value);
/* "samples", "off the CPU", "on and off the CPU": what a total is. */
char *sysprof_callgraph_source_describe_total (SysprofCallgraphSource source, guint64 total);
/* TRUE for the sources whose counts are microseconds. */
gboolean sysprof_callgraph_source_is_time (SysprofCallgraphSource source);

G_END_DECLS
