// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The memory stream decoder: one stream's blocks, from a capture that may be
 * hostile.  memory-stream.md, "Errors": a problem ends its block, is counted,
 * the first is described, and the next block decodes normally. */
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdarg.h>
#include <stdio.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "sysprof-memory-stream-private.h"
#include "sysprof-capture-util-private.h"

struct _SysprofMemoryStreamShared
{
  SysprofStackStore *store;
  ZSTD_DCtx         *dctx;
};

/* Ids are looked up by index where they are dense: writers number stacks
 * from 1 (the tracker restarts at 1 after each reset), and an index costs
 * one load where a hash probe missed the cache on most events.  An id goes
 * to the dense array only when it is below twice the dense ids defined plus
 * DENSE_SLACK, so the array (and the work of a reset) stays proportional to
 * the ids a stream defines, whatever ids a hostile one picks; the others go
 * to a hash table. */
#define DENSE_SLACK 256

/* What an id names: its stack, with the fields an event copies, so that
 * decoding an event does not touch the stack itself (a cache miss on most
 * events of a program with many stacks). */
typedef struct
{
  SysprofStoredStack *stack; /* NULL: the id is not defined */
  uint64_t            key;
  uint32_t            n_frames;
  uint32_t            padding;
} IdRef;

/* An id above the dense ones; id 0 marks an empty slot. */
typedef struct
{
  uint64_t id;
  IdRef    ref;
} IdSlot;

struct _SysprofMemoryStreamDecoder
{
  int32_t                    pid;
  int32_t                    tid;
  SysprofMemoryStreamShared *shared;
  bool                       owns_shared;

  /* The stream's ids: dense[id] (n_dense slots, grown by doubling; n_in_dense
   * of them defined, none above dense_max); the others in ids, open
   * addressing, multiplicative hash, at most half full (n_hashed of them).
   * n_ids counts both. */
  IdRef   *dense;
  size_t   n_dense;
  size_t   n_in_dense;
  uint64_t dense_max;
  IdSlot  *ids;
  unsigned ids_bits;
  size_t   n_hashed;
  size_t   n_ids;

  /* The current block, 'R' first (decompressed if it came as 'Z'). */
  uint8_t       *buf;
  size_t         buf_size;
  const uint8_t *start;
  const uint8_t *pos;
  const uint8_t *end;
  uint64_t       block_offset;
  bool           compressed;
  uint64_t       time;
  uint64_t       address;

  /* The stream's last event time: it never goes backwards, across blocks too. */
  uint64_t stream_time;

  SysprofMemoryStreamStats stats;
  char                     error[512];

  SysprofCaptureAddress frames[SYSPROF_MEMORY_STREAM_MAX_FRAMES];
};

SysprofMemoryStreamShared *
_sysprof_memory_stream_shared_new (size_t max_refs, size_t max_frames)
{
  SysprofMemoryStreamShared *self = calloc (1, sizeof *self);

  if (self == NULL)
    return NULL;
  if (!(self->store = _sysprof_stack_store_new (max_refs, max_frames)))
    {
      free (self);
      return NULL;
    }
  return self;
}

void
_sysprof_memory_stream_shared_free (SysprofMemoryStreamShared *self)
{
  if (self == NULL)
    return;
  _sysprof_stack_store_free (self->store);
  ZSTD_freeDCtx (self->dctx);
  free (self);
}

static const char *describe (char *why, size_t why_size, const char *format, ...) SYSPROF_PRINTF (3, 4);

static const char *
describe (char *why, size_t why_size, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vsnprintf (why, why_size, format, args);
  va_end (args);
  return why;
}

static bool
grow_buffer (uint8_t **buf, size_t *size, size_t need)
{
  uint8_t *p;

  if (*size >= need && *buf != NULL)
    return true;
  if (!(p = malloc (need ? need : 1)))
    return false;
  free (*buf);
  *buf = p;
  *size = need;
  return true;
}

