// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#if !defined(SYSPROF_CAPTURE_INSIDE) && !defined(SYSPROF_CAPTURE_COMPILATION)
#error "Only <sysprof-capture.h> can be included directly."
#endif

#include <assert.h>

#ifdef __cplusplus
#define SYSPROF_BEGIN_DECLS \
  extern "C"                \
  {
#define SYSPROF_END_DECLS }
#else
#define SYSPROF_BEGIN_DECLS
#define SYSPROF_END_DECLS
#endif

/* Every exported symbol goes through this macro; the library is built with
 * -fvisibility=hidden so anything without it stays internal. */
#define SYSPROF_AVAILABLE_IN_ALL __attribute__ ((visibility ("default")))

#define SYSPROF_PACKED       __attribute__ ((packed))
#define SYSPROF_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#define SYSPROF_WARN_UNUSED  __attribute__ ((warn_unused_result))

#ifdef __cplusplus
#define SYSPROF_STATIC_ASSERT(expr, msg) static_assert (expr, msg)
#else
#define SYSPROF_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif
