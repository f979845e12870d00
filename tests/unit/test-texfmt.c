/*
 * Unit tests of the block-compressed texture decoders (agx-texfmt-*.c):
 * blocks built here bit by bit from the Khronos Data Format
 * Specification's layouts, their texels worked out by hand from the
 * specification's rules; the ETC2/EAC cases include the specification's
 * own worked examples (base colours 231, 33, 24 / 198, 49, 24; the
 * 14, 3, 8 individual colour; EAC 83, 668, 818, 320 and 470)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include "agx-texfmt.h"

#define EPS     0.000000001

static void check(unsigned fmt, bool sgn, const uint8_t *b, unsigned x,
                  unsigned y, double r, double g, double bl, double a)
{
    double v[4];

    agx_texfmt_decode(fmt, sgn, b, x, y, v);
    g_assert_cmpfloat_with_epsilon(v[0], r, EPS);
    g_assert_cmpfloat_with_epsilon(v[1], g, EPS);
    g_assert_cmpfloat_with_epsilon(v[2], bl, EPS);
    g_assert_cmpfloat_with_epsilon(v[3], a, EPS);
}

/* Little-endian fields (BCn) */
static void put_le(uint8_t *p, unsigned start, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned bit = start + i;

        p[bit / 8] = (p[bit / 8] & ~(1 << (bit % 8))) |
                     ((v >> i) & 1) << (bit % 8);
    }
}

/* One big-endian 64-bit word (ETC2/EAC) */
static void put_be(uint8_t *p, uint64_t w)
{
    for (int i = 0; i < 8; i++) {
        p[i] = w >> (56 - 8 * i);
    }
}

static void test_block_sizes(void)
{
    static const struct {
        unsigned fmt, bytes;
    } t[] = {
        { AGX_TEXFMT_BC1, 8 }, { AGX_TEXFMT_BC2, 16 }, { AGX_TEXFMT_BC3, 16 },
        { AGX_TEXFMT_BC4, 8 }, { AGX_TEXFMT_BC5, 16 },
        { AGX_TEXFMT_ETC2_RGB8, 8 }, { AGX_TEXFMT_ETC2_RGB8A1, 8 },
        { AGX_TEXFMT_ETC2_RGBA8, 16 }, { AGX_TEXFMT_EAC_R11, 8 },
        { AGX_TEXFMT_EAC_RG11, 16 },
    };
    unsigned bw, bh, bytes;

    for (unsigned i = 0; i < G_N_ELEMENTS(t); i++) {
        g_assert_true(agx_texfmt_block(t[i].fmt, &bw, &bh, &bytes));
        g_assert_cmpuint(bw, ==, 4);
        g_assert_cmpuint(bh, ==, 4);
        g_assert_cmpuint(bytes, ==, t[i].bytes);
    }
    /* plain formats and PVRTC are not block formats here */
    g_assert_false(agx_texfmt_block(0x28, &bw, &bh, &bytes));
    g_assert_false(agx_texfmt_block(0x50, &bw, &bh, &bytes));
}

/* BC1: red (0xf800) and blue (0x001f) endpoints, both colour modes */
static void test_bc1(void)
{
    uint8_t b[8] = { 0 };

    put_le(b, 0, 16, 0xf800);
    put_le(b, 16, 16, 0x001f);
    /* texels 0..3 (row 0) take indices 0..3; texel (1, 2) index 2 */
    put_le(b, 32, 8, 0xe4);
    put_le(b, 32 + 2 * 9, 2, 2);
    check(AGX_TEXFMT_BC1, false, b, 0, 0, 1, 0, 0, 1);
    check(AGX_TEXFMT_BC1, false, b, 1, 0, 0, 0, 1, 1);
    check(AGX_TEXFMT_BC1, false, b, 2, 0, 2 / 3.0, 0, 1 / 3.0, 1);
    check(AGX_TEXFMT_BC1, false, b, 3, 0, 1 / 3.0, 0, 2 / 3.0, 1);
    check(AGX_TEXFMT_BC1, false, b, 1, 2, 2 / 3.0, 0, 1 / 3.0, 1);
    check(AGX_TEXFMT_BC1, false, b, 3, 3, 1, 0, 0, 1);
    /* endpoint 0 <= endpoint 1: midpoint, then transparent black */
    put_le(b, 0, 16, 0x001f);
    put_le(b, 16, 16, 0xf800);
    check(AGX_TEXFMT_BC1, false, b, 2, 0, 0.5, 0, 0.5, 1);
    check(AGX_TEXFMT_BC1, false, b, 3, 0, 0, 0, 0, 0);
    /* green has 6 bits: 0x07e0 is (0, 1, 0), 0x0020 is 1/63 green */
    put_le(b, 0, 16, 0x0020);
    check(AGX_TEXFMT_BC1, false, b, 0, 0, 0, 1 / 63.0, 0, 1);
}

