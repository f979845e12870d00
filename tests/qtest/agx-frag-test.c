/*
 * QTest for fragment work on the AGX model: a RunFragment job whose
 * background program clears the tilebuffer and whose end-of-tile program
 * stores it into a linear RGBA8 image; the image is checked against the
 * clear colour, also when the VM migrates in the middle of the job.  The
 * USC control words (cmdbuf.xml) and instructions (Mesa's agx_pack.c
 * layouts) are encoded here and live in GPU-visible memory of the job's
 * VM.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "agx-cmd.h"
#include "usc-asm.h"
#include "agx/agx-job.h"

/* The job's memory: one GPU-visible allocation; the USC heap from WORDS */
#define REGION          0x100000
#define UNIFORMS        0x0000
#define PBE             0x0100
#define IMAGE           0x10000
#define WORDS           0x80000         /* USC offset 0 */
#define BG_WORDS        0x80000
#define EOT_WORDS       0x80100
#define BG_CODE         0x81000
#define EOT_CODE        0x82000
#define SLOT            10
#define USER_VA         0x1000000000ULL
/* 512 x 96 pixels in 16x16 tiles: 192 tiles, several slices */
#define FB_W            512
#define FB_H            96
#define TILES           (FB_W / 16 * FB_H / 16)
#define STRIDE          (FB_W * 4)
#define POISON          0xa5

typedef struct Env {
    QTestState *qts;
    AgxDrv drv;
    AgxJob job;
    AgxJobQueue q;
    uint8_t *img;               /* what we write to the region */
} Env;

static const uint8_t clear_rgba[4] = { 51, 102, 153, 255 };

static void env_start(Env *env, const char *fw, const char *extra)
{
    uint64_t kva;

    agx_drv_start(&env->drv, fw, extra);
    env->qts = env->drv.qts;
    agx_drv_probe(&env->drv);
    agx_job_init(&env->job, &env->drv);
    agx_drv_clock_step(&env->drv, 1000000);
    kva = agx_drv_alloc(&env->drv, AGX_HEAP_GPU, REGION,
                        AGX_PROT_GPU_FW_SHARED_RW);
    agx_drv_map(&env->drv, USER_VA, agx_drv_pa(&env->drv, kva), REGION,
                AGX_PROT_GPU_FW_SHARED_RW);
    env->img = g_malloc0(REGION);
    memset(env->img + IMAGE, POISON, STRIDE * FB_H);
    agx_job_queue_init(&env->job, &env->q, AGX_JOB_FRAGMENT, 0, SLOT);
}

static void env_stop(Env *env)
{
    g_free(env->img);
    agx_drv_stop(&env->drv);
}

static unsigned put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = v >> (8 * i);
    }
    return n;
}

/*
 * USC words (cmdbuf.xml): Uniform (halves 4..11) or Texture (state 0),
 * Shared (16x16 tiles, one 8-byte sample), Shader, Registers, No
 * Preshader
 */
static unsigned words(uint8_t *p, bool eot, uint32_t code)
{
    unsigned n = 0;

    if (eot) {
        n += put(p + n, 0xdd | 1u << 20 |
                 (uint64_t)((USER_VA + PBE) >> 3) << 27, 8);
    } else {
        n += put(p + n, 0x1d | 4 << 8 | 8u << 20 |
                 (uint64_t)((USER_VA + UNIFORMS) >> 2) << 26, 8);
    }
    n += put(p + n, 0x4d | 1 << 8 | 0x36 << 10 | 1 << 20 | 8u << 24, 4);
    n += put(p + n, 0x0d | (uint64_t)code << 16, 6);
    n += put(p + n, 0x8d | 2 << 8, 4);
    return n + put(p + n, 0x88, 2);
}

/*
 * The programs, as Gallium's clear ran in the Mesa guest (Mesa 26.1.6,
 * agxdecode): background, r0..r3 = u2..u5 then st_tile u8norm xyzw of
 * every sample; end of tile, r0 = 0 then block_image_store u8norm through
 * texture state 0 at the tile's origin
 */
