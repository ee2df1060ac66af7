// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib-unix.h>

#include "sysprof-perf-map-file.h"
#include "sysprof-perf-recorder-private.h"
#include "sysprof-perf-ring-private.h"
#include "sysprof-sched-switch-private.h"
#include "sysprof-unwind-client-private.h"

/* Records are drained on a timer rather than on every wakeup: a ring of 64
 * pages (256 KiB) holds far more than 50 ms of samples at 997 Hz (about 1 KiB
 * per sample even with a 127-frame callchain), and one timer batches the work
 * of every ring into 20 wakeups a second however many CPUs or threads are
 * recorded.  The capture therefore trails the kernel by at most 50 ms.  Each
 * ring also has a poll() watch that fires when it is half full (the kernel's
 * default watermark), so bursts (high frequencies, deep stacks, a storm of
 * mmaps at program start) are drained before records are lost. */
#define DRAIN_INTERVAL_MS 50

/* The user registers a DWARF sample carries (perf's x86 numbering): AX BX CX
 * DX SI DI BP SP IP (bits 0-8) and R8-R15 (bits 16-23), 17 values in that
 * order; the flags and segment registers are of no use to CFI. */
#define USER_REGS_MASK 0xff01ffULL
#define N_USER_REGS    17
G_STATIC_ASSERT (N_USER_REGS == SYSPROF_UNWIND_N_REGS);
/* perf's index of each DWARF register (SysprofDwarfUnwinder's order: rax rdx
 * rcx rbx rsi rdi rbp rsp r8-r15 rip). */
static const guint8 dwarf_from_perf[N_USER_REGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8 };

typedef enum
{
  STATE_IDLE,
  STATE_RUNNING,
  STATE_STOPPED,
} State;

typedef struct
{
  guint32     type;
  guint64     config;
  const char *name;
} EventKind;

/* In order of preference: a hardware cycle counter samples what the CPU
 * spends its cycles on; virtual machines often have no PMU, and cpu-clock (an
 * hrtimer) works everywhere. */
