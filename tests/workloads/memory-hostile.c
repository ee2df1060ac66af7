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
 *
 * Whatever it does, the recording must complete with a valid capture that
 * keeps what was recorded before the damage. */

#include <pthread.h>
#include <signal.h>
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

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "abort") == 0)
    return mode_abort ();
  if (argc == 2 && strcmp (argv[1], "garbage") == 0)
    return mode_garbage ();
  if (argc == 2 && strcmp (argv[1], "truncated") == 0)
    return mode_truncated ();
  fprintf (stderr, "usage: memory-hostile abort|garbage|truncated\n");
  return 2;
}
