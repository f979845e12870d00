/*
 * Unit tests of the vertex data master (agx-vdm.c): vertex jobs whose VDM
 * control streams, PPP updates, USC control words and vertex shaders are
 * encoded here by hand from the bit tables (Mesa's cmdbuf.xml for the VDM
 * and PPP words; the reference notes, agx-shaders.md 1.4 and 3, and
 * agx_pack.c's st_vary layout for the shader), run by the in-process
 * firmware on fake RAM.  The binned scene they leave in the render's
 * tilemap and TVB pages is read back with the scene reader and checked
 * against what the stream draws, computed here.
 *
 * The shaders make their positions out of the vertex id: indexed draws
 * whose index values are the bit patterns of floats, so r5 holds x; y is
 * x * x (fmul), z 0, w 1 (or w = x for the clipping test).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include "agx-fake.h"
#include "usc-asm.h"
#include "hw/agx/agx-scene.h"
#include "hw/agx/agx-tvb.h"
#include "hw/agx/agx-vdm.h"

/* The user VM: slot 1 */
#define VM_SLOT         1
#define USER_VA         0x1000000000ULL
#define USER_SIZE       0x40000
#define USC_BASE        (USER_VA + 0x20000)
#define STREAM          0x0000
#define STREAM2         0x1000
#define PPP             0x2000
#define INDICES         0x3000
#define INDIRECT        0x3800
#define PIPE            0x20000         /* USC offset 0 */
#define CODE            0x20100         /* USC offset 0x100 */
#define EV_SLOT         3
/* The render: 64 x 64, one layer; its TVB: 4 pages of 32 KiB */
#define WIDTH           64
#define HEIGHT          64
#define NPAGES          4

/* VDM words (cmdbuf.xml "VDM commands") */
#define VDM_TYPE(t)             ((uint32_t)(t) << 29)
#define IDX_PRIM(p)             ((uint32_t)(p) << 8)
#define IDX_RESTART             (1u << 16)
#define IDX_SIZE(s)             ((uint32_t)(s) << 17)
#define IDX_BUFFER_SIZE         (1u << 20)
#define IDX_BUFFER              (1u << 21)
#define IDX_COUNT               (1u << 22)
#define IDX_INSTANCES           (1u << 23)
#define IDX_START               (1u << 24)
#define IDX_INDIRECT            (1u << 26)
#define PRIM_POINTS             0
#define PRIM_TRIANGLES          6
#define PRIM_TRIANGLE_STRIP     9
#define PRIM_TRIANGLE_FAN       11
/* PPP header bits */
#define H_VIEWPORT              (1u << 11)
#define H_VARYINGS_32           (1u << 18)
#define H_CULL                  (1u << 21)

typedef struct Vdm {
    Fake f;
    FakeQueue q;
    uint64_t kva;               /* the user VM's backing memory */
    uint64_t tilemap, info, pages, plist, scene, stats, ctl;
    uint64_t rec;
    AgxSceneMem mem;
} Vdm;

static void put32(Vdm *t, uint64_t off, uint32_t v)
{
    apple_st32(fake_ptr_n(&t->f, t->kva + off, 4), v);
}

static uint32_t fbits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static bool mem_read(void *opaque, uint64_t va, void *buf, uint32_t len)
{
    Vdm *t = opaque;

    if (!fake_va_ok(va, len)) {
        return false;
    }
    memcpy(buf, fake_ptr_n(&t->f, va, len), len);
    return true;
}

static bool mem_write(void *opaque, uint64_t va, const void *buf,
                      uint32_t len)
{
    return false;
}

/*
 * The vertex shader: outputs 0..3 the position (x = r5, y = r5 * r5,
 * z = 0, w = 1.0; or for clipping x = r5 * r5, y = 1.0, z = 0, w = r5),
 * output 4 = x, output 5 = the instance id
 */
static void put_shader(Vdm *t, bool w_is_x)
{
    uint8_t *p = fake_ptr_n(&t->f, t->kva + CODE, 64);
    /* Source slot of a 32-bit GPR given by its half index, hint none */
    uint64_t r5 = 10 | 9u << 6;
    uint64_t fmul = 0x1a | 1u << 8 | 4u << 9 | 1u << 15 | r5 << 16 |
                    r5 << 28;
    /* mov_imm32 r3, 1.0 (6 bytes, L clear) */
    uint64_t mov = 0x62 | 1u << 8 | 6u << 9 | (uint64_t)fbits(1) << 16;
    unsigned n = 0;
    /* st_vary: value half, output index (immediate) */
    static const unsigned outs[2][6][2] = {
        { { 10, 0 }, { 4, 1 }, { 8, 2 }, { 6, 3 }, { 10, 4 }, { 12, 5 } },
        { { 4, 0 }, { 6, 1 }, { 8, 2 }, { 10, 3 }, { 10, 4 }, { 12, 5 } },
    };

    for (int i = 0; i < 6; i++) {
        p[n++] = fmul >> (8 * i);
    }
    for (int i = 0; i < 6; i++) {
        p[n++] = mov >> (8 * i);
    }
    for (int i = 0; i < 6; i++) {
        unsigned r = outs[w_is_x][i][0];
        uint32_t sv = 0x11 | (i == 5 ? 1u << 7 : 0) | (r & 0x3f) << 9 |
                      (outs[w_is_x][i][1] & 0x3f) << 16 | 1u << 23 |
                      (r >> 6) << 24 | 0x8u << 28;

        apple_st32(p + n, sv);
        n += 4;
    }
    n += agx_cmd_op_stop(p + n);
    for (int i = 0; i < 8; i++) {
        p[n++] = 0x08;
        p[n++] = 0x00;
    }
}

/* The TVB's pages (4 a block) of the next vdm_init */
static unsigned vdm_npages = NPAGES;

static void vdm_init(Vdm *t, bool w_is_x)
{
    Fake *f = &t->f;
    const AgxJobAbi *ja;
    uint8_t *pipe;
    unsigned n = 0;

    memset(t, 0, sizeof(*t));
    fake_init(f, AGX_FW_V13_5);
    ja = f->fw.job_abi;
    t->kva = fake_alloc(f, USER_SIZE);
    fake_map_gpu(f, VM_SLOT, USER_VA, t->kva, USER_SIZE, true);
    apple_st32(fake_ptr_n(f, f->fw.globals_va + f->fw.abi->gl_fault_control,
                          4), 0xb);
    fake_queue_init(f, &t->q, AGX_PIPE_VERTEX, 0, EV_SLOT);
    /* The Buffer: Info, BlockControl, the page list of 4 aligned pages */
    t->info = fake_alloc(f, 0xc0);
    t->ctl = fake_alloc(f, 0x40);
    t->plist = fake_alloc(f, 4 * vdm_npages);
    t->pages = APPLE_ROUND_UP(fake_alloc(f, (vdm_npages + 1) * 0x8000),
                              0x8000);
    for (unsigned i = 0; i < vdm_npages; i++) {
        apple_st32(fake_ptr(f, t->plist + 4 * i), (t->pages >> 15) + i);
    }
    apple_st32(fake_ptr(f, t->info + ja->bi_block_count), vdm_npages / 4);
    apple_st64(fake_ptr(f, t->info + ja->bi_block_ctl), t->ctl);
    apple_st64(fake_ptr(f, t->info + ja->bi_page_list), t->plist);
    t->tilemap = fake_alloc(f, 4 * 20 * 16);
    t->scene = fake_alloc(f, 0x48);
    t->stats = fake_alloc(f, 0x40);
    apple_st64(fake_ptr(f, t->scene + 0x2c), t->stats);
    put_shader(t, w_is_x);
    /* The pipeline: Shader, Registers (16 halves), No Preshader */
    pipe = fake_ptr_n(f, t->kva + PIPE, 32);
    n += agx_cmd_usc_shader(pipe + n, CODE - PIPE);
    n += agx_cmd_usc_registers(pipe + n, 16);
    agx_cmd_usc_no_preshader(pipe + n);
    t->mem = (AgxSceneMem) {
        .read = mem_read, .write = mem_write, .opaque = t,
    };
}

