// SPDX-License-Identifier: GPL-3.0-or-later
/* run-with-syscall-filter [OPTION...] -- PROGRAM [ARG...]
 * run-with-syscall-filter --self-test
 *
 * Installs the seccomp filters systemd 252 derives from a unit's
 * SystemCallFilter= (an allow list), SystemCallErrorNumber=,
 * RestrictAddressFamilies= (an allow list), RestrictNamespaces=yes,
 * MemoryDenyWriteExecute=, RestrictRealtime=, LockPersonality= and
 * RestrictSUIDSGID=, then execs PROGRAM, so that tools/with-sysprofd.sh can
 * run sysprofd under the restrictions of data/systemd/sysprof3.service.in
 * without systemd.  Like systemd, every setting is its own filter and the
 * allow list is loaded last, just before the exec; the kernel applies the
 * strictest answer of all of them.  Every filter covers the native
 * architecture only, so a system call of another ABI kills the process
 * (SystemCallArchitectures=native).
 *
 * The allow list is a file of system call names, one per line ('#' starts a
 * comment): the expansion of the unit's groups, which the caller does (with
 * `systemd-analyze syscall-filter`).  Names libseccomp does not know are
 * skipped, as systemd skips them; --verbose lists them.
 *
 * --self-test checks every filter against a control run without it, in
 * child processes, and needs no privilege. */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "run-with-syscall-filter"

typedef struct
{
  int   *allow; /* system call numbers; NULL: no allow list */
  size_t n_allow;
  int    error_number; /* 0: kill the process */
  int   *families;     /* address families; NULL: no restriction */
  size_t n_families;
  bool   restrict_namespaces;
  bool   memory_deny_write_execute;
  bool   restrict_realtime;
  bool   lock_personality;
  bool   restrict_suid_sgid;
  bool   verbose;
} Config;

static void fail (const char *format, ...) __attribute__ ((format (printf, 1, 2), noreturn));

static void
fail (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  fprintf (stderr, PROG ": ");
  vfprintf (stderr, format, args);
  fputc ('\n', stderr);
  va_end (args);
  exit (127);
}

static void
append_int (int **array, size_t *n, int value)
{
  int *grown = realloc (*array, (*n + 1) * sizeof **array);

  if (grown == NULL)
    fail ("out of memory");
  grown[(*n)++] = value;
  *array = grown;
}

/* An empty list until something is appended: still a list, which denies all. */
static int *
empty_list (void)
{
  int *list = calloc (1, sizeof *list);

  if (list == NULL)
    fail ("out of memory");
  return list;
}

static void
allow_name (Config *config, const char *name)
{
  int nr = seccomp_syscall_resolve_name (name);

  if (nr == __NR_SCMP_ERROR)
    {
      if (config->verbose)
        fprintf (stderr, PROG ": libseccomp does not know %s, skipped\n", name);
      return;
    }
  append_int (&config->allow, &config->n_allow, nr);
}

static void
read_allow_file (Config *config, const char *path)
{
  static const char space[] = " \t\r\n";
  FILE             *file = fopen (path, "re");
  char             *line = NULL;
  size_t            size = 0;

  if (file == NULL)
    fail ("%s: %s", path, strerror (errno));
  if (config->allow == NULL)
    config->allow = empty_list ();
  while (getline (&line, &size, file) >= 0)
    {
      char *name;
      char *end;

      if ((end = strchr (line, '#')))
        *end = 0;
      name = line + strspn (line, space);
      end = name + strcspn (name, space);
      if (end[strspn (end, space)] != 0)
        fail ("%s: more than one name on the line \"%s\"", path, name);
      *end = 0;
      if (*name)
        allow_name (config, name);
    }
  free (line);
  fclose (file);
}

static int
parse_errno (const char *text)
{
  static const struct
  {
    const char *name;
    int         value;
  } names[] = {
    { "EPERM", EPERM }, { "EACCES", EACCES }, { "ENOSYS", ENOSYS }, { "EINVAL", EINVAL }, { "EIO", EIO },
  };
  char *end;
  long  value;

  /* No SystemCallErrorNumber=: systemd kills the process. */
  if (strcmp (text, "kill") == 0)
    return 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp (text, names[i].name) == 0)
      return names[i].value;
  value = strtol (text, &end, 10);
  if (*text == 0 || *end != 0 || value <= 0 || value > 4095)
    fail ("--errno: \"%s\" is not kill, an errno name (EPERM, EACCES, ENOSYS, EINVAL, EIO) or a number", text);
  return (int) value;
}

