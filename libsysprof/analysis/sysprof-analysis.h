// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof's analysis layer: callgraphs and memory analyses of a capture.
 * <sysprof.h> includes it.  The error contract is <sysprof.h>'s. */
#pragma once

/* Opens the layers' headers; left defined when an umbrella includes us. */
#ifndef SYSPROF_INSIDE
#define SYSPROF_INSIDE          1
#define SYSPROF_INSIDE_ANALYSIS 1
#endif

#include "sysprof-symbols.h"

#include "sysprof-allocators.h"
#include "sysprof-callgraph.h"
#include "sysprof-callgraph-diff.h"
#include "sysprof-capture-summary.h"
#include "sysprof-dbus-messages.h"
#include "sysprof-mark-stats.h"
#include "sysprof-memory-analysis.h"
#include "sysprof-thread-times.h"
#include "sysprof-unwind-summary.h"

#ifdef SYSPROF_INSIDE_ANALYSIS
#undef SYSPROF_INSIDE
#undef SYSPROF_INSIDE_ANALYSIS
#endif
