// SPDX-License-Identifier: GPL-3.0-or-later
#define SYSPROF_COMPILATION 1

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sysprof-ring-drainer.h"

#define DEFAULT_MAX_RINGS 1024
#define DRAIN_MS          1
/* Sysprof's collector ends a ring with a bare frame header of this type. */
#define FRAME_END 0xFF

typedef struct
{
  SysprofMappedRingBuffer *buffer;
  gboolean                 ended;
  gboolean                 invalid;
} Ring;

struct _SysprofRingDrainer
{
  GObject parent_instance;

  SysprofCaptureWriter *writer;
  GPtrArray            *rings; /* of Ring */
  guint                 max_rings;
  guint                 source;
  GMainContext         *context;
  gboolean              closed;
  guint64               n_frames;
  guint64               n_lost;
  guint64               n_reported;
};

G_DEFINE_FINAL_TYPE (SysprofRingDrainer, sysprof_ring_drainer, G_TYPE_OBJECT)

static void
ring_free (gpointer data)
{
  Ring *ring = data;

  g_clear_pointer (&ring->buffer, sysprof_mapped_ring_buffer_unref);
  g_free (ring);
}

static void
sysprof_ring_drainer_finalize (GObject *object)
{
  SysprofRingDrainer *self = SYSPROF_RING_DRAINER (object);

  g_clear_handle_id (&self->source, g_source_remove);
  g_clear_pointer (&self->rings, g_ptr_array_unref);
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (sysprof_ring_drainer_parent_class)->finalize (object);
}

static void
sysprof_ring_drainer_class_init (SysprofRingDrainerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_ring_drainer_finalize;
}

static void
sysprof_ring_drainer_init (SysprofRingDrainer *self)
{
  self->rings = g_ptr_array_new_with_free_func (ring_free);
}

SysprofRingDrainer *
sysprof_ring_drainer_new (guint max_rings)
{
  SysprofRingDrainer *self = g_object_new (SYSPROF_TYPE_RING_DRAINER, NULL);

  self->max_rings = max_rings ? max_rings : DEFAULT_MAX_RINGS;
  self->context = g_main_context_ref_thread_default ();
  return self;
}

void
sysprof_ring_drainer_set_writer (SysprofRingDrainer *self, SysprofCaptureWriter *writer)
{
  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));
  g_return_if_fail (writer != NULL);

  if (self->writer == writer)
    return;
  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  self->writer = sysprof_capture_writer_ref (writer);
}

/* Producers report the events they lost in METADATA frames of their own;
 * counting them as they pass gives a live figure. */
static void
count_reported (SysprofRingDrainer *self, const guint8 *frame, size_t len)
{
  const SysprofCaptureMetadata *meta = (const SysprofCaptureMetadata *) (const void *) frame;

  if (len > sizeof *meta && strncmp (meta->id, SYSPROF_LOST_EVENTS_METADATA_ID, sizeof meta->id) == 0)
    self->n_reported += g_ascii_strtoull (meta->metadata, NULL, 10);
}

/* Where the merge stands in one ring's published bytes. */
typedef struct
{
  Ring         *ring;
  const guint8 *data;
  size_t        avail;
  size_t        pos;
  gint64        next_time;
  gboolean      has_next;
} Cursor;

/* Looks at the header of the next frame: its time for the merge, or the
 * end of the ring.  Bytes that cannot start a frame make the ring invalid. */
static void
cursor_next (Cursor *c)
{
  SysprofCaptureFrame header;

  c->has_next = FALSE;
  if (c->pos == c->avail)
    return;
  if (c->avail - c->pos < sizeof header)
    {
      c->ring->invalid = TRUE;
      return;
    }
  memcpy (&header, c->data + c->pos, sizeof header);
  if (header.type == FRAME_END)
    {
      c->ring->ended = TRUE;
      c->pos = c->avail;
      return;
    }
  c->next_time = header.time;
  c->has_next = TRUE;
}

/* Copies the frame at @c into the writer; FALSE when the ring is invalid. */
static gboolean
copy_frame (SysprofRingDrainer *self, Cursor *c)
{
  const guint8 *frame = c->data + c->pos;
  size_t        n = sysprof_capture_writer_add_untrusted (self->writer, frame, c->avail - c->pos);

  if (n == 0 && errno == EBADMSG)
    return FALSE;
  if (n == 0)
    {
      /* The writer failed (disk full): the frame is lost, not the ring.
       * Its header passed the checks, so its length can be skipped. */
      guint16 frame_len;

      memcpy (&frame_len, frame, sizeof frame_len);
      n = frame_len;
      self->n_lost++;
    }
  else
    {
      self->n_frames++;
      if (((const SysprofCaptureFrame *) (const void *) frame)->type == SYSPROF_CAPTURE_FRAME_METADATA)
        count_reported (self, frame, n);
    }
  c->pos += n;
  return TRUE;
}

/* Copies what every ring holds now, merged by time: each ring is in time
 * order (one thread writes it), and a reader of the capture sees an
 * allocation before a free of it done by another thread just after.  The
 * merge costs a scan of the rings per frame; a program has few threads
 * writing at once. */
