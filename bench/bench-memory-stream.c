// SPDX-License-Identifier: GPL-3.0-or-later
/* The memory stream codec (issue 16) against the ALLOCATION frames it
 * replaces, on the same events in the same run: nanoseconds and bytes per
 * event of the encoder (what the tracker pays inside malloc and free) and of
 * sysprof_capture_writer_add_allocation_copy into a memfd, then zstd on the
 * blocks (what a drainer pays and saves) and the decoder.
 *
 * Two event mixes, generated before timing (a fixed xorshift seed):
 *   workload  bench/malloc-workload.c's pattern: a 256-slot window, each step
 *             frees a random slot's block and allocates a new one; sizes 8-128
 *             B 11/16, 129-1024 B 4/16, 1-4 KiB 1/16; three allocation stacks
 *             of 8-10 frames; frees carry no stack
 *   deep      the same window, but 5000 distinct stacks of 20-60 frames
 *             (a real program unwound with DWARF), chosen with a Zipf-like
 *             law (a few sites make most allocations)
 * Addresses come from a size-class allocator that reuses the last freed
 * block of a class first, as glibc's tcache does; times grow by 50-250 ns.
 *
 * Then both as captures (4 threads' streams of zstd blocks; ALLOCATION
 * frames), each read to its end by SysprofAllocationCursor.
 *
 *   bench-memory-stream [-n EVENTS] [-r REPS] [-d DIR]
 * prints one line per mix and measurement, best of REPS (default 5); the
 * captures go to DIR (default $TMPDIR, else /tmp) and are removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sysprof-capture.h>

#define WINDOW      256
#define N_CLASSES   64
#define MAX_DEPTH   64
#define MAX_STACKS  5000
#define BLOCK_BYTES SYSPROF_MEMORY_STREAM_MAX_BLOCK

typedef struct
{
  int64_t  time;
  uint64_t address;
  uint64_t size; /* 0: a release */
  uint32_t stack;
} Event;

