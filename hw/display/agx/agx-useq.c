/*
 * AGX firmware microsequence interpreter
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-bits.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-useq.h"

AGX_FIELD(AGX_OP, CODE, 0, 6);
AGX_FIELD(AGX_OP_WAIT, PIPES, 8, 24);
AGX_FIELD(AGX_OP_TS, START, 31, 1);

/* A Timestamp op's {start, end} pair of result pointers */
enum {
    USEQ_TS_PAIR_START = 0x0,
    USEQ_TS_PAIR_END = 0x8,
};

/* WaitForIdle pipe bits, already shifted by 8 in the header */
static const uint32_t agx_wait_pipe_bits[AGX_NUM_PIPES] = {
    [AGX_PIPE_VERTEX] = 1u << 0,
    [AGX_PIPE_FRAGMENT] = 1u << 8,
    [AGX_PIPE_COMPUTE] = 1u << 15,
};

static const uint8_t agx_start_op[AGX_NUM_PIPES] = {
    [AGX_PIPE_VERTEX] = AGX_OP_START_VERTEX,
    [AGX_PIPE_FRAGMENT] = AGX_OP_START_FRAGMENT,
    [AGX_PIPE_COMPUTE] = AGX_OP_START_COMPUTE,
};

static const uint8_t agx_finalize_op[AGX_NUM_PIPES] = {
    [AGX_PIPE_VERTEX] = AGX_OP_FINALIZE_VERTEX,
    [AGX_PIPE_FRAGMENT] = AGX_OP_FINALIZE_FRAGMENT,
    [AGX_PIPE_COMPUTE] = AGX_OP_FINALIZE_COMPUTE,
};

const char *agx_useq_op_name(unsigned opcode)
{
    switch (opcode) {
    case AGX_OP_WAIT_FOR_IDLE:
        return "WaitForIdle";
    case AGX_OP_WAIT_FOR_IDLE2:
        return "WaitForIdle2";
    case AGX_OP_RETIRE_STAMP:
        return "RetireStamp";
    case AGX_OP_TIMESTAMP:
        return "Timestamp";
    case AGX_OP_START_VERTEX:
        return "StartVertex";
    case AGX_OP_FINALIZE_VERTEX:
        return "FinalizeVertex";
    case AGX_OP_START_FRAGMENT:
        return "StartFragment";
    case AGX_OP_FINALIZE_FRAGMENT:
        return "FinalizeFragment";
    case AGX_OP_START_COMPUTE:
        return "StartCompute";
    case AGX_OP_FINALIZE_COMPUTE:
        return "FinalizeCompute";
    default:
        return "unknown";
    }
}

/*
 * Timestamp: the GPU time into the command's time slot, and into the start
 * (header bit 31 set) or end result of each {start, end} pair of result
 * pointers the op names.  drm/asahi also points update_ts (+0x14) at the
 * chosen half of the pair, but m1n1, run on real M1s, fills it with
 * 0xdeadbeef: the firmware finds the result through the pair and the bit.
 */
static bool useq_timestamp(AgxFw *fw, unsigned pipe_type, uint32_t hdr,
                           const uint8_t *op)
{
    const AgxJobAbi *ja = fw->job_abi;
    uint64_t now = agx_fw_gpu_time(fw);
    uint64_t cur_ts = agx_ld64(op + ja->ts_cur_ts);
    const uint32_t pairs[] = { ja->ts_pointers, ja->ts_user_pointers };
    bool start = AGX_FIELD_EX64(hdr, AGX_OP_TS, START);
    unsigned half = start ? USEQ_TS_PAIR_START : USEQ_TS_PAIR_END;

    AGX_TRACE(&fw->trace, stamp_time, pipe_type, now, start);
    /*
     * The firmware's CPU reaches driver memory as normal memory: stores
     * need no alignment.  drm/asahi's U64 is packed, so the time stamps
     * inside its command records sit at 4 mod 8.
     */
    if (cur_ts && !agx_fw_st64(fw, cur_ts, now, "timestamp")) {
        return false;
    }
    for (int i = 0; i < G_N_ELEMENTS(pairs); i++) {
        uint64_t pair = agx_ld64(op + pairs[i]), result;

        if (!pair) {
            continue;
        }
        if (!agx_fw_ld64(fw, pair + half, &result, "timestamp pointers")) {
            return false;
        }
        if (result && !agx_fw_st64(fw, result, now, "timestamp result")) {
            return false;
        }
    }
    return true;
}

/* Retire: the shared stamp the driver reads, from the command's JobMeta */
static bool useq_retire(AgxFw *fw, unsigned pipe_type, AgxPipe *p,
                        uint32_t *slot)
{
    const AgxRunLayout *run = &fw->job_abi->run[pipe_type];
    uint8_t meta[AGX_META_SIZE];

    if (!agx_fw_read(fw, p->cmd_va + run->meta, meta, sizeof(meta),
                     "JobMeta")) {
        return false;
    }
    *slot = agx_ld32(meta + AGX_META_STAMP_SLOT);
    if (*slot >= AGX_NUM_EVENT_SLOTS) {
        agx_fw_crash(fw, "GPU firmware: command 0x%" G_GINT64_MODIFIER "x "
                     "retires to event slot %u", p->cmd_va, *slot);
        return false;
    }
    if (!agx_fw_st32(fw, agx_ld64(meta + AGX_META_STAMP),
                     agx_ld32(meta + AGX_META_STAMP_VALUE), "stamp")) {
        return false;
    }
    AGX_TRACE(&fw->trace, stamp_retire, pipe_type,
              agx_ld64(meta + AGX_META_STAMP),
              agx_ld32(meta + AGX_META_STAMP_VALUE), *slot);
    return true;
}

