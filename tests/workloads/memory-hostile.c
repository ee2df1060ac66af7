// SPDX-License-Identifier: GPL-3.0-or-later
/* memory-hostile: a traced program that misbehaves, for the memory tracing
 * tests.  Run under the tracker (sysprof-cli --memprof); MODE:
 *
 *   abort     two threads allocate; after 20000 allocations each, one thread
 *             aborts while the other is still allocating (the process dies
 *             with SIGABRT in the middle of writing its rings).
 *   garbage   allocates 1000 blocks of 4242 bytes in good_alloc (through the
 *             tracker), then asks the profiler for a ring of its own over
 *             $SYSPROF_CONTROL_FD and fills it with garbage: random bytes,
 *             a frame whose length runs past what was published, impossible
 *             positions; then exits normally.
 *   truncated asks for a ring and publishes half of a frame, then aborts.
 *   streams   allocates 1000 blocks of 4242 bytes in good_alloc (through the
 *             tracker), then asks for a ring of its own and writes well-
 *             framed memory-stream chunks (libsysprof-capture/memory-
 *             stream.md) whose blocks are hostile, each in a stream of a
 *             made-up thread, every fault after some sound events:
 *               1000001  10 allocations of 777 bytes, then one naming stack
 *                        id 77, never defined; a next block: 5 more of 777
 *               1000002  3 of 778, then stack id 1 defined a second time
 *               1000003  'R' then random bytes
 *               1000004  4 of 779, then an allocation record cut short
 *               1000005  a 'Z' block whose zstd frame is garbage
 *               1000006  2 of 780; a next block whose base time is earlier
 *                        than the first block's events (time going back)
 *             and one chunk whose path names no thread (".../01").  Six
 *             unsound blocks (one error each) and 1 refused chunk; the sound
 *             events: 15 x 777, 3 x 778, 4 x 779, 2 x 780 bytes.
 *
 * Whatever it does, the recording must complete with a valid capture that
 * keeps what was recorded before the damage. */

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sysprof-capture.h>

static void *volatile sink;
static volatile int started;

__attribute__ ((noinline)) static void *
good_alloc (size_t size)
{
  void *p = malloc (size);

  sink = p;
  return p;
}

static void *
allocate_forever (void *data)
{
  (void) data;
  for (long i = 0;; i++)
    {
      free (good_alloc (64));
      if (i == 20000)
        __atomic_store_n (&started, 1, __ATOMIC_SEQ_CST);
    }
  return NULL;
}

static int
mode_abort (void)
{
  pthread_t thread;

  if (pthread_create (&thread, NULL, allocate_forever, NULL) != 0)
    return 1;
  for (long i = 0; i < 20000; i++)
    free (good_alloc (32));
  while (!__atomic_load_n (&started, __ATOMIC_SEQ_CST))
    ;
  abort ();
}

/* Speaks the control protocol itself: the tracker's collector already has
 * its ring for this thread, so the socket is idle. */
static int
request_ring (void)
{
  const char *env = getenv ("SYSPROF_CONTROL_FD");
  char        byte;
  int         fd, ring_fd = -1;
  union
  {
    struct cmsghdr hdr;
    char           buf[CMSG_SPACE (sizeof (int))];
  } control;
  struct iovec    iov = { &byte, 1 };
  struct msghdr   msg = { 0 };
  struct cmsghdr *cmsg;

  if (env == NULL)
    return -1;
  fd = atoi (env);
  if (send (fd, "CreatRing", 10, MSG_NOSIGNAL) != 10)
    return -1;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  if (recvmsg (fd, &msg, 0) != 1)
    return -1;
  for (cmsg = CMSG_FIRSTHDR (&msg); cmsg != NULL; cmsg = CMSG_NXTHDR (&msg, cmsg))
    if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS)
      memcpy (&ring_fd, CMSG_DATA (cmsg), sizeof ring_fd);
  return ring_fd;
}

