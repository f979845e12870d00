/*
 * Apple M1 (t8103) machine: filling the device tree as m1n1 does
 *
 * On a Mac, m1n1 takes Linux's t8103 device tree and fills in what only
 * the running machine knows before it jumps to the kernel: the memory,
 * /chosen, each CPU's spin-table release address, the GPU's reserved
 * memory and calibration blobs, the GPU firmware's ABI.  The machine does
 * the same to whatever tree the guest boots with: its own (apple-m1-fdt.c
 * leaves the same placeholders as t8103.dtsi) or one given with -dtb, such
 * as an unmodified t8103-j274.dtb.  QEMU's boot code has written
 * /memory, /chosen's bootargs and initrd, and /psci (QEMU's, for power-off
 * and reset) before.
 *
 * First the tree is checked against the machine: the interrupt
 * controller, the GPU's registers, its mailbox and interrupt lines and its
 * power domain must be where the machine has them.  Anything that does not
 * match, or that cannot be filled, is an error naming the node.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "qemu/guest-random.h"
#include "qapi/error.h"
#include "hw/arm/apple-m1.h"
#include "hw/apple/apple-asc.h"
#include "hw/apple/apple-mbox.h"
#include <libfdt.h>

/* Linux's AIC binding: <AIC_IRQ line IRQ_TYPE_LEVEL_HIGH> */
#define AIC_IRQ                 0
#define IRQ_TYPE_LEVEL_HIGH     4
/* PMGR power-state register of the GPU (ps_gfx) */
#define APPLE_M1_PS_GFX_OFFSET  0x3f8
/* m1n1 hands Linux a seed for its RNG, as QEMU's virt does */
#define APPLE_M1_RNG_SEED_SIZE  32

typedef struct M1n1Fill {
    AppleM1MachineState *ams;
    void *fdt;
    int intc;                   /* the interrupt controller's node */
    Error **errp;
} M1n1Fill;

/* The node's full path, for messages */
static const char *node_path(M1n1Fill *f, int node, char *buf, int len)
{
    if (fdt_get_path(f->fdt, node, buf, len) < 0) {
        snprintf(buf, len, "<node at offset %d>", node);
    }
    return buf;
}

#define NODE(f, n) node_path((f), (n), (char[256]) { 0 }, 256)

/* Entry @idx of @node's reg, in its parent's address and size cells */
static bool fdt_reg(M1n1Fill *f, int node, int idx, uint64_t *base,
                    uint64_t *size)
{
    int parent = fdt_parent_offset(f->fdt, node);
    int ac = fdt_address_cells(f->fdt, parent);
    int sc = fdt_size_cells(f->fdt, parent);
    const fdt32_t *reg;
    int len;

    reg = fdt_getprop(f->fdt, node, "reg", &len);
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2 || !reg ||
        len < (idx + 1) * (ac + sc) * 4) {
        error_setg(f->errp, "apple-m1: %s has no reg entry %d",
                   NODE(f, node), idx);
        return false;
    }
    reg += idx * (ac + sc);
    *base = ac == 2 ? (uint64_t)fdt32_to_cpu(reg[0]) << 32 |
                      fdt32_to_cpu(reg[1]) : fdt32_to_cpu(reg[0]);
    reg += ac;
    *size = sc == 2 ? (uint64_t)fdt32_to_cpu(reg[0]) << 32 |
                      fdt32_to_cpu(reg[1]) :
            sc == 1 ? fdt32_to_cpu(reg[0]) : 0;
    return true;
}

/* @node's reg entry @idx must be the machine's @map */
static bool check_reg(M1n1Fill *f, int node, int idx, const MemMapEntry *map,
                      const char *what)
{
    uint64_t base, size;

    if (!fdt_reg(f, node, idx, &base, &size)) {
        return false;
    }
    if (base != map->base || (size && size != map->size)) {
        error_setg(f->errp, "apple-m1: %s puts %s at 0x%" PRIx64
                   " (size 0x%" PRIx64 "); the machine has it at 0x%" PRIx64
                   " (size 0x%" PRIx64 ")", NODE(f, node), what, base, size,
                   map->base, map->size);
        return false;
    }
    return true;
}

