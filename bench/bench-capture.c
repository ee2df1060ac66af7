// SPDX-License-Identifier: GPL-3.0-or-later
/* bench-capture.c
 *
 * Capture write/read throughput benchmark.  One source, built twice:
 *
 *   bench-capture-ours      our libsysprof-capture
 *   bench-capture-upstream  Debian's Sysprof 3.46 libsysprof-capture-4.a,
 *                           compiled with -DBENCH_UPSTREAM
 *
 * The two libraries define the same symbols, so they can never share one
 * executable.  Each run does one repetition: write FRAMES SAMPLE frames of
 * DEPTH addresses to a fresh capture file (default buffer size), flush and
 * close it, then read it back with peek_type + read_sample, summing every
 * address into a volatile sink.  It prints one "key=value" line;
 * run-capture-bench.sh alternates the two programs and takes medians.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sysprof-capture.h>

#ifdef BENCH_UPSTREAM
#define SIDE "upstream"
#else
#define SIDE "ours"
#endif

/* Distinct stacks cycled through; 1024 x 24 x 8 bytes = 192 KiB, cache-resident,
 * so the generator costs a pointer bump and the libraries' own work dominates. */
#define N_STACKS  1024u
#define MAX_DEPTH 256u

static volatile uint64_t sink;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * UINT64_C (1000000000) + (uint64_t) ts.tv_nsec;
}

static uint64_t
xorshift64 (uint64_t *state)
{
  uint64_t x = *state;

  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: bench-capture-" SIDE " [-d DIR] [-n FRAMES] [-k DEPTH]\n"
           "  -d DIR     directory for the capture file (default $TMPDIR, else /tmp)\n"
           "  -n FRAMES  SAMPLE frames to write and read (default 2000000)\n"
           "  -k DEPTH   addresses per frame (default 24, at most %u)\n"
           "Prints: side= frames= depth= bytes= write_ns= read_ns= read_frames=\n",
           MAX_DEPTH);
}

static unsigned long
parse_count (const char *arg, unsigned long max)
{
  char         *end = NULL;
  unsigned long v;

  errno = 0;
  v = strtoul (arg, &end, 10);
  if (errno != 0 || end == arg || *end != 0 || v == 0 || v > max)
    {
      fprintf (stderr, "bench-capture-" SIDE ": bad count '%s'\n", arg);
      exit (2);
    }
  return v;
}

int
main (int argc, char **argv)
{
  const char             *dir = NULL;
  unsigned long           n_frames = 2000000;
  unsigned long           depth = 24;
  SysprofCaptureAddress  *stacks;
  SysprofCaptureWriter   *writer;
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;
  char                    path[4096];
  struct stat             st;
  uint64_t                rng = UINT64_C (0x9E3779B97F4A7C15);
  uint64_t                expected = 0;
  uint64_t                sum = 0;
  uint64_t                t0, t1, t2, t3;
  unsigned long           read_frames = 0;
  int                     opt;

#ifdef BENCH_UPSTREAM
  /* sysprof-clock.h defines the global in every file including it; calling
   * sysprof_clock_init() would drag in the library's copy too. */
  sysprof_clock = -1;
#endif

  while ((opt = getopt (argc, argv, "d:n:k:h")) != -1)
    {
      switch (opt)
        {
        case 'd': dir = optarg; break;
        case 'n': n_frames = parse_count (optarg, 100000000); break;
        case 'k': depth = parse_count (optarg, MAX_DEPTH); break;
        case 'h': usage (stdout); return 0;
        default: usage (stderr); return 2;
        }
    }
  if (optind != argc)
    {
      usage (stderr);
      return 2;
    }
  if (dir == NULL || *dir == 0)
    dir = getenv ("TMPDIR");
  if (dir == NULL || *dir == 0)
    dir = "/tmp";

  if ((size_t) snprintf (path, sizeof path, "%s/bench-capture-%s-%ld.syscap", dir, SIDE, (long) getpid ()) >=
      sizeof path)
    {
      fprintf (stderr, "bench-capture-" SIDE ": directory name too long\n");
      return 2;
    }

  /* Varied, user-space-looking addresses: a common high part, random low bits. */
  stacks = malloc (sizeof *stacks * N_STACKS * depth);
  if (stacks == NULL)
    return 1;
  for (size_t i = 0; i < (size_t) N_STACKS * depth; i++)
    stacks[i] = UINT64_C (0x00007f0000000000) | (xorshift64 (&rng) & UINT64_C (0xffffffffff));

  /* --- write ------------------------------------------------------------ */
  t0 = now_ns ();
  writer = sysprof_capture_writer_new (path, 0);
  if (writer == NULL)
    {
      fprintf (stderr, "bench-capture-" SIDE ": cannot create %s: %s\n", path, strerror (errno));
      return 1;
    }
  for (unsigned long i = 0; i < n_frames; i++)
    {
      const SysprofCaptureAddress *addrs = &stacks[(i % N_STACKS) * depth];
      int32_t                      pid = 1000 + (int32_t) (i & 3);
      int32_t                      tid = pid + (int32_t) ((i >> 2) % 3);

      if (!sysprof_capture_writer_add_sample (writer, (int64_t) 1000000000 + (int64_t) i * 1000, (int) (i & 1), pid,
                                              tid, addrs, (unsigned) depth))
        {
          fprintf (stderr, "bench-capture-" SIDE ": add_sample failed at frame %lu: %s\n", i, strerror (errno));
          unlink (path);
          return 1;
        }
    }
  if (!sysprof_capture_writer_flush (writer))
    {
      fprintf (stderr, "bench-capture-" SIDE ": flush failed: %s\n", strerror (errno));
      unlink (path);
      return 1;
    }
  sysprof_capture_writer_unref (writer);
  t1 = now_ns ();

  if (stat (path, &st) != 0)
    {
      fprintf (stderr, "bench-capture-" SIDE ": stat %s: %s\n", path, strerror (errno));
      return 1;
    }

  /* Expected checksum, outside the timed regions. */
  for (unsigned long i = 0; i < n_frames; i++)
    for (unsigned long k = 0; k < depth; k++)
      expected += stacks[(i % N_STACKS) * depth + k];

  /* --- read ------------------------------------------------------------- */
  t2 = now_ns ();
  reader = sysprof_capture_reader_new (path);
  if (reader == NULL)
    {
      fprintf (stderr, "bench-capture-" SIDE ": cannot read %s: %s\n", path, strerror (errno));
      unlink (path);
      return 1;
    }
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (reader);

          if (s == NULL)
            break;
          for (unsigned k = 0; k < s->n_addrs; k++)
            sum += s->addrs[k];
          sink = sum;
          read_frames++;
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }
  sysprof_capture_reader_unref (reader);
  t3 = now_ns ();

  unlink (path);
  free (stacks);

  if (read_frames != n_frames || sink != expected)
    {
      fprintf (stderr, "bench-capture-" SIDE ": read back %lu of %lu frames, checksum %s\n", read_frames, n_frames,
               sink == expected ? "ok" : "MISMATCH");
      return 1;
    }

  printf ("side=%s frames=%lu depth=%lu bytes=%jd write_ns=%" PRIu64 " read_ns=%" PRIu64 " read_frames=%lu\n", SIDE,
          n_frames, depth, (intmax_t) st.st_size, t1 - t0, t3 - t2, read_frames);
  return 0;
}
