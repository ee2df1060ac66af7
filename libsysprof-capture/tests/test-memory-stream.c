// SPDX-License-Identifier: GPL-3.0-or-later
/* The memory stream codec (memory-stream.md): encoder to decoder round trips
 * over many blocks, raw and zstd, with wrapping deltas, 128-frame stacks,
 * resets and lost counts; one hand-made hostile block for every error of the
 * spec; the bounds on what a decoder keeps.  Blocks for the hostile cases are
 * written byte by byte here, with a varint writer of this file's own. */

#include <errno.h>

#include <glib.h>
#include <zstd.h>

#include <sysprof-capture.h>

/* The library's private stack store, tested on its own. */
#define SYSPROF_CAPTURE_COMPILATION 1
#include "sysprof-memory-stream-private.h"

/* ------------------------------------------------------------------------ */
/* Writing blocks by hand */

static void
put_u (GByteArray *b, guint64 v)
{
  do
    {
      guint8 c = v & 0x7f;

      v >>= 7;
      if (v != 0)
        c |= 0x80;
      g_byte_array_append (b, &c, 1);
    }
  while (v != 0);
}

static void
put_s (GByteArray *b, gint64 v)
{
  put_u (b, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static void
put_byte (GByteArray *b, guint8 c)
{
  g_byte_array_append (b, &c, 1);
}

static GByteArray *
raw_block (guint64 base_time)
{
  GByteArray *b = g_byte_array_new ();

  put_byte (b, 'R');
  put_u (b, base_time);
  return b;
}

static void
put_alloc (GByteArray *b, guint64 dt, gint64 daddr, guint64 size, guint64 stack)
{
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_ALLOCATION);
  put_u (b, dt);
  put_s (b, daddr);
  put_u (b, size);
  put_u (b, stack);
}

static void
put_release (GByteArray *b, guint64 dt, gint64 daddr)
{
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_RELEASE);
  put_u (b, dt);
  put_s (b, daddr);
}

static void
put_stack (GByteArray *b, guint64 id, guint n, const guint64 *frames)
{
  guint64 prev = 0;

  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_STACK);
  put_u (b, id);
  put_u (b, n);
  for (guint i = 0; i < n; i++)
    {
      put_s (b, (gint64) (frames[i] - prev));
      prev = frames[i];
    }
}

/* A 'Z' block around @raw, with a zstd frame that does (or does not) declare
 * its size, and the raw_length @raw_length. */
static GByteArray *
zstd_block (const guint8 *raw, gsize len, guint64 raw_length, gboolean declare_size)
{
  GByteArray *b = g_byte_array_new ();
  ZSTD_CCtx  *cctx = ZSTD_createCCtx ();
  gsize       bound = ZSTD_compressBound (len);
  gsize       start, n;

  put_byte (b, 'Z');
  put_u (b, raw_length);
  start = b->len;
  g_byte_array_set_size (b, start + bound);
  g_assert_false (ZSTD_isError (ZSTD_CCtx_setParameter (cctx, ZSTD_c_contentSizeFlag, declare_size)));
  if (declare_size)
    n = ZSTD_compress2 (cctx, b->data + start, bound, raw, len);
  else
    {
      /* The streaming API does not know the size up front. */
      ZSTD_inBuffer  in = { raw, len, 0 };
      ZSTD_outBuffer out = { b->data + start, bound, 0 };

      g_assert_cmpuint (ZSTD_compressStream2 (cctx, &out, &in, ZSTD_e_end), ==, 0);
      n = out.pos;
    }
  g_assert_false (ZSTD_isError (n));
  g_byte_array_set_size (b, start + n);
  ZSTD_freeCCtx (cctx);
  return b;
}

/* ------------------------------------------------------------------------ */
/* Paths */

static void
test_paths (void)
{
  static const char *bad[] = {
    "sysprof/memory-stream/",   "sysprof/memory-stream/-1",         "sysprof/memory-stream/+1",
    "sysprof/memory-stream/01", "sysprof/memory-stream/2147483648", "sysprof/memory-stream/12a",
    "sysprof/memory-stream/1 ", "sysprof/memory-streams/1",         "/proc/self/maps",
  };
  char    path[256];
  int32_t tid = -1;

  g_assert_true (sysprof_memory_stream_format_path (path, sizeof path, 4242));
  g_assert_cmpstr (path, ==, "sysprof/memory-stream/4242");
  g_assert_true (sysprof_memory_stream_parse_path (path, &tid));
  g_assert_cmpint (tid, ==, 4242);
  g_assert_true (sysprof_memory_stream_parse_path ("sysprof/memory-stream/2147483647", &tid));
  g_assert_cmpint (tid, ==, G_MAXINT32);
  g_assert_true (sysprof_memory_stream_parse_path ("sysprof/memory-stream/0", &tid));
  g_assert_cmpint (tid, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      errno = 0;
      g_assert_false (sysprof_memory_stream_parse_path (bad[i], &tid));
      g_assert_cmpint (errno, ==, EINVAL);
    }
  errno = 0;
  g_assert_false (sysprof_memory_stream_format_path (path, sizeof path, -1));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_false (sysprof_memory_stream_format_path (path, 10, 1));
}

/* ------------------------------------------------------------------------ */
/* Round trips */

#define N_STACKS 48

typedef struct
{
  gint64  time;
  guint64 address;
  gint64  size;
  gint    stack; /* index into the stacks of the run, -1 none */
} Expected;

typedef struct
{
  GRand                     *rand;
  guint64                    stacks[N_STACKS][SYSPROF_MEMORY_STREAM_MAX_FRAMES + 8];
  guint                      depth[N_STACKS];
  guint64                    id_of[N_STACKS]; /* 0: not defined since the last reset */
  guint64                    next_id;
  SysprofMemoryStreamEncoder enc;
  guint8                    *buffer;
  gsize                      capacity;
  gboolean                   compress;
  GPtrArray                 *blocks; /* GBytes */
  GArray                    *expected;
  gint64                     last_time;
  guint64                    lost;
  guint                      resets;
} RoundTrip;

static void
flush (RoundTrip *rt)
{
  const guint8 *data;
  gsize         len;

  data = sysprof_memory_stream_encoder_get_block (&rt->enc, &len);
  g_assert_nonnull (data);
  g_assert_cmpuint (len, <=, rt->capacity);
  g_assert_cmpuint (len, <=, SYSPROF_MEMORY_STREAM_MAX_BLOCK);
  g_assert_cmpuint (data[0], ==, 'R');
  if (rt->compress)
    {
      guint8 out[SYSPROF_MEMORY_STREAM_MAX_BLOCK];
      gsize  n = sysprof_memory_stream_compress (data, len, out, sizeof out, 1);

      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (out[0], ==, 'Z');
      g_ptr_array_add (rt->blocks, g_bytes_new (out, n));
    }
  else
    g_ptr_array_add (rt->blocks, g_bytes_new (data, len));
  sysprof_memory_stream_encoder_clear (&rt->enc);
  g_assert_true (sysprof_memory_stream_encoder_is_empty (&rt->enc));
}

/* Times: mostly small steps, some jumps of up to 2^62, some going backwards
 * (the encoder records those at the previous time), a few negative. */
static gint64
next_time (RoundTrip *rt, gint64 *recorded)
{
  guint32 r = g_rand_int_range (rt->rand, 0, 100);
  gint64  t;

  if (r < 80)
    t = rt->last_time + g_rand_int_range (rt->rand, 0, 5000);
  else if (r < 85 && rt->last_time < G_MAXINT64 / 2)
    t = rt->last_time + ((gint64) g_rand_int (rt->rand) << 30);
  else if (r < 95)
    t = rt->last_time - g_rand_int_range (rt->rand, 1, 1000);
  else
    t = -(gint64) g_rand_int (rt->rand);

  *recorded = t > rt->last_time ? t : rt->last_time;
  rt->last_time = *recorded;
  return t;
}

