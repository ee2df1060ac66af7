// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-cli: record a profile into a capture file, through sysprofd. */

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>
#include <sysprof.h>

#include "cli-continuous.h"

#define DEFAULT_CAPTURE "capture.syscap"

static const char description[] =
    "Recording:\n"
    "  The capture file is created by sysprof-cli itself, as the user running it, and\n"
    "  handed to sysprofd, the system profiling service (org.gnome.Sysprof3 on the\n"
    "  system bus), which samples the stacks of every process with perf, records\n"
    "  the processes and their memory maps, and the CPU, memory, disk and network\n"
    "  counters.  polkit decides who may do this (action org.gnome.sysprof3.profile).\n"
    "  Run as root while sysprofd is not running, sysprof-cli records in-process\n"
    "  instead, and says so.\n"
    "\n"
    "  Recording stops on Ctrl-C or SIGTERM, when the command exits, or after\n"
    "  --duration.  The capture is then finalized, and a table of the function\n"
    "  names of every sampled address is appended (unless --no-decode), so the\n"
    "  capture reads the same on another machine.  A second Ctrl-C while that\n"
    "  table is built skips it; the capture is kept.  Names come from the\n"
    "  binaries, their debug files (by build-id under /usr/lib/debug, or debug\n"
    "  link), and last from the debuginfod servers of $DEBUGINFOD_URLS, when set;\n"
    "  the file being fetched is shown on a terminal, and a warning names the\n"
    "  files that stayed without debug info, and why.\n"
    "\n"
    "  A command (-c or after --) runs as the user, with the user's environment\n"
    "  plus --env variables, and starts only once recording has started, so its\n"
    "  start-up is sampled.  The whole system is recorded unless --pid is given;\n"
    "  then the command is recorded along with those processes.  If recording\n"
    "  cannot start, the command does not run; when recording ends first, the\n"
    "  command is terminated.\n"
    "\n"
    "Marks and logs of programs:\n"
    "  The command gets $SYSPROF_CONTROL_FD, the channel of libsysprof-capture's\n"
    "  collector: programs built with it (GTK 4 and GLib do) then ask for ring\n"
    "  buffers and send their marks (GTK's frame clock, layout and snapshot\n"
    "  phases, group \"gtk\"), logs, counters and samples, which are drained into\n"
    "  the capture like the memory tracker's events (checked frame by frame;\n"
    "  what is lost is counted).  The processes the command starts inherit the\n"
    "  variable.  Other processes cannot take part: a process already running,\n"
    "  whether named by --pid or recorded with the whole system, was never handed\n"
    "  the descriptor, so only its samples and its memory maps reach the capture.\n"
    "\n"
    "  --use-trace-fd hands the command $SYSPROF_TRACE_FD as well: a memory file\n"
    "  into which it may write a whole capture of its own (libsysprof-capture's\n"
    "  sysprof_capture_writer_new_from_env does); --gjs hands it $GJS_TRACE_FD\n"
    "  with GJS_ENABLE_PROFILER=1, where a GJS built with its profiler writes its\n"
    "  JavaScript stacks (Debian 12's gjs is built without it and says \"Profiler\n"
    "  is disabled\").  Once the command has exited, that capture is checked\n"
    "  frame by frame and merged (its JIT names and counters numbered anew) before\n"
    "  the symbol table is built; a damaged one is merged up to the damage, with\n"
    "  a warning.  When the recording ends first, sysprof-cli waits for the\n"
    "  terminated command to exit and write it.\n"
    "\n"
    "  --profiler-peer asks a program on the session bus that exports\n"
    "  org.gnome.Sysprof3.Profiler (at PATH, default /org/gnome/Sysprof3/Profiler)\n"
    "  to Start writing a capture into a descriptor when recording starts, and to\n"
    "  Stop when it stops; --gnome-shell does so for gnome-shell (its compositor\n"
    "  frames and JavaScript).  That capture is merged the same way.  A peer that\n"
    "  is not there, refuses or takes more than 5 s to answer gets a warning.\n"
    "\n"
    "Scheduler details (--scheduler):\n"
    "  Every context switch, through the kernel's sched:sched_switch tracepoint,\n"
    "  with the stack of the thread leaving the CPU (unwound like the samples').\n"
    "  The capture gets one mark per time slice a thread held a CPU (group\n"
    "  \"Scheduler\", name \"CPU N\", as Sysprof 48 shows them) and, for each time a\n"
    "  thread waited (sleep, I/O, a lock, a full run queue), its stack weighted by\n"
    "  how long until it ran again: sysprof-report top/tree/flamegraph --off-cpu\n"
    "  and the app's off-CPU views show where threads wait.  Needs the full polkit\n"
    "  grant (every thread's switches are visible) and tracefs mounted; thousands\n"
    "  of switches a second cost a few MB/s of capture, what the rings cannot\n"
    "  hold is counted as lost.\n"
    "D-Bus (--session-bus, --system-bus):\n"
    "  Every message on the bus (method calls, replies, errors, signals, whoever\n"
    "  sends them) is recorded as it passes, with its time: sysprof-cli itself\n"
    "  monitors the session bus (org.freedesktop.DBus.Monitoring.BecomeMonitor,\n"
    "  which the bus allows its own user), sysprofd the system bus (which only\n"
    "  root may monitor; it is refused to recordings of one's own processes,\n"
    "  --pid, since the system bus carries every user's messages).  Each\n"
    "  bus's recording is bounded: a message above 65492 bytes is stored\n"
    "  without its body, and beyond 32 MiB per bus and recording (or when\n"
    "  messages come faster than they are written) messages are only counted.\n"
    "  Both counts are in the capture and, when not zero, in a warning at the\n"
    "  end.  `sysprof-report dbus` lists the messages and the calls' latency.\n"
    "\n"
    "Stacks (--unwind):\n"
    "  Each sample's kernel frames come from the kernel.  Its user frames, by\n"
    "  default (dwarf), from a copy of the thread's registers and of the top\n"
    "  --stack-size bytes of its stack, which a helper of sysprofd unwinds while\n"
    "  recording with the call frame information of the mapped files (.eh_frame),\n"
    "  as `perf record --call-graph dwarf` does, but without storing the copies:\n"
    "  the capture stays as small as with frame pointers and reads the same\n"
    "  everywhere.  This follows code built without frame pointers, which is most\n"
    "  of a Linux distribution.  A stack deeper than the copy ends early (raise\n"
    "  --stack-size; each sample then costs more).  The helper runs without any\n"
    "  privilege.  --unwind fp takes the kernel's frame-pointer walk instead:\n"
    "  cheaper, but through code without frame pointers the stacks end early.\n"
    "  Either way a stack ends at the first address that lies in no executable\n"
    "  mapping of its process.  `sysprof-report top` prints how many stacks were\n"
    "  unwound completely.\n"
    "\n"
    "Memory tracing (--memprof):\n"
    "  The command runs with the allocation tracker libsysprof-memory.so added to\n"
    "  its LD_PRELOAD.  Every malloc, calloc, realloc, free, memalign,\n"
    "  posix_memalign, aligned_alloc, valloc, pvalloc and reallocarray of every\n"
    "  thread is recorded with its stack, the address, the size and the thread;\n"
    "  each thread writes its own shared-memory ring buffer, which sysprofd (or\n"
    "  sysprof-cli itself) drains into the capture.  A thread whose ring is full\n"
    "  waits for it to be drained rather than losing events; events lost anyway\n"
    "  are counted in the capture and shown by sysprof-report.  Processes the\n"
    "  command starts (fork, exec) are traced only with --memprof-children.\n"
    "  Backtraces are unwound with the DWARF unwind tables (libunwind: exact,\n"
    "  through code built without frame pointers, such as most of Debian);\n"
    "  --memprof-unwind fp walks frame pointers instead (about 10x faster per\n"
    "  allocation, but the stack ends at the first code built without them).\n"
    "  --memprof-format says how the events are stored.  stream (the default):\n"
    "  each thread's events in a compact stream (each distinct stack once, then\n"
    "  a few bytes per event, compressed with zstd: about 1 byte per event for a\n"
    "  program that allocates from few places); sysprof-report and the app read\n"
    "  it, and `sysprof-cat --expand-memory` turns it into frames for Sysprof\n"
    "  3.46's app.  frames: one ALLOCATION frame per event with its whole stack\n"
    "  (about 60 bytes each), the form Sysprof 3.46 records itself.\n"
    "  CPU sampling goes on unless --no-perf.  Without sysprofd, allocations are still recorded, by\n"
    "  sysprof-cli, for any user.  Analyse with `sysprof-report memory`.\n"
    "\n"
    "  On a terminal a progress line shows the time recorded, the samples (and with\n"
    "  --memprof the allocation records: allocations and frees), the size of the\n"
    "  capture and the frames lost; otherwise one line is printed when recording\n"
    "  starts and one when it ends.  Messages go to standard error.\n"
    "\n"
    "Continuous profiling (--continuous):\n"
    "  sysprofd samples the whole system at a low rate (19 Hz unless --frequency\n"
    "  says otherwise) and every PERIOD finishes a whole capture and goes on in a\n"
    "  new one without a gap; sysprof-cli stores each in --output-dir, named\n"
    "  after its start (sysprof-YYYYmmddTHHMMSS.uuuuuuZ.syscap, UTC), written\n"
    "  under a temporary name and renamed once complete.  --pprof adds each\n"
    "  period's pprof export beside it (.pb.gz, by sysprof-report export, one at\n"
    "  a time).  --keep-age and --keep-size bound the directory: periods older\n"
    "  than AGE, then the oldest while it holds more than SIZE, are removed (the\n"
    "  newest always stays).  Recording stops on Ctrl-C, SIGTERM or --duration;\n"
    "  the period under way is then finished and stored too.  A killed\n"
    "  sysprof-cli loses the period under way only: start it again over the same\n"
    "  directory and it adds to what is there, making the pprof exports the\n"
    "  killed run did not.  sysprofd holds at most 8 finished periods nobody took\n"
    "  and allows one continuous session per user unless polkit grants\n"
    "  org.gnome.sysprof3.continuous-many.  PERIOD and AGE are seconds, or a\n"
    "  number with s, m, h or d.  The periods' captures get no symbol table (it\n"
    "  would cost a symbolization each): read them on this machine, or their\n"
    "  pprof exports, which name the functions, anywhere.\n"
    "\n"
    "  --push URL sends each pprof export (--pprof is implied) to a Pyroscope\n"
    "  server (or anything that takes Pyroscope's HTTP API: Grafana Alloy's\n"
    "  pyroscope.receive_http...): POST URL/ingest?name=NAME&from=&until=\n"
    "  &format=pprof&sampleRate=HZ&spyName=sysprof, the profile as the\n"
    "  multipart/form-data part \"profile\".  NAME is --push-name (default\n"
    "  sysprof.cpu{hostname=HOST}).  Profiles wait in OUTPUT_DIR/push-queue (at\n"
    "  most 256 and 64 MiB, the oldest dropped beyond) and are sent one at a\n"
    "  time; a failure (no answer within 30 s, 408, 429, 5xx) is retried after\n"
    "  1 s, then twice as long each time up to 5 minutes; a profile refused with\n"
    "  another 4xx is dropped.  Recording never waits for the server, and what\n"
    "  is still queued at the end is sent by the next run.\n"
    "\n"
    "Examples:\n"
    "  Record the whole system until Ctrl-C, into capture.syscap:\n"
    "    sysprof-cli\n"
    "  Ten seconds into x.syscap, replacing it:\n"
    "    sysprof-cli --duration 10 --force x.syscap\n"
    "  While a program runs (the whole system, from its start to its exit):\n"
    "    sysprof-cli app.syscap -- ./app --verbose input.txt\n"
    "  A build, with a variable set:\n"
    "    sysprof-cli -c 'make -j4' -e CFLAGS=-O2 build.syscap\n"
    "  Only process 1234 and the processes it starts, for 30 s, without decoding:\n"
    "    sysprof-cli -p 1234 --duration 30 --no-decode p.syscap\n"
    "  Every allocation of a program, without CPU sampling:\n"
    "    sysprof-cli --memprof --no-perf mem.syscap -- ./app\n"
    "    sysprof-report memory --leaks mem.syscap\n"
    "  Continuously, a capture a minute, a day of them at most, pushed to Pyroscope:\n"
    "    sysprof-cli --continuous 1m --output-dir /var/lib/sysprof --keep-age 1d \\\n"
    "                --push http://pyroscope.example:4040\n"
    "  Two captures into one:\n"
    "    sysprof-cli --merge a.syscap b.syscap > ab.syscap\n"
    "\n"
    "Exit status:\n"
    "  0  the capture was recorded (whatever the command's exit status, which the\n"
    "     summary line reports; a failed symbol table is only a warning)\n"
    "  1  nothing or not everything could be recorded: sysprofd is not running,\n"
    "     polkit refused, the capture exists (without --force) or cannot be\n"
    "     written, the command cannot be run, recording was stopped before it began;\n"
    "     for --merge: an input could not be read or the output written\n"
    "  2  usage error\n"
    "\n"
    "Environment:\n"
    "  DBUS_SYSTEM_BUS_ADDRESS  the system bus to find sysprofd on\n"
    "  SYSPROF_MEMORY_PRELOAD   the allocation tracker to preload with --memprof\n"
    "                           (default: the installed libsysprof-memory.so)\n"
    "  SYSPROF_MEMORY_UNWIND     dwarf (default) or fp: how --memprof unwinds\n"
    "                           (--memprof-unwind overrides it)\n"
    "  SYSPROF_MEMORY_DEPTH      frames kept per allocation, 0-128 (default 64)\n"
    "  SYSPROF_MEMORY_FORMAT     stream (default) or frames: how --memprof stores events\n"
    "                           (--memprof-format overrides it)\n"
    "  SYSPROF_PUSH_TIMEOUT     seconds --push waits for the server's answer (default 30)\n"
    "  SYSPROF_REPORT           the sysprof-report that makes --continuous's pprof exports\n"
    "                           (default: the one beside sysprof-cli, else in $PATH)\n"
    "  DEBUGINFOD_URLS          debuginfod servers asked for missing debug files\n"
    "  DEBUGINFOD_TIMEOUT       seconds without data before a fetch, and the rest,\n"
    "                           are given up (default 10; 6 times that in all)\n"
    "  DEBUGINFOD_CACHE_PATH    where fetched files are kept (libdebuginfod's cache)\n";

