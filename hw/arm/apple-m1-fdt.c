/*
 * Apple M1 (t8103) machine: the device tree it generates without -dtb
 *
 * The tree describes what the machine has, in the shape of Linux's own
 * t8103 trees: what a bootloader fills in (the GPU's reserved memory, its
 * firmware ABI, the CPUs' release addresses) is left as the placeholders
 * those trees have, and apple-m1-m1n1.c fills them, as it fills a tree
 * given with -dtb.  Nodes are added in reverse where order matters, since
 * libfdt puts a new node first among its siblings.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "hw/arm/fdt.h"
#include "hw/arm/apple-m1.h"
#include "hw/arm/bsa.h"
#include "hw/intc/arm_gicv3_common.h"
#include "hw/apple/apple-asc.h"
#include "hw/apple/apple-mbox.h"
#include "system/device_tree.h"
#include "target/arm/cpu.h"
#include "target/arm/gtimer.h"
#include <libfdt.h>

/*
 * One interrupt: <AIC_IRQ n IRQ_TYPE_LEVEL_HIGH>, which the GIC reads as
 * SPI n, level high
 */
static void fdt_set_irq(void *fdt, const char *node, int n)
{
    qemu_fdt_setprop_cells(fdt, node, "interrupts", GIC_FDT_IRQ_TYPE_SPI, n,
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI);
}

void apple_m1_fdt_create(AppleM1MachineState *ams)
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

/*
 * soc=t8103 starts secondary CPUs by spin-table as t8103.dtsi does, with a
 * release address the bootloader fills; the GIC variant through PSCI
 */
void apple_m1_fdt_add_cpus(AppleM1MachineState *ams)
{
    MachineState *ms = MACHINE(ams);
    void *fdt = ms->fdt;
    bool spin = ams->soc == APPLE_M1_SOC_T8103;

    qemu_fdt_add_subnode(fdt, "/cpus");
    qemu_fdt_setprop_cell(fdt, "/cpus", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/cpus", "#size-cells", 0);

    for (int n = ms->smp.cpus - 1; n >= 0; n--) {
        ARMCPU *cpu = ARM_CPU(qemu_get_cpu(n));
        uint64_t mpidr = apple_m1_cpu_mpidr(n);
        g_autofree char *node = g_strdup_printf("/cpus/cpu@%" PRIx64, mpidr);

        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_string(fdt, node, "device_type", "cpu");
        qemu_fdt_setprop_string(fdt, node, "compatible",
                                cpu->dtb_compatible);
        qemu_fdt_setprop_u64(fdt, node, "reg", mpidr);
        if (spin) {
            qemu_fdt_setprop_string(fdt, node, "enable-method",
                                    "spin-table");
            qemu_fdt_setprop_u64(fdt, node, "cpu-release-addr", 0);
        } else if (ms->smp.cpus > 1) {
            qemu_fdt_setprop_string(fdt, node, "enable-method", "psci");
        }
    }
}

void apple_m1_fdt_add_gic(AppleM1MachineState *ams)
{
    void *fdt = MACHINE(ams)->fdt;
    const MemMapEntry *dist = &apple_m1_memmap[APPLE_M1_GIC_DIST];
    const MemMapEntry *redist = &apple_m1_memmap[APPLE_M1_GIC_REDIST];
    g_autofree char *node = NULL;

    ams->intc_phandle = qemu_fdt_alloc_phandle(fdt);
    qemu_fdt_setprop_cell(fdt, "/", "interrupt-parent", ams->intc_phandle);
    node = g_strdup_printf("/soc/interrupt-controller@%" PRIx64, dist->base);
    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", "arm,gic-v3");
    qemu_fdt_setprop_cell(fdt, node, "#interrupt-cells", 3);
    qemu_fdt_setprop(fdt, node, "interrupt-controller", NULL, 0);
    qemu_fdt_setprop_cell(fdt, node, "#redistributor-regions", 1);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg",
                                 2, dist->base, 2, dist->size,
                                 2, redist->base,
                                 2, (uint64_t)MACHINE(ams)->smp.cpus *
                                    GICV3_REDIST_SIZE);
    qemu_fdt_setprop_cell(fdt, node, "phandle", ams->intc_phandle);

    /* Generic timer PPIs, as the GIC numbers them */
    qemu_fdt_add_subnode(fdt, "/timer");
    qemu_fdt_setprop_string(fdt, "/timer", "compatible", "arm,armv8-timer");
    qemu_fdt_setprop_cells(fdt, "/timer", "interrupts",
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

/* The console UART node: stdout-path and serial0 name it */
static void fdt_set_console(void *fdt, const char *node)
{
    qemu_fdt_setprop_string(fdt, "/chosen", "stdout-path", node);
    qemu_fdt_setprop_string(fdt, "/aliases", "serial0", node);
}

void apple_m1_fdt_add_pl011(AppleM1MachineState *ams)
{
    void *fdt = MACHINE(ams)->fdt;
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_UART];
    const char compat[] = "arm,pl011\0arm,primecell";
    const char clocknames[] = "uartclk\0apb_pclk";
    g_autofree char *node = g_strdup_printf("/soc/serial@%" PRIx64,
                                            map->base);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, map->base,
                                 2, map->size);
    fdt_set_irq(fdt, node, apple_m1_irqmap[APPLE_M1_UART]);
    qemu_fdt_setprop_cells(fdt, node, "clocks",
                           ams->clock_phandle, ams->clock_phandle);
    qemu_fdt_setprop(fdt, node, "clock-names", clocknames,
                     sizeof(clocknames));
    fdt_set_console(fdt, node);
}

