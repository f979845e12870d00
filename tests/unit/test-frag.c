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
#include "hw/agx/agx-scene.h"

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
#define FS_WORDS        0x100300
#define FS_CODE         0x103000
#define OCLQRY          0x0200
#define POISON          0xa5

enum { F_I8 = 0, F_U8NORM = 4 };

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

static void block_store_dim(Asm *a, unsigned fmt, unsigned r, unsigned t,
                            unsigned dim)
{
    uint32_t w0 = 0xb1 | 1u << 15 | (fmt & 1) << 8 | (r & 63) << 9 |
                  1u << 31;
    uint32_t w1 = t | dim << 8 | 9u << 11;
    uint32_t w2 = (fmt >> 1) | 1u << 3;

    emit(a, w0 | (uint64_t)w1 << 32, w2, 10);
}

/* ... of a 2D image, at the tile's origin */
static void block_store(Asm *a, unsigned fmt, unsigned r, unsigned t)
{
    block_store_dim(a, fmt, r, t, 2);
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
/* Depth: zls_ctrl, the store buffer (VM offset), the clear value */
typedef struct FragZ {
    uint64_t zls_ctrl;
    uint64_t z_store;
    float clear;
    uint64_t oclqry;            /* isp_oclqry_base (VM offset), 0: none */
    uint64_t s_store;           /* the stencil store buffer (VM offset) */
    uint64_t dbias;             /* isp_dbias_base (VM offset), 0: none */
    uint32_t isp_ctl;           /* AuxFBInfo isp_ctl */
    uint64_t z_stride;          /* depth layer stride word (load, store) */
    uint64_t z_load, s_load;    /* the load buffers (VM offsets), 0: none */
} FragZ;

/* RunFragment.ppp_multisamplectl of the next submission (0: not given) */
static uint64_t sample_positions;

static void frag_submit_scene(Frag *t, uint32_t w, uint32_t h, uint32_t bg,
                              uint32_t eot, uint64_t tilemap,
                              const FragZ *z)
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
    if (z) {
        /* FragmentJobParameters1 zls_ctrl, z_store; 2 isp_bgobjdepth */
        apple_st64(fake_ptr_n(&t->f, p1 + 0x58, 8), z->zls_ctrl);
        apple_st64(fake_ptr_n(&t->f, p1 + 0x68, 8), USER_VA + z->z_store);
        apple_st32(fake_ptr_n(&t->f, p2 + 0x30, 4), fui(z->clear));
        if (z->s_store) {
            apple_st64(fake_ptr_n(&t->f, p1 + 0x78, 8),
                       USER_VA + z->s_store);
        }
        if (z->z_load) {
            apple_st64(fake_ptr_n(&t->f, p1 + 0x60, 8), USER_VA + z->z_load);
        }
        if (z->s_load) {
            apple_st64(fake_ptr_n(&t->f, p1 + 0x70, 8), USER_VA + z->s_load);
        }
        if (z->oclqry) {
            apple_st64(fake_ptr_n(&t->f, p1 + 0x50, 8),
                       USER_VA + z->oclqry);
        }
        /* isp_dbias_base; AuxFBInfo's first word, isp_ctl */
        if (z->dbias) {
            apple_st64(fake_ptr_n(&t->f, p1 + 0x28, 8), USER_VA + z->dbias);
        }
        apple_st32(fake_ptr_n(&t->f, p1 + 0x30, 4), z->isp_ctl);
        /* z_load_stride, z_store_stride */
        apple_st64(fake_ptr_n(&t->f, p1 + 0x80, 8), z->z_stride);
        apple_st64(fake_ptr_n(&t->f, p1 + 0x88, 8), z->z_stride);
    }
    /* RunFragment.tvb_tilemap: the scene; ppp_multisamplectl after it */
    apple_st64(fake_ptr_n(&t->f, t->rec + (l == agx_cmd_layout(true) ?
                                           0x38 : 0x40), 8), tilemap);
    apple_st64(fake_ptr_n(&t->f, t->rec + (l == agx_cmd_layout(true) ?
                                           0x40 : 0x48), 8),
               sample_positions);
    fake_kick(&t->f, &t->q);
}

static void frag_submit(Frag *t, uint32_t w, uint32_t h, uint32_t bg,
                        uint32_t eot)
{
    frag_submit_scene(t, w, h, bg, eot, 0, NULL);
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

/* --- rasterization -------------------------------------------------------- */

/* ld_tile / st_tile of one I8 component at offset 0, sample 0 (32-bit r) */
static void tile_i8(Asm *a, bool load, unsigned r)
{
    unsigned d = 2 | (2 * r) << 2;

    emit(a, (load ? 0x49 : 0x09) | (uint64_t)(d & 0xff) << 7 |
            (uint64_t)F_I8 << 24 | (uint64_t)load << 35 | 1ull << 36 |
            1ull << 42 | (uint64_t)(d >> 8) << 60, 0, 8);
}

/* A linear R8 uint PBE descriptor */
static void pbe_r8(uint8_t *d, uint32_t w, uint32_t h, uint64_t va,
                   uint32_t stride)
{
    uint64_t lo = 2 | 0x00 << 6 | 2 << 13 | (uint64_t)(w - 1) << 24 |
                  (uint64_t)(h - 1) << 38;
    uint64_t hi = (va >> 4) | (uint64_t)(stride - 4) << 40;

    memset(d, 0, 24);
    apple_st64(d, lo);
    apple_st64(d + 8, hi);
}

static bool k_read(void *opaque, uint64_t va, void *buf, uint32_t len)
{
    memcpy(buf, fake_ptr_n(opaque, va, len), len);
    return true;
}

static bool k_write(void *opaque, uint64_t va, const void *buf, uint32_t len)
{
    memcpy(fake_ptr_n(opaque, va, len), buf, len);
    return true;
}

/*
 * Programs counting how often each pixel is shaded: the background
 * program zeroes an I8 counter in the tilebuffer, the fragment shader
 * adds 1 to it, the end-of-tile program stores it into an R8 image at
 * IMAGE (@w x @h, stride @w)
 */
static void count_programs(Frag *t, uint32_t w, uint32_t h)
{
    Asm a = { 0 };
    uint8_t *p;
    unsigned n;

    mov_imm32(&a, 1, 0);
    tile_i8(&a, false, 1);
    footer(&a);
    memcpy(vm(t, BG_CODE, a.n), a.b, a.n);
    p = vm(t, BG_WORDS, 64);
    n = w_shared_tile(p, 0x2f, 32 * 32);
    n += w_shader(p + n, BG_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);

    memset(&a, 0, sizeof(a));
    tile_i8(&a, true, 1);
    iadd(&a, D32(1), R32(1), IMM(1), false, 0, false);
    tile_i8(&a, false, 1);
    footer(&a);
    memcpy(vm(t, FS_CODE, a.n), a.b, a.n);
    p = vm(t, FS_WORDS, 64);
    n = w_shader(p, FS_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);

    memset(&a, 0, sizeof(a));
    mov_imm32(&a, 1, 0);
    block_store(&a, F_I8, 2, 0);
    footer(&a);
    memcpy(vm(t, EOT_CODE, a.n), a.b, a.n);
    pbe_r8(vm(t, PBE, 24), w, h, USER_VA + IMAGE, w);
    p = vm(t, EOT_WORDS, 64);
    n = w_texture(p, 0, 1, USER_VA + PBE);
    n += w_shared_tile(p + n, 0x2f, 32 * 32);
    n += w_shader(p + n, EOT_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);
    memset(vm(t, IMAGE, w * h), POISON, w * h);
}

/* The scene of @n triangles (@xy: 6 floats each) in kernel memory */
static uint64_t write_scene_z(Frag *t, uint32_t w, uint32_t h,
                              const float *xy, const float *z, unsigned n,
                              uint32_t face, uint32_t frag_control,
                              uint32_t oq)
{
    uint64_t tilemap = fake_alloc(&t->f, 0x4000);
    uint64_t list = fake_alloc(&t->f, 0x4000);
    uint64_t heap = (fake_alloc(&t->f, 0x18000) + 0x7fff) & ~0x7fffULL;
    AgxSceneMem m = { .read = k_read, .write = k_write, .opaque = &t->f };
    AgxSceneTarget tg = {
        .tilemap_va = tilemap, .tilemap_size = 0x4000,
        .page_list_va = list, .ring_pages = 2, .max_pages = 2,
        .width = w, .height = h, .layers = 1,
    };
    AgxSceneWriter wr;
    AgxPppState st = { 0 };
    const char *why;

    for (int i = 0; i < 2; i++) {
        apple_st32(fake_ptr_n(&t->f, list + 4 * i, 4),
                   (uint32_t)((heap + 0x8000 * i) >> 15));
    }
    g_assert_true(agx_scene_begin(&wr, &m, &tg, &why));
    st.present = AGX_PPP_FRAGMENT_SHADER | AGX_PPP_FRONT_FACE |
                 AGX_PPP_BACK_FACE;
    st.front_face = st.back_face = face;
    if (frag_control) {
        st.present |= AGX_PPP_FRAG_CONTROL | AGX_PPP_OCCLUSION_QUERY;
        st.frag_control = frag_control;
        st.occlusion_query = oq;
    }
    st.fs_word[1] = FS_WORDS - BG_WORDS;
    g_assert_true(agx_scene_put_state(&wr, &m, &st));
    for (unsigned i = 0; i < n; i++) {
        AgxScenePrim p = { .kind = AGX_SCENE_TRIANGLE, .front = true };

        for (int k = 0; k < 3; k++) {
            p.v[k].x = xy[6 * i + 2 * k];
            p.v[k].y = xy[6 * i + 2 * k + 1];
            p.v[k].rhw = 1;
            p.v[k].z = z ? z[i] : 0.5f;
        }
        g_assert_cmpint(agx_scene_put_prim(&wr, &m, &p), ==, 1);
    }
    g_assert_true(agx_scene_end(&wr, &m));
    return tilemap;
}

/*
 * Fragment face words (cmdbuf.xml "Fragment face"): the depth function
 * (7: always) and the depth write disable
 */
#define FACE_ALWAYS_NO_WRITE    (7u << 24 | 1u << 21)
#define FACE_LESS_WRITE         (1u << 24)

static uint64_t write_scene(Frag *t, uint32_t w, uint32_t h,
                            const float *xy, unsigned n)
{
    return write_scene_z(t, w, h, xy, NULL, n, FACE_ALWAYS_NO_WRITE, 0, 0);
}

/* CPU reference: is (px, py) strictly inside triangle @v (6 floats)? */
#define EPS     0.000000001

static int side(double ax, double ay, double bx, double by, double px,
                double py)
{
    double e = (bx - ax) * (py - ay) - (by - ay) * (px - ax);

    return e > EPS ? 1 : e < -EPS ? -1 : 0;
}

static int ref_inside(const float *v, double px, double py)
{
    int s0 = side(v[0], v[1], v[2], v[3], px, py);
    int s1 = side(v[2], v[3], v[4], v[5], px, py);
    int s2 = side(v[4], v[5], v[0], v[1], px, py);

    if (s0 && s0 == s1 && s1 == s2) {
        return 1;       /* strictly inside */
    }
    if ((s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0)) {
        return 2;       /* on an edge */
    }
    return 0;
}

/*
 * Rasterization rules: a 64x64 framebuffer (four tiles) and triangles
 * whose edges run through pixel centres and across tile borders: a
 * square split along its diagonal (edges on the centres of row 8, column
 * 8, row 40, column 40), and a fan of triangles around a point.  Every
 * pixel is shaded at most once (shared edges: the top-left rule); the
 * square's pixels are exactly columns and rows 8..39 (its top and left
 * edges included, bottom and right excluded); every pixel whose centre is
 * strictly inside a triangle is shaded, none outside them all
 */
static void test_raster_rules(void)
{
    static float tri[2 * 6 + 12 * 6] = {
        8.5f, 8.5f, 40.5f, 8.5f, 40.5f, 40.5f,
        8.5f, 8.5f, 40.5f, 40.5f, 8.5f, 40.5f,
    };
    const unsigned nfan = 12;
    uint64_t tilemap;
    Frag t;

    frag_init(&t);
    for (unsigned i = 0; i < nfan; i++) {
        double a0 = 2 * M_PI * i / nfan, a1 = 2 * M_PI * (i + 1) / nfan;
        float *v = &tri[12 + 6 * i];

        v[0] = 50.5f;
        v[1] = 50.25f;
        v[2] = 50.5f + 12 * cos(a0);
        v[3] = 50.25f + 12 * sin(a0);
        v[4] = 50.5f + 12 * cos(a1);
        v[5] = 50.25f + 12 * sin(a1);
    }
    count_programs(&t, 64, 64);
    tilemap = write_scene(&t, 64, 64, tri, 2 + nfan);
    frag_submit_scene(&t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap, NULL);
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            uint8_t got = *vm(&t, IMAGE + y * 64 + x, 1);
            bool in_square = x >= 8 && x < 40 && y >= 8 && y < 40;
            int fan = 0;

            for (unsigned i = 0; i < nfan; i++) {
                fan = MAX(fan, ref_inside(&tri[12 + 6 * i], x + 0.5,
                                          y + 0.5));
            }
            if (in_square) {
                g_assert_cmpuint(got, ==, 1);
            } else if (fan == 1) {
                g_assert_cmpuint(got, ==, 1);
            } else if (fan == 0) {
                g_assert_cmpuint(got, ==, 0);
            } else {
                g_assert_cmpuint(got, <=, 1);
            }
        }
    }
    g_assert_cmpuint(t.f.fw.frag.fragments, >, 32 * 32);
    fake_free(&t.f);
}
/* Two triangles making the square [x0, x1) x [y0, y1) at depth z */
static void quad(float *v, float *z, float x0, float y0, float x1, float y1,
                 float depth)
{
    const float q[12] = { x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1 };

    memcpy(v, q, sizeof(q));
    z[0] = z[1] = depth;
}

