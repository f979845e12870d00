/*
 * AGX USC: a stand-in for the shader interpreter (agx-usc.h)
 *
 * TEMPORARY: only what the compute data master's tests need until the
 * interpreter lands (branch isa): mov_imm, get_sr, device_store of
 * integers, uniform_store, jmp_exec_any, stop and trap, on an execution
 * mask that never changes.  At anything else the SIMD-group ends quietly,
 * so that Mesa's real shaders leave memory alone and their jobs complete,
 * as before the data master ran them.  Deleted when the interpreter is
 * merged.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/agx/agx-usc.h"

static uint64_t stub_lane_insns;

typedef struct StubGroup {
    const AgxUscLaunch *l;
    const AgxUscMemOps *ops;
    void *opaque;
    uint32_t tg[3];
    uint32_t launched;          /* lanes that run */
    uint32_t thread0;           /* linear index of lane 0 in the group */
    bool preamble;
    AgxUscLaunch *wl;           /* the preamble's uniforms */
    uint32_t r[AGX_USC_GPRS][AGX_USC_LANES];
} StubGroup;

static uint64_t bits(uint64_t v, unsigned lo, unsigned n)
{
    return (v >> lo) & ((1ULL << n) - 1);
}

static uint16_t stub_half(const uint32_t *file, unsigned h)
{
    return h & 1 ? file[h / 2] >> 16 : file[h / 2] & 0xffff;
}

static void stub_set_half(uint32_t *file, unsigned h, uint16_t v)
{
    file[h / 2] = h & 1 ? (file[h / 2] & 0xffff) | (uint32_t)v << 16
                        : (file[h / 2] & 0xffff0000u) | v;
}

static uint32_t stub_gpr(StubGroup *g, unsigned h, bool wide, unsigned lane)
{
    uint32_t v = g->r[(h / 2) % AGX_USC_GPRS][lane];

    return wide ? v : (h & 1 ? v >> 16 : v & 0xffff);
}

static void stub_set_gpr(StubGroup *g, unsigned h, bool wide, unsigned lane,
                         uint32_t v)
{
    uint32_t *r = &g->r[(h / 2) % AGX_USC_GPRS][lane];

    if (wide) {
        *r = v;
    } else {
        *r = h & 1 ? (*r & 0xffff) | v << 16
                   : (*r & 0xffff0000u) | (v & 0xffff);
    }
}

static uint32_t stub_sr(StubGroup *g, unsigned sr, unsigned lane)
{
    const AgxUscLaunch *l = g->l;
    uint32_t i = g->thread0 + lane;
    uint32_t pos[3] = {
        i % l->local[0], i / l->local[0] % l->local[1],
        i / l->local[0] / l->local[1],
    };

    switch (sr) {
    case 0 ... 2:
        return g->tg[sr];
    case 4 ... 6:
        return l->local[sr - 4];
    case 48 ... 50:
        return pos[sr - 48];
    case 51:
        return i;
    case 52:
        return lane;
    case 53:
        return i / AGX_USC_LANES;
    case 80 ... 82:
        return g->tg[sr - 80] * l->local[sr - 80] + pos[sr - 80];
    default:
        return 0;
    }
}

static AgxUscStatus stub_fault(AgxUscFault *f, AgxUscFaultKind kind,
                               uint64_t pc, uint64_t va, uint64_t insn)
{
    *f = (AgxUscFault) { .kind = kind, .pc = pc, .va = va, .insn = insn };
    return AGX_USC_FAULT;
}

