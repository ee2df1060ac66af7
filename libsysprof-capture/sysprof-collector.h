// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "sysprof-capture-types.h"
#include "sysprof-capture-writer.h"
#include "sysprof-macros.h"
#include "sysprof-memory-stream.h"

SYSPROF_BEGIN_DECLS

/* The collector: lets a profiled program (or a library preloaded into it)
 * send marks, logs, counters, samples and allocations to the profiler that
 * started it.  Sysprof's protocol: the profiler puts one end of an AF_UNIX
 * stream socket into the program and its fd number in $SYSPROF_CONTROL_FD.
 *
 * Each thread writes its own mapped ring buffer.  On its first event a thread
 * sends the 10 bytes "CreatRing\0" on the control socket and receives one
 * byte carrying the ring's memfd (SCM_RIGHTS); that round trip is the only
 * place a process-wide mutex is taken.  Afterwards every event is written
 * straight into the thread's ring without any lock.  When the thread exits
 * its ring gets an end-of-stream frame (type 0xFF, 24 bytes) and is unmapped;
 * the thread that calls exit() writes none (key destructors do not run for
 * it), the profiler simply drains what is left.
 *
 * Cost and failure rules:
 *  - Without $SYSPROF_CONTROL_FD, or when it does not name an AF_UNIX stream
 *    socket, the collector is disabled and every call is a cheap no-op.  The
 *    variable is read once, by a constructor when the library is loaded (or
 *    by the first call); the control fd is then made close-on-exec.
 *  - Event functions return nothing and leave errno untouched: an
 *    instrumented program must not notice the profiler.  Invalid arguments
 *    make a call do nothing.
 *  - When a ring is full the thread waits for the consumer, sleeping 50 µs
 *    growing to 1 ms, for at most about one second.  Only then is the event
 *    dropped; until the ring has room again later events of that thread are
 *    dropped without waiting.  Every event lost while the collector is active
 *    (ring full, no ring could be obtained, the thread's ring already closed)
 *    is counted; see sysprof_collector_get_n_dropped().
 *  - Events emitted from inside the collector itself (a backtrace callback,
 *    a malloc hook reached while the collector allocates, a signal handler
 *    interrupting a write) are ignored and not counted.
 *  - A thread's ring gets its end frame in the last round of thread-specific
 *    data destructors; events that still come after it (later destructors,
 *    glibc's own clean-up) go to one ring shared by such late events of the
 *    process, under a lock (they are rare), so they are not lost.
 *  - fork(): the child of a process in which the collector was active is not
 *    traced.  Its copy of the calling thread's ring is unmapped, and every
 *    call in the child is a no-op.  Children started with exec() are not
 *    traced either, since they do not inherit the control fd.
 *  - Unless the profiler asks for children: with $SYSPROF_FOLLOW_CHILDREN=1
 *    the control fd stays open across exec, and the child of a fork asks for
 *    rings of its own (never touching the parent's) on the same socket.
 */

/* Counter ids handed out by sysprof_collector_request_counters() start here
 * and grow to SYSPROF_CAPTURE_COUNTER_ID_MAX.  A profiler's own counters
 * (sysprof_capture_writer_request_counter() counts up from 1) stay below it,
 * so the two never collide in one capture. */
#define SYSPROF_COLLECTOR_COUNTER_ID_BASE (1u << 23)

/* Backtrace callbacks get room for this many addresses. */
#define SYSPROF_COLLECTOR_MAX_ADDRS 128

