// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include <pthread.h>

#include "sysprof-clock.h"

int sysprof_clock = -1;

static void
sysprof_clock_pick (void)
{
  static const int clocks[] = {
    CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC_COARSE, CLOCK_REALTIME_COARSE, CLOCK_REALTIME,
  };

  for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
    {
      struct timespec ts;

      if (clock_gettime (clocks[i], &ts) == 0)
        {
          sysprof_clock = clocks[i];
          return;
        }
    }
}

void
sysprof_clock_init (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, sysprof_clock_pick);
}
