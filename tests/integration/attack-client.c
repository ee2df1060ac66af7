// SPDX-License-Identifier: GPL-3.0-or-later
/* attack-client: what an authorized but hostile user does to sysprofd, for
 * test-attacks.sh and test-stress.sh.  Every mode prints what it got, one
 * "key value" per line, and exits 0 unless it could not even try.
 *
 *   attack-client close-race ROUNDS
 *       per round: a session is created and started, then Close and six
 *       ReadCapture calls go out at once on the same connection, Close at
 *       another place among them every round; prints
 *       "rounds N", "read-ok A", "read-closed B" (UnknownObject), "read-other C"
 *   attack-client leave-race ROUNDS
 *       the same, but the connection itself goes away with the calls pending
 *   attack-client flood N
 *       N GetProcessInfo calls of every attribute at once, over 8
 *       connections; prints "ok A",
 *       "limited B" (LimitsExceeded), "other C" and "first-limited MESSAGE"
 *   attack-client latency N
 *       N ListProcesses one after the other; prints "max-ms M"
 *   attack-client session-latency
 *       CreateSession, Start, Stop, Close; prints "ms M" and "state S"
 *   attack-client ring-exhaust SESSIONS [MAX]
 *       SESSIONS sessions, each asking for 1-page rings until refused, or
 *       MAX rings in all (each
 *       fd received is closed at once); prints "rings N", "refused MESSAGE",
 *       then holds everything until stdin closes
 *   attack-client hostile-writers SECONDS MAX_BYTES N_RINGS
 *       a session with max-bytes MAX_BYTES and N_RINGS rings kept full of
 *       valid frames (times jumping back and forth) and garbage by one
 *       thread each for SECONDS; prints "bytes B", "state S", "lost L"
 *   attack-client proc-file PATH
 *       GetProcFile(PATH); prints "ok LENGTH" or "error NAME: MESSAGE"
 *   attack-client capped-session MAX_BYTES
 *       a whole-system session with max-bytes MAX_BYTES, started and left
 *       to run until sysprofd ends it; prints "finished SUCCESS MESSAGE"
 *       from the Finished signal (or "finished none" after 60 s)
 *   attack-client pids-session FILE SECONDS PID...
 *       a session recording PIDs into FILE for SECONDS; prints "state S",
 *       or "error NAME: MESSAGE" from the first call that fails
 *   attack-client host-call METHOD ARGS
 *       org.gnome.Sysprof3.Host.METHOD with ARGS, a GVariant tuple in text
 *       form of any type (the daemon judges it); prints "ok N" (N: answers of
 *       a batch), then "answers NAME K" per error name the answers hold
 *       ("" for none), or "error NAME: MESSAGE"
 *   attack-client tries N
 *       N ListProcesses one after the other on one connection, whatever
 *       each answers; prints "ok A", "denied D" (AccessDenied), "other O"
 *   attack-client host-batch N PID PATH
 *       the same for ResolvePaths with N requests (PID, PATH) */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <sysprof-capture.h>

#define NAME    "org.gnome.Sysprof3"
#define PATH    "/org/gnome/Sysprof3"
#define SESSION "org.gnome.Sysprof3.Session"
#define TIMEOUT 120000

static G_NORETURN void
die (const char *what, GError *error)
{
  g_printerr ("attack-client: %s: %s\n", what, error ? error->message : g_strerror (errno));
  exit (1);
}

static GVariant *
call_sync (GDBusConnection *bus,
           const char      *path,
           const char      *iface,
           const char      *method,
           GVariant        *args,
           GUnixFDList    **out_fds,
           GError         **error)
{
  return g_dbus_connection_call_with_unix_fd_list_sync (bus, NAME, path, iface, method, args, NULL,
                                                        G_DBUS_CALL_FLAGS_NONE, TIMEOUT, NULL, out_fds, NULL, error);
}

static char *
create_session (GDBusConnection *bus, GVariant *options)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  char *path;

  reply =
      call_sync (bus, PATH, NAME ".SessionManager", "CreateSession", g_variant_new ("(@a{sv})", options), NULL, &error);
  if (reply == NULL)
    die ("CreateSession", error);
  g_variant_get (reply, "(o)", &path);
  return path;
}

