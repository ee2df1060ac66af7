// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#ifndef SYSPROF_CAPTURE_COMPILATION
#error "This header is private to libsysprof-capture."
#endif

#include "sysprof-capture-reader.h"
#include "sysprof-capture-writer.h"

/* Position the reader at @offset, which must be a frame boundary it reported. */
bool _sysprof_capture_reader_seek (SysprofCaptureReader *self, uint64_t offset);
int  _sysprof_capture_writer_get_fd (SysprofCaptureWriter *self);
void _sysprof_capture_writer_account_spliced (SysprofCaptureWriter     *self,
                                              uint64_t                  len,
                                              const SysprofCaptureStat *stat,
                                              int64_t                   max_time);
