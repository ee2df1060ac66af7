// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

/* Called for every matching frame; return false to stop. */
typedef bool (*SysprofCaptureCursorCallback) (const SysprofCaptureFrame *frame, void *user_data);

/* Walks a private copy of @reader from its first frame; with a NULL
 * @reader, nothing (as upstream's). */
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCursor *sysprof_capture_cursor_new (SysprofCaptureReader *reader);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureCursor *sysprof_capture_cursor_ref (SysprofCaptureCursor *self);
/* Accepts NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_cursor_unref (SysprofCaptureCursor *self);
/* Visits every valid frame of a known type that matches any added condition
 * (all frames when none was added), first to last or, after
 * sysprof_capture_cursor_reverse(), last to first.  Returns false with errno
 * when the capture could not be read to its end; frames before that point
 * were delivered. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_capture_cursor_foreach_checked (SysprofCaptureCursor        *self,
                                             SysprofCaptureCursorCallback callback,
                                             void                        *user_data);
/* The same without the result, as upstream's: the reader
 * (sysprof_capture_cursor_get_reader) still has the error. */
SYSPROF_AVAILABLE_IN_ALL
void
sysprof_capture_cursor_foreach (SysprofCaptureCursor *self, SysprofCaptureCursorCallback callback, void *user_data);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_cursor_reset (SysprofCaptureCursor *self);
/* Toggles the direction of the next foreach. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_cursor_reverse (SysprofCaptureCursor *self);
/* Takes ownership.  Conditions added separately are OR-ed, like Sysprof's. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_capture_cursor_add_condition (SysprofCaptureCursor *self, SysprofCaptureCondition *condition);
SYSPROF_AVAILABLE_IN_ALL
SysprofCaptureReader *sysprof_capture_cursor_get_reader (SysprofCaptureCursor *self);

SYSPROF_END_DECLS
