// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report flamegraph: the callgraph's top-down tree as a standalone
 * SVG flame graph (no script, no external font: any viewer shows it, and the
 * <title> of each box is its tooltip). */

#include <math.h>
#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

#define FRAME_HEIGHT 16
#define FONT_SIZE    11
/* Monospace advance at FONT_SIZE (0.6 em, rounded up) to fit labels. */
#define LABEL_CHAR_WIDTH 7.0
#define SIDE_MARGIN      10
#define TOP_MARGIN       56
#define BOTTOM_MARGIN    36
#define MIN_BOX_WIDTH    0.3 /* pixels; narrower boxes and their subtrees are left out */
#define MIN_LABEL_CHARS  5   /* three characters of the name and ".." */

/* GOption stores into them; one verb runs per process. */
static char *arg_output;
static gint  arg_width = 1200;

static const GOptionEntry flamegraph_options[] = {
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &arg_output, "Write the SVG to FILE (- for standard output)", "FILE" },
  { "width", 'w', 0, G_OPTION_ARG_INT, &arg_width, "Width of the image in pixels (default 1200)", "PIXELS" },
  { NULL },
};

static gboolean
check (GError **error)
{
  if (arg_width < 100 || arg_width > 100000)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--width: %d pixels is not between 100 and 100000",
                   arg_width);
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  const Report *report;
  GString      *svg;
  double        scale; /* pixels per sample */
  guint         max_depth;
  guint64      *next_x; /* per depth: samples left of the next box */
} Flame;

/* Appends @text escaped for XML character data and attributes, as valid
 * UTF-8 without the control characters XML 1.0 forbids. */
static void
append_escaped (GString *out, const char *text, gssize max_chars)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  gssize           n = 0;

  for (const char *p = valid; *p && (max_chars < 0 || n < max_chars); p = g_utf8_next_char (p), n++)
    {
      switch (*p)
        {
        case '&': g_string_append (out, "&amp;"); break;
        case '<': g_string_append (out, "&lt;"); break;
        case '>': g_string_append (out, "&gt;"); break;
        case '"': g_string_append (out, "&quot;"); break;
        case '\'': g_string_append (out, "&apos;"); break;
        default:
          if ((guchar) *p < 0x20)
            g_string_append_c (out, ' ');
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
          break;
        }
    }
}

static gboolean
box_visible (const Flame *flame, const SysprofCallgraphNode *node)
{
  return node->depth == 0 || (double) node->total * flame->scale >= MIN_BOX_WIDTH;
}

/* Depth-first, skipping boxes too narrow to draw (children are sorted by
 * total, so the visible ones come first). */
static const SysprofCallgraphNode *
next_box (const Flame *flame, const SysprofCallgraphNode *node)
{
  if (node->first_child != NULL && box_visible (flame, node->first_child))
    return node->first_child;
  for (; node != NULL; node = node->parent)
    if (node->next_sibling != NULL && box_visible (flame, node->next_sibling))
      return node->next_sibling;
  return NULL;
}

static guint32
name_hash (const char *name)
{
  guint32 h = 2166136261u;

  for (const char *p = name; *p; p++)
    h = (h ^ (guchar) *p) * 16777619u;
  return h;
}

/* Warm reds for user code, orange for the kernel, grey for addresses without
 * a symbol, blue-grey for the root, processes and contexts; the shade varies
 * with the name so that neighbours stand apart. */
static void
box_colour (const SysprofCallgraphFunction *function, guint *r, guint *g, guint *b)
{
  guint32 h = name_hash (function->symbol->name);
  double  v1 = (double) (h & 0xff) / 255.0;
  double  v2 = (double) ((h >> 8) & 0xff) / 255.0;

  if (function->kind != SYSPROF_CALLGRAPH_FUNCTION_CODE)
    *r = 150 + (guint) (20 * v1), *g = 170 + (guint) (20 * v1), *b = 205 + (guint) (20 * v1);
  else if (function->symbol->kind == SYSPROF_SYMBOL_KERNEL)
    *r = 235 + (guint) (20 * v1), *g = 145 + (guint) (50 * v2), *b = 30 + (guint) (30 * v1);
  else if (function->symbol->kind == SYSPROF_SYMBOL_UNRESOLVED)
    *r = *g = *b = 175 + (guint) (35 * v1);
  else
    *r = 200 + (guint) (50 * v1), *g = 50 + (guint) (60 * v2), *b = 40 + (guint) (30 * v1);
}

