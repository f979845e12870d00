/*
 * qtest library: what drm/asahi does at probe, on MMIO and guest memory
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qobject/qdict.h"
#include "agx-drv.h"
#include "agx-record.h"
#include "agx-fuzz-ops.h"
#include "qtest-migrate.h"
#include <libfdt.h>

#define RAM_BASE                0x800000000ULL
#define POOL_OFFSET             0x10000000ULL       /* 256 MiB into RAM */
#define POOL_SIZE               0x4000000ULL        /* 64 MiB */
#define PAGE                    0x4000ULL

/* Page table descriptors */
#define PTE_VALID               3ULL
#define PTE_AF                  (1ULL << 10)
#define PTE_ATTR(n)             ((uint64_t)(n) << 2)
#define PTE_AP(n)               ((uint64_t)(n) << 6)
#define PTE_PXN                 (1ULL << 53)
#define PTE_UXN                 (1ULL << 54)
#define PTE_OS                  (1ULL << 55)
#define PTE_OA_MASK             0xffffffc000ULL

/* AP1 (firmware), index = UXN:PXN = 2 -> FW RW; attr 0 cached, 2 shared */
const uint64_t AGX_PROT_FW_PRIV_RW = PTE_AP(1) | PTE_UXN | PTE_ATTR(0);
const uint64_t AGX_PROT_FW_SHARED_RW = PTE_AP(1) | PTE_UXN | PTE_ATTR(2);
const uint64_t AGX_PROT_FW_SHARED_RO = PTE_AP(1) | PTE_ATTR(2);
const uint64_t AGX_PROT_GPU_FW_SHARED_RW = PTE_AP(0) | PTE_UXN | PTE_PXN |
                                           PTE_ATTR(2);

static const uint64_t heap_base[AGX_NUM_HEAPS] = {
    [AGX_HEAP_PRIVATE] = 0xffffffa000000000ULL,
    [AGX_HEAP_SHARED] = 0xffffffa800000000ULL,
    [AGX_HEAP_GPU] = 0xffffffac00000000ULL,
    [AGX_HEAP_RTKIT] = 0xffffffae00000000ULL,
};

#define HANDOFF_MAGIC           0x4b1d000000000002ULL

/* The ABI offsets this driver uses: 13.5, and 12.3 where they differ */
typedef struct DrvAbi {
    uint32_t initdata_size;
    uint32_t id_base;                   /* 8 on 13.5 (ver_info), 0 on 12.3 */
    uint32_t globals_size;
    uint32_t hwdata_a_size;
    uint32_t hwdata_b_size;
    uint32_t stats_size;
    uint32_t dc_initialize;
} DrvAbi;

static const DrvAbi abi_13_5 = {
    0xbc, 8, 0x12394, 0x421c, 0x1884, 0x40, 0x1a,
};
/* HwDataA as m1n1's Python driver sizes it (Rust: 0x3d6c) */
static const DrvAbi abi_12_3 = {
    0xb4, 0, 0x11d40, 0x3d68, 0xb6c, 0x30, 0x19,
};

static const DrvAbi *drv_abi(AgxDrv *d)
{
    return d->v12_3 ? &abi_12_3 : &abi_13_5;
}

/* Guest RAM writes by physical address, recorded (AGX_QTEST_RECORD) */
static void ram_w64(AgxDrv *d, uint64_t pa, uint64_t v)
{
    uint64_t le = cpu_to_le64(v);

    agx_record_write(pa, &le, 8);
    qtest_writeq(d->qts, pa, v);
}

static void ram_zero(AgxDrv *d, uint64_t pa, uint64_t len)
{
    agx_record_zero(pa, len);
    qtest_memset(d->qts, pa, 0, len);
}

void agx_drv_write(AgxDrv *d, uint64_t va, const void *buf, size_t len)
{
    uint64_t pa = agx_drv_pa(d, va);

    agx_record_write(pa, buf, len);
    qtest_memwrite(d->qts, pa, buf, len);
}

