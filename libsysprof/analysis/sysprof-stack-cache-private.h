// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-stack-cache-private.h is private to libsysprof/analysis."
#endif

#include <sysprof-capture.h>

#include "sysprof-stack-stash-private.h"

G_BEGIN_DECLS

/* Raw stacks seen before: most samples and allocations repeat one, and a
 * 128-bit hash of the raw stack (pid and addresses, as the frame has them)
 * finds the node it was interned as in one probe, without decoding contexts,
 * reversing the addresses or walking the tree.  Open addressing on the first
 * half of the hash, linear probing, at most half full.  Distinct stacks
 * colliding on all 128 bits is not a practical concern (it could only
 * misplace counts, never memory).  Shared by the callgraph and the memory
 * analysis. */
typedef struct
{
  guint64 hash_a;
  guint64 hash_b;
  guint32 node; /* 0: empty slot (the root ends no stack) */
  guint32 padding;
  guint64 count; /* the caller's: the callgraph counts samples here */
} SysprofStackCacheEntry;

G_STATIC_ASSERT (sizeof (SysprofStackCacheEntry) == 32);

typedef struct
{
  SysprofStackCacheEntry *entries;
  guint32                 mask;
  guint32                 n_used;
} SysprofStackCache;

void _sysprof_stack_cache_init (SysprofStackCache *cache);
void _sysprof_stack_cache_clear (SysprofStackCache *cache);
/* After an empty entry from _lookup() was filled (node last): may grow the
 * table, so entries looked up before are no longer valid. */
void _sysprof_stack_cache_commit_insert (SysprofStackCache *cache);

static inline guint64
_sysprof_stack_cache_rotl (guint64 v, guint r)
{
  return v << r | v >> (64 - r);
}

static inline guint64
_sysprof_stack_cache_lane (guint64 lane, guint64 word)
{
  return _sysprof_stack_cache_rotl ((lane ^ word) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15), 29);
}

/* Four independent lanes (address i feeds lane i % 4) keep the multiplier
 * busy instead of waiting on one chain; two different combinations of the
 * lanes, each ending in a multiply-xorshift, make the 128 bits.  Inline: it
 * runs once per sample or allocation. */
static inline void
_sysprof_stack_cache_hash (gint32 pid, const SysprofCaptureAddress *addrs, guint n, guint64 *a, guint64 *b)
{
  guint64 l0 = G_GUINT64_CONSTANT (0x452821e638d01377) ^ (guint32) pid;
  guint64 l1 = G_GUINT64_CONSTANT (0xbe5466cf34e90c6c) ^ n;
  guint64 l2 = G_GUINT64_CONSTANT (0xc0ac29b7c97c50dd);
  guint64 l3 = G_GUINT64_CONSTANT (0x3f84d5b5b5470917);
  guint64 x, y;
  guint   i = 0;

  for (; i + 4 <= n; i += 4)
    {
      l0 = _sysprof_stack_cache_lane (l0, addrs[i]);
      l1 = _sysprof_stack_cache_lane (l1, addrs[i + 1]);
      l2 = _sysprof_stack_cache_lane (l2, addrs[i + 2]);
      l3 = _sysprof_stack_cache_lane (l3, addrs[i + 3]);
    }
  for (; i < n; i++)
    l0 = _sysprof_stack_cache_lane (l0, addrs[i]);

  x = (l0 ^ _sysprof_stack_cache_rotl (l2, 32)) * G_GUINT64_CONSTANT (0xff51afd7ed558ccd) +
      (l1 ^ _sysprof_stack_cache_rotl (l3, 32)) * G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 29;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  *a = x ^ (x >> 32);
  y = ((l1 + _sysprof_stack_cache_rotl (l0, 23)) * G_GUINT64_CONSTANT (0x94d049bb133111eb)) ^
      ((l3 + _sysprof_stack_cache_rotl (l2, 41)) * G_GUINT64_CONSTANT (0x2127599bf4325c37));
  y ^= y >> 31;
  y *= G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  *b = y ^ (y >> 29);
}

/* The entry of hash (@a, @b), or the empty one where it would go. */
static inline SysprofStackCacheEntry *
_sysprof_stack_cache_lookup (SysprofStackCache *cache, guint64 a, guint64 b)
{
  guint32 slot = (guint32) a & cache->mask;

  for (;;)
    {
      SysprofStackCacheEntry *e = &cache->entries[slot];

      if (e->node == 0 || (e->hash_a == a && e->hash_b == b))
        return e;
      slot = (slot + 1) & cache->mask;
    }
}

/* Stream events name their stack by a key (SysprofAllocationEvent's
 * stack_key: small, sequential, never reused within one cursor): the node of
 * (pid, key) is found in a table indexed by the key, without hashing the
 * frames.  The same stack in two processes (one key) takes the slot of the
 * first; keys at or past SYSPROF_STACK_KEY_CACHE_MAX (a hostile capture
 * defining stacks without end) are not kept.  Either way the caller falls
 * back on the stack cache. */
#define SYSPROF_STACK_KEY_CACHE_MAX (G_GUINT64_CONSTANT (1) << 24)

typedef struct
{
  gint32  pid;
  guint32 node; /* 0: not known yet */
} SysprofStackKeySlot;

typedef struct
{
  SysprofStackKeySlot *slots;
  guint64              n_slots;
} SysprofStackKeyCache;

void                 _sysprof_stack_key_cache_clear (SysprofStackKeyCache *cache);
SysprofStackKeySlot *_sysprof_stack_key_cache_grow (SysprofStackKeyCache *cache, guint64 key);

/* The slot of @key (its node 0 when it is new, then the caller sets both
 * fields), or NULL when the key is not kept. */
static inline SysprofStackKeySlot *
_sysprof_stack_key_cache_lookup (SysprofStackKeyCache *cache, guint64 key)
{
  if (G_LIKELY (key < cache->n_slots))
    return &cache->slots[key];
  return _sysprof_stack_key_cache_grow (cache, key);
}

G_END_DECLS
