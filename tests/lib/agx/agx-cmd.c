/*
 * Test-side builders for drm/asahi's work submission structures
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "agx-cmd.h"

/* 13.5, G13: drm/asahi fw/{vertex,fragment,compute,microseq,workqueue}.rs */
static const AgxCmdLayout layout_13_5 = {
    .run_size = { 0x608, 0x96c, 0x31c },
    .vm_slot = { 0x0c, 0x0c, 0x10 },
    .useq_ptr = { 0x474, 0x14, 0x1f0 },
    .useq_size = { 0x47c, 0x1c, 0x1f8 },
    .meta = { 0x56c, 0x8d0, 0x284 },
    /* command_time after JobMeta (+ unk_after_meta, unk_buf_0..10) */
    .cur_ts = { 0x5b4, 0x918, 0x2b0 },
    .start_size = { 0x18c, 0x1ac, 0x16c },
    .fin_size = { 0x84, 0xb4, 0x7c },
    .fin_fw_stamp = { 0x3c, 0x0c, 0x28 },
    .fin_value = { 0x44, 0x14, 0x30 },
    .params = { { 0x3c4, 0x40 }, { 0x3c8, 0x80 }, { 0x70, 0x1fc } },
    .ts_size = 0x3c,
    .qi_size = 0xb8,
    .qi_ctx = 0xa4,
};

/* 12.3 lacks the 13.0b4 command counters and op tails */
static const AgxCmdLayout layout_12_3 = {
    .run_size = { 0x5e0, 0x930, 0x2dc },
    .vm_slot = { 0x04, 0x04, 0x08 },
    .useq_ptr = { 0x46c, 0x0c, 0x1e8 },
    .useq_size = { 0x474, 0x14, 0x1f0 },
    .meta = { 0x564, 0x8b4, 0x27c },
    .cur_ts = { 0x5ac, 0x8fc, 0x2a8 },
    .start_size = { 0x17c, 0x194, 0x154 },
    .fin_size = { 0x74, 0x9c, 0x64 },
    .fin_fw_stamp = { 0x3c, 0x0c, 0x2c },
    .fin_value = { 0x44, 0x14, 0x34 },
    .params = { { 0x3bc, 0x38 }, { 0x3c0, 0x78 }, { 0x68, 0x1f4 } },
    .ts_size = 0x34,
    .qi_size = 0xb0,
    .qi_ctx = 0xa0,
};

static const uint32_t run_tag[3] = { 0, 1, 3 };
static const uint32_t start_op[3] = { 0x22, 0x24, 0x29 };
static const uint32_t fin_op[3] = { 0x23, 0x25, 0x2a };
static const uint32_t wait_op[3] = { 0x00000101, 0x00010001, 0x00800001 };
/* Where the Start ops point at the parameter blocks */
static const uint32_t start_params[3][2] = {
    { 0x04, 0x0c }, { 0x04, 0x0c }, { 0x0c, 0x3c },
};

static void st32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = v >> (8 * i);
    }
}

static void st64(uint8_t *p, uint64_t v)
{
    st32(p, v);
    st32(p + 4, v >> 32);
}

const AgxCmdLayout *agx_cmd_layout(bool v12_3)
{
    return v12_3 ? &layout_12_3 : &layout_13_5;
}

/* fw/microseq.rs Timestamp, filled as queue/{render,compute}.rs do */
static uint32_t put_timestamp(const AgxCmdLayout *l, const AgxCmdRun *r,
                              uint8_t *op, bool start)
{
    uint64_t cur_ts = r->rec_va + l->cur_ts[r->pipe];

    st32(op, 0x19 | (start ? 1u << 31 : 0));
    st64(op + 0x04, cur_ts);                            /* cur_ts */
    st64(op + 0x0c, cur_ts + 8);                        /* start_ts */
    /* update_ts: drm/asahi's copy of the chosen half, m1n1's poison */
    st64(op + 0x14, r->ts_poison ? 0xdeadbeef : cur_ts + 8 + (start ? 0 : 8));
    st32(op + l->ts_size - 8, 0xdead0000 | r->slot);   /* uuid */
    return l->ts_size;
}

uint32_t agx_cmd_build_run(const AgxCmdLayout *l, const AgxCmdRun *r,
                           uint8_t *rec, uint8_t *useq)
{
    unsigned p = r->pipe;
    uint8_t *meta = rec + l->meta[p];
    uint32_t pos = 0;

    memset(rec, 0, l->run_size[p]);
    memset(useq, 0, AGX_CMD_MAX_USEQ);
    st32(useq, start_op[p]);
    for (int i = 0; i < 2; i++) {
        st64(useq + start_params[p][i], r->rec_va + l->params[p][i]);
    }
    pos += l->start_size[p];
    pos += put_timestamp(l, r, useq + pos, true);
    st32(useq + pos, wait_op[p]);
    pos += 4;
    pos += put_timestamp(l, r, useq + pos, false);
    st32(useq + pos, fin_op[p]);
    st64(useq + pos + l->fin_fw_stamp[p], r->fw_stamp_va);
    st32(useq + pos + l->fin_value[p], r->value);
    pos += l->fin_size[p];
    st32(useq + pos, 0x40000018);                       /* RetireStamp */
    pos += 4;

    st32(rec, run_tag[p]);
    st64(rec + l->useq_ptr[p], r->useq_va);
    st32(rec + l->useq_size[p], pos);
    st64(meta + 0x04, r->stamp_va);
    st64(meta + 0x0c, r->fw_stamp_va);
    st32(meta + 0x14, r->value);
    st32(meta + 0x18, r->slot);
    st32(meta + 0x20, 1);                               /* flush_stamps */
    /* Where the Timestamp ops store: the record's {start, end} pair */
    st64(rec + l->cur_ts[p] + 8, r->ts_start_va);
    st64(rec + l->cur_ts[p] + 16, r->ts_end_va);
    return pos;
}

void agx_cmd_build_barrier(uint8_t *b, uint64_t wait_stamp_va,
                           uint32_t value, uint32_t slot, uint32_t self)
{
    memset(b, 0, 0x40);
    st32(b, 4);
    st64(b + 0x04, wait_stamp_va);
    st32(b + 0x0c, value);
    st32(b + 0x10, slot);
    st32(b + 0x14, self);
    st32(b + 0x18, 0xffffbbbb);
}

void agx_cmd_build_queue_info(const AgxCmdLayout *l, uint8_t *info,
                              uint64_t state_va, uint64_t ring_va,
                              uint64_t ctx_va, uint32_t uuid)
{
    memset(info, 0, l->qi_size);
    st64(info + 0x00, state_va);
    st64(info + 0x08, ring_va);
    st32(info + 0x2c, 0xffffffff);                      /* event_id */
    st32(info + 0x50, uuid);
    st64(info + l->qi_ctx, ctx_va);
}

void agx_cmd_build_rwq(uint8_t *msg, unsigned pipe, uint64_t info_va,
                       uint32_t wptr, uint32_t slot, bool is_new)
{
    memset(msg, 0, 0x30);
    st32(msg, pipe);
    st64(msg + 0x04, info_va);
    st32(msg + 0x0c, wptr);
    st32(msg + 0x10, slot);
    msg[0x14] = is_new;
}
