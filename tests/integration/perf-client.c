// SPDX-License-Identifier: GPL-3.0-or-later
/* perf-client: asks sysprofd for a cpu-clock perf event on one CPU through
 * org.gnome.Sysprof3.Service.PerfEventOpen, maps the fd it gets back, enables
 * it, burns CPU, and counts the samples in the ring.  Runs as an unprivileged
 * user: only the daemon may open the event.
 *   perf-client CPU    prints "samples N" and exits 0 when N > 0 */

#include <errno.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#define N_DATA_PAGES 8

/* The busy loop's result, kept so it is not optimized away. */
static volatile guint64 spin;

int
main (int argc, char **argv)
{
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GUnixFDList) out_fds = NULL;
  g_autoptr (GVariant) reply = NULL;
  GVariantBuilder              options;
  int                          cpu = argc > 1 ? atoi (argv[1]) : 0;
  long                         page = sysconf (_SC_PAGESIZE);
  struct perf_event_mmap_page *meta;
  guint8                      *map;
  guint64                      head, tail, samples = 0;
  gint32                       handle;
  int                          fd;

  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("perf-client: %s\n", error->message);
      return 1;
    }

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&options, "{sv}", "type", g_variant_new_uint32 (PERF_TYPE_SOFTWARE));
  g_variant_builder_add (&options, "{sv}", "config", g_variant_new_uint64 (PERF_COUNT_SW_CPU_CLOCK));
  g_variant_builder_add (&options, "{sv}", "sample_period", g_variant_new_uint64 (1000000));
  g_variant_builder_add (
      &options, "{sv}", "sample_type",
      g_variant_new_uint64 (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN));
  g_variant_builder_add (&options, "{sv}", "disabled", g_variant_new_boolean (TRUE));
  g_variant_builder_add (&options, "{sv}", "wakeup_events", g_variant_new_uint32 (1));

  reply = g_dbus_connection_call_with_unix_fd_list_sync (
      bus, "org.gnome.Sysprof3", "/org/gnome/Sysprof3", "org.gnome.Sysprof3.Service", "PerfEventOpen",
      g_variant_new ("(@a{sv}iiht)", g_variant_builder_end (&options), -1, cpu, -1, (guint64) 0),
      G_VARIANT_TYPE ("(h)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &out_fds, NULL, &error);
  if (reply == NULL)
    {
      g_printerr ("perf-client: PerfEventOpen: %s\n", error->message);
      return 1;
    }
  g_variant_get (reply, "(h)", &handle);
  fd = g_unix_fd_list_get (out_fds, handle, &error);
  if (fd < 0)
    {
      g_printerr ("perf-client: no fd: %s\n", error->message);
      return 1;
    }

  map = mmap (NULL, (size_t) page * (1 + N_DATA_PAGES), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    {
      g_printerr ("perf-client: mmap: %s\n", g_strerror (errno));
      return 1;
    }
  meta = (struct perf_event_mmap_page *) map;

  /* The event watches one CPU: make sure this busy loop runs there. */
  {
    cpu_set_t set;
    CPU_ZERO (&set);
    CPU_SET (cpu, &set);
    sched_setaffinity (0, sizeof set, &set);
  }

  if (ioctl (fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
    {
      g_printerr ("perf-client: enable: %s\n", g_strerror (errno));
      return 1;
    }
  for (gint64 end = g_get_monotonic_time () + 300000; g_get_monotonic_time () < end;)
    for (int i = 0; i < 100000; i++)
      spin += i;
  ioctl (fd, PERF_EVENT_IOC_DISABLE, 0);

  head = __atomic_load_n (&meta->data_head, __ATOMIC_ACQUIRE);
  tail = meta->data_tail;
  while (tail < head)
    {
      struct perf_event_header hdr;
      guint64                  off = tail % ((guint64) page * N_DATA_PAGES);

      if (off + sizeof hdr > (guint64) page * N_DATA_PAGES)
        break; /* wrapped header: good enough to stop counting here */
      memcpy (&hdr, map + page + off, sizeof hdr);
      if (hdr.size == 0)
        break;
      if (hdr.type == PERF_RECORD_SAMPLE)
        samples++;
      tail += hdr.size;
    }

  printf ("samples %" G_GUINT64_FORMAT "\n", samples);
  return samples > 0 ? 0 : 1;
}
