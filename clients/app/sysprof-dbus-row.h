// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDbusRow: a D-Bus message of a capture, as a row of the D-Bus
 * view's table.  Its fields are read directly by the table's cells. */
#pragma once

#include <sysprof.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_DBUS_ROW (sysprof_dbus_row_get_type ())
G_DECLARE_FINAL_TYPE (SysprofDbusRow, sysprof_dbus_row, SYSPROF, DBUS_ROW, GObject)

struct _SysprofDbusRow
{
  GObject parent_instance;

  SysprofDbusMessage *message; /* owned */
};

/* Takes @message.  Safe in any thread. */
SysprofDbusRow *sysprof_dbus_row_new (SysprofDbusMessage *message);

G_END_DECLS
