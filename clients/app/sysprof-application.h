// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofApplication: opens a window per capture given on the command line
 * (or dropped, or chosen), or the recorder when there is none. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_APPLICATION (sysprof_application_get_type ())
G_DECLARE_FINAL_TYPE (SysprofApplication, sysprof_application, SYSPROF, APPLICATION, AdwApplication)

SysprofApplication *sysprof_application_new (void);
/* 2 after a usage error the command line made (--compare without AFTER),
 * else 0: for main() to return. */
int sysprof_application_get_exit_status (SysprofApplication *self);

G_END_DECLS
