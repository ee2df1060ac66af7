// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>

#include "sysprof-chart.h"
#include "sysprof-timeline.h"

#ifndef SYSPROF_CHART_GUTTER
#define SYSPROF_CHART_GUTTER 160
#endif

#define RULER_HEIGHT    18
#define TIMELINE_HEIGHT 64

struct _SysprofTimeline
{
  GtkWidget parent_instance;

  SysprofDocument *document;
  gulong           filter_handler;
  gulong           range_handler;

  /* Sample density per plot column, for the visible range; recomputed when
   * the width or the range changes. */
  guint *density;
  guint  density_width;
  gint64 density_begin;
  gint64 density_end;
  guint  density_max;

  double   drag_start_x;
  gboolean dragging;
  double   drag_x;
};

G_DEFINE_FINAL_TYPE (SysprofTimeline, sysprof_timeline, GTK_TYPE_WIDGET)

static double
plot_width (SysprofTimeline *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - SYSPROF_CHART_GUTTER);
}

gint64
sysprof_timeline_time_at (SysprofTimeline *self, double x)
{
  gint64 begin, end;
  double fraction;

  g_return_val_if_fail (SYSPROF_IS_TIMELINE (self), 0);

  sysprof_document_get_visible_range (self->document, &begin, &end);
  fraction = CLAMP ((x - SYSPROF_CHART_GUTTER) / plot_width (self), 0.0, 1.0);
  return begin + (gint64) llround (fraction * (double) (end - begin));
}

static double
x_of_time (SysprofTimeline *self, gint64 time)
{
  gint64 begin, end;

  sysprof_document_get_visible_range (self->document, &begin, &end);
  return SYSPROF_CHART_GUTTER + plot_width (self) * (double) (time - begin) / (double) MAX (end - begin, 1);
}

static void
update_density (SysprofTimeline *self)
{
  GArray *samples = sysprof_document_get_samples (self->document);
  guint   width = (guint) plot_width (self);
  gint64  begin, end;
  guint   first;

  sysprof_document_get_visible_range (self->document, &begin, &end);
  if (self->density != NULL && self->density_width == width && self->density_begin == begin && self->density_end == end)
    return;

  g_free (self->density);
  self->density = g_new0 (guint, width);
  self->density_width = width;
  self->density_begin = begin;
  self->density_end = end;
  self->density_max = 0;

  if (samples->len == 0)
    {
      /* No samples: the allocations' density, from their per-millisecond
       * counts (memory captures), the first visible one found by bisection. */
      GArray *buckets = sysprof_document_get_allocation_buckets (self->document);
      guint   lo = 0, hi = buckets->len;

      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (g_array_index (buckets, SysprofDocumentAllocationBucket, mid).ms * 1000000 + 500000 < begin)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint i = lo; i < buckets->len; i++)
        {
          const SysprofDocumentAllocationBucket *b = &g_array_index (buckets, SysprofDocumentAllocationBucket, i);
          gint64                                 t = b->ms * 1000000 + 500000;
          guint                                  column;

          if (t > end)
            break;
          column = (guint) ((double) (t - begin) / (double) MAX (end - begin, 1) * (width - 1));
          self->density[column] = (guint) MIN ((guint64) self->density[column] + b->count, G_MAXUINT);
          self->density_max = MAX (self->density_max, self->density[column]);
        }
      return;
    }

  /* Samples are in time order: find the first visible one by bisection. */
  {
    guint lo = 0, hi = samples->len;

    while (lo < hi)
      {
        guint mid = lo + (hi - lo) / 2;

        if (g_array_index (samples, SysprofDocumentSample, mid).time_ns < begin)
          lo = mid + 1;
        else
          hi = mid;
      }
    first = lo;
  }
  for (guint i = first; i < samples->len; i++)
    {
      gint64 t = g_array_index (samples, SysprofDocumentSample, i).time_ns;
      guint  column;

      if (t > end)
        break;
      column = (guint) ((double) (t - begin) / (double) MAX (end - begin, 1) * (width - 1));
      if (++self->density[column] > self->density_max)
        self->density_max = self->density[column];
    }
}

/* A tick step of 1, 2 or 5 times a power of ten seconds, about every
 * 100 pixels. */
static double
tick_step (double seconds, double pixels)
{
  double raw = seconds * 100.0 / MAX (pixels, 1.0);
  double power = pow (10.0, floor (log10 (MAX (raw, 1e-9))));

  if (raw <= power)
    return power;
  if (raw <= 2 * power)
    return 2 * power;
  if (raw <= 5 * power)
    return 5 * power;
  return 10 * power;
}

static char *
format_seconds (double seconds, double step)
{
  int decimals = step >= 1 ? 0 : (int) ceil (-log10 (step));

  return g_strdup_printf ("%.*f s", MIN (decimals, 9), seconds);
}

