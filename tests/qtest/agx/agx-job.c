/*
 * qtest library: job submission the way drm/asahi does it
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "agx-job.h"
#include "agx-cmd.h"

#define BLOCK           0x1000
#define B_USEQ          0xa00
#define B_TS_START      0xf00
#define B_TS_END        0xf08
#define WQ_SIZE         0x500

static const AgxCmdLayout *layout(AgxJob *j)
{
    return agx_cmd_layout(j->drv->v12_3);
}

void agx_job_init(AgxJob *j, AgxDrv *d)
{
    memset(j, 0, sizeof(*j));
    j->drv = d;
    j->stamps_va = agx_drv_alloc(d, AGX_HEAP_SHARED, AGX_JOB_SLOTS * 4,
                                 AGX_PROT_FW_SHARED_RW);
    j->fw_stamps_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE, AGX_JOB_SLOTS * 4,
                                    AGX_PROT_FW_PRIV_RW);
    j->cmd_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE,
                              AGX_JOB_CMD_BLOCKS * BLOCK, AGX_PROT_FW_PRIV_RW);
}

void agx_job_queue_init(AgxJob *j, AgxJobQueue *q, unsigned pipe,
                        unsigned prio, unsigned slot)
{
    const AgxCmdLayout *l = layout(j);
    AgxDrv *d = j->drv;
    uint8_t info[0xc0];

    memset(q, 0, sizeof(*q));
    q->pipe = pipe;
    q->prio = prio;
    q->slot = slot;
    q->info_va = agx_drv_alloc(d, AGX_HEAP_PRIVATE, l->qi_size,
                               AGX_PROT_FW_PRIV_RW);
    q->state_va = agx_drv_alloc(d, AGX_HEAP_SHARED, 0x70,
                                AGX_PROT_FW_SHARED_RW);
    q->ring_va = agx_drv_alloc(d, AGX_HEAP_SHARED, WQ_SIZE * 8,
                               AGX_PROT_FW_SHARED_RW);
    q->ctx_va = agx_drv_alloc(d, AGX_HEAP_SHARED, 0x40,
                              AGX_PROT_FW_SHARED_RW);
    agx_cmd_build_queue_info(l, info, q->state_va, q->ring_va, q->ctx_va,
                             slot);
    agx_drv_write(d, q->info_va, info, l->qi_size);
    agx_drv_w32(d, q->state_va + 0x50, WQ_SIZE);        /* rb_size */
    agx_drv_w32(d, q->ctx_va + 0x00, 0xffff);           /* unk_0, unk_1 */
    /* The slot's stamps start where they are; values go up by 0x100 */
    q->value = agx_job_stamp(j, slot);
}

static void ring_append(AgxJob *j, AgxJobQueue *q, uint64_t cmd)
{
    /* The driver asserts the firmware's done pointer is not next */
    g_assert_cmpuint((q->wptr + 1) % WQ_SIZE, !=, agx_job_doneptr(j, q));
    agx_drv_w64(j->drv, q->ring_va + q->wptr * 8ULL, cmd);
    q->wptr = (q->wptr + 1) % WQ_SIZE;
}

static uint64_t next_block(AgxJob *j)
{
    uint64_t va = j->cmd_va + (uint64_t)j->next_block * BLOCK;

    j->next_block = (j->next_block + 1) % AGX_JOB_CMD_BLOCKS;
    return va;
}

uint64_t agx_job_add_run(AgxJob *j, AgxJobQueue *q,
                         void (*useq_patch)(uint8_t *useq, uint32_t *size))
{
    const AgxCmdLayout *l = layout(j);
    uint64_t blk = next_block(j);
    uint8_t rec[AGX_CMD_MAX_RECORD], useq[AGX_CMD_MAX_USEQ];
    uint8_t results[0x10] = { 0 };
    AgxCmdRun r = {
        .pipe = q->pipe,
        .useq_va = blk + B_USEQ,
        .stamp_va = j->stamps_va + 4 * q->slot,
        .fw_stamp_va = j->fw_stamps_va + 4 * q->slot,
        .value = q->value + AGX_JOB_STAMP_STEP,
        .slot = q->slot,
        .rec_va = blk,
        .ts_start_va = blk + B_TS_START,
        .ts_end_va = blk + B_TS_END,
        .ts_poison = j->ts_poison,
    };
    uint32_t size = agx_cmd_build_run(l, &r, rec, useq);

    if (useq_patch) {
        useq_patch(useq, &size);
        stl_le_p(rec + l->useq_size[q->pipe], size);
    }
    g_assert_cmpuint(size, <=, B_TS_START - B_USEQ);
    agx_drv_write(j->drv, blk, rec, l->run_size[q->pipe]);
    agx_drv_write(j->drv, blk + B_USEQ, useq, size);
    /* The results the record's pointer pair names (RenderTimestamps) */
    agx_drv_write(j->drv, blk + B_TS_START, results, sizeof(results));
    ring_append(j, q, blk);
    q->value = r.value;
    return blk;
}

