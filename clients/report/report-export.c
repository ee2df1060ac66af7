// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report export: the callgraph of a capture in another tool's
 * format: pprof's profile.proto (report-pprof.c), speedscope's JSON
 * (report-speedscope.c) or perf script's text (report-perf-script.c). */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "report-perf-script.h"
#include "report-pprof.h"
#include "report-speedscope.h"
#include "report-util.h"
#include "report-verbs.h"

/* GOption stores into them; one verb runs per process. */
static char *arg_output;
static gint  arg_max_threads = G_MININT; /* not given */

static const GOptionEntry export_options[] = {
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &arg_output,
    "Write to FILE (- for standard output); required but for perf-script, which writes to standard output", "FILE" },
  { "max-threads", 0, 0, G_OPTION_ARG_INT, &arg_max_threads,
    "speedscope: a profile of its own for the N busiest threads (default 32; 0: all), one for the others", "N" },
  { NULL },
};

static gboolean
check (const Report *report, GError **error)
{
  /* Binary and JSON files want a file; perf script's text is read from a
   * pipe as often. */
  if (arg_output == NULL && report->format != REPORT_FORMAT_PERF_SCRIPT)
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

/* A distinct stack of samples: its pprof locations, innermost first. */
typedef struct
{
  GArray *locations; /* guint64 */
  gint32  pid;
} Stack;

/* What the samples of one stack in one thread add up to: a pprof sample. */
typedef struct
{
  guint32 stack;
  gint32  tid;
  gint64  values[2];
} ThreadStack;

typedef struct
{
  ReportPprof       *pprof;
  SysprofSymbolizer *symbolizer;
  GHashTable        *stacks;    /* stack id -> Stack */
  GHashTable        *locations; /* LocationKey -> location id */
  GHashTable        *by_thread; /* (stack id << 32 | tid) -> index + 1 in thread_stacks */
  GArray            *thread_stacks;
  GArray            *lines;   /* ReportPprofLine, scratch */
  gint64             scale;   /* the first value: a weight times this */
  gint64             unit_ns; /* CPU: the second value, the nanoseconds a sample stands for */
  gboolean           bytes;   /* allocations counted: their bytes as a second value */
} Export;

static void
stack_free (gpointer data)
{
  Stack *stack = data;

  g_array_unref (stack->locations);
  g_free (stack);
}

static gint64
add_saturating (gint64 a, guint64 b)
{
  return b > (guint64) (G_MAXINT64 - a) ? G_MAXINT64 : a + (gint64) b;
}

static guint64
multiply_saturating (guint64 a, guint64 b)
{
  return b != 0 && a > G_MAXUINT64 / b ? G_MAXUINT64 : a * b;
}

/* The pprof function of a frame: its symbol's name and the source file of
 * its line (pprof gives a line no file of its own), so that what the
 * mapping says of its files is what every line shows.  pprof's function
 * view merges them by name, as top lists them. */
static guint64
function_of (Export *e, const SysprofCallgraphSampleFrame *frame)
{
  return report_pprof_function (e->pprof, frame->function->symbol->name, frame->file);
}

/* The mapping of a code frame: the process's mapping of the address (with
 * its file's build-id), the kernel's or a module's, or none (JIT code, an
 * address in no mapping). */
static guint64
mapping_of (Export *e, const SysprofCallgraphSample *sample, const SysprofCallgraphSampleFrame *frame)
{
  const SysprofSymbol     *symbol = frame->function->symbol;
  SysprofSymbolizerMapping mapping;

  /* The kernel's as perf names it (Sysprof 3.46 says "Kernel"). */
  if (symbol->kind == SYSPROF_SYMBOL_KERNEL)
    {
      g_autofree char *name = g_ascii_strcasecmp (symbol->library, "kernel") == 0 || symbol->library[0] == '\0'
                                  ? g_strdup ("[kernel.kallsyms]")
                                  : g_strdup_printf ("[%s]", symbol->library);

      return report_pprof_mapping (e->pprof, 0, 0, 0, name, NULL);
    }
  if (!sysprof_symbolizer_lookup_mapping (e->symbolizer, sample->pid, sample->time, frame->address, &mapping))
    return 0;
  return report_pprof_mapping (e->pprof, mapping.start, mapping.end, mapping.offset, mapping.filename,
                               mapping.build_id);
}

/* The location of @frames[0 .. n - 1], the functions of one address, the
 * inlined ones first. */
static guint64
location_of (Export *e, const SysprofCallgraphSample *sample, const SysprofCallgraphSampleFrame *frames, guint n)
{
  const SysprofCallgraphSampleFrame *outermost = &frames[n - 1];
  ReportPprofSymbolic                symbolic =
      REPORT_PPROF_FUNCTIONS | REPORT_PPROF_FILENAMES | REPORT_PPROF_LINE_NUMBERS | REPORT_PPROF_INLINE_FRAMES;

  /* A context node ("- - kernel - -") is a function of no code, as in
   * top. */
  if (outermost->function->kind == SYSPROF_CALLGRAPH_FUNCTION_CONTEXT)
    {
      ReportPprofLine line = { report_pprof_function (e->pprof, outermost->function->symbol->name, NULL), 0 };

      return report_pprof_location (e->pprof, 0, 0, &line, 1, symbolic);
    }
  g_array_set_size (e->lines, 0);
  for (guint i = 0; i < n; i++)
    {
      ReportPprofLine line = { function_of (e, &frames[i]), frames[i].line };

      g_array_append_val (e->lines, line);
      if (frames[i].function->symbol->kind == SYSPROF_SYMBOL_UNRESOLVED)
        symbolic &= ~REPORT_PPROF_FUNCTIONS;
      if (frames[i].file == NULL)
        symbolic &= ~REPORT_PPROF_FILENAMES;
      if (frames[i].line == 0)
        symbolic &= ~REPORT_PPROF_LINE_NUMBERS;
    }
  /* Inlined functions come from the debug info, which gave the lines:
   * without a line, none were looked for. */
  if (outermost->file == NULL)
    symbolic &= ~REPORT_PPROF_INLINE_FRAMES;
  return report_pprof_location (e->pprof, mapping_of (e, sample, outermost), outermost->address,
                                (const ReportPprofLine *) (gpointer) e->lines->data, e->lines->len, symbolic);
}

/* Stacks share most of their frames: a location is made once per process,
 * address and number of inlined frames there. */
typedef struct
{
  guint64 address;
  gint32  pid;
  guint32 n; /* inlined frames there, and 1 << 31 for the innermost frame (its
              * address is the instruction's, the others' are return
              * addresses, whose line is the call's) */
  /* What the callgraph made of the address (a pid may run another program
   * after an exec, at the same addresses). */
  gconstpointer first_function, last_function;
  guint32       first_line, last_line;
} LocationKey;

static guint
location_key_hash (gconstpointer data)
{
  const LocationKey *k = data;

  return (guint) (((k->address ^ ((guint64) (guint32) k->pid << 40) ^ ((guint64) k->n << 20)) *
                   G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >>
                  32);
}

static gboolean
location_key_equal (gconstpointer a, gconstpointer b)
{
  const LocationKey *x = a, *y = b;

  return x->address == y->address && x->pid == y->pid && x->n == y->n && x->first_function == y->first_function &&
         x->last_function == y->last_function && x->first_line == y->first_line && x->last_line == y->last_line;
}

static guint64
cached_location_of (Export                            *e,
                    const SysprofCallgraphSample      *sample,
                    const SysprofCallgraphSampleFrame *frames,
                    guint                              n,
                    gboolean                           innermost)
{
  LocationKey key = { frames[n - 1].address,          sample->pid,
                      n | (innermost ? 1u << 31 : 0), frames[0].function,
                      frames[n - 1].function,         (guint32) frames[0].line,
                      (guint32) frames[n - 1].line };
  gpointer    found;
  guint64     location;

  /* Context nodes have no address of their own: not cached. */
  if (frames[n - 1].function->kind == SYSPROF_CALLGRAPH_FUNCTION_CONTEXT)
    return location_of (e, sample, frames, n);
  if ((found = g_hash_table_lookup (e->locations, &key)) != NULL)
    return (guint64) GPOINTER_TO_SIZE (found);
  location = location_of (e, sample, frames, n);
  g_hash_table_insert (e->locations, g_memdup2 (&key, sizeof key), GSIZE_TO_POINTER ((gsize) location));
  return location;
}

/* A stack's locations, from the frames of its first sample: one location
 * per address, the functions inlined there its first lines.  The process
 * node becomes the samples' labels, as pprof's converters of other
 * profilers put a process there; the root (a sample a focused and hidden
 * function left without frames) is no location. */
static Stack *
stack_of (Export *e, const SysprofCallgraphSample *sample)
{
  Stack *stack = g_hash_table_lookup (e->stacks, GUINT_TO_POINTER (sample->stack));

  if (stack != NULL)
    return stack;
  stack = g_new0 (Stack, 1);
  stack->locations = g_array_new (FALSE, FALSE, sizeof (guint64));
  stack->pid = sample->pid;
  for (guint i = 0; i < sample->n_frames;)
    {
      guint n = 1;

      while (i + n - 1 < sample->n_frames - 1 && sample->frames[i + n - 1].inlined)
        n++;
      if (sample->frames[i].function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE ||
          sample->frames[i].function->kind == SYSPROF_CALLGRAPH_FUNCTION_CONTEXT)
        {
          guint64 location = cached_location_of (e, sample, &sample->frames[i], n, i == 0);

          g_array_append_val (stack->locations, location);
        }
      i += n;
    }
  g_hash_table_insert (e->stacks, GUINT_TO_POINTER (sample->stack), stack);
  return stack;
}

/* The samples of a stack in a thread add up to one pprof sample. */
static gboolean
add_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  Export      *e = user_data;
  guint64      key = (guint64) sample->stack << 32 | (guint32) sample->tid;
  gpointer     found = g_hash_table_lookup (e->by_thread, &key);
  ThreadStack *thread_stack;

  stack_of (e, sample);
  if (found == NULL)
    {
      ThreadStack fresh = { sample->stack, sample->tid, { 0, 0 } };
      guint64    *owned = g_memdup2 (&key, sizeof key);

      g_array_append_val (e->thread_stacks, fresh);
      found = GUINT_TO_POINTER (e->thread_stacks->len);
      g_hash_table_insert (e->by_thread, owned, found);
    }
  thread_stack = &g_array_index (e->thread_stacks, ThreadStack, GPOINTER_TO_UINT (found) - 1);
  thread_stack->values[0] = add_saturating (thread_stack->values[0], multiply_saturating (sample->weight, e->scale));
  thread_stack->values[1] = add_saturating (
      thread_stack->values[1], e->bytes ? sample->bytes : multiply_saturating (sample->weight, (guint64) e->unit_ns));
  return TRUE;
}

/* One pprof sample per stack and thread, labelled with the process and
 * the thread: numbers ("pid", "tid"), and names where the capture has
 * them ("process"; "thread" for a main thread, named as its process). */
static void
write_samples (Export *e)
{
  for (guint i = 0; i < e->thread_stacks->len; i++)
    {
      const ThreadStack *thread_stack = &g_array_index (e->thread_stacks, ThreadStack, i);
      const Stack       *stack = g_hash_table_lookup (e->stacks, GUINT_TO_POINTER (thread_stack->stack));
      const char        *process = sysprof_symbolizer_get_process_name (e->symbolizer, stack->pid);
      g_autofree char   *thread =
          process != NULL && thread_stack->tid == stack->pid ? report_process_comm (process) : NULL;
      ReportPprofLabel labels[4];
      guint            n_labels = 0;

      /* pprof reads a numeric label of 0 as none (the kernel's idle task is
       * pid 0): none is written. */
      if (stack->pid != 0)
        labels[n_labels++] = (ReportPprofLabel){ "pid", NULL, stack->pid, NULL };
      if (thread_stack->tid != 0)
        labels[n_labels++] = (ReportPprofLabel){ "tid", NULL, thread_stack->tid, NULL };
      if (process != NULL)
        labels[n_labels++] = (ReportPprofLabel){ "process", process, 0, NULL };
      if (thread != NULL)
        labels[n_labels++] = (ReportPprofLabel){ "thread", thread, 0, NULL };
      report_pprof_add_sample (e->pprof, (const guint64 *) (gpointer) stack->locations->data, stack->locations->len,
                               thread_stack->values, labels, n_labels);
    }
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

/* g_int64_hash folds the halves together: stack ids and thread ids, both
 * small, then collide by the thousand (half of an export's time went into
 * g_int64_equal).  Fibonacci hashing spreads them. */
static guint
mixed_u64_hash (gconstpointer key)
{
  return (guint) ((*(const guint64 *) key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32);
}

static int
run_pprof (const Report *report)
{
  g_autoptr (ReportPprof) pprof = report_pprof_new ();
  g_autoptr (GHashTable) stacks = g_hash_table_new_full (NULL, NULL, NULL, stack_free);
  g_autoptr (GHashTable) locations = g_hash_table_new_full (location_key_hash, location_key_equal, g_free, NULL);
  g_autoptr (GHashTable) by_thread = g_hash_table_new_full (mixed_u64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GArray) thread_stacks = g_array_new (FALSE, FALSE, sizeof (ThreadStack));
  g_autoptr (GArray) lines = g_array_new (FALSE, FALSE, sizeof (ReportPprofLine));
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  SysprofCallgraphSource source = sysprof_callgraph_get_source (report->callgraph);
  Export                 e = {
                    .pprof = pprof,
                    .symbolizer = sysprof_callgraph_get_symbolizer (report->callgraph),
                    .stacks = stacks,
                    .locations = locations,
                    .by_thread = by_thread,
                    .thread_stacks = thread_stacks,
                    .lines = lines,
                    .scale = 1,
  };
  gboolean leaked = source == SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS;

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
      report_pprof_set_period (pprof, "cpu", "nanoseconds", REPORT_DEFAULT_PERIOD_NS);
      e.unit_ns = REPORT_DEFAULT_PERIOD_NS;
      break;
    }
  report_pprof_add_comment (pprof, "sysprof-report export");
  set_time (pprof, report->capture_path);
  /* A stack's frames are needed once: its locations are kept (stack_of). */
  sysprof_callgraph_foreach_sample_full (report->callgraph, SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE, add_sample, &e);
  write_samples (&e);

  if ((bytes = report_pprof_encode (pprof, &error)) == NULL)
    {
      g_printerr ("sysprof-report: %s\n", error->message);
      return REPORT_EXIT_ERROR;
    }
  return write_output (bytes);
}

/* Written as it is made (a sample at a time: it can be large), into a
 * temporary file renamed to -o FILE once complete, so that a failure
 * leaves no half file. */
static int
run_perf_script (const Report *report)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *temporary = NULL;
  FILE            *out = stdout;
  mode_t           mask;
  int              fd;

  if (arg_output == NULL || g_str_equal (arg_output, "-"))
    {
      if (!report_perf_script_write (report, stdout, &error))
        {
          g_printerr ("sysprof-report: %s\n", error->message);
          return REPORT_EXIT_ERROR;
        }
      return REPORT_EXIT_OK;
    }
  temporary = g_strdup_printf ("%s.XXXXXX", arg_output);
  if ((fd = g_mkstemp_full (temporary, O_WRONLY, 0666)) < 0)
    {
      g_printerr ("sysprof-report: %s: %s\n", arg_output, g_strerror (errno));
      return REPORT_EXIT_ERROR;
    }
  /* mkstemp makes it private: the file gets the mode of any other. */
  mask = umask (0);
  umask (mask);
  if (fchmod (fd, 0666 & ~mask) != 0 || (out = fdopen (fd, "w")) == NULL)
    {
      g_printerr ("sysprof-report: %s: %s\n", arg_output, g_strerror (errno));
      close (fd);
      g_unlink (temporary);
      return REPORT_EXIT_ERROR;
    }
  if (!report_perf_script_write (report, out, &error))
    {
      g_printerr ("sysprof-report: %s: %s\n", arg_output, error->message);
      fclose (out);
      g_unlink (temporary);
      return REPORT_EXIT_ERROR;
    }
  if (fclose (out) != 0 || g_rename (temporary, arg_output) != 0)
    {
      g_printerr ("sysprof-report: %s: %s\n", arg_output, g_strerror (errno));
      g_unlink (temporary);
      return REPORT_EXIT_ERROR;
    }
  g_printerr ("%s\n", arg_output);
  return REPORT_EXIT_OK;
}

/* pprof's labels and perf script's lines need every sample. */
static void
prepare_filter (const Report *report, SysprofCallgraphFilter *filter)
{
  filter->keep_samples = report->format == REPORT_FORMAT_PPROF || report->format == REPORT_FORMAT_PERF_SCRIPT ||
                         report->format == REPORT_FORMAT_SPEEDSCOPE;
}

static int
run (const Report *report)
{
  if (report->format == REPORT_FORMAT_SPEEDSCOPE)
    return run_speedscope (report);
  if (report->format == REPORT_FORMAT_PERF_SCRIPT)
    return run_perf_script (report);
  return run_pprof (report);
}

const ReportVerb report_verb_export = {
  .name = "export",
  .summary = "Write the callgraph for another tool: a pprof profile (pprof, Parca, Pyroscope),\n"
             "              a speedscope file (speedscope.app) or perf script's text (FlameGraph).",
  .parameters = "CAPTURE",
  .description = "Writes the samples that pass the filters to -o FILE, in one of three formats.\n\n"
                 "--format pprof (the default): a gzipped profile.proto of\n"
                 "github.com/google/pprof.  Each distinct stack of a thread is one sample, its\n"
                 "values the samples and the CPU time they stand for (1/997 s each, sysprof-cli's\n"
                 "default frequency); with --off-cpu or --wall-clock the nanoseconds waited (or\n"
                 "spent); with --memory alloc_objects and alloc_space (inuse_* with\n"
                 "--memory=leaked; the bytes only with =bytes and =leaked-bytes).  Its labels:\n"
                 "\"pid\" and \"tid\" (numbers), \"process\" (the process's name) and \"thread\"\n"
                 "(for a main thread, its process's command name: the capture names no other\n"
                 "thread).  A location is an address with its function and, before it, the\n"
                 "functions inlined there, with their source lines where the debug info gives\n"
                 "them; its mapping is the process's file with that file's build-id (the one the\n"
                 "capture recorded, or read from the file here when its inode is the recorded\n"
                 "one: what `readelf -n` prints).  A mapping says has_functions, has_filenames,\n"
                 "has_line_numbers and has_inline_frames when the locations of all the mappings\n"
                 "of its binary have them (pprof takes them as one).  pprof names the code of a\n"
                 "binary that lacks some names itself, from the file it finds at that path:\n"
                 "with -symbolize=none, `pprof -top` lists the functions with the same self\n"
                 "(flat) and total (cum) as `sysprof-report top` (an inlined function's frames\n"
                 "apart, as \"NAME (inline)\"), `pprof -tags` the threads, and\n"
                 "`pprof -tagfocus tid=TID` keeps one.\n\n"
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
                 "--format perf-script: the text `perf script` prints for sampled callchains\n"
                 "(perf 6.1's default fields and the pid), which FlameGraph's\n"
                 "stackcollapse-perf.pl, speedscope, the Firefox Profiler and Hotspot read.  Each\n"
                 "sample, in time order, is a line \"COMM PID/TID [CPU] SECONDS: PERIOD EVENT:\",\n"
                 "its frames innermost first, \"ADDRESS SYMBOL+0xOFFSET (FILE)\" (user addresses\n"
                 "in their file, as perf prints them; \"(inlined)\" instead of FILE for a\n"
                 "function inlined at the address of the next line), and an empty line.  EVENT\n"
                 "and PERIOD: cpu-clock and the nanoseconds a sample stands for (1/997 s);\n"
                 "offcpu-time (perf's name) and the nanoseconds waited with --off-cpu;\n"
                 "wall-clock and both with --wall-clock (waits under \"[off-CPU]\"); with --memory\n"
                 "one line per allocation: allocations (period 1) or allocated-bytes (its bytes),\n"
                 "leaked-allocations or leaked-bytes with =leaked and =leaked-bytes.  COMM is the\n"
                 "process's command name (the capture names no thread).  Counted per function\n"
                 "(samples, or periods), the frames give the self and total of `sysprof-report\n"
                 "top` (in microseconds for time: periods / 1000); a sample whose kernel frames\n"
                 "--no-kernel dropped ends in a \"- - kernel - -\" frame, whose self it is in top.\n"
                 "--lines adds perf's source lines (\"  FILE:LINE\" under a frame).  Without -o,\n"
                 "to standard output.\n\n"
                 "The path of -o FILE is printed on standard error.\n\n"
                 "Examples:\n"
                 "  sysprof-report export --format pprof -o cpu.pb.gz capture.syscap\n"
                 "  pprof -symbolize=none -top cpu.pb.gz\n"
                 "  sysprof-report export --format speedscope -o cpu.speedscope.json capture.syscap\n"
                 "  speedscope cpu.speedscope.json\n"
                 "  sysprof-report export --format perf-script capture.syscap | stackcollapse-perf.pl",
  .entries = export_options,
  .check = check,
  .run = run,
  .export_formats = TRUE,
  .prepare_filter = prepare_filter,
};
