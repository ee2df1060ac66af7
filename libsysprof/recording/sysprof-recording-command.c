// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofRecording, continued: the launched command (held between fork and
 * exec until recording started), the ring buffers its threads ask for over
 * $SYSPROF_CONTROL_FD (libsysprof-capture's collector: GTK's marks, GLib's
 * logs, the memory tracker's events) and, for memory tracing, its tracker. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sysprof-recording-private.h"

/* The command. */

/* In the child, between fork and exec: async-signal-safe calls only. */
static void G_GNUC_NORETURN
child_main (int             go_fd,
            int             exec_fd,
            const int      *keep_fds,
            guint           n_keep,
            pid_t           parent,
            const char     *directory,
            const char     *program,
            char          **argv,
            char          **envp,
            const sigset_t *mask)
{
  struct sigaction dfl;
  char             byte;
  ssize_t          n;
  int              saved;

  /* Handlers of the parent (GLib's unix signal sources) must not run here;
   * ignored signals stay ignored, as with any exec. */
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++)
    {
      struct sigaction old;

      if (sigaction (sig, NULL, &old) == 0 && ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_IGN))
        sigaction (sig, &dfl, NULL);
    }
  sigprocmask (SIG_SETMASK, mask, NULL);
  /* The command never outlives the recording, even when we are killed. */
  if (prctl (PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid () != parent)
    _exit (127);

  do
    n = read (go_fd, &byte, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    _exit (127);

  /* The control socket and the trace memfds stay open across exec. */
  for (guint i = 0; i < n_keep; i++)
    if (fcntl (keep_fds[i], F_SETFD, 0) != 0)
      _exit (127);
  /* A failed chdir reports its errno like a failed exec. */
  if (directory != NULL && chdir (directory) != 0)
    {
      saved = errno;
      n = write (exec_fd, &saved, sizeof saved);
      (void) n;
      _exit (127);
    }
  execve (program, argv, envp);
  saved = errno;
  n = write (exec_fd, &saved, sizeof saved);
  (void) n;
  _exit (127);
}

/* Forks the command, held before exec until release_command(). */
gboolean
_sysprof_recording_spawn_held (SysprofRecording *self, GError **error)
{
  g_auto (GStrv) env = self->envp ? g_strdupv (self->envp) : g_get_environ ();
  g_autoptr (GArray) keep_fds = g_array_new (FALSE, FALSE, sizeof (int));
  int      keep_fd = -1;
  int      go[2];
  int      exec_pipe[2];
  sigset_t all;
  sigset_t old;
  pid_t    parent = getpid ();
  pid_t    pid;
  int      saved;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot start %s: %s", self->argv[0],
                   g_strerror (saved));
      return FALSE;
    }
  if (pipe2 (exec_pipe, O_CLOEXEC) != 0)
    {
      saved = errno;
      close (go[0]);
      close (go[1]);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot start %s: %s", self->argv[0],
                   g_strerror (saved));
      return FALSE;
    }

  /* Every command gets the control channel, as with Sysprof's own tools:
   * programs built with libsysprof-capture's collector (GTK, GLib) then
   * send their marks and logs.  Only memory tracing preloads the tracker. */
  if (!(self->control = sysprof_control_channel_new (error)))
    {
      close (go[0]);
      close (go[1]);
      close (exec_pipe[0]);
      close (exec_pipe[1]);
      return FALSE;
    }
  keep_fd = sysprof_control_channel_get_child_fd (self->control);
  g_array_append_val (keep_fds, keep_fd);
  if (!_sysprof_recording_traces_open (self, &env, keep_fds, error))
    {
      close (go[0]);
      close (go[1]);
      close (exec_pipe[0]);
      close (exec_pipe[1]);
      return FALSE;
    }
  {
    g_autofree char *fd_str = g_strdup_printf ("%d", keep_fd);

    env = g_environ_setenv (env, "SYSPROF_CONTROL_FD", fd_str, TRUE);
  }
  if (self->memory)
    {
      const char      *preload = g_environ_getenv (env, "LD_PRELOAD");
      g_autofree char *value = NULL;

      /* After what the user preloads: the tracker sees their allocators. */
      value = preload && *preload ? g_strdup_printf ("%s:%s", preload, self->preload) : g_strdup (self->preload);
      env = g_environ_setenv (env, "LD_PRELOAD", value, TRUE);
      env = self->follow_children ? g_environ_setenv (env, "SYSPROF_FOLLOW_CHILDREN", "1", TRUE)
                                  : g_environ_unsetenv (env, "SYSPROF_FOLLOW_CHILDREN");
    }

  /* No signal handler of ours may run in the child before it reset them. */
  sigfillset (&all);
  sigprocmask (SIG_SETMASK, &all, &old);
  pid = fork ();
  if (pid == 0)
    {
      close (go[0]);
      close (exec_pipe[0]);
      child_main (go[1], exec_pipe[1], (const int *) (gpointer) keep_fds->data, keep_fds->len, parent,
                  self->working_directory, self->program, self->argv, env, &old);
    }
  saved = errno;
  sigprocmask (SIG_SETMASK, &old, NULL);
  close (go[1]);
  close (exec_pipe[1]);
  if (self->control != NULL)
    sysprof_control_channel_close_child_fd (self->control);
  if (pid < 0)
    {
      close (go[0]);
      close (exec_pipe[0]);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot start %s: %s", self->argv[0],
                   g_strerror (saved));
      return FALSE;
    }

  self->command_pid = pid;
  self->command_alive = TRUE;
  self->go_fd = go[0];
  self->exec_fd = exec_pipe[0];
  if (self->pids->len > 0)
    {
      int value = pid;
      g_array_append_val (self->pids, value);
    }
  return TRUE;
}

