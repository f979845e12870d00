/*
 * TAP lines and small helpers of the Mesa guest's test programs (tap.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tap.h"

int tap_checks, tap_failed, tap_skipped;
void (*tap_hook)(const char *name, const char *verdict);

void tap_ok(const char *name)
{
    printf("ok %d %s\n", ++tap_checks, name);
    if (tap_hook) {
        tap_hook(name, "ok");
    }
}

void tap_skip(const char *name, const char *why)
{
    printf("ok %d %s # SKIP %s\n", ++tap_checks, name, why);
    tap_skipped++;
    if (tap_hook) {
        tap_hook(name, "skip");
    }
}

void tap_fail(const char *name, const char *fmt, ...)
{
    va_list ap;

    printf("not ok %d %s - ", ++tap_checks, name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    tap_failed++;
    if (tap_hook) {
        tap_hook(name, "fail");
    }
}

void tap_report(const char *name, bool ok, const char *why)
{
    if (ok) {
        tap_ok(name);
    } else {
        tap_fail(name, "%s", why);
    }
}

bool tap_wanted(const char *only, const char *name)
{
    const char *p = only;
    size_t n;

    if (!only) {
        return true;
    }
    while (*p) {
        n = strcspn(p, ",");
        if (n && !strncmp(p, name, n) &&
            (!name[n] || name[n] == '/' || p[n - 1] == '/')) {
            return true;
        }
        p += n + (p[n] == ',');
    }
    return false;
}

double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

int tri_inside(const float v[3][2], double x, double y)
{
    double area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) -
                  (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
    int in = 1;

    for (int i = 0; i < 3; i++) {
        const float *a = v[i], *b = v[(i + 1) % 3];
        double dx = b[0] - a[0], dy = b[1] - a[1];
        double e = (dx * (y - a[1]) - dy * (x - a[0])) * (area > 0 ? 1 : -1);

        if (fabs(e) / sqrt(dx * dx + dy * dy) < 0.01) {
            in = -1;
        } else if (e < 0) {
            return 0;
        }
    }
    return in;
}

/* Inner vertex offsets: 1/4096 pixel, within +-40, never 8 mod 16 */
static int32_t snap_jitter(uint32_t seed)
{
    int32_t j = (int32_t)(hash32(seed) % 81) - 40;

    return (j & 15) == 8 ? j + 1 : j;
}

void snap_mesh(int32_t v[SNAP_TRIS][3][2])
{
    int32_t p[SNAP_CELLS + 1][SNAP_CELLS + 1][2];
    int t = 0;

    for (int j = 0; j <= SNAP_CELLS; j++) {
        for (int i = 0; i <= SNAP_CELLS; i++) {
            int idx[2] = { i, j };

            for (int k = 0; k < 2; k++) {
                /* a pixel centre, or a quarter pixel off one outside */
                int32_t base = (4 * 2 + 16 * idx[k] + 1) * SNAP_UNIT / 2;

                if (idx[k] == 0 || idx[k] == SNAP_CELLS) {
                    p[j][i][k] = base - SNAP_UNIT / 4;
                } else {
                    p[j][i][k] = base +
                                 snap_jitter((j * 9 + i) * 2 + k + 0x5eed);
                }
            }
        }
    }
    for (int j = 0; j < SNAP_CELLS; j++) {
        for (int i = 0; i < SNAP_CELLS; i++) {
            const int32_t *a = p[j][i], *b = p[j][i + 1];
            const int32_t *c = p[j + 1][i + 1], *d = p[j + 1][i];
            const int32_t *tri[2][3] = {
                { a, b, (i + j) & 1 ? d : c },
                { (i + j) & 1 ? b : a, c, d },
            };

            for (int n = 0; n < 2; n++, t++) {
                for (int k = 0; k < 3; k++) {
                    v[t][k][0] = tri[n][k][0];
                    v[t][k][1] = tri[n][k][1];
                }
            }
        }
    }
}

/*
 * Where pixel centre (@x, @y) lies against triangle @v in units of 1/@unit
 * pixel (the pixel centre is at @unit / 2): 1 strictly inside, 0 on an
 * edge, -1 outside
 */
static int snap_side(const int64_t v[3][2], int x, int y, int64_t unit)
{
    int64_t cx = x * unit + unit / 2, cy = y * unit + unit / 2;
    int64_t area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) -
                   (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
    int side = 1;

    for (int i = 0; i < 3; i++) {
        const int64_t *a = v[i], *b = v[(i + 1) % 3];
        int64_t e = (b[0] - a[0]) * (cy - a[1]) - (b[1] - a[1]) * (cx - a[0]);

        e = area > 0 ? e : -e;
        if (e < 0) {
            return -1;
        }
        side = e == 0 ? 0 : side;
    }
    return side;
}

