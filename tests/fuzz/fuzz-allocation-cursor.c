// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: SysprofAllocationCursor.  An input that starts with the
 * capture magic is read as a capture file (corrupt frames, truncation, both
 * byte orders).  Any other input describes a capture, written with the real
 * writer, so that the fuzzer spends its time on streams and their merge
 * rather than on frame headers: a list of operations, each a byte
 * (operation % 4) followed by its arguments:
 *   0  ALLOCATION frame: dt, pid, tid, address, size, frame count (0-3),
 *      frames (one byte each; times only grow)
 *   1  stream block: pid, tid, is_last, a 16-bit length, the block's bytes
 *   2  the same with a path that names no thread
 *   3  a SAMPLE frame between the others
 * Checked: events come in time order (the ALLOCATION frames are), frames are
 * there exactly when counted, an error is described when one is counted. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sysprof-capture.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static volatile uint64_t sink;

typedef struct
{
  const uint8_t *data;
  size_t         size;
  size_t         pos;
} Input;

static uint8_t
take (Input *in)
{
  return in->pos < in->size ? in->data[in->pos++] : 0;
}

static void
write_described (SysprofCaptureWriter *w, Input *in)
{
  int64_t time = 1;

  while (in->pos < in->size)
    {
      uint8_t op = take (in) % 4;

      switch (op)
        {
        case 0:
          {
            SysprofCaptureAddress frames[3];
            int32_t               pid;
            int32_t               tid;
            uint64_t              address;
            int64_t               size;
            unsigned              n;

            time += take (in);
            pid = take (in) % 4;
            tid = take (in) % 4;
            address = take (in) * UINT64_C (0x1000);
            size = take (in);
            n = take (in) % 4;
            for (unsigned i = 0; i < n; i++)
              frames[i] = take (in);
            sysprof_capture_writer_add_allocation_copy (w, time, 0, pid, tid, address, size, frames, n);
          }
          break;

        case 1:
        case 2:
          {
            char     path[256];
            int32_t  pid = take (in) % 4;
            int32_t  tid = take (in) % 4;
            bool     is_last = take (in) & 1;
            size_t   len = take (in);
            uint64_t at;

            len |= (size_t) take (in) << 8;
            if (len > in->size - in->pos)
              len = in->size - in->pos;
            if (len > SYSPROF_MEMORY_STREAM_MAX_BLOCK)
              len = SYSPROF_MEMORY_STREAM_MAX_BLOCK;
            at = in->pos;
            in->pos += len;
            if (op == 1)
              sysprof_memory_stream_format_path (path, sizeof path, tid);
            else
              snprintf (path, sizeof path, "%s%s", SYSPROF_MEMORY_STREAM_PATH_PREFIX, tid & 1 ? "01" : "x");
            sysprof_capture_writer_add_file (w, time, -1, pid, path, is_last, in->data + at, len);
          }
          break;

        default:
          {
            SysprofCaptureAddress a = take (in);

            sysprof_capture_writer_add_sample (w, time, 0, 1, 1, &a, 1);
          }
          break;
        }
    }
}

/* The first pass's callback: reads what it is given (a chunk left unread
 * is as good), counts the ALLOCATION frames it could read. */
static bool
take_frame (SysprofCaptureReader *reader, SysprofCaptureFrameType type, void *user_data)
{
  uint64_t *n_frames = user_data;

  if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
    *n_frames += sysprof_capture_reader_read_allocation (reader) != NULL;
  else if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK && (*n_frames & 1) == 0)
    sink = sysprof_capture_reader_read_file (reader) != NULL;
  else if (type == SYSPROF_CAPTURE_FRAME_METADATA)
    sink = sysprof_capture_reader_read_metadata (reader) != NULL;
  return true;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const uint8_t         magic_le[4] = { 0x5E, 0x97, 0xCA, 0xFD };
  static const uint8_t         magic_be[4] = { 0xFD, 0xCA, 0x97, 0x5E };
  SysprofCaptureReader        *reader;
  SysprofAllocationCursor     *cursor;
  SysprofAllocationCursorStats stats;
  SysprofAllocationEvent       ev;
  int64_t                      last = INT64_MIN;
  bool                         raw = size >= 4 && (!memcmp (data, magic_le, 4) || !memcmp (data, magic_be, 4));
  int                          fd = memfd_create ("fuzz-capture", MFD_CLOEXEC);

  if (fd < 0)
    return 0;

  if (raw)
    {
      /* A memfd takes the whole input in one write. */
      if (write (fd, data, size) != (ssize_t) size)
        {
          close (fd);
          return 0;
        }
    }
  else
    {
      SysprofCaptureWriter *w = sysprof_capture_writer_new_from_fd (dup (fd), 0);
      Input                 in = { data, size, 0 };

      if (w == NULL)
        {
          close (fd);
          return 0;
        }
      write_described (w, &in);
      sysprof_capture_writer_unref (w);
    }

  if (!(reader = sysprof_capture_reader_new_from_fd (fd)))
    return 0;
  if ((cursor = sysprof_allocation_cursor_new (reader)))
    {
      while (sysprof_allocation_cursor_next (cursor, &ev))
        {
          uint64_t sum = ev.address;

          /* Captures from the fuzzer may hold ALLOCATION frames in any order. */
          if ((!raw && ev.time < last) || (ev.n_frames == 0) != (ev.frames == NULL))
            abort ();
          last = ev.time;
          for (uint32_t i = 0; i < ev.n_frames; i++)
            sum += ev.frames[i];
          sink = sum;
        }
      sysprof_allocation_cursor_get_stats (cursor, &stats);
      if ((stats.errors == 0) != (sysprof_allocation_cursor_get_error (cursor) == NULL))
        abort ();
      sink = sysprof_allocation_cursor_get_capture_error (cursor)->code;
      for (uint64_t i = 0; i <= stats.streams; i++)
        {
          SysprofAllocationStreamInfo info;

          if (sysprof_allocation_cursor_get_stream (cursor, i, &info) != (i < stats.streams))
            abort ();
        }
      sysprof_allocation_cursor_unref (cursor);

      /* The ALLOCATION frames taken in the first pass, the streams merged:
       * together, the same events. */
      {
        uint64_t                       taken = 0, merged = 0;
        SysprofAllocationCursorOptions options = {
          .size = sizeof options,
          .frame_types = 1u << SYSPROF_CAPTURE_FRAME_ALLOCATION | 1u << SYSPROF_CAPTURE_FRAME_FILE_CHUNK |
                         1u << SYSPROF_CAPTURE_FRAME_METADATA,
          .frame_func = take_frame,
          .user_data = &taken,
        };

        if ((cursor = sysprof_allocation_cursor_new_full (reader, &options)))
          {
            while (sysprof_allocation_cursor_next (cursor, &ev))
              merged++;
            if (taken + merged != stats.events)
              abort ();
            sysprof_allocation_cursor_unref (cursor);
          }
      }
    }
  sysprof_capture_reader_unref (reader);
  return 0;
}
