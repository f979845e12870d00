/*
 * AGX firmware microsequence interpreter
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-params.h"
#include "hw/agx/agx-services.h"
#include "hw/agx/agx-tvb.h"
#include "hw/agx/agx-useq.h"

APPLE_FIELD(AGX_OP, CODE, 0, 6);
APPLE_FIELD(AGX_OP_WAIT, PIPES, 8, 24);
APPLE_FIELD(AGX_OP_TS, START, 31, 1);

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

/* What an op handler tells the interpreter */
typedef enum UseqStep {
    USEQ_NEXT,                  /* the op is done: run the next one */
    USEQ_WAIT,                  /* the job's GPU work runs now */
    USEQ_RETIRED,               /* the job is retired, *slot set */
    USEQ_FAILED,                /* the firmware crashed */
} UseqStep;

/* The op being run, for its handler */
typedef struct UseqOp {
    AgxFw *fw;
    unsigned pipe_type;
    AgxPipe *p;
    unsigned code;
    uint32_t hdr;
    const uint8_t *body;        /* the whole op, header included */
    uint32_t *slot;             /* RetireStamp's event slot */
} UseqOp;

typedef UseqStep UseqOpHandler(const UseqOp *op);

/* A Start or Finalize op names its pipe: it must be the command's */
static bool useq_pipe_matches(const UseqOp *op, const uint8_t *pipe_ops)
{
    if (op->code != pipe_ops[op->pipe_type]) {
        agx_fw_crash(op->fw, "GPU firmware: %s in a command for pipe %u",
                     agx_useq_op_name(op->code), op->pipe_type);
        return false;
    }
    return true;
}

/* Finalize and Retire only make sense once the job's GPU work is over */
static bool useq_job_over(const UseqOp *op)
{
    if (!op->p->waited) {
        agx_fw_crash(op->fw, "GPU firmware: %s before the job's work ended "
                     "in command 0x%" G_GINT64_MODIFIER "x",
                     agx_useq_op_name(op->code), op->p->cmd_va);
        return false;
    }
    return true;
}

/* Start: the firmware reads the job's parameter blocks */
static UseqStep useq_start(const UseqOp *op)
{
    if (!useq_pipe_matches(op, agx_start_op) ||
        !agx_params_read(op->fw, op->pipe_type, op->p->cmd_va, op->body) ||
        (op->pipe_type == AGX_PIPE_FRAGMENT &&
         !agx_tvb_fragment_started(op->fw, op->body))) {
        return USEQ_FAILED;
    }
    op->p->started = true;
    return USEQ_NEXT;
}

/* Finalize: the firmware stamp the op names */
static UseqStep useq_finalize(const UseqOp *op)
{
    const AgxFinalizeLayout *fin;
    uint64_t fw_stamp;
    uint32_t value;

    if (!useq_pipe_matches(op, agx_finalize_op) || !useq_job_over(op) ||
        (op->pipe_type == AGX_PIPE_VERTEX &&
         !agx_tvb_vertex_finalized(op->fw, op->body))) {
        return USEQ_FAILED;
    }
    if (op->pipe_type == AGX_PIPE_FRAGMENT) {
        agx_tvb_fragment_finalized(op->fw, op->body);
    }
    fin = &op->fw->job_abi->finalize[op->pipe_type];
    fw_stamp = apple_ld64(op->body + fin->fw_stamp);
    value = apple_ld32(op->body + fin->stamp_value);
    if (!agx_fw_st32(op->fw, fw_stamp, value, "fw_stamp")) {
        return USEQ_FAILED;
    }
    AGX_TRACE(&op->fw->trace, stamp_fw, op->pipe_type, fw_stamp, value);
    return USEQ_NEXT;
}

/*
 * Timestamp: the GPU time into the command's time slot, and into the start
 * (header bit 31 set) or end result of each {start, end} pair of result
 * pointers the op names.  drm/asahi also points update_ts (+0x14) at the
 * chosen half of the pair, but m1n1, run on real M1s, fills it with
 * 0xdeadbeef: the firmware finds the result through the pair and the bit.
 * The time slot and the kernel pair get timebase ticks (what m1n1 reads
 * back); the user pair gets nanoseconds, the unit drm/asahi promises
 * userspace (command_timestamp_frequency_hz = 1e9), converted as its
 * GET_TIME converts the CPU counter, so both compare.
 */
