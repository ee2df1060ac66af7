// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdint.h>
#include <time.h>

#include "sysprof-macros.h"

SYSPROF_BEGIN_DECLS

typedef int     SysprofClock;
typedef int64_t SysprofTimeStamp;
typedef int32_t SysprofTimeStampDiff;
/* Upstream's old name of SysprofTimeStampDiff. */
typedef SysprofTimeStampDiff SysprofTimeSysprofan;

#define SYSPROF_NSEC_PER_SEC SYSPROF_INT64_CONSTANT (1000000000)

/* The clock every timestamp of a capture is taken from; -1 until
 * sysprof_clock_init() ran (then CLOCK_MONOTONIC is used). */
SYSPROF_AVAILABLE_IN_ALL
SysprofClock sysprof_clock;

/* Pick the first working clock of MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE,
 * REALTIME_COARSE, REALTIME.  Thread-safe and idempotent. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_clock_init (void);

/* Nanoseconds on sysprof_clock. */
static inline SysprofTimeStamp
sysprof_clock_get_current_time (void)
{
  struct timespec ts;
  SysprofClock    clock_id = sysprof_clock;

  if (clock_id == -1)
    clock_id = CLOCK_MONOTONIC;
  clock_gettime (clock_id, &ts);
  return (SysprofTimeStamp) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Nanoseconds since @epoch, cut to 32 bits as upstream's are (about two
 * seconds either way). */
static inline SysprofTimeStampDiff
sysprof_clock_get_relative_time (SysprofTimeStamp epoch)
{
  return (SysprofTimeStampDiff) (sysprof_clock_get_current_time () - epoch);
}

#define SYSPROF_CAPTURE_CURRENT_TIME (sysprof_clock_get_current_time ())

SYSPROF_END_DECLS
