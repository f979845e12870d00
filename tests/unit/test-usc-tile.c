/*
 * Unit tests of the USC interpreter's tilebuffer instructions: ld_tile,
 * st_tile and block_image_store, assembled here from Mesa's agx_pack.c
 * layouts (or taken from the recorded corpus), run on a tile given to
 * agx_usc_run_group() and checked against conversions computed here
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include "usc-asm.h"
#include "agx-usc-internal.h"

#define USC_BASE        0x1000000000ull
#define CODE_OFF        0x10000
#define OUT_VA          0x2000000000ull
#define IMG_VA          0x4000000000ull
#define DESC_VA         0x5000000000ull

/* Mesa's enum agx_format (agx_compile.h) */
enum {
    F_I8, F_I16, F_I32, F_F16, F_U8NORM, F_S8NORM, F_U16NORM, F_S16NORM,
    F_RGB10A2, F_SRGBA8 = 10, F_RG11B10F = 12, F_RGB9E5,
};

/*
 * ld_tile / st_tile as agx_pack.c packs them: R (a 32-bit register when
 * r32), sample mask S (a register half when s_reg), coordinates C (two
 * halves) when explicit, format, component mask, byte offset
 */
static void tile_op(Asm *a, bool load, bool r32, unsigned r, unsigned s,
                    bool s_reg, bool explicit, unsigned c, unsigned fmt,
                    unsigned mask, unsigned off)
{
    unsigned d = (r32 ? 2 : 0) | r << 2;
    uint64_t w = (load ? 0x49 : 0x09) | (uint64_t)(d & 0xff) << 7 |
                 (uint64_t)s_reg << 22 | (uint64_t)fmt << 24 |
                 (uint64_t)(c & 63) << 16 | (uint64_t)(off & 127) << 28 |
                 (uint64_t)(load || explicit) << 35 |
                 (uint64_t)mask << 36 | (uint64_t)(off >> 7) << 40 |
                 (uint64_t)(s & 63) << 42 | (uint64_t)explicit << 55 |
                 (uint64_t)(s >> 6) << 56 | (uint64_t)(c >> 6) << 58 |
                 (uint64_t)(d >> 8) << 60;

    emit(a, w, 0, 8);
}

/*
 * block_image_store as agx_pack.c packs it (10 bytes): format, the offset
 * register R (32-bit), coordinates C, texture state register T, dimension
 */
static void block_store(Asm *a, unsigned fmt, unsigned r, unsigned c,
                        bool explicit, unsigned t, unsigned dim)
{
    uint32_t w0 = 0xb1 | 1u << 15 | (fmt & 1) << 8 | (r & 63) << 9 |
                  (c & 63) << 16 | (unsigned)explicit << 23 | 1u << 31;
    uint32_t w1 = (t & 63) | (dim & 7) << 8 | 9u << 11 |
                  ((dim >> 3) & 1) << 23 | (r >> 6) << 24 | (c >> 6) << 26;
    uint32_t w2 = (fmt >> 1) | 1u << 3 | (t >> 6) << 14;

    emit(a, w0 | (uint64_t)w1 << 32, w2, 10);
}

/* Store rN of every lane to the output (store_result by lane) */
static void store_out(Asm *a, unsigned reg, unsigned slot)
{
    store_result_sr(a, reg, slot, SR_LANE);
}

static uint32_t fbits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

typedef struct Bed {
    TestMem *m;
    AgxUscLaunch l;
    AgxUscGroup g;
    AgxUscTile t;
    AgxUscFault fault;
    uint64_t budget;
} Bed;

/* A group of @lanes lanes on a @w x @h tile, lane i at (i % w, i / w) */
static Bed *bed_new(Asm *a, unsigned lanes, unsigned w, unsigned h,
                    unsigned samples, unsigned sample_bytes)
{
    Bed *b = g_new0(Bed, 1);

    footer(a);
    b->m = tm_new();
    tm_put(b->m, USC_BASE + CODE_OFF, a->b, a->n);
    tm_map(b->m, OUT_VA, 64 * 1024);
    b->l.usc_base = USC_BASE;
    b->l.main_pc = CODE_OFF;
    b->l.gpr_halves = 256;
    b->l.soft_faults = true;
    b->l.uniforms[0] = (uint32_t)OUT_VA;
    b->l.uniforms[1] = OUT_VA >> 32;
    b->t.width = w;
    b->t.height = h;
    b->t.samples = samples;
    b->t.sample_bytes = sample_bytes;
    b->t.mem = g_malloc0(w * h * samples * sample_bytes);
    b->g.launched = lanes >= 32 ? ~0u : (1u << lanes) - 1;
    b->g.tile = &b->t;
    for (unsigned i = 0; i < 32; i++) {
        b->g.px[i] = i % w;
        b->g.py[i] = i / w;
    }
    b->budget = 1000000;
    return b;
}

static void bed_free(Bed *b)
{
    g_free(b->t.mem);
    tm_free(b->m);
    g_free(b);
}

static AgxUscStatus bed_run(Bed *b)
{
    return agx_usc_run_group(&b->l, &b->g, &tm_ops, b->m, &b->budget,
                             &b->fault);
}

static uint8_t *px(Bed *b, unsigned x, unsigned y, unsigned s)
{
    return b->t.mem + ((y * b->t.width + x) * b->t.samples + s) *
                      b->t.sample_bytes;
}

