// SPDX-License-Identifier: BSD-2-Clause-Patent
/* Internal helpers shared by the capture library: argument checks, scope-based
 * cleanup, byte order and bounded string copies.  Never installed. */
#pragma once

#ifndef SYSPROF_CAPTURE_COMPILATION
#error "This header is private to libsysprof-capture."
#endif

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Public argument checks.  They stay in release builds: a wrong argument from a
 * caller sets errno = EINVAL and fails the call instead of corrupting a file. */
#define sysprof_return_val_if_fail(expr, val) \
  do                                          \
    {                                         \
      if (__builtin_expect (!(expr), 0))      \
        {                                     \
          errno = EINVAL;                     \
          return (val);                       \
        }                                     \
    }                                         \
  while (0)

#define sysprof_return_if_fail(expr)     \
  do                                     \
    {                                    \
      if (__builtin_expect (!(expr), 0)) \
        {                                \
          errno = EINVAL;                \
          return;                        \
        }                                \
    }                                    \
  while (0)

#define SYSPROF_N_ELEMENTS(a)  (sizeof (a) / sizeof ((a)[0]))
#define SYSPROF_ALIGN_UP(n, a) (((n) + ((a) -1)) & ~((size_t) (a) -1))

/* Scope-based cleanup.  Each cleanup function takes a pointer to the variable
 * and accepts NULL / -1 so early returns need no bookkeeping. */
#define _sysprof_cleanup_(f) __attribute__ ((cleanup (f)))
#define _sysprof_autofree    _sysprof_cleanup_ (_sysprof_freep)
#define _sysprof_autoclose   _sysprof_cleanup_ (_sysprof_closep)

static inline void
_sysprof_freep (void *p)
{
  void **pp = (void **) p;
  free (*pp);
}

static inline void
_sysprof_closep (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
}

static inline void *
_sysprof_steal_pointer (void *pp)
{
  void **p = (void **) pp;
  void  *ret = *p;
  *p = NULL;
  return ret;
}

static inline int
_sysprof_steal_fd (int *fd)
{
  int ret = *fd;
  *fd = -1;
  return ret;
}

#define _SYSPROF_IS_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

static inline uint16_t
_sysprof_swap16 (uint16_t v)
{
  return __builtin_bswap16 (v);
}
static inline uint32_t
_sysprof_swap32 (uint32_t v)
{
  return __builtin_bswap32 (v);
}
static inline uint64_t
_sysprof_swap64 (uint64_t v)
{
  return __builtin_bswap64 (v);
}

/* In-place swaps of possibly unaligned fields inside a frame buffer. */
static inline void
_sysprof_swap16_at (void *p)
{
  uint16_t v;
  memcpy (&v, p, sizeof v);
  v = _sysprof_swap16 (v);
  memcpy (p, &v, sizeof v);
}

static inline void
_sysprof_swap32_at (void *p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  v = _sysprof_swap32 (v);
  memcpy (p, &v, sizeof v);
}

static inline void
_sysprof_swap64_at (void *p)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  v = _sysprof_swap64 (v);
  memcpy (p, &v, sizeof v);
}

/* Bitfields follow the writer's GCC convention: the first declared field sits
 * in the least significant bits on little-endian hosts and in the most
 * significant bits on big-endian hosts.  This converts one 16- or 32-bit
 * bitfield unit at @p, declared with @n_fields widths, from the opposite byte
 * order to the host's, moving every field to its host position. */
void _sysprof_bitfield_from_foreign (void *p, unsigned unit_bits, const uint8_t *widths, unsigned n_fields);

/* @time + @duration, saturated: both come from files or callers and may be hostile. */
static inline int64_t
_sysprof_time_add (int64_t time, int64_t duration)
{
  int64_t end;

  if (__builtin_add_overflow (time, duration, &end))
    return duration > 0 ? INT64_MAX : INT64_MIN;
  return end;
}

/* Copy @src into the fixed-size field @dst, truncating, always NUL-terminated,
 * the rest zero-filled so no stale bytes reach the file. */
static inline void
_sysprof_strlcpy_field (char *dst, const char *src, size_t dst_size)
{
  size_t len = src ? strnlen (src, dst_size - 1) : 0;

  memcpy (dst, src ? src : "", len);
  memset (dst + len, 0, dst_size - len);
}

/* Makes room for one more of the @len items of @elem_size bytes at *@items
 * (*@size allocated), doubling from @initial; false (errno ENOMEM) when
 * memory or @max_items runs out. */
static inline bool
_sysprof_grow (void **items, size_t *size, size_t len, size_t elem_size, size_t initial, size_t max_items)
{
  size_t new_size;
  void  *p;

  if (len < *size)
    return true;
  new_size = *size ? *size * 2 : initial;
  if (new_size > max_items || new_size > SIZE_MAX / elem_size || !(p = realloc (*items, new_size * elem_size)))
    {
      errno = ENOMEM;
      return false;
    }
  *items = p;
  *size = new_size;
  return true;
}

/* Retry write() until everything is written.  Returns false with errno set. */
bool _sysprof_write_all (int fd, const void *data, size_t len);
bool _sysprof_pwrite_all (int fd, const void *data, size_t len, off_t offset);
/* Copy @len bytes (or to EOF when @len is (uint64_t)-1) from @in_fd at @in_offset to the
 * current position of @out_fd. */
bool _sysprof_copy_range (int in_fd, off_t in_offset, uint64_t len, int out_fd);
