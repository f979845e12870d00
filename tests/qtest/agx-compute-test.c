/*
 * QTest for compute work on the AGX model: a RunCompute job whose CDM
 * control stream launches a shader that writes a buffer; the buffer is
 * checked against a CPU reference.  The stream, USC control words and
 * shader are encoded from the bit tables by the shared builders
 * (agx/agx-cmd.h), and live in GPU-visible memory of the job's VM.
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

/* The job's memory: one GPU-visible allocation; the USC heap above CODE */
#define REGION          0x100000
#define STREAM          0x0000
#define STREAM2         0x1000
#define UNIFORMS        0x3000
#define BUF             0x10000
#define BUF2            0x40000
#define CODE            0x80000
#define CODE_PREAMBLE   0x80400
#define PIPE            0x82000
#define PIPE2           0x82100
#define PIPE_LONG       0x82200
#define CODE_LONG       0x90000
#define LONG_FILL       2000
#define POISON          0xaaaaaaaau
#define SLOT            9
#define USER_VA         0x1000000000ULL

typedef struct Env {
    QTestState *qts;
    AgxDrv drv;
    AgxJob job;
    AgxJobQueue q;
    uint64_t base;              /* GPU VA of the region */
    uint8_t *img;               /* what we write there */
} Env;

static void env_start(Env *env, const char *fw, const char *extra)
{
    uint64_t kva;

    agx_drv_start(&env->drv, fw, extra);
    env->qts = env->drv.qts;
    agx_drv_probe(&env->drv);
    agx_job_init(&env->job, &env->drv);
    agx_drv_clock_step(&env->drv, 1000000);
    /* In the lower half, where drm/asahi puts user memory */
    kva = agx_drv_alloc(&env->drv, AGX_HEAP_GPU, REGION,
                        AGX_PROT_GPU_FW_SHARED_RW);
    env->base = USER_VA;
    agx_drv_map(&env->drv, USER_VA, agx_drv_pa(&env->drv, kva), REGION,
                AGX_PROT_GPU_FW_SHARED_RW);
    env->img = g_malloc0(REGION);
    for (uint32_t o = BUF; o < CODE; o += 4) {
        stl_le_p(env->img + o, POISON);
    }
    agx_job_queue_init(&env->job, &env->q, AGX_JOB_COMPUTE, 0, SLOT);
}

static void env_stop(Env *env)
{
    g_free(env->img);
    agx_drv_stop(&env->drv);
}

/*
 * Two launches: 1000 threads in threadgroups of 32 write BUF through the
 * shader; a called sub-stream launches 700 threads in threadgroups of 7
 * writing BUF2, whose address the preamble puts into the uniforms
 */
static void build_dispatch(Env *env)
{
    const uint32_t g1[3] = { 1000, 1, 1 }, l1[3] = { 32, 1, 1 };
    const uint32_t g2[3] = { 700, 1, 1 }, l2[3] = { 7, 1, 1 };
    uint8_t *m = env->img;
    uint64_t buf2 = env->base + BUF2;
    uint32_t at, code;

    stq_le_p(m + UNIFORMS, env->base + BUF);
    stq_le_p(m + UNIFORMS + 8, 0xdead0000);
    agx_cmd_grid_pipeline(m + PIPE, env->base + UNIFORMS, 0, 0, -1);
    agx_cmd_grid_pipeline(m + PIPE2, env->base + UNIFORMS + 8, 2, 0x100,
                          CODE_PREAMBLE - CODE);
    agx_cmd_grid_shader(m + CODE, 0);
    agx_cmd_grid_shader(m + CODE + 0x100, 2);
    code = CODE_PREAMBLE;
    for (int i = 0; i < 4; i++) {
        code += agx_cmd_op_mov_imm16(m + code, i, buf2 >> (16 * i));
    }
    code += agx_cmd_op_uniform_store4(m + code, 0, 4);
    agx_cmd_op_stop(m + code);

    at = STREAM;
    at += agx_cmd_cdm_launch(m + at, 0x1202, PIPE - CODE, g1, l1);
    at += agx_cmd_cdm_barrier(m + at);
    at += agx_cmd_cdm_link(m + at, env->base + STREAM2, true);
    agx_cmd_cdm_terminate(m + at);
    at = STREAM2;
    at += agx_cmd_cdm_launch(m + at, 0x1202, PIPE2 - CODE, g2, l2);
    at += agx_cmd_cdm_barrier(m + at);
    agx_cmd_cdm_return(m + at);
    agx_drv_write(&env->drv, env->base, env->img, REGION);
}

