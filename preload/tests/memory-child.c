// SPDX-License-Identifier: GPL-3.0-or-later
/* The program test-memory-collector runs under libsysprof-memory.so.  Each
 * scenario does a known sequence of allocations between two "fences" (a
 * malloc/free pair of a size nothing else uses) and then prints, on stdout,
 * one line per operation with the addresses it got, so that the test can
 * derive the exact frames it expects.  Lines are collected in a static
 * buffer and written with write(2) at the end: printing allocates nothing
 * between the fences.
 *
 * Built with frame pointers; functions whose return addresses the test
 * checks are noinline and do work after their calls (no tail calls). */

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

/* The report prints the addresses of released blocks (as numbers; nothing
 * is dereferenced): exactly what GCC 12's -Wuse-after-free looks for. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif

#define FENCE_BASE  77000
#define N_BULK      1000000
#define NOINLINE    __attribute__ ((noinline))
#define RET_ADDR    __builtin_return_address (0)
#define CHECK(expr) ((expr) ? (void) 0 : fail (#expr, __LINE__))

static char   out[1 << 16];
static size_t out_len;

static void *volatile sink;
/* Always NULL: a write through it faults (the compiler cannot know). */
static volatile uintptr_t sink_null;

static __attribute__ ((noreturn)) void
fail (const char *what, int line)
{
  fprintf (stderr, "memory-child: line %d: check failed: %s\n", line, what);
  _exit (3);
}

static __attribute__ ((format (printf, 1, 2))) void
say (const char *format, ...)
{
  va_list args;
  int     n;

  va_start (args, format);
  n = vsnprintf (out + out_len, sizeof out - out_len, format, args);
  va_end (args);
  CHECK (n > 0 && (size_t) n < sizeof out - out_len);
  out_len += (size_t) n;
}

static void
flush_out (void)
{
  for (size_t done = 0; done < out_len;)
    {
      ssize_t n = write (STDOUT_FILENO, out + done, out_len - done);

      CHECK (n > 0);
      done += (size_t) n;
    }
  out_len = 0;
}

/* A malloc/free pair of size FENCE_BASE + @id: the test cuts the scenario's
 * frames out between two of them (found by size). */
static NOINLINE void
fence (unsigned int id)
{
  void *p = malloc (FENCE_BASE + id);

  CHECK (p != NULL);
  sink = p;
  free (p);
}

/* An allocation released at once, which the compiler may not remove. */
static void
churn (void *p)
{
  CHECK (p != NULL);
  sink = p;
  free (p);
}

static void
fill (void *p, size_t size, int c)
{
  memset (p, c, size);
}

static int
filled (const void *p, size_t size, int c)
{
  for (size_t i = 0; i < size; i++)
    if (((const unsigned char *) p)[i] != (unsigned char) c)
      return 0;
  return 1;
}

/* ---- basic: every hooked function once, with exact addresses and sizes --- */

static NOINLINE void
scenario_basic (void)
{
  void *p1, *p2, *p3, *p4, *p5, *p6 = NULL, *p7, *p8, *p9, *p10, *p11, *p12, *z, *bad = NULL;
  /* volatile: the compiler must not see (and warn about) impossible sizes. */
  volatile size_t huge = SIZE_MAX / 2, max = SIZE_MAX;
  int             r;

  say ("func %p %p\n", (void *) scenario_basic, RET_ADDR);
  fence (1);
  p1 = malloc (100);
  fill (p1, 100, 1);
  p2 = calloc (7, 13);
  p3 = realloc (p1, 200);
  p4 = realloc (NULL, 50);
  sink = realloc (p4, 0);
  p5 = memalign (64, 100);
  r = posix_memalign (&p6, 128, 300);
  /* Not a power of two: EINVAL, nothing recorded. */
  CHECK (posix_memalign (&bad, 3, 10) == EINVAL);
  p7 = aligned_alloc (256, 512);
  p8 = valloc (1000);
  p9 = pvalloc (1000);
  p10 = reallocarray (NULL, 10, 12);
  p11 = reallocarray (p10, 20, 12);
  /* Failures: nothing recorded, but for realloc's block, released and
   * allocated again. */
  p12 = reallocarray (p11, huge, 4);
  sink = calloc (huge, 4);
  sink = malloc (max);
  sink = realloc (p3, max);
  free (NULL);
  z = malloc (0);
  free (z);
  free (p2);
  free (p3);
  free (p5);
  free (p6);
  free (p7);
  free (p8);
  free (p9);
  free (p11);
  fence (2);

  CHECK (p1 && p2 && p3 && p5 && p6 && p7 && p8 && p9 && p10 && p11 && z);
  CHECK (r == 0 && bad == NULL && p12 == NULL);
  CHECK (((uintptr_t) p5 & 63) == 0 && ((uintptr_t) p6 & 127) == 0 && ((uintptr_t) p7 & 255) == 0);
  say ("malloc %p 100\n", p1);
  say ("calloc %p 7 13\n", p2);
  say ("realloc %p %p 200\n", p1, p3);
  say ("realloc (nil) %p 50\n", p4);
  say ("realloc %p (nil) 0\n", p4);
  say ("memalign %p 64 100\n", p5);
  say ("posix_memalign 0 %p 128 300\n", p6);
  say ("posix_memalign %d (nil) 3 10\n", EINVAL);
  say ("aligned_alloc %p 256 512\n", p7);
  say ("valloc %p 1000\n", p8);
  say ("pvalloc %p 1000 %ld\n", p9, sysconf (_SC_PAGESIZE));
  say ("reallocarray (nil) %p 10 12\n", p10);
  say ("reallocarray %p %p 20 12\n", p10, p11);
  say ("reallocarray %p (nil) %zu 4\n", p11, (size_t) huge);
  say ("calloc (nil) %zu 4\n", (size_t) huge);
  say ("malloc (nil) %zu\n", (size_t) max);
  say ("realloc %p (nil) %zu usable %zu\n", p3, (size_t) max, malloc_usable_size (p3));
  say ("free (nil)\n");
  say ("malloc %p 0\n", z);
  say ("free %p\n", z);
  say ("free %p\n", p2);
  say ("free %p\n", p3);
  say ("free %p\n", p5);
  say ("free %p\n", p6);
  say ("free %p\n", p7);
  say ("free %p\n", p8);
  say ("free %p\n", p9);
  say ("free %p\n", p11);
}

