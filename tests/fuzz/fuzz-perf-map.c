// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: SysprofPerfMap, which parses the /tmp/perf-PID.map a profiled
 * program writes (and a capture embeds).  Every entry's own start, end and
 * a few addresses around each are looked up; a name found must be valid
 * UTF-8 and its range must hold the address. */

#include <stdint.h>
#include <string.h>

#include "sysprof-perf-map-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check (SysprofPerfMap *map, guint64 address)
{
  guint64     begin = 0, end = 0;
  const char *name = sysprof_perf_map_lookup (map, address, &begin, &end);

  if (name == NULL)
    return;
  if (!g_utf8_validate (name, -1, NULL) || name[0] == '\0' || address < begin || address >= end)
    __builtin_trap ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (SysprofPerfMap) map = sysprof_perf_map_new ((const char *) data, size);
  static const guint64 fixed[] = { 0, 1, 0x1000, 0x7fffffffffff, G_MAXUINT64 - 1, G_MAXUINT64 };

  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    check (map, fixed[i]);
  /* Addresses taken from the hex words of the input itself. */
  for (size_t i = 0; i + 1 < size && i < 4096; i++)
    if (g_ascii_isxdigit (data[i]) && (i == 0 || !g_ascii_isxdigit (data[i - 1])))
      {
        guint64 value = 0;
        for (size_t j = i; j < size && j < i + 16 && g_ascii_isxdigit (data[j]); j++)
          value = (value << 4) | (guint64) g_ascii_xdigit_value (data[j]);
        check (map, value);
        check (map, value + 1);
        check (map, value - 1);
      }
  return 0;
}
