// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "capture-swap.h"

static void
bswap_at (uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n / 2; i++)
    {
      uint8_t t = p[i];
      p[i] = p[n - 1 - i];
      p[n - 1 - i] = t;
    }
}

static uint32_t
le_load (const uint8_t *p, size_t n)
{
  uint32_t v = 0;

  for (size_t i = 0; i < n; i++)
    v |= (uint32_t) p[i] << (8 * i);
  return v;
}

/* A little-endian bitfield unit of @bits bits becomes a big-endian one: the
 * first declared field moves from the lowest to the highest bits. */
static void
to_be_bitfield (uint8_t *p, unsigned bits, const unsigned *widths)
{
  uint32_t in = le_load (p, bits / 8);
  uint32_t out = 0;
  unsigned lo = 0;

  for (const unsigned *w = widths; *w; w++)
    {
      uint32_t field = (in >> lo) & (uint32_t) ((1ull << *w) - 1);
      out |= field << (bits - lo - *w);
      lo += *w;
    }
  for (unsigned i = 0; i < bits / 8; i++)
    p[i] = (uint8_t) (out >> (bits - 8 - 8 * i));
}

static const unsigned W_8_24[] = { 8, 24, 0 };
static const unsigned W_16_16[] = { 16, 16, 0 };

static bool
swap_frame (uint8_t *f, size_t len)
{
  unsigned type = f[16];
  unsigned n;

  bswap_at (f + 0, 2);
  bswap_at (f + 2, 2);
  bswap_at (f + 4, 4);
  bswap_at (f + 8, 8);
  to_be_bitfield (f + 16, 32, W_8_24);
  bswap_at (f + 20, 4);

  switch (type)
    {
    case 1:
    case 4:
    case 6:
    case 11: /* TIMESTAMP PROCESS EXIT METADATA */ return true;
    case 5: /* FORK */ bswap_at (f + 24, 4); return true;
    case 3: /* MAP */
      for (int i = 0; i < 4; i++)
        bswap_at (f + 24 + 8 * i, 8);
      return true;
    case 7: /* JITMAP */
      {
        size_t pos = 28;

        n = le_load (f + 24, 4);
        bswap_at (f + 24, 4);
        for (unsigned i = 0; i < n; i++)
          {
            if (pos + 9 > len)
              return false;
            bswap_at (f + pos, 8);
            pos += 8;
            while (pos < len && f[pos])
              pos++;
            pos++;
          }
        return true;
      }
    case 2:
    case 16: /* SAMPLE TRACE */
      {
        static const unsigned w_trace[] = { 16, 1, 15, 0 };

        n = le_load (f + 24, 2);
        to_be_bitfield (f + 24, 32, type == 16 ? w_trace : W_16_16);
        bswap_at (f + 28, 4);
        for (unsigned i = 0; i < n; i++)
          bswap_at (f + 32 + 8 * i, 8);
        return 32 + 8 * (size_t) n <= len;
      }
    case 8: /* CTRDEF */
      {
        static const unsigned w_id[] = { 24, 8, 0 };

        n = le_load (f + 24, 2);
        to_be_bitfield (f + 24, 32, W_16_16);
        bswap_at (f + 28, 4);
        for (unsigned i = 0; i < n; i++)
          {
            to_be_bitfield (f + 32 + 128 * i + 116, 32, w_id);
            bswap_at (f + 32 + 128 * i + 120, 8);
          }
        return 32 + 128 * (size_t) n <= len;
      }
    case 9: /* CTRSET */
      n = le_load (f + 24, 2);
      to_be_bitfield (f + 24, 32, W_16_16);
      bswap_at (f + 28, 4);
      for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < 8; j++)
          {
            bswap_at (f + 32 + 96 * i + 4 * j, 4);
            bswap_at (f + 32 + 96 * i + 32 + 8 * j, 8);
          }
      return 32 + 96 * (size_t) n <= len;
    case 10: /* MARK */ bswap_at (f + 24, 8); return true;
    case 12: /* LOG */
      to_be_bitfield (f + 24, 32, W_16_16);
      bswap_at (f + 28, 4);
      return true;
    case 13: /* FILE_CHUNK */
      {
        static const unsigned w_chunk[] = { 1, 15, 16, 0 };
        to_be_bitfield (f + 24, 32, w_chunk);
        return true;
      }
    case 14: /* ALLOCATION */
      n = le_load (f + 44, 2);
      bswap_at (f + 24, 8);
      bswap_at (f + 32, 8);
      bswap_at (f + 40, 4);
      to_be_bitfield (f + 44, 32, W_16_16);
      for (unsigned i = 0; i < n; i++)
        bswap_at (f + 48 + 8 * i, 8);
      return 48 + 8 * (size_t) n <= len;
    case 15: /* OVERLAY */
      to_be_bitfield (f + 24, 32, W_8_24);
      to_be_bitfield (f + 28, 32, W_16_16);
      return true;
    case 17: /* DBUS_MESSAGE */
      {
        static const unsigned w_dbus[] = { 2, 14, 0 };
        to_be_bitfield (f + 24, 16, w_dbus);
        bswap_at (f + 26, 2);
        return true;
      }
    default: return false;
    }
}

bool
capture_swap_to_big_endian (uint8_t *data, size_t len)
{
  static const unsigned w_header[] = { 8, 1, 23, 0 };
  size_t                pos = 256;

  if (len < 256 || memcmp (data, "\x5e\x97\xca\xfd", 4) != 0)
    return false;

  bswap_at (data, 4);
  /* A big-endian writer leaves little_endian = 0. */
  data[5] &= (uint8_t) ~1u;
  to_be_bitfield (data + 4, 32, w_header);
  bswap_at (data + 72, 8);
  bswap_at (data + 80, 8);
  bswap_at (data + 88, 8);

  while (pos < len)
    {
      size_t flen;

      if (len - pos < 24)
        return false;
      flen = le_load (data + pos, 2);
      if (flen < 24 || flen % 8 || flen > len - pos)
        return false;
      if (!swap_frame (data + pos, flen))
        return false;
      pos += flen;
    }
  return true;
}
