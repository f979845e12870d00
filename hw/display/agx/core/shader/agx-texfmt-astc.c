/*
 * AGX texture sampler: ASTC 2D blocks
 *
 * As the Khronos Data Format Specification's "ASTC Compressed Texture
 * Image Formats" defines them, in its LDR profile (UNORM and sRGB
 * views) and its HDR profile (Type Float views, as cmdbuf.xml has it):
 * 128-bit blocks of 4x4 to 12x12 texels, the block mode (weight grid,
 * weight range, dual plane), one to four partitions (the specification's
 * partition hash), the colour endpoint modes, integer sequence encoding
 * (trits and quints) for endpoints and weights, weight infill, and
 * void-extent (constant colour) blocks.  Illegal encodings, and in the
 * LDR profile HDR endpoint modes and HDR void extents, read the error
 * colour, opaque magenta.  Results: for LDR endpoints in UNORM and HDR
 * views the specification's decode_float16 (the 16-bit interpolation over
 * 65536, rounded towards zero to a half float, 65535 reading 1.0), the
 * decode mode Vulkan defaults to (VK_EXT_astc_decode_mode); for sRGB
 * views its only result, the top 8 bits; for HDR endpoints the 16-bit
 * interpolation of the 12-bit pseudo-logarithmic values, its mantissa
 * bent into a half float (Inf and NaN read the largest finite one, as
 * do those of HDR void extents, which are undefined).  The
 * hardware's own choice is not documented.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include <string.h>
#include "agx-texfmt.h"

/* Block footprints of Channels 0x60..0x6d (cmdbuf.xml) */
static const uint8_t footprint[14][2] = {
    { 4, 4 }, { 5, 4 }, { 5, 5 }, { 6, 5 }, { 6, 6 }, { 8, 5 }, { 8, 6 },
    { 8, 8 }, { 10, 5 }, { 10, 6 }, { 10, 8 }, { 10, 10 }, { 12, 10 },
    { 12, 12 },
};

void agx_texfmt_astc_footprint(unsigned channels, unsigned *bw,
                               unsigned *bh)
{
    unsigned i = channels - AGX_TEXFMT_ASTC_FIRST;

    *bw = footprint[i % 14][0];
    *bh = footprint[i % 14][1];
}

/* A range of integer sequence encoding: trits, quints, plain bits */
typedef struct Ise {
    uint8_t t, q, n;
} Ise;

/* Weight ranges by P << 3 | rho (rho 2..7) */
static const Ise weight_range[16] = {
    [2] = { 0, 0, 1 }, [3] = { 1, 0, 0 }, [4] = { 0, 0, 2 },
    [5] = { 0, 1, 0 }, [6] = { 1, 0, 1 }, [7] = { 0, 0, 3 },
    [10] = { 0, 1, 1 }, [11] = { 1, 0, 2 }, [12] = { 0, 0, 4 },
    [13] = { 0, 1, 2 }, [14] = { 1, 0, 3 }, [15] = { 0, 0, 5 },
};

/* Endpoint ranges, largest first, down to 0..5 */
static const Ise colour_range[17] = {
    { 0, 0, 8 }, { 1, 0, 6 }, { 0, 1, 5 }, { 0, 0, 7 }, { 1, 0, 5 },
    { 0, 1, 4 }, { 0, 0, 6 }, { 1, 0, 4 }, { 0, 1, 3 }, { 0, 0, 5 },
    { 1, 0, 3 }, { 0, 1, 2 }, { 0, 0, 4 }, { 1, 0, 2 }, { 0, 1, 1 },
    { 0, 0, 3 }, { 1, 0, 1 },
};

static unsigned ise_bits(unsigned count, Ise r)
{
    return (count * 8 * r.t + 4) / 5 + (count * 7 * r.q + 2) / 3 +
           count * r.n;
}

/* Bits [start, start + n) of a 128-bit little-endian block; 0 beyond */
static unsigned get(const uint8_t *b, unsigned start, unsigned n)
{
    unsigned v = 0;

    for (unsigned k = 0; k < n; k++) {
        unsigned bit = start + k;

        if (bit < 128) {
            v |= ((b[bit / 8] >> (bit % 8)) & 1u) << k;
        }
    }
    return v;
}

static unsigned bit(unsigned v, unsigned i)
{
    return (v >> i) & 1;
}

