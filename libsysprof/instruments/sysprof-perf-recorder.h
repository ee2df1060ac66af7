// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

#define SYSPROF_PERF_RECORDER_DEFAULT_FREQUENCY  997
#define SYSPROF_PERF_RECORDER_MAX_FREQUENCY      10000
#define SYSPROF_PERF_RECORDER_DEFAULT_DATA_PAGES 64
#define SYSPROF_PERF_RECORDER_MAX_DATA_PAGES     4096
/* With DWARF unwinding a sample carries a copy of the stack (8 KiB by
 * default): 1 MiB per CPU holds about 120 of them. */
#define SYSPROF_PERF_RECORDER_DEFAULT_DWARF_DATA_PAGES 256

/* The METADATA id of the unwinding summary written at stop. */
#define SYSPROF_UNWIND_METADATA_ID "sysprof.unwind"
/* The METADATA id of the scheduler details' counts written at stop. */
#define SYSPROF_SCHEDULER_METADATA_ID "sysprof.scheduler"

/* How the user part of a sample's stack is found. */
typedef enum
{
  /* DWARF where it works, else frame pointers (with a warning). */
  SYSPROF_PERF_UNWIND_DEFAULT = 0,
  /* The kernel walks frame pointers: cheap, but code built without them
   * (most of a distribution) shows short or wrong stacks. */
  SYSPROF_PERF_UNWIND_FRAME_POINTERS = 1,
  /* The kernel copies the user registers and the top of the stack into the
   * sample; the unwinding helper (sysprof-unwinder, confined) unwinds them
   * with the files' CFI while recording; the capture gets ordinary SAMPLE
   * frames. */
  SYSPROF_PERF_UNWIND_DWARF = 2,
} SysprofPerfUnwind;

/* What to record.  The struct will grow: set @size to
 * sizeof (SysprofPerfRecorderOptions), most simply by starting from
 * SYSPROF_PERF_RECORDER_OPTIONS_INIT or sysprof_perf_recorder_options_init(). */
typedef struct
{
  gsize size;
  /* Samples per second and CPU (per thread when @pids is set): 1 to
   * SYSPROF_PERF_RECORDER_MAX_FREQUENCY, 0 for the default of 997 (a prime, so
   * sampling does not lock step with periodic work).  The kernel's
   * perf_event_max_sample_rate lowers it further when smaller. */
  guint frequency_hz;
  /* Processes to record, with their threads and the children they start from
   * now on.  @n_pids 0 records the whole system (every online CPU). */
  const int *pids;
  gsize      n_pids;
  /* Data pages of each perf ring buffer: a power of two, at most
   * SYSPROF_PERF_RECORDER_MAX_DATA_PAGES, 0 for the default of 64.  Halved
   * while the locked-memory budget (RLIMIT_MEMLOCK + perf_event_mlock_kb)
   * refuses the mapping. */
  guint n_data_pages;
  /* At most this many perf events (one file descriptor and ring buffer each:
   * one per CPU, or per thread and CPU with @pids); more is
   * G_IO_ERROR_TOO_MANY_OPEN_FILES before any is opened.  0: no limit. */
  guint max_events;
  /* User space only: no kernel samples and no kernel part in callchains, what
   * an unprivileged perf user gets at perf_event_paranoid 2. */
  gboolean user_only;
  /* See SysprofPerfUnwind. */
  SysprofPerfUnwind unwind;
  /* Bytes of user stack each sample copies for DWARF unwinding: a multiple
   * of 8 up to SYSPROF_UNWIND_MAX_STACK (65528), 0 for the default of 8192
   * (perf's).  Deeper stacks are cut there (counted as truncated). */
  guint stack_size;
  /* The unwinding helper to start; NULL for the installed one. */
  const char *unwinder_path;
  /* At stop, embed the perf maps (/tmp/perf-PID.map: names of JIT code) of
   * the sampled processes that still run, read with this process's rights
   * (see sysprof_perf_map_file_read()), as files "/tmp/perf-PID.map". */
  gboolean embed_perf_maps;
  /* Scheduler details (needs root or CAP_PERFMON, and tracefs mounted): a
   * sched:sched_switch event per CPU (per thread and CPU with @pids), whose
   * samples carry the stack of the task leaving the CPU (unwound as @unwind
   * says).  Each switch after the first on a CPU gives a MARK for the time
   * slice that ends (group "Scheduler", name "CPU N", message the task's
   * comm, as Sysprof 48 writes them; slices of the idle task are left out);
   * each time a thread leaves the CPU and later runs again gives an off-CPU
   * sample (SYSPROF_CAPTURE_SAMPLE_OFF_CPU: its stack, and how long it
   * waited); threads still off the CPU at stop get one up to the last
   * record.  The threads of this process and of its unwinding helper get
   * none (they switch at every exchange of stacks).  The switch events'
   * rings are four times @n_data_pages.  At stop a METADATA frame "sysprof.scheduler" counts them
   * ("switches=N off-cpu=N marks=N dropped=N frequency=HZ"). */
  gboolean scheduler;
} SysprofPerfRecorderOptions;