/* ---- backtrace: a known chain of three calls ---------------------------- */

static void *ret_inner, *ret_middle, *ret_outer, *bt_block;

static NOINLINE void
bt_inner (void)
{
  ret_inner = RET_ADDR;
  bt_block = malloc (4242);
  sink = bt_block;
}

static NOINLINE void
bt_middle (void)
{
  ret_middle = RET_ADDR;
  bt_inner ();
  sink = ret_middle;
}

static NOINLINE void
bt_outer (void)
{
  ret_outer = RET_ADDR;
  bt_middle ();
  sink = ret_outer;
}

static NOINLINE void
scenario_backtrace (void)
{
  void *ret = RET_ADDR;

  fence (1);
  bt_outer ();
  free (bt_block);
  fence (2);
  say ("malloc %p 4242\n", bt_block);
  say ("free %p\n", bt_block);
  say ("chain %p %p %p %p %p\n", (void *) bt_inner, ret_inner, ret_middle, ret_outer, ret);
}

/* ---- glib: an allocation through a library without frame pointers ------- */

static void *glib_block, *ret_glib_caller;

static NOINLINE void
glib_caller (void)
{
  ret_glib_caller = RET_ADDR;
  glib_block = g_strdup ("hello, tracker");
  sink = glib_block;
}

static NOINLINE void
scenario_glib (void)
{
  fence (1);
  glib_caller ();
  g_free (glib_block);
  fence (2);
  say ("malloc %p 15\n", glib_block);
  say ("free %p\n", glib_block);
  say ("glib %p %p\n", (void *) glib_caller, ret_glib_caller);
}

/* ---- threads: a bulk of events per thread, and cross-thread frees -------- */

static void *
bulk_worker (void *data)
{
  (void) data;
  fence (1);
  for (unsigned int i = 0; i < N_BULK; i++)
    {
      void *p = malloc (16 + (i & 255));

      CHECK (p != NULL);
      *(volatile char *) p = 1;
      free (p);
    }
  fence (2);
  return NULL;
}

static NOINLINE void
scenario_threads (void)
{
  pthread_t threads[2];

  for (int i = 0; i < 2; i++)
    CHECK (pthread_create (&threads[i], NULL, bulk_worker, NULL) == 0);
  for (int i = 0; i < 2; i++)
    CHECK (pthread_join (threads[i], NULL) == 0);
  say ("bulk %d\n", N_BULK);
}

static void *
cross_worker (void *data)
{
  fence (3);
  free (data);
  fence (4);
  say ("worker %d\n", (int) gettid ());
  return NULL;
}

static NOINLINE void
scenario_cross (void)
{
  pthread_t thread;
  void     *p;

  fence (1);
  p = malloc (555);
  fence (2);
  CHECK (pthread_create (&thread, NULL, cross_worker, p) == 0);
  CHECK (pthread_join (thread, NULL) == 0);
  say ("malloc %p 555\n", p);
  say ("main %d\n", (int) getpid ());
}

/* ---- fork and exec ----------------------------------------------------------- */

/* Allocations in every shape, checked: the program works with the tracker
 * in a state that records nothing (a forked child, an untraced process). */
