// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "sysprof-stack-stash-private.h"

#define BIG_TABLE (4u << 20)
#define PAGE      4096u
#define N_KEPT    16u

/* Big tables freed inside a scope (_sysprof_table_scope_enter()) are kept
 * for the next big allocation of the same thread instead of unmapped.
 * Touching a page for the first time costs far more than zeroing it again
 * (in the 2-vCPU virtual machine of bench/: up to 1.5 ms per MB with huge
 * pages, 2.6 ms with 4 KB pages, against 0.03 ms for a memset()), and an
 * analysis frees big tables right before it needs others (a callgraph
 * drops its raw stacks, 100 MB for a million samples of 220,000 stacks,
 * just before it lays out its nodes). */
typedef struct
{
  guint8 *data;
  gsize   size; /* a multiple of PAGE */
} Kept;

/* Tables that grow by doubling leave each older generation behind, which
 * a later, bigger request cannot use: what is kept is capped in bytes too,
 * so the reuse never raises the peak by more than this. */
#define KEPT_MAX_BYTES ((gsize) 256 << 20)

static __thread struct
{
  guint depth;
  guint n_kept;
  gsize kept_bytes;
  Kept  kept[N_KEPT];
} tables;

static gsize
page_round (gsize size)
{
  return (size + PAGE - 1) & ~(gsize) (PAGE - 1);
}

/* The smallest kept mapping of at least @size bytes, cut to size (the rest
 * stays kept), or NULL.  Its contents are whatever was left in it. */
static gpointer
take_kept (gsize size)
{
  gsize   need = page_round (size);
  guint   best = N_KEPT;
  guint8 *data;

  for (guint i = 0; i < tables.n_kept; i++)
    if (tables.kept[i].size >= need && (best == N_KEPT || tables.kept[i].size < tables.kept[best].size))
      best = i;
  if (best == N_KEPT)
    return NULL;
  data = tables.kept[best].data;
  tables.kept_bytes -= need;
  if (tables.kept[best].size > need)
    {
      tables.kept[best].data += need;
      tables.kept[best].size -= need;
    }
  else
    tables.kept[best] = tables.kept[--tables.n_kept];
  return data;
}

static void
unmap (gpointer data, gsize size)
{
  if (munmap (data, size) != 0)
    g_error ("%s: failed to unmap %" G_GSIZE_FORMAT " bytes: %s", G_STRLOC, size, g_strerror (errno));
}

static void
keep_or_unmap (gpointer data, gsize size)
{
  size = page_round (size);
  if (tables.depth > 0 && tables.n_kept < N_KEPT && tables.kept_bytes + size <= KEPT_MAX_BYTES)
    {
      tables.kept[tables.n_kept++] = (Kept){ data, size };
      tables.kept_bytes += size;
    }
  else
    unmap (data, size);
}

SysprofTableScope
_sysprof_table_scope_enter (void)
{
  tables.depth++;
  return TRUE;
}

void
_sysprof_table_scope_leave (SysprofTableScope scope)
{
  (void) scope;
  g_return_if_fail (tables.depth > 0);

  if (--tables.depth > 0)
    return;
  for (guint i = 0; i < tables.n_kept; i++)
    unmap (tables.kept[i].data, tables.kept[i].size);
  tables.n_kept = 0;
  tables.kept_bytes = 0;
}

gpointer
_sysprof_table_alloc0 (gsize size)
{
  gpointer data;

  if (size < BIG_TABLE)
    return g_malloc0 (size);
  /* Up to the end of the last page: a later mremap() to grow the table
   * keeps that page and takes the bytes past @size for zeros. */
  if ((data = take_kept (size)) != NULL)
    {
      memset (data, 0, page_round (size));
      return data;
    }
  data = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED)
    g_error ("%s: failed to map %" G_GSIZE_FORMAT " bytes", G_STRLOC, size);
  (void) madvise (data, size, MADV_HUGEPAGE);
  return data;
}

gpointer
_sysprof_table_realloc (gpointer data, gsize old_size, gsize new_size)
{
  gpointer moved;

  if (new_size < BIG_TABLE)
    {
      moved = g_realloc (data, new_size);
      if (new_size > old_size)
        memset ((guint8 *) moved + old_size, 0, new_size - old_size);
      return moved;
    }
  if (old_size < BIG_TABLE)
    {
      moved = _sysprof_table_alloc0 (new_size);
      memcpy (moved, data, MIN (old_size, new_size));
      g_free (data);
      return moved;
    }
  if (new_size > old_size && (moved = take_kept (new_size)) != NULL)
    {
      memcpy (moved, data, old_size);
      memset ((guint8 *) moved + old_size, 0, page_round (new_size) - old_size);
      keep_or_unmap (data, old_size);
      return moved;
    }
  /* Anonymous pages past the old end come zeroed. */
  moved = mremap (data, old_size, new_size, MREMAP_MAYMOVE);
  if (moved == MAP_FAILED)
    g_error ("%s: failed to grow a mapping to %" G_GSIZE_FORMAT " bytes", G_STRLOC, new_size);
  (void) madvise (moved, new_size, MADV_HUGEPAGE);
  return moved;
}