/* Five trits from 8 bits T (the specification's bit manipulation) */
static void trits(unsigned T, unsigned t[5])
{
    unsigned C;

    if (((T >> 2) & 7) == 7) {
        C = ((T >> 5) & 7) << 2 | (T & 3);
        t[4] = t[3] = 2;
    } else {
        C = T & 31;
        if (((T >> 5) & 3) == 3) {
            t[4] = 2;
            t[3] = bit(T, 7);
        } else {
            t[4] = bit(T, 7);
            t[3] = (T >> 5) & 3;
        }
    }
    if ((C & 3) == 3) {
        t[2] = 2;
        t[1] = bit(C, 4);
        t[0] = bit(C, 3) << 1 | (bit(C, 2) & !bit(C, 3));
    } else if (((C >> 2) & 3) == 3) {
        t[2] = 2;
        t[1] = 2;
        t[0] = C & 3;
    } else {
        t[2] = bit(C, 4);
        t[1] = (C >> 2) & 3;
        t[0] = bit(C, 1) << 1 | (bit(C, 0) & !bit(C, 1));
    }
}

/* Three quints from 7 bits Q */
static void quints(unsigned Q, unsigned q[3])
{
    unsigned C;

    if (((Q >> 1) & 3) == 3 && ((Q >> 5) & 3) == 0) {
        q[2] = bit(Q, 0) << 2 | (bit(Q, 4) & !bit(Q, 0)) << 1 |
               (bit(Q, 3) & !bit(Q, 0));
        q[1] = q[0] = 4;
        return;
    }
    if (((Q >> 1) & 3) == 3) {
        q[2] = 4;
        C = ((Q >> 3) & 3) << 3 | (~(Q >> 5) & 3) << 1 | bit(Q, 0);
    } else {
        q[2] = (Q >> 5) & 3;
        C = Q & 31;
    }
    if ((C & 7) == 5) {
        q[1] = 4;
        q[0] = (C >> 3) & 3;
    } else {
        q[1] = (C >> 3) & 3;
        q[0] = C & 7;
    }
}

/*
 * @count values of range @r from bit @start of @b: each value's trit or
 * quint in v[i] >> 8, its low bits in v[i] & 0xff; the bits a last,
 * partial trit or quint block lacks read 0
 */
static void ise_decode(const uint8_t *b, unsigned start, unsigned count,
                       Ise r, unsigned *v)
{
    unsigned pos = start, end = start + ise_bits(count, r);
    uint8_t lim[16] = { 0 };

    /* a copy of the sequence's bits alone */
    for (unsigned k = start; k < end && k < 128; k++) {
        lim[k / 8] |= ((b[k / 8] >> (k % 8)) & 1) << (k % 8);
    }
    b = lim;

    for (unsigned i = 0; i < count;) {
        if (r.t) {
            unsigned m[5], t[5], T = 0;
            static const uint8_t tb[5][2] = {
                { 0, 2 }, { 2, 2 }, { 4, 1 }, { 5, 2 }, { 7, 1 },
            };

            for (unsigned k = 0; k < 5; k++) {
                m[k] = get(b, pos, r.n);
                pos += r.n;
                T |= get(b, pos, tb[k][1]) << tb[k][0];
                pos += tb[k][1];
            }
            trits(T, t);
            for (unsigned k = 0; k < 5 && i < count; k++, i++) {
                v[i] = t[k] << 8 | m[k];
            }
        } else if (r.q) {
            unsigned m[3], q[3], Q = 0;
            static const uint8_t qb[3][2] = { { 0, 3 }, { 3, 2 }, { 5, 2 } };

            for (unsigned k = 0; k < 3; k++) {
                m[k] = get(b, pos, r.n);
                pos += r.n;
                Q |= get(b, pos, qb[k][1]) << qb[k][0];
                pos += qb[k][1];
            }
            quints(Q, q);
            for (unsigned k = 0; k < 3 && i < count; k++, i++) {
                v[i] = q[k] << 8 | m[k];
            }
        } else {
            v[i++] = get(b, pos, r.n);
            pos += r.n;
        }
    }
}

/* Replicate an n-bit value's bits to @to bits */
static unsigned replicate(unsigned v, unsigned n, unsigned to)
{
    unsigned out = 0, have = 0;

    if (!n) {
        return 0;
    }
    while (have < to) {
        out = out << n | v;
        have += n;
    }
    return out >> (have - to);
}

/*
 * The B term of the trit/quint unquantization: the value's bits above
 * bit 0 spread as the specification's tables place them
 */
