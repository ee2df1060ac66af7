// SPDX-License-Identifier: GPL-3.0-or-later
/* upstream-oracle.c
 *
 * Test oracle for the compatibility tests (see FORMAT.md in this directory).
 *
 * This program links only Debian's Sysprof 3.46 static capture library
 * (libsysprof-capture-4.a, pkg-config sysprof-capture-4) and uses its writer
 * and reader to produce and read captures, printing the canonical dump that
 * compat-ours prints for our library.  It must stay a separate executable:
 * our libsysprof-capture defines the same symbol names as the upstream
 * library, so the two can never be linked into one binary.  The two sides
 * only talk through capture files.
 *
 * Commands:
 *   upstream-oracle write FILE   write the spec capture with the upstream writer
 *   upstream-oracle dump FILE    print the canonical dump, one line per frame
 *   upstream-oracle stats FILE   print "NAME COUNT" per frame type present
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sysprof-capture.h>

#define N_FRAME_TYPES 16

static const char *const frame_type_names[N_FRAME_TYPES] = {
  NULL,
  "TIMESTAMP",
  "SAMPLE",
  "MAP",
  "PROCESS",
  "FORK",
  "EXIT",
  "JITMAP",
  "CTRDEF",
  "CTRSET",
  "MARK",
  "METADATA",
  "LOG",
  "FILE_CHUNK",
  "ALLOCATION",
  "OVERLAY",
};

static const char *prog = "upstream-oracle";

/* ------------------------------------------------------------------------ */
/* Output helpers                                                           */
/* ------------------------------------------------------------------------ */

static void
print_hex (uint64_t value)
{
  printf ("0x%016" PRIx64, value);
}

/* Print a <str>: the bytes up to the first NUL or up to max_len bytes,
 * whichever comes first, quoted and escaped as FORMAT.md describes. */
static void
print_str (const char *s,
           size_t      max_len)
{
  size_t i;

  putchar ('"');
  for (i = 0; i < max_len && s[i] != '\0'; i++)
    {
      unsigned char c = (unsigned char)s[i];

      if (c == '"' || c == '\\')
        {
          putchar ('\\');
          putchar (c);
        }
      else if (c >= 0x20 && c <= 0x7e)
        putchar (c);
      else
        printf ("\\x%02x", c);
    }
  putchar ('"');
}

/* Bytes left in a frame after a fixed-size header, 0 if none. */
static size_t
tail_len (const SysprofCaptureFrame *frame,
          size_t                     header_size)
{
  if (frame->len <= header_size)
    return 0;
  return frame->len - header_size;
}

static void
print_header (const char                *name,
              const SysprofCaptureFrame *frame)
{
  printf ("%s cpu=%d pid=%" PRId32 " time=%" PRId64,
          name, (int)frame->cpu, frame->pid, frame->time);
}

static void
print_addrs (const SysprofCaptureAddress *addrs,
             unsigned int                 n_addrs)
{
  unsigned int i;

  printf (" n=%u addrs=[", n_addrs);
  for (i = 0; i < n_addrs; i++)
    {
      SysprofCaptureAddress addr;

      /* The reader guarantees alignment, but stay safe anyway. */
      memcpy (&addr, &addrs[i], sizeof addr);
      if (i > 0)
        putchar (',');
      print_hex (addr);
    }
  putchar (']');
}

