// SPDX-License-Identifier: BSD-2-Clause-Patent
/* capture-api: a program written against libsysprof-capture-4's public C
 * API, as upstream's headers declare it, that uses all of it: the writer
 * (every frame type, counters, JIT maps, files, splice, cat, save-as, the
 * environment), the reader (every typed read, peek, skip, reset, files,
 * statistics, copies), the cursor with every kind of condition, the clock,
 * the address helpers, the platform helpers and the version macros.
 *
 * It is built twice from this one file, by tests/dropin/run-dropin.sh: with
 * `pkg-config sysprof-capture-4` against our installed library, and against
 * Debian's Sysprof 3.46 (libsysprof-4-dev).  Everything it prints is
 * deterministic (no times of the clock, no pids), so the two outputs must be
 * identical line for line: ours behaves as upstream's.  What Sysprof 45 added
 * (TRACE and D-Bus frames, maps with build ids, the frame index) is used only
 * when the headers say the library has it (SYSPROF_CHECK_VERSION (45, 0, 0))
 * and printed after a line "--- 45", which the comparison leaves out.
 *
 * Usage: capture-api WORKDIR
 * Exit status 0 when every call behaved as documented; the first broken
 * expectation is printed as "FAIL: …" and ends the run with 1. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sysprof-capture.h>

#define T0  ((int64_t) 1000000000)
#define PID 4242
#define CHECK(cond)                                                                  \
  do                                                                                 \
    {                                                                                \
      if (!(cond))                                                                   \
        {                                                                            \
          printf ("FAIL: %s:%d: %s (errno %d)\n", __FILE__, __LINE__, #cond, errno); \
          exit (1);                                                                  \
        }                                                                            \
    }                                                                                \
  while (0)

static const char *workdir;

static char *
path_of (const char *name)
{
  static char buffers[4][4096];
  static int  next;
  char       *buffer = buffers[next++ % 4];

  snprintf (buffer, sizeof buffers[0], "%s/%s", workdir, name);
  return buffer;
}

/* ------------------------------------------------------------------------ */
/* Version, clock, address, platform */

static void
test_version (void)
{
  /* The macros a program checks before using newer API. */
  CHECK (SYSPROF_CHECK_VERSION (3, 34, 0));
  CHECK (!SYSPROF_CHECK_VERSION (1000, 0, 0));
  CHECK (SYSPROF_MAJOR_VERSION >= 3);
  CHECK (strlen (SYSPROF_VERSION_S) >= 5);
  CHECK (SYSPROF_VERSION_HEX ==
         SYSPROF_ENCODE_VERSION (SYSPROF_MAJOR_VERSION, SYSPROF_MINOR_VERSION, SYSPROF_MICRO_VERSION));
  printf ("version checks ok\n");
}

static void
test_clock (void)
{
  SysprofTimeStamp a, b;

  sysprof_clock_init ();
  CHECK (sysprof_clock != -1);
  a = sysprof_clock_get_current_time ();
  b = SYSPROF_CAPTURE_CURRENT_TIME;
  CHECK (a > 0 && b >= a);
  CHECK (sysprof_clock_get_relative_time (a) >= 0);
  CHECK (SYSPROF_NSEC_PER_SEC == 1000000000);
  printf ("clock ok\n");
}

static void
test_address (void)
{
  static const struct
  {
    SysprofAddress addr;
    const char    *what;
  } markers[] = {
    { (SysprofAddress) -32, "hypervisor" },
    { (SysprofAddress) -128, "kernel" },
    { (SysprofAddress) -512, "user" },
    { (SysprofAddress) -2048, "guest" },
    { (SysprofAddress) -2176, "guest kernel" },
    { (SysprofAddress) -2560, "guest user" },
    { 0x401000, "an address" },
  };

  for (unsigned i = 0; i < sizeof markers / sizeof markers[0]; i++)
    {
      SysprofAddressContext context = SYSPROF_ADDRESS_CONTEXT_NONE;
      bool                  is_switch = sysprof_address_is_context_switch (markers[i].addr, &context);

      printf ("address %s: switch=%d context=%d \"%s\"\n", markers[i].what, is_switch, (int) context,
              sysprof_address_context_to_string (context));
    }
  CHECK (sysprof_address_compare (1, 2) < 0 && sysprof_address_compare (2, 2) == 0 &&
         sysprof_address_compare (3, 2) > 0);
  CHECK (sysprof_capture_address_compare (1, 2) < 0 && sysprof_capture_address_compare (2, 1) > 0);
}

