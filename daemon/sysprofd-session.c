// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>
#include <sysprof.h>

#include "ipc-session-generated.h"
#include "sysprofd-auth.h"
#include "sysprofd-session.h"

#define DEFAULT_FREQUENCY 997
#define MAX_FREQUENCY     10000
#define DEFAULT_MAX_BYTES (G_GUINT64_CONSTANT (4) << 30)
#define MAX_DURATION      86400
/* A private capture lives on the daemon's disk: bound what one session may take. */
#define MAX_BYTES        (G_GUINT64_CONSTANT (16) << 30)
#define READ_CAPTURE_MAX (1024 * 1024)
/* A stopped detached session nobody closed is removed after this long. */
#define DETACHED_LINGER 600
/* Open at once: one per thread of the traced programs. */
#define RING_MAX_PER_SESSION 256
#define PROGRESS_MS          250

struct _SysprofdSession
{
  GObject parent_instance;

  IpcSession      *skeleton;
  GDBusConnection *connection;
  char            *object_path;
  guint32          owner_uid;
  char            *owner_name;
  guint            owner_watch;

  /* Options. */
  gboolean cpu_sampling;
  guint    frequency;
  GArray  *pids;
  char   **counters;
  guint64  max_bytes;
  guint    max_duration;
  gboolean detached;

  int                     capture_fd; /* caller's or private; for ReadCapture */
  SysprofCaptureWriter   *writer;
  SysprofSessionRecorder *recorder; /* kept after stop for its counts */
  gint64                  start_time;
  gint64                  stop_time;
  guint                   progress_source;
  guint                   progress_ticks;
  guint                   duration_source;
  guint                   linger_source;
  gboolean                closed;

  /* Rings handed to profiled programs (untrusted); drained once recording. */
  SysprofRingDrainer *rings;
  guint64             perf_lost; /* last count of the perf recorder */
};

/* The generated skeleton answers property reads without asking anyone; this
 * subclass lets only the session owner's uid read them. */
typedef struct
{
  IpcSessionSkeleton parent_instance;
  guint32            owner_uid;
  /* The last bus name found to belong to owner_uid: unique names are never
   * reused on a bus, so a client polling the properties is asked about once,
   * not on every read of every property. */
  char *owner_sender;
} SysprofdSessionSkeleton;

typedef struct
{
  IpcSessionSkeletonClass parent_class;
} SysprofdSessionSkeletonClass;

static GType sysprofd_session_skeleton_get_type (void);
G_DEFINE_TYPE (SysprofdSessionSkeleton, sysprofd_session_skeleton, IPC_TYPE_SESSION_SKELETON)

static GDBusInterfaceVTable          guarded_vtable;
static GDBusInterfaceGetPropertyFunc parent_get_property;

static GVariant *
guarded_get_property (GDBusConnection *connection,
                      const char      *sender,
                      const char      *object_path,
                      const char      *interface_name,
                      const char      *property_name,
                      GError         **error,
                      gpointer         user_data)
{
  SysprofdSessionSkeleton *skeleton = user_data;
  g_autoptr (GVariant) reply = NULL;
  guint32 uid;

  if (sender != NULL && g_strcmp0 (sender, skeleton->owner_sender) == 0)
    return parent_get_property (connection, sender, object_path, interface_name, property_name, error, user_data);
  reply = g_dbus_connection_call_sync (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionUnixUser", g_variant_new ("(s)", sender),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (reply == NULL || (g_variant_get (reply, "(u)", &uid), uid != skeleton->owner_uid))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Not authorized to make request: session %s belongs to another user", object_path);
      return NULL;
    }
  g_free (skeleton->owner_sender);
  skeleton->owner_sender = g_strdup (sender);
  return parent_get_property (connection, sender, object_path, interface_name, property_name, error, user_data);
}

