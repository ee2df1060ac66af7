// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* One step of the spin loop every hot function runs: the same instructions
 * everywhere, so iteration counts set the shares of time. */
#define HOT_SPIN_STEP(acc) ((acc) = (acc) *6364136223846793005ul + 1442695040888963407ul)

/* Runs @iterations spin steps inside libhotlib.so. */
unsigned long hot_compute_b (unsigned long iterations);