static guint64
next_address (RoundTrip *rt, guint64 prev)
{
  switch (g_rand_int_range (rt->rand, 0, 4))
    {
    case 0: return prev + g_rand_int_range (rt->rand, -4096, 4096);
    /* Deltas that wrap around 2^64 both ways. */
    case 1: return G_MAXUINT64 - g_rand_int_range (rt->rand, 0, 64);
    case 2: return g_rand_int_range (rt->rand, 0, 64);
    default: return ((guint64) g_rand_int (rt->rand) << 32) | g_rand_int (rt->rand);
    }
}

#define ADD_OR_FLUSH(rt, call)  \
  do                            \
    {                           \
      if (!(call))              \
        {                       \
          flush (rt);           \
          g_assert_true (call); \
        }                       \
    }                           \
  while (0)

static void
run_round_trip (gsize capacity, gboolean compress, guint n_events, guint32 seed)
{
  RoundTrip                   rt = { 0 };
  SysprofMemoryStreamDecoder *dec;
  SysprofMemoryStreamStats    stats;
  SysprofAllocationEvent      ev;
  guint64                     address = 0;
  guint                       n = 0;
  guint                       n_allocs = 0;

  rt.rand = g_rand_new_with_seed (seed);
  rt.capacity = capacity;
  rt.buffer = g_malloc (capacity);
  rt.compress = compress;
  rt.blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  rt.expected = g_array_new (FALSE, FALSE, sizeof (Expected));
  rt.next_id = 1;
  rt.last_time = 1000;
  g_assert_true (sysprof_memory_stream_encoder_init (&rt.enc, rt.buffer, capacity));

  /* Stacks of every depth up to 128 (and 130, cut to 128), with frames near
   * each other, far apart, and wrapping. */
  for (guint s = 0; s < N_STACKS; s++)
    {
      rt.depth[s] = s < 4 ? SYSPROF_MEMORY_STREAM_MAX_FRAMES + 2 * (s & 1) : (guint) g_rand_int_range (rt.rand, 0, 80);
      for (guint i = 0; i < rt.depth[s]; i++)
        rt.stacks[s][i] = s % 3 == 0   ? ((guint64) g_rand_int (rt.rand) << 32) | g_rand_int (rt.rand)
                          : s % 3 == 1 ? 0x55d0c0de0000u + g_rand_int_range (rt.rand, 0, 1 << 20)
                                       : (i & 1 ? G_MAXUINT64 - i : i);
    }

  for (guint i = 0; i < n_events; i++)
    {
      Expected e = { 0 };
      guint32  what = g_rand_int_range (rt.rand, 0, 100);
      gint64   t;

      if (what < 2)
        {
          guint64 lost = g_rand_int_range (rt.rand, 0, 1000);

          ADD_OR_FLUSH (&rt, sysprof_memory_stream_encoder_add_lost (&rt.enc, lost));
          rt.lost += lost;
          continue;
        }
      if (what < 3)
        {
          /* The ids start again from 1 with other stacks behind them. */
          ADD_OR_FLUSH (&rt, sysprof_memory_stream_encoder_add_reset (&rt.enc));
          memset (rt.id_of, 0, sizeof rt.id_of);
          rt.next_id = 1;
          rt.resets++;
          continue;
        }

      t = next_time (&rt, &e.time);
      e.address = address = next_address (&rt, address);
      if (what < 45)
        {
          /* A release */
          ADD_OR_FLUSH (&rt, sysprof_memory_stream_encoder_add_release (&rt.enc, t, e.address));
          e.stack = -1;
          e.size = 0;
        }
      else
        {
          guint64 size;
          guint64 id = 0;

          e.stack = what < 50 ? -1 : g_rand_int_range (rt.rand, 0, N_STACKS);
          if (e.stack >= 0)
            {
              if (rt.id_of[e.stack] == 0)
                {
                  rt.id_of[e.stack] = rt.next_id++;
                  ADD_OR_FLUSH (&rt, sysprof_memory_stream_encoder_add_stack (&rt.enc, rt.id_of[e.stack],
                                                                              rt.stacks[e.stack], rt.depth[e.stack]));
                }
              id = rt.id_of[e.stack];
            }
          switch (g_rand_int_range (rt.rand, 0, 10))
            {
            case 0: size = 0; break;
            case 1: size = G_MAXUINT64 - g_rand_int_range (rt.rand, 0, 3); break;
            case 2: size = G_MAXINT64; break;
            default: size = g_rand_int_range (rt.rand, 1, 100000); break;
            }
          e.size = size == 0 ? 1 : size > G_MAXINT64 ? G_MAXINT64 : (gint64) size;
          ADD_OR_FLUSH (&rt, sysprof_memory_stream_encoder_add_allocation (&rt.enc, t, e.address, size, id));
          n_allocs++;
        }
      g_array_append_val (rt.expected, e);
    }
  flush (&rt);

  dec = sysprof_memory_stream_decoder_new (10, 11);
  g_assert_nonnull (dec);
  for (guint b = 0; b < rt.blocks->len; b++)
    {
      gsize         len;
      const guint8 *data = g_bytes_get_data (g_ptr_array_index (rt.blocks, b), &len);

      g_assert_true (sysprof_memory_stream_decoder_feed (dec, data, len, 1000 + b));
      while (sysprof_memory_stream_decoder_next (dec, &ev))
        {
          const Expected *e;

          g_assert_cmpuint (n, <, rt.expected->len);
          e = &g_array_index (rt.expected, Expected, n);
          g_assert_cmpint (ev.time, ==, e->time);
          g_assert_cmpuint (ev.address, ==, e->address);
          g_assert_cmpint (ev.size, ==, e->size);
          g_assert_cmpint (ev.pid, ==, 10);
          g_assert_cmpint (ev.tid, ==, 11);
          g_assert_cmpint (ev.cpu, ==, -1);
          g_assert_cmpuint (ev.offset, ==, 1000 + b);
          if (e->stack < 0)
            {
              g_assert_cmpuint (ev.n_frames, ==, 0);
              g_assert_null (ev.frames);
              g_assert_cmpuint (ev.stack_key, ==, 0);
            }
          else
            {
              guint depth = MIN (rt.depth[e->stack], SYSPROF_MEMORY_STREAM_MAX_FRAMES);

              g_assert_cmpuint (ev.n_frames, ==, depth);
              g_assert_cmpmem (ev.frames, depth * 8, rt.stacks[e->stack], depth * 8);
              g_assert_cmpuint (ev.stack_key, !=, 0);
            }
          n++;
        }
    }
  g_assert_cmpuint (n, ==, rt.expected->len);
  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  g_assert_cmpuint (stats.blocks, ==, rt.blocks->len);
  g_assert_cmpuint (stats.events, ==, n);
  g_assert_cmpuint (stats.lost, ==, rt.lost);
  g_assert_cmpuint (stats.resets, ==, rt.resets);
  g_assert_cmpuint (stats.errors, ==, 0);
  g_assert_cmpuint (stats.skipped, ==, 0);
  g_assert_null (sysprof_memory_stream_decoder_get_error (dec));
  if (capacity < 8192)
    g_assert_cmpuint (rt.blocks->len, >, 20);
  g_assert_cmpuint (n_allocs, >, n_events / 3);

  sysprof_memory_stream_decoder_free (dec);
  g_ptr_array_unref (rt.blocks);
  g_array_unref (rt.expected);
  g_free (rt.buffer);
  g_rand_free (rt.rand);
}