static GDBusInterfaceVTable *
sysprofd_session_skeleton_get_vtable (GDBusInterfaceSkeleton *skeleton)
{
  GDBusInterfaceVTable *parent =
      G_DBUS_INTERFACE_SKELETON_CLASS (sysprofd_session_skeleton_parent_class)->get_vtable (skeleton);

  if (parent_get_property == NULL)
    {
      guarded_vtable = *parent;
      parent_get_property = parent->get_property;
      guarded_vtable.get_property = guarded_get_property;
    }
  return &guarded_vtable;
}

static void
sysprofd_session_skeleton_finalize (GObject *object)
{
  g_free (((SysprofdSessionSkeleton *) object)->owner_sender);
  G_OBJECT_CLASS (sysprofd_session_skeleton_parent_class)->finalize (object);
}

static void
sysprofd_session_skeleton_class_init (SysprofdSessionSkeletonClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprofd_session_skeleton_finalize;
  G_DBUS_INTERFACE_SKELETON_CLASS (klass)->get_vtable = sysprofd_session_skeleton_get_vtable;
}

static void
sysprofd_session_skeleton_init (SysprofdSessionSkeleton *self)
{
  (void) self;
}

enum
{
  CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SysprofdSession, sysprofd_session, G_TYPE_OBJECT)

static void
sysprofd_session_finalize (GObject *object)
{
  SysprofdSession *self = SYSPROFD_SESSION (object);

  g_clear_object (&self->skeleton);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->object_path, g_free);
  g_clear_pointer (&self->owner_name, g_free);
  g_clear_pointer (&self->pids, g_array_unref);
  g_clear_pointer (&self->counters, g_strfreev);
  g_clear_object (&self->recorder);
  g_clear_object (&self->rings);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  if (self->capture_fd >= 0)
    close (self->capture_fd);

  G_OBJECT_CLASS (sysprofd_session_parent_class)->finalize (object);
}

