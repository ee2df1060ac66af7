// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SYSPROFD_POLKIT_ACTION "org.gnome.sysprof3.profile"

/* The one authorization check of sysprofd, connected to "g-authorize-method"
 * of every exported interface skeleton.  Blocks on polkit, so skeletons run
 * their invocations in a worker thread.  On refusal it has already answered
 * the call with org.freedesktop.DBus.Error.AccessDenied. */
gboolean
sysprofd_authorize_method (GDBusInterfaceSkeleton *skeleton, GDBusMethodInvocation *invocation, gpointer user_data);

/* Makes @skeleton handle its invocations in worker threads (polkit blocks)
 * and authorize each with sysprofd_authorize_method(). */
void sysprofd_authorize_skeleton (gpointer skeleton);

/* The uid behind the caller of @invocation, asked from the bus (blocking:
 * call from a worker thread). */
gboolean sysprofd_get_caller_uid (GDBusMethodInvocation *invocation, guint32 *uid, GError **error);

G_END_DECLS
