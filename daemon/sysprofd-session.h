// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SYSPROFD_TYPE_SESSION (sysprofd_session_get_type ())
G_DECLARE_FINAL_TYPE (SysprofdSession, sysprofd_session, SYSPROFD, SESSION, GObject)

/* A recording session exported at @object_path on @connection.  @options is the
 * a{sv} of CreateSession, validated here (InvalidArgs on a bad key or type).
 * @owner_name is the creator's unique bus name: unless the session is
 * detached it is closed when that name leaves the bus.  Emits "closed" once. */
SysprofdSession *sysprofd_session_new (GDBusConnection *connection,
                                       const char      *object_path,
                                       guint32          owner_uid,
                                       const char      *owner_name,
                                       GVariant        *options,
                                       GError         **error);
guint32          sysprofd_session_get_owner (SysprofdSession *self);
const char      *sysprofd_session_get_path (SysprofdSession *self);
/* Stops recording (finalizing the capture) and removes the object. */
void sysprofd_session_close (SysprofdSession *self);

G_END_DECLS
