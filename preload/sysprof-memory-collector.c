// SPDX-License-Identifier: GPL-3.0-or-later
/* libsysprof-memory.so: an LD_PRELOAD allocation tracker.  Every allocation
 * of the profiled program becomes an ALLOCATION frame (address, size, stack)
 * and every release one of size 0, written by libsysprof-capture's collector
 * into the calling thread's ring (SYSPROF_MEMORY_FORMAT=frames); or, by
 * default, a record of the thread's memory stream (libsysprof-capture/memory-stream.md:
 * each distinct stack once, with an id), gathered into blocks
 * (sysprof-stream-buffer.h).  See README.md for the settings.
 *
 * Hot path of an event: the real function, one global flag, one thread-local
 * guard, one backtrace, one collector call (frames) or one stack lookup, one
 * compare-and-swap and a few bytes (streams); no lock and no system call. */

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sysprof-capture.h>

#include "sysprof-backtrace.h"
#include "sysprof-scratch.h"
#include "sysprof-stack-table.h"
#include "sysprof-stream-buffer.h"
#include "sysprof-unwind-cache.h"
#include "sysprof-unwind-rule.h"

#define EXPORT      __attribute__ ((visibility ("default")))
#define LIKELY(x)   __builtin_expect (!!(x), 1)
#define UNLIKELY(x) __builtin_expect (!!(x), 0)
/* Initial-exec TLS: the lazy allocation of global-dynamic TLS would call
 * malloc from inside malloc. */
#define TLS __thread __attribute__ ((tls_model ("initial-exec")))

/* Enough for what glibc's dlsym() may allocate (an error string, at most). */
#define SCRATCH_SIZE  (64 * 1024)
#define DEFAULT_DEPTH 64

/* The return address and frame of the exported hook: backtraces start at
 * its caller, so the tracker's own frames never appear. */
#define CALLER_INIT Caller caller = { __builtin_return_address (0), __builtin_frame_address (0) }

typedef struct
{
  const void *ret;
  const void *frame;
} Caller;

typedef enum
{
  STACK_UNKNOWN = 0,
  STACK_KNOWN,
  STACK_NONE, /* bounds not found: backtraces hold the caller only */
} StackState;

typedef struct
{
  /* Inside the tracker: allocations are passed through unrecorded. */
  bool guard;
  /* This thread looks up the real functions: allocations come from scratch. */
  bool    resolving;
  uint8_t stack_state;
  /* The thread-exit handler is armed. */
  bool thread_key_set;
  /* The thread ended (its exit handler ran): no new cache. */
  bool thread_over;
  /* The last backtrace was the same as the one before (the unwind cache
   * says so), and the stack id that one got in the stream (0: none). */
  bool                same_stack;
  uint32_t            last_stack_id;
  uint64_t            last_stack_epoch;
  SysprofUnwindCache *unwind;
  SysprofStackBounds  stack;
} ThreadState;

typedef struct
{
  void *(*malloc) (size_t);
  void *(*calloc) (size_t, size_t);
  void *(*realloc) (void *, size_t);
  void (*free) (void *);
  void *(*memalign) (size_t, size_t);
  int (*posix_memalign) (void **, size_t, size_t);
  void *(*aligned_alloc) (size_t, size_t);
  void *(*valloc) (size_t);
  void *(*pvalloc) (size_t);
} RealFunctions;

static TLS ThreadState tls;

static RealFunctions real;
static _Atomic bool  resolved;
/* Set once the collector is active; cleared in the child of a fork. */
static _Atomic bool         tracking;
static SysprofBacktraceFunc backtrace_func;
static int                  depth = DEFAULT_DEPTH;
static size_t               page_size = 4096;
/* SYSPROF_MEMORY_FORMAT=stream: memory streams rather than frames. */
static bool stream_mode;
/* Runs thread_exit_cb when a thread that has a stream or a cache ends. */
static pthread_key_t thread_key;
static bool          thread_key_ok;
/* SYSPROF_MEMORY_UNWIND=dwarf-verify: both ways, compared. */
static bool             unwind_verify;
static _Atomic uint64_t n_verified;
static _Atomic uint64_t n_verify_failed;
/* The traced process (a vfork child shares our memory but not our pid). */
static pid_t traced_pid;

static _Alignas(max_align_t) uint8_t scratch_buffer[SCRATCH_SIZE];
static SysprofScratch scratch = SYSPROF_SCRATCH_INIT (scratch_buffer);

/* ---- failing loudly ------------------------------------------------------ */

static __attribute__ ((noreturn, cold)) void
die (const char *message)
{
  static const char prefix[] = "libsysprof-memory: ";

  /* write(2) only: stdio could allocate, and the allocator is what failed. */
  if (write (STDERR_FILENO, prefix, sizeof prefix - 1) < 0 || write (STDERR_FILENO, message, strlen (message)) < 0)
    abort ();
  abort ();
}

/* ---- bootstrap ------------------------------------------------------------ */

#define LOAD(fn)     __atomic_load_n (&real.fn, __ATOMIC_RELAXED)
#define STORE(fn, v) __atomic_store_n (&real.fn, (v), __ATOMIC_RELAXED)
#define LOOKUP(fn)   STORE (fn, (__typeof__ (real.fn)) dlsym (RTLD_NEXT, #fn))