/* The node a phandle property of @node points at */
static int phandle_node(M1n1Fill *f, int node, const char *prop)
{
    const fdt32_t *p = fdt_getprop(f->fdt, node, prop, NULL);
    int target = p ? fdt_node_offset_by_phandle(f->fdt, fdt32_to_cpu(*p))
                   : -FDT_ERR_NOTFOUND;

    if (target < 0) {
        error_setg(f->errp, "apple-m1: %s has no valid %s", NODE(f, node),
                   prop);
    }
    return target;
}

/* The interrupt parent of @node: its own, or the nearest ancestor's */
static int interrupt_parent(M1n1Fill *f, int node)
{
    for (int n = node; n >= 0; n = fdt_parent_offset(f->fdt, n)) {
        if (fdt_getprop(f->fdt, n, "interrupt-parent", NULL)) {
            return phandle_node(f, n, "interrupt-parent");
        }
    }
    error_setg(f->errp, "apple-m1: %s has no interrupt-parent",
               NODE(f, node));
    return -1;
}

static bool set_prop(M1n1Fill *f, int node, const char *name,
                     const void *val, int len)
{
    int err = fdt_setprop(f->fdt, node, name, val, len);

    if (err < 0) {
        error_setg(f->errp, "apple-m1: cannot set %s in %s: %s", name,
                   NODE(f, node), fdt_strerror(err));
        return false;
    }
    return true;
}

static bool set_cells(M1n1Fill *f, int node, const char *name,
                      const uint32_t *cells, int n)
{
    g_autofree fdt32_t *be = g_new(fdt32_t, n);

    for (int i = 0; i < n; i++) {
        be[i] = cpu_to_fdt32(cells[i]);
    }
    return set_prop(f, node, name, be, n * 4);
}

static bool set_u64s(M1n1Fill *f, int node, const char *name,
                     const uint64_t *vals, int n)
{
    g_autofree fdt64_t *be = g_new(fdt64_t, n);

    for (int i = 0; i < n; i++) {
        be[i] = cpu_to_fdt64(vals[i]);
    }
    return set_prop(f, node, name, be, n * 8);
}

/* The interrupt controller the tree describes must be the machine's */
static bool check_intc(M1n1Fill *f)
{
    bool aic = f->ams->soc == APPLE_M1_SOC_T8103;
    const char *compat = aic ? "apple,aic" : "arm,gic-v3";

    f->intc = fdt_node_offset_by_compatible(f->fdt, -1, compat);
    if (f->intc < 0) {
        error_setg(f->errp, "apple-m1: the device tree has no %s interrupt "
                   "controller, which soc=%s has%s", compat,
                   aic ? "t8103" : "gic",
                   aic ? "" : " (Linux's t8103 trees, with the AIC, boot "
                   "on -M apple-m1,soc=t8103)");
        return false;
    }
    return check_reg(f, f->intc, 0,
                     &apple_m1_memmap[aic ? APPLE_M1_AIC : APPLE_M1_GIC_DIST],
                     "the interrupt controller");
}

