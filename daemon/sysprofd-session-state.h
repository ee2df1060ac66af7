// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The life of a Session object (org.gnome.Sysprof3.Session.xml):
 *
 *   created ──Start──▶ recording ──Stop, max-duration──▶ stopped
 *      │                   └──────max-bytes, a write error──▶ failed
 *      └──Start fails───────────────────────────────────────▶ failed
 *
 * Close ends a session in any state (stopping it first when recording);
 * a session not started within the start timeout is closed. */
typedef enum
{
  SYSPROFD_SESSION_CREATED,
  SYSPROFD_SESSION_RECORDING,
  SYSPROFD_SESSION_STOPPED,
  SYSPROFD_SESSION_FAILED,
} SysprofdSessionState;

/* The methods whose answer depends on the state. */
typedef enum
{
  SYSPROFD_SESSION_SET_CAPTURE_FD,
  SYSPROFD_SESSION_START,
  SYSPROFD_SESSION_STOP,
  SYSPROFD_SESSION_CREATE_RING_BUFFER,
  SYSPROFD_SESSION_CLOSE,
} SysprofdSessionMethod;

/* "created", "recording", "stopped", "failed": the State property. */
const char *sysprofd_session_state_name (SysprofdSessionState state);

/* Whether @method may run in @state, or G_DBUS_ERROR_FAILED with the
 * sentence the caller gets.  Stop of a session that already ended is
 * allowed and does nothing (documented as not an error). */
gboolean sysprofd_session_state_allows (SysprofdSessionState state, SysprofdSessionMethod method, GError **error);

/* Where a recording that ends goes: stopped when it ended as asked (Stop,
 * Close, max-duration), failed when it was cut short or could not be
 * written. */
SysprofdSessionState sysprofd_session_state_after_recording (gboolean success);

G_END_DECLS
