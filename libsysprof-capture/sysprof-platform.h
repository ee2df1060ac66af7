// SPDX-License-Identifier: BSD-2-Clause-Patent
/* What libsysprof-capture-4 offers of the platform, with upstream's names. */
#pragma once

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "sysprof-macros.h"

SYSPROF_BEGIN_DECLS

/* An anonymous file in memory (memfd_create, no close-on-exec, so that it
 * can be handed to a program we start), named @desc ("[sysprof]" when
 * NULL); -1 with errno on failure. */
SYSPROF_AVAILABLE_IN_ALL
int sysprof_memfd_create (const char *desc);
/* The size of a memory page. */
SYSPROF_AVAILABLE_IN_3_36
size_t sysprof_getpagesize (void);

SYSPROF_END_DECLS
