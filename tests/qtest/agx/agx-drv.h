/*
 * qtest library: what drm/asahi does at probe, on MMIO and guest memory
 *
 * Finds the GPU's reserved memory in the generated device tree, builds the
 * kernel's UAT page tables and TTB entry, the handoff, InitData and every
 * structure and ring it points to, boots the firmware through RTKit, sends
 * INIT and the device-control Initialize, and waits for it to be
 * consumed.  Each phase is a separate call so that tests can break
 * things in between.  Its ABI offsets are written down here independently
 * of the model's own tables, so that a wrong table in the model shows.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_AGX_DRV_H
#define TESTS_QTEST_AGX_AGX_DRV_H

#include "libqtest.h"
#include "rtkit-ap.h"

#define AGX_DRV_ASC_BASE        0x206400000ULL
#define AGX_DRV_SGX_BASE        0x204000000ULL

/* Kernel VA heaps, as the driver lays them out */
typedef enum AgxDrvHeap {
    AGX_HEAP_PRIVATE,           /* 0xffffffa0_..: FW private, cached */
    AGX_HEAP_SHARED,            /* 0xffffffa8_..: FW shared, uncached */
    AGX_HEAP_GPU,               /* 0xffffffac_..: GPU + FW shared */
    AGX_HEAP_RTKIT,             /* 0xffffffae_..: RTKit buffers */
    AGX_NUM_HEAPS,
} AgxDrvHeap;

/* Rings, numbered like the firmware's channels */
enum {
    AGX_DRV_RING_PIPE0 = 0,     /* + (type | prio << 2) */
    AGX_DRV_RING_DEVCTRL = 16,
    AGX_DRV_RING_EVENT,
    AGX_DRV_RING_FWLOG0,
    AGX_DRV_RING_KTRACE = AGX_DRV_RING_FWLOG0 + 6,
    AGX_DRV_RING_STATS,
    AGX_DRV_RING_FWCTL,
    AGX_DRV_NUM_RINGS,
};

typedef struct AgxDrvRing {
    uint64_t state_va;
    uint64_t ring_va;
    uint32_t count;
    uint32_t elem_size;
    uint32_t wptr_off;
    uint32_t first;             /* first element (FWLog sub-rings) */
    uint32_t ptr;               /* the driver's wptr (TX) or rptr (RX) */
    bool valid;
} AgxDrvRing;

typedef struct AgxDrvMapping {
    uint64_t va;
    uint64_t pa;
    uint64_t size;
} AgxDrvMapping;

typedef struct AgxDrv {
    QTestState *qts;
    RTKitAP ap;
    bool v12_3;                 /* firmware 12.3 ABI, else 13.5 */
    char *fw_version;
    char *extra_args;           /* QEMU options beyond the machine's */
    char *log_path;             /* QEMU's -d log */
    int64_t now;                /* virtual time at the last clock step */

    /* Reserved memory from the DT */
    uint64_t ttbs;
    uint64_t pagetables;
    uint64_t handoff;
    uint64_t hwcal_a, hwcal_a_size;
    uint64_t hwcal_b, hwcal_b_size;
    uint64_t globals_blob, globals_blob_size;

    /* Guest RAM the test driver hands out, bump-allocated */
    uint64_t pool_next;
    uint64_t pool_end;
    uint64_t heap_next[AGX_NUM_HEAPS];
    uint64_t kernel_lower_root;         /* slot 0 TTBR0 */
    GArray *mappings;                   /* AgxDrvMapping */

    uint64_t initdata_va;
    uint64_t rp_va;
    uint64_t globals_va;
    uint64_t fw_status_va;
    uint64_t hwdata_a_va;
    uint64_t hwdata_b_va;
    uint64_t fwlog_buf_va;
    AgxDrvRing rings[AGX_DRV_NUM_RINGS];
    GPtrArray *fwlog;                   /* lines the firmware logged */
} AgxDrv;

/* Page protections (the driver's presets) */
extern const uint64_t AGX_PROT_FW_PRIV_RW;
extern const uint64_t AGX_PROT_FW_SHARED_RW;
extern const uint64_t AGX_PROT_FW_SHARED_RO;
extern const uint64_t AGX_PROT_GPU_FW_SHARED_RW;

void agx_drv_init(AgxDrv *d, QTestState *qts, const char *fw_version);
void agx_drv_free(AgxDrv *d);