/* Looks the real functions up.  dlsym() may allocate (glibc: for an error
 * message); those allocations, made on this thread while it resolves, are
 * served from the scratch buffer.  Returns false on that thread, which must
 * then use the scratch buffer itself.  Threads racing here all resolve: the
 * results are the same. */
static __attribute__ ((noinline, cold)) bool
resolve_real (void)
{
  if (atomic_load (&resolved))
    return true;
  if (tls.resolving)
    return false;
  tls.resolving = true;
  LOOKUP (malloc);
  LOOKUP (calloc);
  LOOKUP (realloc);
  LOOKUP (free);
  LOOKUP (memalign);
  LOOKUP (posix_memalign);
  LOOKUP (aligned_alloc);
  LOOKUP (valloc);
  LOOKUP (pvalloc);
  tls.resolving = false;
  if (LOAD (malloc) == NULL || LOAD (calloc) == NULL || LOAD (realloc) == NULL || LOAD (free) == NULL)
    die ("cannot find the real malloc, calloc, realloc and free\n");
  atomic_store (&resolved, true);
  return true;
}

static __attribute__ ((noinline, cold)) void *
scratch_alloc (size_t size, size_t alignment)
{
  void *p;

  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    {
      errno = EINVAL;
      return NULL;
    }
  if ((p = sysprof_scratch_alloc (&scratch, size, alignment)) == NULL)
    die ("the bootstrap allocator is exhausted (an allocation made while looking up the real malloc)\n");
  return p;
}

/* A real function that the next library does not provide. */
static __attribute__ ((noreturn, cold)) void
die_missing (const char *name)
{
  static const char suffix[] = " is not provided by the real allocator\n";
  char              msg[128];
  size_t            len = strlen (name);

  if (len > sizeof msg - sizeof suffix)
    len = sizeof msg - sizeof suffix;
  memcpy (msg, name, len);
  memcpy (msg + len, suffix, sizeof suffix);
  die (msg);
}

/* ---- recording ------------------------------------------------------------ */

static int
backtrace_fp_cb (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *data)
{
  const Caller *caller = data;
  ThreadState  *t = &tls;
  int           max = depth < (int) n_addrs ? depth : (int) n_addrs;

  /* Found once per thread, under the guard: it may allocate. */
  if (UNLIKELY (t->stack_state == STACK_UNKNOWN))
    t->stack_state = sysprof_stack_bounds_init (&t->stack) ? STACK_KNOWN : STACK_NONE;
  return sysprof_backtrace_fp (caller->ret, caller->frame, &t->stack, addrs, max);
}

static int
backtrace_dwarf_cb (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *data)
{
  const Caller *caller = data;
  int           max = depth < (int) n_addrs ? depth : (int) n_addrs;

  return sysprof_backtrace_dwarf (caller->ret, addrs, max);
}

/* Arms this thread's exit handler, once (it frees the unwind cache and ends
 * the stream). */
static void
arm_thread_exit (void)
{
  if (!tls.thread_key_set && thread_key_ok && pthread_setspecific (thread_key, &tls) == 0)
    tls.thread_key_set = true;
}

/* DWARF through the unwind cache: libunwind only for what it has not seen
 * (sysprof-unwind-cache.h).  The cache is the thread's, created at its first
 * backtrace; a thread without one (it could not be had, or the thread is
 * ending) asks libunwind every time. */
static int
backtrace_cached_cb (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *data)
{
  const Caller *caller = data;
  ThreadState  *t = &tls;
  int           max = depth < (int) n_addrs ? depth : (int) n_addrs;
  int           n = -1;

  t->same_stack = false;
  if (UNLIKELY (t->stack_state == STACK_UNKNOWN))
    t->stack_state = sysprof_stack_bounds_init (&t->stack) ? STACK_KNOWN : STACK_NONE;
  if (UNLIKELY (t->unwind == NULL) && !t->thread_over && t->stack_state == STACK_KNOWN)
    {
      t->unwind = sysprof_unwind_cache_new ();
      arm_thread_exit ();
    }
  if (t->unwind != NULL)
    n = sysprof_unwind_cache_walk (t->unwind, caller->ret, caller->frame, &t->stack, addrs, max, &t->same_stack);
  if (n < 0)
    {
      n = sysprof_backtrace_dwarf (caller->ret, addrs, max);
      if (t->unwind != NULL)
        sysprof_unwind_cache_learn (t->unwind, addrs, n);
    }
  else if (UNLIKELY (unwind_verify))
    {
      uint64_t want[SYSPROF_COLLECTOR_MAX_ADDRS];
      int      n_want = sysprof_backtrace_dwarf (caller->ret, want, max);

      atomic_fetch_add_explicit (&n_verified, 1, memory_order_relaxed);
      if (n_want != n || memcmp (want, addrs, (size_t) n * sizeof want[0]) != 0)
        {
          /* libunwind's is what is recorded. */
          atomic_fetch_add_explicit (&n_verify_failed, 1, memory_order_relaxed);
          memcpy (addrs, want, (size_t) n_want * sizeof want[0]);
          n = n_want;
          t->same_stack = false;
        }
    }
  return n;
}

