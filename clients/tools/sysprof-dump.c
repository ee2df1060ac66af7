// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-dump: print the contents of a capture, one text block per frame. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sysprof-capture.h>

#include "sysprof-thread-map.h"

static const char *type_names[SYSPROF_CAPTURE_FRAME_LAST] = {
  [SYSPROF_CAPTURE_FRAME_TIMESTAMP] = "TIMESTAMP",
  [SYSPROF_CAPTURE_FRAME_SAMPLE] = "SAMPLE",
  [SYSPROF_CAPTURE_FRAME_MAP] = "MAP",
  [SYSPROF_CAPTURE_FRAME_PROCESS] = "PROCESS",
  [SYSPROF_CAPTURE_FRAME_FORK] = "FORK",
  [SYSPROF_CAPTURE_FRAME_EXIT] = "EXIT",
  [SYSPROF_CAPTURE_FRAME_JITMAP] = "JITMAP",
  [SYSPROF_CAPTURE_FRAME_CTRDEF] = "CTRDEF",
  [SYSPROF_CAPTURE_FRAME_CTRSET] = "CTRSET",
  [SYSPROF_CAPTURE_FRAME_MARK] = "MARK",
  [SYSPROF_CAPTURE_FRAME_METADATA] = "METADATA",
  [SYSPROF_CAPTURE_FRAME_LOG] = "LOG",
  [SYSPROF_CAPTURE_FRAME_FILE_CHUNK] = "FILE_CHUNK",
  [SYSPROF_CAPTURE_FRAME_ALLOCATION] = "ALLOCATION",
  [SYSPROF_CAPTURE_FRAME_OVERLAY] = "OVERLAY",
  [SYSPROF_CAPTURE_FRAME_TRACE] = "TRACE",
  [SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE] = "DBUS_MESSAGE",
};

typedef struct
{
  uint64_t frames[SYSPROF_CAPTURE_FRAME_LAST];
  uint64_t unknown;
  uint64_t sample_addrs;
  uint64_t allocs;
  uint64_t frees;
  uint64_t alloc_bytes;
  /* Paths of embedded files, collected during the one pass (works on pipes too). */
  char **files;
  size_t n_files;
  size_t size_files;
} Stats;

/* One memory stream: the blocks of a thread, decoded as they come (each
 * block's events are listed under its FILE_CHUNK frame). */
typedef struct
{
  int32_t                     pid;
  int32_t                     tid;
  SysprofMemoryStreamDecoder *decoder; /* NULL once the stream ended */
  uint64_t                    blocks;
  uint64_t                    allocs;
  uint64_t                    frees;
  uint64_t                    alloc_bytes;
  SysprofMemoryStreamStats    last; /* the decoder's stats after the previous block */
} Stream;

typedef struct
{
  const char      *file;
  bool             print;
  bool             damaged;
  Stream         **streams; /* in the order of their first blocks */
  size_t           n_streams;
  size_t           size_streams;
  SysprofThreadMap current; /* (pid, tid) -> its stream being read */
  uint64_t         unnamed; /* stream chunks naming no thread */
} Streams;

