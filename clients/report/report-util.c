// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: what the verbs share (report-util.h).  The command line of
 * the callgraph verbs up to the callgraph, the aligned text tables, and the
 * helpers the memory verb uses too. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report-util.h"

static const char exit_status_text[] =
    "Exit status: 0 on success; 1 when the capture cannot be opened or read to its end\n"
    "(the error names the byte offset of the damage), when FUNCTION is not in the\n"
    "callgraph, or when the output cannot be written; 2 on a usage error.";

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

/* ------------------------------------------------------------------------ */
/* The options of every callgraph verb */

void
report_options_clear (ReportOptions *options)
{
  g_strfreev (options->pids);
  g_strfreev (options->tids);
  g_strfreev (options->comms);
  g_strfreev (options->focus);
  g_strfreev (options->hide);
  g_free (options->format);
  g_strfreev (options->debug_dirs);
  g_free (options->memory);
}

static gboolean
on_memory_option (const char *name, const char *value, gpointer data, GError **error)
{
  ReportOptions *o = data;

  (void) name;
  (void) error;
  g_free (o->memory);
  o->memory = g_strdup (value != NULL ? value : "count");
  return TRUE;
}

void
report_add_options (GOptionContext *context, ReportOptions *o)
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
    { "off-cpu", 0, 0, G_OPTION_ARG_NONE, &o->off_cpu,
      "Report where threads waited off the CPU (recorded with sysprof-cli --scheduler): each stack a thread left "
      "the CPU with, weighted by how long until it ran again; counts are microseconds",
      NULL },
    { "wall-clock", 0, 0, G_OPTION_ARG_NONE, &o->wall_clock,
      "On-CPU samples and off-CPU waits together, in microseconds (a sample weighs the sampling period); the waits "
      "sit under an \"[off-CPU]\" frame",
      NULL },
    { "lines", 'L', 0, G_OPTION_ARG_NONE, &o->lines,
      "Report source lines: each frame is FUNCTION (FILE:LINE), the line running in it or, in a caller, the line "
      "of the call; inlined functions are frames of their own either way",
      NULL },
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

static GOptionContext *
new_verb_context (const ReportVerb *verb, ReportOptions *options)
{
  g_autofree char *description = g_strdup_printf ("%s\n\n%s\n\n%s\n\n%s", verb->description, focus_option_text,
                                                  memory_option_text, exit_status_text);
  GOptionContext  *context = g_option_context_new (verb->parameters);

  g_option_context_set_summary (context, verb->summary);
  g_option_context_set_description (context, description);
  report_add_options (context, options);
  if (verb->entries != NULL)
    g_option_context_add_main_entries (context, verb->entries, NULL);
  return context;
}

static SysprofCallgraph *
build_callgraph (const char *path, const ReportOptions *o, const SysprofCallgraphFilter *filter, GError **error)
{
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofCaptureReader *reader = report_open_capture (path, o->debug_dirs, o->no_local_files, TRUE, &symbolizer, error);
  SysprofCallgraph     *callgraph;
  ReportProgress        progress = { isatty (2), -1 };

  if (reader == NULL)
    return NULL;
  callgraph = sysprof_callgraph_new (reader, symbolizer, filter, report_on_progress, &progress, error);
  sysprof_capture_reader_unref (reader);
  report_print_symbol_note (symbolizer);
  if (callgraph == NULL)
    g_prefix_error (error, "%s: ", path);
  else if (sysprof_callgraph_get_n_record_errors (callgraph) > 0)
    g_printerr ("sysprof-report: %s: %" G_GUINT64_FORMAT
                " errors in the allocation records (their records are left out); see sysprof-report memory\n",
                path, sysprof_callgraph_get_n_record_errors (callgraph));
  return callgraph;
}

int
report_callgraph_main (const ReportVerb *verb, int argc, char **argv, gboolean help_only)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GArray) tids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (SysprofCallgraph) before = NULL;
  g_auto (ReportOptions) o = { .begin = NAN, .end = NAN, .limit = G_MININT };
  g_autofree char *prgname = g_strdup_printf ("sysprof-report %s", verb->name);
  g_auto (GStrv) parameters = g_strsplit (verb->parameters, " ", -1);
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  Report                 report = { 0 };
  int                    status;

  g_set_prgname (prgname);
  context = new_verb_context (verb, &o);
  if (help_only)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_print ("%s", help);
      return REPORT_EXIT_OK;
    }
  /* GOption would take the word after a bare --memory as its value (the
   * capture, usually): a bare --memory means --memory=count. */
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_equal (argv[i], "--memory") || g_str_equal (argv[i], "-m"))
      argv[i] = (char *) "--memory=count";
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      report_print_usage_error (prgname, error->message);
      return REPORT_EXIT_USAGE;
    }

  if (o.version)
    {
      g_print ("sysprof-report %s\n", SYSPROF_PROJECT_VERSION);
      return REPORT_EXIT_OK;
    }

