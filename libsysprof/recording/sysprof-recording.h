// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-perf-recorder.h"

G_BEGIN_DECLS

typedef enum
{
  SYSPROF_RECORDING_PHASE_IDLE,      /* not started */
  SYSPROF_RECORDING_PHASE_STARTING,  /* opening the capture, asking sysprofd (and polkit) */
  SYSPROF_RECORDING_PHASE_RECORDING, /* samples are being written */
  SYSPROF_RECORDING_PHASE_STOPPING,  /* the capture is being finalized */
  SYSPROF_RECORDING_PHASE_DECODING,  /* the symbol table is being appended */
  SYSPROF_RECORDING_PHASE_FINISHED,  /* record_async completed */
} SysprofRecordingPhase;

typedef enum
{
  SYSPROF_RECORDING_MODE_NONE,       /* not decided yet */
  SYSPROF_RECORDING_MODE_DAEMON,     /* a session of sysprofd on the system bus */
  SYSPROF_RECORDING_MODE_IN_PROCESS, /* root, sysprofd not on the bus: the instruments run here */
} SysprofRecordingMode;

#define SYSPROF_TYPE_RECORDING (sysprof_recording_get_type ())

/* One recording into a capture file, driven by the caller's main loop.
 *
 * The capture file is opened by this process, as its user (so the file
 * belongs to the user), and handed to sysprofd (org.gnome.Sysprof3 on the
 * system bus, $DBUS_SYSTEM_BUS_ADDRESS honoured), which records into it
 * after polkit authorized the action org.gnome.sysprof3.profile.  When
 * sysprofd is not on the bus and the process runs as root, the same
 * instruments run in-process (SysprofSessionRecorder) instead.
 *
 * Usage: sysprof_recording_new(), the setters, sysprof_recording_record_async()
 * from a thread running the thread-default main context, then
 * sysprof_recording_stop() whenever the recording should end (e.g. on
 * SIGINT).  Signals, emitted in that context:
 *   "phase-changed"  void (*) (SysprofRecording *, gpointer): see get_phase();
 *   "progress"       void (*) (SysprofRecording *, gpointer): about 4 times a
 *                    second while recording and decoding; see the getters.
 *
 * The recording ends on sysprof_recording_stop(), when the command exits,
 * after the max duration, or when sysprofd ends the session (its max-bytes
 * limit).  The capture is then finalized and, unless decoding was turned
 * off, a `__symbols__` table is appended (sysprof_symbol_map_append),
 * so the capture shows function names on another machine.
 *
 * A command is started held (forked, waiting before exec) before the session
 * starts, and released once samples are being written, so its start-up is
 * recorded; if the recording cannot start it never runs.  When the recording
 * ends while the command still runs, the command gets SIGTERM, and SIGKILL 2 s
 * later; record_async completes after it was reaped.  If the thread that
 * started the recording dies first, the command gets SIGTERM too
 * (PR_SET_PDEATHSIG). */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofRecording, sysprof_recording, SYSPROF, RECORDING, GObject)

SYSPROF_AVAILABLE_IN_ALL
SysprofRecording *sysprof_recording_new (void);

/* Setters: only before sysprof_recording_record_async(). */

/* Required.  Created with mode 0644; an existing file is an error
 * (G_IO_ERROR_EXISTS) unless @force.  With @force an existing file is
 * truncated only once the recording is about to start. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_capture_path (SysprofRecording *self, const char *path, gboolean force);
/* Samples per second and CPU: 1 to 10000, 0 for the default (997). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_frequency (SysprofRecording *self, guint frequency_hz);
/* How the user part of stacks is found (see SysprofPerfUnwind): by default
 * DWARF unwinding (frame pointers where it cannot run, with a warning). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_unwind (SysprofRecording *self, SysprofPerfUnwind unwind);
/* Bytes of user stack each sample copies for DWARF unwinding: a multiple of
 * 8 from 8 to 65528, 0 for the default (8192). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_stack_size (SysprofRecording *self, guint bytes);
/* Restricts sampling to processes (with their children from now on); the
 * command, when there is one, is added to them.  Default: the whole system. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_add_pid (SysprofRecording *self, GPid pid);
/* Perf stack sampling; default TRUE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_cpu_sampling (SysprofRecording *self, gboolean cpu_sampling);
/* System counters among "cpu", "memory", "disk", "network" (NULL or empty:
 * none, the default). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_counters (SysprofRecording *self, const char *const *counters);
/* Stop after @seconds (1 to 86400); 0, the default, for no limit. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_max_duration (SysprofRecording *self, guint seconds);
/* The size at which sysprofd ends the recording, at most
 * SYSPROF_RECORDING_MAX_BYTES (16 GiB); 0, the default, for sysprofd's own
 * default (4 GiB).  Without sysprofd only the disk limits the capture. */
