/*
 * AGX USC interpreter: a SIMD-group's state, the launch context, the
 * register file's accessors (inline: every instruction goes through
 * them) and the operations each file of the interpreter provides
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AGX_USC_EXEC_H
#define AGX_USC_EXEC_H

#include <math.h>
#include "agx-usc-internal.h"

#define LANES           AGX_USC_LANES
/* Hardware threadgroups hold at most 1024 threads */
#define MAX_TG_THREADS  1024
/*
 * Per-thread stack this interpreter grants, allocated as used (Mesa's
 * limit is 32767 words; its shaders use far less)
 */
#define MAX_STACK       (32 * 1024)

/*
 * The lane loops of the hottest operations, compiled twice where meson.build
 * found target_clones (x86-64 Linux hosts): for AVX2 and for the baseline,
 * the one the host CPU runs picked at load time.  The same C either way,
 * with no FMA contraction (AVX2 does not imply FMA): the same results.
 * Only on static functions: clang names an extern one's ifunc apart from
 * the symbol other files call.
 */
#ifdef CONFIG_USC_AVX2_CLONES
#define USC_LANE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define USC_LANE_CLONES
#endif

typedef enum SimdState {
    SIMD_RUN,
    SIMD_BARRIER,
    SIMD_DONE,
} SimdState;

/* A SIMD-group (agx-usc.h): state is a SimdState */
typedef AgxUscSimd Simd;

typedef struct Ctx {
    const AgxUscLaunch *l;
    /* state registers tex_state_store/sampler_state_store wrote, if any */
    uint64_t *tex_state, *sampler_state;
    uint32_t *uniforms;         /* writable (the preamble's) or NULL */
    const uint32_t *uni;
    const AgxUscMemOps *ops;
    void *opaque;
    AgxUscProgram *prog;
    uint32_t gpr_halves;
    uint32_t tg[3];
    const AgxUscGroup *group;   /* set for agx_usc_run_group() */
    const AgxUscTile *tile;     /* the tilebuffer or imageblock, if any */
    uint8_t *shared;            /* NULL: zero, allocated when accessed */
    uint8_t **shared_home;      /* where the threadgroup keeps it */
    uint32_t shared_bytes;
    uint64_t *budget;
    AgxUscFault *fault;
    uint64_t lane_insns;
} Ctx;

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

static inline void set_exec(Simd *s, uint32_t exec)
{
    s->exec = exec & s->launched;
    s->nexec = __builtin_popcount(s->exec);
    for (int l = 0; l < LANES; l++) {
        s->lm[l] = -(uint32_t)((s->exec >> l) & 1);
    }
}

/*
 * An integer source as 32-bit lane values, zero-extended (or
 * sign-extended, for AGX_MOD_SX) from its own width; a 32-bit GPR is
 * returned in place
 */
