// SPDX-License-Identifier: GPL-3.0-or-later
/* The DWARF unwinder on stacks of this very process: built -O2
 * -fomit-frame-pointer, so only CFI leads from the innermost function back to
 * main.  The registers and the stack are copied as perf copies them for a
 * sample; the mapped files come from /proc/self/maps, handed over as
 * descriptors as sysprofd hands them to the unwinding helper. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "sysprof-dwarf-unwinder.h"

typedef struct
{
  guint64 regs[SYSPROF_DWARF_UNWINDER_N_REGS];
  guint8 *stack;
  gsize   stack_len;
} Snapshot;

static guint64
stack_top (guint64 sp)
{
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", 0);
  for (guint i = 0; lines[i]; i++)
    {
      guint64 start, end;

      if (sscanf (lines[i], "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x", &start, &end) == 2 && sp >= start &&
          sp < end)
        return end;
    }
  g_assert_not_reached ();
}

/* The stack as perf copies it: bytes from the stack pointer up, read
 * byte by byte (ASan would see a memcpy of other frames as an overflow). */
__attribute__ ((no_sanitize_address)) static void
copy_stack (Snapshot *snap, gsize max)
{
  const volatile guint8 *sp = (const volatile guint8 *) (guintptr) snap->regs[SYSPROF_DWARF_UNWINDER_REG_SP];
  gsize                  len = MIN (max, stack_top ((guint64) (guintptr) sp) - (guint64) (guintptr) sp);

  snap->stack = g_malloc (len);
  snap->stack_len = len;
  for (gsize i = 0; i < len; i++)
    snap->stack[i] = sp[i];
}

/* Registers at one instruction, as PERF_SAMPLE_REGS_USER gives them (only
 * those the CFI of x86-64 code needs: callee-saved, stack pointer, ip). */
__attribute__ ((noinline)) static void
take_snapshot (Snapshot *snap, gsize max)
{
  guint64 *r = snap->regs;

  memset (r, 0, sizeof snap->regs);
  __asm__ volatile("movq %%rbx, 24(%0)\n\t"
                   "movq %%rbp, 48(%0)\n\t"
                   "movq %%rsp, 56(%0)\n\t"
                   "movq %%r12, 96(%0)\n\t"
                   "movq %%r13, 104(%0)\n\t"
                   "movq %%r14, 112(%0)\n\t"
                   "movq %%r15, 120(%0)\n\t"
                   "leaq 0(%%rip), %%rax\n\t"
                   "movq %%rax, 128(%0)\n\t"
                   :
                   : "r"(r)
                   : "rax", "memory");
  copy_stack (snap, max);
}

/* A chain whose frames need CFI: locals that keep rbp busy and stack
 * arrays that move rsp. */
__attribute__ ((noinline)) void test_unwind_chain_c (Snapshot *snap, gsize max);
__attribute__ ((noinline)) void test_unwind_chain_b (Snapshot *snap, gsize max, int depth);
__attribute__ ((noinline)) void test_unwind_chain_a (Snapshot *snap, gsize max);

__attribute__ ((noinline)) void
test_unwind_chain_c (Snapshot *snap, gsize max)
{
  volatile char pad[200];

  pad[0] = 1;
  take_snapshot (snap, max);
  pad[1] = pad[0];
}

__attribute__ ((noinline)) void
test_unwind_chain_b (Snapshot *snap, gsize max, int depth)
{
  /* alloca: a frame whose CFA follows rbp, beside the rsp-based ones. */
  volatile guint64 *pad = __builtin_alloca ((gsize) (depth + 3) * sizeof *pad);

  pad[0] = (guint64) depth;
  if (depth > 0)
    test_unwind_chain_b (snap, max, depth - 1);
  else
    test_unwind_chain_c (snap, max);
  pad[1] = pad[0];
}

__attribute__ ((noinline)) void
test_unwind_chain_a (Snapshot *snap, gsize max)
{
  volatile int x = 3;

  test_unwind_chain_b (snap, max, x);
  x++;
}

