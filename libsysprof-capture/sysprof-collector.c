// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "sysprof-capture-util-private.h"
#include "sysprof-clock.h"
#include "sysprof-collector.h"
#include "sysprof-mapped-ring-buffer.h"

/* In-ring end-of-stream marker: Sysprof's consumers stop reading a ring at it. */
#define FRAME_END     0xFF
#define END_FRAME_LEN sizeof (SysprofCaptureFrame)
#define PRINTF_MAX    2048
#define REQUEST       "CreatRing"
#define REQUEST_LEN   sizeof REQUEST /* with its NUL: the wire has 10 bytes */
#define ROUND_TRIP_MS 10000
#define WAIT_FIRST_NS 50000
#define WAIT_MAX_NS   1000000
#define WAIT_TOTAL_NS 1000000000

/* In the memory tracker, initial-exec TLS: the collector runs inside its
 * malloc hooks, where the lazy allocation of global-dynamic TLS would
 * recurse into malloc (an LD_PRELOAD library has static TLS anyway).
 * Elsewhere the default model: a module that embeds the collector (as GTK
 * and GLib do upstream's) may be dlopen()ed after start, when no static TLS
 * is left for it. */
#ifdef SYSPROF_COLLECTOR_INITIAL_EXEC
#define TLS __thread __attribute__ ((tls_model ("initial-exec")))
#else
#define TLS __thread
#endif

typedef enum
{
  PROCESS_UNKNOWN = 0,
  PROCESS_ENABLED,
  PROCESS_DISABLED, /* no profiler: calls are no-ops */
  PROCESS_BROKEN,   /* the control channel failed: new threads lose their events */
} ProcessState;

typedef enum
{
  THREAD_UNSET = 0,
  THREAD_READY,
  /* Creating the ring or writing a frame: re-entrant calls (malloc hooks
   * reached from inside the collector, signal handlers) are ignored. */
  THREAD_BUSY,
  THREAD_FAILED, /* no ring could be had: events are counted as dropped */
  /* The ring got its end frame at thread exit.  Events that still come (from
   * destructors that run after ours, glibc's own clean-up) go to the
   * process's shared ring. */
  THREAD_CLOSED,
} ThreadState;

/* Timestamps for a thread's frames.  clock_gettime() costs ~50 ns in a VM
 * (kvm-clock), as much as the rest of an event; on x86-64 with an invariant
 * TSC the clock is read for real at most every SYNC_NS and extrapolated with
 * the TSC in between, using the thread's own measured TSC rate.  Times stay
 * monotonic per thread and within nanoseconds of the real clock, which the
 * profiler needs to merge threads in time order. */
typedef struct
{
  int64_t  first_ns; /* calibration start */
  uint64_t first_tsc;
  int64_t  base_ns; /* last real reading */
  uint64_t base_tsc;
  uint64_t mult;      /* ns per tick << 32, 0 until calibrated */
  uint64_t max_ticks; /* SYNC_NS worth of ticks */
  int64_t  last_ns;
} ThreadClock;

#define SYNC_NS        16000
#define CALIBRATION_NS 1000000

typedef struct
{
  SysprofMappedRingBuffer *ring;
  ThreadClock              clock;
  int32_t                  pid;
  int32_t                  tid;
  uint8_t                  state;
  /* The last wait for a full ring timed out: drop without waiting until a
   * frame fits again, so a stuck consumer costs one second, not one per event. */
  bool gave_up;
  /* Times thread_exit_cb ran; it closes the ring in the last round. */
  uint8_t exit_rounds;
} Collector;

static TLS Collector tls_collector;

/* The ring of late events (see THREAD_CLOSED), requested on first use and
 * used under shared_lock.  Rare, so the lock costs nothing that matters. */
static Collector       shared_collector;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic int      process_state = PROCESS_UNKNOWN;
static _Atomic uint64_t n_dropped;
/* Of n_dropped, what was already reported in the capture. */
static _Atomic uint64_t n_dropped_reported;
static _Atomic uint32_t next_counter_id = SYSPROF_COLLECTOR_COUNTER_ID_BASE;
static int              control_fd = -1;
/* $SYSPROF_FOLLOW_CHILDREN=1: children (fork, exec) are traced too. */
static bool           follow_children;
static pthread_key_t  thread_key;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* The process was found without $SYSPROF_CONTROL_FD: sysprof_collector_is_active()
 * looks again, for a variable set after the start (as upstream answers). */
static atomic_bool     no_control_fd;
static pthread_mutex_t reinit_lock = PTHREAD_MUTEX_INITIALIZER;
/* Serializes the request/reply round trips on the shared control socket. */
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void
count_dropped (void)
{
  atomic_fetch_add_explicit (&n_dropped, 1, memory_order_relaxed);
}

static void
count_dropped_n (unsigned int n)
{
  atomic_fetch_add_explicit (&n_dropped, n ? n : 1, memory_order_relaxed);
}

static void report_dropped (Collector *c);

/* ---- process-wide state ------------------------------------------------ */

