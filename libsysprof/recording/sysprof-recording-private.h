// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_RECORDING_COMPILATION
#error "sysprof-recording-private.h is private to libsysprof/recording."
#endif

#include <sys/types.h>

#include "ipc-session-generated.h"
#include "sysprof-control-channel.h"
#include "sysprof-dbus-monitor.h"
#include "sysprof-dbus-contract.h"
#include "sysprof-recording.h"
#include "sysprof-ring-drainer.h"
#include "sysprof-session-recorder.h"

G_BEGIN_DECLS

/* Names and limits of sysprofd's API come from its one contract. */
#define BUS_NAME      SYSPROF_DBUS_NAME
#define MANAGER_PATH  SYSPROF_DBUS_PATH
#define MANAGER_IFACE SYSPROF_DBUS_MANAGER_INTERFACE
#define POLKIT_ACTION SYSPROF_DBUS_ACTION_PROFILE
#define DENIED_PREFIX SYSPROF_DBUS_DENIED_PREFIX
#define POLL_MS       250
/* The daemon writes the /proc snapshot in Start and kernel symbols in Stop. */
#define SLOW_CALL_MS  120000
#define KILL_DELAY_S  2
#define MAX_FREQUENCY SYSPROF_DBUS_MAX_FREQUENCY
#define MAX_DURATION  SYSPROF_DBUS_MAX_DURATION
/* 4 MiB per thread of a traced program (sysprofd's maximum): a thread
 * allocating flat out fills it in about 8 ms; the drainers empty rings every
 * ms but may be busy with perf records for a few. */
#define MEMORY_RING_PAGES 1024
/* 512 KiB per thread of a command that is not memory-traced: what its
 * collector sends (GTK's marks, logs, counters) is small and drained every
 * ms. */
#define COLLECTOR_RING_PAGES 128

/* Shared by the main thread and the decoding thread; see decode_thread. */
typedef struct
{
  gint             ref_count;
  GMutex           mutex;
  int              capture_fd;
  GDBusConnection *bus; /* sysprofd, for the host resolver; NULL in-process */
  GCancellable    *cancellable;
  gboolean         abandoned;  /* the recording moved on; never touch the capture */
  gboolean         committing; /* the table is being copied into the capture */
  guint64          done;
  guint64          total;
  char            *fetch_file; /* debuginfod is fetching its debug file */
  guint64          fetch_done;
  guint64          fetch_total;
  char            *missing_debug_info; /* sysprof_symbolizer_dup_missing_debug_info */
} DecodeJob;

struct _SysprofRecording
{
  GObject parent_instance;

  /* Options. */
  char    *capture_path;
  gboolean force;
  guint    frequency;
  /* SysprofPerfUnwind and bytes of stack per sample (0: defaults). */
  int      unwind;
  guint    stack_size;
  GArray  *pids; /* int */
  gboolean cpu_sampling;
  char   **counters;
  guint    max_duration;
  guint64  max_bytes;
  char   **argv;
  char   **envp;              /* NULL: this process's environment */
  char    *working_directory; /* NULL: this process's */
  gboolean decode;
  gboolean memory;
  gboolean follow_children;
  gboolean scheduler;
  guint    traces; /* 1 << SysprofRecordingTrace */
  gboolean session_bus;
  gboolean system_bus;

  /* Progress. */
  SysprofRecordingPhase phase;
  SysprofRecordingMode  mode;
  GTask                *task;
  GError               *error;  /* the first failure, reported at the end */
  gboolean              ending; /* only the command and decoding may be left */
  gboolean              skip_decode;
  char                 *stop_reason;
  GPtrArray            *warnings;          /* NULL-terminated */
  guint                 n_remote_warnings; /* of sysprofd's Warnings, those added */
  gint64                start_time;
  gint64                end_time;
  guint64               n_samples;
  guint64               n_allocation_records;
  guint64               n_bytes;
  guint64               n_lost;
  guint                 poll_source;
  guint                 duration_source;
  guint                 n_ticks;

  /* The capture file, opened by us. */
  int      capture_fd;
  gboolean created;
  dev_t    dev;
  ino_t    ino;

