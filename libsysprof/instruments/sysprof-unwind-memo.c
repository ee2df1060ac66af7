// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-unwind-memo-private.h"

/* 1024 entries of at most 128 frames: about 1 MiB. */
#define N_ENTRIES 1024
/* Processes whose mappings changed, remembered; beyond, everything is
 * forgotten at once (a new epoch). */
#define MAX_GENERATIONS 65536

typedef struct
{
  SysprofUnwindMemoKey key;
  gboolean             used;
  SysprofUnwindStatus  status;
  guint                n_addrs;
  guint64              addrs[SYSPROF_UNWIND_MAX_FRAMES];
} Entry;

struct _SysprofUnwindMemo
{
  Entry      *entries;
  GHashTable *generations; /* pid -> guint64: the counter when its mappings last changed */
  guint64     counter;
  guint64     epoch;
  guint64     n_hits;
};

SysprofUnwindMemo *
_sysprof_unwind_memo_new (void)
{
  SysprofUnwindMemo *self = g_new0 (SysprofUnwindMemo, 1);

  self->entries = g_new0 (Entry, N_ENTRIES);
  self->generations = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return self;
}

void
_sysprof_unwind_memo_free (SysprofUnwindMemo *self)
{
  if (self == NULL)
    return;
  g_free (self->entries);
  g_hash_table_unref (self->generations);
  g_free (self);
}

/* Two independent multiply-rotate streams over the words: a 128-bit key, so
 * that two different copies meet with a chance of 2^-128. */
static inline void
mix (guint64 *a, guint64 *b, guint64 w)
{
  *a = (*a ^ w) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  *a = (*a << 31) | (*a >> 33);
  *b = (*b + w) * G_GUINT64_CONSTANT (0xc2b2ae3d27d4eb4f);
  *b ^= *b >> 29;
}

SysprofUnwindMemoKey
_sysprof_unwind_memo_key (SysprofUnwindMemo *self, gint32 pid, const guint64 *regs, const guint8 *stack, gsize len)
{
  guint64 *gen = g_hash_table_lookup (self->generations, GINT_TO_POINTER (pid));
  guint64  a = G_GUINT64_CONSTANT (0x243f6a8885a308d3), b = G_GUINT64_CONSTANT (0x13198a2e03707344);
  gsize    i;

  mix (&a, &b, (guint64) (guint32) pid);
  mix (&a, &b, gen ? *gen : 0);
  mix (&a, &b, self->epoch);
  mix (&a, &b, len);
  for (i = 0; i < SYSPROF_UNWIND_N_REGS; i++)
    mix (&a, &b, regs[i]);
  for (i = 0; i + 8 <= len; i += 8)
    {
      guint64 w;

      memcpy (&w, stack + i, 8);
      mix (&a, &b, w);
    }
  if (i < len)
    {
      guint64 w = 0;

      memcpy (&w, stack + i, len - i);
      mix (&a, &b, w);
    }
  return (SysprofUnwindMemoKey){ a ^ (b >> 17), b ^ (a << 13) };
}

static Entry *
slot (SysprofUnwindMemo *self, SysprofUnwindMemoKey key)
{
  return &self->entries[(key.a ^ (key.b >> 32)) % N_ENTRIES];
}

gboolean
_sysprof_unwind_memo_lookup (SysprofUnwindMemo   *self,
                             SysprofUnwindMemoKey key,
                             SysprofUnwindStatus *status,
                             const guint64      **addrs,
                             guint               *n_addrs)
{
  Entry *e = slot (self, key);

  if (!e->used || e->key.a != key.a || e->key.b != key.b)
    return FALSE;
  *status = e->status;
  *addrs = e->addrs;
  *n_addrs = e->n_addrs;
  self->n_hits++;
  return TRUE;
}

void
_sysprof_unwind_memo_store (
    SysprofUnwindMemo *self, SysprofUnwindMemoKey key, SysprofUnwindStatus status, const guint64 *addrs, guint n_addrs)
{
  Entry *e = slot (self, key);

  if (status == SYSPROF_UNWIND_STATUS_FAILED || n_addrs > SYSPROF_UNWIND_MAX_FRAMES)
    return;
  e->key = key;
  e->used = TRUE;
  e->status = status;
  e->n_addrs = n_addrs;
  if (n_addrs > 0)
    memcpy (e->addrs, addrs, n_addrs * sizeof *addrs);
}

void
_sysprof_unwind_memo_forget (SysprofUnwindMemo *self, gint32 pid)
{
  guint64 *gen = g_hash_table_lookup (self->generations, GINT_TO_POINTER (pid));

  if (gen != NULL)
    {
      *gen = ++self->counter;
      return;
    }
  if (g_hash_table_size (self->generations) >= MAX_GENERATIONS)
    {
      /* A key carries the epoch: every entry is unreachable at once. */
      g_hash_table_remove_all (self->generations);
      self->epoch++;
    }
  gen = g_new (guint64, 1);
  *gen = ++self->counter;
  g_hash_table_insert (self->generations, GINT_TO_POINTER (pid), gen);
}

guint64
_sysprof_unwind_memo_get_n_hits (SysprofUnwindMemo *self)
{
  return self->n_hits;
}