static void
test_platform (void)
{
  int  fd = sysprof_memfd_create ("[capture-api]");
  char buffer[4] = "";

  CHECK (sysprof_getpagesize () == (size_t) sysconf (_SC_PAGESIZE));
  CHECK (fd >= 0);
  CHECK (write (fd, "abc", 3) == 3);
  CHECK (pread (fd, buffer, 3, 0) == 3 && memcmp (buffer, "abc", 3) == 0);
  close (fd);
  printf ("platform ok\n");
}

/* ------------------------------------------------------------------------ */
/* Writing every frame type */

static int
backtrace_cb (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *user_data)
{
  unsigned int n = 0;

  (void) user_data;
  for (; n < 3 && n < n_addrs; n++)
    addrs[n] = 0x1000 + n;
  return (int) n;
}

static SysprofCaptureAddress jit_a, jit_b;
static unsigned int          counter_base;

static void
write_everything (SysprofCaptureWriter *writer)
{
  static const SysprofCaptureAddress stack[] = { 0x401000, 0x402000, (SysprofCaptureAddress) -512, 0x403000 };
  SysprofCaptureCounter              counters[2];
  unsigned int                       ids[2];
  SysprofCaptureCounterValue         values[2];
  char                               long_text[300];
  int                                fd;

  CHECK (sysprof_capture_writer_add_timestamp (writer, T0, 0, PID));
  CHECK (sysprof_capture_writer_add_process (writer, T0 + 1, 1, PID, "/usr/bin/app --flag"));
  CHECK (sysprof_capture_writer_add_map (writer, T0 + 2, 1, PID, 0x400000, 0x500000, 0x1000, 1234, "/usr/bin/app"));
  CHECK (sysprof_capture_writer_add_fork (writer, T0 + 3, 0, PID, PID + 1));
  CHECK (sysprof_capture_writer_add_sample (writer, T0 + 4, 1, PID, PID + 2, stack, 4));
  CHECK (sysprof_capture_writer_add_sample (writer, T0 + 5, 1, PID, PID, NULL, 0));

  /* JIT addresses: one per distinct name, the same for the same name. */
  jit_a = sysprof_capture_writer_add_jitmap (writer, "js:outer (app.js:1)");
  jit_b = sysprof_capture_writer_add_jitmap (writer, "js:inner (app.js:7)");
  CHECK (jit_a != 0 && jit_b != 0 && jit_a != jit_b);
  CHECK (sysprof_capture_writer_add_jitmap (writer, "js:outer (app.js:1)") == jit_a);
  CHECK ((jit_a & SYSPROF_CAPTURE_JITMAP_MARK) == SYSPROF_CAPTURE_JITMAP_MARK);
  printf ("jitmap a=%#" PRIx64 " b=%#" PRIx64 "\n", jit_a, jit_b);
  {
    SysprofCaptureAddress js_stack[] = { jit_b, jit_a };

    CHECK (sysprof_capture_writer_add_sample (writer, T0 + 6, 0, PID, PID, js_stack, 2));
  }

  /* Counters: consecutive ids from the writer. */
  counter_base = sysprof_capture_writer_request_counter (writer, 2);
  CHECK (counter_base != 0);
  CHECK (sysprof_capture_writer_request_counter (writer, 1) == counter_base + 2);
  printf ("counters from %u\n", counter_base);
  memset (counters, 0, sizeof counters);
  strcpy (counters[0].category, "App");
  strcpy (counters[0].name, "Frames");
  strcpy (counters[0].description, "Frames drawn");
  counters[0].id = counter_base;
  counters[0].type = SYSPROF_CAPTURE_COUNTER_INT64;
  counters[0].value.v64 = 0;
  strcpy (counters[1].category, "App");
  strcpy (counters[1].name, "Load");
  strcpy (counters[1].description, "Load average");
  counters[1].id = counter_base + 1;
  counters[1].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
  counters[1].value.vdbl = 0.5;
  CHECK (sysprof_capture_writer_define_counters (writer, T0 + 7, -1, PID, counters, 2));
  ids[0] = counter_base;
  ids[1] = counter_base + 1;
  values[0].v64 = 60;
  values[1].vdbl = 1.25;
  CHECK (sysprof_capture_writer_set_counters (writer, T0 + 8, -1, PID, ids, values, 2));

  CHECK (sysprof_capture_writer_add_mark (writer, T0 + 9, 0, PID, 5000, "gtk", "layout", "a message"));
  /* Group and name are cut to their fields (23 and 39 characters). */
  CHECK (sysprof_capture_writer_add_mark (writer, T0 + 10, 0, PID, 0, "a group name longer than its field",
                                          "a mark name that is longer than the forty bytes", ""));
  CHECK (sysprof_capture_writer_add_metadata (writer, T0 + 11, -1, -1, "local-profiler", "key=value", -1));
  CHECK (sysprof_capture_writer_add_metadata (writer, T0 + 12, -1, -1, "cut", "0123456789", 4));
  CHECK (sysprof_capture_writer_add_log (writer, T0 + 13, 0, PID, 1 << 4, "Gtk", "a warning"));
  memset (long_text, 'd', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  CHECK (sysprof_capture_writer_add_log (writer, T0 + 14, 0, PID, 1 << 7, long_text, "a domain too long"));

  CHECK (sysprof_capture_writer_add_allocation (writer, T0 + 15, 0, PID, PID, 0x7f0000001000, 64, backtrace_cb, NULL));
  CHECK (sysprof_capture_writer_add_allocation_copy (writer, T0 + 16, 0, PID, PID, 0x7f0000001000, 0, stack, 2));
  CHECK (sysprof_capture_writer_add_overlay (writer, T0 + 17, -1, PID, 2, "/var/lib/flatpak/app", "/app"));

  CHECK (
      sysprof_capture_writer_add_file (writer, T0 + 18, -1, -1, "/proc/version", false, (const uint8_t *) "Linux ", 6));
  CHECK (
      sysprof_capture_writer_add_file (writer, T0 + 19, -1, -1, "/proc/version", true, (const uint8_t *) "6.1\n", 4));
  fd = sysprof_memfd_create ("[file]");
  CHECK (fd >= 0);
  {
    /* Bigger than a frame: add_file_fd cuts it into chunks. */
    static char big[100000];

    for (size_t i = 0; i < sizeof big; i++)
      big[i] = (char) ('a' + i % 26);
    CHECK (write (fd, big, sizeof big) == (ssize_t) sizeof big);
    CHECK (lseek (fd, 0, SEEK_SET) == 0);
  }
  CHECK (sysprof_capture_writer_add_file_fd (writer, T0 + 20, -1, -1, "/big", fd));
  close (fd);
  CHECK (sysprof_capture_writer_add_exit (writer, T0 + 21, 0, PID + 1));
}

/* ------------------------------------------------------------------------ */
/* Reading: one line per frame, from the typed reads */

static void
print_frame_header (const char *name, const SysprofCaptureFrame *frame)
{
  if (frame->type == SYSPROF_CAPTURE_FRAME_JITMAP)
    /* Stamped with the writer's own pid and the clock. */
    printf ("%s cpu=%d", name, frame->cpu);
  else
    printf ("%s cpu=%d pid=%d time=%" PRId64, name, frame->cpu, frame->pid, frame->time);
}

static void
print_addrs (const SysprofCaptureAddress *addrs, unsigned int n)
{
  printf (" n=%u [", n);
  for (unsigned int i = 0; i < n; i++)
    printf ("%s%#" PRIx64, i ? "," : "", addrs[i]);
  printf ("]");
}

/* Reads the frame at the reader's position with the typed read of its type
 * and prints it; false at the end or on an unreadable frame. */
static bool
read_one (SysprofCaptureReader *reader)
{
  SysprofCaptureFrameType type;
  SysprofCaptureFrame     peeked;

  if (!sysprof_capture_reader_peek_type (reader, &type))
    return false;
  CHECK (sysprof_capture_reader_peek_frame (reader, &peeked));
  CHECK (peeked.type == type);
  switch (type)
    {
    case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
      {
        const SysprofCaptureTimestamp *f = sysprof_capture_reader_read_timestamp (reader);
        CHECK (f != NULL);
        print_frame_header ("TIMESTAMP", &f->frame);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_SAMPLE:
      {
        const SysprofCaptureSample *f = sysprof_capture_reader_read_sample (reader);
        CHECK (f != NULL);
        print_frame_header ("SAMPLE", &f->frame);
        printf (" tid=%d", f->tid);
        print_addrs (f->addrs, f->n_addrs);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_MAP:
      {
        const SysprofCaptureMap *f = sysprof_capture_reader_read_map (reader);
        CHECK (f != NULL);
        print_frame_header ("MAP", &f->frame);
        printf (" %#" PRIx64 "-%#" PRIx64 " off=%#" PRIx64 " inode=%" PRIu64 " %s", f->start, f->end, f->offset,
                f->inode, f->filename);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_PROCESS:
      {
        const SysprofCaptureProcess *f = sysprof_capture_reader_read_process (reader);
        CHECK (f != NULL);
        print_frame_header ("PROCESS", &f->frame);
        printf (" \"%s\"", f->cmdline);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_FORK:
      {
        const SysprofCaptureFork *f = sysprof_capture_reader_read_fork (reader);
        CHECK (f != NULL);
        print_frame_header ("FORK", &f->frame);
        printf (" child=%d", f->child_pid);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_EXIT:
      {
        const SysprofCaptureExit *f = sysprof_capture_reader_read_exit (reader);
        CHECK (f != NULL);
        print_frame_header ("EXIT", &f->frame);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_JITMAP:
      {
        const SysprofCaptureJitmap *f = sysprof_capture_reader_read_jitmap (reader);
        SysprofCaptureJitmapIter    iter;
        SysprofCaptureAddress       addr;
        const char                 *name;

        CHECK (f != NULL);
        print_frame_header ("JITMAP", &f->frame);
        printf (" n=%u", f->n_jitmaps);
        sysprof_capture_jitmap_iter_init (&iter, f);
        while (sysprof_capture_jitmap_iter_next (&iter, &addr, &name))
          printf (" %#" PRIx64 "=\"%s\"", addr, name);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      {
        const SysprofCaptureCounterDefine *f = sysprof_capture_reader_read_counter_define (reader);
        CHECK (f != NULL);
        print_frame_header ("CTRDEF", &f->frame);
        for (unsigned int i = 0; i < f->n_counters; i++)
          {
            const SysprofCaptureCounter *c = &f->counters[i];

            printf (" {%u %s/%s \"%s\" type=%u ", (unsigned) c->id - counter_base, c->category, c->name, c->description,
                    (unsigned) c->type);
            if (c->type == SYSPROF_CAPTURE_COUNTER_DOUBLE)
              printf ("%g}", c->value.vdbl);
            else
              printf ("%" PRId64 "}", c->value.v64);
          }
        break;
      }
    case SYSPROF_CAPTURE_FRAME_CTRSET:
      {
        const SysprofCaptureCounterSet *f = sysprof_capture_reader_read_counter_set (reader);
        CHECK (f != NULL);
        print_frame_header ("CTRSET", &f->frame);
        printf (" groups=%u", f->n_values);
        for (unsigned int i = 0; i < f->n_values; i++)
          for (unsigned int j = 0; j < 8; j++)
            if (f->values[i].ids[j] != 0)
              printf (" %u:%#" PRIx64, f->values[i].ids[j] - counter_base, (uint64_t) f->values[i].values[j].v64);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_MARK:
      {
        const SysprofCaptureMark *f = sysprof_capture_reader_read_mark (reader);
        CHECK (f != NULL);
        print_frame_header ("MARK", &f->frame);
        printf (" duration=%" PRId64 " \"%s\" \"%s\" \"%s\"", f->duration, f->group, f->name, f->message);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_METADATA:
      {
        const SysprofCaptureMetadata *f = sysprof_capture_reader_read_metadata (reader);
        CHECK (f != NULL);
        print_frame_header ("METADATA", &f->frame);
        printf (" \"%s\" \"%s\"", f->id, f->metadata);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_LOG:
      {
        const SysprofCaptureLog *f = sysprof_capture_reader_read_log (reader);
        CHECK (f != NULL);
        print_frame_header ("LOG", &f->frame);
        printf (" severity=%u \"%s\" \"%s\"", (unsigned) f->severity, f->domain, f->message);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      {
        const SysprofCaptureFileChunk *f = sysprof_capture_reader_read_file (reader);
        CHECK (f != NULL);
        print_frame_header ("FILE_CHUNK", &f->frame);
        printf (" \"%s\" last=%u len=%u", f->path, (unsigned) f->is_last, (unsigned) f->len);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      {
        const SysprofCaptureAllocation *f = sysprof_capture_reader_read_allocation (reader);
        CHECK (f != NULL);
        print_frame_header ("ALLOCATION", &f->frame);
        printf (" tid=%d addr=%#" PRIx64 " size=%" PRId64, f->tid, f->alloc_addr, f->alloc_size);
        print_addrs (f->addrs, f->n_addrs);
        break;
      }
    case SYSPROF_CAPTURE_FRAME_OVERLAY:
      {
        const SysprofCaptureOverlay *f = sysprof_capture_reader_read_overlay (reader);
        CHECK (f != NULL);
        print_frame_header ("OVERLAY", &f->frame);
        printf (" layer=%u \"%s\" -> \"%s\"", (unsigned) f->layer, f->data, f->data + f->src_len + 1);
        break;
      }
    default:
      /* A type a 3.46 reader does not know (45's TRACE, D-Bus …). */
      printf ("TYPE %d", (int) type);
      CHECK (sysprof_capture_reader_skip (reader));
      break;
    }
  printf ("\n");
  return true;
}

static unsigned int
read_all (SysprofCaptureReader *reader, const char *title)
{
  unsigned int n = 0;

  printf ("%s:\n", title);
  while (read_one (reader))
    n++;
  printf ("%s: %u frames\n", title, n);
  return n;
}

static void
print_stat (const char *title, const SysprofCaptureStat *stat)
{
  printf ("%s:", title);
  for (unsigned int i = 1; i < 16; i++)
    if (stat->frame_count[i] != 0)
      printf (" %u=%zu", i, stat->frame_count[i]);
  printf ("\n");
}

static void
test_reader (SysprofCaptureReader *reader, unsigned int n_frames)
{
  SysprofCaptureReader *copy;
  SysprofCaptureStat    stat;
  const char          **files;
  int                   fd;
  struct stat           st;

  CHECK (sysprof_capture_reader_get_byte_order (reader) == 1234);
  CHECK (sysprof_capture_reader_get_end_time (reader) >= sysprof_capture_reader_get_start_time (reader));
  CHECK (strlen (sysprof_capture_reader_get_time (reader)) == 20);
  CHECK (sysprof_capture_reader_get_filename (reader) == NULL ||
         strstr (sysprof_capture_reader_get_filename (reader), ".syscap") != NULL);

  /* Reset starts over; skip moves over one frame; a copy reads on its own. */
  CHECK (sysprof_capture_reader_reset (reader));
  CHECK (sysprof_capture_reader_skip (reader));
  copy = sysprof_capture_reader_copy (reader);
  CHECK (copy != NULL);
  {
    unsigned int n = 0;
    while (sysprof_capture_reader_skip (copy))
      n++;
    printf ("copy skipped %u of %u\n", n, n_frames);
  }
  sysprof_capture_reader_unref (copy);
  CHECK (sysprof_capture_reader_ref (reader) == reader);
  sysprof_capture_reader_unref (reader);

  /* A typed read of another type returns NULL and does not move. */
  CHECK (sysprof_capture_reader_reset (reader));
  {
    SysprofCaptureFrameType type;

    CHECK (sysprof_capture_reader_peek_type (reader, &type) && type != SYSPROF_CAPTURE_FRAME_OVERLAY);
    CHECK (sysprof_capture_reader_read_overlay (reader) == NULL);
    printf ("first frame type %d\n", (int) type);
    CHECK (read_one (reader));
  }

  files = sysprof_capture_reader_list_files (reader);
  CHECK (files != NULL);
  for (unsigned int i = 0; files[i] != NULL; i++)
    printf ("file %s\n", files[i]);
  free (files);
  /* find_file looks from the reader's position on. */
  CHECK (sysprof_capture_reader_reset (reader));
  CHECK (sysprof_capture_reader_find_file (reader, "/proc/version") != NULL);
  CHECK (sysprof_capture_reader_find_file (reader, "/nothing") == NULL);
  CHECK (sysprof_capture_reader_reset (reader));
  fd = sysprof_memfd_create ("[out]");
  CHECK (sysprof_capture_reader_read_file_fd (reader, "/big", fd));
  CHECK (fstat (fd, &st) == 0 && st.st_size == 100000);
  {
    char buffer[26];
    CHECK (pread (fd, buffer, 26, 99974) == 26 && buffer[0] == 'a' + 99974 % 26);
  }
  close (fd);
  fd = sysprof_memfd_create ("[out]");
  CHECK (sysprof_capture_reader_reset (reader));
  CHECK (sysprof_capture_reader_read_file_fd (reader, "/proc/version", fd));
  {
    char buffer[16] = "";
    CHECK (pread (fd, buffer, sizeof buffer - 1, 0) == 10 && strcmp (buffer, "Linux 6.1\n") == 0);
  }
  close (fd);

  /* A reader from the writer has the writer's statistics. */
  CHECK (sysprof_capture_reader_get_stat (reader, &stat));
  print_stat ("reader stat", &stat);
  memset (&stat, 0, sizeof stat);
  stat.frame_count[SYSPROF_CAPTURE_FRAME_MARK] = 7;
  sysprof_capture_reader_set_stat (reader, &stat);
  memset (&stat, 0, sizeof stat);
  CHECK (sysprof_capture_reader_get_stat (reader, &stat) && stat.frame_count[SYSPROF_CAPTURE_FRAME_MARK] == 7);

  CHECK (sysprof_capture_reader_save_as (reader, path_of ("saved.syscap")));
  {
    SysprofCaptureReader *saved = sysprof_capture_reader_new (path_of ("saved.syscap"));
    unsigned int          n = 0;

    CHECK (saved != NULL);
    while (sysprof_capture_reader_skip (saved))
      n++;
    CHECK (n == n_frames);
    sysprof_capture_reader_unref (saved);
  }
  printf ("reader ok\n");
}

/* ------------------------------------------------------------------------ */
/* Cursor and conditions */

static bool
count_cb (const SysprofCaptureFrame *frame, void *user_data)
{
  unsigned int *counts = user_data;

  counts[frame->type]++;
  return true;
}

static bool
stop_cb (const SysprofCaptureFrame *frame, void *user_data)
{
  unsigned int *n = user_data;

  (void) frame;
  return ++*n < 3;
}

static void
run_cursor (SysprofCaptureReader *reader, const char *title, SysprofCaptureCondition *condition)
{
  SysprofCaptureCursor *cursor = sysprof_capture_cursor_new (reader);
  unsigned int          counts[32] = { 0 };

  CHECK (cursor != NULL);
  CHECK (sysprof_capture_cursor_get_reader (cursor) != NULL);
  if (condition != NULL)
    sysprof_capture_cursor_add_condition (cursor, condition);
  sysprof_capture_cursor_foreach (cursor, count_cb, counts);
  printf ("cursor %s:", title);
  for (unsigned int i = 0; i < 32; i++)
    if (counts[i] != 0)
      printf (" %u=%u", i, counts[i]);
  printf ("\n");
  /* After a reset it reads the same again. */
  sysprof_capture_cursor_reset (cursor);
  {
    unsigned int again[32] = { 0 };
    sysprof_capture_cursor_foreach (cursor, count_cb, again);
    CHECK (memcmp (again, counts, sizeof counts) == 0);
  }
  CHECK (sysprof_capture_cursor_ref (cursor) == cursor);
  sysprof_capture_cursor_unref (cursor);
  sysprof_capture_cursor_unref (cursor);
}

static void
test_cursor (SysprofCaptureReader *reader)
{
  static const SysprofCaptureFrameType types[] = { SYSPROF_CAPTURE_FRAME_MARK, SYSPROF_CAPTURE_FRAME_LOG };
  static const int32_t                 pids[] = { PID + 1 };
  unsigned int                         counters[] = { counter_base + 1 };
  SysprofCaptureCondition             *copy;
  SysprofCaptureCursor                *cursor;
  unsigned int                         n = 0;

  run_cursor (reader, "all", NULL);
  run_cursor (reader, "types", sysprof_capture_condition_new_where_type_in (2, types));
  run_cursor (reader, "time", sysprof_capture_condition_new_where_time_between (T0 + 4, T0 + 9));
  run_cursor (reader, "pid", sysprof_capture_condition_new_where_pid_in (1, pids));
  run_cursor (reader, "counter", sysprof_capture_condition_new_where_counter_in (1, counters));
  run_cursor (reader, "file", sysprof_capture_condition_new_where_file ("/proc/version"));
  run_cursor (reader, "and",
              sysprof_capture_condition_new_and (sysprof_capture_condition_new_where_type_in (2, types),
                                                 sysprof_capture_condition_new_where_time_between (T0, T0 + 10)));
  run_cursor (reader, "or",
              sysprof_capture_condition_new_or (sysprof_capture_condition_new_where_pid_in (1, pids),
                                                sysprof_capture_condition_new_where_file ("/big")));
  {
    SysprofCaptureCondition *original = sysprof_capture_condition_new_where_type_in (2, types);

    copy = sysprof_capture_condition_copy (original);
    sysprof_capture_condition_unref (original);
  }
  CHECK (sysprof_capture_condition_ref (copy) == copy);
  sysprof_capture_condition_unref (copy);
  run_cursor (reader, "copy", copy);
  {
    SysprofCaptureFrame      frame = { 0 };
    SysprofCaptureCondition *c = sysprof_capture_condition_new_where_time_between (10, 20);

    frame.type = SYSPROF_CAPTURE_FRAME_MARK;
    frame.time = 15;
    CHECK (sysprof_capture_condition_match (c, &frame));
    frame.time = 21;
    CHECK (!sysprof_capture_condition_match (c, &frame));
    sysprof_capture_condition_unref (c);
  }

  /* The callback stops the walk by returning false. */
  cursor = sysprof_capture_cursor_new (reader);
  sysprof_capture_cursor_foreach (cursor, stop_cb, &n);
  CHECK (n == 3);
  sysprof_capture_cursor_reverse (cursor);
  sysprof_capture_cursor_unref (cursor);
  printf ("cursor ok\n");
}

/* ------------------------------------------------------------------------ */

static void
test_errors (void)
{
  int fd;

  errno = 0;
  CHECK (sysprof_capture_reader_new (path_of ("missing.syscap")) == NULL && errno == ENOENT);
  fd = open (path_of ("garbage.syscap"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  CHECK (fd >= 0);
  {
    char garbage[512];
    memset (garbage, 0x5a, sizeof garbage);
    CHECK (write (fd, garbage, sizeof garbage) == (ssize_t) sizeof garbage);
  }
  close (fd);
  errno = 0;
  CHECK (sysprof_capture_reader_new (path_of ("garbage.syscap")) == NULL);
  printf ("garbage: errno %s\n", errno == EBADMSG ? "EBADMSG" : "other");
  CHECK (sysprof_capture_writer_new (path_of ("no/such/dir.syscap"), 0) == NULL);
  printf ("errors ok\n");
}

#if SYSPROF_CHECK_VERSION(45, 0, 0)
/* What Sysprof 45 added: TRACE and D-Bus frames, maps with build ids. */
static void
test_45 (void)
{
  static const SysprofCaptureAddress stack[] = { 0x401000, 0x402000 };
  static const uint8_t               message[] = { 'l', 1, 0, 1, 0, 0, 0, 0 };
  SysprofCaptureWriter              *writer = sysprof_capture_writer_new (path_of ("45.syscap"), 0);
  SysprofCaptureReader              *reader;
  const SysprofCaptureTrace         *trace;
  const SysprofCaptureDBusMessage   *dbus;
  const SysprofCaptureMap           *map;

  printf ("--- 45\n");
  CHECK (writer != NULL);
  CHECK (sysprof_capture_writer_add_map_with_build_id (writer, T0, 0, PID, 0x400000, 0x500000, 0, 7, "/usr/bin/app",
                                                       "0123abcd"));
  CHECK (sysprof_capture_writer_add_trace (writer, T0 + 1, 0, PID, PID, stack, 2, true));
  CHECK (sysprof_capture_writer_add_trace (writer, T0 + 2, 0, PID, PID, stack, 2, false));
  CHECK (sysprof_capture_writer_add_dbus_message (writer, T0 + 3, 0, PID, SYSPROF_CAPTURE_DBUS_TYPE_SESSION, 0, message,
                                                  sizeof message));
  CHECK (SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE == 1);
  reader = sysprof_capture_writer_create_reader (writer);
  CHECK (reader != NULL);
  map = sysprof_capture_reader_read_map (reader);
  CHECK (map != NULL && strcmp (map->filename, "/usr/bin/app") == 0);
  /* The build id follows the name, after "@". */
  CHECK (strcmp (map->filename + strlen (map->filename) + 1, "@0123abcd") == 0);
  for (int i = 0; i < 2; i++)
    {
      /* Ours stamps these TRACE; upstream's writer stamps them SAMPLE. */
      trace = sysprof_capture_reader_read_trace (reader);
      CHECK (trace != NULL && trace->n_addrs == 2 && trace->addrs[1] == 0x402000);
      printf ("trace entering=%u\n", (unsigned) trace->entering);
    }
  dbus = sysprof_capture_reader_read_dbus_message (reader);
  CHECK (dbus != NULL && dbus->bus_type == SYSPROF_CAPTURE_DBUS_TYPE_SESSION && dbus->message_len == sizeof message);
  CHECK (memcmp (dbus->message, message, sizeof message) == 0);
  printf ("dbus bus=%u len=%u\n", (unsigned) dbus->bus_type, (unsigned) dbus->message_len);
  sysprof_capture_reader_unref (reader);
  sysprof_capture_writer_unref (writer);
}
#endif

static void
test_env (void)
{
  int                   fd = sysprof_memfd_create ("[trace]");
  char                  value[16];
  SysprofCaptureWriter *writer;
  SysprofCaptureReader *reader;

  CHECK (unsetenv ("SYSPROF_TRACE_FD") == 0);
  CHECK (sysprof_capture_writer_new_from_env (0) == NULL);
  snprintf (value, sizeof value, "%d", fd);
  CHECK (setenv ("SYSPROF_TRACE_FD", value, 1) == 0);
  writer = sysprof_capture_writer_new_from_env (0);
  CHECK (writer != NULL);
  CHECK (sysprof_capture_writer_add_mark (writer, T0, 0, PID, 1, "env", "mark", "through the variable"));
  sysprof_capture_writer_unref (writer);
  unsetenv ("SYSPROF_TRACE_FD");
  /* The writer wrote into a duplicate: ours is still open, at its start. */
  reader = sysprof_capture_reader_new_from_fd (fd);
  CHECK (reader != NULL);
  read_all (reader, "from env");
  sysprof_capture_reader_unref (reader);
}

int
main (int argc, char **argv)
{
  SysprofCaptureWriter *writer, *other;
  SysprofCaptureReader *reader;
  SysprofCaptureStat    stat;
  unsigned int          n;
  int                   fd;

  if (argc != 2)
    {
      fprintf (stderr, "usage: capture-api WORKDIR\n");
      return 2;
    }
  workdir = argv[1];
  setvbuf (stdout, NULL, _IOLBF, 0);

  test_version ();
  test_clock ();
  test_address ();
  test_platform ();
  test_errors ();

  writer = sysprof_capture_writer_new (path_of ("main.syscap"), 0);
  CHECK (writer != NULL);
  printf ("default buffer size: %zu pages\n", sysprof_capture_writer_get_buffer_size (writer) / sysprof_getpagesize ());
  CHECK (sysprof_capture_writer_ref (writer) == writer);
  sysprof_capture_writer_unref (writer);
  write_everything (writer);
  sysprof_capture_writer_stat (writer, &stat);
  print_stat ("writer stat", &stat);
  CHECK (sysprof_capture_writer_flush (writer));
  CHECK (sysprof_capture_writer_save_as (writer, path_of ("copy.syscap")));

  /* A reader of what was written so far, from the writer. */
  reader = sysprof_capture_writer_create_reader (writer);
  CHECK (reader != NULL);
  n = read_all (reader, "main");
  test_reader (reader, n);
  sysprof_capture_reader_unref (reader);
  /* A reader of its own: 3.46 frees the file list of a reader twice when
   * a copy of it (a cursor makes one) dies after list_files. */
  reader = sysprof_capture_reader_new (path_of ("copy.syscap"));
  CHECK (reader != NULL);
  test_cursor (reader);
  sysprof_capture_reader_unref (reader);

  /* Splice: the frames of one writer appended to another's. */
  fd = open (path_of ("spliced.syscap"), O_CREAT | O_TRUNC | O_RDWR, 0644);
  CHECK (fd >= 0);
  other = sysprof_capture_writer_new_from_fd (fd, 4 * sysprof_getpagesize ());
  CHECK (other != NULL);
  CHECK (sysprof_capture_writer_get_buffer_size (other) == 4 * sysprof_getpagesize ());
  CHECK (sysprof_capture_writer_add_timestamp (other, T0 - 1, 0, 1));
  CHECK (sysprof_capture_writer_splice (writer, other));
  reader = sysprof_capture_writer_create_reader (other);
  CHECK (reader != NULL);
  printf ("splice: %s\n", read_all (reader, "spliced") == n + 1 ? "all frames" : "frames missing");
  sysprof_capture_reader_unref (reader);
  sysprof_capture_writer_unref (other);

  /* Reader splice into a third writer. */
  reader = sysprof_capture_reader_new (path_of ("copy.syscap"));
  CHECK (reader != NULL);
  other = sysprof_capture_writer_new (path_of ("reader-spliced.syscap"), 0);
  CHECK (sysprof_capture_reader_splice (reader, other));
  sysprof_capture_reader_unref (reader);
  reader = sysprof_capture_writer_create_reader (other);
  printf ("reader splice: %s\n", read_all (reader, "reader-spliced") == n ? "all frames" : "frames missing");
  sysprof_capture_reader_unref (reader);
  sysprof_capture_writer_unref (other);

  /* Cat: every frame written again, JIT addresses and counter ids
   * renumbered for the destination. */
  other = sysprof_capture_writer_new (path_of ("cat.syscap"), 0);
  CHECK (other != NULL);
  CHECK (sysprof_capture_writer_request_counter (other, 5) == 1);
  CHECK (sysprof_capture_writer_add_jitmap (other, "js:first (other.js:1)") != 0);
  reader = sysprof_capture_reader_new (path_of ("copy.syscap"));
  CHECK (reader != NULL);
  CHECK (sysprof_capture_writer_cat (other, reader));
  sysprof_capture_reader_unref (reader);
  reader = sysprof_capture_writer_create_reader (other);
  counter_base = 6; /* after the 5 requested above */
  read_all (reader, "cat");
  sysprof_capture_reader_unref (reader);
  sysprof_capture_writer_unref (other);

  sysprof_capture_writer_unref (writer);
  test_env ();
#if SYSPROF_CHECK_VERSION(45, 0, 0)
  test_45 ();
#endif
  printf ("done\n");
  return 0;
}