void apple_m1_fdt_add_aic(AppleM1MachineState *ams)
{
    void *fdt = MACHINE(ams)->fdt;
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_AIC];
    const char compat[] = "apple,t8103-aic\0apple,aic";
    const char timer_names[] = "phys\0virt\0hyp-phys\0hyp-virt";
    g_autofree char *node = g_strdup_printf("/soc/interrupt-controller@%"
                                            PRIx64, map->base);

    ams->intc_phandle = qemu_fdt_alloc_phandle(fdt);
    qemu_fdt_setprop_cell(fdt, "/", "interrupt-parent", ams->intc_phandle);
    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_cell(fdt, node, "#interrupt-cells", 3);
    qemu_fdt_setprop(fdt, node, "interrupt-controller", NULL, 0);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, map->base,
                                 2, map->size);
    qemu_fdt_setprop_cell(fdt, node, "power-domains",
                          ams->ps_phandle[APPLE_M1_PS_AIC]);
    qemu_fdt_setprop_cell(fdt, node, "phandle", ams->intc_phandle);

    /* The timers are per-CPU FIQ sources: <AIC_FIQ timer LEVEL_HIGH> */
    qemu_fdt_add_subnode(fdt, "/timer");
    qemu_fdt_setprop_string(fdt, "/timer", "compatible", "arm,armv8-timer");
    qemu_fdt_setprop_cells(fdt, "/timer", "interrupts",
                           1, 2, 4, 1, 3, 4, 1, 0, 4, 1, 1, 4);
    qemu_fdt_setprop(fdt, "/timer", "interrupt-names", timer_names,
                     sizeof(timer_names));
}

/* serial0 is the console; serial2 is only named */
void apple_m1_fdt_add_s5l_uart(AppleM1MachineState *ams, int which)
{
    void *fdt = MACHINE(ams)->fdt;
    const MemMapEntry *map = &apple_m1_memmap[which];
    bool console = which == APPLE_M1_S5L_UART0;
    const char clocknames[] = "uart\0clk_uart_baud0";
    g_autofree char *node = g_strdup_printf("/soc/serial@%" PRIx64,
                                            map->base);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", "apple,s5l-uart");
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, map->base,
                                 2, map->size);
    qemu_fdt_setprop_cell(fdt, node, "reg-io-width", 4);
    fdt_set_irq(fdt, node, apple_m1_irqmap[which]);
    qemu_fdt_setprop_cells(fdt, node, "clocks",
                           ams->clock_phandle, ams->clock_phandle);
    qemu_fdt_setprop(fdt, node, "clock-names", clocknames,
                     sizeof(clocknames));
    qemu_fdt_setprop_cell(fdt, node, "power-domains",
                          ams->ps_phandle[console ? APPLE_M1_PS_UART0 :
                                                    APPLE_M1_PS_UART2]);
    if (console) {
        fdt_set_console(fdt, node);
    } else {
        qemu_fdt_setprop_string(fdt, "/aliases", "serial2", node);
    }
}

