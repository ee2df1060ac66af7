// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofFlamegraphCanvas: the drawing of the flame graph page, the
 * top-down call tree of a callgraph, root at the bottom and callees stacked
 * above their callers, each frame as wide as its total, children left to
 * right from the heaviest.  A frame is coloured from a hash of its
 * function's name, so a function keeps its colour from one capture or
 * selection to the next.
 *
 * Clicking a frame zooms into it: it fills the width and its callers stay
 * below it, full width, to click back out (as does Escape; BackSpace goes
 * one level out).  "zoom-changed" tells of every change of the zoom or of
 * the callgraph. */
#pragma once

#include <gtk/gtk.h>
#include <sysprof.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_FLAMEGRAPH_CANVAS (sysprof_flamegraph_canvas_get_type ())
G_DECLARE_FINAL_TYPE (SysprofFlamegraphCanvas, sysprof_flamegraph_canvas, SYSPROF, FLAMEGRAPH_CANVAS, GtkWidget)

GtkWidget *sysprof_flamegraph_canvas_new (void);
/* @callgraph may be NULL.  The zoom follows, on the same path of functions
 * as far as the new callgraph has it. */
void sysprof_flamegraph_canvas_set_callgraph (SysprofFlamegraphCanvas *self, SysprofCallgraph *callgraph);
/* A differential flame graph: @diff's AFTER callgraph, each frame coloured
 * by the change of its share since BEFORE
 * (sysprof_callgraph_diff_colour_for_change()), its tooltip giving both
 * shares.  NULL: no callgraph.  set_callgraph() goes back to plain colours. */
void sysprof_flamegraph_canvas_set_diff (SysprofFlamegraphCanvas *self, SysprofCallgraphDiff *diff);
/* The colour the frame of @node is drawn in (before hover and search fade
 * it). */
void sysprof_flamegraph_canvas_get_node_color (SysprofFlamegraphCanvas    *self,
                                               const SysprofCallgraphNode *node,
                                               GdkRGBA                    *color);
/* The node that fills the width (the root unless zoomed), NULL without a
 * callgraph. */
const SysprofCallgraphNode *sysprof_flamegraph_canvas_get_zoom (SysprofFlamegraphCanvas *self);
void sysprof_flamegraph_canvas_set_zoom (SysprofFlamegraphCanvas *self, const SysprofCallgraphNode *zoom);
/* Fades the frames whose function's name does not contain @needle (already
 * case-folded; NULL: no search).  Returns the samples that pass through a
 * matching function. */
guint64 sysprof_flamegraph_canvas_set_search (SysprofFlamegraphCanvas *self, const char *needle);
/* The node of the frame drawn at (@x, @y), in the canvas's coordinates,
 * or NULL. */
const SysprofCallgraphNode *sysprof_flamegraph_canvas_get_node_at (SysprofFlamegraphCanvas *self, double x, double y);

G_END_DECLS
