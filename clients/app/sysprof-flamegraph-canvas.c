// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-callgraph-source-dropdown.h"
#include "sysprof-flamegraph-canvas.h"

/* Height of a row of frames, in pixels. */
#define FRAME_HEIGHT 18
/* Narrower frames are not drawn, nor their children, which are narrower
 * still: the number of frames drawn is bounded by the pixels, not by the
 * size of the tree. */
#define MIN_FRAME_WIDTH 1.0
/* A name is only written in a frame at least this wide. */
#define MIN_TEXT_WIDTH 30.0
#define TEXT_PADDING   3.0

typedef struct
{
  const SysprofCallgraphNode *node;
  double                      x;
  double                      width;
} Frame;

struct _SysprofFlamegraphCanvas
{
  GtkWidget parent_instance;

  SysprofCallgraph *callgraph;
  /* A differential flame graph: the comparison whose AFTER is @callgraph,
   * which colours the frames; NULL otherwise. */
  SysprofCallgraphDiff       *diff;
  const SysprofCallgraphNode *zoom; /* fills the width; the root at first */
  const SysprofCallgraphNode *hover;

  /* The frames drawn at @layout_width (-1: to be laid out again), the
   * zoomed frame's callers included; a node's row is its depth. */
  GArray *frames;
  int     layout_width;
  guint   n_rows;

  /* Rows for a width, for the height-for-width measure. */
  int   measured_width;
  guint measured_rows;

  /* One flag per function index: its name matches the search.  NULL
   * without a search. */
  guint8 *matches;
  /* The functions' names case-folded, made at the first search (a
   * callgraph can have 180,000 functions, and each key press searches
   * again); NULL before it. */
  char **folded;
  guint  n_folded;

  PangoLayout *layout;
};

G_DEFINE_FINAL_TYPE (SysprofFlamegraphCanvas, sysprof_flamegraph_canvas, GTK_TYPE_WIDGET)

enum
{
  ZOOM_CHANGED,
  N_CANVAS_SIGNALS
};

static guint canvas_signals[N_CANVAS_SIGNALS];

/* Appends the children of @node, from @x, @scale pixels per sample, and
 * their children, down to MIN_FRAME_WIDTH; @frames NULL: only counts the
 * rows. */
static void
layout_children (GArray *frames, const SysprofCallgraphNode *node, double x, double scale, guint *max_depth)
{
  for (const SysprofCallgraphNode *child = node->first_child; child != NULL; child = child->next_sibling)
    {
      Frame frame = { child, x, (double) child->total * scale };

      /* Children come largest first: the rest are narrower. */
      if (frame.width < MIN_FRAME_WIDTH)
        break;
      if (frames != NULL)
        g_array_append_val (frames, frame);
      *max_depth = MAX (*max_depth, child->depth);
      layout_children (frames, child, x, scale, max_depth);
      x += frame.width;
    }
}

const SysprofCallgraphNode *
sysprof_flamegraph_canvas_get_zoom (SysprofFlamegraphCanvas *self)
{
  if (self->callgraph == NULL)
    return NULL;
  return self->zoom != NULL ? self->zoom : sysprof_callgraph_get_root (self->callgraph);
}

/* Rows needed at @width; fills @frames when not NULL. */
static guint
canvas_layout (SysprofFlamegraphCanvas *self, int width, GArray *frames)
{
  const SysprofCallgraphNode *zoom = sysprof_flamegraph_canvas_get_zoom (self);
  guint                       max_depth;

  if (zoom == NULL)
    return 0;
  for (const SysprofCallgraphNode *node = zoom; node != NULL; node = node->parent)
    if (frames != NULL)
      {
        Frame frame = { node, 0.0, (double) width };

        g_array_append_val (frames, frame);
      }
  max_depth = zoom->depth;
  if (zoom->total > 0)
    layout_children (frames, zoom, 0.0, (double) width / (double) zoom->total, &max_depth);
  return max_depth + 1;
}