/*
 * The depth test (Less, writes on), cleared to isp_bgobjdepth 1.0: a
 * near square, a farther one overlapping it (hidden where they overlap),
 * a nearest one over both (drawn everywhere): each pixel's shading count
 * says which passed; the depth buffer is stored (zls_ctrl Z store, 32F)
 * with the nearest depth of each pixel, twiddled as Mesa lays it out; a
 * counting occlusion query adds up the pixels that passed
 */
static void test_depth(void)
{
    float v[3 * 12], z[6];
    uint64_t tilemap, zbuf_off = 0x80000, shaded = 0;
    Frag t;

    frag_init(&t);
    quad(v, z, 8, 8, 24, 24, 0.3f);
    quad(v + 12, z + 2, 16, 16, 32, 32, 0.6f);
    quad(v + 24, z + 4, 20, 20, 28, 28, 0.1f);
    count_programs(&t, 64, 64);
    /* counting occlusion query 3 (cmdbuf.xml: visibility mode 2) */
    tilemap = write_scene_z(&t, 64, 64, v, z, 6, FACE_LESS_WRITE, 2u << 14,
                            3u << 17);
    /* zls_ctrl bit 19: Z store; format 32F */
    frag_submit_scene(&t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { 1u << 19, zbuf_off, 1.0f, OCLQRY, 0 });
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = x >= 8 && x < 24 && y >= 8 && y < 24;
            bool b = x >= 16 && x < 32 && y >= 16 && y < 32;
            bool c = x >= 20 && x < 28 && y >= 20 && y < 28;
            unsigned want = a + (b && !a) + c;
            float zw = c ? 0.1f : a ? 0.3f : b ? 0.6f : 1.0f;
            uint32_t m = 0;

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, want);
            shaded += want;
            for (int i = 0; i < 6; i++) {
                m |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
            }
            g_assert_cmphex(apple_ld32(vm(&t, zbuf_off + 4 * m, 4)), ==,
                            fui(zw));
        }
    }
    /* the counting query: every pixel that passed, 8 bytes at index 3 */
    g_assert_cmpuint(apple_ld64(vm(&t, OCLQRY + 24, 8)), ==, shaded);
    g_assert_cmpuint(apple_ld64(vm(&t, OCLQRY + 16, 8)), ==, 0);
    fake_free(&t.f);
}

/*
 * Depth and stencil loaded and stored (zls_ctrl Z and S load and store,
 * 32F) on a 72x40 framebuffer: its two whole 32x32 tiles move their
 * samples in one access each, the four clipped ones sample by sample.
 * Depth Less against the loaded depths (pseudo-random), two squares; the
 * stored depth is each pixel's nearest, the stencil what was loaded, the
 * buffers' padding beyond the framebuffer untouched, and everything the
 * same byte for byte as with the general paths only.
 */
#define ZS_W            72
#define ZS_H            40
#define ZS_ZBUF         0x80000         /* 128x64 of 4 bytes: 64x64 tiles */
#define ZS_SBUF         0xa0000         /* 128x64 of 1 byte */
#define ZS_ZLEN         (128 * 64 * 4)
#define ZS_SLEN         (128 * 64)

static uint32_t zs_morton(uint32_t x, uint32_t y)
{
    uint32_t m = 0;

    for (int i = 0; i < 6; i++) {
        m |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
    }
    return (y & ~63u) * 128 + (x & ~63u) * 64 + m;
}

static void zs_load_store_run(bool general, uint8_t *zout, uint8_t *sout)
{
    float v[2 * 12], z[4];
    uint64_t tilemap;
    uint32_t seed = 12345;
    Frag t;

    frag_init(&t);
    quad(v, z, 8, 8, 60, 36, 0.5f);
    quad(v + 12, z + 2, 50, 20, 72, 40, 0.25f);
    count_programs(&t, ZS_W, ZS_H);
    for (unsigned i = 0; i < ZS_ZLEN / 4; i++) {
        seed = seed * 1103515245 + 12345;
        apple_st32(vm(&t, ZS_ZBUF + 4 * i, 4), fui((seed >> 8) / 16777216.0f));
        *vm(&t, ZS_SBUF + i, 1) = seed >> 24;
    }
    tilemap = write_scene_z(&t, ZS_W, ZS_H, v, z, 4, FACE_LESS_WRITE, 0, 0);
    agx_usc_general_paths = general;
    /* zls_ctrl bits 14, 15, 18, 19: S load, Z load, S store, Z store */
    frag_submit_scene(&t, ZS_W, ZS_H, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { 0xcc000, ZS_ZBUF, 1.0f, 0, ZS_SBUF,
                                 .z_load = ZS_ZBUF, .s_load = ZS_SBUF });
    fake_run(&t.f, 1000);
    agx_usc_general_paths = false;
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    memcpy(zout, vm(&t, ZS_ZBUF, ZS_ZLEN), ZS_ZLEN);
    memcpy(sout, vm(&t, ZS_SBUF, ZS_SLEN), ZS_SLEN);
    fake_free(&t.f);
}

static void test_zs_load_store(void)
{
    g_autofree uint8_t *z0 = g_malloc(ZS_ZLEN), *s0 = g_malloc(ZS_SLEN);
    g_autofree uint8_t *z1 = g_malloc(ZS_ZLEN), *s1 = g_malloc(ZS_SLEN);
    g_autofree uint32_t *seeds = g_new(uint32_t, ZS_SLEN);
    uint32_t seed = 12345;

    zs_load_store_run(false, z0, s0);
    zs_load_store_run(true, z1, s1);
    g_assert_cmpmem(z0, ZS_ZLEN, z1, ZS_ZLEN);
    g_assert_cmpmem(s0, ZS_SLEN, s1, ZS_SLEN);
    /* the CPU's reference: what the fill wrote, the squares' depths */
    for (unsigned i = 0; i < ZS_SLEN; i++) {
        seed = seed * 1103515245 + 12345;
        seeds[i] = seed;
    }
    for (uint32_t y = 0; y < 64; y++) {
        for (uint32_t x = 0; x < 128; x++) {
            uint32_t i = zs_morton(x, y);
            float want = (seeds[i] >> 8) / 16777216.0f;

            if (x < ZS_W && y < ZS_H) {
                if (x >= 8 && x < 60 && y >= 8 && y < 36 && 0.5f < want) {
                    want = 0.5f;
                }
                if (x >= 50 && y >= 20 && 0.25f < want) {
                    want = 0.25f;
                }
            }
            g_assert_cmphex(apple_ld32(z0 + 4 * i), ==, fui(want));
            g_assert_cmphex(s0[i], ==, seeds[i] >> 24);
        }
    }
}

/*
 * Gallium's clear programs as the Mesa guest ran them (Mesa 26.1.6,
 * gles-fbo's first glClear; bytes and words as agxdecode printed them
 * under ASAHI_MESA_DEBUG=trace): the background program moves the clear
 * colour from uniforms u2..u5 (the Uniform word loads halves 4..11 with
 * 0.2, 0.4, 0.6, 1.0) and stores it with st_tile u8norm, the end-of-tile
 * program stores the tile with block_image_store (imgwblk) through
 * texture state 0.  The recorded PBE was a compressed image; here a
 * linear one of the same format.  Every pixel must be 51, 102, 153, 255.
 */
