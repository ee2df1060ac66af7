// SPDX-License-Identifier: GPL-3.0-or-later
/* stress-client: one of the many clients test-stress.sh runs against sysprofd
 * at once.  Every choice comes from a GRand seeded with SEED, so that a run
 * can be replayed (the timing between clients, of course, cannot).
 *
 *   stress-client MODE SEED SECONDS [ARG...]
 *
 *   lifecycle LEVEL     sessions with random options: created, maybe given
 *       a capture file of ours (or a pipe, refused), started, read with
 *       ReadCapture while recording, stopped, read again and closed; or
 *       closed with reads pipelined around Close; or left with calls pending
 *       by closing the connection.  LEVEL 0 creates no detached session;
 *       1 does (and prints "detached-path PATH" as soon as one exists, for the
 *       script to close those whose client vanished); 2 also dies by
 *       SIGKILL with calls pending now and then.
 *   rings PRODUCERS     a session fed by PRODUCERS forked processes, each
 *       with a ring of its own: valid frames mixed with garbage, frames
 *       whose length and type change after they were published, header
 *       words scribbled over; producers are SIGKILLed at random, mid-write,
 *       and replaced; now and then rings are created until refused.
 *   service BURST       bursts of up to BURST pipelined Service and Host
 *       calls (over BURST 64 a uid gets LimitsExceeded): ListProcesses,
 *       GetProcessInfo, GetProcFile/GetProcFd of allowed and refused paths,
 *       ResolvePath, GetMountInfo, ListDebugDirectories, GetKernelSymbols.
 *   denied BURST        what the service clients call, plus CreateSession,
 *       session methods and properties on guessed session paths, for a user
 *       polkit refuses: anything but an error is a breach.
 *   probe               once a second: ListProcesses, then CreateSession,
 *       Start, ReadCapture, Stop, Close, each timed; prints
 *       "probe I at T list-ms L session-ms S create-start-read-stop-close-ms
 *       A/B/C/D/E" (T: wall clock, ms since the epoch; S the sum of the
 *       five calls) and at the end "max-list-ms", "max-session-ms", "probes".
 *   close PATH...       Close each session (as its owner).
 *
 * Every answer is checked against what the call may answer (LimitsExceeded
 * is always acceptable, except for the probe); each other answer is printed
 * at once as "error METHOD OUTCOME: MESSAGE", so that a client killed later
 * leaves it behind.  A client that lives to its end prints "key value"
 * lines: the count of each outcome, "unexpected N", and what its mode did.
 * Exit status: 0, or 1 when the bus cannot be reached at all. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <sysprof-capture.h>

#define NAME       "org.gnome.Sysprof3"
#define PATH       "/org/gnome/Sysprof3"
#define SERVICE    NAME ".Service"
#define HOST       NAME ".Host"
#define MANAGER    NAME ".SessionManager"
#define SESSION    NAME ".Session"
#define PROPERTIES "org.freedesktop.DBus.Properties"
/* Longer than any answer should take, shorter than the test: a call that
 * hangs shows up as NoReply. */
#define TIMEOUT_MS 25000
#define READ_MAX   (1024 * 1024)
/* Sysprof's collector ends a ring with a bare frame header of this type. */
#define FRAME_END 0xFF

typedef enum
{
  OUT_OK,
  OUT_LIMITED,   /* LimitsExceeded */
  OUT_DENIED,    /* AccessDenied */
  OUT_GONE,      /* UnknownObject, UnknownMethod, UnknownInterface: a closed session */
  OUT_INVALID,   /* InvalidArgs */
  OUT_NOT_FOUND, /* FileNotFound */
  OUT_FAILED,    /* Failed */
  OUT_OTHER,     /* anything else: NoReply, Disconnected, ... */
  OUT_EMPTY,     /* an answer that holds nothing (see EMPTY) */
  N_OUTCOMES
} Outcome;

#define ACCEPT(o) (1u << (o))
#define OK        ACCEPT (OUT_OK)
#define LIMITED   ACCEPT (OUT_LIMITED)
#define DENIED    ACCEPT (OUT_DENIED)
#define GONE      ACCEPT (OUT_GONE)
#define INVALID   ACCEPT (OUT_INVALID)
#define NOT_FOUND ACCEPT (OUT_NOT_FOUND)
#define FAILED    ACCEPT (OUT_FAILED)
/* An answer, provided it holds nothing: GDBus answers Properties.GetAll
 * itself and leaves out every property the daemon refuses to read, so a
 * stranger's GetAll on a session is an empty dictionary, not AccessDenied. */
#define EMPTY ACCEPT (OUT_EMPTY)

static const char *const outcome_names[N_OUTCOMES] = {
  "ok", "limited", "denied", "gone", "invalid", "not-found", "failed", "other", "empty",
};

static guint64 outcomes[N_OUTCOMES];
static guint64 unexpected;
/* Added to every acceptable set: the probe takes it away. */
static guint always = LIMITED;
/* When set, replaces the acceptable set of the calls sent meanwhile. */
static guint  override;
static GRand *rng;
static gint64 deadline;
static char  *bus_address;

/* What the modes did, printed at the end when not zero. */
typedef enum
{
  DID_SESSIONS,
  DID_DETACHED,
  DID_CAPTURES_READ,
  DID_BYTES_READ,
  DID_ABANDONED,
  DID_CLOSE_RACES,
  DID_RINGS,
  DID_PRODUCERS,
  DID_PRODUCERS_KILLED,
  DID_PRODUCERS_ENDED,
  DID_EXHAUSTED,
  DID_CALLS,
  N_DID
} Did;

static const char *const did_names[N_DID] = {
  "sessions", "detached",  "captures-read",    "bytes-read",      "abandoned", "close-races",
  "rings",    "producers", "producers-killed", "producers-ended", "exhausted", "calls",
};