static uint64_t
raw_value (const SysprofCaptureCounterValue *value)
{
  uint64_t raw;

  memcpy (&raw, value, sizeof raw);
  return raw;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum
{
  MODE_DUMP,
  MODE_STATS,
} WalkMode;

/* Read the frame at the reader position with the typed reader for @type
 * and, in dump mode, print its canonical line.  Returns false when the
 * frame cannot be read; *why explains it. */
static bool
read_one (SysprofCaptureReader    *reader,
          SysprofCaptureFrameType  type,
          bool                     print,
          const char             **why)
{
  *why = "the upstream reader returned NULL";

  switch (type)
    {
    case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
      {
        const SysprofCaptureTimestamp *ts;

        if (!(ts = sysprof_capture_reader_read_timestamp (reader)))
          return false;
        if (print)
          print_header ("TIMESTAMP", &ts->frame);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_SAMPLE:
      {
        const SysprofCaptureSample *s;

        if (!(s = sysprof_capture_reader_read_sample (reader)))
          return false;
        if (print)
          {
            print_header ("SAMPLE", &s->frame);
            printf (" tid=%" PRId32, s->tid);
            print_addrs (s->addrs, s->n_addrs);
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_MAP:
      {
        const SysprofCaptureMap *map;

        if (!(map = sysprof_capture_reader_read_map (reader)))
          return false;
        if (print)
          {
            print_header ("MAP", &map->frame);
            printf (" start=");
            print_hex (map->start);
            printf (" end=");
            print_hex (map->end);
            printf (" offset=");
            print_hex (map->offset);
            printf (" inode=%" PRIu64 " file=", map->inode);
            print_str (map->filename, tail_len (&map->frame, sizeof *map));
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_PROCESS:
      {
        const SysprofCaptureProcess *pr;

        if (!(pr = sysprof_capture_reader_read_process (reader)))
          return false;
        if (print)
          {
            print_header ("PROCESS", &pr->frame);
            printf (" cmdline=");
            print_str (pr->cmdline, tail_len (&pr->frame, sizeof *pr));
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_FORK:
      {
        const SysprofCaptureFork *fk;

        if (!(fk = sysprof_capture_reader_read_fork (reader)))
          return false;
        if (print)
          {
            print_header ("FORK", &fk->frame);
            printf (" child=%" PRId32, fk->child_pid);
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_EXIT:
      {
        const SysprofCaptureExit *ex;

        if (!(ex = sysprof_capture_reader_read_exit (reader)))
          return false;
        if (print)
          print_header ("EXIT", &ex->frame);
        break;
      }

    case SYSPROF_CAPTURE_FRAME_JITMAP:
      {
        const SysprofCaptureJitmap *jitmap;
        const uint8_t *buf;
        const uint8_t *end;
        unsigned int i;

        if (!(jitmap = sysprof_capture_reader_read_jitmap (reader)))
          return false;

        /* The reader already checked that every entry fits in the frame;
         * walk the packed entries again, bounded by the frame length. */
        buf = jitmap->data;
        end = (const uint8_t *)jitmap + jitmap->frame.len;
        if (end < buf)
          end = buf;

        if (print)
          printf ("JITMAP cpu=%d n=%" PRIu32, (int)jitmap->frame.cpu,
                  jitmap->n_jitmaps);

        for (i = 0; i < jitmap->n_jitmaps; i++)
          {
            SysprofCaptureAddress addr;
            const uint8_t *nul;

            if ((size_t)(end - buf) < sizeof addr)
              {
                *why = "a JITMAP entry runs past the end of the frame";
                if (print)
                  putchar ('\n');
                return false;
              }
            memcpy (&addr, buf, sizeof addr);
            buf += sizeof addr;

            if (!(nul = memchr (buf, '\0', end - buf)))
              {
                *why = "a JITMAP name is not NUL-terminated within the frame";
                if (print)
                  putchar ('\n');
                return false;
              }

            if (print)
              {
                putchar (' ');
                print_hex (addr);
                putchar ('=');
                print_str ((const char *)buf, nul - buf);
              }
            buf = nul + 1;
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      {
        const SysprofCaptureCounterDefine *def;
        unsigned int i;

        if (!(def = sysprof_capture_reader_read_counter_define (reader)))
          return false;

        /* Upstream only checks n_counters against the size of the frame
         * header, not of a counter; refuse to read past the frame. */
        if (sizeof *def + (size_t)def->n_counters * sizeof (SysprofCaptureCounter)
            > def->frame.len)
          {
            *why = "CTRDEF counters run past the end of the frame "
                   "(the upstream reader does not check this)";
            return false;
          }

        if (print)
          {
            print_header ("CTRDEF", &def->frame);
            printf (" n=%u", (unsigned int)def->n_counters);
            for (i = 0; i < def->n_counters; i++)
              {
                const SysprofCaptureCounter *ctr = &def->counters[i];

                printf (" {id=%u type=%u category=",
                        (unsigned int)ctr->id, (unsigned int)ctr->type);
                print_str (ctr->category, sizeof ctr->category);
                printf (" name=");
                print_str (ctr->name, sizeof ctr->name);
                printf (" description=");
                print_str (ctr->description, sizeof ctr->description);
                printf (" value=");
                print_hex (raw_value (&ctr->value));
                putchar ('}');
              }
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_CTRSET:
      {
        const SysprofCaptureCounterSet *set;
        unsigned int i;
        unsigned int j;

        if (!(set = sysprof_capture_reader_read_counter_set (reader)))
          return false;
        if (print)
          {
            print_header ("CTRSET", &set->frame);
            printf (" n=%u", (unsigned int)set->n_values);
            for (i = 0; i < set->n_values; i++)
              {
                const SysprofCaptureCounterValues *group = &set->values[i];

                printf (" {");
                for (j = 0; j < 8; j++)
                  {
                    if (j > 0)
                      putchar (',');
                    printf ("%" PRIu32 ":", group->ids[j]);
                    print_hex (raw_value (&group->values[j]));
                  }
                putchar ('}');
              }
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_MARK:
      {
        const SysprofCaptureMark *mark;

        if (!(mark = sysprof_capture_reader_read_mark (reader)))
          return false;
        if (print)
          {
            print_header ("MARK", &mark->frame);
            printf (" duration=%" PRId64 " group=", mark->duration);
            print_str (mark->group, sizeof mark->group);
            printf (" name=");
            print_str (mark->name, sizeof mark->name);
            printf (" message=");
            print_str (mark->message, tail_len (&mark->frame, sizeof *mark));
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_METADATA:
      {
        const SysprofCaptureMetadata *md;

        if (!(md = sysprof_capture_reader_read_metadata (reader)))
          return false;
        if (print)
          {
            print_header ("METADATA", &md->frame);
            printf (" id=");
            print_str (md->id, sizeof md->id);
            printf (" metadata=");
            print_str (md->metadata, tail_len (&md->frame, sizeof *md));
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_LOG:
      {
        const SysprofCaptureLog *log;

        if (!(log = sysprof_capture_reader_read_log (reader)))
          return false;
        if (print)
          {
            print_header ("LOG", &log->frame);
            printf (" severity=%u domain=", (unsigned int)log->severity);
            print_str (log->domain, sizeof log->domain);
            printf (" message=");
            print_str (log->message, tail_len (&log->frame, sizeof *log));
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      {
        const SysprofCaptureFileChunk *fc;
        unsigned int i;

        if (!(fc = sysprof_capture_reader_read_file (reader)))
          return false;
        if (print)
          {
            print_header ("FILE_CHUNK", &fc->frame);
            printf (" path=");
            print_str (fc->path, sizeof fc->path);
            /* The reader checked that len fits in the frame. */
            printf (" is_last=%u len=%u data=",
                    (unsigned int)fc->is_last, (unsigned int)fc->len);
            for (i = 0; i < fc->len; i++)
              printf ("%02x", fc->data[i]);
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      {
        const SysprofCaptureAllocation *ev;

        if (!(ev = sysprof_capture_reader_read_allocation (reader)))
          return false;
        if (print)
          {
            print_header ("ALLOCATION", &ev->frame);
            printf (" tid=%" PRId32 " addr=", ev->tid);
            print_hex (ev->alloc_addr);
            printf (" size=%" PRId64, ev->alloc_size);
            print_addrs (ev->addrs, ev->n_addrs);
          }
        break;
      }

    case SYSPROF_CAPTURE_FRAME_OVERLAY:
      {
        const SysprofCaptureOverlay *ov;

        if (!(ov = sysprof_capture_reader_read_overlay (reader)))
          return false;
        if (print)
          {
            /* The reader checked src_len + dst_len + 2 fits in the frame. */
            print_header ("OVERLAY", &ov->frame);
            printf (" layer=%u src=", (unsigned int)ov->layer);
            print_str (ov->data, ov->src_len);
            printf (" dst=");
            print_str (&ov->data[ov->src_len + 1], ov->dst_len);
          }
        break;
      }

    default:
      *why = "unknown frame type";
      return false;
    }

  if (print)
    putchar ('\n');

  return true;
}

static int
walk (const char *filename,
      WalkMode    mode)
{
  SysprofCaptureReader *reader;
  SysprofCaptureFrameType type;
  size_t counts[N_FRAME_TYPES] = { 0 };
  unsigned long frame_no = 0;
  int ret = EXIT_SUCCESS;
  unsigned int i;

  if (!(reader = sysprof_capture_reader_new (filename)))
    {
      int errsv = errno;

      fprintf (stderr, "%s: cannot open capture %s: %s\n",
               prog, filename, strerror (errsv));
      return EXIT_FAILURE;
    }

  /* Like upstream's own tools, stop as soon as peek_type fails: at the end
   * of the file, on a truncated frame header or on an unknown type. */
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const char *why = NULL;

      frame_no++;

      if (!read_one (reader, type, mode == MODE_DUMP, &why))
        {
          fflush (stdout);
          fprintf (stderr, "%s: %s: cannot read frame %lu (%s): %s\n",
                   prog, filename, frame_no,
                   (type > 0 && type < N_FRAME_TYPES) ? frame_type_names[type] : "?",
                   why);
          ret = EXIT_FAILURE;
          break;
        }

      counts[type]++;
    }

  if (mode == MODE_STATS)
    {
      for (i = 1; i < N_FRAME_TYPES; i++)
        if (counts[i] > 0)
          printf ("%s %zu\n", frame_type_names[i], counts[i]);
    }

  sysprof_capture_reader_unref (reader);

  if (fflush (stdout) != 0)
    {
      fprintf (stderr, "%s: error writing output: %s\n", prog, strerror (errno));
      return EXIT_FAILURE;
    }

  return ret;
}

/* ------------------------------------------------------------------------ */
/* Writing the spec capture                                                 */
/* ------------------------------------------------------------------------ */

static void
copy_field (char       *dst,
            size_t      dst_size,
            const char *src)
{
  size_t len = strlen (src);

  memset (dst, 0, dst_size);
  if (len >= dst_size)
    len = dst_size - 1;
  memcpy (dst, src, len);
}

#define CHECK(expr)                                                     \
  do                                                                    \
    {                                                                   \
      if (!(expr))                                                      \
        {                                                               \
          fprintf (stderr, "%s: %s:%d: %s failed\n",                    \
                   prog, __FILE__, __LINE__, #expr);                    \
          return EXIT_FAILURE;                                          \
        }                                                               \
    }                                                                   \
  while (0)

static int
write_spec (const char *filename)
{
  static const char metadata[] = "[profiler]\nwhole-system=true\n";
  static const uint8_t tail[] = { 't', 'a', 'i', 'l', '\n' };
  SysprofCaptureWriter *writer;
  SysprofCaptureCounter counters[2];
  SysprofCaptureCounterValue values[2];
  SysprofCaptureAddress sample_addrs[7];
  SysprofCaptureAddress alloc_addrs[2] = { 0x400100, 0x400200 };
  SysprofCaptureAddress none[1] = { 0 };
  SysprofCaptureAddress a1;
  SysprofCaptureAddress a2;
  SysprofCaptureAddress a3;
  unsigned int ids[2];
  unsigned int c;
  uint8_t chunk[100];
  unsigned int i;

  if (!(writer = sysprof_capture_writer_new (filename, 0)))
    {
      int errsv = errno;

      fprintf (stderr, "%s: cannot create capture %s: %s\n",
               prog, filename, strerror (errsv));
      return EXIT_FAILURE;
    }

  /* 1. */
  CHECK (sysprof_capture_writer_add_timestamp (writer, 1000, 0, 100));

  /* 2. */
  CHECK (sysprof_capture_writer_add_process (writer, 1001, 1, 100,
                                             "/usr/bin/spec-app --flag"));

  /* 3. */
  CHECK (sysprof_capture_writer_add_fork (writer, 1002, -1, 100, 101));

  /* 4. */
  CHECK (sysprof_capture_writer_add_map (writer, 1003, 0, 100,
                                         0x400000, 0x401000, 0x1000, 12345,
                                         "/usr/lib/libspec.so"));

  /* 5. */
  a1 = sysprof_capture_writer_add_jitmap (writer, "jit_func_one");
  a2 = sysprof_capture_writer_add_jitmap (writer, "jit_func_two");
  a3 = sysprof_capture_writer_add_jitmap (writer, "jit_func_one");
  CHECK (a1 != 0 && a2 != 0 && a1 != a2);
  CHECK (a3 == a1);

  /* 6. */
  sample_addrs[0] = UINT64_C (0xffffffffffffff80);
  sample_addrs[1] = UINT64_C (0xffffffff81000010);
  sample_addrs[2] = UINT64_C (0xfffffffffffffe00);
  sample_addrs[3] = 0x400100;
  sample_addrs[4] = 0x400200;
  sample_addrs[5] = a1;
  sample_addrs[6] = a2;
  CHECK (sysprof_capture_writer_add_sample (writer, 1004, 1, 100, 101,
                                            sample_addrs, 7));

  /* 7. (a valid pointer even though no address is copied) */
  CHECK (sysprof_capture_writer_add_sample (writer, 1005, 0, 101, 101,
                                            none, 0));

  /* 8. */
  c = sysprof_capture_writer_request_counter (writer, 2);
  memset (counters, 0, sizeof counters);
  copy_field (counters[0].category, sizeof counters[0].category, "CPU Percent");
  copy_field (counters[0].name, sizeof counters[0].name, "Total CPU 0");
  copy_field (counters[0].description, sizeof counters[0].description,
              "Total CPU usage 0");
  counters[0].id = c;
  counters[0].type = SYSPROF_CAPTURE_COUNTER_INT64;
  counters[0].value.v64 = 0;
  copy_field (counters[1].category, sizeof counters[1].category, "Memory");
  copy_field (counters[1].name, sizeof counters[1].name, "Used");
  copy_field (counters[1].description, sizeof counters[1].description,
              "Memory used");
  counters[1].id = c + 1;
  counters[1].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
  counters[1].value.vdbl = 1.5;
  CHECK (sysprof_capture_writer_define_counters (writer, 1006, -1, -1,
                                                 counters, 2));

  /* 9. */
  ids[0] = c;
  ids[1] = c + 1;
  memset (values, 0, sizeof values);
  values[0].v64 = 42;
  values[1].vdbl = 2.25;
  CHECK (sysprof_capture_writer_set_counters (writer, 1007, -1, -1,
                                              ids, values, 2));

  /* 10. */
  CHECK (sysprof_capture_writer_add_mark (writer, 1008, 0, 100, 500,
                                          "spec-group", "spec-mark",
                                          "mark message with \"quotes\""));

  /* 11. */
  CHECK (sysprof_capture_writer_add_metadata (writer, 1009, -1, 100,
                                              "local-profiler",
                                              metadata, -1));

  /* 12. */
  CHECK (sysprof_capture_writer_add_log (writer, 1010, 0, 100, 16,
                                         "SpecDomain", "log message"));

  /* 13. */
  for (i = 0; i < sizeof chunk; i++)
    chunk[i] = (uint8_t)i;
  CHECK (sysprof_capture_writer_add_file (writer, 1011, -1, -1,
                                          "/proc/spec-file", false,
                                          chunk, sizeof chunk));

  /* 14. */
  CHECK (sysprof_capture_writer_add_file (writer, 1012, -1, -1,
                                          "/proc/spec-file", true,
                                          tail, sizeof tail));

  /* 15. */
  CHECK (sysprof_capture_writer_add_allocation_copy (writer, 1013, 1, 100, 101,
                                                     UINT64_C (0x7f0000001000), 64,
                                                     alloc_addrs, 2));

  /* 16. (a free) */
  CHECK (sysprof_capture_writer_add_allocation_copy (writer, 1014, 1, 100, 102,
                                                     UINT64_C (0x7f0000001000), 0,
                                                     none, 0));

  /* 17. */
  CHECK (sysprof_capture_writer_add_overlay (writer, 1015, -1, 100, 1,
                                             "/var/lib/containers/layer1", "/"));

  /* 18. */
  CHECK (sysprof_capture_writer_add_exit (writer, 1016, 0, 101));

  /* The flush emits the pending JIT map as the last frame. */
  CHECK (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------------ */

static void
usage (void)
{
  fprintf (stderr,
           "usage: %s write FILE\n"
           "       %s dump FILE\n"
           "       %s stats FILE\n",
           prog, prog, prog);
}

int
main (int   argc,
      char *argv[])
{
  if (argc != 3)
    {
      usage ();
      return EXIT_FAILURE;
    }

  /* sysprof-clock.h defines sysprof_clock in every file including it, so
   * the library's own definition (initialised to -1) is not linked in;
   * restore its initial value so the writer falls back to CLOCK_MONOTONIC
   * as it does upstream. */
  sysprof_clock = -1;

  if (strcmp (argv[1], "write") == 0)
    return write_spec (argv[2]);
  if (strcmp (argv[1], "dump") == 0)
    return walk (argv[2], MODE_DUMP);
  if (strcmp (argv[1], "stats") == 0)
    return walk (argv[2], MODE_STATS);

  usage ();
  return EXIT_FAILURE;
}
