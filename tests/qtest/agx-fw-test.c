/*
 * QTest for the AGX GPU firmware model on apple-m1: the drm/asahi probe
 * path for firmware 13.5 and 12.3, bad InitData, the control rings, and
 * migration after init
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "agx/agx-drv.h"

typedef struct Env {
    QTestState *qts;
    AgxDrv drv;
} Env;

static void env_start(Env *env, const char *fw, const char *extra)
{
    agx_drv_start(&env->drv, fw, extra);
    env->qts = env->drv.qts;
}

static void env_stop(Env *env)
{
    agx_drv_stop(&env->drv);
}

static bool logged(Env *env, const char *fragment)
{
    return agx_drv_logged(&env->drv, fragment);
}

static bool fw_crashed(Env *env)
{
    return agx_drv_crashed(&env->drv);
}

static void test_probe(const void *data)
{
    const char *fw = data;
    int64_t t0, t1, v0, v1;
    Env env;

    env_start(&env, fw, NULL);
    agx_drv_setup_uat(&env.drv);
    agx_drv_check_gpu_id(&env.drv);
    agx_drv_build_initdata(&env.drv);
    agx_drv_queue_initialize(&env.drv);
    t0 = g_get_monotonic_time();
    v0 = agx_drv_clock_step(&env.drv, 1);
    agx_drv_start_firmware(&env.drv);
    agx_drv_send_init(&env.drv);
    agx_drv_kick_devctrl(&env.drv);
    t1 = g_get_monotonic_time();
    v1 = agx_drv_clock_step(&env.drv, 1);
    g_test_message("fw %s: RUN to Initialize consumed: %" PRId64 " us host, "
                   "%" PRId64 " ns virtual, %u mailbox messages", fw,
                   t1 - t0, v1 - v0,
                   env.drv.ap.msgs_sent + env.drv.ap.msgs_received);

    g_assert_false(fw_crashed(&env));
    g_assert_true(agx_drv_fwlog_has(&env.drv, "InitData accepted"));
    g_assert_true(agx_drv_fwlog_has(&env.drv, "Initialize"));
    /* Every log line came with an RX doorbell */
    rtkit_ap_process_all(&env.drv.ap);
    g_assert_cmpuint(env.drv.ap.app_ep->len, >=, 2);
    g_assert_cmphex(rtkit_ap_wait_app(&env.drv.ap, 0x20), ==, 0x42ULL << 48);
    g_assert_cmpuint(env.drv.ap.syslog->len, >=, 1);
    g_assert_false(logged(&env, "GPU firmware"));
    env_stop(&env);
}

/* A DestroyContext in its cache-flush form is consumed after INIT */
static void test_devctrl_cache_flush(const void *data)
{
    uint8_t msg[0x30] = { 0 };
    bool v12 = !strcmp(data, "12.3");
    Env env;

    env_start(&env, data, NULL);
    agx_drv_probe(&env.drv);
    stl_le_p(msg, v12 ? 0x17 : 0x18);
    msg[v12 ? 0x14 : 0x11] = 0xff;                      /* ctx_0 */
    msg[v12 ? 0x15 : 0x12] = 0xff;                      /* ctx_1 */
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    g_assert_false(logged(&env, "not handled"));
    env_stop(&env);
}

/* m1n1's start: DC_Init, then DC_UpdateIdleTS, consumed silently */
static void test_m1n1_update_idle_ts(const void *data)
{
    Env env;

    env_start(&env, data, NULL);
    agx_drv_probe(&env.drv);
    agx_drv_update_idle_ts(&env.drv);
    g_assert_false(logged(&env, "GPU firmware"));
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/* GrowTVBAck: newer drivers' tag and the one m1n1 and 2023 drivers send */
static void test_devctrl_grow_tvb_ack_tags(const void *data)
{
    bool v12 = !strcmp(data, "12.3");
    uint8_t msg[0x30] = { 0 };
    Env env;

    env_start(&env, data, NULL);
    agx_drv_probe(&env.drv);
    stl_le_p(msg, 0x0d);
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    stl_le_p(msg, v12 ? 0x0d : 0x0e);
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    g_assert_false(logged(&env, "not handled"));
    /* An unknown tag is still reported */
    stl_le_p(msg, 0x1f);
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    g_assert_true(logged(&env, "message 0x1f not handled"));
    env_stop(&env);
}

/* FwCtl: a flush request is marked done before the ring entry is acked */
static void test_fwctl_completes_handoff_flush(void)
{
    uint64_t slot64 = 0x20 + 64 * 0x18;
    uint8_t msg[0x14] = { 0 };
    Env env;

    env_start(&env, "13.5", NULL);
    agx_drv_probe(&env.drv);
    qtest_writeq(env.qts, env.drv.handoff + slot64 + 8, 0xffffffa000004000);
    qtest_writeq(env.qts, env.drv.handoff + slot64 + 16, 0x4000);
    qtest_writeq(env.qts, env.drv.handoff + slot64, 1);
    stq_le_p(msg, 0xffffffa000004000ULL);
    stl_le_p(msg + 0xc, 64);
    stw_le_p(msg + 0x10, 1);
    stw_le_p(msg + 0x12, 2);
    agx_drv_tx(&env.drv, AGX_DRV_RING_FWCTL, msg);
    agx_drv_fwctl_doorbell(&env.drv);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_FWCTL));
    g_assert_cmpuint(qtest_readq(env.qts, env.drv.handoff + slot64), ==, 2);
    env_stop(&env);
}