void agx_drv_read(AgxDrv *d, uint64_t va, void *buf, size_t len)
{
    qtest_memread(d->qts, agx_drv_pa(d, va), buf, len);
}

void agx_drv_w32(AgxDrv *d, uint64_t va, uint32_t v)
{
    uint64_t pa = agx_drv_pa(d, va);
    uint32_t le = cpu_to_le32(v);

    agx_record_write(pa, &le, 4);
    qtest_writel(d->qts, pa, v);
}

void agx_drv_w64(AgxDrv *d, uint64_t va, uint64_t v)
{
    uint64_t pa = agx_drv_pa(d, va);

    ram_w64(d, pa, v);
}

uint32_t agx_drv_r32(AgxDrv *d, uint64_t va)
{
    return qtest_readl(d->qts, agx_drv_pa(d, va));
}

uint64_t agx_drv_r64(AgxDrv *d, uint64_t va)
{
    return qtest_readq(d->qts, agx_drv_pa(d, va));
}

uint64_t agx_drv_pa(AgxDrv *d, uint64_t va)
{
    for (guint i = 0; i < d->mappings->len; i++) {
        AgxDrvMapping *m = &g_array_index(d->mappings, AgxDrvMapping, i);

        if (va >= m->va && va - m->va < m->size) {
            return m->pa + (va - m->va);
        }
    }
    g_test_message("no mapping for VA 0x%" PRIx64, va);
    g_assert_not_reached();
}

static uint64_t pool_alloc(AgxDrv *d, uint64_t size)
{
    uint64_t pa = d->pool_next;

    size = ROUND_UP(size, PAGE);
    g_assert_cmphex(pa + size, <=, d->pool_end);
    d->pool_next += size;
    ram_zero(d, pa, size);
    return pa;
}

/* The PTE slot for @va, creating tables on the way */
static uint64_t pte_addr(AgxDrv *d, uint64_t va)
{
    bool upper = va >> 39;
    uint64_t table = upper ? d->pagetables : d->kernel_lower_root;
    static const int shift[] = { 36, 25, 14 };
    static const uint64_t mask[] = { 7, 0x7ff, 0x7ff };

    for (int level = 0; level < 2; level++) {
        uint64_t slot = table + ((va >> shift[level]) & mask[level]) * 8;
        uint64_t desc = qtest_readq(d->qts, slot);

        if (!(desc & PTE_VALID)) {
            desc = pool_alloc(d, PAGE) | PTE_VALID;
            ram_w64(d, slot, desc);
        }
        table = desc & PTE_OA_MASK;
    }
    return table + ((va >> shift[2]) & mask[2]) * 8;
}

void agx_drv_map(AgxDrv *d, uint64_t va, uint64_t pa, uint64_t size,
                 uint64_t prot)
{
    AgxDrvMapping m = { va, pa, size };

    for (uint64_t off = 0; off < size; off += PAGE) {
        ram_w64(d, pte_addr(d, va + off),
                     (pa + off) | PTE_VALID | PTE_AF | PTE_OS | prot);
    }
    g_array_append_val(d->mappings, m);
}

void agx_drv_unmap(AgxDrv *d, uint64_t va)
{
    ram_w64(d, pte_addr(d, va), 0);
}

uint64_t agx_drv_alloc(AgxDrv *d, AgxDrvHeap heap, uint64_t size,
                       uint64_t prot)
{
    uint64_t va = d->heap_next[heap];
    uint64_t mapped = ROUND_UP(size, PAGE);

    /* A guard page between allocations, like the driver's heaps */
    d->heap_next[heap] += mapped + PAGE;
    agx_drv_map(d, va, pool_alloc(d, mapped), mapped, prot);
    if (heap == AGX_HEAP_RTKIT) {
        return va;              /* RTKit buffers are whole pages */
    }
    /*
     * Objects end flush against the guard page, as m1n1's Python driver
     * can place them: the firmware must read no byte past a structure.
     * (Objects are 4-byte granular; their start is often 4 mod 8.)
     */
    return va + mapped - ROUND_UP(size, 4);
}

