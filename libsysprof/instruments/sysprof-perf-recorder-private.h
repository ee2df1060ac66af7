// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-perf-recorder-private.h is private to libsysprof/instruments."
#endif

#include <linux/perf_event.h>

#include "sysprof-perf-recorder.h"

G_BEGIN_DECLS

/* The sample_type of every event the recorder opens.  A PERF_RECORD_SAMPLE is
 * then laid out as { u64 ip; u32 pid, tid; u64 time; u32 cpu, res; u64 nr;
 * u64 ips[nr]; } after its header, and every other record ends with the
 * sample_id_all trailer { u32 pid, tid; u64 time; u32 cpu, res; }. */
#define _SYSPROF_PERF_SAMPLE_TYPE \
  (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)
#define _SYSPROF_PERF_SAMPLE_ID_SIZE 24

/* Turns one perf record (contiguous, 8-byte aligned, laid out as above) into
 * capture frames, exactly as the draining sources do. */
void _sysprof_perf_recorder_handle_record (SysprofPerfRecorder *self, const struct perf_event_header *record);

G_END_DECLS