/* ---- recording ------------------------------------------------------------- */

/* One event of the calling thread's stream (@caller NULL: a release); false
 * when the thread has no stream (it ended): record a frame then. */
static bool
record_stream (void *ptr, size_t size, const Caller *caller)
{
  SysprofStreamBuffer        *b = sysprof_stream_buffer_get ();
  uint64_t                    addrs[SYSPROF_COLLECTOR_MAX_ADDRS];
  unsigned int                flags = 0;
  uint32_t                    id = 0, last_id = 0;
  int64_t                     time;
  SysprofMemoryStreamEncoder *enc;
  int                         n = 0;

  if (b == NULL)
    return false;
  arm_thread_exit ();
  /* Unwound before taking the buffer: a sweep or exit() waiting for it
   * waits less.  The last id stays valid only if this walk gets it too. */
  if (caller != NULL)
    {
      last_id = tls.last_stack_id;
      tls.last_stack_id = 0;
    }
  tls.same_stack = false;
  if (caller != NULL && backtrace_func != NULL)
    n = backtrace_func ((SysprofCaptureAddress *) addrs, SYSPROF_COLLECTOR_MAX_ADDRS, (void *) caller);
  if (!sysprof_stream_buffer_begin (b))
    return false;
  /* Read before the real free() (the caller's order), so that a thread
   * given the same block afterwards has a later time. */
  time = sysprof_collector_get_time ();
  enc = sysprof_stream_buffer_reserve (b, SYSPROF_MEMORY_STREAM_MAX_EVENT_BYTES, time);
  /* The same stack as the last event's, by the unwind cache's word, in the
   * same table: its id, without hashing it again. */
  if (n > 0 && tls.same_stack && last_id != 0 && tls.last_stack_epoch == sysprof_stack_table_get_epoch (b->stacks))
    id = last_id;
  else if (n > 0)
    id = sysprof_stack_table_lookup (b->stacks, addrs, (unsigned int) n, &flags);
  if (caller != NULL)
    {
      tls.last_stack_id = id;
      tls.last_stack_epoch = sysprof_stack_table_get_epoch (b->stacks);
    }
  /* reserve() made room for all of these: they cannot fail. */
  if (flags & SYSPROF_STACK_TABLE_RESET)
    sysprof_memory_stream_encoder_add_reset (enc);
  if (flags & SYSPROF_STACK_TABLE_NEW)
    sysprof_memory_stream_encoder_add_stack (enc, id, addrs, (unsigned int) n);
  if (caller != NULL)
    sysprof_memory_stream_encoder_add_allocation (enc, time, (uintptr_t) ptr, size, id);
  else
    sysprof_memory_stream_encoder_add_release (enc, time, (uintptr_t) ptr);
  sysprof_stream_buffer_commit (b, time);
  sysprof_stream_buffer_end (b);
  return true;
}

static __attribute__ ((noinline)) void
record_alloc_slow (void *ptr, size_t size, const Caller *caller)
{
  tls.guard = true;
  if (!stream_mode || !record_stream (ptr, size, caller))
    sysprof_collector_allocate ((SysprofCaptureAddress) (uintptr_t) ptr, (int64_t) size, backtrace_func,
                                (void *) caller);
  tls.guard = false;
}

/* A zero-sized block is not recorded: size 0 means a release in the
 * capture format.  Its later free() shows as the release of an unknown
 * address, which consumers ignore. */
static inline void
record_alloc (void *ptr, size_t size, const Caller *caller)
{
  if (atomic_load_explicit (&tracking, memory_order_relaxed) && !tls.guard && size != 0)
    record_alloc_slow (ptr, size, caller);
}

static __attribute__ ((noinline)) void
record_free_slow (void *ptr)
{
  tls.guard = true;
  if (!stream_mode || !record_stream (ptr, 0, NULL))
    sysprof_collector_allocate ((SysprofCaptureAddress) (uintptr_t) ptr, 0, NULL, NULL);
  tls.guard = false;
}

static inline void
record_free (void *ptr)
{
  if (atomic_load_explicit (&tracking, memory_order_relaxed) && !tls.guard)
    record_free_slow (ptr);
}

/* ---- the hooks -------------------------------------------------------------- */

static __attribute__ ((noinline, cold)) void *
malloc_slow (size_t size, const Caller *caller)
{
  void *p;

  if (!resolve_real ())
    return scratch_alloc (size, alignof (max_align_t));
  if ((p = real.malloc (size)) != NULL)
    record_alloc (p, size, caller);
  return p;
}

EXPORT void *
malloc (size_t size)
{
  void *(*fn) (size_t) = LOAD (malloc);
  void *p;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    return malloc_slow (size, &caller);
  if ((p = fn (size)) != NULL)
    record_alloc (p, size, &caller);
  return p;
}

