// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDbusMonitor: the messages of a bus as DBUS_MESSAGE frames.
 *
 * Threads: the filter runs in GDBus's worker thread and only queues copies
 * (under the lock of the Shared state it owns a reference to: GDBus may run
 * a filter after g_dbus_connection_remove_filter returned); the drain source
 * and everything touching the writer run in the thread that started the
 * monitor. */
#include <string.h>

#include "sysprof-dbus-monitor.h"

#define DRAIN_MS           50
#define BECOME_MONITOR_MS  10000
#define FRAME_HEADER_BYTES sizeof (SysprofCaptureDBusMessage)
/* At stop, messages still on their way (the bus passed them on, GDBus has
 * not read them yet) are waited for until none came for QUIET_MS, at most
 * STOP_WAIT_MS: the last reply of a command that just exited is kept. */
#define QUIET_MS     100
#define STOP_WAIT_MS 1000

typedef struct
{
  gint64 time;
  guint  flags;
  gsize  len;
  guint8 data[];
} Pending;

typedef struct
{
  gint     ref_count;
  GMutex   lock;
  char    *unique_name; /* ours: what the bus says to us is not recorded */
  gboolean stopped;
  GQueue   queue; /* Pending * */
  gsize    pending_bytes;
  guint64  max_bytes;
  guint64  used_bytes; /* frames accepted, against max_bytes */
  guint64  n_lost;
  guint64  n_too_large;
  gint64   last_arrival; /* g_get_monotonic_time */
} Shared;

struct _SysprofDbusMonitor
{
  GObject parent_instance;

  SysprofCaptureWriter *writer;
  guint                 bus_type;
  guint64               max_bytes;
  GDBusConnection      *connection;
  guint                 filter_id;
  GSource              *drain_source;
  Shared               *shared;
  gboolean              started;
  gboolean              stopped;
  guint64               n_messages;
  guint64               n_write_lost; /* accepted but refused by the writer */
};

G_DEFINE_FINAL_TYPE (SysprofDbusMonitor, sysprof_dbus_monitor, G_TYPE_OBJECT)

static Shared *
shared_ref (Shared *shared)
{
  g_atomic_int_inc (&shared->ref_count);
  return shared;
}

static void
shared_unref (gpointer data)
{
  Shared *shared = data;

  if (!g_atomic_int_dec_and_test (&shared->ref_count))
    return;
  g_queue_clear_full (&shared->queue, g_free);
  g_free (shared->unique_name);
  g_mutex_clear (&shared->lock);
  g_free (shared);
}

static guint64
frame_bytes (gsize message_len)
{
  /* What the writer takes: the header and the message, 8-byte aligned. */
  return (FRAME_HEADER_BYTES + message_len + 7) & ~(guint64) 7;
}

static GDBusMessage *
filter_cb (GDBusConnection *connection, GDBusMessage *message, gboolean incoming, gpointer data)
{
  Shared            *shared = data;
  const char        *destination;
  g_autofree guchar *blob = NULL;
  gsize              len = 0;
  gint64             now;
  guint              flags = 0;
  guint64            cost;
  Pending           *pending;

  (void) connection;
  if (!incoming)
    return message;
  /* The bus's answers and signals to us (BecomeMonitor's reply, NameLost)
   * are GDBus's business, not the recording's. */
  destination = g_dbus_message_get_destination (message);
  if (destination != NULL && shared->unique_name != NULL && strcmp (destination, shared->unique_name) == 0)
    return message;

  now = SYSPROF_CAPTURE_CURRENT_TIME;
  blob = g_dbus_message_to_blob (message, &len, G_DBUS_CAPABILITY_FLAGS_UNIX_FD_PASSING, NULL);
  /* Everything else is dropped here: a monitor must never answer a call it
   * overhears (the bus would disconnect it), which GDBus would do. */
  g_object_unref (message);

  g_mutex_lock (&shared->lock);
  if (shared->stopped)
    goto out;
  shared->last_arrival = g_get_monotonic_time ();
  if (blob == NULL)
    {
      shared->n_lost++;
      goto out;
    }
  if (len > SYSPROF_CAPTURE_DBUS_MESSAGE_MAX)
    {
      flags = SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE;
      len = 0;
    }
  cost = frame_bytes (len);
  if (shared->used_bytes + cost > shared->max_bytes || shared->pending_bytes + cost > SYSPROF_DBUS_MONITOR_MAX_PENDING)
    {
      shared->n_lost++;
      goto out;
    }
  if (flags != 0)
    shared->n_too_large++;
  pending = g_malloc (sizeof *pending + len);
  pending->time = now;
  pending->flags = flags;
  pending->len = len;
  if (len > 0)
    memcpy (pending->data, blob, len);
  g_queue_push_tail (&shared->queue, pending);
  shared->used_bytes += cost;
  shared->pending_bytes += cost;
out:
  g_mutex_unlock (&shared->lock);
  return NULL;
}

