// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysprof-proc-open-private.h"
#include "sysprof-unwind-client-private.h"

/* Distinct files handed to one helper at most (it holds a descriptor each). */
#define MAX_FILES 8192

typedef struct
{
  guint64 ino;
  guint32 maj;
  guint32 min;
  /* For MMAP records without inode (kernels before 3.16): the path. */
  char *path;
} FileKey;

struct _SysprofUnwindClient
{
  GSubprocess            *helper;
  GPid                    helper_pid;
  int                     fd;
  SysprofUnwindFramesFunc func;
  gpointer                user_data;

  /* FileKey -> file id (guint); the ids of files the helper has. */
  GHashTable *files;
  guint32     next_file_id;
  /* pid -> TRUE: processes whose mappings were sent since their exec. */
  GHashTable *processes;
  /* pid -> time (gint64, in a pointer) of its latest exec or exit: the
   * rings of different CPUs are drained one after another, so the FORK of
   * a child can come after records of the program it exec'd since. */
  GHashTable *changed;
  /* seq of each sample sent, oldest first. */
  GQueue pending;

  /* The vDSO's image, as a file (0: not sent yet, G_MAXUINT32: none). */
  guint32 vdso_file_id;

  char *failure;
  /* Scratch for one SAMPLE datagram. */
  guint8 *buf;
};

static guint
file_key_hash (gconstpointer data)
{
  const FileKey *key = data;

  if (key->path != NULL)
    return g_str_hash (key->path);
  return (guint) (key->ino ^ (key->ino >> 32)) ^ (key->maj << 20) ^ key->min;
}

static gboolean
file_key_equal (gconstpointer a, gconstpointer b)
{
  const FileKey *ka = a;
  const FileKey *kb = b;

  if ((ka->path == NULL) != (kb->path == NULL))
    return FALSE;
  if (ka->path != NULL)
    return strcmp (ka->path, kb->path) == 0;
  return ka->ino == kb->ino && ka->maj == kb->maj && ka->min == kb->min;
}

static void
file_key_free (gpointer data)
{
  FileKey *key = data;

  g_free (key->path);
  g_free (key);
}

/* Failure ------------------------------------------------------------------ */

static void
answer_pending_as_failed (SysprofUnwindClient *self)
{
  while (!g_queue_is_empty (&self->pending))
    {
      guint64 seq = (guint64) GPOINTER_TO_SIZE (g_queue_pop_head (&self->pending));

      self->func (seq, SYSPROF_UNWIND_STATUS_FAILED, NULL, 0, self->user_data);
    }
}

static void fail (SysprofUnwindClient *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
fail (SysprofUnwindClient *self, const char *format, ...)
{
  va_list args;

  if (self->failure != NULL)
    return;
  va_start (args, format);
  self->failure = g_strdup_vprintf (format, args);
  va_end (args);
  if (self->fd >= 0)
    {
      close (self->fd);
      self->fd = -1;
    }
  if (self->helper != NULL)
    g_subprocess_force_exit (self->helper);
  answer_pending_as_failed (self);
}

/* The helper's end, told as an exit status when it has one. */
static void
fail_with_exit (SysprofUnwindClient *self, const char *what)
{
  if (self->helper != NULL && g_subprocess_wait (self->helper, NULL, NULL) &&
      g_subprocess_get_if_signaled (self->helper))
    {
      int sig = g_subprocess_get_term_sig (self->helper);

      fail (self, "the unwinding helper %s (killed by signal %d%s)", what, sig,
            sig == SIGSYS ? ": a system call outside its seccomp filter" : "");
    }
  else if (self->helper != NULL && g_subprocess_get_if_exited (self->helper))
    fail (self, "the unwinding helper %s (exit status %d)", what, g_subprocess_get_exit_status (self->helper));
  else
    fail (self, "the unwinding helper %s", what);
}

/* Life ---------------------------------------------------------------------- */

SysprofUnwindClient *
_sysprof_unwind_client_new (const char *helper_path, SysprofUnwindFramesFunc func, gpointer user_data, GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (SysprofUnwindClient) self = NULL;
  const char *argv[] = { helper_path, NULL };
  const char *empty_env[] = { NULL };
  int         pair[2];

  g_return_val_if_fail (helper_path != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create the unwinding helper's socket: %s",
                   g_strerror (saved));
      return NULL;
    }

  self = g_new0 (SysprofUnwindClient, 1);
  self->fd = pair[0];
  self->func = func;
  self->user_data = user_data;
  self->files = g_hash_table_new_full (file_key_hash, file_key_equal, file_key_free, NULL);
  self->processes = g_hash_table_new (NULL, NULL);
  self->changed = g_hash_table_new (NULL, NULL);
  self->next_file_id = 1;
  self->buf = g_malloc (SYSPROF_UNWIND_MAX_MESSAGE);
  g_queue_init (&self->pending);

  /* Nothing of ours but the socket, and an empty environment. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE);
  g_subprocess_launcher_set_environ (launcher, (char **) empty_env);
  g_subprocess_launcher_take_fd (launcher, pair[1], 3);
  self->helper = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (self->helper == NULL)
    {
      g_prefix_error (error, "Cannot start the unwinding helper %s: ", helper_path);
      return NULL;
    }
  self->helper_pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (self->helper), NULL, 10);
  if (fcntl (self->fd, F_SETFL, O_NONBLOCK) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot set up the unwinding helper's socket: %s",
                   g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
_sysprof_unwind_client_free (SysprofUnwindClient *self)
{
  if (self == NULL)
    return;
  answer_pending_as_failed (self);
  if (self->fd >= 0)
    close (self->fd);
  if (self->helper != NULL)
    {
      /* It exits at the end of its socket; one stuck in a hostile file's
       * CFI must not hold the session. */
      g_subprocess_force_exit (self->helper);
      g_subprocess_wait (self->helper, NULL, NULL);
      g_object_unref (self->helper);
    }
  g_hash_table_unref (self->files);
  g_hash_table_unref (self->processes);
  g_hash_table_unref (self->changed);
  g_free (self->failure);
  g_free (self->buf);
  g_free (self);
}

