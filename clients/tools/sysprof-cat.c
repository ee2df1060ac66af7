// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-cat: merge captures into one, written to standard output. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sysprof-capture.h>

static void
usage (FILE *out)
{
  fprintf (out, "Usage: sysprof-cat [OPTION...] CAPTURE... > OUTPUT\n"
                "\n"
                "Merge Sysprof captures into one capture written to standard output.\n"
                "\n"
                "Every frame of every input is re-encoded in order, input after input.  JIT\n"
                "symbol addresses and counter ids are renumbered so that the inputs cannot\n"
                "collide; the header's time range covers all inputs.  Inputs may be in either\n"
                "byte order; the output is in this host's.\n"
                "\n"
                "Standard output must be a file or a pipe, not a terminal.  The merged capture\n"
                "is assembled in a temporary file under $TMPDIR (default /tmp) and copied to\n"
                "standard output at the end, so the header can be finalized even for a pipe.\n"
                "\n"
                "Options:\n"
                "  -h, --help     Show this help and exit.\n"
                "      --version  Print the version and exit.\n"
                "\n"
                "Exit status: 0 on success; 1 when an input could not be opened or read to\n"
                "its end (every frame read before the damage is still merged, and the other\n"
                "inputs too) or the output could not be written; 2 on a usage error.\n");
}

static int
open_temporary (void)
{
  const char *dir = getenv ("TMPDIR");
  char *template;
  int fd;

  if (dir == NULL || *dir == 0)
    dir = "/tmp";

  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;

  /* Filesystems without O_TMPFILE: a named file, unlinked at once. */
  if (asprintf (&template, "%s/sysprof-cat-XXXXXX", dir) < 0)
    return -1;
  fd = mkostemp (template, O_CLOEXEC);
  if (fd >= 0)
    unlink (template);
  free (template);
  return fd;
}

static bool
copy_to_stdout (int fd)
{
  char  buf[65536];
  off_t offset = 0;

  for (;;)
    {
      ssize_t n = pread (fd, buf, sizeof buf, offset);
      char   *pos = buf;

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return false;
        }
      if (n == 0)
        return true;
      offset += n;
      while (n > 0)
        {
          ssize_t w = write (STDOUT_FILENO, pos, (size_t) n);

          if (w < 0)
            {
              if (errno == EINTR)
                continue;
              return false;
            }
          pos += w;
          n -= w;
        }
    }
}

int
main (int argc, char **argv)
{
  enum
  {
    OPT_VERSION = 256
  };
  static const struct option long_options[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
  };
  SysprofCaptureWriter *writer;
  int                   status = 0;
  int                   tmp_fd;
  int                   writer_fd;
  int                   opt;

  while ((opt = getopt_long (argc, argv, "h", long_options, NULL)) != -1)
    {
      switch (opt)
        {
        case 'h': usage (stdout); return 0;
        case OPT_VERSION: printf ("sysprof-cat " SYSPROF_VERSION "\n"); return 0;
        default: fprintf (stderr, "Try 'sysprof-cat --help' for more information.\n"); return 2;
        }
    }

  if (optind >= argc)
    {
      fprintf (stderr, "sysprof-cat: no input capture given\nTry 'sysprof-cat --help' for more information.\n");
      return 2;
    }

  if (isatty (STDOUT_FILENO))
    {
      fprintf (stderr,
               "sysprof-cat: refusing to write a binary capture to a terminal; redirect standard output to a file\n");
      return 2;
    }

  if ((tmp_fd = open_temporary ()) < 0)
    {
      fprintf (stderr, "sysprof-cat: cannot create a temporary file: %s\n", strerror (errno));
      return 1;
    }

  /* The writer owns its fd; keep our own to copy the result out. */
  if ((writer_fd = fcntl (tmp_fd, F_DUPFD_CLOEXEC, 0)) < 0 ||
      !(writer = sysprof_capture_writer_new_from_fd (writer_fd, 0)))
    {
      fprintf (stderr, "sysprof-cat: cannot start the output capture: %s\n", strerror (errno));
      return 1;
    }

  for (int i = optind; i < argc; i++)
    {
      SysprofCaptureError   error;
      SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (argv[i], &error);

      if (reader == NULL)
        {
          fprintf (stderr, "sysprof-cat: %s: %s\n", argv[i], error.message);
          status = 1;
          continue;
        }

      if (!sysprof_capture_writer_cat (writer, reader))
        {
          const SysprofCaptureError *rerr;
          SysprofCaptureReader      *scan = sysprof_capture_reader_copy (reader);

          /* Find out whether the input was damaged or the output failed. */
          if (scan != NULL && sysprof_capture_reader_reset (scan))
            while (sysprof_capture_reader_skip (scan))
              ;
          rerr = scan ? sysprof_capture_reader_get_error (scan) : NULL;
          if (rerr != NULL && rerr->code != 0)
            fprintf (stderr, "sysprof-cat: %s: merged up to the damage: %s\n", argv[i], rerr->message);
          else
            {
              fprintf (stderr, "sysprof-cat: %s: cannot write the merged capture: %s\n", argv[i], strerror (errno));
              sysprof_capture_reader_unref (scan);
              sysprof_capture_reader_unref (reader);
              sysprof_capture_writer_unref (writer);
              close (tmp_fd);
              return 1;
            }
          sysprof_capture_reader_unref (scan);
          status = 1;
        }

      sysprof_capture_reader_unref (reader);
    }

  if (!sysprof_capture_writer_flush (writer))
    {
      fprintf (stderr, "sysprof-cat: cannot write the merged capture: %s\n", strerror (errno));
      status = 1;
    }
  sysprof_capture_writer_unref (writer);

  if (!copy_to_stdout (tmp_fd))
    {
      fprintf (stderr, "sysprof-cat: cannot write to standard output: %s\n", strerror (errno));
      status = 1;
    }
  close (tmp_fd);

  return status;
}
