// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* How to get from a frame to its caller's on x86-64, for one return address,
 * as libunwind itself would (sysprof-unwind-cache.h walks stacks with these).
 *
 * A rule is learned by asking libunwind (its "generic" flavour, with an
 * address space of our own) to step once from made-up register values at
 * that address: rsp and rbp pointing into a fake stack whose every word says
 * where it was read from, the other registers at addresses that are never
 * read in compiled code.  Three steps, rsp moved in one and rbp in another,
 * tell which register the CFA follows and with what offset, where the return
 * address and the caller's rbp were read; a fourth, with the other registers
 * moved, must change nothing.  Anything else (a CFA computed from memory or
 * from another register, a signal frame, a return address not at CFA - 8,
 * no unwind info, any read outside the fake stack and the unwind tables of
 * the object, a second step needed) makes the rule FALLBACK: stacks through
 * that address are unwound by libunwind every time.  Nothing is guessed:
 * libunwind's evaluation of the DWARF CFI is what the rule records. */

#include <stdbool.h>
#include <stdint.h>

typedef enum
{
  /* Not learned yet. */
  SYSPROF_UNWIND_RULE_UNKNOWN = 0,
  /* CFA = rsp or rbp + cfa_offset; return address at CFA - 8; rbp at
   * CFA + rbp_offset, or unchanged. */
  SYSPROF_UNWIND_RULE_STANDARD,
  /* The outermost frame: libunwind stops here (no return address). */
  SYSPROF_UNWIND_RULE_LAST,
  /* Not one of the above: leave the whole stack to libunwind. */
  SYSPROF_UNWIND_RULE_FALLBACK,
} SysprofUnwindRuleKind;

typedef struct
{
  int32_t cfa_offset;
  int16_t rbp_offset; /* from the CFA, negative */
  uint8_t kind;
  uint8_t cfa_rbp : 1;   /* the CFA follows rbp, else rsp */
  uint8_t rbp_saved : 1; /* the caller's rbp is at CFA + rbp_offset */
} SysprofUnwindRule;

_Static_assert(sizeof (SysprofUnwindRule) == 8, "a rule and its address make 16 bytes");

/* Whether rules can be learned at all (built with libunwind-generic). */
bool sysprof_unwind_rule_available (void);
/* Learns the rule at @return_address (the frame's return address: the rule
 * is that of the call instruction before it).  Takes the loader's lock
 * (dl_iterate_phdr) and a few microseconds; allocates nothing after the
 * first call (which creates the address space: call it under the tracker's
 * recursion guard).  Never fails: what cannot be learned is FALLBACK. */
SysprofUnwindRule sysprof_unwind_rule_learn (uint64_t return_address);
