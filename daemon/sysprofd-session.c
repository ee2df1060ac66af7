// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>
#include <sysprof-instruments.h>

#include "ipc-session-generated.h"
#include "sysprof-dbus-contract.h"
#include "sysprofd-budget.h"
#include "sysprofd-period-queue.h"
#include "sysprofd-dispatcher.h"
#include "sysprofd-proc.h"
#include "sysprofd-session-state.h"
#include "sysprofd-session.h"

#define PROGRESS_MS 250
/* Descriptors a session holds besides perf events and rings: the capture
 * file and the writer's duplicate of it. */
#define SESSION_FDS 2
/* A continuous session also holds the finished periods' files, and the next
 * one while it cuts. */
#define SESSION_FDS_OF(self) (SESSION_FDS + ((self)->period > 0 ? SYSPROF_DBUS_MAX_HELD_PERIODS + 1 : 0))
/* Within this of max-bytes the capture counts as full: the largest frame. */
#define MAX_BYTES_SLACK 65536

/* A session records in a thread of its own, with its own main context: the
 * perf rings, the counters, the ring drainer and the session's timers are
 * sources there.  So a session, however hostile the rings handed to its
 * programs, slows down neither the daemon's main loop (every other call)
 * nor another session.
 *
 * Threads: the object, its skeleton and the bus name watch belong to the
 * main thread; what records belongs to the session's thread ("thread only"
 * below).  Calls reach the thread through session_invoke(); once the thread
 * winds down it accepts no more, and what was queued is answered with an
 * error.  The last reference is always dropped in the main thread. */

struct _SysprofdSession
{
  GObject parent_instance;

  /* Main thread. */
  IpcSession      *skeleton;
  GDBusConnection *connection;
  char            *object_path;
  guint32          owner_uid;
  char            *owner_name;
  guint            owner_watch;
  gboolean         closing;
  GPtrArray       *close_calls; /* SysprofdCall answered once closed */
  GThread         *thread;
  const char      *action;

  /* Options: set at creation, read-only after. */
  gboolean cpu_sampling;
  guint    frequency;
  /* SysprofPerfUnwind: DEFAULT unless the option names one. */
  int      unwind;
  guint    stack_size;
  GArray  *pids;
  char   **counters;
  guint64  max_bytes;
  guint    max_duration;
  gboolean detached;
  gboolean scheduler;
  gboolean system_bus;
  gboolean own_processes_only; /* authorized with SYSPROF_DBUS_ACTION_PROFILE_OWN */
  guint    period;             /* seconds; 0: not continuous */
  gboolean charged_continuous; /* against SYSPROFD_RESOURCE_CONTINUOUS */

  /* Handing work to the session's thread. */
  GMainContext *context;
  GMainLoop    *loop;
  GMutex        lock;
  gboolean      accepting;

  /* Thread only. */
  SysprofdSessionState    state;
  gboolean                shut_down;
  int                     capture_fd; /* caller's or private; for ReadCapture */
  SysprofCaptureWriter   *writer;
  SysprofSessionRecorder *recorder; /* kept after stop for its counts */
  gint64                  start_time;
  gint64                  stop_time;
  GSource                *progress_source;
  GSource                *duration_source;
  GSource                *linger_source;
  GSource                *start_timeout_source;
  guint                   progress_ticks;
  SysprofRingDrainer     *rings; /* handed to profiled programs: untrusted */
  guint64                 perf_lost;
  GPtrArray              *warnings; /* the recorder's, distinct, NULL-terminated */
  guint                   n_warnings;
  guint64                 charged_rings;
  guint64                 charged_ring_bytes;
  guint64                 charged_perf_fds;
  /* Continuous sessions: the periods finished and held, and the one being
   * recorded (into capture_fd). */
  SysprofdPeriodQueue *periods;
  GSource             *period_source;
  guint                period_index; /* of the period being recorded, from 1 */
  gint64               period_begin; /* its start, g_get_real_time() */
  guint                periods_dropped;
};

static guint start_timeout = SYSPROF_DBUS_START_TIMEOUT;

typedef void (*SessionFunc) (SysprofdSession *self, GDBusMethodInvocation *invocation);

/* ------------------------------------------------------------------------ */
/* The skeleton: property reads only for the owner's uid, and a weak
 * reference to the session, so that a call arriving for a session that is
 * gone is answered instead of reaching freed memory. */

typedef struct
{
  IpcSessionSkeleton parent_instance;
  guint32            owner_uid;
  GWeakRef           session;
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
  guint32                  uid;

  /* Main thread: the dispatcher knows every caller that made a call.  Others
   * are asked about once; unique names are never reused. */
  if (!sysprofd_dispatcher_lookup_uid (sender, &uid))
    {
      g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
          connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixUser",
          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
      if (reply == NULL)
        uid = G_MAXUINT32;
      else
        g_variant_get (reply, "(u)", &uid);
    }
  if (uid != skeleton->owner_uid)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   SYSPROF_DBUS_DENIED_PREFIX "session %s belongs to another user", object_path);
      return NULL;
    }
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
  g_weak_ref_clear (&((SysprofdSessionSkeleton *) object)->session);
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
  g_weak_ref_init (&self->session, NULL);
}

/* ------------------------------------------------------------------------ */

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

  g_assert (self->thread == NULL);
  g_clear_object (&self->skeleton);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->object_path, g_free);
  g_clear_pointer (&self->owner_name, g_free);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->close_calls, g_ptr_array_unref);
  g_clear_pointer (&self->pids, g_array_unref);
  g_clear_pointer (&self->counters, g_strfreev);
  g_clear_pointer (&self->periods, sysprofd_period_queue_free);
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->lock);

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
  self->frequency = SYSPROF_DBUS_DEFAULT_FREQUENCY;
  self->cpu_sampling = TRUE;
  self->max_bytes = SYSPROF_DBUS_DEFAULT_MAX_BYTES;
  self->pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->close_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) sysprofd_call_unref);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->action = SYSPROF_DBUS_ACTION_PROFILE;
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  g_mutex_init (&self->lock);
}

void
sysprofd_session_set_start_timeout (guint seconds)
{
  start_timeout = MAX (seconds, 1);
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

/* ------------------------------------------------------------------------ */
/* In the session's thread */

static GSource *
add_timeout (SysprofdSession *self, guint ms, GSourceFunc func, const char *name)
{
  GSource *source = ms % 1000 == 0 ? g_timeout_source_new_seconds (ms / 1000) : g_timeout_source_new (ms);

  g_source_set_callback (source, func, self, NULL);
  g_source_set_static_name (source, name);
  /* The session's own timers (progress and max-bytes, max-duration, expiry)
   * at the ring drainer's priority, for the same reason as session_invoke. */
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_attach (source, self->context);
  return source;
}

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

/* Main thread. */
static void
release_continuous (SysprofdSession *self)
{
  if (self->charged_continuous)
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_CONTINUOUS, 1);
      self->charged_continuous = FALSE;
    }
}

