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
#include "texfmt-astc-vectors.h"
#include "texfmt-astc-hdr-vectors.h"

#define EPS     0.000000001

static void check(unsigned fmt, unsigned flags, const uint8_t *b, unsigned x,
                  unsigned y, double r, double g, double bl, double a)
{
    double v[4];

    agx_texfmt_decode(fmt, flags, b, x, y, v);
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
    /* ASTC: 16 bytes, the footprint of the format */
    g_assert_true(agx_texfmt_block(0x6c, &bw, &bh, &bytes));
    g_assert_cmpuint(bw, ==, 12);
    g_assert_cmpuint(bh, ==, 10);
    g_assert_cmpuint(bytes, ==, 16);
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
    /* negative endpoints interpolate as signed values: -27 and 88 */
    b[0] = 0xe5;
    b[1] = 0x58;
    check(AGX_TEXFMT_BC4, true, b, 2, 0, (4 * -27 + 88) / 5.0 / 127, 0, 0,
          1);
    b[0] = 0x58;
    b[1] = 0xe5;
    check(AGX_TEXFMT_BC4, true, b, 2, 0, (6 * 88 - 27) / 7.0 / 127, 0, 0,
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

/* BC7 mode 6: one subset, 7-bit RGBA endpoints, per-endpoint P-bits */
static void test_bc7_mode6(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 7, 0x40);
    put_le(b, 7, 7, 0x7f);          /* R0 */
    put_le(b, 14, 7, 0);            /* R1 */
    put_le(b, 21, 7, 0x40);         /* G0 */
    put_le(b, 28, 7, 0x10);         /* G1 */
    put_le(b, 35, 7, 0);            /* B0 */
    put_le(b, 42, 7, 0x7f);         /* B1 */
    put_le(b, 49, 7, 0x7f);         /* A0 */
    put_le(b, 56, 7, 0x3f);         /* A1 */
    put_le(b, 63, 1, 1);            /* P0: endpoint 0 (0xff 0x81 0x01 0xff) */
    put_le(b, 64, 1, 0);            /* P1: endpoint 1 (0x00 0x20 0xfe 0x7e) */
    put_le(b, 65 + 3, 4, 8);        /* texel 1: weight 34 */
    put_le(b, 65 + 3 + 4 * 4, 4, 15);   /* texel 5: endpoint 1 */
    check(AGX_TEXFMT_BC7, false, b, 0, 0, 1, 0x81 / 255.0, 1 / 255.0, 1);
    check(AGX_TEXFMT_BC7, false, b, 1, 1, 0, 0x20 / 255.0, 0xfe / 255.0,
          0x7e / 255.0);
    /* ((64 - 34) * e0 + 34 * e1 + 32) >> 6 */
    check(AGX_TEXFMT_BC7, false, b, 1, 0, ((30 * 255 + 32) >> 6) / 255.0,
          ((30 * 0x81 + 34 * 0x20 + 32) >> 6) / 255.0,
          ((30 * 1 + 34 * 0xfe + 32) >> 6) / 255.0,
          ((30 * 255 + 34 * 0x7e + 32) >> 6) / 255.0);
    /* a zero mode byte: every channel 0 */
    b[0] = 0;
    check(AGX_TEXFMT_BC7, false, b, 0, 0, 0, 0, 0, 0);
}

/* BC7 mode 4: rotation and index selection */
static void test_bc7_mode4(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 5, 0x10);
    put_le(b, 5, 2, 1);             /* rotation: swap A and R */
    put_le(b, 7, 1, 1);             /* colour from the 3-bit indices */
    put_le(b, 8, 5, 31);            /* R0 -> 0xff, R1 0 */
    put_le(b, 18, 5, 0);
    put_le(b, 23, 5, 16);           /* G1 -> 0x84 */
    put_le(b, 38, 6, 0);            /* A0 */
    put_le(b, 44, 6, 63);           /* A1 -> 0xff */
    /*
     * texel 0: primary (alpha) index 0 (1 bit), secondary (colour) 3 (2
     * bits, an anchor): weight 27, so R 147, G 56; then R and A swap
     */
    put_le(b, 81, 2, 3);
    check(AGX_TEXFMT_BC7, false, b, 0, 0, 0, 56 / 255.0, 0, 147 / 255.0);
    /* texel 1: alpha index 3 (weight 64), colour index 0 */
    put_le(b, 50 + 1, 2, 3);
    check(AGX_TEXFMT_BC7, false, b, 1, 0, 1, 0, 0, 1);
}

