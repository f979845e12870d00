/*
 * Apple M1 (t8103) machine for running the drm/asahi GPU driver
 *
 * The blocks that matter to the GPU (RAM, the AGX GPU, its ASC coprocessor
 * and mailbox) sit at their t8103 addresses.  By default the parts of the
 * SoC a stock arm64 kernel cannot use (AIC, S5L UART, PMGR) are replaced by
 * a GICv3 and a PL011 at addresses that are free on t8103; GIC SPI numbers
 * equal AIC line numbers, so the interrupt numbers in the device tree
 * match t8103's.  With soc=t8103 the machine has t8103's own AIC (with the
 * timers and fast IPIs on each CPU's FIQ), S5L UART and PMGR instead.
 * Secondary CPUs start through PSCI in both.
 *
 * The machine also does what m1n1 does for the GPU on a real Mac: it
 * reserves the UAT and calibration memory at the top of RAM, fills the
 * calibration blobs for the firmware ABI chosen with gpu-firmware, and
 * describes all of it, with the power tables, in the gpu node.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qobject/qlist.h"
#include "exec/address-spaces.h"
#include "hw/arm/boot.h"
#include "hw/arm/fdt.h"
#include "hw/arm/bsa.h"
#include "hw/boards.h"
#include "hw/char/pl011.h"
#include "hw/intc/arm_gicv3_common.h"
#include "hw/loader.h"
#include "hw/misc/unimp.h"
#include "hw/agx/agx-calib.h"
#include "hw/agx/agx-calib-fill.h"
#include "hw/agx/agx-calib-t8103.h"
#include "hw/agx/apple-agx.h"
#include "hw/apple/apple-aic.h"
#include "hw/apple/apple-fiq.h"
#include "hw/apple/apple-pmgr.h"
#include "hw/apple/apple-s5l-uart.h"
#include "hw/qdev-properties.h"
#include "hw/sysbus.h"
#include "system/device_tree.h"
#include "system/system.h"
#include "target/arm/cpu.h"
#include "target/arm/gtimer.h"
#include <libfdt.h>

#define TYPE_APPLE_M1_MACHINE MACHINE_TYPE_NAME("apple-m1")
OBJECT_DECLARE_SIMPLE_TYPE(AppleM1MachineState, APPLE_M1_MACHINE)

#define APPLE_M1_NUM_CPUS       8
#define APPLE_M1_CPUS_PER_CLUSTER 4
#define APPLE_M1_DEFAULT_RAM    (8 * GiB)
#define APPLE_M1_MAX_RAM        (16 * GiB)
#define APPLE_M1_MIN_RAM        (128 * MiB)
/* M1's generic timer and the GPU's timestamps both count at 24 MHz */
#define APPLE_M1_CNTFRQ_HZ      24000000
/* AIC on t8103 has 896 lines; the GIC gets as many SPIs */
#define APPLE_M1_NUM_SPIS       896
/* The GPU's page size; its reserved memory is aligned to it */
#define APPLE_M1_GPU_PAGE       (16 * KiB)
#define APPLE_M1_GPU_FIRMWARE   "13.5"

/* The GPU device: the ASC with the emulated GPU firmware */
#define TYPE_APPLE_M1_GPU       TYPE_APPLE_AGX
typedef AppleAGXState AppleM1GpuState;

/* Which interrupt controller, UART and power manager the machine has */
typedef enum AppleM1Soc {
    APPLE_M1_SOC_GIC,           /* GICv3 and PL011 */
    APPLE_M1_SOC_T8103,         /* AIC, S5L UART and PMGR, as t8103 */
} AppleM1Soc;

enum {
    APPLE_M1_GIC_DIST,
    APPLE_M1_GIC_REDIST,
    APPLE_M1_UART,
    APPLE_M1_SGX,
    APPLE_M1_GPU_ASC,
    APPLE_M1_S5L_UART0,
    APPLE_M1_AIC,
    APPLE_M1_PMGR,
    APPLE_M1_PMGR_MINI,
    APPLE_M1_SOC_MMIO,
    APPLE_M1_VIRTIO,
    APPLE_M1_RAM,
};

/*
 * t8103 places every device at or above 0x2_0000_0000, so the GIC and the
 * UART, which t8103 does not have, live in the empty space below 4 GiB.
 */
static const MemMapEntry apple_m1_memmap[] = {
    [APPLE_M1_GIC_DIST] =   { 0x008000000, 0x10000 },
    [APPLE_M1_GIC_REDIST] = { 0x0080a0000, 0xf60000 },
    [APPLE_M1_UART] =       { 0x009000000, 0x1000 },
    [APPLE_M1_SGX] =        { 0x204000000, 0x1000000 },
    [APPLE_M1_GPU_ASC] =    { 0x206400000, 0x40000 },
    [APPLE_M1_S5L_UART0] =  { 0x235200000, APPLE_S5L_UART_SIZE },
    [APPLE_M1_AIC] =        { 0x23b100000, APPLE_AIC_SIZE },
    [APPLE_M1_PMGR] =       { 0x23b700000, 0x14000 },
    [APPLE_M1_PMGR_MINI] =  { 0x23d280000, 0x4000 },
    [APPLE_M1_SOC_MMIO] =   { 0x200000000, 0x100000000 },
    /* One transport; APPLE_M1_NUM_VIRTIO of them follow each other */
    [APPLE_M1_VIRTIO] =     { 0x00a000000, 0x200 },
    [APPLE_M1_RAM] =        { 0x800000000, APPLE_M1_MAX_RAM },
};

/*
 * The GPU's reserved memory, carved from the top of RAM in this order, as
 * the driver looks it up (memory-region-names).  The UAT regions are one
 * GPU page each (the driver needs 0x400 of ttbs, one page of pagetables,
 * 0x648 of handoff); the blobs are rounded up to whole pages.  pagetables
 * must stay in the kernel's linear map (newer drivers use it as a page
 * table through struct pages), the others are no-map so that drivers which
 * memremap() them write-combined can.
 */
enum {
    APPLE_M1_GPU_TTBS,
    APPLE_M1_GPU_PAGETABLES,
    APPLE_M1_GPU_HANDOFF,
    APPLE_M1_GPU_HW_CAL_A,
    APPLE_M1_GPU_HW_CAL_B,
    APPLE_M1_GPU_GLOBALS,
    APPLE_M1_GPU_NUM_MEM,
};

