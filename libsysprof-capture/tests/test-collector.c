// SPDX-License-Identifier: GPL-3.0-or-later
/* Collector: this process plays the profiler.  Each test runs this binary
 * again in a child mode with one end of a socketpair as fd 3 and
 * SYSPROF_CONTROL_FD=3, answers its "CreatRing" requests with reader rings,
 * drains them, validates every frame and checks the exact content. */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include <sysprof-capture.h>

#define CHILD_ARG      "--collector-child"
#define RING_END       0xFF
#define BASE           SYSPROF_COLLECTOR_COUNTER_ID_BASE
#define N_THREADS      4
#define N_PER_THREAD   1000
#define N_STRESS       100000
#define N_DROP         1000
#define LONG_MSG_LEN   3000
#define SERVE_DEADLINE (60 * G_USEC_PER_SEC)

static char *self_exe;

/* ---- child side ------------------------------------------------------------ */

typedef struct
{
  guint64  first;
  guint    n;
  gboolean nest;
  int      ret;
} Bt;

/* Fills @n consecutive addresses from @first; optionally calls back into the
 * collector, which must ignore calls made from inside an event. */
static int
bt_func (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *user_data)
{
  Bt *bt = user_data;

  g_assert_cmpuint (n_addrs, ==, SYSPROF_COLLECTOR_MAX_ADDRS);
  if (bt->nest)
    {
      sysprof_collector_mark (1, 1, "nested", "nested", "must not appear");
      sysprof_collector_allocate (0xDEAD, 1, NULL, NULL);
    }
  for (guint i = 0; i < bt->n && i < n_addrs; i++)
    addrs[i] = bt->first + i;
  return bt->ret;
}

static void
child_basic (void)
{
  SysprofCaptureCounter      counters[10];
  SysprofCaptureCounterValue values[10];
  unsigned int               ids[10];
  unsigned int               bad_id = 5;
  char                       long_msg[LONG_MSG_LEN + 1];
  Bt                         bt;

  g_assert_true (sysprof_collector_is_active ());
  errno = 4242;
  sysprof_collector_mark (12345, 678, "group", "name", "message");
  g_assert_cmpint (errno, ==, 4242);
  sysprof_collector_mark_printf (1, 2, "g", "n", "answer=%d", 42);
  sysprof_collector_mark (3, 4, "0123456789012345678901234567890", "0123456789012345678901234567890123456789abc", NULL);
  sysprof_collector_log (16, "domain", "hello");
  sysprof_collector_log_printf (64, "d", "x=%s", "y");

  g_assert_cmpuint (sysprof_collector_request_counters (3), ==, BASE);
  g_assert_cmpuint (sysprof_collector_request_counters (7), ==, BASE + 3);
  errno = 0;
  g_assert_cmpuint (sysprof_collector_request_counters (0), ==, 0);
  g_assert_cmpint (errno, ==, EINVAL);
  memset (counters, 0, sizeof counters);
  for (guint i = 0; i < 10; i++)
    {
      g_snprintf (counters[i].category, sizeof counters[i].category, "cat");
      g_snprintf (counters[i].name, sizeof counters[i].name, "c%u", i);
      g_snprintf (counters[i].description, sizeof counters[i].description, "counter %u", i);
      counters[i].id = BASE + i;
      counters[i].type = i % 2 ? SYSPROF_CAPTURE_COUNTER_DOUBLE : SYSPROF_CAPTURE_COUNTER_INT64;
      counters[i].value.v64 = i;
      ids[i] = BASE + i;
      values[i].v64 = 100 + i;
    }
  /* Ids that were not handed out by this process are refused. */
  counters[0].id = 5;
  sysprof_collector_define_counters (counters, 10);
  counters[0].id = BASE;
  sysprof_collector_define_counters (counters, 10);
  sysprof_collector_define_counters (NULL, 1);
  sysprof_collector_set_counters (&bad_id, values, 1);
  ids[9] = BASE + 10;
  sysprof_collector_set_counters (ids, values, 10);
  ids[9] = BASE + 9;
  sysprof_collector_set_counters (ids, values, 10);

  bt = (Bt){ .first = 0xA0, .n = 5, .ret = 5 };
  sysprof_collector_allocate (0x1000, 64, bt_func, &bt);
  sysprof_collector_allocate (0x1000, 0, NULL, NULL);
  bt = (Bt){ .first = 0xB0, .n = 3, .ret = 3 };
  sysprof_collector_sample (bt_func, &bt);
  bt = (Bt){ .first = 0xC0, .n = 2, .ret = 2 };
  sysprof_collector_trace (bt_func, &bt, true);
  bt = (Bt){ .first = 0xD000, .n = SYSPROF_COLLECTOR_MAX_ADDRS, .ret = 1000, .nest = TRUE };
  sysprof_collector_allocate (0x2000, 32, bt_func, &bt);
  bt = (Bt){ .first = 0xE0, .n = 1, .ret = -1 };
  sysprof_collector_allocate (0x3000, 8, bt_func, &bt);

  memset (long_msg, 'm', LONG_MSG_LEN);
  long_msg[LONG_MSG_LEN] = 0;
  sysprof_collector_mark (5, 6, "long", "whole", long_msg);
  sysprof_collector_mark_printf (7, 8, "long", "printf", "%s", long_msg);

  g_assert_true (sysprof_collector_is_active ());
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 0);
}

static gpointer
threads_worker (gpointer data)
{
  guint64 t = GPOINTER_TO_UINT (data);

  for (guint i = 0; i < N_PER_THREAD; i++)
    {
      Bt bt = { .first = (t << 16) | i, .n = 3, .ret = 3 };

      sysprof_collector_allocate (((t + 1) << 32) | i, i + 1, bt_func, &bt);
    }
  sysprof_collector_mark_printf (SYSPROF_CAPTURE_CURRENT_TIME, 0, "thread", "done", "t=%" G_GUINT64_FORMAT, t);
  return NULL;
}

static void
child_threads (void)
{
  GThread *threads[N_THREADS];

  for (guint t = 0; t < N_THREADS; t++)
    threads[t] = g_thread_new ("worker", threads_worker, GUINT_TO_POINTER (t));
  for (guint t = 0; t < N_THREADS; t++)
    g_thread_join (threads[t]);
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 0);
}

static gpointer
stress_worker (gpointer data)
{
  guint64 t = GPOINTER_TO_UINT (data);

  for (guint i = 0; i < N_STRESS; i++)
    {
      Bt bt = { .first = i, .n = 2, .ret = 2 };

      sysprof_collector_allocate (((t + 1) << 32) | i, 16, bt_func, &bt);
    }
  return NULL;
}