static void test_recorded_clear(void)
{
    static const uint8_t bg[] = {
        0x7e, 0x01, 0x84, 0x09, 0x80, 0x00,     /* mov r0, u2 */
        0x7e, 0x05, 0x86, 0x09, 0x80, 0x00,     /* mov r1, u3 */
        0x7e, 0x09, 0x88, 0x09, 0x80, 0x00,     /* mov r2, u4 */
        0x7e, 0x0d, 0x8a, 0x09, 0x80, 0x00,     /* mov r3, u5 */
        /* st_tile r0_r1_r2_r3, 0, 255, 0, u8norm, xyzw */
        0x09, 0x01, 0x00, 0x04, 0xf0, 0xfc, 0x00, 0x03,
        0x88, 0x00,                             /* stop */
    };
    static const uint8_t eot[] = {
        0x62, 0x01, 0x00, 0x00, 0x00, 0x00,     /* ldimm r0, 0 */
        /* imgwblk r0l, ts0, r0, 0, 2d, u8norm */
        0xb1, 0x80, 0x00, 0x80, 0x00, 0x4a, 0x00, 0x00, 0x0a, 0x00,
        0x88, 0x00,                             /* stop */
    };
    static const uint8_t colour[16] = {
        0xcd, 0xcc, 0x4c, 0x3e, 0xcd, 0xcc, 0xcc, 0x3e,
        0x9a, 0x99, 0x19, 0x3f, 0x00, 0x00, 0x80, 0x3f,
    };
    static const float rgba[4] = { 0.2f, 0.4f, 0.6f, 1.0f };
    uint8_t *p;
    unsigned n;
    Frag t;

    frag_init(&t);
    memcpy(vm(&t, UNIFORMS, 16), colour, 16);
    memcpy(vm(&t, BG_CODE, sizeof(bg)), bg, sizeof(bg));
    memcpy(vm(&t, EOT_CODE, sizeof(eot)), eot, sizeof(eot));
    p = vm(&t, BG_WORDS, 64);
    n = w_uniform(p, 4, 8, USER_VA + UNIFORMS);
    n += w_shared_tile(p + n, 0x2f, 32 * 32);
    n += w_shader(p + n, BG_CODE - BG_WORDS);
    n += w_registers(p + n, 8 * 8);
    w_no_preshader(p + n);
    p = vm(&t, EOT_WORDS, 64);
    n = w_texture(p, 0, 1, USER_VA + PBE);
    n += w_shared_tile(p + n, 0x2f, 32 * 32);
    n += w_shader(p + n, EOT_CODE - BG_WORDS);
    n += w_registers(p + n, 8 * 8);
    w_no_preshader(p + n);
    pbe_rgba8(vm(&t, PBE, 24), 72, 40, USER_VA + IMAGE, 288);
    memset(vm(&t, IMAGE, 288 * 44), POISON, 288 * 44);
    frag_submit(&t, 72, 40, 0, EOT_WORDS - BG_WORDS);
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    g_assert_cmpuint(t.f.fw.frag.tiles, ==, 6);
    check_image(&t, rgba, 72, 40, 288);
    fake_free(&t.f);
}

/*
 * The stencil test: a square drawn with stencil Always, Replace on depth
 * pass, reference 1 (the stencil cleared to 0); a second, overlapping one
 * with Equal 1 is shaded only where the first one was; the stencil buffer
 * is stored (zls_ctrl S store) with 1 under the first square
 */
static void test_stencil(void)
{
    uint64_t tilemap = 0, sbuf_off = 0xa0000, list, heap;
    AgxSceneMem m = { .read = k_read, .write = k_write };
    AgxSceneWriter wr;
    AgxPppState st = { 0 };
    const char *why;
    float v[12], z[2];
    Frag t;

    frag_init(&t);
    m.opaque = &t.f;
    count_programs(&t, 64, 64);
    tilemap = fake_alloc(&t.f, 0x4000);
    list = fake_alloc(&t.f, 0x4000);
    heap = (fake_alloc(&t.f, 0x18000) + 0x7fff) & ~0x7fffULL;
    for (int i = 0; i < 2; i++) {
        apple_st32(fake_ptr_n(&t.f, list + 4 * i, 4),
                   (uint32_t)((heap + 0x8000 * i) >> 15));
    }
    g_assert_true(agx_scene_begin(&wr, &m, &(AgxSceneTarget) {
        .tilemap_va = tilemap, .tilemap_size = 0x4000,
        .page_list_va = list, .ring_pages = 2, .max_pages = 2,
        .width = 64, .height = 64, .layers = 1,
    }, &why));
    /*
     * cmdbuf.xml: Fragment control bit 18 stencil test; Fragment face
     * stencil reference 7:0; Fragment stencil write mask 7:0, read mask
     * 15:8, depth pass 18:16, compare 27:25
     */
    st.present = AGX_PPP_FRAGMENT_SHADER | AGX_PPP_FRAG_CONTROL |
                 AGX_PPP_FRONT_FACE | AGX_PPP_BACK_FACE |
                 AGX_PPP_FRONT_STENCIL | AGX_PPP_BACK_STENCIL;
    st.fs_word[1] = FS_WORDS - BG_WORDS;
    st.frag_control = 1u << 18;
    st.front_face = st.back_face = FACE_ALWAYS_NO_WRITE | 1;
    st.front_stencil = st.back_stencil = 0xff | 0xff << 8 | 2 << 16 |
                                         7u << 25;
    for (int k = 0; k < 2; k++) {
        g_assert_true(agx_scene_put_state(&wr, &m, &st));
        quad(v, z, 8 + 8 * k, 8 + 8 * k, 24 + 8 * k, 24 + 8 * k, 0.5f);
        for (int i = 0; i < 2; i++) {
            AgxScenePrim p = { .kind = AGX_SCENE_TRIANGLE, .front = true };

            for (int j = 0; j < 3; j++) {
                p.v[j].x = v[6 * i + 2 * j];
                p.v[j].y = v[6 * i + 2 * j + 1];
                p.v[j].z = 0.5f;
                p.v[j].rhw = 1;
            }
            g_assert_cmpint(agx_scene_put_prim(&wr, &m, &p), ==, 1);
        }
        /* the second square: Equal 1, keep */
        st.front_stencil = st.back_stencil = 0xff | 0xff << 8 | 2u << 25;
    }
    g_assert_true(agx_scene_end(&wr, &m));
    frag_submit_scene(&t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { 1u << 18, 0, 1.0f, 0, sbuf_off });
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = x >= 8 && x < 24 && y >= 8 && y < 24;
            bool b = x >= 16 && x < 32 && y >= 16 && y < 32;
            uint32_t mo = 0;

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==,
                             a + (a && b));
            for (int i = 0; i < 6; i++) {
                mo |= ((x >> i) & 1) << (2 * i) |
                      ((y >> i) & 1) << (2 * i + 1);
            }
            g_assert_cmpuint(*vm(&t, sbuf_off + mo, 1), ==, a);
        }
    }
    fake_free(&t.f);
}

/* --- multisampling --------------------------------------------------- */

/*
 * Shared: a 32x32 tilebuffer of 1 << @log2 samples (log2 in bits 17:16)
 * of 8 bytes
 */
static unsigned w_shared_tile_ms(uint8_t *p, unsigned log2)
{
    apple_st32(p, 0x4d | 1 << 8 | 0x2f << 10 | log2 << 16 | 1 << 20 |
                  ((32 * 32 * 8 << log2) / 256 & 0xff) << 24);
    return 4;
}

/* ld_tile / st_tile of one I8 component, sample mask 0xff (all) */
static void tile_i8_all(Asm *a, bool load, unsigned r)
{
    unsigned d = 2 | (2 * r) << 2;

    emit(a, (load ? 0x49 : 0x09) | (uint64_t)(d & 0xff) << 7 |
            (uint64_t)F_I8 << 24 | 1ull << 36 | (uint64_t)(0xff & 63) << 42 |
            (uint64_t)(0xff >> 6) << 56 | (uint64_t)(d >> 8) << 60, 0, 8);
}

/*
 * A twiddled R8 uint 2D multisampled PBE of 2 or 4 samples (cmdbuf.xml
 * "PBE": dimension 4, layout 2, Samples bit 56: 0 two, 1 four)
 */
static void pbe_r8_ms(uint8_t *d, uint32_t w, uint32_t h, uint64_t va,
                      unsigned samples)
{
    uint64_t lo = 4 | 2 << 4 | 0x00 << 6 | 2 << 13 |
                  (uint64_t)(w - 1) << 24 | (uint64_t)(h - 1) << 38 |
                  (uint64_t)(samples == 4) << 56;

    memset(d, 0, 24);
    apple_st64(d, lo);
    apple_st64(d + 8, va >> 4);
}

/*
 * Multisampled programs (@samples 2 or 4): the background program zeroes
 * every sample's I8 counter,
 * the fragment shader stores its coverage mask (the coverage_mask special
 * register, 60) with st_tile to all samples (the hardware keeps it to
 * the covered ones), the end-of-tile program stores the tile into an R8
 * image of @samples samples at IMAGE (block_image_store, dimension 2D MS)
 */
static void coverage_programs(Frag *t, uint32_t w, uint32_t h,
                              unsigned samples)
{
    unsigned log2 = samples == 4 ? 2 : 1;
    Asm a = { 0 };
    uint8_t *p;
    unsigned n;

    mov_imm32(&a, 1, 0);
    tile_i8_all(&a, false, 1);
    footer(&a);
    memcpy(vm(t, BG_CODE, a.n), a.b, a.n);
    p = vm(t, BG_WORDS, 64);
    n = w_shared_tile_ms(p, log2);
    n += w_shader(p + n, BG_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);

    memset(&a, 0, sizeof(a));
    get_sr(&a, 1, 60);
    tile_i8_all(&a, false, 1);
    footer(&a);
    memcpy(vm(t, FS_CODE, a.n), a.b, a.n);
    p = vm(t, FS_WORDS, 64);
    n = w_shader(p, FS_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);

    memset(&a, 0, sizeof(a));
    mov_imm32(&a, 1, 0);
    emit(&a, 0xb1 | 1u << 15 | (F_I8 & 1) << 8 | (2 & 63) << 9 | 1u << 31 |
             (uint64_t)(0 | 4 << 8 | 9u << 11) << 32, (F_I8 >> 1) | 1u << 3,
         10);
    footer(&a);
    memcpy(vm(t, EOT_CODE, a.n), a.b, a.n);
    pbe_r8_ms(vm(t, PBE, 24), w, h, USER_VA + IMAGE, samples);
    p = vm(t, EOT_WORDS, 64);
    n = w_texture(p, 0, 1, USER_VA + PBE);
    n += w_shared_tile_ms(p + n, log2);
    n += w_shader(p + n, EOT_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);
    memset(vm(t, IMAGE, w * h * samples), POISON, w * h * samples);
}

/* Morton index of (x, y) within a power-of-two tile, x in the even bits */
static uint32_t morton(uint32_t x, uint32_t y)
{
    uint32_t m = 0;

    for (int i = 0; i < 8; i++) {
        m |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
    }
    return m;
}