static void
set_state (SysprofdSession *self, SysprofdSessionState state)
{
  self->state = state;
  ipc_session_set_state (self->skeleton, sysprofd_session_state_name (state));
}

/* Rings whose producer ended no longer count against the owner: what the
 * open rings hold now is all that stays charged. */
static void
release_ended_rings (SysprofdSession *self, gboolean all)
{
  guint64 open = all ? 0 : sysprof_ring_drainer_get_n_rings (self->rings);
  guint64 bytes = all ? 0 : sysprof_ring_drainer_get_n_bytes (self->rings);

  if (open < self->charged_rings)
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING, self->charged_rings - open);
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_FD, self->charged_rings - open);
      self->charged_rings = open;
    }
  if (bytes < self->charged_ring_bytes)
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING_BYTES, self->charged_ring_bytes - bytes);
      self->charged_ring_bytes = bytes;
    }
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
    frames += sysprof_capture_stat_get (&stat, i);
  ipc_session_set_bytes_written (self->skeleton, sysprof_capture_writer_get_size (self->writer));
  ipc_session_set_frames_written (self->skeleton, frames);
  ipc_session_set_samples (self->skeleton, stat.frame_count[SYSPROF_CAPTURE_FRAME_SAMPLE]);
  ipc_session_set_allocation_records (self->skeleton,
                                      stat.frame_count[SYSPROF_CAPTURE_FRAME_ALLOCATION] +
                                          (self->rings ? sysprof_ring_drainer_get_n_stream_events (self->rings) : 0));
  if (self->recorder != NULL)
    self->perf_lost = sysprof_session_recorder_get_n_lost (self->recorder);
  ipc_session_set_lost_frames (self->skeleton, self->perf_lost + sysprof_ring_drainer_get_n_lost (self->rings));
  if (self->start_time)
    ipc_session_set_duration (self->skeleton, (guint64) (end - self->start_time) * 1000);
}

static int  open_private_capture (GError **error);
static void recorder_warning (SysprofSessionRecorder *recorder, const char *message, gpointer data);

/* Continuous sessions: the capture being written becomes a finished period,
 * held for the owner, who is told. */
static void
hold_period (SysprofdSession *self, int fd, gint64 end)
{
  guint dropped;

  dropped = sysprofd_period_queue_push (self->periods, self->period_index, self->period_begin, end, fd);
  ipc_session_set_periods (self->skeleton, self->period_index);
  ipc_session_set_held_periods (self->skeleton, sysprofd_period_queue_list (self->periods));
  if (dropped > 0)
    {
      g_autofree char *message = NULL;

      self->periods_dropped += dropped;
      ipc_session_set_periods_dropped (self->skeleton, self->periods_dropped);
      message = g_strdup_printf ("%u finished period(s) were dropped: nobody took them (at most %u, %s, are held)",
                                 self->periods_dropped, SYSPROF_DBUS_MAX_HELD_PERIODS, "1 GiB");
      recorder_warning (self->recorder, message, self);
    }
  if (!self->detached)
    g_dbus_connection_emit_signal (self->connection, self->owner_name, self->object_path,
                                   SYSPROF_DBUS_SESSION_INTERFACE, "PeriodFinished",
                                   g_variant_new ("(u)", self->period_index), NULL);
}

/* Ends the period being recorded and goes on in a new capture.  When that
 * cannot be done (no file for it, a full disk) recording goes on in the same
 * capture, and the next cut tries again. */
static void
cut_period (SysprofdSession *self, const char *why)
{
  g_autoptr (GError) error = NULL;
  gint64 now = g_get_real_time ();
  int    fd, writer_fd;

  if ((fd = open_private_capture (&error)) < 0 || (writer_fd = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0)
    {
      g_autofree char *message = g_strdup_printf ("period %u goes on: no file for the next one: %s", self->period_index,
                                                  error ? error->message : g_strerror (errno));

      if (fd >= 0)
        close (fd);
      recorder_warning (self->recorder, message, self);
      return;
    }
  if (!sysprof_session_recorder_cut (self->recorder, writer_fd, &error))
    {
      g_autofree char *message = g_strdup_printf ("period %u goes on: %s", self->period_index, error->message);

      close (writer_fd);
      close (fd);
      recorder_warning (self->recorder, message, self);
      return;
    }
  g_debug ("Session %s: period %u ended (%s)", self->object_path, self->period_index, why);
  hold_period (self, self->capture_fd, now);
  self->capture_fd = fd;
  self->period_index++;
  self->period_begin = now;
}

static gboolean
period_cb (gpointer data)
{
  SysprofdSession *self = data;

  cut_period (self, "its time was up");
  return G_SOURCE_CONTINUE;
}

static void
finish (SysprofdSession *self, gboolean success, const char *message)
{
  g_autofree char *told = NULL;

  clear_source (&self->progress_source);
  clear_source (&self->duration_source);

  sysprof_ring_drainer_close (self->rings);
  release_ended_rings (self, TRUE);
  /* What finalizing adds (kernel symbols, a few MiB) goes beyond max-bytes:
   * a capture without them could not be symbolized. */
  if (self->writer != NULL)
    sysprof_capture_writer_set_max_size (self->writer, 0);
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
  if (self->charged_perf_fds)
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_FD, self->charged_perf_fds);
      self->charged_perf_fds = 0;
    }
  clear_source (&self->period_source);
  /* The last period, partial, is finished like the others.  The writer
   * keeps its own descriptor of it, for the counts. */
  if (self->period > 0 && self->capture_fd >= 0 && self->recorder != NULL)
    {
      hold_period (self, self->capture_fd, g_get_real_time ());
      self->capture_fd = -1;
    }
  self->stop_time = g_get_monotonic_time ();
  update_progress (self);
  set_state (self, sysprofd_session_state_after_recording (success));
  if (self->n_warnings > 0)
    message = told = g_strdup_printf ("%s; %s%s", message, (const char *) self->warnings->pdata[0],
                                      self->n_warnings > 1 ? " (and more warnings, see sysprofd's log)" : "");
  /* Unicast to the creator: a broadcast would tell every user about it. */
  if (!self->detached)
    g_dbus_connection_emit_signal (self->connection, self->owner_name, self->object_path,
                                   SYSPROF_DBUS_SESSION_INTERFACE, "Finished", g_variant_new ("(bs)", success, message),
                                   NULL);
  g_message ("Session %s of uid %u %s: %s", self->object_path, self->owner_uid, success ? "stopped" : "failed",
             message);
}