/* Probe up to INIT, with @breakage applied before INIT is sent */
static void probe_broken(Env *env, void (*breakage)(AgxDrv *d))
{
    agx_drv_setup_uat(&env->drv);
    agx_drv_build_initdata(&env->drv);
    agx_drv_queue_initialize(&env->drv);
    agx_drv_start_firmware(&env->drv);
    g_assert_cmpuint(env->drv.ap.crashlog_size, >, 0);
    breakage(&env->drv);
    agx_drv_send_init(&env->drv);
    rtkit_ap_process_all(&env->drv.ap);
}

static void assert_crashed_with(Env *env, const char *why, bool fault)
{
    uint64_t info = qtest_readq(env->qts, AGX_DRV_SGX_BASE + 0x17030);

    g_autofree char *text = NULL;
    uint8_t *log;
    uint32_t off = 0x20, size;

    g_assert_true(env->drv.ap.crashed);
    g_assert_true(fw_crashed(env));
    g_assert_true(logged(env, why));
    /* The crash log the kernel would dump names the cause */
    log = g_malloc(env->drv.ap.crashlog_size);
    agx_drv_read(&env->drv, env->drv.ap.crashlog_iova, log,
                 env->drv.ap.crashlog_size);
    g_assert_cmphex(ldl_le_p(log), ==, 0x434c4845);
    size = ldl_le_p(log + 8);
    while (off < size && ldl_le_p(log + off) != 0x434c4845) {
        if (ldl_le_p(log + off) == 0x43737472) {
            text = g_strdup((char *)log + off + 20);
        }
        off += ldl_le_p(log + off + 12);
    }
    g_free(log);
    g_assert_nonnull(text);
    g_test_message("crash log: %s", text);
    g_assert_nonnull(strstr(text, why));
    /* A UAT fault stays latched in FAULT_INFO (bit 0: valid) */
    g_assert_cmpuint(info & 1, ==, fault);
    /* ... and the device-control ring was never touched */
    g_assert_cmpuint(agx_drv_tx_rptr(&env->drv, AGX_DRV_RING_DEVCTRL), ==, 0);
}

static void unmap_initdata(AgxDrv *d)
{
    agx_drv_unmap(d, d->initdata_va);
}

static void wrong_page_size(AgxDrv *d)
{
    /* 13.5's UAT config sits at 0x30; write what a 12.3 layout would */
    agx_drv_w32(d, d->initdata_va + (d->v12_3 ? 0x28 : 0x30), 0x1000);
}

static void null_runtime_pointers(AgxDrv *d)
{
    agx_drv_w64(d, d->initdata_va + (d->v12_3 ? 0x10 : 0x18), 0);
}

static void wild_globals(AgxDrv *d)
{
    agx_drv_w64(d, d->initdata_va + (d->v12_3 ? 0x18 : 0x20),
                0xffffffa5deadc000ULL);
}

static void unmap_devctrl_ring(AgxDrv *d)
{
    agx_drv_unmap(d, d->rings[AGX_DRV_RING_DEVCTRL].ring_va);
}

static void readonly_fw_status(AgxDrv *d)
{
    uint64_t page = d->fw_status_va & ~0x3fffULL;

    agx_drv_map(d, page, agx_drv_pa(d, page), 0x4000, AGX_PROT_FW_SHARED_RO);
}

static const struct {
    const char *name;
    void (*breakage)(AgxDrv *d);
    const char *why;
    bool fault;
} bad_initdata[] = {
    { "unmapped-initdata", unmap_initdata, "InitData: unmapped fault", true },
    { "wrong-uat-config", wrong_page_size, "UAT config", false },
    { "null-runtime-pointers", null_runtime_pointers,
      "RuntimePointers: NULL pointer", false },
    { "wild-globals-pointer", wild_globals, "Globals: unmapped fault", true },
    { "unmapped-ring-page", unmap_devctrl_ring, "devctrl: unmapped fault",
      true },
    { "read-only-fw-status", readonly_fw_status, "FwStatus: read-only",
      true },
};

static void test_bad_initdata(const void *data)
{
    int i = GPOINTER_TO_INT(data) / 2;
    Env env;

    env_start(&env, GPOINTER_TO_INT(data) % 2 ? "12.3" : "13.5", NULL);
    probe_broken(&env, bad_initdata[i].breakage);
    assert_crashed_with(&env, bad_initdata[i].why, bad_initdata[i].fault);
    env_stop(&env);
}

