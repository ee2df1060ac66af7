// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>

#include "sysprof-capture-error.h"

gboolean
sysprof_set_capture_error (GError **error, const SysprofCaptureError *capture_error, const char *prefix, ...)
{
  int         saved = errno;
  int         code = capture_error != NULL && capture_error->code != 0 ? capture_error->code : saved != 0 ? saved : EIO;
  const char *text = capture_error != NULL && capture_error->code != 0 && capture_error->message[0] != 0
                         ? capture_error->message
                         : g_strerror (code);
  GIOErrorEnum     io_code = code == EBADMSG || code == EIO ? G_IO_ERROR_INVALID_DATA : g_io_error_from_errno (code);
  g_autofree char *what = NULL;
  va_list          args;

  if (prefix == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, io_code, text);
      return FALSE;
    }
  va_start (args, prefix);
  what = g_strdup_vprintf (prefix, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, io_code, "%s: %s", what, text);
  return FALSE;
}
