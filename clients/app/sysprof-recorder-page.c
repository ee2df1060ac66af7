// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "sysprof-recorder-page.h"

struct _SysprofRecorderPage
{
  GtkWidget parent_instance;

  GtkWidget *stack;

  /* Configuration. */
  GtkWidget *mode_system;
  GtkWidget *mode_command;
  GtkWidget *command_entry;
  GtkWidget *directory_entry;
  GtkWidget *env_entry;
  GtkWidget *cpu_switch;
  GtkWidget *frequency_spin;
  GtkWidget *unwind_switch; /* on: DWARF unwinding; off: frame pointers */
  GtkWidget *stack_size_spin;
  GtkWidget *memory_switch;
  GtkWidget *children_switch;
  GtkWidget *trace_fd_switch;
  GtkWidget *gjs_switch;
  GtkWidget *shell_switch;
  GtkWidget *scheduler_switch;
  GtkWidget *session_bus_switch;
  GtkWidget *system_bus_switch;
  GtkWidget *duration_spin;
  GtkWidget *counter_switches[4];
  GtkWidget *record_button;
  GtkWidget *error_label;

  /* Recording. */
  GtkWidget *elapsed_label;
  GtkWidget *status_label;
  GtkWidget *samples_label;
  GtkWidget *allocations_label;
  GtkWidget *size_label;
  GtkWidget *lost_label;
  GtkWidget *stop_button;

  SysprofRecording *recording;
  GFile            *capture;
  guint             tick;
  char             *error;
};

G_DEFINE_FINAL_TYPE (SysprofRecorderPage, sysprof_recorder_page, GTK_TYPE_WIDGET)

enum
{
  FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *const counter_names[4] = { "cpu", "memory", "disk", "network" };
static const char *const counter_titles[4] = { "CPU usage", "Memory usage", "Disk I/O", "Network I/O" };

SysprofRecording *
sysprof_recorder_page_get_recording (SysprofRecorderPage *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDER_PAGE (self), NULL);
  return self->recording;
}

const char *
sysprof_recorder_page_get_error (SysprofRecorderPage *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDER_PAGE (self), NULL);
  return self->error;
}

static void
show_error (SysprofRecorderPage *self, const char *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_text (GTK_LABEL (self->error_label), message ? message : "");
  gtk_widget_set_visible (self->error_label, message != NULL);
}

static void
update_sensitivity (SysprofRecorderPage *self)
{
  gboolean command = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->mode_command));

  gtk_widget_set_sensitive (self->command_entry, command);
  gtk_widget_set_sensitive (self->directory_entry, command);
  gtk_widget_set_sensitive (self->env_entry, command);
  gtk_widget_set_sensitive (self->memory_switch, command);
  gtk_widget_set_sensitive (self->children_switch, command && gtk_switch_get_active (GTK_SWITCH (self->memory_switch)));
  gtk_widget_set_sensitive (self->trace_fd_switch, command);
  gtk_widget_set_sensitive (self->gjs_switch, command);
  gtk_widget_set_sensitive (self->frequency_spin, gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)));
  gtk_widget_set_sensitive (self->unwind_switch, gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)));
  /* Switches are recorded with the samples. */
  gtk_widget_set_sensitive (self->scheduler_switch, gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)));
  gtk_widget_set_sensitive (self->stack_size_spin, gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)) &&
                                                       gtk_switch_get_active (GTK_SWITCH (self->unwind_switch)));
}

static char *
format_elapsed (gint64 usec)
{
  gint64 tenths = usec / 100000;

  return g_strdup_printf ("%02d:%02d.%d", (int) (tenths / 600), (int) (tenths / 10 % 60), (int) (tenths % 10));
}

