// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* The summary of the memory streams a drainer took, written at close. */
#define SYSPROF_MEMORY_STREAM_METADATA_ID "sysprof.memory-stream"
/* zstd's level for raw memory-stream blocks (bench/README.md, "Memory
 * streams: compression"). */
#define SYSPROF_RING_DRAINER_ZSTD_LEVEL 1

/* Data pages of a ring when the caller asks for 0, and the most it may ask. */
#define SYSPROF_RING_DRAINER_DEFAULT_PAGES 512
#define SYSPROF_RING_DRAINER_MAX_PAGES     1024

#define SYSPROF_TYPE_RING_DRAINER (sysprof_ring_drainer_get_type ())

/* Mapped ring buffers (Sysprof's layout) handed to profiled programs, whose
 * frames are copied into a capture writer.  Everything in a ring is written
 * by a process we do not trust and may change while we read it: each
 * frame's header is read once and checked against what was published, the
 * frame is copied once, and only the copy is validated
 * (sysprof_capture_frame_validate), written and looked at.  A ring whose
 * content stops making sense loses what it holds (counted in get_n_lost) and
 * goes on.
 *
 * Rings are drained from the thread-default main context of the thread that
 * created the drainer, every millisecond while any ring is open (a busy
 * producer fills a 2 MiB ring in a few ms), and a last time by
 * sysprof_ring_drainer_close().  The frames of all rings are merged by time
 * (equal times: the ring created first goes first).  A pass takes at most
 * 1 MiB or 8192 frames, whichever comes first; a tick runs passes while
 * frames are left for up to 4 ms and leaves the rest for the next tick:
 * however many rings are open and whatever they hold, a tick costs the same,
 * and the main context's other sources run between ticks.  A ring
 * ends when its producer writes the end-of-stream frame (type 0xFF, Sysprof's
 * collector does at thread exit); its slot is then free again.
 *
 * A pass takes only frames stamped before it began (frames less than 10 ms
 * ahead wait for the next pass; until close): a frame published in one ring
 * before another ring's frame was stamped is never written after it.
 *
 * Memory streams (libsysprof-capture/memory-stream.md): FILE_CHUNK frames
 * with a path starting "sysprof/memory-stream/" are taken only when the path
 * is that prefix and a thread id, the frame's pid is the ring's (that of its
 * first frame), the block at most SYSPROF_MEMORY_STREAM_MAX_BLOCK
 * bytes and the frame no longer than the block needs; otherwise they are
 * refused and counted lost.  A sound raw block without stack records gets
 * the hint SYSPROF_MEMORY_STREAM_CHUNK_NO_STACKS.  A raw block ('R') is
 * compressed with zstd into a 'Z' block when that makes it smaller; other blocks are written as they
 * came (the reader's decoder checks them).  At close, a METADATA frame
 * SYSPROF_MEMORY_STREAM_METADATA_ID sums them up: "blocks=N raw-bytes=N
 * stored-bytes=N compressed=N refused=N zstd-level=N allocations=N
 * releases=N stacks=N lost=N" (the last four counted in the raw blocks). */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofRingDrainer, sysprof_ring_drainer, SYSPROF, RING_DRAINER, GObject)

/* At most @max_rings rings open at once (0: 1024).  Nothing is drained until
 * a writer is set. */
SYSPROF_AVAILABLE_IN_ALL
SysprofRingDrainer *sysprof_ring_drainer_new (guint max_rings);
/* Starts draining into @writer (a reference is kept). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_ring_drainer_set_writer (SysprofRingDrainer *self, SysprofCaptureWriter *writer);
/* Stops copying frames once the writer's size (sysprof_capture_writer_get_size,
 * which counts every writer of the capture) would pass @max_bytes (0, the
 * default: no limit).  Frames are then counted lost and dropped from their
 * rings, and get_limit_reached() turns TRUE for the owner to stop the
 * session.  Setting it again (0 lifts it) clears get_limit_reached(). */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_ring_drainer_set_max_bytes (SysprofRingDrainer *self, guint64 max_bytes);
/* TRUE once a frame was not copied for the size limit: the one of
 * set_max_bytes(), or the writer's own (it refused a frame with EFBIG). */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_ring_drainer_get_limit_reached (SysprofRingDrainer *self);
/* A new ring of @n_pages data pages (a power of two up to
 * SYSPROF_RING_DRAINER_MAX_PAGES; 0: SYSPROF_RING_DRAINER_DEFAULT_PAGES).
 * Returns a close-on-exec fd of its memfd for the producer, owned by the
 * caller, or -1: G_IO_ERROR_INVALID_ARGUMENT when @n_pages is not a power
 * of two, G_IO_ERROR_NO_SPACE when it is too large,
 * G_IO_ERROR_TOO_MANY_OPEN_FILES at the ring limit, G_IO_ERROR_CLOSED after
 * close, or the errno of the memfd. */
SYSPROF_AVAILABLE_IN_ALL
int sysprof_ring_drainer_create_ring (SysprofRingDrainer *self, guint n_pages, GError **error);
/* Drains every ring one last time (when a writer is set), at most as many
 * bytes as all of them can hold, and forgets them; when anything was lost,
 * writes a METADATA frame SYSPROF_LOST_EVENTS_METADATA_ID saying how much
 * (not subject to set_max_bytes; the writer's own cap applies).  Later rings
 * are refused.  Idempotent. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_ring_drainer_close (SysprofRingDrainer *self);
/* Rings open now (created, not ended, not closed). */
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_ring_drainer_get_n_rings (SysprofRingDrainer *self);
/* Memory the open rings pin: their data pages and header page. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_ring_drainer_get_n_bytes (SysprofRingDrainer *self);
/* Frames copied into the writer so far. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_ring_drainer_get_n_frames (SysprofRingDrainer *self);
/* Losses so far: ours (an invalid frame, with whatever its ring held behind
 * it, counts one; so does a frame the writer could not take, or one not
 * copied for the size limit) and those the producers reported in their
 * SYSPROF_LOST_EVENTS_METADATA_ID frames. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_ring_drainer_get_n_lost (SysprofRingDrainer *self);
/* Allocations and releases in the raw memory-stream blocks taken so far
 * (counted, not decoded: a block's records up to a fault). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_ring_drainer_get_n_stream_events (SysprofRingDrainer *self);
/* The memory-stream blocks taken so far (of which compressed), refused, and
 * their data bytes as they came and as written; each pointer may be NULL. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_ring_drainer_get_memory_streams (SysprofRingDrainer *self,
                                              guint64            *n_blocks,
                                              guint64            *n_compressed,
                                              guint64            *n_refused,
                                              guint64            *raw_bytes,
                                              guint64            *stored_bytes);

G_END_DECLS
