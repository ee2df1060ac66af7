// SPDX-License-Identifier: GPL-3.0-or-later
/* Fixture of test-elf: prints where its functions (and those of
 * libelf-testlib.so) are, then its own /proc/self/maps, so the test can turn
 * each address into a file offset the way a MAP frame does. */

#include <stdint.h>
#include <stdio.h>

void elf_testlib_report (void);
int  elf_testlib_global (int x);
int  elf_testprog_global (int x);
void sysprof_test_mangled (void) __asm__("_ZN7sysprof4test7mangledEv");

static volatile int sink;

static __attribute__ ((noinline)) int
elf_testprog_static (int x)
{
  return x * 5 + 7;
}

__attribute__ ((noinline)) int
elf_testprog_global (int x)
{
  return elf_testprog_static (x) - 1;
}

/* A C++-mangled name, to demangle what a lookup returns. */
__attribute__ ((noinline)) void
sysprof_test_mangled (void)
{
  sink = elf_testlib_global (sink);
}

#define REPORT(name, fn) printf ("func %s %#jx\n", name, (uintmax_t) (uintptr_t) (fn))

#if defined(__x86_64__) || defined(__i386__)
/* Symbols a compiler does not make: one without a size (it extends to the
 * next symbol) and one nested inside another (1-byte instructions, so the
 * offsets are known). */
void elf_testprog_nosize (void);
void elf_testprog_outer (void);
void elf_testprog_inner (void);
__asm__(".text\n"
        ".globl elf_testprog_nosize\n"
        ".type elf_testprog_nosize, @function\n"
        "elf_testprog_nosize:\n"
        "  nop\n"
        "  nop\n"
        "  ret\n"
        ".globl elf_testprog_outer\n"
        ".type elf_testprog_outer, @function\n"
        "elf_testprog_outer:\n"
        "  nop\n"
        "  nop\n"
        ".globl elf_testprog_inner\n"
        ".type elf_testprog_inner, @function\n"
        "elf_testprog_inner:\n"
        "  nop\n"
        "  nop\n"
        "  ret\n"
        ".size elf_testprog_inner, .-elf_testprog_inner\n"
        "  nop\n"
        "  nop\n"
        "  ret\n"
        ".size elf_testprog_outer, .-elf_testprog_outer\n");
#endif

int
main (void)
{
  FILE *maps;
  char  line[4096];

  sink = elf_testprog_global (1);
  sysprof_test_mangled ();

  REPORT ("elf_testprog_static", elf_testprog_static);
  REPORT ("elf_testprog_global", elf_testprog_global);
  REPORT ("_ZN7sysprof4test7mangledEv", sysprof_test_mangled);
#if defined(__x86_64__) || defined(__i386__)
  REPORT ("elf_testprog_nosize", elf_testprog_nosize);
  REPORT ("elf_testprog_outer", elf_testprog_outer);
  REPORT ("elf_testprog_inner", elf_testprog_inner);
#endif
  elf_testlib_report ();

  if ((maps = fopen ("/proc/self/maps", "r")) == NULL)
    return 1;
  while (fgets (line, sizeof line, maps) != NULL)
    printf ("map %s", line);
  fclose (maps);
  return 0;
}
