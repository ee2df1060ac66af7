// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The memory stream (memory-stream.md): compact allocation records, one stream
 * per thread, carried in FILE_CHUNK frames.  This header holds the format's
 * constants, the event readers hand out, and the encoder the tracker writes
 * blocks with.  The decoder is in sysprof-memory-stream-decoder.h, the reader
 * of whole captures in sysprof-allocation-cursor.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

/* FILE_CHUNK path of a stream: the prefix, then the thread id in decimal. */
#define SYSPROF_MEMORY_STREAM_PATH_PREFIX "sysprof/memory-stream/"
/* The data of one chunk: a block always fits one frame (16-bit lengths). */
#define SYSPROF_MEMORY_STREAM_MAX_BLOCK 61440
/* A hint in a stream chunk's padding1: the block holds no stack record
 * (memory-stream.md); never set, it says nothing. */
#define SYSPROF_MEMORY_STREAM_CHUNK_NO_STACKS 0x1
/* First byte of a block. */
#define SYSPROF_MEMORY_STREAM_BLOCK_RAW  0x52 /* 'R' */
#define SYSPROF_MEMORY_STREAM_BLOCK_ZSTD 0x5A /* 'Z' */
/* What a 'Z' block may decompress to, at most. */
#define SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH (1024 * 1024)
/* Record tags. */
#define SYSPROF_MEMORY_STREAM_TAG_ALLOCATION 0x01
#define SYSPROF_MEMORY_STREAM_TAG_RELEASE    0x02
#define SYSPROF_MEMORY_STREAM_TAG_STACK      0x03
#define SYSPROF_MEMORY_STREAM_TAG_RESET      0x04
#define SYSPROF_MEMORY_STREAM_TAG_LOST       0x05
/* Frames of one stack record, at most. */
#define SYSPROF_MEMORY_STREAM_MAX_FRAMES 128
/* Bytes of a varint, at most. */
#define SYSPROF_MEMORY_STREAM_MAX_VARINT 10

/* What readers keep of hostile streams, at most (memory-stream.md, "Errors"):
 * stack ids one stream has defined at once, and, over every stream a decoder
 * or cursor holds, the ids defined and the frames of the distinct stacks they
 * name (identical stacks of different threads are kept once).  A definition
 * past a bound is refused and counted as an error.  Worst case, measured: a
 * cursor peaks at 600 MB on streams defining 4 M distinct 8-frame stacks
 * (the ids, their tables and stacks, and the 256 MiB of frames); real
 * programs stay far below. */
#define SYSPROF_MEMORY_STREAM_MAX_STACKS        (1u << 20)
#define SYSPROF_MEMORY_STREAM_MAX_STORED_STACKS (1u << 22)
#define SYSPROF_MEMORY_STREAM_MAX_STORED_FRAMES (1u << 25)

/* One allocation or release, as the decoder and SysprofAllocationCursor hand
 * it out, whether it came from a stream or from an ALLOCATION frame. */
typedef struct
{
  int64_t               time;
  int32_t               pid;
  int32_t               tid;
  SysprofCaptureAddress address;
  /* Bytes allocated; 0 for a release (as in ALLOCATION frames, whose sizes
   * are passed on unchanged). */
  int64_t size;
  /* The allocation's stack, innermost first; valid until the next call on
   * the object that returned the event.  NULL when n_frames is 0. */
  const SysprofCaptureAddress *frames;
  uint32_t                     n_frames;
  /* The CPU of an ALLOCATION frame; -1 for stream events. */
  int32_t cpu;
  /* Non-zero for a stream event with a stack: events with equal keys have
   * the same frames (within one decoder or cursor), so a consumer can cache
   * what it computes per stack.  Keys are never reused for other frames;
   * a stack defined again (after a reset, or by another thread) usually
   * keeps its key.  0 otherwise. */
  uint64_t stack_key;
  /* Capture offset of the FILE_CHUNK or ALLOCATION frame that carried the
   * event (UINT64_MAX when the caller of the decoder gave none). */
  uint64_t offset;
} SysprofAllocationEvent;

/* Appends the records of one block to a buffer the caller owns.  Runs inside
 * malloc hooks: no allocation, no lock, no system call, errno untouched, no
 * argument errors reported (arguments the format cannot carry are adjusted,
 * as each function says).  The fields are private. */
typedef struct
{
  uint8_t *p_buffer;
  uint32_t p_capacity;
  uint32_t p_len;
  uint32_t p_n_events;
  uint32_t p_reserved;
  uint64_t p_base_time;
  uint64_t p_last_time;
  uint64_t p_last_address;
} SysprofMemoryStreamEncoder;

/* The smallest buffer an encoder takes: a cleared encoder fits any record. */
#define SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY 2048
/* The most bytes one event may take with everything it can bring: a reset,
 * the definition of its stack (SYSPROF_MEMORY_STREAM_MAX_FRAMES frames) and
 * the allocation record.  With this much room (get_room) all three fit. */
#define SYSPROF_MEMORY_STREAM_MAX_EVENT_BYTES                                                                         \
  (1 +                                                                                                                \
   (1 + SYSPROF_MEMORY_STREAM_MAX_VARINT + 2 + SYSPROF_MEMORY_STREAM_MAX_FRAMES * SYSPROF_MEMORY_STREAM_MAX_VARINT) + \
   (1 + 4 * SYSPROF_MEMORY_STREAM_MAX_VARINT))

