/*
 * QTest for the Apple FIQ sources of apple-m1,soc=t8103: the timers on
 * each CPU's FIQ, and the fast-IPI and PMU system registers, which a
 * small guest program running under TCG exercises.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define RAM_BASE            0x800000000ULL
#define RESULTS             (RAM_BASE + 0x100000)
#define DONE_MAGIC          0xd0e

/* FIQ device inputs: CPU n's timer t is input n * 5 + t */
#define NUM_TIMERS          5
#define GTIMER_PHYS         0
#define GTIMER_VIRT         1
#define GTIMER_HYP          2

/* The system register fields of an MRS/MSR instruction */
#define SYSREG(op0, op1, crn, crm, op2) \
    (((op0) - 2) << 19 | (op1) << 16 | (crn) << 12 | (crm) << 8 | (op2) << 5)
#define PMCR0               SYSREG(3, 1, 15, 0, 0)
#define IPI_RR_LOCAL        SYSREG(3, 5, 15, 0, 0)
#define IPI_RR_GLOBAL       SYSREG(3, 5, 15, 0, 1)
#define IPI_SR              SYSREG(3, 5, 15, 1, 1)
#define IPI_CR              SYSREG(3, 5, 15, 3, 1)
#define UPMCR0              SYSREG(3, 7, 15, 0, 4)
#define UPMSR               SYSREG(3, 7, 15, 6, 4)
#define VM_TMR_FIQ_ENA      SYSREG(3, 5, 15, 1, 3)
#define ICH_HCR             SYSREG(3, 4, 12, 11, 0)
#define ICH_MISR            SYSREG(3, 4, 12, 11, 2)

/* What the guest program stores, in order, at RESULTS */
enum {
    R_SR_AT_START,
    R_SR_AFTER_SELF_IPI,
    R_SR_AFTER_ACK,
    R_PMCR0,
    R_UPMCR0,
    R_UPMSR,
    R_IPI_CR,
    R_DONE,
};

/* A tiny AArch64 assembler: the few instructions the program needs */
#define MSR(reg, rt)        (0xd5100000 | (reg) | (rt))
#define MRS(rt, reg)        (0xd5300000 | (reg) | (rt))
/* MOVZ/MOVK Xd, #imm16, LSL #(16 * hw) */
#define MOVZ(rd, imm, hw)   (0xd2800000 | (hw) << 21 | (imm) << 5 | (rd))
#define MOVK(rd, imm, hw)   (0xf2800000 | (hw) << 21 | (imm) << 5 | (rd))
/* STR Xt, [Xn, #8 * idx] */
#define STR(rt, rn, idx)    (0xf9000000 | (idx) << 10 | (rn) << 5 | (rt))
#define ISB                 0xd5033fdf
#define B_SELF              0x14000000

static const uint32_t guest_program[] = {
    /* x2 = RESULTS */
    MOVZ(2, 0x0010, 1), MOVK(2, 0x0008, 2),
    MRS(1, IPI_SR), STR(1, 2, R_SR_AT_START),
    /* IPIs to CPU 1 of this cluster, and to this CPU */
    MOVZ(1, 1, 0), MSR(IPI_RR_LOCAL, 1),
    MOVZ(1, 0, 0), MSR(IPI_RR_LOCAL, 1), ISB,
    MRS(1, IPI_SR), STR(1, 2, R_SR_AFTER_SELF_IPI),
    MOVZ(1, 1, 0), MSR(IPI_SR, 1), ISB,
    MRS(1, IPI_SR), STR(1, 2, R_SR_AFTER_ACK),
    /* To CPU 0 of cluster 1, which is CPU 4 */
    MOVZ(1, 0x0001, 1), MSR(IPI_RR_GLOBAL, 1),
    /* To CPU 2, then retracted */
    MOVZ(1, 2, 0), MSR(IPI_RR_LOCAL, 1),
    MOVK(1, 0x1000, 1), MSR(IPI_RR_LOCAL, 1),
    /* PMU and uncore PMU: Linux's init turns their interrupts off */
    MOVZ(1, 0x3, 0), MSR(PMCR0, 1), MRS(1, PMCR0), STR(1, 2, R_PMCR0),
    MOVZ(1, 0x7, 1), MSR(UPMCR0, 1), MRS(1, UPMCR0), STR(1, 2, R_UPMCR0),
    MRS(1, UPMSR), STR(1, 2, R_UPMSR),
    MOVZ(1, 0x1234, 0), MSR(IPI_CR, 1), MRS(1, IPI_CR), STR(1, 2, R_IPI_CR),
    MOVZ(1, DONE_MAGIC, 0), STR(1, 2, R_DONE),
    /* Last, a PMU interrupt in FIQ mode: PMCR0.IMODE = 4, IACT */
    MOVZ(1, 0xc00, 0), MSR(PMCR0, 1), ISB,
    B_SELF,
};