static const char *
phase_text (SysprofRecording *recording)
{
  switch (sysprof_recording_get_phase (recording))
    {
    case SYSPROF_RECORDING_PHASE_IDLE:
    case SYSPROF_RECORDING_PHASE_STARTING: return "Starting (sysprofd may ask for your authorization)…";
    case SYSPROF_RECORDING_PHASE_RECORDING:
      return sysprof_recording_get_mode (recording) == SYSPROF_RECORDING_MODE_DAEMON
                 ? "Recording through sysprofd"
                 : "Recording in this process (root, no sysprofd)";
    case SYSPROF_RECORDING_PHASE_STOPPING: return "Finishing the capture…";
    case SYSPROF_RECORDING_PHASE_DECODING: return "Adding the symbol table…";
    case SYSPROF_RECORDING_PHASE_FINISHED:
    default: return "Done";
    }
}

static void
update_stats (SysprofRecorderPage *self)
{
  g_autofree char *elapsed = NULL;
  g_autofree char *samples = NULL;
  g_autofree char *allocations = NULL;
  g_autofree char *size = NULL;
  g_autofree char *lost = NULL;

  if (self->recording == NULL)
    return;
  elapsed = format_elapsed (sysprof_recording_get_elapsed (self->recording));
  samples = g_strdup_printf ("%" G_GUINT64_FORMAT, sysprof_recording_get_n_samples (self->recording));
  allocations = g_strdup_printf ("%" G_GUINT64_FORMAT, sysprof_recording_get_n_allocation_records (self->recording));
  size = g_format_size (sysprof_recording_get_n_bytes (self->recording));
  lost = g_strdup_printf ("%" G_GUINT64_FORMAT, sysprof_recording_get_n_lost (self->recording));
  gtk_label_set_text (GTK_LABEL (self->elapsed_label), elapsed);
  gtk_label_set_text (GTK_LABEL (self->samples_label), samples);
  gtk_label_set_text (GTK_LABEL (self->allocations_label), allocations);
  gtk_label_set_text (GTK_LABEL (self->size_label), size);
  gtk_label_set_text (GTK_LABEL (self->lost_label), lost);
  if (sysprof_recording_get_n_lost (self->recording) > 0)
    gtk_widget_add_css_class (self->lost_label, "error");
  gtk_label_set_text (GTK_LABEL (self->status_label), phase_text (self->recording));
}

static gboolean
tick_cb (gpointer user_data)
{
  update_stats (user_data);
  return G_SOURCE_CONTINUE;
}

static void
record_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SysprofRecorderPage) self = user_data;
  g_autoptr (SysprofRecording) recording = SYSPROF_RECORDING (object);
  g_autoptr (GFile) capture = g_steal_pointer (&self->capture);
  g_autoptr (GError) error = NULL;
  gboolean ok = sysprof_recording_record_finish (recording, result, &error);

  update_stats (self);
  g_clear_handle_id (&self->tick, g_source_remove);
  self->recording = NULL;
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "setup");

  if (!ok)
    {
      g_autofree char *message = NULL;
      g_autofree char *path = g_file_get_path (capture);

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
        message = g_strdup_printf ("Recording was refused: %s. Ask an administrator to allow the polkit action "
                                   "org.gnome.sysprof3.profile for your account, or record as root.",
                                   error->message);
      else
        message = g_strdup_printf ("Recording failed: %s", error->message);
      show_error (self, message);
      /* Nothing was recorded when the start failed: no empty file left. */
      if (path != NULL && sysprof_recording_get_n_bytes (recording) == 0)
        g_unlink (path);
      return;
    }
  g_signal_emit (self, signals[FINISHED], 0, capture, TRUE);
}

static char *
new_capture_path (GError **error)
{
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "sysprof", NULL);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *path = NULL;
  int              fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create %s: %s", dir, g_strerror (saved));
      return NULL;
    }
  path = g_strdup_printf ("%s/recording-%s-XXXXXX.syscap", dir, stamp);
  /* The name is reserved by creating the file; the recording truncates it. */
  fd = g_mkstemp_full (path, O_RDWR, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create a capture file in %s: %s", dir,
                   g_strerror (saved));
      return NULL;
    }
  close (fd);
  return g_steal_pointer (&path);
}

