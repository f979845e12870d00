/*
 * QTest for the GPU's ASC coprocessor on apple-m1: mailbox registers and
 * interrupts, the RTKit handshake as Linux drives it, crash injection,
 * bad input, and migration in the middle of the handshake
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bswap.h"
#include "qobject/qdict.h"
#include "agx/agx-drv.h"

#define ASC_BASE        0x206400000ULL
#define MBOX            (ASC_BASE + 0x8000)
#define A2I_CONTROL     (MBOX + 0x110)
#define I2A_CONTROL     (MBOX + 0x114)
#define A2I_SEND0       (MBOX + 0x800)
#define A2I_SEND1       (MBOX + 0x808)
#define I2A_RECV0       (MBOX + 0x830)
#define I2A_RECV1       (MBOX + 0x838)
#define FULL            (1u << 16)
#define EMPTY           (1u << 17)
#define COUNT(c)        (((c) >> 20) & 0xf)

#define ECHO_EP         0x2f

enum { SEND_EMPTY, SEND_NOT_EMPTY, RECV_EMPTY, RECV_NOT_EMPTY };

/* The GPU's RTKit buffers live in its UAT: agx-drv sets that up */
typedef struct Env {
    QTestState *qts;
    AgxDrv drv;
} Env;

static void env_start(Env *env, const char *extra)
{
    g_autofree char *args = g_strdup_printf(
        "-global apple-asc.echo-endpoint=0x%x %s", ECHO_EP, extra ?: "");

    agx_drv_start(&env->drv, "13.5", args);
    env->qts = env->drv.qts;
    agx_drv_setup_uat(&env->drv);
}

static void env_stop(Env *env)
{
    agx_drv_stop(&env->drv);
}

static void assert_logged(Env *env, const char *fragment)
{
    g_assert_true(agx_drv_logged(&env->drv, fragment));
}

static void test_irqs_follow_fifo_levels(void)
{
    Env env;

    env_start(&env, NULL);
    qtest_irq_intercept_out_named(env.qts, "/machine/gpu-asc",
                                  "sysbus-irq");
    /* Reset so that the initial levels reach the interceptor */
    qtest_system_reset(env.qts);
    g_assert_true(qtest_get_irq(env.qts, SEND_EMPTY));
    g_assert_false(qtest_get_irq(env.qts, SEND_NOT_EMPTY));
    g_assert_true(qtest_get_irq(env.qts, RECV_EMPTY));
    g_assert_false(qtest_get_irq(env.qts, RECV_NOT_EMPTY));
    g_assert_cmphex(qtest_readl(env.qts, A2I_CONTROL), ==, EMPTY);

    /* The coprocessor is stopped: what the AP sends stays queued */
    qtest_writeq(env.qts, A2I_SEND0, 0x1234);
    qtest_writeq(env.qts, A2I_SEND1, 0x20);
    g_assert_false(qtest_get_irq(env.qts, SEND_EMPTY));
    g_assert_true(qtest_get_irq(env.qts, SEND_NOT_EMPTY));
    g_assert_cmpuint(COUNT(qtest_readl(env.qts, A2I_CONTROL)), ==, 1);

    /* Booting greets with HELLO: recv-not-empty until it is read */
    rtkit_ap_set_run(&env.drv.ap, true);
    g_assert_true(qtest_get_irq(env.qts, RECV_NOT_EMPTY));
    g_assert_false(qtest_get_irq(env.qts, RECV_EMPTY));
    g_assert_cmphex(qtest_readq(env.qts, I2A_RECV0) >> 52, ==, 1);
    g_assert_cmphex(qtest_readq(env.qts, I2A_RECV1), ==, 0);
    g_assert_false(qtest_get_irq(env.qts, RECV_NOT_EMPTY));
    g_assert_true(qtest_get_irq(env.qts, RECV_EMPTY));
    /* ... and the queued message was consumed by the firmware */
    g_assert_true(qtest_get_irq(env.qts, SEND_EMPTY));
    assert_logged(&env, "not started");
    env_stop(&env);
}