/* Submit the vertex job whose stream starts at STREAM */
static void vdm_submit(Vdm *t)
{
    const AgxCmdLayout *l = t->f.layout;
    uint64_t tiling, p1;

    t->rec = fake_add_vertex_run(&t->f, &t->q, t->scene, t->info);
    tiling = t->rec + l->params[AGX_PIPE_VERTEX][0];
    p1 = t->rec + l->params[AGX_PIPE_VERTEX][1];
    apple_st32(fake_ptr_n(&t->f, t->rec + l->vm_slot[AGX_PIPE_VERTEX], 4),
               VM_SLOT);
    apple_st64(fake_ptr_n(&t->f, t->rec + AGX_V13_5_RUN_VERTEX_BUFFER, 8),
               t->info);
    apple_st64(fake_ptr_n(&t->f, t->rec + AGX_V13_5_RUN_VERTEX_SCENE, 8),
               t->scene);
    apple_st32(fake_ptr_n(&t->f, tiling, 4), 20);               /* rgn */
    /* x_max, y_max: u16 each */
    apple_st32(fake_ptr_n(&t->f, tiling + 0xc, 4),
               (WIDTH - 1) | (HEIGHT - 1) << 16);
    apple_st32(fake_ptr_n(&t->f, tiling + 0x28, 4), 0x8000);
    apple_st64(fake_ptr_n(&t->f, p1 + 0x10, 8), t->tilemap);
    apple_st64(fake_ptr_n(&t->f, p1 + 0x90, 8), USER_VA + STREAM);
    apple_st64(fake_ptr_n(&t->f, p1 + 0xe0, 8), USC_BASE);
    fake_kick(&t->f, &t->q);
}

static bool vdm_retired(Vdm *t)
{
    return fake_stamp(&t->f, t->q.slot) == t->q.value;
}

/* Stream helpers: each returns the offset after what it wrote */
static uint64_t ppp_state(Vdm *t, uint64_t at, uint64_t update,
                          unsigned words)
{
    uint64_t va = USER_VA + update;

    put32(t, at, VDM_TYPE(0) | words << 8 | (uint32_t)(va >> 32));
    put32(t, at + 4, (uint32_t)va);
    return at + 8;
}

/*
 * The PPP update at PPP: viewport 0 = identity (translate 0, scale 1),
 * one smooth 32-bit varying, @cull (the Cull word)
 */
static unsigned put_ppp(Vdm *t, uint32_t cull)
{
    uint32_t w[] = {
        H_VIEWPORT | H_VARYINGS_32 | H_CULL,
        0, 0, fbits(1), 0, fbits(1), 0, fbits(1),
        2,
        cull,
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(w); i++) {
        put32(t, PPP + 4 * i, w[i]);
    }
    return G_N_ELEMENTS(w);
}

/* VDM State: restart index, vertex shader words 0 and 1, output count */
static uint64_t vdm_state(Vdm *t, uint64_t at, uint32_t restart,
                          unsigned outputs)
{
    put32(t, at, VDM_TYPE(2) | 0xf);
    put32(t, at + 4, restart);
    put32(t, at + 8, 0);
    put32(t, at + 12, 0);                       /* pipeline: USC 0 */
    put32(t, at + 16, outputs | outputs << 8);
    return at + 24;                             /* padded to 8 bytes */
}

/*
 * An Index List with u32 indices at INDICES, the buffer @size bytes
 * (0: the count's)
 */
static uint64_t draw_indexed_size(Vdm *t, uint64_t at, unsigned prim,
                                  unsigned count, bool restart,
                                  unsigned size)
{
    uint64_t ib = USER_VA + INDICES;

    put32(t, at, VDM_TYPE(3) | IDX_PRIM(prim) | IDX_SIZE(2) | IDX_BUFFER |
          IDX_BUFFER_SIZE | IDX_COUNT | IDX_INSTANCES | IDX_START |
          (restart ? IDX_RESTART : 0) | (uint32_t)(ib >> 32));
    put32(t, at + 4, (uint32_t)ib);
    put32(t, at + 8, count);
    put32(t, at + 12, 1);
    put32(t, at + 16, 0);
    put32(t, at + 20, (size ? size : 4 * count) >> 2);
    return at + 24;
}

static uint64_t draw_indexed(Vdm *t, uint64_t at, unsigned prim,
                             unsigned count, bool restart)
{
    return draw_indexed_size(t, at, prim, count, restart, 0);
}

static uint64_t terminate(Vdm *t, uint64_t at)
{
    put32(t, at, VDM_TYPE(6));
    return at + 32;
}

static void put_indices(Vdm *t, const float *x, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        put32(t, INDICES + 4 * i, isnan(x[i]) ? 0xffffffffu : fbits(x[i]));
    }
}

/* Run the job to its end: retired, without guest errors */
static void run_ok(Vdm *t)
{
    vdm_submit(t);
    fake_run(&t->f, 1000);
    g_assert_true(vdm_retired(t));
    g_assert_false(fake_crashed(&t->f));
    g_assert_cmpuint(t->f.errors->len, ==, 0);
}

/* The primitives the scene holds for the whole render, in order */
static unsigned read_scene(Vdm *t, AgxScenePrim *out, unsigned max)
{
    AgxSceneReader r;
    AgxSceneCursor c;
    const char *why;
    unsigned n = 0;
    AgxScenePrim p;
    int got;

    g_assert_true(agx_scene_open(&r, &t->mem, t->tilemap, &why));
    agx_scene_cursor_rect(&c, 0, 0, WIDTH, HEIGHT, 0);
    while ((got = agx_scene_next(&r, &t->mem, &c, &p, &why)) == 1) {
        g_assert_cmpuint(n, <, max);
        out[n++] = p;
    }
    g_assert_cmpint(got, ==, 0);
    return n;
}

static void assert_vertex(const AgxSceneVertex *v, float x)
{
    g_assert_cmpfloat(v->x, ==, x);
    g_assert_cmpfloat(v->y, ==, x * x);
    g_assert_cmpfloat(v->z, ==, 0);
    g_assert_cmpfloat(v->rhw, ==, 1);
    g_assert_cmphex(v->var[0], ==, fbits(x));
}

/*
 * Two indexed triangles: binned in order with their window positions and
 * outputs; the Scene and Stats report the page the scene used
 */
static void test_triangles(void)
{
    static const float x[] = { 2, 6, 4, 1, 5, 3 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 4);
    Vdm t;
    uint64_t at = STREAM;

    vdm_init(&t, false);
    put_indices(&t, x, 6);
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 6, false);
    terminate(&t, at);
    run_ok(&t);
    g_assert_cmpuint(read_scene(&t, p, 4), ==, 2);
    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(p[i].kind, ==, AGX_SCENE_TRIANGLE);
        g_assert_cmpuint(p[i].nvar, ==, 2);
        for (int j = 0; j < 3; j++) {
            assert_vertex(&p[i].v[j], x[3 * i + j]);
        }
    }
    /*
     * (2,4) (6,36) (4,16) turn clockwise with y up, counter-clockwise
     * with y down as the framebuffer's rows: the hardware's view, in
     * which the Cull word's front face is clockwise: a back face
     */
    g_assert_false(p[0].front);
    g_assert_cmpuint(fake_ld32(&t.f, t.scene), ==, 1);
    g_assert_cmpuint(fake_ld32(&t.f, t.stats), ==, 1);
    g_assert_cmpuint(t.f.fw.vdm.draws, ==, 1);
    fake_free(&t.f);
}

/*
 * A strip with a primitive restart: (a b c) (c b d) | (e f g): the odd
 * triangle's first two vertices are swapped, as GL orders them (i + 1,
 * i, i + 2) to keep the strip's winding
 */
static void test_strip_restart(void)
{
    const float x[] = { 2, 6, 4, 8, NAN, 1, 3, 5 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 8);
    static const float want[3][3] = {
        { 2, 6, 4 }, { 4, 6, 8 }, { 1, 3, 5 },
    };
    Vdm t;
    uint64_t at = STREAM;

    vdm_init(&t, false);
    put_indices(&t, x, 8);
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0xffffffff, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLE_STRIP, 8, true);
    terminate(&t, at);
    run_ok(&t);
    g_assert_cmpuint(read_scene(&t, p, 8), ==, 3);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            assert_vertex(&p[i].v[j], want[i][j]);
        }
    }
    /*
     * Points on y = x * x wind by the order of their x: (2 6 4) and
     * (6 4 8) alike, so the swapped (4 6 8) faces the other way
     */
    g_assert_cmpint(p[0].front, !=, p[1].front);
    fake_free(&t.f);
}

