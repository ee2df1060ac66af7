// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: everything that parses a capture file — header, every frame
 * type in both byte orders, embedded files, JIT maps, cursor and conditions
 * in both directions.  Inputs are served through a memfd because the reader
 * works on file descriptors. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sysprof-capture.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Keeps the payload reads from being optimized away. */
static volatile uint64_t sink;

static bool
count_frame (const SysprofCaptureFrame *frame, void *user_data)
{
  size_t *n = user_data;

  /* Touch the payload the way a consumer would. */
  if (frame->type == SYSPROF_CAPTURE_FRAME_SAMPLE)
    {
      const SysprofCaptureSample *s = (const SysprofCaptureSample *) frame;
      uint64_t                    sum = 0;

      for (unsigned int i = 0; i < s->n_addrs; i++)
        {
          uint64_t a;
          memcpy (&a, (const uint8_t *) s + sizeof *s + 8 * i, 8);
          sum += a;
        }
      sink = sum;
    }
  (*n)++;
  return *n < 100000;
}

static void
exercise_reader (SysprofCaptureReader *reader)
{
  SysprofCaptureFrameType  type;
  SysprofCaptureJitmapIter iter;
  SysprofCaptureAddress    addr;
  const char              *name;
  const char             **files;

  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureFrame *frame = sysprof_capture_reader_read_frame (reader);

      if (frame == NULL)
        {
          sysprof_capture_reader_skip (reader);
          continue;
        }
      if (frame->type == SYSPROF_CAPTURE_FRAME_MAP)
        (void) sysprof_capture_map_get_build_id ((const SysprofCaptureMap *) frame);
      else if (frame->type == SYSPROF_CAPTURE_FRAME_OVERLAY)
        {
          volatile size_t len = strlen (sysprof_capture_overlay_get_src ((const SysprofCaptureOverlay *) frame));
          len += strlen (sysprof_capture_overlay_get_dst ((const SysprofCaptureOverlay *) frame));
          (void) len;
        }
      else if (frame->type == SYSPROF_CAPTURE_FRAME_PROCESS)
        {
          volatile size_t len = strlen (((const SysprofCaptureProcess *) frame)->cmdline);
          (void) len;
        }
      else if (frame->type == SYSPROF_CAPTURE_FRAME_JITMAP)
        {
          /* Upstream's way: the entries of this one frame. */
          SysprofCaptureJitmapIter one;

          sysprof_capture_jitmap_iter_init (&one, (const SysprofCaptureJitmap *) frame);
          while (sysprof_capture_jitmap_iter_next (&one, &addr, &name))
            {
              volatile size_t len = strlen (name);
              (void) len;
            }
        }
    }

  (void) sysprof_capture_reader_get_end_time (reader);

  if ((files = sysprof_capture_reader_list_files (reader)))
    {
      int null_fd = memfd_create ("fuzz-file", MFD_CLOEXEC);

      for (size_t i = 0; files[i] && i < 4; i++)
        if (null_fd >= 0)
          sysprof_capture_reader_read_file_fd (reader, files[i], null_fd);
      if (null_fd >= 0)
        close (null_fd);
      free (files);
    }

  if (sysprof_capture_jitmap_iter_init_reader (&iter, reader))
    {
      while (sysprof_capture_jitmap_iter_next (&iter, &addr, &name))
        {
          volatile size_t len = strlen (name);
          (void) len;
        }
      sysprof_capture_jitmap_iter_clear (&iter);
    }
}

static void
exercise_cursor (SysprofCaptureReader *reader)
{
  static const SysprofCaptureFrameType types[] = {
    SYSPROF_CAPTURE_FRAME_SAMPLE,
    SYSPROF_CAPTURE_FRAME_CTRSET,
    SYSPROF_CAPTURE_FRAME_FILE_CHUNK,
  };
  static const int32_t      pids[] = { -1, 0, 1 };
  static const unsigned int counters[] = { 1, 2, 3 };
  SysprofCaptureCursor     *cursor = sysprof_capture_cursor_new (reader);
  size_t                    n = 0;

  if (cursor == NULL)
    return;

  sysprof_capture_cursor_add_condition (
      cursor,
      sysprof_capture_condition_new_and (sysprof_capture_condition_new_where_type_in (3, types),
                                         sysprof_capture_condition_new_where_time_between (INT64_MIN, INT64_MAX)));
  sysprof_capture_cursor_add_condition (
      cursor, sysprof_capture_condition_new_or (sysprof_capture_condition_new_where_pid_in (3, pids),
                                                sysprof_capture_condition_new_where_counter_in (3, counters)));
  sysprof_capture_cursor_add_condition (cursor, sysprof_capture_condition_new_where_file ("/proc/mounts"));

  sysprof_capture_cursor_foreach (cursor, count_frame, &n);
  sysprof_capture_cursor_reverse (cursor);
  sysprof_capture_cursor_foreach (cursor, count_frame, &n);
  sysprof_capture_cursor_unref (cursor);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  SysprofCaptureReader *reader;
  int                   fd = memfd_create ("fuzz-capture", MFD_CLOEXEC);
  size_t                off = 0;

  if (fd < 0)
    return 0;

  while (off < size)
    {
      ssize_t n = write (fd, data + off, size - off);
      if (n <= 0)
        {
          close (fd);
          return 0;
        }
      off += (size_t) n;
    }

  if ((reader = sysprof_capture_reader_new_from_fd (fd)))
    {
      exercise_reader (reader);
      sysprof_capture_reader_reset (reader);
      exercise_cursor (reader);
      sysprof_capture_reader_unref (reader);
    }

  return 0;
}
