// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_ANALYSIS_COMPILATION
#error "sysprof-stack-stash-private.h is private to libsysprof/analysis."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* A prefix tree of stacks (the StackStash of Sysprof): every node stands for
 * the path from the root to it, so identical stacks share their nodes and
 * collapse into one count.  Nodes live in one growing array (no allocation per
 * node) and are named by their index; index 0 is the root, and a node's parent
 * always has a smaller index than the node, so walking the array in order
 * visits parents first.
 *
 * Every node carries a 128-bit hash of its path (the keys and tags from the
 * root down), and one hash table indexes the nodes by it.  Finding a child
 * of a given parent checks the parent, key and tag, so it is exact.  Adding
 * a whole path looks its deepest node up first (a stack seen before costs
 * one probe, however deep), then the deepest existing prefix by bisection;
 * there two paths are taken as the same when their hashes, last key and
 * last tag agree.  Distinct paths colliding on all 128 bits is not a
 * practical concern (and could only misplace counts, never memory). */
typedef struct _SysprofStackStash SysprofStackStash;

#define SYSPROF_STACK_STASH_ROOT 0u
#define SYSPROF_STACK_STASH_NONE 0u /* as a link: no such node (the root is nobody's child or sibling) */

typedef struct
{
  guint64 key;          /* what the caller stores: an address, a function id */
  guint64 hash[2];      /* identity of the path from the root */
  guint32 parent;       /* the root's parent is itself */
  guint32 first_child;  /* SYSPROF_STACK_STASH_NONE: a leaf */
  guint32 next_sibling; /* SYSPROF_STACK_STASH_NONE: the last child */
  guint32 mru_child;    /* the child found last, tried before the hash table */
  guint32 tag;          /* a second, small part of the key */
  guint32 depth;        /* 0 for the root */
  guint64 self;         /* weight added with this node as the innermost frame */
  guint64 total;        /* self + total of the children, once computed */
} SysprofStackNode;

SysprofStackStash *_sysprof_stack_stash_new (void);
void               _sysprof_stack_stash_free (SysprofStackStash *self);
guint32            _sysprof_stack_stash_get_n_nodes (SysprofStackStash *self);
/* Valid until the next node is added. */
SysprofStackNode *_sysprof_stack_stash_get_nodes (SysprofStackStash *self);
/* The child of @parent with (@key, @tag), added when missing (*@created then
 * TRUE; @created may be NULL).  Returns its index.  Aborts past 2^32 - 1 nodes
 * like any other failed allocation. */
guint32
_sysprof_stack_stash_child (SysprofStackStash *self, guint32 parent, guint64 key, guint32 tag, gboolean *created);
/* Adds the path of @n (@keys, @tags) pairs, outermost first, below @parent
 * and returns the node of its last pair (@parent when @n is 0).  The nodes
 * it had to create are the last ones of the array. */
guint32 _sysprof_stack_stash_add_path (
    SysprofStackStash *self, guint32 parent, const guint64 *keys, const guint32 *tags, guint n);
/* total = self + the totals of the children, for every node. */
void _sysprof_stack_stash_compute_totals (SysprofStackStash *self);
/* Reorders every list of children with @compare (on node indexes). */
void _sysprof_stack_stash_sort_children (SysprofStackStash *self, GCompareDataFunc compare, gpointer user_data);

/* Depth-first walk from the root, parents before children, children in list
 * order.  @enter runs when a node is reached, @leave (may be NULL) after its
 * subtree.  No recursion: stacks may be 65535 frames deep. */
typedef void (*SysprofStackVisitFunc) (SysprofStackStash *stash, guint32 node, gpointer user_data);
void _sysprof_stack_stash_walk (SysprofStackStash    *self,
                                SysprofStackVisitFunc enter,
                                SysprofStackVisitFunc leave,
                                gpointer              user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofStackStash, _sysprof_stack_stash_free)

/* Zeroed memory for big hash tables and node arrays.  From a size of a few
 * MB it is a mapping of its own with transparent huge pages requested:
 * random probes into tables of tens of MB are dominated by TLB misses,
 * the more so in a virtual machine.  Pass the sizes used to allocate.
 * Aborts on failure, like g_malloc. */
gpointer _sysprof_table_alloc0 (gsize size);
/* Keeps the contents; the new part is zeroed. */
gpointer _sysprof_table_realloc (gpointer data, gsize old_size, gsize new_size);
void     _sysprof_table_free (gpointer data, gsize size);
/* Room for twice as many elements of @element_size (at least 1024) in
 * @data, which holds *@allocated of them (0 with @data NULL); the new part
 * is zeroed.  Free with _sysprof_table_free (data, *allocated * element_size). */
gpointer _sysprof_table_grow (gpointer data, gsize element_size, guint32 *allocated);

/* While a scope is open in a thread, the big tables it frees are kept for
 * its next big allocations (reused memory is much cheaper than fresh), and
 * unmapped when the outermost scope closes.  Open one around an analysis:
 *   g_auto (SysprofTableScope) scope G_GNUC_UNUSED = _sysprof_table_scope_enter ();
 * declared before the tables it should outlive. */
typedef gboolean  SysprofTableScope;
SysprofTableScope _sysprof_table_scope_enter (void);
void              _sysprof_table_scope_leave (SysprofTableScope scope);
G_DEFINE_AUTO_CLEANUP_FREE_FUNC (SysprofTableScope, _sysprof_table_scope_leave, FALSE)

G_END_DECLS
