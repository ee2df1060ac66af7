// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-frame-table-private.h is private to libsysprof/symbols."
#endif

#include <gio/gio.h>

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* The `__symbol_frames__` file a capture embeds next to `__symbols__`: what
 * `__symbols__` (whose format Sysprof 3.46 reads, and which stays as it
 * was) cannot say.  For ranges of addresses of a process: the chain of
 * frames (inlined functions, then the function), each with its source line;
 * or that the addresses are no code (they lie in no executable segment).
 * Readers that do not know the file ignore it; Sysprof 3.46 does.
 *
 * Layout, in the byte order of the capture (see FORMAT in the .c file):
 *   header   32 bytes: "SPFRAMES", u32 version (1), u32 n_records,
 *            u32 n_frames, u32 n_links, u32 strings_size, u32 reserved
 *   records  n_records × 32 bytes: u64 begin, u64 end (exclusive), i32 pid,
 *            u32 first link, u32 n_links (0: no code), u32 reserved;
 *            sorted by (pid, begin), disjoint within a pid
 *   frames   n_frames × 24 bytes: u32 name, u32 library, u32 file, u32 line,
 *            u32 kind (SysprofSymbolKind: USER or UNRESOLVED), u32 reserved
 *   links    n_links × u32: frame indexes, innermost first per record
 *   strings  strings_size bytes, NUL-terminated, offsets from their start;
 *            offset 0 is "" (no file) */
typedef struct _SysprofFrameTable SysprofFrameTable;

#define SYSPROF_FRAME_TABLE_PATH       "__symbol_frames__"
#define SYSPROF_FRAME_TABLE_VERSION    1
#define SYSPROF_FRAME_TABLE_MAX_FRAMES 64

/* Parses and validates the whole file (@swap: its byte order is not ours).
 * Hostile input: any inconsistency (sizes, order, overlaps, offsets out of
 * range, strings not terminated, unknown kinds) fails with
 * G_IO_ERROR_INVALID_DATA naming it; a newer version with
 * G_IO_ERROR_NOT_SUPPORTED. */
SysprofFrameTable *_sysprof_frame_table_new (GBytes *bytes, gboolean swap, GError **error);
void               _sysprof_frame_table_free (SysprofFrameTable *self);

guint _sysprof_frame_table_get_n_records (SysprofFrameTable *self);

/* The record of @pid holding @address: its index, range [@begin, @end) and
 * number of frames (0: no code).  FALSE when none. */
gboolean _sysprof_frame_table_lookup (
    SysprofFrameTable *self, gint32 pid, guint64 address, guint *record, guint64 *begin, guint64 *end, guint *n_frames);

/* Frame @i (innermost first) of record @record; strings live as long as
 * @self, @file is NULL when unknown. */
void _sysprof_frame_table_get_frame (SysprofFrameTable *self,
                                     guint              record,
                                     guint              i,
                                     const char       **name,
                                     const char       **library,
                                     const char       **file,
                                     guint             *line,
                                     SysprofSymbolKind *kind);

/* Writing: records in order of (pid, begin), disjoint. */
typedef struct _SysprofFrameTableBuilder SysprofFrameTableBuilder;

SysprofFrameTableBuilder *_sysprof_frame_table_builder_new (void);
void                      _sysprof_frame_table_builder_free (SysprofFrameTableBuilder *self);
/* @n_frames 0: the range is no code.  A range continuing the previous one
 * with the same frames extends it. */
void  _sysprof_frame_table_builder_add (SysprofFrameTableBuilder        *self,
                                        gint32                           pid,
                                        guint64                          begin,
                                        guint64                          end,
                                        const SysprofSymbolFrame *const *frames,
                                        guint                            n_frames);
guint _sysprof_frame_table_builder_get_n_records (SysprofFrameTableBuilder *self);
/* The file's contents, in this machine's byte order. */
GBytes *_sysprof_frame_table_builder_finish (SysprofFrameTableBuilder *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofFrameTable, _sysprof_frame_table_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofFrameTableBuilder, _sysprof_frame_table_builder_free)

G_END_DECLS
