// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sysprofd-perf.h"

/* Below this period (ns of cpu-clock, or events) a caller could flood the
 * machine; the established daemon refuses it too, tracepoints excepted. */
#define MIN_SAMPLE_PERIOD 100000

typedef enum
{
  KIND_BOOL,
  KIND_U32,
  KIND_I32,
  KIND_U64,
} Kind;

static gboolean
lookup (GVariant *options, const char *key, Kind kind, guint64 *out, gboolean *found, GError **error)
{
  static const GVariantType *types[] = {
    [KIND_BOOL] = G_VARIANT_TYPE_BOOLEAN,
    [KIND_U32] = G_VARIANT_TYPE_UINT32,
    [KIND_I32] = G_VARIANT_TYPE_INT32,
    [KIND_U64] = G_VARIANT_TYPE_UINT64,
  };
  g_autoptr (GVariant) value = g_variant_lookup_value (options, key, NULL);

  *found = FALSE;
  if (value == NULL)
    return TRUE;
  if (!g_variant_is_of_type (value, types[kind]))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Option \"%s\" must be of type %s, not %s", key,
                   g_variant_type_peek_string (types[kind]), g_variant_get_type_string (value));
      return FALSE;
    }
  switch (kind)
    {
    case KIND_BOOL: *out = g_variant_get_boolean (value); break;
    case KIND_U32: *out = g_variant_get_uint32 (value); break;
    case KIND_I32: *out = (guint64) (gint64) g_variant_get_int32 (value); break;
    case KIND_U64: *out = g_variant_get_uint64 (value); break;
    default: g_assert_not_reached ();
    }
  *found = TRUE;
  return TRUE;
}

int
sysprofd_perf_event_open (GVariant *options, int pid, int cpu, int group_fd, guint64 flags, GError **error)
{
  struct perf_event_attr attr = { 0 };
  gboolean               found;
  guint64                v;
  int                    fd;

  g_return_val_if_fail (g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT), -1);

  attr.size = sizeof attr;
  attr.wakeup_events = 149;

#define GET(key, kind, field)                              \
  do                                                       \
    {                                                      \
      if (!lookup (options, key, kind, &v, &found, error)) \
        return -1;                                         \
      if (found)                                           \
        attr.field = v;                                    \
    }                                                      \
  while (0)

  GET ("type", KIND_U32, type);
  GET ("config", KIND_U64, config);
  GET ("sample_period", KIND_U64, sample_period);
  GET ("sample_type", KIND_U64, sample_type);
  GET ("wakeup_events", KIND_U32, wakeup_events);
  GET ("disabled", KIND_BOOL, disabled);
  GET ("sample_id_all", KIND_BOOL, sample_id_all);
  GET ("use_clockid", KIND_BOOL, use_clockid);
  GET ("comm", KIND_BOOL, comm);
  GET ("mmap", KIND_BOOL, mmap);
  GET ("mmap2", KIND_BOOL, mmap2);
  GET ("task", KIND_BOOL, task);
  GET ("exclude_idle", KIND_BOOL, exclude_idle);
  GET ("build_id", KIND_BOOL, build_id);
  GET ("sample_stack_user", KIND_U32, sample_stack_user);
  GET ("sample_regs_user", KIND_U64, sample_regs_user);
#undef GET

  if (!lookup (options, "clockid", KIND_I32, &v, &found, error))
    return -1;
  if (!attr.use_clockid || !found || (gint64) v < 0)
    {
      attr.use_clockid = 1;
      attr.clockid = CLOCK_MONOTONIC;
    }
  else
    attr.clockid = (int) (gint64) v;

  if (attr.type != PERF_TYPE_TRACEPOINT && attr.sample_period < MIN_SAMPLE_PERIOD)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   "sample_period %" G_GUINT64_FORMAT " is below the minimum of %d", (guint64) attr.sample_period,
                   MIN_SAMPLE_PERIOD);
      return -1;
    }

  if (flags & ~(guint64) (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   "Unknown perf_event_open flags 0x%" G_GINT64_MODIFIER "x", flags);
      return -1;
    }

  fd = (int) syscall (SYS_perf_event_open, &attr, pid, cpu, group_fd, (unsigned long) (flags | PERF_FLAG_FD_CLOEXEC));
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_DBUS_ERROR, saved == EMFILE ? G_DBUS_ERROR_LIMITS_EXCEEDED : G_DBUS_ERROR_FAILED,
                   "Failed to create perf counter: %s", g_strerror (saved));
      return -1;
    }
  return fd;
}
