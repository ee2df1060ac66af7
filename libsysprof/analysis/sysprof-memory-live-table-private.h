// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-memory-live-table-private.h is private to libsysprof/analysis."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* The allocations that are live while a capture is read, keyed by (pid,
 * address): millions of inserts and removals per second, so an open
 * addressing table of plain 32-byte entries rather than a GHashTable with
 * boxed keys.  Linear probing, at most half full, and removal by backward
 * shift (no tombstones: a long run of alloc/free pairs never degrades the
 * probes).  Address 0 marks an empty slot; callers never insert it (a null
 * pointer is not an allocation). */
typedef struct
{
  guint64 address; /* 0: empty slot */
  guint64 size;
  gint32  pid;
  gint32  tid;   /* the allocating thread */
  guint32 stack; /* what the caller interned the stack as */
  guint32 padding;
} SysprofMemoryLiveEntry;

G_STATIC_ASSERT (sizeof (SysprofMemoryLiveEntry) == 32);

typedef struct
{
  SysprofMemoryLiveEntry *entries;
  guint64                 mask;
  guint64                 n_entries;
} SysprofMemoryLiveTable;

/* The slot where (@pid, @address) is looked for first.  Addresses are
 * grouped by KiB: the 64 16-byte steps of one KiB take 64 neighbouring
 * slots, and the KiBs are scattered by a multiplicative hash.  Blocks that
 * an allocator hands out one after the other then share cache lines of the
 * table, where a hash of the whole address sent every event to a line of
 * its own (most lookups missed the cache).  The step within the KiB is
 * mixed with the KiB's hash, so that blocks aligned alike in every KiB (on
 * 1 KiB or a page) do not all start at the same offset of their groups and
 * pile up; an address that is not 16-byte aligned (no allocator gives one;
 * a hostile capture may) is hashed whole. */
static inline guint64
_sysprof_memory_live_table_home (const SysprofMemoryLiveTable *table, gint32 pid, guint64 address)
{
  guint64 p = (guint64) (guint32) pid * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 h;

  if (G_UNLIKELY (address & 15))
    {
      h = (address ^ p) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
      return (h ^ (h >> 31)) & table->mask;
    }
  h = ((address >> 10) ^ p) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  h ^= h >> 31;
  return ((h << 6) | (((address >> 4) ^ (h >> 58)) & 63)) & table->mask;
}

/* Asks for the cache line of (@pid, @address)'s slot, ahead of a lookup:
 * lookups of a batch of records are random accesses, and a few in flight
 * at once wait for memory together rather than one after the other. */
static inline void
_sysprof_memory_live_table_prefetch (const SysprofMemoryLiveTable *table, gint32 pid, guint64 address)
{
  __builtin_prefetch (&table->entries[_sysprof_memory_live_table_home (table, pid, address)], 1);
}

void _sysprof_memory_live_table_init (SysprofMemoryLiveTable *table);
void _sysprof_memory_live_table_clear (SysprofMemoryLiveTable *table);
/* The entry of (@pid, @address) when live, else the empty slot where it
 * would go: fill it in (address last) and call _commit_insert().  Valid
 * until the next insert or removal. */
SysprofMemoryLiveEntry *_sysprof_memory_live_table_lookup (SysprofMemoryLiveTable *table, gint32 pid, guint64 address);
/* After an empty slot from _lookup() was filled. */
void _sysprof_memory_live_table_commit_insert (SysprofMemoryLiveTable *table);
/* Empties @entry (an occupied slot from _lookup()). */
void _sysprof_memory_live_table_remove (SysprofMemoryLiveTable *table, SysprofMemoryLiveEntry *entry);

G_END_DECLS
