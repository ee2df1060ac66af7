// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofLogsRow: a log message of a document, as a row of the logs view's
 * table.  Its fields are read directly by the table's cells, sorters and
 * filter, which run on every row at each key press of a search. */
#pragma once

#include "sysprof-document.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_LOGS_ROW (sysprof_logs_row_get_type ())
G_DECLARE_FINAL_TYPE (SysprofLogsRow, sysprof_logs_row, SYSPROF, LOGS_ROW, GObject)

struct _SysprofLogsRow
{
  GObject parent_instance;

  /* Keeps @log alive: the document's logs never move after loading. */
  SysprofDocument         *document;
  const SysprofSummaryLog *log;
  /* Domain and message, case-folded once, for the search. */
  char *folded;
};

/* @log: one of @document's.  Safe in any thread. */
SysprofLogsRow *sysprof_logs_row_new (SysprofDocument *document, const SysprofSummaryLog *log);

G_END_DECLS
