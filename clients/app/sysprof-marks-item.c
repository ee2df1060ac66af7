// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-marks-item.h"

G_DEFINE_FINAL_TYPE (SysprofMarksItem, sysprof_marks_item, G_TYPE_OBJECT)

static void
sysprof_marks_item_finalize (GObject *object)
{
  g_clear_object (&SYSPROF_MARKS_ITEM (object)->document);

  G_OBJECT_CLASS (sysprof_marks_item_parent_class)->finalize (object);
}

static void
sysprof_marks_item_class_init (SysprofMarksItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_marks_item_finalize;
}

static void
sysprof_marks_item_init (SysprofMarksItem *self)
{
  (void) self;
}

SysprofMarksItem *
sysprof_marks_item_new (SysprofDocument *document, const SysprofSummaryMark *mark)
{
  SysprofMarksItem *item = g_object_new (SYSPROF_TYPE_MARKS_ITEM, NULL);

  item->document = g_object_ref (document);
  item->mark = mark;
  return item;
}
