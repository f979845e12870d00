/*
 * AGX USC interpreter: running the preamble and the threadgroups of a
 * launch
 *
 * A SIMD-group is 32 lanes with one PC and an execution mask; its GPRs are
 * kept register-major (r[reg * 32 + lane]) so that every instruction is a
 * few tight loops over 32 lanes: read the sources, compute, blend the
 * result into the active lanes.  The SIMD-groups of a threadgroup run one
 * after the other, each until it stops or reaches a threadgroup barrier;
 * when every one still running waits at a barrier, they are all released.
 * Semantics and their sources: shared/reference/agx-shaders.md (sections
 * cited as §n); where the sources left a choice, the comment says so.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-usc-internal.h"

#define LANES           AGX_USC_LANES
/* Hardware threadgroups hold at most 1024 threads */
#define MAX_TG_THREADS  1024
/* Per-thread stack this interpreter grants (Mesa's are far smaller) */
#define MAX_STACK       (16 * 1024)

typedef enum SimdState {
    SIMD_RUN,
    SIMD_BARRIER,
    SIMD_DONE,
} SimdState;

typedef struct Simd {
    uint32_t *r;                /* GPRs, register-major */
    uint32_t lm[LANES];         /* ~0 for active lanes: the blend mask */
    uint32_t exec, launched;
    uint32_t index;             /* SIMD-group index in the threadgroup */
    int32_t pc;                 /* instruction index */
    SimdState state;
    uint8_t *stack;             /* per lane: stack_cap bytes each */
    uint32_t stack_cap, sp;
    uint32_t base_cap;          /* the launch's stack size (capped) */
} Simd;

typedef struct Ctx {
    const AgxUscLaunch *l;
    uint32_t *uniforms;         /* writable (the preamble's) or NULL */
    const uint32_t *uni;
    const AgxUscMemOps *ops;
    void *opaque;
    AgxUscProgram *prog;
    uint32_t gpr_halves;
    uint32_t tg[3];
    uint8_t *shared;
    uint32_t shared_bytes;
    uint64_t *budget;
    AgxUscFault *fault;
    uint64_t lane_insns;
} Ctx;

static uint64_t total_lane_insns;

uint64_t agx_usc_lane_insns(void)
{
    return __atomic_load_n(&total_lane_insns, __ATOMIC_RELAXED);
}

/* --- faults -------------------------------------------------------------- */

static AgxUscStatus fault(Ctx *c, const AgxUscInsn *insn, AgxUscFaultKind k,
                          uint64_t va)
{
    c->fault->kind = k;
    c->fault->pc = c->prog->va + insn->offset;
    c->fault->va = va;
    c->fault->insn = insn->raw[0];
    return AGX_USC_FAULT;
}

/* --- register and operand access ----------------------------------------- */

static inline uint32_t *row(Simd *s, unsigned reg)
{
    return &s->r[reg * LANES];
}

static inline uint32_t get_uni16(const Ctx *c, unsigned half)
{
    return (c->uni[(half >> 1) & 0xff] >> (16 * (half & 1))) & 0xffff;
}

static inline uint64_t get_uni64(const Ctx *c, unsigned half)
{
    return c->uni[(half >> 1) & 0xff] |
           (uint64_t)c->uni[((half >> 1) + 1) & 0xff] << 32;
}

static void set_exec(Simd *s, uint32_t exec)
{
    s->exec = exec & s->launched;
    for (int l = 0; l < LANES; l++) {
        s->lm[l] = -(uint32_t)((s->exec >> l) & 1);
    }
}

/*
 * An integer source as 32-bit lane values, zero-extended (or
 * sign-extended, for AGX_MOD_SX) from its own width; a 32-bit GPR is
 * returned in place
 */
static const uint32_t *rd32(const Ctx *c, Simd *s, const AgxUscOpnd *o,
                            uint32_t *tmp)
{
    const uint32_t *r;
    uint32_t v;

    switch (o->type) {
    case AGX_OPND_GPR:
        r = row(s, o->idx >> 1);
        if (o->size >= 32) {
            return r;
        }
        if (o->idx & 1) {
            if (o->mods & AGX_MOD_SX) {
                for (int l = 0; l < LANES; l++) {
                    tmp[l] = (uint32_t)((int32_t)r[l] >> 16);
                }
            } else {
                for (int l = 0; l < LANES; l++) {
                    tmp[l] = r[l] >> 16;
                }
            }
        } else {
            if (o->mods & AGX_MOD_SX) {
                for (int l = 0; l < LANES; l++) {
                    tmp[l] = (uint32_t)(int32_t)(int16_t)r[l];
                }
            } else {
                for (int l = 0; l < LANES; l++) {
                    tmp[l] = r[l] & 0xffff;
                }
            }
        }
        return tmp;
    case AGX_OPND_UNI:
        if (o->size == 32) {
            v = c->uni[(o->idx >> 1) & 0xff];
        } else {
            v = get_uni16(c, o->idx);
            if (o->mods & AGX_MOD_SX) {
                v = (uint32_t)(int32_t)(int16_t)v;
            }
        }
        break;
    case AGX_OPND_IMM:
        v = o->imm;
        break;
    default:
        v = 0;
        break;
    }
    for (int l = 0; l < LANES; l++) {
        tmp[l] = v;
    }
    return tmp;
}

/* An integer source as 64-bit lane values, extended from its width */
static void rd64(const Ctx *c, Simd *s, const AgxUscOpnd *o, uint64_t *out)
{
    uint32_t tmp[LANES];
    const uint32_t *v;

    if (o->type == AGX_OPND_GPR && o->size == 64) {
        const uint32_t *lo = row(s, o->idx >> 1);
        const uint32_t *hi = row(s, (o->idx >> 1) + 1);

        for (int l = 0; l < LANES; l++) {
            out[l] = lo[l] | (uint64_t)hi[l] << 32;
        }
        return;
    }
    v = rd32(c, s, o, tmp);
    if ((o->mods & AGX_MOD_SX) && o->type != AGX_OPND_IMM) {
        for (int l = 0; l < LANES; l++) {
            out[l] = (uint64_t)(int64_t)(int32_t)v[l];
        }
    } else {
        for (int l = 0; l < LANES; l++) {
            out[l] = v[l];
        }
    }
}

/* Raw bits of a source, zero-extended, no modifiers */
static const uint32_t *rd_raw(const Ctx *c, Simd *s, const AgxUscOpnd *o,
                              uint32_t *tmp)
{
    AgxUscOpnd plain = *o;

    plain.mods = 0;
    return rd32(c, s, &plain, tmp);
}

/*
 * A float source as doubles: f16 exact (f16 denormals are kept), f32 with
 * denormals flushed to zero keeping the sign (§4, applegpu Float32ToReal
 * with flush_to_zero), immediates as minifloats; then abs, then neg (§3.2)
 */
static void rdf(const Ctx *c, Simd *s, const AgxUscOpnd *o, double *out)
{
    uint32_t tmp[LANES];
    const uint32_t *v;

    if (o->type == AGX_OPND_IMM) {
        double d = usc_f32_value(o->imm);

        for (int l = 0; l < LANES; l++) {
            out[l] = d;
        }
    } else {
        v = rd_raw(c, s, o, tmp);
        if (o->size == 16) {
            for (int l = 0; l < LANES; l++) {
                out[l] = usc_f16_to_f64(v[l]);
            }
        } else {
            for (int l = 0; l < LANES; l++) {
                uint32_t b = v[l];

                if (!(b & 0x7f800000)) {
                    b &= 0x80000000;
                }
                out[l] = usc_f32_value(b);
            }
        }
    }
    if (o->mods & AGX_MOD_ABS) {
        for (int l = 0; l < LANES; l++) {
            out[l] = fabs(out[l]);
        }
    }
    if (o->mods & AGX_MOD_NEG) {
        for (int l = 0; l < LANES; l++) {
            out[l] = -out[l];
        }
    }
}

/* Write @v (truncated to the destination) into the lanes of @m */
static void wr32m(Simd *s, const AgxUscOpnd *d, const uint32_t *v,
                  const uint32_t *m)
{
    uint32_t *r = row(s, d->idx >> 1);

    if (d->size >= 32) {
        for (int l = 0; l < LANES; l++) {
            r[l] = (r[l] & ~m[l]) | (v[l] & m[l]);
        }
        if (d->size == 64) {
            r = row(s, (d->idx >> 1) + 1);
            for (int l = 0; l < LANES; l++) {
                r[l] &= ~m[l];
            }
        }
    } else if (d->idx & 1) {
        for (int l = 0; l < LANES; l++) {
            uint32_t mm = m[l] & 0xffff0000;

            r[l] = (r[l] & ~mm) | ((v[l] << 16) & mm);
        }
    } else {
        for (int l = 0; l < LANES; l++) {
            uint32_t mm = m[l] & 0xffff;

            r[l] = (r[l] & ~mm) | (v[l] & mm);
        }
    }
}

static inline void wr32(Simd *s, const AgxUscOpnd *d, const uint32_t *v)
{
    wr32m(s, d, v, s->lm);
}

