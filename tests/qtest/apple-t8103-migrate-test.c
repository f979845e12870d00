/*
 * QTest: the t8103 devices of apple-m1,soc=t8103 keep their state across
 * migration (AIC, FIQ sources, S5L UART, PMGR)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "agx/qtest-migrate.h"

#define MACHINE             "-M apple-m1,soc=t8103 -smp 2 -m 512M"

#define AIC_BASE            0x23b100000ULL
#define AIC_EVENT           (AIC_BASE + 0x2004)
#define AIC_IPI_MASK_SET    (AIC_BASE + 0x2024)
#define AIC_TARGET_CPU(n)   (AIC_BASE + 0x3000 + 4 * (n))
#define AIC_SW_SET(n)       (AIC_BASE + 0x4000 + 4 * ((n) / 32))
#define AIC_MASK_CLR(n)     (AIC_BASE + 0x4180 + 4 * ((n) / 32))
#define AIC_CPU_IPI_SET(c)  (AIC_BASE + 0x5008 + 0x80 * (c))
#define LINE_BIT(n)         (1U << ((n) % 32))

#define UART_BASE           0x235200000ULL
#define UART_UCON           (UART_BASE + 0x04)
#define UART_UFCON          (UART_BASE + 0x08)
#define UART_UBRDIV         (UART_BASE + 0x28)

#define PS_GFX              (0x23b700000ULL + 0x3f8)
#define PS_MINI             (0x23d280000ULL + 0x20)

static QTestState *migrate(QTestState *src)
{
    g_autofree char *path = g_strdup_printf("%s/apple-t8103-%d.mig",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    QTestState *dst;

    qtest_qmp_assert_success(src, "{'execute': 'migrate', 'arguments': "
                             "{'uri': %s}}", uri);
    agx_qtest_wait_migration(src);
    dst = qtest_initf(MACHINE " -incoming %s", uri);
    agx_qtest_wait_migration(dst);
    qtest_quit(src);
    unlink(path);
    return dst;
}

/*
 * The ID of an AArch64 system register in the CPUs' migrated register
 * list (KVM's encoding, as QEMU's cpreg_to_kvm_id() makes it)
 */
#define SYSREG_ID(op0, op1, crn, crm, op2) \
    (0x6030000000130000ULL | (op0) << 14 | (op1) << 11 | (crn) << 7 | \
     (crm) << 3 | (op2))

/* The system registers of apple-fiq, whose state the device migrates */
static const uint64_t apple_fiq_regs[] = {
    SYSREG_ID(3, 1, 15, 0, 0),      /* PMCR0_EL1, L2ACTLR_EL1 on -cpu max */
    SYSREG_ID(3, 5, 15, 0, 0),      /* IPI_RR_LOCAL_EL1 */
    SYSREG_ID(3, 5, 15, 0, 1),      /* IPI_RR_GLOBAL_EL1 */
    SYSREG_ID(3, 5, 15, 1, 1),      /* IPI_SR_EL1 */
    SYSREG_ID(3, 5, 15, 1, 3),      /* VM_TMR_FIQ_ENA_EL2 */
    SYSREG_ID(3, 5, 15, 3, 1),      /* IPI_CR_EL1 */
    SYSREG_ID(3, 7, 15, 0, 4),      /* UPMCR0_EL1 */
    SYSREG_ID(3, 7, 15, 6, 4),      /* UPMSR_EL1 */
};

/*
 * A CPU migrates its system registers as a list of IDs and a list of
 * values.  An entry for a register it cannot read raw (those of apple-fiq)
 * is never filled: its value would be uninitialised host memory.  So the
 * stream must hold none of their IDs (big-endian, as the list is sent).
 */
static void test_cpu_lists_leave_fiq_registers_out(void)
{
    g_autofree char *path = g_strdup_printf("%s/apple-t8103-regs-%d.mig",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    g_autofree char *stream = NULL;
    uint64_t sctlr = cpu_to_be64(SYSREG_ID(3, 0, 1, 0, 0));
    QTestState *qts = qtest_init(MACHINE);
    gsize len;

    qtest_qmp_assert_success(qts, "{'execute': 'migrate', 'arguments': "
                             "{'uri': %s}}", uri);
    agx_qtest_wait_migration(qts);
    qtest_quit(qts);
    g_assert_true(g_file_get_contents(path, &stream, &len, NULL));
    unlink(path);

    for (int i = 0; i < ARRAY_SIZE(apple_fiq_regs); i++) {
        uint64_t id = cpu_to_be64(apple_fiq_regs[i]);

        g_assert_null(memmem(stream, len, &id, sizeof(id)));
    }
    /* ... while the registers of the CPU itself are there */
    g_assert_nonnull(memmem(stream, len, &sctlr, sizeof(sctlr)));
}

static void test_aic_state_survives(void)
{
    QTestState *qts = qtest_init(MACHINE);

    qtest_irq_intercept_out_named(qts, "/machine/aic", "sysbus-irq");
    qtest_writel(qts, AIC_TARGET_CPU(300), 1 << 1);
    qtest_writel(qts, AIC_MASK_CLR(300), LINE_BIT(300));
    qtest_writel(qts, AIC_MASK_CLR(40), LINE_BIT(40));
    qtest_writel(qts, AIC_SW_SET(40), LINE_BIT(40));
    qtest_writel(qts, AIC_SW_SET(41), LINE_BIT(41));
    qtest_writel(qts, AIC_IPI_MASK_SET, 1U << 31);
    qtest_writel(qts, AIC_CPU_IPI_SET(0), 1U << 31 | 1);

    qts = migrate(qts);
    g_assert_cmphex(qtest_readl(qts, AIC_TARGET_CPU(300)), ==, 1 << 1);
    /* Line 40 pends unmasked, 41 pends masked, then the unmasked IPI */
    g_assert_cmphex(qtest_readl(qts, AIC_EVENT), ==, 0x10000 | 40);
    g_assert_cmphex(qtest_readl(qts, AIC_EVENT), ==, 0x40001);
    g_assert_cmphex(qtest_readl(qts, AIC_EVENT), ==, 0);
    qtest_quit(qts);
}

static void test_uart_and_pmgr_state_survive(void)
{
    QTestState *qts = qtest_init(MACHINE);

    qtest_writel(qts, UART_UCON, 0x3005);
    qtest_writel(qts, UART_UFCON, 0x11);
    qtest_writel(qts, UART_UBRDIV, 0xc);
    qtest_writel(qts, PS_GFX, 0x4);
    qtest_writel(qts, PS_MINI, 0x10000000);

    qts = migrate(qts);
    g_assert_cmphex(qtest_readl(qts, UART_UCON), ==, 0x3005);
    g_assert_cmphex(qtest_readl(qts, UART_UFCON), ==, 0x11);
    g_assert_cmphex(qtest_readl(qts, UART_UBRDIV), ==, 0xc);
    g_assert_cmphex(qtest_readl(qts, PS_GFX), ==, 0x44);
    g_assert_cmphex(qtest_readl(qts, PS_MINI), ==, 0x10000000);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-t8103/migration/cpu-lists-leave-fiq-registers-out",
                   test_cpu_lists_leave_fiq_registers_out);
    qtest_add_func("/apple-t8103/migration/keeps-aic-state",
                   test_aic_state_survives);
    qtest_add_func("/apple-t8103/migration/keeps-uart-and-pmgr-state",
                   test_uart_and_pmgr_state_survive);

    return g_test_run();
}