static void
drain (SysprofDbusMonitor *self)
{
  GQueue   queue = G_QUEUE_INIT;
  Pending *pending;

  g_mutex_lock (&self->shared->lock);
  queue = self->shared->queue;
  g_queue_init (&self->shared->queue);
  self->shared->pending_bytes = 0;
  g_mutex_unlock (&self->shared->lock);

  while ((pending = g_queue_pop_head (&queue)) != NULL)
    {
      if (sysprof_capture_writer_add_dbus_message (self->writer, pending->time, -1, -1, (guint16) self->bus_type,
                                                   (guint16) pending->flags, pending->data, pending->len))
        self->n_messages++;
      else
        self->n_write_lost++;
      g_free (pending);
    }
}

static gboolean
drain_cb (gpointer data)
{
  drain (data);
  return G_SOURCE_CONTINUE;
}

static void
sysprof_dbus_monitor_dispose (GObject *object)
{
  SysprofDbusMonitor *self = SYSPROF_DBUS_MONITOR (object);

  /* Without stop the capture gets no counts, but nothing keeps running. */
  if (self->drain_source != NULL)
    {
      g_source_destroy (self->drain_source);
      g_clear_pointer (&self->drain_source, g_source_unref);
    }
  if (self->connection != NULL)
    {
      if (self->filter_id != 0)
        g_dbus_connection_remove_filter (self->connection, self->filter_id);
      self->filter_id = 0;
      g_dbus_connection_close_sync (self->connection, NULL, NULL);
      g_clear_object (&self->connection);
    }
  G_OBJECT_CLASS (sysprof_dbus_monitor_parent_class)->dispose (object);
}

static void
sysprof_dbus_monitor_finalize (GObject *object)
{
  SysprofDbusMonitor *self = SYSPROF_DBUS_MONITOR (object);

  g_clear_pointer (&self->shared, shared_unref);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  G_OBJECT_CLASS (sysprof_dbus_monitor_parent_class)->finalize (object);
}

static void
sysprof_dbus_monitor_class_init (SysprofDbusMonitorClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sysprof_dbus_monitor_dispose;
  G_OBJECT_CLASS (klass)->finalize = sysprof_dbus_monitor_finalize;
}

static void
sysprof_dbus_monitor_init (SysprofDbusMonitor *self)
{
  self->shared = g_new0 (Shared, 1);
  self->shared->ref_count = 1;
  g_mutex_init (&self->shared->lock);
  g_queue_init (&self->shared->queue);
}

SysprofDbusMonitor *
sysprof_dbus_monitor_new (SysprofCaptureWriter *writer, guint bus_type)
{
  SysprofDbusMonitor *self;

  g_return_val_if_fail (writer != NULL, NULL);
  g_return_val_if_fail (bus_type <= SYSPROF_CAPTURE_DBUS_TYPE_OTHER, NULL);

  self = g_object_new (SYSPROF_TYPE_DBUS_MONITOR, NULL);
  self->writer = sysprof_capture_writer_ref (writer);
  self->bus_type = bus_type;
  return self;
}

void
sysprof_dbus_monitor_set_max_bytes (SysprofDbusMonitor *self, guint64 max_bytes)
{
  g_return_if_fail (SYSPROF_IS_DBUS_MONITOR (self));
  g_return_if_fail (!self->started);
  self->max_bytes = max_bytes;
}

static const char *
bus_name (SysprofDbusMonitor *self)
{
  switch (self->bus_type)
    {
    case SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM: return "system";
    case SYSPROF_CAPTURE_DBUS_TYPE_SESSION: return "session";
    case SYSPROF_CAPTURE_DBUS_TYPE_A11Y: return "a11y";
    default: return "other";
    }
}

gboolean
sysprof_dbus_monitor_start (SysprofDbusMonitor *self, const char *address, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autofree char *found = NULL;
  g_autoptr (GVariant) reply = NULL;

  g_return_val_if_fail (SYSPROF_IS_DBUS_MONITOR (self), FALSE);
  g_return_val_if_fail (!self->started, FALSE);

  self->started = TRUE;
  self->shared->max_bytes = self->max_bytes ? self->max_bytes : SYSPROF_DBUS_MONITOR_DEFAULT_MAX_BYTES;
  if (address == NULL)
    {
      GBusType type = self->bus_type == SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION;

      if (!(found = g_dbus_address_get_for_bus_sync (type, NULL, &local_error)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no %s bus to monitor: %s", bus_name (self),
                       local_error->message);
          return FALSE;
        }
      address = found;
    }
  self->connection = g_dbus_connection_new_for_address_sync (
      address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
      NULL, &local_error);
  if (self->connection == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Cannot connect to the %s bus to monitor it: %s",
                   bus_name (self), local_error->message);
      return FALSE;
    }
  g_dbus_connection_set_exit_on_close (self->connection, FALSE);
  self->shared->unique_name = g_strdup (g_dbus_connection_get_unique_name (self->connection));
  self->filter_id = g_dbus_connection_add_filter (self->connection, filter_cb, shared_ref (self->shared), shared_unref);
  /* No match rules: every message on the bus. */
  reply = g_dbus_connection_call_sync (self->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
                                       g_variant_new ("(^asu)", (char *[]){ NULL }, 0u), G_VARIANT_TYPE ("()"),
                                       G_DBUS_CALL_FLAGS_NONE, BECOME_MONITOR_MS, NULL, &local_error);
  if (reply == NULL)
    {
      gboolean denied = g_error_matches (local_error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);

      g_dbus_error_strip_remote_error (local_error);
      g_set_error (error, G_IO_ERROR, denied ? G_IO_ERROR_PERMISSION_DENIED : G_IO_ERROR_FAILED,
                   "The %s bus does not let us monitor it: %s", bus_name (self), local_error->message);
      g_dbus_connection_remove_filter (self->connection, self->filter_id);
      self->filter_id = 0;
      g_dbus_connection_close_sync (self->connection, NULL, NULL);
      g_clear_object (&self->connection);
      return FALSE;
    }
  self->drain_source = g_timeout_source_new (DRAIN_MS);
  g_source_set_callback (self->drain_source, drain_cb, self, NULL);
  g_source_set_static_name (self->drain_source, "[sysprof] D-Bus monitor");
  g_source_attach (self->drain_source, g_main_context_get_thread_default ());
  return TRUE;
}