static UseqStep useq_timestamp(const UseqOp *op)
{
    AgxFw *fw = op->fw;
    const AgxJobAbi *ja = fw->job_abi;
    uint64_t now = agx_fw_gpu_time(fw);
    uint64_t cur_ts = apple_ld64(op->body + ja->ts_cur_ts);
    const uint32_t pairs[] = { ja->ts_pointers, ja->ts_user_pointers };
    const uint64_t values[] = { now, agx_ticks_to_ns(now) };
    bool start = APPLE_FIELD_EX64(op->hdr, AGX_OP_TS, START);
    unsigned half = start ? USEQ_TS_PAIR_START : USEQ_TS_PAIR_END;

    AGX_TRACE(&fw->trace, stamp_time, op->pipe_type, now, start);
    /*
     * The firmware's CPU reaches driver memory as normal memory: stores
     * need no alignment.  drm/asahi's U64 is packed, so the time stamps
     * inside its command records sit at 4 mod 8.
     */
    if (cur_ts && !agx_fw_st64(fw, cur_ts, now, "timestamp")) {
        return USEQ_FAILED;
    }
    for (int i = 0; i < G_N_ELEMENTS(pairs); i++) {
        uint64_t pair = apple_ld64(op->body + pairs[i]), result;

        if (!pair) {
            continue;
        }
        if (!agx_fw_ld64(fw, pair + half, &result, "timestamp pointers")) {
            return USEQ_FAILED;
        }
        if (result &&
            !agx_fw_st64(fw, result, values[i], "timestamp result")) {
            return USEQ_FAILED;
        }
    }
    return USEQ_NEXT;
}

/* WaitForIdle: the job's GPU work runs now */
static UseqStep useq_wait_for_idle(const UseqOp *op)
{
    if (!op->p->started) {
        agx_fw_crash(op->fw, "GPU firmware: WaitForIdle before the Start op "
                     "in command 0x%" G_GINT64_MODIFIER "x", op->p->cmd_va);
        return USEQ_FAILED;
    }
    op->p->waited = true;
    if (APPLE_FIELD_EX64(op->hdr, AGX_OP_WAIT, PIPES) !=
        agx_wait_pipe_bits[op->pipe_type]) {
        agx_fw_guest_error(op->fw, "GPU firmware: WaitForIdle 0x%08x in a "
                           "pipe %u command", op->hdr, op->pipe_type);
    }
    return USEQ_WAIT;
}

/* RetireStamp: the shared stamp the driver reads, from the JobMeta */
static UseqStep useq_retire_stamp(const UseqOp *op)
{
    AgxFw *fw = op->fw;
    const AgxRunLayout *run = &fw->job_abi->run[op->pipe_type];
    uint8_t meta[AGX_META_SIZE];
    uint64_t stamp;
    uint32_t value;

    if (!useq_job_over(op)) {
        return USEQ_FAILED;
    }
    if (!agx_fw_read(fw, op->p->cmd_va + run->meta, meta, sizeof(meta),
                     "JobMeta")) {
        return USEQ_FAILED;
    }
    *op->slot = apple_ld32(meta + AGX_META_STAMP_SLOT);
    if (*op->slot >= AGX_NUM_EVENT_SLOTS) {
        agx_fw_crash(fw, "GPU firmware: command 0x%" G_GINT64_MODIFIER "x "
                     "retires to event slot %u", op->p->cmd_va, *op->slot);
        return USEQ_FAILED;
    }
    stamp = apple_ld64(meta + AGX_META_STAMP);
    value = apple_ld32(meta + AGX_META_STAMP_VALUE);
    if (!agx_fw_st32(fw, stamp, value, "stamp")) {
        return USEQ_FAILED;
    }
    AGX_TRACE(&fw->trace, stamp_retire, op->pipe_type, stamp, value,
              *op->slot);
    return USEQ_RETIRED;
}

/*
 * The ops the firmware runs, by opcode; the job ABI's op table says which
 * it accepts and their sizes (WaitForIdle2 has a size but no handler: the
 * firmware crashes on it, as on any op without one)
 */