static __attribute__ ((noinline, cold)) void *
calloc_slow (size_t nmemb, size_t size, const Caller *caller)
{
  size_t bytes;
  void  *p;

  if (!resolve_real ())
    {
      if (__builtin_mul_overflow (nmemb, size, &bytes))
        {
          errno = ENOMEM;
          return NULL;
        }
      /* Scratch memory is never reused: still zero. */
      return scratch_alloc (bytes, alignof (max_align_t));
    }
  if ((p = real.calloc (nmemb, size)) != NULL)
    record_alloc (p, nmemb * size, caller);
  return p;
}

EXPORT void *
calloc (size_t nmemb, size_t size)
{
  void *(*fn) (size_t, size_t) = LOAD (calloc);
  void *p;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    return calloc_slow (nmemb, size, &caller);
  /* On overflow the real calloc fails: nothing to record. */
  if ((p = fn (nmemb, size)) != NULL)
    record_alloc (p, nmemb * size, &caller);
  return p;
}

EXPORT void
free (void *ptr)
{
  void (*fn) (void *) = LOAD (free);

  if (ptr == NULL)
    return;
  /* Blocks of the bootstrap allocator are never released. */
  if (UNLIKELY (sysprof_scratch_owns (&scratch, ptr)))
    return;
  if (UNLIKELY (fn == NULL))
    {
      /* Memory not from scratch can only come from the real allocator. */
      if (!resolve_real ())
        return;
      fn = real.free;
    }
  /* Recorded before the release: once released, another thread may get the
   * same address, and its allocation must come later in the capture. */
  record_free (ptr);
  fn (ptr);
}

/* realloc() of a block from the bootstrap allocator: copied into a new block
 * (from scratch while still resolving); the scratch block was never
 * recorded, so neither is its release. */
static __attribute__ ((noinline, cold)) void *
realloc_scratch (void *ptr, size_t size, const Caller *caller)
{
  size_t old_size = sysprof_scratch_block_size (&scratch, ptr);
  void  *p;

  if (size == 0)
    return NULL;
  if (!resolve_real ())
    p = scratch_alloc (size, alignof (max_align_t));
  else if ((p = real.malloc (size)) != NULL)
    record_alloc (p, size, caller);
  if (p != NULL)
    memcpy (p, ptr, old_size < size ? old_size : size);
  return p;
}

/* Shared by realloc() and reallocarray(), inlined so that @caller is the
 * exported hook's. */
static inline __attribute__ ((always_inline)) void *
realloc_impl (void *ptr, size_t size, const Caller *caller)
{
  void *(*fn) (void *, size_t) = LOAD (realloc);
  void *p;

  if (UNLIKELY (fn == NULL || sysprof_scratch_owns (&scratch, ptr)))
    {
      if (sysprof_scratch_owns (&scratch, ptr))
        return realloc_scratch (ptr, size, caller);
      if (!resolve_real ())
        return scratch_alloc (size, alignof (max_align_t));
      fn = real.realloc;
    }
  if (ptr != NULL && size == 0)
    {
      /* A release (glibc returns NULL): recorded before, as in free(). */
      record_free (ptr);
      return fn (ptr, 0);
    }
  /* The release is recorded before the call, as in free(): once realloc()
   * moved the block another thread may be given the old address, and its
   * allocation must come after this release in the capture.  A failed
   * realloc leaves @ptr allocated: it is recorded again, with its usable
   * size (the size asked for at first is not known here). */
  if (ptr != NULL)
    record_free (ptr);
  if ((p = fn (ptr, size)) != NULL)
    record_alloc (p, size, caller);
  else if (ptr != NULL)
    record_alloc (ptr, malloc_usable_size (ptr), caller);
  return p;
}

EXPORT void *
realloc (void *ptr, size_t size)
{
  CALLER_INIT;

  return realloc_impl (ptr, size, &caller);
}

/* glibc's reallocarray() calls realloc() through the PLT, which would be
 * recorded twice; it is a realloc() after an overflow check. */
EXPORT void *
reallocarray (void *ptr, size_t nmemb, size_t size)
{
  size_t bytes;
  CALLER_INIT;

  if (__builtin_mul_overflow (nmemb, size, &bytes))
    {
      errno = ENOMEM;
      return NULL;
    }
  return realloc_impl (ptr, bytes, &caller);
}

/* The aligned allocators: the next library may lack one (not glibc). */
EXPORT void *
memalign (size_t alignment, size_t size)
{
  void *(*fn) (size_t, size_t) = LOAD (memalign);
  void *p;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    {
      if (!resolve_real ())
        return scratch_alloc (size, alignment);
      if ((fn = real.memalign) == NULL)
        die_missing ("memalign");
    }
  if ((p = fn (alignment, size)) != NULL)
    record_alloc (p, size, &caller);
  return p;
}

EXPORT void *
aligned_alloc (size_t alignment, size_t size)
{
  void *(*fn) (size_t, size_t) = LOAD (aligned_alloc);
  void *p;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    {
      if (!resolve_real ())
        return scratch_alloc (size, alignment);
      if ((fn = real.aligned_alloc) == NULL)
        die_missing ("aligned_alloc");
    }
  if ((p = fn (alignment, size)) != NULL)
    record_alloc (p, size, &caller);
  return p;
}

