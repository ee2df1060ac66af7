// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "ipc-session-manager-generated.h"
#include "sysprof-capture-error.h"
#include "sysprof-host-resolver-private.h"
#include "sysprof-recording-private.h"
#include "sysprof-symbol-map.h"

enum
{
  PHASE_CHANGED,
  PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SysprofRecording, sysprof_recording, G_TYPE_OBJECT)

static void fail (SysprofRecording *self, GError *error);

static DecodeJob *
decode_job_ref (DecodeJob *job)
{
  g_atomic_int_inc (&job->ref_count);
  return job;
}

static void
decode_job_unref (DecodeJob *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  g_mutex_clear (&job->mutex);
  if (job->capture_fd >= 0)
    close (job->capture_fd);
  g_clear_object (&job->bus);
  g_clear_object (&job->cancellable);
  g_free (job->fetch_file);
  g_free (job->missing_debug_info);
  g_free (job);
}

/* Replies to calls made on the proxy still come (they hold their own
 * reference); its Finished no longer does. */
static void
drop_session (SysprofRecording *self)
{
  g_clear_signal_handler (&self->finished_id, self->session);
  g_clear_object (&self->session);
}

/* Closing is queued after the session's Close; sysprofd also closes the
 * sessions of connections that leave the bus. */
static void
drop_bus (SysprofRecording *self)
{
  if (self->bus == NULL)
    return;
  drop_session (self);
  g_clear_signal_handler (&self->closed_id, self->bus);
  g_dbus_connection_close (self->bus, NULL, NULL, NULL);
  g_clear_object (&self->bus);
}

static void
sysprof_recording_dispose (GObject *object)
{
  SysprofRecording *self = SYSPROF_RECORDING (object);

  g_clear_handle_id (&self->poll_source, g_source_remove);
  g_clear_handle_id (&self->duration_source, g_source_remove);
  g_clear_handle_id (&self->kill_source, g_source_remove);
  g_clear_handle_id (&self->child_watch, g_source_remove);
  drop_bus (self);
  g_clear_object (&self->control);
  g_clear_object (&self->drainer);
  g_clear_object (&self->local);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  _sysprof_recording_traces_close (self);
  g_clear_object (&self->peer_bus);
  g_clear_object (&self->dbus_monitor);
  G_OBJECT_CLASS (sysprof_recording_parent_class)->dispose (object);
}

static void
sysprof_recording_finalize (GObject *object)
{
  SysprofRecording *self = SYSPROF_RECORDING (object);

  g_free (self->capture_path);
  g_array_unref (self->pids);
  g_strfreev (self->counters);
  g_strfreev (self->argv);
  g_strfreev (self->envp);
  g_free (self->working_directory);
  g_free (self->stop_reason);
  g_ptr_array_unref (self->warnings);
  g_clear_error (&self->error);
  g_free (self->program);
  g_free (self->preload);
  g_ptr_array_unref (self->peers);
  g_clear_pointer (&self->decode_job, decode_job_unref);
  if (self->capture_fd >= 0)
    close (self->capture_fd);
  if (self->go_fd >= 0)
    close (self->go_fd);
  if (self->exec_fd >= 0)
    close (self->exec_fd);
  G_OBJECT_CLASS (sysprof_recording_parent_class)->finalize (object);
}

static void
sysprof_recording_class_init (SysprofRecordingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sysprof_recording_dispose;
  object_class->finalize = sysprof_recording_finalize;

  signals[PHASE_CHANGED] =
      g_signal_new ("phase-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[PROGRESS] =
      g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sysprof_recording_init (SysprofRecording *self)
{
  self->pids = g_array_new (FALSE, FALSE, sizeof (int));
  self->cpu_sampling = TRUE;
  self->decode = TRUE;
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->capture_fd = -1;
  self->go_fd = -1;
  self->exec_fd = -1;
  self->wait_status = -1;
  self->trace_fds[0] = self->trace_fds[1] = -1;
  self->peers = g_ptr_array_new_with_free_func ((GDestroyNotify) _sysprof_recording_peer_free);
  self->dbus_fd = -1;
}

SysprofRecording *
sysprof_recording_new (void)
{
  return g_object_new (SYSPROF_TYPE_RECORDING, NULL);
}

/* Setters. */

void
sysprof_recording_set_capture_path (SysprofRecording *self, const char *path, gboolean force)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (path != NULL && *path != 0);

  g_free (self->capture_path);
  self->capture_path = g_strdup (path);
  self->force = force;
}

void
sysprof_recording_set_frequency (SysprofRecording *self, guint frequency_hz)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (frequency_hz <= MAX_FREQUENCY);

  self->frequency = frequency_hz;
}

void
sysprof_recording_set_unwind (SysprofRecording *self, SysprofPerfUnwind unwind)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (unwind == SYSPROF_PERF_UNWIND_DEFAULT || unwind == SYSPROF_PERF_UNWIND_FRAME_POINTERS ||
                    unwind == SYSPROF_PERF_UNWIND_DWARF);

  self->unwind = unwind;
}

void
sysprof_recording_set_stack_size (SysprofRecording *self, guint bytes)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (bytes % 8 == 0 && bytes <= SYSPROF_DBUS_MAX_STACK_SIZE);

  self->stack_size = bytes;
}

void
sysprof_recording_add_pid (SysprofRecording *self, GPid pid)
{
  int value = pid;

  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (pid > 0);

  g_array_append_val (self->pids, value);
}

void
sysprof_recording_set_cpu_sampling (SysprofRecording *self, gboolean cpu_sampling)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  self->cpu_sampling = !!cpu_sampling;
}

void
sysprof_recording_set_counters (SysprofRecording *self, const char *const *counters)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  g_strfreev (self->counters);
  self->counters = g_strdupv ((char **) counters);
}

