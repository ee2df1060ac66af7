// SPDX-License-Identifier: GPL-3.0-or-later
/* Standalone driver: replays fuzz inputs (files, or every file of the
 * directories given) through LLVMFuzzerTestOneInput, so the corpus runs as an
 * ordinary test in every build, without libFuzzer or clang. */

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
run_file (const char *path)
{
  FILE    *f = fopen (path, "rb");
  uint8_t *data = NULL;
  size_t   len = 0;
  size_t   cap = 0;

  if (f == NULL)
    {
      fprintf (stderr, "fuzz-main: %s: %s\n", path, strerror (errno));
      return 1;
    }
  for (;;)
    {
      size_t n;

      if (len == cap)
        {
          cap = cap ? cap * 2 : 65536;
          if (!(data = realloc (data, cap)))
            {
              fclose (f);
              return 1;
            }
        }
      n = fread (data + len, 1, cap - len, f);
      if (n == 0)
        break;
      len += n;
    }
  fclose (f);

  LLVMFuzzerTestOneInput (data, len);
  free (data);
  return 0;
}

int
main (int argc, char **argv)
{
  unsigned long n_inputs = 0;
  int           ret = 0;

  for (int i = 1; i < argc; i++)
    {
      struct stat st;

      if (stat (argv[i], &st) != 0)
        {
          fprintf (stderr, "fuzz-main: %s: %s\n", argv[i], strerror (errno));
          return 1;
        }
      if (S_ISDIR (st.st_mode))
        {
          struct dirent **entries;
          int             n = scandir (argv[i], &entries, NULL, alphasort);

          if (n < 0)
            return 1;
          for (int j = 0; j < n; j++)
            {
              char *path;

              if (entries[j]->d_name[0] != '.' && asprintf (&path, "%s/%s", argv[i], entries[j]->d_name) >= 0)
                {
                  ret |= run_file (path);
                  n_inputs++;
                  free (path);
                }
              free (entries[j]);
            }
          free (entries);
        }
      else
        {
          ret |= run_file (argv[i]);
          n_inputs++;
        }
    }

  printf ("replayed %lu inputs\n", n_inputs);
  if (n_inputs == 0)
    {
      fprintf (stderr, "fuzz-main: no inputs given\n");
      return 1;
    }
  return ret;
}
