/*
 * Unit tests of texture sampling in the USC interpreter (texture_sample):
 * instructions encoded here from the bit layout of Mesa's agx_pack.c (and
 * one word of a Gallium blit), descriptors from genxml/cmdbuf.xml's
 * Texture and Sampler, images laid out here as Mesa's docs describe
 * them; every result is checked against a CPU reference computed here
 * from the Vulkan specification's filtering rules
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
#define IN_VA           0x3000000000ull
#define DESC_VA         0x5000000000ull
#define SMP_VA          (DESC_VA + 0x1000)
#define HEAP_VA         (DESC_VA + 0x2000)
#define IMG_VA          0x4000000000ull

/*
 * Filter weights are quantized to 8 bits (what hk advertises as
 * subTexelPrecisionBits and mipmapPrecisionBits): the reference filters
 * exactly, so a filtered value may differ by up to 2^-8 of the range of
 * the texels it blends (here within [0, 1])
 */
#define EPS             0.000001
#define TOL             (1.0 / 256 + EPS)

typedef struct Run {
    TestMem *m;
    AgxUscLaunch l;
    AgxUscFault fault;
    uint64_t budget;
} Run;

static Run *run_new(Asm *a)
{
    Run *r = g_new0(Run, 1);

    r->m = tm_new();
    tm_put(r->m, USC_BASE + CODE_OFF, a->b, a->n);
    tm_map(r->m, OUT_VA, 64 * 1024);
    tm_map(r->m, IN_VA, 64 * 1024);
    tm_map(r->m, DESC_VA, 64 * 1024);
    tm_map(r->m, IMG_VA, 256 * 1024);
    r->l.usc_base = USC_BASE;
    r->l.main_pc = CODE_OFF;
    r->l.gpr_halves = 256;
    r->l.global[0] = r->l.local[0] = 32;
    r->l.global[1] = r->l.global[2] = r->l.local[1] = r->l.local[2] = 1;
    r->l.soft_faults = true;
    r->l.uniforms[0] = (uint32_t)OUT_VA;
    r->l.uniforms[1] = OUT_VA >> 32;
    r->l.uniforms[2] = (uint32_t)IN_VA;
    r->l.uniforms[3] = IN_VA >> 32;
    r->l.tex_state_va[0] = DESC_VA;
    r->l.sampler_state_va[0] = SMP_VA;
    r->l.sampler_heap_va = HEAP_VA;
    r->budget = 1000000;
    return r;
}

static AgxUscStatus run_one(Run *r)
{
    const uint32_t tg[3] = { 0, 0, 0 };

    return agx_usc_run_threadgroup(&r->l, tg, &tm_ops, r->m, &r->budget,
                                   &r->fault);
}

static void run_free(Run *r)
{
    tm_free(r->m);
    g_free(r);
}

static void put_input(Run *r, unsigned slot, unsigned lane, uint32_t v)
{
    tm_put(r->m, IN_VA + 4 * (32 * slot + lane), &v, 4);
}

static void put_inputf(Run *r, unsigned slot, unsigned lane, float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    put_input(r, slot, lane, u);
}

static float outf(Run *r, unsigned slot, unsigned lane)
{
    uint32_t u = tm_get32(r->m, OUT_VA + 4 * (32 * slot + lane));
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static uint32_t out32(Run *r, unsigned slot, unsigned lane)
{
    return tm_get32(r->m, OUT_VA + 4 * (32 * slot + lane));
}

static uint16_t f16(float f)
{
    /* exact for the LODs used here (small multiples of 1/4) */
    int e;
    double m = frexp(fabs(f), &e);

    if (f == 0) {
        return 0;
    }
    return (f < 0 ? 0x8000 : 0) | (e - 1 + 15) << 10 |
           ((uint16_t)(m * 2048) & 0x3ff);
}

/* --- encodings ------------------------------------------------------------ */

typedef struct Tex {
    bool r32;
    unsigned r, c, d, t, tt, u, dim, mask, lod, s, st, o;
    bool shadow, offset, query;
    unsigned gather;
} Tex;

/* texture_sample as agx_pack.c packs it (8 bytes, 12 with the extension) */
static void tex_sample(Asm *a, const Tex *x)
{
    uint64_t w = 0x31 | (uint64_t)x->r32 << 8 | (uint64_t)(x->r & 63) << 9 |
                 (uint64_t)(x->c & 63) << 16 | (uint64_t)x->shadow << 23 |
                 (uint64_t)(x->d & 63) << 24 | (uint64_t)(x->query ? 2 : 0)
                 << 30 | (uint64_t)(x->t & 63) << 32 | (uint64_t)x->tt << 38 |
                 (uint64_t)(x->dim & 7) << 40 | 0xcull << 43 |
                 (uint64_t)x->mask << 48 | (uint64_t)x->lod << 52 |
                 (uint64_t)(x->s & 63) << 56 | (uint64_t)x->st << 62;
    uint32_t ext = (x->u & 31) | (x->dim >> 3) << 7 | (x->r >> 6) << 8 |
                   (x->c >> 6) << 10 | (x->d >> 6) << 12 | (x->t >> 6) << 14 |
                   (x->o & 63) << 16 | x->gather << 23 | x->offset << 27 |
                   (x->s >> 6) << 28 | (x->o >> 6) << 30;

    if (ext) {
        emit(a, w | L15, ext, 12);
    } else {
        emit(a, w, 0, 8);
    }
}

static void put_field(uint8_t *d, unsigned start, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned b = start + i;

        d[b / 8] = (d[b / 8] & ~(1 << (b % 8))) | ((v >> i) & 1) << (b % 8);
    }
}

typedef struct TexDesc {
    unsigned dim, layout, channels, type;
    unsigned swz[4];
    uint32_t w, h, depth;       /* depth: layers, cubes or 3D slices */
    unsigned first, last;
    bool mipmapped, page_aligned, srgb;
    uint32_t stride;
} TexDesc;

/* cmdbuf.xml "Texture" */
static void put_texture(Run *r, uint64_t va, const TexDesc *t)
{
    uint8_t d[24] = { 0 };

    put_field(d, 0, 4, t->dim);
    put_field(d, 4, 2, t->layout);
    put_field(d, 6, 7, t->channels);
    put_field(d, 13, 3, t->type);
    for (int c = 0; c < 4; c++) {
        put_field(d, 16 + 3 * c, 3, t->swz[c]);
    }
    put_field(d, 28, 14, t->w - 1);
    put_field(d, 42, 14, t->h - 1);
    put_field(d, 56, 4, t->first);
    put_field(d, 60, 4, t->last);
    put_field(d, 66, 36, IMG_VA >> 4);
    put_field(d, 102, 1, t->mipmapped);
    put_field(d, 108, 1, t->srgb);
    if (t->layout == 0) {
        put_field(d, 110, 18, (t->stride - 16) >> 4);
    } else {
        put_field(d, 110, 14, t->depth - 1);
        put_field(d, 126, 1, t->page_aligned);
    }
    tm_put(r->m, va, d, 24);
}

