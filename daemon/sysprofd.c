// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprofd: owns org.gnome.Sysprof3 on the system bus and answers profiling
 * requests for unprivileged clients after polkit agreed.  Everything but the
 * process's setup is in the sysprofd-core library (README.md). */

#include <locale.h>
#include <malloc.h>
#include <stdlib.h>

#include "sysprofd-daemon.h"

int
main (int argc, char **argv)
{
  g_auto (SysprofdOptions) options = { 0 };
  g_autoptr (GError) error = NULL;

  setlocale (LC_ALL, "");
  /* A thread per session and per worker: without a bound, glibc gives most
   * of them an arena of their own, which stays mapped (and partly resident)
   * after the thread is gone. */
  mallopt (M_ARENA_MAX, 2);
  /* Blocks from 256 KiB up are mapped on their own and unmapped when freed.
   * Set explicitly, glibc no longer raises this threshold each time such a
   * block is freed, after which a session's big temporaries (the kernel
   * symbols it filters, stack copies) would stay in the heap for good. */
  mallopt (M_MMAP_THRESHOLD, 256 * 1024);

  if (!sysprofd_options_parse (&options, &argc, &argv, &error))
    {
      g_printerr ("sysprofd: %s\n", error->message);
      return EXIT_FAILURE;
    }
  return sysprofd_daemon_run (&options);
}
