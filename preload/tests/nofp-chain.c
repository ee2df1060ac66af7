// SPDX-License-Identifier: GPL-3.0-or-later
/* Call chains built without frame pointers (-O2 -fomit-frame-pointer, as
 * most of Debian is), for the unwind cache's tests and bench-unwind: each
 * step is one of several frame shapes, chosen by the path, so that a chain
 * mixes the CFA rules compiled code has.
 *
 *   'a'  a small frame (the CFA follows rsp)
 *   'b'  a large frame with callee-saved registers pushed
 *   'c'  alloca: rbp becomes a frame pointer (the CFA follows rbp)
 *   'q'  through libc's qsort (built without frame pointers either), from
 *        its comparator
 *   'v'  a variable-length array sized by the depth, then a call through a
 *        function pointer
 *
 * sysprof_nofp_chain (path, leaf, data) calls leaf (data) at the end of the
 * path (one frame per character, outermost first). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nofp-chain.h"

#define NOINLINE __attribute__ ((noinline))

static volatile uint64_t sink;

NOINLINE void step_a (const char *path, SysprofNofpLeaf leaf, void *data);
NOINLINE void step_b (const char *path, SysprofNofpLeaf leaf, void *data);
NOINLINE void step_c (const char *path, SysprofNofpLeaf leaf, void *data);
NOINLINE void step_q (const char *path, SysprofNofpLeaf leaf, void *data);
NOINLINE void step_v (const char *path, SysprofNofpLeaf leaf, void *data);

static void
next (const char *path, SysprofNofpLeaf leaf, void *data)
{
  switch (*path)
    {
    case 'a': step_a (path, leaf, data); break;
    case 'b': step_b (path, leaf, data); break;
    case 'c': step_c (path, leaf, data); break;
    case 'q': step_q (path, leaf, data); break;
    case 'v': step_v (path, leaf, data); break;
    default: leaf (data); break;
    }
}

NOINLINE void
step_a (const char *path, SysprofNofpLeaf leaf, void *data)
{
  volatile int keep = path[0];

  next (path + 1, leaf, data);
  sink += (uint64_t) keep;
}

NOINLINE void
step_b (const char *path, SysprofNofpLeaf leaf, void *data)
{
  volatile uint64_t buf[24];
  uint64_t          x = sink, y = sink * 3, z = sink * 7, w = sink ^ 5;

  for (int i = 0; i < 24; i++)
    buf[i] = x + (uint64_t) i;
  next (path + 1, leaf, data);
  sink += x + y * z + w + buf[path[0] % 24];
}

NOINLINE void
step_c (const char *path, SysprofNofpLeaf leaf, void *data)
{
  /* Sized by what follows (the next step), not by the depth: as in real
   * programs, an outer frame keeps its size whatever is called below. */
  char *p = __builtin_alloca (16 + (size_t) (path[1] & 7) * 8);

  memset (p, path[0], 16);
  next (path + 1, leaf, data);
  sink += (uint64_t) p[3];
}

typedef struct
{
  const char     *path;
  SysprofNofpLeaf leaf;
  void           *data;
  int             done;
} Sort;

static Sort *volatile sorting;

NOINLINE static int
compare (const void *a, const void *b)
{
  Sort *s = sorting;

  /* The chain goes on from the first comparison only. */
  if (!s->done)
    {
      s->done = 1;
      next (s->path + 1, s->leaf, s->data);
    }
  return (*(const int *) a > *(const int *) b) - (*(const int *) a < *(const int *) b);
}

NOINLINE void
step_q (const char *path, SysprofNofpLeaf leaf, void *data)
{
  Sort  s = { path, leaf, data, 0 };
  Sort *saved = sorting;
  int   values[2] = { 2, 1 };

  sorting = &s;
  qsort (values, 2, sizeof values[0], compare);
  sorting = saved;
  sink += (uint64_t) values[0];
}

static void (*volatile next_pointer) (const char *, SysprofNofpLeaf, void *) = next;

NOINLINE void
step_v (const char *path, SysprofNofpLeaf leaf, void *data)
{
  size_t            n = 1 + (size_t) path[1] % 5;
  volatile uint64_t vla[n];

  for (size_t i = 0; i < n; i++)
    vla[i] = (uint64_t) path[0] + i;
  next_pointer (path + 1, leaf, data);
  sink += vla[n - 1];
}

void
sysprof_nofp_chain (const char *path, SysprofNofpLeaf leaf, void *data)
{
  next (path, leaf, data);
  sink++;
}