EXPORT int
posix_memalign (void **memptr, size_t alignment, size_t size)
{
  int (*fn) (void **, size_t, size_t) = LOAD (posix_memalign);
  int r;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    {
      if (!resolve_real ())
        {
          void *p;

          if (alignment % sizeof (void *) != 0 || (p = scratch_alloc (size, alignment)) == NULL)
            return EINVAL;
          *memptr = p;
          return 0;
        }
      if ((fn = real.posix_memalign) == NULL)
        die_missing ("posix_memalign");
    }
  /* A failure returns an error number and leaves *memptr alone. */
  if ((r = fn (memptr, alignment, size)) == 0)
    record_alloc (*memptr, size, &caller);
  return r;
}

EXPORT void *
valloc (size_t size)
{
  void *(*fn) (size_t) = LOAD (valloc);
  void *p;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    {
      if (!resolve_real ())
        return scratch_alloc (size, page_size);
      if ((fn = real.valloc) == NULL)
        die_missing ("valloc");
    }
  if ((p = fn (size)) != NULL)
    record_alloc (p, size, &caller);
  return p;
}

/* pvalloc() rounds the size up to whole pages (one page for 0): the block
 * recorded is the one the program may use. */
static inline size_t
page_round (size_t size)
{
  return size == 0 ? page_size : (size + page_size - 1) & ~(page_size - 1);
}

EXPORT void *
pvalloc (size_t size)
{
  void *(*fn) (size_t) = LOAD (pvalloc);
  void *p;
  CALLER_INIT;

  if (UNLIKELY (fn == NULL))
    {
      if (!resolve_real ())
        return scratch_alloc (page_round (size), page_size);
      if ((fn = real.pvalloc) == NULL)
        die_missing ("pvalloc");
    }
  if ((p = fn (size)) != NULL)
    record_alloc (p, page_round (size), &caller);
  return p;
}

/* ---- mappings ------------------------------------------------------------- */

/* The profiler symbolizes the recorded addresses with the process's
 * mappings, so they are described again whenever dlopen() may have changed
 * them.  The hooks change the caller glibc sees (see README.md). */
static void
describe_process (void)
{
  if (!atomic_load_explicit (&tracking, memory_order_relaxed) || tls.guard)
    return;
  tls.guard = true;
  /* What was recorded before the new mappings goes before their MAP frames. */
  if (stream_mode)
    sysprof_stream_buffers_flush_all ();
  sysprof_collector_describe_process ();
  tls.guard = false;
}

static void *(*real_dlopen) (const char *, int);
static void *(*real_dlmopen) (Lmid_t, const char *, int);

EXPORT void *
dlopen (const char *file, int mode)
{
  void *(*fn) (const char *, int) = __atomic_load_n (&real_dlopen, __ATOMIC_RELAXED);
  void *handle;

  if (fn == NULL)
    {
      if ((fn = (__typeof__ (fn)) dlsym (RTLD_NEXT, "dlopen")) == NULL)
        die_missing ("dlopen");
      __atomic_store_n (&real_dlopen, fn, __ATOMIC_RELAXED);
    }
  if ((handle = fn (file, mode)) != NULL)
    describe_process ();
  return handle;
}

EXPORT void *
dlmopen (Lmid_t lmid, const char *file, int mode)
{
  void *(*fn) (Lmid_t, const char *, int) = __atomic_load_n (&real_dlmopen, __ATOMIC_RELAXED);
  void *handle;

  if (fn == NULL)
    {
      if ((fn = (__typeof__ (fn)) dlsym (RTLD_NEXT, "dlmopen")) == NULL)
        die_missing ("dlmopen");
      __atomic_store_n (&real_dlmopen, fn, __ATOMIC_RELAXED);
    }
  if ((handle = fn (lmid, file, mode)) != NULL)
    describe_process ();
  return handle;
}

/* After dlclose() an address may hold other code: the unwind caches forget
 * what they learned.  The hook changes nothing else (dlclose does not look
 * at its caller). */
static int (*real_dlclose) (void *);

EXPORT int
dlclose (void *handle)
{
  int (*fn) (void *) = __atomic_load_n (&real_dlclose, __ATOMIC_RELAXED);
  int r;

  if (fn == NULL)
    {
      if ((fn = (__typeof__ (fn)) dlsym (RTLD_NEXT, "dlclose")) == NULL)
        die_missing ("dlclose");
      __atomic_store_n (&real_dlclose, fn, __ATOMIC_RELAXED);
    }
  r = fn (handle);
  sysprof_unwind_cache_forget_all ();
  return r;
}

/* ---- set-up ------------------------------------------------------------------ */

static bool
is_self (const char *entry, size_t len, const char *self, const char *self_base)
{
  const char *base = entry;

  for (size_t i = 0; i < len; i++)
    if (entry[i] == '/')
      base = entry + i + 1;
  return (strlen (self) == len && memcmp (entry, self, len) == 0) ||
         (strlen (self_base) == (size_t) (entry + len - base) && memcmp (base, self_base, strlen (self_base)) == 0);
}

/* Programs this one executes must not load the tracker: their allocations
 * would reach no profiler (the control fd is close-on-exec).  Other entries
 * of LD_PRELOAD stay. */
