// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-cat: merge captures into one, written to standard output; with
 * --expand-memory or --compact-memory, convert their allocation records. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sysprof-capture.h>

#include "sysprof-cat-memory.h"

/* zstd level of the blocks --compact-memory writes: the recorder's drainer
 * uses 1 for speed; offline, a little more time buys smaller files. */
#define ZSTD_LEVEL 3

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
                "byte order; the output is in this host's.  With one input, sysprof-cat\n"
                "rewrites that capture (with the options below, converts it).\n"
                "\n"
                "Standard output must be a file or a pipe, not a terminal.  The merged capture\n"
                "is assembled in a temporary file under $TMPDIR (default /tmp) and copied to\n"
                "standard output at the end, so the header can be finalized even for a pipe.\n"
                "When standard error is a terminal, progress is shown there.\n"
                "\n"
                "Allocation records come in two forms: one ALLOCATION frame per allocation or\n"
                "release, with its whole stack (every Sysprof reads them), or compact memory\n"
                "streams, one per thread, carried in FILE_CHUNK frames named\n"
                "sysprof/memory-stream/TID (Sysprof 3.46 and other readers that do not know\n"
                "them read such captures but show no allocations).  These options convert\n"
                "the allocation records of every input from one form to the other; the\n"
                "events come from both forms, merged in time order, and the result is\n"
                "placed among the other frames by time:\n"
                "\n"
                "      --expand-memory    Write every allocation and release as an ALLOCATION\n"
                "                         frame: pid, tid, address, size and stack as recorded,\n"
                "                         CPU -1 for events that came from streams.  The stream\n"
                "                         chunks are left out.  Unsound stream blocks are left\n"
                "                         out too (the events before the fault in a block are\n"
                "                         kept), counted and described on standard error.\n"
                "      --compact-memory   Write every allocation and release into the memory\n"
                "                         stream of its thread (one per pid and tid); each\n"
                "                         distinct stack of a stream is stored once, blocks are\n"
                "                         zstd-compressed where that makes them smaller.  Kept\n"
                "                         exactly: times, pids, tids, addresses, sizes and\n"
                "                         allocation stacks (JIT addresses renumbered as\n"
                "                         above).  Not kept: the CPU (streams have none), the\n"
                "                         stack of a release, frames of a stack past the 128th,\n"
                "                         times that go backwards within a thread (written as\n"
                "                         the thread's previous time) and negative sizes;\n"
                "                         standard error counts any such change.  Allocation\n"
                "                         records take tens of times less room (90 times on\n"
                "                         a recording of 2 threads x 100,000 allocations);\n"
                "                         --expand-memory turns them back into the same\n"
                "                         events.\n"
                "\n"
                "With either option, losses the streams recorded are written as a METADATA\n"
                "frame \"sysprof.lost-events\", and the streams' summary\n"
                "(\"sysprof.memory-stream\") is dropped, or rewritten for the new streams.\n"
                "Each thread's events keep their order; events of different threads at the\n"
                "same nanosecond may come in another.  The inputs must be regular files (they\n"
                "are read twice: once to find the streams' blocks).  Memory use does not grow\n"
                "with the number of events: one block per stream is decoded at a time, and\n"
                "compaction keeps each stream's distinct stacks and at most 1024 blocks.\n"
                "\n"
                "Options:\n"
                "  -h, --help     Show this help and exit.\n"
                "      --version  Print the version and exit.\n"
                "\n"
                "Exit status: 0 on success; 1 when an input could not be opened or read to\n"
                "its end (every frame read before the damage is still merged, and the other\n"
                "inputs too), when unsound memory stream blocks were left out, or when the\n"
                "output could not be written; 2 on a usage error.\n");
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

typedef struct
{
  const char       *name;
  SysprofCatMemory *memory; /* NULL: frames as they are */
  uint64_t          size;   /* of the input, 0 without progress */
  uint64_t          frames;
  int               percent;
} Input;

static SysprofCaptureCatAction
on_frame (SysprofCaptureWriter *writer, const SysprofCaptureFrame *frame, uint64_t offset, void *user_data)
{
  Input *input = user_data;

  if (input->size > 0 && (++input->frames & 0xfff) == 0 && (int) (offset * 100 / input->size) != input->percent)
    {
      input->percent = (int) (offset * 100 / input->size);
      fprintf (stderr, "\rsysprof-cat: %s: %d %%", input->name, input->percent);
    }
  if (input->memory == NULL)
    return SYSPROF_CAPTURE_CAT_COPY;
  return sysprof_cat_memory_filter (writer, frame, offset, input->memory);
}

/* Says what the memory pass changed or left out; true when it left out
 * damage. */