static gboolean
close_in_main (gpointer data)
{
  SysprofdSession *self = data;

  sysprofd_session_close (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* From the session's thread: the main thread closes. */
static void
request_close (SysprofdSession *self)
{
  sysprofd_run_in_main (close_in_main, g_object_ref (self));
}

static gboolean
progress_cb (gpointer data)
{
  SysprofdSession *self = data;

  /* Properties follow at the rate clients poll them (sysprof-cli: 4 Hz);
   * once a second the capture on disk catches up, so readers can follow it. */
  if (self->writer != NULL && ++self->progress_ticks % (1000 / PROGRESS_MS) == 0)
    sysprof_capture_writer_flush (self->writer);
  release_ended_rings (self, FALSE);
  update_progress (self);
  /* The writer refuses frames beyond max-bytes as they come; once it is
   * (nearly) full, the session ends. */
  if (self->period > 0 && self->writer != NULL &&
      sysprof_capture_writer_get_size (self->writer) + MAX_BYTES_SLACK >= self->max_bytes)
    {
      /* A period's size is bounded: the next one starts early. */
      cut_period (self, "it reached max-bytes");
      return G_SOURCE_CONTINUE;
    }
  if (self->writer != NULL && (sysprof_ring_drainer_get_limit_reached (self->rings) ||
                               sysprof_capture_writer_get_size (self->writer) + MAX_BYTES_SLACK >= self->max_bytes))
    {
      g_clear_pointer (&self->progress_source, g_source_unref);
      finish (self, FALSE, "stopped at the max-bytes limit");
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
duration_cb (gpointer data)
{
  SysprofdSession *self = data;

  g_clear_pointer (&self->duration_source, g_source_unref);
  finish (self, TRUE, "stopped after max-duration");
  return G_SOURCE_REMOVE;
}

static gboolean
linger_cb (gpointer data)
{
  SysprofdSession *self = data;

  g_clear_pointer (&self->linger_source, g_source_unref);
  g_message ("Removing detached session %s, stopped %d s ago and never closed", self->object_path,
             SYSPROF_DBUS_DETACHED_LINGER);
  request_close (self);
  return G_SOURCE_REMOVE;
}

static gboolean
start_timeout_cb (gpointer data)
{
  SysprofdSession *self = data;

  g_clear_pointer (&self->start_timeout_source, g_source_unref);
  if (self->state == SYSPROFD_SESSION_CREATED)
    {
      g_message ("Removing session %s of uid %u: not started within %d s", self->object_path, self->owner_uid,
                 start_timeout);
      request_close (self);
    }
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

static void
do_set_capture_fd (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  GUnixFDList *fds = g_dbus_message_get_unix_fd_list (g_dbus_method_invocation_get_message (invocation));
  g_autoptr (GError) error = NULL;
  gint32        handle;
  int           fd;
  struct stat   st;
  struct statfs sfs;

  if (self->period > 0)
    {
      g_dbus_method_invocation_return_error_literal (
          invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
          "A continuous session writes each period into a file of its own: take them with TakePeriods");
      return;
    }
  if (!sysprofd_session_state_allows (self->state, SYSPROFD_SESSION_SET_CAPTURE_FD, &error) || self->writer != NULL)
    {
      g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                                     error ? error->message
                                                           : "SetCaptureFd is only possible before Start");
      return;
    }
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(h)", &handle);
  if (fds == NULL || handle < 0 || handle >= g_unix_fd_list_get_length (fds) ||
      (fd = g_unix_fd_list_get (fds, handle, &error)) < 0)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "No file descriptor was passed with SetCaptureFd");
      return;
    }
  /* A pipe or socket the caller never drains would block the session: only
   * regular files are accepted. */
  /* Nor a file of /proc, /sys or cgroupfs the caller may open: the daemon
   * would write root's frames into a kernel interface. */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (fcntl (fd, F_GETFL) & O_ACCMODE) == O_RDONLY ||
      fstatfs (fd, &sfs) != 0 || sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC ||
      sfs.f_type == CGROUP_SUPER_MAGIC || sfs.f_type == CGROUP2_SUPER_MAGIC || sfs.f_type == DEBUGFS_MAGIC ||
      sfs.f_type == TRACEFS_MAGIC || sfs.f_type == SECURITYFS_MAGIC || sfs.f_type == BPF_FS_MAGIC)
    {
      close (fd);
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "The capture fd must be a regular file opened for writing, not a file "
                                             "of /proc, /sys or another kernel file system");
      return;
    }
  if (self->capture_fd >= 0)
    close (self->capture_fd);
  self->capture_fd = fd;
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
recorder_warning (SysprofSessionRecorder *recorder, const char *message, gpointer data)
{
  SysprofdSession *self = data;
  g_autofree char *valid = NULL;

  (void) recorder;
  /* About the client's capture (partial, over its max-bytes, a process
   * gone), not about the daemon's health: the client is told at Finished. */
  g_message ("Session %s: %s", self->object_path, message);
  self->n_warnings++;
  /* The Warnings property: each once, a bounded number of them, valid
   * UTF-8 (they may quote a process's name) of bounded length. */
  valid = g_utf8_make_valid (message, MIN (strlen (message), SYSPROF_DBUS_MAX_WARNING_LENGTH));
  for (guint i = 0; i + 1 < self->warnings->len; i++)
    if (g_str_equal (self->warnings->pdata[i], valid))
      return;
  if (self->warnings->len > SYSPROF_DBUS_MAX_SESSION_WARNINGS)
    return;
  g_ptr_array_insert (self->warnings, (int) self->warnings->len - 1, g_steal_pointer (&valid));
  ipc_session_set_warnings (self->skeleton, (const char *const *) self->warnings->pdata);
}

static guint
count_online_cpus (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);

  return n > 0 ? (guint) n : 1;
}

/* The perf events a recording will open: the CPUs, or every thread of the
 * processes on every CPU; plus some room for threads started meanwhile. */