static void
canvas_update_description (SysprofFlamegraphCanvas *self)
{
  const SysprofCallgraphNode *zoom = sysprof_flamegraph_canvas_get_zoom (self);
  g_autofree char            *text = NULL;

  if (zoom == NULL)
    text = g_strdup ("No callgraph");
  else
    {
      g_autofree char *total = sysprof_callgraph_source_describe_total (
          sysprof_callgraph_get_source (self->callgraph), sysprof_callgraph_get_root (self->callgraph)->total);

      text = g_strdup_printf ("%s, %u frames drawn in %u rows, zoomed on %s", total, self->frames->len, self->n_rows,
                              zoom->function->symbol->name);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

static void
canvas_relayout (SysprofFlamegraphCanvas *self, int width)
{
  g_array_set_size (self->frames, 0);
  self->layout_width = width;
  self->n_rows = canvas_layout (self, width, self->frames);
  canvas_update_description (self);
}

/* The callgraph or the zoom changed: everything is laid out again. */
static void
canvas_invalidate (SysprofFlamegraphCanvas *self)
{
  self->layout_width = -1;
  self->measured_width = -1;
  self->hover = NULL;
  g_array_set_size (self->frames, 0);
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_signal_emit (self, canvas_signals[ZOOM_CHANGED], 0);
}

void
sysprof_flamegraph_canvas_set_zoom (SysprofFlamegraphCanvas *self, const SysprofCallgraphNode *zoom)
{
  if (zoom == sysprof_flamegraph_canvas_get_zoom (self))
    return;
  self->zoom = zoom;
  canvas_invalidate (self);
}

/* The node of @callgraph on the same path of functions as @old (of another
 * callgraph), as far as it goes: a new selection or focus keeps the zoom
 * when it can. */
static const SysprofCallgraphNode *
find_same_path (SysprofCallgraph *callgraph, const SysprofCallgraphNode *old)
{
  g_autoptr (GPtrArray) path = g_ptr_array_new ();
  const SysprofCallgraphNode *node = sysprof_callgraph_get_root (callgraph);

  for (; old != NULL && old->parent != NULL; old = old->parent)
    g_ptr_array_add (path, (gpointer) old->function->symbol);
  for (guint i = path->len; i > 0; i--)
    {
      const SysprofSymbol        *symbol = g_ptr_array_index (path, i - 1);
      const SysprofCallgraphNode *child = node->first_child;

      while (child != NULL && (strcmp (child->function->symbol->name, symbol->name) != 0 ||
                               strcmp (child->function->symbol->library, symbol->library) != 0))
        child = child->next_sibling;
      if (child == NULL)
        break;
      node = child;
    }
  return node;
}

static void
canvas_clear_folded (SysprofFlamegraphCanvas *self)
{
  for (guint i = 0; self->folded != NULL && i < self->n_folded; i++)
    g_free (self->folded[i]);
  g_clear_pointer (&self->folded, g_free);
  self->n_folded = 0;
}

void
sysprof_flamegraph_canvas_set_callgraph (SysprofFlamegraphCanvas *self, SysprofCallgraph *callgraph)
{
  const SysprofCallgraphNode *zoom = NULL;

  if (callgraph != NULL && self->zoom != NULL)
    zoom = find_same_path (callgraph, self->zoom);
  /* The old nodes go with the old callgraph. */
  self->zoom = NULL;
  g_clear_pointer (&self->matches, g_free);
  canvas_clear_folded (self);
  g_set_object (&self->callgraph, callgraph);
  g_clear_object (&self->diff);
  self->zoom = zoom;
  canvas_invalidate (self);
}

void
sysprof_flamegraph_canvas_set_diff (SysprofFlamegraphCanvas *self, SysprofCallgraphDiff *diff)
{
  g_return_if_fail (SYSPROF_IS_FLAMEGRAPH_CANVAS (self));
  g_return_if_fail (diff == NULL || SYSPROF_IS_CALLGRAPH_DIFF (diff));

  sysprof_flamegraph_canvas_set_callgraph (self, diff != NULL ? sysprof_callgraph_diff_get_after (diff) : NULL);
  g_set_object (&self->diff, diff);
}

guint64
sysprof_flamegraph_canvas_set_search (SysprofFlamegraphCanvas *self, const char *needle)
{
  g_autoptr (GPtrArray) stack = NULL;
  guint   n;
  guint64 matched = 0;

  g_clear_pointer (&self->matches, g_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (needle == NULL || self->callgraph == NULL)
    return 0;

  n = sysprof_callgraph_get_n_functions (self->callgraph);
  self->matches = g_new0 (guint8, n);
  if (self->folded == NULL)
    {
      self->folded = g_new0 (char *, n);
      self->n_folded = n;
    }
  for (guint i = 0; i < n; i++)
    {
      if (self->folded[i] == NULL)
        self->folded[i] = g_utf8_casefold (sysprof_callgraph_get_function (self->callgraph, i)->symbol->name, -1);
      self->matches[i] = strstr (self->folded[i], needle) != NULL;
    }

  /* The outermost matching node of each path carries all the samples of
   * the matching functions below it. */
  stack = g_ptr_array_new ();
  g_ptr_array_add (stack, (gpointer) sysprof_callgraph_get_root (self->callgraph));
  while (stack->len > 0)
    {
      const SysprofCallgraphNode *node = g_ptr_array_steal_index_fast (stack, stack->len - 1);

      if (self->matches[node->function->index])
        {
          matched += node->total;
          continue;
        }
      for (const SysprofCallgraphNode *child = node->first_child; child != NULL; child = child->next_sibling)
        g_ptr_array_add (stack, (gpointer) child);
    }
  return matched;
}

static const Frame *
canvas_frame_at (SysprofFlamegraphCanvas *self, double x, double y)
{
  int   height = gtk_widget_get_height (GTK_WIDGET (self));
  guint depth;

  if (y >= height || y < 0)
    return NULL;
  depth = (guint) ((height - y) / FRAME_HEIGHT);
  for (guint i = 0; i < self->frames->len; i++)
    {
      const Frame *frame = &g_array_index (self->frames, Frame, i);

      if (frame->node->depth == depth && x >= frame->x && x < frame->x + frame->width)
        return frame;
    }
  return NULL;
}

/* A stable 32-bit hash of the name (FNV-1a): g_str_hash is not promised to
 * stay the same, and colours should. */
static guint32
name_hash (const char *name)
{
  guint32 hash = 2166136261u;

  for (const guchar *p = (const guchar *) name; *p != '\0'; p++)
    hash = (hash ^ *p) * 16777619u;
  return hash;
}

static void
frame_color (const SysprofCallgraphFunction *function, GdkRGBA *color)
{
  guint32 hash = name_hash (function->symbol->name);
  float   a = (float) (hash & 0xff) / 255.0f;
  float   b = (float) ((hash >> 8) & 0xff) / 255.0f;
  float   c = (float) ((hash >> 16) & 0xff) / 255.0f;

  switch (function->kind)
    {
    case SYSPROF_CALLGRAPH_FUNCTION_ROOT:
    case SYSPROF_CALLGRAPH_FUNCTION_PROCESS:
      *color = (GdkRGBA){ 0.72f + 0.06f * a, 0.72f + 0.06f * a, 0.76f, 1.0f };
      break;
    case SYSPROF_CALLGRAPH_FUNCTION_CONTEXT: *color = (GdkRGBA){ 0.70f, 0.68f, 0.86f, 1.0f }; break;
    case SYSPROF_CALLGRAPH_FUNCTION_CODE:
    default:
      /* Kernel code in cool colours, the rest in the flame's. */
      if (strcmp (function->symbol->library, "kernel") == 0)
        *color = (GdkRGBA){ 0.45f + 0.20f * a, 0.62f + 0.23f * b, 0.82f + 0.15f * c, 1.0f };
      else
        *color = (GdkRGBA){ 0.87f + 0.13f * a, 0.30f + 0.55f * b, 0.08f + 0.22f * c, 1.0f };
      break;
    }
}

void
sysprof_flamegraph_canvas_get_node_color (SysprofFlamegraphCanvas    *self,
                                          const SysprofCallgraphNode *node,
                                          GdkRGBA                    *color)
{
  guint8 rgb[3];

  g_return_if_fail (SYSPROF_IS_FLAMEGRAPH_CANVAS (self));
  g_return_if_fail (node != NULL && color != NULL);

  if (self->diff == NULL)
    {
      frame_color (node->function, color);
      return;
    }
  sysprof_callgraph_diff_colour_for_change (sysprof_callgraph_diff_get_node_change (self->diff, node, NULL, NULL),
                                            sysprof_callgraph_diff_get_max_node_change (self->diff), rgb);
  *color = (GdkRGBA){ rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f, 1.0f };
}

static void
sysprof_flamegraph_canvas_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SysprofFlamegraphCanvas *self = SYSPROF_FLAMEGRAPH_CANVAS (widget);
  int                      height = gtk_widget_get_height (widget);
  const GdkRGBA            text_color = { 0.0f, 0.0f, 0.0f, 0.87f };
  const GdkRGBA            faded_text = { 0.0f, 0.0f, 0.0f, 0.45f };

  if (self->layout_width != gtk_widget_get_width (widget))
    canvas_relayout (self, gtk_widget_get_width (widget));

  for (guint i = 0; i < self->frames->len; i++)
    {
      const Frame *frame = &g_array_index (self->frames, Frame, i);
      double       y = height - (double) (frame->node->depth + 1) * FRAME_HEIGHT;
      gboolean     faded = self->matches != NULL && !self->matches[frame->node->function->index];
      GdkRGBA      color;
      double       width = frame->width > 2.0 ? frame->width - 1.0 : frame->width;

      if (y + FRAME_HEIGHT < 0)
        continue;
      sysprof_flamegraph_canvas_get_node_color (self, frame->node, &color);
      if (faded)
        {
          color.red = 0.5f * color.red + 0.42f;
          color.green = 0.5f * color.green + 0.42f;
          color.blue = 0.5f * color.blue + 0.42f;
        }
      if (frame->node == self->hover)
        {
          color.red = MIN (1.0f, color.red + 0.12f);
          color.green = MIN (1.0f, color.green + 0.12f);
          color.blue = MIN (1.0f, color.blue + 0.12f);
        }
      gtk_snapshot_append_color (snapshot, &color,
                                 &GRAPHENE_RECT_INIT ((float) frame->x, (float) y, (float) width, FRAME_HEIGHT - 1));

      if (frame->width >= MIN_TEXT_WIDTH)
        {
          int text_height;

          pango_layout_set_text (self->layout, frame->node->function->symbol->name, -1);
          pango_layout_set_width (self->layout, (int) ((frame->width - 2 * TEXT_PADDING) * PANGO_SCALE));
          pango_layout_get_pixel_size (self->layout, NULL, &text_height);
          gtk_snapshot_save (snapshot);
          gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) (frame->x + TEXT_PADDING),
                                                                  (float) (y + (FRAME_HEIGHT - 1 - text_height) / 2)));
          gtk_snapshot_append_layout (snapshot, self->layout, faded ? &faded_text : &text_color);
          gtk_snapshot_restore (snapshot);
        }
    }
}

