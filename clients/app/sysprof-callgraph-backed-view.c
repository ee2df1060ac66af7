// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-callgraph-backed-view.h"

typedef struct
{
  GCancellable     *cancellable; /* non-NULL while the callgraph is built */
  SysprofCallgraph *callgraph;   /* of the current filter, once it arrived */
  char             *error;       /* why the last request failed */
  gboolean          stale;       /* the filter changed while the view was hidden */
  int               source;      /* SysprofCallgraphSource, -1: the class's */
} SysprofCallgraphBackedViewPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (SysprofCallgraphBackedView, sysprof_callgraph_backed_view, SYSPROF_TYPE_VIEW)

void
sysprof_callgraph_backed_view_class_set_callgraph (SysprofCallgraphBackedViewClass *klass,
                                                   SysprofCallgraphSource           source,
                                                   SysprofCallgraphBackedViewFlags  flags,
                                                   const char                      *busy_message)
{
  g_return_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW_CLASS (klass));

  klass->source = source;
  klass->flags = flags;
  klass->busy_message = busy_message;
}

SysprofCallgraph *
sysprof_callgraph_backed_view_get_callgraph (SysprofCallgraphBackedView *self)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW (self), NULL);
  return priv->callgraph;
}

gboolean
sysprof_callgraph_backed_view_get_building (SysprofCallgraphBackedView *self)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW (self), FALSE);
  return priv->cancellable != NULL;
}

const char *
sysprof_callgraph_backed_view_get_error (SysprofCallgraphBackedView *self)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW (self), NULL);
  return priv->error;
}

static void
update_busy (SysprofCallgraphBackedView *self)
{
  SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->update_busy (self);
}

static void
sysprof_callgraph_backed_view_real_update_busy (SysprofCallgraphBackedView *self)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);
  gboolean                           building = priv->cancellable != NULL;

  sysprof_view_set_busy (SYSPROF_VIEW (self), building,
                         building ? SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->busy_message : NULL);
  /* set_busy (FALSE) shows the child again: the error goes on top of it. */
  if (priv->error != NULL)
    sysprof_view_set_error (SYSPROF_VIEW (self), priv->error);
}

static void
on_callgraph_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  SysprofCallgraphBackedView        *self;
  SysprofCallgraphBackedViewPrivate *priv;

  callgraph = sysprof_document_callgraph_finish (SYSPROF_DOCUMENT (object), result, &error);
  /* Cancelled: the view was disposed or asked for another one since, so
   * @user_data must not be touched. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self = SYSPROF_CALLGRAPH_BACKED_VIEW (user_data);
  priv = sysprof_callgraph_backed_view_get_instance_private (self);
  g_clear_object (&priv->cancellable);
  if (callgraph == NULL)
    {
      priv->error = g_strdup (error->message);
      update_busy (self);
      return;
    }
  g_set_object (&priv->callgraph, callgraph);
  update_busy (self);
  if (SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->callgraph_ready != NULL)
    SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->callgraph_ready (self, callgraph);
}

/* Drops the callgraph shown and asks for the current filter's, now or,
 * unless @now, when the view is next shown. */
static void
request_callgraph (SysprofCallgraphBackedView *self, gboolean now)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);
  SysprofCallgraphBackedViewClass   *klass = SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self);

  if (priv->cancellable != NULL)
    g_cancellable_cancel (priv->cancellable);
  g_clear_object (&priv->cancellable);
  g_clear_object (&priv->callgraph);
  g_clear_pointer (&priv->error, g_free);
  if (klass->callgraph_cleared != NULL)
    klass->callgraph_cleared (self);

  if (!now && !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      priv->stale = TRUE;
      update_busy (self);
      return;
    }
  priv->stale = FALSE;
  priv->cancellable = g_cancellable_new ();
  update_busy (self);
  /* Counted in samples or allocations: an allocation callgraph has the
   * bytes with them (self_bytes, total_bytes).  No reference: dispose
   * cancels, and a cancelled callback returns before it looks at the
   * view. */
  sysprof_document_callgraph_async (sysprof_view_get_document (SYSPROF_VIEW (self)),
                                    sysprof_callgraph_backed_view_get_source (self), SYSPROF_CALLGRAPH_WEIGHT_COUNT,
                                    priv->cancellable, on_callgraph_ready, self);
}