gpointer
_sysprof_table_grow (gpointer data, gsize element_size, guint32 *allocated)
{
  guint32 old = *allocated;
  guint32 grown;

  if (old >= G_MAXUINT32 / 2)
    g_error ("%s: more than %u elements", G_STRLOC, old);
  grown = MAX (old * 2, 1024u);
  data = data == NULL ? _sysprof_table_alloc0 (grown * element_size)
                      : _sysprof_table_realloc (data, old * element_size, grown * element_size);
  *allocated = grown;
  return data;
}

void
_sysprof_table_free (gpointer data, gsize size)
{
  if (data == NULL)
    return;
  if (size < BIG_TABLE)
    g_free (data);
  else
    keep_or_unmap (data, size);
}

struct _SysprofStackStash
{
  SysprofStackNode *nodes;
  guint32           n_nodes;
  guint32           n_allocated;
  /* Open addressing on hash[0], linear probing: node indexes, 0 = empty
   * slot (the root is nobody's child).  Kept at most half full. */
  guint32 *table;
  guint32  table_mask;
  /* add_path: the path hashes of the levels being added. */
  guint64 *scratch;
  guint    scratch_size;
};

#define SEED_A G_GUINT64_CONSTANT (0x243f6a8885a308d3)
#define SEED_B G_GUINT64_CONSTANT (0x13198a2e03707344)

/* One level down: two independent lanes, each a bijection of the parent's
 * hash for a given (key, tag), so siblings never share a hash and distinct
 * paths agree on both lanes only by chance (2^-128). */
static inline void
path_step (const guint64 parent[2], guint64 key, guint32 tag, guint64 out[2])
{
  guint64 k = key ^ ((guint64) tag * G_GUINT64_CONSTANT (0xd6e8feb86659fd93));
  guint64 a = (parent[0] ^ k) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 b = (parent[1] + k) * G_GUINT64_CONSTANT (0xc2b2ae3d27d4eb4f);

  out[0] = a ^ (a >> 29) ^ (a >> 47);
  out[1] = (b << 31 | b >> 33) ^ (b >> 41);
}

static inline guint32
slot_of (const SysprofStackStash *self, const guint64 hash[2])
{
  return (guint32) (hash[0] ^ (hash[0] >> 32)) & self->table_mask;
}

SysprofStackStash *
_sysprof_stack_stash_new (void)
{
  SysprofStackStash *self = g_new0 (SysprofStackStash, 1);

  self->n_allocated = 1024;
  self->nodes = _sysprof_table_alloc0 (self->n_allocated * sizeof (SysprofStackNode));
  self->n_nodes = 1; /* the root, all zero but its hash: its parent is itself */
  self->nodes[0].hash[0] = SEED_A;
  self->nodes[0].hash[1] = SEED_B;
  self->table_mask = 2048 - 1;
  self->table = _sysprof_table_alloc0 ((self->table_mask + 1) * sizeof (guint32));
  return self;
}

void
_sysprof_stack_stash_free (SysprofStackStash *self)
{
  if (self == NULL)
    return;
  _sysprof_table_free (self->nodes, self->n_allocated * sizeof (SysprofStackNode));
  _sysprof_table_free (self->table, (self->table_mask + 1) * (gsize) sizeof (guint32));
  g_free (self->scratch);
  g_free (self);
}

guint32
_sysprof_stack_stash_get_n_nodes (SysprofStackStash *self)
{
  return self->n_nodes;
}

SysprofStackNode *
_sysprof_stack_stash_get_nodes (SysprofStackStash *self)
{
  return self->nodes;
}

static inline guint32
free_slot (const SysprofStackStash *self, const guint64 hash[2])
{
  guint32 slot = slot_of (self, hash);

  while (self->table[slot] != 0)
    slot = (slot + 1) & self->table_mask;
  return slot;
}

