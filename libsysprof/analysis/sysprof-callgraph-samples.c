// SPDX-License-Identifier: GPL-3.0-or-later
/* The samples a callgraph keeps (sysprof-callgraph-samples-private.h). */
#include "sysprof-callgraph-samples-private.h"

typedef struct
{
  gint64  time;
  guint64 weight;
  guint64 bytes;
  guint32 node; /* SYSPROF_SAMPLE_LOG_NONE: dropped */
  gint32  tid;
  gint32  cpu;
  guint32 padding;
} Record;

G_STATIC_ASSERT (sizeof (Record) == 40);

struct _SysprofSampleLog
{
  GArray            *records; /* Record */
  SysprofSampleNode *nodes;
  guint32            n_nodes;
};

SysprofSampleLog *
_sysprof_sample_log_new (void)
{
  SysprofSampleLog *self = g_new0 (SysprofSampleLog, 1);

  self->records = g_array_new (FALSE, FALSE, sizeof (Record));
  return self;
}

void
_sysprof_sample_log_free (SysprofSampleLog *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->records);
  g_free (self->nodes);
  g_free (self);
}

guint32
_sysprof_sample_log_add (
    SysprofSampleLog *self, guint32 node, gint32 tid, gint32 cpu, gint64 time, guint64 weight, guint64 bytes)
{
  Record record = { time, weight, bytes, node, tid, cpu, 0 };

  /* The index must stay below SYSPROF_SAMPLE_LOG_NONE. */
  if (G_UNLIKELY (self->records->len >= G_MAXUINT32 - 1))
    g_error ("%s: more than %u samples kept", G_STRLOC, G_MAXUINT32 - 1);
  g_array_append_val (self->records, record);
  return self->records->len - 1;
}

void
_sysprof_sample_log_drop (SysprofSampleLog *self, guint32 index)
{
  g_return_if_fail (index < self->records->len);

  g_array_index (self->records, Record, index).node = SYSPROF_SAMPLE_LOG_NONE;
}

static gint
compare_records (gconstpointer a, gconstpointer b)
{
  const Record *ra = a, *rb = b;

  return ra->time < rb->time ? -1 : ra->time > rb->time;
}

void
_sysprof_sample_log_finish (SysprofSampleLog *self)
{
  guint n = 0;

  for (guint i = 0; i < self->records->len; i++)
    if (g_array_index (self->records, Record, i).node != SYSPROF_SAMPLE_LOG_NONE)
      g_array_index (self->records, Record, n++) = g_array_index (self->records, Record, i);
  g_array_set_size (self->records, n);
  /* Most captures are in time order already; Sysprof 3.46 wrote each
   * CPU's samples in turns.  g_array_sort is stable. */
  g_array_sort (self->records, compare_records);
}

SysprofSampleNode *
_sysprof_sample_log_set_n_nodes (SysprofSampleLog *self, guint32 n)
{
  g_free (self->nodes);
  self->nodes = g_new0 (SysprofSampleNode, MAX (n, 1));
  self->n_nodes = n;
  for (guint32 i = 0; i < n; i++)
    self->nodes[i].tree_node = SYSPROF_SAMPLE_LOG_NONE;
  return self->nodes;
}

/* The frames raw node @node adds to a sample: the nodes of the tree of
 * functions from @from (its innermost) out to @stop, which is where its
 * parent's frames end (the root when the parent is above a focus).  Hidden
 * functions and folded allocator frames have no node there; the others
 * are the node's source frames in order, so each finds its line by
 * skipping the hidden ones. */
static void
add_node_frames (GArray                     *frames,
                 const SysprofSampleNode    *node,
                 const SysprofCallgraphNode *from,
                 const SysprofCallgraphNode *stop)
{
  guint first = frames->len;
  guint source = 0;

  for (const SysprofCallgraphNode *t = from; t != NULL && t != stop; t = t->parent)
    {
      SysprofCallgraphSampleFrame frame = { t->function, 0, node->context, TRUE, NULL, 0 };

      if (node->kind == SYSPROF_SAMPLE_NODE_ADDRESS)
        {
          frame.address = node->value;
          while (source < node->n_frames && node->frames[source]->symbol != t->function->symbol)
            source++;
          if (source < node->n_frames)
            {
              frame.file = node->frames[source]->file;
              frame.line = node->frames[source]->line;
              source++;
            }
        }
      else if (node->kind != SYSPROF_SAMPLE_NODE_CONTEXT)
        frame.context = SYSPROF_ADDRESS_CONTEXT_NONE;
      g_array_append_val (frames, frame);
    }
  if (frames->len > first)
    g_array_index (frames, SysprofCallgraphSampleFrame, frames->len - 1).inlined = FALSE;
}