/* device_store (0x45) and uniform_store (0x45, bits 29:27 = 7) */
static AgxUscStatus stub_store(StubGroup *g, uint64_t w, uint64_t pc,
                               AgxUscFault *fault)
{
    static const unsigned sizes[] = { 1, 2, 4 };
    unsigned fmt = bits(w, 7, 3) | bits(w, 48, 1) << 3;
    unsigned r = bits(w, 10, 6) | bits(w, 40, 2) << 6;
    unsigned a = bits(w, 16, 4) | bits(w, 36, 4) << 4;
    unsigned o = bits(w, 20, 4) | bits(w, 32, 4) << 4 | bits(w, 56, 8) << 8;
    unsigned mask = bits(w, 52, 4), shift = bits(w, 42, 2);
    bool wide = bits(w, 49, 1), imm = bits(w, 24, 1), zext = bits(w, 25, 1);
    const uint32_t *u = g->l->uniforms;

    if (bits(w, 27, 3) == 7) {
        /* uniform_store: 16-bit registers into uniform halves at O */
        for (unsigned k = 0; k < (unsigned)__builtin_popcount(mask); k++) {
            stub_set_half(g->wl->uniforms, (o + k) % (2 * AGX_USC_UNIFORMS),
                          stub_gpr(g, r + k, false, 0));
        }
        return AGX_USC_OK;
    }
    if (fmt >= G_N_ELEMENTS(sizes)) {
        return AGX_USC_OK;
    }
    for (unsigned lane = 0; lane < AGX_USC_LANES; lane++) {
        uint64_t base, idx, addr;
        unsigned reg = r, size = sizes[fmt];

        if (!(g->launched & (1u << lane))) {
            continue;
        }
        if (bits(w, 27, 1)) {
            base = stub_half(u, a) | (uint64_t)stub_half(u, a + 1) << 16 |
                   (uint64_t)stub_half(u, a + 2) << 32 |
                   (uint64_t)stub_half(u, a + 3) << 48;
        } else {
            base = stub_gpr(g, a, true, lane) |
                   (uint64_t)stub_gpr(g, a + 2, true, lane) << 32;
        }
        if (imm) {
            idx = zext ? o : (uint64_t)(int64_t)(int16_t)o;
        } else {
            uint32_t v = stub_gpr(g, o, true, lane);

            idx = zext ? v : (uint64_t)(int64_t)(int32_t)v;
        }
        addr = (base + (idx << shift) * size) & ~(uint64_t)(size - 1);
        for (unsigned c = 0; c < 4; c++) {
            uint8_t buf[4];
            uint32_t v;
            uint64_t fva;

            if (!(mask & (1u << c))) {
                continue;
            }
            v = stub_gpr(g, reg, wide, lane);
            reg += wide ? 2 : 1;
            buf[0] = v;
            buf[1] = v >> 8;
            buf[2] = v >> 16;
            buf[3] = v >> 24;
            if (!g->ops->write(g->opaque, addr + c * size, buf, size, &fva) &&
                !g->l->soft_faults) {
                return stub_fault(fault, AGX_USC_FAULT_STORE, pc, fva, w);
            }
        }
    }
    return AGX_USC_OK;
}