static void
child_stress (void)
{
  GThread *a = g_thread_new ("stress-a", stress_worker, GUINT_TO_POINTER (0));
  GThread *b = g_thread_new ("stress-b", stress_worker, GUINT_TO_POINTER (1));

  g_thread_join (a);
  g_thread_join (b);
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 0);
  sysprof_collector_log_printf (64, "stress", "dropped=%" PRIu64, sysprof_collector_get_n_dropped ());
}

static void
child_drop (void)
{
  for (guint i = 0; i < N_DROP; i++)
    sysprof_collector_allocate (i, 16, NULL, NULL);
  g_print ("dropped=%" PRIu64 "\n", sysprof_collector_get_n_dropped ());
}

/* Drops until the ring is full for good, waits for the profiler to drain,
 * then one more event: the losses follow it as a METADATA frame. */
static void
child_drop_report (void)
{
  guint64 attempts = 0;

  while (sysprof_collector_get_n_dropped () == 0)
    sysprof_collector_allocate (++attempts, 16, NULL, NULL);
  g_usleep (3 * G_USEC_PER_SEC);
  sysprof_collector_allocate (0xFFFF, 16, NULL, NULL);
  g_print ("dropped=%" PRIu64 " attempts=%" PRIu64 "\n", sysprof_collector_get_n_dropped (), attempts);
}

static pthread_key_t late_key;

/* Destructors run in rounds; this one outlasts the collector's (which
 * closes the thread's ring in the last round) and then still allocates. */
static void
late_destructor (void *data)
{
  guintptr round = GPOINTER_TO_SIZE (data);

  if (round < PTHREAD_DESTRUCTOR_ITERATIONS)
    {
      pthread_setspecific (late_key, GSIZE_TO_POINTER (round + 1));
      /* Early rounds: the thread's own ring is still open. */
      sysprof_collector_allocate (0x5000 + round, 8, NULL, NULL);
      return;
    }
  sysprof_collector_allocate (0x7777, 8, NULL, NULL);
  sysprof_collector_allocate (0x7777, 0, NULL, NULL);
}

static gpointer
late_worker (gpointer data)
{
  (void) data;
  sysprof_collector_allocate (0x4000, 8, NULL, NULL);
  pthread_setspecific (late_key, GSIZE_TO_POINTER (1));
  g_print ("tid=%d\n", (int) gettid ());
  return NULL;
}

static void
child_late (void)
{
  /* Created after the collector's key (which its first call, as any, makes):
   * its destructor runs after it. */
  sysprof_collector_init ();
  g_assert_cmpint (pthread_key_create (&late_key, late_destructor), ==, 0);
  g_thread_join (g_thread_new ("late", late_worker, NULL));
  g_print ("dropped=%" PRIu64 "\n", sysprof_collector_get_n_dropped ());
}

static void
child_describe (void)
{
  sysprof_collector_describe_process ();
}

/* Every call of a disabled collector is a no-op; it hands out no counter
 * ids (0, as upstream's: GLib takes it for "not traced"). */
static void
child_not_traced (void)
{
  Bt                         bt = { .first = 1, .n = 1, .ret = 1 };
  SysprofCaptureCounter      counter = { .id = BASE };
  SysprofCaptureCounterValue value = { .v64 = 1 };
  unsigned int               id = BASE;

  g_assert_false (sysprof_collector_is_active ());
  errno = 77;
  sysprof_collector_init ();
  sysprof_collector_mark (1, 1, "g", "n", "m");
  sysprof_collector_mark_printf (1, 1, "g", "n", "%d", 1);
  sysprof_collector_log (16, "d", "m");
  sysprof_collector_log_printf (16, "d", "%d", 1);
  sysprof_collector_allocate (1, 1, bt_func, &bt);
  sysprof_collector_sample (bt_func, &bt);
  sysprof_collector_trace (bt_func, &bt, false);
  g_assert_cmpuint (sysprof_collector_request_counters (1), ==, 0);
  sysprof_collector_define_counters (&counter, 1);
  sysprof_collector_set_counters (&id, &value, 1);
  g_assert_false (sysprof_collector_write_memory_stream (1, "R", 1, false, 10));
  g_assert_cmpint (errno, ==, 77);
  g_assert_false (sysprof_collector_is_active ());
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 0);
}

/* The memory tracker's transport: blocks of streams as FILE_CHUNK frames,
 * bad ones refused and their events counted. */
static void
child_stream (void)
{
  static guint8 block[SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK + 1];
  int32_t       tid = (int32_t) gettid ();
  int64_t       t0, t1;

  for (gsize i = 0; i < sizeof block; i++)
    block[i] = (guint8) (i * 7 + 1);
  t0 = sysprof_collector_get_time ();
  t1 = sysprof_collector_get_time ();
  g_assert_cmpint (t0, >, 0);
  g_assert_cmpint (t1, >=, t0);
  errno = 55;
  g_assert_true (sysprof_collector_write_memory_stream (tid, block, 1, false, 1));
  g_assert_true (sysprof_collector_write_memory_stream (tid, block, 1000, false, 10));
  /* Another thread's stream, the largest block. */
  g_assert_true (
      sysprof_collector_write_memory_stream (4242, block, SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK, false, 100));
  /* Refused, and counted: 5 + 6 + 7 + 8 events. */
  g_assert_false (sysprof_collector_write_memory_stream (tid, block, 0, false, 5));
  g_assert_false (
      sysprof_collector_write_memory_stream (tid, block, SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK + 1, false, 6));
  g_assert_false (sysprof_collector_write_memory_stream (0, block, 10, false, 7));
  g_assert_false (sysprof_collector_write_memory_stream (tid, NULL, 10, false, 8));
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 26);
  g_assert_true (sysprof_collector_write_memory_stream (tid, block + 3, 13, true, 2));
  g_assert_cmpint (errno, ==, 55);
  g_assert_cmpint (sysprof_collector_get_time (), >=, t1);
  g_print ("tid=%d\n", (int) tid);
}

/* A block that can never fit the ring is dropped at once, not after a wait,
 * and its events are reported with the next frame that fits. */
