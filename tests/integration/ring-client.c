// SPDX-License-Identifier: GPL-3.0-or-later
/* ring-client: CreateRingBuffer from the producer's side, for the integration
 * tests.
 *   ring-client roundtrip FILE N   a session writing into FILE; one 1-page
 *       ring that carries N MARK frames (group "ring-test", message "ring message I");
 *       prints "lost L" and "state S" after Stop
 *   ring-client hostile FILE       rings filled with garbage, impossible
 *       positions and spoiled header words; the n_pages and per-session
 *       limits; then a sound ring with 100 marks "survivor I".  Prints
 *       "refused ...", "lost L" and "state S"
 *   ring-client digits FILE        a ring whose whole body is ASCII digits
 *       behind one METADATA frame header "sysprof.lost-events": a parser
 *       reading the count from the shared ring runs past its mapping.  Then
 *       a sound ring with 10 marks "after-digits I".  Prints "lost L" and
 *       "state S" */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <sysprof-capture.h>

static GDBusConnection *bus;

static GVariant *
call (const char *path, const char *method, GVariant *args, GUnixFDList *in, GUnixFDList **out, GError **error)
{
  return g_dbus_connection_call_with_unix_fd_list_sync (bus, "org.gnome.Sysprof3", path, "org.gnome.Sysprof3.Session",
                                                        method, args, NULL, G_DBUS_CALL_FLAGS_NONE, 30000, in, out,
                                                        NULL, error);
}

static void
die (const char *what, GError *error)
{
  g_printerr ("ring-client: %s: %s\n", what, error ? error->message : g_strerror (errno));
  exit (1);
}

