// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-metadata-item.h"
#include "sysprof-metadata-list.h"

struct _SysprofMetadataList
{
  GObject parent_instance;

  SysprofDocument *document;
  GArray          *indices; /* guint, in the document's metadata */
};

static GType
sysprof_metadata_list_get_item_type (GListModel *model)
{
  (void) model;
  return SYSPROF_TYPE_METADATA_ITEM;
}

static guint
sysprof_metadata_list_get_n_items (GListModel *model)
{
  return SYSPROF_METADATA_LIST (model)->indices->len;
}

static gpointer
sysprof_metadata_list_get_item (GListModel *model, guint position)
{
  SysprofMetadataList *self = SYSPROF_METADATA_LIST (model);

  if (position >= self->indices->len)
    return NULL;
  return sysprof_metadata_item_new (self->document, &g_array_index (sysprof_document_get_metadata (self->document),
                                                                    SysprofSummaryMetadata,
                                                                    g_array_index (self->indices, guint, position)));
}

static void
sysprof_metadata_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = sysprof_metadata_list_get_item_type;
  iface->get_n_items = sysprof_metadata_list_get_n_items;
  iface->get_item = sysprof_metadata_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SysprofMetadataList,
                               sysprof_metadata_list,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, sysprof_metadata_list_model_init))

static void
sysprof_metadata_list_finalize (GObject *object)
{
  SysprofMetadataList *self = SYSPROF_METADATA_LIST (object);

  g_clear_object (&self->document);
  g_clear_pointer (&self->indices, g_array_unref);

  G_OBJECT_CLASS (sysprof_metadata_list_parent_class)->finalize (object);
}

static void
sysprof_metadata_list_class_init (SysprofMetadataListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_metadata_list_finalize;
}

static void
sysprof_metadata_list_init (SysprofMetadataList *self)
{
  (void) self;
}

GListModel *
sysprof_metadata_list_new (SysprofDocument *document, GArray *indices)
{
  SysprofMetadataList *self = g_object_new (SYSPROF_TYPE_METADATA_LIST, NULL);

  self->document = g_object_ref (document);
  self->indices = indices;
  return G_LIST_MODEL (self);
}