static void build_programs(Env *env)
{
    static const uint8_t bg[] = {
        0x7e, 0x01, 0x84, 0x09, 0x80, 0x00, 0x7e, 0x05, 0x86, 0x09, 0x80,
        0x00, 0x7e, 0x09, 0x88, 0x09, 0x80, 0x00, 0x7e, 0x0d, 0x8a, 0x09,
        0x80, 0x00, 0x09, 0x01, 0x00, 0x04, 0xf0, 0xfc, 0x00, 0x03, 0x88,
        0x00,
    };
    static const uint8_t eot[] = {
        0x62, 0x01, 0x00, 0x00, 0x00, 0x00, 0xb1, 0x80, 0x00, 0x80, 0x00,
        0x4a, 0x00, 0x00, 0x0a, 0x00, 0x88, 0x00,
    };
    static const float rgba[4] = { 0.2f, 0.4f, 0.6f, 1.0f };
    uint8_t *m = env->img;

    for (int c = 0; c < 4; c++) {
        uint32_t u;

        memcpy(&u, &rgba[c], 4);
        stl_le_p(m + UNIFORMS + 4 * c, u);
    }
    memcpy(m + BG_CODE, bg, sizeof(bg));
    memcpy(m + EOT_CODE, eot, sizeof(eot));
    words(m + BG_WORDS, false, BG_CODE - WORDS);
    words(m + EOT_WORDS, true, EOT_CODE - WORDS);
    /* PBE: 2D, linear, R8G8B8A8 unorm, identity swizzle, FB_W x FB_H */
    stq_le_p(m + PBE, 2 | 0x28 << 6 | (uint64_t)(0xe4) << 16 |
             (uint64_t)(FB_W - 1) << 24 | (uint64_t)(FB_H - 1) << 38);
    stq_le_p(m + PBE + 8, ((USER_VA + IMAGE) >> 4) |
             (uint64_t)(STRIDE - 4) << 40);
    agx_drv_write(&env->drv, USER_VA, env->img, REGION);
}

/* Append the fragment command, its parameters naming the programs */
static void submit(Env *env)
{
    const AgxCmdLayout *l = agx_cmd_layout(env->drv.v12_3);
    uint64_t blk = agx_job_add_run(&env->job, &env->q, NULL);
    uint64_t p2 = blk + l->params[AGX_CMD_FRAGMENT][0];
    uint64_t p1 = blk + l->params[AGX_CMD_FRAGMENT][1];
    unsigned usc_base = env->drv.v12_3 ? 0x138 : 0x140;

    /* FragmentJobParameters1: bg, AuxFBInfo width and height */
    agx_drv_w64(&env->drv, p1 + 0x10, (BG_WORDS - WORDS) | 4);
    agx_drv_w32(&env->drv, p1 + 0x30 + 8, FB_W);
    agx_drv_w32(&env->drv, p1 + 0x30 + 0xc, FB_H);
    agx_drv_w64(&env->drv, p1 + usc_base, USER_VA + WORDS);
    /* FragmentJobParameters2: eot_usc */
    agx_drv_w32(&env->drv, p2 + 4, (EOT_WORDS - WORDS) | 4);
    /*
     * RunFragment.ppp_multisamplectl (after tvb_tilemap): one sample at
     * the centre, as Mesa gives it (and the migration stream carries it)
     */
    agx_drv_w64(&env->drv, blk + (env->drv.v12_3 ? 0x40 : 0x48), 0x88);
    agx_job_kick(&env->job, &env->q);
}

static void check_image(Env *env)
{
    g_autofree uint8_t *got = g_malloc(STRIDE * FB_H);

    agx_drv_read(&env->drv, USER_VA + IMAGE, got, STRIDE * FB_H);
    for (uint32_t i = 0; i < FB_W * FB_H; i++) {
        g_assert_cmpmem(got + 4 * i, 4, clear_rgba, 4);
    }
}

static void check_done(Env *env)
{
    g_assert_true(agx_job_wait_queue(&env->job, &env->q));
    check_image(env);
    g_assert_cmpuint(agx_drv_qom_uint(&env->drv, "frag-tiles"), ==, TILES);
    g_assert_cmpuint(agx_drv_qom_uint(&env->drv, "frag-faults"), ==, 0);
    g_assert_false(agx_drv_crashed(&env->drv));
}

/* A clear renders every pixel of the image */
static void test_clear(const void *data)
{
    Env env;

    env_start(&env, data, NULL);
    build_programs(&env);
    submit(&env);
    check_done(&env);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-slices"), >, 1);
    env_stop(&env);
}

/*
 * The job is rendering (some tiles done, not all) when the VM migrates;
 * the destination renders the rest, with the same image
 */
