// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The memory stream encoder: runs for every malloc and free of a traced
 * program, inside its hooks, so it only writes bytes into the caller's
 * buffer.  Format: memory-stream.md. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdio.h>

#include "sysprof-memory-stream.h"
#include "sysprof-memory-stream-private.h"
#include "sysprof-capture-util-private.h"

/* The block's header ('R' and base_time) is only known at the first event,
 * after a stack record may already have been written: its room is kept at
 * the start and get_block writes it right before the records. */
#define HEADER_ROOM (1 + SYSPROF_MEMORY_STREAM_MAX_VARINT)

/* The largest records: with this much room left, no length is computed. */
#define MAX_ALLOCATION_RECORD (1 + 4 * SYSPROF_MEMORY_STREAM_MAX_VARINT)
#define MAX_RELEASE_RECORD    (1 + 2 * SYSPROF_MEMORY_STREAM_MAX_VARINT)
#define MAX_STACK_RECORD      (1 + SYSPROF_MEMORY_STREAM_MAX_VARINT + 2 + SYSPROF_MEMORY_STREAM_MAX_FRAMES * 10)

SYSPROF_STATIC_ASSERT (SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY >= HEADER_ROOM + MAX_STACK_RECORD,
                       "a cleared encoder must fit the largest record");
SYSPROF_STATIC_ASSERT (SYSPROF_MEMORY_STREAM_MAX_EVENT_BYTES == 1 + MAX_STACK_RECORD + MAX_ALLOCATION_RECORD,
                       "the public bound of one event is its records' bounds");
SYSPROF_STATIC_ASSERT (SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY >=
                           HEADER_ROOM + SYSPROF_MEMORY_STREAM_MAX_EVENT_BYTES,
                       "a cleared encoder must fit the largest event");

bool
sysprof_memory_stream_encoder_init (SysprofMemoryStreamEncoder *self, void *buffer, size_t capacity)
{
  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (buffer != NULL, false);
  sysprof_return_val_if_fail (capacity >= SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY, false);

  memset (self, 0, sizeof *self);
  self->p_buffer = buffer;
  self->p_capacity = capacity > SYSPROF_MEMORY_STREAM_MAX_BLOCK ? SYSPROF_MEMORY_STREAM_MAX_BLOCK : (uint32_t) capacity;
  self->p_len = HEADER_ROOM;
  return true;
}

/* The time an event is recorded with: never before the stream's last. */
static inline uint64_t
event_time (const SysprofMemoryStreamEncoder *self, int64_t time)
{
  uint64_t t = time > 0 ? (uint64_t) time : 0;

  return t < self->p_last_time ? self->p_last_time : t;
}

/* Whether an event record at @t and @address fits, @worst bytes at most and
 * @extra bytes after its dt and address: only near the block's end are the
 * lengths computed. */
static inline bool
event_fits (
    const SysprofMemoryStreamEncoder *self, uint64_t t, SysprofCaptureAddress address, size_t worst, size_t extra)
{
  uint64_t dt;

  if (SYSPROF_LIKELY (self->p_capacity - self->p_len >= worst))
    return true;
  dt = self->p_n_events ? t - self->p_last_time : 0;
  return self->p_capacity - self->p_len >=
         1 + _sysprof_varint_len (dt) + _sysprof_varint_len (_sysprof_zigzag (address - self->p_last_address)) + extra;
}

/* Writes @tag, dt and daddr of an event at @t and @address (which fits);
 * the first event of the block sets its base_time. */
static inline uint8_t *
put_event (SysprofMemoryStreamEncoder *self, uint8_t tag, uint64_t t, SysprofCaptureAddress address)
{
  uint8_t *p = self->p_buffer + self->p_len;
  uint64_t dt = t - self->p_last_time;

  if (self->p_n_events++ == 0)
    {
      self->p_base_time = t;
      dt = 0;
    }
  self->p_last_time = t;
  *p++ = tag;
  p = _sysprof_put_varint (p, dt);
  p = _sysprof_put_varint (p, _sysprof_zigzag (address - self->p_last_address));
  self->p_last_address = address;
  return p;
}

