// SPDX-License-Identifier: BSD-2-Clause-Patent
/* SysprofMemoryStreamScanner: only the stack records of memory-stream blocks,
 * for a symbolizer, which needs the addresses of every stack but none of the
 * events.  Events are stepped over by their varints' shape (their values
 * only for the time), which costs a few nanoseconds each against tens for a
 * decoder that hands them out in time order. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdlib.h>

#include "sysprof-memory-stream-private.h"
#include "sysprof-capture-util-private.h"

struct _SysprofMemoryStreamScanner
{
  SysprofMemoryStreamShared *shared; /* the zstd context */
  uint8_t                   *buf;    /* a 'Z' block's raw block */
  size_t                     buf_size;
  SysprofCaptureAddress      frames[SYSPROF_MEMORY_STREAM_MAX_FRAMES];
};

SysprofMemoryStreamScanner *
sysprof_memory_stream_scanner_new (void)
{
  SysprofMemoryStreamScanner *self = calloc (1, sizeof *self);

  if (self == NULL)
    return NULL;
  if (!(self->shared = _sysprof_memory_stream_shared_new (1, 1)))
    {
      free (self);
      errno = ENOMEM;
      return NULL;
    }
  return self;
}

void
sysprof_memory_stream_scanner_free (SysprofMemoryStreamScanner *self)
{
  if (self == NULL)
    return;
  _sysprof_memory_stream_shared_free (self->shared);
  free (self->buf);
  free (self);
}

bool
sysprof_memory_stream_scanner_scan (
    SysprofMemoryStreamScanner *self, const void *block, size_t len, SysprofMemoryStreamStackFunc func, void *user_data)
{
  const uint8_t      *p = block, *end;
  SysprofStreamRecord rec;
  uint64_t            time;
  size_t              raw_len;
  char                why[256];

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (block != NULL || len == 0, false);
  sysprof_return_val_if_fail (func != NULL, false);

  if (len == 0)
    return true;
  if (p[0] == SYSPROF_MEMORY_STREAM_BLOCK_ZSTD)
    {
      if (!_sysprof_memory_stream_inflate (self->shared, p, len, &self->buf, &self->buf_size, &raw_len, why,
                                           sizeof why))
        {
          if (why[0] != 0)
            errno = EINVAL;
          return false;
        }
      p = self->buf;
      len = raw_len;
    }
  end = p + len;
  if (*p++ != SYSPROF_MEMORY_STREAM_BLOCK_RAW || !_sysprof_read_varints (&p, end, &time, 1))
    goto invalid;
  while (p < end)
    {
      if (!_sysprof_memory_stream_step (&p, end, &rec, self->frames))
        goto invalid;
      if (rec.tag == SYSPROF_MEMORY_STREAM_TAG_ALLOCATION || rec.tag == SYSPROF_MEMORY_STREAM_TAG_RELEASE)
        time += rec.dt;
      else if (rec.tag == SYSPROF_MEMORY_STREAM_TAG_STACK && rec.n > 0)
        func (time > INT64_MAX ? INT64_MAX : (int64_t) time, self->frames, (unsigned int) rec.n, user_data);
    }
  return true;

invalid:
  errno = EINVAL;
  return false;
}
