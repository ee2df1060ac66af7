// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>

#include <gio/gio.h>

#include "report-perf-script.h"

typedef struct
{
  FILE              *out;
  SysprofSymbolizer *symbolizer;
  gboolean           lines;
  const char        *event;
  guint64            period_scale; /* a sample's period is its weight times this */
  GHashTable        *comms;        /* pid -> its comm */
  GHashTable        *stacks;       /* stack id -> GString, its frame lines */
  GString           *header;
} Writer;

/* Untrusted names stay on their line and valid UTF-8: the format has no
 * escapes, and its readers split lines and fields on whitespace.  A
 * control character becomes "?" (a space could start a line). */
static void
put_text (GString *out, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  for (const char *p = valid; *p; p++)
    g_string_append_c (out, (guchar) *p < 0x20 || *p == 0x7f ? '?' : *p);
}

/* A path inside "(…)": the readers take it as one field (\S*). */
static void
put_dso (GString *out, const char *dso)
{
  g_autofree char *valid = g_utf8_make_valid (dso, -1);

  for (const char *p = valid; *p; p++)
    g_string_append_c (out, (guchar) *p < 0x20 || *p == 0x7f ? '?' : *p == ' ' ? '_' : *p);
}

static const char *
comm_of (Writer *w, gint32 pid)
{
  const char *comm = g_hash_table_lookup (w->comms, GINT_TO_POINTER (pid));
  const char *name;

  if (comm != NULL)
    return comm;
  name = sysprof_symbolizer_get_process_name (w->symbolizer, pid);
  /* perf's name for a thread it knows no comm of. */
  comm = name != NULL && name[0] != '\0' && name[0] != ' ' ? report_process_comm (name) : g_strdup_printf (":%d", pid);
  g_hash_table_insert (w->comms, GINT_TO_POINTER (pid), (gpointer) comm);
  return comm;
}

static gboolean
is_kernel (const SysprofCallgraphSampleFrame *frame)
{
  return frame->function->symbol->kind == SYSPROF_SYMBOL_KERNEL || frame->context == SYSPROF_ADDRESS_CONTEXT_KERNEL ||
         frame->context == SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL || frame->context == SYSPROF_ADDRESS_CONTEXT_HYPERVISOR;
}

/* Mappings perf reads no file of: their addresses are printed as they are
 * (perf's identity map), the others' as offsets in their file. */
static gboolean
is_file (const SysprofSymbolizerMapping *mapping)
{
  const char *f = mapping->filename;

  return (f[0] == '/' && f[1] != '/' && !g_str_has_prefix (f, "/memfd:")) || g_str_equal (f, "[vdso]");
}

/* How far into its function @address is: from the start of the range of
 * addresses the symbolizer gives that function, found at the address or,
 * for a return address after a call that ends the function, just before
 * it.  0 when neither is the frame's function: the readers take off one
 * "+0x…" from every name, so a name without one would lose its own. */
static guint64
symbol_offset (Writer *w, const SysprofCallgraphSample *sample, const SysprofCallgraphSampleFrame *frame)
{
  for (guint64 back = 0; back < 2 && frame->address >= back; back++)
    {
      guint64              begin, end;
      const SysprofSymbol *symbol = sysprof_symbolizer_lookup_range (
          w->symbolizer, sample->pid, sample->time, frame->context, frame->address - back, &begin, &end);

      if (symbol == frame->function->symbol && begin <= frame->address)
        return frame->address - begin;
    }
  return 0;
}

/* The frames of one address: the functions inlined there, then the one
 * they were inlined into, which has the file. */
static void
put_address (
    Writer *w, GString *out, const SysprofCallgraphSample *sample, const SysprofCallgraphSampleFrame *frames, guint n)
{
  const SysprofCallgraphSampleFrame *outer = &frames[n - 1];
  SysprofSymbolizerMapping           mapping;
  gboolean                           mapped = FALSE;
  guint64                            shown = outer->address;
  guint64                            offset;

  if (!is_kernel (outer))
    mapped = sysprof_symbolizer_lookup_mapping (w->symbolizer, sample->pid, sample->time, outer->address, &mapping);
  if (mapped && is_file (&mapping))
    shown = outer->address - mapping.start + mapping.offset;
  offset = symbol_offset (w, sample, outer);
  for (guint i = 0; i < n; i++)
    {
      const SysprofCallgraphSampleFrame *frame = &frames[i];

      g_string_append_printf (out, "\t%16" G_GINT64_MODIFIER "x ", shown);
      put_text (out, frame->function->symbol->name);
      g_string_append_printf (out, "+0x%" G_GINT64_MODIFIER "x", offset);
      /* perf names no file for an inlined function, only "(inlined)",
       * after the source line. */
      if (i + 1 == n)
        {
          g_string_append (out, " (");
          if (is_kernel (frame))
            {
              /* Sysprof 3.46 names the kernel "Kernel". */
              if (g_ascii_strcasecmp (frame->function->symbol->library, "kernel") == 0 ||
                  frame->function->symbol->library[0] == '\0')
                g_string_append (out, "[kernel.kallsyms]");
              else
                {
                  g_string_append_c (out, '[');
                  put_dso (out, frame->function->symbol->library);
                  g_string_append_c (out, ']');
                }
            }
          else
            put_dso (out, mapped ? mapping.filename : "[unknown]");
          g_string_append_c (out, ')');
        }
      if (w->lines && frame->file != NULL)
        {
          g_autofree char *base = g_path_get_basename (frame->file);

          g_string_append (out, "\n  ");
          put_text (out, base);
          g_string_append_printf (out, ":%u", frame->line);
        }
      if (i + 1 < n)
        g_string_append (out, " (inlined)");
      g_string_append_c (out, '\n');
    }
}

