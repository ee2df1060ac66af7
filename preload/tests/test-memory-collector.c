// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof-memory.so end to end: this process plays the profiler.  It runs
 * memory-child with LD_PRELOAD=libsysprof-memory.so and one end of a
 * socketpair as fd 3 (SYSPROF_CONTROL_FD=3), answers its "CreatRing"
 * requests with reader rings, drains them, and compares the ALLOCATION
 * frames with what the child says it did (its stdout). */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib-unix.h>

#include <sysprof-capture.h>

#define RING_END       0xFF
#define FENCE_BASE     77000
#define MAX_KEPT_ADDRS 16
#define SERVE_DEADLINE (120 * G_USEC_PER_SEC)

static const char *preload_lib;
static const char *child_exe;

/* ---- frames, kept compact ------------------------------------------------- */

typedef struct
{
  guint32 type;
  gint32  pid;
  gint32  tid;
  guint64 addr;
  gint64  size;
  guint   n_addrs;
  guint64 addrs[MAX_KEPT_ADDRS];
  char   *filename; /* MAP frames */
} Event;

/* Bulk mode (the threads scenario): the frames of the malloc/free loop
 * between fences 1 and 2 are checked as they arrive instead of being kept. */
typedef enum
{
  BULK_OFF,
  BULK_WAIT_FENCE,
  BULK_WAIT_FENCE_FREE,
  BULK_ALLOC,
  BULK_FREE,
} BulkState;

typedef struct
{
  SysprofMappedRingBuffer *buffer;
  GArray                  *events;
  gboolean                 ended;
  BulkState                bulk;
  guint                    bulk_done;
  guint64                  bulk_addr;
  gint32                   bulk_tid;
} Ring;

typedef struct
{
  /* Options. */
  const char *env_value; /* SYSPROF_CONTROL_FD; NULL: unset */
  const char *preload;   /* LD_PRELOAD; NULL: the library */
  int         fd3;       /* given as fd 3 instead of the socket */
  const char *unwind;    /* SYSPROF_MEMORY_UNWIND */
  const char *depth;     /* SYSPROF_MEMORY_DEPTH */
  gboolean    bulk;
  guint       bulk_n;

  /* Results. */
  GPtrArray *rings;
  guint      n_requests;
  GPid       pid;
  int        status;
  GString   *out;
  GString   *err;
} Server;

static void
event_clear (gpointer data)
{
  g_free (((Event *) data)->filename);
}

static void
ring_free (gpointer data)
{
  Ring *ring = data;

  sysprof_mapped_ring_buffer_unref (ring->buffer);
  g_array_unref (ring->events);
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
  server->err = g_string_new (NULL);
}

static void
server_clear (Server *server)
{
  g_ptr_array_unref (server->rings);
  g_string_free (server->out, TRUE);
  g_string_free (server->err, TRUE);
}

/* Returns TRUE when the frame was consumed by the bulk checker. */
static gboolean
bulk_take (Server *server, Ring *ring, const SysprofCaptureAllocation *a)
{
  switch (ring->bulk)
    {
    case BULK_OFF: return FALSE;
    case BULK_WAIT_FENCE:
      if (a->alloc_size == FENCE_BASE + 1)
        {
          ring->bulk = BULK_WAIT_FENCE_FREE;
          ring->bulk_addr = a->alloc_addr;
          ring->bulk_tid = a->tid;
        }
      return FALSE;
    case BULK_WAIT_FENCE_FREE:
      g_assert_cmpint (a->alloc_size, ==, 0);
      g_assert_cmphex (a->alloc_addr, ==, ring->bulk_addr);
      ring->bulk = BULK_ALLOC;
      return FALSE;
    case BULK_ALLOC:
      if (a->alloc_size == FENCE_BASE + 2)
        {
          g_assert_cmpuint (ring->bulk_done, ==, server->bulk_n);
          ring->bulk = BULK_OFF;
          return FALSE;
        }
      /* Exactly the loop's allocations, in order, by the same thread. */
      g_assert_cmpint (a->alloc_size, ==, 16 + (ring->bulk_done & 255));
      g_assert_cmpint (a->tid, ==, ring->bulk_tid);
      g_assert_cmpuint (a->n_addrs, >=, 1);
      ring->bulk_addr = a->alloc_addr;
      ring->bulk = BULK_FREE;
      return TRUE;
    case BULK_FREE:
      g_assert_cmpint (a->alloc_size, ==, 0);
      g_assert_cmphex (a->alloc_addr, ==, ring->bulk_addr);
      g_assert_cmpuint (a->n_addrs, ==, 0);
      ring->bulk_done++;
      ring->bulk = BULK_ALLOC;
      return TRUE;
    default: g_assert_not_reached ();
    }
}

