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
  stacks->mask = 4096 - 1;
  stacks->n_used = 0;
  stacks->slots = _sysprof_table_alloc0 (4096 * sizeof (SysprofMemoryStackSlot));
  stacks->keys = g_new (guint64, MAX_KEYS);
  stacks->tags = g_new0 (guint32, MAX_KEYS);
}

void
_sysprof_memory_stacks_clear (SysprofMemoryStacks *stacks)
{
  g_clear_pointer (&stacks->stash, _sysprof_stack_stash_free);
  g_clear_pointer (&stacks->times, g_array_unref);
  if (stacks->slots != NULL)
    _sysprof_table_free (stacks->slots, ((gsize) stacks->mask + 1) * sizeof (SysprofMemoryStackSlot));
  stacks->slots = NULL;
  g_clear_pointer (&stacks->keys, g_free);
  g_clear_pointer (&stacks->tags, g_free);
}

static inline guint64
rotl64 (guint64 v, guint r)
{
  return v << r | v >> (64 - r);
}

static inline guint64
lane_step (guint64 lane, guint64 word)
{
  lane = (lane ^ word) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return rotl64 (lane, 29);
}

/* Four independent lanes (address i feeds lane i % 4) keep the multiplier
 * busy instead of waiting on one chain; two different combinations of the
 * lanes make the 128 bits. */
static inline void
hash_stack (gint32 pid, const SysprofCaptureAddress *addrs, guint n, guint64 *a, guint64 *b)
{
  guint64 l0 = G_GUINT64_CONSTANT (0x452821e638d01377) ^ (guint32) pid;
  guint64 l1 = G_GUINT64_CONSTANT (0xbe5466cf34e90c6c) ^ n;
  guint64 l2 = G_GUINT64_CONSTANT (0xc0ac29b7c97c50dd);
  guint64 l3 = G_GUINT64_CONSTANT (0x3f84d5b5b5470917);
  guint64 x, y;
  guint   i = 0;

  for (; i + 4 <= n; i += 4)
    {
      l0 = lane_step (l0, addrs[i]);
      l1 = lane_step (l1, addrs[i + 1]);
      l2 = lane_step (l2, addrs[i + 2]);
      l3 = lane_step (l3, addrs[i + 3]);
    }
  for (; i < n; i++)
    l0 = lane_step (l0, addrs[i]);

  x = (l0 ^ rotl64 (l2, 32)) * G_GUINT64_CONSTANT (0xff51afd7ed558ccd) +
      (l1 ^ rotl64 (l3, 32)) * G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 29;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  *a = x ^ (x >> 32);
  y = ((l1 + rotl64 (l0, 23)) * G_GUINT64_CONSTANT (0x94d049bb133111eb)) ^
      ((l3 + rotl64 (l2, 41)) * G_GUINT64_CONSTANT (0x2127599bf4325c37));
  y ^= y >> 31;
  y *= G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  *b = y ^ (y >> 29);
}

static inline SysprofMemoryStackSlot *
stack_slot (SysprofMemoryStacks *stacks, guint64 a, guint64 b)
{
  guint32 slot = (guint32) a & stacks->mask;

  for (;;)
    {
      SysprofMemoryStackSlot *s = &stacks->slots[slot];

      if (s->node == 0 || (s->hash_a == a && s->hash_b == b))
        return s;
      slot = (slot + 1) & stacks->mask;
    }
}

static G_GNUC_NO_INLINE void
stacks_grow (SysprofMemoryStacks *stacks)
{
  SysprofMemoryStackSlot *old = stacks->slots;
  guint32                 old_size = stacks->mask + 1;

  if (old_size > G_MAXUINT32 / 2)
    g_error ("memory analysis: more than %u stacks", old_size / 2);
  stacks->mask = old_size * 2 - 1;
  stacks->slots = _sysprof_table_alloc0 ((gsize) old_size * 2 * sizeof (SysprofMemoryStackSlot));
  for (guint32 i = 0; i < old_size; i++)
    if (old[i].node != 0)
      *stack_slot (stacks, old[i].hash_a, old[i].hash_b) = old[i];
  _sysprof_table_free (old, (gsize) old_size * sizeof (SysprofMemoryStackSlot));
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
  SysprofMemoryStackSlot *slot;

  if (n == 0)
    return process_node;
  hash_stack (pid, addrs, n, &a, &b);
  slot = stack_slot (stacks, a, b);
  if (G_LIKELY (slot->node != 0))
    return slot->node;
  *slot = (SysprofMemoryStackSlot){ a, b, stacks_add_path (stacks, process_node, addrs, n, time), 0 };
  if (++stacks->n_used * 2 > stacks->mask)
    stacks_grow (stacks);
  /* A stack of markers and zeros only ends at the process node. */
  return stack_slot (stacks, a, b)->node;
}