static void
workload (void)
{
  for (unsigned int i = 0; i < 2000; i++)
    {
      size_t n = 1 + i % 700;
      char  *a = malloc (n), *b = calloc (n, 3), *c;
      void  *d = NULL;

      CHECK (a && b && filled (b, n * 3, 0));
      fill (a, n, 'a');
      a = realloc (a, 2 * n);
      CHECK (a && filled (a, n, 'a'));
      c = reallocarray (NULL, n, 2);
      CHECK (c);
      CHECK (posix_memalign (&d, 64, n) == 0 && ((uintptr_t) d & 63) == 0);
      free (a);
      free (b);
      free (c);
      free (d);
      free (aligned_alloc (32, 64));
      free (memalign (16, n));
      free (valloc (n));
      free (pvalloc (n));
      free (g_strdup_printf ("%u", i));
    }
}

static NOINLINE void
scenario_fork (void)
{
  pid_t pid;
  int   status = -1;
  void *p;

  fence (1);
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    {
      workload ();
      _exit (0);
    }
  CHECK (waitpid (pid, &status, 0) == pid);
  p = malloc (777);
  free (p);
  fence (2);
  say ("fork %d %d\n", (int) pid, status);
  say ("malloc %p 777\n", p);
  say ("free %p\n", p);
}

static NOINLINE void
scenario_exec (void)
{
  const char *preload = getenv ("LD_PRELOAD");
  pid_t       pid;
  int         status = -1;

  /* The output of env(1) comes first: ours is flushed at the end. */
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    {
      execl ("/usr/bin/env", "env", (char *) NULL);
      _exit (127);
    }
  CHECK (waitpid (pid, &status, 0) == pid);
  say ("exec %d\n", status);
  say ("preload %s\n", preload ? preload : "(unset)");
}

/* Runs normally whether or not anything is recorded. */
static NOINLINE void
scenario_work (void)
{
  pthread_t thread;
  pid_t     pid;
  int       status = -1;

  workload ();
  CHECK (pthread_create (&thread, NULL, (void *(*) (void *) ) workload, NULL) == 0);
  CHECK (pthread_join (thread, NULL) == 0);
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    {
      workload ();
      _exit (0);
    }
  CHECK (waitpid (pid, &status, 0) == pid && status == 0);
  say ("work ok\n");
}

/* ---- streams: blocks written by age, by other threads, at exit() --------- */

static int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
idle_worker (void *data)
{
  void *p = malloc (31337);

  (void) data;
  CHECK (p != NULL);
  say ("idle %d\n", (int) gettid ());
  /* No event for a second: a thread that writes must write this block. */
  usleep (1000000);
  say ("idle-end %lld\n", (long long) now_ns ());
  free (p);
  return NULL;
}

static NOINLINE void
scenario_idle (void)
{
  pthread_t thread;

  CHECK (pthread_create (&thread, NULL, idle_worker, NULL) == 0);
  for (int i = 0; i < 600; i++)
    {
      churn (malloc (100));
      usleep (2000);
    }
  CHECK (pthread_join (thread, NULL) == 0);
}

/* An allocation every 2 ms for 300 ms: blocks are written by age. */
static NOINLINE void
scenario_slow (void)
{
  for (int i = 0; i < 150; i++)
    {
      churn (malloc (64));
      usleep (2000);
    }
  say ("slow ok\n");
}

static volatile int stop_busy;

static void *
busy_worker (void *data)
{
  (void) data;
  say ("busy %d\n", (int) gettid ());
  while (!stop_busy)
    {
      void *p = malloc (48);

      CHECK (p != NULL);
      *(volatile char *) p = 1;
      free (p);
    }
  return NULL;
}

/* exit() while another thread allocates: its block is written too. */
static NOINLINE void
scenario_exit_busy (void)
{
  pthread_t thread;

  CHECK (pthread_create (&thread, NULL, busy_worker, NULL) == 0);
  usleep (100000);
  churn (malloc (99));
  say ("exit\n");
  flush_out ();
  exit (0);
}

/* Four call sites, many times: the test delays draining, so blocks are
 * lost and later blocks must not use the stack ids they defined. */
static volatile int burst_calls;

static NOINLINE void
burst_a (int i)
{
  churn (malloc (16 + (size_t) (i & 63)));
  burst_calls++;
}

static NOINLINE void
burst_b (int i)
{
  burst_a (i);
  burst_calls++;
}

static NOINLINE void
burst_c (int i)
{
  churn (calloc (1, 32 + (size_t) (i & 31)));
  burst_calls++;
}

static NOINLINE void
scenario_burst (void)
{
  fence (1);
  for (int i = 0; i < 300000; i++)
    {
      switch (i & 3)
        {
        case 0: burst_a (i); break;
        case 1: burst_b (i); break;
        case 2: burst_c (i); break;
        default: churn (malloc (8)); break;
        }
    }
  fence (2);
  say ("burst 300000\n");
}

