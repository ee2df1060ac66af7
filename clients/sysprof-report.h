// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: what the command files share.  sysprof-report.c parses the
 * command line and builds the callgraph; sysprof-report-tables.c prints the
 * tables (top, callers, callees, tree, collapsed); sysprof-report-flamegraph.c
 * writes the SVG. */
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
} Report;

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

G_END_DECLS
