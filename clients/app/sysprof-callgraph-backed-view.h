// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCallgraphBackedView: the base of the views that show a callgraph
 * of the document (the callgraph, the flame graph, the memory view's
 * allocations).
 *
 * It owns the life cycle they share: the callgraph is asked of the
 * document (whose worker builds it and caches it, so views share it) when
 * the view gets its document and again at every change of the document's
 * filter (selection, focused or hidden functions); a newer request cancels
 * the older one, and so does disposing the view; the callgraph that
 * arrives goes to the class's callgraph_ready().  While it is built the
 * view is busy, and when it fails the view shows the error (see
 * update_busy for a view with work of its own).
 *
 * A page nobody looks at need not build its callgraph: unless its class
 * says otherwise (SysprofCallgraphBackedViewFlags), a view that is not
 * shown asks for it when it is shown.  Dragging a selection on the
 * timeline then only costs the analyses of the page in view, and the
 * second of the callgraph and flame graph pages to be shown finds the
 * callgraph in the document's cache (or joins its computation when the
 * first is still at it).
 *
 * A subclass that overrides SysprofView's load or filter_changed chains up
 * to it: that is where the callgraph is asked for. */
#pragma once

#include "sysprof-view.h"

G_BEGIN_DECLS

typedef enum
{
  /* Built as soon as the view gets its document, shown or not. */
  SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_AT_LOAD = 1 << 0,
  /* Built again at every change of the filter, shown or not. */
  SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_WHILE_HIDDEN = 1 << 1,
} SysprofCallgraphBackedViewFlags;

#define SYSPROF_TYPE_CALLGRAPH_BACKED_VIEW (sysprof_callgraph_backed_view_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    SysprofCallgraphBackedView, sysprof_callgraph_backed_view, SYSPROF, CALLGRAPH_BACKED_VIEW, SysprofView)

struct _SysprofCallgraphBackedViewClass
{
  SysprofViewClass parent_class;

  /* The callgraph shown is out of date: a new one is asked for, now or
   * when the view is next shown.  Optional. */
  void (*callgraph_cleared) (SysprofCallgraphBackedView *self);
  /* @callgraph, of the current filter, arrived. */
  void (*callgraph_ready) (SysprofCallgraphBackedView *self, SysprofCallgraph *callgraph);
  /* The callgraph's work started, ended or failed: show it.  The default
   * makes the view busy, with the class's message, while the callgraph is
   * built, and shows the error when it failed.  A view with more work of
   * its own overrides it to show all of it at once. */
  void (*update_busy) (SysprofCallgraphBackedView *self);

  /*< private >*/
  SysprofCallgraphSource          source;
  SysprofCallgraphBackedViewFlags flags;
  const char                     *busy_message;
};

/* For class_init: the view shows the callgraph of @source (counted in
 * samples or allocations; an allocation callgraph has the bytes too), and
 * builds it when @flags say.  @busy_message: what the default update_busy
 * shows meanwhile ("Building the callgraph…"). */
void sysprof_callgraph_backed_view_class_set_callgraph (SysprofCallgraphBackedViewClass *klass,
                                                        SysprofCallgraphSource           source,
                                                        SysprofCallgraphBackedViewFlags  flags,
                                                        const char                      *busy_message);

/* What the view's callgraph is made of: the class's source until
 * set_source() chose another (the callgraph and flame graph switch between
 * on-CPU samples, off-CPU waits and both); setting it asks for the
 * callgraph again. */
SysprofCallgraphSource sysprof_callgraph_backed_view_get_source (SysprofCallgraphBackedView *self);
void sysprof_callgraph_backed_view_set_source (SysprofCallgraphBackedView *self, SysprofCallgraphSource source);

/* The callgraph of the current filter, or NULL until it arrives (or when
 * it failed). */
SysprofCallgraph *sysprof_callgraph_backed_view_get_callgraph (SysprofCallgraphBackedView *self);
/* Whether the callgraph is being built. */
gboolean sysprof_callgraph_backed_view_get_building (SysprofCallgraphBackedView *self);
/* Why the last callgraph asked for could not be built, or NULL. */
const char *sysprof_callgraph_backed_view_get_error (SysprofCallgraphBackedView *self);

G_END_DECLS
