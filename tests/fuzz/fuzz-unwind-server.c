// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the unwinding helper's side of its protocol
 * (daemon/unwinder/sysprof-unwind-server.c), which parses what profiled
 * programs control: the ELF files they map (their CFI included), and copies
 * of their stacks and registers.
 *
 * The input is a sequence of chunks { u16 length; u8 bytes[length]; }, each
 * one datagram.  A datagram of type FILE takes the next chunk as the
 * contents of the file it hands over (a memfd); every other chunk goes in
 * as it is.  Answers must be well-formed FRAMES for SAMPLE, nothing for
 * the rest. */

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-unwind-server.h"
#include "sysprof-unwind-wire.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
next_chunk (const uint8_t **data, size_t *size, const uint8_t **chunk, size_t *len)
{
  guint16 n;

  if (*size < sizeof n)
    return FALSE;
  memcpy (&n, *data, sizeof n);
  *data += sizeof n;
  *size -= sizeof n;
  n = MIN (n, *size);
  *chunk = *data;
  *len = n;
  *data += n;
  *size -= n;
  return TRUE;
}

static int
file_from (const uint8_t *bytes, size_t len)
{
  int fd = memfd_create ("fuzz-unwind", MFD_CLOEXEC);

  if (fd < 0)
    return -1;
  if (len > 0 && write (fd, bytes, len) != (ssize_t) len)
    {
      close (fd);
      return -1;
    }
  return fd;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (SysprofUnwindServer) server = sysprof_unwind_server_new ();
  static guint8  reply[SYSPROF_UNWIND_SERVER_REPLY_SIZE];
  const uint8_t *chunk;
  size_t         len;

  while (next_chunk (&data, &size, &chunk, &len))
    {
      guint32 type = 0;
      int     fds[1] = { -1 };
      guint   n_fds = 0;
      gsize   reply_len;

      if (len >= sizeof type)
        memcpy (&type, chunk, sizeof type);
      if (type == SYSPROF_UNWIND_MSG_FILE)
        {
          const uint8_t *contents;
          size_t         contents_len;

          if (!next_chunk (&data, &size, &contents, &contents_len))
            contents_len = 0, contents = NULL;
          if ((fds[0] = file_from (contents, contents_len)) >= 0)
            n_fds = 1;
        }

      reply_len = sysprof_unwind_server_handle (server, chunk, len, fds, n_fds, reply);
      if (reply_len != 0)
        {
          SysprofUnwindFrames frames;

          /* Only SAMPLE is answered, with a FRAMES that adds up. */
          if (type != SYSPROF_UNWIND_MSG_SAMPLE || reply_len < sizeof frames)
            __builtin_trap ();
          memcpy (&frames, reply, sizeof frames);
          if (frames.type != SYSPROF_UNWIND_MSG_FRAMES || frames.n_addrs > SYSPROF_UNWIND_MAX_FRAMES ||
              reply_len != sizeof frames + frames.n_addrs * sizeof (guint64) ||
              frames.status > SYSPROF_UNWIND_STATUS_FAILED)
            __builtin_trap ();
        }
    }
  return 0;
}