/*
 * The index buffer's size bounds the indices: past it they read 0 (here:
 * vertex id 0, x = 0 at all three vertices, an empty triangle)
 */
static void test_index_bounds(void)
{
    static const float x[] = { 2, 6, 4, 1, 5, 3 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 4);
    Vdm t;
    uint64_t at = STREAM;

    vdm_init(&t, false);
    put_indices(&t, x, 6);
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed_size(&t, at, PRIM_TRIANGLES, 6, false, 12);
    terminate(&t, at);
    run_ok(&t);
    g_assert_cmpuint(read_scene(&t, p, 4), ==, 1);
    assert_vertex(&p[0].v[1], 6);
    g_assert_cmpuint(t.f.fw.vdm.culled, ==, 1);
    fake_free(&t.f);
}

/* Back-face culling: the same triangles (back faces) are culled */
static void test_cull(void)
{
    static const float x[] = { 2, 6, 4, 1, 5, 3 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 4);
    Vdm t;
    uint64_t at = STREAM;

    vdm_init(&t, false);
    put_indices(&t, x, 6);
    /* Cull back (bit 1) */
    at = ppp_state(&t, at, PPP, put_ppp(&t, 1u << 1));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 6, false);
    terminate(&t, at);
    run_ok(&t);
    g_assert_cmpuint(read_scene(&t, p, 4), ==, 0);
    g_assert_cmpuint(t.f.fw.vdm.culled, ==, 2);
    fake_free(&t.f);
}

/*
 * Near clipping: w = x; the vertex at x = -1 is behind the eye.  What is
 * left is a quad (two triangles) with w > 0 everywhere, keeping the two
 * vertices in front at window (x, 1 / x) (snapped to the subpixel grid)
 */
static void test_clip_w(void)
{
    static const float x[] = { -1, 6, 4 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 4);
    Vdm t;
    uint64_t at = STREAM;
    unsigned n, kept = 0;

    vdm_init(&t, true);
    put_indices(&t, x, 3);
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 3, false);
    terminate(&t, at);
    run_ok(&t);
    n = read_scene(&t, p, 4);
    g_assert_cmpuint(n, ==, 2);
    for (unsigned i = 0; i < n; i++) {
        for (int j = 0; j < 3; j++) {
            const AgxSceneVertex *v = &p[i].v[j];

            g_assert_cmpfloat(v->rhw, >, 0);
            g_assert_true(isfinite(v->x) && isfinite(v->y));
            if (v->rhw < 1) {
                /* window coordinates: on the 1/256 pixel grid */
                g_assert_cmpfloat_with_epsilon(v->x * v->rhw, 1, 1 / 512.0);
                g_assert_cmpfloat_with_epsilon(v->y, v->rhw, 1 / 512.0);
                kept++;
            }
        }
    }
    /* 6 and 4 stay: 6 in one triangle, 4 in both */
    g_assert_cmpuint(kept, ==, 3);
    fake_free(&t.f);
}

/*
 * A fan drawn from a stream reached by a Stream Link with return, whose
 * callee ends with a returning Barrier; then an indirect, instanced
 * point draw: instance ids reach the shader
 */
static void test_link_fan_indirect(void)
{
    static const float x[] = { 2, 6, 4, 8 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 16);
    uint64_t at = STREAM, call = STREAM2, ib = USER_VA + INDIRECT;
    Vdm t;
    unsigned n;

    vdm_init(&t, false);
    put_indices(&t, x, 4);
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    put32(&t, at, VDM_TYPE(4) | 1u << 28 |
          (uint32_t)((USER_VA + STREAM2) >> 32));
    put32(&t, at + 4, (uint32_t)(USER_VA + STREAM2));
    at += 8;
    call = vdm_state(&t, call, 0, 6);
    call = draw_indexed(&t, call, PRIM_TRIANGLE_FAN, 4, false);
    put32(&t, call, VDM_TYPE(1) | 1u << 27);
    /* Points: {count 2, instances 3, first vertex, base instance} */
    put32(&t, INDIRECT, 2);
    put32(&t, INDIRECT + 4, 3);
    put32(&t, INDIRECT + 8, fbits(5));
    put32(&t, INDIRECT + 12, 0);
    put32(&t, at, VDM_TYPE(3) | IDX_PRIM(PRIM_POINTS) | IDX_INDIRECT);
    put32(&t, at + 4, (uint32_t)(ib >> 32));
    put32(&t, at + 8, (uint32_t)ib);
    at = terminate(&t, at + 12);
    run_ok(&t);
    n = read_scene(&t, p, 16);
    g_assert_cmpuint(n, ==, 2 + 6);
    /* The fan: (2 6 4) (2 4 8) */
    assert_vertex(&p[0].v[0], 2);
    assert_vertex(&p[0].v[2], 4);
    assert_vertex(&p[1].v[0], 2);
    assert_vertex(&p[1].v[1], 4);
    assert_vertex(&p[1].v[2], 8);
    for (unsigned i = 0; i < 6; i++) {
        const AgxScenePrim *q = &p[2 + i];

        g_assert_cmpuint(q->kind, ==, AGX_SCENE_POINT);
        g_assert_cmphex(q->v[0].var[0], ==, fbits(5) + i % 2);
        g_assert_cmpuint(q->v[0].var[1], ==, i / 2);
    }
    fake_free(&t.f);
}

/* An unknown block fails the job with a GPU fault, logged */
static void test_bad_block(void)
{
    Vdm t;

    vdm_init(&t, false);
    put32(&t, STREAM, VDM_TYPE(7));
    vdm_submit(&t);
    fake_run(&t.f, 1000);
    g_assert_true(fake_has_error(&t.f, "unknown block"));
    g_assert_cmpuint(t.f.fw.vdm.faults, ==, 1);
    g_assert_false(fake_crashed(&t.f));
    fake_free(&t.f);
}

/*
 * Many triangles in slices: 5 draws of 100 triangles take more than one
 * slice, and every triangle is binned
 */
static void test_slices(void)
{
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 1);
    Vdm t;
    uint64_t at = STREAM;
    AgxSceneReader r;
    const char *why;

    vdm_init(&t, false);
    for (unsigned i = 0; i < 3 * 100; i++) {
        static const float x[] = { 2, 6, 4 };

        put32(&t, INDICES + 4 * i, fbits(x[i % 3]));
    }
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    for (int d = 0; d < 5; d++) {
        at = draw_indexed(&t, at, PRIM_TRIANGLES, 300, false);
    }
    terminate(&t, at);
    run_ok(&t);
    g_assert_true(agx_scene_open(&r, &t.mem, t.tilemap, &why));
    g_assert_cmpuint(r.prims, ==, 500);
    g_assert_cmpuint(t.f.fw.vdm.slices, >, 1);
    fake_free(&t.f);
}

/*
 * A scene bigger than the buffer's free pages (all 4), whose render has
 * no fragment command to pause with: what does not fit is dropped; the
 * Scene says the pass used 4 pages and needed more (total 5), Stats
 * counts the overflow and asks for 5 pages
 */
static void test_overflow(void)
{
    Vdm t;
    uint64_t at = STREAM;
    AgxSceneReader r;
    const char *why;

    vdm_init(&t, false);
    for (unsigned i = 0; i < 3 * 100; i++) {
        static const float x[] = { 2, 6, 4 };

        put32(&t, INDICES + 4 * i, fbits(x[i % 3]));
    }
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    for (int d = 0; d < 14; d++) {
        at = draw_indexed(&t, at, PRIM_TRIANGLES, 300, false);
    }
    terminate(&t, at);
    run_ok(&t);
    g_assert_true(agx_scene_open(&r, &t.mem, t.tilemap, &why));
    g_assert_true(r.overflowed);
    g_assert_cmpuint(r.prims + r.dropped, ==, 1400);
    /*
     * 104-byte triangles after one state record, and the chunks of the
     * lists of the two tiles they touch: fewer than 4 pages would hold
     * of triangles alone
     */
    g_assert_cmpuint(r.prims, >, 1000);
    g_assert_cmpuint(r.prims, <, 4 * 0x8000 / (4 * (8 + 3 * 6)));
    g_assert_cmpuint(fake_ld32(&t.f, t.scene), ==, 4);
    g_assert_cmpuint(fake_ld32(&t.f, t.scene + 0x34), ==, 5);
    g_assert_cmpuint(fake_ld32(&t.f, t.stats), ==, 5);
    g_assert_cmpuint(fake_ld32(&t.f, t.stats + 8), ==, 1);
    fake_free(&t.f);
}


