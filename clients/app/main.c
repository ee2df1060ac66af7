// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof: the GTK app.  See sysprof-application.c. */
#include "sysprof-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (SysprofApplication) app = sysprof_application_new ();

  int status = g_application_run (G_APPLICATION (app), argc, argv);

  return status != 0 ? status : sysprof_application_get_exit_status (app);
}