bool snap_judge(const char *prog, const uint8_t img[SNAP_SIZE][SNAP_SIZE][4],
                char *why, size_t len)
{
    int decided = 0;
    static int32_t v[SNAP_TRIS][3][2];
    static int64_t sv[SNAP_TRIS][3][2], uv[SNAP_TRIS][3][2];
    bool ok = true;

    snap_mesh(v);
    for (int t = 0; t < SNAP_TRIS; t++) {
        for (int k = 0; k < 3; k++) {
            for (int c = 0; c < 2; c++) {
                /* to the nearest 1/256: never a tie (snap_jitter) */
                sv[t][k][c] = (v[t][k][c] + 8) / 16;
                uv[t][k][c] = v[t][k][c];
            }
        }
    }
    for (int y = 0; y < SNAP_SIZE; y++) {
        for (int x = 0; x < SNAP_SIZE; x++) {
            const uint8_t *px = img[y][x];
            int owner = 0, unsnapped = 0, ties = 0, tie_ok = 0;
            bool good;

            for (int t = 0; t < SNAP_TRIS; t++) {
                int s = snap_side(sv[t], x, y, 256);

                if (s > 0) {
                    owner = t + 1;
                } else if (s == 0) {
                    ties++;
                    tie_ok |= px[3] == t + 1;
                }
                if (snap_side(uv[t], x, y, SNAP_UNIT) > 0) {
                    unsnapped = t + 1;
                }
            }
            if (owner) {
                good = px[0] == 1 && px[3] == owner;
                decided += unsnapped && unsnapped != owner;
            } else if (ties) {
                /* the outer edges have none: this is a shared edge */
                good = ties >= 2 && px[0] == 1 && tie_ok;
            } else {
                good = px[0] == 0 && px[3] == 0;
            }
            good &= px[1] == 0 && px[2] == 0;
            if (!good && ok) {
                snprintf(why, len, "pixel (%d,%d) hit %d times, by "
                         "triangle %d; the snapped reference: triangle %d, "
                         "%d on its edges (unsnapped: triangle %d)", x, y,
                         px[0], px[3], owner, ties, unsnapped);
                ok = false;
            }
        }
    }
    printf("%s: subpixel-snap: %d pixels decided by the grid\n", prog,
           decided);
    if (ok && decided < 8) {
        snprintf(why, len, "only %d pixels decided by the grid", decided);
        ok = false;
    }
    return ok;
}

void a2c_judge(const char *prog, const char *prefix, const int *k, int size,
               int n)
{
    char why[160] = "", mwhy[160] = "", name[64];
    int band = size / 8;
    bool ends_ok = true, mono_ok = true;

    for (int b = 0; b < 8; b++) {
        double sum = 0, want = b * n / 7.0;

        for (int y = 0; y < size; y++) {
            for (int x = b * band; x < (b + 1) * band; x++) {
                int got = k[y * size + x];
                int left = b ? k[y * size + x - band] : 0;

                sum += got;
                if (ends_ok && ((b == 0 && got != 0) ||
                                (b == 7 && got != n))) {
                    snprintf(why, sizeof(why), "pixel (%d,%d) alpha %d/7 "
                             "covers %d of %d samples", x, y, b, got, n);
                    ends_ok = false;
                }
                if (mono_ok && got < left) {
                    snprintf(mwhy, sizeof(mwhy), "pixel (%d,%d) alpha %d/7 "
                             "covers %d samples, at %d/7 %d", x, y, b, got,
                             b - 1, left);
                    mono_ok = false;
                }
            }
        }
        sum /= size * band;
        if (mono_ok && fabs(sum - want) > 1) {
            snprintf(mwhy, sizeof(mwhy), "alpha %d/7 covers %.2f of %d "
                     "samples on average", b, sum, n);
            mono_ok = false;
        }
        printf("%s: %s: alpha %d/7 covers %.3f samples\n", prog, prefix, b,
               sum);
    }
    snprintf(name, sizeof(name), "%s-ends", prefix);
    tap_report(name, ends_ok, why);
    snprintf(name, sizeof(name), "%s-monotonic", prefix);
    tap_report(name, mono_ok, mwhy);
}
