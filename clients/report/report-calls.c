// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report callers and callees: the functions that call FUNCTION
 * directly, or that it calls.  One file for both: they differ only in the
 * list of edges they print. */

#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

/* GOption stores into it; one verb runs per process. */
static char *arg_library;

static const GOptionEntry calls_options[] = {
  { "library", 'l', 0, G_OPTION_ARG_STRING, &arg_library,
    "The FUNCTION of this library, when several functions have its name", "LIBRARY" },
  { NULL },
};

static guint
edit_distance (const char *a, const char *b)
{
  gsize             la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diagonal = row[0];

      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint above = row[j];

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + (a[i - 1] == b[j - 1] ? 0 : 1));
          diagonal = above;
        }
    }
  return row[lb];
}

/* Names that contain @name (ignoring case) or are a couple of edits away. */
static void
print_suggestions (SysprofCallgraph *callgraph, const char *name)
{
  g_autoptr (GPtrArray) close = g_ptr_array_new ();
  g_autofree char *folded = g_utf8_casefold (name, -1);
  gsize            length = strlen (name);

  for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);
      g_autofree char                *candidate = g_utf8_casefold (function->symbol->name, -1);
      gsize                           candidate_length = strlen (candidate);
      gboolean                        near = FALSE;

      if (strstr (candidate, folded) != NULL)
        near = TRUE;
      else if (length < 64 && candidate_length < 64 &&
               (candidate_length > length ? candidate_length - length : length - candidate_length) <= 2)
        near = edit_distance (candidate, folded) <= MAX (1, length / 5);
      if (near)
        g_ptr_array_add (close, (gpointer) function);
    }
  if (close->len == 0)
    return;
  g_ptr_array_sort (close, report_compare_by_total);
  g_printerr ("Did you mean:\n");
  for (guint i = 0; i < MIN (close->len, 8u); i++)
    {
      const SysprofCallgraphFunction *function = close->pdata[i];

      g_printerr ("  %s%s%s%s\n", function->symbol->name, function->symbol->library[0] ? " (" : "",
                  function->symbol->library, function->symbol->library[0] ? ")" : "");
    }
}

