// SPDX-License-Identifier: GPL-3.0-or-later
/* A JIT compiler in miniature, whose profile is known in advance: it writes
 * two functions of machine code into an anonymous mapping made executable,
 * names them in /tmp/perf-PID.map as JIT compilers do for perf, and spends
 * its time in them:
 *
 *   jit_hot_loop_a   75 %   (3 units of iterations per round)
 *   jit_hot_loop_b   25 %   (1 unit)
 *
 * Both are the same countdown loop (dec; jnz), so the ratio holds whatever
 * the CPU.  x86-64 only; elsewhere it exits with 77 (skipped).  The map
 * stays at exit, as node's and the JVM agents' do: profilers read it after.
 *
 *   jit-workload [SECONDS]   run for about SECONDS (default 2)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define UNIT          2000000UL
#define FUNCTION_SIZE 64 /* bytes per function in the map, code plus padding */

typedef unsigned long (*JitFunction) (unsigned long iterations);

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
#if defined(__x86_64__)
  /* unsigned long f (unsigned long n): counts n down to 0 and returns 0.
   *   mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
  static const unsigned char countdown[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
  double                     seconds = 2.0, end;
  unsigned char             *code;
  char                       path[64];
  FILE                      *map;
  JitFunction                a, b;
  unsigned long              sink = 0;

  if (argc > 1)
    seconds = atof (argv[1]);

  code = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    {
      perror ("mmap");
      return 1;
    }
  /* int3 around the functions: a wrong jump traps rather than runs on. */
  memset (code, 0xcc, 4096);
  memcpy (code, countdown, sizeof countdown);
  memcpy (code + FUNCTION_SIZE, countdown, sizeof countdown);
  if (mprotect (code, 4096, PROT_READ | PROT_EXEC) != 0)
    {
      perror ("mprotect");
      return 1;
    }
  a = (JitFunction) (uintptr_t) code;
  b = (JitFunction) (uintptr_t) (code + FUNCTION_SIZE);

  snprintf (path, sizeof path, "/tmp/perf-%d.map", (int) getpid ());
  if ((map = fopen (path, "w")) == NULL)
    {
      perror (path);
      return 1;
    }
  fprintf (map, "%lx %x jit_hot_loop_a\n", (unsigned long) (uintptr_t) code, FUNCTION_SIZE);
  fprintf (map, "%lx %x jit_hot_loop_b\n", (unsigned long) (uintptr_t) (code + FUNCTION_SIZE), FUNCTION_SIZE);
  if (fclose (map) != 0)
    {
      perror (path);
      return 1;
    }

  end = now_s () + seconds;
  while (now_s () < end)
    {
      sink += a (3 * UNIT);
      sink += b (UNIT);
    }

  return (int) sink; /* 0: every countdown ends at 0 */
#else
  (void) argc, (void) argv;
  fprintf (stderr, "jit-workload: x86-64 only\n");
  return 77;
#endif
}