static void
append_box (Flame *flame, const SysprofCallgraphNode *node)
{
  const SysprofSymbol *symbol = node->function->symbol;
  g_autofree char     *label = report_function_label (node->function);
  guint64              x_samples = flame->next_x[node->depth];
  double               x = SIDE_MARGIN + (double) x_samples * flame->scale;
  double               width = (double) node->total * flame->scale;
  double               y = TOP_MARGIN + (double) (flame->max_depth - node->depth) * FRAME_HEIGHT;
  gssize               chars = (gssize) floor ((width - 6) / LABEL_CHAR_WIDTH);
  glong                name_chars;
  guint                r, g, b;

  flame->next_x[node->depth] += node->total;
  flame->next_x[node->depth + 1] = x_samples;

  box_colour (node->function, &r, &g, &b);
  g_string_append (flame->svg, "<g><title>");
  append_escaped (flame->svg, label, -1);
  if (symbol->library[0] != '\0')
    {
      g_string_append (flame->svg, " (");
      append_escaped (flame->svg, symbol->library, -1);
      g_string_append_c (flame->svg, ')');
    }
  g_string_append_printf (flame->svg,
                          " %" G_GUINT64_FORMAT " %s, %.2f%%</title>"
                          "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
                          "fill=\"rgb(%u,%u,%u)\"/>",
                          node->total, flame->report->unit, report_percent (flame->report, node->total), x, y, width,
                          FRAME_HEIGHT - 1, r, g, b);

  if (chars >= MIN_LABEL_CHARS)
    {
      name_chars = g_utf8_strlen (label, -1);
      g_string_append_printf (flame->svg, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_HEIGHT - 4.5);
      if (name_chars <= chars)
        append_escaped (flame->svg, label, -1);
      else
        {
          append_escaped (flame->svg, label, chars - 2);
          g_string_append (flame->svg, "..");
        }
      g_string_append (flame->svg, "</text>");
    }
  g_string_append (flame->svg, "</g>\n");
}

static void
append_legend (GString *svg, double y)
{
  static const struct
  {
    const char *label;
    const char *fill;
  } entries[] = {
    { "user code", "rgb(225,80,55)" },
    { "kernel", "rgb(245,170,45)" },
    { "no symbol", "rgb(190,190,190)" },
    { "process, context", "rgb(160,180,215)" },
  };
  double x = SIDE_MARGIN;

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_string_append_printf (svg, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>", x,
                              y, entries[i].fill);
      g_string_append_printf (svg, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 16, y + 10, entries[i].label);
      x += 16 + LABEL_CHAR_WIDTH * (double) strlen (entries[i].label) + 20;
    }
}

static char *
default_output_path (const char *capture_path)
{
  g_autofree char *base = g_path_get_basename (capture_path);
  char            *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  return g_strconcat (base, ".svg", NULL);
}