/* reserved-memory region of the gpu node named @name */
static bool dt_region(const void *fdt, int gpu, const char *name,
                      uint64_t *base, uint64_t *size)
{
    int len, idx = fdt_stringlist_search(fdt, gpu, "memory-region-names",
                                         name);
    const fdt32_t *ph = fdt_getprop(fdt, gpu, "memory-region", &len);
    const fdt64_t *reg;
    int node;

    if (idx < 0 || !ph || (idx + 1) * 4 > len) {
        return false;
    }
    node = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(ph[idx]));
    g_assert_cmpint(node, >=, 0);
    reg = fdt_getprop(fdt, node, "reg", &len);
    g_assert_nonnull(reg);
    *base = fdt64_to_cpu(reg[0]);
    *size = fdt64_to_cpu(reg[1]);
    return true;
}

static void read_dt(AgxDrv *d)
{
    struct fdt_header hdr;
    g_autofree void *fdt = NULL;
    uint64_t size;
    int gpu;

    qtest_memread(d->qts, RAM_BASE, &hdr, sizeof(hdr));
    g_assert_cmpint(fdt_check_header(&hdr), ==, 0);
    fdt = g_malloc(fdt_totalsize(&hdr));
    qtest_memread(d->qts, RAM_BASE, fdt, fdt_totalsize(&hdr));
    gpu = fdt_node_offset_by_compatible(fdt, -1, "apple,agx-t8103");
    g_assert_cmpint(gpu, >=, 0);
    g_assert_true(dt_region(fdt, gpu, "ttbs", &d->ttbs, &size));
    g_assert_cmphex(size, >=, 0x400);
    g_assert_true(dt_region(fdt, gpu, "pagetables", &d->pagetables, &size));
    g_assert_cmphex(size, >=, PAGE);
    g_assert_true(dt_region(fdt, gpu, "handoff", &d->handoff, &size));
    g_assert_cmphex(size, >=, 0x648);
    dt_region(fdt, gpu, "hw-cal-a", &d->hwcal_a, &d->hwcal_a_size);
    dt_region(fdt, gpu, "hw-cal-b", &d->hwcal_b, &d->hwcal_b_size);
    dt_region(fdt, gpu, "globals", &d->globals_blob, &d->globals_blob_size);
}

static uint64_t drv_alloc_rtkit_buffer(void *opaque, uint64_t size)
{
    return agx_drv_alloc(opaque, AGX_HEAP_RTKIT, size,
                         AGX_PROT_FW_SHARED_RW);
}

static uint64_t drv_iova_to_pa(void *opaque, uint64_t iova)
{
    return agx_drv_pa(opaque, iova);
}

void agx_drv_init(AgxDrv *d, QTestState *qts, const char *fw_version)
{
    memset(d, 0, sizeof(*d));
    d->qts = qts;
    d->v12_3 = !strcmp(fw_version, "12.3");
    d->mappings = g_array_new(false, false, sizeof(AgxDrvMapping));
    d->fwlog = g_ptr_array_new_with_free_func(g_free);
    d->pool_next = RAM_BASE + POOL_OFFSET;
    d->pool_end = d->pool_next + POOL_SIZE;
    memcpy(d->heap_next, heap_base, sizeof(heap_base));
    rtkit_ap_init(&d->ap, qts, AGX_DRV_ASC_BASE, 0, 0);
    d->ap.alloc_iova = drv_alloc_rtkit_buffer;
    d->ap.iova_to_pa = drv_iova_to_pa;
    d->ap.iova_opaque = d;
    read_dt(d);
    /* A recording starts with QEMU, whose virtual clock starts at 0 */
    agx_record_open(d->v12_3, d->handoff, d->ttbs, 0);
}