/* agx_mbox: at ASC + 0x8000, on lines 575..578 of the machine's intc */
static bool check_gpu_mbox(M1n1Fill *f, int gpu)
{
    const MemMapEntry *asc = &apple_m1_memmap[APPLE_M1_GPU_ASC];
    MemMapEntry map = { asc->base + APPLE_ASC_MBOX_OFFSET, APPLE_MBOX_SIZE };
    int first = apple_m1_irqmap[APPLE_M1_GPU_ASC];
    int mbox = phandle_node(f, gpu, "mboxes");
    const fdt32_t *irqs;
    int len, parent;

    if (mbox < 0 || !check_reg(f, mbox, 0, &map, "the GPU's mailbox")) {
        return false;
    }
    parent = interrupt_parent(f, mbox);
    if (parent < 0) {
        return false;
    }
    if (parent != f->intc) {
        error_setg(f->errp, "apple-m1: %s interrupts %s, not the machine's "
                   "interrupt controller %s", NODE(f, mbox),
                   NODE(f, parent), NODE(f, f->intc));
        return false;
    }
    irqs = fdt_getprop(f->fdt, mbox, "interrupts", &len);
    if (!irqs || len != APPLE_MBOX_NUM_IRQS * 3 * 4) {
        error_setg(f->errp, "apple-m1: %s needs %d interrupts of 3 cells",
                   NODE(f, mbox), APPLE_MBOX_NUM_IRQS);
        return false;
    }
    for (int i = 0; i < APPLE_MBOX_NUM_IRQS; i++) {
        if (fdt32_to_cpu(irqs[i * 3]) != AIC_IRQ ||
            fdt32_to_cpu(irqs[i * 3 + 1]) != first + i) {
            error_setg(f->errp, "apple-m1: %s interrupt %d is <%u %u>; the "
                       "machine wires the GPU's mailbox to lines %d..%d",
                       NODE(f, mbox), i, fdt32_to_cpu(irqs[i * 3]),
                       fdt32_to_cpu(irqs[i * 3 + 1]), first,
                       first + APPLE_MBOX_NUM_IRQS - 1);
            return false;
        }
    }
    return true;
}

/* power-domains: ps_gfx of the PMGR, which only soc=t8103 has */
static bool check_gpu_power(M1n1Fill *f, int gpu)
{
    MemMapEntry ps = { APPLE_M1_PS_GFX_OFFSET, 4 };
    int domain, pmgr;

    if (!fdt_getprop(f->fdt, gpu, "power-domains", NULL)) {
        return true;
    }
    if (f->ams->soc != APPLE_M1_SOC_T8103) {
        error_setg(f->errp, "apple-m1: %s names a power domain; soc=gic has "
                   "no PMGR", NODE(f, gpu));
        return false;
    }
    domain = phandle_node(f, gpu, "power-domains");
    if (domain < 0 || !check_reg(f, domain, 0, &ps, "the GPU's power state")) {
        return false;
    }
    pmgr = fdt_parent_offset(f->fdt, domain);
    return check_reg(f, pmgr, 0, &apple_m1_memmap[APPLE_M1_PMGR],
                     "the PMGR");
}

/* The gpu node, found through its alias as m1n1 finds it */
static int check_gpu(M1n1Fill *f)
{
    const char *path = fdt_get_alias(f->fdt, "gpu");
    int gpu = path ? fdt_path_offset(f->fdt, path) : -1;
    static const struct {
        const char *name;
        int map;
    } regs[] = {
        { "asc", APPLE_M1_GPU_ASC },
        { "sgx", APPLE_M1_SGX },
    };

    if (gpu < 0) {
        error_setg(f->errp, "apple-m1: the device tree has no gpu alias "
                   "naming the GPU's node");
        return -1;
    }
    if (fdt_node_check_compatible(f->fdt, gpu, "apple,agx-g13g")) {
        error_setg(f->errp, "apple-m1: %s is not compatible with "
                   "apple,agx-g13g, the machine's GPU", NODE(f, gpu));
        return -1;
    }
    for (int i = 0; i < ARRAY_SIZE(regs); i++) {
        int idx = fdt_stringlist_search(f->fdt, gpu, "reg-names",
                                        regs[i].name);

        if (idx < 0) {
            error_setg(f->errp, "apple-m1: %s has no \"%s\" in reg-names",
                       NODE(f, gpu), regs[i].name);
            return -1;
        }
        if (!check_reg(f, gpu, idx, &apple_m1_memmap[regs[i].map],
                       regs[i].name)) {
            return -1;
        }
    }
    if (!check_gpu_mbox(f, gpu) || !check_gpu_power(f, gpu)) {
        return -1;
    }
    return gpu;
}

