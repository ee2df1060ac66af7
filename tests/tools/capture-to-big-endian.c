// SPDX-License-Identifier: GPL-3.0-or-later
/* capture-to-big-endian IN OUT: rewrite a little-endian capture as a
 * big-endian host would have written it (test fixture generator). */

#include <stdio.h>
#include <stdlib.h>

#include "capture-swap.h"

int
main (int argc, char **argv)
{
  FILE    *in;
  FILE    *out;
  uint8_t *data;
  long     len;

  if (argc != 3)
    {
      fprintf (stderr, "usage: capture-to-big-endian IN OUT\n");
      return 2;
    }
  if (!(in = fopen (argv[1], "rb")) || fseek (in, 0, SEEK_END) != 0 || (len = ftell (in)) < 0)
    {
      perror (argv[1]);
      return 1;
    }
  rewind (in);
  data = malloc ((size_t) len + 1);
  if (data == NULL || fread (data, 1, (size_t) len, in) != (size_t) len)
    {
      perror (argv[1]);
      return 1;
    }
  fclose (in);
  if (!capture_swap_to_big_endian (data, (size_t) len))
    {
      fprintf (stderr, "capture-to-big-endian: %s: not a well-formed little-endian capture\n", argv[1]);
      return 1;
    }
  if (!(out = fopen (argv[2], "wb")) || fwrite (data, 1, (size_t) len, out) != (size_t) len || fclose (out) != 0)
    {
      perror (argv[2]);
      return 1;
    }
  free (data);
  return 0;
}
