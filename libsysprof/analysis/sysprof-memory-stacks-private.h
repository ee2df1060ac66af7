// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-memory-stacks-private.h is private to libsysprof/analysis."
#endif

#include <sysprof-capture.h>

#include "sysprof-stack-cache-private.h"
#include "sysprof-stack-stash-private.h"

G_BEGIN_DECLS

/* The stacks of the allocations: (pid, addresses) → node of a prefix tree
 * (root, one node per process keyed by pid, then the addresses from the
 * outermost in), so a live allocation holds one 32-bit id.  Most
 * allocations repeat a stack seen before: the stack cache finds its node in
 * one probe. */
typedef struct
{
  SysprofStackStash   *stash;
  GArray              *times; /* gint64 per node: the record that created it */
  SysprofStackCache    cache;
  SysprofStackKeyCache by_key; /* stream events' stacks */
  guint64             *keys;   /* one stack, outermost first */
  guint32             *tags;   /* zeros */
} SysprofMemoryStacks;

void _sysprof_memory_stacks_init (SysprofMemoryStacks *stacks);
void _sysprof_memory_stacks_clear (SysprofMemoryStacks *stacks);
/* The node of process @pid (created at @time when new). */
guint32 _sysprof_memory_stacks_process_node (SysprofMemoryStacks *stacks, gint32 pid, gint64 time);
/* The innermost node of the stack @addrs (innermost first) below
 * @process_node, the node of @pid; @process_node itself for an empty stack.
 * Addresses 0 and perf context markers are not frames. */
guint32 _sysprof_memory_stacks_intern (SysprofMemoryStacks         *stacks,
                                       guint32                      process_node,
                                       gint32                       pid,
                                       const SysprofCaptureAddress *addrs,
                                       guint                        n,
                                       gint64                       time);

/* The same for an event of SysprofAllocationCursor: a stream event's stack
 * is found by its key, without hashing its frames. */
guint32 _sysprof_memory_stacks_intern_event (SysprofMemoryStacks          *stacks,
                                             guint32                       process_node,
                                             const SysprofAllocationEvent *event);

G_END_DECLS