/* Append the compute command, pointing its parameters at the stream */
static void submit(Env *env)
{
    const AgxCmdLayout *l = agx_cmd_layout(env->drv.v12_3);
    uint64_t blk = agx_job_add_run(&env->job, &env->q, NULL);
    uint64_t p1 = blk + l->params[AGX_CMD_COMPUTE][0];

    agx_drv_w64(&env->drv, p1 + 0x08, env->base + STREAM);
    agx_drv_w64(&env->drv, p1 + 0x30, env->base + CODE);
    agx_job_kick(&env->job, &env->q);
}

/* The CPU's reference: buf[i] = i below the grid, poison above */
static void check_buffer(Env *env, uint64_t off, uint32_t n, uint32_t room)
{
    g_autofree uint32_t *got = g_new(uint32_t, room);

    agx_drv_read(&env->drv, env->base + off, got, 4 * room);
    for (uint32_t i = 0; i < room; i++) {
        g_assert_cmphex(le32_to_cpu(got[i]), ==, i < n ? i : POISON);
    }
}

static void check_done(Env *env)
{
    g_assert_true(agx_job_wait_queue(&env->job, &env->q));
    check_buffer(env, BUF, 1000, 1100);
    check_buffer(env, BUF2, 700, 800);
    g_assert_cmpuint(agx_drv_qom_uint(&env->drv, "cdm-launches"), ==, 2);
    g_assert_cmpuint(agx_drv_qom_uint(&env->drv, "usc-threadgroups"),
                     ==, 32 + 100);
    g_assert_cmpuint(agx_drv_qom_uint(&env->drv, "cdm-faults"), ==, 0);
    g_assert_false(agx_drv_crashed(&env->drv));
}

/* The shaders of a compute job write what the CPU computes */
static void test_shader_writes_buffer(const void *data)
{
    Env env;

    env_start(&env, data, NULL);
    build_dispatch(&env);
    submit(&env);
    check_done(&env);
    env_stop(&env);
}

/* shaders=off: the same job retires, its buffers untouched */
static void test_shaders_off(const void *data)
{
    Env env;

    env_start(&env, data, "-global apple-agx.shaders=off");
    build_dispatch(&env);
    submit(&env);
    g_assert_true(agx_job_wait_queue(&env.job, &env.q));
    check_buffer(&env, BUF, 0, 1100);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-launches"), ==, 0);
    env_stop(&env);
}

/*
 * In small slices, the dispatch is still running when the VM migrates:
 * inside the called sub-stream, after the preamble rewrote the uniforms.
 * The destination finishes it, with the same result.
 */
static void test_migrate_mid_dispatch(const void *data)
{
    Env env;
    uint64_t groups;

    env_start(&env, data, "-global apple-agx.shader-slice=40");
    build_dispatch(&env);
    submit(&env);
    for (int i = 0;
         i < 100 && agx_drv_qom_uint(&env.drv, "usc-threadgroups") <= 32; i++) {
        agx_drv_clock_step_next(&env.drv);
    }
    groups = agx_drv_qom_uint(&env.drv, "usc-threadgroups");
    g_assert_cmpuint(groups, >, 32);
    g_assert_cmpuint(groups, <, 32 + 100);
    g_assert_cmphex(agx_job_stamp(&env.job, SLOT), !=, env.q.value);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "usc-threadgroups"),
                     ==, groups);
    check_done(&env);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-slices"), >, 10);
    env_stop(&env);
}

/*
 * One launch of 1000 threads in threadgroups of 32 whose shader keeps
 * x = thread_position_in_grid.x in r0 across LONG_FILL instructions
 * writing r1..r3, then stores buf[x] = x: each threadgroup spans several
 * slices of 300 instructions
 */
