// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report export: the callgraph of a capture in another tool's
 * format: pprof's profile.proto (report-pprof.c) or speedscope's JSON
 * (report-speedscope.c). */

#include <errno.h>

#include "report-pprof.h"
#include "report-speedscope.h"
#include "report-util.h"
#include "report-verbs.h"

/* Without a recorded frequency: sysprof-cli's default, 997 Hz. */
#define DEFAULT_PERIOD_NS (G_GINT64_CONSTANT (1000000000) / 997)

/* GOption stores into them; one verb runs per process. */
static char *arg_output;
static gint  arg_max_threads = G_MININT; /* not given */

static const GOptionEntry export_options[] = {
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &arg_output, "Write to FILE (- for standard output); required", "FILE" },
  { "max-threads", 0, 0, G_OPTION_ARG_INT, &arg_max_threads,
    "speedscope: a profile of its own for the N busiest threads (default 32; 0: all), one for the others", "N" },
  { NULL },
};

static gboolean
check (const Report *report, GError **error)
{
  if (arg_output == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--output FILE is required");
      return FALSE;
    }
  if (arg_max_threads != G_MININT && report->format != REPORT_FORMAT_SPEEDSCOPE)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--max-threads is an option of --format speedscope");
      return FALSE;
    }
  if (arg_max_threads != G_MININT && arg_max_threads < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--max-threads: %d is negative", arg_max_threads);
      return FALSE;
    }
  return TRUE;
}

/* @bytes to --output, the path on stderr when it is a file. */
static int
write_output (GBytes *bytes)
{
  g_autoptr (GError) error = NULL;
  gsize         len;
  gconstpointer data = g_bytes_get_data (bytes, &len);

  if (g_str_equal (arg_output, "-"))
    {
      if (fwrite (data, 1, len, stdout) != len)
        {
          g_printerr ("sysprof-report: cannot write the profile: %s\n", g_strerror (errno));
          return REPORT_EXIT_ERROR;
        }
      return REPORT_EXIT_OK;
    }
  if (!g_file_set_contents (arg_output, data, (gssize) len, &error))
    {
      g_printerr ("sysprof-report: %s\n", error->message);
      return REPORT_EXIT_ERROR;
    }
  g_printerr ("%s\n", arg_output);
  return REPORT_EXIT_OK;
}

static int
run_speedscope (const Report *report)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  guint max_threads = arg_max_threads == G_MININT ? REPORT_SPEEDSCOPE_MAX_THREADS : (guint) arg_max_threads;

  if ((bytes = report_speedscope_build (report, max_threads, &error)) == NULL)
    {
      g_printerr ("sysprof-report: %s\n", error->message);
      return REPORT_EXIT_ERROR;
    }
  return write_output (bytes);
}

typedef struct
{
  ReportPprof *pprof;
  GArray      *locations; /* guint64 */
  gint64       scale;     /* the first value: a count times this */
  gint64       unit_ns;   /* CPU: the second value, the nanoseconds a sample stands for */
  gboolean     bytes;     /* allocations counted: their bytes as a second value */
} Export;

/* One sample per node of the tree with samples of its own: its path from
 * the root is a distinct stack.  pprof wants the innermost frame first; the
 * process node becomes the sample's label, as pprof's converters of other
 * profilers put a process there. */
static void
add_node (Export *e, const SysprofCallgraphNode *node)
{
  const char *process = NULL;
  gint64      values[2];

  g_array_set_size (e->locations, 0);
  for (const SysprofCallgraphNode *n = node; n != NULL; n = n->parent)
    {
      const SysprofCallgraphFunction *f = n->function;
      guint64                         id;

      if (f->kind == SYSPROF_CALLGRAPH_FUNCTION_PROCESS)
        {
          process = f->symbol->name;
          continue;
        }
      if (f->kind == SYSPROF_CALLGRAPH_FUNCTION_ROOT)
        continue;
      id = report_pprof_location (e->pprof, f, f->symbol->name, f->symbol->library, f->file, f->line);
      g_array_append_val (e->locations, id);
    }
  values[0] = (gint64) MIN (node->self, (guint64) (G_MAXINT64 / e->scale)) * e->scale;
  values[1] = e->bytes ? (gint64) MIN (node->self_bytes, (guint64) G_MAXINT64) : values[0] * e->unit_ns;
  report_pprof_add_sample (e->pprof, (const guint64 *) (gpointer) e->locations->data, e->locations->len, values,
                           process ? "process" : NULL, process);
}

/* When the recording started (the header's wall-clock time) and how long it
 * lasted; nothing when the header does not say. */
static void
set_time (ReportPprof *pprof, const char *path)
{
  SysprofCaptureError   error = { 0 };
  SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (path, &error);
  g_autoptr (GDateTime) when = NULL;
  gint64 duration = 0;

  if (reader == NULL)
    return;
  if (sysprof_capture_reader_get_time (reader) != NULL)
    when = g_date_time_new_from_iso8601 (sysprof_capture_reader_get_time (reader), NULL);
  if (sysprof_capture_reader_get_end_time (reader) > sysprof_capture_reader_get_start_time (reader))
    duration = sysprof_capture_reader_get_end_time (reader) - sysprof_capture_reader_get_start_time (reader);
  report_pprof_set_time (pprof,
                         when ? g_date_time_to_unix (when) * G_GINT64_CONSTANT (1000000000) +
                                    g_date_time_get_microsecond (when) * 1000
                              : 0,
                         duration);
  sysprof_capture_reader_unref (reader);
}