/* A unit a number may end with, and what it multiplies by. */
typedef struct
{
  char    suffix;
  guint64 factor;
} Unit;

/* A decimal number, optionally followed by one of @units' suffixes; at most
 * @max once multiplied. */
static gboolean
parse_with_unit (const char *text, const Unit *units, guint n_units, guint64 max, guint64 *value)
{
  char   *end = NULL;
  guint64 v, factor = 1;

  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoull (text, &end, 10);
  if (errno != 0)
    return FALSE;
  for (guint i = 0; i < n_units && *end != 0; i++)
    if (*end == units[i].suffix)
      {
        factor = units[i].factor;
        end++;
        break;
      }
  if (*end != 0 || v > max / factor)
    return FALSE;
  *value = v * factor;
  return TRUE;
}

/* --max-size, --keep-size: bytes, or a number with K, M or G (powers of
 * 1024), from 1 MiB to SYSPROF_RECORDING_MAX_BYTES. */
static gboolean
parse_size (const char *text, guint64 *bytes)
{
  static const Unit units[] = { { 'K', 1024 },        { 'k', 1024 },    { 'M', 1024 * 1024 },
                                { 'm', 1024 * 1024 }, { 'G', 1 << 30 }, { 'g', 1 << 30 } };

  return parse_with_unit (text, units, G_N_ELEMENTS (units), SYSPROF_RECORDING_MAX_BYTES, bytes) &&
         *bytes >= 1024 * 1024;
}

