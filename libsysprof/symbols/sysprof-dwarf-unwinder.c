// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "sysprof-dwarf-unwinder.h"

/* A mapped file: the descriptor handed to us, and one ELF handle on it for
 * every process that maps it.  libelf reads the handle through pread (see
 * open_elf()) and keeps what it read: each distinct file costs its
 * headers and the sections unwinding needs once, however many processes
 * map it.  The handle lives while a live DWARF state uses the file
 * (@n_users), so the files of processes long gone hold nothing but their
 * descriptor. */
typedef struct
{
  int     fd;
  Elf    *elf;
  guint   n_users;
  guint16 e_type;
  char   *name;
} File;

typedef struct
{
  guint64 start;
  guint64 end;
  guint64 pgoff;
  guint32 file_id;
} Map;

typedef struct _Process Process;

/* What the thread callbacks of one unwind read: set for the duration of
 * sysprof_dwarf_unwinder_unwind(). */
typedef struct
{
  const guint64 *regs;
  const guint8  *stack;
  gsize          stack_len;
  guint64        sp;
  /* The CFI asked for memory outside the copy.  libdwfl then takes the
   * return address for undefined, which also marks the outermost frame:
   * this tells a stack cut short from a complete one. */
  gboolean read_outside;
} Sample;

typedef struct
{
  Process                 *process;
  guint64                 *addrs;
  guint                    max_addrs;
  guint                    n_addrs;
  SysprofDwarfUnwindStatus status;
} Walk;

struct _Process
{
  gint32 pid;
  /* Map, sorted by start, disjoint. */
  GArray *maps;
  /* NULL until a sample needs it; rebuilt after the mappings changed. */
  Dwfl *dwfl;
  /* The File of each module of @dwfl, one use each. */
  GPtrArray *dwfl_files;
  /* Link in the unwinder's list of processes with a live Dwfl, most
   * recently used first. */
  GList   live_link;
  Sample *sample;
};

struct _SysprofDwarfUnwinder
{
  /* guint32 file id -> File */
  GHashTable *files;
  /* gint32 pid -> Process */
  GHashTable *processes;
  GQueue      live;
};

/* An ELF handle on @fd that reads through pread, not mmap: a file truncated
 * while we look at it must give a read error, not a SIGBUS, and one
 * rewritten must not change under data libdw checked already.  NULL when
 * @fd is not an x86-64 executable or shared library. */
static Elf *
open_elf (int fd, guint16 *e_type)
{
  Elf      *elf = elf_begin (fd, ELF_C_READ, NULL);
  GElf_Ehdr ehdr;

  if (elf == NULL || elf_kind (elf) != ELF_K_ELF || gelf_getehdr (elf, &ehdr) == NULL ||
      ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_machine != EM_X86_64 ||
      (ehdr.e_type != ET_DYN && ehdr.e_type != ET_EXEC))
    {
      if (elf != NULL)
        elf_end (elf);
      return NULL;
    }
  *e_type = ehdr.e_type;
  return elf;
}

/* The file's handle for one more module, opened again if no live state
 * used the file; NULL when the file is no ELF file of ours (any more). */
static Elf *
file_use (File *file)
{
  if (file->elf == NULL && (file->elf = open_elf (file->fd, &file->e_type)) == NULL)
    return NULL;
  file->n_users++;
  return file->elf;
}

static void
file_unuse (File *file)
{
  g_assert (file->n_users > 0);
  if (--file->n_users == 0)
    {
      /* libdwfl ended its references with the states: this frees what was
       * read of the file. */
      elf_end (file->elf);
      file->elf = NULL;
    }
}

static void
file_free (gpointer data)
{
  File *file = data;

  /* Only when no state uses the file: a handle libdwfl still held would
   * read from a closed descriptor. */
  g_assert (file->n_users == 0 && file->elf == NULL);
  if (file->fd >= 0)
    close (file->fd);
  g_free (file->name);
  g_free (file);
}

static void
process_end_dwfl (Process *process)
{
  dwfl_end (process->dwfl);
  process->dwfl = NULL;
  for (guint i = 0; i < process->dwfl_files->len; i++)
    file_unuse (g_ptr_array_index (process->dwfl_files, i));
  g_ptr_array_set_size (process->dwfl_files, 0);
}

static void
process_drop_dwfl (SysprofDwarfUnwinder *self, Process *process)
{
  if (process->dwfl == NULL)
    return;
  process_end_dwfl (process);
  g_queue_unlink (&self->live, &process->live_link);
}

