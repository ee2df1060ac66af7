// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ipc-host-generated.h"

G_BEGIN_DECLS

/* org.gnome.Sysprof3.Host: every method implemented, each call authorized
 * and run on a worker by the dispatcher (sysprofd-dispatcher.h). */
IpcHost *ipc_host_impl_new (void);

G_END_DECLS
