// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ipc-session-manager-generated.h"

G_BEGIN_DECLS

/* org.gnome.Sysprof3.SessionManager: creates sessions and keeps them until
 * they close (the limits are the budget's, sysprofd-budget.h). */
IpcSessionManager *ipc_session_manager_impl_new (void);
guint              ipc_session_manager_impl_n_sessions (IpcSessionManager *manager);
/* Closes every session (finalizing its capture in its thread); for shutdown:
 * they are gone once n_sessions is 0, the main context running meanwhile. */
void ipc_session_manager_impl_close_all (IpcSessionManager *manager);

G_END_DECLS
