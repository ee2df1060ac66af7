// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof: recording instruments on top of libsysprof-capture, for GLib
 * programs (the daemon runs them inside its recording sessions).
 *
 * Error contract (every public function follows it):
 *  - Runtime failures (the kernel refuses a perf event, a file cannot be read,
 *    the capture cannot be written) are reported through a GError, passed as
 *    the last argument, in the G_IO_ERROR domain with a message that names
 *    what failed and why; the function returns FALSE / NULL.
 *  - Programmer errors (NULL objects, calling start twice, option structs
 *    without their size) are caught with g_return_val_if_fail() and leave the
 *    GError unset.
 *  - Nothing here prints; the program reports errors once.
 *  - Objects are not thread-safe.  Sources are attached to the thread-default
 *    GMainContext of the thread that starts an instrument; use the instrument
 *    from that thread only.
 */
#pragma once

#define SYSPROF_INSIDE 1

#include <sysprof-capture.h>

#include "sysprof-callgraph.h"
#include "sysprof-counter-recorder.h"
#include "sysprof-embedded-file.h"
#include "sysprof-kallsyms.h"
#include "sysprof-memory-analysis.h"
#include "sysprof-perf-recorder.h"
#include "sysprof-proc-snapshot.h"
#include "sysprof-recording.h"
#include "sysprof-ring-drainer.h"
#include "sysprof-session-recorder.h"
#include "sysprof-symbol-map.h"
#include "sysprof-symbolizer.h"

#undef SYSPROF_INSIDE