static void wr64(Simd *s, const AgxUscOpnd *d, const uint64_t *v)
{
    uint32_t lo[LANES];

    for (int l = 0; l < LANES; l++) {
        lo[l] = v[l];
    }
    if (d->size == 64) {
        uint32_t *r0 = row(s, d->idx >> 1), *r1 = row(s, (d->idx >> 1) + 1);

        for (int l = 0; l < LANES; l++) {
            uint32_t m = s->lm[l];

            r0[l] = (r0[l] & ~m) | (lo[l] & m);
            r1[l] = (r1[l] & ~m) | ((uint32_t)(v[l] >> 32) & m);
        }
    } else {
        wr32(s, d, lo);
    }
}

/* A single lane's register half (16-bit registers of memory ops) */
static inline uint32_t get_half(Simd *s, unsigned half, int lane)
{
    return (row(s, half >> 1)[lane] >> (16 * (half & 1))) & 0xffff;
}

static inline void set_half(Simd *s, unsigned half, int lane, uint32_t v)
{
    uint32_t *r = &row(s, half >> 1)[lane];
    unsigned sh = 16 * (half & 1);

    *r = (*r & ~(0xffffu << sh)) | ((v & 0xffff) << sh);
}

/* --- float results ------------------------------------------------------- */

/*
 * An f32-class result: values below 2^-126 (before rounding) flush to zero
 * keeping the sign (§4, applegpu fma.py f64_to_f32 with ftz), then round to
 * nearest even; NaN is the default NaN 0x7fc00000 (§4, no payloads).
 * Saturate (bit 6) clamps the rounded value to [0, 1], NaN and -0 giving
 * +0 (applegpu fma.py saturate64).  A 16-bit destination then rounds the
 * f32 to f16 (a double rounding, as applegpu models and hardware-tests:
 * "fmadd32 to 16-bit double-rounds").
 */
static uint32_t out_f32(double d, bool sat, unsigned dst_size)
{
    const double f32_min_normal = ldexp(1, -126);
    uint32_t b;

    if (isnan(d)) {
        b = 0x7fc00000;
    } else if (fabs(d) < f32_min_normal) {
        b = signbit(d) ? 0x80000000 : 0;
    } else {
        b = usc_f32_bits((float)d);
    }
    if (sat) {
        if ((b & 0x80000000) || (b & 0x7fffffff) > 0x7f800000) {
            b = 0;
        } else if (b > 0x3f800000) {
            b = 0x3f800000;
        }
    }
    if (dst_size == 16) {
        return usc_f64_to_f16(usc_f32_value(b), AGX_ROUND_RTE);
    }
    return b;
}

/* An f16-class result: no flushing (§4), saturate as above */
static uint32_t out_f16(double d, bool sat)
{
    if (sat) {
        if (isnan(d) || signbit(d)) {
            d = 0;
        } else if (d > 1) {
            d = 1;
        }
    }
    return usc_f64_to_f16(d, AGX_ROUND_RTE);
}

/* --- comparisons --------------------------------------------------------- */

/* Integer condition (§3.2): bits 1:0 eq/lt/gt, bit 2 signed */
static bool icmp(unsigned cond, uint64_t a, uint64_t b)
{
    switch (cond) {
    case 0:
    case 4:
        return a == b;
    case 1:
        return a < b;
    case 2:
        return a > b;
    case 5:
        return (int64_t)a < (int64_t)b;
    case 6:
        return (int64_t)a > (int64_t)b;
    default:
        return false;
    }
}

static bool icond_valid(unsigned cond)
{
    return (cond & 3) != 3;
}

/*
 * Float condition (§3.2): 0 eq, 1 lt, 2 gt, 3 ltn, 5 ge, 6 le, 7 gtn.
 * ltn/gtn are "NaN loses" (fmin/fmax): a NaN operand makes the other one
 * win (inferred from Mesa's use, agx_compile.c fmin/fmax).
 */
static bool fcmp(unsigned cond, double a, double b)
{
    switch (cond) {
    case 0:
        return a == b;
    case 1:
        return a < b;
    case 2:
        return a > b;
    case 3:
        return !isnan(a) && (isnan(b) || a < b);
    case 5:
        return a >= b;
    case 6:
        return a <= b;
    case 7:
        return !isnan(a) && (isnan(b) || a > b);
    default:
        return false;
    }
}

/*
 * A compare over all 32 lanes (active or not, as the exec-mask
 * instructions need): bit l set when lane l's condition holds
 */
static uint32_t compare_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                              bool is_float)
{
    unsigned cond = insn->f[AGX_USC_F_COND];
    uint32_t m = 0;

    if (is_float) {
        double a[LANES], b[LANES];

        rdf(c, s, &insn->o[1], a);
        rdf(c, s, &insn->o[2], b);
        for (int l = 0; l < LANES; l++) {
            m |= (uint32_t)fcmp(cond, a[l], b[l]) << l;
        }
    } else {
        uint64_t a[LANES], b[LANES];
        AgxUscOpnd oa = insn->o[1], ob = insn->o[2];

        if (cond & 4) {
            /* signed: both sources sign-extended from their own width */
            oa.mods |= AGX_MOD_SX;
            ob.mods |= AGX_MOD_SX;
        }
        rd64(c, s, &oa, a);
        rd64(c, s, &ob, b);
        if (cond & 4) {
            /* rd64 leaves immediates zero-extended: as 16-bit values */
            if (oa.type == AGX_OPND_IMM) {
                for (int l = 0; l < LANES; l++) {
                    a[l] = (int64_t)(int16_t)a[l];
                }
            }
            if (ob.type == AGX_OPND_IMM) {
                for (int l = 0; l < LANES; l++) {
                    b[l] = (int64_t)(int16_t)b[l];
                }
            }
        }
        for (int l = 0; l < LANES; l++) {
            m |= (uint32_t)icmp(cond, a[l], b[l]) << l;
        }
    }
    if (insn->f[AGX_USC_F_INV]) {
        m = ~m;
    }
    return m;
}

/* --- control flow: the r0l nesting counter (§2.4) ------------------------ */

static void exec_stack(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint32_t *r0 = row(s, 0);
    unsigned n = insn->f[AGX_USC_F_NEST];
    uint32_t cond = 0, exec = 0;

    switch (insn->op) {
    case AGX_USC_OP_IF_ICMP:
    case AGX_USC_OP_ELSE_ICMP:
    case AGX_USC_OP_WHILE_ICMP:
        cond = compare_lanes(c, s, insn, false);
        break;
    case AGX_USC_OP_IF_FCMP:
    case AGX_USC_OP_ELSE_FCMP:
    case AGX_USC_OP_WHILE_FCMP:
        cond = compare_lanes(c, s, insn, true);
        break;
    default:
        break;
    }
    for (int l = 0; l < LANES; l++) {
        uint32_t v = r0[l] & 0xffff;
        bool cl = (cond >> l) & 1;

        switch (insn->op) {
        case AGX_USC_OP_IF_ICMP:
        case AGX_USC_OP_IF_FCMP:
            if (v) {
                v += n;
            } else if (!cl) {
                v = 1;
            }
            break;
        case AGX_USC_OP_ELSE_ICMP:
        case AGX_USC_OP_ELSE_FCMP:
            if (v == 0) {
                v = n;
            } else if (v == 1) {
                v = cl ? 0 : 1;
            }
            break;
        case AGX_USC_OP_WHILE_ICMP:
        case AGX_USC_OP_WHILE_FCMP:
            if (v < n) {
                v = cl ? 0 : n;
            }
            break;
        default:    /* pop_exec */
            v = v > n ? v - n : 0;
            break;
        }
        r0[l] = (r0[l] & 0xffff0000) | (v & 0xffff);
        exec |= (uint32_t)((v & 0xffff) == 0) << l;
    }
    set_exec(s, exec);
}

/* --- special registers (§2.3) -------------------------------------------- */

static bool get_sr(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const AgxUscLaunch *l = c->l;
    unsigned sr = insn->f[AGX_USC_F_SR];
    uint32_t v[LANES];
    uint32_t lx = l->local[0] ? l->local[0] : 1;
    uint32_t ly = l->local[1] ? l->local[1] : 1;

    for (int lane = 0; lane < LANES; lane++) {
        uint32_t i = s->index * LANES + lane;
        uint32_t pos[3] = { i % lx, (i / lx) % ly, i / (lx * ly) };
        uint32_t quad = (s->exec >> (lane & ~3)) & 0xf;

        switch (sr) {
        case 0 ... 2:
            v[lane] = c->tg[sr];
            break;
        case 4 ... 6:
            v[lane] = l->local[sr - 4];
            break;
        case 8 ... 10:
            /* Metal's dispatch size: the declared one (unconfirmed) */
            v[lane] = l->local[sr - 8];
            break;
        case 14:        /* samples_log2 */
        case 20:        /* core_id: one core */
        case 21:        /* vm_slot: not visible to the interpreter */
        case 60:        /* coverage_mask, fragment only */
        case 62:        /* backfacing */
        case 124:       /* input_sample_mask */
        case 144:       /* helper program registers: no helper runs */
        case 146:
        case 147:
            v[lane] = 0;
            break;
        case 48 ... 50:
            v[lane] = pos[sr - 48];
            break;
        case 51:
            v[lane] = i;
            break;
        case 52:
            v[lane] = lane;
            break;
        case 53:
            v[lane] = s->index;
            break;
        case 56:
            v[lane] = __builtin_popcount(quad & ((1u << (lane & 3)) - 1));
            break;
        case 57:
            v[lane] = __builtin_popcount(quad);
            break;
        case 58:
            v[lane] = __builtin_popcount(s->exec & ((1u << lane) - 1));
            break;
        case 59:
            v[lane] = __builtin_popcount(s->exec);
            break;
        case 63:
            v[lane] = 1;
            break;
        case 80 ... 82:
            v[lane] = c->tg[sr - 80] * l->local[sr - 80] + pos[sr - 80];
            break;
        default:
            return false;
        }
    }
    wr32(s, &insn->o[0], v);
    return true;
}

