// SPDX-License-Identifier: GPL-3.0-or-later
/* Fixture: a shared library whose work is done by static functions, like
 * liblzma's.  Stripped (.dynsym only) it names nothing but grouped_lib_run,
 * and the symbolizer must show one row per static function (its FDE), not
 * one per address.  Each function loops long enough to be sampled. */

#include <stdint.h>
#include <stdio.h>

unsigned long grouped_lib_run (unsigned long rounds);
void          grouped_lib_report (void);

static __attribute__ ((noinline)) unsigned long
grouped_crc_step (unsigned long x, unsigned long rounds)
{
  for (unsigned long i = 0; i < rounds; i++)
    x = (x >> 1) ^ (0xedb88320ul & -(x & 1));
  return x;
}

static __attribute__ ((noinline)) unsigned long
grouped_match_len (unsigned long x, unsigned long rounds)
{
  for (unsigned long i = 0; i < rounds; i++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

static __attribute__ ((noinline)) unsigned long
grouped_range_encode (unsigned long x, unsigned long rounds)
{
  for (unsigned long i = 0; i < rounds; i++)
    x ^= (x << 7) | (x >> 57);
  return x;
}

unsigned long
grouped_lib_run (unsigned long rounds)
{
  unsigned long x = rounds | 1;

  x = grouped_crc_step (x, rounds);
  x = grouped_match_len (x, rounds);
  return grouped_range_encode (x, rounds);
}

void
grouped_lib_report (void)
{
  printf ("func grouped_crc_step %#jx\n", (uintmax_t) (uintptr_t) grouped_crc_step);
  printf ("func grouped_match_len %#jx\n", (uintmax_t) (uintptr_t) grouped_match_len);
  printf ("func grouped_range_encode %#jx\n", (uintmax_t) (uintptr_t) grouped_range_encode);
}
