// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sysprof-capture-util-private.h"
#include "sysprof-mapped-ring-buffer.h"

#define DEFAULT_BODY_PAGES 63
#define RING_ALIGN         8

/* The first page of the memfd; only these 16 bytes are used. */
typedef struct
{
  _Atomic uint32_t head;
  _Atomic uint32_t tail;
  uint32_t         offset;
  uint32_t         size;
} RingHeader;

typedef enum
{
  MODE_READER,
  MODE_WRITER,
} RingMode;

struct _SysprofMappedRingBuffer
{
  _Atomic int ref_count;
  RingMode    mode;
  int         fd;
  uint8_t    *map;
  size_t      map_len;
  size_t      page_size;
  /* Our own copy: the header's size word belongs to the other process. */
  uint32_t size;
  /* Reader: where we are.  The header's head word is only written, for the
   * producer to see: it lies in the producer's memory, and a position it
   * could move would let it make us skip, repeat or misalign frames. */
  uint32_t head;
};

static size_t
page_size (void)
{
  long sz = sysconf (_SC_PAGESIZE);
  return sz > 0 ? (size_t) sz : 4096;
}

static inline RingHeader *
header (SysprofMappedRingBuffer *self)
{
  return (RingHeader *) (void *) self->map;
}

static inline uint8_t *
body (SysprofMappedRingBuffer *self)
{
  return self->map + self->page_size;
}

/* Maps header + body, then the body again right behind it. */
static uint8_t *
map_ring (int fd, size_t page, size_t size, size_t *map_len)
{
  size_t   len = page + 2 * size;
  uint8_t *map = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

  if (map == MAP_FAILED)
    return NULL;
  if (mmap (map + page + size, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t) page) == MAP_FAILED)
    {
      int saved = errno;
      munmap (map, len);
      errno = saved;
      return NULL;
    }
  *map_len = len;
  return map;
}

static bool
size_ok (size_t size, size_t page)
{
  return size > 0 && size % page == 0 && size < UINT32_MAX / 2 - page;
}

