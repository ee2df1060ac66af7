// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>

#include "sysprof-capture-reader-private.h"
#include "sysprof-capture-util-private.h"

/* Big enough that refills are rare, and always more than two maximal frames. */
/* Reads are large enough that the kernel copy dominates, not the syscalls;
 * small files get a small buffer, but never less than two maximal frames. */
#define READ_BUFFER_SIZE     (512 * 1024)
#define READ_BUFFER_SIZE_MIN (2 * 65536)

struct _SysprofCaptureReader
{
  atomic_int ref_count;
  int        fd;
  bool       stream;    /* pipe or socket: read() in order, no seeking */
  bool       swap;      /* file byte order differs from the host's */
  bool       fatal;     /* frame boundaries lost; iteration is over */
  bool       cur_valid; /* payload of the frame at prepared_offset is sound */
  bool       has_stat;
  char      *filename;

  SysprofCaptureFileHeader header;

  uint8_t *buf;
  size_t   buf_size;
  size_t   buf_pos;    /* current frame */
  size_t   buf_len;    /* valid bytes */
  uint64_t buf_offset; /* file offset of buf[0] */
  uint64_t prepared_offset;

  int64_t max_time_seen;
  int64_t end_time;
  bool    end_time_known;

  SysprofCaptureError error;
  SysprofCaptureStat  stat;
};

static void set_error (SysprofCaptureError *error, int code, uint64_t offset, const char *format, ...)
    SYSPROF_PRINTF (4, 5);

static void
set_error (SysprofCaptureError *error, int code, uint64_t offset, const char *format, ...)
{
  va_list args;

  if (error == NULL)
    return;

  error->code = code;
  error->offset = offset;
  va_start (args, format);
  vsnprintf (error->message, sizeof error->message, format, args);
  va_end (args);
}

static const char *
frame_type_name (unsigned type)
{
  static const char *names[] = {
    "unknown", "TIMESTAMP", "SAMPLE",   "MAP", "PROCESS",    "FORK",       "EXIT",    "JITMAP", "CTRDEF",
    "CTRSET",  "MARK",      "METADATA", "LOG", "FILE_CHUNK", "ALLOCATION", "OVERLAY", "TRACE",  "DBUS_MESSAGE",
  };

  return type < SYSPROF_N_ELEMENTS (names) ? names[type] : "unknown";
}

static SysprofCaptureReader *
sysprof_capture_reader_new_internal (int fd, const char *filename, SysprofCaptureError *error)
{
  static const uint8_t                    magic_le[4] = { 0x5E, 0x97, 0xCA, 0xFD };
  static const uint8_t                    magic_be[4] = { 0xFD, 0xCA, 0x97, 0x5E };
  _sysprof_autoclose int                  owned_fd = fd;
  _sysprof_autofree SysprofCaptureReader *self = NULL;
  _sysprof_autofree uint8_t              *buf = NULL;
  size_t                                  have = 0;
  bool                                    file_le;
  struct stat                             st;
  size_t                                  buf_size;

  if (fstat (owned_fd, &st) != 0)
    {
      set_error (error, errno, 0, "cannot stat the capture: %s", strerror (errno));
      return NULL;
    }
  if (S_ISDIR (st.st_mode))
    {
      set_error (error, EISDIR, 0, "the capture path is a directory");
      errno = EISDIR;
      return NULL;
    }

  self = calloc (1, sizeof *self);
  buf_size = READ_BUFFER_SIZE;
  if (S_ISREG (st.st_mode) && (uint64_t) st.st_size < READ_BUFFER_SIZE)
    buf_size = (size_t) st.st_size < READ_BUFFER_SIZE_MIN ? READ_BUFFER_SIZE_MIN : (size_t) st.st_size;
  buf = malloc (buf_size);
  if (self == NULL || buf == NULL)
    {
      set_error (error, ENOMEM, 0, "out of memory opening the capture");
      errno = ENOMEM;
      return NULL;
    }

  self->stream = !S_ISREG (st.st_mode) && !S_ISBLK (st.st_mode);

  /* The header is read with read() for streams and pread() otherwise, always to
   * the full 256 bytes or the end of the file. */
  while (have < sizeof self->header)
    {
      ssize_t n = self->stream
                      ? read (owned_fd, (uint8_t *) &self->header + have, sizeof self->header - have)
                      : pread (owned_fd, (uint8_t *) &self->header + have, sizeof self->header - have, (off_t) have);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          set_error (error, errno, have, "cannot read the capture header at offset %zu: %s", have, strerror (errno));
          return NULL;
        }
      if (n == 0)
        break;
      have += (size_t) n;
    }

  if (have < sizeof self->header)
    {
      set_error (error, EBADMSG, 0,
                 "not a Sysprof capture: the file is %zu bytes long, shorter than the 256-byte header at offset 0",
                 have);
      errno = EBADMSG;
      return NULL;
    }

  if (memcmp (&self->header.magic, magic_le, 4) == 0)
    file_le = true;
  else if (memcmp (&self->header.magic, magic_be, 4) == 0)
    file_le = false;
  else
    {
      const uint8_t *m = (const uint8_t *) &self->header.magic;
      set_error (error, EBADMSG, 0,
                 "not a Sysprof capture: bad magic %02x %02x %02x %02x at offset 0 (expected 5e 97 ca fd)", m[0], m[1],
                 m[2], m[3]);
      errno = EBADMSG;
      return NULL;
    }

  /* The magic's byte order is authoritative: Sysprof's own reader trusts the
   * little_endian bit, which a big-endian writer stores at a different bit. */
  self->swap = file_le != _SYSPROF_IS_LITTLE_ENDIAN;
  if (self->swap)
    {
      static const uint8_t header_bits[] = { 8, 1, 23 };

      self->header.magic = SYSPROF_CAPTURE_MAGIC;
      _sysprof_bitfield_from_foreign ((uint8_t *) &self->header + 4, 32, header_bits, 3);
      _sysprof_swap64_at (&self->header.time);
      _sysprof_swap64_at (&self->header.end_time);
      _sysprof_swap64_at (&self->header.frame_index.last_frame_index);
    }
  self->header.capture_time[sizeof self->header.capture_time - 1] = 0;

  atomic_init (&self->ref_count, 1);
  self->buf = _sysprof_steal_pointer (&buf);
  self->buf_size = buf_size;
  self->buf_offset = sizeof self->header;
  self->prepared_offset = UINT64_MAX;
  self->max_time_seen = self->header.time;
  if (filename != NULL)
    self->filename = strdup (filename);
  self->fd = _sysprof_steal_fd (&owned_fd);

  return _sysprof_steal_pointer (&self);
}

