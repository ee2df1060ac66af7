// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

/* Spins for @budget_ns of wall-clock time inside libhotlib.so. */
unsigned long hot_compute_b (double budget_ns);