static GVariant *
quiet_options (void)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "frequency", g_variant_new_uint32 (99));
  return g_variant_builder_end (&b);
}

static void
session_method (GDBusConnection *bus, const char *path, const char *method)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = call_sync (bus, path, SESSION, method, NULL, NULL, &error);

  if (reply == NULL)
    die (method, error);
}

/* Replies counted as they come. */
typedef struct
{
  guint pending;
  guint ok;
  guint closed;
  guint limited;
  guint other;
  char *first_limited;
  char *first_other;
} Tally;

static void
tally_clear (Tally *t)
{
  g_clear_pointer (&t->first_limited, g_free);
  g_clear_pointer (&t->first_other, g_free);
}

static void
tally_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Tally *t = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);

  t->pending--;
  if (reply != NULL)
    t->ok++;
  else if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
           g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
    t->closed++;
  else if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED))
    {
      t->limited++;
      if (t->first_limited == NULL)
        t->first_limited = g_strdup (error->message);
    }
  else
    {
      t->other++;
      if (t->first_other == NULL)
        t->first_other = g_strdup (error->message);
    }
}

static void
wait_for (Tally *t)
{
  while (t->pending > 0)
    g_main_context_iteration (NULL, TRUE);
}

static void
send_async (GDBusConnection *bus, const char *path, const char *iface, const char *method, GVariant *args, Tally *t)
{
  t->pending++;
  g_dbus_connection_call (bus, NAME, path, iface, method, args, NULL, G_DBUS_CALL_FLAGS_NONE, TIMEOUT, NULL, tally_cb,
                          t);
}

static void
close_race (GDBusConnection *bus, guint rounds)
{
  Tally reads = { 0 };
  Tally closes = { 0 };

  for (guint r = 0; r < rounds; r++)
    {
      g_autofree char *path = create_session (bus, quiet_options ());

      session_method (bus, path, "Start");
      /* Close among the reads, at a place that changes every round. */
      for (guint i = 0; i < 7; i++)
        if (i == r % 7)
          send_async (bus, path, SESSION, "Close", NULL, &closes);
        else
          send_async (bus, path, SESSION, "ReadCapture", g_variant_new ("(tu)", (guint64) 0, 4096u), &reads);
      wait_for (&closes);
      wait_for (&reads);
    }
  printf ("rounds %u\nclose-ok %u\nread-ok %u\nread-closed %u\nread-other %u\n", rounds, closes.ok, reads.ok,
          reads.closed, reads.other + reads.limited);
  if (reads.first_other)
    printf ("first-other %s\n", reads.first_other);
  tally_clear (&reads);
  tally_clear (&closes);
}

static void
leave_race (const char *address, guint rounds)
{
  for (guint r = 0; r < rounds; r++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GDBusConnection) bus = g_dbus_connection_new_for_address_sync (
          address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
          NULL, &error);
      g_autofree char *path = NULL;
      Tally            t = { 0 };

      if (bus == NULL)
        die ("connecting", error);
      path = create_session (bus, quiet_options ());
      session_method (bus, path, "Start");
      for (guint i = 0; i < 6; i++)
        send_async (bus, path, SESSION, "ReadCapture", g_variant_new ("(tu)", (guint64) 0, 4096u), &t);
      send_async (bus, path, SESSION, "Stop", NULL, &t);
      /* Gone with everything pending: the replies go nowhere. */
      g_dbus_connection_close_sync (bus, NULL, NULL);
      wait_for (&t);
      tally_clear (&t);
    }
  printf ("rounds %u\n", rounds);
}

/* Over 8 connections of its own: the bus itself allows one connection 128
 * pending calls, and a uid's limit must hold across its connections. */
