// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>
#include <string.h>

#include "sysprof-chart-row.h"
#include "sysprof-chart.h"
#include "sysprof-time-axis.h"

#define DEFAULT_ROW_HEIGHT 32
#define LABEL_PADDING      8

struct _SysprofChart
{
  GtkWidget parent_instance;

  SysprofDocument *document;
  gulong           range_handler;
  gulong           filter_handler;

  GPtrArray *rows;
  int        row_height;

  GtkAdjustment *hadjustment;
  GtkAdjustment *vadjustment;
  gulong         vadjustment_handler;
  guint          hscroll_policy : 1;
  guint          vscroll_policy : 1;

  SysprofTimeDrag drag;
};

enum
{
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
  N_PROPS
};

G_DEFINE_FINAL_TYPE_WITH_CODE (SysprofChart,
                               sysprof_chart,
                               GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

/* Adwaita's palette, darker shades so lines read on light and dark
 * backgrounds alike. */
static const char *const palette[] = {
  "#3584e4", "#2ec27e", "#e5a50a", "#e66100", "#c01c28", "#9141ac", "#986a44", "#1c71d8",
};

/* ------------------------------------------------------------------------ */
/* Geometry */

static double
plot_width (SysprofChart *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - SYSPROF_CHART_GUTTER);
}

static double
scroll_offset (SysprofChart *self)
{
  return self->vadjustment != NULL ? floor (gtk_adjustment_get_value (self->vadjustment)) : 0;
}

static int
content_height (SysprofChart *self)
{
  return (int) MIN ((gint64) self->rows->len * self->row_height, G_MAXINT / 2);
}

/* The visible range over the plot, in widget coordinates. */
static void
get_axis (SysprofChart *self, SysprofTimeAxis *axis)
{
  sysprof_time_axis_init_for_widget (axis, self->document, GTK_WIDGET (self));
}

gint64
sysprof_chart_get_time_at_x (SysprofChart *self, double x)
{
  SysprofTimeAxis axis;

  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);

  get_axis (self, &axis);
  return sysprof_time_axis_time_at_x (&axis, x);
}

int
sysprof_chart_get_row_at_y (SysprofChart *self, double y)
{
  double content_y;
  gint64 index;

  g_return_val_if_fail (SYSPROF_IS_CHART (self), -1);

  content_y = y + scroll_offset (self);
  if (!(content_y >= 0) || self->row_height <= 0 || content_y >= (double) self->rows->len * self->row_height)
    return -1;
  index = (gint64) (content_y / self->row_height);
  return index < self->rows->len ? (int) index : -1;
}

static SysprofChartRow *
get_row (SysprofChart *self, guint row)
{
  g_return_val_if_fail (row < self->rows->len, NULL);
  return g_ptr_array_index (self->rows, row);
}

/* ------------------------------------------------------------------------ */
/* Drawing */

static void
row_color (SysprofChart *self, guint index, GdkRGBA *color)
{
  SysprofChartRow *row = get_row (self, index);

  if (row->has_color)
    *color = row->color;
  else
    gdk_rgba_parse (color, palette[row->color_index % G_N_ELEMENTS (palette)]);
}

/* Where @value is between the row's min and max, from 0 to 1: infinite
 * values at the edges, and no overflow when the range is wider than the
 * largest double. */
static double
normalize (const SysprofChartRow *row, double value)
{
  double range = row->max - row->min;
  double fraction;

  if (!(row->max > row->min))
    fraction = value - row->min;
  else if (value <= row->min)
    fraction = 0;
  else if (value >= row->max)
    fraction = 1;
  else if (isfinite (range))
    fraction = (value - row->min) / range;
  else
    fraction = (value / 2 - row->min / 2) / (row->max / 2 - row->min / 2);
  return isnan (fraction) ? 0 : CLAMP (fraction, 0.0, 1.0);
}