static GtkSizeRequestMode
sysprof_flamegraph_canvas_get_request_mode (GtkWidget *widget)
{
  (void) widget;
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
sysprof_flamegraph_canvas_measure (GtkWidget     *widget,
                                   GtkOrientation orientation,
                                   int            for_size,
                                   int           *minimum,
                                   int           *natural,
                                   int           *minimum_baseline,
                                   int           *natural_baseline)
{
  SysprofFlamegraphCanvas *self = SYSPROF_FLAMEGRAPH_CANVAS (widget);

  *minimum_baseline = *natural_baseline = -1;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 200;
      *natural = 600;
      return;
    }
  /* Without a width, the one of the last layout is the best guess. */
  if (for_size < 0)
    for_size = self->layout_width > 0 ? self->layout_width : 600;
  if (for_size != self->measured_width)
    {
      self->measured_width = for_size;
      self->measured_rows = canvas_layout (self, for_size, NULL);
    }
  *minimum = *natural = (int) self->measured_rows * FRAME_HEIGHT;
}

static void
sysprof_flamegraph_canvas_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SysprofFlamegraphCanvas *self = SYSPROF_FLAMEGRAPH_CANVAS (widget);

  (void) height;
  (void) baseline;
  if (width != self->layout_width)
    canvas_relayout (self, width);
}