G_STATIC_ASSERT (SYSPROF_RECORDING_MAX_BYTES == SYSPROF_DBUS_MAX_BYTES);

void
sysprof_recording_set_max_bytes (SysprofRecording *self, guint64 bytes)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (bytes <= SYSPROF_RECORDING_MAX_BYTES);

  self->max_bytes = bytes;
}

void
sysprof_recording_set_max_duration (SysprofRecording *self, guint seconds)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (seconds <= MAX_DURATION);

  self->max_duration = seconds;
}

void
sysprof_recording_set_command (SysprofRecording *self, const char *const *argv)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (argv == NULL || argv[0] != NULL);

  g_strfreev (self->argv);
  self->argv = g_strdupv ((char **) argv);
}

void
sysprof_recording_set_working_directory (SysprofRecording *self, const char *directory)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  g_free (self->working_directory);
  self->working_directory = g_strdup (directory);
}

void
sysprof_recording_setenv (SysprofRecording *self, const char *variable, const char *value)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (variable != NULL && *variable != 0 && strchr (variable, '=') == NULL);
  g_return_if_fail (value != NULL);

  if (self->envp == NULL)
    self->envp = g_get_environ ();
  self->envp = g_environ_setenv (self->envp, variable, value, TRUE);
}

void
sysprof_recording_set_decode (SysprofRecording *self, gboolean decode)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  self->decode = !!decode;
}

/* Getters. */

void
sysprof_recording_set_memory_tracing (SysprofRecording *self, gboolean memory)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  self->memory = !!memory;
}

void
sysprof_recording_set_trace_fd (SysprofRecording *self, gboolean trace_fd)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  if (trace_fd)
    self->traces |= 1u << SYSPROF_RECORDING_TRACE_FD;
  else
    self->traces &= ~(1u << SYSPROF_RECORDING_TRACE_FD);
}

void
sysprof_recording_set_gjs (SysprofRecording *self, gboolean gjs)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  if (gjs)
    self->traces |= 1u << SYSPROF_RECORDING_TRACE_GJS;
  else
    self->traces &= ~(1u << SYSPROF_RECORDING_TRACE_GJS);
}

void
sysprof_recording_set_scheduler (SysprofRecording *self, gboolean scheduler)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  self->scheduler = !!scheduler;
}

void
sysprof_recording_set_session_bus (SysprofRecording *self, gboolean session_bus)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  self->session_bus = !!session_bus;
}

void
sysprof_recording_set_system_bus (SysprofRecording *self, gboolean system_bus)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  self->system_bus = !!system_bus;
}

void
sysprof_recording_set_follow_children (SysprofRecording *self, gboolean follow_children)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);

  self->follow_children = !!follow_children;
}

SysprofRecordingPhase
sysprof_recording_get_phase (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), SYSPROF_RECORDING_PHASE_IDLE);
  return self->phase;
}

SysprofRecordingMode
sysprof_recording_get_mode (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), SYSPROF_RECORDING_MODE_NONE);
  return self->mode;
}

gint64
sysprof_recording_get_elapsed (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), 0);

  if (self->start_time == 0)
    return 0;
  return (self->end_time ? self->end_time : g_get_monotonic_time ()) - self->start_time;
}

guint64
sysprof_recording_get_n_samples (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), 0);
  return self->n_samples;
}

guint64
sysprof_recording_get_n_allocation_records (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), 0);
  return self->n_allocation_records;
}

guint64
sysprof_recording_get_n_bytes (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), 0);
  return self->n_bytes;
}

guint64
sysprof_recording_get_n_lost (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), 0);
  return self->n_lost;
}

char *
sysprof_recording_dup_fetch_progress (SysprofRecording *self, guint64 *done, guint64 *total)
{
  char   *file = NULL;
  guint64 d = 0, t = 0;

  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), NULL);

  if (self->decode_job != NULL)
    {
      g_mutex_lock (&self->decode_job->mutex);
      file = g_strdup (self->decode_job->fetch_file);
      d = self->decode_job->fetch_done;
      t = self->decode_job->fetch_total;
      g_mutex_unlock (&self->decode_job->mutex);
    }
  if (done != NULL)
    *done = d;
  if (total != NULL)
    *total = t;
  return file;
}

void
sysprof_recording_get_decode_progress (SysprofRecording *self, guint64 *done, guint64 *total)
{
  guint64 d = 0, t = 0;

  g_return_if_fail (SYSPROF_IS_RECORDING (self));

  if (self->decode_job != NULL)
    {
      g_mutex_lock (&self->decode_job->mutex);
      d = self->decode_job->done;
      t = self->decode_job->total;
      g_mutex_unlock (&self->decode_job->mutex);
    }
  if (done != NULL)
    *done = d;
  if (total != NULL)
    *total = t;
}

GPid
sysprof_recording_get_command_pid (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), 0);
  return self->command_pid;
}

int
sysprof_recording_get_command_wait_status (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), -1);
  return self->wait_status;
}

const char *
sysprof_recording_get_stop_reason (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), NULL);
  return self->stop_reason;
}

const char *const *
sysprof_recording_get_warnings (SysprofRecording *self)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), NULL);
  return (const char *const *) self->warnings->pdata;
}

/* Helpers. */

static void
set_phase (SysprofRecording *self, SysprofRecordingPhase phase)
{
  if (self->phase == phase)
    return;
  self->phase = phase;
  g_signal_emit (self, signals[PHASE_CHANGED], 0);
}

