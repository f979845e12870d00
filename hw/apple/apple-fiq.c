/*
 * Apple per-CPU FIQ sources (t8103): fast IPIs, timers, PMU
 *
 * System register encodings and fields as Linux's irq-apple-aic.c and
 * arch/arm64/include/asm/sysreg_apple.h use them.  The registers are
 * defined on the CPUs this device serves, when it is realized.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "target/arm/cpu.h"
#include "target/arm/cpregs.h"
#include "target/arm/gtimer.h"
#include "target/arm/internals.h"
#include "hw/apple/apple-fiq.h"
#include "trace.h"

/* IPI_RR_LOCAL_EL1 and IPI_RR_GLOBAL_EL1 */
FIELD(IPI_RR, CPU, 0, 8)
FIELD(IPI_RR, CLUSTER, 16, 8)   /* GLOBAL only */
FIELD(IPI_RR, TYPE, 28, 2)
#define IPI_RR_RETRACT          1

FIELD(IPI_SR, PENDING, 0, 1)

FIELD(VM_TMR_FIQ_ENA, V, 0, 1)
FIELD(VM_TMR_FIQ_ENA, P, 1, 1)

FIELD(MPIDR, AFF0, 0, 8)
FIELD(MPIDR, AFF1, 8, 8)

FIELD(PMCR0, IMODE, 8, 3)
FIELD(PMCR0, IACT, 11, 1)
#define PMCR0_IMODE_FIQ         4

static AppleFIQCPU *fiq_cpu(CPUARMState *env, const ARMCPRegInfo *ri)
{
    AppleFIQState *s = ri->opaque;

    return &s->cpu[env_cpu(env)->cpu_index];
}

static bool fiq_cpu_has_el2(unsigned cpu)
{
    return arm_feature(&ARM_CPU(qemu_get_cpu(cpu))->env, ARM_FEATURE_EL2);
}

static void fiq_update(AppleFIQState *s, unsigned cpu)
{
    AppleFIQCPU *c = &s->cpu[cpu];
    bool level = FIELD_EX64(c->ipi_sr, IPI_SR, PENDING);

    /* The timers of the running EL: EL1's without EL2, EL2's with it */
    if (fiq_cpu_has_el2(cpu)) {
        level |= c->timers & (BIT(GTIMER_HYP) | BIT(GTIMER_HYPVIRT));
        /* The guest's timers reach the FIQ only where EL2 enables them */
        level |= (c->timers & BIT(GTIMER_PHYS)) &&
                 FIELD_EX64(c->vm_tmr_fiq_ena, VM_TMR_FIQ_ENA, P);
        level |= (c->timers & BIT(GTIMER_VIRT)) &&
                 FIELD_EX64(c->vm_tmr_fiq_ena, VM_TMR_FIQ_ENA, V);
    } else {
        level |= c->timers & (BIT(GTIMER_PHYS) | BIT(GTIMER_VIRT));
    }
    level |= FIELD_EX64(c->pmcr0, PMCR0, IMODE) == PMCR0_IMODE_FIQ &&
             FIELD_EX64(c->pmcr0, PMCR0, IACT);
    trace_apple_fiq_update(cpu, level);
    qemu_set_irq(s->fiq[cpu], level);
}

static void fiq_set_timer(void *opaque, int n, int level)
{
    AppleFIQState *s = opaque;
    unsigned cpu = n / APPLE_FIQ_NUM_TIMERS;
    unsigned timer = n % APPLE_FIQ_NUM_TIMERS;

    if (level) {
        s->cpu[cpu].timers |= BIT(timer);
    } else {
        s->cpu[cpu].timers &= ~BIT(timer);
    }
    fiq_update(s, cpu);
}

/* The CPU with MPIDR affinity @cluster.@core, or -1 */
static int fiq_find_cpu(AppleFIQState *s, unsigned cluster, unsigned core)
{
    for (unsigned i = 0; i < s->num_cpu; i++) {
        uint64_t mpidr = ARM_CPU(qemu_get_cpu(i))->mp_affinity;

        if (FIELD_EX64(mpidr, MPIDR, AFF1) == cluster &&
            FIELD_EX64(mpidr, MPIDR, AFF0) == core) {
            return i;
        }
    }
    return -1;
}