static const EventKind event_kinds[] = {
  { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
  { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock" },
};

typedef struct
{
  const EventKind *kind;
  gboolean         mmap2;
  guint            frequency;
  int              clockid;
  gboolean         user_only;
  /* 0: frame pointers; else the bytes of user stack each sample copies. */
  guint stack_size;
  /* Non-zero: the sched:sched_switch tracepoint of this id, every switch,
   * with its RAW data; no side-band records (the sampling events have them). */
  guint64 tracepoint_id;
} EventConfig;

/* A sample waiting for its user stack from the helper, or done and waiting
 * for an earlier one: frames are written in the order records came. */
typedef struct
{
  guint64  seq;
  gint64   time;
  int      cpu;
  gint32   pid;
  gint32   tid;
  gboolean done;
  /* Off-CPU (scheduler details): the stack of a task leaving the CPU, written
   * once it runs again (@back, with @off_usec).  Once unwound it leaves the
   * queue (@parked) and waits in self->off_cpu; @discard: its switch-in was
   * lost, it is dropped. */
  gboolean off_cpu;
  gboolean back;
  gboolean parked;
  gboolean discard;
  guint32  off_usec;
  /* The kernel's part of the callchain (markers included), then, once
   * answered, PERF_CONTEXT_USER and the user frames. */
  guint                 n_addrs;
  SysprofCaptureAddress addrs[];
} PendingSample;

typedef struct
{
  int   pid; /* -1: every task on the CPU */
  int   cpu;
  guint cpu_index;
  /* FALSE for secondary threads, which may exit before we open them. */
  gboolean required;
} Target;

typedef struct
{
  SysprofPerfRecorder *self;
  SysprofPerfRing     *ring;
  /* The event the ring is mapped from (its fd is in self->fds). */
  int fd;
  /* Our reference; NULL once the watch removed itself. */
  GSource *watch;
  /* The ring of sched_switch events (scheduler details). */
  gboolean sched;
} RingEntry;

struct _SysprofPerfRecorder
{
  GObject parent_instance;

  SysprofCaptureWriter *writer;
  GMainContext         *context;
  /* int: every perf event fd. */
  GArray *fds;
  /* RingEntry: one per mapping; events of the same CPU share one. */
  GPtrArray  *rings;
  GSource    *timer;
  const char *event_name;
  State       state;

  /* pid -> the inode of its mount namespace (0: unknown), for the processes
   * looked at since their last exec; own_mount_ns is ours. */
  GHashTable *mount_ns;
  guint64     own_mount_ns;

  guint64 n_frames;
  guint64 n_samples;
  guint64 n_lost;
  guint64 n_write_errors;

  /* DWARF unwinding: NULL with frame pointers. */
  SysprofUnwindClient *unwinder;
  char                *unwinder_path;
  /* Helpers that stopped (a crash on a hostile file, a hang) and were
   * replaced, and why the first one stopped. */
  guint n_restarts;
  char *first_failure;
  /* The last drain: the helper gets a bounded time. */
  gboolean stopping;
  /* pid -> TRUE: processes with samples, whose perf maps are embedded at
   * stop (when @embed_perf_maps). */
  GHashTable *sampled;
  gboolean    embed_perf_maps;
  /* Kernel addresses of the samples (guint64 in pointers), for the kernel
   * symbols embedded at stop; NULL once there were too many to keep. */
  GHashTable *kernel_addresses;
  guint       n_left_at_stop;
  guint       stack_size;
  GQueue      pending;
  guint64     next_seq;
  /* Per SysprofUnwindStatus. */
  guint64 n_unwound[SYSPROF_UNWIND_STATUS_FAILED + 1];
  char   *unwind_summary;
  char   *unwind_warning;

  /* Scheduler details (see SysprofPerfRecorderOptions.scheduler). */
  gboolean                 scheduler;
  SysprofSchedSwitchFormat sched_format;
  guint                    frequency;
  /* By CPU: when its current slice began (0: unknown yet). */
  GArray *slice_start;
  /* tid -> when it last came on a CPU (per-thread recordings only, from
   * PERF_RECORD_SWITCH). */
  GHashTable *switched_in;
  /* tid -> its PendingSample off the CPU (owned here once parked). */
  GHashTable *off_cpu;
  gint64      last_time;
  gsize       parked_bytes;
  gint32      own_pid;
  guint64     n_switches;
  guint64     n_off_cpu;
  guint64     n_sched_marks;
  guint64     n_off_cpu_dropped;
};

G_DEFINE_FINAL_TYPE (SysprofPerfRecorder, sysprof_perf_recorder, G_TYPE_OBJECT)

static void
ring_entry_free (gpointer data)
{
  RingEntry *entry = data;

  if (entry->watch != NULL)
    {
      g_source_destroy (entry->watch);
      g_source_unref (entry->watch);
    }
  _sysprof_perf_ring_free (entry->ring);
  g_free (entry);
}

static void
sysprof_perf_recorder_dispose (GObject *object)
{
  sysprof_perf_recorder_stop (SYSPROF_PERF_RECORDER (object));

  G_OBJECT_CLASS (sysprof_perf_recorder_parent_class)->dispose (object);
}

static void
sysprof_perf_recorder_finalize (GObject *object)
{
  SysprofPerfRecorder *self = SYSPROF_PERF_RECORDER (object);

  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  g_clear_pointer (&self->rings, g_ptr_array_unref);
  g_clear_pointer (&self->fds, g_array_unref);
  g_clear_pointer (&self->mount_ns, g_hash_table_unref);
  g_clear_pointer (&self->sampled, g_hash_table_unref);
  g_clear_pointer (&self->kernel_addresses, g_hash_table_unref);
  g_clear_pointer (&self->unwinder, _sysprof_unwind_client_free);
  g_free (self->unwinder_path);
  g_free (self->first_failure);
  if (self->off_cpu != NULL)
    {
      GHashTableIter iter;
      gpointer       value;

      /* The parked ones are ours; the others are still in the queue. */
      g_hash_table_iter_init (&iter, self->off_cpu);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        if (((PendingSample *) value)->parked)
          g_free (value);
      g_hash_table_unref (self->off_cpu);
    }
  g_clear_pointer (&self->switched_in, g_hash_table_unref);
  g_clear_pointer (&self->slice_start, g_array_unref);
  g_queue_clear_full (&self->pending, g_free);
  g_free (self->unwind_summary);
  g_free (self->unwind_warning);

  G_OBJECT_CLASS (sysprof_perf_recorder_parent_class)->finalize (object);
}

static void
sysprof_perf_recorder_class_init (SysprofPerfRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sysprof_perf_recorder_dispose;
  object_class->finalize = sysprof_perf_recorder_finalize;
}

static void
sysprof_perf_recorder_init (SysprofPerfRecorder *self)
{
  self->fds = g_array_new (FALSE, FALSE, sizeof (int));
  self->rings = g_ptr_array_new_with_free_func (ring_entry_free);
  self->mount_ns = g_hash_table_new (NULL, NULL);
  self->sampled = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->kernel_addresses = g_hash_table_new (NULL, NULL);
  self->off_cpu = g_hash_table_new (NULL, NULL);
  self->switched_in = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->slice_start = g_array_new (FALSE, TRUE, sizeof (gint64));
  g_queue_init (&self->pending);
}

void
sysprof_perf_recorder_options_init (SysprofPerfRecorderOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
  options->size = sizeof *options;
}

SysprofPerfRecorder *
sysprof_perf_recorder_new (SysprofCaptureWriter *writer)
{
  SysprofPerfRecorder *self;

  g_return_val_if_fail (writer != NULL, NULL);

  self = g_object_new (SYSPROF_TYPE_PERF_RECORDER, NULL);
  self->writer = sysprof_capture_writer_ref (writer);
  return self;
}

/* Record decoding ---------------------------------------------------------- */

typedef struct
{
  const guint8 *data;
  gsize         len;
  gsize         pos;
} Cursor;

static void
cursor_init (Cursor *c, const struct perf_event_header *record)
{
  c->data = (const guint8 *) record;
  c->len = record->size;
  c->pos = sizeof *record;
}

static gboolean
cursor_u32 (Cursor *c, guint32 *v)
{
  if (c->len - c->pos < sizeof *v)
    return FALSE;
  memcpy (v, c->data + c->pos, sizeof *v);
  c->pos += sizeof *v;
  return TRUE;
}

static gboolean
cursor_u64 (Cursor *c, guint64 *v)
{
  if (c->len - c->pos < sizeof *v)
    return FALSE;
  memcpy (v, c->data + c->pos, sizeof *v);
  c->pos += sizeof *v;
  return TRUE;
}

/* The NUL-terminated string at the cursor, which must end before the
 * sample_id trailer; NULL if it does not. */
static const char *
cursor_string_before_trailer (Cursor *c)
{
  const char *str = (const char *) c->data + c->pos;
  gsize       room;

  if (c->len < _SYSPROF_PERF_SAMPLE_ID_SIZE || c->len - _SYSPROF_PERF_SAMPLE_ID_SIZE <= c->pos)
    return NULL;
  room = c->len - _SYSPROF_PERF_SAMPLE_ID_SIZE - c->pos;
  if (memchr (str, 0, room) == NULL)
    return NULL;
  return str;
}

typedef struct
{
  gint32 pid;
  gint32 tid;
  gint64 time;
  int    cpu;
} SampleId;

/* The sample_id_all trailer of a non-sample record. */
static gboolean
read_sample_id (const struct perf_event_header *record, SampleId *id)
{
  Cursor  c;
  guint32 pid, tid, cpu, res;
  guint64 time;

  if (record->size < sizeof *record + _SYSPROF_PERF_SAMPLE_ID_SIZE)
    return FALSE;
  cursor_init (&c, record);
  c.pos = c.len - _SYSPROF_PERF_SAMPLE_ID_SIZE;
  if (!cursor_u32 (&c, &pid) || !cursor_u32 (&c, &tid) || !cursor_u64 (&c, &time) || !cursor_u32 (&c, &cpu) ||
      !cursor_u32 (&c, &res))
    return FALSE;
  id->pid = (gint32) pid;
  id->tid = (gint32) tid;
  id->time = (gint64) time;
  id->cpu = (int) cpu;
  return TRUE;
}

static void
count_frame (SysprofPerfRecorder *self, gboolean written)
{
  if (written)
    self->n_frames++;
  else
    self->n_write_errors++;
}

/* A file as FILE_CHUNK frames: one per chunk and an empty last one, counted
 * from the writer's own counts. */
static void
add_file (SysprofPerfRecorder *self, gint64 time, int cpu, gint32 pid, const char *path, int fd)
{
  SysprofCaptureStat before, after;

  sysprof_capture_writer_stat (self->writer, &before);
  if (!sysprof_capture_writer_add_file_fd (self->writer, time, cpu, pid, path, fd))
    {
      self->n_write_errors++;
      return;
    }
  sysprof_capture_writer_stat (self->writer, &after);
  self->n_frames +=
      after.frame_count[SYSPROF_CAPTURE_FRAME_FILE_CHUNK] - before.frame_count[SYSPROF_CAPTURE_FRAME_FILE_CHUNK];
}

static void
write_sample (SysprofPerfRecorder *self, PendingSample *p)
{
  gboolean written;

  if (p->off_cpu)
    {
      written = sysprof_capture_writer_add_off_cpu_sample (self->writer, p->time, p->cpu, p->pid, p->tid, p->addrs,
                                                           MIN (p->n_addrs, (guint) SYSPROF_CAPTURE_MAX_ADDRS - 2),
                                                           p->off_usec);
      count_frame (self, written);
      if (written)
        self->n_off_cpu++;
      return;
    }
  written = sysprof_capture_writer_add_sample (self->writer, p->time, p->cpu, p->pid, p->tid, p->addrs,
                                               MIN (p->n_addrs, (guint) SYSPROF_CAPTURE_MAX_ADDRS));
  count_frame (self, written);
  if (written)
    self->n_samples++;
}

/* Memory of the off-CPU stacks waiting for their threads to run again. */
#define MAX_PARKED_BYTES ((gsize) 32 << 20)

static void
unpark (SysprofPerfRecorder *self, PendingSample *p)
{
  self->parked_bytes -= sizeof *p + p->n_addrs * sizeof (SysprofCaptureAddress);
}

/* Writes the samples at the head of the queue that are complete.  An off-CPU
 * stack whose task has not run again yet leaves the queue for self->off_cpu,
 * shrunk to its addresses: tasks may sleep for the whole recording. */
static void
write_done_samples (SysprofPerfRecorder *self)
{
  PendingSample *p;

  while ((p = g_queue_peek_head (&self->pending)) != NULL && p->done)
    {
      g_queue_pop_head (&self->pending);
      if (p->off_cpu && !p->back)
        {
          gsize          size = sizeof *p + p->n_addrs * sizeof (SysprofCaptureAddress);
          PendingSample *shrunk;

          /* Bounded: a program with thousands of sleeping threads costs the
           * daemon at most this much, the rest is counted as dropped. */
          if (self->parked_bytes + size > MAX_PARKED_BYTES)
            {
              g_hash_table_remove (self->off_cpu, GINT_TO_POINTER (p->tid));
              self->n_off_cpu_dropped++;
              g_free (p);
              continue;
            }
          shrunk = g_realloc (p, size);
          shrunk->parked = TRUE;
          self->parked_bytes += size;
          g_hash_table_insert (self->off_cpu, GINT_TO_POINTER (shrunk->tid), shrunk);
          continue;
        }
      if (p->discard)
        self->n_off_cpu_dropped++;
      else
        write_sample (self, p);
      g_free (p);
    }
}

/* The task @tid runs again at @time: its off-CPU stack is complete. */
static void
note_switch_in (SysprofPerfRecorder *self, gint32 tid, gint64 time)
{
  PendingSample *p = g_hash_table_lookup (self->off_cpu, GINT_TO_POINTER (tid));

  if (p == NULL)
    return;
  g_hash_table_remove (self->off_cpu, GINT_TO_POINTER (tid));
  p->back = TRUE;
  p->off_usec = (guint32) CLAMP ((time - p->time) / 1000, 1, (gint64) G_MAXUINT32);
  if (p->parked)
    {
      unpark (self, p);
      write_sample (self, p);
      g_free (p);
    }
}

/* Most tasks off the CPU at once whose stacks are kept; beyond, the new ones
 * are dropped (counted). */
#define MAX_OFF_CPU_TASKS 65536

/* @p, just queued, is the stack of @p->tid leaving the CPU. */
static void
note_switch_out (SysprofPerfRecorder *self, PendingSample *p)
{
  PendingSample *old = g_hash_table_lookup (self->off_cpu, GINT_TO_POINTER (p->tid));

  p->off_cpu = TRUE;
  if (old != NULL)
    {
      /* Its switch-in was lost (a full ring): how long it waited is unknown. */
      g_hash_table_remove (self->off_cpu, GINT_TO_POINTER (p->tid));
      if (old->parked)
        {
          unpark (self, old);
          self->n_off_cpu_dropped++;
          g_free (old);
        }
      else
        old->discard = old->back = TRUE;
    }
  if (g_hash_table_size (self->off_cpu) >= MAX_OFF_CPU_TASKS)
    {
      p->discard = p->back = TRUE;
      return;
    }
  g_hash_table_insert (self->off_cpu, GINT_TO_POINTER (p->tid), p);
}

/* At stop, the tasks still off the CPU: they waited at least until the last
 * record. */
static void
write_parked_samples (SysprofPerfRecorder *self)
{
  GHashTableIter iter;
  gpointer       value;

  g_hash_table_iter_init (&iter, self->off_cpu);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      PendingSample *p = value;

      if (!p->parked)
        continue;
      g_hash_table_iter_remove (&iter);
      unpark (self, p);
      p->off_usec = (guint32) CLAMP ((self->last_time - p->time) / 1000, 1, (gint64) G_MAXUINT32);
      write_sample (self, p);
      g_free (p);
    }
}

/* The helper's answer for the oldest sample still waiting, which is the head
 * of the queue (answers come in order, done ones are written at once). */
static void
unwound_cb (guint64 seq, SysprofUnwindStatus status, const guint64 *addrs, guint n_addrs, gpointer user_data)
{
  SysprofPerfRecorder *self = user_data;
  PendingSample       *p = g_queue_peek_head (&self->pending);

  g_assert (p != NULL && !p->done && p->seq == seq);

  self->n_unwound[status]++;
  /* The slot after the marker holds the user ip (see handle_dwarf_sample):
   * when nothing was unwound it stays, and the sample is still attributed. */
  p->addrs[p->n_addrs++] = PERF_CONTEXT_USER;
  if (n_addrs > 0)
    {
      n_addrs = MIN (n_addrs, SYSPROF_UNWIND_MAX_FRAMES);
      memcpy (&p->addrs[p->n_addrs], addrs, n_addrs * sizeof *addrs);
      p->n_addrs += n_addrs;
    }
  else
    p->n_addrs++;
  p->done = TRUE;
  write_done_samples (self);
}

/* How long the end of a recording waits for the helper's last answers. */
#define FINAL_UNWIND_BUDGET_MS 2000

static void
flush_pending (SysprofPerfRecorder *self)
{
  if (self->unwinder != NULL && self->stopping)
    self->n_left_at_stop += _sysprof_unwind_client_finish (self->unwinder, FINAL_UNWIND_BUDGET_MS);
  else if (self->unwinder != NULL)
    _sysprof_unwind_client_flush (self->unwinder);
  write_done_samples (self);
}

/* Distinct kernel addresses kept for the embedded kernel symbols; beyond,
 * all of them are embedded. */
#define MAX_KERNEL_ADDRESSES (1u << 20)

/* The kernel part of a callchain: after PERF_CONTEXT_KERNEL, up to the next
 * context marker (markers are the top 4095 values). */
static void
note_kernel_addresses (SysprofPerfRecorder *self, const guint64 *ips, guint n)
{
  gboolean kernel = FALSE;

  if (self->kernel_addresses == NULL)
    return;
  for (guint i = 0; i < n; i++)
    {
      if (ips[i] >= (guint64) PERF_CONTEXT_MAX)
        {
          kernel = ips[i] == (guint64) PERF_CONTEXT_KERNEL;
          continue;
        }
      if (!kernel)
        continue;
      g_hash_table_add (self->kernel_addresses, GSIZE_TO_POINTER ((gsize) ips[i]));
      if (g_hash_table_size (self->kernel_addresses) > MAX_KERNEL_ADDRESSES)
        {
          g_clear_pointer (&self->kernel_addresses, g_hash_table_unref);
          return;
        }
    }
}

/* Perf maps embedded at stop: processes looked at, and bytes in all. */
#define MAX_PERF_MAPS       16384
#define MAX_PERF_MAPS_BYTES ((gsize) 256 << 20)

/* A sampled process, as its perf map will need it at the stop: its owner
 * and whether its /tmp is ours, learnt now, while it runs (it may exit
 * before the recording ends).  Once per process. */
typedef struct
{
  uid_t    owner;
  gboolean known;
  gboolean in_our_tmp;
} SampledProcess;

static void
note_sampled_process (SysprofPerfRecorder *self, gint32 pid)
{
  SampledProcess *p = g_new0 (SampledProcess, 1);

  p->known = sysprof_perf_map_file_note_process (pid, &p->owner, &p->in_our_tmp);
  g_hash_table_insert (self->sampled, GINT_TO_POINTER (pid), p);
}

/* The perf maps of the sampled processes, as files of the capture: a JIT
 * compiler's names (node, the JVM, LuaJIT) for code in anonymous memory.
 * Read here because only here may another user's process's /tmp be looked
 * into: through its root while it runs; once it exited, /tmp/perf-PID.map
 * here, only when its /tmp was ours and the file is its owner's.  The
 * symbolizer reads the recording user's own later too. */
static void
embed_perf_maps (SysprofPerfRecorder *self)
{
  GHashTableIter iter;
  gpointer       key, value;
  gsize          total = 0;
  gint64         time = SYSPROF_CAPTURE_CURRENT_TIME;

  g_hash_table_iter_init (&iter, self->sampled);
  while (g_hash_table_iter_next (&iter, &key, &value) && total < MAX_PERF_MAPS_BYTES)
    {
      const SampledProcess *p = value;
      gint32                pid = GPOINTER_TO_INT (key);
      g_autofree char      *name = NULL;
      g_autoptr (GBytes) bytes = NULL;
      gsize         len;
      gconstpointer data;
      int           fd;

      if (!p->known || (bytes = sysprof_perf_map_file_read (pid, p->in_our_tmp, p->owner, NULL)) == NULL)
        continue;
      data = g_bytes_get_data (bytes, &len);
      if (len == 0 || len > MAX_PERF_MAPS_BYTES - total || (fd = memfd_create ("perf-map", MFD_CLOEXEC)) < 0)
        continue;
      if (write (fd, data, len) == (gssize) len && lseek (fd, 0, SEEK_SET) == 0)
        {
          name = g_strdup_printf ("/tmp/perf-%d.map", pid);
          add_file (self, time, -1, pid, name, fd);
          total += len;
        }
      close (fd);
    }
}

/* A helper that stopped is replaced, a few times per recording: one
 * program's hostile file must not cost the rest of the recording its
 * stacks.  The new one learns the processes again from /proc. */
#define MAX_UNWINDER_RESTARTS 3

static void
maybe_restart_unwinder (SysprofPerfRecorder *self)
{
  const char          *failure = _sysprof_unwind_client_get_failure (self->unwinder);
  SysprofUnwindClient *fresh;

  if (failure == NULL || self->n_restarts >= MAX_UNWINDER_RESTARTS || self->stopping)
    return;
  /* Samples still waiting were answered as failed when it stopped. */
  if (self->first_failure == NULL)
    self->first_failure = g_strdup (failure);
  if ((fresh = _sysprof_unwind_client_new (self->unwinder_path, unwound_cb, self, NULL)) == NULL)
    return;
  self->n_restarts++;
  _sysprof_unwind_client_free (self->unwinder);
  self->unwinder = fresh;
}

/* What PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER add after the
 * callchain: { u64 abi; u64 regs[17] if abi; } { u64 size; u8 data[size];
 * u64 dyn_size if size; }. */
static void
handle_dwarf_sample (SysprofPerfRecorder *self,
                     Cursor              *c,
                     guint64              ip,
                     guint32              pid,
                     guint32              tid,
                     guint64              time,
                     guint32              cpu,
                     const guint64       *ips,
                     guint                n_ips,
                     gboolean             off_cpu)
{
  guint64        abi, size, dyn_size = 0;
  guint64        perf_regs[N_USER_REGS];
  guint64        regs[N_USER_REGS];
  const guint8  *stack = NULL;
  PendingSample *p;
  gboolean       unwind;

  if (!cursor_u64 (c, &abi))
    return;
  if (abi != PERF_SAMPLE_REGS_ABI_NONE)
    for (guint i = 0; i < N_USER_REGS; i++)
      if (!cursor_u64 (c, &perf_regs[i]))
        return;
  if (!cursor_u64 (c, &size) || size > c->len - c->pos)
    return;
  if (size > 0)
    {
      stack = c->data + c->pos;
      c->pos += size;
      if (!cursor_u64 (c, &dyn_size))
        return;
      dyn_size = MIN (dyn_size, size);
    }

  /* A 64-bit user context to unwind; a kernel thread (abi NONE) or a 32-bit
   * process has none we can use: its kernel callchain, or its ip, stands. */
  unwind = abi == PERF_SAMPLE_REGS_ABI_64 && pid != 0 && pid != (guint32) -1;

  /* Room for the kernel part, the user marker and the user frames; the last
   * slot keeps the user ip for a failed unwind. */
  p = g_malloc (sizeof *p + (n_ips + SYSPROF_UNWIND_MAX_FRAMES + 2) * sizeof (SysprofCaptureAddress));
  p->seq = self->next_seq++;
  p->time = (gint64) time;
  p->cpu = (int) cpu;
  p->pid = (gint32) pid;
  p->tid = (gint32) tid;
  memcpy (p->addrs, ips, n_ips * sizeof *ips);
  p->n_addrs = n_ips;
  p->done = !unwind;
  p->off_cpu = p->back = p->parked = p->discard = FALSE;
  p->off_usec = 0;
  if (!unwind && n_ips == 0)
    p->addrs[p->n_addrs++] = ip;
  if (off_cpu)
    note_switch_out (self, p);
  g_queue_push_tail (&self->pending, p);

  if (!unwind)
    {
      write_done_samples (self);
      return;
    }
  for (guint i = 0; i < N_USER_REGS; i++)
    regs[i] = perf_regs[dwarf_from_perf[i]];
  maybe_restart_unwinder (self);
  /* Where unwound_cb finds the user ip, after the PERF_CONTEXT_USER it adds. */
  p->addrs[n_ips + 1] = regs[SYSPROF_UNWIND_N_REGS - 1];
  _sysprof_unwind_client_submit (self->unwinder, p->seq, (gint32) pid, (gint32) tid, regs, stack, (gsize) dyn_size);
}

static void
handle_sample (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  const SysprofCaptureAddress *addrs;
  Cursor                       c;
  guint64                      ip, time, nr;
  guint32                      pid, tid, cpu, res;
  guint                        n_addrs;
  gboolean                     written;

  cursor_init (&c, record);
  if (!cursor_u64 (&c, &ip) || !cursor_u32 (&c, &pid) || !cursor_u32 (&c, &tid) || !cursor_u64 (&c, &time) ||
      !cursor_u32 (&c, &cpu) || !cursor_u32 (&c, &res) || !cursor_u64 (&c, &nr))
    return;
  if (nr > (c.len - c.pos) / sizeof (guint64))
    return;

  if (self->embed_perf_maps && pid != 0 && pid != (guint32) -1 && g_hash_table_size (self->sampled) < MAX_PERF_MAPS &&
      !g_hash_table_contains (self->sampled, GUINT_TO_POINTER (pid)))
    note_sampled_process (self, (gint32) pid);

  if (self->unwinder != NULL)
    {
      const guint64 *ips = (const guint64 *) (gconstpointer) (c.data + c.pos);

      c.pos += nr * sizeof (guint64);
      note_kernel_addresses (self, ips, (guint) MIN (nr, 128));
      /* Kernel frames only (exclude_callchain_user): at most 127 of them. */
      handle_dwarf_sample (self, &c, ip, pid, tid, time, cpu, ips, (guint) MIN (nr, 128), FALSE);
      return;
    }

  if (nr == 0)
    {
      /* Nothing could be walked (e.g. a sample taken where no frame exists
       * yet): the instruction pointer alone still attributes the sample. */
      addrs = &ip;
      n_addrs = 1;
    }
  else
    {
      /* Records are 8-byte aligned (see SysprofPerfRecordFunc), and so is the
       * callchain within them.  The context markers stay in: readers use them
       * to tell kernel from user addresses. */
      addrs = (const SysprofCaptureAddress *) (gconstpointer) (c.data + c.pos);
      n_addrs = (guint) MIN (nr, (guint64) SYSPROF_CAPTURE_MAX_ADDRS);
      note_kernel_addresses (self, addrs, n_addrs);
    }

  written = sysprof_capture_writer_add_sample (self->writer, (gint64) time, (int) cpu, (gint32) pid, (gint32) tid,
                                               addrs, n_addrs);
  count_frame (self, written);
  if (written)
    self->n_samples++;
}

/* Scheduler details ----------------------------------------------------------- */

static void handle_lost (SysprofPerfRecorder *self, const struct perf_event_header *record);

/* The slice that ends on @cpu at @time: a MARK as Sysprof 48 writes them. */
static void
write_slice (SysprofPerfRecorder *self, gint64 start, gint64 time, int cpu, gint32 pid, const char *comm)
{
  char name[32];

  if (start <= 0 || time < start)
    return;
  g_snprintf (name, sizeof name, "CPU %d", cpu);
  count_frame (self,
               sysprof_capture_writer_add_mark (self->writer, start, cpu, pid, time - start, "Scheduler", name, comm));
  self->n_sched_marks++;
}

/* Most CPUs whose slices are followed (a sample's cpu field is the kernel's). */
#define MAX_SCHED_CPUS 8192

/* A sched_switch sample: { u64 ip; u32 pid, tid; u64 time; u32 cpu, res;
 * u64 nr; u64 ips[nr]; u32 size; u8 raw[size]; } then, with DWARF
 * unwinding, the user registers and stack as for a sample.  pid and tid are
 * those of the task leaving the CPU. */
static void
handle_sched_sample (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  SysprofSchedSwitch sw;
  const guint64     *ips;
  Cursor             c;
  guint64            ip, time, nr;
  guint32            pid, tid, cpu, res, raw_size;
  const guint8      *raw;

  cursor_init (&c, record);
  if (!cursor_u64 (&c, &ip) || !cursor_u32 (&c, &pid) || !cursor_u32 (&c, &tid) || !cursor_u64 (&c, &time) ||
      !cursor_u32 (&c, &cpu) || !cursor_u32 (&c, &res) || !cursor_u64 (&c, &nr))
    return;
  if (nr > (c.len - c.pos) / sizeof (guint64))
    return;
  ips = (const guint64 *) (gconstpointer) (c.data + c.pos);
  c.pos += nr * sizeof (guint64);
  if (!cursor_u32 (&c, &raw_size) || raw_size > c.len - c.pos)
    return;
  raw = c.data + c.pos;
  c.pos += raw_size;
  if (!_sysprof_sched_switch_read (&self->sched_format, raw, raw_size, &sw))
    return;

  self->n_switches++;
  self->last_time = MAX (self->last_time, (gint64) time);
  nr = MIN (nr, 128);
  note_kernel_addresses (self, ips, (guint) nr);

  /* The slice of the task leaving: since the previous switch on this CPU, or
   * (per-thread recordings) since it came on the CPU. */
  if (sw.prev_pid != 0)
    {
      gint64 *in = g_hash_table_lookup (self->switched_in, GINT_TO_POINTER (sw.prev_pid));

      if (in != NULL)
        {
          write_slice (self, *in, (gint64) time, (int) cpu, (gint32) pid, sw.prev_comm);
          g_hash_table_remove (self->switched_in, GINT_TO_POINTER (sw.prev_pid));
        }
      else if (cpu < self->slice_start->len)
        write_slice (self, g_array_index (self->slice_start, gint64, cpu), (gint64) time, (int) cpu, (gint32) pid,
                     sw.prev_comm);
    }
  if (cpu < MAX_SCHED_CPUS)
    {
      if (cpu >= self->slice_start->len)
        g_array_set_size (self->slice_start, cpu + 1);
      g_array_index (self->slice_start, gint64, cpu) = (gint64) time;
    }

  /* The task taking the CPU has waited enough. */
  if (sw.next_pid != 0)
    note_switch_in (self, sw.next_pid, (gint64) time);

  /* The stack of the one leaving: not of the idle task, nor of the
   * recorder's own threads and its unwinding helper, which switch at every
   * exchange of stacks: unwinding theirs would feed itself (their slices
   * and the switch-ins stay). */
  if (sw.prev_pid == 0 || tid == 0 || tid == (guint32) -1 || (gint32) pid == self->own_pid ||
      (self->unwinder != NULL && (GPid) pid == _sysprof_unwind_client_get_helper_pid (self->unwinder)))
    return;
  if (self->unwinder != NULL)
    {
      handle_dwarf_sample (self, &c, ip, pid, tid, time, cpu, ips, (guint) nr, TRUE);
      return;
    }
  {
    PendingSample *p = g_malloc (sizeof *p + (nr + 1) * sizeof (SysprofCaptureAddress));

    memset (p, 0, sizeof *p);
    p->seq = self->next_seq++;
    p->time = (gint64) time;
    p->cpu = (int) cpu;
    p->pid = (gint32) pid;
    p->tid = (gint32) tid;
    p->done = TRUE;
    memcpy (p->addrs, ips, nr * sizeof *ips);
    p->n_addrs = (guint) nr;
    if (nr == 0)
      p->addrs[p->n_addrs++] = ip;
    note_switch_out (self, p);
    g_queue_push_tail (&self->pending, p);
    write_done_samples (self);
  }
}

/* PERF_RECORD_SWITCH of a per-thread recording: a task coming on a CPU. */
static void
handle_switch (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  SampleId id;

  if ((record->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0 || !read_sample_id (record, &id) || id.tid <= 0)
    return;
  self->last_time = MAX (self->last_time, id.time);
  note_switch_in (self, id.tid, id.time);
  if (g_hash_table_size (self->switched_in) < MAX_OFF_CPU_TASKS)
    g_hash_table_insert (self->switched_in, GINT_TO_POINTER (id.tid), g_memdup2 (&id.time, sizeof id.time));
}

static void
handle_sched_record (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  switch (record->type)
    {
    case PERF_RECORD_SAMPLE: handle_sched_sample (self, record); break;
    case PERF_RECORD_SWITCH: handle_switch (self, record); break;
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES: handle_lost (self, record); break;
    default: break;
    }
}

static guint64
mount_ns_of (const char *proc_dir)
{
  g_autofree char *path = g_strdup_printf ("%s/ns/mnt", proc_dir);
  struct stat      st;

  return stat (path, &st) == 0 ? (guint64) st.st_ino : 0;
}

/* A process that maps files from another mount namespace (a container, a
 * Flatpak sandbox started during the recording) needs its mountinfo for
 * those paths to be found on the host later; the snapshot only has the
 * processes of the start.  Looked at again after an exec (see handle_comm);
 * readers keep the latest copy. */
static void
maybe_write_mountinfo (SysprofPerfRecorder *self, guint32 pid, gint64 time, int cpu)
{
  g_autofree char *dir = g_strdup_printf ("/proc/%u", pid);
  g_autofree char *path = NULL;
  guint64          ns;
  int              fd;

  /* Looked at once per process image: every mapping would be a stat(). */
  if (g_hash_table_contains (self->mount_ns, GUINT_TO_POINTER (pid)))
    return;
  if (self->own_mount_ns == 0)
    self->own_mount_ns = mount_ns_of ("/proc/self");
  ns = mount_ns_of (dir);
  g_hash_table_insert (self->mount_ns, GUINT_TO_POINTER (pid), GSIZE_TO_POINTER ((gsize) ns));
  if (ns == 0 || ns == self->own_mount_ns)
    return;
  path = g_strdup_printf ("%s/mountinfo", dir);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return;
  add_file (self, time, cpu, (gint32) pid, path, fd);
  close (fd);
}

static void
handle_mmap (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  SampleId    id;
  Cursor      c;
  guint32     pid, tid;
  guint64     addr, len, pgoff;
  guint64     inode = 0;
  guint32     maj = 0, min = 0, prot = 0;
  const char *filename;

  if (!read_sample_id (record, &id))
    return;
  cursor_init (&c, record);
  if (!cursor_u32 (&c, &pid) || !cursor_u32 (&c, &tid) || !cursor_u64 (&c, &addr) || !cursor_u64 (&c, &len) ||
      !cursor_u64 (&c, &pgoff))
    return;

  if (record->type == PERF_RECORD_MMAP2)
    {
      guint32 flags;
      guint64 ino, ino_generation;

      if (!cursor_u32 (&c, &maj) || !cursor_u32 (&c, &min) || !cursor_u64 (&c, &ino) ||
          !cursor_u64 (&c, &ino_generation) || !cursor_u32 (&c, &prot) || !cursor_u32 (&c, &flags))
        return;
      /* With MISC_MMAP_BUILD_ID the same bytes hold a build-id instead of
       * device and inode; we do not ask for that, but stay correct. */
      if ((record->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) == 0)
        inode = ino;
      else
        maj = min = 0;
    }

  filename = cursor_string_before_trailer (&c);
  if (filename == NULL)
    return;

  /* Frames in the order of the records: the samples before this one first. */
  flush_pending (self);
  /* Only executable mappings come without mmap_data; MMAP2 says so. */
  if (self->unwinder != NULL && (record->type != PERF_RECORD_MMAP2 || (prot & PROT_EXEC)))
    _sysprof_unwind_client_add_map (self->unwinder, (gint32) pid, addr, addr + len, pgoff, maj, min, inode, filename);
  count_frame (self, sysprof_capture_writer_add_map (self->writer, id.time, id.cpu, (gint32) pid, addr, addr + len,
                                                     pgoff, inode, filename));
  if (filename[0] == '/')
    maybe_write_mountinfo (self, pid, id.time, id.cpu);
}

static void
handle_comm (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  SampleId    id;
  Cursor      c;
  guint32     pid, tid;
  const char *comm;

  if (!read_sample_id (record, &id))
    return;
  cursor_init (&c, record);
  if (!cursor_u32 (&c, &pid) || !cursor_u32 (&c, &tid))
    return;
  comm = cursor_string_before_trailer (&c);
  if (comm == NULL)
    return;

  /* A PROCESS frame names the process; a secondary thread renaming itself
   * (pthread_setname_np) must not rename it. */
  if (pid != tid)
    return;

  /* After an exec the mounts may differ even in the same namespace (a
   * launcher bind-mounts, then execs): the next mapping writes them again. */
  flush_pending (self);
  if (record->misc & PERF_RECORD_MISC_COMM_EXEC)
    {
      g_hash_table_remove (self->mount_ns, GUINT_TO_POINTER (pid));
      if (self->unwinder != NULL)
        _sysprof_unwind_client_forget (self->unwinder, (gint32) pid, id.time);
    }
  count_frame (self, sysprof_capture_writer_add_process (self->writer, id.time, id.cpu, (gint32) pid, comm));
}

static void
handle_task (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  SampleId id;
  Cursor   c;
  guint32  pid, ppid, tid, ptid;
  guint64  time;

  if (!read_sample_id (record, &id))
    return;
  cursor_init (&c, record);
  if (!cursor_u32 (&c, &pid) || !cursor_u32 (&c, &ppid) || !cursor_u32 (&c, &tid) || !cursor_u32 (&c, &ptid) ||
      !cursor_u64 (&c, &time))
    return;

  /* Capture FORK and EXIT frames are about processes: thread creation and
   * thread exit (tid != pid) are not reported. */
  if (pid != tid)
    return;

  flush_pending (self);
  if (record->type == PERF_RECORD_EXIT && self->unwinder != NULL)
    _sysprof_unwind_client_forget (self->unwinder, (gint32) pid, (gint64) time);
  else if (record->type == PERF_RECORD_FORK && self->unwinder != NULL)
    _sysprof_unwind_client_fork (self->unwinder, (gint32) ppid, (gint32) pid, (gint64) time);
  if (record->type == PERF_RECORD_FORK)
    count_frame (self,
                 sysprof_capture_writer_add_fork (self->writer, (gint64) time, id.cpu, (gint32) ppid, (gint32) pid));
  else
    count_frame (self, sysprof_capture_writer_add_exit (self->writer, (gint64) time, id.cpu, (gint32) pid));
}

static void
handle_lost (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  Cursor  c;
  guint64 event_id, lost;

  cursor_init (&c, record);
  if (record->type == PERF_RECORD_LOST && !cursor_u64 (&c, &event_id))
    return;
  if (!cursor_u64 (&c, &lost))
    return;
  self->n_lost += lost;
}

void
_sysprof_perf_recorder_handle_record (SysprofPerfRecorder *self, const struct perf_event_header *record)
{
  g_return_if_fail (SYSPROF_IS_PERF_RECORDER (self));
  g_return_if_fail (record != NULL && record->size >= sizeof *record);

  switch (record->type)
    {
    case PERF_RECORD_SAMPLE: handle_sample (self, record); break;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2: handle_mmap (self, record); break;
    case PERF_RECORD_COMM: handle_comm (self, record); break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: handle_task (self, record); break;
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES: handle_lost (self, record); break;
    default:
      /* THROTTLE / UNTHROTTLE and record types we do not enable. */
      break;
    }
}

/* Draining ------------------------------------------------------------------- */

/* A record copied out of its ring, to be handled in time order. */
typedef struct
{
  gint64                    time;
  guint                     order; /* within the drain: ring by ring, as read */
  gboolean                  sched; /* from a sched_switch ring */
  struct perf_event_header *record;
} Collected;

typedef struct
{
  GArray  *batch;
  gboolean sched;
} CollectTarget;

/* When the record happened: the sample's time, or the sample_id_all
 * trailer's; a record too short for either sorts first. */
static gint64
record_time (const struct perf_event_header *record)
{
  const guint8 *data = (const guint8 *) record;
  guint64       time;

  if (record->type == PERF_RECORD_SAMPLE)
    {
      /* { u64 ip; u32 pid, tid; u64 time; ... } */
      if (record->size < sizeof *record + 24)
        return G_MININT64;
      memcpy (&time, data + sizeof *record + 16, sizeof time);
    }
  else
    {
      /* { u32 pid, tid; u64 time; u32 cpu, res; } at the end. */
      if (record->size < sizeof *record + _SYSPROF_PERF_SAMPLE_ID_SIZE)
        return G_MININT64;
      memcpy (&time, data + record->size - _SYSPROF_PERF_SAMPLE_ID_SIZE + 8, sizeof time);
    }
  return (gint64) MIN (time, (guint64) G_MAXINT64);
}

static void
collect_cb (const struct perf_event_header *record, gpointer user_data)
{
  CollectTarget *target = user_data;
  Collected      c = { record_time (record), target->batch->len, target->sched, g_memdup2 (record, record->size) };

  g_array_append_val (target->batch, c);
}

static gint
compare_collected (gconstpointer a, gconstpointer b)
{
  const Collected *ca = a;
  const Collected *cb = b;

  if (ca->time != cb->time)
    return ca->time < cb->time ? -1 : 1;
  return ca->order < cb->order ? -1 : ca->order > cb->order;
}

/* Every ring, merged by time: the records of one process come from the
 * rings of every CPU it ran on, and its FORK, exec (COMM), MMAPs and samples
 * must be seen in the order they happened for the unwinder to know, at each
 * sample, what the process maps. */
static void
drain_all (SysprofPerfRecorder *self)
{
  g_autoptr (GArray) batch = g_array_new (FALSE, FALSE, sizeof (Collected));

  for (guint i = 0; i < self->rings->len; i++)
    {
      RingEntry    *entry = g_ptr_array_index (self->rings, i);
      CollectTarget target = { batch, entry->sched };

      _sysprof_perf_ring_drain (entry->ring, collect_cb, &target);
    }
  g_array_sort (batch, compare_collected);
  for (guint i = 0; i < batch->len; i++)
    {
      Collected *c = &g_array_index (batch, Collected, i);

      if (c->sched)
        handle_sched_record (self, c->record);
      else
        _sysprof_perf_recorder_handle_record (self, c->record);
      g_free (c->record);
    }
  /* The capture trails the kernel by one drain, unwinding included. */
  flush_pending (self);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  drain_all (user_data);
  return G_SOURCE_CONTINUE;
}

static gboolean
ring_ready_cb (int fd, GIOCondition condition, gpointer user_data)
{
  RingEntry *entry = user_data;

  (void) fd;

  /* All of them, so that records stay in time order across rings. */
  drain_all (entry->self);

  if (condition & (G_IO_HUP | G_IO_ERR | G_IO_NVAL))
    {
      /* A per-thread event whose task (and inherited children) is gone: poll()
       * would report it forever.  Whatever is still in the ring is drained by
       * the timer and at stop. */
      g_clear_pointer (&entry->watch, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* Opening ------------------------------------------------------------------- */

static gboolean
read_proc_int (const char *path, gint64 *value)
{
  g_autofree char *contents = NULL;
  char            *end;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return FALSE;
  *value = g_ascii_strtoll (contents, &end, 10);
  return end != contents;
}

/* Numbers of the online CPUs, from the "0-3,5" list of sysfs. */
static GArray *
list_online_cpus (void)
{
  g_autofree char *contents = NULL;
  GArray          *cpus = g_array_new (FALSE, FALSE, sizeof (int));

  if (g_file_get_contents ("/sys/devices/system/cpu/online", &contents, NULL, NULL))
    {
      g_auto (GStrv) ranges = g_strsplit (g_strstrip (contents), ",", 0);

      for (guint i = 0; ranges[i] != NULL; i++)
        {
          char   *end;
          guint64 first = g_ascii_strtoull (ranges[i], &end, 10);
          guint64 last = first;

          if (end == ranges[i])
            continue;
          if (*end == '-')
            last = g_ascii_strtoull (end + 1, NULL, 10);
          for (guint64 cpu = first; cpu <= last && cpu <= G_MAXINT16; cpu++)
            {
              int v = (int) cpu;

              g_array_append_val (cpus, v);
            }
        }
    }

  if (cpus->len == 0)
    {
      long n = sysconf (_SC_NPROCESSORS_ONLN);

      for (int cpu = 0; cpu < MAX (n, 1); cpu++)
        g_array_append_val (cpus, cpu);
    }

  return cpus;
}

static void
append_targets (GArray *targets, int pid, GArray *cpus, gboolean required)
{
  for (guint i = 0; i < cpus->len; i++)
    {
      Target t = { pid, g_array_index (cpus, int, i), i, required };

      g_array_append_val (targets, t);
    }
}

/* Every thread of @pid on every CPU.  The events inherit, so threads and
 * processes the traced ones start later are recorded too; the kernel refuses
 * to mmap an inherited event that is not bound to a CPU, hence one per CPU. */
static gboolean
append_process_targets (GArray *targets, int pid, GArray *cpus, GError **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/task", pid);
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GDir) dir = g_dir_open (path, 0, &local_error);
  const char *name;

  if (dir == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No process with pid %d", pid);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code),
                     "Cannot list the threads of process %d: %s", pid, local_error->message);
      return FALSE;
    }

  append_targets (targets, pid, cpus, TRUE);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char   *end;
      guint64 tid = g_ascii_strtoull (name, &end, 10);

      if (*end != 0 || end == name || tid == 0 || tid > G_MAXINT32 || (int) tid == pid)
        continue;
      append_targets (targets, (int) tid, cpus, FALSE);
    }
  return TRUE;
}

static int
open_event (const EventConfig *config, const Target *target)
{
  struct perf_event_attr attr = { 0 };

  attr.size = sizeof attr;
  attr.type = config->kind->type;
  attr.config = config->kind->config;
  attr.freq = 1;
  attr.sample_freq = config->frequency;
  attr.sample_type = _SYSPROF_PERF_SAMPLE_TYPE;
  if (config->tracepoint_id != 0)
    {
      /* Every switch, with the tracepoint's fields. */
      attr.type = PERF_TYPE_TRACEPOINT;
      attr.config = config->tracepoint_id;
      attr.freq = 0;
      attr.sample_period = 1;
      attr.sample_type |= PERF_SAMPLE_RAW;
    }
  if (config->stack_size != 0)
    {
      /* The user part of the stack comes from the copy, unwound later: the
       * kernel's frame-pointer walk would only cost time and bytes. */
      attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      attr.sample_regs_user = USER_REGS_MASK;
      attr.sample_stack_user = config->stack_size;
      attr.exclude_callchain_user = 1;
    }
  /* Enabled together once every event is open and mapped. */
  attr.disabled = 1;
  attr.inherit = target->pid != -1;
  /* Side-band records come once, from the sampling events. */
  attr.mmap = config->tracepoint_id == 0;
  attr.mmap2 = config->mmap2 && config->tracepoint_id == 0;
  attr.comm = config->tracepoint_id == 0;
  attr.task = config->tracepoint_id == 0;
  /* A per-thread sched_switch event only sees its tasks leave the CPU;
   * PERF_RECORD_SWITCH says when they come back. */
  attr.context_switch = config->tracepoint_id != 0 && target->pid != -1;
  /* Time, pid and CPU on MMAP/COMM/FORK/EXIT records too. */
  attr.sample_id_all = 1;
  /* The idle task's samples say nothing about the workload. */
  attr.exclude_idle = config->tracepoint_id == 0;
  attr.exclude_kernel = config->user_only;
  attr.exclude_hv = config->user_only;
  attr.exclude_callchain_kernel = config->user_only;
  /* Kernel timestamps on the clock of every other frame of the capture. */
  attr.use_clockid = 1;
  attr.clockid = config->clockid;
  /* Wake poll() when the ring is half full (wakeup_watermark 0 = half). */
  attr.watermark = 1;
  attr.wakeup_watermark = 0;

  return (int) syscall (SYS_perf_event_open, &attr, target->pid, target->cpu, -1, (unsigned long) PERF_FLAG_FD_CLOEXEC);
}

static gboolean
is_unsupported_errno (int errsv)
{
  /* What a missing PMU, an unknown event or an unknown attr bit (mmap2 before
   * Linux 3.16) looks like. */
  return errsv == ENOENT || errsv == EOPNOTSUPP || errsv == ENODEV || errsv == EINVAL;
}

/* Opens @target with the first configuration the kernel accepts and leaves it
 * in @config.  -1 with errno on failure. */
static int
open_first_event (EventConfig *config, const Target *target)
{
  int errsv = ENOENT;

  /* Each kind with mmap2, then without. */
  for (guint i = 0; i < 2 * G_N_ELEMENTS (event_kinds); i++)
    {
      int fd;

      config->kind = &event_kinds[i / 2];
      config->mmap2 = i % 2 == 0;
      fd = open_event (config, target);
      if (fd >= 0)
        return fd;
      errsv = errno;
      /* Permissions, a vanished process, the fd limit: another event would
       * fail the same way. */
      if (!is_unsupported_errno (errsv))
        break;
    }

  errno = errsv;
  return -1;
}

static void
set_open_error (GError **error, int errsv, const Target *target)
{
  g_autofree char *what = NULL;
  gint64           paranoid = 0;

  if (target->pid == -1)
    what = g_strdup_printf ("CPU %d", target->cpu);
  else
    what = g_strdup_printf ("thread %d on CPU %d", target->pid, target->cpu);

  switch (errsv)
    {
    case ENOSYS:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "This kernel has no perf events (perf_event_open: %s)",
                   g_strerror (errsv));
      break;
    case EACCES:
    case EPERM:
      if (read_proc_int ("/proc/sys/kernel/perf_event_paranoid", &paranoid))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                     "Not allowed to sample %s: %s (this needs root or CAP_PERFMON; kernel.perf_event_paranoid is "
                     "%" G_GINT64_FORMAT ")",
                     what, g_strerror (errsv), paranoid);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                     "Not allowed to sample %s: %s (this needs root or CAP_PERFMON)", what, g_strerror (errsv));
      break;
    case ESRCH:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Cannot sample %s: the process is gone", what);
      break;
    case EMFILE:
    case ENFILE:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                   "Cannot sample %s: too many open files for one perf event per thread and CPU", what);
      break;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "Neither the cycles nor the cpu-clock event can sample %s: %s", what, g_strerror (errsv));
      break;
    default:
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot open a perf event for %s: %s", what,
                   g_strerror (errsv));
      break;
    }
}