static void
thread_exit_cb (void *data)
{
  Collector           *c = data;
  SysprofCaptureFrame *end;

  if (c != &tls_collector || c->state != THREAD_READY)
    return;
  /* Other keys' destructors may still allocate and free: stay open until
   * the last round of destructor calls (a value set again in a destructor
   * makes glibc call it again, up to PTHREAD_DESTRUCTOR_ITERATIONS times). */
  if (++c->exit_rounds < PTHREAD_DESTRUCTOR_ITERATIONS && pthread_setspecific (thread_key, c) == 0)
    return;
  c->state = THREAD_BUSY;
  report_dropped (c);
  /* Every event left END_FRAME_LEN bytes free, so this always fits. */
  if ((end = sysprof_mapped_ring_buffer_allocate (c->ring, END_FRAME_LEN)) != NULL)
    {
      memset (end, 0, END_FRAME_LEN);
      end->len = END_FRAME_LEN;
      end->cpu = (int16_t) sched_getcpu ();
      end->pid = c->pid;
      end->time = SYSPROF_CAPTURE_CURRENT_TIME;
      end->type = FRAME_END;
      sysprof_mapped_ring_buffer_advance (c->ring, END_FRAME_LEN);
    }
  sysprof_mapped_ring_buffer_unref (c->ring);
  c->ring = NULL;
  c->state = THREAD_CLOSED;
}

/* No round trip may be half done in the child of a fork. */
static void
atfork_prepare_cb (void)
{
  pthread_mutex_lock (&control_lock);
  pthread_mutex_lock (&shared_lock);
}

static void
atfork_parent_cb (void)
{
  pthread_mutex_unlock (&shared_lock);
  pthread_mutex_unlock (&control_lock);
}

/* The child of a fork must never write into the parent's rings: they belong
 * to the parent's threads.  Unless children are followed it is not traced at
 * all; otherwise its threads ask for rings of their own, on the same control
 * socket (replies are interchangeable fresh rings, and each process reads
 * exactly one per request, so processes sharing the socket stay in step).
 * Other threads' rings stay mapped in the child but nothing writes to them. */
static void
atfork_child_cb (void)
{
  Collector *c = &tls_collector;

  /* Unreferencing frees memory: the free hook must find this thread busy. */
  c->state = THREAD_BUSY;
  pthread_mutex_init (&shared_lock, NULL);
  pthread_mutex_init (&control_lock, NULL);
  if (!follow_children)
    atomic_store (&process_state, PROCESS_DISABLED);
  atomic_store (&n_dropped, 0);
  atomic_store (&n_dropped_reported, 0);
  if (c->ring != NULL)
    sysprof_mapped_ring_buffer_unref (c->ring);
  if (shared_collector.ring != NULL)
    sysprof_mapped_ring_buffer_unref (shared_collector.ring);
  shared_collector.ring = NULL;
  c->ring = NULL;
  c->gave_up = false;
  c->exit_rounds = 0;
  c->state = THREAD_UNSET;
  pthread_setspecific (thread_key, NULL);
}