static guint64 did[N_DID];

/* ------------------------------------------------------------------------ */
/* Randomness and time */

static gboolean
chance (double p)
{
  return g_rand_double (rng) < p;
}

/* Inclusive. */
static gint32
between (gint32 lo, gint32 hi)
{
  return g_rand_int_range (rng, lo, hi + 1);
}

static gboolean
time_left (void)
{
  return g_get_monotonic_time () < deadline;
}

static void
sleep_ms (guint ms)
{
  g_usleep ((gulong) ms * 1000);
}

/* ------------------------------------------------------------------------ */
/* Calls and their outcomes */

static Outcome
classify (const GError *error)
{
  if (error == NULL)
    return OUT_OK;
  if (error->domain != G_DBUS_ERROR)
    return OUT_OTHER;
  switch (error->code)
    {
    case G_DBUS_ERROR_LIMITS_EXCEEDED: return OUT_LIMITED;
    case G_DBUS_ERROR_ACCESS_DENIED: return OUT_DENIED;
    case G_DBUS_ERROR_UNKNOWN_OBJECT:
    case G_DBUS_ERROR_UNKNOWN_METHOD:
    case G_DBUS_ERROR_UNKNOWN_INTERFACE: return OUT_GONE;
    case G_DBUS_ERROR_INVALID_ARGS: return OUT_INVALID;
    case G_DBUS_ERROR_FILE_NOT_FOUND: return OUT_NOT_FOUND;
    case G_DBUS_ERROR_FAILED: return OUT_FAILED;
    default: return OUT_OTHER;
    }
}

static Outcome
note_outcome (const char *what, Outcome outcome, const GError *error, guint accept)
{
  outcomes[outcome]++;
  did[DID_CALLS]++;
  if (!((accept | always) & ACCEPT (outcome)))
    {
      unexpected++;
      printf ("error %s %s: %s\n", what, outcome_names[outcome], error ? error->message : "answered");
    }
  return outcome;
}

static Outcome
note (const char *what, const GError *error, guint accept)
{
  return note_outcome (what, classify (error), error, accept);
}

static GDBusConnection *
connect_bus (void)
{
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus = g_dbus_connection_new_for_address_sync (
      bus_address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
      NULL, &error);

  if (bus == NULL)
    {
      g_printerr ("stress-client: cannot connect to the bus: %s\n", error->message);
      exit (1);
    }
  return bus;
}

/* A synchronous call; @args is consumed. */
static Outcome
call (GDBusConnection *bus,
      const char      *path,
      const char      *iface,
      const char      *method,
      GVariant        *args,
      GUnixFDList     *fds_in,
      guint            accept,
      GVariant       **reply_out,
      GUnixFDList    **fds_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_with_unix_fd_list_sync (
      bus, NAME, path, iface, method, args, NULL, G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, fds_in, fds_out, NULL, &error);
  Outcome outcome = note (method, error, override ? override : accept);

  if (reply_out != NULL)
    *reply_out = g_steal_pointer (&reply);
  return outcome;
}

/* Calls in flight together.  When the connection is closed on purpose, what
 * comes back no longer counts. */
typedef struct
{
  guint    pending;
  gboolean abandoned;
} Batch;

typedef struct
{
  Batch      *batch;
  const char *method;
  guint       accept;
} Pending;

static void
pending_done (GObject *source, GAsyncResult *res, gpointer data)
{
  Pending *p = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GVariant) reply =
      g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source), &fds, res, &error);

  /* Received descriptors (GetProcFd) close with the list. */
  if (!p->batch->abandoned)
    {
      Outcome outcome = classify (error);

      if (reply != NULL && (p->accept & EMPTY))
        {
          g_autoptr (GVariant) first = g_variant_get_child_value (reply, 0);

          if (g_variant_n_children (first) == 0)
            outcome = OUT_EMPTY;
        }
      note_outcome (p->method, outcome, error, p->accept);
    }
  p->batch->pending--;
  g_free (p);
}

/* An asynchronous call; @args is consumed. */
static void
send_call (GDBusConnection *bus,
           const char      *path,
           const char      *iface,
           const char      *method,
           GVariant        *args,
           guint            accept,
           Batch           *batch)
{
  Pending *p = g_new0 (Pending, 1);

  p->batch = batch;
  p->method = method;
  p->accept = override ? override : accept;
  batch->pending++;
  g_dbus_connection_call_with_unix_fd_list (bus, NAME, path, iface, method, args, NULL, G_DBUS_CALL_FLAGS_NONE,
                                            TIMEOUT_MS, NULL, NULL, pending_done, p);
}

static void
wait_batch (Batch *batch)
{
  while (batch->pending > 0)
    g_main_context_iteration (NULL, TRUE);
}

/* Leaves with @batch pending: the daemon answers nobody. */
static void
abandon (GDBusConnection **bus, Batch *batch)
{
  batch->abandoned = TRUE;
  g_dbus_connection_close_sync (*bus, NULL, NULL);
  wait_batch (batch);
  g_clear_object (bus);
  *bus = connect_bus ();
  did[DID_ABANDONED]++;
}

/* With calls pending, as abruptly as a process can go. */
static G_NORETURN void
die_now (void)
{
  printf ("dying\n");
  fflush (stdout);
  raise (SIGKILL);
  _exit (1);
}

/* ------------------------------------------------------------------------ */
/* Sessions */

