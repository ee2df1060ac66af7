// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMetadataList: some of a document's metadata entries as a list
 * model of SysprofMetadataItem, made on demand: a capture of ten thousand
 * metadata frames costs a GObject per entry in view, not per entry. */
#pragma once

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_METADATA_LIST (sysprof_metadata_list_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMetadataList, sysprof_metadata_list, SYSPROF, METADATA_LIST, GObject)

/* @indices: guint, positions in @document's metadata; taken. */
GListModel *sysprof_metadata_list_new (SysprofDocument *document, GArray *indices);

G_END_DECLS
