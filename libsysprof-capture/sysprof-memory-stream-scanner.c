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

/* Reads @n varints into @v (NULL: skips them); false when one is malformed. */
static inline bool
read_varints (const uint8_t **p, const uint8_t *end, uint64_t *v, unsigned int n)
{
  uint64_t ignored;

  for (unsigned int i = 0; i < n; i++)
    if (_sysprof_read_varint (p, end, v ? &v[i] : &ignored) != SYSPROF_VARINT_OK)
      return false;
  return true;
}

bool
sysprof_memory_stream_scanner_scan (
    SysprofMemoryStreamScanner *self, const void *block, size_t len, SysprofMemoryStreamStackFunc func, void *user_data)
{
  const uint8_t *p = block, *end;
  uint64_t       time, dt, n;
  size_t         raw_len;
  char           why[256];

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
  if (*p++ != SYSPROF_MEMORY_STREAM_BLOCK_RAW || !read_varints (&p, end, &time, 1))
    goto invalid;
  while (p < end)
    {
      switch (*p++)
        {
        case SYSPROF_MEMORY_STREAM_TAG_ALLOCATION:
          if (!read_varints (&p, end, &dt, 1) || !read_varints (&p, end, NULL, 3))
            goto invalid;
          time += dt;
          break;
        case SYSPROF_MEMORY_STREAM_TAG_RELEASE:
          if (!read_varints (&p, end, &dt, 1) || !read_varints (&p, end, NULL, 1))
            goto invalid;
          time += dt;
          break;
        case SYSPROF_MEMORY_STREAM_TAG_STACK:
          {
            SysprofCaptureAddress prev = 0;
            uint64_t              d;

            if (!read_varints (&p, end, NULL, 1) || !read_varints (&p, end, &n, 1) ||
                n > SYSPROF_MEMORY_STREAM_MAX_FRAMES)
              goto invalid;
            for (unsigned int i = 0; i < n; i++)
              {
                if (!read_varints (&p, end, &d, 1))
                  goto invalid;
                prev += _sysprof_unzigzag (d);
                self->frames[i] = prev;
              }
            if (n > 0)
              func (time > INT64_MAX ? INT64_MAX : (int64_t) time, self->frames, (unsigned int) n, user_data);
            break;
          }
        case SYSPROF_MEMORY_STREAM_TAG_RESET: break;
        case SYSPROF_MEMORY_STREAM_TAG_LOST:
          if (!read_varints (&p, end, NULL, 1))
            goto invalid;
          break;
        default: goto invalid;
        }
    }
  return true;

invalid:
  errno = EINVAL;
  return false;
}