static AgxUscStatus stub_run(StubGroup *g, uint32_t start, uint64_t *budget,
                             AgxUscFault *fault)
{
    uint64_t pc = g->l->usc_base + start;

    for (;;) {
        uint8_t buf[8] = { 0 };
        uint64_t w, fva;
        unsigned len, lo, dst;

        if (!*budget) {
            return AGX_USC_BUDGET;
        }
        (*budget)--;
        stub_lane_insns += __builtin_popcount(g->launched);
        if (!g->ops->read(g->opaque, pc, buf, 2, &fva)) {
            return stub_fault(fault, AGX_USC_FAULT_FETCH, pc, fva, 0);
        }
        lo = buf[0] | buf[1] << 8;
        if (lo == 0x0088) {
            return AGX_USC_OK;
        }
        if (lo == 0x0008) {
            return stub_fault(fault, AGX_USC_FAULT_TRAP, pc, 0, lo);
        }
        if (lo == 0xc000) {
            if (!g->ops->read(g->opaque, pc + 2, buf + 2, 4, &fva)) {
                return stub_fault(fault, AGX_USC_FAULT_FETCH, pc, fva, 0);
            }
            pc += (int32_t)(buf[2] | buf[3] << 8 | buf[4] << 16 |
                            (uint32_t)buf[5] << 24);
            continue;
        }
        switch (lo & 0x7f) {
        case 0x62:
            len = (lo & 0x100 ? 6 : 4) + (lo & 0x8000 ? 2 : 0);
            break;
        case 0x72:
            len = 4;
            break;
        case 0x45:
            len = 6;
            break;
        default:
            /* Not the stand-in's: end the SIMD-group */
            return AGX_USC_OK;
        }
        if (!g->ops->read(g->opaque, pc + 2, buf + 2, len - 2, &fva)) {
            return stub_fault(fault, AGX_USC_FAULT_FETCH, pc, fva, 0);
        }
        if ((lo & 0x7f) == 0x45 && (buf[5] & 0x80)) {
            len = 8;
            if (!g->ops->read(g->opaque, pc + 6, buf + 6, 2, &fva)) {
                return stub_fault(fault, AGX_USC_FAULT_FETCH, pc, fva, 0);
            }
        }
        w = 0;
        for (int i = 7; i >= 0; i--) {
            w = w << 8 | buf[i];
        }
        dst = bits(w, 9, 6);
        if (len == 8 && (lo & 0x7f) == 0x62) {
            dst |= bits(w, 60, 2) << 6;
        }
        switch (lo & 0x7f) {
        case 0x62:
            for (unsigned lane = 0; lane < AGX_USC_LANES; lane++) {
                if (g->launched & (1u << lane)) {
                    stub_set_gpr(g, dst, lo & 0x100, lane,
                                 lo & 0x100 ? bits(w, 16, 32)
                                            : bits(w, 16, 16));
                }
            }
            break;
        case 0x72:
            dst |= bits(w, 28, 2) << 6;
            for (unsigned lane = 0; lane < AGX_USC_LANES; lane++) {
                if (g->launched & (1u << lane)) {
                    stub_set_gpr(g, dst, lo & 0x100, lane,
                                 stub_sr(g, bits(w, 16, 6) |
                                         bits(w, 26, 2) << 6, lane));
                }
            }
            break;
        default:
            if (bits(w, 0, 7) != 0x45 || stub_store(g, w, pc, fault)) {
                return AGX_USC_FAULT;
            }
            break;
        }
        pc += len;
    }
}

AgxUscStatus agx_usc_run_preamble(AgxUscLaunch *l, const AgxUscMemOps *ops,
                                  void *opaque, uint64_t *budget,
                                  AgxUscFault *fault)
{
    g_autofree StubGroup *g = g_new0(StubGroup, 1);

    if (!l->has_preamble) {
        return AGX_USC_OK;
    }
    g->l = l;
    g->wl = l;
    g->ops = ops;
    g->opaque = opaque;
    g->launched = 1;
    g->preamble = true;
    return stub_run(g, l->preamble_pc, budget, fault);
}

AgxUscStatus agx_usc_run_threadgroup(const AgxUscLaunch *l,
                                     const uint32_t tg[3],
                                     const AgxUscMemOps *ops, void *opaque,
                                     uint64_t *budget, AgxUscFault *fault)
{
    g_autofree StubGroup *g = g_new0(StubGroup, 1);
    uint32_t threads = l->local[0] * l->local[1] * l->local[2];

    g->l = l;
    g->ops = ops;
    g->opaque = opaque;
    memcpy(g->tg, tg, sizeof(g->tg));
    for (g->thread0 = 0; g->thread0 < threads;
         g->thread0 += AGX_USC_LANES) {
        AgxUscStatus st;

        g->launched = 0;
        for (unsigned lane = 0; lane < AGX_USC_LANES; lane++) {
            uint32_t i = g->thread0 + lane;
            uint32_t pos[3] = {
                i % l->local[0], i / l->local[0] % l->local[1],
                i / l->local[0] / l->local[1],
            };
            bool in = i < threads;

            for (int d = 0; d < 3 && in; d++) {
                in = (uint64_t)tg[d] * l->local[d] + pos[d] < l->global[d];
            }
            g->launched |= (uint32_t)in << lane;
        }
        memset(g->r, 0, sizeof(g->r));
        st = stub_run(g, l->main_pc, budget, fault);
        if (st != AGX_USC_OK) {
            return st;
        }
    }
    return AGX_USC_OK;
}

uint64_t agx_usc_lane_insns(void)
{
    return stub_lane_insns;
}