/*
 * Partial renders.  The render's fragment command waits in a fragment
 * queue of the same GPU context behind a Barrier on the vertex command;
 * the vertex command names it by its stamp slot and value
 * (fragment_stamp_slot/value), both the same Scene.  Its programs count:
 * the fragment shader adds 1 to a u32 per pixel at COUNTS (its pixel from
 * thread_position_in_grid), the background, partial background,
 * end-of-tile and partial end-of-tile programs each add 1 per SIMD group
 * to their word at RUNS (every lane stores the same sum).
 */
#define FS_WORDS        0x20400
#define FS_CODE         0x20800
#define PROG_WORDS      0x20c00         /* 4 x 0x40: bg, pbg, eot, peot */
#define PROG_CODE       0x21000         /* 4 x 0x200 */
#define COUNTS          0x30000         /* WIDTH x HEIGHT u32 */
#define RUNS            0x38000
#define FRAG_SLOT       4
#define PARTIAL_DRAWS   21              /* of 300 triangles */
enum { RUN_BG, RUN_PARTIAL_BG, RUN_EOT, RUN_PARTIAL_EOT };
/* Fragment parameters 3: the partial programs' addresses */
#define PARTIAL_BG_ADDRESS  (AGX_V13_5_FRAGMENT_JOB_PARAMETERS3_PARTIAL_BG + \
                             AGX_V13_5_BACKGROUND_PROGRAM_ADDRESS)
#define PARTIAL_EOT_ADDRESS (AGX_V13_5_FRAGMENT_JOB_PARAMETERS3_PARTIAL_EOT + \
                             AGX_V13_5_EOT_PROGRAM_ADDRESS)

/*
 * USC words of a program at @code whose u0..u1 = USER_VA + @data (the
 * address is kept in the 8 bytes before @data)
 */
static uint32_t count_words(Vdm *t, uint64_t words, uint64_t code,
                            uint64_t data, const Asm *a)
{
    uint8_t *p = fake_ptr_n(&t->f, t->kva + words, 64);
    unsigned n;

    /* the Uniform word copies u0..u1 from memory: the data's address */
    apple_st64(fake_ptr_n(&t->f, t->kva + data - 8, 8), USER_VA + data);
    memcpy(fake_ptr_n(&t->f, t->kva + code, a->n), a->b, a->n);
    n = agx_cmd_usc_uniform(p, 0, 4, USER_VA + data - 8);
    n += agx_cmd_usc_shader(p + n, code - PIPE);
    n += agx_cmd_usc_registers(p + n, 128);
    agx_cmd_usc_no_preshader(p + n);
    return words - PIPE;
}

static void count_programs(Vdm *t)
{
    Asm a = { 0 };

    /* fs: r60 = y * WIDTH + x; COUNTS[r60] += 1 */
    asm_count_pixel(&a, WIDTH);
    count_words(t, FS_WORDS, FS_CODE, COUNTS, &a);
    for (unsigned k = 0; k < 4; k++) {
        memset(&a, 0, sizeof(a));
        asm_count_word(&a, k);
        count_words(t, PROG_WORDS + 0x40 * k, PROG_CODE + 0x200 * k, RUNS,
                    &a);
    }
    memset(fake_ptr_n(&t->f, t->kva + COUNTS, 4 * WIDTH * HEIGHT), 0,
           4 * WIDTH * HEIGHT);
    memset(fake_ptr_n(&t->f, t->kva + RUNS, 16), 0, 16);
}

/*
 * The PPP update at PPP: faces with the depth test Always and no depth
 * writes, identity viewport, one varying, no culling, the counting
 * fragment shader
 */
static unsigned put_ppp_fs(Vdm *t)
{
    uint32_t face = 7u << 24 | 1u << 21;
    uint32_t w[] = {
        1u << 2 | 1u << 5 | H_VIEWPORT | H_VARYINGS_32 | H_CULL | 1u << 23,
        face, face,
        0, 0, fbits(1), 0, fbits(1), 0, fbits(1),
        2,
        0,
        0, FS_WORDS - PIPE, 0, 0,
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(w); i++) {
        put32(t, PPP + 4 * i, w[i]);
    }
    return G_N_ELEMENTS(w);
}

/*
 * An earlier render's fragment command in the same queue, of no scene:
 * the counting background and end-of-tile programs over earlier_px
 * square pixels (0: none); its stamp value in earlier_value
 */
static uint32_t earlier_px, earlier_value;
static bool earlier_waited;

static void earlier_frag(Vdm *t, FakeQueue *fq)
{
    const AgxCmdLayout *l = t->f.layout;
    uint64_t rec = fake_add_run(&t->f, fq, NULL);
    uint64_t p2 = rec + l->params[AGX_CMD_FRAGMENT][0];
    uint64_t p1 = rec + l->params[AGX_CMD_FRAGMENT][1];

    apple_st32(fake_ptr_n(&t->f, rec + l->vm_slot[AGX_CMD_FRAGMENT], 4),
               VM_SLOT);
    apple_st64(fake_ptr_n(&t->f, p1 + 0x10, 8),
               (PROG_WORDS + 0x40 * RUN_BG - PIPE) | 4);
    apple_st32(fake_ptr_n(&t->f, p1 + 0x30 + 8, 4), earlier_px);
    apple_st32(fake_ptr_n(&t->f, p1 + 0x30 + 0xc, 4), earlier_px);
    apple_st64(fake_ptr_n(&t->f, p1 + 0x140, 8), USC_BASE);
    apple_st32(fake_ptr_n(&t->f, p2 + 4, 4),
               (PROG_WORDS + 0x40 * RUN_EOT - PIPE) | 4);
    earlier_value = fq->value;
}

/*
 * The render's fragment command, behind a Barrier on the vertex command
 * to come; the vertex command will name it.  Returns its record.
 */
static uint64_t frag_command(Vdm *t, FakeQueue *fq)
{
    const AgxCmdLayout *l = t->f.layout;
    uint64_t rec, p1, p2, p3;

    fake_queue_init(&t->f, fq, AGX_PIPE_FRAGMENT, 0, FRAG_SLOT);
    /* one render queue: its vertex and fragment queues share a context */
    fq->ctx_va = t->q.ctx_va;
    agx_cmd_build_queue_info(l, fake_ptr(&t->f, fq->info_va), fq->state_va,
                             fq->ring_va, fq->ctx_va, FRAG_SLOT);
    if (earlier_px) {
        earlier_frag(t, fq);
    }
    fake_add_barrier(&t->f, fq, &t->q, t->q.value + 0x100);
    rec = fake_add_run(&t->f, fq, NULL);
    /* StartFragment.tvb_overflow_count: the record's, as drm/asahi's */
    apple_st64(fake_ptr_n(&t->f, fake_ld64(&t->f, rec + l->useq_ptr[
                                            AGX_CMD_FRAGMENT]) +
                          AGX_V13_5_OP_START_FRAGMENT_TVB_OVERFLOW_COUNT, 8),
               rec + AGX_V13_5_RUN_FRAGMENT_TVB_OVERFLOW_COUNT);
    p2 = rec + l->params[AGX_CMD_FRAGMENT][0];
    p1 = rec + l->params[AGX_CMD_FRAGMENT][1];
    p3 = rec + AGX_V13_5_RUN_FRAGMENT_JOB_PARAMS3;
    apple_st32(fake_ptr_n(&t->f, rec + l->vm_slot[AGX_CMD_FRAGMENT], 4),
               VM_SLOT);
    apple_st64(fake_ptr_n(&t->f, rec + AGX_V13_5_RUN_FRAGMENT_SCENE, 8),
               t->scene);
    apple_st64(fake_ptr_n(&t->f, rec + AGX_V13_5_RUN_FRAGMENT_TVB_TILEMAP, 8),
               t->tilemap);
    /* bg, framebuffer size, usc base; eot; the partial programs */
    apple_st64(fake_ptr_n(&t->f, p1 + 0x10, 8),
               (PROG_WORDS + 0x40 * RUN_BG - PIPE) | 4);
    apple_st32(fake_ptr_n(&t->f, p1 + 0x30 + 8, 4), WIDTH);
    apple_st32(fake_ptr_n(&t->f, p1 + 0x30 + 0xc, 4), HEIGHT);
    apple_st64(fake_ptr_n(&t->f, p1 + 0x140, 8), USC_BASE);
    apple_st32(fake_ptr_n(&t->f, p2 + 4, 4),
               (PROG_WORDS + 0x40 * RUN_EOT - PIPE) | 4);
    apple_st64(fake_ptr_n(&t->f, p3 + PARTIAL_BG_ADDRESS, 8),
               (PROG_WORDS + 0x40 * RUN_PARTIAL_BG - PIPE) | 4);
    apple_st32(fake_ptr_n(&t->f, p3 + PARTIAL_EOT_ADDRESS, 4),
               (PROG_WORDS + 0x40 * RUN_PARTIAL_EOT - PIPE) | 4);
    fake_kick(&t->f, fq);
    return rec;
}