static void
sysprof_callgraph_backed_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofCallgraphBackedView *self = SYSPROF_CALLGRAPH_BACKED_VIEW (view);

  (void) document;
  request_callgraph (
      self, (SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->flags & SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_AT_LOAD) != 0);
}

static void
sysprof_callgraph_backed_view_filter_changed (SysprofView *view)
{
  SysprofCallgraphBackedView *self = SYSPROF_CALLGRAPH_BACKED_VIEW (view);

  request_callgraph (self, (SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->flags &
                            SYSPROF_CALLGRAPH_BACKED_VIEW_BUILD_WHILE_HIDDEN) != 0);
}

static void
sysprof_callgraph_backed_view_map (GtkWidget *widget)
{
  SysprofCallgraphBackedView        *self = SYSPROF_CALLGRAPH_BACKED_VIEW (widget);
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  GTK_WIDGET_CLASS (sysprof_callgraph_backed_view_parent_class)->map (widget);
  if (priv->stale)
    request_callgraph (self, TRUE);
}

static void
sysprof_callgraph_backed_view_dispose (GObject *object)
{
  SysprofCallgraphBackedView        *self = SYSPROF_CALLGRAPH_BACKED_VIEW (object);
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  if (priv->cancellable != NULL)
    g_cancellable_cancel (priv->cancellable);
  g_clear_object (&priv->cancellable);

  G_OBJECT_CLASS (sysprof_callgraph_backed_view_parent_class)->dispose (object);
}

static void
sysprof_callgraph_backed_view_finalize (GObject *object)
{
  SysprofCallgraphBackedView        *self = SYSPROF_CALLGRAPH_BACKED_VIEW (object);
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  g_clear_object (&priv->callgraph);
  g_clear_pointer (&priv->error, g_free);

  G_OBJECT_CLASS (sysprof_callgraph_backed_view_parent_class)->finalize (object);
}

static void
sysprof_callgraph_backed_view_class_init (SysprofCallgraphBackedViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass   *widget_class = GTK_WIDGET_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_callgraph_backed_view_dispose;
  object_class->finalize = sysprof_callgraph_backed_view_finalize;
  widget_class->map = sysprof_callgraph_backed_view_map;
  view_class->load = sysprof_callgraph_backed_view_load;
  view_class->filter_changed = sysprof_callgraph_backed_view_filter_changed;
  klass->update_busy = sysprof_callgraph_backed_view_real_update_busy;
}

static void
sysprof_callgraph_backed_view_init (SysprofCallgraphBackedView *self)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  priv->source = -1;
}

SysprofCallgraphSource
sysprof_callgraph_backed_view_get_source (SysprofCallgraphBackedView *self)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  g_return_val_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW (self), SYSPROF_CALLGRAPH_SOURCE_SAMPLES);
  return priv->source >= 0 ? (SysprofCallgraphSource) priv->source
                           : SYSPROF_CALLGRAPH_BACKED_VIEW_GET_CLASS (self)->source;
}

void
sysprof_callgraph_backed_view_set_source (SysprofCallgraphBackedView *self, SysprofCallgraphSource source)
{
  SysprofCallgraphBackedViewPrivate *priv = sysprof_callgraph_backed_view_get_instance_private (self);

  g_return_if_fail (SYSPROF_IS_CALLGRAPH_BACKED_VIEW (self));

  if (sysprof_callgraph_backed_view_get_source (self) == source)
    return;
  priv->source = (int) source;
  if (sysprof_view_get_document (SYSPROF_VIEW (self)) != NULL)
    request_callgraph (self, TRUE);
}
