// SPDX-License-Identifier: GPL-3.0-or-later
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "ipc-session-generated.h"
#include "ipc-session-manager-generated.h"
#include "sysprof-continuous-recording.h"
#include "sysprof-dbus-contract.h"

G_STATIC_ASSERT (SYSPROF_CONTINUOUS_RECORDING_DEFAULT_FREQUENCY == SYSPROF_DBUS_DEFAULT_CONTINUOUS_FREQUENCY);

struct _SysprofContinuousRecording
{
  GObject parent_instance;

  guint             period;
  guint             frequency;
  guint64           max_bytes;
  SysprofPerfUnwind unwind;

  GDBusConnection *bus;
  IpcSession      *session;
  GTask           *start_task;
  GTask           *stop_task;
  gboolean         taking; /* a TakePeriods call is under way */
  gboolean         take_again;
  gboolean         ended;      /* failed, or stopped */
  guint            last_index; /* of the last period handed out */
  guint            n_dropped;  /* periods the daemon dropped: gaps in the indices */
};

enum
{
  PERIOD,
  FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SysprofContinuousRecording, sysprof_continuous_recording, G_TYPE_OBJECT)

static void
sysprof_continuous_recording_dispose (GObject *object)
{
  SysprofContinuousRecording *self = SYSPROF_CONTINUOUS_RECORDING (object);

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  /* The daemon stops and closes a session whose connection goes away. */
  if (self->bus != NULL)
    g_dbus_connection_close (self->bus, NULL, NULL, NULL);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (sysprof_continuous_recording_parent_class)->dispose (object);
}

static void
sysprof_continuous_recording_class_init (SysprofContinuousRecordingClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sysprof_continuous_recording_dispose;

  signals[PERIOD] = g_signal_new ("period", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 4, G_TYPE_UINT, G_TYPE_INT64, G_TYPE_INT64, G_TYPE_INT);
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sysprof_continuous_recording_init (SysprofContinuousRecording *self)
{
  (void) self;
}

SysprofContinuousRecording *
sysprof_continuous_recording_new (guint period_seconds)
{
  SysprofContinuousRecording *self;

  g_return_val_if_fail (period_seconds >= SYSPROF_DBUS_MIN_PERIOD && period_seconds <= SYSPROF_DBUS_MAX_PERIOD, NULL);

  self = g_object_new (SYSPROF_TYPE_CONTINUOUS_RECORDING, NULL);
  self->period = period_seconds;
  return self;
}

void
sysprof_continuous_recording_set_frequency (SysprofContinuousRecording *self, guint frequency_hz)
{
  g_return_if_fail (SYSPROF_IS_CONTINUOUS_RECORDING (self));
  self->frequency = frequency_hz;
}

void
sysprof_continuous_recording_set_unwind (SysprofContinuousRecording *self, SysprofPerfUnwind unwind)
{
  g_return_if_fail (SYSPROF_IS_CONTINUOUS_RECORDING (self));
  self->unwind = unwind;
}

void
sysprof_continuous_recording_set_max_bytes (SysprofContinuousRecording *self, guint64 max_bytes)
{
  g_return_if_fail (SYSPROF_IS_CONTINUOUS_RECORDING (self));
  self->max_bytes = max_bytes;
}

guint
sysprof_continuous_recording_get_n_dropped (SysprofContinuousRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_CONTINUOUS_RECORDING (self), 0);
  return self->n_dropped;
}