/* A followed child allocates and leaves through exit(): its own stream. */
static NOINLINE void
scenario_fork_exit (void)
{
  pid_t pid;
  int   status = -1;

  fence (1);
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    {
      fence (5);
      bt_outer ();
      free (bt_block);
      fence (6);
      exit (0);
    }
  CHECK (waitpid (pid, &status, 0) == pid);
  bt_outer ();
  free (bt_block);
  fence (2);
  say ("fork %d %d\n", (int) pid, status);
}

/* Leaving without exit(): _exit() while another thread allocates, or an
 * exec: nothing of the tracker runs afterwards, the blocks are written
 * before. */
static NOINLINE void
scenario_quick_exit (void)
{
  pthread_t thread;

  CHECK (pthread_create (&thread, NULL, busy_worker, NULL) == 0);
  usleep (50000);
  fence (1);
  churn (malloc (4321));
  fence (2);
  say ("quick\n");
  flush_out ();
  _exit (0);
}

static NOINLINE void
scenario_exec_stream (void)
{
  char *const argv[] = { (char *) "true", NULL };

  fence (1);
  churn (malloc (4321));
  fence (2);
  say ("exec\n");
  flush_out ();
  execv ("/bin/true", argv);
  _exit (3);
}

/* Killed by a signal whose action the program left at its default: the
 * tracker's handler writes the blocks, then the signal ends the process as
 * it would have (raise: sent by a process; the null write: a fault, which
 * the handler returns to). */
static NOINLINE void
signal_death (int sig)
{
  pthread_t thread;

  CHECK (pthread_create (&thread, NULL, busy_worker, NULL) == 0);
  usleep (50000);
  fence (1);
  churn (malloc (4321));
  fence (2);
  say ("dying\n");
  flush_out ();
  if (sig == SIGSEGV)
    *(volatile int *) (uintptr_t) sink_null = 1;
  else
    raise (sig);
  _exit (4);
}

static NOINLINE void
scenario_signal_term (void)
{
  signal_death (SIGTERM);
}

static NOINLINE void
scenario_signal_segv (void)
{
  signal_death (SIGSEGV);
}

/* The program's own handler replaces the tracker's (installed before main):
 * it runs, and its _exit() ends the streams. */
static void
own_handler (int sig)
{
  (void) sig;
  _exit (7);
}

static NOINLINE void
scenario_signal_own (void)
{
  struct sigaction action = { 0 }, old;

  action.sa_handler = own_handler;
  CHECK (sigaction (SIGTERM, &action, &old) == 0);
  /* What the program found: the tracker's handler, not SIG_IGN. */
  CHECK (old.sa_handler != SIG_IGN);
  fence (1);
  churn (malloc (4321));
  fence (2);
  say ("own\n");
  flush_out ();
  raise (SIGTERM);
  _exit (4);
}

/* The tracker's handlers are not seen: SIGINT's action reads as SIG_DFL,
 * and signal() gives SIG_DFL back as the action it replaced. */
static NOINLINE void
scenario_signal_query (void)
{
  struct sigaction old;

  CHECK (sigaction (SIGINT, NULL, &old) == 0);
  CHECK (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL);
  CHECK (signal (SIGTERM, SIG_DFL) == SIG_DFL);
  CHECK (sigaction (SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL);
  say ("query ok\n");
}

static NOINLINE void
scenario_dlopen (void)
{
  void *handle;

  fence (1);
  handle = dlopen ("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  fence (2);
  CHECK (handle != NULL);
  CHECK (dlsym (handle, "zlibVersion") != NULL);
  say ("dlopen ok\n");
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *name;
    void (*func) (void);
  } scenarios[] = {
    { "basic", scenario_basic },
    { "backtrace", scenario_backtrace },
    { "glib", scenario_glib },
    { "threads", scenario_threads },
    { "cross", scenario_cross },
    { "fork", scenario_fork },
    { "exec", scenario_exec },
    { "work", scenario_work },
    { "dlopen", scenario_dlopen },
    { "idle", scenario_idle },
    { "slow", scenario_slow },
    { "exit-busy", scenario_exit_busy },
    { "burst", scenario_burst },
    { "fork-exit", scenario_fork_exit },
    { "quick-exit", scenario_quick_exit },
    { "exec-stream", scenario_exec_stream },
    { "signal-term", scenario_signal_term },
    { "signal-segv", scenario_signal_segv },
    { "signal-own", scenario_signal_own },
    { "signal-query", scenario_signal_query },
  };

  if (argc != 2)
    return 2;
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
    {
      if (strcmp (argv[1], scenarios[i].name) == 0)
        {
          scenarios[i].func ();
          flush_out ();
          return 0;
        }
    }
  return 2;
}
