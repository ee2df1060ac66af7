// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofApplication: opens a window per capture given on the command line
 * (or dropped, or chosen), or the recorder when there is none. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_APPLICATION (sysprof_application_get_type ())
G_DECLARE_FINAL_TYPE (SysprofApplication, sysprof_application, SYSPROF, APPLICATION, AdwApplication)

SysprofApplication *sysprof_application_new (void);

G_END_DECLS
