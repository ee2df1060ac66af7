// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: callgraph reports of a capture (top functions, callers,
 * callees, call tree, flame graph, folded stacks) and its memory analyses.
 * This file parses the command line, opens the capture and builds the
 * callgraph; the `memory` command lives in sysprof-report-memory.c. */

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report-util.h"

typedef struct
{
  const char *name;
  const char *parameters;
  const char *summary;
  const char *description;
} Command;

static const char exit_status_text[] =
    "Exit status: 0 on success; 1 when the capture cannot be opened or read to its end\n"
    "(the error names the byte offset of the damage), when FUNCTION is not in the\n"
    "callgraph, or when the output cannot be written; 2 on a usage error.";

static const Command commands[] = {
  { "top", "CAPTURE", "Functions by the samples they were running in (the default command).",
    "Columns: function, library, self_samples (samples in which the function was the\n"
    "innermost frame), total_samples (samples in which it was anywhere on the stack,\n"
    "once per sample even when it recurses), self_percent, total_percent (of the\n"
    "samples that passed the filters).  Sorted by self_samples, or total_samples\n"
    "with --sort total.  Process nodes (\"[name]\") and the root are not listed;\n"
    "context nodes (\"- - kernel - -\") are, and their total is the time spent in\n"
    "that context.  The text table shows 30 rows unless --limit says otherwise." },
  { "callers", "FUNCTION CAPTURE", "Functions that call FUNCTION directly.",
    "Columns: function, library, samples (samples in which that function called\n"
    "FUNCTION, each sample once even through recursion), percent (of the samples\n"
    "that passed the filters).  The caller of an outermost frame is its process\n"
    "node (\"[name]\"); the caller of the first kernel frame is the context node;\n"
    "with --focus, the caller of a focused function where its stacks were cut is\n"
    "the root \"[Everything]\".  FUNCTION is a name exactly as `top` prints it\n"
    "(with --focus and --hide applied: a hidden function is not there);\n"
    "--library picks one of several functions of that name." },
  { "callees", "FUNCTION CAPTURE", "Functions that FUNCTION calls directly.",
    "Columns: function, library, samples (samples in which FUNCTION called that\n"
    "function, each sample once), percent.  FUNCTION as for `callers`." },
  { "tree", "CAPTURE", "The top-down call tree.",
    "The root \"[Everything]\", then one node per process name (\"[name]\", or\n"
    "\"[Process PID]\" without a name), then the frames from the outermost in; a\n"
    "\"- - kernel - -\" node marks where a stack enters the kernel.  With --focus,\n"
    "the root's children are the focused functions instead of the processes.\n"
    "Children are sorted by total, and nodes below --threshold percent of the\n"
    "samples are left out with their subtrees.  Text: total and self percentages,\n"
    "then the function indented two spaces per level.  TSV columns: depth,\n"
    "function, library, total_samples, self_samples, total_percent." },
  { "flamegraph", "CAPTURE", "Write a flame graph as a standalone SVG file.",
    "Frames are boxes as wide as their samples, the root at the bottom and callees\n"
    "above their callers; hover a box for \"function (library) N samples, P%\".\n"
    "Colours: warm for user code, orange for the kernel, grey for addresses\n"
    "without a symbol, blue-grey for process and context nodes.  Boxes narrower\n"
    "than a third of a pixel are left out.  The file needs no script or font;\n"
    "its path is printed.  Default output: the capture's base name with .svg, in\n"
    "the current directory; -o - writes to standard output.  With --memory=bytes\n"
    "the boxes are as wide as the bytes allocated below them." },
  { "collapsed", "CAPTURE", "Print folded stacks (flamegraph.pl's input).",
    "One line per distinct stack: the frames from the outermost in, process node\n"
    "first (the focused function with --focus), separated by ';', then a space and\n"
    "the number of samples.  The counts add up to the samples that passed the\n"
    "filters.  ';' inside a name is printed as ':'.  With --memory the count is\n"
    "allocations (bytes with --memory=bytes)." },
  { "memory", "[--summary|--leaks|--temporary|--cross-thread|--over-time|--diff] CAPTURE…", report_memory_summary, "" },
};