static void fiq_send_ipi(CPUARMState *env, const ARMCPRegInfo *ri,
                         uint64_t value, unsigned cluster)
{
    AppleFIQState *s = ri->opaque;
    unsigned core = FIELD_EX64(value, IPI_RR, CPU);
    int target = fiq_find_cpu(s, cluster, core);

    trace_apple_fiq_ipi(env_cpu(env)->cpu_index, cluster, core,
                        FIELD_EX64(value, IPI_RR, TYPE));
    if (target < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: %s to absent CPU %u.%u\n",
                      TYPE_APPLE_FIQ, ri->name, cluster, core);
        return;
    }
    /*
     * Deferred and no-wake requests are delivered at once: nothing here
     * sleeps, so there is no wake-up to defer.  A retract withdraws a
     * request that is still pending.
     */
    if (FIELD_EX64(value, IPI_RR, TYPE) == IPI_RR_RETRACT) {
        s->cpu[target].ipi_sr = 0;
    } else {
        s->cpu[target].ipi_sr = FIELD_DP64(0, IPI_SR, PENDING, 1);
    }
    fiq_update(s, target);
}

static void ipi_rr_local_write(CPUARMState *env, const ARMCPRegInfo *ri,
                               uint64_t value)
{
    uint64_t mpidr = env_archcpu(env)->mp_affinity;

    fiq_send_ipi(env, ri, value, FIELD_EX64(mpidr, MPIDR, AFF1));
}

static void ipi_rr_global_write(CPUARMState *env, const ARMCPRegInfo *ri,
                                uint64_t value)
{
    fiq_send_ipi(env, ri, value, FIELD_EX64(value, IPI_RR, CLUSTER));
}

static uint64_t ipi_sr_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return fiq_cpu(env, ri)->ipi_sr;
}

/* Writing PENDING acknowledges the IPI */
static void ipi_sr_write(CPUARMState *env, const ARMCPRegInfo *ri,
                         uint64_t value)
{
    AppleFIQCPU *c = fiq_cpu(env, ri);

    c->ipi_sr &= ~(value & R_IPI_SR_PENDING_MASK);
    fiq_update(ri->opaque, env_cpu(env)->cpu_index);
}

static uint64_t ipi_cr_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return fiq_cpu(env, ri)->ipi_cr;
}

static void ipi_cr_write(CPUARMState *env, const ARMCPRegInfo *ri,
                         uint64_t value)
{
    fiq_cpu(env, ri)->ipi_cr = value;
}

static uint64_t vm_tmr_fiq_ena_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return fiq_cpu(env, ri)->vm_tmr_fiq_ena;
}

static void vm_tmr_fiq_ena_write(CPUARMState *env, const ARMCPRegInfo *ri,
                                 uint64_t value)
{
    fiq_cpu(env, ri)->vm_tmr_fiq_ena = value & (R_VM_TMR_FIQ_ENA_V_MASK |
                                                R_VM_TMR_FIQ_ENA_P_MASK);
    fiq_update(ri->opaque, env_cpu(env)->cpu_index);
}

static uint64_t pmcr0_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return fiq_cpu(env, ri)->pmcr0;
}

static void pmcr0_write(CPUARMState *env, const ARMCPRegInfo *ri,
                        uint64_t value)
{
    fiq_cpu(env, ri)->pmcr0 = value;
    fiq_update(ri->opaque, env_cpu(env)->cpu_index);
}

static uint64_t ich_hcr_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return fiq_cpu(env, ri)->ich_hcr;
}

static void ich_hcr_write(CPUARMState *env, const ARMCPRegInfo *ri,
                          uint64_t value)
{
    fiq_cpu(env, ri)->ich_hcr = value;
}

static uint64_t upmcr0_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return fiq_cpu(env, ri)->upmcr0;
}

static void upmcr0_write(CPUARMState *env, const ARMCPRegInfo *ri,
                         uint64_t value)
{
    fiq_cpu(env, ri)->upmcr0 = value;
}

/*
 * The state lives in the device, which migrates it: hence NO_RAW.
 * Apple's fast-IPI registers have op1 = 5, which the architecture reserves
 * for EL2, yet EL1 uses them.  define_arm_cp_regs() refuses EL1 access
 * with op1 = 5, so they are defined for EL2 here and opened to EL1 by
 * fiq_open_to_el1() (the names ending in _EL1).
 */
#define FIQ_REG_TYPE    (ARM_CP_IO | ARM_CP_NO_RAW)
/* ... and kept, not made RES0, on a CPU with EL3 but no EL2 */
#define FIQ_EL1_OP1_5   (FIQ_REG_TYPE | ARM_CP_EL3_NO_EL2_KEEP)