/* The vertex record names the fragment command (set before its kick) */
static uint64_t partial_frag_value;

static void patch_vertex_fragment(Vdm *t)
{
    apple_st32(fake_ptr_n(&t->f, t->rec +
                          AGX_V13_5_RUN_VERTEX_FRAGMENT_STAMP_SLOT, 4),
               FRAG_SLOT);
    apple_st32(fake_ptr_n(&t->f, t->rec +
                          AGX_V13_5_RUN_VERTEX_FRAGMENT_STAMP_VALUE, 4),
               partial_frag_value);
}

/*
 * One render of 2100 triangles (x, x * x for x in 1, 7, 4 and shifted by
 * a few pixels) on a TVB of @npages pages: the pixel counts it leaves at
 * COUNTS, in *@runs the program runs, the partial renders it took
 */
static uint64_t render_counts(unsigned npages, uint32_t *counts,
                              uint32_t *runs, uint32_t *overflows)
{
    Vdm t;
    FakeQueue fq;
    uint64_t at = STREAM, frec, partials;

    vdm_npages = npages;
    vdm_init(&t, false);
    vdm_npages = NPAGES;
    for (unsigned i = 0; i < 3 * 100; i++) {
        static const float x[] = { 1, 7, 4 };

        put32(&t, INDICES + 4 * i, fbits(x[i % 3] + (i / 3) % 5 * 0.25f));
    }
    count_programs(&t);
    at = ppp_state(&t, at, PPP, put_ppp_fs(&t));
    at = vdm_state(&t, at, 0, 6);
    for (int d = 0; d < PARTIAL_DRAWS; d++) {
        at = draw_indexed(&t, at, PRIM_TRIANGLES, 300, false);
    }
    terminate(&t, at);
    frec = frag_command(&t, &fq);
    partial_frag_value = fq.value;
    /* vdm_submit kicks: name the fragment command in the record first */
    t.rec = fake_add_vertex_run(&t.f, &t.q, t.scene, t.info);
    {
        const AgxCmdLayout *l = t.f.layout;
        uint64_t tiling = t.rec + l->params[AGX_PIPE_VERTEX][0];
        uint64_t p1 = t.rec + l->params[AGX_PIPE_VERTEX][1];

        apple_st32(fake_ptr_n(&t.f, t.rec + l->vm_slot[AGX_PIPE_VERTEX], 4),
                   VM_SLOT);
        apple_st64(fake_ptr_n(&t.f, t.rec + AGX_V13_5_RUN_VERTEX_BUFFER, 8),
                   t.info);
        apple_st64(fake_ptr_n(&t.f, t.rec + AGX_V13_5_RUN_VERTEX_SCENE, 8),
                   t.scene);
        apple_st32(fake_ptr_n(&t.f, tiling, 4), 20);
        apple_st32(fake_ptr_n(&t.f, tiling + 0xc, 4),
                   (WIDTH - 1) | (HEIGHT - 1) << 16);
        apple_st32(fake_ptr_n(&t.f, tiling + 0x28, 4), 0x8000);
        apple_st64(fake_ptr_n(&t.f, p1 + 0x10, 8), t.tilemap);
        apple_st64(fake_ptr_n(&t.f, p1 + 0x90, 8), USER_VA + STREAM);
        apple_st64(fake_ptr_n(&t.f, p1 + 0xe0, 8), USC_BASE);
    }
    patch_vertex_fragment(&t);
    fake_kick(&t.f, &t.q);
    /*
     * With an earlier fragment command: the partial render waits for it,
     * as the fragment pipe's work
     */
    for (int i = 0; earlier_px && i < 100000 && !t.f.fw.vdm.partial_renders;
         i++) {
        fake_run(&t.f, 1);
        earlier_waited |= t.f.fw.vdm.partial_wait;
        if (t.f.fw.vdm.partial) {
            g_assert_cmpint((int32_t)(fake_stamp(&t.f, FRAG_SLOT) -
                                      earlier_value), >=, 0);
        }
    }
    fake_run(&t.f, 100000);
    g_assert_false(fake_crashed(&t.f));
    g_assert_cmpuint(t.f.errors->len, ==, 0);
    g_assert_cmpuint(t.f.fault_events, ==, 0);
    g_assert_true(vdm_retired(&t));
    g_assert_cmpuint(fake_stamp(&t.f, FRAG_SLOT), ==, fq.value);
    memcpy(counts, fake_ptr_n(&t.f, t.kva + COUNTS, 4 * WIDTH * HEIGHT),
           4 * WIDTH * HEIGHT);
    memcpy(runs, fake_ptr_n(&t.f, t.kva + RUNS, 16), 16);
    partials = t.f.fw.vdm.partial_renders;
    /* the fragment command reports them as its TVB overflows */
    *overflows = fake_ld32(&t.f, frec +
                           AGX_V13_5_RUN_FRAGMENT_TVB_OVERFLOW_COUNT);
    /* every pass's pages: the driver sees the scene overflowed */
    if (partials) {
        g_assert_cmpuint(fake_ld32(&t.f, t.scene + 0x34), >,
                         fake_ld32(&t.f, t.scene));
        g_assert_cmpuint(fake_ld32(&t.f, t.stats), ==,
                         fake_ld32(&t.f, t.scene + 0x34));
    }
    fake_free(&t.f);
    return partials;
}

/*
 * A scene of 2100 triangles (about 220 KB) on 4 TVB pages (a pass may
 * take them all but a reserve page) is rendered in passes: partial
 * renders with the partial programs, then the fragment command's last
 * pass, and every pixel is shaded as often as when the same render fits
 * (16 pages, no partial render): the image equals the unsplit render's
 */
static void test_partial_render(void)
{
    g_autofree uint32_t *split = g_new(uint32_t, WIDTH * HEIGHT);
    g_autofree uint32_t *whole = g_new(uint32_t, WIDTH * HEIGHT);
    uint32_t runs_split[4], runs_whole[4], ovf_split, ovf_whole;
    uint64_t passes, sum = 0;

    passes = render_counts(4, split, runs_split, &ovf_split);
    g_assert_cmpuint(render_counts(16, whole, runs_whole, &ovf_whole), ==, 0);
    g_assert_cmpuint(passes, >=, 2);
    g_assert_cmpuint(ovf_split, ==, passes);
    g_assert_cmpuint(ovf_whole, ==, 0);
    for (unsigned i = 0; i < WIDTH * HEIGHT; i++) {
        g_assert_cmpuint(split[i], ==, whole[i]);
        sum += whole[i];
    }
    g_assert_cmpuint(sum, >, 1000);
    /* unsplit: background and end-of-tile once each */
    g_assert_cmpuint(runs_whole[RUN_BG], >, 0);
    g_assert_cmpuint(runs_whole[RUN_EOT], >, 0);
    g_assert_cmpuint(runs_whole[RUN_PARTIAL_BG], ==, 0);
    g_assert_cmpuint(runs_whole[RUN_PARTIAL_EOT], ==, 0);
    /*
     * split: the first pass loads as the render does, each later pass
     * with the partial background; every pass but the last stores with
     * the partial end-of-tile program
     */
    g_assert_cmpuint(runs_split[RUN_BG], ==, runs_whole[RUN_BG]);
    g_assert_cmpuint(runs_split[RUN_EOT], ==, runs_whole[RUN_EOT]);
    g_assert_cmpuint(runs_split[RUN_PARTIAL_BG], ==,
                     passes * runs_whole[RUN_BG]);
    g_assert_cmpuint(runs_split[RUN_PARTIAL_EOT], ==,
                     passes * runs_whole[RUN_EOT]);
}


