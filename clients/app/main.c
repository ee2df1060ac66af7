// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof: the GTK app.  See sysprof-application.c. */
#include "sysprof-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (SysprofApplication) app = sysprof_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
