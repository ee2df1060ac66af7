// SPDX-License-Identifier: GPL-3.0-or-later
/* Host.ResolvePath's walk, on this very process: symbolic links followed
 * inside its root, "." and "..", loops, and the caller's search rights.  The
 * walk across mount namespaces is test-host.sh's (it needs a namespace). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprofd-mountinfo.h"

typedef struct
{
  char *dir; /* real path of a fresh directory */
} Tree;

static void
tree_setup (Tree *tree, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("sysprofd-test-XXXXXX", &error);
  g_autofree char *file = NULL;

  (void) data;
  g_assert_no_error (error);
  tree->dir = realpath (tmp, NULL);
  g_assert_nonnull (tree->dir);
  /* g_dir_make_tmp() makes it 0700: only a/ below may be closed. */
  g_assert_cmpint (chmod (tree->dir, 0755), ==, 0);
  file = g_build_filename (tree->dir, "a", "b", NULL);
  g_assert_cmpint (g_mkdir_with_parents (file, 0755), ==, 0);
  g_clear_pointer (&file, g_free);
  file = g_build_filename (tree->dir, "a", "b", "file", NULL);
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  /* relative -> a/b, absolute -> the directory, a loop */
  {
    g_autofree char *rel_link = g_build_filename (tree->dir, "rel", NULL);
    g_autofree char *abs_link = g_build_filename (tree->dir, "abs", NULL);
    g_autofree char *loop1 = g_build_filename (tree->dir, "loop1", NULL);
    g_autofree char *loop2 = g_build_filename (tree->dir, "loop2", NULL);

    g_assert_cmpint (symlink ("a/b", rel_link), ==, 0);
    g_assert_cmpint (symlink (tree->dir, abs_link), ==, 0);
    g_assert_cmpint (symlink (loop2, loop1), ==, 0);
    g_assert_cmpint (symlink (loop1, loop2), ==, 0);
  }
}

static void
tree_teardown (Tree *tree, gconstpointer data)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tree->dir);

  (void) data;
  g_assert_cmpint (system (cmd), ==, 0);
  free (tree->dir);
}

static char *
canonical_of (const char *path, GError **error)
{
  char *canonical = NULL;
  int   fd = sysprofd_mountinfo_open_in_process (getpid (), path, NULL, &canonical, error);

  if (fd < 0)
    return NULL;
  close (fd);
  return canonical;
}

static void
test_links (Tree *tree, gconstpointer data)
{
  const char *const cases[][2] = {
    { "a/b/file", "a/b/file" },      { "rel/file", "a/b/file" },    { "abs/rel/./file", "a/b/file" },
    { "a/b/../b/file", "a/b/file" }, { "a//b///file", "a/b/file" },
  };

  (void) data;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = g_build_filename (tree->dir, cases[i][0], NULL);
      g_autofree char *want = g_build_filename (tree->dir, cases[i][1], NULL);
      g_autofree char *got = canonical_of (path, &error);
      g_autofree char *resolved = NULL;

      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, want);
      /* Same mount namespace: ResolvePath names the file by its own path. */
      resolved = sysprofd_mountinfo_resolve_path (getpid (), path, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (resolved, ==, want);
    }
}

static void
test_refusals (Tree *tree, gconstpointer data)
{
  g_autofree char *loop = g_build_filename (tree->dir, "loop1", "x", NULL);
  g_autofree char *missing = g_build_filename (tree->dir, "a", "nothing", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  (void) data;
  g_assert_null ((got = canonical_of (loop, &error)));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null ((got = canonical_of (missing, &error)));
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null ((got = sysprofd_mountinfo_resolve_path (getpid (), "relative/path", NULL, &error)));
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS);
  g_clear_error (&error);
  g_assert_null ((got = sysprofd_mountinfo_resolve_path (0, "/", NULL, &error)));
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS);
}

/* A directory its caller cannot search hides what is below it, and is named
 * in the refusal; what follows it in the path is not. */
static void
test_search_rights (Tree *tree, gconstpointer data)
{
  g_autoptr (SysprofdCredentials) nobody = sysprofd_credentials_new (65534, 65534, NULL, 0);
  g_autoptr (SysprofdCredentials) owner = sysprofd_credentials_new (getuid (), getgid (), NULL, 0);
  g_autofree char *closed = g_build_filename (tree->dir, "a", NULL);
  g_autofree char *path = g_build_filename (tree->dir, "a", "b", "file", NULL);
  g_autoptr (GError) error = NULL;
  char *canonical = NULL;
  int   fd;

  (void) data;
  g_assert_cmpint (chmod (closed, 0700), ==, 0);
  fd = sysprofd_mountinfo_open_in_process (getpid (), path, owner, &canonical, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_free (canonical);
  if (getuid () == 65534)
    {
      g_test_skip ("runs as nobody");
      return;
    }
  fd = sysprofd_mountinfo_open_in_process (getpid (), path, nobody, NULL, &error);
  g_assert_cmpint (fd, ==, -1);
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_assert_nonnull (strstr (error->message, closed));
  g_assert_null (strstr (error->message, "file"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/Sysprofd/PathResolution/links", Tree, NULL, tree_setup, test_links, tree_teardown);
  g_test_add ("/Sysprofd/PathResolution/refusals", Tree, NULL, tree_setup, test_refusals, tree_teardown);
  g_test_add ("/Sysprofd/PathResolution/search-rights", Tree, NULL, tree_setup, test_search_rights, tree_teardown);
  return g_test_run ();
}