/* --- integer ------------------------------------------------------------- */

static uint64_t saturate(__int128 v, unsigned bits, bool is_signed)
{
    __int128 lo = is_signed ? -((__int128)1 << (bits - 1)) : 0;
    __int128 hi = is_signed ? ((__int128)1 << (bits - 1)) - 1
                            : ((__int128)1 << bits) - 1;

    return v < lo ? (uint64_t)lo : v > hi ? (uint64_t)hi : (uint64_t)v;
}

/*
 * iadd / imad (§3.6, applegpu IAdd/IMAdd pseudocode): D = [A * B] + ((±X)
 * << shift), X the last source; shift 5+ gives 0; saturate when bit 6 is
 * set, shift is 0 and the widths are at most 32 (iadd: every source; imad:
 * C), signed if any source is sign-extended
 */
static void int_add(const Ctx *c, Simd *s, const AgxUscInsn *insn, bool mad)
{
    const AgxUscOpnd *d = &insn->o[0];
    const AgxUscOpnd *x = &insn->o[mad ? 3 : 2];
    unsigned shift = insn->f[AGX_USC_F_SHIFT];
    bool neg = insn->f[AGX_USC_F_NEG];
    uint64_t a[LANES], b[LANES], r[LANES];
    bool sat = insn->f[AGX_USC_F_SAT] && shift == 0 && d->size <= 32 &&
               x->size <= 32 && (mad || insn->o[1].size <= 32);

    if (!sat && d->size <= 32 && x->size <= 32 && insn->o[1].size <= 32 &&
        (!mad || insn->o[2].size <= 32) && shift < 5) {
        /* the common case: all in 32 bits */
        uint32_t ta[LANES], tb[LANES], tx[LANES], v[LANES];
        const uint32_t *pa = rd32(c, s, &insn->o[1], ta);
        const uint32_t *px = rd32(c, s, x, tx);

        if (mad) {
            const uint32_t *pb = rd32(c, s, &insn->o[2], tb);

            for (int l = 0; l < LANES; l++) {
                uint32_t xv = neg ? -px[l] : px[l];

                v[l] = pa[l] * pb[l] + (xv << shift);
            }
        } else {
            for (int l = 0; l < LANES; l++) {
                uint32_t xv = neg ? -px[l] : px[l];

                v[l] = pa[l] + (xv << shift);
            }
        }
        wr32(s, d, v);
        return;
    }
    rd64(c, s, &insn->o[1], a);
    rd64(c, s, x, r);
    if (mad) {
        rd64(c, s, &insn->o[2], b);
    }
    for (int l = 0; l < LANES; l++) {
        uint64_t xv = neg ? -r[l] : r[l];

        xv = shift < 5 ? xv << shift : 0;
        if (sat) {
            bool sgn = (insn->o[1].mods | x->mods |
                        (mad ? insn->o[2].mods : 0)) & AGX_MOD_SX;
            __int128 va = sgn ? (__int128)(int64_t)a[l] : (__int128)a[l];
            __int128 vx = (x->mods & AGX_MOD_SX) || neg ?
                          (__int128)(int64_t)r[l] : (__int128)r[l];

            if (neg) {
                vx = -vx;
            }
            if (mad) {
                __int128 vb = sgn ? (__int128)(int64_t)b[l] : (__int128)b[l];

                va *= vb;
            }
            r[l] = saturate(va + vx, d->size, sgn);
        } else {
            r[l] = (mad ? a[l] * b[l] : a[l]) + xv;
        }
    }
    wr64(s, d, r);
}

static inline uint64_t shl64(uint64_t v, unsigned n)
{
    return n < 64 ? v << n : 0;
}

static inline uint64_t shr64(uint64_t v, unsigned n)
{
    return n < 64 ? v >> n : 0;
}

/*
 * Bitfield and shift family (§3.6, applegpu bitfield pseudocode): shift =
 * C & 0x7f (B for asr/asrh), never reduced modulo 32; mask m: 0 = all 32
 * bits, else 2^m - 1; results truncated to the destination
 */
static void bitfield(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint32_t ta[LANES], tb[LANES], tc[LANES], v[LANES];
    const uint32_t *a = rd32(c, s, &insn->o[1], ta);
    const uint32_t *b = rd32(c, s, &insn->o[2], tb);
    const uint32_t *cc = insn->op == AGX_USC_OP_ASR ||
                         insn->op == AGX_USC_OP_ASRH ? b :
                         rd32(c, s, &insn->o[3], tc);
    unsigned m = insn->f[AGX_USC_F_M];
    uint64_t mask = m ? (1ull << m) - 1 : 0xffffffffull;
    int asize = insn->o[1].type == AGX_OPND_IMM ? 16 : insn->o[1].size;

    for (int l = 0; l < LANES; l++) {
        unsigned sh = cc[l] & 0x7f;
        uint64_t av = a[l], bv = b[l], sm;
        int64_t sa;

        switch (insn->op) {
        case AGX_USC_OP_BFI:
            v[l] = (av & ~shl64(mask, sh)) | shl64(bv & mask, sh);
            break;
        case AGX_USC_OP_BFEIL:
            v[l] = (av & ~mask) | (shr64(bv, sh) & mask);
            break;
        case AGX_USC_OP_EXTR:
            v[l] = shr64(bv << 32 | av, sh) & mask;
            break;
        case AGX_USC_OP_SHLHI:
            sm = shl64(mask, sh > 32 ? sh - 32 : 0);
            v[l] = ((sh >= 32 ? shl64(bv, sh - 32) : bv >> (32 - sh)) & sm) |
                   (av & ~sm);
            break;
        case AGX_USC_OP_SHRHI:
            sm = shr64(mask << 32, sh < 32 ? sh : 32);
            v[l] = (shr64(bv << 32, sh) & sm) | (av & ~sm);
            break;
        case AGX_USC_OP_ASR:
            sa = asize == 16 ? (int16_t)av : (int32_t)av;
            v[l] = sa >> (sh > 63 ? 63 : sh);
            break;
        default:    /* asrh */
            sa = asize == 16 ? (int16_t)av : (int32_t)av;
            v[l] = (uint32_t)((sa * ((int64_t)1 << 32)) >> (sh > 63 ? 63 : sh));
            break;
        }
    }
    wr32(s, &insn->o[0], v);
}

/* bitop: result bit = tt[(b << 1) | a] (§3.6) */
static void bitop(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint32_t ta[LANES], tb[LANES], v[LANES];
    const uint32_t *a = rd32(c, s, &insn->o[1], ta);
    const uint32_t *b = rd32(c, s, &insn->o[2], tb);
    unsigned tt = insn->f[AGX_USC_F_TT];
    uint32_t t0 = -(tt & 1), t1 = -((tt >> 1) & 1);
    uint32_t t2 = -((tt >> 2) & 1), t3 = -((tt >> 3) & 1);

    for (int l = 0; l < LANES; l++) {
        v[l] = (t0 & ~a[l] & ~b[l]) | (t1 & a[l] & ~b[l]) |
               (t2 & ~a[l] & b[l]) | (t3 & a[l] & b[l]);
    }
    wr32(s, &insn->o[0], v);
}

static void int_unary(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint32_t ta[LANES], tb[LANES], v[LANES];
    const uint32_t *a = rd32(c, s, &insn->o[1], ta);
    const uint32_t *b;

    switch (insn->op) {
    case AGX_USC_OP_BITREV:
        for (int l = 0; l < LANES; l++) {
            uint32_t x = a[l];

            x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1);
            x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2);
            x = ((x >> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
            v[l] = __builtin_bswap32(x);
        }
        if (insn->o[0].size == 16) {
            /* 16-bit: the reversal of the 16-bit value (assumed) */
            for (int l = 0; l < LANES; l++) {
                v[l] >>= 16;
            }
        }
        break;
    case AGX_USC_OP_POPCOUNT:
        for (int l = 0; l < LANES; l++) {
            v[l] = __builtin_popcount(a[l]);
        }
        break;
    case AGX_USC_OP_FFS:
        /* the most significant set bit, all ones for 0 (§3.6) */
        for (int l = 0; l < LANES; l++) {
            v[l] = a[l] ? 31 - __builtin_clz(a[l]) : 0xffffffff;
        }
        break;
    default:    /* intl */
        b = rd32(c, s, &insn->o[2], tb);
        for (int l = 0; l < LANES; l++) {
            uint32_t r = 0;

            for (int i = 0; i < 16; i++) {
                r |= ((a[l] >> i) & 1) << (2 * i);
                r |= ((b[l] >> i) & 1) << (2 * i + 1);
            }
            v[l] = r;
        }
        break;
    }
    wr32(s, &insn->o[0], v);
}