/* --continuous, --keep-age: seconds, or a number with s, m, h or d. */
static gboolean
parse_seconds (const char *text, guint64 *seconds)
{
  static const Unit units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };

  return parse_with_unit (text, units, G_N_ELEMENTS (units), G_MAXUINT32, seconds);
}

typedef struct
{
  SysprofRecording *recording;
  GMainLoop        *loop;
  const char       *capture;
  char            **argv;
  gboolean          tty;
  gboolean          progress_shown; /* a progress line is on the terminal */
  gboolean          memprof;
  int               exit_status;
} Cli;

static int G_GNUC_PRINTF (1, 2) usage_error (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list          args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "sysprof-cli: %s\nTry 'sysprof-cli --help' for more information.\n", message);
  return 2;
}

/* Clears the progress line before a message. */
static void
clear_progress (Cli *cli)
{
  if (cli->progress_shown)
    fputs ("\r\033[K", stderr);
  cli->progress_shown = FALSE;
}

static void G_GNUC_PRINTF (2, 3) say (Cli *cli, const char *format, ...)
{
  va_list args;

  clear_progress (cli);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

/* ", N allocation records" with --memprof, else "". */
static char *
allocation_text (Cli *cli, SysprofRecording *recording, const char *separator)
{
  if (!cli->memprof)
    return g_strdup ("");
  return g_strdup_printf ("%s%" G_GUINT64_FORMAT " allocation records", separator,
                          sysprof_recording_get_n_allocation_records (recording));
}

static char *
format_elapsed (gint64 usec)
{
  gint64 tenths = usec / 100000;

  if (tenths >= 600)
    return g_strdup_printf ("%" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT ".%" G_GINT64_FORMAT, tenths / 600,
                            (tenths / 10) % 60, tenths % 10);
  return g_strdup_printf ("%" G_GINT64_FORMAT ".%" G_GINT64_FORMAT " s", tenths / 10, tenths % 10);
}

/* g_format_size() separates with a no-break space, which a terminal in the
 * C locale shows as garbage. */
static char *
format_size (guint64 bytes)
{
  if (bytes < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  if (bytes < 1000 * 1000)
    return g_strdup_printf ("%.1f kB", (double) bytes / 1e3);
  if (bytes < 1000 * 1000 * 1000)
    return g_strdup_printf ("%.1f MB", (double) bytes / 1e6);
  return g_strdup_printf ("%.1f GB", (double) bytes / 1e9);
}

static void
progress_cb (SysprofRecording *recording, gpointer data)
{
  Cli *cli = data;

  if (!cli->tty)
    return;

  if (sysprof_recording_get_phase (recording) == SYSPROF_RECORDING_PHASE_RECORDING)
    {
      g_autofree char *elapsed = format_elapsed (sysprof_recording_get_elapsed (recording));
      g_autofree char *size = format_size (sysprof_recording_get_n_bytes (recording));

      g_autofree char *allocs = allocation_text (cli, recording, "  ");

      fprintf (stderr, "\r\033[K%s  %" G_GUINT64_FORMAT " samples%s  %s  %" G_GUINT64_FORMAT " lost", elapsed,
               sysprof_recording_get_n_samples (recording), allocs, size, sysprof_recording_get_n_lost (recording));
    }
  else if (sysprof_recording_get_phase (recording) == SYSPROF_RECORDING_PHASE_DECODING)
    {
      guint64          done, total;
      g_autofree char *fetching = sysprof_recording_dup_fetch_progress (recording, &done, &total);

      if (fetching != NULL)
        {
          g_autofree char *base = g_path_get_basename (fetching);
          g_autofree char *got = format_size (done);
          g_autofree char *size = format_size (total);

          if (total > 0)
            fprintf (stderr, "\r\033[KFetching the debug info of %s from debuginfod: %s of %s", base, got, size);
          else
            fprintf (stderr, "\r\033[KFetching the debug info of %s from debuginfod...", base);
          cli->progress_shown = TRUE;
          return;
        }
      sysprof_recording_get_decode_progress (recording, &done, &total);
      if (total == 0)
        return;
      fprintf (stderr, "\r\033[KDecoding symbols: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " addresses (%u%%)",
               done, total, (guint) (done * 100 / total));
    }
  else
    return;
  cli->progress_shown = TRUE;
}

static void
phase_changed_cb (SysprofRecording *recording, gpointer data)
{
  Cli *cli = data;

  switch (sysprof_recording_get_phase (recording))
    {
    case SYSPROF_RECORDING_PHASE_RECORDING:
      if (sysprof_recording_get_mode (recording) == SYSPROF_RECORDING_MODE_IN_PROCESS)
        say (cli, "sysprofd is not running; recording in-process as root");
      if (cli->argv != NULL)
        say (cli, "Recording into %s while %s runs, press ^C to stop", cli->capture, cli->argv[0]);
      else
        say (cli, "Recording into %s, press ^C to stop", cli->capture);
      break;
    case SYSPROF_RECORDING_PHASE_STOPPING:
      if (cli->tty)
        say (cli, "Finalizing the capture...");
      break;
    case SYSPROF_RECORDING_PHASE_DECODING: say (cli, "Decoding symbols (press ^C to skip)..."); break;
    case SYSPROF_RECORDING_PHASE_IDLE:
    case SYSPROF_RECORDING_PHASE_STARTING:
    case SYSPROF_RECORDING_PHASE_FINISHED:
    default: break;
    }
}

static gboolean
signal_cb (gpointer data)
{
  Cli *cli = data;

  if (sysprof_recording_get_phase (cli->recording) == SYSPROF_RECORDING_PHASE_DECODING)
    say (cli, "Skipping the symbol table; the capture is kept without it");
  sysprof_recording_stop (cli->recording);
  return G_SOURCE_CONTINUE;
}

static char *
describe_command (const char *name, int status)
{
  if (status == -1)
    return g_strdup_printf ("%s did not run", name);
  if (WIFEXITED (status))
    return g_strdup_printf ("%s exited with status %d", name, WEXITSTATUS (status));
  if (WIFSIGNALED (status))
    return g_strdup_printf ("%s was killed by signal %d (%s)", name, WTERMSIG (status), strsignal (WTERMSIG (status)));
  return g_strdup_printf ("%s ended with wait status %d", name, status);
}

static void
record_done_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Cli              *cli = data;
  SysprofRecording *recording = SYSPROF_RECORDING (source);
  g_autoptr (GError) error = NULL;
  g_autofree char   *command = NULL;
  const char *const *warnings;

  if (cli->argv != NULL && sysprof_recording_get_command_pid (recording) != 0)
    command = describe_command (cli->argv[0], sysprof_recording_get_command_wait_status (recording));

  warnings = sysprof_recording_get_warnings (recording);
  for (guint i = 0; warnings[i] != NULL; i++)
    say (cli, "sysprof-cli: warning: %s", warnings[i]);

  if (!sysprof_recording_record_finish (recording, result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        say (cli, "sysprof-cli: %s; use --force to overwrite it", error->message);
      else
        say (cli, "sysprof-cli: %s", error->message);
      /* Once recording started, the file is kept: say what it holds. */
      if (sysprof_recording_get_elapsed (recording) > 0)
        say (cli, "sysprof-cli: %s may be incomplete", cli->capture);
      if (command != NULL && sysprof_recording_get_command_wait_status (recording) != -1)
        say (cli, "sysprof-cli: %s", command);
      cli->exit_status = 1;
    }
  else
    {
      g_autofree char *elapsed = format_elapsed (sysprof_recording_get_elapsed (recording));
      g_autofree char *size = format_size (sysprof_recording_get_n_bytes (recording));
      const char      *reason = sysprof_recording_get_stop_reason (recording);

      g_autofree char *allocs = allocation_text (cli, recording, ", ");

      say (cli, "Recorded %s into %s: %" G_GUINT64_FORMAT " samples%s, %s, %" G_GUINT64_FORMAT " lost (%s%s%s)",
           elapsed, cli->capture, sysprof_recording_get_n_samples (recording), allocs, size,
           sysprof_recording_get_n_lost (recording), reason ? reason : "stopped", command ? "; " : "",
           command ? command : "");
      cli->exit_status = 0;
    }
  g_main_loop_quit (cli->loop);
}

/* --merge: every input, in order, into one capture on standard output. */
static int
merge (char **captures)
{
  SysprofCaptureWriter *writer;
  int                   tmp_fd;
  int                   writer_fd;
  int                   status = 0;
  char                  buf[65536];
  off_t                 offset = 0;

  if (captures == NULL || captures[0] == NULL)
    return usage_error ("--merge needs the captures to merge");
  if (isatty (STDOUT_FILENO))
    {
      fprintf (stderr, "sysprof-cli: refusing to write a binary capture to a terminal; redirect standard output\n");
      return 1;
    }

  /* The header is finalized at the end, which a pipe cannot take: merge into
   * a temporary file, then copy it out. */
  if ((tmp_fd = open (g_get_tmp_dir (), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) < 0 ||
      (writer_fd = fcntl (tmp_fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      !(writer = sysprof_capture_writer_new_from_fd (writer_fd, 0)))
    {
      fprintf (stderr, "sysprof-cli: cannot create a temporary capture: %s\n", g_strerror (errno));
      if (tmp_fd >= 0)
        close (tmp_fd);
      return 1;
    }

  for (guint i = 0; captures[i] != NULL; i++)
    {
      SysprofCaptureError   error;
      SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (captures[i], &error);

      if (reader == NULL)
        {
          fprintf (stderr, "sysprof-cli: %s: %s\n", captures[i], error.message);
          status = 1;
          continue;
        }
      if (!sysprof_capture_writer_cat (writer, reader))
        {
          const SysprofCaptureError *rerr = sysprof_capture_reader_get_error (reader);

          fprintf (stderr, "sysprof-cli: %s: not merged completely: %s\n", captures[i],
                   rerr && rerr->code != 0 ? rerr->message : g_strerror (errno));
          status = 1;
        }
      sysprof_capture_reader_unref (reader);
    }
  if (!sysprof_capture_writer_flush (writer))
    {
      fprintf (stderr, "sysprof-cli: cannot write the merged capture: %s\n", g_strerror (errno));
      status = 1;
    }
  sysprof_capture_writer_unref (writer);

  for (;;)
    {
      ssize_t n = pread (tmp_fd, buf, sizeof buf, offset);
      char   *pos = buf;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n < 0)
            status = 1;
          break;
        }
      offset += n;
      while (n > 0)
        {
          ssize_t w = write (STDOUT_FILENO, pos, (size_t) n);

          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            {
              fprintf (stderr, "sysprof-cli: cannot write to standard output: %s\n", g_strerror (errno));
              close (tmp_fd);
              return 1;
            }
          pos += w;
          n -= w;
        }
    }
  close (tmp_fd);
  return status;
}

int
main (int argc, char **argv)
{
  gboolean force = FALSE, no_perf = FALSE, no_cpu = FALSE, no_memory = FALSE, no_disk = FALSE, no_network = FALSE;
  gboolean no_battery = FALSE, no_decode = FALSE, do_merge = FALSE, version = FALSE, memprof = FALSE;
  gboolean memprof_children = FALSE, use_trace_fd = FALSE, gjs = FALSE, gnome_shell = FALSE, scheduler = FALSE;
  gboolean session_bus = FALSE, system_bus = FALSE;
  g_auto (GStrv) peers = NULL;
  g_autofree char *command = NULL;
  g_autofree char *memprof_unwind = NULL;
  g_autofree char *memprof_format = NULL;
  g_autofree char *directory = NULL;
  g_auto (GStrv) envs = NULL;
  g_auto (GStrv) pid_args = NULL;
  g_auto (GStrv) positional = NULL;
  g_auto (GStrv) option_args = NULL;
  g_auto (GStrv) command_argv = NULL;
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GPtrArray) counters = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofRecording) recording = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  int                frequency = G_MININT; /* G_MININT: not given */
  g_autofree char   *unwind = NULL;
  int                stack_size = G_MININT;
  int                duration = G_MININT;
  g_autofree char   *max_size = NULL;
  guint64            max_bytes = 0;
  g_autofree char   *continuous = NULL;
  g_autofree char   *output_dir = NULL;
  g_autofree char   *keep_age = NULL;
  g_autofree char   *keep_size = NULL;
  g_autofree char   *push_url = NULL;
  g_autofree char   *push_name = NULL;
  gboolean           pprof = FALSE;
  int                split = argc;
  Cli                cli = { 0 };
  guint              sigint, sigterm;
  const GOptionEntry entries[] = {
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Overwrite CAPTURE if it exists", NULL },
    { "command", 'c', 0, G_OPTION_ARG_STRING, &command, "Run CMD (split into words as a shell would) until it exits",
      "CMD" },
    { "env", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &envs, "Set VAR to VALUE for the command (repeatable)", "VAR=VALUE" },
    { "directory", 'C', 0, G_OPTION_ARG_FILENAME, &directory, "Run the command in DIR (default: the current directory)",
      "DIR" },
    { "pid", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &pid_args, "Record only PID and its new children (repeatable)", "PID" },
    { "frequency", 0, 0, G_OPTION_ARG_INT, &frequency, "Samples per second and CPU (1-10000, default 997)", "HZ" },
    { "duration", 0, 0, G_OPTION_ARG_INT, &duration, "Stop after SECONDS (1 to 86400)", "SECONDS" },
    { "max-size", 0, 0, G_OPTION_ARG_STRING, &max_size,
      "Through sysprofd, stop when the capture reaches SIZE (a number of bytes, or with K, M or G: 1M to 16G; default "
      "4G)",
      "SIZE" },
    { "unwind", 0, 0, G_OPTION_ARG_STRING, &unwind,
      "How user stacks are unwound: dwarf (default) or fp (frame pointers); see Stacks below", "METHOD" },
    { "stack-size", 0, 0, G_OPTION_ARG_INT, &stack_size,
      "Bytes of user stack each sample copies for --unwind dwarf (a multiple of 8 up to 65528, default 8192)",
      "BYTES" },
    { "scheduler", 0, 0, G_OPTION_ARG_NONE, &scheduler,
      "Record every context switch with the stack of the thread leaving the CPU (off-CPU time; see below)", NULL },
    { "use-trace-fd", 0, 0, G_OPTION_ARG_NONE, &use_trace_fd,
      "Hand the command $SYSPROF_TRACE_FD and merge the capture it writes there (needs a command; see below)", NULL },
    { "gjs", 0, 0, G_OPTION_ARG_NONE, &gjs,
      "Hand the command $GJS_TRACE_FD with GJS_ENABLE_PROFILER=1 and merge GJS's JavaScript stacks (needs a command)",
      NULL },
    { "gnome-shell", 0, 0, G_OPTION_ARG_NONE, &gnome_shell,
      "Ask gnome-shell (org.gnome.Shell on the session bus) for its own capture and merge it", NULL },
    { "profiler-peer", 0, 0, G_OPTION_ARG_STRING_ARRAY, &peers,
      "Ask the org.gnome.Sysprof3.Profiler at BUS_NAME[:PATH] on the session bus for its capture (repeatable)",
      "BUS_NAME[:PATH]" },
    { "session-bus", 0, 0, G_OPTION_ARG_NONE, &session_bus,
      "Record the messages of the session bus ($DBUS_SESSION_BUS_ADDRESS); see D-Bus below", NULL },
    { "system-bus", 0, 0, G_OPTION_ARG_NONE, &system_bus,
      "Record the messages of the system bus, through sysprofd (not with --pid); see D-Bus below", NULL },
    { "memprof", 0, 0, G_OPTION_ARG_NONE, &memprof,
      "Trace every memory allocation of the command, with its stack (needs a command; see below)", NULL },
    { "memprof-children", 0, 0, G_OPTION_ARG_NONE, &memprof_children,
      "With --memprof, also trace the processes the command starts", NULL },
    { "memprof-unwind", 0, 0, G_OPTION_ARG_STRING, &memprof_unwind,
      "With --memprof, how allocation stacks are unwound: dwarf (default) or fp", "dwarf|fp" },
    { "memprof-format", 0, 0, G_OPTION_ARG_STRING, &memprof_format,
      "With --memprof, how allocations are stored: stream (compact, default) or frames (one frame per event)",
      "stream|frames" },
    { "no-perf", 0, 0, G_OPTION_ARG_NONE, &no_perf,
      "Do not sample stacks (record counters, and allocations with --memprof, only)", NULL },
    { "no-cpu", 0, 0, G_OPTION_ARG_NONE, &no_cpu, "Do not record the CPU usage counters", NULL },
    { "no-memory", 0, 0, G_OPTION_ARG_NONE, &no_memory, "Do not record the memory usage counters", NULL },
    { "no-disk", 0, 0, G_OPTION_ARG_NONE, &no_disk, "Do not record the disk I/O counters", NULL },
    { "no-network", 0, 0, G_OPTION_ARG_NONE, &no_network, "Do not record the network I/O counters", NULL },
    { "no-battery", 0, 0, G_OPTION_ARG_NONE, &no_battery, "Accepted for compatibility; there is no battery counter",
      NULL },
    { "no-decode", 0, 0, G_OPTION_ARG_NONE, &no_decode, "Do not append the symbol table (function names)", NULL },
    { "merge", 0, 0, G_OPTION_ARG_NONE, &do_merge, "Merge the CAPTURE files into one, to standard output", NULL },
    { "continuous", 0, 0, G_OPTION_ARG_STRING, &continuous,
      "Record continuously, a capture every PERIOD, into --output-dir (see Continuous profiling)", "PERIOD" },
    { "output-dir", 0, 0, G_OPTION_ARG_FILENAME, &output_dir, "With --continuous, where the captures go", "DIR" },
    { "pprof", 0, 0, G_OPTION_ARG_NONE, &pprof, "With --continuous, also write each period's pprof export", NULL },
    { "keep-age", 0, 0, G_OPTION_ARG_STRING, &keep_age,
      "With --continuous, remove periods older than AGE (default 7d; 0: keep them)", "AGE" },
    { "keep-size", 0, 0, G_OPTION_ARG_STRING, &keep_size,
      "With --continuous, remove the oldest periods beyond SIZE in all (default 1G; 0: no limit)", "SIZE" },
    { "push", 0, 0, G_OPTION_ARG_STRING, &push_url,
      "With --continuous, send each period's pprof to the Pyroscope-compatible server at URL", "URL" },
    { "push-name", 0, 0, G_OPTION_ARG_STRING, &push_name,
      "With --push, the application name and labels (default sysprof.cpu{hostname=HOST})", "NAME" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positional, NULL, NULL },
    { NULL },
  };

  setlocale (LC_ALL, "");

  /* Everything after the first "--" is the command, untouched. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        split = i;
        break;
      }
  option_args = g_new0 (char *, split + 1);
  for (int i = 0; i < split; i++)
    option_args[i] = g_strdup (argv[i]);
  if (split < argc - 1)
    {
      command_argv = g_new0 (char *, argc - split);
      for (int i = split + 1; i < argc; i++)
        command_argv[i - split - 1] = g_strdup (argv[i]);
    }

  context = g_option_context_new ("[CAPTURE] [-- COMMAND ARGS...]");
  g_option_context_set_summary (context, "Record a profile of the whole system, or of a command, into CAPTURE\n"
                                         "(default " DEFAULT_CAPTURE "), through the sysprofd service.");
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse_strv (context, &option_args, &error))
    return usage_error ("%s", error->message);

  if (version)
    {
      printf ("sysprof-cli " SYSPROF_PROJECT_VERSION "\n");
      return 0;
    }
  if (do_merge)
    {
      if (command != NULL || command_argv != NULL)
        return usage_error ("--merge does not run a command");
      return merge (positional);
    }

  if (continuous == NULL && (output_dir || pprof || keep_age || keep_size || push_url || push_name))
    return usage_error ("--output-dir, --pprof, --keep-age, --keep-size, --push and --push-name go with --continuous");
  if (continuous != NULL)
    {
      CliContinuousOptions opts = { 0 };
      guint64              seconds = 0, bytes = 0;

      if (positional != NULL || command != NULL || command_argv != NULL || pid_args != NULL || memprof || scheduler ||
          session_bus || system_bus || use_trace_fd || gjs || gnome_shell || peers != NULL || no_perf ||
          stack_size != G_MININT)
        return usage_error ("--continuous records the whole system into --output-dir: it takes no CAPTURE, command, "
                            "--pid, --memprof, --scheduler, bus, peer, --no-perf or --stack-size");
      if (!parse_seconds (continuous, &seconds) || seconds < 1 || seconds > 86400)
        return usage_error ("--continuous %s: say a period from 1 s to 1 d (seconds, or a number with s, m, h or d)",
                            continuous);
      opts.period = (guint) seconds;
      if (output_dir == NULL)
        return usage_error ("--continuous needs --output-dir DIR");
      opts.output_dir = output_dir;
      opts.keep_seconds = 7 * 86400;
      if (keep_age != NULL && !parse_seconds (keep_age, &opts.keep_seconds))
        return usage_error ("--keep-age %s: say seconds, or a number with s, m, h or d (0: keep everything)", keep_age);
      opts.keep_bytes = G_GUINT64_CONSTANT (1) << 30;
      if (keep_size != NULL && !g_str_equal (keep_size, "0") && !parse_size (keep_size, &bytes))
        return usage_error ("--keep-size %s: say a size from 1M (bytes, or a number with K, M or G; 0: no limit)",
                            keep_size);
      if (keep_size != NULL)
        opts.keep_bytes = bytes;
      opts.pprof = pprof || push_url != NULL;
      opts.push_url = push_url;
      if (push_name == NULL)
        push_name = g_strdup_printf ("sysprof.cpu{hostname=%s}", g_get_host_name ());
      opts.push_name = push_name;
      opts.frequency = frequency == G_MININT ? 0 : (guint) frequency;
      if (unwind != NULL)
        opts.unwind = strcmp (unwind, "fp") == 0 ? SYSPROF_PERF_UNWIND_FRAME_POINTERS : SYSPROF_PERF_UNWIND_DWARF;
      opts.max_bytes = max_bytes;
      opts.duration = duration == G_MININT ? 0 : (guint) duration;
      return cli_continuous_run (&opts);
    }

  if (positional != NULL && g_strv_length (positional) > 1)
    return usage_error ("only one CAPTURE may be given (a command goes after --)");
  if (command != NULL && command_argv != NULL)
    return usage_error ("give the command either with -c or after --, not both");
  if (split == argc - 1)
    return usage_error ("no command after --");
  if (command != NULL && !g_shell_parse_argv (command, NULL, &command_argv, &error))
    return usage_error ("-c %s: %s", command, error->message);
  if (frequency != G_MININT && (frequency < 1 || frequency > 10000))
    return usage_error ("--frequency must be between 1 and 10000, not %d", frequency);
  if (unwind != NULL && strcmp (unwind, "dwarf") != 0 && strcmp (unwind, "fp") != 0)
    return usage_error ("--unwind is dwarf or fp, not %s", unwind);
  if (stack_size != G_MININT && (stack_size < 8 || stack_size > 65528 || stack_size % 8 != 0))
    return usage_error ("--stack-size must be a multiple of 8 from 8 to 65528, not %d", stack_size);
  if (stack_size != G_MININT && unwind != NULL && strcmp (unwind, "fp") == 0)
    return usage_error ("--stack-size applies to --unwind dwarf, not fp");
  if (duration != G_MININT && (duration < 1 || duration > 86400))
    return usage_error ("--duration must be between 1 and 86400 seconds, not %d", duration);
  if (max_size != NULL && !parse_size (max_size, &max_bytes))
    return usage_error ("--max-size %s: say a size from 1M to 16G (bytes, or a number with K, M or G)", max_size);
  if (envs != NULL && command_argv == NULL)
    return usage_error ("--env only applies to a command (-c or after --)");
  if (directory != NULL && command_argv == NULL)
    return usage_error ("--directory only applies to a command (-c or after --)");
  if (memprof_children && !memprof)
    return usage_error ("--memprof-children goes with --memprof");
  if (memprof_unwind != NULL && !memprof)
    return usage_error ("--memprof-unwind goes with --memprof");
  if (memprof_unwind != NULL && !g_str_equal (memprof_unwind, "dwarf") && !g_str_equal (memprof_unwind, "fp"))
    return usage_error ("--memprof-unwind %s: say dwarf or fp", memprof_unwind);
  if (memprof_format != NULL && !memprof)
    return usage_error ("--memprof-format goes with --memprof");
  if (memprof_format != NULL && !g_str_equal (memprof_format, "stream") && !g_str_equal (memprof_format, "frames"))
    return usage_error ("--memprof-format %s: say stream or frames", memprof_format);
  if (memprof && command_argv == NULL)
    return usage_error ("--memprof traces the allocations of a command: give one with -c or after --");
  for (guint i = 0; peers != NULL && peers[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup (peers[i]);
      char            *path = strchr (name, ':');

      if (path != NULL)
        *path++ = 0;
      if (!g_dbus_is_name (name) || g_dbus_is_unique_name (name))
        return usage_error ("--profiler-peer %s: %s is not a well-known bus name", peers[i], name);
      if (path != NULL && !g_variant_is_object_path (path))
        return usage_error ("--profiler-peer %s: %s is not an object path", peers[i], path);
    }
  if (scheduler && no_perf)
    return usage_error ("--scheduler is recorded with the CPU samples: not with --no-perf");
  if ((use_trace_fd || gjs) && command_argv == NULL)
    return usage_error ("%s is handed to a command: give one with -c or after --",
                        use_trace_fd ? "--use-trace-fd" : "--gjs");

  cli.capture = positional && positional[0] ? positional[0] : DEFAULT_CAPTURE;
  cli.argv = command_argv;
  cli.tty = isatty (STDERR_FILENO);
  cli.exit_status = 1;

  recording = sysprof_recording_new ();
  sysprof_recording_set_capture_path (recording, cli.capture, force);
  sysprof_recording_set_frequency (recording, frequency == G_MININT ? 0 : (guint) frequency);
  if (unwind != NULL)
    sysprof_recording_set_unwind (recording, strcmp (unwind, "fp") == 0 ? SYSPROF_PERF_UNWIND_FRAME_POINTERS
                                                                        : SYSPROF_PERF_UNWIND_DWARF);
  sysprof_recording_set_stack_size (recording, stack_size == G_MININT ? 0 : (guint) stack_size);
  sysprof_recording_set_max_duration (recording, duration == G_MININT ? 0 : (guint) duration);
  sysprof_recording_set_max_bytes (recording, max_bytes);
  sysprof_recording_set_cpu_sampling (recording, !no_perf);
  sysprof_recording_set_decode (recording, !no_decode);
  sysprof_recording_set_memory_tracing (recording, memprof);
  cli.memprof = memprof;
  sysprof_recording_set_follow_children (recording, memprof_children);
  sysprof_recording_set_trace_fd (recording, use_trace_fd);
  sysprof_recording_set_gjs (recording, gjs);
  sysprof_recording_set_scheduler (recording, scheduler);
  sysprof_recording_set_session_bus (recording, session_bus);
  sysprof_recording_set_system_bus (recording, system_bus);
  if (gnome_shell)
    sysprof_recording_add_profiler_peer (recording, "org.gnome.Shell", "/org/gnome/Sysprof3/Profiler");
  for (guint i = 0; peers != NULL && peers[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup (peers[i]);
      char            *path = strchr (name, ':');

      if (path != NULL)
        *path++ = 0;
      sysprof_recording_add_profiler_peer (recording, name, path);
    }
  (void) no_battery;

  counters = g_ptr_array_new ();
  if (!no_cpu)
    g_ptr_array_add (counters, (gpointer) "cpu");
  if (!no_memory)
    g_ptr_array_add (counters, (gpointer) "memory");
  if (!no_disk)
    g_ptr_array_add (counters, (gpointer) "disk");
  if (!no_network)
    g_ptr_array_add (counters, (gpointer) "network");
  g_ptr_array_add (counters, NULL);
  sysprof_recording_set_counters (recording, (const char *const *) counters->pdata);

  for (guint i = 0; pid_args != NULL && pid_args[i] != NULL; i++)
    {
      gint64 pid;

      if (!g_ascii_string_to_signed (pid_args[i], 10, 1, G_MAXINT32, &pid, NULL))
        return usage_error ("--pid %s is not a process id", pid_args[i]);
      sysprof_recording_add_pid (recording, (GPid) pid);
    }

  if (command_argv != NULL)
    {
      sysprof_recording_set_command (recording, (const char *const *) command_argv);
      if (directory != NULL)
        sysprof_recording_set_working_directory (recording, directory);
      for (guint i = 0; envs != NULL && envs[i] != NULL; i++)
        {
          const char      *eq = strchr (envs[i], '=');
          g_autofree char *name = NULL;

          if (eq == NULL || eq == envs[i])
            return usage_error ("--env %s is not VAR=VALUE", envs[i]);
          name = g_strndup (envs[i], (gsize) (eq - envs[i]));
          sysprof_recording_setenv (recording, name, eq + 1);
        }
      /* After --env: the option says it more plainly than a variable. */
      if (memprof_unwind != NULL)
        sysprof_recording_setenv (recording, "SYSPROF_MEMORY_UNWIND", memprof_unwind);
      if (memprof_format != NULL)
        sysprof_recording_setenv (recording, "SYSPROF_MEMORY_FORMAT", memprof_format);
    }

  loop = g_main_loop_new (NULL, FALSE);
  cli.recording = recording;
  cli.loop = loop;
  g_signal_connect (recording, "phase-changed", G_CALLBACK (phase_changed_cb), &cli);
  g_signal_connect (recording, "progress", G_CALLBACK (progress_cb), &cli);
  sigint = g_unix_signal_add (SIGINT, signal_cb, &cli);
  sigterm = g_unix_signal_add (SIGTERM, signal_cb, &cli);

  sysprof_recording_record_async (recording, record_done_cb, &cli);
  g_main_loop_run (loop);

  g_source_remove (sigint);
  g_source_remove (sigterm);
  return cli.exit_status;
}
