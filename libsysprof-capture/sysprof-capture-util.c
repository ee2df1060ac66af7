// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include <sys/sendfile.h>
#include <sys/types.h>

#include "sysprof-capture-util-private.h"

void
_sysprof_bitfield_from_foreign (void *p, unsigned unit_bits, const uint8_t *widths, unsigned n_fields)
{
  uint32_t raw = 0;
  uint32_t out = 0;
  unsigned shift = 0;

  if (unit_bits == 16)
    {
      uint16_t v;
      memcpy (&v, p, 2);
      raw = _sysprof_swap16 (v);
    }
  else
    {
      memcpy (&raw, p, 4);
      raw = _sysprof_swap32 (raw);
    }

  for (unsigned i = 0; i < n_fields; i++)
    {
      unsigned w = widths[i];
      uint32_t mask = w >= 32 ? 0xFFFFFFFFu : ((1u << w) - 1);
      unsigned lsb_pos = shift;                 /* little-endian writer's position */
      unsigned msb_pos = unit_bits - shift - w; /* big-endian writer's position */
      uint32_t field;

      if (_SYSPROF_IS_LITTLE_ENDIAN)
        {
          field = (raw >> msb_pos) & mask;
          out |= field << lsb_pos;
        }
      else
        {
          field = (raw >> lsb_pos) & mask;
          out |= field << msb_pos;
        }
      shift += w;
    }

  if (unit_bits == 16)
    {
      uint16_t v = (uint16_t) out;
      memcpy (p, &v, 2);
    }
  else
    memcpy (p, &out, 4);
}

bool
_sysprof_write_all (int fd, const void *data, size_t len)
{
  const uint8_t *pos = data;

  while (len > 0)
    {
      ssize_t n = write (fd, pos, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return false;
        }
      if (n == 0)
        {
          errno = EIO;
          return false;
        }
      pos += n;
      len -= (size_t) n;
    }

  return true;
}

bool
_sysprof_pwrite_all (int fd, const void *data, size_t len, off_t offset)
{
  const uint8_t *pos = data;

  while (len > 0)
    {
      ssize_t n = pwrite (fd, pos, len, offset);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return false;
        }
      if (n == 0)
        {
          errno = EIO;
          return false;
        }
      pos += n;
      len -= (size_t) n;
      offset += n;
    }

  return true;
}

bool
_sysprof_copy_range (int in_fd, off_t in_offset, uint64_t len, int out_fd)
{
  uint8_t buf[65536];

  /* sendfile only works towards some fd kinds; fall back to pread + write for the rest. */
  while (len > 0)
    {
      size_t  want = len > sizeof buf ? sizeof buf : (size_t) len;
      ssize_t n = sendfile (out_fd, in_fd, &in_offset, want);

      if (n > 0)
        {
          len -= (uint64_t) n;
          continue;
        }
      if (n == 0)
        break;
      if (errno == EINTR)
        continue;
      if (errno != EINVAL && errno != ENOSYS)
        return false;

      n = pread (in_fd, buf, want, in_offset);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return false;
        }
      if (n == 0)
        break;
      if (!_sysprof_write_all (out_fd, buf, (size_t) n))
        return false;
      in_offset += n;
      len -= (uint64_t) n;
    }

  return true;
}