static void
parse_families (Config *config, const char *text)
{
  static const struct
  {
    const char *name;
    int         value;
  } names[] = {
    { "AF_UNIX", AF_UNIX },       { "AF_INET", AF_INET },     { "AF_INET6", AF_INET6 },
    { "AF_NETLINK", AF_NETLINK }, { "AF_PACKET", AF_PACKET },
  };
  char *copy = strdup (text);
  char *save = NULL;

  if (copy == NULL)
    fail ("out of memory");
  if (config->families == NULL)
    config->families = empty_list ();
  /* "none": no family at all. */
  if (strcmp (text, "none") == 0)
    {
      free (copy);
      return;
    }
  for (char *name = strtok_r (copy, ", ", &save); name; name = strtok_r (NULL, ", ", &save))
    {
      size_t i;

      for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp (name, names[i].name) == 0)
          break;
      if (i == sizeof names / sizeof names[0])
        fail ("--address-families: unknown family %s", name);
      append_int (&config->families, &config->n_families, names[i].value);
    }
  free (copy);
}

static bool
contains (const int *array, size_t n, int value)
{
  for (size_t i = 0; i < n; i++)
    if (array[i] == value)
      return true;
  return false;
}

static scmp_filter_ctx
new_filter (uint32_t default_action)
{
  scmp_filter_ctx ctx = seccomp_init (default_action);

  if (ctx == NULL)
    fail ("seccomp_init failed");
  /* no_new_privs is the caller's business (NoNewPrivileges=), see load();
   * and the kernel's errno, not libseccomp's ECANCELED, tells why a load failed. */
  if (seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 || seccomp_attr_set (ctx, SCMP_FLTATR_API_SYSRAWRC, 1) < 0)
    fail ("cannot set the filter attributes");
  return ctx;
}

static void
add_rule (scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n_args, ...)
{
  struct scmp_arg_cmp args[2];
  va_list             ap;
  int                 r;

  va_start (ap, n_args);
  for (unsigned i = 0; i < n_args && i < 2; i++)
    args[i] = va_arg (ap, struct scmp_arg_cmp);
  va_end (ap);
  r = seccomp_rule_add_array (ctx, action, nr, n_args, args);
  /* -EDOM: the call does not exist on this architecture (nothing to filter). */
  if (r < 0 && r != -EDOM)
    {
      char *name = seccomp_syscall_resolve_num_arch (SCMP_ARCH_NATIVE, nr);
      fail ("cannot add a rule for %s: %s", name ? name : "?", strerror (-r));
    }
}

static void
load (scmp_filter_ctx ctx, const char *what)
{
  int r = seccomp_load (ctx);

  /* Without no_new_privs only CAP_SYS_ADMIN may install a filter; systemd
   * then sets no_new_privs itself, and so do we. */
  if (r == -EACCES)
    {
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail ("cannot set no_new_privs: %s", strerror (errno));
      r = seccomp_load (ctx);
    }
  if (r < 0)
    fail ("cannot load the %s filter: %s", what, strerror (-r));
  seccomp_release (ctx);
}

