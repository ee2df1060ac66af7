// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report marks: the MARK frames of a capture (GTK's frame clock,
 * layout and snapshot phases, GLib's main-loop work, a program's own marks)
 * per group and name, with their durations (SysprofMarkStats). */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

#define TEXT_ROWS 30

static const char marks_summary[] = "Marks per group and name: count, total, min, mean, median and max duration";

static const char marks_description[] =
    "Reads the MARK frames of CAPTURE: the intervals programs report through\n"
    "libsysprof-capture's collector (GTK 4: group \"gtk\", its frame clock, layout,\n"
    "snapshot and render phases; GLib; a program's own), Sysprof's own marks, and\n"
    "those of captures merged in.  One row per group and name, with how many\n"
    "marks it has and their durations: the total, the shortest, the mean, the\n"
    "median (the middle one; of an even count the mean of the two middle ones)\n"
    "and the longest.  Rows come most total time first.  A negative duration in\n"
    "the file counts as 0.\n"
    "\n"
    "--begin/--end keep the marks that start in the window (seconds from the\n"
    "capture's start); --pid the marks of those processes; --group one group.\n"
    "\n"
    "Text tables show 30 rows unless --limit says otherwise; TSV shows all, with\n"
    "the columns group, name, count, total_ns, min_ns, mean_ns, median_ns, max_ns\n"
    "(mean and median with one decimal).\n"
    "\n"
    "Examples:\n"
    "  sysprof-report marks app.syscap\n"
    "  sysprof-report marks --group gtk --format tsv app.syscap\n"
    "  sysprof-report marks --begin 2 --end 4.5 --pid 1234 app.syscap\n"
    "\n"
    "Exit status: 0 on success (also when the capture has no marks: the report\n"
    "says so); 1 when the capture cannot be opened or read to its end; 2 on a\n"
    "usage error.";

typedef struct
{
  char   **pids;
  char    *group;
  double   begin;
  double   end;
  char    *format;
  gint     limit;
  gboolean version;
} MarksOptions;

static void
marks_options_clear (MarksOptions *o)
{
  g_strfreev (o->pids);
  g_free (o->group);
  g_free (o->format);
}

