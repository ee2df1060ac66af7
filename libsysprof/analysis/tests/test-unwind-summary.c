// SPDX-License-Identifier: GPL-3.0-or-later
/* The recorder's unwinding summary, told for people, from what
 * SysprofPerfRecorder writes and from damaged or foreign texts. */
#include <string.h>

#include "sysprof-analysis.h"

static void
test_describe (void)
{
  g_autofree char *dwarf = sysprof_unwind_summary_describe (
      "method=dwarf stack-size=8192 samples=1000 complete=900 truncated=80 outside-mappings=5 failed=15");
  g_autofree char *none = sysprof_unwind_summary_describe (
      "method=dwarf stack-size=4096 samples=0 complete=0 truncated=0 outside-mappings=0 failed=0");
  g_autofree char *fp = sysprof_unwind_summary_describe ("method=frame-pointers");

  g_assert_cmpstr (dwarf, ==,
                   "DWARF, 8192 bytes copied per sample; of 1000 unwound, 90.0% reached their outermost frame, "
                   "8.0% were cut short (a deeper stack than the copy, or code without unwind tables), 0.5% ended "
                   "at an address outside the process's code, 1.5% failed");
  g_assert_cmpstr (none, ==, "DWARF, 4096 bytes copied per sample; no user stack to unwind");
  g_assert_nonnull (strstr (fp, "frame pointers"));
}

static void
test_unknown (void)
{
  const char *bad[] = {
    "",
    "method=lbr",
    "method=dwarf",
    "method=dwarf stack-size=8192 samples=10 complete=9 truncated=1 outside-mappings=0",
    "method=dwarf stack-size=8192 samples=ten complete=9 truncated=1 outside-mappings=0 failed=0",
    "method=dwarf stack-size=8192 samples=10x complete=9 truncated=1 outside-mappings=0 failed=0",
    "method=dwarfish stack-size=8192 samples=10 complete=9 truncated=1 outside-mappings=0 failed=0",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = sysprof_unwind_summary_describe (bad[i]);

      g_assert_null (text);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/UnwindSummary/describe", test_describe);
  g_test_add_func ("/Libsysprof/UnwindSummary/unknown", test_unknown);
  return g_test_run ();
}
