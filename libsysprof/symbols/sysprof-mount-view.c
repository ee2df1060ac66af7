// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-elf-private.h"
#include "sysprof-mount-view-private.h"

/* The processes of a view the host may be asked about, in turn, when it
 * says the previous one is gone: short-lived ones are often gone by the
 * time decoding starts. */
#define MAX_ASKED_PIDS 4

typedef struct
{
  char   **candidates; /* host paths from the captured mount tables, best first */
  gboolean foreign;    /* only the host can tell: the view is not ours */
  gboolean planned;
  gboolean asked;
  char    *host_path; /* the host's answer, or NULL */
} PathInfo;

typedef struct
{
  char   *filename;
  guint64 inode;
} ElfKey;

struct _SysprofMountView
{
  GBytes                *mountinfo; /* NULL: one process whose namespace is unknown */
  SysprofMountNamespace *ns;
  gboolean               ns_tried;
  GArray                *pids;   /* gint32, at most MAX_ASKED_PIDS, not seen exiting */
  SysprofElfLoader      *loader; /* with the host's debug directories of this view, or NULL */
  gboolean               dirs_planned;
  gboolean               dirs_asked;
  GHashTable            *paths; /* clean path -> PathInfo */
  GHashTable            *elves; /* ElfKey -> SysprofElf* (NULL: none) */
};

typedef struct
{
  SysprofMountView *view;
  PathInfo         *info;
  const char       *path; /* the key of info in view->paths */
} PathQuestion;

struct _SysprofMountViews
{
  SysprofMountTable    *host_mounts;
  SysprofElfLoader     *loader;
  GStrv                 debug_dirs;
  GHashTable           *by_text; /* GBytes mountinfo -> SysprofMountView */
  GPtrArray            *views;   /* owns them */
  SysprofSymbolizerHost host;
  gpointer              host_data;
  GPtrArray            *planned_dirs;  /* SysprofMountView */
  GArray               *planned_paths; /* PathQuestion */
  guint                 n_questions;
};

static void
path_info_free (gpointer data)
{
  PathInfo *info = data;

  g_strfreev (info->candidates);
  g_free (info->host_path);
  g_free (info);
}

static guint
elf_key_hash (gconstpointer data)
{
  const ElfKey *key = data;

  return g_str_hash (key->filename) ^ (guint) (key->inode ^ (key->inode >> 32));
}

static gboolean
elf_key_equal (gconstpointer a, gconstpointer b)
{
  const ElfKey *ka = a, *kb = b;

  return ka->inode == kb->inode && strcmp (ka->filename, kb->filename) == 0;
}

static void
elf_key_free (gpointer data)
{
  ElfKey *key = data;

  g_free (key->filename);
  g_free (key);
}

static void
view_free (gpointer data)
{
  SysprofMountView *view = data;

  g_clear_pointer (&view->mountinfo, g_bytes_unref);
  g_clear_pointer (&view->ns, sysprof_mount_namespace_unref);
  g_clear_pointer (&view->pids, g_array_unref);
  g_clear_pointer (&view->loader, sysprof_elf_loader_unref);
  g_clear_pointer (&view->paths, g_hash_table_unref);
  g_clear_pointer (&view->elves, g_hash_table_unref);
  g_free (view);
}

SysprofMountViews *
sysprof_mount_views_new (SysprofMountTable *host, SysprofElfLoader *loader, const char *const *debug_dirs)
{
  SysprofMountViews *self = g_new0 (SysprofMountViews, 1);

  g_return_val_if_fail (loader != NULL, NULL);

  self->host_mounts = host ? sysprof_mount_table_ref (host) : NULL;
  self->loader = sysprof_elf_loader_ref (loader);
  self->debug_dirs = g_strdupv ((char **) debug_dirs);
  self->by_text = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  self->views = g_ptr_array_new_with_free_func (view_free);
  self->planned_dirs = g_ptr_array_new ();
  self->planned_paths = g_array_new (FALSE, FALSE, sizeof (PathQuestion));
  return self;
}

void
sysprof_mount_views_free (SysprofMountViews *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->host_mounts, sysprof_mount_table_unref);
  g_clear_pointer (&self->loader, sysprof_elf_loader_unref);
  g_strfreev (self->debug_dirs);
  g_hash_table_unref (self->by_text);
  g_ptr_array_unref (self->views);
  g_ptr_array_unref (self->planned_dirs);
  g_array_unref (self->planned_paths);
  g_free (self);
}