typedef struct
{
  Server *server;
  Ring   *ring;
} DrainData;

static bool
drain_cb (const void *data, size_t *len, void *user_data)
{
  DrainData          *dd = user_data;
  Ring               *ring = dd->ring;
  SysprofCaptureFrame header;
  Event               ev = { 0 };
  g_autofree guint8  *copy = NULL;

  /* drain() offers at most one ring's worth per call, which may end inside
   * a frame: take it on the next call. */
  if (*len < sizeof header)
    {
      *len = 0;
      return false;
    }
  memcpy (&header, data, sizeof header);
  g_assert_false (ring->ended);
  if (header.type == RING_END)
    {
      g_assert_cmpuint (header.len, ==, sizeof header);
      ring->ended = TRUE;
      *len = header.len;
      return false;
    }
  g_assert_cmpuint (header.len, >=, sizeof header);
  if (header.len > *len)
    {
      *len = 0;
      return false;
    }
  *len = header.len;
  copy = g_memdup2 (data, header.len);
  g_assert_true (sysprof_capture_frame_validate (copy, header.len));
  ev.type = header.type;
  ev.pid = header.pid;
  if (header.type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
    {
      const SysprofCaptureAllocation *a = (const SysprofCaptureAllocation *) copy;

      if (bulk_take (dd->server, ring, a))
        return true;
      ev.tid = a->tid;
      ev.addr = a->alloc_addr;
      ev.size = a->alloc_size;
      ev.n_addrs = a->n_addrs;
      for (guint i = 0; i < a->n_addrs && i < MAX_KEPT_ADDRS; i++)
        ev.addrs[i] = a->addrs[i];
    }
  else if (header.type == SYSPROF_CAPTURE_FRAME_MAP)
    ev.filename = g_strdup (((const SysprofCaptureMap *) copy)->filename);
  g_array_append_val (ring->events, ev);
  return true;
}

static void
drain_all (Server *server)
{
  for (guint i = 0; i < server->rings->len; i++)
    {
      DrainData dd = { server, g_ptr_array_index (server->rings, i) };

      g_assert_true (sysprof_mapped_ring_buffer_drain (dd.ring->buffer, drain_cb, &dd));
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
  ring = g_new0 (Ring, 1);
  ring->buffer = sysprof_mapped_ring_buffer_new_reader (0);
  g_assert_nonnull (ring->buffer);
  ring->events = g_array_new (FALSE, TRUE, sizeof (Event));
  g_array_set_clear_func (ring->events, event_clear);
  ring->bulk = server->bulk ? BULK_WAIT_FENCE : BULK_OFF;
  g_ptr_array_add (server->rings, ring);
  fd = sysprof_mapped_ring_buffer_dup_fd (ring->buffer);
  g_assert_cmpint (fd, >=, 0);
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
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
read_available (int fd, GString *into, gboolean *eof)
{
  char    buf[4096];
  ssize_t n;

  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_string_append_len (into, buf, n);
  if (n == 0)
    *eof = TRUE;
}

/* Runs memory-child @scenario under the tracker and serves it until it
 * exited and closed its end of the control socket; then drains the rest. */
static void
run_child (Server *server, const char *scenario)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  const char *argv[] = { child_exe, scenario, NULL };
  char        request[64];
  gsize       request_len = 0;
  gboolean    exited = FALSE, eof = FALSE, out_eof = FALSE, err_eof = FALSE;
  gint64      deadline = g_get_monotonic_time () + SERVE_DEADLINE;
  int         sv[2];
  int         source_fd;
  int         target_fd = 3;
  int         out_fd = -1, err_fd = -1;

  g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
  envp = server->env_value ? g_environ_setenv (envp, "SYSPROF_CONTROL_FD", server->env_value, TRUE)
                           : g_environ_unsetenv (envp, "SYSPROF_CONTROL_FD");
  envp = g_environ_setenv (envp, "LD_PRELOAD", server->preload ? server->preload : preload_lib, TRUE);
  envp = server->unwind ? g_environ_setenv (envp, "SYSPROF_MEMORY_UNWIND", server->unwind, TRUE)
                        : g_environ_unsetenv (envp, "SYSPROF_MEMORY_UNWIND");
  envp = server->depth ? g_environ_setenv (envp, "SYSPROF_MEMORY_DEPTH", server->depth, TRUE)
                       : g_environ_unsetenv (envp, "SYSPROF_MEMORY_DEPTH");
  source_fd = server->fd3 >= 0 ? server->fd3 : sv[1];
  g_assert_true (g_spawn_async_with_pipes_and_fds (NULL, argv, (const char *const *) envp, G_SPAWN_DO_NOT_REAP_CHILD,
                                                   NULL, NULL, -1, -1, -1, &source_fd, &target_fd, 1, &server->pid,
                                                   NULL, &out_fd, &err_fd, &error));
  g_assert_no_error (error);
  close (sv[1]);
  g_unix_set_fd_nonblocking (out_fd, TRUE, NULL);
  g_unix_set_fd_nonblocking (err_fd, TRUE, NULL);

  while (!(exited && eof && out_eof && err_eof))
    {
      struct pollfd pfd[3] = {
        { .fd = eof ? -1 : sv[0], .events = POLLIN },
        { .fd = out_eof ? -1 : out_fd, .events = POLLIN },
        { .fd = err_eof ? -1 : err_fd, .events = POLLIN },
      };

      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (poll (pfd, 3, 1) > 0 && !eof && (pfd[0].revents & (POLLIN | POLLHUP)))
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
              serve_request (server, sv[0]);
            }
        }
      if (!out_eof)
        read_available (out_fd, server->out, &out_eof);
      if (!err_eof)
        read_available (err_fd, server->err, &err_eof);
      drain_all (server);
      if (!exited && waitpid (server->pid, &server->status, WNOHANG) == server->pid)
        exited = TRUE;
    }
  close (sv[0]);
  g_assert_cmpuint (request_len, ==, 0);
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
  close (out_fd);
  close (err_fd);
  g_spawn_close_pid (server->pid);
  if (server->err->len > 0)
    g_test_message ("child stderr: %s", server->err->str);
}

