// SPDX-License-Identifier: GPL-3.0-or-later
/* Helpers of the app's tests: they drive the real widgets of the app in
 * this process, under Xvfb, and read the widget tree. */
#pragma once

#include "sysprof-window.h"

G_BEGIN_DECLS

/* gtk_init + adw_init; FALSE (with a message) when no display. */
gboolean app_test_init (void);
/* Runs the main loop until @done returns TRUE or @timeout_s passes. */
typedef gboolean (*AppTestCondition) (gpointer data);
gboolean app_test_wait_for (AppTestCondition done, gpointer data, double timeout_s);
/* Lets GTK lay out and draw a few frames. */
void app_test_settle (void);
/* A shown window with @path opened, after it loaded and no view is busy
 * (NULL on timeout or when it shows an error: *error_message gets it). */
SysprofWindow *app_test_open (const char *path, double timeout_s, char **error_message);
/* Ids of the window's views, in sidebar order, NULL-terminated. */
char **app_test_list_views (SysprofWindow *window);
/* Shows view @id and waits until it is drawn and not busy. */
gboolean app_test_show_view (SysprofWindow *window, const char *id, double timeout_s);
/* Renders @widget as GTK draws it into @png_path. */
gboolean app_test_save_png (GtkWidget *widget, const char *png_path, GError **error);
/* The first widget below @root (depth first, @root included) named @name. */
GtkWidget *app_test_find_named (GtkWidget *root, const char *name);

G_END_DECLS