#define SYSPROF_PERF_RECORDER_OPTIONS_INIT                                                               \
  {                                                                                                      \
    sizeof (SysprofPerfRecorderOptions), 0, NULL, 0, 0, 0, 0, SYSPROF_PERF_UNWIND_DEFAULT, 0, NULL, 0, 0 \
  }

SYSPROF_AVAILABLE_IN_ALL
void sysprof_perf_recorder_options_init (SysprofPerfRecorderOptions *options);

#define SYSPROF_TYPE_PERF_RECORDER (sysprof_perf_recorder_get_type ())

/* Samples CPUs with perf_event_open(2) (needs root or CAP_PERFMON) and streams
 * the records, as they arrive, into a capture writer:
 *  - PERF_RECORD_SAMPLE → SAMPLE (the callchain as the kernel gives it,
 *    PERF_CONTEXT_KERNEL/USER markers included; [ip] when it is empty; with
 *    DWARF unwinding the user part is the helper's, cut at the first address
 *    outside the process's executable mappings);
 *  - MMAP / MMAP2 → MAP; COMM of a main thread → PROCESS (comm as cmdline);
 *  - FORK / EXIT of a process (not of a thread) → FORK / EXIT;
 *  - LOST → counted, see sysprof_perf_recorder_get_n_lost();
 *  - at stop, a METADATA frame "sysprof.unwind" (see
 *    sysprof_perf_recorder_get_unwind_summary()).
 * Frames are appended to the writer as records are drained (every 50 ms, and
 * early when a ring buffer is half full); the writer is not flushed. */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofPerfRecorder, sysprof_perf_recorder, SYSPROF, PERF_RECORDER, GObject)

/* Keeps a reference on @writer. */
SYSPROF_AVAILABLE_IN_ALL
SysprofPerfRecorder *sysprof_perf_recorder_new (SysprofCaptureWriter *writer);
/* Opens, maps and enables the perf events (@options NULL = defaults) and
 * attaches the draining sources to the thread-default main context.  On
 * failure nothing stays open and start may be called again; after a successful
 * start the recorder records once. */
SYSPROF_AVAILABLE_IN_ALL
gboolean
sysprof_perf_recorder_start (SysprofPerfRecorder *self, const SysprofPerfRecorderOptions *options, GError **error);
/* Disables the events, writes the records still buffered, closes everything.
 * Does nothing when not recording; disposing a recorder stops it. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_perf_recorder_stop (SysprofPerfRecorder *self);
/* Continuous recording cuts its capture in periods
 * (sysprof_capture_writer_switch_fd): end_period writes what the kernel
 * buffered so far and, with embed_perf_maps, the perf maps, into the capture
 * that ends; begin_period, once the writer writes the next one, forgets the
 * kernel addresses of the last (see get_kernel_addresses).  Samples the
 * unwinding helper still holds go into the next capture. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_perf_recorder_end_period (SysprofPerfRecorder *self);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_perf_recorder_begin_period (SysprofPerfRecorder *self);
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_perf_recorder_is_running (SysprofPerfRecorder *self);
/* "cycles" or "cpu-clock" once started, else NULL. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_perf_recorder_get_event_name (SysprofPerfRecorder *self);
/* Frames added to the writer (every kind). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_perf_recorder_get_n_frames (SysprofPerfRecorder *self);
/* SAMPLE frames added to the writer. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_perf_recorder_get_n_samples (SysprofPerfRecorder *self);
/* Records the kernel dropped because a ring buffer was full (PERF_RECORD_LOST
 * and PERF_RECORD_LOST_SAMPLES). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_perf_recorder_get_n_lost (SysprofPerfRecorder *self);
/* The kernel addresses of the samples written so far (a set of guint64 in
 * pointers, GSIZE_TO_POINTER), for sysprof_kallsyms_write_for(); NULL when
 * there were more than a million (then embed all of kallsyms). */
SYSPROF_AVAILABLE_IN_ALL
GHashTable *sysprof_perf_recorder_get_kernel_addresses (SysprofPerfRecorder *self);
/* How the stacks were unwound, as written into the capture's METADATA
 * "sysprof.unwind": "method=dwarf stack-size=8192 samples=N complete=N
 * truncated=N outside-mappings=N failed=N" (complete: down to the outermost
 * frame; truncated: the stack copy or the CFI ended first; outside-mappings:
 * a return address outside the executable mappings ended the stack; failed:
 * no user frame but the instruction pointer), or "method=frame-pointers".
 * NULL before start. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_perf_recorder_get_unwind_summary (SysprofPerfRecorder *self);
/* Why the recording does not unwind as asked (DWARF fell back to frame
 * pointers, the helper stopped), or NULL. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_perf_recorder_get_unwind_warning (SysprofPerfRecorder *self);
/* Frames the writer refused (capture full or unwritable). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_perf_recorder_get_n_write_errors (SysprofPerfRecorder *self);

G_END_DECLS
