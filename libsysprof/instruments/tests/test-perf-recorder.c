// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofPerfRecorder against the real kernel: records while a child process
 * (this binary run with --spin) burns CPU, then reads the capture back.
 * Recording needs root and a working perf_event_open; those tests skip
 * otherwise. */
#include <dirent.h>
#include <stdio.h>
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-instruments.h"

/* Below this, an address is a user-space one on x86-64 and arm64. */
#define USER_ADDRESS_LIMIT G_GUINT64_CONSTANT (0x0000800000000000)

static G_GNUC_NO_INLINE guint64
spin_step (guint64 v)
{
  for (guint i = 0; i < 1000; i++)
    v = v * 6364136223846793005u + 1442695040888963407u;
  return v;
}

/* The child: burn CPU in user space for @ms milliseconds. */
static int
spin (int ms)
{
  gint64  end = g_get_monotonic_time () + (gint64) ms * 1000;
  guint64 v = 1;

  while (g_get_monotonic_time () < end)
    v = spin_step (v);
  return v == 0 ? 1 : 0;
}

/* The same work in a chain built without frame pointers (nofp-spin.c). */
int test_perf_recorder_nofp_spin (int ms);

static gboolean
can_record (void)
{
  struct perf_event_attr attr = { 0 };
  int                    fd;

  if (geteuid () != 0)
    {
      g_test_skip ("Recording needs root");
      return FALSE;
    }
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.disabled = 1;
  fd = (int) syscall (SYS_perf_event_open, &attr, -1, 0, -1, (unsigned long) PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    {
      g_autofree char *msg = g_strdup_printf ("perf_event_open is not possible here: %s", g_strerror (errno));

      g_test_skip (msg);
      return FALSE;
    }
  close (fd);
  return TRUE;
}

/* Perf event fds this process holds. */
static guint
count_perf_fds (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;
  guint       n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_strdup_printf ("/proc/self/fd/%s", name);
      g_autofree char *target = g_file_read_link (path, NULL);

      if (target != NULL && strstr (target, "perf_event") != NULL)
        n++;
    }
  return n;
}

static GPid
spawn_process (const char *how, int ms)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", &error);
  g_autofree char *ms_str = g_strdup_printf ("%d", ms);
  char            *argv[] = { self_exe, (char *) how, ms_str, NULL };
  GPid             pid = 0;

  g_assert_no_error (error);
  g_spawn_async (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pid, >, 0);
  return pid;
}

static GPid
spawn_spinner (int ms)
{
  return spawn_process ("--spin", ms);
}