void agx_drv_free(AgxDrv *d)
{
    rtkit_ap_free(&d->ap);
    g_array_free(d->mappings, true);
    g_ptr_array_free(d->fwlog, true);
}

static QTestState *drv_qemu(const char *fw, const char *log,
                             const char *extra, const char *incoming)
{
    return qtest_initf("-M apple-m1,gpu-firmware=%s -m 1G "
                       "-d guest_errors,unimp -D %s %s%s %s", fw, log,
                       incoming ? "-incoming " : "", incoming ?: "", extra);
}

void agx_drv_start(AgxDrv *d, const char *fw_version, const char *extra)
{
    static int seq;
    char *log = g_strdup_printf("%s/agx-qtest-%d-%d.log", g_get_tmp_dir(),
                                getpid(), seq++);

    agx_drv_init(d, drv_qemu(fw_version, log, extra ?: "", NULL), fw_version);
    d->fw_version = g_strdup(fw_version);
    d->extra_args = g_strdup(extra ?: "");
    d->log_path = log;
}

void agx_drv_reinit(AgxDrv *d)
{
    char *fw = d->fw_version, *extra = d->extra_args, *log = d->log_path;

    agx_drv_free(d);
    agx_drv_init(d, d->qts, fw);
    d->fw_version = fw;
    d->extra_args = extra;
    d->log_path = log;
}

int64_t agx_drv_clock_step(AgxDrv *d, int64_t ns)
{
    int64_t now = qtest_clock_step(d->qts, ns);

    agx_record_clock(now);
    d->now = now;
    return now;
}

int64_t agx_drv_clock_step_next(AgxDrv *d)
{
    int64_t now = qtest_clock_step_next(d->qts);

    if (now >= 0) {
        agx_record_clock(now);
        d->now = now;
    }
    return now;
}

/* Arm the next job's fault through the device's inject-fault property */
void agx_drv_inject(AgxDrv *d, const char *what)
{
    static const char *const names[] = {
        [FUZZ_INJECT_NONE] = "none",
        [FUZZ_INJECT_GPU_FAULT] = "gpu-fault",
        [FUZZ_INJECT_TIMEOUT] = "timeout",
        [FUZZ_INJECT_CHANNEL_ERROR] = "channel-error",
        [FUZZ_INJECT_GROW_TVB] = "grow-tvb",
    };

    qtest_qmp_assert_success(d->qts, "{'execute': 'qom-set', 'arguments': "
                             "{'path': '/machine/gpu-asc', 'property': "
                             "'inject-fault', 'value': %s}}", what);
    for (int i = 0; i < G_N_ELEMENTS(names); i++) {
        if (!strcmp(what, names[i])) {
            agx_record_inject(i);
        }
    }
}

/* The device's own account of the firmware, for the recorded session */
uint64_t agx_drv_qom_uint(AgxDrv *d, const char *prop)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': '/machine/gpu-asc', 'property': %s}}",
                           prop);
    uint64_t v = qdict_get_int(rsp, "return");

    qobject_unref(rsp);
    return v;
}

static void drv_record_outcome(AgxDrv *d)
{
    QDict *rsp;
    const char *state;
    uint64_t jobs;

    if (!agx_record_active()) {
        return;
    }
    jobs = agx_drv_qom_uint(d, "jobs-done");
    rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': {"
                    "'path': '/machine/gpu-asc', "
                    "'property': 'firmware-state'}}");
    state = qdict_get_str(rsp, "return");
    agx_record_outcome(state, jobs);
    qobject_unref(rsp);
}

void agx_drv_stop(AgxDrv *d)
{
    drv_record_outcome(d);
    agx_record_close();
    qtest_quit(d->qts);
    if (!g_getenv("AGX_KEEP_LOGS")) {
        unlink(d->log_path);
    } else {
        g_test_message("log kept: %s", d->log_path);
    }
    g_free(d->log_path);
    g_free(d->fw_version);
    g_free(d->extra_args);
    agx_drv_free(d);
}

