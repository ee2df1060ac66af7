// SPDX-License-Identifier: GPL-3.0-or-later
/* The flame graph page: the top-down call tree of the samples drawn as a
 * flame graph, root at the bottom and callees stacked above their callers,
 * each frame as wide as its total, children left to right from the
 * heaviest.  A frame is coloured from a hash of its function's name, so a
 * function keeps its colour from one capture or selection to the next.
 *
 * Clicking a frame zooms into it: it fills the width and its callers stay
 * below it, full width, to click back out (as does the root, the button,
 * or Escape).  The search fades the frames of the functions that do not
 * match.  A right click focuses on a function or hides it, like in the
 * callgraph.  The callgraph is the document's cached one, the same as the
 * callgraph page's. */

#include "sysprof-callgraph-backed-view.h"
#include "sysprof-callgraph-source-dropdown.h"
#include "sysprof-flamegraph-canvas.h"
#include "sysprof-function-filter.h"

/* ------------------------------------------------------------------------ */
/* The view */

#define SYSPROF_TYPE_FLAMEGRAPH_VIEW (sysprof_flamegraph_view_get_type ())
G_DECLARE_FINAL_TYPE (
    SysprofFlamegraphView, sysprof_flamegraph_view, SYSPROF, FLAMEGRAPH_VIEW, SysprofCallgraphBackedView)

struct _SysprofFlamegraphView
{
  SysprofCallgraphBackedView parent_instance;

  GtkWidget *box;
  GtkWidget *filter_slot; /* the focus/hide bar, once the document is known */
  GtkWidget *total_label;
  GtkWidget *source_dropdown;
  GtkWidget *zoom_label;
  GtkWidget *zoom_out;
  GtkWidget *search_entry;
  GtkWidget *match_label;
  GtkWidget *scrolled;
  GtkWidget *canvas;

  /* The root is at the bottom: the view follows it while the user has not
   * scrolled away from it. */
  gboolean stick_to_bottom;
  guint    scroll_idle;

  GtkWidget *menu;
};

G_DEFINE_FINAL_TYPE (SysprofFlamegraphView, sysprof_flamegraph_view, SYSPROF_TYPE_CALLGRAPH_BACKED_VIEW)

static void
update_search (SysprofFlamegraphView *self)
{
  SysprofFlamegraphCanvas *canvas = SYSPROF_FLAMEGRAPH_CANVAS (self->canvas);
  SysprofCallgraph *callgraph = sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  const char       *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autofree char  *needle = text[0] != '\0' ? g_utf8_casefold (text, -1) : NULL;
  guint64           matched = sysprof_flamegraph_canvas_set_search (canvas, needle);
  guint64           all = callgraph != NULL ? sysprof_callgraph_get_root (callgraph)->total : 0;
  g_autofree char  *label = NULL;

  if (needle != NULL && all > 0)
    label = g_strdup_printf ("%.2f %% of the samples match", 100.0 * (double) matched / (double) all);
  gtk_label_set_text (GTK_LABEL (self->match_label), label != NULL ? label : "");
  gtk_widget_set_visible (self->match_label, label != NULL);
}

static void
on_search_changed (GtkSearchEntry *entry, SysprofFlamegraphView *self)
{
  (void) entry;
  update_search (self);
}

static void
on_zoom_changed (SysprofFlamegraphCanvas *canvas, SysprofFlamegraphView *self)
{
  const SysprofCallgraphNode *zoom = sysprof_flamegraph_canvas_get_zoom (canvas);
  g_autofree char            *text = NULL;

  if (zoom != NULL && zoom->parent != NULL)
    text = g_strdup_printf ("zoomed on %s", zoom->function->symbol->name);
  gtk_label_set_text (GTK_LABEL (self->zoom_label), text != NULL ? text : "");
  gtk_widget_set_sensitive (self->zoom_out, text != NULL);
  /* The graph changed height: show its root again. */
  self->stick_to_bottom = TRUE;
}

static gboolean
scroll_to_bottom (gpointer user_data)
{
  SysprofFlamegraphView *self = user_data;
  GtkAdjustment         *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->scrolled));

  self->scroll_idle = 0;
  gtk_adjustment_set_value (adjustment,
                            gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
  return G_SOURCE_REMOVE;
}

