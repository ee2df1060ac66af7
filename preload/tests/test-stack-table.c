// SPDX-License-Identifier: GPL-3.0-or-later
/* The memory tracker's per-thread stack table: ids dense from 1, one per
 * distinct stack, checked against a GHashTable model; the bounds (it empties
 * itself and says so); what it maps. */

#include <string.h>

#include <glib.h>

#include "sysprof-stack-table.h"

typedef struct
{
  GHashTable *ids; /* GBytes of the addresses -> id */
  guint       next;
  gsize       frames;
} Model;

static guint
model_lookup (Model *m, const uint64_t *addrs, guint n, gboolean *is_new)
{
  g_autoptr (GBytes) key = g_bytes_new (addrs, n * sizeof *addrs);
  gpointer id;

  if ((id = g_hash_table_lookup (m->ids, key)) != NULL)
    {
      *is_new = FALSE;
      return GPOINTER_TO_UINT (id);
    }
  *is_new = TRUE;
  m->frames += n;
  g_hash_table_insert (m->ids, g_bytes_ref (key), GUINT_TO_POINTER (++m->next));
  return m->next;
}

static void
model_clear (Model *m)
{
  g_hash_table_remove_all (m->ids);
  m->next = 0;
  m->frames = 0;
}

static void
random_stack (GRand *rand, uint64_t *addrs, guint n)
{
  /* Addresses like a program's: a few libraries, return addresses close
   * together, so that the hash must tell apart stacks that differ little. */
  for (guint i = 0; i < n; i++)
    addrs[i] = UINT64_C (0x7f0000000000) + (uint64_t) g_rand_int_range (rand, 0, 4) * 0x1000000 +
               (uint64_t) g_rand_int_range (rand, 0, 64) * 16 + 5;
}

static void
test_ids (void)
{
  SysprofStackTable *table = sysprof_stack_table_new ();
  uint64_t           a[3] = { 0x401000, 0x402000, 0x403000 };
  uint64_t           b[3] = { 0x401000, 0x402000, 0x403001 };
  unsigned int       flags;

  g_assert_nonnull (table);
  g_assert_cmpuint (sysprof_stack_table_lookup (table, a, 3, &flags), ==, 1);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
  g_assert_cmpuint (sysprof_stack_table_lookup (table, a, 3, &flags), ==, 1);
  g_assert_cmpuint (flags, ==, 0);
  /* One address differs, or one is missing: another stack. */
  g_assert_cmpuint (sysprof_stack_table_lookup (table, b, 3, &flags), ==, 2);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
  g_assert_cmpuint (sysprof_stack_table_lookup (table, a, 2, &flags), ==, 3);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
  g_assert_cmpuint (sysprof_stack_table_lookup (table, b, 3, &flags), ==, 2);
  g_assert_cmpuint (flags, ==, 0);
  /* No addresses: no id. */
  g_assert_cmpuint (sysprof_stack_table_lookup (table, a, 0, &flags), ==, 0);
  g_assert_cmpuint (flags, ==, 0);
  g_assert_cmpuint (sysprof_stack_table_get_n_stacks (table), ==, 3);

  /* Cleared: the same stacks get new ids, from 1 again. */
  sysprof_stack_table_clear (table);
  g_assert_cmpuint (sysprof_stack_table_get_n_stacks (table), ==, 0);
  g_assert_cmpuint (sysprof_stack_table_lookup (table, b, 3, &flags), ==, 1);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
  g_assert_cmpuint (sysprof_stack_table_get_n_resets (table), ==, 0);
  sysprof_stack_table_free (table);
  sysprof_stack_table_free (NULL);
}

