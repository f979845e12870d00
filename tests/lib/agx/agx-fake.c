/*
 * In-process test bed for the AGX firmware core
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "agx-fake.h"
#include "hw/agx/agx-frag.h"
#include "unit-helpers.h"

/* Physical layout of the fake RAM */
#define PA_TTBAT        (FAKE_RAM_BASE + 0x0000)
#define PA_ROOT         (FAKE_RAM_BASE + 0x4000)
#define PA_L1           (FAKE_RAM_BASE + 0x8000)
#define PA_L2           (FAKE_RAM_BASE + 0xc000)    /* 32 MiB per table */
#define PA_HANDOFF      (FAKE_RAM_BASE + 0x14000)
#define PA_MAPPED       (FAKE_RAM_BASE + 0x100000)

/* FW read/write page: AP1, UXN, AF, OS bit, attr 2 */
#define PTE_FW_RW       ((1ULL << 6) | (1ULL << 54) | (1ULL << 10) | \
                         (1ULL << 55) | (2ULL << 2) | 3)

/*
 * Driver-mapped pages the GPU may read and write (AP0, UXN, PXN) or only
 * read (AP1, UXN, PXN), for the firmware nothing (its tables)
 */
#define PTE_GPU_RW      ((1ULL << 55) | (1ULL << 54) | (1ULL << 53) | \
                         (1ULL << 10) | (2ULL << 2) | 3)
#define PTE_GPU_RO      (PTE_GPU_RW | (1ULL << 6))

/* Timers one fake_advance() fires at most (a 1 ms poll: 65 s) */
#define FAKE_MAX_TIMERS 65536

/* Dirty tracking granule: small, so that restoring copies little */
#define FAKE_PAGE       0x1000ULL
#define FAKE_PAGES      (FAKE_RAM_SIZE / FAKE_PAGE + 1)
/* How far callers write through one fake_ptr() (a microsequence: 12 KiB) */
#define FAKE_PTR_REACH  0x3000ULL

/* Note RAM bytes [off, off + len) as changed since the snapshot */
static void fake_mark(Fake *f, uint64_t off, uint64_t len)
{
    if (!f->dirty || !len) {
        return;
    }
    for (uint64_t p = off / FAKE_PAGE; p <= (off + len - 1) / FAKE_PAGE &&
         p < FAKE_PAGES; p++) {
        if (!f->dirty[p]) {
            f->dirty[p] = 1;
            f->dirty_list[f->dirty_count++] = p;
        }
    }
}

/*
 * Boot mode: sparse RAM of 4 KiB pages over the machine's whole RAM
 * range, created on first write; absent pages read as zeros
 */
static bool fake_sparse_rw(Fake *f, uint64_t pa, uint8_t *buf, uint64_t len,
                           bool is_write)
{
    if (pa < FAKE_RAM_BASE || len > FAKE_BOOT_RAM_SIZE ||
        pa - FAKE_RAM_BASE > FAKE_BOOT_RAM_SIZE - len) {
        return false;
    }
    while (len) {
        uint64_t pfn = pa / FAKE_PAGE, off = pa % FAKE_PAGE;
        uint64_t n = MIN(len, FAKE_PAGE - off);
        uint8_t *page = g_hash_table_lookup(f->pages, &pfn);

        if (is_write) {
            if (!page) {
                uint64_t *key = g_new(uint64_t, 1);

                *key = pfn;
                page = g_malloc0(FAKE_PAGE);
                g_hash_table_insert(f->pages, key, page);
            }
            memcpy(page + off, buf, n);
        } else if (page) {
            memcpy(buf, page + off, n);
        } else {
            memset(buf, 0, n);
        }
        pa += n;
        buf += n;
        len -= n;
    }
    return true;
}

static bool fake_phys_rw(void *opaque, uint64_t pa, void *buf, uint64_t len,
                         bool is_write)
{
    Fake *f = opaque;

    if (f->pages) {
        return fake_sparse_rw(f, pa, buf, len, is_write);
    }
    if (!flat_ram_rw(f->ram, FAKE_RAM_BASE, FAKE_RAM_SIZE, pa, buf, len,
                     is_write)) {
        return false;
    }
    if (is_write) {
        fake_mark(f, pa - FAKE_RAM_BASE, len);
    }
    return true;
}

