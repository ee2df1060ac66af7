// SPDX-License-Identifier: GPL-3.0-or-later
#include "ipc-session-manager.h"
#include "sysprof-dbus-contract.h"
#include "sysprofd-budget.h"
#include "sysprofd-dispatcher.h"
#include "sysprofd-proc.h"
#include "sysprofd-session.h"

/* Sessions by object path; only touched in the main context. */
static GHashTable *sessions;
static guint       next_session_id = 1;

static void
session_closed (SysprofdSession *session, gpointer data)
{
  (void) data;
  g_message ("Session %s closed, %u left", sysprofd_session_get_path (session), g_hash_table_size (sessions) - 1);
  g_hash_table_remove (sessions, sysprofd_session_get_path (session));
}

/* Main thread, authorized; @continuous_many: polkit granted
 * SYSPROF_DBUS_ACTION_CONTINUOUS_MANY. */
static void
create_session (SysprofdCall *call, gboolean continuous_many)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GVariant) options = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  SysprofdSession *session;
  guint32          uid = sysprofd_call_get_uid (call);

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(@a{sv})", &options);
  path = g_strdup_printf (SYSPROF_DBUS_SESSION_PATH_PREFIX "%u", next_session_id++);
  session = sysprofd_session_new (g_dbus_method_invocation_get_connection (invocation), path, uid,
                                  g_dbus_method_invocation_get_sender (invocation), sysprofd_call_get_action (call),
                                  options, continuous_many, &error);
  if (session == NULL)
    {
      if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED) &&
          g_variant_lookup (options, SYSPROF_DBUS_OPTION_PERIOD, "u", NULL) && !continuous_many &&
          !sysprofd_budget_fits_uid (uid, SYSPROFD_RESOURCE_CONTINUOUS, 1))
        g_prefix_error (&error, "%s (polkit's action %s allows more): ", "one continuous session per user",
                        SYSPROF_DBUS_ACTION_CONTINUOUS_MANY);
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_signal_connect (session, "closed", G_CALLBACK (session_closed), NULL);
  g_hash_table_insert (sessions, g_strdup (path), session);
  {
    gboolean detached = FALSE;

    /* Said, so that an admin (and test-stress) can tell the sessions a
     * vanished client may have left on purpose. */
    g_variant_lookup (options, "detached", "b", &detached);
    g_message ("Created session %s for uid %u (%s)%s", path, uid, g_dbus_method_invocation_get_sender (invocation),
               detached ? ", detached" : "");
  }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(o)", path));
}

static void
asked_continuous_many (SysprofdCall *call, gboolean granted, gpointer data)
{
  (void) data;
  create_session (call, granted);
}

/* Main thread, authorized. */
static void
do_create_session (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GVariant) options = NULL;
  g_autoptr (GVariant) period = NULL;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(@a{sv})", &options);
  period = g_variant_lookup_value (options, SYSPROF_DBUS_OPTION_PERIOD, NULL);
  /* A second continuous session: only when polkit says so. */
  if (period != NULL && !sysprofd_budget_fits_uid (sysprofd_call_get_uid (call), SYSPROFD_RESOURCE_CONTINUOUS, 1))
    sysprofd_call_ask (call, SYSPROF_DBUS_ACTION_CONTINUOUS_MANY, asked_continuous_many, NULL);
  else
    create_session (call, FALSE);
}

/* Recording only processes of one's own needs less trust than recording the
 * machine: the weaker action.  Anything else, or options that do not parse
 * (the session refuses them after authorization), needs the full one. */
static const char *
choose_action (SysprofdCall *call)
{
  g_autoptr (GVariant) options = NULL;
  g_autoptr (GVariant) pids = NULL;
  const gint32 *p;
  gsize         n;

  g_variant_get (g_dbus_method_invocation_get_parameters (sysprofd_call_get_invocation (call)), "(@a{sv})", &options);
  if (!(pids = g_variant_lookup_value (options, "pids", G_VARIANT_TYPE ("ai"))))
    return NULL;
  p = g_variant_get_fixed_array (pids, &n, sizeof (gint32));
  if (n == 0 || n > SYSPROF_DBUS_MAX_PIDS)
    return NULL;
  {
    g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

    for (gsize i = 0; i < n; i++)
      if (g_hash_table_add (seen, GINT_TO_POINTER (p[i])) &&
          !sysprofd_process_is_owned_by (p[i], sysprofd_call_get_uid (call)))
        return NULL;
  }
  return SYSPROF_DBUS_ACTION_PROFILE_OWN;
}

static gboolean
handle_create_session (IpcSessionManager *manager, GDBusMethodInvocation *invocation, GVariant *options)
{
  (void) manager, (void) options;
  sysprofd_dispatch (invocation, SYSPROFD_CALL_IN_MAIN, choose_action, do_create_session, NULL, NULL);
  return TRUE;
}

IpcSessionManager *
ipc_session_manager_impl_new (void)
{
  IpcSessionManager *manager = ipc_session_manager_skeleton_new ();

  if (sessions == NULL)
    sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_signal_connect (manager, "handle-create-session", G_CALLBACK (handle_create_session), NULL);
  return manager;
}

guint
ipc_session_manager_impl_n_sessions (IpcSessionManager *manager)
{
  (void) manager;
  return sessions ? g_hash_table_size (sessions) : 0;
}

void
ipc_session_manager_impl_close_all (IpcSessionManager *manager)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer       value;

  (void) manager;
  if (sessions == NULL)
    return;
  g_hash_table_iter_init (&iter, sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (all, g_object_ref (value));
  for (guint i = 0; i < all->len; i++)
    sysprofd_session_close (all->pdata[i]);
}
