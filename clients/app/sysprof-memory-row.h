// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMemoryRow: a row of every table of the memory view (see
 * SysprofMemoryTable): a few texts (function, library, status) and a few
 * numbers (counts, bytes, thread ids), each addressed by its field index,
 * which the table's columns name. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SYSPROF_MEMORY_ROW_N_TEXTS  3
#define SYSPROF_MEMORY_ROW_N_VALUES 7

#define SYSPROF_TYPE_MEMORY_ROW (sysprof_memory_row_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMemoryRow, sysprof_memory_row, SYSPROF, MEMORY_ROW, GObject)

SysprofMemoryRow *sysprof_memory_row_new (void);
void              sysprof_memory_row_set_text (SysprofMemoryRow *self, guint field, const char *text);
const char       *sysprof_memory_row_get_text (SysprofMemoryRow *self, guint field);
void              sysprof_memory_row_set_value (SysprofMemoryRow *self, guint field, gint64 value);
gint64            sysprof_memory_row_get_value (SysprofMemoryRow *self, guint field);

G_END_DECLS
