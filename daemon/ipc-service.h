// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ipc-service-generated.h"

G_BEGIN_DECLS

/* org.gnome.Sysprof3.Service: every method implemented, each call
 * authorized and run by the dispatcher (sysprofd-dispatcher.h). */
IpcService *ipc_service_impl_new (void);

G_END_DECLS
