/*
 * QTest for the apple-m1 machine: memory map, device tree, options
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include <libfdt.h>

#define RAM_BASE        0x800000000ULL
#define GICD_BASE       0x008000000ULL
#define GICD_TYPER      0x4
#define T8103_SPIS      896
#define GPU_ASC_BASE    0x206400000ULL
#define GPU_SGX_BASE    0x204000000ULL
#define SGX_CORE_MASK_0 0xd01500
#define GPU_PAGE        0x4000
#define VIRTIO_BASE     0x00a000000ULL
#define VIRTIO_SIZE     0x200
#define VIRTIO_NUM      32
#define VIRTIO_IRQ      864
#define SPIN_TABLE      0x00b000000ULL

/*
 * The drm/asahi device-tree contract and the firmware structures the blobs
 * hold, written down here independently of the machine's own tables.
 */
static const char *const gpu_regions[] = {
    "ttbs", "pagetables", "handoff", "hw-cal-a", "hw-cal-b", "globals",
};
enum { R_TTBS, R_PAGETABLES, R_HANDOFF, R_HW_CAL_A, R_HW_CAL_B, R_GLOBALS };

typedef struct GpuAbi {
    const char *fw;
    uint32_t compat[3];
    uint32_t size[3];                   /* hw-cal-a, hw-cal-b, globals */
    uint32_t hwa_pwr_status;
    uint32_t hwb_chip_id;
    uint32_t hwb_uat_ttb_base;
    uint32_t hwb_gpu_core_id;
    uint32_t gl_do_init;
    uint32_t gl_idle_off_delay_ms;
} GpuAbi;

static const GpuAbi gpu_abis[] = {
    {
        .fw = "13.5", .compat = { 13, 5, 0 },
        .size = { 0x421c, 0x1884, 0x12394 },
        .hwa_pwr_status = 0x10, .hwb_chip_id = 0x968,
        .hwb_uat_ttb_base = 0xa78, .hwb_gpu_core_id = 0xa80,
        .gl_do_init = 0x10fdc, .gl_idle_off_delay_ms = 0x1119c,
    }, {
        .fw = "12.3", .compat = { 12, 3, 0 },
        .size = { 0x3d6c, 0xb6c, 0x11d40 },
        .hwa_pwr_status = 0x0c, .hwb_chip_id = 0x450,
        .hwb_uat_ttb_base = 0x558, .hwb_gpu_core_id = 0x560,
        .gl_do_init = 0x10e84, .gl_idle_off_delay_ms = 0x11030,
    },
};

/* Properties drm/asahi requires on a t8103 gpu node, one cell each */
static const char *const gpu_required_cells[] = {
    "apple,core-leak-coef", "apple,sram-leak-coef",
    "apple,power-sample-period", "apple,min-sram-microvolt",
    "apple,avg-power-filter-tc-ms", "apple,avg-power-ki-only",
    "apple,avg-power-kp", "apple,avg-power-min-duty-cycle",
    "apple,avg-power-target-filter-tc", "apple,fast-die0-integral-gain",
    "apple,fast-die0-proportional-gain", "apple,perf-filter-drop-threshold",
    "apple,perf-filter-time-constant", "apple,perf-filter-time-constant2",
    "apple,perf-integral-gain2", "apple,perf-integral-min-clamp",
    "apple,perf-proportional-gain2", "apple,perf-tgt-utilization",
    "apple,ppm-filter-time-constant-ms", "apple,ppm-ki", "apple,ppm-kp",
    "apple,pwr-min-duty-cycle", "apple,perf-base-pstate",
    "apple,idle-off-delay-ms", "apple,fender-idle-off-delay-ms",
    "apple,fw-early-wake-timeout-ms", "debug,hw-cal-a-size",
    "debug,hw-cal-b-size", "debug,globals-size",
};

/* Run QEMU outside qtest with @args; return its exit status, keep stderr */
static int run_qemu(const char *args, char **err)
{
    const char *qemu = getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = g_strdup_printf("%s -nodefaults -display none %s",
                                           qemu, args);
    g_auto(GStrv) argv = NULL;
    g_autoptr(GError) gerr = NULL;
    int status;

    g_assert_nonnull(qemu);
    g_assert_true(g_shell_parse_argv(cmd, NULL, &argv, &gerr));
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, err, &status, &gerr));
    /* A crash would show as a signal: only a clean exit is acceptable */
    g_assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The DTB the machine generates, as written by -machine dumpdtb */
