// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "sysprof-capture-reader-private.h"
#include "sysprof-capture-util-private.h"
#include "sysprof-capture-writer-private.h"
#include "sysprof-clock.h"

/* As upstream's: 64 pages. */
#define DEFAULT_BUFFER_PAGES 64
/* The buffer holds at least this much, whatever was asked (it is flushed at
 * the size asked for): every frame fits it whole. */
#define MIN_BUFFER_CAPACITY (2 * 65536)
/* A JITMAP frame is emitted once its pending entries reach this many bytes,
 * well under the 65528-byte frame limit, or once half the table is used. */
#define JITMAP_PENDING_MAX (32 * 1024)
#define JITMAP_NAME_MAX    4096
#define JIT_TABLE_SIZE     1024
#define JIT_FRAME_SIZE     (sizeof (SysprofCaptureJitmap) + JITMAP_PENDING_MAX + 8)

typedef struct
{
  SysprofCaptureAddress addr;
  uint32_t              name_off;
  uint32_t              hash;
} JitEntry;

struct _SysprofCaptureWriter
{
  atomic_int ref_count;
  int        fd;
  bool       seekable;
  bool       time_range_set;

  uint8_t *buf;
  size_t   len;
  size_t   size;       /* what the buffer holds */
  size_t   flush_size; /* flushed when it would pass this: the size asked for */
  /* A short write left the rest of a frame at the start of the buffer. */
  bool front_partial;

  /* Bytes already handed to the fd, header included. */
  uint64_t written;
  /* 0, or the size the capture may not exceed (sysprof_capture_writer_set_max_size). */
  uint64_t max_size;

  SysprofCaptureFileHeader header;
  int64_t                  max_time;

  /* JIT map: the entries not yet written, already laid out as the JITMAP
   * frame they will make, and a table of their names.  Both are allocated
   * with the writer: GJS adds names from its SIGPROF handler, where nothing
   * may allocate.  Names repeat only within one frame, as upstream's. */
  JitEntry jit_table[JIT_TABLE_SIZE];
  uint8_t *jit_frame;
  size_t   jit_pending_len;
  size_t   jit_pending_bytes;
  uint64_t jit_next;

  unsigned int next_counter_id;

  SysprofCaptureStat stat;
};

static bool sysprof_capture_writer_flush_jitmap (SysprofCaptureWriter *self);

static bool
sysprof_capture_writer_flush_data (SysprofCaptureWriter *self)
{
  size_t   len = self->len;
  uint8_t *pos = self->buf;

  /* On a short write keep what did not reach the fd: nothing buffered is lost
   * when the disk fills, the caller sees the error and may retry. */
  while (len > 0)
    {
      ssize_t n = write (self->fd, pos, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (n == 0)
        {
          errno = EIO;
          break;
        }
      pos += n;
      len -= (size_t) n;
      self->written += (uint64_t) n;
    }

  if (len > 0)
    {
      int saved = errno;
      if (pos != self->buf)
        self->front_partial = true;
      memmove (self->buf, pos, len);
      self->len = len;
      errno = saved;
      return false;
    }

  self->len = 0;
  self->front_partial = false;
  return true;
}

/* Starts a capture in @fd: the header, with the current time as its start.
 * Takes @fd on success only; false with errno otherwise. */
static bool
sysprof_capture_writer_begin (SysprofCaptureWriter *self, int fd)
{
  struct timespec ts;
  struct tm       tm;
  struct stat     st;

  /* Regular files are rewound and truncated so the header sits at offset 0,
   * where flush() rewrites end_time.  Pipes and sockets are written in order
   * only. */
  self->seekable = false;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && lseek (fd, 0, SEEK_SET) == 0)
    {
      /* Only truncate what has content: ext4 treats a truncate-to-zero as a
       * "replace" and forces the whole new file to disk at close. */
      if (st.st_size != 0 && ftruncate (fd, 0) != 0)
        return false;
      self->seekable = true;
    }

  memset (&self->header, 0, sizeof self->header);
  self->header.magic = SYSPROF_CAPTURE_MAGIC;
  self->header.version = SYSPROF_CAPTURE_FORMAT_VERSION;
  self->header.little_endian = _SYSPROF_IS_LITTLE_ENDIAN;
  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  strftime (self->header.capture_time, sizeof self->header.capture_time, "%FT%TZ", &tm);
  self->header.time = SYSPROF_CAPTURE_CURRENT_TIME;
  self->header.end_time = 0;
  self->max_time = self->header.time;
  self->time_range_set = false;
  self->written = 0;
  self->front_partial = false;
  memset (&self->stat, 0, sizeof self->stat);

  memcpy (self->buf, &self->header, sizeof self->header);
  self->len = sizeof self->header;
  self->fd = fd;

  if (!sysprof_capture_writer_flush_data (self))
    {
      self->fd = -1;
      self->len = 0;
      return false;
    }
  return true;
}

static SysprofCaptureWriter *
sysprof_capture_writer_new_internal (int fd, size_t buffer_size)
{
  _sysprof_autoclose int                  owned_fd = fd;
  _sysprof_autofree SysprofCaptureWriter *self = NULL;
  long                                    page_size = sysconf (_SC_PAGESIZE);

  if (page_size <= 0)
    page_size = 4096;
  if (buffer_size == 0)
    buffer_size = (size_t) page_size * DEFAULT_BUFFER_PAGES;
  if (buffer_size % (size_t) page_size != 0)
    {
      errno = EINVAL;
      return NULL;
    }

  sysprof_clock_init ();

  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;

  self->size = buffer_size > MIN_BUFFER_CAPACITY ? buffer_size : MIN_BUFFER_CAPACITY;
  self->flush_size = buffer_size;
  self->buf = malloc (self->size);
  self->jit_frame = malloc (JIT_FRAME_SIZE);
  if (self->buf == NULL || self->jit_frame == NULL)
    {
      free (self->buf);
      free (self->jit_frame);
      return NULL;
    }

  atomic_init (&self->ref_count, 1);
  self->next_counter_id = 1;
  self->jit_next = 1;

  if (!sysprof_capture_writer_begin (self, owned_fd))
    {
      int saved = errno;
      free (self->buf);
      free (self->jit_frame);
      errno = saved;
      return NULL;
    }
  owned_fd = -1;

  return _sysprof_steal_pointer (&self);
}