typedef struct Smp {
    float min_lod, max_lod;
    unsigned mag, min, mip, wrap[3], func, border, aniso_log2;
    bool compare, pixel;
} Smp;

/* cmdbuf.xml "Sampler" */
static void put_sampler(Run *r, uint64_t va, const Smp *s)
{
    uint8_t d[8] = { 0 };

    put_field(d, 0, 10, (unsigned)(s->min_lod * 64));
    put_field(d, 10, 10, (unsigned)(s->max_lod * 64));
    put_field(d, 20, 3, s->aniso_log2);
    put_field(d, 23, 2, s->mag);
    put_field(d, 25, 2, s->min);
    put_field(d, 27, 2, s->mip);
    for (int i = 0; i < 3; i++) {
        put_field(d, 29 + 3 * i, 3, s->wrap[i]);
    }
    put_field(d, 38, 1, s->pixel);
    put_field(d, 39, 3, s->func);
    put_field(d, 42, 1, s->compare);
    put_field(d, 55, 2, s->border);
    tm_put(r->m, va, d, 8);
}

/* --- reference ----------------------------------------------------------- */

/* Vulkan's wrapping of an integer texel coordinate; -1: border */
static int ref_wrap(int x, int n, unsigned mode)
{
    int t;

    switch (mode) {
    case 1:
        return ((x % n) + n) % n;
    case 2:
        t = ((x % (2 * n)) + 2 * n) % (2 * n);
        return t < n ? t : 2 * n - 1 - t;
    case 3:
        return x < 0 || x >= n ? -1 : x;
    case 5:
        t = x < 0 ? -x - 1 : x;
        return t < n ? t : n - 1;
    default:
        return x < 0 ? 0 : x >= n ? n - 1 : x;
    }
}

/* Morton order: x in the even bits, y in the odd ones */
static uint32_t morton(uint32_t x, uint32_t y)
{
    uint32_t v = 0;

    for (int i = 0; i < 16; i++) {
        v |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
    }
    return v;
}

/*
 * The test's own twiddled layout of a square power-of-two image smaller
 * than one tile (Mesa docs/drivers/asahi.rst "Image layouts"): every level
 * one Morton-ordered square, levels 128-byte aligned, all levels of the
 * chain in a layer
 */
static uint64_t small_twiddled(uint32_t size, unsigned bpp, unsigned level,
                               uint32_t x, uint32_t y, uint32_t layer,
                               unsigned nlevels)
{
    uint64_t off = 0, level_off = 0;

    for (unsigned l = 0; l < nlevels; l++) {
        uint32_t s = MAX(size >> l, 1u);

        if (l == level) {
            level_off = off;
        }
        off = (off + (uint64_t)s * s * bpp + 127) & ~127ull;
    }
    return layer * off + level_off + (uint64_t)morton(x, y) * bpp;
}

/* The test image's texel values: a function of level, x, y, layer */
static uint8_t texel_value(unsigned level, int x, int y, int layer, int c)
{
    return (uint8_t)(x * 37 + y * 11 + level * 53 + layer * 101 + c * 71);
}

/* An RGBA8 unorm square image, @levels levels, @layers layers, twiddled */
static void put_rgba8_twiddled(Run *r, uint32_t size, unsigned levels,
                               unsigned layers)
{
    for (unsigned z = 0; z < layers; z++) {
        for (unsigned l = 0; l < levels; l++) {
            uint32_t s = MAX(size >> l, 1u);

            for (uint32_t y = 0; y < s; y++) {
                for (uint32_t x = 0; x < s; x++) {
                    uint8_t px[4];

                    for (int c = 0; c < 4; c++) {
                        px[c] = texel_value(l, x, y, z, c);
                    }
                    tm_put(r->m, IMG_VA + small_twiddled(size, 4, l, x, y, z,
                                                         levels), px, 4);
                }
            }
        }
    }
}

/* Vulkan's bilinear (or nearest) lookup of one level of the test image */
static double ref_level(uint32_t size, unsigned level, int layer, double u,
                        double v, bool linear, const unsigned wrap[2], int c)
{
    int n = MAX(size >> level, 1u);
    double x = u * n, y = v * n, acc = 0;

    if (!linear) {
        int i = ref_wrap((int)floor(x), n, wrap[0]);
        int j = ref_wrap((int)floor(y), n, wrap[1]);

        return i < 0 || j < 0 ? 0 : texel_value(level, i, j, layer, c) / 255.0;
    }
    for (int k = 0; k < 4; k++) {
        int i0 = (int)floor(x - 0.5), j0 = (int)floor(y - 0.5);
        double a = x - 0.5 - i0, b = y - 0.5 - j0;
        int i = ref_wrap(i0 + (k & 1), n, wrap[0]);
        int j = ref_wrap(j0 + (k >> 1), n, wrap[1]);
        double w = (k & 1 ? a : 1 - a) * (k >> 1 ? b : 1 - b);

        if (i >= 0 && j >= 0) {
            acc += w * texel_value(level, i, j, layer, c) / 255.0;
        }
    }
    return acc;
}

/* --- tests -------------------------------------------------------------- */

/*
 * A common program: r1 = s, r2 = t (floats), r3 = layer, r4 = LOD or bias
 * (an f16 in its low half), then the sample into r8..r11, stored to slots
 * 0..3
 */
static void sample_program(Asm *a, const Tex *x, unsigned nout)
{
    for (unsigned i = 1; i <= 7; i++) {
        load_input(a, i, i - 1);
    }
    tex_sample(a, x);
    for (unsigned i = 0; i < nout; i++) {
        store_result(a, 8 + i, i);
    }
    footer(a);
}

/*
 * Nearest and linear, explicit LOD 0 (lod mode 6, f16 in a register), on
 * a twiddled 16x16 RGBA8 image; the four wrap modes on s and t
 */
static void test_filter_wrap(void)
{
    static const unsigned modes[4][2] = { { 0, 1 }, { 1, 2 }, { 2, 5 },
                                          { 3, 0 } };

    for (int linear = 0; linear < 2; linear++) {
        for (int m = 0; m < 4; m++) {
            Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2,
                      .mask = 0xf, .lod = 6 };
            TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                           .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16,
                           .depth = 1 };
            Smp sp = { .max_lod = 14, .mag = linear, .min = linear,
                       .wrap = { modes[m][0], modes[m][1], 0 } };
            Asm a = { 0 };
            Run *r;

            sample_program(&a, &x, 4);
            r = run_new(&a);
            put_rgba8_twiddled(r, 16, 1, 1);
            put_texture(r, DESC_VA, &td);
            put_sampler(r, SMP_VA, &sp);
            for (int l = 0; l < 32; l++) {
                put_inputf(r, 0, l, -1.3f + l * 0.117f);
                put_inputf(r, 1, l, 2.2f - l * 0.093f);
                put_input(r, 3, l, f16(0));
            }
            g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
            for (int l = 0; l < 32; l++) {
                double u = -1.3f + l * 0.117f, v = 2.2f - l * 0.093f;

                for (int c = 0; c < 4; c++) {
                    double e = ref_level(16, 0, 0, u, v, linear, modes[m], c);

                    g_assert_cmpfloat_with_epsilon(outf(r, c, l), e, TOL);
                }
            }
            run_free(r);
        }
    }
}