static void
flood (const char *address, guint n)
{
  g_autoptr (GPtrArray) buses = g_ptr_array_new_with_free_func (g_object_unref);
  Tally t = { 0 };

  for (guint i = 0; i < 8; i++)
    {
      g_autoptr (GError) error = NULL;
      GDBusConnection *bus = g_dbus_connection_new_for_address_sync (
          address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
          NULL, &error);

      if (bus == NULL)
        die ("connecting", error);
      g_ptr_array_add (buses, bus);
    }
  for (guint i = 0; i < n; i++)
    send_async (buses->pdata[i % buses->len], PATH, NAME ".Service", "GetProcessInfo",
                g_variant_new ("(s)", "pid,cmdline,comm,maps,statm,mountinfo,cgroup"), &t);
  wait_for (&t);
  printf ("ok %u\nlimited %u\nother %u\n", t.ok, t.limited, t.other);
  if (t.first_limited)
    printf ("first-limited %s\n", t.first_limited);
  if (t.first_other)
    printf ("first-other %s\n", t.first_other);
  tally_clear (&t);
}

static void
latency (GDBusConnection *bus, guint n)
{
  gint64 max = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GVariant) reply = NULL;
      gint64 start = g_get_monotonic_time ();

      reply = call_sync (bus, PATH, NAME ".Service", "ListProcesses", NULL, NULL, &error);
      if (reply == NULL)
        die ("ListProcesses", error);
      max = MAX (max, g_get_monotonic_time () - start);
    }
  printf ("max-ms %" G_GINT64_FORMAT "\n", max / 1000);
}

static char *
get_state (GDBusConnection *bus, const char *path, guint64 *bytes, guint64 *lost)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) props = NULL;
  GVariantDict dict;
  const char  *state = "?";
  char        *ret;

  reply =
      g_dbus_connection_call_sync (bus, NAME, path, "org.freedesktop.DBus.Properties", "GetAll",
                                   g_variant_new ("(s)", SESSION), NULL, G_DBUS_CALL_FLAGS_NONE, TIMEOUT, NULL, &error);
  if (reply == NULL)
    die ("GetAll", error);
  props = g_variant_get_child_value (reply, 0);
  g_variant_dict_init (&dict, props);
  g_variant_dict_lookup (&dict, "State", "&s", &state);
  if (bytes)
    g_variant_dict_lookup (&dict, "BytesWritten", "t", bytes);
  if (lost)
    g_variant_dict_lookup (&dict, "LostFrames", "t", lost);
  ret = g_strdup (state);
  g_variant_dict_clear (&dict);
  return ret;
}

static void
session_latency (GDBusConnection *bus)
{
  gint64           start = g_get_monotonic_time ();
  g_autofree char *path = create_session (bus, quiet_options ());
  g_autofree char *state = NULL;

  session_method (bus, path, "Start");
  session_method (bus, path, "Stop");
  state = get_state (bus, path, NULL, NULL);
  session_method (bus, path, "Close");
  printf ("ms %" G_GINT64_FORMAT "\nstate %s\n", (g_get_monotonic_time () - start) / 1000, state);
}

static int
create_ring (GDBusConnection *bus, const char *path, guint n_pages, GError **error)
{
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GUnixFDList) out = NULL;
  gint32 handle;

  if (!(reply = call_sync (bus, path, SESSION, "CreateRingBuffer", g_variant_new ("(u)", n_pages), &out, error)))
    return -1;
  g_variant_get (reply, "(h)", &handle);
  return g_unix_fd_list_get (out, handle, error);
}

static void
ring_exhaust (GDBusConnection *bus, guint n_sessions, guint max_rings)
{
  g_autoptr (GError) error = NULL;
  guint rings = 0;
  char  line[16];

  for (guint s = 0; s < n_sessions && error == NULL; s++)
    {
      GVariantBuilder  b;
      g_autofree char *path = NULL;

      g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&b, "{sv}", "cpu-sampling", g_variant_new_boolean (FALSE));
      path = create_session (bus, g_variant_builder_end (&b));
      while (max_rings == 0 || rings < max_rings)
        {
          int fd = create_ring (bus, path, 1, &error);

          if (fd < 0)
            break;
          close (fd);
          rings++;
        }
      /* The per-session limit ends a session's rings; go on with the next. */
      if (s + 1 < n_sessions && g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED) &&
          strstr (error->message, "at most") != NULL)
        g_clear_error (&error);
    }
  printf ("rings %u\nrefused %s\n", rings, error ? error->message : "never");
  fflush (stdout);
  /* Hold the sessions until told. */
  while (fgets (line, sizeof line, stdin) != NULL)
    ;
}