/* The executable mappings of this process, as those of @pid; each distinct
 * file is handed over once (@ids: its path -> its id, kept between calls).
 * @exe_fd, unless -1, is handed over for our own executable instead of a
 * descriptor opened here. */
static void
add_mappings_as (SysprofDwarfUnwinder *unwinder, gint32 pid, GHashTable *ids, int exe_fd)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_maps = 0;

  g_assert_nonnull (exe);

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", 0);
  for (guint i = 0; lines[i]; i++)
    {
      guint64 start, end, pgoff;
      char    perms[5], path[4096];
      guint   id;
      int     fd;

      if (sscanf (lines[i],
                  "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %4s %" G_GINT64_MODIFIER "x %*s %*s %4095s", &start,
                  &end, perms, &pgoff, path) != 5 ||
          perms[2] != 'x' || path[0] != '/')
        continue;
      id = GPOINTER_TO_UINT (g_hash_table_lookup (ids, path));
      if (id == 0)
        {
          g_autoptr (GError) error = NULL;

          id = g_hash_table_size (ids) + 1;
          if (exe_fd >= 0 && g_str_equal (path, exe))
            fd = g_steal_fd (&exe_fd);
          else
            fd = open (path, O_RDONLY | O_CLOEXEC);
          g_assert_cmpint (fd, >=, 0);
          g_assert_true (sysprof_dwarf_unwinder_add_file (unwinder, id, fd, path, &error));
          g_assert_no_error (error);
          g_hash_table_insert (ids, g_strdup (path), GUINT_TO_POINTER (id));
        }
      g_assert_true (sysprof_dwarf_unwinder_add_map (unwinder, pid, start, end, pgoff, id, NULL));
      n_maps++;
    }
  g_assert_cmpuint (n_maps, >=, 2);
  g_assert_cmpint (exe_fd, ==, -1);
}

static void
add_own_mappings (SysprofDwarfUnwinder *unwinder)
{
  g_autoptr (GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  add_mappings_as (unwinder, getpid (), ids, -1);
}

static SysprofDwarfUnwindStatus
unwind_snapshot (SysprofDwarfUnwinder *unwinder, gint32 pid, const Snapshot *snap, guint64 *addrs, guint *n)
{
  SysprofDwarfUnwindStatus status =
      sysprof_dwarf_unwinder_unwind (unwinder, pid, pid, snap->regs, snap->stack, snap->stack_len, addrs, 128, n);

  g_assert_cmpuint (*n, <=, 128);
  return status;
}

static const char *
name_of (guint64 addr, gboolean first)
{
  Dl_info info;

  /* Return addresses point after the call. */
  if (dladdr ((gpointer) (guintptr) (first ? addr : addr - 1), &info) == 0 || info.dli_sname == NULL)
    return "?";
  return info.dli_sname;
}

static GString *
describe (const guint64 *addrs, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i ? " <- " : "", name_of (addrs[i], i == 0));
  return s;
}

static void
test_own_stack (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = sysprof_dwarf_unwinder_new ();
  g_autoptr (GString) shown = NULL;
  Snapshot                 snap;
  guint64                  addrs[128];
  guint                    n;
  SysprofDwarfUnwindStatus status;
  const char              *want[] = { "test_unwind_chain_c", "test_unwind_chain_b", "test_unwind_chain_b",
                                      "test_unwind_chain_b", "test_unwind_chain_b", "test_unwind_chain_a" };
  guint                    first = G_MAXUINT;
  gboolean                 saw_main = FALSE;

  add_own_mappings (unwinder);
  test_unwind_chain_a (&snap, 65528);
  status = sysprof_dwarf_unwinder_unwind (unwinder, getpid (), gettid (), snap.regs, snap.stack, snap.stack_len, addrs,
                                          G_N_ELEMENTS (addrs), &n);
  shown = describe (addrs, n);
  g_test_message ("%u frames: %s", n, shown->str);
  g_assert_cmpint (status, ==, SYSPROF_DWARF_UNWIND_COMPLETE);

  for (guint i = 0; i < n && first == G_MAXUINT; i++)
    if (g_str_equal (name_of (addrs[i], i == 0), want[0]))
      first = i;
  g_assert_cmpuint (first, <, n);
  for (guint j = 0; j < G_N_ELEMENTS (want); j++)
    {
      g_assert_cmpuint (first + j, <, n);
      g_assert_cmpstr (name_of (addrs[first + j], FALSE), ==, want[j]);
    }
  for (guint i = first; i < n; i++)
    saw_main |= g_str_equal (name_of (addrs[i], FALSE), "main");
  g_assert_true (saw_main);
  g_free (snap.stack);
}