/*
 * Mipmaps: a 16x16 chain of 5 levels viewed as levels 1..3 of a 2-layer
 * array (the layer stride is the whole chain's, as Mesa allocates it),
 * explicit fractional LODs with nearest and linear mip filters, and the
 * sampler's LOD clamps
 */
static void test_mipmaps(void)
{
    for (unsigned mip = 0; mip < 3; mip++) {
        Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 3,
                  .mask = 0xf, .lod = 6 };
        TexDesc td = { .dim = 3, .layout = 2, .channels = 0x28,
                       .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 2,
                       .first = 1, .last = 3, .mipmapped = true };
        Smp sp = { .min_lod = 0.25, .max_lod = 1.75, .mag = 1, .min = 1,
                   .mip = mip };
        static const unsigned clamp[2] = { 0, 0 };
        Asm a = { 0 };
        Run *r;

        sample_program(&a, &x, 4);
        r = run_new(&a);
        put_rgba8_twiddled(r, 16, 5, 2);
        put_texture(r, DESC_VA, &td);
        put_sampler(r, SMP_VA, &sp);
        for (int l = 0; l < 32; l++) {
            put_inputf(r, 0, l, 0.03f + l * 0.029f);
            put_inputf(r, 1, l, 0.9f - l * 0.021f);
            put_input(r, 2, l, l & 1);
            put_input(r, 3, l, f16(-0.5f + (l % 12) * 0.25f));
        }
        g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
        for (int l = 0; l < 32; l++) {
            double u = 0.03f + l * 0.029f, v = 0.9f - l * 0.021f;
            double lod = -0.5 + (l % 12) * 0.25, d, w;
            int base = 1, q = 2, d0;

            lod = MAX(0.25, MIN(lod, 1.75));
            for (int c = 0; c < 4; c++) {
                double e;

                if (mip == 0) {
                    e = ref_level(16, base, l & 1, u, v, true, clamp, c);
                } else if (mip == 1) {
                    d0 = lod <= 0.5 ? 0 : (int)ceil(lod + 0.5) - 1;
                    e = ref_level(16, base + MIN(d0, q), l & 1, u, v, true,
                                  clamp, c);
                } else {
                    d = MIN(lod, (double)q);
                    d0 = (int)floor(d);
                    w = d - d0;
                    e = (1 - w) * ref_level(16, base + d0, l & 1, u, v, true,
                                            clamp, c);
                    if (d0 < q) {
                        e += w * ref_level(16, base + d0 + 1, l & 1, u, v,
                                           true, clamp, c);
                    }
                }
                g_assert_cmpfloat_with_epsilon(outf(r, c, l), e, 2 * TOL);
            }
        }
        run_free(r);
    }
}

/*
 * Implicit LOD from quads (lanes 4k..4k+3 as 2x2 pixels): quad k steps s
 * by 2^k / 16 per pixel in x and t by half that in y on a 16x16 chain, so
 * LOD k; with a bias (mode 5) and with a bias and a minimum (mode 13, two
 * halves)
 */
static void test_implicit_lod(void)
{
    for (unsigned mode = 0; mode < 3; mode++) {
        static const unsigned lod_modes[3] = { 0, 5, 13 };
        Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2,
                  .mask = 0x1, .lod = lod_modes[mode] };
        TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                       .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1,
                       .last = 4, .mipmapped = true };
        Smp sp = { .max_lod = 14, .mip = 1 };
        Asm a = { 0 };
        Run *r;

        sample_program(&a, &x, 1);
        r = run_new(&a);
        put_rgba8_twiddled(r, 16, 5, 1);
        put_texture(r, DESC_VA, &td);
        put_sampler(r, SMP_VA, &sp);
        for (int l = 0; l < 32; l++) {
            int k = (l / 4) % 5;
            double step = (1 << k) / 16.0;

            put_inputf(r, 0, l, 0.01 + (l & 1) * step);
            put_inputf(r, 1, l, 0.01 + ((l >> 1) & 1) * step / 2);
            /* bias 1 (mode 5); bias -3, minimum 2 (mode 13) */
            put_input(r, 3, l, mode == 1 ? f16(1) :
                      (uint32_t)f16(-3) | (uint32_t)f16(2) << 16);
        }
        g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
        for (int l = 0; l < 32; l++) {
            int k = (l / 4) % 5, lod = k;

            if (mode == 1) {
                lod = MIN(k + 1, 4);
            } else if (mode == 2) {
                lod = MAX(k - 3, 2);
            }
            /* nearest texel of level lod at the lane's coordinates */
            {
                int n = 16 >> lod;
                double s = 0.01 + (l & 1) * (1 << k) / 16.0;
                double t = 0.01 + ((l >> 1) & 1) * (1 << k) / 32.0;
                int i = MIN((int)floor(s * n), n - 1);
                int j = MIN((int)floor(t * n), n - 1);

                g_assert_cmpfloat_with_epsilon(
                    outf(r, 0, l), texel_value(lod, i, j, 0, 0) / 255.0, EPS);
            }
        }
        run_free(r);
    }
}

/*
 * Explicit gradients (mode 4: per coordinate d/dx, d/dy as 32-bit floats
 * from D on) select the level; 16-bit destination (f16 results); the
 * sampler from the sampler heap through a 16-bit register (index 28 + 3)
 */
static void test_gradients_heap(void)
{
    Tex x = { .r32 = false, .r = 32, .c = 2, .d = 8, .dim = 2, .mask = 0x3,
              .lod = 4, .s = 40, .st = 1 };
    TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                   .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1,
                   .last = 4, .mipmapped = true };
    Smp sp = { .max_lod = 14, .mip = 1 };
    Asm a = { 0 };
    Run *r;

    for (unsigned i = 1; i <= 7; i++) {
        load_input(&a, i, i - 1);
    }
    mov_imm16(&a, 40, 28 + 3);                   /* r20l: the sampler */
    tex_sample(&a, &x);
    store_result(&a, 16, 0);                     /* r16 = halves 32, 33 */
    footer(&a);
    r = run_new(&a);
    put_rgba8_twiddled(r, 16, 5, 1);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, HEAP_VA + 3 * 8, &sp);
    for (int l = 0; l < 32; l++) {
        int k = l % 5;

        put_inputf(r, 0, l, 0.5f);
        put_inputf(r, 1, l, 0.25f);
        put_inputf(r, 3, l, (1 << k) / 16.0f);  /* ds/dx */
        put_inputf(r, 4, l, 0);                 /* ds/dy */
        put_inputf(r, 5, l, 0);                 /* dt/dx */
        put_inputf(r, 6, l, 0.5f / 16);         /* dt/dy */
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        int lod = l % 5, n = 16 >> lod;
        uint32_t o = out32(r, 0, l);

        for (int c = 0; c < 2; c++) {
            double e = texel_value(lod, n / 2, n / 4, 0, c) / 255.0;
            uint16_t h = o >> (16 * c);
            int ex = (h >> 10) & 31;
            double got = ex ? ldexp(1024 + (h & 0x3ff), ex - 25)
                            : ldexp(h & 0x3ff, -24);

            g_assert_cmpfloat_with_epsilon(got, e, 1.0 / 1024);
        }
    }
    run_free(r);
}

