// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The finished periods a continuous session holds until its owner takes
 * them (Session.TakePeriods): each a private unlinked capture file.  Bounded
 * in count and bytes (SYSPROF_DBUS_MAX_HELD_PERIODS, _BYTES): a client that
 * takes nothing costs the daemon a fixed amount of disk, the oldest periods
 * are dropped and counted.  Used from the session's thread only. */
typedef struct _SysprofdPeriodQueue SysprofdPeriodQueue;

SysprofdPeriodQueue *sysprofd_period_queue_new (void);
void                 sysprofd_period_queue_free (SysprofdPeriodQueue *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofdPeriodQueue, sysprofd_period_queue_free)

/* Holds the capture in @fd (taken) as period @index, recorded from @begin_usec
 * to @end_usec (Unix time); drops the oldest periods while the bounds are
 * passed and returns how many were dropped. */
guint sysprofd_period_queue_push (SysprofdPeriodQueue *self, guint index, gint64 begin_usec, gint64 end_usec, int fd);
/* Every period held, oldest first, as TakePeriods answers them ("(a(uttth))"
 * with the fds in *@fds, read-only), and forgets them.  NULL with @error when
 * a file cannot be reopened read-only: nothing is forgotten then. */
GVariant *sysprofd_period_queue_take_all (SysprofdPeriodQueue *self, GUnixFDList **fds, GError **error);
/* For clients that cannot receive fds (busctl): up to @max_len bytes of
 * held period @index at @offset (empty at its end), and forgetting the
 * periods up to @index (returns how many). */
GBytes *
sysprofd_period_queue_read (SysprofdPeriodQueue *self, guint index, guint64 offset, gsize max_len, GError **error);
guint sysprofd_period_queue_forget_through (SysprofdPeriodQueue *self, guint index);
/* The held periods' indices, oldest first, as "au". */
GVariant *sysprofd_period_queue_list (SysprofdPeriodQueue *self);
guint     sysprofd_period_queue_get_length (SysprofdPeriodQueue *self);
guint64   sysprofd_period_queue_get_bytes (SysprofdPeriodQueue *self);

G_END_DECLS
