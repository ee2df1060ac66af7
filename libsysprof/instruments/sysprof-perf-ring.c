// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-perf-ring-private.h"

/* A record's size is a u16, so one never exceeds this. */
#define MAX_RECORD_SIZE 65536

struct _SysprofPerfRing
{
  struct perf_event_mmap_page *page;
  guint8                      *data;
  guint64                      data_size;
  /* The mapping, when we made it. */
  gpointer map;
  gsize    map_len;
  guint    n_resyncs;
  /* Where records that wrap around the end of the data area are put back
   * together; u64 words keep it aligned like the ring. */
  guint64 scratch[MAX_RECORD_SIZE / sizeof (guint64)];
};

static gboolean
is_power_of_two (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

SysprofPerfRing *
_sysprof_perf_ring_new_for_memory (struct perf_event_mmap_page *page, guint8 *data, gsize data_size)
{
  SysprofPerfRing *ring;

  g_return_val_if_fail (page != NULL, NULL);
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (is_power_of_two (data_size) && data_size >= 8, NULL);

  ring = g_new0 (SysprofPerfRing, 1);
  ring->page = page;
  ring->data = data;
  ring->data_size = data_size;
  return ring;
}

SysprofPerfRing *
_sysprof_perf_ring_new_for_fd (int fd, guint *n_data_pages, GError **error)
{
  gsize page_size = (gsize) sysconf (_SC_PAGESIZE);
  guint n;

  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (n_data_pages != NULL && is_power_of_two (*n_data_pages), NULL);

  n = *n_data_pages;
  for (;;)
    {
      gsize                        map_len = (1 + (gsize) n) * page_size;
      gpointer                     map;
      struct perf_event_mmap_page *page;
      SysprofPerfRing             *ring;
      int                          saved;

      /* Writable, so that data_tail can be published: the kernel then never
       * overwrites records we have not read (it counts them as lost). */
      map = mmap (NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map == MAP_FAILED)
        {
          saved = errno;
          /* Locked-memory budget exhausted: fewer pages still record, with a
           * higher risk of losing records in bursts. */
          if ((saved == EPERM || saved == ENOMEM) && n > 1)
            {
              n /= 2;
              continue;
            }
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot map a perf ring buffer of %u pages: %s%s", n + 1, g_strerror (saved),
                       saved == EPERM ? " (raise RLIMIT_MEMLOCK or kernel.perf_event_mlock_kb)" : "");
          return NULL;
        }

      page = map;
      ring = g_new0 (SysprofPerfRing, 1);
      ring->map = map;
      ring->map_len = map_len;
      ring->page = page;
      /* data_offset and data_size exist since Linux 4.1; before, the data
       * area simply followed the control page. */
      if (page->data_size != 0 && page->data_offset + page->data_size <= map_len && is_power_of_two (page->data_size))
        {
          ring->data = (guint8 *) map + page->data_offset;
          ring->data_size = page->data_size;
        }
      else
        {
          ring->data = (guint8 *) map + page_size;
          ring->data_size = (guint64) n * page_size;
        }
      *n_data_pages = n;
      return ring;
    }
}

void
_sysprof_perf_ring_free (SysprofPerfRing *ring)
{
  if (ring == NULL)
    return;
  if (ring->map != NULL)
    munmap (ring->map, ring->map_len);
  g_free (ring);
}

guint
_sysprof_perf_ring_get_n_resyncs (SysprofPerfRing *ring)
{
  g_return_val_if_fail (ring != NULL, 0);
  return ring->n_resyncs;
}

/* Copies @len bytes starting at @offset of the data area, continuing at its
 * start when the end is reached. */
static void
copy_out (SysprofPerfRing *ring, guint64 offset, gpointer dest, gsize len)
{
  gsize first = MIN (len, ring->data_size - offset);

  memcpy (dest, ring->data + offset, first);
  if (first < len)
    memcpy ((guint8 *) dest + first, ring->data, len - first);
}

guint
_sysprof_perf_ring_drain (SysprofPerfRing *ring, SysprofPerfRecordFunc func, gpointer user_data)
{
  guint64 head;
  guint64 tail;
  guint   n = 0;

  g_return_val_if_fail (ring != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);

  /* Acquire pairs with the kernel's release of data_head: the records below
   * head are completely written once we see it. */
  head = __atomic_load_n (&ring->page->data_head, __ATOMIC_ACQUIRE);
  /* Only this side writes data_tail. */
  tail = ring->page->data_tail;

  /* The kernel never gets more than the data area ahead of the tail. */
  if (head - tail > ring->data_size)
    {
      ring->n_resyncs++;
      tail = head;
    }

  while (head - tail >= sizeof (struct perf_event_header))
    {
      struct perf_event_header        header;
      const struct perf_event_header *record;
      guint64                         offset = tail & (ring->data_size - 1);

      copy_out (ring, offset, &header, sizeof header);
      if (header.size < sizeof header || header.size % 8 != 0 || header.size > head - tail)
        {
          ring->n_resyncs++;
          tail = head;
          break;
        }

      if (offset + header.size <= ring->data_size)
        record = (const struct perf_event_header *) (ring->data + offset);
      else
        {
          copy_out (ring, offset, ring->scratch, header.size);
          record = (const struct perf_event_header *) ring->scratch;
        }

      func (record, user_data);
      n++;
      tail += header.size;
      /* Release: our reads of the record happen before the kernel may reuse
       * its space. */
      __atomic_store_n (&ring->page->data_tail, tail, __ATOMIC_RELEASE);
    }

  __atomic_store_n (&ring->page->data_tail, tail, __ATOMIC_RELEASE);
  return n;
}
