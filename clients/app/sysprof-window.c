// SPDX-License-Identifier: GPL-3.0-or-later
#include <glib/gstdio.h>

#include "sysprof-comparison-view.h"
#include "sysprof-view.h"
#include "sysprof-window.h"

struct _SysprofWindow
{
  AdwApplicationWindow parent_instance;

  GtkWidget *title;
  GtkWidget *main_stack;
  GtkWidget *recorder;
  GtkWidget *loading_page;
  GtkWidget *loading_bar;
  GtkWidget *error_page;
  GtkWidget *capture_box;
  GtkWidget *temporary_bar;
  GtkWidget *timeline_slot;
  GtkWidget *views;
  GtkWidget *sidebar;
  GtkWidget *work_bar;
  GtkWidget *toasts;

  SysprofDocument *document;
  GCancellable    *cancellable;
  GFile           *temporary_file;
  char            *error;
  gulong           progress_handler;

  /* Compare With…: the capture asked for before ours loaded, the one
   * loading, and why the last one failed. */
  GFile           *pending_compare;
  SysprofDocument *compare_loading;
  char            *compare_error;
};

G_DEFINE_FINAL_TYPE (SysprofWindow, sysprof_window, ADW_TYPE_APPLICATION_WINDOW)

static void
toast (SysprofWindow *self, const char *message)
{
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (self->toasts), adw_toast_new (message));
}

static void
show_error (SysprofWindow *self, const char *title, const char *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  adw_status_page_set_title (ADW_STATUS_PAGE (self->error_page), title);
  adw_status_page_set_description (ADW_STATUS_PAGE (self->error_page), message);
  gtk_stack_set_visible_child_name (GTK_STACK (self->main_stack), "error");
}

static void
on_progress (SysprofDocument *document, GParamSpec *pspec, SysprofWindow *self)
{
  double           progress = sysprof_document_get_progress (document);
  g_autofree char *text = sysprof_document_dup_progress_text (document);

  (void) pspec;
  if (!sysprof_document_is_loaded (document))
    {
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->loading_bar), MAX (progress, 0));
      gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->loading_bar), text);
      return;
    }
  gtk_widget_set_visible (self->work_bar, progress >= 0);
  if (progress >= 0)
    {
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->work_bar), progress);
      gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->work_bar), text);
    }
}

static void
add_views (SysprofWindow *self)
{
  guint  n_types;
  GType *types = sysprof_view_list_types (&n_types);

  for (guint i = 0; i < n_types; i++)
    {
      SysprofViewClass *klass = g_type_class_peek (types[i]);
      SysprofView      *view;
      GtkStackPage     *page;

      if (klass->has_data == NULL || !klass->has_data (self->document))
        continue;
      view = sysprof_view_new (types[i], self->document);
      page = gtk_stack_add_titled (GTK_STACK (self->views), GTK_WIDGET (view), klass->id, klass->title);
      gtk_stack_page_set_icon_name (page, klass->icon_name);
    }
  /* Start where the time goes: the callgraph when there is one, else the
   * first view after the details. */
  if (gtk_stack_get_child_by_name (GTK_STACK (self->views), "callgraph") != NULL)
    gtk_stack_set_visible_child_name (GTK_STACK (self->views), "callgraph");
  else if (gtk_stack_get_child_by_name (GTK_STACK (self->views), "memory") != NULL)
    gtk_stack_set_visible_child_name (GTK_STACK (self->views), "memory");
}

static void
load_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SysprofWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  GtkWidget *rows;

  if (!sysprof_document_load_finish (SYSPROF_DOCUMENT (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, "This capture cannot be opened", error->message);
      return;
    }
  gtk_box_append (GTK_BOX (self->timeline_slot), sysprof_timeline_new (self->document));
  if ((rows = sysprof_timeline_rows_new (self->document)) != NULL)
    gtk_box_append (GTK_BOX (self->timeline_slot), rows);
  add_views (self);
  gtk_widget_set_visible (self->temporary_bar, self->temporary_file != NULL);
  gtk_stack_set_visible_child_name (GTK_STACK (self->main_stack), "capture");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-as", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timeline.zoom-in", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timeline.zoom-out", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timeline.zoom-reset", TRUE);
  if (self->pending_compare != NULL)
    {
      g_autoptr (GFile) before = g_steal_pointer (&self->pending_compare);

      sysprof_window_compare (self, before);
    }
}