static void
assert_child_ok (Server *server)
{
  g_assert_true (WIFEXITED (server->status));
  g_assert_cmpint (WEXITSTATUS (server->status), ==, 0);
}

/* ---- the child's report ------------------------------------------------------ */

static guint64
parse_ptr (const char *word)
{
  if (strcmp (word, "(nil)") == 0)
    return 0;
  g_assert_true (g_str_has_prefix (word, "0x"));
  return g_ascii_strtoull (word + 2, NULL, 16);
}

static guint64
parse_u64 (const char *word)
{
  return g_ascii_strtoull (word, NULL, 10);
}

/* The words of the first output line starting with @key. */
static GStrv
find_line (Server *server, const char *key)
{
  g_auto (GStrv) lines = g_strsplit (server->out->str, "\n", -1);

  for (guint i = 0; lines[i]; i++)
    {
      GStrv words = g_strsplit (lines[i], " ", -1);

      if (g_strcmp0 (words[0], key) == 0)
        return words;
      g_strfreev (words);
    }
  g_error ("no line \"%s\" in the child's output:\n%s", key, server->out->str);
  return NULL;
}

typedef struct
{
  guint64 addr;
  gint64  size; /* 0: a release */
} Expected;

static void
expect (GArray *expected, guint64 addr, gint64 size)
{
  Expected e = { addr, size };

  g_array_append_val (expected, e);
}

/* What the tracker must record for each operation the child reports: the
 * rules of the format (README.md), written out once more. */