static unsigned unq_b(unsigned m, unsigned n, bool trit, bool colour)
{
    /* masks for bits b, c, d, e, f of m (m bit 1 up) */
    static const uint16_t colour_t[7][5] = {
        [2] = { 0x116 }, [3] = { 0x85, 0x10a },
        [4] = { 0x41, 0x82, 0x104 }, [5] = { 0x20, 0x40, 0x81, 0x102 },
        [6] = { 0x10, 0x20, 0x40, 0x80, 0x101 },
    };
    static const uint16_t colour_q[6][4] = {
        [2] = { 0x10c }, [3] = { 0x82, 0x105 }, [4] = { 0x40, 0x81, 0x102 },
        [5] = { 0x20, 0x40, 0x80, 0x101 },
    };
    static const uint8_t weight_t[4][2] = {
        [2] = { 0x45 }, [3] = { 0x21, 0x42 },
    };
    static const uint8_t weight_q[3][1] = { [2] = { 0x42 } };
    unsigned b = 0;

    for (unsigned k = 1; k < n; k++) {
        unsigned mask;

        if (colour) {
            mask = trit ? colour_t[n][k - 1] : colour_q[n][k - 1];
        } else {
            mask = trit ? weight_t[n][k - 1] : weight_q[n][0];
        }
        b += bit(m, k) * mask;
    }
    return b;
}

/* An endpoint value of range @r to 0..255 */
static unsigned unq_colour(unsigned v, Ise r)
{
    static const uint8_t ct[7] = { 0, 204, 93, 44, 22, 11, 5 };
    static const uint8_t cq[6] = { 0, 113, 54, 26, 13, 6 };
    unsigned m = v & 0xff, d = v >> 8, a, u;

    if (!r.t && !r.q) {
        return replicate(m, r.n, 8);
    }
    a = (m & 1) ? 0x1ff : 0;
    u = d * (r.t ? ct[r.n] : cq[r.n]) + unq_b(m, r.n, r.t, true);
    u ^= a;
    return (a & 0x80) | (u >> 2);
}

/* A weight of range @r to 0..64 */
static unsigned unq_weight(unsigned v, Ise r)
{
    static const uint8_t wt[4] = { 0, 50, 23, 11 };
    static const uint8_t wq[3] = { 0, 28, 13 };
    unsigned m = v & 0xff, d = v >> 8, a, u;

    if (!r.t && !r.q) {
        u = replicate(m, r.n, 6);
    } else if (!r.n) {
        static const uint8_t t0[3] = { 0, 32, 63 };
        static const uint8_t q0[5] = { 0, 16, 32, 47, 63 };

        u = r.t ? t0[d % 3] : q0[d % 5];
    } else {
        a = (m & 1) ? 0x7f : 0;
        u = d * (r.t ? wt[r.n] : wq[r.n]) + unq_b(m, r.n, r.t, false);
        u ^= a;
        u = (a & 0x20) | (u >> 2);
    }
    return u > 32 ? u + 1 : u;
}

/* The specification's partition hash and selection */
static uint32_t hash52(uint32_t p)
{
    p ^= p >> 15;
    p -= p << 17;
    p += p << 7;
    p += p << 4;
    p ^= p >> 5;
    p += p << 16;
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    return p;
}

static unsigned select_partition(unsigned seed, unsigned x, unsigned y,
                                 unsigned count, bool small)
{
    uint32_t r;
    unsigned s[12], sh1, sh2, sh3, a, b, c, d;

    if (small) {
        x <<= 1;
        y <<= 1;
    }
    seed += (count - 1) * 1024;
    r = hash52(seed);
    for (unsigned k = 0; k < 8; k++) {
        s[k] = (r >> (4 * k)) & 15;
    }
    s[8] = (r >> 18) & 15;
    s[9] = (r >> 22) & 15;
    s[10] = (r >> 26) & 15;
    s[11] = ((r >> 30) | (r << 2)) & 15;
    for (unsigned k = 0; k < 12; k++) {
        s[k] *= s[k];
    }
    if (seed & 1) {
        sh1 = seed & 2 ? 4 : 5;
        sh2 = count == 3 ? 6 : 5;
    } else {
        sh1 = count == 3 ? 6 : 5;
        sh2 = seed & 2 ? 4 : 5;
    }
    sh3 = seed & 0x10 ? sh1 : sh2;
    for (unsigned k = 0; k < 8; k++) {
        s[k] >>= k & 1 ? sh2 : sh1;
    }
    for (unsigned k = 8; k < 12; k++) {
        s[k] >>= sh3;
    }
    /* z is 0 in 2D: seeds 11, 12, 9, 10 drop out */
    a = (s[0] * x + s[1] * y + (r >> 14)) & 0x3f;
    b = (s[2] * x + s[3] * y + (r >> 10)) & 0x3f;
    c = (s[4] * x + s[5] * y + (r >> 6)) & 0x3f;
    d = (s[6] * x + s[7] * y + (r >> 2)) & 0x3f;
    if (count < 4) {
        d = 0;
    }
    if (count < 3) {
        c = 0;
    }
    if (a >= b && a >= c && a >= d) {
        return 0;
    }
    if (b >= c && b >= d) {
        return 1;
    }
    return c >= d ? 2 : 3;
}

