// SPDX-License-Identifier: GPL-3.0-or-later
/* bench-stack-table.c
 *
 * ns per lookup in the memory tracker's stack table (preload/sysprof-stack-
 * table.c), the step between unwinding an allocation's stack and writing its
 * record, on the mix a program makes: DISTINCT stacks (-s, default 2000) of
 * 10 to 40 return addresses in four libraries, looked up N times (-n,
 * default 10,000,000), the k-th most frequent stack about 1/k of the time
 * (Zipf), so most lookups repeat a few hot stacks and a long tail recurs now
 * and then.  The peer, in the same run: a GHashTable keyed by copies of the
 * arrays (hash of the addresses, memcmp to compare), as a general-purpose
 * table would do it.
 *
 * Prints one line per table: ns per lookup, the stacks it knows at the end,
 * and the memory it maps; then the ratio.
 * Usage: bench-stack-table [-n LOOKUPS] [-s DISTINCT]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "sysprof-stack-table.h"

typedef struct
{
  uint64_t addrs[40];
  guint    n;
} Stack;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * UINT64_C (1000000000) + (uint64_t) ts.tv_nsec;
}

static guint
stack_hash (gconstpointer key)
{
  const Stack *s = key;
  guint64      h = s->n;

  for (guint i = 0; i < s->n; i++)
    h = (h ^ s->addrs[i]) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (guint) (h >> 32);
}

static gboolean
stack_equal (gconstpointer a, gconstpointer b)
{
  const Stack *x = a, *y = b;

  return x->n == y->n && memcmp (x->addrs, y->addrs, x->n * sizeof x->addrs[0]) == 0;
}

int
main (int argc, char **argv)
{
  unsigned long      n_lookups = 10000000, n_distinct = 2000;
  SysprofStackTable *table;
  GHashTable        *peer;
  g_autoptr (GRand) rand = g_rand_new_with_seed (16);
  Stack        *stacks;
  guint32      *order;
  double       *cumulative, total = 0;
  uint64_t      t0, t1, t2, sink = 0;
  unsigned int  flags;
  unsigned long frames = 0;
  int           opt;

  while ((opt = getopt (argc, argv, "n:s:")) != -1)
    {
      if (opt == 'n')
        n_lookups = strtoul (optarg, NULL, 10);
      else if (opt == 's')
        n_distinct = strtoul (optarg, NULL, 10);
      else
        {
          fprintf (stderr, "usage: %s [-n LOOKUPS] [-s DISTINCT]\n", argv[0]);
          return 2;
        }
    }
  if (n_lookups == 0 || n_distinct == 0)
    {
      fprintf (stderr, "bench-stack-table: -n and -s must be positive\n");
      return 2;
    }

  /* The stacks share their outer frames (main, the event loop), as a
   * program's do: same prefix from the outermost end, distinct inner part. */
  stacks = g_new0 (Stack, n_distinct);
  for (gulong k = 0; k < n_distinct; k++)
    {
      Stack *s = &stacks[k];

      s->n = (guint) g_rand_int_range (rand, 10, 41);
      for (guint i = 0; i < s->n; i++)
        {
          guint from_top = s->n - 1 - i;

          if (from_top < 6)
            s->addrs[i] = G_GUINT64_CONSTANT (0x55d4c0000000) + from_top * 0x40 + 7;
          else
            s->addrs[i] = G_GUINT64_CONSTANT (0x7f3a00000000) + (guint64) g_rand_int_range (rand, 0, 4) * 0x10000000 +
                          (guint64) g_rand_int_range (rand, 0, 1 << 20) * 5;
        }
    }
  /* Zipf: a draw picks stack k with probability proportional to 1/(k+1). */
  cumulative = g_new (double, n_distinct);
  for (gulong k = 0; k < n_distinct; k++)
    cumulative[k] = total += 1.0 / (double) (k + 1);
  order = g_new (guint32, n_lookups);
  for (gulong i = 0; i < n_lookups; i++)
    {
      double  x = g_rand_double (rand) * total;
      guint32 lo = 0, hi = (guint32) n_distinct - 1;

      while (lo < hi)
        {
          guint32 mid = (lo + hi) / 2;

          if (cumulative[mid] < x)
            lo = mid + 1;
          else
            hi = mid;
        }
      order[i] = lo;
      frames += stacks[lo].n;
    }

  table = sysprof_stack_table_new ();
  peer = g_hash_table_new_full (stack_hash, stack_equal, g_free, NULL);
  t0 = now_ns ();
  for (gulong i = 0; i < n_lookups; i++)
    {
      const Stack *s = &stacks[order[i]];

      sink += sysprof_stack_table_lookup (table, s->addrs, s->n, &flags);
    }
  t1 = now_ns ();
  for (gulong i = 0; i < n_lookups; i++)
    {
      Stack   *s = &stacks[order[i]];
      gpointer id;

      if ((id = g_hash_table_lookup (peer, s)) == NULL)
        {
          /* A copy, as the tracker's table keeps: the caller's array is
           * reused for the next stack. */
          id = GUINT_TO_POINTER (g_hash_table_size (peer) + 1);
          g_hash_table_insert (peer, g_memdup2 (s, sizeof *s), id);
        }
      sink += GPOINTER_TO_UINT (id);
    }
  t2 = now_ns ();

  printf ("stack-table lookups=%lu distinct=%lu mean_depth=%.1f ns_per_lookup=%.1f stacks=%u mapped_kib=%zu\n",
          n_lookups, n_distinct, (double) frames / (double) n_lookups, (double) (t1 - t0) / (double) n_lookups,
          sysprof_stack_table_get_n_stacks (table), sysprof_stack_table_get_mapped (table) / 1024);
  printf ("ghashtable  lookups=%lu distinct=%lu ns_per_lookup=%.1f stacks=%u\n", n_lookups, n_distinct,
          (double) (t2 - t1) / (double) n_lookups, g_hash_table_size (peer));
  printf ("ratio ghashtable/stack-table=%.2f (checksum %" G_GUINT64_FORMAT ")\n",
          (double) (t2 - t1) / (double) (t1 - t0), sink);
  sysprof_stack_table_free (table);
  g_hash_table_unref (peer);
  g_free (stacks);
  g_free (order);
  g_free (cumulative);
  return 0;
}
