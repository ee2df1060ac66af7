// SPDX-License-Identifier: GPL-3.0-or-later
/* The unwinders of libsysprof-memory.so: the frame-pointer walk on real
 * frames, and on made-up ones that must stop it without reading outside the
 * stack; libunwind's walk on the same real frames. */

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "sysprof-backtrace.h"

#define NOINLINE __attribute__ ((noinline))

/* ---- made-up stacks ---------------------------------------------------------- */

#define N_WORDS 64

typedef struct
{
  _Alignas(16) uintptr_t words[N_WORDS];
  SysprofStackBounds bounds;
} FakeStack;

static void
fake_init (FakeStack *s)
{
  memset (s, 0, sizeof *s);
  s->bounds.lo = (uintptr_t) &s->words[0];
  s->bounds.hi = (uintptr_t) &s->words[N_WORDS];
}

/* Frame at word @at: saved frame pointer -> word @next, return address @pc. */
static void
fake_frame (FakeStack *s, guint at, guint next, uintptr_t pc)
{
  s->words[at] = (uintptr_t) &s->words[next];
  s->words[at + 1] = pc;
}

static void
test_fp_fake_chain (void)
{
  FakeStack s;
  uint64_t  addrs[32];
  int       n;

  fake_init (&s);
  /* hook frame at 0 -> 4 -> 8 -> 12 -> 16 -> 62 (last two words) */
  fake_frame (&s, 0, 4, 0x1000);
  fake_frame (&s, 4, 8, 0x1111);
  fake_frame (&s, 8, 12, 0x2222);
  fake_frame (&s, 12, 16, 0x3333);
  fake_frame (&s, 16, 62, 0x4444);
  fake_frame (&s, 62, 0, 0x5555);
  n = sysprof_backtrace_fp ((void *) 0xAAAA, &s.words[0], &s.bounds, addrs, 32);
  g_assert_cmpint (n, ==, 6);
  g_assert_cmphex (addrs[0], ==, 0xAAAA);
  g_assert_cmphex (addrs[1], ==, 0x1111);
  g_assert_cmphex (addrs[2], ==, 0x2222);
  g_assert_cmphex (addrs[3], ==, 0x3333);
  g_assert_cmphex (addrs[4], ==, 0x4444);
  g_assert_cmphex (addrs[5], ==, 0x5555);

  /* The depth limit. */
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 0xAAAA, &s.words[0], &s.bounds, addrs, 3), ==, 3);
  g_assert_cmphex (addrs[2], ==, 0x2222);
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 0xAAAA, &s.words[0], &s.bounds, addrs, 1), ==, 1);
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 0xAAAA, &s.words[0], &s.bounds, addrs, 0), ==, 0);
}

static void
test_fp_fake_garbage (void)
{
  FakeStack s;
  uint64_t  addrs[32];

  /* A loop (a frame pointing at itself) and a frame pointing back down. */
  fake_init (&s);
  fake_frame (&s, 0, 4, 0);
  fake_frame (&s, 4, 8, 0x1111);
  fake_frame (&s, 8, 8, 0x2222);
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 3);
  fake_frame (&s, 8, 4, 0x2222);
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 3);

  /* Out of the stack: past its top, a frame whose return address would lie
   * past the top, far away, unaligned. */
  fake_init (&s);
  fake_frame (&s, 0, 4, 0);
  s.words[4] = s.bounds.hi;
  s.words[5] = 0x1111;
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 2);
  s.words[4] = s.bounds.hi - sizeof (uintptr_t);
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 2);
  s.words[4] = UINTPTR_MAX - 15;
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 2);
  s.words[4] = (uintptr_t) &s.words[8] + 3;
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 2);

  /* A null or tiny return address ends the walk (the outermost frame). */
  fake_init (&s);
  fake_frame (&s, 0, 4, 0);
  fake_frame (&s, 4, 8, 0x1111);
  fake_frame (&s, 8, 12, 0);
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 2);

  /* The hook's frame itself outside the bounds (another stack): only the
   * caller. */
  fake_init (&s);
  fake_frame (&s, 0, 4, 0);
  fake_frame (&s, 4, 8, 0x1111);
  s.bounds.lo = (uintptr_t) &s.words[2];
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 1);
  g_assert_cmphex (addrs[0], ==, 1);
  /* No bounds at all. */
  s.bounds.lo = s.bounds.hi = 0;
  g_assert_cmpint (sysprof_backtrace_fp ((void *) 1, &s.words[0], &s.bounds, addrs, 32), ==, 1);
}

