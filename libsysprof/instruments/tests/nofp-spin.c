// SPDX-License-Identifier: GPL-3.0-or-later
#include <glib.h>

/* The spinning child of test-perf-recorder's DWARF tests, built without
 * frame pointers (meson.build), as most of a distribution is: only DWARF
 * leads through it back to main. */
#define NO_FP __attribute__ ((noinline))
NO_FP static guint64 nofp_leaf (guint64 v);
NO_FP static guint64 nofp_middle (guint64 v, int depth);
int                  test_perf_recorder_nofp_spin (int ms);

NO_FP static guint64
nofp_leaf (guint64 v)
{
  volatile guint64 scratch[4];

  for (guint i = 0; i < 1000; i++)
    v = v * 6364136223846793005u + 1442695040888963407u;
  scratch[0] = v;
  return scratch[0];
}

NO_FP static guint64
nofp_middle (guint64 v, int depth)
{
  volatile guint64 pad[8];

  pad[0] = depth > 0 ? nofp_middle (v, depth - 1) : nofp_leaf (v);
  return pad[0] + 1;
}

int
test_perf_recorder_nofp_spin (int ms)
{
  gint64  end = g_get_monotonic_time () + (gint64) ms * 1000;
  guint64 v = 1;

  while (g_get_monotonic_time () < end)
    v = nofp_middle (v, 3);
  return v == 0 ? 1 : 0;
}
