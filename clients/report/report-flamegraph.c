// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report flamegraph: the callgraph's top-down tree as a standalone
 * SVG flame graph (report-flame.c draws it), coloured by the kind of code. */

#include "report-flame.h"
#include "report-util.h"
#include "report-verbs.h"

/* GOption stores into them; one verb runs per process. */
static char *arg_output;
static gint  arg_width = 1200;

static const GOptionEntry flamegraph_options[] = {
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &arg_output, "Write the SVG to FILE (- for standard output)", "FILE" },
  { "width", 'w', 0, G_OPTION_ARG_INT, &arg_width, "Width of the image in pixels (default 1200)", "PIXELS" },
  { NULL },
};

static gboolean
check (const Report *report, GError **error)
{
  (void) report;
  return report_flame_check_width (arg_width, error);
}

static void
kind_colour (const SysprofCallgraphNode *node, guint8 rgb[3], gpointer user_data)
{
  (void) user_data;
  report_flame_kind_colour (node->function, rgb);
}

/* " N samples, P%" */
static void
describe (const SysprofCallgraphNode *node, GString *out, gpointer user_data)
{
  const Report *report = user_data;

  g_string_append_printf (out, " %" G_GUINT64_FORMAT " %s, %.2f%%", node->total, report->unit,
                          report_percent (report, node->total));
}

static int
run (const Report *report)
{
  guint64          n_samples = sysprof_callgraph_get_n_samples (report->callgraph);
  guint64          n_read = sysprof_callgraph_get_n_samples_read (report->callgraph);
  g_autofree char *path = arg_output != NULL ? g_strdup (arg_output) : report_flame_default_path (report->capture_path);
  g_autofree char *capture_name = g_path_get_basename (report->capture_path);
  g_autofree char *title = g_strdup_printf ("Flame graph of %s", capture_name);
  g_autofree char *subtitle = NULL;
  g_autofree char *empty_text = g_strdup_printf ("No %s.", report->unit);
  g_autoptr (GString) svg = NULL;
  ReportFlameStyle style = {
    .title = title,
    .width = (guint) arg_width,
    .unit = report->unit,
    .colour = kind_colour,
    .describe = describe,
    .user_data = (gpointer) report,
    .legend = report_flame_kind_legend,
    .n_legend = G_N_ELEMENTS (report_flame_kind_legend),
    .empty_text = empty_text,
  };

  if (report->memory)
    subtitle = g_strdup_printf ("%" G_GUINT64_FORMAT " %s%s", n_samples, report->unit,
                                report->memory_leaked ? " of the allocations live at the end" : " allocated");
  else if (n_samples == n_read)
    subtitle = g_strdup_printf ("%" G_GUINT64_FORMAT " samples", n_samples);
  else
    subtitle = g_strdup_printf ("%" G_GUINT64_FORMAT " samples (of %" G_GUINT64_FORMAT " in the capture, filtered)",
                                n_samples, n_read);
  style.subtitle = subtitle;

  svg = report_flame_svg (report->callgraph, &style);
  return report_flame_write (svg, path);
}

const ReportVerb report_verb_flamegraph = {
  .name = "flamegraph",
  .summary = "Write a flame graph as a standalone SVG file.",
  .parameters = "CAPTURE",
  .description = "Frames are boxes as wide as their samples, the root at the bottom and callees\n"
                 "above their callers; hover a box for \"function (library) N samples, P%\".\n"
                 "Colours: warm for user code, orange for the kernel, grey for addresses\n"
                 "without a symbol, blue-grey for process and context nodes.  Boxes narrower\n"
                 "than a third of a pixel are left out.  The file needs no font and fetches\n"
                 "nothing; a web browser runs its script: click a box to zoom to it (its\n"
                 "callers stay below, greyed; Reset zoom or Escape to go back), Search or\n"
                 "Ctrl+F highlights the boxes whose name matches a regular expression and\n"
                 "shows the share of samples below them.  FILE.svg#search=REGEX opens it so,\n"
                 "#zoom=ID zoomed to the box of that id (f0 is the root); join both with &.\n"
                 "Its path is printed.  Default output: the capture's base name with .svg, in\n"
                 "the current directory; -o - writes to standard output.  With --memory=bytes\n"
                 "the boxes are as wide as the bytes allocated below them.",
  .entries = flamegraph_options,
  .check = check,
  .run = run,
};