static GVariant *
random_options (gboolean detached, gboolean quiet)
{
  static const char *const counters[] = { "cpu", "memory", "disk", "network" };
  GVariantBuilder          b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "frequency", g_variant_new_uint32 ((guint32) between (50, 400)));
  if (quiet || chance (0.3))
    g_variant_builder_add (&b, "{sv}", "cpu-sampling", g_variant_new_boolean (FALSE));
  if (!quiet && chance (0.3))
    {
      GVariantBuilder names;

      g_variant_builder_init (&names, G_VARIANT_TYPE_STRING_ARRAY);
      for (guint i = 0; i < G_N_ELEMENTS (counters); i++)
        if (chance (0.5))
          g_variant_builder_add (&names, "s", counters[i]);
      g_variant_builder_add (&b, "{sv}", "counters", g_variant_builder_end (&names));
    }
  if (!quiet && chance (0.2))
    {
      gint32 pid = getpid ();

      g_variant_builder_add (&b, "{sv}", "pids",
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, &pid, 1, sizeof (gint32)));
    }
  /* Sessions that end by themselves, racing the client's own Stop. */
  if (!quiet && chance (0.15))
    g_variant_builder_add (&b, "{sv}", "max-duration", g_variant_new_uint32 ((guint32) between (1, 2)));
  if (chance (0.15))
    g_variant_builder_add (&b, "{sv}", "max-bytes", g_variant_new_uint64 ((guint64) between (64, 4096) * 1024));
  if (detached)
    g_variant_builder_add (&b, "{sv}", "detached", g_variant_new_boolean (TRUE));
  return g_variant_builder_end (&b);
}

/* The session's path, or NULL when refused (LimitsExceeded). */
static char *
create_session (GDBusConnection *bus, GVariant *options, gboolean detached)
{
  g_autoptr (GVariant) reply = NULL;
  char *path;

  if (call (bus, PATH, MANAGER, "CreateSession", g_variant_new ("(@a{sv})", options), NULL, OK, &reply, NULL) != OUT_OK)
    return NULL;
  g_variant_get (reply, "(o)", &path);
  did[DID_SESSIONS]++;
  if (detached)
    {
      printf ("detached-path %s\n", path);
      did[DID_DETACHED]++;
    }
  return path;
}