/* CreateSession without sampling, SetCaptureFd(file), Start. */
static char *
start_session (const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GUnixFDList) fds = g_unix_fd_list_new ();
  GVariantBuilder options;
  char           *path;
  int             fd;

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&options, "{sv}", "cpu-sampling", g_variant_new_boolean (FALSE));
  reply = g_dbus_connection_call_sync (
      bus, "org.gnome.Sysprof3", "/org/gnome/Sysprof3", "org.gnome.Sysprof3.SessionManager", "CreateSession",
      g_variant_new ("(@a{sv})", g_variant_builder_end (&options)), NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
  if (reply == NULL)
    die ("CreateSession", error);
  g_variant_get (reply, "(o)", &path);
  g_clear_pointer (&reply, g_variant_unref);
  if ((fd = open (file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
    die (file, NULL);
  if (g_unix_fd_list_append (fds, fd, &error) < 0)
    die ("fd list", error);
  close (fd);
  if (!(reply = call (path, "SetCaptureFd", g_variant_new ("(h)", 0), fds, NULL, &error)))
    die ("SetCaptureFd", error);
  g_clear_pointer (&reply, g_variant_unref);
  if (!(reply = call (path, "Start", NULL, NULL, NULL, &error)))
    die ("Start", error);
  return path;
}

/* Returns the ring's fd, or -1 with @error set. */
static int
create_ring (const char *path, guint n_pages, GError **error)
{
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GUnixFDList) out = NULL;
  gint32 handle;

  if (!(reply = call (path, "CreateRingBuffer", g_variant_new ("(u)", n_pages), NULL, &out, error)))
    return -1;
  g_variant_get (reply, "(h)", &handle);
  return g_unix_fd_list_get (out, handle, error);
}

static void
write_marks (SysprofMappedRingBuffer *ring, const char *prefix, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      char                message[64];
      gsize               len;
      SysprofCaptureMark *mark;
      struct timespec     ts;
      guint               tries = 0;

      g_snprintf (message, sizeof message, "%s %u", prefix, i);
      len = (sizeof *mark + strlen (message) + 1 + 7) & ~(gsize) 7;
      while (!(mark = sysprof_mapped_ring_buffer_allocate (ring, len)))
        {
          if (++tries > 10000)
            die ("the ring stays full", NULL);
          g_usleep (1000);
        }
      clock_gettime (CLOCK_MONOTONIC, &ts);
      memset (mark, 0, len);
      mark->frame.len = (guint16) len;
      mark->frame.cpu = -1;
      mark->frame.pid = getpid ();
      mark->frame.time = (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
      mark->frame.type = SYSPROF_CAPTURE_FRAME_MARK;
      mark->duration = 1000;
      g_strlcpy (mark->group, "ring-test", sizeof mark->group);
      g_snprintf (mark->name, sizeof mark->name, "mark-%u", i);
      memcpy (mark->message, message, strlen (message) + 1);
      sysprof_mapped_ring_buffer_advance (ring, len);
    }
}

static void
stop_and_report (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;

  if (!(reply = call (path, "Stop", NULL, NULL, NULL, &error)))
    die ("Stop", error);
  g_clear_pointer (&reply, g_variant_unref);
  reply = g_dbus_connection_call_sync (bus, "org.gnome.Sysprof3", path, "org.freedesktop.DBus.Properties", "GetAll",
                                       g_variant_new ("(s)", "org.gnome.Sysprof3.Session"), NULL,
                                       G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
  if (reply == NULL)
    die ("GetAll", error);
  {
    g_autoptr (GVariant) props = g_variant_get_child_value (reply, 0);
    GVariantDict dict;
    guint64      lost = 0;
    const char  *state = "?";

    g_variant_dict_init (&dict, props);
    g_variant_dict_lookup (&dict, "LostFrames", "t", &lost);
    g_variant_dict_lookup (&dict, "State", "&s", &state);
    printf ("lost %" G_GUINT64_FORMAT "\nstate %s\n", lost, state);
    g_variant_dict_clear (&dict);
  }
}

static void
roundtrip (const char *file, guint n)
{
  g_autoptr (GError) error = NULL;
  g_autofree char         *path = start_session (file);
  int                      fd = create_ring (path, 1, &error);
  SysprofMappedRingBuffer *ring;

  /* One page: the frames cross the end of the ring about thirty times and the
   * producer has to wait for the daemon whenever it is full. */
  if (fd < 0)
    die ("CreateRingBuffer", error);
  if (!(ring = sysprof_mapped_ring_buffer_new_writer (fd)))
    die ("mapping the ring", NULL);
  close (fd);
  write_marks (ring, "ring message", n);
  /* Let the daemon drain what is left before Stop drains the rest anyway. */
  g_usleep (100 * 1000);
  sysprof_mapped_ring_buffer_unref (ring);
  stop_and_report (path);
}

/* Maps a ring raw, as a hostile producer would, without any validation. */
static guint8 *
map_raw (const char *path, gsize *size)
{
  g_autoptr (GError) error = NULL;
  int     fd = create_ring (path, 1, &error);
  gsize   page = (gsize) sysconf (_SC_PAGESIZE);
  guint8 *map;

  if (fd < 0)
    die ("CreateRingBuffer", error);
  /* The consumer sealed the memfd: no SIGBUS for it through truncation. */
  if (ftruncate (fd, 0) == 0 || ftruncate (fd, (off_t) (64 * page)) == 0)
    {
      printf ("ring memfd can be resized\n");
      exit (1);
    }
  map = mmap (NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    die ("mmap", NULL);
  close (fd);
  *size = page;
  return map;
}

static void
hostile (const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char         *path = start_session (file);
  GRand                   *rand = g_rand_new ();
  SysprofMappedRingBuffer *ring;
  guint8                  *map[4];
  gsize                    size = 0;
  guint                    n_rings = 0;
  int                      fd;

  for (guint i = 0; i < G_N_ELEMENTS (map); i++, n_rings++)
    map[i] = map_raw (path, &size);
  {
    guint32 *h = (guint32 *) map[0];
    /* Garbage frames between sound positions. */
    for (gsize i = 0; i < size; i++)
      map[0][size + i] = (guint8) g_rand_int (rand);
    h[1] = 512;
    /* Positions beyond the ring. */
    h = (guint32 *) map[1];
    h[1] = 0xFFFFFFF0;
    h[0] = 0x7FFFFFF8;
    /* A huge length in a plausible header. */
    h = (guint32 *) map[2];
    ((SysprofCaptureFrame *) (map[2] + size))->len = 0xFFF8;
    ((SysprofCaptureFrame *) (map[2] + size))->type = SYSPROF_CAPTURE_FRAME_LOG;
    h[1] = 64;
    /* Spoiled offset and size words, then a misaligned tail. */
    h = (guint32 *) map[3];
    h[2] = 12345;
    h[3] = 0xFFFFFFFF;
    h[1] = 20;
  }
  /* Keep changing everything while the daemon drains. */
  for (guint round = 0; round < 300; round++)
    {
      guint8  *m = map[g_rand_int_range (rand, 0, G_N_ELEMENTS (map))];
      guint32 *h = (guint32 *) m;

      for (guint i = 0; i < 32; i++)
        m[size + g_rand_int_range (rand, 0, (gint32) size)] = (guint8) g_rand_int (rand);
      h[0] = g_rand_boolean (rand) ? g_rand_int (rand) : g_rand_int_range (rand, 0, (gint32) size) & ~7u;
      h[1] = g_rand_boolean (rand) ? g_rand_int (rand) : g_rand_int_range (rand, 0, (gint32) size) & ~7u;
      g_usleep (1000);
    }

  /* Limits. */
  if (create_ring (path, 3, &error) >= 0)
    die ("n_pages 3 accepted", NULL);
  printf ("refused n_pages 3: %s\n", error->message);
  g_clear_error (&error);
  if (create_ring (path, 2048, &error) >= 0)
    die ("n_pages 2048 accepted", NULL);
  printf ("refused n_pages 2048: %s\n", error->message);
  g_clear_error (&error);

  /* A sound ring after all that. */
  if ((fd = create_ring (path, 4, &error)) < 0)
    die ("CreateRingBuffer", error);
  n_rings++;
  if (!(ring = sysprof_mapped_ring_buffer_new_writer (fd)))
    die ("mapping the ring", NULL);
  close (fd);
  write_marks (ring, "survivor", 100);

  for (;; n_rings++)
    {
      /* 0 = the default size, once. */
      if ((fd = create_ring (path, n_rings == 5 ? 0 : 1, &error)) < 0)
        break;
      close (fd);
    }
  printf ("refused ring %u: %s\n", n_rings + 1, error->message);

  g_usleep (100 * 1000);
  sysprof_mapped_ring_buffer_unref (ring);
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    munmap (map[i], 2 * size);
  g_rand_free (rand);
  stop_and_report (path);
}

static void
digits (const char *file)
{
  g_autofree char *path = start_session (file);
  g_autoptr (GError) error = NULL;
  SysprofMappedRingBuffer *ring;
  gsize                    size = 0;
  guint8                  *map = map_raw (path, &size);
  guint32                 *h = (guint32 *) map;
  guint8                  *body = map + size;
  SysprofCaptureMetadata  *meta = (SysprofCaptureMetadata *) body;
  int                      fd;

  /* Digits everywhere, both views of the body, then one frame header that
   * passes every check of its own and whose text never ends. */
  memset (body, '7', size);
  meta->frame.len = (guint16) (size - 8);
  meta->frame.type = SYSPROF_CAPTURE_FRAME_METADATA;
  meta->frame.cpu = -1;
  meta->frame.pid = getpid ();
  meta->frame.time = 1;
  memset (meta->id, 0, sizeof meta->id);
  g_strlcpy (meta->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof meta->id);
  /* Published: head 0, tail at the end of the frame. */
  h[0] = 0;
  h[1] = (guint32) (size - 8);
  /* Give the drainer many passes over it. */
  for (guint i = 0; i < 200; i++)
    {
      h[0] = 0;
      h[1] = (guint32) (size - 8);
      g_usleep (2000);
    }

  if ((fd = create_ring (path, 1, &error)) < 0)
    die ("CreateRingBuffer", error);
  if (!(ring = sysprof_mapped_ring_buffer_new_writer (fd)))
    die ("mapping the ring", NULL);
  close (fd);
  write_marks (ring, "after-digits", 10);
  g_usleep (100 * 1000);
  sysprof_mapped_ring_buffer_unref (ring);
  munmap (map, 2 * size);
  stop_and_report (path);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;

  if (argc < 3)
    return 2;
  if (!(bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error)))
    die ("system bus", error);
  if (g_str_equal (argv[1], "roundtrip") && argc == 4)
    roundtrip (argv[2], (guint) atoi (argv[3]));
  else if (g_str_equal (argv[1], "hostile") && argc == 3)
    hostile (argv[2]);
  else if (g_str_equal (argv[1], "digits") && argc == 3)
    digits (argv[2]);
  else
    return 2;
  return 0;
}
