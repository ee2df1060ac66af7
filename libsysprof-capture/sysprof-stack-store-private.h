// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#ifndef SYSPROF_CAPTURE_COMPILATION
#error "This header is private to libsysprof-capture."
#endif

#include <stddef.h>
#include <stdint.h>

#include "sysprof-capture-types.h"

/* The stack store: the distinct stacks the stream ids of one decoder or one
 * cursor name, each kept once, with a reference per id naming it, within the
 * bounds SYSPROF_MEMORY_STREAM_MAX_STORED_{STACKS,FRAMES} (or smaller ones
 * for tests). */
typedef struct _SysprofStackStore SysprofStackStore;

typedef struct _SysprofStoredStack SysprofStoredStack;

struct _SysprofStoredStack
{
  uint32_t refs;
  uint32_t n_frames;
  uint64_t hash;
  uint64_t key; /* SysprofAllocationEvent.stack_key */
  /* While no id names it (refs 0): the store's list of such stacks,
   * oldest first. */
  SysprofStoredStack   *zprev;
  SysprofStoredStack   *znext;
  SysprofCaptureAddress frames[];
};

SysprofStackStore *_sysprof_stack_store_new (size_t max_refs, size_t max_frames);
void               _sysprof_stack_store_free (SysprofStackStore *self);
/* A reference to the stored copy of @frames; NULL with errno ENOSPC when a
 * bound would be passed, ENOMEM. */
SysprofStoredStack      *
_sysprof_stack_store_intern (SysprofStackStore *self, const SysprofCaptureAddress *frames, uint32_t n_frames);
void _sysprof_stack_store_release (SysprofStackStore *self, SysprofStoredStack *stack);
/* Distinct stacks, their frames, and references held. */
void _sysprof_stack_store_get_usage (SysprofStackStore *self, size_t *stacks, size_t *frames, size_t *refs);
/* The bounds given to _sysprof_stack_store_new(). */
void _sysprof_stack_store_get_bounds (SysprofStackStore *self, size_t *max_refs, size_t *max_frames);