static int
reap_now (SysprofRecording *self)
{
  int   status = -1;
  pid_t ret;

  do
    ret = waitpid (self->command_pid, &status, 0);
  while (ret < 0 && errno == EINTR);
  self->command_alive = FALSE;
  return ret < 0 ? -1 : status;
}

/* A held command never runs: without its byte it exits at once. */
void
_sysprof_recording_abandon_held_command (SysprofRecording *self)
{
  if (self->go_fd < 0 || !self->command_alive)
    return;
  close (self->go_fd);
  self->go_fd = -1;
  close (self->exec_fd);
  self->exec_fd = -1;
  kill (self->command_pid, SIGKILL);
  (void) reap_now (self);
}

static void
child_exited_cb (GPid pid, int status, gpointer data)
{
  SysprofRecording *self = data;

  g_spawn_close_pid (pid);
  self->child_watch = 0;
  self->command_alive = FALSE;
  self->wait_status = status;
  g_clear_handle_id (&self->kill_source, g_source_remove);
  if (self->phase == SYSPROF_RECORDING_PHASE_RECORDING)
    _sysprof_recording_begin_stop (self, "the command exited");
  else
    {
      /* Its own captures waited for it to end. */
      _sysprof_recording_capture_done (self);
      _sysprof_recording_maybe_complete (self);
    }
}

gboolean
_sysprof_recording_release_command (SysprofRecording *self, GError **error)
{
  const char byte = 'g';
  ssize_t    n;
  int        exec_errno = 0;

  do
    n = send (self->go_fd, &byte, 1, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  close (self->go_fd);
  self->go_fd = -1;

  /* The child either execs (the pipe closes) or reports why it could not,
   * both right away. */
  do
    n = read (self->exec_fd, &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  close (self->exec_fd);
  self->exec_fd = -1;
  if (n == sizeof exec_errno)
    {
      self->wait_status = reap_now (self);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (exec_errno), "Cannot run %s: %s", self->program,
                   g_strerror (exec_errno));
      return FALSE;
    }

  self->child_watch = g_child_watch_add_full (G_PRIORITY_DEFAULT, self->command_pid, child_exited_cb,
                                              g_object_ref (self), g_object_unref);
  return TRUE;
}

static gboolean
kill_command_cb (gpointer data)
{
  SysprofRecording *self = data;

  self->kill_source = 0;
  if (self->command_alive)
    kill (self->command_pid, SIGKILL);
  return G_SOURCE_REMOVE;
}

/* The recording is over: so is the command. */
void
_sysprof_recording_terminate_command (SysprofRecording *self)
{
  if (!self->command_alive || self->go_fd >= 0 || self->kill_source != 0)
    return;
  kill (self->command_pid, SIGTERM);
  self->kill_source = g_timeout_add_seconds (KILL_DELAY_S, kill_command_cb, self);
}

/* Decoding: the symbol table is built in memory while the capture stays as
 * recorded; only a complete table is appended, at the end, so abandoning it
 * (a second ^C, or a crash) never leaves half a table in the user's file. */

/* A thread of the command asks for a ring. */

static void
ring_refused (SysprofRecording *self, const char *message)
{
  sysprof_control_channel_reply (self->control, -1);
  if (self->ring_warned)
    return;
  self->ring_warned = TRUE;
  _sysprof_recording_add_warning (self,
                                  self->memory ? "memory tracing: a thread of the command got no ring buffer, its "
                                                 "events are lost: %s"
                                               : "a thread of the command got no ring buffer for its marks and "
                                                 "logs, they are lost: %s",
                                  message);
}

static void
create_ring_reply_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (SysprofRecording) self = data;
  g_autoptr (GUnixFDList) fds = NULL;
  g_autoptr (GVariant) handle = NULL;
  g_autoptr (GError) error = NULL;
  gboolean replied;
  gint32   index = -1;
  int      fd;

  replied = ipc_session_call_create_ring_buffer_finish (IPC_SESSION (source), &handle, &fds, result, &error);
  if (self->control == NULL)
    return;
  if (replied)
    index = g_variant_get_handle (handle);
  if (!replied || fds == NULL || index < 0 || index >= g_unix_fd_list_get_length (fds))
    {
      g_autofree char *message = error ? _sysprof_recording_remote_message (error) : g_strdup ("sysprofd sent no ring");

      ring_refused (self, message);
      return;
    }
  if ((fd = g_unix_fd_list_get (fds, index, &error)) < 0)
    {
      ring_refused (self, error->message);
      return;
    }
  sysprof_control_channel_reply (self->control, fd);
  close (fd);
}