/* Deeper than 128: the first 128 addresses make the stack. */
static void
test_depth (void)
{
  SysprofStackTable *table = sysprof_stack_table_new ();
  uint64_t           addrs[200];
  unsigned int       flags;
  guint              id;

  for (guint i = 0; i < G_N_ELEMENTS (addrs); i++)
    addrs[i] = 0x500000 + i * 8;
  id = sysprof_stack_table_lookup (table, addrs, 200, &flags);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
  g_assert_cmpuint (sysprof_stack_table_lookup (table, addrs, SYSPROF_STACK_TABLE_MAX_DEPTH, &flags), ==, id);
  g_assert_cmpuint (flags, ==, 0);
  addrs[150] = 1;
  g_assert_cmpuint (sysprof_stack_table_lookup (table, addrs, 160, &flags), ==, id);
  sysprof_stack_table_free (table);
}

/* Many stacks, many repeats, growing through every size: the ids are the
 * model's (dense, one per stack), and the table empties itself exactly when
 * the next new stack passes a bound (here the addresses' one, at about
 * 205,000 stacks of 20.5 addresses). */
static void
test_model (void)
{
  SysprofStackTable *table = sysprof_stack_table_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (16);
  Model        model = { g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL), 0 };
  uint64_t     pool[512][40];
  guint        pool_n[512];
  guint        resets = 0;
  unsigned int flags;

  for (guint i = 0; i < G_N_ELEMENTS (pool); i++)
    {
      pool_n[i] = (guint) g_rand_int_range (rand, 1, 41);
      random_stack (rand, pool[i], pool_n[i]);
    }
  for (guint round = 0; round < 1000000; round++)
    {
      uint64_t        fresh[40];
      const uint64_t *addrs;
      guint           n, id, want;
      gboolean        is_new;

      /* Mostly repeats of a few hundred stacks, and a stream of new ones
       * (about 250,000 in all). */
      if (round % 4 == 0)
        {
          n = (guint) g_rand_int_range (rand, 1, 41);
          random_stack (rand, fresh, n);
          addrs = fresh;
        }
      else
        {
          guint k = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (pool));

          addrs = pool[k];
          n = pool_n[k];
        }
      id = sysprof_stack_table_lookup (table, addrs, n, &flags);
      if (flags & SYSPROF_STACK_TABLE_RESET)
        {
          g_assert_true (model.next == SYSPROF_STACK_TABLE_MAX_STACKS ||
                         model.frames + n > SYSPROF_STACK_TABLE_MAX_FRAMES);
          model_clear (&model);
          resets++;
        }
      else if (flags & SYSPROF_STACK_TABLE_NEW)
        g_assert_true (model.next < SYSPROF_STACK_TABLE_MAX_STACKS &&
                       model.frames + n <= SYSPROF_STACK_TABLE_MAX_FRAMES);
      want = model_lookup (&model, addrs, n, &is_new);
      g_assert_cmpuint (id, ==, want);
      g_assert_cmpint (!!(flags & SYSPROF_STACK_TABLE_NEW), ==, is_new);
    }
  g_assert_cmpuint (resets, ==, 1);
  g_assert_cmpuint (sysprof_stack_table_get_n_resets (table), ==, 1);
  g_assert_cmpuint (sysprof_stack_table_get_n_stacks (table), ==, model.next);
  /* The bound: 4 MiB of slots, 2 MiB of entries, 32 MiB of addresses. */
  g_assert_cmpuint (sysprof_stack_table_get_mapped (table), <=, 38 * 1024 * 1024 + 4096);
  g_hash_table_unref (model.ids);
  sysprof_stack_table_free (table);
}

/* Deep stacks fill the address bound (4 Mi addresses) first: 32768 stacks
 * of 128, then the table empties itself for the next. */
static void
test_frames_bound (void)
{
  SysprofStackTable *table = sysprof_stack_table_new ();
  uint64_t           addrs[128];
  unsigned int       flags;

  for (guint i = 0; i < 128; i++)
    addrs[i] = 0x600000 + i * 16;
  for (guint k = 1; k <= SYSPROF_STACK_TABLE_MAX_FRAMES / 128; k++)
    {
      addrs[0] = k;
      g_assert_cmpuint (sysprof_stack_table_lookup (table, addrs, 128, &flags), ==, k);
      g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
    }
  addrs[0] = 0;
  g_assert_cmpuint (sysprof_stack_table_lookup (table, addrs, 128, &flags), ==, 1);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW | SYSPROF_STACK_TABLE_RESET);
  /* What came before is forgotten: stack 1 of the old ids is new again. */
  addrs[0] = 1;
  g_assert_cmpuint (sysprof_stack_table_lookup (table, addrs, 128, &flags), ==, 2);
  g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
  g_assert_cmpuint (sysprof_stack_table_get_mapped (table), <=, 38 * 1024 * 1024 + 4096);
  sysprof_stack_table_free (table);
}