/* The machine's CPU with MPIDR @mpidr, or -1 */
static int machine_cpu(M1n1Fill *f, uint64_t mpidr)
{
    for (int n = 0; n < MACHINE(f->ams)->smp.cpus; n++) {
        if (apple_m1_cpu_mpidr(n) == mpidr) {
            return n;
        }
    }
    return -1;
}

static bool phandle_in(uint32_t phandle, const GArray *list)
{
    for (guint i = 0; i < list->len; i++) {
        if (g_array_index(list, uint32_t, i) == phandle) {
            return true;
        }
    }
    return false;
}

/* Drop the cpu-map entries of CPUs the machine does not have */
static void prune_cpu_map(M1n1Fill *f, const GArray *pruned)
{
    int map = fdt_path_offset(f->fdt, "/cpus/cpu-map");
    int cluster, next_cluster, core, next_core;

    if (map < 0) {
        return;
    }
    /* A node turned into NOPs has no next: step before removing */
    for (cluster = fdt_first_subnode(f->fdt, map); cluster >= 0;
         cluster = next_cluster) {
        int left = 0;

        for (core = fdt_first_subnode(f->fdt, cluster); core >= 0;
             core = next_core) {
            const fdt32_t *cpu = fdt_getprop(f->fdt, core, "cpu", NULL);

            next_core = fdt_next_subnode(f->fdt, core);
            if (cpu && phandle_in(fdt32_to_cpu(*cpu), pruned)) {
                fdt_nop_node(f->fdt, core);
            } else {
                left++;
            }
        }
        next_cluster = fdt_next_subnode(f->fdt, cluster);
        if (!left) {
            fdt_nop_node(f->fdt, cluster);
        }
    }
}

/* ... and the AIC's affinities (PMU FIQs) to them */
static bool prune_aic_affinities(M1n1Fill *f, const GArray *pruned)
{
    int aff = fdt_subnode_offset(f->fdt, f->intc, "affinities");
    int node;

    if (aff < 0) {
        return true;
    }
    fdt_for_each_subnode(node, f->fdt, aff) {
        int len, n = 0;
        const fdt32_t *cpus = fdt_getprop(f->fdt, node, "cpus", &len);
        g_autofree fdt32_t *kept = NULL;

        if (!cpus) {
            continue;
        }
        kept = g_new(fdt32_t, len / 4 + 1);
        for (int i = 0; i < len / 4; i++) {
            if (!phandle_in(fdt32_to_cpu(cpus[i]), pruned)) {
                kept[n++] = cpus[i];
            }
        }
        /* Shorter: the following offsets do not move until the next one */
        if (!set_prop(f, node, "cpus", kept, n * 4)) {
            return false;
        }
    }
    return true;
}

/*
 * Each cpu node: a CPU the machine has gets its spin-table release address
 * (or is started through PSCI if the tree says so); one it does not have
 * is removed, with its cpu-map and AIC affinity entries, as m1n1 removes
 * CPUs that did not come up
 */
static bool fill_cpus(M1n1Fill *f)
{
    int cpus = fdt_path_offset(f->fdt, "/cpus");
    g_autoptr(GArray) pruned = g_array_new(false, false, sizeof(uint32_t));
    int node, next;

    if (cpus < 0) {
        error_setg(f->errp, "apple-m1: the device tree has no /cpus");
        return false;
    }
    for (node = fdt_first_subnode(f->fdt, cpus); node >= 0; node = next) {
        const char *name = fdt_get_name(f->fdt, node, NULL);
        const char *method;
        uint64_t mpidr, size;
        int n;

        next = fdt_next_subnode(f->fdt, node);
        if (strncmp(name, "cpu@", 4)) {
            continue;
        }
        if (!fdt_reg(f, node, 0, &mpidr, &size)) {
            return false;
        }
        n = machine_cpu(f, mpidr);
        if (n < 0) {
            uint32_t phandle = fdt_get_phandle(f->fdt, node);

            g_array_append_val(pruned, phandle);
            fdt_nop_node(f->fdt, node);
            continue;
        }
        method = fdt_getprop(f->fdt, node, "enable-method", NULL);
        if (method && !strcmp(method, "spin-table")) {
            uint64_t addr = apple_m1_spin_release_addr(f->ams, n);

            if (f->ams->soc != APPLE_M1_SOC_T8103) {
                error_setg(f->errp, "apple-m1: %s starts by spin-table, "
                           "which only soc=t8103 has", NODE(f, node));
                return false;
            }
            if (!set_u64s(f, node, "cpu-release-addr", &addr, 1)) {
                return false;
            }
        } else if (n && (!method || strcmp(method, "psci"))) {
            error_setg(f->errp, "apple-m1: %s has enable-method \"%s\"; the "
                       "machine starts CPUs by spin-table or PSCI",
                       NODE(f, node), method ? method : "");
            return false;
        }
        /* set_u64s() may have moved the nodes after this one */
        next = fdt_next_subnode(f->fdt, node);
    }
    if (!pruned->len) {
        return true;
    }
    prune_cpu_map(f, pruned);
    return prune_aic_affinities(f, pruned);
}

