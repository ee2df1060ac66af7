// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* Describes every process currently in /proc, as a recording needs it to
 * symbolize samples of processes that started before it:
 *  - a PROCESS frame with the command line (NULs turned into spaces), or
 *    "[comm]" for kernel threads and zombies;
 *  - MAP frames for the file-backed mappings and the anonymous executable ones
 *    ("//anon", "[vdso]", ...) of /proc/PID/maps;
 *  - the FILE_CHUNK frames of /proc/PID/mountinfo (frame pid = PID);
 * then /proc/mounts and /proc/cpuinfo (pid -1).  Processes that exit meanwhile
 * or whose files cannot be read are left out or described partially.  Fails
 * only when /proc cannot be listed or the capture cannot be written. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_proc_snapshot_write (SysprofCaptureWriter *writer, GError **error);

/* The same for the processes @pids only (those that exist), and the two
 * global files: a recording restricted to some processes tells nothing of
 * the others. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_proc_snapshot_write_pids (SysprofCaptureWriter *writer, const int *pids, gsize n_pids, GError **error);

G_END_DECLS
