// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What the /.flatpak-info of a Flatpak instance says about where its files
 * are on the host.  Every field may be NULL: it was missing, or unusable in a
 * path (see sysprofd_flatpak_info_parse). */
typedef struct
{
  char *app_id;     /* [Application] name */
  char *app_arch;   /* [Instance] arch, or the runtime's */
  char *app_branch; /* [Instance] branch */
  char *runtime_id; /* [Application] runtime = runtime/ID/ARCH/BRANCH */
  char *runtime_arch;
  char *runtime_branch;
  char *app_path;     /* [Instance] app-path: the app's files/ on the host */
  char *runtime_path; /* [Instance] runtime-path */
} SysprofdFlatpakInfo;

void sysprofd_flatpak_info_free (SysprofdFlatpakInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofdFlatpakInfo, sysprofd_flatpak_info_free)

/* Parses the contents of a /.flatpak-info.  It comes from inside a sandbox,
 * so it is untrusted: ids, arches and branches are kept only when made of
 * letters, digits, '.', '_' and '-' (and not "." or ".."), so that they
 * cannot climb out of the directories they are put in; paths only when
 * absolute, and then without "." and "..".  Fails only when it is not a key
 * file at all. */
SysprofdFlatpakInfo *sysprofd_flatpak_info_parse (const char *data, gsize len, GError **error);

/* The host directories that may hold debug information for the instance, in
 * the order of Host.ListDebugDirectories, whether they exist or not:
 * app-path/lib/debug, runtime-path/lib/debug, then the .Debug extensions of
 * the app and of the runtime in the system installation and in the one of
 * @home (the home directory of the process's user; may be NULL). */
GPtrArray *sysprofd_flatpak_info_debug_directories (const SysprofdFlatpakInfo *info, const char *home);

G_END_DECLS