static const struct {
    const char *node;
    const char *name;
    bool no_map;
    int blob;                   /* AgxCalibBlob, or -1 */
} apple_m1_gpu_mem[APPLE_M1_GPU_NUM_MEM] = {
    [APPLE_M1_GPU_TTBS] = { "uat-ttbs", "ttbs", true, -1 },
    [APPLE_M1_GPU_PAGETABLES] = { "uat-pagetables", "pagetables", false, -1 },
    [APPLE_M1_GPU_HANDOFF] = { "uat-handoff", "handoff", true, -1 },
    [APPLE_M1_GPU_HW_CAL_A] = { "hw-cal-a", "hw-cal-a", true,
                                AGX_CALIB_HWDATA_A },
    [APPLE_M1_GPU_HW_CAL_B] = { "hw-cal-b", "hw-cal-b", true,
                                AGX_CALIB_HWDATA_B },
    [APPLE_M1_GPU_GLOBALS] = { "globals", "globals", true, AGX_CALIB_GLOBALS },
};

/*
 * SPI numbers: t8103 AIC line numbers where t8103 has the device.  The
 * virtio-mmio transports, which t8103 does not have, take the top 32 of
 * AIC's 896 lines: Linux's t8103 device trees use none above 861.
 */
static const int apple_m1_irqmap[] = {
    [APPLE_M1_UART] = 605,      /* t8103 serial0 */
    [APPLE_M1_S5L_UART0] = 605,
    [APPLE_M1_GPU_ASC] = 575,   /* agx_mbox: 575..578 */
    [APPLE_M1_VIRTIO] = 864,    /* 864..895 */
};

/* As many virtio-mmio transports as on virt */
#define APPLE_M1_NUM_VIRTIO     32

/*
 * The power domains of t8103's PMGR that the devices of soc=t8103 name,
 * with their parents, as in Linux's t8103-pmgr.dtsi
 */
enum {
    APPLE_M1_PS_AIC,
    APPLE_M1_PS_SIO_BUSIF,
    APPLE_M1_PS_SIO,
    APPLE_M1_PS_UART_P,
    APPLE_M1_PS_UART0,
    APPLE_M1_PS_GFX,
    APPLE_M1_NUM_PS,
};

static const struct {
    const char *label;
    uint32_t offset;
    int parent;                 /* APPLE_M1_PS_*, or -1 */
    bool always_on;
} apple_m1_pmgr_ps[APPLE_M1_NUM_PS] = {
    [APPLE_M1_PS_AIC] = { "aic", 0x108, -1, true },
    [APPLE_M1_PS_SIO_BUSIF] = { "sio_busif", 0x1c0, -1, false },
    [APPLE_M1_PS_SIO] = { "sio", 0x1c8, APPLE_M1_PS_SIO_BUSIF, false },
    [APPLE_M1_PS_UART_P] = { "uart_p", 0x220, APPLE_M1_PS_SIO, false },
    [APPLE_M1_PS_UART0] = { "uart0", 0x270, APPLE_M1_PS_UART_P, false },
    [APPLE_M1_PS_GFX] = { "gfx", 0x3f8, -1, false },
};

struct AppleM1MachineState {
    MachineState parent_obj;

    struct arm_boot_info bootinfo;
    DeviceState *intc;          /* the GIC, or the AIC with soc=t8103 */
    AppleM1GpuState gpu;
    uint32_t intc_phandle;
    uint32_t clock_phandle;
    uint32_t ps_phandle[APPLE_M1_NUM_PS];
    MemMapEntry gpu_mem[APPLE_M1_GPU_NUM_MEM];

    /* Properties */
    char *gpu_firmware;
    uint32_t gpu_cores;
    AppleM1Soc soc;
    bool el2;
};

/* GIC SPI n and AIC line n are both the controller's GPIO input n */
static qemu_irq apple_m1_spi(AppleM1MachineState *ams, int spi)
{
    return qdev_get_gpio_in(ams->intc, spi);
}

/* t8103 MPIDRs: e-cores 0x0..0x3, p-cores 0x10100..0x10103 */
static uint64_t apple_m1_cpu_mpidr(int n)
{
    int cluster = n / APPLE_M1_CPUS_PER_CLUSTER;
    int core = n % APPLE_M1_CPUS_PER_CLUSTER;

    return ((uint64_t)cluster << ARM_AFF2_SHIFT) |
           ((uint64_t)cluster << ARM_AFF1_SHIFT) | core;
}