#define USAGE_ERROR(...)                                       \
  G_STMT_START                                                 \
  {                                                            \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    report_print_usage_error (prgname, message_);              \
    return REPORT_EXIT_USAGE;                                  \
  }                                                            \
  G_STMT_END

  /* The positional words are those of the verb's parameters. */
  if ((guint) argc - 1 != g_strv_length (parameters))
    USAGE_ERROR ("expected %s", verb->parameters);

  report.format = REPORT_FORMAT_TEXT;
  if (verb->export_formats)
    {
      if (o.format == NULL || g_str_equal (o.format, "pprof"))
        report.format = REPORT_FORMAT_PPROF;
      else if (g_str_equal (o.format, "speedscope"))
        report.format = REPORT_FORMAT_SPEEDSCOPE;
      else if (g_str_equal (o.format, "perf-script"))
        report.format = REPORT_FORMAT_PERF_SCRIPT;
      else
        USAGE_ERROR ("--format: “%s” is not a format %s writes (pprof, speedscope, perf-script)", o.format, verb->name);
    }
  else if (o.format != NULL && g_str_equal (o.format, "tsv"))
    report.format = REPORT_FORMAT_TSV;
  else if (o.format != NULL && verb->svg_format && g_str_equal (o.format, "svg"))
    report.format = REPORT_FORMAT_SVG;
  else if (o.format != NULL && verb->svg_format && !g_str_equal (o.format, "text"))
    USAGE_ERROR ("--format: “%s” is none of text, tsv and svg", o.format);
  else if (o.format != NULL && !g_str_equal (o.format, "text"))
    USAGE_ERROR ("--format: “%s” is neither text nor tsv", o.format);

  if (o.limit != G_MININT && o.limit < 0)
    USAGE_ERROR ("--limit: %d is negative", o.limit);
  if (o.limit != G_MININT)
    report.limit = (guint) o.limit;
  else
    report.limit = report.format == REPORT_FORMAT_TEXT ? verb->text_limit : 0;

  if (verb->check != NULL && !verb->check (&report, &error))
    USAGE_ERROR ("%s", error->message);

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
  filter.lines = o.lines;
  report.lines = o.lines;
  if (!isnan (o.begin) && !report_seconds_to_ns (o.begin, "begin", &filter.begin_ns, &error))
    USAGE_ERROR ("%s", error->message);
  if (!isnan (o.end) && !report_seconds_to_ns (o.end, "end", &filter.end_ns, &error))
    USAGE_ERROR ("%s", error->message);
  if (filter.begin_ns > filter.end_ns)
    USAGE_ERROR ("--begin is after --end");

  report.unit = "samples";
  if ((o.off_cpu || o.wall_clock) && o.memory != NULL)
    USAGE_ERROR ("--%s reports time, --memory allocations: not both", o.off_cpu ? "off-cpu" : "wall-clock");
  if (o.off_cpu && o.wall_clock)
    USAGE_ERROR ("--wall-clock already includes --off-cpu");
  if (o.off_cpu || o.wall_clock)
    {
      filter.source = o.off_cpu ? SYSPROF_CALLGRAPH_SOURCE_OFF_CPU : SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK;
      report.time_weighted = TRUE;
      report.unit = o.off_cpu ? "µs off CPU" : "µs";
    }
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

  if (verb->prepare_filter != NULL)
    verb->prepare_filter (&report, &filter);
  report.args = argv + 1;
  report.capture_path = argv[argc - 1];
  report.filter = &filter;
  report.debug_dirs = o.debug_dirs;
  report.no_local_files = o.no_local_files;

  if (verb->two_captures)
    {
      SysprofCallgraphFilter before_filter = filter;

      if (verb->adjust_filter != NULL)
        verb->adjust_filter (TRUE, &before_filter);
      report.before_path = argv[1];
      before = build_callgraph (report.before_path, &o, &before_filter, &error);
      if (before == NULL)
        {
          g_printerr ("%s: %s\n", prgname, error->message);
          return REPORT_EXIT_ERROR;
        }
      report.before = before;
      if (verb->adjust_filter != NULL)
        verb->adjust_filter (FALSE, &filter);
    }

  callgraph = build_callgraph (report.capture_path, &o, &filter, &error);
  if (callgraph == NULL)
    {
      g_printerr ("%s: %s\n", prgname, error->message);
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

  status = verb->run (&report);
  if (status == REPORT_EXIT_OK && (fflush (stdout) != 0 || ferror (stdout)))
    {
      g_printerr ("%s: cannot write the output: %s\n", prgname, g_strerror (errno));
      status = REPORT_EXIT_ERROR;
    }
  return status;
}

