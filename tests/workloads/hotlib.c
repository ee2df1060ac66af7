// SPDX-License-Identifier: GPL-3.0-or-later
/* The shared-library part of hot-functions: a hot function that lives in a
 * DSO, so its address needs the shared-object translation. */
#include <time.h>

#include "hotlib.h"

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

__attribute__ ((noinline)) unsigned long
hot_compute_b (double budget_ns)
{
  volatile unsigned long acc = 7;
  double                 end = now_ns () + budget_ns;

  do
    for (unsigned i = 0; i < 4096; i++)
      acc = acc * 2862933555777941757ul + 3037000493ul;
  while (now_ns () < end);
  return acc;
}