static void
compare_load_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SysprofWindow) self = user_data;
  g_autoptr (SysprofDocument) before = SYSPROF_DOCUMENT (object);
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_file_get_basename (sysprof_document_get_file (before));
  GtkWidget       *old;
  GtkStackPage    *page;
  SysprofView     *view;

  /* Another comparison asked for since replaces this one. */
  if (self->compare_loading != before)
    return;
  g_clear_object (&self->compare_loading);
  if (!sysprof_document_load_finish (before, result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_free (self->compare_error);
      self->compare_error = g_strdup_printf ("Cannot compare with %s: %s", name, error->message);
      toast (self, self->compare_error);
      return;
    }
  if ((old = gtk_stack_get_child_by_name (GTK_STACK (self->views), "comparison")) != NULL)
    gtk_stack_remove (GTK_STACK (self->views), old);
  view = sysprof_comparison_view_new (self->document, before);
  page = gtk_stack_add_titled (GTK_STACK (self->views), GTK_WIDGET (view), "comparison", "Comparison");
  gtk_stack_page_set_icon_name (page, sysprof_view_get_icon_name (view));
  gtk_stack_set_visible_child_name (GTK_STACK (self->views), "comparison");
}

void
sysprof_window_compare (SysprofWindow *self, GFile *before)
{
  g_return_if_fail (SYSPROF_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (before));

  g_clear_pointer (&self->compare_error, g_free);
  if (self->document == NULL || !sysprof_document_is_loaded (self->document))
    {
      g_set_object (&self->pending_compare, before);
      return;
    }
  {
    /* This reference is the callback's; closing the window cancels the
     * load. */
    SysprofDocument *document = sysprof_document_new (before);

    g_set_object (&self->compare_loading, document);
    sysprof_document_load_async (document, self->cancellable, compare_load_cb, g_object_ref (self));
  }
}

void
sysprof_window_open (SysprofWindow *self, GFile *file, gboolean temporary)
{
  g_autofree char *basename = NULL;

  g_return_if_fail (SYSPROF_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (self->document == NULL);

  basename = g_file_get_basename (file);
  adw_window_title_set_title (ADW_WINDOW_TITLE (self->title), temporary ? "New Recording" : basename);
  adw_window_title_set_subtitle (ADW_WINDOW_TITLE (self->title), temporary ? "not saved yet" : "");
  gtk_window_set_title (GTK_WINDOW (self), basename);
  if (temporary)
    self->temporary_file = g_object_ref (file);

  self->document = sysprof_document_new (file);
  self->progress_handler = g_signal_connect (self->document, "notify::progress", G_CALLBACK (on_progress), self);
  adw_status_page_set_title (ADW_STATUS_PAGE (self->loading_page), "Opening the capture");
  adw_status_page_set_description (ADW_STATUS_PAGE (self->loading_page), basename);
  gtk_stack_set_visible_child_name (GTK_STACK (self->main_stack), "loading");
  sysprof_document_load_async (self->document, self->cancellable, load_cb, g_object_ref (self));
}

void
sysprof_window_show_recorder (SysprofWindow *self)
{
  g_return_if_fail (SYSPROF_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (GTK_STACK (self->main_stack), "recorder");
}

SysprofDocument *
sysprof_window_get_document (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);
  return self->document;
}

GtkStack *
sysprof_window_get_views (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);
  return GTK_STACK (self->views);
}

SysprofTimeline *
sysprof_window_get_timeline (SysprofWindow *self)
{
  GtkWidget *child;

  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);

  child = gtk_widget_get_first_child (self->timeline_slot);
  return child ? SYSPROF_TIMELINE (child) : NULL;
}

SysprofRecorderPage *
sysprof_window_get_recorder_page (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);
  return SYSPROF_RECORDER_PAGE (self->recorder);
}

const char *
sysprof_window_get_page (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (GTK_STACK (self->main_stack));
}

const char *
sysprof_window_get_compare_error (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);
  return self->compare_error;
}

const char *
sysprof_window_get_error (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), NULL);
  return self->error;
}