void
sysprof_dbus_monitor_stop (SysprofDbusMonitor *self)
{
  g_autofree char *text = NULL;
  g_autofree char *id = NULL;

  g_return_if_fail (SYSPROF_IS_DBUS_MONITOR (self));

  if (self->connection == NULL || self->stopped)
    return;
  self->stopped = TRUE;
  {
    gint64 deadline = g_get_monotonic_time () + STOP_WAIT_MS * 1000;

    for (;;)
      {
        gint64 now = g_get_monotonic_time ();
        gint64 last;

        drain (self);
        g_mutex_lock (&self->shared->lock);
        last = self->shared->last_arrival;
        g_mutex_unlock (&self->shared->lock);
        if (now - last >= QUIET_MS * 1000 || now >= deadline)
          break;
        g_usleep (10000);
      }
  }
  g_dbus_connection_remove_filter (self->connection, self->filter_id);
  self->filter_id = 0;
  g_mutex_lock (&self->shared->lock);
  self->shared->stopped = TRUE;
  g_mutex_unlock (&self->shared->lock);
  g_dbus_connection_close_sync (self->connection, NULL, NULL);
  g_clear_object (&self->connection);
  if (self->drain_source != NULL)
    {
      g_source_destroy (self->drain_source);
      g_clear_pointer (&self->drain_source, g_source_unref);
    }
  drain (self);

  text = g_strdup_printf ("messages=%" G_GUINT64_FORMAT " too-large=%" G_GUINT64_FORMAT " lost=%" G_GUINT64_FORMAT
                          " max-bytes=%" G_GUINT64_FORMAT,
                          self->n_messages, sysprof_dbus_monitor_get_n_too_large (self),
                          sysprof_dbus_monitor_get_n_lost (self), self->shared->max_bytes);
  id = g_strconcat (SYSPROF_DBUS_METADATA_PREFIX, bus_name (self), NULL);
  sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1, id, text, -1);
}

guint64
sysprof_dbus_monitor_get_n_messages (SysprofDbusMonitor *self)
{
  g_return_val_if_fail (SYSPROF_IS_DBUS_MONITOR (self), 0);
  return self->n_messages;
}

guint64
sysprof_dbus_monitor_get_n_too_large (SysprofDbusMonitor *self)
{
  guint64 n;

  g_return_val_if_fail (SYSPROF_IS_DBUS_MONITOR (self), 0);
  g_mutex_lock (&self->shared->lock);
  n = self->shared->n_too_large;
  g_mutex_unlock (&self->shared->lock);
  return n;
}

guint64
sysprof_dbus_monitor_get_n_lost (SysprofDbusMonitor *self)
{
  guint64 n;

  g_return_val_if_fail (SYSPROF_IS_DBUS_MONITOR (self), 0);
  g_mutex_lock (&self->shared->lock);
  n = self->shared->n_lost;
  g_mutex_unlock (&self->shared->lock);
  return n + self->n_write_lost;
}

char *
sysprof_dbus_monitor_dup_loss_message (SysprofDbusMonitor *self)
{
  guint64          lost = sysprof_dbus_monitor_get_n_lost (self);
  guint64          too_large = sysprof_dbus_monitor_get_n_too_large (self);
  g_autofree char *budget = NULL;

  g_return_val_if_fail (SYSPROF_IS_DBUS_MONITOR (self), NULL);

  if (lost == 0 && too_large == 0)
    return NULL;
  budget = g_format_size_full (self->shared->max_bytes, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("the %s bus: %" G_GUINT64_FORMAT " of its messages recorded, %" G_GUINT64_FORMAT
                          " lost (beyond the budget of %s per recording, or written too slowly), %" G_GUINT64_FORMAT
                          " recorded without their body (larger than %u bytes)",
                          bus_name (self), self->n_messages, lost, budget, too_large,
                          (guint) SYSPROF_CAPTURE_DBUS_MESSAGE_MAX);
}
