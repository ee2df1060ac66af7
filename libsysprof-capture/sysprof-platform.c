// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <sys/mman.h>
#include <unistd.h>

#include "sysprof-platform.h"

int
sysprof_memfd_create (const char *desc)
{
  return memfd_create (desc != NULL ? desc : "[sysprof]", 0);
}

size_t
sysprof_getpagesize (void)
{
  static size_t page_size;

  if (page_size == 0)
    page_size = (size_t) sysconf (_SC_PAGESIZE);
  return page_size;
}
