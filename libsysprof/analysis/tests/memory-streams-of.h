// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <glib.h>

/* Writes at @streams_path a copy of the capture @frames_path in which every
 * ALLOCATION frame is a record of its thread's memory stream instead
 * (libsysprof-capture's public encoder; frees without their stacks, as the
 * tracker writes them).  A thread's block is written after every
 * @block_events of its events, raw and zstd in turn, and the rest at the
 * end, the last thread met first, so that capture order is not time order;
 * every other frame is copied as it is, and the header's times are kept.
 * @lost > 0: each stream starts with a lost record of that many events. */
void memory_streams_of (const char *frames_path, const char *streams_path, guint block_events, guint64 lost);