static int64_t fake_now(void *opaque)
{
    return ((Fake *)opaque)->now;
}

static void fake_guest_error(void *opaque, const char *msg)
{
    Fake *f = opaque;

    /* Fuzzing: inputs err all the time, and nobody reads the list */
    if (!f->lenient) {
        g_ptr_array_add(f->errors, g_strdup(msg));
    }
}

static void fake_log(void *opaque, int level, const char *msg)
{
}

static void fake_timer_mod(void *opaque, int64_t deadline)
{
    ((Fake *)opaque)->timer = deadline;
}

static bool fake_guest_error_on(void *opaque)
{
    return !((Fake *)opaque)->lenient;
}

static const AgxFwOps fake_fw_ops = {
    .phys_rw = fake_phys_rw,
    .now_ns = fake_now,
    .guest_error = fake_guest_error,
    .guest_error_on = fake_guest_error_on,
    .log = fake_log,
    .timer_mod = fake_timer_mod,
};

/* RTKit buffers the AP gave: firmware VAs in the kernel context */
static bool fake_rtk_buf_rw(void *opaque, uint64_t iova, void *buf,
                            uint64_t len, bool is_write)
{
    Fake *f = opaque;
    AgxUatFault fault;

    if (iova & (1ULL << 43)) {
        iova |= ~((1ULL << 44) - 1);
    }
    return agx_uat_rw(&f->fw.uat, 0, iova, buf, len, AGX_UAT_FW, is_write,
                      &fault);
}

static void fake_outbox_notify(void *opaque)
{
}

static const RTKitOps fake_rtk_ops = {
    .buf_rw = fake_rtk_buf_rw,
    .outbox_notify = fake_outbox_notify,
    .guest_error = fake_guest_error,
    .now_ns = fake_now,
};

static void pst64(Fake *f, uint64_t pa, uint64_t v)
{
    fake_mark(f, pa - FAKE_RAM_BASE, 8);
    apple_st64(f->ram + (pa - FAKE_RAM_BASE), v);
}

bool fake_va_ok(uint64_t va, uint64_t len)
{
    return va >= FAKE_KVA_BASE && len <= FAKE_MAPPED &&
           va - FAKE_KVA_BASE <= FAKE_MAPPED - len;
}

/* A pointer into the fake kernel map, RAM bytes [va, va + len) dirtied */
void *fake_ptr_n(Fake *f, uint64_t va, uint64_t len)
{
    g_assert_cmphex(va, >=, FAKE_KVA_BASE);
    g_assert_cmphex(va - FAKE_KVA_BASE, <, FAKE_MAPPED);
    fake_mark(f, (PA_MAPPED - FAKE_RAM_BASE) + (va - FAKE_KVA_BASE), len);
    return f->ram + (PA_MAPPED - FAKE_RAM_BASE) + (va - FAKE_KVA_BASE);
}

void *fake_ptr(Fake *f, uint64_t va)
{
    /* Callers may write through it, up to FAKE_PTR_REACH bytes */
    return fake_ptr_n(f, va, FAKE_PTR_REACH);
}

uint32_t fake_ld32(Fake *f, uint64_t va)
{
    return apple_ld32(fake_ptr_n(f, va, 0));
}

uint64_t fake_ld64(Fake *f, uint64_t va)
{
    return apple_ld64(fake_ptr_n(f, va, 0));
}

void fake_set_pte(Fake *f, unsigned index, uint64_t pte)
{
    pst64(f, PA_L2 + (index % 0x800) * 8, pte);
}

/* The PA of fake kernel memory */
static uint64_t fake_kva_pa(uint64_t kva)
{
    return PA_MAPPED + (kva - FAKE_KVA_BASE);
}

/* The next-level table entry @index of the table at @pa, made if absent */
static uint64_t fake_gpu_table(Fake *f, uint64_t pa, unsigned index)
{
    uint64_t *e = (uint64_t *)(f->ram + (pa - FAKE_RAM_BASE) + 8 * index);
    uint64_t next = apple_ld64((uint8_t *)e);

    if (!(next & 1)) {
        next = fake_kva_pa(fake_alloc(f, 0x4000)) | 3;
        pst64(f, pa + 8 * index, next);
    }
    return next & ~0x3fffULL & ((1ULL << 40) - 1);
}