static void
draw_line (SysprofChartRow *row, cairo_t *cr, double x, double y, double height, const GdkRGBA *color)
{
  double top = y + 3;
  double h = height - 6;
  double bottom = top + h;

  if (row->cache->len == 0)
    return;

  for (guint i = 0; i < row->cache->len; i++)
    {
      const SysprofChartVertex *v = &g_array_index (row->cache, SysprofChartVertex, i);
      double                    vy = bottom - normalize (row, v->value) * h;

      if (i == 0)
        cairo_move_to (cr, x + v->x, vy);
      else
        cairo_line_to (cr, x + v->x, vy);
    }
  if (row->cache->len == 1)
    cairo_rel_line_to (cr, 1, 0);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  gdk_cairo_set_source_rgba (cr, color);
  if (row->fill)
    {
      const SysprofChartVertex *first = &g_array_index (row->cache, SysprofChartVertex, 0);
      const SysprofChartVertex *last = &g_array_index (row->cache, SysprofChartVertex, row->cache->len - 1);

      cairo_stroke_preserve (cr);
      cairo_line_to (cr, x + last->x, bottom);
      cairo_line_to (cr, x + first->x, bottom);
      cairo_close_path (cr);
      cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha * 0.3);
      cairo_fill (cr);
    }
  else
    cairo_stroke (cr);
}

static void
draw_ticks (SysprofChartRow *row, cairo_t *cr, double x, double y, double height, const GdkRGBA *color)
{
  const guint *counts = (const guint *) (gconstpointer) row->cache->data;
  double       h = height - 4;
  double       bottom = y + height - 2;

  if (row->cache_max == 0)
    return;

  /* Density bars, scaled to the row's busiest column; a lone tick stays a
   * third of the row tall, or it would vanish next to a busy column. */
  for (guint c = 0; c < row->cache->len; c++)
    if (counts[c] > 0)
      {
        double bar = MAX (h / 3, h * counts[c] / row->cache_max);

        cairo_rectangle (cr, x + c, bottom - bar, 1, bar);
      }
  gdk_cairo_set_source_rgba (cr, color);
  cairo_fill (cr);
}

static void
draw_spans (SysprofChartRow *row, cairo_t *cr, double x, double y, double height, const GdkRGBA *color)
{
  for (guint i = 0; i + 1 < row->cache->len; i += 2)
    {
      float x0 = g_array_index (row->cache, float, i);
      float x1 = g_array_index (row->cache, float, i + 1);

      cairo_rectangle (cr, x + x0, y + 7, x1 - x0, height - 14);
    }
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha * 0.85);
  cairo_fill (cr);
}

static void
draw_label (SysprofChart *self, GtkSnapshot *snapshot, SysprofChartRow *row, double y, const GdkRGBA *fg)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), row->label);
  int          text_height = 0;
  /* Headings span the whole row, in bold; the others fit the gutter. */
  int width = row->kind == SYSPROF_CHART_ROW_HEADING ? gtk_widget_get_width (GTK_WIDGET (self)) : SYSPROF_CHART_GUTTER;

  if (row->kind == SYSPROF_CHART_ROW_HEADING)
    {
      PangoAttrList *attributes = pango_attr_list_new ();

      pango_attr_list_insert (attributes, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
      pango_layout_set_attributes (layout, attributes);
      pango_attr_list_unref (attributes);
    }
  pango_layout_set_width (layout, MAX (width - 2 * LABEL_PADDING, 1) * PANGO_SCALE);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
  pango_layout_set_single_paragraph_mode (layout, TRUE);
  pango_layout_get_pixel_size (layout, NULL, &text_height);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot,
                          &GRAPHENE_POINT_INIT (LABEL_PADDING, (float) (y + (self->row_height - text_height) / 2.0)));
  gtk_snapshot_append_layout (snapshot, layout, fg);
  gtk_snapshot_restore (snapshot);
  g_object_unref (layout);
}