static void create_fdt(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const char compat[] = "apple,j274\0apple,t8103\0apple,arm-platform";
    void *fdt;
    int size;

    fdt = create_device_tree(&size);
    if (!fdt) {
        error_report("apple-m1: cannot create device tree");
        exit(1);
    }
    ms->fdt = fdt;

    qemu_fdt_setprop(fdt, "/", "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_string(fdt, "/", "model",
                            "Apple Mac mini (M1, 2020) (QEMU apple-m1)");
    qemu_fdt_setprop_cell(fdt, "/", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/", "#size-cells", 2);
    qemu_fdt_add_subnode(fdt, "/chosen");
    qemu_fdt_add_subnode(fdt, "/aliases");

    /* Fixed 24 MHz reference clock, as t8103's clkref */
    ams->clock_phandle = qemu_fdt_alloc_phandle(fdt);
    qemu_fdt_add_subnode(fdt, "/clock-ref");
    qemu_fdt_setprop_string(fdt, "/clock-ref", "compatible", "fixed-clock");
    qemu_fdt_setprop_cell(fdt, "/clock-ref", "#clock-cells", 0);
    qemu_fdt_setprop_cell(fdt, "/clock-ref", "clock-frequency",
                          APPLE_M1_CNTFRQ_HZ);
    qemu_fdt_setprop_string(fdt, "/clock-ref", "clock-output-names",
                            "clkref");
    qemu_fdt_setprop_cell(fdt, "/clock-ref", "phandle", ams->clock_phandle);

    qemu_fdt_add_subnode(fdt, "/soc");
    qemu_fdt_setprop_string(fdt, "/soc", "compatible", "simple-bus");
    qemu_fdt_setprop_cell(fdt, "/soc", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/soc", "#size-cells", 2);
    qemu_fdt_setprop(fdt, "/soc", "ranges", NULL, 0);
}

static void create_cpus(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    void *fdt = ms->fdt;
    int n;

    qemu_fdt_add_subnode(fdt, "/cpus");
    qemu_fdt_setprop_cell(fdt, "/cpus", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/cpus", "#size-cells", 0);

    for (n = 0; n < ms->smp.cpus; n++) {
        Object *cpuobj = object_new(ms->cpu_type);

        object_property_set_int(cpuobj, "mp-affinity",
                                apple_m1_cpu_mpidr(n), &error_abort);
        /*
         * Linux boots at EL1 and reaches PSCI through HVC; with el2=on it
         * boots at EL2, as on a Mac, and reaches PSCI through SMC
         */
        if (object_property_find(cpuobj, "has_el3")) {
            object_property_set_bool(cpuobj, "has_el3", false, &error_abort);
        }
        if (object_property_find(cpuobj, "has_el2")) {
            object_property_set_bool(cpuobj, "has_el2", ams->el2,
                                     &error_abort);
        }
        object_property_set_int(cpuobj, "cntfrq", APPLE_M1_CNTFRQ_HZ,
                                &error_abort);
        object_property_set_link(cpuobj, "memory",
                                 OBJECT(get_system_memory()), &error_abort);
        qdev_realize(DEVICE(cpuobj), NULL, &error_fatal);
        object_unref(cpuobj);
    }

    /* Nodes are added in reverse so that they appear in order */
    for (n = ms->smp.cpus - 1; n >= 0; n--) {
        ARMCPU *cpu = ARM_CPU(qemu_get_cpu(n));
        uint64_t mpidr = apple_m1_cpu_mpidr(n);
        g_autofree char *node = g_strdup_printf("/cpus/cpu@%" PRIx64, mpidr);

        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_string(fdt, node, "device_type", "cpu");
        qemu_fdt_setprop_string(fdt, node, "compatible",
                                cpu->dtb_compatible);
        qemu_fdt_setprop_u64(fdt, node, "reg", mpidr);
        if (ms->smp.cpus > 1) {
            qemu_fdt_setprop_string(fdt, node, "enable-method", "psci");
        }
    }
}

static void create_gic(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *dist = &apple_m1_memmap[APPLE_M1_GIC_DIST];
    const MemMapEntry *redist = &apple_m1_memmap[APPLE_M1_GIC_REDIST];
    int ncpus = ms->smp.cpus;
    g_autofree char *node = NULL;
    SysBusDevice *sbd;
    QList *redist_counts;
    int n;

    ams->intc = qdev_new(gicv3_class_name());
    qdev_prop_set_uint32(ams->intc, "revision", 3);
    qdev_prop_set_uint32(ams->intc, "num-cpu", ncpus);
    qdev_prop_set_uint32(ams->intc, "num-irq",
                         APPLE_M1_NUM_SPIS + GIC_INTERNAL);
    redist_counts = qlist_new();
    qlist_append_int(redist_counts, ncpus);
    qdev_prop_set_array(ams->intc, "redist-region-count", redist_counts);

    sbd = SYS_BUS_DEVICE(ams->intc);
    sysbus_realize_and_unref(sbd, &error_fatal);
    sysbus_mmio_map(sbd, 0, dist->base);
    sysbus_mmio_map(sbd, 1, redist->base);

    for (n = 0; n < ncpus; n++) {
        DeviceState *cpudev = DEVICE(qemu_get_cpu(n));
        int ppibase = APPLE_M1_NUM_SPIS + n * GIC_INTERNAL;
        static const int timer_ppi[] = {
            [GTIMER_PHYS] = ARCH_TIMER_NS_EL1_IRQ,
            [GTIMER_VIRT] = ARCH_TIMER_VIRT_IRQ,
            [GTIMER_HYP] = ARCH_TIMER_NS_EL2_IRQ,
            [GTIMER_SEC] = ARCH_TIMER_S_EL1_IRQ,
        };

        for (int t = 0; t < ARRAY_SIZE(timer_ppi); t++) {
            qdev_connect_gpio_out(cpudev, t,
                                  qdev_get_gpio_in(ams->intc,
                                                   ppibase + timer_ppi[t]));
        }
        sysbus_connect_irq(sbd, n, qdev_get_gpio_in(cpudev, ARM_CPU_IRQ));
        sysbus_connect_irq(sbd, n + ncpus,
                           qdev_get_gpio_in(cpudev, ARM_CPU_FIQ));
        sysbus_connect_irq(sbd, n + 2 * ncpus,
                           qdev_get_gpio_in(cpudev, ARM_CPU_VIRQ));
        sysbus_connect_irq(sbd, n + 3 * ncpus,
                           qdev_get_gpio_in(cpudev, ARM_CPU_VFIQ));
    }

    ams->intc_phandle = qemu_fdt_alloc_phandle(ms->fdt);
    qemu_fdt_setprop_cell(ms->fdt, "/", "interrupt-parent", ams->intc_phandle);
    node = g_strdup_printf("/soc/interrupt-controller@%" PRIx64, dist->base);
    qemu_fdt_add_subnode(ms->fdt, node);
    qemu_fdt_setprop_string(ms->fdt, node, "compatible", "arm,gic-v3");
    qemu_fdt_setprop_cell(ms->fdt, node, "#interrupt-cells", 3);
    qemu_fdt_setprop(ms->fdt, node, "interrupt-controller", NULL, 0);
    qemu_fdt_setprop_cell(ms->fdt, node, "#redistributor-regions", 1);
    qemu_fdt_setprop_sized_cells(ms->fdt, node, "reg",
                                 2, dist->base, 2, dist->size,
                                 2, redist->base,
                                 2, (uint64_t)ncpus * GICV3_REDIST_SIZE);
    qemu_fdt_setprop_cell(ms->fdt, node, "phandle", ams->intc_phandle);

    /* Generic timer PPIs, as the GIC numbers them */
    qemu_fdt_add_subnode(ms->fdt, "/timer");
    qemu_fdt_setprop_string(ms->fdt, "/timer", "compatible",
                            "arm,armv8-timer");
    qemu_fdt_setprop_cells(ms->fdt, "/timer", "interrupts",
                           GIC_FDT_IRQ_TYPE_PPI,
                           INTID_TO_PPI(ARCH_TIMER_S_EL1_IRQ),
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI,
                           GIC_FDT_IRQ_TYPE_PPI,
                           INTID_TO_PPI(ARCH_TIMER_NS_EL1_IRQ),
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI,
                           GIC_FDT_IRQ_TYPE_PPI,
                           INTID_TO_PPI(ARCH_TIMER_VIRT_IRQ),
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI,
                           GIC_FDT_IRQ_TYPE_PPI,
                           INTID_TO_PPI(ARCH_TIMER_NS_EL2_IRQ),
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI);
}

static void create_uart(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_UART];
    const char compat[] = "arm,pl011\0arm,primecell";
    const char clocknames[] = "uartclk\0apb_pclk";
    g_autofree char *node = NULL;
    DeviceState *dev;

    dev = qdev_new(TYPE_PL011);
    qdev_prop_set_chr(dev, "chardev", serial_hd(0));
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0, map->base);
    sysbus_connect_irq(SYS_BUS_DEVICE(dev), 0,
                       apple_m1_spi(ams, apple_m1_irqmap[APPLE_M1_UART]));

    node = g_strdup_printf("/soc/serial@%" PRIx64, map->base);
    qemu_fdt_add_subnode(ms->fdt, node);
    qemu_fdt_setprop(ms->fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_sized_cells(ms->fdt, node, "reg",
                                 2, map->base, 2, map->size);
    qemu_fdt_setprop_cells(ms->fdt, node, "interrupts",
                           GIC_FDT_IRQ_TYPE_SPI,
                           apple_m1_irqmap[APPLE_M1_UART],
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI);
    qemu_fdt_setprop_cells(ms->fdt, node, "clocks",
                           ams->clock_phandle, ams->clock_phandle);
    qemu_fdt_setprop(ms->fdt, node, "clock-names",
                     clocknames, sizeof(clocknames));
    qemu_fdt_setprop_string(ms->fdt, "/chosen", "stdout-path", node);
    qemu_fdt_setprop_string(ms->fdt, "/aliases", "serial0", node);
}

/*
 * t8103's interrupt wiring: the AIC drives each CPU's IRQ; the timers and
 * fast IPIs reach each CPU's FIQ through the FIQ device.
 */
static void create_aic(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_AIC];
    const char compat[] = "apple,t8103-aic\0apple,aic";
    const char timer_names[] = "phys\0virt\0hyp-phys\0hyp-virt";
    int ncpus = ms->smp.cpus;
    g_autofree char *node = NULL;
    DeviceState *fiq;

    ams->intc = qdev_new(TYPE_APPLE_AIC);
    object_property_add_child(OBJECT(ams), "aic", OBJECT(ams->intc));
    qdev_prop_set_uint32(ams->intc, "num-irq", APPLE_M1_NUM_SPIS);
    qdev_prop_set_uint32(ams->intc, "num-cpu", ncpus);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(ams->intc), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(ams->intc), 0, map->base);

    fiq = qdev_new(TYPE_APPLE_FIQ);
    object_property_add_child(OBJECT(ams), "fiq", OBJECT(fiq));
    qdev_prop_set_uint32(fiq, "num-cpu", ncpus);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(fiq), &error_fatal);

    for (int n = 0; n < ncpus; n++) {
        DeviceState *cpudev = DEVICE(qemu_get_cpu(n));

        sysbus_connect_irq(SYS_BUS_DEVICE(ams->intc), n,
                           qdev_get_gpio_in(cpudev, ARM_CPU_IRQ));
        for (int t = 0; t < APPLE_FIQ_NUM_TIMERS; t++) {
            qdev_connect_gpio_out(cpudev, t,
                                  qdev_get_gpio_in(fiq,
                                      apple_fiq_timer_input(n, t)));
        }
        sysbus_connect_irq(SYS_BUS_DEVICE(fiq), n,
                           qdev_get_gpio_in(cpudev, ARM_CPU_FIQ));
    }

    ams->intc_phandle = qemu_fdt_alloc_phandle(ms->fdt);
    qemu_fdt_setprop_cell(ms->fdt, "/", "interrupt-parent",
                          ams->intc_phandle);
    node = g_strdup_printf("/soc/interrupt-controller@%" PRIx64, map->base);
    qemu_fdt_add_subnode(ms->fdt, node);
    qemu_fdt_setprop(ms->fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_cell(ms->fdt, node, "#interrupt-cells", 3);
    qemu_fdt_setprop(ms->fdt, node, "interrupt-controller", NULL, 0);
    qemu_fdt_setprop_sized_cells(ms->fdt, node, "reg",
                                 2, map->base, 2, map->size);
    qemu_fdt_setprop_cell(ms->fdt, node, "power-domains",
                          ams->ps_phandle[APPLE_M1_PS_AIC]);
    qemu_fdt_setprop_cell(ms->fdt, node, "phandle", ams->intc_phandle);

    /* The timers are per-CPU FIQ sources: <AIC_FIQ timer LEVEL_HIGH> */
    qemu_fdt_add_subnode(ms->fdt, "/timer");
    qemu_fdt_setprop_string(ms->fdt, "/timer", "compatible",
                            "arm,armv8-timer");
    qemu_fdt_setprop_cells(ms->fdt, "/timer", "interrupts",
                           1, 2, 4, 1, 3, 4, 1, 0, 4, 1, 1, 4);
    qemu_fdt_setprop(ms->fdt, "/timer", "interrupt-names", timer_names,
                     sizeof(timer_names));
}