static guint
estimate_perf_events (SysprofdSession *self)
{
  guint64 n = 0;

  if (!self->cpu_sampling)
    return 0;
  if (self->pids->len == 0)
    return count_online_cpus () * (self->scheduler ? 2 : 1);
  for (guint i = 0; i < self->pids->len; i++)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/task", g_array_index (self->pids, gint32, i));
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      guint n_threads = 0;

      while (dir && g_dir_read_name (dir) && n_threads < SYSPROF_DBUS_MAX_PERF_EVENTS_PER_SESSION)
        n_threads++;
      n += MAX (n_threads, 1);
    }
  n = n * count_online_cpus () + 64;
  /* With scheduler details, a sched_switch event beside each. */
  if (self->scheduler)
    n *= 2;
  return (guint) MIN (n, SYSPROF_DBUS_MAX_PERF_EVENTS_PER_SESSION);
}

/* The unwinding helper: beside our executable (installed, both live in
 * libexecdir) or in unwinder/ beside it (the build tree); NULL for the
 * recorder's default.  Only our own directory is looked at: whoever can
 * write there could replace sysprofd itself. */
static const char *
sysprofd_unwinder_path (void)
{
  static char *path;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;
      const char      *candidates[] = { "sysprof-unwinder", "unwinder/sysprof-unwinder" };

      for (guint i = 0; dir != NULL && path == NULL && i < G_N_ELEMENTS (candidates); i++)
        {
          g_autofree char *candidate = g_build_filename (dir, candidates[i], NULL);

          if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE))
            path = g_steal_pointer (&candidate);
        }
      g_once_init_leave (&once, 1);
    }
  return path;
}

static void
do_start (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  g_autoptr (GError) error = NULL;
  int   writer_fd;
  guint max_events;

  if (!sysprofd_session_state_allows (self->state, SYSPROFD_SESSION_START, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  /* Authorized for processes of the owner's: are they still (a pid may
   * have been reused since CreateSession)? */
  if (self->own_processes_only)
    for (guint i = 0; i < self->pids->len; i++)
      if (!sysprofd_process_is_owned_by (g_array_index (self->pids, gint32, i), self->owner_uid))
        {
          g_dbus_method_invocation_return_error (
              invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
              SYSPROF_DBUS_DENIED_PREFIX "process %d is no longer one of uid %u's, and this session may only record "
                                         "processes of its owner's (%s)",
              g_array_index (self->pids, gint32, i), self->owner_uid, SYSPROF_DBUS_ACTION_PROFILE_OWN);
          return;
        }
  max_events = estimate_perf_events (self);
  if (max_events > 0 && !sysprofd_budget_charge (self->owner_uid, SYSPROFD_RESOURCE_FD, max_events, &error))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                                             "Cannot open %u perf events: %s", max_events, error->message);
      return;
    }
  self->charged_perf_fds += max_events;
  if (self->capture_fd < 0 && (self->capture_fd = open_private_capture (&error)) < 0)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  if ((writer_fd = fcntl (self->capture_fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      !(self->writer = sysprof_capture_writer_new_from_fd (writer_fd, 0)))
    {
      int saved = errno;
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot start the capture: %s", g_strerror (saved));
      set_state (self, SYSPROFD_SESSION_FAILED);
      return;
    }

  {
    SysprofSessionRecorderOptions options = SYSPROF_SESSION_RECORDER_OPTIONS_INIT;

    options.cpu_sampling = self->cpu_sampling;
    options.frequency_hz = self->frequency;
    options.pids = (const int *) (gpointer) self->pids->data;
    options.n_pids = self->pids->len;
    options.counters = (const char *const *) self->counters;
    options.max_perf_events = max_events;
    options.own_processes_only = self->own_processes_only;
    options.unwind = (SysprofPerfUnwind) self->unwind;
    options.stack_size = self->stack_size;
    options.unwinder_path = sysprofd_unwinder_path ();
    /* Other users' JIT maps are only readable here; a session of the
     * caller's own processes sees only theirs anyway. */
    options.embed_perf_maps = TRUE;
    options.scheduler = self->scheduler;
    options.system_bus = self->system_bus;
    /* max-bytes from the first frame: the /proc snapshot of processes an
     * attacker controls could be large too. */
    sysprof_capture_writer_set_max_size (self->writer, self->max_bytes);
    self->recorder = sysprof_session_recorder_new (self->writer);
    g_signal_connect (self->recorder, "warning", G_CALLBACK (recorder_warning), self);
    if (!sysprof_session_recorder_start (self->recorder, &options, &error))
      {
        GDBusError code = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES)
                              ? G_DBUS_ERROR_LIMITS_EXCEEDED
                              : G_DBUS_ERROR_FAILED;

        g_clear_object (&self->recorder);
        set_state (self, SYSPROFD_SESSION_FAILED);
        g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, code, "%s", error->message);
        return;
      }
  }

  /* max-bytes, enforced as frames are written, by every instrument. */
  sysprof_ring_drainer_set_max_bytes (self->rings, self->max_bytes);
  /* The processes were checked before; one may have run a setuid program
   * since, before its events were opened (the kernel only drops events at
   * a setuid exec that comes after).  Now that they are open, once more:
   * any foreign thread and the capture is wiped, before anything of it was
   * handed out. */
  if (self->own_processes_only)
    for (guint i = 0; i < self->pids->len; i++)
      if (!sysprofd_process_is_owned_by (g_array_index (self->pids, gint32, i), self->owner_uid))
        {
          sysprof_session_recorder_stop (self->recorder, NULL);
          g_clear_object (&self->recorder);
          g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
          if (ftruncate (self->capture_fd, 0) != 0)
            g_warning ("Session %s: cannot wipe the capture: %s", self->object_path, g_strerror (errno));
          set_state (self, SYSPROFD_SESSION_FAILED);
          g_dbus_method_invocation_return_error (
              invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
              SYSPROF_DBUS_DENIED_PREFIX "process %d stopped being uid %u's while recording started; the capture "
                                         "was wiped",
              g_array_index (self->pids, gint32, i), self->owner_uid);
          return;
        }

  /* Frames waiting in rings follow the /proc snapshot of the start. */
  sysprof_ring_drainer_set_writer (self->rings, self->writer);
  clear_source (&self->start_timeout_source);
  self->start_time = g_get_monotonic_time ();
  set_state (self, SYSPROFD_SESSION_RECORDING);
  self->progress_source = add_timeout (self, PROGRESS_MS, progress_cb, "[sysprofd] session progress");
  if (self->max_duration > 0)
    self->duration_source =
        add_timeout (self, self->max_duration * 1000, duration_cb, "[sysprofd] session max-duration");
  if (self->period > 0)
    {
      self->period_index = 1;
      self->period_begin = g_get_real_time ();
      self->period_source = add_timeout (self, self->period * 1000, period_cb, "[sysprofd] session period");
    }
  g_message ("Session %s of uid %u recording (%s at %u Hz, %s)", self->object_path, self->owner_uid,
             self->cpu_sampling ? sysprof_session_recorder_get_event_name (self->recorder) : "no sampling",
             self->frequency, self->pids->len ? "selected processes" : "whole system");
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
do_stop (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  g_autoptr (GError) state_error = NULL;

  if (!sysprofd_session_state_allows (self->state, SYSPROFD_SESSION_STOP, &state_error))
    {
      g_dbus_method_invocation_return_gerror (invocation, state_error);
      return;
    }
  if (self->state == SYSPROFD_SESSION_RECORDING)
    finish (self, TRUE, "stopped by Stop");
  if (self->detached && self->linger_source == NULL)
    self->linger_source =
        add_timeout (self, SYSPROF_DBUS_DETACHED_LINGER * 1000, linger_cb, "[sysprofd] detached session linger");
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
do_read_capture (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  guint64            offset;
  guint32            max_len;
  g_autofree guint8 *buf = NULL;
  ssize_t            n;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(tu)", &offset, &max_len);
  if (self->capture_fd < 0 || self->writer == NULL)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Nothing was recorded yet: call Start first");
      return;
    }
  if (offset > G_MAXINT64)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "offset %" G_GUINT64_FORMAT " is beyond any file", offset);
      return;
    }
  /* Make everything recorded so far visible. */
  if (self->state == SYSPROFD_SESSION_RECORDING)
    sysprof_capture_writer_flush (self->writer);
  max_len = MIN (max_len, SYSPROF_DBUS_READ_CAPTURE_MAX);
  buf = g_malloc (MAX (max_len, 1));
  do
    n = pread (self->capture_fd, buf, max_len, (off_t) offset);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      int saved = errno;
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot read the capture: %s%s", g_strerror (saved),
                                             saved == EBADF ? " (the capture fd was not opened for reading)" : "");
      return;
    }
  g_dbus_method_invocation_return_value (
      invocation, g_variant_new ("(@ay)", g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, buf, (gsize) n, 1)));
}

