// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the app's scan of a capture (clients/app/
 * sysprof-document-scan.c), which turns every frame kind into the tables the
 * views draw from (strings bounded by their frames, counters, process
 * lifetimes, embedded files, per-millisecond allocation counts).  Inputs are
 * served through a memfd because the reader works on file descriptors. */

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-document-scan.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  SysprofCaptureReader *reader;
  SysprofDocumentScan  *scan;
  int                   fd = memfd_create ("fuzz-document-scan", MFD_CLOEXEC);

  if (fd < 0)
    return 0;
  if (write (fd, data, size) != (ssize_t) size || lseek (fd, 0, SEEK_SET) != 0)
    {
      close (fd);
      return 0;
    }
  /* The reader owns @fd from here, also when it refuses the header. */
  reader = sysprof_capture_reader_new_from_fd (fd);
  if (reader == NULL)
    return 0;
  scan = sysprof_document_scan_new (sysprof_capture_reader_get_start_time (reader),
                                    sysprof_capture_reader_get_end_time (reader));
  sysprof_document_scan_read (scan, reader, size, NULL, NULL, NULL, NULL);
  sysprof_document_scan_free (scan);
  sysprof_capture_reader_unref (reader);
  return 0;
}