void
sysprof_mount_views_set_host (SysprofMountViews *self, const SysprofSymbolizerHost *host, gpointer user_data)
{
  g_return_if_fail (self != NULL);

  if (host != NULL)
    self->host = *host;
  else
    memset (&self->host, 0, sizeof self->host);
  self->host_data = user_data;
}

guint
sysprof_mount_views_get_n_questions (SysprofMountViews *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_questions;
}

SysprofMountView *
sysprof_mount_views_get (SysprofMountViews *self, const guint8 *mountinfo, gsize len, gint32 pid, gboolean exited)
{
  SysprofMountView *view = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  if (mountinfo != NULL)
    {
      g_autoptr (GBytes) key = g_bytes_new_static (mountinfo, len);
      view = g_hash_table_lookup (self->by_text, key);
    }
  if (view == NULL)
    {
      view = g_new0 (SysprofMountView, 1);
      view->pids = g_array_new (FALSE, FALSE, sizeof (gint32));
      view->paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, path_info_free);
      view->elves =
          g_hash_table_new_full (elf_key_hash, elf_key_equal, elf_key_free, (GDestroyNotify) sysprof_elf_unref);
      g_ptr_array_add (self->views, view);
      if (mountinfo != NULL)
        {
          view->mountinfo = g_bytes_new (mountinfo, len);
          g_hash_table_insert (self->by_text, view->mountinfo, view);
        }
    }

  /* A few processes are enough to find one still running.  One the capture
   * saw exit is never asked about: its pid may name another process now. */
  if (!exited && view->pids->len < MAX_ASKED_PIDS)
    g_array_append_val (view->pids, pid);
  return view;
}

static SysprofMountNamespace *
view_namespace (SysprofMountViews *self, SysprofMountView *view)
{
  if (!view->ns_tried)
    {
      gsize         len = 0;
      gconstpointer text = view->mountinfo ? g_bytes_get_data (view->mountinfo, &len) : NULL;

      view->ns_tried = TRUE;
      if (text != NULL && self->host_mounts != NULL)
        view->ns = sysprof_mount_namespace_new_with_host (text, len, self->host_mounts);
    }
  return view->ns;
}

SysprofMountNamespace *
sysprof_mount_view_get_namespace (SysprofMountViews *self, SysprofMountView *view)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (view != NULL, NULL);
  return view_namespace (self, view);
}

static char *
clean_path (const char *filename)
{
  char *clean = g_strdup (filename);

  if (g_str_has_suffix (clean, " (deleted)"))
    clean[strlen (clean) - strlen (" (deleted)")] = '\0';
  return clean;
}

/* What the captured mount tables say about @path in @view; @key_out is the
 * copy of @path the view keeps. */
static PathInfo *
path_info (SysprofMountViews *self, SysprofMountView *view, const char *path, const char **key_out)
{
  gpointer key = NULL, value = NULL;

  if (!g_hash_table_lookup_extended (view->paths, path, &key, &value))
    {
      SysprofMountNamespace *ns = view_namespace (self, view);
      PathInfo              *info = g_new0 (PathInfo, 1);

      info->candidates = ns ? sysprof_mount_namespace_translate (ns, path) : NULL;
      /* The host is asked only about views that are not ours (or that the
       * capture does not show). */
      info->foreign = ns == NULL || info->candidates == NULL || info->candidates[0] == NULL ||
                      strcmp (info->candidates[0], path) != 0;
      key = g_strdup (path);
      value = info;
      g_hash_table_insert (view->paths, key, value);
    }
  *key_out = key;
  return value;
}

/* Debug directories of the view: its files are looked for there first.
 * Files loaded before they were known are loaded again. */
static void
set_view_dirs (SysprofMountViews *self, SysprofMountView *view, char **dirs)
{
  g_autoptr (GPtrArray) all = NULL;

  if (dirs == NULL || dirs[0] == NULL)
    return;
  all = g_ptr_array_new ();
  for (guint i = 0; dirs[i] != NULL; i++)
    g_ptr_array_add (all, dirs[i]);
  for (guint i = 0; self->debug_dirs != NULL && self->debug_dirs[i] != NULL; i++)
    g_ptr_array_add (all, self->debug_dirs[i]);
  g_ptr_array_add (all, NULL);
  g_clear_pointer (&view->loader, sysprof_elf_loader_unref);
  view->loader = sysprof_elf_loader_new ();
  sysprof_elf_loader_set_debug_dirs (view->loader, (const char *const *) all->pdata);
  /* The namespace's debug directories first, then debuginfod as for all. */
  sysprof_elf_loader_set_debuginfod (view->loader, sysprof_elf_loader_get_debuginfod (self->loader));
  g_hash_table_remove_all (view->elves);
}

