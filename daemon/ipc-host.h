// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ipc-host-generated.h"

G_BEGIN_DECLS

/* org.gnome.Sysprof3.Host: every method implemented and authorized,
 * invocations handled in worker threads. */
IpcHost *ipc_host_impl_new (void);

G_END_DECLS
