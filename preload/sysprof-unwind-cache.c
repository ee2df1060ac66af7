// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE 1

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "sysprof-unwind-cache.h"
#include "sysprof-unwind-rule.h"

#define FIRST_ENTRIES 1024
/* The rules used last, by address: 1 KiB that stays in cache between the
 * program's allocations where the whole table (up to 1 MiB) does not. */
#define N_RECENT    64
#define MAX_ENTRIES 65536
#define MAX_LEVELS  128
/* libunwind stops at a return address this low (its tdep_trace). */
#define LOWEST_RETURN 0x4000

typedef struct
{
  uint64_t          ip; /* 0: empty */
  SysprofUnwindRule rule;
} Entry;

/* The frames of a walk, one array per field (a walk that reuses the
 * previous one moves and reads them in runs): the return address, the stack
 * pointer and rbp in the frame, where the walk read the caller's rbp (NULL:
 * rbp unchanged), and flags.  RBP_MATTERS: the rest of the walk depends on
 * this frame's rbp (code without frame pointers keeps any value in rbp,
 * which changes from one call to the next, and only frames whose CFA follows
 * rbp care). */
enum
{
  STEPPED = 1 << 0, /* the frame's rule was applied (not the last of a walk cut short) */
  CFA_RBP = 1 << 1,
  RBP_MATTERS = 1 << 2,
};

typedef struct
{
  uint64_t        rip[MAX_LEVELS];
  uint64_t        rsp[MAX_LEVELS];
  uint64_t        rbp[MAX_LEVELS];
  const uint64_t *slot[MAX_LEVELS];
  uint8_t         flags[MAX_LEVELS];
} Levels;

struct _SysprofUnwindCache
{
  Entry   *entries;
  size_t   n_entries;
  size_t   used;
  unsigned generation;
  Entry    recent[N_RECENT];
  /* The previous walk, updated in place by the next. */
  Levels prev;
  int    n_prev;
  bool   prev_complete; /* it ended at the outermost frame, not at max */
  /* Where a walk puts the frames it finds below the previous walk's. */
  Levels inner;

  SysprofUnwindCacheStats stats;
};

static _Atomic unsigned generation;

static void *
map_zeroed (size_t bytes)
{
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  return p == MAP_FAILED ? NULL : p;
}

SysprofUnwindCache *
sysprof_unwind_cache_new (void)
{
  SysprofUnwindCache *self = map_zeroed (sizeof *self);

  if (self == NULL)
    return NULL;
  if ((self->entries = map_zeroed (FIRST_ENTRIES * sizeof (Entry))) == NULL)
    {
      munmap (self, sizeof *self);
      return NULL;
    }
  self->n_entries = FIRST_ENTRIES;
  self->generation = atomic_load_explicit (&generation, memory_order_relaxed);
  return self;
}

void
sysprof_unwind_cache_free (SysprofUnwindCache *self)
{
  if (self == NULL)
    return;
  munmap (self->entries, self->n_entries * sizeof (Entry));
  munmap (self, sizeof *self);
}

void
sysprof_unwind_cache_forget_all (void)
{
  atomic_fetch_add_explicit (&generation, 1, memory_order_relaxed);
}

static void
forget (SysprofUnwindCache *self)
{
  memset (self->entries, 0, self->n_entries * sizeof (Entry));
  memset (self->recent, 0, sizeof self->recent);
  self->used = 0;
  self->n_prev = 0;
}

static inline size_t
slot_of (uint64_t ip, size_t n_entries)
{
  return (size_t) ((ip * UINT64_C (0x9e3779b97f4a7c15)) >> 40) & (n_entries - 1);
}

static inline const Entry *
lookup_table (const SysprofUnwindCache *self, uint64_t ip)
{
  size_t mask = self->n_entries - 1;

  for (size_t i = slot_of (ip, self->n_entries);; i = (i + 1) & mask)
    {
      const Entry *e = &self->entries[i];

      if (e->ip == ip)
        return e;
      if (e->ip == 0)
        return NULL;
    }
}

static inline const Entry *
lookup (SysprofUnwindCache *self, uint64_t ip)
{
  Entry       *r = &self->recent[(ip ^ (ip >> 6)) & (N_RECENT - 1)];
  const Entry *e;

  if (r->ip == ip)
    return r;
  if ((e = lookup_table (self, ip)) != NULL)
    *r = *e;
  return e;
}

static void
insert_entry (Entry *entries, size_t n_entries, uint64_t ip, SysprofUnwindRule rule)
{
  size_t i = slot_of (ip, n_entries);

  while (entries[i].ip != 0 && entries[i].ip != ip)
    i = (i + 1) & (n_entries - 1);
  entries[i].ip = ip;
  entries[i].rule = rule;
}

