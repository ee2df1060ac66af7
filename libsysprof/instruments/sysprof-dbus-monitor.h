// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* Bytes of DBUS_MESSAGE frames one monitor writes in a recording (its
 * budget): beyond it, messages are counted as lost, not written. */
#define SYSPROF_DBUS_MONITOR_DEFAULT_MAX_BYTES (G_GUINT64_CONSTANT (32) << 20)
/* Bytes of messages received but not yet written (the writer's thread is
 * late): beyond it, messages are counted as lost. */
#define SYSPROF_DBUS_MONITOR_MAX_PENDING (8u << 20)
/* The METADATA frame a monitor writes when it stops: "sysprof.dbus.session"
 * or "sysprof.dbus.system", whose text is
 * "messages=N too-large=N lost=N max-bytes=N". */
#define SYSPROF_DBUS_METADATA_PREFIX "sysprof.dbus."

#define SYSPROF_TYPE_DBUS_MONITOR (sysprof_dbus_monitor_get_type ())

/* Records the messages of a message bus as DBUS_MESSAGE frames (each the
 * message's wire form, as GDBus serializes it, timed on the capture clock
 * when it arrived): a private connection to the bus becomes a monitor
 * (org.freedesktop.DBus.Monitoring.BecomeMonitor), which the bus allows to
 * root and, on a session bus, to the bus's own user.
 *
 * Messages arrive in GDBus's worker thread, which only copies them into a
 * bounded queue; a source of the thread-default main context (of the thread
 * that called start) writes them into the writer, so the writer is only
 * ever used from that thread.  Nothing the bus's clients send can block the
 * recorder or grow without bound: a message longer than
 * SYSPROF_CAPTURE_DBUS_MESSAGE_MAX is written without its body (flag
 * MESSAGE_TOO_LARGE), and beyond the byte budget or the pending queue
 * messages are only counted (lost).  The counts go into the capture as a
 * METADATA frame at stop. */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofDbusMonitor, sysprof_dbus_monitor, SYSPROF, DBUS_MONITOR, GObject)

/* @bus_type: SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM or _SESSION (stored in every
 * frame).  Keeps a reference on @writer. */
SYSPROF_AVAILABLE_IN_ALL
SysprofDbusMonitor *sysprof_dbus_monitor_new (SysprofCaptureWriter *writer, guint bus_type);
/* The budget of this recording, in bytes of frames (0: the default,
 * SYSPROF_DBUS_MONITOR_DEFAULT_MAX_BYTES).  Before start. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_dbus_monitor_set_max_bytes (SysprofDbusMonitor *self, guint64 max_bytes);
/* Connects to the bus at @address (a D-Bus address; NULL: the bus of the
 * monitor's bus type, as GIO finds it) and becomes a monitor of every
 * message.  Blocks until the bus answered (at most 10 s).  Errors
 * (G_IO_ERROR): NOT_FOUND when there is no such bus, PERMISSION_DENIED
 * when the bus refuses to let us monitor it, others from the connection. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_dbus_monitor_start (SysprofDbusMonitor *self, const char *address, GError **error);
/* Waits until no message came for 100 ms (at most 1 s: what the bus
 * already passed on), leaves the bus, writes what is queued and the METADATA
 * frame of the counts.  Does nothing when not started or already stopped. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_dbus_monitor_stop (SysprofDbusMonitor *self);
/* Counts so far: messages written (with or without body), written without
 * body (too large), and lost (over the budget, the queue, or not
 * serializable). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_dbus_monitor_get_n_messages (SysprofDbusMonitor *self);
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_dbus_monitor_get_n_too_large (SysprofDbusMonitor *self);
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_dbus_monitor_get_n_lost (SysprofDbusMonitor *self);
/* A sentence for people when something was lost or cut ("the session bus:
 * N messages lost beyond the 32 MiB budget, ..."), NULL otherwise. */
SYSPROF_AVAILABLE_IN_ALL
char *sysprof_dbus_monitor_dup_loss_message (SysprofDbusMonitor *self);

G_END_DECLS
