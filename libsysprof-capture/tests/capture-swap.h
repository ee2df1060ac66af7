// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rewrites a little-endian capture held in @data as a big-endian host would
 * have written it: every numeric field byte-swapped and every bitfield moved
 * to the big-endian GCC position.  Deliberately independent of the library's
 * own conversion code so the test compares two implementations.  Returns
 * false on a frame it cannot parse. */
bool capture_swap_to_big_endian (uint8_t *data, size_t len);
