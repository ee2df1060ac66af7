// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: a ring buffer written by a hostile traced program, drained
 * into a capture (SysprofRingDrainer, sysprof_capture_writer_add_untrusted).
 * The input is the ring as the producer leaves it: 4 bytes of head, 4 of
 * tail, then the body (one page, mapped twice as the drainer maps it).
 * Whatever the ring holds, the capture must read back valid to its end. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sysprof.h>

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

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (SysprofRingDrainer) drainer = NULL;
  SysprofCaptureWriter *writer;
  long                  page = sysconf (_SC_PAGESIZE);
  uint32_t             *header;
  uint8_t              *body;
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

  header = mmap (NULL, (size_t) page, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
  body = mmap (NULL, (size_t) page, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, page);
  if (header == MAP_FAILED || body == MAP_FAILED)
    abort ();
  memcpy (&header[0], data, 4);
  memcpy (&header[1], data + 4, 4);
  memcpy (body, data + 8, size - 8 < (size_t) page ? size - 8 : (size_t) page);

  sysprof_ring_drainer_close (drainer);
  sysprof_capture_writer_flush (writer);
  check_capture (capture_fd);

  munmap (header, (size_t) page);
  munmap (body, (size_t) page);
  close (ring_fd);
  sysprof_capture_writer_unref (writer);
  close (capture_fd);
  return 0;
}