/*
 * Multisampled coverage and depth at the render's sample positions: a
 * 64x64 framebuffer of @samples samples (the Shared words' count), a near
 * triangle (depth 0.3) then a far one (0.6) overlapping it, Less with
 * writes, the depth cleared to 1.0.  CPU reference: sample s of pixel
 * (x, y) lies at (x, y) + position s, byte s of ppp_multisamplectl
 * (@positions; 0: the standard pattern Mesa gives, 0xeaa26e26 for 4,
 * 0x44cc for 2) with x in its low nibble and y in its high one, in 1/16
 * pixel.  Each sample
 * of the image must hold the coverage mask of the triangle that won it
 * (the near one's samples, or the far one's it covers where the near one
 * does not), 0 elsewhere; the depth buffer (zls_ctrl Z store, 32F, ail's
 * layout: a pixel's samples one block, 32x32 tiles of 16-byte blocks,
 * 64x32 of 8-byte ones) each
 * sample's depth; the counting occlusion query the samples that passed.
 * Pixels with a sample on an edge (the fill rule's) are not checked.
 */
static void msaa_coverage(uint32_t positions, unsigned samples)
{
    static const float tri[12] = {
        5.3f, 3.7f, 58.9f, 12.2f, 17.4f, 60.1f,
        29.6f, 1.9f, 62.3f, 49.8f, 3.1f, 44.7f,
    };
    static const float z[2] = { 0.3f, 0.6f };
    uint32_t word = positions ? positions
                    : samples == 4 ? 0xeaa26e26u : 0x44ccu;
    /* the depth buffer's tiles: blocks of 4 x samples bytes */
    uint32_t tw = samples == 4 ? 32 : 64, th = 32;
    uint64_t tilemap, zbuf_off = 0x80000, passed = 0, boundary = 0;
    Frag t;

    frag_init(&t);
    coverage_programs(&t, 64, 64, samples);
    tilemap = write_scene_z(&t, 64, 64, tri, z, 2, FACE_LESS_WRITE, 2u << 14,
                            3u << 17);
    sample_positions = positions;
    frag_submit_scene(&t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { 1u << 19, zbuf_off, 1.0f, OCLQRY, 0 });
    sample_positions = 0;
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    for (uint32_t y = 0; y < 64; y++) {
        for (uint32_t x = 0; x < 64; x++) {
            uint32_t cov[2] = { 0, 0 }, m = morton(x, y);
            bool edge = false;

            for (unsigned s = 0; s < samples; s++) {
                uint32_t b = (word >> (8 * s)) & 0xff;
                double sx = x + (b & 15) / 16.0, sy = y + (b >> 4) / 16.0;

                for (int i = 0; i < 2; i++) {
                    int in = ref_inside(&tri[6 * i], sx, sy);

                    edge |= in == 2;
                    cov[i] |= (uint32_t)(in == 1) << s;
                }
            }
            if (edge) {
                boundary++;
                continue;
            }
            passed += __builtin_popcount(cov[0] | cov[1]);
            for (unsigned s = 0; s < samples; s++) {
                uint32_t want = (cov[0] >> s) & 1 ? cov[0] :
                                (cov[1] >> s) & 1 ? cov[1] & ~cov[0] : 0;
                float zw = (cov[0] >> s) & 1 ? z[0] :
                           (cov[1] >> s) & 1 ? z[1] : 1.0f;
                uint32_t zo = ((y & ~(th - 1)) * 64 + (x & ~(tw - 1)) * th +
                               morton(x & (tw - 1), y & (th - 1))) *
                              4 * samples + 4 * s;

                g_assert_cmpuint(*vm(&t, IMAGE + samples * m + s, 1), ==,
                                 want);
                g_assert_cmphex(apple_ld32(vm(&t, zbuf_off + zo, 4)), ==,
                                fui(zw));
            }
        }
    }
    /* the positions put no sample on an edge: the count is exact */
    g_assert_cmpuint(boundary, ==, 0);
    g_assert_cmpuint(apple_ld64(vm(&t, OCLQRY + 24, 8)), ==, passed);
    fake_free(&t.f);
}

static void test_msaa_standard(void)
{
    msaa_coverage(0, 4);
}

static void test_msaa_custom(void)
{
    /* Vulkan sample locations as Honeykrisp packs them */
    msaa_coverage(0x3ca45b81u, 4);
}

static void test_msaa_2x(void)
{
    msaa_coverage(0, 2);
}

/* --- late depth and stencil tests ------------------------------------- */

/* More fragment shaders: words and code at these offsets */
#define FS2_WORDS       0x100400
#define FS2_CODE        0x104000
#define FS3_WORDS       0x100500
#define FS3_CODE        0x105000

/*
 * sample_mask and zs_emit as Mesa's agx_pack.c packs them: T the target
 * samples, S the live ones (immediates here); zs_emit's values from
 * register half @r (depth: a float in two halves; stencil the next half)
 */
static void sample_mask(Asm *a, unsigned t, unsigned s)
{
    emit(a, 0xc1 | 1u << 8 | (t & 63) << 9 | (t >> 6) << 24 |
            (s & 63) << 16 | 1u << 23 | ((s >> 6) & 3) << 28, 0, 4);
}

static void zs_emit(Asm *a, unsigned t, unsigned r, unsigned zs)
{
    emit(a, 0x41 | 1u << 8 | (t & 63) << 9 | (t >> 6) << 24 |
            (r & 63) << 16 | (r >> 6) << 26 | (uint64_t)zs << 29, 0, 4);
}

/*
 * A fragment shader of @pre's instructions, then count_programs' count,
 * at @words / @code
 */
static void fs_counting(Frag *t, const Asm *pre, uint64_t words,
                        uint64_t code)
{
    Asm a = *pre;
    uint8_t *p;
    unsigned n;

    tile_i8(&a, true, 1);
    iadd(&a, D32(1), R32(1), IMM(1), false, 0, false);
    tile_i8(&a, false, 1);
    footer(&a);
    memcpy(vm(t, code, a.n), a.b, a.n);
    p = vm(t, words, 64);
    n = w_shader(p, code - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);
}

/*
 * A draw: a square [x0, x1) x [y0, y1) at depth z (at x0, growing by dzdx
 * a pixel along x), with this state
 */
typedef struct Draw {
    AgxPppState st;
    float x0, y0, x1, y1, z;
    float dzdx;
    bool back;                  /* its triangles face back */
} Draw;

static uint64_t write_draws(Frag *t, uint32_t w, uint32_t h, const Draw *d,
                            unsigned n)
{
    uint64_t tilemap = fake_alloc(&t->f, 0x4000);
    uint64_t list = fake_alloc(&t->f, 0x4000);
    uint64_t heap = (fake_alloc(&t->f, 0x18000) + 0x7fff) & ~0x7fffULL;
    AgxSceneMem m = { .read = k_read, .write = k_write, .opaque = &t->f };
    AgxSceneWriter wr;
    const char *why;

    for (int i = 0; i < 2; i++) {
        apple_st32(fake_ptr_n(&t->f, list + 4 * i, 4),
                   (uint32_t)((heap + 0x8000 * i) >> 15));
    }
    g_assert_true(agx_scene_begin(&wr, &m, &(AgxSceneTarget) {
        .tilemap_va = tilemap, .tilemap_size = 0x4000,
        .page_list_va = list, .ring_pages = 2, .max_pages = 2,
        .width = w, .height = h, .layers = 1,
    }, &why));
    for (unsigned k = 0; k < n; k++) {
        float v[12], z[2];

        g_assert_true(agx_scene_put_state(&wr, &m, &d[k].st));
        quad(v, z, d[k].x0, d[k].y0, d[k].x1, d[k].y1, d[k].z);
        for (int i = 0; i < 2; i++) {
            AgxScenePrim p = { .kind = AGX_SCENE_TRIANGLE,
                               .front = !d[k].back };

            for (int j = 0; j < 3; j++) {
                p.v[j].x = v[6 * i + 2 * j];
                p.v[j].y = v[6 * i + 2 * j + 1];
                p.v[j].z = d[k].z + d[k].dzdx * (p.v[j].x - d[k].x0);
                p.v[j].rhw = 1;
            }
            g_assert_cmpint(agx_scene_put_prim(&wr, &m, &p), ==, 1);
        }
    }
    g_assert_true(agx_scene_end(&wr, &m));
    return tilemap;
}

/*
 * A state drawing with the fragment shader at @words, depth Less with
 * writes, and Fragment control 2 @fc2 (cmdbuf.xml: pass type 31:29, tag
 * write disable bit 21); a counting occlusion query 0
 */
static AgxPppState zs_state(uint64_t words, uint32_t fc2)
{
    AgxPppState st = {
        .present = AGX_PPP_FRAGMENT_SHADER | AGX_PPP_FRONT_FACE |
                   AGX_PPP_BACK_FACE | AGX_PPP_FRAG_CONTROL |
                   AGX_PPP_FRAG_CONTROL_2 | AGX_PPP_OCCLUSION_QUERY,
        .front_face = FACE_LESS_WRITE, .back_face = FACE_LESS_WRITE,
        .frag_control = 2u << 14, .frag_control_2 = fc2,
    };

    st.fs_word[1] = words - BG_WORDS;
    return st;
}

#define PASS_PUNCH_THROUGH      (2u << 29)
#define TAG_WRITE_DISABLE       (1u << 21)

/* The pixel (@x, @y) of a 64x64 twiddled 32-bit depth buffer at @off */
static float zbuf_at(Frag *t, uint64_t off, unsigned x, unsigned y)
{
    uint32_t m = 0, v;
    float f;

    for (int i = 0; i < 6; i++) {
        m |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
    }
    v = apple_ld32(vm(t, off + 4 * m, 4));
    memcpy(&f, &v, 4);
    return f;
}

static uint8_t sbuf_at(Frag *t, uint64_t off, unsigned x, unsigned y)
{
    uint32_t m = 0;

    for (int i = 0; i < 6; i++) {
        m |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
    }
    return *vm(t, off + m, 1);
}

/*
 * Run the draws on a 64x64 framebuffer, depth cleared to 1.0 and stored;
 * the depth bias array at DBIAS, isp_ctl @isp_ctl
 */
#define DBIAS           0x0300

static void run_draws_ctl(Frag *t, const Draw *d, unsigned n, uint64_t zbuf,
                          uint64_t sbuf, uint32_t isp_ctl)
{
    uint64_t tilemap = write_draws(t, 64, 64, d, n);

    /* zls_ctrl bit 19: Z store, bit 18: S store; format 32F */
    frag_submit_scene(t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { 1u << 19 | (sbuf ? 1u << 18 : 0), zbuf,
                                 1.0f, OCLQRY, sbuf, DBIAS, isp_ctl });
    fake_run(&t->f, 1000);
    g_assert_true(frag_retired(t));
    g_assert_cmpuint(t->f.fault_events, ==, 0);
}

static void run_draws(Frag *t, const Draw *d, unsigned n, uint64_t zbuf,
                      uint64_t sbuf)
{
    run_draws_ctl(t, d, n, zbuf, sbuf, 0);
}