/* ------------------------------------------------------------------------ */
/* Aligned text tables */

void
table_init (Table *table, const Column *columns, guint n_columns)
{
  table->columns = columns;
  table->n_columns = n_columns;
  table->cells = g_ptr_array_new_with_free_func (g_free);
}

void
table_clear (Table *table)
{
  g_clear_pointer (&table->cells, g_ptr_array_unref);
}

void
table_add (Table *table, const char *text)
{
  g_ptr_array_add (table->cells, g_utf8_make_valid (text, -1));
}

static void
print_cell (const char *text, guint width, gboolean right, gboolean last)
{
  glong length = g_utf8_strlen (text, -1);

  if ((guint) length > width)
    {
      const char *cut = g_utf8_offset_to_pointer (text, width - 1);

      fwrite (text, 1, (gsize) (cut - text), stdout);
      fputs ("…", stdout);
      length = width;
    }
  else
    {
      if (right)
        printf ("%*s", (int) (width - (guint) length), "");
      fputs (text, stdout);
    }
  if (!right && !last)
    printf ("%*s", (int) (width - (guint) length), "");
}

void
table_print (Table *table)
{
  g_autofree guint *widths = g_new0 (guint, table->n_columns);

  for (guint c = 0; c < table->n_columns; c++)
    widths[c] = (guint) g_utf8_strlen (table->columns[c].header, -1);
  for (guint i = 0; i < table->cells->len; i++)
    {
      guint c = i % table->n_columns;
      guint length = (guint) g_utf8_strlen (table->cells->pdata[i], -1);

      widths[c] = MAX (widths[c], length);
    }
  for (guint c = 0; c < table->n_columns; c++)
    if (table->columns[c].max_width > 0)
      widths[c] = MIN (widths[c], MAX (table->columns[c].max_width, 2));

  for (guint c = 0; c < table->n_columns; c++)
    {
      if (c > 0)
        fputs ("  ", stdout);
      print_cell (table->columns[c].header, widths[c], table->columns[c].right, c + 1 == table->n_columns);
    }
  fputc ('\n', stdout);
  for (guint i = 0; i < table->cells->len; i++)
    {
      guint c = i % table->n_columns;

      if (c > 0)
        fputs ("  ", stdout);
      print_cell (table->cells->pdata[i], widths[c], table->columns[c].right, c + 1 == table->n_columns);
      if (c + 1 == table->n_columns)
        fputc ('\n', stdout);
    }
}

void
table_add_count (Table *table, guint64 value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, value);
  table_add (table, text);
}

void
table_add_percent (Table *table, double value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%.2f%%", value);
  table_add (table, text);
}

/* ------------------------------------------------------------------------ */
/* Printing a report */

void
report_put_tsv_field (FILE *out, const char *text)
{
  for (const char *p = text; *p; p++)
    fputc (*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p, out);
}

double
report_percent (const Report *report, guint64 samples)
{
  guint64 n = sysprof_callgraph_get_n_samples (report->callgraph);

  return n > 0 ? 100.0 * (double) samples / (double) n : 0.0;
}

/* How the stacks were unwound, when the recorder said (all processes of
 * the recording: the filters do not apply to it). */
static void
print_unwind_line (const char *summary)
{
  g_autofree char *text = summary ? sysprof_unwind_summary_describe (summary) : NULL;

  if (text != NULL)
    printf ("User stacks: %s\n", text);
}

void
report_print_summary_line (const Report *report)
{
  guint64 n = sysprof_callgraph_get_n_samples (report->callgraph);
  guint64 read = sysprof_callgraph_get_n_samples_read (report->callgraph);

  if (report->memory)
    {
      const char *what = report->memory_leaked ? "leaked allocations" : "allocations";
      guint64     count = report->memory_bytes ? 0 : n;

      if (report->memory_bytes)
        printf ("%s: %" G_GUINT64_FORMAT " bytes of %s (%" G_GUINT64_FORMAT " allocation records in the capture)\n\n",
                report->capture_path, sysprof_callgraph_get_n_bytes (report->callgraph), what, read);
      else
        printf ("%s: %" G_GUINT64_FORMAT " %s, %" G_GUINT64_FORMAT " bytes (%" G_GUINT64_FORMAT
                " allocation records in the capture)\n\n",
                report->capture_path, count, what, sysprof_callgraph_get_n_bytes (report->callgraph), read);
      return;
    }
  if (report->time_weighted)
    printf ("%s: %.3f s %s (%" G_GUINT64_FORMAT " samples in the capture)\n", report->capture_path, (double) n / 1e6,
            g_str_has_suffix (report->unit, "off CPU") ? "off CPU" : "on and off CPU", read);
  else if (n == read)
    printf ("%s: %" G_GUINT64_FORMAT " samples\n", report->capture_path, n);
  else
    printf ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " samples pass the filters\n", report->capture_path, n,
            read);
  print_unwind_line (sysprof_callgraph_get_unwind_summary (report->callgraph));
  putchar ('\n');
}

