/*
 * AGX USC interpreter: comparisons, integer, floating-point and
 * SIMD-group/quad operations, each a few loops over the 32 lanes
 * (semantics and sources: shared/reference/agx-shaders.md, cited as §n)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-usc-exec.h"

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
        b = apple_f32_bits((float)d);
    }
    if (sat) {
        if ((b & 0x80000000) || (b & 0x7fffffff) > 0x7f800000) {
            b = 0;
        } else if (b > 0x3f800000) {
            b = 0x3f800000;
        }
    }
    if (dst_size == 16) {
        return usc_f64_to_f16(apple_bits_f32(b), AGX_ROUND_RTE);
    }
    return b;
}

/* out_f32() over the lanes, with a loop that vectorises for the common case */
static void out_f32_lanes(const double *d, uint32_t *v, bool sat,
                          unsigned dst_size)
{
    const double f32_min_normal = ldexp(1, -126);

    if (sat || dst_size != 32) {
        for (int l = 0; l < LANES; l++) {
            v[l] = out_f32(d[l], sat, dst_size);
        }
        return;
    }
    for (int l = 0; l < LANES; l++) {
        double x = d[l];
        uint32_t b = apple_f32_bits((float)x);

        b = fabs(x) < f32_min_normal ? b & 0x80000000 : b;
        v[l] = x != x ? 0x7fc00000 : b;
    }
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

/*
 * f32 sources as the float rules read them (rdf()): denormals flushed
 * keeping the sign, then abs and neg, on the bits (immediates are
 * minifloats, never denormal); f32_out() is out_f32() for an f32 result
 * of a plain f32 destination whose exponent is zero only if the exact
 * value is below 2^-126
 */
static inline float f32_in(uint32_t b, uint32_t and, uint32_t xor)
{
    uint32_t denorm = -(uint32_t)!(b & 0x7f800000);

    return apple_bits_f32(((b & ~(denorm & 0x7fffffff)) & and) ^ xor);
}

static inline uint32_t f32_out(float r)
{
    uint32_t b = apple_f32_bits(r);

    b = (b & 0x7f800000) ? b : b & 0x80000000;
    return r != r ? 0x7fc00000 : b;
}

/* A 32-bit source's lanes, and its abs/neg as masks on the bits */
static const uint32_t *f32_src(const Ctx *c, Simd *s, const AgxUscOpnd *o,
                               uint32_t *tmp, uint32_t *and, uint32_t *xor)
{
    *and = (o->mods & AGX_MOD_ABS) ? 0x7fffffff : 0xffffffff;
    *xor = (o->mods & AGX_MOD_NEG) ? 0x80000000 : 0;
    if (o->type == AGX_OPND_IMM) {
        for (int l = 0; l < LANES; l++) {
            tmp[l] = o->imm;
        }
        return tmp;
    }
    return rd_raw(c, s, o, tmp);
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

bool usc_icond_valid(unsigned cond)
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

/* One loop per condition, so that each vectorises */
#define CMP_LOOP(expr)                                                  \
    do {                                                                \
        for (int l = 0; l < LANES; l++) {                               \
            t[l] = -(uint32_t)(expr) ^ inv;                             \
        }                                                               \
    } while (0)

/*
 * A compare whose sources are 32 bits or narrower (f32 or immediates for
 * floats), as lane masks: all ones where the condition holds, xor @inv
 * (the inversion flag's mask, or 0); false for the other sources.  The
 * same as icmp() and fcmp() on rd64() and rdf() values: 16-bit sources
 * extended to 32 bits compare as when extended to 64, and f32 values
 * compare as floats as they do as doubles.
 */
USC_LANE_CLONES
static bool compare_lanes32(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                            bool is_float, uint32_t inv, uint32_t *t)
{
    unsigned cond = insn->f[AGX_USC_F_COND];
    USC_LANE_TMP uint32_t ta[LANES], tb[LANES];
    const uint32_t *a, *b;

    if (is_float) {
        uint32_t aa, ax, ba, bx;

        if ((insn->o[1].type != AGX_OPND_IMM && insn->o[1].size != 32) ||
            (insn->o[2].type != AGX_OPND_IMM && insn->o[2].size != 32)) {
            return false;
        }
        a = f32_src(c, s, &insn->o[1], ta, &aa, &ax);
        b = f32_src(c, s, &insn->o[2], tb, &ba, &bx);
#define FA f32_in(a[l], aa, ax)
#define FB f32_in(b[l], ba, bx)
        switch (cond) {
        case 0:
            CMP_LOOP(FA == FB);
            break;
        case 1:
            CMP_LOOP(FA < FB);
            break;
        case 2:
            CMP_LOOP(FA > FB);
            break;
        case 3:
            CMP_LOOP(FA == FA && (FB != FB || FA < FB));
            break;
        case 5:
            CMP_LOOP(FA >= FB);
            break;
        case 6:
            CMP_LOOP(FA <= FB);
            break;
        case 7:
            CMP_LOOP(FA == FA && (FB != FB || FA > FB));
            break;
        default:
            CMP_LOOP(0);
            break;
        }
#undef FA
#undef FB
        return true;
    }
    /*
     * 64-bit sources, and unsigned compares with a sign-extended source
     * (extended to 64 bits it would not compare as in 32), go the long way
     */
    if (insn->o[1].size == 64 || insn->o[2].size == 64 ||
        (!(cond & 4) && ((insn->o[1].mods | insn->o[2].mods) & AGX_MOD_SX))) {
        return false;
    }
    if (cond & 4) {
        /* signed: both sources sign-extended from their own width */
        AgxUscOpnd oa = insn->o[1], ob = insn->o[2];

        oa.mods |= AGX_MOD_SX;
        ob.mods |= AGX_MOD_SX;
        a = rd32(c, s, &oa, ta);
        b = rd32(c, s, &ob, tb);
        /* immediates are 16-bit values */
        if (oa.type == AGX_OPND_IMM) {
            for (int l = 0; l < LANES; l++) {
                ta[l] = (int32_t)(int16_t)oa.imm;
            }
        }
        if (ob.type == AGX_OPND_IMM) {
            for (int l = 0; l < LANES; l++) {
                tb[l] = (int32_t)(int16_t)ob.imm;
            }
        }
    } else {
        a = rd32(c, s, &insn->o[1], ta);
        b = rd32(c, s, &insn->o[2], tb);
    }
    switch (cond) {
    case 0:
    case 4:
        CMP_LOOP(a[l] == b[l]);
        break;
    case 1:
        CMP_LOOP(a[l] < b[l]);
        break;
    case 2:
        CMP_LOOP(a[l] > b[l]);
        break;
    case 5:
        CMP_LOOP((int32_t)a[l] < (int32_t)b[l]);
        break;
    case 6:
        CMP_LOOP((int32_t)a[l] > (int32_t)b[l]);
        break;
    default:
        CMP_LOOP(0);
        break;
    }
    return true;
}
#undef CMP_LOOP

/* compare_lanes32() with the inversion flag applied */
bool usc_compare_masks(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                       bool is_float, uint32_t *t)
{
    return compare_lanes32(c, s, insn, is_float,
                           insn->f[AGX_USC_F_INV] ? ~0u : 0, t);
}

/*
 * A compare over all 32 lanes (active or not, as the exec-mask
 * instructions need): bit l set when lane l's condition holds
 */
uint32_t usc_compare_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                           bool is_float)
{
    unsigned cond = insn->f[AGX_USC_F_COND];
    uint32_t m = 0;
    USC_LANE_TMP uint32_t t[LANES];

    if (compare_lanes32(c, s, insn, is_float, 0, t)) {
        for (int l = 0; l < LANES; l++) {
            m |= (t[l] & 1) << l;
        }
    } else if (is_float) {
        USC_LANE_TMP double a[LANES], b[LANES];

        rdf(c, s, &insn->o[1], a);
        rdf(c, s, &insn->o[2], b);
        for (int l = 0; l < LANES; l++) {
            m |= (uint32_t)fcmp(cond, a[l], b[l]) << l;
        }
    } else {
        USC_LANE_TMP uint64_t a[LANES], b[LANES];
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
USC_LANE_CLONES
static void int_add_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                          bool mad)
{
    const AgxUscOpnd *d = &insn->o[0];
    const AgxUscOpnd *x = &insn->o[mad ? 3 : 2];
    unsigned shift = insn->f[AGX_USC_F_SHIFT];
    bool neg = insn->f[AGX_USC_F_NEG];
    USC_LANE_TMP uint64_t a[LANES], b[LANES], r[LANES];
    bool sat = insn->f[AGX_USC_F_SAT] && shift == 0 && d->size <= 32 &&
               x->size <= 32 && (mad || insn->o[1].size <= 32);

    if (!sat && d->size <= 32 && x->size <= 32 && insn->o[1].size <= 32 &&
        (!mad || insn->o[2].size <= 32) && shift < 5) {
        /* the common case: all in 32 bits */
        USC_LANE_TMP uint32_t ta[LANES], tb[LANES], tx[LANES], v[LANES];
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

void usc_int_add(const Ctx *c, Simd *s, const AgxUscInsn *insn, bool mad)
{
    int_add_lanes(c, s, insn, mad);
}

static inline uint64_t shl64(uint64_t v, unsigned n)
{
    return n < 64 ? v << n : 0;
}

static inline uint64_t shr64(uint64_t v, unsigned n)
{
    return n < 64 ? v >> n : 0;
}

static inline int64_t sext(uint64_t v, int bits)
{
    return bits == 16 ? (int16_t)v : (int32_t)v;
}

/* shlhi / shrhi: shift the high word and insert (applegpu pseudocode) */
static inline uint64_t shlhi(uint64_t a, uint64_t b, unsigned sh,
                             uint64_t mask)
{
    uint64_t sm = shl64(mask, sh > 32 ? sh - 32 : 0);

    return ((sh >= 32 ? shl64(b, sh - 32) : b >> (32 - sh)) & sm) | (a & ~sm);
}

static inline uint64_t shrhi(uint64_t a, uint64_t b, unsigned sh,
                             uint64_t mask)
{
    uint64_t sm = shr64(mask << 32, sh < 32 ? sh : 32);

    return (shr64(b << 32, sh) & sm) | (a & ~sm);
}

/*
 * Bitfield and shift family (§3.6, applegpu bitfield pseudocode): shift =
 * C & 0x7f (B for asr/asrh), never reduced modulo 32; mask m: 0 = all 32
 * bits, else 2^m - 1; results truncated to the destination
 */
USC_LANE_CLONES
static void bitfield_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP uint32_t ta[LANES], tb[LANES], tc[LANES], v[LANES];
    const uint32_t *a = rd32(c, s, &insn->o[1], ta);
    const uint32_t *b = rd32(c, s, &insn->o[2], tb);
    const uint32_t *cc = insn->op == AGX_USC_OP_ASR ||
                         insn->op == AGX_USC_OP_ASRH ? b :
                         rd32(c, s, &insn->o[3], tc);
    unsigned m = insn->f[AGX_USC_F_M];
    uint64_t mask = m ? (1ull << m) - 1 : 0xffffffffull;
    int asize = insn->o[1].type == AGX_OPND_IMM ? 16 : insn->o[1].size;
    bool same_sh = insn->o[insn->op == AGX_USC_OP_ASR ||
                            insn->op == AGX_USC_OP_ASRH ? 2 : 3].type !=
                   AGX_OPND_GPR;

/*
 * one loop per operation, so that each vectorises; an immediate or
 * uniform shift is the same in every lane, which vectorises better
 */
#define BITFIELD_LOOP(expr)                                             \
    do {                                                                \
        if (same_sh) {                                                  \
            const unsigned sh = cc[0] & 0x7f;                           \
                                                                        \
            for (int l = 0; l < LANES; l++) {                           \
                uint64_t av = a[l], bv = b[l];                          \
                                                                        \
                (void)bv;                                               \
                v[l] = (expr);                                          \
            }                                                           \
        } else {                                                        \
            for (int l = 0; l < LANES; l++) {                           \
                unsigned sh = cc[l] & 0x7f;                             \
                uint64_t av = a[l], bv = b[l];                          \
                                                                        \
                (void)bv;                                               \
                v[l] = (expr);                                          \
            }                                                           \
        }                                                               \
    } while (0)

    switch (insn->op) {
    case AGX_USC_OP_BFI:
        BITFIELD_LOOP((av & ~shl64(mask, sh)) | shl64(bv & mask, sh));
        break;
    case AGX_USC_OP_BFEIL:
        BITFIELD_LOOP((av & ~mask) | (shr64(bv, sh) & mask));
        break;
    case AGX_USC_OP_EXTR:
        BITFIELD_LOOP(shr64(bv << 32 | av, sh) & mask);
        break;
    case AGX_USC_OP_SHLHI:
        BITFIELD_LOOP(shlhi(av, bv, sh, mask));
        break;
    case AGX_USC_OP_SHRHI:
        BITFIELD_LOOP(shrhi(av, bv, sh, mask));
        break;
    case AGX_USC_OP_ASR:
        BITFIELD_LOOP((uint64_t)(sext(av, asize) >> (sh > 63 ? 63 : sh)));
        break;
    default:    /* asrh */
        BITFIELD_LOOP((uint64_t)((sext(av, asize) * ((int64_t)1 << 32)) >>
                                 (sh > 63 ? 63 : sh)));
        break;
    }
#undef BITFIELD_LOOP
    wr32(s, &insn->o[0], v);
}

void usc_bitfield(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    bitfield_lanes(c, s, insn);
}

/* bitop: result bit = tt[(b << 1) | a] (§3.6) */
USC_LANE_CLONES
static void bitop_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP uint32_t ta[LANES], tb[LANES], v[LANES];
    const uint32_t *a = rd32(c, s, &insn->o[1], ta);
    const uint32_t *b = rd32(c, s, &insn->o[2], tb);
    unsigned tt = insn->f[AGX_USC_F_TABLE];
    uint32_t t0 = -(tt & 1), t1 = -((tt >> 1) & 1);
    uint32_t t2 = -((tt >> 2) & 1), t3 = -((tt >> 3) & 1);

    for (int l = 0; l < LANES; l++) {
        v[l] = (t0 & ~a[l] & ~b[l]) | (t1 & a[l] & ~b[l]) |
               (t2 & ~a[l] & b[l]) | (t3 & a[l] & b[l]);
    }
    wr32(s, &insn->o[0], v);
}

void usc_bitop(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    bitop_lanes(c, s, insn);
}

void usc_int_unary(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP uint32_t ta[LANES], tb[LANES], v[LANES];
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
        /*
         * The 32-bit reversal, truncated to the destination (applegpu's
         * hardware-tested model: a 16-bit result is the high half's)
         */
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
bool usc_convert(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const AgxUscOpnd *d = &insn->o[0], *src = &insn->o[2];
    unsigned mode = insn->f[AGX_USC_F_MODE];
    int round = insn->f[AGX_USC_F_ROUND];
    USC_LANE_TMP uint32_t tb[LANES], v[LANES];
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
                x = apple_bits_f32(b[l]);
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
USC_LANE_CLONES
static bool cmpsel_lanes(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                         bool is_float)
{
    USC_LANE_TMP uint32_t tx[LANES], ty[LANES], v[LANES], t[LANES], m;
    const uint32_t *x, *y;
    unsigned cond = insn->f[AGX_USC_F_COND];

    if (is_float ? cond == 4 : !usc_icond_valid(cond)) {
        return false;
    }
    x = rd_raw(c, s, &insn->o[3], tx);
    y = rd_raw(c, s, &insn->o[4], ty);
    if (usc_compare_masks(c, s, insn, is_float, t)) {
        for (int l = 0; l < LANES; l++) {
            v[l] = (x[l] & t[l]) | (y[l] & ~t[l]);
        }
    } else {
        m = usc_compare_lanes(c, s, insn, is_float);
        for (int l = 0; l < LANES; l++) {
            v[l] = ((m >> l) & 1) ? x[l] : y[l];
        }
    }
    wr32(s, &insn->o[0], v);
    return true;
}

bool usc_cmpsel(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                bool is_float)
{
    return cmpsel_lanes(c, s, insn, is_float);
}

/* --- float arithmetic ---------------------------------------------------- */

/*
 * fadd, fmul and ffma with f32 sources and a plain f32 destination, in
 * one loop per op that vectorises, giving out_f32()'s result bit for bit:
 * - sources as rdf() reads them: denormals flushed keeping the sign, then
 *   abs and neg, on the bits (immediates are minifloats, never denormal);
 * - fadd on floats: a sum of f32 values below 2^-126 in magnitude is exact
 *   (a multiple of 2^-149), so the f32 sum is below 2^-126 exactly when
 *   the exact sum is, and otherwise it is the double sum rounded to f32;
 * - fmul on floats: the f32 product is below 2^-126 only when the exact
 *   one is, and above it only when the exact one is; a product rounded to
 *   2^-126 itself is redone on doubles, where it is exact;
 * - ffma on doubles, the product being exact: the sum rounded to nearest
 *   and the sum rounded to odd (usc_fma_odd) are equal or neighbours, so
 *   out_f32() gives the same for both unless the first lies on an f32
 *   rounding midpoint (low 29 mantissa bits 0x10000000; the odd one never
 *   does) or on 2^-126, the flushing threshold: lanes where it may (it
 *   rounds to 2^-126) are redone, and for the others a zero exponent after
 *   rounding is the same test as a magnitude below 2^-126 before;
 * then a result with a zero exponent flushes to zero keeping its sign, and
 * NaN is the default NaN.
 */
USC_LANE_CLONES
static void float_arith_f32(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const double f32_min_normal = ldexp(1, -126);
    USC_LANE_TMP uint32_t ta[LANES], tb[LANES], tc[LANES], v[LANES];
    uint32_t aa, ax, ba, bx, ca, cx;
    const uint32_t *a = f32_src(c, s, &insn->o[1], ta, &aa, &ax);
    const uint32_t *b = f32_src(c, s, &insn->o[2], tb, &ba, &bx);
    const uint32_t *cc;
    int redo = 0;

    switch (insn->op) {
    case AGX_USC_OP_FADD:
        for (int l = 0; l < LANES; l++) {
            v[l] = f32_out(f32_in(a[l], aa, ax) + f32_in(b[l], ba, bx));
        }
        break;
    case AGX_USC_OP_FMUL:
        for (int l = 0; l < LANES; l++) {
            v[l] = f32_out(f32_in(a[l], aa, ax) * f32_in(b[l], ba, bx));
            redo |= (v[l] & 0x7fffffff) == 0x00800000;
        }
        for (int l = 0; redo && l < LANES; l++) {
            double p = (double)f32_in(a[l], aa, ax) * f32_in(b[l], ba, bx);

            if ((v[l] & 0x7fffffff) == 0x00800000 &&
                fabs(p) < f32_min_normal) {
                v[l] &= 0x80000000;
            }
        }
        break;
    default: {
        USC_LANE_TMP double x[LANES], da[LANES], db[LANES], dc[LANES];
        uint64_t tie = 0;

        cc = f32_src(c, s, &insn->o[3], tc, &ca, &cx);
        for (int l = 0; l < LANES; l++) {
            da[l] = f32_in(a[l], aa, ax);
            db[l] = f32_in(b[l], ba, bx);
            dc[l] = f32_in(cc[l], ca, cx);
        }
        for (int l = 0; l < LANES; l++) {
            x[l] = da[l] * db[l] + dc[l];
        }
        for (int l = 0; l < LANES; l++) {
            float f = x[l];

            v[l] = apple_f32_bits(f);
        }
        for (int l = 0; l < LANES; l++) {
            uint64_t u;

            /* all ones when the low 29 bits are 0x10000000, else zero */
            memcpy(&u, &x[l], sizeof(u));
            tie |= (((u ^ 0x10000000) & 0x1fffffff) - 1) >> 32;
        }
        for (int l = 0; l < LANES; l++) {
            redo |= (v[l] & 0x7fffffff) == 0x00800000;
        }
        redo |= tie != 0;
        for (int l = 0; l < LANES; l++) {
            v[l] = f32_out(apple_bits_f32(v[l]));
        }
        for (int l = 0; redo && l < LANES; l++) {
            uint64_t u;

            memcpy(&u, &x[l], sizeof(u));
            if ((u & 0x1fffffff) == 0x10000000 ||
                fabs(x[l]) <= f32_min_normal) {
                v[l] = out_f32(usc_fma_odd(da[l], db[l], dc[l]), false, 32);
            }
        }
        break;
    }
    }
    wr32(s, &insn->o[0], v);
}

static bool f32_source(const AgxUscOpnd *o)
{
    return o->type == AGX_OPND_IMM || o->size == 32;
}

void usc_float_arith(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP double a[LANES], b[LANES], cc[LANES];
    USC_LANE_TMP uint32_t v[LANES];
    bool sat = insn->f[AGX_USC_F_SAT];
    unsigned dsize = insn->o[0].size;
    bool half = insn->op == AGX_USC_OP_HADD || insn->op == AGX_USC_OP_HMUL ||
                insn->op == AGX_USC_OP_HFMA;

    if (!insn->f[AGX_USC_F_SAT] && insn->o[0].size == 32 &&
        (insn->op == AGX_USC_OP_FADD || insn->op == AGX_USC_OP_FMUL ||
         insn->op == AGX_USC_OP_FFMA) &&
        f32_source(&insn->o[1]) && f32_source(&insn->o[2]) &&
        (insn->op != AGX_USC_OP_FFMA || f32_source(&insn->o[3]))) {
        float_arith_f32(c, s, insn);
        return;
    }

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
        out_f32_lanes(a, v, sat, dsize);
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

/*
 * dfdx / dfdy: quad derivatives (fragment shaders; compute shaders with
 * quad derivative groups).  A quad is lanes 4k..4k+3 as a 2x2 block,
 * rows first; the difference within the lane's row (dfdx) or column
 * (dfdy), "fine" (which of coarse or fine the hardware gives is
 * unconfirmed).  Inactive lanes' values take part, as for shuffles.
 */
void usc_derivative(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP double a[LANES], d[LANES];
    USC_LANE_TMP uint32_t v[LANES];
    unsigned bit = insn->op == AGX_USC_OP_DFDX ? 1 : 2;

    rdf(c, s, &insn->o[1], a);
    for (int l = 0; l < LANES; l++) {
        d[l] = a[l | bit] - a[l & ~bit];
    }
    out_f32_lanes(d, v, insn->f[AGX_USC_F_SAT], insn->o[0].size);
    wr32(s, &insn->o[0], v);
}

void usc_float_unary(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP double a[LANES];
    USC_LANE_TMP uint32_t v[LANES];

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

void usc_ballot(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                bool is_float, bool quad)
{
    uint32_t m = usc_compare_lanes(c, s, insn, is_float) & s->exec;
    USC_LANE_TMP uint32_t v[LANES];

    /*
     * Quad: the 4 bits of the lane's quad, at bits 3:0.  Metal masks the
     * hardware result with 15 (applegpu), so it may hold more; Mesa only
     * compares it with 0 (quad_vote_any/all), which needs the other quads'
     * bits absent: this choice is the one that satisfies both.
     */
    for (int l = 0; l < LANES; l++) {
        v[l] = quad ? (m >> (l & ~3)) & 0xf : m;
    }
    wr32(s, &insn->o[0], v);
}

/*
 * Shuffles (§3.7).  The SIMD-group forms follow applegpu's hardware-tested
 * model: the low two bits of the index (or delta) are OR-ed over each quad,
 * inactive lanes included, and that quad value picks the lane within the
 * source quad; with the same index in a quad (what Mesa emits) they are
 * the plain shuffles.  Out of range: the lane's own value.  The quad forms
 * stay within the quad.
 */
void usc_shuffle(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP uint64_t a[LANES];
    uint32_t tb[LANES], v[LANES], q[LANES / 4] = { 0 };
    const uint32_t *b = rd32(c, s, &insn->o[2], tb);
    bool simd = insn->f[AGX_USC_F_SIMD], rot = insn->f[AGX_USC_F_ROT];
    unsigned kind = insn->f[AGX_USC_F_KIND];

    rd64(c, s, &insn->o[1], a);
    for (int l = 0; l < LANES; l++) {
        q[l / 4] |= b[l] & 3;
    }
    for (int l = 0; l < LANES; l++) {
        unsigned base = l & ~3u, pos = l & 3, src = l;
        uint32_t k = b[l];
        int64_t t;

        if (!simd) {
            switch (kind) {
            case 0:
                src = base | (k & 3);
                break;
            case 1:
                src = k < 4 ? base | (pos ^ k) : (unsigned)l;
                break;
            case 2:
                src = rot ? base | ((pos - k) & 3)
                          : k <= pos ? (unsigned)l - k : (unsigned)l;
                break;
            default:
                src = k < 4 - pos ? (unsigned)l + k : (unsigned)l;
                break;
            }
            v[l] = a[src];
            continue;
        }
        switch (kind) {
        case 0:     /* index: the source quad's OR-ed low bits */
            if (k < LANES) {
                src = (k & ~3u) | q[k / 4];
            }
            break;
        case 1:     /* xor */
            if ((l ^ k) < LANES) {
                t = (l ^ k) & ~3u;
                src = t | ((pos ^ q[t / 4]) & 3);
            }
            break;
        case 2:     /* up, or rotate up */
            t = (int64_t)l - k;
            if (rot || t >= 0) {
                t = t & (LANES - 4) & ~3;
                src = t | ((pos - q[t / 4]) & 3);
            }
            break;
        default:    /* down */
            t = (int64_t)l + k;
            if (t < LANES) {
                t &= ~3;
                src = t | ((pos + q[t / 4]) & 3);
            }
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
bool usc_reduce(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned op = insn->f[AGX_USC_F_OP];
    bool simd = insn->f[AGX_USC_F_SIMD], prefix = insn->f[AGX_USC_F_PREFIX];
    unsigned bits = insn->o[0].size, width = simd ? LANES : 4;
    USC_LANE_TMP uint64_t a[LANES];
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
                     (double)apple_bits_f32(acc & 0x7f800000 ? acc :
                                           acc & 0x80000000);
                fx = bits == 16 ? usc_f16_to_f64(x) :
                     (double)apple_bits_f32(x & 0x7f800000 ? x :
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