/* Reads $SYSPROF_CONTROL_FD and prepares the process-wide state.  Optional:
 * every other call does it on first use.  Creates no ring. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_init (void);
/* Whether a profiler is attached ($SYSPROF_CONTROL_FD valid and the control
 * channel not broken).  Creates no ring and sends nothing. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_collector_is_active (void);
/* An ALLOCATION frame: @alloc_size > 0 for an allocation of @alloc_addr, 0 for
 * its release.  @backtrace_func (may be NULL) writes up to
 * SYSPROF_COLLECTOR_MAX_ADDRS addresses directly into the frame. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_allocate (SysprofCaptureAddress alloc_addr,
                                 int64_t               alloc_size,
                                 SysprofBacktraceFunc  backtrace_func,
                                 void                 *backtrace_data);
/* A SAMPLE frame of the calling thread with the stack from @backtrace_func. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_sample (SysprofBacktraceFunc backtrace_func, void *backtrace_data);
/* A TRACE frame: function entry (@entering) or exit, with a stack. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_trace (SysprofBacktraceFunc backtrace_func, void *backtrace_data, bool entering);
/* A MARK frame at @time (sysprof_clock ns) lasting @duration ns.  @group and
 * @mark are truncated to 23 and 39 bytes; the message to what fits a frame. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_mark (int64_t time, int64_t duration, const char *group, const char *mark, const char *message);
/* Formatted messages longer than 2047 bytes are truncated. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_mark_printf (
    int64_t time, int64_t duration, const char *group, const char *mark, const char *message_format, ...)
    SYSPROF_PRINTF (5, 6);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_mark_vprintf (
    int64_t time, int64_t duration, const char *group, const char *mark, const char *message_format, va_list args)
    SYSPROF_PRINTF (5, 0);
/* A LOG frame stamped now; @severity is a GLogLevelFlags value, @domain is
 * truncated to 31 bytes. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_log (int severity, const char *domain, const char *message);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_log_printf (int severity, const char *domain, const char *format, ...) SYSPROF_PRINTF (3, 4);
/* Reserves @n_counters consecutive counter ids for this process and returns
 * the first, counting up from SYSPROF_COLLECTOR_COUNTER_ID_BASE
 * (atomically).  Returns 0 when no profiler is attached (as upstream's:
 * GLib takes 0 for "not traced"), with errno EINVAL for @n_counters 0 and
 * ENOSPC once the 24-bit id space is used up. */
SYSPROF_AVAILABLE_IN_ALL
unsigned int sysprof_collector_request_counters (unsigned int n_counters);
/* CTRDEF frames for @counters.  Every id must come from
 * sysprof_collector_request_counters() in this process; otherwise nothing is
 * sent (stricter than upstream's, which sends any id: ids of its own could
 * collide with the profiler's). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_define_counters (const SysprofCaptureCounter *counters, unsigned int n_counters);
/* CTRSET frames giving @values[i] to @counters_ids[i] (ids checked as above). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_set_counters (const unsigned int               *counters_ids,
                                     const SysprofCaptureCounterValue *values,
                                     unsigned int                      n_counters);
/* A PROCESS frame (the command line) and MAP frames for the mappings of
 * /proc/self/maps (every file-backed one and the anonymous executable ones),
 * so that the addresses of this process's events can be symbolized even when
 * the profiler does not trace mappings itself (no perf).  Call it once the
 * program is set up and again after dlopen(); it allocates nothing. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_collector_describe_process (void);
/* Whether children are traced too ($SYSPROF_FOLLOW_CHILDREN=1, see above);
 * false when the collector is disabled. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_collector_follows_children (void);
/* ---- for Sysprof's own memory tracker ----------------------------------
 *
 * libsysprof-memory.so (preload/) records allocations as compact per-thread
 * streams (memory-stream.md in this folder) rather than one ALLOCATION frame
 * per event.  These two calls are its transport; other programs have no use
 * for them. */

/* Each block of a stream is one FILE_CHUNK frame with this path prefix and
 * the thread id in decimal, and at most this many bytes of data. */
#define SYSPROF_COLLECTOR_MEMORY_STREAM_PREFIX    SYSPROF_MEMORY_STREAM_PATH_PREFIX
#define SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK SYSPROF_MEMORY_STREAM_MAX_BLOCK

/* The time the collector stamps the calling thread's frames with now
 * (sysprof_clock nanoseconds, never going backwards within a thread); cheap
 * (the TSC, with the clock read every few microseconds). */
SYSPROF_AVAILABLE_IN_ALL
int64_t sysprof_collector_get_time (void);
/* Writes @block (@len bytes, 1 to SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK)
 * as one FILE_CHUNK frame "sysprof/memory-stream/@tid" (@tid > 0: the thread
 * whose stream it is, not necessarily the caller) with is_last = @is_last,
 * in the calling thread's ring, stamped now.  Waits for room like every
 * event.  Returns true when written; otherwise (no ring, no room in time,
 * bad arguments, a call from inside the collector) counts @n_events (at
 * least 1) among the dropped events and returns false.  Leaves errno alone. */
SYSPROF_AVAILABLE_IN_ALL
bool
sysprof_collector_write_memory_stream (int32_t tid, const void *block, size_t len, bool is_last, unsigned int n_events);
/* Events lost by this process while the collector was active (see above).
 * They also reach the capture: as soon as a frame fits again, a METADATA
 * frame SYSPROF_LOST_EVENTS_METADATA_ID carries the number lost since the
 * previous one (when no frame ever fits again, they cannot). */
SYSPROF_AVAILABLE_IN_ALL
uint64_t sysprof_collector_get_n_dropped (void);

SYSPROF_END_DECLS
