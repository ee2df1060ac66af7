// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: SysprofElf, which parses whatever file a capture's MAP frames
 * name (any local file, a hostile one included).  The input is the ELF
 * image; what a symbolizer asks of it is asked: build-id, debuglink, offset
 * translation, lookups (at addresses derived from the segments and from the
 * input's own words) and demangling of the names found.  The image is also
 * attached as its own debug file's stand-in, and its DWARF (inline frames,
 * lines) is read through a file.  Unnamed functions of stripped code come
 * from the image's FDEs. */

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-demangle-private.h"
#include "sysprof-dwarf-private.h"
#include "sysprof-elf-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static volatile size_t sink;

static void
lookup_dwarf (SysprofDwarf *dwarf, guint64 vaddr)
{
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (SysprofDwarfFrame));
  guint64 begin = 0, end = 0;
  guint   n = sysprof_dwarf_lookup (dwarf, vaddr, frames, &begin, &end);

  if (n != frames->len || n > 64 || (n > 0 && (vaddr < begin || vaddr >= end)))
    __builtin_trap ();
  for (guint i = 0; i < n; i++)
    {
      const SysprofDwarfFrame *f = &g_array_index (frames, SysprofDwarfFrame, i);
      sink += (f->name ? strlen (f->name) : 0) + (f->file ? strlen (f->file) : 0) + f->line;
    }
}

static void
lookup (SysprofElf *elf, guint64 vaddr)
{
  guint64     begin = 0;
  guint64     end = 0;
  const char *name = sysprof_elf_lookup (elf, vaddr, &begin, &end);

  /* Stripped code's function ranges (from the FDEs). */
  if (name == NULL && sysprof_elf_lookup_unnamed (elf, vaddr, &begin, &end) && (vaddr < begin || vaddr >= end))
    __builtin_trap ();

  if (name != NULL)
    {
      g_autofree char *demangled = NULL;

      /* The range holds the address and the name is a C string. */
      if (vaddr < begin || vaddr >= end)
        __builtin_trap ();
      sink += strlen (name);
      if ((demangled = sysprof_demangle (name)) != NULL)
        sink += strlen (demangled);
    }
}

static void
exercise (SysprofElf *elf, const uint8_t *data, size_t size)
{
  const char *build_id = sysprof_elf_get_build_id (elf);
  const char *link;
  guint32     crc = 0;

  if (build_id != NULL)
    sink += strlen (build_id);
  if ((link = sysprof_elf_get_debuglink (elf, &crc)) != NULL)
    sink += strlen (link) + crc;
  sink += sysprof_elf_has_symbols (elf);

  /* Offsets across the first pages, as MAP frames would give. */
  for (guint64 offset = 0; offset < 0x4000; offset += 0x3f)
    {
      guint64 vaddr;

      if (sysprof_elf_file_offset_to_vaddr (elf, offset, &vaddr))
        lookup (elf, vaddr);
    }

  /* Addresses the input chooses, and their neighbours. */
  for (size_t i = 0; i + 8 <= size && i < 4096; i += 8)
    {
      guint64 vaddr;

      memcpy (&vaddr, data + i, 8);
      lookup (elf, vaddr);
      lookup (elf, vaddr - 1);
      lookup (elf, vaddr + 1);
    }
  lookup (elf, 0);
  lookup (elf, G_MAXUINT64);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (SysprofElf) debug = NULL;
  g_autoptr (GError) error = NULL;

  if ((elf = sysprof_elf_new_from_data (bytes, &error)) == NULL)
    {
      /* Refusals say so, in the one error domain. */
      if (error == NULL || error->domain != G_IO_ERROR)
        __builtin_trap ();
      return 0;
    }

  exercise (elf, data, size);

  /* The image's DWARF (inline frames, lines), read through a file as the
   * symbolizer reads it. */
  {
    int fd = memfd_create ("fuzz-dwarf", MFD_CLOEXEC);

    if (fd >= 0 && write (fd, data, size) == (ssize_t) size)
      {
        g_autoptr (SysprofDwarf) dwarf = sysprof_dwarf_new_from_fd (fd, "fuzz", NULL);

        for (size_t i = 0; dwarf != NULL && i + 8 <= size && i < 2048; i += 8)
          {
            guint64 vaddr;

            memcpy (&vaddr, data + i, 8);
            lookup_dwarf (dwarf, vaddr);
            lookup_dwarf (dwarf, vaddr + 1);
          }
        for (guint64 offset = 0; dwarf != NULL && offset < 0x4000; offset += 0x3f)
          {
            guint64 vaddr;

            if (sysprof_elf_file_offset_to_vaddr (elf, offset, &vaddr))
              lookup_dwarf (dwarf, vaddr);
          }
      }
    if (fd >= 0)
      close (fd);
  }

  /* Lookups through an attached debug file (a second parse of the same
   * image), then detached again. */
  if ((debug = sysprof_elf_new_from_data (bytes, NULL)) != NULL)
    {
      sysprof_elf_set_debug_file (elf, debug);
      exercise (elf, data, size);
      sysprof_elf_set_debug_file (elf, NULL);
    }

  return 0;
}
