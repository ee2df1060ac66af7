// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-perf-ring-private.h is private to libsysprof/instruments."
#endif

#include <linux/perf_event.h>

#include <gio/gio.h>

G_BEGIN_DECLS

/* The reader's side of a perf ring buffer: a control page
 * (struct perf_event_mmap_page) followed by a power-of-two data area that the
 * kernel fills with records (struct perf_event_header + payload, sizes
 * multiples of 8).  Not thread-safe. */
typedef struct _SysprofPerfRing SysprofPerfRing;

/* Called with one whole record, contiguous and 8-byte aligned even when it
 * wrapped around the end of the data area; valid during the call only. */
typedef void (*SysprofPerfRecordFunc) (const struct perf_event_header *record, gpointer user_data);

/* Maps 1 + *@n_data_pages pages of the perf event @fd (which stays the
 * caller's).  While the kernel refuses for want of locked memory (EPERM,
 * ENOMEM) the number of data pages is halved, down to 1; *@n_data_pages
 * returns what was mapped. */
SysprofPerfRing *_sysprof_perf_ring_new_for_fd (int fd, guint *n_data_pages, GError **error);
/* A ring over memory the caller owns and lays out like a perf mapping (tests):
 * @data_size must be a power of two and a multiple of 8. */
SysprofPerfRing *_sysprof_perf_ring_new_for_memory (struct perf_event_mmap_page *page, guint8 *data, gsize data_size);
void             _sysprof_perf_ring_free (SysprofPerfRing *ring);
/* Hands every record between data_tail and data_head to @func, in order,
 * releasing each one to the kernel once @func returned.  A record that does
 * not fit what is available (a corrupt ring) makes the rest be skipped.
 * Returns the number of records delivered. */
guint _sysprof_perf_ring_drain (SysprofPerfRing *ring, SysprofPerfRecordFunc func, gpointer user_data);
/* How many times garbage made a drain skip the rest of the ring. */
guint _sysprof_perf_ring_get_n_resyncs (SysprofPerfRing *ring);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofPerfRing, _sysprof_perf_ring_free)

G_END_DECLS
