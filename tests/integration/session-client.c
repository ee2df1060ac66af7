// SPDX-License-Identifier: GPL-3.0-or-later
/* session-client: drives org.gnome.Sysprof3 sessions for the integration tests.
 *   session-client record FILE SECONDS   create a session bound to this
 *       connection, SetCaptureFd(FILE), Start, wait SECONDS (0: forever, to be
 *       killed), Stop; prints "path P" at creation and the final State
 *   session-client churn N               N times: create, Start, Stop, Close
 *   session-client limit                 creates sessions until refused; prints
 *       "refused after N: ERROR" */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

static GDBusConnection *bus;

static GVariant *
call (const char *path, const char *iface, const char *method, GVariant *args, GUnixFDList *fds, GError **error)
{
  return g_dbus_connection_call_with_unix_fd_list_sync (bus, "org.gnome.Sysprof3", path, iface, method, args, NULL,
                                                        G_DBUS_CALL_FLAGS_NONE, 30000, fds, NULL, NULL, error);
}

static char *
create_session (GError **error)
{
  GVariantBuilder options;
  g_autoptr (GVariant) reply = NULL;
  char *path = NULL;

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&options, "{sv}", "frequency", g_variant_new_uint32 (99));
  reply = call ("/org/gnome/Sysprof3", "org.gnome.Sysprof3.SessionManager", "CreateSession",
                g_variant_new ("(@a{sv})", g_variant_builder_end (&options)), NULL, error);
  if (reply)
    g_variant_get (reply, "(o)", &path);
  return path;
}

static gboolean
session_call (const char *path, const char *method, GError **error)
{
  g_autoptr (GVariant) reply = call (path, "org.gnome.Sysprof3.Session", method, NULL, NULL, error);
  return reply != NULL;
}

static int
die (const char *what, GError *error)
{
  g_printerr ("session-client: %s: %s\n", what, error->message);
  return 1;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;

  if (argc < 2)
    return 2;
  if (!(bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error)))
    return die ("system bus", error);

  if (g_str_equal (argv[1], "record") && argc == 4)
    {
      g_autofree char *path = create_session (&error);
      g_autoptr (GUnixFDList) fds = g_unix_fd_list_new ();
      g_autoptr (GVariant) reply = NULL;
      g_autoptr (GVariant) state = NULL;
      int fd = open (argv[2], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      int seconds = atoi (argv[3]);

      if (path == NULL)
        return die ("CreateSession", error);
      printf ("path %s\n", path);
      fflush (stdout);
      if (fd < 0 || g_unix_fd_list_append (fds, fd, &error) < 0)
        return die ("capture file", error ? error : g_error_new_literal (G_IO_ERROR, 0, "open failed"));
      close (fd);
      if (!(reply = call (path, "org.gnome.Sysprof3.Session", "SetCaptureFd", g_variant_new ("(h)", 0), fds, &error)))
        return die ("SetCaptureFd", error);
      if (!session_call (path, "Start", &error))
        return die ("Start", error);
      if (seconds == 0)
        for (;;)
          pause ();
      sleep ((unsigned) seconds);
      if (!session_call (path, "Stop", &error))
        return die ("Stop", error);
      if (!(state = call (path, "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", "org.gnome.Sysprof3.Session", "State"), NULL, &error)))
        return die ("State", error);
      {
        g_autoptr (GVariant) v = NULL;
        g_variant_get (state, "(v)", &v);
        printf ("state %s\n", g_variant_get_string (v, NULL));
      }
      return 0;
    }

  if (g_str_equal (argv[1], "churn") && argc == 3)
    {
      int n = atoi (argv[2]);

      for (int i = 0; i < n; i++)
        {
          g_autofree char *path = create_session (&error);

          if (path == NULL)
            return die ("CreateSession", error);
          if (!session_call (path, "Start", &error) || !session_call (path, "Stop", &error) ||
              !session_call (path, "Close", &error))
            return die (path, error);
        }
      printf ("churned %d\n", n);
      return 0;
    }

  if (g_str_equal (argv[1], "limit"))
    {
      for (int i = 0; i < 100; i++)
        {
          g_autofree char *path = create_session (&error);

          if (path == NULL)
            {
              printf ("refused after %d: %s\n", i, error->message);
              return 0;
            }
        }
      printf ("never refused\n");
      return 1;
    }

  return 2;
}