/* A file of ours; or, refused, a pipe or a read-only file. */
static void
set_capture_fd (GDBusConnection *bus, const char *path)
{
  g_autoptr (GUnixFDList) fds = g_unix_fd_list_new ();
  int   kind = between (0, 5);
  int   fd = -1;
  int   pipe_fds[2];
  guint accept = INVALID;

  if (kind <= 3)
    {
      fd = open ("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
      accept = OK;
    }
  else if (kind == 4 && pipe2 (pipe_fds, O_CLOEXEC) == 0)
    {
      close (pipe_fds[0]);
      fd = pipe_fds[1];
    }
  else
    fd = open ("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  g_unix_fd_list_append (fds, fd, NULL);
  close (fd);
  call (bus, path, SESSION, "SetCaptureFd", g_variant_new ("(h)", 0), fds, accept, NULL, NULL);
}

static GVariant *
read_args (guint64 offset, guint32 len)
{
  return g_variant_new ("(tu)", offset, len);
}

/* The whole capture, checked: a capture header, and as many bytes as the
 * session says it wrote. */
static void
read_capture (GDBusConnection *bus, const char *path)
{
  g_autoptr (GVariant) props = NULL;
  guint64 offset = 0;
  guint64 written = 0;

  if (call (bus, path, PROPERTIES, "GetAll", g_variant_new ("(s)", SESSION), NULL, OK, &props, NULL) == OUT_OK)
    {
      g_autoptr (GVariant) dict = g_variant_get_child_value (props, 0);
      g_variant_lookup (dict, "BytesWritten", "t", &written);
    }
  for (;;)
    {
      g_autoptr (GVariant) reply = NULL;
      g_autoptr (GVariant) bytes = NULL;
      const guint8 *data;
      gsize         len;

      if (call (bus, path, SESSION, "ReadCapture", read_args (offset, READ_MAX), NULL, OK, &reply, NULL) != OUT_OK)
        return;
      bytes = g_variant_get_child_value (reply, 0);
      data = g_variant_get_fixed_array (bytes, &len, 1);
      if (offset == 0)
        {
          SysprofCaptureFileHeader header;

          if (len >= sizeof header)
            memcpy (&header, data, sizeof header);
          if (len < sizeof header || header.magic != SYSPROF_CAPTURE_MAGIC)
            {
              unexpected++;
              printf ("error ReadCapture bad-capture: %s starts with %" G_GSIZE_FORMAT " bytes and no capture header\n",
                      path, len);
              return;
            }
        }
      if (len == 0)
        break;
      offset += len;
    }
  if (written != 0 && offset != written)
    {
      unexpected++;
      printf ("error ReadCapture short-capture: %s: read %" G_GUINT64_FORMAT " bytes, BytesWritten %" G_GUINT64_FORMAT
              "\n",
              path, offset, written);
    }
  did[DID_CAPTURES_READ]++;
  did[DID_BYTES_READ] += offset;
}

/* Reads and property reads while the session records. */
static void
read_while_recording (GDBusConnection *bus, const char *path, Batch *batch)
{
  guint n = (guint) between (1, 6);

  for (guint i = 0; i < n; i++)
    if (chance (0.8))
      send_call (bus, path, SESSION, "ReadCapture",
                 read_args ((guint64) between (0, 256 * 1024), (guint32) between (1, READ_MAX)), OK, batch);
    else
      send_call (bus, path, PROPERTIES, "GetAll", g_variant_new ("(s)", SESSION), OK, batch);
}

/* Start, Stop or Close, which a client must get through: the user's other
 * calls may fill its quota for a moment (LimitsExceeded), and the client
 * tries again, as a real one would. */
static Outcome
session_method (GDBusConnection *bus, const char *path, const char *method, guint accept)
{
  Outcome outcome;

  for (guint tries = 0;; tries++)
    {
      outcome = call (bus, path, SESSION, method, NULL, NULL, accept, NULL, NULL);
      if (outcome != OUT_LIMITED || tries == 100)
        return outcome;
      sleep_ms ((guint) between (10, 100));
    }
}

static void
close_session (GDBusConnection *bus, const char *path, guint accept)
{
  session_method (bus, path, "Close", accept);
}

/* One session, from CreateSession to its end, whichever end is drawn. */
static void
lifecycle_round (GDBusConnection **bus, guint level)
{
  gboolean         detached = level >= 1 && chance (0.3);
  gboolean         may_die = level >= 2;
  g_autofree char *path = NULL;
  Batch            batch = { 0 };
  int              fate = between (0, 99);

  if ((path = create_session (*bus, random_options (detached, FALSE), detached)) == NULL)
    {
      sleep_ms ((guint) between (20, 200));
      return;
    }
  if (chance (0.3))
    set_capture_fd (*bus, path);

  if (fate < 8)
    {
      /* Never started. */
      call (*bus, path, SESSION, "Stop", NULL, NULL, FAILED, NULL, NULL);
      call (*bus, path, SESSION, "ReadCapture", read_args (0, 4096), NULL, FAILED, NULL, NULL);
      close_session (*bus, path, OK);
      return;
    }

  if (session_method (*bus, path, "Start", OK) != OUT_OK)
    {
      close_session (*bus, path, OK);
      return;
    }
  if (chance (0.1))
    call (*bus, path, SESSION, "Start", NULL, NULL, FAILED, NULL, NULL);
  for (gint64 until = g_get_monotonic_time () + between (50, 600) * 1000; g_get_monotonic_time () < until;)
    {
      read_while_recording (*bus, path, &batch);
      wait_batch (&batch);
      sleep_ms ((guint) between (10, 100));
    }

  if (fate < 55)
    {
      session_method (*bus, path, "Stop", OK);
      if (chance (0.4))
        read_capture (*bus, path);
      else
        call (*bus, path, SESSION, "ReadCapture", read_args ((guint64) between (0, 1 << 20), READ_MAX), NULL, OK, NULL,
              NULL);
      close_session (*bus, path, OK);
    }
  else if (fate < 70)
    {
      /* Close among reads and a Stop, at a random place. */
      guint n = (guint) between (2, 7);
      guint at = (guint) between (0, (gint32) n);

      for (guint i = 0; i <= n; i++)
        if (i == at)
          send_call (*bus, path, SESSION, "Close", NULL, OK, &batch);
        else if (chance (0.2))
          send_call (*bus, path, SESSION, "Stop", NULL, OK | GONE, &batch);
        else
          send_call (*bus, path, SESSION, "ReadCapture", read_args (0, (guint32) between (1, READ_MAX)), OK | GONE,
                     &batch);
      wait_batch (&batch);
      did[DID_CLOSE_RACES]++;
    }
  else if (fate < 85)
    {
      /* Gone with calls pending: a session bound to the connection closes
       * with it; a detached one outlives it. */
      read_while_recording (*bus, path, &batch);
      if (chance (0.5))
        send_call (*bus, path, SESSION, "Stop", NULL, OK | GONE, &batch);
      if (chance (0.3))
        send_call (*bus, path, SESSION, "Close", NULL, OK, &batch);
      abandon (bus, &batch);
      /* Its owner may close a detached session from anywhere. */
      if (detached && chance (0.5))
        close_session (*bus, path, OK | GONE);
    }
  else if (fate < 95 || !may_die)
    {
      /* Close with reads behind it: they find the session gone, or not yet. */
      session_method (*bus, path, "Stop", OK);
      send_call (*bus, path, SESSION, "Close", NULL, OK, &batch);
      for (guint i = 0; i < 3; i++)
        send_call (*bus, path, SESSION, "ReadCapture", read_args (0, 65536), OK | GONE, &batch);
      wait_batch (&batch);
    }
  else
    {
      read_while_recording (*bus, path, &batch);
      send_call (*bus, path, SESSION, "Stop", NULL, OK, &batch);
      die_now ();
    }
}

static void
lifecycle (guint level)
{
  GDBusConnection *bus = connect_bus ();

  while (time_left ())
    lifecycle_round (&bus, level);
  g_object_unref (bus);
}

/* ------------------------------------------------------------------------ */
/* Ring producers: forked processes, killed at random.  A child runs no GLib
 * code (its locks may be held by a thread that did not follow it into the
 * child), only the capture library's writer and plain memory writes. */

typedef enum
{
  PRODUCER_FRAMES, /* valid marks, garbage now and then, maybe an end */
  PRODUCER_MOVING, /* frames changed after they were published, the tail thrown about */
  PRODUCER_RAW,    /* every header word and body byte scribbled over */
  N_PRODUCER_KINDS
} ProducerKind;

typedef struct
{
  guint32 state;
} Xorshift;

static guint32
xorshift (Xorshift *x)
{
  x->state ^= x->state << 13;
  x->state ^= x->state >> 17;
  x->state ^= x->state << 5;
  return x->state;
}

typedef struct
{
  guint32 head;
  guint32 tail;
  guint32 offset;
  guint32 size;
} RawHeader;

static void
fill_mark (SysprofCaptureMark *mark, guint32 len, Xorshift *x)
{
  memset (mark, 0, len);
  mark->frame.len = (guint16) len;
  mark->frame.type = SYSPROF_CAPTURE_FRAME_MARK;
  mark->frame.cpu = -1;
  mark->frame.pid = getpid ();
  mark->frame.time = (xorshift (x) & 1) ? (gint64) xorshift (x) : G_MININT64 + xorshift (x);
  mark->duration = xorshift (x) % 1000;
  memcpy (mark->group, "stress", sizeof "stress");
  memcpy (mark->name, "producer", sizeof "producer");
}

static G_NORETURN void
producer_main (SysprofMappedRingBuffer *ring, guint8 *map, gsize size, ProducerKind kind, guint32 seed)
{
  RawHeader *header = (RawHeader *) (gpointer) map;
  guint8    *body = map + sysconf (_SC_PAGESIZE);
  Xorshift   x = { seed | 1 };

  for (guint64 n = 0;; n++)
    {
      guint32 len = 8 * (4 + xorshift (&x) % 60);
      guint8 *frame;

      if (n % 32 == 31)
        usleep (100 + xorshift (&x) % 900);
      if (kind == PRODUCER_RAW)
        {
          guint32 *word = (guint32 *) (gpointer) map + xorshift (&x) % 4;

          *word = (xorshift (&x) & 1) ? xorshift (&x) : (xorshift (&x) % (guint32) size) & ~7u;
          for (guint i = 0; i < 16; i++)
            body[xorshift (&x) % size] = (guint8) xorshift (&x);
          continue;
        }
      if ((frame = sysprof_mapped_ring_buffer_allocate (ring, len)) == NULL)
        {
          /* Full, or a header we spoiled ourselves: start over at 0. */
          if (errno == EBADMSG)
            __atomic_store_n (&header->tail, 0, __ATOMIC_RELEASE);
          usleep (200);
          continue;
        }
      if (xorshift (&x) % 8 == 0)
        for (guint32 i = 0; i < len; i++)
          frame[i] = (guint8) xorshift (&x);
      else
        fill_mark ((SysprofCaptureMark *) (gpointer) frame, len, &x);
      sysprof_mapped_ring_buffer_advance (ring, len);
      if (kind == PRODUCER_MOVING)
        {
          /* The published frame changes under the drainer, then the tail
           * jumps to any aligned place. */
          for (guint i = 0; i < 8; i++)
            {
              ((SysprofCaptureFrame *) (gpointer) frame)->len = (guint16) (8 * (xorshift (&x) % 9000));
              ((SysprofCaptureFrame *) (gpointer) frame)->type = (guint8) xorshift (&x);
            }
          if (xorshift (&x) % 16 == 0)
            __atomic_store_n (&header->tail, (xorshift (&x) % (guint32) size) & ~7u, __ATOMIC_RELEASE);
        }
      else if (xorshift (&x) % 4000 == 0)
        {
          SysprofCaptureFrame *end;

          while ((end = sysprof_mapped_ring_buffer_allocate (ring, sizeof *end)) == NULL)
            usleep (200);
          memset (end, 0, sizeof *end);
          end->len = sizeof *end;
          end->type = FRAME_END;
          sysprof_mapped_ring_buffer_advance (ring, sizeof *end);
          _exit (0);
        }
    }
}

/* A producer for the ring @fd (which stays the caller's to close). */
static pid_t
spawn_producer (int fd, ProducerKind kind)
{
  SysprofMappedRingBuffer *ring = sysprof_mapped_ring_buffer_new_writer (fd);
  gsize                    page = (gsize) sysconf (_SC_PAGESIZE);
  gsize                    size;
  guint8                  *map;
  guint32                  seed = g_rand_int (rng);
  pid_t                    parent = getpid ();
  pid_t                    pid;

  if (ring == NULL)
    {
      unexpected++;
      printf ("error CreateRingBuffer bad-ring: the ring cannot be mapped: %s\n", g_strerror (errno));
      return -1;
    }
  size = sysprof_mapped_ring_buffer_get_size (ring);
  if ((map = mmap (NULL, page + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
    {
      sysprof_mapped_ring_buffer_unref (ring);
      return -1;
    }
  fflush (stdout);
  if ((pid = fork ()) == 0)
    {
      /* Killed with this process, whatever kills it; and not holding its
       * bus connection open once it is closed. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (getppid () != parent)
        _exit (0);
      close_range (3, ~0u, 0);
      producer_main (ring, map, size, kind, seed);
    }
  munmap (map, page + size);
  sysprof_mapped_ring_buffer_unref (ring);
  if (pid > 0)
    did[DID_PRODUCERS]++;
  return pid;
}

static void
kill_producer (GArray *children, guint i)
{
  pid_t pid = g_array_index (children, pid_t, i);

  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  g_array_remove_index_fast (children, i);
  did[DID_PRODUCERS_KILLED]++;
}

/* Producers that wrote their end frame and left. */
static void
reap_producers (GArray *children)
{
  for (guint i = children->len; i-- > 0;)
    if (waitpid (g_array_index (children, pid_t, i), NULL, WNOHANG) > 0)
      {
        g_array_remove_index_fast (children, i);
        did[DID_PRODUCERS_ENDED]++;
      }
}

static Outcome
create_ring (GDBusConnection *bus, const char *path, guint32 n_pages, int *fd)
{
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GUnixFDList) fds = NULL;
  gboolean valid = n_pages <= 1024 && (n_pages & (n_pages - 1)) == 0;
  Outcome  outcome;
  gint32   handle;

  /* Failed: the session stopped by itself (max-bytes). */
  outcome = call (bus, path, SESSION, "CreateRingBuffer", g_variant_new ("(u)", n_pages), NULL,
                  valid ? OK | FAILED : INVALID | FAILED, &reply, &fds);
  *fd = -1;
  if (outcome == OUT_OK)
    {
      g_variant_get (reply, "(h)", &handle);
      *fd = g_unix_fd_list_get (fds, handle, NULL);
      did[DID_RINGS]++;
    }
  return outcome;
}

static char *
start_ring_session (GDBusConnection *bus)
{
  char *path = create_session (bus, random_options (FALSE, TRUE), FALSE);

  if (path != NULL && session_method (bus, path, "Start", OK) != OUT_OK)
    {
      close_session (bus, path, OK);
      g_clear_pointer (&path, g_free);
    }
  return path;
}

static void
end_ring_session (GDBusConnection **bus, char **path, GArray *children)
{
  int how = between (0, 2);

  /* Some producers outlive their session: their rings are closed under them. */
  while (children->len > 0 && (how != 2 || chance (0.7)))
    kill_producer (children, children->len - 1);
  if (how == 0)
    {
      session_method (*bus, *path, "Stop", OK);
      read_capture (*bus, *path);
      close_session (*bus, *path, OK);
    }
  else if (how == 1)
    close_session (*bus, *path, OK);
  else
    {
      Batch batch = { 0 };

      read_while_recording (*bus, *path, &batch);
      abandon (bus, &batch);
    }
  g_clear_pointer (path, g_free);
  while (children->len > 0)
    kill_producer (children, children->len - 1);
}

/* Rings until refused; their fds are closed at once, the daemon keeps them. */
static void
exhaust_rings (GDBusConnection *bus, const char *path)
{
  for (guint i = 0; i < 600; i++)
    {
      int     fd;
      Outcome outcome = create_ring (bus, path, 1, &fd);

      if (fd >= 0)
        close (fd);
      if (outcome != OUT_OK)
        break;
    }
  did[DID_EXHAUSTED]++;
}

static void
rings (guint n_producers)
{
  static const guint32 sizes[] = { 1, 1, 2, 4, 4, 8, 16, 0, 3, 2048 };
  GDBusConnection     *bus = connect_bus ();
  g_autoptr (GArray) children = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_autofree char *path = NULL;

  while (time_left ())
    {
      if (path == NULL && (path = start_ring_session (bus)) == NULL)
        {
          sleep_ms ((guint) between (50, 200));
          continue;
        }
      reap_producers (children);
      while (path != NULL && children->len < n_producers && time_left ())
        {
          /* 0 is the default, 512 pages: rarely. */
          guint32 n_pages = sizes[between (0, G_N_ELEMENTS (sizes) - 1)];
          int     fd;
          Outcome outcome;
          pid_t   pid;

          if (n_pages == 0 && chance (0.7))
            n_pages = 1;
          outcome = create_ring (bus, path, n_pages, &fd);
          if (outcome == OUT_INVALID)
            continue;
          if (outcome != OUT_OK)
            {
              /* Stopped at max-bytes, or out of rings. */
              end_ring_session (&bus, &path, children);
              break;
            }
          pid = spawn_producer (fd, (ProducerKind) between (0, N_PRODUCER_KINDS - 1));
          close (fd);
          if (pid > 0)
            g_array_append_val (children, pid);
        }
      if (path == NULL)
        continue;
      sleep_ms ((guint) between (20, 200));
      if (children->len > 0 && chance (0.5))
        kill_producer (children, (guint) between (0, (gint32) children->len - 1));
      if (chance (0.2))
        {
          g_autoptr (GVariant) reply = NULL;
          const char *state = "";

          call (bus, path, SESSION, "ReadCapture", read_args (0, 65536), NULL, OK, NULL, NULL);
          if (call (bus, path, PROPERTIES, "Get", g_variant_new ("(ss)", SESSION, "State"), NULL, OK, &reply, NULL) ==
              OUT_OK)
            {
              g_autoptr (GVariant) value = NULL;

              g_variant_get (reply, "(v)", &value);
              state = g_variant_get_string (value, NULL);
              if (!g_str_equal (state, "recording"))
                end_ring_session (&bus, &path, children);
            }
        }
      else if (chance (0.03))
        {
          exhaust_rings (bus, path);
          end_ring_session (&bus, &path, children);
        }
      else if (chance (0.05))
        end_ring_session (&bus, &path, children);
    }
  if (path != NULL)
    end_ring_session (&bus, &path, children);
  g_object_unref (bus);
}

/* ------------------------------------------------------------------------ */
/* Service and Host calls */

static GVariant *
bytes_arg (const char *path, gboolean with_nul)
{
  return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, path, strlen (path) + (with_nul ? 1 : 0), 1);
}

/* A pid that existed and no longer does. */
static gint32
gone_pid (void)
{
  pid_t pid = fork ();

  if (pid == 0)
    _exit (0);
  if (pid > 0)
    waitpid (pid, NULL, 0);
  return pid;
}

static void
send_service_call (GDBusConnection *bus, Batch *batch, gboolean *symbols_pending)
{
  static const char *const allowed_files[] = {
    "/proc/cpuinfo", "/proc/stat",   "/proc/meminfo",   "/proc/mounts",
    "/proc/1/stat",  "/proc/1/comm", "/proc/1/cmdline", "/sys/devices/system/cpu/online",
  };
  static const char *const refused_files[] = {
    "/proc/1/environ",         "/proc/kcore",         "/proc/self/maps", "/proc/1/mem",
    "/proc/1/root/etc/shadow", "/proc/sysrq-trigger", "/etc/passwd",     "/proc/../etc/passwd",
  };
  static const char *const attributes[] = { "pid", "cmdline", "comm", "maps", "statm", "mountinfo", "cgroup" };
  gint32                   self = getpid ();
  /* runuser, root's: a process of another user, in the same namespaces
   * (pid 1 may be one that even root cannot look into). */
  gint32           other = getppid ();
  g_autofree char *own = NULL;
  int              what = between (0, 15);

  switch (what)
    {
    case 0:
    case 1: send_call (bus, PATH, SERVICE, "ListProcesses", NULL, OK, batch); break;
    case 2:
      {
        GString *s = g_string_new ("pid");

        for (guint i = 1; i < G_N_ELEMENTS (attributes); i++)
          if (chance (0.3))
            g_string_append_printf (s, ",%s", attributes[i]);
        send_call (bus, PATH, SERVICE, "GetProcessInfo", g_variant_new ("(s)", s->str), OK, batch);
        g_string_free (s, TRUE);
        break;
      }
    case 3:
    case 4:
      /* Any process's maps and cmdline; one's own status. */
      if (chance (0.2))
        own = g_strdup_printf ("/proc/%d/status", self);
      else
        own = g_strdup_printf ("/proc/%d/%s", chance (0.5) ? self : other, chance (0.5) ? "maps" : "cmdline");
      send_call (bus, PATH, SERVICE, chance (0.8) ? "GetProcFile" : "GetProcFd",
                 g_variant_new ("(@ay)", bytes_arg (chance (0.5) ? own : allowed_files[between (0, 7)], chance (0.5))),
                 OK, batch);
      break;
    case 5:
      send_call (bus, PATH, SERVICE, chance (0.8) ? "GetProcFile" : "GetProcFd",
                 g_variant_new ("(@ay)", bytes_arg (refused_files[between (0, 7)], FALSE)), DENIED | INVALID, batch);
      break;
    case 6:
      {
        /* Bytes at random: never a file. */
        guint8 junk[64];
        gsize  len = (gsize) between (0, sizeof junk);

        for (gsize i = 0; i < len; i++)
          junk[i] = (guint8) g_rand_int (rng);
        send_call (bus, PATH, SERVICE, "GetProcFile",
                   g_variant_new ("(@ay)", g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, junk, len, 1)),
                   DENIED | INVALID | NOT_FOUND, batch);
        break;
      }
    case 7:
      send_call (bus, PATH, HOST, "ResolvePath",
                 g_variant_new ("(i@ay)", chance (0.5) ? self : other,
                                bytes_arg (chance (0.5) ? "/usr/bin/env" : "/etc/hostname", TRUE)),
                 OK, batch);
      break;
    case 8:
      send_call (bus, PATH, HOST, "ResolvePath",
                 g_variant_new ("(i@ay)", self, bytes_arg ("/nonexistent/stress", TRUE)), NOT_FOUND, batch);
      break;
    case 9:
      /* /root is not the caller's to search; a relative path; no process. */
      if (chance (0.4))
        send_call (bus, PATH, HOST, "ResolvePath", g_variant_new ("(i@ay)", other, bytes_arg ("/root/.profile", TRUE)),
                   DENIED, batch);
      else if (chance (0.5))
        send_call (bus, PATH, HOST, "ResolvePath", g_variant_new ("(i@ay)", self, bytes_arg ("etc/hostname", FALSE)),
                   INVALID, batch);
      else
        send_call (bus, PATH, HOST, "ResolvePath",
                   g_variant_new ("(i@ay)", chance (0.5) ? gone_pid () : -1, bytes_arg ("/etc/hostname", TRUE)),
                   INVALID, batch);
      break;
    case 10:
    case 11:
      send_call (bus, PATH, HOST, "GetMountInfo", g_variant_new ("(i)", chance (0.8) ? self : 0), OK | INVALID, batch);
      break;
    case 12:
    case 13: send_call (bus, PATH, HOST, "ListDebugDirectories", g_variant_new ("(i)", self), OK, batch); break;
    default:
      /* Big answers (a few MiB), one at a time. */
      if (!*symbols_pending && chance (0.05))
        {
          *symbols_pending = TRUE;
          send_call (bus, PATH, HOST, "GetKernelSymbols", NULL, OK, batch);
        }
      else
        send_call (bus, PATH, SERVICE, "ListProcesses", NULL, OK, batch);
      break;
    }
}

static void
service (guint burst)
{
  GDBusConnection *bus = connect_bus ();

  while (time_left ())
    {
      Batch    batch = { 0 };
      gboolean symbols_pending = FALSE;
      guint    n = (guint) between (1, (gint32) burst);

      for (guint i = 0; i < n; i++)
        send_service_call (bus, &batch, &symbols_pending);
      wait_batch (&batch);
      sleep_ms ((guint) between (0, 50));
    }
  g_object_unref (bus);
}

/* ------------------------------------------------------------------------ */
/* The user polkit refuses */

/* Options of a session this user may not have: its own processes it may
 * record (org.gnome.sysprof3.profile-own-processes), so never its own pid;
 * sometimes root's. */
static GVariant *
denied_options (void)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "frequency", g_variant_new_uint32 ((guint32) between (50, 400)));
  if (chance (0.5))
    {
      gint32 pid = 1;

      g_variant_builder_add (&b, "{sv}", "pids",
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, &pid, 1, sizeof (gint32)));
    }
  if (chance (0.5))
    g_variant_builder_add (&b, "{sv}", "detached", g_variant_new_boolean (TRUE));
  return g_variant_builder_end (&b);
}

static void
denied (guint burst)
{
  GDBusConnection *bus = connect_bus ();
  /* Refused before anything else: answers other than these are breaches. */
  guint refused = DENIED | GONE;

  while (time_left ())
    {
      Batch    batch = { 0 };
      gboolean symbols_pending = FALSE;
      guint    n = (guint) between (1, (gint32) burst);

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *path = g_strdup_printf (PATH "/Session/%d", between (1, 400));
          int              what = between (0, 9);

          if (what < 3)
            {
              /* What the service clients call, refused whatever it is. */
              override = DENIED;
              send_service_call (bus, &batch, &symbols_pending);
              override = 0;
            }
          else if (what == 3)
            send_call (bus, PATH, MANAGER, "CreateSession", g_variant_new ("(@a{sv})", denied_options ()), refused,
                       &batch);
          else if (what == 4)
            send_call (bus, path, SESSION, "Start", NULL, refused, &batch);
          else if (what == 5)
            send_call (bus, path, SESSION, "ReadCapture", read_args (0, READ_MAX), refused, &batch);
          else if (what == 6)
            send_call (bus, path, SESSION, chance (0.5) ? "Stop" : "Close", NULL, refused, &batch);
          else if (what == 7)
            send_call (bus, path, SESSION, "CreateRingBuffer", g_variant_new ("(u)", 1), refused, &batch);
          else if (what == 8)
            send_call (bus, path, PROPERTIES, "Get", g_variant_new ("(ss)", SESSION, "State"), refused, &batch);
          else
            send_call (bus, path, PROPERTIES, "GetAll", g_variant_new ("(s)", SESSION), refused | EMPTY, &batch);
        }
      wait_batch (&batch);
      if (chance (0.1))
        {
          /* A new connection: the daemon has to learn who it is again. */
          g_object_unref (bus);
          bus = connect_bus ();
        }
      sleep_ms ((guint) between (0, 30));
    }
  g_object_unref (bus);
}