typedef struct
{
  SysprofMappedRingBuffer *ring;
  gint64                   deadline;
  guint                    seed;
} Writer;

static gpointer
writer_main (gpointer data)
{
  Writer *w = data;
  GRand  *rand = g_rand_new_with_seed (w->seed);

  while (g_get_monotonic_time () < w->deadline)
    {
      guint32 len = 8 * (guint32) g_rand_int_range (rand, 8, 64);
      guint8 *frame = sysprof_mapped_ring_buffer_allocate (w->ring, len);

      if (frame == NULL)
        {
          /* Full: the daemon drains; keep it full. */
          g_thread_yield ();
          continue;
        }
      if (g_rand_int_range (rand, 0, 16) == 0)
        {
          /* Garbage now and then: the ring is dropped and goes on. */
          for (guint32 i = 0; i < len; i++)
            frame[i] = (guint8) g_rand_int (rand);
        }
      else
        {
          SysprofCaptureMark *mark = (SysprofCaptureMark *) (gpointer) frame;

          memset (frame, 0, len);
          mark->frame.len = (guint16) len;
          mark->frame.type = SYSPROF_CAPTURE_FRAME_MARK;
          mark->frame.cpu = -1;
          mark->frame.pid = getpid ();
          /* Times all over the place make the merge work hardest. */
          mark->frame.time = g_rand_boolean (rand) ? (gint64) g_rand_int (rand) : G_MININT64 + g_rand_int (rand);
          mark->duration = 1;
          g_strlcpy (mark->group, "hostile", sizeof mark->group);
          g_strlcpy (mark->name, "writer", sizeof mark->name);
        }
      sysprof_mapped_ring_buffer_advance (w->ring, len);
    }
  g_rand_free (rand);
  return NULL;
}

static void
hostile_writers (GDBusConnection *bus, guint seconds, guint64 max_bytes, guint n_rings)
{
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  g_autofree Writer *writers = g_new0 (Writer, n_rings);
  g_autofree char   *path = NULL;
  g_autofree char   *state = NULL;
  GVariantBuilder    b;
  guint64            bytes = 0, lost = 0;
  gint64             deadline = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "cpu-sampling", g_variant_new_boolean (FALSE));
  g_variant_builder_add (&b, "{sv}", "max-bytes", g_variant_new_uint64 (max_bytes));
  path = create_session (bus, g_variant_builder_end (&b));
  session_method (bus, path, "Start");
  for (guint i = 0; i < n_rings; i++)
    {
      g_autoptr (GError) error = NULL;
      int fd = create_ring (bus, path, 16, &error);

      if (fd < 0)
        die ("CreateRingBuffer", error);
      if (!(writers[i].ring = sysprof_mapped_ring_buffer_new_writer (fd)))
        die ("mapping a ring", NULL);
      close (fd);
      writers[i].deadline = deadline;
      writers[i].seed = i + 1;
    }
  for (guint i = 0; i < n_rings; i++)
    g_ptr_array_add (threads, g_thread_new ("writer", writer_main, &writers[i]));
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (threads->pdata[i]);
  state = get_state (bus, path, &bytes, &lost);
  printf ("bytes %" G_GUINT64_FORMAT "\nstate %s\nlost %" G_GUINT64_FORMAT "\n", bytes, state, lost);
  for (guint i = 0; i < n_rings; i++)
    sysprof_mapped_ring_buffer_unref (writers[i].ring);
  session_method (bus, path, "Close");
}

static void
finished_cb (GDBusConnection *bus,
             const char      *sender,
             const char      *path,
             const char      *iface,
             const char      *member,
             GVariant        *params,
             gpointer         data)
{
  char **told = data;

  (void) bus, (void) sender, (void) path, (void) iface, (void) member;
  if (*told == NULL && g_variant_is_of_type (params, G_VARIANT_TYPE ("(bs)")))
    {
      gboolean    success;
      const char *message;

      g_variant_get (params, "(b&s)", &success, &message);
      *told = g_strdup_printf ("%s %s", success ? "true" : "false", message);
    }
}