static void test_migrate_mid_render(const void *data)
{
    Env env;
    uint64_t tiles;

    env_start(&env, data, NULL);
    build_programs(&env);
    submit(&env);
    for (int i = 0;
         i < 100 && agx_drv_qom_uint(&env.drv, "frag-tiles") == 0; i++) {
        agx_drv_clock_step_next(&env.drv);
    }
    tiles = agx_drv_qom_uint(&env.drv, "frag-tiles");
    g_assert_cmpuint(tiles, >, 0);
    g_assert_cmpuint(tiles, <, TILES);
    g_assert_cmphex(agx_job_stamp(&env.job, SLOT), !=, env.q.value);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-tiles"), ==, tiles);
    check_done(&env);
    env_stop(&env);
}

/*
 * The clear's background program with a loop first: r4 and r5 count
 * LOOP_N iterations (r6 the bound), then r0..r3 = u2..u5 + r4 - r5, the
 * clear colour only if the loop's registers outlived every suspension
 * in its middle
 */
#define LOOP_N          24

static void build_looping_background(Env *env)
{
    static const uint8_t st_tile_rgba[] = {
        0x09, 0x01, 0x00, 0x04, 0xf0, 0xfc, 0x00, 0x03,
    };
    Asm a = { 0 };
    uint32_t body;

    mov_imm32(&a, 4, 0);
    mov_imm32(&a, 5, 0);
    mov_imm32(&a, 6, LOOP_N);
    PUSH_EXEC(&a, 1);
    body = a.n;
    iadd(&a, D32(4), R32(4), IMM(1), false, 0, false);
    iadd(&a, D32(5), R32(5), IMM(1), false, 0, false);
    WHILE_ICMP(&a, 1, 1, false, R32(5), R32(6));
    jmp(&a, false, body - a.n);
    pop_exec(&a, 1);
    iadd(&a, D32(4), R32(4), R32(5), true, 0, false);
    for (int c = 0; c < 4; c++) {
        iadd(&a, D32(c), U32(2 + c), R32(4), false, 0, false);
    }
    memcpy(a.b + a.n, st_tile_rgba, sizeof(st_tile_rgba));
    a.n += sizeof(st_tile_rgba);
    footer(&a);
    memcpy(env->img + BG_CODE, a.b, a.n);
    agx_drv_write(&env->drv, USER_VA + BG_CODE, a.b, a.n);
}

/*
 * The VM migrates while a tile's background program is suspended in the
 * middle of a SIMD-group (in slices of 300 instructions, a tile takes
 * several): the destination resumes it, the image is the clear colour,
 * and the slices are those of a render that did not migrate (a tile
 * started again would take more)
 */
static void test_migrate_mid_tile(const void *data)
{
    Env env;
    uint64_t tiles, suspended, slices;

    /* unmigrated: how many slices the render takes */
    env_start(&env, data, "-global apple-agx.shader-slice=300");
    build_programs(&env);
    build_looping_background(&env);
    submit(&env);
    check_done(&env);
    slices = agx_drv_qom_uint(&env.drv, "frag-slices");
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-suspensions"), >,
                     TILES);
    env_stop(&env);

    env_start(&env, data, "-global apple-agx.shader-slice=300");
    build_programs(&env);
    build_looping_background(&env);
    submit(&env);
    suspended = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t before = suspended;

        agx_drv_clock_step_next(&env.drv);
        suspended = agx_drv_qom_uint(&env.drv, "frag-suspensions");
        /* this slice ended inside a tile, some tiles after the first */
        if (suspended > before && suspended >= 20) {
            break;
        }
    }
    tiles = agx_drv_qom_uint(&env.drv, "frag-tiles");
    g_assert_cmpuint(suspended, >=, 20);
    g_assert_cmpuint(tiles, >, 0);
    g_assert_cmpuint(tiles, <, TILES);
    g_assert_cmphex(agx_job_stamp(&env.job, SLOT), !=, env.q.value);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-suspensions"),
                     ==, suspended);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-tiles"), ==, tiles);
    check_done(&env);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-suspensions"),
                     >, suspended);
    /* it went on where it was: the slices end where they would have */
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-slices"), ==, slices);
    env_stop(&env);
}