/* The recorded words of tests/unit/usc-corpus decode as Mesa 26 reads them */
static void test_decode_recorded(void)
{
    /* st_tile r16_r17_r18_r19, r3l_r3h, 1, 0, explicit_coords, i32, xyzw */
    static const uint8_t st[8] = { 0x09, 0x41, 0x06, 0x02,
                                   0xf8, 0x04, 0x80, 0x00 };
    /* imgwblk r2l, ts1, r8, 0, explicit_coords, 2d_array, i32 */
    static const uint8_t blk[10] = { 0xb1, 0x88, 0x90, 0x80, 0x01,
                                     0x4b, 0x00, 0x00, 0x09, 0x00 };
    AgxUscInsn insn;

    g_assert_true(agx_usc_decode_one(st, 8, &insn));
    g_assert_cmpstr(agx_usc_op_names[insn.op], ==, "st_tile");
    g_assert_cmpuint(insn.len, ==, 8);
    g_assert_cmpuint(insn.f[AGX_USC_F_R], ==, 32);
    g_assert_cmpuint(insn.f[AGX_USC_F_RT], ==, 1);
    g_assert_cmpuint(insn.f[AGX_USC_F_C], ==, 6);
    g_assert_cmpuint(insn.f[AGX_USC_F_S], ==, 1);
    g_assert_cmpuint(insn.f[AGX_USC_F_EXPL], ==, 1);
    g_assert_cmpuint(insn.f[AGX_USC_F_FMT], ==, F_I32);
    g_assert_cmpuint(insn.f[AGX_USC_F_MASK], ==, 0xf);
    g_assert_cmpuint(insn.f[AGX_USC_F_O], ==, 0);
    g_assert_true(agx_usc_decode_one(blk, 10, &insn));
    g_assert_cmpstr(agx_usc_op_names[insn.op], ==, "block_image_store");
    g_assert_cmpuint(insn.len, ==, 10);
    g_assert_cmpuint(insn.f[AGX_USC_F_R], ==, 4);
    g_assert_cmpuint(insn.f[AGX_USC_F_T], ==, 1);
    g_assert_cmpuint(insn.f[AGX_USC_F_C], ==, 16);
    g_assert_cmpuint(insn.f[AGX_USC_F_DIM], ==, 3);
    g_assert_cmpuint(insn.f[AGX_USC_F_FMT], ==, F_I32);
    g_assert_cmpuint(insn.f[AGX_USC_F_EXPL], ==, 1);
}

static uint8_t unorm8(float x)
{
    return (uint8_t)lrint(fmin(fmax(x, 0), 1) * 255);
}

/*
 * st_tile in several formats and sample masks, then ld_tile back: the
 * bytes in the tile and the registers read are what the formats say
 */
static void test_store_load_formats(void)
{
    static const float rgba[4] = { 0.25f, 0.5f, 1.0f, 0.1f };
    Asm a = { 0 };
    Bed *b;

    /* r1..r4: an f32 colour; r5l: an f16 (1.5 + lane); r6: an integer */
    tile_op(&a, false, true, 2, 0xff, false, false, 0, F_U8NORM, 0xf, 0);
    tile_op(&a, false, false, 10, 2, false, false, 0, F_F16, 0x1, 4);
    tile_op(&a, false, true, 12, 1, false, false, 0, F_I32, 0x1, 8);
    tile_op(&a, false, true, 2, 0xff, false, false, 0, F_RGB10A2, 0xf, 12);
    /* components 1 and 3 only, compacted into r1 and r2: s8norm */
    tile_op(&a, false, true, 2, 1, false, false, 0, F_S8NORM, 0xa, 16);
    /* a store beyond the sample is dropped (offset 22 + 4 bytes) */
    tile_op(&a, false, true, 12, 1, false, false, 0, F_I32, 0x1, 22);
    /* back: u8norm to f32 r8..r11, f16 to a half and to f32 r13 */
    tile_op(&a, true, true, 16, 1, false, false, 0, F_U8NORM, 0xf, 0);
    tile_op(&a, true, false, 24, 2, false, false, 0, F_F16, 0x1, 4);
    tile_op(&a, true, true, 26, 2, false, false, 0, F_F16, 0x1, 4);
    /* the lane's sample mask from a register half: r7l = 2 */
    tile_op(&a, true, true, 28, 14, true, false, 0, F_I32, 0x1, 8);
    for (int i = 0; i < 4; i++) {
        store_out(&a, 8 + i, i);
    }
    store_out(&a, 12, 4);
    store_out(&a, 13, 5);
    store_out(&a, 14, 6);
    b = bed_new(&a, 8, 4, 2, 2, 24);
    b->g.init_regs = 8;
    for (int l = 0; l < 32; l++) {
        for (int c = 0; c < 4; c++) {
            b->g.init[1 + c][l] = fbits(rgba[c]);
        }
        b->g.init[5][l] = 0x3e00 + 0x400 * (l & 1);    /* 1.5 or 3.0 */
        b->g.init[6][l] = 0x1000 + l;
        b->g.init[7][l] = 2;
    }
    /* what the I32 load of sample 1 reads */
    for (int l = 0; l < 8; l++) {
        uint32_t v = 0xabc00 + l;

        memcpy(px(b, l % 4, l / 4, 1) + 8, &v, 4);
    }
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (int l = 0; l < 8; l++) {
        unsigned x = l % 4, y = l / 4;
        uint32_t w, e;
        uint16_t h;

        for (int s = 0; s < 2; s++) {
            uint8_t *p = px(b, x, y, s);

            for (int c = 0; c < 4; c++) {
                g_assert_cmpuint(p[c], ==, unorm8(rgba[c]));
            }
            memcpy(&h, p + 4, 2);
            g_assert_cmphex(h, ==, s == 1 ? 0x3e00 + 0x400 * (l & 1) : 0);
            memcpy(&w, p + 12, 4);
            e = lrint(0.25 * 1023) | lrint(0.5 * 1023) << 10 |
                1023u << 20 | (uint32_t)lrint(0.1 * 3) << 30;
            g_assert_cmphex(w, ==, e);
            /* s8norm: y = 0.5 at byte 1, w = 0.1 at byte 3 (from r1, r2) */
            if (s == 0) {
                g_assert_cmpuint(p[16], ==, 0);
                g_assert_cmpuint(p[17], ==, (uint8_t)lrint(0.25 * 127));
                g_assert_cmpuint(p[19], ==, (uint8_t)lrint(0.5 * 127));
                memcpy(&w, p + 8, 4);
                g_assert_cmphex(w, ==, 0x1000 + l);
                /* bytes 22..23 of the dropped store stay 0 */
                g_assert_cmpuint(p[22] | p[23], ==, 0);
            }
        }
        for (int c = 0; c < 4; c++) {
            g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * (32 * c + l)), ==,
                            fbits(unorm8(rgba[c]) / 255.0f));
        }
        /* r12l: f16 of sample 1, raw; r13: as f32 */
        g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * (128 + l)) & 0xffff, ==,
                        0x3e00 + 0x400 * (l & 1));
        g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * (160 + l)), ==,
                        fbits(l & 1 ? 3.0f : 1.5f));
        g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * (192 + l)), ==,
                        0xabc00 + l);
    }
    bed_free(b);
}