static void
child_stream_drop (void)
{
  static guint8 block[8000];
  gint64        t0 = g_get_monotonic_time ();

  memset (block, 'R', sizeof block);
  g_assert_false (sysprof_collector_write_memory_stream ((int32_t) gettid (), block, sizeof block, false, 50));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC / 2);
  g_assert_true (sysprof_collector_write_memory_stream ((int32_t) gettid (), block, 100, true, 3));
  g_print ("dropped=%" G_GUINT64_FORMAT "\n", (guint64) sysprof_collector_get_n_dropped ());
}

static void
child_is_active (void)
{
  sysprof_collector_init ();
  g_assert_true (sysprof_collector_is_active ());
  g_assert_true (sysprof_collector_is_active ());
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 0);
}

static void
child_fork (void)
{
  int   status = 0;
  pid_t pid;

  sysprof_collector_mark (1, 0, "fork", "before", "");
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* Not traced: neither the parent's ring nor its control socket. */
      if (sysprof_collector_is_active ())
        _exit (2);
      sysprof_collector_mark (2, 0, "fork", "child", "");
      sysprof_collector_allocate (1, 1, NULL, NULL);
      if (sysprof_collector_get_n_dropped () != 0)
        _exit (3);
      /* A program it executes does not inherit the control fd either. */
      execl (self_exe, self_exe, CHILD_ARG, "not-traced", NULL);
      _exit (4);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  sysprof_collector_mark (3, 0, "fork", "after", "");
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 0);
}

/* With children followed, a forked child gets rings of its own, and so does
 * a program it executes (the control fd stays open). */
static void
child_fork_follow (void)
{
  int   status = 0;
  pid_t pid;

  g_assert_true (sysprof_collector_follows_children ());
  sysprof_collector_mark (1, 0, "fork", "before", "");
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      if (!sysprof_collector_is_active ())
        _exit (2);
      sysprof_collector_mark (2, 0, "fork", "child", "");
      sysprof_collector_allocate (0x1234, 16, NULL, NULL);
      execl (self_exe, self_exe, CHILD_ARG, "exec-child", NULL);
      _exit (4);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  sysprof_collector_mark (3, 0, "fork", "after", "");
  g_print ("child=%d\n", (int) pid);
}

static void
child_exec_child (void)
{
  g_assert_true (sysprof_collector_is_active ());
  sysprof_collector_mark (4, 0, "fork", "exec", "");
}

/* The profiler answered without a ring: that thread's events are counted. */
static void
child_refused (void)
{
  for (guint i = 0; i < 3; i++)
    sysprof_collector_mark (1, 0, "g", "n", "m");
  g_assert_true (sysprof_collector_is_active ());
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 3);
}

static gpointer
broken_worker (gpointer data)
{
  sysprof_collector_mark (1, 0, "g", "n", "m");
  return data;
}

/* The profiler went away: the channel is broken, later events are counted
 * and no further request is tried. */
static void
child_broken (void)
{
  sysprof_collector_mark (1, 0, "g", "n", "m");
  g_assert_false (sysprof_collector_is_active ());
  g_thread_join (g_thread_new ("broken", broken_worker, NULL));
  sysprof_collector_mark (1, 0, "g", "n", "m");
  g_assert_cmpuint (sysprof_collector_get_n_dropped (), ==, 3);
}

static int
child_main (const char *scenario)
{
  static const struct
  {
    const char *name;
    void (*func) (void);
  } scenarios[] = {
    { "basic", child_basic },
    { "threads", child_threads },
    { "stress", child_stress },
    { "drop", child_drop },
    { "not-traced", child_not_traced },
    { "is-active", child_is_active },
    { "fork", child_fork },
    { "refused", child_refused },
    { "broken", child_broken },
    { "drop-report", child_drop_report },
    { "late", child_late },
    { "describe", child_describe },
    { "fork-follow", child_fork_follow },
    { "exec-child", child_exec_child },
    { "stream", child_stream },
    { "stream-drop", child_stream_drop },
  };

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      if (strcmp (scenarios[i].name, scenario) == 0)
        {
          scenarios[i].func ();
          return 0;
        }
    }
  return 99;
}

/* ---- profiler side -------------------------------------------------------- */

typedef struct
{
  SysprofMappedRingBuffer *buffer;
  GPtrArray               *frames;
  gboolean                 ended;
} Ring;

typedef struct
{
  /* Options. */
  const char *env_value; /* NULL: SYSPROF_CONTROL_FD unset */
  int         fd3;       /* given to the child as fd 3 instead of the socket */
  gsize       ring_size;
  guint       drain_sleep_us;
  gboolean    drain_only_at_exit;
  gboolean    refuse;
  gboolean    hang_up;
  gboolean    follow; /* SYSPROF_FOLLOW_CHILDREN=1 */

  /* Results. */
  GPtrArray *rings;
  guint      n_requests;
  GPid       pid;
  int        status;
  gint64     t_start;
  gint64     t_end;
  GString   *out;
} Server;

static void
ring_free (gpointer data)
{
  Ring *ring = data;

  sysprof_mapped_ring_buffer_unref (ring->buffer);
  g_ptr_array_unref (ring->frames);
  g_free (ring);
}

static void
server_init (Server *server)
{
  memset (server, 0, sizeof *server);
  server->env_value = "3";
  server->fd3 = -1;
  server->rings = g_ptr_array_new_with_free_func (ring_free);
  server->out = g_string_new (NULL);
}

static void
server_clear (Server *server)
{
  g_ptr_array_unref (server->rings);
  g_string_free (server->out, TRUE);
}

/* Takes one frame, checks it as sysprofd would and keeps a copy. */
static bool
drain_cb (const void *data, size_t *len, void *user_data)
{
  Ring               *ring = user_data;
  SysprofCaptureFrame header;
  guint8             *copy;

  g_assert_cmpuint (*len, >=, sizeof header);
  memcpy (&header, data, sizeof header);
  g_assert_false (ring->ended);
  if (header.type == RING_END)
    {
      g_assert_cmpuint (header.len, ==, sizeof header);
      ring->ended = TRUE;
      *len = header.len;
      return false;
    }
  g_assert_cmpuint (header.len, <=, *len);
  copy = g_memdup2 (data, header.len);
  g_assert_true (sysprof_capture_frame_validate (copy, header.len));
  g_ptr_array_add (ring->frames, copy);
  *len = header.len;
  return true;
}

static void
drain_all (Server *server)
{
  for (guint i = 0; i < server->rings->len; i++)
    {
      Ring *ring = g_ptr_array_index (server->rings, i);

      g_assert_true (sysprof_mapped_ring_buffer_drain (ring->buffer, drain_cb, ring));
    }
}

