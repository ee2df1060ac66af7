// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The kernel settings sysprofd changes for its callers, kernel.
 * perf_event_paranoid (SetParanoid) and the CPU frequency governors
 * (SetGovernor), come back to what they were once every caller that changed
 * them has left the bus, when the daemon exits, and, because the original
 * values are saved in a file of @state_dir before the first change, when the
 * daemon starts again after a crash.  A lowered perf_event_paranoid left
 * behind would let any user open system-wide perf events.  Thread-safe. */

/* Restores whatever an earlier daemon saved and did not restore. */
void sysprofd_system_state_init (const char *state_dir);
/* Sets perf_event_paranoid to @value (clamped to -1..2) for the bus name
 * @holder, and gives the value before in @old. */
gboolean sysprofd_system_state_set_paranoid (
    GDBusConnection *connection, const char *holder, int value, int *old, GError **error);
/* Sets the governor of every CPU for @holder; @old is CPU 0's before, or
 * "unknown" when there is no frequency scaling (nothing changes then). */
gboolean sysprofd_system_state_set_governor (
    GDBusConnection *connection, const char *holder, const char *governor, char **old, GError **error);
/* Everything back, now (the daemon exits). */
void sysprofd_system_state_restore_all (void);

G_END_DECLS