bool agx_drv_logged(AgxDrv *d, const char *fragment)
{
    for (int i = 0; i < 100; i++) {
        g_autofree char *log = NULL;

        /* Any qtest command lets the main loop run pending BHs */
        qtest_readl(d->qts, AGX_DRV_ASC_BASE + 0x44);
        g_assert_true(g_file_get_contents(d->log_path, &log, NULL, NULL));
        if (strstr(log, fragment)) {
            return true;
        }
    }
    return false;
}

bool agx_drv_crashed(AgxDrv *d)
{
    return qtest_qom_get_bool(d->qts, "/machine/gpu-asc", "crashed");
}

void agx_drv_migrate(AgxDrv *d)
{
    g_autofree char *uri = g_strdup_printf("file:%s.mig", d->log_path);
    QTestState *dst;

    qtest_qmp_assert_success(d->qts, "{'execute': 'migrate', 'arguments': "
                             "{'uri': %s}}", uri);
    agx_qtest_wait_migration(d->qts);
    dst = drv_qemu(d->fw_version, d->log_path, d->extra_args, uri);
    agx_qtest_wait_migration(dst);
    /*
     * qtest's virtual clock is not migrated: the destination's starts at
     * 0 while the device's timers keep the source's deadlines.  Set it to
     * the source's time (no time passes for the guest, none is recorded)
     */
    /*
     * qtest's virtual clock is not migrated: the destination's starts at
     * 0 while the device's timers keep the source's deadlines.  Take it
     * to the source's time (nothing runs before it; no step is recorded)
     */
    if (d->now > 0) {
        qtest_clock_set(dst, d->now);
    }
    qtest_quit(d->qts);
    d->qts = d->ap.qts = dst;
    unlink(uri + strlen("file:"));
}

void agx_drv_setup_uat(AgxDrv *d)
{
    /* The driver owns pagetables entry 2 and everything below it */
    ram_zero(d, d->pagetables, PAGE);
    d->kernel_lower_root = pool_alloc(d, PAGE);
    ram_zero(d, d->ttbs, 64 * 16);
    ram_w64(d, d->ttbs, d->kernel_lower_root | 1);
    ram_w64(d, d->ttbs + 8, d->pagetables | 1);

    /* Handoff::init: AP magic, no active slot, no flush requests */
    ram_zero(d, d->handoff, 0x648);
    ram_w64(d, d->handoff, HANDOFF_MAGIC);
}

void agx_drv_check_gpu_id(AgxDrv *d)
{
    uint32_t id = qtest_readl(d->qts, AGX_DRV_SGX_BASE + 0xd04000);
    uint32_t counts = qtest_readl(d->qts, AGX_DRV_SGX_BASE + 0xd04010);
    uint32_t clusters = qtest_readl(d->qts, AGX_DRV_SGX_BASE + 0xd0401c);
    uint32_t mask = qtest_readl(d->qts, AGX_DRV_SGX_BASE + 0xd01500);

    g_assert_cmphex(id >> 24, ==, 4);                   /* G13 */
    g_assert_cmphex((id >> 16) & 0xff, ==, 2);          /* G */
    g_assert_cmpuint(counts & 0xff, ==, 8);
    g_assert_cmpuint((clusters >> 12) & 0xff, ==, 1);
    g_assert_cmphex(mask & ~0xffu, ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, AGX_DRV_SGX_BASE + 0xd01514), ==, 0);
}

static void setup_ring(AgxDrv *d, int idx, uint64_t desc_va, uint32_t count,
                       uint32_t elem_size, uint32_t state_size,
                       uint32_t wptr_off, AgxDrvHeap ring_heap)
{
    AgxDrvRing *r = &d->rings[idx];

    r->state_va = agx_drv_alloc(d, AGX_HEAP_SHARED, state_size,
                                AGX_PROT_FW_SHARED_RW);
    r->ring_va = agx_drv_alloc(d, ring_heap, (uint64_t)count * elem_size,
                               ring_heap == AGX_HEAP_PRIVATE ?
                               AGX_PROT_FW_PRIV_RW : AGX_PROT_FW_SHARED_RW);
    r->count = count;
    r->elem_size = elem_size;
    r->wptr_off = wptr_off;
    r->valid = true;
    agx_drv_w64(d, desc_va, r->state_va);
    agx_drv_w64(d, desc_va + 8, r->ring_va);
}