/*
 * A partial render across migrations (13.5).  A vertex job bins 2100
 * triangles (its vertex shader makes x from the vertex id, whose indices
 * are the bits of floats, y = x * x) into a TVB of 4 pages; the render's
 * fragment command waits behind a Barrier in a fragment queue of the
 * same context, named by the vertex command's fragment stamp slot and
 * value, and carries partial programs.  The fragment shader counts, per
 * pixel, how often it ran (at COUNTS, its pixel from
 * thread_position_in_grid); the scene does not fit, so it is rendered in
 * passes.  The VM migrates after the first partial render and again a
 * step later; the counts must equal those of the same render on 16 pages
 * (no partial render, no migration).  Offsets: the 13.5 layouts
 * (drm/asahi fw/vertex.rs, fragment.rs, buffer.rs).
 */
#define PR_STREAM       0x0000
#define PR_PPP          0x2000
#define PR_INDICES      0x3000
#define PR_USC          0x20000         /* USC offset 0 */
#define PR_VPIPE        0x20000
#define PR_VCODE        0x20100
#define PR_FS_WORDS     0x20400
#define PR_FS_CODE      0x20800
#define PR_BG_WORDS     0x20c00         /* bg, partial bg, eot, partial eot */
#define PR_BG_CODE      0x21000
#define PR_COUNTS       0x30000         /* 64 x 64 u32 */
#define PR_RUNS         0x38000
#define PR_SIZE         64
#define PR_VSLOT        11
#define PR_FSLOT        12
#define PR_DRAWS        21              /* of 100 triangles */

static uint64_t pr_scene, pr_info;

/* FinalizeVertex names the Scene and buffer::Info (fw/microseq.rs) */
static void pr_patch_finalize(uint8_t *useq, uint32_t *size)
{
    const AgxCmdLayout *l = agx_cmd_layout(false);
    uint32_t fin = l->start_size[AGX_CMD_VERTEX] + 2 * l->ts_size + 4;

    g_assert_cmpuint(useq[fin] & 0x3f, ==, 0x23);
    stq_le_p(useq + fin + 0x04, pr_scene);
    stq_le_p(useq + fin + 0x0c, pr_info);
}

static uint32_t pr_fbits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

/* USC words of a program at @code, u0..u1 the address at @data */
static void pr_words(uint8_t *m, uint32_t words, uint32_t code,
                     uint32_t data, const Asm *a)
{
    unsigned n;

    stq_le_p(m + data - 8, USER_VA + data);
    memcpy(m + code, a->b, a->n);
    n = agx_cmd_usc_uniform(m + words, 0, 4, USER_VA + data - 8);
    n += agx_cmd_usc_shader(m + words + n, code - PR_USC);
    n += agx_cmd_usc_registers(m + words + n, 128);
    agx_cmd_usc_no_preshader(m + words + n);
}

/* The vertex shader (x = r5, y = r5 * r5, z 0, w 1; outputs 4, 5) */
static void pr_vertex_shader(uint8_t *m)
{
    uint8_t *p = m + PR_VCODE;
    uint64_t r5 = 10 | 9u << 6;
    uint64_t fmul = 0x1a | 1u << 8 | 4u << 9 | 1u << 15 | r5 << 16 |
                    r5 << 28;
    uint64_t mov = 0x62 | 1u << 8 | 6u << 9 | (uint64_t)pr_fbits(1) << 16;
    static const unsigned outs[6][2] = {
        { 10, 0 }, { 4, 1 }, { 8, 2 }, { 6, 3 }, { 10, 4 }, { 12, 5 },
    };
    unsigned n = 0;

    n += put(p + n, fmul, 6);
    n += put(p + n, mov, 6);
    for (int i = 0; i < 6; i++) {
        n += put(p + n, 0x11 | (i == 5 ? 1u << 7 : 0) |
                 (outs[i][0] & 0x3f) << 9 | (outs[i][1] & 0x3f) << 16 |
                 1u << 23 | 0x8u << 28, 4);
    }
    n += agx_cmd_op_stop(p + n);
    for (int i = 0; i < 8; i++) {
        n += put(p + n, 0x0008, 2);
    }
    n = agx_cmd_usc_shader(m + PR_VPIPE, PR_VCODE - PR_USC);
    n += agx_cmd_usc_registers(m + PR_VPIPE + n, 16);
    agx_cmd_usc_no_preshader(m + PR_VPIPE + n);
}

