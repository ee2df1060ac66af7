// SPDX-License-Identifier: GPL-3.0-or-later
/* bench-stream-compress.c
 *
 * Which zstd level the ring drainer (libsysprof/instruments) uses for the
 * memory tracker's raw blocks: compression ratio against throughput, block
 * by block as the drainer does it (one context reused, each block of at most
 * 61440 bytes compressed on its own), at levels -5 to 9.
 *
 * The blocks are synthesized to libsysprof-capture/memory-stream.md, in two
 * shapes:
 *   malloc    bench/malloc-workload's loop: 256 live blocks, each new one
 *             replacing a random one (freed), sizes 8 B - 4 KiB, 24 call
 *             sites of 8-10 frames, ~150 ns between events;
 *   python    an interpreter: 3000 call sites of 20-60 frames through a deep
 *             shared trunk, used Zipf-like (many new stacks early on),
 *             sizes mostly under 512 B, bursts of short-lived objects.
 * Addresses come from a simulated heap (a free list per size class over a
 * growing arena, as glibc's bins reuse recently freed chunks), times from an
 * exponential gap, so deltas have the sizes real ones have.
 *
 * Prints per shape and level: MB/s of raw input, ratio raw/stored (a block
 * that does not shrink is stored raw, as the drainer does), and the bytes
 * per event stored.
 * Usage: bench-stream-compress [-e EVENTS_PER_SHAPE]
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <zstd.h>

#define MAX_BLOCK 61440
/* Worst case of one event with a new stack of 60 frames. */
#define EVENT_ROOM (32 + 60 * 10 + 16)

typedef struct
{
  guint8 *data;
  gsize   len;
  guint   n_events;
} Block;

typedef struct
{
  GRand  *rand;
  GArray *blocks;
  guint8  buf[MAX_BLOCK];
  gsize   len;
  guint   n_events;
  gint64  now, last_time;
  guint64 last_addr;
  /* heap simulation: free lists per 16-byte size class */
  GArray  *free_lists[260];
  guint64  arena;
  guint64 *live_addr;
  guint32 *live_size;
  guint    n_live;
  /* stacks */
  guint64 **stacks;
  guint    *stack_n;
  gboolean *stack_sent;
  guint     n_stacks;
  guint64   n_total_events;
} Gen;