static void build_long_dispatch(Env *env)
{
    const uint32_t g[3] = { 1000, 1, 1 }, l[3] = { 32, 1, 1 };
    uint8_t *m = env->img;
    uint32_t code = CODE_LONG;

    stq_le_p(m + UNIFORMS, env->base + BUF);
    agx_cmd_grid_pipeline(m + PIPE_LONG, env->base + UNIFORMS, 0,
                          CODE_LONG - CODE, -1);
    code += agx_cmd_op_get_sr32(m + code, 0, 80);
    for (int i = 0; i < LONG_FILL; i++) {
        code += agx_cmd_op_mov_imm16(m + code, 2 + i % 6, i);
    }
    code += agx_cmd_op_store32(m + code, 0, 0, 0);
    agx_cmd_op_stop(m + code);
    agx_cmd_cdm_terminate(m + STREAM +
                          agx_cmd_cdm_launch(m + STREAM, 0x1202,
                                             PIPE_LONG - CODE, g, l));
    agx_drv_write(&env->drv, env->base, env->img, REGION);
}

/*
 * The VM migrates while a threadgroup is suspended in the middle of its
 * shader (its registers hold x): the destination resumes it, the buffer
 * is the CPU's reference, and the slices are those of a run that did not
 * migrate (a threadgroup started again would take more)
 */
static void test_migrate_mid_threadgroup(const void *data)
{
    Env env;
    uint64_t groups, suspended, slices;

    /* unmigrated: how many slices the dispatch takes */
    env_start(&env, data, "-global apple-agx.shader-slice=300");
    build_long_dispatch(&env);
    submit(&env);
    g_assert_true(agx_job_wait_queue(&env.job, &env.q));
    check_buffer(&env, BUF, 1000, 1100);
    slices = agx_drv_qom_uint(&env.drv, "cdm-slices");
    env_stop(&env);

    env_start(&env, data, "-global apple-agx.shader-slice=300");
    build_long_dispatch(&env);
    submit(&env);
    for (int i = 0;
         i < 1000 && agx_drv_qom_uint(&env.drv, "cdm-suspensions") < 20; i++) {
        agx_drv_clock_step_next(&env.drv);
    }
    groups = agx_drv_qom_uint(&env.drv, "usc-threadgroups");
    suspended = agx_drv_qom_uint(&env.drv, "cdm-suspensions");
    g_assert_cmpuint(suspended, >=, 20);
    g_assert_cmpuint(groups, <, 32);
    g_assert_cmphex(agx_job_stamp(&env.job, SLOT), !=, env.q.value);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-suspensions"),
                     ==, suspended);
    g_assert_true(agx_job_wait_queue(&env.job, &env.q));
    check_buffer(&env, BUF, 1000, 1100);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "usc-threadgroups"), ==, 32);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-suspensions"),
                     >, suspended);
    /* it went on where it was: the slices end where they would have */
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-slices"), ==, slices);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-faults"), ==, 0);
    g_assert_false(agx_drv_crashed(&env.drv));
    env_stop(&env);
}

/*
 * One launch of 1000 threads in threadgroups of 32 whose preamble runs
 * LONG_FILL instructions, then puts BUF2's address into the uniforms the
 * shader writes through: in slices of 300 instructions, the preamble
 * spans several
 */
static void build_long_preamble(Env *env)
{
    const uint32_t g[3] = { 1000, 1, 1 }, l[3] = { 32, 1, 1 };
    uint8_t *m = env->img;
    uint64_t buf2 = env->base + BUF2;
    uint32_t code = CODE_LONG;

    stq_le_p(m + UNIFORMS, env->base + BUF);
    agx_cmd_grid_pipeline(m + PIPE_LONG, env->base + UNIFORMS, 0, 0,
                          CODE_LONG - CODE);
    agx_cmd_grid_shader(m + CODE, 0);
    for (int i = 0; i < LONG_FILL; i++) {
        code += agx_cmd_op_mov_imm16(m + code, 4 + i % 4, i);
    }
    for (int i = 0; i < 4; i++) {
        code += agx_cmd_op_mov_imm16(m + code, i, buf2 >> (16 * i));
    }
    code += agx_cmd_op_uniform_store4(m + code, 0, 0);
    agx_cmd_op_stop(m + code);
    agx_cmd_cdm_terminate(m + STREAM +
                          agx_cmd_cdm_launch(m + STREAM, 0x1202,
                                             PIPE_LONG - CODE, g, l));
    agx_drv_write(&env->drv, env->base, env->img, REGION);
}

