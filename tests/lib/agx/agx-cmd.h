/*
 * Test-side builders for drm/asahi's work submission structures: command
 * records, microsequences, barriers, QueueInfo, RunWorkQueue messages
 *
 * Writes into host buffers only (GLib and standard C), so that both the
 * qtests (agx-job.c) and the standalone unit tests, benchmarks and
 * fuzzers of the firmware core can use it.  The layouts are written down
 * here independently of the model's tables, from the driver's structs.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_AGX_CMD_H
#define TESTS_QTEST_AGX_AGX_CMD_H

#include <stdbool.h>
#include <stdint.h>

#define AGX_CMD_MAX_RECORD      0x980
/* Room for test sequences longer than any the driver builds */
#define AGX_CMD_MAX_USEQ        0x2000
#define AGX_CMD_WQ_SIZE         0x500

enum { AGX_CMD_VERTEX, AGX_CMD_FRAGMENT, AGX_CMD_COMPUTE };

/* Offsets and sizes by pipe type, for one firmware version */
typedef struct AgxCmdLayout {
    uint32_t run_size[3];
    uint32_t vm_slot[3];
    uint32_t useq_ptr[3];
    uint32_t useq_size[3];
    uint32_t meta[3];
    uint32_t cur_ts[3];         /* U64, then the {start, end} pointer pair */
    uint32_t start_size[3];
    uint32_t fin_size[3];
    uint32_t fin_fw_stamp[3];
    uint32_t fin_value[3];
    /*
     * The parameter blocks the Start op points at, inside the record:
     * vertex {tiling, params 1}, fragment {params 2, params 1}, compute
     * {params 1, params 2}; at Start op +4 (+0x3c for compute's second)
     * and +0xc
     */
    uint32_t params[3][2];
    uint32_t ts_size;
    uint32_t qi_size;
    uint32_t qi_ctx;
} AgxCmdLayout;

const AgxCmdLayout *agx_cmd_layout(bool v12_3);

typedef struct AgxCmdRun {
    unsigned pipe;
    uint64_t useq_va;           /* where the microsequence will be */
    uint64_t stamp_va;          /* shared stamps[slot] */
    uint64_t fw_stamp_va;       /* private fw_stamps[slot] */
    uint32_t value;             /* stamp value the command retires with */
    uint32_t slot;
    uint64_t rec_va;            /* where the record will be */
    uint64_t ts_start_va;       /* the u64 results (RenderTimestamps) */
    uint64_t ts_end_va;
    bool ts_poison;             /* update_ts = 0xdeadbeef, as m1n1 does */
} AgxCmdRun;

/*
 * Build a Run* record into @rec (run_size bytes) and its microsequence
 * (Start, Timestamp, WaitForIdle, Timestamp, Finalize, RetireStamp) into
 * @useq; returns the microsequence size.  As drm/asahi lays it out, the
 * record holds the time slot the Timestamp ops write (packed: often at
 * 4 mod 8) and the pair of result pointers they follow.
 */
uint32_t agx_cmd_build_run(const AgxCmdLayout *l, const AgxCmdRun *r,
                           uint8_t *rec, uint8_t *useq);
/* Barrier (0x40 bytes): wait for *wait_stamp_va >= value */
void agx_cmd_build_barrier(uint8_t *b, uint64_t wait_stamp_va,
                           uint32_t value, uint32_t slot, uint32_t self);
/* QueueInfo (qi_size bytes) */
void agx_cmd_build_queue_info(const AgxCmdLayout *l, uint8_t *info,
                              uint64_t state_va, uint64_t ring_va,
                              uint64_t ctx_va, uint32_t uuid);
/* RunWorkQueue pipe message (0x30 bytes) */
void agx_cmd_build_rwq(uint8_t *msg, unsigned pipe, uint64_t info_va,
                       uint32_t wptr, uint32_t slot, bool is_new);

#endif
