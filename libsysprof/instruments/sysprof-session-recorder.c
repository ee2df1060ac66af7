// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>

#include "sysprof-counter-recorder.h"
#include "sysprof-dbus-monitor.h"
#include "sysprof-kallsyms.h"
#include "sysprof-perf-recorder.h"
#include "sysprof-proc-snapshot.h"
#include "sysprof-session-recorder.h"

typedef enum
{
  STATE_IDLE,
  STATE_RUNNING,
  STATE_STOPPED,
} State;

struct _SysprofSessionRecorder
{
  GObject parent_instance;

  SysprofCaptureWriter   *writer;
  SysprofPerfRecorder    *perf;       /* kept after stop for its counts */
  SysprofCounterRecorder *counters;   /* NULL without counters */
  SysprofDbusMonitor     *system_bus; /* NULL without system-bus */
  State                   state;
  gboolean                own_processes_only;
  GArray                 *pids; /* int: the /proc snapshot of own_processes_only */
};

enum
{
  WARNING,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SysprofSessionRecorder, sysprof_session_recorder, G_TYPE_OBJECT)

static void
sysprof_session_recorder_dispose (GObject *object)
{
  SysprofSessionRecorder *self = SYSPROF_SESSION_RECORDER (object);

  /* Disposing the instruments stops them; the capture is then not
   * finalized, which is the caller's choice when it did not call stop. */
  g_clear_object (&self->counters);
  g_clear_object (&self->system_bus);
  g_clear_object (&self->perf);
  G_OBJECT_CLASS (sysprof_session_recorder_parent_class)->dispose (object);
}

static void
sysprof_session_recorder_finalize (GObject *object)
{
  SysprofSessionRecorder *self = SYSPROF_SESSION_RECORDER (object);

  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  g_clear_pointer (&self->pids, g_array_unref);
  G_OBJECT_CLASS (sysprof_session_recorder_parent_class)->finalize (object);
}