/*
 * Gallium's blit: the recorded word 3111480000620f01 ("sample r4..r7 with
 * ts0 and ss1 at r4_r5, 2d, auto LOD": agx_pack.c's texture case) on a
 * linear R32 float image with a custom border colour from an extended
 * sampler state register, clamp to border, and a G001 swizzle
 */
static void test_gallium_blit_border(void)
{
    static const uint8_t word[8] = { 0x31, 0x11, 0x48, 0x00, 0x00, 0x62,
                                     0x0f, 0x01 };
    TexDesc td = { .dim = 2, .layout = 0, .channels = 0x21, .type = 4,
                   .swz = { 0, 5, 5, 4 }, .w = 5, .h = 3, .stride = 32 };
    Smp sp = { .max_lod = 14, .wrap = { 3, 3, 3 }, .border = 3 };
    uint32_t border[4] = { 0x40490fdb, 0, 0, 0 };   /* pi */
    Asm a = { 0 };
    Run *r;

    load_input(&a, 4, 0);
    load_input(&a, 5, 1);
    for (int i = 0; i < 8; i++) {
        a.b[a.n++] = word[i];
    }
    for (int i = 0; i < 4; i++) {
        store_result(&a, 4 + i, i);
    }
    footer(&a);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    r->l.sampler_state_va[1] = SMP_VA + 24;
    put_sampler(r, SMP_VA + 24, &sp);
    tm_put(r->m, SMP_VA + 32, border, 16);
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 5; x++) {
            float f = x * 10 + y;

            tm_put(r->m, IMG_VA + y * 32 + x * 4, &f, 4);
        }
    }
    for (int l = 0; l < 32; l++) {
        /* the same coordinates across each quad: no derivatives */
        int p = l / 4;

        put_inputf(r, 0, l, (p - 1.5f) / 5);
        put_inputf(r, 1, l, (p % 4 - 0.5f) / 3);
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        int p = l / 4, x = (int)floor(p - 1.5), y = (int)floor(p % 4 - 0.5);
        bool in = x >= 0 && x < 5 && y >= 0 && y < 3;

        g_assert_cmpfloat(outf(r, 0, l), ==, in ? x * 10 + y : (float)M_PI);
        g_assert_cmpfloat(outf(r, 1, l), ==, 0);
        g_assert_cmpfloat(outf(r, 3, l), ==, 1);
    }
    run_free(r);
}

/*
 * Shadow comparison with offsets: a linear R32 float depth image, compare
 * "less" with linear filtering (percentage closer filtering: the compared
 * results are blended), texel offsets (+1, -1) packed in nibbles after the
 * reference (O = r6, r7)
 */
static void test_shadow_offset(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2, .mask = 0x1,
              .lod = 6, .o = 12, .shadow = true, .offset = true };
    TexDesc td = { .dim = 2, .layout = 0, .channels = 0x21, .type = 4,
                   .swz = { 0, 5, 5, 4 }, .w = 8, .h = 8, .stride = 32 };
    Smp sp = { .max_lod = 14, .mag = 1, .min = 1, .func = 2,
               .compare = true };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 1);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int y = 0; y < 8; y++) {
        for (int i = 0; i < 8; i++) {
            float f = (i + 8 * y) / 64.0f;

            tm_put(r->m, IMG_VA + y * 32 + i * 4, &f, 4);
        }
    }
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, (l % 6 + 0.3f) / 8);
        put_inputf(r, 1, l, (l / 6 + 1.7f) / 8);
        put_input(r, 3, l, f16(0));
        put_inputf(r, 5, l, (l * 2 + 0.5f) / 64);   /* reference */
        put_input(r, 6, l, 0x0f1);                  /* x +1, y -1 */
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        double u = (l % 6 + 0.3) * 1, v = (l / 6 + 1.7) * 1;
        double ref = (l * 2 + 0.5) / 64, e = 0;
        int i0 = (int)floor(u - 0.5), j0 = (int)floor(v - 0.5);
        double fa = u - 0.5 - i0, fb = v - 0.5 - j0;

        for (int k = 0; k < 4; k++) {
            int i = ref_wrap(i0 + (k & 1) + 1, 8, 0);
            int j = ref_wrap(j0 + (k >> 1) - 1, 8, 0);
            double w = (k & 1 ? fa : 1 - fa) * (k >> 1 ? fb : 1 - fb);
            double d = (i + 8 * j) / 64.0;

            e += w * (ref < d ? 1 : 0);
        }
        g_assert_cmpfloat_with_epsilon(outf(r, 0, l), e, TOL);
    }
    run_free(r);
}

/*
 * Cube maps: directions along each face's axis and off it, nearest, on a
 * twiddled 4x4 RGBA8 cube array of 2 cubes (12 faces); the face and the
 * (s, t) per the Vulkan table
 */
static void test_cube(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 10, .dim = 7, .mask = 0x1,
              .lod = 6 };
    TexDesc td = { .dim = 7, .layout = 2, .channels = 0x28,
                   .swz = { 0, 1, 2, 3 }, .w = 4, .h = 4, .depth = 2 };
    Smp sp = { .max_lod = 14 };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 1);
    r = run_new(&a);
    put_rgba8_twiddled(r, 4, 1, 12);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        int face = l % 6, sgn = face & 1 ? -1 : 1, axis = face / 2;
        float dir[3] = { 0.3f - (l % 5) * 0.15f, 0.2f + (l % 3) * 0.2f,
                         -0.35f + (l % 7) * 0.1f };

        dir[axis] = sgn * 1.0f;
        for (int i = 0; i < 3; i++) {
            put_inputf(r, i, l, dir[i]);
        }
        put_input(r, 3, l, (l / 6) & 1);     /* the cube */
        put_input(r, 4, l, f16(0));
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        int face = l % 6, axis = face / 2;
        double d[3] = { 0.3f - (l % 5) * 0.15f, 0.2f + (l % 3) * 0.2f,
                        -0.35f + (l % 7) * 0.1f };
        double sc, tc;

        d[axis] = face & 1 ? -1 : 1;
        /* Vulkan's table: (sc, tc) per face +x, -x, +y, -y, +z, -z */
        static const int8_t tab[6][4] = {
            { 2, -1, 1, -1 }, { 2, 1, 1, -1 }, { 0, 1, 2, 1 },
            { 0, 1, 2, -1 }, { 0, 1, 1, -1 }, { 0, -1, 1, -1 },
        };

        sc = tab[face][1] * d[tab[face][0]];
        tc = tab[face][3] * d[tab[face][2]];
        {
            int i = MIN((int)floor((sc + 1) / 2 * 4), 3);
            int j = MIN((int)floor((tc + 1) / 2 * 4), 3);
            int layer = 6 * ((l / 6) & 1) + face;

            g_assert_cmpfloat_with_epsilon(
                outf(r, 0, l), texel_value(0, i, j, layer, 0) / 255.0, EPS);
        }
    }
    run_free(r);
}

