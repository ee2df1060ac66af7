// SPDX-License-Identifier: GPL-3.0-or-later
/* The Flatpak lookup of Host.ListDebugDirectories: what a sandbox's
 * /.flatpak-info may say, and the directories that follow from it. */
#include "sysprofd-flatpak.h"

static char *
joined (GPtrArray *dirs)
{
  g_ptr_array_add (dirs, NULL);
  return g_strjoinv ("\n", (char **) dirs->pdata);
}

static void
test_instance (void)
{
  static const char text[] = "[Application]\n"
                             "name=org.example.App\n"
                             "runtime=runtime/org.example.Platform/x86_64/23.08\n"
                             "[Instance]\n"
                             "branch=stable\n"
                             "app-path=/var/lib/flatpak/app/org.example.App/x86_64/stable/abc/files\n"
                             "runtime-path=/var/lib/flatpak/runtime/org.example.Platform/x86_64/23.08/def/files\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofdFlatpakInfo) info = sysprofd_flatpak_info_parse (text, sizeof text - 1, &error);
  g_autoptr (GPtrArray) dirs = NULL;
  g_autofree char *all = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (info->app_id, ==, "org.example.App");
  g_assert_cmpstr (info->runtime_id, ==, "org.example.Platform");
  g_assert_cmpstr (info->runtime_arch, ==, "x86_64");
  g_assert_cmpstr (info->runtime_branch, ==, "23.08");
  g_assert_cmpstr (info->app_branch, ==, "stable");
  dirs = sysprofd_flatpak_info_debug_directories (info, "/home/u");
  all = joined (dirs);
  g_assert_cmpstr (all, ==,
                   "/var/lib/flatpak/app/org.example.App/x86_64/stable/abc/files/lib/debug\n"
                   "/var/lib/flatpak/runtime/org.example.Platform/x86_64/23.08/def/files/lib/debug\n"
                   "/var/lib/flatpak/app/org.example.App.Debug/x86_64/stable/active/files\n"
                   "/home/u/.local/share/flatpak/app/org.example.App.Debug/x86_64/stable/active/files\n"
                   "/var/lib/flatpak/runtime/org.example.Platform.Debug/x86_64/23.08/active/files\n"
                   "/home/u/.local/share/flatpak/runtime/org.example.Platform.Debug/x86_64/23.08/active/files");
}

/* Names and paths chosen inside the sandbox never climb out. */
static void
test_hostile (void)
{
  static const char text[] = "[Application]\nname=../../../etc\nruntime=runtime/../x/y\n"
                             "[Instance]\napp-path=relative\nbranch=a/b\narch=..\nruntime-path=/r/../../s\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofdFlatpakInfo) info = sysprofd_flatpak_info_parse (text, sizeof text - 1, &error);
  g_autoptr (GPtrArray) dirs = NULL;
  g_autofree char *all = NULL;

  g_assert_no_error (error);
  g_assert_null (info->app_id);
  g_assert_null (info->app_path);
  g_assert_null (info->app_branch);
  g_assert_null (info->app_arch);
  dirs = sysprofd_flatpak_info_debug_directories (info, NULL);
  all = joined (dirs);
  g_assert_cmpstr (all, ==, "/s/lib/debug");
  g_clear_pointer (&info, sysprofd_flatpak_info_free);
  g_assert_null (sysprofd_flatpak_info_parse ("\xff[[[", 4, &error));
  g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sysprofd/Flatpak/instance", test_instance);
  g_test_add_func ("/Sysprofd/Flatpak/hostile", test_hostile);
  return g_test_run ();
}