static void
apply (const Config *config)
{
  scmp_filter_ctx ctx;

  if (config->families)
    {
      /* RestrictAddressFamilies=: socket() of any other family fails with
       * EAFNOSUPPORT.  socketpair() and accept() are left alone, as by systemd. */
      int max = 0;

      ctx = new_filter (SCMP_ACT_ALLOW);
      for (size_t i = 0; i < config->n_families; i++)
        max = config->families[i] > max ? config->families[i] : max;
      for (int af = 0; af <= max; af++)
        if (!contains (config->families, config->n_families, af))
          add_rule (ctx, SCMP_ACT_ERRNO (EAFNOSUPPORT), SCMP_SYS (socket), 1, SCMP_A0 (SCMP_CMP_EQ, af));
      add_rule (ctx, SCMP_ACT_ERRNO (EAFNOSUPPORT), SCMP_SYS (socket), 1, SCMP_A0 (SCMP_CMP_GT, max));
      load (ctx, "RestrictAddressFamilies");
    }

  if (config->restrict_namespaces)
    {
      static const int flags[] = { CLONE_NEWCGROUP, CLONE_NEWIPC,  CLONE_NEWNET, CLONE_NEWNS,
                                   CLONE_NEWPID,    CLONE_NEWUSER, CLONE_NEWUTS };

      ctx = new_filter (SCMP_ACT_ALLOW);
      /* clone3() hides its flags in a struct: ENOSYS makes glibc fall back to clone(). */
      add_rule (ctx, SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (clone3), 0);
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (setns), 0);
      for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        {
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (unshare), 1,
                    SCMP_A0 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) flags[i], (scmp_datum_t) flags[i]));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (clone), 1,
                    SCMP_A0 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) flags[i], (scmp_datum_t) flags[i]));
        }
      load (ctx, "RestrictNamespaces");
    }

  if (config->memory_deny_write_execute)
    {
      ctx = new_filter (SCMP_ACT_ALLOW);
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (mmap), 1,
                SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC | PROT_WRITE));
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (mprotect), 1,
                SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (pkey_mprotect), 1,
                SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (shmat), 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
      load (ctx, "MemoryDenyWriteExecute");
    }

  if (config->restrict_realtime)
    {
      /* SCHED_OTHER (0), SCHED_BATCH (3) and SCHED_IDLE (5) stay allowed. */
      ctx = new_filter (SCMP_ACT_ALLOW);
      for (int policy = 0; policy < SCHED_IDLE; policy++)
        if (policy != SCHED_OTHER && policy != SCHED_BATCH)
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (sched_setscheduler), 1,
                    SCMP_A1 (SCMP_CMP_EQ, (scmp_datum_t) policy));
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (sched_setscheduler), 1, SCMP_A1 (SCMP_CMP_GT, SCHED_IDLE));
      load (ctx, "RestrictRealtime");
    }

  if (config->lock_personality)
    {
      /* Only the native personality (the unit sets no Personality=) may be
       * set; systemd 252 refuses even the query 0xffffffff. */
      ctx = new_filter (SCMP_ACT_ALLOW);
      add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (personality), 1, SCMP_A0 (SCMP_CMP_NE, PER_LINUX));
      load (ctx, "LockPersonality");
    }

  if (config->restrict_suid_sgid)
    {
      static const mode_t bits[] = { S_ISUID, S_ISGID };

      ctx = new_filter (SCMP_ACT_ALLOW);
      for (size_t i = 0; i < 2; i++)
        {
          scmp_datum_t m = bits[i];

          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (chmod), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (fchmod), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (fchmodat), 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (mkdir), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (mkdirat), 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (mknod), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (mknodat), 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (creat), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (open), 2, SCMP_A1 (SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT),
                    SCMP_A2 (SCMP_CMP_MASKED_EQ, m, m));
          add_rule (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (openat), 2, SCMP_A2 (SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT),
                    SCMP_A3 (SCMP_CMP_MASKED_EQ, m, m));
        }
      /* The mode of openat2() is in a struct the filter cannot read: systemd
       * refuses the whole call with ENOSYS. */
      add_rule (ctx, SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (openat2), 0);
      load (ctx, "RestrictSUIDSGID");
    }

  /* Last, as close to the exec as possible. */
  if (config->allow)
    {
      uint32_t deny = config->error_number ? SCMP_ACT_ERRNO ((uint32_t) config->error_number) : SCMP_ACT_KILL_PROCESS;

      ctx = new_filter (deny);
      for (size_t i = 0; i < config->n_allow; i++)
        add_rule (ctx, SCMP_ACT_ALLOW, config->allow[i], 0);
      load (ctx, "SystemCallFilter");
    }
}

/* ------------------------------------------------------------------------
 * --self-test: each probe makes one system call and returns its errno (0 on
 * success).  It runs in a child twice: without the filter (the control) and
 * with it; a check passes when the filtered errno is the expected one and the
 * control's is not, so no check passes with a filter that does nothing. */

typedef int (*Probe) (void);

static int
errno_of (long result)
{
  return result < 0 ? errno : 0;
}

static int
probe_getpid (void)
{
  return errno_of (syscall (SYS_getpid));
}

static int
probe_getppid (void)
{
  return errno_of (syscall (SYS_getppid));
}