/* From an idle: the viewport sets the value it wants right after it
 * changes the bounds, which would undo a value set here. */
static void
on_vadjustment_changed (GtkAdjustment *adjustment, SysprofFlamegraphView *self)
{
  (void) adjustment;
  if (self->stick_to_bottom && self->scroll_idle == 0)
    self->scroll_idle = g_idle_add (scroll_to_bottom, self);
}

static void
on_vadjustment_value_changed (GtkAdjustment *adjustment, SysprofFlamegraphView *self)
{
  self->stick_to_bottom = gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
                          gtk_adjustment_get_upper (adjustment) - 1.0;
}

static void
on_zoom_out_clicked (GtkButton *button, SysprofFlamegraphView *self)
{
  SysprofCallgraph *callgraph = sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));

  (void) button;
  if (callgraph != NULL)
    sysprof_flamegraph_canvas_set_zoom (SYSPROF_FLAMEGRAPH_CANVAS (self->canvas),
                                        sysprof_callgraph_get_root (callgraph));
}

static void
update_header (SysprofFlamegraphView *self)
{
  SysprofCallgraph *callgraph = sysprof_callgraph_backed_view_get_callgraph (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  g_autofree char  *total = NULL;

  if (callgraph == NULL)
    total = g_strdup ("…");
  else
    total = sysprof_callgraph_source_describe_total (sysprof_callgraph_get_source (callgraph),
                                                     sysprof_callgraph_get_root (callgraph)->total);
  gtk_label_set_text (GTK_LABEL (self->total_label), total);
}

static void
sysprof_flamegraph_view_callgraph_cleared (SysprofCallgraphBackedView *view)
{
  update_header (SYSPROF_FLAMEGRAPH_VIEW (view));
}

static void
sysprof_flamegraph_view_callgraph_ready (SysprofCallgraphBackedView *view, SysprofCallgraph *callgraph)
{
  SysprofFlamegraphView *self = SYSPROF_FLAMEGRAPH_VIEW (view);

  sysprof_flamegraph_canvas_set_callgraph (SYSPROF_FLAMEGRAPH_CANVAS (self->canvas), callgraph);
  update_header (self);
  update_search (self);
}

/* ------------------------------------------------------------------------ */
/* Focus and hide */

static void
on_secondary_click (GtkGestureClick *gesture, int n_press, double x, double y, SysprofFlamegraphView *self)
{
  const SysprofCallgraphNode *node =
      sysprof_flamegraph_canvas_get_node_at (SYSPROF_FLAMEGRAPH_CANVAS (self->canvas), x, y);
  graphene_rect_t bounds;

  (void) n_press;
  if (node == NULL || !gtk_widget_compute_bounds (self->canvas, self->box, &bounds))
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  sysprof_function_filter_popup (SYSPROF_VIEW (self), GTK_POPOVER_MENU (self->menu), "flamegraph",
                                 node->function->symbol->name, node->function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE,
                                 &(GdkRectangle){ (int) (bounds.origin.x + x), (int) (bounds.origin.y + y), 1, 1 });
}

/* ------------------------------------------------------------------------ */

static gboolean
sysprof_flamegraph_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_SAMPLE) > 0;
}

static void
sysprof_flamegraph_view_load (SysprofView *view, SysprofDocument *document)
{
  gtk_box_append (GTK_BOX (SYSPROF_FLAMEGRAPH_VIEW (view)->filter_slot), sysprof_function_filter_bar_new (document));
  sysprof_callgraph_source_dropdown_update (SYSPROF_FLAMEGRAPH_VIEW (view)->source_dropdown, document);
  SYSPROF_VIEW_CLASS (sysprof_flamegraph_view_parent_class)->load (view, document);
}

static void
sysprof_flamegraph_view_dispose (GObject *object)
{
  SysprofFlamegraphView *self = SYSPROF_FLAMEGRAPH_VIEW (object);

  g_clear_handle_id (&self->scroll_idle, g_source_remove);
  /* The popover is parented to the box, which the base class destroys. */
  g_clear_pointer (&self->menu, gtk_widget_unparent);

  G_OBJECT_CLASS (sysprof_flamegraph_view_parent_class)->dispose (object);
}

