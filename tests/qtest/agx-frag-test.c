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

int main(int argc, char **argv)
{
    static const char *const fws[] = { "13.5", "12.3" };
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } cases[] = {
        { "clear-renders-every-pixel", test_clear },
        { "migration-mid-render", test_migrate_mid_render },
    };

    g_test_init(&argc, &argv, NULL);
    for (int f = 0; f < ARRAY_SIZE(fws); f++) {
        for (int c = 0; c < ARRAY_SIZE(cases); c++) {
            g_autofree char *path = g_strdup_printf(
                "/apple-m1/agx-frag/%s/%s", fws[f], cases[c].name);

            qtest_add_data_func(path, fws[f], cases[c].fn);
        }
    }
    return g_test_run();
}