static const char memory_option_text[] = "--memory[=MODE] makes every command above a report of the ALLOCATION frames\n"
                                         "(recorded with sysprof-cli --memprof) instead of the stack samples:\n"
                                         "  --memory, --memory=count    allocations: counts are allocations, and the\n"
                                         "                              bytes are shown beside them (top, tree,\n"
                                         "                              callers, callees: *_bytes columns)\n"
                                         "  --memory=bytes              the bytes allocated are the weight (sorting,\n"
                                         "                              percentages, flame graph widths, collapsed)\n"
                                         "  --memory=leaked             only the allocations still live at the end of\n"
                                         "                              the capture (or of --end), counted\n"
                                         "  --memory=leaked-bytes       the same, weighted by bytes\n"
                                         "The stacks end at the allocation site: the allocator's frames (malloc,\n"
                                         "g_malloc, operator new, … and the preload library's) are left out.  TSV\n"
                                         "columns become self_allocations, total_allocations, self_bytes, total_bytes\n"
                                         "(top), allocations, bytes (callers, callees), total_allocations,\n"
                                         "self_allocations, total_bytes, self_bytes (tree); without counts under\n"
                                         "--memory=bytes.  --begin/--end/--pid/--tid select allocations; a capture\n"
                                         "without ALLOCATION frames is an error (exit status 1).";

static const char focus_option_text[] =
    "--focus=FUNCTION and --hide=FUNCTION reshape the call graph around functions,\n"
    "named exactly as `top` prints them (code frames only, never \"[name]\" or\n"
    "\"- - kernel - -\"); both are repeatable:\n"
    "  --focus=FUNCTION   only the samples with FUNCTION (any of the focused\n"
    "                     functions) on their stack count, and each stack starts at\n"
    "                     its outermost FUNCTION frame: processes and callers are\n"
    "                     dropped, so percentages are of the samples in FUNCTION\n"
    "  --hide=FUNCTION    FUNCTION's frames are removed from the stacks, its callees\n"
    "                     joining its caller; no sample is lost: its self samples go\n"
    "                     to the next frame outward that is kept (the process or\n"
    "                     \"- - kernel - -\" node when there is none)\n"
    "The focus is applied first, then the hidden frames are removed.  A function\n"
    "both focused and hidden sets where the stacks start, then goes: its callees\n"
    "are the top level, and the samples that ended in it stay on \"[Everything]\"\n"
    "(collapsed prints them as the stack \"[Everything]\").  The frames --no-kernel\n"
    "drops, and the allocator frames under --memory, are not there to match.";

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
  /* Command specific. */
  char  *sort;
  char  *library;
  double threshold;
  char  *output;
  gint   width;
  char  *memory;
} Options;

static void
options_clear (Options *options)
{
  g_strfreev (options->pids);
  g_strfreev (options->tids);
  g_strfreev (options->comms);
  g_strfreev (options->focus);
  g_strfreev (options->hide);
  g_free (options->format);
  g_strfreev (options->debug_dirs);
  g_free (options->sort);
  g_free (options->library);
  g_free (options->output);
  g_free (options->memory);
}

static gboolean
on_memory_option (const char *name, const char *value, gpointer data, GError **error)
{
  Options *o = data;

  (void) name;
  (void) error;
  g_free (o->memory);
  o->memory = g_strdup (value != NULL ? value : "count");
  return TRUE;
}

