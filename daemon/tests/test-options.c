// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprofd's command line: defaults, each option, and the refusals. */
#include "sysprof-dbus-contract.h"
#include "sysprofd-options.h"

static gboolean
parse (SysprofdOptions *options, GError **error, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  char      **argv;
  int         argc;
  const char *arg;
  gboolean    ret;
  va_list     ap;

  g_ptr_array_add (args, (gpointer) "sysprofd");
  va_start (ap, error);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  argc = (int) args->len;
  /* GOption rearranges argv: a copy of the pointers it may shuffle. */
  argv = g_memdup2 (args->pdata, sizeof (char *) * (args->len + 1));
  argv[args->len] = NULL;
  ret = sysprofd_options_parse (options, &argc, &argv, error);
  g_free (argv);
  return ret;
}

static void
test_defaults (void)
{
  g_auto (SysprofdOptions) options = { 0 };
  g_autoptr (GError) error = NULL;

  g_assert_true (parse (&options, &error, NULL));
  g_assert_no_error (error);
  g_assert_cmpint (options.idle_timeout, ==, SYSPROFD_DEFAULT_IDLE_TIMEOUT);
  g_assert_cmpint (options.start_timeout, ==, SYSPROF_DBUS_START_TIMEOUT);
  g_assert_cmpstr (options.state_dir, ==, SYSPROFD_DEFAULT_STATE_DIR);
}

static void
test_values (void)
{
  g_auto (SysprofdOptions) options = { 0 };
  g_autoptr (GError) error = NULL;

  g_assert_true (parse (&options, &error, "--idle-timeout=0", "--state-dir", "/tmp/x", "--start-timeout=2", NULL));
  g_assert_no_error (error);
  g_assert_cmpint (options.idle_timeout, ==, 0);
  g_assert_cmpint (options.start_timeout, ==, 2);
  g_assert_cmpstr (options.state_dir, ==, "/tmp/x");
}

static void
test_refused (void)
{
  const char *const bad[][2] = {
    { "--start-timeout=0", "--start-timeout must be at least 1 second" },
    { "--idle-timeout=-1", "--idle-timeout must be 0 (never) or more" },
    { "--start-timeout=soon", "soon" },
    { "--frobnicate", "--frobnicate" },
    { "extra", "unexpected argument \"extra\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto (SysprofdOptions) options = { 0 };
      g_autoptr (GError) error = NULL;

      g_assert_false (parse (&options, &error, bad[i][0], NULL));
      g_assert_error (error, G_OPTION_ERROR, error->code);
      g_assert_nonnull (strstr (error->message, bad[i][1]));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sysprofd/Options/defaults", test_defaults);
  g_test_add_func ("/Sysprofd/Options/values", test_values);
  g_test_add_func ("/Sysprofd/Options/refused", test_refused);
  return g_test_run ();
}