static void
ring_request_cb (SysprofControlChannel *channel, gpointer data)
{
  SysprofRecording *self = data;
  g_autoptr (GError) error = NULL;
  int fd;

  (void) channel;
  if (self->mode == SYSPROF_RECORDING_MODE_DAEMON)
    {
      ipc_session_call_create_ring_buffer (self->session, self->memory ? MEMORY_RING_PAGES : COLLECTOR_RING_PAGES,
                                           G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, create_ring_reply_cb,
                                           g_object_ref (self));
      return;
    }
  if ((fd = sysprof_ring_drainer_create_ring (self->drainer, self->memory ? MEMORY_RING_PAGES : COLLECTOR_RING_PAGES,
                                              &error)) < 0)
    {
      ring_refused (self, error->message);
      return;
    }
  sysprof_control_channel_reply (self->control, fd);
  close (fd);
}

static void
control_broken_cb (SysprofControlChannel *channel, const char *message, gpointer data)
{
  SysprofRecording *self = data;

  (void) channel;
  _sysprof_recording_add_warning (
      self, self->memory ? "memory tracing stopped: %s" : "the command's marks and logs stopped: %s", message);
}

void
_sysprof_recording_start_control (SysprofRecording *self)
{
  sysprof_control_channel_start (self->control, ring_request_cb, control_broken_cb, self);
}

/* The memory tracker: $SYSPROF_MEMORY_PRELOAD (for uninstalled builds) or
 * the installed one. */
gboolean
_sysprof_recording_find_preload (SysprofRecording *self, GError **error)
{
  const char *path = g_getenv ("SYSPROF_MEMORY_PRELOAD");

  if (self->argv == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Tracing memory allocations needs a command to launch: the tracker is preloaded into it");
      return FALSE;
    }
  if (path == NULL || *path == '\0')
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;

      path = SYSPROF_MEMORY_PRELOAD_PATH;
      /* Run from a build tree (clients/PROGRAM/ beside preload/), not
       * installed. */
      if (access (path, R_OK) != 0 && dir != NULL)
        {
          g_autofree char *built = g_build_filename (dir, "..", "..", "preload", "libsysprof-memory.so", NULL);
          g_autofree char *canonical = g_canonicalize_filename (built, NULL);

          if (access (canonical, R_OK) == 0)
            {
              self->preload = g_steal_pointer (&canonical);
              return TRUE;
            }
        }
    }
  if (!g_path_is_absolute (path) || strpbrk (path, " :") != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "The memory tracker's path must be absolute, without spaces or colons (LD_PRELOAD splits "
                   "there): %s",
                   path);
      return FALSE;
    }
  if (access (path, R_OK) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "The memory tracker %s cannot be used: %s (set SYSPROF_MEMORY_PRELOAD to its path)", path,
                   g_strerror (saved));
      return FALSE;
    }
  self->preload = g_strdup (path);
  return TRUE;
}

/* The unwinding helper for in-process recording: $SYSPROF_UNWINDER (for
 * uninstalled builds), the installed one, or the one of the build tree this
 * program runs from (clients/PROGRAM/ beside daemon/unwinder/); NULL: the
 * recorder's default, which then says it is missing. */
const char *
_sysprof_recording_find_unwinder (void)
{
  static char *path;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      const char *env = g_getenv ("SYSPROF_UNWINDER");

      if (env != NULL && g_path_is_absolute (env))
        path = g_strdup (env);
      else if (access (SYSPROF_UNWINDER_PATH, X_OK) != 0)
        {
          g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
          g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;
          g_autofree char *built =
              dir ? g_build_filename (dir, "..", "..", "daemon", "unwinder", "sysprof-unwinder", NULL) : NULL;
          g_autofree char *canonical = built ? g_canonicalize_filename (built, NULL) : NULL;

          if (canonical != NULL && access (canonical, X_OK) == 0)
            path = g_steal_pointer (&canonical);
        }
      g_once_init_leave (&once, 1);
    }
  return path;
}
