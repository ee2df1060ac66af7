// SPDX-License-Identifier: GPL-3.0-or-later
/* A profiler peer, as gnome-shell is one: it owns BUS_NAME on the session
 * bus and exports org.gnome.Sysprof3.Profiler at /org/gnome/Sysprof3/Profiler
 * (Capabilities; Start (a{sv} options, h fd); Stop).  On Start it writes a
 * capture into the descriptor: MARKS marks (group "peer-test", name
 * "frame", 1000 ns) at once and as many again on Stop, then closes it.
 * It prints "ready" once it owns the name and exits on SIGTERM.
 *
 * Usage: profiler-peer BUS_NAME good|silent|refuse|garbage [MARKS]
 *   silent   never answers Start
 *   refuse   answers Start with an error (already running)
 *   garbage  writes bytes that are not a capture */
#include <glib-unix.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sysprof-capture.h>

static const char introspection[] = "<node><interface name='org.gnome.Sysprof3.Profiler'>"
                                    "<property name='Capabilities' type='a{sv}' access='read'/>"
                                    "<method name='Start'><arg type='a{sv}' name='options' direction='in'/>"
                                    "<arg type='h' name='fd' direction='in'/></method>"
                                    "<method name='Stop'/>"
                                    "</interface></node>";

static const char            *mode;
static long                   n_marks = 10;
static SysprofCaptureWriter  *writer;
static int                    out_fd = -1;
static GDBusMethodInvocation *held; /* silent: Start never answered */

static void
write_marks (void)
{
  for (long i = 0; i < n_marks; i++)
    sysprof_capture_writer_add_mark (writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, getpid (), 1000, "peer-test", "frame",
                                     "a frame");
  sysprof_capture_writer_flush (writer);
}

static void
method_call (GDBusConnection       *connection,
             const char            *sender,
             const char            *path,
             const char            *interface,
             const char            *method,
             GVariant              *parameters,
             GDBusMethodInvocation *invocation,
             gpointer               data)
{
  (void) connection, (void) sender, (void) path, (void) interface, (void) data;

  if (strcmp (method, "Start") == 0)
    {
      GUnixFDList *fds = g_dbus_message_get_unix_fd_list (g_dbus_method_invocation_get_message (invocation));
      gint32       handle;

      if (strcmp (mode, "silent") == 0)
        {
          held = g_object_ref (invocation);
          return;
        }
      if (strcmp (mode, "refuse") == 0 || writer != NULL || out_fd >= 0)
        {
          g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.Failed",
                                                      "the profiler is already running");
          return;
        }
      g_variant_get (parameters, "(@a{sv}h)", NULL, &handle);
      if (fds == NULL || (out_fd = g_unix_fd_list_get (fds, handle, NULL)) < 0)
        {
          g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.InvalidArgs", "no fd");
          return;
        }
      if (strcmp (mode, "good") == 0)
        {
          writer = sysprof_capture_writer_new_from_fd (out_fd, 0);
          out_fd = -1;
          write_marks ();
        }
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
  else if (strcmp (method, "Stop") == 0)
    {
      if (writer != NULL)
        {
          write_marks ();
          g_clear_pointer (&writer, sysprof_capture_writer_unref);
        }
      else if (out_fd >= 0)
        {
          static const char junk[] = "garbage, not a capture header at all, and then some more of it";

          if (write (out_fd, junk, sizeof junk) != sizeof junk)
            perror ("profiler-peer: write");
          close (out_fd);
          out_fd = -1;
        }
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
}

static GVariant *
get_property (GDBusConnection *connection,
              const char      *sender,
              const char      *path,
              const char      *interface,
              const char      *property,
              GError         **error,
              gpointer         data)
{
  (void) connection, (void) sender, (void) path, (void) interface, (void) property, (void) error, (void) data;
  return g_variant_new ("a{sv}", NULL);
}

static const GDBusInterfaceVTable vtable = { method_call, get_property, NULL, { 0 } };

static void
name_acquired (GDBusConnection *connection, const char *name, gpointer data)
{
  (void) connection, (void) name, (void) data;
  printf ("ready\n");
  fflush (stdout);
}

static void
name_lost (GDBusConnection *connection, const char *name, gpointer data)
{
  (void) connection, (void) data;
  fprintf (stderr, "profiler-peer: could not own %s\n", name);
  g_main_loop_quit (data);
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GDBusNodeInfo) info = NULL;
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (GError) error = NULL;
  GMainLoop *loop;

  if (argc < 3)
    {
      fprintf (stderr, "usage: profiler-peer BUS_NAME good|silent|refuse|garbage [MARKS]\n");
      return 2;
    }
  mode = argv[2];
  if (argc > 3)
    n_marks = strtol (argv[3], NULL, 10);
  loop = g_main_loop_new (NULL, FALSE);
  info = g_dbus_node_info_new_for_xml (introspection, NULL);
  if (!(bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error)) ||
      !g_dbus_connection_register_object (bus, "/org/gnome/Sysprof3/Profiler", info->interfaces[0], &vtable, NULL, NULL,
                                          &error))
    {
      fprintf (stderr, "profiler-peer: %s\n", error->message);
      return 1;
    }
  g_bus_own_name_on_connection (bus, argv[1], G_BUS_NAME_OWNER_FLAGS_NONE, name_acquired, name_lost, loop, NULL);
  g_unix_signal_add (SIGTERM, quit_cb, loop);
  g_main_loop_run (loop);
  g_clear_object (&held);
  g_main_loop_unref (loop);
  return 0;
}
