// SPDX-License-Identifier: GPL-3.0-or-later
#include <polkit/polkit.h>

#include "sysprofd-auth.h"

static PolkitAuthority *
get_authority (GError **error)
{
  static GMutex           lock;
  static PolkitAuthority *authority;
  PolkitAuthority        *ret;

  g_mutex_lock (&lock);
  if (authority == NULL)
    authority = polkit_authority_get_sync (NULL, error);
  ret = authority ? g_object_ref (authority) : NULL;
  g_mutex_unlock (&lock);
  return ret;
}

gboolean
sysprofd_authorize_method (GDBusInterfaceSkeleton *skeleton, GDBusMethodInvocation *invocation, gpointer user_data)
{
  g_autoptr (PolkitAuthority) authority = NULL;
  g_autoptr (PolkitSubject) subject = NULL;
  g_autoptr (PolkitAuthorizationResult) result = NULL;
  g_autoptr (GError) error = NULL;
  PolkitCheckAuthorizationFlags flags = POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;
  GDBusMessage                 *message = g_dbus_method_invocation_get_message (invocation);
  const char                   *sender = g_dbus_method_invocation_get_sender (invocation);

  (void) skeleton;
  (void) user_data;

  /* Only ask for a password when the caller said it can wait for one. */
  if (g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION)
    flags |= POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION;

  if (sender == NULL || !(authority = get_authority (&error)))
    {
      g_warning ("Cannot reach polkit to authorize %s.%s: %s", g_dbus_method_invocation_get_interface_name (invocation),
                 g_dbus_method_invocation_get_method_name (invocation), error ? error->message : "no sender");
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                             "Not authorized to make request: polkit is not available");
      return FALSE;
    }

  subject = polkit_system_bus_name_new (sender);
  result =
      polkit_authority_check_authorization_sync (authority, subject, SYSPROFD_POLKIT_ACTION, NULL, flags, NULL, &error);
  if (result != NULL && polkit_authorization_result_get_is_authorized (result))
    return TRUE;

  if (error != NULL)
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                           "Not authorized to make request: %s", error->message);
  else if (result != NULL && polkit_authorization_result_get_is_challenge (result))
    g_dbus_method_invocation_return_error (
        invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
        "Not authorized to make request: authentication is required for %s, "
        "but the caller did not allow interactive authorization or no agent answered",
        SYSPROFD_POLKIT_ACTION);
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                           "Not authorized to make request: polkit denied %s to this caller",
                                           SYSPROFD_POLKIT_ACTION);
  return FALSE;
}

gboolean
sysprofd_get_caller_uid (GDBusMethodInvocation *invocation, guint32 *uid, GError **error)
{
  g_autoptr (GVariant) reply = NULL;

  reply = g_dbus_connection_call_sync (g_dbus_method_invocation_get_connection (invocation), "org.freedesktop.DBus",
                                       "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixUser",
                                       g_variant_new ("(s)", g_dbus_method_invocation_get_sender (invocation)),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(u)", uid);
  return TRUE;
}

void
sysprofd_authorize_skeleton (gpointer skeleton)
{
  g_return_if_fail (G_IS_DBUS_INTERFACE_SKELETON (skeleton));

  g_dbus_interface_skeleton_set_flags (G_DBUS_INTERFACE_SKELETON (skeleton),
                                       G_DBUS_INTERFACE_SKELETON_FLAGS_HANDLE_METHOD_INVOCATIONS_IN_THREAD);
  g_signal_connect (skeleton, "g-authorize-method", G_CALLBACK (sysprofd_authorize_method), NULL);
}
