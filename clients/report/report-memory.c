// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report memory: the memory analyses of a capture's allocation
 * records (SysprofMemoryAnalysis): summary, leaks, temporary allocations,
 * cross-thread frees, the heap over time (table or SVG chart) and the
 * difference of the live allocations at two times or of two captures. */

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "report-util.h"
#include "report-verbs.h"

#define DEFAULT_POINTS 100
#define TEXT_ROWS      30

static const char memory_summary[] =
    "Memory analyses of the allocation records (sysprof-cli --memprof): summary,\n"
    "              leaks, temporary allocations, cross-thread frees, heap over time, diff.";

static const char memory_description[] =
    "Reads the ALLOCATION frames of CAPTURE (recorded with sysprof-cli --memprof, or\n"
    "Sysprof 3.46's \"Trace Memory Allocations\").  One analysis per run:\n"
    "\n"
    "  --summary (the default)  Allocations, frees, bytes allocated and freed, the\n"
    "        peak of live bytes and its time, what is live at the end, temporary\n"
    "        allocations, cross-thread frees, unmatched frees and allocations, lost\n"
    "        events, threads, processes, and allocations by size class (class\n"
    "        2^i-2^(i+1)-1 bytes).  TSV: two columns, metric and value.\n"
    "  --leaks  Allocations live at the end (of the capture, or of --end) by\n"
    "        allocation site, most bytes first.  TSV columns: function, library,\n"
    "        leaked_allocations, leaked_bytes.\n"
    "  --temporary  Temporary allocations by site: an allocation freed by the same\n"
    "        thread before that thread allocates anything else (Sysprof's and\n"
    "        heaptrack's \"allocated and freed right away\"; frees of other blocks\n"
    "        in between do not matter; realloc's old block counts).  TSV columns:\n"
    "        function, library, temporary_allocations, temporary_bytes.\n"
    "  --cross-thread  Frees by a thread other than the allocating one, by\n"
    "        (site, allocating thread, freeing thread).  TSV columns: function,\n"
    "        library, alloc_tid, free_tid, frees, bytes.\n"
    "  --over-time  Live bytes and allocations at --points N (default 100) evenly\n"
    "        spaced times from the start to the end of the capture (or of\n"
    "        --begin/--end), and the peak since the previous point.  TSV columns:\n"
    "        time_s, live_bytes, live_allocations, peak_bytes.  --svg FILE writes\n"
    "        the chart as a standalone SVG instead (- for standard output).\n"
    "  --diff T1 T2 CAPTURE  Live allocations by site at T1 against T2 (seconds\n"
    "        from the capture's start); --diff CAPTURE_A CAPTURE_B compares what\n"
    "        is live at the end of two captures, sites matched by function and\n"
    "        library.  TSV columns: function, library, allocations_a, bytes_a,\n"
    "        allocations_b, bytes_b, delta_allocations, delta_bytes, status\n"
    "        (grown, shrunk, new, gone, unchanged); largest change first.\n"
    "\n"
    "The allocation site is the first frame, innermost first, outside the allocator:\n"
    "frames of malloc, calloc, realloc, free, posix_memalign, operator new/delete,\n"
    "g_malloc and its kin, g_slice_alloc, strdup, g_strdup … and of the preload\n"
    "library (libsysprof-memory*) are skipped; an allocation without a stack has the\n"
    "site \"[no stack]\".  Records are matched by (process, address).  A free of an\n"
    "address not live is an unmatched free (allocated before the recording or\n"
    "outside the filters); an allocation of a live address replaces it and counts\n"
    "as an unmatched allocation (a missed free).  --begin/--end make the analysis\n"
    "see only the records in the window, as if the recording had covered it only;\n"
    "--tid keeps the allocations of those threads and their frees by any thread.\n"
    "Lost events (METADATA \"sysprof.lost-events\": records the tracker or the\n"
    "daemon could not keep) are always in the summary, and under every text table\n"
    "when there are any: the numbers are then incomplete.\n"
    "\n"
    "Text tables show 30 rows unless --limit says otherwise; TSV shows all.  Tables\n"
    "by site start with the columns function and library.\n"
    "\n"
    "Examples:\n"
    "  sysprof-report memory memprof.syscap\n"
    "  sysprof-report memory --leaks --limit 10 memprof.syscap\n"
    "  sysprof-report memory --over-time --svg heap.svg memprof.syscap\n"
    "  sysprof-report memory --diff 1.5 4 memprof.syscap\n"
    "  sysprof-report memory --diff before.syscap after.syscap --format tsv\n"
    "\n"
    "Exit status: 0 on success; 1 when a capture cannot be opened or read to its end,\n"
    "has no allocation records, or the output cannot be written; 2 on a usage error.";