SysprofMappedRingBuffer *
sysprof_mapped_ring_buffer_new_reader (size_t buffer_size)
{
  SysprofMappedRingBuffer *self;
  size_t                   page = page_size ();
  int                      fd;

  if (buffer_size == 0)
    buffer_size = DEFAULT_BODY_PAGES * page;
  sysprof_return_val_if_fail (size_ok (buffer_size, page), NULL);

  fd = memfd_create ("[sysprof-ring-buffer]", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return NULL;
  /* Sealed so the producer cannot shrink the file under our mapping: reading
   * a truncated shared mapping would kill the consumer with SIGBUS. */
  if (ftruncate (fd, (off_t) (page + buffer_size)) != 0 ||
      fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    {
      int saved = errno;
      close (fd);
      errno = saved;
      return NULL;
    }
  if ((self = calloc (1, sizeof *self)) == NULL)
    {
      close (fd);
      errno = ENOMEM;
      return NULL;
    }
  self->ref_count = 1;
  self->mode = MODE_READER;
  self->fd = fd;
  self->page_size = page;
  self->size = (uint32_t) buffer_size;
  if ((self->map = map_ring (fd, page, buffer_size, &self->map_len)) == NULL)
    {
      int saved = errno;
      close (fd);
      free (self);
      errno = saved;
      return NULL;
    }
  atomic_store (&header (self)->head, 0);
  atomic_store (&header (self)->tail, 0);
  header (self)->offset = (uint32_t) page;
  header (self)->size = (uint32_t) buffer_size;
  return self;
}

SysprofMappedRingBuffer *
sysprof_mapped_ring_buffer_new_writer (int fd)
{
  SysprofMappedRingBuffer *self;
  size_t                   page = page_size ();
  struct stat              st;
  RingHeader               hdr;
  ssize_t                  n;
  int                      dup_fd;

  sysprof_return_val_if_fail (fd >= 0, NULL);
  if (fstat (fd, &st) != 0)
    return NULL;
  do
    n = pread (fd, &hdr, sizeof hdr, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return NULL;
  if (n != (ssize_t) sizeof hdr || hdr.offset != page || !size_ok (hdr.size, page) ||
      (uint64_t) st.st_size != (uint64_t) page + hdr.size)
    {
      errno = EINVAL;
      return NULL;
    }
  if ((dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0)
    return NULL;
  if ((self = calloc (1, sizeof *self)) == NULL)
    {
      close (dup_fd);
      errno = ENOMEM;
      return NULL;
    }
  self->ref_count = 1;
  self->mode = MODE_WRITER;
  self->fd = dup_fd;
  self->page_size = page;
  self->size = hdr.size;
  if ((self->map = map_ring (dup_fd, page, hdr.size, &self->map_len)) == NULL)
    {
      int saved = errno;
      close (dup_fd);
      free (self);
      errno = saved;
      return NULL;
    }
  return self;
}

int
sysprof_mapped_ring_buffer_dup_fd (SysprofMappedRingBuffer *self)
{
  sysprof_return_val_if_fail (self != NULL, -1);
  return fcntl (self->fd, F_DUPFD_CLOEXEC, 3);
}

size_t
sysprof_mapped_ring_buffer_get_size (SysprofMappedRingBuffer *self)
{
  sysprof_return_val_if_fail (self != NULL, 0);
  return self->size;
}

void *
sysprof_mapped_ring_buffer_allocate (SysprofMappedRingBuffer *self, size_t len)
{
  uint32_t head, tail, used;

  sysprof_return_val_if_fail (self != NULL, NULL);
  sysprof_return_val_if_fail (self->mode == MODE_WRITER, NULL);
  sysprof_return_val_if_fail (len > 0 && len < self->size, NULL);

  /* Acquire: the consumer is done with what lies before head.  The tail is
   * ours; reading it needs no ordering. */
  head = atomic_load_explicit (&header (self)->head, memory_order_acquire);
  tail = atomic_load_explicit (&header (self)->tail, memory_order_relaxed);
  if (head >= self->size || tail >= self->size)
    {
      errno = EBADMSG;
      return NULL;
    }
  used = tail >= head ? tail - head : self->size - head + tail;
  /* Strictly less: tail == head means empty, so the ring never fills up. */
  if ((size_t) used + len >= self->size)
    {
      errno = EAGAIN;
      return NULL;
    }
  return body (self) + tail;
}

bool
sysprof_mapped_ring_buffer_advance (SysprofMappedRingBuffer *self, size_t len)
{
  uint32_t tail;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (self->mode == MODE_WRITER, false);
  sysprof_return_val_if_fail (len % RING_ALIGN == 0 && len < self->size, false);

  tail = atomic_load_explicit (&header (self)->tail, memory_order_relaxed);
  if (tail >= self->size)
    {
      errno = EBADMSG;
      return false;
    }
  /* Release: the frame bytes are visible before the tail that publishes
   * them (a plain store on x86, where a seq-cst one costs a full fence on
   * every event).  len < size, so one subtraction wraps. */
  tail += (uint32_t) len;
  if (tail >= self->size)
    tail -= self->size;
  atomic_store_explicit (&header (self)->tail, tail, memory_order_release);
  return true;
}

/* The bytes published after our head: the tail word is read once and
 * checked; the caller uses this one value for everything it decides. */
static bool
reader_available (SysprofMappedRingBuffer *self, size_t *avail)
{
  uint32_t tail = atomic_load_explicit (&header (self)->tail, memory_order_acquire);

  if (tail >= self->size || tail % RING_ALIGN)
    {
      errno = EBADMSG;
      return false;
    }
  *avail = tail >= self->head ? tail - self->head : (size_t) self->size - self->head + tail;
  return true;
}

/* Publishes our new head (the producer may now reuse what lies before it). */
static void
reader_advance (SysprofMappedRingBuffer *self, size_t len)
{
  self->head = (uint32_t) (((size_t) self->head + len) % self->size);
  atomic_store_explicit (&header (self)->head, self->head, memory_order_release);
}

bool
sysprof_mapped_ring_buffer_drain (SysprofMappedRingBuffer        *self,
                                  SysprofMappedRingBufferCallback callback,
                                  void                           *user_data)
{
  size_t budget;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (self->mode == MODE_READER, false);
  sysprof_return_val_if_fail (callback != NULL, false);

  /* One body's worth per call: a producer refilling as fast as we drain
   * would otherwise keep us here forever. */
  budget = self->size;
  while (budget > 0)
    {
      size_t avail, len;
      bool   more;

      /* The tail is re-read every time; the producer may write anything
       * there. */
      if (!reader_available (self, &avail))
        return false;
      if (avail == 0)
        break;
      /* Never offer part of what was published: it could end inside a
       * frame.  (The first call always fits: avail < size.) */
      if (avail > budget)
        break;
      /* head + avail < 2 × size: within the doubled body mapping. */
      len = avail;
      more = callback (body (self) + self->head, &len, user_data);
      if (len > avail || len % RING_ALIGN)
        {
          errno = EINVAL;
          return false;
        }
      reader_advance (self, len);
      budget -= len;
      if (!more || len == 0)
        break;
    }
  return true;
}

void
sysprof_mapped_ring_buffer_clear (SysprofMappedRingBuffer *self)
{
  uint32_t tail;

  sysprof_return_if_fail (self != NULL);
  sysprof_return_if_fail (self->mode == MODE_READER);

  /* Read once: the value checked is the value kept. */
  tail = atomic_load (&header (self)->tail);
  if (tail >= self->size || tail % RING_ALIGN)
    {
      atomic_store (&header (self)->tail, 0);
      tail = 0;
    }
  self->head = tail;
  atomic_store (&header (self)->head, tail);
}

const void *
sysprof_mapped_ring_buffer_peek (SysprofMappedRingBuffer *self, size_t *len)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  sysprof_return_val_if_fail (self->mode == MODE_READER, NULL);
  sysprof_return_val_if_fail (len != NULL, NULL);

  *len = 0;
  if (!reader_available (self, len))
    return NULL;
  /* head < size and len < size: within the doubled body mapping. */
  return body (self) + self->head;
}

bool
sysprof_mapped_ring_buffer_consume (SysprofMappedRingBuffer *self, size_t len)
{
  size_t avail;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (self->mode == MODE_READER, false);

  if (!reader_available (self, &avail))
    return false;
  if (len > avail || len % RING_ALIGN)
    {
      errno = EINVAL;
      return false;
    }
  reader_advance (self, len);
  return true;
}

bool
sysprof_mapped_ring_buffer_is_empty (SysprofMappedRingBuffer *self)
{
  uint32_t tail;

  sysprof_return_val_if_fail (self != NULL, true);
  tail = atomic_load (&header (self)->tail);
  if (self->mode == MODE_READER)
    return tail == self->head;
  return atomic_load (&header (self)->head) == tail;
}

SysprofMappedRingBuffer *
sysprof_mapped_ring_buffer_ref (SysprofMappedRingBuffer *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  atomic_fetch_add (&self->ref_count, 1);
  return self;
}

void
sysprof_mapped_ring_buffer_unref (SysprofMappedRingBuffer *self)
{
  if (self == NULL || atomic_fetch_sub (&self->ref_count, 1) != 1)
    return;
  munmap (self->map, self->map_len);
  close (self->fd);
  free (self);
}