/* The process a raw node is in: the value of the process node above it,
 * remembered per node (0 until asked, -1 for none) once asked. */
static gint32
pid_of (const SysprofSampleNode *nodes, guint32 n_nodes, gint32 *pids, guint32 node)
{
  guint32 n = node;
  gint32  pid = -1;

  if (pids[node] != 0)
    return pids[node];
  for (; n != 0 && n < n_nodes; n = nodes[n].parent)
    {
      if (pids[n] != 0)
        {
          pid = pids[n];
          break;
        }
      if (nodes[n].kind == SYSPROF_SAMPLE_NODE_PROCESS)
        {
          pid = (gint32) (guint32) nodes[n].value;
          break;
        }
    }
  pids[node] = pid;
  return pid;
}

void
_sysprof_sample_log_foreach (SysprofSampleLog           *self,
                             const SysprofCallgraphNode *tree,
                             gboolean                    frames_once,
                             SysprofCallgraphSampleFunc  func,
                             gpointer                    user_data)
{
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (SysprofCallgraphSampleFrame));
  g_autofree gint32       *pids = NULL;
  g_autofree guint8       *seen = NULL;
  const SysprofSampleNode *nodes = self->nodes;

  g_return_if_fail (self->nodes != NULL);

  if (frames_once)
    {
      pids = g_new0 (gint32, MAX (self->n_nodes, 1));
      seen = g_new0 (guint8, MAX (self->n_nodes, 1));
    }
  for (guint i = 0; i < self->records->len; i++)
    {
      const Record          *record = &g_array_index (self->records, Record, i);
      SysprofCallgraphSample sample;

      /* Dropped, or outside the focus: the callgraph does not count it. */
      if (record->node == SYSPROF_SAMPLE_LOG_NONE || record->node >= self->n_nodes ||
          nodes[record->node].tree_node == SYSPROF_SAMPLE_LOG_NONE)
        continue;

      sample = (SysprofCallgraphSample){
        0, record->tid, record->cpu, record->time, record->weight, record->bytes, record->node, NULL, 0
      };
      if (frames_once && seen[record->node])
        {
          gint32 pid = pid_of (nodes, self->n_nodes, pids, record->node);

          sample.pid = pid < 0 ? 0 : pid;
          if (!func (&sample, user_data))
            return;
          continue;
        }
      if (frames_once)
        seen[record->node] = 1;
      g_array_set_size (frames, 0);
      /* Outward to the raw root: above a focus the nodes add no frame, but
       * the process node still says the pid. */
      for (guint32 n = record->node; n != 0 && n < self->n_nodes; n = nodes[n].parent)
        {
          const SysprofSampleNode *node = &nodes[n];
          const SysprofSampleNode *parent = &nodes[node->parent];

          if (node->kind == SYSPROF_SAMPLE_NODE_PROCESS)
            sample.pid = (gint32) (guint32) node->value;
          if (node->tree_node == SYSPROF_SAMPLE_LOG_NONE)
            continue;
          add_node_frames (frames, node, &tree[node->tree_node],
                           parent->tree_node == SYSPROF_SAMPLE_LOG_NONE ? &tree[0] : &tree[parent->tree_node]);
        }
      if (frames->len == 0)
        {
          SysprofCallgraphSampleFrame root = { tree[0].function, 0, SYSPROF_ADDRESS_CONTEXT_NONE, FALSE, NULL, 0 };

          g_array_append_val (frames, root);
        }
      sample.frames = (const SysprofCallgraphSampleFrame *) (gconstpointer) frames->data;
      sample.n_frames = frames->len;
      if (!func (&sample, user_data))
        return;
    }
}