typedef enum
{
  MODE_SUMMARY,
  MODE_LEAKS,
  MODE_TEMPORARY,
  MODE_CROSS_THREAD,
  MODE_OVER_TIME,
  MODE_DIFF,
} Mode;

typedef struct
{
  gboolean summary;
  gboolean leaks;
  gboolean temporary;
  gboolean cross_thread;
  gboolean over_time;
  gboolean diff;
  gint     points;
  char    *svg;
  char   **pids;
  char   **tids;
  double   begin;
  double   end;
  char    *format;
  gint     limit;
  char   **debug_dirs;
  gboolean no_local_files;
  gboolean version;
} MemoryOptions;

static void
memory_options_clear (MemoryOptions *o)
{
  g_free (o->svg);
  g_strfreev (o->pids);
  g_strfreev (o->tids);
  g_free (o->format);
  g_strfreev (o->debug_dirs);
}

static GOptionContext *
new_context (MemoryOptions *o)
{
  const GOptionEntry entries[] = {
    { "summary", 0, 0, G_OPTION_ARG_NONE, &o->summary, "Totals, peak, size classes, lost events (the default)", NULL },
    { "leaks", 0, 0, G_OPTION_ARG_NONE, &o->leaks, "Allocations live at the end, by site", NULL },
    { "temporary", 0, 0, G_OPTION_ARG_NONE, &o->temporary, "Allocations freed right away, by site", NULL },
    { "cross-thread", 0, 0, G_OPTION_ARG_NONE, &o->cross_thread, "Frees by another thread than the allocating one",
      NULL },
    { "over-time", 0, 0, G_OPTION_ARG_NONE, &o->over_time, "Live heap at evenly spaced times", NULL },
    { "points", 0, 0, G_OPTION_ARG_INT, &o->points, "With --over-time: N times (default 100, 1 to 100000)", "N" },
    { "svg", 0, 0, G_OPTION_ARG_FILENAME, &o->svg, "With --over-time: write the chart to FILE (- for standard output)",
      "FILE" },
    { "diff", 0, 0, G_OPTION_ARG_NONE, &o->diff,
      "Live allocations at T1 against T2 (arguments T1 T2 CAPTURE), or at the end of two captures", NULL },
    { "pid", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o->pids,
      "Only records of process PID (repeatable, or a comma-separated list)", "PID" },
    { "tid", 't', 0, G_OPTION_ARG_STRING_ARRAY, &o->tids,
      "Only allocations of thread TID, and their frees (repeatable, or a comma-separated list)", "TID" },
    { "begin", 'b', 0, G_OPTION_ARG_DOUBLE, &o->begin, "Only records at or after SECONDS from the capture's start",
      "SECONDS" },
    { "end", 'e', 0, G_OPTION_ARG_DOUBLE, &o->end, "Only records at or before SECONDS from the capture's start",
      "SECONDS" },
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
  GOptionContext *context = g_option_context_new ("CAPTURE | --diff T1 T2 CAPTURE | --diff CAPTURE_A CAPTURE_B");

  g_option_context_set_summary (context, "Memory analyses of the allocation records of a capture.");
  g_option_context_set_description (context, memory_description);
  g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

typedef struct
{
  ReportFormat format;
  guint        limit;
  const char  *svg;
} Output;

static SysprofMemoryAnalysis *
analyze (const char *path, const MemoryOptions *o, const SysprofMemoryOptions *options, GError **error)
{
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofCaptureReader *reader =
      report_open_capture (path, o->debug_dirs, o->no_local_files, FALSE, &symbolizer, error);
  SysprofMemoryAnalysis *analysis;
  ReportProgress         progress = { isatty (2), -1 };
  SysprofMemoryOptions   loading = *options;

  if (reader == NULL)
    return NULL;
  /* The symbolizer's pass over the capture runs beside the analysis's. */
  loading.load_symbolizer = TRUE;
  analysis = sysprof_memory_analysis_new (reader, symbolizer, &loading, report_on_progress, &progress, error);
  sysprof_capture_reader_unref (reader);
  report_print_symbol_note (symbolizer);
  if (analysis == NULL)
    g_prefix_error (error, "%s: ", path);
  else if (sysprof_memory_analysis_get_summary (analysis)->record_errors > 0)
    /* Unsound memory stream blocks or frames: said on every verb, since
     * every result lacks their records. */
    g_printerr ("sysprof-report: %s: %" G_GUINT64_FORMAT
                " errors in the allocation records (their records are left out); the first: %s\n",
                path, sysprof_memory_analysis_get_summary (analysis)->record_errors,
                sysprof_memory_analysis_get_record_error (analysis));
  return analysis;
}

static void
print_lost_footer (const char *label, guint64 lost)
{
  if (lost > 0)
    printf ("\n%s%s%" G_GUINT64_FORMAT " lost events: the tracker or the daemon could not keep them, so these numbers "
            "are incomplete\n",
            label != NULL ? label : "", label != NULL ? ": " : "", lost);
}

static void
put_site (const SysprofSymbol *site)
{
  report_put_tsv_field (stdout, site->name);
  fputc ('\t', stdout);
  report_put_tsv_field (stdout, site->library);
}

static void
print_more (guint shown, guint total)
{
  if (shown < total)
    printf ("(%u more rows; --limit 0 shows all)\n", total - shown);
}

/* ------------------------------------------------------------------------ */
/* summary */

static void
put_metric (const char *name, guint64 value)
{
  printf ("%s\t%" G_GUINT64_FORMAT "\n", name, value);
}

static char *
human (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

static void
print_summary (const char *path, SysprofMemoryAnalysis *analysis, const Output *out)
{
  const SysprofMemorySummary *s = sysprof_memory_analysis_get_summary (analysis);
  double                      peak_s = (double) s->peak_time_ns / 1e9;

  if (out->format == REPORT_FORMAT_TSV)
    {
      printf ("metric\tvalue\n");
      put_metric ("records_read", s->records_read);
      put_metric ("allocations", s->allocations);
      put_metric ("frees", s->frees);
      put_metric ("bytes_allocated", s->bytes_allocated);
      put_metric ("bytes_freed", s->bytes_freed);
      put_metric ("peak_bytes", s->peak_bytes);
      put_metric ("peak_allocations", s->peak_allocations);
      printf ("peak_time_s\t%.9f\n", peak_s);
      put_metric ("live_allocations", s->live_allocations);
      put_metric ("live_bytes", s->live_bytes);
      put_metric ("temporary_allocations", s->temporary_allocations);
      put_metric ("temporary_bytes", s->temporary_bytes);
      put_metric ("cross_thread_frees", s->cross_thread_frees);
      put_metric ("cross_thread_bytes", s->cross_thread_bytes);
      put_metric ("unmatched_frees", s->unmatched_frees);
      put_metric ("unmatched_allocations", s->unmatched_allocations);
      put_metric ("unmatched_allocation_bytes", s->unmatched_allocation_bytes);
      put_metric ("lost_events", s->lost_events);
      put_metric ("lost_stream_events", s->lost_stream_events);
      put_metric ("record_errors", s->record_errors);
      put_metric ("threads", s->n_threads);
      put_metric ("processes", s->n_processes);
      for (guint i = 0; i < SYSPROF_MEMORY_N_SIZE_CLASSES; i++)
        if (s->class_allocations[i] > 0)
          {
            guint64 lo = G_GUINT64_CONSTANT (1) << i;
            guint64 hi = i == 63 ? G_MAXUINT64 : (lo << 1) - 1;

            printf ("size_%" G_GUINT64_FORMAT "_%" G_GUINT64_FORMAT "_allocations\t%" G_GUINT64_FORMAT "\n", lo, hi,
                    s->class_allocations[i]);
            printf ("size_%" G_GUINT64_FORMAT "_%" G_GUINT64_FORMAT "_bytes\t%" G_GUINT64_FORMAT "\n", lo, hi,
                    s->class_bytes[i]);
          }
      return;
    }

  {
    g_autofree char    *allocated = human (s->bytes_allocated);
    g_autofree char    *freed = human (s->bytes_freed);
    g_autofree char    *peak = human (s->peak_bytes);
    g_autofree char    *live = human (s->live_bytes);
    g_autofree char    *temporary = human (s->temporary_bytes);
    g_autofree char    *cross = human (s->cross_thread_bytes);
    static const Column columns[] = {
      { "SIZE (BYTES)", FALSE, 0 },
      { "ALLOCATIONS", TRUE, 0 },
      { "BYTES", TRUE, 0 },
    };
    Table table;

    printf ("%s: %" G_GUINT64_FORMAT " allocation records\n\n", path, s->records_read);
    printf ("allocations            %12" G_GUINT64_FORMAT "\n", s->allocations);
    printf ("frees                  %12" G_GUINT64_FORMAT "\n", s->frees);
    printf ("bytes allocated        %12" G_GUINT64_FORMAT "  (%s)\n", s->bytes_allocated, allocated);
    printf ("bytes freed            %12" G_GUINT64_FORMAT "  (%s)\n", s->bytes_freed, freed);
    printf ("peak live bytes        %12" G_GUINT64_FORMAT "  (%s) at %.3f s, %" G_GUINT64_FORMAT " live allocations\n",
            s->peak_bytes, peak, peak_s, s->peak_allocations);
    printf ("live at the end        %12" G_GUINT64_FORMAT "  allocations, %" G_GUINT64_FORMAT
            " bytes (%s): the leaks, see --leaks\n",
            s->live_allocations, s->live_bytes, live);
    printf ("temporary allocations  %12" G_GUINT64_FORMAT "  %" G_GUINT64_FORMAT " bytes (%s), see --temporary\n",
            s->temporary_allocations, s->temporary_bytes, temporary);
    printf ("cross-thread frees     %12" G_GUINT64_FORMAT "  %" G_GUINT64_FORMAT " bytes (%s), see --cross-thread\n",
            s->cross_thread_frees, s->cross_thread_bytes, cross);
    printf ("unmatched frees        %12" G_GUINT64_FORMAT
            "  frees of blocks allocated before the recording or outside the filters\n",
            s->unmatched_frees);
    printf ("unmatched allocations  %12" G_GUINT64_FORMAT "  live addresses allocated again (a missed free); the "
            "older blocks (%" G_GUINT64_FORMAT " bytes) count as neither freed nor live\n",
            s->unmatched_allocations, s->unmatched_allocation_bytes);
    printf ("lost events            %12" G_GUINT64_FORMAT "%s\n", s->lost_events,
            s->lost_events > 0 ? "  records the tracker or the daemon could not keep: the numbers are incomplete" : "");
    if (s->lost_stream_events > 0)
      printf ("  in memory streams     %12" G_GUINT64_FORMAT "  of them, counted by the tracker's threads (the rest: "
              "METADATA)\n",
              s->lost_stream_events);
    if (s->record_errors > 0)
      printf ("record errors          %12" G_GUINT64_FORMAT "  allocation records that could not be read and are "
              "left out; the first: %s\n",
              s->record_errors, sysprof_memory_analysis_get_record_error (analysis));
    printf ("threads                %12u\n", s->n_threads);
    printf ("processes              %12u\n", s->n_processes);

    table_init (&table, columns, G_N_ELEMENTS (columns));
    for (guint i = 0; i < SYSPROF_MEMORY_N_SIZE_CLASSES; i++)
      if (s->class_allocations[i] > 0)
        {
          guint64          lo = G_GUINT64_CONSTANT (1) << i;
          guint64          hi = i == 63 ? G_MAXUINT64 : (lo << 1) - 1;
          g_autofree char *range = g_strdup_printf ("%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, lo, hi);

          table_add (&table, range);
          table_add_count (&table, s->class_allocations[i]);
          table_add_count (&table, s->class_bytes[i]);
        }
    if (table.cells->len > 0)
      {
        printf ("\nAllocations by size:\n");
        table_print (&table);
      }
    table_clear (&table);
  }
}

/* ------------------------------------------------------------------------ */
/* leaks, temporary */

static void
print_sites (const char *path, SysprofMemoryAnalysis *analysis, GArray *rows, const char *what, const Output *out)
{
  const Column columns[] = {
    { "FUNCTION", FALSE, 60 },
    { "LIBRARY", FALSE, 28 },
    { g_str_equal (what, "leaked") ? "LEAKED_ALLOCATIONS" : "TEMPORARY_ALLOCATIONS", TRUE, 0 },
    { g_str_equal (what, "leaked") ? "LEAKED_BYTES" : "TEMPORARY_BYTES", TRUE, 0 },
  };
  const SysprofMemorySummary *s = sysprof_memory_analysis_get_summary (analysis);
  guint                       n_rows = out->limit > 0 ? MIN (out->limit, rows->len) : rows->len;
  Table                       table;

  if (out->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\t%s_allocations\t%s_bytes\n", what, what);
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofMemorySite *row = &g_array_index (rows, SysprofMemorySite, i);

          put_site (row->site);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", row->allocations, row->bytes);
        }
      return;
    }

  if (g_str_equal (what, "leaked"))
    printf ("%s: %" G_GUINT64_FORMAT " allocations (%" G_GUINT64_FORMAT " bytes) live at the end, from %u sites\n\n",
            path, s->live_allocations, s->live_bytes, rows->len);
  else
    printf ("%s: %" G_GUINT64_FORMAT " temporary allocations (%" G_GUINT64_FORMAT " bytes) of %" G_GUINT64_FORMAT
            ", from %u sites\n\n",
            path, s->temporary_allocations, s->temporary_bytes, s->allocations, rows->len);
  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < n_rows; i++)
    {
      const SysprofMemorySite *row = &g_array_index (rows, SysprofMemorySite, i);

      table_add (&table, row->site->name);
      table_add (&table, row->site->library);
      table_add_count (&table, row->allocations);
      table_add_count (&table, row->bytes);
    }
  if (rows->len > 0)
    table_print (&table);
  else
    printf (g_str_equal (what, "leaked") ? "(no leaks)\n" : "(no temporary allocations)\n");
  table_clear (&table);
  print_more (n_rows, rows->len);
  print_lost_footer (NULL, s->lost_events);
}

/* ------------------------------------------------------------------------ */
/* cross-thread */

static void
print_cross_thread (const char *path, SysprofMemoryAnalysis *analysis, const Output *out)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 }, { "ALLOC_TID", TRUE, 0 },
    { "FREE_TID", TRUE, 0 },   { "FREES", TRUE, 0 },     { "BYTES", TRUE, 0 },
  };
  const SysprofMemorySummary *s = sysprof_memory_analysis_get_summary (analysis);
  g_autoptr (GArray) rows = sysprof_memory_analysis_list_cross_thread (analysis);
  guint n_rows = out->limit > 0 ? MIN (out->limit, rows->len) : rows->len;
  Table table;

  if (out->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\talloc_tid\tfree_tid\tfrees\tbytes\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofMemoryCrossThread *row = &g_array_index (rows, SysprofMemoryCrossThread, i);

          put_site (row->site);
          printf ("\t%d\t%d\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", row->alloc_tid, row->free_tid, row->frees,
                  row->bytes);
        }
      return;
    }

  printf ("%s: %" G_GUINT64_FORMAT " cross-thread frees (%" G_GUINT64_FORMAT " bytes) of %" G_GUINT64_FORMAT
          " frees\n\n",
          path, s->cross_thread_frees, s->cross_thread_bytes, s->frees);
  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < n_rows; i++)
    {
      const SysprofMemoryCrossThread *row = &g_array_index (rows, SysprofMemoryCrossThread, i);
      char                            tid[16];

      table_add (&table, row->site->name);
      table_add (&table, row->site->library);
      g_snprintf (tid, sizeof tid, "%d", row->alloc_tid);
      table_add (&table, tid);
      g_snprintf (tid, sizeof tid, "%d", row->free_tid);
      table_add (&table, tid);
      table_add_count (&table, row->frees);
      table_add_count (&table, row->bytes);
    }
  if (rows->len > 0)
    table_print (&table);
  else
    printf ("(no cross-thread frees)\n");
  table_clear (&table);
  print_more (n_rows, rows->len);
  print_lost_footer (NULL, s->lost_events);
}

