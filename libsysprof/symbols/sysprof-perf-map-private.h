// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-perf-map-private.h is private to libsysprof/symbols."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

#include "sysprof-perf-map-file.h"

/* A perf map: the names a JIT compiler gives the code it generated, as
 * /tmp/perf-PID.map holds them (Linux perf's jit-interface.txt), one line
 * each, "START SIZE NAME": START and SIZE in hexadecimal (a 0x prefix is
 * accepted), NAME the rest of the line.  Written by node --perf-basic-prof,
 * the JVM's perf agents, LuaJIT, CPython 3.12's perf trampolines, .NET...
 * The text is the profiled program's: lines that do not parse are skipped,
 * names are made valid UTF-8, and where ranges overlap (code memory reused)
 * the later line wins. */
typedef struct _SysprofPerfMap SysprofPerfMap;

SysprofPerfMap *sysprof_perf_map_new (const char *text, gsize len);
void            sysprof_perf_map_free (SysprofPerfMap *self);
guint           sysprof_perf_map_get_n_entries (SysprofPerfMap *self);
/* The name of the code at @address and its range [*begin, *end), or NULL. */
const char *sysprof_perf_map_lookup (SysprofPerfMap *self, guint64 address, guint64 *begin, guint64 *end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofPerfMap, sysprof_perf_map_free)

G_END_DECLS