static void
sysprof_flamegraph_view_class_init (SysprofFlamegraphViewClass *klass)
{
  GObjectClass                    *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass                  *widget_class = GTK_WIDGET_CLASS (klass);
  SysprofViewClass                *view_class = SYSPROF_VIEW_CLASS (klass);
  SysprofCallgraphBackedViewClass *backed_class = SYSPROF_CALLGRAPH_BACKED_VIEW_CLASS (klass);

  object_class->dispose = sysprof_flamegraph_view_dispose;
  view_class->has_data = sysprof_flamegraph_view_has_data;
  view_class->load = sysprof_flamegraph_view_load;
  backed_class->callgraph_cleared = sysprof_flamegraph_view_callgraph_cleared;
  backed_class->callgraph_ready = sysprof_flamegraph_view_callgraph_ready;
  sysprof_view_class_set_info (view_class, "flamegraph", "Flame Graph", "text-x-generic-symbolic", 30);
  /* Waits to be shown: by then the callgraph page has usually put the
   * callgraph in the document's cache. */
  sysprof_callgraph_backed_view_class_set_callgraph (backed_class, SYSPROF_CALLGRAPH_SOURCE_SAMPLES, 0,
                                                     "Building the flame graph…");

  sysprof_function_filter_install_actions (widget_class, "flamegraph");
}

static void
sysprof_flamegraph_view_init (SysprofFlamegraphView *self)
{
  GtkWidget     *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkGesture    *secondary = gtk_gesture_click_new ();
  GtkAdjustment *vadjustment;
  g_autoptr (GMenu) empty = g_menu_new ();

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);
  self->total_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->total_label, "title-2");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->total_label), GTK_ACCESSIBLE_PROPERTY_LABEL, "Samples", -1);
  self->zoom_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->zoom_label, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (self->zoom_label), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (self->zoom_label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->zoom_label, TRUE);
  self->zoom_out = gtk_button_new_with_label ("Zoom Out");
  gtk_widget_set_tooltip_text (self->zoom_out, "Show the whole graph again (Escape)");
  gtk_widget_set_sensitive (self->zoom_out, FALSE);
  g_signal_connect (self->zoom_out, "clicked", G_CALLBACK (on_zoom_out_clicked), self);
  self->match_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->match_label, "dim-label");
  gtk_widget_set_visible (self->match_label, FALSE);
  self->search_entry = gtk_search_entry_new ();
  g_object_set (self->search_entry, "placeholder-text", "Highlight functions", NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search_entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Highlight functions", -1);
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (on_search_changed), self);
  self->source_dropdown = sysprof_callgraph_source_dropdown_new (SYSPROF_CALLGRAPH_BACKED_VIEW (self));
  gtk_box_append (GTK_BOX (header), self->total_label);
  gtk_box_append (GTK_BOX (header), self->source_dropdown);
  gtk_box_append (GTK_BOX (header), self->zoom_label);
  gtk_box_append (GTK_BOX (header), self->match_label);
  gtk_box_append (GTK_BOX (header), self->search_entry);
  gtk_box_append (GTK_BOX (header), self->zoom_out);
  gtk_box_append (GTK_BOX (self->box), header);

  self->filter_slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->box), self->filter_slot);

  self->canvas = sysprof_flamegraph_canvas_new ();
  g_signal_connect (self->canvas, "zoom-changed", G_CALLBACK (on_zoom_changed), self);
  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), self->canvas);
  gtk_widget_set_vexpand (self->scrolled, TRUE);
  vadjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->scrolled));
  g_signal_connect (vadjustment, "changed", G_CALLBACK (on_vadjustment_changed), self);
  g_signal_connect (vadjustment, "value-changed", G_CALLBACK (on_vadjustment_value_changed), self);
  self->stick_to_bottom = TRUE;
  gtk_box_append (GTK_BOX (self->box), self->scrolled);

  self->menu = gtk_popover_menu_new_from_model (G_MENU_MODEL (empty));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
  gtk_popover_set_position (GTK_POPOVER (self->menu), GTK_POS_BOTTOM);
  gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->menu, self->box);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (secondary), GDK_BUTTON_SECONDARY);
  g_signal_connect (secondary, "pressed", G_CALLBACK (on_secondary_click), self);
  gtk_widget_add_controller (self->canvas, GTK_EVENT_CONTROLLER (secondary));

  sysprof_view_set_child (SYSPROF_VIEW (self), self->box);
}