/* Room for one more node, in the array and in the table. */
static G_GNUC_NO_INLINE void
grow (SysprofStackStash *self)
{
  if (self->n_nodes == self->n_allocated)
    {
      if (self->n_allocated >= G_MAXUINT32 / 2)
        g_error ("stack stash: more than %u nodes", self->n_allocated);
      self->nodes = _sysprof_table_realloc (self->nodes, self->n_allocated * sizeof (SysprofStackNode),
                                            self->n_allocated * 2 * sizeof (SysprofStackNode));
      self->n_allocated *= 2;
    }

  if ((guint64) self->n_nodes * 2 > self->table_mask)
    {
      guint32 capacity = (self->table_mask + 1) * 2;

      _sysprof_table_free (self->table, (self->table_mask + 1) * (gsize) sizeof (guint32));
      self->table = _sysprof_table_alloc0 (capacity * (gsize) sizeof (guint32));
      self->table_mask = capacity - 1;
      for (guint32 i = 1; i < self->n_nodes; i++)
        self->table[free_slot (self, self->nodes[i].hash)] = i;
    }
}

static inline void
ensure_room (SysprofStackStash *self)
{
  if (G_UNLIKELY (self->n_nodes == self->n_allocated || (guint64) self->n_nodes * 2 > self->table_mask))
    grow (self);
}

/* Appends a child known to be missing. */
static guint32
append_child (SysprofStackStash *self, guint32 parent, guint64 key, guint32 tag, const guint64 hash[2])
{
  SysprofStackNode *nodes;
  guint32           index;

  ensure_room (self);
  nodes = self->nodes;
  index = self->n_nodes++;
  nodes[index] = (SysprofStackNode){
    .key = key,
    .hash = { hash[0], hash[1] },
    .parent = parent,
    .first_child = SYSPROF_STACK_STASH_NONE,
    .next_sibling = nodes[parent].first_child,
    .tag = tag,
    .depth = nodes[parent].depth + 1,
  };
  nodes[parent].first_child = index;
  nodes[parent].mru_child = index;
  self->table[free_slot (self, hash)] = index;
  return index;
}

/* The node whose path hash is @hash and whose own pair is (@key, @tag), or 0. */
static inline guint32
find_path (const SysprofStackStash *self, const guint64 hash[2], guint64 key, guint32 tag)
{
  const SysprofStackNode *nodes = self->nodes;
  guint32                 slot = slot_of (self, hash);
  guint32                 index;

  while ((index = self->table[slot]) != 0)
    {
      const SysprofStackNode *node = &nodes[index];

      if (node->hash[0] == hash[0] && node->hash[1] == hash[1] && node->key == key && node->tag == tag)
        return index;
      slot = (slot + 1) & self->table_mask;
    }
  return 0;
}

guint32
_sysprof_stack_stash_child (SysprofStackStash *self, guint32 parent, guint64 key, guint32 tag, gboolean *created)
{
  SysprofStackNode *nodes = self->nodes;
  guint32           mru = nodes[parent].mru_child;
  guint64           hash[2];
  guint32           slot;
  guint32           index;

  if (created != NULL)
    *created = FALSE;

  if (mru != 0 && nodes[mru].key == key && nodes[mru].tag == tag)
    return mru;

  path_step (nodes[parent].hash, key, tag, hash);
  slot = slot_of (self, hash);
  while ((index = self->table[slot]) != 0)
    {
      if (nodes[index].hash[0] == hash[0] && nodes[index].parent == parent && nodes[index].key == key &&
          nodes[index].tag == tag)
        {
          nodes[parent].mru_child = index;
          return index;
        }
      slot = (slot + 1) & self->table_mask;
    }

  if (created != NULL)
    *created = TRUE;
  return append_child (self, parent, key, tag, hash);
}

guint32
_sysprof_stack_stash_add_path (
    SysprofStackStash *self, guint32 parent, const guint64 *keys, const guint32 *tags, guint n)
{
  guint64 *h;
  guint    lo, hi;
  guint32  node;
  guint32  found;

  if (n == 0)
    return parent;

  if (G_UNLIKELY (self->scratch_size < n))
    {
      self->scratch_size = MAX (n, 64u);
      g_free (self->scratch);
      self->scratch = g_new (guint64, 2 * (gsize) self->scratch_size);
    }
  h = self->scratch;

  /* h[2i], h[2i+1]: the hash of the path down to keys[i]. */
  path_step (self->nodes[parent].hash, keys[0], tags[0], &h[0]);
  for (guint i = 1; i < n; i++)
    path_step (&h[2 * (i - 1)], keys[i], tags[i], &h[2 * i]);

  /* Seen before: the common case. */
  if ((found = find_path (self, &h[2 * (n - 1)], keys[n - 1], tags[n - 1])) != 0)
    return found;

  /* The deepest level that exists: levels are prefixes, so existence goes
   * from true (level 0, @parent) to false (level n) exactly once.  lo
   * exists (its node in @node), hi does not. */
  lo = 0;
  hi = n;
  node = parent;
  if (n >= 2 && (found = find_path (self, &h[2 * (n - 2)], keys[n - 2], tags[n - 2])) != 0)
    lo = n - 1, node = found;
  else
    {
      if (n >= 2)
        hi = n - 1;
      while (hi - lo > 1)
        {
          guint mid = lo + (hi - lo) / 2;

          if ((found = find_path (self, &h[2 * (mid - 1)], keys[mid - 1], tags[mid - 1])) != 0)
            lo = mid, node = found;
          else
            hi = mid;
        }
    }

  for (guint level = lo + 1; level <= n; level++)
    node = append_child (self, node, keys[level - 1], tags[level - 1], &h[2 * (level - 1)]);
  return node;
}