static void *dump_dtb(const char *args)
{
    g_autofree char *path = g_strdup_printf("%s/apple-m1-%d.dtb",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *cmd = g_strdup_printf("-M apple-m1,dumpdtb=%s %s",
                                           path, args);
    g_autofree char *err = NULL;
    gchar *dtb;
    gsize len;

    g_assert_cmpint(run_qemu(cmd, &err), ==, 0);
    g_assert_true(g_file_get_contents(path, &dtb, &len, NULL));
    unlink(path);
    g_assert_cmpint(fdt_check_header(dtb), ==, 0);
    g_assert_cmpuint(fdt_totalsize(dtb), ==, len);
    return dtb;
}

/* The DTB as the guest finds it at the base of RAM */
static void *read_ram_dtb(QTestState *qts)
{
    struct fdt_header hdr;
    void *dtb;

    qtest_memread(qts, RAM_BASE, &hdr, sizeof(hdr));
    g_assert_cmpint(fdt_check_header(&hdr), ==, 0);
    dtb = g_malloc(fdt_totalsize(&hdr));
    qtest_memread(qts, RAM_BASE, dtb, fdt_totalsize(&hdr));
    return dtb;
}

static int node_offset(const void *dtb, const char *path)
{
    int off = fdt_path_offset(dtb, path);

    g_assert_cmpint(off, >=, 0);
    return off;
}

/* Find the first node whose compatible list contains @compat */
static int compat_offset(const void *dtb, const char *compat)
{
    int off = fdt_node_offset_by_compatible(dtb, -1, compat);

    g_assert_cmpint(off, >=, 0);
    return off;
}

static uint32_t prop_u32(const void *dtb, int off, const char *name, int idx)
{
    int len;
    const fdt32_t *p = fdt_getprop(dtb, off, name, &len);

    if (!p) {
        g_test_message("no property %s", name);
    }
    g_assert_nonnull(p);
    g_assert_cmpint(len, >=, (idx + 1) * 4);
    return fdt32_to_cpu(p[idx]);
}

static int prop_len(const void *dtb, int off, const char *name)
{
    int len;

    if (!fdt_getprop(dtb, off, name, &len)) {
        g_test_message("no property %s", name);
        g_assert_not_reached();
    }
    return len;
}

static uint64_t prop_u64(const void *dtb, int off, const char *name, int idx)
{
    int len;
    const fdt64_t *p = fdt_getprop(dtb, off, name, &len);

    g_assert_nonnull(p);
    g_assert_cmpint(len, >=, (idx + 1) * 8);
    return fdt64_to_cpu(p[idx]);
}

/*
 * /memory as m1n1 writes it: the usable RAM, then the reserved regions
 * outside it that are mapped.  Here they must not overlap, and they start
 * at RAM_BASE; returns how much RAM they cover.
 */
static uint64_t memory_span(const void *dtb)
{
    int off = node_offset(dtb, "/memory");
    int n = prop_len(dtb, off, "reg") / 16;
    uint64_t total = 0;

    g_assert_cmpint(n, >=, 1);
    g_assert_cmphex(prop_u64(dtb, off, "reg", 0), ==, RAM_BASE);
    for (int i = 0; i < n; i++) {
        uint64_t base = prop_u64(dtb, off, "reg", 2 * i);
        uint64_t size = prop_u64(dtb, off, "reg", 2 * i + 1);

        for (int j = 0; j < i; j++) {
            uint64_t b = prop_u64(dtb, off, "reg", 2 * j);

            g_assert_true(base + size <= b ||
                          b + prop_u64(dtb, off, "reg", 2 * j + 1) <= base);
        }
        total += size;
    }
    return total;
}

static void test_machine_starts_with_gic(void)
{
    QTestState *qts = qtest_init("-M apple-m1");
    uint32_t typer = qtest_readl(qts, GICD_BASE + GICD_TYPER);

    /* ITLinesNumber covers SGIs/PPIs plus as many SPIs as AIC has lines */
    g_assert_cmpuint(((typer & 0x1f) + 1) * 32, ==, T8103_SPIS + 32);
    qtest_quit(qts);
}

static void test_ram_read_write(void)
{
    QTestState *qts = qtest_init("-M apple-m1 -m 1G");
    static const uint64_t offsets[] = { 0x100000, 0x12345678, 1 * GiB - 8 };

    for (int i = 0; i < ARRAY_SIZE(offsets); i++) {
        uint64_t pattern = 0x0123456789abcdefULL ^ offsets[i];

        qtest_writeq(qts, RAM_BASE + offsets[i], pattern);
        g_assert_cmphex(qtest_readq(qts, RAM_BASE + offsets[i]), ==, pattern);
    }
    /* Past the end of a 1 GiB RAM nothing is mapped */
    qtest_writeq(qts, RAM_BASE + 1 * GiB, ~0ULL);
    g_assert_cmphex(qtest_readq(qts, RAM_BASE + 1 * GiB), ==, 0);
    qtest_quit(qts);
}

static void test_dtb_has_expected_nodes(void)
{
    g_autofree void *dtb = dump_dtb("-m 2G");
    int off, cpus, ncpus = 0;
    const char *s;

    off = node_offset(dtb, "/");
    g_assert_cmpint(fdt_node_check_compatible(dtb, off, "apple,t8103"), ==, 0);

    g_assert_cmphex(memory_span(dtb), ==, 2 * GiB);

    /* 8 CPUs with t8103's MPIDRs, started through PSCI */
    cpus = node_offset(dtb, "/cpus");
    fdt_for_each_subnode(off, dtb, cpus) {
        static const uint64_t mpidr[] = {
            0x0, 0x1, 0x2, 0x3, 0x10100, 0x10101, 0x10102, 0x10103,
        };

        g_assert_cmpint(ncpus, <, ARRAY_SIZE(mpidr));
        g_assert_cmphex(prop_u64(dtb, off, "reg", 0), ==, mpidr[ncpus]);
        s = fdt_getprop(dtb, off, "enable-method", NULL);
        g_assert_cmpstr(s, ==, "psci");
        ncpus++;
    }
    g_assert_cmpint(ncpus, ==, 8);
    compat_offset(dtb, "arm,psci-1.0");

    compat_offset(dtb, "arm,armv8-timer");
    compat_offset(dtb, "arm,gic-v3");
    off = compat_offset(dtb, "arm,pl011");
    s = fdt_getprop(dtb, node_offset(dtb, "/chosen"), "stdout-path", NULL);
    g_assert_nonnull(s);
    g_assert_cmpint(fdt_path_offset(dtb, s), ==, off);
}

/*
 * QEMU draws the seeds afresh on every start, and the PSCI version depends
 * on the accelerator (qtest here, TCG for the dump).
 */
static bool differs_per_run(const char *path, const char *prop)
{
    return !strcmp(prop, "kaslr-seed") || !strcmp(prop, "rng-seed") ||
           g_str_has_prefix(path, "/psci");
}

/* Every node and property of @a is in @b with the same value */
static void assert_dtb_contained(const void *a, const void *b)
{
    int off = 0, depth = 0, prop;
    char path[256];

    while (off >= 0 && depth >= 0) {
        g_assert_cmpint(fdt_get_path(a, off, path, sizeof(path)), ==, 0);
        fdt_for_each_property_offset(prop, a, off) {
            const char *name;
            int alen, blen;
            const void *av = fdt_getprop_by_offset(a, prop, &name, &alen);
            const void *bv = fdt_getprop(b, node_offset(b, path), name, &blen);

            if (differs_per_run(path, name)) {
                continue;
            }
            g_assert_nonnull(bv);
            g_assert_cmpmem(av, alen, bv, blen);
        }
        off = fdt_next_node(a, off, &depth);
    }
}

static void test_dtb_in_ram_is_the_dumped_one(void)
{
    g_autofree void *dumped = dump_dtb("");
    QTestState *qts = qtest_init("-M apple-m1");
    g_autofree void *dtb = read_ram_dtb(qts);

    assert_dtb_contained(dumped, dtb);
    assert_dtb_contained(dtb, dumped);
    qtest_quit(qts);
}

/* Write @dtb to a file of its own; returns the path */
static char *save_dtb(const void *dtb, const char *name)
{
    char *path = g_strdup_printf("%s/apple-m1-%s-%d.dtb", g_get_tmp_dir(),
                                 name, getpid());

    g_assert_true(g_file_set_contents(path, dtb, fdt_totalsize(dtb), NULL));
    return path;
}

static void test_dtb_option_is_honoured(void)
{
    g_autofree void *dumped = dump_dtb("");
    g_autofree void *dtb = g_malloc0(fdt_totalsize(dumped) + 4096);
    g_autofree void *ram_dtb = NULL;
    g_autofree char *path = NULL;
    QTestState *qts;
    int off;

    /* The machine's own tree, with what the generated one never has */
    g_assert_cmpint(fdt_open_into(dumped, dtb, fdt_totalsize(dumped) + 4096),
                    ==, 0);
    g_assert_cmpint(fdt_setprop_string(dtb, 0, "model", "user-dtb"), ==, 0);
    path = save_dtb(dtb, "user");

    qts = qtest_initf("-M apple-m1 -dtb %s", path);
    ram_dtb = read_ram_dtb(qts);
    off = node_offset(ram_dtb, "/");
    g_assert_cmpstr(fdt_getprop(ram_dtb, off, "model", NULL), ==, "user-dtb");
    qtest_quit(qts);
    unlink(path);
}

/* A tree that describes another machine is refused, naming what is off */
static void test_dtb_describing_nothing_is_refused(void)
{
    g_autofree char *path = NULL;
    g_autofree char *cmd = NULL;
    g_autofree char *err = NULL;
    char dtb[4096];

    g_assert_cmpint(fdt_create_empty_tree(dtb, sizeof(dtb)), ==, 0);
    g_assert_cmpint(fdt_setprop_cell(dtb, 0, "#address-cells", 2), ==, 0);
    g_assert_cmpint(fdt_setprop_cell(dtb, 0, "#size-cells", 2), ==, 0);
    path = save_dtb(dtb, "empty");
    cmd = g_strdup_printf("-M apple-m1 -dtb %s", path);
    g_assert_cmpint(run_qemu(cmd, &err), ==, 1);
    g_assert_nonnull(strstr(err, "arm,gic-v3"));
    unlink(path);
}

static void test_bad_options_are_rejected(void)
{
    static const struct {
        const char *args;
        const char *msg;
    } cases[] = {
        { "-M apple-m1 -smp 9", "max CPUs" },
        { "-M apple-m1 -m 64G", "larger than" },
        { "-M apple-m1 -m 16M", "below the minimum" },
        { "-M apple-m1 -dtb /nonexistent/x.dtb", "dtb" },
        { "-M apple-m1 -cpu cortex-a53", "Invalid CPU" },
        { "-M apple-m1,gpu-firmware=11.0", "gpu-firmware '11.0'" },
        { "-M apple-m1,gpu-firmware=", "gpu-firmware ''" },
        { "-M apple-m1,gpu-cores=6", "gpu-cores must be 7 or 8" },
        { "-M apple-m1,soc=t6000", "soc 't6000' is not supported" },
        { "-M apple-m1,el2=on", "el2=on needs soc=t8103" },
    };

    for (int i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree char *err = NULL;

        g_assert_cmpint(run_qemu(cases[i].args, &err), ==, 1);
        if (!strstr(err, cases[i].msg)) {
            g_test_message("'%s' said: %s", cases[i].args, err);
            g_assert_not_reached();
        }
    }
}


/* The node a single-cell phandle property of node @off points at */
static int phandle_target(const void *dtb, int off, const char *name)
{
    int target = fdt_node_offset_by_phandle(dtb, prop_u32(dtb, off, name, 0));

    g_assert_cmpint(target, >=, 0);
    return target;
}

static void test_t8103_dtb_has_aic(void)
{
    g_autofree void *dtb = dump_dtb("-M soc=t8103");
    int aic = compat_offset(dtb, "apple,t8103-aic");
    int timer = node_offset(dtb, "/timer");
    /* <AIC_FIQ n LEVEL_HIGH>: guest phys, guest virt, HV phys, HV virt */
    static const uint32_t timer_fiqs[] = { 2, 3, 0, 1 };

    g_assert_cmpint(fdt_node_check_compatible(dtb, aic, "apple,aic"), ==, 0);
    g_assert_cmphex(prop_u64(dtb, aic, "reg", 0), ==, 0x23b100000ULL);
    g_assert_cmpuint(prop_u32(dtb, aic, "#interrupt-cells", 0), ==, 3);
    g_assert_cmpint(phandle_target(dtb, 0, "interrupt-parent"), ==, aic);
    g_assert_cmpint(fdt_node_offset_by_compatible(dtb, -1, "arm,gic-v3"),
                    <, 0);
    for (int i = 0; i < ARRAY_SIZE(timer_fiqs); i++) {
        g_assert_cmpuint(prop_u32(dtb, timer, "interrupts", i * 3), ==, 1);
        g_assert_cmpuint(prop_u32(dtb, timer, "interrupts", i * 3 + 1), ==,
                         timer_fiqs[i]);
        g_assert_cmpuint(prop_u32(dtb, timer, "interrupts", i * 3 + 2), ==,
                         4);
    }
}

static void test_t8103_dtb_has_s5l_uart(void)
{
    g_autofree void *dtb = dump_dtb("-M soc=t8103");
    int uart = compat_offset(dtb, "apple,s5l-uart");
    const char *alias = fdt_get_alias(dtb, "serial0");

    g_assert_nonnull(alias);
    g_assert_cmpint(node_offset(dtb, alias), ==, uart);
    g_assert_cmphex(prop_u64(dtb, uart, "reg", 0), ==, 0x235200000ULL);
    g_assert_cmpuint(prop_u32(dtb, uart, "interrupts", 0), ==, 0);
    g_assert_cmpuint(prop_u32(dtb, uart, "interrupts", 1), ==, 605);
    g_assert_cmpint(fdt_node_offset_by_compatible(dtb, -1, "arm,pl011"),
                    <, 0);
}

/* Every power-domains names a PMGR power state at its t8103 offset */
static void test_t8103_power_domains_resolve(void)
{
    g_autofree void *dtb = dump_dtb("-M soc=t8103");
    int pmgr = node_offset(dtb, "/soc/power-management@23b700000");
    int users = 0;

    g_assert_cmpint(fdt_node_check_compatible(dtb, pmgr, "apple,t8103-pmgr"),
                    ==, 0);
    for (int off = fdt_next_node(dtb, -1, NULL); off >= 0;
         off = fdt_next_node(dtb, off, NULL)) {
        int ps;

        if (!fdt_getprop(dtb, off, "power-domains", NULL)) {
            continue;
        }
        ps = phandle_target(dtb, off, "power-domains");
        g_assert_cmpint(fdt_node_check_compatible(dtb, ps,
                                                  "apple,pmgr-pwrstate"),
                        ==, 0);
        g_assert_cmpint(fdt_parent_offset(dtb, ps), ==, pmgr);
        users++;
    }
    /* AIC, UART, GPU, and the parents of uart0's domain */
    g_assert_cmpint(users, >=, 6);
}

/* Blocks without a model (here the NCO clocks) read as zero */
static void test_t8103_other_blocks_read_zero(void)
{
    QTestState *qts = qtest_init("-M apple-m1,soc=t8103");

    qtest_writel(qts, 0x23b044000ULL, 0x12345678);
    g_assert_cmphex(qtest_readl(qts, 0x23b044000ULL), ==, 0);
    /* The modelled blocks stay on top of it */
    g_assert_cmphex(qtest_readl(qts, 0x23b100004ULL) & 0xffff, ==, 896);
    qtest_quit(qts);
}

static void test_t8103_gpu_irqs_reach_aic(void)
{
    QTestState *qts = qtest_init("-M apple-m1,soc=t8103");
    uint64_t hw_state = 0x23b100000ULL + 0x4200 + 4 * (575 / 32);

    /* The GPU's mailbox is empty at reset: send-empty is high */
    g_assert_cmphex(qtest_readl(qts, hw_state) & (1U << (575 % 32)), !=, 0);
    qtest_quit(qts);
}

/*
 * Both variants: 32 virtio-mmio transports from 0xa000000 on the top 32
 * interrupt lines, in the device tree lowest address first, and devices
 * given with -device land on them, highest address first as on virt
 */
static void test_virtio_mmio(gconstpointer data)
{
    const char *soc = data;
    g_autofree char *args = g_strdup_printf("-M soc=%s", soc);
    g_autofree void *dtb = dump_dtb(args);
    const char *intc = !strcmp(soc, "t8103") ? "apple,aic" : "arm,gic-v3";
    QTestState *qts;
    int off, n = 0;

    for (off = fdt_node_offset_by_compatible(dtb, -1, "virtio,mmio");
         off >= 0;
         off = fdt_node_offset_by_compatible(dtb, off, "virtio,mmio")) {
        g_assert_cmphex(prop_u64(dtb, off, "reg", 0), ==,
                        VIRTIO_BASE + n * VIRTIO_SIZE);
        g_assert_cmphex(prop_u64(dtb, off, "reg", 1), ==, VIRTIO_SIZE);
        g_assert_cmpint(phandle_target(dtb, off, "interrupt-parent"), ==,
                        compat_offset(dtb, intc));
        g_assert_cmpuint(prop_u32(dtb, off, "interrupts", 0), ==, 0);
        g_assert_cmpuint(prop_u32(dtb, off, "interrupts", 1), ==,
                         VIRTIO_IRQ + n);
        g_assert_cmpuint(prop_u32(dtb, off, "interrupts", 2), ==, 4);
        n++;
    }
    g_assert_cmpint(n, ==, VIRTIO_NUM);

    qts = qtest_initf("-M apple-m1,soc=%s "
                      "-drive if=none,id=d,file=null-co://,format=raw "
                      "-device virtio-blk-device,drive=d "
                      "-netdev user,id=n -device virtio-net-device,netdev=n",
                      soc);
    for (int i = 0; i < VIRTIO_NUM; i++) {
        uint64_t base = VIRTIO_BASE + i * VIRTIO_SIZE;
        /* As on virt, -device fills the highest transport first */
        uint32_t id = i == VIRTIO_NUM - 1 ? 2 : i == VIRTIO_NUM - 2 ? 1 : 0;

        g_assert_cmphex(qtest_readl(qts, base), ==, 0x74726976); /* "virt" */
        g_assert_cmphex(qtest_readl(qts, base + 8), ==, id);
    }
    qtest_quit(qts);
}

typedef struct GpuRegion {
    uint64_t base;
    uint64_t size;
    bool no_map;
} GpuRegion;

/* Follow the gpu node's memory-region entry called @name */
static GpuRegion gpu_region(const void *dtb, int gpu, const char *name)
{
    int idx = fdt_stringlist_search(dtb, gpu, "memory-region-names", name);
    int node, parent;
    GpuRegion r;

    g_assert_cmpint(idx, >=, 0);
    node = fdt_node_offset_by_phandle(dtb, prop_u32(dtb, gpu, "memory-region",
                                                    idx));
    g_assert_cmpint(node, >=, 0);
    parent = fdt_parent_offset(dtb, node);
    g_assert_cmpint(parent, ==, node_offset(dtb, "/reserved-memory"));
    g_assert_cmpint(prop_len(dtb, node, "reg"), ==, 16);
    r.base = prop_u64(dtb, node, "reg", 0);
    r.size = prop_u64(dtb, node, "reg", 1);
    r.no_map = fdt_getprop(dtb, node, "no-map", NULL) != NULL;
    return r;
}

/* The GPU's reserved memory: in RAM, GPU-page aligned, disjoint */
static void check_gpu_regions(const void *dtb, const GpuAbi *abi, uint64_t ram)
{
    int gpu = fdt_path_offset(dtb, fdt_get_alias(dtb, "gpu"));
    int rsv = node_offset(dtb, "/reserved-memory");
    GpuRegion r[G_N_ELEMENTS(gpu_regions)];

    g_assert_cmpuint(prop_u32(dtb, rsv, "#address-cells", 0), ==, 2);
    g_assert_cmpuint(prop_u32(dtb, rsv, "#size-cells", 0), ==, 2);
    g_assert_cmpint(prop_len(dtb, rsv, "ranges"), ==, 0);
    g_assert_cmpint(fdt_stringlist_count(dtb, gpu, "memory-region-names"),
                    ==, G_N_ELEMENTS(gpu_regions));
    g_assert_cmpint(prop_len(dtb, gpu, "memory-region"), ==,
                    4 * G_N_ELEMENTS(gpu_regions));
    for (int i = 0; i < G_N_ELEMENTS(gpu_regions); i++) {
        r[i] = gpu_region(dtb, gpu, gpu_regions[i]);
        g_assert_cmphex(r[i].base % GPU_PAGE, ==, 0);
        g_assert_cmphex(r[i].size % GPU_PAGE, ==, 0);
        g_assert_cmphex(r[i].size, >=, GPU_PAGE);
        g_assert_cmphex(r[i].base, >=, RAM_BASE);
        g_assert_cmphex(r[i].base + r[i].size, <=, RAM_BASE + ram);
        for (int j = 0; j < i; j++) {
            g_assert_true(r[i].base + r[i].size <= r[j].base ||
                          r[j].base + r[j].size <= r[i].base);
        }
    }
    /* The driver uses pagetables through the kernel's linear map */
    g_assert_false(r[R_PAGETABLES].no_map);
    for (int i = 0; i < 3; i++) {
        uint32_t size = prop_u32(dtb, gpu, i == 0 ? "debug,hw-cal-a-size" :
                                 i == 1 ? "debug,hw-cal-b-size" :
                                 "debug,globals-size", 0);

        g_assert_cmphex(size, ==, abi->size[i]);
        g_assert_cmphex(size, <=, r[R_HW_CAL_A + i].size);
    }
}

static void check_gpu_dt(const void *dtb, const GpuAbi *abi, uint64_t ram)
{
    int gpu = node_offset(dtb, "/soc/gpu@206400000");
    int mbox, opp, n = 0, len;
    uint32_t max_uw = 0;
    const char *s;

    /* Identity, registers, mailbox */
    g_assert_cmpint(fdt_node_check_compatible(dtb, gpu, "apple,agx-t8103"),
                    ==, 0);
    g_assert_cmpint(fdt_node_check_compatible(dtb, gpu, "apple,agx-g13g"),
                    ==, 0);
    g_assert_cmpint(prop_len(dtb, gpu, "reg"), ==, 32);
    g_assert_cmphex(prop_u64(dtb, gpu, "reg", 0), ==, GPU_ASC_BASE);
    g_assert_cmphex(prop_u64(dtb, gpu, "reg", 1), ==, 0x40000);
    g_assert_cmphex(prop_u64(dtb, gpu, "reg", 2), ==, GPU_SGX_BASE);
    g_assert_cmphex(prop_u64(dtb, gpu, "reg", 3), ==, 0x1000000);
    g_assert_cmpint(fdt_stringlist_search(dtb, gpu, "reg-names", "asc"), ==,
                    0);
    g_assert_cmpint(fdt_stringlist_search(dtb, gpu, "reg-names", "sgx"), ==,
                    1);
    mbox = fdt_node_offset_by_phandle(dtb, prop_u32(dtb, gpu, "mboxes", 0));
    g_assert_cmpint(fdt_node_check_compatible(dtb, mbox,
                                              "apple,asc-mailbox-v4"), ==, 0);
    g_assert_cmphex(prop_u64(dtb, mbox, "reg", 0), ==, GPU_ASC_BASE + 0x8000);
    s = fdt_getprop(dtb, node_offset(dtb, "/aliases"), "gpu", NULL);
    g_assert_cmpstr(s, ==, "/soc/gpu@206400000");

    /* Firmware ABI: three cells each */
    g_assert_cmpint(prop_len(dtb, gpu, "apple,firmware-compat"), ==, 12);
    g_assert_cmpint(prop_len(dtb, gpu, "apple,firmware-abi"), ==, 12);
    g_assert_cmpint(prop_len(dtb, gpu, "apple,firmware-version"), ==, 12);
    for (int i = 0; i < 3; i++) {
        g_assert_cmpuint(prop_u32(dtb, gpu, "apple,firmware-compat", i), ==,
                         abi->compat[i]);
        g_assert_cmpuint(prop_u32(dtb, gpu, "apple,firmware-abi", i), ==,
                         abi->compat[i]);
    }

    /* Power management */
    for (int i = 0; i < G_N_ELEMENTS(gpu_required_cells); i++) {
        g_assert_cmpint(prop_len(dtb, gpu, gpu_required_cells[i]), ==, 4);
    }
    g_assert_cmpint(prop_len(dtb, gpu, "apple,power-zones"), ==, 12);
    g_assert_cmpuint(prop_u32(dtb, gpu, "apple,power-sample-period", 0), ==,
                     8);
    g_assert_cmpuint(prop_u32(dtb, gpu, "apple,min-sram-microvolt", 0), ==,
                     850000);
    g_assert_cmpuint(prop_u32(dtb, gpu, "apple,idle-off-delay-ms", 0), ==, 2);
    /* 91.5 as an IEEE single */
    g_assert_cmphex(prop_u32(dtb, gpu, "apple,ppm-ki", 0), ==, 0x42b70000);
    opp = fdt_node_offset_by_phandle(dtb, prop_u32(dtb, gpu,
                                                   "operating-points-v2", 0));
    g_assert_cmpint(fdt_node_check_compatible(dtb, opp,
                                              "operating-points-v2"), ==, 0);
    fdt_for_each_subnode(len, dtb, opp) {
        g_assert_cmpint(prop_len(dtb, len, "opp-hz"), ==, 8);
        g_assert_cmpint(prop_len(dtb, len, "opp-microvolt"), ==, 4);
        max_uw = MAX(max_uw, prop_u32(dtb, len, "opp-microwatt", 0));
        n++;
    }
    g_assert_cmpint(n, >=, 2);
    g_assert_cmpint(prop_u32(dtb, gpu, "apple,perf-base-pstate", 0), <,
                    n - 1);
    g_assert_cmpuint(max_uw, >=, 1000);

    check_gpu_regions(dtb, abi, ram);
}

/*
 * Every cpu node starts by spin-table with its own release slot, the
 * machine's, outside RAM; returns how many cpu nodes there are
 */
static int check_spin_table(const void *dtb)
{
    int cpus = node_offset(dtb, "/cpus");
    uint64_t addr[8];
    int off, n = 0;

    fdt_for_each_subnode(off, dtb, cpus) {
        if (strncmp(fdt_get_name(dtb, off, NULL), "cpu@", 4)) {
            continue;
        }
        g_assert_cmpint(n, <, ARRAY_SIZE(addr));
        g_assert_cmpstr(fdt_getprop(dtb, off, "enable-method", NULL), ==,
                        "spin-table");
        g_assert_cmpint(prop_len(dtb, off, "cpu-release-addr"), ==, 8);
        addr[n] = prop_u64(dtb, off, "cpu-release-addr", 0);
        g_assert_cmphex(addr[n], >=, SPIN_TABLE);
        g_assert_cmphex(addr[n], <, SPIN_TABLE + 8 * 8);
        g_assert_cmphex(addr[n] % 8, ==, 0);
        for (int i = 0; i < n; i++) {
            g_assert_cmphex(addr[i], !=, addr[n]);
        }
        n++;
    }
    return n;
}

/*
 * soc=t8103 starts its CPUs by spin-table as t8103.dtsi does; QEMU's PSCI
 * stays for power-off and reset.  The slots are empty at reset.
 */
static void test_t8103_spin_table(void)
{
    g_autofree void *dtb = dump_dtb("-M soc=t8103 -m 2G");
    int cpu0 = node_offset(dtb, "/cpus/cpu@0");
    uint64_t slot = prop_u64(dtb, cpu0, "cpu-release-addr", 0);
    QTestState *qts;

    g_assert_cmpint(check_spin_table(dtb), ==, 8);
    compat_offset(dtb, "arm,psci-1.0");

    g_assert_cmphex(slot, ==, SPIN_TABLE);
    qts = qtest_init("-M apple-m1,soc=t8103 -m 2G");
    for (int i = 0; i < 8; i++) {
        g_assert_cmphex(qtest_readq(qts, slot + 8 * i), ==, 0);
    }
    /* The boot CPU has no slot: a write there is dropped */
    qtest_writeq(qts, slot, 0x800000000ULL);
    g_assert_cmphex(qtest_readq(qts, slot), ==, 0);
    qtest_quit(qts);
}

/*
 * CPU 0 writes two entry points to CPU 1's slot, one right after the other
 * (in one translation block, so before CPU 1 can run), then waits; each
 * entry point writes its own mark.  Assembled from:
 *      ldr x0, slot1; adr x1, entry_a; adr x2, entry_b
 *      str x1, [x0]; str x2, [x0]
 *   1: wfi; b 1b
 *   entry_a: adr x0, mark; mov x1, #0xa; str x1, [x0]; 2: wfi; b 2b
 *   entry_b: adr x0, mark; mov x1, #0xb; str x1, [x0]; 3: wfi; b 3b
 *   .balign 8; slot1: .quad SPIN_TABLE + 8; mark: .quad 0
 */
static const uint32_t double_release_code[] = {
    0x58000240, 0x100000c1, 0x10000142, 0xf9000001,
    0xf9000002, 0xd503207f, 0x17ffffff,
    0x100001a0, 0xd2800141, 0xf9000001, 0xd503207f, 0x17ffffff,
    0x10000100, 0xd2800161, 0xf9000001, 0xd503207f, 0x17ffffff,
    0xd503201f, SPIN_TABLE + 8, 0, 0, 0,
};
#define DOUBLE_RELEASE_MARK     0x50

static bool log_has(const char *path, const char *fragment)
{
    g_autofree char *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return strstr(text, fragment) != NULL;
}

/* A CPU leaves its spin loop on the first entry point written, never twice */
static void test_t8103_spin_table_releases_once(void)
{
    g_autofree char *code = g_strdup_printf("%s/apple-m1-spin-%d.bin",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *log = g_strdup_printf("%s/apple-m1-spin-%d.log",
                                           g_get_tmp_dir(), getpid());
    uint64_t base = RAM_BASE + 16 * MiB;
    uint64_t mark = 0;
    QTestState *qts;

    g_assert_true(g_file_set_contents(code,
                                      (const char *)double_release_code,
                                      sizeof(double_release_code), NULL));
    qts = qtest_initf("-M apple-m1,soc=t8103 -smp 2 -m 1G -accel tcg "
                      "-device loader,file=%s,addr=0x%" PRIx64 ",cpu-num=0 "
                      "-d guest_errors -D %s", code, base, log);
    for (int i = 0; i < 500 && !mark; i++) {
        g_usleep(10 * 1000);
        mark = qtest_readq(qts, base + DOUBLE_RELEASE_MARK);
    }
    g_assert_cmphex(mark, ==, 0xa);
    qtest_quit(qts);
    g_assert_true(log_has(log, "CPU 1 left its spin loop already"));
    unlink(code);
    unlink(log);
}

/* Linux 7.3's t8103-j274.dtb, unmodified, when the harness built it */
static void *load_j274(size_t room)
{
    const char *path = getenv("AGX_J274_DTB");
    gchar *file;
    gsize len;
    void *dtb;

    if (!path) {
        return NULL;
    }
    g_assert_true(g_file_get_contents(path, &file, &len, NULL));
    dtb = g_malloc0(len + room);
    g_assert_cmpint(fdt_open_into(file, dtb, len + room), ==, 0);
    g_free(file);
    return dtb;
}

static void *dump_j274(const char *args)
{
    g_autofree char *cmd = g_strdup_printf("-M soc=t8103 -dtb %s %s",
                                           getenv("AGX_J274_DTB"), args);

    return dump_dtb(cmd);
}

/*
 * The machine fills Linux's own j274 tree as m1n1 does: memory, the GPU's
 * reserved memory and firmware ABI, the CPUs' release addresses, a seed
 * for the RNG; it adds its virtio-mmio transports
 */
static void test_j274_filled(void)
{
    g_autofree void *orig = load_j274(0);
    g_autofree void *dtb = NULL;
    int gpu, chosen;

    if (!orig) {
        g_test_skip("AGX_J274_DTB names no t8103-j274.dtb");
        return;
    }
    dtb = dump_j274("-m 2G");
    gpu = node_offset(dtb, "/soc/gpu@206400000");
    g_assert_cmphex(memory_span(dtb), ==, 2 * GiB);
    g_assert_cmpint(check_spin_table(dtb), ==, 8);
    for (int i = 0; i < G_N_ELEMENTS(gpu_regions); i++) {
        int idx = fdt_stringlist_search(dtb, gpu, "memory-region-names",
                                        gpu_regions[i]);
        int node = fdt_node_offset_by_phandle(dtb,
            prop_u32(dtb, gpu, "memory-region", idx));

        g_assert_cmpstr(fdt_getprop(dtb, node, "status", NULL), ==, "okay");
        /* As in t8103.dtsi: m1n1 adds no no-map */
        g_assert_null(fdt_getprop(dtb, node, "no-map", NULL));
    }
    check_gpu_regions(dtb, &gpu_abis[0], 2 * GiB);
    for (int i = 0; i < 3; i++) {
        g_assert_cmpuint(prop_u32(dtb, gpu, "apple,firmware-abi", i), ==,
                         gpu_abis[0].compat[i]);
    }
    /* m1n1 writes version and compat only into downstream gpu nodes */
    g_assert_null(fdt_getprop(dtb, gpu, "apple,firmware-compat", NULL));
    chosen = node_offset(dtb, "/chosen");
    g_assert_cmpint(prop_len(dtb, chosen, "rng-seed"), ==, 32);
    g_assert_cmpstr(fdt_getprop(dtb, chosen, "stdout-path", NULL), ==,
                    "serial0");
    g_assert_cmpint(fdt_node_offset_by_compatible(dtb, -1, "virtio,mmio"),
                    >=, 0);
    /* What the machine does not fill stays as Linux wrote it */
    g_assert_cmpint(fdt_path_offset(dtb, "/soc/i2c@235010000"), >=, 0);
}

/* CPUs the machine lacks go, with their cpu-map and PMU affinities */
static void test_j274_smp4(void)
{
    g_autofree void *orig = load_j274(0);
    g_autofree void *dtb = NULL;
    int aff, off;

    if (!orig) {
        g_test_skip("AGX_J274_DTB names no t8103-j274.dtb");
        return;
    }
    dtb = dump_j274("-smp 4");
    g_assert_cmpint(check_spin_table(dtb), ==, 4);
    g_assert_cmpint(fdt_path_offset(dtb, "/cpus/cpu@10100"), <, 0);
    g_assert_cmpint(fdt_path_offset(dtb, "/cpus/cpu-map/cluster0/core3"),
                    >=, 0);
    g_assert_cmpint(fdt_path_offset(dtb, "/cpus/cpu-map/cluster1"), <, 0);
    aff = node_offset(dtb,
                      "/soc/interrupt-controller@23b100000/affinities");
    fdt_for_each_subnode(off, dtb, aff) {
        int len = prop_len(dtb, off, "cpus");

        for (int i = 0; i < len / 4; i++) {
            g_assert_cmpint(fdt_node_offset_by_phandle(dtb,
                                prop_u32(dtb, off, "cpus", i)), >=, 0);
        }
    }
}

/* Without -dtb the machine's own tree says the same about the GPU */
static void test_j274_equals_generated(void)
{
    g_autofree void *orig = load_j274(0);
    g_autofree void *j274 = NULL;
    g_autofree void *gen = NULL;
    int gj, gg;

    if (!orig) {
        g_test_skip("AGX_J274_DTB names no t8103-j274.dtb");
        return;
    }
    j274 = dump_j274("");
    gen = dump_dtb("-M soc=t8103");
    gj = node_offset(j274, "/soc/gpu@206400000");
    gg = node_offset(gen, "/soc/gpu@206400000");
    for (int i = 0; i < G_N_ELEMENTS(gpu_regions); i++) {
        GpuRegion a = gpu_region(j274, gj, gpu_regions[i]);
        GpuRegion b = gpu_region(gen, gg, gpu_regions[i]);

        g_assert_cmphex(a.base, ==, b.base);
        g_assert_cmphex(a.size, ==, b.size);
        g_assert_cmpint(a.no_map, ==, b.no_map);
    }
    for (int i = 0; i < 3; i++) {
        g_assert_cmpuint(prop_u32(j274, gj, "apple,firmware-abi", i), ==,
                         prop_u32(gen, gg, "apple,firmware-abi", i));
    }
    g_assert_cmphex(prop_u64(j274, node_offset(j274, "/cpus/cpu@10103"),
                             "cpu-release-addr", 0), ==,
                    prop_u64(gen, node_offset(gen, "/cpus/cpu@10103"),
                             "cpu-release-addr", 0));
    g_assert_cmphex(memory_span(j274), ==, memory_span(gen));
}

/* Boot @dtb; QEMU must refuse it with a message that has @what */
static void assert_dtb_refused(const void *dtb, const char *machine,
                               const char *what)
{
    g_autofree char *path = save_dtb(dtb, "bad");
    g_autofree char *cmd = g_strdup_printf("-M %s -dtb %s", machine, path);
    g_autofree char *err = NULL;

    g_assert_cmpint(run_qemu(cmd, &err), ==, 1);
    if (!strstr(err, what)) {
        g_test_message("expected '%s' in: %s", what, err);
        g_assert_not_reached();
    }
    unlink(path);
}

/* A j274 tree that does not fit the machine is an error naming the node */
static void test_j274_mismatch_refused(void)
{
    g_autofree void *dtb = load_j274(4096);
    int node;

    if (!dtb) {
        g_test_skip("AGX_J274_DTB names no t8103-j274.dtb");
        return;
    }
    /* The GIC variant has no AIC */
    assert_dtb_refused(dtb, "apple-m1", "arm,gic-v3");

    /* The GPU's mailbox on other lines */
    node = node_offset(dtb, "/soc/mbox@206408000");
    g_assert_cmpint(fdt_setprop_inplace_namelen_partial(dtb, node,
                        "interrupts", 10, 4, &(fdt32_t) { cpu_to_fdt32(600) },
                        4), ==, 0);
    assert_dtb_refused(dtb, "apple-m1,soc=t8103", "/soc/mbox@206408000");
    g_assert_cmpint(fdt_setprop_inplace_namelen_partial(dtb, node,
                        "interrupts", 10, 4, &(fdt32_t) { cpu_to_fdt32(575) },
                        4), ==, 0);

    /* The GPU's registers elsewhere */
    node = node_offset(dtb, "/soc/gpu@206400000");
    g_assert_cmpint(fdt_setprop_inplace_namelen_partial(dtb, node, "reg", 3,
                        4, &(fdt32_t) { cpu_to_fdt32(0x6500000) }, 4), ==, 0);
    assert_dtb_refused(dtb, "apple-m1,soc=t8103", "/soc/gpu@206400000");
    g_assert_cmpint(fdt_setprop_inplace_namelen_partial(dtb, node, "reg", 3,
                        4, &(fdt32_t) { cpu_to_fdt32(0x6400000) }, 4), ==, 0);

    /* A reserved-memory placeholder missing */
    fdt_nop_node(dtb, node_offset(dtb, "/reserved-memory/uat-ttbs"));
    assert_dtb_refused(dtb, "apple-m1,soc=t8103", "/reserved-memory/uat-ttbs");
}

/*
 * Filling is idempotent: a filled tree (the j274 one, dumped) given back
 * with -dtb comes out the same
 */
static void test_refill_is_stable(void)
{
    g_autofree void *orig = load_j274(0);
    g_autofree void *once = NULL;
    g_autofree void *twice = NULL;
    g_autofree char *path = NULL;
    g_autofree char *args = NULL;

    if (!orig) {
        g_test_skip("AGX_J274_DTB names no t8103-j274.dtb");
        return;
    }
    once = dump_j274("-smp 6");
    path = save_dtb(once, "once");
    args = g_strdup_printf("-M soc=t8103 -smp 6 -dtb %s", path);
    twice = dump_dtb(args);
    assert_dtb_contained(once, twice);
    assert_dtb_contained(twice, once);
    g_assert_cmpint(fdt_num_mem_rsv(twice), ==, fdt_num_mem_rsv(once));
    unlink(path);
}

static void test_gpu_dt_contract(gconstpointer data)
{
    const GpuAbi *abi = data;
    g_autofree char *args = g_strdup_printf("-M gpu-firmware=%s -m 2G",
                                            abi->fw);
    g_autofree void *dtb = dump_dtb(args);

    check_gpu_dt(dtb, abi, 2 * GiB);
}

static uint32_t ram_ld32(QTestState *qts, uint64_t addr)
{
    return qtest_readl(qts, addr);
}

static void test_gpu_blobs_in_ram(gconstpointer data)
{
    const GpuAbi *abi = data;
    QTestState *qts = qtest_initf("-M apple-m1,gpu-firmware=%s -m 1G",
                                  abi->fw);
    g_autofree void *dtb = read_ram_dtb(qts);
    int gpu = node_offset(dtb, "/soc/gpu@206400000");
    GpuRegion r[G_N_ELEMENTS(gpu_regions)];
    g_autofree uint8_t *zero = g_malloc0(GPU_PAGE);
    g_autofree uint8_t *buf = g_malloc(GPU_PAGE);
    g_autofree uint8_t *hwb = NULL;

    check_gpu_dt(dtb, abi, 1 * GiB);
    for (int i = 0; i < G_N_ELEMENTS(gpu_regions); i++) {
        r[i] = gpu_region(dtb, gpu, gpu_regions[i]);
    }

    /* The UAT regions start out zeroed */
    for (int i = R_TTBS; i <= R_HANDOFF; i++) {
        qtest_memread(qts, r[i].base, buf, GPU_PAGE);
        g_assert_cmpmem(buf, GPU_PAGE, zero, GPU_PAGE);
    }

    /* The blobs, as the driver finds them */
    g_assert_cmpuint(ram_ld32(qts, r[R_HW_CAL_A].base + abi->hwa_pwr_status),
                     ==, 4);
    g_assert_cmphex(ram_ld32(qts, r[R_HW_CAL_B].base + abi->hwb_chip_id), ==,
                    0x8103);
    g_assert_cmpuint(ram_ld32(qts, r[R_HW_CAL_B].base + abi->hwb_gpu_core_id),
                     ==, 11);
    g_assert_cmphex(qtest_readq(qts, r[R_HW_CAL_B].base +
                                abi->hwb_uat_ttb_base), ==, r[R_TTBS].base);
    g_assert_cmpuint(ram_ld32(qts, r[R_GLOBALS].base + abi->gl_do_init), ==,
                     1);
    g_assert_cmpuint(ram_ld32(qts, r[R_GLOBALS].base +
                              abi->gl_idle_off_delay_ms), ==, 2);
    /* Nothing beyond the structure */
    qtest_memread(qts, r[R_HW_CAL_B].base + abi->size[1], buf,
                  r[R_HW_CAL_B].size - abi->size[1]);
    g_assert_cmpmem(buf, r[R_HW_CAL_B].size - abi->size[1],
                    zero, r[R_HW_CAL_B].size - abi->size[1]);

    /* A reset restores the blob and clears the UAT regions */
    hwb = g_malloc(abi->size[1]);
    qtest_memread(qts, r[R_HW_CAL_B].base, hwb, abi->size[1]);
    qtest_memset(qts, r[R_HW_CAL_B].base, 0x5a, abi->size[1]);
    qtest_writeq(qts, r[R_HANDOFF].base + 8, 0x4b1d000000000002ULL);
    qtest_system_reset(qts);
    g_free(dtb);
    dtb = read_ram_dtb(qts);
    g_assert_cmphex(qtest_readq(qts, r[R_HANDOFF].base + 8), ==, 0);
    g_free(buf);
    buf = g_malloc(abi->size[1]);
    qtest_memread(qts, r[R_HW_CAL_B].base, buf, abi->size[1]);
    g_assert_cmpmem(buf, abi->size[1], hwb, abi->size[1]);
    qtest_quit(qts);
}

static void test_gpu_seven_cores(void)
{
    g_autofree void *dtb8 = dump_dtb("");
    g_autofree void *dtb7 = dump_dtb("-M gpu-cores=7");
    int gpu8 = node_offset(dtb8, "/soc/gpu@206400000");
    int gpu7 = node_offset(dtb7, "/soc/gpu@206400000");
    QTestState *qts;

    /* m1n1: leakage scales with the enabled cores (1000.0 vs 890.0) */
    g_assert_cmphex(prop_u32(dtb8, gpu8, "apple,core-leak-coef", 0), ==,
                    0x447a0000);
    g_assert_cmphex(prop_u32(dtb7, gpu7, "apple,core-leak-coef", 0), ==,
                    0x445e8000);

    qts = qtest_init("-M apple-m1,gpu-cores=7");
    g_assert_cmphex(qtest_readl(qts, GPU_SGX_BASE + SGX_CORE_MASK_0), ==,
                    0xfe);
    qtest_quit(qts);
    qts = qtest_init("-M apple-m1");
    g_assert_cmphex(qtest_readl(qts, GPU_SGX_BASE + SGX_CORE_MASK_0), ==,
                    0xff);
    qtest_quit(qts);
}

/* info qtree shows the GPU, its mailbox and their properties */
static void test_qtree_shows_gpu(void)
{
    QTestState *qts = qtest_init("-M apple-m1,gpu-firmware=12.3");
    g_autofree char *tree = qtest_hmp(qts, "info qtree");
    static const char *const expect[] = {
        "dev: apple-agx, id \"\"",
        "firmware-version = \"12.3\"",
        "core-mask = 255",
        "job-duration-ns = 20000",
        "echo-endpoint = 0",
        "dev: apple-asc-mailbox",
    };

    for (int i = 0; i < ARRAY_SIZE(expect); i++) {
        if (!strstr(tree, expect[i])) {
            g_test_message("info qtree lacks '%s'", expect[i]);
            g_test_message("%s", tree);
            g_assert_not_reached();
        }
    }
    qtest_quit(qts);
}

/* The property @name of device type @type, or NULL; unref the result */
static QDict *type_property(QTestState *qts, const char *type,
                            const char *name)
{
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'device-list-properties', "
                            "'arguments': { 'typename': %s } }", type);
    QList *props = qdict_get_qlist(resp, "return");
    const QListEntry *e;
    QDict *found = NULL;

    g_assert_nonnull(props);
    QLIST_FOREACH_ENTRY(props, e) {
        QDict *prop = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(prop, "name"), name)) {
            found = qobject_ref(prop);
        }
    }
    qobject_unref(resp);
    return found;
}

