// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the daemon's parsers of text a sandboxed or hostile process
 * controls — /proc/PID/mountinfo lines and /.flatpak-info key files.  The same
 * bytes go through both. */

#include <stdint.h>

#include "sysprofd-flatpak.h"
#include "sysprofd-mountinfo.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (SysprofMountTable) mounts = sysprof_mount_table_new ((const char *) data, size);
  g_autoptr (SysprofdFlatpakInfo) info = NULL;
  guint n_mounts = sysprof_mount_table_get_n_mounts (mounts);

  for (guint i = 0; i < n_mounts; i++)
    g_variant_unref (g_variant_ref_sink (sysprofd_mount_to_variant (sysprof_mount_table_get_mount (mounts, i))));

  if ((info = sysprofd_flatpak_info_parse ((const char *) data, size, NULL)))
    {
      g_autoptr (GPtrArray) dirs = sysprofd_flatpak_info_debug_directories (info, "/nonexistent-home");
      (void) dirs;
    }
  return 0;
}