static void
capped_session (GDBusConnection *bus, guint64 max_bytes)
{
  g_autofree char *path = NULL;
  g_autofree char *told = NULL;
  GVariantBuilder  b;
  guint            id;
  gint64           deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "max-bytes", g_variant_new_uint64 (max_bytes));
  path = create_session (bus, g_variant_builder_end (&b));
  id = g_dbus_connection_signal_subscribe (bus, NULL, SESSION, "Finished", path, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                           finished_cb, &told, NULL);
  session_method (bus, path, "Start");
  while (told == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (10000), TRUE);
  g_dbus_connection_signal_unsubscribe (bus, id);
  printf ("finished %s\n", told ? told : "none");
  session_method (bus, path, "Close");
}

static void
proc_file (GDBusConnection *bus, const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;

  reply = call_sync (bus, PATH, NAME ".Service", "GetProcFile", g_variant_new ("(^ay)", file), NULL, &error);
  if (reply == NULL)
    {
      g_autofree char *name = g_dbus_error_get_remote_error (error);

      g_dbus_error_strip_remote_error (error);
      printf ("error %s: %s\n", name ? name : "?", error->message);
      return;
    }
  {
    g_autoptr (GVariant) bytes = g_variant_get_child_value (reply, 0);
    printf ("ok %" G_GSIZE_FORMAT "\n", g_variant_get_size (bytes));
  }
}

static gboolean
report_error (GError *error)
{
  g_autofree char *name = g_dbus_error_get_remote_error (error);

  g_dbus_error_strip_remote_error (error);
  printf ("error %s: %s\n", name ? name : "?", error->message);
  return FALSE;
}

static void
pids_session (GDBusConnection *bus, const char *file, guint seconds, char **pid_args)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GUnixFDList) fds = g_unix_fd_list_new ();
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autofree char *path = NULL;
  g_autofree char *state = NULL;
  GVariantBuilder  b;
  int              fd;

  for (guint i = 0; pid_args[i]; i++)
    {
      gint32 pid = (gint32) atoi (pid_args[i]);
      g_array_append_val (pids, pid);
    }
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "frequency", g_variant_new_uint32 (999));
  g_variant_builder_add (&b, "{sv}", "pids",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, pids->data, pids->len, sizeof (gint32)));
  reply = call_sync (bus, PATH, NAME ".SessionManager", "CreateSession",
                     g_variant_new ("(@a{sv})", g_variant_builder_end (&b)), NULL, &error);
  if (reply == NULL)
    {
      report_error (error);
      return;
    }
  g_variant_get (reply, "(o)", &path);
  g_clear_pointer (&reply, g_variant_unref);
  if ((fd = open (file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 ||
      g_unix_fd_list_append (fds, fd, &error) < 0)
    die (file, error);
  close (fd);
  if (!(reply = g_dbus_connection_call_with_unix_fd_list_sync (bus, NAME, path, SESSION, "SetCaptureFd",
                                                               g_variant_new ("(h)", 0), NULL, G_DBUS_CALL_FLAGS_NONE,
                                                               TIMEOUT, fds, NULL, NULL, &error)))
    {
      report_error (error);
      return;
    }
  g_clear_pointer (&reply, g_variant_unref);
  if (!(reply = call_sync (bus, path, SESSION, "Start", NULL, NULL, &error)))
    {
      report_error (error);
      return;
    }
  g_usleep ((gulong) seconds * G_USEC_PER_SEC);
  session_method (bus, path, "Stop");
  state = get_state (bus, path, NULL, NULL);
  session_method (bus, path, "Close");
  printf ("state %s\n", state);
}

static void
host_call (GDBusConnection *bus, const char *method, GVariant *args)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) answers = NULL;
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree gpointer *keys = NULL;
  guint                n_keys = 0;

  if (!(reply = call_sync (bus, PATH, NAME ".Host", method, args, NULL, &error)))
    {
      report_error (error);
      return;
    }
  answers = g_variant_get_child_value (reply, 0);
  if (!g_variant_is_of_type (answers, G_VARIANT_TYPE_ARRAY))
    {
      printf ("ok 0\n");
      return;
    }
  printf ("ok %" G_GSIZE_FORMAT "\n", g_variant_n_children (answers));
  for (gsize i = 0; i < g_variant_n_children (answers); i++)
    {
      g_autoptr (GVariant) answer = g_variant_get_child_value (answers, i);
      g_autoptr (GVariant) name = NULL;

      if (!g_variant_is_of_type (answer, G_VARIANT_TYPE_TUPLE) || g_variant_n_children (answer) < 2)
        continue;
      name = g_variant_get_child_value (answer, 1);
      if (g_variant_is_of_type (name, G_VARIANT_TYPE_STRING))
        {
          char *key = g_variant_dup_string (name, NULL);
          guint count = GPOINTER_TO_UINT (g_hash_table_lookup (names, key));

          g_hash_table_replace (names, key, GUINT_TO_POINTER (count + 1));
        }
    }
  keys = g_hash_table_get_keys_as_array (names, &n_keys);
  for (guint i = 0; i < n_keys; i++)
    printf ("answers %s %u\n", (char *) keys[i], GPOINTER_TO_UINT (g_hash_table_lookup (names, keys[i])));
}

