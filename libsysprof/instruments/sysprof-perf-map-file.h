// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <sys/types.h>

#include <gio/gio.h>

G_BEGIN_DECLS

/* The largest perf map read or parsed: a JVM with a million compiled methods
 * writes about 100 MB; what is beyond is left out. */
#define SYSPROF_PERF_MAP_MAX_SIZE ((gsize) 128 << 20)

/* The perf map (/tmp/perf-PID.map, the names JIT compilers give their code)
 * of process @pid of this machine, read with this process's own rights:
 * from /proc/PID/root/tmp/perf-NSPID.map while the process runs (NSPID its
 * pid in its own pid namespace), resolved inside that root without following
 * symlinks out of it, owned by the process's real uid; once it exited,
 * /tmp/perf-PID.map owned by @exited_owner (only when @exited_in_our_tmp:
 * the caller knows the process saw our /tmp).  Regular files only, opened
 * without blocking, at most SYSPROF_PERF_MAP_MAX_SIZE, cut after its last
 * whole line.  NULL with @error (G_IO_ERROR_NOT_FOUND when there is none).
 * The symbolizer reads the maps of the user's processes this way; sysprofd
 * reads those of every running process of a recording it was authorized
 * for. */
GBytes *sysprof_perf_map_file_read (gint32 pid, gboolean exited_in_our_tmp, uid_t exited_owner, GError **error);

/* What sysprof_perf_map_file_read() needs once @pid has exited, learnt while
 * it runs: its real uid (@owner) and whether its /tmp is this process's
 * (@in_our_tmp: the same directory, not only the same path).  FALSE when the
 * process is gone already or cannot be looked into. */
gboolean sysprof_perf_map_file_note_process (gint32 pid, uid_t *owner, gboolean *in_our_tmp);

G_END_DECLS