static void
add_common_entries (GOptionContext *context, Options *o)
{
  const GOptionEntry entries[] = {
    { "pid", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o->pids,
      "Only samples of process PID (repeatable, or a comma-separated list)", "PID" },
    { "tid", 't', 0, G_OPTION_ARG_STRING_ARRAY, &o->tids,
      "Only samples of thread TID (repeatable, or a comma-separated list)", "TID" },
    { "comm", 'c', 0, G_OPTION_ARG_STRING_ARRAY, &o->comms,
      "Only processes named NAME: their command name, or the base name of its first word (repeatable)", "NAME" },
    { "begin", 'b', 0, G_OPTION_ARG_DOUBLE, &o->begin, "Only samples at or after SECONDS from the capture's start",
      "SECONDS" },
    { "end", 'e', 0, G_OPTION_ARG_DOUBLE, &o->end, "Only samples at or before SECONDS from the capture's start",
      "SECONDS" },
    { "no-kernel", 'K', 0, G_OPTION_ARG_NONE, &o->no_kernel,
      "Drop kernel frames; the \"- - kernel - -\" node keeps their samples as its own", NULL },
    { "focus", 'F', 0, G_OPTION_ARG_STRING_ARRAY, &o->focus,
      "Only samples with FUNCTION on the stack, each stack starting at its outermost FUNCTION frame (repeatable)",
      "FUNCTION" },
    { "hide", 'H', 0, G_OPTION_ARG_STRING_ARRAY, &o->hide,
      "Remove FUNCTION's frames from the stacks; its samples go to its caller (repeatable)", "FUNCTION" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &o->limit, "Print at most N rows (0: all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format,
      "text (aligned table, the default) or tsv (a header row, then tab-separated rows)", "FORMAT" },
    { "debug-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->debug_dirs,
      "Also look for separate debug files in DIR, after /usr/lib/debug (repeatable)", "DIR" },
    { "no-local-files", 0, 0, G_OPTION_ARG_NONE, &o->no_local_files,
      "Only use the symbols the capture embeds, never this machine's binaries", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o->version, "Print the version and exit", NULL },
    { NULL },
  };
  const GOptionEntry memory_entries[] = {
    { "memory", 'm', G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer) on_memory_option,
      "Report allocations instead of samples: count (the default), bytes, leaked or leaked-bytes", "MODE" },
    { NULL },
  };
  /* A callback option gets its data from its group: the main group is
   * made here, with @o as its data. */
  GOptionGroup *group = g_option_group_new (NULL, NULL, NULL, o, NULL);

  g_option_group_add_entries (group, entries);
  g_option_group_add_entries (group, memory_entries);
  g_option_context_set_main_group (context, group);
}

static void
add_command_entries (GOptionContext *context, const Command *command, Options *o)
{
  const GOptionEntry top[] = {
    { "sort", 's', 0, G_OPTION_ARG_STRING, &o->sort, "Sort by self (the default) or total", "KEY" },
    { NULL },
  };
  const GOptionEntry edges[] = {
    { "library", 'l', 0, G_OPTION_ARG_STRING, &o->library,
      "The FUNCTION of this library, when several functions have its name", "LIBRARY" },
    { NULL },
  };
  const GOptionEntry tree[] = {
    { "threshold", 'T', 0, G_OPTION_ARG_DOUBLE, &o->threshold,
      "Leave out nodes below PERCENT of the samples (default 1.0)", "PERCENT" },
    { NULL },
  };
  const GOptionEntry flamegraph[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output, "Write the SVG to FILE (- for standard output)", "FILE" },
    { "width", 'w', 0, G_OPTION_ARG_INT, &o->width, "Width of the image in pixels (default 1200)", "PIXELS" },
    { NULL },
  };

  if (g_str_equal (command->name, "top"))
    g_option_context_add_main_entries (context, top, NULL);
  else if (g_str_equal (command->name, "callers") || g_str_equal (command->name, "callees"))
    g_option_context_add_main_entries (context, edges, NULL);
  else if (g_str_equal (command->name, "tree"))
    g_option_context_add_main_entries (context, tree, NULL);
  else if (g_str_equal (command->name, "flamegraph"))
    g_option_context_add_main_entries (context, flamegraph, NULL);
}

static const Command *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      return &commands[i];
  return NULL;
}

