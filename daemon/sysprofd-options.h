// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The daemon is established after this long without a call. */
#define SYSPROFD_DEFAULT_IDLE_TIMEOUT 120
/* Where the settings changed for callers are saved (systemd's
 * RuntimeDirectory=sysprofd): gone at boot, like the settings themselves. */
#define SYSPROFD_DEFAULT_STATE_DIR "/run/sysprofd"

/* sysprofd's command line. */
typedef struct
{
  int   idle_timeout;  /* seconds, 0: never */
  char *state_dir;     /* never NULL once parsed */
  int   start_timeout; /* seconds, at least 1 */
} SysprofdOptions;

/* Defaults, then @argv (which loses the options it held).  FALSE with
 * G_OPTION_ERROR for a bad command line, a message fit for the user. */
gboolean sysprofd_options_parse (SysprofdOptions *options, int *argc, char ***argv, GError **error);
void     sysprofd_options_clear (SysprofdOptions *options);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SysprofdOptions, sysprofd_options_clear)

G_END_DECLS
