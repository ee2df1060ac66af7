// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE 1

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "sysprof-stack-table.h"

/* Starting sizes: a thread that allocates from a handful of places maps
 * 44 KiB.  Each array doubles when it must, up to the bounds. */
#define FIRST_SLOTS   1024
#define FIRST_ENTRIES 512
#define FIRST_FRAMES  4096
/* Open addressing, at most half full: probes stay short. */
#define MAX_SLOTS (2u * (SYSPROF_STACK_TABLE_MAX_STACKS + 1))

/* Where a stack's addresses are, by id. */
typedef struct
{
  uint32_t first; /* index into frames */
  uint32_t n;
} Entry;

struct _SysprofStackTable
{
  /* (32 high bits of the hash << 32) | id; 0 is empty (ids start at 1). */
  uint64_t    *slots;
  size_t       n_slots;
  Entry       *entries; /* entries[id], entries[0] unused */
  size_t       n_entries;
  uint64_t    *frames;
  size_t       n_frames; /* room */
  size_t       used_frames;
  unsigned int n_stacks;
  unsigned int n_resets;
  uint64_t     epoch;
};

_Static_assert((uint64_t) SYSPROF_STACK_TABLE_MAX_STACKS * 2 <= MAX_SLOTS, "slots for every stack");

/* Each table maps up to FREE_BYTES freely (what a table could map at most
 * before the bounds were raised: a thread always gets that much); what the
 * tables of the process map beyond it together is charged to a budget. */
#define FREE_BYTES ((size_t) 10 << 20)

static atomic_size_t process_charged;
static atomic_size_t process_budget = SYSPROF_STACK_TABLE_PROCESS_BUDGET;

static size_t
over (size_t total)
{
  return total > FREE_BYTES ? total - FREE_BYTES : 0;
}

/* Takes @bytes of the budget; false (nothing taken) when they are not left.
 * A compare-and-swap, so that a thread never sees another's refused
 * attempt as spent. */
static bool
reserve (size_t bytes)
{
  size_t now = atomic_load (&process_charged);

  do
    if (bytes > atomic_load (&process_budget) || now > atomic_load (&process_budget) - bytes)
      return false;
  while (!atomic_compare_exchange_weak (&process_charged, &now, now + bytes));
  return true;
}

/* Growing a table that maps @total bytes by @more: charges what passes its
 * free part; false when the budget cannot pay. */
static bool
charge (size_t total, size_t more)
{
  size_t need = over (total + more) - over (total);

  return need == 0 || reserve (need);
}

/* Shrinking a table that maps @total bytes by @less. */
static void
discharge (size_t total, size_t less)
{
  size_t give = over (total) - over (total - less);

  if (give > 0)
    atomic_fetch_sub (&process_charged, give);
}

void
sysprof_stack_table_set_process_budget (size_t bytes)
{
  atomic_store (&process_budget, bytes);
}

size_t
sysprof_stack_table_get_process_charged (void)
{
  return atomic_load (&process_charged);
}

static void *
map_zeroed (size_t bytes)
{
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  return p == MAP_FAILED ? NULL : p;
}

/* Doubles an array of @self until it holds @need elements of @size bytes,
 * at most @max; false (nothing changed) when it cannot. */
static bool
grow (SysprofStackTable *self, void **array, size_t *count, size_t size, size_t need, size_t max)
{
  size_t total = sysprof_stack_table_get_mapped (self);
  size_t new_count = *count;
  void  *p;

  if (need <= *count)
    return true;
  if (need > max)
    return false;
  while (new_count < need)
    new_count *= 2;
  if (new_count > max)
    new_count = max;
  if (!charge (total, (new_count - *count) * size))
    return false;
  p = mremap (*array, *count * size, new_count * size, MREMAP_MAYMOVE);
  if (p == MAP_FAILED)
    {
      discharge (total + (new_count - *count) * size, (new_count - *count) * size);
      return false;
    }
  *array = p;
  *count = new_count;
  return true;
}

