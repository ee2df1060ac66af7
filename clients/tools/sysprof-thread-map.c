// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofThreadMap (see the header). */
#include <errno.h>
#include <stdlib.h>

#include "sysprof-thread-map.h"

static size_t
hash (int32_t pid, int32_t tid)
{
  uint64_t h = ((uint64_t) (uint32_t) pid << 32) | (uint32_t) tid;

  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (size_t) h;
}

static SysprofThreadMapSlot *
find (SysprofThreadMapSlot *slots, size_t size, int32_t pid, int32_t tid)
{
  size_t i = hash (pid, tid) & (size - 1);

  while (slots[i].value != NULL && (slots[i].pid != pid || slots[i].tid != tid))
    i = (i + 1) & (size - 1);
  return &slots[i];
}

void *
sysprof_thread_map_lookup (const SysprofThreadMap *self, int32_t pid, int32_t tid)
{
  if (self->size == 0)
    return NULL;
  return find (self->slots, self->size, pid, tid)->value;
}

bool
sysprof_thread_map_insert (SysprofThreadMap *self, int32_t pid, int32_t tid, void *value)
{
  SysprofThreadMapSlot *slot;

  if ((self->len + 1) * 2 > self->size)
    {
      size_t                new_size = self->size ? self->size * 2 : 64;
      SysprofThreadMapSlot *slots = calloc (new_size, sizeof *slots);

      if (slots == NULL)
        {
          errno = ENOMEM;
          return false;
        }
      for (size_t i = 0; i < self->size; i++)
        if (self->slots[i].value != NULL)
          *find (slots, new_size, self->slots[i].pid, self->slots[i].tid) = self->slots[i];
      free (self->slots);
      self->slots = slots;
      self->size = new_size;
    }
  slot = find (self->slots, self->size, pid, tid);
  if (slot->value == NULL)
    self->len++;
  *slot = (SysprofThreadMapSlot){ pid, tid, value };
  return true;
}

void
sysprof_thread_map_clear (SysprofThreadMap *self)
{
  free (self->slots);
  self->slots = NULL;
  self->size = self->len = 0;
}
