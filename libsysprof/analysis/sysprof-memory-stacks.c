// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-memory-stacks-private.h"

/* Perf context markers are the addresses -32 … -2560; a tracker does not
 * write them, but a stack may come from a sampler that does. */
#define MARKER_MIN ((SysprofCaptureAddress) -4096)
#define MAX_KEYS   (G_MAXUINT16 + 1)

void
_sysprof_memory_stacks_init (SysprofMemoryStacks *stacks)
{
  gint64 zero = 0;

  stacks->stash = _sysprof_stack_stash_new ();
  stacks->times = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_append_val (stacks->times, zero);
  _sysprof_stack_cache_init (&stacks->cache);
  stacks->keys = g_new (guint64, MAX_KEYS);
  stacks->tags = g_new0 (guint32, MAX_KEYS);
}

void
_sysprof_memory_stacks_clear (SysprofMemoryStacks *stacks)
{
  g_clear_pointer (&stacks->stash, _sysprof_stack_stash_free);
  g_clear_pointer (&stacks->times, g_array_unref);
  _sysprof_stack_cache_clear (&stacks->cache);
  _sysprof_stack_key_cache_clear (&stacks->by_key);
  g_clear_pointer (&stacks->keys, g_free);
  g_clear_pointer (&stacks->tags, g_free);
}

/* Adds the stack below @process_node; returns its innermost node. */
static G_GNUC_NO_INLINE guint32
stacks_add_path (
    SysprofMemoryStacks *stacks, guint32 process_node, const SysprofCaptureAddress *addrs, guint n, gint64 time)
{
  guint    pos = MAX_KEYS;
  guint32  n_before = _sysprof_stack_stash_get_n_nodes (stacks->stash);
  guint32  n_after;
  guint32  node;
  gboolean created;

  for (guint i = 0; i < n; i++)
    {
      SysprofCaptureAddress address = addrs[i];
      SysprofAddressContext context;

      if (address == 0 || (address >= MARKER_MIN && sysprof_address_is_context_switch (address, &context)))
        continue;
      stacks->keys[--pos] = address;
    }
  if (pos == MAX_KEYS)
    return process_node;
  node = _sysprof_stack_stash_add_path (stacks->stash, process_node, &stacks->keys[pos], &stacks->tags[pos],
                                        MAX_KEYS - pos);
  n_after = _sysprof_stack_stash_get_n_nodes (stacks->stash);
  for (guint32 i = n_before; i < n_after; i++)
    g_array_append_val (stacks->times, time);
  (void) created;
  return node;
}

guint32
_sysprof_memory_stacks_process_node (SysprofMemoryStacks *stacks, gint32 pid, gint64 time)
{
  gboolean created;
  guint32  node = _sysprof_stack_stash_child (stacks->stash, SYSPROF_STACK_STASH_ROOT, (guint32) pid, 1, &created);

  if (created)
    g_array_append_val (stacks->times, time);
  return node;
}

guint32
_sysprof_memory_stacks_intern (SysprofMemoryStacks         *stacks,
                               guint32                      process_node,
                               gint32                       pid,
                               const SysprofCaptureAddress *addrs,
                               guint                        n,
                               gint64                       time)
{
  guint64                 a, b;
  SysprofStackCacheEntry *entry;
  guint32                 node;

  if (n == 0)
    return process_node;
  _sysprof_stack_cache_hash (pid, addrs, n, &a, &b);
  entry = _sysprof_stack_cache_lookup (&stacks->cache, a, b);
  if (G_LIKELY (entry->node != 0))
    return entry->node;
  /* A stack of markers and zeros only ends at the process node. */
  node = stacks_add_path (stacks, process_node, addrs, n, time);
  *entry = (SysprofStackCacheEntry){ a, b, node, 0, 0 };
  _sysprof_stack_cache_commit_insert (&stacks->cache);
  return node;
}

guint32
_sysprof_memory_stacks_intern_event (SysprofMemoryStacks          *stacks,
                                     guint32                       process_node,
                                     const SysprofAllocationEvent *event)
{
  SysprofStackKeySlot *slot;
  guint32              node;

  if (event->stack_key == 0 || (slot = _sysprof_stack_key_cache_lookup (&stacks->by_key, event->stack_key)) == NULL)
    return _sysprof_memory_stacks_intern (stacks, process_node, event->pid, event->frames, event->n_frames,
                                          event->time);
  if (G_LIKELY (slot->node != 0 && slot->pid == event->pid))
    return slot->node;
  node = _sysprof_memory_stacks_intern (stacks, process_node, event->pid, event->frames, event->n_frames, event->time);
  if (slot->node == 0)
    *slot = (SysprofStackKeySlot){ event->pid, node };
  return node;
}