/* A thread with a few stacks maps little. */
static void
test_small (void)
{
  SysprofStackTable *table = sysprof_stack_table_new ();
  uint64_t           addrs[20];
  unsigned int       flags;

  for (guint k = 0; k < 100; k++)
    {
      for (guint i = 0; i < 20; i++)
        addrs[i] = 0x700000 + k * 0x100 + i;
      sysprof_stack_table_lookup (table, addrs, 20, &flags);
    }
  g_assert_cmpuint (sysprof_stack_table_get_mapped (table), <, 64 * 1024);
  sysprof_stack_table_free (table);
}

/* The tables of a process share a budget beyond their free 10 MiB each:
 * past it a table empties itself rather than grow, while another table
 * still grows within its free part, and freeing a table gives back what it
 * was charged. */
static void
test_process_budget (void)
{
  size_t             before = sysprof_stack_table_get_process_charged ();
  SysprofStackTable *big = sysprof_stack_table_new ();
  SysprofStackTable *other = sysprof_stack_table_new ();
  uint64_t           addrs[32];
  unsigned int       flags;
  guint              resets_at = 0;

  /* Nothing charged for small tables. */
  g_assert_cmpuint (sysprof_stack_table_get_process_charged (), ==, before);
  sysprof_stack_table_set_process_budget (before + 2 * 1024 * 1024);

  for (guint i = 0; i < 32; i++)
    addrs[i] = 0x800000 + i * 16;
  for (guint k = 1; k <= 200000 && resets_at == 0; k++)
    {
      addrs[0] = k;
      sysprof_stack_table_lookup (big, addrs, 32, &flags);
      if (flags & SYSPROF_STACK_TABLE_RESET)
        resets_at = k;
    }
  /* 12 MiB hold tens of thousands of 32-address stacks, far from the
   * bounds (262,143 stacks, 4 Mi addresses). */
  g_assert_cmpuint (resets_at, >, 10000);
  g_assert_cmpuint (resets_at, <, 100000);
  g_assert_cmpuint (sysprof_stack_table_get_n_resets (big), ==, 1);
  g_assert_cmpuint (sysprof_stack_table_get_mapped (big), <=, 12 * 1024 * 1024 + 4096);
  g_assert_cmpuint (sysprof_stack_table_get_process_charged (), <=, before + 2 * 1024 * 1024);

  /* The other table grows within its free part all the same. */
  for (guint k = 1; k <= 20000; k++)
    {
      addrs[0] = k;
      g_assert_cmpuint (sysprof_stack_table_lookup (other, addrs, 32, &flags), ==, k);
      g_assert_cmpuint (flags, ==, SYSPROF_STACK_TABLE_NEW);
    }

  sysprof_stack_table_free (big);
  sysprof_stack_table_free (other);
  g_assert_cmpuint (sysprof_stack_table_get_process_charged (), ==, before);
  sysprof_stack_table_set_process_budget (SYSPROF_STACK_TABLE_PROCESS_BUDGET);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Preload/StackTable/ids", test_ids);
  g_test_add_func ("/Preload/StackTable/depth", test_depth);
  g_test_add_func ("/Preload/StackTable/model", test_model);
  g_test_add_func ("/Preload/StackTable/frames-bound", test_frames_bound);
  g_test_add_func ("/Preload/StackTable/small", test_small);
  g_test_add_func ("/Preload/StackTable/process-budget", test_process_budget);
  return g_test_run ();
}