/*
 * BC7 mode 2 (three subsets): the specification's worked example, texel
 * (1, 2) of partition 6 in subset 1 with its index at bits 115..116
 */
static void test_bc7_mode2_example(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 3, 4);
    put_le(b, 3, 6, 6);
    put_le(b, 9 + 5 * 3, 5, 31);    /* R of endpoint 3 (subset 1, end 1) */
    put_le(b, 115, 2, 3);
    check(AGX_TEXFMT_BC7, false, b, 1, 2, 1, 0, 0, 1);
    check(AGX_TEXFMT_BC7, false, b, 2, 2, 0, 0, 0, 1);
    put_le(b, 115, 2, 1);           /* weight 21 */
    check(AGX_TEXFMT_BC7, false, b, 1, 2, ((21 * 255 + 32) >> 6) / 255.0,
          0, 0, 1);
}

static double half(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;

    return e ? ldexp(1 + m / 1024.0, (int)e - 15) : ldexp(m, -24);
}

/* BC6H mode 3: one subset, 10-bit endpoints, not transformed */
static void test_bc6h_mode3(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 5, 3);
    put_le(b, 5, 10, 1023);         /* R0: unquantized 0xffff */
    put_le(b, 25, 10, 512);         /* B0: (512 << 15 + 0x4000) >> 9 */
    put_le(b, 45, 10, 1023);        /* G1 */
    put_le(b, 65 + 3, 4, 15);       /* texel 1: endpoint 1 */
    /* 0xffff * 31 >> 6 = 0x7bff (65504); 32800 * 31 >> 6 = 0x3e0f */
    check(AGX_TEXFMT_BC6H_UF, false, b, 0, 0, 65504, 0, half(0x3e0f), 1);
    check(AGX_TEXFMT_BC6H_UF, false, b, 1, 0, 0, 65504, 0, 1);
    /*
     * signed: R0 0x3ff is -1 -> -(((1 << 15) + 0x4000) >> 9) = -96; B0
     * 512 is -512, beyond -511: -0x7fff, which ends as -65504
     */
    check(AGX_TEXFMT_BC6H, false, b, 0, 0, -half((96 * 31) >> 5), 0,
          -half(0x7bff), 1);
    /* reserved mode 19 */
    put_le(b, 0, 5, 19);
    check(AGX_TEXFMT_BC6H_UF, false, b, 0, 0, 0, 0, 0, 1);
}

/* BC6H mode 7: an 11-bit endpoint and a 9-bit delta (-1) */
static void test_bc6h_mode7(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 5, 7);
    put_le(b, 5, 10, 100);          /* R0 (bit 10 at 44: 0) */
    put_le(b, 35, 9, 0x1ff);        /* R1: -1, so 99 */
    put_le(b, 65 + 3, 4, 15);
    /* (99 << 15 + 0x4000) >> 10 = 3184, * 31 >> 6 = 1542 = 0x606 */
    check(AGX_TEXFMT_BC6H_UF, false, b, 1, 0, half(0x606), 0, 0, 1);
    /* (100 << 15 + 0x4000) >> 10 = 3216, * 31 >> 6 = 1557 */
    check(AGX_TEXFMT_BC6H_UF, false, b, 0, 0, half(1557), 0, 0, 1);
}

/* BC6H mode 30: two subsets (partition 0, anchor texel 15) */
static void test_bc6h_mode30(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 5, 30);
    put_le(b, 65, 6, 63);           /* R2: 0xffff */
    put_le(b, 82 + 2 + 3 * 2, 3, 7);    /* texel 3: endpoint 3 */
    put_le(b, 126, 2, 3);           /* texel 15 (anchor): weight 27 */
    check(AGX_TEXFMT_BC6H_UF, false, b, 0, 0, 0, 0, 0, 1);
    check(AGX_TEXFMT_BC6H_UF, false, b, 2, 0, 65504, 0, 0, 1);
    check(AGX_TEXFMT_BC6H_UF, false, b, 3, 0, 0, 0, 0, 1);
    /* (37 * 0xffff + 32) >> 6 = 37887, * 31 >> 6 = 0x47af */
    check(AGX_TEXFMT_BC6H_UF, false, b, 3, 3, half(0x47af), 0, 0, 1);
}

/*
 * ASTC UNORM results are decode_float16's: a 16-bit C over 65536 rounded
 * towards zero to a half float (11 significant bits), 65535 reading 1.0
 */
