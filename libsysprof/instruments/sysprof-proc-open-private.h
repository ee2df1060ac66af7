// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-proc-open-private.h is private to libsysprof/instruments."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* @path opened read-only, without blocking, as process @pid sees it:
 * resolved inside /proc/PID/root (a symbolic link cannot lead out of its
 * view, no magic link is followed), or in our own view with @pid 0.  With
 * @nofollow the file itself must not be a symbolic link.  Opening the root
 * is the kernel's ptrace check on @pid.  -1 with errno on failure. */
int _sysprof_open_in_process_root (gint32 pid, const char *path, gboolean nofollow);

G_END_DECLS
