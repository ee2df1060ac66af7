// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-unwind-summary.h"

/* The value of KEY=VALUE in @summary (space-separated), or FALSE. */
static gboolean
lookup_count (const char *summary, const char *key, guint64 *value)
{
  g_auto (GStrv) words = g_strsplit (summary, " ", 0);
  gsize len = strlen (key);

  for (guint i = 0; words[i] != NULL; i++)
    if (strncmp (words[i], key, len) == 0 && words[i][len] == '=')
      {
        char *end;

        *value = g_ascii_strtoull (words[i] + len + 1, &end, 10);
        return end != words[i] + len + 1 && *end == '\0';
      }
  return FALSE;
}

char *
sysprof_unwind_summary_describe (const char *summary)
{
  guint64 samples, complete, truncated, outside, failed, stack_size;

  g_return_val_if_fail (summary != NULL, NULL);

  if (g_str_has_prefix (summary, "method=frame-pointers"))
    return g_strdup ("frame pointers (they end early in code built without them; --unwind dwarf follows it)");
  if (!g_str_has_prefix (summary, "method=dwarf ") || !lookup_count (summary, "samples", &samples) ||
      !lookup_count (summary, "complete", &complete) || !lookup_count (summary, "truncated", &truncated) ||
      !lookup_count (summary, "outside-mappings", &outside) || !lookup_count (summary, "failed", &failed) ||
      !lookup_count (summary, "stack-size", &stack_size))
    return NULL;
  if (samples == 0)
    return g_strdup_printf ("DWARF, %" G_GUINT64_FORMAT " bytes copied per sample; no user stack to unwind",
                            stack_size);
  return g_strdup_printf ("DWARF, %" G_GUINT64_FORMAT " bytes copied per sample; of %" G_GUINT64_FORMAT
                          " unwound, %.1f%% reached their outermost frame, %.1f%% were cut short (a deeper stack "
                          "than the copy, or code without unwind tables), %.1f%% ended at an address outside the "
                          "process's code, %.1f%% failed",
                          stack_size, samples, 100.0 * (double) complete / (double) samples,
                          100.0 * (double) truncated / (double) samples, 100.0 * (double) outside / (double) samples,
                          100.0 * (double) failed / (double) samples);
}