static void
wait_child (GPid pid)
{
  int status = 0;

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

static void
run_main_loop (guint ms)
{
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  g_timeout_add (ms, quit_cb, loop);
  g_main_loop_run (loop);
}

static SysprofCaptureWriter *
new_temp_writer (char **path)
{
  g_autoptr (GError) error = NULL;
  int                   fd = g_file_open_tmp ("test-perf-recorder-XXXXXX.syscap", path, &error);
  SysprofCaptureWriter *writer;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (writer);
  return writer;
}

typedef struct
{
  gint64 begin;
  gint64 end;
  GPid   child;

  guint n_samples;
  guint n_with_chain;
  guint n_with_kernel;
  guint n_with_user;
  guint n_child_samples;
  guint n_other_samples;
  guint n_out_of_window;
  guint n_frames;
  guint n_child_process;
  guint n_child_maps;
  guint n_child_fork;
  guint n_child_exit;
  char *unwind;
} Scan;

static void
scan_capture (const char *path, Scan *scan)
{
  SysprofCaptureReader   *reader = sysprof_capture_reader_new (path);
  SysprofCaptureFrameType type;

  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      switch ((int) type)
        {
        case SYSPROF_CAPTURE_FRAME_SAMPLE:
          {
            const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (reader);
            gboolean                    kernel = FALSE, user = FALSE;

            g_assert_nonnull (s);
            g_assert_cmpuint (s->n_addrs, >=, 1);
            scan->n_samples++;
            if (s->n_addrs >= 2)
              scan->n_with_chain++;
            for (guint i = 0; i < s->n_addrs; i++)
              {
                if (s->addrs[i] == SYSPROF_CAPTURE_ADDRESS_KERNEL)
                  kernel = TRUE;
                else if (s->addrs[i] != 0 && s->addrs[i] < USER_ADDRESS_LIMIT)
                  user = TRUE;
              }
            scan->n_with_kernel += kernel;
            scan->n_with_user += user;
            if (s->frame.time < scan->begin || s->frame.time > scan->end)
              scan->n_out_of_window++;
            if (s->frame.pid == scan->child)
              scan->n_child_samples++;
            else
              scan->n_other_samples++;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_PROCESS:
          {
            const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (reader);

            g_assert_nonnull (p);
            /* The comm of an exec'ed "test-perf-recorder", cut to 15 bytes. */
            if (p->frame.pid == scan->child && g_str_has_prefix (p->cmdline, "test-perf-rec"))
              scan->n_child_process++;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_MAP:
          {
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (reader);

            g_assert_nonnull (m);
            g_assert_cmphex (m->end, >, m->start);
            if (m->frame.pid == scan->child)
              scan->n_child_maps++;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_FORK:
          {
            const SysprofCaptureFork *f = sysprof_capture_reader_read_fork (reader);

            g_assert_nonnull (f);
            if (f->child_pid == scan->child)
              {
                g_assert_cmpint (f->frame.pid, ==, getpid ());
                scan->n_child_fork++;
              }
            break;
          }
        case SYSPROF_CAPTURE_FRAME_EXIT:
          {
            const SysprofCaptureExit *e = sysprof_capture_reader_read_exit (reader);

            g_assert_nonnull (e);
            if (e->frame.pid == scan->child)
              scan->n_child_exit++;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
          {
            const SysprofCaptureFileChunk *f = sysprof_capture_reader_read_file (reader);

            /* The mountinfo of a process of another mount namespace that
             * mapped a file meanwhile (whatever else runs on the machine). */
            g_assert_nonnull (f);
            g_assert_true (g_str_has_suffix (f->path, "/mountinfo"));
            break;
          }
        case SYSPROF_CAPTURE_FRAME_METADATA:
          {
            const SysprofCaptureMetadata *m = sysprof_capture_reader_read_metadata (reader);

            /* Written once, at stop. */
            g_assert_nonnull (m);
            g_assert_cmpstr (m->id, ==, SYSPROF_UNWIND_METADATA_ID);
            g_assert_null (scan->unwind);
            scan->unwind = g_strdup (m->metadata);
            break;
          }
        default:
          /* The recorder writes nothing else. */
          g_assert_not_reached ();
        }
      scan->n_frames++;
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);
  sysprof_capture_reader_unref (reader);
}

static void
test_whole_system (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer;
  Scan                       scan = { 0 };
  guint64                    streamed;

  if (!can_record ())
    return;

  writer = new_temp_writer (&path);
  recorder = sysprof_perf_recorder_new (writer);

  /* Frame pointers: the kernel's callchains as they are (see test_dwarf). */
  options.unwind = SYSPROF_PERF_UNWIND_FRAME_POINTERS;
  scan.begin = sysprof_clock_get_current_time ();
  g_assert_true (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_perf_recorder_is_running (recorder));
  g_assert_nonnull (sysprof_perf_recorder_get_event_name (recorder));
  g_assert_cmpuint (count_perf_fds (), >, 0);

  /* Spawned after start: its fork, exec (COMM, MMAP) and exit are recorded. */
  scan.child = spawn_spinner (700);
  run_main_loop (1000);
  /* The sources drained while the loop ran, before any stop. */
  streamed = sysprof_perf_recorder_get_n_frames (recorder);
  g_assert_cmpuint (streamed, >, 0);

  sysprof_perf_recorder_stop (recorder);
  scan.end = sysprof_clock_get_current_time ();
  g_assert_false (sysprof_perf_recorder_is_running (recorder));
  wait_child (scan.child);

  g_assert_cmpuint (sysprof_perf_recorder_get_n_write_errors (recorder), ==, 0);
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  scan_capture (path, &scan);
  g_unlink (path);

  g_test_message ("event %s: %u frames (%" G_GUINT64_FORMAT " streamed before stop), %u samples "
                  "(%u of the child, %u with a callchain, %u with kernel and %u with user addresses), "
                  "%" G_GUINT64_FORMAT " lost",
                  sysprof_perf_recorder_get_event_name (recorder), scan.n_frames, streamed, scan.n_samples,
                  scan.n_child_samples, scan.n_with_chain, scan.n_with_kernel, scan.n_with_user,
                  sysprof_perf_recorder_get_n_lost (recorder));

  g_assert_cmpuint (scan.n_frames, ==, sysprof_perf_recorder_get_n_frames (recorder));
  g_assert_cmpuint (scan.n_samples, ==, sysprof_perf_recorder_get_n_samples (recorder));
  /* ~700 expected at 997 Hz; allow for a loaded machine. */
  g_assert_cmpuint (scan.n_child_samples, >=, 50);
  g_assert_cmpuint (scan.n_with_chain * 2, >, scan.n_samples);
  g_assert_cmpuint (scan.n_with_kernel, >, 0);
  g_assert_cmpuint (scan.n_with_user, >, 0);
  g_assert_cmpuint (scan.n_out_of_window, ==, 0);
  g_assert_cmpuint (scan.n_child_process, >=, 1);
  g_assert_cmpuint (scan.n_child_maps, >=, 1);
  g_assert_cmpuint (scan.n_child_fork, ==, 1);
  g_assert_cmpuint (scan.n_child_exit, ==, 1);

  g_assert_cmpstr (scan.unwind, ==, "method=frame-pointers");
  g_free (scan.unwind);

  /* Every perf fd is closed again. */
  g_assert_cmpuint (count_perf_fds (), ==, 0);
}

/* DWARF unwinding, through the helper of the build tree: the child spins in
 * code without frame pointers.  @data: TRUE to record it by pid (running
 * before the start: its mappings come from /proc), FALSE whole-system with
 * the child started during the recording (from its MMAP records). */
int main (int argc, char *argv[]);

/* Recording as root, with the helper of the build tree: @options set for
 * DWARF unwinding through it, or FALSE (and the test skipped). */
static gboolean
can_unwind (SysprofPerfRecorderOptions *options)
{
  const char *unwinder = g_getenv ("SYSPROF_TEST_UNWINDER");

  if (!can_record ())
    return FALSE;
  /* meson test sets it; run by hand, say where the helper is. */
  if (unwinder == NULL)
    {
      g_test_skip ("SYSPROF_TEST_UNWINDER (the built sysprof-unwinder) is not set");
      return FALSE;
    }
  options->unwind = SYSPROF_PERF_UNWIND_DWARF;
  options->unwinder_path = unwinder;
  return TRUE;
}

typedef struct
{
  GPid    child;
  guint64 exe_base; /* the child's load address of this binary */
  guint64 exe_start, exe_end;
  GArray *child_maps; /* guint64 pairs: executable mappings of the child */
  guint   n_child_samples;
  guint   n_deep;       /* samples with the whole chain */
  guint   n_reach_main; /* samples with a frame in main */
  guint   n_outside;    /* samples with user frames outside the child's mappings */
  char   *unwind;
} DwarfScan;

static gboolean
in_child_maps (DwarfScan *scan, guint64 addr)
{
  for (guint i = 0; i + 1 < scan->child_maps->len; i += 2)
    if (addr >= g_array_index (scan->child_maps, guint64, i) && addr < g_array_index (scan->child_maps, guint64, i + 1))
      return TRUE;
  return FALSE;
}

static void read_child_maps_once (DwarfScan *scan);

/* The child's executable mappings, while it runs: where its copy of this
 * binary lies.  On a loaded machine (the suites run in parallel) it may not
 * have finished its exec yet: read again until it has, for up to 10 s. */
static void
read_child_maps (DwarfScan *scan)
{
  for (guint i = 0; i < 200; i++)
    {
      g_clear_pointer (&scan->child_maps, g_array_unref);
      scan->exe_base = 0;
      read_child_maps_once (scan);
      if (scan->exe_base != 0)
        return;
      g_usleep (50 * 1000);
    }
}

static void
read_child_maps_once (DwarfScan *scan)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *path = g_strdup_printf ("/proc/%d/maps", scan->child);
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &maps, NULL, NULL));
  scan->child_maps = g_array_new (FALSE, FALSE, sizeof (guint64));
  lines = g_strsplit (maps, "\n", 0);
  for (guint i = 0; lines[i]; i++)
    {
      guint64 start, end, pgoff;
      char    perms[5], file[4096] = "";

      if (sscanf (lines[i],
                  "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %4s %" G_GINT64_MODIFIER "x %*s %*s %4095s", &start,
                  &end, perms, &pgoff, file) < 4 ||
          perms[2] != 'x')
        continue;
      g_array_append_val (scan->child_maps, start);
      g_array_append_val (scan->child_maps, end);
      if (g_strcmp0 (file, exe) == 0 && scan->exe_base == 0)
        scan->exe_base = start - pgoff;
    }
}

static void
scan_dwarf_capture (const char *path, DwarfScan *scan)
{
  SysprofCaptureReader   *reader = sysprof_capture_reader_new (path);
  Dl_info                 info;
  guint64                 main_off, main_end_off;
  SysprofCaptureFrameType type;

  /* main's offset in this binary, the same in the child; it is short. */
  g_assert_cmpint (dladdr ((gpointer) main, &info), !=, 0);
  main_off = (guint64) (guintptr) main - (guint64) (guintptr) info.dli_fbase;
  main_end_off = main_off + 0x400;

  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_METADATA)
        {
          const SysprofCaptureMetadata *m = sysprof_capture_reader_read_metadata (reader);

          if (g_strcmp0 (m->id, SYSPROF_UNWIND_METADATA_ID) == 0)
            scan->unwind = g_strdup (m->metadata);
        }
      else
        g_assert_true (sysprof_capture_reader_skip (reader));
    }
  g_assert_cmphex (scan->exe_base, !=, 0);
  sysprof_capture_reader_unref (reader);
  reader = sysprof_capture_reader_new (path);

  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureSample *s;
      gboolean                    user = FALSE, main_seen = FALSE, outside = FALSE;
      guint                       n_user = 0;

      if (type != SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          g_assert_true (sysprof_capture_reader_skip (reader));
          continue;
        }
      s = sysprof_capture_reader_read_sample (reader);
      if (s->frame.pid != scan->child)
        continue;
      scan->n_child_samples++;
      for (guint i = 0; i < s->n_addrs; i++)
        {
          guint64 a = s->addrs[i];

          if (a == SYSPROF_CAPTURE_ADDRESS_USER)
            {
              user = TRUE;
              continue;
            }
          if (!user || a >= USER_ADDRESS_LIMIT)
            continue;
          n_user++;
          outside |= !in_child_maps (scan, a);
          if (a - 1 >= scan->exe_base + main_off && a - 1 < scan->exe_base + main_end_off)
            main_seen = TRUE;
        }
      /* leaf, middle x4, spin, main, and libc's way to main. */
      scan->n_deep += n_user >= 9;
      scan->n_reach_main += main_seen;
      scan->n_outside += outside;
    }
  g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);
  sysprof_capture_reader_unref (reader);
}