static void
sysprof_chart_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SysprofChart      *self = SYSPROF_CHART (widget);
  int                width = gtk_widget_get_width (widget);
  int                height = gtk_widget_get_height (widget);
  int                pw = (int) plot_width (self);
  double             offset = scroll_offset (self);
  guint              first, last;
  gint64             begin, end, sel_begin, sel_end;
  GdkRGBA            fg, faint, stripe, shade, edge;
  SysprofTimeAxis    axis;
  gint64             step;
  guint              max_ticks = SYSPROF_TIME_AXIS_MAX_TICKS (pw);
  g_autofree gint64 *ticks = NULL;
  guint              n_ticks;
  double             x1, x2;

  if (width <= SYSPROF_CHART_GUTTER || self->row_height <= 0)
    return;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  faint = fg;
  faint.alpha = 0.12f;
  stripe = fg;
  stripe.alpha = 0.035f;
  gdk_rgba_parse (&shade, "#3584e4");
  edge = shade;
  shade.alpha = 0.2f;
  edge.alpha = 0.7f;

  sysprof_document_get_visible_range (self->document, &begin, &end);
  get_axis (self, &axis);

  /* Grid lines continuing the ruler's ticks. */
  step = sysprof_time_axis_tick_step (&axis, 100);
  ticks = g_new (gint64, max_ticks);
  n_ticks = sysprof_time_axis_ticks (&axis, step, ticks, max_ticks);
  for (guint i = 0; i < n_ticks; i++)
    {
      double x = sysprof_time_axis_x_of_time (&axis, ticks[i]);

      gtk_snapshot_append_color (snapshot, &stripe, &GRAPHENE_RECT_INIT ((float) floor (x), 0, 1, (float) height));
    }

  /* Only the rows in view: a scrolled chart of thousands of processes
   * draws a screenful. */
  first = (guint) MIN (offset / self->row_height, (double) self->rows->len);
  last = (guint) MIN (ceil ((offset + height) / self->row_height), (double) self->rows->len);
  for (guint i = first; i < last; i++)
    {
      SysprofChartRow *row = g_ptr_array_index (self->rows, i);
      double           y = (double) i * self->row_height - offset;
      GdkRGBA          color;

      if (row->color_index % 2 == 1)
        gtk_snapshot_append_color (snapshot, &stripe,
                                   &GRAPHENE_RECT_INIT (0, (float) y, (float) width, (float) self->row_height));
      gtk_snapshot_append_color (snapshot, &faint,
                                 &GRAPHENE_RECT_INIT (0, (float) (y + self->row_height - 1), (float) width, 1));
      draw_label (self, snapshot, row, y, &fg);

      sysprof_chart_row_update_cache (row, begin, end, pw);
      if (sysprof_chart_row_cache_empty (row))
        continue;
      row_color (self, i, &color);
      {
        cairo_t *cr = gtk_snapshot_append_cairo (
            snapshot, &GRAPHENE_RECT_INIT (SYSPROF_CHART_GUTTER, (float) y, (float) pw, (float) self->row_height));

        switch (row->kind)
          {
          case SYSPROF_CHART_ROW_LINE: draw_line (row, cr, SYSPROF_CHART_GUTTER, y, self->row_height, &color); break;
          case SYSPROF_CHART_ROW_TICKS: draw_ticks (row, cr, SYSPROF_CHART_GUTTER, y, self->row_height, &color); break;
          case SYSPROF_CHART_ROW_SPANS: draw_spans (row, cr, SYSPROF_CHART_GUTTER, y, self->row_height, &color); break;
          case SYSPROF_CHART_ROW_HEADING:
          default: g_assert_not_reached ();
          }
        cairo_destroy (cr);
      }
    }

  /* The selection, or the range being dragged. */
  sysprof_document_get_selection (self->document, &sel_begin, &sel_end);
  if (sysprof_time_drag_get_range (&self->drag, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade,
                               &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), (float) height));
  else if (sysprof_document_has_selection (self->document) &&
           sysprof_time_axis_range_x (&axis, sel_begin, sel_end, &x1, &x2))
    {
      gtk_snapshot_append_color (snapshot, &shade,
                                 &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), (float) height));
      if (sel_begin >= begin)
        gtk_snapshot_append_color (snapshot, &edge, &GRAPHENE_RECT_INIT ((float) x1, 0, 1, (float) height));
      if (sel_end <= end)
        gtk_snapshot_append_color (snapshot, &edge, &GRAPHENE_RECT_INIT ((float) (x2 - 1), 0, 1, (float) height));
    }

  /* The gutter's edge, where the ruler's plot starts too. */
  faint.alpha = 0.25f;
  gtk_snapshot_append_color (snapshot, &faint, &GRAPHENE_RECT_INIT (SYSPROF_CHART_GUTTER - 1, 0, 1, (float) height));
}