typedef struct
{
  const char           *name;
  unsigned              n_stacks;
  unsigned              depth[MAX_STACKS];
  SysprofCaptureAddress frames[MAX_STACKS][MAX_DEPTH];
} Mix;

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t
next_rand (void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static void
make_stacks (Mix *mix, unsigned n_stacks, unsigned min_depth, unsigned max_depth)
{
  /* Return addresses in a few mapped objects: a program, libc, libraries. */
  static const uint64_t bases[] = { 0x55d0c0de0000u, 0x7f3a1c400000u, 0x7f3a1d800000u, 0x7f3a1e200000u };

  mix->n_stacks = n_stacks;
  for (unsigned s = 0; s < n_stacks; s++)
    {
      mix->depth[s] = min_depth + (unsigned) (next_rand () % (max_depth - min_depth + 1));
      for (unsigned i = 0; i < mix->depth[s]; i++)
        mix->frames[s][i] = bases[next_rand () % 4] + next_rand () % 0x200000;
    }
}

/* The stack of an allocation: Zipf-like over the mix's stacks. */
static uint32_t
pick_stack (const Mix *mix)
{
  double u = (double) (next_rand () >> 11) / (double) (1ull << 53);

  if (mix->n_stacks <= 3)
    return (uint32_t) (next_rand () % mix->n_stacks);
  return (uint32_t) ((double) mix->n_stacks * u * u * u) % mix->n_stacks;
}

static uint64_t
pick_size (void)
{
  uint64_t r = next_rand () % 16;

  if (r < 11)
    return 8 + next_rand () % 121;
  if (r < 15)
    return 129 + next_rand () % 896;
  return 1024 + next_rand () % 3073;
}

/* The events of @n_steps window steps (a release, then an allocation). */
static Event *
make_events (const Mix *mix, size_t n_steps, size_t *n_events)
{
  Event   *events = malloc (2 * n_steps * sizeof *events);
  uint64_t slots[WINDOW] = { 0 };
  uint64_t slot_size[WINDOW] = { 0 };
  uint64_t free_list[N_CLASSES][WINDOW];
  unsigned n_free[N_CLASSES] = { 0 };
  uint64_t bump = 0x5581a0000000u;
  int64_t  t = 1000000000;
  size_t   n = 0;

  for (size_t step = 0; step < n_steps; step++)
    {
      unsigned w = (unsigned) (next_rand () % WINDOW);
      uint64_t size = pick_size ();
      unsigned cls = (unsigned) ((size + 63) / 64) % N_CLASSES;
      uint64_t address;

      if (slots[w] != 0)
        {
          unsigned old = (unsigned) ((slot_size[w] + 63) / 64) % N_CLASSES;

          t += 50 + (int64_t) (next_rand () % 200);
          events[n++] = (Event){ t, slots[w], 0, 0 };
          if (n_free[old] < WINDOW)
            free_list[old][n_free[old]++] = slots[w];
        }
      if (n_free[cls] > 0)
        address = free_list[cls][--n_free[cls]];
      else
        {
          address = bump;
          bump += (size + 16 + 15) & ~(uint64_t) 15;
        }
      t += 50 + (int64_t) (next_rand () % 200);
      events[n++] = (Event){ t, address, size, pick_stack (mix) };
      slots[w] = address;
      slot_size[w] = size;
    }
  *n_events = n;
  return events;
}

typedef struct
{
  double   ns;
  uint64_t bytes;
  size_t   n_blocks;
} Result;

/* What the tracker does: define each stack at its first use, then the event;
 * a full block is copied out (into a 64 KiB "ring", hot in the cache as a
 * real ring's free space is not always) and the encoder cleared.  With @out,
 * the blocks are also kept there (length-prefixed) for zstd and the decoder,
 * outside the timed runs. */
static Result
run_encoder (const Mix *mix, const Event *events, size_t n, uint8_t *out, size_t *out_len)
{
  static uint8_t             buffer[BLOCK_BYTES];
  static uint8_t             ring[65536];
  static uint64_t            id_of[MAX_STACKS];
  SysprofMemoryStreamEncoder enc;
  Result                     r = { 0 };
  uint64_t                   next_id = 1;
  double                     start;

  memset (id_of, 0, sizeof id_of);
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);

#define SEND()                                                                       \
  do                                                                                 \
    {                                                                                \
      size_t         len_;                                                           \
      const uint8_t *block_ = sysprof_memory_stream_encoder_get_block (&enc, &len_); \
      memcpy (ring, block_, len_);                                                   \
      if (out != NULL)                                                               \
        {                                                                            \
          out[(*out_len)++] = (uint8_t) len_;                                        \
          out[(*out_len)++] = (uint8_t) (len_ >> 8);                                 \
          memcpy (out + *out_len, block_, len_);                                     \
          *out_len += len_;                                                          \
        }                                                                            \
      r.bytes += len_;                                                               \
      r.n_blocks++;                                                                  \
      sysprof_memory_stream_encoder_clear (&enc);                                    \
    }                                                                                \
  while (0)

  start = now_ns ();
  for (size_t i = 0; i < n; i++)
    {
      const Event *e = &events[i];

      if (e->size == 0)
        {
          if (!sysprof_memory_stream_encoder_add_release (&enc, e->time, e->address))
            {
              SEND ();
              sysprof_memory_stream_encoder_add_release (&enc, e->time, e->address);
            }
          continue;
        }
      if (id_of[e->stack] == 0)
        {
          id_of[e->stack] = next_id++;
          if (!sysprof_memory_stream_encoder_add_stack (&enc, id_of[e->stack], mix->frames[e->stack],
                                                        mix->depth[e->stack]))
            {
              SEND ();
              sysprof_memory_stream_encoder_add_stack (&enc, id_of[e->stack], mix->frames[e->stack],
                                                       mix->depth[e->stack]);
            }
        }
      if (!sysprof_memory_stream_encoder_add_allocation (&enc, e->time, e->address, e->size, id_of[e->stack]))
        {
          SEND ();
          sysprof_memory_stream_encoder_add_allocation (&enc, e->time, e->address, e->size, id_of[e->stack]);
        }
    }
  SEND ();
  r.ns = now_ns () - start;
#undef SEND
  return r;
}

/* The frames this replaces: one ALLOCATION frame per event, stack included,
 * built in the writer's buffer and written to /dev/null (no page faults of
 * a growing file in the timing). */