static void
test_dwarf (gconstpointer data)
{
  gboolean by_pid = GPOINTER_TO_INT (data);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer;
  DwarfScan                  scan = { 0 };
  int                        pid;

  if (!can_unwind (&options))
    return;
  if (by_pid)
    {
      scan.child = spawn_process ("--spin-nofp", 1500);
      pid = scan.child;
      options.pids = &pid;
      options.n_pids = 1;
      /* Let it reach its loop: its mappings are read from /proc. */
      g_usleep (200 * 1000);
    }
  writer = new_temp_writer (&path);
  recorder = sysprof_perf_recorder_new (writer);
  g_assert_true (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_no_error (error);
  g_assert_null (sysprof_perf_recorder_get_unwind_warning (recorder));
  if (!by_pid)
    scan.child = spawn_process ("--spin-nofp", 800);
  run_main_loop (400);
  read_child_maps (&scan);
  run_main_loop (600);
  sysprof_perf_recorder_stop (recorder);
  wait_child (scan.child);
  /* Whole-system, the helper reads every program's files: one may make
   * it stop (it is then restarted, and says so).  Our child is ours. */
  if (by_pid)
    g_assert_cmpstr (sysprof_perf_recorder_get_unwind_warning (recorder), ==, NULL);
  else if (sysprof_perf_recorder_get_unwind_warning (recorder) != NULL)
    {
      g_test_message ("%s", sysprof_perf_recorder_get_unwind_warning (recorder));
      g_assert_nonnull (strstr (sysprof_perf_recorder_get_unwind_warning (recorder), "restarted"));
    }
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  scan_dwarf_capture (path, &scan);
  g_unlink (path);
  g_test_message ("%u samples of the child: %u with the whole chain, %u reaching main, %u with user frames outside "
                  "its mappings; %s",
                  scan.n_child_samples, scan.n_deep, scan.n_reach_main, scan.n_outside, scan.unwind);
  g_assert_cmpstr (scan.unwind, ==, sysprof_perf_recorder_get_unwind_summary (recorder));
  g_assert_true (g_str_has_prefix (scan.unwind, "method=dwarf stack-size=8192 samples="));
  g_assert_cmpuint (scan.n_child_samples, >=, 50);
  /* Samples of the start (the dynamic loader, before main) and in the
   * clock's vDSO code aside, every stack leads to main. */
  g_assert_cmpuint (scan.n_reach_main * 100, >=, scan.n_child_samples * 95);
  g_assert_cmpuint (scan.n_deep * 100, >=, scan.n_child_samples * 80);
  /* Between fork and exec the child still runs our image, at our
   * addresses: a sample there is true, but not in the maps read later. */
  g_assert_cmpuint (scan.n_outside * 100, <=, scan.n_child_samples);
  g_array_unref (scan.child_maps);
  g_free (scan.unwind);
}

/* How long the recorder waits for a helper that does not answer
 * (SYSPROF_UNWIND_CLIENT_TIMEOUT_MS). */
#define HELPER_TIMEOUT_MS 5000

/* Our children named sysprof-unwinder. */
static GArray *
find_helpers (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc", 0, NULL);
  GArray     *pids = g_array_new (FALSE, FALSE, sizeof (int));
  const char *name;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%s/stat", name);
      g_autofree char *stat = NULL;
      int              pid, ppid;
      char             comm[64];

      if (!g_file_get_contents (path, &stat, NULL, NULL) ||
          sscanf (stat, "%d (%63[^)]) %*c %d", &pid, comm, &ppid) != 3)
        continue;
      if (ppid == getpid () && strcmp (comm, "sysprof-unwinde") == 0)
        g_array_append_val (pids, pid);
    }
  return pids;
}