static void create_s5l_uart(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_S5L_UART0];
    int irq = apple_m1_irqmap[APPLE_M1_S5L_UART0];
    const char clocknames[] = "uart\0clk_uart_baud0";
    g_autofree char *node = NULL;
    DeviceState *dev;

    dev = qdev_new(TYPE_APPLE_S5L_UART);
    object_property_add_child(OBJECT(ams), "uart0", OBJECT(dev));
    qdev_prop_set_chr(dev, "chardev", serial_hd(0));
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0, map->base);
    sysbus_connect_irq(SYS_BUS_DEVICE(dev), 0, apple_m1_spi(ams, irq));

    node = g_strdup_printf("/soc/serial@%" PRIx64, map->base);
    qemu_fdt_add_subnode(ms->fdt, node);
    qemu_fdt_setprop_string(ms->fdt, node, "compatible", "apple,s5l-uart");
    qemu_fdt_setprop_sized_cells(ms->fdt, node, "reg",
                                 2, map->base, 2, map->size);
    qemu_fdt_setprop_cell(ms->fdt, node, "reg-io-width", 4);
    /* <AIC_IRQ line IRQ_TYPE_LEVEL_HIGH> */
    qemu_fdt_setprop_cells(ms->fdt, node, "interrupts", 0, irq, 4);
    qemu_fdt_setprop_cells(ms->fdt, node, "clocks",
                           ams->clock_phandle, ams->clock_phandle);
    qemu_fdt_setprop(ms->fdt, node, "clock-names",
                     clocknames, sizeof(clocknames));
    qemu_fdt_setprop_cell(ms->fdt, node, "power-domains",
                          ams->ps_phandle[APPLE_M1_PS_UART0]);
    qemu_fdt_setprop_string(ms->fdt, "/chosen", "stdout-path", node);
    qemu_fdt_setprop_string(ms->fdt, "/aliases", "serial0", node);
}

