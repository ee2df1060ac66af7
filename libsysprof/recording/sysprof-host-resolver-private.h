// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_RECORDING_COMPILATION
#error "sysprof-host-resolver-private.h is private to libsysprof/recording."
#endif

#include <gio/gio.h>

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* Lets @symbolizer ask sysprofd (org.gnome.Sysprof3.Host on @connection)
 * about processes in other mount namespaces: ListDebugDirectories for their
 * debug directories (Flatpak runtimes and apps), ResolvePath for the host
 * path of their files.  Only useful while those processes still run, i.e.
 * right after a recording.  @connection is kept until @symbolizer goes. */
void _sysprof_host_resolver_attach (SysprofSymbolizer *symbolizer, GDBusConnection *connection);

G_END_DECLS
