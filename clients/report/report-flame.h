// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: the standalone SVG flame graph that the flamegraph verb
 * writes, and diff --format svg colours by change.  The drawing (layout,
 * labels, escaping, the file, the script that makes it interactive in a
 * browser) is here; a verb says what the title lines say, the colour of
 * each box, what its tooltip adds and the legend. */
#pragma once

#include "report-util.h"

G_BEGIN_DECLS

typedef struct
{
  const char *label;
  guint8      rgb[3];
} ReportFlameLegend;

typedef struct
{
  /* The heading, and a line below it. */
  const char *title;
  const char *subtitle;
  /* Pixels. */
  guint width;
  /* What the boxes' widths count ("samples", "bytes"): the search's
   * "Matched: N UNIT, P%". */
  const char *unit;
  /* Fills @rgb with the colour of @node's box. */
  void (*colour) (const SysprofCallgraphNode *node, guint8 rgb[3], gpointer user_data);
  /* Appends to the box's tooltip, after "function (library)": its figures. */
  void (*describe) (const SysprofCallgraphNode *node, GString *out, gpointer user_data);
  gpointer                 user_data;
  const ReportFlameLegend *legend;
  guint                    n_legend;
  /* Shown alone when the callgraph has no samples ("No samples."). */
  const char *empty_text;
} ReportFlameStyle;

/* The flame graph of @callgraph's top-down tree: boxes as wide as their
 * total, the root at the bottom; boxes narrower than a third of a pixel,
 * and their subtrees, are left out.  A static picture (a <title> per box
 * is its tooltip) with a script that a browser runs: click a box to zoom
 * to it, "Search" to highlight the boxes whose name matches a regular
 * expression; the address keeps the state (FILE.svg#zoom=ID&search=REGEX,
 * ID a box's id attribute, "f0" the root). */
GString *report_flame_svg (SysprofCallgraph *callgraph, const ReportFlameStyle *style);

/* The colours of the plain flame graph: warm for user code, orange for the
 * kernel, grey without a symbol, blue-grey for the root, processes and
 * contexts; and their legend. */
void                           report_flame_kind_colour (const SysprofCallgraphFunction *function, guint8 rgb[3]);
extern const ReportFlameLegend report_flame_kind_legend[4];

/* --width's check: FALSE with @error (G_OPTION_ERROR) outside 100..100000. */
gboolean report_flame_check_width (gint width, GError **error);
/* The capture's base name with .svg instead of its extension. */
char *report_flame_default_path (const char *capture_path);
/* Writes @svg to @path ("-": standard output) and prints the path; prints
 * the error otherwise.  Returns the exit status. */
int report_flame_write (const GString *svg, const char *path);

/* The script of report_flame_svg (report-flame-script.c): it reads the
 * boxes from the document, and holds no "]]>" (it goes in a CDATA
 * section). */
extern const char report_flame_script[];

G_END_DECLS
