// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* Never inlined nor cloned (GCC would rename a clone foo.constprop.0). */
#if defined(__clang__)
#define HOT_NOINLINE __attribute__ ((noinline))
#else
#define HOT_NOINLINE __attribute__ ((noipa))
#endif

/* One step of the spin loop every hot function runs: the same instructions
 * everywhere, so iteration counts set the shares of time. */
#define HOT_SPIN_STEP(acc) ((acc) = (acc) *6364136223846793005ul + 1442695040888963407ul)

/* Runs @iterations spin steps inside libhotlib.so. */
unsigned long hot_compute_b (unsigned long iterations);