static char *fdt_add_pmgr(AppleM1MachineState *ams, int which,
                          const char *name)
{
    void *fdt = MACHINE(ams)->fdt;
    const MemMapEntry *map = &apple_m1_memmap[which];
    const char compat[] = "apple,t8103-pmgr\0apple,pmgr\0syscon\0simple-mfd";
    char *node = g_strdup_printf("/soc/power-management@%" PRIx64,
                                 map->base);
    DeviceState *dev;

    dev = qdev_new(TYPE_APPLE_PMGR);
    object_property_add_child(OBJECT(ams), name, OBJECT(dev));
    qdev_prop_set_uint32(dev, "size", map->size);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map(SYS_BUS_DEVICE(dev), 0, map->base);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_cell(fdt, node, "#address-cells", 1);
    qemu_fdt_setprop_cell(fdt, node, "#size-cells", 1);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, map->base,
                                 2, map->size);
    return node;
}

/* The PMGRs, and the power domains of the devices the machine has */
static void create_pmgr(AppleM1MachineState *ams)
{
    void *fdt = MACHINE(ams)->fdt;
    const char compat[] = "apple,t8103-pmgr-pwrstate\0apple,pmgr-pwrstate";
    g_autofree char *pmgr = fdt_add_pmgr(ams, APPLE_M1_PMGR, "pmgr");
    g_autofree char *mini = fdt_add_pmgr(ams, APPLE_M1_PMGR_MINI,
                                         "pmgr-mini");

    for (int i = 0; i < APPLE_M1_NUM_PS; i++) {
        ams->ps_phandle[i] = qemu_fdt_alloc_phandle(fdt);
    }
    /* Added in reverse so that they appear in order */
    for (int i = APPLE_M1_NUM_PS - 1; i >= 0; i--) {
        g_autofree char *node = g_strdup_printf("%s/power-controller@%x",
                                                pmgr,
                                                apple_m1_pmgr_ps[i].offset);

        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
        qemu_fdt_setprop_cells(fdt, node, "reg",
                               apple_m1_pmgr_ps[i].offset, 4);
        qemu_fdt_setprop_cell(fdt, node, "#power-domain-cells", 0);
        qemu_fdt_setprop_cell(fdt, node, "#reset-cells", 0);
        qemu_fdt_setprop_string(fdt, node, "label",
                                apple_m1_pmgr_ps[i].label);
        if (apple_m1_pmgr_ps[i].parent >= 0) {
            qemu_fdt_setprop_cell(fdt, node, "power-domains",
                ams->ps_phandle[apple_m1_pmgr_ps[i].parent]);
        }
        if (apple_m1_pmgr_ps[i].always_on) {
            qemu_fdt_setprop(fdt, node, "apple,always-on", NULL, 0);
        }
        qemu_fdt_setprop_cell(fdt, node, "phandle", ams->ps_phandle[i]);
    }
}

/* The GPU's mailbox, as the binding describes an ASC mailbox */
static uint32_t fdt_add_agx_mbox(AppleM1MachineState *ams, hwaddr base,
                                 int first_spi)
{
    void *fdt = MACHINE(ams)->fdt;
    const char compat[] = "apple,t8103-asc-mailbox\0apple,asc-mailbox-v4";
    const char names[] = "send-empty\0send-not-empty\0recv-empty\0"
                         "recv-not-empty";
    g_autofree char *node = g_strdup_printf("/soc/mbox@%" PRIx64, base);
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);
    uint32_t irqs[APPLE_MBOX_NUM_IRQS * 3];

    for (int i = 0; i < APPLE_MBOX_NUM_IRQS; i++) {
        irqs[i * 3] = cpu_to_be32(GIC_FDT_IRQ_TYPE_SPI);
        irqs[i * 3 + 1] = cpu_to_be32(first_spi + i);
        irqs[i * 3 + 2] = cpu_to_be32(GIC_FDT_IRQ_FLAGS_LEVEL_HI);
    }
    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, base,
                                 2, APPLE_MBOX_SIZE);
    qemu_fdt_setprop(fdt, node, "interrupts", irqs, sizeof(irqs));
    qemu_fdt_setprop(fdt, node, "interrupt-names", names, sizeof(names));
    qemu_fdt_setprop_cell(fdt, node, "#mbox-cells", 0);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
    return phandle;
}

/* Carve the GPU's reserved memory from the top of RAM */
static void apple_m1_place_gpu_mem(AppleM1MachineState *ams,
                                   const AgxAbi *abi)
{
    MachineState *ms = MACHINE(ams);
    hwaddr top = apple_m1_memmap[APPLE_M1_RAM].base + ms->ram_size;

    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        int blob = apple_m1_gpu_mem[i].blob;
        hwaddr size = blob < 0 ? APPLE_M1_GPU_PAGE :
                      agx_calib_size(abi, blob);

        size = QEMU_ALIGN_UP(size, APPLE_M1_GPU_PAGE);
        top = QEMU_ALIGN_DOWN(top - size, APPLE_M1_GPU_PAGE);
        ams->gpu_mem[i].base = top;
        ams->gpu_mem[i].size = size;
    }
}

/*
 * The regions' contents, as ROM blobs in RAM so that every reset restores
 * them: zeroed UAT regions, and the calibration blobs.
 */
static void apple_m1_load_gpu_mem(AppleM1MachineState *ams, const AgxAbi *abi,
                                  const AgxCalibParams *cal)
{
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        const MemMapEntry *mem = &ams->gpu_mem[i];
        int blob = apple_m1_gpu_mem[i].blob;
        g_autofree uint8_t *data = g_malloc0(mem->size);
        g_autofree char *name = g_strdup_printf("apple-m1.gpu-%s",
                                                apple_m1_gpu_mem[i].name);

        if (blob >= 0) {
            agx_calib_fill(abi, blob, cal, data);
        }
        rom_add_blob_fixed(name, data, mem->size, mem->base);
    }
}