/* The counting fragment shader and the four tile programs */
static void pr_programs(uint8_t *m)
{
    Asm a = { 0 };

    asm_count_pixel(&a, PR_SIZE);
    pr_words(m, PR_FS_WORDS, PR_FS_CODE, PR_COUNTS, &a);
    for (unsigned k = 0; k < 4; k++) {
        memset(&a, 0, sizeof(a));
        asm_count_word(&a, k);
        pr_words(m, PR_BG_WORDS + 0x40 * k, PR_BG_CODE + 0x200 * k, PR_RUNS,
                 &a);
    }
}

/*
 * The stream: a PPP update (faces Always without depth writes, identity
 * viewport, one varying, no culling, the fragment shader), VDM State,
 * PR_DRAWS indexed triangle lists of the indices at PR_INDICES
 */
static void pr_stream(uint8_t *m)
{
    uint32_t face = 7u << 24 | 1u << 21;
    uint32_t ppp[] = {
        1u << 2 | 1u << 5 | 1u << 11 | 1u << 18 | 1u << 21 | 1u << 23,
        face, face, 0, 0, pr_fbits(1), 0, pr_fbits(1), 0, pr_fbits(1),
        2, 0, 0, PR_FS_WORDS - PR_USC, 0, 0,
    };
    uint64_t at = PR_STREAM, ib = USER_VA + PR_INDICES;

    for (unsigned i = 0; i < G_N_ELEMENTS(ppp); i++) {
        stl_le_p(m + PR_PPP + 4 * i, ppp[i]);
    }
    for (unsigned i = 0; i < 300; i++) {
        static const float x[] = { 1, 7, 4 };

        stl_le_p(m + PR_INDICES + 4 * i,
                 pr_fbits(x[i % 3] + (i / 3) % 5 * 0.25f));
    }
    stl_le_p(m + at, G_N_ELEMENTS(ppp) << 8 |
             (uint32_t)((USER_VA + PR_PPP) >> 32));
    stl_le_p(m + at + 4, (uint32_t)(USER_VA + PR_PPP));
    at += 8;
    stl_le_p(m + at, 2u << 29 | 0xf);
    stl_le_p(m + at + 4, 0);
    stl_le_p(m + at + 8, 0);
    stl_le_p(m + at + 12, PR_VPIPE - PR_USC);
    stl_le_p(m + at + 16, 6 | 6 << 8);
    at += 24;
    for (int d = 0; d < PR_DRAWS; d++) {
        stl_le_p(m + at, 3u << 29 | 6u << 8 | 2u << 17 | 1u << 20 |
                 1u << 21 | 1u << 22 | 1u << 23 | 1u << 24 |
                 (uint32_t)(ib >> 32));
        stl_le_p(m + at + 4, (uint32_t)ib);
        stl_le_p(m + at + 8, 300);
        stl_le_p(m + at + 12, 1);
        stl_le_p(m + at + 16, 0);
        stl_le_p(m + at + 20, 300);
        at += 24;
    }
    stl_le_p(m + at, 6u << 29);
}