/* ------------------------------------------------------------------------ */
/* over time */

#define CHART_WIDTH  900
#define CHART_HEIGHT 380
#define CHART_LEFT   90
#define CHART_RIGHT  30
#define CHART_TOP    60
#define CHART_BOTTOM 50

static void
append_escaped (GString *svg, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_autofree char *escaped = g_markup_escape_text (valid, -1);

  for (const char *p = escaped; *p; p++)
    g_string_append_c (svg, (guchar) *p < 0x20 ? ' ' : *p);
}

/* Live bytes as a line, the peak since the previous point as a light band
 * above it, axes labelled in seconds and bytes; no script, no font. */
static char *
chart_svg (const char *path, SysprofMemoryAnalysis *analysis, const SysprofMemoryPoint *points, guint n)
{
  const SysprofMemorySummary *s = sysprof_memory_analysis_get_summary (analysis);
  GString                    *svg = g_string_new (NULL);
  g_autofree char            *name = g_path_get_basename (path);
  double                      plot_w = CHART_WIDTH - CHART_LEFT - CHART_RIGHT;
  double                      plot_h = CHART_HEIGHT - CHART_TOP - CHART_BOTTOM;
  guint64                     max_bytes = 1;
  gint64                      t0 = n > 0 ? points[0].time_ns : 0;
  gint64                      t1 = n > 0 ? points[n - 1].time_ns : 0;
  double                      span = t1 > t0 ? (double) (t1 - t0) : 1.0;

  for (guint i = 0; i < n; i++)
    max_bytes = MAX (max_bytes, MAX (points[i].peak_bytes, points[i].live_bytes));

#define X(t) (CHART_LEFT + plot_w * ((double) ((t) -t0) / span))
#define Y(b) (CHART_TOP + plot_h * (1.0 - (double) (b) / (double) max_bytes))

  g_string_append_printf (svg,
                          "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
                          "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
                          "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fbfbf8\"/>\n"
                          "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">Live heap of ",
                          CHART_WIDTH, CHART_HEIGHT, CHART_WIDTH, CHART_HEIGHT, CHART_WIDTH, CHART_HEIGHT,
                          CHART_WIDTH / 2);
  append_escaped (svg, name);
  g_string_append_printf (
      svg,
      "</text>\n<text x=\"%d\" y=\"42\" text-anchor=\"middle\">peak %" G_GUINT64_FORMAT
      " bytes at %.3f s; %" G_GUINT64_FORMAT " bytes live at the end; %" G_GUINT64_FORMAT " lost events</text>\n",
      CHART_WIDTH / 2, s->peak_bytes, (double) s->peak_time_ns / 1e9, s->live_bytes, s->lost_events);

  /* Axes and grid: 5 horizontal lines, 5 time ticks. */
  for (guint i = 0; i <= 4; i++)
    {
      guint64 b = max_bytes / 4 * i;
      double  y = Y (b);

      g_string_append_printf (svg,
                              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%" G_GUINT64_FORMAT "</text>\n",
                              CHART_LEFT, y, CHART_WIDTH - CHART_RIGHT, y, CHART_LEFT - 6, y + 4, b);
      g_string_append_printf (svg, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.3f s</text>\n",
                              CHART_LEFT + plot_w * i / 4, CHART_HEIGHT - CHART_BOTTOM + 16,
                              ((double) t0 + span * i / 4) / 1e9);
    }
  g_string_append_printf (svg,
                          "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">bytes"
                          "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds from the capture's "
                          "start</text>\n",
                          CHART_TOP + (int) plot_h / 2, CHART_TOP + (int) plot_h / 2, CHART_LEFT + (int) plot_w / 2,
                          CHART_HEIGHT - 10);

  if (n > 0)
    {
      g_string_append (svg, "<polyline fill=\"none\" stroke=\"#f0a070\" stroke-width=\"1\" points=\"");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (svg, "%.1f,%.1f ", X (points[i].time_ns), Y (points[i].peak_bytes));
      g_string_append (svg, "\"><title>peak since the previous point</title></polyline>\n");
      g_string_append (svg, "<polyline fill=\"none\" stroke=\"#c03020\" stroke-width=\"2\" points=\"");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (svg, "%.1f,%.1f ", X (points[i].time_ns), Y (points[i].live_bytes));
      g_string_append (svg, "\"><title>live bytes</title></polyline>\n");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (
            svg,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#c03020\"><title>%.3f s: %" G_GUINT64_FORMAT
            " bytes in %" G_GUINT64_FORMAT " allocations</title></circle>\n",
            X (points[i].time_ns), Y (points[i].live_bytes), (double) points[i].time_ns / 1e9, points[i].live_bytes,
            points[i].live_allocations);
    }
  g_string_append_printf (svg,
                          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"#444\"/>"
                          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#444\"/>\n</svg>\n",
                          CHART_LEFT, CHART_TOP, CHART_LEFT, CHART_TOP + plot_h, CHART_LEFT, CHART_TOP + plot_h,
                          CHART_WIDTH - CHART_RIGHT, CHART_TOP + plot_h);
#undef X
#undef Y
  return g_string_free (svg, FALSE);
}

