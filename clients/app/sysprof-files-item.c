// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-files-item.h"

G_DEFINE_FINAL_TYPE (SysprofFilesItem, sysprof_files_item, G_TYPE_OBJECT)

static void
sysprof_files_item_finalize (GObject *object)
{
  g_free (SYSPROF_FILES_ITEM (object)->path);

  G_OBJECT_CLASS (sysprof_files_item_parent_class)->finalize (object);
}

static void
sysprof_files_item_class_init (SysprofFilesItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_files_item_finalize;
}

static void
sysprof_files_item_init (SysprofFilesItem *self)
{
  (void) self;
}

SysprofFilesItem *
sysprof_files_item_new (const char *path, guint64 size)
{
  SysprofFilesItem *item = g_object_new (SYSPROF_TYPE_FILES_ITEM, NULL);

  item->path = g_strdup (path);
  item->size = size;
  return item;
}