bool
_sysprof_memory_stream_inflate (SysprofMemoryStreamShared *shared,
                                const uint8_t             *block,
                                size_t                     len,
                                uint8_t                  **raw,
                                size_t                    *raw_size,
                                size_t                    *raw_len,
                                char                      *why,
                                size_t                     why_size)
{
  const uint8_t     *p = block + 1;
  const uint8_t     *end = block + len;
  uint64_t           want;
  size_t             frame_len;
  size_t             got;
  unsigned long long content;

  why[0] = 0;
  switch (_sysprof_read_varint (&p, end, &want))
    {
    case SYSPROF_VARINT_TRUNCATED: describe (why, why_size, "its raw_length is a truncated varint"); return false;
    case SYSPROF_VARINT_OVERLONG:
      describe (why, why_size, "its raw_length is a varint longer than 10 bytes or 64 bits");
      return false;
    case SYSPROF_VARINT_OK:
    default: break;
    }
  if (want > SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH)
    {
      describe (why, why_size, "its raw_length %" PRIu64 " is over the bound of %u bytes", want,
                SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH);
      return false;
    }

  /* Exactly one zstd frame, declaring (if at all) the size raw_length
   * announced: a bomb is refused before any work, and the output buffer,
   * raw_length bytes, bounds a frame that declares nothing. */
  frame_len = ZSTD_findFrameCompressedSize (p, (size_t) (end - p));
  if (ZSTD_isError (frame_len))
    {
      describe (why, why_size, "its data is not a zstd frame (%s)", ZSTD_getErrorName (frame_len));
      return false;
    }
  if (frame_len != (size_t) (end - p))
    {
      if ((size_t) (end - p) - frame_len == 1)
        describe (why, why_size, "1 byte follows its zstd frame");
      else
        describe (why, why_size, "%zu bytes follow its zstd frame", (size_t) (end - p) - frame_len);
      return false;
    }
  content = ZSTD_getFrameContentSize (p, frame_len);
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != want)
    {
      describe (why, why_size, "its zstd frame holds %llu bytes, not the %" PRIu64 " of its raw_length", content, want);
      return false;
    }

  if (shared->dctx == NULL && !(shared->dctx = ZSTD_createDCtx ()))
    {
      errno = ENOMEM;
      return false;
    }
  if (!grow_buffer (raw, raw_size, (size_t) want))
    {
      errno = ENOMEM;
      return false;
    }
  got = ZSTD_decompressDCtx (shared->dctx, *raw, (size_t) want, p, frame_len);
  if (ZSTD_isError (got))
    {
      if (ZSTD_getErrorCode (got) == ZSTD_error_dstSize_tooSmall)
        describe (why, why_size, "its zstd frame decompresses to more than its raw_length of %" PRIu64 " bytes", want);
      else
        describe (why, why_size, "its zstd frame does not decompress (%s)", ZSTD_getErrorName (got));
      return false;
    }
  if (got != want)
    {
      describe (why, why_size, "its zstd frame decompresses to %zu bytes, not the %" PRIu64 " of its raw_length", got,
                want);
      return false;
    }
  *raw_len = got;
  return true;
}

SysprofMemoryStreamDecoder *
_sysprof_memory_stream_decoder_new_shared (int32_t pid, int32_t tid, SysprofMemoryStreamShared *shared)
{
  SysprofMemoryStreamDecoder *self = calloc (1, sizeof *self);

  if (self == NULL)
    return NULL;
  self->pid = pid;
  self->tid = tid;
  self->shared = shared;
  self->block_offset = UINT64_MAX;
  return self;
}

SysprofMemoryStreamDecoder *
sysprof_memory_stream_decoder_new (int32_t pid, int32_t tid)
{
  SysprofMemoryStreamShared  *shared;
  SysprofMemoryStreamDecoder *self;

  if (!(shared = _sysprof_memory_stream_shared_new (SYSPROF_MEMORY_STREAM_MAX_STORED_STACKS,
                                                    SYSPROF_MEMORY_STREAM_MAX_STORED_FRAMES)))
    return NULL;
  if (!(self = _sysprof_memory_stream_decoder_new_shared (pid, tid, shared)))
    {
      _sysprof_memory_stream_shared_free (shared);
      return NULL;
    }
  self->owns_shared = true;
  return self;
}