const char *
_sysprof_unwind_client_get_failure (SysprofUnwindClient *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->failure;
}

guint
_sysprof_unwind_client_get_n_pending (SysprofUnwindClient *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->pending.length;
}

GPid
_sysprof_unwind_client_get_helper_pid (SysprofUnwindClient *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->failure ? 0 : self->helper_pid;
}

/* The socket ------------------------------------------------------------------ */

/* Reads every answer available now; FALSE once the helper failed. */
static gboolean
read_answers (SysprofUnwindClient *self)
{
  guint8 reply[sizeof (SysprofUnwindFrames) + sizeof (guint64) * SYSPROF_UNWIND_MAX_FRAMES];

  while (self->failure == NULL)
    {
      SysprofUnwindFrames frames;
      guint64             addrs[SYSPROF_UNWIND_MAX_FRAMES];
      guint64             expected;
      ssize_t             n = recv (self->fd, reply, sizeof reply, MSG_DONTWAIT | MSG_TRUNC);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return TRUE;
      if (n <= 0)
        {
          fail_with_exit (self, "stopped");
          return FALSE;
        }
      if ((gsize) n < sizeof frames || (gsize) n > sizeof reply)
        {
          fail (self, "the unwinding helper sent a malformed answer (%zd bytes)", n);
          return FALSE;
        }
      memcpy (&frames, reply, sizeof frames);
      if (g_queue_is_empty (&self->pending))
        {
          fail (self, "the unwinding helper answered a sample it was not sent");
          return FALSE;
        }
      expected = (guint64) GPOINTER_TO_SIZE (g_queue_peek_head (&self->pending));
      if (frames.type != SYSPROF_UNWIND_MSG_FRAMES || frames.seq != expected ||
          frames.status > SYSPROF_UNWIND_STATUS_FAILED || frames.n_addrs > SYSPROF_UNWIND_MAX_FRAMES ||
          (gsize) n != sizeof frames + frames.n_addrs * sizeof (guint64))
        {
          fail (self, "the unwinding helper sent a malformed answer");
          return FALSE;
        }
      memcpy (addrs, reply + sizeof frames, frames.n_addrs * sizeof (guint64));
      g_queue_pop_head (&self->pending);
      self->func (frames.seq, frames.status, addrs, frames.n_addrs, self->user_data);
    }
  return FALSE;
}

/* Waits until the socket is ready for @events, reading answers meanwhile;
 * FALSE once the helper failed (timed out included). */