/* BC2: explicit 4-bit alpha; its colour block is always 4-colour */
static void test_bc2(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 4 * 5, 4, 7);         /* texel (1, 1) */
    put_le(b, 60, 4, 15);           /* texel (3, 3) */
    put_le(b, 64, 16, 0x001f);      /* endpoint 0 < endpoint 1 */
    put_le(b, 80, 16, 0xf800);
    put_le(b, 96 + 2 * 5, 2, 3);
    check(AGX_TEXFMT_BC2, false, b, 1, 1, 2 / 3.0, 0, 1 / 3.0, 7 / 15.0);
    check(AGX_TEXFMT_BC2, false, b, 3, 3, 0, 0, 1, 1);
    check(AGX_TEXFMT_BC2, false, b, 0, 0, 0, 0, 1, 0);
}

/* BC3 alpha / BC4: 8-value and 6-value modes */
static void test_bc3_bc4(void)
{
    uint8_t b[16] = { 0 };

    b[0] = 255;
    b[1] = 0;
    put_le(b, 16 + 3 * 1, 3, 1);
    put_le(b, 16 + 3 * 2, 3, 2);
    put_le(b, 16 + 3 * 3, 3, 7);
    put_le(b, 64, 16, 0x07e0);
    put_le(b, 80, 16, 0x07e0);
    check(AGX_TEXFMT_BC3, false, b, 0, 0, 0, 1, 0, 1);
    check(AGX_TEXFMT_BC3, false, b, 1, 0, 0, 1, 0, 0);
    check(AGX_TEXFMT_BC3, false, b, 2, 0, 0, 1, 0, 6 / 7.0);
    check(AGX_TEXFMT_BC3, false, b, 3, 0, 0, 1, 0, 1 / 7.0);
    /* BC4 unorm, endpoints 10 <= 200: 4 interpolants, then 0 and 1 */
    b[0] = 10;
    b[1] = 200;
    put_le(b, 16 + 3 * 2, 3, 2);
    put_le(b, 16 + 3 * 3, 3, 5);
    put_le(b, 16 + 3 * 4, 3, 6);
    put_le(b, 16 + 3 * 5, 3, 7);
    check(AGX_TEXFMT_BC4, false, b, 2, 0, (4 * 10 + 200) / 5.0 / 255, 0, 0,
          1);
    check(AGX_TEXFMT_BC4, false, b, 3, 0, (10 + 4 * 200) / 5.0 / 255, 0, 0,
          1);
    check(AGX_TEXFMT_BC4, false, b, 0, 1, 0, 0, 0, 1);
    check(AGX_TEXFMT_BC4, false, b, 1, 1, 1, 0, 0, 1);
    /* signed: -128 reads -127 (-1.0); 6-value mode ends at -1 and 1 */
    b[0] = 0x80;
    b[1] = 0x40;
    check(AGX_TEXFMT_BC4, true, b, 0, 0, -1, 0, 0, 1);
    check(AGX_TEXFMT_BC4, true, b, 1, 0, 64 / 127.0, 0, 0, 1);
    check(AGX_TEXFMT_BC4, true, b, 0, 1, -1, 0, 0, 1);
    check(AGX_TEXFMT_BC4, true, b, 1, 1, 1, 0, 0, 1);
    /* 0x40 > 0xc0 as signed: 8-value mode, index 2 = (6 * 64 - 64) / 7 */
    b[0] = 0x40;
    b[1] = 0xc0;
    check(AGX_TEXFMT_BC4, true, b, 2, 0, (6 * 64 - 64) / 7.0 / 127, 0, 0,
          1);
    /* BC5: the second half is green */
    memset(b, 0, sizeof(b));
    b[0] = 51;
    b[8] = 204;
    check(AGX_TEXFMT_BC5, false, b, 2, 3, 0.2, 0.8, 0, 1);
}

