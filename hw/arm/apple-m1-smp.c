/*
 * Apple M1 (t8103) machine: the spin table of soc=t8103
 *
 * t8103's device trees start secondary CPUs by spin-table: each cpu node's
 * cpu-release-addr, filled by the bootloader, is a 64-bit slot the CPU
 * polls; Linux writes its secondary entry point there and sends an event.
 * As m1n1 keeps its spin table in its own reserved image, the machine
 * keeps a stub and the slots in one page it reserves below the GPU's
 * memory.  Secondary CPUs leave reset in the stub, at the EL the boot CPU
 * starts Linux in, with x0 holding their slot.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/arm/apple-m1.h"
#include "hw/loader.h"
#include "target/arm/cpu.h"

/* The release slots follow the stub, one per CPU */
#define APPLE_M1_SPIN_SLOTS     0x100

/*
 * x0 = this CPU's slot
 * 1: ldr  x1, [x0]
 *    cbnz x1, 2f
 *    wfe
 *    b    1b
 * 2: mov  x0, xzr
 *    br   x1
 */
static const uint32_t apple_m1_spin_stub[] = {
    0xf9400001, 0xb5000061, 0xd503205f, 0x17fffffd, 0xaa1f03e0, 0xd61f0020,
};

hwaddr apple_m1_spin_release_addr(AppleM1MachineState *ams, int cpu)
{
    return ams->spin_table.base + APPLE_M1_SPIN_SLOTS + cpu * 8;
}

/*
 * The page as a ROM blob in RAM, so that each reset empties the slots;
 * written whether or not a kernel is loaded, so that the tree always
 * describes what is there
 */
void apple_m1_spin_init(AppleM1MachineState *ams)
{
    g_autofree uint8_t *page = g_malloc0(ams->spin_table.size);

    for (int i = 0; i < ARRAY_SIZE(apple_m1_spin_stub); i++) {
        stl_le_p(page + i * 4, apple_m1_spin_stub[i]);
    }
    rom_add_blob_fixed("apple-m1.spin-table", page, ams->spin_table.size,
                       ams->spin_table.base);
}

/* The boot code's hook for writing secondary boot code: done already */
void apple_m1_spin_write(ARMCPU *cpu, const struct arm_boot_info *info)
{
}

void apple_m1_spin_reset(ARMCPU *cpu, const struct arm_boot_info *info)
{
    AppleM1MachineState *ams = container_of(info, AppleM1MachineState,
                                            bootinfo);

    cpu->env.xregs[0] = apple_m1_spin_release_addr(ams,
                                                   CPU(cpu)->cpu_index);
    cpu_set_pc(CPU(cpu), ams->spin_table.base);
}
