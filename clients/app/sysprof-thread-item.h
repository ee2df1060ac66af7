// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofThreadItem: a thread of a document with its times on and off the
 * CPU (SysprofThreadTime), as a row of the threads view's table.  Its
 * fields are read directly by the table's cells and sorters. */
#pragma once

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_THREAD_ITEM (sysprof_thread_item_get_type ())
G_DECLARE_FINAL_TYPE (SysprofThreadItem, sysprof_thread_item, SYSPROF, THREAD_ITEM, GObject)

struct _SysprofThreadItem
{
  GObject parent_instance;

  SysprofThreadTime time; /* its own copy of process */
};

/* A copy of @time. */
SysprofThreadItem *sysprof_thread_item_new (const SysprofThreadTime *time);

G_END_DECLS