static double f16z(unsigned c)
{
    double v = c / 65536.0, step = 1.0 / (1 << 24);

    if (c == 65535) {
        return 1;
    }
    for (double top = 1.0 / (1 << 14); top <= v; top *= 2) {
        step = top / 1024;
    }
    return floor(v / step) * step;
}

/* ASTC: weight i of a weight stream, bit k of it at block bit 127 - k */
static void put_weight_bits(uint8_t *b, unsigned stream_bit, unsigned n,
                            unsigned v)
{
    for (unsigned k = 0; k < n; k++) {
        put_le(b, 127 - (stream_bit + k), 1, (v >> k) & 1);
    }
}

/* ASTC void-extent blocks: one UNORM16 colour, its top 8 bits */
static void test_astc_void_extent(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 9, 0x1fc);
    put_le(b, 10, 2, 3);
    put_le(b, 12, 52, (1ull << 52) - 1);     /* no extent */
    put_le(b, 64, 16, 0x8000);
    put_le(b, 80, 16, 0x12ff);
    put_le(b, 96, 16, 0xffff);
    put_le(b, 112, 16, 0);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 3, 2, 0.5, 1215 / 16384.0, 1,
          0);
    g_assert_cmpfloat(f16z(0x12ff), ==, 1215 / 16384.0);
    /* sRGB: the top 8 bits */
    check(AGX_TEXFMT_ASTC_FIRST, AGX_TEXFMT_SRGB, b, 3, 2, 128 / 255.0,
          18 / 255.0, 1, 0);
    /* HDR (bit 9) in LDR: the error colour, magenta */
    put_le(b, 9, 1, 1);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 0, 0, 1, 0, 1, 1);
}

/*
 * ASTC 4x4, one partition, CEM 8 (RGB direct): a 4x4 grid of 2-bit
 * weights (block mode 0x42: W 0 + 4, H 2 + 2, range 0..3), endpoints in
 * 8 bits from bit 17 (79 bits remain, 48 needed)
 */
static void test_astc_rgb_direct(void)
{
    static const unsigned v[6] = { 10, 200, 20, 100, 30, 50 };
    uint8_t b[16] = { 0 };

    put_le(b, 0, 11, 0x42);
    put_le(b, 13, 4, 8);
    for (int k = 0; k < 6; k++) {
        put_le(b, 17 + 8 * k, 8, v[k]);
    }
    put_weight_bits(b, 0, 2, 3);        /* texel 0: weight 64 */
    put_weight_bits(b, 2, 2, 1);        /* texel 1: 1 -> 21 */
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 0, 0, f16z(200 * 257),
          f16z(100 * 257), f16z(50 * 257), 1);
    /* ((10 * 257) * 43 + (200 * 257) * 21 + 32) >> 6 = 18592 */
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 1, 0, f16z(18592),
          f16z(((20 * 257) * 43 + (100 * 257) * 21 + 32) >> 6),
          f16z(((30 * 257) * 43 + (50 * 257) * 21 + 32) >> 6), 1);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 2, 0, f16z(10 * 257),
          f16z(20 * 257), f16z(30 * 257), 1);
    /* sRGB expands endpoints as c << 8 | 0x80 */
    check(AGX_TEXFMT_ASTC_FIRST, AGX_TEXFMT_SRGB, b, 1, 0,
          (((10 * 256 + 128) * 43 + (200 * 256 + 128) * 21 + 32) >> 14) /
          255.0, (((20 * 256 + 128) * 43 + (100 * 256 + 128) * 21 + 32) >>
                  14) / 255.0,
          (((30 * 256 + 128) * 43 + (50 * 256 + 128) * 21 + 32) >> 14) /
          255.0, (((255 * 256 + 128) * 43 + (255 * 256 + 128) * 21 + 32) >>
                  14) / 255.0);
    /* a weight grid larger than the footprint: the error colour */
    put_le(b, 0, 11, 0x42 | 1 << 7);    /* W 5 on a 4-wide block */
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 0, 0, 1, 0, 1, 1);
}

/*
 * ASTC trit weights (range 0..2, block mode 0x51): trits from the
 * specification's decoding of T = 0b00000011 (0, 0, 2, 0, 0) and
 * T = 0b00011100 (0, 0, 0, 2, 2); CEM 0, luminance 0x20 to 0xe0
 */