/*
 * convert (§3.6): mode in the A slot, rounding in bits 27:26 (0 rtz, 1
 * rte; 2 and 3 taken as toward -inf / +inf, applegpu's guess, unconfirmed);
 * float widths follow the register widths.  Out-of-range float to integer
 * saturates and NaN gives 0 (the sheet's suggestion: unconfirmed).
 */
static bool convert(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const AgxUscOpnd *d = &insn->o[0], *src = &insn->o[2];
    unsigned mode = insn->f[AGX_USC_F_MODE];
    int round = insn->f[AGX_USC_F_ROUND];
    uint32_t tb[LANES], v[LANES];
    const uint32_t *b = rd_raw(c, s, src, tb);
    double lo = 0, hi = 0;

    if (insn->f[AGX_USC_F_MODET]) {
        return false;
    }
    switch (mode) {
    case 0: case 1: case 6: case 7: case 10: case 11:
        for (int l = 0; l < LANES; l++) {
            double x;

            switch (mode) {
            case 0:
                x = (uint8_t)b[l];
                break;
            case 1:
                x = (int8_t)b[l];
                break;
            case 6:
                x = (uint16_t)b[l];
                break;
            case 7:
                x = (int16_t)b[l];
                break;
            case 10:
                x = src->size == 16 ? (uint16_t)b[l] : b[l];
                break;
            default:
                x = src->size == 16 ? (int16_t)b[l] : (int32_t)b[l];
                break;
            }
            v[l] = d->size == 16 ? usc_f64_to_f16(x, round)
                                 : usc_f64_to_f32(x, round);
        }
        break;
    case 4: case 5: case 8: case 9:
        switch (mode) {
        case 4:
            hi = 65535;
            break;
        case 5:
            lo = -32768;
            hi = 32767;
            break;
        case 8:
            hi = 4294967295.0;
            break;
        default:
            lo = -2147483648.0;
            hi = 2147483647.0;
            break;
        }
        for (int l = 0; l < LANES; l++) {
            double x;

            if (src->size == 16) {
                x = usc_f16_to_f64(b[l]);
            } else {
                x = usc_f32_value(b[l]);
            }
            if (isnan(x)) {
                x = 0;
            }
            switch (round) {
            case AGX_ROUND_RTZ:
                x = trunc(x);
                break;
            case AGX_ROUND_RTN:
                x = floor(x);
                break;
            case AGX_ROUND_RTP:
                x = ceil(x);
                break;
            default:
                x = nearbyint(x);
                break;
            }
            x = x < lo ? lo : x > hi ? hi : x;
            v[l] = lo < 0 ? (uint32_t)(int64_t)x : (uint32_t)x;
        }
        break;
    default:
        return false;
    }
    wr32(s, d, v);
    return true;
}

/* icmpsel / fcmpsel: D = cond(A, B) ? X : Y, X and Y bit-exact (§3.6) */
static bool cmpsel(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                   bool is_float)
{
    uint32_t tx[LANES], ty[LANES], v[LANES], m;
    const uint32_t *x, *y;
    unsigned cond = insn->f[AGX_USC_F_COND];

    if (is_float ? cond == 4 : !icond_valid(cond)) {
        return false;
    }
    m = compare_lanes(c, s, insn, is_float);
    x = rd_raw(c, s, &insn->o[3], tx);
    y = rd_raw(c, s, &insn->o[4], ty);
    for (int l = 0; l < LANES; l++) {
        v[l] = ((m >> l) & 1) ? x[l] : y[l];
    }
    wr32(s, &insn->o[0], v);
    return true;
}

/* --- float arithmetic ---------------------------------------------------- */

static void float_arith(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    double a[LANES], b[LANES], cc[LANES];
    uint32_t v[LANES];
    bool sat = insn->f[AGX_USC_F_SAT];
    unsigned dsize = insn->o[0].size;
    bool half = insn->op == AGX_USC_OP_HADD || insn->op == AGX_USC_OP_HMUL ||
                insn->op == AGX_USC_OP_HFMA;

    rdf(c, s, &insn->o[1], a);
    rdf(c, s, &insn->o[2], b);
    switch (insn->op) {
    case AGX_USC_OP_FADD:
    case AGX_USC_OP_HADD:
        for (int l = 0; l < LANES; l++) {
            a[l] = a[l] + b[l];
        }
        break;
    case AGX_USC_OP_FMUL:
    case AGX_USC_OP_HMUL:
        /*
         * IEEE product, so (-x) * 0 = -0; applegpu models fmul as
         * fma(a, b, +0) which would give +0 (§4: unconfirmed, IEEE chosen)
         */
        for (int l = 0; l < LANES; l++) {
            a[l] = a[l] * b[l];
        }
        break;
    default:    /* ffma, hfma: one rounding */
        rdf(c, s, &insn->o[3], cc);
        for (int l = 0; l < LANES; l++) {
            a[l] = usc_fma_odd(a[l], b[l], cc[l]);
        }
        break;
    }
    if (half) {
        for (int l = 0; l < LANES; l++) {
            v[l] = out_f16(a[l], sat);
        }
    } else {
        for (int l = 0; l < LANES; l++) {
            v[l] = out_f32(a[l], sat, dsize);
        }
    }
    wr32(s, &insn->o[0], v);
}

/*
 * sin_pt_1 folds a quarter-turn angle q in [0, 4) to y in [-1, 1];
 * sin_pt_2 gives sin(pi y / 2) / y, so that their product is sin(q pi / 2)
 * (§3.5: the split between the two is this interpreter's choice, only the
 * product is what Mesa uses)
 */
static double sin_pt_1(double q)
{
    if (q < 1) {
        return q;
    }
    return q < 3 ? 2 - q : q - 4;
}

static double sin_pt_2(double y)
{
    return y == 0 ? M_PI / 2 : sin(M_PI / 2 * y) / y;
}

static void float_unary(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    double a[LANES];
    uint32_t v[LANES];

    rdf(c, s, &insn->o[1], a);
    for (int l = 0; l < LANES; l++) {
        double x = a[l];

        switch (insn->op) {
        case AGX_USC_OP_FLOOR:
            x = floor(x);
            break;
        case AGX_USC_OP_CEIL:
            x = ceil(x);
            break;
        case AGX_USC_OP_TRUNC:
            x = trunc(x);
            break;
        case AGX_USC_OP_ROUNDEVEN:
            x = nearbyint(x);
            break;
        case AGX_USC_OP_RCP:
            /* correctly rounded; hardware may be 1 ULP off (§3.5) */
            x = 1 / x;
            break;
        case AGX_USC_OP_RSQRT:
            x = 1 / sqrt(x);
            break;
        case AGX_USC_OP_SRSQRT:
            /* x * srsqrt(x) = sqrt(x) at 0 and +inf (§3.5 suggestion) */
            if (x != 0 && !isinf(x)) {
                x = 1 / sqrt(x);
            }
            break;
        case AGX_USC_OP_LOG2:
            x = log2(x);
            break;
        case AGX_USC_OP_EXP2:
            x = exp2(x);
            break;
        case AGX_USC_OP_SIN_PT_1:
            x = sin_pt_1(x);
            break;
        default:
            x = sin_pt_2(x);
            break;
        }
        v[l] = out_f32(x, insn->f[AGX_USC_F_SAT], insn->o[0].size);
    }
    wr32(s, &insn->o[0], v);
}

/* --- SIMD-group and quad operations (§3.7) ------------------------------- */

static void ballot(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                   bool is_float, bool quad)
{
    uint32_t m = compare_lanes(c, s, insn, is_float) & s->exec;
    uint32_t v[LANES];

    for (int l = 0; l < LANES; l++) {
        /* quad: the mask from the lane's quad on (bit placement assumed) */
        v[l] = quad ? m >> (l & ~3) : m;
    }
    wr32(s, &insn->o[0], v);
}

static void shuffle(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint64_t a[LANES];
    uint32_t tb[LANES], v[LANES], qidx[LANES / 4] = { 0 };
    const uint32_t *b = rd32(c, s, &insn->o[2], tb);
    bool simd = insn->f[AGX_USC_F_SIMD], rot = insn->f[AGX_USC_F_ROT];
    unsigned kind = insn->f[AGX_USC_F_KIND];
    unsigned width = simd ? LANES : 4;

    rd64(c, s, &insn->o[1], a);
    if (simd && kind == 0) {
        /*
         * simd_shuffle: the low two index bits are OR-ed over each quad,
         * inactive lanes included (applegpu, hardware-tested)
         */
        for (int l = 0; l < LANES; l++) {
            qidx[l / 4] |= b[l] & 3;
        }
    }
    for (int l = 0; l < LANES; l++) {
        unsigned base = l & ~(width - 1), pos = l - base, src;
        uint32_t k = b[l];

        switch (kind) {
        case 0:     /* index */
            if (simd) {
                src = k < LANES ? (k & ~3u) | qidx[k / 4] : (unsigned)l;
            } else {
                src = base | (k & 3);
            }
            break;
        case 1:     /* xor */
            src = k < width ? base | (pos ^ k) : (unsigned)l;
            break;
        case 2:     /* up: from lower lanes */
            if (rot) {
                src = base | ((pos - k) & (width - 1));
            } else {
                src = k <= pos ? (unsigned)l - k : (unsigned)l;
            }
            break;
        default:    /* down: from higher lanes */
            src = k < width - pos ? (unsigned)l + k : (unsigned)l;
            break;
        }
        v[l] = a[src];
    }
    wr32(s, &insn->o[0], v);
}