/* The daemon's errors, in the terms of the header. */
static GError *
translate_error (const GError *error)
{
  g_autofree char *remote = g_dbus_error_get_remote_error (error);
  g_autoptr (GError) copy = g_error_copy (error);

  g_dbus_error_strip_remote_error (copy);
  if (g_strcmp0 (remote, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
      g_strcmp0 (remote, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0)
    return g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "sysprofd is not on the system bus (%s)", copy->message);
  if (g_error_matches (copy, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
    return g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "%s", copy->message);
  return g_steal_pointer (&copy);
}

static void
fail (SysprofContinuousRecording *self, GError *error)
{
  g_autoptr (GError) owned = error;

  if (self->ended)
    return;
  self->ended = TRUE;
  if (self->start_task != NULL)
    {
      g_autoptr (GTask) task = g_steal_pointer (&self->start_task);

      g_task_return_error (task, g_steal_pointer (&owned));
      return;
    }
  g_signal_emit (self, signals[FAILED], 0, owned);
  if (self->stop_task != NULL)
    {
      g_autoptr (GTask) task = g_steal_pointer (&self->stop_task);

      g_task_return_error (task, g_steal_pointer (&owned));
    }
}

/* Taking periods ------------------------------------------------------------ */

static void take_periods (SysprofContinuousRecording *self);
static void close_session (SysprofContinuousRecording *self);

static void
take_periods_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GVariant) periods = NULL;
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GError) error = NULL;
  GVariantIter iter;
  guint32      index;
  guint64      begin, end, bytes;
  gint32       handle;

  self->taking = FALSE;
  if (!ipc_session_call_take_periods_finish (IPC_SESSION (source), &periods, &fds, result, &error))
    {
      /* Taken again at the next announcement; at the end the stop says. */
      g_message ("Cannot take the finished periods: %s", error->message);
      if (self->stop_task != NULL)
        {
          fail (self, translate_error (error));
          return;
        }
    }
  else
    {
      g_variant_iter_init (&iter, periods);
      while (g_variant_iter_next (&iter, "(uttth)", &index, &begin, &end, &bytes, &handle))
        {
          int fd = fds != NULL && handle >= 0 && handle < g_unix_fd_list_get_length (fds)
                       ? g_unix_fd_list_get (fds, handle, NULL)
                       : -1;

          if (fd < 0)
            continue;
          if (index > self->last_index + 1)
            self->n_dropped += index - self->last_index - 1;
          self->last_index = MAX (self->last_index, index);
          g_signal_emit (self, signals[PERIOD], 0, index, (gint64) begin, (gint64) end, fd);
          close (fd);
        }
    }
  if (self->take_again)
    {
      self->take_again = FALSE;
      take_periods (self);
    }
  else if (self->stop_task != NULL)
    close_session (self);
}

static void
take_periods (SysprofContinuousRecording *self)
{
  if (self->taking)
    {
      self->take_again = TRUE;
      return;
    }
  self->taking = TRUE;
  ipc_session_call_take_periods (self->session, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, take_periods_cb,
                                 g_object_ref (self));
}

static void
period_finished_cb (IpcSession *session, guint index, gpointer data)
{
  SysprofContinuousRecording *self = data;

  (void) session, (void) index;
  take_periods (self);
}

static void
finished_cb (IpcSession *session, gboolean success, const char *message, gpointer data)
{
  SysprofContinuousRecording *self = data;

  (void) session;
  /* Our own Stop: the stop sequence goes on. */
  if (self->stop_task != NULL)
    return;
  fail (self, g_error_new (G_IO_ERROR, success ? G_IO_ERROR_CANCELLED : G_IO_ERROR_FAILED,
                           "sysprofd ended the recording: %s", message));
}

static void
bus_closed_cb (GDBusConnection *bus, gboolean remote_peer_vanished, GError *error, gpointer data)
{
  SysprofContinuousRecording *self = data;

  (void) bus, (void) remote_peer_vanished;
  fail (self, g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED, "The system bus connection was lost: %s",
                           error ? error->message : "closed"));
}

/* Starting ------------------------------------------------------------------ */

static void
start_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GError) error = NULL;

  if (!ipc_session_call_start_finish (IPC_SESSION (source), result, &error))
    {
      fail (self, translate_error (error));
      return;
    }
  if (self->start_task != NULL)
    {
      g_autoptr (GTask) task = g_steal_pointer (&self->start_task);

      g_task_return_boolean (task, TRUE);
    }
}

static void
session_ready_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GError) error = NULL;

  (void) source;
  if ((self->session = ipc_session_proxy_new_finish (result, &error)) == NULL)
    {
      fail (self, translate_error (error));
      return;
    }
  g_signal_connect (self->session, "period-finished", G_CALLBACK (period_finished_cb), self);
  g_signal_connect (self->session, "finished", G_CALLBACK (finished_cb), self);
  ipc_session_call_start (self->session, G_DBUS_CALL_FLAGS_NONE, -1, NULL, start_cb, g_object_ref (self));
}

static void
create_session_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *owner = NULL;

  if (!ipc_session_manager_call_create_session_finish (IPC_SESSION_MANAGER (source), &path, result, &error))
    {
      fail (self, translate_error (error));
      return;
    }
  /* The daemon's unique name: the session's signals come from it. */
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (source));
  ipc_session_proxy_new (self->bus, G_DBUS_PROXY_FLAGS_NONE, owner, path, NULL, session_ready_cb, g_object_ref (self));
}

