// SPDX-License-Identifier: GPL-3.0-or-later
/* The finished periods of a continuous session: handed out oldest first,
 * read-only, once; bounded in count and bytes, the oldest dropped. */

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sysprof-dbus-contract.h"
#include "sysprofd-period-queue.h"

/* A file of @size bytes (sparse: the bound counts the size, not the blocks). */
static int
file_of_size (guint64 size, guint tag)
{
  int fd = memfd_create ("period", MFD_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, &tag, sizeof tag), ==, sizeof tag);
  g_assert_cmpint (ftruncate (fd, (off_t) MAX (size, sizeof tag)), ==, 0);
  return fd;
}

/* Takes everything; checks the indices are @first..@first+@n-1, each fd
 * read-only with its tag. */
static void
take_and_check (SysprofdPeriodQueue *queue, guint first, guint n)
{
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) answer = sysprofd_period_queue_take_all (queue, &fds, &error);
  g_autoptr (GVariant) periods = NULL;
  GVariantIter iter;
  guint32      index;
  guint64      begin, end, bytes;
  gint32       handle;
  guint        i = 0;

  g_assert_no_error (error);
  g_assert_nonnull (answer);
  periods = g_variant_get_child_value (answer, 0);
  g_assert_cmpuint (g_variant_n_children (periods), ==, n);
  g_variant_iter_init (&iter, periods);
  while (g_variant_iter_next (&iter, "(uttth)", &index, &begin, &end, &bytes, &handle))
    {
      int   fd = g_unix_fd_list_get (fds, handle, &error);
      guint tag = 0;

      g_assert_no_error (error);
      g_assert_cmpuint (index, ==, first + i);
      g_assert_cmpuint (begin, ==, (guint64) index * 10);
      g_assert_cmpuint (end, ==, (guint64) index * 10 + 10);
      g_assert_cmpint (fcntl (fd, F_GETFL) & O_ACCMODE, ==, O_RDONLY);
      g_assert_cmpint (pread (fd, &tag, sizeof tag, 0), ==, sizeof tag);
      g_assert_cmpuint (tag, ==, index);
      g_assert_cmpint (write (fd, "x", 1), ==, -1);
      close (fd);
      i++;
    }
  g_assert_cmpuint (sysprofd_period_queue_get_length (queue), ==, 0);
  g_assert_cmpuint (sysprofd_period_queue_get_bytes (queue), ==, 0);
}

static void
test_order_and_count (void)
{
  g_autoptr (SysprofdPeriodQueue) queue = sysprofd_period_queue_new ();
  guint dropped = 0;

  take_and_check (queue, 1, 0);
  for (guint i = 1; i <= SYSPROF_DBUS_MAX_HELD_PERIODS + 3; i++)
    dropped += sysprofd_period_queue_push (queue, i, i * 10, i * 10 + 10, file_of_size (4096, i));
  g_assert_cmpuint (dropped, ==, 3);
  g_assert_cmpuint (sysprofd_period_queue_get_length (queue), ==, SYSPROF_DBUS_MAX_HELD_PERIODS);
  take_and_check (queue, 4, SYSPROF_DBUS_MAX_HELD_PERIODS);
  /* Taken once: nothing is handed out twice. */
  take_and_check (queue, 1, 0);
  g_assert_cmpuint (sysprofd_period_queue_push (queue, 20, 200, 210, file_of_size (10, 20)), ==, 0);
  take_and_check (queue, 20, 1);
}

static void
test_bytes (void)
{
  g_autoptr (SysprofdPeriodQueue) queue = sysprofd_period_queue_new ();
  guint64 third = SYSPROF_DBUS_MAX_HELD_PERIOD_BYTES / 3 + 1;

  g_assert_cmpuint (sysprofd_period_queue_push (queue, 1, 10, 20, file_of_size (third, 1)), ==, 0);
  g_assert_cmpuint (sysprofd_period_queue_push (queue, 2, 20, 30, file_of_size (third, 2)), ==, 0);
  /* The third passes the bound: the first goes. */
  g_assert_cmpuint (sysprofd_period_queue_push (queue, 3, 30, 40, file_of_size (third, 3)), ==, 1);
  g_assert_cmpuint (sysprofd_period_queue_get_bytes (queue), ==, 2 * third);
  /* One period above the bound alone stays: it is what the owner wants. */
  g_assert_cmpuint (
      sysprofd_period_queue_push (queue, 4, 40, 50, file_of_size (SYSPROF_DBUS_MAX_HELD_PERIOD_BYTES + 1, 4)), ==, 2);
  take_and_check (queue, 4, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Daemon/PeriodQueue/order-and-count", test_order_and_count);
  g_test_add_func ("/Daemon/PeriodQueue/bytes", test_bytes);
  return g_test_run ();
}
