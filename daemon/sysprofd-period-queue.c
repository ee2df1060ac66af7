// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sysprof-dbus-contract.h"
#include "sysprofd-period-queue.h"

typedef struct
{
  guint   index;
  gint64  begin_usec;
  gint64  end_usec;
  guint64 bytes;
  int     fd;
} Period;

struct _SysprofdPeriodQueue
{
  GQueue  periods; /* Period, oldest at the head */
  guint64 bytes;
};

static void
period_free (Period *period)
{
  if (period->fd >= 0)
    close (period->fd);
  g_free (period);
}

SysprofdPeriodQueue *
sysprofd_period_queue_new (void)
{
  return g_new0 (SysprofdPeriodQueue, 1);
}

void
sysprofd_period_queue_free (SysprofdPeriodQueue *self)
{
  if (self == NULL)
    return;
  g_queue_clear_full (&self->periods, (GDestroyNotify) period_free);
  g_free (self);
}

guint
sysprofd_period_queue_push (SysprofdPeriodQueue *self, guint index, gint64 begin_usec, gint64 end_usec, int fd)
{
  Period     *period = g_new0 (Period, 1);
  struct stat st;
  guint       dropped = 0;

  period->index = index;
  period->begin_usec = begin_usec;
  period->end_usec = end_usec;
  period->fd = fd;
  period->bytes = fstat (fd, &st) == 0 ? (guint64) st.st_size : 0;
  g_queue_push_tail (&self->periods, period);
  self->bytes += period->bytes;

  /* The newest stays even alone above the byte bound: it is at most a
   * period's max-bytes, and it is what the owner will want. */
  while (self->periods.length > 1 &&
         (self->periods.length > SYSPROF_DBUS_MAX_HELD_PERIODS || self->bytes > SYSPROF_DBUS_MAX_HELD_PERIOD_BYTES))
    {
      Period *oldest = g_queue_pop_head (&self->periods);

      self->bytes -= oldest->bytes;
      period_free (oldest);
      dropped++;
    }
  return dropped;
}

GVariant *
sysprofd_period_queue_take_all (SysprofdPeriodQueue *self, GUnixFDList **fds, GError **error)
{
  g_autoptr (GUnixFDList) list = g_unix_fd_list_new ();
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(uttth)"));
  for (GList *l = self->periods.head; l != NULL; l = l->next)
    {
      Period          *period = l->data;
      g_autofree char *path = g_strdup_printf ("/proc/self/fd/%d", period->fd);
      int              ro, handle;

      /* The owner reads the file, never writes the daemon's copy of it. */
      if ((ro = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        {
          int saved = errno;

          g_variant_builder_clear (&builder);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot reopen period %u: %s", period->index,
                       g_strerror (saved));
          return NULL;
        }
      handle = g_unix_fd_list_append (list, ro, error);
      close (ro);
      if (handle < 0)
        {
          g_variant_builder_clear (&builder);
          return NULL;
        }
      g_variant_builder_add (&builder, "(uttth)", period->index, (guint64) period->begin_usec,
                             (guint64) period->end_usec, period->bytes, handle);
    }
  g_queue_clear_full (&self->periods, (GDestroyNotify) period_free);
  self->bytes = 0;
  *fds = g_steal_pointer (&list);
  return g_variant_new ("(a(uttth))", &builder);
}

GBytes *
sysprofd_period_queue_read (SysprofdPeriodQueue *self, guint index, guint64 offset, gsize max_len, GError **error)
{
  for (GList *l = self->periods.head; l != NULL; l = l->next)
    {
      Period            *period = l->data;
      g_autofree guint8 *buf = NULL;
      ssize_t            n;

      if (period->index != index)
        continue;
      if (offset >= period->bytes)
        return g_bytes_new (NULL, 0);
      max_len = (gsize) MIN ((guint64) max_len, period->bytes - offset);
      buf = g_malloc (MAX (max_len, 1));
      do
        n = pread (period->fd, buf, max_len, (off_t) offset);
      while (n < 0 && errno == EINTR);
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot read period %u: %s", index,
                       g_strerror (saved));
          return NULL;
        }
      return g_bytes_new_take (g_steal_pointer (&buf), (gsize) n);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Period %u is not held (taken, dropped or not finished)",
               index);
  return NULL;
}

guint
sysprofd_period_queue_forget_through (SysprofdPeriodQueue *self, guint index)
{
  guint n = 0;

  while (self->periods.length > 0 && ((Period *) g_queue_peek_head (&self->periods))->index <= index)
    {
      Period *period = g_queue_pop_head (&self->periods);

      self->bytes -= period->bytes;
      period_free (period);
      n++;
    }
  return n;
}

GVariant *
sysprofd_period_queue_list (SysprofdPeriodQueue *self)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("au"));
  for (GList *l = self->periods.head; l != NULL; l = l->next)
    g_variant_builder_add (&builder, "u", ((Period *) l->data)->index);
  return g_variant_builder_end (&builder);
}

guint
sysprofd_period_queue_get_length (SysprofdPeriodQueue *self)
{
  return self->periods.length;
}

guint64
sysprofd_period_queue_get_bytes (SysprofdPeriodQueue *self)
{
  return self->bytes;
}
