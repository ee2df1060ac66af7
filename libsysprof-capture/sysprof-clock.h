// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#if !defined(SYSPROF_CAPTURE_INSIDE) && !defined(SYSPROF_CAPTURE_COMPILATION)
#error "Only <sysprof-capture.h> can be included directly."
#endif

#include <stdint.h>
#include <time.h>

#include "sysprof-macros.h"

SYSPROF_BEGIN_DECLS

/* The clock every timestamp of a capture is taken from; -1 until
 * sysprof_clock_init() ran (then CLOCK_MONOTONIC is used). */
SYSPROF_AVAILABLE_IN_ALL
extern int sysprof_clock;

/* Pick the first working clock of MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE,
 * REALTIME_COARSE, REALTIME.  Thread-safe and idempotent. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_clock_init (void);

/* Nanoseconds on sysprof_clock. */
static inline int64_t
sysprof_clock_get_current_time (void)
{
  struct timespec ts;
  int             clock_id = sysprof_clock;

  if (clock_id == -1)
    clock_id = CLOCK_MONOTONIC;
  clock_gettime (clock_id, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define SYSPROF_CAPTURE_CURRENT_TIME (sysprof_clock_get_current_time ())

SYSPROF_END_DECLS