#define SYSPROF_RECORDING_MAX_BYTES (G_GUINT64_CONSTANT (16) << 30)
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_max_bytes (SysprofRecording *self, guint64 bytes);
/* A command to run while recording (argv[0] is looked up in $PATH), with
 * this process's environment plus the variables of sysprof_recording_setenv();
 * the recording stops when it exits. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_command (SysprofRecording *self, const char *const *argv);
/* The command's working directory (default: this process's).  A relative
 * program name with a slash ("./run") is taken relative to it. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_working_directory (SysprofRecording *self, const char *directory);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_setenv (SysprofRecording *self, const char *variable, const char *value);
/* Trace every memory allocation of the command (required then): the
 * tracker libsysprof-memory.so ($SYSPROF_MEMORY_PRELOAD overrides its
 * installed path; a program run from the build tree finds the built one) is
 * added to the command's LD_PRELOAD, and the command gets
 * $SYSPROF_CONTROL_FD, over which each of its threads asks for a ring buffer
 * (from sysprofd's session, or drained here in-process); ALLOCATION frames
 * then stream into the capture.  Combines with CPU sampling.  Without
 * sysprofd an unprivileged user still records the allocations of the command
 * (nothing else; a warning says so).  Default FALSE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_memory_tracing (SysprofRecording *self, gboolean memory);
/* The command gets $SYSPROF_TRACE_FD: a memfd into which it may write a
 * whole capture of its own (libsysprof-capture's
 * sysprof_capture_writer_new_from_env() does, as do programs built to write
 * Sysprof traces).  Once the command has exited and the recording is
 * finalized, that capture is merged into ours (its JIT names and counter
 * ids numbered anew; a damaged one merged up to the damage, with a
 * warning), before the symbol table is built.  Needs a command.  Default
 * FALSE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_trace_fd (SysprofRecording *self, gboolean trace_fd);
/* The same for GJS: $GJS_TRACE_FD and GJS_ENABLE_PROFILER=1, so that a GJS
 * built with its profiler writes its JavaScript stacks there (Debian 12's
 * gjs 1.74 is built without it and says "Profiler is disabled").  Default
 * FALSE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_gjs (SysprofRecording *self, gboolean gjs);
/* Scheduler details (see the "scheduler" option of sysprofd's CreateSession
 * and SysprofPerfRecorderOptions.scheduler): every context switch with the
 * stack of the task leaving the CPU, for off-CPU analyses.  Needs CPU
 * sampling and the full polkit grant (not only the caller's own
 * processes).  Default FALSE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_scheduler (SysprofRecording *self, gboolean scheduler);
/* A profiler peer on the session bus: a program exporting
 * org.gnome.Sysprof3.Profiler at @object_path (NULL:
 * /org/gnome/Sysprof3/Profiler; gnome-shell is "org.gnome.Shell" there).
 * When recording starts it is asked to Start writing a capture of its own
 * into a memfd, and to Stop when recording stops; that capture is merged
 * like the command's own (sysprof_recording_set_trace_fd()).  A peer that
 * is not there, refuses or does not answer within 5 s costs a warning.
 * Repeatable. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_add_profiler_peer (SysprofRecording *self, const char *bus_name, const char *object_path);
/* With memory tracing: also trace the processes the command starts (forked
 * children get rings of their own; executed programs keep the tracker and
 * the control fd).  Default FALSE: only the command's own process. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_follow_children (SysprofRecording *self, gboolean follow_children);
/* Record the messages of the session bus ($DBUS_SESSION_BUS_ADDRESS) as
 * DBUS_MESSAGE frames (SysprofDbusMonitor, in this process: the session bus
 * lets its own user monitor it), from before the recording starts until the
 * capture is finalized, merged into the capture like the command's own
 * captures.  A bus that is not there or refuses fails the recording
 * (NOT_FOUND, PERMISSION_DENIED).  Messages beyond the monitor's budget are
 * counted (a warning and the capture's METADATA "sysprof.dbus.session").
 * Default FALSE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_session_bus (SysprofRecording *self, gboolean session_bus);
/* Record the messages of the system bus: sysprofd's session option
 * "system-bus" (only for recordings of the whole machine, polkit action
 * org.gnome.sysprof3.profile: with --pid of one's own processes it is
 * refused, PERMISSION_DENIED), or the in-process recorder as root.
 * Default FALSE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_system_bus (SysprofRecording *self, gboolean system_bus);
/* Append the symbol table at the end; default TRUE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_set_decode (SysprofRecording *self, gboolean decode);

/* Records until one of the ends listed above.  Completes with TRUE when a
 * capture was written, even if decoding failed (see get_warnings()) or the
 * command failed (see get_command_wait_status()).  Errors (G_IO_ERROR):
 *  - EXISTS: the capture file exists and force was not set;
 *  - NOT_FOUND: sysprofd is not on the system bus (and not root, and not
 *    only tracing memory), the command is not in $PATH, or the memory
 *    tracker is missing;
 *  - INVALID_ARGUMENT: memory tracing without a command;
 *  - PERMISSION_DENIED: polkit refused org.gnome.sysprof3.profile, or the
 *    bus policy refused the call;
 *  - CANCELLED: stopped before recording started;
 *  - others: the capture cannot be written, the command cannot be run,
 *    sysprofd failed or left the bus while recording.
 * A capture file this call created is removed when recording never started;
 * once recording started, the file is kept, whatever the outcome. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_record_async (SysprofRecording *self, GAsyncReadyCallback callback, gpointer user_data);
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_recording_record_finish (SysprofRecording *self, GAsyncResult *result, GError **error);
/* Moves on towards the end, keeping the capture: while starting, abandons
 * (CANCELLED); while recording, stops and finalizes; while the capture is
 * being finalized, skips decoding; while decoding, abandons decoding (the
 * capture stays valid, without a symbol table, and untouched: decoding works
 * on a copy until it is complete). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_stop (SysprofRecording *self);

SYSPROF_AVAILABLE_IN_ALL
SysprofRecordingPhase sysprof_recording_get_phase (SysprofRecording *self);
SYSPROF_AVAILABLE_IN_ALL
SysprofRecordingMode sysprof_recording_get_mode (SysprofRecording *self);
/* Microseconds recorded so far (frozen once stopped). */
SYSPROF_AVAILABLE_IN_ALL
gint64 sysprof_recording_get_elapsed (SysprofRecording *self);
/* Stack samples written so far. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_recording_get_n_samples (SysprofRecording *self);
/* ALLOCATION frames (allocations and frees of memory tracing) written so
 * far. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_recording_get_n_allocation_records (SysprofRecording *self);
/* Size of the capture so far. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_recording_get_n_bytes (SysprofRecording *self);
/* Records that could not be kept (perf ring overflows). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_recording_get_n_lost (SysprofRecording *self);
/* While decoding: addresses resolved and to resolve (0, 0 before it knows). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_recording_get_decode_progress (SysprofRecording *self, guint64 *done, guint64 *total);
/* While decoding: the binary whose debug file is being fetched from
 * debuginfod ($DEBUGINFOD_URLS, see sysprof_symbolizer_set_fetch_progress)
 * and the bytes come of its size (0 while unknown), or NULL. */
SYSPROF_AVAILABLE_IN_ALL
char *sysprof_recording_dup_fetch_progress (SysprofRecording *self, guint64 *done, guint64 *total);
/* The command's pid once it was forked, else 0. */
SYSPROF_AVAILABLE_IN_ALL
GPid sysprof_recording_get_command_pid (SysprofRecording *self);
/* The command's wait status (see waitpid(2)) once it was reaped, else -1. */
SYSPROF_AVAILABLE_IN_ALL
int sysprof_recording_get_command_wait_status (SysprofRecording *self);
/* Why recording ended ("stopped", "the command exited", "stopped after
 * max-duration", sysprofd's reason), or NULL while recording. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_recording_get_stop_reason (SysprofRecording *self);
/* Problems that left a usable capture (decoding failed or was abandoned, an
 * incomplete /proc snapshot in-process, ...): a NULL-terminated list, never
 * NULL. */
SYSPROF_AVAILABLE_IN_ALL
const char *const *sysprof_recording_get_warnings (SysprofRecording *self);

G_END_DECLS