/* A copy that ends inside the chain: the frames it holds, then a truncated
 * (not failed, not garbage) stack. */
static void
test_short_copy (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = sysprof_dwarf_unwinder_new ();
  Snapshot                 snap;
  guint64                  addrs[128];
  guint                    n;
  SysprofDwarfUnwindStatus status;

  add_own_mappings (unwinder);
  test_unwind_chain_a (&snap, 256);
  status = sysprof_dwarf_unwinder_unwind (unwinder, getpid (), gettid (), snap.regs, snap.stack, snap.stack_len, addrs,
                                          G_N_ELEMENTS (addrs), &n);
  g_assert_cmpint (status, ==, SYSPROF_DWARF_UNWIND_TRUNCATED);
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (n, <, 6);
  g_free (snap.stack);

  /* The depth limit. */
  test_unwind_chain_a (&snap, 65528);
  status = sysprof_dwarf_unwinder_unwind (unwinder, getpid (), gettid (), snap.regs, snap.stack, snap.stack_len, addrs,
                                          3, &n);
  g_assert_cmpint (status, ==, SYSPROF_DWARF_UNWIND_TRUNCATED);
  g_assert_cmpuint (n, ==, 3);
  g_free (snap.stack);
}

/* Hostile samples: every register and stack word random, a process we know
 * nothing of, an ip in no mapping.  Short stacks, never a crash, never an
 * address outside the mappings. */
static void
test_garbage (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = sysprof_dwarf_unwinder_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (1234);
  Snapshot snap;
  guint8   stack[4096];
  guint64  regs[SYSPROF_DWARF_UNWINDER_N_REGS];
  guint64  addrs[128];
  guint    n;

  add_own_mappings (unwinder);
  test_unwind_chain_a (&snap, 65528);

  g_assert_cmpint (sysprof_dwarf_unwinder_unwind (unwinder, getpid () + 1, 1, snap.regs, snap.stack, snap.stack_len,
                                                  addrs, G_N_ELEMENTS (addrs), &n),
                   ==, SYSPROF_DWARF_UNWIND_FAILED);
  g_assert_cmpuint (n, ==, 0);
  memcpy (regs, snap.regs, sizeof regs);
  regs[SYSPROF_DWARF_UNWINDER_REG_IP] = 0x10;
  g_assert_cmpint (sysprof_dwarf_unwinder_unwind (unwinder, getpid (), 1, regs, snap.stack, snap.stack_len, addrs,
                                                  G_N_ELEMENTS (addrs), &n),
                   ==, SYSPROF_DWARF_UNWIND_FAILED);

  for (guint round = 0; round < 2000; round++)
    {
      SysprofDwarfUnwindStatus status;

      for (guint i = 0; i < G_N_ELEMENTS (regs); i++)
        regs[i] = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      /* Half of the time a real ip and sp, garbage above them. */
      if (round % 2)
        {
          regs[SYSPROF_DWARF_UNWINDER_REG_IP] = snap.regs[SYSPROF_DWARF_UNWINDER_REG_IP];
          regs[SYSPROF_DWARF_UNWINDER_REG_SP] = snap.regs[SYSPROF_DWARF_UNWINDER_REG_SP];
        }
      for (guint i = 0; i < sizeof stack; i += 4)
        {
          guint32 v = g_rand_int (rand);

          /* Some words that look like return addresses into our code. */
          if (i % 32 == 0)
            v = (guint32) (snap.regs[SYSPROF_DWARF_UNWINDER_REG_IP] + g_rand_int_range (rand, -4096, 4096));
          memcpy (stack + i, &v, 4);
        }
      status = sysprof_dwarf_unwinder_unwind (unwinder, getpid (), 1, regs, stack, g_rand_int_range (rand, 0, 4096),
                                              addrs, G_N_ELEMENTS (addrs), &n);
      g_assert_cmpuint (n, <=, G_N_ELEMENTS (addrs));
      if (status == SYSPROF_DWARF_UNWIND_FAILED)
        g_assert_cmpuint (n, ==, 0);
      for (guint i = 0; i < n; i++)
        {
          Dl_info info;

          g_assert_cmpint (dladdr ((gpointer) (guintptr) (i ? addrs[i] - 1 : addrs[i]), &info), !=, 0);
        }
    }
  g_free (snap.stack);
}

