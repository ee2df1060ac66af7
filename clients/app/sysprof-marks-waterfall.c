// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>
#include <string.h>

#include "sysprof-chart.h"
#include "sysprof-mark-key.h"
#include "sysprof-marks-waterfall.h"
#include "sysprof-time-axis.h"

#define BAR_HEIGHT 16

/* ------------------------------------------------------------------------ */
/* Rows */

typedef struct
{
  char          *group;
  char          *name;
  SysprofMarkKey key; /* of @group and @name */
  /* Indices in the document's marks, in time order. */
  GArray *indices;
  /* The longest mark: a mark that starts this much before the visible
   * range may still reach into it. */
  gint64 max_duration_ns;
} MarksRow;

static void
marks_row_free (gpointer data)
{
  MarksRow *row = data;

  g_free (row->group);
  g_free (row->name);
  g_array_unref (row->indices);
  g_free (row);
}

static int
compare_rows (gconstpointer a, gconstpointer b)
{
  const MarksRow *ra = *(MarksRow *const *) a;
  const MarksRow *rb = *(MarksRow *const *) b;
  int             cmp = strcmp (ra->group, rb->group);

  return cmp != 0 ? cmp : strcmp (ra->name, rb->name);
}

GPtrArray *
sysprof_marks_waterfall_build_rows (GArray *marks, const char *group)
{
  g_autoptr (GHashTable) by_key = g_hash_table_new (sysprof_mark_key_hash, sysprof_mark_key_equal);
  GPtrArray *rows = g_ptr_array_new_with_free_func (marks_row_free);

  for (guint i = 0; i < marks->len; i++)
    {
      const SysprofSummaryMark *mark = &g_array_index (marks, SysprofSummaryMark, i);
      SysprofMarkKey            key = { mark->group, mark->name };
      MarksRow                 *row;

      if (group != NULL && strcmp (mark->group, group) != 0)
        continue;
      row = g_hash_table_lookup (by_key, &key);

      if (row == NULL)
        {
          row = g_new0 (MarksRow, 1);
          row->group = g_strdup (mark->group);
          row->name = g_strdup (mark->name);
          row->key.group = row->group;
          row->key.name = row->name;
          row->indices = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (rows, row);
          g_hash_table_insert (by_key, &row->key, row);
        }
      g_array_append_val (row->indices, i);
      row->max_duration_ns = MAX (row->max_duration_ns, mark->duration_ns);
    }
  g_ptr_array_sort (rows, compare_rows);
  return rows;
}

/* ------------------------------------------------------------------------ */
/* The widget */

/* A GtkScrollable, like SysprofChart: in a GtkScrolledWindow it draws only
 * the rows in view, so that fifty thousand kinds of marks cost a screenful
 * of rows per frame, not fifty thousand labels. */
struct _SysprofMarksWaterfall
{
  GtkWidget parent_instance;

  SysprofDocument *document;
  gulong           filter_handler;
  gulong           range_handler;
  GPtrArray       *rows; /* MarksRow */

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
};

