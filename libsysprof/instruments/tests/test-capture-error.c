// SPDX-License-Identifier: GPL-3.0-or-later
/* The capture library's errors as GErrors: codes and messages, from real
 * readers of a missing, a truncated and a corrupt file. */
#include <errno.h>

#include <glib/gstdio.h>

#include "sysprof-instruments.h"

static void
check (const char *path, gint want_code, const char *want_text)
{
  SysprofCaptureError cerr = { 0 };
  g_autoptr (GError) error = NULL;

  g_assert_null (sysprof_capture_reader_new_with_error (path, &cerr));
  g_assert_false (sysprof_set_capture_error (&error, &cerr, "Cannot read %s", "it"));
  g_assert_error (error, G_IO_ERROR, want_code);
  g_assert_true (g_str_has_prefix (error->message, "Cannot read it: "));
  g_assert_nonnull (strstr (error->message, want_text));
}

static void
test_reader_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sysprof-test-XXXXXX", &error);
  g_autofree char *missing = g_build_filename (dir, "missing.syscap", NULL);
  g_autofree char *short_file = g_build_filename (dir, "short.syscap", NULL);
  g_autofree char *bad_magic = g_build_filename (dir, "bad.syscap", NULL);
  char             junk[256];

  g_assert_no_error (error);
  memset (junk, 'x', sizeof junk);
  g_assert_true (g_file_set_contents (short_file, "SYSP", 4, NULL));
  g_assert_true (g_file_set_contents (bad_magic, junk, sizeof junk, NULL));

  check (missing, G_IO_ERROR_NOT_FOUND, g_strerror (ENOENT));
  check (short_file, G_IO_ERROR_INVALID_DATA, "");
  check (bad_magic, G_IO_ERROR_INVALID_DATA, "");

  g_unlink (missing);
  g_unlink (short_file);
  g_unlink (bad_magic);
  g_rmdir (dir);
}

/* No prefix, and no code at all: errno decides, else EIO. */
static void
test_no_code (void)
{
  SysprofCaptureError cerr = { 0 };
  g_autoptr (GError) error = NULL;

  errno = EACCES;
  sysprof_set_capture_error (&error, &cerr, NULL);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_cmpstr (error->message, ==, g_strerror (EACCES));
  g_clear_error (&error);
  errno = 0;
  sysprof_set_capture_error (&error, NULL, "x");
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/CaptureError/reader", test_reader_errors);
  g_test_add_func ("/Libsysprof/CaptureError/no-code", test_no_code);
  return g_test_run ();
}
