// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>

#include "sysprof-counter-recorder.h"

#define MAX_CPUS  4096
#define MAX_DISKS 32
/* Lines of /proc files are much shorter; longer ones are skipped. */
#define MAX_LINE   4096
#define MAX_TOKENS 24
/* Entries a parser keeps, whatever the file holds. */
#define MAX_ENTRIES 4096

typedef enum
{
  STATE_IDLE,
  STATE_RUNNING,
  STATE_STOPPED,
} State;

typedef enum
{
  SET_CPU = 1 << 0,
  SET_MEMORY = 1 << 1,
  SET_DISK = 1 << 2,
  SET_NETWORK = 1 << 3,
} CounterSet;

static const struct
{
  const char *name;
  CounterSet  set;
} counter_sets[] = {
  { "cpu", SET_CPU },
  { "memory", SET_MEMORY },
  { "disk", SET_DISK },
  { "network", SET_NETWORK },
};

typedef struct
{
  guint64  total;
  guint64  idle;
  gboolean valid;
} CpuPrev;

struct _SysprofCounterRecorder
{
  GObject parent_instance;

  SysprofCaptureWriter *writer;
  GMainContext         *context;
  GSource              *timer;
  State                 state;
  CounterSet            sets;

  /* guint / SysprofCaptureCounterValue: every counter, in definition order. */
  GArray *ids;
  GArray *values;
  /* SysprofCaptureCounter: the definitions, for a capture cut anew. */
  GArray *defs;

  /* cpu: "Combined" at cpu_index, then one per entry of cpu_numbers. */
  guint   cpu_index;
  GArray *cpu_numbers; /* int */
  GArray *cpu_prev;    /* CpuPrev, parallel to cpu_numbers, then Combined */
  /* memory: Used, Total, Available. */
  guint mem_index;
  /* disk: reads and writes of each of disk_names, then of Combined. */
  guint      disk_index;
  GPtrArray *disk_names;
  /* network: RX, TX. */
  guint net_index;

  guint64 n_samples;
  guint64 n_write_errors;
};

G_DEFINE_FINAL_TYPE (SysprofCounterRecorder, sysprof_counter_recorder, G_TYPE_OBJECT)

static void
sysprof_counter_recorder_dispose (GObject *object)
{
  sysprof_counter_recorder_stop (SYSPROF_COUNTER_RECORDER (object));

  G_OBJECT_CLASS (sysprof_counter_recorder_parent_class)->dispose (object);
}

static void
sysprof_counter_recorder_finalize (GObject *object)
{
  SysprofCounterRecorder *self = SYSPROF_COUNTER_RECORDER (object);

  g_clear_pointer (&self->writer, sysprof_capture_writer_unref);
  g_clear_pointer (&self->ids, g_array_unref);
  g_clear_pointer (&self->values, g_array_unref);
  g_clear_pointer (&self->defs, g_array_unref);
  g_clear_pointer (&self->cpu_numbers, g_array_unref);
  g_clear_pointer (&self->cpu_prev, g_array_unref);
  g_clear_pointer (&self->disk_names, g_ptr_array_unref);

  G_OBJECT_CLASS (sysprof_counter_recorder_parent_class)->finalize (object);
}

static void
sysprof_counter_recorder_class_init (SysprofCounterRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sysprof_counter_recorder_dispose;
  object_class->finalize = sysprof_counter_recorder_finalize;
}

static void
sysprof_counter_recorder_init (SysprofCounterRecorder *self)
{
  self->ids = g_array_new (FALSE, FALSE, sizeof (guint));
  self->values = g_array_new (FALSE, TRUE, sizeof (SysprofCaptureCounterValue));
  self->cpu_numbers = g_array_new (FALSE, FALSE, sizeof (int));
  self->cpu_prev = g_array_new (FALSE, TRUE, sizeof (CpuPrev));
  self->disk_names = g_ptr_array_new_with_free_func (g_free);
}

SysprofCounterRecorder *
sysprof_counter_recorder_new (SysprofCaptureWriter *writer)
{
  SysprofCounterRecorder *self;

  g_return_val_if_fail (writer != NULL, NULL);

  self = g_object_new (SYSPROF_TYPE_COUNTER_RECORDER, NULL);
  self->writer = sysprof_capture_writer_ref (writer);
  return self;
}

/* Parsing -------------------------------------------------------------------- */