static void
sysprof_session_recorder_class_init (SysprofSessionRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sysprof_session_recorder_dispose;
  object_class->finalize = sysprof_session_recorder_finalize;

  signals[WARNING] = g_signal_new ("warning", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
sysprof_session_recorder_init (SysprofSessionRecorder *self)
{
  self->state = STATE_IDLE;
}

SysprofSessionRecorder *
sysprof_session_recorder_new (SysprofCaptureWriter *writer)
{
  SysprofSessionRecorder *self;

  g_return_val_if_fail (writer != NULL, NULL);

  self = g_object_new (SYSPROF_TYPE_SESSION_RECORDER, NULL);
  self->writer = sysprof_capture_writer_ref (writer);
  return self;
}

static void warn (SysprofSessionRecorder *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
warn (SysprofSessionRecorder *self, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list          args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_signal_emit (self, signals[WARNING], 0, message);
}

/* Kernel addresses resolve anywhere only with the symbols of this kernel.
 * Only what the samples need: less of the kernel's layout, and not 5 MB
 * for every capture; everything when there is no sampling to tell. */
static void
embed_kernel_symbols (SysprofSessionRecorder *self)
{
  g_autoptr (GError) error = NULL;

  if (!self->own_processes_only &&
      !(self->perf != NULL && sysprof_perf_recorder_get_kernel_addresses (self->perf) != NULL
            ? sysprof_kallsyms_write_for (self->writer, sysprof_perf_recorder_get_kernel_addresses (self->perf), &error)
            : sysprof_kallsyms_write (self->writer, &error)))
    warn (self, "cannot embed kernel symbols: %s", error->message);
}

/* What runs already: processes, their maps and mount namespaces.  A partial
 * snapshot still symbolizes most of a recording. */
static void
write_proc_snapshot (SysprofSessionRecorder *self)
{
  g_autoptr (GError) error = NULL;

  if (!(self->own_processes_only ? sysprof_proc_snapshot_write_pids (
                                       self->writer, (const int *) (gpointer) self->pids->data, self->pids->len, &error)
                                 : sysprof_proc_snapshot_write (self->writer, &error)))
    warn (self, "the /proc snapshot is incomplete: %s", error->message);
}

gboolean
sysprof_session_recorder_start (SysprofSessionRecorder              *self,
                                const SysprofSessionRecorderOptions *options,
                                GError                             **error)
{
  static const SysprofSessionRecorderOptions defaults = SYSPROF_SESSION_RECORDER_OPTIONS_INIT;
  g_autoptr (GError) local_error = NULL;

  g_return_val_if_fail (SYSPROF_IS_SESSION_RECORDER (self), FALSE);
  g_return_val_if_fail (self->state == STATE_IDLE, FALSE);
  g_return_val_if_fail (options == NULL || options->size >= sizeof *options, FALSE);

  if (options == NULL)
    options = &defaults;
  if (options->scheduler && (!options->cpu_sampling || options->own_processes_only))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   options->own_processes_only
                       ? "Scheduler details show every task's switches: not for a recording of the caller's own "
                         "processes only"
                       : "Scheduler details are recorded with the CPU samples: not without sampling");
      return FALSE;
    }

  self->own_processes_only = options->own_processes_only;
  g_clear_pointer (&self->pids, g_array_unref);
  self->pids = g_array_sized_new (FALSE, FALSE, sizeof (int), (guint) options->n_pids);
  if (options->n_pids > 0)
    g_array_append_vals (self->pids, options->pids, (guint) options->n_pids);
  write_proc_snapshot (self);

  if (options->cpu_sampling)
    {
      SysprofPerfRecorderOptions perf_options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;

      perf_options.frequency_hz = options->frequency_hz;
      perf_options.pids = options->pids;
      perf_options.n_pids = options->n_pids;
      perf_options.max_events = options->max_perf_events;
      perf_options.user_only = options->own_processes_only;
      perf_options.unwind = options->unwind;
      perf_options.stack_size = options->stack_size;
      perf_options.unwinder_path = options->unwinder_path;
      perf_options.embed_perf_maps = options->embed_perf_maps;
      perf_options.scheduler = options->scheduler;
      self->perf = sysprof_perf_recorder_new (self->writer);
      if (!sysprof_perf_recorder_start (self->perf, &perf_options, &local_error))
        {
          g_clear_object (&self->perf);
          sysprof_capture_writer_flush (self->writer);
          g_set_error (error, G_IO_ERROR, local_error->code, "Cannot start sampling: %s", local_error->message);
          return FALSE;
        }
      if (sysprof_perf_recorder_get_unwind_warning (self->perf) != NULL)
        warn (self, "%s", sysprof_perf_recorder_get_unwind_warning (self->perf));
    }

  if (options->counters != NULL && options->counters[0] != NULL)
    {
      self->counters = sysprof_counter_recorder_new (self->writer);
      if (!sysprof_counter_recorder_start (self->counters, options->counters, 0, &local_error) &&
          g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
        {
          /* The capture is full already (a max-bytes below what the start
           * writes, or a full disk): the recording goes on, as far as it
           * can, and says what it lacks, like an incomplete snapshot. */
          warn (self, "no counters: %s", local_error->message);
          g_clear_error (&local_error);
          g_clear_object (&self->counters);
        }
      else if (local_error != NULL)
        {
          g_clear_object (&self->counters);
          if (self->perf != NULL)
            {
              sysprof_perf_recorder_stop (self->perf);
              g_clear_object (&self->perf);
            }
          sysprof_capture_writer_flush (self->writer);
          g_set_error (error, G_IO_ERROR, local_error->code, "Cannot start the counters: %s", local_error->message);
          return FALSE;
        }
    }

  if (options->system_bus)
    {
      self->system_bus = sysprof_dbus_monitor_new (self->writer, SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM);
      if (!sysprof_dbus_monitor_start (self->system_bus, NULL, &local_error))
        {
          g_clear_object (&self->system_bus);
          g_clear_object (&self->counters);
          if (self->perf != NULL)
            {
              sysprof_perf_recorder_stop (self->perf);
              g_clear_object (&self->perf);
            }
          sysprof_capture_writer_flush (self->writer);
          g_set_error (error, G_IO_ERROR, local_error->code, "Cannot record the system bus: %s", local_error->message);
          return FALSE;
        }
    }

  self->state = STATE_RUNNING;
  return TRUE;
}

gboolean
sysprof_session_recorder_stop (SysprofSessionRecorder *self, GError **error)
{
  g_return_val_if_fail (SYSPROF_IS_SESSION_RECORDER (self), FALSE);

  if (self->state != STATE_RUNNING)
    return TRUE;
  self->state = STATE_STOPPED;

  if (self->counters != NULL)
    sysprof_counter_recorder_stop (self->counters);
  if (self->system_bus != NULL)
    {
      g_autofree char *loss = NULL;

      sysprof_dbus_monitor_stop (self->system_bus);
      if ((loss = sysprof_dbus_monitor_dup_loss_message (self->system_bus)) != NULL)
        warn (self, "%s", loss);
    }
  if (self->perf != NULL)
    {
      g_autofree char *before = g_strdup (sysprof_perf_recorder_get_unwind_warning (self->perf));

      sysprof_perf_recorder_stop (self->perf);
      /* A helper that stopped while recording (a warning of start is said). */
      if (sysprof_perf_recorder_get_unwind_warning (self->perf) != NULL && before == NULL)
        warn (self, "%s", sysprof_perf_recorder_get_unwind_warning (self->perf));
    }

  embed_kernel_symbols (self);

  if (!sysprof_capture_writer_flush (self->writer))
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "The capture could not be written completely: %s",
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
sysprof_session_recorder_cut (SysprofSessionRecorder *self, int fd, GError **error)
{
  g_return_val_if_fail (SYSPROF_IS_SESSION_RECORDER (self), FALSE);
  g_return_val_if_fail (fd >= 0, FALSE);

  if (self->state != STATE_RUNNING)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "Not recording: nothing to cut");
      return FALSE;
    }
  if (self->perf != NULL)
    sysprof_perf_recorder_end_period (self->perf);
  embed_kernel_symbols (self);
  if (!sysprof_capture_writer_switch_fd (self->writer, fd))
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot go on in a new capture: %s",
                   g_strerror (saved));
      return FALSE;
    }
  if (self->perf != NULL)
    sysprof_perf_recorder_begin_period (self->perf);
  write_proc_snapshot (self);
  if (self->counters != NULL && !sysprof_counter_recorder_define_again (self->counters))
    warn (self, "the counters are not defined in the new capture: %s", g_strerror (errno));
  return TRUE;
}

gboolean
sysprof_session_recorder_is_running (SysprofSessionRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_SESSION_RECORDER (self), FALSE);
  return self->state == STATE_RUNNING;
}

const char *
sysprof_session_recorder_get_event_name (SysprofSessionRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_SESSION_RECORDER (self), NULL);
  return self->perf ? sysprof_perf_recorder_get_event_name (self->perf) : NULL;
}

guint64
sysprof_session_recorder_get_n_lost (SysprofSessionRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_SESSION_RECORDER (self), 0);
  return self->perf ? sysprof_perf_recorder_get_n_lost (self->perf) : 0;
}