/* What el2_program stores at RESULTS */
enum {
    R2_VM_TMR_FIQ_ENA,
    R2_ICH_HCR,
    R2_ICH_MISR,
    R2_DONE = R_DONE,
};

/* At EL2 (el2=on): mask the guest timers' FIQs, touch the vGIC stubs */
static const uint32_t el2_program[] = {
    MOVZ(2, 0x0010, 1), MOVK(2, 0x0008, 2),
    MOVZ(1, 0, 0), MSR(VM_TMR_FIQ_ENA, 1), ISB,
    MRS(1, VM_TMR_FIQ_ENA), STR(1, 2, R2_VM_TMR_FIQ_ENA),
    MOVZ(1, 1, 0), MSR(ICH_HCR, 1), MRS(1, ICH_HCR), STR(1, 2, R2_ICH_HCR),
    MRS(1, ICH_MISR), STR(1, 2, R2_ICH_MISR),
    MOVZ(1, DONE_MAGIC, 0), STR(1, 2, R2_DONE),
    B_SELF,
};

static int timer_input(int cpu, int timer)
{
    return cpu * NUM_TIMERS + timer;
}

static void test_el1_timers_raise_fiq(void)
{
    QTestState *qts = qtest_init("-M apple-m1,soc=t8103 -smp 2");

    qtest_irq_intercept_out_named(qts, "/machine/fiq", "sysbus-irq");
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(1, GTIMER_VIRT), 1);
    g_assert_true(qtest_get_irq(qts, 1));
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(1, GTIMER_PHYS), 1);
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(1, GTIMER_VIRT), 0);
    g_assert_true(qtest_get_irq(qts, 1));
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(1, GTIMER_PHYS), 0);
    g_assert_false(qtest_get_irq(qts, 1));
    qtest_quit(qts);
}

/* The CPUs boot at EL1: EL2's timer has no say in their FIQ */
static void test_el2_timer_is_not_routed_without_el2(void)
{
    QTestState *qts = qtest_init("-M apple-m1,soc=t8103 -smp 1");

    qtest_irq_intercept_out_named(qts, "/machine/fiq", "sysbus-irq");
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(0, GTIMER_HYP), 1);
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

/* Run guest_program on CPU 0 of a 5-CPU machine until it is done */
static QTestState *run_program(const uint32_t *prog, size_t size,
                               const char *machine, char **path)
{
    QTestState *qts;
    int fd;

    fd = g_file_open_tmp("apple-fiq-XXXXXX.bin", path, NULL);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(write(fd, prog, size), ==, size);
    close(fd);
    /* Stopped until the FIQ lines are watched */
    qts = qtest_initf("-M apple-m1,soc=t8103%s -smp 5 -m 512M -accel tcg "
                      "-kernel %s -S", machine, *path);
    qtest_irq_intercept_out_named(qts, "/machine/fiq", "sysbus-irq");
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    for (int i = 0; i < 5000; i++) {
        if (qtest_readq(qts, RESULTS + 8 * R_DONE) == DONE_MAGIC) {
            return qts;
        }
        g_usleep(1000);
    }
    g_assert_not_reached();
}

