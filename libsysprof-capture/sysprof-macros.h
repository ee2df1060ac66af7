// SPDX-License-Identifier: BSD-2-Clause-Patent
/* Macros of libsysprof-capture-4's public headers, with upstream's names and
 * meanings, so that programs written against upstream's headers build
 * against ours.  Every header may be included on its own, as upstream's
 * can; <sysprof-capture.h> includes them all. */
#pragma once

#include <assert.h>
#include <limits.h>

#ifdef __cplusplus
#define SYSPROF_BEGIN_DECLS \
  extern "C"                \
  {
#define SYSPROF_END_DECLS }
#else
#define SYSPROF_BEGIN_DECLS
#define SYSPROF_END_DECLS
#endif

#if defined(__GNUC__)
#define SYSPROF_GNUC_CHECK_VERSION(major, minor) \
  ((__GNUC__ > (major)) || ((__GNUC__ == (major)) && (__GNUC_MINOR__ >= (minor))))
#else
#define SYSPROF_GNUC_CHECK_VERSION(major, minor) 0
#endif

/* Upstream's spelling, suffixes included (on LP64 the signed one gets UL
 * and the unsigned one L, as upstream has them). */
#if LONG_MAX == 0x7fffffffffffffffL
#define SYSPROF_INT64_CONSTANT(x)  (x##UL)
#define SYSPROF_UINT64_CONSTANT(x) (x##L)
#else
#define SYSPROF_INT64_CONSTANT(x)  (x##ULL)
#define SYSPROF_UINT64_CONSTANT(x) (x##LL)
#endif

#if defined(__GNUC__)
#define SYSPROF_INTERNAL       __attribute__ ((visibility ("hidden")))
#define SYSPROF_LIKELY(expr)   (__builtin_expect (!!(expr), 1))
#define SYSPROF_UNLIKELY(expr) (__builtin_expect (!!(expr), 0))
#else
#define SYSPROF_INTERNAL
#define SYSPROF_LIKELY(expr)   (expr)
#define SYSPROF_UNLIKELY(expr) (expr)
#endif

#if defined(__cplusplus) || defined(__GI_SCANNER__)
#define SYSPROF_RESTRICT
#else
#define SYSPROF_RESTRICT restrict
#endif

/* A typedef whose alignment is lowered to @_N: the wire structs keep their
 * natural layout (no packed members, whose addresses compilers warn about)
 * and may sit at any offset of a buffer. */
#if defined(_MSC_VER)
#define SYSPROF_ALIGNED_BEGIN(_N) __declspec(align (_N))
#define SYSPROF_ALIGNED_END(_N)
#else
#define SYSPROF_ALIGNED_BEGIN(_N)
#define SYSPROF_ALIGNED_END(_N) __attribute__ ((aligned (_N)))
#endif

#if defined(__GNUC__)
#define SYSPROF_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#define SYSPROF_WARN_UNUSED  __attribute__ ((warn_unused_result))
#else
#define SYSPROF_PRINTF(f, a)
#define SYSPROF_WARN_UNUSED
#endif

#if defined(__cplusplus) && defined(__cpp_static_assert)
#define SYSPROF_STATIC_ASSERT(expr, msg) static_assert (expr, msg)
#else
#define SYSPROF_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif

#include "sysprof-version-macros.h"
