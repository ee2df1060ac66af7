// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* A bounded bump allocator over a caller-provided buffer: the memory tracker
 * serves the allocations made while it looks up the real allocator with
 * dlsym() from it.  Lock-free (one compare-and-swap per allocation), never
 * grows, never reuses memory; releasing a block is a no-op.  Each block is
 * preceded by its size so that realloc() can copy it out. */

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct
{
  uint8_t       *base;
  size_t         size;
  _Atomic size_t used;
} SysprofScratch;

#define SYSPROF_SCRATCH_INIT(buffer)         \
  {                                          \
    (uint8_t *) (buffer), sizeof (buffer), 0 \
  }

/* A block of @size bytes aligned to @alignment (a power of two; at least
 * that of max_align_t is used), or NULL when the buffer cannot hold it. */
void *sysprof_scratch_alloc (SysprofScratch *self, size_t size, size_t alignment);

/* Whether @ptr points into the buffer (NULL does not). */
static inline bool
sysprof_scratch_owns (const SysprofScratch *self, const void *ptr)
{
  return (uintptr_t) ptr - (uintptr_t) self->base < self->size;
}

/* The size requested for a block returned by sysprof_scratch_alloc(). */
size_t sysprof_scratch_block_size (const SysprofScratch *self, const void *ptr);