void fake_map_gpu(Fake *f, unsigned slot, uint64_t va, uint64_t kva,
                  uint64_t size, bool writable)
{
    bool upper = va >= AGX_UAT_UPPER_BASE;
    uint64_t ttb = PA_TTBAT + 16 * slot + (upper ? 8 : 0), root;

    g_assert_cmpuint(slot, <, AGX_UAT_NUM_SLOTS);
    g_assert_cmphex(va % 0x4000 | kva % 0x4000, ==, 0);
    g_assert_cmphex((va & ((1ULL << AGX_UAT_IAS) - 1)) + size, <=,
                    1ULL << AGX_UAT_IAS);
    g_assert_true(fake_va_ok(kva, size));
    root = apple_ld64(f->ram + (ttb - FAKE_RAM_BASE));
    if (!(root & 1)) {
        root = fake_kva_pa(fake_alloc(f, 0x4000)) | 1;
        pst64(f, ttb, root);
    }
    root &= ~0x3fffULL & ((1ULL << 40) - 1);
    for (uint64_t off = 0; off < size; off += 0x4000) {
        uint64_t v = va + off;
        uint64_t l1 = fake_gpu_table(f, root, (v >> 36) & 7);
        uint64_t l2 = fake_gpu_table(f, l1, (v >> 25) & 0x7ff);

        pst64(f, l2 + ((v >> 14) & 0x7ff) * 8,
              writable ? fake_kva_pa(kva + off) | PTE_GPU_RW
                       : fake_kva_pa(kva + off) | PTE_GPU_RO);
    }
}

bool fake_can_alloc(Fake *f, uint64_t size)
{
    return f->next_va + APPLE_ROUND_UP(size, 0x4000) - FAKE_KVA_BASE <=
           FAKE_MAPPED;
}

void fake_unmap(Fake *f, uint64_t va)
{
    pst64(f, PA_L2 + ((va >> 14) & 0x7ff) * 8, 0);
}

uint64_t fake_alloc(Fake *f, uint64_t size)
{
    uint64_t va = f->next_va, off;

    size = APPLE_ROUND_UP(size, 0x4000);
    g_assert_cmphex(va + size - FAKE_KVA_BASE, <=, FAKE_MAPPED);
    f->next_va += size;
    off = (PA_MAPPED - FAKE_RAM_BASE) + (va - FAKE_KVA_BASE);
    if (!f->dirty) {
        memset(f->ram + off, 0, size);
        return va;
    }
    /*
     * After a snapshot, what was never allocated before it is still zero
     * unless written since: clear only those pages
     */
    for (uint64_t p = off / FAKE_PAGE; p < (off + size) / FAKE_PAGE; p++) {
        if (f->dirty[p]) {
            memset(f->ram + p * FAKE_PAGE, 0, FAKE_PAGE);
        }
    }
    return va;
}

/* An event ring the driver never falls behind on (we drain it) */
static void fake_setup_event_ring(Fake *f)
{
    AgxChannel *ch = &f->fw.ch[AGX_CH_EVENT];

    ch->name = "event";
    ch->state_va = fake_alloc(f, 0x30);
    ch->ring_va = fake_alloc(f, 0x100 * AGX_EVENT_SIZE);
    ch->count = 0x100;
    ch->elem_size = AGX_EVENT_SIZE;
    ch->wptr_off = 0x20;
    ch->valid = true;
}