/*
 * A partial render is fragment work of its render: with a longer
 * fragment command of an earlier render ahead of it in the queue, it
 * waits for that one to end, and the image is still the unsplit one's
 */
static void test_partial_after_earlier(void)
{
    g_autofree uint32_t *split = g_new(uint32_t, WIDTH * HEIGHT);
    g_autofree uint32_t *whole = g_new(uint32_t, WIDTH * HEIGHT);
    uint32_t runs[4], ovf;

    g_assert_cmpuint(render_counts(16, whole, runs, &ovf), ==, 0);
    earlier_px = 2048;
    earlier_waited = false;
    g_assert_cmpuint(render_counts(4, split, runs, &ovf), >=, 2);
    earlier_px = 0;
    g_assert_true(earlier_waited);
    g_assert_cmpmem(split, 4 * WIDTH * HEIGHT, whole, 4 * WIDTH * HEIGHT);
}

/*
 * Renders in flight on one buffer: a scene holds its TVB pages until its
 * fragment job's FinalizeFragment returns them, so the next vertex job
 * on a buffer whose pages are all held waits (it must not bin over a
 * scene not yet rendered); the fragment job ending lets it go on.  A
 * scene whose fragment job never ends gives its pages back after
 * AGX_VDM_PAGE_WAIT slices.
 */
static void submit_scene_of(Vdm *t, unsigned draws, uint64_t scene)
{
    uint64_t at = STREAM;

    at = ppp_state(t, at, PPP, put_ppp(t, 0));
    at = vdm_state(t, at, 0, 6);
    for (unsigned d = 0; d < draws; d++) {
        at = draw_indexed(t, at, PRIM_TRIANGLES, 300, false);
    }
    terminate(t, at);
    t->scene = scene;
    vdm_submit(t);
}

static void test_live_scenes(void)
{
    uint8_t op[AGX_V13_5_OP_FINALIZE_FRAGMENT_SIZE] = { 0 };
    uint64_t scene_a, scene_b, scene_c;
    Vdm t;

    vdm_init(&t, false);
    for (unsigned i = 0; i < 3 * 100; i++) {
        static const float x[] = { 2, 6, 4 };

        put32(&t, INDICES + 4 * i, fbits(x[i % 3]));
    }
    scene_a = t.scene;
    scene_b = fake_alloc(&t.f, 0x48);
    apple_st64(fake_ptr(&t.f, scene_b + 0x2c), t.stats);
    scene_c = fake_alloc(&t.f, 0x48);
    apple_st64(fake_ptr(&t.f, scene_c + 0x2c), t.stats);
    /* A: more than the 4 pages hold, no fragment command: all 4 held */
    submit_scene_of(&t, 14, scene_a);
    fake_run(&t.f, 1000);
    g_assert_true(vdm_retired(&t));
    g_assert_cmpuint(fake_ld32(&t.f, scene_a), ==, 4);
    /* B waits for A's pages */
    submit_scene_of(&t, 1, scene_b);
    fake_run(&t.f, 1000);
    g_assert_false(vdm_retired(&t));
    g_assert_cmpuint(t.f.fw.tvb.page_waits, >, 0);
    /* A's fragment job ends: B bins into the pages A returned */
    apple_st64(op + AGX_V13_5_OP_FINALIZE_FRAGMENT_SCENE, scene_a);
    apple_st64(op + AGX_V13_5_OP_FINALIZE_FRAGMENT_BUFFER, t.info);
    agx_tvb_fragment_finalized(&t.f.fw, op);
    fake_run(&t.f, 1000);
    g_assert_true(vdm_retired(&t));
    g_assert_cmpuint(t.f.fw.tvb.evictions, ==, 0);
    g_assert_cmpuint(fake_ld32(&t.f, scene_b), ==, 1);
    /*
     * A again takes the 3 pages B left; C finds none, waits, and after
     * AGX_VDM_PAGE_WAIT slices the oldest live scene (B, whose fragment
     * job never came) gives its page back
     */
    submit_scene_of(&t, 14, scene_a);
    fake_run(&t.f, 1000);
    g_assert_true(vdm_retired(&t));
    g_assert_cmpuint(fake_ld32(&t.f, scene_a), ==, 3);
    submit_scene_of(&t, 1, scene_c);
    fake_run(&t.f, 1000);
    g_assert_false(vdm_retired(&t));
    fake_run(&t.f, AGX_VDM_PAGE_WAIT + 1000);
    g_assert_true(vdm_retired(&t));
    g_assert_cmpuint(t.f.fw.tvb.evictions, ==, 1);
    g_assert_cmpuint(fake_ld32(&t.f, scene_c), ==, 1);
    g_assert_false(fake_crashed(&t.f));
    g_assert_cmpuint(t.f.errors->len, ==, 0);
    fake_free(&t.f);
}

/*
 * A user clip distance: Output Select plane 0 with no varyings makes
 * output 4 (here x) clip distance 0; the triangle's part at x < 0 is cut
 * off, leaving a quad whose vertices all have x >= 0, two on x = 0
 */
static void test_clip_distance(void)
{
    static const float x[] = { -1, 6, 4 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 4);
    /* Viewport (identity), Output Select (plane 0), no varyings */
    const uint32_t ppp[] = {
        H_VIEWPORT | 1u << 17 | H_VARYINGS_32,
        0, 0, fbits(1), 0, fbits(1), 0, fbits(1),
        1u << 0,
        0,
    };
    Vdm t;
    uint64_t at = STREAM;
    unsigned n, on_plane = 0;

    vdm_init(&t, false);
    put_indices(&t, x, 3);
    for (unsigned i = 0; i < G_N_ELEMENTS(ppp); i++) {
        put32(&t, PPP + 4 * i, ppp[i]);
    }
    at = ppp_state(&t, at, PPP, G_N_ELEMENTS(ppp));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 3, false);
    terminate(&t, at);
    run_ok(&t);
    n = read_scene(&t, p, 4);
    g_assert_cmpuint(n, ==, 2);
    for (unsigned i = 0; i < n; i++) {
        for (int j = 0; j < 3; j++) {
            g_assert_cmpfloat(p[i].v[j].x, >=, -0.0001);
            on_plane += fabsf(p[i].v[j].x) < 0.0001;
        }
    }
    /* The fan from the first vertex: both triangles hold one on x = 0 */
    g_assert_cmpuint(on_plane, >=, 2);
    fake_free(&t.f);
}

/*
 * Window coordinates snap to the nearest 1/256 pixel (the subpixel
 * precision Honeykrisp reports): a vertex 1/1024 pixel off the grid lands
 * on it, one 3/1024 off on the next step; outputs keep their values
 */
static void test_subpixel_snap(void)
{
    static const float x[] = { 2 + 1 / 1024.0f, 6 + 3 / 1024.0f, 4 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 2);
    Vdm t;
    uint64_t at = STREAM;

    vdm_init(&t, false);
    put_indices(&t, x, 3);
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 3, false);
    terminate(&t, at);
    run_ok(&t);
    g_assert_cmpuint(read_scene(&t, p, 2), ==, 1);
    g_assert_cmpfloat(p[0].v[0].x, ==, 2);
    /* y = x * x = 4 + 1/256 + 1/2^20 */
    g_assert_cmpfloat(p[0].v[0].y, ==, 4 + 1 / 256.0);
    g_assert_cmpfloat(p[0].v[1].x, ==, 6 + 1 / 256.0);
    /* (6 + 3/1024)^2 = 36 + 36/1024 + 9/2^20: 36 + 9/256 */
    g_assert_cmpfloat(p[0].v[1].y, ==, 36 + 9 / 256.0);
    g_assert_cmphex(p[0].v[0].var[0], ==, fbits(x[0]));
    g_assert_cmphex(p[0].v[1].var[0], ==, fbits(x[1]));
    assert_vertex(&p[0].v[2], 4);
    fake_free(&t.f);
}