/* The frame lines of a stack, made for its first sample. */
static const GString *
stack_lines (Writer *w, const SysprofCallgraphSample *sample)
{
  GString *out = g_hash_table_lookup (w->stacks, GUINT_TO_POINTER (sample->stack));

  if (out != NULL)
    return out;
  out = g_string_new (NULL);
  for (guint i = 0; i < sample->n_frames;)
    {
      const SysprofCallgraphSampleFrame *frame = &sample->frames[i];
      guint                              n = 1;

      while (i + n < sample->n_frames && sample->frames[i + n - 1].inlined)
        n++;
      if (frame->function->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE)
        put_address (w, out, sample, frame, n);
      else if (frame->function->kind == SYSPROF_CALLGRAPH_FUNCTION_CONTEXT && i == 0)
        {
          /* No frame in perf's output, but where a sample ended once
           * --no-kernel dropped the kernel's frames: its time is the
           * context's own, as in top. */
          g_string_append_printf (out, "\t%16x ", 0);
          put_text (out, frame->function->symbol->name);
          g_string_append_printf (out, " (%s)\n", is_kernel (frame) ? "[kernel.kallsyms]" : "[unknown]");
        }
      i += n;
    }
  g_hash_table_insert (w->stacks, GUINT_TO_POINTER (sample->stack), out);
  return out;
}

static gboolean
write_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  Writer        *w = user_data;
  const GString *lines = stack_lines (w, sample);
  gint64         time = MAX (sample->time, 0);

  g_string_truncate (w->header, 0);
  put_text (w->header, comm_of (w, sample->pid));
  g_string_append_printf (w->header, " %5d/%-5d ", sample->pid, sample->tid);
  /* perf leaves out what it did not record; so does a stream's event. */
  if (sample->cpu >= 0)
    g_string_append_printf (w->header, "[%03d] ", sample->cpu);
  g_string_append_printf (
      w->header, "%" G_GINT64_FORMAT ".%06" G_GINT64_FORMAT ": %10" G_GUINT64_FORMAT " %s: \n", time / 1000000000,
      time % 1000000000 / 1000,
      sample->weight > G_MAXUINT64 / w->period_scale ? G_MAXUINT64 : sample->weight * w->period_scale, w->event);
  fwrite (w->header->str, 1, w->header->len, w->out);
  fwrite (lines->str, 1, lines->len, w->out);
  fputc ('\n', w->out);
  return !ferror (w->out);
}

static void
string_free (gpointer data)
{
  g_string_free (data, TRUE);
}

gboolean
report_perf_script_write (const Report *report, FILE *out, GError **error)
{
  g_autoptr (GHashTable) comms = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GHashTable) stacks = g_hash_table_new_full (NULL, NULL, NULL, string_free);
  g_autoptr (GString) header = g_string_new (NULL);
  Writer w = { out,
               sysprof_callgraph_get_symbolizer (report->callgraph),
               report->lines,
               "cpu-clock",
               REPORT_DEFAULT_PERIOD_NS,
               comms,
               stacks,
               header };

  /* Each sample's period is its weight in top, in perf's units: the
   * nanoseconds of cpu-clock and of perf's own offcpu-time. */
  switch (sysprof_callgraph_get_source (report->callgraph))
    {
    case SYSPROF_CALLGRAPH_SOURCE_OFF_CPU:
      w.event = "offcpu-time";
      w.period_scale = 1000;
      break;
    case SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK:
      w.event = "wall-clock";
      w.period_scale = 1000;
      break;
    case SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS:
      w.event = report->memory_bytes ? "allocated-bytes" : "allocations";
      w.period_scale = 1;
      break;
    case SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS:
      w.event = report->memory_bytes ? "leaked-bytes" : "leaked-allocations";
      w.period_scale = 1;
      break;
    case SYSPROF_CALLGRAPH_SOURCE_SAMPLES:
    default: break;
    }
  /* A stack's lines are made once (stack_lines): its frames are needed once. */
  sysprof_callgraph_foreach_sample_full (report->callgraph, SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE, write_sample, &w);
  if (fflush (out) != 0 || ferror (out))
    {
      int code = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (code), "Cannot write the samples: %s", g_strerror (code));
      return FALSE;
    }
  return TRUE;
}