/*
 * The generic ASC, which every Apple coprocessor has, carries no GPU
 * policy: the firmware version (the GPU's ABI selector) is apple-agx's,
 * and so are the system endpoints the firmware advertises
 */
static void test_gpu_policy(void)
{
    QTestState *qts = qtest_init("-M apple-m1");
    QDict *prop, *resp;

    g_assert_null(type_property(qts, "apple-asc", "firmware-version"));
    prop = type_property(qts, "apple-agx", "firmware-version");
    g_assert_nonnull(prop);
    qobject_unref(prop);

    /* The generic ASC advertises the management endpoint only */
    prop = type_property(qts, "apple-asc", "system-endpoints");
    g_assert_nonnull(prop);
    g_assert_cmpint(qdict_get_int(prop, "default-value"), ==, 0);
    qobject_unref(prop);

    /* The GPU's: crash log, syslog and ioreport, running firmware 13.5 */
    resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                     "{ 'path': '/machine/gpu-asc', "
                     "'property': 'system-endpoints' } }");
    g_assert_cmphex(qdict_get_int(resp, "return"), ==, 0x16);
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                     "{ 'path': '/machine/gpu-asc', "
                     "'property': 'firmware-version' } }");
    g_assert_cmpstr(qdict_get_str(resp, "return"), ==, "13.5");
    qobject_unref(resp);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-m1/machine/starts-with-t8103-sized-gic",
                   test_machine_starts_with_gic);
    qtest_add_func("/apple-m1/ram/is-read-write-at-8-gib",
                   test_ram_read_write);
    qtest_add_func("/apple-m1/dtb/has-expected-nodes",
                   test_dtb_has_expected_nodes);
    qtest_add_func("/apple-m1/dtb/in-ram-is-the-dumped-one",
                   test_dtb_in_ram_is_the_dumped_one);
    qtest_add_func("/apple-m1/dtb/option-is-honoured",
                   test_dtb_option_is_honoured);
    qtest_add_func("/apple-m1/dtb/describing-nothing-is-refused",
                   test_dtb_describing_nothing_is_refused);
    qtest_add_func("/apple-m1/options/bad-ones-are-rejected",
                   test_bad_options_are_rejected);
    for (int i = 0; i < G_N_ELEMENTS(gpu_abis); i++) {
        g_autofree char *dt = g_strdup_printf("/apple-m1/gpu/%s/dt-contract",
                                              gpu_abis[i].fw);
        g_autofree char *ram = g_strdup_printf("/apple-m1/gpu/%s/blobs-in-ram",
                                               gpu_abis[i].fw);

        qtest_add_data_func(dt, &gpu_abis[i], test_gpu_dt_contract);
        qtest_add_data_func(ram, &gpu_abis[i], test_gpu_blobs_in_ram);
    }
    qtest_add_func("/apple-m1/gpu/seven-cores", test_gpu_seven_cores);
    qtest_add_data_func("/apple-m1/gic/virtio-mmio", "gic", test_virtio_mmio);
    qtest_add_data_func("/apple-m1/t8103/virtio-mmio", "t8103",
                        test_virtio_mmio);
    qtest_add_func("/apple-m1/gpu/info-qtree-shows-it", test_qtree_shows_gpu);
    qtest_add_func("/apple-m1/gpu/policy-is-the-gpus-not-the-ascs",
                   test_gpu_policy);
    qtest_add_func("/apple-m1/t8103/dtb-has-aic", test_t8103_dtb_has_aic);
    qtest_add_func("/apple-m1/t8103/dtb-has-s5l-uart",
                   test_t8103_dtb_has_s5l_uart);
    qtest_add_func("/apple-m1/t8103/power-domains-resolve",
                   test_t8103_power_domains_resolve);
    qtest_add_func("/apple-m1/t8103/gpu-irqs-reach-aic",
                   test_t8103_gpu_irqs_reach_aic);
    qtest_add_func("/apple-m1/t8103/other-blocks-read-zero",
                   test_t8103_other_blocks_read_zero);
    qtest_add_func("/apple-m1/t8103/spin-table", test_t8103_spin_table);
    qtest_add_func("/apple-m1/t8103/spin-table/releases-a-cpu-once",
                   test_t8103_spin_table_releases_once);
    qtest_add_func("/apple-m1/t8103/j274/filled-as-m1n1", test_j274_filled);
    qtest_add_func("/apple-m1/t8103/j274/smp4-drops-cpus", test_j274_smp4);
    qtest_add_func("/apple-m1/t8103/j274/equals-generated",
                   test_j274_equals_generated);
    qtest_add_func("/apple-m1/t8103/j274/mismatch-refused",
                   test_j274_mismatch_refused);
    qtest_add_func("/apple-m1/t8103/j274/refill-is-stable",
                   test_refill_is_stable);
    return g_test_run();
}