static void
sysprofd_session_class_init (SysprofdSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprofd_session_finalize;
  signals[CLOSED] =
      g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sysprofd_session_init (SysprofdSession *self)
{
  self->capture_fd = -1;
  self->frequency = DEFAULT_FREQUENCY;
  self->cpu_sampling = TRUE;
  self->max_bytes = DEFAULT_MAX_BYTES;
  self->pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->rings = sysprof_ring_drainer_new (RING_MAX_PER_SESSION);
}

guint32
sysprofd_session_get_owner (SysprofdSession *self)
{
  g_return_val_if_fail (SYSPROFD_IS_SESSION (self), 0);
  return self->owner_uid;
}

const char *
sysprofd_session_get_path (SysprofdSession *self)
{
  g_return_val_if_fail (SYSPROFD_IS_SESSION (self), NULL);
  return self->object_path;
}

static void
update_progress (SysprofdSession *self)
{
  SysprofCaptureStat stat;
  guint64            frames = 0;
  gint64             end = self->stop_time ? self->stop_time : g_get_monotonic_time ();

  if (self->writer == NULL)
    return;
  sysprof_capture_writer_stat (self->writer, &stat);
  for (guint i = 0; i < SYSPROF_CAPTURE_FRAME_LAST; i++)
    frames += stat.frame_count[i];
  ipc_session_set_bytes_written (self->skeleton, sysprof_capture_writer_get_size (self->writer));
  ipc_session_set_frames_written (self->skeleton, frames);
  ipc_session_set_samples (self->skeleton, stat.frame_count[SYSPROF_CAPTURE_FRAME_SAMPLE]);
  ipc_session_set_allocation_records (self->skeleton, stat.frame_count[SYSPROF_CAPTURE_FRAME_ALLOCATION]);
  if (self->recorder != NULL)
    self->perf_lost = sysprof_session_recorder_get_n_lost (self->recorder);
  ipc_session_set_lost_frames (self->skeleton, self->perf_lost + sysprof_ring_drainer_get_n_lost (self->rings));
  if (self->start_time)
    ipc_session_set_duration (self->skeleton, (guint64) (end - self->start_time) * 1000);
}

static gboolean
is_state (SysprofdSession *self, const char *state)
{
  return g_strcmp0 (ipc_session_get_state (self->skeleton), state) == 0;
}

/* The last frames of every ring, then the rings themselves. */
static void
close_rings (SysprofdSession *self)
{
  sysprof_ring_drainer_close (self->rings);
}

static void
finish (SysprofdSession *self, gboolean success, const char *message)
{
  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_clear_handle_id (&self->duration_source, g_source_remove);

  close_rings (self);
  if (self->recorder != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (!sysprof_session_recorder_stop (self->recorder, &error))
        {
          success = FALSE;
          message = "the capture could not be written completely";
          g_warning ("Session %s: %s", self->object_path, error->message);
        }
    }
  self->stop_time = g_get_monotonic_time ();
  update_progress (self);
  ipc_session_set_state (self->skeleton, success ? "stopped" : "failed");
  /* Unicast to the creator: a broadcast would tell every user about it. */
  if (!self->detached)
    g_dbus_connection_emit_signal (self->connection, self->owner_name, self->object_path, "org.gnome.Sysprof3.Session",
                                   "Finished", g_variant_new ("(bs)", success, message), NULL);
  g_message ("Session %s of uid %u %s: %s", self->object_path, self->owner_uid, success ? "stopped" : "failed",
             message);
}

static gboolean
progress_cb (gpointer data)
{
  SysprofdSession *self = data;

  /* Properties follow at the rate clients poll them (sysprof-cli: 4 Hz);
   * once a second the capture on disk catches up, so readers can follow it. */
  if (self->writer != NULL && ++self->progress_ticks % (1000 / PROGRESS_MS) == 0)
    sysprof_capture_writer_flush (self->writer);
  update_progress (self);
  if (self->writer && sysprof_capture_writer_get_size (self->writer) >= self->max_bytes)
    {
      self->progress_source = 0;
      finish (self, FALSE, "stopped at the max-bytes limit");
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
duration_cb (gpointer data)
{
  SysprofdSession *self = data;

  self->duration_source = 0;
  finish (self, TRUE, "stopped after max-duration");
  return G_SOURCE_REMOVE;
}

static gboolean
linger_cb (gpointer data)
{
  SysprofdSession *self = data;

  self->linger_source = 0;
  g_message ("Removing detached session %s, stopped %d s ago and never closed", self->object_path, DETACHED_LINGER);
  sysprofd_session_close (self);
  return G_SOURCE_REMOVE;
}

/* A private unlinked file for the capture, on disk rather than in memory. */
static int
open_private_capture (GError **error)
{
  static const char *const dirs[] = { "/var/tmp", "/tmp" };

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      int fd = open (dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
      if (fd >= 0)
        return fd;
    }
  {
    int fd = memfd_create ("sysprofd-capture", MFD_CLOEXEC);
    if (fd >= 0)
      return fd;
  }
  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot create a file for the capture: %s",
               g_strerror (errno));
  return -1;
}

void
sysprofd_session_close (SysprofdSession *self)
{
  g_return_if_fail (SYSPROFD_IS_SESSION (self));

  if (self->closed)
    return;
  self->closed = TRUE;

  g_object_ref (self);
  if (is_state (self, "recording"))
    finish (self, TRUE, "stopped by Close");
  g_clear_handle_id (&self->linger_source, g_source_remove);
  sysprof_ring_drainer_close (self->rings);
  if (self->owner_watch)
    {
      g_bus_unwatch_name (self->owner_watch);
      self->owner_watch = 0;
    }
  /* The recorder holds the writer, and with it the capture's fd. */
  g_clear_object (&self->recorder);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  if (self->capture_fd >= 0)
    {
      close (self->capture_fd);
      self->capture_fd = -1;
    }
  g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->skeleton));
  g_signal_emit (self, signals[CLOSED], 0);
  g_object_unref (self);
}

