// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-unwinder: unwinds the user stacks of one recording session.
 *
 * Started by the recorder (sysprofd, or a root client recording in-process)
 * with a SOCK_SEQPACKET socket as descriptor 3 and nothing else; speaks the
 * protocol of sysprof-unwind-wire.h on it until the other end closes it.
 *
 * What it parses (ELF files, DWARF CFI, copies of stacks) is controlled by
 * the profiled programs, and its parent is root, so before reading the first
 * message it gives up everything it could lose: every capability (it keeps
 * uid 0 but cannot open a file, so owning root's files gives nothing),
 * no_new_privs, not dumpable (no ptrace by anyone but root), and a seccomp
 * filter that allows reading and writing the descriptors it was given or
 * receives, and memory management without PROT_EXEC; opening files and
 * mapping them fail with EACCES, anything else kills the process.  It refuses to run if any of
 * that fails.  A crash or a kill shows up at the recorder as a closed socket:
 * the session goes on with shorter stacks and says so. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysprof-unwind-server.h"
#include "sysprof-unwind-wire.h"

#define SOCKET_FD 3
/* FILE carries one descriptor; room for a few so that extra ones are
 * received (and closed) rather than left in the kernel's queue. */
#define MAX_FDS 8
/* Heap (and any writable private memory) the helper may use: the states of
 * at most 64 processes with their modules, CFI and inflated sections.  A
 * hostile file that makes libdw allocate more gets ENOMEM, or the helper
 * dies and the recorder restarts it: never the machine's memory. */
#define MAX_DATA_BYTES ((rlim_t) 1 << 30)

static void die (const char *format, ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;

#if defined(__SANITIZE_ADDRESS__)
/* Built with AddressSanitizer (tools/test.sh's build-asan): its leak check
 * at exit stops the world with prctl and ptrace, which the filter forbids
 * (the helper would die of SIGSYS at its end).  The unwinder's leaks are
 * checked in-process, by its unit tests. */
const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "leak_check_at_exit=0";
}
#endif

static void
die (const char *format, ...)
{
  va_list args;

  fputs ("sysprof-unwinder: ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  exit (EXIT_FAILURE);
}

static void
drop_capabilities (void)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct   data[2] = { { 0 } };

  if (syscall (SYS_capset, &header, data) != 0)
    {
      int saved = errno;

      /* Refused (a seccomp filter without capset): fine only if there was
       * nothing to drop. */
      if (syscall (SYS_capget, &header, data) != 0 || data[0].permitted || data[1].permitted || data[0].effective ||
          data[1].effective)
        die ("cannot drop capabilities: %s", g_strerror (saved));
    }
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    die ("cannot clear the ambient capabilities: %s", g_strerror (errno));
}

static void
allow (scmp_filter_ctx ctx, int nr)
{
  int ret = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, nr, 0);

  if (ret != 0)
    die ("seccomp rule for system call %d: %s", nr, g_strerror (-ret));
}

static void
install_filter (void)
{
  /* What glibc's malloc, libelf (pread), libdw and GLib's
   * data structures need, and the socket.  Found by running the test suite
   * under SCMP_ACT_LOG; a new need shows as a killed helper and a warning in
   * the recording, never as a silent widening. */
  static const int allowed[] = {
    SCMP_SYS (read),      SCMP_SYS (pread64),      SCMP_SYS (write),  SCMP_SYS (recvmsg),    SCMP_SYS (sendmsg),
    SCMP_SYS (sendto),    SCMP_SYS (close),        SCMP_SYS (fstat),  SCMP_SYS (newfstatat), SCMP_SYS (lseek),
    SCMP_SYS (fcntl),     SCMP_SYS (dup),          SCMP_SYS (munmap), SCMP_SYS (mremap),     SCMP_SYS (madvise),
    SCMP_SYS (brk),       SCMP_SYS (futex),        SCMP_SYS (getpid), SCMP_SYS (gettid),     SCMP_SYS (clock_gettime),
    SCMP_SYS (getrandom), SCMP_SYS (rt_sigreturn), SCMP_SYS (exit),   SCMP_SYS (exit_group),
  };
  /* KILL (the thread, which is the whole process here), not KILL_PROCESS:
   * libseccomp checks for the latter with the seccomp() system call, which
   * sysprofd's own filter refuses (the filter is then loaded with prctl). */
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_KILL);
  int             ret;

  if (ctx == NULL)
    die ("cannot create a seccomp filter");
  for (guint i = 0; i < G_N_ELEMENTS (allowed); i++)
    allow (ctx, allowed[i]);
  /* Memory, never executable, and never a file: the unwinder reads the
   * files it is handed through pread, because a mapping would cost the
   * whole file against RLIMIT_DATA (privately writable, as libelf maps)
   * and kill the helper with SIGBUS when the file shrinks.  Anonymous
   * memory comes with descriptor -1 (the kernel reads an int: its low 32
   * bits); a descriptor gets EACCES, and libelf falls back to reading. */
  if ((ret = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, SCMP_SYS (mmap), 2, SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
                               SCMP_A4 (SCMP_CMP_MASKED_EQ, 0xffffffff, 0xffffffff))) ||
      (ret = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EACCES), SCMP_SYS (mmap), 2,
                               SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, 0), SCMP_A4 (SCMP_CMP_LT, 0xffffffff))) ||
      (ret =
           seccomp_rule_add (ctx, SCMP_ACT_ALLOW, SCMP_SYS (mprotect), 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, 0))))
    die ("seccomp rule for mmap: %s", g_strerror (-ret));
  /* libdw may look for files by name (debug files, never found here), and
   * opening a file's DWARF (dwarf_begin_elf, for .debug_frame) takes the
   * realpath of /proc/self/fd/N for its directory: an error, not a kill. */
  if ((ret = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EACCES), SCMP_SYS (openat), 0)) ||
      (ret = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EACCES), SCMP_SYS (open), 0)) ||
      (ret = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EACCES), SCMP_SYS (readlink), 0)) ||
      (ret = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EACCES), SCMP_SYS (readlinkat), 0)))
    die ("seccomp rule for open: %s", g_strerror (-ret));
  if ((ret = seccomp_load (ctx)) != 0)
    die ("cannot load the seccomp filter: %s", g_strerror (-ret));
  seccomp_release (ctx);
}