static int
print_over_time (const char *path, SysprofMemoryAnalysis *analysis, const Output *out)
{
  static const Column columns[] = {
    { "TIME_S", TRUE, 0 },
    { "LIVE_BYTES", TRUE, 0 },
    { "LIVE_ALLOCATIONS", TRUE, 0 },
    { "PEAK_BYTES", TRUE, 0 },
  };
  const SysprofMemorySummary *s = sysprof_memory_analysis_get_summary (analysis);
  guint                       n = 0;
  const SysprofMemoryPoint   *points = sysprof_memory_analysis_get_points (analysis, &n);
  Table                       table;

  if (out->svg != NULL)
    {
      g_autofree char *svg = chart_svg (path, analysis, points, n);
      g_autoptr (GError) error = NULL;

      if (g_str_equal (out->svg, "-"))
        {
          fputs (svg, stdout);
          return REPORT_EXIT_OK;
        }
      if (!g_file_set_contents (out->svg, svg, -1, &error))
        {
          g_printerr ("%s: %s\n", g_get_prgname (), error->message);
          return REPORT_EXIT_ERROR;
        }
      printf ("%s\n", out->svg);
      return REPORT_EXIT_OK;
    }

  if (out->format == REPORT_FORMAT_TSV)
    {
      printf ("time_s\tlive_bytes\tlive_allocations\tpeak_bytes\n");
      for (guint i = 0; i < n; i++)
        printf ("%.9f\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n",
                (double) points[i].time_ns / 1e9, points[i].live_bytes, points[i].live_allocations,
                points[i].peak_bytes);
      return REPORT_EXIT_OK;
    }

  printf ("%s: live heap at %u times (PEAK_BYTES: the most since the previous time)\n\n", path, n);
  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < n; i++)
    {
      char text[32];

      g_snprintf (text, sizeof text, "%.3f", (double) points[i].time_ns / 1e9);
      table_add (&table, text);
      table_add_count (&table, points[i].live_bytes);
      table_add_count (&table, points[i].live_allocations);
      table_add_count (&table, points[i].peak_bytes);
    }
  table_print (&table);
  table_clear (&table);
  print_lost_footer (NULL, s->lost_events);
  return REPORT_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* diff */

