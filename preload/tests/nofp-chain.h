// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* Call chains without frame pointers: see nofp-chain.c. */

typedef void (*SysprofNofpLeaf) (void *data);

/* Calls @leaf (@data) at the end of @path: one frame per character ('a',
 * 'b', 'c', 'q', 'v': the shape of each frame), outermost first. */
void sysprof_nofp_chain (const char *path, SysprofNofpLeaf leaf, void *data);
