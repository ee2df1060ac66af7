// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: SysprofMountNamespace, which reads the mountinfo texts a
 * capture embeds (written by whoever made the capture).  The input up to its
 * first NUL is the process's mountinfo, the rest the host's (without a NUL,
 * both are the same text); a few fixed paths and every word of the process
 * text that looks like an absolute path are translated. */

#include <stdint.h>
#include <string.h>

#include "sysprof-mount-namespace.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define MAX_WORDS 64

static const char *const fixed_paths[] = {
  "/", "/usr/lib/libc.so.6", "/app/bin/app", "/home/u/../../etc/./passwd", "//opt//lib/", "relative/path", "",
};

/* Some candidates exist, some do not: both ways through the filter. */
static gboolean
exists_cb (const char *host_path, gpointer user_data)
{
  (void) user_data;
  return strlen (host_path) % 2 == 0;
}

static void
translate (SysprofMountNamespace *ns, const char *path)
{
  g_auto (GStrv) paths = sysprof_mount_namespace_translate (ns, path);

  g_assert_nonnull (paths);
  for (guint i = 0; paths[i] != NULL; i++)
    g_assert_true (paths[i][0] == '/');
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *text = size > 0 ? (const char *) data : "";
  const char *nul = memchr (text, 0, size);
  gsize       process_len = nul ? (gsize) (nul - text) : size;
  const char *host = nul ? nul + 1 : text;
  gsize       host_len = nul ? size - process_len - 1 : size;
  g_autoptr (SysprofMountNamespace) ns = NULL;
  g_autoptr (SysprofMountTable) host_table = NULL;
  g_autoptr (SysprofMountNamespace) shared = NULL;
  g_autofree char *words = g_strndup (text, process_len);
  guint            n_words = 0;

  ns = sysprof_mount_namespace_new (text, process_len, host, host_len);
  for (guint i = 0; i < G_N_ELEMENTS (fixed_paths); i++)
    translate (ns, fixed_paths[i]);

  /* Mount points and roots as written (escapes and all): the paths most
   * likely to match something. */
  for (char *word = strtok (words, " \n"); word != NULL && n_words < MAX_WORDS; word = strtok (NULL, " \n"))
    if (word[0] == '/')
      {
        g_autofree char *below = g_strconcat (word, "/lib/x.so", NULL);

        translate (ns, word);
        translate (ns, below);
        n_words++;
      }

  /* The same host text through a shared table, filtered. */
  host_table = sysprof_mount_table_new (host, host_len);
  shared = sysprof_mount_namespace_new_with_host (text, process_len, host_table);
  sysprof_mount_namespace_set_exists_func (shared, exists_cb, NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (fixed_paths); i++)
    translate (shared, fixed_paths[i]);
  return 0;
}