/* ------------------------------------------------------------------------ */
/* Tooltips */

static char *
format_time (gint64 ns)
{
  double a = fabs ((double) ns);

  if (a < 1e3)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1e6)
    return g_strdup_printf ("%.1f µs", ns / 1e3);
  if (a < 1e9)
    return g_strdup_printf ("%.2f ms", ns / 1e6);
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

/* A size in bytes of |@value|, saturated: casting a double beyond the
 * range of a guint64 is undefined. */
static guint64
bytes_of (double value)
{
  double magnitude = fabs (value);

  /* The largest double below 2^64. */
  return magnitude < 18446744073709549568.0 ? (guint64) magnitude : G_MAXUINT64;
}

static char *
format_value (SysprofChartRow *row, double value)
{
  const char *unit = row->unit != NULL ? row->unit : "";
  const char *space = row->unit != NULL ? " " : "";

  if (isnan (value))
    return g_strdup ("not a number");
  if (isinf (value))
    return g_strdup (value > 0 ? "∞" : "−∞");
  switch (row->format)
    {
    case SYSPROF_CHART_VALUE_PERCENT: return g_strdup_printf ("%.1f %%", value);
    case SYSPROF_CHART_VALUE_BYTES:
      if (value < 0)
        {
          g_autofree char *size = g_format_size (bytes_of (value));

          return g_strdup_printf ("−%s", size);
        }
      return g_format_size (bytes_of (value));
    case SYSPROF_CHART_VALUE_NUMBER:
    default:
      if (value == floor (value) && fabs (value) < 1e15)
        return g_strdup_printf ("%.0f%s%s", value, space, unit);
      if (fabs (value) < 10)
        return g_strdup_printf ("%.3f%s%s", value, space, unit);
      if (fabs (value) < 1000)
        return g_strdup_printf ("%.1f%s%s", value, space, unit);
      return g_strdup_printf ("%.0f%s%s", value, space, unit);
    }
}

static char *
describe_line (SysprofChartRow *row, gint64 t)
{
  guint            after = sysprof_chart_row_point_after (row, t);
  g_autofree char *when = format_time (t);
  g_autofree char *value = NULL;

  if (after == 0)
    return g_strdup_printf ("%s: no value yet", when);
  value = format_value (row, g_array_index (row->data, SysprofSummaryCounterValue, after - 1).value);
  return g_strdup_printf ("%s: %s", when, value);
}

static char *
describe_ticks (SysprofChart *self, SysprofChartRow *row, double x)
{
  double column = floor (x - SYSPROF_CHART_GUTTER) + SYSPROF_CHART_GUTTER;
  gint64 t0 = sysprof_chart_get_time_at_x (self, column);
  gint64 t1 = sysprof_chart_get_time_at_x (self, column + 1);
  guint  n =
      sysprof_chart_row_first_tick (row, sysprof_time_add (t1, t1 == t0)) - sysprof_chart_row_first_tick (row, t0);
  g_autofree char *when = format_time (t0);
  g_autofree char *width = format_time (MAX (sysprof_time_sub (t1, t0), 1));

  return g_strdup_printf ("%s: %u %s in %s", when, n, row->unit != NULL ? row->unit : "events", width);
}

static char *
describe_spans (SysprofChart *self, SysprofChartRow *row, double x)
{
  /* Half a pixel either way, so that short spans can be pointed at. */
  gint64                  t0 = sysprof_chart_get_time_at_x (self, x - 0.5);
  gint64                  t1 = sysprof_chart_get_time_at_x (self, x + 0.5);
  const SysprofChartSpan *found = NULL;
  guint                   n = 0;
  g_autofree char        *begin = NULL;
  g_autofree char        *end = NULL;
  g_autofree char        *duration = NULL;

  for (guint i = sysprof_chart_row_first_span (row, t0); i < row->data->len; i++)
    {
      const SysprofChartSpan *span = &g_array_index (row->data, SysprofChartSpan, i);

      if (span->begin > t1)
        break;
      if (span->end < t0)
        continue;
      if (found == NULL)
        found = span;
      n++;
    }
  if (found == NULL)
    {
      g_autofree char *when = format_time (sysprof_chart_get_time_at_x (self, x));

      return g_strdup_printf ("%s: none", when);
    }
  begin = format_time (found->begin);
  end = format_time (found->end);
  duration = format_time (sysprof_time_sub (found->end, found->begin));
  if (n > 1)
    return g_strdup_printf ("%s to %s (%s), and %u more here", begin, end, duration, n - 1);
  return g_strdup_printf ("%s to %s (%s)", begin, end, duration);
}

