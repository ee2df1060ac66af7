// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-logs-row.h"

G_DEFINE_FINAL_TYPE (SysprofLogsRow, sysprof_logs_row, G_TYPE_OBJECT)

static void
sysprof_logs_row_finalize (GObject *object)
{
  SysprofLogsRow *self = SYSPROF_LOGS_ROW (object);

  g_clear_object (&self->document);
  g_clear_pointer (&self->folded, g_free);

  G_OBJECT_CLASS (sysprof_logs_row_parent_class)->finalize (object);
}

static void
sysprof_logs_row_class_init (SysprofLogsRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_logs_row_finalize;
}

static void
sysprof_logs_row_init (SysprofLogsRow *self)
{
  (void) self;
}

SysprofLogsRow *
sysprof_logs_row_new (SysprofDocument *document, const SysprofSummaryLog *log)
{
  SysprofLogsRow  *self = g_object_new (SYSPROF_TYPE_LOGS_ROW, NULL);
  g_autofree char *text = g_strconcat (log->domain, "\n", log->message, NULL);

  self->document = g_object_ref (document);
  self->log = log;
  self->folded = g_utf8_casefold (text, -1);
  return self;
}