static Result
run_frames (const Mix *mix, const Event *events, size_t n)
{
  Result                r = { 0 };
  SysprofCaptureWriter *w = sysprof_capture_writer_new_from_fd (open ("/dev/null", O_WRONLY | O_CLOEXEC), 0);
  double                start;

  start = now_ns ();
  for (size_t i = 0; i < n; i++)
    {
      const Event *e = &events[i];
      unsigned     depth = e->size ? mix->depth[e->stack] : 0;

      sysprof_capture_writer_add_allocation_copy (w, e->time, 0, 1000, 1001, e->address, (int64_t) e->size,
                                                  depth ? mix->frames[e->stack] : NULL, depth);
      r.bytes += sizeof (SysprofCaptureAllocation) + 8 * depth;
    }
  sysprof_capture_writer_flush (w);
  r.ns = now_ns () - start;
  sysprof_capture_writer_unref (w);
  return r;
}

/* zstd on every block (level 1), then the decoder on the compressed blocks. */
static void
run_zstd_and_decode (const uint8_t *blocks, size_t len, size_t n_events, Result *z, Result *dec)
{
  static uint8_t              packed[BLOCK_BYTES + 1024];
  uint8_t                    *zblocks = malloc (len + len / 8 + 4096);
  size_t                      zlen = 0;
  SysprofMemoryStreamDecoder *d = sysprof_memory_stream_decoder_new (1000, 1001);
  SysprofAllocationEvent      ev;
  uint64_t                    sum = 0;
  size_t                      n = 0;
  double                      start;

  memset (z, 0, sizeof *z);
  start = now_ns ();
  for (size_t pos = 0; pos + 2 <= len;)
    {
      size_t blen = blocks[pos] | (size_t) blocks[pos + 1] << 8;
      size_t zn = sysprof_memory_stream_compress (blocks + pos + 2, blen, packed, sizeof packed, 1);

      pos += 2 + blen;
      zblocks[zlen++] = (uint8_t) zn;
      zblocks[zlen++] = (uint8_t) (zn >> 8);
      memcpy (zblocks + zlen, packed, zn);
      zlen += zn;
      z->bytes += zn;
      z->n_blocks++;
    }
  z->ns = now_ns () - start;

  start = now_ns ();
  for (size_t pos = 0; pos + 2 <= zlen;)
    {
      size_t blen = zblocks[pos] | (size_t) zblocks[pos + 1] << 8;

      sysprof_memory_stream_decoder_feed (d, zblocks + pos + 2, blen, pos);
      pos += 2 + blen;
      while (sysprof_memory_stream_decoder_next (d, &ev))
        {
          sum += ev.address + ev.n_frames;
          n++;
        }
    }
  dec->ns = now_ns () - start;
  dec->bytes = sum;
  if (n != n_events || sysprof_memory_stream_decoder_get_error (d) != NULL)
    {
      fprintf (stderr, "bench-memory-stream: decoded %zu events of %zu: %s\n", n, n_events,
               sysprof_memory_stream_decoder_get_error (d));
      exit (1);
    }
  sysprof_memory_stream_decoder_free (d);
  free (zblocks);
}

/* Reading a capture: the same events as 4 threads' streams of zstd blocks
 * (runs of 1000 events per thread), and as ALLOCATION frames, each read to
 * the end by SysprofAllocationCursor (first pass and merge included). */
#define N_THREADS 4

typedef struct
{
  double   ns;
  double   index_ns; /* of which creating the cursor (its first pass) */
  uint64_t file_bytes;
} ReadResult;

static ReadResult
read_capture (const char *path, size_t n_events)
{
  ReadResult               r = { 0 };
  struct stat              st;
  SysprofCaptureReader    *reader;
  SysprofAllocationCursor *cursor;
  SysprofAllocationEvent   ev;
  uint64_t                 sum = 0;
  size_t                   n = 0;
  double                   start = now_ns ();

  reader = sysprof_capture_reader_new (path);
  cursor = sysprof_allocation_cursor_new (reader);
  r.index_ns = now_ns () - start;
  while (sysprof_allocation_cursor_next (cursor, &ev))
    {
      sum += ev.address + (ev.n_frames ? ev.frames[0] : 0);
      n++;
    }
  r.ns = now_ns () - start;
  if (stat (path, &st) == 0)
    r.file_bytes = (uint64_t) st.st_size;
  sysprof_allocation_cursor_unref (cursor);
  sysprof_capture_reader_unref (reader);
  if (n != n_events || sum == 0)
    {
      fprintf (stderr, "bench-memory-stream: read %zu events of %zu from %s\n", n, n_events, path);
      exit (1);
    }
  return r;
}

