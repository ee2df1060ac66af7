// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofRecording, continued: captures the command writes itself.  With
 * --use-trace-fd the command gets $SYSPROF_TRACE_FD (libsysprof-capture's
 * sysprof_capture_writer_new_from_env writes a whole capture there), with
 * --gjs $GJS_TRACE_FD and GJS_ENABLE_PROFILER=1 (GJS's profiler writes its
 * JavaScript stacks there, as Sysprof 48 asks it to).  Each is a memfd of
 * ours; once the command has exited and the recording is finalized, what it
 * holds is merged into the capture before the symbol table is built.
 *
 * The command is not trusted: its capture is read with the checking reader
 * and every frame is written again through libsysprof-capture's typed calls
 * (sysprof_capture_writer_cat), which also gives its JIT pseudo addresses
 * and counter ids new numbers (counter ids after the capture's own, so
 * that they cannot collide).  Damage ends the merge of that capture with a
 * warning; what came before it is kept. */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysprof-capture-error.h"
#include "sysprof-recording-private.h"

/* The merged frames are appended to the capture in pieces of this size. */
#define COPY_CHUNK (1024 * 1024)

typedef struct
{
  const char *variable;
  const char *option;
} TraceKind;

static const TraceKind kinds[] = {
  [SYSPROF_RECORDING_TRACE_FD] = { "SYSPROF_TRACE_FD", "--use-trace-fd" },
  [SYSPROF_RECORDING_TRACE_GJS] = { "GJS_TRACE_FD", "--gjs" },
};

void
_sysprof_recording_traces_close (SysprofRecording *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->trace_fds); i++)
    if (self->trace_fds[i] >= 0)
      {
        close (self->trace_fds[i]);
        self->trace_fds[i] = -1;
      }
  if (self->dbus_fd >= 0)
    {
      close (self->dbus_fd);
      self->dbus_fd = -1;
    }
}

/* The session bus is monitored by us, as the user: the bus lets its own
 * user monitor it, and sysprofd (root, another user's bus) has no business
 * there.  Its frames go into a capture of their own, merged at the end. */
gboolean
_sysprof_recording_dbus_start (SysprofRecording *self, GError **error)
{
  SysprofCaptureWriter *writer;
  int                   fd;

  if ((self->dbus_fd = memfd_create ("sysprof-session-bus", MFD_CLOEXEC)) < 0 ||
      (fd = fcntl (self->dbus_fd, F_DUPFD_CLOEXEC, 3)) < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot record the session bus: %s",
                   g_strerror (saved));
      return FALSE;
    }
  if (!(writer = sysprof_capture_writer_new_from_fd (fd, 0)))
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot record the session bus: %s",
                   g_strerror (saved));
      return FALSE;
    }
  self->dbus_monitor = sysprof_dbus_monitor_new (writer, SYSPROF_CAPTURE_DBUS_TYPE_SESSION);
  sysprof_capture_writer_unref (writer);
  if (!sysprof_dbus_monitor_start (self->dbus_monitor, NULL, error))
    {
      g_clear_object (&self->dbus_monitor);
      return FALSE;
    }
  return TRUE;
}

void
_sysprof_recording_dbus_stop (SysprofRecording *self)
{
  g_autofree char *loss = NULL;

  if (self->dbus_monitor == NULL)
    return;
  sysprof_dbus_monitor_stop (self->dbus_monitor);
  if ((loss = sysprof_dbus_monitor_dup_loss_message (self->dbus_monitor)) != NULL)
    _sysprof_recording_add_warning (self, "%s", loss);
  /* The last reference on its writer: finalized (flushed) now. */
  g_clear_object (&self->dbus_monitor);
}

gboolean
_sysprof_recording_traces_open (SysprofRecording *self, char ***env, GArray *keep_fds, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *value = NULL;
      int              fd;

      if (!(self->traces & (1u << i)))
        continue;
      if ((fd = memfd_create (kinds[i].variable, MFD_CLOEXEC)) < 0)
        {
          int saved = errno;

          _sysprof_recording_traces_close (self);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot make the memfd of %s: %s",
                       kinds[i].option, g_strerror (saved));
          return FALSE;
        }
      self->trace_fds[i] = fd;
      g_array_append_val (keep_fds, fd);
      value = g_strdup_printf ("%d", fd);
      *env = g_environ_setenv (*env, kinds[i].variable, value, TRUE);
      if (i == SYSPROF_RECORDING_TRACE_GJS)
        *env = g_environ_setenv (*env, "GJS_ENABLE_PROFILER", "1", TRUE);
    }
  return TRUE;
}

/* The largest counter id the capture at @fd defines (0: none), so that the
 * merged captures' counters get ids after it. */
static guint
max_counter_id (int fd, GError **error)
{
  SysprofCaptureError     cerr = { 0 };
  SysprofCaptureReader   *reader;
  SysprofCaptureFrameType type;
  guint                   max = 0;
  int                     rfd;

  if ((rfd = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      !(reader = sysprof_capture_reader_new_from_fd_with_error (rfd, &cerr)))
    {
      if (rfd < 0)
        cerr.code = errno;
      sysprof_set_capture_error (error, &cerr, "Cannot read the capture");
      return G_MAXUINT;
    }
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureCounterDefine *def;

      if (type != SYSPROF_CAPTURE_FRAME_CTRDEF)
        {
          if (!sysprof_capture_reader_skip (reader))
            break;
          continue;
        }
      if (!(def = sysprof_capture_reader_read_counter_define (reader)))
        break;
      for (guint i = 0; i < def->n_counters; i++)
        max = MAX (max, def->counters[i].id);
    }
  /* Damage past the counters' definitions does not matter here: the
   * capture is what it is, the merge only appends. */
  sysprof_capture_reader_unref (reader);
  return max;
}

