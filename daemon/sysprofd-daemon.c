// SPDX-License-Identifier: GPL-3.0-or-later
/* The daemon's life: the name on the system bus, the interfaces on
 * /org/gnome/Sysprof3, the idle exit, the signals, and the shutdown order. */

#include <stdlib.h>

#include <glib-unix.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "ipc-host.h"
#include "ipc-service.h"
#include "ipc-session-manager.h"
#include "sysprof-dbus-contract.h"
#include "sysprofd-budget.h"
#include "sysprofd-daemon.h"
#include "sysprofd-dispatcher.h"
#include "sysprofd-session.h"
#include "sysprofd-system-state.h"

#define BUS_NAME    SYSPROF_DBUS_NAME
#define OBJECT_PATH SYSPROF_DBUS_PATH
/* At exit, running captures are finalized for at most this long. */
#define SHUTDOWN_TIMEOUT_S 30

static GMainLoop         *main_loop;
static int                exit_status = EXIT_SUCCESS;
static gint64             busy_until; /* monotonic seconds */
static int                idle_timeout;
static gboolean           name_acquired;
static IpcSessionManager *session_manager;

static gboolean
check_idle (gpointer user_data)
{
  gint64 now = g_get_monotonic_time () / G_USEC_PER_SEC;

  (void) user_data;
  /* Idle means no authorized call for a while, no call waiting or running
   * and no session left. */
  if (ipc_session_manager_impl_n_sessions (session_manager) > 0 || sysprofd_dispatcher_get_n_calls () > 0)
    busy_until = now;
  else if (idle_timeout > 0 && now - MAX (busy_until, sysprofd_dispatcher_get_last_activity ()) > idle_timeout)
    {
      g_message ("No request for %d s, exiting", idle_timeout);
      g_main_loop_quit (main_loop);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* Every interface on /org/gnome/Sysprof3: exported on the bus, and any
 * authorized call to them counts as activity. */
static GPtrArray *skeletons;

static void
on_bus_acquired (GDBusConnection *connection, const char *name, gpointer user_data)
{
  (void) name;
  (void) user_data;
  sysprofd_dispatcher_init (connection);
  for (guint i = 0; i < skeletons->len; i++)
    {
      g_autoptr (GError) error = NULL;

      if (!g_dbus_interface_skeleton_export (skeletons->pdata[i], connection, OBJECT_PATH, &error))
        {
          g_critical ("Cannot export %s: %s", OBJECT_PATH, error->message);
          exit_status = EXIT_FAILURE;
          g_main_loop_quit (main_loop);
        }
    }
}

static void
on_name_acquired (GDBusConnection *connection, const char *name, gpointer user_data)
{
  (void) connection;
  (void) user_data;
  name_acquired = TRUE;
  g_message ("Serving %s", name);
#ifdef HAVE_LIBSYSTEMD
  sd_notify (0, "READY=1");
#endif
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer user_data)
{
  (void) user_data;
  if (connection == NULL)
    g_warning ("Cannot connect to the system bus to own %s", name);
  else if (!name_acquired)
    g_warning ("Cannot own %s: the bus refused it (is org.gnome.Sysprof3.conf installed in dbus-1/system.d, "
               "and is sysprofd running as root?)",
               name);
  else
    g_message ("Lost %s to another daemon, exiting", name);
  exit_status = EXIT_FAILURE;
  g_main_loop_quit (main_loop);
}

static gboolean
acquire_timeout (gpointer user_data)
{
  (void) user_data;
  if (!name_acquired)
    {
      g_warning ("Did not get %s within 3 seconds, exiting", BUS_NAME);
      exit_status = EXIT_FAILURE;
      g_main_loop_quit (main_loop);
    }
  return G_SOURCE_REMOVE;
}

static gboolean
keep_waking (gpointer user_data)
{
  (void) user_data;
  return G_SOURCE_CONTINUE;
}

static gboolean
on_terminate (gpointer user_data)
{
  (void) user_data;
  g_message ("Terminating");
  g_main_loop_quit (main_loop);
  return G_SOURCE_REMOVE;
}

int
sysprofd_daemon_run (const SysprofdOptions *options)
{
  guint owner_id;

  g_return_val_if_fail (options != NULL, EXIT_FAILURE);

  idle_timeout = options->idle_timeout;
  main_loop = g_main_loop_new (NULL, FALSE);
  busy_until = g_get_monotonic_time () / G_USEC_PER_SEC;

  /* Before anything else: what a crashed daemon left changed comes back. */
  sysprofd_system_state_init (options->state_dir);
  sysprofd_budget_init ();
  sysprofd_session_set_start_timeout ((guint) options->start_timeout);

  skeletons = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (skeletons, ipc_service_impl_new ());
  g_ptr_array_add (skeletons, ipc_host_impl_new ());
  g_ptr_array_add (skeletons, session_manager = ipc_session_manager_impl_new ());

  g_unix_signal_add (SIGTERM, on_terminate, NULL);
  g_unix_signal_add (SIGINT, on_terminate, NULL);
  g_timeout_add_seconds (3, acquire_timeout, NULL);
  g_timeout_add_seconds (5, check_idle, NULL);

  owner_id = g_bus_own_name (G_BUS_TYPE_SYSTEM, BUS_NAME,
                             G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT | G_BUS_NAME_OWNER_FLAGS_REPLACE, on_bus_acquired,
                             on_name_acquired, on_name_lost, NULL, NULL);

  g_main_loop_run (main_loop);

  /* SIGTERM or idle.  First no new call, and the kernel settings back
   * (nothing below may keep them changed); then running captures are
   * finalized, not cut off, each session in its own thread reporting back
   * here. */
  sysprofd_dispatcher_shutdown ();
  sysprofd_system_state_restore_all ();
  ipc_session_manager_impl_close_all (session_manager);
  {
    gint64 deadline = g_get_monotonic_time () + SHUTDOWN_TIMEOUT_S * G_USEC_PER_SEC;

    /* So that the deadline is looked at even if no session reports. */
    g_timeout_add (100, keep_waking, NULL);
    while (ipc_session_manager_impl_n_sessions (session_manager) > 0 && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
    if (ipc_session_manager_impl_n_sessions (session_manager) > 0)
      g_warning ("%u sessions did not finish within %d s", ipc_session_manager_impl_n_sessions (session_manager),
                 SHUTDOWN_TIMEOUT_S);
  }
  g_bus_unown_name (owner_id);
  g_ptr_array_unref (skeletons);
  g_main_loop_unref (main_loop);
  return exit_status;
}
