// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE 1

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sysprof-stream-buffer.h"

/* Initial-exec TLS: the lazy allocation of global-dynamic TLS would call
 * malloc from inside malloc. */
#define TLS __thread __attribute__ ((tls_model ("initial-exec")))

/* How long exit() waits for a thread in the middle of an event: longer than
 * the collector waits for room in a ring (about 1 s). */
#define CLOSE_WAIT_NS (2 * 1000 * 1000 * 1000LL)

/* Every buffer, under list_lock; closed once exit() wrote them out. */
static pthread_mutex_t      list_lock = PTHREAD_MUTEX_INITIALIZER;
static SysprofStreamBuffer *list_head;
static bool                 closed;
/* When the last sweep began (any thread's time). */
static _Atomic int64_t last_sweep;

static TLS SysprofStreamBuffer *own;
/* This thread's stream ended, or it could get no buffer: frames from now. */
static TLS bool own_over;

static void
buffer_free (SysprofStreamBuffer *self)
{
  sysprof_stack_table_free (self->stacks);
  munmap (self, sizeof *self);
}

SysprofStreamBuffer *
sysprof_stream_buffer_get (void)
{
  SysprofStreamBuffer *self;
  void                *p;

  if (own != NULL || own_over)
    return own;
  /* A thread that cannot have a buffer does not try again at every event
   * (two system calls each time). */
  own_over = true;
  p = mmap (NULL, sizeof *self, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  self = p;
  sysprof_memory_stream_encoder_init (&self->encoder, self->data, sizeof self->data);
  if ((self->stacks = sysprof_stack_table_new ()) == NULL)
    {
      munmap (p, sizeof *self);
      return NULL;
    }
  self->tid = (int32_t) gettid ();
  pthread_mutex_lock (&list_lock);
  if (closed)
    {
      pthread_mutex_unlock (&list_lock);
      buffer_free (self);
      return NULL;
    }
  self->next = list_head;
  if (list_head != NULL)
    list_head->prev = self;
  list_head = self;
  pthread_mutex_unlock (&list_lock);
  own_over = false;
  own = self;
  return self;
}

bool
_sysprof_stream_buffer_wait (SysprofStreamBuffer *self)
{
  for (;;)
    {
      uint32_t state = atomic_load_explicit (&self->state, memory_order_acquire);

      if (state == SYSPROF_STREAM_BUFFER_IDLE)
        {
          if (atomic_compare_exchange_strong_explicit (&self->state, &state, SYSPROF_STREAM_BUFFER_BUSY,
                                                       memory_order_acquire, memory_order_relaxed))
            return true;
        }
      else if (state == SYSPROF_STREAM_BUFFER_TAKEN)
        /* Another thread is writing the block out: one ring write. */
        sched_yield ();
      else
        return false;
    }
}

/* Writes the block out (the caller holds the state: BUSY or TAKEN). */
static void
flush_held (SysprofStreamBuffer *self, bool is_last)
{
  uint32_t       n_events = atomic_load_explicit (&self->n_events, memory_order_relaxed);
  const uint8_t *block;
  size_t         len;

  /* An empty block says the stream ended, when there was a stream. */
  if (sysprof_memory_stream_encoder_is_empty (&self->encoder) && (!is_last || self->n_blocks == 0))
    return;
  block = sysprof_memory_stream_encoder_get_block (&self->encoder, &len);
  if (sysprof_collector_write_memory_stream (self->tid, block, len, is_last, n_events))
    self->n_blocks++;
  else
    {
      /* Counted lost by the collector.  Its stack definitions went with it:
       * no later block may use them. */
      sysprof_stack_table_clear (self->stacks);
      self->need_reset = true;
    }
  sysprof_memory_stream_encoder_clear (&self->encoder);
  atomic_store_explicit (&self->n_events, 0, memory_order_relaxed);
  atomic_store_explicit (&self->first_time, 0, memory_order_relaxed);
}

SysprofMemoryStreamEncoder *
sysprof_stream_buffer_reserve (SysprofStreamBuffer *self, size_t max_bytes, int64_t time)
{
  if (!sysprof_memory_stream_encoder_is_empty (&self->encoder) &&
      sysprof_memory_stream_encoder_get_room (&self->encoder) < max_bytes)
    flush_held (self, false);
  if (atomic_load_explicit (&self->first_time, memory_order_relaxed) == 0)
    {
      /* A cleared encoder fits a reset and any event. */
      if (self->need_reset)
        {
          sysprof_memory_stream_encoder_add_reset (&self->encoder);
          self->need_reset = false;
        }
      atomic_store_explicit (&self->first_time, time > 0 ? time : 1, memory_order_relaxed);
    }
  return &self->encoder;
}

/* Takes @b from its idle owner (IDLE -> TAKEN), writes its block out and
 * gives it back, when its first event is at least @min_age old at @now (0:
 * when it has any).  Never waits.  Under list_lock. */
static void
flush_if_idle (SysprofStreamBuffer *b, int64_t now, int64_t min_age)
{
  int64_t  first = atomic_load_explicit (&b->first_time, memory_order_relaxed);
  uint32_t expected = SYSPROF_STREAM_BUFFER_IDLE;

  if (first == 0 || now - first < min_age ||
      !atomic_compare_exchange_strong_explicit (&b->state, &expected, SYSPROF_STREAM_BUFFER_TAKEN, memory_order_acquire,
                                                memory_order_relaxed))
    return;
  flush_held (b, false);
  atomic_store_explicit (&b->state, SYSPROF_STREAM_BUFFER_IDLE, memory_order_release);
}

/* Writes out other threads' blocks whose first event is old, if their owners
 * are idle: a thread that stopped allocating would keep them until it ends.
 * At most one sweep per SYSPROF_STREAM_BUFFER_MAX_AGE_NS in the process, and
 * none when another thread holds the list (it never waits). */
static void
sweep (SysprofStreamBuffer *self, int64_t now)
{
  int64_t last = atomic_load_explicit (&last_sweep, memory_order_relaxed);

  if (now - last < SYSPROF_STREAM_BUFFER_MAX_AGE_NS ||
      !atomic_compare_exchange_strong_explicit (&last_sweep, &last, now, memory_order_relaxed, memory_order_relaxed) ||
      pthread_mutex_trylock (&list_lock) != 0)
    return;
  for (SysprofStreamBuffer *b = list_head; b != NULL; b = b->next)
    if (b != self)
      flush_if_idle (b, now, SYSPROF_STREAM_BUFFER_MAX_AGE_NS);
  pthread_mutex_unlock (&list_lock);
}

void
sysprof_stream_buffer_commit (SysprofStreamBuffer *self, int64_t time)
{
  int64_t first = atomic_load_explicit (&self->first_time, memory_order_relaxed);

  atomic_store_explicit (&self->n_events, atomic_load_explicit (&self->n_events, memory_order_relaxed) + 1,
                         memory_order_relaxed);
  if (time - first >= SYSPROF_STREAM_BUFFER_MAX_AGE_NS)
    flush_held (self, false);
  if (time - atomic_load_explicit (&last_sweep, memory_order_relaxed) >= SYSPROF_STREAM_BUFFER_MAX_AGE_NS)
    sweep (self, time);
}

void
sysprof_stream_buffers_flush_all (void)
{
  if (own != NULL && sysprof_stream_buffer_begin (own))
    {
      flush_held (own, false);
      sysprof_stream_buffer_end (own);
    }
  pthread_mutex_lock (&list_lock);
  for (SysprofStreamBuffer *b = list_head; b != NULL; b = b->next)
    if (b != own)
      flush_if_idle (b, 0, 0);
  pthread_mutex_unlock (&list_lock);
}

void
sysprof_stream_buffer_thread_exit (void)
{
  SysprofStreamBuffer *self = own;

  own_over = true;
  if (self == NULL)
    return;
  own = NULL;
  /* Taken at exit() already (ENDED), or being swept (wait). */
  if (_sysprof_stream_buffer_wait (self))
    {
      flush_held (self, true);
      atomic_store_explicit (&self->state, SYSPROF_STREAM_BUFFER_ENDED, memory_order_release);
    }
  pthread_mutex_lock (&list_lock);
  if (self->prev != NULL)
    self->prev->next = self->next;
  else
    list_head = self->next;
  if (self->next != NULL)
    self->next->prev = self->prev;
  pthread_mutex_unlock (&list_lock);
  buffer_free (self);
}

static int64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Ends @b's stream: its block written as the stream's last, @b ENDED.  An
 * owner in the middle of an event is waited for until @deadline; past it,
 * or at once for the calling thread's own buffer when @own_busy_is_lost (a
 * signal came in the middle of its event: its block is not consistent), the
 * block is lost and its events counted (a block the collector refuses
 * counts them).  Under list_lock. */
