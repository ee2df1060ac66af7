// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sysprofd-options.h"

G_BEGIN_DECLS

/* Owns org.gnome.Sysprof3 on the system bus and serves it until SIGTERM,
 * SIGINT, the idle timeout or the loss of the name; then restores the kernel
 * settings and finalizes running captures.  Returns the exit status. */
int sysprofd_daemon_run (const SysprofdOptions *options);

G_END_DECLS