static bool in_sq(unsigned x, unsigned y, unsigned x0, unsigned x1)
{
    return x >= x0 && x < x1 && y >= x0 && y < x1;
}

/*
 * A shader that discards every pixel (sample_mask T=all, S=none), drawn
 * with late tests (punch through) at depth 0.3 over [8, 24): it shades
 * nothing and writes no depth, so a square at 0.6 over [16, 32) drawn
 * after it is shaded everywhere and its depth stored; the occlusion query
 * counts only its pixels.  (Tested before the shader, the discarded
 * square's depth would hide a quarter of the second one.)
 */
static void test_late_discard_keeps_depth(void)
{
    Asm pre = { 0 }, none = { 0 };
    Draw d[2];
    Frag t;

    frag_init(&t);
    count_programs(&t, 64, 64);
    sample_mask(&pre, 0xff, 0);
    fs_counting(&t, &pre, FS2_WORDS, FS2_CODE);
    fs_counting(&t, &none, FS_WORDS, FS_CODE);
    d[0] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    8, 8, 24, 24, 0.3f };
    d[1] = (Draw) { zs_state(FS_WORDS, 0), 16, 16, 32, 32, 0.6f };
    run_draws(&t, d, 2, 0x80000, 0);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool b = in_sq(x, y, 16, 32);

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, b);
            g_assert_cmpfloat(zbuf_at(&t, 0x80000, x, y), ==,
                              b ? 0.6f : 1.0f);
        }
    }
    g_assert_cmpuint(apple_ld64(vm(&t, OCLQRY, 8)), ==, 16 * 16);
    fake_free(&t.f);
}

/*
 * Late tests the shader triggers (sample_mask T=all, S=all) give the
 * early ones' picture: squares at 0.3, 0.6, 0.1 (Less, writes), each
 * shaded where nearer than what is there, the nearest depth stored, the
 * query counting the pixels that passed
 */
static void test_late_tests_order(void)
{
    Asm pre = { 0 };
    uint64_t shaded = 0;
    Draw d[3];
    Frag t;

    frag_init(&t);
    count_programs(&t, 64, 64);
    sample_mask(&pre, 0xff, 0xff);
    fs_counting(&t, &pre, FS2_WORDS, FS2_CODE);
    d[0] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    8, 8, 24, 24, 0.3f };
    d[1] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    16, 16, 32, 32, 0.6f };
    d[2] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    20, 20, 28, 28, 0.1f };
    run_draws(&t, d, 3, 0x80000, 0);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24), b = in_sq(x, y, 16, 32);
            bool c = in_sq(x, y, 20, 28);
            unsigned want = a + (b && !a) + c;

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, want);
            g_assert_cmpfloat(zbuf_at(&t, 0x80000, x, y), ==,
                              c ? 0.1f : a ? 0.3f : b ? 0.6f : 1.0f);
            shaded += want;
        }
    }
    g_assert_cmpuint(apple_ld64(vm(&t, OCLQRY, 8)), ==, shaded);
    fake_free(&t.f);
}

/*
 * zs_emit: a square at interpolated depth 0.5 over [8, 24) whose shader
 * writes depth 0.2 and stencil reference 5 (stencil Always, Replace; the
 * face's reference is 1): its depth is 0.2, so a square at 0.3 over
 * [16, 32) after it is hidden where they overlap; the stored stencil is 5
 * under the first square
 */
static void test_zs_emit_depth_stencil(void)
{
    Asm pre = { 0 }, none = { 0 };
    uint64_t zoff = 0x80000, soff = 0xa0000;
    Draw d[2];
    Frag t;

    frag_init(&t);
    count_programs(&t, 64, 64);
    mov_imm32(&pre, 2, fui(0.2f));
    mov_imm32(&pre, 3, 5);
    zs_emit(&pre, 0xff, 4, 3);
    fs_counting(&t, &pre, FS2_WORDS, FS2_CODE);
    fs_counting(&t, &none, FS_WORDS, FS_CODE);
    d[0] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    8, 8, 24, 24, 0.5f };
    /* Fragment control stencil test; Always, Replace on depth pass */
    d[0].st.frag_control |= 1u << 18;
    d[0].st.present |= AGX_PPP_FRONT_STENCIL | AGX_PPP_BACK_STENCIL;
    d[0].st.front_stencil = d[0].st.back_stencil =
        0xff | 0xff << 8 | 2 << 16 | 7u << 25;
    d[0].st.front_face |= 1;
    d[0].st.back_face |= 1;
    d[1] = (Draw) { zs_state(FS_WORDS, 0), 16, 16, 32, 32, 0.3f };
    run_draws(&t, d, 2, zoff, soff);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24), b = in_sq(x, y, 16, 32);

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, a || b);
            g_assert_cmpfloat(zbuf_at(&t, zoff, x, y), ==,
                              a ? 0.2f : b ? 0.3f : 1.0f);
            g_assert_cmpuint(sbuf_at(&t, soff, x, y), ==, a ? 5 : 0);
        }
    }
    fake_free(&t.f);
}

/*
 * Tag writes disabled (Fragment control 2 bit 21: Mesa's depth-only
 * draws): the square at 0.3 over [8, 24) runs no shader but writes its
 * depth, which hides part of a square at 0.6 over [16, 32)
 */
static void test_depth_only_draw(void)
{
    Asm none = { 0 };
    Draw d[2];
    Frag t;

    frag_init(&t);
    count_programs(&t, 64, 64);
    fs_counting(&t, &none, FS_WORDS, FS_CODE);
    d[0] = (Draw) { zs_state(FS_WORDS, TAG_WRITE_DISABLE),
                    8, 8, 24, 24, 0.3f };
    d[1] = (Draw) { zs_state(FS_WORDS, 0), 16, 16, 32, 32, 0.6f };
    run_draws(&t, d, 2, 0x80000, 0);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24), b = in_sq(x, y, 16, 32);

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, b && !a);
            g_assert_cmpfloat(zbuf_at(&t, 0x80000, x, y), ==,
                              a ? 0.3f : b ? 0.6f : 1.0f);
        }
    }
    fake_free(&t.f);
}

/*
 * A long run of depth-only primitives (tag writes disabled: no shader,
 * no instruction): @n squares over the whole 64x64 framebuffer, each
 * nearer than the one before, then a shaded square at [8, 24) nearer
 * still; it stores the nearest square's depth, the shaded one counted
 * once
 */
#define ZS_RUN          50
#define ZS_SLICE        1024

static void zs_run(Frag *t, uint64_t slice, unsigned n)
{
    g_autofree Draw *d = g_new0(Draw, n + 1);
    Asm none = { 0 };

    frag_init(t);
    t->f.fw.cdm_slice = slice;
    count_programs(t, 64, 64);
    fs_counting(t, &none, FS_WORDS, FS_CODE);
    for (unsigned k = 0; k < n; k++) {
        d[k] = (Draw) { zs_state(FS_WORDS, TAG_WRITE_DISABLE),
                        0, 0, 64, 64, 0.9f - k * 0.002f };
    }
    d[n] = (Draw) { zs_state(FS_WORDS, 0), 8, 8, 24, 24, 0.3f };
    run_draws(t, d, n + 1, 0x80000, 0);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24);

            g_assert_cmpuint(*vm(t, IMAGE + y * 64 + x, 1), ==, a);
            g_assert_cmpfloat(zbuf_at(t, 0x80000, x, y), ==,
                              a ? 0.3f : n ? 0.9f - (n - 1) * 0.002f : 1.0f);
        }
    }
}

/*
 * Each primitive costs AGX_FRAG_PRIM_COST against the slice: in slices
 * of ZS_SLICE instructions (the scene holds no more primitives than
 * this), the 400 triangles of 50 depth-only squares over the four tiles
 * take a slice more at least for every ZS_SLICE / AGX_FRAG_PRIM_COST of
 * them than the job without them, and the job stores what it stores in
 * one slice
 */
static void test_depth_only_slices(void)
{
    Frag ref, base, t;

    zs_run(&ref, 1ULL << 30, ZS_RUN);
    g_assert_cmpuint(ref.f.fw.frag.slices, ==, 1);
    zs_run(&base, ZS_SLICE, 0);
    zs_run(&t, ZS_SLICE, ZS_RUN);
    g_assert_cmpuint(t.f.fw.frag.slices, >=,
                     base.f.fw.frag.slices +
                     4 * 2 * ZS_RUN * AGX_FRAG_PRIM_COST / ZS_SLICE - 1);
    g_assert_cmpmem(vm(&ref, 0x80000, 0x4000), 0x4000,
                    vm(&t, 0x80000, 0x4000), 0x4000);
    g_assert_cmpmem(vm(&ref, IMAGE, 64 * 64), 64 * 64,
                    vm(&t, IMAGE, 64 * 64), 64 * 64);
    fake_free(&ref.f);
    fake_free(&base.f);
    fake_free(&t.f);
}

/*
 * Face words: a back-facing square [8, 24)^2 with the stencil test on but
 * not two-sided tests with the front words (Always, Replace, the front
 * face's reference 3: shaded, stencil 3), the same at [40, 56)^2 with
 * two-sided stencil tests with the back word (Never: not shaded).  The
 * second face word's depth function must pass too: Never at
 * [8, 24) x [40, 56) shades nothing; the second word enabling depth
 * writes (the first disabling them) at [40, 56) x [8, 24) stores 0.4.
 */
static void test_face_words(void)
{
    Asm none = { 0 };
    uint64_t zoff = 0x80000, soff = 0xa0000;
    AgxPppState st;
    Draw d[4];
    Frag t;

    frag_init(&t);
    count_programs(&t, 64, 64);
    fs_counting(&t, &none, FS_WORDS, FS_CODE);
    st = zs_state(FS_WORDS, 0);
    st.present |= AGX_PPP_FRONT_STENCIL | AGX_PPP_BACK_STENCIL;
    /* stencil test; Always, Replace (front); Never (back) */
    st.frag_control |= 1u << 18;
    st.front_stencil = 0xff | 0xff << 8 | 2 << 16 | 7u << 25;
    st.back_stencil = 0xff | 0xff << 8;
    st.front_face = 7u << 24 | 3;
    st.back_face = 7u << 24 | 9;
    d[0] = (Draw) { st, 8, 8, 24, 24, 0.5f, 0, true };
    st.frag_control |= 1u << 19;
    d[1] = (Draw) { st, 40, 40, 56, 56, 0.5f, 0, true };
    st = zs_state(FS_WORDS, 0);
    st.present |= AGX_PPP_FRONT_FACE_2 | AGX_PPP_BACK_FACE_2;
    st.front_face = st.back_face = FACE_ALWAYS_NO_WRITE;
    st.front_face_2 = st.back_face_2 = 1u << 21;     /* Never, no write */
    d[2] = (Draw) { st, 8, 40, 24, 56, 0.5f };
    st.front_face_2 = st.back_face_2 = 7u << 24;     /* Always, writes */
    d[3] = (Draw) { st, 40, 8, 56, 24, 0.4f };
    run_draws(&t, d, 4, zoff, soff);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24);
            bool c = x >= 8 && x < 24 && y >= 40 && y < 56;
            bool e = x >= 40 && x < 56 && y >= 8 && y < 24;

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, a || e);
            g_assert_cmpuint(sbuf_at(&t, soff, x, y), ==, a ? 3 : 0);
            if (c || e) {
                g_assert_cmpfloat(zbuf_at(&t, zoff, x, y), ==,
                                  e ? 0.4f : 1.0f);
            }
        }
    }
    fake_free(&t.f);
}