/* Four independent multiply chains, so that a stack of 40 addresses costs
 * ten multiplications of latency rather than forty; then a final mix so
 * that both the slot (low bits) and the tag (high bits) depend on all. */
static inline uint64_t
hash_stack (const uint64_t *addrs, unsigned int n)
{
  const uint64_t k = UINT64_C (0x9e3779b97f4a7c15);
  uint64_t       l0 = n, l1 = UINT64_C (0x243f6a8885a308d3), l2 = UINT64_C (0x13198a2e03707344),
           l3 = UINT64_C (0xa4093822299f31d0);
  unsigned int i = 0;
  uint64_t     h;

  for (; i + 4 <= n; i += 4)
    {
      l0 = (l0 ^ addrs[i]) * k;
      l1 = (l1 ^ addrs[i + 1]) * k;
      l2 = (l2 ^ addrs[i + 2]) * k;
      l3 = (l3 ^ addrs[i + 3]) * k;
    }
  for (; i < n; i++)
    l0 = (l0 ^ addrs[i]) * k;
  h = l0 ^ (l1 >> 7 | l1 << 57) ^ (l2 >> 19 | l2 << 45) ^ (l3 >> 31 | l3 << 33);
  h ^= h >> 29;
  h *= UINT64_C (0xbf58476d1ce4e5b9);
  h ^= h >> 32;
  return h;
}

SysprofStackTable *
sysprof_stack_table_new (void)
{
  SysprofStackTable *self = map_zeroed (sizeof *self);

  if (self == NULL)
    return NULL;
  self->n_slots = FIRST_SLOTS;
  self->n_entries = FIRST_ENTRIES;
  self->n_frames = FIRST_FRAMES;
  self->slots = map_zeroed (self->n_slots * sizeof *self->slots);
  self->entries = map_zeroed (self->n_entries * sizeof *self->entries);
  self->frames = map_zeroed (self->n_frames * sizeof *self->frames);
  if (self->slots == NULL || self->entries == NULL || self->frames == NULL)
    {
      int saved = errno;

      sysprof_stack_table_free (self);
      errno = saved;
      return NULL;
    }
  return self;
}

void
sysprof_stack_table_free (SysprofStackTable *self)
{
  if (self == NULL)
    return;
  if (self->slots != NULL && self->entries != NULL && self->frames != NULL)
    discharge (sysprof_stack_table_get_mapped (self), sysprof_stack_table_get_mapped (self));
  if (self->slots != NULL)
    munmap (self->slots, self->n_slots * sizeof *self->slots);
  if (self->entries != NULL)
    munmap (self->entries, self->n_entries * sizeof *self->entries);
  if (self->frames != NULL)
    munmap (self->frames, self->n_frames * sizeof *self->frames);
  munmap (self, sizeof *self);
}

void
sysprof_stack_table_clear (SysprofStackTable *self)
{
  memset (self->slots, 0, self->n_slots * sizeof *self->slots);
  self->n_stacks = 0;
  self->used_frames = 0;
  self->epoch++;
}

/* A bigger slot array, the known stacks hashed into it again. */
static bool
grow_slots (SysprofStackTable *self)
{
  size_t    total = sysprof_stack_table_get_mapped (self);
  size_t    n_slots = self->n_slots * 2;
  uint64_t *slots;

  if (n_slots > MAX_SLOTS || !charge (total, n_slots * sizeof *slots))
    return false;
  if ((slots = map_zeroed (n_slots * sizeof *slots)) == NULL)
    {
      discharge (total + n_slots * sizeof *slots, n_slots * sizeof *slots);
      return false;
    }
  for (uint32_t id = 1; id <= self->n_stacks; id++)
    {
      const Entry *e = &self->entries[id];
      uint64_t     h = hash_stack (self->frames + e->first, e->n);
      size_t       i = h & (n_slots - 1);

      while (slots[i] != 0)
        i = (i + 1) & (n_slots - 1);
      slots[i] = (h & UINT64_C (0xffffffff00000000)) | id;
    }
  munmap (self->slots, self->n_slots * sizeof *self->slots);
  discharge (total + n_slots * sizeof *slots, self->n_slots * sizeof *self->slots);
  self->slots = slots;
  self->n_slots = n_slots;
  return true;
}