SysprofCaptureReader *
sysprof_capture_reader_new_from_fd_with_error (int fd, SysprofCaptureError *error)
{
  if (error != NULL)
    memset (error, 0, sizeof *error);

  if (fd < 0)
    {
      set_error (error, EINVAL, 0, "invalid file descriptor");
      errno = EINVAL;
      return NULL;
    }

  return sysprof_capture_reader_new_internal (fd, NULL, error);
}

SysprofCaptureReader *
sysprof_capture_reader_new_from_fd (int fd)
{
  return sysprof_capture_reader_new_from_fd_with_error (fd, NULL);
}

SysprofCaptureReader *
sysprof_capture_reader_new_with_error (const char *filename, SysprofCaptureError *error)
{
  int fd;

  if (error != NULL)
    memset (error, 0, sizeof *error);

  if (filename == NULL)
    {
      set_error (error, EINVAL, 0, "no capture file name given");
      errno = EINVAL;
      return NULL;
    }

  fd = open (filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      set_error (error, errno, 0, "cannot open %s: %s", filename, strerror (errno));
      return NULL;
    }

  return sysprof_capture_reader_new_internal (fd, filename, error);
}

SysprofCaptureReader *
sysprof_capture_reader_new (const char *filename)
{
  return sysprof_capture_reader_new_with_error (filename, NULL);
}

SysprofCaptureReader *
sysprof_capture_reader_ref (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);

  atomic_fetch_add (&self->ref_count, 1);
  return self;
}

void
sysprof_capture_reader_unref (SysprofCaptureReader *self)
{
  if (self == NULL)
    return;

  if (atomic_fetch_sub (&self->ref_count, 1) != 1)
    return;

  close (self->fd);
  free (self->buf);
  free (self->filename);
  free (self);
}

const char *
sysprof_capture_reader_get_filename (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return self->filename;
}

const char *
sysprof_capture_reader_get_time (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return self->header.capture_time;
}

int64_t
sysprof_capture_reader_get_start_time (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, 0);
  return self->header.time;
}

int
sysprof_capture_reader_get_byte_order (SysprofCaptureReader *self)
{
  bool le;

  sysprof_return_val_if_fail (self != NULL, 0);

  le = self->swap ? !_SYSPROF_IS_LITTLE_ENDIAN : _SYSPROF_IS_LITTLE_ENDIAN;
  return le ? SYSPROF_CAPTURE_BYTE_ORDER_LITTLE_ENDIAN : SYSPROF_CAPTURE_BYTE_ORDER_BIG_ENDIAN;
}

uint64_t
sysprof_capture_reader_get_offset (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, 0);
  return self->buf_offset + self->buf_pos;
}

const SysprofCaptureError *
sysprof_capture_reader_get_error (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return &self->error;
}

/* Make at least @want bytes available from buf_pos; returns how many are (fewer only at EOF or error). */
static __attribute__ ((noinline)) size_t
reader_fill (SysprofCaptureReader *self, size_t want)
{
  size_t avail = self->buf_len - self->buf_pos;

  if (SYSPROF_LIKELY (avail >= want))
    return avail;

  if (self->buf_pos > 0)
    {
      memmove (self->buf, self->buf + self->buf_pos, avail);
      self->buf_offset += self->buf_pos;
      self->buf_len = avail;
      self->buf_pos = 0;
    }

  while (self->buf_len < want)
    {
      size_t  room = self->buf_size - self->buf_len;
      ssize_t n = self->stream
                      ? read (self->fd, self->buf + self->buf_len, room)
                      : pread (self->fd, self->buf + self->buf_len, room, (off_t) (self->buf_offset + self->buf_len));

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          set_error (&self->error, errno, self->buf_offset + self->buf_len, "read error at offset %" PRIu64 ": %s",
                     self->buf_offset + self->buf_len, strerror (errno));
          self->fatal = true;
          break;
        }
      if (n == 0)
        break;
      self->buf_len += (size_t) n;
    }

  return self->buf_len - self->buf_pos;
}

static inline uint16_t
frame_len_of (const SysprofCaptureReader *self, const uint8_t *frame)
{
  uint16_t len;

  memcpy (&len, frame, 2);
  return self->swap ? _sysprof_swap16 (len) : len;
}

static void
swap_addrs (uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    _sysprof_swap64_at (p + i * 8);
}

/* Converts a frame of the foreign byte order to host order, in place.  Counts
 * are clamped to the frame so a hostile count cannot push a swap past it; the
 * validation pass below then rejects it. */