static void
process_free (gpointer data)
{
  Process *process = data;

  /* Only at destruction of the whole table: the live list goes with it. */
  if (process->dwfl != NULL)
    process_end_dwfl (process);
  g_ptr_array_unref (process->dwfl_files);
  g_array_unref (process->maps);
  g_free (process);
}

/* Every live state, before a file they may use goes. */
static void
drop_every_dwfl (SysprofDwarfUnwinder *self)
{
  while (self->live.head != NULL)
    process_drop_dwfl (self, self->live.head->data);
}

SysprofDwarfUnwinder *
sysprof_dwarf_unwinder_new (void)
{
  SysprofDwarfUnwinder *self = g_new0 (SysprofDwarfUnwinder, 1);

  elf_version (EV_CURRENT);
  self->files = g_hash_table_new_full (NULL, NULL, NULL, file_free);
  self->processes = g_hash_table_new_full (NULL, NULL, NULL, process_free);
  g_queue_init (&self->live);
  return self;
}

void
sysprof_dwarf_unwinder_free (SysprofDwarfUnwinder *self)
{
  if (self == NULL)
    return;
  /* The states first: they use the files. */
  g_hash_table_unref (self->processes);
  g_hash_table_unref (self->files);
  g_free (self);
}

gboolean
sysprof_dwarf_unwinder_add_file (SysprofDwarfUnwinder *self, guint32 file_id, int fd, const char *name, GError **error)
{
  File   *file;
  Elf    *elf;
  guint16 e_type;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (fd >= 0, FALSE);

  if (!g_hash_table_contains (self->files, GUINT_TO_POINTER (file_id)) &&
      g_hash_table_size (self->files) >= SYSPROF_DWARF_UNWINDER_MAX_FILES)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES, "More than %u files",
                   SYSPROF_DWARF_UNWINDER_MAX_FILES);
      return FALSE;
    }

  if ((elf = open_elf (fd, &e_type)) == NULL)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s is not an x86-64 executable or shared library",
                   name ? name : "a file");
      return FALSE;
    }
  /* Opened again by the first state that needs it. */
  elf_end (elf);

  /* A file replacing one under the same id: the states that use the old
   * one go with it (rebuilt on demand, with the new file). */
  if (g_hash_table_contains (self->files, GUINT_TO_POINTER (file_id)))
    drop_every_dwfl (self);
  file = g_new0 (File, 1);
  file->fd = fd;
  file->e_type = e_type;
  file->name = g_strdup (name ? name : "?");
  g_hash_table_replace (self->files, GUINT_TO_POINTER (file_id), file);
  return TRUE;
}

static Process *
lookup_process (SysprofDwarfUnwinder *self, gint32 pid)
{
  return g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));
}

gboolean
sysprof_dwarf_unwinder_has_process (SysprofDwarfUnwinder *self, gint32 pid)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return lookup_process (self, pid) != NULL;
}

void
sysprof_dwarf_unwinder_forget_process (SysprofDwarfUnwinder *self, gint32 pid)
{
  Process *process;

  g_return_if_fail (self != NULL);

  if ((process = lookup_process (self, pid)) == NULL)
    return;
  process_drop_dwfl (self, process);
  g_hash_table_remove (self->processes, GINT_TO_POINTER (pid));
}

void
sysprof_dwarf_unwinder_fork (SysprofDwarfUnwinder *self, gint32 parent, gint32 child)
{
  Process *from;

  g_return_if_fail (self != NULL);

  if (parent == child || (from = lookup_process (self, parent)) == NULL)
    return;
  sysprof_dwarf_unwinder_forget_process (self, child);
  for (guint i = 0; i < from->maps->len; i++)
    {
      const Map *m = &g_array_index (from->maps, Map, i);

      if (!sysprof_dwarf_unwinder_add_map (self, child, m->start, m->end, m->pgoff, m->file_id, NULL))
        break;
    }
}