/* --- depth bias ------------------------------------------------------- */

/* Depth bias record @i (cmdbuf.xml "Depth bias": 12 bytes) */
static void put_dbias(Frag *t, unsigned i, float constant, float slope,
                      float clamp)
{
    apple_st32(vm(t, DBIAS + 12 * i, 4), fui(constant));
    apple_st32(vm(t, DBIAS + 12 * i + 4, 4), fui(slope));
    apple_st32(vm(t, DBIAS + 12 * i + 8, 4), fui(clamp));
}

/* Enable depth bias record @i for a state (Fragment control bit 17) */
static void use_dbias(AgxPppState *st, unsigned i)
{
    st->frag_control |= 1u << 17;
    st->present |= AGX_PPP_DBIAS_SCISSOR;
    st->dbias_scissor = i << 16;
}

/*
 * Depth bias, as GL and Vulkan define it: a square at 0.5 (Less, writes)
 * then the same square biased by constant -4 (float formula: r = 2^-24
 * for depths in [0.5, 1)) passes over it, with its biased depth stored;
 * unbiased, the same draw fails
 */
static void test_dbias_constant(void)
{
    Asm none = { 0 };
    Draw d[3];
    Frag t;

    frag_init(&t);
    count_programs(&t, 64, 64);
    fs_counting(&t, &none, FS_WORDS, FS_CODE);
    put_dbias(&t, 1, -4, 0, 0);
    d[0] = (Draw) { zs_state(FS_WORDS, 0), 8, 8, 24, 24, 0.5f };
    d[1] = (Draw) { zs_state(FS_WORDS, 0), 8, 8, 16, 24, 0.5f };
    d[2] = (Draw) { zs_state(FS_WORDS, 0), 16, 8, 24, 24, 0.5f };
    use_dbias(&d[1].st, 1);
    run_draws(&t, d, 3, 0x80000, 0);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24), left = a && x < 16;

            g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==, a + left);
            g_assert_cmpfloat(zbuf_at(&t, 0x80000, x, y), ==,
                              left ? 0.5f - 4 * ldexpf(1, -24) :
                              a ? 0.5f : 1.0f);
        }
    }
    fake_free(&t.f);
}

/*
 * Slope-scaled bias and its clamp: a square whose depth grows 1/64 a
 * pixel along x, then the same square 1/128 deeper; biased by slope
 * scale -1 (o = -1/64) it passes everywhere and its depth is the first
 * one's minus 1/128, clamped to -1/256 it fails everywhere; with
 * isp_ctl's integer bias the constant is a depth: -1/64 passes too
 */
static void test_dbias_slope_clamp(void)
{
    static const struct {
        float constant, slope, clamp;
        uint32_t isp_ctl;
        bool pass;
    } cases[] = {
        { 0, -1, 0, 0, true },
        { 0, -1, -1.0f / 256, 0, false },
        { -1.0f / 64, 0, 0, 1u << 18, true },
        { -1.0f / 64, 0, 0, 0, false },
    };

    for (unsigned k = 0; k < G_N_ELEMENTS(cases); k++) {
        Asm none = { 0 };
        Draw d[2];
        Frag t;

        frag_init(&t);
        count_programs(&t, 64, 64);
        fs_counting(&t, &none, FS_WORDS, FS_CODE);
        put_dbias(&t, 0, cases[k].constant, cases[k].slope, cases[k].clamp);
        d[0] = (Draw) { zs_state(FS_WORDS, 0), 8, 8, 40, 40, 0.25f,
                        1.0f / 64 };
        d[1] = d[0];
        d[1].z += 1.0f / 128;
        use_dbias(&d[1].st, 0);
        run_draws_ctl(&t, d, 2, 0x80000, 0, cases[k].isp_ctl);
        for (unsigned y = 0; y < 64; y++) {
            for (unsigned x = 0; x < 64; x++) {
                bool a = in_sq(x, y, 8, 40);
                double z0 = 0.25 + (x + 0.5 - 8) / 64;
                double want = z0 - cases[k].pass / 128.0;

                g_assert_cmpuint(*vm(&t, IMAGE + y * 64 + x, 1), ==,
                                 a + (a && cases[k].pass));
                if (a) {
                    g_assert_cmpfloat_with_epsilon(
                        zbuf_at(&t, 0x80000, x, y), want, 1.0 / (1 << 20));
                }
            }
        }
        fake_free(&t.f);
    }
}

/* --- layers ------------------------------------------------------------ */

/* A linear R8 uint 2D array PBE (extended: layers, layer stride) */
static void pbe_r8_array(uint8_t *d, uint32_t w, uint32_t h, uint64_t va,
                         uint32_t stride, uint32_t layers, uint32_t lstride)
{
    pbe_r8(d, w, h, va, stride);
    /* dimension 2D array; Extended (bit 127) */
    apple_st64(d, (apple_ld64(d) & ~0xfull) | 3);
    apple_st64(d + 8, apple_ld64(d + 8) | 1ull << 63);
    /* Depth (linear) 138:128, minus 1; Layer stride (linear) 165:139 */
    apple_st64(d + 16, (uint64_t)(layers - 1) |
                       (uint64_t)((lstride - 0x80) >> 7) << 11);
}

/*
 * A layered render: a scene of 3 layers (64x64) drawn with
 * count_programs' shaders, the end-of-tile program storing layer sr2
 * (the tile's layer: Mesa's load_layer_id) of a linear R8 2D array.
 * Layer 0: a square at depth 0.3 over [8, 24); layer 1: one over
 * [16, 32); then in each layer a square at 0.6 over [0, 32) (Less): each
 * layer is shaded by its own primitives and hidden by its own depth, and
 * its depth is stored a layer stride apart (the stride word as Mesa packs
 * it: (16 KiB pages - 1) << 14 | 1)
 */
static void test_layers(void)
{
    const unsigned layers = 3, lstride = 64 * 64;
    const uint64_t zoff = 0x80000;
    uint64_t tilemap;
    AgxSceneMem m = { .read = k_read, .write = k_write };
    AgxPppState st = zs_state(FS_WORDS, 0);
    uint64_t list, heap;
    AgxSceneWriter wr;
    const char *why;
    Asm a = { 0 };
    uint8_t *p;
    unsigned n;
    Frag t;

    frag_init(&t);
    m.opaque = &t.f;
    count_programs(&t, 64, 64);
    get_sr(&a, 0, 2);
    mov_imm32(&a, 1, 0);
    block_store_dim(&a, F_I8, 2, 0, 3);
    footer(&a);
    memcpy(vm(&t, EOT_CODE, a.n), a.b, a.n);
    pbe_r8_array(vm(&t, PBE, 24), 64, 64, USER_VA + IMAGE, 64, layers,
                 lstride);
    memset(vm(&t, IMAGE, lstride * layers), POISON, lstride * layers);
    p = vm(&t, EOT_WORDS, 64);
    n = w_texture(p, 0, 1, USER_VA + PBE);
    n += w_shared_tile(p + n, 0x2f, 32 * 32);
    n += w_shader(p + n, EOT_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);

    tilemap = fake_alloc(&t.f, 0x4000);
    list = fake_alloc(&t.f, 0x4000);
    heap = (fake_alloc(&t.f, 0x18000) + 0x7fff) & ~0x7fffULL;
    for (int i = 0; i < 2; i++) {
        apple_st32(fake_ptr_n(&t.f, list + 4 * i, 4),
                   (uint32_t)((heap + 0x8000 * i) >> 15));
    }
    g_assert_true(agx_scene_begin(&wr, &m, &(AgxSceneTarget) {
        .tilemap_va = tilemap, .tilemap_size = 0x4000,
        .page_list_va = list, .ring_pages = 2, .max_pages = 2,
        .width = 64, .height = 64, .layers = layers,
    }, &why));
    g_assert_true(agx_scene_put_state(&wr, &m, &st));
    for (unsigned k = 0; k < 2 + layers; k++) {
        float v[12], z[2];
        unsigned layer = k < 2 ? k : k - 2;

        if (k < 2) {
            quad(v, z, 8 + 8 * k, 8 + 8 * k, 24 + 8 * k, 24 + 8 * k, 0.3f);
        } else {
            quad(v, z, 0, 0, 32, 32, 0.6f);
        }
        for (int i = 0; i < 2; i++) {
            AgxScenePrim pr = { .kind = AGX_SCENE_TRIANGLE, .front = true,
                                .layer = layer };

            for (int j = 0; j < 3; j++) {
                pr.v[j].x = v[6 * i + 2 * j];
                pr.v[j].y = v[6 * i + 2 * j + 1];
                pr.v[j].z = z[0];
                pr.v[j].rhw = 1;
            }
            g_assert_cmpint(agx_scene_put_prim(&wr, &m, &pr), ==, 1);
        }
    }
    g_assert_true(agx_scene_end(&wr, &m));
    /* layers of 0x8000 bytes: 2 pages of 16 KiB */
    frag_submit_scene(&t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { .zls_ctrl = 1u << 19, .z_store = zoff,
                                 .clear = 1.0f, .z_stride = 1 << 14 | 1 });
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    g_assert_cmpuint(t.f.fw.frag.tiles, ==, 4 * layers);
    for (unsigned l = 0; l < layers; l++) {
        for (unsigned y = 0; y < 64; y++) {
            for (unsigned x = 0; x < 64; x++) {
                bool own = l < 2 && in_sq(x, y, 8 + 8 * l, 24 + 8 * l);
                bool big = x < 32 && y < 32;

                g_assert_cmpuint(*vm(&t, IMAGE + l * lstride + y * 64 + x,
                                     1), ==, own + (big && !own));
                g_assert_cmpfloat(zbuf_at(&t, zoff + l * 0x8000, x, y), ==,
                                  own ? 0.3f : big ? 0.6f : 1.0f);
            }
        }
    }
    fake_free(&t.f);
}

/* --- multisampling with late tests ---------------------------------- */