static void
ids_clear (SysprofMemoryStreamDecoder *self)
{
  for (uint64_t i = 1; i <= self->dense_max; i++)
    if (self->dense[i].stack != NULL)
      {
        _sysprof_stack_store_release (self->shared->store, self->dense[i].stack);
        self->dense[i].stack = NULL;
      }
  self->dense_max = 0;
  self->n_in_dense = 0;
  if (self->ids != NULL)
    {
      for (size_t i = 0; i < ((size_t) 1 << self->ids_bits); i++)
        if (self->ids[i].id != 0)
          _sysprof_stack_store_release (self->shared->store, self->ids[i].ref.stack);
      free (self->ids);
    }
  self->ids = NULL;
  self->ids_bits = 0;
  self->n_hashed = 0;
  self->n_ids = 0;
}

void
sysprof_memory_stream_decoder_free (SysprofMemoryStreamDecoder *self)
{
  if (self == NULL)
    return;
  ids_clear (self);
  free (self->dense);
  free (self->buf);
  if (self->owns_shared)
    _sysprof_memory_stream_shared_free (self->shared);
  free (self);
}

void
_sysprof_memory_stream_decoder_trim (SysprofMemoryStreamDecoder *self)
{
  if (self == NULL || self->pos < self->end)
    return;
  free (self->buf);
  self->buf = NULL;
  self->buf_size = 0;
  self->start = self->pos = self->end = NULL;
}

static inline size_t
id_home (const SysprofMemoryStreamDecoder *self, uint64_t id)
{
  return (size_t) ((id * 0x9E3779B97F4A7C15u) >> (64 - self->ids_bits));
}

/* What @id names, or NULL when it is not defined. */
static inline const IdRef *
ids_lookup (const SysprofMemoryStreamDecoder *self, uint64_t id)
{
  size_t mask;

  if (id < self->n_dense && self->dense[id].stack != NULL)
    return &self->dense[id];
  if (self->ids == NULL)
    return NULL;
  mask = ((size_t) 1 << self->ids_bits) - 1;
  for (size_t i = id_home (self, id);; i = (i + 1) & mask)
    {
      if (self->ids[i].id == id)
        return &self->ids[i].ref;
      if (self->ids[i].id == 0)
        return NULL;
    }
}

static void
ids_put (IdSlot *ids, unsigned bits, uint64_t id, const IdRef *ref)
{
  size_t mask = ((size_t) 1 << bits) - 1;
  size_t i = (size_t) ((id * 0x9E3779B97F4A7C15u) >> (64 - bits));

  while (ids[i].id != 0)
    i = (i + 1) & mask;
  ids[i].id = id;
  ids[i].ref = *ref;
}

static bool
ids_insert (SysprofMemoryStreamDecoder *self, uint64_t id, SysprofStoredStack *stack)
{
  IdRef ref = { stack, stack->key, stack->n_frames, 0 };

  if (id < 2 * (uint64_t) self->n_in_dense + DENSE_SLACK)
    {
      if (id >= self->n_dense)
        {
          size_t n = self->n_dense ? self->n_dense : 256;
          IdRef *dense;

          while (n <= id)
            n *= 2;
          if (!(dense = realloc (self->dense, n * sizeof *dense)))
            return false;
          memset (dense + self->n_dense, 0, (n - self->n_dense) * sizeof *dense);
          self->dense = dense;
          self->n_dense = n;
        }
      self->dense[id] = ref;
      self->n_in_dense++;
      if (id > self->dense_max)
        self->dense_max = id;
      self->n_ids++;
      return true;
    }
  if (self->ids == NULL || (self->n_hashed + 1) * 2 > ((size_t) 1 << self->ids_bits))
    {
      unsigned bits = self->ids ? self->ids_bits + 1 : 8;
      IdSlot  *ids = calloc ((size_t) 1 << bits, sizeof *ids);

      if (ids == NULL)
        return false;
      if (self->ids != NULL)
        for (size_t i = 0; i < ((size_t) 1 << self->ids_bits); i++)
          if (self->ids[i].id != 0)
            ids_put (ids, bits, self->ids[i].id, &self->ids[i].ref);
      free (self->ids);
      self->ids = ids;
      self->ids_bits = bits;
    }
  ids_put (self->ids, self->ids_bits, id, &ref);
  self->n_hashed++;
  self->n_ids++;
  return true;
}