/* Starts the encoder of a new stream in @buffer; @capacity above
 * SYSPROF_MEMORY_STREAM_MAX_BLOCK is not used.  false with errno EINVAL for a
 * NULL argument or a capacity under SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_init (SysprofMemoryStreamEncoder *self, void *buffer, size_t capacity);

/* The add functions return false, changing nothing, when the record does not
 * fit: send the block, clear the encoder and add the record again.  @time is
 * the capture clock in nanoseconds; a time before the stream's previous event
 * (or below 0) is recorded as that event's time, since times never go
 * backwards in a stream.  The first event of a block sets its base_time. */

/* @size 0 (malloc (0) returns a block of its own) is recorded as 1, since
 * size 0 means a release to readers; a size over 2^63-1 as 2^63-1.
 * @stack_id 0: no stack. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_add_allocation (
    SysprofMemoryStreamEncoder *self, int64_t time, SysprofCaptureAddress address, uint64_t size, uint64_t stack_id);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_add_release (SysprofMemoryStreamEncoder *self,
                                                int64_t                     time,
                                                SysprofCaptureAddress       address);
/* Defines @id (not 0, and not defined since the stream's start or its last
 * reset: the caller keeps its ids) as @frames, innermost first.  Only the
 * first SYSPROF_MEMORY_STREAM_MAX_FRAMES frames are kept.  Id 0 records
 * nothing and returns true. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_add_stack (SysprofMemoryStreamEncoder  *self,
                                              uint64_t                     id,
                                              const SysprofCaptureAddress *frames,
                                              unsigned int                 n_frames);
/* Forgets every stack id of the stream (readers free what they name). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_add_reset (SysprofMemoryStreamEncoder *self);
/* @n events the caller could not record (n 0 records nothing). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_add_lost (SysprofMemoryStreamEncoder *self, uint64_t n);
/* Bytes left for records in the block: any records of at most this many
 * bytes together fit. */
SYSPROF_AVAILABLE_IN_ALL
size_t sysprof_memory_stream_encoder_get_room (const SysprofMemoryStreamEncoder *self);
/* True when no record was added since the last clear. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_encoder_is_empty (const SysprofMemoryStreamEncoder *self);
/* The block so far ('R', base_time, records), inside the caller's buffer:
 * valid until the next call on the encoder; at most
 * SYSPROF_MEMORY_STREAM_MAX_BLOCK bytes.  An empty encoder gives a block
 * without records. */
SYSPROF_AVAILABLE_IN_ALL
const uint8_t *sysprof_memory_stream_encoder_get_block (SysprofMemoryStreamEncoder *self, size_t *len);
/* Empties the block after it was sent.  The stream goes on: its stack ids
 * and its last time are kept. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_memory_stream_encoder_clear (SysprofMemoryStreamEncoder *self);

/* Writes the FILE_CHUNK path of thread @tid's stream into @path (at least
 * 256 bytes, the path field's size).  false with EINVAL for a negative tid. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_format_path (char *path, size_t path_size, int32_t tid);
/* The thread id of a stream path (decimal, no sign, no leading zero, at most
 * INT32_MAX), or false with EINVAL when @path is not a stream path. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_parse_path (const char *path, int32_t *tid);

/* ---- for drainers: what writes the tracker's blocks into a capture ---- */

/* Compresses the raw block @raw ('R' first, at most
 * SYSPROF_MEMORY_STREAM_MAX_RAW_LENGTH bytes) into a 'Z' block in @out.
 * Returns the 'Z' block's length, or 0 with errno: EINVAL (not a raw block,
 * too long), ENOSPC (@out_size too small: compressing does not pay, keep the
 * raw block), ENOMEM.  @level is a zstd level (1 is fast and good here). */
SYSPROF_AVAILABLE_IN_ALL
size_t sysprof_memory_stream_compress (const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_size, int level);

/* The same with a zstd context kept from block to block (creating one per
 * block costs more than compressing a small block).  new: NULL with errno
 * ENOMEM; free accepts NULL. */
typedef struct _SysprofMemoryStreamCompressor SysprofMemoryStreamCompressor;
SYSPROF_AVAILABLE_IN_ALL
SysprofMemoryStreamCompressor *sysprof_memory_stream_compressor_new (int level);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_memory_stream_compressor_free (SysprofMemoryStreamCompressor *self);
SYSPROF_AVAILABLE_IN_ALL
size_t sysprof_memory_stream_compressor_pack (
    SysprofMemoryStreamCompressor *self, const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_size);

/* The records of one raw block, counted without decoding them (no stack ids
 * are kept: a drainer's progress figures, not a check). */
typedef struct
{
  uint64_t allocations;
  uint64_t releases;
  uint64_t stacks;
  uint64_t resets;
  uint64_t lost; /* the sum of the lost records */
} SysprofMemoryStreamCounts;

/* Adds the records of the raw block @block to @counts.  false with errno
 * EINVAL when @block is not a raw block or a record is malformed (the
 * records before it are counted). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_memory_stream_count (const uint8_t *block, size_t len, SysprofMemoryStreamCounts *counts);

SYSPROF_END_DECLS