static void
test_round_trip_small_blocks (void)
{
  run_round_trip (SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY, FALSE, 20000, 1);
}

static void
test_round_trip_large_blocks (void)
{
  /* Capacities over the maximum block are not used beyond it. */
  run_round_trip (2 * SYSPROF_MEMORY_STREAM_MAX_BLOCK, FALSE, 60000, 2);
}

static void
test_round_trip_zstd (void)
{
  run_round_trip (SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY, TRUE, 20000, 3);
  run_round_trip (SYSPROF_MEMORY_STREAM_MAX_BLOCK, TRUE, 60000, 4);
}

/* A full encoder refuses a record without changing anything, and takes it
 * once cleared; an empty encoder gives a block without events. */
static void
test_encoder_full (void)
{
  guint8                      buffer[SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY];
  SysprofMemoryStreamEncoder  enc;
  SysprofMemoryStreamDecoder *dec = sysprof_memory_stream_decoder_new (1, 1);
  SysprofAllocationEvent      ev;
  SysprofCaptureAddress       frames[SYSPROF_MEMORY_STREAM_MAX_FRAMES];
  const guint8               *data;
  g_autofree guint8          *copy = NULL;
  gsize                       len, len2;
  guint                       n = 0;

  errno = 0;
  g_assert_false (sysprof_memory_stream_encoder_init (&enc, buffer, SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY - 1));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_true (sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer));

  /* Empty: 'R', base_time 0, nothing else. */
  g_assert_true (sysprof_memory_stream_encoder_is_empty (&enc));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_cmpuint (len, ==, 2);
  g_assert_cmpmem (data, len, "R\0", 2);

  /* Every delta 2^62: ten bytes each, the largest stack record. */
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    frames[i] = (guint64) (i + 1) << 62;
  while (sysprof_memory_stream_encoder_add_allocation (&enc, 1000 + n, 0x1000 * n, 32, 0))
    n++;
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  copy = g_memdup2 (data, len);
  errno = 0;
  g_assert_false (sysprof_memory_stream_encoder_add_stack (&enc, 7, frames, G_N_ELEMENTS (frames)));
  g_assert_false (sysprof_memory_stream_encoder_add_release (&enc, G_MAXINT64, G_MAXUINT64 / 3));
  g_assert_cmpint (errno, ==, 0);
  data = sysprof_memory_stream_encoder_get_block (&enc, &len2);
  g_assert_cmpmem (data, len2, copy, len);
  g_assert_cmpuint (len, >, sizeof buffer - 11 - 41);

  g_assert_true (sysprof_memory_stream_decoder_feed (dec, data, len, UINT64_MAX));
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (sysprof_memory_stream_decoder_next (dec, &ev));
      g_assert_cmpint (ev.time, ==, 1000 + i);
      g_assert_cmpuint (ev.address, ==, 0x1000 * i);
    }
  g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));

  /* The largest record fits a cleared encoder; the block's base_time is the
   * stream's last time while it has no event. */
  sysprof_memory_stream_encoder_clear (&enc);
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 7, frames, G_N_ELEMENTS (frames)));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 0, frames, 3));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  /* 'R', a 2-byte base_time, then tag, id, a 2-byte count and 128 frames. */
  g_assert_cmpuint (len, ==, 3 + 1 + 1 + 2 + 128 * 10);
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, data, len, UINT64_MAX));
  g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));
  sysprof_memory_stream_encoder_clear (&enc);
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, 5, 0, 1, 7));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, data, len, UINT64_MAX));
  g_assert_true (sysprof_memory_stream_decoder_next (dec, &ev));
  g_assert_cmpint (ev.time, ==, 1000 + n - 1);
  g_assert_cmpuint (ev.n_frames, ==, 128);
  g_assert_cmpmem (ev.frames, 128 * 8, frames, 128 * 8);
  g_assert_null (sysprof_memory_stream_decoder_get_error (dec));

  /* get_room's promise, as the tracker uses it: with
   * SYSPROF_MEMORY_STREAM_MAX_EVENT_BYTES left, the worst event (a reset,
   * a 128-frame stack of ten-byte deltas, an allocation of ten-byte fields)
   * fits, and the room shrinks by exactly what was written (the header is
   * final from the block's first event on). */
  sysprof_memory_stream_encoder_clear (&enc);
  g_assert_cmpuint (sysprof_memory_stream_encoder_get_room (&enc), ==, sizeof buffer - 11);
  g_assert_cmpuint (sysprof_memory_stream_encoder_get_room (NULL), ==, 0);
  for (guint64 id = 100;; id++)
    {
      gsize room = sysprof_memory_stream_encoder_get_room (&enc), before, after;

      data = sysprof_memory_stream_encoder_get_block (&enc, &before);
      if (room < SYSPROF_MEMORY_STREAM_MAX_EVENT_BYTES)
        break;
      g_assert_true (sysprof_memory_stream_encoder_add_reset (&enc));
      g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, id, frames, G_N_ELEMENTS (frames)));
      g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, G_MAXINT64, G_MAXUINT64 / 3 * (id & 1),
                                                                   G_MAXINT64, G_MAXUINT64));
      data = sysprof_memory_stream_encoder_get_block (&enc, &after);
      if (id > 100)
        g_assert_cmpuint (sysprof_memory_stream_encoder_get_room (&enc), ==, room - (after - before));
    }

  /* A block not read to its end: its stack records still apply. */
  sysprof_memory_stream_encoder_clear (&enc);
  g_assert_true (sysprof_memory_stream_encoder_add_release (&enc, 2000, 1));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 8, frames, 2));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, data, len, UINT64_MAX));
  sysprof_memory_stream_encoder_clear (&enc);
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, 2001, 1, 1, 8));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, data, len, UINT64_MAX));
  g_assert_true (sysprof_memory_stream_decoder_next (dec, &ev));
  g_assert_cmpuint (ev.n_frames, ==, 2);
  {
    SysprofMemoryStreamStats stats;

    sysprof_memory_stream_decoder_get_stats (dec, &stats);
    g_assert_cmpuint (stats.skipped, ==, 1);
    g_assert_cmpuint (stats.errors, ==, 0);
  }

  /* No data at all: an empty block, no error. */
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, NULL, 0, UINT64_MAX));
  g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));
  g_assert_null (sysprof_memory_stream_decoder_get_error (dec));
  sysprof_memory_stream_decoder_free (dec);

  /* Compressing a block that does not shrink into a buffer its size fails. */
  {
    guint8 out[64];
    guint8 raw[64];

    raw[0] = 'R';
    for (guint i = 1; i < sizeof raw; i++)
      raw[i] = (guint8) g_random_int ();
    errno = 0;
    g_assert_cmpuint (sysprof_memory_stream_compress (raw, sizeof raw, out, sizeof out, 1), ==, 0);
    g_assert_cmpint (errno, ==, ENOSPC);
    errno = 0;
    raw[0] = 'Z';
    g_assert_cmpuint (sysprof_memory_stream_compress (raw, sizeof raw, out, sizeof out, 1), ==, 0);
    g_assert_cmpint (errno, ==, EINVAL);
  }
}

/* What a drainer uses: counts of a raw block's records without decoding it,
 * and a compressor kept from block to block whose blocks decode. */
