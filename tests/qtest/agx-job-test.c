/*
 * QTest for job execution in the AGX firmware model: work queues on every
 * pipe and priority, microsequences, stamps, Flag events, barriers between
 * queues, ring wrap-around, context teardown and bad microsequences
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "agx-cmd.h"
#include "agx/agx-job.h"
#include "agx-record.h"

#define JOB_NS          20000
/* What the CPUs' CNTVCT reads at virtual time @ns: QEMU counts ns / 41 */
#define CNTVCT(ns)      ((uint64_t)(ns) / (1000000000 / 24000000))

typedef struct Env {
    QTestState *qts;
    AgxDrv drv;
    AgxJob job;
} Env;

static void env_start(Env *env, const char *fw)
{
    agx_drv_start(&env->drv, fw, NULL);
    env->qts = env->drv.qts;
    agx_drv_probe(&env->drv);
    agx_job_init(&env->job, &env->drv);
    /* Start the GPU clock away from zero */
    agx_drv_clock_step(&env->drv, 1000000);
}

static void env_stop(Env *env)
{
    agx_drv_stop(&env->drv);
}

static bool fw_crashed(Env *env)
{
    return agx_drv_crashed(&env->drv);
}

static uint64_t ts(Env *env, uint64_t blk, bool end)
{
    return agx_drv_r64(&env->drv, blk + (end ? 0xf08 : 0xf00));
}

/* One job on every pipe and priority: stamps, timestamps, one Flag each */
static void test_every_pipe_and_priority(const void *data)
{
    Env env;

    env_start(&env, data);
    for (unsigned prio = 0; prio < 4; prio++) {
        for (unsigned pipe = 0; pipe < 3; pipe++) {
            unsigned slot = prio * 3 + pipe;
            AgxJobQueue q;
            uint64_t blk;
            int64_t t0 = agx_drv_clock_step(&env.drv, 1), t1;

            agx_job_queue_init(&env.job, &q, pipe, prio, slot);
            blk = agx_job_add_run(&env.job, &q, NULL);
            agx_job_kick(&env.job, &q);
            /* Not done before its virtual duration has passed */
            g_assert_cmpuint(agx_job_stamp(&env.job, slot), !=, q.value);
            g_assert_true(agx_job_wait_queue(&env.job, &q));
            t1 = agx_drv_clock_step(&env.drv, 1);
            g_assert_cmpint(t1 - t0, >=, JOB_NS);
            g_assert_cmphex(agx_job_stamp(&env.job, slot), ==, q.value);
            g_assert_cmphex(agx_job_fw_stamp(&env.job, slot), ==, q.value);
            g_assert_cmpuint(agx_job_doneptr(&env.job, &q), ==, 1);
            /* Timestamps in 24 MHz ticks, end after start */
            g_assert_cmpuint(ts(&env, blk, false), >, 0);
            g_assert_cmpuint(ts(&env, blk, true) - ts(&env, blk, false),
                             >=, JOB_NS * 24 / 1000);
            /* ... on the CPUs' timebase: within the submission's window */
            g_assert_cmpuint(ts(&env, blk, false), >=, CNTVCT(t0));
            g_assert_cmpuint(ts(&env, blk, true), <=, CNTVCT(t1));
            g_assert_cmpint(agx_job_poll_events(&env.job), ==, 1);
            g_assert_cmpuint(env.job.fired[slot], ==, 1);
        }
    }
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/*
 * m1n1's Python driver, run on real M1s, fills each Timestamp op's
 * update_ts with 0xdeadbeef: the firmware must not follow it
 */
static void test_m1n1_timestamps(const void *data)
{
    AgxJobQueue q;
    uint64_t blk;
    Env env;

    env_start(&env, data);
    env.job.ts_poison = true;
    agx_job_queue_init(&env.job, &q, AGX_JOB_VERTEX, 0, 12);
    blk = agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_false(fw_crashed(&env));
    g_assert_cmpuint(ts(&env, blk, true), >, ts(&env, blk, false));
    env_stop(&env);
}

/*
 * A render as drm/asahi submits it: the fragment queue is kicked first and
 * waits behind a Barrier on the vertex queue's firmware stamp.
 */
static void test_fragment_waits_for_vertex(const void *data)
{
    AgxJobQueue vtx, frag;
    uint64_t vblk, fblk;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &vtx, AGX_JOB_VERTEX, 1, 10);
    agx_job_queue_init(&env.job, &frag, AGX_JOB_FRAGMENT, 1, 11);
    agx_job_add_barrier(&env.job, &frag, &vtx, vtx.value + 0x100);
    fblk = agx_job_add_run(&env.job, &frag, NULL);
    agx_job_kick(&env.job, &frag);
    /* Nothing runs: the vertex work was not even submitted */
    for (int i = 0; i < 5; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    g_assert_cmphex(agx_job_stamp(&env.job, 11), !=, frag.value);
    g_assert_cmpuint(agx_job_doneptr(&env.job, &frag), ==, 0);

    vblk = agx_job_add_run(&env.job, &vtx, NULL);
    agx_job_kick(&env.job, &vtx);
    g_assert_true(agx_job_wait_queue(&env.job, &frag));
    g_assert_cmphex(agx_job_stamp(&env.job, 10), ==, vtx.value);
    g_assert_cmpuint(ts(&env, fblk, false), >=, ts(&env, vblk, true));
    agx_job_poll_events(&env.job);
    g_assert_cmpuint(env.job.fired[10], ==, 1);
    g_assert_cmpuint(env.job.fired[11], ==, 1);
    env_stop(&env);
}

/* Two queues on one pipe run one after the other, different pipes overlap */
static void test_pipes_overlap_queues_serialise(const void *data)
{
    AgxJobQueue a, b, c;
    uint64_t ablk, bblk, cblk;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &a, AGX_JOB_COMPUTE, 0, 20);
    agx_job_queue_init(&env.job, &b, AGX_JOB_COMPUTE, 0, 21);
    agx_job_queue_init(&env.job, &c, AGX_JOB_VERTEX, 0, 22);
    ablk = agx_job_add_run(&env.job, &a, NULL);
    bblk = agx_job_add_run(&env.job, &b, NULL);
    cblk = agx_job_add_run(&env.job, &c, NULL);
    agx_job_kick(&env.job, &a);
    agx_job_kick(&env.job, &b);
    agx_job_kick(&env.job, &c);
    g_assert_true(agx_job_wait_queue(&env.job, &b));
    g_assert_true(agx_job_wait_queue(&env.job, &c));
    /* b started only after a ended; c ran alongside a */
    g_assert_cmpuint(ts(&env, bblk, false), >=, ts(&env, ablk, true));
    g_assert_cmpuint(ts(&env, cblk, false), <, ts(&env, ablk, true));
    env_stop(&env);
}

