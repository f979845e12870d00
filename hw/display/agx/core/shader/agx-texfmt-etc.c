/*
 * AGX texture sampler: ETC2 and EAC blocks
 *
 * As the Khronos Data Format Specification's "ETC2 Compressed Texture
 * Image Formats" defines them: each 64-bit half of a block a big-endian
 * integer; texel (x, y) of the 4x4 block is pixel index i = 4 * x + y
 * (pixels numbered down the columns).  RGB ETC2 blocks are in one of five
 * modes (individual, differential, T, H, planar), RGB ETC2 with
 * punch-through alpha in one of four (no individual mode: its bit 33
 * says "opaque" instead); colours come out as 8-bit values, EAC R11/RG11
 * as 11-bit ones (exact: the specification fixes every value).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "agx-texfmt.h"

/* Intensity modifiers of the individual and differential modes: a, b */
static const uint8_t etc_modifiers[8][2] = {
    { 2, 8 }, { 5, 17 }, { 9, 29 }, { 13, 42 },
    { 18, 60 }, { 24, 80 }, { 33, 106 }, { 47, 183 },
};

/* T and H mode distances */
static const uint8_t etc_distance[8] = { 3, 6, 11, 16, 23, 32, 41, 64 };

/* EAC modifier tables */
static const int8_t eac_modifiers[16][8] = {
    { -3, -6, -9, -15, 2, 5, 8, 14 },
    { -3, -7, -10, -13, 2, 6, 9, 12 },
    { -2, -5, -8, -13, 1, 4, 7, 12 },
    { -2, -4, -6, -13, 1, 3, 5, 12 },
    { -3, -6, -8, -12, 2, 5, 7, 11 },
    { -3, -7, -9, -11, 2, 6, 8, 10 },
    { -4, -7, -8, -11, 3, 6, 7, 10 },
    { -3, -5, -8, -11, 2, 4, 7, 10 },
    { -2, -6, -8, -10, 1, 5, 7, 9 },
    { -2, -5, -8, -10, 1, 4, 7, 9 },
    { -2, -4, -8, -10, 1, 3, 7, 9 },
    { -2, -5, -7, -10, 1, 4, 6, 9 },
    { -3, -4, -7, -10, 2, 3, 6, 9 },
    { -1, -2, -3, -10, 0, 1, 2, 9 },
    { -4, -6, -8, -9, 3, 5, 7, 8 },
    { -3, -5, -7, -9, 2, 4, 6, 8 },
};

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