static void
test_count_and_compressor (void)
{
  static const guint64           frames[4] = { 0x401000, 0x401100, 0x7f0000001000, 0x7f0000002000 };
  guint8                         buffer[SYSPROF_MEMORY_STREAM_MAX_BLOCK];
  guint8                         packed[SYSPROF_MEMORY_STREAM_MAX_BLOCK];
  SysprofMemoryStreamEncoder     enc;
  SysprofMemoryStreamCounts      counts = { 0 };
  SysprofMemoryStreamCompressor *z = sysprof_memory_stream_compressor_new (1);
  SysprofMemoryStreamDecoder    *dec = NULL;
  SysprofAllocationEvent         ev;
  const guint8                  *data;
  gsize                          len, zlen;
  guint                          n_alloc = 0, n_free = 0, n_events = 0;

  g_assert_nonnull (z);
  g_assert_true (sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 1, frames, 4));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 2, frames, 2));
  for (guint i = 0; sysprof_memory_stream_encoder_get_room (&enc) > 64; i++)
    {
      if (i % 3 == 2)
        {
          g_assert_true (sysprof_memory_stream_encoder_add_release (&enc, 1000 + i, 0x5000 + 16 * (i - 1)));
          n_free++;
        }
      else
        {
          g_assert_true (
              sysprof_memory_stream_encoder_add_allocation (&enc, 1000 + i, 0x5000 + 16 * i, 16 + i % 7, 1 + i % 2));
          n_alloc++;
        }
    }
  g_assert_true (sysprof_memory_stream_encoder_add_reset (&enc));
  g_assert_true (sysprof_memory_stream_encoder_add_lost (&enc, 5));
  g_assert_true (sysprof_memory_stream_encoder_add_lost (&enc, 7));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_true (sysprof_memory_stream_count (data, len, &counts));
  g_assert_cmpuint (counts.allocations, ==, n_alloc);
  g_assert_cmpuint (counts.releases, ==, n_free);
  g_assert_cmpuint (counts.stacks, ==, 2);
  g_assert_cmpuint (counts.resets, ==, 1);
  g_assert_cmpuint (counts.lost, ==, 12);

  /* Counts add up; a cut record stops the count with EINVAL, the records
   * before it counted; a 'Z' block is not counted. */
  g_assert_true (sysprof_memory_stream_count (data, len, &counts));
  g_assert_cmpuint (counts.allocations, ==, 2 * n_alloc);
  memset (&counts, 0, sizeof counts);
  errno = 0;
  g_assert_false (sysprof_memory_stream_count (data, len - 1, &counts));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_cmpuint (counts.allocations, ==, n_alloc);
  g_assert_cmpuint (counts.lost, ==, 5);

  /* The compressor, twice with one context: both blocks decode to every
   * event (as two streams: times never go back within one). */
  for (guint round = 0; round < 2; round++)
    {
      g_clear_pointer (&dec, sysprof_memory_stream_decoder_free);
      dec = sysprof_memory_stream_decoder_new (1, 1 + round);
      zlen = sysprof_memory_stream_compressor_pack (z, data, len, packed, sizeof packed);
      g_assert_cmpuint (zlen, >, 0);
      g_assert_cmpuint (zlen, <, len / 4);
      g_assert_cmpint (packed[0], ==, SYSPROF_MEMORY_STREAM_BLOCK_ZSTD);
      memset (&counts, 0, sizeof counts);
      errno = 0;
      g_assert_false (sysprof_memory_stream_count (packed, zlen, &counts));
      g_assert_cmpint (errno, ==, EINVAL);
      g_assert_true (sysprof_memory_stream_decoder_feed (dec, packed, zlen, UINT64_MAX));
      while (sysprof_memory_stream_decoder_next (dec, &ev))
        n_events++;
      g_assert_null (sysprof_memory_stream_decoder_get_error (dec));
    }
  g_assert_cmpuint (n_events, ==, 2 * (n_alloc + n_free));
  /* Too small an output: ENOSPC, as for the one-shot function. */
  errno = 0;
  g_assert_cmpuint (sysprof_memory_stream_compressor_pack (z, data, len, packed, 8), ==, 0);
  g_assert_cmpint (errno, ==, ENOSPC);
  sysprof_memory_stream_compressor_free (z);
  sysprof_memory_stream_compressor_free (NULL);
  sysprof_memory_stream_decoder_free (dec);
}

typedef struct
{
  gint64  times[8];
  guint   n_frames[8];
  guint64 first[8];
  guint   n;
} Scanned;

static void
scanned_cb (gint64 time, const SysprofCaptureAddress *frames, unsigned int n_frames, void *user_data)
{
  Scanned *s = user_data;

  g_assert_cmpuint (s->n, <, G_N_ELEMENTS (s->times));
  s->times[s->n] = time;
  s->n_frames[s->n] = n_frames;
  s->first[s->n] = frames[0];
  s->n++;
}

/* The scanner (the symbol map's reader): every stack record with frames, raw
 * or compressed, with the time of the event before it; events skipped; a
 * cut block gives what came before the cut. */
static void
test_scanner (void)
{
  static const guint64        frames[3] = { 0x401000, 0x401100, 0x7f0000001000 };
  guint8                      buffer[4096], packed[4096];
  SysprofMemoryStreamEncoder  enc;
  SysprofMemoryStreamScanner *scanner = sysprof_memory_stream_scanner_new ();
  const guint8               *data;
  gsize                       len, zlen;
  Scanned                     s = { 0 };

  g_assert_true (sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 1, frames, 3));
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, 5000, 0x1000, 16, 1));
  g_assert_true (sysprof_memory_stream_encoder_add_release (&enc, 5100, 0x1000));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 2, frames + 1, 2));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 3, frames, 0));
  g_assert_true (sysprof_memory_stream_encoder_add_lost (&enc, 4));
  g_assert_true (sysprof_memory_stream_encoder_add_reset (&enc));
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, 5200, 0x2000, 16, 2));
  data = sysprof_memory_stream_encoder_get_block (&enc, &len);

  for (guint round = 0; round < 2; round++)
    {
      const guint8 *block = data;
      gsize         block_len = len;

      if (round == 1)
        {
          zlen = sysprof_memory_stream_compress (data, len, packed, sizeof packed, 1);
          if (zlen == 0)
            continue;
          block = packed;
          block_len = zlen;
        }
      memset (&s, 0, sizeof s);
      g_assert_true (sysprof_memory_stream_scanner_scan (scanner, block, block_len, scanned_cb, &s));
      g_assert_cmpuint (s.n, ==, 2);
      /* The first before any event: the block's base_time, its first event's. */
      g_assert_cmpint (s.times[0], ==, 5000);
      g_assert_cmpuint (s.n_frames[0], ==, 3);
      g_assert_cmpuint (s.first[0], ==, frames[0]);
      g_assert_cmpint (s.times[1], ==, 5100);
      g_assert_cmpuint (s.n_frames[1], ==, 2);
      g_assert_cmpuint (s.first[1], ==, frames[1]);
    }

  /* Cut inside the second stack record: the first is given, EINVAL. */
  memset (&s, 0, sizeof s);
  errno = 0;
  g_assert_false (sysprof_memory_stream_scanner_scan (scanner, data, len - 14, scanned_cb, &s));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_cmpuint (s.n, ==, 1);
  /* Not a block; a 'Z' block that does not inflate; nothing at all. */
  memset (&s, 0, sizeof s);
  errno = 0;
  g_assert_false (sysprof_memory_stream_scanner_scan (scanner, "Q", 1, scanned_cb, &s));
  g_assert_cmpint (errno, ==, EINVAL);
  errno = 0;
  g_assert_false (sysprof_memory_stream_scanner_scan (scanner, "Z\x10garbage", 9, scanned_cb, &s));
  g_assert_cmpint (errno, ==, EINVAL);
  g_assert_true (sysprof_memory_stream_scanner_scan (scanner, NULL, 0, scanned_cb, &s));
  g_assert_cmpuint (s.n, ==, 0);
  sysprof_memory_stream_scanner_free (scanner);
  sysprof_memory_stream_scanner_free (NULL);
}

