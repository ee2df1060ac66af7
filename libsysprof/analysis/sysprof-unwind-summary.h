// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* The recorder's METADATA "sysprof.unwind" (see
 * sysprof_perf_recorder_get_unwind_summary()) told in a sentence for people:
 * "DWARF, 8192 bytes copied per sample; of 5517 unwound, 92.9% reached their
 * outermost frame, ..." or "frame pointers (...)".  NULL for a text it does
 * not understand (a newer recorder's, a damaged one). */
SYSPROF_AVAILABLE_IN_ALL
char *sysprof_unwind_summary_describe (const char *summary);

G_END_DECLS
