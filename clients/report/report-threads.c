// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report threads: per thread, its time off the CPU (the off-CPU
 * samples of sysprof-cli --scheduler) and its on-CPU samples
 * (SysprofThreadTimes). */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

#define TEXT_ROWS 30

static const char threads_summary[] = "Threads by their time off the CPU (--scheduler): waits, longest, samples";

static const char threads_description[] =
    "One row per thread of CAPTURE: its process, how long it waited off the CPU\n"
    "in all (from the off-CPU samples of a recording made with sysprof-cli\n"
    "--scheduler: each time the thread left the CPU, until it ran again:\n"
    "sleeping, waiting for I/O or a lock, or runnable behind other threads), how\n"
    "many waits, the longest, and how many on-CPU samples it had.  Most time off\n"
    "the CPU first.  `sysprof-report top --off-cpu --tid TID` then says where a\n"
    "thread waited.\n"
    "\n"
    "--begin/--end count the part of each wait inside the window (seconds from\n"
    "the capture's start) and the samples in it; --pid keeps those processes.\n"
    "\n"
    "Text tables show 30 rows unless --limit says otherwise; TSV shows all, with\n"
    "the columns pid, tid, process, off_cpu_ns, waits, longest_wait_ns, samples.\n"
    "A capture recorded without --scheduler has no waits: the report says so.\n"
    "\n"
    "Examples:\n"
    "  sysprof-report threads sched.syscap\n"
    "  sysprof-report threads --pid 1234 --format tsv sched.syscap\n"
    "\n"
    "Exit status: 0 on success; 1 when the capture cannot be opened or read to\n"
    "its end; 2 on a usage error.";

typedef struct
{
  char   **pids;
  double   begin;
  double   end;
  char    *format;
  gint     limit;
  gboolean version;
} ThreadsOptions;

static void
threads_options_clear (ThreadsOptions *o)
{
  g_strfreev (o->pids);
  g_free (o->format);
}

static GOptionContext *
new_context (ThreadsOptions *o)
{
  const GOptionEntry entries[] = {
    { "pid", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o->pids,
      "Only threads of process PID (repeatable, or a comma-separated list)", "PID" },
    { "begin", 'b', 0, G_OPTION_ARG_DOUBLE, &o->begin,
      "Only what happened at or after SECONDS from the capture's start", "SECONDS" },
    { "end", 'e', 0, G_OPTION_ARG_DOUBLE, &o->end, "Only what happened at or before SECONDS from the capture's start",
      "SECONDS" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &o->limit, "Print at most N rows (0: all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format,
      "text (aligned table, the default) or tsv (a header row, then tab-separated rows)", "FORMAT" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o->version, "Print the version and exit", NULL },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("CAPTURE");

  g_option_context_set_summary (context, "Threads of a capture by their time off the CPU.");
  g_option_context_set_description (context, threads_description);
  g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

static char *
milliseconds (gint64 ns)
{
  return g_strdup_printf ("%.1f ms", (double) ns / 1e6);
}

static void
print_text (const char *path, GArray *rows, guint limit)
{
  static const Column columns[] = {
    { "PID", TRUE, 0 },   { "TID", TRUE, 0 },     { "PROCESS", FALSE, 40 }, { "OFF_CPU", TRUE, 0 },
    { "WAITS", TRUE, 0 }, { "LONGEST", TRUE, 0 }, { "SAMPLES", TRUE, 0 },
  };
  Table   table;
  guint   shown = limit == 0 ? rows->len : MIN (limit, rows->len);
  guint64 waits = 0;

  for (guint i = 0; i < rows->len; i++)
    waits += g_array_index (rows, SysprofThreadTime, i).n_waits;
  printf ("%s: %u threads, %" G_GUINT64_FORMAT " waits off the CPU\n\n", path, rows->len, waits);
  if (waits == 0)
    printf ("No waits: the capture was recorded without sysprof-cli --scheduler.\n\n");
  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < shown; i++)
    {
      const SysprofThreadTime *row = &g_array_index (rows, SysprofThreadTime, i);
      g_autofree char         *pid = g_strdup_printf ("%d", row->pid);
      g_autofree char         *tid = g_strdup_printf ("%d", row->tid);
      g_autofree char         *off = milliseconds (row->off_cpu_ns);
      g_autofree char         *longest = milliseconds (row->longest_wait_ns);

      table_add (&table, pid);
      table_add (&table, tid);
      table_add (&table, row->process);
      table_add (&table, off);
      table_add_count (&table, row->n_waits);
      table_add (&table, longest);
      table_add_count (&table, row->n_samples);
    }
  table_print (&table);
  table_clear (&table);
  if (shown < rows->len)
    printf ("(%u more threads; --limit 0 shows all)\n", rows->len - shown);
}

static void
print_tsv (GArray *rows, guint limit)
{
  guint shown = limit == 0 ? rows->len : MIN (limit, rows->len);

  printf ("pid\ttid\tprocess\toff_cpu_ns\twaits\tlongest_wait_ns\tsamples\n");
  for (guint i = 0; i < shown; i++)
    {
      const SysprofThreadTime *row = &g_array_index (rows, SysprofThreadTime, i);

      printf ("%d\t%d\t", row->pid, row->tid);
      report_put_tsv_field (stdout, row->process);
      printf ("\t%" G_GINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n",
              row->off_cpu_ns, row->n_waits, row->longest_wait_ns, row->n_samples);
    }
}

static int
threads_main (int argc, char **argv, gboolean help_only)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GArray) rows = NULL;
  const char               *prgname = "sysprof-report threads";
  int                       status;
  ThreadsOptions            o = { .begin = NAN, .end = NAN, .limit = G_MININT };
  SysprofThreadTimesOptions options = SYSPROF_THREAD_TIMES_OPTIONS_INIT;
  SysprofCaptureReader     *reader;
  ReportFormat              format = REPORT_FORMAT_TEXT;
  guint                     limit;

  g_set_prgname (prgname);
  context = new_context (&o);
  if ((status = report_start_own_command_line (context, prgname, &argc, &argv, help_only, &o.version)) >= 0)
    {
      threads_options_clear (&o);
      return status;
    }

#define USAGE_ERROR(...)                                       \
  G_STMT_START                                                 \
  {                                                            \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    report_print_usage_error (prgname, message_);              \
    threads_options_clear (&o);                                \
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

  if ((reader = report_open_reader (argv[1])) == NULL)
    {
      threads_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  rows = sysprof_thread_times_from_reader (reader, &options, &error);
  sysprof_capture_reader_unref (reader);
  if (rows == NULL)
    {
      g_printerr ("sysprof-report: %s: %s\n", argv[1], error->message);
      threads_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  if (format == REPORT_FORMAT_TSV)
    print_tsv (rows, limit);
  else
    print_text (argv[1], rows, limit);
  threads_options_clear (&o);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      g_printerr ("sysprof-report: cannot write the report: %s\n", g_strerror (errno));
      return REPORT_EXIT_ERROR;
    }
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_threads = {
  .name = "threads",
  .summary = threads_summary,
  .main = threads_main,
};