void
_sysprof_recording_add_warning (SysprofRecording *self, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_insert (self->warnings, (int) self->warnings->len - 1, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
set_stop_reason (SysprofRecording *self, const char *reason)
{
  if (self->stop_reason == NULL && reason != NULL)
    self->stop_reason = g_strdup (reason);
}

static GError *error_new (GIOErrorEnum code, const char *format, ...) G_GNUC_PRINTF (2, 3);

static GError *
error_new (GIOErrorEnum code, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list          args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return g_error_new_literal (G_IO_ERROR, code, message);
}

/* "GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: text" → "text". */
char *
_sysprof_recording_remote_message (const GError *error)
{
  g_autoptr (GError) copy = g_error_copy (error);

  g_dbus_error_strip_remote_error (copy);
  return g_strdup (copy->message);
}

static gboolean
is_daemon_missing (const GError *error)
{
  return g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_EXEC_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FORK_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_CHILD_EXITED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_CHILD_SIGNALED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND);
}

/* The session or sysprofd itself is gone. */
static gboolean
is_session_gone (const GError *error)
{
  return is_daemon_missing (error) || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
}

/* The capture file. */

static gboolean
open_capture (SysprofRecording *self, GError **error)
{
  struct stat st;
  int         fd;
  int         saved;

  /* O_EXCL also refuses to follow a symlink planted where the file goes. */
  fd = open (self->capture_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd >= 0)
    self->created = TRUE;
  else if (errno == EEXIST && self->force)
    fd = open (self->capture_path, O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      saved = errno;
      if (saved == EEXIST)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "%s already exists", self->capture_path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot open %s: %s", self->capture_path,
                     g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s is not a regular file", self->capture_path);
      close (fd);
      return FALSE;
    }
  self->capture_fd = fd;
  self->dev = st.st_dev;
  self->ino = st.st_ino;
  return TRUE;
}

/* An existing capture is only cut once the recording is about to start. */
static gboolean
truncate_capture (SysprofRecording *self, GError **error)
{
  if (ftruncate (self->capture_fd, 0) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot truncate %s: %s", self->capture_path,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* Only the file we created, and only if the name still points to it. */
static void
remove_created_capture (SysprofRecording *self)
{
  struct stat st;

  if (self->created && stat (self->capture_path, &st) == 0 && st.st_dev == self->dev && st.st_ino == self->ino)
    unlink (self->capture_path);
  self->created = FALSE;
}

static void
decode_progress (guint64 done, guint64 total, gpointer data)
{
  DecodeJob *job = data;

  g_mutex_lock (&job->mutex);
  job->done = done;
  job->total = total;
  g_mutex_unlock (&job->mutex);
}

static void
decode_fetch_progress (const char *file, guint64 done, guint64 total, gpointer data)
{
  DecodeJob *job = data;

  g_mutex_lock (&job->mutex);
  g_free (job->fetch_file);
  job->fetch_file = g_strdup (file);
  job->fetch_done = done;
  job->fetch_total = total;
  g_mutex_unlock (&job->mutex);
}

static void
decode_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  DecodeJob *job = task_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = sysprof_symbolizer_new ();
  g_autoptr (GBytes) frames = NULL;
  SysprofCaptureReader *reader;
  SysprofCaptureError   cerr = { 0 };
  int                   rfd;
  gboolean              abandoned;

  (void) source_object;

  if ((rfd = fcntl (job->capture_fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      (reader = sysprof_capture_reader_new_from_fd_with_error (rfd, &cerr)) == NULL)
    {
      sysprof_set_capture_error (&error, &cerr, "Cannot read the capture");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!sysprof_symbolizer_load (symbolizer, reader, &error))
    {
      sysprof_capture_reader_unref (reader);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  sysprof_capture_reader_unref (reader);
  /* JIT compilers' names of their code, read now, while the processes may
   * still run and before /tmp is cleaned: they are embedded with the table. */
  sysprof_symbolizer_read_perf_maps (symbolizer);
  /* Processes that may still run in containers or Flatpak sandboxes: sysprofd
   * knows their debug directories and the host paths of their files. */
  if (job->bus != NULL)
    _sysprof_host_resolver_attach (symbolizer, job->bus);
  sysprof_symbolizer_set_fetch_progress (symbolizer, decode_fetch_progress, job);

  frames = sysprof_symbol_map_build (job->capture_fd, symbolizer, decode_progress, job, cancellable, &error);
  g_mutex_lock (&job->mutex);
  job->missing_debug_info = sysprof_symbolizer_dup_missing_debug_info (symbolizer);
  g_mutex_unlock (&job->mutex);
  if (frames == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_mutex_lock (&job->mutex);
  abandoned = job->abandoned;
  job->committing = !abandoned;
  g_mutex_unlock (&job->mutex);
  if (abandoned)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Decoding was abandoned");
      return;
    }
  if (!sysprof_symbol_map_append (job->capture_fd, frames, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
decode_done_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GError) error = NULL;
  DecodeJob *job = g_task_get_task_data (G_TASK (result));

  (void) source;
  if (!g_task_propagate_boolean (G_TASK (result), &error) && self->decode_job == job)
    _sysprof_recording_add_warning (self, "the symbol table could not be added, the capture has none: %s",
                                    error->message);
  if (self->decode_job != job)
    return; /* abandoned: the recording already moved on */
  if (job->missing_debug_info != NULL)
    _sysprof_recording_add_warning (self, "%s", job->missing_debug_info);
  g_clear_pointer (&self->decode_job, decode_job_unref);
  _sysprof_recording_maybe_complete (self);
}

static void
start_decoding (SysprofRecording *self)
{
  g_autoptr (GTask) task = NULL;
  DecodeJob *job;
  int        fd;

  if ((fd = fcntl (self->capture_fd, F_DUPFD_CLOEXEC, 3)) < 0)
    {
      _sysprof_recording_add_warning (self, "the symbol table could not be added: %s", g_strerror (errno));
      return;
    }
  job = g_new0 (DecodeJob, 1);
  job->ref_count = 1;
  g_mutex_init (&job->mutex);
  job->capture_fd = fd;
  job->cancellable = g_cancellable_new ();
  if (self->bus != NULL)
    job->bus = g_object_ref (self->bus);
  self->decode_job = job;

  /* No source object: an abandoned thread must not keep anything of ours
   * busy but its own copy. */
  task = g_task_new (NULL, job->cancellable, decode_done_cb, g_object_ref (self));
  g_task_set_task_data (task, decode_job_ref (job), (GDestroyNotify) decode_job_unref);
  g_task_run_in_thread (task, decode_thread);
  set_phase (self, SYSPROF_RECORDING_PHASE_DECODING);
}

static void
abandon_decoding (SysprofRecording *self)
{
  DecodeJob *job = self->decode_job;
  gboolean   abandoned;

  g_mutex_lock (&job->mutex);
  abandoned = !job->committing;
  job->abandoned = abandoned;
  g_mutex_unlock (&job->mutex);
  if (abandoned)
    g_cancellable_cancel (job->cancellable);
  /* Once the table is being copied in, finishing is quicker than undoing. */
  if (!abandoned)
    return;
  _sysprof_recording_add_warning (self, "decoding was abandoned: the capture has no symbol table");
  g_clear_pointer (&self->decode_job, decode_job_unref);
  _sysprof_recording_maybe_complete (self);
}

/* The end. */

void
_sysprof_recording_maybe_complete (SysprofRecording *self)
{
  g_autoptr (GTask) task = NULL;

  if (!self->ending || self->command_alive || self->decode_job != NULL ||
      self->phase == SYSPROF_RECORDING_PHASE_FINISHED)
    return;

  g_clear_handle_id (&self->poll_source, g_source_remove);
  g_clear_handle_id (&self->duration_source, g_source_remove);
  g_clear_handle_id (&self->kill_source, g_source_remove);
  drop_bus (self);
  if (self->capture_fd >= 0)
    {
      close (self->capture_fd);
      self->capture_fd = -1;
    }

  task = g_steal_pointer (&self->task);
  set_phase (self, SYSPROF_RECORDING_PHASE_FINISHED);
  if (self->error != NULL)
    g_task_return_error (task, g_steal_pointer (&self->error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
close_session (SysprofRecording *self)
{
  if (self->session == NULL)
    return;
  ipc_session_call_close (self->session, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
  drop_session (self);
}

/* The capture is finalized and the command gone (or it wrote no capture of
 * its own): its captures are merged, then the symbol table is built. */
void
_sysprof_recording_capture_done (SysprofRecording *self)
{
  if (!self->capture_done || (self->traces != 0 && self->command_alive) || _sysprof_recording_peers_busy (self) ||
      self->ending)
    return;
  /* The session bus was monitored until now: the bus had time to pass on
   * the last messages of the command. */
  _sysprof_recording_dbus_stop (self);
  if ((self->traces != 0 || self->peers->len > 0 || self->dbus_fd >= 0) && self->error == NULL && self->capture_fd >= 0)
    _sysprof_recording_traces_merge (self, self->capture_fd);
  g_clear_object (&self->peer_bus);
  if (self->error == NULL && self->decode && !self->skip_decode)
    start_decoding (self);
  self->ending = TRUE;
  _sysprof_recording_maybe_complete (self);
}

static void
after_stop (SysprofRecording *self)
{
  self->capture_done = TRUE;
  _sysprof_recording_capture_done (self);
}

/* Keeps the first error; reports it once everything is cleaned up. */
static void
fail (SysprofRecording *self, GError *error)
{
  if (self->error == NULL)
    self->error = error;
  else
    g_error_free (error);

  switch (self->phase)
    {
    case SYSPROF_RECORDING_PHASE_STARTING:
      _sysprof_recording_abandon_held_command (self);
      close_session (self);
      g_clear_object (&self->control);
      g_clear_object (&self->drainer);
      g_clear_object (&self->local);
      g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
      remove_created_capture (self);
      self->ending = TRUE;
      _sysprof_recording_maybe_complete (self);
      break;
    case SYSPROF_RECORDING_PHASE_RECORDING:
      /* Finalize what was recorded; the file stays. */
      _sysprof_recording_begin_stop (self, "failed");
      break;
    case SYSPROF_RECORDING_PHASE_STOPPING:
      close_session (self);
      after_stop (self);
      break;
    case SYSPROF_RECORDING_PHASE_IDLE:
    case SYSPROF_RECORDING_PHASE_DECODING:
    case SYSPROF_RECORDING_PHASE_FINISHED:
    default: break;
    }
}

/* Progress. */

/* The counts are properties that emit no PropertiesChanged, so the proxy's
 * cache of them would never change: they are read with
 * org.freedesktop.DBus.Properties.GetAll (no part of the interface XML, so
 * not generated), on the session's object and unique name. */
static void
get_session_properties (SysprofRecording *self, GAsyncReadyCallback callback)
{
  GDBusProxy *proxy = G_DBUS_PROXY (self->session);

  g_dbus_proxy_call (proxy, "org.freedesktop.DBus.Properties.GetAll",
                     g_variant_new ("(s)", g_dbus_proxy_get_interface_name (proxy)), G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                     callback, g_object_ref (self));
}

static GVariant *
get_session_properties_finish (GObject *source, GAsyncResult *result, GError **error)
{
  g_autoptr (GVariant) reply = g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, error);

  if (reply != NULL && !g_variant_is_of_type (reply, G_VARIANT_TYPE ("(a{sv})")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "GetAll returned %s",
                   g_variant_get_type_string (reply));
      return NULL;
    }
  return g_steal_pointer (&reply);
}

static void
update_from_properties (SysprofRecording *self, GVariant *reply, char **state)
{
  g_autoptr (GVariant) props = g_variant_get_child_value (reply, 0);
  g_autofree const char **warnings = NULL;

  g_variant_lookup (props, "BytesWritten", "t", &self->n_bytes);
  g_variant_lookup (props, "Samples", "t", &self->n_samples);
  g_variant_lookup (props, "AllocationRecords", "t", &self->n_allocation_records);
  g_variant_lookup (props, "LostFrames", "t", &self->n_lost);
  /* The session's warnings (what its capture lacks), each once: the list
   * only grows. */
  if (g_variant_lookup (props, "Warnings", "^a&s", &warnings))
    for (guint n = g_strv_length ((char **) warnings); self->n_remote_warnings < n; self->n_remote_warnings++)
      _sysprof_recording_add_warning (self, "%s", warnings[self->n_remote_warnings]);
  if (state != NULL && !g_variant_lookup (props, "State", "s", state))
    *state = NULL;
}

static void
update_from_writer (SysprofRecording *self)
{
  SysprofCaptureStat stat;

  sysprof_capture_writer_stat (self->writer, &stat);
  self->n_samples = stat.frame_count[SYSPROF_CAPTURE_FRAME_SAMPLE];
  /* Allocations and frees: ALLOCATION frames, and the events of the
   * memory streams the drainer took. */
  self->n_allocation_records = stat.frame_count[SYSPROF_CAPTURE_FRAME_ALLOCATION] +
                               (self->drainer ? sysprof_ring_drainer_get_n_stream_events (self->drainer) : 0);
  self->n_bytes = sysprof_capture_writer_get_size (self->writer);
  self->n_lost = (self->local ? sysprof_session_recorder_get_n_lost (self->local) : 0) +
                 (self->drainer ? sysprof_ring_drainer_get_n_lost (self->drainer) : 0);
}

static void
poll_reply_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *state = NULL;

  self->poll_pending = FALSE;
  reply = get_session_properties_finish (source, result, &error);
  if (self->phase != SYSPROF_RECORDING_PHASE_RECORDING)
    return;
  if (reply == NULL)
    {
      g_autofree char *message = _sysprof_recording_remote_message (error);

      /* A slow answer is no reason to stop; a vanished session is. */
      if (is_session_gone (error))
        fail (self, error_new (G_IO_ERROR_FAILED, "sysprofd ended the session unexpectedly: %s", message));
      return;
    }
  update_from_properties (self, reply, &state);
  g_signal_emit (self, signals[PROGRESS], 0);
  if (g_strcmp0 (state, "stopped") == 0)
    _sysprof_recording_begin_stop (self, "sysprofd stopped the session");
  else if (g_strcmp0 (state, "failed") == 0)
    fail (self, error_new (G_IO_ERROR_FAILED, "sysprofd ended the recording: %s",
                           self->stop_reason ? self->stop_reason : "the session failed"));
}

static gboolean
poll_cb (gpointer data)
{
  SysprofRecording *self = data;

  self->n_ticks++;
  if (self->phase == SYSPROF_RECORDING_PHASE_DECODING)
    g_signal_emit (self, signals[PROGRESS], 0);
  if (self->phase != SYSPROF_RECORDING_PHASE_RECORDING)
    return G_SOURCE_CONTINUE;

  if (self->mode == SYSPROF_RECORDING_MODE_IN_PROCESS)
    {
      /* Once a second the file catches up, as sysprofd does. */
      if (self->n_ticks % (1000 / POLL_MS) == 0)
        sysprof_capture_writer_flush (self->writer);
      update_from_writer (self);
      g_signal_emit (self, signals[PROGRESS], 0);
    }
  else if (!self->poll_pending)
    {
      self->poll_pending = TRUE;
      get_session_properties (self, poll_reply_cb);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
duration_cb (gpointer data)
{
  SysprofRecording *self = data;

  self->duration_source = 0;
  _sysprof_recording_begin_stop (self, "stopped after the maximum duration");
  return G_SOURCE_REMOVE;
}

static void
recording_started (SysprofRecording *self)
{
  g_autoptr (GError) error = NULL;

  self->start_time = g_get_monotonic_time ();
  self->poll_source = g_timeout_add (POLL_MS, poll_cb, self);
  if (self->max_duration > 0)
    self->duration_source = g_timeout_add (self->max_duration * 1000, duration_cb, self);
  set_phase (self, SYSPROF_RECORDING_PHASE_RECORDING);
  if (self->control != NULL)
    _sysprof_recording_start_control (self);
  _sysprof_recording_peers_start (self);
  if (self->go_fd >= 0 && !_sysprof_recording_release_command (self, &error))
    fail (self, g_steal_pointer (&error));
}

/* Stopping. */

static void
final_properties_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GVariant) reply = get_session_properties_finish (source, result, NULL);

  if (reply != NULL)
    update_from_properties (self, reply, NULL);
  close_session (self);
  after_stop (self);
}

static void
stop_reply_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GError) error = NULL;

  if (!ipc_session_call_stop_finish (IPC_SESSION (source), result, &error))
    {
      g_autofree char *message = _sysprof_recording_remote_message (error);

      fail (self, error_new (G_IO_ERROR_FAILED, "sysprofd could not finalize the capture: %s", message));
      return;
    }
  get_session_properties (self, final_properties_cb);
}

void
_sysprof_recording_begin_stop (SysprofRecording *self, const char *reason)
{
  if (self->phase != SYSPROF_RECORDING_PHASE_RECORDING)
    return;

  set_stop_reason (self, reason);
  self->end_time = g_get_monotonic_time ();
  g_clear_handle_id (&self->duration_source, g_source_remove);
  set_phase (self, SYSPROF_RECORDING_PHASE_STOPPING);
  _sysprof_recording_terminate_command (self);
  _sysprof_recording_peers_stop (self);
  /* Threads started from now on are not traced; rings given stay drained. */
  if (self->control != NULL)
    sysprof_control_channel_close (self->control);

  if (self->mode == SYSPROF_RECORDING_MODE_DAEMON)
    {
      ipc_session_call_stop (self->session, G_DBUS_CALL_FLAGS_NONE, SLOW_CALL_MS, NULL, stop_reply_cb,
                             g_object_ref (self));
      return;
    }

  {
    g_autoptr (GError) error = NULL;

    /* The rings' last frames come before the kernel symbols of the stop. */
    if (self->drainer != NULL)
      sysprof_ring_drainer_close (self->drainer);
    if (self->local != NULL && !sysprof_session_recorder_stop (self->local, &error))
      {
        if (self->error == NULL)
          self->error = g_steal_pointer (&error);
      }
    else if (self->local == NULL && !sysprof_capture_writer_flush (self->writer) && self->error == NULL)
      {
        int saved = errno;

        self->error = error_new (g_io_error_from_errno (saved), "The capture could not be written completely: %s",
                                 g_strerror (saved));
      }
    update_from_writer (self);
    g_clear_object (&self->local);
    /* The last reference: rewrites the header's end time and closes. */
    g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
    after_stop (self);
  }
}

void
sysprof_recording_stop (SysprofRecording *self)
{
  g_return_if_fail (SYSPROF_IS_RECORDING (self));

  switch (self->phase)
    {
    case SYSPROF_RECORDING_PHASE_STARTING:
      fail (self, error_new (G_IO_ERROR_CANCELLED, "Stopped before recording started"));
      break;
    case SYSPROF_RECORDING_PHASE_RECORDING: _sysprof_recording_begin_stop (self, "stopped"); break;
    case SYSPROF_RECORDING_PHASE_STOPPING: self->skip_decode = TRUE; break;
    case SYSPROF_RECORDING_PHASE_DECODING:
      if (self->decode_job != NULL)
        abandon_decoding (self);
      break;
    case SYSPROF_RECORDING_PHASE_IDLE:
    case SYSPROF_RECORDING_PHASE_FINISHED:
    default: break;
    }
}

/* Starting. */

static void
local_warning_cb (SysprofSessionRecorder *recorder, const char *message, gpointer data)
{
  (void) recorder;
  _sysprof_recording_add_warning (data, "%s", message);
}

/* Root without sysprofd: the instruments run here. */
static void
start_in_process (SysprofRecording *self)
{
  SysprofSessionRecorderOptions options = SYSPROF_SESSION_RECORDER_OPTIONS_INIT;
  g_autoptr (GError) error = NULL;
  int fd;

  self->mode = SYSPROF_RECORDING_MODE_IN_PROCESS;
  drop_bus (self);
  if (!truncate_capture (self, &error))
    {
      fail (self, g_steal_pointer (&error));
      return;
    }
  if ((fd = fcntl (self->capture_fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      !(self->writer = sysprof_capture_writer_new_from_fd (fd, 0)))
    {
      int saved = errno;
      fail (self,
            error_new (g_io_error_from_errno (saved), "Cannot write %s: %s", self->capture_path, g_strerror (saved)));
      return;
    }
  /* The command's rings (its collector, the memory tracker). */
  if (self->argv != NULL)
    self->drainer = sysprof_ring_drainer_new (0);
  /* Unprivileged, the only instrument is the tracker in the command, which
   * describes its own process: no /proc snapshot, no kernel symbols. */
  if (geteuid () == 0)
    {
      options.cpu_sampling = self->cpu_sampling;
      options.frequency_hz = self->frequency;
      options.pids = (const int *) (gpointer) self->pids->data;
      options.n_pids = self->pids->len;
      options.counters = (const char *const *) self->counters;
      options.unwind = (SysprofPerfUnwind) self->unwind;
      options.stack_size = self->stack_size;
      options.unwinder_path = _sysprof_recording_find_unwinder ();
      options.embed_perf_maps = TRUE;
      options.scheduler = self->scheduler;
      options.system_bus = self->system_bus;
      self->local = sysprof_session_recorder_new (self->writer);
      g_signal_connect (self->local, "warning", G_CALLBACK (local_warning_cb), self);
      if (!sysprof_session_recorder_start (self->local, &options, &error))
        {
          fail (self, g_steal_pointer (&error));
          return;
        }
    }
  if (self->drainer != NULL)
    sysprof_ring_drainer_set_writer (self->drainer, self->writer);
  recording_started (self);
}

static void
daemon_missing (SysprofRecording *self, const char *why)
{
  if (geteuid () == 0)
    {
      start_in_process (self);
      return;
    }
  /* The tracker in our own command needs no privilege. */
  if (self->memory)
    {
      if (self->cpu_sampling || (self->counters != NULL && self->counters[0] != NULL))
        _sysprof_recording_add_warning (
            self,
            "sysprofd is not running (%s): recording memory allocations only (CPU sampling and counters "
            "need sysprofd or root)",
            why);
      start_in_process (self);
      return;
    }
  fail (self,
        error_new (G_IO_ERROR_NOT_FOUND,
                   "sysprofd is not running (%s): install it or start it with \"systemctl start sysprof3\"", why));
}

static void
start_reply_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GError) error = NULL;
  gboolean started;

  started = ipc_session_call_start_finish (IPC_SESSION (source), result, &error);
  if (self->phase != SYSPROF_RECORDING_PHASE_STARTING)
    return;
  if (!started)
    {
      g_autofree char *message = _sysprof_recording_remote_message (error);

      fail (self, error_new (G_IO_ERROR_FAILED, "sysprofd could not start recording: %s", message));
      return;
    }
  recording_started (self);
}

static void
set_capture_fd_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GError) error = NULL;
  gboolean accepted;

  accepted = ipc_session_call_set_capture_fd_finish (IPC_SESSION (source), NULL, result, &error);
  if (self->phase != SYSPROF_RECORDING_PHASE_STARTING)
    return;
  if (!accepted)
    {
      g_autofree char *message = _sysprof_recording_remote_message (error);

      fail (self, error_new (G_IO_ERROR_FAILED, "sysprofd refused the capture file: %s", message));
      return;
    }
  ipc_session_call_start (self->session, G_DBUS_CALL_FLAGS_NONE, SLOW_CALL_MS, NULL, start_reply_cb,
                          g_object_ref (self));
}

/* Only from the session's object on sysprofd's unique name, with the
 * signature of the interface XML (the proxy drops anything else). */
static void
finished_cb (IpcSession *session, gboolean success, const char *message, gpointer data)
{
  SysprofRecording *self = data;

  (void) session;
  if (self->phase != SYSPROF_RECORDING_PHASE_RECORDING)
    return;
  set_stop_reason (self, message);
  if (success)
    _sysprof_recording_begin_stop (self, message);
  else
    fail (self, error_new (G_IO_ERROR_FAILED, "sysprofd ended the recording: %s", message));
}

static void
bus_closed_cb (GDBusConnection *connection, gboolean remote_peer_vanished, GError *error, gpointer data)
{
  SysprofRecording *self = data;

  (void) connection;
  (void) remote_peer_vanished;
  if (self->phase == SYSPROF_RECORDING_PHASE_STARTING || self->phase == SYSPROF_RECORDING_PHASE_RECORDING)
    fail (self, error_new (G_IO_ERROR_CLOSED, "Lost the connection to the system bus%s%s", error ? ": " : "",
                           error ? error->message : ""));
}

static GError *
create_session_error (const GError *error)
{
  g_autofree char *message = _sysprof_recording_remote_message (error);

  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_AUTH_FAILED))
    {
      /* dbus-daemon's own refusals say so; sysprofd's come from polkit. */
      if (strstr (message, "Rejected send message") != NULL)
        return error_new (G_IO_ERROR_PERMISSION_DENIED,
                          "the system bus policy does not let this user call sysprofd: %s", message);
      return error_new (G_IO_ERROR_PERMISSION_DENIED, "not authorized to profile (polkit action %s): %s", POLKIT_ACTION,
                        g_str_has_prefix (message, DENIED_PREFIX) ? message + strlen (DENIED_PREFIX) : message);
    }
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_INTERFACE) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT))
    return error_new (G_IO_ERROR_NOT_SUPPORTED, "the sysprofd on this system has no %s: %s", MANAGER_IFACE, message);
  return error_new (G_IO_ERROR_FAILED, "sysprofd could not create a recording session: %s", message);
}

