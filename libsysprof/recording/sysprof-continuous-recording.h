// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> can be included directly."
#endif

#include <gio/gio.h>

#include "sysprof-perf-recorder.h"

G_BEGIN_DECLS

/* The rate a continuous session samples at unless told (sysprofd's). */
#define SYSPROF_CONTINUOUS_RECORDING_DEFAULT_FREQUENCY 19

#define SYSPROF_TYPE_CONTINUOUS_RECORDING (sysprof_continuous_recording_get_type ())

/* Continuous recording through sysprofd: a session with the option
 * "period" (see org.gnome.Sysprof3.SessionManager.xml), which samples the
 * whole system at a low rate and finishes a whole capture every period.
 * Each finished period is taken from the daemon as soon as it is announced
 * and handed to the "period" signal:
 *   void (*) (SysprofContinuousRecording *, guint index, gint64 begin_usec,
 *             gint64 end_usec, int fd, gpointer user_data)
 * with @fd a read-only descriptor of the capture, valid during the emission
 * only (a handler that keeps it duplicates it), @begin_usec and @end_usec Unix
 * times.  The session belongs to this process's own connection to the system
 * bus: when the process dies the daemon stops it and the period under way is
 * lost, never one that was handed out.  Driven by the thread-default main
 * context of the caller of start_async. */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofContinuousRecording, sysprof_continuous_recording, SYSPROF, CONTINUOUS_RECORDING, GObject)

/* @period_seconds: 1..86400. */
SYSPROF_AVAILABLE_IN_ALL
SysprofContinuousRecording *sysprof_continuous_recording_new (guint period_seconds);
/* Samples per second and CPU; 0 (the default): the daemon's continuous
 * default (19 Hz). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_continuous_recording_set_frequency (SysprofContinuousRecording *self, guint frequency_hz);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_continuous_recording_set_unwind (SysprofContinuousRecording *self, SysprofPerfUnwind unwind);
/* Bytes per period before it is cut early; 0: the daemon's default (256 MiB). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_continuous_recording_set_max_bytes (SysprofContinuousRecording *self, guint64 max_bytes);
/* Connects to the system bus, creates and starts the session (polkit may
 * ask for a password).  Completes once recording runs, or with why not:
 * G_IO_ERROR_NOT_FOUND when sysprofd is not there, G_IO_ERROR_PERMISSION_DENIED
 * when polkit refused, G_DBUS_ERROR_LIMITS_EXCEEDED for a second continuous
 * session, the daemon's message otherwise. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_continuous_recording_start_async (SysprofContinuousRecording *self,
                                               GCancellable               *cancellable,
                                               GAsyncReadyCallback         callback,
                                               gpointer                    user_data);
SYSPROF_AVAILABLE_IN_ALL
gboolean
sysprof_continuous_recording_start_finish (SysprofContinuousRecording *self, GAsyncResult *result, GError **error);
/* Stops the session, takes its last (partial) period (emitting "period"),
 * and closes it.  Completes with an error when the session had failed
 * before (the "failed" signal said why). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_continuous_recording_stop_async (SysprofContinuousRecording *self,
                                              GAsyncReadyCallback         callback,
                                              gpointer                    user_data);
SYSPROF_AVAILABLE_IN_ALL
gboolean
sysprof_continuous_recording_stop_finish (SysprofContinuousRecording *self, GAsyncResult *result, GError **error);
/* Finished periods the daemon dropped because they were not taken in time. */
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_continuous_recording_get_n_dropped (SysprofContinuousRecording *self);

/* "failed": void (*) (SysprofContinuousRecording *, const GError *error,
 * gpointer user_data): the recording ended by itself (the daemon stopped the
 * session or left the bus); no period follows. */

G_END_DECLS