static const ARMCPRegInfo apple_fiq_reginfo[] = {
    { .name = "IMP_APL_PMCR0_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 1, .crn = 15, .crm = 0, .opc2 = 0,
      .access = PL1_RW, .type = FIQ_REG_TYPE,
      .readfn = pmcr0_read, .writefn = pmcr0_write },
    { .name = "IMP_APL_IPI_RR_LOCAL_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 5, .crn = 15, .crm = 0, .opc2 = 0,
      .access = PL2_W, .type = FIQ_EL1_OP1_5,
      .writefn = ipi_rr_local_write },
    { .name = "IMP_APL_IPI_RR_GLOBAL_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 5, .crn = 15, .crm = 0, .opc2 = 1,
      .access = PL2_W, .type = FIQ_EL1_OP1_5,
      .writefn = ipi_rr_global_write },
    { .name = "IMP_APL_IPI_SR_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 5, .crn = 15, .crm = 1, .opc2 = 1,
      .access = PL2_RW, .type = FIQ_EL1_OP1_5,
      .readfn = ipi_sr_read, .writefn = ipi_sr_write },
    { .name = "IMP_APL_VM_TMR_FIQ_ENA_EL2", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 5, .crn = 15, .crm = 1, .opc2 = 3,
      .access = PL2_RW, .type = FIQ_REG_TYPE,
      .readfn = vm_tmr_fiq_ena_read, .writefn = vm_tmr_fiq_ena_write },
    { .name = "IMP_APL_IPI_CR_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 5, .crn = 15, .crm = 3, .opc2 = 1,
      .access = PL2_RW, .type = FIQ_EL1_OP1_5,
      .readfn = ipi_cr_read, .writefn = ipi_cr_write },
    { .name = "IMP_APL_UPMCR0_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 7, .crn = 15, .crm = 0, .opc2 = 4,
      .access = PL1_RW, .type = FIQ_REG_TYPE,
      .readfn = upmcr0_read, .writefn = upmcr0_write },
    /* No uncore counters: the uncore PMU never has an interrupt active */
    { .name = "IMP_APL_UPMSR_EL1", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 7, .crn = 15, .crm = 6, .opc2 = 4,
      .access = PL1_R, .type = ARM_CP_CONST | ARM_CP_NO_RAW,
      .resetvalue = 0 },
};

static uint32_t fiq_reg_key(const ARMCPRegInfo *ri)
{
    return ENCODE_AA64_CP_REG(CP_REG_ARM64_SYSREG_CP, ri->crn, ri->crm,
                              ri->opc0, ri->opc1, ri->opc2);
}

/*
 * Apple's implementation-defined encodings are taken, on QEMU's "max" CPU,
 * by Cortex-A57 registers (L2ACTLR_EL1 sits where PMCR0_EL1 is), and
 * define_arm_cp_regs() refuses to override them: drop them first.
 */
static void fiq_free_encodings(ARMCPU *cpu)
{
    for (int i = 0; i < ARRAY_SIZE(apple_fiq_reginfo); i++) {
        uint32_t key = fiq_reg_key(&apple_fiq_reginfo[i]);

        g_hash_table_remove(cpu->cp_regs, (gpointer)(uintptr_t)key);
    }
}

/*
 * The CPU built its list of registers to migrate (init_cpreg_list()) when
 * it was realized, before this device replaced some of its encodings with
 * registers whose state the device migrates: an entry left for such an
 * encoding would never be filled, and would send uninitialised host memory
 * in every snapshot.  Build the list again from the registers now defined.
 */
static void fiq_rebuild_cpreg_list(ARMCPU *cpu)
{
    g_free(cpu->cpreg_indexes);
    g_free(cpu->cpreg_values);
    g_free(cpu->cpreg_vmstate_indexes);
    g_free(cpu->cpreg_vmstate_values);
    init_cpreg_list(cpu);
}

static void fiq_open_to_el1(ARMCPU *cpu)
{
    for (int i = 0; i < ARRAY_SIZE(apple_fiq_reginfo); i++) {
        const ARMCPRegInfo *ri = &apple_fiq_reginfo[i];
        ARMCPRegInfo *defined;

        if (ri->opc1 != 5 || !g_str_has_suffix(ri->name, "_EL1")) {
            continue;
        }
        defined = (ARMCPRegInfo *)get_arm_cp_reginfo(cpu->cp_regs,
                                                     fiq_reg_key(ri));
        if (defined) {
            defined->access = ri->access == PL2_W ? PL1_W : PL1_RW;
        }
    }
}

/*
 * An EL2 kernel's AIC driver checks for vGIC maintenance interrupts in
 * every IRQ: with no GIC, ICH_HCR_EL2 holds what is written and
 * ICH_MISR_EL2 never reports one.
 */
