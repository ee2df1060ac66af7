// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofProcessItem: a process of a document, as a row of the processes
 * view's table.  Its fields are read directly by the table's cells and
 * sorters. */
#pragma once

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_PROCESS_ITEM (sysprof_process_item_get_type ())
G_DECLARE_FINAL_TYPE (SysprofProcessItem, sysprof_process_item, SYSPROF, PROCESS_ITEM, GObject)

struct _SysprofProcessItem
{
  GObject parent_instance;

  char                 *name;
  SysprofSummaryProcess process; /* its own copy of cmdline */
  guint                 chart_row;
};

/* A copy of @process, named @name (taken, may be NULL). */
SysprofProcessItem *sysprof_process_item_new (const SysprofSummaryProcess *process, char *name);

G_END_DECLS