static void
add_signed (Table *table, gint64 value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%+" G_GINT64_FORMAT, value);
  table_add (table, text);
}

static void
print_diff (const char *label_a, const char *label_b, GArray *rows, const Output *out)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 },        { "LIBRARY", FALSE, 28 },     { "ALLOCATIONS_A", TRUE, 0 },
    { "BYTES_A", TRUE, 0 },           { "ALLOCATIONS_B", TRUE, 0 }, { "BYTES_B", TRUE, 0 },
    { "DELTA_ALLOCATIONS", TRUE, 0 }, { "DELTA_BYTES", TRUE, 0 },   { "STATUS", FALSE, 0 },
  };
  guint n_rows = out->limit > 0 ? MIN (out->limit, rows->len) : rows->len;
  Table table;

  if (out->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\tallocations_a\tbytes_a\tallocations_b\tbytes_b\tdelta_allocations\tdelta_bytes\t"
              "status\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofMemoryDiffRow *row = &g_array_index (rows, SysprofMemoryDiffRow, i);

          put_site (row->site);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
                  "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%s\n",
                  row->allocations_a, row->bytes_a, row->allocations_b, row->bytes_b, row->delta_allocations,
                  row->delta_bytes, sysprof_memory_diff_status_to_string (row->status));
        }
      return;
    }

  printf ("Live allocations by site, A: %s, B: %s\n\n", label_a, label_b);
  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < n_rows; i++)
    {
      const SysprofMemoryDiffRow *row = &g_array_index (rows, SysprofMemoryDiffRow, i);

      table_add (&table, row->site->name);
      table_add (&table, row->site->library);
      table_add_count (&table, row->allocations_a);
      table_add_count (&table, row->bytes_a);
      table_add_count (&table, row->allocations_b);
      table_add_count (&table, row->bytes_b);
      add_signed (&table, row->delta_allocations);
      add_signed (&table, row->delta_bytes);
      table_add (&table, sysprof_memory_diff_status_to_string (row->status));
    }
  if (rows->len > 0)
    table_print (&table);
  else
    printf ("(nothing live at either)\n");
  table_clear (&table);
  print_more (n_rows, rows->len);
}

