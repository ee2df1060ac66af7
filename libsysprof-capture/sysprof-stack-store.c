// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The distinct stacks of the memory streams a reader holds.  Threads of one
 * program define the same stacks over and over (a pool of workers, each with
 * its own ids): each is kept once, found by hashing its frames.  When the
 * last id naming a stack goes (a reset, the stream's end) the stack stays as
 * a zombie: a tracker whose table filled up defines the same stacks again
 * after its reset, and finding the old copy keeps its key, so what consumers
 * cached per key stays valid (on a python3 capture, nine definitions per
 * distinct stack).  Zombies are freed oldest first, one at a time (a list
 * through them), when their frames pass a budget or a new stack needs their
 * room: each costs O(1) whatever a hostile capture does.  Bounded, since the
 * ids come from a possibly hostile capture. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include "sysprof-stack-store-private.h"
#include "sysprof-capture-util-private.h"

struct _SysprofStackStore
{
  /* Open addressing, linear probing, at most half full; NULL is empty. */
  SysprofStoredStack **slots;
  size_t               mask;
  size_t               n_stacks;
  size_t               n_frames;
  size_t               n_refs;
  size_t               max_refs;
  size_t               max_frames;
  uint64_t             next_key;
  /* Stacks no id names (refs 0), kept while their cost (frames, plus
   * ZOMBIE_OVERHEAD each for the header and slot) is within the budget. */
  size_t              n_zombies;
  size_t              zombie_frames;
  size_t              zombie_cost;
  size_t              zombie_budget;
  SysprofStoredStack *oldest_zombie; /* the list's head: freed first */
  SysprofStoredStack *newest_zombie;
};

/* At most a quarter of the frames bound, and 64 MiB. */
#define ZOMBIE_BUDGET_MAX ((size_t) 1 << 23)
#define ZOMBIE_OVERHEAD   4

SysprofStackStore *
_sysprof_stack_store_new (size_t max_refs, size_t max_frames)
{
  SysprofStackStore *self = calloc (1, sizeof *self);

  if (self == NULL)
    return NULL;
  self->max_refs = max_refs;
  self->max_frames = max_frames;
  self->next_key = 1;
  self->zombie_budget = max_frames / 4 < ZOMBIE_BUDGET_MAX ? max_frames / 4 : ZOMBIE_BUDGET_MAX;
  return self;
}

void
_sysprof_stack_store_free (SysprofStackStore *self)
{
  if (self == NULL)
    return;
  if (self->slots != NULL)
    for (size_t i = 0; i <= self->mask; i++)
      free (self->slots[i]);
  free (self->slots);
  free (self);
}

static uint64_t
hash_frames (const SysprofCaptureAddress *frames, uint32_t n_frames)
{
  uint64_t h = 0x9E3779B97F4A7C15u ^ n_frames;

  for (uint32_t i = 0; i < n_frames; i++)
    h = (h ^ frames[i]) * 0xBF58476D1CE4E5B9u;
  return h ^ (h >> 31);
}

/* Hashes the stacks into @size slots. */
static bool
store_rehash (SysprofStackStore *self, size_t size)
{
  SysprofStoredStack **slots = calloc (size, sizeof *slots);

  if (slots == NULL)
    return false;
  if (self->slots != NULL)
    for (size_t i = 0; i <= self->mask; i++)
      {
        SysprofStoredStack *s = self->slots[i];
        size_t              j;

        if (s == NULL)
          continue;
        for (j = s->hash & (size - 1); slots[j] != NULL; j = (j + 1) & (size - 1))
          ;
        slots[j] = s;
      }
  free (self->slots);
  self->slots = slots;
  self->mask = size - 1;
  return true;
}

static void
zombie_unlink (SysprofStackStore *self, SysprofStoredStack *s)
{
  if (s->zprev != NULL)
    s->zprev->znext = s->znext;
  else
    self->oldest_zombie = s->znext;
  if (s->znext != NULL)
    s->znext->zprev = s->zprev;
  else
    self->newest_zombie = s->zprev;
  s->zprev = s->znext = NULL;
  self->n_zombies--;
  self->zombie_frames -= s->n_frames;
  self->zombie_cost -= s->n_frames + ZOMBIE_OVERHEAD;
}

/* Frees the oldest zombie: out of the table by backward shift (lookups need
 * no tombstones), then out of memory. */
static void
evict_oldest_zombie (SysprofStackStore *self)
{
  SysprofStoredStack *stack = self->oldest_zombie;
  size_t              i, j;

  zombie_unlink (self, stack);
  for (i = stack->hash & self->mask; self->slots[i] != stack; i = (i + 1) & self->mask)
    ;
  /* Move up every later entry of the run whose home slot does not lie
   * between the hole and it. */
  for (j = (i + 1) & self->mask; self->slots[j] != NULL; j = (j + 1) & self->mask)
    {
      size_t home = self->slots[j]->hash & self->mask;

      if (((j - home) & self->mask) >= ((j - i) & self->mask))
        {
          self->slots[i] = self->slots[j];
          i = j;
        }
    }
  self->slots[i] = NULL;
  self->n_stacks--;
  self->n_frames -= stack->n_frames;
  free (stack);
}

SysprofStoredStack *
_sysprof_stack_store_intern (SysprofStackStore *self, const SysprofCaptureAddress *frames, uint32_t n_frames)
{
  uint64_t            hash = hash_frames (frames, n_frames);
  SysprofStoredStack *s;
  size_t              i;

  if (self->n_refs >= self->max_refs)
    {
      errno = ENOSPC;
      return NULL;
    }

  if (self->slots != NULL)
    for (i = hash & self->mask; (s = self->slots[i]) != NULL; i = (i + 1) & self->mask)
      if (s->hash == hash && s->n_frames == n_frames &&
          (n_frames == 0 || memcmp (s->frames, frames, n_frames * sizeof *frames) == 0))
        {
          if (s->refs == 0)
            zombie_unlink (self, s);
          s->refs++;
          self->n_refs++;
          return s;
        }

  while (n_frames > self->max_frames - self->n_frames && self->oldest_zombie != NULL)
    evict_oldest_zombie (self);
  if (n_frames > self->max_frames - self->n_frames)
    {
      errno = ENOSPC;
      return NULL;
    }
  if ((self->n_stacks + 1) * 2 > (self->slots ? self->mask + 1 : 0) &&
      !store_rehash (self, self->slots ? (self->mask + 1) * 2 : 1024))
    return NULL;
  if (!(s = malloc (sizeof *s + (size_t) n_frames * sizeof *frames)))
    return NULL;
  s->refs = 1;
  s->zprev = s->znext = NULL;
  s->n_frames = n_frames;
  s->hash = hash;
  s->key = self->next_key++;
  if (n_frames > 0)
    memcpy (s->frames, frames, n_frames * sizeof *frames);

  for (i = hash & self->mask; self->slots[i] != NULL; i = (i + 1) & self->mask)
    ;
  self->slots[i] = s;
  self->n_stacks++;
  self->n_frames += n_frames;
  self->n_refs++;
  return s;
}

void
_sysprof_stack_store_release (SysprofStackStore *self, SysprofStoredStack *stack)
{
  if (stack == NULL)
    return;
  self->n_refs--;
  if (--stack->refs > 0)
    return;
  /* The newest zombie, at the tail. */
  stack->zprev = self->newest_zombie;
  stack->znext = NULL;
  if (self->newest_zombie != NULL)
    self->newest_zombie->znext = stack;
  else
    self->oldest_zombie = stack;
  self->newest_zombie = stack;
  self->n_zombies++;
  self->zombie_frames += stack->n_frames;
  self->zombie_cost += stack->n_frames + ZOMBIE_OVERHEAD;
  while (self->zombie_cost > self->zombie_budget)
    evict_oldest_zombie (self);
}

void
_sysprof_stack_store_get_usage (SysprofStackStore *self, size_t *stacks, size_t *frames, size_t *refs)
{
  if (stacks != NULL)
    *stacks = self->n_stacks - self->n_zombies;
  if (frames != NULL)
    *frames = self->n_frames - self->zombie_frames;
  if (refs != NULL)
    *refs = self->n_refs;
}

void
_sysprof_stack_store_get_bounds (SysprofStackStore *self, size_t *max_refs, size_t *max_frames)
{
  *max_refs = self->max_refs;
  *max_frames = self->max_frames;
}
