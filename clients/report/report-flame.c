// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: the SVG flame graph (report-flame.h).  No external
 * resource, no font of its own: any viewer shows the picture, and the
 * <title> of each box is its tooltip.  A browser also runs the script
 * (report-flame-script.c), which reads each box from its attributes:
 * data-start and data-total (its columns, in samples from the left),
 * data-depth and data-name (the whole label), and shows the controls that
 * are hidden without it. */

#include <math.h>
#include <string.h>

#include "report-flame.h"

#define FRAME_HEIGHT 16
#define FONT_SIZE    11
/* Monospace advance at FONT_SIZE (0.6 em, rounded up) to fit labels. */
#define LABEL_CHAR_WIDTH 7.0
#define SIDE_MARGIN      10
#define TOP_MARGIN       56
#define BOTTOM_MARGIN    54  /* the legend, then the line the script fills on hover */
#define MIN_BOX_WIDTH    0.3 /* pixels; narrower boxes and their subtrees are left out */
#define MIN_LABEL_CHARS  5   /* three characters of the name and ".." */
/* What the search highlights: no box of either palette is magenta. */
#define MATCH_COLOUR "rgb(214,30,214)"

typedef struct
{
  const ReportFlameStyle *style;
  GString                *svg;
  double                  scale; /* pixels per sample */
  guint                   max_depth;
  guint64                *next_x;  /* per depth: samples left of the next box */
  guint                   n_boxes; /* the next box is "f<n_boxes>" */
} Flame;

/* Appends @text escaped for XML character data and attributes, as valid
 * UTF-8 without the characters XML 1.0 forbids: control characters become
 * spaces, U+FFFE and U+FFFF (valid UTF-8, but no XML Char) U+FFFD. */
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
          else if (g_utf8_get_char (p) >= 0xfffe && g_utf8_get_char (p) <= 0xffff)
            g_string_append (out, "\xef\xbf\xbd");
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

/* The shade varies with the name so that neighbours stand apart. */
void
report_flame_kind_colour (const SysprofCallgraphFunction *function, guint8 rgb[3])
{
  guint32 h = name_hash (function->symbol->name);
  double  v1 = (double) (h & 0xff) / 255.0;
  double  v2 = (double) ((h >> 8) & 0xff) / 255.0;

  if (function->kind != SYSPROF_CALLGRAPH_FUNCTION_CODE)
    rgb[0] = 150 + (guint8) (20 * v1), rgb[1] = 170 + (guint8) (20 * v1), rgb[2] = 205 + (guint8) (20 * v1);
  else if (function->symbol->kind == SYSPROF_SYMBOL_KERNEL)
    rgb[0] = 235 + (guint8) (20 * v1), rgb[1] = 145 + (guint8) (50 * v2), rgb[2] = 30 + (guint8) (30 * v1);
  else if (function->symbol->kind == SYSPROF_SYMBOL_UNRESOLVED)
    rgb[0] = rgb[1] = rgb[2] = 175 + (guint8) (35 * v1);
  else
    rgb[0] = 200 + (guint8) (50 * v1), rgb[1] = 50 + (guint8) (60 * v2), rgb[2] = 40 + (guint8) (30 * v1);
}

const ReportFlameLegend report_flame_kind_legend[4] = {
  { "user code", { 225, 80, 55 } },
  { "kernel", { 245, 170, 45 } },
  { "no symbol", { 190, 190, 190 } },
  { "process, context", { 160, 180, 215 } },
};

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
  guint8               rgb[3];

  flame->next_x[node->depth] += node->total;
  flame->next_x[node->depth + 1] = x_samples;

  flame->style->colour (node, rgb, flame->style->user_data);
  g_string_append_printf (flame->svg,
                          "<g class=\"frame\" id=\"f%u\" data-start=\"%" G_GUINT64_FORMAT
                          "\" data-total=\"%" G_GUINT64_FORMAT "\" data-depth=\"%u\" data-name=\"",
                          flame->n_boxes++, x_samples, node->total, node->depth);
  append_escaped (flame->svg, label, -1);
  g_string_append (flame->svg, "\"><title>");
  append_escaped (flame->svg, label, -1);
  if (symbol->library[0] != '\0')
    {
      g_string_append (flame->svg, " (");
      append_escaped (flame->svg, symbol->library, -1);
      g_string_append_c (flame->svg, ')');
    }
  flame->style->describe (node, flame->svg, flame->style->user_data);
  g_string_append_printf (flame->svg,
                          "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
                          "fill=\"rgb(%u,%u,%u)\"/>",
                          x, y, width, FRAME_HEIGHT - 1, rgb[0], rgb[1], rgb[2]);

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

/* A button of the script's: a box around @label, hidden until the script
 * shows it (it does nothing without it).  @x is its left, or with
 * @from_right its right.  A nested <svg> rather than a <g>: readers take
 * each <g> for a box of the graph. */
static void
append_control (GString *svg, const char *id, const char *label, double x, gboolean from_right)
{
  double width = LABEL_CHAR_WIDTH * (double) strlen (label) + 10;

  if (from_right)
    x -= width;
  g_string_append_printf (svg,
                          "<svg id=\"%s\" class=\"control\" x=\"%.1f\" y=\"9\" width=\"%.1f\" height=\"18\">"
                          "<rect x=\"0.5\" y=\"0.5\" width=\"%.1f\" height=\"17\" rx=\"3\" fill=\"#ececec\" "
                          "stroke=\"#999\"/><text x=\"5\" y=\"13\">%s</text></svg>\n",
                          id, x, width, width - 1, label);
}