/* Room for one more address: the table at most half full. */
static void
make_room (SysprofUnwindCache *self)
{
  size_t n_entries = self->n_entries * 2;
  Entry *entries;

  if ((self->used + 1) * 2 <= self->n_entries)
    return;
  if (n_entries > MAX_ENTRIES || (entries = map_zeroed (n_entries * sizeof (Entry))) == NULL)
    {
      forget (self);
      return;
    }
  for (size_t i = 0; i < self->n_entries; i++)
    if (self->entries[i].ip != 0)
      insert_entry (entries, n_entries, self->entries[i].ip, self->entries[i].rule);
  munmap (self->entries, self->n_entries * sizeof (Entry));
  self->entries = entries;
  self->n_entries = n_entries;
}

void
sysprof_unwind_cache_learn (SysprofUnwindCache *self, const uint64_t *addrs, int n_addrs)
{
  for (int i = 0; i < n_addrs; i++)
    {
      SysprofUnwindRule rule;

      if (addrs[i] == 0 || lookup_table (self, addrs[i]) != NULL)
        continue;
      rule = sysprof_unwind_rule_learn (addrs[i]);
      make_room (self);
      insert_entry (self->entries, self->n_entries, addrs[i], rule);
      self->used++;
      self->stats.learned++;
      if (rule.kind == SYSPROF_UNWIND_RULE_FALLBACK)
        self->stats.fallback++;
    }
}

typedef enum
{
  STEP_OK,
  STEP_END,  /* the outermost frame */
  STEP_MISS, /* ask libunwind */
} Step;

/* From frame @i of @l to its caller's, at @i + 1, with the rule of its
 * return address; records in frame @i how. */
static inline Step
step (SysprofUnwindCache *self, Levels *l, int i, uint64_t hi)
{
  const Entry *e = lookup (self, l->rip[i]);
  uint64_t     cfa, rsp = l->rsp[i];

  if (e == NULL)
    return STEP_MISS;
  if (e->rule.kind != SYSPROF_UNWIND_RULE_STANDARD)
    {
      if (e->rule.kind != SYSPROF_UNWIND_RULE_LAST)
        return STEP_MISS;
      l->flags[i] = STEPPED;
      l->slot[i] = NULL;
      return STEP_END;
    }
  cfa = (e->rule.cfa_rbp ? l->rbp[i] : rsp) + (uint64_t) (int64_t) e->rule.cfa_offset;
  /* Only inside this thread's stack, above this frame: a frame elsewhere
   * (sigaltstack, a coroutine's stack) is libunwind's. */
  if (cfa <= rsp || cfa > hi || (cfa & 7) != 0)
    return STEP_MISS;
  l->flags[i] = STEPPED | (e->rule.cfa_rbp ? CFA_RBP : 0);
  l->rip[i + 1] = ((const uint64_t *) (uintptr_t) cfa)[-1];
  l->rsp[i + 1] = cfa;
  if (e->rule.rbp_saved)
    {
      uint64_t slot = cfa + (uint64_t) (int64_t) e->rule.rbp_offset;

      if (slot < rsp)
        return STEP_MISS;
      l->slot[i] = (const uint64_t *) (uintptr_t) slot;
      l->rbp[i + 1] = *l->slot[i];
    }
  else
    {
      l->slot[i] = NULL;
      l->rbp[i + 1] = l->rbp[i];
    }
  l->slot[i + 1] = NULL;
  l->flags[i + 1] = 0;
  return l->rip[i + 1] < LOWEST_RETURN ? STEP_END : STEP_OK;
}

/* Moves frames [@from, @from + @count) of @l to @to. */
static void
move_levels (Levels *l, int to, int from, int count)
{
  if (to == from || count <= 0)
    return;
  memmove (&l->rip[to], &l->rip[from], (size_t) count * sizeof l->rip[0]);
  memmove (&l->rsp[to], &l->rsp[from], (size_t) count * sizeof l->rsp[0]);
  memmove (&l->rbp[to], &l->rbp[from], (size_t) count * sizeof l->rbp[0]);
  memmove (&l->slot[to], &l->slot[from], (size_t) count * sizeof l->slot[0]);
  memmove (&l->flags[to], &l->flags[from], (size_t) count * sizeof l->flags[0]);
}