/* One render on @npages TVB pages: its pixel counts into @counts */
static void pr_render(const char *fw, unsigned npages, bool migrate,
                      const char *extra, uint32_t *counts)
{
    const AgxCmdLayout *l = agx_cmd_layout(false);
    uint8_t qi[0xc0];
    AgxJobQueue vq, fq;
    uint64_t kva, plist, pages, tilemap, stats, ctl, vrec, frec, p1, p2, p3;
    uint64_t partials = 0;
    bool mid_batch = false;
    Env env;

    env_start(&env, fw, extra);
    memset(env.img, 0, REGION);
    pr_vertex_shader(env.img);
    pr_programs(env.img);
    pr_stream(env.img);
    agx_drv_write(&env.drv, USER_VA, env.img, REGION);
    /* The buffer: Info, BlockControl, page list, 32 KiB aligned pages */
    pr_info = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, 0xc0,
                            AGX_PROT_GPU_FW_SHARED_RW);
    ctl = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, 0x40,
                        AGX_PROT_GPU_FW_SHARED_RW);
    plist = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, 4 * npages,
                          AGX_PROT_GPU_FW_SHARED_RW);
    kva = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, (npages + 1) * 0x8000ULL,
                        AGX_PROT_GPU_FW_SHARED_RW);
    pages = (kva + 0x7fff) & ~0x7fffULL;
    for (unsigned i = 0; i < npages; i++) {
        agx_drv_w32(&env.drv, plist + 4 * i, (pages >> 15) + i);
    }
    agx_drv_w32(&env.drv, pr_info + 0x30, npages / 4);     /* block_count */
    agx_drv_w64(&env.drv, pr_info + 0x40, ctl);            /* block_ctl */
    agx_drv_w64(&env.drv, pr_info + 0x1c, plist);          /* page_list */
    tilemap = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, 4 * 20 * 16,
                            AGX_PROT_GPU_FW_SHARED_RW);
    pr_scene = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, 0x48,
                             AGX_PROT_GPU_FW_SHARED_RW);
    stats = agx_drv_alloc(&env.drv, AGX_HEAP_GPU, 0x40,
                          AGX_PROT_GPU_FW_SHARED_RW);
    agx_drv_w64(&env.drv, pr_scene + 0x2c, stats);
    /* One render queue: vertex and fragment queues share a context */
    agx_job_queue_init(&env.job, &vq, AGX_JOB_VERTEX, 0, PR_VSLOT);
    agx_job_queue_init(&env.job, &fq, AGX_JOB_FRAGMENT, 0, PR_FSLOT);
    fq.ctx_va = vq.ctx_va;
    agx_cmd_build_queue_info(l, qi, fq.state_va, fq.ring_va, fq.ctx_va,
                             PR_FSLOT);
    agx_drv_write(&env.drv, fq.info_va, qi, l->qi_size);
    /* The fragment command behind a Barrier on the vertex command */
    agx_job_add_barrier(&env.job, &fq, &vq, vq.value + AGX_JOB_STAMP_STEP);
    frec = agx_job_add_run(&env.job, &fq, NULL);
    p2 = frec + l->params[AGX_CMD_FRAGMENT][0];
    p1 = frec + l->params[AGX_CMD_FRAGMENT][1];
    p3 = frec + 0x4b8;                          /* job_params3 */
    agx_drv_w64(&env.drv, frec + 0x30, pr_scene);
    agx_drv_w64(&env.drv, frec + 0x40, tilemap);
    agx_drv_w64(&env.drv, p1 + 0x10, (PR_BG_WORDS - PR_USC) | 4);
    agx_drv_w32(&env.drv, p1 + 0x30 + 8, PR_SIZE);
    agx_drv_w32(&env.drv, p1 + 0x30 + 0xc, PR_SIZE);
    agx_drv_w64(&env.drv, p1 + 0x140, USER_VA + PR_USC);
    agx_drv_w32(&env.drv, p2 + 4, (PR_BG_WORDS + 0x80 - PR_USC) | 4);
    /* partial_bg.address, partial_eot.address */
    agx_drv_w64(&env.drv, p3 + 0x188 + 8, (PR_BG_WORDS + 0x40 - PR_USC) | 4);
    agx_drv_w32(&env.drv, p3 + 0x268 + 0x14,
                (PR_BG_WORDS + 0xc0 - PR_USC) | 4);
    agx_job_kick(&env.job, &fq);
    /* The vertex command, naming the buffer, Scene and fragment command */
    vrec = agx_job_add_run(&env.job, &vq, pr_patch_finalize);
    p1 = vrec + l->params[AGX_CMD_VERTEX][1];
    p2 = vrec + l->params[AGX_CMD_VERTEX][0];  /* tiling parameters */
    agx_drv_w64(&env.drv, vrec + 0x24, pr_info);
    agx_drv_w64(&env.drv, vrec + 0x2c, pr_scene);
    agx_drv_w32(&env.drv, vrec + 0x480, PR_FSLOT);
    agx_drv_w32(&env.drv, vrec + 0x484, fq.value);
    agx_drv_w32(&env.drv, p2, 20);                         /* rgn_size */
    agx_drv_w32(&env.drv, p2 + 0xc, (PR_SIZE - 1) | (PR_SIZE - 1) << 16);
    agx_drv_w32(&env.drv, p2 + 0x28, 0x8000);
    agx_drv_w64(&env.drv, p1 + 0x10, tilemap);
    agx_drv_w64(&env.drv, p1 + 0x90, USER_VA + PR_STREAM);
    agx_drv_w64(&env.drv, p1 + 0xe0, USER_VA + PR_USC);
    agx_job_kick(&env.job, &vq);
    for (int i = 0; migrate && i < 100000 && !partials; i++) {
        agx_drv_clock_step_next(&env.drv);
        partials = agx_drv_qom_uint(&env.drv, "vdm-partials");
    }
    for (int i = 0; migrate && extra && !mid_batch && i < 10000; i++) {
        uint64_t before = agx_drv_qom_uint(&env.drv, "vdm-suspensions");

        /* small slices: until one ends inside a vertex batch */
        agx_drv_clock_step_next(&env.drv);
        mid_batch = agx_drv_qom_uint(&env.drv, "vdm-suspensions") > before;
    }
    g_assert_true(mid_batch || !extra || !migrate);
    if (migrate) {
        g_assert_cmpuint(partials, >, 0);
        g_assert_cmphex(agx_job_stamp(&env.job, PR_VSLOT), !=, vq.value);
        agx_drv_migrate(&env.drv);
        env.qts = env.drv.qts;
        agx_drv_clock_step_next(&env.drv);
        agx_drv_migrate(&env.drv);
        env.qts = env.drv.qts;
    }
    g_assert_true(agx_job_wait_queue(&env.job, &vq));
    g_assert_true(agx_job_wait_queue(&env.job, &fq));
    g_assert_false(agx_drv_crashed(&env.drv));
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "frag-faults"), ==, 0);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "vdm-faults"), ==, 0);
    if (migrate) {
        g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "vdm-partials"), >=, 2);
    } else {
        g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "vdm-partials"), ==, 0);
    }
    agx_drv_read(&env.drv, USER_VA + PR_COUNTS, counts,
                 4 * PR_SIZE * PR_SIZE);
    env_stop(&env);
}