static GOptionContext *
new_general_context (Options *options)
{
  g_autoptr (GString) summary =
      g_string_new ("Summarize where the stack samples (or the allocations) of a Sysprof capture\n"
                    "were taken.\n\n"
                    "Commands:\n");
  GOptionContext *context = g_option_context_new ("CAPTURE");

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (summary, "  %-11s %s\n", commands[i].name, commands[i].summary);
  g_string_append (summary, "\n`sysprof-report COMMAND --help` describes a command and its columns; the options\n"
                            "below are common to all of them.");
  g_option_context_set_summary (context, summary->str);
  g_option_context_set_description (
      context, "Every command reads the SAMPLE frames of CAPTURE (a Sysprof capture, .syscap,\n"
               "from this project or GNOME Sysprof 3.46 and later) through the same filters;\n"
               "counts are samples and percentages are of the samples that passed the\n"
               "filters.  Symbols come from the capture's embedded __symbols__ table and\n"
               "kernel symbols first, then from the binaries and debug files of this machine.\n\n"
               "Examples:\n"
               "  sysprof-report capture.syscap                      the 30 busiest functions\n"
               "  sysprof-report top --sort total --comm gjs capture.syscap\n"
               "  sysprof-report callers g_main_context_iteration capture.syscap\n"
               "  sysprof-report tree --threshold 5 --no-kernel capture.syscap\n"
               "  sysprof-report tree --focus gtk_main --hide g_free capture.syscap\n"
               "  sysprof-report flamegraph -o cpu.svg --begin 2 --end 4.5 capture.syscap\n"
               "  sysprof-report collapsed capture.syscap | flamegraph.pl > cpu.svg\n"
               "  sysprof-report memory --leaks memprof.syscap       allocations never freed\n"
               "  sysprof-report top --memory=bytes memprof.syscap   who allocates the most bytes\n\n"
               "The callgraph commands take --memory[=count|bytes|leaked|leaked-bytes] to report\n"
               "allocations (sysprof-cli --memprof) instead of samples; `sysprof-report help top`\n"
               "describes it.  --focus=FUNCTION keeps only the stacks through FUNCTION, starting\n"
               "at it; --hide=FUNCTION removes its frames and gives its samples to its caller.\n\n"
               "Exit status: 0 on success; 1 when the capture cannot be opened or read to its end\n"
               "(the error names the byte offset of the damage), when FUNCTION is not in the\n"
               "callgraph, or when the output cannot be written; 2 on a usage error.");
  add_common_entries (context, options);
  return context;
}

static GOptionContext *
new_command_context (const Command *command, Options *options)
{
  g_autofree char *parameters = g_strdup_printf ("%s", command->parameters);
  g_autofree char *description = g_strdup_printf ("%s\n\n%s\n\n%s\n\n%s", command->description, focus_option_text,
                                                  memory_option_text, exit_status_text);
  GOptionContext  *context = g_option_context_new (parameters);

  g_option_context_set_summary (context, command->summary);
  g_option_context_set_description (context, description);
  add_common_entries (context, options);
  add_command_entries (context, command, options);
  return context;
}

gboolean
report_parse_ids (char **values, const char *what, GArray *ids, GError **error)
{
  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    {
      g_auto (GStrv) parts = g_strsplit (values[i], ",", -1);

      for (guint j = 0; parts[j] != NULL; j++)
        {
          gint64 value;

          if (!g_ascii_string_to_signed (g_strstrip (parts[j]), 10, G_MININT32, G_MAXINT32, &value, NULL))
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s: “%s” is not a number", what,
                           parts[j]);
              return FALSE;
            }
          {
            gint32 id = (gint32) value;
            g_array_append_val (ids, id);
          }
        }
    }
  return TRUE;
}

gboolean
report_seconds_to_ns (double seconds, const char *what, gint64 *ns, GError **error)
{
  if (!isfinite (seconds) || fabs (seconds) > 9.2e9)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s: %g is not a usable number of seconds", what,
                   seconds);
      return FALSE;
    }
  *ns = (gint64) llround (seconds * 1e9);
  return TRUE;
}

void
report_print_usage_error (const char *prgname, const char *message)
{
  g_printerr ("%s: %s\nTry “%s --help”.\n", prgname, message, prgname);
}