/*
 * st_tile of four U8NORM channels (the common RGBA8 store, which has a
 * path of its own) against the general path, byte for byte: f32 and f16
 * registers holding values in range, beyond it, negative, NaN and
 * denormal, runs of lanes storing the same values, 4x multisampling with
 * coverage, a sample mask from a register half, helper lanes, explicit
 * coordinates inside and outside the tile, at offsets 0 and 4
 */
static void store_u8norm4_run(bool general, uint8_t *mem, size_t len)
{
    static const uint32_t f32s[8] = {
        0x3e800000, 0x3f000000, 0x3f800000, 0x40000000,     /* .25 .5 1 2 */
        0xbf000000, 0x7fc00000, 0x00000001, 0x3b808081,     /* -.5 NaN */
    };
    static const uint16_t f16s[8] = {
        0x3400, 0x3800, 0x3c00, 0x4000, 0xb800, 0x7e00, 0x0001, 0x1c04,
    };
    Asm a = { 0 };
    Bed *b;

    /* r1..r4 f32, r5l..r6h f16, r7l: sample mask, r8l r8h: coordinates */
    tile_op(&a, false, true, 2, 0xff, false, false, 0, F_U8NORM, 0xf, 0);
    tile_op(&a, false, false, 10, 14, true, false, 0, F_U8NORM, 0xf, 4);
    tile_op(&a, false, true, 2, 0x5, false, true, 16, F_U8NORM, 0xf, 4);
    b = bed_new(&a, 32, 8, 4, 4, 8);
    b->g.init_regs = 9;
    b->g.helper = 0x00f000f0;
    for (int l = 0; l < 32; l++) {
        for (int c = 0; c < 4; c++) {
            /* lanes 8..15 store the same values: a run */
            int k = l >= 8 && l < 16 ? c : (l * 3 + c * 5) % 8;

            b->g.init[1 + c][l] = f32s[k];
        }
        b->g.init[5][l] = f16s[l % 8] | f16s[(l + 3) % 8] << 16;
        b->g.init[6][l] = f16s[(l + 5) % 8] | f16s[(l * 7) % 8] << 16;
        b->g.init[7][l] = l % 16;
        /* transposed, some beyond the 8x4 tile */
        b->g.init[8][l] = (l / 8) | (l % 8 + (l > 24) * 8) << 16;
        b->g.coverage[l] = l & 1 ? 0xf : 1 + (l % 7);
    }
    agx_usc_general_paths = general;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    agx_usc_general_paths = false;
    g_assert_cmpuint(len, ==, 8 * 4 * 4 * 8);
    memcpy(mem, b->t.mem, len);
    bed_free(b);
}

static void test_store_u8norm4(void)
{
    uint8_t fast[8 * 4 * 4 * 8], slow[sizeof(fast)];
    unsigned nonzero = 0;

    store_u8norm4_run(false, fast, sizeof(fast));
    store_u8norm4_run(true, slow, sizeof(slow));
    g_assert_cmpmem(fast, sizeof(fast), slow, sizeof(slow));
    for (size_t i = 0; i < sizeof(fast); i++) {
        nonzero += fast[i] != 0;
    }
    g_assert_cmpuint(nonzero, >, sizeof(fast) / 4);
}

/*
 * Explicit coordinates: each lane stores its index at the pixel its
 * register halves name (the transposed one), I8 at offset 1
 */
