// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report collapsed: one line per distinct stack, the folded format
 * that flamegraph.pl and its kin read. */

#include "report-util.h"
#include "report-verbs.h"

static void
put_folded_name (const char *name)
{
  for (const char *p = name; *p; p++)
    fputc (*p == ';' ? ':' : *p == '\n' || *p == '\r' ? ' ' : *p, stdout);
}

static gboolean
print_stack (const SysprofCallgraphFunction *const *frames, guint n_frames, guint64 n_samples, gpointer user_data)
{
  (void) user_data;

  for (guint i = 0; i < n_frames; i++)
    {
      if (i > 0)
        fputc (';', stdout);
      g_autofree char *label = report_function_label (frames[i]);

      put_folded_name (label);
    }
  printf (" %" G_GUINT64_FORMAT "\n", n_samples);
  return !ferror (stdout);
}

static int
run (const Report *report)
{
  sysprof_callgraph_foreach_stack (report->callgraph, print_stack, NULL);
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_collapsed = {
  .name = "collapsed",
  .summary = "Print folded stacks (flamegraph.pl's input).",
  .parameters = "CAPTURE",
  .description = "One line per distinct stack: the frames from the outermost in, process node\n"
                 "first (the focused function with --focus), separated by ';', then a space and\n"
                 "the number of samples.  The counts add up to the samples that passed the\n"
                 "filters.  ';' inside a name is printed as ':'.  With --memory the count is\n"
                 "allocations (bytes with --memory=bytes).",
  .run = run,
};