static void
call_dirs (SysprofMountViews *self, SysprofSymbolizerHostQuery *queries, guint n)
{
  self->n_questions += n;
  if (self->host.list_debug_dirs_batch != NULL)
    self->host.list_debug_dirs_batch (queries, n, self->host_data);
  else
    for (guint i = 0; i < n; i++)
      queries[i].dirs = self->host.list_debug_dirs (queries[i].pid, self->host_data);
}

static void
call_paths (SysprofMountViews *self, SysprofSymbolizerHostQuery *queries, guint n)
{
  self->n_questions += n;
  if (self->host.resolve_paths != NULL)
    self->host.resolve_paths (queries, n, self->host_data);
  else
    for (guint i = 0; i < n; i++)
      queries[i].host_path = self->host.resolve_path (queries[i].pid, queries[i].path, self->host_data);
}

/* The debug directories of @views, asked about their first process, then,
 * for the views whose process the host found gone, about the next one. */
static void
ask_dirs (SysprofMountViews *self, SysprofMountView *const *views, guint n_views)
{
  g_autoptr (GPtrArray) pending = g_ptr_array_new ();
  gboolean can_ask = self->host.list_debug_dirs_batch != NULL || self->host.list_debug_dirs != NULL;

  for (guint i = 0; i < n_views; i++)
    if (!views[i]->dirs_asked)
      g_ptr_array_add (pending, views[i]);
  for (guint round = 0; can_ask && round < MAX_ASKED_PIDS && pending->len > 0; round++)
    {
      g_autoptr (GArray) queries = g_array_new (FALSE, TRUE, sizeof (SysprofSymbolizerHostQuery));
      g_autoptr (GPtrArray) asked = g_ptr_array_new ();

      for (guint i = 0; i < pending->len; i++)
        {
          SysprofMountView          *view = pending->pdata[i];
          SysprofSymbolizerHostQuery q = { 0 };

          if (round >= view->pids->len)
            continue;
          q.pid = g_array_index (view->pids, gint32, round);
          g_array_append_val (queries, q);
          g_ptr_array_add (asked, view);
        }
      g_ptr_array_set_size (pending, 0);
      if (queries->len == 0)
        break;
      call_dirs (self, (SysprofSymbolizerHostQuery *) (gpointer) queries->data, queries->len);
      for (guint i = 0; i < queries->len; i++)
        {
          SysprofSymbolizerHostQuery *q = &g_array_index (queries, SysprofSymbolizerHostQuery, i);

          if (q->gone)
            g_ptr_array_add (pending, asked->pdata[i]);
          else
            set_view_dirs (self, asked->pdata[i], q->dirs);
          g_strfreev (q->dirs);
        }
    }
  for (guint i = 0; i < n_views; i++)
    {
      views[i]->dirs_asked = TRUE;
      views[i]->dirs_planned = FALSE;
    }
}

/* The host paths of @questions, retried like ask_dirs(). */
static void
ask_paths (SysprofMountViews *self, const PathQuestion *questions, guint n_questions)
{
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (PathQuestion));
  gboolean can_ask = self->host.resolve_paths != NULL || self->host.resolve_path != NULL;

  for (guint i = 0; i < n_questions; i++)
    if (!questions[i].info->asked)
      g_array_append_val (pending, questions[i]);
  for (guint round = 0; can_ask && round < MAX_ASKED_PIDS && pending->len > 0; round++)
    {
      g_autoptr (GArray) queries = g_array_new (FALSE, TRUE, sizeof (SysprofSymbolizerHostQuery));
      g_autoptr (GArray) asked = g_array_new (FALSE, FALSE, sizeof (PathQuestion));

      for (guint i = 0; i < pending->len; i++)
        {
          const PathQuestion        *pq = &g_array_index (pending, PathQuestion, i);
          SysprofSymbolizerHostQuery q = { 0 };

          if (round >= pq->view->pids->len)
            continue;
          q.pid = g_array_index (pq->view->pids, gint32, round);
          q.path = pq->path;
          g_array_append_val (queries, q);
          g_array_append_val (asked, *pq);
        }
      g_array_set_size (pending, 0);
      if (queries->len == 0)
        break;
      call_paths (self, (SysprofSymbolizerHostQuery *) (gpointer) queries->data, queries->len);
      for (guint i = 0; i < queries->len; i++)
        {
          SysprofSymbolizerHostQuery *q = &g_array_index (queries, SysprofSymbolizerHostQuery, i);
          const PathQuestion         *pq = &g_array_index (asked, PathQuestion, i);

          if (q->gone)
            g_array_append_val (pending, *pq);
          else
            {
              g_free (pq->info->host_path);
              pq->info->host_path = g_steal_pointer (&q->host_path);
            }
          g_free (q->host_path);
        }
    }
  for (guint i = 0; i < n_questions; i++)
    {
      questions[i].info->asked = TRUE;
      questions[i].info->planned = FALSE;
    }
}