static QTestState *run_guest_program(char **path)
{
    return run_program(guest_program, sizeof(guest_program), "", path);
}

static uint64_t result(QTestState *qts, int idx)
{
    return qtest_readq(qts, RESULTS + 8 * idx);
}

static void test_fast_ipi_sysregs(void)
{
    g_autofree char *path = NULL;
    QTestState *qts = run_guest_program(&path);

    g_assert_cmphex(result(qts, R_SR_AT_START), ==, 0);
    g_assert_cmphex(result(qts, R_SR_AFTER_SELF_IPI), ==, 1);
    g_assert_cmphex(result(qts, R_SR_AFTER_ACK), ==, 0);
    /* Local IPI to CPU 1 and global IPI to cluster 1 are pending there */
    g_assert_true(qtest_get_irq(qts, 1));
    g_assert_true(qtest_get_irq(qts, 4));
    /* Retracted, and never sent */
    g_assert_false(qtest_get_irq(qts, 2));
    g_assert_false(qtest_get_irq(qts, 3));
    qtest_quit(qts);
    unlink(path);
}

static void test_pmu_sysregs(void)
{
    g_autofree char *path = NULL;
    QTestState *qts = run_guest_program(&path);

    g_assert_cmphex(result(qts, R_PMCR0), ==, 0x3);
    g_assert_cmphex(result(qts, R_UPMCR0), ==, 0x70000);
    g_assert_cmphex(result(qts, R_UPMSR), ==, 0);
    g_assert_cmphex(result(qts, R_IPI_CR), ==, 0x1234);
    /* The program ends with PMCR0 in FIQ mode with its interrupt active */
    for (int i = 0; i < 1000 && !qtest_get_irq(qts, 0); i++) {
        g_usleep(1000);
    }
    g_assert_true(qtest_get_irq(qts, 0));
    qtest_quit(qts);
    unlink(path);
}

/* At EL2, EL2's timers own the FIQ; the guest's need VM_TMR_FIQ_ENA */
static void test_el2_gates_guest_timers(void)
{
    g_autofree char *path = NULL;
    QTestState *qts = run_program(el2_program, sizeof(el2_program),
                                  ",el2=on", &path);

    g_assert_cmphex(result(qts, R2_VM_TMR_FIQ_ENA), ==, 0);
    g_assert_cmphex(result(qts, R2_ICH_HCR), ==, 1);
    g_assert_cmphex(result(qts, R2_ICH_MISR), ==, 0);
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(0, GTIMER_PHYS), 1);
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(0, GTIMER_VIRT), 1);
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(0, GTIMER_HYP), 1);
    g_assert_true(qtest_get_irq(qts, 0));
    /* CPU 1 never masked its guest timers */
    qtest_set_irq_in(qts, "/machine/fiq", NULL,
                     timer_input(1, GTIMER_VIRT), 1);
    g_assert_true(qtest_get_irq(qts, 1));
    qtest_quit(qts);
    unlink(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-fiq/timer/el1-timers-raise-fiq",
                   test_el1_timers_raise_fiq);
    qtest_add_func("/apple-fiq/timer/el2-timer-not-routed-without-el2",
                   test_el2_timer_is_not_routed_without_el2);
    if (qtest_has_accel("tcg")) {
        qtest_add_func("/apple-fiq/sysreg/fast-ipis-reach-their-cpu",
                       test_fast_ipi_sysregs);
        qtest_add_func("/apple-fiq/sysreg/pmu-registers-hold-values",
                       test_pmu_sysregs);
        qtest_add_func("/apple-fiq/el2/vm-tmr-fiq-ena-gates-guest-timers",
                       test_el2_gates_guest_timers);
    }

    return g_test_run();
}