/* ------------------------------------------------------------------------ */
/* Command line */

static gboolean
parse_seconds (const char *text, gint64 *ns, GError **error)
{
  char  *end = NULL;
  double seconds = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--diff: “%s” is not a number of seconds", text);
      return FALSE;
    }
  return report_seconds_to_ns (seconds, "diff", ns, error);
}

static int
memory_main (int argc, char **argv, gboolean help_only)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GArray) tids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  g_autoptr (SysprofMemoryAnalysis) other = NULL;
  const char          *prgname = "sysprof-report memory";
  MemoryOptions        o = { .begin = NAN, .end = NAN, .limit = G_MININT, .points = DEFAULT_POINTS };
  SysprofMemoryOptions options = SYSPROF_MEMORY_OPTIONS_INIT;
  Output               out = { REPORT_FORMAT_TEXT, 0, NULL };
  Mode                 mode = MODE_SUMMARY;
  guint                n_modes;
  gint64               times[2];
  int                  status = REPORT_EXIT_OK;

  g_set_prgname (prgname);
  context = new_context (&o);
  if (help_only)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_print ("%s", help);
      memory_options_clear (&o);
      return REPORT_EXIT_OK;
    }
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      report_print_usage_error (prgname, error->message);
      memory_options_clear (&o);
      return REPORT_EXIT_USAGE;
    }
  if (o.version)
    {
      g_print ("sysprof-report %s\n", SYSPROF_PROJECT_VERSION);
      memory_options_clear (&o);
      return REPORT_EXIT_OK;
    }

