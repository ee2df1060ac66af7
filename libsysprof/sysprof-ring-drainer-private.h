// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_COMPILATION
#error "sysprof-ring-drainer-private.h is internal to libsysprof."
#endif

#include "sysprof-ring-drainer.h"

G_BEGIN_DECLS

/* What one pass may take from the rings, copied or counted lost; what is left
 * waits for the next pass, a millisecond later.  The bytes bound the copying
 * (about 1 GiB/s at most, half a default ring per pass), the frames the
 * per-frame work that tiny frames would make dominant (a heap step, a check,
 * a commit): a frame of 64 bytes or more meets the byte budget first. */
#define SYSPROF_RING_DRAINER_PASS_BYTES  (1024 * 1024)
#define SYSPROF_RING_DRAINER_PASS_FRAMES 16384

/* Runs one pass now, as the timer does.  TRUE when it stopped at a budget
 * with frames left in some ring. */
gboolean _sysprof_ring_drainer_drain_pass (SysprofRingDrainer *self);
/* What the last pass took from the rings: frames and their bytes. */
void _sysprof_ring_drainer_get_last_pass (SysprofRingDrainer *self, guint *n_frames, gsize *n_bytes);

G_END_DECLS