static GOptionContext *
new_context (MarksOptions *o)
{
  const GOptionEntry entries[] = {
    { "group", 'g', 0, G_OPTION_ARG_STRING, &o->group, "Only the marks of GROUP (as written: gtk, not GTK)", "GROUP" },
    { "pid", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o->pids,
      "Only marks of process PID (repeatable, or a comma-separated list)", "PID" },
    { "begin", 'b', 0, G_OPTION_ARG_DOUBLE, &o->begin,
      "Only marks starting at or after SECONDS from the capture's start", "SECONDS" },
    { "end", 'e', 0, G_OPTION_ARG_DOUBLE, &o->end, "Only marks starting at or before SECONDS from the capture's start",
      "SECONDS" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &o->limit, "Print at most N rows (0: all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format,
      "text (aligned table, the default) or tsv (a header row, then tab-separated rows)", "FORMAT" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o->version, "Print the version and exit", NULL },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("CAPTURE");

  g_option_context_set_summary (context, "Marks of a capture per group and name, with their durations.");
  g_option_context_set_description (context, marks_description);
  g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

/* A duration for people: ns, µs, ms or s with 3 decimals. */
static char *
human_duration (double ns)
{
  if (ns < 999.5)
    return g_strdup_printf ("%.0f ns", ns);
  if (ns < 1e6)
    return g_strdup_printf ("%.3f µs", ns / 1e3);
  if (ns < 1e9)
    return g_strdup_printf ("%.3f ms", ns / 1e6);
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

static void
print_text (const char *path, GArray *rows, guint limit)
{
  static const Column columns[] = {
    { "GROUP", FALSE, 24 }, { "NAME", FALSE, 40 }, { "COUNT", TRUE, 0 },  { "TOTAL", TRUE, 0 },
    { "MIN", TRUE, 0 },     { "MEAN", TRUE, 0 },   { "MEDIAN", TRUE, 0 }, { "MAX", TRUE, 0 },
  };
  Table   table;
  guint64 total = 0;
  guint   shown = limit == 0 ? rows->len : MIN (limit, rows->len);

  for (guint i = 0; i < rows->len; i++)
    total += g_array_index (rows, SysprofMarkStat, i).count;
  printf ("%s: %" G_GUINT64_FORMAT " marks in %u groups and names\n\n", path, total, rows->len);
  if (rows->len == 0)
    {
      printf ("No marks: the programs recorded sent none (GTK and GLib send them when started by sysprof-cli).\n");
      return;
    }
  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < shown; i++)
    {
      const SysprofMarkStat *row = &g_array_index (rows, SysprofMarkStat, i);
      const double           values[] = { row->total_ns, (double) row->min_ns, row->mean_ns, row->median_ns,
                                          (double) row->max_ns };

      table_add (&table, row->group);
      table_add (&table, row->name);
      table_add_count (&table, row->count);
      for (guint j = 0; j < G_N_ELEMENTS (values); j++)
        {
          g_autofree char *text = human_duration (values[j]);

          table_add (&table, text);
        }
    }
  table_print (&table);
  table_clear (&table);
  if (shown < rows->len)
    printf ("(%u more rows; --limit 0 shows all)\n", rows->len - shown);
}

static void
print_tsv (GArray *rows, guint limit)
{
  guint shown = limit == 0 ? rows->len : MIN (limit, rows->len);

  printf ("group\tname\tcount\ttotal_ns\tmin_ns\tmean_ns\tmedian_ns\tmax_ns\n");
  for (guint i = 0; i < shown; i++)
    {
      const SysprofMarkStat *row = &g_array_index (rows, SysprofMarkStat, i);

      report_put_tsv_field (stdout, row->group);
      fputc ('\t', stdout);
      report_put_tsv_field (stdout, row->name);
      printf ("\t%" G_GUINT64_FORMAT "\t%.0f\t%" G_GINT64_FORMAT "\t%.1f\t%.1f\t%" G_GINT64_FORMAT "\n", row->count,
              row->total_ns, row->min_ns, row->mean_ns, row->median_ns, row->max_ns);
    }
}

static int
marks_main (int argc, char **argv, gboolean help_only)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GArray) rows = NULL;
  const char             *prgname = "sysprof-report marks";
  int                     status;
  MarksOptions            o = { .begin = NAN, .end = NAN, .limit = G_MININT };
  SysprofMarkStatsOptions options = SYSPROF_MARK_STATS_OPTIONS_INIT;
  SysprofCaptureReader   *reader;
  ReportFormat            format = REPORT_FORMAT_TEXT;
  guint                   limit;

  g_set_prgname (prgname);
  context = new_context (&o);
  if ((status = report_start_own_command_line (context, prgname, &argc, &argv, help_only, &o.version)) >= 0)
    {
      marks_options_clear (&o);
      return status;
    }

#define USAGE_ERROR(...)                                       \
  G_STMT_START                                                 \
  {                                                            \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    report_print_usage_error (prgname, message_);              \
    marks_options_clear (&o);                                  \
    return REPORT_EXIT_USAGE;                                  \
  }                                                            \
  G_STMT_END

  if (argc != 2)
    USAGE_ERROR ("expected CAPTURE");
  if (!report_parse_text_format (o.format, &format, &error))
    USAGE_ERROR ("%s", error->message);
  if (o.limit != G_MININT && o.limit < 0)
    USAGE_ERROR ("--limit: %d is negative", o.limit);
  limit = o.limit != G_MININT ? (guint) o.limit : format == REPORT_FORMAT_TEXT ? TEXT_ROWS : 0;
  if (!report_parse_ids (o.pids, "pid", pids, &error) ||
      (!isnan (o.begin) && !report_seconds_to_ns (o.begin, "begin", &options.begin_ns, &error)) ||
      (!isnan (o.end) && !report_seconds_to_ns (o.end, "end", &options.end_ns, &error)))
    USAGE_ERROR ("%s", error->message);
  if (options.begin_ns > options.end_ns)
    USAGE_ERROR ("--begin is after --end");
#undef USAGE_ERROR

  options.pids = (const gint32 *) (gpointer) pids->data;
  options.n_pids = pids->len;
  options.group = o.group;

  if ((reader = report_open_reader (argv[1])) == NULL)
    {
      marks_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  rows = sysprof_mark_stats_from_reader (reader, &options, &error);
  sysprof_capture_reader_unref (reader);
  if (rows == NULL)
    {
      g_printerr ("sysprof-report: %s: %s\n", argv[1], error->message);
      marks_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  if (format == REPORT_FORMAT_TSV)
    print_tsv (rows, limit);
  else
    print_text (argv[1], rows, limit);
  marks_options_clear (&o);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      g_printerr ("sysprof-report: cannot write the report: %s\n", g_strerror (errno));
      return REPORT_EXIT_ERROR;
    }
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_marks = {
  .name = "marks",
  .summary = marks_summary,
  .main = marks_main,
};