static void test_partial_migrate(const void *data)
{
    g_autofree uint32_t *split = g_new(uint32_t, PR_SIZE * PR_SIZE);
    g_autofree uint32_t *whole = g_new(uint32_t, PR_SIZE * PR_SIZE);
    uint64_t sum = 0;

    pr_render(data, 16, false, NULL, whole);
    pr_render(data, 4, true, NULL, split);
    for (unsigned i = 0; i < PR_SIZE * PR_SIZE; i++) {
        g_assert_cmpuint(le32_to_cpu(split[i]), ==, le32_to_cpu(whole[i]));
        sum += le32_to_cpu(whole[i]);
    }
    g_assert_cmpuint(sum, >, 1000);
}

/*
 * The same in slices of 7 instructions, which end inside the vertex
 * shader's batches and the tiles of the partial renders: the VM migrates
 * in the middle of a batch, then after the next slice (inside a batch or
 * a partial render's tile), and the counts are the unsplit render's
 */
static void test_partial_migrate_sliced(const void *data)
{
    g_autofree uint32_t *split = g_new(uint32_t, PR_SIZE * PR_SIZE);
    g_autofree uint32_t *whole = g_new(uint32_t, PR_SIZE * PR_SIZE);

    pr_render(data, 16, false, NULL, whole);
    pr_render(data, 4, true, "-global apple-agx.shader-slice=7", split);
    for (unsigned i = 0; i < PR_SIZE * PR_SIZE; i++) {
        g_assert_cmpuint(le32_to_cpu(split[i]), ==, le32_to_cpu(whole[i]));
    }
}

int main(int argc, char **argv)
{
    static const char *const fws[] = { "13.5", "12.3" };
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } cases[] = {
        { "clear-renders-every-pixel", test_clear },
        { "migration-mid-render", test_migrate_mid_render },
        { "migration-mid-tile", test_migrate_mid_tile },
    };

    g_test_init(&argc, &argv, NULL);
    for (int f = 0; f < ARRAY_SIZE(fws); f++) {
        for (int c = 0; c < ARRAY_SIZE(cases); c++) {
            g_autofree char *path = g_strdup_printf(
                "/apple-m1/agx-frag/%s/%s", fws[f], cases[c].name);

            qtest_add_data_func(path, fws[f], cases[c].fn);
        }
    }
    qtest_add_data_func("/apple-m1/agx-frag/13.5/partial-render-migrates",
                        "13.5", test_partial_migrate);
    qtest_add_data_func("/apple-m1/agx-frag/13.5/"
                        "partial-render-migrates-mid-batch",
                        "13.5", test_partial_migrate_sliced);
    return g_test_run();
}