static void
usage (FILE *out)
{
  fprintf (out, "Usage: sysprof-dump [OPTION...] FILE\n"
                "\n"
                "Print the contents of a Sysprof capture file (.syscap), as written by this\n"
                "project or by GNOME Sysprof, in either byte order.\n"
                "\n"
                "Without options, prints the capture's time range and then one text block per\n"
                "frame, in file order; each block starts with the frame type and its byte\n"
                "offset in the file (\"SAMPLE @4096: ...\").\n"
                "\n"
                "Memory streams (compact allocation records: FILE_CHUNK frames named\n"
                "sysprof/memory-stream/TID, one stream per thread) are decoded: under each\n"
                "such chunk come its block type, the stacks it defines, the events it carries\n"
                "(\"alloc tid: T time: NS addr: A size: N addresses: K\" and its stack, or\n"
                "\"free tid: T time: NS addr: A\"), the events the tracker said it lost, and\n"
                "the error that ended the block if it is unsound (also on standard error).\n"
                "\n"
                "Options:\n"
                "  -l, --list-files   List the files embedded in the capture, one path per line,\n"
                "                     sorted (memory streams are not files: not listed).\n"
                "                     Sysprof 45+ stores compressed copies under PATH.gz; they\n"
                "                     are listed as stored.\n"
                "  -s, --stats        Print one line 'NAME COUNT' per frame type present (TIMESTAMP,\n"
                "                     SAMPLE, MAP, PROCESS, FORK, EXIT, JITMAP, CTRDEF, CTRSET, MARK,\n"
                "                     METADATA, LOG, FILE_CHUNK, ALLOCATION, OVERLAY, TRACE,\n"
                "                     DBUS_MESSAGE, and UNKNOWN for types this tool does not know),\n"
                "                     then SAMPLE_ADDRS (addresses in all SAMPLE frames), ALLOCS\n"
                "                     (allocations: ALLOCATION frames with size > 0 and stream\n"
                "                     allocation records), FREES (the other ALLOCATION frames and\n"
                "                     stream release records), ALLOC_BYTES, then 'FILE PATH' for\n"
                "                     each embedded file, then one line per memory stream:\n"
                "                     'STREAM pid=P tid=T blocks=N allocs=N frees=N bytes=N\n"
                "                     stacks=N lost=N errors=N' (a thread id reused after its\n"
                "                     stream ended has a line per stream).\n"
                "  -h, --help         Show this help and exit.\n"
                "      --version      Print the version and exit.\n"
                "\n"
                "Exit status: 0 when the whole capture was read; 1 when the file cannot be\n"
                "opened or is corrupt or truncated (everything before the damage is printed,\n"
                "then an error naming the byte offset), or holds an unsound memory stream\n"
                "block (its events before the fault are printed and counted); 2 on a usage\n"
                "error.\n");
}

static void
print_string_field (const char *label, const char *value)
{
  printf ("  %s: %s\n", label, value);
}

static void
print_addrs (const SysprofCaptureAddress *addrs_unaligned, unsigned int n)
{
  for (unsigned int i = 0; i < n; i++)
    {
      SysprofCaptureAddress addr;
      SysprofAddressContext context;

      memcpy (&addr, (const uint8_t *) addrs_unaligned + i * sizeof addr, sizeof addr);
      if (sysprof_address_is_context_switch (addr, &context))
        printf ("    " SYSPROF_CAPTURE_ADDRESS_FORMAT " (%s)\n", addr, sysprof_address_context_to_string (context));
      else
        printf ("    " SYSPROF_CAPTURE_ADDRESS_FORMAT "\n", addr);
    }
}