gboolean
sysprof_dwarf_unwinder_add_map (
    SysprofDwarfUnwinder *self, gint32 pid, guint64 start, guint64 end, guint64 pgoff, guint32 file_id, GError **error)
{
  Process *process;
  Map      map = { start, end, pgoff, file_id };
  guint    i;

  g_return_val_if_fail (self != NULL, FALSE);

  if (start >= end)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Empty mapping");
      return FALSE;
    }
  if (!g_hash_table_contains (self->files, GUINT_TO_POINTER (file_id)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Unknown file %u", file_id);
      return FALSE;
    }

  if ((process = lookup_process (self, pid)) == NULL)
    {
      if (g_hash_table_size (self->processes) >= SYSPROF_DWARF_UNWINDER_MAX_PROCESSES)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "More than %u processes",
                       SYSPROF_DWARF_UNWINDER_MAX_PROCESSES);
          return FALSE;
        }
      process = g_new0 (Process, 1);
      process->pid = pid;
      process->maps = g_array_new (FALSE, FALSE, sizeof (Map));
      process->dwfl_files = g_ptr_array_new ();
      process->live_link.data = process;
      g_hash_table_insert (self->processes, GINT_TO_POINTER (pid), process);
    }

  /* Drop what the new mapping covers, as mmap(MAP_FIXED) does. */
  for (i = 0; i < process->maps->len;)
    {
      const Map *m = &g_array_index (process->maps, Map, i);

      if (m->start < end && start < m->end)
        g_array_remove_index (process->maps, i);
      else
        i++;
    }
  if (process->maps->len >= SYSPROF_DWARF_UNWINDER_MAX_MAPS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "More than %u mappings in process %d",
                   SYSPROF_DWARF_UNWINDER_MAX_MAPS, pid);
      return FALSE;
    }
  for (i = 0; i < process->maps->len && g_array_index (process->maps, Map, i).start < start; i++)
    ;
  g_array_insert_val (process->maps, i, map);
  process_drop_dwfl (self, process);
  return TRUE;
}

static const Map *
find_map (Process *process, guint64 addr)
{
  guint lo = 0, hi = process->maps->len;

  while (lo < hi)
    {
      guint      mid = lo + (hi - lo) / 2;
      const Map *m = &g_array_index (process->maps, Map, mid);

      if (addr < m->start)
        hi = mid;
      else if (addr >= m->end)
        lo = mid + 1;
      else
        return m;
    }
  return NULL;
}

/* libdwfl callbacks -------------------------------------------------------- */

/* A module's ELF file: another reference to the File's handle (set as the
 * module's userdata by build_dwfl), which libdwfl ends with the module.  No
 * descriptor: never a file by name, never libdwfl's own handle on the
 * descriptor, which would map the whole file (privately writable, so
 * counted against the helper's RLIMIT_DATA: a copy of every library for
 * each live process) and die of SIGBUS when the file shrinks. */
static int
find_shared_elf (Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name, Elf **elfp)
{
  File *file = *userdata;

  (void) mod, (void) modname, (void) base, (void) file_name;
  if (file != NULL && file->elf != NULL)
    *elfp = elf_begin (file->fd, ELF_C_READ, file->elf);
  return -1;
}

static int
find_no_debuginfo (Dwfl_Module *mod,
                   void       **userdata,
                   const char  *modname,
                   Dwarf_Addr   base,
                   const char  *file_name,
                   const char  *debuglink_file,
                   GElf_Word    debuglink_crc,
                   char       **debuginfo_file_name)
{
  (void) mod, (void) userdata, (void) modname, (void) base, (void) file_name, (void) debuglink_file,
      (void) debuglink_crc, (void) debuginfo_file_name;
  return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
  .find_elf = find_shared_elf,
  .find_debuginfo = find_no_debuginfo,
};

static pid_t
next_thread_cb (Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
  (void) dwfl, (void) dwfl_arg, (void) thread_argp;
  /* No enumeration: only the sampled thread, through get_thread. */
  return 0;
}

static bool
get_thread_cb (Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
  Process *process = dwfl_arg;

  (void) dwfl, (void) tid;
  *thread_argp = process;
  return process->sample != NULL;
}

/* Reads of the stack, whatever address the CFI computes: only the copied
 * bytes answer, anything else stops the unwind. */
static bool
memory_read_cb (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
  Process *process = dwfl_arg;
  Sample  *sample = process->sample;

  (void) dwfl;
  if (sample == NULL)
    return false;
  if (addr < sample->sp || addr - sample->sp > sample->stack_len ||
      sample->stack_len - (addr - sample->sp) < sizeof *result)
    {
      sample->read_outside = TRUE;
      return false;
    }
  memcpy (result, sample->stack + (addr - sample->sp), sizeof *result);
  return true;
}