static void
swap_frame (uint8_t *f, size_t len)
{
  static const uint8_t bits_8_24[] = { 8, 24 };
  static const uint8_t bits_16_16[] = { 16, 16 };
  static const uint8_t bits_trace[] = { 16, 1, 15 };
  static const uint8_t bits_counter[] = { 24, 8 };
  static const uint8_t bits_chunk[] = { 1, 15, 16 };
  static const uint8_t bits_dbus[] = { 2, 14 };
  SysprofCaptureFrame *frame = (SysprofCaptureFrame *) f;
  size_t               n;

  _sysprof_swap16_at (f + 0);
  _sysprof_swap16_at (f + 2);
  _sysprof_swap32_at (f + 4);
  _sysprof_swap64_at (f + 8);
  _sysprof_bitfield_from_foreign (f + 16, 32, bits_8_24, 2);
  _sysprof_swap32_at (f + 20);

#define HAVE(n_bytes) (len >= (size_t) (n_bytes))
  switch (frame->type)
    {
    case SYSPROF_CAPTURE_FRAME_FORK:
      if (HAVE (28))
        _sysprof_swap32_at (f + 24);
      break;

    case SYSPROF_CAPTURE_FRAME_MAP:
      if (HAVE (56))
        for (unsigned i = 0; i < 4; i++)
          _sysprof_swap64_at (f + 24 + 8 * i);
      break;

    case SYSPROF_CAPTURE_FRAME_JITMAP:
      if (HAVE (28))
        {
          uint8_t *pos = f + 28;
          uint8_t *end = f + len;
          uint32_t count;

          _sysprof_swap32_at (f + 24);
          memcpy (&count, f + 24, 4);
          for (uint32_t i = 0; i < count && end - pos >= 8; i++)
            {
              uint8_t *nul;

              _sysprof_swap64_at (pos);
              nul = memchr (pos + 8, 0, (size_t) (end - pos - 8));
              if (nul == NULL)
                break;
              pos = nul + 1;
            }
        }
      break;

    case SYSPROF_CAPTURE_FRAME_SAMPLE:
    case SYSPROF_CAPTURE_FRAME_TRACE:
      if (HAVE (32))
        {
          if (frame->type == SYSPROF_CAPTURE_FRAME_TRACE)
            _sysprof_bitfield_from_foreign (f + 24, 32, bits_trace, 3);
          else
            _sysprof_bitfield_from_foreign (f + 24, 32, bits_16_16, 2);
          _sysprof_swap32_at (f + 28);
          n = ((SysprofCaptureSample *) f)->n_addrs;
          if (n > (len - 32) / 8)
            n = (len - 32) / 8;
          swap_addrs (f + 32, n);
        }
      break;

    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      if (HAVE (32))
        {
          _sysprof_bitfield_from_foreign (f + 24, 32, bits_16_16, 2);
          _sysprof_swap32_at (f + 28);
          n = ((SysprofCaptureCounterDefine *) f)->n_counters;
          if (n > (len - 32) / 128)
            n = (len - 32) / 128;
          for (size_t i = 0; i < n; i++)
            {
              uint8_t *c = f + 32 + i * 128;
              _sysprof_bitfield_from_foreign (c + 116, 32, bits_counter, 2);
              _sysprof_swap64_at (c + 120);
            }
        }
      break;

    case SYSPROF_CAPTURE_FRAME_CTRSET:
      if (HAVE (32))
        {
          _sysprof_bitfield_from_foreign (f + 24, 32, bits_16_16, 2);
          _sysprof_swap32_at (f + 28);
          n = ((SysprofCaptureCounterSet *) f)->n_values;
          if (n > (len - 32) / 96)
            n = (len - 32) / 96;
          for (size_t i = 0; i < n; i++)
            {
              uint8_t *g = f + 32 + i * 96;
              for (unsigned j = 0; j < 8; j++)
                {
                  _sysprof_swap32_at (g + 4 * j);
                  _sysprof_swap64_at (g + 32 + 8 * j);
                }
            }
        }
      break;

    case SYSPROF_CAPTURE_FRAME_MARK:
      if (HAVE (32))
        _sysprof_swap64_at (f + 24);
      break;

    case SYSPROF_CAPTURE_FRAME_LOG:
      if (HAVE (32))
        {
          _sysprof_bitfield_from_foreign (f + 24, 32, bits_16_16, 2);
          _sysprof_swap32_at (f + 28);
        }
      break;

    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      if (HAVE (28))
        _sysprof_bitfield_from_foreign (f + 24, 32, bits_chunk, 3);
      break;

    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      if (HAVE (48))
        {
          _sysprof_swap64_at (f + 24);
          _sysprof_swap64_at (f + 32);
          _sysprof_swap32_at (f + 40);
          _sysprof_bitfield_from_foreign (f + 44, 32, bits_16_16, 2);
          n = ((SysprofCaptureAllocation *) f)->n_addrs;
          if (n > (len - 48) / 8)
            n = (len - 48) / 8;
          swap_addrs (f + 48, n);
        }
      break;

    case SYSPROF_CAPTURE_FRAME_OVERLAY:
      if (HAVE (32))
        {
          _sysprof_bitfield_from_foreign (f + 24, 32, bits_8_24, 2);
          _sysprof_bitfield_from_foreign (f + 28, 32, bits_16_16, 2);
        }
      break;

    case SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE:
      if (HAVE (28))
        {
          _sysprof_bitfield_from_foreign (f + 24, 16, bits_dbus, 2);
          _sysprof_swap16_at (f + 26);
        }
      break;

    case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
    case SYSPROF_CAPTURE_FRAME_EXIT:
    case SYSPROF_CAPTURE_FRAME_PROCESS:
    case SYSPROF_CAPTURE_FRAME_METADATA:
    default: break;
    }
#undef HAVE
}

static const char *describe (char *why, size_t why_size, const char *format, ...) SYSPROF_PRINTF (3, 4);

/* Without a buffer (the fast pass) a problem is only detected, not described. */
static const char *
describe (char *why, size_t why_size, const char *format, ...)
{
  va_list args;

  if (why == NULL)
    return "invalid";
  va_start (args, format);
  vsnprintf (why, why_size, format, args);
  va_end (args);
  return why;
}

/* Checks the payload of a host-order frame against its type's layout.  Returns
 * NULL when sound, else a description of the first problem.  Fixed-size strings
 * and trailing strings get a terminating NUL forced in, as Sysprof does, so a
 * hostile frame can never make a caller read past it. */