static int
parse_control_fd (void)
{
  const char *env = getenv ("SYSPROF_CONTROL_FD");
  char       *end = NULL;
  long        fd;
  int         type = 0, domain = 0;
  socklen_t   len;

  if (env == NULL || *env < '0' || *env > '9')
    return -1;
  errno = 0;
  fd = strtol (env, &end, 10);
  if (errno != 0 || *end != 0 || fd < 0 || fd > INT_MAX)
    return -1;
  len = sizeof type;
  if (getsockopt ((int) fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
    return -1;
  len = sizeof domain;
  if (getsockopt ((int) fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_UNIX)
    return -1;
  return (int) fd;
}

static void
global_init (void)
{
  const char *env;
  int         fd, flags;

  sysprof_clock_init ();
  if ((fd = parse_control_fd ()) < 0)
    {
      atomic_store (&no_control_fd, getenv ("SYSPROF_CONTROL_FD") == NULL);
      atomic_store (&process_state, PROCESS_DISABLED);
      return;
    }
  atomic_store (&no_control_fd, false);
  follow_children = (env = getenv ("SYSPROF_FOLLOW_CHILDREN")) != NULL && strcmp (env, "1") == 0;
  /* Programs we exec speak on our channel only when children are followed. */
  if ((flags = fcntl (fd, F_GETFD)) >= 0)
    fcntl (fd, F_SETFD, follow_children ? flags & ~FD_CLOEXEC : flags | FD_CLOEXEC);
  if (pthread_key_create (&thread_key, thread_exit_cb) != 0)
    {
      atomic_store (&process_state, PROCESS_DISABLED);
      return;
    }
  if (pthread_atfork (atfork_prepare_cb, atfork_parent_cb, atfork_child_cb) != 0)
    {
      atomic_store (&process_state, PROCESS_DISABLED);
      return;
    }
  control_fd = fd;
  atomic_store (&process_state, PROCESS_ENABLED);
}

/* Runs global_init once, with this thread marked busy so that a malloc hook
 * reached from inside it (pthread_atfork may allocate) returns at once
 * instead of re-entering pthread_once and deadlocking. */
static void
ensure_init (void)
{
  Collector *c = &tls_collector;
  uint8_t    saved;

  if (atomic_load (&process_state) != PROCESS_UNKNOWN)
    return;
  if (c->state == THREAD_BUSY)
    return;
  saved = c->state;
  c->state = THREAD_BUSY;
  pthread_once (&init_once, global_init);
  c->state = saved;
}

/* ---- the control round trip --------------------------------------------- */

static bool
wait_fd (int fd, short events)
{
  struct pollfd pfd = { .fd = fd, .events = events };
  int           r;

  do
    r = poll (&pfd, 1, ROUND_TRIP_MS);
  while (r < 0 && errno == EINTR);
  return r > 0;
}

/* Returns the ring memfd, -1 when the profiler answered without one (the
 * channel is still in step), or -2 when the channel is broken. */
static int
request_ring_fd (int fd)
{
  union
  {
    struct cmsghdr hdr;
    char           buf[CMSG_SPACE (4 * sizeof (int))];
  } control;
  struct iovec    iov;
  struct msghdr   msg;
  struct cmsghdr *cmsg;
  const char     *request = REQUEST;
  size_t          sent = 0;
  char            byte;
  ssize_t         n;
  int             ring_fd = -1;

  /* The control fd may be non-blocking: poll rather than change its flags,
   * which are shared with whoever else holds the socket. */
  while (sent < REQUEST_LEN)
    {
      n = send (fd, request + sent, REQUEST_LEN - sent, MSG_NOSIGNAL);
      if (n > 0)
        sent += (size_t) n;
      else if (n < 0 && errno == EINTR)
        continue;
      else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd (fd, POLLOUT))
        continue;
      else
        return -2;
    }

  for (;;)
    {
      iov.iov_base = &byte;
      iov.iov_len = 1;
      memset (&msg, 0, sizeof msg);
      memset (&control, 0, sizeof control);
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control.buf;
      msg.msg_controllen = sizeof control.buf;
      n = recvmsg (fd, &msg, MSG_CMSG_CLOEXEC);
      if (n == 1)
        break;
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd (fd, POLLIN))
        continue;
      return -2;
    }

  /* Keep the first descriptor; a peer sending more gets the rest closed. */
  for (cmsg = CMSG_FIRSTHDR (&msg); cmsg != NULL; cmsg = CMSG_NXTHDR (&msg, cmsg))
    {
      if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
        continue;
      for (size_t i = 0; i < (cmsg->cmsg_len - CMSG_LEN (0)) / sizeof (int); i++)
        {
          int got;

          memcpy (&got, CMSG_DATA (cmsg) + i * sizeof (int), sizeof got);
          if (ring_fd < 0)
            ring_fd = got;
          else
            close (got);
        }
    }
  return ring_fd;
}

/* Gets a ring from the profiler for @c: the calling thread's collector, or
 * the shared one (@per_thread false, under shared_lock).  Called with the
 * thread marked busy. */
static bool
collector_create (Collector *c, bool per_thread)
{
  int ring_fd;

  pthread_mutex_lock (&control_lock);
  if (atomic_load (&process_state) != PROCESS_ENABLED)
    ring_fd = -2;
  else
    ring_fd = request_ring_fd (control_fd);
  if (ring_fd == -2 && atomic_load (&process_state) == PROCESS_ENABLED)
    /* Out of step with the profiler: no later reply could be trusted. */
    atomic_store (&process_state, PROCESS_BROKEN);
  pthread_mutex_unlock (&control_lock);
  if (ring_fd < 0)
    return false;

  c->ring = sysprof_mapped_ring_buffer_new_writer (ring_fd);
  close (ring_fd);
  if (c->ring == NULL)
    return false;
  /* A value for the key makes the thread's exit run thread_exit_cb. */
  if (per_thread && pthread_setspecific (thread_key, c) != 0)
    {
      sysprof_mapped_ring_buffer_unref (c->ring);
      c->ring = NULL;
      return false;
    }
  c->pid = (int32_t) getpid ();
  c->tid = (int32_t) gettid ();
  c->gave_up = false;
  return true;
}

/* The shared collector for a thread whose own ring is closed, locked and
 * with this thread's id; NULL (counted) when no ring can be had. */
static Collector *
shared_begin (void)
{
  Collector *c = &shared_collector;

  tls_collector.state = THREAD_BUSY;
  pthread_mutex_lock (&shared_lock);
  if (c->ring == NULL && !collector_create (c, false))
    {
      pthread_mutex_unlock (&shared_lock);
      tls_collector.state = THREAD_CLOSED;
      count_dropped ();
      return NULL;
    }
  c->tid = (int32_t) gettid ();
  return c;
}

static __attribute__ ((noinline)) Collector *
collector_get_slow (void)
{
  Collector *c = &tls_collector;
  int        state;

  switch (c->state)
    {
    case THREAD_BUSY: return NULL;
    case THREAD_FAILED: count_dropped (); return NULL;
    case THREAD_CLOSED:
      if (atomic_load (&process_state) != PROCESS_ENABLED)
        {
          count_dropped ();
          return NULL;
        }
      return shared_begin ();
    default: break;
    }

  ensure_init ();
  state = atomic_load (&process_state);
  if (state != PROCESS_ENABLED)
    {
      if (state == PROCESS_BROKEN)
        count_dropped ();
      return NULL;
    }

  c->state = THREAD_BUSY;
  if (!collector_create (c, true))
    {
      /* Unset again when the profiler is gone altogether: BROKEN counts it. */
      c->state = atomic_load (&process_state) == PROCESS_ENABLED ? THREAD_FAILED : THREAD_UNSET;
      count_dropped ();
      return NULL;
    }
  return c;
}

/* The collector to write one frame with, and the calling thread marked busy
 * (release both with collector_end()), or NULL when the event is to be
 * skipped. */
static inline Collector *
collector_begin (void)
{
  Collector *c = &tls_collector;

  if (SYSPROF_UNLIKELY (c->state != THREAD_READY))
    {
      /* Not traced: one relaxed load, no call. */
      if (atomic_load_explicit (&process_state, memory_order_relaxed) == PROCESS_DISABLED)
        return NULL;
      return collector_get_slow ();
    }
  c->state = THREAD_BUSY;
  return c;
}

static inline void
collector_end (Collector *c)
{
  /* Losses not yet in the capture: say so as soon as a frame fits again. */
  if (SYSPROF_UNLIKELY (atomic_load_explicit (&n_dropped, memory_order_relaxed) !=
                        atomic_load_explicit (&n_dropped_reported, memory_order_relaxed)))
    report_dropped (c);
  if (c == &shared_collector)
    {
      pthread_mutex_unlock (&shared_lock);
      tls_collector.state = THREAD_CLOSED;
      return;
    }
  c->state = THREAD_READY;
}

/* Losses still unreported at exit (the main thread's ring was full until
 * the end) get one last chance. */
__attribute__ ((destructor)) static void
collector_destructor (void)
{
  Collector *c;

  if (atomic_load (&n_dropped) == atomic_load (&n_dropped_reported))
    return;
  if ((c = collector_begin ()) != NULL)
    collector_end (c);
}

/* ---- writing frames ---------------------------------------------------- */

static __attribute__ ((noinline)) void *
reserve_slow (Collector *c, size_t len)
{
  struct timespec ts = { 0, WAIT_FIRST_NS };
  int64_t         waited = 0;
  void           *p;

  if (errno != EAGAIN || c->gave_up)
    return NULL;
  while (waited < WAIT_TOTAL_NS)
    {
      nanosleep (&ts, NULL);
      waited += ts.tv_nsec;
      if ((p = sysprof_mapped_ring_buffer_allocate (c->ring, len + END_FRAME_LEN)) != NULL)
        return p;
      if (errno != EAGAIN)
        return NULL;
      if (ts.tv_nsec < WAIT_MAX_NS)
        ts.tv_nsec = ts.tv_nsec * 2 > WAIT_MAX_NS ? WAIT_MAX_NS : ts.tv_nsec * 2;
    }
  c->gave_up = true;
  return NULL;
}

/* Room for a frame of at most @len (8-aligned) bytes, always leaving space
 * for the end frame behind it.  NULL (counted as dropped) when the consumer
 * does not free enough in time. */
static inline void *
frame_reserve (Collector *c, size_t len)
{
  void *p = sysprof_mapped_ring_buffer_allocate (c->ring, len + END_FRAME_LEN);

  if (SYSPROF_UNLIKELY (p == NULL) && (p = reserve_slow (c, len)) == NULL)
    {
      count_dropped ();
      return NULL;
    }
  c->gave_up = false;
  return p;
}

#if defined(__x86_64__)
/* A real reading, bracketed by two TSC reads whose midpoint it is taken to
 * match; recalibrates the rate once the thread has run long enough. */
static __attribute__ ((noinline)) int64_t
clock_sync (ThreadClock *k)
{
  uint64_t before = __rdtsc ();
  int64_t  ns = SYSPROF_CAPTURE_CURRENT_TIME;
  uint64_t tsc = before + (__rdtsc () - before) / 2;

  if (k->first_ns == 0)
    {
      k->first_ns = ns;
      k->first_tsc = tsc;
    }
  else if (ns - k->first_ns >= CALIBRATION_NS && tsc > k->first_tsc)
    {
      k->mult = (uint64_t) (((unsigned __int128) (ns - k->first_ns) << 32) / (tsc - k->first_tsc));
      k->max_ticks = k->mult ? ((uint64_t) SYNC_NS << 32) / k->mult : 0;
    }
  k->base_ns = ns;
  k->base_tsc = tsc;
  if (ns < k->last_ns)
    ns = k->last_ns;
  k->last_ns = ns;
  return ns;
}

static inline int64_t
collector_now (Collector *c)
{
  ThreadClock *k = &c->clock;
  uint64_t     tsc, d;
  int64_t      ns;

  if (SYSPROF_UNLIKELY (k->mult == 0))
    return clock_sync (k);
  tsc = __rdtsc ();
  d = tsc - k->base_tsc;
  /* Backwards (another CPU's TSC) or too far: read the clock. */
  if (SYSPROF_UNLIKELY (tsc < k->base_tsc || d >= k->max_ticks))
    return clock_sync (k);
  ns = k->base_ns + (int64_t) ((d * k->mult) >> 32);
  if (ns < k->last_ns)
    ns = k->last_ns;
  k->last_ns = ns;
  return ns;
}
#else
static inline int64_t
collector_now (Collector *c)
{
  (void) c;
  return SYSPROF_CAPTURE_CURRENT_TIME;
}
#endif

static inline void
frame_commit (Collector *c, SysprofCaptureFrame *frame, size_t len, int64_t time, int type)
{
  frame->len = (uint16_t) len;
  frame->cpu = (int16_t) sched_getcpu ();
  frame->pid = c->pid;
  frame->time = time;
  frame->type = (uint32_t) type;
  frame->padding1 = 0;
  frame->padding2 = 0;
  sysprof_mapped_ring_buffer_advance (c->ring, len);
}

/* Writes the METADATA frame that tells the capture how many events this
 * process lost since the last such frame (SYSPROF_LOST_EVENTS_METADATA_ID).
 * Without room it waits for no one: the next frame tries again. */
static void
report_dropped (Collector *c)
{
  SysprofCaptureMetadata *ev;
  uint64_t                reported = atomic_load (&n_dropped_reported);
  uint64_t                dropped = atomic_load (&n_dropped);
  char                    text[64];
  size_t                  text_len, len;

  if (dropped == reported)
    return;
  text_len = (size_t) snprintf (text, sizeof text, "%llu collector: events dropped by the profiled process",
                                (unsigned long long) (dropped - reported));
  if (text_len >= sizeof text)
    text_len = sizeof text - 1;
  len = SYSPROF_ALIGN_UP (sizeof *ev + text_len + 1, SYSPROF_CAPTURE_ALIGN);
  if ((ev = sysprof_mapped_ring_buffer_allocate (c->ring, len + END_FRAME_LEN)) == NULL)
    return;
  /* Another thread may report the same losses: only one commits its frame. */
  if (!atomic_compare_exchange_strong (&n_dropped_reported, &reported, dropped))
    return;
  memset (ev->id, 0, sizeof ev->id);
  memcpy (ev->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof SYSPROF_LOST_EVENTS_METADATA_ID);
  memcpy (ev->metadata, text, text_len);
  memset (ev->metadata + text_len, 0, len - sizeof *ev - text_len);
  frame_commit (c, &ev->frame, len, collector_now (c), SYSPROF_CAPTURE_FRAME_METADATA);
}

static inline int
run_backtrace (SysprofBacktraceFunc backtrace_func, void *backtrace_data, void *addrs)
{
  int n;

  if (backtrace_func == NULL)
    return 0;
  n = backtrace_func ((SysprofCaptureAddress *) addrs, SYSPROF_COLLECTOR_MAX_ADDRS, backtrace_data);
  if (n < 0)
    return 0;
  return n > SYSPROF_COLLECTOR_MAX_ADDRS ? SYSPROF_COLLECTOR_MAX_ADDRS : n;
}

void
sysprof_collector_init (void)
{
  ensure_init ();
}

/* At load: a program we exec and a child that forks off before the first
 * event must not speak on our channel unless children are followed
 * (global_init sets close-on-exec and the fork handlers).  No ring is asked
 * for until an event comes. */
__attribute__ ((constructor)) static void
collector_constructor (void)
{
  ensure_init ();
}

/* Answers from the environment, without asking for a ring (GTK asks once
 * at start whether to report anything at all). */
bool
sysprof_collector_is_active (void)
{
  ensure_init ();
  if (atomic_load (&process_state) == PROCESS_DISABLED && atomic_load (&no_control_fd) &&
      getenv ("SYSPROF_CONTROL_FD") != NULL)
    {
      Collector *c = &tls_collector;
      uint8_t    saved = c->state;

      /* Set since the first look: look again, once. */
      c->state = THREAD_BUSY;
      pthread_mutex_lock (&reinit_lock);
      if (atomic_load (&process_state) == PROCESS_DISABLED && atomic_load (&no_control_fd))
        global_init ();
      pthread_mutex_unlock (&reinit_lock);
      c->state = saved;
    }
  return atomic_load (&process_state) == PROCESS_ENABLED;
}

void
sysprof_collector_allocate (SysprofCaptureAddress alloc_addr,
                            int64_t               alloc_size,
                            SysprofBacktraceFunc  backtrace_func,
                            void                 *backtrace_data)
{
  SysprofCaptureAllocation *ev;
  Collector                *c;
  int                       saved_errno = errno;
  int                       n;

  if ((c = collector_begin ()) == NULL)
    goto out;
  if ((ev = frame_reserve (c, sizeof *ev + SYSPROF_COLLECTOR_MAX_ADDRS * sizeof (SysprofCaptureAddress))) != NULL)
    {
      /* Unwind straight into the frame; the ring body is 8-aligned, so is
       * the address array. */
      n = run_backtrace (backtrace_func, backtrace_data, (uint8_t *) ev + sizeof *ev);
      ev->alloc_addr = alloc_addr;
      ev->alloc_size = alloc_size;
      ev->tid = c->tid;
      ev->n_addrs = (uint32_t) n;
      ev->padding1 = 0;
      frame_commit (c, &ev->frame, sizeof *ev + (size_t) n * sizeof (SysprofCaptureAddress), collector_now (c),
                    SYSPROF_CAPTURE_FRAME_ALLOCATION);
    }
  collector_end (c);
out:
  errno = saved_errno;
}

static void
add_stack_frame (SysprofBacktraceFunc backtrace_func, void *backtrace_data, int type, bool entering)
{
  SysprofCaptureTrace *ev;
  Collector           *c;
  int                  saved_errno = errno;
  int                  n;

  if ((c = collector_begin ()) == NULL)
    goto out;
  /* SAMPLE and TRACE share one layout; SAMPLE keeps the entering bit 0. */
  if ((ev = frame_reserve (c, sizeof *ev + SYSPROF_COLLECTOR_MAX_ADDRS * sizeof (SysprofCaptureAddress))) != NULL)
    {
      n = run_backtrace (backtrace_func, backtrace_data, (uint8_t *) ev + sizeof *ev);
      ev->n_addrs = (uint32_t) n;
      ev->entering = entering;
      ev->padding1 = 0;
      ev->tid = c->tid;
      frame_commit (c, &ev->frame, sizeof *ev + (size_t) n * sizeof (SysprofCaptureAddress), collector_now (c), type);
    }
  collector_end (c);
out:
  errno = saved_errno;
}

void
sysprof_collector_sample (SysprofBacktraceFunc backtrace_func, void *backtrace_data)
{
  add_stack_frame (backtrace_func, backtrace_data, SYSPROF_CAPTURE_FRAME_SAMPLE, false);
}

void
sysprof_collector_trace (SysprofBacktraceFunc backtrace_func, void *backtrace_data, bool entering)
{
  add_stack_frame (backtrace_func, backtrace_data, SYSPROF_CAPTURE_FRAME_TRACE, entering);
}

/* The length of a frame made of @head fixed bytes and @text (NUL-terminated,
 * truncated to fit the largest frame), 8-aligned. */
static size_t
trailing_string_len (size_t head, const char *text, size_t *text_len)
{
  size_t max = SYSPROF_CAPTURE_MAX_FRAME_LEN - head - 1;
  size_t n = text ? strnlen (text, max) : 0;

  *text_len = n;
  return SYSPROF_ALIGN_UP (head + n + 1, SYSPROF_CAPTURE_ALIGN);
}

/* Copies @text behind the fixed part and zero-fills the rest of the frame. */
static void
put_trailing_string (void *frame, size_t head, const char *text, size_t text_len, size_t frame_len)
{
  uint8_t *p = (uint8_t *) frame + head;

  if (text_len)
    memcpy (p, text, text_len);
  memset (p + text_len, 0, frame_len - head - text_len);
}

void
sysprof_collector_mark (int64_t time, int64_t duration, const char *group, const char *mark, const char *message)
{
  SysprofCaptureMark *ev;
  Collector          *c;
  int                 saved_errno = errno;
  size_t              msg_len, len;

  if ((c = collector_begin ()) == NULL)
    goto out;
  len = trailing_string_len (sizeof *ev, message, &msg_len);
  if ((ev = frame_reserve (c, len)) != NULL)
    {
      ev->duration = duration;
      _sysprof_strlcpy_field (ev->group, group, sizeof ev->group);
      _sysprof_strlcpy_field (ev->name, mark, sizeof ev->name);
      put_trailing_string (ev, sizeof *ev, message, msg_len, len);
      frame_commit (c, &ev->frame, len, time, SYSPROF_CAPTURE_FRAME_MARK);
    }
  collector_end (c);
out:
  errno = saved_errno;
}

void
sysprof_collector_mark_vprintf (
    int64_t time, int64_t duration, const char *group, const char *mark, const char *message_format, va_list args)
{
  char buf[PRINTF_MAX];
  int  saved_errno = errno;

  /* Formatting costs more than the check: skip it when nothing is recorded. */
  if (tls_collector.state != THREAD_READY && !sysprof_collector_is_active ())
    return;
  if (message_format == NULL || vsnprintf (buf, sizeof buf, message_format, args) < 0)
    buf[0] = 0;
  sysprof_collector_mark (time, duration, group, mark, buf);
  errno = saved_errno;
}

void
sysprof_collector_mark_printf (
    int64_t time, int64_t duration, const char *group, const char *mark, const char *message_format, ...)
{
  va_list args;

  va_start (args, message_format);
  sysprof_collector_mark_vprintf (time, duration, group, mark, message_format, args);
  va_end (args);
}

void
sysprof_collector_log (int severity, const char *domain, const char *message)
{
  SysprofCaptureLog *ev;
  Collector         *c;
  int                saved_errno = errno;
  size_t             msg_len, len;

  if ((c = collector_begin ()) == NULL)
    goto out;
  len = trailing_string_len (sizeof *ev, message, &msg_len);
  if ((ev = frame_reserve (c, len)) != NULL)
    {
      ev->severity = (uint32_t) severity & 0xFFFF;
      ev->padding1 = 0;
      ev->padding2 = 0;
      _sysprof_strlcpy_field (ev->domain, domain, sizeof ev->domain);
      put_trailing_string (ev, sizeof *ev, message, msg_len, len);
      frame_commit (c, &ev->frame, len, collector_now (c), SYSPROF_CAPTURE_FRAME_LOG);
    }
  collector_end (c);
out:
  errno = saved_errno;
}

void
sysprof_collector_log_printf (int severity, const char *domain, const char *format, ...)
{
  char    buf[PRINTF_MAX];
  int     saved_errno = errno;
  va_list args;

  if (tls_collector.state != THREAD_READY && !sysprof_collector_is_active ())
    return;
  va_start (args, format);
  if (format == NULL || vsnprintf (buf, sizeof buf, format, args) < 0)
    buf[0] = 0;
  va_end (args);
  sysprof_collector_log (severity, domain, buf);
  errno = saved_errno;
}

/* ---- the memory tracker's streams ---------------------------------------- */

int64_t
sysprof_collector_get_time (void)
{
  return collector_now (&tls_collector);
}

bool
sysprof_collector_write_memory_stream (int32_t tid, const void *block, size_t len, bool is_last, unsigned int n_events)
{
  SysprofCaptureFileChunk *ev;
  Collector               *c;
  int                      saved_errno = errno;
  size_t                   frame_len = SYSPROF_ALIGN_UP (sizeof *ev + len, SYSPROF_CAPTURE_ALIGN);
  bool                     written = false;

  if (tid <= 0 || block == NULL || len == 0 || len > SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK)
    {
      count_dropped_n (n_events);
      goto out;
    }
  /* A call from inside the collector (a signal handler interrupting a
   * write) has nowhere to go; unlike other events these are counted: a
   * block holds events made before, outside the collector. */
  if (tls_collector.state == THREAD_BUSY)
    {
      count_dropped_n (n_events);
      goto out;
    }
  /* When it finds no ring, collector_begin() counts one event (unless the
   * process is not traced at all); the block held n_events. */
  if ((c = collector_begin ()) == NULL)
    {
      if (n_events > 1 && atomic_load_explicit (&process_state, memory_order_relaxed) != PROCESS_DISABLED)
        count_dropped_n (n_events - 1);
      goto out;
    }
  /* frame_reserve counts one event when it gives up; the block held more. */
  if ((ev = frame_reserve (c, frame_len)) == NULL)
    {
      if (n_events > 1)
        count_dropped_n (n_events - 1);
    }
  else
    {
      ev->is_last = is_last;
      ev->padding1 = 0;
      ev->len = (uint32_t) len;
      /* The whole field zeroed: no bytes of an earlier frame reach the capture. */
      memset (ev->path, 0, sizeof ev->path);
      snprintf (ev->path, sizeof ev->path, "%s%d", SYSPROF_COLLECTOR_MEMORY_STREAM_PREFIX, (int) tid);
      memcpy (ev->data, block, len);
      memset (ev->data + len, 0, frame_len - sizeof *ev - len);
      frame_commit (c, &ev->frame, frame_len, collector_now (c), SYSPROF_CAPTURE_FRAME_FILE_CHUNK);
      written = true;
    }
  collector_end (c);
out:
  errno = saved_errno;
  return written;
}

/* ---- describing the process ---------------------------------------------- */

#define MAPS_BUF 8192

/* Reads what is left of @fd into @buf (at most @size - 1 bytes, then NUL). */
static size_t
read_small_file (int fd, char *buf, size_t size)
{
  size_t  done = 0;
  ssize_t n;

  while (done < size - 1)
    {
      n = read (fd, buf + done, size - 1 - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += (size_t) n;
    }
  buf[done] = 0;
  return done;
}

static void
write_process_frame (Collector *c)
{
  SysprofCaptureProcess *ev;
  char                   cmdline[2048];
  size_t                 n = 0, len;
  int                    fd;

  if ((fd = open ("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) >= 0)
    {
      n = read_small_file (fd, cmdline, sizeof cmdline);
      close (fd);
    }
  /* Arguments are NUL-separated: the capture shows them space-separated. */
  while (n > 0 && cmdline[n - 1] == 0)
    n--;
  for (size_t i = 0; i < n; i++)
    if (cmdline[i] == 0)
      cmdline[i] = ' ';
  cmdline[n] = 0;
  len = SYSPROF_ALIGN_UP (sizeof *ev + n + 1, SYSPROF_CAPTURE_ALIGN);
  if ((ev = frame_reserve (c, len)) == NULL)
    return;
  put_trailing_string (ev, sizeof *ev, cmdline, n, len);
  frame_commit (c, &ev->frame, len, collector_now (c), SYSPROF_CAPTURE_FRAME_PROCESS);
}

static bool
parse_hex (const char **p, uint64_t *value)
{
  uint64_t v = 0;
  int      digits = 0;

  for (;; (*p)++, digits++)
    {
      char ch = **p;
      int  d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;

      if (d < 0)
        break;
      v = (v << 4) | (uint64_t) d;
    }
  *value = v;
  return digits > 0 && digits <= 16;
}

/* One line of /proc/self/maps (NUL-terminated, without its newline) as a MAP
 * frame, with the rule of the profiler's /proc snapshot: every file-backed
 * mapping (a symbolizer needs an ELF's first segment too) and the anonymous
 * executable ones. */
static void
write_map_line (Collector *c, const char *line)
{
  SysprofCaptureMap *ev;
  const char        *p = line;
  const char        *path;
  uint64_t           start, end, offset, inode = 0;
  bool               exec;
  size_t             path_len, len;

  if (!parse_hex (&p, &start) || *p++ != '-' || !parse_hex (&p, &end) || *p++ != ' ')
    return;
  if (strlen (p) < 5 || p[4] != ' ')
    return;
  exec = p[2] == 'x';
  p += 5;
  if (!parse_hex (&p, &offset) || *p++ != ' ')
    return;
  while (*p && *p != ' ') /* device */
    p++;
  while (*p == ' ')
    p++;
  for (; *p >= '0' && *p <= '9'; p++)
    inode = inode * 10 + (uint64_t) (*p - '0');
  while (*p == ' ')
    p++;
  path = p;
  if (path[0] != '/')
    {
      if (!exec)
        return;
      if (path[0] == 0)
        path = "//anon";
    }
  len = trailing_string_len (sizeof *ev, path, &path_len);
  if ((ev = frame_reserve (c, len)) == NULL)
    return;
  ev->start = start;
  ev->end = end;
  ev->offset = offset;
  ev->inode = inode;
  put_trailing_string (ev, sizeof *ev, path, path_len, len);
  frame_commit (c, &ev->frame, len, collector_now (c), SYSPROF_CAPTURE_FRAME_MAP);
}

static void
write_map_frames (Collector *c)
{
  char   buf[MAPS_BUF];
  size_t have = 0;
  int    fd;

  if ((fd = open ("/proc/self/maps", O_RDONLY | O_CLOEXEC)) < 0)
    return;
  for (;;)
    {
      ssize_t n = read (fd, buf + have, sizeof buf - 1 - have);
      char   *line, *nl;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      have += (size_t) n;
      buf[have] = 0;
      line = buf;
      while ((nl = strchr (line, '\n')) != NULL)
        {
          *nl = 0;
          write_map_line (c, line);
          line = nl + 1;
        }
      have -= (size_t) (line - buf);
      memmove (buf, line, have);
      /* A line longer than the buffer (a path near PATH_MAX) is skipped. */
      if (have == sizeof buf - 1)
        have = 0;
    }
  close (fd);
}

void
sysprof_collector_describe_process (void)
{
  Collector *c;
  int        saved_errno = errno;

  if ((c = collector_begin ()) == NULL)
    goto out;
  write_process_frame (c);
  write_map_frames (c);
  collector_end (c);
out:
  errno = saved_errno;
}

/* ---- counters ------------------------------------------------------------ */

unsigned int
sysprof_collector_request_counters (unsigned int n_counters)
{
  uint32_t first = atomic_load (&next_counter_id);

  sysprof_return_val_if_fail (n_counters > 0, 0);

  /* 0 without a profiler, as upstream: GLib takes it for "not traced". */
  if (!sysprof_collector_is_active ())
    return 0;

  do
    {
      if (n_counters > SYSPROF_CAPTURE_COUNTER_ID_MAX + 1 - first)
        {
          errno = ENOSPC;
          return 0;
        }
    }
  while (!atomic_compare_exchange_weak (&next_counter_id, &first, first + n_counters));
  return first;
}

static bool
counter_id_ok (unsigned int id)
{
  return id >= SYSPROF_COLLECTOR_COUNTER_ID_BASE && id < atomic_load (&next_counter_id);
}

void
sysprof_collector_define_counters (const SysprofCaptureCounter *counters, unsigned int n_counters)
{
  const unsigned int max_per_frame =
      (SYSPROF_CAPTURE_MAX_FRAME_LEN - sizeof (SysprofCaptureCounterDefine)) / sizeof (SysprofCaptureCounter);
  SysprofCaptureCounterDefine *ev;
  Collector                   *c;
  int                          saved_errno = errno;

  if (counters == NULL || n_counters == 0)
    return;
  for (unsigned int i = 0; i < n_counters; i++)
    if (!counter_id_ok (counters[i].id))
      return;
  if ((c = collector_begin ()) == NULL)
    goto out;
  for (unsigned int done = 0; done < n_counters;)
    {
      unsigned int n = n_counters - done < max_per_frame ? n_counters - done : max_per_frame;
      size_t       len = sizeof *ev + (size_t) n * sizeof (SysprofCaptureCounter);

      /* A frame that cannot be written is counted; the next ones still try. */
      if ((ev = frame_reserve (c, len)) != NULL)
        {
          ev->n_counters = n;
          ev->padding1 = 0;
          ev->padding2 = 0;
          memcpy ((uint8_t *) ev + sizeof *ev, counters + done, (size_t) n * sizeof (SysprofCaptureCounter));
          frame_commit (c, &ev->frame, len, collector_now (c), SYSPROF_CAPTURE_FRAME_CTRDEF);
        }
      done += n;
    }
  collector_end (c);
out:
  errno = saved_errno;
}

void
sysprof_collector_set_counters (const unsigned int               *counters_ids,
                                const SysprofCaptureCounterValue *values,
                                unsigned int                      n_counters)
{
  const unsigned int max_groups =
      (SYSPROF_CAPTURE_MAX_FRAME_LEN - sizeof (SysprofCaptureCounterSet)) / sizeof (SysprofCaptureCounterValues);
  SysprofCaptureCounterSet *ev;
  Collector                *c;
  int                       saved_errno = errno;

  if (counters_ids == NULL || values == NULL || n_counters == 0)
    return;
  for (unsigned int i = 0; i < n_counters; i++)
    if (!counter_id_ok (counters_ids[i]))
      return;
  if ((c = collector_begin ()) == NULL)
    goto out;
  for (unsigned int done = 0; done < n_counters;)
    {
      unsigned int                 left = n_counters - done;
      unsigned int                 n_groups = (left + 7) / 8;
      SysprofCaptureCounterValues *groups;
      size_t                       len;

      if (n_groups > max_groups)
        n_groups = max_groups;
      len = sizeof *ev + (size_t) n_groups * sizeof (SysprofCaptureCounterValues);
      if ((ev = frame_reserve (c, len)) == NULL)
        {
          done += left < n_groups * 8 ? left : n_groups * 8;
          continue;
        }
      ev->n_values = n_groups;
      ev->padding1 = 0;
      ev->padding2 = 0;
      groups = (SysprofCaptureCounterValues *) (void *) ((uint8_t *) ev + sizeof *ev);
      /* Unused slots of the last group must read as id 0. */
      memset (groups, 0, (size_t) n_groups * sizeof *groups);
      for (unsigned int i = 0; i < n_groups * 8 && done < n_counters; i++, done++)
        {
          groups[i / 8].ids[i % 8] = counters_ids[done];
          groups[i / 8].values[i % 8] = values[done];
        }
      frame_commit (c, &ev->frame, len, collector_now (c), SYSPROF_CAPTURE_FRAME_CTRSET);
    }
  collector_end (c);
out:
  errno = saved_errno;
}

bool
sysprof_collector_follows_children (void)
{
  ensure_init ();
  return atomic_load (&process_state) != PROCESS_DISABLED && follow_children;
}

uint64_t
sysprof_collector_get_n_dropped (void)
{
  return atomic_load (&n_dropped);
}
