// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofUnwindMemo: the same copy finds its frames, any other byte or
 * register or process does not, a change of the process's mappings makes
 * its entries unreachable, failures are not kept. */
#include <string.h>

#include "sysprof-unwind-memo-private.h"

static void
test_memo (void)
{
  SysprofUnwindMemo   *memo = _sysprof_unwind_memo_new ();
  guint64              regs[SYSPROF_UNWIND_N_REGS] = { 0 };
  guint8               stack[8190];
  const guint64        frames[] = { 0x401000, 0x401234, 0x7f0000001000 };
  SysprofUnwindMemoKey key, other;
  SysprofUnwindStatus  status;
  const guint64       *found;
  guint                n;

  for (guint i = 0; i < G_N_ELEMENTS (regs); i++)
    regs[i] = 0x1000 * (i + 1);
  for (guint i = 0; i < sizeof stack; i++)
    stack[i] = (guint8) (i * 7);

  key = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, key, &status, &found, &n));
  _sysprof_unwind_memo_store (memo, key, SYSPROF_UNWIND_STATUS_COMPLETE, frames, G_N_ELEMENTS (frames));
  other = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack);
  g_assert_true (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));
  g_assert_cmpint (status, ==, SYSPROF_UNWIND_STATUS_COMPLETE);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (frames));
  g_assert_cmpmem (found, n * sizeof *found, frames, sizeof frames);

  /* The last byte (of a length that is no multiple of 8), a register, the
   * process, the length. */
  stack[sizeof stack - 1] ^= 1;
  other = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));
  stack[sizeof stack - 1] ^= 1;
  regs[3]++;
  other = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));
  regs[3]--;
  other = _sysprof_unwind_memo_key (memo, 43, regs, stack, sizeof stack);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));
  other = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack - 8);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));

  /* Another process's mappings change: no matter; this one's: gone. */
  _sysprof_unwind_memo_forget (memo, 43);
  other = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack);
  g_assert_true (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));
  _sysprof_unwind_memo_forget (memo, 42);
  other = _sysprof_unwind_memo_key (memo, 42, regs, stack, sizeof stack);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));

  /* A failure is no property of the stack. */
  _sysprof_unwind_memo_store (memo, other, SYSPROF_UNWIND_STATUS_FAILED, NULL, 0);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, other, &status, &found, &n));
  g_assert_cmpuint (_sysprof_unwind_memo_get_n_hits (memo), ==, 2);
  _sysprof_unwind_memo_free (memo);
}

/* More processes forgotten than it remembers: a new epoch, nothing earlier
 * reachable, and it keeps working. */
static void
test_epoch (void)
{
  SysprofUnwindMemo   *memo = _sysprof_unwind_memo_new ();
  guint64              regs[SYSPROF_UNWIND_N_REGS] = { 1, 2, 3 };
  guint8               stack[64] = { 9 };
  const guint64        frame = 0x401000;
  SysprofUnwindMemoKey key;
  SysprofUnwindStatus  status;
  const guint64       *found;
  guint                n;

  key = _sysprof_unwind_memo_key (memo, 7, regs, stack, sizeof stack);
  _sysprof_unwind_memo_store (memo, key, SYSPROF_UNWIND_STATUS_TRUNCATED, &frame, 1);
  for (gint32 pid = 100; pid < 100 + 65537; pid++)
    _sysprof_unwind_memo_forget (memo, pid);
  key = _sysprof_unwind_memo_key (memo, 7, regs, stack, sizeof stack);
  g_assert_false (_sysprof_unwind_memo_lookup (memo, key, &status, &found, &n));
  _sysprof_unwind_memo_store (memo, key, SYSPROF_UNWIND_STATUS_TRUNCATED, &frame, 1);
  g_assert_true (_sysprof_unwind_memo_lookup (memo, key, &status, &found, &n));
  g_assert_cmpint (status, ==, SYSPROF_UNWIND_STATUS_TRUNCATED);
  _sysprof_unwind_memo_free (memo);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/unwind-memo/memo", test_memo);
  g_test_add_func ("/unwind-memo/epoch", test_epoch);
  return g_test_run ();
}