static void test_bad_doorbells(void)
{
    uint8_t ep;
    uint64_t msg;
    Env env;

    env_start(&env, "13.5", NULL);
    agx_drv_setup_uat(&env.drv);
    agx_drv_build_initdata(&env.drv);
    agx_drv_start_firmware(&env.drv);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(logged(&env, "before INIT"));
    agx_drv_send_init(&env.drv);
    agx_drv_send_init(&env.drv);
    g_assert_true(logged(&env, "second INIT"));
    agx_drv_doorbell(&env.drv, 0x33);
    g_assert_true(logged(&env, "doorbell for unknown channel 0x33"));
    rtkit_ap_send(&env.drv.ap, 0x20, 0x99ULL << 48);
    g_assert_true(logged(&env, "unknown message 0x0099"));
    /* A write pointer beyond the ring is refused, not followed */
    agx_drv_w32(&env.drv, env.drv.rings[AGX_DRV_RING_DEVCTRL].state_va +
                0x20, 0x1000);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(logged(&env, "devctrl write pointer out of range"));
    g_assert_false(fw_crashed(&env));
    while (rtkit_ap_try_recv(&env.drv.ap, &ep, &msg)) {
        g_assert_cmpuint(ep, !=, 1);                    /* no crash */
    }
    env_stop(&env);
}

/* Save after firmware init, restore in a new QEMU, keep using the rings */
static void test_migrate_after_init(const void *data)
{
    const char *fw = data;
    uint8_t msg[0x30] = { 0 };
    Env env;

    env_start(&env, fw, NULL);
    agx_drv_probe(&env.drv);
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;

    stl_le_p(msg, !strcmp(fw, "12.3") ? 0x17 : 0x18);
    agx_drv_tx(&env.drv, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(&env.drv, 0x11);
    g_assert_true(agx_drv_wait_consumed(&env.drv, AGX_DRV_RING_DEVCTRL));
    g_assert_false(fw_crashed(&env));
    env_stop(&env);
}

/* m1n1's start-up poke of SGX +0xd14000: read 0, write 0x70001, no noise */
static void test_sgx_start_up_poke(void)
{
    uint64_t reg = AGX_DRV_SGX_BASE + 0xd14000;
    Env env;

    env_start(&env, "13.5", NULL);
    g_assert_cmphex(qtest_readl(env.qts, reg), ==, 0);
    qtest_writel(env.qts, reg, 0x70001);
    g_assert_cmphex(qtest_readl(env.qts, reg), ==, 0x70001);
    g_assert_false(logged(&env, "unimplemented SGX"));
    qtest_system_reset(env.qts);
    g_assert_cmphex(qtest_readl(env.qts, reg), ==, 0);
    env_stop(&env);
}

int main(int argc, char **argv)
{
    static const char *const fws[] = { "13.5", "12.3" };

    g_test_init(&argc, &argv, NULL);
    for (int f = 0; f < ARRAY_SIZE(fws); f++) {
        g_autofree char *probe = g_strdup_printf(
            "/apple-m1/agx-fw/%s/probe-reaches-initialize", fws[f]);
        g_autofree char *flush = g_strdup_printf(
            "/apple-m1/agx-fw/%s/devctrl/cache-flush-is-consumed", fws[f]);
        g_autofree char *grow = g_strdup_printf(
            "/apple-m1/agx-fw/%s/devctrl/grow-tvb-ack-both-tags", fws[f]);
        g_autofree char *idle = g_strdup_printf(
            "/apple-m1/agx-fw/%s/devctrl/m1n1-update-idle-ts", fws[f]);
        g_autofree char *mig = g_strdup_printf(
            "/apple-m1/agx-fw/%s/migration/after-init", fws[f]);

        qtest_add_data_func(probe, fws[f], test_probe);
        qtest_add_data_func(flush, fws[f], test_devctrl_cache_flush);
        qtest_add_data_func(grow, fws[f], test_devctrl_grow_tvb_ack_tags);
        qtest_add_data_func(idle, fws[f], test_m1n1_update_idle_ts);
        qtest_add_data_func(mig, fws[f], test_migrate_after_init);
        for (int i = 0; i < ARRAY_SIZE(bad_initdata); i++) {
            g_autofree char *path = g_strdup_printf(
                "/apple-m1/agx-fw/%s/bad-initdata/%s-crashes-firmware",
                fws[f], bad_initdata[i].name);

            qtest_add_data_func(path, GINT_TO_POINTER(i * 2 + f),
                                test_bad_initdata);
        }
    }
    qtest_add_func("/apple-m1/agx-fw/fwctl/completes-handoff-flush",
                   test_fwctl_completes_handoff_flush);
    qtest_add_func("/apple-m1/agx-fw/sgx/start-up-poke-is-kept",
                   test_sgx_start_up_poke);
    qtest_add_func("/apple-m1/agx-fw/bad-doorbells-are-guest-errors",
                   test_bad_doorbells);
    return g_test_run();
}