char *
sysprof_chart_describe_point (SysprofChart *self, double x, double y)
{
  int              index;
  SysprofChartRow *row;
  g_autofree char *value = NULL;
  GString         *text;

  g_return_val_if_fail (SYSPROF_IS_CHART (self), NULL);

  index = sysprof_chart_get_row_at_y (self, y);
  if (index < 0)
    return NULL;
  row = g_ptr_array_index (self->rows, index);
  if (x >= SYSPROF_CHART_GUTTER)
    switch (row->kind)
      {
      case SYSPROF_CHART_ROW_LINE: value = describe_line (row, sysprof_chart_get_time_at_x (self, x)); break;
      case SYSPROF_CHART_ROW_TICKS: value = describe_ticks (self, row, x); break;
      case SYSPROF_CHART_ROW_SPANS: value = describe_spans (self, row, x); break;
      case SYSPROF_CHART_ROW_HEADING: break;
      default: g_assert_not_reached ();
      }
  text = g_string_new (row->label);
  if (row->description != NULL && row->description[0] != '\0')
    g_string_append_printf (text, "\n%s", row->description);
  /* In the gutter, only what the row is. */
  if (value != NULL)
    g_string_append_printf (text, "\n%s", value);
  return g_string_free (text, FALSE);
}

static gboolean
sysprof_chart_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard_tooltip, GtkTooltip *tooltip)
{
  g_autofree char *text = NULL;

  if (keyboard_tooltip)
    return FALSE;
  text = sysprof_chart_describe_point (SYSPROF_CHART (widget), x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Selecting */

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, SysprofChart *self)
{
  (void) y;
  /* The labels are not on the time axis. */
  if (x < SYSPROF_CHART_GUTTER)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  sysprof_time_drag_begin (&self->drag, x, SYSPROF_CHART_GUTTER);
}

static void
drag_update_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofChart *self)
{
  (void) gesture;
  (void) dy;
  if (!self->drag.active)
    return;
  sysprof_time_drag_update (&self->drag, dx, SYSPROF_CHART_GUTTER, gtk_widget_get_width (GTK_WIDGET (self)));
  /* Only the chart redraws while dragging; the document (and every view's
   * analysis) hears of the range when the button is released. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofChart *self)
{
  SysprofTimeAxis axis;

  (void) gesture;
  (void) dy;
  if (!self->drag.active)
    return;
  get_axis (self, &axis);
  /* A click clears the selection. */
  if (!sysprof_time_drag_end (&self->drag, dx, &axis, self->document))
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_cancel_cb (GtkGesture *gesture, GdkEventSequence *sequence, SysprofChart *self)
{
  (void) gesture;
  (void) sequence;
  sysprof_time_drag_cancel (&self->drag);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ------------------------------------------------------------------------ */
/* Size and scrolling */

static void
sysprof_chart_measure (GtkWidget     *widget,
                       GtkOrientation orientation,
                       int            for_size,
                       int           *minimum,
                       int           *natural,
                       int           *minimum_baseline,
                       int           *natural_baseline)
{
  SysprofChart *self = SYSPROF_CHART (widget);

  (void) for_size;
  *minimum_baseline = *natural_baseline = -1;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = SYSPROF_CHART_GUTTER + 40;
      *natural = SYSPROF_CHART_GUTTER + 400;
    }
  else
    /* Like GtkListView: a scrolled window compares this to its height to
     * decide on a scrollbar, then gives the chart its own height. */
    *minimum = *natural = content_height (self);
}

static void
sysprof_chart_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SysprofChart *self = SYSPROF_CHART (widget);

  (void) baseline;
  if (self->vadjustment != NULL)
    {
      double upper = MAX (content_height (self), height);

      gtk_adjustment_configure (self->vadjustment,
                                CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - height), 0, upper,
                                self->row_height, height * 0.9, height);
    }
  if (self->hadjustment != NULL)
    gtk_adjustment_configure (self->hadjustment, 0, 0, width, 1, width, width);
}

