// SPDX-License-Identifier: GPL-3.0-or-later
/* The bootstrap allocator of libsysprof-memory.so: what dlsym() allocates
 * while the real malloc is being looked up comes from it. */

#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "sysprof-scratch.h"

static void
test_alloc (void)
{
  static _Alignas(max_align_t) uint8_t buffer[1024];
  SysprofScratch                       scratch = SYSPROF_SCRATCH_INIT (buffer);
  uint8_t                             *a, *b, *c;

  g_assert_false (sysprof_scratch_owns (&scratch, NULL));
  a = sysprof_scratch_alloc (&scratch, 10, 1);
  b = sysprof_scratch_alloc (&scratch, 100, 64);
  c = sysprof_scratch_alloc (&scratch, 0, 1);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_nonnull (c);
  /* Aligned for any type at least, and as asked. */
  g_assert_cmpuint ((uintptr_t) a % alignof (max_align_t), ==, 0);
  g_assert_cmpuint ((uintptr_t) b % 64, ==, 0);
  g_assert_cmpuint ((uintptr_t) c % alignof (max_align_t), ==, 0);
  /* Disjoint, in order, inside the buffer; sizes kept for realloc(). */
  g_assert_true (a + 10 <= b && b + 100 <= c);
  g_assert_true (sysprof_scratch_owns (&scratch, a));
  g_assert_true (sysprof_scratch_owns (&scratch, b + 99));
  g_assert_true (sysprof_scratch_owns (&scratch, buffer + sizeof buffer - 1));
  g_assert_false (sysprof_scratch_owns (&scratch, buffer + sizeof buffer));
  /* Computed as an integer: the address before the buffer. */
  g_assert_false (sysprof_scratch_owns (&scratch, (const void *) ((uintptr_t) buffer - 1)));
  g_assert_cmpuint (sysprof_scratch_block_size (&scratch, a), ==, 10);
  g_assert_cmpuint (sysprof_scratch_block_size (&scratch, b), ==, 100);
  g_assert_cmpuint (sysprof_scratch_block_size (&scratch, c), ==, 0);
  /* Never reused: a fresh static buffer reads as zero (calloc). */
  for (guint i = 0; i < 100; i++)
    g_assert_cmpuint (b[i], ==, 0);
  memset (a, 0xAA, 10);
  memset (b, 0xBB, 100);
  g_assert_cmpuint (sysprof_scratch_block_size (&scratch, a), ==, 10);
  g_assert_cmpuint (sysprof_scratch_block_size (&scratch, b), ==, 100);
}

static void
test_exhausted (void)
{
  static _Alignas(max_align_t) uint8_t buffer[256];
  SysprofScratch                       scratch = SYSPROF_SCRATCH_INIT (buffer);
  guint                                n = 0;
  void                                *p;

  /* Bounded: it runs out instead of writing past the buffer. */
  g_assert_null (sysprof_scratch_alloc (&scratch, 257, 1));
  g_assert_null (sysprof_scratch_alloc (&scratch, SIZE_MAX, 1));
  g_assert_null (sysprof_scratch_alloc (&scratch, SIZE_MAX - 8, 1));
  while ((p = sysprof_scratch_alloc (&scratch, 24, 1)) != NULL)
    {
      g_assert_true ((uint8_t *) p + 24 <= buffer + sizeof buffer);
      n++;
    }
  /* 16-byte header + 24 bytes, rounded to 16: 48 bytes a block. */
  g_assert_cmpuint (n, ==, 256 / 48);
  g_assert_null (sysprof_scratch_alloc (&scratch, 0, 1));
  /* A bad alignment is refused. */
  {
    static _Alignas(max_align_t) uint8_t other[256];
    SysprofScratch                       fresh = SYSPROF_SCRATCH_INIT (other);

    /* A 512-aligned block fits only if the buffer happens to hold such an
     * address past the 16-byte header: it depends on where the compiler
     * put the buffer, so the expectation is computed. */
    uintptr_t first = ((uintptr_t) other + 16 + 511) & ~(uintptr_t) 511;
    gboolean  fits = first + 8 <= (uintptr_t) other + sizeof other;
    void     *big;

    g_assert_null (sysprof_scratch_alloc (&fresh, 8, 24));
    big = sysprof_scratch_alloc (&fresh, 8, 512);
    g_assert_true ((big != NULL) == fits);
    if (big != NULL)
      g_assert_cmpuint ((uintptr_t) big % 512, ==, 0);
    else
      g_assert_nonnull (sysprof_scratch_alloc (&fresh, 8, 128));
  }
}

typedef struct
{
  SysprofScratch *scratch;
  GPtrArray      *got;
} Racer;

static gpointer
racer (gpointer data)
{
  Racer *r = data;
  void  *p;

  while ((p = sysprof_scratch_alloc (r->scratch, 8, 1)) != NULL)
    {
      memset (p, 0x5A, 8);
      g_ptr_array_add (r->got, p);
    }
  return NULL;
}

static void
test_threads (void)
{
  static _Alignas(max_align_t) uint8_t buffer[64 * 1024];
  SysprofScratch                       scratch = SYSPROF_SCRATCH_INIT (buffer);
  Racer                                racers[4];
  GThread                             *threads[4];
  GHashTable                          *seen = g_hash_table_new (NULL, NULL);
  guint                                total = 0;

  for (guint i = 0; i < 4; i++)
    {
      racers[i] = (Racer){ &scratch, g_ptr_array_new () };
      threads[i] = g_thread_new ("racer", racer, &racers[i]);
    }
  for (guint i = 0; i < 4; i++)
    g_thread_join (threads[i]);
  /* No block was handed out twice, and all of them fit. */
  for (guint i = 0; i < 4; i++)
    {
      for (guint k = 0; k < racers[i].got->len; k++)
        {
          gpointer p = g_ptr_array_index (racers[i].got, k);

          g_assert_false (g_hash_table_contains (seen, p));
          g_hash_table_add (seen, p);
          g_assert_cmpuint (sysprof_scratch_block_size (&scratch, p), ==, 8);
          total++;
        }
      g_ptr_array_unref (racers[i].got);
    }
  g_assert_cmpuint (total, ==, sizeof buffer / 32);
  g_hash_table_unref (seen);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Preload/Scratch/alloc", test_alloc);
  g_test_add_func ("/Preload/Scratch/exhausted", test_exhausted);
  g_test_add_func ("/Preload/Scratch/threads", test_threads);
  return g_test_run ();
}