/* Finalize and Retire only make sense once the job's GPU work is over */
static bool useq_job_over(AgxFw *fw, AgxPipe *p, unsigned code)
{
    if (!p->waited) {
        agx_fw_crash(fw, "GPU firmware: %s before the job's work ended in "
                     "command 0x%" G_GINT64_MODIFIER "x",
                     agx_useq_op_name(code), p->cmd_va);
        return false;
    }
    return true;
}

AgxUseqResult agx_useq_run(AgxFw *fw, unsigned pipe_type, AgxPipe *p,
                           uint32_t *slot)
{
    const AgxJobAbi *ja = fw->job_abi;
    uint8_t op[AGX_USEQ_MAX_OP_SIZE];

    for (unsigned n = 0; n < AGX_USEQ_MAX_OPS; n++) {
        uint32_t pos = p->useq_pos, hdr, code, size;
        const AgxFinalizeLayout *fin;

        if (pos + 4 > p->useq_size) {
            agx_fw_crash(fw, "GPU firmware: microsequence of command 0x%"
                         G_GINT64_MODIFIER "x ends without RetireStamp",
                         p->cmd_va);
            return AGX_USEQ_FAILED;
        }
        if (!agx_fw_read(fw, p->useq_va + pos, op, 4, "microsequence")) {
            return AGX_USEQ_FAILED;
        }
        hdr = agx_ld32(op);
        code = AGX_FIELD_EX64(hdr, AGX_OP, CODE);
        size = ja->op_size[code];
        if (!size || size > sizeof(op)) {
            agx_fw_crash(fw, "GPU firmware: unknown microsequence opcode "
                         "0x%02x (header 0x%08x) at offset 0x%x of command "
                         "0x%" G_GINT64_MODIFIER "x", code, hdr, pos,
                         p->cmd_va);
            return AGX_USEQ_FAILED;
        }
        if (pos + size > p->useq_size) {
            agx_fw_crash(fw, "GPU firmware: microsequence op %s at 0x%x "
                         "overruns its sequence of 0x%x bytes",
                         agx_useq_op_name(code), pos, p->useq_size);
            return AGX_USEQ_FAILED;
        }
        if (!agx_fw_read(fw, p->useq_va + pos, op, size, "microsequence")) {
            return AGX_USEQ_FAILED;
        }
        p->useq_pos = pos + size;
        AGX_TRACE(&fw->trace, useq_op, pipe_type, pos, code,
                  agx_useq_op_name(code));

        switch (code) {
        case AGX_OP_START_VERTEX:
        case AGX_OP_START_FRAGMENT:
        case AGX_OP_START_COMPUTE:
            if (code != agx_start_op[pipe_type]) {
                agx_fw_crash(fw, "GPU firmware: %s in a command for pipe "
                             "%u", agx_useq_op_name(code), pipe_type);
                return AGX_USEQ_FAILED;
            }
            p->started = true;
            break;
        case AGX_OP_FINALIZE_VERTEX:
        case AGX_OP_FINALIZE_FRAGMENT:
        case AGX_OP_FINALIZE_COMPUTE:
            if (code != agx_finalize_op[pipe_type]) {
                agx_fw_crash(fw, "GPU firmware: %s in a command for pipe "
                             "%u", agx_useq_op_name(code), pipe_type);
                return AGX_USEQ_FAILED;
            }
            if (!useq_job_over(fw, p, code)) {
                return AGX_USEQ_FAILED;
            }
            fin = &ja->finalize[pipe_type];
            if (!agx_fw_st32(fw, agx_ld64(op + fin->fw_stamp),
                             agx_ld32(op + fin->stamp_value), "fw_stamp")) {
                return AGX_USEQ_FAILED;
            }
            AGX_TRACE(&fw->trace, stamp_fw, pipe_type,
                      agx_ld64(op + fin->fw_stamp),
                      agx_ld32(op + fin->stamp_value));
            break;
        case AGX_OP_TIMESTAMP:
            if (!useq_timestamp(fw, pipe_type, hdr, op)) {
                return AGX_USEQ_FAILED;
            }
            break;
        case AGX_OP_WAIT_FOR_IDLE:
            if (!p->started) {
                agx_fw_crash(fw, "GPU firmware: WaitForIdle before the "
                             "Start op in command 0x%" G_GINT64_MODIFIER "x",
                             p->cmd_va);
                return AGX_USEQ_FAILED;
            }
            p->waited = true;
            if (AGX_FIELD_EX64(hdr, AGX_OP_WAIT, PIPES) !=
                agx_wait_pipe_bits[pipe_type]) {
                agx_fw_guest_error(fw, "GPU firmware: WaitForIdle 0x%08x "
                                   "in a pipe %u command", hdr, pipe_type);
            }
            return AGX_USEQ_WAIT;
        case AGX_OP_RETIRE_STAMP:
            if (!useq_job_over(fw, p, code)) {
                return AGX_USEQ_FAILED;
            }
            return useq_retire(fw, pipe_type, p, slot) ? AGX_USEQ_RETIRED
                                                       : AGX_USEQ_FAILED;
        default:
            agx_fw_crash(fw, "GPU firmware: microsequence opcode %s is not "
                         "supported", agx_useq_op_name(code));
            return AGX_USEQ_FAILED;
        }
    }
    agx_fw_crash(fw, "GPU firmware: microsequence of command 0x%"
                 G_GINT64_MODIFIER "x runs more than %d ops", p->cmd_va,
                 AGX_USEQ_MAX_OPS);
    return AGX_USEQ_FAILED;
}
