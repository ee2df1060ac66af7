// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprofd-session-state.h"

static const char *const names[] = { "created", "recording", "stopped", "failed" };

const char *
sysprofd_session_state_name (SysprofdSessionState state)
{
  g_return_val_if_fail (state <= SYSPROFD_SESSION_FAILED, "failed");

  return names[state];
}

gboolean
sysprofd_session_state_allows (SysprofdSessionState state, SysprofdSessionMethod method, GError **error)
{
  const char *refusal = NULL;

  switch (method)
    {
    case SYSPROFD_SESSION_SET_CAPTURE_FD:
      if (state != SYSPROFD_SESSION_CREATED)
        refusal = "SetCaptureFd is only possible before Start";
      break;
    case SYSPROFD_SESSION_START:
      if (state != SYSPROFD_SESSION_CREATED)
        refusal = "The session was already started";
      break;
    case SYSPROFD_SESSION_STOP:
      if (state == SYSPROFD_SESSION_CREATED)
        refusal = "The session was never started";
      break;
    case SYSPROFD_SESSION_CREATE_RING_BUFFER:
      if (state != SYSPROFD_SESSION_CREATED && state != SYSPROFD_SESSION_RECORDING)
        refusal = "The session is no longer recording";
      break;
    case SYSPROFD_SESSION_CLOSE: break;
    default: g_return_val_if_reached (FALSE);
    }
  if (refusal != NULL)
    {
      g_set_error_literal (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, refusal);
      return FALSE;
    }
  return TRUE;
}

SysprofdSessionState
sysprofd_session_state_after_recording (gboolean success)
{
  return success ? SYSPROFD_SESSION_STOPPED : SYSPROFD_SESSION_FAILED;
}
