// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-thread-item.h"

G_DEFINE_FINAL_TYPE (SysprofThreadItem, sysprof_thread_item, G_TYPE_OBJECT)

static void
sysprof_thread_item_finalize (GObject *object)
{
  sysprof_thread_time_clear (&SYSPROF_THREAD_ITEM (object)->time);
  G_OBJECT_CLASS (sysprof_thread_item_parent_class)->finalize (object);
}

static void
sysprof_thread_item_class_init (SysprofThreadItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_thread_item_finalize;
}

static void
sysprof_thread_item_init (SysprofThreadItem *self)
{
  (void) self;
}

SysprofThreadItem *
sysprof_thread_item_new (const SysprofThreadTime *time)
{
  SysprofThreadItem *item = g_object_new (SYSPROF_TYPE_THREAD_ITEM, NULL);

  item->time = *time;
  item->time.process = g_strdup (time->process);
  return item;
}
