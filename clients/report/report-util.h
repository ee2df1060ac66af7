// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: what the command files share.  sysprof-report.c parses the
 * command line and builds the callgraph; sysprof-report-tables.c prints the
 * tables (top, callers, callees, tree, collapsed); sysprof-report-flamegraph.c
 * writes the SVG; sysprof-report-memory.c is the `memory` command (its own
 * options, the memory analyses, the heap chart). */
#pragma once

#include <stdio.h>

#include <sysprof.h>

G_BEGIN_DECLS

/* Exit statuses (documented in --help). */
#define REPORT_EXIT_OK    0
#define REPORT_EXIT_ERROR 1 /* unreadable or corrupt capture, unknown function, output not written */
#define REPORT_EXIT_USAGE 2 /* bad command line */

typedef enum
{
  REPORT_FORMAT_TEXT,
  REPORT_FORMAT_TSV,
} ReportFormat;

typedef struct
{
  const char       *capture_path;
  SysprofCallgraph *callgraph;
  ReportFormat      format;
  /* At most this many rows; 0 = all. */
  guint limit;

  /* top */
  gboolean sort_by_total;
  /* callers, callees */
  const char *function_name;
  const char *library;
  /* tree */
  double threshold_percent;
  /* flamegraph */
  const char *output_path;
  guint       width;

  /* --memory: the callgraph is made of allocations (leaked ones only with
   * memory_leaked), weighted by their bytes with memory_bytes. */
  gboolean memory;
  gboolean memory_bytes;
  gboolean memory_leaked;
  /* What the callgraph counts, for the text: "samples", "allocations",
   * "bytes". */
  const char *unit;
} Report;

/* Aligned text tables (sysprof-report-tables.c). */
typedef struct
{
  const char *header;
  gboolean    right;     /* numbers: right-aligned */
  guint       max_width; /* characters; longer cells end in "…" (0: no limit) */
} Column;

typedef struct
{
  const Column *columns;
  guint         n_columns;
  GPtrArray    *cells; /* char *, row after row, valid UTF-8 */
} Table;

void table_init (Table *table, const Column *columns, guint n_columns);
void table_clear (Table *table);
void table_add (Table *table, const char *text);
void table_add_count (Table *table, guint64 value);
void table_add_percent (Table *table, double value);
void table_print (Table *table);

/* Shared by the commands (sysprof-report.c). */
void report_print_usage_error (const char *prgname, const char *message);
/* "1,2" and repeated options into one array of gint32 ids. */
gboolean report_parse_ids (char **values, const char *what, GArray *ids, GError **error);
gboolean report_seconds_to_ns (double seconds, const char *what, gint64 *ns, GError **error);
/* Opens @path and makes a symbolizer for it, loaded from it with @load;
 * NULL and @error prefixed with the path on failure. */
SysprofCaptureReader *report_open_capture (const char         *path,
                                           char              **debug_dirs,
                                           gboolean            no_local_files,
                                           gboolean            load,
                                           SysprofSymbolizer **symbolizer,
                                           GError            **error);
/* A SysprofCallgraphProgress: a percentage on a terminal's stderr. */
typedef struct
{
  gboolean tty;
  int      last_percent;
} ReportProgress;
void report_on_progress (guint64 bytes_read, guint64 bytes_total, gpointer user_data);

/* The percentage of the callgraph's samples that @samples is. */
double report_percent (const Report *report, guint64 samples);
/* Writes @text as a TSV field: tabs and newlines become spaces. */
void report_put_tsv_field (FILE *out, const char *text);

/* Each prints to stdout (the flamegraph to its file) and returns an exit
 * status, having printed any error to stderr. */
int report_top (const Report *report);
int report_callers (const Report *report, gboolean callers);
int report_tree (const Report *report);
int report_collapsed (const Report *report);
int report_flamegraph (const Report *report);

/* `sysprof-report memory ARGS…` (@argv[0] is "memory"); with @help_only,
 * prints its --help and returns. */
int report_memory_main (int argc, char **argv, gboolean help_only);
/* Its summary and description, for the general --help. */
extern const char report_memory_summary[];

G_END_DECLS