static void
print_frame (const SysprofCaptureFrame *frame, uint64_t offset)
{
  const char *name =
      frame->type < SYSPROF_CAPTURE_FRAME_LAST && type_names[frame->type] ? type_names[frame->type] : NULL;

  if (name)
    printf ("%s @%" PRIu64 ": pid=%d cpu=%d time=%" PRId64 " len=%u\n", name, offset, frame->pid, frame->cpu,
            frame->time, frame->len);
  else
    printf ("UNKNOWN(type=%u) @%" PRIu64 ": pid=%d cpu=%d time=%" PRId64 " len=%u\n", frame->type, offset, frame->pid,
            frame->cpu, frame->time, frame->len);

  switch (frame->type)
    {
    case SYSPROF_CAPTURE_FRAME_FORK:
      printf ("  child_pid: %d\n", ((const SysprofCaptureFork *) frame)->child_pid);
      break;

    case SYSPROF_CAPTURE_FRAME_PROCESS:
      print_string_field ("cmdline", ((const SysprofCaptureProcess *) frame)->cmdline);
      break;

    case SYSPROF_CAPTURE_FRAME_MAP:
      {
        const SysprofCaptureMap *map = (const SysprofCaptureMap *) frame;
        const char              *build_id = sysprof_capture_map_get_build_id (map);

        printf ("  range: 0x%" PRIx64 "-0x%" PRIx64 " offset: 0x%" PRIx64 " inode: %" PRIu64 "\n", map->start, map->end,
                map->offset, map->inode);
        print_string_field ("file", map->filename);
        if (build_id)
          print_string_field ("build-id", build_id);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_JITMAP:
      {
        const SysprofCaptureJitmap *jm = (const SysprofCaptureJitmap *) frame;
        const uint8_t              *pos = jm->data;

        for (uint32_t i = 0; i < jm->n_jitmaps; i++)
          {
            SysprofCaptureAddress addr;

            memcpy (&addr, pos, sizeof addr);
            printf ("  " SYSPROF_CAPTURE_ADDRESS_FORMAT ": %s\n", addr, (const char *) pos + 8);
            pos += 8 + strlen ((const char *) pos + 8) + 1;
          }
      }
      break;

    case SYSPROF_CAPTURE_FRAME_SAMPLE:
      {
        const SysprofCaptureSample *s = (const SysprofCaptureSample *) frame;

        if (sysprof_capture_sample_get_off_cpu_usec (s) != 0)
          printf ("  tid: %d addresses: %u off-cpu: %u us\n", s->tid, s->n_addrs,
                  sysprof_capture_sample_get_off_cpu_usec (s));
        else
          printf ("  tid: %d addresses: %u\n", s->tid, s->n_addrs);
        print_addrs ((const SysprofCaptureAddress *) ((const uint8_t *) s + sizeof *s), s->n_addrs);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_TRACE:
      {
        const SysprofCaptureTrace *t = (const SysprofCaptureTrace *) frame;

        printf ("  tid: %d %s addresses: %u\n", t->tid, t->entering ? "enter" : "exit", t->n_addrs);
        print_addrs ((const SysprofCaptureAddress *) ((const uint8_t *) t + sizeof *t), t->n_addrs);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      {
        const SysprofCaptureCounterDefine *def = (const SysprofCaptureCounterDefine *) frame;

        for (unsigned int i = 0; i < def->n_counters; i++)
          {
            const SysprofCaptureCounter *c = &def->counters[i];
            SysprofCaptureCounterValue   v;

            memcpy (&v, (const uint8_t *) c + offsetof (SysprofCaptureCounter, value), sizeof v);
            if (c->type == SYSPROF_CAPTURE_COUNTER_DOUBLE)
              printf ("  counter %u: [%s] %s (%s) double initial=%g\n", c->id, c->category, c->name, c->description,
                      v.vdbl);
            else
              printf ("  counter %u: [%s] %s (%s) int64 initial=%" PRId64 "\n", c->id, c->category, c->name,
                      c->description, v.v64);
          }
      }
      break;

    case SYSPROF_CAPTURE_FRAME_CTRSET:
      {
        const SysprofCaptureCounterSet *set = (const SysprofCaptureCounterSet *) frame;

        /* The value's type lives in the CTRDEF; show both readings. */
        for (unsigned int i = 0; i < set->n_values; i++)
          for (unsigned int j = 0; j < 8; j++)
            {
              SysprofCaptureCounterValue v;

              if (set->values[i].ids[j] == 0)
                continue;
              memcpy (&v, (const uint8_t *) &set->values[i] + 32 + j * 8, sizeof v);
              printf ("  counter %u = %" PRId64 " (as double %g)\n", set->values[i].ids[j], v.v64, v.vdbl);
            }
      }
      break;

    case SYSPROF_CAPTURE_FRAME_MARK:
      {
        const SysprofCaptureMark *m = (const SysprofCaptureMark *) frame;

        printf ("  duration: %" PRId64 " ns\n", m->duration);
        print_string_field ("group", m->group);
        print_string_field ("name", m->name);
        print_string_field ("message", m->message);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_METADATA:
      {
        const SysprofCaptureMetadata *m = (const SysprofCaptureMetadata *) frame;

        print_string_field ("id", m->id);
        printf ("  metadata: \"\"\"\n%s\n\"\"\"\n", m->metadata);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_LOG:
      {
        const SysprofCaptureLog *l = (const SysprofCaptureLog *) frame;

        printf ("  severity: %u\n", l->severity);
        print_string_field ("domain", l->domain);
        print_string_field ("message", l->message);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      {
        const SysprofCaptureFileChunk *c = (const SysprofCaptureFileChunk *) frame;

        print_string_field ("path", c->path);
        printf ("  bytes: %u%s\n", c->len, c->is_last ? " (last chunk)" : "");
      }
      break;

    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      {
        const SysprofCaptureAllocation *a = (const SysprofCaptureAllocation *) frame;

        if (a->alloc_size > 0)
          printf ("  alloc tid: %d addr: " SYSPROF_CAPTURE_ADDRESS_FORMAT " size: %" PRId64 " addresses: %u\n", a->tid,
                  a->alloc_addr, a->alloc_size, a->n_addrs);
        else
          printf ("  free tid: %d addr: " SYSPROF_CAPTURE_ADDRESS_FORMAT " addresses: %u\n", a->tid, a->alloc_addr,
                  a->n_addrs);
        print_addrs ((const SysprofCaptureAddress *) ((const uint8_t *) a + sizeof *a), a->n_addrs);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_OVERLAY:
      {
        const SysprofCaptureOverlay *o = (const SysprofCaptureOverlay *) frame;

        printf ("  layer: %u\n", o->layer);
        print_string_field ("src", sysprof_capture_overlay_get_src (o));
        print_string_field ("dst", sysprof_capture_overlay_get_dst (o));
      }
      break;

    case SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE:
      {
        const SysprofCaptureDBusMessage *m = (const SysprofCaptureDBusMessage *) frame;

        printf ("  bus: %u flags: 0x%x message bytes: %u%s\n", m->bus_type, m->flags, m->message_len,
                (m->flags & SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE) ? " (too large, omitted)" : "");
      }
      break;

    case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
    case SYSPROF_CAPTURE_FRAME_EXIT:
    default: break;
    }
}

static void
add_file (Stats *stats, const char *path)
{
  /* Chunks of one file come in runs: skip the common repeat cheaply, the
   * rest is de-duplicated after sorting. */
  if (stats->n_files > 0 && strcmp (stats->files[stats->n_files - 1], path) == 0)
    return;
  if (stats->n_files == stats->size_files)
    {
      size_t new_size = stats->size_files ? stats->size_files * 2 : 64;
      char **files = realloc (stats->files, new_size * sizeof *files);

      if (files == NULL)
        {
          fprintf (stderr, "sysprof-dump: out of memory\n");
          exit (1);
        }
      stats->files = files;
      stats->size_files = new_size;
    }
  if (!(stats->files[stats->n_files++] = strdup (path)))
    {
      fprintf (stderr, "sysprof-dump: out of memory\n");
      exit (1);
    }
}

static int
compare_paths (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
print_files (Stats *stats, const char *prefix)
{
  if (stats->n_files > 1)
    qsort (stats->files, stats->n_files, sizeof *stats->files, compare_paths);
  for (size_t i = 0; i < stats->n_files; i++)
    if (i == 0 || strcmp (stats->files[i], stats->files[i - 1]) != 0)
      printf ("%s%s\n", prefix, stats->files[i]);
}

static void
stats_clear (Stats *stats)
{
  for (size_t i = 0; i < stats->n_files; i++)
    free (stats->files[i]);
  free (stats->files);
}

static bool
is_stream_chunk (const SysprofCaptureFrame *frame)
{
  return frame->type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK &&
         strncmp (((const SysprofCaptureFileChunk *) frame)->path, SYSPROF_MEMORY_STREAM_PATH_PREFIX,
                  sizeof SYSPROF_MEMORY_STREAM_PATH_PREFIX - 1) == 0;
}

static void
out_of_memory (void)
{
  fprintf (stderr, "sysprof-dump: out of memory\n");
  exit (1);
}

/* The stream a block of (@pid, @tid) belongs to: a new one after a block
 * with is_last. */
static Stream *
stream_for (Streams *streams, int32_t pid, int32_t tid)
{
  Stream *stream = sysprof_thread_map_lookup (&streams->current, pid, tid);

  if (stream != NULL && stream->decoder != NULL)
    return stream;
  if (streams->n_streams == streams->size_streams)
    {
      size_t   new_size = streams->size_streams ? streams->size_streams * 2 : 64;
      Stream **items = realloc (streams->streams, new_size * sizeof *items);

      if (items == NULL)
        out_of_memory ();
      streams->streams = items;
      streams->size_streams = new_size;
    }
  if (!(stream = calloc (1, sizeof *stream)) || !(stream->decoder = sysprof_memory_stream_decoder_new (pid, tid)) ||
      !sysprof_thread_map_insert (&streams->current, pid, tid, stream))
    out_of_memory ();
  stream->pid = pid;
  stream->tid = tid;
  streams->streams[streams->n_streams++] = stream;
  return stream;
}

/* Decodes the block of a stream chunk, listing what it holds when printing. */
static void
decode_chunk (Streams *streams, Stats *stats, const SysprofCaptureFileChunk *chunk, uint64_t offset)
{
  SysprofMemoryStreamStats now;
  SysprofAllocationEvent   event;
  Stream                  *stream;
  int32_t                  tid;

  if (!sysprof_memory_stream_parse_path (chunk->path, &tid))
    {
      if (streams->print)
        printf ("  memory stream: none, the path names no thread\n");
      fflush (stdout);
      fprintf (stderr, "sysprof-dump: %s: the stream chunk at offset %" PRIu64 " names no thread (\"%s\")\n",
               streams->file, offset, chunk->path);
      streams->unnamed++;
      streams->damaged = true;
      return;
    }

  stream = stream_for (streams, chunk->frame.pid, tid);
  stream->blocks++;
  if (!sysprof_memory_stream_decoder_feed (stream->decoder, chunk->data, chunk->len, offset))
    out_of_memory ();
  if (streams->print)
    printf ("  memory stream block: %s\n", chunk->len == 0                                      ? "empty"
                                           : chunk->data[0] == SYSPROF_MEMORY_STREAM_BLOCK_ZSTD ? "zstd ('Z')"
                                           : chunk->data[0] == SYSPROF_MEMORY_STREAM_BLOCK_RAW  ? "raw ('R')"
                                                                                                : "unknown type");
  while (sysprof_memory_stream_decoder_next (stream->decoder, &event))
    {
      if (event.size > 0)
        {
          stream->allocs++;
          stream->alloc_bytes += (uint64_t) event.size;
          stats->allocs++;
          stats->alloc_bytes += (uint64_t) event.size;
        }
      else
        {
          stream->frees++;
          stats->frees++;
        }
      if (!streams->print)
        continue;
      if (event.size > 0)
        {
          printf ("  alloc tid: %d time: %" PRId64 " addr: " SYSPROF_CAPTURE_ADDRESS_FORMAT " size: %" PRId64
                  " addresses: %u\n",
                  event.tid, event.time, event.address, event.size, event.n_frames);
          for (uint32_t i = 0; i < event.n_frames; i++)
            printf ("    " SYSPROF_CAPTURE_ADDRESS_FORMAT "\n", event.frames[i]);
        }
      else
        printf ("  free tid: %d time: %" PRId64 " addr: " SYSPROF_CAPTURE_ADDRESS_FORMAT "\n", event.tid, event.time,
                event.address);
    }

  sysprof_memory_stream_decoder_get_stats (stream->decoder, &now);
  if (streams->print && now.stacks > stream->last.stacks)
    printf ("  stacks defined: %" PRIu64 "\n", now.stacks - stream->last.stacks);
  if (streams->print && now.resets > stream->last.resets)
    printf ("  stack ids reset\n");
  if (streams->print && now.lost > stream->last.lost)
    printf ("  lost: %" PRIu64 " events the tracker could not record\n", now.lost - stream->last.lost);
  if (now.errors > stream->last.errors)
    {
      char why[512];

      /* The decoder describes the first error of a stream only. */
      if (stream->last.errors == 0)
        snprintf (why, sizeof why, "%s", sysprof_memory_stream_decoder_get_error (stream->decoder));
      else
        snprintf (why, sizeof why,
                  "the memory stream of thread %d (pid %d) has another unsound block, at offset %" PRIu64
                  ": its events after the fault are left out",
                  tid, chunk->frame.pid, offset);
      if (streams->print)
        printf ("  error: %s\n", why);
      fflush (stdout);
      fprintf (stderr, "sysprof-dump: %s: %s\n", streams->file, why);
      streams->damaged = true;
    }
  stream->last = now;

  if (chunk->is_last)
    {
      sysprof_memory_stream_decoder_free (stream->decoder);
      stream->decoder = NULL;
    }
}

static void
print_streams (Streams *streams)
{
  for (size_t i = 0; i < streams->n_streams; i++)
    {
      const Stream *st = streams->streams[i];

      printf ("STREAM pid=%d tid=%d blocks=%" PRIu64 " allocs=%" PRIu64 " frees=%" PRIu64 " bytes=%" PRIu64
              " stacks=%" PRIu64 " lost=%" PRIu64 " errors=%" PRIu64 "\n",
              st->pid, st->tid, st->blocks, st->allocs, st->frees, st->alloc_bytes, st->last.stacks, st->last.lost,
              st->last.errors);
    }
}

static void
streams_clear (Streams *streams)
{
  for (size_t i = 0; i < streams->n_streams; i++)
    {
      sysprof_memory_stream_decoder_free (streams->streams[i]->decoder);
      free (streams->streams[i]);
    }
  free (streams->streams);
  sysprof_thread_map_clear (&streams->current);
}

static void
account (Stats *stats, const SysprofCaptureFrame *frame)
{
  if (frame->type >= SYSPROF_CAPTURE_FRAME_LAST || frame->type == 0)
    {
      stats->unknown++;
      return;
    }

  stats->frames[frame->type]++;
  if (frame->type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK && !is_stream_chunk (frame))
    add_file (stats, ((const SysprofCaptureFileChunk *) frame)->path);
  else if (frame->type == SYSPROF_CAPTURE_FRAME_SAMPLE)
    stats->sample_addrs += ((const SysprofCaptureSample *) frame)->n_addrs;
  else if (frame->type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
    {
      const SysprofCaptureAllocation *a = (const SysprofCaptureAllocation *) frame;

      if (a->alloc_size > 0)
        {
          stats->allocs++;
          stats->alloc_bytes += (uint64_t) a->alloc_size;
        }
      else
        stats->frees++;
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
    { "list-files", no_argument, NULL, 'l' },
    { "stats", no_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
  };
  SysprofCaptureError   error;
  SysprofCaptureReader *reader;
  Stats                 stats = { { 0 } };
  Streams               streams = { 0 };
  bool                  list_files = false;
  bool                  show_stats = false;
  bool                  damaged = false;
  int                   opt;

  while ((opt = getopt_long (argc, argv, "lsh", long_options, NULL)) != -1)
    {
      switch (opt)
        {
        case 'l': list_files = true; break;
        case 's': show_stats = true; break;
        case 'h': usage (stdout); return 0;
        case OPT_VERSION: printf ("sysprof-dump " SYSPROF_PROJECT_VERSION "\n"); return 0;
        default: fprintf (stderr, "Try 'sysprof-dump --help' for more information.\n"); return 2;
        }
    }

  if (optind + 1 != argc)
    {
      fprintf (stderr, "sysprof-dump: %s\nTry 'sysprof-dump --help' for more information.\n",
               optind >= argc ? "missing capture FILE" : "only one capture FILE may be given");
      return 2;
    }

  if (!(reader = sysprof_capture_reader_new_with_error (argv[optind], &error)))
    {
      fprintf (stderr, "sysprof-dump: %s: %s\n", argv[optind], error.message);
      return 1;
    }

  streams.file = argv[optind];
  streams.print = !show_stats && !list_files;
  if (!show_stats && !list_files)
    {
      printf ("Capture time: %s\n", sysprof_capture_reader_get_time (reader));
      printf ("Byte order: %s\n",
              sysprof_capture_reader_get_byte_order (reader) == SYSPROF_CAPTURE_BYTE_ORDER_BIG_ENDIAN
                  ? "big-endian"
                  : "little-endian");
      printf ("Start time: %" PRId64 "\n", sysprof_capture_reader_get_start_time (reader));
      printf ("End time: %" PRId64 "\n", sysprof_capture_reader_get_end_time (reader));
    }

  for (;;)
    {
      SysprofCaptureFrameType    type;
      const SysprofCaptureFrame *frame;
      uint64_t                   offset;

      if (!sysprof_capture_reader_peek_type (reader, &type))
        break;
      offset = sysprof_capture_reader_get_offset (reader);

      if (!(frame = sysprof_capture_reader_read_frame (reader)))
        {
          /* A frame whose payload is corrupt: report it and go on with the next. */
          fprintf (stderr, "sysprof-dump: %s: %s\n", argv[optind], sysprof_capture_reader_get_error (reader)->message);
          damaged = true;
          sysprof_capture_reader_skip (reader);
          continue;
        }

      account (&stats, frame);
      if (!show_stats && !list_files)
        print_frame (frame, offset);
      if (is_stream_chunk (frame))
        decode_chunk (&streams, &stats, (const SysprofCaptureFileChunk *) frame, offset);
    }

  if (sysprof_capture_reader_get_error (reader)->code != 0)
    {
      fflush (stdout);
      fprintf (stderr, "sysprof-dump: %s: %s\n", argv[optind], sysprof_capture_reader_get_error (reader)->message);
      damaged = true;
    }

  if (show_stats)
    {
      for (unsigned int i = 1; i < SYSPROF_CAPTURE_FRAME_LAST; i++)
        if (stats.frames[i])
          printf ("%s %" PRIu64 "\n", type_names[i], stats.frames[i]);
      if (stats.unknown)
        printf ("UNKNOWN %" PRIu64 "\n", stats.unknown);
      printf ("SAMPLE_ADDRS %" PRIu64 "\n", stats.sample_addrs);
      printf ("ALLOCS %" PRIu64 "\n", stats.allocs);
      printf ("FREES %" PRIu64 "\n", stats.frees);
      printf ("ALLOC_BYTES %" PRIu64 "\n", stats.alloc_bytes);
      print_files (&stats, "FILE ");
      print_streams (&streams);
    }
  else if (list_files)
    print_files (&stats, "");

  stats_clear (&stats);
  streams_clear (&streams);
  sysprof_capture_reader_unref (reader);
  return damaged || streams.damaged ? 1 : 0;
}
