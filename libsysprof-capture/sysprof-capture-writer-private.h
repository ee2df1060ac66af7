// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#ifndef SYSPROF_CAPTURE_COMPILATION
#error "This header is private to libsysprof-capture."
#endif

#include "sysprof-capture-writer.h"

/* Like set_time_range, but a second call widens the range instead of
 * replacing it, so merging several captures covers all of them. */
bool _sysprof_capture_writer_extend_time_range (SysprofCaptureWriter *self, int64_t start_time, int64_t end_time);
