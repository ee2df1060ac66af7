// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-debuginfod-private.h is private to libsysprof/symbols."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/* Separate debug files fetched by build-id from the servers of
 * $DEBUGINFOD_URLS through libdebuginfod, which keeps them in its own cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client).  Time is
 * bounded: a file for which no byte arrives within the stall timeout is given
 * up, and all fetches together stop at the total budget.  After a timeout or
 * an unreachable server nothing more is asked (the next files would wait the
 * same way); they count as failed for the same reason.  Thread-safe. */
typedef struct _SysprofDebuginfod SysprofDebuginfod;

/* @file: the binary whose debug file is coming (a path), @done and @total
 * bytes (@total 0 while unknown).  Called with @file NULL once a fetch ended.
 * Runs in the thread that asked. */
typedef void (*SysprofDebuginfodProgress) (const char *file, guint64 done, guint64 total, gpointer user_data);

/* NULL when $DEBUGINFOD_URLS is unset or blank.  The stall timeout is
 * $DEBUGINFOD_TIMEOUT seconds when set (a positive integer), else 10 s; the
 * total budget 6 times it. */
SysprofDebuginfod *sysprof_debuginfod_new_from_environment (void);
SysprofDebuginfod *sysprof_debuginfod_ref (SysprofDebuginfod *self);
void               sysprof_debuginfod_unref (SysprofDebuginfod *self);

void sysprof_debuginfod_set_timeouts (SysprofDebuginfod *self, gint64 stall_usec, gint64 total_usec);
void sysprof_debuginfod_set_progress (SysprofDebuginfod *self, SysprofDebuginfodProgress progress, gpointer user_data);

/* The debug file of the binary @for_path whose build-id is @build_id (hex):
 * an fd open on it (its path in the cache in *@path, if not NULL), or -1
 * with @error.  Each build-id is asked once: later calls give the same
 * answer (a new fd) without asking again. */
int sysprof_debuginfod_find_debuginfo (
    SysprofDebuginfod *self, const char *build_id, const char *for_path, char **path, GError **error);

/* One line on what could not be fetched, e.g. "3 files without debug info:
 * a.so, b, c.so (debuginfod: timeout)", several reasons separated by "; ",
 * at most a few names each; NULL when every file asked for came. */
char *sysprof_debuginfod_dup_failures (SysprofDebuginfod *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofDebuginfod, sysprof_debuginfod_unref)

G_END_DECLS