/* ------------------------------------------------------------------------ */
/* Hostile blocks */

static const guint64 frames3[3] = { 0x401000, 0x401100, 0x7f0000001000 };

/* Feeds @block to @dec as the block at capture offset @offset and returns
 * the number of events it gives. */
static guint
feed_count (SysprofMemoryStreamDecoder *dec, GByteArray *block, guint64 offset)
{
  SysprofAllocationEvent ev;
  guint                  n = 0;

  g_assert_true (sysprof_memory_stream_decoder_feed (dec, block->data, block->len, offset));
  while (sysprof_memory_stream_decoder_next (dec, &ev))
    n++;
  g_byte_array_unref (block);
  return n;
}

/* A stream whose first block defines id 1 (three frames) with an event at
 * time 1000; then @bad (one release at 2000, then @n_good more events, then
 * the problem); then a block using ids 1 and 7 (7 defined in @bad before its
 * problem when @defines_7).  The bad block must give its events before the
 * problem, one error described with @expected (followed by " (byte @at)" of
 * the record at fault when @at >= 0), and the stream go on. */
static void
check_bad_block (GByteArray *bad, guint n_good, gint at, const char *expected, gboolean defines_7)
{
  SysprofMemoryStreamDecoder *dec = sysprof_memory_stream_decoder_new (100, 101);
  SysprofMemoryStreamStats    stats;
  GByteArray                 *b;
  const char                 *error;
  g_autofree char            *want = NULL;

  b = raw_block (1000);
  put_stack (b, 1, 3, frames3);
  put_alloc (b, 0, 0x5000, 64, 1);
  g_assert_cmpuint (feed_count (dec, b, 300), ==, 1);

  g_assert_cmpuint (feed_count (dec, bad, 4242), ==, n_good);

  b = raw_block (5000);
  put_alloc (b, 0, 0x6000, 16, 1);
  if (defines_7)
    put_alloc (b, 1, 16, 16, 7);
  put_release (b, 1, -16);
  g_assert_cmpuint (feed_count (dec, b, 9000), ==, defines_7 ? 3 : 2);

  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  g_assert_cmpuint (stats.errors, ==, 1);
  g_assert_cmpuint (stats.blocks, ==, 3);
  error = sysprof_memory_stream_decoder_get_error (dec);
  g_assert_nonnull (error);
  g_test_message ("%s", error);
  if (at >= 0)
    want = g_strdup_printf (
        "memory stream of thread 101 of process 100, the block at capture offset 4242: %s (byte %d)", expected, at);
  else
    want =
        g_strdup_printf ("memory stream of thread 101 of process 100, the block at capture offset 4242: %s", expected);
  g_assert_cmpstr (error, ==, want);
  sysprof_memory_stream_decoder_free (dec);
}

/* The bad block's start: base 2000, one release, and id 7 defined. */
static GByteArray *
bad_start (void)
{
  GByteArray *b = raw_block (2000);

  put_release (b, 0, 0x5000);
  put_stack (b, 7, 2, frames3);
  return b;
}

static void
test_hostile_records (void)
{
  GByteArray *b;
  guint       at;

  b = bad_start ();
  at = b->len;
  put_byte (b, 0x06);
  check_bad_block (b, 1, at, "unknown record tag 0x06", TRUE);

  b = bad_start ();
  at = b->len;
  put_byte (b, 0x00);
  check_bad_block (b, 1, at, "unknown record tag 0x00", TRUE);

  b = bad_start ();
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_ALLOCATION);
  at = b->len;
  put_byte (b, 0x80);
  check_bad_block (b, 1, at, "the block ends inside the varint dt of an allocation", TRUE);

  /* Eleven bytes. */
  b = bad_start ();
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_RELEASE);
  put_u (b, 1);
  at = b->len;
  for (guint i = 0; i < 10; i++)
    put_byte (b, 0x81);
  put_byte (b, 0x01);
  check_bad_block (b, 1, at, "the varint address of a release is longer than 10 bytes or 64 bits", TRUE);

  /* Ten bytes, but 65 bits. */
  b = bad_start ();
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_LOST);
  at = b->len;
  for (guint i = 0; i < 9; i++)
    put_byte (b, 0xff);
  put_byte (b, 0x02);
  check_bad_block (b, 1, at, "the varint count of a lost record is longer than 10 bytes or 64 bits", TRUE);

  b = bad_start ();
  at = b->len;
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_STACK);
  put_u (b, 9);
  put_u (b, 129);
  for (guint i = 0; i < 129; i++)
    put_u (b, 2);
  check_bad_block (b, 1, at, "stack 9 has 129 frames, more than 128", TRUE);

  b = bad_start ();
  put_stack (b, 9, 2, frames3);
  b->len--;
  check_bad_block (b, 1, b->len - 1, "the block ends inside the varint frame of a stack record", TRUE);

  b = bad_start ();
  at = b->len;
  put_alloc (b, 1, 0, 0, 1);
  check_bad_block (b, 1, at, "an allocation has size 0 (not 1 to 2^63-1)", TRUE);

  b = bad_start ();
  at = b->len;
  put_alloc (b, 1, 0, (guint64) G_MAXINT64 + 1, 1);
  check_bad_block (b, 1, at, "an allocation has size 9223372036854775808 (not 1 to 2^63-1)", TRUE);

  b = bad_start ();
  put_release (b, 1, 8);
  at = b->len;
  put_alloc (b, 1, 8, 8, 99);
  check_bad_block (b, 2, at, "an allocation names stack id 99, which is not defined", TRUE);

  b = bad_start ();
  at = b->len;
  put_stack (b, 1, 1, frames3);
  check_bad_block (b, 1, at, "stack id 1 is defined twice", TRUE);

  b = bad_start ();
  at = b->len;
  put_stack (b, 0, 1, frames3);
  check_bad_block (b, 1, at, "a stack record defines id 0", TRUE);

  /* Before the previous block's event at 1000... */
  b = raw_block (900);
  at = b->len;
  put_release (b, 50, 0x5000);
  check_bad_block (b, 0, at, "time goes backwards: an event at 950 follows one at 1000", FALSE);

  /* ...or past 2^63-1. */
  b = bad_start ();
  at = b->len;
  put_release (b, G_MAXINT64 - 1000, 0);
  check_bad_block (b, 1, at, "time goes backwards: the event's time overflows (previous 2000, dt 9223372036854774807)",
                   TRUE);
  b = bad_start ();
  at = b->len;
  put_release (b, G_MAXUINT64 - 1000, 0);
  check_bad_block (b, 1, at, "time goes backwards: the event's time overflows (previous 2000, dt 18446744073709550615)",
                   TRUE);

  b = g_byte_array_new ();
  put_byte (b, 'R');
  put_u (b, (guint64) G_MAXINT64 + 1);
  put_release (b, 0, 0);
  check_bad_block (b, 0, 1, "its base_time 9223372036854775808 is over 2^63-1", FALSE);

  b = g_byte_array_new ();
  put_byte (b, 'R');
  check_bad_block (b, 0, 1, "the block ends inside the varint base_time", FALSE);

  b = g_byte_array_new ();
  put_byte (b, 'X');
  put_u (b, 2000);
  check_bad_block (b, 0, -1, "unknown block type 0x58", FALSE);
}