static void
teardown (SysprofPerfRecorder *self)
{
  if (self->timer != NULL)
    {
      g_source_destroy (self->timer);
      g_clear_pointer (&self->timer, g_source_unref);
    }
  g_ptr_array_set_size (self->rings, 0);
  for (guint i = 0; i < self->fds->len; i++)
    close (g_array_index (self->fds, int, i));
  g_array_set_size (self->fds, 0);
  g_clear_pointer (&self->context, g_main_context_unref);
}

static gboolean
open_all (
    SysprofPerfRecorder *self, GArray *targets, guint n_cpus, EventConfig *config, guint *n_data_pages, GError **error)
{
  /* The ring each CPU's events write to: every event of a CPU shares the
   * first one's (PERF_EVENT_IOC_SET_OUTPUT), so memory does not grow with the
   * number of threads recorded. */
  g_autofree RingEntry **ring_by_cpu = g_new0 (RingEntry *, n_cpus);

  for (guint i = 0; i < targets->len; i++)
    {
      const Target *target = &g_array_index (targets, Target, i);
      RingEntry    *entry;
      int           fd;

      fd = self->fds->len == 0 ? open_first_event (config, target) : open_event (config, target);
      if (fd < 0)
        {
          int errsv = errno;

          if (errsv == ESRCH && !target->required)
            continue;
          set_open_error (error, errsv, target);
          return FALSE;
        }
      g_array_append_val (self->fds, fd);

      if (ring_by_cpu[target->cpu_index] != NULL &&
          ioctl (fd, PERF_EVENT_IOC_SET_OUTPUT, ring_by_cpu[target->cpu_index]->fd) == 0)
        continue;

      entry = g_new0 (RingEntry, 1);
      entry->self = self;
      entry->fd = fd;
      entry->sched = config->tracepoint_id != 0;
      entry->ring = _sysprof_perf_ring_new_for_fd (fd, n_data_pages, error);
      if (entry->ring == NULL)
        {
          g_free (entry);
          return FALSE;
        }
      g_ptr_array_add (self->rings, entry);
      if (ring_by_cpu[target->cpu_index] == NULL)
        ring_by_cpu[target->cpu_index] = entry;
    }

  return TRUE;
}

