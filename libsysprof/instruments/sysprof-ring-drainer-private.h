// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-ring-drainer-private.h is private to libsysprof/instruments."
#endif

#include "sysprof-ring-drainer.h"

G_BEGIN_DECLS

/* What one pass may take from the rings, copied or counted lost.  A tick of
 * the timer runs passes while frames are left, for up to 4 ms; what is left
 * then waits for the next tick, a millisecond later, so the context's other
 * sources (Stop, Close, perf records) run between ticks.  The bounds keep a
 * pass short: the bytes bound the copying, the frames the per-frame work (a
 * heap step, a cache miss in the ring, a check, a commit), which tiny frames
 * spread over many rings make dominant: measured on a 2-core x86-64, 8192
 * frames of 24 bytes over 256 to 1024 rings take about 0.7 ms a pass, as
 * long as 1 MiB of 320-byte frames over 256 rings (0.55 ms). */
#define SYSPROF_RING_DRAINER_PASS_BYTES  (1024 * 1024)
#define SYSPROF_RING_DRAINER_PASS_FRAMES 8192

/* Runs one pass now, as the timer does.  TRUE when it stopped at a budget
 * with frames left in some ring. */
gboolean _sysprof_ring_drainer_drain_pass (SysprofRingDrainer *self);
/* What the last pass took from the rings: frames and their bytes. */
void _sysprof_ring_drainer_get_last_pass (SysprofRingDrainer *self, guint *n_frames, gsize *n_bytes);

G_END_DECLS