/* A helper killed while recording (as a crash on a hostile file would end
 * it) is replaced: the stacks after that are unwound again, and the
 * recording says what happened. */
static void
test_dwarf_helper_killed (gconstpointer data)
{
  int sig = GPOINTER_TO_INT (data);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  g_autoptr (GArray) helpers = NULL;
  g_autoptr (GArray) after = NULL;
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer;
  DwarfScan                  scan = { 0 };
  int                        pid;

  if (!can_unwind (&options))
    return;
  scan.child = spawn_process ("--spin-nofp", sig == SIGSTOP ? 9000 : 2000);
  pid = scan.child;
  options.pids = &pid;
  options.n_pids = 1;
  g_usleep (200 * 1000);
  writer = new_temp_writer (&path);
  recorder = sysprof_perf_recorder_new (writer);
  g_assert_true (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_no_error (error);
  run_main_loop (300);
  read_child_maps (&scan);
  helpers = find_helpers ();
  g_assert_cmpuint (helpers->len, ==, 1);
  /* SIGKILL: as a crash would end it; SIGSTOP: as an endless loop in a
   * hostile file's CFI would hang it (then it is killed after the timeout). */
  g_assert_cmpint (kill (g_array_index (helpers, int, 0), sig), ==, 0);
  run_main_loop (sig == SIGSTOP ? 1000 + HELPER_TIMEOUT_MS : 1000);
  after = find_helpers ();
  g_assert_cmpuint (after->len, ==, 1);
  g_assert_cmpint (g_array_index (after, int, 0), !=, g_array_index (helpers, int, 0));
  sysprof_perf_recorder_stop (recorder);
  wait_child (scan.child);
  g_test_message ("%s", sysprof_perf_recorder_get_unwind_warning (recorder));
  g_assert_nonnull (strstr (sysprof_perf_recorder_get_unwind_warning (recorder), "restarted 1 time"));
  if (sig == SIGKILL)
    g_assert_nonnull (strstr (sysprof_perf_recorder_get_unwind_warning (recorder), "signal 9"));
  else
    g_assert_nonnull (strstr (sysprof_perf_recorder_get_unwind_warning (recorder), "did not answer within"));
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  scan_dwarf_capture (path, &scan);
  g_unlink (path);
  g_test_message ("%u samples: %u reaching main; %s", scan.n_child_samples, scan.n_reach_main, scan.unwind);
  /* Only what the killed helper had in hand is lost. */
  g_assert_cmpuint (scan.n_reach_main * 100, >=, scan.n_child_samples * 90);
  g_array_unref (scan.child_maps);
  g_free (scan.unwind);
}

/* Without its helper: the default falls back to frame pointers and says
 * so; DWARF asked for by name is an error. */
static void
test_dwarf_without_helper (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer;

  if (!can_record ())
    return;
  writer = sysprof_capture_writer_new ("/dev/null", 0);
  recorder = sysprof_perf_recorder_new (writer);
  options.unwinder_path = "/nonexistent/sysprof-unwinder";
  options.unwind = SYSPROF_PERF_UNWIND_DWARF;
  g_assert_false (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent/sysprof-unwinder"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_cmpuint (count_perf_fds (), ==, 0);

  options.unwind = SYSPROF_PERF_UNWIND_DEFAULT;
  g_assert_true (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (sysprof_perf_recorder_get_unwind_warning (recorder), "frame pointers"));
  sysprof_perf_recorder_stop (recorder);
  g_assert_cmpstr (sysprof_perf_recorder_get_unwind_summary (recorder), ==, "method=frame-pointers");
  sysprof_capture_writer_unref (writer);

  /* A stack size perf refuses. */
  writer = sysprof_capture_writer_new ("/dev/null", 0);
  g_clear_object (&recorder);
  recorder = sysprof_perf_recorder_new (writer);
  sysprof_capture_writer_unref (writer);
  options.stack_size = 100;
  g_assert_false (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static void
test_pids (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer;
  Scan                       scan = { 0 };
  int                        pid;

  if (!can_record ())
    return;

  /* Already running when recording starts: only its samples are recorded. */
  scan.child = spawn_spinner (1200);
  pid = scan.child;
  options.pids = &pid;
  options.n_pids = 1;
  options.frequency_hz = 499;

  writer = new_temp_writer (&path);
  recorder = sysprof_perf_recorder_new (writer);
  scan.begin = sysprof_clock_get_current_time ();
  g_assert_true (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_no_error (error);
  /* One event per thread and CPU, sharing one ring per CPU. */
  g_assert_cmpuint (count_perf_fds (), >=, 1);
  run_main_loop (500);
  sysprof_perf_recorder_stop (recorder);
  scan.end = sysprof_clock_get_current_time ();
  g_assert_cmpuint (count_perf_fds (), ==, 0);
  wait_child (scan.child);

  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  scan_capture (path, &scan);
  g_unlink (path);

  g_test_message ("%u samples of pid %d at 499 Hz in 0.5 s", scan.n_samples, pid);
  g_free (scan.unwind);
  g_assert_cmpuint (scan.n_child_samples, >=, 20);
  g_assert_cmpuint (scan.n_other_samples, ==, 0);
  g_assert_cmpuint (scan.n_out_of_window, ==, 0);
}

static void
test_invalid_pid (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  SysprofPerfRecorderOptions options;
  SysprofCaptureWriter      *writer = sysprof_capture_writer_new ("/dev/null", 0);
  int                        pids[] = { getpid (), 0x7fffffff };
  int                        negative = -3;

  sysprof_perf_recorder_options_init (&options);
  recorder = sysprof_perf_recorder_new (writer);
  sysprof_capture_writer_unref (writer);

  options.pids = pids;
  options.n_pids = G_N_ELEMENTS (pids);
  g_assert_false (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "2147483647"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  options.pids = &negative;
  options.n_pids = 1;
  g_assert_false (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_false (sysprof_perf_recorder_is_running (recorder));
  g_assert_null (sysprof_perf_recorder_get_event_name (recorder));
  g_assert_cmpuint (count_perf_fds (), ==, 0);
}

static void
test_invalid_options (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofPerfRecorder) recorder = NULL;
  SysprofPerfRecorderOptions options = SYSPROF_PERF_RECORDER_OPTIONS_INIT;
  SysprofCaptureWriter      *writer = sysprof_capture_writer_new ("/dev/null", 0);

  recorder = sysprof_perf_recorder_new (writer);
  sysprof_capture_writer_unref (writer);

  options.frequency_hz = SYSPROF_PERF_RECORDER_MAX_FREQUENCY + 1;
  g_assert_false (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  options.frequency_hz = 0;
  options.n_data_pages = 3;
  g_assert_false (sysprof_perf_recorder_start (recorder, &options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* An options struct without its size is a programmer error. */
  if (g_test_undefined ())
    {
      SysprofPerfRecorderOptions unsized = { 0 };

      g_test_expect_message ("libsysprof", G_LOG_LEVEL_CRITICAL, "*options->size*");
      g_assert_false (sysprof_perf_recorder_start (recorder, &unsized, &error));
      g_test_assert_expected_messages ();
      g_assert_no_error (error);
    }

  g_assert_false (sysprof_perf_recorder_is_running (recorder));
}

static void
test_permission_denied (void)
{
  g_autofree char *paranoid = NULL;

  if (geteuid () != 0)
    {
      g_test_skip ("Needs root, to become an unprivileged user");
      return;
    }
  /* Unprivileged system-wide sampling is refused from paranoid level 1 on. */
  if (!g_file_get_contents ("/proc/sys/kernel/perf_event_paranoid", &paranoid, NULL, NULL) || atoi (paranoid) < 1)
    {
      g_test_skip ("kernel.perf_event_paranoid lets unprivileged users sample the system");
      return;
    }

  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SysprofPerfRecorder) recorder = NULL;
      SysprofCaptureWriter *writer = sysprof_capture_writer_new ("/dev/null", 0);

      recorder = sysprof_perf_recorder_new (writer);
      sysprof_capture_writer_unref (writer);
      /* nobody: dropping root clears the capabilities too. */
      g_assert_cmpint (setgroups (0, NULL), ==, 0);
      g_assert_cmpint (setgid (65534), ==, 0);
      g_assert_cmpint (setuid (65534), ==, 0);

      g_assert_false (sysprof_perf_recorder_start (recorder, NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_assert_nonnull (strstr (error->message, "perf_event_paranoid"));
      g_test_message ("%s", error->message);
      g_assert_cmpuint (count_perf_fds (), ==, 0);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char *argv[])
{
  if (argc == 3 && strcmp (argv[1], "--spin") == 0)
    return spin (atoi (argv[2]));
  if (argc == 3 && strcmp (argv[1], "--spin-nofp") == 0)
    return test_perf_recorder_nofp_spin (atoi (argv[2]));

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sysprof/PerfRecorder/whole-system", test_whole_system);
  g_test_add_func ("/Sysprof/PerfRecorder/pids", test_pids);
  g_test_add_data_func ("/Sysprof/PerfRecorder/dwarf/pid", GINT_TO_POINTER (TRUE), test_dwarf);
  g_test_add_data_func ("/Sysprof/PerfRecorder/dwarf/whole-system", GINT_TO_POINTER (FALSE), test_dwarf);
  g_test_add_func ("/Sysprof/PerfRecorder/dwarf/without-helper", test_dwarf_without_helper);
  g_test_add_data_func ("/Sysprof/PerfRecorder/dwarf/helper-killed", GINT_TO_POINTER (SIGKILL),
                        test_dwarf_helper_killed);
  g_test_add_data_func ("/Sysprof/PerfRecorder/dwarf/helper-hung", GINT_TO_POINTER (SIGSTOP), test_dwarf_helper_killed);
  g_test_add_func ("/Sysprof/PerfRecorder/invalid-pid", test_invalid_pid);
  g_test_add_func ("/Sysprof/PerfRecorder/invalid-options", test_invalid_options);
  g_test_add_func ("/Sysprof/PerfRecorder/permission-denied", test_permission_denied);
  return g_test_run ();
}
