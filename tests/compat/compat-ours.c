// SPDX-License-Identifier: GPL-3.0-or-later
/* compat-ours: our side of the compatibility tests (see FORMAT.md).
 *
 * Writes the spec capture with our writer and prints the canonical dump and
 * frame statistics with our reader.  upstream-oracle does the same with
 * Debian's Sysprof 3.46 library; run-compat.sh compares the two. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sysprof-capture.h>

static const char *names[SYSPROF_CAPTURE_FRAME_LAST] = {
  NULL,     "TIMESTAMP", "SAMPLE",   "MAP", "PROCESS",    "FORK",       "EXIT",    "JITMAP", "CTRDEF",
  "CTRSET", "MARK",      "METADATA", "LOG", "FILE_CHUNK", "ALLOCATION", "OVERLAY", "TRACE",  "DBUS_MESSAGE",
};

static void
put_hex (uint64_t v)
{
  printf ("0x%016" PRIx64, v);
}

/* Prints at most @max bytes of @s, stopping at NUL, escaped as FORMAT.md says. */
static void
put_str (const char *s, size_t max)
{
  putchar ('"');
  for (size_t i = 0; i < max && s[i]; i++)
    {
      unsigned char c = (unsigned char) s[i];

      if (c == '"' || c == '\\')
        printf ("\\%c", c);
      else if (c >= 0x20 && c <= 0x7e)
        putchar (c);
      else
        printf ("\\x%02x", c);
    }
  putchar ('"');
}

static uint64_t
load64 (const void *p)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static void
put_addrs (const uint8_t *p, unsigned int n)
{
  printf (" n=%u addrs=[", n);
  for (unsigned int i = 0; i < n; i++)
    {
      if (i)
        putchar (',');
      put_hex (load64 (p + 8 * i));
    }
  putchar (']');
}

