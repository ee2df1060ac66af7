// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdio.h>

#include "sysprof-application.h"
#include "sysprof-window.h"

struct _SysprofApplication
{
  AdwApplication parent_instance;

  /* --compare BEFORE: the window of AFTER compares it with this. */
  GFile *compare;
  int    exit_status;
};

G_DEFINE_FINAL_TYPE (SysprofApplication, sysprof_application, ADW_TYPE_APPLICATION)

static void
usage_error (SysprofApplication *self, const char *message)
{
  g_printerr ("sysprof: %s\nTry “sysprof --help”.\n", message);
  self->exit_status = 2;
}

static void
sysprof_application_activate (GApplication *application)
{
  SysprofWindow *window;

  if (SYSPROF_APPLICATION (application)->compare != NULL)
    {
      usage_error (SYSPROF_APPLICATION (application), "--compare BEFORE needs the capture AFTER to compare with it");
      return;
    }
  window = sysprof_window_new (GTK_APPLICATION (application));

  sysprof_window_show_recorder (window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
sysprof_application_open (GApplication *application, GFile **files, int n_files, const char *hint)
{
  SysprofApplication *self = SYSPROF_APPLICATION (application);

  (void) hint;
  if (self->compare != NULL)
    {
      SysprofWindow *window;

      if (n_files != 1)
        {
          usage_error (self, "--compare BEFORE takes one capture AFTER");
          return;
        }
      window = sysprof_window_new (GTK_APPLICATION (application));
      sysprof_window_open (window, files[0], FALSE);
      sysprof_window_compare (window, self->compare);
      gtk_window_present (GTK_WINDOW (window));
      return;
    }
  for (int i = 0; i < n_files; i++)
    {
      SysprofWindow *window = sysprof_window_new (GTK_APPLICATION (application));

      sysprof_window_open (window, files[i], FALSE);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static int
sysprof_application_handle_local_options (GApplication *application, GVariantDict *options)
{
  SysprofApplication *self = SYSPROF_APPLICATION (application);
  const char         *compare = NULL;

  if (g_variant_dict_contains (options, "version"))
    {
      printf ("sysprof %s\n", SYSPROF_PROJECT_VERSION);
      return 0;
    }
  if (g_variant_dict_lookup (options, "compare", "^&ay", &compare))
    {
      g_clear_object (&self->compare);
      self->compare = g_file_new_for_commandline_arg (compare);
    }
  return -1;
}

static void
about_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *application = user_data;
  GtkWidget      *about;

  (void) action;
  (void) parameter;
  about = adw_about_window_new ();
  adw_about_window_set_application_name (ADW_ABOUT_WINDOW (about), "Sysprof");
  adw_about_window_set_application_icon (ADW_ABOUT_WINDOW (about), "org.gnome.Sysprof");
  adw_about_window_set_version (ADW_ABOUT_WINDOW (about), SYSPROF_PROJECT_VERSION);
  adw_about_window_set_comments (ADW_ABOUT_WINDOW (about),
                                 "A system-wide profiler: CPU samples, memory allocations, counters, marks and logs, "
                                 "recorded through sysprofd without root.");
  adw_about_window_set_license_type (ADW_ABOUT_WINDOW (about), GTK_LICENSE_GPL_3_0);
  gtk_window_set_transient_for (GTK_WINDOW (about), gtk_application_get_active_window (application));
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  (void) action;
  (void) parameter;
  g_application_quit (user_data);
}

static void
sysprof_application_startup (GApplication *application)
{
  static const GActionEntry actions[] = {
    { .name = "about", .activate = about_action },
    { .name = "quit", .activate = quit_action },
  };
  const char *const quit_accels[] = { "<Control>q", NULL };

  G_APPLICATION_CLASS (sysprof_application_parent_class)->startup (application);
  g_action_map_add_action_entries (G_ACTION_MAP (application), actions, G_N_ELEMENTS (actions), application);
  gtk_application_set_accels_for_action (GTK_APPLICATION (application), "app.quit", quit_accels);
}

static void
sysprof_application_finalize (GObject *object)
{
  g_clear_object (&SYSPROF_APPLICATION (object)->compare);
  G_OBJECT_CLASS (sysprof_application_parent_class)->finalize (object);
}

static void
sysprof_application_class_init (SysprofApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = sysprof_application_finalize;
  app_class->activate = sysprof_application_activate;
  app_class->open = sysprof_application_open;
  app_class->handle_local_options = sysprof_application_handle_local_options;
  app_class->startup = sysprof_application_startup;
}

static void
sysprof_application_init (SysprofApplication *self)
{
  static const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, "Print the version and exit", NULL },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Open AFTER (the one CAPTURE) compared with BEFORE: its function shares and differential flame graph", "BEFORE" },
    { NULL },
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), "[CAPTURE…]");
  g_application_set_option_context_summary (
      G_APPLICATION (self), "Record and browse Sysprof captures (.syscap): with no CAPTURE, the recorder opens.");
  g_application_set_option_context_description (
      G_APPLICATION (self),
      "Each CAPTURE opens in a window of its own, showing the views the capture has data for: CPU samples,\n"
      "callgraph, flame graph, memory, counters, marks, logs, processes, embedded files and details.\n"
      "Captures of this project and of GNOME Sysprof 3.46 and later are read.  Recording goes through\n"
      "sysprofd on the system bus (polkit authorizes it), or runs in the app as root without it.\n"
      "\n"
      "Examples:\n"
      "  sysprof                        the recorder\n"
      "  sysprof capture.syscap         browse a capture\n"
      "  sysprof a.syscap b.syscap      two windows\n"
      "  sysprof --compare before.syscap after.syscap\n"
      "                                 after.syscap with a comparison view: each function's share of\n"
      "                                 the samples before and after, and a differential flame graph\n"
      "\n"
      "Exit status: 0, or 2 on a usage error.  A capture that cannot be opened is told in its window.\n");
}

int
sysprof_application_get_exit_status (SysprofApplication *self)
{
  g_return_val_if_fail (SYSPROF_IS_APPLICATION (self), 1);
  return self->exit_status;
}

SysprofApplication *
sysprof_application_new (void)
{
  /* Not unique: every invocation is its own process, so a profiler of the
   * app itself and tests need no session bus. */
  return g_object_new (SYSPROF_TYPE_APPLICATION, "application-id", "org.sysprof.Sysprof", "flags",
                       G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);
}