static void
attach_sources (SysprofPerfRecorder *self)
{
  self->context = g_main_context_ref_thread_default ();

  for (guint i = 0; i < self->rings->len; i++)
    {
      RingEntry *entry = g_ptr_array_index (self->rings, i);

      entry->watch = g_unix_fd_source_new (entry->fd, G_IO_IN);
      g_source_set_callback (entry->watch, G_SOURCE_FUNC (ring_ready_cb), entry, NULL);
      g_source_set_static_name (entry->watch, "[sysprof] perf ring");
      g_source_attach (entry->watch, self->context);
    }

  self->timer = g_timeout_source_new (DRAIN_INTERVAL_MS);
  g_source_set_callback (self->timer, drain_timeout_cb, self, NULL);
  g_source_set_static_name (self->timer, "[sysprof] perf drain");
  g_source_attach (self->timer, self->context);
}

/* The helper, for DWARF unwinding.  Asked for by name, a helper that cannot
 * start is an error; by default it means frame pointers and a warning. */
static gboolean
start_unwinder (SysprofPerfRecorder *self, const SysprofPerfRecorderOptions *options, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  const char *path = options->unwinder_path != NULL ? options->unwinder_path : SYSPROF_UNWINDER_PATH;

  self->unwinder = _sysprof_unwind_client_new (path, unwound_cb, self, &local_error);
  if (self->unwinder != NULL)
    {
      self->unwinder_path = g_strdup (path);
      return TRUE;
    }
  if (options->unwind == SYSPROF_PERF_UNWIND_DWARF)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  self->unwind_warning = g_strdup_printf ("%s: stacks follow frame pointers", local_error->message);
  return TRUE;
}