/*
 * A long run of restart indices makes no primitive but is work: it is
 * walked in slices, and the triangle after it is binned
 */
static void test_restart_run(void)
{
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 2);
    const unsigned n = 20000;
    Vdm t;
    uint64_t at = STREAM;

    vdm_init(&t, false);
    for (unsigned i = 0; i < n; i++) {
        put32(&t, INDICES + 4 * i, 0xffffffffu);
    }
    put32(&t, INDICES + 4 * n, fbits(2));
    put32(&t, INDICES + 4 * n + 4, fbits(6));
    put32(&t, INDICES + 4 * n + 8, fbits(4));
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0xffffffff, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLE_STRIP, n + 3, true);
    terminate(&t, at);
    run_ok(&t);
    g_assert_cmpuint(read_scene(&t, p, 2), ==, 1);
    assert_vertex(&p[0].v[1], 6);
    g_assert_cmpuint(t.f.fw.vdm.slices, >, 10);
    fake_free(&t.f);
}

/*
 * Garbage never crashes the model: valid streams (a PPP update, VDM
 * State, indexed and non-indexed draws of every topology, a link with
 * return) with seeded random bits flipped in the stream, the PPP update,
 * the shader's pipeline and the indices; each job retires or takes a GPU
 * fault, and the firmware stays up
 */
static void test_random_streams(void)
{
    static const unsigned prims[] = { 0, 1, 3, 5, 6, 9, 11, 14, 15 };
    uint64_t draws = 0, binned = 0;

    for (unsigned seed = 1; seed <= 60; seed++) {
        GRand *rnd = g_rand_new_with_seed(seed);
        uint64_t at = STREAM;
        Vdm t;

        vdm_init(&t, seed & 1);
        for (unsigned i = 0; i < 64; i++) {
            put32(&t, INDICES + 4 * i, g_rand_int_range(rnd, 0, 8) ?
                  fbits(g_rand_double_range(rnd, -2, 70)) : 0xffffffffu);
        }
        at = ppp_state(&t, at, PPP, put_ppp(&t, g_rand_int(rnd) & 0x30003));
        at = vdm_state(&t, at, 0xffffffff, 6);
        for (int d = 0; d < 4; d++) {
            unsigned prim = prims[g_rand_int_range(rnd, 0, 9)];

            if (d == 2) {
                put32(&t, at, VDM_TYPE(3) | IDX_PRIM(prim) | IDX_COUNT |
                      IDX_INSTANCES | IDX_START);
                put32(&t, at + 4, g_rand_int_range(rnd, 0, 40));
                put32(&t, at + 8, g_rand_int_range(rnd, 1, 3));
                put32(&t, at + 12, fbits(3));
                at += 16;
            } else {
                at = draw_indexed(&t, at, prim, g_rand_int_range(rnd, 0, 64),
                                  g_rand_boolean(rnd));
            }
        }
        terminate(&t, at);
        /* Flip bits: in the stream, the PPP update, the pipeline */
        for (int k = g_rand_int_range(rnd, 0, 4); k > 0; k--) {
            static const uint64_t where[] = { STREAM, PPP, PIPE };
            uint64_t w = where[g_rand_int_range(rnd, 0, 3)];
            uint64_t off = w + 4 * g_rand_int_range(rnd, 0, 28);
            uint8_t *b = fake_ptr_n(&t.f, t.kva + off, 4);

            apple_st32(b, apple_ld32(b) ^ (1u << g_rand_int_range(rnd, 0,
                                                                  32)));
        }
        vdm_submit(&t);
        fake_run(&t.f, 4000);
        g_assert_false(fake_crashed(&t.f));
        draws += t.f.fw.vdm.draws;
        binned += t.f.fw.vdm.prims;
        fake_free(&t.f);
        g_rand_free(rnd);
    }
    g_test_message("%" G_GUINT64_FORMAT " draws, %" G_GUINT64_FORMAT
                   " primitives binned", draws, binned);
    /* Most streams still draw */
    g_assert_cmpuint(draws, >, 100);
    g_assert_cmpuint(binned, >, 100);
}

/* --- batches in slices ----------------------------------------------- */

/* Where the looping shader's preamble goes (USC offset 0x800) */
#define PREAMBLE        (PIPE + 0x800)

/*
 * put_shader's vertex shader with a loop first: r5 (the vertex id) and
 * r2 count @n iterations (r7 the bound), then r5 -= r2 and r5 += uniform
 * 20: the vertex id again only if the registers, the execution mask and
 * the nesting counter (r0l) survive every suspension in the loop's
 * middle, and the preamble (looping too) stored 0 into uniform 20
 */
static void put_looping_shader(Vdm *t, uint32_t n)
{
    uint8_t *code = fake_ptr_n(&t->f, t->kva + CODE, 0x200);
    uint8_t *pipe = fake_ptr_n(&t->f, t->kva + PIPE, 32);
    g_autofree uint8_t *plain = g_memdup2(code, 128);
    Asm a = { 0 };
    uint32_t body, k = 0;

    mov_imm32(&a, 1, 0);
    mov_imm32(&a, 2, 0);
    mov_imm32(&a, 3, n);
    PUSH_EXEC(&a, 1);
    body = a.n;
    iadd(&a, D32(1), R32(1), IMM(1), false, 0, false);
    iadd(&a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(&a, 1, 1, false, R32(2), R32(3));
    jmp(&a, false, body - a.n);
    pop_exec(&a, 1);
    iadd(&a, D32(1), R32(1), R32(2), true, 0, false);
    mov_imm32(&a, 2, 0);
    a.n += agx_cmd_op_uniform_store4(a.b + a.n, 2, 40);
    footer(&a);
    memcpy(fake_ptr_n(&t->f, t->kva + PREAMBLE, a.n), a.b, a.n);
    k += agx_cmd_usc_shader(pipe + k, CODE - PIPE);
    k += agx_cmd_usc_registers(pipe + k, 16);
    agx_cmd_usc_preshader(pipe + k, PREAMBLE - PIPE);

    memset(&a, 0, sizeof(a));
    mov_imm32(&a, 2, 0);
    mov_imm32(&a, 7, n);
    PUSH_EXEC(&a, 1);
    body = a.n;
    iadd(&a, D32(5), R32(5), IMM(1), false, 0, false);
    iadd(&a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(&a, 1, 1, false, R32(2), R32(7));
    jmp(&a, false, body - a.n);
    pop_exec(&a, 1);
    iadd(&a, D32(5), R32(5), R32(2), true, 0, false);
    iadd(&a, D32(5), R32(5), U32(20), false, 0, false);
    memcpy(code, a.b, a.n);
    memcpy(code + a.n, plain, 128);
}

/*
 * 100 triangles, (2, 6, 4) and (1, 5, 3) in turn, whose vertex shader
 * loops 20 times (its preamble 20 times too), in slices of @slice
 * instructions: the scene's bytes (tilemap and pages) into @scene, the
 * suspensions
 */
#define SPLIT_TRIS      100

static uint64_t split_vertex_job(uint64_t slice, uint8_t *scene,
                                 size_t tilemap_len, size_t pages_len)
{
    static const float x[] = { 2, 6, 4, 1, 5, 3 };
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, SPLIT_TRIS + 1);
    uint64_t at = STREAM, suspensions;
    Vdm t;

    vdm_init(&t, false);
    t.f.fw.cdm_slice = slice;
    put_looping_shader(&t, 20);
    for (unsigned i = 0; i < 3 * SPLIT_TRIS; i++) {
        put32(&t, INDICES + 4 * i, fbits(x[i % 6]));
    }
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 3 * SPLIT_TRIS, false);
    terminate(&t, at);
    vdm_submit(&t);
    fake_run(&t.f, 1000000);
    g_assert_true(vdm_retired(&t));
    g_assert_false(fake_crashed(&t.f));
    g_assert_cmpuint(t.f.errors->len, ==, 0);
    g_assert_false(t.f.fw.vdm.batch.active);
    g_assert_null(t.f.fw.vdm.batch.group.simd);
    /* the CPU's picture: every triangle, its vertices where x puts them */
    g_assert_cmpuint(read_scene(&t, p, SPLIT_TRIS + 1), ==, SPLIT_TRIS);
    for (unsigned i = 0; i < SPLIT_TRIS; i++) {
        g_assert_cmpuint(p[i].kind, ==, AGX_SCENE_TRIANGLE);
        for (int j = 0; j < 3; j++) {
            assert_vertex(&p[i].v[j], x[(3 * i + j) % 6]);
        }
    }
    memcpy(scene, fake_ptr_n(&t.f, t.tilemap, tilemap_len), tilemap_len);
    memcpy(scene + tilemap_len, fake_ptr_n(&t.f, t.pages, pages_len),
           pages_len);
    suspensions = t.f.fw.vdm.suspensions;
    fake_free(&t.f);
    return suspensions;
}