static void copy_blob(AgxDrv *d, uint64_t va, uint64_t blob, uint64_t size,
                      uint64_t want)
{
    g_autofree uint8_t *buf = NULL;

    if (!blob || size < want) {
        return;
    }
    buf = g_malloc(want);
    qtest_memread(d->qts, blob, buf, want);
    agx_drv_write(d, va, buf, want);
}

void agx_drv_build_initdata(AgxDrv *d)
{
    const DrvAbi *abi = drv_abi(d);
    uint64_t id, b = abi->id_base;

    id = agx_drv_alloc(d, AGX_HEAP_PRIVATE, abi->initdata_size,
                       AGX_PROT_FW_PRIV_RW);
    d->initdata_va = id;
    d->rp_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE, 0x6bc0,
                             AGX_PROT_FW_PRIV_RW);
    d->globals_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE, abi->globals_size,
                                  AGX_PROT_FW_PRIV_RW);
    d->fw_status_va = agx_drv_alloc(d, AGX_HEAP_SHARED, 0x80,
                                    AGX_PROT_FW_SHARED_RW);
    d->hwdata_a_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE, abi->hwdata_a_size,
                                   AGX_PROT_FW_PRIV_RW);
    d->hwdata_b_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE, abi->hwdata_b_size,
                                   AGX_PROT_FW_PRIV_RW);
    d->fwlog_buf_va = agx_drv_alloc(d, AGX_HEAP_SHARED, 6 * 0x100 * 0xd8,
                                    AGX_PROT_FW_SHARED_RW);
    /* D-blob drivers copy the calibration blobs verbatim */
    copy_blob(d, d->hwdata_a_va, d->hwcal_a, d->hwcal_a_size,
              abi->hwdata_a_size);
    copy_blob(d, d->hwdata_b_va, d->hwcal_b, d->hwcal_b_size,
              abi->hwdata_b_size);
    copy_blob(d, d->globals_va, d->globals_blob, d->globals_blob_size,
              abi->globals_size);

    /* InitData */
    if (!d->v12_3) {
        agx_drv_w64(d, id, 0x00b006011f286ba0ULL);      /* ver_info */
    }
    agx_drv_w64(d, id + b + 0x00, agx_drv_alloc(d, AGX_HEAP_SHARED, PAGE,
                                                AGX_PROT_FW_SHARED_RO));
    agx_drv_w64(d, id + b + 0x10, d->rp_va);
    agx_drv_w64(d, id + b + 0x18, d->globals_va);
    agx_drv_w64(d, id + b + 0x20, d->fw_status_va);
    agx_drv_w32(d, id + b + 0x28, 0x4000 | 14 << 16 | 3 << 24);
    for (int l = 0; l < 3; l++) {
        static const uint8_t shift[] = { 36, 25, 14 };
        static const uint16_t entries[] = { 8, 2048, 2048 };
        uint64_t li = id + b + 0x2c + l * 0x20;

        agx_drv_w32(d, li, 8 | 14 << 8 | 14 << 16 | shift[l] << 24);
        agx_drv_w32(d, li + 4, entries[l] | 0x4000 << 16);
        agx_drv_w64(d, li + 8, 1);
        agx_drv_w64(d, li + 0x10, 0xffffffc000ULL);
        agx_drv_w64(d, li + 0x18, (uint64_t)(entries[l] - 1) << shift[l]);
    }
    agx_drv_w32(d, id + b + 0xa0, 1);       /* host_mapped_fw_allocations */

    /* Channels: TX rings private, RX rings and all states shared */
    for (int prio = 0; prio < 4; prio++) {
        for (int type = 0; type < 3; type++) {
            setup_ring(d, AGX_DRV_RING_PIPE0 + (type | prio << 2),
                       d->rp_va + prio * 0x30 + type * 0x10, 0x100, 0x30,
                       0x30, 0x20, AGX_HEAP_PRIVATE);
        }
    }
    setup_ring(d, AGX_DRV_RING_DEVCTRL, d->rp_va + 0xc0, 0x100, 0x30, 0x30,
               0x20, AGX_HEAP_PRIVATE);
    setup_ring(d, AGX_DRV_RING_EVENT, d->rp_va + 0xd0, 0x100, 0x38, 0x30,
               0x20, AGX_HEAP_SHARED);
    setup_ring(d, AGX_DRV_RING_FWLOG0, d->rp_va + 0xe0, 6 * 0x100, 0x38,
               6 * 0x30, 0x20, AGX_HEAP_SHARED);
    for (int i = 1; i < 6; i++) {
        d->rings[AGX_DRV_RING_FWLOG0 + i] = d->rings[AGX_DRV_RING_FWLOG0];
    }
    for (int i = 0; i < 6; i++) {
        AgxDrvRing *r = &d->rings[AGX_DRV_RING_FWLOG0 + i];

        r->state_va += i * 0x30;
        r->count = 0x100;
        r->first = i * 0x100;
    }
    setup_ring(d, AGX_DRV_RING_KTRACE, d->rp_va + 0xf0, 0x200, 0x38, 0x30,
               0x20, AGX_HEAP_SHARED);
    setup_ring(d, AGX_DRV_RING_STATS, d->rp_va + 0x100, 0x100,
               abi->stats_size, 0x30, 0x20, AGX_HEAP_SHARED);
    setup_ring(d, AGX_DRV_RING_FWCTL, d->fw_status_va, 0x100, 0x14, 0x20,
               0x10, AGX_HEAP_SHARED);
    agx_drv_w64(d, d->rp_va + 0x188, d->hwdata_a_va);
    agx_drv_w64(d, d->rp_va + 0x1a0, d->hwdata_b_va);
    agx_drv_w64(d, d->rp_va + 0x1a8, d->hwdata_b_va);
    agx_drv_w64(d, d->rp_va + 0x1b0, d->fwlog_buf_va);
}

