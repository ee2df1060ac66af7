// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-elf-private.h is private to libsysprof/symbols."
#endif

#include <sys/stat.h>

#include <gio/gio.h>

#include "sysprof-dwarf-private.h"

G_BEGIN_DECLS

/* One ELF file, parsed once: everything the symbolizer needs (build-id,
 * .gnu_debuglink, executable PT_LOAD segments, function symbols sorted into
 * disjoint ranges with their names in one string block) is copied out at
 * load, so no file descriptor or mapping stays open.  Immutable after load
 * except for the attached debug file; refcounting is atomic, the rest is not
 * thread-safe.  Every input is treated as hostile: a malformed file yields
 * G_IO_ERROR_INVALID_DATA, never a crash. */
typedef struct _SysprofElf SysprofElf;

SysprofElf *sysprof_elf_new (const char *path, GError **error);
/* Parses the file open on @fd (which stays the caller's; reads use pread, the
 * offset is left alone); @path names it in errors and in get_path. */
SysprofElf *sysprof_elf_new_from_fd (int fd, const char *path, GError **error);
/* Parses a copy of @bytes (fuzzing, embedded files); inode 0, path NULL. */
SysprofElf *sysprof_elf_new_from_data (GBytes *bytes, GError **error);
SysprofElf *sysprof_elf_ref (SysprofElf *self);
void        sysprof_elf_unref (SysprofElf *self);

/* The path given at load, or NULL for data. */
const char *sysprof_elf_get_path (SysprofElf *self);
/* Lower-case hex of the NT_GNU_BUILD_ID note, or NULL. */
const char *sysprof_elf_get_build_id (SysprofElf *self);
/* The .gnu_debuglink file name (never containing '/') and its CRC, or NULL. */
const char *sysprof_elf_get_debuglink (SysprofElf *self, guint32 *crc);
/* st_ino of the file; 0 for data. */
guint64 sysprof_elf_get_inode (SysprofElf *self);
/* TRUE when @st (of a path, now) describes the file this was loaded from:
 * same device, inode, size and modification time.  FALSE for data. */
gboolean sysprof_elf_is_same_file (SysprofElf *self, const struct stat *st);
/* Whether this file itself (not its debug file) defines any function symbol,
 * in .symtab or, without one, .dynsym. */
gboolean sysprof_elf_has_symbols (SysprofElf *self);

/* A MAP frame gives (map start, file offset): translates a file offset inside
 * an executable PT_LOAD segment to the virtual address the symbol table uses,
 * p_vaddr + (offset - p_offset).  FALSE if no such segment holds it. */
gboolean sysprof_elf_file_offset_to_vaddr (SysprofElf *self, guint64 file_offset, guint64 *vaddr);
/* The function symbol (STT_FUNC, STT_GNU_IFUNC) containing @vaddr, from the
 * debug file's table when one is attached and has symbols, else from this
 * file's.  A symbol of size 0 extends to the next symbol, never past its
 * section; where symbols nest, the innermost wins.  Returns the raw (mangled)
 * name, valid as long as @self, and in @begin/@end (both optional) the range
 * around @vaddr over which the answer is the same; NULL if none.  O(log n). */
const char *sysprof_elf_lookup (SysprofElf *self, guint64 vaddr, guint64 *begin, guint64 *end);

/* The range of a function that has no symbol: the FDE of the unwind tables
 * (.eh_frame, .debug_frame) holding @vaddr, cut to the gap between the
 * named functions around it, or failing an FDE the gap itself inside the
 * executable segment.  FALSE when @vaddr has a symbol, or nothing bounds
 * it.  Stripped code is shown one row per function this way, named after
 * the range's start.  O(log n). */
gboolean sysprof_elf_lookup_unnamed (SysprofElf *self, guint64 vaddr, guint64 *begin, guint64 *end);

/* The DWARF debug info for this file's addresses: the attached debug file's,
 * else this file's own; opened on first call (from the path, when it is
 * still the file that was loaded), NULL when there is none.  Owned by
 * @self. */
SysprofDwarf *sysprof_elf_get_dwarf (SysprofElf *self);

/* Attaches the separate debug file (NULL detaches); lookups then use its
 * .symtab when it has one, at the same virtual addresses. */
void        sysprof_elf_set_debug_file (SysprofElf *self, SysprofElf *debug);
SysprofElf *sysprof_elf_get_debug_file (SysprofElf *self);
/* The path of the attached debug file, or NULL. */
const char *sysprof_elf_get_debug_path (SysprofElf *self);

/* The CRC-32 of .gnu_debuglink (zlib's crc32()) of the whole file open on
 * @fd (read with pread from offset 0). */
gboolean sysprof_elf_crc32_file (int fd, guint32 *crc, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofElf, sysprof_elf_unref)

G_END_DECLS
