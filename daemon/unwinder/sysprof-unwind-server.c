// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>
#include <unistd.h>

#include "sysprof-dwarf-unwinder.h"
#include "sysprof-unwind-server.h"
#include "sysprof-unwind-wire.h"

G_STATIC_ASSERT (SYSPROF_UNWIND_N_REGS == SYSPROF_DWARF_UNWINDER_N_REGS);
G_STATIC_ASSERT (SYSPROF_UNWIND_SERVER_REPLY_SIZE ==
                 sizeof (SysprofUnwindFrames) + sizeof (guint64) * SYSPROF_UNWIND_MAX_FRAMES);
G_STATIC_ASSERT ((int) SYSPROF_UNWIND_STATUS_COMPLETE == (int) SYSPROF_DWARF_UNWIND_COMPLETE);
G_STATIC_ASSERT ((int) SYSPROF_UNWIND_STATUS_TRUNCATED == (int) SYSPROF_DWARF_UNWIND_TRUNCATED);
G_STATIC_ASSERT ((int) SYSPROF_UNWIND_STATUS_OUTSIDE_MAPPINGS == (int) SYSPROF_DWARF_UNWIND_OUTSIDE_MAPPINGS);
G_STATIC_ASSERT ((int) SYSPROF_UNWIND_STATUS_FAILED == (int) SYSPROF_DWARF_UNWIND_FAILED);

struct _SysprofUnwindServer
{
  SysprofDwarfUnwinder *unwinder;
  guint64               n_dropped;
};

SysprofUnwindServer *
sysprof_unwind_server_new (void)
{
  SysprofUnwindServer *self = g_new0 (SysprofUnwindServer, 1);

  self->unwinder = sysprof_dwarf_unwinder_new ();
  return self;
}

void
sysprof_unwind_server_free (SysprofUnwindServer *self)
{
  if (self == NULL)
    return;
  sysprof_dwarf_unwinder_free (self->unwinder);
  g_free (self);
}

guint64
sysprof_unwind_server_get_n_dropped (SysprofUnwindServer *self)
{
  return self->n_dropped;
}

static void
close_fds (const int *fds, guint n_fds)
{
  for (guint i = 0; i < n_fds; i++)
    if (fds[i] >= 0)
      close (fds[i]);
}

static gboolean
handle_file (SysprofUnwindServer *self, const guint8 *msg, gsize len, const int *fds, guint n_fds)
{
  SysprofUnwindFile file;

  if (len != sizeof file || n_fds != 1 || fds[0] < 0)
    return FALSE;
  memcpy (&file, msg, sizeof file);
  file.name[sizeof file.name - 1] = 0;
  /* A file that is not ELF is refused; its id stays unknown and the maps
   * that name it are dropped, as they would be for a file never sent. */
  sysprof_dwarf_unwinder_add_file (self->unwinder, file.file_id, fds[0], file.name, NULL);
  return TRUE;
}

static gsize
handle_sample (SysprofUnwindServer *self, const guint8 *msg, gsize len, guint8 *reply)
{
  SysprofUnwindSample header;
  SysprofUnwindFrames frames = { 0 };
  guint64             addrs[SYSPROF_UNWIND_MAX_FRAMES];
  guint               n_addrs = 0;

  if (len < sizeof header)
    return 0;
  memcpy (&header, msg, sizeof header);
  if (header.stack_len > SYSPROF_UNWIND_MAX_STACK || len - sizeof header != header.stack_len)
    return 0;

  frames.type = SYSPROF_UNWIND_MSG_FRAMES;
  frames.seq = header.seq;
  frames.status =
      sysprof_dwarf_unwinder_unwind (self->unwinder, header.pid, header.tid, header.regs, msg + sizeof header,
                                     header.stack_len, addrs, G_N_ELEMENTS (addrs), &n_addrs);
  frames.n_addrs = n_addrs;
  memcpy (reply, &frames, sizeof frames);
  memcpy (reply + sizeof frames, addrs, n_addrs * sizeof addrs[0]);
  return sizeof frames + n_addrs * sizeof addrs[0];
}

gsize
sysprof_unwind_server_handle (
    SysprofUnwindServer *self, const guint8 *msg, gsize len, const int *fds, guint n_fds, guint8 *reply)
{
  guint32  type;
  gsize    reply_len = 0;
  gboolean fds_taken = FALSE;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (msg != NULL || len == 0, 0);
  g_return_val_if_fail (reply != NULL, 0);

  if (len < sizeof type)
    {
      self->n_dropped++;
      close_fds (fds, n_fds);
      return 0;
    }
  memcpy (&type, msg, sizeof type);

  switch (type)
    {
    case SYSPROF_UNWIND_MSG_FILE:
      fds_taken = handle_file (self, msg, len, fds, n_fds);
      if (!fds_taken)
        self->n_dropped++;
      break;

    case SYSPROF_UNWIND_MSG_MAP:
      {
        SysprofUnwindMap map;

        if (len != sizeof map ||
            (memcpy (&map, msg, sizeof map), !sysprof_dwarf_unwinder_add_map (self->unwinder, map.pid, map.start,
                                                                              map.end, map.pgoff, map.file_id, NULL)))
          self->n_dropped++;
      }
      break;

    case SYSPROF_UNWIND_MSG_FORGET:
      {
        SysprofUnwindForget forget;

        if (len != sizeof forget)
          self->n_dropped++;
        else
          {
            memcpy (&forget, msg, sizeof forget);
            sysprof_dwarf_unwinder_forget_process (self->unwinder, forget.pid);
          }
      }
      break;

    case SYSPROF_UNWIND_MSG_FORK:
      {
        SysprofUnwindFork fork_msg;

        if (len != sizeof fork_msg)
          self->n_dropped++;
        else
          {
            memcpy (&fork_msg, msg, sizeof fork_msg);
            sysprof_dwarf_unwinder_fork (self->unwinder, fork_msg.parent, fork_msg.child);
          }
      }
      break;

    case SYSPROF_UNWIND_MSG_SAMPLE:
      if ((reply_len = handle_sample (self, msg, len, reply)) == 0)
        self->n_dropped++;
      break;

    default: self->n_dropped++; break;
    }

  if (!fds_taken)
    close_fds (fds, n_fds);
  return reply_len;
}
