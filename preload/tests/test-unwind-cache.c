// SPDX-License-Identifier: GPL-3.0-or-later
/* The unwind cache against libunwind: on chains built without frame
 * pointers (nofp-chain.c: CFA from rsp or rbp, alloca, VLAs, libc's qsort,
 * calls through pointers), through GLib (no frame pointers either), at every
 * depth limit, over thousands of random paths that share their outer frames
 * or not, each stack the cache gives must be exactly the one
 * sysprof_backtrace_dwarf() (unw_backtrace) gives from the same place.
 * Then the rules themselves, a stack on another stack (sigaltstack), and
 * forgetting after dlclose(). */

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "nofp-chain.h"
#include "sysprof-backtrace.h"
#include "sysprof-unwind-cache.h"
#include "sysprof-unwind-rule.h"

#define NOINLINE  __attribute__ ((noinline))
#define MAX_ADDRS 128

typedef struct
{
  SysprofUnwindCache *cache;
  SysprofStackBounds  bounds;
  int                 max;
  guint               compared;
  guint               from_cache;
  guint               same_as_last;
  /* A walk must fail (the hook's frame outside the bounds). */
  gboolean expect_miss;
} Check;

/* Plays a malloc hook (built with frame pointers, as the tracker's are):
 * libunwind's stack and the cache's from here must be the same. */
static NOINLINE void
hook (void *data)
{
  Check      *check = data;
  const void *ret = __builtin_return_address (0);
  const void *frame = __builtin_frame_address (0);
  uint64_t    want[MAX_ADDRS], got[MAX_ADDRS];
  int         n_want, n_got;
  bool        same = false;

  n_want = sysprof_backtrace_dwarf (ret, want, check->max);
  n_got = sysprof_unwind_cache_walk (check->cache, ret, frame, &check->bounds, got, check->max, &same);
  if (check->expect_miss)
    {
      g_assert_cmpint (n_got, ==, -1);
      return;
    }
  if (n_got < 0)
    {
      sysprof_unwind_cache_learn (check->cache, want, n_want);
      n_got = sysprof_unwind_cache_walk (check->cache, ret, frame, &check->bounds, got, check->max, &same);
    }
  else
    check->from_cache++;
  if (same)
    check->same_as_last++;
  /* Learned: every rule on this stack is known now, and none needs
   * libunwind (no signal frame, no odd CFI here). */
  g_assert_cmpint (n_got, ==, n_want);
  g_assert_cmpmem (got, (gsize) n_got * 8, want, (gsize) n_want * 8);
  check->compared++;
}

static void
check_init (Check *check, int max)
{
  memset (check, 0, sizeof *check);
  check->cache = sysprof_unwind_cache_new ();
  g_assert_nonnull (check->cache);
  g_assert_true (sysprof_stack_bounds_init (&check->bounds));
  check->max = max;
}

static char *
random_path (GRand *rand, guint length)
{
  static const char shapes[] = "aaabbccqv";
  char             *path = g_malloc (length + 1);

  for (guint i = 0; i < length; i++)
    path[i] = shapes[g_rand_int_range (rand, 0, sizeof shapes - 1)];
  path[length] = 0;
  return path;
}

/* Paths of 1 to 70 frames, each run a few times in a row and mixed with
 * others that share a prefix (the outer frames) and differ inside. */