static const char *
validate_frame (uint8_t *f, size_t len, char *why, size_t why_size)
{
  SysprofCaptureFrame *frame = (SysprofCaptureFrame *) f;
  size_t               need = 0;

#define NEED(n_bytes, what) \
  do                        \
    {                       \
      need = (n_bytes);     \
      if (len < need)       \
        goto too_short;     \
      (void) (what);        \
    }                       \
  while (0)

  switch (frame->type)
    {
    case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
    case SYSPROF_CAPTURE_FRAME_EXIT: return NULL;

    case SYSPROF_CAPTURE_FRAME_FORK: NEED (sizeof (SysprofCaptureFork), 0); return NULL;

    case SYSPROF_CAPTURE_FRAME_PROCESS:
      NEED (sizeof (SysprofCaptureProcess) + 1, 0);
      if (memchr (f + sizeof (SysprofCaptureProcess), 0, len - sizeof (SysprofCaptureProcess)) == NULL)
        return "its command line is not NUL-terminated";
      return NULL;

    case SYSPROF_CAPTURE_FRAME_MAP:
      NEED (sizeof (SysprofCaptureMap) + 1, 0);
      if (memchr (f + sizeof (SysprofCaptureMap), 0, len - sizeof (SysprofCaptureMap)) == NULL)
        return "its file name is not NUL-terminated";
      return NULL;

    case SYSPROF_CAPTURE_FRAME_JITMAP:
      {
        SysprofCaptureJitmap *jm = (SysprofCaptureJitmap *) f;
        uint8_t              *pos = f + sizeof *jm;
        uint8_t              *end = f + len;

        NEED (sizeof *jm, 0);
        for (uint32_t i = 0; i < jm->n_jitmaps; i++)
          {
            uint8_t *nul;

            if (end - pos < 9)
              {
                return describe (why, why_size, "JIT map entry %u of %u lies past the frame end", i, jm->n_jitmaps);
              }
            nul = memchr (pos + 8, 0, (size_t) (end - pos - 8));
            if (nul == NULL)
              {
                return describe (why, why_size, "JIT map entry %u has no NUL-terminated name", i);
              }
            pos = nul + 1;
          }
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_SAMPLE:
    case SYSPROF_CAPTURE_FRAME_TRACE:
      NEED (sizeof (SysprofCaptureSample), 0);
      need = sizeof (SysprofCaptureSample) + (size_t) ((SysprofCaptureSample *) f)->n_addrs * 8;
      if (len < need)
        {
          return describe (why, why_size, "it claims %u addresses, which need %zu bytes, but the frame has %zu",
                           ((SysprofCaptureSample *) f)->n_addrs, need, len);
        }
      return NULL;

    case SYSPROF_CAPTURE_FRAME_CTRDEF:
      {
        SysprofCaptureCounterDefine *def = (SysprofCaptureCounterDefine *) f;

        NEED (sizeof *def, 0);
        need = sizeof *def + (size_t) def->n_counters * sizeof (SysprofCaptureCounter);
        if (len < need)
          {
            return describe (why, why_size, "it claims %u counters, which need %zu bytes, but the frame has %zu",
                             def->n_counters, need, len);
          }
        for (unsigned i = 0; i < def->n_counters; i++)
          {
            def->counters[i].category[sizeof def->counters[i].category - 1] = 0;
            def->counters[i].name[sizeof def->counters[i].name - 1] = 0;
            def->counters[i].description[sizeof def->counters[i].description - 1] = 0;
          }
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_CTRSET:
      {
        SysprofCaptureCounterSet *set = (SysprofCaptureCounterSet *) f;

        NEED (sizeof *set, 0);
        need = sizeof *set + (size_t) set->n_values * sizeof (SysprofCaptureCounterValues);
        if (len < need)
          {
            return describe (why, why_size, "it claims %u value groups, which need %zu bytes, but the frame has %zu",
                             set->n_values, need, len);
          }
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_MARK:
      {
        SysprofCaptureMark *mark = (SysprofCaptureMark *) f;

        NEED (sizeof *mark + 1, 0);
        mark->group[sizeof mark->group - 1] = 0;
        mark->name[sizeof mark->name - 1] = 0;
        f[len - 1] = 0;
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_METADATA:
      {
        SysprofCaptureMetadata *md = (SysprofCaptureMetadata *) f;

        NEED (sizeof *md + 1, 0);
        md->id[sizeof md->id - 1] = 0;
        f[len - 1] = 0;
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_LOG:
      {
        SysprofCaptureLog *log = (SysprofCaptureLog *) f;

        NEED (sizeof *log + 1, 0);
        log->domain[sizeof log->domain - 1] = 0;
        f[len - 1] = 0;
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
      {
        SysprofCaptureFileChunk *chunk = (SysprofCaptureFileChunk *) f;

        NEED (sizeof *chunk, 0);
        need = sizeof *chunk + chunk->len;
        if (len < need)
          {
            return describe (why, why_size, "it claims %u data bytes, which need %zu bytes, but the frame has %zu",
                             chunk->len, need, len);
          }
        chunk->path[sizeof chunk->path - 1] = 0;
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_ALLOCATION:
      {
        SysprofCaptureAllocation *alloc = (SysprofCaptureAllocation *) f;

        NEED (sizeof *alloc, 0);
        need = sizeof *alloc + (size_t) alloc->n_addrs * 8;
        if (len < need)
          {
            return describe (why, why_size, "it claims %u addresses, which need %zu bytes, but the frame has %zu",
                             alloc->n_addrs, need, len);
          }
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_OVERLAY:
      {
        SysprofCaptureOverlay *ov = (SysprofCaptureOverlay *) f;

        NEED (sizeof *ov, 0);
        need = sizeof *ov + (size_t) ov->src_len + 1 + (size_t) ov->dst_len + 1;
        if (len < need)
          {
            return describe (why, why_size, "its paths need %zu bytes, but the frame has %zu", need, len);
          }
        ov->data[ov->src_len] = 0;
        ov->data[ov->src_len + 1 + ov->dst_len] = 0;
        return NULL;
      }

    case SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE:
      {
        SysprofCaptureDBusMessage *msg = (SysprofCaptureDBusMessage *) f;

        NEED (sizeof *msg, 0);
        need = sizeof *msg + msg->message_len;
        if (len < need)
          {
            return describe (why, why_size, "it claims a %u-byte message, which needs %zu bytes, but the frame has %zu",
                             msg->message_len, need, len);
          }
        return NULL;
      }

    default:
      /* Unknown types are passed through; their payload is not ours to judge. */
      return NULL;
    }

too_short:
  return describe (why, why_size, "it is %zu bytes long, shorter than the %zu bytes its type needs", len, need);
#undef NEED
}

bool
sysprof_capture_frame_validate (void *frame, size_t len)
{
  SysprofCaptureFrame *f = frame;

  sysprof_return_val_if_fail (frame != NULL, false);

  if (len < sizeof *f || len % SYSPROF_CAPTURE_ALIGN != 0 || len > UINT16_MAX || f->len != len || f->type == 0 ||
      f->type >= SYSPROF_CAPTURE_FRAME_LAST || validate_frame (frame, len, NULL, 0) != NULL)
    {
      errno = EBADMSG;
      return false;
    }
  return true;
}

static inline bool
is_frame_index (const SysprofCaptureFrame *frame)
{
  return frame->type == SYSPROF_CAPTURE_FRAME_TIMESTAMP && frame->padding2 == SYSPROF_CAPTURE_FRAME_INDEX_MAGIC;
}

/* Brings the next frame whole into the buffer, in host order, validated once.
 * Returns it, or NULL at the end of the file or when boundaries are lost. */
/* Describes why the frame at @offset failed validation (cold path). */
static __attribute__ ((noinline)) void
reader_report_invalid (SysprofCaptureReader *self, uint64_t offset, uint8_t *f, size_t len)
{
  char        why[160];
  const char *problem = validate_frame (f, len, why, sizeof why);

  set_error (&self->error, EBADMSG, offset, "corrupt %s frame at offset %" PRIu64 ": %s",
             frame_type_name (((SysprofCaptureFrame *) f)->type), offset, problem ? problem : "invalid");
}

static __attribute__ ((noinline)) void
reader_set_end (SysprofCaptureReader *self, uint64_t offset)
{
  self->error.code = 0;
  self->error.offset = offset;
  snprintf (self->error.message, sizeof self->error.message, "end of capture at offset %" PRIu64, offset);
  if (!self->end_time_known && self->header.end_time >= self->header.time)
    {
      self->end_time = self->max_time_seen > self->header.end_time ? self->max_time_seen : self->header.end_time;
      self->end_time_known = true;
    }
}

/* Brings the next, not yet prepared frame whole into the buffer, in host
 * order, validated once.  Returns it, or NULL at the end of the file or when
 * frame boundaries are lost. */
static __attribute__ ((noinline)) SysprofCaptureFrame *
reader_prepare_next (SysprofCaptureReader *self)
{
  for (;;)
    {
      uint8_t *f;
      uint64_t offset;
      size_t   avail;
      uint16_t len;

      if (self->fatal)
        return NULL;

      avail = self->buf_len - self->buf_pos;
      if (SYSPROF_UNLIKELY (avail < sizeof (SysprofCaptureFrame)))
        {
          avail = reader_fill (self, sizeof (SysprofCaptureFrame));
          if (self->fatal)
            return NULL;
        }
      offset = self->buf_offset + self->buf_pos;
      if (avail == 0)
        {
          reader_set_end (self, offset);
          return NULL;
        }
      if (avail < sizeof (SysprofCaptureFrame))
        {
          set_error (&self->error, EIO, offset,
                     "truncated capture: %zu stray bytes at offset %" PRIu64 " where a 24-byte frame header should be",
                     avail, offset);
          self->fatal = true;
          return NULL;
        }

      f = self->buf + self->buf_pos;
      /* A frame already prepared is in host order; peeking twice must not swap twice. */
      if (offset == self->prepared_offset)
        memcpy (&len, f, sizeof len);
      else
        len = frame_len_of (self, f);
      if (SYSPROF_UNLIKELY (len < sizeof (SysprofCaptureFrame) || len % SYSPROF_CAPTURE_ALIGN != 0))
        {
          set_error (&self->error, EBADMSG, offset, "corrupt frame at offset %" PRIu64 ": length %u is %s", offset, len,
                     len < sizeof (SysprofCaptureFrame) ? "shorter than the 24-byte frame header"
                                                        : "not a multiple of 8");
          self->fatal = true;
          return NULL;
        }

      if (SYSPROF_UNLIKELY (avail < len))
        {
          avail = reader_fill (self, len);
          if (self->fatal)
            return NULL;
          f = self->buf + self->buf_pos;
          if (avail < len)
            {
              set_error (&self->error, EIO, offset,
                         "truncated frame at offset %" PRIu64 ": it is %u bytes long but only %zu bytes remain", offset,
                         len, avail);
              self->fatal = true;
              return NULL;
            }
        }

      if (offset != self->prepared_offset)
        {
          if (SYSPROF_UNLIKELY (self->swap))
            swap_frame (f, len);
          self->cur_valid = validate_frame (f, len, NULL, 0) == NULL;
          if (SYSPROF_UNLIKELY (!self->cur_valid))
            reader_report_invalid (self, offset, f, len);
          self->prepared_offset = offset;
        }

      if (SYSPROF_UNLIKELY (is_frame_index ((SysprofCaptureFrame *) f)))
        {
          self->buf_pos += len;
          continue;
        }

      return (SysprofCaptureFrame *) f;
    }
}

/* The frame at the current position: peek followed by read prepares it once. */
static inline __attribute__ ((always_inline)) SysprofCaptureFrame *
reader_prepare (SysprofCaptureReader *self)
{
  if (SYSPROF_LIKELY (self->buf_offset + self->buf_pos == self->prepared_offset))
    return (SysprofCaptureFrame *) (self->buf + self->buf_pos);
  return reader_prepare_next (self);
}

static inline void
reader_advance (SysprofCaptureReader *self, SysprofCaptureFrame *frame)
{
  int64_t end = frame->time;

  if (frame->type == SYSPROF_CAPTURE_FRAME_MARK && self->cur_valid)
    end = _sysprof_time_add (end, ((SysprofCaptureMark *) frame)->duration);
  if (end > self->max_time_seen)
    self->max_time_seen = end;
  self->buf_pos += frame->len;
}

bool
sysprof_capture_reader_peek_type (SysprofCaptureReader *self, SysprofCaptureFrameType *type)
{
  SysprofCaptureFrame *frame;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (type != NULL, false);

  if (!(frame = reader_prepare (self)))
    return false;
  *type = (SysprofCaptureFrameType) frame->type;
  return true;
}

bool
sysprof_capture_reader_peek_frame (SysprofCaptureReader *self, SysprofCaptureFrame *out)
{
  SysprofCaptureFrame *frame;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (out != NULL, false);

  if (!(frame = reader_prepare (self)))
    return false;
  memcpy (out, frame, sizeof *out);
  return true;
}

bool
sysprof_capture_reader_skip (SysprofCaptureReader *self)
{
  SysprofCaptureFrame *frame;

  sysprof_return_val_if_fail (self != NULL, false);

  if (!(frame = reader_prepare (self)))
    return false;
  reader_advance (self, frame);
  return true;
}

bool
_sysprof_capture_reader_seek (SysprofCaptureReader *self, uint64_t offset)
{
  if (self->stream)
    {
      if (offset == self->buf_offset + self->buf_pos)
        return true;
      errno = ESPIPE;
      return false;
    }

  /* Frames behind the current one were already converted to host order in the
   * buffer; only a foreign-endian file must re-read them from the file. */
  if (offset >= self->buf_offset && offset <= self->buf_offset + self->buf_len &&
      (!self->swap || offset >= self->buf_offset + self->buf_pos))
    self->buf_pos = (size_t) (offset - self->buf_offset);
  else
    {
      self->buf_offset = offset;
      self->buf_pos = 0;
      self->buf_len = 0;
      self->prepared_offset = UINT64_MAX;
    }
  self->fatal = false;
  memset (&self->error, 0, sizeof self->error);
  return true;
}

bool
sysprof_capture_reader_reset (SysprofCaptureReader *self)
{
  sysprof_return_val_if_fail (self != NULL, false);

  if (self->stream)
    {
      errno = ESPIPE;
      return false;
    }

  /* Frames already converted in the buffer must not be converted twice:
   * drop the buffer and read again. */
  self->buf_offset = sizeof (SysprofCaptureFileHeader);
  self->buf_pos = 0;
  self->buf_len = 0;
  self->prepared_offset = UINT64_MAX;
  self->fatal = false;
  memset (&self->error, 0, sizeof self->error);
  return true;
}

const SysprofCaptureFrame *
sysprof_capture_reader_read_frame (SysprofCaptureReader *self)
{
  SysprofCaptureFrame *frame;

  sysprof_return_val_if_fail (self != NULL, NULL);

  if (!(frame = reader_prepare (self)))
    {
      errno = self->error.code ? self->error.code : ENODATA;
      return NULL;
    }
  if (!self->cur_valid)
    {
      errno = EBADMSG;
      return NULL;
    }
  reader_advance (self, frame);
  return frame;
}

static inline __attribute__ ((always_inline)) const void *
read_typed (SysprofCaptureReader *self, SysprofCaptureFrameType type)
{
  SysprofCaptureFrame *frame;

  sysprof_return_val_if_fail (self != NULL, NULL);

  if (!(frame = reader_prepare (self)))
    {
      errno = self->error.code ? self->error.code : ENODATA;
      return NULL;
    }
  if (frame->type != type)
    {
      errno = EINVAL;
      return NULL;
    }
  if (!self->cur_valid)
    {
      errno = EBADMSG;
      return NULL;
    }
  reader_advance (self, frame);
  return frame;
}

const SysprofCaptureTimestamp *
sysprof_capture_reader_read_timestamp (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_TIMESTAMP);
}

const SysprofCaptureSample *
sysprof_capture_reader_read_sample (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_SAMPLE);
}

const SysprofCaptureMap *
sysprof_capture_reader_read_map (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_MAP);
}

const SysprofCaptureProcess *
sysprof_capture_reader_read_process (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_PROCESS);
}

const SysprofCaptureFork *
sysprof_capture_reader_read_fork (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_FORK);
}

const SysprofCaptureExit *
sysprof_capture_reader_read_exit (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_EXIT);
}

const SysprofCaptureJitmap *
sysprof_capture_reader_read_jitmap (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_JITMAP);
}

const SysprofCaptureCounterDefine *
sysprof_capture_reader_read_counter_define (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_CTRDEF);
}

