// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ipc-session-manager-generated.h"

G_BEGIN_DECLS

/* org.gnome.Sysprof3.SessionManager: creates sessions, keeps them, enforces
 * the per-uid limit. */
IpcSessionManager *ipc_session_manager_impl_new (void);
guint              ipc_session_manager_impl_n_sessions (IpcSessionManager *manager);
/* Stops every session (finalizing its capture) and removes it; for shutdown. */
void ipc_session_manager_impl_close_all (IpcSessionManager *manager);

G_END_DECLS
