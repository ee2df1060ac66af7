// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-unwind-client-private.h is private to libsysprof/instruments."
#endif

#include <gio/gio.h>

#include "sysprof-unwind-wire.h"

G_BEGIN_DECLS

/* The recorder's side of the unwinding helper (sysprof-unwind-wire.h): starts
 * the helper, hands it the files that processes map (opened here, where the
 * privilege is, each distinct file once, checked to be the inode the process
 * maps) and their executable mappings, and the copied stacks of samples; the
 * answers come back in order through a callback.
 *
 * A helper that dies, misbehaves or does not answer within
 * SYSPROF_UNWIND_CLIENT_TIMEOUT_MS is killed: every sample still waiting and
 * every later one is answered at once with SYSPROF_UNWIND_STATUS_FAILED and no
 * address, and get_failure() says why.  Not thread-safe. */
typedef struct _SysprofUnwindClient SysprofUnwindClient;

#define SYSPROF_UNWIND_CLIENT_TIMEOUT_MS 5000

/* @seq is the one given to submit(); @addrs innermost first. */
typedef void (*SysprofUnwindFramesFunc) (
    guint64 seq, SysprofUnwindStatus status, const guint64 *addrs, guint n_addrs, gpointer user_data);

/* Starts @helper_path.  NULL with a GError when it cannot be started. */
SysprofUnwindClient *
_sysprof_unwind_client_new (const char *helper_path, SysprofUnwindFramesFunc func, gpointer user_data, GError **error);
/* Closes the socket and reaps the helper; pending samples are answered as
 * failed first. */
void _sysprof_unwind_client_free (SysprofUnwindClient *self);

/* An executable mapping of @pid, as a PERF_RECORD_MMAP2 describes it
 * (@maj/@min/@ino 0 when unknown: the file is then checked less).  The
 * process's other mappings are read from /proc/PID/maps first if it is not
 * known yet. */
void _sysprof_unwind_client_add_map (SysprofUnwindClient *self,
                                     gint32               pid,
                                     guint64              start,
                                     guint64              end,
                                     guint64              pgoff,
                                     guint32              maj,
                                     guint32              min,
                                     guint64              ino,
                                     const char          *filename);
/* @child was forked by @parent at @time: until it execs it runs with its
 * parent's mappings (and, when the parent is not known yet, they are read
 * from /proc/PARENT/maps first).  Ignored when records of the child were
 * handled already, or its exec or exit at a later time (records of other
 * CPUs come in other batches). */
void _sysprof_unwind_client_fork (SysprofUnwindClient *self, gint32 parent, gint32 child, gint64 time);
/* @pid exec'd or exited at @time: its mappings are read again when next
 * needed. */
void _sysprof_unwind_client_forget (SysprofUnwindClient *self, gint32 pid, gint64 time);
/* Queues a sample; answers may be delivered during the call (for earlier
 * samples) or later.  @regs in the wire's DWARF order. */
void _sysprof_unwind_client_submit (SysprofUnwindClient *self,
                                    guint64              seq,
                                    gint32               pid,
                                    gint32               tid,
                                    const guint64       *regs,
                                    const guint8        *stack,
                                    gsize                stack_len);
/* Delivers the answer of every queued sample before returning. */
void  _sysprof_unwind_client_flush (SysprofUnwindClient *self);
guint _sysprof_unwind_client_get_n_pending (SysprofUnwindClient *self);
/* At the end of a recording: waits at most @budget_ms for the answers still
 * due, then stops the helper (the rest are answered as failed); returns how
 * many were left.  A recording's end must not wait for a slow helper. */
guint _sysprof_unwind_client_finish (SysprofUnwindClient *self, guint budget_ms);
/* NULL while the helper works; else why it stopped. */
const char *_sysprof_unwind_client_get_failure (SysprofUnwindClient *self);
/* The helper's pid, 0 once it is gone (tests). */
GPid _sysprof_unwind_client_get_helper_pid (SysprofUnwindClient *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofUnwindClient, _sysprof_unwind_client_free)

G_END_DECLS
