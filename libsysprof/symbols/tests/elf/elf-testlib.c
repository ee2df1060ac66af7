// SPDX-License-Identifier: GPL-3.0-or-later
/* Fixture of test-elf: a shared library with known functions, one of them
 * static (found only through .symtab or a debug file). */

#include <stdint.h>
#include <stdio.h>

void elf_testlib_report (void);
int  elf_testlib_global (int x);

static __attribute__ ((noinline)) int
elf_testlib_static (int x)
{
  return x * 3 + 1;
}

__attribute__ ((noinline)) int
elf_testlib_global (int x)
{
  return elf_testlib_static (x) + 2;
}

void
elf_testlib_report (void)
{
  printf ("func elf_testlib_static %#jx\n", (uintmax_t) (uintptr_t) elf_testlib_static);
  printf ("func elf_testlib_global %#jx\n", (uintmax_t) (uintptr_t) elf_testlib_global);
}
