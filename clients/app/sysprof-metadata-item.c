// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-metadata-item.h"

G_DEFINE_FINAL_TYPE (SysprofMetadataItem, sysprof_metadata_item, G_TYPE_OBJECT)

static void
sysprof_metadata_item_finalize (GObject *object)
{
  g_clear_object (&SYSPROF_METADATA_ITEM (object)->document);

  G_OBJECT_CLASS (sysprof_metadata_item_parent_class)->finalize (object);
}

static void
sysprof_metadata_item_class_init (SysprofMetadataItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_metadata_item_finalize;
}

static void
sysprof_metadata_item_init (SysprofMetadataItem *self)
{
  (void) self;
}

SysprofMetadataItem *
sysprof_metadata_item_new (SysprofDocument *document, const SysprofSummaryMetadata *metadata)
{
  SysprofMetadataItem *item = g_object_new (SYSPROF_TYPE_METADATA_ITEM, NULL);

  item->document = g_object_ref (document);
  item->metadata = metadata;
  return item;
}
