// SPDX-License-Identifier: GPL-3.0-or-later
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "sysprof-backtrace.h"

/* Frames the tracker itself puts between unw_backtrace() and the hooked
 * function: the backtrace callback, the collector, the hook's recording
 * helper and the hook.  A few spare slots cover compilers that inline less. */
#define DWARF_SKIP_MAX 12
#define DWARF_MAX      (128 + DWARF_SKIP_MAX)

/* A frame holds the caller's frame pointer and the return address. */
#define FRAME_SIZE (2 * sizeof (uintptr_t))

/* glibc's record of where the main thread's stack began (its highest used
 * address), set by ld.so before any code runs. */
extern void *__libc_stack_end;

bool
sysprof_stack_bounds_init (SysprofStackBounds *bounds)
{
  pthread_attr_t attr;
  struct rlimit  limit;
  void          *addr = NULL;
  size_t         size = 0;
  bool           ok = false;

  bounds->lo = bounds->hi = 0;
  /* For the main thread this parses /proc/self/maps (and allocates): once
   * per thread, under the caller's recursion guard. */
  if (pthread_getattr_np (pthread_self (), &attr) == 0)
    {
      ok = pthread_attr_getstack (&attr, &addr, &size) == 0 && size > 0;
      pthread_attr_destroy (&attr);
    }
  if (ok)
    {
      bounds->lo = (uintptr_t) addr;
      bounds->hi = (uintptr_t) addr + size;
      return true;
    }
  /* Without /proc: the main thread's frames lie below __libc_stack_end and
   * its stack can grow down by RLIMIT_STACK at most. */
  if (getpid () == gettid () && __libc_stack_end != NULL && getrlimit (RLIMIT_STACK, &limit) == 0 &&
      limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < (uintptr_t) __libc_stack_end)
    {
      bounds->hi = (uintptr_t) __libc_stack_end;
      bounds->lo = bounds->hi - limit.rlim_cur;
      return true;
    }
  return false;
}

int
sysprof_backtrace_fp (const void *ret, const void *frame, const SysprofStackBounds *bounds, uint64_t *addrs, int max)
{
  uintptr_t fp = (uintptr_t) frame;
  uintptr_t lo = bounds->lo, hi = bounds->hi;
  int       n = 0;

  if (max <= 0)
    return 0;
  addrs[n++] = (uintptr_t) ret;
  /* The hook's own frame must be on this stack too, or the bounds are not
   * the ones of the stack we run on (sigaltstack, coroutines). */
  if (fp < lo || hi < FRAME_SIZE || fp > hi - FRAME_SIZE || (fp & (sizeof (uintptr_t) - 1)) != 0)
    return n;
  /* Why every check: the saved "frame pointer" of code built without frame
   * pointers is whatever that code kept in the register.  Reading only
   * inside the stack, above the previous frame, makes any value safe to
   * follow; strictly increasing addresses make the walk finite. */
  while (n < max)
    {
      uintptr_t next = ((const uintptr_t *) fp)[0];
      uintptr_t pc;

      if (next <= fp || next > hi - FRAME_SIZE || (next & (sizeof (uintptr_t) - 1)) != 0)
        break;
      pc = ((const uintptr_t *) next)[1];
      /* The outermost frame (clone, _start) has a null return address. */
      if (pc < 4096)
        break;
      addrs[n++] = pc;
      fp = next;
    }
  return n;
}

#ifdef HAVE_LIBUNWIND

bool
sysprof_backtrace_have_dwarf (void)
{
  return true;
}

void
sysprof_backtrace_dwarf_init (void)
{
  /* A per-thread cache needs no lock while unwinding. */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_PER_THREAD);
  unw_set_cache_size (unw_local_addr_space, 1024, 0);
}

int
sysprof_backtrace_dwarf (const void *ret, uint64_t *addrs, int max)
{
  void *buf[DWARF_MAX];
  int   n, first;

  if (max <= 0)
    return 0;
  if (max > DWARF_MAX - DWARF_SKIP_MAX)
    max = DWARF_MAX - DWARF_SKIP_MAX;
  n = unw_backtrace (buf, max + DWARF_SKIP_MAX);
  for (first = 0; first < n && first < DWARF_SKIP_MAX; first++)
    if (buf[first] == ret)
      break;
  if (first >= n || first == DWARF_SKIP_MAX)
    {
      addrs[0] = (uintptr_t) ret;
      return 1;
    }
  n -= first;
  if (n > max)
    n = max;
  for (int i = 0; i < n; i++)
    addrs[i] = (uintptr_t) buf[first + i];
  return n;
}

#else

bool
sysprof_backtrace_have_dwarf (void)
{
  return false;
}

void
sysprof_backtrace_dwarf_init (void)
{
}

int
sysprof_backtrace_dwarf (const void *ret, uint64_t *addrs, int max)
{
  if (max <= 0)
    return 0;
  addrs[0] = (uintptr_t) ret;
  return 1;
}

#endif