/*
 * Late tests per sample, 4x: a punch-through shader kills samples 0 and
 * 2 (sample_mask T = 0x5, S = 0), then triggers the tests of the others
 * (T = all, S = all) and stores its coverage_mask; drawn at depth 0.3 over
 * a triangle, then an early-tested triangle at 0.6 over it storing its
 * own.  Each sample must hold: the first's live coverage where it covers
 * samples 1 or 3, else the second's coverage (where the first killed its
 * samples 0 and 2 it wrote no depth, so the second passes there), else
 * 0; each sample's depth 0.3, 0.6 or 1.0 accordingly; the query counts
 * the samples that passed (the late ones the shader triggered too)
 */
static void test_msaa_late(void)
{
    static const float tri[12] = {
        5.3f, 3.7f, 58.9f, 12.2f, 17.4f, 60.1f,
        29.6f, 1.9f, 62.3f, 49.8f, 3.1f, 44.7f,
    };
    const uint32_t word = 0xeaa26e26u;
    uint64_t tilemap = 0, list, heap, zbuf_off = 0x80000, passed = 0;
    AgxSceneMem m = { .read = k_read, .write = k_write };
    AgxSceneWriter wr;
    AgxPppState st[2];
    const char *why;
    Asm a = { 0 };
    uint8_t *p;
    unsigned n;
    Frag t;

    frag_init(&t);
    m.opaque = &t.f;
    coverage_programs(&t, 64, 64, 4);
    sample_mask(&a, 0x5, 0);
    sample_mask(&a, 0xff, 0xff);
    get_sr(&a, 1, 60);
    tile_i8_all(&a, false, 1);
    footer(&a);
    memcpy(vm(&t, FS2_CODE, a.n), a.b, a.n);
    p = vm(&t, FS2_WORDS, 64);
    n = w_shader(p, FS2_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    w_no_preshader(p + n);
    st[0] = zs_state(FS2_WORDS, PASS_PUNCH_THROUGH);
    st[1] = zs_state(FS_WORDS, 0);
    tilemap = fake_alloc(&t.f, 0x4000);
    list = fake_alloc(&t.f, 0x4000);
    heap = (fake_alloc(&t.f, 0x18000) + 0x7fff) & ~0x7fffULL;
    for (int i = 0; i < 2; i++) {
        apple_st32(fake_ptr_n(&t.f, list + 4 * i, 4),
                   (uint32_t)((heap + 0x8000 * i) >> 15));
    }
    g_assert_true(agx_scene_begin(&wr, &m, &(AgxSceneTarget) {
        .tilemap_va = tilemap, .tilemap_size = 0x4000,
        .page_list_va = list, .ring_pages = 2, .max_pages = 2,
        .width = 64, .height = 64, .layers = 1,
    }, &why));
    for (int i = 0; i < 2; i++) {
        AgxScenePrim pr = { .kind = AGX_SCENE_TRIANGLE, .front = true };

        g_assert_true(agx_scene_put_state(&wr, &m, &st[i]));
        for (int k = 0; k < 3; k++) {
            pr.v[k].x = tri[6 * i + 2 * k];
            pr.v[k].y = tri[6 * i + 2 * k + 1];
            pr.v[k].z = i ? 0.6f : 0.3f;
            pr.v[k].rhw = 1;
        }
        g_assert_cmpint(agx_scene_put_prim(&wr, &m, &pr), ==, 1);
    }
    g_assert_true(agx_scene_end(&wr, &m));
    sample_positions = word;
    frag_submit_scene(&t, 64, 64, 0, EOT_WORDS - BG_WORDS, tilemap,
                      &(FragZ) { 1u << 19, zbuf_off, 1.0f, OCLQRY, 0 });
    sample_positions = 0;
    fake_run(&t.f, 1000);
    g_assert_true(frag_retired(&t));
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    for (uint32_t y = 0; y < 64; y++) {
        for (uint32_t x = 0; x < 64; x++) {
            uint32_t cov[2] = { 0, 0 }, live, second, mo = morton(x, y);
            bool edge = false;

            for (unsigned s = 0; s < 4; s++) {
                uint32_t b = (word >> (8 * s)) & 0xff;

                for (int i = 0; i < 2; i++) {
                    int in = ref_inside(&tri[6 * i], x + (b & 15) / 16.0,
                                        y + (b >> 4) / 16.0);

                    edge |= in == 2;
                    cov[i] |= (uint32_t)(in == 1) << s;
                }
            }
            g_assert_false(edge);
            live = cov[0] & 0xa;
            second = cov[1] & ~live;
            passed += __builtin_popcount(live | second);
            for (unsigned s = 0; s < 4; s++) {
                uint32_t want = (live >> s) & 1 ? live :
                                (second >> s) & 1 ? second : 0;
                float zw = (live >> s) & 1 ? 0.3f :
                           (second >> s) & 1 ? 0.6f : 1.0f;
                uint32_t zo = ((y & ~31u) * 64 + (x & ~31u) * 32 +
                               morton(x & 31, y & 31)) * 16 + 4 * s;

                g_assert_cmpuint(*vm(&t, IMAGE + 4 * mo + s, 1), ==, want);
                g_assert_cmphex(apple_ld32(vm(&t, zbuf_off + zo, 4)), ==,
                                fui(zw));
            }
        }
    }
    g_assert_cmpuint(apple_ld64(vm(&t, OCLQRY, 8)), ==, passed);
    fake_free(&t.f);
}

/* --- tiles in slices ------------------------------------------------ */

/*
 * A loop adding 1 to r@acc and to r2 each iteration until r2 reaches
 * @n (r3 the bound; r0l the nesting counter), then r@acc -= r2: r@acc
 * is what it was only if the registers, the execution mask and the
 * nesting counter survive every suspension in the loop's middle
 */
static void add_loop(Asm *a, unsigned acc, uint32_t n)
{
    uint32_t body;

    mov_imm32(a, 2, 0);
    mov_imm32(a, 3, n);
    PUSH_EXEC(a, 1);
    body = a->n;
    iadd(a, D32(acc), R32(acc), IMM(1), false, 0, false);
    iadd(a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(a, 1, 1, false, R32(2), R32(3));
    jmp(a, false, body - a->n);
    pop_exec(a, 1);
    iadd(a, D32(acc), R32(acc), R32(2), true, 0, false);
}

/*
 * A preamble at @code that loops 7 times, then stores @value into 32-bit
 * uniform 20 (and 0 into 21)
 */
static void looping_preamble(Frag *t, uint64_t code, uint32_t value)
{
    Asm a = { 0 };

    mov_imm32(&a, 1, 0);
    add_loop(&a, 1, 7);
    iadd(&a, D32(1), R32(1), IMM(value), false, 0, false);
    mov_imm32(&a, 2, 0);
    a.n += agx_cmd_op_uniform_store4(a.b + a.n, 2, 40);
    footer(&a);
    memcpy(vm(t, code, a.n), a.b, a.n);
}

/*
 * count_programs' programs and a fragment shader (at FS2) with late
 * tests (sample_mask T=all, S=all), each looping: the background program
 * 9 times, the fragment shader 6, the end-of-tile program 5; the
 * background program and the fragment shader add uniform 20, which their
 * preambles (looping too) set to 0 and 1
 */
static void looping_programs(Frag *t)
{
    Asm a = { 0 };
    uint8_t *p;
    unsigned n;

    count_programs(t, 64, 64);
    mov_imm32(&a, 1, 0);
    add_loop(&a, 1, 9);
    iadd(&a, D32(1), R32(1), U32(20), false, 0, false);
    tile_i8(&a, false, 1);
    footer(&a);
    memcpy(vm(t, BG_CODE, a.n), a.b, a.n);
    looping_preamble(t, FS3_CODE, 0);
    p = vm(t, BG_WORDS, 64);
    n = w_shared_tile(p, 0x2f, 32 * 32);
    n += w_shader(p + n, BG_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    n += agx_cmd_usc_preshader(p + n, FS3_CODE - BG_WORDS);

    memset(&a, 0, sizeof(a));
    sample_mask(&a, 0xff, 0xff);
    tile_i8(&a, true, 1);
    add_loop(&a, 1, 6);
    iadd(&a, D32(1), R32(1), U32(20), false, 0, false);
    tile_i8(&a, false, 1);
    footer(&a);
    memcpy(vm(t, FS2_CODE, a.n), a.b, a.n);
    looping_preamble(t, FS3_CODE + 0x400, 1);
    p = vm(t, FS2_WORDS, 64);
    n = w_shader(p, FS2_CODE - BG_WORDS);
    n += w_registers(p + n, 16);
    agx_cmd_usc_preshader(p + n, FS3_CODE + 0x400 - BG_WORDS);

    memset(&a, 0, sizeof(a));
    mov_imm32(&a, 1, 0);
    add_loop(&a, 1, 5);
    block_store(&a, F_I8, 2, 0);
    footer(&a);
    memcpy(vm(t, EOT_CODE, a.n), a.b, a.n);
}

/* What a looping render left: image, depth buffer, occlusion result */
#define SPLIT_Z         0x80000
/* A lane of a tile in flight outside the tile (x = 40) */
#define FRAG_LANE_BAD   40

typedef struct SplitOut {
    uint8_t image[64 * 64];
    uint8_t z[64 * 64 * 4];
    uint64_t oq;
    uint64_t slices, suspensions;
} SplitOut;

/*
 * test_late_tests_order's squares at 0.3, 0.6, 0.1 with the looping
 * programs, in slices of @slice instructions
 */
static void split_submit(Frag *t, uint64_t slice)
{
    Draw d[3];

    frag_init(t);
    t->f.fw.cdm_slice = slice;
    looping_programs(t);
    d[0] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    8, 8, 24, 24, 0.3f };
    d[1] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    16, 16, 40, 40, 0.6f };
    d[2] = (Draw) { zs_state(FS2_WORDS, PASS_PUNCH_THROUGH),
                    20, 20, 28, 28, 0.1f };
    frag_submit_scene(t, 64, 64, 0, EOT_WORDS - BG_WORDS,
                      write_draws(t, 64, 64, d, 3),
                      &(FragZ) { 1u << 19, SPLIT_Z, 1.0f, OCLQRY });
}

/* Run the job of split_submit to its end: what it left into @out */
static void split_finish(Frag *t, SplitOut *out)
{
    fake_run(&t->f, 1000000);
    g_assert_false(fake_crashed(&t->f));
    g_assert_true(frag_retired(t));
    g_assert_cmpuint(t->f.fault_events, ==, 0);
    g_assert_cmpuint(t->f.fw.frag.tiles, ==, 4);
    g_assert_cmpuint(t->f.fw.frag.tile.phase, ==, AGX_FRAG_PHASE_NONE);
    memcpy(out->image, vm(t, IMAGE, sizeof(out->image)), sizeof(out->image));
    memcpy(out->z, vm(t, SPLIT_Z, sizeof(out->z)), sizeof(out->z));
    out->oq = apple_ld64(vm(t, OCLQRY, 8));
    out->slices = t->f.fw.frag.slices;
    out->suspensions = t->f.fw.frag.suspensions;
    fake_free(&t->f);
}

static void split_render(uint64_t slice, SplitOut *out)
{
    Frag t;

    split_submit(&t, slice);
    split_finish(&t, out);
}

/*
 * A render whose programs, preambles and fragment shader loop, run whole
 * (one slice) and in slices of 1, 5, 9 and 37 instructions: every slice
 * but the whole one ends inside SIMD-groups of every phase, and each
 * leaves the same bytes, the CPU's picture (count per pixel, nearest
 * depth, samples that passed)
 */
static void test_split_tiles(void)
{
    static const uint64_t slices[] = { 1, 5, 9, 37 };
    g_autofree SplitOut *whole = g_new0(SplitOut, 1);
    g_autofree SplitOut *split = g_new0(SplitOut, 1);
    Frag ref;
    uint64_t shaded = 0;

    split_render(1ULL << 30, whole);
    g_assert_cmpuint(whole->slices, ==, 1);
    g_assert_cmpuint(whole->suspensions, ==, 0);
    frag_init(&ref);
    for (unsigned y = 0; y < 64; y++) {
        for (unsigned x = 0; x < 64; x++) {
            bool a = in_sq(x, y, 8, 24), b = in_sq(x, y, 16, 40);
            bool c = in_sq(x, y, 20, 28);
            unsigned want = a + (b && !a) + c;
            float z = c ? 0.1f : a ? 0.3f : b ? 0.6f : 1.0f;
            uint32_t m = 0, zb;

            g_assert_cmpuint(whole->image[y * 64 + x], ==, want);
            for (int i = 0; i < 6; i++) {
                m |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1);
            }
            memcpy(&zb, &z, 4);
            g_assert_cmphex(apple_ld32(whole->z + 4 * m), ==, zb);
            shaded += want;
        }
    }
    fake_free(&ref.f);
    g_assert_cmpuint(whole->oq, ==, shaded);
    for (unsigned i = 0; i < G_N_ELEMENTS(slices); i++) {
        split_render(slices[i], split);
        g_assert_cmpmem(split->image, sizeof(split->image), whole->image,
                        sizeof(whole->image));
        g_assert_cmpmem(split->z, sizeof(split->z), whole->z,
                        sizeof(whole->z));
        g_assert_cmpuint(split->oq, ==, whole->oq);
        g_assert_cmpuint(split->suspensions, >, 100);
        g_assert_cmpuint(split->slices, >, split->suspensions);
    }
}