static void
vadjustment_changed_cb (GtkAdjustment *adjustment, SysprofChart *self)
{
  (void) adjustment;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_hadjustment (SysprofChart *self, GtkAdjustment *adjustment)
{
  if (adjustment == self->hadjustment)
    return;
  g_clear_object (&self->hadjustment);
  if (adjustment != NULL)
    self->hadjustment = g_object_ref_sink (adjustment);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify (G_OBJECT (self), "hadjustment");
}

static void
set_vadjustment (SysprofChart *self, GtkAdjustment *adjustment)
{
  if (adjustment == self->vadjustment)
    return;
  if (self->vadjustment != NULL)
    g_clear_signal_handler (&self->vadjustment_handler, self->vadjustment);
  g_clear_object (&self->vadjustment);
  if (adjustment != NULL)
    {
      self->vadjustment = g_object_ref_sink (adjustment);
      self->vadjustment_handler =
          g_signal_connect (adjustment, "value-changed", G_CALLBACK (vadjustment_changed_cb), self);
    }
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify (G_OBJECT (self), "vadjustment");
}

static void
sysprof_chart_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SysprofChart *self = SYSPROF_CHART (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT: g_value_set_object (value, self->hadjustment); break;
    case PROP_VADJUSTMENT: g_value_set_object (value, self->vadjustment); break;
    case PROP_HSCROLL_POLICY: g_value_set_enum (value, self->hscroll_policy); break;
    case PROP_VSCROLL_POLICY: g_value_set_enum (value, self->vscroll_policy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sysprof_chart_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SysprofChart *self = SYSPROF_CHART (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT: set_hadjustment (self, g_value_get_object (value)); break;
    case PROP_VADJUSTMENT: set_vadjustment (self, g_value_get_object (value)); break;
    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value) == GTK_SCROLL_NATURAL;
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value) == GTK_SCROLL_NATURAL;
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* ------------------------------------------------------------------------ */
/* Life */

static void
on_document_changed (SysprofDocument *document, SysprofChart *self)
{
  (void) document;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
sysprof_chart_dispose (GObject *object)
{
  SysprofChart *self = SYSPROF_CHART (object);

  if (self->document != NULL)
    {
      g_clear_signal_handler (&self->range_handler, self->document);
      g_clear_signal_handler (&self->filter_handler, self->document);
    }
  g_clear_object (&self->document);
  set_hadjustment (self, NULL);
  set_vadjustment (self, NULL);

  G_OBJECT_CLASS (sysprof_chart_parent_class)->dispose (object);
}

static void
sysprof_chart_finalize (GObject *object)
{
  SysprofChart *self = SYSPROF_CHART (object);

  g_ptr_array_unref (self->rows);

  G_OBJECT_CLASS (sysprof_chart_parent_class)->finalize (object);
}

static void
sysprof_chart_class_init (SysprofChartClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_chart_dispose;
  object_class->finalize = sysprof_chart_finalize;
  object_class->get_property = sysprof_chart_get_property;
  object_class->set_property = sysprof_chart_set_property;

  widget_class->snapshot = sysprof_chart_snapshot;
  widget_class->measure = sysprof_chart_measure;
  widget_class->size_allocate = sysprof_chart_size_allocate;
  widget_class->query_tooltip = sysprof_chart_query_tooltip;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
  gtk_widget_class_set_css_name (widget_class, "sysprofchart");
}

static void
sysprof_chart_init (SysprofChart *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  self->rows = g_ptr_array_new_with_free_func (sysprof_chart_row_free);
  self->row_height = DEFAULT_ROW_HEIGHT;

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  g_signal_connect (drag, "cancel", G_CALLBACK (drag_cancel_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
}

/* ------------------------------------------------------------------------ */
/* API */

GtkWidget *
sysprof_chart_new (SysprofDocument *document)
{
  SysprofChart *self;

  g_return_val_if_fail (SYSPROF_IS_DOCUMENT (document), NULL);

  self = g_object_new (SYSPROF_TYPE_CHART, NULL);
  self->document = g_object_ref (document);
  self->range_handler = g_signal_connect (document, "visible-range-changed", G_CALLBACK (on_document_changed), self);
  self->filter_handler = g_signal_connect (document, "filter-changed", G_CALLBACK (on_document_changed), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "0 rows", -1);
  return GTK_WIDGET (self);
}

void
sysprof_chart_set_row_height (SysprofChart *self, int height)
{
  g_return_if_fail (SYSPROF_IS_CHART (self));
  g_return_if_fail (height > 0);

  self->row_height = height;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static void
rows_changed (SysprofChart *self)
{
  g_autofree char *text = g_strdup_printf ("%u %s", self->rows->len, self->rows->len == 1 ? "row" : "rows");

  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static guint
add_row (SysprofChart *self, SysprofChartRowKind kind, const char *label, GArray *data)
{
  SysprofChartRow *row = sysprof_chart_row_new (kind, label, data);
  SysprofChartRow *previous = self->rows->len > 0 ? g_ptr_array_index (self->rows, self->rows->len - 1) : NULL;

  /* Colors start again after a heading, so that a group of rows looks the
   * same wherever it is. */
  if (kind != SYSPROF_CHART_ROW_HEADING && previous != NULL && previous->kind != SYSPROF_CHART_ROW_HEADING)
    row->color_index = previous->color_index + 1;
  g_ptr_array_add (self->rows, row);
  rows_changed (self);
  return self->rows->len - 1;
}

static int
compare_points (gconstpointer a, gconstpointer b)
{
  gint64 ta = ((const SysprofSummaryCounterValue *) a)->time_ns;
  gint64 tb = ((const SysprofSummaryCounterValue *) b)->time_ns;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_times (gconstpointer a, gconstpointer b)
{
  gint64 ta = *(const gint64 *) a;
  gint64 tb = *(const gint64 *) b;

  return ta < tb ? -1 : ta > tb;
}

static int
compare_spans (gconstpointer a, gconstpointer b)
{
  const SysprofChartSpan *sa = a;
  const SysprofChartSpan *sb = b;

  if (sa->begin != sb->begin)
    return sa->begin < sb->begin ? -1 : 1;
  return sa->end < sb->end ? -1 : sa->end > sb->end;
}

guint
sysprof_chart_add_line (SysprofChart                     *self,
                        const char                       *label,
                        const SysprofSummaryCounterValue *points,
                        guint                             n_points,
                        double                            min,
                        double                            max,
                        gboolean                          fill)
{
  GArray          *data;
  guint            index;
  SysprofChartRow *row;

  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);
  g_return_val_if_fail (points != NULL || n_points == 0, 0);

  data = g_array_sized_new (FALSE, FALSE, sizeof (SysprofSummaryCounterValue), n_points);
  g_array_append_vals (data, points, n_points);
  /* The decimation and the tooltips bisect by time. */
  for (guint i = 1; i < n_points; i++)
    if (points[i].time_ns < points[i - 1].time_ns)
      {
        g_array_sort (data, compare_points);
        break;
      }
  /* Counters may hold NaN and infinities, and so their bounds: the range
   * of the finite values then. */
  if (!isfinite (min) || !isfinite (max))
    {
      double low = INFINITY, high = -INFINITY;

      for (guint i = 0; i < n_points; i++)
        if (isfinite (points[i].value))
          {
            low = MIN (low, points[i].value);
            high = MAX (high, points[i].value);
          }
      min = isfinite (min) ? min : isfinite (low) ? low : 0;
      max = isfinite (max) ? max : isfinite (high) ? high : 1;
    }
  index = add_row (self, SYSPROF_CHART_ROW_LINE, label, data);
  row = g_ptr_array_index (self->rows, index);
  row->min = min;
  row->max = max;
  row->fill = !!fill;
  return index;
}

guint
sysprof_chart_add_ticks (SysprofChart *self, const char *label, const gint64 *times_ns, guint n_times)
{
  GArray *data;

  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);
  g_return_val_if_fail (times_ns != NULL || n_times == 0, 0);

  data = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n_times);
  g_array_append_vals (data, times_ns, n_times);
  for (guint i = 1; i < n_times; i++)
    if (times_ns[i] < times_ns[i - 1])
      {
        g_array_sort (data, compare_times);
        break;
      }
  return add_row (self, SYSPROF_CHART_ROW_TICKS, label, data);
}

guint
sysprof_chart_add_spans (
    SysprofChart *self, const char *label, const gint64 *begins_ns, const gint64 *ends_ns, guint n_spans)
{
  GArray *data;
  guint64 max_span = 0;
  guint   index;

  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);
  g_return_val_if_fail ((begins_ns != NULL && ends_ns != NULL) || n_spans == 0, 0);

  data = g_array_sized_new (FALSE, FALSE, sizeof (SysprofChartSpan), n_spans);
  for (guint i = 0; i < n_spans; i++)
    {
      SysprofChartSpan span = { MIN (begins_ns[i], ends_ns[i]), MAX (begins_ns[i], ends_ns[i]) };

      g_array_append_val (data, span);
      max_span = MAX (max_span, (guint64) span.end - (guint64) span.begin);
    }
  g_array_sort (data, compare_spans);
  index = add_row (self, SYSPROF_CHART_ROW_SPANS, label, data);
  get_row (self, index)->max_span = max_span;
  return index;
}

guint
sysprof_chart_add_heading (SysprofChart *self, const char *label)
{
  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);

  return add_row (self, SYSPROF_CHART_ROW_HEADING, label, g_array_new (FALSE, FALSE, 1));
}

void
sysprof_chart_set_row_description (SysprofChart *self, guint row, const char *description)
{
  SysprofChartRow *r;

  g_return_if_fail (SYSPROF_IS_CHART (self));
  g_return_if_fail (row < self->rows->len);

  r = get_row (self, row);
  g_free (r->description);
  r->description = g_strdup (description);
}

void
sysprof_chart_set_row_value_format (SysprofChart *self, guint row, SysprofChartValueFormat format)
{
  g_return_if_fail (SYSPROF_IS_CHART (self));
  g_return_if_fail (row < self->rows->len);

  get_row (self, row)->format = format;
}

void
sysprof_chart_set_row_unit (SysprofChart *self, guint row, const char *unit)
{
  SysprofChartRow *r;

  g_return_if_fail (SYSPROF_IS_CHART (self));
  g_return_if_fail (row < self->rows->len);

  r = get_row (self, row);
  g_free (r->unit);
  r->unit = g_strdup (unit);
}

void
sysprof_chart_set_row_color (SysprofChart *self, guint row, const GdkRGBA *color)
{
  SysprofChartRow *r;

  g_return_if_fail (SYSPROF_IS_CHART (self));
  g_return_if_fail (row < self->rows->len);

  r = get_row (self, row);
  r->has_color = color != NULL;
  if (color != NULL)
    r->color = *color;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
sysprof_chart_get_row_label (SysprofChart *self, guint row)
{
  g_return_val_if_fail (SYSPROF_IS_CHART (self), NULL);
  g_return_val_if_fail (row < self->rows->len, NULL);

  return get_row (self, row)->label;
}

guint
sysprof_chart_get_row_n_points (SysprofChart *self, guint row)
{
  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);
  g_return_val_if_fail (row < self->rows->len, 0);

  return get_row (self, row)->kind == SYSPROF_CHART_ROW_HEADING ? 0 : get_row (self, row)->data->len;
}

guint
sysprof_chart_get_n_rows (SysprofChart *self)
{
  g_return_val_if_fail (SYSPROF_IS_CHART (self), 0);

  return self->rows->len;
}

void
sysprof_chart_clear (SysprofChart *self)
{
  g_return_if_fail (SYSPROF_IS_CHART (self));

  g_ptr_array_set_size (self->rows, 0);
  rows_changed (self);
}