static void
drop_from_ld_preload (void)
{
  const char *env = getenv ("LD_PRELOAD");
  const char *self, *self_base;
  Dl_info     info;
  char       *kept;
  size_t      n = 0;

  if (env == NULL || dladdr ((void *) drop_from_ld_preload, &info) == 0 || info.dli_fname == NULL)
    return;
  self = info.dli_fname;
  self_base = strrchr (self, '/') ? strrchr (self, '/') + 1 : self;
  if ((kept = real.malloc (strlen (env) + 1)) == NULL)
    return;
  /* ld.so separates entries with spaces or colons. */
  for (const char *p = env; *p;)
    {
      size_t len = strcspn (p, ": ");

      if (len > 0 && !is_self (p, len, self, self_base))
        {
          if (n > 0)
            kept[n++] = ':';
          memcpy (kept + n, p, len);
          n += len;
        }
      p += len;
      if (*p)
        p++;
    }
  kept[n] = 0;
  if (n == 0)
    unsetenv ("LD_PRELOAD");
  else
    setenv ("LD_PRELOAD", kept, 1);
  real.free (kept);
}

static void
read_settings (void)
{
  const char *unwind = getenv ("SYSPROF_MEMORY_UNWIND");
  const char *depth_env = getenv ("SYSPROF_MEMORY_DEPTH");
  const char *format = getenv ("SYSPROF_MEMORY_FORMAT");
  long        ps = sysconf (_SC_PAGESIZE);
  bool        dwarf = SYSPROF_MEMORY_DEFAULT_DWARF;

  bool cached = true;

  if (ps > 0)
    page_size = (size_t) ps;
  if (unwind != NULL && strcmp (unwind, "fp") == 0)
    dwarf = false;
  else if (unwind != NULL && strcmp (unwind, "dwarf") == 0)
    dwarf = true;
  else if (unwind != NULL && strcmp (unwind, "dwarf-libunwind") == 0)
    dwarf = true, cached = false;
  else if (unwind != NULL && strcmp (unwind, "dwarf-verify") == 0)
    dwarf = true, unwind_verify = true;
  /* Without libunwind "dwarf" means frame pointers; without its generic
   * flavour, no cache. */
  dwarf = dwarf && sysprof_backtrace_have_dwarf ();
  cached = cached && sysprof_unwind_rule_available ();
  /* Streams unless frames are asked for (Sysprof 3.46's app shows only
   * frames: sysprof-cat --expand-memory turns streams into them). */
  stream_mode = format == NULL || strcmp (format, "frames") != 0;

  if (depth_env != NULL && *depth_env >= '0' && *depth_env <= '9')
    {
      char *end = NULL;
      long  v = strtol (depth_env, &end, 10);

      if (*end == 0 && v >= 0)
        depth = v > SYSPROF_COLLECTOR_MAX_ADDRS ? SYSPROF_COLLECTOR_MAX_ADDRS : (int) v;
    }

  if (depth == 0)
    backtrace_func = NULL;
  else if (dwarf)
    {
      sysprof_backtrace_dwarf_init ();
      backtrace_func = cached ? backtrace_cached_cb : backtrace_dwarf_cb;
    }
  else
    backtrace_func = backtrace_fp_cb;
}

/* ---- thread exit, fork, exit() ----------------------------------------------- */

/* The end of a thread that had a stream or an unwind cache: the stream's
 * last block, the cache's memory. */
static void
thread_exit_cb (void *data)
{
  bool saved = tls.guard;

  (void) data;
  tls.guard = true;
  tls.thread_over = true;
  if (stream_mode)
    sysprof_stream_buffer_thread_exit ();
  sysprof_unwind_cache_free (tls.unwind);
  tls.unwind = NULL;
  tls.guard = saved;
}

/* Streams when asked for and possible (frames otherwise), and the handler
 * of threads' ends. */
static void
threads_init (void)
{
  thread_key_ok = pthread_key_create (&thread_key, thread_exit_cb) == 0;
  if (stream_mode && !thread_key_ok)
    stream_mode = false;
}

static void
atfork_prepare (void)
{
  if (stream_mode)
    sysprof_stream_buffers_fork_prepare ();
}

static void
atfork_parent (void)
{
  if (stream_mode)
    sysprof_stream_buffers_fork_parent ();
}

static void
atfork_child (void)
{
  traced_pid = getpid ();
  /* The parent writes its own blocks; a followed child starts its streams
   * afresh (this first, while nothing is recorded). */
  if (stream_mode)
    sysprof_stream_buffers_fork_child ();
  /* The collector leaves the child untraced (skip even the call), unless
   * children are followed: then the child describes itself under its pid. */
  if (!sysprof_collector_follows_children ())
    {
      atomic_store (&tracking, false);
      return;
    }
  describe_process ();
}

static void resolve_exits (void);
static void signals_init (void);