static void fail (SysprofMemoryStreamDecoder *self, const uint8_t *at, const char *format, ...) SYSPROF_PRINTF (3, 4);

/* Ends the block at a problem found at @at (NULL: the block as a whole),
 * counts it, and describes it when it is the stream's first. */
static __attribute__ ((noinline)) void
fail (SysprofMemoryStreamDecoder *self, const uint8_t *at, const char *format, ...)
{
  self->stats.errors++;
  if (self->error[0] == 0)
    {
      char    problem[192];
      char    where[96];
      va_list args;

      va_start (args, format);
      vsnprintf (problem, sizeof problem, format, args);
      va_end (args);
      if (self->block_offset != UINT64_MAX)
        snprintf (where, sizeof where, "the block at capture offset %" PRIu64, self->block_offset);
      else
        snprintf (where, sizeof where, "block %" PRIu64, self->stats.blocks);
      if (at != NULL)
        snprintf (self->error, sizeof self->error, "memory stream of thread %d of process %d, %s: %s (byte %zu%s)",
                  self->tid, self->pid, where, problem, (size_t) (at - self->start),
                  self->compressed ? " once decompressed" : "");
      else
        snprintf (self->error, sizeof self->error, "memory stream of thread %d of process %d, %s: %s", self->tid,
                  self->pid, where, problem);
    }
  self->pos = self->end;
}

static __attribute__ ((noinline)) void
fail_varint (SysprofMemoryStreamDecoder *self, const uint8_t *at, SysprofVarintStatus status, const char *field)
{
  if (status == SYSPROF_VARINT_TRUNCATED)
    fail (self, at, "the block ends inside the varint %s", field);
  else
    fail (self, at, "the varint %s is longer than 10 bytes or 64 bits", field);
}

/* Reads the varint @var (named @field in errors) or ends the block. */
#define READ_VARINT(var, field)                                             \
  do                                                                        \
    {                                                                       \
      const uint8_t      *at_ = p;                                          \
      SysprofVarintStatus st_ = _sysprof_read_varint (&p, self->end, &var); \
      if (SYSPROF_UNLIKELY (st_ != SYSPROF_VARINT_OK))                      \
        {                                                                   \
          fail_varint (self, at_, st_, field);                              \
          return false;                                                     \
        }                                                                   \
    }                                                                       \
  while (0)

/* Fills @event with the event of @record (ending at @end), @dt after the
 * previous one; false, ending the block, when its time would pass 2^63-1 or
 * precede the stream's last. */
static inline bool
emit (SysprofMemoryStreamDecoder *self,
      SysprofAllocationEvent     *event,
      const uint8_t              *record,
      const uint8_t              *end,
      uint64_t                    dt,
      uint64_t                    daddr,
      int64_t                     size,
      const IdRef                *ref)
{
  uint64_t t = self->time + dt;

  if (SYSPROF_UNLIKELY (t < self->time || t > INT64_MAX))
    {
      fail (self, record, "time goes backwards: the event's time overflows (previous %" PRIu64 ", dt %" PRIu64 ")",
            self->time, dt);
      return false;
    }
  if (SYSPROF_UNLIKELY (t < self->stream_time))
    {
      fail (self, record, "time goes backwards: an event at %" PRIu64 " follows one at %" PRIu64, t, self->stream_time);
      return false;
    }
  self->pos = end;
  self->time = self->stream_time = t;
  self->address += _sysprof_unzigzag (daddr);
  event->time = (int64_t) t;
  event->pid = self->pid;
  event->tid = self->tid;
  event->address = self->address;
  event->size = size;
  event->frames = ref && ref->n_frames ? ref->stack->frames : NULL;
  event->n_frames = ref ? ref->n_frames : 0;
  event->cpu = -1;
  event->stack_key = ref ? ref->key : 0;
  event->offset = self->block_offset;
  return true;
}

