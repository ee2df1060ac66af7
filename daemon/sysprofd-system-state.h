// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The kernel settings sysprofd changes for its callers, kernel.
 * perf_event_paranoid (SetParanoid) and the CPU frequency governors
 * (SetGovernor), come back to what they were once every caller that changed
 * them has left the bus, when the daemon exits, and, because the original
 * values are saved in a file of the state directory before the first change,
 * when the daemon starts again after a crash.  A lowered perf_event_paranoid
 * left behind would let any user open system-wide perf events, so:
 *  - without a state file that can be written, nothing is changed;
 *  - a saved perf_event_paranoid is restored at start-up only if that raises
 *    it, and a saved governor only to a cpuN directory that the kernel lists,
 *    beneath /sys/devices/system/cpu, which offers that governor;
 *  - a state file that is not a small regular file of root's is ignored and
 *    removed, without blocking (a FIFO) or following a link.
 * Only /proc/sys/kernel/perf_event_paranoid and
 * /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor are ever written.
 * Thread-safe; the name watches run in the main context. */

/* Makes @state_dir (created 0700, made private if it is not) the home of the
 * state file, and restores what an earlier daemon saved and did not restore.
 * With @state_dir NULL or unusable, SetParanoid and SetGovernor are refused. */
void sysprofd_system_state_init (const char *state_dir);
/* Sets perf_event_paranoid to @value (clamped to -1..2) for the bus name
 * @holder, and gives the value before in @old. */
gboolean sysprofd_system_state_set_paranoid (
    GDBusConnection *connection, const char *holder, int value, int *old, GError **error);
/* Sets the governor of every CPU for @holder; @old is CPU 0's before, or
 * "unknown" when there is no frequency scaling (nothing changes then).  A
 * governor CPU 0 does not offer is G_DBUS_ERROR_INVALID_ARGS. */
gboolean sysprofd_system_state_set_governor (
    GDBusConnection *connection, const char *holder, const char *governor, char **old, GError **error);
/* Everything back, now (the daemon exits). */
void sysprofd_system_state_restore_all (void);

G_END_DECLS
