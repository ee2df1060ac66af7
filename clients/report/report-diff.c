// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report diff: two CPU profiles side by side, function by
 * function: each one's share of its capture's samples before and after,
 * and the change, biggest change first (SysprofCallgraphDiff).  Shares, not
 * counts: two recordings seldom last equally long.  --format svg draws
 * AFTER's flame graph instead, each frame coloured by the change of its
 * share (report-flame.c draws it). */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-flame.h"
#include "report-util.h"
#include "report-verbs.h"

static char    *arg_sort;
static char    *arg_before;
static char    *arg_after;
static gboolean arg_sort_by_total;
static char    *arg_output;
static gint     arg_width = 1200;
/* --before/--after, nanoseconds from each capture's start; unset: NAN. */
static double range[2][2] = { { NAN, NAN }, { NAN, NAN } };

static const GOptionEntry diff_options[] = {
  { "sort", 's', 0, G_OPTION_ARG_STRING, &arg_sort, "Order by the change of self (the default) or of total", "KEY" },
  { "before", 0, 0, G_OPTION_ARG_STRING, &arg_before, "Only this part of BEFORE, in seconds from its start",
    "BEGIN:END" },
  { "after", 0, 0, G_OPTION_ARG_STRING, &arg_after, "Only this part of AFTER, in seconds from its start", "BEGIN:END" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &arg_output,
    "With --format svg: write the SVG to FILE (- for standard output)", "FILE" },
  { "width", 'w', 0, G_OPTION_ARG_INT, &arg_width, "With --format svg: width of the image in pixels (default 1200)",
    "PIXELS" },
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
check (const Report *report, GError **error)
{
  if (arg_output != NULL && report->format != REPORT_FORMAT_SVG)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--output: only --format svg writes a file");
      return FALSE;
    }
  if (!report_flame_check_width (arg_width, error))
    return FALSE;
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
    filter->begin_ns = (gint64) llround (r[0] * 1e9);
  if (!isnan (r[1]))
    filter->end_ns = (gint64) llround (r[1] * 1e9);
}

/* ------------------------------------------------------------------------ */
/* The differential flame graph */

/* What the boxes' hooks need. */
typedef struct
{
  SysprofCallgraphDiff *diff;
  const char           *unit; /* "samples", or with --memory what it counts */
} DiffFlame;

static void
diff_colour (const SysprofCallgraphNode *node, guint8 rgb[3], gpointer user_data)
{
  SysprofCallgraphDiff *diff = ((DiffFlame *) user_data)->diff;

  sysprof_callgraph_diff_colour_for_change (sysprof_callgraph_diff_get_node_change (diff, node, NULL, NULL),
                                            sysprof_callgraph_diff_get_max_node_change (diff), rgb);
}

/* " N samples; before B%, after A%, change C points" */
static void
diff_describe (const SysprofCallgraphNode *node, GString *out, gpointer user_data)
{
  DiffFlame *flame = user_data;
  double     before, after;
  double     change = sysprof_callgraph_diff_get_node_change (flame->diff, node, &before, &after);

  g_string_append_printf (out, " %" G_GUINT64_FORMAT " %s; before %.2f%%%s, after %.2f%%, change %+.2f points",
                          node->total, flame->unit, before,
                          sysprof_callgraph_diff_get_before_node (flame->diff, node) == NULL ? " (no such frame)" : "",
                          after, change);
}

static int
write_svg (const Report *report, SysprofCallgraphDiff *diff)
{
  double            max_change = sysprof_callgraph_diff_get_max_node_change (diff);
  g_autofree char  *before_name = g_path_get_basename (report->before_path);
  g_autofree char  *after_name = g_path_get_basename (report->capture_path);
  g_autofree char  *title = g_strdup_printf ("Differential flame graph of %s against %s", after_name, before_name);
  g_autofree char  *subtitle = g_strdup_printf ("%" G_GUINT64_FORMAT " %s (before: %" G_GUINT64_FORMAT
                                                "); red: a larger share than before, blue: a "
                                                 "smaller one, the strongest %.2f points",
                                                sysprof_callgraph_get_n_samples (report->callgraph), report->unit,
                                                sysprof_callgraph_get_n_samples (report->before), max_change);
  g_autofree char  *empty_text = g_strdup_printf ("No %s after.", report->unit);
  DiffFlame         flame = { diff, report->unit };
  g_autofree char  *path = NULL;
  char              labels[5][32];
  ReportFlameLegend legend[5];
  g_autoptr (GString) svg = NULL;
  ReportFlameStyle style = {
    .title = title,
    .subtitle = subtitle,
    .width = (guint) arg_width,
    .unit = report->unit,
    .colour = diff_colour,
    .describe = diff_describe,
    .user_data = &flame,
    .legend = legend,
    .n_legend = G_N_ELEMENTS (legend),
    .empty_text = empty_text,
  };

  /* From the strongest fall to the strongest rise, in five steps. */
  for (guint i = 0; i < G_N_ELEMENTS (legend); i++)
    {
      double change = max_change * ((double) i - 2) / 2;

      if (i == 2)
        g_strlcpy (labels[i], "unchanged", sizeof labels[i]);
      else
        g_snprintf (labels[i], sizeof labels[i], i == 0 || i == 4 ? "%+.2f points" : "%+.2f", change);
      legend[i].label = labels[i];
      sysprof_callgraph_diff_colour_for_change (change, max_change, legend[i].rgb);
    }

  if (max_change <= 0)
    {
      style.legend = &legend[2];
      style.n_legend = 1;
    }
  if (arg_output != NULL)
    path = g_strdup (arg_output);
  else
    {
      g_autofree char *plain = report_flame_default_path (report->capture_path);

      path = g_strdup_printf ("%.*s-diff.svg", (int) (strlen (plain) - 4), plain);
    }
  svg = report_flame_svg (report->callgraph, &style);
  return report_flame_write (svg, path);
}