void fake_init(Fake *f, AgxFwVersion version)
{
    memset(f, 0, sizeof(*f));
    f->ram = g_malloc0(FAKE_RAM_SIZE);
    f->errors = g_ptr_array_new_with_free_func(g_free);
    f->timer = -1;
    f->now = 1000000;
    f->next_va = FAKE_KVA_BASE;
    f->layout = agx_cmd_layout(version == AGX_FW_V12_3);

    /* Slot 0 TTBR1 -> root; entry 2 -> L1; L1[0] -> L2: a linear map */
    pst64(f, PA_TTBAT + 8, PA_ROOT | 1);
    pst64(f, PA_ROOT + 2 * 8, PA_L1 | 3);
    pst64(f, PA_L1, PA_L2 | 3);
    for (uint64_t off = 0; off < FAKE_MAPPED; off += 0x4000) {
        pst64(f, PA_L2 + (off >> 14) * 8, (PA_MAPPED + off) | PTE_FW_RW);
    }

    f->rtk.sys_eps = (1u << RTKIT_EP_CRASHLOG) | (1u << RTKIT_EP_SYSLOG) |
                     (1u << RTKIT_EP_IOREPORT);
    rtkit_init(&f->rtk, &fake_rtk_ops, f);
    agx_fw_init(&f->fw, &fake_fw_ops, f, &f->rtk, agx_abi_get(version),
                PA_HANDOFF, PA_TTBAT);
    rtkit_cpu_start(&f->rtk);
    agx_fw_cpu_start(&f->fw);
    f->fw.state = AGX_FW_RUNNING;
    f->fw.globals_va = fake_alloc(f, f->fw.abi->globals_size);
    f->fw.fw_status_va = fake_alloc(f, AGX_FWS_SIZE);
    fake_setup_event_ring(f);
    f->stamps_va = fake_alloc(f, AGX_NUM_EVENT_SLOTS * 4);
    f->fw_stamps_va = fake_alloc(f, AGX_NUM_EVENT_SLOTS * 4);
}

void fake_init_boot(Fake *f, AgxFwVersion version, uint64_t handoff,
                    uint64_t ttbs)
{
    memset(f, 0, sizeof(*f));
    f->pages = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                     g_free);
    f->errors = g_ptr_array_new_with_free_func(g_free);
    f->timer = -1;
    f->now = 1000000;
    f->layout = agx_cmd_layout(version == AGX_FW_V12_3);
    /* What a G13 firmware advertises, as the device does */
    f->rtk.sys_eps = (1u << RTKIT_EP_CRASHLOG) | (1u << RTKIT_EP_SYSLOG) |
                     (1u << RTKIT_EP_IOREPORT);
    rtkit_init(&f->rtk, &fake_rtk_ops, f);
    agx_fw_init(&f->fw, &fake_fw_ops, f, &f->rtk, agx_abi_get(version),
                handoff, ttbs);
}

/* A range larger than what is allocated: walk the pages, not the range */
static void fake_sparse_zero_big(Fake *f, uint64_t pa, uint64_t len)
{
    GHashTableIter it;
    gpointer key, page;
    uint64_t end = pa > UINT64_MAX - len ? UINT64_MAX : pa + len;

    g_hash_table_iter_init(&it, f->pages);
    while (g_hash_table_iter_next(&it, &key, &page)) {
        uint64_t start = *(uint64_t *)key * FAKE_PAGE;
        uint64_t lo = MAX(start, pa), hi = MIN(start + FAKE_PAGE, end);

        if (lo >= hi) {
            continue;
        }
        if (hi - lo == FAKE_PAGE) {
            g_hash_table_iter_remove(&it);
        } else {
            memset((uint8_t *)page + (lo - start), 0, hi - lo);
        }
    }
}

bool fake_phys_write(Fake *f, uint64_t pa, const void *buf, uint64_t len)
{
    return fake_phys_rw(f, pa, (void *)buf, len, true);
}

void fake_phys_zero(Fake *f, uint64_t pa, uint64_t len)
{
    if (!f->pages) {
        if (pa >= FAKE_RAM_BASE && pa - FAKE_RAM_BASE < FAKE_RAM_SIZE) {
            len = MIN(len, FAKE_RAM_SIZE - (pa - FAKE_RAM_BASE));
            fake_mark(f, pa - FAKE_RAM_BASE, len);
            memset(f->ram + (pa - FAKE_RAM_BASE), 0, len);
        }
        return;
    }
    /* Whole pages are dropped; the edges are written */
    if (len / FAKE_PAGE > g_hash_table_size(f->pages)) {
        fake_sparse_zero_big(f, pa, len);
        return;
    }
    while (len) {
        uint64_t pfn = pa / FAKE_PAGE, off = pa % FAKE_PAGE;
        uint64_t n = MIN(len, FAKE_PAGE - off);
        uint8_t *page = g_hash_table_lookup(f->pages, &pfn);

        if (page && n == FAKE_PAGE) {
            g_hash_table_remove(f->pages, &pfn);
        } else if (page) {
            memset(page + off, 0, n);
        }
        pa += n;
        len -= n;
    }
}

