// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarksItem: a mark of a document, as a row of the marks view's
 * list of every mark.  Its fields are read directly by the list's cells
 * and sorters: sorting a hundred thousand marks calls them millions of
 * times. */
#pragma once

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_MARKS_ITEM (sysprof_marks_item_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksItem, sysprof_marks_item, SYSPROF, MARKS_ITEM, GObject)

struct _SysprofMarksItem
{
  GObject parent_instance;

  /* Keeps @mark alive: the document's marks never move after loading. */
  SysprofDocument          *document;
  const SysprofSummaryMark *mark;
};

/* @mark: one of @document's.  Safe in any thread. */
SysprofMarksItem *sysprof_marks_item_new (SysprofDocument *document, const SysprofSummaryMark *mark);

G_END_DECLS
