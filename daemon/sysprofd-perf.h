// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* perf_event_open(2) for a caller, from the a{sv} options of the established
 * PerfEventOpen method.  Returns the fd or -1 with a G_DBUS_ERROR. */
int sysprofd_perf_event_open (GVariant *options, int pid, int cpu, int group_fd, guint64 flags, GError **error);

G_END_DECLS