static void
create_session_failed (SysprofRecording *self, const GError *error)
{
  if (is_daemon_missing (error))
    daemon_missing (self, "org.gnome.Sysprof3 is not on the system bus");
  else
    fail (self, create_session_error (error));
}

static void
session_ready_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (IpcSession) session = NULL;
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GError) error = NULL;

  (void) source;
  session = ipc_session_proxy_new_finish (result, &error);
  if (self->phase != SYSPROF_RECORDING_PHASE_STARTING)
    {
      /* Abandoned meanwhile: closed as fail() closes a session it knows. */
      if (session != NULL)
        ipc_session_call_close (session, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
      return;
    }
  if (session == NULL)
    {
      fail (self, create_session_error (error));
      return;
    }
  self->session = g_steal_pointer (&session);
  self->finished_id = g_signal_connect (self->session, "finished", G_CALLBACK (finished_cb), self);

  fds = g_unix_fd_list_new ();
  if (!truncate_capture (self, &error) || g_unix_fd_list_append (fds, self->capture_fd, &error) < 0)
    {
      fail (self, g_steal_pointer (&error));
      return;
    }
  ipc_session_call_set_capture_fd (self->session, g_variant_new_handle (0), G_DBUS_CALL_FLAGS_NONE, -1, fds, NULL,
                                   set_capture_fd_cb, g_object_ref (self));
}

