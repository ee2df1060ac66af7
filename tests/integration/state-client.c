// SPDX-License-Identifier: GPL-3.0-or-later
/* state-client: changes a kernel setting through sysprofd and then stays on
 * the bus, so that test-system-state.sh decides when the caller leaves.
 *
 *   state-client [--exit] paranoid VALUE   Service.SetParanoid (VALUE)
 *   state-client [--exit] governor NAME    Service.SetGovernor (NAME)
 *   state-client race N VALUE              N callers, each on a connection of
 *                                          its own, call SetParanoid (VALUE) at
 *                                          once; every second one leaves the
 *                                          bus as soon as it has its answer
 *
 * Prints "old OLD" (race: "ready") once the call(s) returned, then waits for a
 * signal; with --exit it leaves at once.  A refused call prints
 * "error NAME MESSAGE" with the D-Bus error name and exits 1; usage and
 * connection problems exit 2. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#define BUS_NAME    "org.gnome.Sysprof3"
#define OBJECT_PATH "/org/gnome/Sysprof3"
#define INTERFACE   "org.gnome.Sysprof3.Service"

static int
usage (void)
{
  g_printerr ("usage: state-client [--exit] paranoid VALUE | [--exit] governor NAME | race N VALUE\n");
  return 2;
}

static int
report_error (GError *error)
{
  g_autofree char *name = g_dbus_error_get_remote_error (error);

  g_dbus_error_strip_remote_error (error);
  printf ("error %s %s\n", name ? name : "none", error->message);
  return 1;
}

/* Waits for a signal, whose default action ends the process. */
static int
hold (void)
{
  fflush (stdout);
  for (;;)
    pause ();
  return 0;
}

static gboolean
parse_int (const char *text, gint32 *value)
{
  gint64 v;

  if (!g_ascii_string_to_signed (text, 10, G_MININT32, G_MAXINT32, &v, NULL))
    return FALSE;
  *value = (gint32) v;
  return TRUE;
}

typedef struct
{
  GDBusConnection **connections;
  guint             n_pending;
  guint             n_failed;
  GMainLoop        *loop;
} Race;

typedef struct
{
  Race *race;
  guint index;
} RaceCall;

static void
race_call_done (GObject *source, GAsyncResult *result, gpointer data)
{
  RaceCall *call = data;
  Race     *race = call->race;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      report_error (error);
      race->n_failed++;
    }
  /* The odd ones leave while the others' calls may still be running. */
  if (call->index % 2 == 1)
    g_clear_object (&race->connections[call->index]);
  if (--race->n_pending == 0)
    g_main_loop_quit (race->loop);
  g_free (call);
}

static int
race (guint n, gint32 value)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  Race             r = { 0 };

  if (address == NULL)
    {
      g_printerr ("state-client: %s\n", error->message);
      return 2;
    }
  r.connections = g_new0 (GDBusConnection *, n);
  r.loop = g_main_loop_new (NULL, FALSE);
  for (guint i = 0; i < n; i++)
    {
      r.connections[i] = g_dbus_connection_new_for_address_sync (
          address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
          NULL, &error);
      if (r.connections[i] == NULL)
        {
          g_printerr ("state-client: connection %u: %s\n", i, error->message);
          return 2;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      RaceCall *call = g_new0 (RaceCall, 1);

      call->race = &r;
      call->index = i;
      r.n_pending++;
      g_dbus_connection_call (r.connections[i], BUS_NAME, OBJECT_PATH, INTERFACE, "SetParanoid",
                              g_variant_new ("(i)", value), G_VARIANT_TYPE ("(i)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                              race_call_done, call);
    }
  g_main_loop_run (r.loop);
  if (r.n_failed > 0)
    return 1;
  printf ("ready\n");
  return hold ();
}

int
main (int argc, char **argv)
{
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;
  gboolean exit_at_once = FALSE;
  gint32   value, n;

  if (argc > 1 && strcmp (argv[1], "--exit") == 0)
    {
      exit_at_once = TRUE;
      argc--, argv++;
    }
  if (argc == 4 && !exit_at_once && strcmp (argv[1], "race") == 0)
    {
      if (!parse_int (argv[2], &n) || n < 1 || n > 200 || !parse_int (argv[3], &value))
        return usage ();
      return race ((guint) n, value);
    }
  if (argc != 3)
    return usage ();

  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("state-client: %s\n", error->message);
      return 2;
    }
  if (strcmp (argv[1], "paranoid") == 0)
    {
      gint32 old;

      if (!parse_int (argv[2], &value))
        return usage ();
      reply = g_dbus_connection_call_sync (bus, BUS_NAME, OBJECT_PATH, INTERFACE, "SetParanoid",
                                           g_variant_new ("(i)", value), G_VARIANT_TYPE ("(i)"), G_DBUS_CALL_FLAGS_NONE,
                                           -1, NULL, &error);
      if (reply == NULL)
        return report_error (error);
      g_variant_get (reply, "(i)", &old);
      printf ("old %d\n", old);
    }
  else if (strcmp (argv[1], "governor") == 0)
    {
      const char *old;

      reply = g_dbus_connection_call_sync (bus, BUS_NAME, OBJECT_PATH, INTERFACE, "SetGovernor",
                                           g_variant_new ("(s)", argv[2]), G_VARIANT_TYPE ("(s)"),
                                           G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
      if (reply == NULL)
        return report_error (error);
      g_variant_get (reply, "(&s)", &old);
      printf ("old %s\n", old);
    }
  else
    return usage ();

  if (exit_at_once)
    return 0;
  return hold ();
}