static int
run (const Report *report)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 },     { "BEFORE%", TRUE, 0 },      { "AFTER%", TRUE, 0 },
    { "CHANGE", TRUE, 0 },     { "BEFORE_TOTAL%", TRUE, 0 }, { "AFTER_TOTAL%", TRUE, 0 }, { "TOTAL_CHANGE", TRUE, 0 },
  };
  g_autoptr (SysprofCallgraphDiff) diff = sysprof_callgraph_diff_new (
      report->before, report->callgraph,
      arg_sort_by_total ? SYSPROF_CALLGRAPH_DIFF_SORT_TOTAL : SYSPROF_CALLGRAPH_DIFF_SORT_SELF);
  guint64 n_samples[2] = { sysprof_callgraph_get_n_samples (report->before),
                           sysprof_callgraph_get_n_samples (report->callgraph) };
  guint   n_all = sysprof_callgraph_diff_get_n_rows (diff);
  guint   n_rows = report->limit > 0 ? MIN (report->limit, n_all) : n_all;

  if (report->format == REPORT_FORMAT_SVG)
    return write_svg (report, diff);
  if (report->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\tbefore_self_samples\tafter_self_samples\tbefore_self_percent\tafter_self_percent\t"
              "self_change\tbefore_total_samples\tafter_total_samples\tbefore_total_percent\tafter_total_percent\t"
              "total_change\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphDiffRow  *row = sysprof_callgraph_diff_get_row (diff, i);
          const SysprofCallgraphFunction *function = sysprof_callgraph_diff_row_get_function (row);
          g_autofree char                *label = report_function_label (function);

          report_put_tsv_field (stdout, label);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, function->symbol->library);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\t%+.2f\t%" G_GUINT64_FORMAT
                  "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\t%+.2f\n",
                  row->self[0], row->self[1], row->self_percent[0], row->self_percent[1], row->self_change,
                  row->total[0], row->total[1], row->total_percent[0], row->total_percent[1], row->total_change);
        }
      return REPORT_EXIT_OK;
    }

  {
    Table table;

    table_init (&table, columns, G_N_ELEMENTS (columns));
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphDiffRow  *row = sysprof_callgraph_diff_get_row (diff, i);
        const SysprofCallgraphFunction *function = sysprof_callgraph_diff_row_get_function (row);
        g_autofree char                *label = report_function_label (function);
        g_autofree char                *change = g_strdup_printf ("%+.2f", row->self_change);
        g_autofree char                *total_change = g_strdup_printf ("%+.2f", row->total_change);

        table_add (&table, label);
        table_add (&table, function->symbol->library);
        table_add_percent (&table, row->self_percent[0]);
        table_add_percent (&table, row->self_percent[1]);
        table_add (&table, change);
        table_add_percent (&table, row->total_percent[0]);
        table_add_percent (&table, row->total_percent[1]);
        table_add (&table, total_change);
      }
    printf ("%s: %" G_GUINT64_FORMAT " %s; %s: %" G_GUINT64_FORMAT " %s; changes in points of percent\n",
            report->before_path, n_samples[0], report->unit, report->capture_path, n_samples[1], report->unit);
    table_print (&table);
    if (n_rows < n_all)
      printf ("(%u more functions; --limit 0 shows all)\n", n_all - n_rows);
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
                 "shows 30 rows unless --limit says otherwise.\n\n"
                 "--format svg writes a differential flame graph instead (a standalone SVG, like\n"
                 "the flamegraph command's): AFTER's flame graph, boxes as wide as AFTER's\n"
                 "samples, each frame (a path from the root) coloured by the change of its\n"
                 "total share from the same path in BEFORE: red grew, blue shrank, grey stayed,\n"
                 "the strongest colour at the largest change (Brendan Gregg's convention).\n"
                 "Hover a box for \"function (library) N samples; before B%, after A%, change\n"
                 "C points\".  Frames only BEFORE has are not drawn (they have no width in\n"
                 "AFTER); their loss is part of their caller's change.  -o FILE (- for\n"
                 "standard output; default AFTER's base name with -diff.svg), --width PIXELS:\n"
                 "  sysprof-report diff --format svg -o diff.svg before.syscap after.syscap",
  .entries = diff_options,
  .text_limit = 30,
  .check = check,
  .run = run,
  .two_captures = TRUE,
  .adjust_filter = adjust_filter,
  .svg_format = TRUE,
};