/* Splits the line at *pos (up to the next newline) into whitespace-separated
 * tokens copied into @buf; advances *pos past the line.  Returns the number of
 * tokens, 0 for lines that are empty or too long. */
static guint
next_line_tokens (const char **pos, char *buf, gsize buf_len, char **tokens, guint max_tokens)
{
  const char *start = *pos;
  const char *end = strchr (start, '\n');
  gsize       len;
  guint       n = 0;
  char       *p;

  if (end == NULL)
    end = start + strlen (start);
  *pos = *end == '\n' ? end + 1 : end;
  len = end - start;
  if (len >= buf_len)
    return 0;
  memcpy (buf, start, len);
  buf[len] = '\0';

  p = buf;
  while (n < max_tokens)
    {
      while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
      if (*p == '\0')
        break;
      tokens[n++] = p;
      while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
      if (*p != '\0')
        *p++ = '\0';
    }
  return n;
}

static gboolean
parse_u64 (const char *str, guint64 *value)
{
  char *end = NULL;

  if (!g_ascii_isdigit (*str))
    return FALSE;
  errno = 0;
  *value = g_ascii_strtoull (str, &end, 10);
  return errno == 0 && end != str && *end == '\0';
}

void
_sysprof_counter_parse_stat (const char *contents, GArray *times)
{
  char        buf[MAX_LINE];
  char       *tokens[MAX_TOKENS];
  const char *pos = contents;
  guint       n_added = 0;

  g_return_if_fail (contents != NULL);
  g_return_if_fail (times != NULL);

  while (*pos != '\0' && n_added <= MAX_CPUS)
    {
      guint           n = next_line_tokens (&pos, buf, sizeof buf, tokens, G_N_ELEMENTS (tokens));
      SysprofCpuTimes t = { -1, 0, 0 };
      guint64         field;
      guint           i;

      if (n < 5 || !g_str_has_prefix (tokens[0], "cpu"))
        continue;
      if (tokens[0][3] != '\0')
        {
          guint64 cpu;

          if (!parse_u64 (tokens[0] + 3, &cpu) || cpu >= G_MAXINT)
            continue;
          t.cpu = (int) cpu;
        }
      /* user nice system idle iowait irq softirq steal: guest and guest_nice
       * are already part of user and nice. */
      for (i = 1; i < n && i <= 8; i++)
        {
          if (!parse_u64 (tokens[i], &field))
            break;
          t.total += field;
          if (i == 4 || i == 5)
            t.idle += field;
        }
      if (i <= 4)
        continue;
      g_array_append_val (times, t);
      n_added++;
    }
}

gboolean
_sysprof_counter_parse_meminfo (const char *contents, guint64 *total, guint64 *available)
{
  char        buf[MAX_LINE];
  char       *tokens[4];
  const char *pos = contents;
  guint64     mem_total = 0, mem_available = 0, mem_free = 0, buffers = 0, cached = 0;
  gboolean    have_total = FALSE, have_available = FALSE;

  g_return_val_if_fail (contents != NULL, FALSE);
  g_return_val_if_fail (total != NULL, FALSE);
  g_return_val_if_fail (available != NULL, FALSE);

  while (*pos != '\0')
    {
      guint   n = next_line_tokens (&pos, buf, sizeof buf, tokens, G_N_ELEMENTS (tokens));
      guint64 kib;

      /* "Name:   1234 kB" */
      if (n < 2 || !parse_u64 (tokens[1], &kib) || kib > G_MAXUINT64 / 1024)
        continue;
      if (g_str_equal (tokens[0], "MemTotal:"))
        mem_total = kib * 1024, have_total = TRUE;
      else if (g_str_equal (tokens[0], "MemAvailable:"))
        mem_available = kib * 1024, have_available = TRUE;
      else if (g_str_equal (tokens[0], "MemFree:"))
        mem_free = kib * 1024;
      else if (g_str_equal (tokens[0], "Buffers:"))
        buffers = kib * 1024;
      else if (g_str_equal (tokens[0], "Cached:"))
        cached = kib * 1024;
    }

  if (!have_total)
    return FALSE;
  /* Kernels before 3.14 have no MemAvailable. */
  if (!have_available)
    mem_available = mem_free + buffers + cached;
  *total = mem_total;
  *available = MIN (mem_available, mem_total);
  return TRUE;
}

