// SPDX-License-Identifier: BSD-2-Clause-Patent
/* What the memory stream's encoder, decoder and SysprofAllocationCursor share
 * inside the library: varints, the stack store, the zstd inflater and the
 * decoder's constructor on shared parts. */
#pragma once

#ifndef SYSPROF_CAPTURE_COMPILATION
#error "This header is private to libsysprof-capture."
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysprof-memory-stream.h"
#include "sysprof-memory-stream-decoder.h"
#include "sysprof-stack-store-private.h"

static inline uint64_t
_sysprof_zigzag (uint64_t v)
{
  return (v << 1) ^ (uint64_t) ((int64_t) v >> 63);
}

static inline uint64_t
_sysprof_unzigzag (uint64_t v)
{
  return (v >> 1) ^ (0 - (v & 1));
}

static inline unsigned int
_sysprof_varint_len (uint64_t v)
{
  return 1 + (unsigned int) (63 - __builtin_clzll (v | 1)) / 7;
}

static inline uint8_t *
_sysprof_put_varint (uint8_t *p, uint64_t v)
{
  while (v >= 0x80)
    {
      *p++ = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  *p++ = (uint8_t) v;
  return p;
}

typedef enum
{
  SYSPROF_VARINT_OK = 0,
  SYSPROF_VARINT_TRUNCATED,
  SYSPROF_VARINT_OVERLONG,
} SysprofVarintStatus;

/* Unsigned LEB128 of at most 10 bytes and 64 bits; *pp moves past it only on
 * success. */
static inline SysprofVarintStatus
_sysprof_read_varint (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t       v = 0;

  if (__builtin_expect (p < end && *p < 0x80, 1))
    {
      *out = *p;
      *pp = p + 1;
      return SYSPROF_VARINT_OK;
    }

  for (unsigned int i = 0; i < SYSPROF_MEMORY_STREAM_MAX_VARINT; i++)
    {
      uint8_t b;

      if (p == end)
        return SYSPROF_VARINT_TRUNCATED;
      b = *p++;
      /* The tenth byte holds bit 63 only, and ends the varint. */
      if (i == SYSPROF_MEMORY_STREAM_MAX_VARINT - 1 && b > 1)
        return SYSPROF_VARINT_OVERLONG;
      v |= (uint64_t) (b & 0x7f) << (7 * i);
      if (b < 0x80)
        {
          *out = v;
          *pp = p;
          return SYSPROF_VARINT_OK;
        }
    }
  return SYSPROF_VARINT_OVERLONG;
}

/* What decoders of one cursor share: the stack store and a zstd context. */
typedef struct _SysprofMemoryStreamShared SysprofMemoryStreamShared;

SysprofMemoryStreamShared *_sysprof_memory_stream_shared_new (size_t max_refs, size_t max_frames);
void                       _sysprof_memory_stream_shared_free (SysprofMemoryStreamShared *self);

/* Decompresses the 'Z' block @block into *@raw (grown as needed, at most
 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH bytes) and sets *@raw_len.  false with
 * a description of the problem in @why when the block is unsound (false
 * with @why empty and errno ENOMEM when memory ran out). */
bool _sysprof_memory_stream_inflate (SysprofMemoryStreamShared *shared,
                                     const uint8_t             *block,
                                     size_t                     len,
                                     uint8_t                  **raw,
                                     size_t                    *raw_size,
                                     size_t                    *raw_len,
                                     char                      *why,
                                     size_t                     why_size);

/* A decoder whose stacks go to @shared's store (which must outlive it). */
SysprofMemoryStreamDecoder *
_sysprof_memory_stream_decoder_new_shared (int32_t pid, int32_t tid, SysprofMemoryStreamShared *shared);
/* Frees the block buffer between blocks (a cursor holds thousands). */
void _sysprof_memory_stream_decoder_trim (SysprofMemoryStreamDecoder *self);