void
_sysprof_stack_stash_compute_totals (SysprofStackStash *self)
{
  SysprofStackNode *nodes = self->nodes;

  for (guint32 i = 0; i < self->n_nodes; i++)
    nodes[i].total = nodes[i].self;
  /* Children come after their parent in the array. */
  for (guint32 i = self->n_nodes - 1; i > 0; i--)
    nodes[nodes[i].parent].total += nodes[i].total;
}

typedef struct
{
  GCompareDataFunc compare;
  gpointer         user_data;
} SortClosure;

/* Lists of children up to this long are sorted by insertion. */
#define SHORT_LIST 16u

static gint
compare_indexes (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SortClosure *closure = user_data;

  return closure->compare (GUINT_TO_POINTER (*(const guint32 *) a), GUINT_TO_POINTER (*(const guint32 *) b),
                           closure->user_data);
}

void
_sysprof_stack_stash_sort_children (SysprofStackStash *self, GCompareDataFunc compare, gpointer user_data)
{
  SysprofStackNode *nodes = self->nodes;
  g_autoptr (GArray) children = g_array_new (FALSE, FALSE, sizeof (guint32));
  SortClosure closure = { compare, user_data };

  for (guint32 i = 0; i < self->n_nodes; i++)
    {
      guint32 *sorted;

      if (nodes[i].first_child == SYSPROF_STACK_STASH_NONE ||
          nodes[nodes[i].first_child].next_sibling == SYSPROF_STACK_STASH_NONE)
        continue;

      g_array_set_size (children, 0);
      for (guint32 c = nodes[i].first_child; c != SYSPROF_STACK_STASH_NONE; c = nodes[c].next_sibling)
        g_array_append_val (children, c);
      sorted = (guint32 *) (gpointer) children->data;
      /* Most lists are short: an insertion sort, stable like
       * g_qsort_with_data(), spares its setup on each of them. */
      if (children->len <= SHORT_LIST)
        for (guint j = 1; j < children->len; j++)
          {
            guint32 moving = sorted[j];
            guint   k = j;

            for (; k > 0 && compare (GUINT_TO_POINTER (sorted[k - 1]), GUINT_TO_POINTER (moving), user_data) > 0; k--)
              sorted[k] = sorted[k - 1];
            sorted[k] = moving;
          }
      else
        g_qsort_with_data (sorted, children->len, sizeof (guint32), compare_indexes, &closure);

      nodes[i].first_child = sorted[0];
      for (guint j = 0; j + 1 < children->len; j++)
        nodes[sorted[j]].next_sibling = sorted[j + 1];
      nodes[sorted[children->len - 1]].next_sibling = SYSPROF_STACK_STASH_NONE;
    }
}

void
_sysprof_stack_stash_walk (SysprofStackStash    *self,
                           SysprofStackVisitFunc enter,
                           SysprofStackVisitFunc leave,
                           gpointer              user_data)
{
  guint32 current = SYSPROF_STACK_STASH_ROOT;

  enter (self, current, user_data);
  for (;;)
    {
      guint32 child = self->nodes[current].first_child;

      if (child != SYSPROF_STACK_STASH_NONE)
        {
          current = child;
          enter (self, current, user_data);
          continue;
        }

      /* Done with @current's subtree: leave it and the ancestors whose last
       * child it closes, then step to the next sibling. */
      for (;;)
        {
          guint32 sibling;

          if (leave != NULL)
            leave (self, current, user_data);
          if (current == SYSPROF_STACK_STASH_ROOT)
            return;
          sibling = self->nodes[current].next_sibling;
          if (sibling != SYSPROF_STACK_STASH_NONE)
            {
              current = sibling;
              enter (self, current, user_data);
              break;
            }
          current = self->nodes[current].parent;
        }
    }
}
