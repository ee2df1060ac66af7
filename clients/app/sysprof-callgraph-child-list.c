// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-callgraph-child-list.h"
#include "sysprof-callgraph-view-row.h"

struct _SysprofCallgraphChildList
{
  GObject parent_instance;

  SysprofCallgraph            *callgraph;
  const SysprofCallgraphNode  *parent;
  guint                        n_children;
  const SysprofCallgraphNode **children; /* made with the first row */
  SysprofCallgraphViewRow    **rows;
};

static GType
child_list_get_item_type (GListModel *model)
{
  (void) model;
  return SYSPROF_TYPE_CALLGRAPH_VIEW_ROW;
}

static guint
child_list_get_n_items (GListModel *model)
{
  return SYSPROF_CALLGRAPH_CHILD_LIST (model)->n_children;
}

static gpointer
child_list_get_item (GListModel *model, guint position)
{
  SysprofCallgraphChildList *self = SYSPROF_CALLGRAPH_CHILD_LIST (model);

  if (position >= self->n_children)
    return NULL;
  if (self->children == NULL)
    {
      guint i = 0;

      self->children = g_new (const SysprofCallgraphNode *, self->n_children);
      self->rows = g_new0 (SysprofCallgraphViewRow *, self->n_children);
      for (const SysprofCallgraphNode *child = self->parent->first_child; child != NULL; child = child->next_sibling)
        self->children[i++] = child;
    }
  if (self->rows[position] == NULL)
    {
      const SysprofCallgraphNode *child = self->children[position];

      self->rows[position] =
          sysprof_callgraph_view_row_new (self->callgraph, child->function, child, child->self, child->total);
    }
  return g_object_ref (self->rows[position]);
}

static void
child_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = child_list_get_item_type;
  iface->get_n_items = child_list_get_n_items;
  iface->get_item = child_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SysprofCallgraphChildList,
                               sysprof_callgraph_child_list,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, child_list_model_init))

static void
sysprof_callgraph_child_list_finalize (GObject *object)
{
  SysprofCallgraphChildList *self = SYSPROF_CALLGRAPH_CHILD_LIST (object);

  for (guint i = 0; self->rows != NULL && i < self->n_children; i++)
    g_clear_object (&self->rows[i]);
  g_free (self->rows);
  g_free (self->children);
  g_clear_object (&self->callgraph);
  G_OBJECT_CLASS (sysprof_callgraph_child_list_parent_class)->finalize (object);
}

static void
sysprof_callgraph_child_list_class_init (SysprofCallgraphChildListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_callgraph_child_list_finalize;
}

static void
sysprof_callgraph_child_list_init (SysprofCallgraphChildList *self)
{
  (void) self;
}

GListModel *
sysprof_callgraph_child_list_new (SysprofCallgraph *callgraph, const SysprofCallgraphNode *parent)
{
  SysprofCallgraphChildList *self = g_object_new (SYSPROF_TYPE_CALLGRAPH_CHILD_LIST, NULL);

  self->callgraph = g_object_ref (callgraph);
  self->parent = parent;
  for (const SysprofCallgraphNode *child = parent->first_child; child != NULL; child = child->next_sibling)
    self->n_children++;
  return G_LIST_MODEL (self);
}
