// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofRecorderPage: the start page, recording through sysprofd.
 *
 * Configuration (whole system or a command with its arguments, environment
 * and working directory; CPU sampling, memory tracing, counters, frequency),
 * then a compact recording view (elapsed time, samples, size, lost events,
 * allocation records) with Stop.  When the recording is complete it emits
 * "finished" with the capture's GFile and whether it is a temporary file.
 * Refusals (polkit, a missing command) are shown on the page.
 *
 * Widgets the tests drive have names (gtk_widget_set_name): "mode-command"
 * (a GtkCheckButton), "command-entry", "directory-entry", "env-entry",
 * "memory-switch", "cpu-switch", "record-button", "stop-button",
 * "status-label", "error-label".
 */
#pragma once

#include <adwaita.h>
#include <sysprof.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_RECORDER_PAGE (sysprof_recorder_page_get_type ())
G_DECLARE_FINAL_TYPE (SysprofRecorderPage, sysprof_recorder_page, SYSPROF, RECORDER_PAGE, GtkWidget)

GtkWidget *sysprof_recorder_page_new (void);
/* The recording in progress, or NULL. */
SysprofRecording *sysprof_recorder_page_get_recording (SysprofRecorderPage *self);
/* The last error shown, or NULL. */
const char *sysprof_recorder_page_get_error (SysprofRecorderPage *self);

G_END_DECLS