/* After the last drain: the helper goes, the counts go into the capture. */
static void
finish_unwinding (SysprofPerfRecorder *self)
{
  const char *failure = self->unwinder ? _sysprof_unwind_client_get_failure (self->unwinder) : NULL;

  if (self->unwinder != NULL)
    {
      guint64 n = 0;

      for (guint i = 0; i < G_N_ELEMENTS (self->n_unwound); i++)
        n += self->n_unwound[i];
      self->unwind_summary = g_strdup_printf (
          "method=dwarf stack-size=%u samples=%" G_GUINT64_FORMAT " complete=%" G_GUINT64_FORMAT
          " truncated=%" G_GUINT64_FORMAT " outside-mappings=%" G_GUINT64_FORMAT " failed=%" G_GUINT64_FORMAT,
          self->stack_size, n, self->n_unwound[SYSPROF_UNWIND_STATUS_COMPLETE],
          self->n_unwound[SYSPROF_UNWIND_STATUS_TRUNCATED], self->n_unwound[SYSPROF_UNWIND_STATUS_OUTSIDE_MAPPINGS],
          self->n_unwound[SYSPROF_UNWIND_STATUS_FAILED]);
      if (self->n_left_at_stop > 0 && self->unwind_warning == NULL && self->first_failure == NULL)
        self->unwind_warning = g_strdup_printf ("%u samples at the end of the recording were not unwound within %u ms "
                                                "(the unwinding helper was behind): counted as failed",
                                                self->n_left_at_stop, FINAL_UNWIND_BUDGET_MS);
      else if (failure != NULL && self->unwind_warning == NULL)
        self->unwind_warning = g_strdup_printf ("DWARF unwinding stopped: %s; the samples after that have only their "
                                                "instruction pointer in user space",
                                                self->first_failure ? self->first_failure : failure);
      else if (self->n_restarts > 0 && self->unwind_warning == NULL)
        self->unwind_warning =
            g_strdup_printf ("the unwinding helper was restarted %u time%s (first: %s); the "
                             "samples it had in hand are counted as failed",
                             self->n_restarts, self->n_restarts == 1 ? "" : "s", self->first_failure);
      g_clear_pointer (&self->unwinder, _sysprof_unwind_client_free);
    }
  else
    self->unwind_summary = g_strdup ("method=frame-pointers");
  count_frame (self, sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                                          SYSPROF_UNWIND_METADATA_ID, self->unwind_summary, -1));
}