static void
put_varint (Gen *g, guint64 v)
{
  while (v >= 0x80)
    {
      g->buf[g->len++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  g->buf[g->len++] = (guint8) v;
}

static void
put_svarint (Gen *g, gint64 v)
{
  put_varint (g, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static void
flush_block (Gen *g)
{
  Block b;

  if (g->n_events == 0)
    return;
  b.data = g_memdup2 (g->buf, g->len);
  b.len = g->len;
  b.n_events = g->n_events;
  g_array_append_val (g->blocks, b);
  g->len = 0;
  g->n_events = 0;
}

static void
begin_event (Gen *g)
{
  if (g->len + EVENT_ROOM > MAX_BLOCK)
    flush_block (g);
  if (g->len == 0)
    {
      g->buf[g->len++] = 'R';
      put_varint (g, (guint64) g->now);
      g->last_time = g->now;
      g->last_addr = 0;
    }
  g->n_events++;
  g->n_total_events++;
}

static guint64
heap_alloc (Gen *g, guint32 size)
{
  guint   cls = MIN (size / 16, 259);
  GArray *list = g->free_lists[cls];
  guint64 addr;

  if (list->len > 0)
    {
      addr = g_array_index (list, guint64, list->len - 1);
      g_array_set_size (list, list->len - 1);
      return addr;
    }
  addr = g->arena;
  g->arena += ((guint64) size + 16 + 15) & ~(guint64) 15;
  return addr;
}

static void
heap_free (Gen *g, guint64 addr, guint32 size)
{
  guint cls = MIN (size / 16, 259);

  g_array_append_val (g->free_lists[cls], addr);
}

static void
emit_alloc (Gen *g, guint64 addr, guint32 size, guint stack)
{
  begin_event (g);
  if (!g->stack_sent[stack])
    {
      guint64 prev = 0;

      g->buf[g->len++] = 0x03;
      put_varint (g, stack + 1);
      put_varint (g, g->stack_n[stack]);
      for (guint i = 0; i < g->stack_n[stack]; i++)
        {
          put_svarint (g, (gint64) (g->stacks[stack][i] - prev));
          prev = g->stacks[stack][i];
        }
      g->stack_sent[stack] = TRUE;
    }
  g->buf[g->len++] = 0x01;
  put_varint (g, (guint64) (g->now - g->last_time));
  put_svarint (g, (gint64) (addr - g->last_addr));
  put_varint (g, size);
  put_varint (g, stack + 1);
  g->last_time = g->now;
  g->last_addr = addr;
}

static void
emit_free (Gen *g, guint64 addr)
{
  begin_event (g);
  g->buf[g->len++] = 0x02;
  put_varint (g, (guint64) (g->now - g->last_time));
  put_svarint (g, (gint64) (addr - g->last_addr));
  g->last_time = g->now;
  g->last_addr = addr;
}

static void
advance_time (Gen *g, double mean_ns)
{
  double u = g_rand_double_range (g->rand, 1e-9, 1.0);

  g->now += 1 + (gint64) (-log (u) * mean_ns);
}

/* Stacks of @lo..@hi frames: a shared trunk (main, the loop) and a distinct
 * inner part, return addresses in four libraries. */
static void
make_stacks (Gen *g, guint n, guint lo, guint hi, guint trunk)
{
  static const guint64 bases[4] = { G_GUINT64_CONSTANT (0x55d4c1200000), G_GUINT64_CONSTANT (0x7f3a8c400000),
                                    G_GUINT64_CONSTANT (0x7f3a8d100000), G_GUINT64_CONSTANT (0x7f3a8e800000) };

  g->n_stacks = n;
  g->stacks = g_new0 (guint64 *, n);
  g->stack_n = g_new0 (guint, n);
  g->stack_sent = g_new0 (gboolean, n);
  for (guint k = 0; k < n; k++)
    {
      guint depth = (guint) g_rand_int_range (g->rand, (gint32) lo, (gint32) hi + 1);

      g->stack_n[k] = depth;
      g->stacks[k] = g_new (guint64, depth);
      for (guint i = 0; i < depth; i++)
        {
          guint from_top = depth - 1 - i;

          if (from_top < trunk)
            g->stacks[k][i] = bases[0] + from_top * 0x1a3;
          else
            g->stacks[k][i] =
                bases[g_rand_int_range (g->rand, 0, 4)] + (guint64) g_rand_int_range (g->rand, 0, 0x80000);
        }
    }
}

static guint
zipf_pick (Gen *g, guint n)
{
  /* Inverse of the continuous 1/x law on [1, n+1). */
  double u = g_rand_double (g->rand);
  guint  k = (guint) (exp (u * log ((double) n + 1.0)) - 1.0);

  return MIN (k, n - 1);
}

static Gen *
gen_new (guint32 seed)
{
  Gen *g = g_new0 (Gen, 1);

  g->rand = g_rand_new_with_seed (seed);
  g->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  for (guint i = 0; i < G_N_ELEMENTS (g->free_lists); i++)
    g->free_lists[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  g->arena = G_GUINT64_CONSTANT (0x55d4c3a00000);
  g->now = G_GINT64_CONSTANT (123456789000);
  g->live_addr = g_new0 (guint64, 4096);
  g->live_size = g_new0 (guint32, 4096);
  return g;
}

static guint32
malloc_size (Gen *g)
{
  guint r = (guint) g_rand_int_range (g->rand, 0, 16);

  if (r < 11)
    return (guint32) g_rand_int_range (g->rand, 8, 129);
  if (r < 15)
    return (guint32) g_rand_int_range (g->rand, 129, 1025);
  return (guint32) g_rand_int_range (g->rand, 1025, 4097);
}

static void
gen_malloc_shape (Gen *g, guint64 n_events)
{
  make_stacks (g, 24, 8, 10, 5);
  g->n_live = 256;
  for (guint i = 0; i < g->n_live; i++)
    {
      g->live_size[i] = malloc_size (g);
      g->live_addr[i] = heap_alloc (g, g->live_size[i]);
      advance_time (g, 150);
      emit_alloc (g, g->live_addr[i], g->live_size[i], (guint) g_rand_int_range (g->rand, 0, 24));
    }
  while (g->n_total_events < n_events)
    {
      guint   victim = (guint) g_rand_int_range (g->rand, 0, (gint32) g->n_live);
      guint32 size = malloc_size (g);
      guint64 addr = heap_alloc (g, size);

      advance_time (g, 150);
      emit_alloc (g, addr, size, (guint) g_rand_int_range (g->rand, 0, 24));
      advance_time (g, 150);
      emit_free (g, g->live_addr[victim]);
      heap_free (g, g->live_addr[victim], g->live_size[victim]);
      g->live_addr[victim] = addr;
      g->live_size[victim] = size;
    }
  flush_block (g);
}

static void
gen_python_shape (Gen *g, guint64 n_events)
{
  make_stacks (g, 3000, 20, 60, 14);
  while (g->n_total_events < n_events)
    {
      /* A burst: a few objects allocated and most freed soon after. */
      guint burst = (guint) g_rand_int_range (g->rand, 1, 8);

      for (guint b = 0; b < burst; b++)
        {
          guint32 size = (guint32) (g_rand_int_range (g->rand, 0, 8) == 0 ? g_rand_int_range (g->rand, 512, 8192)
                                                                          : g_rand_int_range (g->rand, 16, 512));
          guint64 addr = heap_alloc (g, size);

          advance_time (g, 250);
          emit_alloc (g, addr, size, zipf_pick (g, g->n_stacks));
          if (g->n_live < 4096 && g_rand_int_range (g->rand, 0, 10) == 0)
            {
              g->live_addr[g->n_live] = addr;
              g->live_size[g->n_live++] = size;
            }
          else
            {
              advance_time (g, 400);
              emit_free (g, addr);
              heap_free (g, addr, size);
            }
        }
      if (g->n_live > 0 && g_rand_int_range (g->rand, 0, 4) == 0)
        {
          guint victim = (guint) g_rand_int_range (g->rand, 0, (gint32) g->n_live);

          advance_time (g, 300);
          emit_free (g, g->live_addr[victim]);
          heap_free (g, g->live_addr[victim], g->live_size[victim]);
          g->live_addr[victim] = g->live_addr[--g->n_live];
          g->live_size[victim] = g->live_size[g->n_live];
        }
    }
  flush_block (g);
}

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * UINT64_C (1000000000) + (uint64_t) ts.tv_nsec;
}

static void
measure (const char *shape, GArray *blocks, guint64 n_events)
{
  static const int levels[] = { -5, -1, 1, 2, 3, 5, 9 };
  ZSTD_CCtx       *cctx = ZSTD_createCCtx ();
  guint8          *out = g_malloc (ZSTD_compressBound (MAX_BLOCK));
  guint64          raw = 0;

  for (guint i = 0; i < blocks->len; i++)
    raw += g_array_index (blocks, Block, i).len;
  printf ("shape=%s events=%" G_GUINT64_FORMAT " blocks=%u raw_bytes=%" G_GUINT64_FORMAT " raw_bytes_per_event=%.2f\n",
          shape, n_events, blocks->len, raw, (double) raw / (double) n_events);
  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      guint64  stored = 0, t0, t1, best = G_MAXUINT64;
      gboolean first = TRUE;

      /* Best of three runs: the VM is shared. */
      for (guint run = 0; run < 3; run++)
        {
          guint64 s = 0;

          t0 = now_ns ();
          for (guint i = 0; i < blocks->len; i++)
            {
              const Block *b = &g_array_index (blocks, Block, i);
              /* The drainer gives zstd room for less than the block only. */
              size_t n = ZSTD_compressCCtx (cctx, out, b->len - 4, b->data, b->len, levels[l]);

              s += ZSTD_isError (n) ? b->len : n + 4;
            }
          t1 = now_ns ();
          best = MIN (best, t1 - t0);
          if (first)
            stored = s;
          first = FALSE;
        }
      printf ("  level=%d mb_per_s=%.0f ratio=%.2f stored_bytes_per_event=%.2f\n", levels[l],
              (double) raw / ((double) best / 1e9) / 1e6, (double) raw / (double) stored,
              (double) stored / (double) n_events);
    }
  ZSTD_freeCCtx (cctx);
  g_free (out);
}

int
main (int argc, char **argv)
{
  guint64 n_events = 4000000;
  Gen    *g;
  int     opt;

  while ((opt = getopt (argc, argv, "e:")) != -1)
    {
      if (opt == 'e')
        n_events = g_ascii_strtoull (optarg, NULL, 10);
      else
        {
          fprintf (stderr, "usage: %s [-e EVENTS_PER_SHAPE]\n", argv[0]);
          return 2;
        }
    }
  if (n_events == 0)
    {
      fprintf (stderr, "bench-stream-compress: -e must be positive\n");
      return 2;
    }
  g = gen_new (16);
  gen_malloc_shape (g, n_events);
  measure ("malloc", g->blocks, g->n_total_events);
  g = gen_new (17);
  gen_python_shape (g, n_events);
  measure ("python", g->blocks, g->n_total_events);
  return 0;
}
