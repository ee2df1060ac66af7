// SPDX-License-Identifier: GPL-3.0-or-later
/* Opens a capture with Debian's Sysprof 3.46 library (libsysprof-4), builds
 * its callgraph profile, and prints every function of the resulting tree with
 * its self samples, one "function<TAB>self_samples" line each, sorted by
 * name: what the 3.46 UI would show in its Functions list.
 *
 *   callgraph-346 CAPTURE
 *
 * libsysprof-4 does not export its StackStash accessors, so the tree is
 * walked through the node layout of the 3.46 stash (its stackstash.h in GNOME/sysprof 3.46: {u64 data;
 * u32 total; 31-bit size + 1-bit toplevel; parent, siblings, children, next},
 * the root being the second field of the stash after the reference count).
 * The walk checks what it reads and fails loudly if the layout is not that.
 * A separate executable: libsysprof-4 carries its own copy of the capture
 * library, whose symbols clash with ours. */
#include <stdio.h>
#include <string.h>

#include <sysprof.h>

typedef struct Node Node;
struct Node
{
  guint64 data; /* the interned symbol string */
  guint32 total;
  guint32 size : 31;
  guint32 toplevel : 1;
  Node   *parent;
  Node   *siblings;
  Node   *children;
  Node   *next;
};

typedef struct
{
  int   ref_count;
  Node *root;
} Stash;

static gboolean failed;

static void
generated_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  if (!sysprof_profile_generate_finish (SYSPROF_PROFILE (object), result, &error))
    {
      g_printerr ("callgraph-346: generating the profile failed: %s\n", error->message);
      failed = TRUE;
    }
  g_main_loop_quit (user_data);
}

static gboolean
walk (Node *node, Node *parent, GHashTable *self, guint depth)
{
  for (; node != NULL; node = node->siblings)
    {
      const char *name = (const char *) (gsize) node->data;
      guint       n;

      if (depth > 4096 || node->parent != parent || name == NULL || !g_utf8_validate (name, -1, NULL) ||
          node->size > node->total)
        {
          g_printerr ("callgraph-346: the stash does not have the 3.46 layout\n");
          return FALSE;
        }
      n = GPOINTER_TO_UINT (g_hash_table_lookup (self, name));
      g_hash_table_insert (self, (gpointer) name, GUINT_TO_POINTER (n + node->size));
      if (!walk (node->children, node, self, depth + 1))
        return FALSE;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr (GHashTable) self = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (SysprofProfile) profile = NULL;
  g_autoptr (GList) names = NULL;
  SysprofCaptureReader *reader;
  Stash                *stash;

  if (argc != 2)
    {
      g_printerr ("usage: callgraph-346 CAPTURE\n");
      return 2;
    }
  if ((reader = sysprof_capture_reader_new (argv[1])) == NULL)
    {
      g_printerr ("callgraph-346: libsysprof-4 cannot open %s\n", argv[1]);
      return 1;
    }
  profile = sysprof_callgraph_profile_new ();
  sysprof_profile_set_reader (profile, reader);
  sysprof_profile_generate (profile, NULL, generated_cb, loop);
  g_main_loop_run (loop);
  if (failed)
    return 1;
  if (sysprof_callgraph_profile_is_empty (SYSPROF_CALLGRAPH_PROFILE (profile)))
    {
      g_printerr ("callgraph-346: the profile is empty\n");
      return 1;
    }
  stash = sysprof_callgraph_profile_get_stash (SYSPROF_CALLGRAPH_PROFILE (profile));
  if (stash == NULL || stash->ref_count < 1 || stash->root == NULL || !walk (stash->root, NULL, self, 0))
    return 1;

  names = g_list_sort (g_hash_table_get_keys (self), (GCompareFunc) strcmp);
  for (const GList *l = names; l != NULL; l = l->next)
    printf ("%s\t%u\n", (const char *) l->data, GPOINTER_TO_UINT (g_hash_table_lookup (self, l->data)));
  sysprof_capture_reader_unref (reader);
  return 0;
}
