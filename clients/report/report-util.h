// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: what its verbs share.  main.c holds the verb table; each
 * report-VERB.c prints one report and owns its options; this header and
 * report-util.c give them the aligned text tables, the output formats, the
 * options every callgraph verb takes (filters, --format, --limit, --memory)
 * and the loading of a capture.  It knows no verb. */
#pragma once

#include <stdio.h>

#include <sysprof.h>

G_BEGIN_DECLS

/* Exit statuses (documented in --help). */
#define REPORT_EXIT_OK    0
#define REPORT_EXIT_ERROR 1 /* unreadable or corrupt capture, unknown function, output not written */
#define REPORT_EXIT_USAGE 2 /* bad command line */

/* What a CPU sample stands for without a recorded frequency: sysprof-cli's
 * default, 997 Hz, in nanoseconds. */
#define REPORT_DEFAULT_PERIOD_NS (G_GINT64_CONSTANT (1000000000) / 997)

typedef enum
{
  REPORT_FORMAT_TEXT,
  REPORT_FORMAT_TSV,
  REPORT_FORMAT_SVG,        /* verbs with svg_format only */
  REPORT_FORMAT_PPROF,      /* verbs with export_formats only */
  REPORT_FORMAT_SPEEDSCOPE, /* likewise */
  REPORT_FORMAT_PERF_SCRIPT,
} ReportFormat;

/* What a callgraph verb prints from: the callgraph, built with the shared
 * options, and how to print it. */
typedef struct _Report
{
  const char       *capture_path;
  SysprofCallgraph *callgraph;
  /* The words before CAPTURE on the command line (FUNCTION for callers and
   * callees), as many as the verb's parameters name. */
  char *const *args;
  ReportFormat format;
  /* At most this many rows; 0 = all. */
  guint limit;

  /* --memory: the callgraph is made of allocations (leaked ones only with
   * memory_leaked), weighted by their bytes with memory_bytes. */
  gboolean memory;
  gboolean memory_bytes;
  gboolean memory_leaked;
  /* What the callgraph counts, for the text: "samples", "allocations",
   * "bytes". */
  const char *unit;
  /* --lines: the functions are source lines. */
  gboolean lines;
  /* --off-cpu or --wall-clock: every count is microseconds. */
  gboolean time_weighted;

  /* What the callgraph was built with, for a verb that builds more
   * (export --format speedscope: one per thread); valid during run(). */
  const SysprofCallgraphFilter *filter;
  char                        **debug_dirs;
  gboolean                      no_local_files;

  /* A verb of two captures (diff): the first one's callgraph, built with
   * the same options, and its path; capture_path is the second. */
  SysprofCallgraph *before;
  const char       *before_path;
} Report;

/* A verb of sysprof-report.  A callgraph verb (top, callers, …) gives its
 * parameters, help text, options and printer, and report_callgraph_main()
 * reads its command line and builds the callgraph.  A verb with a command
 * line of its own (memory) gives main instead. */
typedef struct
{
  const char *name;
  /* For the list of verbs in the general --help: one line, or more indented
   * to line up with the first. */
  const char *summary;

  /* A verb with its own command line: @argv[0] is the verb's name; with
   * @help_only, it prints its --help and returns.  NULL for a callgraph verb. */
  int (*main) (int argc, char **argv, gboolean help_only);

  /* Callgraph verbs. */
  /* "CAPTURE", or the words before it and "CAPTURE" ("FUNCTION CAPTURE"). */
  const char *parameters;
  /* Its --help, before the text on --focus, --hide and --memory. */
  const char *description;
  /* Its own options, or NULL; they store into the verb's file. */
  const GOptionEntry *entries;
  /* The rows of the text table when --limit is not given (0: all). */
  guint text_limit;
  /* Checks the values of its own options, or NULL: FALSE with @error on a
   * usage error.  @report has its format and limit; no callgraph yet. */
  gboolean (*check) (const struct _Report *report, GError **error);
  /* Prints the report (the flamegraph to its file) and returns an exit
   * status, having printed any error to stderr. */
  int (*run) (const Report *report);
  /* A verb of two captures: the first parameter is a capture too, read
   * into Report.before.  It may change the filter of each side (@before
   * TRUE for the first), or NULL. */
  gboolean two_captures;
  void (*adjust_filter) (gboolean before, SysprofCallgraphFilter *filter);
  /* --format svg is accepted too (the verb draws a picture). */
  gboolean svg_format;
  /* --format names another tool's format instead (pprof, the default,
   * speedscope or perf-script). */
  gboolean export_formats;
  /* What the report needs from the callgraph beyond the options (its
   * samples kept, say), set on the filter it is built with; or NULL.
   * @report has its format. */
  void (*prepare_filter) (const struct _Report *report, SysprofCallgraphFilter *filter);
} ReportVerb;