void agx_drv_tx(AgxDrv *d, int ring, const void *elem)
{
    AgxDrvRing *r = &d->rings[ring];
    uint32_t next = (r->ptr + 1) % r->count;

    g_assert_true(r->valid);
    g_assert_cmpuint(next, !=, agx_drv_tx_rptr(d, ring));
    agx_drv_write(d, r->ring_va + (uint64_t)(r->first + r->ptr) *
                  r->elem_size, elem, r->elem_size);
    r->ptr = next;
    agx_drv_w32(d, r->state_va + r->wptr_off, next);
}

uint32_t agx_drv_tx_rptr(AgxDrv *d, int ring)
{
    return agx_drv_r32(d, d->rings[ring].state_va);
}

bool agx_drv_wait_consumed(AgxDrv *d, int ring)
{
    for (int i = 0; i < 1000; i++) {
        if (agx_drv_tx_rptr(d, ring) == d->rings[ring].ptr) {
            return true;
        }
    }
    return false;
}

bool agx_drv_rx(AgxDrv *d, int ring, void *elem)
{
    AgxDrvRing *r = &d->rings[ring];
    uint32_t wptr = agx_drv_r32(d, r->state_va + r->wptr_off);

    g_assert_cmpuint(wptr, <, r->count);
    if (wptr == r->ptr) {
        return false;
    }
    agx_drv_read(d, r->ring_va + (uint64_t)(r->first + r->ptr) *
                 r->elem_size, elem, r->elem_size);
    r->ptr = (r->ptr + 1) % r->count;
    agx_drv_w32(d, r->state_va, r->ptr);
    return true;
}