static GArray *
expected_from_report (Server *server)
{
  g_auto (GStrv) lines = g_strsplit (server->out->str, "\n", -1);
  GArray *expected = g_array_new (FALSE, FALSE, sizeof (Expected));

  for (guint i = 0; lines[i]; i++)
    {
      g_auto (GStrv) w = g_strsplit (lines[i], " ", -1);
      const char *op = w[0];

      if (g_strcmp0 (op, "malloc") == 0 || g_strcmp0 (op, "valloc") == 0)
        {
          /* A zero-sized block is not recorded (size 0 means a release). */
          if (parse_ptr (w[1]) && parse_u64 (w[2]))
            expect (expected, parse_ptr (w[1]), (gint64) parse_u64 (w[2]));
        }
      else if (g_strcmp0 (op, "calloc") == 0)
        {
          if (parse_ptr (w[1]))
            expect (expected, parse_ptr (w[1]), (gint64) (parse_u64 (w[2]) * parse_u64 (w[3])));
        }
      else if (g_strcmp0 (op, "realloc") == 0 || g_strcmp0 (op, "reallocarray") == 0)
        {
          guint64 old = parse_ptr (w[1]), new = parse_ptr (w[2]);
          guint64 size = parse_u64 (w[3]);

          if (op[7] == 'a')
            size *= parse_u64 (w[4]);
          if (old && size == 0)
            expect (expected, old, 0);
          else if (new)
            {
              /* A release of the old block and a new allocation. */
              if (old)
                expect (expected, old, 0);
              expect (expected, new, (gint64) size);
            }
          else if (old && g_strcmp0 (w[4], "usable") == 0)
            {
              /* A failed realloc: the block released, then allocated
               * again with its usable size. */
              expect (expected, old, 0);
              expect (expected, old, (gint64) parse_u64 (w[5]));
            }
        }
      else if (g_strcmp0 (op, "free") == 0)
        {
          if (parse_ptr (w[1]))
            expect (expected, parse_ptr (w[1]), 0);
        }
      else if (g_strcmp0 (op, "memalign") == 0 || g_strcmp0 (op, "aligned_alloc") == 0)
        {
          if (parse_ptr (w[1]))
            expect (expected, parse_ptr (w[1]), (gint64) parse_u64 (w[3]));
        }
      else if (g_strcmp0 (op, "posix_memalign") == 0)
        {
          if (parse_u64 (w[1]) == 0)
            expect (expected, parse_ptr (w[2]), (gint64) parse_u64 (w[4]));
        }
      else if (g_strcmp0 (op, "pvalloc") == 0)
        {
          guint64 page = parse_u64 (w[3]);

          /* Whole pages: the block the program may use. */
          expect (expected, parse_ptr (w[1]), (gint64) ((parse_u64 (w[2]) + page - 1) / page * page));
        }
    }
  return expected;
}

/* ---- finding frames ------------------------------------------------------------- */

static gboolean
is_fence (const Event *ev, guint id)
{
  return ev->type == SYSPROF_CAPTURE_FRAME_ALLOCATION && ev->size == FENCE_BASE + id;
}

/* The ring holding fence @id, and the index of the fence's allocation. */
static Ring *
find_fence (Server *server, guint id, guint *index)
{
  for (guint r = 0; r < server->rings->len; r++)
    {
      Ring *ring = g_ptr_array_index (server->rings, r);

      for (guint i = 0; i < ring->events->len; i++)
        {
          if (is_fence (&g_array_index (ring->events, Event, i), id))
            {
              *index = i;
              return ring;
            }
        }
    }
  g_error ("fence %u not found", id);
  return NULL;
}

/* The frames between fences @first and @last of one ring. */
static Ring *
between_fences (Server *server, guint first, guint last, guint *begin, guint *end)
{
  Ring        *ring = find_fence (server, first, begin);
  const Event *alloc = &g_array_index (ring->events, Event, *begin);
  const Event *release;

  g_assert_cmpuint (*begin + 1, <, ring->events->len);
  release = &g_array_index (ring->events, Event, *begin + 1);
  g_assert_cmpint (release->size, ==, 0);
  g_assert_cmphex (release->addr, ==, alloc->addr);
  *begin += 2;
  for (*end = *begin; *end < ring->events->len; (*end)++)
    if (is_fence (&g_array_index (ring->events, Event, *end), last))
      return ring;
  g_error ("fence %u not found after fence %u", last, first);
  return NULL;
}