static gboolean
refuse_unless_continuous (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  if (self->period > 0)
    return FALSE;
  g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR, G_DBUS_ERROR_NOT_SUPPORTED,
                                                 "Only a continuous session (option \"period\") has periods");
  return TRUE;
}

static void
do_take_periods (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GError) error = NULL;
  GVariant *answer;

  if (refuse_unless_continuous (self, invocation))
    return;
  if ((answer = sysprofd_period_queue_take_all (self->periods, &fds, &error)) == NULL)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s", error->message);
      return;
    }
  ipc_session_set_held_periods (self->skeleton, sysprofd_period_queue_list (self->periods));
  g_dbus_method_invocation_return_value_with_unix_fd_list (invocation, answer, fds);
}

static void
do_read_period (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  guint32 index, max_len;
  guint64 offset;

  if (refuse_unless_continuous (self, invocation))
    return;
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(utu)", &index, &offset, &max_len);
  if ((bytes = sysprofd_period_queue_read (self->periods, index, offset, MIN (max_len, SYSPROF_DBUS_READ_CAPTURE_MAX),
                                           &error)) == NULL)
    {
      g_dbus_method_invocation_return_error (
          invocation, G_DBUS_ERROR,
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ? G_DBUS_ERROR_FILE_NOT_FOUND : G_DBUS_ERROR_FAILED,
          "%s", error->message);
      return;
    }
  g_dbus_method_invocation_return_value (
      invocation, g_variant_new ("(@ay)", g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE)));
}

static void
do_forget_periods (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  guint32 through, n;

  if (refuse_unless_continuous (self, invocation))
    return;
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(u)", &through);
  n = sysprofd_period_queue_forget_through (self->periods, through);
  ipc_session_set_held_periods (self->skeleton, sysprofd_period_queue_list (self->periods));
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", n));
}

/* A ring costs its owner one ring, its memory and the daemon's fd of it:
 * all three, or none. */
static gboolean
charge_ring (SysprofdSession *self, guint64 bytes, GError **error)
{
  if (!sysprofd_budget_charge (self->owner_uid, SYSPROFD_RESOURCE_RING, 1, error))
    return FALSE;
  if (!sysprofd_budget_charge (self->owner_uid, SYSPROFD_RESOURCE_RING_BYTES, bytes, error))
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING, 1);
      return FALSE;
    }
  if (!sysprofd_budget_charge (self->owner_uid, SYSPROFD_RESOURCE_FD, 1, error))
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING, 1);
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING_BYTES, bytes);
      return FALSE;
    }
  return TRUE;
}

static void
release_ring (SysprofdSession *self, guint64 bytes)
{
  sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING, 1);
  sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_RING_BYTES, bytes);
  sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_FD, 1);
}

static void
do_create_ring_buffer (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GError) error = NULL;
  guint32 n_pages;
  guint64 bytes;
  int     fd;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(u)", &n_pages);
  /* A program's frames may refer to what it sent before (JIT names, counter
   * definitions, memory streams' stacks), which a new period would lack. */
  if (self->period > 0)
    {
      g_dbus_method_invocation_return_error_literal (
          invocation, G_DBUS_ERROR, G_DBUS_ERROR_NOT_SUPPORTED,
          "Continuous sessions take no ring buffers: a program's frames may refer to what it sent in an earlier "
          "period");
      return;
    }
  if (!sysprofd_session_state_allows (self->state, SYSPROFD_SESSION_CREATE_RING_BUFFER, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  /* Charged before it exists; what the check of the size refuses is given
   * back below. */
  bytes = ((guint64) (n_pages ? n_pages : SYSPROF_RING_DRAINER_DEFAULT_PAGES) + 1) * (guint64) sysconf (_SC_PAGESIZE);
  release_ended_rings (self, FALSE);
  if (!charge_ring (self, bytes, &error))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                                             "Cannot create the ring buffer: %s", error->message);
      return;
    }
  if ((fd = sysprof_ring_drainer_create_ring (self->rings, n_pages, &error)) < 0)
    {
      GDBusError code = G_DBUS_ERROR_FAILED;

      release_ring (self, bytes);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT))
        code = G_DBUS_ERROR_INVALID_ARGS;
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES) ||
               g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
        code = G_DBUS_ERROR_LIMITS_EXCEEDED;
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, code, "Cannot create the ring buffer: %s",
                                             error->message);
      return;
    }
  self->charged_rings++;
  self->charged_ring_bytes += bytes;
  fds = g_unix_fd_list_new_from_array (&fd, 1);
  g_dbus_method_invocation_return_value_with_unix_fd_list (invocation, g_variant_new ("(h)", 0), fds);
}