static void
tries (GDBusConnection *bus, guint n)
{
  guint ok = 0, denied = 0, other = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GVariant) reply = call_sync (bus, PATH, NAME ".Service", "ListProcesses", NULL, NULL, &error);

      if (reply != NULL)
        ok++;
      else if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
        denied++;
      else
        other++;
    }
  printf ("ok %u\ndenied %u\nother %u\n", ok, denied, other);
}

static void
host_batch (GDBusConnection *bus, guint n, gint32 pid, const char *path)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(iay)"));
  for (guint i = 0; i < n; i++)
    g_variant_builder_add (&builder, "(i^ay)", pid, path);
  host_call (bus, "ResolvePaths", g_variant_new ("(@a(iay))", g_variant_builder_end (&builder)));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = NULL;
  const char *mode = argc > 1 ? argv[1] : "";

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (!(bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error)))
    die ("system bus", error);

  if (g_str_equal (mode, "close-race") && argc == 3)
    close_race (bus, (guint) atoi (argv[2]));
  else if (g_str_equal (mode, "leave-race") && argc == 3)
    {
      g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);

      if (address == NULL)
        die ("bus address", error);
      leave_race (address, (guint) atoi (argv[2]));
    }
  else if (g_str_equal (mode, "flood") && argc == 3)
    {
      g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);

      if (address == NULL)
        die ("bus address", error);
      flood (address, (guint) atoi (argv[2]));
    }
  else if (g_str_equal (mode, "latency") && argc == 3)
    latency (bus, (guint) atoi (argv[2]));
  else if (g_str_equal (mode, "session-latency") && argc == 2)
    session_latency (bus);
  else if (g_str_equal (mode, "ring-exhaust") && (argc == 3 || argc == 4))
    ring_exhaust (bus, (guint) atoi (argv[2]), argc == 4 ? (guint) atoi (argv[3]) : 0);
  else if (g_str_equal (mode, "hostile-writers") && argc == 5)
    hostile_writers (bus, (guint) atoi (argv[2]), g_ascii_strtoull (argv[3], NULL, 10), (guint) atoi (argv[4]));
  else if (g_str_equal (mode, "capped-session") && argc == 3)
    capped_session (bus, g_ascii_strtoull (argv[2], NULL, 10));
  else if (g_str_equal (mode, "proc-file") && argc == 3)
    proc_file (bus, argv[2]);
  else if (g_str_equal (mode, "pids-session") && argc >= 5)
    pids_session (bus, argv[2], (guint) atoi (argv[3]), argv + 4);
  else if (g_str_equal (mode, "host-call") && argc == 4)
    {
      GVariant *args = g_variant_parse (NULL, argv[3], NULL, NULL, &error);

      if (args == NULL || !g_variant_is_of_type (args, G_VARIANT_TYPE_TUPLE))
        die ("ARGS is not a GVariant tuple", error);
      host_call (bus, argv[2], args);
    }
  else if (g_str_equal (mode, "tries") && argc == 3)
    tries (bus, (guint) atoi (argv[2]));
  else if (g_str_equal (mode, "host-batch") && argc == 5)
    host_batch (bus, (guint) atoi (argv[2]), (gint32) atoi (argv[3]), argv[4]);
  else
    {
      g_printerr ("attack-client: unknown mode or wrong arguments (see the comment at the top)\n");
      return 2;
    }
  return 0;
}