void
report_on_progress (guint64 bytes_read, guint64 bytes_total, gpointer user_data)
{
  ReportProgress *progress = user_data;
  int             percent;

  if (!progress->tty || bytes_total == 0)
    return;
  percent = (int) MIN (100, bytes_read * 100 / bytes_total);
  if (percent != progress->last_percent)
    {
      progress->last_percent = percent;
      g_printerr ("\rReading the capture… %d%%%s", percent, percent == 100 ? "\r                          \r" : "");
    }
}

SysprofCaptureReader *
report_open_capture (const char         *path,
                     char              **debug_dirs,
                     gboolean            no_local_files,
                     gboolean            load,
                     SysprofSymbolizer **symbolizer,
                     GError            **error)
{
  g_autoptr (SysprofSymbolizer) loaded = sysprof_symbolizer_new ();
  SysprofCaptureError   capture_error = { 0 };
  SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (path, &capture_error);

  if (reader == NULL)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (capture_error.code ? capture_error.code : EIO), "%s: %s",
                   path, capture_error.message[0] ? capture_error.message : g_strerror (capture_error.code));
      return NULL;
    }

  for (guint i = 0; debug_dirs != NULL && debug_dirs[i] != NULL; i++)
    sysprof_symbolizer_add_debug_dir (loaded, debug_dirs[i]);
  sysprof_symbolizer_set_use_local_files (loaded, !no_local_files);
  if (load && !sysprof_symbolizer_load (loaded, reader, error))
    {
      sysprof_capture_reader_unref (reader);
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  *symbolizer = g_steal_pointer (&loaded);
  return reader;
}

static SysprofCallgraph *
build_callgraph (const char *path, Options *o, const SysprofCallgraphFilter *filter, GError **error)
{
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofCaptureReader *reader = report_open_capture (path, o->debug_dirs, o->no_local_files, TRUE, &symbolizer, error);
  SysprofCallgraph     *callgraph;
  ReportProgress        progress = { isatty (2), -1 };

  if (reader == NULL)
    return NULL;
  callgraph = sysprof_callgraph_new (reader, symbolizer, filter, report_on_progress, &progress, error);
  sysprof_capture_reader_unref (reader);
  if (callgraph == NULL)
    g_prefix_error (error, "%s: ", path);
  return callgraph;
}

static int
run_command (const Command *command, int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GArray) tids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autofree char       *prgname = g_strdup_printf ("sysprof-report %s", command->name);
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  Options                o = { .begin = NAN, .end = NAN, .limit = G_MININT, .threshold = 1.0, .width = 1200 };
  Report                 report = { 0 };
  guint                  n_positional = g_str_equal (command->parameters, "CAPTURE") ? 1 : 2;
  int                    status;

  g_set_prgname (prgname);
  context = new_command_context (command, &o);
  /* GOption would take the word after a bare --memory as its value (the
   * capture, usually): a bare --memory means --memory=count. */
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_equal (argv[i], "--memory") || g_str_equal (argv[i], "-m"))
      argv[i] = (char *) "--memory=count";
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      report_print_usage_error (prgname, error->message);
      options_clear (&o);
      return REPORT_EXIT_USAGE;
    }

  if (o.version)
    {
      g_print ("sysprof-report %s\n", SYSPROF_VERSION);
      options_clear (&o);
      return REPORT_EXIT_OK;
    }