static int
run (const Report *report)
{
  const SysprofCallgraphNode *root = sysprof_callgraph_get_root (report->callgraph);
  guint64                     n_samples = sysprof_callgraph_get_n_samples (report->callgraph);
  g_autoptr (GString) svg = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char    *path = arg_output != NULL ? g_strdup (arg_output) : default_output_path (report->capture_path);
  g_autofree char    *capture_name = g_path_get_basename (report->capture_path);
  g_autofree guint64 *next_x = NULL;
  Flame               flame = { report, svg, 0, 0, NULL };
  guint               width = (guint) arg_width;
  double              height;

  flame.scale = n_samples > 0 ? (double) (width - 2 * SIDE_MARGIN) / (double) n_samples : 0;
  for (const SysprofCallgraphNode *node = root; node != NULL; node = next_box (&flame, node))
    flame.max_depth = MAX (flame.max_depth, node->depth);
  height = TOP_MARGIN + (flame.max_depth + 1) * FRAME_HEIGHT + BOTTOM_MARGIN;

  g_string_append_printf (svg,
                          "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%.0f\" "
                          "viewBox=\"0 0 %u %.0f\" font-family=\"monospace\" font-size=\"%d\">\n"
                          "<style>g:hover rect { stroke: #000; stroke-width: 0.7; }</style>\n"
                          "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"#fbfbf8\"/>\n",
                          width, height, width, height, FONT_SIZE, width, height);
  g_string_append_printf (svg, "<text x=\"%u\" y=\"22\" text-anchor=\"middle\" font-size=\"17\">Flame graph of ",
                          width / 2);
  append_escaped (svg, capture_name, -1);
  g_string_append_printf (svg, "</text>\n");
  if (report->memory)
    g_string_append_printf (
        svg, "<text x=\"%u\" y=\"40\" text-anchor=\"middle\" font-size=\"12\">%" G_GUINT64_FORMAT " %s%s</text>\n",
        width / 2, n_samples, report->unit,
        report->memory_leaked ? " of the allocations live at the end" : " allocated");
  else if (n_samples == sysprof_callgraph_get_n_samples_read (report->callgraph))
    g_string_append_printf (
        svg, "<text x=\"%u\" y=\"40\" text-anchor=\"middle\" font-size=\"12\">%" G_GUINT64_FORMAT " samples</text>\n",
        width / 2, n_samples);
  else
    g_string_append_printf (svg,
                            "<text x=\"%u\" y=\"40\" text-anchor=\"middle\" font-size=\"12\">%" G_GUINT64_FORMAT
                            " samples (of %" G_GUINT64_FORMAT " in the capture, filtered)</text>\n",
                            width / 2, n_samples, sysprof_callgraph_get_n_samples_read (report->callgraph));

  if (n_samples > 0)
    {
      next_x = g_new0 (guint64, flame.max_depth + 2);
      flame.next_x = next_x;
      for (const SysprofCallgraphNode *node = root; node != NULL; node = next_box (&flame, node))
        append_box (&flame, node);
    }
  else
    g_string_append_printf (svg, "<text x=\"%u\" y=\"%d\" text-anchor=\"middle\">No %s.</text>\n", width / 2,
                            TOP_MARGIN + FRAME_HEIGHT - 4, report->unit);

  append_legend (svg, height - BOTTOM_MARGIN + 12);
  g_string_append (svg, "</svg>\n");

  if (g_str_equal (path, "-"))
    {
      if (fwrite (svg->str, 1, svg->len, stdout) != svg->len || fflush (stdout) != 0)
        {
          g_printerr ("%s: cannot write the SVG to standard output\n", g_get_prgname ());
          return REPORT_EXIT_ERROR;
        }
      return REPORT_EXIT_OK;
    }
  if (!g_file_set_contents (path, svg->str, (gssize) svg->len, &error))
    {
      g_printerr ("%s: %s\n", g_get_prgname (), error->message);
      return REPORT_EXIT_ERROR;
    }
  printf ("%s\n", path);
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_flamegraph = {
  .name = "flamegraph",
  .summary = "Write a flame graph as a standalone SVG file.",
  .parameters = "CAPTURE",
  .description = "Frames are boxes as wide as their samples, the root at the bottom and callees\n"
                 "above their callers; hover a box for \"function (library) N samples, P%\".\n"
                 "Colours: warm for user code, orange for the kernel, grey for addresses\n"
                 "without a symbol, blue-grey for process and context nodes.  Boxes narrower\n"
                 "than a third of a pixel are left out.  The file needs no script or font;\n"
                 "its path is printed.  Default output: the capture's base name with .svg, in\n"
                 "the current directory; -o - writes to standard output.  With --memory=bytes\n"
                 "the boxes are as wide as the bytes allocated below them.",
  .entries = flamegraph_options,
  .check = check,
  .run = run,
};