/*
 * Gather of component 1 (agx_opcodes.py: gather 0b011 = g) returns the
 * 2x2 footprint in Vulkan's order (i0,j1), (i1,j1), (i1,j0), (i0,j0)
 */
static void test_gather(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2, .mask = 0xf,
              .lod = 6, .gather = 3 };
    TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                   .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1 };
    Smp sp = { .max_lod = 14, .wrap = { 1, 1, 1 } };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 4);
    r = run_new(&a);
    put_rgba8_twiddled(r, 16, 1, 1);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, (l * 0.61f) / 16);
        put_inputf(r, 1, l, (15.9f - l * 0.47f) / 16);
        put_input(r, 3, l, f16(0));
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        double u = (l * 0.61f) / 16 * 16, v = (15.9f - l * 0.47f) / 16 * 16;
        int i0 = ref_wrap((int)floor(u - 0.5), 16, 1);
        int i1 = ref_wrap((int)floor(u - 0.5) + 1, 16, 1);
        int j0 = ref_wrap((int)floor(v - 0.5), 16, 1);
        int j1 = ref_wrap((int)floor(v - 0.5) + 1, 16, 1);
        int e[4][2] = { { i0, j1 }, { i1, j1 }, { i1, j0 }, { i0, j0 } };

        for (int c = 0; c < 4; c++) {
            g_assert_cmpfloat_with_epsilon(
                outf(r, c, l),
                texel_value(0, e[c][0], e[c][1], 0, 1) / 255.0, EPS);
        }
    }
    run_free(r);
}

/*
 * Formats, nearest: sRGB (decoded before filtering), snorm, RGB10A2,
 * RG11B10F, RGB9E5, half float, unsigned integer: one texel of each in a
 * linear 1x1 image, the channels computed here from their definitions
 */
static void test_formats(void)
{
    static const struct {
        unsigned channels, type;
        bool srgb;
        uint32_t texel[2];
        double e[4];
    } f[] = {
        { 0x28, 0, true, { 0x80ff4000 },
          { 0, 0.05126945837404324, 1, 128 / 255.0 } },
        { 0x28, 1, false, { 0x7f8140c0 },
          { -64 / 127.0, 64 / 127.0, -1, 1 } },
        { 0x26, 0, false, { 3u << 30 | 1023u << 20 | 512u << 10 | 1 },
          { 1 / 1023.0, 512 / 1023.0, 1, 1 } },
        /* R 1.5 (e 15, m 0x20), G 0.25 (e 13), B 2 (e 16, m 0) */
        { 0x25, 4, false, { 15u << 6 | 0x20 | (13u << 6) << 11 |
                            (16u << 5) << 22 }, { 1.5, 0.25, 2, 1 } },
        /* shared exponent 16: x * 2^(16 - 15 - 9) */
        { 0x27, 4, false, { 256 | 128u << 9 | 511u << 18 | 16u << 27 },
          { 1, 0.5, 511 / 256.0, 1 } },
        { 0x32, 4, false, { 0xc0003c00, 0x7bff3555 },
          { 1, -2, 0.333251953125, 65504 } },
        { 0x28, 2, false, { 0x01020304 }, { 4, 3, 2, 1 } },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(f); i++) {
        Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2,
                  .mask = 0xf, .lod = 6 };
        TexDesc td = { .dim = 2, .layout = 0, .channels = f[i].channels,
                       .type = f[i].type, .swz = { 0, 1, 2, 3 }, .w = 1,
                       .h = 1, .stride = 16, .srgb = f[i].srgb };
        Smp sp = { .max_lod = 14, .mag = 1, .min = 1 };
        Asm a = { 0 };
        Run *r;

        sample_program(&a, &x, 4);
        r = run_new(&a);
        put_texture(r, DESC_VA, &td);
        put_sampler(r, SMP_VA, &sp);
        tm_put(r->m, IMG_VA, f[i].texel, 8);
        for (int l = 0; l < 32; l++) {
            put_inputf(r, 0, l, 0.5f);
            put_inputf(r, 1, l, 0.5f);
            put_input(r, 3, l, f16(0));
        }
        g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
        for (int c = 0; c < 4; c++) {
            if (f[i].type == 2) {
                g_assert_cmpuint(out32(r, c, 5), ==, (uint32_t)f[i].e[c]);
            } else {
                g_assert_cmpfloat_with_epsilon(outf(r, c, 5), f[i].e[c],
                                               EPS * MAX(1, f[i].e[c]));
            }
        }
        run_free(r);
    }
}

/*
 * A 3D texture: linear filtering between slices of a twiddled 4x4x4
 * RGBA8 image (slices are layers of the 2D layout, Mesa layout.c)
 */
static void test_3d(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 5, .mask = 0x1,
              .lod = 6 };
    TexDesc td = { .dim = 5, .layout = 2, .channels = 0x28,
                   .swz = { 0, 1, 2, 3 }, .w = 4, .h = 4, .depth = 4 };
    Smp sp = { .max_lod = 14, .mag = 1, .min = 1 };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 1);
    r = run_new(&a);
    put_rgba8_twiddled(r, 4, 1, 4);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, 0.375f);
        put_inputf(r, 1, l, 0.625f);
        put_inputf(r, 2, l, l / 32.0f);
        put_input(r, 3, l, f16(0));
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        double w = l / 32.0 * 4 - 0.5;
        int k0 = (int)floor(w);
        double f = w - k0;
        double e = (1 - f) * texel_value(0, 1, 2, MAX(k0, 0), 0) / 255.0 +
                   f * texel_value(0, 1, 2, MIN(k0 + 1, 3), 0) / 255.0;

        g_assert_cmpfloat_with_epsilon(outf(r, 0, l), e, TOL);
    }
    run_free(r);
}

/*
 * Guest-controlled descriptors: a texture descriptor in unmapped memory
 * reads as zeros with soft faults and faults without; a huge image and
 * LOD read only guest memory (zeros where unmapped) and end
 */
