// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report top: the functions by the samples (or allocations) they
 * were running in, alone or anywhere on the stack. */

#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

/* GOption stores into them; one verb runs per process. */
static char    *arg_sort;
static gboolean arg_sort_by_total;

static const GOptionEntry top_options[] = {
  { "sort", 's', 0, G_OPTION_ARG_STRING, &arg_sort, "Sort by self (the default) or total", "KEY" },
  { NULL },
};

static gboolean
check (const Report *report, GError **error)
{
  (void) report;
  if (arg_sort != NULL && !g_str_equal (arg_sort, "self") && !g_str_equal (arg_sort, "total"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--sort: “%s” is neither self nor total", arg_sort);
      return FALSE;
    }
  arg_sort_by_total = arg_sort != NULL && g_str_equal (arg_sort, "total");
  return TRUE;
}

static gint
compare_by_self (gconstpointer a, gconstpointer b)
{
  const SysprofCallgraphFunction *fa = *(const SysprofCallgraphFunction *const *) a;
  const SysprofCallgraphFunction *fb = *(const SysprofCallgraphFunction *const *) b;

  if (fa->self != fb->self)
    return fa->self > fb->self ? -1 : 1;
  if (fa->total != fb->total)
    return fa->total > fb->total ? -1 : 1;
  return strcmp (fa->symbol->name, fb->symbol->name);
}

/* The FUNCTION cell, then with --lines the SOURCE cell (FILE:LINE). */
static void
add_name_cells (const Report *report, Table *table, const SysprofCallgraphFunction *function)
{
  table_add (table, function->symbol->name);
  if (report->lines)
    {
      /* The file's base name: the text table is for reading. */
      g_autofree char *base = function->file != NULL ? g_path_get_basename (function->file) : NULL;
      g_autofree char *shown = base != NULL ? g_strdup_printf ("%s:%u", base, function->line) : g_strdup ("");

      table_add (table, shown);
    }
}

static void
put_name_fields (const Report *report, const SysprofCallgraphFunction *function)
{
  report_put_tsv_field (stdout, function->symbol->name);
  if (report->lines)
    {
      g_autofree char *source = report_function_source (function);

      fputc ('\t', stdout);
      report_put_tsv_field (stdout, source);
    }
}

/* With --lines, a SOURCE column after FUNCTION. */
static const Column *
with_source (const Report *report, const Column *columns, guint *n_columns, Column *buffer)
{
  static const Column source = { "SOURCE", FALSE, 40 };

  if (!report->lines)
    return columns;
  buffer[0] = columns[0];
  buffer[1] = source;
  memcpy (buffer + 2, columns + 1, (*n_columns - 1) * sizeof *columns);
  (*n_columns)++;
  return buffer;
}

/* top --memory: allocations and bytes (bytes only when they are the
 * weight). */
static int
top_memory (const Report *report, GPtrArray *functions, guint n_rows)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 },   { "SELF", TRUE, 0 },  { "TOTAL", TRUE, 0 },
    { "SELF_BYTES", TRUE, 0 }, { "TOTAL_BYTES", TRUE, 0 }, { "SELF%", TRUE, 0 }, { "TOTAL%", TRUE, 0 },
  };
  gboolean counts = !report->memory_bytes;

  if (report->format == REPORT_FORMAT_TSV)
    {
      printf ("function\t%slibrary\t%sself_bytes\ttotal_bytes\tself_percent\ttotal_percent\n",
              report->lines ? "source\t" : "", counts ? "self_allocations\ttotal_allocations\t" : "");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphFunction *function = functions->pdata[i];

          put_name_fields (report, function);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, function->symbol->library);
          if (counts)
            printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT, function->self, function->total);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\n", function->self_bytes,
                  function->total_bytes, report_percent (report, function->self),
                  report_percent (report, function->total));
        }
      return REPORT_EXIT_OK;
    }

  {
    Table table;

    static const Column bytes_columns[] = {
      { "FUNCTION", FALSE, 60 },  { "LIBRARY", FALSE, 28 }, { "SELF_BYTES", TRUE, 0 },
      { "TOTAL_BYTES", TRUE, 0 }, { "SELF%", TRUE, 0 },     { "TOTAL%", TRUE, 0 },
    };

    Column        buffer[G_N_ELEMENTS (columns) + 1];
    guint         n_columns = counts ? G_N_ELEMENTS (columns) : G_N_ELEMENTS (bytes_columns);
    const Column *shown = with_source (report, counts ? columns : bytes_columns, &n_columns, buffer);

    table_init (&table, shown, n_columns);
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphFunction *function = functions->pdata[i];

        add_name_cells (report, &table, function);
        table_add (&table, function->symbol->library);
        if (counts)
          {
            table_add_count (&table, function->self);
            table_add_count (&table, function->total);
          }
        table_add_count (&table, function->self_bytes);
        table_add_count (&table, function->total_bytes);
        table_add_percent (&table, report_percent (report, function->self));
        table_add_percent (&table, report_percent (report, function->total));
      }
    report_print_summary_line (report);
    table_print (&table);
    if (n_rows < functions->len)
      printf ("(%u more functions; --limit 0 shows all)\n", functions->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

static int
run (const Report *report)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 }, { "SELF", TRUE, 0 },
    { "TOTAL", TRUE, 0 },      { "SELF%", TRUE, 0 },     { "TOTAL%", TRUE, 0 },
  };
  SysprofCallgraph *callgraph = report->callgraph;
  g_autoptr (GPtrArray) functions = g_ptr_array_new ();
  guint n_rows;

  for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);

      if (report_function_is_listed (function))
        g_ptr_array_add (functions, (gpointer) function);
    }
  g_ptr_array_sort (functions, arg_sort_by_total ? report_compare_by_total : compare_by_self);
  n_rows = report->limit > 0 ? MIN (report->limit, functions->len) : functions->len;

  if (report->memory)
    return top_memory (report, functions, n_rows);

  if (report->format == REPORT_FORMAT_TSV)
    {
      printf ("function\t%slibrary\t%s\tself_percent\ttotal_percent\n", report->lines ? "source\t" : "",
              report->time_weighted ? "self_usec\ttotal_usec" : "self_samples\ttotal_samples");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphFunction *function = functions->pdata[i];

          put_name_fields (report, function);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, function->symbol->library);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\n", function->self, function->total,
                  report_percent (report, function->self), report_percent (report, function->total));
        }
      return REPORT_EXIT_OK;
    }

  {
    static const Column time_columns[] = {
      { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 }, { "SELF_MS", TRUE, 0 },
      { "TOTAL_MS", TRUE, 0 },   { "SELF%", TRUE, 0 },     { "TOTAL%", TRUE, 0 },
    };
    Table         table;
    Column        buffer[G_N_ELEMENTS (columns) + 1];
    guint         n_columns = G_N_ELEMENTS (columns);
    const Column *shown = with_source (report, report->time_weighted ? time_columns : columns, &n_columns, buffer);

    table_init (&table, shown, n_columns);
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphFunction *function = functions->pdata[i];

        add_name_cells (report, &table, function);
        table_add (&table, function->symbol->library);
        if (report->time_weighted)
          {
            g_autofree char *self_ms = g_strdup_printf ("%.1f", (double) function->self / 1000.0);
            g_autofree char *total_ms = g_strdup_printf ("%.1f", (double) function->total / 1000.0);

            table_add (&table, self_ms);
            table_add (&table, total_ms);
          }
        else
          {
            table_add_count (&table, function->self);
            table_add_count (&table, function->total);
          }
        table_add_percent (&table, report_percent (report, function->self));
        table_add_percent (&table, report_percent (report, function->total));
      }
    report_print_summary_line (report);
    table_print (&table);
    if (n_rows < functions->len)
      printf ("(%u more functions; --limit 0 shows all)\n", functions->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_top = {
  .name = "top",
  .summary = "Functions by the samples they were running in (the default command).",
  .parameters = "CAPTURE",
  .description = "Columns: function, library, self_samples (samples in which the function was the\n"
                 "innermost frame), total_samples (samples in which it was anywhere on the stack,\n"
                 "once per sample even when it recurses), self_percent, total_percent (of the\n"
                 "samples that passed the filters).  Sorted by self_samples, or total_samples\n"
                 "with --sort total.  Process nodes (\"[name]\") and the root are not listed;\n"
                 "context nodes (\"- - kernel - -\") are, and their total is the time spent in\n"
                 "that context.  The text table shows 30 rows unless --limit says otherwise.\n\n"
                 "With --lines, each row is a source line of a function: a SOURCE column (tsv:\n"
                 "source, FILE:LINE with the file's full path, empty without debug info) follows\n"
                 "FUNCTION; self_samples are the samples running that line, total_samples those\n"
                 "with the line anywhere on the stack (in a caller: the line of the call).\n"
                 "Inlined functions are rows of their own, with or without --lines.",
  .entries = top_options,
  .text_limit = 30,
  .check = check,
  .run = run,
};