static void
assert_events (Ring *ring, guint begin, guint end, GArray *expected, gint32 pid, gint32 tid)
{
  g_assert_cmpuint (end - begin, ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    {
      const Event    *ev = &g_array_index (ring->events, Event, begin + i);
      const Expected *e = &g_array_index (expected, Expected, i);

      g_assert_cmpuint (ev->type, ==, SYSPROF_CAPTURE_FRAME_ALLOCATION);
      g_assert_cmphex (ev->addr, ==, e->addr);
      g_assert_cmpint (ev->size, ==, e->size);
      g_assert_cmpint (ev->pid, ==, pid);
      g_assert_cmpint (ev->tid, ==, tid);
      /* A release carries no stack; an allocation at least its caller. */
      if (e->size == 0)
        g_assert_cmpuint (ev->n_addrs, ==, 0);
      else
        g_assert_cmpuint (ev->n_addrs, >=, 1);
    }
}

/* ---- tests -------------------------------------------------------------------- */

static void
run_basic (const char *unwind)
{
  Server server;
  Ring  *ring;
  guint  begin, end;
  g_autoptr (GArray) expected = NULL;
  g_auto (GStrv) func = NULL;
  guint64 func_start, func_ret;

  server_init (&server);
  server.unwind = unwind;
  run_child (&server, "basic");
  assert_child_ok (&server);
  /* Only the main thread wrote. */
  g_assert_cmpuint (server.n_requests, ==, 1);
  ring = between_fences (&server, 1, 2, &begin, &end);
  expected = expected_from_report (&server);
  /* Sanity of the rules above: 11 allocations, 12 releases (one of them
   * of the unrecorded malloc (0) block), and the failed realloc's release
   * and allocation again. */
  g_assert_cmpuint (expected->len, ==, 25);
  assert_events (ring, begin, end, expected, server.pid, server.pid);

  /* Every hook's stack starts at its caller, scenario_basic, then main. */
  func = find_line (&server, "func");
  func_start = parse_ptr (func[1]);
  func_ret = parse_ptr (func[2]);
  for (guint i = begin; i < end; i++)
    {
      const Event *ev = &g_array_index (ring->events, Event, i);

      if (ev->size == 0)
        continue;
      g_assert_cmpuint (ev->n_addrs, >=, 2);
      g_assert_cmphex (ev->addrs[0], >, func_start);
      g_assert_cmphex (ev->addrs[0], <, func_start + 4096);
      g_assert_cmphex (ev->addrs[1], ==, func_ret);
    }
  server_clear (&server);
}

static void
test_basic_fp (void)
{
  run_basic ("fp");
}

static void
test_basic_dwarf (void)
{
  run_basic ("dwarf");
}

static void
run_backtrace (const char *unwind, const char *depth, guint expect_n)
{
  Server server;
  Ring  *ring;
  guint  begin, end;
  g_autoptr (GArray) expected = NULL;
  g_auto (GStrv) chain = NULL;
  const Event *ev;
  guint64      want[5];

  server_init (&server);
  server.unwind = unwind;
  server.depth = depth;
  run_child (&server, "backtrace");
  assert_child_ok (&server);
  ring = between_fences (&server, 1, 2, &begin, &end);
  expected = expected_from_report (&server);
  assert_events (ring, begin, end, expected, server.pid, server.pid);

  /* malloc's caller bt_inner, then the return addresses into bt_middle,
   * bt_outer, scenario_backtrace and main, exactly. */
  chain = find_line (&server, "chain");
  ev = &g_array_index (ring->events, Event, begin);
  g_assert_cmpint (ev->size, ==, 4242);
  if (expect_n)
    g_assert_cmpuint (ev->n_addrs, ==, expect_n);
  else
    g_assert_cmpuint (ev->n_addrs, >=, 5);
  g_assert_cmphex (ev->addrs[0], >, parse_ptr (chain[1]));
  g_assert_cmphex (ev->addrs[0], <, parse_ptr (chain[1]) + 256);
  for (guint i = 1; i < 5; i++)
    want[i] = parse_ptr (chain[i + 1]);
  for (guint i = 1; i < 5 && i < ev->n_addrs; i++)
    g_assert_cmphex (ev->addrs[i], ==, want[i]);
  server_clear (&server);
}

static void
test_backtrace_fp (void)
{
  run_backtrace ("fp", NULL, 0);
}

static void
test_backtrace_dwarf (void)
{
  run_backtrace ("dwarf", NULL, 0);
}

static void
test_backtrace_depth (void)
{
  run_backtrace ("fp", "2", 2);
  run_backtrace ("dwarf", "2", 2);
  run_backtrace ("fp", "1", 1);
}

/* g_strdup() -> g_malloc() -> malloc(): GLib is built without frame
 * pointers.  DWARF unwinding sees both GLib frames and then the caller. */
static void
test_glib_dwarf (void)
{
  Server server;
  Ring  *ring;
  guint  begin, end, k;
  g_autoptr (GArray) expected = NULL;
  g_auto (GStrv) glib = NULL;
  const Event *ev;
  guint64      caller_start;

  server_init (&server);
  server.unwind = "dwarf";
  run_child (&server, "glib");
  assert_child_ok (&server);
  ring = between_fences (&server, 1, 2, &begin, &end);
  expected = expected_from_report (&server);
  assert_events (ring, begin, end, expected, server.pid, server.pid);
  glib = find_line (&server, "glib");
  caller_start = parse_ptr (glib[1]);
  ev = &g_array_index (ring->events, Event, begin);
  for (k = 0; k < ev->n_addrs && k < MAX_KEPT_ADDRS; k++)
    if (ev->addrs[k] > caller_start && ev->addrs[k] < caller_start + 256)
      break;
  /* At least g_malloc and g_strdup come first. */
  g_assert_cmpuint (k, >=, 2);
  g_assert_cmpuint (k + 1, <, ev->n_addrs);
  g_assert_cmphex (ev->addrs[k + 1], ==, parse_ptr (glib[2]));
  server_clear (&server);
}

static void
test_glib_fp (void)
{
  Server server;
  Ring  *ring;
  guint  begin, end;
  g_autoptr (GArray) expected = NULL;

  /* Frame pointers cannot see through GLib: only the exact frames and a
   * walk that stays on the stack are required. */
  server_init (&server);
  server.unwind = "fp";
  run_child (&server, "glib");
  assert_child_ok (&server);
  ring = between_fences (&server, 1, 2, &begin, &end);
  expected = expected_from_report (&server);
  assert_events (ring, begin, end, expected, server.pid, server.pid);
  server_clear (&server);
}

static void
test_threads (void)
{
  Server      server;
  GHashTable *tids = g_hash_table_new (NULL, NULL);
  guint       n_bulk_rings = 0;

  server_init (&server);
  server.bulk = TRUE;
  server.bulk_n = 1000000;
  run_child (&server, "threads");
  assert_child_ok (&server);
  g_assert_cmpstr (server.out->str, ==, "bulk 1000000\n");
  for (guint r = 0; r < server.rings->len; r++)
    {
      Ring *ring = g_ptr_array_index (server.rings, r);

      if (ring->bulk_done == 0)
        continue;
      /* Every allocation and release of the loop arrived, then fence 2. */
      n_bulk_rings++;
      g_assert_cmpuint (ring->bulk_done, ==, 1000000);
      g_assert_cmpint (ring->bulk, ==, BULK_OFF);
      g_assert_cmpint (ring->bulk_tid, !=, server.pid);
      g_assert_false (g_hash_table_contains (tids, GINT_TO_POINTER (ring->bulk_tid)));
      g_hash_table_add (tids, GINT_TO_POINTER (ring->bulk_tid));
      /* The thread's exit closed its ring with the end marker. */
      g_assert_true (ring->ended);
    }
  g_assert_cmpuint (n_bulk_rings, ==, 2);
  g_hash_table_unref (tids);
  server_clear (&server);
}

static void
test_cross_thread_free (void)
{
  Server server;
  Ring  *main_ring, *worker_ring;
  guint  begin, end;
  g_auto (GStrv) alloc = NULL;
  g_auto (GStrv) worker = NULL;
  const Event *ev;
  gint32       worker_tid;

  server_init (&server);
  run_child (&server, "cross");
  assert_child_ok (&server);
  alloc = find_line (&server, "malloc");
  worker = find_line (&server, "worker");
  worker_tid = (gint32) parse_u64 (worker[1]);
  g_assert_cmpint (worker_tid, !=, server.pid);

  main_ring = between_fences (&server, 1, 2, &begin, &end);
  g_assert_cmpuint (end - begin, ==, 1);
  ev = &g_array_index (main_ring->events, Event, begin);
  g_assert_cmphex (ev->addr, ==, parse_ptr (alloc[1]));
  g_assert_cmpint (ev->size, ==, 555);
  g_assert_cmpint (ev->tid, ==, server.pid);

  /* The release is in the worker's ring, with the worker's tid. */
  worker_ring = between_fences (&server, 3, 4, &begin, &end);
  g_assert_true (worker_ring != main_ring);
  g_assert_cmpuint (end - begin, ==, 1);
  ev = &g_array_index (worker_ring->events, Event, begin);
  g_assert_cmphex (ev->addr, ==, parse_ptr (alloc[1]));
  g_assert_cmpint (ev->size, ==, 0);
  g_assert_cmpint (ev->tid, ==, worker_tid);
  g_assert_cmpint (ev->pid, ==, server.pid);
  /* The worker's exit closed its ring; the main thread exits through exit(). */
  g_assert_true (worker_ring->ended);
  g_assert_false (main_ring->ended);
  server_clear (&server);
}

static void
test_fork (void)
{
  Server server;
  Ring  *ring;
  guint  begin, end;
  g_autoptr (GArray) expected = NULL;
  g_auto (GStrv) fork_line = NULL;
  gint32 child_pid;

  server_init (&server);
  run_child (&server, "fork");
  assert_child_ok (&server);
  fork_line = find_line (&server, "fork");
  child_pid = (gint32) parse_u64 (fork_line[1]);
  /* The forked child ran its whole workload and exited 0... */
  g_assert_cmpstr (fork_line[2], ==, "0");
  /* ...untraced: no ring asked for, nothing written into ours. */
  g_assert_cmpuint (server.n_requests, ==, 1);
  ring = g_ptr_array_index (server.rings, 0);
  for (guint i = 0; i < ring->events->len; i++)
    g_assert_cmpint (g_array_index (ring->events, Event, i).pid, ==, server.pid);
  g_assert_cmpint (child_pid, !=, server.pid);
  /* The parent is still traced after the fork. */
  ring = between_fences (&server, 1, 2, &begin, &end);
  expected = expected_from_report (&server);
  assert_events (ring, begin, end, expected, server.pid, server.pid);
  server_clear (&server);
}

static void
run_exec (const char *preload, const char *remaining)
{
  Server server;
  g_auto (GStrv) exec_line = NULL;
  g_auto (GStrv) preload_line = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_preload = 0;

  server_init (&server);
  server.preload = preload;
  run_child (&server, "exec");
  assert_child_ok (&server);
  exec_line = find_line (&server, "exec");
  g_assert_cmpstr (exec_line[1], ==, "0");
  preload_line = find_line (&server, "preload");
  g_assert_cmpstr (preload_line[1], ==, remaining ? remaining : "(unset)");
  /* env(1), executed by the child, saw the same: not the tracker. */
  lines = g_strsplit (server.out->str, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (!g_str_has_prefix (lines[i], "LD_PRELOAD="))
        continue;
      n_preload++;
      g_assert_cmpstr (lines[i] + strlen ("LD_PRELOAD="), ==, remaining);
    }
  g_assert_cmpuint (n_preload, ==, remaining ? 1 : 0);
  server_clear (&server);
}

static void
test_exec (void)
{
  g_autofree char *two = g_strdup_printf ("%s:libm.so.6", preload_lib);
  g_autofree char *spaced = g_strdup_printf ("libm.so.6 %s", preload_lib);

  run_exec (NULL, NULL);
  /* Other entries are kept, whatever the separator. */
  run_exec (two, "libm.so.6");
  run_exec (spaced, "libm.so.6");
}

static void
run_untraced (Server *server)
{
  run_child (server, "work");
  assert_child_ok (server);
  g_assert_cmpstr (server->out->str, ==, "work ok\n");
  g_assert_cmpuint (server->n_requests, ==, 0);
  g_assert_cmpuint (server->rings->len, ==, 0);
  g_assert_cmpuint (server->err->len, ==, 0);
}

static void
test_bad_control_fd (void)
{
  static const char *values[] = { NULL, "", "abc", "3x", "-1", "999", "99999999999999999999" };
  int                fds[2];

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      Server server;

      server_init (&server);
      server.env_value = values[i];
      run_untraced (&server);
      server_clear (&server);
    }
  /* fd 3 is not a socket. */
  g_assert_no_errno (pipe (fds));
  {
    Server server;

    server_init (&server);
    server.fd3 = fds[0];
    run_untraced (&server);
    server_clear (&server);
  }
  close (fds[0]);
  close (fds[1]);
}