G_DEFINE_FINAL_TYPE_WITH_CODE (SysprofMarksWaterfall,
                               sysprof_marks_waterfall,
                               GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

/* Dark enough for white text on the bars. */
static const char *const palette[] = {
  "#1c71d8", "#26a269", "#c64600", "#813d9c", "#c01c28", "#865e3c", "#0b7285", "#9c6f00",
};

static void
get_axis (SysprofMarksWaterfall *self, SysprofTimeAxis *axis)
{
  sysprof_time_axis_init_for_widget (axis, self->document, GTK_WIDGET (self));
}

static double
scroll_offset (SysprofMarksWaterfall *self)
{
  return self->vadjustment != NULL ? floor (gtk_adjustment_get_value (self->vadjustment)) : 0;
}

static int
content_height (SysprofMarksWaterfall *self)
{
  return (int) MIN ((gint64) (self->rows != NULL ? self->rows->len : 0) * SYSPROF_MARKS_WATERFALL_ROW_HEIGHT,
                    G_MAXINT / 2);
}

static const SysprofSummaryMark *
mark_of_row (SysprofMarksWaterfall *self, const MarksRow *row, guint i)
{
  GArray *marks = sysprof_document_get_marks (self->document);

  return &g_array_index (marks, SysprofSummaryMark, g_array_index (row->indices, guint, i));
}

/* The first mark of @row that may reach @time or later. */
static guint
first_mark_reaching (SysprofMarksWaterfall *self, const MarksRow *row, gint64 time)
{
  gint64 from = sysprof_time_sub (time, row->max_duration_ns);
  guint  lo = 0, hi = row->indices->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (mark_of_row (self, row, mid)->time_ns < from)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The mark under (@x, @y) (widget coordinates), within two pixels, or
 * NULL. */
static const SysprofSummaryMark *
mark_at (SysprofMarksWaterfall *self, double x, double y)
{
  const MarksRow *row;
  SysprofTimeAxis axis;
  gint64          tolerance, time, from, to;
  double          index = floor ((y + scroll_offset (self)) / SYSPROF_MARKS_WATERFALL_ROW_HEIGHT);

  if (self->rows == NULL || !(index >= 0) || index >= self->rows->len || x < SYSPROF_CHART_GUTTER)
    return NULL;
  row = g_ptr_array_index (self->rows, (guint) index);
  get_axis (self, &axis);
  tolerance = sysprof_time_from_double (2.0 * sysprof_time_axis_ns_per_pixel (&axis));
  time = sysprof_time_axis_time_at_x (&axis, x);
  from = sysprof_time_sub (time, tolerance);
  to = sysprof_time_add (time, tolerance);
  for (guint i = first_mark_reaching (self, row, from); i < row->indices->len; i++)
    {
      const SysprofSummaryMark *mark = mark_of_row (self, row, i);

      if (mark->time_ns > to)
        break;
      if (sysprof_time_add (mark->time_ns, mark->duration_ns) >= from)
        return mark;
    }
  return NULL;
}

static void
append_text (GtkWidget     *widget,
             GtkSnapshot   *snapshot,
             const char    *markup,
             double         x,
             double         y,
             double         width,
             const GdkRGBA *color)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  int          text_height;

  pango_layout_set_markup (layout, markup, -1);
  pango_layout_set_width (layout, (int) (CLAMP (width, 1, 100000) * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_get_pixel_size (layout, NULL, &text_height);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (
      snapshot,
      &GRAPHENE_POINT_INIT ((float) x, (float) (y + (SYSPROF_MARKS_WATERFALL_ROW_HEIGHT - text_height) / 2.0)));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
  g_object_unref (layout);
}

static void
draw_bar (SysprofMarksWaterfall    *self,
          GtkSnapshot              *snapshot,
          const SysprofSummaryMark *mark,
          double                    x1,
          double                    x2,
          double                    y,
          const GdkRGBA            *color)
{
  static const GdkRGBA white = { 1, 1, 1, 0.95f };
  double               width = x2 - x1;

  /* A pixel's gap after wide bars keeps back-to-back marks apart. */
  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) x1,
                                                  (float) (y + (SYSPROF_MARKS_WATERFALL_ROW_HEIGHT - BAR_HEIGHT) / 2),
                                                  (float) (width > 4 ? width - 1 : width), BAR_HEIGHT));
  if (width > 40)
    {
      g_autofree char *markup =
          g_markup_escape_text (mark->message != NULL && mark->message[0] ? mark->message : mark->name, -1);

      append_text (GTK_WIDGET (self), snapshot, markup, x1 + 3, y, width - 6, &white);
    }
}

static void
draw_row (SysprofMarksWaterfall *self,
          GtkSnapshot           *snapshot,
          const MarksRow        *row,
          double                 y,
          const SysprofTimeAxis *axis,
          const GdkRGBA         *color)
{
  double run_x1 = -1, run_x2 = -1;

  for (guint i = first_mark_reaching (self, row, axis->begin); i < row->indices->len; i++)
    {
      const SysprofSummaryMark *mark = mark_of_row (self, row, i);
      double                    x1, x2;

      if (mark->time_ns > axis->end)
        break;
      if (!sysprof_time_axis_range_x (axis, mark->time_ns, sysprof_time_add (mark->time_ns, mark->duration_ns), &x1,
                                      &x2))
        continue;

      /* Marks narrower than two pixels merge with their neighbours into one
       * run: a million marks then cost a node per pixel, not per mark. */
      if (x2 - x1 < 2)
        {
          if (run_x2 >= 0 && x1 <= run_x2 + 1)
            {
              run_x2 = MAX (run_x2, x2);
              continue;
            }
          if (run_x2 >= 0)
            gtk_snapshot_append_color (
                snapshot, color,
                &GRAPHENE_RECT_INIT ((float) run_x1,
                                     (float) (y + (SYSPROF_MARKS_WATERFALL_ROW_HEIGHT - BAR_HEIGHT) / 2),
                                     (float) (run_x2 - run_x1), BAR_HEIGHT));
          run_x1 = x1;
          run_x2 = x2;
          continue;
        }
      draw_bar (self, snapshot, mark, x1, x2, y, color);
    }
  if (run_x2 >= 0)
    gtk_snapshot_append_color (snapshot, color,
                               &GRAPHENE_RECT_INIT ((float) run_x1,
                                                    (float) (y + (SYSPROF_MARKS_WATERFALL_ROW_HEIGHT - BAR_HEIGHT) / 2),
                                                    (float) (run_x2 - run_x1), BAR_HEIGHT));
}

