// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report tree: the top-down call tree, pruned below a threshold. */

#include <math.h>

#include "report-util.h"
#include "report-verbs.h"

/* GOption stores into it; one verb runs per process. */
static double arg_threshold = 1.0;

static const GOptionEntry tree_options[] = {
  { "threshold", 'T', 0, G_OPTION_ARG_DOUBLE, &arg_threshold,
    "Leave out nodes below PERCENT of the samples (default 1.0)", "PERCENT" },
  { NULL },
};

static gboolean
check (const Report *report, GError **error)
{
  (void) report;
  if (!isfinite (arg_threshold) || arg_threshold < 0 || arg_threshold > 100)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--threshold: %g is not a percentage",
                   arg_threshold);
      return FALSE;
    }
  return TRUE;
}

static gboolean
visible (const Report *report, const SysprofCallgraphNode *node)
{
  return node->depth == 0 || report_percent (report, node->total) >= arg_threshold;
}

/* The next node of a depth-first walk that skips invisible subtrees.
 * Children are sorted by total, so the visible ones come first. */
static const SysprofCallgraphNode *
next_visible (const Report *report, const SysprofCallgraphNode *node)
{
  if (node->first_child != NULL && visible (report, node->first_child))
    return node->first_child;
  for (; node != NULL; node = node->parent)
    if (node->next_sibling != NULL && visible (report, node->next_sibling))
      return node->next_sibling;
  return NULL;
}

static int
run (const Report *report)
{
  const SysprofCallgraphNode *node = sysprof_callgraph_get_root (report->callgraph);
  guint                       rows = 0;

  if (report->format == REPORT_FORMAT_TSV && report->memory)
    printf ("depth\tfunction\tlibrary\t%stotal_bytes\tself_bytes\ttotal_percent\n",
            report->memory_bytes ? "" : "total_allocations\tself_allocations\t");
  else if (report->format == REPORT_FORMAT_TSV)
    printf ("depth\tfunction\tlibrary\ttotal_samples\tself_samples\ttotal_percent\n");
  else
    {
      report_print_summary_line (report);
      if (report->memory)
        printf ("  TOTAL%%    SELF%%   TOTAL_BYTES  FUNCTION (nodes under %.2f%% of the %s left out)\n", arg_threshold,
                report->unit);
      else
        printf ("  TOTAL%%    SELF%%  FUNCTION (nodes under %.2f%% of the samples left out)\n", arg_threshold);
    }

  for (; node != NULL && (report->limit == 0 || rows < report->limit); node = next_visible (report, node), rows++)
    {
      const SysprofSymbol *symbol = node->function->symbol;

      if (report->format == REPORT_FORMAT_TSV)
        {
          printf ("%u\t", node->depth);
          g_autofree char *label = report_function_label (node->function);

          report_put_tsv_field (stdout, label);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, symbol->library);
          if (report->memory && !report->memory_bytes)
            printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT, node->total, node->self);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\n",
                  report->memory ? node->total_bytes : node->total, report->memory ? node->self_bytes : node->self,
                  report_percent (report, node->total));
        }
      else
        {
          g_autofree char *label = report_function_label (node->function);
          g_autofree char *name = g_utf8_make_valid (label, -1);

          if (report->memory)
            printf ("%7.2f%%  %6.2f%%  %12" G_GUINT64_FORMAT "  %*s%s", report_percent (report, node->total),
                    report_percent (report, node->self), node->total_bytes, (int) MIN (node->depth * 2, 400u), "",
                    name);
          else
            printf ("%7.2f%%  %6.2f%%  %*s%s", report_percent (report, node->total),
                    report_percent (report, node->self), (int) MIN (node->depth * 2, 400u), "", name);
          if (symbol->library[0] != '\0')
            printf (" (%s)", symbol->library);
          fputc ('\n', stdout);
        }
    }
  if (node != NULL && report->format == REPORT_FORMAT_TEXT)
    printf ("(stopped at %u rows; --limit 0 shows all)\n", rows);
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_tree = {
  .name = "tree",
  .summary = "The top-down call tree.",
  .parameters = "CAPTURE",
  .description = "The root \"[Everything]\", then one node per process name (\"[name]\", or\n"
                 "\"[Process PID]\" without a name), then the frames from the outermost in; a\n"
                 "\"- - kernel - -\" node marks where a stack enters the kernel.  With --focus,\n"
                 "the root's children are the focused functions instead of the processes.\n"
                 "Children are sorted by total, and nodes below --threshold percent of the\n"
                 "samples are left out with their subtrees.  Text: total and self percentages,\n"
                 "then the function indented two spaces per level.  TSV columns: depth,\n"
                 "function, library, total_samples, self_samples, total_percent.",
  .entries = tree_options,
  .check = check,
  .run = run,
};