static bool
set_initial_registers_cb (Dwfl_Thread *thread, void *thread_arg)
{
  Process *process = thread_arg;

  return dwfl_thread_state_registers (thread, 0, SYSPROF_DWARF_UNWINDER_N_REGS, process->sample->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = next_thread_cb,
  .get_thread = get_thread_cb,
  .memory_read = memory_read_cb,
  .set_initial_registers = set_initial_registers_cb,
};

/* Building a process's Dwfl ------------------------------------------------- */

/* The load bias of @file mapped at @map: the executable PT_LOAD segment that
 * holds file offset pgoff says which virtual address map->start stands for. */
static gboolean
compute_bias (File *file, const Map *map, guint64 *bias)
{
  size_t n_phdrs;

  if (file->e_type == ET_EXEC)
    {
      *bias = 0;
      return TRUE;
    }
  if (elf_getphdrnum (file->elf, &n_phdrs) != 0)
    return FALSE;
  for (size_t i = 0; i < n_phdrs; i++)
    {
      GElf_Phdr phdr;

      if (gelf_getphdr (file->elf, (int) i, &phdr) == NULL || phdr.p_type != PT_LOAD)
        continue;
      if (map->pgoff < phdr.p_offset || map->pgoff - phdr.p_offset >= MAX (phdr.p_filesz, 1))
        continue;
      *bias = map->start - (phdr.p_vaddr + (map->pgoff - phdr.p_offset));
      return TRUE;
    }
  return FALSE;
}

/* The addresses the module of @file spans at @bias, as dwfl_report_elf()
 * computes them: from the first PT_LOAD's page (which libdwfl subtracts again
 * to find the bias) to the end of the last one. */
static gboolean
module_range (File *file, guint64 bias, guint64 *low, guint64 *high)
{
  size_t   n_phdrs;
  gboolean first = TRUE;

  if (elf_getphdrnum (file->elf, &n_phdrs) != 0)
    return FALSE;
  *low = *high = 0;
  for (size_t i = 0; i < n_phdrs; i++)
    {
      GElf_Phdr phdr;

      if (gelf_getphdr (file->elf, (int) i, &phdr) == NULL || phdr.p_type != PT_LOAD)
        continue;
      if (first)
        *low = bias + (phdr.p_vaddr & -phdr.p_align);
      first = FALSE;
      *high = MAX (*high, bias + phdr.p_vaddr + phdr.p_memsz);
    }
  return !first && *low < *high;
}

/* Reports @file at @map's bias in @dwfl, with a use of its handle. */
static gboolean
report_file (Dwfl *dwfl, Process *process, File *file, const Map *map)
{
  Dwfl_Module *mod;
  void       **userdata;
  guint64      bias, low, high;

  if (file_use (file) == NULL)
    return FALSE;
  /* libdwfl hands back the module it has when name and range repeat (two
   * files of one name over the same addresses): one File per module. */
  if (!compute_bias (file, map, &bias) || !module_range (file, bias, &low, &high) ||
      (mod = dwfl_report_module (dwfl, file->name, low, high)) == NULL ||
      dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) == NULL || *userdata != NULL)
    {
      file_unuse (file);
      return FALSE;
    }
  *userdata = file;
  g_ptr_array_add (process->dwfl_files, file);
  return TRUE;
}

static gboolean
build_dwfl (SysprofDwarfUnwinder *self, Process *process)
{
  g_autoptr (GHashTable) reported = g_hash_table_new (NULL, NULL);
  Dwfl *dwfl;

  /* Bounded: the least recently used state goes, first, so that the
   * handles of files no other state uses are freed before new ones are
   * read. */
  if (self->live.length >= SYSPROF_DWARF_UNWINDER_MAX_LIVE)
    process_drop_dwfl (self, g_queue_peek_tail (&self->live));

  if ((dwfl = dwfl_begin (&dwfl_callbacks)) == NULL)
    return FALSE;
  process->dwfl = dwfl;
  dwfl_report_begin (dwfl);
  for (guint i = 0; i < process->maps->len; i++)
    {
      const Map *map = &g_array_index (process->maps, Map, i);
      File      *file = g_hash_table_lookup (self->files, GUINT_TO_POINTER (map->file_id));

      /* One module per file: its other executable mappings (rare) are the
       * same module at the same bias. */
      if (file == NULL || g_hash_table_contains (reported, GUINT_TO_POINTER (map->file_id)))
        continue;
      if (report_file (dwfl, process, file, map))
        g_hash_table_add (reported, GUINT_TO_POINTER (map->file_id));
    }
  if (dwfl_report_end (dwfl, NULL, NULL) != 0 || process->dwfl_files->len == 0 ||
      !dwfl_attach_state (dwfl, NULL, process->pid, &thread_callbacks, process))
    {
      process_end_dwfl (process);
      return FALSE;
    }

  g_queue_push_head_link (&self->live, &process->live_link);
  return TRUE;
}