gboolean
sysprof_window_is_busy (SysprofWindow *self)
{
  g_return_val_if_fail (SYSPROF_IS_WINDOW (self), FALSE);

  if (self->document == NULL)
    return FALSE;
  if (!sysprof_document_is_loaded (self->document))
    return self->error == NULL;
  if (self->compare_loading != NULL || self->pending_compare != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (self->views); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (SYSPROF_IS_VIEW (child) && sysprof_view_get_busy (SYSPROF_VIEW (child)))
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Actions */

static void
open_response_cb (GtkNativeDialog *dialog, int response, SysprofWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (self->document == NULL)
        sysprof_window_open (self, file, FALSE);
      else
        {
          SysprofWindow *window = sysprof_window_new (gtk_window_get_application (GTK_WINDOW (self)));

          sysprof_window_open (window, file, FALSE);
          gtk_window_present (GTK_WINDOW (window));
        }
    }
  g_object_unref (dialog);
}

static GtkFileFilter *
capture_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, "Sysprof captures");
  gtk_file_filter_add_pattern (filter, "*.syscap");
  gtk_file_filter_add_mime_type (filter, "application/x-sysprof-capture");
  return filter;
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofWindow        *self = SYSPROF_WINDOW (widget);
  GtkFileChooserNative *dialog;

  (void) action_name;
  (void) parameter;
  dialog =
      gtk_file_chooser_native_new ("Open Capture", GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  {
    g_autoptr (GtkFileFilter) filter = capture_filter ();

    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  }
  g_signal_connect (dialog, "response", G_CALLBACK (open_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
compare_response_cb (GtkNativeDialog *dialog, int response, SysprofWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      sysprof_window_compare (self, file);
    }
  g_object_unref (dialog);
}

static void
compare_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofWindow        *self = SYSPROF_WINDOW (widget);
  GtkFileChooserNative *dialog;

  (void) action_name;
  (void) parameter;
  if (self->document == NULL || !sysprof_document_is_loaded (self->document))
    return;
  dialog = gtk_file_chooser_native_new ("Compare With a Capture", GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                        "_Compare", "_Cancel");
  {
    g_autoptr (GtkFileFilter) filter = capture_filter ();

    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  }
  g_signal_connect (dialog, "response", G_CALLBACK (compare_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
record_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofWindow *self = SYSPROF_WINDOW (widget);

  (void) action_name;
  (void) parameter;
  if (self->document == NULL)
    sysprof_window_show_recorder (self);
  else
    {
      SysprofWindow *window = sysprof_window_new (gtk_window_get_application (GTK_WINDOW (self)));

      sysprof_window_show_recorder (window);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static void
copy_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SysprofWindow) self = user_data;
  g_autoptr (GError) error = NULL;

  if (!g_file_copy_finish (G_FILE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf ("Could not save the capture: %s", error->message);

      toast (self, message);
      return;
    }
  toast (self, "Capture saved");
}

static void
save_response_cb (GtkNativeDialog *dialog, int response, SysprofWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) target = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *basename = g_file_get_basename (target);

      /* The temporary file stays until the window closes: the document
       * reads from it. */
      g_file_copy_async (sysprof_document_get_file (self->document), target, G_FILE_COPY_OVERWRITE, G_PRIORITY_DEFAULT,
                         NULL, NULL, NULL, copy_cb, g_object_ref (self));
      adw_window_title_set_title (ADW_WINDOW_TITLE (self->title), basename);
      adw_window_title_set_subtitle (ADW_WINDOW_TITLE (self->title), "");
      gtk_widget_set_visible (self->temporary_bar, FALSE);
    }
  g_object_unref (dialog);
}

static void
save_as_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofWindow        *self = SYSPROF_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *name = g_date_time_format (now, "capture-%Y-%m-%d-%H%M%S.syscap");

  (void) action_name;
  (void) parameter;
  if (self->document == NULL)
    return;
  dialog = gtk_file_chooser_native_new ("Save Capture As", GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Save",
                                        "_Cancel");
  {
    g_autoptr (GtkFileFilter) filter = capture_filter ();

    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  }
  if (self->temporary_file != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  g_signal_connect (dialog, "response", G_CALLBACK (save_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
zoom_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofTimeline *timeline = sysprof_window_get_timeline (SYSPROF_WINDOW (widget));

  (void) parameter;
  if (timeline == NULL)
    return;
  if (g_str_equal (action_name, "timeline.zoom-in"))
    sysprof_timeline_zoom (timeline, 0.5);
  else if (g_str_equal (action_name, "timeline.zoom-out"))
    sysprof_timeline_zoom (timeline, 2.0);
  else
    sysprof_timeline_zoom_reset (timeline);
}

static void
clear_selection_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofWindow *self = SYSPROF_WINDOW (widget);

  (void) action_name;
  (void) parameter;
  if (self->document != NULL && sysprof_document_is_loaded (self->document))
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
}

static void
on_recording_finished (SysprofRecorderPage *page, GFile *file, gboolean temporary, SysprofWindow *self)
{
  (void) page;
  if (self->document == NULL)
    sysprof_window_open (self, file, temporary);
  else
    {
      SysprofWindow *window = sysprof_window_new (gtk_window_get_application (GTK_WINDOW (self)));

      sysprof_window_open (window, file, temporary);
      gtk_window_present (GTK_WINDOW (window));
    }
}

/* Drag and drop of capture files onto the window. */
static gboolean
drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, SysprofWindow *self)
{
  GSList *files;

  (void) target;
  (void) x;
  (void) y;
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = g_value_get_boxed (value);
  for (GSList *l = files; l != NULL; l = l->next)
    {
      if (self->document == NULL && l == files)
        sysprof_window_open (self, l->data, FALSE);
      else
        {
          SysprofWindow *window = sysprof_window_new (gtk_window_get_application (GTK_WINDOW (self)));

          sysprof_window_open (window, l->data, FALSE);
          gtk_window_present (GTK_WINDOW (window));
        }
    }
  return files != NULL;
}

/* ------------------------------------------------------------------------ */

static GtkWidget *
build_capture_page (SysprofWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *right;
  GtkWidget *label;
  GtkWidget *button;

  /* Shown for recordings in a temporary file until they are saved. */
  self->temporary_bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_add_css_class (self->temporary_bar, "toolbar");
  label = gtk_label_new ("This recording is in a temporary file and is deleted when the window closes.");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  button = gtk_button_new_with_mnemonic ("_Save As…");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.save-as");
  gtk_box_append (GTK_BOX (self->temporary_bar), label);
  gtk_box_append (GTK_BOX (self->temporary_bar), button);
  gtk_widget_set_visible (self->temporary_bar, FALSE);
  gtk_box_append (GTK_BOX (box), self->temporary_bar);

  self->views = gtk_stack_new ();
  gtk_stack_set_transition_type (GTK_STACK (self->views), GTK_STACK_TRANSITION_TYPE_NONE);
  gtk_widget_set_hexpand (self->views, TRUE);
  gtk_widget_set_vexpand (self->views, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->views), GTK_ACCESSIBLE_PROPERTY_LABEL, "Views", -1);

  self->sidebar = gtk_stack_sidebar_new ();
  gtk_stack_sidebar_set_stack (GTK_STACK_SIDEBAR (self->sidebar), GTK_STACK (self->views));
  gtk_widget_set_size_request (self->sidebar, 150, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->sidebar);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);

  /* The timeline sits above the views, right of the sidebar: its time axis
   * starts at the same x as the charts of the views. */
  self->timeline_slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (right), self->timeline_slot);
  gtk_box_append (GTK_BOX (right), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (right), self->views);

  gtk_paned_set_start_child (GTK_PANED (paned), scroller);
  gtk_paned_set_end_child (GTK_PANED (paned), right);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), paned);

  self->work_bar = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->work_bar), TRUE);
  gtk_widget_set_visible (self->work_bar, FALSE);
  gtk_box_append (GTK_BOX (box), self->work_bar);
  return box;
}

