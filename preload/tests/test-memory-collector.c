// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof-memory.so end to end: this process plays the profiler.  It runs
 * memory-child with LD_PRELOAD=libsysprof-memory.so and one end of a
 * socketpair as fd 3 (SYSPROF_CONTROL_FD=3), answers its "CreatRing"
 * requests with reader rings, drains them, and compares the ALLOCATION
 * frames with what the child says it did (its stdout).
 *
 * With SYSPROF_MEMORY_FORMAT=stream the events come as blocks of per-thread
 * streams (FILE_CHUNK frames): they are decoded into the same events, per
 * stream, checking on the way what every stream must satisfy (block size,
 * times in order, every stack id defined once before use, is_last at the
 * end), so the frame tests run on streams too. */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
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
/* SYSPROF_MEMORY_FORMAT for the frame tests run again on streams. */
/* SYSPROF_MEMORY_FORMAT of the tests that leave it to the default (NULL:
 * unset, the tracker's default: streams). */
static const char *test_format = "frames";

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
  gint64   frame_time; /* when it was written */
  gint64   first_time; /* its events' times */
  gint64   last_time;
  guint    first_event; /* index in the stream's events */
  guint    n_events;
  gsize    len;
  guint    ring;     /* index of the ring it came through */
  gint     ring_pos; /* its position among that ring's events */
  gboolean is_last;
  guint    n_resets; /* reset records in it */
} Block;

/* A ring; or a stream (buffer NULL): one thread's blocks decoded. */
typedef struct
{
  SysprofMappedRingBuffer *buffer;
  GArray                  *events;
  gboolean                 ended;
  BulkState                bulk;
  guint                    bulk_done;
  guint64                  bulk_addr;
  gint32                   bulk_tid;
  /* Streams. */
  gint32                      pid;
  gint32                      tid;
  SysprofMemoryStreamDecoder *decoder;
  guint64                     n_stacks; /* stack definitions */
  GArray                     *blocks;
  gint64                      last_time;
} Ring;

typedef struct
{
  /* Options. */
  const char        *env_value;      /* SYSPROF_CONTROL_FD; NULL: unset */
  const char        *preload;        /* LD_PRELOAD; NULL: the library */
  int                fd3;            /* given as fd 3 instead of the socket */
  const char        *unwind;         /* SYSPROF_MEMORY_UNWIND */
  const char        *depth;          /* SYSPROF_MEMORY_DEPTH */
  const char        *format;         /* SYSPROF_MEMORY_FORMAT */
  const char *const *command;        /* run this instead of memory-child SCENARIO */
  const char *const *extra_env;      /* NAME, VALUE pairs added */
  gboolean           follow;         /* SYSPROF_FOLLOW_CHILDREN=1 */
  gint64             drain_delay_us; /* no draining until then */
  gboolean           bulk;
  guint              bulk_n;

  /* Results. */
  GPtrArray *rings;
  GPtrArray *streams; /* in the order they began */
  GPtrArray *pending; /* of Pending: blocks not decoded yet */
  guint64    pending_seq;
  guint64    lost; /* reported in lost-events METADATA frames */
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

  g_clear_pointer (&ring->buffer, sysprof_mapped_ring_buffer_unref);
  g_array_unref (ring->events);
  g_clear_pointer (&ring->decoder, sysprof_memory_stream_decoder_free);
  g_clear_pointer (&ring->blocks, g_array_unref);
  g_free (ring);
}

static Ring *
ring_new (Server *server)
{
  Ring *ring = g_new0 (Ring, 1);

  ring->events = g_array_new (FALSE, TRUE, sizeof (Event));
  g_array_set_clear_func (ring->events, event_clear);
  ring->bulk = server->bulk ? BULK_WAIT_FENCE : BULK_OFF;
  return ring;
}

static void
server_init (Server *server)
{
  memset (server, 0, sizeof *server);
  server->env_value = "3";
  server->fd3 = -1;
  server->rings = g_ptr_array_new_with_free_func (ring_free);
  server->streams = g_ptr_array_new_with_free_func (ring_free);
  server->pending = g_ptr_array_new_with_free_func (g_free);
  server->out = g_string_new (NULL);
  server->err = g_string_new (NULL);
}

