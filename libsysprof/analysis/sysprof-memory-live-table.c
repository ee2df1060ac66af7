// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-memory-live-table-private.h"
#include "sysprof-stack-stash-private.h"

#define INITIAL_SLOTS 4096u

static inline guint64
home_slot (const SysprofMemoryLiveTable *table, gint32 pid, guint64 address)
{
  return _sysprof_memory_live_table_home (table, pid, address);
}

void
_sysprof_memory_live_table_init (SysprofMemoryLiveTable *table)
{
  table->mask = INITIAL_SLOTS - 1;
  table->n_entries = 0;
  table->entries = _sysprof_table_alloc0 (INITIAL_SLOTS * sizeof (SysprofMemoryLiveEntry));
}

void
_sysprof_memory_live_table_clear (SysprofMemoryLiveTable *table)
{
  if (table->entries != NULL)
    _sysprof_table_free (table->entries, (table->mask + 1) * sizeof (SysprofMemoryLiveEntry));
  table->entries = NULL;
  table->mask = 0;
  table->n_entries = 0;
}

SysprofMemoryLiveEntry *
_sysprof_memory_live_table_lookup (SysprofMemoryLiveTable *table, gint32 pid, guint64 address)
{
  guint64 slot = home_slot (table, pid, address);

  for (;;)
    {
      SysprofMemoryLiveEntry *e = &table->entries[slot];

      if (e->address == 0 || (e->address == address && e->pid == pid))
        return e;
      slot = (slot + 1) & table->mask;
    }
}

static G_GNUC_NO_INLINE void
grow (SysprofMemoryLiveTable *table)
{
  SysprofMemoryLiveEntry *old = table->entries;
  guint64                 old_size = table->mask + 1;

  table->mask = old_size * 2 - 1;
  table->entries = _sysprof_table_alloc0 (old_size * 2 * sizeof (SysprofMemoryLiveEntry));
  for (guint64 i = 0; i < old_size; i++)
    if (old[i].address != 0)
      *_sysprof_memory_live_table_lookup (table, old[i].pid, old[i].address) = old[i];
  _sysprof_table_free (old, old_size * sizeof (SysprofMemoryLiveEntry));
}

void
_sysprof_memory_live_table_commit_insert (SysprofMemoryLiveTable *table)
{
  if (++table->n_entries * 2 > table->mask)
    grow (table);
}

void
_sysprof_memory_live_table_remove (SysprofMemoryLiveTable *table, SysprofMemoryLiveEntry *entry)
{
  guint64 hole = (guint64) (entry - table->entries);
  guint64 slot = hole;

  /* Backward shift: every entry of the run after the hole that may live in
   * the hole (its home is not cyclically within (hole, slot]) moves there,
   * and the hole moves on. */
  for (;;)
    {
      guint64 home;

      slot = (slot + 1) & table->mask;
      if (table->entries[slot].address == 0)
        break;
      home = home_slot (table, table->entries[slot].pid, table->entries[slot].address);
      if (((slot - home) & table->mask) >= ((slot - hole) & table->mask))
        {
          table->entries[hole] = table->entries[slot];
          hole = slot;
        }
    }
  table->entries[hole].address = 0;
  table->n_entries--;
}