gboolean
sysprof_perf_recorder_start (SysprofPerfRecorder *self, const SysprofPerfRecorderOptions *options, GError **error)
{
  SysprofPerfRecorderOptions defaults;
  g_autoptr (GArray) cpus = NULL;
  g_autoptr (GArray) targets = NULL;
  g_autoptr (GError) local_error = NULL;
  EventConfig config = { 0 };
  guint       n_data_pages;
  gint64      max_rate;

  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), FALSE);
  g_return_val_if_fail (options == NULL || options->size >= sizeof (SysprofPerfRecorderOptions), FALSE);
  g_return_val_if_fail (options == NULL || options->n_pids == 0 || options->pids != NULL, FALSE);
  g_return_val_if_fail (self->state == STATE_IDLE, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (options == NULL)
    {
      sysprof_perf_recorder_options_init (&defaults);
      options = &defaults;
    }

  config.user_only = options->user_only;
  config.frequency = options->frequency_hz != 0 ? options->frequency_hz : SYSPROF_PERF_RECORDER_DEFAULT_FREQUENCY;
  if (config.frequency > SYSPROF_PERF_RECORDER_MAX_FREQUENCY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "The sampling frequency of %u Hz is above the maximum of %u Hz", config.frequency,
                   SYSPROF_PERF_RECORDER_MAX_FREQUENCY);
      return FALSE;
    }
  /* The kernel refuses frequencies above this limit (which it lowers by
   * itself when sampling takes too long). */
  if (read_proc_int ("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate) && max_rate > 0 &&
      config.frequency > max_rate)
    config.frequency = (guint) max_rate;

  if (options->unwind != SYSPROF_PERF_UNWIND_FRAME_POINTERS)
    {
      guint stack_size = options->stack_size != 0 ? options->stack_size : SYSPROF_UNWIND_DEFAULT_STACK;

      if (stack_size % 8 != 0 || stack_size > SYSPROF_UNWIND_MAX_STACK)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "The stack size of %u bytes is not a multiple of 8 up to %u", stack_size,
                       SYSPROF_UNWIND_MAX_STACK);
          return FALSE;
        }
      config.stack_size = stack_size;
    }

  n_data_pages = options->n_data_pages != 0 ? options->n_data_pages : SYSPROF_PERF_RECORDER_DEFAULT_DATA_PAGES;
  if ((n_data_pages & (n_data_pages - 1)) != 0 || n_data_pages > SYSPROF_PERF_RECORDER_MAX_DATA_PAGES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "The ring buffer size of %u pages is not a power of two up to %u", n_data_pages,
                   SYSPROF_PERF_RECORDER_MAX_DATA_PAGES);
      return FALSE;
    }

  cpus = list_online_cpus ();
  targets = g_array_new (FALSE, FALSE, sizeof (Target));
  if (options->n_pids == 0)
    append_targets (targets, -1, cpus, TRUE);
  else
    {
      g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

      for (gsize i = 0; i < options->n_pids; i++)
        {
          int pid = options->pids[i];

          if (pid <= 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%d is not a process id", pid);
              return FALSE;
            }
          if (!g_hash_table_add (seen, GINT_TO_POINTER (pid)))
            continue;
          if (!append_process_targets (targets, pid, cpus, error))
            return FALSE;
        }
    }

  if (options->max_events != 0 && targets->len * (options->scheduler ? 2 : 1) > options->max_events)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                   "Recording needs %u perf events (%s%s x %u CPUs), above the limit of %u",
                   targets->len * (options->scheduler ? 2 : 1), options->scheduler ? "2 x " : "",
                   options->n_pids ? "threads" : "1", cpus->len, options->max_events);
      return FALSE;
    }
  if (options->scheduler)
    {
      if (options->user_only)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       "Scheduler details need kernel tracepoints: not in a user-space-only recording");
          return FALSE;
        }
      if (!_sysprof_sched_switch_format_load (&self->sched_format, error))
        return FALSE;
    }

  sysprof_clock_init ();
  config.clockid = sysprof_clock != -1 ? sysprof_clock : CLOCK_MONOTONIC;

  /* The helper last, once nothing else can fail before the events open. */
  if (config.stack_size != 0)
    {
      if (!start_unwinder (self, options, error))
        return FALSE;
      if (self->unwinder == NULL)
        config.stack_size = 0;
    }

  if (config.stack_size != 0 && options->n_data_pages == 0)
    n_data_pages = SYSPROF_PERF_RECORDER_DEFAULT_DWARF_DATA_PAGES;
  if (!open_all (self, targets, cpus->len, &config, &n_data_pages, &local_error))
    {
      teardown (self);
      /* A kernel or architecture without user stack copies: frame pointers,
       * unless DWARF was asked for by name. */
      if (config.stack_size != 0 && options->unwind == SYSPROF_PERF_UNWIND_DEFAULT &&
          (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) ||
           g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT)))
        {
          g_free (self->unwind_warning);
          self->unwind_warning = g_strdup_printf (
              "perf cannot copy user stacks here (%s): stacks follow frame pointers", local_error->message);
          g_clear_pointer (&self->unwinder, _sysprof_unwind_client_free);
          g_clear_error (&local_error);
          config.stack_size = 0;
          n_data_pages = options->n_data_pages != 0 ? options->n_data_pages : SYSPROF_PERF_RECORDER_DEFAULT_DATA_PAGES;
          if (open_all (self, targets, cpus->len, &config, &n_data_pages, &local_error))
            goto opened;
          teardown (self);
        }
      g_clear_pointer (&self->unwinder, _sysprof_unwind_client_free);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