static bool
report_memory (const char *name, SysprofCatMemory *memory, bool compact)
{
  SysprofCatMemoryReport r;

  sysprof_cat_memory_get_report (memory, &r);
  if (compact)
    {
      uint64_t changed = r.compact.backwards + r.compact.release_stacks + r.compact.long_stacks + r.compact.bad_sizes;

      if (changed > 0)
        fprintf (stderr,
                 "sysprof-cat: %s: %" PRIu64 " events not kept exactly in streams: %" PRIu64
                 " times going backwards in their thread, %" PRIu64 " stacks of releases, %" PRIu64
                 " stacks over %d frames, %" PRIu64 " negative sizes\n",
                 name, changed, r.compact.backwards, r.compact.release_stacks, r.compact.long_stacks,
                 SYSPROF_MEMORY_STREAM_MAX_FRAMES, r.compact.bad_sizes);
    }
  if (r.errors > 0)
    fprintf (stderr, "sysprof-cat: %s: %" PRIu64 " unsound memory stream blocks or allocation frames left out: %s\n",
             name, r.errors, r.error != NULL ? r.error : "(no description)");
  return r.errors > 0;
}

/* Merges one input: 0 when whole, 1 when damaged (reported), -1 when the
 * output failed (reported). */
static int
cat_input (SysprofCaptureWriter *writer, const char *name, SysprofCatMemoryMode mode, bool memory, bool progress)
{
  SysprofCaptureError   error;
  SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (name, &error);
  Input                 input = { name, NULL, 0, 0, -1 };
  struct stat           st;
  int                   status = 0;
  bool                  merged;

  if (reader == NULL)
    {
      fprintf (stderr, "sysprof-cat: %s: %s\n", name, error.message);
      return 1;
    }
  if (progress && stat (name, &st) == 0 && st.st_size > 0)
    input.size = (uint64_t) st.st_size;
  if (memory && !(input.memory = sysprof_cat_memory_new (writer, reader, mode, ZSTD_LEVEL)))
    {
      fprintf (stderr, "sysprof-cat: %s: cannot read its allocation records: %s\n", name,
               errno == ESPIPE ? "the input must be a file (it is read twice)" : strerror (errno));
      sysprof_capture_reader_unref (reader);
      return 1;
    }

  merged = sysprof_capture_writer_cat_full (writer, reader, on_frame, &input);
  if (input.size > 0)
    fprintf (stderr, "\r\033[K");
  if (!merged)
    {
      const SysprofCaptureError *rerr;
      SysprofCaptureReader      *scan = sysprof_capture_reader_copy (reader);
      int                        saved = errno;

      /* Find out whether the input was damaged or the output failed. */
      if (scan != NULL && sysprof_capture_reader_reset (scan))
        while (sysprof_capture_reader_skip (scan))
          ;
      rerr = scan ? sysprof_capture_reader_get_error (scan) : NULL;
      if (rerr != NULL && rerr->code != 0)
        {
          fprintf (stderr, "sysprof-cat: %s: merged up to the damage: %s\n", name, rerr->message);
          status = 1;
        }
      else
        {
          fprintf (stderr, "sysprof-cat: %s: cannot write the merged capture: %s\n", name, strerror (saved));
          status = -1;
        }
      sysprof_capture_reader_unref (scan);
    }
  /* After damage too: the events found before it. */
  if (status >= 0 && input.memory != NULL && !sysprof_cat_memory_finish (input.memory))
    {
      fprintf (stderr, "sysprof-cat: %s: cannot write the merged capture: %s\n", name, strerror (errno));
      status = -1;
    }
  if (status >= 0 && input.memory != NULL && report_memory (name, input.memory, mode == SYSPROF_CAT_MEMORY_COMPACT))
    status = 1;

  sysprof_cat_memory_free (input.memory);
  sysprof_capture_reader_unref (reader);
  return status;
}

int
main (int argc, char **argv)
{
  enum
  {
    OPT_VERSION = 256,
    OPT_EXPAND_MEMORY,
    OPT_COMPACT_MEMORY,
  };
  static const struct option long_options[] = {
    { "expand-memory", no_argument, NULL, OPT_EXPAND_MEMORY },
    { "compact-memory", no_argument, NULL, OPT_COMPACT_MEMORY },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
  };
  SysprofCaptureWriter *writer;
  SysprofCatMemoryMode  mode = SYSPROF_CAT_MEMORY_EXPAND;
  bool                  expand = false;
  bool                  compact = false;
  bool                  progress;
  int                   status = 0;
  int                   tmp_fd;
  int                   writer_fd;
  int                   opt;

  while ((opt = getopt_long (argc, argv, "h", long_options, NULL)) != -1)
    {
      switch (opt)
        {
        case OPT_EXPAND_MEMORY: expand = true; break;
        case OPT_COMPACT_MEMORY: compact = true; break;
        case 'h': usage (stdout); return 0;
        case OPT_VERSION: printf ("sysprof-cat " SYSPROF_PROJECT_VERSION "\n"); return 0;
        default: fprintf (stderr, "Try 'sysprof-cat --help' for more information.\n"); return 2;
        }
    }

  if (expand && compact)
    {
      fprintf (stderr, "sysprof-cat: --expand-memory and --compact-memory exclude each other\n"
                       "Try 'sysprof-cat --help' for more information.\n");
      return 2;
    }
  if (compact)
    mode = SYSPROF_CAT_MEMORY_COMPACT;

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
  progress = isatty (STDERR_FILENO);

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
      int s = cat_input (writer, argv[i], mode, expand || compact, progress);

      if (s < 0)
        {
          sysprof_capture_writer_unref (writer);
          close (tmp_fd);
          return 1;
        }
      if (s > 0)
        status = 1;
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
