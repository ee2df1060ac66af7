// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-function-filter.h"

/* The function the menu was opened on, kept on the view. */
#define MENU_FUNCTION_KEY "sysprof-menu-function"

static void
update_bar (SysprofDocument *document, GtkWidget *bar)
{
  const char *const *focused = sysprof_document_get_focused_functions (document);
  const char *const *hidden = sysprof_document_get_hidden_functions (document);
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *focused_text = g_strjoinv (", ", (char **) focused);
  g_autofree char *hidden_text = g_strjoinv (", ", (char **) hidden);

  if (focused[0] != NULL)
    g_string_append_printf (text, "Focused on %s", focused_text);
  if (hidden[0] != NULL)
    g_string_append_printf (text, "%sHidden: %s", text->len > 0 ? " · " : "", hidden_text);
  gtk_label_set_text (GTK_LABEL (gtk_widget_get_first_child (bar)), text->str);
  gtk_widget_set_visible (bar, text->len > 0);
}

GtkWidget *
sysprof_function_filter_bar_new (SysprofDocument *document)
{
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *reset = gtk_button_new_with_label ("Reset");

  /* Says that the views do not show every sample as they are, and how to
   * undo it. */
  gtk_widget_add_css_class (bar, "toolbar");
  gtk_widget_add_css_class (bar, "card");
  gtk_widget_set_margin_start (bar, 12);
  gtk_widget_set_margin_end (bar, 12);
  gtk_widget_set_margin_bottom (bar, 6);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (bar), label);
  gtk_box_append (GTK_BOX (bar), reset);
  g_signal_connect_object (reset, "clicked", G_CALLBACK (sysprof_document_reset_functions), document,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (document, "filter-changed", G_CALLBACK (update_bar), bar, 0);
  update_bar (document, bar);
  return bar;
}

static void
filter_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (widget));
  const char      *name = g_object_get_data (G_OBJECT (widget), MENU_FUNCTION_KEY);

  (void) parameter;
  if (g_str_has_suffix (action_name, ".reset"))
    sysprof_document_reset_functions (document);
  else if (name != NULL && g_str_has_suffix (action_name, ".focus"))
    sysprof_document_focus_function (document, name);
  else if (name != NULL && g_str_has_suffix (action_name, ".hide"))
    sysprof_document_hide_function (document, name);
}

void
sysprof_function_filter_install_actions (GtkWidgetClass *widget_class, const char *prefix)
{
  static const char *const suffixes[] = { "focus", "hide", "reset" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s.%s", prefix, suffixes[i]);

      /* Interned: valid for the class's life whether GTK copies it or not. */
      gtk_widget_class_install_action (widget_class, g_intern_string (name), NULL, filter_action);
    }
}

/* Menu labels treat "_" as a mnemonic marker; function names are full of
 * them. */
static char *
escape_underlines (const char *name)
{
  g_auto (GStrv) parts = g_strsplit (name, "_", -1);

  return g_strjoinv ("__", parts);
}

void
sysprof_function_filter_popup (SysprofView        *view,
                               GtkPopoverMenu     *menu,
                               const char         *prefix,
                               const char         *name,
                               gboolean            is_code,
                               const GdkRectangle *rect)
{
  SysprofDocument *document = sysprof_view_get_document (view);
  g_autoptr (GMenu) model = g_menu_new ();
  g_autoptr (GMenu) reset_section = g_menu_new ();
  g_autofree char *escaped = escape_underlines (name);
  g_autofree char *focus_label = g_strdup_printf ("Focus on %s", escaped);
  g_autofree char *hide_label = g_strdup_printf ("Hide %s", escaped);
  g_autofree char *focus = g_strdup_printf ("%s.focus", prefix);
  g_autofree char *hide = g_strdup_printf ("%s.hide", prefix);
  g_autofree char *reset = g_strdup_printf ("%s.reset", prefix);

  g_object_set_data_full (G_OBJECT (view), MENU_FUNCTION_KEY, g_strdup (name), g_free);
  gtk_widget_action_set_enabled (GTK_WIDGET (view), focus, is_code);
  gtk_widget_action_set_enabled (GTK_WIDGET (view), hide, is_code);
  gtk_widget_action_set_enabled (GTK_WIDGET (view), reset,
                                 sysprof_document_get_focused_functions (document)[0] != NULL ||
                                     sysprof_document_get_hidden_functions (document)[0] != NULL);

  g_menu_append (model, focus_label, focus);
  g_menu_append (model, hide_label, hide);
  g_menu_append (reset_section, "Reset focus and hidden functions", reset);
  g_menu_append_section (model, NULL, G_MENU_MODEL (reset_section));
  gtk_popover_menu_set_menu_model (menu, G_MENU_MODEL (model));
  gtk_popover_set_pointing_to (GTK_POPOVER (menu), rect);
  gtk_popover_popup (GTK_POPOVER (menu));
}