void
sysprof_mount_views_plan (SysprofMountViews *self, SysprofMountView *view, const char *filename)
{
  g_autofree char *clean = NULL;
  PathQuestion     pq;

  g_return_if_fail (self != NULL);
  g_return_if_fail (view != NULL);

  clean = clean_path (filename);
  pq.view = view;
  pq.info = path_info (self, view, clean, &pq.path);
  if (!pq.info->foreign || pq.info->asked || pq.info->planned)
    return;
  pq.info->planned = TRUE;
  g_array_append_val (self->planned_paths, pq);
  if (!view->dirs_asked && !view->dirs_planned)
    {
      view->dirs_planned = TRUE;
      g_ptr_array_add (self->planned_dirs, view);
    }
}

void
sysprof_mount_views_ask (SysprofMountViews *self)
{
  g_return_if_fail (self != NULL);

  /* The directories first: the files are loaded with them. */
  ask_dirs (self, (SysprofMountView *const *) self->planned_dirs->pdata, self->planned_dirs->len);
  g_ptr_array_set_size (self->planned_dirs, 0);
  ask_paths (self, (const PathQuestion *) (gconstpointer) self->planned_paths->data, self->planned_paths->len);
  g_array_set_size (self->planned_paths, 0);
}

static SysprofElf *
load_candidate (SysprofMountViews *self, SysprofMountView *view, const char *path, guint64 inode)
{
  g_autoptr (SysprofElf) elf = sysprof_elf_loader_load (view->loader ? view->loader : self->loader, path, NULL);

  /* The same path may now hold another build of the file: its symbols would
   * be wrong, so it only counts when the inode still matches. */
  if (elf != NULL && inode != 0 && sysprof_elf_get_inode (elf) != 0 && sysprof_elf_get_inode (elf) != inode)
    return NULL;
  return g_steal_pointer (&elf);
}

SysprofElf *
sysprof_mount_view_load (SysprofMountViews *self, SysprofMountView *view, const char *filename, guint64 inode)
{
  ElfKey           key = { (char *) filename, inode };
  g_autofree char *clean = NULL;
  SysprofElf      *elf = NULL;
  PathInfo        *info;
  const char      *path;
  gpointer         found;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (view != NULL, NULL);
  g_return_val_if_fail (filename != NULL, NULL);

  if (g_hash_table_lookup_extended (view->elves, &key, NULL, &found))
    return found;

  clean = clean_path (filename);
  info = path_info (self, view, clean, &path);
  if (info->foreign)
    {
      PathQuestion pq = { view, info, path };

      /* What sysprof_mount_views_ask() was not asked, one at a time. */
      if (!view->dirs_asked)
        ask_dirs (self, &view, 1);
      if (!info->asked)
        ask_paths (self, &pq, 1);
      if (info->host_path != NULL)
        elf = load_candidate (self, view, info->host_path, inode);
    }
  for (guint i = 0; elf == NULL && info->candidates != NULL && info->candidates[i] != NULL; i++)
    elf = load_candidate (self, view, info->candidates[i], inode);
  if (elf == NULL && view_namespace (self, view) == NULL)
    elf = load_candidate (self, view, clean, inode);

  {
    ElfKey *owned = g_new (ElfKey, 1);

    owned->filename = g_strdup (filename);
    owned->inode = inode;
    g_hash_table_insert (view->elves, owned, elf);
  }
  return elf;
}