/* Method calls are authorized in a worker thread, then run here, in the main
 * context, where the recording's sources live. */
typedef struct
{
  SysprofdSession       *self;
  GDBusMethodInvocation *invocation;
  GUnixFDList           *fds;
  GVariant              *args;
} Call;

static void
call_free (Call *call)
{
  g_clear_object (&call->self);
  g_clear_object (&call->invocation);
  g_clear_object (&call->fds);
  g_clear_pointer (&call->args, g_variant_unref);
  g_free (call);
}

static void
do_set_capture_fd (Call *call)
{
  SysprofdSession *self = call->self;
  g_autoptr (GError) error = NULL;
  gint32      handle;
  int         fd;
  struct stat st;

  if (!is_state (self, "created") || self->writer != NULL)
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "SetCaptureFd is only possible before Start");
      return;
    }
  g_variant_get (call->args, "(h)", &handle);
  if (call->fds == NULL || handle < 0 || handle >= g_unix_fd_list_get_length (call->fds) ||
      (fd = g_unix_fd_list_get (call->fds, handle, &error)) < 0)
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "No file descriptor was passed with SetCaptureFd");
      return;
    }
  /* A pipe or socket the caller never drains would block the daemon: only
   * regular files are accepted. */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (fcntl (fd, F_GETFL) & O_ACCMODE) == O_RDONLY)
    {
      close (fd);
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "The capture fd must be a regular file opened for writing");
      return;
    }
  if (self->capture_fd >= 0)
    close (self->capture_fd);
  self->capture_fd = fd;
  ipc_session_complete_set_capture_fd (self->skeleton, call->invocation, NULL);
}

static void
recorder_warning (SysprofSessionRecorder *recorder, const char *message, gpointer data)
{
  SysprofdSession *self = data;

  (void) recorder;
  g_warning ("Session %s: %s", self->object_path, message);
}

static void
do_start (Call *call)
{
  SysprofdSession *self = call->self;
  g_autoptr (GError) error = NULL;
  int writer_fd;

  if (!is_state (self, "created"))
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "The session was already started");
      return;
    }
  if (self->capture_fd < 0 && (self->capture_fd = open_private_capture (&error)) < 0)
    {
      g_dbus_method_invocation_return_gerror (call->invocation, error);
      return;
    }
  if ((writer_fd = fcntl (self->capture_fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      !(self->writer = sysprof_capture_writer_new_from_fd (writer_fd, 0)))
    {
      int saved = errno;
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot start the capture: %s", g_strerror (saved));
      ipc_session_set_state (self->skeleton, "failed");
      return;
    }

  {
    SysprofSessionRecorderOptions options = SYSPROF_SESSION_RECORDER_OPTIONS_INIT;

    options.cpu_sampling = self->cpu_sampling;
    options.frequency_hz = self->frequency;
    options.pids = (const int *) (gpointer) self->pids->data;
    options.n_pids = self->pids->len;
    options.counters = (const char *const *) self->counters;
    self->recorder = sysprof_session_recorder_new (self->writer);
    g_signal_connect (self->recorder, "warning", G_CALLBACK (recorder_warning), self);
    if (!sysprof_session_recorder_start (self->recorder, &options, &error))
      {
        g_clear_object (&self->recorder);
        ipc_session_set_state (self->skeleton, "failed");
        g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s",
                                               error->message);
        return;
      }
  }

  /* Frames waiting in rings follow the /proc snapshot of the start. */
  sysprof_ring_drainer_set_writer (self->rings, self->writer);
  self->start_time = g_get_monotonic_time ();
  ipc_session_set_state (self->skeleton, "recording");
  self->progress_source = g_timeout_add (PROGRESS_MS, progress_cb, self);
  if (self->max_duration > 0)
    self->duration_source = g_timeout_add_seconds (self->max_duration, duration_cb, self);
  g_message ("Session %s of uid %u recording (%s at %u Hz, %s)", self->object_path, self->owner_uid,
             self->cpu_sampling ? sysprof_session_recorder_get_event_name (self->recorder) : "no sampling",
             self->frequency, self->pids->len ? "selected processes" : "whole system");
  ipc_session_complete_start (self->skeleton, call->invocation);
}