/*
 * The VM migrates while the launch's preamble is suspended in its middle
 * (no threadgroup ran yet): the destination resumes it, its uniform
 * store reaches the threadgroups (BUF2 written, BUF not), and the slices
 * are those of a run that did not migrate
 */
static void test_migrate_mid_preamble(const void *data)
{
    Env env;
    uint64_t suspended, slices;

    env_start(&env, data, "-global apple-agx.shader-slice=300");
    build_long_preamble(&env);
    submit(&env);
    g_assert_true(agx_job_wait_queue(&env.job, &env.q));
    check_buffer(&env, BUF2, 1000, 1100);
    check_buffer(&env, BUF, 0, 1100);
    slices = agx_drv_qom_uint(&env.drv, "cdm-slices");
    env_stop(&env);

    env_start(&env, data, "-global apple-agx.shader-slice=300");
    build_long_preamble(&env);
    submit(&env);
    for (int i = 0;
         i < 1000 && agx_drv_qom_uint(&env.drv, "cdm-suspensions") < 3; i++) {
        agx_drv_clock_step_next(&env.drv);
    }
    suspended = agx_drv_qom_uint(&env.drv, "cdm-suspensions");
    g_assert_cmpuint(suspended, ==, 3);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "usc-threadgroups"), ==, 0);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-suspensions"),
                     ==, suspended);
    g_assert_true(agx_job_wait_queue(&env.job, &env.q));
    check_buffer(&env, BUF2, 1000, 1100);
    check_buffer(&env, BUF, 0, 1100);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "usc-threadgroups"), ==, 32);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-slices"), ==, slices);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-faults"), ==, 0);
    g_assert_false(agx_drv_crashed(&env.drv));
    env_stop(&env);
}

/* A stream with an unknown block fails the job with a GPU fault */
static void test_bad_stream_faults(const void *data)
{
    Env env;

    env_start(&env, data, NULL);
    stl_le_p(env.img + STREAM, 7u << 29);
    agx_drv_write(&env.drv, env.base, env.img, 0x100);
    submit(&env);
    for (int i = 0; i < 100 && !env.job.fault_events; i++) {
        agx_drv_clock_step_next(&env.drv);
        agx_job_poll_events(&env.job);
    }
    g_assert_cmpuint(env.job.fault_events, ==, 1);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "cdm-faults"), ==, 1);
    g_assert_true(agx_drv_logged(&env.drv, "unknown block"));
    g_assert_false(agx_drv_crashed(&env.drv));
    env_stop(&env);
}

int main(int argc, char **argv)
{
    static const char *const fws[] = { "13.5", "12.3" };
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } cases[] = {
        { "shader-writes-buffer", test_shader_writes_buffer },
        { "shaders-off-writes-nothing", test_shaders_off },
        { "migration-mid-dispatch", test_migrate_mid_dispatch },
        { "migration-mid-threadgroup", test_migrate_mid_threadgroup },
        { "migration-mid-preamble", test_migrate_mid_preamble },
        { "bad-stream-faults-the-job", test_bad_stream_faults },
    };

    g_test_init(&argc, &argv, NULL);
    for (int f = 0; f < ARRAY_SIZE(fws); f++) {
        for (int c = 0; c < ARRAY_SIZE(cases); c++) {
            g_autofree char *path = g_strdup_printf(
                "/apple-m1/agx-compute/%s/%s", fws[f], cases[c].name);

            qtest_add_data_func(path, fws[f], cases[c].fn);
        }
    }
    return g_test_run();
}