static gboolean
configure (SysprofRecorderPage *self, SysprofRecording *recording, GError **error)
{
  gboolean command = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->mode_command));
  gboolean memory = command && gtk_switch_get_active (GTK_SWITCH (self->memory_switch));
  g_autoptr (GPtrArray) counters = g_ptr_array_new ();
  guint duration = (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->duration_spin));

  if (command)
    {
      const char *line = gtk_editable_get_text (GTK_EDITABLE (self->command_entry));
      const char *directory = gtk_editable_get_text (GTK_EDITABLE (self->directory_entry));
      const char *env_line = gtk_editable_get_text (GTK_EDITABLE (self->env_entry));
      g_auto (GStrv) argv = NULL;
      g_auto (GStrv) env = NULL;
      g_autoptr (GError) parse_error = NULL;
      g_autofree char *stripped = g_strstrip (g_strdup (line));

      if (stripped[0] == '\0')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Type the command to launch");
          return FALSE;
        }
      if (!g_shell_parse_argv (line, NULL, &argv, &parse_error))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "The command line cannot be split: %s",
                       parse_error->message);
          return FALSE;
        }
      sysprof_recording_set_command (recording, (const char *const *) argv);
      if (*directory != '\0')
        sysprof_recording_set_working_directory (recording, directory);
      if (*env_line != '\0')
        {
          if (!g_shell_parse_argv (env_line, NULL, &env, &parse_error))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "The environment cannot be split: %s",
                           parse_error->message);
              return FALSE;
            }
          for (guint i = 0; env[i] != NULL; i++)
            {
              const char      *eq = strchr (env[i], '=');
              g_autofree char *name = NULL;

              if (eq == NULL || eq == env[i])
                {
                  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               "Environment entry “%s” is not VARIABLE=VALUE", env[i]);
                  return FALSE;
                }
              name = g_strndup (env[i], (gsize) (eq - env[i]));
              sysprof_recording_setenv (recording, name, eq + 1);
            }
        }
      sysprof_recording_set_memory_tracing (recording, memory);
      sysprof_recording_set_follow_children (recording,
                                             memory && gtk_switch_get_active (GTK_SWITCH (self->children_switch)));
      sysprof_recording_set_trace_fd (recording, gtk_switch_get_active (GTK_SWITCH (self->trace_fd_switch)));
      sysprof_recording_set_gjs (recording, gtk_switch_get_active (GTK_SWITCH (self->gjs_switch)));
    }
  if (gtk_switch_get_active (GTK_SWITCH (self->shell_switch)))
    sysprof_recording_add_profiler_peer (recording, "org.gnome.Shell", "/org/gnome/Sysprof3/Profiler");
  sysprof_recording_set_scheduler (recording, gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)) &&
                                                  gtk_switch_get_active (GTK_SWITCH (self->scheduler_switch)));
  sysprof_recording_set_session_bus (recording, gtk_switch_get_active (GTK_SWITCH (self->session_bus_switch)));
  sysprof_recording_set_system_bus (recording, gtk_switch_get_active (GTK_SWITCH (self->system_bus_switch)));

  sysprof_recording_set_cpu_sampling (recording, gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)));
  sysprof_recording_set_frequency (recording,
                                   (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->frequency_spin)));
  if (gtk_switch_get_active (GTK_SWITCH (self->unwind_switch)))
    {
      /* perf wants a multiple of 8. */
      guint stack_size = (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->stack_size_spin)) & ~7u;

      sysprof_recording_set_unwind (recording, SYSPROF_PERF_UNWIND_DWARF);
      sysprof_recording_set_stack_size (recording, MAX (stack_size, 8u));
    }
  else
    sysprof_recording_set_unwind (recording, SYSPROF_PERF_UNWIND_FRAME_POINTERS);
  for (guint i = 0; i < G_N_ELEMENTS (counter_names); i++)
    if (gtk_switch_get_active (GTK_SWITCH (self->counter_switches[i])))
      g_ptr_array_add (counters, (gpointer) counter_names[i]);
  g_ptr_array_add (counters, NULL);
  sysprof_recording_set_counters (recording, (const char *const *) counters->pdata);
  if (duration > 0)
    sysprof_recording_set_max_duration (recording, duration);
  if (!gtk_switch_get_active (GTK_SWITCH (self->cpu_switch)) && counters->len == 1 && !memory)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Nothing to record: turn on CPU samples, memory allocations or a counter");
      return FALSE;
    }
  return TRUE;
}