static void
create_session_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *session_path = NULL;
  g_autofree char *daemon = NULL;
  gboolean         created;

  created =
      ipc_session_manager_call_create_session_finish (IPC_SESSION_MANAGER (source), &session_path, result, &error);

  /* Abandoned meanwhile: the connection is closed, and the session with it. */
  if (self->phase != SYSPROF_RECORDING_PHASE_STARTING)
    return;
  if (!created)
    {
      create_session_failed (self, error);
      return;
    }

  self->mode = SYSPROF_RECORDING_MODE_DAEMON;
  /* Later calls and signals go to and come from this very daemon: the unique
   * name the manager's proxy sent CreateSession to, or followed the
   * well-known name to when the call started sysprofd (the bus announces the
   * new owner before delivering the call, so before the answer). */
  daemon = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (source));
  if (daemon == NULL)
    {
      fail (self,
            error_new (G_IO_ERROR_FAILED, "sysprofd could not create a recording session: %s has no owner", BUS_NAME));
      return;
    }
  /* Nothing to load and a unique name to follow: ready without a round trip. */
  ipc_session_proxy_new (self->bus, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES, daemon, session_path, NULL,
                         session_ready_cb, g_object_ref (self));
}

static GVariant *
session_options (SysprofRecording *self)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "cpu-sampling", g_variant_new_boolean (self->cpu_sampling));
  if (self->frequency > 0)
    g_variant_builder_add (&builder, "{sv}", "frequency", g_variant_new_uint32 (self->frequency));
  if (self->unwind != SYSPROF_PERF_UNWIND_DEFAULT)
    g_variant_builder_add (&builder, "{sv}", "unwind",
                           g_variant_new_string (self->unwind == SYSPROF_PERF_UNWIND_DWARF
                                                     ? SYSPROF_DBUS_UNWIND_DWARF
                                                     : SYSPROF_DBUS_UNWIND_FRAME_POINTERS));
  if (self->stack_size > 0)
    g_variant_builder_add (&builder, "{sv}", "stack-size", g_variant_new_uint32 (self->stack_size));
  if (self->pids->len > 0)
    g_variant_builder_add (
        &builder, "{sv}", "pids",
        g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, self->pids->data, self->pids->len, sizeof (gint32)));
  if (self->counters != NULL && self->counters[0] != NULL)
    g_variant_builder_add (&builder, "{sv}", "counters", g_variant_new_strv ((const char *const *) self->counters, -1));
  if (self->max_bytes > 0)
    g_variant_builder_add (&builder, "{sv}", "max-bytes", g_variant_new_uint64 (self->max_bytes));
  if (self->scheduler)
    g_variant_builder_add (&builder, "{sv}", SYSPROF_DBUS_OPTION_SCHEDULER, g_variant_new_boolean (TRUE));
  if (self->system_bus)
    g_variant_builder_add (&builder, "{sv}", "system-bus", g_variant_new_boolean (TRUE));
  /* Our own timer stops first; this is in case we cannot. */
  if (self->max_duration > 0)
    g_variant_builder_add (&builder, "{sv}", "max-duration",
                           g_variant_new_uint32 (MIN (self->max_duration + 5, MAX_DURATION)));
  return g_variant_builder_end (&builder);
}