void
_sysprof_counter_parse_diskstats (const char *contents, GArray *disks)
{
  char        buf[MAX_LINE];
  char       *tokens[MAX_TOKENS];
  const char *pos = contents;
  guint       n_added = 0;

  g_return_if_fail (contents != NULL);
  g_return_if_fail (disks != NULL);

  while (*pos != '\0' && n_added < MAX_ENTRIES)
    {
      guint            n = next_line_tokens (&pos, buf, sizeof buf, tokens, G_N_ELEMENTS (tokens));
      SysprofDiskBytes d = { { 0 }, 0, 0 };
      guint64          sectors_read, sectors_written;

      /* major minor name reads merged sectors ms writes merged sectors ... */
      if (n < 10 || strlen (tokens[2]) >= sizeof d.name || !parse_u64 (tokens[5], &sectors_read) ||
          !parse_u64 (tokens[9], &sectors_written))
        continue;
      g_strlcpy (d.name, tokens[2], sizeof d.name);
      /* Sectors are 512 bytes here whatever the device's own sector size. */
      d.read_bytes = sectors_read <= G_MAXUINT64 / 512 ? sectors_read * 512 : G_MAXUINT64;
      d.write_bytes = sectors_written <= G_MAXUINT64 / 512 ? sectors_written * 512 : G_MAXUINT64;
      g_array_append_val (disks, d);
      n_added++;
    }
}

void
_sysprof_counter_parse_net_dev (const char *contents, guint64 *rx_bytes, guint64 *tx_bytes)
{
  char        buf[MAX_LINE];
  char       *tokens[MAX_TOKENS];
  const char *pos = contents;

  g_return_if_fail (contents != NULL);
  g_return_if_fail (rx_bytes != NULL);
  g_return_if_fail (tx_bytes != NULL);

  *rx_bytes = 0;
  *tx_bytes = 0;

  while (*pos != '\0')
    {
      const char      *line = pos;
      const char      *end = strchr (line, '\n');
      const char      *colon;
      g_autofree char *name = NULL;
      guint64          rx, tx;
      guint            n;

      if (end == NULL)
        end = line + strlen (line);
      /* "  eth0: rx_bytes packets errs drop fifo frame compressed multicast
       *  tx_bytes ..."; the header lines have no colon. */
      colon = memchr (line, ':', end - line);
      n = next_line_tokens (&pos, buf, sizeof buf, tokens, G_N_ELEMENTS (tokens));
      if (colon == NULL || n == 0)
        continue;
      name = g_strstrip (g_strndup (line, colon - line));
      if (g_str_equal (name, "lo"))
        continue;
      /* Re-split what follows the colon (it may touch the first number). */
      {
        g_autofree char *rest = g_strndup (colon + 1, end - colon - 1);
        const char      *rest_pos = rest;

        n = next_line_tokens (&rest_pos, buf, sizeof buf, tokens, G_N_ELEMENTS (tokens));
      }
      if (n < 9 || !parse_u64 (tokens[0], &rx) || !parse_u64 (tokens[8], &tx))
        continue;
      *rx_bytes += rx;
      *tx_bytes += tx;
    }
}

/* Sampling ------------------------------------------------------------------- */

static char *
read_proc_file (const char *path, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, &local_error))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code), "Cannot read %s: %s", path,
                   local_error->message);
      return NULL;
    }
  return contents;
}

static SysprofCaptureCounterValue *
value_at (SysprofCounterRecorder *self, guint index)
{
  return &g_array_index (self->values, SysprofCaptureCounterValue, index);
}

static double
busy_percent (CpuPrev *prev, guint64 total, guint64 idle, double previous)
{
  double percent = previous;

  /* No time elapsed, or a counter went backwards (iowait may; CPU hotplug
   * resets them): keep the previous value and take new baselines. */
  if (prev->valid && total > prev->total && idle >= prev->idle)
    {
      guint64 dt = total - prev->total;
      guint64 di = MIN (idle - prev->idle, dt);

      percent = 100.0 * (double) (dt - di) / (double) dt;
    }
  prev->total = total;
  prev->idle = idle;
  prev->valid = TRUE;
  return CLAMP (percent, 0.0, 100.0);
}

