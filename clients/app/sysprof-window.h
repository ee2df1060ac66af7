// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofWindow: one capture (or the recorder) in a window.
 *
 * Pages: the recorder (start page), loading (progress), an error, and the
 * capture: the shared timeline above a sidebar of views and the views
 * themselves, one per kind that has data in the capture.
 */
#pragma once

#include <adwaita.h>

#include "sysprof-document.h"
#include "sysprof-recorder-page.h"
#include "sysprof-timeline.h"

G_BEGIN_DECLS

#define SYSPROF_TYPE_WINDOW (sysprof_window_get_type ())
G_DECLARE_FINAL_TYPE (SysprofWindow, sysprof_window, SYSPROF, WINDOW, AdwApplicationWindow)

SysprofWindow *sysprof_window_new (GtkApplication *application);

/* Loads @file into this window (which must not show a capture yet).
 * @temporary: the file was recorded into a temporary place; the window
 * offers to save it and deletes it when closed. */
void sysprof_window_open (SysprofWindow *self, GFile *file, gboolean temporary);
void sysprof_window_show_recorder (SysprofWindow *self);
/* Compares the window's capture (AFTER) with @before: loads it, then shows
 * the comparison view (replacing an earlier one).  Asked before the
 * window's capture is loaded, it waits for it.  A capture that cannot be
 * opened is told in a toast and by sysprof_window_get_compare_error(). */
void sysprof_window_compare (SysprofWindow *self, GFile *before);

SysprofDocument *sysprof_window_get_document (SysprofWindow *self);
/* The views' stack: one page per view, named by the view's id. */
GtkStack            *sysprof_window_get_views (SysprofWindow *self);
SysprofTimeline     *sysprof_window_get_timeline (SysprofWindow *self);
SysprofRecorderPage *sysprof_window_get_recorder_page (SysprofWindow *self);
/* "recorder", "loading", "error" or "capture". */
const char *sysprof_window_get_page (SysprofWindow *self);
/* The loading error shown on the error page, or NULL. */
const char *sysprof_window_get_error (SysprofWindow *self);
/* Why the last comparison could not be made ("Cannot compare with NAME:
 * …"), or NULL. */
const char *sysprof_window_get_compare_error (SysprofWindow *self);
/* TRUE while loading (the capture, or one to compare with) or while a view
 * computes. */
gboolean sysprof_window_is_busy (SysprofWindow *self);

G_END_DECLS