static void
end_stream (SysprofStreamBuffer *b, int64_t deadline, bool own_busy_is_lost)
{
  for (;;)
    {
      uint32_t expected = SYSPROF_STREAM_BUFFER_IDLE;

      if (atomic_compare_exchange_strong_explicit (&b->state, &expected, SYSPROF_STREAM_BUFFER_TAKEN,
                                                   memory_order_acquire, memory_order_relaxed))
        {
          flush_held (b, true);
          atomic_store_explicit (&b->state, SYSPROF_STREAM_BUFFER_ENDED, memory_order_release);
          return;
        }
      if (expected == SYSPROF_STREAM_BUFFER_ENDED)
        return;
      if ((own_busy_is_lost && b == own) || monotonic_ns () > deadline)
        {
          sysprof_collector_write_memory_stream (b->tid, NULL, 0, false,
                                                 atomic_load_explicit (&b->n_events, memory_order_relaxed));
          return;
        }
      sched_yield ();
    }
}

void
sysprof_stream_buffers_close (void)
{
  pthread_mutex_lock (&list_lock);
  closed = true;
  /* A thread stuck longer than this (stopped in a debugger?) loses its block. */
  for (SysprofStreamBuffer *b = list_head; b != NULL; b = b->next)
    end_stream (b, monotonic_ns () + CLOSE_WAIT_NS, false);
  pthread_mutex_unlock (&list_lock);
}