static void fdt_add_gpu_reserved_memory(AppleM1MachineState *ams,
                                        uint32_t *phandles)
{
    void *fdt = MACHINE(ams)->fdt;

    qemu_fdt_add_subnode(fdt, "/reserved-memory");
    qemu_fdt_setprop_cell(fdt, "/reserved-memory", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/reserved-memory", "#size-cells", 2);
    qemu_fdt_setprop(fdt, "/reserved-memory", "ranges", NULL, 0);
    /* Added in reverse so that they appear in order */
    for (int i = APPLE_M1_GPU_NUM_MEM - 1; i >= 0; i--) {
        const MemMapEntry *mem = &ams->gpu_mem[i];
        g_autofree char *node = g_strdup_printf("/reserved-memory/%s@%"
                                                PRIx64,
                                                apple_m1_gpu_mem[i].node,
                                                mem->base);

        phandles[i] = qemu_fdt_alloc_phandle(fdt);
        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, mem->base,
                                     2, mem->size);
        if (apple_m1_gpu_mem[i].no_map) {
            qemu_fdt_setprop(fdt, node, "no-map", NULL, 0);
        }
        qemu_fdt_setprop_cell(fdt, node, "phandle", phandles[i]);
    }
}

/* The GPU's operating points, a table with m1n1's opp-* properties */
static uint32_t fdt_add_gpu_opp_table(AppleM1MachineState *ams,
                                      const AgxCalibParams *cal)
{
    void *fdt = MACHINE(ams)->fdt;
    const char *table = "/opp-table-gpu";
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, table);
    qemu_fdt_setprop_string(fdt, table, "compatible", "operating-points-v2");
    qemu_fdt_setprop_cell(fdt, table, "phandle", phandle);
    /* Added in reverse so that they appear in order */
    for (int i = cal->num_pstates - 1; i >= 0; i--) {
        const AgxCalibPState *ps = &cal->pstates[i];
        g_autofree char *node = g_strdup_printf("%s/opp%02d", table, i);

        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_u64(fdt, node, "opp-hz", ps->freq_hz);
        qemu_fdt_setprop_cell(fdt, node, "opp-microvolt", ps->volt_uv);
        qemu_fdt_setprop_cell(fdt, node, "opp-microwatt", ps->pwr_uw);
    }
    return phandle;
}

typedef struct FdtNode {
    void *fdt;
    const char *path;
} FdtNode;

static void fdt_set_gpu_prop(void *opaque, const char *name,
                             const uint32_t *cells, unsigned int ncells)
{
    FdtNode *node = opaque;
    g_autofree uint32_t *be = g_new(uint32_t, ncells);

    for (unsigned int i = 0; i < ncells; i++) {
        be[i] = cpu_to_be32(cells[i]);
    }
    qemu_fdt_setprop(node->fdt, node->path, name, be, ncells * sizeof(*be));
}

static void create_gpu(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    const MemMapEntry *sgx = &apple_m1_memmap[APPLE_M1_SGX];
    const MemMapEntry *asc = &apple_m1_memmap[APPLE_M1_GPU_ASC];
    const AgxAbi *abi = agx_abi_by_name(ams->gpu_firmware);
    int spi = apple_m1_irqmap[APPLE_M1_GPU_ASC];
    uint32_t core_mask = ams->gpu_cores == 8 ? 0xff : 0xfe;
    SysBusDevice *sbd;
    DeviceState *dev;
    const char compat[] = "apple,agx-t8103\0apple,agx-g13g";
    const char reg_names[] = "asc\0sgx";
    g_autofree char *node = NULL;
    g_autoptr(GString) mem_names = g_string_new(NULL);
    uint32_t mem_phandles[APPLE_M1_GPU_NUM_MEM];
    uint32_t mem_cells[APPLE_M1_GPU_NUM_MEM];
    AgxCalibParams cal;
    uint32_t mbox;

    g_assert(abi);
    apple_m1_place_gpu_mem(ams, abi);
    agx_calib_t8103_params(&cal, core_mask,
                           ams->gpu_mem[APPLE_M1_GPU_TTBS].base);
    apple_m1_load_gpu_mem(ams, abi, &cal);

    object_initialize_child(OBJECT(ams), "gpu-asc", &ams->gpu,
                            TYPE_APPLE_M1_GPU);
    dev = DEVICE(&ams->gpu);
    qdev_prop_set_string(dev, "firmware-version", ams->gpu_firmware);
    qdev_prop_set_uint32(dev, "core-mask", core_mask);
    qdev_prop_set_uint64(dev, "handoff-base",
                         ams->gpu_mem[APPLE_M1_GPU_HANDOFF].base);
    qdev_prop_set_uint64(dev, "ttbs-base",
                         ams->gpu_mem[APPLE_M1_GPU_TTBS].base);
    sbd = SYS_BUS_DEVICE(dev);
    sysbus_realize(sbd, &error_fatal);
    sysbus_mmio_map(sbd, 0, asc->base);
    sysbus_mmio_map(sbd, 1, sgx->base);
    for (int i = 0; i < APPLE_MBOX_NUM_IRQS; i++) {
        sysbus_connect_irq(sbd, i, apple_m1_spi(ams, spi + i));
    }

    mbox = fdt_add_agx_mbox(ams, asc->base + APPLE_ASC_MBOX_OFFSET, spi);
    fdt_add_gpu_reserved_memory(ams, mem_phandles);
    node = g_strdup_printf("/soc/gpu@%" PRIx64, asc->base);
    qemu_fdt_add_subnode(ms->fdt, node);
    qemu_fdt_setprop(ms->fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_sized_cells(ms->fdt, node, "reg",
                                 2, asc->base, 2, asc->size,
                                 2, sgx->base, 2, sgx->size);
    qemu_fdt_setprop(ms->fdt, node, "reg-names", reg_names,
                     sizeof(reg_names));
    qemu_fdt_setprop_cell(ms->fdt, node, "mboxes", mbox);
    if (ams->soc == APPLE_M1_SOC_T8103) {
        qemu_fdt_setprop_cell(ms->fdt, node, "power-domains",
                              ams->ps_phandle[APPLE_M1_PS_GFX]);
    }
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        mem_cells[i] = cpu_to_be32(mem_phandles[i]);
        g_string_append_len(mem_names, apple_m1_gpu_mem[i].name,
                            strlen(apple_m1_gpu_mem[i].name) + 1);
    }
    qemu_fdt_setprop(ms->fdt, node, "memory-region", mem_cells,
                     sizeof(mem_cells));
    qemu_fdt_setprop(ms->fdt, node, "memory-region-names", mem_names->str,
                     mem_names->len);

    /* The firmware: this ABI, and a macOS version that speaks it */
    qemu_fdt_setprop_cells(ms->fdt, node, "apple,firmware-compat",
                           abi->compat[0], abi->compat[1], abi->compat[2]);
    qemu_fdt_setprop_cells(ms->fdt, node, "apple,firmware-abi",
                           abi->compat[0], abi->compat[1], abi->compat[2]);
    qemu_fdt_setprop_cells(ms->fdt, node, "apple,firmware-version",
                           abi->compat[0], abi->compat[1], abi->compat[2]);

    /* Power management, for drivers that build the blobs themselves */
    qemu_fdt_setprop_cell(ms->fdt, node, "operating-points-v2",
                          fdt_add_gpu_opp_table(ams, &cal));
    agx_calib_dt_props(&cal, fdt_set_gpu_prop,
                       &(FdtNode) { .fdt = ms->fdt, .path = node });

    /* Valid bytes of each blob, as m1n1 reports them */
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        int blob = apple_m1_gpu_mem[i].blob;

        if (blob >= 0) {
            qemu_fdt_setprop_cell(ms->fdt, node, agx_calib_size_prop(blob),
                                  agx_calib_size(abi, blob));
        }
    }
    qemu_fdt_setprop_string(ms->fdt, "/aliases", "gpu", node);
}