/* Decoded block mode */
typedef struct Mode {
    unsigned w, h;
    bool dual;
    Ise range;
} Mode;

static bool block_mode(unsigned bm, Mode *m)
{
    unsigned rho, p = bit(bm, 9), a = (bm >> 5) & 3, b = (bm >> 7) & 3;

    m->dual = bit(bm, 10);
    if (bm & 3) {
        rho = bit(bm, 4) | bit(bm, 0) << 1 | bit(bm, 1) << 2;
        switch ((bm >> 2) & 3) {
        case 0:
            m->w = b + 4;
            m->h = a + 2;
            break;
        case 1:
            m->w = b + 8;
            m->h = a + 2;
            break;
        case 2:
            m->w = a + 2;
            m->h = b + 8;
            break;
        default:
            if (bit(bm, 8)) {
                m->w = bit(bm, 7) + 2;
                m->h = a + 2;
            } else {
                m->w = a + 2;
                m->h = bit(bm, 7) + 6;
            }
            break;
        }
    } else {
        rho = bit(bm, 4) | bit(bm, 2) << 1 | bit(bm, 3) << 2;
        if (!(bm & 15)) {
            return false;
        }
        switch (b) {
        case 0:
            m->w = 12;
            m->h = a + 2;
            break;
        case 1:
            m->w = a + 2;
            m->h = 12;
            break;
        case 2:
            m->w = a + 6;
            m->h = ((bm >> 9) & 3) + 6;
            m->dual = false;
            p = 0;
            break;
        default:
            if (a == 0) {
                m->w = 6;
                m->h = 10;
            } else if (a == 1) {
                m->w = 10;
                m->h = 6;
            } else {
                return false;
            }
            break;
        }
    }
    if (rho < 2) {
        return false;
    }
    m->range = weight_range[p << 3 | rho];
    return true;
}

static void bit_transfer_signed(int *a, int *b)
{
    *b >>= 1;
    *b |= *a & 0x80;
    *a >>= 1;
    *a &= 0x3f;
    if (*a & 0x20) {
        *a -= 0x40;
    }
}

static void blue_contract(int c[4])
{
    c[0] = (c[0] + c[2]) >> 1;
    c[1] = (c[1] + c[2]) >> 1;
}