int
sysprof_unwind_cache_walk (SysprofUnwindCache       *self,
                           const void               *ret,
                           const void               *frame,
                           const SysprofStackBounds *bounds,
                           uint64_t                 *addrs,
                           int                       max,
                           bool                     *same_as_last)
{
  Levels  *prev = &self->prev, *in = &self->inner;
  uint64_t fp = (uintptr_t) frame;
  unsigned gen = atomic_load_explicit (&generation, memory_order_relaxed);
  bool     complete = false;
  int      k = 0, m = 0, n, n_prev = self->n_prev, reused = 0, top;
  Step     r = STEP_OK;

  if (same_as_last != NULL)
    *same_as_last = false;
  if (gen != self->generation)
    {
      forget (self);
      self->generation = gen;
      n_prev = 0;
    }
  if (max > MAX_LEVELS - 1)
    max = MAX_LEVELS - 1;
  if (max <= 0)
    return 0;
  /* The hook's own frame (frame pointers): the saved rbp, then its return
   * address; its caller's stack pointer is just above. */
  if (fp < bounds->lo || fp + 16 > bounds->hi || (fp & 7) != 0)
    goto miss;
  in->rip[0] = (uintptr_t) ret;
  in->rsp[0] = fp + 16;
  in->rbp[0] = *(const uint64_t *) (uintptr_t) fp;
  in->slot[0] = NULL;
  in->flags[0] = 0;

  /* The frames below the previous walk's, with the rules, until one is the
   * same as one of the previous walk: the previous walk's frames are in
   * stack order, and the first one not below is the only candidate. */
  for (;;)
    {
      while (m < n_prev && prev->rsp[m] < in->rsp[k])
        m++;
      if (m < n_prev && prev->rsp[m] == in->rsp[k] && prev->rip[m] == in->rip[k] &&
          (prev->rbp[m] == in->rbp[k] || !(prev->flags[m] & RBP_MATTERS)))
        break;
      if (k + 1 == max)
        {
          m = n_prev;
          k++;
          break;
        }
      if ((r = step (self, in, k, bounds->hi)) == STEP_MISS)
        goto miss;
      k++;
      if (r == STEP_END)
        {
          complete = true;
          m = n_prev;
          break;
        }
    }

  if (m < n_prev)
    {
      /* The same frame, in the same state as far as the rest of the walk
       * can tell: the previous walk's frames above it still hold as long
       * as every return address the walk read is still there, and every
       * rbp it restored has its value where the value matters (one that
       * does not matter is taken as it is now). */
      uint64_t rbp = in->rbp[k];
      int      j;

      move_levels (prev, k, m, n_prev - m);
      n_prev += k - m;
      memcpy (prev->rip, in->rip, (size_t) k * sizeof in->rip[0]);
      memcpy (prev->rsp, in->rsp, (size_t) k * sizeof in->rsp[0]);
      memcpy (prev->rbp, in->rbp, (size_t) k * sizeof in->rbp[0]);
      memcpy (prev->slot, in->slot, (size_t) k * sizeof in->slot[0]);
      memcpy (prev->flags, in->flags, (size_t) k * sizeof in->flags[0]);
      prev->rbp[k] = rbp;
      for (j = k; j + 1 < n_prev && j + 1 < max; j++)
        {
          if (((const uint64_t *) (uintptr_t) prev->rsp[j + 1])[-1] != prev->rip[j + 1])
            break;
          if (prev->slot[j] != NULL)
            {
              uint64_t saved = *prev->slot[j];

              if (saved != prev->rbp[j + 1] && (prev->flags[j + 1] & RBP_MATTERS))
                break;
              prev->rbp[j + 1] = saved;
            }
          else
            prev->rbp[j + 1] = prev->rbp[j];
        }
      self->stats.reused++;
      reused = j - k + 1;
      n = j + 1;
      top = k - 1;
      if (j + 1 == n_prev && self->prev_complete)
        complete = true;
      else if (n < max)
        {
          /* Changed above frame j (or the previous walk stopped there):
           * walk on from it. */
          for (;;)
            {
              if ((r = step (self, prev, n - 1, bounds->hi)) == STEP_MISS)
                {
                  self->n_prev = 0;
                  goto miss;
                }
              if (r == STEP_END)
                {
                  complete = true;
                  break;
                }
              if (++n == max)
                break;
            }
          top = n - 1;
        }
    }
  else
    {
      n = k;
      top = n - 1;
      memcpy (prev->rip, in->rip, (size_t) n * sizeof in->rip[0]);
      memcpy (prev->rsp, in->rsp, (size_t) n * sizeof in->rsp[0]);
      memcpy (prev->rbp, in->rbp, (size_t) n * sizeof in->rbp[0]);
      memcpy (prev->slot, in->slot, (size_t) n * sizeof in->slot[0]);
      memcpy (prev->flags, in->flags, (size_t) n * sizeof in->flags[0]);
    }

  /* Top down from the highest frame this walk found with a rule (the
   * reused ones keep theirs, their callers being the same): a frame's rbp
   * matters if its CFA follows rbp, or if it passes rbp on unchanged to a
   * frame where it matters; a frame not stepped from (the last of a walk
   * cut short) may need it later. */
  for (int i = top; i >= 0; i--)
    {
      uint8_t f = prev->flags[i] & (STEPPED | CFA_RBP);

      if (!(f & STEPPED) || (f & CFA_RBP) || (prev->slot[i] == NULL && i + 1 < n && (prev->flags[i + 1] & RBP_MATTERS)))
        f |= RBP_MATTERS;
      prev->flags[i] = f;
    }
  memcpy (addrs, prev->rip, (size_t) n * sizeof addrs[0]);
  if (same_as_last != NULL)
    *same_as_last = k == 0 && n == self->n_prev && reused == n;
  self->n_prev = n;
  self->prev_complete = complete;
  self->stats.walks++;
  self->stats.frames_stepped += (uint64_t) (n - reused);
  self->stats.frames_reused += (uint64_t) reused;
  return n;

miss:
  self->stats.misses++;
  return -1;
}

void
sysprof_unwind_cache_get_stats (const SysprofUnwindCache *self, SysprofUnwindCacheStats *stats)
{
  *stats = self->stats;
}