/* The options every callgraph verb takes, and the general --help shows. */
typedef struct
{
  char   **pids;
  char   **tids;
  char   **comms;
  double   begin;
  double   end;
  gboolean no_kernel;
  char   **focus;
  char   **hide;
  char    *format;
  gint     limit;
  char   **debug_dirs;
  gboolean no_local_files;
  gboolean version;
  char    *memory;
  gboolean lines;
  gboolean off_cpu;
  gboolean wall_clock;
} ReportOptions;

void report_options_clear (ReportOptions *options);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ReportOptions, report_options_clear)
/* Makes them the main group of @context, storing into @options. */
void report_add_options (GOptionContext *context, ReportOptions *options);

/* `sysprof-report VERB ARGS…` for a callgraph verb (@argv[0] is the verb's
 * name); with @help_only, prints the verb's --help and returns. */
int report_callgraph_main (const ReportVerb *verb, int argc, char **argv, gboolean help_only);

/* Aligned text tables. */
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

/* Writes @text as a TSV field: tabs and newlines become spaces. */
void report_put_tsv_field (FILE *out, const char *text);
/* The percentage of the callgraph's samples that @samples is. */
double report_percent (const Report *report, guint64 samples);
/* The first line of a text report: the capture and what it counts. */
void report_print_summary_line (const Report *report);
/* The name a report prints for @function: its symbol's name, followed by
 * " (FILE:LINE)" (the file's base name) when it stands for a source line
 * (--lines). */
char *report_function_label (const SysprofCallgraphFunction *function);
/* "FILE:LINE" of a source line (the full path), or "" when unknown. */
char *report_function_source (const SysprofCallgraphFunction *function);
/* The name perf gives a process's threads (their comm) from the name the
 * capture gives it (a command line, or a comm already): the base name of
 * its first word, cut to the 15 bytes the kernel keeps. */
char *report_process_comm (const char *name);

/* Whether a function table lists @function: not the root or a process
 * node, and on some stack. */
gboolean report_function_is_listed (const SysprofCallgraphFunction *function);
/* Sorts SysprofCallgraphFunction pointers by total, then self, then name. */
gint report_compare_by_total (gconstpointer a, gconstpointer b);

void report_print_usage_error (const char *prgname, const char *message);
/* The start of a verb with a command line of its own: with @help_only prints
 * @context's help; else parses the command line (a usage error printed) and
 * answers --version (@version, set by the parse).  -1 when the verb goes on,
 * else the exit status to return. */
int report_start_own_command_line (
    GOptionContext *context, const char *prgname, int *argc, char ***argv, gboolean help_only, const gboolean *version);
/* text or tsv (NULL: text); FALSE with a usage message. */
gboolean report_parse_text_format (const char *format, ReportFormat *out, GError **error);
/* @path opened for reading, or NULL after printing why (the verbs that read
 * frames themselves; report_open_capture() also makes the symbolizer). */
SysprofCaptureReader *report_open_reader (const char *path);
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
/* On stderr: the binaries whose debug info debuginfod could not give (one
 * line), if any. */
void report_print_symbol_note (SysprofSymbolizer *symbolizer);
/* A SysprofCallgraphProgress: a percentage on a terminal's stderr. */
typedef struct
{
  gboolean tty;
  int      last_percent;
} ReportProgress;
void report_on_progress (guint64 bytes_read, guint64 bytes_total, gpointer user_data);

G_END_DECLS