static void
server_clear (Server *server)
{
  g_ptr_array_unref (server->rings);
  g_ptr_array_unref (server->streams);
  g_ptr_array_unref (server->pending);
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

/* ---- streams ------------------------------------------------------------------ */

/* A block taken from a ring, decoded once every block stamped before it is
 * in: a stream's blocks come through several rings (a thread writes out
 * another's), and only their times order them, as in the ring drainer. */
typedef struct
{
  guint64 seq;
  guint   ring;
  gint    ring_pos;
  guint8  chunk[];
} Pending;

/* The stream a block of (@pid, @tid) belongs to: the last one of that
 * thread, unless it ended (is_last), when a new one begins. */
static Ring *
stream_for (Server *server, gint32 pid, gint32 tid)
{
  Ring *stream;

  for (guint i = server->streams->len; i-- > 0;)
    {
      stream = g_ptr_array_index (server->streams, i);
      if (stream->pid == pid && stream->tid == tid && !stream->ended)
        return stream;
    }
  stream = ring_new (server);
  stream->pid = pid;
  stream->tid = tid;
  stream->decoder = sysprof_memory_stream_decoder_new (pid, tid);
  g_assert_nonnull (stream->decoder);
  stream->blocks = g_array_new (FALSE, TRUE, sizeof (Block));
  g_ptr_array_add (server->streams, stream);
  return stream;
}

/* One event of a stream, as a frame would have carried it. */
static void
stream_event (Server *server, Ring *stream, const SysprofAllocationEvent *e)
{
  SysprofCaptureAllocation a = { 0 };
  Event                    ev = { 0 };

  /* Times never go backwards within a stream. */
  g_assert_cmpint (e->time, >=, stream->last_time);
  stream->last_time = e->time;
  g_assert_cmpint (e->pid, ==, stream->pid);
  g_assert_cmpint (e->tid, ==, stream->tid);
  ev.type = SYSPROF_CAPTURE_FRAME_ALLOCATION;
  ev.pid = stream->pid;
  ev.tid = stream->tid;
  ev.addr = e->address;
  ev.size = e->size;
  ev.n_addrs = e->n_frames;
  for (guint i = 0; i < e->n_frames && i < MAX_KEPT_ADDRS; i++)
    ev.addrs[i] = e->frames[i];
  a.alloc_addr = ev.addr;
  a.alloc_size = ev.size;
  a.tid = stream->tid;
  a.n_addrs = (guint16) ev.n_addrs;
  if (!bulk_take (server, stream, &a))
    g_array_append_val (stream->events, ev);
}

/* Decodes a block with libsysprof-capture's decoder (the stream's), which
 * checks the format, stack ids included: the tracker's blocks decode
 * without a single error. */
static void
decode_block (Server *server, const Pending *pending)
{
  const SysprofCaptureFileChunk *chunk = (const SysprofCaptureFileChunk *) pending->chunk;
  SysprofMemoryStreamStats       before, after;
  SysprofAllocationEvent         e;
  Ring                          *stream;
  Block                          block = { 0 };
  gint32                         tid = 0;

  g_assert_true (sysprof_memory_stream_parse_path (chunk->path, &tid));
  g_assert_cmpint (tid, >, 0);
  g_assert_cmpuint (chunk->len, >, 0);
  g_assert_cmpuint (chunk->len, <=, SYSPROF_MEMORY_STREAM_MAX_BLOCK);
  /* Raw: compressing is the drainer's work. */
  g_assert_cmpint (chunk->data[0], ==, SYSPROF_MEMORY_STREAM_BLOCK_RAW);
  stream = stream_for (server, chunk->frame.pid, tid);
  block.frame_time = chunk->frame.time;
  block.first_event = stream->events->len;
  block.len = chunk->len;
  block.ring = pending->ring;
  block.ring_pos = pending->ring_pos;
  block.is_last = chunk->is_last;
  block.first_time = G_MAXINT64;
  sysprof_memory_stream_decoder_get_stats (stream->decoder, &before);
  g_assert_true (sysprof_memory_stream_decoder_feed (stream->decoder, chunk->data, chunk->len, UINT64_MAX));
  while (sysprof_memory_stream_decoder_next (stream->decoder, &e))
    {
      stream_event (server, stream, &e);
      block.first_time = MIN (block.first_time, e.time);
      block.last_time = MAX (block.last_time, e.time);
      block.n_events++;
    }
  g_assert_cmpstr (sysprof_memory_stream_decoder_get_error (stream->decoder), ==, NULL);
  sysprof_memory_stream_decoder_get_stats (stream->decoder, &after);
  block.n_resets = (guint) (after.resets - before.resets);
  stream->n_stacks += after.stacks - before.stacks;
  g_array_append_val (stream->blocks, block);
  if (chunk->is_last)
    stream->ended = TRUE;
}

static gint
pending_compare (gconstpointer a, gconstpointer b)
{
  const Pending *x = *(const Pending *const *) a, *y = *(const Pending *const *) b;
  gint64 tx = ((const SysprofCaptureFrame *) x->chunk)->time, ty = ((const SysprofCaptureFrame *) y->chunk)->time;

  if (tx != ty)
    return tx < ty ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Decodes the pending blocks stamped up to @horizon, in time order. */
static void
decode_pending (Server *server, gint64 horizon)
{
  guint n = 0;

  g_ptr_array_sort (server->pending, pending_compare);
  while (n < server->pending->len &&
         ((const SysprofCaptureFrame *) ((Pending *) g_ptr_array_index (server->pending, n))->chunk)->time <= horizon)
    decode_block (server, g_ptr_array_index (server->pending, n++));
  g_ptr_array_remove_range (server->pending, 0, n);
}

typedef struct
{
  Server *server;
  Ring   *ring;
  guint   index;
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
  else if (header.type == SYSPROF_CAPTURE_FRAME_LOG)
    ev.filename = g_strdup (((const SysprofCaptureLog *) copy)->message);
  else if (header.type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK &&
           g_str_has_prefix (((const SysprofCaptureFileChunk *) copy)->path, SYSPROF_COLLECTOR_MEMORY_STREAM_PREFIX))
    {
      Pending *pending = g_malloc (sizeof *pending + header.len);

      pending->seq = dd->server->pending_seq++;
      pending->ring = dd->index;
      pending->ring_pos = (gint) ring->events->len;
      memcpy (pending->chunk, copy, header.len);
      g_ptr_array_add (dd->server->pending, pending);
    }
  else if (header.type == SYSPROF_CAPTURE_FRAME_METADATA &&
           g_str_equal (((const SysprofCaptureMetadata *) copy)->id, SYSPROF_LOST_EVENTS_METADATA_ID))
    dd->server->lost += g_ascii_strtoull (((const SysprofCaptureMetadata *) copy)->metadata, NULL, 10);
  g_array_append_val (ring->events, ev);
  return true;
}

static void
drain_all (Server *server)
{
  gint64 horizon = SYSPROF_CAPTURE_CURRENT_TIME;

  for (guint i = 0; i < server->rings->len; i++)
    {
      DrainData dd = { server, g_ptr_array_index (server->rings, i), i };

      g_assert_true (sysprof_mapped_ring_buffer_drain (dd.ring->buffer, drain_cb, &dd));
    }
  decode_pending (server, horizon);
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
  ring = ring_new (server);
  ring->buffer = sysprof_mapped_ring_buffer_new_reader (0);
  g_assert_nonnull (ring->buffer);
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
  const char        *default_argv[] = { child_exe, scenario, NULL };
  const char *const *argv = server->command ? server->command : default_argv;
  char               request[64];
  gsize              request_len = 0;
  gboolean           exited = FALSE, eof = FALSE, out_eof = FALSE, err_eof = FALSE;
  gint64             deadline = g_get_monotonic_time () + SERVE_DEADLINE;
  gint64             drain_from = g_get_monotonic_time () + server->drain_delay_us;
  int                sv[2];
  int                source_fd;
  int                target_fd = 3;
  int                out_fd = -1, err_fd = -1;

  g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
  envp = server->env_value ? g_environ_setenv (envp, "SYSPROF_CONTROL_FD", server->env_value, TRUE)
                           : g_environ_unsetenv (envp, "SYSPROF_CONTROL_FD");
  envp = g_environ_setenv (envp, "LD_PRELOAD", server->preload ? server->preload : preload_lib, TRUE);
  envp = server->unwind ? g_environ_setenv (envp, "SYSPROF_MEMORY_UNWIND", server->unwind, TRUE)
                        : g_environ_unsetenv (envp, "SYSPROF_MEMORY_UNWIND");
  envp = server->depth ? g_environ_setenv (envp, "SYSPROF_MEMORY_DEPTH", server->depth, TRUE)
                       : g_environ_unsetenv (envp, "SYSPROF_MEMORY_DEPTH");
  if (server->format == NULL)
    server->format = test_format;
  envp = server->format ? g_environ_setenv (envp, "SYSPROF_MEMORY_FORMAT", server->format, TRUE)
                        : g_environ_unsetenv (envp, "SYSPROF_MEMORY_FORMAT");
  envp = server->follow ? g_environ_setenv (envp, "SYSPROF_FOLLOW_CHILDREN", "1", TRUE)
                        : g_environ_unsetenv (envp, "SYSPROF_FOLLOW_CHILDREN");
  for (guint i = 0; server->extra_env && server->extra_env[i]; i += 2)
    envp = g_environ_setenv (envp, server->extra_env[i], server->extra_env[i + 1], TRUE);
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
      if (g_get_monotonic_time () >= drain_from)
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
  decode_pending (server, G_MAXINT64);
  close (out_fd);
  close (err_fd);
  g_spawn_close_pid (server->pid);
  if (server->err->len > 0)
    g_test_message ("child stderr: %s", server->err->str);
  /* Frames only when frames were asked for. */
  if (g_strcmp0 (server->format, "frames") == 0)
    g_assert_cmpuint (server->streams->len, ==, 0);
  for (guint i = 0; i < server->streams->len; i++)
    {
      Ring *stream = g_ptr_array_index (server->streams, i);

      /* is_last on the last block only. */
      g_assert_cmpuint (stream->blocks->len, >, 0);
      for (guint b = 0; b + 1 < stream->blocks->len; b++)
        g_assert_false (g_array_index (stream->blocks, Block, b).is_last);
    }
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
  for (guint r = 0; r < server->rings->len + server->streams->len; r++)
    {
      Ring *ring = r < server->rings->len ? g_ptr_array_index (server->rings, r)
                                          : g_ptr_array_index (server->streams, r - server->rings->len);

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
  server_clear (&server);
}

/* ---- streams ---------------------------------------------------------------- */

/* The frame tests again, on streams (the default: SYSPROF_MEMORY_FORMAT
 * unset): the same events, stacks included. */
static void
test_stream_frame_tests (void)
{
  test_format = NULL;
  run_basic ("fp");
  run_basic ("dwarf");
  run_backtrace ("dwarf", NULL, 0);
  run_backtrace ("fp", "2", 2);
  test_glib_dwarf ();
  test_fork ();
  test_format = "frames";
}

static Ring *
find_stream (Server *server, gint32 pid, gint32 tid)
{
  for (guint i = 0; i < server->streams->len; i++)
    {
      Ring *stream = g_ptr_array_index (server->streams, i);

      if (stream->pid == pid && stream->tid == tid)
        return stream;
    }
  g_error ("no stream of thread %d of %d", tid, pid);
  return NULL;
}

static void
assert_all_ended (Server *server)
{
  for (guint i = 0; i < server->streams->len; i++)
    g_assert_true (((Ring *) g_ptr_array_index (server->streams, i))->ended);
}

/* 2 threads x 1,000,000 pairs: every event in its stream, in order; each
 * stream ends with is_last at the thread's exit; blocks near the size
 * bound (the loop fills them in well under 10 ms). */
static void
test_stream_threads (void)
{
  Server server;
  guint  n_bulk = 0;

  server_init (&server);
  server.format = "stream";
  server.bulk = TRUE;
  server.bulk_n = 1000000;
  run_child (&server, "threads");
  assert_child_ok (&server);
  g_assert_cmpstr (server.out->str, ==, "bulk 1000000\n");
  for (guint i = 0; i < server.streams->len; i++)
    {
      Ring *stream = g_ptr_array_index (server.streams, i);
      gsize bytes = 0;
      guint full = 0;

      if (stream->bulk_done == 0)
        continue;
      n_bulk++;
      g_assert_cmpuint (stream->bulk_done, ==, 1000000);
      g_assert_cmpint (stream->bulk, ==, BULK_OFF);
      g_assert_cmpint (stream->tid, ==, stream->bulk_tid);
      g_assert_true (stream->ended);
      for (guint b = 0; b < stream->blocks->len; b++)
        {
          const Block *block = &g_array_index (stream->blocks, Block, b);

          bytes += block->len;
          if (block->len > SYSPROF_COLLECTOR_MEMORY_STREAM_MAX_BLOCK - 2048)
            full++;
        }
      /* Most blocks were written because they were full. */
      g_assert_cmpuint (full, >=, stream->blocks->len / 2);
      g_test_message ("stream %d: %u blocks, %" G_GSIZE_FORMAT " bytes", stream->tid, stream->blocks->len, bytes);
    }
  g_assert_cmpuint (n_bulk, ==, 2);
  g_assert_cmpuint (server.lost, ==, 0);
  assert_all_ended (&server);
  server_clear (&server);
}

/* A block freed by another thread: the release in the worker's stream. */
static void
test_stream_cross (void)
{
  Server server;
  Ring  *main_stream, *worker_stream;
  guint  begin, end;
  g_auto (GStrv) alloc = NULL;
  g_auto (GStrv) worker = NULL;
  const Event *ev;

  server_init (&server);
  server.format = "stream";
  run_child (&server, "cross");
  assert_child_ok (&server);
  alloc = find_line (&server, "malloc");
  worker = find_line (&server, "worker");
  main_stream = between_fences (&server, 1, 2, &begin, &end);
  g_assert_true (main_stream == find_stream (&server, server.pid, server.pid));
  g_assert_cmpuint (end - begin, ==, 1);
  ev = &g_array_index (main_stream->events, Event, begin);
  g_assert_cmphex (ev->addr, ==, parse_ptr (alloc[1]));
  g_assert_cmpint (ev->size, ==, 555);
  worker_stream = between_fences (&server, 3, 4, &begin, &end);
  g_assert_true (worker_stream == find_stream (&server, server.pid, (gint32) parse_u64 (worker[1])));
  g_assert_cmpuint (end - begin, ==, 1);
  ev = &g_array_index (worker_stream->events, Event, begin);
  g_assert_cmphex (ev->addr, ==, parse_ptr (alloc[1]));
  g_assert_cmpint (ev->size, ==, 0);
  /* The worker's stream ended at its exit (in its own ring), the main
   * thread's at exit(). */
  g_assert_true (worker_stream->ended);
  g_assert_true (main_stream->ended);
  g_assert_cmpuint (server.lost, ==, 0);
  server_clear (&server);
}

/* A thread that allocates once and then sleeps for a second: another
 * thread writes its block out long before it wakes up (a sweep). */
static void
test_stream_idle (void)
{
  Server server;
  Ring  *stream;
  g_auto (GStrv) idle = NULL;
  g_auto (GStrv) idle_end = NULL;
  const Block *first = NULL;

  server_init (&server);
  server.format = "stream";
  run_child (&server, "idle");
  assert_child_ok (&server);
  idle = find_line (&server, "idle");
  idle_end = find_line (&server, "idle-end");
  stream = find_stream (&server, server.pid, (gint32) parse_u64 (idle[1]));
  for (guint i = 0; i < stream->events->len && first == NULL; i++)
    if (g_array_index (stream->events, Event, i).size == 31337)
      for (guint b = 0; b < stream->blocks->len; b++)
        {
          const Block *block = &g_array_index (stream->blocks, Block, b);

          if (block->first_event <= i && i < block->first_event + block->n_events)
            first = block;
        }
  g_assert_nonnull (first);
  g_assert_true (g_ptr_array_index (server.rings, first->ring) != NULL);
  g_assert_cmpint (first->frame_time - first->first_time, <, 500 * G_GINT64_CONSTANT (1000000));
  g_assert_cmpint (first->frame_time, <, (gint64) parse_u64 (idle_end[1]));
  g_assert_true (stream->ended);
  server_clear (&server);
}

/* An allocation every 2 ms: each block is written once its first event is
 * 10 ms old, at the event that finds it so. */
static void
test_stream_age (void)
{
  Server server;
  Ring  *stream;
  guint  aged = 0;

  server_init (&server);
  server.format = "stream";
  run_child (&server, "slow");
  assert_child_ok (&server);
  stream = find_stream (&server, server.pid, server.pid);
  for (guint b = 0; b < stream->blocks->len; b++)
    {
      const Block *block = &g_array_index (stream->blocks, Block, b);

      if (block->n_events == 0)
        continue;
      /* Never more than one event past the age (which may come late on a
       * loaded machine: generous bounds). */
      g_assert_cmpint (block->frame_time, >=, block->last_time);
      g_assert_cmpint (block->frame_time - block->last_time, <, 100 * G_GINT64_CONSTANT (1000000));
      if (block->last_time - block->first_time >= 10 * G_GINT64_CONSTANT (1000000))
        aged++;
    }
  /* 300 events over 300 ms or more, two per 2 ms: blocks of about 10 ms. */
  g_assert_cmpuint (aged, >=, 5);
  g_assert_true (stream->ended);
  server_clear (&server);
}

/* exit() while a thread allocates: that thread's block is written by the
 * exiting thread (its ring) as the stream's last, and the thread's later
 * events come as frames, after. */
static void
test_stream_exit_busy (void)
{
  Server server;
  Ring  *stream, *own_ring = NULL;
  g_auto (GStrv) busy = NULL;
  const Block *last;
  gint32       tid;
  guint        n_frames = 0;

  server_init (&server);
  server.format = "stream";
  run_child (&server, "exit-busy");
  assert_child_ok (&server);
  busy = find_line (&server, "busy");
  tid = (gint32) parse_u64 (busy[1]);
  stream = find_stream (&server, server.pid, tid);
  g_assert_true (stream->ended);
  g_assert_cmpuint (stream->events->len, >, 1000);
  last = &g_array_index (stream->blocks, Block, stream->blocks->len - 1);
  g_assert_true (last->is_last);
  /* Alternating allocations and releases of the same block. */
  for (guint i = 0; i + 1 < stream->events->len; i += 2)
    {
      const Event *a = &g_array_index (stream->events, Event, i);
      const Event *f = &g_array_index (stream->events, Event, i + 1);

      g_assert_cmpint (a->size, ==, 48);
      g_assert_cmpint (f->size, ==, 0);
      g_assert_cmphex (f->addr, ==, a->addr);
    }
  /* The last block came through another thread's ring than the worker's
   * own (the ring its other blocks came through). */
  for (guint b = 0; b + 1 < stream->blocks->len; b++)
    own_ring = g_ptr_array_index (server.rings, g_array_index (stream->blocks, Block, b).ring);
  g_assert_true (own_ring != NULL);
  g_assert_true (g_ptr_array_index (server.rings, last->ring) != own_ring);
  for (guint r = 0; r < server.rings->len; r++)
    {
      Ring *ring = g_ptr_array_index (server.rings, r);

      for (guint i = 0; i < ring->events->len; i++)
        {
          const Event *ev = &g_array_index (ring->events, Event, i);

          if (ev->type == SYSPROF_CAPTURE_FRAME_ALLOCATION && ev->tid == tid)
            n_frames++;
        }
    }
  g_test_message ("worker: %u events in its stream, %u frames after", stream->events->len, n_frames);
  server_clear (&server);
}

/* The ring is not drained for two seconds: the tracker gives up waiting,
 * blocks are lost (counted), and the blocks after a lost one start by
 * forgetting the stack ids (every id used is defined in what arrived: the
 * decoder checks it). */
static void
test_stream_lost_blocks (void)
{
  Server   server;
  Ring    *stream;
  guint    n_loop = 0, n_loop_frees = 0, resets = 0;
  gboolean in_loop = FALSE;

  server_init (&server);
  server.format = "stream";
  server.drain_delay_us = 2 * G_USEC_PER_SEC;
  run_child (&server, "burst");
  assert_child_ok (&server);
  stream = find_stream (&server, server.pid, server.pid);
  g_assert_cmpuint (server.lost, >, 0);
  for (guint b = 0; b < stream->blocks->len; b++)
    if (g_array_index (stream->blocks, Block, b).n_resets > 0)
      resets++;
  g_assert_cmpuint (resets, >=, 1);
  for (guint i = 0; i < stream->events->len; i++)
    {
      const Event *ev = &g_array_index (stream->events, Event, i);

      if (ev->size == FENCE_BASE + 1 || ev->size == FENCE_BASE + 2)
        in_loop = ev->size == FENCE_BASE + 1;
      else if (in_loop && ev->size != 0)
        {
          n_loop++;
          /* burst_a/b/c or the scenario: a stack of at least 2 frames. */
          g_assert_cmpuint (ev->n_addrs, >=, 2);
        }
      else if (in_loop)
        n_loop_frees++;
    }
  /* What arrived and what was counted lost make up the loop at least (an
   * allocation and its free may be in different blocks, one lost). */
  g_assert_cmpuint (n_loop + n_loop_frees + server.lost, >=, 600000);
  g_test_message ("%u of 300000 allocations arrived, %" G_GUINT64_FORMAT " events lost, %u resets", n_loop, server.lost,
                  resets);
  server_clear (&server);
}

/* A followed child: a stream of its own (its pid and tid) with stack
 * definitions of its own, ended at its exit(); the parent's stream goes on. */
static void
test_stream_fork_follow (void)
{
  Server server;
  Ring  *parent, *child;
  g_auto (GStrv) fork_line = NULL;
  gint32 child_pid;
  guint  begin, end;

  server_init (&server);
  server.format = "stream";
  server.follow = TRUE;
  run_child (&server, "fork-exit");
  assert_child_ok (&server);
  fork_line = find_line (&server, "fork");
  child_pid = (gint32) parse_u64 (fork_line[1]);
  g_assert_cmpstr (fork_line[2], ==, "0");
  child = between_fences (&server, 5, 6, &begin, &end);
  g_assert_true (child == find_stream (&server, child_pid, child_pid));
  g_assert_cmpuint (end - begin, ==, 2);
  g_assert_cmpint (g_array_index (child->events, Event, begin).size, ==, 4242);
  g_assert_cmpuint (g_array_index (child->events, Event, begin).n_addrs, >=, 5);
  /* Its own stack definitions: an id of the parent's would not decode. */
  g_assert_cmpuint (child->n_stacks, >=, 1);
  g_assert_true (child->ended);
  parent = between_fences (&server, 1, 2, &begin, &end);
  g_assert_true (parent == find_stream (&server, server.pid, server.pid));
  g_assert_cmpint (g_array_index (parent->events, Event, end - 2).size, ==, 4242);
  g_assert_true (parent->ended);
  server_clear (&server);
}

/* The blocks of what came before dlopen() are written before the mappings
 * are described again. */
static void
test_stream_dlopen (void)
{
  Server server;
  Ring  *stream, *ring;
  guint  begin, end, fence_block = G_MAXUINT;
  gint   fence_pos = -1, process_pos = -1;

  server_init (&server);
  server.format = "stream";
  run_child (&server, "dlopen");
  assert_child_ok (&server);
  g_assert_cmpstr (server.out->str, ==, "dlopen ok\n");
  stream = between_fences (&server, 1, 2, &begin, &end);
  for (guint b = 0; b < stream->blocks->len; b++)
    {
      const Block *block = &g_array_index (stream->blocks, Block, b);

      if (block->first_event < begin && begin <= block->first_event + block->n_events)
        fence_block = b;
    }
  g_assert_cmpuint (fence_block, !=, G_MAXUINT);
  ring = g_ptr_array_index (server.rings, g_array_index (stream->blocks, Block, fence_block).ring);
  fence_pos = g_array_index (stream->blocks, Block, fence_block).ring_pos;
  /* The last PROCESS frame: the description after dlopen(). */
  for (guint i = 0; i < ring->events->len; i++)
    if (g_array_index (ring->events, Event, i).type == SYSPROF_CAPTURE_FRAME_PROCESS)
      process_pos = (gint) i;
  g_assert_cmpint (fence_pos, >=, 0);
  g_assert_cmpint (process_pos, >, fence_pos);
  server_clear (&server);
}

/* _exit() while a thread allocates, and exec: the streams end before. */
static void
test_stream_quick_exit (void)
{
  static const char *const scenarios[] = { "quick-exit", "exec-stream" };

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      Server server;
      Ring  *stream;
      guint  begin, end;

      server_init (&server);
      server.format = "stream";
      run_child (&server, scenarios[i]);
      assert_child_ok (&server);
      stream = between_fences (&server, 1, 2, &begin, &end);
      g_assert_true (stream == find_stream (&server, server.pid, server.pid));
      g_assert_cmpuint (end - begin, ==, 2);
      g_assert_cmpint (g_array_index (stream->events, Event, begin).size, ==, 4321);
      assert_all_ended (&server);
      server_clear (&server);
    }
}

/* Killed by a signal left at its default action (raised, or a fault): the
 * tracker's handler writes every block out first, and the process still
 * dies of that signal; a program's own handler replaces the tracker's. */
static void
test_stream_signals (void)
{
  static const struct
  {
    const char *scenario;
    int         signal; /* 0: exits with status 7 */
  } cases[] = { { "signal-term", SIGTERM }, { "signal-segv", SIGSEGV }, { "signal-own", 0 } };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Server server;
      Ring  *stream;
      guint  begin, end;

      server_init (&server);
      server.format = "stream";
      run_child (&server, cases[i].scenario);
      if (cases[i].signal != 0)
        {
          g_assert_true (WIFSIGNALED (server.status));
          g_assert_cmpint (WTERMSIG (server.status), ==, cases[i].signal);
        }
      else
        {
          g_assert_true (WIFEXITED (server.status));
          g_assert_cmpint (WEXITSTATUS (server.status), ==, 7);
        }
      stream = between_fences (&server, 1, 2, &begin, &end);
      g_assert_true (stream == find_stream (&server, server.pid, server.pid));
      g_assert_cmpuint (end - begin, ==, 2);
      g_assert_cmpint (g_array_index (stream->events, Event, begin).size, ==, 4321);
      assert_all_ended (&server);
      g_assert_cmpuint (server.lost, ==, 0);
      server_clear (&server);
    }
}

/* The handlers cannot be seen: sigaction() and signal() report SIG_DFL
 * where the tracker's handler is; and Debian's python3, which installs its
 * KeyboardInterrupt handler only where SIGINT's action is SIG_DFL, still
 * does (Ctrl-C raises KeyboardInterrupt under the tracker too). */
static void
test_stream_signal_hidden (void)
{
  static const char *const command[] = {
    "/usr/bin/python3", "-c",
    "import signal, sys\n"
    "sys.exit(0 if signal.getsignal(signal.SIGINT) is signal.default_int_handler and\n"
    "         signal.getsignal(signal.SIGTERM) == signal.SIG_DFL else 3)\n",
    NULL
  };
  Server server;

  server_init (&server);
  server.format = "stream";
  run_child (&server, "signal-query");
  assert_child_ok (&server);
  g_assert_nonnull (strstr (server.out->str, "query ok"));
  server_clear (&server);

  if (!g_file_test (command[0], G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  server_init (&server);
  server.format = "stream";
  server.command = command;
  run_child (&server, NULL);
  g_assert_true (WIFEXITED (server.status));
  g_assert_cmpint (WEXITSTATUS (server.status), ==, 0);
  server_clear (&server);
}

/* ---- the unwind cache on a real program ----------------------------------------- */

/* Debian's python3 (no frame pointers, deep interpreter stacks), every
 * allocation through malloc: with SYSPROF_MEMORY_UNWIND=dwarf-verify the
 * tracker unwinds each stack both through the cache and with libunwind and
 * says, in a LOG frame at exit, how many differed: none may. */
static void
test_unwind_cache_python (void)
{
  static const char *const script = "import json, re\n"
                                    "def deep(n):\n"
                                    "    return [str(i) * 3 for i in range(50)] if n == 0 else deep(n - 1)\n"
                                    "class Item:\n"
                                    "    def __init__(self, i):\n"
                                    "        self.name = 'item%d' % i\n"
                                    "        self.tags = [i, str(i), {'k': i}]\n"
                                    "data = [Item(i).__dict__ for i in range(3000)]\n"
                                    "for r in range(3):\n"
                                    "    data = json.loads(json.dumps(data))\n"
                                    "for d in range(0, 60, 7):\n"
                                    "    deep(d)\n"
                                    "words = re.findall(r'\\w+', ' '.join(str(x) for x in range(5000)))\n"
                                    "print(len(data), len(words))\n";
  const char *const        command[] = { "/usr/bin/python3", "-c", script, NULL };
  const char *const        env[] = { "PYTHONMALLOC", "malloc", NULL };
  Server                   server;
  const char              *summary = NULL;
  guint64                  compared, differed;

  if (!g_file_test (command[0], G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  server_init (&server);
  server.command = command;
  server.extra_env = env;
  server.unwind = "dwarf-verify";
  run_child (&server, NULL);
  assert_child_ok (&server);
  g_assert_cmpstr (server.out->str, ==, "3000 5000\n");
  for (guint r = 0; r < server.rings->len; r++)
    {
      Ring *ring = g_ptr_array_index (server.rings, r);

      for (guint i = 0; i < ring->events->len; i++)
        {
          const Event *ev = &g_array_index (ring->events, Event, i);

          if (ev->type == SYSPROF_CAPTURE_FRAME_LOG && g_str_has_prefix (ev->filename, "unwind cache: "))
            summary = ev->filename;
        }
    }
  g_assert_nonnull (summary);
  g_test_message ("%s", summary);
  g_assert_cmpint (sscanf (summary,
                           "unwind cache: %" G_GUINT64_FORMAT " backtraces compared with libunwind, %" G_GUINT64_FORMAT
                           " differed",
                           &compared, &differed),
                   ==, 2);
  g_assert_cmpuint (compared, >, 10000);
  g_assert_cmpuint (differed, ==, 0);
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
  g_test_add_func ("/Preload/Memory/stream/frame-tests", test_stream_frame_tests);
  g_test_add_func ("/Preload/Memory/stream/threads", test_stream_threads);
  g_test_add_func ("/Preload/Memory/stream/cross-thread-free", test_stream_cross);
  g_test_add_func ("/Preload/Memory/stream/idle", test_stream_idle);
  g_test_add_func ("/Preload/Memory/stream/age", test_stream_age);
  g_test_add_func ("/Preload/Memory/stream/exit-busy", test_stream_exit_busy);
  g_test_add_func ("/Preload/Memory/stream/lost-blocks", test_stream_lost_blocks);
  g_test_add_func ("/Preload/Memory/stream/fork-follow", test_stream_fork_follow);
  g_test_add_func ("/Preload/Memory/stream/dlopen", test_stream_dlopen);
  g_test_add_func ("/Preload/Memory/stream/quick-exit", test_stream_quick_exit);
  g_test_add_func ("/Preload/Memory/stream/signals", test_stream_signals);
  g_test_add_func ("/Preload/Memory/stream/signals-hidden", test_stream_signal_hidden);
  g_test_add_func ("/Preload/Memory/unwind-cache/python3", test_unwind_cache_python);
  return g_test_run ();
}
