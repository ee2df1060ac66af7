// SPDX-License-Identifier: GPL-3.0-or-later
/* The Session state machine (sysprofd-session-state.h): every method in
 * every state, against the rules of org.gnome.Sysprof3.Session.xml. */
#include "sysprofd-session-state.h"

#define C SYSPROFD_SESSION_CREATED
#define R SYSPROFD_SESSION_RECORDING
#define S SYSPROFD_SESSION_STOPPED
#define F SYSPROFD_SESSION_FAILED

static void
test_table (void)
{
  /* NULL: allowed; else the refusal the caller reads. */
  static const struct
  {
    SysprofdSessionMethod method;
    const char           *in_state[4]; /* created, recording, stopped, failed */
  } rules[] = {
    { SYSPROFD_SESSION_SET_CAPTURE_FD,
      { NULL, "SetCaptureFd is only possible before Start", "SetCaptureFd is only possible before Start",
        "SetCaptureFd is only possible before Start" } },
    { SYSPROFD_SESSION_START,
      { NULL, "The session was already started", "The session was already started",
        "The session was already started" } },
    /* Stopping a stopped session is not an error; a failed one neither. */
    { SYSPROFD_SESSION_STOP, { "The session was never started", NULL, NULL, NULL } },
    { SYSPROFD_SESSION_CREATE_RING_BUFFER,
      { NULL, NULL, "The session is no longer recording", "The session is no longer recording" } },
    { SYSPROFD_SESSION_CLOSE, { NULL, NULL, NULL, NULL } },
  };
  const SysprofdSessionState states[] = { C, R, S, F };

  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    for (guint j = 0; j < G_N_ELEMENTS (states); j++)
      {
        g_autoptr (GError) error = NULL;
        gboolean allowed = sysprofd_session_state_allows (states[j], rules[i].method, &error);

        if (rules[i].in_state[j] == NULL)
          {
            g_assert_no_error (error);
            g_assert_true (allowed);
          }
        else
          {
            g_assert_false (allowed);
            g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED);
            g_assert_cmpstr (error->message, ==, rules[i].in_state[j]);
          }
      }
}

/* A walk through the life the XML describes: the only transitions are
 * created -> recording -> stopped | failed, and created -> failed. */
static void
test_walk (void)
{
  SysprofdSessionState state = C;

  g_assert_cmpstr (sysprofd_session_state_name (state), ==, "created");
  g_assert_false (sysprofd_session_state_allows (state, SYSPROFD_SESSION_STOP, NULL));
  g_assert_true (sysprofd_session_state_allows (state, SYSPROFD_SESSION_SET_CAPTURE_FD, NULL));
  g_assert_true (sysprofd_session_state_allows (state, SYSPROFD_SESSION_START, NULL));
  state = R;
  g_assert_cmpstr (sysprofd_session_state_name (state), ==, "recording");
  g_assert_false (sysprofd_session_state_allows (state, SYSPROFD_SESSION_START, NULL));
  g_assert_true (sysprofd_session_state_allows (state, SYSPROFD_SESSION_CREATE_RING_BUFFER, NULL));
  state = sysprofd_session_state_after_recording (TRUE);
  g_assert_cmpstr (sysprofd_session_state_name (state), ==, "stopped");
  g_assert_true (sysprofd_session_state_allows (state, SYSPROFD_SESSION_STOP, NULL));
  state = sysprofd_session_state_after_recording (FALSE);
  g_assert_cmpstr (sysprofd_session_state_name (state), ==, "failed");
  g_assert_true (sysprofd_session_state_allows (state, SYSPROFD_SESSION_CLOSE, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sysprofd/SessionState/table", test_table);
  g_test_add_func ("/Sysprofd/SessionState/walk", test_walk);
  return g_test_run ();
}