static void
manager_ready_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (IpcSessionManager) manager = NULL;
  g_autoptr (GError) error = NULL;

  (void) source;
  manager = ipc_session_manager_proxy_new_finish (result, &error);
  /* Abandoned meanwhile: the connection is closed, or will be. */
  if (self->phase != SYSPROF_RECORDING_PHASE_STARTING)
    return;
  if (manager == NULL)
    {
      create_session_failed (self, error);
      return;
    }
  /* polkit may ask for a password through an agent of the user's session,
   * for as long as the user takes. */
  ipc_session_manager_call_create_session (manager, session_options (self),
                                           G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, G_MAXINT, NULL,
                                           create_session_cb, g_object_ref (self));
}

static void
bus_ready_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus;

  (void) source;
  bus = g_dbus_connection_new_for_address_finish (result, &error);
  if (self->phase != SYSPROF_RECORDING_PHASE_STARTING)
    {
      if (bus != NULL)
        g_dbus_connection_close (bus, NULL, NULL, NULL);
      g_clear_object (&bus);
      return;
    }
  self->bus = bus;
  if (self->bus == NULL)
    {
      g_autofree char *why = g_strdup_printf ("cannot connect to the system bus: %s", error->message);

      daemon_missing (self, why);
      return;
    }
  self->closed_id = g_signal_connect (self->bus, "closed", G_CALLBACK (bus_closed_cb), self);

  /* On the well-known name: constructing asks the bus for its owner and
   * starts nothing; CreateSession starts sysprofd if it is not running, as
   * any call to the name would. */
  ipc_session_manager_proxy_new (self->bus,
                                 G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
                                     G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION,
                                 BUS_NAME, MANAGER_PATH, NULL, manager_ready_cb, g_object_ref (self));
}