static void
append_text (GtkWidget *widget, GtkSnapshot *snapshot, const char *text, double x, double y, const GdkRGBA *color)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) x, (float) y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
  g_object_unref (layout);
}

static void
sysprof_timeline_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SysprofTimeline *self = SYSPROF_TIMELINE (widget);
  int              width = gtk_widget_get_width (widget);
  int              height = gtk_widget_get_height (widget);
  double           pw = plot_width (self);
  GdkRGBA          fg, faint, bar, shade;
  gint64           begin, end, sel_begin, sel_end;
  double           step;
  g_autofree char *range_text = NULL;

  if (!sysprof_document_is_loaded (self->document))
    return;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  faint = fg;
  faint.alpha = 0.25f;
  gdk_rgba_parse (&bar, "#3584e4");
  gdk_rgba_parse (&shade, "#3584e4");
  shade.alpha = 0.25f;

  sysprof_document_get_visible_range (self->document, &begin, &end);

  /* Gutter: what is shown, and the selection. */
  range_text = g_strdup_printf ("%.3f – %.3f s", begin / 1e9, end / 1e9);
  append_text (widget, snapshot, "Timeline", 8, 2, &fg);
  append_text (widget, snapshot, range_text, 8, 22, &faint);

  /* Ticks and their labels. */
  step = tick_step ((end - begin) / 1e9, pw);
  for (double t = ceil (begin / 1e9 / step) * step; t <= end / 1e9 + 1e-12; t += step)
    {
      double           x = x_of_time (self, (gint64) llround (t * 1e9));
      g_autofree char *label = format_seconds (t, step);

      gtk_snapshot_append_color (snapshot, &faint, &GRAPHENE_RECT_INIT ((float) x, 0, 1, (float) height));
      if (x + 4 < width - 40)
        append_text (widget, snapshot, label, x + 3, 0, &fg);
    }

  /* Sample density. */
  update_density (self);
  if (self->density_max > 0)
    for (guint c = 0; c < self->density_width; c++)
      {
        double h;

        if (self->density[c] == 0)
          continue;
        /* At least 2 px: a lone event among bursts stays visible. */
        h = MAX (2.0, (double) (height - RULER_HEIGHT - 2) * self->density[c] / self->density_max);
        gtk_snapshot_append_color (
            snapshot, &bar,
            &GRAPHENE_RECT_INIT ((float) (SYSPROF_CHART_GUTTER + c), (float) (height - h), 1, (float) h));
      }

  /* The selection, or the range being dragged. */
  sysprof_document_get_selection (self->document, &sel_begin, &sel_end);
  if (self->dragging)
    {
      double x1 = MIN (self->drag_start_x, self->drag_x);
      double x2 = MAX (self->drag_start_x, self->drag_x);

      gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));
    }
  else if (sysprof_document_has_selection (self->document))
    {
      double x1 = CLAMP (x_of_time (self, MAX (sel_begin, begin)), SYSPROF_CHART_GUTTER, width);
      double x2 = CLAMP (x_of_time (self, MIN (sel_end, end)), SYSPROF_CHART_GUTTER, width);

      if (x2 > x1)
        gtk_snapshot_append_color (snapshot, &shade,
                                   &GRAPHENE_RECT_INIT ((float) x1, 0, (float) MAX (x2 - x1, 1), height));
    }

  /* Gutter separator. */
  gtk_snapshot_append_color (snapshot, &faint, &GRAPHENE_RECT_INIT (SYSPROF_CHART_GUTTER - 1, 0, 1, height));
}

static void
sysprof_timeline_measure (GtkWidget     *widget,
                          GtkOrientation orientation,
                          int            for_size,
                          int           *minimum,
                          int           *natural,
                          int           *minimum_baseline,
                          int           *natural_baseline)
{
  (void) widget;
  (void) for_size;
  *minimum_baseline = *natural_baseline = -1;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = SYSPROF_CHART_GUTTER + 200;
  else
    *minimum = *natural = TIMELINE_HEIGHT;
}