static void
dump_frame (const SysprofCaptureFrame *f)
{
  const uint8_t *base = (const uint8_t *) f;

  if (f->type == SYSPROF_CAPTURE_FRAME_JITMAP)
    printf ("JITMAP cpu=%d", f->cpu);
  else
    printf ("%s cpu=%d pid=%d time=%" PRId64, names[f->type], f->cpu, f->pid, f->time);

  switch (f->type)
    {
    case SYSPROF_CAPTURE_FRAME_FORK: printf (" child=%d", ((const SysprofCaptureFork *) f)->child_pid); break;

    case SYSPROF_CAPTURE_FRAME_PROCESS:
      printf (" cmdline=");
      put_str (((const SysprofCaptureProcess *) f)->cmdline, SIZE_MAX);
      break;

    case SYSPROF_CAPTURE_FRAME_MAP:
      {
        const SysprofCaptureMap *m = (const SysprofCaptureMap *) f;

        printf (" start=");
        put_hex (m->start);
        printf (" end=");
        put_hex (m->end);
        printf (" offset=");
        put_hex (m->offset);
        printf (" inode=%" PRIu64 " file=", m->inode);
        put_str (m->filename, SIZE_MAX);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_JITMAP:
      {
        const SysprofCaptureJitmap *j = (const SysprofCaptureJitmap *) f;
        const uint8_t              *pos = j->data;

        printf (" n=%u", j->n_jitmaps);
        for (uint32_t i = 0; i < j->n_jitmaps; i++)
          {
            putchar (' ');
            put_hex (load64 (pos));
            putchar ('=');
            put_str ((const char *) pos + 8, SIZE_MAX);
            pos += 8 + strlen ((const char *) pos + 8) + 1;
          }
      }
      break;

    case SYSPROF_CAPTURE_FRAME_SAMPLE:
    case SYSPROF_CAPTURE_FRAME_TRACE:
      {
        const SysprofCaptureTrace *s = (const SysprofCaptureTrace *) f;

        printf (" tid=%d", s->tid);
        if (f->type == SYSPROF_CAPTURE_FRAME_TRACE)
          printf (" entering=%u", s->entering);
        put_addrs (base + sizeof *s, s->n_addrs);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      {
        const SysprofCaptureCounterDefine *d = (const SysprofCaptureCounterDefine *) f;

        printf (" n=%u", d->n_counters);
        for (unsigned int i = 0; i < d->n_counters; i++)
          {
            const SysprofCaptureCounter *c = &d->counters[i];

            printf (" {id=%u type=%u category=", c->id, c->type);
            put_str (c->category, sizeof c->category);
            printf (" name=");
            put_str (c->name, sizeof c->name);
            printf (" description=");
            put_str (c->description, sizeof c->description);
            printf (" value=");
            put_hex (load64 ((const uint8_t *) c + offsetof (SysprofCaptureCounter, value)));
            putchar ('}');
          }
      }
      break;

    case SYSPROF_CAPTURE_FRAME_CTRSET:
      {
        const SysprofCaptureCounterSet *s = (const SysprofCaptureCounterSet *) f;

        printf (" n=%u", s->n_values);
        for (unsigned int i = 0; i < s->n_values; i++)
          {
            const uint8_t *g = (const uint8_t *) &s->values[i];

            printf (" {");
            for (unsigned int j = 0; j < 8; j++)
              {
                uint32_t id;

                memcpy (&id, g + 4 * j, 4);
                printf ("%s%u:", j ? "," : "", id);
                put_hex (load64 (g + 32 + 8 * j));
              }
            putchar ('}');
          }
      }
      break;

    case SYSPROF_CAPTURE_FRAME_MARK:
      {
        const SysprofCaptureMark *m = (const SysprofCaptureMark *) f;

        printf (" duration=%" PRId64 " group=", m->duration);
        put_str (m->group, sizeof m->group);
        printf (" name=");
        put_str (m->name, sizeof m->name);
        printf (" message=");
        put_str (m->message, SIZE_MAX);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_METADATA:
      {
        const SysprofCaptureMetadata *m = (const SysprofCaptureMetadata *) f;

        printf (" id=");
        put_str (m->id, sizeof m->id);
        printf (" metadata=");
        put_str (m->metadata, SIZE_MAX);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_LOG:
      {
        const SysprofCaptureLog *l = (const SysprofCaptureLog *) f;

        printf (" severity=%u domain=", l->severity);
        put_str (l->domain, sizeof l->domain);
        printf (" message=");
        put_str (l->message, SIZE_MAX);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      {
        const SysprofCaptureFileChunk *c = (const SysprofCaptureFileChunk *) f;

        printf (" path=");
        put_str (c->path, sizeof c->path);
        printf (" is_last=%u len=%u data=", c->is_last, c->len);
        for (unsigned int i = 0; i < c->len; i++)
          printf ("%02x", c->data[i]);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      {
        const SysprofCaptureAllocation *a = (const SysprofCaptureAllocation *) f;

        printf (" tid=%d addr=", a->tid);
        put_hex (a->alloc_addr);
        printf (" size=%" PRId64, a->alloc_size);
        put_addrs (base + sizeof *a, a->n_addrs);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_OVERLAY:
      {
        const SysprofCaptureOverlay *o = (const SysprofCaptureOverlay *) f;

        printf (" layer=%u src=", o->layer);
        put_str (sysprof_capture_overlay_get_src (o), SIZE_MAX);
        printf (" dst=");
        put_str (sysprof_capture_overlay_get_dst (o), SIZE_MAX);
      }
      break;

    case SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE:
      {
        const SysprofCaptureDBusMessage *m = (const SysprofCaptureDBusMessage *) f;

        printf (" bus_type=%u flags=%u len=%u data=", m->bus_type, m->flags, m->message_len);
        for (unsigned int i = 0; i < m->message_len; i++)
          printf ("%02x", m->message[i]);
      }
      break;

    default: break;
    }

  putchar ('\n');
}

/* Walks the capture like Sysprof 3.46 does: stops at the first unknown type. */
static int
walk (const char *filename, bool stats)
{
  SysprofCaptureError   error;
  SysprofCaptureReader *reader = sysprof_capture_reader_new_with_error (filename, &error);
  unsigned long         counts[SYSPROF_CAPTURE_FRAME_LAST] = { 0 };
  unsigned long         n = 0;
  int                   ret = 0;

  if (reader == NULL)
    {
      fprintf (stderr, "compat-ours: %s\n", error.message);
      return 1;
    }

  for (;;)
    {
      SysprofCaptureFrameType    type;
      const SysprofCaptureFrame *frame;

      if (!sysprof_capture_reader_peek_type (reader, &type))
        {
          if (sysprof_capture_reader_get_error (reader)->code != 0)
            {
              fprintf (stderr, "compat-ours: %s\n", sysprof_capture_reader_get_error (reader)->message);
              ret = 1;
            }
          break;
        }
      if (type <= 0 || type >= SYSPROF_CAPTURE_FRAME_LAST)
        break;
      n++;
      if (!(frame = sysprof_capture_reader_read_frame (reader)))
        {
          fprintf (stderr, "compat-ours: frame %lu: %s\n", n, sysprof_capture_reader_get_error (reader)->message);
          ret = 1;
          break;
        }
      counts[type]++;
      if (!stats)
        dump_frame (frame);
    }

  if (stats)
    for (unsigned int i = 1; i < SYSPROF_CAPTURE_FRAME_LAST; i++)
      if (counts[i])
        printf ("%s %lu\n", names[i], counts[i]);

  sysprof_capture_reader_unref (reader);
  return ret;
}

/* The spec capture plus what Sysprof 3.46 does not know: TRACE, DBUS_MESSAGE,
 * a MAP with a build-id and a Sysprof 45+ frame-index frame. */
static bool
write_extras (SysprofCaptureWriter *w)
{
  static const SysprofCaptureAddress addrs[] = { 0x400100, 0x400200, 0x400300 };
  static const uint8_t               message[] = { 'l', 1, 0, 1, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 };
  struct
  {
    SysprofCaptureFrame frame;
    uint64_t            previous;
  } index_frame;
  bool ok = true;

  ok &= sysprof_capture_writer_add_trace (w, 1017, 1, 100, 101, addrs, 3, true);
  ok &= sysprof_capture_writer_add_trace (w, 1018, 1, 100, 101, addrs, 2, false);
  ok &= sysprof_capture_writer_add_dbus_message (w, 1019, -1, 100, SYSPROF_CAPTURE_DBUS_TYPE_SESSION, 0, message,
                                                 sizeof message);
  ok &= sysprof_capture_writer_add_map_with_build_id (w, 1020, 0, 100, 0x500000, 0x501000, 0, 777,
                                                      "/usr/lib/libbuildid.so", "0123456789abcdef");

  /* Readers must skip this transparently. */
  memset (&index_frame, 0, sizeof index_frame);
  index_frame.frame.len = sizeof index_frame;
  index_frame.frame.cpu = -1;
  index_frame.frame.pid = -1;
  index_frame.frame.time = 1021;
  index_frame.frame.type = SYSPROF_CAPTURE_FRAME_TIMESTAMP;
  index_frame.frame.padding2 = SYSPROF_CAPTURE_FRAME_INDEX_MAGIC;
  ok &= sysprof_capture_writer_add_raw (w, &index_frame.frame);
  ok &= sysprof_capture_writer_add_exit (w, 1022, 0, 100);
  return ok;
}

static int
write_spec (const char *filename, bool extras)
{
  SysprofCaptureWriter      *w = sysprof_capture_writer_new (filename, 0);
  SysprofCaptureAddress      a1, a2, a3;
  SysprofCaptureCounter      counters[2];
  SysprofCaptureCounterValue values[2];
  unsigned int               ids[2];
  uint8_t                    chunk[100];
  unsigned int               c;
  bool                       ok = true;

  if (w == NULL)
    {
      perror ("compat-ours: cannot create the capture");
      return 1;
    }

  ok &= sysprof_capture_writer_add_timestamp (w, 1000, 0, 100);
  ok &= sysprof_capture_writer_add_process (w, 1001, 1, 100, "/usr/bin/spec-app --flag");
  ok &= sysprof_capture_writer_add_fork (w, 1002, -1, 100, 101);
  ok &= sysprof_capture_writer_add_map (w, 1003, 0, 100, 0x400000, 0x401000, 0x1000, 12345, "/usr/lib/libspec.so");
  a1 = sysprof_capture_writer_add_jitmap (w, "jit_func_one");
  a2 = sysprof_capture_writer_add_jitmap (w, "jit_func_two");
  a3 = sysprof_capture_writer_add_jitmap (w, "jit_func_one");
  if (a1 == 0 || a2 == 0 || a3 != a1)
    {
      fprintf (stderr, "compat-ours: JIT map de-duplication failed\n");
      return 1;
    }
  {
    SysprofCaptureAddress addrs[] = {
      SYSPROF_CAPTURE_ADDRESS_KERNEL, 0xffffffff81000010, SYSPROF_CAPTURE_ADDRESS_USER, 0x400100, 0x400200, a1, a2,
    };
    ok &= sysprof_capture_writer_add_sample (w, 1004, 1, 100, 101, addrs, 7);
  }
  ok &= sysprof_capture_writer_add_sample (w, 1005, 0, 101, 101, NULL, 0);

  c = sysprof_capture_writer_request_counter (w, 2);
  memset (counters, 0, sizeof counters);
  strcpy (counters[0].category, "CPU Percent");
  strcpy (counters[0].name, "Total CPU 0");
  strcpy (counters[0].description, "Total CPU usage 0");
  counters[0].id = c;
  counters[0].type = SYSPROF_CAPTURE_COUNTER_INT64;
  counters[0].value.v64 = 0;
  strcpy (counters[1].category, "Memory");
  strcpy (counters[1].name, "Used");
  strcpy (counters[1].description, "Memory used");
  counters[1].id = c + 1;
  counters[1].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
  counters[1].value.vdbl = 1.5;
  ok &= sysprof_capture_writer_define_counters (w, 1006, -1, -1, counters, 2);
  ids[0] = c;
  ids[1] = c + 1;
  values[0].v64 = 42;
  values[1].vdbl = 2.25;
  ok &= sysprof_capture_writer_set_counters (w, 1007, -1, -1, ids, values, 2);

  ok &=
      sysprof_capture_writer_add_mark (w, 1008, 0, 100, 500, "spec-group", "spec-mark", "mark message with \"quotes\"");
  ok &= sysprof_capture_writer_add_metadata (w, 1009, -1, 100, "local-profiler", "[profiler]\nwhole-system=true\n", -1);
  ok &= sysprof_capture_writer_add_log (w, 1010, 0, 100, 16, "SpecDomain", "log message");
  for (unsigned int i = 0; i < sizeof chunk; i++)
    chunk[i] = (uint8_t) i;
  ok &= sysprof_capture_writer_add_file (w, 1011, -1, -1, "/proc/spec-file", false, chunk, sizeof chunk);
  ok &= sysprof_capture_writer_add_file (w, 1012, -1, -1, "/proc/spec-file", true, (const uint8_t *) "tail\n", 5);
  {
    SysprofCaptureAddress addrs[] = { 0x400100, 0x400200 };
    ok &= sysprof_capture_writer_add_allocation_copy (w, 1013, 1, 100, 101, 0x7f0000001000, 64, addrs, 2);
  }
  ok &= sysprof_capture_writer_add_allocation_copy (w, 1014, 1, 100, 102, 0x7f0000001000, 0, NULL, 0);
  ok &= sysprof_capture_writer_add_overlay (w, 1015, -1, 100, 1, "/var/lib/containers/layer1", "/");
  ok &= sysprof_capture_writer_add_exit (w, 1016, 0, 101);
  if (extras)
    ok &= write_extras (w);
  ok &= sysprof_capture_writer_flush (w);
  sysprof_capture_writer_unref (w);

  if (!ok)
    {
      perror ("compat-ours: writing the spec capture failed");
      return 1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: compat-ours write|write-all|dump|stats FILE\n");
      return 2;
    }
  if (strcmp (argv[1], "write") == 0)
    return write_spec (argv[2], false);
  if (strcmp (argv[1], "write-all") == 0)
    return write_spec (argv[2], true);
  if (strcmp (argv[1], "dump") == 0)
    return walk (argv[2], false);
  if (strcmp (argv[1], "stats") == 0)
    return walk (argv[2], true);
  fprintf (stderr, "compat-ours: unknown command %s\n", argv[1]);
  return 2;
}