static void test_astc_trits(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 11, 0x51);
    put_le(b, 13, 4, 0);
    put_le(b, 17, 8, 0x20);
    put_le(b, 25, 8, 0xe0);
    put_weight_bits(b, 0, 8, 0x03);
    put_weight_bits(b, 8, 8, 0x1c);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 2, 0, 0xe0e0 / 65536.0,
          0xe0e0 / 65536.0, 0xe0e0 / 65536.0, 1);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 1, 0, 0x2020 / 65536.0,
          0x2020 / 65536.0, 0x2020 / 65536.0, 1);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 3, 1, 0x2020 / 65536.0,
          0x2020 / 65536.0, 0x2020 / 65536.0, 1);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 0, 2, 0xe0e0 / 65536.0,
          0xe0e0 / 65536.0, 0xe0e0 / 65536.0, 1);
    check(AGX_TEXFMT_ASTC_FIRST, false, b, 1, 2, 0xe0e0 / 65536.0,
          0xe0e0 / 65536.0, 0xe0e0 / 65536.0, 1);
}

/*
 * ASTC 6x6 (0x64) with a 3x3 grid of 3-bit weights (block mode 0x1bf):
 * the infill, D = (1024 + 3) / 5 = 205; texel (1, 0) lies at 6/16 from
 * grid weight (0, 0) towards (1, 0): (0 * 10 + 64 * 6 + 8) >> 4 = 24
 */
static void test_astc_infill(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 11, 0x1bf);
    put_le(b, 13, 4, 0);
    put_le(b, 17, 8, 0);
    put_le(b, 25, 8, 255);
    put_weight_bits(b, 3, 3, 7);        /* grid (1, 0): 64 */
    put_weight_bits(b, 24, 3, 4);       /* grid (2, 2): 4 -> 36 -> 37 */
    /* (0xffff * 24 + 32) >> 6 = 24576: 0.375 */
    check(0x64, false, b, 1, 0, 0.375, 0.375, 0.375, 1);
    check(0x64, false, b, 0, 0, 0, 0, 0, 1);
    /* texel (5, 5) is grid (2, 2): (0xffff * 37 + 32) >> 6 = 37887 */
    check(0x64, false, b, 5, 5, 1183 / 2048.0, 1183 / 2048.0, 1183 / 2048.0,
          1);
}

/*
 * ASTC against Arm's reference decoder: every texel of the astcenc
 * vectors, this decoder's (decode_float16) result rounded to 8 bits as
 * astcenc's 8-bit output rounds it
 */
static void test_astc_astcenc(void)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(astc_vectors); i++) {
        const AstcVector *v = &astc_vectors[i];

        for (int k = 0; k < 4; k++) {
            const uint8_t *t = v->texel[k];
            double got[4];

            agx_texfmt_decode(v->fmt, 0, v->block, t[0], t[1], got);
            for (int c = 0; c < 4; c++) {
                g_assert_cmpint(lround(got[c] * 255), ==, t[2 + c]);
            }
        }
    }
}

/*
 * ASTC's HDR profile (Type Float views) against Arm's reference decoder:
 * every texel of the astcenc HDR vectors, exactly (half floats); the
 * same blocks in the LDR profile read the error colour where a texel's
 * partition has HDR endpoints (or the block is an HDR void extent)
 */
static void test_astc_hdr_astcenc(void)
{
    unsigned errors = 0;

    for (unsigned i = 0; i < G_N_ELEMENTS(astc_hdr_vectors); i++) {
        const AstcHdrVector *v = &astc_hdr_vectors[i];

        for (int k = 0; k < 4; k++) {
            const uint16_t *t = v->texel[k];
            double got[4], ldr[4];

            agx_texfmt_decode(v->fmt, AGX_TEXFMT_HDR, v->block, t[0], t[1],
                              got);
            for (int c = 0; c < 4; c++) {
                g_assert_cmpfloat(got[c], ==, agx_texfmt_half(t[2 + c]));
            }
            agx_texfmt_decode(v->fmt, 0, v->block, t[0], t[1], ldr);
            errors += ldr[0] == 1 && ldr[1] == 0 && ldr[2] == 1 &&
                      ldr[3] == 1;
        }
    }
    g_assert_cmpuint(errors, >, G_N_ELEMENTS(astc_hdr_vectors));
}

/*
 * An HDR void extent holds its half floats in the HDR profile, and is the
 * error colour in the LDR profile
 */