static void test_bad_descriptors(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 3, .mask = 0xf,
              .lod = 6 };
    TexDesc td = { .dim = 7, .layout = 2, .channels = 0x38, .type = 4,
                   .swz = { 0, 1, 2, 3 }, .w = 16384, .h = 16384,
                   .depth = 16384, .first = 15, .last = 15,
                   .mipmapped = true };
    Smp sp = { .max_lod = 15.9, .mag = 1, .min = 1, .mip = 2,
               .wrap = { 2, 2, 2 } };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 4);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, l * 1e30f);
        put_inputf(r, 1, l, -l * 3e29f);
        put_input(r, 2, l, 0xffffffff);
        put_input(r, 3, l, 0x7c00);         /* +inf LOD */
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    run_free(r);

    memset(&a, 0, sizeof(a));
    sample_program(&a, &x, 4);
    r = run_new(&a);
    r->l.tex_state_va[0] = 0x7000000000ull;     /* unmapped */
    put_sampler(r, SMP_VA, &sp);
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int c = 0; c < 4; c++) {
        g_assert_cmpuint(out32(r, c, 0), ==, 0);
    }
    r->l.soft_faults = false;
    g_assert_cmpint(run_one(r), ==, AGX_USC_FAULT);
    g_assert_cmpint(r->fault.kind, ==, AGX_USC_FAULT_LOAD);
    run_free(r);
}

/*
 * texture_load (txf_ms) of a 4x multisampled twiddled RGBA8 image: a
 * pixel is one block of its four samples (Mesa layout.c: the block size
 * is the format's times the sample count), so an 8x8 image is one 8x8
 * Morton square of 16-byte blocks, sample s at byte 4 s of its block;
 * the coordinates are x, y and the sample index (lod zero: auto mode)
 */
static void test_multisampled_fetch(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .dim = 4, .mask = 0xf };
    TexDesc td = { .dim = 4, .layout = 2, .channels = 0x28, .type = 2,
                   .swz = { 0, 1, 2, 3 }, .w = 8, .h = 8, .depth = 1 };
    uint8_t d[24];
    Asm a = { 0 };
    Run *r;

    for (unsigned i = 1; i <= 3; i++) {
        load_input(&a, i, i - 1);
    }
    /* texture_load: texture_sample's encoding with bit 6 set */
    tex_sample(&a, &x);
    a.b[a.n - 8] |= 0x40;
    for (unsigned i = 0; i < 4; i++) {
        store_result(&a, 8 + i, i);
    }
    footer(&a);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    tm_rw(r->m, DESC_VA, d, 24, &(uint64_t){ 0 }, false);
    put_field(d, 64, 1, 1);                     /* Samples: 4 */
    tm_put(r->m, DESC_VA, d, 24);
    for (uint32_t y = 0; y < 8; y++) {
        for (uint32_t i = 0; i < 8; i++) {
            for (uint32_t sa = 0; sa < 4; sa++) {
                uint8_t px[4];

                for (int c = 0; c < 4; c++) {
                    px[c] = texel_value(0, i, y, sa, c);
                }
                tm_put(r->m, IMG_VA + morton(i, y) * 16 + sa * 4, px, 4);
            }
        }
    }
    for (int l = 0; l < 32; l++) {
        put_input(r, 0, l, (l * 3) % 8);
        put_input(r, 1, l, l / 4);
        put_input(r, 2, l, l % 4);
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        for (int c = 0; c < 4; c++) {
            g_assert_cmpuint(out32(r, c, l), ==,
                             texel_value(0, (l * 3) % 8, l / 4, l % 4, c));
        }
    }
    run_free(r);
}

/*
 * texture_load with offsets (texelFetchOffset: the offset flag and the
 * packed nibbles in O, as for sampling) on a linear R32 uint image; a
 * texel moved outside the image reads zero
 */
static void test_fetch_offset(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .dim = 2, .mask = 0x1,
              .o = 6, .offset = true };
    TexDesc td = { .dim = 2, .layout = 0, .channels = 0x21, .type = 2,
                   .swz = { 0, 1, 2, 3 }, .w = 8, .h = 4, .stride = 32 };
    Asm a = { 0 };
    Run *r;

    for (unsigned i = 1; i <= 3; i++) {
        load_input(&a, i, i - 1);
    }
    tex_sample(&a, &x);
    a.b[a.n - 12] |= 0x40;                      /* texture_load */
    store_result(&a, 8, 0);
    footer(&a);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t v = 1000 + i;

        tm_put(r->m, IMG_VA + (i / 8) * 32 + (i % 8) * 4, &v, 4);
    }
    for (int l = 0; l < 32; l++) {
        put_input(r, 0, l, l % 8);
        put_input(r, 1, l, l / 8);
        /* x offset l % 4 - 2, y offset +1 */
        put_input(r, 2, l, ((l % 4 - 2) & 15) | 1 << 4);
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        int px = l % 8 + l % 4 - 2, py = l / 8 + 1;
        bool in = px >= 0 && px < 8 && py < 4;

        g_assert_cmpuint(out32(r, 0, l), ==, in ? 1000 + py * 8 + px : 0);
    }
    run_free(r);
}

/*
 * Seamless cube filtering: a direction just inside the +x face's edge
 * with +z, (1, 0.25, 1 - 2^-12), filtered linearly on a 4x4 cube at LOD
 * 0: the footprint is half texel (0, 1) of +x and half the texel beyond
 * its s = 0 edge, which is +z's (3, 1) (the geometry: +x's s = 0 edge is
 * z = +1, +z's s = 1 edge is x = +1); with "seamful" set (Gallium's
 * non-seamless cube maps) the footprint stays on +x.  The weights are
 * 1/2 exactly at 8 bits (the texel coordinate is 2^-9 from the edge)
 */
static void test_cube_seamless(void)
{
    for (int seamful = 0; seamful < 2; seamful++) {
        Tex x = { .r32 = true, .r = 16, .c = 2, .d = 10, .dim = 6,
                  .mask = 0x1, .lod = 6 };
        TexDesc td = { .dim = 6, .layout = 2, .channels = 0x28,
                       .swz = { 0, 1, 2, 3 }, .w = 4, .h = 4, .depth = 1 };
        Smp sp = { .max_lod = 14, .mag = 1, .min = 1 };
        uint8_t d[8];
        Asm a = { 0 };
        Run *r;

        sample_program(&a, &x, 1);
        r = run_new(&a);
        put_rgba8_twiddled(r, 4, 1, 6);
        put_texture(r, DESC_VA, &td);
        put_sampler(r, SMP_VA, &sp);
        tm_rw(r->m, SMP_VA, d, 8, &(uint64_t){ 0 }, false);
        put_field(d, 57, 1, seamful);
        tm_put(r->m, SMP_VA, d, 8);
        for (int l = 0; l < 32; l++) {
            put_inputf(r, 0, l, 1);
            put_inputf(r, 1, l, 0.25f);
            put_inputf(r, 2, l, 1 - 1.0f / 4096);
            put_input(r, 4, l, f16(0));
        }
        g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
        for (int l = 0; l < 32; l++) {
            double px = texel_value(0, 0, 1, 0, 0) / 255.0;
            double pz = texel_value(0, 3, 1, 4, 0) / 255.0;

            g_assert_cmpfloat_with_epsilon(outf(r, 0, l),
                                           seamful ? px : (px + pz) / 2,
                                           EPS);
        }
        run_free(r);
    }
}