/*
 * virtio-mmio transports, as on virt: created in forward order so that
 * -device virtio-*-device fills the lowest address first
 */
static void create_virtio_mmio(AppleM1MachineState *ams)
{
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_VIRTIO];
    int irq = apple_m1_irqmap[APPLE_M1_VIRTIO];

    for (int i = 0; i < APPLE_M1_NUM_VIRTIO; i++) {
        sysbus_create_simple("virtio-mmio", map->base + i * map->size,
                             apple_m1_spi(ams, irq + i));
    }
}

/*
 * The interrupt controller of a device tree: the machine's own, or in a
 * tree given with -dtb the node that describes the machine's controller
 */
static uint32_t fdt_intc_phandle(AppleM1MachineState *ams, void *fdt)
{
    const char *compat = ams->soc == APPLE_M1_SOC_T8103 ? "apple,aic" :
                                                          "arm,gic-v3";
    int node = fdt_node_offset_by_compatible(fdt, -1, compat);
    uint32_t phandle;

    if (node < 0) {
        error_report("apple-m1: the device tree has no %s interrupt "
                     "controller", compat);
        exit(1);
    }
    phandle = fdt_get_phandle(fdt, node);
    if (!phandle) {
        phandle = qemu_fdt_alloc_phandle(fdt);
        if (fdt_setprop_u32(fdt, node, "phandle", phandle) < 0) {
            error_report("apple-m1: no room in the device tree for the "
                         "phandle of %s", compat);
            exit(1);
        }
    }
    return phandle;
}

/*
 * The transports' nodes, in any tree the guest boots with (one that has
 * them already, such as a dumped one, is left as it is).  They are added
 * in reverse so that they appear lowest address first, as on virt.  Their
 * interrupt specifier reads the same on the GIC (SPI n, level high) and on
 * AIC (AIC_IRQ n, level high).
 */
static void fdt_add_virtio_mmio(AppleM1MachineState *ams, void *fdt)
{
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_VIRTIO];
    int irq = apple_m1_irqmap[APPLE_M1_VIRTIO];
    uint32_t intc = fdt_intc_phandle(ams, fdt);

    for (int i = APPLE_M1_NUM_VIRTIO - 1; i >= 0; i--) {
        hwaddr base = map->base + i * map->size;
        g_autofree char *node = g_strdup_printf("/virtio_mmio@%" PRIx64,
                                                base);

        if (fdt_path_offset(fdt, node) >= 0) {
            continue;
        }
        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_string(fdt, node, "compatible", "virtio,mmio");
        qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, base,
                                     2, map->size);
        qemu_fdt_setprop_cell(fdt, node, "interrupt-parent", intc);
        qemu_fdt_setprop_cells(fdt, node, "interrupts",
                               GIC_FDT_IRQ_TYPE_SPI, irq + i,
                               GIC_FDT_IRQ_FLAGS_LEVEL_HI);
        qemu_fdt_setprop(fdt, node, "dma-coherent", NULL, 0);
    }
}

static void apple_m1_check_ram_size(ram_addr_t size)
{
    if (size > APPLE_M1_MAX_RAM) {
        error_report("apple-m1: RAM size 0x%" PRIx64 " is larger than the "
                     "%" PRId64 " GiB that t8103 can address",
                     (uint64_t)size, APPLE_M1_MAX_RAM / GiB);
        exit(1);
    }
    if (size < APPLE_M1_MIN_RAM) {
        error_report("apple-m1: RAM size 0x%" PRIx64 " is below the "
                     "minimum of %" PRId64 " MiB",
                     (uint64_t)size, APPLE_M1_MIN_RAM / MiB);
        exit(1);
    }
}

/* Called while -m is parsed, so a bad size fails before it is allocated */
static ram_addr_t apple_m1_fixup_ram_size(ram_addr_t size)
{
    apple_m1_check_ram_size(size);
    return size;
}

static void *apple_m1_get_dtb(const struct arm_boot_info *binfo, int *size)
{
    AppleM1MachineState *ams = container_of(binfo, AppleM1MachineState,
                                            bootinfo);
    MachineState *ms = MACHINE(ams);

    *size = fdt_totalsize(ms->fdt);
    return ms->fdt;
}

/* Called on the tree the guest boots with, generated or given with -dtb */
static void apple_m1_modify_dtb(const struct arm_boot_info *binfo, void *fdt)
{
    AppleM1MachineState *ams = container_of(binfo, AppleM1MachineState,
                                            bootinfo);

    fdt_add_virtio_mmio(ams, fdt);
}