static void test_explicit_coords(void)
{
    Asm a = { 0 };
    Bed *b;

    tile_op(&a, false, true, 2, 1, false, true, 4, F_I8, 0x1, 1);
    b = bed_new(&a, 16, 4, 4, 1, 8);
    b->g.init_regs = 3;
    for (int l = 0; l < 16; l++) {
        b->g.init[1][l] = 0x100 | l;          /* I8 keeps the low byte */
        b->g.init[2][l] = (l % 4) << 16 | (l / 4);
    }
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (int l = 0; l < 16; l++) {
        g_assert_cmpuint(px(b, l / 4, l % 4, 0)[1], ==, l);
        g_assert_cmpuint(px(b, l / 4, l % 4, 0)[0], ==, 0);
    }
    bed_free(b);
}

static void put_field(uint8_t *d, unsigned start, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = start + i;

        d[bit / 8] = (d[bit / 8] & ~(1 << (bit % 8))) |
                     ((v >> i) & 1) << (bit % 8);
    }
}

/* A linear PBE descriptor (cmdbuf.xml "PBE"; stride as Mesa encodes it) */
static void pbe_linear(uint8_t *d, unsigned channels, unsigned type,
                       uint32_t w, uint32_t h, uint64_t va, uint32_t stride,
                       bool srgb)
{
    memset(d, 0, 24);
    put_field(d, 0, 4, 2);
    put_field(d, 6, 7, channels);
    put_field(d, 13, 3, type);
    for (int c = 0; c < 4; c++) {
        put_field(d, 16 + 2 * c, 2, c);
    }
    put_field(d, 24, 14, w - 1);
    put_field(d, 38, 14, h - 1);
    put_field(d, 64, 36, va >> 4);
    put_field(d, 104, 21, stride - 4);
    put_field(d, 125, 1, srgb);
}

/*
 * block_image_store of an 8x4 U8NORM tile at its origin (the end-of-tile
 * program's way) into a linear RGBA8 image, clipped at its edge; and of
 * an I32 tile at explicit coordinates into an R32 float image, bits kept
 */
static void test_block_store(void)
{
    Asm a = { 0 };
    uint8_t d[24], row[80];
    Bed *b;

    mov_imm32(&a, 1, 0);                    /* r1: tile offset 0 */
    block_store(&a, F_U8NORM, 2, 0, false, 0, 2);
    mov_imm32(&a, 1, 4);                    /* r1: offset 4 */
    block_store(&a, F_I32, 2, 4, true, 1, 2);
    b = bed_new(&a, 1, 8, 4, 1, 8);
    b->t.origin_x = 16;
    b->t.origin_y = 8;
    tm_map(b->m, IMG_VA, 65536);
    pbe_linear(d, 0x28, 0, 20, 10, IMG_VA, 80, false);
    tm_put(b->m, DESC_VA, d, 24);
    pbe_linear(d, 0x21, 4, 12, 12, IMG_VA + 0x4000, 48, false);
    tm_put(b->m, DESC_VA + 24, d, 24);
    b->l.tex_state_va[0] = DESC_VA;
    b->l.tex_state_va[1] = DESC_VA + 24;
    b->g.init_regs = 5;
    b->g.init[2][0] = 6;                    /* r2, r3: x, y */
    b->g.init[3][0] = 10;
    for (unsigned y = 0; y < 4; y++) {
        for (unsigned x = 0; x < 8; x++) {
            uint32_t v = 0x3f800000 + y * 8 + x;

            for (int c = 0; c < 4; c++) {
                px(b, x, y, 0)[c] = y * 32 + x * 4 + c;
            }
            memcpy(px(b, x, y, 0) + 4, &v, 4);
        }
    }
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (unsigned y = 0; y < 10; y++) {
        uint64_t f;

        tm_rw(b->m, IMG_VA + y * 80, row, 80, &f, false);
        for (unsigned x = 0; x < 20; x++) {
            bool in = x >= 16 && y >= 8;

            for (int c = 0; c < 4; c++) {
                g_assert_cmpuint(row[4 * x + c], ==,
                                 in ? (y - 8) * 32 + (x - 16) * 4 + c : 0);
            }
        }
    }
    for (unsigned y = 0; y < 12; y++) {
        for (unsigned x = 0; x < 12; x++) {
            bool in = x >= 6 && y >= 10;
            uint32_t v = tm_get32(b->m, IMG_VA + 0x4000 + y * 48 + x * 4);

            g_assert_cmphex(v, ==, in ? 0x3f800000 + (y - 10) * 8 + (x - 6)
                                      : 0);
        }
    }
    bed_free(b);
}

/*
 * block_image_store of a 32x32 U8NORM tile (distinct colours) into images
 * it overlaps in part, at the tile's origin (32, 0): a twiddled 40x24
 * RGBA8 image, a linear 50x20 one, and layer 1 of a twiddled 48x24 2D
 * array of 2 (the layer in r0l): the texels' addresses by rows and columns
 * (agx_image_sample_grid) write what texel-by-texel addressing does,
 * byte for byte, nothing outside the image
 */
