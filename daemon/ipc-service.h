// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ipc-service-generated.h"

G_BEGIN_DECLS

/* org.gnome.Sysprof3.Service: a skeleton with every method implemented and
 * authorized, its invocations handled in worker threads. */
IpcService *ipc_service_impl_new (void);
/* Puts kernel.perf_event_paranoid back as it was before any caller changed it. */
void ipc_service_impl_restore_system (void);

G_END_DECLS