#define USAGE_ERROR(...)                                       \
  G_STMT_START                                                 \
  {                                                            \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    report_print_usage_error (prgname, message_);              \
    options_clear (&o);                                        \
    return REPORT_EXIT_USAGE;                                  \
  }                                                            \
  G_STMT_END

  if ((guint) argc - 1 != n_positional)
    USAGE_ERROR ("expected %s", command->parameters);

  report.format = REPORT_FORMAT_TEXT;
  if (o.format != NULL && g_str_equal (o.format, "tsv"))
    report.format = REPORT_FORMAT_TSV;
  else if (o.format != NULL && !g_str_equal (o.format, "text"))
    USAGE_ERROR ("--format: “%s” is neither text nor tsv", o.format);

  if (o.limit != G_MININT && o.limit < 0)
    USAGE_ERROR ("--limit: %d is negative", o.limit);
  if (o.limit != G_MININT)
    report.limit = (guint) o.limit;
  else
    report.limit = g_str_equal (command->name, "top") && report.format == REPORT_FORMAT_TEXT ? 30 : 0;

  if (o.sort != NULL && !g_str_equal (o.sort, "self") && !g_str_equal (o.sort, "total"))
    USAGE_ERROR ("--sort: “%s” is neither self nor total", o.sort);
  report.sort_by_total = o.sort != NULL && g_str_equal (o.sort, "total");

  if (!isfinite (o.threshold) || o.threshold < 0 || o.threshold > 100)
    USAGE_ERROR ("--threshold: %g is not a percentage", o.threshold);
  report.threshold_percent = o.threshold;

  if (o.width < 100 || o.width > 100000)
    USAGE_ERROR ("--width: %d pixels is not between 100 and 100000", o.width);
  report.width = (guint) o.width;

  if (!report_parse_ids (o.pids, "pid", pids, &error) || !report_parse_ids (o.tids, "tid", tids, &error))
    USAGE_ERROR ("%s", error->message);
  filter.pids = (const gint32 *) (gpointer) pids->data;
  filter.n_pids = pids->len;
  filter.tids = (const gint32 *) (gpointer) tids->data;
  filter.n_tids = tids->len;
  filter.comms = (const char *const *) o.comms;
  filter.n_comms = o.comms != NULL ? g_strv_length (o.comms) : 0;
  filter.no_kernel = o.no_kernel;
  filter.focus = (const char *const *) o.focus;
  filter.n_focus = o.focus != NULL ? g_strv_length (o.focus) : 0;
  filter.hide = (const char *const *) o.hide;
  filter.n_hide = o.hide != NULL ? g_strv_length (o.hide) : 0;
  if (!isnan (o.begin) && !report_seconds_to_ns (o.begin, "begin", &filter.begin_ns, &error))
    USAGE_ERROR ("%s", error->message);
  if (!isnan (o.end) && !report_seconds_to_ns (o.end, "end", &filter.end_ns, &error))
    USAGE_ERROR ("%s", error->message);
  if (filter.begin_ns > filter.end_ns)
    USAGE_ERROR ("--begin is after --end");

  report.unit = "samples";
  if (o.memory != NULL)
    {
      report.memory = TRUE;
      report.memory_bytes = g_str_equal (o.memory, "bytes") || g_str_equal (o.memory, "leaked-bytes");
      report.memory_leaked = g_str_equal (o.memory, "leaked") || g_str_equal (o.memory, "leaked-bytes");
      if (!report.memory_bytes && !report.memory_leaked && !g_str_equal (o.memory, "count"))
        USAGE_ERROR ("--memory: “%s” is none of count, bytes, leaked, leaked-bytes", o.memory);
      filter.source =
          report.memory_leaked ? SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS : SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS;
      filter.weight = report.memory_bytes ? SYSPROF_CALLGRAPH_WEIGHT_BYTES : SYSPROF_CALLGRAPH_WEIGHT_COUNT;
      report.unit = report.memory_bytes ? "bytes" : report.memory_leaked ? "leaked allocations" : "allocations";
    }

#undef USAGE_ERROR

  if (n_positional == 2)
    report.function_name = argv[1];
  report.capture_path = argv[argc - 1];
  report.library = o.library;
  report.output_path = o.output;

  callgraph = build_callgraph (report.capture_path, &o, &filter, &error);
  if (callgraph == NULL)
    {
      g_printerr ("%s: %s\n", prgname, error->message);
      options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  report.callgraph = callgraph;
  /* An empty report is a valid answer, but after --focus it is most often a
   * misspelt name: say which. */
  if (filter.n_focus > 0 && sysprof_callgraph_get_n_samples (callgraph) == 0 &&
      sysprof_callgraph_get_n_samples_read (callgraph) > 0)
    {
      g_autofree char *names = g_strjoinv ("”, “", o.focus);

      g_printerr ("%s: note: no %s has “%s” on its stack\n", prgname, report.memory ? "allocation" : "sample", names);
    }

  if (g_str_equal (command->name, "top"))
    status = report_top (&report);
  else if (g_str_equal (command->name, "callers"))
    status = report_callers (&report, TRUE);
  else if (g_str_equal (command->name, "callees"))
    status = report_callers (&report, FALSE);
  else if (g_str_equal (command->name, "tree"))
    status = report_tree (&report);
  else if (g_str_equal (command->name, "flamegraph"))
    status = report_flamegraph (&report);
  else
    status = report_collapsed (&report);

  if (status == REPORT_EXIT_OK && (fflush (stdout) != 0 || ferror (stdout)))
    {
      g_printerr ("%s: cannot write the output: %s\n", prgname, g_strerror (errno));
      status = REPORT_EXIT_ERROR;
    }
  options_clear (&o);
  return status;
}