/* The end of the session's thread: the capture is finalized, everything
 * it holds given back; what was queued meanwhile is answered by the thread
 * before it exits. */
static void
shut_down (SysprofdSession *self, GDBusMethodInvocation *invocation)
{
  (void) invocation;

  if (self->state == SYSPROFD_SESSION_RECORDING)
    finish (self, TRUE, "stopped by Close");
  clear_source (&self->progress_source);
  clear_source (&self->duration_source);
  clear_source (&self->linger_source);
  clear_source (&self->start_timeout_source);
  clear_source (&self->period_source);
  sysprof_ring_drainer_close (self->rings);
  release_ended_rings (self, TRUE);
  if (self->charged_perf_fds)
    {
      sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_FD, self->charged_perf_fds);
      self->charged_perf_fds = 0;
    }
  /* The recorder holds the writer, and with it the capture's fd. */
  g_clear_object (&self->recorder);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  if (self->capture_fd >= 0)
    {
      close (self->capture_fd);
      self->capture_fd = -1;
    }
  self->shut_down = TRUE;
  g_mutex_lock (&self->lock);
  self->accepting = FALSE;
  g_mutex_unlock (&self->lock);
  g_main_loop_quit (self->loop);
}

typedef struct
{
  SysprofdSession *self; /* kept alive by the call's data */
  SysprofdCall    *call; /* NULL for the daemon's own work */
  SessionFunc      func;
} Work;

static gboolean
work_run (gpointer data)
{
  Work *work = data;

  if (work->self->shut_down)
    {
      if (work->call != NULL)
        g_dbus_method_invocation_return_error (sysprofd_call_get_invocation (work->call), G_DBUS_ERROR,
                                               G_DBUS_ERROR_UNKNOWN_OBJECT, "The session was closed");
    }
  else
    work->func (work->self, work->call ? sysprofd_call_get_invocation (work->call) : NULL);
  return G_SOURCE_REMOVE;
}

static void
work_free (gpointer data)
{
  Work *work = data;

  g_clear_pointer (&work->call, sysprofd_call_unref);
  g_free (work);
}

/* Hands @func to the session's thread; FALSE once it takes nothing more. */
static gboolean
session_invoke (SysprofdSession *self, SysprofdCall *call, SessionFunc func)
{
  Work    *work;
  gboolean accepted;

  g_mutex_lock (&self->lock);
  if ((accepted = self->accepting))
    {
      work = g_new0 (Work, 1);
      work->self = self;
      work->call = call ? sysprofd_call_ref (call) : NULL;
      work->func = func;
      /* As high as the ring drainer's: a pass that takes its whole period
       * must not keep Stop or Close from ever running. */
      g_main_context_invoke_full (self->context, G_PRIORITY_HIGH, work_run, work, work_free);
    }
  g_mutex_unlock (&self->lock);
  return accepted;
}

static gboolean
thread_finished (gpointer data)
{
  SysprofdSession *self = data;

  g_thread_join (g_steal_pointer (&self->thread));
  for (guint i = 0; i < self->close_calls->len; i++)
    g_dbus_method_invocation_return_value (sysprofd_call_get_invocation (self->close_calls->pdata[i]), NULL);
  g_ptr_array_set_size (self->close_calls, 0);
  g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->skeleton));
  sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_FD, SESSION_FDS_OF (self));
  g_signal_emit (self, signals[CLOSED], 0);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

static gpointer
session_thread (gpointer data)
{
  SysprofdSession *self = data;

  g_main_context_push_thread_default (self->context);
  /* The drainer's source goes to this thread's context. */
  self->rings = sysprof_ring_drainer_new (SYSPROF_DBUS_MAX_RINGS_PER_SESSION);
  self->start_timeout_source = add_timeout (self, start_timeout * 1000, start_timeout_cb, "[sysprofd] session start");
  g_main_loop_run (self->loop);
  /* Answer what was queued before the thread stopped accepting. */
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_clear_object (&self->rings);
  g_main_context_pop_thread_default (self->context);
  sysprofd_run_in_main (thread_finished, self);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* In the main thread */

void
sysprofd_session_close (SysprofdSession *self)
{
  g_return_if_fail (SYSPROFD_IS_SESSION (self));

  if (self->closing)
    return;
  self->closing = TRUE;
  /* No longer one of its owner's sessions: it records nothing more and is
   * never handed out again, so an owner that went away and comes back at
   * once may start another.  Its descriptors stay charged until the capture
   * is finalized, which bounds how many closing ones a user can pile up. */
  sysprofd_budget_release (self->owner_uid, SYSPROFD_RESOURCE_SESSION, 1);
  release_continuous (self);
  if (self->owner_watch)
    {
      g_bus_unwatch_name (self->owner_watch);
      self->owner_watch = 0;
    }
  /* The object stays on the bus, answering UnknownObject, until the capture
   * is finalized: a client (or a test) that sees it gone may read the file. */
  /* The thread's reference, dropped in thread_finished. */
  g_object_ref (self);
  if (!session_invoke (self, NULL, shut_down))
    g_assert_not_reached ();
}

typedef struct
{
  SysprofdSession *self;
  SessionFunc      func;
} SessionCall;

static void
session_call_free (gpointer data)
{
  SessionCall *sc = data;

  g_object_unref (sc->self);
  g_free (sc);
}

static const char *
session_action (SysprofdCall *call)
{
  SessionCall *sc = sysprofd_call_get_data (call);

  return sc->self->action;
}

/* Authorized by polkit: now the owner, then the session's thread. */
static void
session_call_authorized (SysprofdCall *call)
{
  SessionCall           *sc = sysprofd_call_get_data (call);
  SysprofdSession       *self = sc->self;
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);

  if (sysprofd_call_get_uid (call) != self->owner_uid)
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                           SYSPROF_DBUS_DENIED_PREFIX "session %s belongs to another user",
                                           self->object_path);
  else if (self->closing)
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT,
                                           "The session %s was closed", self->object_path);
  else if (sc->func == NULL)
    {
      /* Close: answered once the capture is finalized and the session gone. */
      g_ptr_array_add (self->close_calls, sysprofd_call_ref (call));
      sysprofd_session_close (self);
    }
  else if (!session_invoke (self, call, sc->func))
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT,
                                           "The session %s was closed", self->object_path);
}

