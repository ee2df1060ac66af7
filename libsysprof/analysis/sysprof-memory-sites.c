// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-memory-sites-private.h"

struct _SysprofMemorySites
{
  SysprofSymbolizer      *symbolizer;
  const SysprofStackNode *nodes;
  const gint64           *times;
  const SysprofSymbol    *no_stack;
  gint32                 *pids;    /* per node: the pid of its process */
  const SysprofSymbol   **symbols; /* per node, NULL until looked up */
  const SysprofSymbol   **sites;   /* per node, NULL until known */
  /* pid → (guint64 * address → symbol): one lookup per distinct
   * (pid, address), whatever the number of nodes holding it. */
  GHashTable *by_pid;
};

SysprofMemorySites *
_sysprof_memory_sites_new (SysprofSymbolizer      *symbolizer,
                           const SysprofStackNode *nodes,
                           guint32                 n_nodes,
                           const gint64           *times,
                           const SysprofSymbol    *no_stack)
{
  SysprofMemorySites *self = g_new0 (SysprofMemorySites, 1);

  self->symbolizer = symbolizer;
  self->nodes = nodes;
  self->times = times;
  self->no_stack = no_stack;
  self->pids = g_new0 (gint32, n_nodes);
  self->symbols = g_new0 (const SysprofSymbol *, n_nodes);
  self->sites = g_new0 (const SysprofSymbol *, n_nodes);
  self->by_pid = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_hash_table_unref);
  /* Parents come first in the array. */
  for (guint32 i = 1; i < n_nodes; i++)
    self->pids[i] = nodes[i].depth == 1 ? (gint32) (guint32) nodes[i].key : self->pids[nodes[i].parent];
  return self;
}

void
_sysprof_memory_sites_free (SysprofMemorySites *self)
{
  if (self == NULL)
    return;
  g_free (self->pids);
  g_free (self->symbols);
  g_free (self->sites);
  g_hash_table_unref (self->by_pid);
  g_free (self);
}

static const SysprofSymbol *
symbol_of (SysprofMemorySites *self, guint32 node)
{
  GHashTable          *addresses;
  const SysprofSymbol *symbol;

  if (self->symbols[node] != NULL)
    return self->symbols[node];

  addresses = g_hash_table_lookup (self->by_pid, GINT_TO_POINTER (self->pids[node]));
  if (addresses == NULL)
    {
      addresses = g_hash_table_new (g_int64_hash, g_int64_equal);
      g_hash_table_insert (self->by_pid, GINT_TO_POINTER (self->pids[node]), addresses);
    }
  /* The key points into the node array, which outlives the table. */
  symbol = g_hash_table_lookup (addresses, &self->nodes[node].key);
  if (symbol == NULL)
    {
      symbol = sysprof_symbolizer_lookup (self->symbolizer, self->pids[node], self->times[node],
                                          SYSPROF_ADDRESS_CONTEXT_USER, self->nodes[node].key);
      g_hash_table_insert (addresses, (gpointer) &self->nodes[node].key, (gpointer) symbol);
    }
  self->symbols[node] = symbol;
  return symbol;
}

const SysprofSymbol *
_sysprof_memory_sites_get (SysprofMemorySites *self, guint32 node)
{
  const SysprofSymbol *site = NULL;
  guint32              current = node;

  if (self->nodes[node].depth <= 1)
    return self->no_stack;

  /* Outwards from @node until a frame outside the allocator, a node whose
   * site is known, or the outermost frame. */
  for (;;)
    {
      const SysprofSymbol *symbol;

      if (self->sites[current] != NULL)
        {
          site = self->sites[current];
          break;
        }
      symbol = symbol_of (self, current);
      if (!sysprof_memory_symbol_is_allocator (symbol) || self->nodes[current].depth == 2)
        {
          site = symbol;
          break;
        }
      current = self->nodes[current].parent;
    }

  /* Every node passed on the way has the same site. */
  for (current = node; self->sites[current] == NULL; current = self->nodes[current].parent)
    {
      self->sites[current] = site;
      if (self->nodes[current].depth == 2)
        break;
    }
  return site;
}

void
_sysprof_memory_sites_accumulate (
    GArray *rows, GHashTable *index, const SysprofSymbol *site, guint64 allocations, guint64 bytes)
{
  guint              row = GPOINTER_TO_UINT (g_hash_table_lookup (index, site));
  SysprofMemorySite *entry;

  if (row == 0)
    {
      SysprofMemorySite empty = { site, 0, 0 };

      g_array_append_val (rows, empty);
      row = rows->len;
      g_hash_table_insert (index, (gpointer) site, GUINT_TO_POINTER (row));
    }
  entry = &g_array_index (rows, SysprofMemorySite, row - 1);
  entry->allocations += allocations;
  entry->bytes += bytes;
}

gint
_sysprof_memory_site_compare (gconstpointer a, gconstpointer b)
{
  const SysprofMemorySite *sa = a;
  const SysprofMemorySite *sb = b;
  int                      cmp;

  if (sa->bytes != sb->bytes)
    return sa->bytes > sb->bytes ? -1 : 1;
  if (sa->allocations != sb->allocations)
    return sa->allocations > sb->allocations ? -1 : 1;
  cmp = strcmp (sa->site->name, sb->site->name);
  return cmp != 0 ? cmp : strcmp (sa->site->library, sb->site->library);
}