static void block_store_image(bool general, const uint8_t *desc,
                              unsigned dim, uint8_t *img, size_t len)
{
    Asm a = { 0 };
    uint64_t f;
    Bed *b;

    mov_imm32(&a, 1, 0);                    /* r1: tile offset 0 */
    mov_imm32(&a, 0, 1);                    /* r0l: layer 1 */
    block_store(&a, F_U8NORM, 2, 0, false, 0, dim);
    b = bed_new(&a, 1, 32, 32, 1, 8);
    b->t.origin_x = 32;
    b->t.origin_y = 0;
    tm_map(b->m, IMG_VA, len);
    tm_put(b->m, DESC_VA, desc, 24);
    b->l.tex_state_va[0] = DESC_VA;
    for (unsigned y = 0; y < 32; y++) {
        for (unsigned x = 0; x < 32; x++) {
            for (int c = 0; c < 4; c++) {
                px(b, x, y, 0)[c] = (y * 32 + x) * (c + 1) + c;
            }
        }
    }
    agx_usc_general_paths = general;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    agx_usc_general_paths = false;
    tm_rw(b->m, IMG_VA, img, len, &f, false);
    bed_free(b);
}

static void test_block_store_grid(void)
{
    const size_t len = 65536;
    g_autofree uint8_t *fast = g_malloc(len), *slow = g_malloc(len);
    uint8_t d[3][24];
    size_t written = 0;

    for (int i = 0; i < 3; i++) {
        memset(d[i], 0, 24);
        put_field(d[i], 0, 4, i == 2 ? 3 : 2);     /* 2D, 2D array */
        put_field(d[i], 4, 2, i == 1 ? 0 : 2);     /* linear, twiddled */
        put_field(d[i], 6, 7, 0x28);
        for (int c = 0; c < 4; c++) {
            put_field(d[i], 16 + 2 * c, 2, c);
        }
        put_field(d[i], 64, 36, IMG_VA >> 4);
    }
    put_field(d[0], 24, 14, 40 - 1);
    put_field(d[0], 38, 14, 24 - 1);
    put_field(d[1], 24, 14, 50 - 1);
    put_field(d[1], 38, 14, 20 - 1);
    put_field(d[1], 104, 21, 200 - 4);              /* stride */
    put_field(d[2], 24, 14, 48 - 1);
    put_field(d[2], 38, 14, 24 - 1);
    put_field(d[2], 108, 14, 2 - 1);                /* layers */
    for (int i = 0; i < 3; i++) {
        block_store_image(false, d[i], i == 2 ? 3 : 2, fast, len);
        block_store_image(true, d[i], i == 2 ? 3 : 2, slow, len);
        g_assert_cmpmem(fast, len, slow, len);
        for (size_t k = 0; k < len; k++) {
            written += fast[k] != 0;
        }
    }
    /* 8x24, 18x20 and 16x24 texels inside: some channels are 0 */
    g_assert_cmpuint(written, >, 3 * (8 * 24 + 18 * 20 + 16 * 24));
}

/*
 * block_image_store into a compressed 32x64 RGBA8 image (twiddled body,
 * PBE "Compressed 1", acceleration buffer): the four 16x16 tiles it
 * writes are marked uncompressed (Mesa's layout.h mode 0x7f for 4-byte
 * texels) in the metadata, 8 bytes a tile, tiles twiddled along the
 * smaller side (compression.cl index_metadata: entries 4..7 for the
 * lower 32x32), the others untouched
 */
static void test_block_store_compressed(void)
{
    Asm a = { 0 };
    uint8_t d[24];
    Bed *b;

    mov_imm32(&a, 1, 0);
    block_store(&a, F_U8NORM, 2, 0, false, 0, 2);
    b = bed_new(&a, 1, 32, 32, 1, 8);
    b->t.origin_y = 32;
    tm_map(b->m, IMG_VA, 65536);
    memset(d, 0, sizeof(d));
    put_field(d, 0, 4, 2);
    put_field(d, 4, 2, 2);                  /* twiddled */
    put_field(d, 6, 7, 0x28);
    for (int c = 0; c < 4; c++) {
        put_field(d, 16 + 2 * c, 2, c);
    }
    put_field(d, 24, 14, 32 - 1);
    put_field(d, 38, 14, 64 - 1);
    put_field(d, 59, 1, 1);                 /* compressed */
    put_field(d, 64, 36, IMG_VA >> 4);
    put_field(d, 127, 1, 1);                /* extended */
    put_field(d, 128, 64, (IMG_VA + 0x8000) >> 4);
    tm_put(b->m, DESC_VA, d, 24);
    b->l.tex_state_va[0] = DESC_VA;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (unsigned i = 0; i < 8; i++) {
        uint32_t lo = tm_get32(b->m, IMG_VA + 0x8000 + 8 * i);
        uint32_t hi = tm_get32(b->m, IMG_VA + 0x8000 + 8 * i + 4);

        g_assert_cmphex(lo, ==, i >= 4 ? 0x7f7f7f7f : 0);
        g_assert_cmphex(hi, ==, i >= 4 ? 0x7f7f7f7f : 0);
    }
    bed_free(b);
}

/*
 * A fragment's special registers: backfacing (62, Mesa's load_back_face)
 * is its primitive's, thread_position_in_grid (80, 81) its pixel in the
 * render target
 */