opened:
  self->stack_size = config.stack_size;
  self->embed_perf_maps = options->embed_perf_maps;
  self->frequency = config.frequency;
  if (options->scheduler)
    {
      EventConfig sched_config = config;
      /* Every switch with its stack copy (8 KiB by default): four times the
       * sampling rings' room, as perf sched record takes, so that bursts of
       * switches wait for the drain rather than being lost. */
      guint sched_pages = MIN (n_data_pages * 4, (guint) SYSPROF_PERF_RECORDER_MAX_DATA_PAGES);

      sched_config.tracepoint_id = self->sched_format.id;
      if (!open_all (self, targets, cpus->len, &sched_config, &sched_pages, &local_error))
        {
          teardown (self);
          g_clear_pointer (&self->unwinder, _sysprof_unwind_client_free);
          g_set_error (error, G_IO_ERROR, local_error->code, "Cannot record the scheduler's switches: %s",
                       local_error->message);
          return FALSE;
        }
      self->scheduler = TRUE;
      self->own_pid = (gint32) getpid ();
      /* The sampling period, for readers weighing on-CPU samples against
       * off-CPU time; the counts follow at stop under the same id. */
      {
        g_autofree char *frequency = g_strdup_printf ("frequency=%u", config.frequency);

        count_frame (self, sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                                                SYSPROF_SCHEDULER_METADATA_ID, frequency, -1));
      }
    }

  attach_sources (self);

  for (guint i = 0; i < self->fds->len; i++)
    {
      if (ioctl (g_array_index (self->fds, int, i), PERF_EVENT_IOC_ENABLE, 0) != 0)
        {
          int errsv = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot enable a perf event: %s",
                       g_strerror (errsv));
          teardown (self);
          g_clear_pointer (&self->unwinder, _sysprof_unwind_client_free);
          return FALSE;
        }
    }

  self->event_name = config.kind->name;
  self->state = STATE_RUNNING;
  return TRUE;
}