const SysprofCaptureCounterSet *
sysprof_capture_reader_read_counter_set (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_CTRSET);
}

const SysprofCaptureMark *
sysprof_capture_reader_read_mark (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_MARK);
}

const SysprofCaptureMetadata *
sysprof_capture_reader_read_metadata (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_METADATA);
}

const SysprofCaptureLog *
sysprof_capture_reader_read_log (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_LOG);
}

const SysprofCaptureFileChunk *
sysprof_capture_reader_read_file (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_FILE_CHUNK);
}

const SysprofCaptureAllocation *
sysprof_capture_reader_read_allocation (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_ALLOCATION);
}

const SysprofCaptureOverlay *
sysprof_capture_reader_read_overlay (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_OVERLAY);
}

const SysprofCaptureTrace *
sysprof_capture_reader_read_trace (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_TRACE);
}

const SysprofCaptureDBusMessage *
sysprof_capture_reader_read_dbus_message (SysprofCaptureReader *self)
{
  return read_typed (self, SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE);
}

const char *
sysprof_capture_map_get_build_id (const SysprofCaptureMap *map)
{
  const char *end;
  const char *after;

  sysprof_return_val_if_fail (map != NULL, NULL);

  end = (const char *) map + map->frame.len;
  after = map->filename + strlen (map->filename) + 1;
  if (after + 1 < end && after[0] == '@' && memchr (after + 1, 0, (size_t) (end - after - 1)) != NULL)
    return after[1] ? after + 1 : NULL;
  return NULL;
}