static void
serve_request (Server *server, int control_fd)
{
  union
  {
    struct cmsghdr hdr;
    char           buf[CMSG_SPACE (sizeof (int))];
  } control;
  struct msghdr   msg = { 0 };
  struct iovec    iov;
  struct cmsghdr *cmsg;
  Ring           *ring;
  char            byte = 0;
  int             fd;

  server->n_requests++;
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (server->refuse)
    {
      g_assert_cmpint (sendmsg (control_fd, &msg, MSG_NOSIGNAL), ==, 1);
      return;
    }
  ring = g_new0 (Ring, 1);
  ring->buffer = sysprof_mapped_ring_buffer_new_reader (server->ring_size);
  g_assert_nonnull (ring->buffer);
  ring->frames = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (server->rings, ring);
  fd = sysprof_mapped_ring_buffer_dup_fd (ring->buffer);
  g_assert_cmpint (fd, >=, 0);
  memset (&control, 0, sizeof control);
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  cmsg = CMSG_FIRSTHDR (&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cmsg), &fd, sizeof fd);
  g_assert_cmpint (sendmsg (control_fd, &msg, MSG_NOSIGNAL), ==, 1);
  close (fd);
}

static void
read_output (Server *server, int fd)
{
  char    buf[256];
  ssize_t n;

  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_string_append_len (server->out, buf, n);
}

/* Runs the child @scenario and serves it until it exited and closed its
 * end of the control socket; then drains what is left. */
static void
run_child (Server *server, const char *scenario)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  const char *argv[] = { self_exe, CHILD_ARG, scenario, NULL };
  char        request[64];
  gsize       request_len = 0;
  gboolean    exited = FALSE, eof = FALSE;
  gint64      deadline = g_get_monotonic_time () + SERVE_DEADLINE;
  int         sv[2];
  int         source_fd;
  int         target_fd = 3;
  int         out_fd = -1;

  g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
  envp = server->env_value ? g_environ_setenv (envp, "SYSPROF_CONTROL_FD", server->env_value, TRUE)
                           : g_environ_unsetenv (envp, "SYSPROF_CONTROL_FD");
  envp = server->follow ? g_environ_setenv (envp, "SYSPROF_FOLLOW_CHILDREN", "1", TRUE)
                        : g_environ_unsetenv (envp, "SYSPROF_FOLLOW_CHILDREN");
  source_fd = server->fd3 >= 0 ? server->fd3 : sv[1];
  server->t_start = SYSPROF_CAPTURE_CURRENT_TIME;
  g_assert_true (g_spawn_async_with_pipes_and_fds (NULL, argv, (const char *const *) envp, G_SPAWN_DO_NOT_REAP_CHILD,
                                                   NULL, NULL, -1, -1, -1, &source_fd, &target_fd, 1, &server->pid,
                                                   NULL, &out_fd, NULL, &error));
  g_assert_no_error (error);
  close (sv[1]);

  while (!(exited && eof))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!eof)
        {
          struct pollfd pfd = { .fd = sv[0], .events = POLLIN };

          if (poll (&pfd, 1, 1) > 0)
            {
              ssize_t n = read (sv[0], request + request_len, sizeof request - request_len);

              g_assert_cmpint (n, >=, 0);
              if (n == 0)
                eof = TRUE;
              request_len += (gsize) n;
              while (request_len >= 10)
                {
                  g_assert_cmpmem (request, 10, "CreatRing\0", 10);
                  memmove (request, request + 10, request_len - 10);
                  request_len -= 10;
                  if (server->hang_up)
                    {
                      eof = TRUE;
                      break;
                    }
                  serve_request (server, sv[0]);
                }
              if (eof)
                {
                  close (sv[0]);
                  sv[0] = -1;
                }
            }
        }
      else
        g_usleep (1000);
      if (!server->drain_only_at_exit)
        {
          if (server->drain_sleep_us)
            g_usleep (server->drain_sleep_us);
          drain_all (server);
        }
      if (!exited && waitpid (server->pid, &server->status, WNOHANG) == server->pid)
        exited = TRUE;
    }
  server->t_end = SYSPROF_CAPTURE_CURRENT_TIME;
  g_assert_cmpuint (request_len, ==, 0);

  /* Each drain takes at most one ring's worth. */
  for (gboolean busy = TRUE; busy;)
    {
      busy = FALSE;
      drain_all (server);
      for (guint i = 0; i < server->rings->len; i++)
        {
          Ring *ring = g_ptr_array_index (server->rings, i);

          if (!ring->ended && !sysprof_mapped_ring_buffer_is_empty (ring->buffer))
            busy = TRUE;
        }
    }
  for (guint i = 0; i < server->rings->len; i++)
    g_assert_true (sysprof_mapped_ring_buffer_is_empty (((Ring *) g_ptr_array_index (server->rings, i))->buffer));
  read_output (server, out_fd);
  close (out_fd);
  g_spawn_close_pid (server->pid);
}

static void
assert_child_ok (Server *server)
{
  g_assert_true (WIFEXITED (server->status));
  g_assert_cmpint (WEXITSTATUS (server->status), ==, 0);
}

static SysprofCaptureFrame *
frame_at (Ring *ring, guint i, int type)
{
  SysprofCaptureFrame *f;

  g_assert_cmpuint (i, <, ring->frames->len);
  f = g_ptr_array_index (ring->frames, i);
  g_assert_cmpint (f->type, ==, type);
  return f;
}

static void
assert_mark (Ring *ring, guint i, gint64 time, gint64 duration, const char *group, const char *name, const char *msg)
{
  SysprofCaptureMark *mark = (SysprofCaptureMark *) frame_at (ring, i, SYSPROF_CAPTURE_FRAME_MARK);

  g_assert_cmpint (mark->frame.time, ==, time);
  g_assert_cmpint (mark->duration, ==, duration);
  g_assert_cmpstr (mark->group, ==, group);
  g_assert_cmpstr (mark->name, ==, name);
  g_assert_cmpstr (mark->message, ==, msg);
  g_assert_cmpuint (mark->frame.len, ==, (sizeof *mark + strlen (msg) + 1 + 7) & ~(gsize) 7);
}

static void
assert_log (Ring *ring, guint i, int severity, const char *domain, const char *msg)
{
  SysprofCaptureLog *log = (SysprofCaptureLog *) frame_at (ring, i, SYSPROF_CAPTURE_FRAME_LOG);

  g_assert_cmpint (log->severity, ==, severity);
  g_assert_cmpstr (log->domain, ==, domain);
  g_assert_cmpstr (log->message, ==, msg);
}