static int
print_general_help (gboolean to_stderr)
{
  Options o = { 0 };
  g_autoptr (GOptionContext) context = new_general_context (&o);
  g_autofree char *help = NULL;

  /* GLib prints "PRGNAME [OPTION…] PARAMETERS". */
  g_set_prgname ("sysprof-report [COMMAND]");
  help = g_option_context_get_help (context, TRUE, NULL);

  if (to_stderr)
    g_printerr ("%s", help);
  else
    g_print ("%s", help);
  return to_stderr ? REPORT_EXIT_USAGE : REPORT_EXIT_OK;
}

double
report_percent (const Report *report, guint64 samples)
{
  guint64 n = sysprof_callgraph_get_n_samples (report->callgraph);

  return n > 0 ? 100.0 * (double) samples / (double) n : 0.0;
}

void
report_put_tsv_field (FILE *out, const char *text)
{
  for (const char *p = text; *p; p++)
    fputc (*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p, out);
}

int
main (int argc, char **argv)
{
  const Command *command;

  setlocale (LC_ALL, "");
  /* Numbers in TSV must not depend on the locale's decimal separator. */
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("sysprof-report");

  if (argc < 2)
    return print_general_help (TRUE);

  if (g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-?") ||
      g_str_equal (argv[1], "--help-all"))
    return print_general_help (FALSE);

  if (g_str_equal (argv[1], "--version"))
    {
      g_print ("sysprof-report %s\n", SYSPROF_VERSION);
      return REPORT_EXIT_OK;
    }

  if (g_str_equal (argv[1], "help"))
    {
      if (argc < 3)
        return print_general_help (FALSE);
      if ((command = find_command (argv[2])) == NULL)
        {
          g_printerr ("sysprof-report: no command “%s”\nTry “sysprof-report --help”.\n", argv[2]);
          return REPORT_EXIT_USAGE;
        }
      if (g_str_equal (command->name, "memory"))
        return report_memory_main (1, argv + 2, TRUE);
      {
        Options o = { 0 };
        g_autoptr (GOptionContext) context = new_command_context (command, &o);
        g_autofree char *prgname = g_strdup_printf ("sysprof-report %s", command->name);
        g_autofree char *help = NULL;

        g_set_prgname (prgname);
        help = g_option_context_get_help (context, TRUE, NULL);
        g_print ("%s", help);
        return REPORT_EXIT_OK;
      }
    }

  if ((command = find_command (argv[1])) != NULL)
    {
      /* The command takes the place of the program name. */
      if (g_str_equal (command->name, "memory"))
        return report_memory_main (argc - 1, argv + 1, FALSE);
      return run_command (command, argc - 1, argv + 1);
    }

  /* No command: top.  A word that is neither a command nor an existing file
   * is more likely a misspelt command. */
  if (argv[1][0] != '-' && argc == 2 && !g_file_test (argv[1], G_FILE_TEST_EXISTS))
    {
      g_printerr ("sysprof-report: “%s” is neither a command nor a file\nTry “sysprof-report --help”.\n", argv[1]);
      return REPORT_EXIT_USAGE;
    }
  {
    g_autofree char **args = g_new0 (char *, argc + 1);

    args[0] = (char *) "top";
    for (int i = 1; i < argc; i++)
      args[i] = argv[i];
    return run_command (find_command ("top"), argc, args);
  }
}