static void
sample_cpu (SysprofCounterRecorder *self)
{
  g_autofree char *contents = read_proc_file ("/proc/stat", NULL);
  g_autoptr (GArray) times = NULL;
  guint hint = 0;

  if (contents == NULL)
    return;
  times = g_array_new (FALSE, FALSE, sizeof (SysprofCpuTimes));
  _sysprof_counter_parse_stat (contents, times);

  for (guint i = 0; i < times->len; i++)
    {
      const SysprofCpuTimes *t = &g_array_index (times, SysprofCpuTimes, i);
      guint                  slot = G_MAXUINT;

      /* The lines usually come in the order of cpu_numbers. */
      if (t->cpu < 0)
        slot = self->cpu_numbers->len;
      else if (hint < self->cpu_numbers->len && g_array_index (self->cpu_numbers, int, hint) == t->cpu)
        slot = hint;
      else
        for (guint j = 0; j < self->cpu_numbers->len; j++)
          if (g_array_index (self->cpu_numbers, int, j) == t->cpu)
            {
              slot = j;
              break;
            }
      if (slot == G_MAXUINT)
        continue; /* came online after start */
      if (t->cpu >= 0)
        hint = slot + 1;

      {
        /* Combined comes first among the counters. */
        guint                       index = self->cpu_index + (t->cpu < 0 ? 0 : 1 + slot);
        SysprofCaptureCounterValue *v = value_at (self, index);

        v->vdbl = busy_percent (&g_array_index (self->cpu_prev, CpuPrev, slot), t->total, t->idle, v->vdbl);
      }
    }
}

static gboolean
sample_memory (SysprofCounterRecorder *self, GError **error)
{
  g_autofree char *contents = read_proc_file ("/proc/meminfo", error);
  guint64          total, available;

  if (contents == NULL)
    return FALSE;
  if (!_sysprof_counter_parse_meminfo (contents, &total, &available))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "/proc/meminfo has no MemTotal");
      return FALSE;
    }
  value_at (self, self->mem_index)->vdbl = (double) (total - available);
  value_at (self, self->mem_index + 1)->vdbl = (double) total;
  value_at (self, self->mem_index + 2)->vdbl = (double) available;
  return TRUE;
}

static gint64
clamp_i64 (guint64 v)
{
  return v > G_MAXINT64 ? G_MAXINT64 : (gint64) v;
}

static void
sample_disk (SysprofCounterRecorder *self)
{
  g_autofree char *contents = read_proc_file ("/proc/diskstats", NULL);
  g_autoptr (GArray) disks = NULL;
  guint64 sum_read = 0, sum_write = 0;
  guint   n_disks = self->disk_names->len;

  if (contents == NULL)
    return;
  disks = g_array_new (FALSE, FALSE, sizeof (SysprofDiskBytes));
  _sysprof_counter_parse_diskstats (contents, disks);

  for (guint i = 0; i < disks->len; i++)
    {
      const SysprofDiskBytes *d = &g_array_index (disks, SysprofDiskBytes, i);

      for (guint j = 0; j < n_disks; j++)
        if (g_str_equal (d->name, g_ptr_array_index (self->disk_names, j)))
          {
            value_at (self, self->disk_index + 2 * j)->v64 = clamp_i64 (d->read_bytes);
            value_at (self, self->disk_index + 2 * j + 1)->v64 = clamp_i64 (d->write_bytes);
            break;
          }
    }
  /* Disks that went away keep their last values in the sums. */
  for (guint j = 0; j < n_disks; j++)
    {
      sum_read += value_at (self, self->disk_index + 2 * j)->v64;
      sum_write += value_at (self, self->disk_index + 2 * j + 1)->v64;
    }
  value_at (self, self->disk_index + 2 * n_disks)->v64 = clamp_i64 (sum_read);
  value_at (self, self->disk_index + 2 * n_disks + 1)->v64 = clamp_i64 (sum_write);
}

static void
sample_network (SysprofCounterRecorder *self)
{
  g_autofree char *contents = read_proc_file ("/proc/net/dev", NULL);
  guint64          rx, tx;

  if (contents == NULL)
    return;
  _sysprof_counter_parse_net_dev (contents, &rx, &tx);
  value_at (self, self->net_index)->v64 = clamp_i64 (rx);
  value_at (self, self->net_index + 1)->v64 = clamp_i64 (tx);
}

/* Values that cannot be read keep their previous ones. */
static void
sample_all (SysprofCounterRecorder *self)
{
  if (self->sets & SET_CPU)
    sample_cpu (self);
  if (self->sets & SET_MEMORY)
    sample_memory (self, NULL);
  if (self->sets & SET_DISK)
    sample_disk (self);
  if (self->sets & SET_NETWORK)
    sample_network (self);
}