static int
print_edges (const Report *report, gboolean callers)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 },
    { "LIBRARY", FALSE, 28 },
    { "SAMPLES", TRUE, 0 },
    { "PERCENT", TRUE, 0 },
  };
  static const Column memory_columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 }, { "ALLOCATIONS", TRUE, 0 },
    { "BYTES", TRUE, 0 },      { "PERCENT", TRUE, 0 },
  };
  static const Column bytes_columns[] = {
    { "FUNCTION", FALSE, 60 },
    { "LIBRARY", FALSE, 28 },
    { "BYTES", TRUE, 0 },
    { "PERCENT", TRUE, 0 },
  };
  SysprofCallgraph               *callgraph = report->callgraph;
  const char                     *function_name = report->args[0]; /* FUNCTION */
  const SysprofCallgraphFunction *function;
  g_autoptr (GArray) edges = NULL;
  g_autoptr (GString) others = g_string_new (NULL);
  guint n_rows;

  function = sysprof_callgraph_find_function (callgraph, function_name, arg_library);
  if (function == NULL)
    {
      if (arg_library != NULL)
        g_printerr ("%s: no function “%s” in library “%s” among the %" G_GUINT64_FORMAT " %s\n", g_get_prgname (),
                    function_name, arg_library, sysprof_callgraph_get_n_samples (callgraph), report->unit);
      else
        g_printerr ("%s: no function “%s” among the %" G_GUINT64_FORMAT " %s\n", g_get_prgname (), function_name,
                    sysprof_callgraph_get_n_samples (callgraph), report->unit);
      print_suggestions (callgraph, function_name);
      return REPORT_EXIT_ERROR;
    }

  if (arg_library == NULL)
    {
      for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
        {
          const SysprofCallgraphFunction *other = sysprof_callgraph_get_function (callgraph, i);

          if (other != function && g_str_equal (other->symbol->name, function->symbol->name))
            g_string_append_printf (others, "%s“%s”", others->len ? ", " : "", other->symbol->library);
        }
      if (others->len > 0)
        g_printerr ("%s: note: showing “%s” of “%s”; other libraries with that name: %s (see --library)\n",
                    g_get_prgname (), function->symbol->name, function->symbol->library, others->str);
    }

  edges = callers ? sysprof_callgraph_list_callers (callgraph, function)
                  : sysprof_callgraph_list_callees (callgraph, function);
  n_rows = report->limit > 0 ? MIN (report->limit, edges->len) : edges->len;

  if (report->format == REPORT_FORMAT_TSV)
    {
      if (report->memory)
        printf ("function\tlibrary\t%sbytes\tpercent\n", report->memory_bytes ? "" : "allocations\t");
      else
        printf ("function\tlibrary\tsamples\tpercent\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphEdge *edge = &g_array_index (edges, SysprofCallgraphEdge, i);

          g_autofree char *label = report_function_label (edge->function);

          report_put_tsv_field (stdout, label);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, edge->function->symbol->library);
          if (report->memory && !report->memory_bytes)
            printf ("\t%" G_GUINT64_FORMAT, edge->samples);
          printf ("\t%" G_GUINT64_FORMAT "\t%.2f\n", report->memory ? edge->bytes : edge->samples,
                  report_percent (report, edge->samples));
        }
      return REPORT_EXIT_OK;
    }

  {
    g_autofree char *label = report_function_label (function);
    g_autofree char *name = g_utf8_make_valid (label, -1);
    Table            table;

    report_print_summary_line (report);
    printf ("%s %s%s%s%s: total %" G_GUINT64_FORMAT " %s (%.2f%%), self %" G_GUINT64_FORMAT " %s (%.2f%%)\n\n",
            callers ? "Callers of" : "Called by", name, function->symbol->library[0] ? " (" : "",
            function->symbol->library, function->symbol->library[0] ? ")" : "", function->total, report->unit,
            report_percent (report, function->total), function->self, report->unit,
            report_percent (report, function->self));
    if (edges->len == 0)
      {
        printf (callers ? "(no callers)\n" : "(no callees: the function calls nothing that was sampled)\n");
        return REPORT_EXIT_OK;
      }
    table_init (&table, report->memory ? (report->memory_bytes ? bytes_columns : memory_columns) : columns,
                report->memory && !report->memory_bytes ? G_N_ELEMENTS (memory_columns) : G_N_ELEMENTS (columns));
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphEdge *edge = &g_array_index (edges, SysprofCallgraphEdge, i);

        g_autofree char *edge_label = report_function_label (edge->function);

        table_add (&table, edge_label);
        table_add (&table, edge->function->symbol->library);
        table_add_count (&table, edge->samples);
        if (report->memory && !report->memory_bytes)
          table_add_count (&table, edge->bytes);
        table_add_percent (&table, report_percent (report, edge->samples));
      }
    table_print (&table);
    if (n_rows < edges->len)
      printf ("(%u more; --limit 0 shows all)\n", edges->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

static int
run_callers (const Report *report)
{
  return print_edges (report, TRUE);
}

static int
run_callees (const Report *report)
{
  return print_edges (report, FALSE);
}

const ReportVerb report_verb_callers = {
  .name = "callers",
  .summary = "Functions that call FUNCTION directly.",
  .parameters = "FUNCTION CAPTURE",
  .description = "Columns: function, library, samples (samples in which that function called\n"
                 "FUNCTION, each sample once even through recursion), percent (of the samples\n"
                 "that passed the filters).  The caller of an outermost frame is its process\n"
                 "node (\"[name]\"); the caller of the first kernel frame is the context node;\n"
                 "with --focus, the caller of a focused function where its stacks were cut is\n"
                 "the root \"[Everything]\".  FUNCTION is a name exactly as `top` prints it\n"
                 "(with --focus and --hide applied: a hidden function is not there);\n"
                 "--library picks one of several functions of that name.",
  .entries = calls_options,
  .run = run_callers,
};

const ReportVerb report_verb_callees = {
  .name = "callees",
  .summary = "Functions that FUNCTION calls directly.",
  .parameters = "FUNCTION CAPTURE",
  .description = "Columns: function, library, samples (samples in which FUNCTION called that\n"
                 "function, each sample once), percent.  FUNCTION as for `callers`.",
  .entries = calls_options,
  .run = run_callees,
};
