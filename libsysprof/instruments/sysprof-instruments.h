// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof's instruments layer: what records.  What sysprofd includes (it
 * links nothing above this layer); <sysprof.h> includes it too.  The error
 * contract is <sysprof.h>'s. */
#pragma once

/* Opens the layers' headers; left defined when an umbrella includes us. */
#ifndef SYSPROF_INSIDE
#define SYSPROF_INSIDE             1
#define SYSPROF_INSIDE_INSTRUMENTS 1
#endif

#include <sysprof-capture.h>

#include "sysprof-capture-error.h"
#include "sysprof-control-channel.h"
#include "sysprof-counter-recorder.h"
#include "sysprof-dbus-monitor.h"
#include "sysprof-kallsyms.h"
#include "sysprof-perf-recorder.h"
#include "sysprof-proc-snapshot.h"
#include "sysprof-ring-drainer.h"
#include "sysprof-session-recorder.h"

#ifdef SYSPROF_INSIDE_INSTRUMENTS
#undef SYSPROF_INSIDE
#undef SYSPROF_INSIDE_INSTRUMENTS
#endif
