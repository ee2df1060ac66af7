// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: a ring buffer written by a hostile traced program, drained
 * into a capture (SysprofRingDrainer).  The input is the ring as the
 * producer leaves it: 4 bytes of head, 4 of tail, then the body (one page,
 * mapped twice as the drainer maps it).
 *
 * The consumer keeps its own head, so the head word is not written into the
 * ring: the consumer is brought there first, by frames it drains.  Its upper
 * bits, unused by a page-sized ring, choose limits: bit 30 a drainer limit
 * (set_max_bytes), bit 31 a writer cap (set_max_size), both
 * 8 × ((head >> 16) & 0x3FFF) bytes above the capture's size then.
 *
 * Whatever the ring holds, the capture stays within its limits and must read
 * back valid to its end. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sysprof-instruments.h>

#include "sysprof-ring-drainer-private.h"

#define HEAD_DRAINER_LIMIT (1u << 30)
#define HEAD_WRITER_CAP    (1u << 31)

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_capture (int fd)
{
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;

  reader = sysprof_capture_reader_new_from_fd (dup (fd));
  if (reader == NULL)
    abort ();
  while (sysprof_capture_reader_peek_type (reader, &type))
    if (!sysprof_capture_reader_skip (reader))
      abort ();
  /* Stopping anywhere but the end means a frame did not validate. */
  if (sysprof_capture_reader_get_error (reader)->code != 0)
    abort ();
  sysprof_capture_reader_unref (reader);
}

/* Publishes a TIMESTAMP frame of @len bytes and drains it. */
static void
drain_filler (SysprofRingDrainer *drainer, SysprofMappedRingBuffer *producer, size_t len)
{
  SysprofCaptureFrame *frame = sysprof_mapped_ring_buffer_allocate (producer, len);

  if (frame == NULL)
    abort ();
  memset (frame, 0, len);
  frame->len = (uint16_t) len;
  frame->type = SYSPROF_CAPTURE_FRAME_TIMESTAMP;
  if (!sysprof_mapped_ring_buffer_advance (producer, len) || _sysprof_ring_drainer_drain_pass (drainer))
    abort ();
}

/* Brings the consumer's head to @head (8-aligned, within the ring of
 * @ring_size bytes). */
static void
move_head (SysprofRingDrainer *drainer, int ring_fd, size_t ring_size, size_t head)
{
  SysprofMappedRingBuffer *producer;

  if (head == 0)
    return;
  if ((producer = sysprof_mapped_ring_buffer_new_writer (ring_fd)) == NULL)
    abort ();
  /* A frame has 24 bytes at least: 8 and 16 take half a ring round twice. */
  if (head < sizeof (SysprofCaptureFrame))
    {
      drain_filler (drainer, producer, ring_size / 2);
      drain_filler (drainer, producer, ring_size / 2 + head);
    }
  else
    drain_filler (drainer, producer, head);
  sysprof_mapped_ring_buffer_unref (producer);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (SysprofRingDrainer) drainer = NULL;
  SysprofCaptureWriter *writer;
  size_t                page = (size_t) sysconf (_SC_PAGESIZE);
  uint32_t             *header;
  uint8_t              *body;
  uint32_t              head;
  uint64_t              limit = 0;
  int                   capture_fd, ring_fd;

  if (size < 8)
    return 0;
  capture_fd = memfd_create ("fuzz-capture", MFD_CLOEXEC);
  if (capture_fd < 0 || !(writer = sysprof_capture_writer_new_from_fd (dup (capture_fd), 0)))
    abort ();
  drainer = sysprof_ring_drainer_new (0);
  sysprof_ring_drainer_set_writer (drainer, writer);
  if ((ring_fd = sysprof_ring_drainer_create_ring (drainer, 1, NULL)) < 0)
    abort ();

  memcpy (&head, data, 4);
  move_head (drainer, ring_fd, page, (head % page) & ~(size_t) 7);
  if (head & (HEAD_DRAINER_LIMIT | HEAD_WRITER_CAP))
    limit = sysprof_capture_writer_get_size (writer) + 8 * (uint64_t) ((head >> 16) & 0x3FFF);
  if (head & HEAD_DRAINER_LIMIT)
    sysprof_ring_drainer_set_max_bytes (drainer, limit);
  if ((head & HEAD_WRITER_CAP) && !sysprof_capture_writer_set_max_size (writer, limit))
    abort ();

  header = mmap (NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
  body = mmap (NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, (off_t) page);
  if (header == MAP_FAILED || body == MAP_FAILED)
    abort ();
  memcpy (&header[1], data + 4, 4);
  memcpy (body, data + 8, size - 8 < page ? size - 8 : page);

  /* Each pass takes at least a frame or ends the ring's content. */
  while (_sysprof_ring_drainer_drain_pass (drainer))
    ;
  if (limit != 0 && sysprof_capture_writer_get_size (writer) > limit)
    abort ();
  sysprof_ring_drainer_close (drainer);
  sysprof_capture_writer_flush (writer);
  check_capture (capture_fd);

  munmap (header, page);
  munmap (body, page);
  close (ring_fd);
  sysprof_capture_writer_unref (writer);
  close (capture_fd);
  return 0;
}
