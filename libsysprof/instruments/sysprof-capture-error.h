// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* The one way a libsysprof-capture error (errno and a sentence naming the
 * offset at fault) becomes a GError, for every layer above the capture
 * library.  Sets @error in G_IO_ERROR: EBADMSG (corrupt) and EIO (truncated)
 * are G_IO_ERROR_INVALID_DATA, any other errno its GIO code.  The message is
 * @prefix (printf-style, may be NULL) followed by ": " and the capture's
 * message, or errno's text when it has none.  A @capture_error without a
 * code (the capture library never said) takes errno, else EIO.  Returns
 * FALSE, for `return sysprof_set_capture_error (...)`. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_set_capture_error (GError **error, const SysprofCaptureError *capture_error, const char *prefix, ...)
    G_GNUC_PRINTF (3, 4);

G_END_DECLS