static void
sysprof_marks_waterfall_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (widget);
  int                    width = gtk_widget_get_width (widget);
  int                    height = gtk_widget_get_height (widget);
  double                 offset = scroll_offset (self);
  SysprofTimeAxis        axis;
  GdkRGBA                fg, faint, stripe, shade;
  gint64                 sel_begin, sel_end;
  double                 x1, x2;
  guint                  first, last;

  if (self->rows == NULL)
    return;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  faint = fg;
  faint.alpha = 0.25f;
  stripe = fg;
  stripe.alpha = 0.04f;
  gdk_rgba_parse (&shade, "#3584e4");
  shade.alpha = 0.25f;
  get_axis (self, &axis);

  /* Only the rows in view. */
  first = (guint) MIN (offset / SYSPROF_MARKS_WATERFALL_ROW_HEIGHT, (double) self->rows->len);
  last = (guint) MIN (ceil ((offset + height) / SYSPROF_MARKS_WATERFALL_ROW_HEIGHT), (double) self->rows->len);
  for (guint r = first; r < last; r++)
    {
      const MarksRow  *row = g_ptr_array_index (self->rows, r);
      double           y = (double) r * SYSPROF_MARKS_WATERFALL_ROW_HEIGHT - offset;
      GdkRGBA          color;
      g_autofree char *label = NULL;

      if (r % 2 == 1)
        gtk_snapshot_append_color (
            snapshot, &stripe, &GRAPHENE_RECT_INIT (0, (float) y, (float) width, SYSPROF_MARKS_WATERFALL_ROW_HEIGHT));
      if (row->group[0] != '\0')
        label = g_markup_printf_escaped ("<span alpha=\"60%%\">%s ›</span> %s", row->group, row->name);
      else
        label = g_markup_escape_text (row->name, -1);
      append_text (widget, snapshot, label, 8, y, SYSPROF_CHART_GUTTER - 14, &fg);

      gdk_rgba_parse (&color, palette[r % G_N_ELEMENTS (palette)]);
      draw_row (self, snapshot, row, y, &axis, &color);
    }

  /* The selection, or the range being dragged, as on the timeline. */
  sysprof_document_get_selection (self->document, &sel_begin, &sel_end);
  if (sysprof_time_drag_get_range (&self->drag, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));
  else if (!self->drag.active && sysprof_document_has_selection (self->document) &&
           sysprof_time_axis_range_x (&axis, sel_begin, sel_end, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));

  gtk_snapshot_append_color (snapshot, &faint, &GRAPHENE_RECT_INIT (SYSPROF_CHART_GUTTER - 1, 0, 1, height));
}

static void
sysprof_marks_waterfall_measure (GtkWidget     *widget,
                                 GtkOrientation orientation,
                                 int            for_size,
                                 int           *minimum,
                                 int           *natural,
                                 int           *minimum_baseline,
                                 int           *natural_baseline)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (widget);

  (void) for_size;
  *minimum_baseline = *natural_baseline = -1;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = SYSPROF_CHART_GUTTER + 200;
  else
    /* Like SysprofChart: a scrolled window compares this to its height
     * to decide on a scrollbar, then gives the waterfall its own height. */
    *minimum = *natural = content_height (self);
}

static void
sysprof_marks_waterfall_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (widget);

  (void) baseline;
  if (self->vadjustment != NULL)
    {
      double upper = MAX (content_height (self), height);

      gtk_adjustment_configure (self->vadjustment,
                                CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - height), 0, upper,
                                SYSPROF_MARKS_WATERFALL_ROW_HEIGHT, height * 0.9, height);
    }
  if (self->hadjustment != NULL)
    gtk_adjustment_configure (self->hadjustment, 0, 0, width, 1, width, width);
}

