// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdio.h>
#include <string.h>

#include "app-test-util.h"
#include "sysprof-view.h"

gboolean
app_test_init (void)
{
  if (!gtk_init_check ())
    {
      fprintf (stderr, "no display: run under Xvfb (DISPLAY is %s)\n", g_getenv ("DISPLAY") ?: "unset");
      return FALSE;
    }
  adw_init ();
  return TRUE;
}

gboolean
app_test_wait_for (AppTestCondition done, gpointer data, double timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  while (!done (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      /* Not blocking: the worker's results arrive through idles, and a
       * blocking iteration could sleep past the deadline. */
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    }
  return TRUE;
}

static gboolean
never (gpointer data)
{
  (void) data;
  return FALSE;
}

void
app_test_settle (void)
{
  app_test_wait_for (never, NULL, 0.3);
}

typedef struct
{
  SysprofWindow *window;
} OpenWait;

static gboolean
window_ready (gpointer data)
{
  SysprofWindow *window = data;
  const char    *page = sysprof_window_get_page (window);

  if (g_strcmp0 (page, "error") == 0)
    return TRUE;
  return g_strcmp0 (page, "capture") == 0 && !sysprof_window_is_busy (window);
}

SysprofWindow *
app_test_open (const char *path, double timeout_s, char **error_message)
{
  SysprofWindow *window = sysprof_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  sysprof_window_open (window, file, FALSE);
  gtk_window_present (GTK_WINDOW (window));
  if (!app_test_wait_for (window_ready, window, timeout_s))
    {
      if (error_message)
        *error_message = g_strdup_printf ("%s: not loaded after %.0f s", path, timeout_s);
      gtk_window_destroy (GTK_WINDOW (window));
      return NULL;
    }
  if (g_strcmp0 (sysprof_window_get_page (window), "error") == 0)
    {
      if (error_message)
        *error_message = g_strdup (sysprof_window_get_error (window));
      gtk_window_destroy (GTK_WINDOW (window));
      return NULL;
    }
  app_test_settle ();
  return window;
}

char **
app_test_list_views (SysprofWindow *window)
{
  GtkStack  *stack = sysprof_window_get_views (window);
  GPtrArray *ids = g_ptr_array_new ();

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (stack)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkStackPage *page = gtk_stack_get_page (stack, child);

      if (page != NULL && SYSPROF_IS_VIEW (child))
        g_ptr_array_add (ids, g_strdup (gtk_stack_page_get_name (page)));
    }
  g_ptr_array_add (ids, NULL);
  return (char **) g_ptr_array_free (ids, FALSE);
}

typedef struct
{
  GtkWidget *view;
  int        frames;
  guint      tick;
} DrawWait;

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  DrawWait *wait = data;

  (void) widget;
  (void) clock;
  wait->frames++;
  return G_SOURCE_CONTINUE;
}

static gboolean
view_drawn (gpointer data)
{
  DrawWait *wait = data;

  return gtk_widget_get_mapped (wait->view) && wait->frames >= 3 && !sysprof_view_get_busy (SYSPROF_VIEW (wait->view));
}

gboolean
app_test_show_view (SysprofWindow *window, const char *id, double timeout_s)
{
  GtkStack *stack = sysprof_window_get_views (window);
  DrawWait  wait = { gtk_stack_get_child_by_name (stack, id), 0, 0 };
  gboolean  ok;

  if (wait.view == NULL)
    return FALSE;
  gtk_stack_set_visible_child (stack, wait.view);
  wait.tick = gtk_widget_add_tick_callback (wait.view, count_frame, &wait, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (window));
  ok = app_test_wait_for (view_drawn, &wait, timeout_s);
  gtk_widget_remove_tick_callback (wait.view, wait.tick);
  app_test_settle ();
  return ok;
}

gboolean
app_test_save_png (GtkWidget *widget, const char *png_path, GError **error)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  GskRenderer *renderer;
  int          width = gtk_widget_get_width (widget);
  int          height = gtk_widget_get_height (widget);

  if (width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the widget has no size (not shown?)");
      return FALSE;
    }
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the widget drew nothing");
      return FALSE;
    }
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, png_path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write %s", png_path);
      return FALSE;
    }
  return TRUE;
}

GtkWidget *
app_test_find_named (GtkWidget *root, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = app_test_find_named (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}
