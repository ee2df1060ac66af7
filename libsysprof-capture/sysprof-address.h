// SPDX-License-Identifier: BSD-2-Clause-Patent
#pragma once

#if !defined(SYSPROF_CAPTURE_INSIDE) && !defined(SYSPROF_CAPTURE_COMPILATION)
#error "Only <sysprof-capture.h> can be included directly."
#endif

#include <stdbool.h>

#include "sysprof-capture-types.h"

SYSPROF_BEGIN_DECLS

/* True when @addr is a perf context marker rather than a code address; the
 * context it switches to is stored in @context (may be NULL). */
SYSPROF_AVAILABLE_IN_ALL
bool sysprof_address_is_context_switch (SysprofCaptureAddress addr, SysprofAddressContext *context);
/* "- - kernel - -" and friends; NULL for SYSPROF_ADDRESS_CONTEXT_NONE or an unknown value. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_address_context_to_string (SysprofAddressContext context);

SYSPROF_END_DECLS