static void
assert_alloc (Ring *ring, guint i, guint64 addr, gint64 size, guint64 first, guint n_addrs)
{
  SysprofCaptureAllocation *a = (SysprofCaptureAllocation *) frame_at (ring, i, SYSPROF_CAPTURE_FRAME_ALLOCATION);

  g_assert_cmphex (a->alloc_addr, ==, addr);
  g_assert_cmpint (a->alloc_size, ==, size);
  g_assert_cmpuint (a->n_addrs, ==, n_addrs);
  g_assert_cmpuint (a->frame.len, ==, sizeof *a + n_addrs * 8);
  for (guint k = 0; k < n_addrs; k++)
    g_assert_cmphex (a->addrs[k], ==, first + k);
}

/* Common checks: pid, cpu and, for frames stamped by the collector, time. */
static void
assert_frames_sane (Server *server, Ring *ring, int tid)
{
  long n_cpus = sysconf (_SC_NPROCESSORS_CONF);

  for (guint i = 0; i < ring->frames->len; i++)
    {
      SysprofCaptureFrame *f = g_ptr_array_index (ring->frames, i);

      g_assert_cmpint (f->pid, ==, server->pid);
      g_assert_cmpint (f->cpu, >=, 0);
      g_assert_cmpint (f->cpu, <, n_cpus);
      g_assert_cmpuint (f->padding1, ==, 0);
      g_assert_cmpuint (f->padding2, ==, 0);
      if (f->type != SYSPROF_CAPTURE_FRAME_MARK)
        {
          g_assert_cmpint (f->time, >=, server->t_start);
          g_assert_cmpint (f->time, <=, server->t_end);
        }
      if (f->type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
        g_assert_cmpint (((SysprofCaptureAllocation *) f)->tid, ==, tid);
      if (f->type == SYSPROF_CAPTURE_FRAME_SAMPLE || f->type == SYSPROF_CAPTURE_FRAME_TRACE)
        g_assert_cmpint (((SysprofCaptureSample *) f)->tid, ==, tid);
    }
}

static void
test_basic (void)
{
  Server                       server;
  Ring                        *ring;
  SysprofCaptureCounterDefine *def;
  SysprofCaptureCounterSet    *set;
  SysprofCaptureSample        *sample;
  SysprofCaptureTrace         *trace;
  g_autofree char             *long_msg = g_strnfill (LONG_MSG_LEN, 'm');
  guint                        i = 0;

  server_init (&server);
  run_child (&server, "basic");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 1);
  g_assert_cmpuint (server.rings->len, ==, 1);
  ring = g_ptr_array_index (server.rings, 0);
  assert_frames_sane (&server, ring, server.pid);

  assert_mark (ring, i++, 12345, 678, "group", "name", "message");
  assert_mark (ring, i++, 1, 2, "g", "n", "answer=42");
  assert_mark (ring, i++, 3, 4, "01234567890123456789012", "012345678901234567890123456789012345678", "");
  assert_log (ring, i++, 16, "domain", "hello");
  assert_log (ring, i++, 64, "d", "x=y");

  def = (SysprofCaptureCounterDefine *) frame_at (ring, i++, SYSPROF_CAPTURE_FRAME_CTRDEF);
  g_assert_cmpuint (def->n_counters, ==, 10);
  g_assert_cmpuint (def->frame.len, ==, sizeof *def + 10 * sizeof (SysprofCaptureCounter));
  for (guint k = 0; k < 10; k++)
    {
      g_autofree char *name = g_strdup_printf ("c%u", k);

      g_assert_cmpuint (def->counters[k].id, ==, BASE + k);
      g_assert_cmpuint (def->counters[k].type, ==, k % 2);
      g_assert_cmpstr (def->counters[k].category, ==, "cat");
      g_assert_cmpstr (def->counters[k].name, ==, name);
      g_assert_cmpint (def->counters[k].value.v64, ==, k);
    }

  set = (SysprofCaptureCounterSet *) frame_at (ring, i++, SYSPROF_CAPTURE_FRAME_CTRSET);
  g_assert_cmpuint (set->n_values, ==, 2);
  g_assert_cmpuint (set->frame.len, ==, sizeof *set + 2 * sizeof (SysprofCaptureCounterValues));
  for (guint k = 0; k < 16; k++)
    {
      g_assert_cmpuint (set->values[k / 8].ids[k % 8], ==, k < 10 ? BASE + k : 0);
      g_assert_cmpint (set->values[k / 8].values[k % 8].v64, ==, k < 10 ? 100 + k : 0);
    }

  assert_alloc (ring, i++, 0x1000, 64, 0xA0, 5);
  assert_alloc (ring, i++, 0x1000, 0, 0, 0);
  sample = (SysprofCaptureSample *) frame_at (ring, i++, SYSPROF_CAPTURE_FRAME_SAMPLE);
  g_assert_cmpuint (sample->n_addrs, ==, 3);
  g_assert_cmpuint (sample->padding1, ==, 0);
  g_assert_cmphex (sample->addrs[2], ==, 0xB2);
  trace = (SysprofCaptureTrace *) frame_at (ring, i++, SYSPROF_CAPTURE_FRAME_TRACE);
  g_assert_cmpuint (trace->n_addrs, ==, 2);
  g_assert_cmpuint (trace->entering, ==, 1);
  g_assert_cmphex (trace->addrs[1], ==, 0xC1);
  /* A callback claiming more than its room is clamped; its nested calls vanished. */
  assert_alloc (ring, i++, 0x2000, 32, 0xD000, SYSPROF_COLLECTOR_MAX_ADDRS);
  assert_alloc (ring, i++, 0x3000, 8, 0, 0);
  assert_mark (ring, i++, 5, 6, "long", "whole", long_msg);
  long_msg[2047] = 0;
  assert_mark (ring, i++, 7, 8, "long", "printf", long_msg);
  g_assert_cmpuint (ring->frames->len, ==, i);
  /* The main thread ends with exit(): no key destructor, no end frame. */
  g_assert_false (ring->ended);
  server_clear (&server);
}