static gboolean
sysprof_flamegraph_canvas_query_tooltip (
    GtkWidget *widget, int x, int y, gboolean keyboard_tooltip, GtkTooltip *tooltip)
{
  SysprofFlamegraphCanvas    *self = SYSPROF_FLAMEGRAPH_CANVAS (widget);
  const Frame                *frame;
  const SysprofCallgraphNode *node;
  const SysprofCallgraphNode *zoom = sysprof_flamegraph_canvas_get_zoom (self);
  guint64                     all;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char       *total = NULL;
  g_autofree char       *self_weight = NULL;
  const char            *unit;
  SysprofCallgraphSource source;

  if (keyboard_tooltip || (frame = canvas_frame_at (self, x, y)) == NULL)
    return FALSE;
  node = frame->node;
  all = sysprof_callgraph_get_root (self->callgraph)->total;
  g_string_append (text, node->function->symbol->name);
  if (node->function->symbol->library[0] != '\0')
    g_string_append_printf (text, "\nin %s", node->function->symbol->library);
  source = sysprof_callgraph_get_source (self->callgraph);
  unit = sysprof_callgraph_source_is_time (source) ? "" : " samples";
  total = sysprof_callgraph_source_format (source, node->total);
  self_weight = sysprof_callgraph_source_format (source, node->self);
  g_string_append_printf (text, "\n%s%s, %.2f %% of all", total, unit,
                          all > 0 ? 100.0 * (double) node->total / (double) all : 0.0);
  if (zoom != NULL && zoom->parent != NULL && node->depth > zoom->depth)
    g_string_append_printf (text, ", %.2f %% of %s", 100.0 * (double) node->total / (double) zoom->total,
                            zoom->function->symbol->name);
  g_string_append_printf (text, "\n%s%s in the function itself", self_weight, unit);
  if (self->diff != NULL)
    {
      double before, after;
      double change = sysprof_callgraph_diff_get_node_change (self->diff, node, &before, &after);

      if (sysprof_callgraph_diff_get_before_node (self->diff, node) != NULL)
        g_string_append_printf (text, "\nBefore %.2f %%, after %.2f %%: %+.2f points", before, after, change);
      else
        g_string_append_printf (text, "\nNot in the capture compared with: %+.2f points", change);
    }
  gtk_tooltip_set_text (tooltip, text->str);
  return TRUE;
}