/* ------------------------------------------------------------------------ */
/* The probe: another user, served meanwhile */

static void
probe (void)
{
  GDBusConnection *bus = connect_bus ();
  gint64           max_list = 0, max_session = 0;
  guint            n = 0;

  /* Everything must work for it: no refusal is acceptable. */
  always = 0;
  while (time_left ())
    {
      gint64           start = g_get_monotonic_time ();
      gint64           start_real = g_get_real_time ();
      gint64           list_us, session_us;
      gint64           step[6] = { 0 };
      g_autofree char *path = NULL;
      GVariantBuilder  options;

      call (bus, PATH, SERVICE, "ListProcesses", NULL, NULL, OK, NULL, NULL);
      list_us = g_get_monotonic_time () - start;
      /* What sysprof-cli asks for, at a low rate. */
      g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&options, "{sv}", "frequency", g_variant_new_uint32 (99));
      step[0] = g_get_monotonic_time ();
      if ((path = create_session (bus, g_variant_builder_end (&options), FALSE)) != NULL)
        {
          step[1] = g_get_monotonic_time ();
          session_method (bus, path, "Start", OK);
          step[2] = g_get_monotonic_time ();
          call (bus, path, SESSION, "ReadCapture", read_args (0, 4096), NULL, OK, NULL, NULL);
          step[3] = g_get_monotonic_time ();
          session_method (bus, path, "Stop", OK);
          step[4] = g_get_monotonic_time ();
          close_session (bus, path, OK);
        }
      step[5] = g_get_monotonic_time ();
      session_us = step[5] - start - list_us;
      max_list = MAX (max_list, list_us);
      max_session = MAX (max_session, session_us);
      /* The steps, so that a slow probe says where it waited. */
      printf ("probe %u at %" G_GINT64_FORMAT " list-ms %" G_GINT64_FORMAT " session-ms %" G_GINT64_FORMAT
              " create-start-read-stop-close-ms %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
              "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "\n",
              ++n, start_real / 1000, list_us / 1000, session_us / 1000, (step[1] - step[0]) / 1000,
              (step[2] - step[1]) / 1000, (step[3] - step[2]) / 1000, (step[4] - step[3]) / 1000,
              (step[5] - step[4]) / 1000);
      if (g_get_monotonic_time () < start + G_USEC_PER_SEC)
        g_usleep ((gulong) (start + G_USEC_PER_SEC - g_get_monotonic_time ()));
    }
  printf ("probes %u\nmax-list-ms %" G_GINT64_FORMAT "\nmax-session-ms %" G_GINT64_FORMAT "\n", n, max_list / 1000,
          max_session / 1000);
  g_object_unref (bus);
}