static void
record_clicked (SysprofRecorderPage *self)
{
  g_autoptr (SysprofRecording) recording = sysprof_recording_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  if (self->recording != NULL)
    return;
  show_error (self, NULL);
  if (!configure (self, recording, &error) || !(path = new_capture_path (&error)))
    {
      show_error (self, error->message);
      return;
    }
  sysprof_recording_set_capture_path (recording, path, TRUE);
  self->capture = g_file_new_for_path (path);
  self->recording = recording;
  gtk_label_set_text (GTK_LABEL (self->elapsed_label), "00:00.0");
  gtk_widget_remove_css_class (self->lost_label, "error");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "recording");
  g_signal_connect_swapped (recording, "progress", G_CALLBACK (update_stats), self);
  g_signal_connect_swapped (recording, "phase-changed", G_CALLBACK (update_stats), self);
  self->tick = g_timeout_add (100, tick_cb, self);
  sysprof_recording_record_async (g_steal_pointer (&recording), record_cb, g_object_ref (self));
  update_stats (self);
}

static void
stop_clicked (SysprofRecorderPage *self)
{
  if (self->recording != NULL)
    sysprof_recording_stop (self->recording);
}

/* ------------------------------------------------------------------------ */

static GtkWidget *
switch_row (const char *title, const char *subtitle, const char *name, gboolean active, GtkWidget **out)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *sw = gtk_switch_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_switch_set_active (GTK_SWITCH (sw), active);
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  if (name != NULL)
    gtk_widget_set_name (sw, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (sw), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  *out = sw;
  return row;
}

static GtkWidget *
spin_row (const char *title, const char *subtitle, double min, double max, double value, GtkWidget **out)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (min, max, 1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  *out = spin;
  return row;
}

static GtkWidget *
entry_row (const char *title, const char *name, GtkWidget **out)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_set_name (row, name);
  *out = row;
  return row;
}

