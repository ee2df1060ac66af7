// SPDX-License-Identifier: GPL-3.0-or-later

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "sysprof-control-channel.h"

#define REQUEST     "CreatRing"
#define REQUEST_LEN sizeof REQUEST /* with its NUL */
/* A program has one request in flight (its collector serializes them); a
 * backlog this long means it is not a collector talking. */
#define MAX_PENDING 1024

struct _SysprofControlChannel
{
  GObject parent_instance;

  int                          fd;
  int                          child_fd;
  guint                        watch;
  char                         buf[REQUEST_LEN];
  gsize                        buf_len;
  guint                        pending; /* requests received, not answered */
  gboolean                     in_call; /* the oldest was handed to request */
  guint                        n_requests;
  SysprofControlChannelRequest request;
  SysprofControlChannelBroken  broken;
  gpointer                     user_data;
};

G_DEFINE_FINAL_TYPE (SysprofControlChannel, sysprof_control_channel, G_TYPE_OBJECT)

static void
sysprof_control_channel_finalize (GObject *object)
{
  SysprofControlChannel *self = SYSPROF_CONTROL_CHANNEL (object);

  sysprof_control_channel_close (self);
  sysprof_control_channel_close_child_fd (self);
  G_OBJECT_CLASS (sysprof_control_channel_parent_class)->finalize (object);
}

static void
sysprof_control_channel_class_init (SysprofControlChannelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_control_channel_finalize;
}

static void
sysprof_control_channel_init (SysprofControlChannel *self)
{
  self->fd = -1;
  self->child_fd = -1;
}

SysprofControlChannel *
sysprof_control_channel_new (GError **error)
{
  SysprofControlChannel *self;
  int                    sv[2];

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create the control socket: %s",
                   g_strerror (saved));
      return NULL;
    }
  self = g_object_new (SYSPROF_TYPE_CONTROL_CHANNEL, NULL);
  self->fd = sv[0];
  self->child_fd = sv[1];
  return self;
}

int
sysprof_control_channel_get_child_fd (SysprofControlChannel *self)
{
  g_return_val_if_fail (SYSPROF_IS_CONTROL_CHANNEL (self), -1);
  return self->child_fd;
}

void
sysprof_control_channel_close_child_fd (SysprofControlChannel *self)
{
  g_return_if_fail (SYSPROF_IS_CONTROL_CHANNEL (self));
  if (self->child_fd >= 0)
    close (self->child_fd);
  self->child_fd = -1;
}

static void
broken (SysprofControlChannel *self, const char *message)
{
  SysprofControlChannelBroken func = self->broken;

  sysprof_control_channel_close (self);
  if (func != NULL)
    func (self, message, self->user_data);
}

/* Hands the oldest waiting request over, unless one is being answered. */
static void
dispatch (SysprofControlChannel *self)
{
  if (self->in_call || self->pending == 0 || self->fd < 0)
    return;
  self->in_call = TRUE;
  self->request (self, self->user_data);
}

static gboolean
readable_cb (int fd, GIOCondition condition, gpointer data)
{
  SysprofControlChannel *self = data;
  /* A callback may drop the last other reference. */
  g_autoptr (SysprofControlChannel) hold = g_object_ref (self);
  ssize_t n;

  (void) condition;
  (void) hold;
  do
    n = recv (fd, self->buf + self->buf_len, sizeof self->buf - self->buf_len, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    return G_SOURCE_CONTINUE;
  if (n <= 0)
    {
      /* The program (and every copy of its end) is gone. */
      self->watch = 0;
      sysprof_control_channel_close (self);
      return G_SOURCE_REMOVE;
    }
  self->buf_len += (gsize) n;
  if (memcmp (self->buf, REQUEST, self->buf_len) != 0)
    {
      self->watch = 0;
      broken (self, "the traced program sent something other than \"CreatRing\" requests on its control socket");
      return G_SOURCE_REMOVE;
    }
  if (self->buf_len < REQUEST_LEN)
    return G_SOURCE_CONTINUE;
  self->buf_len = 0;
  self->n_requests++;
  if (++self->pending > MAX_PENDING)
    {
      self->watch = 0;
      broken (self, "the traced program sent too many ring requests without waiting for the answers");
      return G_SOURCE_REMOVE;
    }
  dispatch (self);
  return self->fd >= 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

void
sysprof_control_channel_start (SysprofControlChannel       *self,
                               SysprofControlChannelRequest request,
                               SysprofControlChannelBroken  broken_func,
                               gpointer                     user_data)
{
  g_return_if_fail (SYSPROF_IS_CONTROL_CHANNEL (self));
  g_return_if_fail (request != NULL);
  g_return_if_fail (self->watch == 0);

  if (self->fd < 0)
    return;
  self->request = request;
  self->broken = broken_func;
  self->user_data = user_data;
  self->watch = g_unix_fd_add (self->fd, G_IO_IN | G_IO_HUP | G_IO_ERR, readable_cb, self);
}

void
sysprof_control_channel_reply (SysprofControlChannel *self, int ring_fd)
{
  union
  {
    struct cmsghdr hdr;
    char           buf[CMSG_SPACE (sizeof (int))];
  } control;
  struct msghdr msg;
  struct iovec  iov;
  char          byte = 0;
  ssize_t       n;

  g_return_if_fail (SYSPROF_IS_CONTROL_CHANNEL (self));

  if (!self->in_call)
    return;
  self->in_call = FALSE;
  if (self->fd < 0)
    return;
  self->pending--;

  memset (&msg, 0, sizeof msg);
  memset (&control, 0, sizeof control);
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (ring_fd >= 0)
    {
      struct cmsghdr *cmsg;

      msg.msg_control = control.buf;
      msg.msg_controllen = sizeof control.buf;
      cmsg = CMSG_FIRSTHDR (&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (cmsg), &ring_fd, sizeof ring_fd);
    }
  /* One byte into an empty stream socket: it fits, or the peer is gone. */
  do
    n = sendmsg (self->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    {
      sysprof_control_channel_close (self);
      return;
    }
  dispatch (self);
}

void
sysprof_control_channel_close (SysprofControlChannel *self)
{
  g_return_if_fail (SYSPROF_IS_CONTROL_CHANNEL (self));

  g_clear_handle_id (&self->watch, g_source_remove);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  self->pending = 0;
}

guint
sysprof_control_channel_get_n_requests (SysprofControlChannel *self)
{
  g_return_val_if_fail (SYSPROF_IS_CONTROL_CHANNEL (self), 0);
  return self->n_requests;
}