static inline const uint32_t *rd32(const Ctx *c, Simd *s, const AgxUscOpnd *o,
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
static inline void rd64(const Ctx *c, Simd *s, const AgxUscOpnd *o,
                        uint64_t *out)
{
    USC_LANE_TMP uint32_t tmp[LANES];
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
static inline const uint32_t *rd_raw(const Ctx *c, Simd *s, const AgxUscOpnd *o,
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
static inline void rdf(const Ctx *c, Simd *s, const AgxUscOpnd *o, double *out)
{
    USC_LANE_TMP uint32_t tmp[LANES];
    const uint32_t *v;

    if (o->type == AGX_OPND_IMM) {
        double d = apple_bits_f32(o->imm);

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
                out[l] = apple_bits_f32(b);
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
static inline void wr32m(Simd *s, const AgxUscOpnd *d, const uint32_t *v,
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

static inline void wr64(Simd *s, const AgxUscOpnd *d, const uint64_t *v)
{
    USC_LANE_TMP uint32_t lo[LANES];

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

/*
 * Data register @k of a memory op whose first data register is half @r:
 * consecutive 32-bit registers, or consecutive halves
 */
static inline uint32_t get_data(Simd *s, unsigned r, bool r32, unsigned k,
                                int lane)
{
    return r32 ? row(s, (r >> 1) + k)[lane] : get_half(s, r + k, lane);
}

static inline void set_data(Simd *s, unsigned r, bool r32, unsigned k,
                            int lane, uint32_t v)
{
    if (r32) {
        row(s, (r >> 1) + k)[lane] = v;
    } else {
        set_half(s, r + k, lane, v);
    }
}

/* agx-usc.c */
AgxUscStatus usc_fault(Ctx *c, const AgxUscInsn *insn, AgxUscFaultKind k,
                       uint64_t va);

/* agx-usc-alu.c: comparisons, integer, float and SIMD-group operations */
uint32_t usc_compare_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                           bool is_float);
/*
 * The same as lane masks (all ones where it holds), for sources of 32 bits
 * or fewer (false for others: then usc_compare_lanes())
 */
bool usc_compare_masks(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                       bool is_float, uint32_t *t);
bool usc_icond_valid(unsigned cond);
void usc_int_add(const Ctx *c, Simd *s, const AgxUscInsn *insn, bool mad);
void usc_bitfield(const Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_bitop(const Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_int_unary(const Ctx *c, Simd *s, const AgxUscInsn *insn);
bool usc_convert(const Ctx *c, Simd *s, const AgxUscInsn *insn);
bool usc_cmpsel(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                bool is_float);
void usc_float_arith(const Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_float_unary(const Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_derivative(const Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_ballot(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                bool is_float, bool quad);
void usc_shuffle(const Ctx *c, Simd *s, const AgxUscInsn *insn);
bool usc_reduce(const Ctx *c, Simd *s, const AgxUscInsn *insn);

/* agx-usc-mem.c: device, uniform, threadgroup and stack memory */
bool usc_mem_read(Ctx *c, const AgxUscInsn *insn, uint64_t va, void *buf,
                  uint32_t len, AgxUscStatus *st);
bool usc_mem_write(Ctx *c, const AgxUscInsn *insn, uint64_t va,
                   const void *buf, uint32_t len, AgxUscStatus *st);
bool usc_stack_reserve(Simd *s, uint32_t bytes);
AgxUscStatus usc_device_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                            bool store);
AgxUscStatus usc_uniform_store(Ctx *c, Simd *s, const AgxUscInsn *insn);
AgxUscStatus usc_atomic(Ctx *c, Simd *s, const AgxUscInsn *insn);
AgxUscStatus usc_local_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                           bool store);
AgxUscStatus usc_local_atomic(Ctx *c, Simd *s, const AgxUscInsn *insn);
AgxUscStatus usc_stack_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                           bool store);

/* agx-usc-image.c: texel fetches, image stores, state registers */
AgxUscStatus usc_texture_load(Ctx *c, Simd *s, const AgxUscInsn *insn);
AgxUscStatus usc_image_write(Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_state_store(Ctx *c, Simd *s, const AgxUscInsn *insn, bool tex);
/* Lane @l's Texture (or PBE) descriptor, parsed; *@last caches its VA */
AgxUscStatus usc_image_desc(Ctx *c, Simd *s, const AgxUscInsn *insn, int l,
                            bool pbe, uint64_t *last, AgxImage *img);
void usc_image_solid(Ctx *c, const AgxUscInsn *insn, const AgxImage *img,
                     unsigned level, uint32_t x, uint32_t y, uint32_t layer,
                     uint64_t *va, AgxUscStatus *st);

/* agx-usc-tile.c: the tilebuffer and imageblocks */
AgxUscStatus usc_tile_access(Ctx *c, Simd *s, const AgxUscInsn *insn,
                             bool store);
AgxUscStatus usc_block_image_store(Ctx *c, Simd *s, const AgxUscInsn *insn);
bool usc_iter(const Ctx *c, Simd *s, const AgxUscInsn *insn);
/* A fragment group's lanes take their samples (AgxUscGroup.coverage) */
void usc_group_coverage(const Ctx *c, Simd *s);
void usc_sample_mask(const Ctx *c, Simd *s, const AgxUscInsn *insn);
void usc_zs_emit(const Ctx *c, Simd *s, const AgxUscInsn *insn);

/* agx-usc-sample.c: texture sampling */
AgxUscStatus usc_texture_sample(Ctx *c, Simd *s, const AgxUscInsn *insn);

#endif
