// SPDX-License-Identifier: GPL-3.0-or-later
/* Traffic of known shape on the session bus ($DBUS_SESSION_BUS_ADDRESS),
 * for test-dbus.sh.
 *
 *   dbus-workload server BUS_NAME DELAY_MS
 *     owns BUS_NAME and exports org.example.SysprofTest at /org/example/Test:
 *     Sleep (u token) -> (u token) answers DELAY_MS after the call, Fail ()
 *     answers org.example.SysprofTest.Error.Failed at once.  Prints "ready"
 *     once it owns the name; exits on SIGTERM.
 *   dbus-workload client BUS_NAME N
 *     calls Sleep N times, one after the other (token i), then Fail once;
 *     prints "done N" when every reply came as expected.
 *   dbus-workload flood N SIZE N_LARGE
 *     emits N signals org.example.SysprofTest.Tick (s: SIZE bytes) and
 *     N_LARGE signals Big (s: 100000 bytes, above a capture's maximum),
 *     then waits until the bus has them all; prints "flooded". */
#include <glib-unix.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "org.example.SysprofTest"
#define PATH  "/org/example/Test"

static const char introspection[] = "<node><interface name='" IFACE "'>"
                                    "<method name='Sleep'><arg type='u' name='token' direction='in'/>"
                                    "<arg type='u' name='token' direction='out'/></method>"
                                    "<method name='Fail'/>"
                                    "<signal name='Tick'><arg type='s'/></signal>"
                                    "<signal name='Big'><arg type='s'/></signal>"
                                    "</interface></node>";

static guint delay_ms;

static gboolean
answer_cb (gpointer data)
{
  GDBusMethodInvocation *invocation = data;
  guint                  token;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(u)", &token);
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", token));
  return G_SOURCE_REMOVE;
}

static void
method_call (GDBusConnection       *connection,
             const char            *sender,
             const char            *object_path,
             const char            *interface_name,
             const char            *method_name,
             GVariant              *parameters,
             GDBusMethodInvocation *invocation,
             gpointer               user_data)
{
  (void) connection, (void) sender, (void) object_path, (void) interface_name, (void) parameters, (void) user_data;
  if (g_str_equal (method_name, "Sleep"))
    g_timeout_add (delay_ms, answer_cb, invocation);
  else
    g_dbus_method_invocation_return_dbus_error (invocation, IFACE ".Error.Failed", "failing as asked");
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

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
  fprintf (stderr, "dbus-workload: cannot own %s\n", name);
  exit (1);
}

static int
server (const char *name)
{
  static const GDBusInterfaceVTable vtable = { method_call, NULL, NULL, { 0 } };
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (introspection, NULL);
  g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  if (bus == NULL || !g_dbus_connection_register_object (bus, PATH, info->interfaces[0], &vtable, NULL, NULL, &error))
    {
      fprintf (stderr, "dbus-workload: %s\n", error->message);
      return 1;
    }
  g_bus_own_name_on_connection (bus, name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE, name_acquired, name_lost, NULL, NULL);
  g_unix_signal_add (SIGTERM, quit_cb, loop);
  g_main_loop_run (loop);
  return 0;
}

static int
client (const char *name, guint n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr (GVariant) failed = NULL;

  if (bus == NULL)
    {
      fprintf (stderr, "dbus-workload: %s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GVariant) reply =
          g_dbus_connection_call_sync (bus, name, PATH, IFACE, "Sleep", g_variant_new ("(u)", i),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
      guint token;

      if (reply == NULL)
        {
          fprintf (stderr, "dbus-workload: Sleep %u: %s\n", i, error->message);
          return 1;
        }
      g_variant_get (reply, "(u)", &token);
      if (token != i)
        {
          fprintf (stderr, "dbus-workload: Sleep %u answered %u\n", i, token);
          return 1;
        }
    }
  failed = g_dbus_connection_call_sync (bus, name, PATH, IFACE, "Fail", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL,
                                        &error);
  if (failed != NULL || !g_dbus_error_is_remote_error (error))
    {
      fprintf (stderr, "dbus-workload: Fail did not fail\n");
      return 1;
    }
  printf ("done %u\n", n);
  return 0;
}

static int
flood (guint n, guint size, guint n_large)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autofree char *text = g_malloc (MAX (size, 100000) + 1);

  if (bus == NULL)
    {
      fprintf (stderr, "dbus-workload: %s\n", error->message);
      return 1;
    }
  memset (text, 'x', MAX (size, 100000));
  text[100000] = 0;
  for (guint i = 0; i < n_large; i++)
    if (!g_dbus_connection_emit_signal (bus, NULL, PATH, IFACE, "Big", g_variant_new ("(s)", text), &error))
      {
        fprintf (stderr, "dbus-workload: %s\n", error->message);
        return 1;
      }
  text[size] = 0;
  for (guint i = 0; i < n; i++)
    {
      if (!g_dbus_connection_emit_signal (bus, NULL, PATH, IFACE, "Tick", g_variant_new ("(s)", text), &error))
        {
          fprintf (stderr, "dbus-workload: %s\n", error->message);
          return 1;
        }
      /* GDBus queues without bound: keep what waits to be sent small. */
      if (i % 1000 == 999 && !g_dbus_connection_flush_sync (bus, NULL, &error))
        {
          fprintf (stderr, "dbus-workload: %s\n", error->message);
          return 1;
        }
    }
  if (!g_dbus_connection_flush_sync (bus, NULL, &error))
    {
      fprintf (stderr, "dbus-workload: %s\n", error->message);
      return 1;
    }
  printf ("flooded\n");
  return 0;
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (argc == 4 && g_str_equal (argv[1], "server"))
    {
      delay_ms = (guint) strtoul (argv[3], NULL, 10);
      return server (argv[2]);
    }
  if (argc == 4 && g_str_equal (argv[1], "client"))
    return client (argv[2], (guint) strtoul (argv[3], NULL, 10));
  if (argc == 5 && g_str_equal (argv[1], "flood"))
    return flood ((guint) strtoul (argv[2], NULL, 10), (guint) MIN (strtoul (argv[3], NULL, 10), 100000),
                  (guint) strtoul (argv[4], NULL, 10));
  fprintf (stderr, "usage: dbus-workload server BUS_NAME DELAY_MS | client BUS_NAME N | flood N SIZE N_LARGE\n");
  return 2;
}
