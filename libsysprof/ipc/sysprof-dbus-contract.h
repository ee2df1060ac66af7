// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* The contract between sysprofd and its clients, besides the interface XML in
 * data/dbus-1/interfaces/ (which documents the same limits): names, polkit
 * actions and every limit the daemon enforces.  The daemon and libsysprof's
 * recording client both take them from here; nothing else spells them. */

#include <glib.h>

/* Names. */
#define SYSPROF_DBUS_NAME                "org.gnome.Sysprof3"
#define SYSPROF_DBUS_PATH                "/org/gnome/Sysprof3"
#define SYSPROF_DBUS_SESSION_PATH_PREFIX "/org/gnome/Sysprof3/Session/"
#define SYSPROF_DBUS_SERVICE_INTERFACE   "org.gnome.Sysprof3.Service"
#define SYSPROF_DBUS_HOST_INTERFACE      "org.gnome.Sysprof3.Host"
#define SYSPROF_DBUS_MANAGER_INTERFACE   "org.gnome.Sysprof3.SessionManager"
#define SYSPROF_DBUS_SESSION_INTERFACE   "org.gnome.Sysprof3.Session"
/* Checked on every call: the whole machine (perf on any process, /proc). */
#define SYSPROF_DBUS_ACTION_PROFILE "org.gnome.sysprof3.profile"
/* Checked instead for a session that only records processes its creator
 * owns (CreateSession with "pids", each of the caller's uid), and for the
 * calls on such a session. */
#define SYSPROF_DBUS_ACTION_PROFILE_OWN "org.gnome.sysprof3.profile-own-processes"
/* sysprofd's AccessDenied messages start with this. */
#define SYSPROF_DBUS_DENIED_PREFIX "Not authorized to make request: "

/* Recording options (CreateSession). */
#define SYSPROF_DBUS_DEFAULT_FREQUENCY 997
#define SYSPROF_DBUS_MAX_FREQUENCY     10000
#define SYSPROF_DBUS_DEFAULT_MAX_BYTES (G_GUINT64_CONSTANT (4) << 30)
#define SYSPROF_DBUS_MAX_BYTES         (G_GUINT64_CONSTANT (16) << 30)
#define SYSPROF_DBUS_MAX_DURATION      86400
#define SYSPROF_DBUS_MAX_PIDS          1024
/* Session option "unwind": how user stacks are walked. */
#define SYSPROF_DBUS_UNWIND_DWARF          "dwarf"
#define SYSPROF_DBUS_UNWIND_FRAME_POINTERS "fp"
/* Session option "stack-size": bytes of user stack a DWARF sample copies
 * (perf's bound: a multiple of 8 below 64 KiB; 8192 as perf's default). */
#define SYSPROF_DBUS_DEFAULT_STACK_SIZE 8192
#define SYSPROF_DBUS_MAX_STACK_SIZE     65528

/* Session option "system-bus" (b): record the messages of the system bus
 * as DBUS_MESSAGE frames.  Only under SYSPROF_DBUS_ACTION_PROFILE: a session
 * of one's own processes is refused it (AccessDenied).  At most
 * SYSPROF_DBUS_SYSTEM_BUS_MAX_BYTES of frames per session; beyond, messages
 * are counted as lost (METADATA "sysprof.dbus.system" and a warning); a
 * message above 65492 bytes is stored without its body. */
#define SYSPROF_DBUS_OPTION_SYSTEM_BUS "system-bus"
/* CreateSession's option for scheduler details (sched:sched_switch with the
 * stacks of the tasks leaving the CPU): every task's switches, so, like the
 * system bus, only for the full grant. */
#define SYSPROF_DBUS_OPTION_SCHEDULER     "scheduler"
#define SYSPROF_DBUS_SYSTEM_BUS_MAX_BYTES (G_GUINT64_CONSTANT (32) << 20)

/* Continuous recording: CreateSession's "period" (u, seconds) cuts the
 * capture into one finished capture per period (Session.TakePeriods).
 * Without "frequency" such a session samples at the low default below
 * (Parca's agent samples at 19 Hz too: little enough to leave running), and
 * without "max-bytes" a period is cut early at the size below.  A session
 * holds at most MAX_HELD_PERIODS finished periods and MAX_HELD_PERIOD_BYTES
 * of them; beyond, the oldest is dropped.  A uid may have one continuous
 * session at a time, more only when polkit grants it the action below. */
