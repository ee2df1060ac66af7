// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-dbus-contract.h"
#include "sysprofd-options.h"

gboolean
sysprofd_options_parse (SysprofdOptions *options, int *argc, char ***argv, GError **error)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autofree char *state_dir = NULL;
  GOptionEntry     entries[] = {
        { "idle-timeout", 0, 0, G_OPTION_ARG_INT, &options->idle_timeout,
          "Exit after SECONDS without a request and without sessions (default 120, 0 = never)", "SECONDS" },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_dir,
          "Keep the original values of the kernel settings changed for callers in DIR, so that a restart after a "
              "crash restores them (default " SYSPROFD_DEFAULT_STATE_DIR ")",
          "DIR" },
        { "start-timeout", 0, 0, G_OPTION_ARG_INT, &options->start_timeout,
          "Close a session that is not started within SECONDS of its creation (default 300)", "SECONDS" },
        { NULL },
  };

  g_return_val_if_fail (options != NULL, FALSE);

  *options = (SysprofdOptions){ SYSPROFD_DEFAULT_IDLE_TIMEOUT, NULL, SYSPROF_DBUS_START_TIMEOUT };
  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
                                "The sysprof system daemon: opens perf events and reads /proc for unprivileged\n"
                                "profilers over the system D-Bus (org.gnome.Sysprof3), after polkit authorizes\n"
                                "each call (action org.gnome.sysprof3.profile).  Started by D-Bus activation or\n"
                                "systemd (sysprof3.service); runs as root.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, argc, argv, error))
    return FALSE;
  if (*argc > 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "unexpected argument \"%s\"", (*argv)[1]);
      return FALSE;
    }
  if (options->idle_timeout < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--idle-timeout must be 0 (never) or more");
      return FALSE;
    }
  if (options->start_timeout < 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--start-timeout must be at least 1 second");
      return FALSE;
    }
  options->state_dir = state_dir ? g_steal_pointer (&state_dir) : g_strdup (SYSPROFD_DEFAULT_STATE_DIR);
  return TRUE;
}

void
sysprofd_options_clear (SysprofdOptions *options)
{
  g_clear_pointer (&options->state_dir, g_free);
}