#define USAGE_ERROR(...)                                       \
  G_STMT_START                                                 \
  {                                                            \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    report_print_usage_error (prgname, message_);              \
    memory_options_clear (&o);                                 \
    return REPORT_EXIT_USAGE;                                  \
  }                                                            \
  G_STMT_END

  n_modes = !!o.summary + !!o.leaks + !!o.temporary + !!o.cross_thread + !!o.over_time + !!o.diff;
  if (n_modes > 1)
    USAGE_ERROR ("choose one of --summary, --leaks, --temporary, --cross-thread, --over-time, --diff");
  if (o.svg != NULL && n_modes == 0)
    o.over_time = TRUE;
  mode = o.leaks          ? MODE_LEAKS
         : o.temporary    ? MODE_TEMPORARY
         : o.cross_thread ? MODE_CROSS_THREAD
         : o.over_time    ? MODE_OVER_TIME
         : o.diff         ? MODE_DIFF
                          : MODE_SUMMARY;
  if (o.svg != NULL && mode != MODE_OVER_TIME)
    USAGE_ERROR ("--svg goes with --over-time");

  if (mode == MODE_DIFF && argc != 3 && argc != 4)
    USAGE_ERROR ("--diff expects T1 T2 CAPTURE or CAPTURE_A CAPTURE_B");
  if (mode != MODE_DIFF && argc != 2)
    USAGE_ERROR ("expected CAPTURE");

  if (o.format != NULL && g_str_equal (o.format, "tsv"))
    out.format = REPORT_FORMAT_TSV;
  else if (o.format != NULL && !g_str_equal (o.format, "text"))
    USAGE_ERROR ("--format: “%s” is neither text nor tsv", o.format);
  if (o.limit != G_MININT && o.limit < 0)
    USAGE_ERROR ("--limit: %d is negative", o.limit);
  out.limit = o.limit != G_MININT ? (guint) o.limit : out.format == REPORT_FORMAT_TEXT ? TEXT_ROWS : 0;
  if (o.points < 1 || o.points > 100000)
    USAGE_ERROR ("--points: %d is not between 1 and 100000", o.points);
  out.svg = o.svg;

  if (!report_parse_ids (o.pids, "pid", pids, &error) || !report_parse_ids (o.tids, "tid", tids, &error))
    USAGE_ERROR ("%s", error->message);
  options.pids = (const gint32 *) (gpointer) pids->data;
  options.n_pids = pids->len;
  options.tids = (const gint32 *) (gpointer) tids->data;
  options.n_tids = tids->len;
  if (!isnan (o.begin) && !report_seconds_to_ns (o.begin, "begin", &options.begin_ns, &error))
    USAGE_ERROR ("%s", error->message);
  if (!isnan (o.end) && !report_seconds_to_ns (o.end, "end", &options.end_ns, &error))
    USAGE_ERROR ("%s", error->message);
  if (options.begin_ns > options.end_ns)
    USAGE_ERROR ("--begin is after --end");
  if (mode == MODE_OVER_TIME)
    options.n_points = (guint) o.points;
  if (mode == MODE_DIFF && argc == 4)
    {
      if (!parse_seconds (argv[1], &times[0], &error) || !parse_seconds (argv[2], &times[1], &error))
        USAGE_ERROR ("%s", error->message);
      options.snapshot_ns = times;
      options.n_snapshots = 2;
    }