void fake_cpu(Fake *f, bool run)
{
    if (run) {
        agx_fw_cpu_start(&f->fw);
        rtkit_cpu_start(&f->rtk);
    } else {
        rtkit_cpu_stop(&f->rtk);
        agx_fw_cpu_stop(&f->fw);
    }
}

/*
 * Work suspended in the middle (a compute threadgroup, tiles in flight, a
 * vertex batch): the buffers it holds
 */
static void fake_free_suspended(Fake *f)
{
    agx_usc_tg_free(&f->fw.cdm.tg);
    f->fw.cdm.in_preamble = false;
    agx_frag_tile_free(&f->fw.frag);
    agx_frag_tile_free(&f->fw.vdm.pfrag);
    agx_usc_tg_free(&f->fw.vdm.batch.group);
}

static bool fake_suspended(const Fake *f)
{
    return f->fw.cdm.tg.nsimd || f->fw.frag.tile.phase ||
           f->fw.vdm.pfrag.tile.phase || f->fw.vdm.batch.group.nsimd;
}

void fake_free(Fake *f)
{
    fake_free_suspended(f);
    if (f->pages) {
        g_hash_table_destroy(f->pages);
    }
    g_ptr_array_free(f->errors, true);
    g_free(f->ram);
    g_free(f->dirty);
    g_free(f->dirty_list);
    g_free(f->snap_ram);
    g_free(f->snap);
}

void fake_snapshot(Fake *f)
{
    /* its buffers would be shared with the copy */
    g_assert(!fake_suspended(f));
    g_free(f->snap_ram);
    g_free(f->snap);
    f->snap_ram = g_memdup2(f->ram, FAKE_RAM_SIZE);
    if (!f->dirty) {
        f->dirty = g_malloc0(FAKE_PAGES);
        f->dirty_list = g_new(uint32_t, FAKE_PAGES);
    }
    memset(f->dirty, 0, FAKE_PAGES);
    f->dirty_count = 0;
    /* The copy's own snap pointer is never used: restore keeps f->snap */
    f->snap = NULL;
    f->snap = g_memdup2(f, sizeof(*f));
}

void fake_restore(Fake *f)
{
    Fake *s = f->snap;
    GPtrArray *errors = f->errors;

    for (uint32_t i = 0; i < f->dirty_count; i++) {
        uint64_t off = (uint64_t)f->dirty_list[i] * FAKE_PAGE;

        memcpy(f->ram + off, f->snap_ram + off,
               MIN(FAKE_PAGE, FAKE_RAM_SIZE - off));
        f->dirty[f->dirty_list[i]] = 0;
    }
    /*
     * Everything else is plain state: firmware, RTKit, counters (the
     * snapshot holds the same buffers, an empty dirty list)
     */
    /* the snapshot never holds suspended work (fake_snapshot) */
    fake_free_suspended(f);
    memcpy(f, s, sizeof(*f));
    f->snap = s;
    f->errors = errors;
    g_ptr_array_set_size(errors, 0);
}

void fake_queue_init(Fake *f, FakeQueue *q, unsigned pipe, unsigned prio,
                     unsigned slot)
{
    memset(q, 0, sizeof(*q));
    q->pipe = pipe;
    q->prio = prio;
    q->slot = slot;
    q->info_va = fake_alloc(f, f->layout->qi_size);
    q->state_va = fake_alloc(f, 0x70);
    q->ring_va = fake_alloc(f, AGX_CMD_WQ_SIZE * 8);
    q->ctx_va = fake_alloc(f, 0x40);
    agx_cmd_build_queue_info(f->layout, fake_ptr(f, q->info_va), q->state_va,
                             q->ring_va, q->ctx_va, slot);
    apple_st32(fake_ptr_n(f, q->state_va + AGX_RS_RB_SIZE, 4), AGX_CMD_WQ_SIZE);
    q->value = fake_stamp(f, slot);
}

static void fake_append(Fake *f, FakeQueue *q, uint64_t cmd)
{
    apple_st64(fake_ptr_n(f, q->ring_va + q->wptr * 8ULL, 8), cmd);
    q->wptr = (q->wptr + 1) % AGX_CMD_WQ_SIZE;
}

/* What the next vertex job's FinalizeVertex op names */
static const AgxCmdLayout *fv_layout;
static uint64_t fv_scene, fv_buffer;