static void
test_traced_work (void)
{
  Server server;

  /* The same workload, traced, with both unwinders. */
  server_init (&server);
  run_child (&server, "work");
  assert_child_ok (&server);
  g_assert_cmpuint (server.n_requests, ==, 2);
  server_clear (&server);
  server_init (&server);
  server.unwind = "dwarf";
  run_child (&server, "work");
  assert_child_ok (&server);
  server_clear (&server);
}

static void
test_dlopen (void)
{
  Server server;

  server_init (&server);
  run_child (&server, "dlopen");
  assert_child_ok (&server);
  g_assert_cmpstr (server.out->str, ==, "dlopen ok\n");
#ifdef HAVE_SYSPROF_COLLECTOR_DESCRIBE_PROCESS
  {
    Ring    *ring;
    guint    begin, end;
    gboolean seen_process = FALSE, seen_libz = FALSE;

    /* The mappings were described again after dlopen(), libz among them. */
    ring = between_fences (&server, 1, 2, &begin, &end);
    for (guint i = begin; i < end; i++)
      {
        const Event *ev = &g_array_index (ring->events, Event, i);

        if (ev->type == SYSPROF_CAPTURE_FRAME_PROCESS)
          seen_process = TRUE;
        if (ev->type == SYSPROF_CAPTURE_FRAME_MAP && strstr (ev->filename, "libz.so"))
          seen_libz = TRUE;
      }
    g_assert_true (seen_process);
    g_assert_true (seen_libz);
  }
#endif
  server_clear (&server);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  preload_lib = g_getenv ("SYSPROF_TEST_MEMORY_LIB");
  child_exe = g_getenv ("SYSPROF_TEST_MEMORY_CHILD");
  g_assert_nonnull (preload_lib);
  g_assert_nonnull (child_exe);

  g_test_add_func ("/Preload/Memory/basic-fp", test_basic_fp);
  g_test_add_func ("/Preload/Memory/basic-dwarf", test_basic_dwarf);
  g_test_add_func ("/Preload/Memory/backtrace-fp", test_backtrace_fp);
  g_test_add_func ("/Preload/Memory/backtrace-dwarf", test_backtrace_dwarf);
  g_test_add_func ("/Preload/Memory/backtrace-depth", test_backtrace_depth);
  g_test_add_func ("/Preload/Memory/glib-fp", test_glib_fp);
  g_test_add_func ("/Preload/Memory/glib-dwarf", test_glib_dwarf);
  g_test_add_func ("/Preload/Memory/threads", test_threads);
  g_test_add_func ("/Preload/Memory/cross-thread-free", test_cross_thread_free);
  g_test_add_func ("/Preload/Memory/fork", test_fork);
  g_test_add_func ("/Preload/Memory/exec", test_exec);
  g_test_add_func ("/Preload/Memory/bad-control-fd", test_bad_control_fd);
  g_test_add_func ("/Preload/Memory/traced-work", test_traced_work);
  g_test_add_func ("/Preload/Memory/dlopen", test_dlopen);
  return g_test_run ();
}
