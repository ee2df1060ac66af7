// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofFilesItem: a file embedded in a capture, as a row of the files
 * view's list.  Its fields are read directly by the list's cells and
 * sorters. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_FILES_ITEM (sysprof_files_item_get_type ())
G_DECLARE_FINAL_TYPE (SysprofFilesItem, sysprof_files_item, SYSPROF, FILES_ITEM, GObject)

struct _SysprofFilesItem
{
  GObject parent_instance;

  char   *path;
  guint64 size;
};

SysprofFilesItem *sysprof_files_item_new (const char *path, guint64 size);

G_END_DECLS