/* Maps the ring as it is, header included, to write anything anywhere. */
static uint8_t *
map_raw (int fd, uint32_t **header, size_t *size)
{
  long     page = sysconf (_SC_PAGESIZE);
  uint8_t *head = mmap (NULL, (size_t) page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  uint8_t *body;

  if (head == MAP_FAILED)
    return NULL;
  *header = (uint32_t *) (void *) head;
  *size = (*header)[3];
  body = mmap (NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page);
  return body == MAP_FAILED ? NULL : body;
}

static int
mode_garbage (void)
{
  uint32_t *header;
  uint8_t  *body;
  size_t    size;
  int       fd;

  for (int i = 0; i < 1000; i++)
    if (good_alloc (4242) == NULL)
      return 1;
  if ((fd = request_ring ()) < 0 || (body = map_raw (fd, &header, &size)) == NULL)
    {
      fprintf (stderr, "memory-hostile: no ring\n");
      return 1;
    }
  srand (42);
  for (int round = 0; round < 200; round++)
    {
      uint32_t tail = (uint32_t) (rand () % (int) (size / 8)) * 8;

      for (size_t i = 0; i < 65536 && i < size; i++)
        body[i] = (uint8_t) rand ();
      switch (round % 3)
        {
        case 0: /* random bytes up to a plausible tail */ break;
        case 1: /* a frame longer than what is published */
          memset (body, 0, 24);
          body[0] = 0xF8;
          body[1] = 0x0F;
          ((SysprofCaptureFrame *) (void *) body)->type = SYSPROF_CAPTURE_FRAME_LOG;
          tail = 64;
          break;
        default: /* impossible positions */ tail = 0xFFFFFFF8u; break;
        }
      __atomic_store_n (&header[1], tail, __ATOMIC_SEQ_CST);
      usleep (2000);
    }
  printf ("garbage done\n");
  return 0;
}

static int
mode_truncated (void)
{
  uint32_t *header;
  uint8_t  *body;
  size_t    size;
  int       fd;

  for (int i = 0; i < 100; i++)
    if (good_alloc (4242) == NULL)
      return 1;
  if ((fd = request_ring ()) < 0 || (body = map_raw (fd, &header, &size)) == NULL)
    return 1;
  /* A 96-byte LOG frame of which only 48 bytes are published. */
  memset (body, 0, 96);
  body[0] = 96;
  ((SysprofCaptureFrame *) (void *) body)->type = SYSPROF_CAPTURE_FRAME_LOG;
  __atomic_store_n (&header[1], 48, __ATOMIC_SEQ_CST);
  abort ();
}

/* One FILE_CHUNK frame of @len bytes of @data at @path, in @ring. */
static int
write_chunk (SysprofMappedRingBuffer *ring, const char *path, const void *data, size_t len)
{
  size_t                   frame_len = (sizeof (SysprofCaptureFileChunk) + len + 7) & ~(size_t) 7;
  SysprofCaptureFileChunk *chunk;

  if ((chunk = sysprof_mapped_ring_buffer_allocate (ring, frame_len)) == NULL)
    return -1;
  memset (chunk, 0, frame_len);
  chunk->frame.len = (uint16_t) frame_len;
  chunk->frame.type = SYSPROF_CAPTURE_FRAME_FILE_CHUNK;
  chunk->frame.cpu = -1;
  chunk->frame.pid = getpid ();
  chunk->frame.time = SYSPROF_CAPTURE_CURRENT_TIME;
  chunk->len = (uint32_t) len;
  snprintf (chunk->path, sizeof chunk->path, "%s", path);
  memcpy (chunk->data, data, len);
  sysprof_mapped_ring_buffer_advance (ring, frame_len);
  return 0;
}

/* @n allocations of @size bytes with stack 1 (defined first when @define),
 * starting at @time; the block so far stays in @enc. */
static void
add_allocations (SysprofMemoryStreamEncoder *enc, bool define, int n, uint64_t size, int64_t time)
{
  static const SysprofCaptureAddress frames[2] = { (SysprofCaptureAddress) (uintptr_t) good_alloc,
                                                   (SysprofCaptureAddress) (uintptr_t) mode_garbage };

  if (define)
    sysprof_memory_stream_encoder_add_stack (enc, 1, frames, 2);
  for (int i = 0; i < n; i++)
    sysprof_memory_stream_encoder_add_allocation (enc, time + i, 0x10000 + 0x1000 * (uint64_t) i, size, 1);
}

static int
mode_streams (void)
{
  static uint8_t             buffer[4096];
  SysprofMemoryStreamEncoder enc;
  SysprofMappedRingBuffer   *ring;
  const uint8_t             *block;
  uint8_t                    bytes[512];
  size_t                     len;
  int64_t                    now;
  int                        fd, bad = 0;

  sysprof_clock_init ();
  now = SYSPROF_CAPTURE_CURRENT_TIME;
  for (int i = 0; i < 1000; i++)
    if (good_alloc (4242) == NULL)
      return 1;
  if ((fd = request_ring ()) < 0 || (ring = sysprof_mapped_ring_buffer_new_writer (fd)) == NULL)
    {
      fprintf (stderr, "memory-hostile: no ring\n");
      return 1;
    }

#define SEND(tid, data, n) bad |= write_chunk (ring, SYSPROF_MEMORY_STREAM_PATH_PREFIX #tid, data, n)
/* The encoder's block into block and len (before SEND reads them). */
#define BLOCK() (block = sysprof_memory_stream_encoder_get_block (&enc, &len))

  /* An id never defined; the stream goes on with its next block. */
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);
  add_allocations (&enc, true, 10, 777, now);
  sysprof_memory_stream_encoder_add_allocation (&enc, now + 100, 0x90000, 777, 77);
  BLOCK ();
  SEND (1000001, block, len);
  sysprof_memory_stream_encoder_clear (&enc);
  add_allocations (&enc, false, 5, 777, now + 200);
  BLOCK ();
  SEND (1000001, block, len);

  /* An id defined twice. */
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);
  add_allocations (&enc, true, 3, 778, now);
  add_allocations (&enc, true, 3, 778, now + 100);
  BLOCK ();
  SEND (1000002, block, len);

  /* Garbage. */
  srand (16);
  bytes[0] = SYSPROF_MEMORY_STREAM_BLOCK_RAW;
  for (size_t i = 1; i < sizeof bytes; i++)
    bytes[i] = (uint8_t) rand ();
  SEND (1000003, bytes, sizeof bytes);

  /* A record cut short: the fifth allocation loses its last byte (its
   * stack id). */
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);
  add_allocations (&enc, true, 5, 779, now);
  BLOCK ();
  SEND (1000004, block, len - 1);

  /* A 'Z' block of garbage: its raw length, then no zstd frame. */
  bytes[0] = SYSPROF_MEMORY_STREAM_BLOCK_ZSTD;
  bytes[1] = 100;
  SEND (1000005, bytes, 64);

  /* Time going back from one block to the next. */
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);
  add_allocations (&enc, true, 2, 780, now + 1000000);
  BLOCK ();
  SEND (1000006, block, len);
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);
  add_allocations (&enc, false, 2, 780, now);
  BLOCK ();
  SEND (1000006, block, len);

  /* A path that names no thread: refused by the drainer. */
  sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer);
  add_allocations (&enc, true, 2, 781, now);
  BLOCK ();
  bad |= write_chunk (ring, SYSPROF_MEMORY_STREAM_PATH_PREFIX "01", block, len);

#undef SEND
#undef BLOCK

  sysprof_mapped_ring_buffer_unref (ring);
  if (bad)
    {
      fprintf (stderr, "memory-hostile: the ring was full\n");
      return 1;
    }
  printf ("streams done\n");
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "abort") == 0)
    return mode_abort ();
  if (argc == 2 && strcmp (argv[1], "garbage") == 0)
    return mode_garbage ();
  if (argc == 2 && strcmp (argv[1], "truncated") == 0)
    return mode_truncated ();
  if (argc == 2 && strcmp (argv[1], "streams") == 0)
    return mode_streams ();
  fprintf (stderr, "usage: memory-hostile abort|garbage|truncated|streams\n");
  return 2;
}
