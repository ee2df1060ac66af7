// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-memory-row.h"

struct _SysprofMemoryRow
{
  GObject parent_instance;
  char   *texts[SYSPROF_MEMORY_ROW_N_TEXTS];
  gint64  values[SYSPROF_MEMORY_ROW_N_VALUES];
};

G_DEFINE_FINAL_TYPE (SysprofMemoryRow, sysprof_memory_row, G_TYPE_OBJECT)

static void
sysprof_memory_row_finalize (GObject *object)
{
  SysprofMemoryRow *self = SYSPROF_MEMORY_ROW (object);

  for (guint i = 0; i < SYSPROF_MEMORY_ROW_N_TEXTS; i++)
    g_free (self->texts[i]);

  G_OBJECT_CLASS (sysprof_memory_row_parent_class)->finalize (object);
}

static void
sysprof_memory_row_class_init (SysprofMemoryRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_memory_row_finalize;
}

static void
sysprof_memory_row_init (SysprofMemoryRow *self)
{
  (void) self;
}

SysprofMemoryRow *
sysprof_memory_row_new (void)
{
  return g_object_new (SYSPROF_TYPE_MEMORY_ROW, NULL);
}

void
sysprof_memory_row_set_text (SysprofMemoryRow *self, guint field, const char *text)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_ROW (self));
  g_return_if_fail (field < SYSPROF_MEMORY_ROW_N_TEXTS);

  g_free (self->texts[field]);
  self->texts[field] = g_strdup (text);
}

const char *
sysprof_memory_row_get_text (SysprofMemoryRow *self, guint field)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ROW (self), NULL);
  g_return_val_if_fail (field < SYSPROF_MEMORY_ROW_N_TEXTS, NULL);

  return self->texts[field] ? self->texts[field] : "";
}

void
sysprof_memory_row_set_value (SysprofMemoryRow *self, guint field, gint64 value)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_ROW (self));
  g_return_if_fail (field < SYSPROF_MEMORY_ROW_N_VALUES);

  self->values[field] = value;
}

gint64
sysprof_memory_row_get_value (SysprofMemoryRow *self, guint field)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_ROW (self), 0);
  g_return_val_if_fail (field < SYSPROF_MEMORY_ROW_N_VALUES, 0);

  return self->values[field];
}