static void
append_legend (GString *svg, const ReportFlameStyle *style, double y)
{
  double x = SIDE_MARGIN;

  for (guint i = 0; i < style->n_legend; i++)
    {
      const ReportFlameLegend *entry = &style->legend[i];

      g_string_append_printf (
          svg, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" fill=\"rgb(%u,%u,%u)\"/>", x, y,
          entry->rgb[0], entry->rgb[1], entry->rgb[2]);
      g_string_append_printf (svg, "<text x=\"%.1f\" y=\"%.1f\">", x + 16, y + 10);
      append_escaped (svg, entry->label, -1);
      g_string_append (svg, "</text>\n");
      x += 16 + LABEL_CHAR_WIDTH * (double) g_utf8_strlen (entry->label, -1) + 20;
    }
}

GString *
report_flame_svg (SysprofCallgraph *callgraph, const ReportFlameStyle *style)
{
  const SysprofCallgraphNode *root = sysprof_callgraph_get_root (callgraph);
  guint64                     n_samples = sysprof_callgraph_get_n_samples (callgraph);
  GString                    *svg = g_string_new (NULL);
  g_autofree guint64         *next_x = NULL;
  Flame                       flame = { style, svg, 0, 0, NULL };
  guint                       width = style->width;
  double                      height;

  flame.scale = n_samples > 0 ? (double) (width - 2 * SIDE_MARGIN) / (double) n_samples : 0;
  for (const SysprofCallgraphNode *node = root; node != NULL; node = next_box (&flame, node))
    flame.max_depth = MAX (flame.max_depth, node->depth);
  height = TOP_MARGIN + (flame.max_depth + 1) * FRAME_HEIGHT + BOTTOM_MARGIN;

  g_string_append_printf (svg,
                          "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%.0f\" "
                          "viewBox=\"0 0 %u %.0f\" font-family=\"monospace\" font-size=\"%d\" "
                          "data-label-char-width=\"%.1f\" data-min-label-chars=\"%d\" data-unit=\"",
                          width, height, width, height, FONT_SIZE, LABEL_CHAR_WIDTH, MIN_LABEL_CHARS);
  append_escaped (svg, style->unit != NULL ? style->unit : "samples", -1);
  g_string_append (svg, "\">\n<title>");
  append_escaped (svg, style->title, -1);
  /* The controls and the script's classes on the root: "interactive" once
   * it runs, "zoomed", "searching"; on boxes "match", "context" (a caller
   * of the zoomed box), "hidden". */
  g_string_append_printf (svg,
                          "</title>\n<style>\n"
                          "g.frame:hover rect { stroke: #000; stroke-width: 0.7; }\n"
                          ".control { display: none; cursor: pointer; }\n"
                          "svg.interactive .control { display: inline; }\n"
                          "svg.interactive:not(.zoomed) #flame-reset { display: none; }\n"
                          "svg.interactive g.frame { cursor: pointer; }\n"
                          "g.frame.match rect { fill: " MATCH_COLOUR "; }\n"
                          "g.frame.context rect { opacity: 0.45; }\n"
                          "g.frame.hidden { display: none; }\n"
                          "</style>\n"
                          "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"#fbfbf8\"/>\n",
                          width, height);
  g_string_append_printf (svg, "<text x=\"%u\" y=\"22\" text-anchor=\"middle\" font-size=\"17\">", width / 2);
  append_escaped (svg, style->title, -1);
  g_string_append (svg, "</text>\n");
  g_string_append_printf (svg, "<text x=\"%u\" y=\"40\" text-anchor=\"middle\" font-size=\"12\">", width / 2);
  append_escaped (svg, style->subtitle, -1);
  g_string_append (svg, "</text>\n");
  append_control (svg, "flame-reset", "Reset zoom", SIDE_MARGIN, FALSE);
  append_control (svg, "flame-search", "Search", width - SIDE_MARGIN, TRUE);

  if (n_samples > 0)
    {
      next_x = g_new0 (guint64, flame.max_depth + 2);
      flame.next_x = next_x;
      for (const SysprofCallgraphNode *node = root; node != NULL; node = next_box (&flame, node))
        append_box (&flame, node);
    }
  else
    {
      g_string_append_printf (svg, "<text x=\"%u\" y=\"%d\" text-anchor=\"middle\">", width / 2,
                              TOP_MARGIN + FRAME_HEIGHT - 4);
      append_escaped (svg, style->empty_text, -1);
      g_string_append (svg, "</text>\n");
    }

  append_legend (svg, style, height - BOTTOM_MARGIN + 12);
  g_string_append_printf (svg,
                          "<text id=\"flame-matched\" x=\"%u\" y=\"%.0f\" text-anchor=\"end\"></text>\n"
                          "<text id=\"flame-details\" x=\"%d\" y=\"%.0f\"></text>\n",
                          width - SIDE_MARGIN, height - BOTTOM_MARGIN + 22, SIDE_MARGIN, height - 12);
  g_string_append_printf (svg, "<script><![CDATA[\n%s]]></script>\n</svg>\n", report_flame_script);
  return svg;
}

gboolean
report_flame_check_width (gint width, GError **error)
{
  if (width < 100 || width > 100000)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--width: %d pixels is not between 100 and 100000",
                   width);
      return FALSE;
    }
  return TRUE;
}

char *
report_flame_default_path (const char *capture_path)
{
  g_autofree char *base = g_path_get_basename (capture_path);
  char            *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  return g_strconcat (base, ".svg", NULL);
}

int
report_flame_write (const GString *svg, const char *path)
{
  g_autoptr (GError) error = NULL;

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
