// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-allocators.h"

/* Exact names of allocator functions (see the header for the rule). */
static const char *const allocator_names[] = {
  "malloc",
  "calloc",
  "realloc",
  "reallocarray",
  "free",
  "cfree",
  "posix_memalign",
  "aligned_alloc",
  "memalign",
  "valloc",
  "pvalloc",
  "malloc_usable_size",
  "__libc_malloc",
  "__libc_calloc",
  "__libc_realloc",
  "__libc_free",
  "__libc_memalign",
  "__libc_valloc",
  "__libc_pvalloc",
  "__posix_memalign",
  "_int_malloc",
  "_int_free",
  "_int_realloc",
  "_int_memalign",
  "tcache_init",
  "malloc_hook_ini",
  "realloc_hook_ini",
  "memalign_hook_ini",
  "strdup",
  "strndup",
  "__strdup",
  "__strndup",
  "g_malloc",
  "g_malloc0",
  "g_realloc",
  "g_try_malloc",
  "g_try_malloc0",
  "g_try_realloc",
  "g_malloc_n",
  "g_malloc0_n",
  "g_realloc_n",
  "g_try_malloc_n",
  "g_try_malloc0_n",
  "g_try_realloc_n",
  "g_aligned_alloc",
  "g_aligned_alloc0",
  "g_free",
  "g_free_sized",
  "g_slice_alloc",
  "g_slice_alloc0",
  "g_slice_copy",
  "g_slice_free1",
  "g_memdup",
  "g_memdup2",
  "g_strdup",
  "g_strndup",
};

static gboolean
is_cxx_operator (const char *name)
{
  /* Mangled: _Znwm, _Znam, _ZnwmRKSt9nothrow_t, _ZdlPvm, ...  Demangled:
   * "operator new(unsigned long)", "operator delete[](void*)", ... */
  if (name[0] == '_' && name[1] == 'Z' &&
      (strncmp (name + 2, "nw", 2) == 0 || strncmp (name + 2, "na", 2) == 0 || strncmp (name + 2, "dl", 2) == 0 ||
       strncmp (name + 2, "da", 2) == 0))
    return TRUE;
  if (strncmp (name, "operator new", 12) == 0)
    name += 12;
  else if (strncmp (name, "operator delete", 15) == 0)
    name += 15;
  else
    return FALSE;
  return name[0] == '(' || name[0] == '[';
}

gboolean
sysprof_memory_symbol_is_allocator (const SysprofSymbol *symbol)
{
  g_return_val_if_fail (symbol != NULL, FALSE);

  if (g_str_has_prefix (symbol->library, "libsysprof-memory"))
    return TRUE;
  if (symbol->kind == SYSPROF_SYMBOL_CONTEXT)
    return FALSE;
  if (is_cxx_operator (symbol->name))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (allocator_names); i++)
    if (strcmp (symbol->name, allocator_names[i]) == 0)
      return TRUE;
  return FALSE;
}