__attribute__ ((constructor)) static void
memory_init (void)
{
  tls.guard = true;
  if (!resolve_real ())
    die ("initialized while looking up the real malloc\n");
  resolve_exits ();
  read_settings ();
  /* Followed children (SYSPROF_FOLLOW_CHILDREN=1) keep the tracker. */
  if (!sysprof_collector_follows_children ())
    drop_from_ld_preload ();
  if (sysprof_collector_is_active ())
    threads_init ();
  if (sysprof_collector_is_active () && pthread_atfork (atfork_prepare, atfork_parent, atfork_child) == 0)
    {
      traced_pid = getpid ();
      atomic_store (&tracking, true);
      if (stream_mode)
        signals_init ();
      tls.guard = false;
      /* Once the real functions are known: the mappings the allocations'
       * stacks will point into. */
      describe_process ();
    }
  tls.guard = false;
}

/* The streams end with the process: every thread's block is written as its
 * stream's last (blocks are otherwise written when full, old, or at the
 * thread's end).  Not in a vfork child, which shares the parent's memory and
 * its blocks: the parent goes on. */
static void
end_streams (void)
{
  bool saved = tls.guard;

  if (!stream_mode || !atomic_load (&tracking) || getpid () != traced_pid)
    return;
  tls.guard = true;
  sysprof_stream_buffers_close ();
  tls.guard = saved;
}

/* ---- signals that end the process ----------------------------------------
 *
 * A block holds up to 10 ms of a thread's events until it is written: a
 * process killed by a signal (Ctrl-C, a crash, abort()) would lose them.
 * Where the program leaves a terminating signal's action at its default when
 * the tracker starts, a handler writes every block out first, then lets the
 * signal do what it would have done: the action is reset to the default on
 * entry (SA_RESETHAND), a signal sent by a process (kill, raise, abort) is
 * raised again, a fault returns to the faulting instruction, which faults
 * again with the original context (and core dump).  A program that installs
 * its own handler later replaces this one; SIGKILL cannot be caught (its
 * blocks are lost, at most 10 ms of each thread's events). */

static const int terminating_signals[] = {
  SIGHUP,  SIGINT,  SIGQUIT, SIGILL,    SIGTRAP, SIGABRT, SIGBUS,    SIGFPE,  SIGUSR1, SIGSEGV, SIGUSR2,
  SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,
};

/* The program must not see the handler: runtimes look at a signal's action
 * before installing theirs (CPython installs its KeyboardInterrupt handler
 * only where SIGINT's action is SIG_DFL).  The signals whose action is still
 * the tracker's handler, one bit each; sigaction() and signal() below report
 * SIG_DFL for them, and a program that sets any action takes the signal
 * back.  (sysv_signal() and sigset() are not hooked: rare, and they set an
 * action, which is all that matters then.) */
static _Atomic uint64_t hidden_signals;
static int (*real_sigaction) (int, const struct sigaction *, struct sigaction *);
static sighandler_t (*real_signal) (int, sighandler_t);

static void
terminating_signal_cb (int sig, siginfo_t *info, void *context)
{
  int saved_errno = errno;

  (void) context;
  if (stream_mode && atomic_load (&tracking) && getpid () == traced_pid)
    {
      tls.guard = true;
      sysprof_stream_buffers_close_from_signal ();
    }
  /* The action is the default again (SA_RESETHAND). */
  if (info == NULL || info->si_code <= 0)
    raise (sig);
  errno = saved_errno;
}