static void
write_sample (SysprofCounterRecorder *self)
{
  if (self->ids->len == 0)
    return;
  sample_all (self);
  if (sysprof_capture_writer_set_counters (
          self->writer, sysprof_clock_get_current_time (), -1, -1, (const unsigned int *) (gpointer) self->ids->data,
          (const SysprofCaptureCounterValue *) (gpointer) self->values->data, self->ids->len))
    self->n_samples++;
  else
    self->n_write_errors++;
}

static gboolean
timer_cb (gpointer user_data)
{
  write_sample (SYSPROF_COUNTER_RECORDER (user_data));
  return G_SOURCE_CONTINUE;
}

/* Definitions ---------------------------------------------------------------- */

static void
add_counter (SysprofCounterRecorder *self,
             GArray                 *defs,
             const char             *category,
             const char             *name,
             const char             *description,
             guint                   type)
{
  SysprofCaptureCounter      c = { { 0 } };
  SysprofCaptureCounterValue zero = { 0 };

  g_strlcpy (c.category, category, sizeof c.category);
  g_strlcpy (c.name, name, sizeof c.name);
  g_strlcpy (c.description, description, sizeof c.description);
  c.type = type;
  g_array_append_val (defs, c);
  g_array_append_val (self->values, zero);
}

static gboolean
define_cpu (SysprofCounterRecorder *self, GArray *defs, GError **error)
{
  g_autofree char *contents = read_proc_file ("/proc/stat", error);
  g_autoptr (GArray) times = NULL;
  gboolean have_combined = FALSE;
  CpuPrev  prev = { 0 };

  if (contents == NULL)
    return FALSE;
  times = g_array_new (FALSE, FALSE, sizeof (SysprofCpuTimes));
  _sysprof_counter_parse_stat (contents, times);

  for (guint i = 0; i < times->len; i++)
    {
      const SysprofCpuTimes *t = &g_array_index (times, SysprofCpuTimes, i);

      if (t->cpu < 0)
        have_combined = TRUE;
      else if (self->cpu_numbers->len < MAX_CPUS)
        {
          gboolean seen = FALSE;

          for (guint j = 0; j < self->cpu_numbers->len && !seen; j++)
            seen = g_array_index (self->cpu_numbers, int, j) == t->cpu;
          if (!seen)
            g_array_append_val (self->cpu_numbers, t->cpu);
        }
    }
  if (!have_combined)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "/proc/stat has no cpu line");
      return FALSE;
    }

  self->cpu_index = defs->len;
  add_counter (self, defs, "CPU Percent", "Combined", "Combined CPU usage (percent)", SYSPROF_CAPTURE_COUNTER_DOUBLE);
  for (guint j = 0; j < self->cpu_numbers->len; j++)
    {
      int              cpu = g_array_index (self->cpu_numbers, int, j);
      g_autofree char *name = g_strdup_printf ("Total CPU %d", cpu);
      g_autofree char *description = g_strdup_printf ("Usage of CPU %d (percent)", cpu);

      add_counter (self, defs, "CPU Percent", name, description, SYSPROF_CAPTURE_COUNTER_DOUBLE);
    }
  /* One per CPU then Combined; the first sample sets the baselines. */
  for (guint j = 0; j <= self->cpu_numbers->len; j++)
    g_array_append_val (self->cpu_prev, prev);
  sample_cpu (self);
  return TRUE;
}

static gboolean
define_memory (SysprofCounterRecorder *self, GArray *defs, GError **error)
{
  self->mem_index = defs->len;
  add_counter (self, defs, "Memory", "Used", "Memory used by the system (bytes)", SYSPROF_CAPTURE_COUNTER_DOUBLE);
  add_counter (self, defs, "Memory", "Total", "Total memory (bytes)", SYSPROF_CAPTURE_COUNTER_DOUBLE);
  add_counter (self, defs, "Memory", "Available", "Memory available (bytes)", SYSPROF_CAPTURE_COUNTER_DOUBLE);
  return sample_memory (self, error);
}