static void test_overflow_is_logged(void)
{
    Env env;

    env_start(&env, NULL);
    for (int i = 0; i < 16; i++) {
        qtest_writeq(env.qts, A2I_SEND0, i);
        qtest_writeq(env.qts, A2I_SEND1, 0);
    }
    g_assert_cmphex(qtest_readl(env.qts, A2I_CONTROL) & FULL, ==, FULL);
    qtest_writeq(env.qts, A2I_SEND0, 16);
    qtest_writeq(env.qts, A2I_SEND1, 0);
    assert_logged(&env, "A2I FIFO overflow, message 0x0000000000000010");
    g_assert_cmphex(qtest_readl(env.qts, A2I_CONTROL) & FULL, ==, FULL);
    env_stop(&env);
}

static void test_bad_register_accesses_are_logged(void)
{
    Env env;

    env_start(&env, NULL);
    g_assert_cmphex(qtest_readq(env.qts, I2A_RECV0), ==, 0);
    assert_logged(&env, "read of empty I2A FIFO");
    qtest_writel(env.qts, I2A_CONTROL, 0);
    assert_logged(&env, "write to read-only CONTROL");
    qtest_writeq(env.qts, I2A_RECV0, 0);
    assert_logged(&env, "AP write to read-only register");
    qtest_writeq(env.qts, MBOX + 0x820, 0);
    assert_logged(&env, "AP write to coprocessor-side register");
    qtest_writel(env.qts, ASC_BASE + 0x48, 0);
    assert_logged(&env, "write to read-only CPU_STATUS");
    g_assert_cmphex(qtest_readl(env.qts, ASC_BASE + 0x100), ==, 0);
    assert_logged(&env, "unimplemented read at 0x100");
    env_stop(&env);
}

static void test_boot_as_linux_does(void)
{
    Env env;

    env_start(&env, NULL);
    g_assert_cmphex(qtest_readl(env.qts, ASC_BASE + 0x48) & 3, ==, 2);
    rtkit_ap_boot(&env.drv.ap);
    g_assert_cmphex(qtest_readl(env.qts, ASC_BASE + 0x48) & 3, ==, 1);
    g_assert_cmpint(env.drv.ap.version, ==, 12);
    g_assert_true(env.drv.ap.endpoints[1] && env.drv.ap.endpoints[2] &&
                  env.drv.ap.endpoints[4] && env.drv.ap.endpoints[ECHO_EP]);
    g_assert_false(env.drv.ap.endpoints[8]);
    g_assert_cmpuint(env.drv.ap.crashlog_size, ==, 0x4000);
    g_assert_cmpuint(env.drv.ap.syslog->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(env.drv.ap.syslog, 0), ==,
                    "RTKit: firmware up, syslog ready");

    rtkit_ap_start_ep(&env.drv.ap, ECHO_EP);
    rtkit_ap_send(&env.drv.ap, ECHO_EP, 0xfeedfacecafebeefULL);
    g_assert_cmphex(rtkit_ap_wait_app(&env.drv.ap, ECHO_EP), ==,
                    ~0xfeedfacecafebeefULL);
    g_test_message("boot exchanged %u messages to and %u from the firmware",
                   env.drv.ap.msgs_sent, env.drv.ap.msgs_received);
    env_stop(&env);
}

static void test_sleep_and_wake(void)
{
    Env env;

    env_start(&env, NULL);
    rtkit_ap_boot(&env.drv.ap);
    /* apple_rtkit_shutdown(), then the AP forgets everything */
    rtkit_ap_set_ap_power(&env.drv.ap, 0x10);
    rtkit_ap_set_iop_power(&env.drv.ap, 0x01);
    env.drv.ap.epmap_done = false;
    env.drv.ap.crashlog_size = 0;
    memset(env.drv.ap.endpoints, 0, sizeof(env.drv.ap.endpoints));
    /* apple_rtkit_wake(): a full handshake again */
    rtkit_ap_send(&env.drv.ap, 0, (6ULL << 52) | 0x20);
    while (!(env.drv.ap.epmap_done && env.drv.ap.iop_power == 0x20)) {
        g_assert_true(rtkit_ap_process_one(&env.drv.ap));
    }
    rtkit_ap_set_ap_power(&env.drv.ap, 0x20);
    rtkit_ap_start_ep(&env.drv.ap, ECHO_EP);
    rtkit_ap_send(&env.drv.ap, ECHO_EP, 1);
    g_assert_cmphex(rtkit_ap_wait_app(&env.drv.ap, ECHO_EP), ==, ~1ULL);
    env_stop(&env);
}