/* Appends what @writer wrote to @out_fd, after its header, to @capture_fd. */
static gboolean
append_frames (int capture_fd, int out_fd, GError **error)
{
  g_autofree guint8 *buf = g_malloc (COPY_CHUNK);
  struct stat        st;
  off_t              at = sizeof (SysprofCaptureFileHeader);
  off_t              end;

  if (fstat (out_fd, &st) != 0 || (end = lseek (capture_fd, 0, SEEK_END)) < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot append to the capture: %s",
                   g_strerror (saved));
      return FALSE;
    }
  while (at < st.st_size)
    {
      ssize_t n = pread (out_fd, buf, MIN ((off_t) COPY_CHUNK, st.st_size - at), at);
      gsize   done = 0;

      if (n <= 0)
        {
          int saved = n < 0 ? errno : EIO;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot read the merged frames: %s",
                       g_strerror (saved));
          goto undo;
        }
      while (done < (gsize) n)
        {
          ssize_t w = pwrite (capture_fd, buf + done, (gsize) n - done,
                              end + (at - (off_t) sizeof (SysprofCaptureFileHeader)) + (off_t) done);

          if (w < 0 && errno == EINTR)
            continue;
          if (w <= 0)
            {
              int saved = w < 0 ? errno : ENOSPC;

              g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot append to the capture: %s",
                           g_strerror (saved));
              goto undo;
            }
          done += (gsize) w;
        }
      at += n;
    }
  return TRUE;

undo:
  /* Half a frame would hide the rest of the file from readers. */
  if (ftruncate (capture_fd, end) != 0)
    g_prefix_error (error, "(and the capture could not be cut back) ");
  return FALSE;
}

/* Merges the capture in @fd into @writer; warnings name it @what (or say
 * @none when it is empty).  TRUE when something was merged. */
static gboolean
merge_fd (SysprofRecording *self, SysprofCaptureWriter *writer, int fd, const char *what, const char *none)
{
  SysprofCaptureError   cerr = { 0 };
  SysprofCaptureReader *reader;
  struct stat           st;
  int                   rfd;

  if (fstat (fd, &st) == 0 && st.st_size == 0)
    {
      _sysprof_recording_add_warning (self, "%s", none);
      return FALSE;
    }
  if ((rfd = fcntl (fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
      !(reader = sysprof_capture_reader_new_from_fd_with_error (rfd, &cerr)))
    {
      _sysprof_recording_add_warning (self, "%s is not a capture: %s", what,
                                      cerr.message[0] ? cerr.message : g_strerror (rfd < 0 ? errno : cerr.code));
      return FALSE;
    }
  if (!sysprof_capture_writer_cat (writer, reader))
    _sysprof_recording_add_warning (self, "%s could not be merged whole (%s); what came before the fault was merged",
                                    what, g_strerror (errno));
  sysprof_capture_reader_unref (reader);
  return TRUE;
}

void
_sysprof_recording_traces_merge (SysprofRecording *self, int capture_fd)
{
  g_autoptr (GError) error = NULL;
  SysprofCaptureWriter *writer = NULL;
  guint                 max_id;
  int                   out_fd = -1;
  gboolean              any = FALSE;

  if (self->traces == 0 && self->peers->len == 0 && self->dbus_fd < 0)
    return;
  if ((max_id = max_counter_id (capture_fd, &error)) == G_MAXUINT ||
      (out_fd = memfd_create ("sysprof-merge", MFD_CLOEXEC)) < 0 ||
      !(writer = sysprof_capture_writer_new_from_fd (fcntl (out_fd, F_DUPFD_CLOEXEC, 3), 0)))
    {
      _sysprof_recording_add_warning (self, "the command's own captures could not be merged: %s",
                                      error ? error->message : g_strerror (errno));
      goto out;
    }
  /* Counter ids after the capture's. */
  if (max_id > 0)
    (void) sysprof_capture_writer_request_counter (writer, max_id);

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (self->trace_fds[i] >= 0)
      {
        g_autofree char *what =
            g_strdup_printf ("%s: the capture the command wrote to $%s", kinds[i].option, kinds[i].variable);
        g_autofree char *none =
            g_strdup_printf ("%s: the command wrote no capture to $%s", kinds[i].option, kinds[i].variable);

        any |= merge_fd (self, writer, self->trace_fds[i], what, none);
      }
  if (self->dbus_fd >= 0)
    any |= merge_fd (self, writer, self->dbus_fd, "--session-bus: the messages of the session bus",
                     "--session-bus: no message of the session bus was recorded");
  for (guint i = 0; i < self->peers->len; i++)
    {
      const char *name;
      int         fd = _sysprof_recording_peer_fd (self, i, &name);

      if (fd >= 0)
        {
          g_autofree char *what = g_strdup_printf ("profiler peer %s: the capture it wrote", name);
          g_autofree char *none = g_strdup_printf ("profiler peer %s: it wrote no capture", name);

          any |= merge_fd (self, writer, fd, what, none);
        }
    }
  if (!any)
    goto out;
  if (!sysprof_capture_writer_flush (writer))
    {
      _sysprof_recording_add_warning (self, "the command's own captures could not be merged: %s", g_strerror (errno));
      goto out;
    }
  if (!append_frames (capture_fd, out_fd, &error))
    _sysprof_recording_add_warning (self, "the command's own captures could not be merged: %s", error->message);

out:
  g_clear_pointer (&writer, sysprof_capture_writer_unref);
  if (out_fd >= 0)
    close (out_fd);
  _sysprof_recording_traces_close (self);
}
