// SPDX-License-Identifier: GPL-3.0-or-later
/* An LD_PRELOAD library that counts a program's calls to the C library's
 * allocation functions, for bench/run-memory-bench.sh: the number of
 * allocations a memory profiler should keep, for workloads that cannot count
 * their own (Debian's python3).
 *
 * Counted as allocations, when they return a block: malloc, calloc, realloc
 * and reallocarray of a non-zero size, memalign, aligned_alloc,
 * posix_memalign, valloc and pvalloc.  A realloc() is an allocation (and a
 * release of the old block), as every memory profiler here records it.
 * free() of a non-NULL block, and realloc() to size 0, are releases.
 *
 * The counts are written when the process exits (a destructor, so after the
 * program's own atexit work), as one line on standard error:
 *   alloc-count: pid=PID allocations=N releases=N
 * A child process (fork) starts its own counts from zero; a program that
 * execs another prints nothing for the first.
 *
 * The real functions are glibc's __libc_* entry points, not dlsym(): dlsym()
 * may allocate, which would call back into this library before it knows the
 * real malloc.  glibc has no __libc_ name for posix_memalign and
 * aligned_alloc, which are memalign with other checks: those checks are made
 * here. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__ ((visibility ("default")))

extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t nmemb, size_t size);
extern void *__libc_realloc (void *ptr, size_t size);
extern void  __libc_free (void *ptr);
extern void *__libc_memalign (size_t alignment, size_t size);
extern void *__libc_valloc (size_t size);
extern void *__libc_pvalloc (size_t size);

/* Relaxed atomics: only the totals at exit matter, and every thread that
 * counted has been joined or is gone by then. */
static uint64_t allocations;
static uint64_t releases;

static inline void *
counted (void *p)
{
  if (p != NULL)
    __atomic_fetch_add (&allocations, 1, __ATOMIC_RELAXED);
  return p;
}

static inline void
count_release (void *p)
{
  if (p != NULL)
    __atomic_fetch_add (&releases, 1, __ATOMIC_RELAXED);
}

EXPORT void *
malloc (size_t size)
{
  return counted (__libc_malloc (size));
}

EXPORT void *
calloc (size_t nmemb, size_t size)
{
  return counted (__libc_calloc (nmemb, size));
}

EXPORT void *
realloc (void *ptr, size_t size)
{
  void *p;

  if (ptr != NULL && size == 0)
    {
      count_release (ptr);
      return __libc_realloc (ptr, 0);
    }
  if ((p = __libc_realloc (ptr, size)) != NULL)
    count_release (ptr);
  return counted (p);
}

EXPORT void *
reallocarray (void *ptr, size_t nmemb, size_t size)
{
  size_t bytes;

  if (__builtin_mul_overflow (nmemb, size, &bytes))
    {
      errno = ENOMEM;
      return NULL;
    }
  return realloc (ptr, bytes);
}

EXPORT void
free (void *ptr)
{
  count_release (ptr);
  __libc_free (ptr);
}

EXPORT void *
memalign (size_t alignment, size_t size)
{
  return counted (__libc_memalign (alignment, size));
}

EXPORT void *
aligned_alloc (size_t alignment, size_t size)
{
  /* C17: any power of two (glibc 2.36 also takes other values, rounding up). */
  return counted (__libc_memalign (alignment, size));
}

EXPORT int
posix_memalign (void **memptr, size_t alignment, size_t size)
{
  void *p;

  if (alignment % sizeof (void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0)
    return EINVAL;
  if ((p = __libc_memalign (alignment, size)) == NULL)
    return ENOMEM;
  *memptr = counted (p);
  return 0;
}

EXPORT void *
valloc (size_t size)
{
  return counted (__libc_valloc (size));
}

EXPORT void *
pvalloc (size_t size)
{
  return counted (__libc_pvalloc (size));
}

static void
atfork_child (void)
{
  __atomic_store_n (&allocations, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&releases, 0, __ATOMIC_RELAXED);
}

__attribute__ ((constructor)) static void
alloc_count_init (void)
{
  pthread_atfork (NULL, NULL, atfork_child);
}

/* No stdio: the program may have closed or redirected stdout, and stdio
 * would allocate.  One write() of a line built on the stack. */
__attribute__ ((destructor)) static void
alloc_count_report (void)
{
  char    line[128];
  int     n;
  ssize_t ignored;

  n = snprintf (line, sizeof line, "alloc-count: pid=%ld allocations=%llu releases=%llu\n", (long) getpid (),
                (unsigned long long) __atomic_load_n (&allocations, __ATOMIC_RELAXED),
                (unsigned long long) __atomic_load_n (&releases, __ATOMIC_RELAXED));
  if (n > 0)
    ignored = write (STDERR_FILENO, line, (size_t) n);
  (void) ignored;
}