/* Higher priority first among queued work on one pipe */
static void test_priority_order(const void *data)
{
    AgxJobQueue busy, low, high;
    uint64_t lblk, hblk;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &busy, AGX_JOB_FRAGMENT, 0, 30);
    agx_job_queue_init(&env.job, &low, AGX_JOB_FRAGMENT, 0, 31);
    agx_job_queue_init(&env.job, &high, AGX_JOB_FRAGMENT, 3, 32);
    agx_job_add_run(&env.job, &busy, NULL);
    agx_job_kick(&env.job, &busy);
    lblk = agx_job_add_run(&env.job, &low, NULL);
    agx_job_kick(&env.job, &low);
    hblk = agx_job_add_run(&env.job, &high, NULL);
    agx_job_kick(&env.job, &high);
    g_assert_true(agx_job_wait_queue(&env.job, &low));
    g_assert_cmpuint(ts(&env, hblk, true), <=, ts(&env, lblk, false));
    env_stop(&env);
}

/* Thousands of jobs through ring wrap-around; each signalled once */
static void test_stream_wraps_ring(const void *data)
{
    const int total = 3000, batch = 200;
    uint32_t last = 0;
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 2, 40);
    for (int done = 0; done < total; done += batch) {
        for (int i = 0; i < batch; i++) {
            agx_job_add_run(&env.job, &q, NULL);
        }
        agx_job_kick(&env.job, &q);
        g_assert_true(agx_job_wait_queue(&env.job, &q));
        g_assert_cmphex(agx_job_stamp(&env.job, 40), ==, q.value);
        /* Stamps only move forward */
        g_assert_cmpint((int32_t)(q.value - last), >, 0);
        last = q.value;
        agx_job_poll_events(&env.job);
    }
    g_assert_cmpuint(agx_job_doneptr(&env.job, &q), ==, total % 0x500);
    /* No slot but ours fired; one Flag per retired job at most */
    for (int s = 0; s < AGX_JOB_SLOTS; s++) {
        g_assert_cmpuint(env.job.fired[s], ==, s == 40 ? env.job.fired[s] : 0);
    }
    g_assert_cmpuint(env.job.fired[40], >=, total / batch);
    g_assert_cmpuint(env.job.fired[40], <=, total);
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/*
 * chaos-seed: renders (fragment behind a Barrier on its vertex command)
 * and compute jobs still all complete, in order, with varied durations;
 * the same seed gives the same time stamps
 */
