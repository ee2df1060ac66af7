// SPDX-License-Identifier: GPL-3.0-or-later
#include <sys/resource.h>

#include "sysprof-dbus-contract.h"
#include "sysprofd-budget.h"

/* Kept free for the daemon itself: the bus connection, polkit, GLib's
 * wakeup fds (GLib aborts when it cannot make one), worker threads opening
 * /proc files, files of a session being finalized. */
#define FD_RESERVE 256

typedef struct
{
  guint64 used[SYSPROFD_N_RESOURCES];
} Usage;

static GMutex      lock;
static GHashTable *per_uid; /* uid -> Usage */
static Usage       total;
static guint64     fd_limit = 1024 - FD_RESERVE;

static const char *const names[] = {
  [SYSPROFD_RESOURCE_SESSION] = "sessions",
  [SYSPROFD_RESOURCE_RING] = "ring buffers",
  [SYSPROFD_RESOURCE_RING_BYTES] = "bytes of ring buffers",
  [SYSPROFD_RESOURCE_FD] = "file descriptors",
  [SYSPROFD_RESOURCE_CONTINUOUS] = "continuous sessions",
};

static guint64
limit_per_uid (SysprofdResource what)
{
  switch (what)
    {
    case SYSPROFD_RESOURCE_SESSION: return SYSPROF_DBUS_MAX_SESSIONS_PER_UID;
    case SYSPROFD_RESOURCE_RING: return SYSPROF_DBUS_MAX_RINGS_PER_UID;
    case SYSPROFD_RESOURCE_RING_BYTES: return SYSPROF_DBUS_MAX_RING_BYTES_PER_UID;
    /* A quarter of them: four users at their limits leave the daemon working. */
    case SYSPROFD_RESOURCE_FD: return fd_limit / 4;
    /* More only with polkit's SYSPROF_DBUS_ACTION_CONTINUOUS_MANY, which
     * the session charges as sessions only. */
    case SYSPROFD_RESOURCE_CONTINUOUS: return SYSPROF_DBUS_MAX_CONTINUOUS_PER_UID;
    case SYSPROFD_N_RESOURCES:
    default: g_assert_not_reached ();
    }
}

static guint64
limit_total (SysprofdResource what)
{
  switch (what)
    {
    case SYSPROFD_RESOURCE_SESSION: return SYSPROF_DBUS_MAX_SESSIONS;
    case SYSPROFD_RESOURCE_RING: return SYSPROF_DBUS_MAX_RINGS;
    case SYSPROFD_RESOURCE_RING_BYTES: return SYSPROF_DBUS_MAX_RING_BYTES;
    case SYSPROFD_RESOURCE_FD: return fd_limit;
    case SYSPROFD_RESOURCE_CONTINUOUS: return SYSPROF_DBUS_MAX_CONTINUOUS;
    case SYSPROFD_N_RESOURCES:
    default: g_assert_not_reached ();
    }
}

void
sysprofd_budget_init (void)
{
  struct rlimit rl;

  if (getrlimit (RLIMIT_NOFILE, &rl) == 0)
    {
      if (rl.rlim_cur < rl.rlim_max)
        {
          rl.rlim_cur = rl.rlim_max;
          if (setrlimit (RLIMIT_NOFILE, &rl) != 0)
            getrlimit (RLIMIT_NOFILE, &rl);
        }
      g_mutex_lock (&lock);
      fd_limit = rl.rlim_cur > 2 * FD_RESERVE ? (guint64) rl.rlim_cur - FD_RESERVE : FD_RESERVE;
      g_mutex_unlock (&lock);
    }
  g_message ("File descriptor budget for sessions: %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " per user)", fd_limit,
             fd_limit / 4);
}

static char *
format_amount (SysprofdResource what, guint64 amount)
{
  if (what == SYSPROFD_RESOURCE_RING_BYTES)
    return g_format_size_full (amount, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, amount);
}

gboolean
sysprofd_budget_charge (guint32 uid, SysprofdResource what, guint64 amount, GError **error)
{
  Usage  *usage;
  guint64 per_uid_limit, total_limit;

  g_return_val_if_fail (what < SYSPROFD_N_RESOURCES, FALSE);

  g_mutex_lock (&lock);
  if (per_uid == NULL)
    per_uid = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  if ((usage = g_hash_table_lookup (per_uid, GUINT_TO_POINTER (uid))) == NULL)
    {
      usage = g_new0 (Usage, 1);
      g_hash_table_insert (per_uid, GUINT_TO_POINTER (uid), usage);
    }
  per_uid_limit = limit_per_uid (what);
  total_limit = limit_total (what);
  if (amount > per_uid_limit || usage->used[what] > per_uid_limit - amount)
    {
      g_autofree char *held = format_amount (what, usage->used[what]);
      g_autofree char *asked = format_amount (what, amount);
      g_autofree char *limit = format_amount (what, per_uid_limit);

      g_mutex_unlock (&lock);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                   "uid %u holds %s %s and asks for %s more: the limit per user is %s", uid, held, names[what], asked,
                   limit);
      return FALSE;
    }
  if (amount > total_limit || total.used[what] > total_limit - amount)
    {
      g_autofree char *held = format_amount (what, total.used[what]);
      g_autofree char *limit = format_amount (what, total_limit);

      g_mutex_unlock (&lock);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                   "sysprofd holds %s %s for all users, its limit is %s; try again later", held, names[what], limit);
      return FALSE;
    }
  usage->used[what] += amount;
  total.used[what] += amount;
  g_mutex_unlock (&lock);
  return TRUE;
}

void
sysprofd_budget_release (guint32 uid, SysprofdResource what, guint64 amount)
{
  Usage *usage;

  g_return_if_fail (what < SYSPROFD_N_RESOURCES);

  g_mutex_lock (&lock);
  usage = per_uid ? g_hash_table_lookup (per_uid, GUINT_TO_POINTER (uid)) : NULL;
  if (usage == NULL || usage->used[what] < amount || total.used[what] < amount)
    {
      g_mutex_unlock (&lock);
      g_critical ("Releasing %" G_GUINT64_FORMAT " %s of uid %u that were never charged", amount, names[what], uid);
      return;
    }
  usage->used[what] -= amount;
  total.used[what] -= amount;
  {
    gboolean empty = TRUE;

    for (guint i = 0; i < SYSPROFD_N_RESOURCES; i++)
      empty &= usage->used[i] == 0;
    if (empty)
      g_hash_table_remove (per_uid, GUINT_TO_POINTER (uid));
  }
  g_mutex_unlock (&lock);
}

gboolean
sysprofd_budget_fits_uid (guint32 uid, SysprofdResource what, guint64 amount)
{
  Usage   *usage;
  gboolean fits;

  g_return_val_if_fail (what < SYSPROFD_N_RESOURCES, FALSE);

  g_mutex_lock (&lock);
  usage = per_uid ? g_hash_table_lookup (per_uid, GUINT_TO_POINTER (uid)) : NULL;
  fits = amount <= limit_per_uid (what) && (usage == NULL || usage->used[what] <= limit_per_uid (what) - amount);
  g_mutex_unlock (&lock);
  return fits;
}