/* How long a fatal signal's handler waits, in all, for the list's lock and
 * for other threads in the middle of an event: they run on meanwhile.  A
 * second: on a loaded machine (both vCPUs busy) 200 ms was sometimes too
 * short for a preempted thread to finish its event, and its block was lost;
 * a process that is dying anyway can wait that long for its profile. */
#define SIGNAL_WAIT_NS (1000 * 1000 * 1000LL)

void
sysprof_stream_buffers_close_from_signal (void)
{
  int64_t deadline = monotonic_ns () + SIGNAL_WAIT_NS;

  /* The lock is taken only briefly, but this thread may be the one holding
   * it (the signal came in the middle): try, never wait for ever. */
  while (pthread_mutex_trylock (&list_lock) != 0)
    {
      if (monotonic_ns () > deadline)
        return;
      sched_yield ();
    }
  closed = true;
  for (SysprofStreamBuffer *b = list_head; b != NULL; b = b->next)
    end_stream (b, deadline, true);
  pthread_mutex_unlock (&list_lock);
}

void
sysprof_stream_buffers_fork_prepare (void)
{
  pthread_mutex_lock (&list_lock);
}

void
sysprof_stream_buffers_fork_parent (void)
{
  pthread_mutex_unlock (&list_lock);
}

void
sysprof_stream_buffers_fork_child (void)
{
  SysprofStreamBuffer *b = list_head;

  /* Only this thread exists here: the others' buffers are copies of the
   * parent's, which writes them itself. */
  list_head = NULL;
  while (b != NULL)
    {
      SysprofStreamBuffer *next = b->next;

      if (b != own)
        buffer_free (b);
      b = next;
    }
  if (own != NULL)
    {
      /* A new stream: another process, another thread id, no stack ids. */
      own->tid = (int32_t) gettid ();
      sysprof_memory_stream_encoder_init (&own->encoder, own->data, sizeof own->data);
      own->n_blocks = 0;
      own->need_reset = false;
      atomic_store (&own->n_events, 0);
      atomic_store (&own->first_time, 0);
      atomic_store (&own->state, SYSPROF_STREAM_BUFFER_IDLE);
      sysprof_stack_table_clear (own->stacks);
      own->prev = own->next = NULL;
      list_head = own;
    }
  atomic_store (&last_sweep, 0);
  pthread_mutex_unlock (&list_lock);
}
