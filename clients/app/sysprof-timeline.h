// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofTimeline: the time ruler shared by every view of a window.
 *
 * It shows the document's visible range (ticks in seconds) over a strip of
 * sample density, and the selection.  Dragging selects a range (the
 * document's selection, which filters every view); a click clears it;
 * Ctrl+scroll zooms around the pointer, scroll pans when zoomed.  The plot
 * starts after the same left gutter as the charts of the views, so times
 * line up.
 */
#pragma once

#include <gtk/gtk.h>

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_TIMELINE (sysprof_timeline_get_type ())
G_DECLARE_FINAL_TYPE (SysprofTimeline, sysprof_timeline, SYSPROF, TIMELINE, GtkWidget)

GtkWidget *sysprof_timeline_new (SysprofDocument *document);

/* Zoom by @factor (< 1 zooms in) around the middle of the visible range,
 * or around the selection when there is one. */
void sysprof_timeline_zoom (SysprofTimeline *self, double factor);
/* The whole capture again. */
void sysprof_timeline_zoom_reset (SysprofTimeline *self);
/* Selects the times under plot pixels @x1..@x2 (widget coordinates), as a
 * drag would; what the tests use to drive a selection. */
void sysprof_timeline_select_pixels (SysprofTimeline *self, double x1, double x2);
/* The time at widget coordinate @x. */
gint64 sysprof_timeline_time_at (SysprofTimeline *self, double x);

/* The rows the window shows under the ruler, for what happens over the
 * whole capture and is no view's chart: a "D-Bus" row of ticks, one per
 * message, when the capture has D-Bus messages.  A SysprofChart named
 * "timeline-rows" on the same axis (it zooms and selects with the ruler),
 * or NULL when there is nothing to show. */
GtkWidget *sysprof_timeline_rows_new (SysprofDocument *document);

G_END_DECLS