/* ETC2 individual and differential modes: the specification's colours */
static void test_etc2_indiv_diff(void)
{
    uint8_t b[8];
    /* individual: R1 14, G1 3, B1 8; R2 G2 B2 1; tables 0 and 7 */
    uint64_t w = 14ull << 60 | 1ull << 56 | 3ull << 52 | 1ull << 48 |
                 8ull << 44 | 1ull << 40 | 0ull << 37 | 7ull << 34;

    /* pixel a: index 00 (+2), pixel e (x 1, y 0): 01 (+8) */
    w |= 1ull << 4;
    put_be(b, w);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 0, 240 / 255.0, 53 / 255.0,
          138 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 1, 0, 246 / 255.0, 59 / 255.0,
          144 / 255.0, 1);
    /* subblock 2 (x >= 2, flip 0): 0x11 with table 7, index 11: -183 */
    w |= 1ull << (16 + 8) | 1ull << 8;
    put_be(b, w);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 2, 0, 0, 0, 0, 1);
    /* differential: R 28 dR -4, G 4 dG 2, B 3 dB 0, flip: rows */
    w = 28ull << 59 | 4ull << 56 | 4ull << 51 | 2ull << 48 | 3ull << 43 |
        0ull << 40 | 2ull << 37 | 0ull << 34 | 1ull << 33 | 1ull << 32;
    /* pixel a: index 01 (table 2: +29): (231+29, 33+29, 24+29) clamped */
    w |= 1ull << 0;
    put_be(b, w);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 0, 1, 62 / 255.0, 53 / 255.0,
          1);
    /* pixel b (x 0, y 1): index 00, +9 */
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 1, 240 / 255.0, 42 / 255.0,
          33 / 255.0, 1);
    /* pixel c (x 0, y 2): second subblock (198, 49, 24), table 0: +2 */
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 2, 200 / 255.0, 51 / 255.0,
          26 / 255.0, 1);
}

/* ETC2 T, H and planar modes */
static void test_etc2_thp(void)
{
    uint8_t b[8];
    /* T: R + dR overflows (R 31 and dR 3: bits 63..61 set, R1a, R1b 3) */
    uint64_t w = 7ull << 61 | 3ull << 59 | 3ull << 56 | 2ull << 52 |
                 4ull << 48 | 8ull << 44 | 8ull << 40 | 8ull << 36 |
                 2ull << 34 | 1ull << 33 | 1ull << 32;

    /* distance index 101: 32; base 1 (0xff, 0x22, 0x44), base 2 0x88 */
    put_be(b, w | 1ull << 1 | 1ull << 18 | 1ull << 19 | 1ull << 3);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 0, 1, 0x22 / 255.0,
          0x44 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 1, 0xa8 / 255.0, 0xa8 / 255.0,
          0xa8 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 2, 0x88 / 255.0, 0x88 / 255.0,
          0x88 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 3, 0x68 / 255.0, 0x68 / 255.0,
          0x68 / 255.0, 1);
    /*
     * H: R + dR in range (R 1, dR -1), G + dG out (G 31: bits 55..53
     * set, G1b 1, B1a 1; dG 001 from B1b's low bit): base 1 R1 1, G1 15,
     * B1 (B1a << 3 | B1b 2) 10; base 2 black; da 1, db 0, base 1 >=
     * base 2: distance index 101, d = 32
     */
    w = 1ull << 59 | 7ull << 56 | 7ull << 53 | 1ull << 52 | 1ull << 51 |
        2ull << 47 | 1ull << 34 | 1ull << 33;
    put_be(b, w | 1ull << 1 | 1ull << 18 | 1ull << 19 | 1ull << 3);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 0, (0x11 + 32) / 255.0, 1,
          (0xaa + 32) / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 1, 0, (0xff - 32) / 255.0,
          (0xaa - 32) / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 2, 32 / 255.0, 32 / 255.0,
          32 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 3, 0, 0, 0, 1);
    /*
     * planar: B + dB out of range (bits 47..43 = 11111, 42..40 = 011:
     * BO1 0, BO2 3, BO3 3, so BO = 27 -> 109); RO 0, GO 0; H: RH 63 -> 255,
     * GH 0, BH 0; V: RV 0, GV 127 -> 255, BV 0
     */
    w = 7ull << 45 | 3ull << 43 | 3ull << 39 | 31ull << 34 | 1ull << 33 |
        1ull << 32 | 127ull << 6;
    put_be(b, w);
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 0, 0, 0, 0, 109 / 255.0, 1);
    /* (x 3, y 1): R (3 * 255 + 2) >> 2 = 191, G (255 + 2) >> 2 = 64 */
    check(AGX_TEXFMT_ETC2_RGB8, false, b, 3, 1, 191 / 255.0, 64 / 255.0,
          ((3 * -109 - 109 + 4 * 109 + 2) >> 2) / 255.0, 1);
}

