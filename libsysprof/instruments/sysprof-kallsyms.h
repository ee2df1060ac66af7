// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* Embeds /proc/kallsyms as FILE_CHUNK frames (path "/proc/kallsyms", pid -1),
 * so kernel addresses can be symbolized on another machine.  The kernel shows
 * real addresses only to readers with CAP_SYSLOG (kptr_restrict permitting):
 * call this from the privileged side. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_kallsyms_write (SysprofCaptureWriter *writer, GError **error);
/* The same, with only the lines a capture needs for the kernel addresses
 * @addresses (a set of guint64 in pointers, GSIZE_TO_POINTER): for each, the
 * text symbol that holds it and the one that follows it (where it ends).
 * The rest of the kernel's layout stays out of the capture, and so do the
 * 5 MB the whole table takes; readers (Sysprof 3.46's included) resolve the
 * same names for those addresses. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_kallsyms_write_for (SysprofCaptureWriter *writer, GHashTable *addresses, GError **error);

G_END_DECLS
