// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>

#include "sysprof-chart.h"
#include "sysprof-time-axis.h"
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

  SysprofTimeDrag drag;
};

G_DEFINE_FINAL_TYPE (SysprofTimeline, sysprof_timeline, GTK_TYPE_WIDGET)

static double
plot_width (SysprofTimeline *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - SYSPROF_CHART_GUTTER);
}

static void
get_axis (SysprofTimeline *self, SysprofTimeAxis *axis)
{
  sysprof_time_axis_init_for_widget (axis, self->document, GTK_WIDGET (self));
}

gint64
sysprof_timeline_time_at (SysprofTimeline *self, double x)
{
  SysprofTimeAxis axis;

  g_return_val_if_fail (SYSPROF_IS_TIMELINE (self), 0);

  get_axis (self, &axis);
  return sysprof_time_axis_time_at_x (&axis, x);
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

          if (g_array_index (buckets, SysprofSummaryAllocationBucket, mid).ms * 1000000 + 500000 < begin)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint i = lo; i < buckets->len; i++)
        {
          const SysprofSummaryAllocationBucket *b = &g_array_index (buckets, SysprofSummaryAllocationBucket, i);
          gint64                                t = b->ms * 1000000 + 500000;
          guint                                 column;

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

        if (g_array_index (samples, SysprofSummarySample, mid).time_ns < begin)
          lo = mid + 1;
        else
          hi = mid;
      }
    first = lo;
  }
  for (guint i = first; i < samples->len; i++)
    {
      gint64 t = g_array_index (samples, SysprofSummarySample, i).time_ns;
      guint  column;

      if (t > end)
        break;
      column = (guint) ((double) (t - begin) / (double) MAX (end - begin, 1) * (width - 1));
      if (++self->density[column] > self->density_max)
        self->density_max = self->density[column];
    }
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

static int
text_width (GtkWidget *widget, const char *text)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);
  int          width = 0;

  pango_layout_get_pixel_size (layout, &width, NULL);
  g_object_unref (layout);
  return width;
}

/* Every tick has its label, unless labels are wider than the space between
 * ticks (times far from the capture's start: "2305843009.2136939 s"); then
 * every other one has, or every fifth...: the multiples of @step times the
 * stride returned, so that they stay put while panning. */
static gint64
label_stride (GtkWidget *widget, const SysprofTimeAxis *axis, const gint64 *ticks, guint n_ticks, gint64 step)
{
  g_autofree char *first = NULL;
  g_autofree char *last = NULL;
  double           spacing = (double) step / sysprof_time_axis_ns_per_pixel (axis);
  double           widest;

  if (n_ticks == 0)
    return 1;
  first = sysprof_time_axis_format_tick (ticks[0], step);
  last = sysprof_time_axis_format_tick (ticks[n_ticks - 1], step);
  widest = MAX (text_width (widget, first), text_width (widget, last)) + 6;
  return (gint64) CLAMP (ceil (widest / MAX (spacing, 1)), 1, 1000);
}

