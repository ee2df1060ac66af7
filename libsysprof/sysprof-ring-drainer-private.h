// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_COMPILATION
#error "sysprof-ring-drainer-private.h is internal to libsysprof."
#endif

#include "sysprof-ring-drainer.h"

G_BEGIN_DECLS

/* What one pass may take from the rings, copied or counted lost; what is left
 * waits for the next pass, a millisecond later.  The bytes bound the copying:
 * 1 MiB a millisecond lets a legitimate busy producer write about 1 GB/s
 * (half a default ring per pass).  The frames bound the per-frame work (a
 * heap step, a cache miss in the ring, a check, a commit), which tiny frames
 * spread over many rings make dominant: measured on a 2-core x86-64, 8192
 * frames of 24 bytes over 256 to 1024 rings take about 0.7 ms a pass, as
 * long as 1 MiB of 320-byte frames over 256 rings (0.55 ms), whereas 16384
 * took 1.1 to 1.5 ms, longer than the period.  Frames of 128 bytes or more
 * (an allocation with 10 return addresses) meet the byte budget first. */
#define SYSPROF_RING_DRAINER_PASS_BYTES  (1024 * 1024)
#define SYSPROF_RING_DRAINER_PASS_FRAMES 8192

/* Runs one pass now, as the timer does.  TRUE when it stopped at a budget
 * with frames left in some ring. */
gboolean _sysprof_ring_drainer_drain_pass (SysprofRingDrainer *self);
/* What the last pass took from the rings: frames and their bytes. */
void _sysprof_ring_drainer_get_last_pass (SysprofRingDrainer *self, guint *n_frames, gsize *n_bytes);

G_END_DECLS
