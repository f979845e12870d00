/*
 * Apple M1 (t8103) machine: what its files share
 *
 * apple-m1.c creates the machine and its devices, apple-m1-fdt.c writes
 * the device tree the machine generates (with the placeholders a bootloader
 * fills, as Linux's own t8103 trees have them), apple-m1-m1n1.c fills any
 * tree the guest boots with as m1n1 fills a Mac's, and apple-m1-smp.c is
 * the spin table that releases the secondary CPUs of soc=t8103.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_APPLE_M1_H
#define HW_ARM_APPLE_M1_H

#include "exec/hwaddr.h"
#include "hw/arm/boot.h"
#include "hw/boards.h"
#include "hw/display/apple-agx.h"
#include "hw/arm/m1n1/agx-calib.h"

#define TYPE_APPLE_M1_MACHINE MACHINE_TYPE_NAME("apple-m1")
OBJECT_DECLARE_SIMPLE_TYPE(AppleM1MachineState, APPLE_M1_MACHINE)

#define APPLE_M1_NUM_CPUS       8
#define APPLE_M1_CPUS_PER_CLUSTER 4
/* M1's generic timer and the GPU's timestamps both count at 24 MHz */
#define APPLE_M1_CNTFRQ_HZ      24000000
/* AIC on t8103 has 896 lines; the GIC gets as many SPIs */
#define APPLE_M1_NUM_SPIS       896
/* The GPU's page size; its reserved memory is aligned to it */
#define APPLE_M1_GPU_PAGE       (16 * KiB)
/* As many virtio-mmio transports as on virt */
#define APPLE_M1_NUM_VIRTIO     32

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
    APPLE_M1_S5L_UART2,
    APPLE_M1_AIC,
    APPLE_M1_PMGR,
    APPLE_M1_PMGR_MINI,
    APPLE_M1_SOC_MMIO,
    APPLE_M1_VIRTIO,
    APPLE_M1_SPIN,
    APPLE_M1_RAM,
    APPLE_M1_NUM_MAP,
};

extern const MemMapEntry apple_m1_memmap[APPLE_M1_NUM_MAP];
extern const int apple_m1_irqmap[APPLE_M1_NUM_MAP];

/*
 * The GPU's reserved memory, carved from the top of RAM in this order, as
 * the driver looks it up (memory-region-names)
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

typedef struct AppleM1GpuMem {
    const char *node;           /* under /reserved-memory, as m1n1 names it */
    const char *name;           /* in memory-region-names */
    int blob;                   /* AgxCalibBlob, or -1 */
} AppleM1GpuMem;

extern const AppleM1GpuMem apple_m1_gpu_mem[APPLE_M1_GPU_NUM_MEM];

/* The power domains of t8103's PMGR that the generated tree names */
enum {
    APPLE_M1_PS_AIC,
    APPLE_M1_PS_SIO_BUSIF,
    APPLE_M1_PS_SIO,
    APPLE_M1_PS_UART_P,
    APPLE_M1_PS_UART0,
    APPLE_M1_PS_UART2,
    APPLE_M1_PS_GFX,
    APPLE_M1_NUM_PS,
};

typedef struct AppleM1PowerState {
    const char *label;
    uint32_t offset;
    int parent;                 /* APPLE_M1_PS_*, or -1 */
    bool always_on;
} AppleM1PowerState;

extern const AppleM1PowerState apple_m1_pmgr_ps[APPLE_M1_NUM_PS];

struct AppleM1MachineState {
    MachineState parent_obj;

    struct arm_boot_info bootinfo;
    DeviceState *intc;          /* the GIC, or the AIC with soc=t8103 */
    DeviceState *pmgr;          /* the main PMGR with soc=t8103, or NULL */
    AppleAGXState gpu;
    const AgxAbi *gpu_abi;
    AgxCalibParams gpu_cal;
    MemMapEntry gpu_mem[APPLE_M1_GPU_NUM_MEM];

    /* Phandles of the generated tree */
    uint32_t intc_phandle;
    uint32_t clock_phandle;
    uint32_t ps_phandle[APPLE_M1_NUM_PS];

    /* Properties */
    char *gpu_firmware;
    uint32_t gpu_cores;
    AppleM1Soc soc;
    bool el2;
};

/* t8103 MPIDRs: e-cores 0x0..0x3, p-cores 0x10100..0x10103 */
uint64_t apple_m1_cpu_mpidr(int n);

/* apple-m1-fdt.c: the generated tree, one function per part */
void apple_m1_fdt_create(AppleM1MachineState *ams);
void apple_m1_fdt_add_cpus(AppleM1MachineState *ams);
void apple_m1_fdt_add_gic(AppleM1MachineState *ams);
void apple_m1_fdt_add_pl011(AppleM1MachineState *ams);
void apple_m1_fdt_add_aic(AppleM1MachineState *ams);
void apple_m1_fdt_add_s5l_uart(AppleM1MachineState *ams, int which);
void apple_m1_fdt_add_pmgr(AppleM1MachineState *ams);
void apple_m1_fdt_add_gpu(AppleM1MachineState *ams);
void apple_m1_fdt_add_virtio_mmio(AppleM1MachineState *ams, void *fdt,
                                  uint32_t intc_phandle);

/* apple-m1-m1n1.c: fill @fdt as m1n1 would; false and @errp on failure */
bool apple_m1_m1n1_fill(AppleM1MachineState *ams, void *fdt, Error **errp);

/* apple-m1-smp.c: the spin table's release slots, and the boot hooks */
#define TYPE_APPLE_M1_SPIN_TABLE "apple-m1-spin-table"
void apple_m1_create_spin_table(AppleM1MachineState *ams);
hwaddr apple_m1_spin_release_addr(AppleM1MachineState *ams, int cpu);
void apple_m1_spin_write(ARMCPU *cpu, const struct arm_boot_info *info);
void apple_m1_spin_reset(ARMCPU *cpu, const struct arm_boot_info *info);

#endif
