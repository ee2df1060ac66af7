// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-dwarf-private.h is private to libsysprof/symbols."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/* The DWARF debug info of one ELF file (the binary's own, or its separate
 * debug file), read with libdw when an address first needs it: which
 * functions were inlined at an address, and its source line.  Per function
 * the inlined ranges are read once (one walk of its DIEs) and kept, so a
 * lookup is two binary searches and one in the line table.  The file is
 * mapped, not kept open.  Not thread-safe; the input is hostile: malformed
 * debug info gives fewer frames or none, never a crash. */
typedef struct _SysprofDwarf SysprofDwarf;

/* One frame of an address, innermost first. */
typedef struct
{
  /* The function, as the debug info names it (the linkage name, mangled, when
   * there is one), or NULL when it has no name. */
  const char *name;
  /* Where this frame is: the source line executing, for the innermost
   * frame; for the others, the line of the call that was inlined into them.
   * NULL and 0 when the debug info does not say. */
  const char *file;
  guint       line;
} SysprofDwarfFrame;

/* Maps the file open on @fd (the caller keeps @fd); NULL with @error when it
 * has no usable debug info. */
SysprofDwarf *sysprof_dwarf_new_from_fd (int fd, const char *path, GError **error);
SysprofDwarf *sysprof_dwarf_ref (SysprofDwarf *self);
void          sysprof_dwarf_unref (SysprofDwarf *self);

/* The frames at @vaddr (an address of the file's symbol table), innermost
 * first, appended to @frames (of SysprofDwarfFrame): the inlined functions,
 * then the function they were inlined into (the function of the symbol
 * table).  Returns how many (0: the debug info does not cover @vaddr), and
 * in @begin/@end (optional) a range around @vaddr over which the answer is
 * the same.  The strings live as long as @self.  At most 64 frames. */
guint sysprof_dwarf_lookup (SysprofDwarf *self, guint64 vaddr, GArray *frames, guint64 *begin, guint64 *end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofDwarf, sysprof_dwarf_unref)

G_END_DECLS