/* Ids of any size: small ones (looked up by index), the first past that
 * range and huge ones (hashed) name their stacks, are refused when defined
 * twice or not defined, and a reset forgets them all. */
static void
test_id_ranges (void)
{
  SysprofMemoryStreamDecoder *dec = sysprof_memory_stream_decoder_new (100, 101);
  const guint64               ids[] = { 1, 2, 131071, 131072, 131073, G_GUINT64_CONSTANT (1) << 40, G_MAXUINT64 };
  SysprofAllocationEvent      ev;
  SysprofMemoryStreamStats    stats;
  GByteArray                 *b = raw_block (1000);
  guint64                     frames[G_N_ELEMENTS (ids)][2];

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      frames[i][0] = 0x401000 + i;
      frames[i][1] = 0x7f0000001000;
      put_stack (b, ids[i], 2, frames[i]);
    }
  for (guint i = G_N_ELEMENTS (ids); i-- > 0;)
    put_alloc (b, 1, 16, 8 + i, ids[i]);
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, b->data, b->len, 0));
  for (guint i = G_N_ELEMENTS (ids); i-- > 0;)
    {
      g_assert_true (sysprof_memory_stream_decoder_next (dec, &ev));
      g_assert_cmpint (ev.size, ==, 8 + i);
      g_assert_cmpuint (ev.n_frames, ==, 2);
      g_assert_cmpmem (ev.frames, 2 * sizeof (guint64), frames[i], 2 * sizeof (guint64));
      g_assert_cmpuint (ev.stack_key, !=, 0);
    }
  g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));
  g_byte_array_unref (b);

  /* Defined twice, in either range. */
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *want = g_strdup_printf ("stack id %" G_GUINT64_FORMAT " is defined twice", ids[i]);

      b = raw_block (2000);
      put_stack (b, ids[i], 2, frames[0]);
      g_assert_true (sysprof_memory_stream_decoder_feed (dec, b->data, b->len, 100 + i));
      g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));
      sysprof_memory_stream_decoder_get_stats (dec, &stats);
      g_assert_cmpuint (stats.errors, ==, i + 1);
      if (i == 0)
        g_assert_nonnull (strstr (sysprof_memory_stream_decoder_get_error (dec), want));
      g_byte_array_unref (b);
    }

  /* After a reset, none is defined: each allocation naming one ends its block. */
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      b = raw_block (3000);
      if (i == 0)
        put_byte (b, SYSPROF_MEMORY_STREAM_TAG_RESET);
      put_alloc (b, 1, 16, 8, ids[i]);
      g_assert_true (sysprof_memory_stream_decoder_feed (dec, b->data, b->len, 200 + i));
      g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));
      g_byte_array_unref (b);
    }
  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  g_assert_cmpuint (stats.errors, ==, 2 * G_N_ELEMENTS (ids));
  g_assert_cmpuint (stats.resets, ==, 1);
  sysprof_memory_stream_decoder_free (dec);
}

static void
test_hostile_zstd (void)
{
  GByteArray        *raw = bad_start ();
  GByteArray        *b;
  g_autofree guint8 *zeros = g_malloc0 (2 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH);
  g_autofree char   *text = NULL;
  guint              at = raw->len;

  /* A sound 'Z' block around a bad record: it is found as in a raw block. */
  put_byte (raw, 0x06);
  b = zstd_block (raw->data, raw->len, raw->len, TRUE);
  text = g_strdup_printf ("unknown record tag 0x06 (byte %u once decompressed)", at);
  check_bad_block (b, 1, -1, text, TRUE);

  g_clear_pointer (&text, g_free);
  text = g_strdup_printf ("its zstd block is unsound: its zstd frame holds %u bytes, not the %u of its raw_length",
                          raw->len, raw->len + 1);
  b = zstd_block (raw->data, raw->len, raw->len + 1, TRUE);
  check_bad_block (b, 0, -1, text, FALSE);

  g_clear_pointer (&text, g_free);
  text = g_strdup_printf ("its zstd block is unsound: its zstd frame decompresses to %u bytes, not the %u of its "
                          "raw_length",
                          raw->len, raw->len + 1);
  b = zstd_block (raw->data, raw->len, raw->len + 1, FALSE);
  check_bad_block (b, 0, -1, text, FALSE);

  g_clear_pointer (&text, g_free);
  text = g_strdup_printf ("its zstd block is unsound: its zstd frame decompresses to more than its raw_length of %u "
                          "bytes",
                          raw->len - 1);
  b = zstd_block (raw->data, raw->len, raw->len - 1, FALSE);
  check_bad_block (b, 0, -1, text, FALSE);

  /* Bombs: 2 MiB that say so, that do not, and a raw_length over 1 MiB. */
  zeros[0] = 'R';
  b = zstd_block (zeros, 2 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, TRUE);
  check_bad_block (b, 0, -1,
                   "its zstd block is unsound: its zstd frame holds 2097152 bytes, not the 1048576 of its raw_length",
                   FALSE);
  b = zstd_block (zeros, 2 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, FALSE);
  check_bad_block (
      b, 0, -1, "its zstd block is unsound: its zstd frame decompresses to more than its raw_length of 1048576 bytes",
      FALSE);
  b = zstd_block (zeros, 2 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, 2 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, TRUE);
  check_bad_block (b, 0, -1, "its zstd block is unsound: its raw_length 2097152 is over the bound of 1048576 bytes",
                   FALSE);

  b = zstd_block (raw->data, raw->len, raw->len, TRUE);
  put_byte (b, 0);
  check_bad_block (b, 0, -1, "its zstd block is unsound: 1 byte follows its zstd frame", FALSE);

  b = zstd_block (raw->data, raw->len, raw->len, TRUE);
  b->len -= 2;
  check_bad_block (b, 0, -1, "its zstd block is unsound: its data is not a zstd frame (Src size is incorrect)", FALSE);

  b = g_byte_array_new ();
  put_byte (b, 'Z');
  put_u (b, 4);
  g_byte_array_append (b, (const guint8 *) "RRRRRRRRRRRRRRRR", 16);
  check_bad_block (b, 0, -1, "its zstd block is unsound: its data is not a zstd frame (Unknown frame descriptor)",
                   FALSE);

  b = g_byte_array_new ();
  put_byte (b, 'Z');
  put_byte (b, 0x80);
  check_bad_block (b, 0, -1, "its zstd block is unsound: its raw_length is a truncated varint", FALSE);

  /* A 'Z' block inside a 'Z' block. */
  {
    GByteArray *inner = zstd_block (raw->data, raw->len, raw->len, TRUE);

    b = zstd_block (inner->data, inner->len, inner->len, TRUE);
    check_bad_block (b, 0, -1, "its zstd block does not decompress to a raw block", FALSE);
    g_byte_array_unref (inner);
  }

  g_byte_array_unref (raw);
}

/* A stream that defines more ids than a stream may hold gets one refusal,
 * counted as an error; a reset makes room again. */
