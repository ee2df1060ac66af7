// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The output directory of sysprof-cli --continuous: one capture per period,
 * named after the period's start, "sysprof-YYYYmmddTHHMMSS.uuuuuuZ.syscap"
 * (UTC), so that names sort as time does and a restarted sysprof-cli adds
 * to what is there without overwriting anything; beside each, when asked,
 * its pprof export, the same name with ".pb.gz".  Every file appears whole
 * or not at all: written under a hidden temporary name, synced, renamed.
 * Retention removes the periods (both files) that ended longer ago than the
 * age kept, then the oldest while the directory holds more than the size
 * kept; the newest period always stays. */
typedef struct _CliPeriodDir CliPeriodDir;

/* Creates @path if needed and removes temporary files a killed run left.
 * @keep_seconds / @keep_bytes: 0 keeps everything on that count. */
CliPeriodDir *cli_period_dir_open (const char *path, guint64 keep_seconds, guint64 keep_bytes, GError **error);
void          cli_period_dir_free (CliPeriodDir *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CliPeriodDir, cli_period_dir_free)

const char *cli_period_dir_get_path (CliPeriodDir *self);
/* Copies the capture read from @fd as the period that began at @begin_usec;
 * returns the path of the capture written, or NULL with @error (nothing of
 * it is left then). */
char *cli_period_dir_store (CliPeriodDir *self, gint64 begin_usec, int fd, GError **error);
/* The path the pprof export of @capture goes to, and a temporary path in the
 * same directory to write it first. */
char *cli_period_dir_pprof_path (const char *capture);
char *cli_period_dir_temporary_path (CliPeriodDir *self, const char *final_path);
/* The captures without their pprof export (a run killed while it was made),
 * oldest first. */
GPtrArray *cli_period_dir_list_without_pprof (CliPeriodDir *self);
/* Applies the retention; returns how many periods were removed. */
guint cli_period_dir_prune (CliPeriodDir *self, GError **error);

G_END_DECLS