  /* sysprofd. */
  GDBusConnection *bus;     /* private: the session dies with it */
  IpcSession      *session; /* on the unique name of the sysprofd that created it */
  gulong           finished_id;
  gulong           closed_id;
  gboolean         poll_pending;

  /* In-process. */
  SysprofCaptureWriter   *writer;
  SysprofSessionRecorder *local; /* NULL when recording allocations only, unprivileged */
  SysprofRingDrainer     *drainer;

  /* Memory tracing: the command's collector asks for rings here. */
  SysprofControlChannel *control;
  char                  *preload;
  gboolean               ring_warned;

  /* The command. */
  char    *program;
  GPid     command_pid;
  gboolean command_alive;
  int      go_fd;   /* one byte releases the held command */
  int      exec_fd; /* errno of a failed exec, EOF once it ran */
  guint    child_watch;
  guint    kill_source;
  int      wait_status;

  DecodeJob *decode_job;

  /* The command's own captures (sysprof-recording-traces.c): a memfd per
   * SysprofRecordingTrace, -1 when not asked for or merged; merged once
   * the recording is finalized and the command has exited. */
  int      trace_fds[2];
  gboolean capture_done;

  /* Profiler peers on the session bus (sysprof-recording-peers.c). */
  GPtrArray       *peers; /* SysprofRecordingPeer * */
  GDBusConnection *peer_bus;
  guint            n_peer_calls; /* Start and Stop calls not answered yet */

  /* The session bus, monitored here into a capture of its own (a memfd,
   * -1 when not asked for or merged), merged like the command's. */
  SysprofDbusMonitor *dbus_monitor;
  int                 dbus_fd;
};

typedef enum
{
  SYSPROF_RECORDING_TRACE_FD = 0,
  SYSPROF_RECORDING_TRACE_GJS = 1,
} SysprofRecordingTrace;

/* sysprof-recording-peers.c */
typedef struct _SysprofRecordingPeer SysprofRecordingPeer;
void                                 _sysprof_recording_peer_free (SysprofRecordingPeer *peer);
void                                 _sysprof_recording_peers_start (SysprofRecording *self);
void                                 _sysprof_recording_peers_stop (SysprofRecording *self);
gboolean                             _sysprof_recording_peers_busy (SysprofRecording *self);
int _sysprof_recording_peer_fd (SysprofRecording *self, guint index, const char **name);

/* sysprof-recording-traces.c */
gboolean _sysprof_recording_traces_open (SysprofRecording *self, char ***env, GArray *keep_fds, GError **error);
void     _sysprof_recording_traces_close (SysprofRecording *self);
/* Appends the command's captures to the capture at @capture_fd (warnings say
 * what could not be), and closes their memfds. */
void _sysprof_recording_traces_merge (SysprofRecording *self, int capture_fd);

/* sysprof-recording-traces.c: the session bus. */
gboolean _sysprof_recording_dbus_start (SysprofRecording *self, GError **error);
/* Stops the monitor and finalizes its capture (a warning says what was lost). */
void _sysprof_recording_dbus_stop (SysprofRecording *self);

/* sysprof-recording.c */
void  _sysprof_recording_begin_stop (SysprofRecording *self, const char *reason);
void  _sysprof_recording_maybe_complete (SysprofRecording *self);
void  _sysprof_recording_capture_done (SysprofRecording *self);
void  _sysprof_recording_add_warning (SysprofRecording *self, const char *format, ...) G_GNUC_PRINTF (2, 3);
char *_sysprof_recording_remote_message (const GError *error);

/* sysprof-recording-command.c */
const char *_sysprof_recording_find_unwinder (void);
gboolean    _sysprof_recording_find_preload (SysprofRecording *self, GError **error);
gboolean    _sysprof_recording_spawn_held (SysprofRecording *self, GError **error);
void        _sysprof_recording_abandon_held_command (SysprofRecording *self);
gboolean    _sysprof_recording_release_command (SysprofRecording *self, GError **error);
void        _sysprof_recording_terminate_command (SysprofRecording *self);
void        _sysprof_recording_start_control (SysprofRecording *self);

G_END_DECLS
