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

/* One record of a raw block, stepped over by its shape (no stack ids, no
 * time order checked): what the drainer's count and the symbol map's
 * scanner need.  tag; dt for events; n (frames, into @frames when given,
 * at least SYSPROF_MEMORY_STREAM_MAX_FRAMES of them) for stacks; the count
 * of a lost record in n. */
typedef struct
{
  uint8_t  tag;
  uint64_t dt;
  uint64_t n;
} SysprofStreamRecord;

/* Reads @n varints into @v (NULL: skips them); false when one is malformed. */
static inline bool
_sysprof_read_varints (const uint8_t **p, const uint8_t *end, uint64_t *v, unsigned int n)
{
  uint64_t ignored;

  for (unsigned int i = 0; i < n; i++)
    if (_sysprof_read_varint (p, end, v ? &v[i] : &ignored) != SYSPROF_VARINT_OK)
      return false;
  return true;
}

/* The record at *@pp (moved past it); false when it is malformed or its
 * tag unknown. */
static inline bool
_sysprof_memory_stream_step (const uint8_t **pp, const uint8_t *end, SysprofStreamRecord *rec, uint64_t *frames)
{
  uint64_t prev = 0, d;

  rec->tag = *(*pp)++;
  switch (rec->tag)
    {
    case SYSPROF_MEMORY_STREAM_TAG_ALLOCATION:
      return _sysprof_read_varints (pp, end, &rec->dt, 1) && _sysprof_read_varints (pp, end, NULL, 3);
    case SYSPROF_MEMORY_STREAM_TAG_RELEASE:
      return _sysprof_read_varints (pp, end, &rec->dt, 1) && _sysprof_read_varints (pp, end, NULL, 1);
    case SYSPROF_MEMORY_STREAM_TAG_STACK:
      if (!_sysprof_read_varints (pp, end, NULL, 1) || !_sysprof_read_varints (pp, end, &rec->n, 1) ||
          rec->n > SYSPROF_MEMORY_STREAM_MAX_FRAMES)
        return false;
      for (unsigned int i = 0; i < rec->n; i++)
        {
          if (!_sysprof_read_varints (pp, end, &d, 1))
            return false;
          prev += _sysprof_unzigzag (d);
          if (frames != NULL)
            frames[i] = prev;
        }
      return true;
    case SYSPROF_MEMORY_STREAM_TAG_RESET: return true;
    case SYSPROF_MEMORY_STREAM_TAG_LOST: return _sysprof_read_varints (pp, end, &rec->n, 1);
    default: return false;
    }
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
