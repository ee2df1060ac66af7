// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof: recording, symbols and analyses on top of libsysprof-capture,
 * for GLib programs; its layers (instruments, symbols, analysis, recording)
 * each have a header of their own, see README.md.
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

/* Opens the layers' headers; left defined when an umbrella includes us. */
#ifndef SYSPROF_INSIDE
#define SYSPROF_INSIDE     1
#define SYSPROF_INSIDE_ALL 1
#endif

#include "sysprof-instruments.h"
#include "sysprof-symbols.h"
#include "sysprof-analysis.h"
#include "sysprof-continuous-recording.h"
#include "sysprof-recording.h"

#ifdef SYSPROF_INSIDE_ALL
#undef SYSPROF_INSIDE
#undef SYSPROF_INSIDE_ALL
#endif