static void
dispatch (IpcSession *skeleton, GDBusMethodInvocation *invocation, SessionFunc func)
{
  SysprofdSession *self = g_weak_ref_get (&((SysprofdSessionSkeleton *) skeleton)->session);
  SessionCall     *sc;

  if (self == NULL)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT,
                                             "The session was closed");
      return;
    }
  sc = g_new0 (SessionCall, 1);
  sc->self = self;
  sc->func = func;
  sysprofd_dispatch (invocation, SYSPROFD_CALL_IN_MAIN, session_action, session_call_authorized, sc, session_call_free);
}

static gboolean
handle_set_capture_fd (IpcSession *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fds, GVariant *fd)
{
  (void) fds, (void) fd;
  dispatch (skeleton, invocation, do_set_capture_fd);
  return TRUE;
}

static gboolean
handle_start (IpcSession *skeleton, GDBusMethodInvocation *invocation)
{
  dispatch (skeleton, invocation, do_start);
  return TRUE;
}

static gboolean
handle_stop (IpcSession *skeleton, GDBusMethodInvocation *invocation)
{
  dispatch (skeleton, invocation, do_stop);
  return TRUE;
}

static gboolean
handle_close (IpcSession *skeleton, GDBusMethodInvocation *invocation)
{
  dispatch (skeleton, invocation, NULL);
  return TRUE;
}

static gboolean
handle_read_capture (IpcSession *skeleton, GDBusMethodInvocation *invocation, guint64 offset, guint max_len)
{
  (void) offset, (void) max_len;
  dispatch (skeleton, invocation, do_read_capture);
  return TRUE;
}

static gboolean
handle_take_periods (IpcSession *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fds)
{
  (void) fds;
  dispatch (skeleton, invocation, do_take_periods);
  return TRUE;
}

static gboolean
handle_read_period (IpcSession *skeleton, GDBusMethodInvocation *invocation, guint index, guint64 offset, guint max_len)
{
  (void) index, (void) offset, (void) max_len;
  dispatch (skeleton, invocation, do_read_period);
  return TRUE;
}

static gboolean
handle_forget_periods (IpcSession *skeleton, GDBusMethodInvocation *invocation, guint through)
{
  (void) through;
  dispatch (skeleton, invocation, do_forget_periods);
  return TRUE;
}