static void test_astc_hdr_void_extent(void)
{
    uint8_t b[16] = { 0 };

    put_le(b, 0, 9, 0x1fc);
    put_le(b, 9, 1, 1);
    put_le(b, 10, 2, 3);
    put_le(b, 12, 52, 0xfffffffffffffULL);
    put_le(b, 64, 16, 0x4400);          /* 4.0 */
    put_le(b, 80, 16, 0x3c00);          /* 1.0 */
    put_le(b, 96, 16, 0x5640);          /* 100.0 */
    put_le(b, 112, 16, 0x3800);         /* 0.5 */
    check(0x60, AGX_TEXFMT_HDR, b, 2, 3, 4.0, 1.0, 100.0, 0.5);
    check(0x60, 0, b, 2, 3, 1, 0, 1, 1);
}

/*
 * Any bytes are a block: random blocks of every format decode, at every
 * texel of the footprint, to values in the format's range (BC6H, ASTC's
 * HDR profile: any finite half float), so guest data cannot upset the
 * sampler
 */
static void test_random_blocks(void)
{
    static const unsigned fmts[] = {
        AGX_TEXFMT_ETC2_RGB8, AGX_TEXFMT_ETC2_RGBA8, AGX_TEXFMT_ETC2_RGB8A1,
        AGX_TEXFMT_EAC_R11, AGX_TEXFMT_EAC_RG11, AGX_TEXFMT_BC1,
        AGX_TEXFMT_BC2, AGX_TEXFMT_BC3, AGX_TEXFMT_BC4, AGX_TEXFMT_BC5,
        AGX_TEXFMT_BC6H, AGX_TEXFMT_BC6H_UF, AGX_TEXFMT_BC7,
        0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a,
        0x6b, 0x6c, 0x6d,
    };
    GRand *r = g_rand_new_with_seed(27);

    for (unsigned f = 0; f < G_N_ELEMENTS(fmts); f++) {
        unsigned bw, bh, bytes;

        g_assert_true(agx_texfmt_block(fmts[f], &bw, &bh, &bytes));
        for (int n = 0; n < 300; n++) {
            uint8_t b[16];

            for (int i = 0; i < 16; i++) {
                b[i] = g_rand_int(r);
            }
            for (unsigned flags = 0; flags < 8; flags++) {
                for (unsigned y = 0; y < bh; y++) {
                    for (unsigned x = 0; x < bw; x++) {
                        double v[4];
                        bool hdr = fmts[f] == AGX_TEXFMT_BC6H ||
                                   fmts[f] == AGX_TEXFMT_BC6H_UF ||
                                   (flags & AGX_TEXFMT_HDR);

                        agx_texfmt_decode(fmts[f], flags, b, x, y, v);
                        for (int c = 0; c < 4; c++) {
                            g_assert_false(isnan(v[c]));
                            g_assert_cmpfloat(fabs(v[c]), <=, 65504);
                            if (!hdr) {
                                g_assert_cmpfloat(v[c], >=, -1);
                                g_assert_cmpfloat(v[c], <=, 1);
                            }
                        }
                    }
                }
            }
        }
    }
    g_rand_free(r);
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
    g_test_add_func("/texfmt/bc7-mode6-p-bits", test_bc7_mode6);
    g_test_add_func("/texfmt/bc7-mode4-rotation-index-selection",
                    test_bc7_mode4);
    g_test_add_func("/texfmt/bc7-mode2-spec-example", test_bc7_mode2_example);
    g_test_add_func("/texfmt/bc6h-mode3-unsigned-signed", test_bc6h_mode3);
    g_test_add_func("/texfmt/bc6h-mode7-delta", test_bc6h_mode7);
    g_test_add_func("/texfmt/bc6h-mode30-two-subsets", test_bc6h_mode30);
    g_test_add_func("/texfmt/astc-void-extent", test_astc_void_extent);
    g_test_add_func("/texfmt/astc-rgb-direct-srgb", test_astc_rgb_direct);
    g_test_add_func("/texfmt/astc-trit-weights", test_astc_trits);
    g_test_add_func("/texfmt/astc-weight-infill", test_astc_infill);
    g_test_add_func("/texfmt/astc-matches-astcenc", test_astc_astcenc);
    g_test_add_func("/texfmt/astc-hdr-matches-astcenc",
                    test_astc_hdr_astcenc);
    g_test_add_func("/texfmt/astc-hdr-void-extent",
                    test_astc_hdr_void_extent);
    g_test_add_func("/texfmt/random-blocks-stay-in-range", test_random_blocks);
    return g_test_run();
}