static char *fdt_add_pmgr_node(void *fdt, int which)
{
    const MemMapEntry *map = &apple_m1_memmap[which];
    const char compat[] = "apple,t8103-pmgr\0apple,pmgr\0syscon\0simple-mfd";
    char *node = g_strdup_printf("/soc/power-management@%" PRIx64,
                                 map->base);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_cell(fdt, node, "#address-cells", 1);
    qemu_fdt_setprop_cell(fdt, node, "#size-cells", 1);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, map->base,
                                 2, map->size);
    return node;
}

/* The PMGRs, and the power domains of the devices the machine has */
void apple_m1_fdt_add_pmgr(AppleM1MachineState *ams)
{
    void *fdt = MACHINE(ams)->fdt;
    const char compat[] = "apple,t8103-pmgr-pwrstate\0apple,pmgr-pwrstate";
    g_autofree char *pmgr = fdt_add_pmgr_node(fdt, APPLE_M1_PMGR);
    g_autofree char *mini = fdt_add_pmgr_node(fdt, APPLE_M1_PMGR_MINI);

    for (int i = 0; i < APPLE_M1_NUM_PS; i++) {
        ams->ps_phandle[i] = qemu_fdt_alloc_phandle(fdt);
    }
    for (int i = APPLE_M1_NUM_PS - 1; i >= 0; i--) {
        const AppleM1PowerState *ps = &apple_m1_pmgr_ps[i];
        g_autofree char *node = g_strdup_printf("%s/power-controller@%x",
                                                pmgr, ps->offset);

        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
        qemu_fdt_setprop_cells(fdt, node, "reg", ps->offset, 4);
        qemu_fdt_setprop_cell(fdt, node, "#power-domain-cells", 0);
        qemu_fdt_setprop_cell(fdt, node, "#reset-cells", 0);
        qemu_fdt_setprop_string(fdt, node, "label", ps->label);
        if (ps->parent >= 0) {
            qemu_fdt_setprop_cell(fdt, node, "power-domains",
                                  ams->ps_phandle[ps->parent]);
        }
        if (ps->always_on) {
            qemu_fdt_setprop(fdt, node, "apple,always-on", NULL, 0);
        }
        qemu_fdt_setprop_cell(fdt, node, "phandle", ams->ps_phandle[i]);
    }
}

