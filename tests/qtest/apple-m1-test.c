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
#include <libfdt.h>

#define RAM_BASE        0x800000000ULL
#define GICD_BASE       0x008000000ULL
#define GICD_TYPER      0x4
#define T8103_SPIS      896

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

static uint64_t prop_u64(const void *dtb, int off, const char *name, int idx)
{
    int len;
    const fdt64_t *p = fdt_getprop(dtb, off, name, &len);

    g_assert_nonnull(p);
    g_assert_cmpint(len, >=, (idx + 1) * 8);
    return fdt64_to_cpu(p[idx]);
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

    off = node_offset(dtb, "/memory");
    g_assert_cmphex(prop_u64(dtb, off, "reg", 0), ==, RAM_BASE);
    g_assert_cmphex(prop_u64(dtb, off, "reg", 1), ==, 2 * GiB);

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

static void test_dtb_option_is_honoured(void)
{
    g_autofree char *path = g_strdup_printf("%s/apple-m1-user-%d.dtb",
                                            g_get_tmp_dir(), getpid());
    g_autofree void *dtb = g_malloc0(4096);
    g_autofree void *ram_dtb = NULL;
    QTestState *qts;
    int off;

    /* A user DTB that the generated one would never contain */
    g_assert_cmpint(fdt_create_empty_tree(dtb, 4096), ==, 0);
    g_assert_cmpint(fdt_setprop_string(dtb, 0, "model", "user-dtb"), ==, 0);
    g_assert_cmpint(fdt_setprop_cell(dtb, 0, "#address-cells", 2), ==, 0);
    g_assert_cmpint(fdt_setprop_cell(dtb, 0, "#size-cells", 2), ==, 0);
    g_assert_cmpint(fdt_add_subnode(dtb, 0, "chosen"), >=, 0);
    fdt_pack(dtb);
    g_assert_true(g_file_set_contents(path, dtb, fdt_totalsize(dtb), NULL));

    qts = qtest_initf("-M apple-m1 -dtb %s", path);
    ram_dtb = read_ram_dtb(qts);
    off = node_offset(ram_dtb, "/");
    g_assert_cmpstr(fdt_getprop(ram_dtb, off, "model", NULL), ==, "user-dtb");
    g_assert_cmpint(fdt_node_offset_by_compatible(ram_dtb, -1, "arm,pl011"),
                    <, 0);
    qtest_quit(qts);
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
    };

    for (int i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree char *err = NULL;

        g_assert_cmpint(run_qemu(cases[i].args, &err), !=, 0);
        if (!strstr(err, cases[i].msg)) {
            g_test_message("'%s' said: %s", cases[i].args, err);
            g_assert_not_reached();
        }
    }
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
    qtest_add_func("/apple-m1/options/bad-ones-are-rejected",
                   test_bad_options_are_rejected);
    return g_test_run();
}