static void fake_patch_finalize_vertex(uint8_t *useq, uint32_t *size)
{
    uint32_t fin = fv_layout->start_size[AGX_PIPE_VERTEX] +
                   2 * fv_layout->ts_size + 4;

    g_assert_cmpuint(apple_ld32(useq + fin) & 0x3f, ==, 0x23);
    apple_st64(useq + fin + 0x04, fv_scene);
    apple_st64(useq + fin + 0x0c, fv_buffer);
}

uint64_t fake_add_vertex_run(Fake *f, FakeQueue *q, uint64_t scene,
                             uint64_t buffer)
{
    fv_layout = f->layout;
    fv_scene = scene;
    fv_buffer = buffer;
    return fake_add_run(f, q, fake_patch_finalize_vertex);
}

uint64_t fake_add_run(Fake *f, FakeQueue *q,
                      void (*patch)(uint8_t *useq, uint32_t *size))
{
    uint64_t blk = fake_alloc(f, FAKE_BLOCK);
    uint8_t useq[AGX_CMD_MAX_USEQ];
    AgxCmdRun r = {
        .pipe = q->pipe,
        .useq_va = blk + FAKE_USEQ,
        .stamp_va = f->stamps_va + 4 * q->slot,
        .fw_stamp_va = f->fw_stamps_va + 4 * q->slot,
        .value = q->value + 0x100,
        .slot = q->slot,
        .rec_va = blk,
        .ts_start_va = blk + FAKE_TS_START,
        .ts_end_va = blk + FAKE_TS_END,
    };
    uint32_t size = agx_cmd_build_run(f->layout, &r,
                                      fake_ptr_n(f, blk, FAKE_USEQ), useq);

    if (patch) {
        patch(useq, &size);
        apple_st32(fake_ptr_n(f, blk + f->layout->useq_size[q->pipe], 4),
                   size);
    }
    g_assert_cmpuint(size, <=, FAKE_TS_START - FAKE_USEQ);
    memcpy(fake_ptr_n(f, blk + FAKE_USEQ, size), useq, size);
    fake_append(f, q, blk);
    q->value = r.value;
    return blk;
}

void fake_add_barrier(Fake *f, FakeQueue *q, FakeQueue *on, uint32_t value)
{
    uint64_t blk = fake_alloc(f, 0x40);

    agx_cmd_build_barrier(fake_ptr_n(f, blk, 0x40),
                          f->fw_stamps_va + 4 * on->slot,
                          value, on->slot, q->value + 0x100);
    fake_append(f, q, blk);
}

void fake_barrier_chain(Fake *f, FakeQueue *q, int n, int k, bool reverse)
{
    for (int i = 0; i < n; i++) {
        fake_queue_init(f, &q[i], AGX_PIPE_COMPUTE, 0, i % 64);
    }
    for (int i = 0; i < n; i++) {
        FakeQueue *on = &q[(i + (reverse ? n - 1 : 1)) % n];
        uint64_t blk = fake_alloc(f, (uint64_t)k * AGX_BARRIER_SIZE);

        for (int b = 0; b < k; b++) {
            uint64_t va = blk + (uint64_t)b * AGX_BARRIER_SIZE;

            agx_cmd_build_barrier(fake_ptr(f, va),
                                  on->state_va + AGX_RS_GPU_DONEPTR, b,
                                  q[i].slot, 0);
            apple_st64(fake_ptr_n(f, q[i].ring_va + q[i].wptr * 8ULL, 8), va);
            q[i].wptr++;
        }
    }
}

uint64_t fake_ring_progress(Fake *f, FakeQueue *q, int n)
{
    uint64_t sum = 0;

    for (int i = 0; i < n; i++) {
        sum += fake_ld32(f, q[i].state_va + AGX_RS_GPU_DONEPTR);
    }
    return sum;
}

void fake_kick(Fake *f, FakeQueue *q)
{
    uint8_t msg[0x30];

    apple_st32(fake_ptr_n(f, q->state_va + AGX_RS_CPU_WPTR, 4), q->wptr);
    agx_cmd_build_rwq(msg, q->pipe, q->info_va, q->wptr, q->slot,
                      !q->kicked);
    q->kicked = true;
    /* As the firmware handles the pipe's doorbell: one event */
    agx_uat_tlb_begin(&f->fw.uat);
    agx_wq_run_msg(&f->fw, q->pipe | q->prio << 2, msg);
    agx_wq_schedule(&f->fw);
    agx_uat_tlb_end(&f->fw.uat);
}