/* Walk the crash log as Linux does; returns the Cstr text */
static char *read_crashlog(Env *env)
{
    uint8_t *log = g_malloc(env->drv.ap.crashlog_size);
    uint32_t size, off = 0x20;
    char *text = NULL;

    agx_drv_read(&env->drv, env->drv.ap.crashlog_iova, log,
                 env->drv.ap.crashlog_size);
    g_assert_cmphex(ldl_le_p(log), ==, 0x434c4845);
    size = ldl_le_p(log + 8);
    g_assert_cmpuint(size, <=, env->drv.ap.crashlog_size);
    while (off < size && ldl_le_p(log + off) != 0x434c4845) {
        if (ldl_le_p(log + off) == 0x43737472) {
            text = g_strdup((char *)log + off + 16 + 4);
        }
        g_assert_cmpuint(ldl_le_p(log + off + 12), >=, 16);
        off += ldl_le_p(log + off + 12);
    }
    g_assert_cmpuint(off, <, size);
    g_free(log);
    return text;
}

static void test_crash_injection(void)
{
    g_autofree char *text = NULL;
    QDict *rsp;
    uint8_t ep;
    uint64_t msg;
    Env env;

    env_start(&env, NULL);
    rtkit_ap_boot(&env.drv.ap);
    g_assert_false(qtest_qom_get_bool(env.qts, "/machine/gpu-asc",
                                      "crashed"));
    qtest_qom_set_bool(env.qts, "/machine/gpu-asc", "crashed", true);
    rtkit_ap_process_all(&env.drv.ap);
    g_assert_true(env.drv.ap.crashed);
    g_assert_true(qtest_qom_get_bool(env.qts, "/machine/gpu-asc",
                                     "crashed"));
    text = read_crashlog(&env);
    g_assert_cmpstr(text, ==,
                    "crash injected by the host (QOM property 'crashed')");

    /* Dead: the echo endpoint no longer answers */
    rtkit_ap_start_ep(&env.drv.ap, ECHO_EP);
    rtkit_ap_send(&env.drv.ap, ECHO_EP, 5);
    g_assert_false(rtkit_ap_try_recv(&env.drv.ap, &ep, &msg));
    /* Un-crashing by QOM is refused; cycling RUN reboots */
    rsp = qtest_qmp(env.qts, "{'execute': 'qom-set', 'arguments': {"
                    "'path': '/machine/gpu-asc', 'property': 'crashed',"
                    "'value': false}}");
    g_assert_true(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    rtkit_ap_set_run(&env.drv.ap, false);
    rtkit_ap_set_run(&env.drv.ap, true);
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);
    g_assert_cmpuint(ep, ==, 0);
    g_assert_cmphex(msg >> 52, ==, 1);                  /* HELLO */
    g_assert_false(qtest_qom_get_bool(env.qts, "/machine/gpu-asc",
                                      "crashed"));
    env_stop(&env);
}

