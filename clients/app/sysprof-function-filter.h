// SPDX-License-Identifier: GPL-3.0-or-later
/* The focus and hide controls shared by the views that show functions
 * (callgraph, flame graph): a bar saying which functions are focused or
 * hidden with a Reset button, and the right-click menu offering to focus on
 * or hide a function.  Both act on the document's filter. */
#pragma once

#include <gtk/gtk.h>

#include "sysprof-view.h"

G_BEGIN_DECLS

/* A bar that shows itself while functions are focused or hidden in
 * @document, naming them, with a Reset button. */
GtkWidget *sysprof_function_filter_bar_new (SysprofDocument *document);

/* Installs PREFIX.focus, PREFIX.hide and PREFIX.reset on a SysprofView
 * subclass, for the menu below. */
void sysprof_function_filter_install_actions (GtkWidgetClass *widget_class, const char *prefix);

/* Pops @menu up at @rect (in the coordinates of @menu's parent) for
 * function @name of @view: "Focus on NAME", "Hide NAME" (disabled unless
 * @is_code: only code frames can be focused or hidden, see
 * SysprofCallgraphFilter) and "Reset focus and hidden functions". */
void sysprof_function_filter_popup (SysprofView        *view,
                                    GtkPopoverMenu     *menu,
                                    const char         *prefix,
                                    const char         *name,
                                    gboolean            is_code,
                                    const GdkRectangle *rect);

G_END_DECLS