static void
vadjustment_changed_cb (GtkAdjustment *adjustment, SysprofMarksWaterfall *self)
{
  (void) adjustment;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_hadjustment (SysprofMarksWaterfall *self, GtkAdjustment *adjustment)
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
set_vadjustment (SysprofMarksWaterfall *self, GtkAdjustment *adjustment)
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
sysprof_marks_waterfall_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (object);

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
sysprof_marks_waterfall_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (object);

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

static gboolean
query_tooltip_cb (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, SysprofMarksWaterfall *self)
{
  const SysprofSummaryMark *mark;
  g_autofree char          *duration = NULL;
  g_autofree char          *text = NULL;

  (void) widget;
  if (keyboard || (mark = mark_at (self, x, y)) == NULL)
    return FALSE;
  duration = sysprof_time_format_duration (mark->duration_ns);
  text = g_strdup_printf ("%s%s%s%s%s\nat %.6f s for %s", mark->group, mark->group[0] ? " › " : "", mark->name,
                          mark->message[0] ? "\n" : "", mark->message, mark->time_ns / 1e9, duration);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, SysprofMarksWaterfall *self)
{
  (void) gesture;
  (void) y;
  sysprof_time_drag_begin (&self->drag, x, SYSPROF_CHART_GUTTER);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_update_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofMarksWaterfall *self)
{
  (void) gesture;
  (void) dy;
  sysprof_time_drag_update (&self->drag, dx, SYSPROF_CHART_GUTTER, gtk_widget_get_width (GTK_WIDGET (self)));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofMarksWaterfall *self)
{
  SysprofTimeAxis           axis;
  const SysprofSummaryMark *mark;
  double                    x, y;

  if (!self->drag.active)
    return;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  get_axis (self, &axis);
  if (sysprof_time_drag_end (&self->drag, dx, &axis, self->document))
    return;
  /* A click selects the span of the mark under it, or clears the
   * selection. */
  gtk_gesture_drag_get_start_point (gesture, &x, &y);
  mark = mark_at (self, x, y + dy);
  if (mark != NULL)
    sysprof_document_set_selection (self->document, mark->time_ns, sysprof_time_add (mark->time_ns, mark->duration_ns));
  else if (x >= SYSPROF_CHART_GUTTER)
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
}

static void
on_document_changed (SysprofDocument *document, SysprofMarksWaterfall *self)
{
  (void) document;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

GtkWidget *
sysprof_marks_waterfall_new (SysprofDocument *document)
{
  SysprofMarksWaterfall *self = g_object_new (SYSPROF_TYPE_MARKS_WATERFALL, NULL);

  self->document = g_object_ref (document);
  self->filter_handler = g_signal_connect (document, "filter-changed", G_CALLBACK (on_document_changed), self);
  self->range_handler = g_signal_connect (document, "visible-range-changed", G_CALLBACK (on_document_changed), self);
  return GTK_WIDGET (self);
}

void
sysprof_marks_waterfall_set_rows (SysprofMarksWaterfall *self, GPtrArray *rows)
{
  g_autoptr (GString) description = g_string_new (NULL);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  self->rows = rows;
  g_string_append_printf (description, "%u rows of marks", rows->len);
  for (guint i = 0; i < rows->len && i < 20; i++)
    {
      const MarksRow *row = g_ptr_array_index (rows, i);

      g_string_append_printf (description, "%s %s%s%s: %u", i == 0 ? ":" : ";", row->group, row->group[0] ? " " : "",
                              row->name, row->indices->len);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description->str, -1);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static void
sysprof_marks_waterfall_dispose (GObject *object)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (object);

  if (self->document != NULL)
    {
      g_clear_signal_handler (&self->filter_handler, self->document);
      g_clear_signal_handler (&self->range_handler, self->document);
    }
  g_clear_object (&self->document);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  set_hadjustment (self, NULL);
  set_vadjustment (self, NULL);

  G_OBJECT_CLASS (sysprof_marks_waterfall_parent_class)->dispose (object);
}

static void
sysprof_marks_waterfall_class_init (SysprofMarksWaterfallClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_marks_waterfall_dispose;
  object_class->get_property = sysprof_marks_waterfall_get_property;
  object_class->set_property = sysprof_marks_waterfall_set_property;
  widget_class->snapshot = sysprof_marks_waterfall_snapshot;
  widget_class->measure = sysprof_marks_waterfall_measure;
  widget_class->size_allocate = sysprof_marks_waterfall_size_allocate;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "waterfall");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
sysprof_marks_waterfall_init (SysprofMarksWaterfall *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, "Marks waterfall", -1);
}