static gboolean
wait_for (SysprofUnwindClient *self, short events, gint64 hard_deadline)
{
  gint64 deadline = g_get_monotonic_time () + SYSPROF_UNWIND_CLIENT_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while (self->failure == NULL)
    {
      struct pollfd pfd = { self->fd, events | POLLIN, 0 };
      gint64        left = (deadline - g_get_monotonic_time ()) / G_TIME_SPAN_MILLISECOND;
      guint         before = self->pending.length;
      int           ret;

      if (hard_deadline != 0 && g_get_monotonic_time () >= hard_deadline)
        return FALSE;
      if (hard_deadline != 0)
        left = MIN (left, (hard_deadline - g_get_monotonic_time ()) / G_TIME_SPAN_MILLISECOND + 1);
      if (left <= 0)
        {
          fail (self, "the unwinding helper did not answer within %d ms and was stopped",
                SYSPROF_UNWIND_CLIENT_TIMEOUT_MS);
          return FALSE;
        }
      ret = poll (&pfd, 1, (int) left);
      if (ret < 0 && errno == EINTR)
        continue;
      if (ret < 0)
        {
          fail (self, "cannot wait for the unwinding helper: %s", g_strerror (errno));
          return FALSE;
        }
      if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
        {
          if (!read_answers (self))
            return FALSE;
          /* Progress: the helper is alive. */
          if (self->pending.length < before)
            deadline = g_get_monotonic_time () + SYSPROF_UNWIND_CLIENT_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;
        }
      if ((events & POLLOUT) && (pfd.revents & POLLOUT))
        return TRUE;
      if (events == 0 && self->pending.length == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
send_message (SysprofUnwindClient *self, const void *data, gsize len, int fd_to_pass)
{
  while (self->failure == NULL)
    {
      union
      {
        struct cmsghdr hdr;
        char           buf[CMSG_SPACE (sizeof (int))];
      } control;
      struct iovec  iov = { (void *) data, len };
      struct msghdr mh = { 0 };
      ssize_t       n;

      mh.msg_iov = &iov;
      mh.msg_iovlen = 1;
      if (fd_to_pass >= 0)
        {
          struct cmsghdr *c;

          memset (&control, 0, sizeof control);
          mh.msg_control = control.buf;
          mh.msg_controllen = sizeof control.buf;
          c = CMSG_FIRSTHDR (&mh);
          c->cmsg_level = SOL_SOCKET;
          c->cmsg_type = SCM_RIGHTS;
          c->cmsg_len = CMSG_LEN (sizeof (int));
          memcpy (CMSG_DATA (c), &fd_to_pass, sizeof (int));
        }
      n = sendmsg (self->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0)
        return TRUE;
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
        {
          if (!wait_for (self, POLLOUT, 0))
            return FALSE;
          continue;
        }
      if (errno == EPIPE || errno == ECONNRESET)
        fail_with_exit (self, "stopped");
      else
        fail (self, "cannot write to the unwinding helper: %s", g_strerror (errno));
      return FALSE;
    }
  return FALSE;
}

/* Files and mappings -------------------------------------------------------- */

/* @path as @pid sees it, resolved inside its root: a symbolic link cannot
 * lead out of the process's view, and the file must be the inode it maps.
 * Falls back to our own view when the process is gone (same check). */
static int
open_mapped_file (gint32 pid, const char *path, guint64 ino)
{
  struct stat st;
  int         fd = _sysprof_open_in_process_root (pid, path, FALSE);

  if (fd < 0)
    fd = _sysprof_open_in_process_root (0, path, FALSE);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (ino != 0 && (guint64) st.st_ino != ino))
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* The id of the file, sending it first if the helper does not have it; 0
 * when it cannot be opened. */
static guint32
ensure_file (SysprofUnwindClient *self, gint32 pid, guint32 maj, guint32 min, guint64 ino, const char *path)
{
  FileKey             lookup = { ino, maj, min, ino == 0 ? (char *) path : NULL };
  SysprofUnwindFile   msg = { 0 };
  g_autofree FileKey *key = NULL;
  g_autofree char    *base = NULL;
  gpointer            id;
  int                 fd;

  if (g_hash_table_lookup_extended (self->files, &lookup, NULL, &id))
    return GPOINTER_TO_UINT (id);
  if (g_hash_table_size (self->files) >= MAX_FILES || (fd = open_mapped_file (pid, path, ino)) < 0)
    return 0;

  msg.type = SYSPROF_UNWIND_MSG_FILE;
  msg.file_id = self->next_file_id++;
  base = g_path_get_basename (path);
  g_strlcpy (msg.name, base, sizeof msg.name);
  if (!send_message (self, &msg, sizeof msg, fd))
    {
      close (fd);
      return 0;
    }
  close (fd);
  key = g_new0 (FileKey, 1);
  *key = lookup;
  key->path = g_strdup (lookup.path);
  g_hash_table_insert (self->files, g_steal_pointer (&key), GUINT_TO_POINTER (msg.file_id));
  return msg.file_id;
}

/* The kernel maps the same vDSO image into every 64-bit process: ours,
 * copied into a memfd, stands for theirs (clock_gettime() runs there, and
 * its CFI leads back to the caller). */
static guint32
ensure_vdso (SysprofUnwindClient *self)
{
  g_autofree char  *maps = NULL;
  SysprofUnwindFile msg = { 0 };
  guint64           base = getauxval (AT_SYSINFO_EHDR);
  guint64           size = 0;
  int               fd;

  if (self->vdso_file_id != 0)
    return self->vdso_file_id == G_MAXUINT32 ? 0 : self->vdso_file_id;
  self->vdso_file_id = G_MAXUINT32;
  if (base == 0 || !g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    return 0;
  for (char *line = maps; line != NULL && *line; line = strchr (line, '\n') ? strchr (line, '\n') + 1 : NULL)
    {
      guint64 start, end;

      if (sscanf (line, "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x", &start, &end) == 2 && start == base)
        size = end - start;
    }
  if (size == 0 || size > 1024 * 1024 || (fd = memfd_create ("vdso", MFD_CLOEXEC)) < 0)
    return 0;
  if (write (fd, (gconstpointer) (guintptr) base, size) != (gssize) size)
    {
      close (fd);
      return 0;
    }
  /* The helper gets it read-only, as every file it is handed. */
  {
    g_autofree char *self_path = g_strdup_printf ("/proc/self/fd/%d", fd);
    int              ro = open (self_path, O_RDONLY | O_CLOEXEC);

    close (fd);
    if ((fd = ro) < 0)
      return 0;
  }
  msg.type = SYSPROF_UNWIND_MSG_FILE;
  msg.file_id = self->next_file_id++;
  g_strlcpy (msg.name, "[vdso]", sizeof msg.name);
  if (send_message (self, &msg, sizeof msg, fd))
    self->vdso_file_id = msg.file_id;
  close (fd);
  return self->vdso_file_id == G_MAXUINT32 ? 0 : self->vdso_file_id;
}

static void
send_map (SysprofUnwindClient *self, gint32 pid, guint64 start, guint64 end, guint64 pgoff, guint32 file_id)
{
  SysprofUnwindMap msg = { 0 };

  msg.type = SYSPROF_UNWIND_MSG_MAP;
  msg.pid = pid;
  msg.file_id = file_id;
  msg.start = start;
  msg.end = end;
  msg.pgoff = pgoff;
  send_message (self, &msg, sizeof msg, -1);
}

/* Everything executable @pid maps now, from /proc/PID/maps:
 * "START-END PERMS OFFSET MAJ:MIN INODE PATH". */
static void
read_process_maps (SysprofUnwindClient *self, gint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/maps", pid);
  g_autofree char *contents = NULL;
  char            *line, *next;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return;
  for (line = contents; line != NULL && *line != '\0'; line = next)
    {
      guint64 start, end, pgoff, ino;
      guint   maj, min;
      char    perms[5];
      int     consumed = 0;
      char   *file;

      if ((next = strchr (line, '\n')) != NULL)
        *next++ = '\0';
      if (sscanf (line,
                  "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %4s %" G_GINT64_MODIFIER
                  "x %x:%x %" G_GINT64_MODIFIER "u %n",
                  &start, &end, perms, &pgoff, &maj, &min, &ino, &consumed) != 7 ||
          consumed == 0 || perms[2] != 'x')
        continue;
      file = line + consumed;
      if (strcmp (file, "[vdso]") == 0 && self->failure == NULL)
        {
          guint32 id = ensure_vdso (self);

          if (id != 0)
            send_map (self, pid, start, end, 0, id);
          continue;
        }
      /* A file deleted since it was mapped cannot be found by its name. */
      if (file[0] != '/' || g_str_has_suffix (file, " (deleted)"))
        continue;
      if ((self->failure == NULL) && start < end)
        {
          guint32 id = ensure_file (self, pid, maj, min, ino, file);

          if (id != 0)
            send_map (self, pid, start, end, pgoff, id);
        }
    }
}

static void
ensure_process (SysprofUnwindClient *self, gint32 pid)
{
  if (g_hash_table_contains (self->processes, GINT_TO_POINTER (pid)))
    return;
  g_hash_table_add (self->processes, GINT_TO_POINTER (pid));
  read_process_maps (self, pid);
}

void
_sysprof_unwind_client_add_map (SysprofUnwindClient *self,
                                gint32               pid,
                                guint64              start,
                                guint64              end,
                                guint64              pgoff,
                                guint32              maj,
                                guint32              min,
                                guint64              ino,
                                const char          *filename)
{
  guint32 id;

  g_return_if_fail (self != NULL);
  g_return_if_fail (filename != NULL);

  if (self->failure != NULL || start >= end)
    return;
  if (strcmp (filename, "[vdso]") == 0)
    {
      ensure_process (self, pid);
      if ((id = ensure_vdso (self)) != 0)
        send_map (self, pid, start, end, 0, id);
      return;
    }
  if (filename[0] != '/')
    return;
  ensure_process (self, pid);
  if ((id = ensure_file (self, pid, maj, min, ino, filename)) != 0)
    send_map (self, pid, start, end, pgoff, id);
}

void
_sysprof_unwind_client_fork (SysprofUnwindClient *self, gint32 parent, gint32 child, gint64 time)
{
  SysprofUnwindFork msg = { SYSPROF_UNWIND_MSG_FORK, parent, child };
  gpointer          changed;

  g_return_if_fail (self != NULL);

  if (self->failure != NULL || parent <= 0 || parent == child)
    return;
  /* Late: the child's own records came first (it is known), or it has
   * exec'd or exited since (its parent's image is not what it runs). */
  if (g_hash_table_contains (self->processes, GINT_TO_POINTER (child)) ||
      (g_hash_table_lookup_extended (self->changed, GINT_TO_POINTER (child), NULL, &changed) &&
       (gint64) GPOINTER_TO_SIZE (changed) >= time))
    return;
  ensure_process (self, parent);
  /* The child is known from now on: reading its /proc maps after an exec
   * we have not seen yet would give the new image's, not the ones it runs. */
  g_hash_table_add (self->processes, GINT_TO_POINTER (child));
  send_message (self, &msg, sizeof msg, -1);
}

void
_sysprof_unwind_client_forget (SysprofUnwindClient *self, gint32 pid, gint64 time)
{
  SysprofUnwindForget msg = { SYSPROF_UNWIND_MSG_FORGET, pid };

  g_return_if_fail (self != NULL);

  g_hash_table_insert (self->changed, GINT_TO_POINTER (pid), GSIZE_TO_POINTER ((gsize) time));
  if (!g_hash_table_remove (self->processes, GINT_TO_POINTER (pid)) || self->failure != NULL)
    return;
  send_message (self, &msg, sizeof msg, -1);
}

/* Samples --------------------------------------------------------------------- */

void
_sysprof_unwind_client_submit (SysprofUnwindClient *self,
                               guint64              seq,
                               gint32               pid,
                               gint32               tid,
                               const guint64       *regs,
                               const guint8        *stack,
                               gsize                stack_len)
{
  SysprofUnwindSample header = { 0 };

  g_return_if_fail (self != NULL);
  g_return_if_fail (regs != NULL);
  g_return_if_fail (stack != NULL || stack_len == 0);

  if (self->failure != NULL)
    {
      self->func (seq, SYSPROF_UNWIND_STATUS_FAILED, NULL, 0, self->user_data);
      return;
    }
  ensure_process (self, pid);
  /* Sending the process's files may have found the helper gone. */
  if (self->failure != NULL)
    {
      self->func (seq, SYSPROF_UNWIND_STATUS_FAILED, NULL, 0, self->user_data);
      return;
    }

  stack_len = MIN (stack_len, SYSPROF_UNWIND_MAX_STACK);
  header.type = SYSPROF_UNWIND_MSG_SAMPLE;
  header.pid = pid;
  header.tid = tid;
  header.stack_len = (guint32) stack_len;
  header.seq = seq;
  memcpy (header.regs, regs, sizeof header.regs);
  memcpy (self->buf, &header, sizeof header);
  if (stack_len > 0)
    memcpy (self->buf + sizeof header, stack, stack_len);

  g_queue_push_tail (&self->pending, GSIZE_TO_POINTER ((gsize) seq));
  if (!send_message (self, self->buf, sizeof header + stack_len, -1))
    return; /* answered as failed by fail() */
  /* Answers as they come, so neither side's buffer fills. */
  read_answers (self);
}

void
_sysprof_unwind_client_flush (SysprofUnwindClient *self)
{
  g_return_if_fail (self != NULL);

  if (self->pending.length > 0)
    wait_for (self, 0, 0);
}

guint
_sysprof_unwind_client_finish (SysprofUnwindClient *self, guint budget_ms)
{
  guint left;

  g_return_val_if_fail (self != NULL, 0);

  if (self->pending.length > 0)
    wait_for (self, 0, g_get_monotonic_time () + (gint64) budget_ms * G_TIME_SPAN_MILLISECOND);
  if ((left = self->pending.length) > 0)
    fail (self, "the unwinding helper still had %u samples to unwind %u ms after the end of the recording", left,
          budget_ms);
  return left;
}