static void run_chaos(uint64_t seed, uint64_t *ends, int n)
{
    g_autofree char *args = g_strdup_printf(
        "-global apple-agx.chaos-seed=%" PRIu64, seed);
    AgxJobQueue vtx, frag, comp;
    g_autofree uint64_t *blk = g_new0(uint64_t, 3 * n);
    Env env;

    agx_drv_start(&env.drv, "13.5", args);
    env.qts = env.drv.qts;
    agx_drv_probe(&env.drv);
    agx_job_init(&env.job, &env.drv);
    agx_drv_clock_step(&env.drv, 1000000);
    agx_job_queue_init(&env.job, &vtx, AGX_JOB_VERTEX, 1, 20);
    agx_job_queue_init(&env.job, &frag, AGX_JOB_FRAGMENT, 1, 21);
    agx_job_queue_init(&env.job, &comp, AGX_JOB_COMPUTE, 1, 22);
    for (int i = 0; i < n; i++) {
        agx_job_add_barrier(&env.job, &frag, &vtx, vtx.value + 0x100);
        blk[3 * i + 1] = agx_job_add_run(&env.job, &frag, NULL);
        blk[3 * i] = agx_job_add_run(&env.job, &vtx, NULL);
        blk[3 * i + 2] = agx_job_add_run(&env.job, &comp, NULL);
    }
    agx_job_kick(&env.job, &frag);
    agx_job_kick(&env.job, &comp);
    agx_job_kick(&env.job, &vtx);
    g_assert_true(agx_job_wait_queue(&env.job, &frag));
    g_assert_true(agx_job_wait_queue(&env.job, &comp));
    g_assert_cmphex(agx_job_stamp(&env.job, 20), ==, vtx.value);
    for (int i = 0; i < n; i++) {
        /* Each fragment command ran after its vertex command */
        g_assert_cmpuint(ts(&env, blk[3 * i + 1], false), >=,
                         ts(&env, blk[3 * i], true));
        for (int k = 0; k < 3; k++) {
            ends[3 * i + k] = ts(&env, blk[3 * i + k], true) -
                              ts(&env, blk[3 * i + k], false);
            g_assert_cmpuint(ends[3 * i + k], >=, JOB_NS * 24 / 1000);
        }
    }
    agx_drv_clock_step(&env.drv, 1000000);
    agx_job_poll_events(&env.job);
    for (int s = 20; s <= 22; s++) {
        g_assert_cmpuint(env.job.fired[s], >=, 1);
    }
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

static void test_chaos_seed(const void *data)
{
    enum { N = 40 };
    uint64_t a[3 * N], b[3 * N];
    bool varied = false;

    run_chaos(1234, a, N);
    run_chaos(1234, b, N);
    g_assert_cmpmem(a, sizeof(a), b, sizeof(b));
    for (int i = 1; i < 3 * N; i++) {
        varied |= a[i] != a[0];
    }
    g_assert_true(varied);
}

/* DestroyContext: the queue's work is dropped, its memory untouched */
static void test_destroy_context(const void *data)
{
    bool v12 = !strcmp(data, "12.3");
    uint8_t msg[0x30] = { 0 };
    AgxJobQueue q;
    uint32_t before;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &q, AGX_JOB_VERTEX, 0, 50);
    before = agx_job_stamp(&env.job, 50);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    stl_le_p(msg, v12 ? 0x17 : 0x18);
    stq_le_p(msg + (v12 ? 0x1c : 0x14), q.ctx_va);
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    for (int i = 0; i < 10; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    g_assert_cmphex(agx_job_stamp(&env.job, 50), ==, before);
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/* Save with a job on the GPU and another queued; both finish after restore */
static void test_migrate_with_jobs_in_flight(const void *data)
{
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &q, AGX_JOB_FRAGMENT, 1, 70);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    g_assert_cmphex(agx_job_stamp(&env.job, 70), !=, q.value);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_cmphex(agx_job_stamp(&env.job, 70), ==, q.value);
    g_assert_cmpuint(agx_job_doneptr(&env.job, &q), ==, 2);
    g_assert_cmpint(agx_job_poll_events(&env.job), >=, 1);
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/* ps_gfx, the GPU's power domain, in soc=t8103's PMGR */
#define PS_GFX              (0x23b700000ULL + 0x3f8)
#define PS_GFX_ACTIVE       0xff
#define PS_GFX_CLKGATE      0xf4
#define PS_GFX_PWRGATE      0xf0
#define SGX_ID_VERSION      (AGX_DRV_SGX_BASE + 0xd04000)
#define ASC_CPU_CONTROL     (AGX_DRV_ASC_BASE + 0x44)

static char *qom_get_str(Env *env, const char *prop)
{
    QDict *rsp = qtest_qmp(env->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': '/machine/gpu-asc', 'property': %s}}",
                           prop);
    char *v = g_strdup(qdict_get_str(rsp, "return"));

    qobject_unref(rsp);
    return v;
}

/*
 * ps_gfx clock-gated with a job queued: the GPU stands still and does not
 * answer (SGX reads 0, doorbells are dropped; all logged), also across a
 * migration; once the clock is back the job completes
 */
static void test_clock_gated_gpu_stands_still(const void *data)
{
    AgxJobQueue q;
    Env env;

    agx_drv_start(&env.drv, data, "-M soc=t8103");
    env.qts = env.drv.qts;
    agx_drv_probe(&env.drv);
    agx_job_init(&env.job, &env.drv);
    agx_drv_clock_step(&env.drv, 1000000);
    g_assert_cmphex(qtest_readl(env.qts, SGX_ID_VERSION), !=, 0);

    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 0, 90);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    qtest_writel(env.qts, PS_GFX, PS_GFX_CLKGATE);
    g_assert_true(agx_drv_logged(&env.drv, "clock stopped while the "
                                 "coprocessor runs"));
    agx_drv_clock_step(&env.drv, 100 * JOB_NS);
    g_assert_cmphex(agx_job_stamp(&env.job, 90), !=, q.value);
    g_assert_cmphex(qtest_readl(env.qts, SGX_ID_VERSION), ==, 0);
    g_assert_true(agx_drv_logged(&env.drv, "read at 0xd04000 of "
                                 "apple-agx.sgx while its power domain is "
                                 "not active"));
    qtest_writeq(env.qts, AGX_DRV_ASC_BASE + 0x8800, 0x83ULL << 48);
    g_assert_true(agx_drv_logged(&env.drv, "write of 0x83000000000000 at "
                                 "0x8800 of apple-asc"));

    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    agx_drv_clock_step(&env.drv, 100 * JOB_NS);
    g_assert_cmphex(agx_job_stamp(&env.job, 90), !=, q.value);
    g_assert_cmphex(qtest_readl(env.qts, SGX_ID_VERSION), ==, 0);

    qtest_writel(env.qts, PS_GFX, PS_GFX_ACTIVE);
    g_assert_cmphex(qtest_readl(env.qts, SGX_ID_VERSION), !=, 0);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_cmphex(agx_job_stamp(&env.job, 90), ==, q.value);
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/*
 * ps_gfx power-gated with a job queued: the GPU loses its state (its
 * coprocessor is reset, the firmware is off) and the job never completes
 */
static void test_power_gated_gpu_loses_state(const void *data)
{
    g_autofree char *state = NULL;
    AgxJobQueue q;
    Env env;

    agx_drv_start(&env.drv, data, "-M soc=t8103");
    env.qts = env.drv.qts;
    agx_drv_probe(&env.drv);
    agx_job_init(&env.job, &env.drv);
    agx_drv_clock_step(&env.drv, 1000000);

    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 0, 91);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    qtest_writel(env.qts, PS_GFX, PS_GFX_PWRGATE);
    /* For the core's replay of this session: the cut stops the ASC */
    agx_record_cpu(false);
    g_assert_true(agx_drv_logged(&env.drv, "power cut while the "
                                 "coprocessor runs: it loses its state"));
    state = qom_get_str(&env, "firmware-state");
    g_assert_cmpstr(state, ==, "off");
    agx_drv_clock_step(&env.drv, 100 * JOB_NS);
    qtest_writel(env.qts, PS_GFX, PS_GFX_ACTIVE);
    agx_drv_clock_step(&env.drv, 100 * JOB_NS);
    g_assert_cmphex(agx_job_stamp(&env.job, 91), !=, q.value);
    g_assert_cmphex(qtest_readl(env.qts, ASC_CPU_CONTROL), ==, 0);
    env_stop(&env);
}

/* What the StartVertex ops of the grow test name: buffer, buffer slot */
static uint64_t grow_info_va;

static void patch_start_vertex(uint8_t *useq, uint32_t *size)
{
    stq_le_p(useq + 0x14, grow_info_va);
    stl_le_p(useq + 0x40, 5);
}

/*
 * A synchronous TVB grow across a migration: InitBuffer binds slot 5,
 * grow-tvb has the vertex job raise GrowTVB and wait; the VM migrates
 * with the job held; the driver's grow (BlockControl.total 8 -> 18) and
 * GrowTVBAck on the destination release it
 */
static void test_grow_tvb_across_migration(const void *data)
{
    bool v12 = !strcmp(data, "12.3");
    uint8_t msg[0x30] = { 0 };
    uint64_t ctl_va;
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    grow_info_va = agx_drv_alloc(&env.drv, AGX_HEAP_PRIVATE, 0xc0,
                                 AGX_PROT_FW_PRIV_RW);
    ctl_va = agx_drv_alloc(&env.drv, AGX_HEAP_SHARED, 0x40,
                           AGX_PROT_FW_SHARED_RW);
    agx_drv_w32(&env.drv, grow_info_va + (v12 ? 0x34 : 0x30), 8);
    agx_drv_w64(&env.drv, grow_info_va + (v12 ? 0x44 : 0x40), ctl_va);
    agx_drv_w32(&env.drv, ctl_va, 8);
    agx_job_queue_init(&env.job, &q, AGX_JOB_VERTEX, 0, 73);
    agx_job_add_init_buffer(&env.job, &q, 5, 8, grow_info_va);
    agx_job_add_run(&env.job, &q, patch_start_vertex);
    agx_drv_inject(&env.drv, "grow-tvb");
    agx_job_kick(&env.job, &q);
    for (int i = 0; i < 10; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    agx_job_poll_events(&env.job);
    g_assert_cmpuint(env.job.grow_events, ==, 1);
    g_assert_cmpuint(ldl_le_p(env.job.last_event + 8), ==, 5);
    g_assert_cmphex(agx_job_stamp(&env.job, 73), !=, q.value);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "tvb-blocks"), ==, 8);

    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;
    /* Still held on the destination, well before the watchdog */
    for (int i = 0; i < 10; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    g_assert_cmphex(agx_job_stamp(&env.job, 73), !=, q.value);
    /* The driver's sync grow, then GrowTVBAck */
    agx_drv_w32(&env.drv, ctl_va, 18);
    stl_le_p(msg, v12 ? 0x0d : 0x0e);
    stl_le_p(msg + 0x04, 1);
    stl_le_p(msg + 0x08, 5);
    stl_le_p(msg + 0x10, ldl_le_p(env.job.last_event + 0xc));
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "tvb-grows"), ==, 1);
    g_assert_cmpuint(agx_drv_qom_uint(&env.drv, "tvb-blocks"), ==, 18);
    g_assert_false(agx_drv_logged(&env.drv, "GrowTVBAck"));
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/* A system reset stops the firmware; the driver can probe again */
static void test_reset_and_probe_again(const void *data)
{
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 0, 71);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    qtest_system_reset(env.qts);
    /* Nothing of the old firmware survives: no completion ever comes */
    for (int i = 0; i < 5; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    g_assert_cmphex(agx_job_stamp(&env.job, 71), !=, q.value);
    g_assert_cmphex(qtest_readl(env.qts, AGX_DRV_ASC_BASE + 0x44), ==, 0);

    agx_drv_reinit(&env.drv);
    agx_drv_probe(&env.drv);
    agx_job_init(&env.job, &env.drv);
    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 0, 71);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    env_stop(&env);
}

