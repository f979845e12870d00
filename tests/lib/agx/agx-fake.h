/*
 * In-process test bed for the AGX firmware core: fake guest RAM, kernel
 * page tables, an RTKit instance and a running firmware with its event
 * ring, so that unit tests, benchmarks and fuzzers can drive work queues
 * and microsequences without QEMU.  Command structures come from the
 * same builders the qtests use (tests/lib/agx/agx-cmd.h).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_UNIT_AGX_FAKE_H
#define TESTS_UNIT_AGX_FAKE_H

#include <glib.h>
#include "hw/agx/agx-fw.h"
#include "agx-cmd.h"

#define FAKE_RAM_BASE   0x800000000ULL
/* Kernel VAs map linearly onto RAM from FAKE_KVA_BASE */
#define FAKE_KVA_BASE   0xffffffa000000000ULL
/* The fuzzer builds with less, to start each run quickly */
#ifndef FAKE_MAPPED
#define FAKE_MAPPED     (32 * 1024 * 1024)
#endif
#define FAKE_RAM_SIZE   (FAKE_MAPPED + 0x100000)
/* Boot mode (sparse RAM): the machine's RAM range */
#define FAKE_BOOT_RAM_SIZE  (16ULL << 30)
/*
 * A command block: record (with its time slot and result pointers, see
 * agx-cmd.h), microsequence, the results (RenderTimestamps)
 */
#define FAKE_BLOCK      0x4000
#define FAKE_USEQ       0x1000
#define FAKE_TS_START   0x3f00
#define FAKE_TS_END     0x3f08

typedef struct FakeQueue {
    unsigned pipe;
    unsigned prio;
    unsigned slot;
    uint64_t info_va;
    uint64_t state_va;
    uint64_t ring_va;
    uint64_t ctx_va;
    uint32_t wptr;
    uint32_t value;
    bool kicked;
} FakeQueue;

typedef struct Fake {
    uint8_t *ram;
    GHashTable *pages;          /* boot mode: PA >> 12 -> 4 KiB page */
    bool lenient;               /* fuzzing: RAM may hold anything */
    AgxFw fw;
    RTKitState rtk;
    const AgxCmdLayout *layout;
    int64_t now;
    int64_t timer;              /* armed deadline, -1 = none */
    uint64_t next_va;           /* bump allocator (kernel VA) */
    uint64_t stamps_va;
    uint64_t fw_stamps_va;
    GPtrArray *errors;
    uint64_t rx_doorbells;
    uint32_t fired[AGX_NUM_EVENT_SLOTS];
    uint32_t fault_events;
    uint32_t timeout_events;
    uint32_t channel_error_events;
    uint32_t grow_events;
    uint8_t last_event[AGX_EVENT_SIZE];     /* the last non-Flag one */
    /* fake_snapshot(): pages written since, and what to restore */
    uint8_t *dirty;             /* one byte per 4 KiB of ram */
    uint32_t *dirty_list;       /* the dirty ones, in order */
    uint32_t dirty_count;
    uint8_t *snap_ram;
    struct Fake *snap;
} Fake;

void fake_init(Fake *f, AgxFwVersion version);
/*
 * Boot mode: an unbooted firmware (the ASC stopped) on sparse RAM, with
 * the handoff and TTB array where the machine puts them; the caller plays
 * the driver with fake_phys_write(), fake_cpu() and RTKit messages.
 * Snapshots are for the linear mode only.
 */
void fake_init_boot(Fake *f, AgxFwVersion version, uint64_t handoff,
                    uint64_t ttbs);
bool fake_phys_write(Fake *f, uint64_t pa, const void *buf, uint64_t len);
void fake_phys_zero(Fake *f, uint64_t pa, uint64_t len);
/* ASC CPU_CONTROL.RUN, as the device applies it */
void fake_cpu(Fake *f, bool run);
void fake_free(Fake *f);
/*
 * Remember the whole state (RAM, firmware, RTKit, test bed) so that
 * fake_restore() can bring it back, copying only the RAM pages touched
 * in between: how a fuzzer starts each input from one booted firmware
 */
void fake_snapshot(Fake *f);
void fake_restore(Fake *f);

/* Kernel memory: allocate (zeroed, 16K aligned), translate, unmap */
uint64_t fake_alloc(Fake *f, uint64_t size);
void *fake_ptr(Fake *f, uint64_t va);
/* The same, for @len bytes (0: only read through) */
void *fake_ptr_n(Fake *f, uint64_t va, uint64_t len);
/* Whether [va, va + len) lies in the fake kernel map */
bool fake_va_ok(uint64_t va, uint64_t len);
void fake_unmap(Fake *f, uint64_t va);
bool fake_can_alloc(Fake *f, uint64_t size);
/* Entry @index of the kernel map's last-level table (16 KiB pages) */
void fake_set_pte(Fake *f, unsigned index, uint64_t pte);
/*
 * Map @size bytes at @va (below 2^39: TTBR0, from AGX_UAT_UPPER_BASE:
 * TTBR1) of VM slot @slot onto the kernel memory at @kva, for the GPU
 * (read-write, or read-only)
 */
void fake_map_gpu(Fake *f, unsigned slot, uint64_t va, uint64_t kva,
                  uint64_t size, bool writable);
uint32_t fake_ld32(Fake *f, uint64_t va);
uint64_t fake_ld64(Fake *f, uint64_t va);

/* Work submission, as agx-job.c does it but calling the core directly */
void fake_queue_init(Fake *f, FakeQueue *q, unsigned pipe, unsigned prio,
                     unsigned slot);
uint64_t fake_add_run(Fake *f, FakeQueue *q,
                      void (*patch)(uint8_t *useq, uint32_t *size));
/*
 * A vertex job's Run (as fake_add_run) whose FinalizeVertex op names the
 * render's Scene @scene and tiled vertex buffer Info @buffer, as
 * drm/asahi's does
 */
uint64_t fake_add_vertex_run(Fake *f, FakeQueue *q, uint64_t scene,
                             uint64_t buffer);
void fake_add_barrier(Fake *f, FakeQueue *q, FakeQueue *on, uint32_t value);
void fake_kick(Fake *f, FakeQueue *q);
/*
 * @n compute queues, each with @k Barriers: queue i's Barrier b waits for
 * the done pointer of queue i + 1 (@reverse: i - 1) to reach b, so the
 * queues can only advance in lockstep, one entry each at a time
 */
void fake_barrier_chain(Fake *f, FakeQueue *q, int n, int k, bool reverse);
/* Sum of the done pointers of @n queues */
uint64_t fake_ring_progress(Fake *f, FakeQueue *q, int n);

/* Fire due timers until nothing is armed (bounded); then drain events */
/*
 * Virtual time passes by @ns, as qtest's clock_step: every timer due by
 * then fires at its deadline (0: only those due now, as QEMU's main loop
 * runs them after a guest access)
 */
void fake_advance(Fake *f, int64_t ns);
void fake_run(Fake *f, int max_ticks);
uint32_t fake_stamp(Fake *f, unsigned slot);
uint32_t fake_fw_stamp(Fake *f, unsigned slot);

bool fake_has_error(Fake *f, const char *fragment);
bool fake_crashed(Fake *f);

#endif
