// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofView: the base of every page of a capture window.
 *
 * A kind of view is one file: a subclass that, in its class_init, names
 * itself with sysprof_view_class_set_info() and declares what it needs from
 * a capture with its has_data() vfunc, plus one line in the app's
 * meson.build (app_views), from which the list of view types is generated.
 * The window creates one instance of every kind whose has_data() is TRUE
 * for the opened document, in the order of their sort keys.
 *
 * A view shows one child (sysprof_view_set_child()); while it is busy
 * (sysprof_view_set_busy()) a spinner and its message cover it.  Tests wait
 * until no view is busy before they inspect the pages.
 */
#pragma once

#include <adwaita.h>

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_VIEW (sysprof_view_get_type ())
G_DECLARE_DERIVABLE_TYPE (SysprofView, sysprof_view, SYSPROF, VIEW, GtkWidget)

struct _SysprofViewClass
{
  GtkWidgetClass parent_class;

  /* Whether @document (loaded) has data for this kind of view.  Called on
   * the main thread; must only look at the document's scan results. */
  gboolean (*has_data) (SysprofDocument *document);
  /* The view was given its document (once, right after creation). */
  void (*load) (SysprofView *self, SysprofDocument *document);
  /* The document's filter (selection, focused or hidden functions)
   * changed. */
  void (*filter_changed) (SysprofView *self);

  /*< private >*/
  const char *id;
  const char *title;
  const char *icon_name;
  int         sort_key;
};

/* @id: a stable name ("callgraph"), used as the page name in the window's
 * stack and by tests; @title: shown in the sidebar; @sort_key: position
 * among the views (lower first). */
void sysprof_view_class_set_info (
    SysprofViewClass *klass, const char *id, const char *title, const char *icon_name, int sort_key);

const char      *sysprof_view_get_id (SysprofView *self);
const char      *sysprof_view_get_title (SysprofView *self);
const char      *sysprof_view_get_icon_name (SysprofView *self);
SysprofDocument *sysprof_view_get_document (SysprofView *self);

void       sysprof_view_set_child (SysprofView *self, GtkWidget *child);
GtkWidget *sysprof_view_get_child (SysprofView *self);
gboolean   sysprof_view_get_busy (SysprofView *self);
/* @message: what the view waits for ("Building the callgraph…"). */
void sysprof_view_set_busy (SysprofView *self, gboolean busy, const char *message);
/* Shows @message (an error of the view's analysis) instead of the child
 * until the next set_busy (FALSE) or set_error (NULL). */
void sysprof_view_set_error (SysprofView *self, const char *message);

/* For table cells: @label's whole text (often ellipsized) as its tooltip,
 * asked when the pointer rests on it.  Setting a tooltip text in every
 * bind instead costs GTK a round trip to the X server each time. */
void sysprof_view_label_text_tooltip (GtkWidget *label);

/* For the window: the kinds of view, from the generated list, sorted. */
GType *sysprof_view_list_types (guint *n_types);
/* Creates the view of @type for @document and calls its load(). */
SysprofView *sysprof_view_new (GType type, SysprofDocument *document);

G_END_DECLS