void agx_job_add_barrier(AgxJob *j, AgxJobQueue *q, AgxJobQueue *on,
                         uint32_t value)
{
    uint64_t blk = next_block(j);
    uint8_t b[0x40];

    agx_cmd_build_barrier(b, j->fw_stamps_va + 4 * on->slot, value,
                          on->slot, q->value + AGX_JOB_STAMP_STEP);
    agx_drv_write(j->drv, blk, b, sizeof(b));
    ring_append(j, q, blk);
}

void agx_job_add_init_buffer(AgxJob *j, AgxJobQueue *q, uint32_t buffer_slot,
                             uint32_t blocks, uint64_t info_va)
{
    uint64_t blk = next_block(j);
    uint8_t b[0x20] = { 0 };

    stl_le_p(b, 6);                                     /* InitBuffer */
    stl_le_p(b + 0x08, buffer_slot);
    stl_le_p(b + 0x10, blocks);
    stq_le_p(b + 0x14, info_va);
    stl_le_p(b + 0x1c, q->value + AGX_JOB_STAMP_STEP);
    agx_drv_write(j->drv, blk, b, sizeof(b));
    ring_append(j, q, blk);
}

void agx_job_kick(AgxJob *j, AgxJobQueue *q)
{
    uint8_t msg[0x30];

    agx_drv_w32(j->drv, q->state_va + 0x40, q->wptr);  /* cpu_wptr */
    agx_cmd_build_rwq(msg, q->pipe, q->info_va, q->wptr, q->slot,
                      !q->kicked);
    q->kicked = true;
    agx_drv_tx(j->drv, AGX_DRV_RING_PIPE0 + (q->pipe | q->prio << 2), msg);
    agx_drv_doorbell(j->drv, q->pipe | q->prio << 2);
}

uint32_t agx_job_stamp(AgxJob *j, unsigned slot)
{
    return agx_drv_r32(j->drv, j->stamps_va + 4 * slot);
}

uint32_t agx_job_fw_stamp(AgxJob *j, unsigned slot)
{
    return agx_drv_r32(j->drv, j->fw_stamps_va + 4 * slot);
}

uint32_t agx_job_doneptr(AgxJob *j, AgxJobQueue *q)
{
    return agx_drv_r32(j->drv, q->state_va + 0x00);
}

int agx_job_poll_events(AgxJob *j)
{
    uint8_t ev[0x38];
    int n = 0;

    while (agx_drv_rx(j->drv, AGX_DRV_RING_EVENT, ev)) {
        n++;
        if (ldl_le_p(ev) != 1) {
            memcpy(j->last_event, ev, sizeof(ev));
        }
        if (ldl_le_p(ev) == 8) {                        /* ChannelError */
            j->channel_error_events++;
            continue;
        }
        if (ldl_le_p(ev) == 0) {                        /* Fault */
            j->fault_events++;
            continue;
        }
        if (ldl_le_p(ev) == 4) {                        /* Timeout */
            j->timeout_events++;
            continue;
        }
        if (ldl_le_p(ev) == 7) {                        /* GrowTVB */
            j->grow_events++;
            continue;
        }
        g_assert_cmpuint(ldl_le_p(ev), ==, 1);          /* Flag */
        for (int s = 0; s < AGX_JOB_SLOTS; s++) {
            if (ldl_le_p(ev + 4 + 4 * (s / 32)) & (1u << (s % 32))) {
                j->fired[s]++;
            }
        }
        j->flag_events++;
    }
    return n;
}

bool agx_job_wait_queue(AgxJob *j, AgxJobQueue *q)
{
    for (int i = 0; i < 100000; i++) {
        if ((int32_t)(agx_job_stamp(j, q->slot) - q->value) >= 0) {
            return true;
        }
        if (agx_drv_clock_step_next(j->drv) < 0) {
            /* No timer armed: nothing will ever complete */
            return (int32_t)(agx_job_stamp(j, q->slot) - q->value) >= 0;
        }
    }
    return false;
}