static gboolean
is_whole_disk (const SysprofDiskBytes *d, gboolean have_sys_block)
{
  g_autofree char *sys_name = NULL;
  g_autofree char *sys_path = NULL;

  if (d->name[0] == '\0' || d->name[0] == '.')
    return FALSE;
  if ((g_str_has_prefix (d->name, "loop") || g_str_has_prefix (d->name, "ram")) && d->read_bytes == 0 &&
      d->write_bytes == 0)
    return FALSE;
  /* Without /sys (some containers) every device counts. */
  if (!have_sys_block)
    return TRUE;
  sys_name = g_strdelimit (g_strdup (d->name), "/", '!');
  sys_path = g_build_filename ("/sys/block", sys_name, NULL);
  return g_file_test (sys_path, G_FILE_TEST_EXISTS);
}

static gboolean
define_disk (SysprofCounterRecorder *self, GArray *defs, GError **error)
{
  g_autofree char *contents = read_proc_file ("/proc/diskstats", error);
  g_autoptr (GArray) disks = NULL;
  gboolean have_sys_block = g_file_test ("/sys/block", G_FILE_TEST_IS_DIR);

  if (contents == NULL)
    return FALSE;
  disks = g_array_new (FALSE, FALSE, sizeof (SysprofDiskBytes));
  _sysprof_counter_parse_diskstats (contents, disks);

  self->disk_index = defs->len;
  for (guint i = 0; i < disks->len && self->disk_names->len < MAX_DISKS; i++)
    {
      const SysprofDiskBytes *d = &g_array_index (disks, SysprofDiskBytes, i);
      g_autofree char        *reads = NULL;
      g_autofree char        *writes = NULL;
      g_autofree char        *reads_description = NULL;
      g_autofree char        *writes_description = NULL;
      gboolean                seen = FALSE;

      for (guint j = 0; j < self->disk_names->len && !seen; j++)
        seen = g_str_equal (d->name, g_ptr_array_index (self->disk_names, j));
      if (seen || !is_whole_disk (d, have_sys_block))
        continue;
      g_ptr_array_add (self->disk_names, g_strdup (d->name));
      reads = g_strdup_printf ("Total Reads (%s)", d->name);
      writes = g_strdup_printf ("Total Writes (%s)", d->name);
      reads_description = g_strdup_printf ("Bytes read from %s, cumulative", d->name);
      writes_description = g_strdup_printf ("Bytes written to %s, cumulative", d->name);
      add_counter (self, defs, "Disk", reads, reads_description, SYSPROF_CAPTURE_COUNTER_INT64);
      add_counter (self, defs, "Disk", writes, writes_description, SYSPROF_CAPTURE_COUNTER_INT64);
    }
  add_counter (self, defs, "Disk", "Total Reads (Combined)", "Bytes read from all disks, cumulative",
               SYSPROF_CAPTURE_COUNTER_INT64);
  add_counter (self, defs, "Disk", "Total Writes (Combined)", "Bytes written to all disks, cumulative",
               SYSPROF_CAPTURE_COUNTER_INT64);
  sample_disk (self);
  return TRUE;
}

static gboolean
define_network (SysprofCounterRecorder *self, GArray *defs, GError **error)
{
  g_autofree char *contents = read_proc_file ("/proc/net/dev", error);

  if (contents == NULL)
    return FALSE;
  self->net_index = defs->len;
  add_counter (self, defs, "Network", "RX Bytes", "Combined", SYSPROF_CAPTURE_COUNTER_INT64);
  add_counter (self, defs, "Network", "TX Bytes", "Combined", SYSPROF_CAPTURE_COUNTER_INT64);
  sample_network (self);
  return TRUE;
}

static void
reset (SysprofCounterRecorder *self)
{
  self->sets = 0;
  g_array_set_size (self->ids, 0);
  g_array_set_size (self->values, 0);
  g_array_set_size (self->cpu_numbers, 0);
  g_array_set_size (self->cpu_prev, 0);
  g_ptr_array_set_size (self->disk_names, 0);
  g_clear_pointer (&self->defs, g_array_unref);
}