/*
 * A null texture (Mesa agx_helpers.h agx_set_null_texture: layout null,
 * R8, swizzle 0000, any address) samples as zeros, without faulting
 * where its address is unmapped, even without soft faults
 */
static void test_null_texture(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2, .mask = 0xf,
              .lod = 6 };
    TexDesc td = { .dim = 2, .layout = 1, .channels = 0x00,
                   .swz = { 5, 5, 5, 5 }, .w = 1, .h = 1, .depth = 1 };
    Smp sp = { .max_lod = 14, .mag = 1, .min = 1 };
    uint8_t d[24];
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 4);
    r = run_new(&a);
    r->l.soft_faults = false;
    put_texture(r, DESC_VA, &td);
    tm_rw(r->m, DESC_VA, d, 24, &(uint64_t){ 0 }, false);
    put_field(d, 66, 36, 0x7000000000ull >> 4);     /* unmapped */
    tm_put(r->m, DESC_VA, d, 24);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        for (int c = 0; c < 4; c++) {
            tm_put(r->m, OUT_VA + 4 * (32 * c + l), &(uint32_t){ ~0u }, 4);
        }
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        for (int c = 0; c < 4; c++) {
            g_assert_cmpuint(out32(r, c, l), ==, 0);
        }
    }
    run_free(r);
}

/*
 * LOD query (q2 = 2, textureQueryLod): from gradients of LOD k, the
 * level accessed (clamped to the view's 3 levels) and the LOD computed
 */
static void test_query_lod(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2, .mask = 0x3,
              .lod = 4, .query = true };
    TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                   .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1,
                   .last = 2, .mipmapped = true };
    Smp sp = { .max_lod = 14, .mag = 1, .min = 1, .mip = 2 };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 2);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, 0.5f);
        put_inputf(r, 1, l, 0.5f);
        put_inputf(r, 3, l, (1 << (l % 5)) / 16.0f);
        put_inputf(r, 4, l, 0);
        put_inputf(r, 5, l, 0);
        put_inputf(r, 6, l, 0);
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        g_assert_cmpfloat(outf(r, 0, l), ==, MIN(l % 5, 2));
        g_assert_cmpfloat(outf(r, 1, l), ==, l % 5);
    }
    run_free(r);
}

/*
 * Unnormalized ("pixel") coordinates, the sampler's bit 38 (GL rectangle
 * textures): linear filtering at texel units on a linear R32 float
 * image, whose texels are 10 x + y; implicit LOD from quads stepping one
 * texel per pixel is 0 (magnification), not log2 of the image's size
 */
static void test_pixel_coords(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .dim = 2, .mask = 0x1 };
    TexDesc td = { .dim = 2, .layout = 0, .channels = 0x21, .type = 4,
                   .swz = { 0, 5, 5, 4 }, .w = 8, .h = 4, .stride = 32 };
    Smp sp = { .max_lod = 14, .mag = 1, .min = 0, .pixel = true };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 1);
    r = run_new(&a);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int y = 0; y < 4; y++) {
        for (int i = 0; i < 8; i++) {
            float f = 10 * i + y;

            tm_put(r->m, IMG_VA + y * 32 + i * 4, &f, 4);
        }
    }
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, 1.5f + (l & 1) + (l / 4) % 4);
        put_inputf(r, 1, l, 1.0f + ((l >> 1) & 1));
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        /* x at a texel centre, y halfway between rows y - 1 and y */
        double u = 1.5 + (l & 1) + (l / 4) % 4, v = 1.0 + ((l >> 1) & 1);
        double e = 10 * (u - 0.5) + (v - 1);

        g_assert_cmpfloat_with_epsilon(outf(r, 0, l), e + 0.5, EPS);
    }
    run_free(r);
}

/*
 * A BC1 texture (Channels 0x74), twiddled: 16x16 texels are 4x4 blocks of
 * 8 bytes, one power-of-two tile of Morton-ordered blocks (layout.c); each
 * block's texels take endpoint 0 or 1 (a checkerboard), so nearest
 * sampling at texel centres reads exact RGB565 endpoint colours
 */
static void test_bc1_twiddled(void)
{
    Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2, .mask = 0xf,
              .lod = 6 };
    TexDesc td = { .dim = 2, .layout = 2, .channels = 0x74,
                   .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1 };
    Smp sp = { .max_lod = 14 };
    Asm a = { 0 };
    Run *r;

    sample_program(&a, &x, 4);
    r = run_new(&a);
    for (unsigned by = 0; by < 4; by++) {
        for (unsigned bx = 0; bx < 4; bx++) {
            unsigned m = (bx & 1) | (by & 1) << 1 | (bx & 2) << 1 |
                         (by & 2) << 2;
            uint16_t e[2] = { (bx * 8) << 11 | (by * 16) << 5 | 31,
                              31 << 11 | (bx + by) };
            uint8_t blk[8] = { e[0], e[0] >> 8, e[1], e[1] >> 8,
                               0x44, 0x11, 0x44, 0x11 };

            tm_put(r->m, IMG_VA + 8 * m, blk, 8);
        }
    }
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        put_inputf(r, 0, l, ((l * 7) % 16 + 0.5f) / 16);
        put_inputf(r, 1, l, ((l * 5 + 3) % 16 + 0.5f) / 16);
        put_input(r, 3, l, f16(0));
    }
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    for (int l = 0; l < 32; l++) {
        unsigned tx = (l * 7) % 16, ty = (l * 5 + 3) % 16;
        unsigned bx = tx / 4, by = ty / 4;
        bool one = ((tx & 3) + (ty & 3)) & 1;
        double e[4] = { one ? 1 : bx * 8 / 31.0, one ? 0 : by * 16 / 63.0,
                        one ? (bx + by) / 31.0 : 1, 1 };

        for (int c = 0; c < 4; c++) {
            g_assert_cmpfloat_with_epsilon(outf(r, c, l), e[c], EPS);
        }
    }
    run_free(r);
}

/*
 * Anisotropic filtering, as the model approximates it (Vulkan's
 * description of EXT_texture_filter_anisotropic): gradients of 8 texels
 * along s and 1 along t with a maximum anisotropy of 4 take 4 bilinear
 * lookups spread along s at LOD log2(8 / 4) = 1, averaged; with the
 * field at 1 the lookup is isotropic, at LOD 3
 */