/*
 * The GPU's reserved memory, where the machine placed it: reg and status
 * "okay" in each node m1n1 fills.  m1n1 leaves no-map as the tree has it.
 */
static bool fill_gpu_memory(M1n1Fill *f)
{
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        const MemMapEntry *mem = &f->ams->gpu_mem[i];
        g_autofree char *path = g_strdup_printf("/reserved-memory/%s",
                                                apple_m1_gpu_mem[i].node);
        uint64_t reg[2] = { mem->base, mem->size };
        int node = fdt_path_offset(f->fdt, path);
        int parent = fdt_path_offset(f->fdt, "/reserved-memory");

        if (node < 0) {
            error_setg(f->errp, "apple-m1: the device tree has no %s for "
                       "the GPU's \"%s\" memory", path,
                       apple_m1_gpu_mem[i].name);
            return false;
        }
        if (fdt_address_cells(f->fdt, parent) != 2 ||
            fdt_size_cells(f->fdt, parent) != 2) {
            error_setg(f->errp, "apple-m1: /reserved-memory must have two "
                       "address and two size cells");
            return false;
        }
        if (!set_u64s(f, node, "reg", reg, 2)) {
            return false;
        }
        node = fdt_path_offset(f->fdt, path);
        if (!set_prop(f, node, "status", "okay", sizeof("okay"))) {
            return false;
        }
    }
    return true;
}

/*
 * The firmware ABI; on a downstream gpu node (apple,agx-t8103) m1n1 also
 * writes the firmware's version and compat.  Then the valid bytes of each
 * calibration blob, as m1n1 records them.
 */
static bool fill_gpu_firmware(M1n1Fill *f)
{
    const AgxAbi *abi = f->ams->gpu_abi;
    /* Copied: the alias moves with the tree as properties grow */
    g_autofree char *path = g_strdup(fdt_get_alias(f->fdt, "gpu"));
    int gpu = fdt_path_offset(f->fdt, path);
    bool downstream = !fdt_node_check_compatible(f->fdt, gpu,
                                                 "apple,agx-t8103");

    if (!set_cells(f, gpu, "apple,firmware-abi", abi->compat, 3)) {
        return false;
    }
    if (downstream &&
        (!set_cells(f, fdt_path_offset(f->fdt, path),
                    "apple,firmware-version", abi->compat, 3) ||
         !set_cells(f, fdt_path_offset(f->fdt, path),
                    "apple,firmware-compat", abi->compat, 3))) {
        return false;
    }
    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        int blob = apple_m1_gpu_mem[i].blob;
        uint32_t size;

        if (blob < 0) {
            continue;
        }
        size = agx_calib_size(abi, blob);
        if (!set_cells(f, fdt_path_offset(f->fdt, path),
                       agx_calib_size_prop(blob), &size, 1)) {
            return false;
        }
    }
    return true;
}