static void fake_drain(Fake *f)
{
    AgxChannel *ch = &f->fw.ch[AGX_CH_EVENT];
    uint8_t *state;
    uint32_t rptr, wptr;
    uint64_t msg0, msg1;

    if (f->pages) {
        /* The input plays the driver: it reads its own event ring */
        while (rtkit_outbox_pop(&f->rtk, &msg0, &msg1)) {
            continue;
        }
        return;
    }
    /* Inputs that rewrite InitData or the ring state are read as is */
    if (!fake_va_ok(ch->state_va, 0x24) ||
        !fake_va_ok(ch->ring_va, (uint64_t)ch->count * ch->elem_size) ||
        ch->elem_size < AGX_EVENT_SIZE) {
        goto outbox;
    }
    state = fake_ptr_n(f, ch->state_va, 4);
    rptr = apple_ld32(state);
    wptr = apple_ld32(state + 0x20);
    if (rptr >= ch->count || wptr >= ch->count) {
        goto outbox;
    }

    for (; rptr != wptr; rptr = (rptr + 1) % ch->count) {
        uint8_t *ev = fake_ptr_n(f, ch->ring_va + rptr * ch->elem_size, 0);

        if (apple_ld32(ev) != AGX_EVENT_FLAG) {
            memcpy(f->last_event, ev, AGX_EVENT_SIZE);
        }
        if (apple_ld32(ev) == AGX_EVENT_FAULT) {
            f->fault_events++;
            continue;
        }
        if (apple_ld32(ev) == AGX_EVENT_TIMEOUT) {
            f->timeout_events++;
            continue;
        }
        if (apple_ld32(ev) == AGX_EVENT_CHANNEL_ERROR) {
            f->channel_error_events++;
            continue;
        }
        if (apple_ld32(ev) == AGX_EVENT_GROW_TVB) {
            f->grow_events++;
            continue;
        }
        if (f->lenient && apple_ld32(ev) != AGX_EVENT_FLAG) {
            continue;
        }
        g_assert_cmpuint(apple_ld32(ev), ==, AGX_EVENT_FLAG);
        for (int s = 0; s < AGX_NUM_EVENT_SLOTS; s++) {
            if (apple_ld32(ev + 4 + 4 * (s / 32)) & (1u << (s % 32))) {
                f->fired[s]++;
            }
        }
    }
    apple_st32(state, rptr);
outbox:
    while (rtkit_outbox_pop(&f->rtk, &msg0, &msg1)) {
        if (msg1 == AGX_EP_FIRMWARE && msg0 == 0x42ULL << 48) {
            f->rx_doorbells++;
        }
    }
}

/* The firmware timer fires at its deadline; the driver reads its events */
static void fake_fire_timer(Fake *f)
{
    f->now = MAX(f->now, f->timer);
    f->timer = -1;
    agx_fw_timer(&f->fw);
    fake_drain(f);
}

void fake_run(Fake *f, int max_ticks)
{
    for (int i = 0; i < max_ticks && f->timer >= 0; i++) {
        fake_fire_timer(f);
    }
    fake_drain(f);
}

void fake_advance(Fake *f, int64_t ns)
{
    int64_t end = f->now + MAX(ns, 0);

    for (int i = 0; i < FAKE_MAX_TIMERS && f->timer >= 0 && f->timer <= end;
         i++) {
        fake_fire_timer(f);
    }
    f->now = MAX(f->now, end);
    fake_drain(f);
}

uint32_t fake_stamp(Fake *f, unsigned slot)
{
    return fake_ld32(f, f->stamps_va + 4 * slot);
}

uint32_t fake_fw_stamp(Fake *f, unsigned slot)
{
    return fake_ld32(f, f->fw_stamps_va + 4 * slot);
}

bool fake_has_error(Fake *f, const char *fragment)
{
    for (guint i = 0; i < f->errors->len; i++) {
        if (strstr(g_ptr_array_index(f->errors, i), fragment)) {
            return true;
        }
    }
    return false;
}

bool fake_crashed(Fake *f)
{
    return f->fw.state == AGX_FW_DEAD;
}