static GtkWidget *
build_header (SysprofWindow *self)
{
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *button;
  GtkWidget *zoom = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GMenu     *menu = g_menu_new ();

  self->title = adw_window_title_new ("Sysprof", "");
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), self->title);

  button = gtk_button_new_from_icon_name ("document-open-symbolic");
  gtk_widget_set_tooltip_text (button, "Open a capture (Ctrl+O)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open");
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), button);

  button = gtk_button_new_from_icon_name ("media-record-symbolic");
  gtk_widget_set_tooltip_text (button, "New recording (Ctrl+N)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.record");
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), button);

  g_menu_append (menu, "_Open Capture…", "win.open");
  g_menu_append (menu, "_New Recording…", "win.record");
  g_menu_append (menu, "_Save As…", "win.save-as");
  g_menu_append (menu, "C_ompare With…", "win.compare");
  g_menu_append (menu, "_Clear Selection", "win.clear-selection");
  g_menu_append (menu, "_About Sysprof", "app.about");
  button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  g_object_unref (menu);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), button);

  gtk_widget_add_css_class (zoom, "linked");
  button = gtk_button_new_from_icon_name ("zoom-out-symbolic");
  gtk_widget_set_tooltip_text (button, "Zoom out (Ctrl+-)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "timeline.zoom-out");
  gtk_box_append (GTK_BOX (zoom), button);
  button = gtk_button_new_from_icon_name ("zoom-original-symbolic");
  gtk_widget_set_tooltip_text (button, "The whole capture (Ctrl+0)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "timeline.zoom-reset");
  gtk_box_append (GTK_BOX (zoom), button);
  button = gtk_button_new_from_icon_name ("zoom-in-symbolic");
  gtk_widget_set_tooltip_text (button, "Zoom in, to the selection if there is one (Ctrl++)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "timeline.zoom-in");
  gtk_box_append (GTK_BOX (zoom), button);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), zoom);
  return header;
}