static void
test_threads (void)
{
  Server      server;
  GHashTable *tids = g_hash_table_new (NULL, NULL);
  guint       seen = 0;

  server_init (&server);
  run_child (&server, "threads");
  assert_child_ok (&server);
  /* One ring per thread that wrote; the main thread wrote nothing. */
  g_assert_cmpuint (server.n_requests, ==, N_THREADS);
  g_assert_cmpuint (server.rings->len, ==, N_THREADS);
  for (guint r = 0; r < N_THREADS; r++)
    {
      Ring                     *ring = g_ptr_array_index (server.rings, r);
      SysprofCaptureAllocation *first =
          (SysprofCaptureAllocation *) frame_at (ring, 0, SYSPROF_CAPTURE_FRAME_ALLOCATION);
      guint64          t = (first->alloc_addr >> 32) - 1;
      g_autofree char *msg = g_strdup_printf ("t=%" G_GUINT64_FORMAT, t);

      g_assert_cmpuint (t, <, N_THREADS);
      g_assert_false (seen & (1u << t));
      seen |= 1u << t;
      g_assert_cmpint (first->tid, !=, server.pid);
      g_assert_false (g_hash_table_contains (tids, GINT_TO_POINTER (first->tid)));
      g_hash_table_add (tids, GINT_TO_POINTER (first->tid));
      assert_frames_sane (&server, ring, first->tid);
      g_assert_cmpuint (ring->frames->len, ==, N_PER_THREAD + 1);
      for (guint i = 0; i < N_PER_THREAD; i++)
        assert_alloc (ring, i, ((t + 1) << 32) | i, i + 1, (t << 16) | i, 3);
      assert_mark (ring, N_PER_THREAD, ((SysprofCaptureFrame *) g_ptr_array_index (ring->frames, N_PER_THREAD))->time,
                   0, "thread", "done", msg);
      /* Thread exit closed the ring with the end marker. */
      g_assert_true (ring->ended);
    }
  g_hash_table_unref (tids);
  server_clear (&server);
}

static void
test_stress (void)
{
  Server server;
  guint  n_alloc_rings = 0;

  server_init (&server);
  /* A small ring and a consumer that sleeps between drains: the threads have
   * to wait for it, and nothing may be lost. */
  server.ring_size = 4 * (gsize) sysconf (_SC_PAGESIZE);
  server.drain_sleep_us = 1000;
  run_child (&server, "stress");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 3);
  for (guint r = 0; r < server.rings->len; r++)
    {
      Ring                *ring = g_ptr_array_index (server.rings, r);
      SysprofCaptureFrame *first = frame_at (ring, 0, ((SysprofCaptureFrame *) ring->frames->pdata[0])->type);

      if (first->type == SYSPROF_CAPTURE_FRAME_LOG)
        {
          g_assert_cmpuint (ring->frames->len, ==, 1);
          assert_log (ring, 0, 64, "stress", "dropped=0");
          continue;
        }
      n_alloc_rings++;
      g_assert_cmpuint (ring->frames->len, ==, N_STRESS);
      g_assert_true (ring->ended);
      for (guint i = 0; i < N_STRESS; i++)
        {
          SysprofCaptureAllocation *a = g_ptr_array_index (ring->frames, i);
          guint64                   t = (((SysprofCaptureAllocation *) first)->alloc_addr >> 32) - 1;

          g_assert_cmphex (a->alloc_addr, ==, ((t + 1) << 32) | i);
          g_assert_cmpuint (a->n_addrs, ==, 2);
          g_assert_cmphex (a->addrs[1], ==, i + 1);
        }
    }
  g_assert_cmpuint (n_alloc_rings, ==, 2);
  server_clear (&server);
}

static void
test_drop (void)
{
  Server  server;
  Ring   *ring;
  guint64 dropped, reported = 0, n_allocs = 0;
  gint64  t0 = g_get_monotonic_time ();

  server_init (&server);
  /* One page and no consumer until the child exits: after a bounded wait
   * the events are dropped, and every one of them is counted. */
  server.ring_size = (gsize) sysconf (_SC_PAGESIZE);
  server.drain_only_at_exit = TRUE;
  run_child (&server, "drop");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 1);
  ring = g_ptr_array_index (server.rings, 0);
  g_assert_true (g_str_has_prefix (server.out->str, "dropped="));
  dropped = g_ascii_strtoull (server.out->str + strlen ("dropped="), NULL, 10);
  g_assert_cmpuint (dropped, >, 0);
  g_assert_cmpuint (ring->frames->len, >, 0);
  /* Allocations in order; the losses reported in METADATA frames in the
   * room too small for another allocation (each with the count since the
   * previous one), the rest only counted. */
  for (guint i = 0; i < ring->frames->len; i++)
    {
      SysprofCaptureFrame *f = g_ptr_array_index (ring->frames, i);

      if (f->type == SYSPROF_CAPTURE_FRAME_METADATA)
        {
          SysprofCaptureMetadata *meta = (SysprofCaptureMetadata *) f;

          g_assert_cmpstr (meta->id, ==, SYSPROF_LOST_EVENTS_METADATA_ID);
          reported += g_ascii_strtoull (meta->metadata, NULL, 10);
        }
      else
        assert_alloc (ring, i, n_allocs++, 16, 0, 0);
    }
  g_assert_cmpuint (n_allocs + dropped, ==, N_DROP);
  g_assert_cmpuint (reported, <=, dropped);
  /* One wait of about a second, not one per dropped event. */
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, G_USEC_PER_SEC / 2);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 8 * G_USEC_PER_SEC);
  server_clear (&server);
}

static void
test_drop_report (void)
{
  Server  server;
  Ring   *ring;
  guint64 dropped, reported = 0, n_allocs = 0, attempts;
  guint   n;

  server_init (&server);
  /* The first drain comes after the child gave up waiting. */
  server.ring_size = (gsize) sysconf (_SC_PAGESIZE);
  server.drain_sleep_us = 1500 * 1000;
  run_child (&server, "drop-report");
  assert_child_ok (&server);
  ring = g_ptr_array_index (server.rings, 0);
  dropped = g_ascii_strtoull (server.out->str + strlen ("dropped="), NULL, 10);
  attempts = g_ascii_strtoull (strstr (server.out->str, "attempts=") + 9, NULL, 10);
  g_assert_cmpuint (dropped, >, 0);
  n = ring->frames->len;
  g_assert_cmpuint (n, >=, 2);
  /* The allocations that fitted, in order, and the losses in METADATA
   * frames (in the room too small for another allocation, or after the
   * next event that fits): together they give every loss exactly. */
  for (guint i = 0; i + 1 < n; i++)
    {
      SysprofCaptureFrame *f = g_ptr_array_index (ring->frames, i);

      if (f->type == SYSPROF_CAPTURE_FRAME_METADATA)
        {
          SysprofCaptureMetadata *meta = (SysprofCaptureMetadata *) f;

          g_assert_cmpstr (meta->id, ==, SYSPROF_LOST_EVENTS_METADATA_ID);
          g_assert_true (g_str_has_suffix (meta->metadata, " collector: events dropped by the profiled process"));
          reported += g_ascii_strtoull (meta->metadata, NULL, 10);
        }
      else
        assert_alloc (ring, i, ++n_allocs, 16, 0, 0);
    }
  assert_alloc (ring, n - 1, 0xFFFF, 16, 0, 0);
  g_assert_cmpuint (reported, ==, dropped);
  g_assert_cmpuint (n_allocs + dropped, ==, attempts);
  server_clear (&server);
}