/* A buffer "in" the mailbox registers must never be written to */
static void test_wild_buffer_iova_crashes_firmware(void)
{
    uint8_t ep;
    uint64_t msg;
    Env env;

    env_start(&env, NULL);
    rtkit_ap_set_run(&env.drv.ap, true);
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);                  /* HELLO */
    rtkit_ap_send(&env.drv.ap, 0, (2ULL << 52) | 12 | (12 << 16));
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);                  /* EPMAP block 0 */
    rtkit_ap_send(&env.drv.ap, 0, (8ULL << 52) | 1);
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);                  /* block 1: echo */
    rtkit_ap_send(&env.drv.ap, 0, (8ULL << 52) | (1ULL << 32) | (1ULL << 51));
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);                  /* IOP power ack */
    g_assert_cmphex(msg, ==, (7ULL << 52) | 0x20);
    rtkit_ap_start_ep(&env.drv.ap, 2);
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);                  /* buffer request */
    g_assert_cmpuint(ep, ==, 2);
    rtkit_ap_send(&env.drv.ap, 2, (1ULL << 52) | (msg & (0xffULL << 44)) |
                  (MBOX + 0x800));
    assert_logged(&env, "is not accessible");
    g_assert_true(qtest_qom_get_bool(env.qts, "/machine/gpu-asc",
                                     "crashed"));
    /* Nothing was "sent" by writes into SEND0/SEND1 */
    g_assert_cmphex(qtest_readl(env.qts, A2I_CONTROL), ==, EMPTY);
    g_assert_false(rtkit_ap_try_recv(&env.drv.ap, &ep, &msg));
    env_stop(&env);
}

static void test_broken_hello_version(void)
{
    uint8_t ep;
    uint64_t msg;
    Env env;

    env_start(&env, "-global apple-asc.x-hello-min=13 "
              "-global apple-asc.x-hello-max=14");
    rtkit_ap_set_run(&env.drv.ap, true);
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);
    g_assert_cmphex(msg, ==, (1ULL << 52) | 13 | (14 << 16));
    env_stop(&env);
}

/*
 * Save in the middle of the handshake (EPMAP queued in the I2A FIFO, the
 * firmware waiting for its reply), restore into a new QEMU, finish there.
 */
static void test_migrate_mid_handshake(void)
{
    uint8_t ep;
    uint64_t msg;
    Env env;

    env_start(&env, NULL);
    rtkit_ap_set_run(&env.drv.ap, true);
    g_assert_true(rtkit_ap_process_one(&env.drv.ap));       /* HELLO */
    agx_drv_migrate(&env.drv);
    env.qts = env.drv.qts;

    /* The EPMAP sent before the save is still waiting to be read */
    rtkit_ap_recv(&env.drv.ap, &ep, &msg);
    g_assert_cmpuint(ep, ==, 0);
    g_assert_cmphex(msg >> 52, ==, 8);
    rtkit_ap_send(&env.drv.ap, 0, (8ULL << 52) | 1);
    while (!(env.drv.ap.epmap_done && env.drv.ap.iop_power == 0x20)) {
        g_assert_true(rtkit_ap_process_one(&env.drv.ap));
    }
    rtkit_ap_set_ap_power(&env.drv.ap, 0x20);
    rtkit_ap_process_all(&env.drv.ap);
    rtkit_ap_start_ep(&env.drv.ap, ECHO_EP);
    rtkit_ap_send(&env.drv.ap, ECHO_EP, 7);
    g_assert_cmphex(rtkit_ap_wait_app(&env.drv.ap, ECHO_EP), ==, ~7ULL);
    env_stop(&env);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-m1/agx-asc/mailbox/irqs-follow-fifo-levels",
                   test_irqs_follow_fifo_levels);
    qtest_add_func("/apple-m1/agx-asc/mailbox/overflow-is-logged",
                   test_overflow_is_logged);
    qtest_add_func("/apple-m1/agx-asc/mailbox/bad-accesses-are-logged",
                   test_bad_register_accesses_are_logged);
    qtest_add_func("/apple-m1/agx-asc/rtkit/boots-as-linux-drives-it",
                   test_boot_as_linux_does);
    qtest_add_func("/apple-m1/agx-asc/rtkit/sleeps-and-wakes",
                   test_sleep_and_wake);
    qtest_add_func("/apple-m1/agx-asc/rtkit/injected-crash-is-reported",
                   test_crash_injection);
    qtest_add_func("/apple-m1/agx-asc/rtkit/wild-buffer-crashes-firmware",
                   test_wild_buffer_iova_crashes_firmware);
    qtest_add_func("/apple-m1/agx-asc/rtkit/hello-version-is-configurable",
                   test_broken_hello_version);
    qtest_add_func("/apple-m1/agx-asc/migration/mid-handshake",
                   test_migrate_mid_handshake);
    return g_test_run();
}