#define SYSPROF_DBUS_OPTION_PERIOD                "period"
#define SYSPROF_DBUS_MIN_PERIOD                   1
#define SYSPROF_DBUS_MAX_PERIOD                   86400
#define SYSPROF_DBUS_DEFAULT_CONTINUOUS_FREQUENCY 19
#define SYSPROF_DBUS_DEFAULT_PERIOD_MAX_BYTES     (G_GUINT64_CONSTANT (256) << 20)
#define SYSPROF_DBUS_MAX_HELD_PERIODS             8
#define SYSPROF_DBUS_MAX_HELD_PERIOD_BYTES        (G_GUINT64_CONSTANT (1) << 30)
#define SYSPROF_DBUS_MAX_CONTINUOUS_PER_UID       1
#define SYSPROF_DBUS_MAX_CONTINUOUS               16
#define SYSPROF_DBUS_ACTION_CONTINUOUS_MANY       "org.gnome.sysprof3.continuous-many"

/* Sessions. */
#define SYSPROF_DBUS_MAX_SESSIONS_PER_UID 4
#define SYSPROF_DBUS_MAX_SESSIONS         32
/* A session must be started within this many seconds of its creation
 * (sysprofd --start-timeout changes it), and a detached one is removed this
 * long after it stopped if nobody closed it. */
#define SYSPROF_DBUS_START_TIMEOUT   300
#define SYSPROF_DBUS_DETACHED_LINGER 600
/* ReadCapture returns at most this much per call. */
#define SYSPROF_DBUS_READ_CAPTURE_MAX (1024 * 1024)
/* perf events (file descriptors) one session may open: threads x CPUs for
 * "pids", CPUs for the whole system. */
#define SYSPROF_DBUS_MAX_PERF_EVENTS_PER_SESSION 1024

/* The Warnings property of a session: at most this many, each at most this
 * long (bytes of the message; a character cut there becomes U+FFFD). */
#define SYSPROF_DBUS_MAX_SESSION_WARNINGS 16
#define SYSPROF_DBUS_MAX_WARNING_LENGTH   1024

/* Ring buffers (CreateRingBuffer): open at once, and the memory they pin. */
#define SYSPROF_DBUS_MAX_RINGS_PER_SESSION  256
#define SYSPROF_DBUS_MAX_RINGS_PER_UID      512
#define SYSPROF_DBUS_MAX_RINGS              2048
#define SYSPROF_DBUS_MAX_RING_BYTES_PER_UID (G_GUINT64_CONSTANT (1) << 30)
#define SYSPROF_DBUS_MAX_RING_BYTES         (G_GUINT64_CONSTANT (4) << 30)

/* Method calls: a caller's calls beyond these are refused with LimitsExceeded
 * at once, so one caller cannot queue work that delays everyone.  A uid's
 * calls (all its connections) may be waiting or running at once up to
 * MAX_CALLS_PER_UID; of those at most MAX_AUTH_PER_UID wait for polkit and
 * MAX_RUNNING_PER_UID run on the daemon's WORKERS threads, which take the
 * uids with work in turn. */
#define SYSPROF_DBUS_MAX_CALLS_PER_UID   64
#define SYSPROF_DBUS_MAX_AUTH_PER_UID    4
#define SYSPROF_DBUS_MAX_RUNNING_PER_UID 2
#define SYSPROF_DBUS_WORKERS             4
/* A call carries at most this many bytes of arguments and one fd. */
#define SYSPROF_DBUS_MAX_CALL_BYTES 65536
/* polkit's answer is awaited this long (seconds), with a password prompt
 * when the caller allowed one. */
#define SYSPROF_DBUS_AUTH_TIMEOUT             30
#define SYSPROF_DBUS_INTERACTIVE_AUTH_TIMEOUT 300

/* Host.ResolvePaths and Host.ListDebugDirectoriesForPids: requests per call. */
#define SYSPROF_DBUS_MAX_BATCH 256

/* A polkit grant is remembered for the connection it was given to (its
 * unique bus name, uid and process start time) at most this many seconds,
 * and forgotten when the connection leaves the bus: a client's stream of
 * calls costs one polkit check, not one per call.  Only grants given
 * without asking for a password are kept; a refusal never is. */
#define SYSPROF_DBUS_AUTH_CACHE_SECONDS 60

/* GetProcFile / GetProcFd; GetProcessInfo reads at most PROC_INFO_FILE_MAX
 * of one file and answers at most PROC_INFO_MAX in all (the system bus
 * carries at most 32 MiB in a message). */
#define SYSPROF_DBUS_PROC_FILE_MAX      (64 * 1024 * 1024)
#define SYSPROF_DBUS_PROC_INFO_FILE_MAX (4 * 1024 * 1024)
#define SYSPROF_DBUS_PROC_INFO_MAX      (24 * 1024 * 1024)
