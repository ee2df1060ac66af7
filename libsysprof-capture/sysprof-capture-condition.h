// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

/* Predicates over frames, combined with AND / OR.  Constructors taking other
 * conditions take ownership of them (also on failure).  NULL with errno on failure. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_and (SysprofCaptureCondition *left,
                                                            SysprofCaptureCondition *right);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_or (SysprofCaptureCondition *left,
                                                           SysprofCaptureCondition *right);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_where_type_in (unsigned int                   n_types,
                                                                      const SysprofCaptureFrameType *types);
/* Inclusive on both ends. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_where_time_between (int64_t begin_time, int64_t end_time);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_where_pid_in (unsigned int n_pids, const int32_t *pids);
/* CTRSET frames carrying any of the ids and CTRDEF frames defining one. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_where_counter_in (unsigned int        n_counters,
                                                                         const unsigned int *counters);
/* FILE_CHUNK frames of @path. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_new_where_file (const char *path);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_copy (const SysprofCaptureCondition *self);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCondition *sysprof_capture_condition_ref (SysprofCaptureCondition *self);
/* Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_condition_unref (SysprofCaptureCondition *self);
/* @frame must be a frame the reader validated (the payload is inspected). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_condition_match (const SysprofCaptureCondition *self, const SysprofCaptureFrame *frame);

SYSPROF_END_DECLS
