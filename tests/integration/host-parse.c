// SPDX-License-Identifier: GPL-3.0-or-later
/* Runs sysprofd's parsers of untrusted text on stdin, for test-host.sh:
 *
 *   host-parse mountinfo          one GetMountInfo dictionary per parsed line
 *   host-parse flatpak-info HOME  the candidate debug directories, one a line
 *
 * The daemon only ever sees well-formed mountinfo from the kernel, so this is
 * where malformed lines are exercised. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sysprofd-flatpak.h"
#include "sysprofd-mountinfo.h"
#include "sysprofd-proc.h"

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) input = NULL;
  const char *data;
  gsize       len;

  if (argc < 2 || (!g_str_equal (argv[1], "mountinfo") && !g_str_equal (argv[1], "flatpak-info")))
    {
      g_printerr ("usage: host-parse mountinfo|flatpak-info [HOME] < FILE\n");
      return 2;
    }
  if (!(input = sysprofd_read_fd (STDIN_FILENO, 64 * 1024 * 1024, &error)))
    {
      g_printerr ("host-parse: %s\n", error->message);
      return 1;
    }
  data = g_bytes_get_data (input, &len);

  if (g_str_equal (argv[1], "mountinfo"))
    {
      g_autoptr (SysprofMountTable) mounts = sysprof_mount_table_new (data, len);
      guint n_mounts = sysprof_mount_table_get_n_mounts (mounts);

      for (guint i = 0; i < n_mounts; i++)
        {
          g_autoptr (GVariant) dict =
              g_variant_ref_sink (sysprofd_mount_to_variant (sysprof_mount_table_get_mount (mounts, i)));
          g_autofree char *text = g_variant_print (dict, FALSE);

          /* Not g_print(): it would convert to the locale's charset. */
          printf ("%s\n", text);
        }
    }
  else
    {
      g_autoptr (SysprofdFlatpakInfo) info = NULL;
      g_autoptr (GPtrArray) dirs = NULL;

      if (!(info = sysprofd_flatpak_info_parse (data, len, &error)))
        {
          g_printerr ("host-parse: %s\n", error->message);
          return 1;
        }
      dirs = sysprofd_flatpak_info_debug_directories (info, argc > 2 ? argv[2] : NULL);
      for (guint i = 0; i < dirs->len; i++)
        printf ("%s\n", (const char *) dirs->pdata[i]);
    }
  return 0;
}