static void
test_late (void)
{
  Server server;
  Ring  *own, *shared;
  int    tid;

  server_init (&server);
  run_child (&server, "late");
  assert_child_ok (&server);
  g_assert_true (g_str_has_prefix (server.out->str, "tid="));
  tid = atoi (server.out->str + 4);
  g_assert_nonnull (strstr (server.out->str, "dropped=0\n"));
  /* The thread's ring, closed in the last destructor round, then the shared
   * ring of late events. */
  g_assert_cmpuint (server.n_requests, ==, 2);
  own = g_ptr_array_index (server.rings, 0);
  shared = g_ptr_array_index (server.rings, 1);
  assert_frames_sane (&server, own, tid);
  assert_frames_sane (&server, shared, tid);
  g_assert_true (own->ended);
  g_assert_cmpuint (own->frames->len, ==, 1 + PTHREAD_DESTRUCTOR_ITERATIONS - 1);
  assert_alloc (own, 0, 0x4000, 8, 0, 0);
  for (guint r = 1; r < PTHREAD_DESTRUCTOR_ITERATIONS; r++)
    assert_alloc (own, r, 0x5000 + r, 8, 0, 0);
  g_assert_false (shared->ended);
  g_assert_cmpuint (shared->frames->len, ==, 2);
  assert_alloc (shared, 0, 0x7777, 8, 0, 0);
  assert_alloc (shared, 1, 0x7777, 0, 0, 0);
  server_clear (&server);
}

static void
test_describe (void)
{
  Server           server;
  Ring            *ring;
  gboolean         saw_exe = FALSE, saw_libc = FALSE;
  g_autofree char *cmdline = g_strdup_printf ("%s %s describe", self_exe, CHILD_ARG);

  server_init (&server);
  run_child (&server, "describe");
  assert_child_ok (&server);
  ring = g_ptr_array_index (server.rings, 0);
  assert_frames_sane (&server, ring, server.pid);
  g_assert_cmpstr (((SysprofCaptureProcess *) frame_at (ring, 0, SYSPROF_CAPTURE_FRAME_PROCESS))->cmdline, ==, cmdline);
  for (guint i = 1; i < ring->frames->len; i++)
    {
      SysprofCaptureMap *map = (SysprofCaptureMap *) frame_at (ring, i, SYSPROF_CAPTURE_FRAME_MAP);

      g_assert_cmphex (map->start, <, map->end);
      g_assert_true (map->filename[0] == '/' || map->filename[0] == '[');
      if (strcmp (map->filename, self_exe) == 0)
        {
          struct stat st;

          g_assert_no_errno (stat (self_exe, &st));
          g_assert_cmpuint (map->inode, ==, st.st_ino);
          saw_exe = TRUE;
        }
      if (strstr (map->filename, "/libc.so") != NULL)
        saw_libc = TRUE;
    }
  g_assert_true (saw_exe);
  g_assert_true (saw_libc);
  server_clear (&server);
}

static void
test_is_active (void)
{
  Server server;

  server_init (&server);
  run_child (&server, "is-active");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 0);
  server_clear (&server);
}

static void
test_no_env (void)
{
  static const char *values[] = { NULL, "", "abc", "3x", "-1", "999", "1", "99999999999999999999" };
  int                fds[2];

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      Server server;

      server_init (&server);
      server.env_value = values[i];
      run_child (&server, "not-traced");
      assert_child_ok (&server);
      g_assert_cmpuint (server.n_requests, ==, 0);
      server_clear (&server);
    }

  /* fd 3 is there but is not an AF_UNIX stream socket. */
  g_assert_no_errno (pipe (fds));
  for (guint i = 0; i < 2; i++)
    {
      Server server;

      server_init (&server);
      server.fd3 = fds[i];
      run_child (&server, "not-traced");
      assert_child_ok (&server);
      g_assert_cmpuint (server.n_requests, ==, 0);
      server_clear (&server);
    }
  close (fds[0]);
  close (fds[1]);
  g_assert_no_errno (socketpair (AF_UNIX, SOCK_DGRAM, 0, fds));
  {
    Server server;

    server_init (&server);
    server.fd3 = fds[0];
    run_child (&server, "not-traced");
    assert_child_ok (&server);
    g_assert_cmpuint (server.n_requests, ==, 0);
    server_clear (&server);
  }
  close (fds[0]);
  close (fds[1]);
}

static void
test_fork (void)
{
  Server server;
  Ring  *ring;

  server_init (&server);
  run_child (&server, "fork");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 1);
  ring = g_ptr_array_index (server.rings, 0);
  assert_frames_sane (&server, ring, server.pid);
  g_assert_cmpuint (ring->frames->len, ==, 2);
  assert_mark (ring, 0, 1, 0, "fork", "before", "");
  assert_mark (ring, 1, 3, 0, "fork", "after", "");
  server_clear (&server);
}

static void
test_fork_follow (void)
{
  Server server;
  Ring  *parent, *child, *exec;
  int    child_pid;

  server_init (&server);
  server.follow = TRUE;
  run_child (&server, "fork-follow");
  assert_child_ok (&server);
  child_pid = atoi (strstr (server.out->str, "child=") + 6);
  /* The parent's ring, the forked child's, the executed program's. */
  g_assert_cmpuint (server.n_requests, ==, 3);
  parent = g_ptr_array_index (server.rings, 0);
  child = g_ptr_array_index (server.rings, 1);
  exec = g_ptr_array_index (server.rings, 2);
  assert_frames_sane (&server, parent, server.pid);
  g_assert_cmpuint (parent->frames->len, ==, 2);
  assert_mark (parent, 0, 1, 0, "fork", "before", "");
  assert_mark (parent, 1, 3, 0, "fork", "after", "");
  g_assert_cmpuint (child->frames->len, ==, 2);
  g_assert_cmpint (((SysprofCaptureFrame *) g_ptr_array_index (child->frames, 0))->pid, ==, child_pid);
  assert_mark (child, 0, 2, 0, "fork", "child", "");
  assert_alloc (child, 1, 0x1234, 16, 0, 0);
  g_assert_cmpint (((SysprofCaptureAllocation *) g_ptr_array_index (child->frames, 1))->tid, ==, child_pid);
  /* exec keeps the pid. */
  g_assert_cmpuint (exec->frames->len, ==, 1);
  g_assert_cmpint (((SysprofCaptureFrame *) g_ptr_array_index (exec->frames, 0))->pid, ==, child_pid);
  assert_mark (exec, 0, 4, 0, "fork", "exec", "");
  server_clear (&server);
}