/* /chosen: a console if the tree names none, and a seed for the RNG */
static bool fill_chosen(M1n1Fill *f)
{
    uint8_t seed[APPLE_M1_RNG_SEED_SIZE];
    int chosen = fdt_path_offset(f->fdt, "/chosen");

    if (chosen < 0) {
        error_setg(f->errp, "apple-m1: the device tree has no /chosen");
        return false;
    }
    if (!fdt_getprop(f->fdt, chosen, "stdout-path", NULL) &&
        fdt_get_alias(f->fdt, "serial0") &&
        !set_prop(f, chosen, "stdout-path", "serial0", sizeof("serial0"))) {
        return false;
    }
    qemu_guest_getrandom_nofail(seed, sizeof(seed));
    return set_prop(f, fdt_path_offset(f->fdt, "/chosen"), "rng-seed", seed,
                    sizeof(seed));
}

/*
 * /memory as m1n1 writes it: the RAM below the GPU's memory, which is what
 * m1n1 leaves usable, then each enabled reserved-memory region outside it
 * that is not no-map, so that the kernel maps it and gives it pages
 */
static bool fill_memory(M1n1Fill *f)
{
    MachineState *ms = MACHINE(f->ams);
    hwaddr base = apple_m1_memmap[APPLE_M1_RAM].base;
    hwaddr top = base + ms->ram_size;
    uint64_t usable;
    g_autoptr(GArray) reg = g_array_new(false, false, sizeof(uint64_t));
    int rsv = fdt_path_offset(f->fdt, "/reserved-memory");
    int memory, node;

    for (int i = 0; i < APPLE_M1_GPU_NUM_MEM; i++) {
        top = MIN(top, f->ams->gpu_mem[i].base);
    }
    usable = top - base;
    g_array_append_val(reg, base);
    g_array_append_val(reg, usable);
    fdt_for_each_subnode(node, f->fdt, rsv) {
        const char *status = fdt_getprop(f->fdt, node, "status", NULL);
        uint64_t start, size;

        if ((status && strcmp(status, "okay") && strcmp(status, "ok")) ||
            fdt_getprop(f->fdt, node, "no-map", NULL) ||
            !fdt_getprop(f->fdt, node, "reg", NULL)) {
            continue;
        }
        if (!fdt_reg(f, node, 0, &start, &size)) {
            return false;
        }
        if (start >= base && start + size <= top) {
            continue;
        }
        g_array_append_val(reg, start);
        g_array_append_val(reg, size);
    }
    memory = fdt_path_offset(f->fdt, "/memory");
    if (memory < 0) {
        error_setg(f->errp, "apple-m1: the device tree has no /memory");
        return false;
    }
    return set_u64s(f, memory, "reg", (uint64_t *)reg->data, reg->len);
}

bool apple_m1_m1n1_fill(AppleM1MachineState *ams, void *fdt, Error **errp)
{
    M1n1Fill f = { .ams = ams, .fdt = fdt, .errp = errp };
    uint32_t intc_phandle;
    int err;

    if (!check_intc(&f) || check_gpu(&f) < 0 || !fill_cpus(&f) ||
        !fill_gpu_memory(&f) || !fill_gpu_firmware(&f) || !fill_chosen(&f) ||
        !fill_memory(&f)) {
        return false;
    }
    /* The machine's virtio-mmio transports, which t8103 does not have */
    f.intc = fdt_node_offset_by_compatible(fdt, -1,
        ams->soc == APPLE_M1_SOC_T8103 ? "apple,aic" : "arm,gic-v3");
    intc_phandle = fdt_get_phandle(fdt, f.intc);
    if (!intc_phandle) {
        err = fdt_generate_phandle(fdt, &intc_phandle);
        if (err < 0) {
            error_setg(errp, "apple-m1: no phandle for %s: %s",
                       NODE(&f, f.intc), fdt_strerror(err));
            return false;
        }
        if (!set_cells(&f, f.intc, "phandle", &intc_phandle, 1)) {
            return false;
        }
    }
    apple_m1_fdt_add_virtio_mmio(ams, fdt, intc_phandle);
    return true;
}