static bool
decode_stack (SysprofMemoryStreamDecoder *self, const uint8_t *record, const uint8_t *p)
{
  SysprofStoredStack   *stack;
  SysprofCaptureAddress prev = 0;
  uint64_t              id, n;

  READ_VARINT (id, "id of a stack record");
  READ_VARINT (n, "frame count of a stack record");
  if (n > SYSPROF_MEMORY_STREAM_MAX_FRAMES)
    {
      fail (self, record, "stack %" PRIu64 " has %" PRIu64 " frames, more than %u", id, n,
            SYSPROF_MEMORY_STREAM_MAX_FRAMES);
      return false;
    }
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t d;

      READ_VARINT (d, "frame of a stack record");
      prev += _sysprof_unzigzag (d);
      self->frames[i] = prev;
    }
  self->pos = p;

  if (id == 0)
    {
      fail (self, record, "a stack record defines id 0");
      return false;
    }
  if (ids_lookup (self, id) != NULL)
    {
      fail (self, record, "stack id %" PRIu64 " is defined twice", id);
      return false;
    }
  if (self->n_ids >= SYSPROF_MEMORY_STREAM_MAX_STACKS)
    {
      fail (self, record, "stack id %" PRIu64 " is refused: the stream already has %u ids defined", id,
            SYSPROF_MEMORY_STREAM_MAX_STACKS);
      return false;
    }
  if (!(stack = _sysprof_stack_store_intern (self->shared->store, self->frames, (uint32_t) n)))
    {
      size_t max_refs, max_frames;

      _sysprof_stack_store_get_bounds (self->shared->store, &max_refs, &max_frames);
      if (errno == ENOSPC)
        fail (self, record,
              "stack id %" PRIu64 " is refused: the reader keeps at most %zu stack ids and %zu frames of all streams",
              id, max_refs, max_frames);
      else
        fail (self, record, "stack id %" PRIu64 " is refused: out of memory", id);
      return false;
    }
  if (!ids_insert (self, id, stack))
    {
      _sysprof_stack_store_release (self->shared->store, stack);
      fail (self, record, "stack id %" PRIu64 " is refused: out of memory", id);
      return false;
    }
  self->stats.stacks++;
  return true;
}

/* The next event of the block, applying the records before it. */
static bool
decode_next (SysprofMemoryStreamDecoder *self, SysprofAllocationEvent *event)
{
  while (self->pos < self->end)
    {
      const uint8_t *record = self->pos;
      const uint8_t *p = record + 1;
      uint64_t       dt, daddr, size, id, n;

      switch (*record)
        {
        case SYSPROF_MEMORY_STREAM_TAG_ALLOCATION:
          {
            const IdRef *ref = NULL;

            READ_VARINT (dt, "dt of an allocation");
            READ_VARINT (daddr, "address of an allocation");
            READ_VARINT (size, "size of an allocation");
            READ_VARINT (id, "stack of an allocation");
            if (SYSPROF_UNLIKELY (size == 0 || size > INT64_MAX))
              {
                fail (self, record, "an allocation has size %" PRIu64 " (not 1 to 2^63-1)", size);
                return false;
              }
            if (id != 0 && SYSPROF_UNLIKELY (!(ref = ids_lookup (self, id))))
              {
                fail (self, record, "an allocation names stack id %" PRIu64 ", which is not defined", id);
                return false;
              }
            return emit (self, event, record, p, dt, daddr, (int64_t) size, ref);
          }

        case SYSPROF_MEMORY_STREAM_TAG_RELEASE:
          READ_VARINT (dt, "dt of a release");
          READ_VARINT (daddr, "address of a release");
          return emit (self, event, record, p, dt, daddr, 0, NULL);

        case SYSPROF_MEMORY_STREAM_TAG_STACK:
          if (!decode_stack (self, record, p))
            return false;
          break;

        case SYSPROF_MEMORY_STREAM_TAG_RESET:
          ids_clear (self);
          self->stats.resets++;
          self->pos = p;
          break;

        case SYSPROF_MEMORY_STREAM_TAG_LOST:
          READ_VARINT (n, "count of a lost record");
          self->stats.lost = n > UINT64_MAX - self->stats.lost ? UINT64_MAX : self->stats.lost + n;
          self->pos = p;
          break;

        default: fail (self, record, "unknown record tag 0x%02x", *record); return false;
        }
    }
  return false;
}

