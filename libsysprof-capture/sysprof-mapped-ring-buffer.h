// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sysprof-macros.h"

SYSPROF_BEGIN_DECLS

/* A single-producer, single-consumer ring of capture frames shared through a
 * memfd, in Sysprof's mapped-ring-buffer layout: one header page holding the
 * u32 words head (consumer position), tail (producer position), offset (= page
 * size) and size (= body size), then the body.  The body is mapped twice back
 * to back so a frame crossing the end of the ring is contiguous in memory.
 *
 * The reader (consumer) side treats the producer as hostile.  It keeps its
 * own head (the header's head word is written for the producer, never read
 * back), reads the tail word once per step, checks it and decides everything
 * from that one value, and never reads outside its mapping.  The bytes it
 * offers stay writable by the producer: copy them before checking them. */
typedef struct _SysprofMappedRingBuffer SysprofMappedRingBuffer;

/* Called by _drain() with @data pointing at @*len readable bytes (everything
 * between head and tail, contiguous).  Set @*len to the number of bytes
 * consumed (a multiple of 8, at most the bytes offered); return false to stop
 * draining after this call. */
typedef bool (*SysprofMappedRingBufferCallback) (const void *data, size_t *len, void *user_data);

/* Creates the memfd "[sysprof-ring-buffer]" with a body of @buffer_size bytes
 * (0 = 63 pages; else a page multiple below 2 GiB) and maps it as consumer. */
SYSPROF_AVAILABLE_IN_ALL
SysprofMappedRingBuffer *sysprof_mapped_ring_buffer_new_reader (size_t buffer_size);
/* Maps a ring received from a consumer as producer; @fd is duplicated, the
 * caller keeps its own.  Fails with EINVAL when the header's offset or size
 * do not match the file. */
SYSPROF_AVAILABLE_IN_ALL
SysprofMappedRingBuffer *sysprof_mapped_ring_buffer_new_writer (int fd);
/* A new close-on-exec duplicate of the ring's memfd, or -1 with errno set. */
SYSPROF_AVAILABLE_IN_ALL
int sysprof_mapped_ring_buffer_dup_fd (SysprofMappedRingBuffer *self);
/* Body size in bytes. */
SYSPROF_AVAILABLE_IN_ALL
size_t sysprof_mapped_ring_buffer_get_size (SysprofMappedRingBuffer *self);
/* Producer: room for @len bytes at the tail, or NULL (errno EAGAIN) when the
 * consumer has not freed enough yet.  The tail never catches up with head. */
SYSPROF_AVAILABLE_IN_ALL
void *sysprof_mapped_ring_buffer_allocate (SysprofMappedRingBuffer *self, size_t len);
/* Producer: publishes @len bytes (a multiple of 8) written at the tail. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_mapped_ring_buffer_advance (SysprofMappedRingBuffer *self, size_t len);
/* Consumer: hands the bytes between head and tail to @callback, moving head
 * after each call, and stops after at most one body's worth of bytes so a busy
 * producer cannot keep the caller here.  Each call offers everything
 * published at that moment (whole frames from a sound producer), never a
 * part of it.  Returns false with errno EBADMSG when
 * the header holds impossible positions or EINVAL when the callback claims
 * more than it was offered; nothing is consumed then. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_mapped_ring_buffer_drain (SysprofMappedRingBuffer        *self,
                                       SysprofMappedRingBufferCallback callback,
                                       void                           *user_data);
/* Consumer: everything published now, from head, without consuming it:
 * @len receives its length (0 when empty).  NULL with errno EBADMSG when the
 * header holds impossible positions.  The bytes stay writable by the
 * producer: copy before checking. */
SYSPROF_AVAILABLE_IN_ALL
const void *sysprof_mapped_ring_buffer_peek (SysprofMappedRingBuffer *self, size_t *len);
/* Consumer: moves head by @len bytes (a multiple of 8, at most what peek
 * offers now); false with errno EINVAL otherwise, EBADMSG as for peek. */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_mapped_ring_buffer_consume (SysprofMappedRingBuffer *self, size_t len);
/* Consumer: drops everything written so far (head = tail; both reset to 0 when
 * the tail is impossible). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_mapped_ring_buffer_clear (SysprofMappedRingBuffer *self);
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_mapped_ring_buffer_is_empty (SysprofMappedRingBuffer *self);
SYSPROF_AVAILABLE_IN_ALL
SysprofMappedRingBuffer *sysprof_mapped_ring_buffer_ref (SysprofMappedRingBuffer *self);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_mapped_ring_buffer_unref (SysprofMappedRingBuffer *self);

SYSPROF_END_DECLS
