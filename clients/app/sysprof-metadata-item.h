// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMetadataItem: one metadata entry of a document, as an item of a
 * list model (see SysprofMetadataList).  Its fields are read directly by
 * the table that shows it. */
#pragma once

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_METADATA_ITEM (sysprof_metadata_item_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMetadataItem, sysprof_metadata_item, SYSPROF, METADATA_ITEM, GObject)

struct _SysprofMetadataItem
{
  GObject parent_instance;

  /* Keeps @metadata alive: the document's metadata never changes after
   * loading. */
  SysprofDocument              *document;
  const SysprofSummaryMetadata *metadata;
};

/* @metadata: one of @document's. */
SysprofMetadataItem *sysprof_metadata_item_new (SysprofDocument *document, const SysprofSummaryMetadata *metadata);

G_END_DECLS