static unsigned f(uint64_t w, unsigned lsb, unsigned n)
{
    return (w >> lsb) & ((1u << n) - 1);
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* n-bit to 8-bit by replicating the top bits */
static int extend(unsigned v, unsigned n)
{
    return (v << (8 - n)) | (v >> (2 * n - 8));
}

static int sext3(unsigned v)
{
    return (int)(v ^ 4) - 4;
}

/*
 * An ETC2 colour block's texel @i (x = i / 4, y = i % 4) as 8-bit RGBA;
 * @punch: RGB8A1, bit 33 then says whether the block is opaque
 */
static void etc2_colour(uint64_t w, bool punch, unsigned i, int rgba[4])
{
    unsigned msb = f(w, 16 + i, 1), lsb = f(w, i, 1);
    unsigned idx = msb << 1 | lsb;
    bool bit33 = f(w, 33, 1);
    bool opaque = punch ? bit33 : true;
    int r = f(w, 59, 5), g = f(w, 51, 5), b = f(w, 43, 5);
    int rd = r + sext3(f(w, 56, 3)), gd = g + sext3(f(w, 48, 3));
    int bd = b + sext3(f(w, 40, 3));
    int paint[4][3], base[2][3];

    rgba[3] = 255;
    if (!punch && !bit33) {
        /* individual: two 4-bit-per-channel base colours */
        unsigned x = i / 4, y = i % 4;
        unsigned sub = f(w, 32, 1) ? y >= 2 : x >= 2;
        unsigned table = f(w, sub ? 34 : 37, 3);
        int mod = etc_modifiers[table][lsb];

        mod = msb ? -mod : mod;
        for (int c = 0; c < 3; c++) {
            rgba[c] = clamp(extend(f(w, 60 - 8 * c - 4 * sub, 4), 4) + mod,
                            0, 255);
        }
        return;
    }
    if (rd < 0 || rd > 31) {
        /* T mode */
        unsigned r1 = f(w, 59, 2) << 2 | f(w, 56, 2);
        int d = etc_distance[f(w, 34, 2) << 1 | f(w, 32, 1)];

        base[0][0] = extend(r1, 4);
        base[0][1] = extend(f(w, 52, 4), 4);
        base[0][2] = extend(f(w, 48, 4), 4);
        for (int c = 0; c < 3; c++) {
            base[1][c] = extend(f(w, 44 - 4 * c, 4), 4);
            paint[0][c] = base[0][c];
            paint[1][c] = clamp(base[1][c] + d, 0, 255);
            paint[2][c] = base[1][c];
            paint[3][c] = clamp(base[1][c] - d, 0, 255);
        }
    } else if (gd < 0 || gd > 31) {
        /* H mode */
        unsigned g1 = f(w, 56, 3) << 1 | f(w, 52, 1);
        unsigned b1 = f(w, 51, 1) << 3 | f(w, 47, 3);
        unsigned v0, v1;
        int d;

        base[0][0] = extend(f(w, 59, 4), 4);
        base[0][1] = extend(g1, 4);
        base[0][2] = extend(b1, 4);
        for (int c = 0; c < 3; c++) {
            base[1][c] = extend(f(w, 43 - 4 * c, 4), 4);
        }
        v0 = base[0][0] << 16 | base[0][1] << 8 | base[0][2];
        v1 = base[1][0] << 16 | base[1][1] << 8 | base[1][2];
        d = etc_distance[f(w, 34, 1) << 2 | f(w, 32, 1) << 1 | (v0 >= v1)];
        for (int c = 0; c < 3; c++) {
            paint[0][c] = clamp(base[0][c] + d, 0, 255);
            paint[1][c] = clamp(base[0][c] - d, 0, 255);
            paint[2][c] = clamp(base[1][c] + d, 0, 255);
            paint[3][c] = clamp(base[1][c] - d, 0, 255);
        }
    } else if (bd < 0 || bd > 31) {
        /* planar (always opaque): colours O, H, V in RGB676 */
        int x = i / 4, y = i % 4;
        int o[3], h[3], v[3];

        o[0] = extend(f(w, 57, 6), 6);
        o[1] = extend(f(w, 56, 1) << 6 | f(w, 49, 6), 7);
        o[2] = extend(f(w, 48, 1) << 5 | f(w, 43, 2) << 3 | f(w, 39, 3), 6);
        h[0] = extend(f(w, 34, 5) << 1 | f(w, 32, 1), 6);
        h[1] = extend(f(w, 25, 7), 7);
        h[2] = extend(f(w, 19, 6), 6);
        v[0] = extend(f(w, 13, 6), 6);
        v[1] = extend(f(w, 6, 7), 7);
        v[2] = extend(f(w, 0, 6), 6);
        for (int c = 0; c < 3; c++) {
            /* rounding half up: floor((...) / 4), exact for negatives */
            int sum = x * (h[c] - o[c]) + y * (v[c] - o[c]) + 4 * o[c] + 2;

            rgba[c] = clamp(sum >= 0 ? sum / 4 : -((3 - sum) / 4), 0, 255);
        }
        return;
    } else {
        /* differential: 5-bit base colour and a 3-bit signed delta */
        unsigned x = i / 4, y = i % 4;
        unsigned sub = f(w, 32, 1) ? y >= 2 : x >= 2;
        unsigned table = f(w, sub ? 34 : 37, 3);
        int five[2][3] = { { r, g, b }, { rd, gd, bd } };
        int mod = etc_modifiers[table][lsb];

        if (!opaque && !lsb) {
            mod = 0;        /* the punch-through table: a = 0 */
        }
        mod = msb ? -mod : mod;
        if (!opaque && idx == 2) {
            rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
            return;
        }
        for (int c = 0; c < 3; c++) {
            rgba[c] = clamp(extend(five[sub][c], 5) + mod, 0, 255);
        }
        return;
    }
    if (!opaque && idx == 2) {
        rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
        return;
    }
    for (int c = 0; c < 3; c++) {
        rgba[c] = paint[idx][c];
    }
}

/* EAC: texel @i's 3-bit index, the modifier it selects, the multiplier */
static int eac_mod(uint64_t w, unsigned i, int *mult)
{
    *mult = f(w, 52, 4);
    return eac_modifiers[f(w, 48, 4)][f(w, 45 - 3 * i, 3)];
}

/* An EAC R11 channel block's texel @i, in [0, 1] or [-1, 1] */
static double eac_r11(uint64_t w, bool is_signed, unsigned i)
{
    int mult, mod = eac_mod(w, i, &mult);
    int delta = mult ? mod * mult * 8 : mod;

    if (is_signed) {
        int base = (int8_t)f(w, 56, 8);

        base = base < -127 ? -127 : base;
        return clamp(base * 8 + delta, -1023, 1023) / 1023.0;
    }
    return clamp((int)f(w, 56, 8) * 8 + 4 + delta, 0, 2047) / 2047.0;
}

void agx_texfmt_etc_decode(unsigned channels, bool is_signed,
                           const uint8_t *block, unsigned x, unsigned y,
                           double rgba[4])
{
    unsigned i = 4 * (x & 3) + (y & 3);
    int c8[4];

    rgba[0] = rgba[1] = rgba[2] = 0;
    rgba[3] = 1;
    switch (channels) {
    case AGX_TEXFMT_ETC2_RGB8:
    case AGX_TEXFMT_ETC2_RGB8A1:
        etc2_colour(be64(block), channels == AGX_TEXFMT_ETC2_RGB8A1, i, c8);
        for (int c = 0; c < 4; c++) {
            rgba[c] = c8[c] / 255.0;
        }
        break;
    case AGX_TEXFMT_ETC2_RGBA8: {
        uint64_t a = be64(block);
        int mult, mod = eac_mod(a, i, &mult);

        etc2_colour(be64(block + 8), false, i, c8);
        for (int c = 0; c < 3; c++) {
            rgba[c] = c8[c] / 255.0;
        }
        rgba[3] = clamp((int)f(a, 56, 8) + mod * mult, 0, 255) / 255.0;
        break;
    }
    case AGX_TEXFMT_EAC_R11:
        rgba[0] = eac_r11(be64(block), is_signed, i);
        break;
    case AGX_TEXFMT_EAC_RG11:
        rgba[0] = eac_r11(be64(block), is_signed, i);
        rgba[1] = eac_r11(be64(block + 8), is_signed, i);
        break;
    default:
        break;
    }
}