/* Depth first, without recursion: stacks may be thousands of frames deep. */
static void
add_tree (Export *e, const SysprofCallgraphNode *root)
{
  g_autoptr (GPtrArray) todo = g_ptr_array_new ();

  g_ptr_array_add (todo, (gpointer) root);
  while (todo->len > 0)
    {
      const SysprofCallgraphNode *node = g_ptr_array_steal_index_fast (todo, todo->len - 1);

      if (node->self > 0)
        add_node (e, node);
      for (const SysprofCallgraphNode *child = node->first_child; child != NULL; child = child->next_sibling)
        g_ptr_array_add (todo, (gpointer) child);
    }
}

static int
run_pprof (const Report *report)
{
  g_autoptr (ReportPprof) pprof = report_pprof_new ();
  g_autoptr (GArray) locations = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  SysprofCallgraphSource source = sysprof_callgraph_get_source (report->callgraph);
  Export                 e = { pprof, locations, 1, 0, FALSE };
  gboolean               leaked = source == SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS;

  switch (source)
    {
    case SYSPROF_CALLGRAPH_SOURCE_OFF_CPU:
    case SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK:
      /* Counted in microseconds: pprof's unit of time is the nanosecond. */
      report_pprof_add_sample_type (pprof, source == SYSPROF_CALLGRAPH_SOURCE_OFF_CPU ? "off_cpu" : "wall",
                                    "nanoseconds");
      e.scale = 1000;
      break;
    case SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS:
    case SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS:
      /* pprof's names for heap profiles: alloc_* for every allocation,
       * inuse_* for those still live. */
      if (report->memory_bytes)
        report_pprof_add_sample_type (pprof, leaked ? "inuse_space" : "alloc_space", "bytes");
      else
        {
          report_pprof_add_sample_type (pprof, leaked ? "inuse_objects" : "alloc_objects", "count");
          report_pprof_add_sample_type (pprof, leaked ? "inuse_space" : "alloc_space", "bytes");
          e.bytes = TRUE;
        }
      break;
    case SYSPROF_CALLGRAPH_SOURCE_SAMPLES:
    default:
      report_pprof_add_sample_type (pprof, "samples", "count");
      report_pprof_add_sample_type (pprof, "cpu", "nanoseconds");
      report_pprof_set_period (pprof, "cpu", "nanoseconds", DEFAULT_PERIOD_NS);
      e.unit_ns = DEFAULT_PERIOD_NS;
      break;
    }
  report_pprof_add_comment (pprof, "sysprof-report export");
  set_time (pprof, report->capture_path);
  add_tree (&e, sysprof_callgraph_get_root (report->callgraph));

  if ((bytes = report_pprof_encode (pprof, &error)) == NULL)
    {
      g_printerr ("sysprof-report: %s\n", error->message);
      return REPORT_EXIT_ERROR;
    }
  return write_output (bytes);
}

static int
run (const Report *report)
{
  if (report->format == REPORT_FORMAT_SPEEDSCOPE)
    return run_speedscope (report);
  return run_pprof (report);
}

const ReportVerb report_verb_export = {
  .name = "export",
  .summary = "Write the callgraph for another tool: a pprof profile (pprof, Parca, Pyroscope)\n"
             "or a speedscope file (speedscope.app).",
  .parameters = "CAPTURE",
  .description = "Writes the samples that pass the filters to -o FILE, in one of two formats.\n\n"
                 "--format pprof (the default): a gzipped profile.proto of\n"
                 "github.com/google/pprof.  Each distinct stack is one sample, its values the\n"
                 "samples and the CPU time they stand for (1/997 s each, sysprof-cli's default\n"
                 "frequency); with --off-cpu or --wall-clock the nanoseconds waited (or\n"
                 "spent); with --memory alloc_objects and alloc_space (inuse_* with\n"
                 "--memory=leaked; the bytes only with =bytes and =leaked-bytes).  Locations are\n"
                 "the callgraph's functions (named already: pprof does not look for binaries),\n"
                 "one mapping per library, the process a label of each sample (\"process\").  So\n"
                 "`pprof -top` on the file lists the functions with the same self (flat) and\n"
                 "total (cum) as `sysprof-report top`.\n\n"
                 "--format speedscope: speedscope's JSON file format\n"
                 "(https://www.speedscope.app/file-format-schema.json): the functions in a\n"
                 "shared frames table (name; file: the source file with --lines, else the\n"
                 "library; line), and one \"sampled\" profile per thread, named\n"
                 "\"PROCESS (PID)/TID\", busiest first: each distinct stack of the thread is a\n"
                 "sample (frame indexes, outermost first), weighing its samples (unit \"none\"),\n"
                 "its microseconds with --off-cpu or --wall-clock, its allocations (\"none\") or\n"
                 "bytes (\"bytes\") with --memory.  A sample's last frame has that weight as its\n"
                 "self: summed per function they are the self column of `sysprof-report top`,\n"
                 "and a thread's weights add up to `sysprof-report top --tid TID`'s total.  Each\n"
                 "thread's profile is a callgraph of its own, one more reading of CAPTURE:\n"
                 "beyond the --max-threads busiest (32), the other threads share one profile\n"
                 "(\"N other threads\").  The samples are distinct stacks in the call tree's\n"
                 "order, not in time order: read speedscope's Left Heavy and Sandwich views.\n\n"
                 "The path is printed on standard error.\n\n"
                 "Examples:\n"
                 "  sysprof-report export --format pprof -o cpu.pb.gz capture.syscap\n"
                 "  pprof -top cpu.pb.gz\n"
                 "  sysprof-report export --format speedscope -o cpu.speedscope.json capture.syscap\n"
                 "  speedscope cpu.speedscope.json",
  .entries = export_options,
  .check = check,
  .run = run,
  .export_formats = TRUE,
};