static void
test_stack_limit (void)
{
  SysprofMemoryStreamDecoder *dec = sysprof_memory_stream_decoder_new (1, 2);
  SysprofMemoryStreamStats    stats;
  GByteArray                 *b = raw_block (0);
  guint64                     id = 1;
  guint                       n_blocks = 0;

  while (id <= SYSPROF_MEMORY_STREAM_MAX_STACKS + 1)
    {
      /* Alternate two stacks: the store keeps each once. */
      put_stack (b, id, 1 + (id & 1), frames3);
      if (b->len > SYSPROF_MEMORY_STREAM_MAX_BLOCK - 32 || id == SYSPROF_MEMORY_STREAM_MAX_STACKS + 1)
        {
          g_assert_cmpuint (feed_count (dec, b, 64 * n_blocks++), ==, 0);
          b = raw_block (0);
        }
      id++;
    }
  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  g_assert_cmpuint (stats.errors, ==, 1);
  g_assert_cmpuint (stats.stacks, ==, SYSPROF_MEMORY_STREAM_MAX_STACKS);
  g_assert_true (strstr (sysprof_memory_stream_decoder_get_error (dec), "stack id 1048577 is refused: the stream "
                                                                        "already has 1048576 ids defined") != NULL);

  put_alloc (b, 0, 0x10, 8, SYSPROF_MEMORY_STREAM_MAX_STACKS);
  put_alloc (b, 0, 0x10, 8, SYSPROF_MEMORY_STREAM_MAX_STACKS + 1);
  g_assert_cmpuint (feed_count (dec, b, 1), ==, 1);

  b = raw_block (0);
  put_byte (b, SYSPROF_MEMORY_STREAM_TAG_RESET);
  put_stack (b, SYSPROF_MEMORY_STREAM_MAX_STACKS + 1, 3, frames3);
  put_alloc (b, 0, 0x10, 8, SYSPROF_MEMORY_STREAM_MAX_STACKS + 1);
  g_assert_cmpuint (feed_count (dec, b, 2), ==, 1);
  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  g_assert_cmpuint (stats.errors, ==, 2);
  g_assert_cmpuint (stats.resets, ==, 1);
  sysprof_memory_stream_decoder_free (dec);
}

/* The store shared by the decoders of a cursor: identical stacks of
 * different streams are one (same key), and its bounds refuse definitions. */
static void
test_shared_store_bounds (void)
{
  SysprofMemoryStreamShared  *shared = _sysprof_memory_stream_shared_new (4, 5);
  SysprofMemoryStreamDecoder *a = _sysprof_memory_stream_decoder_new_shared (1, 1, shared);
  SysprofMemoryStreamDecoder *b = _sysprof_memory_stream_decoder_new_shared (1, 2, shared);
  SysprofAllocationEvent      ev;
  SysprofMemoryStreamStats    stats;
  GByteArray                 *blk;
  guint64                     key_a, key_b;
  guint                       at;
  g_autofree char            *want = NULL;

  blk = raw_block (10);
  put_stack (blk, 1, 3, frames3);
  put_alloc (blk, 0, 0x10, 8, 1);
  g_assert_true (sysprof_memory_stream_decoder_feed (a, blk->data, blk->len, 1));
  g_assert_true (sysprof_memory_stream_decoder_next (a, &ev));
  key_a = ev.stack_key;
  g_byte_array_unref (blk);

  /* Same frames in another stream (3 frames stored, 2 ids), then 2 more
   * frames fit, a third does not. */
  blk = raw_block (10);
  put_stack (blk, 5, 3, frames3);
  put_alloc (blk, 0, 0x10, 8, 5);
  put_stack (blk, 6, 2, frames3 + 1);
  at = blk->len;
  put_stack (blk, 8, 1, frames3 + 2);
  put_release (blk, 0, 0);
  g_assert_true (sysprof_memory_stream_decoder_feed (b, blk->data, blk->len, 77));
  g_assert_true (sysprof_memory_stream_decoder_next (b, &ev));
  key_b = ev.stack_key;
  g_assert_cmpuint (key_a, ==, key_b);
  g_assert_cmpmem (ev.frames, 24, frames3, 24);
  g_assert_false (sysprof_memory_stream_decoder_next (b, &ev));
  want = g_strdup_printf ("memory stream of thread 2 of process 1, the block at capture offset 77: stack id 8 is "
                          "refused: the reader keeps at most 4 stack ids and 5 frames of all streams (byte %u)",
                          at);
  g_assert_cmpstr (sysprof_memory_stream_decoder_get_error (b), ==, want);
  g_byte_array_unref (blk);

  /* An empty stack costs an id only; then the ids are used up. */
  blk = raw_block (10);
  put_stack (blk, 2, 0, NULL);
  put_stack (blk, 3, 0, NULL);
  put_alloc (blk, 0, 0x10, 8, 2);
  g_assert_true (sysprof_memory_stream_decoder_feed (a, blk->data, blk->len, 2));
  g_assert_false (sysprof_memory_stream_decoder_next (a, &ev));
  sysprof_memory_stream_decoder_get_stats (a, &stats);
  g_assert_cmpuint (stats.errors, ==, 1);
  g_assert_cmpuint (stats.stacks, ==, 2);
  g_byte_array_unref (blk);

  /* A reset gives them back; the stack stays stored while b names it. */
  blk = raw_block (10);
  put_byte (blk, SYSPROF_MEMORY_STREAM_TAG_RESET);
  put_stack (blk, 4, 0, NULL);
  put_alloc (blk, 0, 0x10, 8, 4);
  g_assert_true (sysprof_memory_stream_decoder_feed (a, blk->data, blk->len, 3));
  g_assert_true (sysprof_memory_stream_decoder_next (a, &ev));
  g_assert_cmpuint (ev.n_frames, ==, 0);
  g_assert_null (ev.frames);
  g_assert_cmpuint (ev.stack_key, !=, 0);
  g_assert_cmpuint (ev.stack_key, !=, key_a);
  g_byte_array_unref (blk);

  sysprof_memory_stream_decoder_free (a);
  sysprof_memory_stream_decoder_free (b);
  _sysprof_memory_stream_shared_free (shared);
}

/* The store against a model: a stack is found again while an id names it,
 * gets a new key once freed, and the usage is exact, after any order of
 * intern and release. */
typedef struct
{
  SysprofStoredStack *stack;
  guint64             key;
  guint               refs;
} ModelEntry;

static void
test_stack_store_model (void)
{
  SysprofStackStore *store = _sysprof_stack_store_new (1 << 20, 1 << 24);
  GRand             *rand = g_rand_new_with_seed (42);
  GHashTable *model = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, g_free);
  SysprofStoredStack **held = g_new0 (SysprofStoredStack *, 20000);
  guint                n_held = 0;
  guint64              last_key = 0;
  guint                revived = 0;
  size_t               stacks, frames, refs;

  for (guint step = 0; step < 200000; step++)
    {
      if (n_held < 20000 && (n_held == 0 || g_rand_boolean (rand)))
        {
          /* Few distinct stacks of 0 to 6 frames, so that they repeat. */
          guint64             f[6];
          guint               n = g_rand_int_range (rand, 0, 7);
          SysprofStoredStack *s;
          GBytes             *key;
          ModelEntry         *e;

          for (guint j = 0; j < n; j++)
            f[j] = (guint64) g_rand_int_range (rand, 0, 3) << (j * 8);
          s = _sysprof_stack_store_intern (store, f, n);
          g_assert_nonnull (s);
          g_assert_cmpuint (s->n_frames, ==, n);
          g_assert_cmpmem (s->frames, n * 8, f, n * 8);
          key = g_bytes_new (f, n * 8);
          if ((e = g_hash_table_lookup (model, key)) != NULL && e->refs > 0)
            {
              g_assert_true (e->stack == s);
              g_assert_cmpuint (s->key, ==, e->key);
              g_bytes_unref (key);
            }
          else if (e != NULL && s->key == e->key)
            {
              /* Released by every id and kept: found again, same key. */
              g_assert_true (e->stack == s);
              revived++;
              g_bytes_unref (key);
            }
          else
            {
              g_assert_cmpuint (s->key, >, last_key);
              last_key = s->key;
              e = g_new0 (ModelEntry, 1);
              e->stack = s;
              e->key = s->key;
              g_hash_table_replace (model, key, e);
            }
          e->refs++;
          held[n_held++] = s;
        }
      else
        {
          guint               k = g_rand_int_range (rand, 0, n_held);
          SysprofStoredStack *s = held[k];
          g_autoptr (GBytes) key = g_bytes_new (s->frames, s->n_frames * 8);
          ModelEntry *e = g_hash_table_lookup (model, key);

          g_assert_nonnull (e);
          g_assert_true (e->stack == s);
          e->refs--;
          held[k] = held[--n_held];
          _sysprof_stack_store_release (store, s);
        }
    }

  _sysprof_stack_store_get_usage (store, &stacks, NULL, &refs);
  g_assert_cmpuint (refs, ==, n_held);
  {
    GHashTableIter iter;
    ModelEntry    *e;
    guint          live = 0;

    g_hash_table_iter_init (&iter, model);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &e))
      live += e->refs > 0;
    g_assert_cmpuint (stacks, ==, live);
  }
  while (n_held > 0)
    _sysprof_stack_store_release (store, held[--n_held]);
  _sysprof_stack_store_get_usage (store, &stacks, &frames, &refs);
  g_assert_cmpuint (stacks, ==, 0);
  g_assert_cmpuint (frames, ==, 0);
  g_assert_cmpuint (refs, ==, 0);
  g_assert_cmpuint (revived, >, 0);

  g_hash_table_unref (model);
  g_free (held);
  g_rand_free (rand);
  _sysprof_stack_store_free (store);
}