static void
drain_pass (SysprofRingDrainer *self)
{
  g_autofree Cursor *cursors = NULL;
  guint              n = self->rings->len;

  if (self->writer == NULL || n == 0)
    return;
  cursors = g_new0 (Cursor, n);
  for (guint i = 0; i < n; i++)
    {
      Cursor *c = &cursors[i];

      c->ring = g_ptr_array_index (self->rings, i);
      c->ring->invalid = FALSE;
      if (c->ring->ended)
        continue;
      if ((c->data = sysprof_mapped_ring_buffer_peek (c->ring->buffer, &c->avail)) == NULL)
        {
          c->ring->invalid = TRUE;
          continue;
        }
      cursor_next (c);
    }

  for (;;)
    {
      Cursor *best = NULL;

      for (guint i = 0; i < n; i++)
        if (cursors[i].has_next && (best == NULL || cursors[i].next_time < best->next_time))
          best = &cursors[i];
      if (best == NULL)
        break;
      if (!copy_frame (self, best))
        {
          /* Frame boundaries are lost: drop what the ring holds. */
          best->ring->invalid = TRUE;
          best->has_next = FALSE;
          continue;
        }
      cursor_next (best);
    }

  for (guint i = 0; i < n; i++)
    {
      Cursor *c = &cursors[i];

      if (c->data == NULL && !c->ring->invalid)
        continue;
      if (c->ring->invalid || !sysprof_mapped_ring_buffer_consume (c->ring->buffer, c->pos))
        {
          self->n_lost++;
          sysprof_mapped_ring_buffer_clear (c->ring->buffer);
        }
    }
}

static gboolean
drain_all_cb (gpointer data)
{
  SysprofRingDrainer *self = data;

  drain_pass (self);
  for (guint i = 0; i < self->rings->len;)
    {
      Ring *ring = g_ptr_array_index (self->rings, i);

      if (ring->ended)
        g_ptr_array_remove_index (self->rings, i);
      else
        i++;
    }
  if (self->rings->len == 0)
    {
      self->source = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
ensure_source (SysprofRingDrainer *self)
{
  GSource *source;

  if (self->source != 0)
    return;
  source = g_timeout_source_new (DRAIN_MS);
  /* Ahead of D-Bus calls and perf records: a full ring stalls its producer. */
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, drain_all_cb, self, NULL);
  g_source_set_static_name (source, "[sysprof-ring-drainer]");
  self->source = g_source_attach (source, self->context);
  g_source_unref (source);
}

int
sysprof_ring_drainer_create_ring (SysprofRingDrainer *self, guint n_pages, GError **error)
{
  Ring *ring;
  int   fd;

  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), -1);

  if (n_pages == 0)
    n_pages = SYSPROF_RING_DRAINER_DEFAULT_PAGES;
  if ((n_pages & (n_pages - 1)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "a ring buffer has a power of two of data pages, not %u", n_pages);
      return -1;
    }
  if (n_pages > SYSPROF_RING_DRAINER_MAX_PAGES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "a ring buffer has at most %u data pages, not %u",
                   SYSPROF_RING_DRAINER_MAX_PAGES, n_pages);
      return -1;
    }
  if (self->closed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "the recording no longer takes ring buffers");
      return -1;
    }
  if (self->rings->len >= self->max_rings)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                   "at most %u ring buffers may be open at once (one per thread of a traced program)", self->max_rings);
      return -1;
    }

  ring = g_new0 (Ring, 1);
  if (!(ring->buffer = sysprof_mapped_ring_buffer_new_reader ((size_t) n_pages * (size_t) sysconf (_SC_PAGESIZE))) ||
      (fd = sysprof_mapped_ring_buffer_dup_fd (ring->buffer)) < 0)
    {
      int saved = errno;

      ring_free (ring);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create a ring buffer: %s",
                   g_strerror (saved));
      return -1;
    }
  g_ptr_array_add (self->rings, ring);
  ensure_source (self);
  return fd;
}

void
sysprof_ring_drainer_close (SysprofRingDrainer *self)
{
  g_return_if_fail (SYSPROF_IS_RING_DRAINER (self));

  if (self->closed)
    return;
  self->closed = TRUE;
  g_clear_handle_id (&self->source, g_source_remove);
  /* Each pass takes at most one ring's worth; a producer still running could
   * keep us here, so a few passes and no more. */
  for (guint pass = 0; pass < 4; pass++)
    drain_pass (self);
  g_ptr_array_set_size (self->rings, 0);
  if (self->writer != NULL && self->n_lost > 0)
    {
      g_autofree char *text = g_strdup_printf (
          "%" G_GUINT64_FORMAT " ring buffers: invalid frames or frames that could not be written", self->n_lost);

      sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                           SYSPROF_LOST_EVENTS_METADATA_ID, text, -1);
    }
}

guint
sysprof_ring_drainer_get_n_rings (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return self->rings->len;
}

guint64
sysprof_ring_drainer_get_n_frames (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return self->n_frames;
}

guint64
sysprof_ring_drainer_get_n_lost (SysprofRingDrainer *self)
{
  g_return_val_if_fail (SYSPROF_IS_RING_DRAINER (self), 0);
  return self->n_lost + self->n_reported;
}
