// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-dbus-row.h"

G_DEFINE_FINAL_TYPE (SysprofDbusRow, sysprof_dbus_row, G_TYPE_OBJECT)

static void
sysprof_dbus_row_finalize (GObject *object)
{
  g_clear_pointer (&SYSPROF_DBUS_ROW (object)->message, sysprof_dbus_message_free);
  G_OBJECT_CLASS (sysprof_dbus_row_parent_class)->finalize (object);
}

static void
sysprof_dbus_row_class_init (SysprofDbusRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_dbus_row_finalize;
}

static void
sysprof_dbus_row_init (SysprofDbusRow *self)
{
  (void) self;
}

SysprofDbusRow *
sysprof_dbus_row_new (SysprofDbusMessage *message)
{
  SysprofDbusRow *self = g_object_new (SYSPROF_TYPE_DBUS_ROW, NULL);

  self->message = message;
  return self;
}