/* ---- real frames --------------------------------------------------------------- */

typedef struct
{
  int      dwarf;
  uint64_t addrs[64];
  int      n;
  void    *ret[4];
} Walk;

/* Plays the exported hook: its caller is chain_3. */
static NOINLINE void
hook (Walk *w)
{
  SysprofStackBounds bounds;

  if (w->dwarf)
    w->n = sysprof_backtrace_dwarf (__builtin_return_address (0), w->addrs, 64);
  else
    {
      g_assert_true (sysprof_stack_bounds_init (&bounds));
      g_assert_cmphex (bounds.lo, <, (uintptr_t) __builtin_frame_address (0));
      g_assert_cmphex (bounds.hi, >, (uintptr_t) __builtin_frame_address (0));
      w->n = sysprof_backtrace_fp (__builtin_return_address (0), __builtin_frame_address (0), &bounds, w->addrs, 64);
    }
  __asm__ volatile("" ::: "memory");
}

static NOINLINE void
chain_3 (Walk *w)
{
  w->ret[2] = __builtin_return_address (0);
  hook (w);
  __asm__ volatile("" ::: "memory");
}

static NOINLINE void
chain_2 (Walk *w)
{
  w->ret[1] = __builtin_return_address (0);
  chain_3 (w);
  __asm__ volatile("" ::: "memory");
}

static NOINLINE void
chain_1 (Walk *w)
{
  w->ret[0] = __builtin_return_address (0);
  chain_2 (w);
  __asm__ volatile("" ::: "memory");
}

static void
check_walk (Walk *w)
{
  chain_1 (w);
  g_assert_cmpint (w->n, >=, 4);
  /* In chain_3, then the return addresses into chain_2, chain_1, caller. */
  g_assert_cmphex (w->addrs[0], >, (uintptr_t) chain_3);
  g_assert_cmphex (w->addrs[0], <, (uintptr_t) chain_3 + 256);
  g_assert_cmphex (w->addrs[1], ==, (uintptr_t) w->ret[2]);
  g_assert_cmphex (w->addrs[2], ==, (uintptr_t) w->ret[1]);
  g_assert_cmphex (w->addrs[3], ==, (uintptr_t) w->ret[0]);
}

static gpointer
walk_thread (gpointer data)
{
  check_walk (data);
  return NULL;
}

static void
test_fp_real (void)
{
  Walk w = { .dwarf = 0 };

  check_walk (&w);
  /* A thread's stack, whose bounds come from pthread_getattr_np(). */
  memset (&w, 0, sizeof w);
  g_thread_join (g_thread_new ("walk", walk_thread, &w));
}

static void
test_dwarf_real (void)
{
  Walk w = { .dwarf = 1 };

  if (!sysprof_backtrace_have_dwarf ())
    {
      g_test_skip ("built without libunwind");
      return;
    }
  sysprof_backtrace_dwarf_init ();
  check_walk (&w);
  memset (&w, 0, sizeof w);
  w.dwarf = 1;
  g_thread_join (g_thread_new ("walk", walk_thread, &w));
  /* @ret not among the frames: the caller alone. */
  g_assert_cmpint (sysprof_backtrace_dwarf ((void *) 0x10, w.addrs, 64), ==, 1);
  g_assert_cmphex (w.addrs[0], ==, 0x10);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Preload/Backtrace/fp-fake-chain", test_fp_fake_chain);
  g_test_add_func ("/Preload/Backtrace/fp-fake-garbage", test_fp_fake_garbage);
  g_test_add_func ("/Preload/Backtrace/fp-real", test_fp_real);
  g_test_add_func ("/Preload/Backtrace/dwarf-real", test_dwarf_real);
  return g_test_run ();
}