static void
update_accessible (SysprofTimeline *self)
{
  gint64           begin, end;
  g_autofree char *text = NULL;

  if (sysprof_document_has_selection (self->document))
    {
      sysprof_document_get_selection (self->document, &begin, &end);
      text = g_strdup_printf ("Selected %.3f s to %.3f s", begin / 1e9, end / 1e9);
    }
  else
    text = g_strdup ("No selection: the whole capture");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

void
sysprof_timeline_select_pixels (SysprofTimeline *self, double x1, double x2)
{
  gint64 t1, t2;

  g_return_if_fail (SYSPROF_IS_TIMELINE (self));

  t1 = sysprof_timeline_time_at (self, MIN (x1, x2));
  t2 = sysprof_timeline_time_at (self, MAX (x1, x2));
  if (t2 <= t1)
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
  else
    sysprof_document_set_selection (self->document, t1, t2);
}

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, SysprofTimeline *self)
{
  (void) gesture;
  (void) y;
  self->dragging = TRUE;
  self->drag_start_x = MAX (x, SYSPROF_CHART_GUTTER);
  self->drag_x = self->drag_start_x;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_update_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofTimeline *self)
{
  (void) gesture;
  (void) dy;
  self->drag_x = CLAMP (self->drag_start_x + dx, SYSPROF_CHART_GUTTER, gtk_widget_get_width (GTK_WIDGET (self)));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofTimeline *self)
{
  (void) gesture;
  (void) dy;
  self->dragging = FALSE;
  /* A click (no real drag) clears the selection. */
  if (fabs (dx) < 3)
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
  else
    sysprof_timeline_select_pixels (self, self->drag_start_x, self->drag_x);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
zoom_around (SysprofTimeline *self, double factor, gint64 center)
{
  gint64 begin, end;
  double span;

  sysprof_document_get_visible_range (self->document, &begin, &end);
  span = (double) (end - begin) * factor;
  begin = center - (gint64) ((double) (center - begin) * factor);
  sysprof_document_set_visible_range (self->document, begin, begin + (gint64) span);
}

void
sysprof_timeline_zoom (SysprofTimeline *self, double factor)
{
  gint64 begin, end;

  g_return_if_fail (SYSPROF_IS_TIMELINE (self));

  if (sysprof_document_has_selection (self->document) && factor < 1)
    {
      /* Zooming in with a selection shows the selection. */
      sysprof_document_get_selection (self->document, &begin, &end);
      sysprof_document_set_visible_range (self->document, MAX (begin, 0), end);
      return;
    }
  sysprof_document_get_visible_range (self->document, &begin, &end);
  zoom_around (self, factor, begin + (end - begin) / 2);
}

void
sysprof_timeline_zoom_reset (SysprofTimeline *self)
{
  g_return_if_fail (SYSPROF_IS_TIMELINE (self));

  sysprof_document_set_visible_range (self->document, 0, sysprof_document_get_duration (self->document));
}

static gboolean
scroll_cb (GtkEventControllerScroll *controller, double dx, double dy, SysprofTimeline *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  gint64          begin, end;

  (void) dx;
  if (state & GDK_CONTROL_MASK)
    {
      double    x = 0, y = 0;
      GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));

      if (event != NULL)
        gdk_event_get_position (event, &x, &y);
      zoom_around (self, dy < 0 ? 0.8 : 1.25, sysprof_timeline_time_at (self, x));
      return TRUE;
    }
  /* Pan by a tenth of the visible range. */
  sysprof_document_get_visible_range (self->document, &begin, &end);
  if (end - begin >= sysprof_document_get_duration (self->document))
    return FALSE;
  {
    gint64 shift = (gint64) ((end - begin) / 10 * (dy > 0 ? 1 : -1));

    sysprof_document_set_visible_range (self->document, begin + shift, end + shift);
  }
  return TRUE;
}

static void
on_document_changed (SysprofDocument *document, SysprofTimeline *self)
{
  (void) document;
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

GtkWidget *
sysprof_timeline_new (SysprofDocument *document)
{
  SysprofTimeline *self;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (document), NULL);

  self = g_object_new (SYSPROF_TYPE_TIMELINE, NULL);
  self->document = g_object_ref (document);
  self->filter_handler = g_signal_connect (document, "filter-changed", G_CALLBACK (on_document_changed), self);
  self->range_handler = g_signal_connect (document, "visible-range-changed", G_CALLBACK (on_document_changed), self);
  update_accessible (self);
  return GTK_WIDGET (self);
}

static void
sysprof_timeline_dispose (GObject *object)
{
  SysprofTimeline *self = SYSPROF_TIMELINE (object);

  g_clear_signal_handler (&self->filter_handler, self->document);
  g_clear_signal_handler (&self->range_handler, self->document);
  g_clear_object (&self->document);
  g_clear_pointer (&self->density, g_free);

  G_OBJECT_CLASS (sysprof_timeline_parent_class)->dispose (object);
}

static void
sysprof_timeline_class_init (SysprofTimelineClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_timeline_dispose;
  widget_class->snapshot = sysprof_timeline_snapshot;
  widget_class->measure = sysprof_timeline_measure;
  gtk_widget_class_set_css_name (widget_class, "timeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
sysprof_timeline_init (SysprofTimeline *self)
{
  GtkGesture         *drag = gtk_gesture_drag_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);

  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (scroll, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, "Timeline", -1);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self),
                               "Drag to select a time range (every view follows it); click to clear it; "
                               "Ctrl+scroll to zoom, scroll to pan");
}
