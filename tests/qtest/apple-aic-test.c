/*
 * QTest for the Apple Interrupt Controller (AICv1) of apple-m1,soc=t8103
 *
 * qtest accesses act as CPU 0, so the event register is read as CPU 0;
 * routing to other CPUs is seen on the AIC's per-CPU IRQ outputs.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define AIC_BASE            0x23b100000ULL
#define AIC_INFO            0x0004
#define AIC_WHOAMI          0x2000
#define AIC_EVENT           0x2004
#define AIC_IPI_SEND        0x2008
#define AIC_IPI_ACK         0x200c
#define AIC_IPI_MASK_SET    0x2024
#define AIC_IPI_MASK_CLR    0x2028
#define AIC_TARGET_CPU(n)   (0x3000 + 4 * (n))
#define AIC_SW_SET(n)       (0x4000 + 4 * ((n) / 32))
#define AIC_SW_CLR(n)       (0x4080 + 4 * ((n) / 32))
#define AIC_MASK_SET(n)     (0x4100 + 4 * ((n) / 32))
#define AIC_MASK_CLR(n)     (0x4180 + 4 * ((n) / 32))
#define AIC_HW_STATE(n)     (0x4200 + 4 * ((n) / 32))
#define AIC_CPU_IPI_SET(c)  (0x5008 + 0x80 * (c))
#define AIC_CPU_IPI_CLR(c)  (0x500c + 0x80 * (c))
#define LINE_BIT(n)         (1U << ((n) % 32))

#define IPI_OTHER           (1U << 0)
#define IPI_SELF            (1U << 31)
#define EVENT_IRQ(n)        (0x10000 | (n))
#define EVENT_IPI_OTHER     0x40001
#define EVENT_IPI_SELF      0x40002

#define UART0_LINE          605

static uint32_t aic_read(QTestState *qts, uint32_t reg)
{
    return qtest_readl(qts, AIC_BASE + reg);
}

static void aic_write(QTestState *qts, uint32_t reg, uint32_t val)
{
    qtest_writel(qts, AIC_BASE + reg, val);
}

static QTestState *aic_init(int cpus)
{
    return qtest_initf("-M apple-m1,soc=t8103 -smp %d", cpus);
}

/* As Linux's irq_unmask: a line with its software bit set pends */
static void sw_raise(QTestState *qts, int line)
{
    aic_write(qts, AIC_MASK_CLR(line), LINE_BIT(line));
    aic_write(qts, AIC_SW_SET(line), LINE_BIT(line));
}

static void test_info_counts_t8103_lines(void)
{
    QTestState *qts = aic_init(1);

    g_assert_cmpuint(aic_read(qts, AIC_INFO) & 0xffff, ==, 896);
    qtest_quit(qts);
}

static void test_whoami_is_the_accessing_cpu(void)
{
    QTestState *qts = aic_init(2);

    g_assert_cmpuint(aic_read(qts, AIC_WHOAMI), ==, 0);
    qtest_quit(qts);
}

static void test_event_is_zero_when_nothing_pends(void)
{
    QTestState *qts = aic_init(1);

    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    qtest_quit(qts);
}

static void test_event_gives_lowest_line_first(void)
{
    QTestState *qts = aic_init(1);

    sw_raise(qts, 700);
    sw_raise(qts, UART0_LINE);
    sw_raise(qts, 10);
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(10));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(UART0_LINE));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(700));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    qtest_quit(qts);
}

static void test_event_masks_the_line_it_gives(void)
{
    QTestState *qts = aic_init(1);

    sw_raise(qts, 42);
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(42));
    g_assert_cmphex(aic_read(qts, AIC_MASK_SET(42)) & LINE_BIT(42), !=, 0);
    /* Still pending, but masked: silent until the driver's EOI unmasks */
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    aic_write(qts, AIC_MASK_CLR(42), LINE_BIT(42));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(42));
    qtest_quit(qts);
}

