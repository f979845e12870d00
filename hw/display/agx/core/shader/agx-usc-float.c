/*
 * AGX USC interpreter: floating-point conversions and the fused
 * multiply-add, on the host's IEEE doubles
 *
 * Every f16 and f32 value is exact in a double, and so is the product of
 * two of them; the arithmetic is done on doubles and rounded once to the
 * destination format.  A sum of two f32 (or f16) values rounded to double
 * and then to f32 is still correctly rounded (53 >= 2 * 24 + 2 bits), so
 * only the fused multiply-add needs care: its double is rounded to odd,
 * which makes the final rounding exact.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-usc-internal.h"

static uint64_t dbits(double d)
{
    uint64_t u;

    memcpy(&u, &d, sizeof(u));
    return u;
}

/* Round the non-negative value @a to an integer in mode @round */
static double round_mag(double a, bool neg, int round)
{
    switch (round) {
    case AGX_ROUND_RTZ:
        return trunc(a);
    case AGX_ROUND_RTN:
        return neg ? ceil(a) : floor(a);
    case AGX_ROUND_RTP:
        return neg ? floor(a) : ceil(a);
    default:
        return nearbyint(a);    /* the host's default: to nearest, even */
    }
}

/*
 * Double to f16 with denormals (f16 denormals are kept, agx-shaders.md §4
 * from applegpu's fma.py f64_to_f16 with ftz=False); NaN gives the default
 * NaN 0x7e00 (applegpu fma.py ARM64_NANS = False: no payloads)
 */
/*
 * The same in mode AGX_ROUND_RTE, on the double's bits: the quantum and
 * the rounding to nearest even as the general code does them, with
 * integers (test-usc compares the two on every f16, the midpoints between
 * them and their neighbours).  f16 (q + 24) << 10 plus r, r the magnitude
 * in quanta 2^q, covers denormals (q = -24, r < 1024), normals (r in
 * [1024, 2047]), a carry into the next binade (r = 2048) and overflow
 * (0x7c00, the infinity).
 */
static uint16_t f64_to_f16_rte(double d)
{
    uint64_t u = dbits(d), m = u & ((1ull << 52) - 1), r, rem, half;
    uint16_t sign = (u >> 48) & 0x8000;
    int ex = (u >> 52) & 0x7ff, e, q, sh;

    if (ex == 0x7ff) {
        return m ? 0x7e00 : sign | 0x7c00;
    }
    if (ex == 0) {
        return sign;            /* zero, or far below half a quantum */
    }
    e = ex - 1023;              /* |d| in [2^e, 2^(e + 1)) */
    if (e >= 16) {
        return sign | 0x7c00;   /* at least 65536: beyond 65504 */
    }
    q = MAX(e - 10, -24);       /* the f16 quantum at this exponent */
    sh = 52 + q - e;            /* |d| / 2^q = (m | 2^52) / 2^sh */
    if (sh > 63) {
        return sign;
    }
    m |= 1ull << 52;
    r = m >> sh;
    rem = m & ((1ull << sh) - 1);
    half = 1ull << (sh - 1);
    if (rem > half || (rem == half && (r & 1))) {
        r++;
    }
    return sign | (uint16_t)(((q + 24) << 10) + r);
}

uint16_t usc_f64_to_f16(double d, int round)
{
    const double f16_min_normal = 1.0 / 16384;      /* 2^-14 */
    uint16_t sign = (dbits(d) >> 48) & 0x8000;
    double a = fabs(d), r, v;
    int e, q;

    if (round == AGX_ROUND_RTE && !agx_usc_general_paths) {
        return f64_to_f16_rte(d);
    }
    if (isnan(d)) {
        return 0x7e00;
    }
    if (a == 0) {
        return sign;
    }
    if (isinf(a)) {
        return sign | 0x7c00;
    }
    frexp(a, &e);               /* a = m * 2^e, m in [0.5, 1) */
    q = e - 1 - 10;             /* the f16 quantum at this exponent */
    if (q < -24) {
        q = -24;                /* denormals: quantum 2^-24 */
    }
    if (q > 16) {
        q = 16;                 /* far beyond the range: overflows below */
    }
    r = round_mag(ldexp(a, -q), sign, round);
    v = ldexp(r, q);
    if (v > 65504.0) {
        bool to_max = round == AGX_ROUND_RTZ ||
                      (round == AGX_ROUND_RTN && !sign) ||
                      (round == AGX_ROUND_RTP && sign);
        return sign | (to_max ? 0x7bff : 0x7c00);
    }
    if (v < f16_min_normal) {
        return sign | (uint16_t)ldexp(v, 24);
    }
    frexp(v, &e);
    return sign | (uint16_t)((e - 1 + 15) << 10) |
           ((uint16_t)ldexp(v, 11 - e) & 0x3ff);
}

/* 2^@k for a normal double's exponent, from its bits */
static double pow2(int k)
{
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double d;

    memcpy(&d, &b, sizeof(d));
    return d;
}

double usc_f16_to_f64(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    double m = h & 0x3ff, v;

    /* (products by powers of two: exact, what ldexp gives) */
    if (e == 0x1f) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = m * pow2(-24);
    } else {
        v = (m + 1024) * pow2(e - 25);
    }
    return (h & 0x8000) ? -v : v;
}

/*
 * 8-bit float immediates: sign bit 7, exponent 6:4, mantissa 3:0; value
 * m/64 for exponent 0, else (16 + m) * 2^(e - 7) (agx-shaders.md §3.2,
 * applegpu decode_float_immediate)
 */
float usc_minifloat(uint8_t v)
{
    int e = (v >> 4) & 7;
    float m = v & 15;
    float f = e ? ldexpf(16 + m, e - 7) : m / 64.0f;

    return (v & 0x80) ? -f : f;
}

/* The sRGB transfer function and its inverse, on [0, 1] */
double usc_srgb_to_linear(double x)
{
    return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

double usc_linear_to_srgb(double x)
{
    return x <= 0.0031308 ? x * 12.92 : 1.055 * pow(x, 1 / 2.4) - 0.055;
}

/* Small float formats: @mb mantissa bits, 5 exponent bits, no sign */
double usc_small_float(uint32_t v, unsigned mb)
{
    unsigned e = (v >> mb) & 31;
    uint32_t m = v & ((1u << mb) - 1);

    if (e == 31) {
        return m ? NAN : INFINITY;
    }
    if (!e) {
        return ldexp(m, -14 - (int)mb);
    }
    return ldexp(m + (1u << mb), e - 15 - (int)mb);
}