/* ------------------------------------------------------------------------ */

static void
report (void)
{
  for (guint i = 0; i < N_OUTCOMES; i++)
    printf ("%s %" G_GUINT64_FORMAT "\n", outcome_names[i], outcomes[i]);
  for (guint i = 0; i < N_DID; i++)
    if (did[i] != 0)
      printf ("%s %" G_GUINT64_FORMAT "\n", did_names[i], did[i]);
  printf ("unexpected %" G_GUINT64_FORMAT "\n", unexpected);
}

static G_NORETURN void
usage (void)
{
  g_printerr ("usage: stress-client MODE SEED SECONDS [ARG...] (see the comment at the top)\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  const char *mode;
  guint       arg = 0;

  setvbuf (stdout, NULL, _IOLBF, 0);
  /* A reply to a connection we closed on purpose must not kill us. */
  signal (SIGPIPE, SIG_IGN);
  if (argc < 4)
    usage ();
  mode = argv[1];
  rng = g_rand_new_with_seed ((guint32) g_ascii_strtoull (argv[2], NULL, 10));
  deadline = g_get_monotonic_time () + (gint64) (g_ascii_strtod (argv[3], NULL) * G_USEC_PER_SEC);
  if (argc > 4)
    arg = (guint) atoi (argv[4]);
  if (!(bus_address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error)))
    {
      g_printerr ("stress-client: no system bus address: %s\n", error->message);
      return 1;
    }

  if (g_str_equal (mode, "lifecycle") && argc == 5)
    lifecycle (arg);
  else if (g_str_equal (mode, "rings") && argc == 5 && arg > 0)
    rings (arg);
  else if (g_str_equal (mode, "service") && argc == 5 && arg > 0)
    service (arg);
  else if (g_str_equal (mode, "denied") && argc == 5 && arg > 0)
    denied (arg);
  else if (g_str_equal (mode, "probe") && argc == 4)
    probe ();
  else if (g_str_equal (mode, "close"))
    {
      GDBusConnection *bus = connect_bus ();

      for (int i = 4; i < argc; i++)
        close_session (bus, argv[i], OK | GONE);
      g_object_unref (bus);
    }
  else
    usage ();
  report ();
  g_rand_free (rng);
  g_free (bus_address);
  return 0;
}
