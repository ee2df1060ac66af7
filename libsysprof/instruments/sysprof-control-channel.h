// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_CONTROL_CHANNEL (sysprof_control_channel_get_type ())

/* The profiler's end of Sysprof's control-fd protocol: an AF_UNIX stream
 * socketpair whose other end a launched program finds in $SYSPROF_CONTROL_FD.
 * The program's collector sends the 10 bytes "CreatRing\0" for each thread
 * that needs a ring and waits for a 1-byte reply carrying the ring's memfd
 * (SCM_RIGHTS), or no fd when refused.
 *
 * The program is not trusted: anything but whole "CreatRing\0" requests ends
 * the channel (the collector then records nothing more), and at most
 * MAX_PENDING requests wait for an answer.  Requests are answered one at a
 * time and in order, as the protocol has no request ids. */
G_DECLARE_FINAL_TYPE (SysprofControlChannel, sysprof_control_channel, SYSPROF, CONTROL_CHANNEL, GObject)

/* Called for each request, in the channel's main context; answer it with
 * sysprof_control_channel_reply(), now or later. */
typedef void (*SysprofControlChannelRequest) (SysprofControlChannel *channel, gpointer user_data);
/* Called once when the channel ends because the program broke the protocol;
 * @message says how. */
typedef void (*SysprofControlChannelBroken) (SysprofControlChannel *channel, const char *message, gpointer user_data);

SysprofControlChannel *sysprof_control_channel_new (GError **error);
/* The program's end (close-on-exec: clear the flag in the child), valid until
 * sysprof_control_channel_close_child_fd(). */
int  sysprof_control_channel_get_child_fd (SysprofControlChannel *self);
void sysprof_control_channel_close_child_fd (SysprofControlChannel *self);
/* Starts serving requests from the thread-default main context. */
void sysprof_control_channel_start (SysprofControlChannel       *self,
                                    SysprofControlChannelRequest request,
                                    SysprofControlChannelBroken  broken,
                                    gpointer                     user_data);
/* Answers the oldest request with @ring_fd (not taken: the caller closes it),
 * or refuses it with -1. */
void sysprof_control_channel_reply (SysprofControlChannel *self, int ring_fd);
/* Stops serving and closes our end: the program's collector sees the channel
 * end.  Idempotent. */
void  sysprof_control_channel_close (SysprofControlChannel *self);
guint sysprof_control_channel_get_n_requests (SysprofControlChannel *self);

G_END_DECLS
