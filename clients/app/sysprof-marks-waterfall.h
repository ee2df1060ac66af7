// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarksWaterfall: the marks view's waterfall, one row per (group,
 * name) of the document's marks, each mark a bar over the document's
 * visible range, lined up with the timeline ruler (the same gutter as
 * SysprofChart).  Clicking a mark selects its span, dragging selects a
 * range, through the document.
 *
 * A GtkScrollable, like SysprofChart: in a GtkScrolledWindow it draws only
 * the rows in view. */
#pragma once

#include <gtk/gtk.h>

#include "sysprof-document.h"

G_BEGIN_DECLS

/* Height of a row, in pixels. */
#define SYSPROF_MARKS_WATERFALL_ROW_HEIGHT 24

#define SYSPROF_TYPE_MARKS_WATERFALL (sysprof_marks_waterfall_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksWaterfall, sysprof_marks_waterfall, SYSPROF, MARKS_WATERFALL, GtkWidget)

GtkWidget *sysprof_marks_waterfall_new (SysprofDocument *document);
/* The rows of @marks (the document's): one per (group, name), sorted by
 * group then name; of @group only, unless NULL.  Safe in any thread: it
 * only reads @marks. */
GPtrArray *sysprof_marks_waterfall_build_rows (GArray *marks, const char *group);
/* Shows @rows, from sysprof_marks_waterfall_build_rows(); takes them. */
void sysprof_marks_waterfall_set_rows (SysprofMarksWaterfall *self, GPtrArray *rows);

G_END_DECLS
