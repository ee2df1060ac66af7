// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-unwind-memo-private.h is private to libsysprof/instruments."
#endif

#include <glib.h>

#include "sysprof-unwind-wire.h"

G_BEGIN_DECLS

/* SysprofUnwindMemo: the user frames the unwinding helper found for a stack
 * copy, kept by a 128-bit hash of the copy (the process, its registers and
 * stack bytes) so that the same copy is not unwound again.  A thread that
 * blocks in the same place with the same stack, which is what the scheduler
 * details see at most switches (event loops, worker queues, ping-pong), costs
 * a hash instead of a round trip to the helper.  The answer depends on the
 * process's mappings too: every change of them (mmap, exec, exit) makes the
 * process's earlier entries unreachable.  A direct-mapped table of fixed
 * size: bounded memory, a newer entry replaces an older one. */
typedef struct _SysprofUnwindMemo SysprofUnwindMemo;

typedef struct
{
  guint64 a;
  guint64 b;
} SysprofUnwindMemoKey;

SysprofUnwindMemo *_sysprof_unwind_memo_new (void);
void               _sysprof_unwind_memo_free (SysprofUnwindMemo *self);
/* The key of a copy: @regs in SysprofDwarfUnwinder's order, @stack of @len
 * bytes. */
SysprofUnwindMemoKey
_sysprof_unwind_memo_key (SysprofUnwindMemo *self, gint32 pid, const guint64 *regs, const guint8 *stack, gsize len);
/* TRUE with the frames (valid until the next store) when @key was stored. */
gboolean _sysprof_unwind_memo_lookup (SysprofUnwindMemo   *self,
                                      SysprofUnwindMemoKey key,
                                      SysprofUnwindStatus *status,
                                      const guint64      **addrs,
                                      guint               *n_addrs);
/* Keeps an answer (not a failed one: a helper restarting is no property of
 * the stack). */
void _sysprof_unwind_memo_store (
    SysprofUnwindMemo *self, SysprofUnwindMemoKey key, SysprofUnwindStatus status, const guint64 *addrs, guint n_addrs);
/* @pid's mappings changed. */
void    _sysprof_unwind_memo_forget (SysprofUnwindMemo *self, gint32 pid);
guint64 _sysprof_unwind_memo_get_n_hits (SysprofUnwindMemo *self);

G_END_DECLS