static void test_fragment_srs(void)
{
    Asm a = { 0 };
    Bed *b;

    get_sr(&a, 1, 62);
    get_sr(&a, 2, 80);
    get_sr(&a, 3, 81);
    for (int i = 0; i < 3; i++) {
        store_out(&a, 1 + i, i);
    }
    b = bed_new(&a, 8, 4, 2, 1, 8);
    b->t.origin_x = 64;
    b->t.origin_y = 32;
    b->g.back_facing = true;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (int l = 0; l < 8; l++) {
        g_assert_cmpuint(tm_get32(b->m, OUT_VA + 4 * l), ==, 1);
        g_assert_cmpuint(tm_get32(b->m, OUT_VA + 4 * (32 + l)), ==,
                         64 + l % 4);
        g_assert_cmpuint(tm_get32(b->m, OUT_VA + 4 * (64 + l)), ==,
                         32 + l / 4);
    }
    b->g.back_facing = false;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    g_assert_cmpuint(tm_get32(b->m, OUT_VA), ==, 0);
    bed_free(b);
}

/* Without a tile the instructions fault; an undefined format too */
static void test_no_tile(void)
{
    Asm a = { 0 };
    Bed *b;

    tile_op(&a, false, true, 2, 1, false, false, 0, F_I32, 0x1, 0);
    b = bed_new(&a, 1, 4, 4, 1, 8);
    b->g.tile = NULL;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_FAULT);
    g_assert_cmpint(b->fault.kind, ==, AGX_USC_FAULT_DECODE);
    bed_free(b);
    memset(&a, 0, sizeof(a));
    tile_op(&a, true, true, 2, 1, false, false, 0, 9, 0x1, 0);
    b = bed_new(&a, 1, 4, 4, 1, 8);
    g_assert_cmpint(bed_run(b), ==, AGX_USC_FAULT);
    bed_free(b);
}

/* --- depth/stencil output ---------------------------------------------- */

/*
 * sample_mask and zs_emit as Mesa 26.1.6 emitted them in the Mesa guest
 * (gles-scene's discarding and gl_FragDepth shaders, vk-draw's
 * gl_FragStencilRefARB one; words and disassembly as agxdecode printed
 * them under ASAHI_MESA_DEBUG=trace) decode to those operands
 */
static void test_decode_recorded_zs(void)
{
    /* sample_mask r1l, r0l */
    static const uint8_t sm[4] = { 0xc1, 0x04, 0x00, 0x00 };
    /* zs_emit 255, r2 (depth) */
    static const uint8_t ze[4] = { 0x41, 0x7f, 0x04, 0x23 };
    /* zs_emit 255, r3l (stencil) */
    static const uint8_t zs[4] = { 0x41, 0x7f, 0x06, 0x43 };
    AgxUscInsn insn;

    g_assert_true(agx_usc_decode_one(sm, 4, &insn));
    g_assert_cmpstr(agx_usc_op_names[insn.op], ==, "sample_mask");
    g_assert_cmpuint(insn.f[AGX_USC_F_TT], ==, 0);
    g_assert_cmpuint(insn.f[AGX_USC_F_T], ==, 2);
    g_assert_cmpuint(insn.f[AGX_USC_F_SI], ==, 0);
    g_assert_cmpuint(insn.f[AGX_USC_F_S], ==, 0);
    g_assert_true(agx_usc_decode_one(ze, 4, &insn));
    g_assert_cmpstr(agx_usc_op_names[insn.op], ==, "zs_emit");
    g_assert_cmpuint(insn.len, ==, 4);
    g_assert_cmpuint(insn.f[AGX_USC_F_TT], ==, 1);
    g_assert_cmpuint(insn.f[AGX_USC_F_T], ==, 255);
    g_assert_cmpuint(insn.f[AGX_USC_F_R], ==, 4);
    g_assert_cmpuint(insn.f[AGX_USC_F_ZS], ==, 1);
    g_assert_true(agx_usc_decode_one(zs, 4, &insn));
    g_assert_cmpstr(agx_usc_op_names[insn.op], ==, "zs_emit");
    g_assert_cmpuint(insn.f[AGX_USC_F_R], ==, 6);
    g_assert_cmpuint(insn.f[AGX_USC_F_ZS], ==, 2);
}

/* What the zs hook saw, per lane */
typedef struct ZsSeen {
    uint32_t calls;             /* lanes it was called for */
    unsigned which[32];
    float z[32];
    uint32_t sref[32];
} ZsSeen;

/* The hook: lanes whose pixel x is odd fail their tests */
static uint32_t zs_hook(void *opaque, uint32_t lane, uint32_t samples,
                        unsigned which, float z, uint32_t sref)
{
    ZsSeen *s = opaque;

    s->calls |= 1u << lane;
    s->which[lane] = which;
    s->z[lane] = z;
    s->sref[lane] = sref;
    return lane & 1 ? 0 : samples;
}

/*
 * zs_emit as agx_pack.c packs it (the sample mask an immediate): depth
 * from halves R, R + 1 and stencil from the next half (zs 3), or stencil
 * alone from R (zs 2); lanes whose tests fail are killed (they store
 * nothing after it), helper lanes test nothing; sample_mask with the
 * samples live triggers the tests with the primitive's values
 */