static void
sysprof_timeline_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SysprofTimeline   *self = SYSPROF_TIMELINE (widget);
  int                width = gtk_widget_get_width (widget);
  int                height = gtk_widget_get_height (widget);
  SysprofTimeAxis    axis;
  GdkRGBA            fg, faint, bar, shade;
  gint64             begin, end, sel_begin, sel_end;
  gint64             step, stride;
  guint              max_ticks = SYSPROF_TIME_AXIS_MAX_TICKS (width);
  g_autofree gint64 *ticks = g_new (gint64, max_ticks);
  guint              n_ticks;
  double             x1, x2;
  g_autofree char   *range_text = NULL;

  if (!sysprof_document_is_loaded (self->document))
    return;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  faint = fg;
  faint.alpha = 0.25f;
  gdk_rgba_parse (&bar, "#3584e4");
  gdk_rgba_parse (&shade, "#3584e4");
  shade.alpha = 0.25f;

  sysprof_document_get_visible_range (self->document, &begin, &end);
  get_axis (self, &axis);

  /* Gutter: what is shown, and the selection. */
  range_text = g_strdup_printf ("%.3f – %.3f s", begin / 1e9, end / 1e9);
  append_text (widget, snapshot, "Timeline", 8, 2, &fg);
  append_text (widget, snapshot, range_text, 8, 22, &faint);

  /* Ticks and their labels, about every 100 pixels; in whole nanoseconds
   * and bounded in number, whatever the times. */
  step = sysprof_time_axis_tick_step (&axis, 100);
  n_ticks = sysprof_time_axis_ticks (&axis, step, ticks, max_ticks);
  stride = label_stride (widget, &axis, ticks, n_ticks, step);
  for (guint i = 0; i < n_ticks; i++)
    {
      double x = sysprof_time_axis_x_of_time (&axis, ticks[i]);

      gtk_snapshot_append_color (snapshot, &faint, &GRAPHENE_RECT_INIT ((float) x, 0, 1, (float) height));
      if (x + 4 < width - 40 && (ticks[i] / step) % stride == 0)
        {
          g_autofree char *label = sysprof_time_axis_format_tick (ticks[i], step);

          append_text (widget, snapshot, label, x + 3, 0, &fg);
        }
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
  if (sysprof_time_drag_get_range (&self->drag, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));
  else if (!self->drag.active && sysprof_document_has_selection (self->document) &&
           sysprof_time_axis_range_x (&axis, sel_begin, sel_end, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));

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
  SysprofTimeAxis axis;

  g_return_if_fail (SYSPROF_IS_TIMELINE (self));

  get_axis (self, &axis);
  sysprof_time_axis_select (&axis, self->document, x1, x2);
}

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, SysprofTimeline *self)
{
  (void) gesture;
  (void) y;
  sysprof_time_drag_begin (&self->drag, x, SYSPROF_CHART_GUTTER);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_update_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofTimeline *self)
{
  (void) gesture;
  (void) dy;
  sysprof_time_drag_update (&self->drag, dx, SYSPROF_CHART_GUTTER, gtk_widget_get_width (GTK_WIDGET (self)));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofTimeline *self)
{
  SysprofTimeAxis axis;

  (void) gesture;
  (void) dy;
  if (!self->drag.active)
    return;
  get_axis (self, &axis);
  /* A click (no real drag) clears the selection. */
  if (!sysprof_time_drag_end (&self->drag, dx, &axis, self->document))
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
zoom_around (SysprofTimeline *self, double factor, gint64 center)
{
  gint64 begin, end;
  double span;

  /* In doubles, saturated back: zooming out of a range near the limits of
   * a gint64 goes past them, and the document clamps to the capture. */
  sysprof_document_get_visible_range (self->document, &begin, &end);
  span = trunc (sysprof_time_diff (end, begin) * factor);
  begin = sysprof_time_sub (center, sysprof_time_from_double (trunc (sysprof_time_diff (center, begin) * factor)));
  sysprof_document_set_visible_range (self->document, begin, sysprof_time_add (begin, sysprof_time_from_double (span)));
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
  zoom_around (self, factor, sysprof_time_add (begin, sysprof_time_sub (end, begin) / 2));
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
  if (sysprof_time_sub (end, begin) >= sysprof_document_get_duration (self->document))
    return FALSE;
  {
    gint64 shift = sysprof_time_sub (end, begin) / 10 * (dy > 0 ? 1 : -1);

    sysprof_document_set_visible_range (self->document, sysprof_time_add (begin, shift), sysprof_time_add (end, shift));
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

/* "12 calls, 12 returns, 1 error, 3 signals on the session bus": what the
 * header bytes say, without decoding a message. */
static char *
describe_dbus (GArray *messages)
{
  static const char *const kinds[][2] = {
    [G_DBUS_MESSAGE_TYPE_INVALID] = { "other", "others" },
    [G_DBUS_MESSAGE_TYPE_METHOD_CALL] = { "call", "calls" },
    [G_DBUS_MESSAGE_TYPE_METHOD_RETURN] = { "return", "returns" },
    [G_DBUS_MESSAGE_TYPE_ERROR] = { "error", "errors" },
    [G_DBUS_MESSAGE_TYPE_SIGNAL] = { "signal", "signals" },
  };
  guint64  by_type[G_N_ELEMENTS (kinds)] = { 0 };
  guint64  by_bus[SYSPROF_CAPTURE_DBUS_TYPE_OTHER + 1] = { 0 };
  GString *text = g_string_new (NULL);
  guint    n_buses = 0;

  for (guint i = 0; i < messages->len; i++)
    {
      const SysprofSummaryDbusMessage *m = &g_array_index (messages, SysprofSummaryDbusMessage, i);

      by_type[m->type < G_N_ELEMENTS (kinds) ? m->type : G_DBUS_MESSAGE_TYPE_INVALID]++;
      by_bus[m->bus_type & SYSPROF_CAPTURE_DBUS_TYPE_OTHER]++;
    }
  /* Calls first, what is not a message's last. */
  for (guint i = 1; i <= G_N_ELEMENTS (kinds); i++)
    {
      guint type = i % G_N_ELEMENTS (kinds);

      if (by_type[type] > 0)
        g_string_append_printf (text, "%s%" G_GUINT64_FORMAT " %s", text->len ? ", " : "", by_type[type],
                                kinds[type][by_type[type] != 1]);
    }
  for (guint bus = 0; bus < G_N_ELEMENTS (by_bus); bus++)
    if (by_bus[bus] > 0)
      g_string_append_printf (text, "%s%s", n_buses++ ? " and " : " on the ", sysprof_dbus_bus_name (bus));
  g_string_append (text, n_buses == 1 ? " bus" : " buses");
  return g_string_free (text, FALSE);
}

GtkWidget *
sysprof_timeline_rows_new (SysprofDocument *document)
{
  GArray            *messages;
  GtkWidget         *chart;
  g_autofree gint64 *times = NULL;
  g_autofree char   *description = NULL;
  GdkRGBA            color;
  guint              row;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (document), NULL);

  messages = sysprof_document_get_dbus_messages (document);
  if (messages->len == 0)
    return NULL;
  times = g_new (gint64, messages->len);
  for (guint i = 0; i < messages->len; i++)
    times[i] = g_array_index (messages, SysprofSummaryDbusMessage, i).time_ns;

  chart = sysprof_chart_new (document);
  gtk_widget_set_name (chart, "timeline-rows");
  gtk_accessible_update_property (GTK_ACCESSIBLE (chart), GTK_ACCESSIBLE_PROPERTY_LABEL, "Timeline rows", -1);
  sysprof_chart_set_row_height (SYSPROF_CHART (chart), 24);
  row = sysprof_chart_add_ticks (SYSPROF_CHART (chart), "D-Bus", times, messages->len);
  sysprof_chart_set_row_unit (SYSPROF_CHART (chart), row, "messages");
  description = describe_dbus (messages);
  sysprof_chart_set_row_description (SYSPROF_CHART (chart), row, description);
  gdk_rgba_parse (&color, "#9141ac");
  sysprof_chart_set_row_color (SYSPROF_CHART (chart), row, &color);
  return chart;
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
