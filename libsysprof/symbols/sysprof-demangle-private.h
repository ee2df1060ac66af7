// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-demangle-private.h is private to libsysprof/symbols."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* Demangles a C++ (Itanium ABI, "_Z…") or Rust symbol (legacy "_ZN…17h<hash>E",
 * shown without the hash, and v0 "_R…").  Returns a newly allocated string,
 * or NULL when @name is not mangled or cannot be decoded.  Thread-safe. */
char *sysprof_demangle (const char *name);

G_END_DECLS