static void test_zs_emit(void)
{
    static const AgxUscStageOps ops = { .zs = zs_hook };
    static const struct {
        unsigned zs, r;
    } cases[] = { { 3, 4 }, { 2, 6 }, { 0, 0 } };
    ZsSeen seen;

    for (unsigned k = 0; k < G_N_ELEMENTS(cases); k++) {
        Asm a = { 0 };
        Bed *b;

        mov_imm32(&a, 2, fbits(0.25f));
        mov_imm32(&a, 3, 0x1234);
        mov_imm32(&a, 5, 1);
        if (cases[k].zs) {
            emit(&a, 0x41 | 1u << 8 | 0x3f << 9 | 3u << 24 |
                     (cases[k].r & 63) << 16 | (cases[k].r >> 6) << 26 |
                     cases[k].zs << 29, 0, 4);
        } else {
            /* sample_mask T = all, S = all: test */
            emit(&a, 0xc1 | 1u << 8 | 0x3f << 9 | 3u << 24 | 0x3f << 16 |
                     1u << 23 | 3u << 28, 0, 4);
        }
        store_out(&a, 5, 0);
        b = bed_new(&a, 8, 4, 2, 1, 8);
        b->g.stage = &ops;
        b->g.stage_opaque = &seen;
        b->g.helper = 1u << 6;
        memset(&seen, 0, sizeof(seen));
        g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
        g_assert_cmphex(seen.calls, ==, 0xbf);
        for (int l = 0; l < 8; l++) {
            bool kept = l == 6 || !(l & 1);

            g_assert_cmpuint(tm_get32(b->m, OUT_VA + 4 * l), ==, kept);
            if (l == 6) {
                continue;
            }
            g_assert_cmpuint(seen.which[l], ==, cases[k].zs);
            if (cases[k].zs & 1) {
                g_assert_cmpfloat(seen.z[l], ==, 0.25f);
            }
            if (cases[k].zs & 2) {
                /* zs 3: the half after the depth; zs 2: r3's low half */
                g_assert_cmphex(seen.sref[l], ==, 0x1234);
            }
        }
        bed_free(b);
    }
}

/* --- multisampling ------------------------------------------------------ */

/* Coverage of the eight lanes of the multisampling tests (0: all) */
static const uint8_t ms_cov[8] = { 0, 0x1, 0x2, 0x3, 0x5, 0x8, 0xa, 0xf };

/*
 * A 4-sample tile: st_tile of the coverage_mask register (60) to "all
 * samples" (0xff) writes only the lane's covered samples;
 * input_sample_mask (124) likewise; samples_log2 (14) is 2; sample_mask
 * T = sample 1, S = none kills sample 1: coverage_mask loses it, a lane
 * that covered only it stops (its later stores and outputs are gone)
 */
static void test_msaa_coverage(void)
{
    Asm a = { 0 };
    Bed *b;

    get_sr(&a, 1, 60);
    tile_op(&a, false, true, 2, 0xff, false, false, 0, F_I8, 0x1, 0);
    get_sr(&a, 2, 124);
    tile_op(&a, false, true, 4, 0xff, false, false, 0, F_I8, 0x1, 1);
    get_sr(&a, 3, 14);
    store_out(&a, 3, 0);
    /* sample_mask T = 0x2 (immediate), S = 0 (immediate) */
    emit(&a, 0xc1 | 1u << 8 | 0x2 << 9 | 1u << 23, 0, 4);
    get_sr(&a, 4, 60);
    tile_op(&a, false, true, 8, 0xff, false, false, 0, F_I8, 0x1, 2);
    mov_imm32(&a, 5, 1);
    store_out(&a, 5, 1);
    b = bed_new(&a, 8, 4, 2, 4, 8);
    memcpy(b->g.coverage, ms_cov, sizeof(ms_cov));
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (unsigned l = 0; l < 8; l++) {
        uint32_t cov = ms_cov[l] ? ms_cov[l] : 0xf, after = cov & ~2u;

        g_assert_cmpuint(tm_get32(b->m, OUT_VA + 4 * l), ==, 2);
        g_assert_cmpuint(tm_get32(b->m, OUT_VA + 4 * (32 + l)), ==, !!after);
        for (unsigned sm = 0; sm < 4; sm++) {
            const uint8_t *p = px(b, l % 4, l / 4, sm);
            bool in = (cov >> sm) & 1, live = (after >> sm) & 1;

            g_assert_cmpuint(p[0], ==, in ? cov : 0);
            g_assert_cmpuint(p[1], ==, in ? cov : 0);
            g_assert_cmpuint(p[2], ==, live ? after : 0);
        }
    }
    bed_free(b);
}

/* The cf hook of the iter test: register 0 is x, 1 is y (tile pixels) */
static bool ms_cf(void *opaque, uint32_t reg, float c[3])
{
    c[0] = reg == 0;
    c[1] = reg == 1;
    c[2] = 0;
    return reg < 2;
}

/* iter (agx_pack.c): 32-bit R (a half index), cf I, one channel */
static void iter_op(Asm *a, unsigned r, unsigned cf, unsigned interp,
                    unsigned smp)
{
    emit(a, 0x21 | 1u << 8 | (r & 63) << 9 | 1u << 15 | (cf & 63) << 16 |
            1u << 30 | (uint64_t)(smp & 0xff) << 32 |
            (uint64_t)interp << 48 | (uint64_t)(r >> 6) << 56, 0, 8);
}

/*
 * iter at a sample's position: with the render's positions 0x3ca45b81
 * (byte s: sample s, x in bits 3:0, y in 7:4, 1/16 pixel), interpolation
 * mode 1 (sample 2, immediate: byte 0xa4) gives the pixel's x + 4/16,
 * mode 3 (sample index 3 in register half r8l: byte 0x3c) x + 12/16,
 * mode 2 (centroid) y plus the first covered sample's y, or the centre's
 * when all are covered
 */