char *
report_function_label (const SysprofCallgraphFunction *function)
{
  g_autofree char *base = NULL;

  if (function->file == NULL)
    return g_strdup (function->symbol->name);
  base = g_path_get_basename (function->file);
  return g_strdup_printf ("%s (%s:%u)", function->symbol->name, base, function->line);
}

char *
report_function_source (const SysprofCallgraphFunction *function)
{
  if (function->file == NULL)
    return g_strdup ("");
  return g_strdup_printf ("%s:%u", function->file, function->line);
}

char *
report_process_comm (const char *name)
{
  gsize       len = strcspn (name, " ");
  const char *base = name + len;

  while (base > name && base[-1] != '/')
    base--;
  /* A first word that ends in a slash stays whole rather than empty. */
  if (base == name + len)
    base = name;
  return g_strndup (base, MIN ((gsize) (name + len - base), 15));
}

gboolean
report_function_is_listed (const SysprofCallgraphFunction *function)
{
  return function->kind != SYSPROF_CALLGRAPH_FUNCTION_ROOT && function->kind != SYSPROF_CALLGRAPH_FUNCTION_PROCESS &&
         function->total > 0;
}

gint
report_compare_by_total (gconstpointer a, gconstpointer b)
{
  const SysprofCallgraphFunction *fa = *(const SysprofCallgraphFunction *const *) a;
  const SysprofCallgraphFunction *fb = *(const SysprofCallgraphFunction *const *) b;

  if (fa->total != fb->total)
    return fa->total > fb->total ? -1 : 1;
  if (fa->self != fb->self)
    return fa->self > fb->self ? -1 : 1;
  return strcmp (fa->symbol->name, fb->symbol->name);
}

/* ------------------------------------------------------------------------ */
/* Command lines and captures */

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

int
report_start_own_command_line (
    GOptionContext *context, const char *prgname, int *argc, char ***argv, gboolean help_only, const gboolean *version)
{
  g_autoptr (GError) error = NULL;

  if (help_only)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_print ("%s", help);
      return REPORT_EXIT_OK;
    }
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      report_print_usage_error (prgname, error->message);
      return REPORT_EXIT_USAGE;
    }
  if (*version)
    {
      g_print ("sysprof-report %s\n", SYSPROF_PROJECT_VERSION);
      return REPORT_EXIT_OK;
    }
  return -1;
}

gboolean
report_parse_text_format (const char *format, ReportFormat *out, GError **error)
{
  if (format == NULL || g_str_equal (format, "text"))
    *out = REPORT_FORMAT_TEXT;
  else if (g_str_equal (format, "tsv"))
    *out = REPORT_FORMAT_TSV;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--format: “%s” is neither text nor tsv", format);
      return FALSE;
    }
  return TRUE;
}

SysprofCaptureReader *
report_open_reader (const char *path)
{
  SysprofCaptureError   capture_error = { 0 };
  SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (path, &capture_error);

  if (reader == NULL)
    g_printerr ("sysprof-report: %s: %s\n", path,
                capture_error.message[0] ? capture_error.message : g_strerror (capture_error.code));
  return reader;
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

/* A SysprofSymbolizerFetchFunc: which debug file debuginfod is fetching, on
 * a terminal's stderr only. */
static void
on_fetch (const char *file, guint64 done, guint64 total, gpointer user_data)
{
  g_autofree char *base = NULL;

  (void) user_data;
  if (file == NULL)
    {
      g_printerr ("\r\033[K");
      return;
    }
  base = g_path_get_basename (file);
  if (total > 0)
    g_printerr ("\r\033[KFetching the debug info of %s from debuginfod… %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " kB",
                base, done / 1000, total / 1000);
  else if (done > 0)
    g_printerr ("\r\033[KFetching the debug info of %s from debuginfod… %" G_GUINT64_FORMAT " kB", base, done / 1000);
  else
    g_printerr ("\r\033[KFetching the debug info of %s from debuginfod…", base);
}

void
report_print_symbol_note (SysprofSymbolizer *symbolizer)
{
  g_autofree char *missing = sysprof_symbolizer_dup_missing_debug_info (symbolizer);

  if (missing != NULL)
    g_printerr ("%s: %s\n", g_get_prgname (), missing);
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
  if (isatty (STDERR_FILENO))
    sysprof_symbolizer_set_fetch_progress (loaded, on_fetch, NULL);
  if (load && !sysprof_symbolizer_load (loaded, reader, error))
    {
      sysprof_capture_reader_unref (reader);
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  *symbolizer = g_steal_pointer (&loaded);
  return reader;
}