static void
do_stop (Call *call)
{
  SysprofdSession *self = call->self;

  if (is_state (self, "recording"))
    finish (self, TRUE, "stopped by Stop");
  else if (is_state (self, "created"))
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "The session was never started");
      return;
    }
  if (self->detached && self->linger_source == 0)
    self->linger_source = g_timeout_add_seconds (DETACHED_LINGER, linger_cb, self);
  ipc_session_complete_stop (self->skeleton, call->invocation);
}

static void
do_close (Call *call)
{
  ipc_session_complete_close (call->self->skeleton, call->invocation);
  sysprofd_session_close (call->self);
}

static void
do_read_capture (Call *call)
{
  SysprofdSession   *self = call->self;
  guint64            offset;
  guint32            max_len;
  g_autofree guint8 *buf = NULL;
  ssize_t            n;

  g_variant_get (call->args, "(tu)", &offset, &max_len);
  if (self->capture_fd < 0 || self->writer == NULL)
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Nothing was recorded yet: call Start first");
      return;
    }
  /* Make everything recorded so far visible. */
  if (is_state (self, "recording"))
    sysprof_capture_writer_flush (self->writer);
  max_len = MIN (max_len, READ_CAPTURE_MAX);
  buf = g_malloc (MAX (max_len, 1));
  do
    n = pread (self->capture_fd, buf, max_len, (off_t) offset);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      int saved = errno;
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot read the capture: %s%s", g_strerror (saved),
                                             saved == EBADF ? " (the capture fd was not opened for reading)" : "");
      return;
    }
  ipc_session_complete_read_capture (self->skeleton, call->invocation,
                                     g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, buf, (gsize) n, 1));
}

static void
do_create_ring_buffer (Call *call)
{
  SysprofdSession *self = call->self;
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GError) error = NULL;
  guint32 n_pages;
  int     fd;

  g_variant_get (call->args, "(u)", &n_pages);
  if (!is_state (self, "created") && !is_state (self, "recording"))
    {
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "The session is no longer recording");
      return;
    }
  if ((fd = sysprof_ring_drainer_create_ring (self->rings, n_pages, &error)) < 0)
    {
      GDBusError code = G_DBUS_ERROR_FAILED;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT))
        code = G_DBUS_ERROR_INVALID_ARGS;
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES) ||
               g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
        code = G_DBUS_ERROR_LIMITS_EXCEEDED;
      g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, code, "Cannot create the ring buffer: %s",
                                             error->message);
      return;
    }
  fds = g_unix_fd_list_new_from_array (&fd, 1);
  ipc_session_complete_create_ring_buffer (self->skeleton, call->invocation, fds, g_variant_new_handle (0));
}

typedef void (*CallFunc) (Call *call);

static gboolean
run_call (gpointer data)
{
  Call    *call = data;
  CallFunc func = g_object_get_data (G_OBJECT (call->invocation), "sysprofd-call");

  if (call->self->closed)
    g_dbus_method_invocation_return_error (call->invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT,
                                           "The session was closed");
  else
    func (call);
  return G_SOURCE_REMOVE;
}

static void
dispatch (SysprofdSession *self, GDBusMethodInvocation *invocation, GUnixFDList *fds, GVariant *args, CallFunc func)
{
  Call *call = g_new0 (Call, 1);

  call->self = g_object_ref (self);
  call->invocation = g_object_ref (invocation);
  call->fds = fds ? g_object_ref (fds) : NULL;
  call->args = args ? g_variant_ref_sink (args) : NULL;
  g_object_set_data (G_OBJECT (invocation), "sysprofd-call", func);
  g_main_context_invoke_full (NULL, G_PRIORITY_DEFAULT, run_call, call, (GDestroyNotify) call_free);
}

