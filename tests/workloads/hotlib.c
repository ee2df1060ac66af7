// SPDX-License-Identifier: GPL-3.0-or-later
/* The shared-library part of hot-functions: a hot function that lives in a
 * DSO, so its address needs the shared-object translation. */
#include "hotlib.h"

HOT_NOINLINE unsigned long
hot_compute_b (unsigned long iterations)
{
  volatile unsigned long acc = 7;

  for (unsigned long i = 0; i < iterations; i++)
    HOT_SPIN_STEP (acc);
  return acc;
}