/*
 * Reductions and exclusive scans over the active lanes of the SIMD-group
 * or of each quad, in lane order, at the destination's width.  The first
 * lane of a scan gets the operation's identity (§3.7: unconfirmed).
 */
static bool reduce(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned op = insn->f[AGX_USC_F_OP];
    bool simd = insn->f[AGX_USC_F_SIMD], prefix = insn->f[AGX_USC_F_PREFIX];
    unsigned bits = insn->o[0].size, width = simd ? LANES : 4;
    uint64_t a[LANES];
    uint32_t v[LANES] = { 0 };
    uint64_t mask = bits == 16 ? 0xffff : 0xffffffff;
    bool is_float = op == 1 || op == 3 || op == 5 || op == 7;
    uint64_t ident;

    switch (op) {
    case 0:
        ident = mask;
        break;
    case 2: case 4: case 16:
        ident = 0;
        break;
    case 1:     /* fadd: -0 */
        ident = bits == 16 ? 0x8000 : 0x80000000;
        break;
    case 3:     /* fmul: 1 */
        ident = bits == 16 ? 0x3c00 : 0x3f800000;
        break;
    case 5:     /* fmin: +inf */
        ident = bits == 16 ? 0x7c00 : 0x7f800000;
        break;
    case 7:     /* fmax: -inf */
        ident = bits == 16 ? 0xfc00 : 0xff800000;
        break;
    case 20:    /* smin */
        ident = mask >> 1;
        break;
    case 22:    /* smax */
        ident = (mask >> 1) + 1;
        break;
    case 28:    /* umin */
        ident = mask;
        break;
    case 30:    /* umax */
        ident = 0;
        break;
    default:
        return false;
    }
    rd64(c, s, &insn->o[1], a);
    for (unsigned g = 0; g < LANES; g += width) {
        uint64_t acc = ident;

        for (unsigned l = g; l < g + width; l++) {
            uint64_t x = a[l] & mask;
            double fa, fx, fr;

            if (!((s->exec >> l) & 1)) {
                continue;
            }
            if (prefix) {
                v[l] = acc;
            }
            if (is_float) {
                fa = bits == 16 ? usc_f16_to_f64(acc) :
                     (double)usc_f32_value(acc & 0x7f800000 ? acc :
                                           acc & 0x80000000);
                fx = bits == 16 ? usc_f16_to_f64(x) :
                     (double)usc_f32_value(x & 0x7f800000 ? x :
                                           x & 0x80000000);
                switch (op) {
                case 1:
                    fr = fa + fx;
                    break;
                case 3:
                    fr = fa * fx;
                    break;
                case 5:
                    acc = fcmp(3, fx, fa) ? x : acc;
                    continue;
                default:
                    acc = fcmp(7, fx, fa) ? x : acc;
                    continue;
                }
                acc = bits == 16 ? out_f16(fr, false) : out_f32(fr, false, 32);
                continue;
            }
            switch (op) {
            case 0:
                acc &= x;
                break;
            case 2:
                acc |= x;
                break;
            case 4:
                acc ^= x;
                break;
            case 16:
                acc = (acc + x) & mask;
                break;
            case 20:
            case 22: {
                int64_t sa = bits == 16 ? (int16_t)acc : (int32_t)acc;
                int64_t sx = bits == 16 ? (int16_t)x : (int32_t)x;

                acc = (op == 20 ? sx < sa : sx > sa) ? x : acc;
                break;
            }
            case 28:
                acc = x < acc ? x : acc;
                break;
            default:
                acc = x > acc ? x : acc;
                break;
            }
        }
        if (!prefix) {
            for (unsigned l = g; l < g + width; l++) {
                v[l] = acc;
            }
        }
    }
    wr32(s, &insn->o[0], v);
    return true;
}

/* --- memory -------------------------------------------------------------- */

static bool mem_read(Ctx *c, const AgxUscInsn *insn, uint64_t va, void *buf,
                     uint32_t len, AgxUscStatus *st)
{
    uint64_t fva = va;

    if (c->ops->read(c->opaque, va, buf, len, &fva)) {
        return true;
    }
    memset(buf, 0, len);
    if (c->l->soft_faults) {
        return false;
    }
    *st = fault(c, insn, AGX_USC_FAULT_LOAD, fva);
    return false;
}

static bool mem_write(Ctx *c, const AgxUscInsn *insn, uint64_t va,
                      const void *buf, uint32_t len, AgxUscStatus *st)
{
    uint64_t fva = va;

    if (c->ops->write(c->opaque, va, buf, len, &fva)) {
        return true;
    }
    if (!c->l->soft_faults) {
        *st = fault(c, insn, AGX_USC_FAULT_STORE, fva);
    }
    return false;
}

/* Element size of device formats (§3.8); 0 for the unknown ones */
static unsigned format_size(unsigned fmt)
{
    static const uint8_t size[16] = {
        1, 2, 4, 2, 1, 1, 2, 2, 4, 0, 1, 0, 4, 4, 0, 0,
    };

    return size[fmt & 15];
}

