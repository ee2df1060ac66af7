// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the memory stream decoder (libsysprof-capture/memory-stream.md)
 * on arbitrary blocks of one stream.  Input: a flags byte, then blocks, each
 * a 16-bit little-endian length and that many bytes.  Flags: bit 0 feeds each
 * raw block compressed (a 'Z' block, so that the fuzzer reaches the decoder
 * behind zstd), bit 1 reads only the first event of each block (the rest is
 * skipped by the next feed).  The decoder's promises are checked: times never
 * go backwards in a stream, frames are there exactly when counted. */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sysprof-capture.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void
count_stack (int64_t time, const SysprofCaptureAddress *frames, unsigned int n_frames, void *user_data)
{
  if (n_frames == 0 || n_frames > SYSPROF_MEMORY_STREAM_MAX_FRAMES || time < 0)
    abort ();
  sink = frames[n_frames - 1];
  ++*(uint64_t *) user_data;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static uint8_t              packed[2 * UINT16_MAX];
  SysprofMemoryStreamDecoder *dec;
  SysprofMemoryStreamStats    stats;
  SysprofAllocationEvent      ev;
  const char                 *error;
  int64_t                     last = INT64_MIN;
  uint8_t                     flags;
  size_t                      pos = 1;

  static SysprofMemoryStreamScanner *scanner;

  if (scanner == NULL && !(scanner = sysprof_memory_stream_scanner_new ()))
    return 0;
  if (size < 1 || !(dec = sysprof_memory_stream_decoder_new (1, 2)))
    return 0;
  flags = data[0];

  while (pos + 2 <= size)
    {
      size_t                    len = data[pos] | (size_t) data[pos + 1] << 8;
      const uint8_t            *block = data + pos + 2;
      unsigned                  n = 0;
      uint64_t                  errors_before, stacks_before, n_stacks;
      bool                      scanned;
      SysprofMemoryStreamCounts counts = { 0 };
      bool                      counted;

      pos += 2;
      if (len > size - pos)
        len = size - pos;
      pos += len;

      /* What the drainer (in sysprofd) counts in a raw block. */
      counted = sysprof_memory_stream_count (block, len, &counts);
      if ((flags & 1) && len > 0 && block[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW)
        {
          size_t z = sysprof_memory_stream_compress (block, len, packed, sizeof packed, 1);

          if (z > 0)
            {
              block = packed;
              len = z;
            }
        }
      /* What the symbol map reads (sysprof-cli, the app). */
      n_stacks = 0;
      scanned = sysprof_memory_stream_scanner_scan (scanner, block, len, count_stack, &n_stacks);
      sysprof_memory_stream_decoder_get_stats (dec, &stats);
      errors_before = stats.errors;
      stacks_before = stats.stacks;
      if (!sysprof_memory_stream_decoder_feed (dec, block, len, pos))
        break;

      while (sysprof_memory_stream_decoder_next (dec, &ev))
        {
          uint64_t sum = ev.address;

          if (ev.time < last || ev.size < 0 || ev.n_frames > SYSPROF_MEMORY_STREAM_MAX_FRAMES ||
              (ev.n_frames == 0) != (ev.frames == NULL) || (ev.size == 0 && ev.n_frames != 0) || ev.pid != 1 ||
              ev.tid != 2)
            abort ();
          last = ev.time;
          for (uint32_t i = 0; i < ev.n_frames; i++)
            sum += ev.frames[i];
          sink = sum;
          n++;
          if ((flags & 2) && n == 1)
            break;
        }
      /* A raw block the decoder took whole, read whole: the count agrees
       * (the counter reads the records' shape, the decoder their sense). */
      sysprof_memory_stream_decoder_get_stats (dec, &stats);
      if (!(flags & 3) && counted && stats.errors == errors_before && counts.allocations + counts.releases != n)
        abort ();
      if (!(flags & 3) && !counted && len > 0 && block[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW &&
          stats.errors == errors_before)
        abort ();
      /* A block decoded whole without error: the scanner read it all and
       * gave each stack record with frames (the decoder counts those with
       * none too). */
      if (!(flags & 2) && stats.errors == errors_before && (!scanned || n_stacks > stats.stacks - stacks_before))
        abort ();
    }

  sysprof_memory_stream_decoder_get_stats (dec, &stats);
  if ((error = sysprof_memory_stream_decoder_get_error (dec)) != NULL)
    sink = strlen (error);
  if ((error == NULL) != (stats.errors == 0))
    abort ();
  sysprof_memory_stream_decoder_free (dec);
  return 0;
}