static GVariant *
session_options (SysprofContinuousRecording *self)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", SYSPROF_DBUS_OPTION_PERIOD, g_variant_new_uint32 (self->period));
  if (self->frequency > 0)
    g_variant_builder_add (&builder, "{sv}", "frequency", g_variant_new_uint32 (self->frequency));
  if (self->max_bytes > 0)
    g_variant_builder_add (&builder, "{sv}", "max-bytes", g_variant_new_uint64 (self->max_bytes));
  if (self->unwind != SYSPROF_PERF_UNWIND_DEFAULT)
    g_variant_builder_add (&builder, "{sv}", "unwind",
                           g_variant_new_string (self->unwind == SYSPROF_PERF_UNWIND_DWARF
                                                     ? SYSPROF_DBUS_UNWIND_DWARF
                                                     : SYSPROF_DBUS_UNWIND_FRAME_POINTERS));
  return g_variant_builder_end (&builder);
}

static void
manager_ready_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (IpcSessionManager) manager = NULL;
  g_autoptr (GError) error = NULL;

  (void) source;
  if ((manager = ipc_session_manager_proxy_new_finish (result, &error)) == NULL)
    {
      fail (self, translate_error (error));
      return;
    }
  /* polkit may ask for a password, for as long as the user takes. */
  ipc_session_manager_call_create_session (manager, session_options (self),
                                           G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, G_MAXINT, NULL,
                                           create_session_cb, g_object_ref (self));
}

static void
bus_ready_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GError) error = NULL;

  (void) source;
  if ((self->bus = g_dbus_connection_new_for_address_finish (result, &error)) == NULL)
    {
      fail (self,
            g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Cannot connect to the system bus: %s", error->message));
      return;
    }
  g_signal_connect (self->bus, "closed", G_CALLBACK (bus_closed_cb), self);
  ipc_session_manager_proxy_new (self->bus,
                                 G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS,
                                 SYSPROF_DBUS_NAME, SYSPROF_DBUS_PATH, NULL, manager_ready_cb, g_object_ref (self));
}

void
sysprof_continuous_recording_start_async (SysprofContinuousRecording *self,
                                          GCancellable               *cancellable,
                                          GAsyncReadyCallback         callback,
                                          gpointer                    user_data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *address = NULL;

  g_return_if_fail (SYSPROF_IS_CONTINUOUS_RECORDING (self));
  g_return_if_fail (self->start_task == NULL && self->bus == NULL);

  self->start_task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (self->start_task, sysprof_continuous_recording_start_async);
  /* A connection of our own: the session ends with it. */
  if ((address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error)) == NULL)
    {
      fail (self, g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No system bus: %s", error->message));
      return;
    }
  g_dbus_connection_new_for_address (
      address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
      NULL, bus_ready_cb, g_object_ref (self));
}

gboolean
sysprof_continuous_recording_start_finish (SysprofContinuousRecording *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Stopping ------------------------------------------------------------------ */

static void
close_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GTask) task = g_steal_pointer (&self->stop_task);
  g_autoptr (GError) error = NULL;

  /* Everything was taken; a failed Close costs nothing. */
  if (!ipc_session_call_close_finish (IPC_SESSION (source), result, &error))
    g_message ("Closing the session: %s", error->message);
  self->ended = TRUE;
  if (task != NULL)
    g_task_return_boolean (task, TRUE);
}

static void
close_session (SysprofContinuousRecording *self)
{
  ipc_session_call_close (self->session, G_DBUS_CALL_FLAGS_NONE, -1, NULL, close_cb, g_object_ref (self));
}

static void
stop_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofContinuousRecording) self = data;
  g_autoptr (GError) error = NULL;

  if (!ipc_session_call_stop_finish (IPC_SESSION (source), result, &error))
    {
      fail (self, translate_error (error));
      return;
    }
  /* The last period, partial, is held now. */
  take_periods (self);
}

void
sysprof_continuous_recording_stop_async (SysprofContinuousRecording *self,
                                         GAsyncReadyCallback         callback,
                                         gpointer                    user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (SYSPROF_IS_CONTINUOUS_RECORDING (self));
  g_return_if_fail (self->stop_task == NULL);

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, sysprof_continuous_recording_stop_async);
  if (self->ended || self->session == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, "The recording had ended already");
      return;
    }
  self->stop_task = g_steal_pointer (&task);
  ipc_session_call_stop (self->session, G_DBUS_CALL_FLAGS_NONE, -1, NULL, stop_cb, g_object_ref (self));
}

gboolean
sysprof_continuous_recording_stop_finish (SysprofContinuousRecording *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
