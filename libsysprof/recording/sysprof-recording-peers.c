// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofRecording, continued: profiler peers.  A program on the session
 * bus that exports org.gnome.Sysprof3.Profiler (gnome-shell does, at
 * /org/gnome/Sysprof3/Profiler) writes a capture of its own into a
 * descriptor it is given: Start ({options}, fd) when the recording starts,
 * Stop when it stops.  The memfds are merged with the command's own
 * captures (sysprof-recording-traces.c) once every peer answered Stop.
 *
 * Peers are not trusted: each call has a timeout, a peer that does not
 * answer or refuses costs a warning and nothing else, and what it wrote is
 * merged with the same checks as any capture. */
#define _GNU_SOURCE 1

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sysprof-recording-private.h"

#define PROFILER_INTERFACE "org.gnome.Sysprof3.Profiler"
/* How long a peer may take to answer Start or Stop. */
#define PEER_CALL_MS 5000

struct _SysprofRecordingPeer
{
  char    *name;
  char    *path;
  int      fd;
  gboolean started;  /* Start answered, Stop not called yet */
  gboolean answered; /* Start answered: its fd is merged */
};

void
_sysprof_recording_peer_free (SysprofRecordingPeer *peer)
{
  g_free (peer->name);
  g_free (peer->path);
  if (peer->fd >= 0)
    close (peer->fd);
  g_free (peer);
}

void
sysprof_recording_add_profiler_peer (SysprofRecording *self, const char *bus_name, const char *object_path)
{
  SysprofRecordingPeer *peer;

  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (bus_name != NULL && g_dbus_is_name (bus_name));
  g_return_if_fail (object_path == NULL || g_variant_is_object_path (object_path));

  peer = g_new0 (SysprofRecordingPeer, 1);
  peer->name = g_strdup (bus_name);
  peer->path = g_strdup (object_path ? object_path : "/org/gnome/Sysprof3/Profiler");
  peer->fd = -1;
  g_ptr_array_add (self->peers, peer);
}

typedef struct
{
  SysprofRecording     *self;
  SysprofRecordingPeer *peer;
} Call;

static void
call_done (Call *call)
{
  SysprofRecording *self = call->self;

  self->n_peer_calls--;
  g_free (call);
  _sysprof_recording_capture_done (self);
  g_object_unref (self);
}

static void stop_peer (SysprofRecording *self, SysprofRecordingPeer *peer);

static void
start_reply_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply =
      g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source), NULL, result, &error);

  if (reply == NULL)
    _sysprof_recording_add_warning (call->self, "profiler peer %s: Start failed, its data is not recorded: %s",
                                    call->peer->name, error->message);
  else
    {
      call->peer->started = TRUE;
      call->peer->answered = TRUE;
      /* The recording ended while the peer started. */
      if (call->self->phase != SYSPROF_RECORDING_PHASE_RECORDING)
        stop_peer (call->self, call->peer);
    }
  call_done (call);
}

static void
stop_reply_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  if (reply == NULL)
    _sysprof_recording_add_warning (call->self,
                                    "profiler peer %s: Stop failed (%s); what it wrote until then is merged",
                                    call->peer->name, error->message);
  call_done (call);
}

static Call *
new_call (SysprofRecording *self, SysprofRecordingPeer *peer)
{
  Call *call = g_new0 (Call, 1);

  call->self = g_object_ref (self);
  call->peer = peer;
  self->n_peer_calls++;
  return call;
}

static void
stop_peer (SysprofRecording *self, SysprofRecordingPeer *peer)
{
  if (!peer->started || self->peer_bus == NULL)
    return;
  peer->started = FALSE;
  g_dbus_connection_call (self->peer_bus, peer->name, peer->path, PROFILER_INTERFACE, "Stop", NULL, NULL,
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, PEER_CALL_MS, NULL, stop_reply_cb, new_call (self, peer));
}

void
_sysprof_recording_peers_start (SysprofRecording *self)
{
  g_autoptr (GError) error = NULL;

  if (self->peers->len == 0)
    return;
  /* Synchronous, once: the session bus is a local socket. */
  if (!(self->peer_bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error)))
    {
      _sysprof_recording_add_warning (self, "no session bus for the profiler peers, their data is not recorded: %s",
                                      error->message);
      return;
    }
  for (guint i = 0; i < self->peers->len; i++)
    {
      SysprofRecordingPeer *peer = g_ptr_array_index (self->peers, i);
      g_autoptr (GUnixFDList) fds = g_unix_fd_list_new ();
      g_autofree char *label = g_strdup_printf ("sysprof-peer-%s", peer->name);

      if ((peer->fd = memfd_create (label, MFD_CLOEXEC)) < 0 || g_unix_fd_list_append (fds, peer->fd, &error) < 0)
        {
          _sysprof_recording_add_warning (self, "profiler peer %s: no memfd for it: %s", peer->name,
                                          error ? error->message : g_strerror (errno));
          g_clear_error (&error);
          continue;
        }
      g_dbus_connection_call_with_unix_fd_list (
          self->peer_bus, peer->name, peer->path, PROFILER_INTERFACE, "Start", g_variant_new ("(a{sv}h)", NULL, 0),
          NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, PEER_CALL_MS, fds, NULL, start_reply_cb, new_call (self, peer));
    }
}

void
_sysprof_recording_peers_stop (SysprofRecording *self)
{
  for (guint i = 0; i < self->peers->len; i++)
    stop_peer (self, g_ptr_array_index (self->peers, i));
}

gboolean
_sysprof_recording_peers_busy (SysprofRecording *self)
{
  return self->n_peer_calls > 0;
}

/* The memfd of peer @index when it answered Start (its label in @name),
 * else -1. */
int
_sysprof_recording_peer_fd (SysprofRecording *self, guint index, const char **name)
{
  SysprofRecordingPeer *peer = g_ptr_array_index (self->peers, index);

  *name = peer->name;
  return peer->answered ? peer->fd : -1;
}
