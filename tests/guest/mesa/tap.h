/*
 * What the Mesa guest's test programs share besides EGL and Vulkan: TAP
 * lines ("ok N name", "ok N name # SKIP why", "not ok N name - why"),
 * counted, which scripts/tap-check.py judges on the host; the --only
 * filter; a clock; a hash for test data; where a sample lies against a
 * triangle, for the programs' CPU references.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AGX_GUEST_TAP_H
#define AGX_GUEST_TAP_H

#include <stdbool.h>
#include <stdint.h>

/* Lines printed so far, those that were "not ok", those skipped */
extern int tap_checks, tap_failed, tap_skipped;

/* Called after each line with "ok", "skip" or "fail" (NULL: none) */
extern void (*tap_hook)(const char *name, const char *verdict);

void tap_ok(const char *name);
void tap_skip(const char *name, const char *why);
void tap_fail(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* tap_ok, or tap_fail with @why */
void tap_report(const char *name, bool ok, const char *why);

/*
 * Is check @name in @only, a comma list of names and of groups ending in
 * '/' ("cs/" wants "cs/fill"), or a group named without it ("cs")?
 * Everything is when @only is NULL.
 */
bool tap_wanted(const char *only, const char *name);

/* CLOCK_MONOTONIC in milliseconds */
double now_ms(void);

/* A well-mixed 32-bit hash (for test data) */
uint32_t hash32(uint32_t x);

/*
 * The point (@x, @y) against the triangle @v (either winding): 1 inside,
 * 0 outside, -1 within 1/100 pixel of an edge (where the fill rule and
 * the GPU's subpixel grid decide: a CPU reference leaves it unjudged)
 */
int tri_inside(const float v[3][2], double x, double y);

#endif
