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