/* Stacks no id names any more are kept within a budget (a quarter of the
 * frames bound here): the frames bound is never refused because of them,
 * and one defined again soon keeps its key. */
static void
test_stack_store_zombies (void)
{
  SysprofStackStore  *store = _sysprof_stack_store_new (1 << 20, 256);
  SysprofStoredStack *s, *again;
  guint64             f[8] = { 0 };
  guint64             key;
  size_t              stacks, frames, refs;

  f[0] = 1;
  s = _sysprof_stack_store_intern (store, f, 8);
  key = s->key;
  _sysprof_stack_store_release (store, s);
  _sysprof_stack_store_get_usage (store, &stacks, &frames, &refs);
  g_assert_cmpuint (stacks, ==, 0);
  g_assert_cmpuint (frames, ==, 0);
  again = _sysprof_stack_store_intern (store, f, 8);
  g_assert_true (again == s);
  g_assert_cmpuint (again->key, ==, key);
  _sysprof_stack_store_release (store, again);

  /* 1000 distinct stacks of 8 frames, each released: 8000 frames through a
   * store of 256, never refused. */
  for (guint i = 2; i < 1002; i++)
    {
      f[0] = i;
      s = _sysprof_stack_store_intern (store, f, 8);
      g_assert_nonnull (s);
      g_assert_cmpuint (s->key, >, key);
      key = s->key;
      _sysprof_stack_store_release (store, s);
    }
  _sysprof_stack_store_get_usage (store, &stacks, &frames, &refs);
  g_assert_cmpuint (stacks + frames + refs, ==, 0);

  /* Held stacks fill the bound: the next new one is refused. */
  {
    SysprofStoredStack *held[32];

    for (guint i = 0; i < 32; i++)
      {
        f[0] = 5000 + i;
        g_assert_nonnull ((held[i] = _sysprof_stack_store_intern (store, f, 8)));
      }
    f[0] = 6000;
    g_assert_null (_sysprof_stack_store_intern (store, f, 8));
    g_assert_cmpint (errno, ==, ENOSPC);
    for (guint i = 0; i < 32; i++)
      _sysprof_stack_store_release (store, held[i]);
  }
  _sysprof_stack_store_free (store);
}

/* A store kept at its frames bound by held stacks, and a stream of new
 * stacks each replacing a released one: every new stack evicts one zombie,
 * not the whole store (this ran for hours when the store rebuilt itself
 * each time; the test's timeout would catch it). */
static void
test_stack_store_churn_at_bound (void)
{
  const size_t        max_frames = 1 << 20;
  SysprofStackStore  *store = _sysprof_stack_store_new (1 << 22, max_frames);
  SysprofStoredStack *last = NULL;
  guint64             f;
  size_t              stacks, frames, refs;

  for (f = 1; f < max_frames; f++)
    g_assert_nonnull (_sysprof_stack_store_intern (store, &f, 1));
  for (guint i = 0; i < 200000; i++)
    {
      SysprofStoredStack *s;

      f = max_frames + i;
      _sysprof_stack_store_release (store, last);
      s = _sysprof_stack_store_intern (store, &f, 1);
      g_assert_nonnull (s);
      last = s;
    }
  _sysprof_stack_store_get_usage (store, &stacks, &frames, &refs);
  g_assert_cmpuint (frames, ==, max_frames);
  g_assert_cmpuint (refs, ==, max_frames);
  g_assert_cmpuint (stacks, ==, max_frames);
  _sysprof_stack_store_free (store);
}

/* One large id, then a million resets: a reset clears only the ids the
 * stream defined, not every slot an id could index (this took minutes). */
static void
test_decoder_reset_cost (void)
{
  SysprofMemoryStreamDecoder *dec = sysprof_memory_stream_decoder_new (100, 101);
  SysprofMemoryStreamStats    stats;
  SysprofAllocationEvent      ev;
  GByteArray                 *b = raw_block (1000);
  const guint64               frames[1] = { 0x401000 };

  put_stack (b, SYSPROF_MEMORY_STREAM_MAX_STACKS - 1, 1, frames);
  for (guint i = 0; i < 1000000; i++)
    put_byte (b, SYSPROF_MEMORY_STREAM_TAG_RESET);
  g_assert_true (sysprof_memory_stream_decoder_feed (dec, b->data, b->len, 0));
  g_assert_false (sysprof_memory_stream_decoder_next (dec, &ev));
  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  g_assert_cmpuint (stats.resets, ==, 1000000);
  g_assert_cmpuint (stats.errors, ==, 0);
  g_byte_array_unref (b);
  sysprof_memory_stream_decoder_free (dec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/MemoryStream/paths", test_paths);
  g_test_add_func ("/MemoryStream/round-trip/small-blocks", test_round_trip_small_blocks);
  g_test_add_func ("/MemoryStream/round-trip/large-blocks", test_round_trip_large_blocks);
  g_test_add_func ("/MemoryStream/round-trip/zstd", test_round_trip_zstd);
  g_test_add_func ("/MemoryStream/encoder/full", test_encoder_full);
  g_test_add_func ("/MemoryStream/drainer/count-and-compressor", test_count_and_compressor);
  g_test_add_func ("/MemoryStream/scanner", test_scanner);
  g_test_add_func ("/MemoryStream/decoder/hostile-records", test_hostile_records);
  g_test_add_func ("/MemoryStream/decoder/hostile-zstd", test_hostile_zstd);
  g_test_add_func ("/MemoryStream/decoder/id-ranges", test_id_ranges);
  g_test_add_func ("/MemoryStream/decoder/stack-limit", test_stack_limit);
  g_test_add_func ("/MemoryStream/decoder/shared-store-bounds", test_shared_store_bounds);
  g_test_add_func ("/MemoryStream/stack-store/model", test_stack_store_model);
  g_test_add_func ("/MemoryStream/stack-store/zombies", test_stack_store_zombies);
  g_test_add_func ("/MemoryStream/stack-store/churn-at-bound", test_stack_store_churn_at_bound);
  g_test_add_func ("/MemoryStream/decoder/reset-cost", test_decoder_reset_cost);

  return g_test_run ();
}