static void test_masked_line_stays_silent(void)
{
    QTestState *qts = aic_init(1);

    qtest_irq_intercept_out_named(qts, "/machine/aic", "sysbus-irq");
    aic_write(qts, AIC_SW_SET(300), LINE_BIT(300));
    g_assert_false(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    aic_write(qts, AIC_MASK_CLR(300), LINE_BIT(300));
    g_assert_true(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

static void test_sw_clr_withdraws_a_line(void)
{
    QTestState *qts = aic_init(1);

    sw_raise(qts, 99);
    g_assert_cmphex(aic_read(qts, AIC_SW_SET(99)), ==, LINE_BIT(99));
    aic_write(qts, AIC_SW_CLR(99), LINE_BIT(99));
    g_assert_cmphex(aic_read(qts, AIC_SW_SET(99)), ==, 0);
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    qtest_quit(qts);
}

static void test_hardware_line_raises_cpu_irq(void)
{
    QTestState *qts = aic_init(1);

    qtest_irq_intercept_out_named(qts, "/machine/aic", "sysbus-irq");
    aic_write(qts, AIC_MASK_CLR(UART0_LINE), LINE_BIT(UART0_LINE));
    qtest_set_irq_in(qts, "/machine/aic", NULL, UART0_LINE, 1);
    /* Other lines of the word are the GPU mailbox's, high at reset */
    g_assert_cmphex(aic_read(qts, AIC_HW_STATE(UART0_LINE)) &
                    LINE_BIT(UART0_LINE), ==, LINE_BIT(UART0_LINE));
    g_assert_true(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(UART0_LINE));
    /* Delivered, hence masked: the CPU's IRQ drops */
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_set_irq_in(qts, "/machine/aic", NULL, UART0_LINE, 0);
    aic_write(qts, AIC_MASK_CLR(UART0_LINE), LINE_BIT(UART0_LINE));
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

static void test_target_cpu_routes_a_line(void)
{
    QTestState *qts = aic_init(2);

    qtest_irq_intercept_out_named(qts, "/machine/aic", "sysbus-irq");
    aic_write(qts, AIC_TARGET_CPU(UART0_LINE), 1 << 1);
    g_assert_cmphex(aic_read(qts, AIC_TARGET_CPU(UART0_LINE)), ==, 1 << 1);
    sw_raise(qts, UART0_LINE);
    g_assert_true(qtest_get_irq(qts, 1));
    g_assert_false(qtest_get_irq(qts, 0));
    /* CPU 0 is not its target: its event register stays empty */
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    aic_write(qts, AIC_TARGET_CPU(UART0_LINE), 1 << 0);
    g_assert_false(qtest_get_irq(qts, 1));
    g_assert_true(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

static void test_ipi_send_raises_other_ipi(void)
{
    QTestState *qts = aic_init(2);

    qtest_irq_intercept_out_named(qts, "/machine/aic", "sysbus-irq");
    aic_write(qts, AIC_IPI_SEND, 1 << 1);
    g_assert_true(qtest_get_irq(qts, 1));
    g_assert_false(qtest_get_irq(qts, 0));
    aic_write(qts, AIC_CPU_IPI_CLR(1), IPI_OTHER);
    g_assert_false(qtest_get_irq(qts, 1));

    aic_write(qts, AIC_IPI_SEND, 1 << 0);
    g_assert_true(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IPI_OTHER);
    /* The event masked the IPI; the driver acks, then unmasks */
    g_assert_false(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    aic_write(qts, AIC_IPI_ACK, IPI_OTHER);
    aic_write(qts, AIC_IPI_MASK_CLR, IPI_OTHER);
    g_assert_false(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    qtest_quit(qts);
}

static void test_masked_ipi_stays_silent(void)
{
    QTestState *qts = aic_init(1);

    qtest_irq_intercept_out_named(qts, "/machine/aic", "sysbus-irq");
    aic_write(qts, AIC_IPI_MASK_SET, IPI_SELF | IPI_OTHER);
    aic_write(qts, AIC_CPU_IPI_SET(0), IPI_SELF);
    g_assert_false(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    aic_write(qts, AIC_IPI_MASK_CLR, IPI_SELF);
    g_assert_true(qtest_get_irq(qts, 0));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IPI_SELF);
    qtest_quit(qts);
}

static void test_hardware_lines_come_before_ipis(void)
{
    QTestState *qts = aic_init(1);

    aic_write(qts, AIC_CPU_IPI_SET(0), IPI_OTHER | IPI_SELF);
    sw_raise(qts, 800);
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IRQ(800));
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IPI_OTHER);
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, EVENT_IPI_SELF);
    g_assert_cmphex(aic_read(qts, AIC_EVENT), ==, 0);
    qtest_quit(qts);
}

static bool log_has(const char *path, const char *fragment)
{
    g_autofree char *log = NULL;

    g_assert_true(g_file_get_contents(path, &log, NULL, NULL));
    return strstr(log, fragment) != NULL;
}

static void test_bad_accesses_are_logged(void)
{
    g_autofree char *log = g_strdup_printf("%s/apple-aic-%d.log",
                                           g_get_tmp_dir(), getpid());
    QTestState *qts = qtest_initf("-M apple-m1,soc=t8103 -smp 2 "
                                  "-d guest_errors -D %s", log);

    aic_read(qts, 0x7ffc);
    aic_write(qts, 0x7ff8, 1);
    aic_write(qts, AIC_TARGET_CPU(900), 1);
    aic_write(qts, AIC_IPI_SEND, 1 << 5);
    aic_write(qts, AIC_CPU_IPI_SET(3), IPI_OTHER);
    aic_write(qts, AIC_IPI_ACK, 0x10);
    qtest_quit(qts);

    g_assert_true(log_has(log, "read of unknown register 0x7ffc"));
    g_assert_true(log_has(log, "register 0x7ff8"));
    g_assert_true(log_has(log, "TARGET_CPU for line 900"));
    g_assert_true(log_has(log, "IPI_SEND to absent CPUs 0x00000020"));
    g_assert_true(log_has(log, "IPI view of absent CPU 3"));
    g_assert_true(log_has(log, "reserved IPI bits 0x00000010"));
    unlink(log);
}

/*
 * Lines 896..1023 have no TARGET_CPU, and no bits in the SW, MASK and
 * HW_STATE arrays either: writes there are dropped and logged
 */
static void test_absent_lines_hold_nothing(void)
{
    g_autofree char *log = g_strdup_printf("%s/apple-aic-absent-%d.log",
                                           g_get_tmp_dir(), getpid());
    QTestState *qts = qtest_initf("-M apple-m1,soc=t8103 "
                                  "-d guest_errors -D %s", log);

    aic_write(qts, AIC_SW_SET(900), LINE_BIT(900));
    g_assert_cmphex(aic_read(qts, AIC_SW_SET(900)), ==, 0);
    aic_write(qts, AIC_MASK_CLR(1000), LINE_BIT(1000));
    aic_write(qts, AIC_MASK_SET(1023), LINE_BIT(1023));
    g_assert_cmphex(aic_read(qts, AIC_MASK_SET(1023)), ==, 0);
    aic_write(qts, AIC_SW_CLR(960), 1);
    /* The last lines that exist still work */
    aic_write(qts, AIC_SW_SET(895), LINE_BIT(895));
    g_assert_cmphex(aic_read(qts, AIC_SW_SET(895)), ==, LINE_BIT(895));
    qtest_quit(qts);

    g_assert_true(log_has(log, "write of lines 896..927, but there are 896"));
    g_assert_true(log_has(log, "read of lines 896..927"));
    g_assert_true(log_has(log, "write of lines 992..1023"));
    g_assert_true(log_has(log, "write of lines 960..991"));
    g_assert_false(log_has(log, "lines 864..895"));
    unlink(log);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-aic/info/counts-t8103-lines",
                   test_info_counts_t8103_lines);
    qtest_add_func("/apple-aic/whoami/is-the-accessing-cpu",
                   test_whoami_is_the_accessing_cpu);
    qtest_add_func("/apple-aic/event/is-zero-when-nothing-pends",
                   test_event_is_zero_when_nothing_pends);
    qtest_add_func("/apple-aic/event/gives-lowest-line-first",
                   test_event_gives_lowest_line_first);
    qtest_add_func("/apple-aic/event/masks-the-line-it-gives",
                   test_event_masks_the_line_it_gives);
    qtest_add_func("/apple-aic/event/gives-hardware-lines-before-ipis",
                   test_hardware_lines_come_before_ipis);
    qtest_add_func("/apple-aic/mask/masked-line-stays-silent",
                   test_masked_line_stays_silent);
    qtest_add_func("/apple-aic/sw/sw-clr-withdraws-a-line",
                   test_sw_clr_withdraws_a_line);
    qtest_add_func("/apple-aic/hw/line-raises-cpu-irq",
                   test_hardware_line_raises_cpu_irq);
    qtest_add_func("/apple-aic/target/routes-a-line-to-its-cpu",
                   test_target_cpu_routes_a_line);
    qtest_add_func("/apple-aic/ipi/send-raises-other-ipi",
                   test_ipi_send_raises_other_ipi);
    qtest_add_func("/apple-aic/ipi/masked-ipi-stays-silent",
                   test_masked_ipi_stays_silent);
    qtest_add_func("/apple-aic/absent-lines/hold-nothing-and-are-logged",
                   test_absent_lines_hold_nothing);
    qtest_add_func("/apple-aic/bad-accesses-are-logged",
                   test_bad_accesses_are_logged);

    return g_test_run();
}