static void
set_limit (int resource, const char *what, rlim_t value)
{
  struct rlimit limit = { value, value };

  if (setrlimit (resource, &limit) != 0)
    die ("cannot limit %s: %s", what, g_strerror (errno));
}

static void
confine (void)
{
  struct stat st;

  if (fstat (SOCKET_FD, &st) != 0 || !S_ISSOCK (st.st_mode))
    die ("descriptor %d is not the recorder's socket (this program is started by sysprofd)", SOCKET_FD);
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    die ("cannot make the process non-dumpable: %s", g_strerror (errno));
  drop_capabilities ();
  /* Without CAP_SYS_RESOURCE (just dropped) these only ever go down. */
#if !defined(__SANITIZE_ADDRESS__)
  /* (AddressSanitizer's shadow, writable private memory of terabytes, is
   * over any such limit already.) */
  set_limit (RLIMIT_DATA, "its memory", MAX_DATA_BYTES);
#endif
  set_limit (RLIMIT_FSIZE, "the files it writes", 0);
  set_limit (RLIMIT_CORE, "its core dumps", 0);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    die ("cannot set no_new_privs: %s", g_strerror (errno));
  install_filter ();
}

int
main (int argc, char *argv[])
{
  g_autoptr (SysprofUnwindServer) server = NULL;
  static guint8 msg[SYSPROF_UNWIND_MAX_MESSAGE];
  static guint8 reply[SYSPROF_UNWIND_SERVER_REPLY_SIZE];

  (void) argv;
  if (argc != 1)
    {
      fprintf (stderr, "Usage: sysprof-unwinder (started by sysprofd with its socket as descriptor 3)\n");
      return 2;
    }

  /* Everything that may open a file happens before the filter: libelf's
   * and libdw's initialization (elf_version), GLib's. */
  server = sysprof_unwind_server_new ();
  confine ();

  for (;;)
    {
      union
      {
        struct cmsghdr hdr;
        char           buf[CMSG_SPACE (sizeof (int) * MAX_FDS)];
      } control;
      struct iovec  iov = { msg, sizeof msg };
      struct msghdr mh = { 0 };
      int           fds[MAX_FDS];
      guint         n_fds = 0;
      ssize_t       n;
      gsize         reply_len;

      mh.msg_iov = &iov;
      mh.msg_iovlen = 1;
      mh.msg_control = control.buf;
      mh.msg_controllen = sizeof control.buf;
      n = recvmsg (SOCKET_FD, &mh, MSG_CMSG_CLOEXEC);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("reading from the recorder: %s", g_strerror (errno));
      if (n == 0)
        return EXIT_SUCCESS;

      for (struct cmsghdr *c = CMSG_FIRSTHDR (&mh); c != NULL; c = CMSG_NXTHDR (&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
          {
            guint count = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);

            for (guint i = 0; i < count && n_fds < MAX_FDS; i++)
              memcpy (&fds[n_fds++], CMSG_DATA (c) + i * sizeof (int), sizeof (int));
          }
      /* A cut datagram is not the message it claims to be. */
      if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
        n = 0;

      reply_len = sysprof_unwind_server_handle (server, msg, (gsize) n, fds, n_fds, reply);
      if (reply_len > 0 && send (SOCKET_FD, reply, reply_len, MSG_NOSIGNAL) < 0)
        {
          if (errno == EPIPE || errno == ECONNRESET)
            return EXIT_SUCCESS;
          die ("writing to the recorder: %s", g_strerror (errno));
        }
    }
}