SysprofCaptureWriter *
sysprof_capture_writer_new_from_fd (int fd, size_t buffer_size)
{
  sysprof_return_val_if_fail (fd >= 0, NULL);

  return sysprof_capture_writer_new_internal (fd, buffer_size);
}

SysprofCaptureWriter *
sysprof_capture_writer_new (const char *filename, size_t buffer_size)
{
  int fd;

  sysprof_return_val_if_fail (filename != NULL, NULL);

  fd = open (filename, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0)
    return NULL;

  return sysprof_capture_writer_new_internal (fd, buffer_size);
}

SysprofCaptureWriter *
sysprof_capture_writer_new_from_env (size_t buffer_size)
{
  const char *str = getenv ("SYSPROF_TRACE_FD");
  char       *end = NULL;
  long        fd;
  int         dup_fd;

  if (str == NULL || *str == 0)
    {
      errno = ENOENT;
      return NULL;
    }

  errno = 0;
  fd = strtol (str, &end, 10);
  /* 0 and 1 are never a trace fd: refusing them keeps a bogus variable from
   * turning stdin/stdout into a capture. */
  if (errno != 0 || *end != 0 || fd < 2 || fd > 0x7fffffff)
    {
      errno = EBADF;
      return NULL;
    }

  dup_fd = fcntl ((int) fd, F_DUPFD_CLOEXEC, 3);
  if (dup_fd < 0)
    return NULL;

  return sysprof_capture_writer_new_internal (dup_fd, buffer_size);
}

SysprofCaptureWriter *
sysprof_capture_writer_ref (SysprofCaptureWriter *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);

  atomic_fetch_add (&self->ref_count, 1);
  return self;
}

void
sysprof_capture_writer_unref (SysprofCaptureWriter *self)
{
  if (self == NULL)
    return;

  if (atomic_fetch_sub (&self->ref_count, 1) != 1)
    return;

  sysprof_capture_writer_flush (self);
  close (self->fd);
  free (self->buf);
  free (self->jit_frame);
  free (self);
}

size_t
sysprof_capture_writer_get_buffer_size (SysprofCaptureWriter *self)
{
  sysprof_return_val_if_fail (self != NULL, 0);

  return self->flush_size;
}

void
sysprof_capture_writer_stat (SysprofCaptureWriter *self, SysprofCaptureStat *stat)
{
  sysprof_return_if_fail (self != NULL);
  sysprof_return_if_fail (stat != NULL);

  *stat = self->stat;
}

uint64_t
sysprof_capture_writer_get_size (SysprofCaptureWriter *self)
{
  sysprof_return_val_if_fail (self != NULL, 0);

  return self->written + self->len;
}

/* The JITMAP frame that @pending_bytes of entries make. */
static inline size_t
jitmap_frame_len (size_t pending_bytes)
{
  return pending_bytes ? SYSPROF_ALIGN_UP (sizeof (SysprofCaptureJitmap) + pending_bytes, SYSPROF_CAPTURE_ALIGN) : 0;
}

/* Whether @len more bytes keep the capture within max_size.  The size is
 * get_size()'s, plus the JITMAP frame the pending entries will make: flush()
 * owes that frame (samples already point at its addresses), so it is counted
 * when its entries are added and always fits when it is written. */
static inline bool
sysprof_capture_writer_fits (SysprofCaptureWriter *self, size_t pending_bytes, uint64_t len)
{
  uint64_t size = self->written + self->len + jitmap_frame_len (pending_bytes);

  return self->max_size == 0 || (size <= self->max_size && self->max_size - size >= len);
}

bool
sysprof_capture_writer_set_max_size (SysprofCaptureWriter *self, uint64_t max_bytes)
{
  sysprof_return_val_if_fail (self != NULL, false);

  /* Pending JIT entries were accepted under the old limit: their frame goes
   * into the buffer now, so that the new limit only concerns what follows. */
  if (max_bytes != 0 && !sysprof_capture_writer_flush_jitmap (self))
    return false;
  self->max_size = max_bytes;
  return true;
}

/* Makes room for an @aligned-byte frame when the buffer is full: what it
 * holds is written.  When that fails (a full disk), frames are still taken
 * while the buffer has room, and nothing buffered is lost. */
static __attribute__ ((noinline)) bool
sysprof_capture_writer_make_room (SysprofCaptureWriter *self, size_t aligned)
{
  if (aligned > SYSPROF_CAPTURE_MAX_FRAME_LEN)
    {
      errno = E2BIG;
      return false;
    }
  if (self->len + aligned > self->flush_size && !sysprof_capture_writer_flush_data (self))
    return self->size - self->len >= aligned;
  return true;
}

/* The hot path of every add_*: a pointer to @len bytes of buffer with the
 * frame header filled in, or NULL with errno.  The caller fills the payload and
 * calls sysprof_capture_writer_commit().  @capped_len of them count against
 * max_size now: @len, but less for a frame that shrinks before its commit
 * (its caller checks the final length) and 0 for the pending JIT map (counted
 * already). */
static inline __attribute__ ((always_inline)) void *
sysprof_capture_writer_reserve_capped (SysprofCaptureWriter   *self,
                                       size_t                  len,
                                       size_t                  capped_len,
                                       int64_t                 time,
                                       int                     cpu,
                                       int32_t                 pid,
                                       SysprofCaptureFrameType type)
{
  size_t              aligned = SYSPROF_ALIGN_UP (len, SYSPROF_CAPTURE_ALIGN);
  uint8_t            *frame;
  SysprofCaptureFrame header = {
    .len = (uint16_t) aligned,
    .cpu = (int16_t) cpu,
    .pid = pid,
    .time = time,
    .type = type,
  };

  if (SYSPROF_UNLIKELY (self->max_size != 0) &&
      !sysprof_capture_writer_fits (self, self->jit_pending_bytes,
                                    SYSPROF_ALIGN_UP (capped_len, SYSPROF_CAPTURE_ALIGN)))
    {
      errno = EFBIG;
      return NULL;
    }
  if (SYSPROF_UNLIKELY (self->len + aligned > self->flush_size || aligned > SYSPROF_CAPTURE_MAX_FRAME_LEN) &&
      !sysprof_capture_writer_make_room (self, aligned))
    return NULL;

  frame = self->buf + self->len;
  /* Zero the alignment tail so files never carry stale heap bytes. */
  if (aligned != len)
    memset (frame + aligned - 8, 0, 8);
  memcpy (frame, &header, sizeof header);

  return frame;
}

