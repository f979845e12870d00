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
#include <stddef.h>
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

/*
 * The subpixel-snap mesh (gles-scene's and vk-draw's subpixel-snap): a
 * SNAP_SIZE square framebuffer, a grid of SNAP_CELLS^2 cells of 8 pixels
 * split into two triangles each, whose inner vertices lie a few 1/256
 * steps and a fraction of one off pixel centres (never half a step off a
 * grid point); the outer edges lie a quarter pixel off the centres.  The
 * positions are window pixels in 1/4096 (x right, y as the API's window
 * y: row y of the image read back).
 */
#define SNAP_SIZE   64
#define SNAP_CELLS  7
#define SNAP_TRIS   (2 * SNAP_CELLS * SNAP_CELLS)
#define SNAP_UNIT   4096

void snap_mesh(int32_t v[SNAP_TRIS][3][2]);

/*
 * Judge @img (RGBA8, row y = window y) drawn from snap_mesh with additive
 * blending: red 1/255 per triangle covering a pixel, alpha = triangle
 * index + 1 (replaced).  Against a reference that snaps the vertices to
 * the 1/256 pixel grid: a pixel centre strictly inside a snapped triangle
 * is that one's alone; one on an edge shared by snapped triangles (where
 * the API's fill rule decides) must be one of them's; every pixel is hit
 * at most once, none inside the mesh is missed; and at least 8 pixels
 * are ones whose triangle the snapping decides (an unsnapped rasterizer
 * gives them another's), their count printed for @prog.  True if all
 * agree; else @why says where not.
 */
bool snap_judge(const char *prog, const uint8_t img[SNAP_SIZE][SNAP_SIZE][4],
                char *why, size_t len);

/*
 * Alpha-to-coverage: @k[y * @size + x] is the samples (of @n) covered at
 * pixel (x, y) of a square frame drawn with alpha b / 7 in band b, the
 * columns [b size / 8, (b + 1) size / 8).  The APIs leave the mask to
 * the implementation (llvmpipe dithers it over the pixels) but for its
 * ends: alpha 0 covers no sample, alpha 1 all (@prefix-ends); the count
 * is meant to grow with alpha, proportional to it (@prefix-monotonic: a
 * pixel covers at least the samples the pixel a band to its left does,
 * which has the same place in any dither pattern whose period divides the
 * band; a band's mean within one sample of alpha n).  Two TAP lines; the
 * bands' means printed after "@prog: ".
 */
void a2c_judge(const char *prog, const char *prefix, const int *k, int size,
               int n);

#endif