static const ARMCPRegInfo apple_fiq_vgic_reginfo[] = {
    { .name = "ICH_HCR_EL2", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 4, .crn = 12, .crm = 11, .opc2 = 0,
      .access = PL2_RW, .type = FIQ_REG_TYPE,
      .readfn = ich_hcr_read, .writefn = ich_hcr_write },
    { .name = "ICH_MISR_EL2", .state = ARM_CP_STATE_AA64,
      .opc0 = 3, .opc1 = 4, .crn = 12, .crm = 11, .opc2 = 2,
      .access = PL2_R, .type = ARM_CP_CONST | ARM_CP_NO_RAW,
      .resetvalue = 0 },
};

static void fiq_reset_hold(Object *obj, ResetType type)
{
    AppleFIQState *s = APPLE_FIQ(obj);

    for (unsigned i = 0; i < APPLE_FIQ_MAX_CPUS; i++) {
        AppleFIQCPU *c = &s->cpu[i];

        c->ipi_sr = 0;
        c->ipi_cr = 0;
        c->pmcr0 = 0;
        c->upmcr0 = 0;
        c->ich_hcr = 0;
        /* Guest timers enabled, so that a guest without EL2 code works */
        c->vm_tmr_fiq_ena = R_VM_TMR_FIQ_ENA_V_MASK | R_VM_TMR_FIQ_ENA_P_MASK;
    }
}

static void fiq_reset_exit(Object *obj, ResetType type)
{
    AppleFIQState *s = APPLE_FIQ(obj);

    for (unsigned i = 0; i < s->num_cpu; i++) {
        fiq_update(s, i);
    }
}

static void fiq_realize(DeviceState *dev, Error **errp)
{
    AppleFIQState *s = APPLE_FIQ(dev);

    if (s->num_cpu == 0 || s->num_cpu > APPLE_FIQ_MAX_CPUS) {
        error_setg(errp, "num-cpu must be 1..%d", APPLE_FIQ_MAX_CPUS);
        return;
    }
    for (unsigned i = 0; i < s->num_cpu; i++) {
        CPUState *cs = qemu_get_cpu(i);

        if (!cs || !object_dynamic_cast(OBJECT(cs), TYPE_AARCH64_CPU)) {
            error_setg(errp, "CPU %u is not an AArch64 CPU", i);
            return;
        }
    }
    qdev_init_gpio_in(dev, fiq_set_timer, s->num_cpu * APPLE_FIQ_NUM_TIMERS);
    for (unsigned i = 0; i < s->num_cpu; i++) {
        ARMCPU *cpu = ARM_CPU(qemu_get_cpu(i));

        sysbus_init_irq(SYS_BUS_DEVICE(dev), &s->fiq[i]);
        fiq_free_encodings(cpu);
        define_arm_cp_regs_with_opaque(cpu, apple_fiq_reginfo, s);
        fiq_open_to_el1(cpu);
        if (arm_feature(&cpu->env, ARM_FEATURE_EL2) &&
            !get_arm_cp_reginfo(cpu->cp_regs,
                                fiq_reg_key(&apple_fiq_vgic_reginfo[0]))) {
            define_arm_cp_regs_with_opaque(cpu, apple_fiq_vgic_reginfo, s);
        }
        fiq_rebuild_cpreg_list(cpu);
    }
}

static const VMStateDescription vmstate_apple_fiq_cpu = {
    .name = TYPE_APPLE_FIQ "/cpu",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(timers, AppleFIQCPU),
        VMSTATE_UINT64(ipi_sr, AppleFIQCPU),
        VMSTATE_UINT64(ipi_cr, AppleFIQCPU),
        VMSTATE_UINT64(pmcr0, AppleFIQCPU),
        VMSTATE_UINT64(upmcr0, AppleFIQCPU),
        VMSTATE_UINT64(vm_tmr_fiq_ena, AppleFIQCPU),
        VMSTATE_UINT64(ich_hcr, AppleFIQCPU),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_apple_fiq = {
    .name = TYPE_APPLE_FIQ,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(cpu, AppleFIQState, APPLE_FIQ_MAX_CPUS, 1,
                             vmstate_apple_fiq_cpu, AppleFIQCPU),
        VMSTATE_END_OF_LIST()
    }
};

static const Property fiq_properties[] = {
    DEFINE_PROP_UINT32("num-cpu", AppleFIQState, num_cpu, 1),
};

static void fiq_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Apple per-CPU FIQ sources and their system registers";
    dc->realize = fiq_realize;
    dc->vmsd = &vmstate_apple_fiq;
    device_class_set_props(dc, fiq_properties);
    rc->phases.hold = fiq_reset_hold;
    rc->phases.exit = fiq_reset_exit;
}

static const TypeInfo fiq_types[] = {
    {
        .name = TYPE_APPLE_FIQ,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(AppleFIQState),
        .class_init = fiq_class_init,
    },
};

DEFINE_TYPES(fiq_types)