static void
on_canvas_click (GtkGestureClick *gesture, int n_press, double x, double y, SysprofFlamegraphCanvas *self)
{
  const Frame *frame = canvas_frame_at (self, x, y);

  (void) gesture;
  (void) n_press;
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (frame != NULL)
    sysprof_flamegraph_canvas_set_zoom (self, frame->node);
}

static void
on_canvas_motion (GtkEventControllerMotion *motion, double x, double y, SysprofFlamegraphCanvas *self)
{
  const Frame                *frame = canvas_frame_at (self, x, y);
  const SysprofCallgraphNode *hover = frame != NULL ? frame->node : NULL;

  (void) motion;
  if (hover != self->hover)
    {
      self->hover = hover;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
on_canvas_leave (GtkEventControllerMotion *motion, SysprofFlamegraphCanvas *self)
{
  (void) motion;
  if (self->hover != NULL)
    {
      self->hover = NULL;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

/* Escape zooms out to the root, BackSpace one level. */
static gboolean
on_canvas_key (
    GtkEventControllerKey *key, guint keyval, guint keycode, GdkModifierType state, SysprofFlamegraphCanvas *self)
{
  const SysprofCallgraphNode *zoom = sysprof_flamegraph_canvas_get_zoom (self);

  (void) key;
  (void) keycode;
  (void) state;
  if (zoom == NULL || zoom->parent == NULL)
    return FALSE;
  if (keyval == GDK_KEY_Escape)
    sysprof_flamegraph_canvas_set_zoom (self, sysprof_callgraph_get_root (self->callgraph));
  else if (keyval == GDK_KEY_BackSpace)
    sysprof_flamegraph_canvas_set_zoom (self, zoom->parent);
  else
    return FALSE;
  return TRUE;
}

static void
sysprof_flamegraph_canvas_finalize (GObject *object)
{
  SysprofFlamegraphCanvas *self = SYSPROF_FLAMEGRAPH_CANVAS (object);

  g_clear_object (&self->callgraph);
  g_clear_object (&self->diff);
  g_clear_pointer (&self->frames, g_array_unref);
  g_clear_pointer (&self->matches, g_free);
  canvas_clear_folded (self);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (sysprof_flamegraph_canvas_parent_class)->finalize (object);
}

static void
sysprof_flamegraph_canvas_class_init (SysprofFlamegraphCanvasClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = sysprof_flamegraph_canvas_finalize;
  widget_class->snapshot = sysprof_flamegraph_canvas_snapshot;
  widget_class->get_request_mode = sysprof_flamegraph_canvas_get_request_mode;
  widget_class->measure = sysprof_flamegraph_canvas_measure;
  widget_class->size_allocate = sysprof_flamegraph_canvas_size_allocate;
  widget_class->query_tooltip = sysprof_flamegraph_canvas_query_tooltip;

  canvas_signals[ZOOM_CHANGED] =
      g_signal_new ("zoom-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
  gtk_widget_class_set_css_name (widget_class, "flamegraph");
}

static void
sysprof_flamegraph_canvas_init (SysprofFlamegraphCanvas *self)
{
  GtkGesture         *click = gtk_gesture_click_new ();
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *key = gtk_event_controller_key_new ();

  self->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  self->layout_width = -1;
  self->measured_width = -1;
  self->layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (self->layout, TRUE);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "released", G_CALLBACK (on_canvas_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  g_signal_connect (motion, "motion", G_CALLBACK (on_canvas_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_canvas_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_canvas_key), self);
  gtk_widget_add_controller (GTK_WIDGET (self), key);

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, "Flame graph", -1);
  canvas_update_description (self);
}

GtkWidget *
sysprof_flamegraph_canvas_new (void)
{
  return g_object_new (SYSPROF_TYPE_FLAMEGRAPH_CANVAS, NULL);
}

const SysprofCallgraphNode *
sysprof_flamegraph_canvas_get_node_at (SysprofFlamegraphCanvas *self, double x, double y)
{
  const Frame *frame = canvas_frame_at (self, x, y);

  return frame != NULL ? frame->node : NULL;
}