static void test_anisotropic(void)
{
    static const unsigned wrap[2] = { 1, 1 };

    for (unsigned an = 0; an <= 2; an += 2) {
        Tex x = { .r32 = true, .r = 16, .c = 2, .d = 8, .dim = 2,
                  .mask = 0xf, .lod = 4 };
        TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                       .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1,
                       .last = 4, .mipmapped = true };
        Smp sp = { .max_lod = 14, .mag = 1, .min = 1, .mip = 1,
                   .wrap = { 1, 1, 1 }, .aniso_log2 = an };
        Asm a = { 0 };
        Run *r;

        sample_program(&a, &x, 4);
        r = run_new(&a);
        put_rgba8_twiddled(r, 16, 5, 1);
        put_texture(r, DESC_VA, &td);
        put_sampler(r, SMP_VA, &sp);
        for (int l = 0; l < 32; l++) {
            put_inputf(r, 0, l, (l + 0.5f) / 32);
            put_inputf(r, 1, l, 0.3f);
            put_inputf(r, 3, l, 8 / 16.0f);     /* ds/dx */
            put_inputf(r, 4, l, 0);             /* ds/dy */
            put_inputf(r, 5, l, 0);             /* dt/dx */
            put_inputf(r, 6, l, 1 / 16.0f);     /* dt/dy */
        }
        g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
        for (int l = 0; l < 32; l++) {
            double u = (l + 0.5f) / 32, v = 0.3f;

            for (int c = 0; c < 4; c++) {
                double e = 0;

                if (an) {
                    for (int i = 1; i <= 4; i++) {
                        e += ref_level(16, 1, 0, u + (i / 5.0 - 0.5) * 0.5,
                                       v, true, wrap, c) / 4;
                    }
                } else {
                    e = ref_level(16, 3, 0, u, v, true, wrap, c);
                }
                g_assert_cmpfloat_with_epsilon(outf(r, c, l), e, TOL);
            }
        }
        run_free(r);
    }
}

/*
 * The texels an instruction fetched are kept for its other lanes (the
 * quads of a group share most of their bilinear footprints), and the
 * coordinates of the quads its implicit LODs take unless its results
 * overwrite them: the same results bit for bit as fetching every texel
 * from memory and reading every quad's coordinates for every lane (the
 * general path), nearest, bilinear and trilinear at explicit and implicit
 * LODs, footprints that overlap, wrap and reach the border, results in
 * other registers and over the coordinates, on a twiddled RGBA8 chain of
 * 3 levels
 */
static void texel_cache_run(int linear, unsigned lod, unsigned dst,
                            bool general, uint32_t out[4][32])
{
    Tex x = { .r32 = true, .r = dst, .c = 2, .d = 8, .dim = 2,
              .mask = 0xf, .lod = lod };
    TexDesc td = { .dim = 2, .layout = 2, .channels = 0x28,
                   .swz = { 0, 1, 2, 3 }, .w = 16, .h = 16, .depth = 1,
                   .last = 2, .mipmapped = true };
    Smp sp = { .max_lod = 14, .mag = linear, .min = linear,
               .mip = linear ? 2 : 1, .wrap = { 1, 3, 0 } };
    Asm a = { 0 };
    Run *r;

    for (unsigned i = 1; i <= 7; i++) {
        load_input(&a, i, i - 1);
    }
    tex_sample(&a, &x);
    for (unsigned i = 0; i < 4; i++) {
        store_result(&a, dst / 2 + i, i);
    }
    footer(&a);
    r = run_new(&a);
    put_rgba8_twiddled(r, 16, 3, 1);
    put_texture(r, DESC_VA, &td);
    put_sampler(r, SMP_VA, &sp);
    for (int l = 0; l < 32; l++) {
        /* 2x2 quads of different sizes, half of them beyond v = 1 */
        float k = 0.02f + (l >> 2) * 0.03f;

        put_inputf(r, 0, l, 0.9f + (l & 1) * k + (l >> 2) * 0.02f);
        put_inputf(r, 1, l, 0.5f + (l >> 1 & 1) * k + (l >> 2) * 0.07f);
        put_input(r, 3, l, f16(0.3f * (l & 3)));
    }
    agx_usc_general_paths = general;
    g_assert_cmpint(run_one(r), ==, AGX_USC_OK);
    agx_usc_general_paths = false;
    for (int c = 0; c < 4; c++) {
        for (int l = 0; l < 32; l++) {
            out[c][l] = tm_get32(r->m, OUT_VA + 4 * (32 * c + l));
        }
    }
    run_free(r);
}

static void test_texel_cache(void)
{
    static const unsigned lods[2] = { 6, 0 };       /* explicit, implicit */
    static const unsigned dsts[2] = { 16, 2 };      /* r8.., r1.. (coords) */

    for (int linear = 0; linear < 2; linear++) {
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) {
                uint32_t fast[4][32], slow[4][32];

                texel_cache_run(linear, lods[i], dsts[j], false, fast);
                texel_cache_run(linear, lods[i], dsts[j], true, slow);
                g_assert_cmpmem(fast, sizeof(fast), slow, sizeof(slow));
            }
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/usc/sample/filter-and-wrap", test_filter_wrap);
    g_test_add_func("/usc/sample/bc1-twiddled-blocks", test_bc1_twiddled);
    g_test_add_func("/usc/sample/anisotropic-footprint", test_anisotropic);
    g_test_add_func("/usc/sample/mipmaps-lod-clamps-array", test_mipmaps);
    g_test_add_func("/usc/sample/implicit-lod-from-quads-bias-min",
                    test_implicit_lod);
    g_test_add_func("/usc/sample/gradients-heap-sampler-f16",
                    test_gradients_heap);
    g_test_add_func("/usc/sample/gallium-blit-word-custom-border",
                    test_gallium_blit_border);
    g_test_add_func("/usc/sample/shadow-compare-offsets", test_shadow_offset);
    g_test_add_func("/usc/sample/cube-array-faces", test_cube);
    g_test_add_func("/usc/sample/gather-order", test_gather);
    g_test_add_func("/usc/sample/formats", test_formats);
    g_test_add_func("/usc/sample/3d-linear-between-slices", test_3d);
    g_test_add_func("/usc/sample/bad-descriptors-stay-in-guest-memory",
                    test_bad_descriptors);
    g_test_add_func("/usc/sample/multisampled-texel-fetch",
                    test_multisampled_fetch);
    g_test_add_func("/usc/sample/texel-fetch-offset", test_fetch_offset);
    g_test_add_func("/usc/sample/cube-seamless-edge", test_cube_seamless);
    g_test_add_func("/usc/sample/null-texture-reads-zero", test_null_texture);
    g_test_add_func("/usc/sample/query-lod", test_query_lod);
    g_test_add_func("/usc/sample/pixel-coordinates", test_pixel_coords);
    g_test_add_func("/usc/sample/texel-cache-as-every-fetch",
                    test_texel_cache);
    return g_test_run();
}
