// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof's symbols layer: from captured addresses to names.  <sysprof.h>
 * includes it.  The error contract is <sysprof.h>'s. */
#pragma once

/* Opens the layers' headers; left defined when an umbrella includes us. */
#ifndef SYSPROF_INSIDE
#define SYSPROF_INSIDE         1
#define SYSPROF_INSIDE_SYMBOLS 1
#endif

#include <sysprof-capture.h>

#include "sysprof-dwarf-unwinder.h"
#include "sysprof-embedded-file.h"
#include "sysprof-symbol-map.h"
#include "sysprof-symbolizer.h"

#ifdef SYSPROF_INSIDE_SYMBOLS
#undef SYSPROF_INSIDE
#undef SYSPROF_INSIDE_SYMBOLS
#endif