bool
sysprof_memory_stream_encoder_add_allocation (
    SysprofMemoryStreamEncoder *self, int64_t time, SysprofCaptureAddress address, uint64_t size, uint64_t stack_id)
{
  uint64_t t;
  uint8_t *p;

  if (SYSPROF_UNLIKELY (self == NULL))
    return false;

  t = event_time (self, time);
  if (SYSPROF_UNLIKELY (size - 1 > INT64_MAX - 1))
    size = size == 0 ? 1 : INT64_MAX;
  if (!event_fits (self, t, address, MAX_ALLOCATION_RECORD,
                   _sysprof_varint_len (size) + _sysprof_varint_len (stack_id)))
    return false;

  p = put_event (self, SYSPROF_MEMORY_STREAM_TAG_ALLOCATION, t, address);
  p = _sysprof_put_varint (p, size);
  p = _sysprof_put_varint (p, stack_id);
  self->p_len = (uint32_t) (p - self->p_buffer);
  return true;
}

bool
sysprof_memory_stream_encoder_add_release (SysprofMemoryStreamEncoder *self,
                                           int64_t                     time,
                                           SysprofCaptureAddress       address)
{
  uint64_t t;
  uint8_t *p;

  if (SYSPROF_UNLIKELY (self == NULL))
    return false;

  t = event_time (self, time);
  if (!event_fits (self, t, address, MAX_RELEASE_RECORD, 0))
    return false;

  p = put_event (self, SYSPROF_MEMORY_STREAM_TAG_RELEASE, t, address);
  self->p_len = (uint32_t) (p - self->p_buffer);
  return true;
}

bool
sysprof_memory_stream_encoder_add_stack (SysprofMemoryStreamEncoder  *self,
                                         uint64_t                     id,
                                         const SysprofCaptureAddress *frames,
                                         unsigned int                 n_frames)
{
  SysprofCaptureAddress prev = 0;
  uint8_t              *p;

  if (SYSPROF_UNLIKELY (self == NULL))
    return false;
  if (SYSPROF_UNLIKELY (id == 0))
    return true;
  if (frames == NULL)
    n_frames = 0;
  if (n_frames > SYSPROF_MEMORY_STREAM_MAX_FRAMES)
    n_frames = SYSPROF_MEMORY_STREAM_MAX_FRAMES;

  if (SYSPROF_UNLIKELY (self->p_capacity - self->p_len < MAX_STACK_RECORD))
    {
      size_t need = 1 + _sysprof_varint_len (id) + _sysprof_varint_len (n_frames);

      for (unsigned int i = 0; i < n_frames; i++)
        {
          need += _sysprof_varint_len (_sysprof_zigzag (frames[i] - prev));
          prev = frames[i];
        }
      if (self->p_capacity - self->p_len < need)
        return false;
      prev = 0;
    }

  p = self->p_buffer + self->p_len;
  *p++ = SYSPROF_MEMORY_STREAM_TAG_STACK;
  p = _sysprof_put_varint (p, id);
  p = _sysprof_put_varint (p, n_frames);
  for (unsigned int i = 0; i < n_frames; i++)
    {
      p = _sysprof_put_varint (p, _sysprof_zigzag (frames[i] - prev));
      prev = frames[i];
    }
  self->p_len = (uint32_t) (p - self->p_buffer);
  return true;
}

bool
sysprof_memory_stream_encoder_add_reset (SysprofMemoryStreamEncoder *self)
{
  if (SYSPROF_UNLIKELY (self == NULL) || self->p_len >= self->p_capacity)
    return false;
  self->p_buffer[self->p_len++] = SYSPROF_MEMORY_STREAM_TAG_RESET;
  return true;
}

bool
sysprof_memory_stream_encoder_add_lost (SysprofMemoryStreamEncoder *self, uint64_t n)
{
  uint8_t *p;

  if (SYSPROF_UNLIKELY (self == NULL))
    return false;
  if (n == 0)
    return true;
  if (self->p_capacity - self->p_len < 1 + _sysprof_varint_len (n))
    return false;

  p = self->p_buffer + self->p_len;
  *p++ = SYSPROF_MEMORY_STREAM_TAG_LOST;
  p = _sysprof_put_varint (p, n);
  self->p_len = (uint32_t) (p - self->p_buffer);
  return true;
}