/*
 * Start QEMU (-M apple-m1,gpu-firmware=@fw_version, 1G, guest errors and
 * unimplemented accesses logged to a file) and agx_drv_init() on it; stop
 * it again.  AGX_KEEP_LOGS=1 in the environment keeps the log.
 */
void agx_drv_start(AgxDrv *d, const char *fw_version, const char *extra);
void agx_drv_stop(AgxDrv *d);
/* Forget everything (as a driver reloading after a reset), same QEMU */
void agx_drv_reinit(AgxDrv *d);
/* The log mentions @fragment (polled: the firmware runs in bottom halves) */
bool agx_drv_logged(AgxDrv *d, const char *fragment);
/* The GPU firmware is dead (QOM "crashed") */
bool agx_drv_crashed(AgxDrv *d);
/* The GPU's unsigned integer QOM property @prop (a counter) */
uint64_t agx_drv_qom_uint(AgxDrv *d, const char *prop);
/* Save the VM to a file and continue in a new QEMU restored from it */
void agx_drv_migrate(AgxDrv *d);
/* qtest clock steps and fault injection, recorded (AGX_QTEST_RECORD) */
int64_t agx_drv_clock_step(AgxDrv *d, int64_t ns);
int64_t agx_drv_clock_step_next(AgxDrv *d);
void agx_drv_inject(AgxDrv *d, const char *what);

/* Probe phases, in the driver's order */
void agx_drv_setup_uat(AgxDrv *d);          /* page tables, TTBAT, handoff */
void agx_drv_check_gpu_id(AgxDrv *d);       /* SGX ID registers */
void agx_drv_build_initdata(AgxDrv *d);     /* InitData and all it points to */
void agx_drv_queue_initialize(AgxDrv *d);   /* DeviceControl Initialize */
void agx_drv_start_firmware(AgxDrv *d);     /* RUN, handoff magic, RTKit */
void agx_drv_send_init(AgxDrv *d);          /* EP 0x20 INIT */
void agx_drv_kick_devctrl(AgxDrv *d);       /* doorbells 0x11, 0x10 */
/*
 * DeviceControl UpdateIdleTS, which m1n1 (not drm/asahi) sends once
 * Initialize was consumed
 */
void agx_drv_update_idle_ts(AgxDrv *d);
/* All of the above */
void agx_drv_probe(AgxDrv *d);

/*
 * Kernel memory: allocate @size in @heap, mapped with @prot; returns VA.
 * Objects end flush against an unmapped guard page (RTKit buffers: whole
 * pages).
 */
uint64_t agx_drv_alloc(AgxDrv *d, AgxDrvHeap heap, uint64_t size,
                       uint64_t prot);
/* Map [va, va + size) of context 0 to @pa (upper or lower half) */
void agx_drv_map(AgxDrv *d, uint64_t va, uint64_t pa, uint64_t size,
                 uint64_t prot);
/* Unmap a page of context 0 (clear its PTE) */
void agx_drv_unmap(AgxDrv *d, uint64_t va);
/* PA behind a kernel VA the library allocated */
uint64_t agx_drv_pa(AgxDrv *d, uint64_t va);

void agx_drv_write(AgxDrv *d, uint64_t va, const void *buf, size_t len);
void agx_drv_read(AgxDrv *d, uint64_t va, void *buf, size_t len);
void agx_drv_w32(AgxDrv *d, uint64_t va, uint32_t v);
void agx_drv_w64(AgxDrv *d, uint64_t va, uint64_t v);
uint32_t agx_drv_r32(AgxDrv *d, uint64_t va);
uint64_t agx_drv_r64(AgxDrv *d, uint64_t va);

/* TX ring: append an element and publish the write pointer */
void agx_drv_tx(AgxDrv *d, int ring, const void *elem);
uint32_t agx_drv_tx_rptr(AgxDrv *d, int ring);
/* Poll (bounded) until the firmware consumed everything; false on timeout */
bool agx_drv_wait_consumed(AgxDrv *d, int ring);
/* RX ring: take the next element the firmware produced, if any */
bool agx_drv_rx(AgxDrv *d, int ring, void *elem);

/* EP 0x21 doorbells */
void agx_drv_doorbell(AgxDrv *d, uint16_t channel);
void agx_drv_fwctl_doorbell(AgxDrv *d);

/* Read the firmware log rings into d->fwlog */
void agx_drv_poll_fwlog(AgxDrv *d);
bool agx_drv_fwlog_has(AgxDrv *d, const char *fragment);

#endif
