// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofThreadMap: a value per (pid, tid), for the tools that keep a state
 * per memory stream (sysprof-dump's decoders, sysprof-cat's streams).  Open
 * addressing; values are not owned. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct
{
  int32_t pid;
  int32_t tid;
  void   *value; /* NULL: empty slot */
} SysprofThreadMapSlot;

typedef struct
{
  SysprofThreadMapSlot *slots;
  size_t                size; /* power of two, or 0 */
  size_t                len;
} SysprofThreadMap;

/* The value of (@pid, @tid), or NULL. */
void *sysprof_thread_map_lookup (const SysprofThreadMap *self, int32_t pid, int32_t tid);
/* Sets the value of (@pid, @tid) (not NULL), replacing any.  false with errno
 * ENOMEM. */
bool sysprof_thread_map_insert (SysprofThreadMap *self, int32_t pid, int32_t tid, void *value);
/* Empties the map; its values are the caller's to free first. */
void sysprof_thread_map_clear (SysprofThreadMap *self);
