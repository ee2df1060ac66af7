// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The helper's side of the unwinding protocol (sysprof-unwind-wire.h): one
 * datagram in, at most one out.  Everything in a datagram is hostile input
 * to this side (the stacks and the files come from profiled programs): a
 * message of the wrong size or type is dropped, never trusted.  The fuzz
 * target tests/fuzz/fuzz-unwind-server.c drives this directly. */
typedef struct _SysprofUnwindServer SysprofUnwindServer;

/* Room for the largest reply: FRAMES with SYSPROF_UNWIND_MAX_FRAMES addresses. */
#define SYSPROF_UNWIND_SERVER_REPLY_SIZE (24 + 8 * 128)

SysprofUnwindServer *sysprof_unwind_server_new (void);
void                 sysprof_unwind_server_free (SysprofUnwindServer *self);
/* Handles the datagram @msg of @len bytes that came with the descriptors
 * @fds (all taken: kept by a FILE message, closed otherwise).  Returns the
 * length of the reply written to @reply (of SYSPROF_UNWIND_SERVER_REPLY_SIZE
 * bytes), 0 when there is none. */
gsize sysprof_unwind_server_handle (
    SysprofUnwindServer *self, const guint8 *msg, gsize len, const int *fds, guint n_fds, guint8 *reply);
/* Counters for the helper's own messages. */
guint64 sysprof_unwind_server_get_n_dropped (SysprofUnwindServer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofUnwindServer, sysprof_unwind_server_free)

G_END_DECLS
