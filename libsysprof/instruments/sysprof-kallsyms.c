// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "sysprof-kallsyms.h"

#define KALLSYMS_PATH "/proc/kallsyms"

gboolean
sysprof_kallsyms_write (SysprofCaptureWriter *writer, GError **error)
{
  gboolean written;
  int      errsv;
  int      fd;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  fd = open (KALLSYMS_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot open %s: %s", KALLSYMS_PATH,
                   g_strerror (errsv));
      return FALSE;
    }

  written = sysprof_capture_writer_add_file_fd (writer, sysprof_clock_get_current_time (), -1, -1, KALLSYMS_PATH, fd);
  errsv = errno;
  close (fd);

  if (!written)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Cannot embed %s in the capture: %s",
                   KALLSYMS_PATH, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}