size_t
sysprof_memory_stream_encoder_get_room (const SysprofMemoryStreamEncoder *self)
{
  return self == NULL ? 0 : self->p_capacity - self->p_len;
}

bool
sysprof_memory_stream_encoder_is_empty (const SysprofMemoryStreamEncoder *self)
{
  return self == NULL || self->p_len == HEADER_ROOM;
}

const uint8_t *
sysprof_memory_stream_encoder_get_block (SysprofMemoryStreamEncoder *self, size_t *len)
{
  uint64_t base;
  size_t   start;

  sysprof_return_val_if_fail (self != NULL && self->p_buffer != NULL, NULL);
  sysprof_return_val_if_fail (len != NULL, NULL);

  /* A block without events still needs a base_time: the stream's last time
   * keeps it from going backwards. */
  base = self->p_n_events ? self->p_base_time : self->p_last_time;
  start = HEADER_ROOM - 1 - _sysprof_varint_len (base);
  self->p_buffer[start] = SYSPROF_MEMORY_STREAM_BLOCK_RAW;
  _sysprof_put_varint (self->p_buffer + start + 1, base);
  *len = self->p_len - start;
  return self->p_buffer + start;
}

void
sysprof_memory_stream_encoder_clear (SysprofMemoryStreamEncoder *self)
{
  if (self == NULL)
    return;
  self->p_len = HEADER_ROOM;
  self->p_n_events = 0;
  self->p_last_address = 0;
}

bool
sysprof_memory_stream_format_path (char *path, size_t path_size, int32_t tid)
{
  int n;

  sysprof_return_val_if_fail (path != NULL, false);
  sysprof_return_val_if_fail (tid >= 0, false);

  n = snprintf (path, path_size, SYSPROF_MEMORY_STREAM_PATH_PREFIX "%" PRId32, tid);
  if (n < 0 || (size_t) n >= path_size)
    {
      errno = EINVAL;
      return false;
    }
  return true;
}

bool
sysprof_memory_stream_parse_path (const char *path, int32_t *tid)
{
  const size_t prefix_len = sizeof SYSPROF_MEMORY_STREAM_PATH_PREFIX - 1;
  const char  *digits;
  uint64_t     value = 0;
  size_t       n;

  sysprof_return_val_if_fail (path != NULL, false);
  sysprof_return_val_if_fail (tid != NULL, false);

  if (strncmp (path, SYSPROF_MEMORY_STREAM_PATH_PREFIX, prefix_len) != 0)
    goto invalid;
  digits = path + prefix_len;
  n = strspn (digits, "0123456789");
  if (n == 0 || n > 10 || digits[n] != 0 || (digits[0] == '0' && n > 1))
    goto invalid;
  for (size_t i = 0; i < n; i++)
    value = value * 10 + (uint64_t) (digits[i] - '0');
  if (value > INT32_MAX)
    goto invalid;
  *tid = (int32_t) value;
  return true;

invalid:
  errno = EINVAL;
  return false;
}

bool
sysprof_memory_stream_count (const uint8_t *block, size_t len, SysprofMemoryStreamCounts *counts)
{
  const uint8_t      *p = block, *end = block + len;
  SysprofStreamRecord rec;

  sysprof_return_val_if_fail (block != NULL && counts != NULL, false);

  if (len == 0 || *p++ != SYSPROF_MEMORY_STREAM_BLOCK_RAW || !_sysprof_read_varints (&p, end, NULL, 1))
    goto invalid;
  while (p < end)
    {
      if (!_sysprof_memory_stream_step (&p, end, &rec, NULL))
        goto invalid;
      switch (rec.tag)
        {
        case SYSPROF_MEMORY_STREAM_TAG_ALLOCATION: counts->allocations++; break;
        case SYSPROF_MEMORY_STREAM_TAG_RELEASE: counts->releases++; break;
        case SYSPROF_MEMORY_STREAM_TAG_STACK: counts->stacks++; break;
        case SYSPROF_MEMORY_STREAM_TAG_RESET: counts->resets++; break;
        default: counts->lost = counts->lost + rec.n < counts->lost ? UINT64_MAX : counts->lost + rec.n; break;
        }
    }
  return true;

invalid:
  errno = EINVAL;
  return false;
}
