// SPDX-License-Identifier: GPL-3.0-or-later
/* Flatpak instances, from their /.flatpak-info: where their app, runtime and
 * debug extensions live on the host. */
#include "sysprofd-flatpak.h"

#define SYSTEM_INSTALLATION "/var/lib/flatpak"
/* Below the user's home; flatpak honours $XDG_DATA_HOME, which a system
 * daemon cannot know, so the default is assumed. */
#define USER_INSTALLATION ".local/share/flatpak"

void
sysprofd_flatpak_info_free (SysprofdFlatpakInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->app_id);
  g_free (info->app_arch);
  g_free (info->app_branch);
  g_free (info->runtime_id);
  g_free (info->runtime_arch);
  g_free (info->runtime_branch);
  g_free (info->app_path);
  g_free (info->runtime_path);
  g_free (info);
}

/* These end up as one component of a host path: nothing that could be "/",
 * ".." or empty. */
static gboolean
is_safe_component (const char *s)
{
  if (s == NULL || s[0] == 0 || g_str_equal (s, ".") || g_str_equal (s, ".."))
    return FALSE;
  for (const char *p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-')
      return FALSE;
  return TRUE;
}

static char *
get_component (GKeyFile *keyfile, const char *group, const char *key)
{
  g_autofree char *value = g_key_file_get_string (keyfile, group, key, NULL);

  return is_safe_component (value) ? g_steal_pointer (&value) : NULL;
}

static char *
get_absolute_path (GKeyFile *keyfile, const char *group, const char *key)
{
  g_autofree char *value = g_key_file_get_string (keyfile, group, key, NULL);

  if (value == NULL || !g_path_is_absolute (value))
    return NULL;
  return g_canonicalize_filename (value, "/");
}

SysprofdFlatpakInfo *
sysprofd_flatpak_info_parse (const char *data, gsize len, GError **error)
{
  g_autoptr (GKeyFile) keyfile = g_key_file_new ();
  g_autoptr (SysprofdFlatpakInfo) info = NULL;
  g_autofree char *runtime = NULL;
  g_auto (GStrv) ref = NULL;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (!g_key_file_load_from_data (keyfile, data, len, G_KEY_FILE_NONE, error))
    return NULL;

  info = g_new0 (SysprofdFlatpakInfo, 1);
  info->app_id = get_component (keyfile, "Application", "name");
  info->app_arch = get_component (keyfile, "Instance", "arch");
  info->app_branch = get_component (keyfile, "Instance", "branch");
  info->app_path = get_absolute_path (keyfile, "Instance", "app-path");
  info->runtime_path = get_absolute_path (keyfile, "Instance", "runtime-path");

  runtime = g_key_file_get_string (keyfile, "Application", "runtime", NULL);
  if (runtime != NULL && (ref = g_strsplit (runtime, "/", -1)) && g_strv_length (ref) == 4 &&
      g_str_equal (ref[0], "runtime") && is_safe_component (ref[1]) && is_safe_component (ref[2]) &&
      is_safe_component (ref[3]))
    {
      info->runtime_id = g_strdup (ref[1]);
      info->runtime_arch = g_strdup (ref[2]);
      info->runtime_branch = g_strdup (ref[3]);
    }
  /* An app is built for the arch of its runtime; older flatpaks wrote no
   * [Instance] arch. */
  if (info->app_arch == NULL && info->runtime_arch != NULL)
    info->app_arch = g_strdup (info->runtime_arch);

  return g_steal_pointer (&info);
}

static void
add_extension (
    GPtrArray *dirs, const char *installation, const char *kind, const char *id, const char *arch, const char *branch)
{
  g_autofree char *extension = NULL;

  if (installation == NULL || id == NULL || arch == NULL || branch == NULL)
    return;
  /* Flatpak mounts a .Debug extension's files/ at /app/lib/debug or
   * /usr/lib/debug: it is a debug directory itself.  "active" links to the
   * deployed commit. */
  extension = g_strconcat (id, ".Debug", NULL);
  g_ptr_array_add (dirs, g_build_filename (installation, kind, extension, arch, branch, "active", "files", NULL));
}

GPtrArray *
sysprofd_flatpak_info_debug_directories (const SysprofdFlatpakInfo *info, const char *home)
{
  GPtrArray       *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *user_installation = NULL;

  g_return_val_if_fail (info != NULL, dirs);

  if (home != NULL && g_path_is_absolute (home))
    user_installation = g_build_filename (home, USER_INSTALLATION, NULL);

  if (info->app_path != NULL)
    g_ptr_array_add (dirs, g_build_filename (info->app_path, "lib", "debug", NULL));
  if (info->runtime_path != NULL)
    g_ptr_array_add (dirs, g_build_filename (info->runtime_path, "lib", "debug", NULL));

  add_extension (dirs, SYSTEM_INSTALLATION, "app", info->app_id, info->app_arch, info->app_branch);
  add_extension (dirs, user_installation, "app", info->app_id, info->app_arch, info->app_branch);
  add_extension (dirs, SYSTEM_INSTALLATION, "runtime", info->runtime_id, info->runtime_arch, info->runtime_branch);
  add_extension (dirs, user_installation, "runtime", info->runtime_id, info->runtime_arch, info->runtime_branch);
  return dirs;
}
