/*
 * QTest for the PMGR power-state registers of apple-m1,soc=t8103
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define PMGR_BASE           0x23b700000ULL
#define PMGR_MINI_BASE      0x23d280000ULL
#define PS_UART0            0x270
#define PS_GFX              0x3f8

#define PS_TARGET           0xfU
#define PS_ACTUAL_SHIFT     4
#define PS_ACTUAL           (0xfU << PS_ACTUAL_SHIFT)
#define PS_ACTIVE           0xf
#define PS_CLKGATE          0x4
#define PS_PWRGATE          0x0
#define PS_AUTO_ENABLE      (1U << 28)
#define PS_RESET            (1U << 31)
#define PS_DEV_DISABLE      (1U << 10)

static uint32_t actual(uint32_t ps)
{
    return (ps & PS_ACTUAL) >> PS_ACTUAL_SHIFT;
}

static QTestState *pmgr_init(void)
{
    return qtest_init("-M apple-m1,soc=t8103");
}

static void test_domains_start_active(void)
{
    QTestState *qts = pmgr_init();

    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_UART0), ==, 0xff);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_GFX), ==, 0xff);
    g_assert_cmphex(qtest_readl(qts, PMGR_MINI_BASE + 0x100), ==, 0xff);
    qtest_quit(qts);
}

static void test_actual_follows_target(void)
{
    QTestState *qts = pmgr_init();
    static const uint32_t states[] = { PS_PWRGATE, PS_CLKGATE, PS_ACTIVE };

    for (int i = 0; i < ARRAY_SIZE(states); i++) {
        uint32_t ps = qtest_readl(qts, PMGR_BASE + PS_GFX);

        qtest_writel(qts, PMGR_BASE + PS_GFX, (ps & ~PS_TARGET) | states[i]);
        ps = qtest_readl(qts, PMGR_BASE + PS_GFX);
        g_assert_cmphex(ps & PS_TARGET, ==, states[i]);
        g_assert_cmphex(actual(ps), ==, states[i]);
    }
    qtest_quit(qts);
}

static void test_actual_ignores_written_actual(void)
{
    QTestState *qts = pmgr_init();

    qtest_writel(qts, PMGR_BASE + PS_UART0, PS_ACTUAL | PS_PWRGATE);
    g_assert_cmphex(actual(qtest_readl(qts, PMGR_BASE + PS_UART0)), ==,
                    PS_PWRGATE);
    qtest_quit(qts);
}

static void test_control_bits_are_kept(void)
{
    QTestState *qts = pmgr_init();
    uint32_t ctl = PS_AUTO_ENABLE | PS_RESET | PS_DEV_DISABLE;

    qtest_writel(qts, PMGR_BASE + PS_UART0, ctl | PS_ACTIVE);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_UART0), ==,
                    ctl | PS_ACTUAL | PS_ACTIVE);
    qtest_writel(qts, PMGR_BASE + PS_UART0, PS_ACTIVE);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_UART0), ==, 0xff);
    qtest_quit(qts);
}

static void test_domains_are_independent(void)
{
    QTestState *qts = pmgr_init();

    qtest_writel(qts, PMGR_BASE + PS_UART0, PS_PWRGATE);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_UART0), ==, 0);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_UART0 + 4), ==, 0xff);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_UART0 - 4), ==, 0xff);
    qtest_quit(qts);
}

static void test_reset_powers_domains_on(void)
{
    QTestState *qts = pmgr_init();

    qtest_writel(qts, PMGR_BASE + PS_GFX, PS_PWRGATE);
    qtest_system_reset(qts);
    g_assert_cmphex(qtest_readl(qts, PMGR_BASE + PS_GFX), ==, 0xff);
    qtest_quit(qts);
}

#define GPU_SGX_ID_VERSION  0x204d04000ULL
#define GPU_ASC_CPU_CONTROL 0x206400044ULL

static bool log_has(const char *path, const char *fragment)
{
    g_autofree char *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return strstr(text, fragment) != NULL;
}

/*
 * The GPU sits in ps_gfx: clock-gated or power-gated, its register blocks
 * do not answer (reads give 0, logged); active again, they do
 */
static void test_gated_gpu_does_not_answer(void)
{
    g_autofree char *log = g_strdup_printf("%s/apple-pmgr-gfx-%d.log",
                                           g_get_tmp_dir(), getpid());
    QTestState *qts = qtest_initf("-M apple-m1,soc=t8103 "
                                  "-d guest_errors -D %s", log);
    static const uint32_t gated[] = { PS_CLKGATE, PS_PWRGATE };

    g_assert_cmphex(qtest_readl(qts, GPU_SGX_ID_VERSION), !=, 0);
    for (int i = 0; i < ARRAY_SIZE(gated); i++) {
        qtest_writel(qts, PMGR_BASE + PS_GFX, gated[i]);
        g_assert_cmphex(qtest_readl(qts, GPU_SGX_ID_VERSION), ==, 0);
        qtest_writel(qts, GPU_ASC_CPU_CONTROL, 0x10);
        qtest_writel(qts, PMGR_BASE + PS_GFX, PS_ACTIVE);
        g_assert_cmphex(qtest_readl(qts, GPU_SGX_ID_VERSION), !=, 0);
        /* The write to CPU_CONTROL while gated started nothing */
        g_assert_cmphex(qtest_readl(qts, GPU_ASC_CPU_CONTROL), ==, 0);
    }
    /* Other domains leave the GPU alone */
    qtest_writel(qts, PMGR_BASE + PS_UART0, PS_PWRGATE);
    g_assert_cmphex(qtest_readl(qts, GPU_SGX_ID_VERSION), !=, 0);
    qtest_quit(qts);

    g_assert_true(log_has(log, "4-byte read at 0xd04000 of apple-agx.sgx "
                          "while its power domain is not active"));
    g_assert_true(log_has(log, "4-byte write of 0x10 at 0x44 of apple-asc "
                          "while its power domain is not active"));
    unlink(log);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-pmgr/domains-start-active",
                   test_domains_start_active);
    qtest_add_func("/apple-pmgr/actual-follows-target",
                   test_actual_follows_target);
    qtest_add_func("/apple-pmgr/actual-ignores-written-actual",
                   test_actual_ignores_written_actual);
    qtest_add_func("/apple-pmgr/control-bits-are-kept",
                   test_control_bits_are_kept);
    qtest_add_func("/apple-pmgr/domains-are-independent",
                   test_domains_are_independent);
    qtest_add_func("/apple-pmgr/reset-powers-domains-on",
                   test_reset_powers_domains_on);
    qtest_add_func("/apple-pmgr/gfx/gated-gpu-does-not-answer",
                   test_gated_gpu_does_not_answer);

    return g_test_run();
}
