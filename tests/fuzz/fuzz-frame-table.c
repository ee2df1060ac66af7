// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the `__symbol_frames__` table a capture embeds (inline
 * frames, lines, no-code ranges; sysprof-frame-table-private.h), in both
 * byte orders.  What the symbolizer does with a table it accepted is done:
 * every record's frames read, lookups at the ranges' ends and at addresses
 * the input chooses. */

#include <stdint.h>
#include <string.h>

#include "sysprof-symbols.h"

#include "sysprof-frame-table-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static volatile size_t sink;

static void
exercise (SysprofFrameTable *table, const uint8_t *data, size_t size)
{
  guint n_records = _sysprof_frame_table_get_n_records (table);

  for (guint r = 0; r < n_records && r < 4096; r++)
    {
      guint64 begin, end;
      guint   record, n;

      /* Records are found by what they hold. */
      for (gint32 pid = -1; pid <= 1; pid++)
        (void) _sysprof_frame_table_lookup (table, pid, r, &record, &begin, &end, &n);
    }
  for (size_t i = 0; i + 12 <= size && i < 4096; i += 12)
    {
      gint32  pid;
      guint64 address, begin, end;
      guint   record, n;

      memcpy (&pid, data + i, 4);
      memcpy (&address, data + i + 4, 8);
      if (!_sysprof_frame_table_lookup (table, pid, address, &record, &begin, &end, &n))
        continue;
      if (address < begin || address >= end || n > SYSPROF_FRAME_TABLE_MAX_FRAMES)
        __builtin_trap ();
      for (guint f = 0; f < n; f++)
        {
          const char       *name, *library, *file;
          guint             line;
          SysprofSymbolKind kind;

          _sysprof_frame_table_get_frame (table, record, f, &name, &library, &file, &line, &kind);
          sink += strlen (name) + strlen (library) + (file ? strlen (file) : 0) + line + kind;
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GBytes) bytes = g_bytes_new_static (data, size);

  for (int swap = 0; swap < 2; swap++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SysprofFrameTable) table = _sysprof_frame_table_new (bytes, swap, &error);

      if (table == NULL)
        {
          if (error == NULL || error->domain != G_IO_ERROR)
            __builtin_trap ();
          continue;
        }
      exercise (table, data, size);
    }
  return 0;
}
