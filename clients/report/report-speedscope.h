// SPDX-License-Identifier: GPL-3.0-or-later
/* A profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): the functions as a
 * shared table of frames, and one "sampled" profile per thread, its stacks
 * outermost first with their weights.  Written with report-json.c. */
#pragma once

#include "report-util.h"

G_BEGIN_DECLS

/* Threads with a profile of their own, by default; the others share one. */
#define REPORT_SPEEDSCOPE_MAX_THREADS 32

/* The profile of @report's capture, with its filter, one profile for each
 * of the @max_threads threads with the most samples (0: no limit) and one
 * for the rest; NULL with @error when the capture cannot be read. */
GBytes *report_speedscope_build (const Report *report, guint max_threads, GError **error);

G_END_DECLS