void agx_drv_doorbell(AgxDrv *d, uint16_t channel)
{
    rtkit_ap_send(&d->ap, 0x21, (0x83ULL << 48) | channel);
}

void agx_drv_fwctl_doorbell(AgxDrv *d)
{
    rtkit_ap_send(&d->ap, 0x21, 0x84ULL << 48);
}

void agx_drv_queue_initialize(AgxDrv *d)
{
    uint8_t msg[0x30] = { 0 };

    stl_le_p(msg, drv_abi(d)->dc_initialize);
    agx_drv_tx(d, AGX_DRV_RING_DEVCTRL, msg);
}

void agx_drv_update_idle_ts(AgxDrv *d)
{
    uint8_t msg[0x30] = { 0 };

    stl_le_p(msg, 0x23);                    /* m1n1 DC_UpdateIdleTS */
    agx_drv_tx(d, AGX_DRV_RING_DEVCTRL, msg);
    agx_drv_doorbell(d, 0x11);
    g_assert_true(agx_drv_wait_consumed(d, AGX_DRV_RING_DEVCTRL));
}

void agx_drv_start_firmware(AgxDrv *d)
{
    rtkit_ap_set_run(&d->ap, true);
    /* Handoff::init polls the firmware's magic (the driver: up to 1 s) */
    for (int i = 0; i < 100; i++) {
        if (qtest_readq(d->qts, d->handoff + 8) == HANDOFF_MAGIC) {
            break;
        }
    }
    g_assert_cmphex(qtest_readq(d->qts, d->handoff + 8), ==, HANDOFF_MAGIC);
    rtkit_ap_boot(&d->ap);
    rtkit_ap_start_ep(&d->ap, 0x20);
    rtkit_ap_start_ep(&d->ap, 0x21);
}

void agx_drv_send_init(AgxDrv *d)
{
    rtkit_ap_send(&d->ap, 0x20, (0x81ULL << 48) |
                  (d->initdata_va & ((1ULL << 44) - 1)));
}

void agx_drv_kick_devctrl(AgxDrv *d)
{
    agx_drv_doorbell(d, 0x11);
    g_assert_true(agx_drv_wait_consumed(d, AGX_DRV_RING_DEVCTRL));
    agx_drv_doorbell(d, 0x10);
}

void agx_drv_probe(AgxDrv *d)
{
    agx_drv_setup_uat(d);
    agx_drv_check_gpu_id(d);
    agx_drv_build_initdata(d);
    agx_drv_queue_initialize(d);
    agx_drv_start_firmware(d);
    agx_drv_send_init(d);
    agx_drv_kick_devctrl(d);
}

void agx_drv_poll_fwlog(AgxDrv *d)
{
    uint8_t elem[0x38], payload[0xd8];

    for (int i = 0; i < 6; i++) {
        int ring = AGX_DRV_RING_FWLOG0 + i;

        while (agx_drv_rx(d, ring, elem)) {
            uint64_t idx = ldq_le_p(elem + 8);

            g_assert_cmpuint(ldl_le_p(elem), ==, 2);
            g_assert_cmpuint(idx, <, 0x100);
            agx_drv_read(d, d->fwlog_buf_va + (i * 0x100 + idx) * 0xd8,
                         payload, sizeof(payload));
            g_assert_cmpuint(ldl_le_p(payload), ==, 3);
            payload[sizeof(payload) - 1] = 0;
            g_ptr_array_add(d->fwlog, g_strdup((char *)payload + 0x10));
        }
    }
}

bool agx_drv_fwlog_has(AgxDrv *d, const char *fragment)
{
    agx_drv_poll_fwlog(d);
    for (guint i = 0; i < d->fwlog->len; i++) {
        if (strstr(g_ptr_array_index(d->fwlog, i), fragment)) {
            return true;
        }
    }
    return false;
}
