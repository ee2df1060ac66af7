// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What sessions hold on behalf of a uid, charged before it is taken and
 * released when it is given back, so that no user, and not all of them
 * together, can take the daemon's file descriptors or pin its memory.  The
 * limits are those of sysprof-dbus-contract.h; the fd budget is the daemon's
 * RLIMIT_NOFILE less a reserve for its own work (bus, polkit, /proc reads).
 * Thread-safe: sessions charge from their own threads. */
typedef enum
{
  SYSPROFD_RESOURCE_SESSION,
  SYSPROFD_RESOURCE_RING,
  SYSPROFD_RESOURCE_RING_BYTES,
  SYSPROFD_RESOURCE_FD,
  /* Continuous sessions (CreateSession's "period"). */
  SYSPROFD_RESOURCE_CONTINUOUS,
  SYSPROFD_N_RESOURCES
} SysprofdResource;

/* Raises the soft fd limit to the hard one and sizes the fd budget from it. */
void sysprofd_budget_init (void);
/* Takes @amount of @what for @uid, or fails with
 * G_DBUS_ERROR_LIMITS_EXCEEDED saying which limit was reached. */
gboolean sysprofd_budget_charge (guint32 uid, SysprofdResource what, guint64 amount, GError **error);
void     sysprofd_budget_release (guint32 uid, SysprofdResource what, guint64 amount);
/* What @uid holds of @what, and whether @amount more stays within its own
 * limit (not the total's). */
gboolean sysprofd_budget_fits_uid (guint32 uid, SysprofdResource what, guint64 amount);

G_END_DECLS
