// SPDX-License-Identifier: BSD-2-Clause-Patent
/* libsysprof-capture: the Sysprof capture format (v1) — types, writer, reader,
 * cursor, conditions, the mapped ring buffer, and the memory streams (compact
 * allocation records: encoder, decoder, allocation cursor).  C11 + POSIX +
 * pthreads, and libzstd for compressed memory stream blocks.
 *
 * Error contract (every public function follows it):
 *  - Functions returning bool return false and set errno on failure; functions
 *    returning a pointer return NULL and set errno; functions returning an id or
 *    address return 0 and set errno.  Nothing is printed and nothing aborts.
 *  - Wrong arguments (NULL where an object is required, out-of-range counts) are
 *    checked in every build: the call fails with errno = EINVAL.
 *  - Data from a file, pipe or peer is never trusted.  A reader that meets a
 *    corrupt or truncated capture stops with EBADMSG (corrupt) or EIO
 *    (truncated) and describes the problem, naming its byte offset, in
 *    sysprof_capture_reader_get_error(); it never reads past a frame or the file.
 *  - Destructors (_unref) accept NULL.  Objects are reference counted with
 *    atomic counts but are otherwise not thread-safe: use one per thread.
 *  - Exception: the collector's event functions (sysprof-collector.h) run
 *    inside instrumented programs and malloc hooks, so they return nothing and
 *    leave errno untouched; lost events are counted instead.  So do the
 *    memory stream encoder's add functions (sysprof-memory-stream.h), which
 *    return false only when a record does not fit.
 */
#pragma once

#define SYSPROF_CAPTURE_INSIDE 1

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "sysprof-version.h"
#include "sysprof-version-macros.h"
#include "sysprof-macros.h"
#include "sysprof-platform.h"
#include "sysprof-capture-types.h"
#include "sysprof-address.h"
#include "sysprof-clock.h"
#include "sysprof-capture-condition.h"
#include "sysprof-capture-cursor.h"
#include "sysprof-capture-reader.h"
#include "sysprof-capture-writer.h"
#include "sysprof-mapped-ring-buffer.h"
#include "sysprof-collector.h"
#include "sysprof-memory-stream.h"
#include "sysprof-memory-stream-decoder.h"
#include "sysprof-allocation-cursor.h"

#undef SYSPROF_CAPTURE_INSIDE