static UseqOpHandler *const useq_handlers[AGX_NUM_OPS] = {
    [AGX_OP_START_VERTEX] = useq_start,
    [AGX_OP_START_FRAGMENT] = useq_start,
    [AGX_OP_START_COMPUTE] = useq_start,
    [AGX_OP_FINALIZE_VERTEX] = useq_finalize,
    [AGX_OP_FINALIZE_FRAGMENT] = useq_finalize,
    [AGX_OP_FINALIZE_COMPUTE] = useq_finalize,
    [AGX_OP_TIMESTAMP] = useq_timestamp,
    [AGX_OP_WAIT_FOR_IDLE] = useq_wait_for_idle,
    [AGX_OP_RETIRE_STAMP] = useq_retire_stamp,
};

/*
 * Read the op at the job's position into @buf, bounded by the sequence
 * and by the job ABI's size of its opcode, and step past it
 */
static bool useq_fetch(AgxFw *fw, AgxPipe *p, uint8_t *buf, uint32_t *hdr)
{
    uint32_t pos = p->useq_pos, code, size;

    if (pos + 4 > p->useq_size) {
        agx_fw_crash(fw, "GPU firmware: microsequence of command 0x%"
                     G_GINT64_MODIFIER "x ends without RetireStamp",
                     p->cmd_va);
        return false;
    }
    if (!agx_fw_read(fw, p->useq_va + pos, buf, 4, "microsequence")) {
        return false;
    }
    *hdr = apple_ld32(buf);
    code = APPLE_FIELD_EX64(*hdr, AGX_OP, CODE);
    size = fw->job_abi->op_size[code];
    if (!size || size > AGX_USEQ_MAX_OP_SIZE) {
        agx_fw_crash(fw, "GPU firmware: unknown microsequence opcode "
                     "0x%02x (header 0x%08x) at offset 0x%x of command "
                     "0x%" G_GINT64_MODIFIER "x", code, *hdr, pos,
                     p->cmd_va);
        return false;
    }
    if (pos + size > p->useq_size) {
        agx_fw_crash(fw, "GPU firmware: microsequence op %s at 0x%x "
                     "overruns its sequence of 0x%x bytes",
                     agx_useq_op_name(code), pos, p->useq_size);
        return false;
    }
    if (!agx_fw_read(fw, p->useq_va + pos, buf, size, "microsequence")) {
        return false;
    }
    p->useq_pos = pos + size;
    return true;
}

AgxUseqResult agx_useq_run(AgxFw *fw, unsigned pipe_type, AgxPipe *p,
                           uint32_t *slot)
{
    uint8_t buf[AGX_USEQ_MAX_OP_SIZE];
    UseqOp op = {
        .fw = fw, .pipe_type = pipe_type, .p = p, .body = buf, .slot = slot,
    };

    for (unsigned n = 0; n < AGX_USEQ_MAX_OPS; n++) {
        uint32_t pos = p->useq_pos;
        UseqOpHandler *handler;

        if (!useq_fetch(fw, p, buf, &op.hdr)) {
            return AGX_USEQ_FAILED;
        }
        op.code = APPLE_FIELD_EX64(op.hdr, AGX_OP, CODE);
        AGX_TRACE(&fw->trace, useq_op, pipe_type, pos, op.code,
                  agx_useq_op_name(op.code));
        handler = useq_handlers[op.code];
        if (!handler) {
            agx_fw_crash(fw, "GPU firmware: microsequence opcode %s is not "
                         "supported", agx_useq_op_name(op.code));
            return AGX_USEQ_FAILED;
        }
        switch (handler(&op)) {
        case USEQ_NEXT:
            break;
        case USEQ_WAIT:
            return AGX_USEQ_WAIT;
        case USEQ_RETIRED:
            return AGX_USEQ_RETIRED;
        case USEQ_FAILED:
            return AGX_USEQ_FAILED;
        }
    }
    agx_fw_crash(fw, "GPU firmware: microsequence of command 0x%"
                 G_GINT64_MODIFIER "x runs more than %d ops", p->cmd_va,
                 AGX_USEQ_MAX_OPS);
    return AGX_USEQ_FAILED;
}