static void
write_captures (const Mix *mix, const Event *events, size_t n, const char *streams_path, const char *frames_path)
{
  static uint8_t             buffers[N_THREADS][BLOCK_BYTES];
  static uint64_t            id_of[N_THREADS][MAX_STACKS];
  static uint8_t             packed[BLOCK_BYTES + 1024];
  SysprofMemoryStreamEncoder enc[N_THREADS];
  uint64_t                   next_id[N_THREADS];
  SysprofCaptureWriter      *ws = sysprof_capture_writer_new (streams_path, 0);
  SysprofCaptureWriter      *wf = sysprof_capture_writer_new (frames_path, 0);

  memset (id_of, 0, sizeof id_of);
  for (unsigned t = 0; t < N_THREADS; t++)
    {
      sysprof_memory_stream_encoder_init (&enc[t], buffers[t], BLOCK_BYTES);
      next_id[t] = 1;
    }

#define FLUSH(t, last)                                                                              \
  do                                                                                                \
    {                                                                                               \
      char           path_[256];                                                                    \
      size_t         len_, zlen_;                                                                   \
      const uint8_t *block_ = sysprof_memory_stream_encoder_get_block (&enc[t], &len_);             \
      zlen_ = sysprof_memory_stream_compress (block_, len_, packed, sizeof packed, 1);              \
      sysprof_memory_stream_format_path (path_, sizeof path_, 2000 + (int) (t));                    \
      sysprof_capture_writer_add_file (ws, e->time, -1, 2000, path_, last, zlen_ ? packed : block_, \
                                       zlen_ ? zlen_ : len_);                                       \
      sysprof_memory_stream_encoder_clear (&enc[t]);                                                \
    }                                                                                               \
  while (0)

  for (size_t i = 0; i < n; i++)
    {
      const Event *e = &events[i];
      unsigned     t = (unsigned) (i / 1000) % N_THREADS;
      unsigned     depth = e->size ? mix->depth[e->stack] : 0;

      sysprof_capture_writer_add_allocation_copy (wf, e->time, 0, 2000, 2000 + (int) t, e->address, (int64_t) e->size,
                                                  depth ? mix->frames[e->stack] : NULL, depth);
      if (e->size == 0)
        {
          if (!sysprof_memory_stream_encoder_add_release (&enc[t], e->time, e->address))
            {
              FLUSH (t, false);
              sysprof_memory_stream_encoder_add_release (&enc[t], e->time, e->address);
            }
          continue;
        }
      if (id_of[t][e->stack] == 0)
        {
          id_of[t][e->stack] = next_id[t]++;
          if (!sysprof_memory_stream_encoder_add_stack (&enc[t], id_of[t][e->stack], mix->frames[e->stack],
                                                        mix->depth[e->stack]))
            {
              FLUSH (t, false);
              sysprof_memory_stream_encoder_add_stack (&enc[t], id_of[t][e->stack], mix->frames[e->stack],
                                                       mix->depth[e->stack]);
            }
        }
      if (!sysprof_memory_stream_encoder_add_allocation (&enc[t], e->time, e->address, e->size, id_of[t][e->stack]))
        {
          FLUSH (t, false);
          sysprof_memory_stream_encoder_add_allocation (&enc[t], e->time, e->address, e->size, id_of[t][e->stack]);
        }
    }
  for (unsigned t = 0; t < N_THREADS; t++)
    {
      const Event *e = &events[n - 1];

      FLUSH (t, true);
    }
#undef FLUSH
  sysprof_capture_writer_unref (ws);
  sysprof_capture_writer_unref (wf);
}

