// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMemoryTable: the sortable tables of the memory view (allocation
 * functions, leaks, temporary allocations, cross-thread frees, the
 * difference of two moments).
 *
 * Every table of that view is rows of a few texts (function, library,
 * status) and a few numbers (counts, bytes, thread ids), so one kind of
 * row, SysprofMemoryRow, and one table widget serve them all: a column
 * names the field of the row it shows and how (a size is shown
 * human-readable with the exact number in its tooltip).  Clicking a
 * column's header sorts by it.  A table without rows shows its empty text
 * instead; the description, when set, is a line above the table. */
#pragma once

#include <gtk/gtk.h>

#include "sysprof-memory-row.h"

G_BEGIN_DECLS

typedef enum
{
  SYSPROF_MEMORY_COLUMN_TEXT,   /* text field, left-aligned, ellipsized */
  SYSPROF_MEMORY_COLUMN_STATUS, /* text field of a diff status, coloured */
  SYSPROF_MEMORY_COLUMN_COUNT,  /* value field, a count */
  SYSPROF_MEMORY_COLUMN_BYTES,  /* value field, a size in bytes */
  SYSPROF_MEMORY_COLUMN_DELTA,  /* value field, a signed difference of bytes */
  SYSPROF_MEMORY_COLUMN_ID,     /* value field, a thread id */
} SysprofMemoryColumnKind;

#define SYSPROF_TYPE_MEMORY_TABLE (sysprof_memory_table_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMemoryTable, sysprof_memory_table, SYSPROF, MEMORY_TABLE, GtkWidget)

/* @label: the accessible label of the table, for tests and screen
 * readers. */
GtkWidget           *sysprof_memory_table_new (const char *label);
GtkColumnViewColumn *sysprof_memory_table_add_column (SysprofMemoryTable     *self,
                                                      const char             *title,
                                                      SysprofMemoryColumnKind kind,
                                                      guint                   field);
void                 sysprof_memory_table_sort_by (SysprofMemoryTable *self, GtkColumnViewColumn *column);
void                 sysprof_memory_table_set_description (SysprofMemoryTable *self, const char *text);
void                 sysprof_memory_table_set_empty_text (SysprofMemoryTable *self, const char *text);
/* Replaces the rows with @rows (SysprofMemoryRow*, may be NULL: none). */
void           sysprof_memory_table_set_rows (SysprofMemoryTable *self, GPtrArray *rows);
guint          sysprof_memory_table_get_n_rows (SysprofMemoryTable *self);
GtkColumnView *sysprof_memory_table_get_column_view (SysprofMemoryTable *self);

/* Sizes as the memory view shows them: "19.6 MiB" (IEC units, as
 * sysprof-report memory prints them). */
char *sysprof_memory_format_size (guint64 bytes);
/* Counts with the locale's digit grouping. */
char *sysprof_memory_format_count (guint64 count);

G_END_DECLS