/* Files that are not what they claim: refused, or harmless. */
static void
test_hostile_files (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = sysprof_dwarf_unwinder_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *libc = NULL;
  g_autofree char *contents = NULL;
  gsize            len;
  Snapshot         snap;
  guint64          addrs[128];
  guint            n;
  int              fd;

  /* Not ELF. */
  fd = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_false (sysprof_dwarf_unwinder_add_file (unwinder, 1, fd, "/etc/passwd", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_assert_false (sysprof_dwarf_unwinder_add_map (unwinder, 1, 0x1000, 0x2000, 0, 1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (sysprof_dwarf_unwinder_add_map (unwinder, 1, 0x2000, 0x2000, 0, 1, NULL));

  /* Our own executable cut after its first 4 KiB (headers that promise
   * sections and segments beyond the end), and with its middle zeroed,
   * standing in for every file of this process. */
  libc = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_true (g_file_get_contents (libc, &contents, &len, NULL));
  for (guint variant = 0; variant < 2; variant++)
    {
      g_autoptr (SysprofDwarfUnwinder) damaged = sysprof_dwarf_unwinder_new ();
      g_autofree char *maps = NULL;
      g_auto (GStrv) lines = NULL;
      int memfd = memfd_create ("damaged", MFD_CLOEXEC);

      g_assert_cmpint (memfd, >=, 0);
      if (variant == 0)
        g_assert_cmpint (write (memfd, contents, 4096), ==, 4096);
      else
        {
          g_autofree char *copy = g_memdup2 (contents, len);

          memset (copy + 4096, 0x5a, len / 2);
          g_assert_cmpint (write (memfd, copy, len), ==, (gssize) len);
        }
      g_assert_true (sysprof_dwarf_unwinder_add_file (damaged, 7, memfd, "damaged", NULL));
      g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
      lines = g_strsplit (maps, "\n", 0);
      for (guint i = 0; lines[i]; i++)
        {
          guint64 start, end, pgoff;
          char    perms[5];

          if (sscanf (lines[i], "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %4s %" G_GINT64_MODIFIER "x", &start,
                      &end, perms, &pgoff) == 4 &&
              perms[2] == 'x')
            sysprof_dwarf_unwinder_add_map (damaged, getpid (), start, end, pgoff, 7, NULL);
        }
      test_unwind_chain_a (&snap, 65528);
      sysprof_dwarf_unwinder_unwind (damaged, getpid (), 1, snap.regs, snap.stack, snap.stack_len, addrs,
                                     G_N_ELEMENTS (addrs), &n);
      g_assert_cmpuint (n, <=, G_N_ELEMENTS (addrs));
      g_free (snap.stack);
    }
}

/* Forgetting a process (exec, exit) and the bound on live states. */
static void
test_forget_and_many (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = sysprof_dwarf_unwinder_new ();
  Snapshot snap;
  guint64  addrs[128];
  guint    n;

  add_own_mappings (unwinder);
  g_assert_true (sysprof_dwarf_unwinder_has_process (unwinder, getpid ()));

  /* A forked child runs its parent's image, also once the parent is gone. */
  test_unwind_chain_a (&snap, 65528);
  sysprof_dwarf_unwinder_fork (unwinder, getpid (), 4000000);
  sysprof_dwarf_unwinder_forget_process (unwinder, getpid ());
  g_assert_cmpint (sysprof_dwarf_unwinder_unwind (unwinder, 4000000, 4000000, snap.regs, snap.stack, snap.stack_len,
                                                  addrs, G_N_ELEMENTS (addrs), &n),
                   ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  /* Forking an unknown process gives nothing. */
  sysprof_dwarf_unwinder_fork (unwinder, 123, 4000001);
  g_assert_false (sysprof_dwarf_unwinder_has_process (unwinder, 4000001));
  g_free (snap.stack);

  g_assert_false (sysprof_dwarf_unwinder_has_process (unwinder, getpid ()));

  /* The same mappings under many fake pids: more live states than the
   * bound, each still unwinding completely. */
  test_unwind_chain_a (&snap, 65528);
  for (gint32 pid = 100000; pid < 100000 + 2 * SYSPROF_DWARF_UNWINDER_MAX_LIVE; pid++)
    {
      g_autofree char *maps = NULL;
      g_auto (GStrv) lines = NULL;
      g_autoptr (GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

      g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
      lines = g_strsplit (maps, "\n", 0);
      for (guint i = 0; lines[i]; i++)
        {
          guint64 start, end, pgoff;
          char    perms[5], path[4096];
          guint   id;

          if (sscanf (lines[i],
                      "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %4s %" G_GINT64_MODIFIER "x %*s %*s %4095s",
                      &start, &end, perms, &pgoff, path) != 5 ||
              perms[2] != 'x' || path[0] != '/')
            continue;
          id = g_str_hash (path);
          if (pid == 100000 && !g_hash_table_contains (ids, path))
            {
              g_assert_true (
                  sysprof_dwarf_unwinder_add_file (unwinder, id, open (path, O_RDONLY | O_CLOEXEC), path, NULL));
              g_hash_table_add (ids, g_strdup (path));
            }
          g_assert_true (sysprof_dwarf_unwinder_add_map (unwinder, pid, start, end, pgoff, id, NULL));
        }
      g_assert_cmpint (sysprof_dwarf_unwinder_unwind (unwinder, pid, pid, snap.regs, snap.stack, snap.stack_len, addrs,
                                                      G_N_ELEMENTS (addrs), &n),
                       ==, SYSPROF_DWARF_UNWIND_COMPLETE);
    }
  g_free (snap.stack);
}

/* A file cut short while the unwinder holds it (a program truncating a
 * library it maps).  The unwinder reads files through pread: short reads,
 * never the SIGBUS of a mapping of the file, which killed the helper.  What
 * was read before the cut still serves.  In a subprocess: a crash fails
 * this test alone. */
static void
test_truncated_file (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = NULL;
  g_autoptr (GHashTable) ids = NULL;
  g_autofree char *exe = NULL;
  g_autofree char *contents = NULL;
  gsize            len;
  Snapshot         snap;
  guint64          addrs[128];
  guint            n;
  int              copy;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  unwinder = sysprof_dwarf_unwinder_new ();
  ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_true (g_file_get_contents (exe, &contents, &len, NULL));
  copy = memfd_create ("copy", MFD_CLOEXEC);
  g_assert_cmpint (copy, >=, 0);
  g_assert_cmpint (write (copy, contents, len), ==, (gssize) len);
  add_mappings_as (unwinder, getpid (), ids, dup (copy));

  test_unwind_chain_a (&snap, 65528);
  g_assert_cmpint (unwind_snapshot (unwinder, getpid (), &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  g_assert_cmpint (ftruncate (copy, 0), ==, 0);
  /* The same stack: every step of it was read before the cut. */
  g_assert_cmpint (unwind_snapshot (unwinder, getpid (), &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  /* A process met after the cut shares what was read. */
  sysprof_dwarf_unwinder_fork (unwinder, getpid (), 4000000);
  g_assert_cmpint (unwind_snapshot (unwinder, 4000000, &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  /* Once no state uses the file, it is read again: empty, no ELF file, the
   * instruction pointer is all that is left of our part of the stack. */
  sysprof_dwarf_unwinder_forget_process (unwinder, getpid ());
  sysprof_dwarf_unwinder_forget_process (unwinder, 4000000);
  add_mappings_as (unwinder, 4000001, ids, -1);
  unwind_snapshot (unwinder, 4000001, &snap, addrs, &n);
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (addrs[0], ==, snap.regs[SYSPROF_DWARF_UNWINDER_REG_IP]);
  g_free (snap.stack);
  close (copy);
}

/* What the kernel counts against RLIMIT_DATA. */
static guint64
data_bytes (void)
{
  g_autofree char *status = NULL;
  const char      *line;

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "\nVmData:");
  g_assert_nonnull (line);
  return g_ascii_strtoull (line + strlen ("\nVmData:"), NULL, 10) * 1024;
}

/* A whole-system recording keeps the states of
 * SYSPROF_DWARF_UNWINDER_MAX_LIVE processes, most of them mapping the same
 * libraries, in a helper whose memory is limited (RLIMIT_DATA).  libdwfl
 * does not survive allocation failures (a module lookup that cannot
 * allocate its table returns an uninitialized module: the helper died of
 * SIGSEGV in recordings beside Chromium, whose 300 MB executable each of
 * its processes' states mapped whole), so each file must cost once, not
 * once per process: every state unwinds completely within 64 MiB more than
 * the first one needed. */
static void
test_shared_files (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = NULL;
  g_autoptr (GHashTable) ids = NULL;
  struct rlimit limit;
  Snapshot      snap;
  guint64       addrs[128];
  guint         n;

#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("AddressSanitizer's shadow memory is beyond any limit of the data segment");
  return;
#endif
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  unwinder = sysprof_dwarf_unwinder_new ();
  ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  test_unwind_chain_a (&snap, 65528);
  add_mappings_as (unwinder, 200000, ids, -1);
  g_assert_cmpint (unwind_snapshot (unwinder, 200000, &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);

  limit.rlim_cur = limit.rlim_max = data_bytes () + 64 * 1024 * 1024;
  g_assert_cmpint (setrlimit (RLIMIT_DATA, &limit), ==, 0);
  for (gint32 pid = 200001; pid < 200000 + SYSPROF_DWARF_UNWINDER_MAX_LIVE; pid++)
    {
      add_mappings_as (unwinder, pid, ids, -1);
      g_assert_cmpint (unwind_snapshot (unwinder, pid, &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
    }
  g_free (snap.stack);
}

/* A file sent again under a known id replaces it for every process: the
 * states that read the old one are rebuilt with the new one. */
static void
test_replaced_file (void)
{
  g_autoptr (SysprofDwarfUnwinder) unwinder = sysprof_dwarf_unwinder_new ();
  g_autoptr (GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  Snapshot         snap;
  guint64          addrs[128];
  guint            n;
  guint            id;

  add_mappings_as (unwinder, getpid (), ids, -1);
  sysprof_dwarf_unwinder_fork (unwinder, getpid (), 4000000);
  test_unwind_chain_a (&snap, 65528);
  g_assert_cmpint (unwind_snapshot (unwinder, getpid (), &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  g_assert_cmpint (unwind_snapshot (unwinder, 4000000, &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);

  id = GPOINTER_TO_UINT (g_hash_table_lookup (ids, exe));
  g_assert_cmpuint (id, !=, 0);
  g_assert_true (sysprof_dwarf_unwinder_add_file (unwinder, id, open (exe, O_RDONLY | O_CLOEXEC), exe, NULL));
  g_assert_cmpint (unwind_snapshot (unwinder, 4000000, &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  g_assert_cmpint (unwind_snapshot (unwinder, getpid (), &snap, addrs, &n), ==, SYSPROF_DWARF_UNWIND_COMPLETE);
  g_free (snap.stack);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/own-stack", test_own_stack);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/short-copy", test_short_copy);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/garbage", test_garbage);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/hostile-files", test_hostile_files);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/forget-and-many", test_forget_and_many);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/truncated-file", test_truncated_file);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/shared-files", test_shared_files);
  g_test_add_func ("/Libsysprof/DwarfUnwinder/replaced-file", test_replaced_file);
  return g_test_run ();
}