static void
test_random_paths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (15);
  SysprofUnwindCacheStats stats;
  Check                   check;

  if (!sysprof_unwind_rule_available ())
    {
      g_test_skip ("built without libunwind-generic");
      return;
    }
  check_init (&check, MAX_ADDRS);
  for (guint round = 0; round < 3000; round++)
    {
      g_autofree char *trunk = random_path (rand, (guint) g_rand_int_range (rand, 0, 60));
      g_autofree char *tip = random_path (rand, (guint) g_rand_int_range (rand, 1, 10));
      g_autofree char *path = g_strconcat (trunk, tip, NULL);
      g_autofree char *other = NULL;

      for (guint k = 0; k < 3; k++)
        sysprof_nofp_chain (path, hook, &check);
      tip[0] = tip[0] == 'a' ? 'b' : 'a';
      other = g_strconcat (trunk, tip, NULL);
      sysprof_nofp_chain (other, hook, &check);
    }
  sysprof_unwind_cache_get_stats (check.cache, &stats);
  g_test_message ("%u stacks compared, %u from the cache, %u same as the last; %" G_GUINT64_FORMAT
                  " addresses learned, %" G_GUINT64_FORMAT " fallback, %" G_GUINT64_FORMAT " reused",
                  check.compared, check.from_cache, check.same_as_last, stats.learned, stats.fallback, stats.reused);
  /* Most stacks came from the cache once learned, most of them reusing the
   * previous walk above some frame; no address of these chains needs
   * libunwind every time. */
  g_assert_cmpuint (check.from_cache, >, check.compared * 9 / 10);
  g_assert_cmpuint (stats.reused, >, check.compared / 2);
  g_assert_cmpuint (check.same_as_last, >, 0);
  g_assert_cmpuint (stats.fallback, ==, 0);
  sysprof_unwind_cache_free (check.cache);
}

/* Every depth limit gives libunwind's first addresses, cut there; a walk
 * cut short and then a longer one go on from where the first stopped. */
static void
test_depths (void)
{
  Check check;

  if (!sysprof_unwind_rule_available ())
    {
      g_test_skip ("built without libunwind-generic");
      return;
    }
  check_init (&check, 1);
  for (int max = 1; max <= 60; max++)
    {
      check.max = max;
      sysprof_nofp_chain ("abcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqv", hook, &check);
      sysprof_nofp_chain ("abcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqv", hook, &check);
      check.max = 61 - max;
      sysprof_nofp_chain ("abcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqvabcqv", hook, &check);
    }
  sysprof_unwind_cache_free (check.cache);
}

static gint
compare_via_hook (gconstpointer a, gconstpointer b, gpointer data)
{
  Check *check = data;

  if (check->compared == 0)
    hook (check);
  return GPOINTER_TO_INT (*(gconstpointer const *) a) - GPOINTER_TO_INT (*(gconstpointer const *) b);
}

static void
glib_leaf (void *data)
{
  GPtrArray *array = g_ptr_array_new ();

  g_ptr_array_add (array, GINT_TO_POINTER (2));
  g_ptr_array_add (array, GINT_TO_POINTER (1));
  g_ptr_array_sort_with_data (array, compare_via_hook, data);
  g_ptr_array_unref (array);
}

/* Through GLib's sort (no frame pointers) from the chains. */
static void
test_glib (void)
{
  Check check;

  if (!sysprof_unwind_rule_available ())
    {
      g_test_skip ("built without libunwind-generic");
      return;
    }
  check_init (&check, MAX_ADDRS);
  for (guint i = 0; i < 20; i++)
    {
      check.compared = 0;
      sysprof_nofp_chain (i % 2 ? "abqcv" : "vvcba", glib_leaf, &check);
      g_assert_cmpuint (check.compared, ==, 1);
    }
  sysprof_unwind_cache_free (check.cache);
}

/* The rules of known places. */
static NOINLINE void
rule_leaf (void *data)
{
  uint64_t *addrs = data;
  int       n = sysprof_backtrace_dwarf (__builtin_return_address (0), addrs + 1, 127);

  addrs[0] = (uint64_t) n;
}

