// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* True for the functions of the allocator that are not allocation sites:
 *   malloc calloc realloc reallocarray free cfree posix_memalign
 *   aligned_alloc memalign valloc pvalloc malloc_usable_size
 *   __libc_malloc __libc_calloc __libc_realloc __libc_free
 *   __libc_memalign __libc_valloc __libc_pvalloc __posix_memalign
 *   _int_malloc _int_free _int_realloc _int_memalign tcache_init
 *   malloc_hook_ini realloc_hook_ini memalign_hook_ini
 *   strdup strndup __strdup __strndup
 *   the C++ operators new, new[], delete and delete[] in all their forms,
 *   mangled (_Znwm, _Znam, _ZnwmRKSt9nothrow_t, _ZnwmSt11align_val_t,
 *   _ZdlPv, _ZdlPvm, ... : every name starting with _Znw, _Zna, _Zdl, _Zda)
 *   or demangled ("operator new(unsigned long)", ...)
 *   g_malloc g_malloc0 g_realloc g_try_malloc g_try_malloc0 g_try_realloc
 *   g_malloc_n g_malloc0_n g_realloc_n g_try_malloc_n g_try_malloc0_n
 *   g_try_realloc_n g_aligned_alloc g_aligned_alloc0 g_free g_free_sized
 *   g_slice_alloc g_slice_alloc0 g_slice_copy g_slice_free1 g_memdup
 *   g_memdup2 g_strdup g_strndup
 *   and every symbol (resolved or not) whose library's base name starts with
 *   "libsysprof-memory" (the preload library that records the
 *   allocations). */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_memory_symbol_is_allocator (const SysprofSymbol *symbol);

G_END_DECLS
