// SPDX-License-Identifier: GPL-3.0-or-later
/* Symbol demangling through libiberty (binutils' and GCC's demangler, which
 * reads both C++ and Rust schemes).  Its static library in Debian is built
 * position-independent, so it links into our PIE programs. */

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sysprof-demangle-private.h"

char *
sysprof_demangle (const char *name)
{
  char *demangled;
  char *ret;

  g_return_val_if_fail (name != NULL, NULL);

  /* Only what looks mangled: libiberty would try to read anything. */
  if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
    return NULL;

  /* DMGL_AUTO picks the scheme; for a Rust legacy symbol it drops the hash
   * (DMGL_VERBOSE would keep it). */
  if ((demangled = cplus_demangle (name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)) == NULL)
    return NULL;

  /* Hand back GLib memory: callers free with g_free. */
  ret = g_strdup (demangled);
  free (demangled);
  return ret;
}