static double srgb_to_linear(double x)
{
    return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

static uint32_t float_reg(double x, bool r32)
{
    return r32 ? usc_f64_to_f32(x, AGX_ROUND_RTE)
               : usc_f64_to_f16(x, AGX_ROUND_RTE);
}

/* Unpack component @i (raw @raw, or the whole packed word) to a register */
static bool unpack(unsigned fmt, unsigned i, uint32_t raw, bool r32,
                   uint32_t *out)
{
    double x;
    int e;

    switch (fmt) {
    case 0: case 1: case 2: case 3:
        *out = raw;
        return true;
    case 4:
        x = (raw & 0xff) / 255.0;
        break;
    case 5:
        x = MAX((int8_t)raw, -127) / 127.0;
        break;
    case 6:
        x = (raw & 0xffff) / 65535.0;
        break;
    case 7:
        x = MAX((int16_t)raw, -32767) / 32767.0;
        break;
    case 8:     /* rgb10a2 unorm */
        x = i == 3 ? (raw >> 30) / 3.0 : ((raw >> (10 * i)) & 1023) / 1023.0;
        break;
    case 10:    /* srgba8: alpha linear (rounding unconfirmed) */
        x = (raw & 0xff) / 255.0;
        x = i == 3 ? x : srgb_to_linear(x);
        break;
    case 12: {  /* rg11b10f: 6/6/5-bit mantissas, 5-bit exponents */
        unsigned mb = i == 2 ? 5 : 6;
        uint32_t f = i == 2 ? raw >> 22 : raw >> (11 * i);

        e = (f >> mb) & 31;
        f &= (1u << mb) - 1;
        if (e == 31) {
            x = f ? NAN : INFINITY;
        } else if (e == 0) {
            x = ldexp(f, -14 - (int)mb);
        } else {
            x = ldexp(f + (1u << mb), e - 15 - (int)mb);
        }
        break;
    }
    case 13:    /* rgb9e5: shared exponent in bits 31:27 */
        e = raw >> 27;
        x = ldexp((raw >> (9 * i)) & 511, e - 15 - 9);
        break;
    default:
        return false;
    }
    *out = float_reg(x, r32);
    return true;
}

/* The register value as a float, for packed stores */
static double reg_float(uint32_t v, bool r32)
{
    return r32 ? usc_f32_value(v) : usc_f16_to_f64(v);
}

static bool pack(unsigned fmt, uint32_t v, bool r32, uint32_t *out)
{
    double x;

    switch (fmt) {
    case 0: case 1: case 2: case 3:
        *out = v;
        return true;
    case 4: case 6:
        x = reg_float(v, r32);
        x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
        *out = (uint32_t)nearbyint(x * (fmt == 4 ? 255 : 65535));
        return true;
    case 5: case 7:
        x = reg_float(v, r32);
        x = isnan(x) ? 0 : x < -1 ? -1 : x > 1 ? 1 : x;
        *out = (uint32_t)(int32_t)nearbyint(x * (fmt == 5 ? 127 : 32767));
        return true;
    default:
        return false;
    }
}

static uint64_t mem_base(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                         int lane)
{
    unsigned a = insn->f[AGX_USC_F_A] & ~1;

    if (insn->f[AGX_USC_F_AT]) {
        return get_uni64(c, a);
    }
    return row(s, a >> 1)[lane] | (uint64_t)row(s, (a >> 1) + 1)[lane] << 32;
}

/* The index operand: an immediate or a 32-bit GPR, signed unless Ou */
static int64_t mem_index(Simd *s, const AgxUscInsn *insn, int lane)
{
    uint32_t o = insn->f[AGX_USC_F_O];
    bool zext = insn->f[AGX_USC_F_OU];

    if (insn->f[AGX_USC_F_OT]) {
        return zext ? (int64_t)(o & 0xffff) : (int64_t)(int16_t)o;
    }
    o = row(s, (o & ~1) >> 1)[lane];
    return zext ? (int64_t)o : (int64_t)(int32_t)o;
}

/*
 * device_load / device_store (§3.8): component i of the lane is at
 * align(base, size) + ((index << shift) + i) * size; masked-off components
 * are skipped in memory, registers stay contiguous; packed formats read
 * one aligned u32 at base + index * 4, ignoring mask and shift (applegpu)
 */
static AgxUscStatus device_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                               bool store)
{
    unsigned fmt = insn->f[AGX_USC_F_FMT], size = format_size(fmt);
    unsigned mask = insn->f[AGX_USC_F_MASK];
    unsigned shift = insn->f[AGX_USC_F_SHIFT];
    bool r32 = insn->f[AGX_USC_F_RT];
    bool packed = fmt == 8 || fmt == 12 || fmt == 13;
    unsigned r = insn->f[AGX_USC_F_R];
    AgxUscStatus st = AGX_USC_OK;
    unsigned first, last;
    bool contiguous;

    if (!size || !mask || (fmt == 2 && !r32) || (store && packed) ||
        (store && (fmt == 10))) {
        return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (shift == 3) {
        shift = 2;          /* applegpu: 3 acts as 2 */
    }
    if (r32) {
        r &= ~1;
    }
    if (packed) {
        mask = 0xf;
    }
    first = __builtin_ctz(mask);
    last = 31 - __builtin_clz(mask);
    contiguous = (mask >> first) == (1u << (last - first + 1)) - 1;

    for (int l = 0; l < LANES; l++) {
        uint64_t base, addr;
        uint8_t buf[16];
        unsigned k = 0;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        base = mem_base(c, s, insn, l);
        if (packed) {
            addr = (base & ~3ull) + (uint64_t)mem_index(s, insn, l) * 4;
        } else {
            addr = (base & ~(uint64_t)(size - 1)) +
                   ((uint64_t)mem_index(s, insn, l) << shift) * size;
        }
        if (store) {
            for (unsigned i = 0; i < 4; i++) {
                uint32_t v, p;

                if (!((mask >> i) & 1)) {
                    continue;
                }
                v = r32 ? row(s, (r >> 1) + k)[l] : get_half(s, r + k, l);
                k++;
                if (!pack(fmt, v, r32, &p)) {
                    return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
                }
                memcpy(buf + i * size, &p, size);   /* little-endian host */
                if (!contiguous) {
                    mem_write(c, insn, addr + i * size, buf + i * size, size,
                              &st);
                    if (st != AGX_USC_OK) {
                        return st;
                    }
                }
            }
            if (contiguous) {
                mem_write(c, insn, addr + first * size, buf + first * size,
                          (last - first + 1) * size, &st);
            }
        } else {
            if (packed) {
                mem_read(c, insn, addr, buf, 4, &st);
            } else if (!contiguous ||
                       !mem_read(c, insn, addr + first * size,
                                 buf + first * size,
                                 (last - first + 1) * size, &st)) {
                /* one component at a time: a span may cross a hole */
                for (unsigned i = first; st == AGX_USC_OK && i <= last; i++) {
                    if ((mask >> i) & 1) {
                        mem_read(c, insn, addr + i * size, buf + i * size,
                                 size, &st);
                    }
                }
            }
            if (st != AGX_USC_OK) {
                return st;
            }
            for (unsigned i = 0; i < 4; i++) {
                uint32_t raw = 0, v = 0;

                if (!((mask >> i) & 1) || (fmt == 12 && i == 3) ||
                    (fmt == 13 && i == 3)) {
                    continue;
                }
                memcpy(&raw, packed ? buf : buf + i * size,
                       packed ? 4 : size);
                unpack(fmt, i, raw, r32, &v);
                if (r32) {
                    row(s, (r >> 1) + k)[l] = v;
                } else {
                    set_half(s, r + k, l, v);
                }
                k++;
            }
        }
        if (st != AGX_USC_OK) {
            return st;
        }
    }
    return AGX_USC_OK;
}

/*
 * uniform_store (§3.8): in the preamble only; component i of the mask goes
 * to uniform half O + i from the k-th 16-bit register after R, for every
 * active lane in lane order (the preamble has only lane 0)
 */
static AgxUscStatus uniform_store(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned mask = insn->f[AGX_USC_F_MASK], o = insn->f[AGX_USC_F_O];

    if (!c->uniforms || insn->f[AGX_USC_F_RT] || !insn->f[AGX_USC_F_OT]) {
        return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    for (int l = 0; l < LANES; l++) {
        unsigned k = 0;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        for (unsigned i = 0; i < 4; i++) {
            unsigned h = o + i;
            uint32_t *u;

            if (!((mask >> i) & 1)) {
                continue;
            }
            if (h >= 2 * AGX_USC_UNIFORMS) {
                return fault(c, insn, AGX_USC_FAULT_STORE, h);
            }
            u = &c->uniforms[h >> 1];
            *u = (*u & ~(0xffffu << (16 * (h & 1)))) |
                 get_half(s, insn->f[AGX_USC_F_R] + k, l) << (16 * (h & 1));
            k++;
        }
    }
    return AGX_USC_OK;
}

/* Atomic operations on 32-bit values (§3.8); false for unknown ops */
static bool atomic_op(unsigned op, uint32_t old, uint32_t v, uint32_t cmp,
                      uint32_t *out)
{
    switch (op) {
    case 0:
        *out = old + v;
        break;
    case 1:
        *out = old - v;
        break;
    case 2:
        *out = v;
        break;
    case 3:
        /* Mesa's order: (new value, comparison) (unconfirmed) */
        *out = old == cmp ? v : old;
        break;
    case 4:
        *out = MIN(old, v);
        break;
    case 5:
        *out = (int32_t)old < (int32_t)v ? old : v;
        break;
    case 6:
        *out = MAX(old, v);
        break;
    case 7:
        *out = (int32_t)old > (int32_t)v ? old : v;
        break;
    case 8:
        *out = old & v;
        break;
    case 9:
        *out = old | v;
        break;
    case 10:
        *out = old ^ v;
        break;
    default:
        return false;
    }
    return true;
}

/*
 * Global atomics, lane by lane in lane order (the interpreter is the only
 * GPU agent); an unmapped address under soft faults returns 0 and changes
 * nothing (§5)
 */
static AgxUscStatus atomic(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned op = insn->f[AGX_USC_F_OP], src = insn->f[AGX_USC_F_S] & ~1;
    AgxUscStatus st = AGX_USC_OK;

    if (op > 10) {
        return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    for (int l = 0; l < LANES; l++) {
        uint64_t addr;
        uint32_t old = 0, nv, v, cmp;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        addr = (mem_base(c, s, insn, l) & ~3ull) +
               (uint64_t)mem_index(s, insn, l) * 4;
        v = row(s, src >> 1)[l];
        cmp = op == 3 ? row(s, (src >> 1) + 1)[l] : 0;
        if (mem_read(c, insn, addr, &old, 4, &st)) {
            atomic_op(op, old, v, cmp, &nv);
            mem_write(c, insn, addr, &nv, 4, &st);
        }
        if (st != AGX_USC_OK) {
            return st;
        }
        if (insn->f[AGX_USC_F_RD]) {
            row(s, (insn->f[AGX_USC_F_R] & ~1) >> 1)[l] = old;
        }
    }
    return AGX_USC_OK;
}

/*
 * Threadgroup memory (§2.7, §3.8): address = base + index * size, base a
 * 16-bit GPR, a uniform half or 0, index an immediate or a 16-bit GPR.
 * Accesses outside the threadgroup's allocation read 0 and drop writes
 * under soft faults, else fault (hardware behaviour unknown).
 */
static bool local_addr(Ctx *c, Simd *s, const AgxUscInsn *insn, int lane,
                       unsigned size, unsigned len, bool store,
                       uint32_t *addr, AgxUscStatus *st)
{
    unsigned at = insn->f[AGX_USC_F_AT], a = insn->f[AGX_USC_F_A];
    uint32_t o = insn->f[AGX_USC_F_O];
    int64_t base, index, ad;

    if (at == 2) {
        base = 0;
    } else if (at == 0) {
        base = get_half(s, a, lane);
    } else {
        base = get_uni16(c, (a & 0xff) | (at >> 1) << 8);
    }
    if (insn->f[AGX_USC_F_OT]) {
        index = (int16_t)o;
    } else {
        index = get_half(s, o & 0xff, lane);
    }
    ad = base + index * size;
    if (ad < 0 || ad + len > c->shared_bytes) {
        if (!c->l->soft_faults) {
            *st = fault(c, insn, store ? AGX_USC_FAULT_STORE
                                       : AGX_USC_FAULT_LOAD, (uint64_t)ad);
        }
        return false;
    }
    *addr = ad;
    return true;
}

static AgxUscStatus local_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                              bool store)
{
    unsigned fmt = insn->f[AGX_USC_F_FMT], size = format_size(fmt);
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    bool r32 = insn->f[AGX_USC_F_RT];
    AgxUscStatus st = AGX_USC_OK;

    if (fmt > 3 || !mask || (fmt == 2 && !r32)) {
        return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (r32) {
        r &= ~1;
    }
    for (int l = 0; l < LANES; l++) {
        unsigned k = 0, last = 31 - __builtin_clz(mask);
        uint32_t addr;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        if (!local_addr(c, s, insn, l, size, (last + 1) * size, store,
                        &addr, &st)) {
            if (st != AGX_USC_OK) {
                return st;
            }
            addr = UINT32_MAX;      /* soft: read 0, drop */
        }
        for (unsigned i = 0; i <= last; i++) {
            uint32_t v = 0;

            if (!((mask >> i) & 1)) {
                continue;
            }
            if (store) {
                v = r32 ? row(s, (r >> 1) + k)[l] : get_half(s, r + k, l);
                if (addr != UINT32_MAX) {
                    memcpy(c->shared + addr + i * size, &v, size);
                }
            } else {
                if (addr != UINT32_MAX) {
                    memcpy(&v, c->shared + addr + i * size, size);
                }
                if (r32) {
                    row(s, (r >> 1) + k)[l] = v;
                } else {
                    set_half(s, r + k, l, v);
                }
            }
            k++;
        }
    }
    return AGX_USC_OK;
}

static AgxUscStatus local_atomic(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned op = insn->f[AGX_USC_F_OP], src = insn->f[AGX_USC_F_S] & ~1;
    AgxUscStatus st = AGX_USC_OK;

    if (op > 10 || src >= 2 * AGX_USC_GPRS) {
        return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    for (int l = 0; l < LANES; l++) {
        uint32_t addr, old = 0, nv;
        uint32_t v = row(s, src >> 1)[l];
        uint32_t cmp = op == 3 ? row(s, (src >> 1) + 1)[l] : 0;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        if (local_addr(c, s, insn, l, 4, 4, true, &addr, &st)) {
            memcpy(&old, c->shared + addr, 4);
            atomic_op(op, old, v, cmp, &nv);
            memcpy(c->shared + addr, &nv, 4);
        } else if (st != AGX_USC_OK) {
            return st;
        }
        if (insn->f[AGX_USC_F_RD]) {
            unsigned r = insn->f[AGX_USC_F_R];

            if (insn->f[AGX_USC_F_RT]) {
                row(s, (r & ~1) >> 1)[l] = old;
            } else {
                set_half(s, r, l, old);
            }
        }
    }
    return AGX_USC_OK;
}

/*
 * The per-thread stack (§1.7 suggestion): each lane has a private zeroed
 * stack; stack_adjust moves its pointer by a signed count of 32-bit words
 * (and grows it), stack_load/stack_store address it with byte offsets from
 * its bottom.  Out of bounds: AGX_USC_FAULT_STACK.
 */
static bool stack_reserve(Simd *s, uint32_t bytes)
{
    uint32_t cap;
    uint8_t *n;

    if (bytes <= s->stack_cap) {
        return true;
    }
    if (bytes > MAX_STACK) {
        return false;
    }
    cap = MAX(bytes, 256);
    cap = MIN(MAX(cap, s->stack_cap * 2), MAX_STACK);
    n = g_malloc0((size_t)cap * LANES);
    for (int l = 0; l < LANES && s->stack; l++) {
        memcpy(n + (size_t)l * cap, s->stack + (size_t)l * s->stack_cap,
               s->stack_cap);
    }
    g_free(s->stack);
    s->stack = n;
    s->stack_cap = cap;
    return true;
}

static AgxUscStatus stack_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                              bool store)
{
    unsigned fmt = insn->f[AGX_USC_F_FMT], size = format_size(fmt);
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    bool r32 = insn->f[AGX_USC_F_RT];

    if (fmt > 3 || !mask || (fmt == 2 && !r32)) {
        return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (r32) {
        r &= ~1;
    }
    for (int l = 0; l < LANES; l++) {
        unsigned k = 0, last = 31 - __builtin_clz(mask);
        int64_t off;
        uint8_t *p;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        if (insn->f[AGX_USC_F_OT]) {
            off = (int16_t)insn->f[AGX_USC_F_O];
        } else {
            off = (int32_t)row(s, insn->f[AGX_USC_F_O] >> 1)[l];
        }
        if (off < 0 || off + (last + 1) * size > MAX(s->sp, s->base_cap)) {
            return fault(c, insn, AGX_USC_FAULT_STACK, (uint64_t)off);
        }
        p = s->stack + (size_t)l * s->stack_cap + off;
        for (unsigned i = 0; i <= last; i++) {
            uint32_t v = 0;

            if (!((mask >> i) & 1)) {
                continue;
            }
            if (store) {
                v = r32 ? row(s, (r >> 1) + k)[l] : get_half(s, r + k, l);
                memcpy(p + i * size, &v, size);
            } else {
                memcpy(&v, p + i * size, size);
                if (r32) {
                    row(s, (r >> 1) + k)[l] = v;
                } else {
                    set_half(s, r + k, l, v);
                }
            }
            k++;
        }
    }
    return AGX_USC_OK;
}

/* --- the interpreter loop ------------------------------------------------ */

/* Run @s until it stops (OK), waits at a barrier (SIMD_BARRIER) or fails */
static AgxUscStatus run_simd(Ctx *c, Simd *s)
{
    const AgxUscInsn *insns = c->prog->insns;
    AgxUscStatus st;

    for (;;) {
        const AgxUscInsn *insn = &insns[s->pc];
        int32_t next = s->pc + 1;

        if (*c->budget == 0) {
            return AGX_USC_BUDGET;
        }
        (*c->budget)--;
        c->lane_insns += __builtin_popcount(s->exec);
        if (insn->max_half > c->gpr_halves) {
            return fault(c, insn, AGX_USC_FAULT_REGISTER, 0);
        }

        switch (insn->op) {
        case AGX_USC_OP_STOP:
            s->state = SIMD_DONE;
            return AGX_USC_OK;
        case AGX_USC_OP_TRAP:
            return fault(c, insn, AGX_USC_FAULT_TRAP, 0);
        case AGX_USC_OP_NOFETCH:
            return fault(c, insn, AGX_USC_FAULT_FETCH,
                         c->prog->va + insn->offset);
        case AGX_USC_OP_INVALID:
            return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
        case AGX_USC_OP_BARRIER:
            s->pc = next;
            s->state = SIMD_BARRIER;
            return AGX_USC_OK;
        case AGX_USC_OP_WAIT:
        case AGX_USC_OP_MEMBAR:
            /* every access completes at once; memory is coherent */
            break;
        case AGX_USC_OP_JMP_ANY:
        case AGX_USC_OP_JMP_NONE:
            if ((insn->op == AGX_USC_OP_JMP_ANY) == (s->exec != 0)) {
                if (insn->target < 0) {
                    return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
                }
                next = insn->target;
            }
            break;
        case AGX_USC_OP_IF_ICMP:
        case AGX_USC_OP_ELSE_ICMP:
        case AGX_USC_OP_WHILE_ICMP:
            if (!icond_valid(insn->f[AGX_USC_F_COND])) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            exec_stack(c, s, insn);
            break;
        case AGX_USC_OP_IF_FCMP:
        case AGX_USC_OP_ELSE_FCMP:
        case AGX_USC_OP_WHILE_FCMP:
            if (insn->f[AGX_USC_F_COND] == 4) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            /* fall through */
        case AGX_USC_OP_POP_EXEC:
            exec_stack(c, s, insn);
            break;
        case AGX_USC_OP_MOV_IMM16:
        case AGX_USC_OP_MOV_IMM32: {
            uint32_t v[LANES];

            for (int l = 0; l < LANES; l++) {
                v[l] = insn->f[AGX_USC_F_IMM];
            }
            wr32(s, &insn->o[0], v);
            break;
        }
        case AGX_USC_OP_GET_SR:
            if (!get_sr(c, s, insn)) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_FADD:
        case AGX_USC_OP_FMUL:
        case AGX_USC_OP_FFMA:
        case AGX_USC_OP_HADD:
        case AGX_USC_OP_HMUL:
        case AGX_USC_OP_HFMA:
            float_arith(c, s, insn);
            break;
        case AGX_USC_OP_FLOOR:
        case AGX_USC_OP_CEIL:
        case AGX_USC_OP_TRUNC:
        case AGX_USC_OP_ROUNDEVEN:
        case AGX_USC_OP_RCP:
        case AGX_USC_OP_RSQRT:
        case AGX_USC_OP_SRSQRT:
        case AGX_USC_OP_LOG2:
        case AGX_USC_OP_EXP2:
        case AGX_USC_OP_SIN_PT_1:
        case AGX_USC_OP_SIN_PT_2:
            float_unary(c, s, insn);
            break;
        case AGX_USC_OP_FCMPSEL:
        case AGX_USC_OP_ICMPSEL:
            if (!cmpsel(c, s, insn, insn->op == AGX_USC_OP_FCMPSEL)) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_FCMP_BALLOT:
        case AGX_USC_OP_FCMP_QUAD_BALLOT:
            if (insn->f[AGX_USC_F_COND] == 4) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            ballot(c, s, insn, true, insn->op == AGX_USC_OP_FCMP_QUAD_BALLOT);
            break;
        case AGX_USC_OP_ICMP_BALLOT:
        case AGX_USC_OP_ICMP_QUAD_BALLOT:
            if (!icond_valid(insn->f[AGX_USC_F_COND])) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            ballot(c, s, insn, false, insn->op == AGX_USC_OP_ICMP_QUAD_BALLOT);
            break;
        case AGX_USC_OP_IADD:
            int_add(c, s, insn, false);
            break;
        case AGX_USC_OP_IMAD:
            int_add(c, s, insn, true);
            break;
        case AGX_USC_OP_BFI:
        case AGX_USC_OP_BFEIL:
        case AGX_USC_OP_EXTR:
        case AGX_USC_OP_SHLHI:
        case AGX_USC_OP_SHRHI:
        case AGX_USC_OP_ASR:
        case AGX_USC_OP_ASRH:
            bitfield(c, s, insn);
            break;
        case AGX_USC_OP_BITREV:
        case AGX_USC_OP_POPCOUNT:
        case AGX_USC_OP_FFS:
        case AGX_USC_OP_INTL:
            int_unary(c, s, insn);
            break;
        case AGX_USC_OP_BITOP:
            bitop(c, s, insn);
            break;
        case AGX_USC_OP_CONVERT:
            if (!convert(c, s, insn)) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_SHUFFLE:
            shuffle(c, s, insn);
            break;
        case AGX_USC_OP_REDUCE:
            if (!reduce(c, s, insn)) {
                return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_DEVICE_LOAD:
        case AGX_USC_OP_DEVICE_STORE:
            st = device_mem(c, s, insn, insn->op == AGX_USC_OP_DEVICE_STORE);
            if (st != AGX_USC_OK) {
                return st;
            }
            break;
        case AGX_USC_OP_UNIFORM_STORE:
            st = uniform_store(c, s, insn);
            if (st != AGX_USC_OK) {
                return st;
            }
            break;
        case AGX_USC_OP_ATOMIC:
            st = atomic(c, s, insn);
            if (st != AGX_USC_OK) {
                return st;
            }
            break;
        case AGX_USC_OP_LOCAL_LOAD:
        case AGX_USC_OP_LOCAL_STORE:
            st = local_mem(c, s, insn, insn->op == AGX_USC_OP_LOCAL_STORE);
            if (st != AGX_USC_OK) {
                return st;
            }
            break;
        case AGX_USC_OP_LOCAL_ATOMIC:
            st = local_atomic(c, s, insn);
            if (st != AGX_USC_OK) {
                return st;
            }
            break;
        case AGX_USC_OP_STACK_LOAD:
        case AGX_USC_OP_STACK_STORE:
            st = stack_mem(c, s, insn, insn->op == AGX_USC_OP_STACK_STORE);
            if (st != AGX_USC_OK) {
                return st;
            }
            break;
        case AGX_USC_OP_STACK_ADJUST: {
            int64_t sp = (int64_t)s->sp + 4 * (int16_t)insn->f[AGX_USC_F_SIZE];

            if (sp < 0 || !stack_reserve(s, sp)) {
                return fault(c, insn, AGX_USC_FAULT_STACK, (uint64_t)sp);
            }
            s->sp = sp;
            break;
        }
        default:
            return fault(c, insn, AGX_USC_FAULT_DECODE, 0);
        }
        s->pc = next;
    }
}

static void simd_init(Simd *s, uint32_t index, uint32_t launched,
                      uint32_t gpr_halves, uint32_t stack_bytes)
{
    uint32_t nregs = (gpr_halves + 1) / 2;

    memset(s, 0, sizeof(*s));
    s->index = index;
    s->launched = launched;
    /* GPRs start at zero (§2.1 suggestion) */
    s->r = g_malloc0((size_t)MAX(nregs, 1) * LANES * sizeof(uint32_t));
    set_exec(s, launched);
    s->state = launched ? SIMD_RUN : SIMD_DONE;
    if (stack_bytes) {
        s->base_cap = MIN(stack_bytes, MAX_STACK);
        stack_reserve(s, s->base_cap);
    }
}

static void simd_free(Simd *s)
{
    g_free(s->r);
    g_free(s->stack);
}

static void ctx_finish(Ctx *c)
{
    agx_usc_program_unref(c->prog);
    /* readers use agx_usc_lane_insns(); a racy sum is fine for figures */
    __atomic_fetch_add(&total_lane_insns, c->lane_insns, __ATOMIC_RELAXED);
}

AgxUscStatus agx_usc_run_preamble(AgxUscLaunch *l, const AgxUscMemOps *ops,
                                  void *opaque, uint64_t *budget,
                                  AgxUscFault *fault)
{
    Ctx c = {
        .l = l, .uniforms = l->uniforms, .uni = l->uniforms, .ops = ops,
        .opaque = opaque, .gpr_halves = MIN(l->preamble_gpr_halves,
                                            2 * AGX_USC_GPRS),
        .budget = budget, .fault = fault,
    };
    Simd s;
    AgxUscStatus st;

    memset(fault, 0, sizeof(*fault));
    if (!l->has_preamble) {
        return AGX_USC_OK;
    }
    c.prog = agx_usc_program_get(l->usc_base + l->preamble_pc, ops, opaque);
    simd_init(&s, 0, 1, c.gpr_halves, l->stack_bytes);
    do {
        st = run_simd(&c, &s);
        /* a barrier in a lone SIMD-group releases at once */
        s.state = s.state == SIMD_BARRIER ? SIMD_RUN : s.state;
    } while (st == AGX_USC_OK && s.state == SIMD_RUN);
    simd_free(&s);
    ctx_finish(&c);
    return st;
}

AgxUscStatus agx_usc_run_threadgroup(const AgxUscLaunch *l,
                                     const uint32_t tg[3],
                                     const AgxUscMemOps *ops, void *opaque,
                                     uint64_t *budget, AgxUscFault *fault)
{
    Ctx c = {
        .l = l, .uni = l->uniforms, .ops = ops, .opaque = opaque,
        .gpr_halves = MIN(l->gpr_halves, 2 * AGX_USC_GPRS),
        .budget = budget, .fault = fault,
    };
    uint64_t threads = (uint64_t)l->local[0] * l->local[1] * l->local[2];
    uint32_t nsimd, lx = l->local[0], ly = l->local[1];
    AgxUscStatus st = AGX_USC_OK;
    Simd *simd;

    memset(fault, 0, sizeof(*fault));
    if (threads == 0 || threads > MAX_TG_THREADS ||
        l->shared_bytes > AGX_USC_MAX_SHARED) {
        fault->kind = AGX_USC_FAULT_LAUNCH;
        fault->pc = l->usc_base + l->main_pc;
        return AGX_USC_FAULT;
    }
    memcpy(c.tg, tg, sizeof(c.tg));
    nsimd = (threads + LANES - 1) / LANES;
    c.prog = agx_usc_program_get(l->usc_base + l->main_pc, ops, opaque);
    c.shared_bytes = l->shared_bytes;
    /* zero-filled threadgroup memory (§1.5 suggestion) */
    c.shared = g_malloc0(MAX(c.shared_bytes, 1));
    simd = g_new(Simd, nsimd);
    for (uint32_t k = 0; k < nsimd; k++) {
        uint32_t launched = 0;

        for (int lane = 0; lane < LANES; lane++) {
            uint32_t i = k * LANES + lane;
            uint32_t pos[3] = { i % lx, (i / lx) % ly, i / (lx * ly) };
            bool in = i < threads;

            /* threads of a partial threadgroup outside the grid */
            for (int d = 0; d < 3 && in; d++) {
                in = (uint64_t)tg[d] * l->local[d] + pos[d] < l->global[d];
            }
            launched |= (uint32_t)in << lane;
        }
        simd_init(&simd[k], k, launched, c.gpr_halves, l->stack_bytes);
    }
    for (;;) {
        bool running = false, waiting = false;

        for (uint32_t k = 0; k < nsimd && st == AGX_USC_OK; k++) {
            if (simd[k].state == SIMD_RUN) {
                st = run_simd(&c, &simd[k]);
            }
        }
        if (st != AGX_USC_OK) {
            break;
        }
        for (uint32_t k = 0; k < nsimd; k++) {
            running |= simd[k].state == SIMD_RUN;
            waiting |= simd[k].state == SIMD_BARRIER;
        }
        if (!waiting && !running) {
            break;
        }
        /*
         * Every SIMD-group still running waits at a barrier: release them
         * (those that already stopped are not waited for: a choice)
         */
        for (uint32_t k = 0; k < nsimd; k++) {
            if (simd[k].state == SIMD_BARRIER) {
                simd[k].state = SIMD_RUN;
            }
        }
    }
    for (uint32_t k = 0; k < nsimd; k++) {
        simd_free(&simd[k]);
    }
    g_free(simd);
    g_free(c.shared);
    ctx_finish(&c);
    return st;
}