void
sysprof_perf_recorder_stop (SysprofPerfRecorder *self)
{
  g_return_if_fail (SYSPROF_IS_PERF_RECORDER (self));

  if (self->state != STATE_RUNNING)
    return;

  /* Disable first, so that the drain below sees everything recorded up to
   * now and nothing more arrives. */
  for (guint i = 0; i < self->fds->len; i++)
    ioctl (g_array_index (self->fds, int, i), PERF_EVENT_IOC_DISABLE, 0);
  self->stopping = TRUE;
  drain_all (self);
  teardown (self);
  if (self->scheduler)
    {
      g_autofree char *counts = NULL;

      write_parked_samples (self);
      counts = g_strdup_printf ("switches=%" G_GUINT64_FORMAT " off-cpu=%" G_GUINT64_FORMAT " marks=%" G_GUINT64_FORMAT
                                " dropped=%" G_GUINT64_FORMAT " frequency=%u",
                                self->n_switches, self->n_off_cpu, self->n_sched_marks, self->n_off_cpu_dropped,
                                self->frequency);
      count_frame (self, sysprof_capture_writer_add_metadata (self->writer, SYSPROF_CAPTURE_CURRENT_TIME, -1, -1,
                                                              SYSPROF_SCHEDULER_METADATA_ID, counts, -1));
    }
  finish_unwinding (self);
  if (self->embed_perf_maps)
    embed_perf_maps (self);
  self->state = STATE_STOPPED;
}

void
sysprof_perf_recorder_end_period (SysprofPerfRecorder *self)
{
  g_return_if_fail (SYSPROF_IS_PERF_RECORDER (self));

  if (self->state != STATE_RUNNING)
    return;
  /* What the kernel holds up to now belongs to the period that ends; the
   * helper's answers to come go into the next (unwinding does not wait). */
  drain_all (self);
  if (self->embed_perf_maps)
    embed_perf_maps (self);
}

void
sysprof_perf_recorder_begin_period (SysprofPerfRecorder *self)
{
  g_return_if_fail (SYSPROF_IS_PERF_RECORDER (self));

  g_clear_pointer (&self->kernel_addresses, g_hash_table_unref);
  self->kernel_addresses = g_hash_table_new (NULL, NULL);
}

gboolean
sysprof_perf_recorder_is_running (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), FALSE);
  return self->state == STATE_RUNNING;
}

const char *
sysprof_perf_recorder_get_event_name (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), NULL);
  return self->event_name;
}

guint64
sysprof_perf_recorder_get_n_frames (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), 0);
  return self->n_frames;
}

guint64
sysprof_perf_recorder_get_n_samples (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), 0);
  return self->n_samples;
}

guint64
sysprof_perf_recorder_get_n_lost (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), 0);
  return self->n_lost;
}

GHashTable *
sysprof_perf_recorder_get_kernel_addresses (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), NULL);
  return self->kernel_addresses;
}

const char *
sysprof_perf_recorder_get_unwind_summary (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), NULL);
  return self->unwind_summary;
}

const char *
sysprof_perf_recorder_get_unwind_warning (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), NULL);
  return self->unwind_warning;
}

guint64
sysprof_perf_recorder_get_n_write_errors (SysprofPerfRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_PERF_RECORDER (self), 0);
  return self->n_write_errors;
}
