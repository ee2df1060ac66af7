// SPDX-License-Identifier: GPL-3.0-or-later
/* Comparing live allocations by site: two snapshots of one analysis, or
 * the ends of two analyses. */
#include <string.h>

#include "sysprof-memory-analysis-private.h"

typedef struct
{
  const char *name;
  const char *library;
} SiteName;

static guint
site_name_hash (gconstpointer key)
{
  const SiteName *k = key;

  return g_str_hash (k->name) * 31u + g_str_hash (k->library);
}

static gboolean
site_name_equal (gconstpointer a, gconstpointer b)
{
  const SiteName *ka = a;
  const SiteName *kb = b;

  return strcmp (ka->name, kb->name) == 0 && strcmp (ka->library, kb->library) == 0;
}

static SysprofMemoryDiffStatus
status_of (const SysprofMemoryDiffRow *row)
{
  if (row->allocations_a == 0 && row->allocations_b > 0)
    return SYSPROF_MEMORY_DIFF_NEW;
  if (row->allocations_a > 0 && row->allocations_b == 0)
    return SYSPROF_MEMORY_DIFF_GONE;
  if (row->bytes_b != row->bytes_a)
    return row->bytes_b > row->bytes_a ? SYSPROF_MEMORY_DIFF_GROWN : SYSPROF_MEMORY_DIFF_SHRUNK;
  if (row->allocations_b != row->allocations_a)
    return row->allocations_b > row->allocations_a ? SYSPROF_MEMORY_DIFF_GROWN : SYSPROF_MEMORY_DIFF_SHRUNK;
  return SYSPROF_MEMORY_DIFF_UNCHANGED;
}

static guint64
magnitude (gint64 v)
{
  return v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;
}

static gint
compare_rows (gconstpointer a, gconstpointer b)
{
  const SysprofMemoryDiffRow *ra = a;
  const SysprofMemoryDiffRow *rb = b;
  int                         cmp;

  if (magnitude (ra->delta_bytes) != magnitude (rb->delta_bytes))
    return magnitude (ra->delta_bytes) > magnitude (rb->delta_bytes) ? -1 : 1;
  if (ra->bytes_b != rb->bytes_b)
    return ra->bytes_b > rb->bytes_b ? -1 : 1;
  if ((cmp = strcmp (ra->site->name, rb->site->name)) != 0)
    return cmp;
  return strcmp (ra->site->library, rb->site->library);
}

/* Sites are matched by (name, library): within one analysis that is the
 * same as by symbol, and across two it is all there is. */
static GArray *
diff_sites (GArray *a, GArray *b)
{
  g_autoptr (GHashTable) index = g_hash_table_new_full (site_name_hash, site_name_equal, g_free, NULL);
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (SysprofMemoryDiffRow));

  for (guint side = 0; side < 2; side++)
    {
      GArray *sites = side == 0 ? a : b;

      for (guint i = 0; i < sites->len; i++)
        {
          const SysprofMemorySite *site = &g_array_index (sites, SysprofMemorySite, i);
          SiteName                 key = { site->site->name, site->site->library };
          guint                    row = GPOINTER_TO_UINT (g_hash_table_lookup (index, &key));
          SysprofMemoryDiffRow    *r;

          if (row == 0)
            {
              SysprofMemoryDiffRow empty = { .site = site->site };

              g_array_append_val (rows, empty);
              row = rows->len;
              g_hash_table_insert (index, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (row));
            }
          r = &g_array_index (rows, SysprofMemoryDiffRow, row - 1);
          if (side == 0)
            {
              r->allocations_a += site->allocations;
              r->bytes_a += site->bytes;
            }
          else
            {
              r->allocations_b += site->allocations;
              r->bytes_b += site->bytes;
            }
        }
    }

  for (guint i = 0; i < rows->len; i++)
    {
      SysprofMemoryDiffRow *r = &g_array_index (rows, SysprofMemoryDiffRow, i);

      r->delta_allocations = (gint64) (r->allocations_b - r->allocations_a);
      r->delta_bytes = (gint64) (r->bytes_b - r->bytes_a);
      r->status = status_of (r);
    }
  g_array_sort (rows, compare_rows);
  return rows;
}

GArray *
sysprof_memory_analysis_diff_snapshots (SysprofMemoryAnalysis *self, guint a, guint b)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (self), NULL);
  g_return_val_if_fail (a < self->snapshots->len, NULL);
  g_return_val_if_fail (b < self->snapshots->len, NULL);

  return diff_sites (g_ptr_array_index (self->snapshots, a), g_ptr_array_index (self->snapshots, b));
}

GArray *
sysprof_memory_analysis_diff (SysprofMemoryAnalysis *a, SysprofMemoryAnalysis *b)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (a), NULL);
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ANALYSIS (b), NULL);

  return diff_sites (a->leaks, b->leaks);
}
