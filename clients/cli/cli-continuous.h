// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <sysprof.h>

G_BEGIN_DECLS

/* sysprof-cli --continuous: what the command line asked for. */
typedef struct
{
  guint             period; /* seconds */
  const char       *output_dir;
  gboolean          pprof;        /* also a pprof export of each period */
  guint64           keep_seconds; /* retention; 0: no limit */
  guint64           keep_bytes;
  const char       *push_url; /* NULL: no pushing */
  const char       *push_name;
  guint             frequency; /* 0: the daemon's continuous default */
  SysprofPerfUnwind unwind;
  guint64           max_bytes; /* per period; 0: the daemon's default */
  guint             duration;  /* seconds; 0: until a signal */
} CliContinuousOptions;

/* Runs until SIGINT/SIGTERM or @options->duration; the exit status. */
int cli_continuous_run (const CliContinuousOptions *options);

G_END_DECLS
