// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include "sysprof-address.h"

bool
sysprof_address_is_context_switch (SysprofCaptureAddress addr, SysprofAddressContext *context)
{
  SysprofAddressContext ctx;

  switch (addr)
    {
    case SYSPROF_CAPTURE_ADDRESS_HV: ctx = SYSPROF_ADDRESS_CONTEXT_HYPERVISOR; break;
    case SYSPROF_CAPTURE_ADDRESS_KERNEL: ctx = SYSPROF_ADDRESS_CONTEXT_KERNEL; break;
    case SYSPROF_CAPTURE_ADDRESS_USER: ctx = SYSPROF_ADDRESS_CONTEXT_USER; break;
    case SYSPROF_CAPTURE_ADDRESS_GUEST: ctx = SYSPROF_ADDRESS_CONTEXT_GUEST; break;
    case SYSPROF_CAPTURE_ADDRESS_GUEST_KERNEL: ctx = SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL; break;
    case SYSPROF_CAPTURE_ADDRESS_GUEST_USER: ctx = SYSPROF_ADDRESS_CONTEXT_GUEST_USER; break;
    default: ctx = SYSPROF_ADDRESS_CONTEXT_NONE; break;
    }

  if (context != NULL)
    *context = ctx;

  return ctx != SYSPROF_ADDRESS_CONTEXT_NONE;
}

const char *
sysprof_address_context_to_string (SysprofAddressContext context)
{
  switch (context)
    {
    case SYSPROF_ADDRESS_CONTEXT_HYPERVISOR: return "- - hypervisor - -";
    case SYSPROF_ADDRESS_CONTEXT_KERNEL: return "- - kernel - -";
    case SYSPROF_ADDRESS_CONTEXT_USER: return "- - user - -";
    case SYSPROF_ADDRESS_CONTEXT_GUEST: return "- - guest - -";
    case SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL: return "- - guest kernel - -";
    case SYSPROF_ADDRESS_CONTEXT_GUEST_USER: return "- - guest user - -";
    case SYSPROF_ADDRESS_CONTEXT_NONE:
    default: return "- - unknown - -";
    }
}
