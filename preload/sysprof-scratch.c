// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-scratch.h"

/* Every block is preceded by a header of this size holding its length; the
 * header keeps the block aligned for any type. */
#define HEADER alignof (max_align_t)

void *
sysprof_scratch_alloc (SysprofScratch *self, size_t size, size_t alignment)
{
  size_t used = atomic_load (&self->used);
  /* An empty block still takes a byte: its address must lie inside. */
  size_t reserve = size ? size : 1;
  size_t start, end;

  if (alignment < HEADER)
    alignment = HEADER;
  if ((alignment & (alignment - 1)) != 0 || size > self->size)
    return NULL;
  do
    {
      /* The block starts at the first aligned address after a header. */
      uintptr_t first = (uintptr_t) self->base + used + HEADER;

      start = ((first + alignment - 1) & ~(uintptr_t) (alignment - 1)) - (uintptr_t) self->base;
      if (start > self->size || self->size - start < reserve)
        return NULL;
      end = start + reserve;
    }
  while (!atomic_compare_exchange_weak (&self->used, &used, end));
  memcpy (self->base + start - sizeof (size_t), &size, sizeof size);
  return self->base + start;
}

size_t
sysprof_scratch_block_size (const SysprofScratch *self, const void *ptr)
{
  size_t size;

  (void) self;
  memcpy (&size, (const uint8_t *) ptr - sizeof (size_t), sizeof size);
  return size;
}
