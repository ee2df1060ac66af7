// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-callgraph-samples-private.h is private to libsysprof/analysis."
#endif

#include "sysprof-callgraph.h"

G_BEGIN_DECLS

/* What a callgraph keeps for sysprof_callgraph_foreach_sample()
 * (SysprofCallgraphFilter.keep_samples): one record per sample (or
 * allocation) that counts, naming the node of the raw tree (the distinct
 * stacks of addresses, see sysprof-callgraph.c) it ended in; and, once the
 * tree of functions is built, what each raw node is: its address, the
 * frames the symbolizer gave for it and the node of the tree of functions
 * it maps to.  A sample's frames are rebuilt from those by walking its raw
 * path outward, so they are the callgraph's own: its counts, focus, hidden
 * frames and allocator frames, without a second set of rules. */
typedef struct _SysprofSampleLog SysprofSampleLog;

typedef enum
{
  SYSPROF_SAMPLE_NODE_ROOT,
  SYSPROF_SAMPLE_NODE_PROCESS, /* value: the pid */
  SYSPROF_SAMPLE_NODE_CONTEXT, /* a context node ("- - kernel - -") */
  SYSPROF_SAMPLE_NODE_ADDRESS, /* value: the address */
} SysprofSampleNodeKind;

/* A raw node that maps to no node of the tree of functions (above the cut
 * of a focus, or a node that carries no weight), or a dropped record. */
#define SYSPROF_SAMPLE_LOG_NONE G_MAXUINT32

typedef struct
{
  guint64 value;
  /* SYSPROF_SAMPLE_NODE_ADDRESS: the frames the symbolizer gave for the
   * address, innermost first, the last one the node's function (the
   * symbolizer's interned chain); NULL when it gave none. */
  const SysprofSymbolFrame *const *frames;
  guint32                          parent;
  /* The node of the tree of functions where the node's frames end (its
   * innermost), or SYSPROF_SAMPLE_LOG_NONE. */
  guint32 tree_node;
  guint16 n_frames;
  guint8  kind;    /* SysprofSampleNodeKind */
  guint8  context; /* SysprofAddressContext */
} SysprofSampleNode;

G_STATIC_ASSERT (sizeof (SysprofSampleNode) == 32);

SysprofSampleLog *_sysprof_sample_log_new (void);
void              _sysprof_sample_log_free (SysprofSampleLog *self);
/* A sample that counts, which ended in raw node @node; returns its index.
 * Aborts past 2^32 - 1 records, like a failed allocation. */
guint32 _sysprof_sample_log_add (
    SysprofSampleLog *self, guint32 node, gint32 tid, gint32 cpu, gint64 time, guint64 weight, guint64 bytes);
/* The record @index counts no longer (an allocation freed, for the leaks). */
void _sysprof_sample_log_drop (SysprofSampleLog *self, guint32 index);
/* Once every sample is read: the dropped records go, the others are put
 * in time order (samples of the same time in the order they were read).
 * No record index is valid after. */
void _sysprof_sample_log_finish (SysprofSampleLog *self);
/* Room for the @n nodes of the complete raw tree, for the callgraph to
 * fill (zeroed; every tree_node SYSPROF_SAMPLE_LOG_NONE). */
SysprofSampleNode *_sysprof_sample_log_set_n_nodes (SysprofSampleLog *self, guint32 n);
/* sysprof_callgraph_foreach_sample() on the published tree, whose node i
 * is node i of the tree of functions; @frames_once:
 * SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE. */
void _sysprof_sample_log_foreach (SysprofSampleLog           *self,
                                  const SysprofCallgraphNode *tree,
                                  gboolean                    frames_once,
                                  SysprofCallgraphSampleFunc  func,
                                  gpointer                    user_data);

G_END_DECLS
