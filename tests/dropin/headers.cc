// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The installed headers from C++ (gjs, WebKit and Sysprof's own tools
 * include them so): the umbrella header, each header on its own, and calls
 * through upstream's prototypes (assigned to pointers of upstream's exact
 * types, which C++ converts no further). */
#include HEADER

#include <sysprof-capture.h>

int
main ()
{
  void (*iter_init) (SysprofCaptureJitmapIter *, const SysprofCaptureJitmap *) = sysprof_capture_jitmap_iter_init;
  const SysprofCaptureFileChunk *(*find_file) (SysprofCaptureReader *, const char *) = sysprof_capture_reader_find_file;
  void (*foreach) (SysprofCaptureCursor *, SysprofCaptureCursorCallback, void *) = sysprof_capture_cursor_foreach;
  int (*byte_order) (SysprofCaptureReader *) = sysprof_capture_reader_get_byte_order;
  bool (*dbus) (SysprofCaptureWriter *, int64_t, int, int32_t, uint16_t, uint16_t, const uint8_t *, size_t) =
      sysprof_capture_writer_add_dbus_message;
  int (*memfd) (const char *) = sysprof_memfd_create;
  SysprofTimeStamp now = SYSPROF_CAPTURE_CURRENT_TIME;

  return (iter_init && find_file && foreach && byte_order && dbus && memfd && now > 0) ? 0 : 1;
}