static gboolean
close_request_cb (GtkWindow *window, gpointer user_data)
{
  SysprofWindow *self = SYSPROF_WINDOW (window);

  (void) user_data;
  g_cancellable_cancel (self->cancellable);
  /* A recording still running is stopped; its capture is kept. */
  if (sysprof_recorder_page_get_recording (SYSPROF_RECORDER_PAGE (self->recorder)) != NULL)
    sysprof_recording_stop (sysprof_recorder_page_get_recording (SYSPROF_RECORDER_PAGE (self->recorder)));
  return FALSE;
}

static void
sysprof_window_dispose (GObject *object)
{
  SysprofWindow *self = SYSPROF_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_signal_handler (&self->progress_handler, self->document);
  if (self->temporary_file != NULL)
    {
      g_autofree char *path = g_file_get_path (self->temporary_file);

      if (path != NULL)
        g_unlink (path);
      g_clear_object (&self->temporary_file);
    }
  G_OBJECT_CLASS (sysprof_window_parent_class)->dispose (object);
}

static void
sysprof_window_finalize (GObject *object)
{
  SysprofWindow *self = SYSPROF_WINDOW (object);

  g_clear_object (&self->document);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->pending_compare);
  g_clear_object (&self->compare_loading);
  g_free (self->compare_error);
  g_free (self->error);
  G_OBJECT_CLASS (sysprof_window_parent_class)->finalize (object);
}

static void
sysprof_window_class_init (SysprofWindowClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_window_dispose;
  object_class->finalize = sysprof_window_finalize;

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.record", NULL, record_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.clear-selection", NULL, clear_selection_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-reset", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK, "win.record", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.save-as", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "timeline.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "timeline.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.clear-selection", NULL);
}

static void
sysprof_window_init (SysprofWindow *self)
{
  GtkWidget     *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget     *loading_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  self->cancellable = g_cancellable_new ();
  gtk_window_set_default_size (GTK_WINDOW (self), 1280, 800);
  gtk_window_set_title (GTK_WINDOW (self), "Sysprof");

  gtk_box_append (GTK_BOX (content), build_header (self));

  self->main_stack = gtk_stack_new ();
  gtk_widget_set_vexpand (self->main_stack, TRUE);

  self->recorder = sysprof_recorder_page_new ();
  /* The page outlives the window while a stopped recording finishes. */
  g_signal_connect_object (self->recorder, "finished", G_CALLBACK (on_recording_finished), self, 0);
  gtk_stack_add_named (GTK_STACK (self->main_stack), self->recorder, "recorder");

  self->loading_page = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (self->loading_page), "document-open-symbolic");
  self->loading_bar = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->loading_bar), TRUE);
  gtk_widget_set_size_request (self->loading_bar, 360, -1);
  gtk_widget_set_halign (self->loading_bar, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (loading_box), self->loading_bar);
  adw_status_page_set_child (ADW_STATUS_PAGE (self->loading_page), loading_box);
  gtk_stack_add_named (GTK_STACK (self->main_stack), self->loading_page, "loading");

  self->error_page = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (self->error_page), "dialog-error-symbolic");
  gtk_stack_add_named (GTK_STACK (self->main_stack), self->error_page, "error");

  self->capture_box = build_capture_page (self);
  gtk_stack_add_named (GTK_STACK (self->main_stack), self->capture_box, "capture");
  gtk_stack_set_visible_child_name (GTK_STACK (self->main_stack), "recorder");

  self->toasts = adw_toast_overlay_new ();
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (self->toasts), self->main_stack);
  gtk_box_append (GTK_BOX (content), self->toasts);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), content);

  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  g_signal_connect (self, "close-request", G_CALLBACK (close_request_cb), NULL);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-as", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timeline.zoom-in", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timeline.zoom-out", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timeline.zoom-reset", FALSE);
}

SysprofWindow *
sysprof_window_new (GtkApplication *application)
{
  return g_object_new (SYSPROF_TYPE_WINDOW, "application", application, NULL);
}