static void
test_rules (void)
{
  uint64_t          addrs[128];
  SysprofUnwindRule rule;
  int               n;

  if (!sysprof_unwind_rule_available ())
    {
      g_test_skip ("built without libunwind-generic");
      return;
    }
  /* rule_leaf's caller is step_c (alloca: rbp-based), called by step_a
   * (rsp-based); the outermost frame (_start) has no caller. */
  sysprof_nofp_chain ("ac", rule_leaf, addrs);
  n = (int) addrs[0];
  g_assert_cmpint (n, >=, 4);
  rule = sysprof_unwind_rule_learn (addrs[1]);
  g_assert_cmpint (rule.kind, ==, SYSPROF_UNWIND_RULE_STANDARD);
  g_assert_true (rule.cfa_rbp);
  g_assert_cmpint (rule.cfa_offset, ==, 16);
  g_assert_true (rule.rbp_saved);
  g_assert_cmpint (rule.rbp_offset, ==, -16);
  rule = sysprof_unwind_rule_learn (addrs[2]);
  g_assert_cmpint (rule.kind, ==, SYSPROF_UNWIND_RULE_STANDARD);
  g_assert_false (rule.cfa_rbp);
  g_assert_cmpint (rule.cfa_offset, >=, 16);
  g_assert_cmpint (rule.cfa_offset % 8, ==, 0);
  rule = sysprof_unwind_rule_learn (addrs[n]);
  g_assert_cmpint (rule.kind, ==, SYSPROF_UNWIND_RULE_LAST);
  /* Not code, or no unwind info: libunwind's, every time. */
  rule = sysprof_unwind_rule_learn ((uint64_t) (uintptr_t) &rule);
  g_assert_cmpint (rule.kind, ==, SYSPROF_UNWIND_RULE_FALLBACK);
  rule = sysprof_unwind_rule_learn (4096);
  g_assert_cmpint (rule.kind, ==, SYSPROF_UNWIND_RULE_FALLBACK);
}

static Check *signal_check;

static void
on_signal (int signum)
{
  (void) signum;
  sysprof_nofp_chain ("abc", hook, signal_check);
}

/* A handler on an alternate stack: the hook's frame is outside the
 * thread's stack, and the cache leaves it to libunwind. */
static void
test_sigaltstack (void)
{
  struct sigaction action = { 0 }, old;
  stack_t          alt = { 0 }, old_alt;
  Check            check;

  if (!sysprof_unwind_rule_available ())
    {
      g_test_skip ("built without libunwind-generic");
      return;
    }
  check_init (&check, MAX_ADDRS);
  sysprof_nofp_chain ("abc", hook, &check);
  alt.ss_size = 256 * 1024;
  alt.ss_sp = g_malloc (alt.ss_size);
  g_assert_no_errno (sigaltstack (&alt, &old_alt));
  action.sa_handler = on_signal;
  action.sa_flags = SA_ONSTACK;
  g_assert_no_errno (sigaction (SIGUSR1, &action, &old));
  check.expect_miss = TRUE;
  signal_check = &check;
  raise (SIGUSR1);
  g_assert_no_errno (sigaction (SIGUSR1, &old, NULL));
  g_assert_no_errno (sigaltstack (&old_alt, NULL));
  g_free (alt.ss_sp);
  sysprof_unwind_cache_free (check.cache);
}

/* After dlclose() (forget_all), a known stack is learned again. */
static void
test_forget (void)
{
  SysprofUnwindCacheStats stats[3];
  Check                   check;

  if (!sysprof_unwind_rule_available ())
    {
      g_test_skip ("built without libunwind-generic");
      return;
    }
  check_init (&check, MAX_ADDRS);
  /* One call site: learned by the first run, known in the second; the
   * third comes after forgetting. */
  for (guint i = 0; i < 3; i++)
    {
      if (i == 2)
        sysprof_unwind_cache_forget_all ();
      sysprof_nofp_chain ("abcab", hook, &check);
      sysprof_unwind_cache_get_stats (check.cache, &stats[i]);
    }
  g_assert_cmpuint (stats[0].misses, ==, 1);
  g_assert_cmpuint (stats[1].misses, ==, 1);
  g_assert_cmpuint (stats[1].learned, ==, stats[0].learned);
  g_assert_cmpuint (stats[2].misses, ==, 2);
  g_assert_cmpuint (stats[2].learned, ==, 2 * stats[0].learned);
  g_assert_cmpuint (check.from_cache, ==, 1);
  sysprof_unwind_cache_free (check.cache);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  sysprof_backtrace_dwarf_init ();
  g_test_add_func ("/Preload/UnwindCache/random-paths", test_random_paths);
  g_test_add_func ("/Preload/UnwindCache/depths", test_depths);
  g_test_add_func ("/Preload/UnwindCache/glib", test_glib);
  g_test_add_func ("/Preload/UnwindCache/rules", test_rules);
  g_test_add_func ("/Preload/UnwindCache/sigaltstack", test_sigaltstack);
  g_test_add_func ("/Preload/UnwindCache/forget", test_forget);
  return g_test_run ();
}