gboolean
sysprof_counter_recorder_start (SysprofCounterRecorder *self,
                                const char *const      *counters,
                                guint                   interval_ms,
                                GError                **error)
{
  g_autoptr (GArray) defs = NULL;
  CounterSet sets = 0;
  guint      first_id;
  gboolean   ok = TRUE;

  g_return_val_if_fail (SYSPROF_IS_COUNTER_RECORDER (self), FALSE);
  g_return_val_if_fail (self->state == STATE_IDLE, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; counters != NULL && counters[i] != NULL; i++)
    {
      guint k;

      for (k = 0; k < G_N_ELEMENTS (counter_sets); k++)
        if (g_str_equal (counters[i], counter_sets[k].name))
          break;
      if (k == G_N_ELEMENTS (counter_sets))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "Unknown counters “%s” (expected cpu, memory, disk or network)", counters[i]);
          return FALSE;
        }
      sets |= counter_sets[k].set;
    }

  defs = g_array_new (FALSE, FALSE, sizeof (SysprofCaptureCounter));
  self->sets = sets;
  if (ok && (sets & SET_CPU))
    ok = define_cpu (self, defs, error);
  if (ok && (sets & SET_MEMORY))
    ok = define_memory (self, defs, error);
  if (ok && (sets & SET_DISK))
    ok = define_disk (self, defs, error);
  if (ok && (sets & SET_NETWORK))
    ok = define_network (self, defs, error);
  if (!ok)
    {
      reset (self);
      return FALSE;
    }

  if (defs->len > 0)
    {
      first_id = sysprof_capture_writer_request_counter (self->writer, defs->len);
      if (first_id == 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "The capture has no counter ids left for %u counters",
                       defs->len);
          reset (self);
          return FALSE;
        }
      for (guint i = 0; i < defs->len; i++)
        {
          SysprofCaptureCounter *c = &g_array_index (defs, SysprofCaptureCounter, i);
          guint                  id = first_id + i;

          c->id = id;
          c->value = g_array_index (self->values, SysprofCaptureCounterValue, i);
          g_array_append_val (self->ids, id);
        }
      if (!sysprof_capture_writer_define_counters (self->writer, sysprof_clock_get_current_time (), -1, -1,
                                                   (const SysprofCaptureCounter *) (gpointer) defs->data, defs->len))
        {
          int errsv = errno;

          /* EFBIG: the capture reached its size limit (max-bytes). */
          g_set_error (error, G_IO_ERROR, errsv == EFBIG ? G_IO_ERROR_NO_SPACE : g_io_error_from_errno (errsv),
                       "Cannot write the counter definitions: %s", g_strerror (errsv));
          reset (self);
          return FALSE;
        }

      self->defs = g_steal_pointer (&defs);
      self->context = g_main_context_ref_thread_default ();
      self->timer =
          g_timeout_source_new (interval_ms != 0 ? interval_ms : SYSPROF_COUNTER_RECORDER_DEFAULT_INTERVAL_MS);
      g_source_set_callback (self->timer, timer_cb, self, NULL);
      g_source_set_static_name (self->timer, "[sysprof] counters");
      g_source_attach (self->timer, self->context);
    }

  self->state = STATE_RUNNING;
  return TRUE;
}

gboolean
sysprof_counter_recorder_define_again (SysprofCounterRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_COUNTER_RECORDER (self), FALSE);

  if (self->state != STATE_RUNNING || self->defs == NULL)
    return TRUE;
  for (guint i = 0; i < self->defs->len; i++)
    g_array_index (self->defs, SysprofCaptureCounter, i).value =
        g_array_index (self->values, SysprofCaptureCounterValue, i);
  return sysprof_capture_writer_define_counters (self->writer, sysprof_clock_get_current_time (), -1, -1,
                                                 (const SysprofCaptureCounter *) (gpointer) self->defs->data,
                                                 self->defs->len);
}

void
sysprof_counter_recorder_stop (SysprofCounterRecorder *self)
{
  g_return_if_fail (SYSPROF_IS_COUNTER_RECORDER (self));

  if (self->state != STATE_RUNNING)
    return;
  self->state = STATE_STOPPED;

  if (self->timer != NULL)
    {
      g_source_destroy (self->timer);
      g_clear_pointer (&self->timer, g_source_unref);
    }
  g_clear_pointer (&self->context, g_main_context_unref);
  write_sample (self);
}

gboolean
sysprof_counter_recorder_is_running (SysprofCounterRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_COUNTER_RECORDER (self), FALSE);

  return self->state == STATE_RUNNING;
}

guint
sysprof_counter_recorder_get_n_counters (SysprofCounterRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_COUNTER_RECORDER (self), 0);

  return self->ids->len;
}

guint64
sysprof_counter_recorder_get_n_samples (SysprofCounterRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_COUNTER_RECORDER (self), 0);

  return self->n_samples;
}

guint64
sysprof_counter_recorder_get_n_write_errors (SysprofCounterRecorder *self)
{
  g_return_val_if_fail (SYSPROF_IS_COUNTER_RECORDER (self), 0);

  return self->n_write_errors;
}
