/*
 * AGX USC interpreter: device memory (loads, stores, atomics), uniform
 * stores, threadgroup memory and the per-thread stack (semantics and
 * sources: shared/reference/agx-shaders.md, cited as §n)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-usc-exec.h"

/* --- memory -------------------------------------------------------------- */

bool usc_mem_read(Ctx *c, const AgxUscInsn *insn, uint64_t va, void *buf,
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
    *st = usc_fault(c, insn, AGX_USC_FAULT_LOAD, fva);
    return false;
}

bool usc_mem_write(Ctx *c, const AgxUscInsn *insn, uint64_t va,
                   const void *buf, uint32_t len, AgxUscStatus *st)
{
    uint64_t fva = va;

    if (c->ops->write(c->opaque, va, buf, len, &fva)) {
        return true;
    }
    if (!c->l->soft_faults) {
        *st = usc_fault(c, insn, AGX_USC_FAULT_STORE, fva);
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
        x = i == 3 ? x : usc_srgb_to_linear(x);
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
    return r32 ? apple_bits_f32(v) : usc_f16_to_f64(v);
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
/*
 * The common case of device_load/device_store: raw formats, contiguous
 * components, active lanes in one run whose accesses follow each other in
 * memory (lane i at base + i * span, as a thread-indexed buffer is): one
 * read or write for the SIMD-group.  False when it does not apply or the
 * access fails (the caller then goes lane by lane, which reports faults
 * exactly).
 */
static bool device_mem_coalesced(Ctx *c, Simd *s, const AgxUscInsn *insn,
                                 bool store, unsigned size, unsigned shift,
                                 unsigned first, unsigned n, unsigned r,
                                 bool r32)
{
    unsigned lo = __builtin_ctz(s->exec), span = n * size, lanes = s->nexec;
    USC_LANE_TMP uint8_t buf[LANES * 16];
    uint64_t start = 0, fva;

    if ((s->exec >> lo) != (lanes == 32 ? ~0u : (1u << lanes) - 1)) {
        return false;
    }
    for (unsigned l = lo; l < lo + lanes; l++) {
        uint64_t addr = (mem_base(c, s, insn, l) & ~(uint64_t)(size - 1)) +
                        ((uint64_t)mem_index(s, insn, l) << shift) * size +
                        first * size;

        if (l == lo) {
            start = addr;
        } else if (addr != start + (uint64_t)(l - lo) * span) {
            return false;
        }
    }
    if (store) {
        for (unsigned l = lo; l < lo + lanes; l++) {
            for (unsigned k = 0; k < n; k++) {
                uint32_t v = get_data(s, r, r32, k, l);

                memcpy(buf + (l - lo) * span + k * size, &v, size);
            }
        }
        return c->ops->write(c->opaque, start, buf, lanes * span, &fva);
    }
    if (!c->ops->read(c->opaque, start, buf, lanes * span, &fva)) {
        return false;
    }
    for (unsigned l = lo; l < lo + lanes; l++) {
        for (unsigned k = 0; k < n; k++) {
            uint32_t v = 0;

            memcpy(&v, buf + (l - lo) * span + k * size, size);
            set_data(s, r, r32, k, l, v);
        }
    }
    return true;
}

AgxUscStatus usc_device_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
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
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
    if (contiguous && fmt <= 3 && s->exec &&
        device_mem_coalesced(c, s, insn, store, size, shift, first,
                             last - first + 1, r, r32)) {
        return AGX_USC_OK;
    }

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
                v = get_data(s, r, r32, k, l);
                k++;
                if (!pack(fmt, v, r32, &p)) {
                    return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
                }
                memcpy(buf + i * size, &p, size);   /* little-endian host */
                if (!contiguous) {
                    usc_mem_write(c, insn, addr + i * size, buf + i * size,
                                  size, &st);
                    if (st != AGX_USC_OK) {
                        return st;
                    }
                }
            }
            if (contiguous) {
                usc_mem_write(c, insn, addr + first * size, buf + first * size,
                              (last - first + 1) * size, &st);
            }
        } else {
            if (packed) {
                usc_mem_read(c, insn, addr, buf, 4, &st);
            } else if (!contiguous ||
                       !usc_mem_read(c, insn, addr + first * size,
                                     buf + first * size,
                                     (last - first + 1) * size, &st)) {
                /* one component at a time: a span may cross a hole */
                for (unsigned i = first; st == AGX_USC_OK && i <= last; i++) {
                    if ((mask >> i) & 1) {
                        usc_mem_read(c, insn, addr + i * size, buf + i * size,
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
                set_data(s, r, r32, k, l, v);
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
AgxUscStatus usc_uniform_store(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned mask = insn->f[AGX_USC_F_MASK], o = insn->f[AGX_USC_F_O];

    if (!c->uniforms || insn->f[AGX_USC_F_RT] || !insn->f[AGX_USC_F_OT]) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
                return usc_fault(c, insn, AGX_USC_FAULT_STORE, h);
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
AgxUscStatus usc_atomic(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned op = insn->f[AGX_USC_F_OP], src = insn->f[AGX_USC_F_S] & ~1;
    AgxUscStatus st = AGX_USC_OK;

    if (op > 10) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
        if (usc_mem_read(c, insn, addr, &old, 4, &st)) {
            atomic_op(op, old, v, cmp, &nv);
            usc_mem_write(c, insn, addr, &nv, 4, &st);
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
            *st = usc_fault(c, insn, store ? AGX_USC_FAULT_STORE
                                       : AGX_USC_FAULT_LOAD, (uint64_t)ad);
        }
        return false;
    }
    if (!c->shared) {
        /* a pipe's group: zero-filled memory it had not touched yet */
        c->shared = *c->shared_home = g_malloc0(c->shared_bytes);
    }
    *addr = ad;
    return true;
}

AgxUscStatus usc_local_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                           bool store)
{
    unsigned fmt = insn->f[AGX_USC_F_FMT], size = format_size(fmt);
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    bool r32 = insn->f[AGX_USC_F_RT];
    AgxUscStatus st = AGX_USC_OK;

    if (fmt > 3 || !mask || (fmt == 2 && !r32)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
                v = get_data(s, r, r32, k, l);
                if (addr != UINT32_MAX) {
                    memcpy(c->shared + addr + i * size, &v, size);
                }
            } else {
                if (addr != UINT32_MAX) {
                    memcpy(&v, c->shared + addr + i * size, size);
                }
                set_data(s, r, r32, k, l, v);
            }
            k++;
        }
    }
    return AGX_USC_OK;
}

AgxUscStatus usc_local_atomic(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned op = insn->f[AGX_USC_F_OP], src = insn->f[AGX_USC_F_S] & ~1;
    AgxUscStatus st = AGX_USC_OK;

    if (op > 10 || src >= 2 * AGX_USC_GPRS) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
bool usc_stack_reserve(Simd *s, uint32_t bytes)
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
    s->nstack = cap * LANES;
    return true;
}

AgxUscStatus usc_stack_mem(Ctx *c, Simd *s, const AgxUscInsn *insn,
                           bool store)
{
    unsigned fmt = insn->f[AGX_USC_F_FMT], size = format_size(fmt);
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    bool r32 = insn->f[AGX_USC_F_RT];

    if (fmt > 3 || !mask || (fmt == 2 && !r32)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
            return usc_fault(c, insn, AGX_USC_FAULT_STACK, (uint64_t)off);
        }
        p = s->stack + (size_t)l * s->stack_cap + off;
        for (unsigned i = 0; i <= last; i++) {
            uint32_t v = 0;

            if (!((mask >> i) & 1)) {
                continue;
            }
            if (store) {
                v = get_data(s, r, r32, k, l);
                memcpy(p + i * size, &v, size);
            } else {
                memcpy(&v, p + i * size, size);
                set_data(s, r, r32, k, l, v);
            }
            k++;
        }
    }
    return AGX_USC_OK;
}