int
main (int argc, char **argv)
{
  static Mix  mixes[2];
  size_t      n_steps = 2000000;
  int         reps = 5;
  int         opt;
  const char *dir = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  char        streams_path[4096], frames_path[4096];

  while ((opt = getopt (argc, argv, "n:r:d:h")) != -1)
    switch (opt)
      {
      case 'n': n_steps = strtoul (optarg, NULL, 10) / 2; break;
      case 'r': reps = atoi (optarg); break;
      case 'd': dir = optarg; break;
      default:
        fprintf (stderr, "usage: bench-memory-stream [-n EVENTS] [-r REPS] [-d DIR]\n");
        return opt == 'h' ? 0 : 2;
      }
  snprintf (streams_path, sizeof streams_path, "%s/bench-memory-stream-%d-streams.syscap", dir, (int) getpid ());
  snprintf (frames_path, sizeof frames_path, "%s/bench-memory-stream-%d-frames.syscap", dir, (int) getpid ());
  if (n_steps == 0 || reps < 1)
    return 2;

  mixes[0].name = "workload";
  make_stacks (&mixes[0], 3, 8, 10);
  mixes[1].name = "deep";
  make_stacks (&mixes[1], MAX_STACKS, 20, 60);

  for (unsigned m = 0; m < 2; m++)
    {
      const Mix *mix = &mixes[m];
      size_t     n_events, out_len = 0;
      Event     *events = make_events (mix, n_steps, &n_events);
      uint8_t   *out = malloc (n_events * 16 + (size_t) MAX_STACKS * MAX_DEPTH * 10 + BLOCK_BYTES);
      Result     enc = { 1e300, 0, 0 }, frames = { 1e300, 0, 0 }, z = { 1e300, 0, 0 }, dec = { 1e300, 0, 0 };

      run_encoder (mix, events, n_events, out, &out_len);
      for (int rep = 0; rep < reps; rep++)
        {
          Result r = run_encoder (mix, events, n_events, NULL, NULL);
          Result f = run_frames (mix, events, n_events);
          Result rz, rd;

          run_zstd_and_decode (out, out_len, n_events, &rz, &rd);
          if (r.ns < enc.ns)
            enc = r;
          if (f.ns < frames.ns)
            frames = f;
          if (rz.ns < z.ns)
            z = rz;
          if (rd.ns < dec.ns)
            dec = rd;
        }

      printf ("mix=%s events=%zu stacks=%u\n", mix->name, n_events, mix->n_stacks);
      printf ("  encoder        %6.1f ns/event  %6.2f bytes/event  (%zu blocks)\n", enc.ns / (double) n_events,
              (double) enc.bytes / (double) n_events, enc.n_blocks);
      printf ("  + zstd -1      %6.1f ns/event  %6.2f bytes/event  (%.1f us/block)\n", z.ns / (double) n_events,
              (double) z.bytes / (double) n_events, z.ns / 1e3 / (double) z.n_blocks);
      printf ("  decoder (zstd) %6.1f ns/event\n", dec.ns / (double) n_events);
      printf ("  ALLOCATION     %6.1f ns/event  %6.2f bytes/event\n", frames.ns / (double) n_events,
              (double) frames.bytes / (double) n_events);
      printf ("  ratio frames/encoder: %.1fx time, %.1fx bytes raw, %.1fx bytes zstd\n", frames.ns / enc.ns,
              (double) frames.bytes / (double) enc.bytes, (double) frames.bytes / (double) z.bytes);

      {
        ReadResult rs = { 1e300, 0, 0 }, rf = { 1e300, 0, 0 };

        write_captures (mix, events, n_events, streams_path, frames_path);
        for (int rep = 0; rep < reps; rep++)
          {
            ReadResult a = read_capture (streams_path, n_events);
            ReadResult b = read_capture (frames_path, n_events);

            if (a.ns < rs.ns)
              rs = a;
            if (b.ns < rf.ns)
              rf = b;
          }
        unlink (streams_path);
        unlink (frames_path);
        printf ("  cursor, %d streams (zstd)   %6.1f ns/event (first pass %4.1f)  %6.2f file bytes/event\n", N_THREADS,
                rs.ns / (double) n_events, rs.index_ns / (double) n_events, (double) rs.file_bytes / (double) n_events);
        printf ("  cursor, ALLOCATION frames   %6.1f ns/event (first pass %4.1f)  %6.2f file bytes/event\n",
                rf.ns / (double) n_events, rf.index_ns / (double) n_events, (double) rf.file_bytes / (double) n_events);
      }
      free (out);
      free (events);
    }
  return 0;
}