/* Room for one more stack of @n addresses: grows, or else empties the table
 * (which always leaves room: the first sizes hold a deepest stack). */
static bool
make_room (SysprofStackTable *self, unsigned int n)
{
  uint32_t id = self->n_stacks + 1;

  if (id <= SYSPROF_STACK_TABLE_MAX_STACKS && self->used_frames + n <= SYSPROF_STACK_TABLE_MAX_FRAMES &&
      grow (self, (void **) &self->entries, &self->n_entries, sizeof *self->entries, (size_t) id + 1,
            SYSPROF_STACK_TABLE_MAX_STACKS + 1) &&
      grow (self, (void **) &self->frames, &self->n_frames, sizeof *self->frames, self->used_frames + n,
            SYSPROF_STACK_TABLE_MAX_FRAMES) &&
      ((size_t) id * 2 <= self->n_slots || grow_slots (self)))
    return true;
  sysprof_stack_table_clear (self);
  self->n_resets++;
  return false;
}

uint32_t
sysprof_stack_table_lookup (SysprofStackTable *self, const uint64_t *addrs, unsigned int n_addrs, unsigned int *flags)
{
  uint64_t h, tag;
  size_t   mask, i;
  uint32_t id;
  Entry   *e;

  *flags = 0;
  if (n_addrs == 0)
    return 0;
  if (n_addrs > SYSPROF_STACK_TABLE_MAX_DEPTH)
    n_addrs = SYSPROF_STACK_TABLE_MAX_DEPTH;
  h = hash_stack (addrs, n_addrs);
  tag = h & UINT64_C (0xffffffff00000000);
  mask = self->n_slots - 1;
  for (i = h & mask; self->slots[i] != 0; i = (i + 1) & mask)
    {
      uint64_t s = self->slots[i];

      if ((s & UINT64_C (0xffffffff00000000)) != tag)
        continue;
      e = &self->entries[(uint32_t) s];
      if (e->n == n_addrs && memcmp (self->frames + e->first, addrs, n_addrs * sizeof *addrs) == 0)
        return (uint32_t) s;
    }

  /* New.  Growing or emptying the table moves the free slot: look again. */
  if (!make_room (self, n_addrs))
    *flags |= SYSPROF_STACK_TABLE_RESET;
  if (self->n_slots - 1 != mask || (*flags & SYSPROF_STACK_TABLE_RESET))
    {
      mask = self->n_slots - 1;
      for (i = h & mask; self->slots[i] != 0; i = (i + 1) & mask)
        ;
    }
  id = ++self->n_stacks;
  e = &self->entries[id];
  e->first = (uint32_t) self->used_frames;
  e->n = n_addrs;
  memcpy (self->frames + self->used_frames, addrs, n_addrs * sizeof *addrs);
  self->used_frames += n_addrs;
  self->slots[i] = tag | id;
  *flags |= SYSPROF_STACK_TABLE_NEW;
  return id;
}

unsigned int
sysprof_stack_table_get_n_stacks (const SysprofStackTable *self)
{
  return self->n_stacks;
}

size_t
sysprof_stack_table_get_mapped (const SysprofStackTable *self)
{
  return sizeof *self + self->n_slots * sizeof *self->slots + self->n_entries * sizeof *self->entries +
         self->n_frames * sizeof *self->frames;
}

unsigned int
sysprof_stack_table_get_n_resets (const SysprofStackTable *self)
{
  return self->n_resets;
}

uint64_t
sysprof_stack_table_get_epoch (const SysprofStackTable *self)
{
  return self->epoch;
}