static inline __attribute__ ((always_inline)) void *
sysprof_capture_writer_reserve (
    SysprofCaptureWriter *self, size_t len, int64_t time, int cpu, int32_t pid, SysprofCaptureFrameType type)
{
  return sysprof_capture_writer_reserve_capped (self, len, len, time, cpu, pid, type);
}

static inline __attribute__ ((always_inline)) void
sysprof_capture_writer_commit (SysprofCaptureWriter *self, void *frame_ptr)
{
  SysprofCaptureFrame *frame = frame_ptr;

  self->len += frame->len;
  /* TRACE and DBUS_MESSAGE are past upstream's array (sysprof_capture_stat_get). */
  if (frame->type < 16)
    self->stat.frame_count[frame->type]++;
  else
    self->stat.padding[frame->type - 16]++;
  if (frame->time > self->max_time)
    self->max_time = frame->time;
}

#define RESERVE(T, extra, ft) ((T *) sysprof_capture_writer_reserve (self, sizeof (T) + (extra), time, cpu, pid, ft))

bool
sysprof_capture_writer_add_timestamp (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid)
{
  SysprofCaptureTimestamp *ev;

  sysprof_return_val_if_fail (self != NULL, false);

  if (!(ev = RESERVE (SysprofCaptureTimestamp, 0, SYSPROF_CAPTURE_FRAME_TIMESTAMP)))
    return false;
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_exit (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid)
{
  SysprofCaptureExit *ev;

  sysprof_return_val_if_fail (self != NULL, false);

  if (!(ev = RESERVE (SysprofCaptureExit, 0, SYSPROF_CAPTURE_FRAME_EXIT)))
    return false;
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_fork (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, int32_t child_pid)
{
  SysprofCaptureFork *ev;

  sysprof_return_val_if_fail (self != NULL, false);

  if (!(ev = RESERVE (SysprofCaptureFork, 0, SYSPROF_CAPTURE_FRAME_FORK)))
    return false;
  ev->child_pid = child_pid;
  sysprof_capture_writer_commit (self, ev);
  return true;
}

/* Copies @str (strlen @len) plus its NUL to @dst, zero-filling to the frame end. */
static inline void
copy_trailing_string (uint8_t *dst, const char *str, size_t len)
{
  memcpy (dst, str, len);
  dst[len] = 0;
}

bool
sysprof_capture_writer_add_process (SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, const char *cmdline)
{
  SysprofCaptureProcess *ev;
  size_t                 len;

  sysprof_return_val_if_fail (self != NULL, false);

  if (cmdline == NULL)
    cmdline = "";
  len = strlen (cmdline);

  if (!(ev = RESERVE (SysprofCaptureProcess, len + 1, SYSPROF_CAPTURE_FRAME_PROCESS)))
    return false;
  copy_trailing_string ((uint8_t *) ev->cmdline, cmdline, len);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_map_with_build_id (SysprofCaptureWriter *self,
                                              int64_t               time,
                                              int                   cpu,
                                              int32_t               pid,
                                              uint64_t              start,
                                              uint64_t              end,
                                              uint64_t              offset,
                                              uint64_t              inode,
                                              const char           *filename,
                                              const char           *build_id)
{
  SysprofCaptureMap *ev;
  size_t             len;
  size_t             build_id_len = 0;

  sysprof_return_val_if_fail (self != NULL, false);

  if (filename == NULL)
    filename = "";
  len = strlen (filename);
  if (build_id != NULL && *build_id != 0)
    build_id_len = strlen (build_id);

  if (!(ev = RESERVE (SysprofCaptureMap, len + 1 + (build_id_len ? build_id_len + 2 : 0), SYSPROF_CAPTURE_FRAME_MAP)))
    return false;

  ev->start = start;
  ev->end = end;
  ev->offset = offset;
  ev->inode = inode;
  copy_trailing_string ((uint8_t *) ev->filename, filename, len);
  if (build_id_len)
    {
      ev->filename[len + 1] = '@';
      copy_trailing_string ((uint8_t *) ev->filename + len + 2, build_id, build_id_len);
    }
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_map (SysprofCaptureWriter *self,
                                int64_t               time,
                                int                   cpu,
                                int32_t               pid,
                                uint64_t              start,
                                uint64_t              end,
                                uint64_t              offset,
                                uint64_t              inode,
                                const char           *filename)
{
  return sysprof_capture_writer_add_map_with_build_id (self, time, cpu, pid, start, end, offset, inode, filename, NULL);
}

/* Inlined into add_sample and add_trace so each is one flat function with a constant type. */
static inline __attribute__ ((always_inline)) bool
sysprof_capture_writer_add_addrs_frame (SysprofCaptureWriter        *self,
                                        SysprofCaptureFrameType      type,
                                        int64_t                      time,
                                        int                          cpu,
                                        int32_t                      pid,
                                        int32_t                      tid,
                                        const SysprofCaptureAddress *addrs,
                                        unsigned int                 n_addrs,
                                        bool                         entering)
{
  SysprofCaptureSample *ev;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (addrs != NULL || n_addrs == 0, false);
  sysprof_return_val_if_fail (n_addrs <= SYSPROF_CAPTURE_MAX_ADDRS, false);

  /* SAMPLE and TRACE share one layout; TRACE only adds the entering bit. */
  if (!(ev = RESERVE (SysprofCaptureSample, (size_t) n_addrs * sizeof (SysprofCaptureAddress), type)))
    return false;

  ev->n_addrs = n_addrs;
  ev->padding1 = 0;
  if (type == SYSPROF_CAPTURE_FRAME_TRACE)
    ((SysprofCaptureTrace *) ev)->entering = entering;
  ev->tid = tid;
  if (n_addrs)
    memcpy (ev->addrs, addrs, (size_t) n_addrs * sizeof (SysprofCaptureAddress));
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_sample (SysprofCaptureWriter        *self,
                                   int64_t                      time,
                                   int                          cpu,
                                   int32_t                      pid,
                                   int32_t                      tid,
                                   const SysprofCaptureAddress *addrs,
                                   unsigned int                 n_addrs)
{
  return sysprof_capture_writer_add_addrs_frame (self, SYSPROF_CAPTURE_FRAME_SAMPLE, time, cpu, pid, tid, addrs,
                                                 n_addrs, false);
}

bool
sysprof_capture_writer_add_off_cpu_sample (SysprofCaptureWriter        *self,
                                           int64_t                      time,
                                           int                          cpu,
                                           int32_t                      pid,
                                           int32_t                      tid,
                                           const SysprofCaptureAddress *addrs,
                                           unsigned int                 n_addrs,
                                           uint32_t                     off_cpu_usec)
{
  SysprofCaptureAddress marker;
  SysprofCaptureSample *ev;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (addrs != NULL || n_addrs == 0, false);
  sysprof_return_val_if_fail (n_addrs < SYSPROF_CAPTURE_MAX_ADDRS - 1, false);

  /* Before the frame is reserved: the JITMAP frame naming it goes first. */
  if ((marker = sysprof_capture_writer_add_jitmap (self, SYSPROF_CAPTURE_OFF_CPU_NAME)) == 0)
    return false;
  if (!(ev = RESERVE (SysprofCaptureSample, ((size_t) n_addrs + 2) * sizeof (SysprofCaptureAddress),
                      SYSPROF_CAPTURE_FRAME_SAMPLE)))
    return false;
  ev->frame.padding2 = off_cpu_usec ? off_cpu_usec : 1;
  ev->n_addrs = n_addrs + 2;
  ev->padding1 = SYSPROF_CAPTURE_SAMPLE_OFF_CPU;
  ev->tid = tid;
  if (n_addrs)
    memcpy (ev->addrs, addrs, (size_t) n_addrs * sizeof (SysprofCaptureAddress));
  /* In user context, so that Sysprof looks the marker up in the JIT map
   * even after a kernel-only stack. */
  memcpy (&ev->addrs[n_addrs], &(SysprofCaptureAddress){ SYSPROF_CAPTURE_ADDRESS_USER }, sizeof marker);
  memcpy (&ev->addrs[n_addrs + 1], &marker, sizeof marker);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_trace (SysprofCaptureWriter        *self,
                                  int64_t                      time,
                                  int                          cpu,
                                  int32_t                      pid,
                                  int32_t                      tid,
                                  const SysprofCaptureAddress *addrs,
                                  unsigned int                 n_addrs,
                                  bool                         entering)
{
  /* Sysprof 45+ stamps trace frames as SAMPLE by mistake; we write TRACE. */
  return sysprof_capture_writer_add_addrs_frame (self, SYSPROF_CAPTURE_FRAME_TRACE, time, cpu, pid, tid, addrs, n_addrs,
                                                 entering);
}

static uint32_t
jit_hash (const char *str)
{
  uint32_t h = 5381;

  for (; *str; str++)
    h = h * 33 + (uint8_t) *str;
  return h;
}

SysprofCaptureAddress
sysprof_capture_writer_add_jitmap (SysprofCaptureWriter *self, const char *name)
{
  JitEntry *e;
  uint32_t  hash;
  size_t    name_len;
  size_t    i;
  uint8_t  *entry;

  sysprof_return_val_if_fail (self != NULL, 0);
  sysprof_return_val_if_fail (name != NULL, 0);

  name_len = strlen (name);
  if (name_len >= JITMAP_NAME_MAX)
    {
      errno = ENAMETOOLONG;
      return 0;
    }

  hash = jit_hash (name);
  for (i = hash & (JIT_TABLE_SIZE - 1); self->jit_table[i].addr != 0; i = (i + 1) & (JIT_TABLE_SIZE - 1))
    if (self->jit_table[i].hash == hash &&
        strcmp ((const char *) self->jit_frame + self->jit_table[i].name_off, name) == 0)
      return self->jit_table[i].addr;

  /* A full frame is written and the table starts over. */
  if ((self->jit_pending_bytes + 8 + name_len + 1 > JITMAP_PENDING_MAX ||
       self->jit_pending_len + 1 > JIT_TABLE_SIZE / 2) &&
      !sysprof_capture_writer_flush_jitmap (self))
    return 0;
  /* The entry grows the JITMAP frame flush() owes (see _fits()). */
  if (!sysprof_capture_writer_fits (self, self->jit_pending_bytes + 8 + name_len + 1, 0))
    {
      errno = EFBIG;
      return 0;
    }

  for (i = hash & (JIT_TABLE_SIZE - 1); self->jit_table[i].addr != 0; i = (i + 1) & (JIT_TABLE_SIZE - 1))
    ;
  e = &self->jit_table[i];
  e->addr = SYSPROF_CAPTURE_JITMAP_MARK | self->jit_next++;
  e->hash = hash;
  entry = self->jit_frame + sizeof (SysprofCaptureJitmap) + self->jit_pending_bytes;
  e->name_off = (uint32_t) (entry + 8 - self->jit_frame);
  memcpy (entry, &e->addr, 8);
  memcpy (entry + 8, name, name_len + 1);
  self->jit_pending_len++;
  self->jit_pending_bytes += 8 + name_len + 1;

  return e->addr;
}

/* Puts the pending entries, as one JITMAP frame, at the head of the buffer:
 * ahead of the buffered frames, which may use its addresses (upstream's
 * order, so that a reader knows every name before it meets one).  Behind
 * them when a short write left part of a frame at the head, or when there is
 * no room for both; then what is buffered is written first if need be. */
static bool
sysprof_capture_writer_flush_jitmap (SysprofCaptureWriter *self)
{
  SysprofCaptureJitmap *ev = (SysprofCaptureJitmap *) self->jit_frame;
  size_t                len, aligned;

  if (self->jit_pending_len == 0)
    return true;

  len = sizeof *ev + self->jit_pending_bytes;
  aligned = SYSPROF_ALIGN_UP (len, SYSPROF_CAPTURE_ALIGN);
  if (self->size - self->len < aligned && !sysprof_capture_writer_flush_data (self) && self->size - self->len < aligned)
    return false;
  memset (self->jit_frame + len, 0, aligned - len);
  /* Stamped like Sysprof: our own pid, no cpu, the current time.  Counted
   * against max_size as its entries came. */
  memset (&ev->frame, 0, sizeof ev->frame);
  ev->frame.len = (uint16_t) aligned;
  ev->frame.cpu = -1;
  ev->frame.pid = getpid ();
  ev->frame.time = SYSPROF_CAPTURE_CURRENT_TIME;
  ev->frame.type = SYSPROF_CAPTURE_FRAME_JITMAP;
  ev->n_jitmaps = (uint32_t) self->jit_pending_len;
  if (self->front_partial)
    memcpy (self->buf + self->len, ev, aligned);
  else
    {
      memmove (self->buf + aligned, self->buf, self->len);
      memcpy (self->buf, ev, aligned);
    }
  self->len += aligned;
  self->stat.frame_count[SYSPROF_CAPTURE_FRAME_JITMAP]++;
  if (ev->frame.time > self->max_time)
    self->max_time = ev->frame.time;

  memset (self->jit_table, 0, sizeof self->jit_table);
  self->jit_pending_len = 0;
  self->jit_pending_bytes = 0;
  return true;
}

unsigned int
sysprof_capture_writer_request_counter (SysprofCaptureWriter *self, unsigned int n_counters)
{
  unsigned int ret;

  sysprof_return_val_if_fail (self != NULL, 0);

  /* 0 counters: the next id, reserving none (as upstream). */
  if (n_counters > SYSPROF_CAPTURE_COUNTER_ID_MAX ||
      self->next_counter_id > SYSPROF_CAPTURE_COUNTER_ID_MAX + 1 - n_counters)
    {
      errno = ENOSPC;
      return 0;
    }

  ret = self->next_counter_id;
  self->next_counter_id += n_counters;
  return ret;
}

bool
sysprof_capture_writer_define_counters (SysprofCaptureWriter        *self,
                                        int64_t                      time,
                                        int                          cpu,
                                        int32_t                      pid,
                                        const SysprofCaptureCounter *counters,
                                        unsigned int                 n_counters)
{
  SysprofCaptureCounterDefine *ev;
  const unsigned int           max_per_frame =
      (SYSPROF_CAPTURE_MAX_FRAME_LEN - sizeof (SysprofCaptureCounterDefine)) / sizeof (SysprofCaptureCounter);

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (counters != NULL || n_counters == 0, false);

  /* Nothing to define: no frame (as upstream). */
  if (n_counters == 0)
    return true;
  /* Large definitions are split over several frames instead of failing. */
  do
    {
      unsigned int n = n_counters > max_per_frame ? max_per_frame : n_counters;

      if (!(ev = RESERVE (SysprofCaptureCounterDefine, (size_t) n * sizeof (SysprofCaptureCounter),
                          SYSPROF_CAPTURE_FRAME_CTRDEF)))
        return false;
      ev->n_counters = n;
      ev->padding1 = 0;
      ev->padding2 = 0;
      for (unsigned int i = 0; i < n; i++)
        {
          SysprofCaptureCounter *c = &ev->counters[i];

          _sysprof_strlcpy_field (c->category, counters[i].category, sizeof c->category);
          _sysprof_strlcpy_field (c->name, counters[i].name, sizeof c->name);
          _sysprof_strlcpy_field (c->description, counters[i].description, sizeof c->description);
          c->id = counters[i].id;
          c->type = counters[i].type;
          c->value = counters[i].value;
        }
      sysprof_capture_writer_commit (self, ev);
      counters += n;
      n_counters -= n;
    }
  while (n_counters > 0);

  return true;
}

bool
sysprof_capture_writer_set_counters (SysprofCaptureWriter             *self,
                                     int64_t                           time,
                                     int                               cpu,
                                     int32_t                           pid,
                                     const unsigned int               *counters_ids,
                                     const SysprofCaptureCounterValue *values,
                                     unsigned int                      n_counters)
{
  SysprofCaptureCounterSet *ev;
  const unsigned int        max_groups =
      (SYSPROF_CAPTURE_MAX_FRAME_LEN - sizeof (SysprofCaptureCounterSet)) / sizeof (SysprofCaptureCounterValues);
  unsigned int n_groups;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail ((counters_ids != NULL && values != NULL) || n_counters == 0, false);

  if (n_counters == 0)
    return true;

  do
    {
      unsigned int n = n_counters > max_groups * 8 ? max_groups * 8 : n_counters;

      n_groups = (n + 7) / 8;
      if (!(ev = RESERVE (SysprofCaptureCounterSet, (size_t) n_groups * sizeof (SysprofCaptureCounterValues),
                          SYSPROF_CAPTURE_FRAME_CTRSET)))
        return false;
      ev->n_values = n_groups;
      ev->padding1 = 0;
      ev->padding2 = 0;
      /* Unused slots must read as id 0. */
      memset (ev->values, 0, (size_t) n_groups * sizeof (SysprofCaptureCounterValues));
      for (unsigned int i = 0; i < n; i++)
        {
          ev->values[i / 8].ids[i % 8] = counters_ids[i];
          ev->values[i / 8].values[i % 8] = values[i];
        }
      sysprof_capture_writer_commit (self, ev);
      counters_ids += n;
      values += n;
      n_counters -= n;
    }
  while (n_counters > 0);

  return true;
}

/* Trailing strings longer than what fits in one frame are truncated, not refused:
 * a log line or mark message is still useful cut short. */
static size_t
clamp_trailing (const char *str, size_t fixed)
{
  size_t max = SYSPROF_CAPTURE_MAX_FRAME_LEN - fixed - 1;

  return strnlen (str, max);
}

bool
sysprof_capture_writer_add_mark (SysprofCaptureWriter *self,
                                 int64_t               time,
                                 int                   cpu,
                                 int32_t               pid,
                                 uint64_t              duration,
                                 const char           *group,
                                 const char           *name,
                                 const char           *message)
{
  SysprofCaptureMark *ev;
  size_t              len;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (name != NULL, false);

  if (group == NULL)
    group = "";
  if (message == NULL)
    message = "";
  len = clamp_trailing (message, sizeof *ev);

  if (!(ev = RESERVE (SysprofCaptureMark, len + 1, SYSPROF_CAPTURE_FRAME_MARK)))
    return false;
  ev->duration = (int64_t) duration;
  _sysprof_strlcpy_field (ev->group, group, sizeof ev->group);
  _sysprof_strlcpy_field (ev->name, name, sizeof ev->name);
  copy_trailing_string ((uint8_t *) ev->message, message, len);
  sysprof_capture_writer_commit (self, ev);

  if (_sysprof_time_add (time, (int64_t) duration) > self->max_time)
    self->max_time = _sysprof_time_add (time, (int64_t) duration);
  return true;
}

bool
sysprof_capture_writer_add_metadata (SysprofCaptureWriter *self,
                                     int64_t               time,
                                     int                   cpu,
                                     int32_t               pid,
                                     const char           *id,
                                     const char           *metadata,
                                     ssize_t               metadata_len)
{
  SysprofCaptureMetadata *ev;
  size_t                  len;
  size_t                  max = SYSPROF_CAPTURE_MAX_FRAME_LEN - sizeof *ev - 1;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (id != NULL, false);

  if (metadata == NULL)
    {
      metadata = "";
      metadata_len = 0;
    }
  len = metadata_len < 0 ? strnlen (metadata, max) : (size_t) metadata_len;
  if (len > max)
    {
      errno = E2BIG;
      return false;
    }

  if (!(ev = RESERVE (SysprofCaptureMetadata, len + 1, SYSPROF_CAPTURE_FRAME_METADATA)))
    return false;
  _sysprof_strlcpy_field (ev->id, id, sizeof ev->id);
  copy_trailing_string ((uint8_t *) ev->metadata, metadata, len);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_log (SysprofCaptureWriter *self,
                                int64_t               time,
                                int                   cpu,
                                int32_t               pid,
                                int                   severity,
                                const char           *domain,
                                const char           *message)
{
  SysprofCaptureLog *ev;
  size_t             len;

  sysprof_return_val_if_fail (self != NULL, false);

  if (domain == NULL)
    domain = "";
  if (message == NULL)
    message = "";
  len = clamp_trailing (message, sizeof *ev);

  if (!(ev = RESERVE (SysprofCaptureLog, len + 1, SYSPROF_CAPTURE_FRAME_LOG)))
    return false;
  ev->severity = (uint32_t) severity & 0xFFFF;
  ev->padding1 = 0;
  ev->padding2 = 0;
  _sysprof_strlcpy_field (ev->domain, domain, sizeof ev->domain);
  copy_trailing_string ((uint8_t *) ev->message, message, len);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_file (SysprofCaptureWriter *self,
                                 int64_t               time,
                                 int                   cpu,
                                 int32_t               pid,
                                 const char           *path,
                                 bool                  is_last,
                                 const uint8_t        *data,
                                 size_t                data_len)
{
  SysprofCaptureFileChunk *ev;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (path != NULL, false);
  sysprof_return_val_if_fail (data != NULL || data_len == 0, false);
  sysprof_return_val_if_fail (data_len <= SYSPROF_CAPTURE_FILE_CHUNK_MAX, false);

  if (!(ev = RESERVE (SysprofCaptureFileChunk, data_len, SYSPROF_CAPTURE_FRAME_FILE_CHUNK)))
    return false;
  ev->is_last = !!is_last;
  ev->padding1 = 0;
  ev->len = (uint32_t) data_len;
  _sysprof_strlcpy_field (ev->path, path, sizeof ev->path);
  if (data_len)
    memcpy (ev->data, data, data_len);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

/* Chunks as upstream's: 16 KiB frames, then an empty one marked last. */
#define FILE_FD_CHUNK (16384 - sizeof (SysprofCaptureFileChunk))

bool
sysprof_capture_writer_add_file_fd (
    SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, const char *path, int fd)
{
  uint8_t chunk[FILE_FD_CHUNK];

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (path != NULL, false);
  sysprof_return_val_if_fail (fd >= 0, false);

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return false;
        }
      if (!sysprof_capture_writer_add_file (self, time, cpu, pid, path, n == 0, chunk, (size_t) n))
        return false;
      if (n == 0)
        return true;
    }
}

bool
sysprof_capture_writer_add_allocation (SysprofCaptureWriter *self,
                                       int64_t               time,
                                       int                   cpu,
                                       int32_t               pid,
                                       int32_t               tid,
                                       SysprofCaptureAddress alloc_addr,
                                       int64_t               alloc_size,
                                       SysprofBacktraceFunc  backtrace_func,
                                       void                 *backtrace_data)
{
  enum
  {
    MAX_UNWIND_DEPTH = 128
  };
  SysprofCaptureAllocation *ev;
  int                       n = 0;

  sysprof_return_val_if_fail (self != NULL, false);

  /* Reserve the deepest stack, let the callback unwind straight into the
   * frame, then shrink the frame to what it produced; max_size is checked
   * against that final length. */
  if (!(ev = sysprof_capture_writer_reserve_capped (self, sizeof *ev + MAX_UNWIND_DEPTH * sizeof *ev->addrs, sizeof *ev,
                                                    time, cpu, pid, SYSPROF_CAPTURE_FRAME_ALLOCATION)))
    return false;

  /* Frames start 8-aligned in the buffer, so the packed array is aligned. */
  if (backtrace_func != NULL)
    n = backtrace_func ((SysprofCaptureAddress *) (void *) ((uint8_t *) ev + sizeof *ev), MAX_UNWIND_DEPTH,
                        backtrace_data);
  if (n < 0)
    n = 0;
  if (n > MAX_UNWIND_DEPTH)
    n = MAX_UNWIND_DEPTH;
  if (!sysprof_capture_writer_fits (self, self->jit_pending_bytes,
                                    (size_t) n * sizeof (SysprofCaptureAddress) + sizeof *ev))
    {
      errno = EFBIG;
      return false;
    }

  ev->frame.len = (uint16_t) (sizeof *ev + (size_t) n * sizeof (SysprofCaptureAddress));
  ev->alloc_addr = alloc_addr;
  ev->alloc_size = alloc_size;
  ev->tid = tid;
  ev->n_addrs = (uint32_t) n;
  ev->padding1 = 0;
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_allocation_copy (SysprofCaptureWriter        *self,
                                            int64_t                      time,
                                            int                          cpu,
                                            int32_t                      pid,
                                            int32_t                      tid,
                                            SysprofCaptureAddress        alloc_addr,
                                            int64_t                      alloc_size,
                                            const SysprofCaptureAddress *addrs,
                                            unsigned int                 n_addrs)
{
  SysprofCaptureAllocation *ev;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (addrs != NULL || n_addrs == 0, false);
  sysprof_return_val_if_fail (n_addrs <= SYSPROF_CAPTURE_MAX_ADDRS, false);

  if (!(ev = RESERVE (SysprofCaptureAllocation, (size_t) n_addrs * sizeof (SysprofCaptureAddress),
                      SYSPROF_CAPTURE_FRAME_ALLOCATION)))
    return false;
  ev->alloc_addr = alloc_addr;
  ev->alloc_size = alloc_size;
  ev->tid = tid;
  ev->n_addrs = n_addrs;
  ev->padding1 = 0;
  if (n_addrs)
    memcpy (ev->addrs, addrs, (size_t) n_addrs * sizeof (SysprofCaptureAddress));
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_overlay (
    SysprofCaptureWriter *self, int64_t time, int cpu, int32_t pid, uint32_t layer, const char *src, const char *dst)
{
  SysprofCaptureOverlay *ev;
  size_t                 src_len;
  size_t                 dst_len;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (src != NULL, false);
  sysprof_return_val_if_fail (dst != NULL, false);
  sysprof_return_val_if_fail (layer <= 0xFF, false);

  src_len = strlen (src);
  dst_len = strlen (dst);
  if (src_len > 4096 || dst_len > 4096)
    {
      errno = ENAMETOOLONG;
      return false;
    }

  if (!(ev = RESERVE (SysprofCaptureOverlay, src_len + 1 + dst_len + 1, SYSPROF_CAPTURE_FRAME_OVERLAY)))
    return false;
  ev->layer = layer;
  ev->padding = 0;
  ev->src_len = (uint32_t) src_len;
  ev->dst_len = (uint32_t) dst_len;
  copy_trailing_string ((uint8_t *) ev->data, src, src_len);
  copy_trailing_string ((uint8_t *) ev->data + src_len + 1, dst, dst_len);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_dbus_message (SysprofCaptureWriter *self,
                                         int64_t               time,
                                         int                   cpu,
                                         int32_t               pid,
                                         uint16_t              bus_type,
                                         uint16_t              flags,
                                         const uint8_t        *message,
                                         size_t                message_len)
{
  SysprofCaptureDBusMessage *ev;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (message != NULL || message_len == 0, false);
  sysprof_return_val_if_fail (bus_type <= 3, false);
  sysprof_return_val_if_fail (flags < (1u << 14), false);

  if (message_len > SYSPROF_CAPTURE_DBUS_MESSAGE_MAX)
    {
      flags |= SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE;
      message_len = 0;
    }

  if (!(ev = RESERVE (SysprofCaptureDBusMessage, message_len, SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE)))
    return false;
  ev->bus_type = bus_type & 3;
  ev->flags = flags & 0x3FFF;
  ev->message_len = (uint16_t) message_len;
  if (message_len)
    memcpy (ev->message, message, message_len);
  sysprof_capture_writer_commit (self, ev);
  return true;
}

bool
sysprof_capture_writer_add_raw (SysprofCaptureWriter *self, const SysprofCaptureFrame *frame)
{
  uint8_t *dst;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (frame != NULL, false);
  sysprof_return_val_if_fail (frame->len >= sizeof (SysprofCaptureFrame), false);
  sysprof_return_val_if_fail (frame->len % SYSPROF_CAPTURE_ALIGN == 0, false);
  sysprof_return_val_if_fail (frame->type > 0 && frame->type < SYSPROF_CAPTURE_FRAME_LAST, false);

  dst = sysprof_capture_writer_reserve (self, frame->len, frame->time, frame->cpu, frame->pid,
                                        (SysprofCaptureFrameType) frame->type);
  if (dst == NULL)
    return false;
  memcpy (dst, frame, frame->len);
  sysprof_capture_writer_commit (self, dst);
  return true;
}

size_t
sysprof_capture_writer_add_untrusted (SysprofCaptureWriter *self, const void *data, size_t avail)
{
  SysprofCaptureFrame header;
  uint8_t            *dst;

  sysprof_return_val_if_fail (self != NULL, 0);
  sysprof_return_val_if_fail (data != NULL, 0);

  if (avail < sizeof header)
    goto invalid;
  memcpy (&header, data, sizeof header);
  if (header.len < sizeof header || header.len % SYSPROF_CAPTURE_ALIGN != 0 || header.len > avail || header.type == 0 ||
      header.type >= SYSPROF_CAPTURE_FRAME_LAST)
    goto invalid;
  if (!(dst = sysprof_capture_writer_reserve (self, header.len, header.time, header.cpu, header.pid,
                                              (SysprofCaptureFrameType) header.type)))
    return 0;
  memcpy (dst, data, header.len);
  /* The producer may have changed it since we read it. */
  ((SysprofCaptureFrame *) (void *) dst)->len = header.len;
  ((SysprofCaptureFrame *) (void *) dst)->type = header.type;
  if (!sysprof_capture_frame_validate (dst, header.len))
    goto invalid;
  sysprof_capture_writer_commit (self, dst);
  return header.len;

invalid:
  errno = EBADMSG;
  return 0;
}

bool
sysprof_capture_writer_set_time_range (SysprofCaptureWriter *self, int64_t start_time, int64_t end_time)
{
  sysprof_return_val_if_fail (self != NULL, false);

  self->header.time = start_time;
  self->header.end_time = end_time;
  self->time_range_set = true;
  return sysprof_capture_writer_flush (self);
}

bool
_sysprof_capture_writer_extend_time_range (SysprofCaptureWriter *self, int64_t start_time, int64_t end_time)
{
  if (self->time_range_set)
    {
      if (self->header.time < start_time)
        start_time = self->header.time;
      if (self->header.end_time > end_time)
        end_time = self->header.end_time;
    }
  return sysprof_capture_writer_set_time_range (self, start_time, end_time);
}

bool
sysprof_capture_writer_flush (SysprofCaptureWriter *self)
{
  sysprof_return_val_if_fail (self != NULL, false);

  if (!sysprof_capture_writer_flush_jitmap (self) || !sysprof_capture_writer_flush_data (self))
    return false;

  if (self->seekable)
    {
      if (!self->time_range_set)
        {
          int64_t now = SYSPROF_CAPTURE_CURRENT_TIME;

          /* Frames with explicit times (tests, merged captures) may lie past "now". */
          self->header.end_time = now > self->max_time ? now : self->max_time;
        }
      if (!_sysprof_pwrite_all (self->fd, (const uint8_t *) &self->header + offsetof (SysprofCaptureFileHeader, time),
                                16, offsetof (SysprofCaptureFileHeader, time)))
        return false;
    }

  return true;
}

bool
sysprof_capture_writer_switch_fd (SysprofCaptureWriter *self, int fd)
{
  SysprofCaptureFileHeader old_header;
  SysprofCaptureStat       old_stat;
  uint64_t                 old_written;
  int64_t                  old_max_time;
  bool                     old_seekable, old_time_range_set;
  int                      old_fd;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (fd >= 0, false);

  /* Everything owed to the old capture (the pending JIT map above all: its
   * samples are there) goes there, and its header gets its end time. */
  if (!sysprof_capture_writer_flush (self))
    return false;
  old_fd = self->fd;
  old_header = self->header;
  old_stat = self->stat;
  old_written = self->written;
  old_max_time = self->max_time;
  old_seekable = self->seekable;
  old_time_range_set = self->time_range_set;
  if (!sysprof_capture_writer_begin (self, fd))
    {
      int saved = errno;

      /* Still the old capture, whole: flush() left nothing buffered. */
      self->fd = old_fd;
      self->header = old_header;
      self->stat = old_stat;
      self->written = old_written;
      self->max_time = old_max_time;
      self->seekable = old_seekable;
      self->time_range_set = old_time_range_set;
      self->len = 0;
      errno = saved;
      return false;
    }
  close (old_fd);
  return true;
}

bool
sysprof_capture_writer_save_as (SysprofCaptureWriter *self, const char *filename)
{
  _sysprof_autoclose int fd = -1;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (filename != NULL, false);

  if (!self->seekable)
    {
      errno = ESPIPE;
      return false;
    }
  if (!sysprof_capture_writer_flush (self))
    return false;

  fd = open (filename, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0)
    return false;

  return _sysprof_copy_range (self->fd, 0, self->written, fd);
}

SysprofCaptureReader *
sysprof_capture_writer_create_reader (SysprofCaptureWriter *self)
{
  SysprofCaptureReader *reader;
  int                   fd;

  sysprof_return_val_if_fail (self != NULL, NULL);

  if (!self->seekable)
    {
      errno = ESPIPE;
      return NULL;
    }
  if (!sysprof_capture_writer_flush (self))
    return NULL;

  fd = fcntl (self->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return NULL;

  if (!(reader = sysprof_capture_reader_new_from_fd (fd)))
    return NULL;

  sysprof_capture_reader_set_stat (reader, &self->stat);
  return reader;
}

static void
stat_add (SysprofCaptureStat *dest, const SysprofCaptureStat *src)
{
  for (unsigned i = 0; i < SYSPROF_CAPTURE_FRAME_LAST; i++)
    if (i < 16)
      dest->frame_count[i] += src->frame_count[i];
    else
      dest->padding[i - 16] += src->padding[i - 16];
}

bool
sysprof_capture_writer_splice (SysprofCaptureWriter *self, SysprofCaptureWriter *dest)
{
  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (dest != NULL, false);
  sysprof_return_val_if_fail (self != dest, false);

  if (!self->seekable)
    {
      errno = ESPIPE;
      return false;
    }

  if (!sysprof_capture_writer_flush (self) || !sysprof_capture_writer_flush (dest))
    return false;
  /* All or nothing: a part would end inside a frame. */
  if (!sysprof_capture_writer_fits (dest, dest->jit_pending_bytes, self->written - sizeof (SysprofCaptureFileHeader)))
    {
      errno = EFBIG;
      return false;
    }

  if (!_sysprof_copy_range (self->fd, sizeof (SysprofCaptureFileHeader),
                            self->written - sizeof (SysprofCaptureFileHeader), dest->fd))
    return false;

  dest->written += self->written - sizeof (SysprofCaptureFileHeader);
  stat_add (&dest->stat, &self->stat);
  if (self->max_time > dest->max_time)
    dest->max_time = self->max_time;

  return sysprof_capture_writer_flush (dest);
}

/* Used by splice from a reader: the fd position of @self moved by @len bytes written behind its back. */
void
_sysprof_capture_writer_account_spliced (SysprofCaptureWriter     *self,
                                         uint64_t                  len,
                                         const SysprofCaptureStat *stat,
                                         int64_t                   max_time)
{
  self->written += len;
  stat_add (&self->stat, stat);
  if (max_time > self->max_time)
    self->max_time = max_time;
}

int
_sysprof_capture_writer_get_fd (SysprofCaptureWriter *self)
{
  return self->fd;
}
