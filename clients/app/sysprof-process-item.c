// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-process-item.h"

G_DEFINE_FINAL_TYPE (SysprofProcessItem, sysprof_process_item, G_TYPE_OBJECT)

static void
sysprof_process_item_finalize (GObject *object)
{
  g_free (SYSPROF_PROCESS_ITEM (object)->name);
  g_free (SYSPROF_PROCESS_ITEM (object)->process.cmdline);

  G_OBJECT_CLASS (sysprof_process_item_parent_class)->finalize (object);
}

static void
sysprof_process_item_class_init (SysprofProcessItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_process_item_finalize;
}

static void
sysprof_process_item_init (SysprofProcessItem *self)
{
  (void) self;
}

SysprofProcessItem *
sysprof_process_item_new (const SysprofSummaryProcess *process, char *name)
{
  SysprofProcessItem *item = g_object_new (SYSPROF_TYPE_PROCESS_ITEM, NULL);

  item->name = name;
  item->process = *process;
  item->process.cmdline = g_strdup (process->cmdline);
  return item;
}