/*
 * Migration in the middle of a fragment shader's SIMD-group (its program
 * dropped, as an incoming migration does): the render goes on with the
 * same bytes and slices; a tile in flight that does not fit its job is
 * refused
 */
static void test_split_migrate(void)
{
    g_autofree SplitOut *whole = g_new0(SplitOut, 1);
    g_autofree SplitOut *split = g_new0(SplitOut, 1);
    AgxFragTile *ft;
    Frag t;

    split_submit(&t, 37);
    split_finish(&t, whole);
    split_submit(&t, 37);
    ft = &t.f.fw.frag.tile;
    fake_advance(&t.f, AGX_FW_DEFAULT_JOB_NS - 1);
    for (int i = 0; i < 100000 && !(ft->in_prim && ft->group.nsimd &&
                                    t.f.fw.frag.suspensions > 50); i++) {
        fake_advance(&t.f, AGX_FRAG_SLICE_NS);
    }
    g_assert_true(ft->in_prim);
    g_assert_cmpuint(ft->group.nsimd, ==, 1);
    g_assert_null(agx_fw_post_load(&t.f.fw));
#define REJECTS(field, bad, why) do {                                   \
        typeof(field) keep = field;                                     \
                                                                        \
        field = bad;                                                    \
        g_assert_nonnull(strstr(agx_fw_post_load(&t.f.fw) ?: "", why)); \
        field = keep;                                                   \
    } while (0)
    REJECTS(ft->phase, 7, "tile in flight");
    REJECTS(ft->nmem, 16, "tile in flight");
    REJECTS(ft->nquads, ft->nquad_room + 1, "tile in flight");
    REJECTS(ft->quads[ft->next], FRAG_LANE_BAD, "lanes");
    REJECTS(ft->next, ft->nquads, "primitive");
    REJECTS(ft->prog, AGX_FRAG_PROG_READY, "program");
    REJECTS(ft->group.limit, AGX_FRAG_TILE_BUDGET + 1, "SIMD-group");
    REJECTS(ft->group.nsimd, 2, "SIMD-group");
    REJECTS(ft->group.simd[0].nr, 4, "SIMD-group");
    REJECTS(t.f.fw.frag.active, false, "without a job");
#undef REJECTS
    /* what an incoming migration leaves: the program to fetch again */
    agx_frag_tile_loaded(&t.f.fw.frag);
    g_assert_null(agx_fw_post_load(&t.f.fw));
    split_finish(&t, split);
    g_assert_cmpmem(split->image, sizeof(split->image), whole->image,
                    sizeof(whole->image));
    g_assert_cmpmem(split->z, sizeof(split->z), whole->z, sizeof(whole->z));
    g_assert_cmpuint(split->oq, ==, whole->oq);
    g_assert_cmpuint(split->slices, ==, whole->slices);
}

/*
 * A background program that never ends, in slices: it is stopped at its
 * SIMD-group's limit (AGX_FRAG_TILE_BUDGET) across the slices it was
 * suspended in, the job hangs, and the tile in flight is gone
 */
static void test_split_runaway(void)
{
    static const float rgba[4] = { 0.2f, 0.4f, 0.6f, 1.0f };
    Asm a = { 0 };
    Frag t;

    frag_init(&t);
    t.f.fw.cdm_slice = 1 << 16;
    clear_programs(&t, rgba, 40, 20, 176, 0x2f, 32 * 32);
    jmp(&a, false, 0);
    memcpy(vm(&t, BG_CODE, a.n), a.b, a.n);
    frag_submit(&t, 40, 20, 0, EOT_WORDS - BG_WORDS);
    fake_advance(&t.f, AGX_FW_DEFAULT_JOB_NS + 10 * AGX_FRAG_SLICE_NS);
    g_assert_cmpuint(t.f.fw.frag.suspensions, >=, 10);
    g_assert_cmpuint(t.f.fw.frag.tile.phase, ==,
                     AGX_FRAG_PHASE_BACKGROUND);
    g_assert_nonnull(t.f.fw.frag.tile.group.simd);
    fake_run(&t.f, 100000);
    g_assert_true(fake_has_error(&t.f, "it hangs"));
    g_assert_false(t.f.fw.frag.active);
    g_assert_cmpuint(t.f.fw.frag.tile.phase, ==, AGX_FRAG_PHASE_NONE);
    g_assert_null(t.f.fw.frag.tile.group.simd);
    g_assert_null(t.f.fw.frag.tile.mem);
    g_assert_cmpuint(t.f.fw.frag.suspensions, <=,
                     AGX_FRAG_TILE_BUDGET / (1 << 16) + 1);
    g_assert_false(frag_retired(&t));
    fake_free(&t.f);
}

/* A stop (a reset of the firmware) drops the tile in flight */
static void test_split_stop(void)
{
    static const float rgba[4] = { 0.2f, 0.4f, 0.6f, 1.0f };
    Asm a = { 0 };
    Frag t;

    frag_init(&t);
    t.f.fw.cdm_slice = 64;
    clear_programs(&t, rgba, 40, 20, 176, 0x2f, 32 * 32);
    jmp(&a, false, 0);
    memcpy(vm(&t, BG_CODE, a.n), a.b, a.n);
    frag_submit(&t, 40, 20, 0, EOT_WORDS - BG_WORDS);
    fake_advance(&t.f, AGX_FW_DEFAULT_JOB_NS + 3 * AGX_FRAG_SLICE_NS);
    g_assert_nonnull(t.f.fw.frag.tile.group.simd);
    agx_frag_stop(&t.f.fw);
    g_assert_false(t.f.fw.frag.active);
    g_assert_null(t.f.fw.frag.tile.group.simd);
    g_assert_null(t.f.fw.frag.tile.mem);
    g_assert_cmpuint(t.f.fw.frag.tile.phase, ==, AGX_FRAG_PHASE_NONE);
    fake_free(&t.f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/frag/clear/two-tiles-exact", test_clear);
    g_test_add_func("/frag/clear/sliced-16x16-tiles", test_sliced);
    g_test_add_func("/frag/fault/bad-background-words", test_bad_words);
    g_test_add_func("/frag/none/without-end-of-tile", test_no_programs);
    g_test_add_func("/frag/raster/top-left-rule-shared-edges",
                    test_raster_rules);
    g_test_add_func("/frag/depth/less-with-writes-and-z-store", test_depth);
    g_test_add_func("/frag/depth/z-and-s-load-store-whole-and-clipped-tiles",
                    test_zs_load_store);
    g_test_add_func("/frag/stencil/replace-then-equal-and-s-store",
                    test_stencil);
    g_test_add_func("/frag/late/discard-writes-no-depth",
                    test_late_discard_keeps_depth);
    g_test_add_func("/frag/late/sample-mask-tests-in-order",
                    test_late_tests_order);
    g_test_add_func("/frag/late/zs-emit-depth-and-stencil",
                    test_zs_emit_depth_stencil);
    g_test_add_func("/frag/depth/tag-writes-disabled-depth-only",
                    test_depth_only_draw);
    g_test_add_func("/frag/depth/depth-only-run-takes-slices",
                    test_depth_only_slices);
    g_test_add_func("/frag/stencil/one-and-two-sided-and-face-2",
                    test_face_words);
    g_test_add_func("/frag/dbias/constant-float-formula",
                    test_dbias_constant);
    g_test_add_func("/frag/dbias/slope-clamp-and-integer",
                    test_dbias_slope_clamp);
    g_test_add_func("/frag/layers/per-layer-tiles-depth-and-eot",
                    test_layers);
    g_test_add_func("/frag/recorded/gallium-clear-programs",
                    test_recorded_clear);
    g_test_add_func("/frag/msaa/4x-coverage-depth-standard-positions",
                    test_msaa_standard);
    g_test_add_func("/frag/msaa/4x-coverage-depth-custom-positions",
                    test_msaa_custom);
    g_test_add_func("/frag/msaa/2x-coverage-depth-standard-positions",
                    test_msaa_2x);
    g_test_add_func("/frag/msaa/late-tests-per-sample", test_msaa_late);
    g_test_add_func("/frag/split/looping-programs-any-slice-same-bytes",
                    test_split_tiles);
    g_test_add_func("/frag/split/runaway-stops-at-group-limit",
                    test_split_runaway);
    g_test_add_func("/frag/split/stop-drops-the-tile", test_split_stop);
    g_test_add_func("/frag/split/migrated-mid-shader-goes-on",
                    test_split_migrate);
    return g_test_run();
}