static int clamp8(int v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/*
 * HDR endpoints (the specification's procedures): 12-bit
 * pseudo-logarithmic values; alpha 0x780 (1.0) unless the mode has its
 * own.  False for LDR modes.
 */
static int clamp12(int v)
{
    return v < 0 ? 0 : v > 0xfff ? 0xfff : v;
}

/* The low @bits of @v as a signed number */
static int sign_extend(int v, int bits)
{
    v &= (1 << bits) - 1;
    return v & (1 << (bits - 1)) ? v - (1 << bits) : v;
}

static void swap_int(int *a, int *b)
{
    int t = *a;

    *a = *b;
    *b = t;
}

/* Mode 7: a base colour and a scale, with a major component */
static void hdr_mode7(const int *v, int e0[4], int e1[4])
{
    static const int shamts[6] = { 1, 1, 2, 3, 4, 5 };
    int modeval = ((v[0] & 0xc0) >> 6) | ((v[1] & 0x80) >> 5) |
                  ((v[2] & 0x80) >> 4);
    int majcomp, mode, ohm, shamt;
    int r = v[0] & 0x3f, g = v[1] & 0x1f, b = v[2] & 0x1f, s = v[3] & 0x1f;
    int x0 = (v[1] >> 6) & 1, x1 = (v[1] >> 5) & 1;
    int x2 = (v[2] >> 6) & 1, x3 = (v[2] >> 5) & 1;
    int x4 = (v[3] >> 7) & 1, x5 = (v[3] >> 6) & 1, x6 = (v[3] >> 5) & 1;

    if ((modeval & 0xc) != 0xc) {
        majcomp = modeval >> 2;
        mode = modeval & 3;
    } else if (modeval != 0xf) {
        majcomp = modeval & 3;
        mode = 4;
    } else {
        majcomp = 0;
        mode = 5;
    }
    /* where the extra bits go, by endpoint bit mode (a bit per mode) */
    ohm = 1 << mode;
    g |= (ohm & 0x30 ? x0 << 6 : 0) | (ohm & 0x3a ? x1 << 5 : 0);
    b |= (ohm & 0x30 ? x2 << 6 : 0) | (ohm & 0x3a ? x3 << 5 : 0);
    s |= (ohm & 0x3d ? x6 << 5 : 0) | (ohm & 0x2d ? x5 << 6 : 0) |
         (ohm & 0x04 ? x4 << 7 : 0);
    r |= (ohm & 0x3b ? x4 << 6 : 0) | (ohm & 0x04 ? x3 << 6 : 0) |
         (ohm & 0x10 ? x5 << 7 : 0) | (ohm & 0x0f ? x2 << 7 : 0) |
         (ohm & 0x05 ? x1 << 8 : 0) | (ohm & 0x0a ? x0 << 8 : 0) |
         (ohm & 0x05 ? x0 << 9 : 0) | (ohm & 0x02 ? x6 << 9 : 0) |
         (ohm & 0x01 ? x3 << 10 : 0) | (ohm & 0x02 ? x5 << 10 : 0);
    shamt = shamts[mode];
    r <<= shamt;
    g <<= shamt;
    b <<= shamt;
    s <<= shamt;
    if (mode != 5) {
        g = r - g;
        b = r - b;
    }
    if (majcomp == 1) {
        swap_int(&r, &g);
    } else if (majcomp == 2) {
        swap_int(&r, &b);
    }
    e1[0] = clamp12(r);
    e1[1] = clamp12(g);
    e1[2] = clamp12(b);
    e0[0] = clamp12(r - s);
    e0[1] = clamp12(g - s);
    e0[2] = clamp12(b - s);
    e0[3] = e1[3] = 0x780;
}

/* Mode 11 (and 14, 15's colour): two colours, or their direct values */
static void hdr_mode11(const int *v, int e0[4], int e1[4])
{
    static const int dbits[8] = { 7, 6, 7, 6, 5, 6, 5, 6 };
    int majcomp = ((v[4] & 0x80) >> 7) | ((v[5] & 0x80) >> 6);
    int mode, a, b0, b1, c, d0, d1, ohm, shamt;
    int x0, x1, x2, x3, x4, x5;

    e0[3] = e1[3] = 0x780;
    if (majcomp == 3) {
        e0[0] = v[0] << 4;
        e1[0] = v[1] << 4;
        e0[1] = v[2] << 4;
        e1[1] = v[3] << 4;
        e0[2] = (v[4] & 0x7f) << 5;
        e1[2] = (v[5] & 0x7f) << 5;
        return;
    }
    mode = ((v[1] & 0x80) >> 7) | ((v[2] & 0x80) >> 6) | ((v[3] & 0x80) >> 5);
    a = v[0] | ((v[1] & 0x40) << 2);
    b0 = v[2] & 0x3f;
    b1 = v[3] & 0x3f;
    c = v[1] & 0x3f;
    d0 = sign_extend(v[4] & 0x7f, dbits[mode]);
    d1 = sign_extend(v[5] & 0x7f, dbits[mode]);
    x0 = (v[2] >> 6) & 1;
    x1 = (v[3] >> 6) & 1;
    x2 = (v[4] >> 6) & 1;
    x3 = (v[5] >> 6) & 1;
    x4 = (v[4] >> 5) & 1;
    x5 = (v[5] >> 5) & 1;
    ohm = 1 << mode;
    a |= (ohm & 0xa4 ? x0 << 9 : 0) | (ohm & 0x08 ? x2 << 9 : 0) |
         (ohm & 0x50 ? x4 << 9 : 0) | (ohm & 0x50 ? x5 << 10 : 0) |
         (ohm & 0xa0 ? x1 << 10 : 0) | (ohm & 0xc0 ? x2 << 11 : 0);
    c |= (ohm & 0x04 ? x1 << 6 : 0) | (ohm & 0xe8 ? x3 << 6 : 0) |
         (ohm & 0x20 ? x2 << 7 : 0);
    b0 |= (ohm & 0x5b ? x0 << 6 : 0) | (ohm & 0x12 ? x2 << 7 : 0);
    b1 |= (ohm & 0x5b ? x1 << 6 : 0) | (ohm & 0x12 ? x3 << 7 : 0);
    /* the major component at the top of the 12 bits */
    shamt = (mode >> 1) ^ 3;
    a <<= shamt;
    b0 <<= shamt;
    b1 <<= shamt;
    c <<= shamt;
    d0 <<= shamt;
    d1 <<= shamt;
    e1[0] = clamp12(a);
    e1[1] = clamp12(a - b0);
    e1[2] = clamp12(a - b1);
    e0[0] = clamp12(a - c);
    e0[1] = clamp12(a - b0 - c - d0);
    e0[2] = clamp12(a - b1 - c - d1);
    if (majcomp == 1) {
        swap_int(&e0[0], &e0[1]);
        swap_int(&e1[0], &e1[1]);
    } else if (majcomp == 2) {
        swap_int(&e0[0], &e0[2]);
        swap_int(&e1[0], &e1[2]);
    }
}

/* @hdr[c]: channel c's endpoints are HDR (else 8-bit LDR) */
static bool hdr_endpoints(unsigned cem, const unsigned *u, int e0[4],
                          int e1[4], bool hdr[4])
{
    int v[8];

    for (int k = 0; k < 8; k++) {
        v[k] = u[k];
    }
    hdr[0] = hdr[1] = hdr[2] = hdr[3] = true;
    switch (cem) {
    case 2:
        if (v[1] >= v[0]) {
            e0[0] = v[0] << 4;
            e1[0] = v[1] << 4;
        } else {
            e0[0] = (v[1] << 4) + 8;
            e1[0] = (v[0] << 4) - 8;
        }
        break;
    case 3:
        if (v[0] & 0x80) {
            e0[0] = ((v[1] & 0xe0) << 4) | ((v[0] & 0x7f) << 2);
            e1[0] = e0[0] + ((v[1] & 0x1f) << 2);
        } else {
            e0[0] = ((v[1] & 0xf0) << 4) | ((v[0] & 0x7f) << 1);
            e1[0] = e0[0] + ((v[1] & 0x0f) << 1);
        }
        e1[0] = e1[0] > 0xfff ? 0xfff : e1[0];
        break;
    case 7:
        hdr_mode7(v, e0, e1);
        return true;
    case 11:
    case 14:
    case 15:
        hdr_mode11(v, e0, e1);
        if (cem == 14) {
            /* alpha as in the LDR modes */
            e0[3] = v[6];
            e1[3] = v[7];
            hdr[3] = false;
        } else if (cem == 15) {
            int mode = ((v[6] >> 7) & 1) | ((v[7] >> 6) & 2);
            int a0 = v[6] & 0x7f, a1 = v[7] & 0x7f;

            if (mode == 3) {
                e0[3] = a0 << 5;
                e1[3] = a1 << 5;
            } else {
                a0 |= (a1 << (mode + 1)) & 0x780;
                a1 &= 0x3f >> mode;
                a1 ^= 0x20 >> mode;
                a1 -= 0x20 >> mode;
                a0 <<= 4 - mode;
                a1 <<= 4 - mode;
                e0[3] = a0;
                e1[3] = clamp12(a1 + a0);
            }
        }
        return true;
    default:
        return false;
    }
    /* luminance modes */
    e0[1] = e0[2] = e0[0];
    e1[1] = e1[2] = e1[0];
    e0[3] = e1[3] = 0x780;
    return true;
}

/*
 * Endpoints of the LDR modes (the specification's procedures); false for
 * the HDR modes
 */
static bool endpoints(unsigned cem, const unsigned *u, int e0[4], int e1[4])
{
    int v[8];

    for (int k = 0; k < 8; k++) {
        v[k] = u[k];
    }
    e0[3] = e1[3] = 255;
    switch (cem) {
    case 0:
        e0[0] = e0[1] = e0[2] = v[0];
        e1[0] = e1[1] = e1[2] = v[1];
        return true;
    case 1: {
        int l0 = (v[0] >> 2) | (v[1] & 0xc0);
        int l1 = l0 + (v[1] & 0x3f);

        e0[0] = e0[1] = e0[2] = l0;
        e1[0] = e1[1] = e1[2] = l1 > 255 ? 255 : l1;
        return true;
    }
    case 4:
        e0[0] = e0[1] = e0[2] = v[0];
        e1[0] = e1[1] = e1[2] = v[1];
        e0[3] = v[2];
        e1[3] = v[3];
        return true;
    case 5:
        bit_transfer_signed(&v[1], &v[0]);
        bit_transfer_signed(&v[3], &v[2]);
        e0[0] = e0[1] = e0[2] = v[0];
        e1[0] = e1[1] = e1[2] = clamp8(v[0] + v[1]);
        e0[3] = v[2];
        e1[3] = clamp8(v[2] + v[3]);
        return true;
    case 6:
    case 10:
        for (int c = 0; c < 3; c++) {
            e0[c] = v[c] * v[3] >> 8;
            e1[c] = v[c];
        }
        if (cem == 10) {
            e0[3] = v[4];
            e1[3] = v[5];
        }
        return true;
    case 8:
    case 12: {
        bool swap = v[1] + v[3] + v[5] < v[0] + v[2] + v[4];

        for (int c = 0; c < 3; c++) {
            e0[c] = v[2 * c + swap];
            e1[c] = v[2 * c + !swap];
        }
        if (cem == 12) {
            e0[3] = v[6 + swap];
            e1[3] = v[7 - swap];
        }
        if (swap) {
            blue_contract(e0);
            blue_contract(e1);
        }
        return true;
    }
    case 9:
    case 13: {
        int n = cem == 13 ? 4 : 3;
        bool neg;

        for (int c = 0; c < n; c++) {
            bit_transfer_signed(&v[2 * c + 1], &v[2 * c]);
        }
        neg = v[1] + v[3] + v[5] < 0;
        for (int c = 0; c < n; c++) {
            int base = v[2 * c], sum = v[2 * c] + v[2 * c + 1];

            e0[c] = neg ? sum : base;
            e1[c] = neg ? base : sum;
        }
        if (neg) {
            blue_contract(e0);
            blue_contract(e1);
        }
        for (int c = 0; c < 4; c++) {
            e0[c] = clamp8(e0[c]);
            e1[c] = clamp8(e1[c]);
        }
        return true;
    }
    default:
        return false;       /* HDR */
    }
}

/* A 16-bit interpolation result as decode_float16 (or sRGB's 8 bits) */
static double result(unsigned c, bool srgb)
{
    double v = c / 65536.0;
    int e;

    if (srgb) {
        return (c >> 8) / 255.0;
    }
    if (c >= 65535) {
        return 1.0;
    }
    if (v < ldexp(1, -14)) {
        return floor(ldexp(v, 24)) / ldexp(1, 24);
    }
    frexp(v, &e);                               /* v in [2^(e-1), 2^e) */
    return ldexp(floor(ldexp(v, 11 - e)), e - 11);
}

/*
 * An HDR channel: the 16-bit interpolation of the 12-bit values, its
 * mantissa mapped piecewise onto a half float's
 */
static double hdr_result(unsigned c)
{
    unsigned e = c >> 11, m = c & 0x7ff, mt, h;

    mt = m < 512 ? 3 * m : m >= 1536 ? 5 * m - 2048 : 4 * m - 512;
    h = (e << 10) + (mt >> 3);
    return agx_texfmt_half(h >= 0x7c00 ? 0x7bff : h);
}

static void error_colour(double rgba[4])
{
    rgba[0] = rgba[2] = rgba[3] = 1;
    rgba[1] = 0;
}

/*
 * Void-extent blocks: one UNORM16 colour (LDR), or in the HDR profile
 * one half-float colour (HDR); else the error colour
 */
static void void_extent(const uint8_t *b, bool srgb, bool hdr,
                        double rgba[4])
{
    unsigned smin = get(b, 12, 13), smax = get(b, 25, 13);
    unsigned tmin = get(b, 38, 13), tmax = get(b, 51, 13);
    bool all_ones = smin == 0x1fff && smax == 0x1fff && tmin == 0x1fff &&
                    tmax == 0x1fff;

    bool hdr_block = bit(get(b, 0, 12), 9);

    if ((hdr_block && !hdr) || get(b, 10, 2) != 3 ||
        (!all_ones && (smin >= smax || tmin >= tmax))) {
        error_colour(rgba);
        return;
    }
    for (int c = 0; c < 4; c++) {
        unsigned v = get(b, 64 + 16 * c, 16);

        /* Inf and NaN are undefined: the largest finite half */
        if (hdr_block && (v & 0x7c00) == 0x7c00) {
            v = (v & 0x8000) | 0x7bff;
        }
        rgba[c] = hdr_block ? agx_texfmt_half(v) : result(v, srgb);
    }
}

void agx_texfmt_astc_decode(unsigned channels, bool srgb, bool hdr,
                            const uint8_t *b, unsigned x, unsigned y,
                            double rgba[4])
{
    unsigned bw, bh, bm = get(b, 0, 11), parts, cem[4], cls[4], nvals = 0;
    unsigned config, wbits, nweights, remaining, extra = 0, below;
    unsigned vals[18], wv[64] = { 0 }, part = 0, first, plane_w[2], ccs = 4;
    unsigned ds, dt, gs, gt, js, jt, fs, ft;
    uint8_t rev[16];
    Ise cr = { 0, 0, 0 };
    int e0[4], e1[4];
    bool hdr_c[4] = { false, false, false, false };
    Mode m;

    agx_texfmt_astc_footprint(channels, &bw, &bh);
    if ((bm & 0x1ff) == 0x1fc) {
        void_extent(b, srgb, hdr, rgba);
        return;
    }
    parts = get(b, 11, 2) + 1;
    if (!block_mode(bm, &m) || m.w > bw || m.h > bh ||
        (m.dual && parts == 4)) {
        error_colour(rgba);
        return;
    }
    nweights = m.w * m.h * (m.dual ? 2 : 1);
    wbits = ise_bits(nweights, m.range);
    if (nweights > 64 || wbits < 24 || wbits > 96) {
        error_colour(rgba);
        return;
    }
    /* colour endpoint modes */
    if (parts == 1) {
        cem[0] = get(b, 13, 4);
        config = 17;
    } else if (!get(b, 23, 2)) {
        for (unsigned k = 0; k < parts; k++) {
            cem[k] = get(b, 25, 4);
        }
        config = 29;
    } else {
        unsigned nextra = 3 * parts - 4, all, base;

        extra = nextra;
        all = get(b, 23, 6) | get(b, 128 - wbits - nextra, nextra) << 6;
        base = (all & 3) - 1;
        for (unsigned k = 0; k < parts; k++) {
            cem[k] = (base + bit(all, 2 + k)) << 2 |
                     ((all >> (2 + parts + 2 * k)) & 3);
        }
        config = 25 + 3 * parts;
    }
    for (unsigned k = 0; k < parts; k++) {
        cls[k] = cem[k] >> 2;
        nvals += 2 * (cls[k] + 1);
    }
    below = 128 - wbits - extra;
    if (m.dual) {
        config += 2;
        ccs = get(b, below - 2, 2);
    }
    remaining = config + wbits > 128 ? 0 : 128 - config - wbits;
    for (unsigned k = 0; k < 17; k++) {
        if (ise_bits(nvals, colour_range[k]) <= remaining) {
            cr = colour_range[k];
            break;
        }
    }
    if (nvals > 18 || (!cr.t && !cr.q && !cr.n)) {
        error_colour(rgba);
        return;
    }
    ise_decode(b, parts == 1 ? 17 : 29, nvals, cr, vals);
    for (unsigned k = 0; k < nvals; k++) {
        vals[k] = unq_colour(vals[k], cr);
    }
    if (parts > 1) {
        part = select_partition(get(b, 13, 10), x, y, parts, bw * bh < 31);
    }
    first = 0;
    for (unsigned k = 0; k < part; k++) {
        first += 2 * (cls[k] + 1);
    }
    {
        unsigned u[8] = { 0 };

        memcpy(u, &vals[first], 2 * (cls[part] + 1) * sizeof(unsigned));
        if (!endpoints(cem[part], u, e0, e1) &&
            !(hdr && hdr_endpoints(cem[part], u, e0, e1, hdr_c))) {
            error_colour(rgba);
            return;
        }
    }
    /* weights: a stream from bit 127 down */
    for (int k = 0; k < 16; k++) {
        uint8_t v = b[15 - k], r = 0;

        for (int i = 0; i < 8; i++) {
            r |= ((v >> i) & 1) << (7 - i);
        }
        rev[k] = r;
    }
    ise_decode(rev, 0, nweights, m.range, wv);
    for (unsigned k = 0; k < nweights; k++) {
        wv[k] = unq_weight(wv[k], m.range);
    }
    /* infill (2D: bilinear on the weight grid) */
    ds = (1024 + bw / 2) / (bw - 1);
    dt = (1024 + bh / 2) / (bh - 1);
    gs = (ds * x * (m.w - 1) + 32) >> 6;
    gt = (dt * y * (m.h - 1) + 32) >> 6;
    js = gs >> 4;
    fs = gs & 15;
    jt = gt >> 4;
    ft = gt & 15;
    for (unsigned p = 0; p < (m.dual ? 2u : 1u); p++) {
        unsigned v0 = js + jt * m.w, n = m.dual ? 2 : 1;
        unsigned w11 = (fs * ft + 8) >> 4, w10 = ft - w11, w01 = fs - w11;
        unsigned w00 = 16 - fs - ft + w11;
        unsigned p00 = wv[(v0 * n + p) % 64];
        unsigned p01 = wv[((v0 + 1) * n + p) % 64];
        unsigned p10 = wv[((v0 + m.w) * n + p) % 64];
        unsigned p11 = wv[((v0 + m.w + 1) * n + p) % 64];

        plane_w[p] = (p00 * w00 + p01 * w01 + p10 * w10 + p11 * w11 + 8)
                     >> 4;
    }
    for (unsigned c = 0; c < 4; c++) {
        unsigned w = c == ccs ? plane_w[1] : plane_w[0];
        unsigned c0 = hdr_c[c] ? e0[c] << 4 : e0[c] << 8 |
                                              (srgb ? 0x80 : e0[c]);
        unsigned c1 = hdr_c[c] ? e1[c] << 4 : e1[c] << 8 |
                                              (srgb ? 0x80 : e1[c]);
        unsigned v = (c0 * (64 - w) + c1 * w + 32) >> 6;

        rgba[c] = hdr_c[c] ? hdr_result(v) : result(v, srgb);
    }
}