static GtkWidget *
build_setup (SysprofRecorderPage *self)
{
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *group;
  GtkWidget *row;
  GtkWidget *box;

  adw_preferences_page_set_title (ADW_PREFERENCES_PAGE (page), "New Recording");

  group = adw_preferences_group_new ();
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  self->error_label = gtk_label_new ("");
  gtk_widget_set_name (self->error_label, "error-label");
  gtk_label_set_wrap (GTK_LABEL (self->error_label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->error_label), TRUE);
  gtk_widget_add_css_class (self->error_label, "error");
  gtk_widget_set_visible (self->error_label, FALSE);
  self->record_button = gtk_button_new_with_mnemonic ("_Record");
  gtk_widget_set_name (self->record_button, "record-button");
  gtk_widget_add_css_class (self->record_button, "suggested-action");
  gtk_widget_add_css_class (self->record_button, "pill");
  gtk_widget_set_halign (self->record_button, GTK_ALIGN_CENTER);
  g_signal_connect_swapped (self->record_button, "clicked", G_CALLBACK (record_clicked), self);
  gtk_box_append (GTK_BOX (box), self->error_label);
  gtk_box_append (GTK_BOX (box), self->record_button);
  /* At the top: the button and why the last attempt failed stay in view
   * without scrolling. */
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), box);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "What to profile");
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         "Recording goes through sysprofd; polkit may ask for your password.");

  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "The whole system");
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "Every process, until you press Stop");
  self->mode_system = gtk_check_button_new ();
  gtk_widget_set_name (self->mode_system, "mode-system");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->mode_system), TRUE);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), self->mode_system);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), self->mode_system);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "A command to launch");
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "Recording stops when it exits, or when you press Stop");
  self->mode_command = gtk_check_button_new ();
  gtk_widget_set_name (self->mode_command, "mode-command");
  gtk_check_button_set_group (GTK_CHECK_BUTTON (self->mode_command), GTK_CHECK_BUTTON (self->mode_system));
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), self->mode_command);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), self->mode_command);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), entry_row ("Command line (split as a shell would)",
                                                                       "command-entry", &self->command_entry));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), entry_row ("Working directory (default: the current one)",
                                                                       "directory-entry", &self->directory_entry));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             entry_row ("Environment: VARIABLE=VALUE …", "env-entry", &self->env_entry));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "What to record");
  adw_preferences_group_add (
      ADW_PREFERENCES_GROUP (group),
      switch_row ("CPU samples", "Stacks sampled with perf (cpu-clock)", "cpu-switch", TRUE, &self->cpu_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), spin_row ("Frequency", "Samples per second and CPU", 1,
                                                                      10000, 997, &self->frequency_spin));
  adw_preferences_group_add (
      ADW_PREFERENCES_GROUP (group),
      switch_row ("Unwind stacks with DWARF",
                  "Follows code built without frame pointers (most of a distribution); off: frame pointers, cheaper",
                  "unwind-switch", TRUE, &self->unwind_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             spin_row ("Stack copied per sample", "Bytes; a deeper stack is cut there", 8, 65528, 8192,
                                       &self->stack_size_spin));
  gtk_spin_button_set_increments (GTK_SPIN_BUTTON (self->stack_size_spin), 1024, 8192);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("Scheduler details",
                                         "Every context switch with the stack of the thread leaving the CPU: where "
                                         "threads wait (off-CPU time)",
                                         "scheduler-switch", FALSE, &self->scheduler_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("Memory allocations",
                                         "Every malloc and free of the command, with its stack (needs a command)",
                                         "memory-switch", FALSE, &self->memory_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("Allocations of its children too", "Processes the command starts",
                                         "children-switch", FALSE, &self->children_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("Its own capture",
                                         "The command writes one into $SYSPROF_TRACE_FD, merged at the end (needs a "
                                         "command)",
                                         "trace-fd-switch", FALSE, &self->trace_fd_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("JavaScript stacks (GJS)",
                                         "A GJS built with its profiler writes them into $GJS_TRACE_FD (needs a "
                                         "command)",
                                         "gjs-switch", FALSE, &self->gjs_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("GNOME Shell",
                                         "Its own capture (compositor frames), asked through its Profiler interface "
                                         "on the session bus",
                                         "shell-switch", FALSE, &self->shell_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("Session bus messages", "Every D-Bus message on your session bus",
                                         "session-bus-switch", FALSE, &self->session_bus_switch));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             switch_row ("System bus messages",
                                         "Every D-Bus message on the system bus, through sysprofd (needs the grant "
                                         "of the whole machine)",
                                         "system-bus-switch", FALSE, &self->system_bus_switch));
  for (guint i = 0; i < G_N_ELEMENTS (counter_names); i++)
    {
      g_autofree char *name = g_strdup_printf ("counter-%s-switch", counter_names[i]);

      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                                 switch_row (counter_titles[i], "A counter sampled during the recording", name, TRUE,
                                             &self->counter_switches[i]));
    }
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                             spin_row ("Stop after", "Seconds; 0: when stopped (or when the command exits)", 0, 86400,
                                       0, &self->duration_spin));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  g_signal_connect_swapped (self->mode_command, "toggled", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->cpu_switch, "notify::active", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->unwind_switch, "notify::active", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->memory_switch, "notify::active", G_CALLBACK (update_sensitivity), self);
  update_sensitivity (self);
  return page;
}

static GtkWidget *
stat_label (GtkWidget *grid, int row, const char *title, const char *name)
{
  GtkWidget *key = gtk_label_new (title);
  GtkWidget *value = gtk_label_new ("0");

  gtk_widget_add_css_class (key, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (key), 1);
  gtk_label_set_xalign (GTK_LABEL (value), 0);
  gtk_widget_add_css_class (value, "numeric");
  gtk_widget_set_name (value, name);
  gtk_grid_attach (GTK_GRID (grid), key, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), value, 1, row, 1, 1);
  return value;
}

static GtkWidget *
build_recording (SysprofRecorderPage *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  GtkWidget *grid = gtk_grid_new ();

  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);

  self->elapsed_label = gtk_label_new ("00:00.0");
  gtk_widget_set_name (self->elapsed_label, "elapsed-label");
  gtk_widget_add_css_class (self->elapsed_label, "title-1");
  gtk_widget_add_css_class (self->elapsed_label, "numeric");
  gtk_box_append (GTK_BOX (box), self->elapsed_label);

  self->status_label = gtk_label_new ("");
  gtk_widget_set_name (self->status_label, "status-label");
  gtk_widget_add_css_class (self->status_label, "dim-label");
  gtk_box_append (GTK_BOX (box), self->status_label);

  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_widget_set_halign (grid, GTK_ALIGN_CENTER);
  self->samples_label = stat_label (grid, 0, "Samples", "samples-label");
  self->allocations_label = stat_label (grid, 1, "Allocation records", "allocations-label");
  self->size_label = stat_label (grid, 2, "Capture size", "size-label");
  self->lost_label = stat_label (grid, 3, "Lost events", "lost-label");
  gtk_box_append (GTK_BOX (box), grid);

  self->stop_button = gtk_button_new_with_mnemonic ("_Stop");
  gtk_widget_set_name (self->stop_button, "stop-button");
  gtk_widget_add_css_class (self->stop_button, "destructive-action");
  gtk_widget_add_css_class (self->stop_button, "pill");
  gtk_widget_set_halign (self->stop_button, GTK_ALIGN_CENTER);
  g_signal_connect_swapped (self->stop_button, "clicked", G_CALLBACK (stop_clicked), self);
  gtk_box_append (GTK_BOX (box), self->stop_button);
  return box;
}

