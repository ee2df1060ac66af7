// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report diff: two CPU profiles side by side, function by
 * function: each one's share of its capture's samples before and after,
 * and the change, biggest change first.  Shares, not counts: two
 * recordings seldom last equally long. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

static char    *arg_sort;
static char    *arg_before;
static char    *arg_after;
static gboolean arg_sort_by_total;
/* --before/--after, nanoseconds from each capture's start; unset: NAN. */
static double range[2][2] = { { NAN, NAN }, { NAN, NAN } };

static const GOptionEntry diff_options[] = {
  { "sort", 's', 0, G_OPTION_ARG_STRING, &arg_sort, "Order by the change of self (the default) or of total", "KEY" },
  { "before", 0, 0, G_OPTION_ARG_STRING, &arg_before, "Only this part of BEFORE, in seconds from its start",
    "BEGIN:END" },
  { "after", 0, 0, G_OPTION_ARG_STRING, &arg_after, "Only this part of AFTER, in seconds from its start", "BEGIN:END" },
  { NULL },
};

/* "B:E", either side may be empty (from the start, to the end). */
static gboolean
parse_range (const char *option, const char *text, double *out, GError **error)
{
  const char *colon = text != NULL ? strchr (text, ':') : NULL;
  char       *end = NULL;

  if (text == NULL)
    return TRUE;
  if (colon == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: “%s” is not BEGIN:END", option, text);
      return FALSE;
    }
  if (colon != text)
    {
      out[0] = g_ascii_strtod (text, &end);
      if (end != colon || !isfinite (out[0]) || out[0] < 0)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: “%s” is not BEGIN:END in seconds", option,
                       text);
          return FALSE;
        }
    }
  if (colon[1] != '\0')
    {
      out[1] = g_ascii_strtod (colon + 1, &end);
      if (*end != '\0' || !isfinite (out[1]) || out[1] < 0)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: “%s” is not BEGIN:END in seconds", option,
                       text);
          return FALSE;
        }
    }
  if (!isnan (out[0]) && !isnan (out[1]) && out[0] > out[1])
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s ends before it begins", option, text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check (GError **error)
{
  if (arg_sort != NULL && !g_str_equal (arg_sort, "self") && !g_str_equal (arg_sort, "total"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--sort: “%s” is neither self nor total", arg_sort);
      return FALSE;
    }
  arg_sort_by_total = arg_sort != NULL && g_str_equal (arg_sort, "total");
  return parse_range ("--before", arg_before, range[0], error) && parse_range ("--after", arg_after, range[1], error);
}

static void
adjust_filter (gboolean before, SysprofCallgraphFilter *filter)
{
  const double *r = range[before ? 0 : 1];

  if (!isnan (r[0]))
    filter->begin_ns = (gint64) (r[0] * 1e9);
  if (!isnan (r[1]))
    filter->end_ns = (gint64) (r[1] * 1e9);
}

/* One function of either profile. */
typedef struct
{
  const SysprofCallgraphFunction *function; /* for its name and library */
  guint64                         self[2];
  guint64                         total[2];
  double                          self_change;
  double                          total_change;
} Row;

static char *
row_key (const SysprofCallgraphFunction *function)
{
  return g_strdup_printf ("%s\x1f%s\x1f%s\x1f%u", function->symbol->name, function->symbol->library,
                          function->file != NULL ? function->file : "", function->line);
}

static double
share (guint64 count, guint64 of)
{
  return of > 0 ? 100.0 * (double) count / (double) of : 0.0;
}

static int
compare_rows (gconstpointer a, gconstpointer b)
{
  const Row *ra = *(const Row *const *) a;
  const Row *rb = *(const Row *const *) b;
  double     ca = fabs (arg_sort_by_total ? ra->total_change : ra->self_change);
  double     cb = fabs (arg_sort_by_total ? rb->total_change : rb->self_change);

  if (ca != cb)
    return ca > cb ? -1 : 1;
  return strcmp (ra->function->symbol->name, rb->function->symbol->name);
}

static int
run (const Report *report)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 },     { "BEFORE%", TRUE, 0 },      { "AFTER%", TRUE, 0 },
    { "CHANGE", TRUE, 0 },     { "BEFORE_TOTAL%", TRUE, 0 }, { "AFTER_TOTAL%", TRUE, 0 }, { "TOTAL_CHANGE", TRUE, 0 },
  };
  SysprofCallgraph *graphs[2] = { report->before, report->callgraph };
  guint64           n_samples[2];
  g_autoptr (GHashTable) rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer       value;
  guint          n_rows;

  for (guint side = 0; side < 2; side++)
    {
      n_samples[side] = sysprof_callgraph_get_n_samples (graphs[side]);
      for (guint i = 0; i < sysprof_callgraph_get_n_functions (graphs[side]); i++)
        {
          const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (graphs[side], i);
          g_autofree char                *key = NULL;
          Row                            *row;

          if (!report_function_is_listed (function))
            continue;
          key = row_key (function);
          if ((row = g_hash_table_lookup (rows, key)) == NULL)
            {
              row = g_new0 (Row, 1);
              row->function = function;
              g_hash_table_insert (rows, g_steal_pointer (&key), row);
            }
          row->self[side] += function->self;
          row->total[side] += function->total;
        }
    }
  g_hash_table_iter_init (&iter, rows);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Row *row = value;

      row->self_change = share (row->self[1], n_samples[1]) - share (row->self[0], n_samples[0]);
      row->total_change = share (row->total[1], n_samples[1]) - share (row->total[0], n_samples[0]);
      g_ptr_array_add (sorted, row);
    }
  g_ptr_array_sort (sorted, compare_rows);
  n_rows = report->limit > 0 ? MIN (report->limit, sorted->len) : sorted->len;

  if (report->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\tbefore_self_samples\tafter_self_samples\tbefore_self_percent\tafter_self_percent\t"
              "self_change\tbefore_total_samples\tafter_total_samples\tbefore_total_percent\tafter_total_percent\t"
              "total_change\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const Row       *row = sorted->pdata[i];
          g_autofree char *label = report_function_label (row->function);

          report_put_tsv_field (stdout, label);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, row->function->symbol->library);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\t%+.2f\t%" G_GUINT64_FORMAT
                  "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\t%+.2f\n",
                  row->self[0], row->self[1], share (row->self[0], n_samples[0]), share (row->self[1], n_samples[1]),
                  row->self_change, row->total[0], row->total[1], share (row->total[0], n_samples[0]),
                  share (row->total[1], n_samples[1]), row->total_change);
        }
      return REPORT_EXIT_OK;
    }

  {
    Table table;

    table_init (&table, columns, G_N_ELEMENTS (columns));
    for (guint i = 0; i < n_rows; i++)
      {
        const Row       *row = sorted->pdata[i];
        g_autofree char *label = report_function_label (row->function);
        g_autofree char *change = g_strdup_printf ("%+.2f", row->self_change);
        g_autofree char *total_change = g_strdup_printf ("%+.2f", row->total_change);

        table_add (&table, label);
        table_add (&table, row->function->symbol->library);
        table_add_percent (&table, share (row->self[0], n_samples[0]));
        table_add_percent (&table, share (row->self[1], n_samples[1]));
        table_add (&table, change);
        table_add_percent (&table, share (row->total[0], n_samples[0]));
        table_add_percent (&table, share (row->total[1], n_samples[1]));
        table_add (&table, total_change);
      }
    printf ("%s: %" G_GUINT64_FORMAT " %s; %s: %" G_GUINT64_FORMAT " %s; changes in points of percent\n",
            report->before_path, n_samples[0], report->unit, report->capture_path, n_samples[1], report->unit);
    table_print (&table);
    if (n_rows < sorted->len)
      printf ("(%u more functions; --limit 0 shows all)\n", sorted->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_diff = {
  .name = "diff",
  .summary = "Two CPU profiles function by function: shares before and after, biggest change first.",
  .parameters = "BEFORE AFTER",
  .description = "Columns: function, library, and for each of BEFORE and AFTER the function's self\n"
                 "and total samples and their shares of that capture's samples (after the\n"
                 "filters), then self_change and total_change, AFTER's share minus BEFORE's, in\n"
                 "points of percent: shares, since two recordings seldom last equally long.  A\n"
                 "function in one capture only has 0 in the other.  Sorted by the size of\n"
                 "self_change (total_change with --sort total).  The filters apply to both\n"
                 "captures; --before and --after narrow each to a part of it (BEGIN:END in\n"
                 "seconds from its start, either may be left out), so two parts of one capture\n"
                 "compare too: diff --before 0:5 --after 5: x.syscap x.syscap.  The text table\n"
                 "shows 30 rows unless --limit says otherwise.",
  .entries = diff_options,
  .text_limit = 30,
  .check = check,
  .run = run,
  .two_captures = TRUE,
  .adjust_filter = adjust_filter,
};
