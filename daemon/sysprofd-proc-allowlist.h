// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Which files of /proc and /sys GetProcFile and GetProcFd hand out.  polkit
 * authorizes *profiling*, not reading other users' memory or secrets, so
 * only what a profiler reads is allowed: what Sysprof 3.46's client and ours
 * ask for (see the table in sysprofd-proc-allowlist.c).  Per-process files
 * of processes the caller does not own are limited to what symbolizing
 * needs; mem, environ, pagemap, stack, syscall, fd/ and the like never are,
 * nor anything of the daemon's own process. */
typedef enum
{
  /* A file about the system (/proc/kallsyms, /sys/.../cpufreq/...). */
  SYSPROFD_PROC_SCOPE_SYSTEM,
  /* A file of any process: maps, mountinfo, cmdline, comm, stat... */
  SYSPROFD_PROC_SCOPE_ANY_PROCESS,
  /* A file of a process the caller owns only. */
  SYSPROFD_PROC_SCOPE_OWN_PROCESS,
} SysprofdProcScope;

typedef struct
{
  /* "/proc" or "/sys". */
  const char *root;
  /* The path below @root, or below /proc/@pid for a process's file, with
   * single slashes ("kallsyms", "maps", "task/12/stat"). */
  char *below;
  /* The process for the PROCESS scopes, else 0. */
  int               pid;
  SysprofdProcScope scope;
} SysprofdProcRequest;

void sysprofd_proc_request_clear (SysprofdProcRequest *request);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SysprofdProcRequest, sysprofd_proc_request_clear)

/* Matches @path (absolute, from a D-Bus caller; "." and ".." components are
 * refused, repeated slashes tolerated) against the allowlist.  FALSE with
 * G_DBUS_ERROR_ACCESS_DENIED when it is not allowed. */
gboolean sysprofd_proc_allowlist_match (const char *path, SysprofdProcRequest *request, GError **error);

G_END_DECLS