GtkWidget *
sysprof_recorder_page_new (void)
{
  return g_object_new (SYSPROF_TYPE_RECORDER_PAGE, NULL);
}

static void
sysprof_recorder_page_dispose (GObject *object)
{
  SysprofRecorderPage *self = SYSPROF_RECORDER_PAGE (object);

  g_clear_handle_id (&self->tick, g_source_remove);
  /* The recording's callback holds the page; stopping lets it finish. */
  if (self->recording != NULL)
    sysprof_recording_stop (self->recording);
  g_clear_pointer (&self->stack, gtk_widget_unparent);
  G_OBJECT_CLASS (sysprof_recorder_page_parent_class)->dispose (object);
}

static void
sysprof_recorder_page_finalize (GObject *object)
{
  SysprofRecorderPage *self = SYSPROF_RECORDER_PAGE (object);

  g_clear_object (&self->capture);
  g_free (self->error);
  G_OBJECT_CLASS (sysprof_recorder_page_parent_class)->finalize (object);
}

static void
sysprof_recorder_page_class_init (SysprofRecorderPageClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_recorder_page_dispose;
  object_class->finalize = sysprof_recorder_page_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);

  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 2, G_TYPE_FILE, G_TYPE_BOOLEAN);
}

static void
sysprof_recorder_page_init (SysprofRecorderPage *self)
{
  self->stack = gtk_stack_new ();
  gtk_stack_add_named (GTK_STACK (self->stack), build_setup (self), "setup");
  gtk_stack_add_named (GTK_STACK (self->stack), build_recording (self), "recording");
  gtk_widget_set_parent (self->stack, GTK_WIDGET (self));
}