static void test_msaa_iter(void)
{
    static const AgxUscStageOps ops = { .cf = ms_cf };
    const uint32_t word = 0x3ca45b81u;
    Asm a = { 0 };
    Bed *b;

    iter_op(&a, 12, 0, 1, 2);
    store_out(&a, 6, 0);
    iter_op(&a, 14, 1, 2, 0);
    store_out(&a, 7, 1);
    mov_imm32(&a, 8, 3);
    iter_op(&a, 18, 0, 3, 16);
    store_out(&a, 9, 2);
    b = bed_new(&a, 8, 4, 2, 4, 8);
    memcpy(b->g.coverage, ms_cov, sizeof(ms_cov));
    b->t.sample_positions = word;
    b->g.stage = &ops;
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (unsigned l = 0; l < 8; l++) {
        uint32_t cov = ms_cov[l] ? ms_cov[l] : 0xf;
        unsigned first = __builtin_ctz(cov);
        float x2 = l % 4 + ((word >> 16) & 15) / 16.0f;
        float x3 = l % 4 + ((word >> 24) & 15) / 16.0f;
        float yc = l / 4 + (cov == 0xf ? 0.5f
                            : ((word >> (8 * first + 4)) & 15) / 16.0f);

        g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * l), ==, fbits(x2));
        g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * (32 + l)), ==,
                        fbits(yc));
        g_assert_cmphex(tm_get32(b->m, OUT_VA + 4 * (64 + l)), ==,
                        fbits(x3));
    }
    bed_free(b);
}

/*
 * block_image_store into a 2D MS image of 4 samples (dimension 4; the
 * PBE's Samples bit 56): each sample of each pixel of the tile into its
 * sample of the twiddled image, a pixel one 4-sample block (ail)
 */
static void test_msaa_block_store(void)
{
    uint8_t d[24] = { 0 };
    Asm a = { 0 };
    Bed *b;

    mov_imm32(&a, 1, 0);
    block_store(&a, F_I8, 2, 0, false, 0, 4);
    b = bed_new(&a, 1, 4, 2, 4, 8);
    /* twiddled R8 uint, 4x2, 2D MS, 4 samples */
    put_field(d, 0, 4, 4);
    put_field(d, 4, 2, 2);
    put_field(d, 13, 3, 2);
    put_field(d, 24, 14, 4 - 1);
    put_field(d, 38, 14, 2 - 1);
    put_field(d, 56, 1, 1);
    put_field(d, 64, 36, IMG_VA >> 4);
    tm_map(b->m, DESC_VA, 4096);
    tm_put(b->m, DESC_VA, d, 24);
    tm_map(b->m, IMG_VA, 4096);
    b->l.tex_state_va[0] = DESC_VA;
    for (unsigned y = 0; y < 2; y++) {
        for (unsigned x = 0; x < 4; x++) {
            for (unsigned sm = 0; sm < 4; sm++) {
                *px(b, x, y, sm) = 16 * (y * 4 + x) + sm + 1;
            }
        }
    }
    g_assert_cmpint(bed_run(b), ==, AGX_USC_OK);
    for (unsigned y = 0; y < 2; y++) {
        for (unsigned x = 0; x < 4; x++) {
            /* one square power-of-two tile (2x2: the smaller side) */
            uint32_t m = ((x & 1) | (y & 1) << 1) + (x & ~1u) * 2;

            for (unsigned sm = 0; sm < 4; sm++) {
                uint64_t va = IMG_VA + 4 * m + sm;
                uint8_t got = tm_page(b->m, va, false)[va % TM_PAGE];

                g_assert_cmpuint(got, ==, 16 * (y * 4 + x) + sm + 1);
            }
        }
    }
    bed_free(b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/usc-tile/decode/recorded-words", test_decode_recorded);
    g_test_add_func("/usc-tile/st-ld/formats-samples-offsets",
                    test_store_load_formats);
    g_test_add_func("/usc-tile/st/u8norm-rgba-as-the-general-path",
                    test_store_u8norm4);
    g_test_add_func("/usc-tile/st/explicit-coordinates",
                    test_explicit_coords);
    g_test_add_func("/usc-tile/block-store/origin-clip-and-explicit",
                    test_block_store);
    g_test_add_func("/usc-tile/block-store/rows-and-columns-as-texel-by-texel",
                    test_block_store_grid);
    g_test_add_func("/usc-tile/block-store/compressed-marks-tiles",
                    test_block_store_compressed);
    g_test_add_func("/usc-tile/sr/fragment-backfacing-and-pixel",
                    test_fragment_srs);
    g_test_add_func("/usc-tile/faults/no-tile-or-bad-format", test_no_tile);
    g_test_add_func("/usc-tile/zs/emit-and-sample-mask-tests", test_zs_emit);
    g_test_add_func("/usc-tile/zs/recorded-mesa-words",
                    test_decode_recorded_zs);
    g_test_add_func("/usc-tile/msaa/coverage-registers-and-kills",
                    test_msaa_coverage);
    g_test_add_func("/usc-tile/msaa/iter-at-sample-and-centroid",
                    test_msaa_iter);
    g_test_add_func("/usc-tile/msaa/block-store-2d-ms", test_msaa_block_store);
    return g_test_run();
}
