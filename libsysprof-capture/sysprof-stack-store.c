// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The distinct stacks of the memory streams a reader holds.  Threads of one
 * program define the same stacks over and over (a pool of workers, each with
 * its own ids): each is kept once, found by hashing its frames.  When the
 * last id naming a stack goes (a reset, the stream's end) the stack stays as
 * a zombie: a tracker whose table filled up defines the same stacks again
 * after its reset, and finding the old copy keeps its key, so what consumers
 * cached per key stays valid (on a python3 capture, nine definitions per
 * distinct stack).  Zombies are freed all at once when their frames pass a
 * budget or a new stack needs their room.  Bounded, since the ids come from
 * a possibly hostile capture. */
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
  size_t n_zombies;
  size_t zombie_frames;
  size_t zombie_cost;
  size_t zombie_budget;
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

/* Hashes the stacks into @size slots, freeing the zombies on the way when
 * @drop_zombies. */
static bool
store_rehash (SysprofStackStore *self, size_t size, bool drop_zombies)
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
        if (drop_zombies && s->refs == 0)
          {
            self->n_stacks--;
            self->n_frames -= s->n_frames;
            free (s);
            continue;
          }
        for (j = s->hash & (size - 1); slots[j] != NULL; j = (j + 1) & (size - 1))
          ;
        slots[j] = s;
      }
  if (drop_zombies)
    {
      self->n_zombies = 0;
      self->zombie_frames = 0;
      self->zombie_cost = 0;
    }
  free (self->slots);
  self->slots = slots;
  self->mask = size - 1;
  return true;
}

static bool
store_drop_zombies (SysprofStackStore *self)
{
  return self->n_zombies > 0 && store_rehash (self, self->mask + 1, true);
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
            {
              self->n_zombies--;
              self->zombie_frames -= s->n_frames;
              self->zombie_cost -= s->n_frames + ZOMBIE_OVERHEAD;
            }
          s->refs++;
          self->n_refs++;
          return s;
        }

  if (n_frames > self->max_frames - self->n_frames &&
      (!store_drop_zombies (self) || n_frames > self->max_frames - self->n_frames))
    {
      errno = ENOSPC;
      return NULL;
    }
  if ((self->n_stacks + 1) * 2 > (self->slots ? self->mask + 1 : 0) &&
      !store_rehash (self, self->slots ? (self->mask + 1) * 2 : 1024, false))
    return NULL;
  if (!(s = malloc (sizeof *s + (size_t) n_frames * sizeof *frames)))
    return NULL;
  s->refs = 1;
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
  self->n_zombies++;
  self->zombie_frames += stack->n_frames;
  self->zombie_cost += stack->n_frames + ZOMBIE_OVERHEAD;
  if (self->zombie_cost > self->zombie_budget)
    (void) store_drop_zombies (self);
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
