// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#include <stdbool.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

typedef uint64_t SysprofAddress;

SYSPROF_STATIC_ASSERT (sizeof (SysprofAddress) >= sizeof (void *), "Address space is too big");

/* True when @addr is a perf context marker rather than a code address; the
 * context it switches to is stored in @context (may be NULL). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_address_is_context_switch (SysprofCaptureAddress addr, SysprofAddressContext *context);
/* "- - kernel - -" and friends; "- - unknown - -" for
 * SYSPROF_ADDRESS_CONTEXT_NONE or a value it does not know. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_address_context_to_string (SysprofAddressContext context);

static inline int
sysprof_address_compare (SysprofAddress a, SysprofAddress b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

SYSPROF_END_DECLS
