// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-stack-cache-private.h"

#define INITIAL_SIZE 4096

void
_sysprof_stack_cache_init (SysprofStackCache *cache)
{
  cache->entries = _sysprof_table_alloc0 (INITIAL_SIZE * sizeof (SysprofStackCacheEntry));
  cache->mask = INITIAL_SIZE - 1;
  cache->n_used = 0;
}

void
_sysprof_stack_cache_clear (SysprofStackCache *cache)
{
  if (cache->entries != NULL)
    _sysprof_table_free (cache->entries, ((gsize) cache->mask + 1) * sizeof (SysprofStackCacheEntry));
  cache->entries = NULL;
  cache->mask = 0;
  cache->n_used = 0;
}

static G_GNUC_NO_INLINE void
grow (SysprofStackCache *cache)
{
  SysprofStackCacheEntry *old = cache->entries;
  guint32                 old_size = cache->mask + 1;

  if (old_size > G_MAXUINT32 / 2)
    g_error ("stack cache: more than %u stacks", old_size / 2);
  cache->mask = old_size * 2 - 1;
  cache->entries = _sysprof_table_alloc0 ((gsize) old_size * 2 * sizeof (SysprofStackCacheEntry));
  for (guint32 i = 0; i < old_size; i++)
    if (old[i].node != 0)
      *_sysprof_stack_cache_lookup (cache, old[i].hash_a, old[i].hash_b) = old[i];
  _sysprof_table_free (old, (gsize) old_size * sizeof (SysprofStackCacheEntry));
}

void
_sysprof_stack_cache_commit_insert (SysprofStackCache *cache)
{
  if (++cache->n_used * 2 > cache->mask)
    grow (cache);
}

void
_sysprof_stack_key_cache_clear (SysprofStackKeyCache *cache)
{
  g_clear_pointer (&cache->slots, g_free);
  cache->n_slots = 0;
}

SysprofStackKeySlot *
_sysprof_stack_key_cache_grow (SysprofStackKeyCache *cache, guint64 key)
{
  guint64 n = MAX (cache->n_slots, 1024);

  if (key >= SYSPROF_STACK_KEY_CACHE_MAX)
    return NULL;
  while (n <= key)
    n *= 2;
  cache->slots = g_renew (SysprofStackKeySlot, cache->slots, n);
  memset (cache->slots + cache->n_slots, 0, (n - cache->n_slots) * sizeof *cache->slots);
  cache->n_slots = n;
  return &cache->slots[key];
}
