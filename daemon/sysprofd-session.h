// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SYSPROFD_TYPE_SESSION (sysprofd_session_get_type ())
G_DECLARE_FINAL_TYPE (SysprofdSession, sysprofd_session, SYSPROFD, SESSION, GObject)

/* A recording session exported at @object_path on @connection, recording in
 * a thread of its own.  @options is the a{sv} of CreateSession, validated here
 * (InvalidArgs on a bad key or type, LimitsExceeded beyond a limit).
 * @owner_name is the creator's unique bus name: unless the session is
 * detached it is closed when that name leaves the bus.  Calls on the session
 * are authorized with polkit's @action (NULL: SYSPROF_DBUS_ACTION_PROFILE).
 * The session, its rings and perf events are charged to @owner_uid's budget
 * (sysprofd-budget.h); LimitsExceeded when it is spent.  A session not
 * started within the start timeout closes itself.  A continuous session
 * (option "period") counts against the uid's one continuous session unless
 * @continuous_many (polkit granted SYSPROF_DBUS_ACTION_CONTINUOUS_MANY).
 * Main thread only.  Emits "closed" once, in the main thread, after its
 * thread ended and everything it held was given back. */
SysprofdSession *sysprofd_session_new (GDBusConnection *connection,
                                       const char      *object_path,
                                       guint32          owner_uid,
                                       const char      *owner_name,
                                       const char      *action,
                                       GVariant        *options,
                                       gboolean         continuous_many,
                                       GError         **error);
/* Sessions created from now on close if not started within @seconds
 * (default SYSPROF_DBUS_START_TIMEOUT). */
void        sysprofd_session_set_start_timeout (guint seconds);
guint32     sysprofd_session_get_owner (SysprofdSession *self);
const char *sysprofd_session_get_path (SysprofdSession *self);
/* Stops recording (finalizing the capture, in the session's thread), removes
 * the object from the bus at once, and emits "closed" when done. */
void sysprofd_session_close (SysprofdSession *self);

G_END_DECLS
