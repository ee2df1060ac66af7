// SPDX-License-Identifier: BSD-2-Clause-Patent
/* 'Z' blocks, for the drainer that writes streams to a capture.  A file of its
 * own so that the tracker, which links the encoder, never links zstd. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "sysprof-memory-stream-private.h"
#include "sysprof-capture-util-private.h"

struct _SysprofMemoryStreamCompressor
{
  ZSTD_CCtx *cctx;
  int        level;
};

/* One block with @cctx (NULL: a context for this call only). */
static size_t
compress_with (ZSTD_CCtx *cctx, const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_size, int level)
{
  uint8_t *p = out;
  size_t   header;
  size_t   n;

  sysprof_return_val_if_fail (raw != NULL && out != NULL, 0);
  sysprof_return_val_if_fail (raw_len >= 1 && raw[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW, 0);
  sysprof_return_val_if_fail (raw_len <= SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH, 0);

  header = 1 + _sysprof_varint_len (raw_len);
  if (out_size <= header)
    {
      errno = ENOSPC;
      return 0;
    }
  *p++ = SYSPROF_MEMORY_STREAM_BLOCK_ZSTD;
  p = _sysprof_put_varint (p, raw_len);

  if (cctx != NULL)
    n = ZSTD_compressCCtx (cctx, p, out_size - header, raw, raw_len, level);
  else
    n = ZSTD_compress (p, out_size - header, raw, raw_len, level);
  if (ZSTD_isError (n))
    {
      errno = ZSTD_getErrorCode (n) == ZSTD_error_dstSize_tooSmall ? ENOSPC : ENOMEM;
      return 0;
    }
  return header + n;
}

size_t
sysprof_memory_stream_compress (const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_size, int level)
{
  return compress_with (NULL, raw, raw_len, out, out_size, level);
}

SysprofMemoryStreamCompressor *
sysprof_memory_stream_compressor_new (int level)
{
  SysprofMemoryStreamCompressor *self = calloc (1, sizeof *self);

  if (self == NULL)
    return NULL;
  if ((self->cctx = ZSTD_createCCtx ()) == NULL)
    {
      free (self);
      errno = ENOMEM;
      return NULL;
    }
  self->level = level;
  return self;
}

void
sysprof_memory_stream_compressor_free (SysprofMemoryStreamCompressor *self)
{
  if (self == NULL)
    return;
  ZSTD_freeCCtx (self->cctx);
  free (self);
}

size_t
sysprof_memory_stream_compressor_pack (
    SysprofMemoryStreamCompressor *self, const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_size)
{
  sysprof_return_val_if_fail (self != NULL, 0);

  return compress_with (self->cctx, raw, raw_len, out, out_size, self->level);
}