static gboolean
handle_set_capture_fd (
    IpcSession *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fds, GVariant *fd, SysprofdSession *self)
{
  (void) skeleton;
  dispatch (self, invocation, fds, g_variant_new ("(@h)", fd), do_set_capture_fd);
  return TRUE;
}

static gboolean
handle_start (IpcSession *skeleton, GDBusMethodInvocation *invocation, SysprofdSession *self)
{
  (void) skeleton;
  dispatch (self, invocation, NULL, NULL, do_start);
  return TRUE;
}

static gboolean
handle_stop (IpcSession *skeleton, GDBusMethodInvocation *invocation, SysprofdSession *self)
{
  (void) skeleton;
  dispatch (self, invocation, NULL, NULL, do_stop);
  return TRUE;
}

static gboolean
handle_close (IpcSession *skeleton, GDBusMethodInvocation *invocation, SysprofdSession *self)
{
  (void) skeleton;
  dispatch (self, invocation, NULL, NULL, do_close);
  return TRUE;
}

static gboolean
handle_read_capture (
    IpcSession *skeleton, GDBusMethodInvocation *invocation, guint64 offset, guint max_len, SysprofdSession *self)
{
  (void) skeleton;
  dispatch (self, invocation, NULL, g_variant_new ("(tu)", offset, max_len), do_read_capture);
  return TRUE;
}

static gboolean
handle_create_ring_buffer (
    IpcSession *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fds, guint n_pages, SysprofdSession *self)
{
  (void) skeleton;
  (void) fds;
  dispatch (self, invocation, NULL, g_variant_new ("(u)", n_pages), do_create_ring_buffer);
  return TRUE;
}

/* polkit first, then ownership: a session answers only its creator's uid. */
static gboolean
authorize_owner (GDBusInterfaceSkeleton *skeleton, GDBusMethodInvocation *invocation, SysprofdSession *self)
{
  g_autoptr (GError) error = NULL;
  guint32 uid;

  if (!sysprofd_authorize_method (skeleton, invocation, NULL))
    return FALSE;
  if (!sysprofd_get_caller_uid (invocation, &uid, &error))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                             "Not authorized to make request: cannot identify the caller: %s",
                                             error->message);
      return FALSE;
    }
  if (uid != self->owner_uid)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                             "Not authorized to make request: session %s belongs to another user",
                                             self->object_path);
      return FALSE;
    }
  return TRUE;
}

static void
owner_vanished (GDBusConnection *connection, const char *name, gpointer data)
{
  SysprofdSession *self = data;

  (void) connection;
  g_message ("%s left the bus: closing its session %s", name, self->object_path);
  sysprofd_session_close (self);
}

