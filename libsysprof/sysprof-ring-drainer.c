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

typedef struct
{
  SysprofRingDrainer *self;
  Ring               *ring;
} DrainData;

/* Takes every complete frame offered, in one go: the head moves once per
 * call, not once per frame. */
static bool
drain_cb (const void *data, size_t *len, void *user_data)
{
  DrainData          *d = user_data;
  SysprofRingDrainer *self = d->self;
  const guint8       *p = data;
  size_t              avail = *len;
  size_t              done = 0;

  while (avail - done >= sizeof (SysprofCaptureFrame))
    {
      SysprofCaptureFrame header;
      size_t              n;
      guint32             type;

      memcpy (&header, p + done, sizeof header);
      type = header.type;
      if (type == FRAME_END)
        {
          d->ring->ended = TRUE;
          done = avail;
          break;
        }
      if ((n = sysprof_capture_writer_add_untrusted (self->writer, p + done, avail - done)) == 0)
        {
          if (errno == EBADMSG)
            {
              /* Frame boundaries are lost: drop everything offered. */
              d->ring->invalid = TRUE;
              done = avail;
              break;
            }
          /* The writer failed (disk full): the frame is lost, not the ring.
           * Its header passed the checks, so its length can be skipped. */
          guint16 frame_len;

          memcpy (&frame_len, p + done, sizeof frame_len);
          n = frame_len;
          self->n_lost++;
        }
      else
        {
          self->n_frames++;
          if (type == SYSPROF_CAPTURE_FRAME_METADATA)
            count_reported (self, p + done, n);
        }
      done += n;
    }
  *len = done;
  return false;
}

/* Drains what @ring holds now (at most one ring's worth); FALSE once it
 * ended. */
static gboolean
ring_drain (SysprofRingDrainer *self, Ring *ring)
{
  DrainData d = { self, ring };

  if (ring->ended || self->writer == NULL)
    return !ring->ended;
  ring->invalid = FALSE;
  if (!sysprof_mapped_ring_buffer_drain (ring->buffer, drain_cb, &d))
    ring->invalid = TRUE;
  if (ring->invalid)
    {
      self->n_lost++;
      sysprof_mapped_ring_buffer_clear (ring->buffer);
    }
  return !ring->ended;
}

static gboolean
drain_all_cb (gpointer data)
{
  SysprofRingDrainer *self = data;

  for (guint i = 0; i < self->rings->len;)
    {
      if (ring_drain (self, g_ptr_array_index (self->rings, i)))
        i++;
      else
        g_ptr_array_remove_index_fast (self->rings, i);
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
    for (guint i = 0; i < self->rings->len; i++)
      ring_drain (self, g_ptr_array_index (self->rings, i));
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