static int
probe_mmap_wx (void)
{
  void *map = mmap (NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  return map == MAP_FAILED ? errno : 0;
}

static int
probe_mprotect_x (void)
{
  void *page = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (page == MAP_FAILED)
    return 1000 + errno; /* the writable mapping itself must work */
  return errno_of (mprotect (page, 4096, PROT_READ | PROT_EXEC));
}

static int
probe_socket_inet (void)
{
  return errno_of (socket (AF_INET, SOCK_STREAM, 0));
}

static int
probe_socket_unix (void)
{
  return errno_of (socket (AF_UNIX, SOCK_STREAM, 0));
}

/* CLONE_PARENT is not an unshare() flag: the kernel answers EINVAL, the
 * filter (which looks at CLONE_NEWUTS) EPERM, whatever the privileges. */
static int
probe_unshare_uts (void)
{
  return errno_of (unshare (CLONE_NEWUTS | CLONE_PARENT));
}

static int
probe_setns (void)
{
  return errno_of (setns (-1, 0));
}

static int
probe_clone3 (void)
{
  return errno_of (syscall (SYS_clone3, NULL, (size_t) 0));
}

/* Priority 0 is invalid for SCHED_FIFO: EINVAL without the filter. */
static int
probe_sched_fifo (void)
{
  struct sched_param param = { .sched_priority = 0 };

  return errno_of (sched_setscheduler (0, SCHED_FIFO, &param));
}

static int
probe_sched_batch (void)
{
  struct sched_param param = { .sched_priority = 0 };

  return errno_of (sched_setscheduler (0, SCHED_BATCH, &param));
}

static int
probe_personality (void)
{
  return errno_of (personality (PER_LINUX32));
}

static int
probe_personality_same (void)
{
  return errno_of (personality (PER_LINUX));
}

static int
probe_chmod_suid (void)
{
  return errno_of (chmod ("/nonexistent/run-with-syscall-filter", 04755));
}

static int
probe_openat2 (void)
{
  return errno_of (syscall (SYS_openat2, AT_FDCWD, "/", NULL, (size_t) 0));
}

/* The errno @probe ends with in a child, after @config's filters when it is
 * not NULL; -1 when the child died. */
static int
run_probe (const Config *config, Probe probe)
{
  int   status;
  pid_t pid;

  fflush (stdout);
  pid = fork ();

  if (pid < 0)
    fail ("fork: %s", strerror (errno));
  if (pid == 0)
    {
      int e;

      if (config)
        apply (config);
      e = probe ();
      _exit (e > 255 ? 255 : e);
    }
  if (waitpid (pid, &status, 0) < 0)
    fail ("waitpid: %s", strerror (errno));
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static int n_checks;
static int n_failed;

static void
check (const char *what, const Config *config, Probe probe, int expected)
{
  int control = run_probe (NULL, probe);
  int got = run_probe (config, probe);
  int ok = got == expected && control != expected;

  n_checks++;
  if (!ok)
    n_failed++;
  printf ("%s %d - %s: errno %d with the filter (expected %d), %d without\n", ok ? "ok" : "not ok", n_checks, what, got,
          expected, control);
}

/* A call the filter must leave alone: same answer with and without it. */
static void
check_allowed (const char *what, const Config *config, Probe probe)
{
  int control = run_probe (NULL, probe);
  int got = run_probe (config, probe);
  int ok = got == control && got >= 0;

  n_checks++;
  if (!ok)
    n_failed++;
  printf ("%s %d - %s: errno %d with the filter, %d without\n", ok ? "ok" : "not ok", n_checks, what, got, control);
}

static int
self_test (void)
{
  char   path[] = "/tmp/run-with-syscall-filter.XXXXXX";
  int    fd = mkstemp (path);
  FILE  *file = NULL;
  Config allow = { .error_number = EPERM };
  Config allow_eacces = { .error_number = EACCES };
  Config allow_kill = { .error_number = 0 };
  Config families = { 0 };
  Config namespaces = { .restrict_namespaces = true };
  Config mdwe = { .memory_deny_write_execute = true };
  Config realtime = { .restrict_realtime = true };
  Config personality_lock = { .lock_personality = true };
  Config suid = { .restrict_suid_sgid = true };

  /* The list as the harness writes it: comments, blank lines, an unknown name. */
  if (fd < 0 || !(file = fdopen (fd, "w")))
    fail ("%s: %s", path, strerror (errno));
  fprintf (file, "# allowed\n\nexit_group\n  getppid   # trailing comment\nno_such_call_at_all\nmmap\n");
  fclose (file);
  read_allow_file (&allow, path);
  read_allow_file (&allow_eacces, path);
  read_allow_file (&allow_kill, path);
  unlink (path);
  parse_families (&families, "AF_UNIX");

  check ("SystemCallFilter: a call outside the list", &allow, probe_getpid, EPERM);
  check ("SystemCallErrorNumber=EACCES", &allow_eacces, probe_getpid, EACCES);
  check ("no SystemCallErrorNumber=: killed", &allow_kill, probe_getpid, -1);
  check_allowed ("SystemCallFilter: a listed call", &allow, probe_getppid);
  check ("RestrictAddressFamilies=AF_UNIX: AF_INET", &families, probe_socket_inet, EAFNOSUPPORT);
  check_allowed ("RestrictAddressFamilies=AF_UNIX: AF_UNIX", &families, probe_socket_unix);
  check ("RestrictNamespaces: unshare(CLONE_NEWUTS)", &namespaces, probe_unshare_uts, EPERM);
  check ("RestrictNamespaces: setns", &namespaces, probe_setns, EPERM);
  check ("RestrictNamespaces: clone3 falls back", &namespaces, probe_clone3, ENOSYS);
  check ("MemoryDenyWriteExecute: mmap W+X", &mdwe, probe_mmap_wx, EPERM);
  check ("MemoryDenyWriteExecute: mprotect X", &mdwe, probe_mprotect_x, EPERM);
  check ("RestrictRealtime: SCHED_FIFO", &realtime, probe_sched_fifo, EPERM);
  check_allowed ("RestrictRealtime: SCHED_BATCH", &realtime, probe_sched_batch);
  check ("LockPersonality: PER_LINUX32", &personality_lock, probe_personality, EPERM);
  check_allowed ("LockPersonality: PER_LINUX again", &personality_lock, probe_personality_same);
  check ("RestrictSUIDSGID: chmod 04755", &suid, probe_chmod_suid, EPERM);
  check ("RestrictSUIDSGID: openat2", &suid, probe_openat2, ENOSYS);
  printf ("1..%d\n", n_checks);
  return n_failed ? 1 : 0;
}

static void
usage (FILE *out)
{
  fprintf (out, "usage: " PROG " [OPTION...] -- PROGRAM [ARG...]\n"
                "       " PROG " --self-test\n"
                "  --allow-file FILE            SystemCallFilter= allow list: system call names, one a line\n"
                "  --errno NAME|NUMBER|kill     SystemCallErrorNumber= (default EPERM; kill: as without one)\n"
                "  --address-families AF,...    RestrictAddressFamilies= allow list (AF_UNIX, AF_INET, AF_INET6,\n"
                "                               AF_NETLINK, AF_PACKET) or none\n"
                "  --restrict-namespaces        RestrictNamespaces=yes\n"
                "  --memory-deny-write-execute  MemoryDenyWriteExecute=yes\n"
                "  --restrict-realtime          RestrictRealtime=yes\n"
                "  --lock-personality           LockPersonality=yes\n"
                "  --restrict-suid-sgid         RestrictSUIDSGID=yes\n"
                "  --verbose                    name the system calls libseccomp does not know\n");
}

int
main (int argc, char **argv)
{
  Config      config = { .error_number = EPERM };
  const char *allow_file = NULL;
  int         i;

  for (i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (strcmp (arg, "--") == 0)
        {
          i++;
          break;
        }
      else if (strcmp (arg, "--self-test") == 0 && argc == 2)
        return self_test ();
      else if (strcmp (arg, "--allow-file") == 0 && i + 1 < argc)
        allow_file = argv[++i];
      else if (strcmp (arg, "--errno") == 0 && i + 1 < argc)
        config.error_number = parse_errno (argv[++i]);
      else if (strcmp (arg, "--address-families") == 0 && i + 1 < argc)
        parse_families (&config, argv[++i]);
      else if (strcmp (arg, "--restrict-namespaces") == 0)
        config.restrict_namespaces = true;
      else if (strcmp (arg, "--memory-deny-write-execute") == 0)
        config.memory_deny_write_execute = true;
      else if (strcmp (arg, "--restrict-realtime") == 0)
        config.restrict_realtime = true;
      else if (strcmp (arg, "--lock-personality") == 0)
        config.lock_personality = true;
      else if (strcmp (arg, "--restrict-suid-sgid") == 0)
        config.restrict_suid_sgid = true;
      else if (strcmp (arg, "--verbose") == 0)
        config.verbose = true;
      else if (strcmp (arg, "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else
        {
          usage (stderr);
          return 127;
        }
    }
  if (i >= argc)
    {
      usage (stderr);
      return 127;
    }
  /* Read after the options, so that --verbose applies wherever it stands. */
  if (allow_file)
    read_allow_file (&config, allow_file);

  apply (&config);
  execvp (argv[i], argv + i);
  /* Only reached when the exec failed, perhaps because of the filter itself. */
  fprintf (stderr, PROG ": cannot run %s: %s\n", argv[i], strerror (errno));
  return 127;
}
