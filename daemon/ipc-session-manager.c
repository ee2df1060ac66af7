// SPDX-License-Identifier: GPL-3.0-or-later
#include "ipc-session-manager.h"
#include "sysprofd-auth.h"
#include "sysprofd-session.h"

#define MAX_SESSIONS_PER_UID 4

/* Sessions by object path; only touched in the main context. */
static GHashTable *sessions;
static guint       next_session_id = 1;

typedef struct
{
  IpcSessionManager     *manager;
  GDBusMethodInvocation *invocation;
  GVariant              *options;
  guint32                uid;
} CreateCall;

static void
session_closed (SysprofdSession *session, gpointer data)
{
  (void) data;
  g_hash_table_remove (sessions, sysprofd_session_get_path (session));
  g_message ("Session %s closed, %u left", sysprofd_session_get_path (session), g_hash_table_size (sessions));
}

static gboolean
create_in_main (gpointer data)
{
  CreateCall *call = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  SysprofdSession *session;
  GHashTableIter   iter;
  gpointer         value;
  guint            n_owned = 0;

  g_hash_table_iter_init (&iter, sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n_owned += sysprofd_session_get_owner (value) == call->uid;
  if (n_owned >= MAX_SESSIONS_PER_UID)
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                                             "uid %u already has %u sessions, the limit per user; close one first",
                                             call->uid, n_owned);
      goto out;
    }

  path = g_strdup_printf ("/org/gnome/Sysprof3/Session/%u", next_session_id++);
  session = sysprofd_session_new (g_dbus_method_invocation_get_connection (call->invocation), path, call->uid,
                                  g_dbus_method_invocation_get_sender (call->invocation), call->options, &error);
  if (session == NULL)
    {
      g_dbus_method_invocation_return_gerror (call->invocation, error);
      goto out;
    }
  g_signal_connect (session, "closed", G_CALLBACK (session_closed), NULL);
  g_hash_table_insert (sessions, g_strdup (path), session);
  g_message ("Created session %s for uid %u (%s)", path, call->uid,
             g_dbus_method_invocation_get_sender (call->invocation));
  ipc_session_manager_complete_create_session (call->manager, call->invocation, path);

out:
  g_object_unref (call->manager);
  g_object_unref (call->invocation);
  g_variant_unref (call->options);
  g_free (call);
  return G_SOURCE_REMOVE;
}

static gboolean
handle_create_session (IpcSessionManager *manager, GDBusMethodInvocation *invocation, GVariant *options)
{
  g_autoptr (GError) error = NULL;
  CreateCall *call;
  guint32     uid;

  /* Worker thread: ask the bus who calls, then create in the main context. */
  if (!sysprofd_get_caller_uid (invocation, &uid, &error))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot identify the caller: %s", error->message);
      return TRUE;
    }
  call = g_new0 (CreateCall, 1);
  call->manager = g_object_ref (manager);
  call->invocation = g_object_ref (invocation);
  call->options = g_variant_ref (options);
  call->uid = uid;
  g_main_context_invoke (NULL, create_in_main, call);
  return TRUE;
}

IpcSessionManager *
ipc_session_manager_impl_new (void)
{
  IpcSessionManager *manager = ipc_session_manager_skeleton_new ();

  if (sessions == NULL)
    sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  sysprofd_authorize_skeleton (manager);
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