static gboolean
parse_options (SysprofdSession *self, GVariant *options, GError **error)
{
  GVariantIter iter;
  const char  *key;
  GVariant    *value;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
#define EXPECT(type_str)                                                                                            \
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE (type_str)))                                                     \
    {                                                                                                               \
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Option \"%s\" must be of type %s, not %s", key, \
                   type_str, g_variant_get_type_string (value));                                                    \
      g_variant_unref (value);                                                                                      \
      return FALSE;                                                                                                 \
    }

      if (g_str_equal (key, "cpu-sampling"))
        {
          EXPECT ("b");
          self->cpu_sampling = g_variant_get_boolean (value);
        }
      else if (g_str_equal (key, "frequency"))
        {
          EXPECT ("u");
          self->frequency = g_variant_get_uint32 (value);
          if (self->frequency < 1 || self->frequency > MAX_FREQUENCY)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                           "frequency %u is outside the limit of 1..%u Hz", self->frequency, MAX_FREQUENCY);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "pids"))
        {
          gsize         n;
          const gint32 *pids;

          EXPECT ("ai");
          pids = g_variant_get_fixed_array (value, &n, sizeof (gint32));
          g_array_append_vals (self->pids, pids, (guint) n);
        }
      else if (g_str_equal (key, "counters"))
        {
          EXPECT ("as");
          g_strfreev (self->counters);
          self->counters = g_variant_dup_strv (value, NULL);
          for (guint i = 0; self->counters[i]; i++)
            if (!g_strv_contains ((const char *const[]){ "cpu", "memory", "disk", "network", NULL }, self->counters[i]))
              {
                g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                             "Unknown counter \"%s\" (known: cpu, memory, disk, network)", self->counters[i]);
                g_variant_unref (value);
                return FALSE;
              }
        }
      else if (g_str_equal (key, "max-bytes"))
        {
          EXPECT ("t");
          self->max_bytes = g_variant_get_uint64 (value);
          if (self->max_bytes > MAX_BYTES)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                           "max-bytes %" G_GUINT64_FORMAT " is above the limit of 16 GiB", self->max_bytes);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "max-duration"))
        {
          EXPECT ("u");
          self->max_duration = g_variant_get_uint32 (value);
          if (self->max_duration > MAX_DURATION)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                           "max-duration %u is above the limit of %u seconds", self->max_duration, MAX_DURATION);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "detached"))
        {
          EXPECT ("b");
          self->detached = g_variant_get_boolean (value);
        }
      else
        {
          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Unknown option \"%s\"", key);
          g_variant_unref (value);
          return FALSE;
        }
#undef EXPECT
    }
  return TRUE;
}

SysprofdSession *
sysprofd_session_new (GDBusConnection *connection,
                      const char      *object_path,
                      guint32          owner_uid,
                      const char      *owner_name,
                      GVariant        *options,
                      GError         **error)
{
  g_autoptr (SysprofdSession) self = g_object_new (SYSPROFD_TYPE_SESSION, NULL);

  self->connection = g_object_ref (connection);
  self->object_path = g_strdup (object_path);
  self->owner_uid = owner_uid;
  self->owner_name = g_strdup (owner_name);
  if (!parse_options (self, options, error))
    return NULL;

  self->skeleton = g_object_new (sysprofd_session_skeleton_get_type (), NULL);
  ((SysprofdSessionSkeleton *) self->skeleton)->owner_uid = owner_uid;
  ipc_session_set_state (self->skeleton, "created");
  ipc_session_set_owner (self->skeleton, owner_uid);
  g_dbus_interface_skeleton_set_flags (G_DBUS_INTERFACE_SKELETON (self->skeleton),
                                       G_DBUS_INTERFACE_SKELETON_FLAGS_HANDLE_METHOD_INVOCATIONS_IN_THREAD);
  g_signal_connect (self->skeleton, "g-authorize-method", G_CALLBACK (authorize_owner), self);
  g_signal_connect (self->skeleton, "handle-set-capture-fd", G_CALLBACK (handle_set_capture_fd), self);
  g_signal_connect (self->skeleton, "handle-start", G_CALLBACK (handle_start), self);
  g_signal_connect (self->skeleton, "handle-stop", G_CALLBACK (handle_stop), self);
  g_signal_connect (self->skeleton, "handle-close", G_CALLBACK (handle_close), self);
  g_signal_connect (self->skeleton, "handle-read-capture", G_CALLBACK (handle_read_capture), self);
  g_signal_connect (self->skeleton, "handle-create-ring-buffer", G_CALLBACK (handle_create_ring_buffer), self);

  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->skeleton), connection, object_path, error))
    return NULL;

  if (!self->detached)
    self->owner_watch = g_bus_watch_name_on_connection (connection, owner_name, G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                                        owner_vanished, self, NULL);

  return g_steal_pointer (&self);
}