static void inject(Env *env, const char *what)
{
    agx_drv_inject(&env->drv, what);
}

static char *armed_injection(Env *env)
{
    QDict *rsp = qtest_qmp(env->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': '/machine/gpu-asc', 'property': "
                           "'inject-fault'}}");
    char *value = g_strdup(qdict_get_str(rsp, "return"));

    qobject_unref(rsp);
    return value;
}

/* Globals.pending_stamps[pipe] as the driver reads it after a fault */
static uint64_t pending_stamp(Env *env, bool v12, unsigned idx)
{
    return agx_drv_r64(&env->drv, env->drv.globals_va +
                       (v12 ? 0x1103c : 0x111a8) + 8 * idx);
}

/* drm/asahi's recover(): halted = 0, then resume = 1 */
static void driver_recover(Env *env)
{
    agx_drv_w32(&env->drv, env->drv.fw_status_va + 0x20, 0);
    agx_drv_w32(&env->drv, env->drv.fw_status_va + 0x30, 1);
}

static void test_injected_gpu_fault(const void *data)
{
    bool v12 = !strcmp(data, "12.3");
    g_autofree char *armed = NULL;
    uint32_t failed;
    uint64_t info;
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    inject(&env, "gpu-fault");
    armed = armed_injection(&env);
    g_assert_cmpstr(armed, ==, "gpu-fault");
    agx_job_queue_init(&env.job, &q, AGX_JOB_VERTEX, 0, 80);
    agx_job_add_run(&env.job, &q, NULL);
    failed = q.value;
    agx_job_kick(&env.job, &q);
    for (int i = 0; i < 4; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    g_assert_cmpint(agx_job_poll_events(&env.job), ==, 1);
    g_assert_cmpuint(env.job.fault_events, ==, 1);
    /* The driver reads FAULT_INFO, the pending stamps and FwStatus */
    info = qtest_readq(env.qts, AGX_DRV_SGX_BASE + 0x17030);
    g_assert_cmphex(info & 1, ==, 1);
    g_assert_cmphex((info >> 17) & 0x3f, ==, 0);        /* VM slot */
    g_assert_cmphex((info >> 9) & 0xff, ==, 0x08);      /* unit VDM0 */
    g_assert_cmphex(pending_stamp(&env, v12, 0), ==,
                    (uint64_t)failed << 32 | 1 | 80 << (v12 ? 3 : 4));
    g_assert_cmpuint(agx_drv_r32(&env.drv, env.drv.fw_status_va + 0x20), ==,
                     1);
    g_assert_cmpuint(agx_drv_r64(&env.drv, env.drv.fw_status_va + 0x10), ==,
                     1);
    /*
     * What the driver's debug dump reads of the QueueInfo (drm/asahi
     * fw/workqueue.rs: 13.2 adds a word at 0x84): error_count, pending
     * (the faulted command), event_id (its slot)
     */
    g_assert_cmpuint(agx_drv_r32(&env.drv, q.info_va + (v12 ? 0x88 : 0x8c)),
                     ==, 1);
    g_assert_cmpuint(agx_drv_r32(&env.drv, q.info_va + (v12 ? 0x98 : 0x9c)),
                     ==, 1);
    g_assert_cmpuint(agx_drv_r32(&env.drv, q.info_va + 0x2c), ==, 80);
    g_assert_cmphex(agx_job_stamp(&env.job, 80), !=, failed);
    g_free(armed);
    armed = armed_injection(&env);
    g_assert_cmpstr(armed, ==, "none");

    /*
     * Recovery rings nothing: the firmware notices resume by itself and
     * retires the failed command (drm/asahi completes it by its stamp)
     */
    driver_recover(&env);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_cmphex(agx_job_stamp(&env.job, 80), ==, failed);
    g_assert_cmpuint(agx_drv_r32(&env.drv, q.info_va + (v12 ? 0x98 : 0x9c)),
                     ==, 0);
    g_assert_cmphex(agx_drv_r32(&env.drv, q.info_va + 0x2c), ==, 0xffffffff);
    agx_drv_clock_step(&env.drv, 1000000);
    agx_job_poll_events(&env.job);
    g_assert_cmpuint(env.job.fired[80], ==, 1);
    /* Then the next submission runs */
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_cmpuint(agx_drv_r32(&env.drv, env.drv.fw_status_va + 0x30), ==,
                     0);
    g_assert_cmphex(qtest_readq(env.qts, AGX_DRV_SGX_BASE + 0x17030), ==, 0);
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

static void test_injected_timeout(const void *data)
{
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    inject(&env, "timeout");
    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 1, 81);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    /* Not before the compute watchdog (250 ms of virtual time) */
    agx_drv_clock_step(&env.drv, 249 * 1000 * 1000);
    g_assert_cmpint(agx_job_poll_events(&env.job), ==, 0);
    agx_drv_clock_step(&env.drv, 2 * 1000 * 1000);
    g_assert_cmpint(agx_job_poll_events(&env.job), ==, 1);
    g_assert_cmpuint(env.job.timeout_events, ==, 1);
    g_assert_cmpuint(ldl_le_p(env.job.last_event + 0xc), ==, 81);
    g_assert_cmphex(qtest_readq(env.qts, AGX_DRV_SGX_BASE + 0x17030) & 1, ==,
                    0);
    driver_recover(&env);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    env_stop(&env);
}

/* The newest driver's path: ChannelError, then RecoverChannel */
static void test_injected_channel_error(const void *data)
{
    bool v12 = !strcmp(data, "12.3");
    uint8_t msg[0x30] = { 0 };
    uint32_t failed;
    AgxJobQueue q;
    Env env;

    env_start(&env, data);
    inject(&env, "channel-error");
    agx_job_queue_init(&env.job, &q, AGX_JOB_FRAGMENT, 3, 82);
    agx_job_add_run(&env.job, &q, NULL);
    failed = q.value;
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    for (int i = 0; i < 4; i++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    agx_job_poll_events(&env.job);
    g_assert_cmpuint(env.job.channel_error_events, ==, 1);
    g_assert_cmpuint(ldl_le_p(env.job.last_event + 8), ==, AGX_JOB_FRAGMENT);
    g_assert_cmpuint(ldl_le_p(env.job.last_event + 0xc), ==, 82);
    g_assert_cmphex(ldl_le_p(env.job.last_event + 0x10), ==, failed);
    g_assert_cmphex(agx_job_stamp(&env.job, 82), !=, q.value);

    stl_le_p(msg, v12 ? 0x0e : 0x0f);                   /* RecoverChannel */
    stl_le_p(msg + 4, AGX_JOB_FRAGMENT);
    stq_le_p(msg + 8, q.info_va);
    stl_le_p(msg + 0x10, failed);
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_false(agx_drv_logged(&env.drv, "not handled"));
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

static void test_bad_inject_value(void)
{
    QDict *rsp;
    Env env;

    env_start(&env, "13.5");
    rsp = qtest_qmp(env.qts, "{'execute': 'qom-set', 'arguments': "
                    "{'path': '/machine/gpu-asc', 'property': "
                    "'inject-fault', 'value': 'meltdown'}}");
    g_assert_true(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    env_stop(&env);
}

static void patch_unknown_op(uint8_t *useq, uint32_t *size)
{
    stl_le_p(useq, 0x3e);
}

static void patch_truncated(uint8_t *useq, uint32_t *size)
{
    *size -= 4;                         /* no RetireStamp */
}

static void patch_wild_pointer(uint8_t *useq, uint32_t *size)
{
    uint32_t off = 0x16c + 0x3c + 4;

    stq_le_p(useq + off + 4, 0xffffffa5dead0000ULL);
}

static const struct {
    const char *name;
    void (*patch)(uint8_t *useq, uint32_t *size);
    const char *why;
} bad_useq[] = {
    { "unknown-opcode", patch_unknown_op, "unknown microsequence opcode" },
    { "missing-retire", patch_truncated, "ends without RetireStamp" },
    { "unmapped-pointer", patch_wild_pointer, "timestamp: unmapped fault" },
};

static void test_bad_microsequence(const void *data)
{
    int i = GPOINTER_TO_INT(data);
    AgxJobQueue q;
    Env env;

    env_start(&env, "13.5");
    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 0, 60);
    agx_job_add_run(&env.job, &q, bad_useq[i].patch);
    agx_job_kick(&env.job, &q);
    for (int n = 0; n < 4; n++) {
        agx_drv_clock_step(&env.drv, JOB_NS);
    }
    rtkit_ap_process_all(&env.drv.ap);
    g_assert_true(env.drv.ap.crashed);
    g_assert_true(fw_crashed(&env));
    g_assert_true(agx_drv_logged(&env.drv, bad_useq[i].why));
    env_stop(&env);
}

/*
 * The firmware core's trace events are QEMU trace events, one prefix per
 * kind: -trace 'agx_job_*' logs the job's start, GPU work and retire with
 * their typed arguments, and nothing of the other kinds
 */
static void test_trace_selects_job_events(const void *data)
{
    g_autofree char *log = NULL;
    AgxJobQueue q;
    Env env;

    agx_drv_start(&env.drv, "13.5", "-trace 'agx_job_*'");
    env.qts = env.drv.qts;
    agx_drv_probe(&env.drv);
    agx_job_init(&env.job, &env.drv);
    agx_job_queue_init(&env.job, &q, AGX_JOB_COMPUTE, 0, 61);
    agx_job_add_run(&env.job, &q, NULL);
    agx_job_kick(&env.job, &q);
    g_assert_true(agx_job_wait_queue(&env.job, &q));
    g_assert_true(agx_drv_logged(&env.drv, "agx_job_start pipe 2 queue 0x"));
    g_assert_true(agx_drv_logged(&env.drv, "agx_job_work pipe 2 command 0x"));
    g_assert_true(agx_drv_logged(&env.drv, " GPU work for 20000 ns"));
    g_assert_true(agx_drv_logged(&env.drv, "agx_job_retire pipe 2 command"));
    g_assert_true(g_file_get_contents(env.drv.log_path, &log, NULL, NULL));
    g_assert_null(strstr(log, "agx_useq_op"));
    g_assert_null(strstr(log, "agx_queue_run"));
    g_assert_null(strstr(log, "agx_event_flag"));
    env_stop(&env);
}

/*
 * 128 queues x 1279 Barriers in a cycle (each waits for the next queue's
 * done pointer): one doorbell may not keep the main loop busy, so the
 * firmware goes on in later timer ticks, and QEMU answers meanwhile
 */
static void test_barrier_chain_yields(const void *data)
{
    enum { N = 128, K = 1279, B = 0x40 };
    g_autofree uint8_t *bars = g_malloc0(K * B);
    g_autofree uint8_t *ring = g_malloc0(K * 8);
    g_autofree AgxJobQueue *q = g_new0(AgxJobQueue, N);
    bool reverse = GPOINTER_TO_INT(data);
    uint64_t done = 0;
    gint64 t0;
    int steps;
    Env env;

    env_start(&env, "13.5");
    for (int i = 0; i < N; i++) {
        agx_job_queue_init(&env.job, &q[i], AGX_JOB_COMPUTE, 0, i % 64);
    }
    for (int i = 0; i < N; i++) {
        AgxJobQueue *on = &q[(i + (reverse ? N - 1 : 1)) % N];
        uint64_t va = agx_drv_alloc(&env.drv, AGX_HEAP_PRIVATE, K * B,
                                    AGX_PROT_FW_PRIV_RW);

        for (int b = 0; b < K; b++) {
            agx_cmd_build_barrier(bars + b * B, on->state_va, b, q[i].slot,
                                  0);
            stq_le_p(ring + b * 8, va + b * B);
        }
        agx_drv_write(&env.drv, va, bars, K * B);
        agx_drv_write(&env.drv, q[i].ring_va, ring, K * 8);
        q[i].wptr = K;
    }
    for (int i = 0; i < N; i++) {
        agx_job_kick(&env.job, &q[i]);
    }
    /* The last doorbell released the chain; a command now is answered */
    t0 = g_get_monotonic_time();
    g_assert_cmphex(qtest_readl(env.qts, AGX_DRV_SGX_BASE + 0xd04000), ==,
                    0x04021100);
    g_test_message("qtest command after the last doorbell: %" PRId64
                   " us", g_get_monotonic_time() - t0);
    for (int i = 0; i < N; i++) {
        done += agx_job_doneptr(&env.job, &q[i]);
    }
    g_assert_cmpuint(done, <, (uint64_t)N * K);
    /* Firmware time passes: the rest is done in bounded steps */
    for (steps = 1; steps < 1000 && done < (uint64_t)N * K; steps++) {
        agx_drv_clock_step(&env.drv, 100000);
        done = 0;
        for (int i = 0; i < N; i++) {
            done += agx_job_doneptr(&env.job, &q[i]);
        }
    }
    g_assert_cmpuint(done, ==, (uint64_t)N * K);
    g_test_message("barrier chain done after %d steps of 100 us", steps);
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/* Benchmark (only with -m perf): jobs per second end to end over qtest */
static void bench_end_to_end(const void *data)
{
    const int total = 4000, batch = 250;
    AgxJobQueue q[3];
    gint64 t0, t1;
    Env env;

    env_start(&env, data);
    for (int p = 0; p < 3; p++) {
        agx_job_queue_init(&env.job, &q[p], p, 0, 90 + p);
    }
    t0 = g_get_monotonic_time();
    for (int done = 0; done < total; done += batch) {
        for (int p = 0; p < 3; p++) {
            for (int i = 0; i < batch / 3; i++) {
                agx_job_add_run(&env.job, &q[p], NULL);
            }
            agx_job_kick(&env.job, &q[p]);
        }
        for (int p = 0; p < 3; p++) {
            g_assert_true(agx_job_wait_queue(&env.job, &q[p]));
        }
        agx_job_poll_events(&env.job);
    }
    t1 = g_get_monotonic_time();
    g_test_minimized_result((t1 - t0) / 1e6, "end to end fw %s: %.0f jobs/s "
                            "through the qtest driver", (const char *)data,
                            (total / 3 * 3) / ((t1 - t0) / 1e6));
    env_stop(&env);
}

int main(int argc, char **argv)
{
    static const char *const fws[] = { "13.5", "12.3" };
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } cases[] = {
        { "every-pipe-and-priority-completes", test_every_pipe_and_priority },
        { "m1n1-poisoned-update-ts-is-not-followed", test_m1n1_timestamps },
        { "fragment-waits-for-vertex-barrier",
          test_fragment_waits_for_vertex },
        { "pipes-overlap-queues-serialise",
          test_pipes_overlap_queues_serialise },
        { "higher-priority-runs-first", test_priority_order },
        { "stream-of-3000-wraps-the-ring", test_stream_wraps_ring },
        { "destroyed-context-never-completes", test_destroy_context },
        { "migration-with-jobs-in-flight", test_migrate_with_jobs_in_flight },
        { "grow-tvb-across-migration", test_grow_tvb_across_migration },
        { "system-reset-then-probe-again", test_reset_and_probe_again },
        { "injected-gpu-fault-halts-and-recovers", test_injected_gpu_fault },
        { "injected-timeout-halts-and-recovers", test_injected_timeout },
        { "injected-channel-error-and-recover-channel",
          test_injected_channel_error },
        { "t8103/clock-gated-gpu-stands-still",
          test_clock_gated_gpu_stands_still },
        { "t8103/power-gated-gpu-loses-its-state",
          test_power_gated_gpu_loses_state },
    };

    g_test_init(&argc, &argv, NULL);
    for (int f = 0; f < ARRAY_SIZE(fws); f++) {
        for (int c = 0; c < ARRAY_SIZE(cases); c++) {
            g_autofree char *path = g_strdup_printf("/apple-m1/agx-job/%s/%s",
                                                    fws[f], cases[c].name);

            qtest_add_data_func(path, fws[f], cases[c].fn);
        }
    }
    qtest_add_func("/apple-m1/agx-job/fault/bad-inject-value-is-refused",
                   test_bad_inject_value);
    for (int i = 0; i < ARRAY_SIZE(bad_useq); i++) {
        g_autofree char *path = g_strdup_printf(
            "/apple-m1/agx-job/bad-microsequence/%s-crashes-firmware",
            bad_useq[i].name);

        qtest_add_data_func(path, GINT_TO_POINTER(i), test_bad_microsequence);
    }
    qtest_add_data_func("/apple-m1/agx-job/trace/job-events-selected-by-kind",
                        NULL, test_trace_selects_job_events);
    qtest_add_data_func("/apple-m1/agx-job/chaos/seed-varies-and-replays",
                        NULL, test_chaos_seed);
    qtest_add_data_func("/apple-m1/agx-job/bounded/barrier-chain-yields",
                        GINT_TO_POINTER(0), test_barrier_chain_yields);
    qtest_add_data_func(
        "/apple-m1/agx-job/bounded/reverse-barrier-chain-yields",
        GINT_TO_POINTER(1), test_barrier_chain_yields);
    if (g_test_perf()) {
        for (int f = 0; f < ARRAY_SIZE(fws); f++) {
            g_autofree char *path = g_strdup_printf(
                "/apple-m1/agx-job/bench/%s/end-to-end", fws[f]);

            qtest_add_data_func(path, fws[f], bench_end_to_end);
        }
    }
    return g_test_run();
}