void
sysprof_recording_record_async (SysprofRecording *self, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *address = NULL;

  g_return_if_fail (SYSPROF_IS_RECORDING (self));
  g_return_if_fail (self->phase == SYSPROF_RECORDING_PHASE_IDLE);
  g_return_if_fail (self->capture_path != NULL);

  self->task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (self->task, sysprof_recording_record_async);
  set_phase (self, SYSPROF_RECORDING_PHASE_STARTING);

  if (self->working_directory != NULL && !g_file_test (self->working_directory, G_FILE_TEST_IS_DIR))
    {
      fail (self, error_new (G_IO_ERROR_NOT_FOUND, "Cannot run %s in %s: no such directory", self->argv[0],
                             self->working_directory));
      return;
    }
  if (self->argv != NULL && self->working_directory != NULL && strchr (self->argv[0], '/') != NULL &&
      !g_path_is_absolute (self->argv[0]))
    {
      g_autofree char *in_dir = g_build_filename (self->working_directory, self->argv[0], NULL);

      self->program = g_find_program_in_path (in_dir);
    }
  else if (self->argv != NULL)
    self->program = g_find_program_in_path (self->argv[0]);
  if (self->argv != NULL && self->program == NULL)
    {
      fail (self, error_new (G_IO_ERROR_NOT_FOUND, "Cannot run %s: command not found", self->argv[0]));
      return;
    }
  if (self->traces != 0 && self->argv == NULL)
    {
      fail (self, error_new (G_IO_ERROR_INVALID_ARGUMENT,
                             "A trace fd (--use-trace-fd, --gjs) is handed to a command: give one"));
      return;
    }
  if (self->memory && !_sysprof_recording_find_preload (self, &error))
    {
      fail (self, g_steal_pointer (&error));
      return;
    }
  /* Before anything runs, so that the command's first message is seen. */
  if (self->session_bus && !_sysprof_recording_dbus_start (self, &error))
    {
      fail (self, g_steal_pointer (&error));
      return;
    }
  if (!open_capture (self, &error) || (self->argv != NULL && !_sysprof_recording_spawn_held (self, &error)))
    {
      fail (self, g_steal_pointer (&error));
      return;
    }

  /* A connection of our own: the session is bound to it and ends with it. */
  if (!(address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error)))
    {
      g_autofree char *why = g_strdup_printf ("no system bus: %s", error->message);

      daemon_missing (self, why);
      return;
    }
  g_dbus_connection_new_for_address (
      address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
      NULL, bus_ready_cb, g_object_ref (self));
}

gboolean
sysprof_recording_record_finish (SysprofRecording *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (SYSPROF_IS_RECORDING (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