static gboolean
handle_create_ring_buffer (IpcSession *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fds, guint n_pages)
{
  (void) fds, (void) n_pages;
  dispatch (skeleton, invocation, do_create_ring_buffer);
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
#define EXPECT(type_str)                                                                                              \
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE (type_str)))                                                       \
    {                                                                                                                 \
      g_autofree char *shown = g_utf8_make_valid (key, -1);                                                           \
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Option \"%s\" must be of type %s, not %s", shown, \
                   type_str, g_variant_get_type_string (value));                                                      \
      g_variant_unref (value);                                                                                        \
      return FALSE;                                                                                                   \
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
          if (self->frequency < 1 || self->frequency > SYSPROF_DBUS_MAX_FREQUENCY)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                           "frequency %u is outside the limit of 1..%u Hz", self->frequency,
                           SYSPROF_DBUS_MAX_FREQUENCY);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "unwind"))
        {
          const char *how;

          EXPECT ("s");
          how = g_variant_get_string (value, NULL);
          if (g_str_equal (how, SYSPROF_DBUS_UNWIND_DWARF))
            self->unwind = SYSPROF_PERF_UNWIND_DWARF;
          else if (g_str_equal (how, SYSPROF_DBUS_UNWIND_FRAME_POINTERS))
            self->unwind = SYSPROF_PERF_UNWIND_FRAME_POINTERS;
          else
            {
              g_autofree char *shown = g_utf8_make_valid (how, -1);

              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                           "Unknown unwind method \"%s\" (known: " SYSPROF_DBUS_UNWIND_DWARF
                           ", " SYSPROF_DBUS_UNWIND_FRAME_POINTERS ")",
                           shown);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "stack-size"))
        {
          EXPECT ("u");
          self->stack_size = g_variant_get_uint32 (value);
          if (self->stack_size < 8 || self->stack_size > SYSPROF_DBUS_MAX_STACK_SIZE || self->stack_size % 8 != 0)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                           "stack-size %u is not a multiple of 8 from 8 to %u", self->stack_size,
                           SYSPROF_DBUS_MAX_STACK_SIZE);
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
          if (n + self->pids->len > SYSPROF_DBUS_MAX_PIDS)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                           "%" G_GSIZE_FORMAT " pids is above the limit of %u", n + self->pids->len,
                           SYSPROF_DBUS_MAX_PIDS);
              g_variant_unref (value);
              return FALSE;
            }
          for (gsize i = 0; i < n; i++)
            if (pids[i] <= 0)
              {
                g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "%d is not a process id", pids[i]);
                g_variant_unref (value);
                return FALSE;
              }
          /* Once each: a pid repeated costs the snapshot and the checks again. */
          for (gsize i = 0; i < n; i++)
            {
              gboolean seen = FALSE;

              for (guint j = 0; j < self->pids->len && !seen; j++)
                seen = g_array_index (self->pids, gint32, j) == pids[i];
              if (!seen)
                g_array_append_val (self->pids, pids[i]);
            }
        }
      else if (g_str_equal (key, "counters"))
        {
          EXPECT ("as");
          g_strfreev (self->counters);
          self->counters = g_variant_dup_strv (value, NULL);
          for (guint i = 0; self->counters[i]; i++)
            if (!g_strv_contains ((const char *const[]){ "cpu", "memory", "disk", "network", NULL }, self->counters[i]))
              {
                g_autofree char *shown = g_utf8_make_valid (self->counters[i], -1);

                g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                             "Unknown counter \"%s\" (known: cpu, memory, disk, network)", shown);
                g_variant_unref (value);
                return FALSE;
              }
        }
      else if (g_str_equal (key, "max-bytes"))
        {
          EXPECT ("t");
          self->max_bytes = g_variant_get_uint64 (value);
          if (self->max_bytes > SYSPROF_DBUS_MAX_BYTES)
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
          if (self->max_duration > SYSPROF_DBUS_MAX_DURATION)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                           "max-duration %u is above the limit of %u seconds", self->max_duration,
                           SYSPROF_DBUS_MAX_DURATION);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, SYSPROF_DBUS_OPTION_PERIOD))
        {
          EXPECT ("u");
          self->period = g_variant_get_uint32 (value);
          if (self->period < SYSPROF_DBUS_MIN_PERIOD || self->period > SYSPROF_DBUS_MAX_PERIOD)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "period %u is outside %u..%u seconds",
                           self->period, SYSPROF_DBUS_MIN_PERIOD, SYSPROF_DBUS_MAX_PERIOD);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "detached"))
        {
          EXPECT ("b");
          self->detached = g_variant_get_boolean (value);
        }
      else if (g_str_equal (key, SYSPROF_DBUS_OPTION_SCHEDULER))
        {
          EXPECT ("b");
          self->scheduler = g_variant_get_boolean (value);
        }
      else if (g_str_equal (key, SYSPROF_DBUS_OPTION_SYSTEM_BUS))
        {
          EXPECT ("b");
          self->system_bus = g_variant_get_boolean (value);
          /* The system bus carries every user's messages: only a grant of
           * the whole machine may see them, never one of one's own
           * processes. */
          if (self->system_bus && self->own_processes_only)
            {
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                           SYSPROF_DBUS_DENIED_PREFIX
                           "the system bus carries every user's messages: option \"" SYSPROF_DBUS_OPTION_SYSTEM_BUS
                           "\" needs %s, and this session was authorized only for the caller's own processes (%s)",
                           SYSPROF_DBUS_ACTION_PROFILE, SYSPROF_DBUS_ACTION_PROFILE_OWN);
              g_variant_unref (value);
              return FALSE;
            }
        }
      else
        {
          g_autofree char *shown = g_utf8_make_valid (key, -1);

          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Unknown option \"%s\"", shown);
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
                      const char      *action,
                      GVariant        *options,
                      gboolean         continuous_many,
                      GError         **error)
{
  g_autoptr (SysprofdSession) self = g_object_new (SYSPROFD_TYPE_SESSION, NULL);
  g_autoptr (GError) local_error = NULL;

  self->connection = g_object_ref (connection);
  self->object_path = g_strdup (object_path);
  self->owner_uid = owner_uid;
  self->owner_name = g_strdup (owner_name);
  if (action != NULL)
    self->action = action;
  self->own_processes_only = g_strcmp0 (self->action, SYSPROF_DBUS_ACTION_PROFILE_OWN) == 0;
  if (!parse_options (self, options, error))
    return NULL;
  /* Every task's switches, kernel stacks included: only for the full grant. */
  if (self->scheduler && self->own_processes_only)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   SYSPROF_DBUS_DENIED_PREFIX "\"" SYSPROF_DBUS_OPTION_SCHEDULER
                                              "\" records every task's switches, which needs the action %s, "
                                              "not only %s",
                   SYSPROF_DBUS_ACTION_PROFILE, SYSPROF_DBUS_ACTION_PROFILE_OWN);
      return NULL;
    }
  if (self->scheduler && !self->cpu_sampling)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   "\"scheduler\" is recorded with the CPU samples: not with \"cpu-sampling\" false");
      return NULL;
    }

  /* Continuous: low rate and bounded periods unless asked otherwise. */
  if (self->period > 0)
    {
      g_autoptr (GVariant) frequency = g_variant_lookup_value (options, "frequency", NULL);
      g_autoptr (GVariant) max_bytes = g_variant_lookup_value (options, "max-bytes", NULL);

      if (frequency == NULL)
        self->frequency = SYSPROF_DBUS_DEFAULT_CONTINUOUS_FREQUENCY;
      if (max_bytes == NULL)
        self->max_bytes = SYSPROF_DBUS_DEFAULT_PERIOD_MAX_BYTES;
      self->periods = sysprofd_period_queue_new ();
      /* One per uid, so that an agent started twice does not sample the
       * machine twice; more when polkit said so (the manager asked). */
      if (!continuous_many && !sysprofd_budget_charge (owner_uid, SYSPROFD_RESOURCE_CONTINUOUS, 1, error))
        return NULL;
      self->charged_continuous = !continuous_many;
    }

  if (!sysprofd_budget_charge (owner_uid, SYSPROFD_RESOURCE_SESSION, 1, error))
    {
      release_continuous (self);
      return NULL;
    }
  if (!sysprofd_budget_charge (owner_uid, SYSPROFD_RESOURCE_FD, SESSION_FDS_OF (self), error))
    {
      sysprofd_budget_release (owner_uid, SYSPROFD_RESOURCE_SESSION, 1);
      release_continuous (self);
      return NULL;
    }

  self->skeleton = g_object_new (sysprofd_session_skeleton_get_type (), NULL);
  ((SysprofdSessionSkeleton *) self->skeleton)->owner_uid = owner_uid;
  g_weak_ref_set (&((SysprofdSessionSkeleton *) self->skeleton)->session, self);
  ipc_session_set_state (self->skeleton, sysprofd_session_state_name (SYSPROFD_SESSION_CREATED));
  ipc_session_set_owner (self->skeleton, owner_uid);
  g_signal_connect (self->skeleton, "handle-set-capture-fd", G_CALLBACK (handle_set_capture_fd), NULL);
  g_signal_connect (self->skeleton, "handle-start", G_CALLBACK (handle_start), NULL);
  g_signal_connect (self->skeleton, "handle-stop", G_CALLBACK (handle_stop), NULL);
  g_signal_connect (self->skeleton, "handle-close", G_CALLBACK (handle_close), NULL);
  g_signal_connect (self->skeleton, "handle-read-capture", G_CALLBACK (handle_read_capture), NULL);
  g_signal_connect (self->skeleton, "handle-create-ring-buffer", G_CALLBACK (handle_create_ring_buffer), NULL);
  g_signal_connect (self->skeleton, "handle-take-periods", G_CALLBACK (handle_take_periods), NULL);
  g_signal_connect (self->skeleton, "handle-read-period", G_CALLBACK (handle_read_period), NULL);
  g_signal_connect (self->skeleton, "handle-forget-periods", G_CALLBACK (handle_forget_periods), NULL);

  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->skeleton), connection, object_path,
                                         &local_error))
    {
      sysprofd_budget_release (owner_uid, SYSPROFD_RESOURCE_SESSION, 1);
      sysprofd_budget_release (owner_uid, SYSPROFD_RESOURCE_FD, SESSION_FDS_OF (self));
      release_continuous (self);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (!self->detached)
    self->owner_watch = g_bus_watch_name_on_connection (connection, owner_name, G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                                        owner_vanished, self, NULL);

  self->accepting = TRUE;
  self->thread = g_thread_new ("sysprofd-session", session_thread, self);
  return g_steal_pointer (&self);
}