/*
 * A vertex shader that loops, run whole (one slice) and in slices of 1,
 * 5 and 9 instructions: the slices end inside its batches, and each run
 * bins the same bytes, the CPU's triangles
 */
static void test_split_batches(void)
{
    static const uint64_t slices[] = { 1, 5, 9 };
    const size_t tl = 4 * 20 * 16, pl = (size_t)NPAGES * 0x8000;
    g_autofree uint8_t *whole = g_malloc(tl + pl);
    g_autofree uint8_t *split = g_malloc(tl + pl);

    g_assert_cmpuint(split_vertex_job(1ULL << 30, whole, tl, pl), ==, 0);
    for (unsigned i = 0; i < G_N_ELEMENTS(slices); i++) {
        g_assert_cmpuint(split_vertex_job(slices[i], split, tl, pl), >, 100);
        g_assert_cmpmem(split, tl + pl, whole, tl + pl);
    }
}

/*
 * A vertex shader that never ends, in slices: stopped at its batch's
 * limit (AGX_VDM_GROUP_BUDGET) across its suspensions, the job hangs and
 * the batch in flight is gone; a stop drops one too
 */
static void test_split_runaway(void)
{
    static const float x[] = { 2, 6, 4 };
    uint64_t at = STREAM;
    Vdm t;

    for (int stop = 0; stop < 2; stop++) {
        at = STREAM;
        vdm_init(&t, false);
        t.f.fw.cdm_slice = 1 << 12;
        agx_cmd_op_jmp_any(fake_ptr_n(&t.f, t.kva + CODE, 8), 0);
        put_indices(&t, x, 3);
        at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
        at = vdm_state(&t, at, 0, 6);
        at = draw_indexed(&t, at, PRIM_TRIANGLES, 3, false);
        terminate(&t, at);
        vdm_submit(&t);
        fake_advance(&t.f, AGX_FW_DEFAULT_JOB_NS + 10 * AGX_CDM_SLICE_NS);
        g_assert_cmpuint(t.f.fw.vdm.suspensions, >=, 10);
        g_assert_true(t.f.fw.vdm.batch.active);
        g_assert_nonnull(t.f.fw.vdm.batch.group.simd);
        if (stop) {
            agx_vdm_stop(&t.f.fw);
        } else {
            fake_run(&t.f, 100000);
            g_assert_true(fake_has_error(&t.f, "it hangs"));
            g_assert_cmpuint(t.f.fw.vdm.suspensions, <=,
                             AGX_VDM_GROUP_BUDGET / (1 << 12) + 1);
        }
        g_assert_false(t.f.fw.vdm.active);
        g_assert_false(t.f.fw.vdm.batch.active);
        g_assert_null(t.f.fw.vdm.batch.group.simd);
        g_assert_false(vdm_retired(&t));
        fake_free(&t.f);
    }
}

/*
 * Perf (-m perf): the host time of the longest slice of a vertex job
 * whose shader loops 30000 times a vertex, in the default slices and
 * in one (a batch unsplit, as before batches split)
 */
/* The host CPU time this process used, in us (not the wall clock's) */
static gint64 perf_cpu_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static gint64 perf_vertex_job(uint64_t slice, uint64_t *slices)
{
    static const float x[] = { 2, 6, 4, 1, 5, 3 };
    uint64_t at = STREAM;
    gint64 worst = 0;
    Vdm t;

    vdm_init(&t, false);
    t.f.fw.cdm_slice = slice;
    put_looping_shader(&t, 30000);
    for (unsigned i = 0; i < 3 * 16; i++) {
        put32(&t, INDICES + 4 * i, fbits(x[i % 6]));
    }
    at = ppp_state(&t, at, PPP, put_ppp(&t, 0));
    at = vdm_state(&t, at, 0, 6);
    at = draw_indexed(&t, at, PRIM_TRIANGLES, 3 * 16, false);
    terminate(&t, at);
    vdm_submit(&t);
    fake_advance(&t.f, AGX_FW_DEFAULT_JOB_NS - 1);
    for (int n = 0; n < 1000000 && !vdm_retired(&t); n++) {
        gint64 t0 = perf_cpu_us();

        fake_advance(&t.f, AGX_CDM_SLICE_NS);
        worst = MAX(worst, perf_cpu_us() - t0);
    }
    g_assert_true(vdm_retired(&t));
    *slices = t.f.fw.vdm.slices;
    fake_free(&t.f);
    return worst;
}

static void test_perf_split(void)
{
    uint64_t slices, one_slices;
    gint64 worst = perf_vertex_job(0, &slices);
    gint64 one = perf_vertex_job(1ULL << 30, &one_slices);

    /* make bench prints this line (scripts/bench.sh) */
    g_test_message("long vertex job (16 triangles, a 30000-iteration loop "
                   "per vertex): longest vertex slice %.3f ms of %"
                   G_GUINT64_FORMAT " slices; unsplit %.3f ms in %"
                   G_GUINT64_FORMAT " slices; ratio %.4f", worst / 1000.0,
                   slices, one / 1000.0, one_slices,
                   (double)worst / MAX(one, 1));
    g_test_maximized_result(worst, "longest slice %" G_GINT64_FORMAT " us",
                            worst);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vdm/indexed-triangles-are-binned", test_triangles);
    g_test_add_func("/vdm/strip-restarts-and-keeps-winding",
                    test_strip_restart);
    g_test_add_func("/vdm/back-faces-are-culled", test_cull);
    g_test_add_func("/vdm/index-buffer-size-bounds-indices",
                    test_index_bounds);
    g_test_add_func("/vdm/near-clip-keeps-w-positive", test_clip_w);
    g_test_add_func("/vdm/linked-fan-and-indirect-instanced-points",
                    test_link_fan_indirect);
    g_test_add_func("/vdm/unknown-block-faults", test_bad_block);
    g_test_add_func("/vdm/long-stream-runs-in-slices", test_slices);
    g_test_add_func("/vdm/overflow-drops-and-is-reported", test_overflow);
    g_test_add_func("/vdm/clip-distance-cuts", test_clip_distance);
    g_test_add_func("/vdm/window-coordinates-snap", test_subpixel_snap);
    g_test_add_func("/vdm/partial-render-equals-unsplit",
                    test_partial_render);
    g_test_add_func("/vdm/live-scene-holds-pages-until-fragment",
                    test_live_scenes);
    g_test_add_func("/vdm/partial-render-after-earlier-fragment-work",
                    test_partial_after_earlier);
    g_test_add_func("/vdm/restart-run-is-sliced", test_restart_run);
    g_test_add_func("/vdm/random-streams-do-not-crash", test_random_streams);
    g_test_add_func("/vdm/split/looping-shader-any-slice-same-scene",
                    test_split_batches);
    g_test_add_func("/vdm/split/runaway-and-stop-drop-the-batch",
                    test_split_runaway);
    if (g_test_perf()) {
        g_test_add_func("/vdm/perf/longest-slice", test_perf_split);
    }
    return g_test_run();
}