static void apple_m1_init(MachineState *ms)
{
    AppleM1MachineState *ams = APPLE_M1_MACHINE(ms);
    const MemMapEntry *ram = &apple_m1_memmap[APPLE_M1_RAM];

    apple_m1_check_ram_size(ms->ram_size);
    /* EL2 needs the FIQ-routed timers and vGIC stubs only soc=t8103 has */
    if (ams->el2 && ams->soc != APPLE_M1_SOC_T8103) {
        error_report("apple-m1: el2=on needs soc=t8103");
        exit(1);
    }
    create_fdt(ams);
    create_cpus(ams);
    memory_region_add_subregion(get_system_memory(), ram->base, ms->ram);
    if (ams->soc == APPLE_M1_SOC_T8103) {
        /*
         * t8103's other blocks read as zero and ignore writes, so that
         * a device tree describing more of the SoC (Linux's own) boots
         */
        create_unimplemented_device("t8103-soc",
                                    apple_m1_memmap[APPLE_M1_SOC_MMIO].base,
                                    apple_m1_memmap[APPLE_M1_SOC_MMIO].size);
        create_pmgr(ams);
        create_aic(ams);
        create_s5l_uart(ams);
    } else {
        create_gic(ams);
        create_uart(ams);
    }
    create_gpu(ams);
    create_virtio_mmio(ams);

    ams->bootinfo.ram_size = ms->ram_size;
    ams->bootinfo.loader_start = ram->base;
    ams->bootinfo.board_id = -1;
    ams->bootinfo.psci_conduit = ams->el2 ? QEMU_PSCI_CONDUIT_SMC :
                                            QEMU_PSCI_CONDUIT_HVC;
    ams->bootinfo.get_dtb = apple_m1_get_dtb;
    ams->bootinfo.modify_dtb = apple_m1_modify_dtb;
    arm_load_kernel(ARM_CPU(first_cpu), ms, &ams->bootinfo);
}

static char *apple_m1_get_gpu_firmware(Object *obj, Error **errp)
{
    return g_strdup(APPLE_M1_MACHINE(obj)->gpu_firmware);
}

static void apple_m1_set_gpu_firmware(Object *obj, const char *value,
                                      Error **errp)
{
    AppleM1MachineState *ams = APPLE_M1_MACHINE(obj);

    if (!agx_abi_by_name(value)) {
        error_setg(errp, "gpu-firmware '%s' is not supported: the GPU "
                   "firmware ABIs are 13.5 and 12.3", value);
        return;
    }
    g_free(ams->gpu_firmware);
    ams->gpu_firmware = g_strdup(value);
}

static void apple_m1_get_gpu_cores(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint32_t value = APPLE_M1_MACHINE(obj)->gpu_cores;

    visit_type_uint32(v, name, &value, errp);
}

static void apple_m1_set_gpu_cores(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value != 7 && value != 8) {
        error_setg(errp, "gpu-cores must be 7 or 8 (t8103 ships with both)");
        return;
    }
    APPLE_M1_MACHINE(obj)->gpu_cores = value;
}

static const char *const apple_m1_soc_names[] = {
    [APPLE_M1_SOC_GIC] = "gic",
    [APPLE_M1_SOC_T8103] = "t8103",
};

static char *apple_m1_get_soc(Object *obj, Error **errp)
{
    return g_strdup(apple_m1_soc_names[APPLE_M1_MACHINE(obj)->soc]);
}

static void apple_m1_set_soc(Object *obj, const char *value, Error **errp)
{
    for (int i = 0; i < ARRAY_SIZE(apple_m1_soc_names); i++) {
        if (!strcmp(value, apple_m1_soc_names[i])) {
            APPLE_M1_MACHINE(obj)->soc = i;
            return;
        }
    }
    error_setg(errp, "soc '%s' is not supported: it is gic (GICv3 and "
               "PL011) or t8103 (AIC, S5L UART and PMGR)", value);
}

static bool apple_m1_get_el2(Object *obj, Error **errp)
{
    return APPLE_M1_MACHINE(obj)->el2;
}

static void apple_m1_set_el2(Object *obj, bool value, Error **errp)
{
    APPLE_M1_MACHINE(obj)->el2 = value;
}

static void apple_m1_instance_init(Object *obj)
{
    AppleM1MachineState *ams = APPLE_M1_MACHINE(obj);

    ams->gpu_firmware = g_strdup(APPLE_M1_GPU_FIRMWARE);
    ams->gpu_cores = 8;
}

static void apple_m1_instance_finalize(Object *obj)
{
    g_free(APPLE_M1_MACHINE(obj)->gpu_firmware);
}

static void apple_m1_class_init(ObjectClass *oc, void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    static const char * const valid_cpu_types[] = {
        ARM_CPU_TYPE_NAME("max"),
        NULL
    };

    mc->desc = "Apple M1 (t8103) with an AGX G13G GPU";
    mc->init = apple_m1_init;
    mc->max_cpus = APPLE_M1_NUM_CPUS;
    mc->default_cpus = APPLE_M1_NUM_CPUS;
    mc->min_cpus = 1;
    mc->default_cpu_type = ARM_CPU_TYPE_NAME("max");
    mc->valid_cpu_types = valid_cpu_types;
    mc->default_ram_size = APPLE_M1_DEFAULT_RAM;
    mc->default_ram_id = "apple-m1.ram";
    mc->fixup_ram_size = apple_m1_fixup_ram_size;
    mc->no_cdrom = 1;
    mc->no_floppy = 1;
    mc->no_parallel = 1;

    object_class_property_add_str(oc, "gpu-firmware",
                                  apple_m1_get_gpu_firmware,
                                  apple_m1_set_gpu_firmware);
    object_class_property_set_description(oc, "gpu-firmware",
        "GPU firmware ABI the device tree names and the GPU speaks: "
        "13.5 (default) or 12.3");
    object_class_property_add(oc, "gpu-cores", "uint32",
                              apple_m1_get_gpu_cores, apple_m1_set_gpu_cores,
                              NULL, NULL);
    object_class_property_set_description(oc, "gpu-cores",
        "GPU cores: 8 (default) or 7, the binned part (core mask 0xfe)");
    object_class_property_add_str(oc, "soc", apple_m1_get_soc,
                                  apple_m1_set_soc);
    object_class_property_add_bool(oc, "el2", apple_m1_get_el2,
                                   apple_m1_set_el2);
    object_class_property_set_description(oc, "el2",
        "Boot Linux at EL2 as on a Mac (default off: EL1); needs soc=t8103");
    object_class_property_set_description(oc, "soc",
        "SoC devices: gic (default: GICv3 and PL011) or t8103 (t8103's "
        "AIC with FIQ timers and fast IPIs, S5L UART and PMGR)");
}

static const TypeInfo apple_m1_machine_types[] = {
    {
        .name = TYPE_APPLE_M1_MACHINE,
        .parent = TYPE_MACHINE,
        .instance_size = sizeof(AppleM1MachineState),
        .instance_init = apple_m1_instance_init,
        .instance_finalize = apple_m1_instance_finalize,
        .class_init = apple_m1_class_init,
    },
};

DEFINE_TYPES(apple_m1_machine_types)