#undef READ_VARINT

bool
sysprof_memory_stream_decoder_feed (SysprofMemoryStreamDecoder *self, const void *block, size_t len, uint64_t offset)
{
  SysprofAllocationEvent event;
  const uint8_t         *data = block;
  const uint8_t         *p;
  size_t                 raw_len = len;
  uint64_t               base;
  SysprofVarintStatus    st;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (block != NULL || len == 0, false);

  while (decode_next (self, &event))
    self->stats.skipped++;

  self->stats.blocks++;
  self->block_offset = offset;
  self->compressed = false;
  self->start = self->pos = self->end = NULL;

  /* No data: a block without records (a writer may end a stream with one). */
  if (len == 0)
    return true;

  if (data[0] == SYSPROF_MEMORY_STREAM_BLOCK_ZSTD)
    {
      char why[192];

      if (!_sysprof_memory_stream_inflate (self->shared, data, len, &self->buf, &self->buf_size, &raw_len, why,
                                           sizeof why))
        {
          if (why[0] == 0)
            return false;
          fail (self, NULL, "its zstd block is unsound: %s", why);
          return true;
        }
      self->compressed = true;
      if (raw_len == 0 || self->buf[0] != SYSPROF_MEMORY_STREAM_BLOCK_RAW)
        {
          fail (self, NULL, "its zstd block does not decompress to a raw block");
          return true;
        }
    }
  else if (data[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW)
    {
      if (!grow_buffer (&self->buf, &self->buf_size, len))
        {
          errno = ENOMEM;
          return false;
        }
      memcpy (self->buf, data, len);
    }
  else
    {
      fail (self, NULL, "unknown block type 0x%02x", data[0]);
      return true;
    }

  self->start = self->buf;
  self->end = self->buf + raw_len;
  p = self->buf + 1;
  if ((st = _sysprof_read_varint (&p, self->end, &base)) != SYSPROF_VARINT_OK)
    {
      self->pos = self->buf + 1;
      fail_varint (self, self->buf + 1, st, "base_time");
      return true;
    }
  if (base > INT64_MAX)
    {
      self->pos = p;
      fail (self, self->buf + 1, "its base_time %" PRIu64 " is over 2^63-1", base);
      return true;
    }
  self->pos = p;
  self->time = base;
  self->address = 0;
  return true;
}

bool
sysprof_memory_stream_decoder_next (SysprofMemoryStreamDecoder *self, SysprofAllocationEvent *event)
{
  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (event != NULL, false);

  if (!decode_next (self, event))
    return false;
  self->stats.events++;
  return true;
}

void
sysprof_memory_stream_decoder_get_stats (SysprofMemoryStreamDecoder *self, SysprofMemoryStreamStats *stats)
{
  sysprof_return_if_fail (self != NULL);
  sysprof_return_if_fail (stats != NULL);

  *stats = self->stats;
}

const char *
sysprof_memory_stream_decoder_get_error (SysprofMemoryStreamDecoder *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return self->error[0] ? self->error : NULL;
}