#undef USAGE_ERROR

  analysis = analyze (argv[argc == 3 ? 1 : argc - 1], &o, &options, &error);
  if (analysis != NULL && mode == MODE_DIFF && argc == 3)
    other = analyze (argv[2], &o, &options, &error);
  if (analysis == NULL || (mode == MODE_DIFF && argc == 3 && other == NULL))
    {
      g_printerr ("%s: %s\n", prgname, error->message);
      memory_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }

  switch (mode)
    {
    case MODE_SUMMARY: print_summary (argv[1], analysis, &out); break;
    case MODE_LEAKS:
      {
        g_autoptr (GArray) rows = sysprof_memory_analysis_list_leaks (analysis);
        print_sites (argv[1], analysis, rows, "leaked", &out);
      }
      break;
    case MODE_TEMPORARY:
      {
        g_autoptr (GArray) rows = sysprof_memory_analysis_list_temporary (analysis);
        print_sites (argv[1], analysis, rows, "temporary", &out);
      }
      break;
    case MODE_CROSS_THREAD: print_cross_thread (argv[1], analysis, &out); break;
    case MODE_OVER_TIME: status = print_over_time (argv[1], analysis, &out); break;
    case MODE_DIFF:
    default:
      if (argc == 4)
        {
          g_autoptr (GArray) rows = sysprof_memory_analysis_diff_snapshots (analysis, 0, 1);
          g_autofree char *a = g_strdup_printf ("%s at %s s", argv[3], argv[1]);
          g_autofree char *b = g_strdup_printf ("%s at %s s", argv[3], argv[2]);

          print_diff (a, b, rows, &out);
          if (out.format == REPORT_FORMAT_TEXT)
            print_lost_footer (NULL, sysprof_memory_analysis_get_summary (analysis)->lost_events);
        }
      else
        {
          g_autoptr (GArray) rows = sysprof_memory_analysis_diff (analysis, other);
          g_autofree char *a = g_strdup_printf ("%s at its end", argv[1]);
          g_autofree char *b = g_strdup_printf ("%s at its end", argv[2]);

          print_diff (a, b, rows, &out);
          if (out.format == REPORT_FORMAT_TEXT)
            {
              print_lost_footer ("A", sysprof_memory_analysis_get_summary (analysis)->lost_events);
              print_lost_footer ("B", sysprof_memory_analysis_get_summary (other)->lost_events);
            }
        }
      break;
    }

  if (status == REPORT_EXIT_OK && (fflush (stdout) != 0 || ferror (stdout)))
    {
      g_printerr ("%s: cannot write the output: %s\n", prgname, g_strerror (errno));
      status = REPORT_EXIT_ERROR;
    }
  memory_options_clear (&o);
  return status;
}

const ReportVerb report_verb_memory = {
  .name = "memory",
  .summary = memory_summary,
  .main = memory_main,
};
