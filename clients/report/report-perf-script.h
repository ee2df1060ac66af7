// SPDX-License-Identifier: GPL-3.0-or-later
/* The samples of a callgraph as the text `perf script` prints for sampled
 * callchains with its default fields (and the pid), the format that
 * Brendan Gregg's stackcollapse-perf.pl, speedscope, the Firefox Profiler
 * and Hotspot's perf importers read:
 *
 *   COMM PID/TID [CPU] SECONDS.MICROSECONDS: PERIOD EVENT:
 *   \tADDRESS SYMBOL+0xOFFSET (DSO)        one line per frame, innermost first
 *   \tADDRESS SYMBOL+0xOFFSET (inlined)    a function inlined at that address
 *   (empty line)
 *
 * as perf 6.1 prints it: "%5d/%-5d", "[%03d]", the period "%10lu", the
 * address "%16lx" and, in user space, as an address in its file (the
 * mapping's offset added), absolute in the kernel and outside files. */
#pragma once

#include "report-util.h"

G_BEGIN_DECLS

/* Every sample of @report's callgraph (built with keep_samples) to @out;
 * FALSE with @error when writing failed. */
gboolean report_perf_script_write (const Report *report, FILE *out, GError **error);

G_END_DECLS