static void
assert_chunk (Ring *ring, guint i, const char *path, gboolean is_last, const guint8 *data, gsize len)
{
  SysprofCaptureFileChunk *chunk = (SysprofCaptureFileChunk *) frame_at (ring, i, SYSPROF_CAPTURE_FRAME_FILE_CHUNK);

  g_assert_cmpstr (chunk->path, ==, path);
  /* Nothing but zeros behind the path. */
  for (gsize k = strlen (path); k < sizeof chunk->path; k++)
    g_assert_cmpint (chunk->path[k], ==, 0);
  g_assert_cmpint (chunk->is_last, ==, is_last);
  g_assert_cmpuint (chunk->padding1, ==, 0);
  g_assert_cmpuint (chunk->len, ==, len);
  g_assert_cmpuint (chunk->frame.len, ==, (sizeof *chunk + len + 7) & ~(gsize) 7);
  g_assert_cmpmem (chunk->data, len, data, len);
  for (gsize k = sizeof *chunk + len; k < chunk->frame.len; k++)
    g_assert_cmpint (((const guint8 *) chunk)[k], ==, 0);
}

static void
test_stream (void)
{
  static guint8    block[SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK];
  g_autofree char *own = NULL;
  Server           server;
  Ring            *ring;
  gint64           last = 0;
  int              tid;

  for (gsize i = 0; i < sizeof block; i++)
    block[i] = (guint8) (i * 7 + 1);
  server_init (&server);
  run_child (&server, "stream");
  assert_child_ok (&server);
  tid = atoi (server.out->str + strlen ("tid="));
  own = g_strdup_printf ("sysprof/memory-stream/%d", tid);
  g_assert_cmpuint (server.rings->len, ==, 1);
  ring = g_ptr_array_index (server.rings, 0);
  assert_frames_sane (&server, ring, tid);
  g_assert_cmpuint (ring->frames->len, ==, 5);
  assert_chunk (ring, 0, own, FALSE, block, 1);
  assert_chunk (ring, 1, own, FALSE, block, 1000);
  assert_chunk (ring, 2, "sysprof/memory-stream/4242", FALSE, block, SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK);
  assert_chunk (ring, 3, own, TRUE, block + 3, 13);
  /* The refused blocks' events, reported right after. */
  g_assert_cmpstr (((SysprofCaptureMetadata *) frame_at (ring, 4, SYSPROF_CAPTURE_FRAME_METADATA))->metadata, ==,
                   "26 collector: events dropped by the profiled process");
  for (guint i = 0; i < 4; i++)
    {
      SysprofCaptureFrame *f = g_ptr_array_index (ring->frames, i);

      g_assert_cmpint (f->time, >=, last);
      last = f->time;
    }
  server_clear (&server);
}

static void
test_stream_drop (void)
{
  static guint8    block[100];
  g_autofree char *path = NULL;
  Server           server;
  Ring            *ring;

  memset (block, 'R', sizeof block);
  server_init (&server);
  server.ring_size = (gsize) sysconf (_SC_PAGESIZE);
  server.drain_only_at_exit = TRUE;
  run_child (&server, "stream-drop");
  assert_child_ok (&server);
  g_assert_cmpstr (server.out->str, ==, "dropped=50\n");
  ring = g_ptr_array_index (server.rings, 0);
  /* The loss is reported as soon as a frame fits: right away, since the
   * ring has room for anything but that block. */
  g_assert_cmpuint (ring->frames->len, ==, 2);
  g_assert_cmpstr (((SysprofCaptureMetadata *) frame_at (ring, 0, SYSPROF_CAPTURE_FRAME_METADATA))->metadata, ==,
                   "50 collector: events dropped by the profiled process");
  path = g_strdup_printf ("sysprof/memory-stream/%d", server.pid);
  assert_chunk (ring, 1, path, TRUE, block, 100);
  server_clear (&server);
}

static void
test_refused (void)
{
  Server server;

  server_init (&server);
  server.refuse = TRUE;
  run_child (&server, "refused");
  assert_child_ok (&server);
  /* One round trip per thread, even when it yields no ring. */
  g_assert_cmpuint (server.n_requests, ==, 1);
  g_assert_cmpuint (server.rings->len, ==, 0);
  server_clear (&server);
}

static void
test_broken (void)
{
  Server server;

  server_init (&server);
  server.hang_up = TRUE;
  run_child (&server, "broken");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 0);
  server_clear (&server);
}

int
main (int argc, char **argv)
{
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  if (argc == 3 && strcmp (argv[1], CHILD_ARG) == 0)
    return child_main (argv[2]);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Capture/Collector/basic", test_basic);
  g_test_add_func ("/Capture/Collector/threads", test_threads);
  g_test_add_func ("/Capture/Collector/stress", test_stress);
  g_test_add_func ("/Capture/Collector/drop", test_drop);
  g_test_add_func ("/Capture/Collector/drop-report", test_drop_report);
  g_test_add_func ("/Capture/Collector/late", test_late);
  g_test_add_func ("/Capture/Collector/describe", test_describe);
  g_test_add_func ("/Capture/Collector/is-active", test_is_active);
  g_test_add_func ("/Capture/Collector/no-env", test_no_env);
  g_test_add_func ("/Capture/Collector/fork", test_fork);
  g_test_add_func ("/Capture/Collector/fork-follow", test_fork_follow);
  g_test_add_func ("/Capture/Collector/refused", test_refused);
  g_test_add_func ("/Capture/Collector/stream", test_stream);
  g_test_add_func ("/Capture/Collector/stream-drop", test_stream_drop);
  g_test_add_func ("/Capture/Collector/broken", test_broken);
  return g_test_run ();
}
