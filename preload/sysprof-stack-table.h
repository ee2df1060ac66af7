// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* The stacks one thread of the memory tracker has already written to its
 * memory stream (libsysprof-capture/memory-stream.md): each distinct stack
 * gets an id, dense from 1, so that it crosses the ring once and every later
 * allocation from it carries only the id.
 *
 * Made for the hot path of a malloc hook: no lock (one table per thread), no
 * system call once the table has grown to what the thread needs, no malloc
 * (memory comes from mmap, grown with mremap).  Bounded: at most
 * SYSPROF_STACK_TABLE_MAX_STACKS stacks and SYSPROF_STACK_TABLE_MAX_FRAMES
 * addresses in all (about 38 MiB at worst); each table maps its first 10 MiB
 * freely, and what the tables of a process map beyond that together is
 * charged to a budget (SYSPROF_STACK_TABLE_PROCESS_BUDGET by default, one
 * atomic counter: no lock).  When a new stack does not fit the table
 * empties itself first, and the caller then writes a reset record.
 *
 * Why so big: every reset makes the thread define its stacks again, and a
 * program with many distinct stacks pays it in the capture and in every
 * reading of it.  python3 building and walking trees defines about 125,000
 * distinct stacks of 33 addresses per thread: with 1 Mi addresses a table
 * emptied itself every 31,000 stacks and wrote each stack nine times; with
 * 4 Mi, under three times. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYSPROF_STACK_TABLE_MAX_DEPTH      128
#define SYSPROF_STACK_TABLE_MAX_STACKS     ((1u << 18) - 1)
#define SYSPROF_STACK_TABLE_MAX_FRAMES     (1u << 22)
#define SYSPROF_STACK_TABLE_PROCESS_BUDGET ((size_t) 256 << 20)

typedef struct _SysprofStackTable SysprofStackTable;

typedef enum
{
  /* The stack got its id just now: write its stack record. */
  SYSPROF_STACK_TABLE_NEW = 1 << 0,
  /* The table was full and forgot every id before this stack got its own:
   * write a reset record (before the stack record). */
  SYSPROF_STACK_TABLE_RESET = 1 << 1,
} SysprofStackTableFlags;

/* A new empty table (a few pages), or NULL with errno when mmap fails. */
SysprofStackTable *sysprof_stack_table_new (void);
/* Unmaps the table; NULL is ignored. */
void sysprof_stack_table_free (SysprofStackTable *self);
/* Forgets every stack (ids start again at 1) and keeps the memory: for a new
 * stream (the child of a fork). */
void sysprof_stack_table_clear (SysprofStackTable *self);

/* The id of the @n_addrs addresses at @addrs (innermost first), 1 to
 * SYSPROF_STACK_TABLE_MAX_STACKS; @flags receives SysprofStackTableFlags.
 * An empty stack (@n_addrs 0) has no id: returns 0 with no flags.  @n_addrs
 * over SYSPROF_STACK_TABLE_MAX_DEPTH is cut to it.  Never fails: a table that
 * cannot grow (mremap refused) empties itself as when full. */
uint32_t
sysprof_stack_table_lookup (SysprofStackTable *self, const uint64_t *addrs, unsigned int n_addrs, unsigned int *flags);

/* The bytes the tables of the process may map together beyond their free
 * 10 MiB each (growth past it is refused, and a table that needs it empties
 * itself instead); tables already bigger keep their memory.  For tests; the
 * default is SYSPROF_STACK_TABLE_PROCESS_BUDGET. */
void sysprof_stack_table_set_process_budget (size_t bytes);
/* What the tables of the process map now beyond their free 10 MiB each. */
size_t sysprof_stack_table_get_process_charged (void);

/* Stacks known now, and the bytes mapped for them (its memory bound). */
unsigned int sysprof_stack_table_get_n_stacks (const SysprofStackTable *self);
size_t       sysprof_stack_table_get_mapped (const SysprofStackTable *self);
/* How many times the table emptied itself (full, or unable to grow). */
unsigned int sysprof_stack_table_get_n_resets (const SysprofStackTable *self);
/* Changes whenever the table forgets its ids (cleared or emptied itself):
 * an id kept with the epoch it was given in is still valid while the epoch
 * is the same. */
uint64_t sysprof_stack_table_get_epoch (const SysprofStackTable *self);