static void
signals_init (void)
{
  struct sigaction action = { 0 };

  if (real_sigaction == NULL)
    return;
  action.sa_sigaction = terminating_signal_cb;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_RESTART;
  sigemptyset (&action.sa_mask);
  for (size_t i = 0; i < sizeof terminating_signals / sizeof terminating_signals[0]; i++)
    {
      struct sigaction old;

      if (real_sigaction (terminating_signals[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
          old.sa_handler == SIG_DFL && real_sigaction (terminating_signals[i], &action, NULL) == 0)
        atomic_fetch_or (&hidden_signals, UINT64_C (1) << terminating_signals[i]);
    }
}

static inline uint64_t
signal_bit (int sig)
{
  return sig > 0 && sig < 64 ? UINT64_C (1) << sig : 0;
}

EXPORT int
sigaction (int sig, const struct sigaction *action, struct sigaction *old)
{
  uint64_t bit = signal_bit (sig);
  uint64_t was;
  int      ret;

  /* A library's constructor may come before ours. */
  if (UNLIKELY (real_sigaction == NULL) &&
      (real_sigaction = (__typeof__ (real_sigaction)) dlsym (RTLD_NEXT, "sigaction")) == NULL)
    {
      errno = ENOSYS;
      return -1;
    }
  ret = real_sigaction (sig, action, old);
  if (ret != 0 || bit == 0)
    return ret;
  was = action != NULL ? atomic_fetch_and (&hidden_signals, ~bit) : atomic_load (&hidden_signals);
  if ((was & bit) && old != NULL && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction == terminating_signal_cb)
    {
      memset (old, 0, sizeof *old);
      old->sa_handler = SIG_DFL;
      sigemptyset (&old->sa_mask);
    }
  return ret;
}

EXPORT sighandler_t
signal (int sig, sighandler_t handler)
{
  uint64_t     bit = signal_bit (sig);
  sighandler_t ret;

  if (UNLIKELY (real_signal == NULL) && (real_signal = (__typeof__ (real_signal)) dlsym (RTLD_NEXT, "signal")) == NULL)
    {
      errno = ENOSYS;
      return SIG_ERR;
    }
  ret = real_signal (sig, handler);
  if (ret != SIG_ERR && (atomic_fetch_and (&hidden_signals, ~bit) & bit) &&
      ret == (sighandler_t) (void (*) (void)) terminating_signal_cb)
    ret = SIG_DFL;
  return ret;
}

/* exit(): the streams end; with SYSPROF_MEMORY_UNWIND=dwarf-verify, how the
 * cache compared, as a LOG frame. */
__attribute__ ((destructor)) static void
memory_fini (void)
{
  bool saved = tls.guard;

  if (!atomic_load (&tracking))
    return;
  tls.guard = true;
  if (unwind_verify)
    sysprof_collector_log_printf (1 << 4 /* G_LOG_LEVEL_MESSAGE */, "libsysprof-memory",
                                  "unwind cache: %llu backtraces compared with libunwind, %llu differed",
                                  (unsigned long long) atomic_load (&n_verified),
                                  (unsigned long long) atomic_load (&n_verify_failed));
  tls.guard = saved;
  end_streams ();
}

/* ---- leaving without exit() ---------------------------------------------------- */

/* _exit() and a successful exec run nothing of ours afterwards: the streams
 * end before (a failed exec then records frames).  glibc's own internal calls
 * (execl*, posix_spawn's child, system()) do not come through here: their
 * blocks, at most 10 ms of each thread's events, are lost. */
typedef struct
{
  void (*exit_) (int);
  int (*execve) (const char *, char *const[], char *const[]);
  int (*execv) (const char *, char *const[]);
  int (*execvp) (const char *, char *const[]);
  int (*execvpe) (const char *, char *const[], char *const[]);
  int (*fexecve) (int, char *const[], char *const[]);
} RealExits;

/* Looked up once, by the constructor: a vfork child calling exec must not
 * have to (dlsym takes the loader's lock, in the parent's memory). */
static RealExits real_exits;

static void
resolve_exits (void)
{
  real_exits.exit_ = (__typeof__ (real_exits.exit_)) dlsym (RTLD_NEXT, "_exit");
  real_exits.execve = (__typeof__ (real_exits.execve)) dlsym (RTLD_NEXT, "execve");
  real_exits.execv = (__typeof__ (real_exits.execv)) dlsym (RTLD_NEXT, "execv");
  real_exits.execvp = (__typeof__ (real_exits.execvp)) dlsym (RTLD_NEXT, "execvp");
  real_exits.execvpe = (__typeof__ (real_exits.execvpe)) dlsym (RTLD_NEXT, "execvpe");
  real_exits.fexecve = (__typeof__ (real_exits.fexecve)) dlsym (RTLD_NEXT, "fexecve");
  if (real_sigaction == NULL)
    real_sigaction = (__typeof__ (real_sigaction)) dlsym (RTLD_NEXT, "sigaction");
  if (real_signal == NULL)
    real_signal = (__typeof__ (real_signal)) dlsym (RTLD_NEXT, "signal");
}

#define REAL_EXIT(fn) (real_exits.fn != NULL ? real_exits.fn : (resolve_exits (), real_exits.fn))

EXPORT __attribute__ ((noreturn)) void
_exit (int status)
{
  void (*fn) (int) = REAL_EXIT (exit_);

  end_streams ();
  if (fn == NULL)
    die_missing ("_exit");
  fn (status);
  __builtin_unreachable ();
}

EXPORT __attribute__ ((noreturn)) void
_Exit (int status)
{
  _exit (status);
}

EXPORT int
execve (const char *path, char *const argv[], char *const envp[])
{
  int (*fn) (const char *, char *const[], char *const[]) = REAL_EXIT (execve);

  end_streams ();
  if (fn == NULL)
    die_missing ("execve");
  return fn (path, argv, envp);
}

EXPORT int
execv (const char *path, char *const argv[])
{
  int (*fn) (const char *, char *const[]) = REAL_EXIT (execv);

  end_streams ();
  if (fn == NULL)
    die_missing ("execv");
  return fn (path, argv);
}

EXPORT int
execvp (const char *file, char *const argv[])
{
  int (*fn) (const char *, char *const[]) = REAL_EXIT (execvp);

  end_streams ();
  if (fn == NULL)
    die_missing ("execvp");
  return fn (file, argv);
}

EXPORT int
execvpe (const char *file, char *const argv[], char *const envp[])
{
  int (*fn) (const char *, char *const[], char *const[]) = REAL_EXIT (execvpe);

  end_streams ();
  if (fn == NULL)
    die_missing ("execvpe");
  return fn (file, argv, envp);
}

EXPORT int
fexecve (int fd, char *const argv[], char *const envp[])
{
  int (*fn) (int, char *const[], char *const[]) = REAL_EXIT (fexecve);

  end_streams ();
  if (fn == NULL)
    die_missing ("fexecve");
  return fn (fd, argv, envp);
}