const char *
sysprof_capture_overlay_get_src (const SysprofCaptureOverlay *overlay)
{
  sysprof_return_val_if_fail (overlay != NULL, NULL);
  return overlay->data;
}

const char *
sysprof_capture_overlay_get_dst (const SysprofCaptureOverlay *overlay)
{
  sysprof_return_val_if_fail (overlay != NULL, NULL);
  return overlay->data + overlay->src_len + 1;
}

SysprofCaptureReader *
sysprof_capture_reader_copy (SysprofCaptureReader *self)
{
  SysprofCaptureReader *copy;
  int                   fd;

  sysprof_return_val_if_fail (self != NULL, NULL);

  if (self->stream)
    {
      errno = ESPIPE;
      return NULL;
    }

  fd = fcntl (self->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return NULL;
  if (!(copy = sysprof_capture_reader_new_internal (fd, self->filename, NULL)))
    return NULL;

  copy->has_stat = self->has_stat;
  copy->stat = self->stat;
  copy->end_time = self->end_time;
  copy->end_time_known = self->end_time_known;
  _sysprof_capture_reader_seek (copy, self->buf_offset + self->buf_pos);
  return copy;
}

int64_t
sysprof_capture_reader_get_end_time (SysprofCaptureReader *self)
{
  SysprofCaptureReader *scan;
  int64_t               end;

  sysprof_return_val_if_fail (self != NULL, 0);

  if (self->end_time_known)
    return self->end_time;

  if (self->header.end_time >= self->header.time)
    end = self->header.end_time;
  else
    end = self->header.time;
  if (self->max_time_seen > end)
    end = self->max_time_seen;

  /* An unfinished capture (writer killed, pipe) has no end time: find the
   * latest frame once. */
  if (self->header.end_time < self->header.time && !self->stream && (scan = sysprof_capture_reader_copy (self)))
    {
      sysprof_capture_reader_reset (scan);
      while (sysprof_capture_reader_skip (scan))
        ;
      if (scan->max_time_seen > end)
        end = scan->max_time_seen;
      sysprof_capture_reader_unref (scan);
      self->end_time = end;
      self->end_time_known = true;
    }

  return end;
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

const char **
sysprof_capture_reader_list_files (SysprofCaptureReader *self)
{
  SysprofCaptureReader    *scan;
  _sysprof_autofree char **paths = NULL;
  size_t                   n_paths = 0;
  size_t                   size_paths = 0;
  size_t                   total = 0;
  size_t                   n_unique = 0;
  const char             **ret;
  char                    *strings;

  sysprof_return_val_if_fail (self != NULL, NULL);

  if (!(scan = sysprof_capture_reader_copy (self)))
    return NULL;
  sysprof_capture_reader_reset (scan);

  for (;;)
    {
      SysprofCaptureFrameType        type;
      const SysprofCaptureFileChunk *chunk;
      bool                           seen = false;

      if (!sysprof_capture_reader_peek_type (scan, &type))
        break;
      if (type != SYSPROF_CAPTURE_FRAME_FILE_CHUNK || !(chunk = sysprof_capture_reader_read_file (scan)))
        {
          sysprof_capture_reader_skip (scan);
          continue;
        }

      /* Most files arrive as runs of chunks: compare with the last one first. */
      if (n_paths > 0 && strcmp (paths[n_paths - 1], chunk->path) == 0)
        continue;
      for (size_t i = 0; i < n_paths && !seen; i++)
        seen = strcmp (paths[i], chunk->path) == 0;
      if (seen)
        continue;

      if (n_paths == size_paths)
        {
          size_t new_size = size_paths ? size_paths * 2 : 16;
          char **p = realloc (paths, new_size * sizeof *p);
          if (p == NULL)
            goto fail;
          paths = p;
          size_paths = new_size;
        }
      if (!(paths[n_paths] = strdup (chunk->path)))
        goto fail;
      total += strlen (chunk->path) + 1;
      n_paths++;
    }

  sysprof_capture_reader_unref (scan);
  scan = NULL;

  if (n_paths > 1)
    qsort (paths, n_paths, sizeof *paths, compare_strings);

  ret = malloc ((n_paths + 1) * sizeof *ret + total);
  if (ret == NULL)
    goto fail;
  strings = (char *) (ret + n_paths + 1);
  for (size_t i = 0; i < n_paths; i++)
    {
      size_t len = strlen (paths[i]) + 1;

      memcpy (strings, paths[i], len);
      ret[n_unique++] = strings;
      strings += len;
      free (paths[i]);
    }
  ret[n_unique] = NULL;
  return ret;

fail:
  for (size_t i = 0; i < n_paths; i++)
    free (paths[i]);
  sysprof_capture_reader_unref (scan);
  errno = ENOMEM;
  return NULL;
}

const SysprofCaptureFileChunk *
sysprof_capture_reader_find_file (SysprofCaptureReader *self, const char *path)
{
  SysprofCaptureFrameType type;

  sysprof_return_val_if_fail (self != NULL, NULL);
  sysprof_return_val_if_fail (path != NULL, NULL);

  while (sysprof_capture_reader_peek_type (self, &type))
    {
      const SysprofCaptureFileChunk *chunk = NULL;

      /* A damaged chunk (of this file or another) is stepped over. */
      if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK && (chunk = sysprof_capture_reader_read_file (self)) != NULL)
        {
          if (strcmp (chunk->path, path) == 0)
            return chunk;
        }
      else if (!sysprof_capture_reader_skip (self))
        return NULL;
    }

  if (self->error.code == 0)
    errno = ENOENT;
  return NULL;
}

bool
sysprof_capture_reader_read_file_fd (SysprofCaptureReader *self, const char *path, int fd)
{
  const SysprofCaptureFileChunk *chunk;
  SysprofCaptureFrameType        type;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (path != NULL, false);
  sysprof_return_val_if_fail (fd >= 0, false);

  /* From the start, wherever the reader stood (upstream looks on from the
   * reader's position only). */
  if (!sysprof_capture_reader_reset (self) || (chunk = sysprof_capture_reader_find_file (self, path)) == NULL)
    return false;
  for (;;)
    {
      if (!_sysprof_write_all (fd, chunk->data, chunk->len))
        return false;
      if (chunk->is_last)
        return true;
      chunk = NULL;
      while (chunk == NULL && sysprof_capture_reader_peek_type (self, &type))
        {
          if (type != SYSPROF_CAPTURE_FRAME_FILE_CHUNK || (chunk = sysprof_capture_reader_read_file (self)) == NULL)
            {
              /* Another frame, or a damaged chunk: stepped over. */
              if (!sysprof_capture_reader_skip (self))
                break;
              continue;
            }
          if (strcmp (chunk->path, path) != 0)
            chunk = NULL;
        }
      if (chunk == NULL)
        break;
    }

  /* The recording stopped before the last chunk: what was there is written. */
  errno = self->error.code ? self->error.code : ENODATA;
  return false;
}

bool
sysprof_capture_reader_splice (SysprofCaptureReader *self, SysprofCaptureWriter *dest)
{
  SysprofCaptureStat stat = { { 0 } };
  struct stat        st;
  uint64_t           len;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (dest != NULL, false);

  if (self->stream)
    {
      errno = ESPIPE;
      return false;
    }
  if (fstat (self->fd, &st) != 0)
    return false;
  if (!sysprof_capture_writer_flush (dest))
    return false;

  /* Raw bytes: only sound when both sides share a byte order. */
  if (self->swap)
    {
      errno = EPROTO;
      return false;
    }

  len = (uint64_t) st.st_size > sizeof self->header ? (uint64_t) st.st_size - sizeof self->header : 0;
  if (!_sysprof_copy_range (self->fd, sizeof self->header, len, _sysprof_capture_writer_get_fd (dest)))
    return false;

  if (self->has_stat)
    stat = self->stat;
  _sysprof_capture_writer_account_spliced (dest, len, &stat, sysprof_capture_reader_get_end_time (self));
  return sysprof_capture_writer_flush (dest);
}

bool
sysprof_capture_reader_save_as (SysprofCaptureReader *self, const char *filename)
{
  _sysprof_autoclose int fd = -1;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (filename != NULL, false);

  if (self->stream)
    {
      errno = ESPIPE;
      return false;
    }

  fd = open (filename, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0)
    return false;

  return _sysprof_copy_range (self->fd, 0, UINT64_MAX, fd);
}

bool
sysprof_capture_reader_get_stat (SysprofCaptureReader *self, SysprofCaptureStat *st_buf)
{
  sysprof_return_val_if_fail (self != NULL, false);

  /* As upstream: zeros when no statistics were set, and @st_buf may be
   * NULL to ask only whether there are some. */
  if (st_buf != NULL)
    {
      if (self->has_stat)
        *st_buf = self->stat;
      else
        memset (st_buf, 0, sizeof *st_buf);
    }
  if (!self->has_stat)
    errno = ENODATA;
  return self->has_stat;
}

void
sysprof_capture_reader_set_stat (SysprofCaptureReader *self, const SysprofCaptureStat *st_buf)
{
  sysprof_return_if_fail (self != NULL);

  if (st_buf != NULL)
    {
      self->stat = *st_buf;
      self->has_stat = true;
    }
  else
    self->has_stat = false;
}

/* The iterator: p1 the next entry, p2 the end of the frame, u1 the entries
 * left in it; p3 a private reader copy when it walks a whole capture. */
void
sysprof_capture_jitmap_iter_init (SysprofCaptureJitmapIter *iter, const SysprofCaptureJitmap *jitmap)
{
  sysprof_return_if_fail (iter != NULL);

  memset (iter, 0, sizeof *iter);
  if (jitmap == NULL)
    return;
  iter->p1 = (void *) jitmap->data;
  iter->p2 = (uint8_t *) jitmap + jitmap->frame.len;
  iter->u1 = jitmap->n_jitmaps;
}

bool
sysprof_capture_jitmap_iter_init_reader (SysprofCaptureJitmapIter *iter, SysprofCaptureReader *reader)
{
  SysprofCaptureReader *copy;

  sysprof_return_val_if_fail (iter != NULL, false);
  sysprof_return_val_if_fail (reader != NULL, false);

  memset (iter, 0, sizeof *iter);
  if (!(copy = sysprof_capture_reader_copy (reader)))
    return false;
  sysprof_capture_reader_reset (copy);
  iter->p3 = copy;
  return true;
}

bool
sysprof_capture_jitmap_iter_next (SysprofCaptureJitmapIter *iter, SysprofCaptureAddress *addr, const char **name)
{
  SysprofCaptureReader *reader;
  const uint8_t        *pos, *end;
  size_t                len;

  sysprof_return_val_if_fail (iter != NULL, false);

  reader = iter->p3;
  while (iter->u1 == 0)
    {
      SysprofCaptureFrameType     type;
      const SysprofCaptureJitmap *jm;

      if (reader == NULL || !sysprof_capture_reader_peek_type (reader, &type))
        return false;
      if (type != SYSPROF_CAPTURE_FRAME_JITMAP || !(jm = sysprof_capture_reader_read_jitmap (reader)))
        {
          if (!sysprof_capture_reader_skip (reader))
            return false;
          continue;
        }
      iter->p1 = (void *) jm->data;
      iter->p2 = (uint8_t *) jm + jm->frame.len;
      iter->u1 = jm->n_jitmaps;
    }

  /* A frame from our reader was checked, but one given by the caller may
   * not have been: never read past its end. */
  pos = iter->p1;
  end = iter->p2;
  if (pos == NULL || end - pos < 9 ||
      (len = strnlen ((const char *) pos + 8, (size_t) (end - pos - 8))) == (size_t) (end - pos - 8))
    {
      iter->u1 = 0;
      return reader != NULL ? sysprof_capture_jitmap_iter_next (iter, addr, name) : false;
    }
  if (addr != NULL)
    memcpy (addr, pos, sizeof *addr);
  if (name != NULL)
    *name = (const char *) pos + 8;
  iter->p1 = (void *) (pos + 8 + len + 1);
  iter->u1--;
  return true;
}

void
sysprof_capture_jitmap_iter_clear (SysprofCaptureJitmapIter *iter)
{
  if (iter == NULL)
    return;
  sysprof_capture_reader_unref (iter->p3);
  memset (iter, 0, sizeof *iter);
}
