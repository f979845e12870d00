/*
 * AGX: the driver's software floating point
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdbool.h>
#include <string.h>
#include "hw/arm/m1n1/agx-softfloat.h"

/*
 * Software floating point with the driver's rounding.  A number is kept as
 * sign, exponent and a fraction whose leading one sits at bit 32, so that
 * its value is frac * 2^(exp - 32).  Products drop the low 8 bits of each
 * factor, quotients those of the divisor, and packing rounds half up.
 */
typedef struct SoftFloat {
    bool neg;
    int32_t exp;
    int64_t frac;
} SoftFloat;

#define SF_LEAD_BIT     32

static bool sf_is_zero(SoftFloat v)
{
    return v.frac == 0 || v.exp < -126;
}

static bool sf_is_inf(SoftFloat v)
{
    return v.exp > 127;
}

static SoftFloat sf_norm(SoftFloat v)
{
    int top = v.frac ? 63 - __builtin_clzll((uint64_t)v.frac) : -1;

    if (top < SF_LEAD_BIT) {
        int shift = SF_LEAD_BIT - top;

        v.frac = shift > 63 ? 0 : v.frac << shift;
        v.exp -= shift;
    } else if (top > SF_LEAD_BIT) {
        v.frac >>= top - SF_LEAD_BIT;
        v.exp += top - SF_LEAD_BIT;
    }
    if (sf_is_zero(v)) {
        v.frac = 0;
        v.exp = 0;
    }
    return v;
}

static SoftFloat sf_unpack(uint32_t bits)
{
    SoftFloat v = {
        .neg = bits >> 31,
        .exp = (int32_t)((bits >> 23) & 0xff) - 127,
        .frac = (int64_t)((bits & 0x7fffff) | 0x800000) << 9,
    };

    return sf_norm(v);
}

static uint32_t sf_pack(SoftFloat v)
{
    uint32_t sign = v.neg ? 0x80000000u : 0;

    v = sf_norm(v);
    if (!sf_is_zero(v)) {
        v.frac += 0x100;
        v = sf_norm(v);
    }
    if (sf_is_inf(v)) {
        return sign | 0x7f800000;
    }
    if (sf_is_zero(v)) {
        return sign;
    }
    return sign | (uint32_t)(v.exp + 127) << 23 |
           (uint32_t)((v.frac >> 9) & 0x7fffff);
}

uint32_t agx_sf_from_u32(uint32_t v)
{
    SoftFloat f = { .neg = false, .exp = SF_LEAD_BIT, .frac = v };

    return sf_pack(sf_norm(f));
}

uint32_t agx_sf_from_i32(int32_t v)
{
    SoftFloat f = {
        .neg = v < 0, .exp = SF_LEAD_BIT, .frac = v < 0 ? -(int64_t)v : v,
    };

    return sf_pack(sf_norm(f));
}

uint32_t agx_sf_add(uint32_t a, uint32_t b)
{
    SoftFloat x = sf_unpack(a), y = sf_unpack(b);
    SoftFloat *lo = x.exp > y.exp ? &y : &x;
    int32_t exp = MAX(x.exp, y.exp);
    int32_t shift = exp - lo->exp;

    /* Align the smaller exponent to the larger one */
    if (shift > 63) {
        lo->frac = 0;
    } else {
        lo->frac >>= shift;
    }
    x.exp = exp;
    x.frac = x.neg == y.neg ? x.frac + y.frac : x.frac - y.frac;
    if (x.frac < 0) {
        x.neg = !x.neg;
        x.frac = -x.frac;
    }
    return sf_pack(x);
}

uint32_t agx_sf_sub(uint32_t a, uint32_t b)
{
    return agx_sf_add(a, b ^ 0x80000000u);
}

uint32_t agx_sf_mul(uint32_t a, uint32_t b)
{
    SoftFloat x = sf_unpack(a), y = sf_unpack(b);
    SoftFloat r = {
        .neg = x.neg != y.neg,
        .exp = x.exp + y.exp,
        .frac = ((x.frac >> 8) * (y.frac >> 8)) >> 16,
    };

    return sf_pack(r);
}

uint32_t agx_sf_div(uint32_t a, uint32_t b)
{
    SoftFloat x = sf_unpack(a), y = sf_unpack(b);
    SoftFloat r;

    if (y.frac == 0 || sf_is_inf(x)) {
        return (x.neg ? 0x80000000u : 0) | 0x7f800000;
    }
    r.neg = x.neg != y.neg;
    r.exp = x.exp - y.exp;
    r.frac = (x.frac << 24) / (y.frac >> 8);
    return sf_pack(r);
}

uint32_t agx_f32_bits(float f)
{
    uint32_t bits;

    memcpy(&bits, &f, sizeof(bits));
    return bits;
}

float agx_f32_value(uint32_t bits)
{
    float f;

    memcpy(&f, &bits, sizeof(f));
    return f;
}
