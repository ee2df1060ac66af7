// SPDX-License-Identifier: GPL-3.0-or-later
/* memory-stacks.c
 *
 * How many allocations a capture kept and how deep their stacks are, for
 * bench/run-memory-bench.sh (ours' captures and Sysprof 3.46's).
 *
 *   memory-stacks [-H] CAPTURE
 *
 * Every allocation of the capture is read: with SysprofAllocationCursor when
 * this tree's libsysprof-capture has it (compact memory streams and
 * ALLOCATION frames alike), otherwise from ALLOCATION frames.  An allocation
 * is an event of size > 0 (a release has size 0), and its depth is the number
 * of addresses of its stack.  One line on standard output:
 *
 *   memory-stacks: reader=cursor allocations=N releases=N no_stack=N depth_mean=D.DD depth_max=N lost=N errors=N
 *
 * no_stack counts allocations without an address; depth_mean includes them
 * (at depth 0).  lost and errors are the cursor's counts (events the trackers
 * reported as lost, unsound stream blocks); "-" with the frame reader, which
 * cannot know them.  -H also prints the histogram, "depth N count", one line
 * per depth present.
 *
 * Exit status: 0 when the capture was read to its end; 1 when it cannot be
 * opened or is damaged (the counts before the damage are still printed, then
 * the reader's error on standard error), or when the frame reader finds
 * compact memory streams it cannot decode; 2 on a usage error.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sysprof-capture.h>

/* Deeper stacks are counted in the last bucket; both formats stop at 16 bits
 * of addresses (n_addrs), the trackers far earlier. */
#define MAX_DEPTH 65535u

typedef struct
{
  uint64_t allocations;
  uint64_t releases;
  uint64_t no_stack;
  uint64_t depth_sum;
  uint32_t depth_max;
  uint64_t histogram[MAX_DEPTH + 1];
} Totals;

static Totals totals;

static void
count (int64_t size, uint32_t depth)
{
  if (size <= 0)
    {
      totals.releases++;
      return;
    }
  if (depth > MAX_DEPTH)
    depth = MAX_DEPTH;
  totals.allocations++;
  totals.no_stack += depth == 0;
  totals.depth_sum += depth;
  totals.histogram[depth]++;
  if (depth > totals.depth_max)
    totals.depth_max = depth;
}

#ifdef HAVE_ALLOCATION_CURSOR
#define READER "cursor"

/* Returns the reader's error, or NULL when the capture was read to its end. */
static const char *
read_allocations (SysprofCaptureReader *reader, char *lost, char *errors, size_t len)
{
  static char                  message[512];
  SysprofAllocationCursor     *cursor;
  SysprofAllocationEvent       event;
  SysprofAllocationCursorStats stats;
  const SysprofCaptureError   *error;
  const char                  *first;

  if ((cursor = sysprof_allocation_cursor_new (reader)) == NULL)
    {
      snprintf (message, sizeof message, "cannot read the allocations: %s", strerror (errno));
      return message;
    }
  while (sysprof_allocation_cursor_next (cursor, &event))
    count (event.size, event.n_frames);
  sysprof_allocation_cursor_get_stats (cursor, &stats);
  snprintf (lost, len, "%" PRIu64, stats.lost);
  snprintf (errors, len, "%" PRIu64, stats.errors);
  /* Unsound blocks do not stop the cursor: say what the first was, but the
   * capture itself was read. */
  if ((first = sysprof_allocation_cursor_get_error (cursor)) != NULL)
    fprintf (stderr, "memory-stacks: %s\n", first);
  error = sysprof_allocation_cursor_get_capture_error (cursor);
  message[0] = '\0';
  if (error != NULL && error->code != 0)
    snprintf (message, sizeof message, "%s", error->message);
  sysprof_allocation_cursor_unref (cursor);
  return message[0] != '\0' ? message : NULL;
}

#else
#define READER        "frames"
/* memory-stream.md: the FILE_CHUNK path of a stream's blocks. */
#define STREAM_PREFIX "sysprof/memory-stream/"

static const char *
read_allocations (SysprofCaptureReader *reader, char *lost, char *errors, size_t len)
{
  static char                message[512];
  const SysprofCaptureError *error;
  SysprofCaptureFrameType    type;
  uint64_t                   stream_blocks = 0;

  /* Frames cannot say what a tracker lost, nor hold unsound stream blocks. */
  snprintf (lost, len, "-");
  snprintf (errors, len, "-");
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
        {
          const SysprofCaptureAllocation *alloc = sysprof_capture_reader_read_allocation (reader);

          if (alloc == NULL)
            break;
          count (alloc->alloc_size, alloc->n_addrs);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
        {
          const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);

          if (chunk == NULL)
            break;
          /* Compact allocation records (memory-stream.md) that only the
           * cursor decodes: counting without them would be wrong, not short. */
          stream_blocks += strncmp (chunk->path, STREAM_PREFIX, strlen (STREAM_PREFIX)) == 0;
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }
  error = sysprof_capture_reader_get_error (reader);
  if (error->code != 0)
    return error->message;
  if (stream_blocks > 0)
    {
      snprintf (message, sizeof message,
                "the capture holds %" PRIu64 " blocks of compact memory streams, which this build cannot read "
                "(its libsysprof-capture has no SysprofAllocationCursor): the counts above leave them out",
                stream_blocks);
      return message;
    }
  return NULL;
}
#endif

static int
usage (void)
{
  fprintf (stderr, "usage: memory-stacks [-H] CAPTURE\n");
  return 2;
}

int
main (int argc, char **argv)
{
  SysprofCaptureReader *reader;
  SysprofCaptureError   open_error = { 0 };
  const char           *failure;
  char                  lost[32], errors[32];
  int                   histogram = 0;
  int                   opt;

  while ((opt = getopt (argc, argv, "H")) != -1)
    {
      if (opt != 'H')
        return usage ();
      histogram = 1;
    }
  if (optind != argc - 1)
    return usage ();

  if ((reader = sysprof_capture_reader_new_with_error (argv[optind], &open_error)) == NULL)
    {
      fprintf (stderr, "memory-stacks: %s: %s\n", argv[optind],
               open_error.message[0] != '\0' ? open_error.message : strerror (errno));
      return 1;
    }
  failure = read_allocations (reader, lost, errors, sizeof lost);

  printf ("memory-stacks: reader=%s allocations=%" PRIu64 " releases=%" PRIu64 " no_stack=%" PRIu64
          " depth_mean=%.2f depth_max=%" PRIu32 " lost=%s errors=%s\n",
          READER, totals.allocations, totals.releases, totals.no_stack,
          totals.allocations > 0 ? (double) totals.depth_sum / (double) totals.allocations : 0.0, totals.depth_max,
          lost, errors);
  if (histogram)
    for (uint32_t d = 0; d <= totals.depth_max; d++)
      if (totals.histogram[d] > 0)
        printf ("depth %" PRIu32 " %" PRIu64 "\n", d, totals.histogram[d]);
  if (failure != NULL)
    fprintf (stderr, "memory-stacks: %s: %s\n", argv[optind], failure);
  sysprof_capture_reader_unref (reader);
  return failure != NULL ? 1 : 0;
}
