/*
 * Unit tests of the fragment pipe (agx-frag.c): fragment jobs whose
 * background and end-of-tile programs are encoded here (USC control words
 * from cmdbuf.xml, instructions as Mesa's agx_pack.c packs them), run by
 * the in-process firmware on fake RAM in a user VM.  Each checks the
 * image the end-of-tile program stored against the clear colour computed
 * here, or how bad programs fail the job.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include <string.h>
#include "agx-fake.h"
#include "usc-asm.h"

#define VM_SLOT         1
#define USER_VA         0x1000000000ULL
#define USER_SIZE       0x200000
#define USC_BASE        (USER_VA + 0x100000)
/* offsets in the VM */
#define UNIFORMS        0x0000
#define PBE             0x0100
#define IMAGE           0x10000
#define BG_WORDS        0x100000        /* = USC offset 0 */
#define EOT_WORDS       0x100100
#define BAD_WORDS       0x100200
#define BG_CODE         0x101000
#define EOT_CODE        0x102000
#define POISON          0xa5

enum { F_U8NORM = 4 };

typedef struct Frag {
    Fake f;
    FakeQueue q;
    uint64_t kva;
    uint64_t rec;
} Frag;

static uint32_t fui(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static uint8_t *vm(Frag *t, uint64_t off, uint64_t len)
{
    return fake_ptr_n(&t->f, t->kva + off, len);
}

static void frag_init(Frag *t)
{
    memset(t, 0, sizeof(*t));
    fake_init(&t->f, AGX_FW_V13_5);
    t->kva = fake_alloc(&t->f, USER_SIZE);
    fake_map_gpu(&t->f, VM_SLOT, USER_VA, t->kva, USER_SIZE, true);
    apple_st32(fake_ptr_n(&t->f, t->f.fw.globals_va +
                          t->f.fw.abi->gl_fault_control, 4), 0xb);
    fake_queue_init(&t->f, &t->q, AGX_PIPE_FRAGMENT, 0, 3);
}

/* USC control words (cmdbuf.xml): each returns its size */
static unsigned w_uniform(uint8_t *p, unsigned start, unsigned n,
                          uint64_t va)
{
    apple_st64(p, 0x1d | start << 8 | (uint64_t)(n & 63) << 20 |
                  (va >> 2) << 26);
    return 8;
}

static unsigned w_texture(uint8_t *p, unsigned start, unsigned n,
                          uint64_t va)
{
    apple_st64(p, 0xdd | start << 8 | (uint64_t)n << 20 | (va >> 3) << 27);
    return 8;
}

/* Shared: a tilebuffer of @w x @h (layout code), 1 sample of 8 bytes */
static unsigned w_shared_tile(uint8_t *p, unsigned layout, unsigned px)
{
    apple_st32(p, 0x4d | 1 << 8 | layout << 10 | 1 << 20 |
                  ((px * 8 / 256) & 0xff) << 24);
    return 4;
}

static unsigned w_shader(uint8_t *p, uint32_t usc)
{
    uint64_t v = 0x0d | (uint64_t)usc << 16;

    memcpy(p, &v, 6);
    return 6;
}

static unsigned w_registers(uint8_t *p, unsigned halves)
{
    apple_st32(p, 0x8d | (halves / 8) << 8);
    return 4;
}

static unsigned w_no_preshader(uint8_t *p)
{
    p[0] = 0x88;
    p[1] = 0;
    return 2;
}

/* st_tile / block_image_store as agx_pack.c packs them */
static void st_tile(Asm *a, unsigned r, unsigned fmt, unsigned mask)
{
    unsigned d = 2 | r << 2;

    emit(a, 0x09 | (uint64_t)(d & 0xff) << 7 | (uint64_t)fmt << 24 |
            (uint64_t)mask << 36 | (uint64_t)(0xff & 63) << 42 |
            (uint64_t)(0xff >> 6) << 56, 0, 8);
}

static void block_store(Asm *a, unsigned fmt, unsigned r, unsigned t)
{
    uint32_t w0 = 0xb1 | 1u << 15 | (fmt & 1) << 8 | (r & 63) << 9 |
                  1u << 31;
    uint32_t w1 = t | 2 << 8 | 9u << 11;
    uint32_t w2 = (fmt >> 1) | 1u << 3;

    emit(a, w0 | (uint64_t)w1 << 32, w2, 10);
}

/* A linear RGBA8 unorm PBE descriptor (cmdbuf.xml "PBE") */
static void pbe_rgba8(uint8_t *d, uint32_t w, uint32_t h, uint64_t va,
                      uint32_t stride)
{
    uint64_t lo = 2 | 0x28 << 6 | (uint64_t)(0 | 1 << 2 | 2 << 4 | 3 << 6)
                  << 16 | (uint64_t)(w - 1) << 24 | (uint64_t)(h - 1) << 38;
    uint64_t hi = (va >> 4) | (uint64_t)(stride - 4) << 40;

    memset(d, 0, 24);
    apple_st64(d, lo);
    apple_st64(d + 8, hi);
}

/*
 * The programs of a clear to @rgba of a @w x @h RGBA8 image at IMAGE
 * (row stride @stride): the background program stores the colour of
 * uniforms u4..u7 (32-bit) into every pixel's tilebuffer (U8NORM), the
 * end-of-tile program stores the tile through the PBE in texture state
 * register 0
 */
static void clear_programs(Frag *t, const float rgba[4], uint32_t w,
                           uint32_t h, uint32_t stride, unsigned layout,
                           unsigned tile_px)
{
    Asm a = { 0 };
    uint8_t *p;
    unsigned n;

    for (int c = 0; c < 4; c++) {
        apple_st32(vm(t, UNIFORMS + 4 * c, 4), fui(rgba[c]));
    }
    /* bg: r1..r4 = u4..u7; st_tile U8NORM xyzw, all samples */
    for (int c = 0; c < 4; c++) {
        mov(&a, D32(1 + c), U32(4 + c));
    }
    st_tile(&a, 2, F_U8NORM, 0xf);
    footer(&a);
    memcpy(vm(t, BG_CODE, a.n), a.b, a.n);
    p = vm(t, BG_WORDS, 64);
    n = w_uniform(p, 8, 8, USER_VA + UNIFORMS);
    n += w_shared_tile(p + n, layout, tile_px);
    n += w_shader(p + n, BG_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);

    memset(&a, 0, sizeof(a));
    mov_imm32(&a, 1, 0);
    block_store(&a, F_U8NORM, 2, 0);
    footer(&a);
    memcpy(vm(t, EOT_CODE, a.n), a.b, a.n);
    pbe_rgba8(vm(t, PBE, 24), w, h, USER_VA + IMAGE, stride);
    p = vm(t, EOT_WORDS, 64);
    n = w_texture(p, 0, 1, USER_VA + PBE);
    n += w_shared_tile(p + n, layout, tile_px);
    n += w_shader(p + n, EOT_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);
    memset(vm(t, IMAGE, stride * (h + 4)), POISON, stride * (h + 4));
}

/* Submit a fragment job of a @w x @h framebuffer with these programs */
static void frag_submit(Frag *t, uint32_t w, uint32_t h, uint32_t bg,
                        uint32_t eot)
{
    const AgxCmdLayout *l = t->f.layout;
    uint64_t p1, p2;

    t->rec = fake_add_run(&t->f, &t->q, NULL);
    p2 = t->rec + l->params[AGX_CMD_FRAGMENT][0];
    p1 = t->rec + l->params[AGX_CMD_FRAGMENT][1];
    apple_st32(fake_ptr_n(&t->f, t->rec + l->vm_slot[AGX_CMD_FRAGMENT], 4),
               VM_SLOT);
    /* FragmentJobParameters1: bg {rsrc_spec, address}, AuxFBInfo */
    apple_st64(fake_ptr_n(&t->f, p1 + 0x10, 8), bg | 4);
    apple_st32(fake_ptr_n(&t->f, p1 + 0x30 + 8, 4), w);
    apple_st32(fake_ptr_n(&t->f, p1 + 0x30 + 0xc, 4), h);
    apple_st64(fake_ptr_n(&t->f, p1 + 0x140, 8), USC_BASE);
    /* FragmentJobParameters2: eot_rsrc_spec, eot_usc */
    apple_st32(fake_ptr_n(&t->f, p2 + 4, 4), eot ? eot | 4 : 0);
    fake_kick(&t->f, &t->q);
}

static bool frag_retired(Frag *t)
{
    return fake_stamp(&t->f, t->q.slot) == t->q.value;
}

static void check_image(Frag *t, const float rgba[4], uint32_t w,
                        uint32_t h, uint32_t stride)
{
    for (uint32_t y = 0; y < h + 4; y++) {
        const uint8_t *row = vm(t, IMAGE + y * stride, stride);

        for (uint32_t x = 0; x < stride / 4; x++) {
            for (int c = 0; c < 4; c++) {
                uint8_t e = x < w && y < h ? lrint((double)rgba[c] * 255)
                                             : POISON;

                g_assert_cmpuint(row[4 * x + c], ==, e);
            }
        }
    }
}

/*
 * A clear of a 40x20 framebuffer in 32x32 tiles: two tiles, every pixel
 * of the image the clear colour, nothing beyond it written
 */
static void test_clear(void)
{
    static const float rgba[4] = { 0.2f, 0.4f, 0.6f, 1.0f };
    Frag t;

    frag_init(&t);
    clear_programs(&t, rgba, 40, 20, 176, 0x2f, 32 * 32);
    frag_submit(&t, 40, 20, 0, EOT_WORDS - BG_WORDS);
    fake_run(&t.f, 1000);
    g_assert_false(fake_crashed(&t.f));
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    g_assert_cmpuint(t.f.fw.frag.tiles, ==, 2);
    check_image(&t, rgba, 40, 20, 176);
    fake_free(&t.f);
}

/*
 * 16x16 tiles of a 512x256 framebuffer: 512 tiles, more than one slice's
 * worth, so the job renders over several timer ticks and still retires
 * with every pixel cleared
 */
static void test_sliced(void)
{
    static const float rgba[4] = { 0.8f, 0.1f, 0.0f, 0.7f };
    Frag t;

    frag_init(&t);
    clear_programs(&t, rgba, 512, 256, 2048, 0x36, 16 * 16);
    frag_submit(&t, 512, 256, 0, EOT_WORDS - BG_WORDS);
    fake_run(&t.f, 10000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fw.frag.tiles, ==, 512);
    g_assert_cmpuint(t.f.fw.frag.slices, >, 1);
    check_image(&t, rgba, 512, 256, 2048);
    fake_free(&t.f);
}

/* A background program of unknown words: a GPU fault, logged */
static void test_bad_words(void)
{
    static const float rgba[4] = { 1, 1, 1, 1 };
    Frag t;

    frag_init(&t);
    clear_programs(&t, rgba, 40, 20, 176, 0x2f, 32 * 32);
    *vm(&t, BAD_WORDS, 1) = 0x77;
    frag_submit(&t, 40, 20, BAD_WORDS - BG_WORDS, EOT_WORDS - BG_WORDS);
    fake_run(&t.f, 1000);
    g_assert_cmpuint(t.f.fault_events, ==, 1);
    g_assert_true(fake_has_error(&t.f, "unknown USC control word 0x77"));
    g_assert_cmpuint(t.f.fw.frag.faults, ==, 1);
    fake_free(&t.f);
}

/* Without an end-of-tile program (the model's own tests) nothing runs */
static void test_no_programs(void)
{
    Frag t;

    frag_init(&t);
    frag_submit(&t, 40, 20, 0, 0);
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fw.frag.tiles, ==, 0);
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    fake_free(&t.f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/frag/clear/two-tiles-exact", test_clear);
    g_test_add_func("/frag/clear/sliced-16x16-tiles", test_sliced);
    g_test_add_func("/frag/fault/bad-background-words", test_bad_words);
    g_test_add_func("/frag/none/without-end-of-tile", test_no_programs);
    return g_test_run();
}