/* The GPU's mailbox, as the binding describes an ASC mailbox */
static uint32_t fdt_add_agx_mbox(void *fdt, hwaddr base, int first_irq)
{
    const char compat[] = "apple,t8103-asc-mailbox\0apple,asc-mailbox-v4";
    const char names[] = "send-empty\0send-not-empty\0recv-empty\0"
                         "recv-not-empty";
    g_autofree char *node = g_strdup_printf("/soc/mbox@%" PRIx64, base);
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);
    uint32_t irqs[APPLE_MBOX_NUM_IRQS * 3];

    for (int i = 0; i < APPLE_MBOX_NUM_IRQS; i++) {
        irqs[i * 3] = cpu_to_be32(GIC_FDT_IRQ_TYPE_SPI);
        irqs[i * 3 + 1] = cpu_to_be32(first_irq + i);
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

/*
 * The GPU's reserved-memory nodes as t8103.dtsi has them: disabled and
 * empty until the bootloader places them
 */
static void fdt_add_gpu_reserved_memory(void *fdt, uint32_t *phandles)
{
    qemu_fdt_add_subnode(fdt, "/reserved-memory");
    qemu_fdt_setprop_cell(fdt, "/reserved-memory", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/reserved-memory", "#size-cells", 2);
    qemu_fdt_setprop(fdt, "/reserved-memory", "ranges", NULL, 0);
    for (int i = APPLE_M1_GPU_NUM_MEM - 1; i >= 0; i--) {
        g_autofree char *node = g_strdup_printf("/reserved-memory/%s",
                                                apple_m1_gpu_mem[i].node);

        phandles[i] = qemu_fdt_alloc_phandle(fdt);
        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_string(fdt, node, "status", "disabled");
        qemu_fdt_setprop_cell(fdt, node, "phandle", phandles[i]);
    }
}

/* The GPU's operating points, a table with m1n1's opp-* properties */
static uint32_t fdt_add_gpu_opp_table(void *fdt, const AgxCalibParams *cal)
{
    const char *table = "/opp-table-gpu";
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, table);
    qemu_fdt_setprop_string(fdt, table, "compatible", "operating-points-v2");
    qemu_fdt_setprop_cell(fdt, table, "phandle", phandle);
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

/*
 * The gpu node with both compatibles: the downstream one, for which m1n1
 * also writes the firmware version and compat and which carries the power
 * properties drivers that build the blobs themselves read, and the
 * upstream one.  The firmware ABI starts as <0 0 0>, as in t8103.dtsi.
 */
void apple_m1_fdt_add_gpu(AppleM1MachineState *ams)
{
    void *fdt = MACHINE(ams)->fdt;
    const MemMapEntry *sgx = &apple_m1_memmap[APPLE_M1_SGX];
    const MemMapEntry *asc = &apple_m1_memmap[APPLE_M1_GPU_ASC];
    const char compat[] = "apple,agx-t8103\0apple,agx-g13g";
    const char reg_names[] = "asc\0sgx";
    g_autofree char *node = g_strdup_printf("/soc/gpu@%" PRIx64, asc->base);
    g_autoptr(GString) mem_names = g_string_new(NULL);
    uint32_t mem_phandles[APPLE_M1_GPU_NUM_MEM];
    uint32_t mem_cells[APPLE_M1_GPU_NUM_MEM];
    uint32_t mbox;

    mbox = fdt_add_agx_mbox(fdt, asc->base + APPLE_ASC_MBOX_OFFSET,
                            apple_m1_irqmap[APPLE_M1_GPU_ASC]);
    fdt_add_gpu_reserved_memory(fdt, mem_phandles);
    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop(fdt, node, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_sized_cells(fdt, node, "reg",
                                 2, asc->base, 2, asc->size,
                                 2, sgx->base, 2, sgx->size);
    qemu_fdt_setprop(fdt, node, "reg-names", reg_names, sizeof(reg_names));
    qemu_fdt_setprop_cell(fdt, node, "mboxes", mbox);
    if (ams->soc == APPLE_M1_SOC_T8103) {
        qemu_fdt_setprop_cell(fdt, node, "power-domains",
                              ams->ps_phandle[APPLE_M1_PS_GFX]);
    }
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        mem_cells[i] = cpu_to_be32(mem_phandles[i]);
        g_string_append_len(mem_names, apple_m1_gpu_mem[i].name,
                            strlen(apple_m1_gpu_mem[i].name) + 1);
    }
    qemu_fdt_setprop(fdt, node, "memory-region", mem_cells,
                     sizeof(mem_cells));
    qemu_fdt_setprop(fdt, node, "memory-region-names", mem_names->str,
                     mem_names->len);
    qemu_fdt_setprop_cells(fdt, node, "apple,firmware-abi", 0, 0, 0);

    /* Power management, for drivers that build the blobs themselves */
    qemu_fdt_setprop_cell(fdt, node, "operating-points-v2",
                          fdt_add_gpu_opp_table(fdt, &ams->gpu_cal));
    agx_calib_dt_props(&ams->gpu_cal, fdt_set_gpu_prop,
                       &(FdtNode) { .fdt = fdt, .path = node });
    qemu_fdt_setprop_string(fdt, "/aliases", "gpu", node);
}

/*
 * The virtio-mmio transports' nodes, in any tree the guest boots with (one
 * that has them already, such as a dumped one, is left as it is), lowest
 * address first as on virt
 */
void apple_m1_fdt_add_virtio_mmio(AppleM1MachineState *ams, void *fdt,
                                  uint32_t intc_phandle)
{
    const MemMapEntry *map = &apple_m1_memmap[APPLE_M1_VIRTIO];
    int irq = apple_m1_irqmap[APPLE_M1_VIRTIO];

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
        qemu_fdt_setprop_cell(fdt, node, "interrupt-parent", intc_phandle);
        fdt_set_irq(fdt, node, irq + i);
        qemu_fdt_setprop(fdt, node, "dma-coherent", NULL, 0);
    }
}