/* RGB8A1: a non-opaque differential block */
static void test_etc2_punch(void)
{
    uint8_t b[8];
    uint64_t w = 16ull << 59 | 16ull << 51 | 16ull << 43 | 1ull << 37;

    /* index 10: transparent black; 00: base (0x84); 01: +17; 11: -17 */
    put_be(b, w | 1ull << 16 | 1ull << 1 | 1ull << 18 | 1ull << 2);
    check(AGX_TEXFMT_ETC2_RGB8A1, false, b, 0, 0, 0, 0, 0, 0);
    check(AGX_TEXFMT_ETC2_RGB8A1, false, b, 0, 1, 149 / 255.0, 149 / 255.0,
          149 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8A1, false, b, 0, 2, 115 / 255.0, 115 / 255.0,
          115 / 255.0, 1);
    check(AGX_TEXFMT_ETC2_RGB8A1, false, b, 0, 3, 0x84 / 255.0,
          0x84 / 255.0, 0x84 / 255.0, 1);
    /* opaque: index 10 is -5 */
    put_be(b, w | 1ull << 33 | 1ull << 16);
    check(AGX_TEXFMT_ETC2_RGB8A1, false, b, 0, 0, 127 / 255.0,
          127 / 255.0, 127 / 255.0, 1);
}

/* EAC: the specification's worked examples */
static void test_eac(void)
{
    uint8_t b[16] = { 0 };
    /* base 103, multiplier 2, table 13, pixel b (x 0, y 1) index 3 */
    uint64_t w = 103ull << 56 | 2ull << 52 | 13ull << 48 | 3ull << 42;

    put_be(b, w);
    put_be(b + 8, 0);
    /* (the colour half: individual mode, black, table 0: +2) */
    check(AGX_TEXFMT_ETC2_RGBA8, false, b, 0, 1, 2 / 255.0, 2 / 255.0,
          2 / 255.0, 83 / 255.0);
    check(AGX_TEXFMT_EAC_R11, false, b, 0, 1, 668 / 2047.0, 0, 0, 1);
    put_be(b, w & ~(15ull << 52));
    check(AGX_TEXFMT_EAC_R11, false, b, 0, 1, 818 / 2047.0, 0, 0, 1);
    /* multiplier 0 reads 0 for the ETC2 alpha: 103 */
    check(AGX_TEXFMT_ETC2_RGBA8, false, b, 0, 1, 2 / 255.0, 2 / 255.0,
          2 / 255.0, 103 / 255.0);
    /* signed: base 60 -> 320; multiplier 0 -> 470 */
    w = 60ull << 56 | 2ull << 52 | 13ull << 48 | 3ull << 42;
    put_be(b, w);
    check(AGX_TEXFMT_EAC_R11, true, b, 0, 1, 320 / 1023.0, 0, 0, 1);
    put_be(b + 8, w & ~(15ull << 52));
    check(AGX_TEXFMT_EAC_RG11, true, b, 0, 1, 320 / 1023.0, 470 / 1023.0,
          0, 1);
    /* -128 reads -127; clamps at -1023 */
    put_be(b, 0x80ull << 56 | 15ull << 52 | 3ull << 42);
    check(AGX_TEXFMT_EAC_R11, true, b, 0, 1, -1, 0, 0, 1);
    check(AGX_TEXFMT_EAC_R11, true, b, 0, 0, -1, 0, 0, 1);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/texfmt/block-sizes", test_block_sizes);
    g_test_add_func("/texfmt/bc1-four-and-three-colour", test_bc1);
    g_test_add_func("/texfmt/bc2-explicit-alpha", test_bc2);
    g_test_add_func("/texfmt/bc3-bc4-bc5-channels", test_bc3_bc4);
    g_test_add_func("/texfmt/etc2-individual-differential",
                    test_etc2_indiv_diff);
    g_test_add_func("/texfmt/etc2-t-h-planar", test_etc2_thp);
    g_test_add_func("/texfmt/etc2-punch-through", test_etc2_punch);
    g_test_add_func("/texfmt/eac-spec-examples", test_eac);
    return g_test_run();
}