/* Unwinding ----------------------------------------------------------------- */

static int
frame_cb (Dwfl_Frame *state, void *arg)
{
  Walk      *walk = arg;
  Dwarf_Addr pc;
  bool       activation;
  guint64    where;

  if (!dwfl_frame_pc (state, &pc, &activation))
    {
      walk->status = SYSPROF_DWARF_UNWIND_TRUNCATED;
      return DWARF_CB_ABORT;
    }
  /* A return address points after its call, possibly just past the end of
   * the caller's mapping (a noreturn call last in a function). */
  where = activation || pc == 0 ? pc : pc - 1;
  if (find_map (walk->process, where) == NULL)
    {
      walk->status = walk->n_addrs == 0 ? SYSPROF_DWARF_UNWIND_FAILED : SYSPROF_DWARF_UNWIND_OUTSIDE_MAPPINGS;
      return DWARF_CB_ABORT;
    }
  walk->addrs[walk->n_addrs++] = pc;
  if (walk->n_addrs == walk->max_addrs)
    {
      walk->status = SYSPROF_DWARF_UNWIND_TRUNCATED;
      return DWARF_CB_ABORT;
    }
  return DWARF_CB_OK;
}

SysprofDwarfUnwindStatus
sysprof_dwarf_unwinder_unwind (SysprofDwarfUnwinder *self,
                               gint32                pid,
                               gint32                tid,
                               const guint64        *regs,
                               const guint8         *stack,
                               gsize                 stack_len,
                               guint64              *addrs,
                               guint                 max_addrs,
                               guint                *n_addrs)
{
  Process *process;
  Sample   sample;
  Walk     walk = { 0 };
  int      ret;

  g_return_val_if_fail (self != NULL, SYSPROF_DWARF_UNWIND_FAILED);
  g_return_val_if_fail (regs != NULL, SYSPROF_DWARF_UNWIND_FAILED);
  g_return_val_if_fail (stack != NULL || stack_len == 0, SYSPROF_DWARF_UNWIND_FAILED);
  g_return_val_if_fail (addrs != NULL && max_addrs > 0 && n_addrs != NULL, SYSPROF_DWARF_UNWIND_FAILED);

  *n_addrs = 0;
  if ((process = lookup_process (self, pid)) == NULL || find_map (process, regs[SYSPROF_DWARF_UNWINDER_REG_IP]) == NULL)
    return SYSPROF_DWARF_UNWIND_FAILED;
  if (process->dwfl == NULL && !build_dwfl (self, process))
    {
      /* No usable module: the instruction pointer alone. */
      addrs[0] = regs[SYSPROF_DWARF_UNWINDER_REG_IP];
      *n_addrs = 1;
      return SYSPROF_DWARF_UNWIND_TRUNCATED;
    }
  if (self->live.head != &process->live_link)
    {
      g_queue_unlink (&self->live, &process->live_link);
      g_queue_push_head_link (&self->live, &process->live_link);
    }

  sample.regs = regs;
  sample.stack = stack;
  sample.stack_len = stack_len;
  sample.sp = regs[SYSPROF_DWARF_UNWINDER_REG_SP];
  sample.read_outside = FALSE;
  process->sample = &sample;
  walk.process = process;
  walk.addrs = addrs;
  walk.max_addrs = max_addrs;
  walk.status = SYSPROF_DWARF_UNWIND_COMPLETE;
  ret = dwfl_getthread_frames (process->dwfl, tid > 0 ? tid : 1, frame_cb, &walk);
  process->sample = NULL;

  *n_addrs = walk.n_addrs;
  if (ret == DWARF_CB_ABORT)
    return walk.status;
  if (ret != 0 || sample.read_outside)
    return walk.n_addrs == 0 ? SYSPROF_DWARF_UNWIND_FAILED : SYSPROF_DWARF_UNWIND_TRUNCATED;
  return SYSPROF_DWARF_UNWIND_COMPLETE;
}
