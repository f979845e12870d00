/*
 * AGX USC interpreter: the decoder and the cache of decoded programs
 *
 * Instructions are matched against the table agx-isa.py generates from
 * agx-isa.def (most specific encoding first) and their fields and
 * operands extracted at the positions the table gives.  A program is the
 * straight run of code from an entry point to the first `stop` (or
 * `trap`) that no jump seen so far skips over, decoded once and kept,
 * keyed by its GPU VA and checked against the code bytes on every use.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "agx-usc-internal.h"

/* Code is read in aligned chunks: one never spans two GPU pages */
#define CHUNK           256
/* The cache's bounds: programs, and instructions over all of them */
#define CACHE_MAX       512
#define CACHE_MAX_INSNS (256 * 1024)

static uint64_t get_bits(const uint64_t raw[2], unsigned start,
                         unsigned width)
{
    uint64_t v;

    if (start >= 64) {
        v = raw[1] >> (start - 64);
    } else {
        v = raw[0] >> start;
        if (start && start + width > 64) {
            v |= raw[1] << (64 - start);
        }
    }
    return width >= 64 ? v : v & ((1ull << width) - 1);
}

static uint64_t load_le(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)b[i] << (8 * i);
    }
    return v;
}

static void note_gpr(AgxUscInsn *insn, unsigned half, unsigned nhalves)
{
    if (half + nhalves > insn->max_half) {
        insn->max_half = half + nhalves;
    }
}

/* ALU destination: hint bit 7, size bit 8, index 14:9 plus 2 ext bits */
static void decode_dst(AgxUscInsn *insn, const AgxUscOperandDesc *d,
                       AgxUscOpnd *o)
{
    unsigned v = get_bits(insn->raw, 9, 6) |
                 get_bits(insn->raw, d->ext, 2) << 6;
    bool wide = get_bits(insn->raw, 8, 1);

    o->type = AGX_OPND_GPR;
    if (d->kind == AGX_USC_K_DST16 || !wide) {
        o->size = 16;
        o->idx = v;
    } else if (d->kind == AGX_USC_K_DST64 && (v & 1)) {
        o->size = 64;
        o->idx = v & ~1;
    } else {
        o->size = 32;
        o->idx = v & ~1;
    }
    note_gpr(insn, o->idx, o->size / 16);
}

/* ALU sources; false for an undefined type */
static bool decode_src(AgxUscInsn *insn, const AgxUscOperandDesc *d,
                       unsigned dst_size, AgxUscOpnd *o)
{
    unsigned v = get_bits(insn->raw, d->pos, 6) |
                 get_bits(insn->raw, d->ext, 2) << 6;
    unsigned t, hint;

    switch (d->kind) {
    case AGX_USC_K_CSRC:
        /* compare-select values: 100 immediate, 11u uniform, 0hh GPR */
        t = get_bits(insn->raw, d->pos + 6, 3);
        o->size = dst_size;
        if (dst_size > 32) {
            return false;
        }
        if (t == 4) {
            o->type = AGX_OPND_IMM;
            o->imm = v;
        } else if ((t >> 1) == 3) {
            o->type = AGX_OPND_UNI;
            o->idx = v | (t & 1) << 8;
        } else if (t >= 1 && t <= 3) {
            o->type = AGX_OPND_GPR;
            o->idx = v;
        } else {
            return false;
        }
        if (o->size == 32) {
            o->idx &= ~1;
        }
        break;
    case AGX_USC_K_HSRC:
        /* f16 sources: a 3-bit type, abs/neg just above it */
        t = get_bits(insn->raw, d->pos + 6, 3);
        o->mods = get_bits(insn->raw, d->pos + 9, 2);
        o->size = 16;
        if (t == 0) {
            o->type = AGX_OPND_IMM;
            o->imm = apple_f32_bits(usc_minifloat(v));
        } else if ((t >> 2) == 1) {
            if (t & 2) {
                return false;
            }
            o->type = AGX_OPND_UNI;
            o->idx = v | (t & 1) << 8;
        } else {
            o->type = AGX_OPND_GPR;
            o->idx = v;
        }
        break;
    default:
        t = get_bits(insn->raw, d->pos + 6, 4);
        hint = t & 3;
        if (t == 0) {
            o->type = AGX_OPND_IMM;
            o->size = 16;
            o->imm = v;
        } else if ((t >> 2) == 1) {
            o->type = AGX_OPND_UNI;
            o->idx = v | (t & 1) << 8;
            o->size = (t & 2) ? 32 : 16;
            if (o->size == 32) {
                o->idx &= ~1;
            }
        } else if (hint == 0) {
            return false;
        } else {
            o->type = AGX_OPND_GPR;
            o->idx = v;
            if ((t >> 2) == 3) {
                if (d->kind != AGX_USC_K_SRC64 &&
                    d->kind != AGX_USC_K_SSRC64) {
                    return false;
                }
                o->size = 64;
            } else {
                o->size = (t >> 2) ? 32 : 16;
            }
            if (o->size > 16) {
                o->idx &= ~1;
            }
        }
        if (d->kind == AGX_USC_K_FSRC) {
            o->mods = get_bits(insn->raw, d->pos + 10, 2);
            if (o->type == AGX_OPND_IMM) {
                o->imm = apple_f32_bits(usc_minifloat(v));
            }
        } else if (d->kind == AGX_USC_K_SSRC ||
                   d->kind == AGX_USC_K_SSRC64) {
            o->mods = get_bits(insn->raw, d->pos + 10, 1) ? AGX_MOD_SX : 0;
        }
        break;
    }
    if (o->type == AGX_OPND_GPR) {
        note_gpr(insn, o->idx, o->size / 16);
    }
    return true;
}

/* Packed formats always move 4 components (agx-shaders.md §3.8) */
static bool packed_format(unsigned fmt)
{
    return fmt == 8 || fmt == 12 || fmt == 13;
}

/* The registers memory instructions name in fields, not operands */
static bool note_memory_regs(AgxUscInsn *insn)
{
    const uint32_t *f = insn->f;
    unsigned n = __builtin_popcount(f[AGX_USC_F_MASK]);
    unsigned r = f[AGX_USC_F_R];

    switch (insn->op) {
    case AGX_USC_OP_DEVICE_LOAD:
    case AGX_USC_OP_DEVICE_STORE:
        if (packed_format(f[AGX_USC_F_FMT])) {
            n = 4;
        }
        /* fall through */
    case AGX_USC_OP_STACK_LOAD:
    case AGX_USC_OP_STACK_STORE:
    case AGX_USC_OP_LOCAL_LOAD:
    case AGX_USC_OP_LOCAL_STORE:
        if (f[AGX_USC_F_RT]) {
            note_gpr(insn, r & ~1, 2 * n);
        } else {
            note_gpr(insn, r, n);
        }
        break;
    case AGX_USC_OP_UNIFORM_STORE:
        note_gpr(insn, r, n);
        break;
    case AGX_USC_OP_ATOMIC:
        if (f[AGX_USC_F_RD]) {
            note_gpr(insn, r & ~1, 2);
        }
        /* cmpxchg reads the pair (new value, comparison) */
        note_gpr(insn, f[AGX_USC_F_S] & ~1, f[AGX_USC_F_OP] == 3 ? 4 : 2);
        break;
    case AGX_USC_OP_LOCAL_ATOMIC:
        if (f[AGX_USC_F_RD]) {
            note_gpr(insn, f[AGX_USC_F_RT] ? r & ~1 : r,
                     f[AGX_USC_F_RT] ? 2 : 1);
        }
        note_gpr(insn, f[AGX_USC_F_S] & ~1, f[AGX_USC_F_OP] == 3 ? 4 : 2);
        break;
    case AGX_USC_OP_LD_TILE:
    case AGX_USC_OP_ST_TILE:
        note_gpr(insn, f[AGX_USC_F_RT] ? r & ~1 : r,
                 n * (f[AGX_USC_F_RT] ? 2 : 1));
        if (f[AGX_USC_F_EXPL]) {
            note_gpr(insn, f[AGX_USC_F_C], 2);
        }
        if (f[AGX_USC_F_ST]) {
            note_gpr(insn, f[AGX_USC_F_S], 1);
        }
        return true;
    case AGX_USC_OP_ITER:
    case AGX_USC_OP_LDCF:
        n = (f[AGX_USC_F_N] ?: 4) * (insn->op == AGX_USC_OP_LDCF ? 3 : 1);
        note_gpr(insn, f[AGX_USC_F_RT] ? r & ~1 : r,
                 n * (f[AGX_USC_F_RT] ? 2 : 1));
        return true;
    case AGX_USC_OP_SAMPLE_MASK:
        if (!f[AGX_USC_F_TT]) {
            note_gpr(insn, f[AGX_USC_F_T], 1);
        }
        if (!f[AGX_USC_F_SI]) {
            note_gpr(insn, f[AGX_USC_F_S], 1);
        }
        return true;
    case AGX_USC_OP_ZS_EMIT:
        /* depth (two halves) then stencil (one); neither: invalid */
        if (!f[AGX_USC_F_ZS]) {
            return false;
        }
        note_gpr(insn, r, (f[AGX_USC_F_ZS] & 1 ? 2 : 0) +
                          (f[AGX_USC_F_ZS] & 2 ? 1 : 0));
        if (!f[AGX_USC_F_TT]) {
            note_gpr(insn, f[AGX_USC_F_T], 1);
        }
        return true;
    case AGX_USC_OP_BLOCK_IMAGE_STORE:
        note_gpr(insn, r & ~1, 2);
        if (f[AGX_USC_F_EXPL]) {
            note_gpr(insn, f[AGX_USC_F_C] & ~1, 6);
        } else {
            note_gpr(insn, f[AGX_USC_F_C], 1);
        }
        if (f[AGX_USC_F_TT] == 1) {
            note_gpr(insn, f[AGX_USC_F_T], 1);
        } else if (f[AGX_USC_F_TT] == 3) {
            note_gpr(insn, f[AGX_USC_F_T] & ~1, 2);
        }
        return true;
    case AGX_USC_OP_TEX_STATE_STORE:
    case AGX_USC_OP_SAMPLER_STATE_STORE:
        /* a base in GPRs is a 64-bit pair; the offset is an immediate */
        if (!f[AGX_USC_F_BU]) {
            note_gpr(insn, 4 * f[AGX_USC_F_B], 4);
        }
        return true;
    case AGX_USC_OP_TEXTURE_SAMPLE:
        note_gpr(insn, 0, agx_sample_max_half(insn));
        return true;
    case AGX_USC_OP_TEXTURE_LOAD:
    case AGX_USC_OP_IMAGE_WRITE:
        if (insn->op == AGX_USC_OP_IMAGE_WRITE) {
            n = 4;
        }
        note_gpr(insn, f[AGX_USC_F_RT] ? r & ~1 : r,
                 n * (f[AGX_USC_F_RT] ? 2 : 1));
        note_gpr(insn, f[AGX_USC_F_C] & ~1,
                 2 * agx_image_coords(f[AGX_USC_F_DIM]));
        if (insn->op == AGX_USC_OP_IMAGE_WRITE ? !f[AGX_USC_F_DT]
                                              : f[AGX_USC_F_LOD] == 6) {
            note_gpr(insn, f[AGX_USC_F_D], 1);
        }
        if (f[AGX_USC_F_TT] == 1) {
            note_gpr(insn, f[AGX_USC_F_T], 1);
        } else if (f[AGX_USC_F_TT] == 3) {
            note_gpr(insn, f[AGX_USC_F_T] & ~1, 2);
        }
        if (insn->op == AGX_USC_OP_TEXTURE_LOAD && f[AGX_USC_F_OFFS]) {
            note_gpr(insn, f[AGX_USC_F_O] & ~1, 2);
        }
        return true;
    default:
        return true;
    }
    switch (insn->op) {
    case AGX_USC_OP_DEVICE_LOAD:
    case AGX_USC_OP_DEVICE_STORE:
    case AGX_USC_OP_ATOMIC:
        if (!f[AGX_USC_F_AT]) {
            note_gpr(insn, f[AGX_USC_F_A] & ~1, 4);
        }
        /* fall through */
    case AGX_USC_OP_STACK_LOAD:
    case AGX_USC_OP_STACK_STORE:
        if (!f[AGX_USC_F_OT]) {
            note_gpr(insn, f[AGX_USC_F_O] & ~1, 2);
        }
        break;
    case AGX_USC_OP_LOCAL_LOAD:
    case AGX_USC_OP_LOCAL_STORE:
    case AGX_USC_OP_LOCAL_ATOMIC:
        if (f[AGX_USC_F_AT] == 0) {
            note_gpr(insn, f[AGX_USC_F_A], 1);
        }
        if (!f[AGX_USC_F_OT]) {
            note_gpr(insn, f[AGX_USC_F_O] & 0xff, 1);
        }
        break;
    default:
        break;
    }
    return true;
}

bool agx_usc_decode_one(const uint8_t *bytes, uint32_t avail,
                        AgxUscInsn *insn)
{
    uint8_t buf[12] = { 0 };
    uint64_t lo;

    memset(insn, 0, sizeof(*insn));
    insn->target = -1;
    memcpy(buf, bytes, avail < sizeof(buf) ? avail : sizeof(buf));
    lo = load_le(buf, 8);

    for (unsigned i = 0; i < agx_usc_n_encodings; i++) {
        const AgxUscEncoding *e = &agx_usc_encodings[i];
        unsigned len = e->len_short;
        uint64_t v = lo;
        unsigned dst_size = 32;

        if (e->lbit >= 0 && ((lo >> e->lbit) & 1)) {
            len = e->len_long;
        }
        if (len > avail) {
            continue;
        }
        if (len < 8) {
            v &= (1ull << (8 * len)) - 1;
        }
        if ((v & e->mask) != e->exact) {
            continue;
        }
        insn->op = e->op;
        insn->len = len;
        insn->raw[0] = v;
        insn->raw[1] = len > 8 ? load_le(buf + 8, len - 8) : 0;
        for (unsigned k = 0; k < e->nfields; k++) {
            const AgxUscFieldDesc *fd = &e->fields[k];
            uint32_t val = 0;
            unsigned sh = 0;

            for (unsigned p = 0; p < fd->npieces; p++) {
                val |= get_bits(insn->raw, fd->start[p], fd->width[p]) << sh;
                sh += fd->width[p];
            }
            insn->f[fd->field] = val;
        }
        /* the destination first: compare-select values take its size */
        for (unsigned k = 0; k < e->noperands; k++) {
            const AgxUscOperandDesc *od = &e->operands[k];

            if (od->slot == 0) {
                decode_dst(insn, od, &insn->o[0]);
                dst_size = insn->o[0].size;
            }
        }
        for (unsigned k = 0; k < e->noperands; k++) {
            const AgxUscOperandDesc *od = &e->operands[k];

            if (od->slot != 0 &&
                !decode_src(insn, od, dst_size, &insn->o[od->slot])) {
                return false;
            }
        }
        return note_memory_regs(insn);
    }
    return false;
}

/* --- programs and their cache -------------------------------------------- */

/*
 * The code at [va, va + n): readable chunks copied into @buf, unreadable
 * ones marked in @ok (false) and zero-filled; true when all were readable
 */
static bool read_code(uint64_t va, uint32_t n, uint8_t *buf, bool *ok,
                      const AgxUscMemOps *ops, void *opaque)
{
    uint32_t pos = 0;
    bool all = true;

    while (pos < n) {
        uint64_t a = va + pos;
        uint32_t len = CHUNK - (a % CHUNK);
        uint64_t fva;
        bool good;

        if (len > n - pos) {
            len = n - pos;
        }
        good = ops->read(opaque, a, buf + pos, len, &fva);
        if (!good) {
            memset(buf + pos, 0, len);
            all = false;
        }
        for (uint32_t i = 0; i < len; i++) {
            ok[pos + i] = good;
        }
        pos += len;
    }
    return all;
}

static int find_insn(const AgxUscProgram *p, int64_t offset)
{
    uint32_t lo = 0, hi = p->ninsns;

    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (p->insns[mid].offset < offset) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < p->ninsns && p->insns[lo].offset == offset ? (int)lo : -1;
}

static AgxUscProgram *decode_program(uint64_t va, const AgxUscMemOps *ops,
                                     void *opaque)
{
    AgxUscProgram *p = g_new0(AgxUscProgram, 1);
    uint32_t cap = 0, fetched = 0, pos = 0, icap = 64;
    int64_t max_target = 0;
    uint8_t *buf = NULL;
    bool *ok = NULL;

    p->va = va;
    p->insns = g_new(AgxUscInsn, icap);
    for (;;) {
        AgxUscInsn *insn;
        uint32_t avail = 0;

        /* have the next 12 bytes (or up to the limit) read */
        while (fetched < pos + 12 && fetched < AGX_USC_MAX_CODE) {
            uint32_t len = CHUNK - ((va + fetched) % CHUNK);

            if (fetched + len > cap) {
                cap = MAX(cap * 2, fetched + len);
                buf = g_realloc(buf, cap);
                ok = g_realloc(ok, cap);
            }
            read_code(va + fetched, len, buf + fetched, ok + fetched, ops,
                      opaque);
            fetched += len;
        }
        while (pos + avail < fetched && avail < 12 && ok[pos + avail]) {
            avail++;
        }
        if (p->ninsns == icap) {
            icap *= 2;
            p->insns = g_renew(AgxUscInsn, p->insns, icap);
        }
        insn = &p->insns[p->ninsns++];
        if (pos >= AGX_USC_MAX_CODE || avail < 2) {
            memset(insn, 0, sizeof(*insn));
            insn->op = pos >= AGX_USC_MAX_CODE ? AGX_USC_OP_INVALID
                                               : AGX_USC_OP_NOFETCH;
            insn->offset = pos;
            insn->target = -1;
            break;
        }
        if (!agx_usc_decode_one(buf + pos, avail, insn)) {
            memset(insn, 0, sizeof(*insn));
            insn->op = AGX_USC_OP_INVALID;
            insn->raw[0] = load_le(buf + pos, avail < 8 ? avail : 8);
            insn->offset = pos;
            insn->target = -1;
            break;
        }
        insn->offset = pos;
        if (insn->op == AGX_USC_OP_JMP_ANY || insn->op == AGX_USC_OP_JMP_NONE) {
            int64_t t = (int64_t)pos + (int32_t)insn->f[AGX_USC_F_OFF];

            if (t > max_target) {
                max_target = t;
            }
        }
        pos += insn->len;
        if ((insn->op == AGX_USC_OP_STOP || insn->op == AGX_USC_OP_TRAP) &&
            pos > max_target) {
            break;
        }
    }
    /* keep the bytes decoded, to recognise the same code later */
    p->nbytes = MIN(pos + 12, fetched);
    p->bytes = g_malloc(p->nbytes);
    for (uint32_t i = 0; i < p->nbytes; i++) {
        /* an unreadable byte is remembered as readable-or-not below */
        p->bytes[i] = buf[i];
    }
    p->insns = g_renew(AgxUscInsn, p->insns, p->ninsns);
    for (uint32_t i = 0; i < p->ninsns; i++) {
        AgxUscInsn *insn = &p->insns[i];

        if (insn->op == AGX_USC_OP_JMP_ANY ||
            insn->op == AGX_USC_OP_JMP_NONE) {
            insn->target = find_insn(p, (int64_t)insn->offset +
                                     (int32_t)insn->f[AGX_USC_F_OFF]);
        }
        p->nofetch |= insn->op == AGX_USC_OP_NOFETCH;
    }
    p->refs = 1;
    g_free(buf);
    g_free(ok);
    return p;
}

/* Does the code at p->va still hold what p was decoded from? */
#define MATCH_ON_STACK  1024

static bool program_matches(AgxUscProgram *p, const AgxUscMemOps *ops,
                            void *opaque)
{
    /* (a program checked for every group: no allocation for small ones) */
    USC_LANE_TMP uint8_t sbuf[MATCH_ON_STACK];
    USC_LANE_TMP bool sok[MATCH_ON_STACK];
    bool small = p->nbytes <= MATCH_ON_STACK;
    uint8_t *buf = small ? sbuf : g_malloc(p->nbytes);
    bool *ok = small ? sok : g_malloc(p->nbytes);
    bool same, all;

    all = read_code(p->va, p->nbytes, buf, ok, ops, opaque);
    same = !memcmp(buf, p->bytes, p->nbytes);
    /*
     * A chunk that became readable or unreadable changes the decode (all
     * of them readable and no instruction unfetched: nothing changed)
     */
    for (uint32_t i = 0; same && !(all && !p->nofetch) && i < p->ninsns;
         i++) {
        AgxUscInsn *insn = &p->insns[i];
        uint32_t end = MIN(insn->offset + (insn->len ? insn->len : 2),
                           p->nbytes);

        for (uint32_t b = insn->offset; b < end; b++) {
            if (!ok[b] != (insn->op == AGX_USC_OP_NOFETCH)) {
                same = false;
                break;
            }
        }
    }
    if (!small) {
        g_free(buf);
        g_free(ok);
    }
    return same;
}

void agx_usc_program_unref(AgxUscProgram *p)
{
    if (p && g_atomic_int_dec_and_test(&p->refs)) {
        g_free(p->insns);
        g_free(p->bytes);
        g_free(p);
    }
}

/*
 * What getting @p costs the budget: checking its bytes and decoding them,
 * whether it was cached or not, so that the budget (and where slices end)
 * does not depend on what the cache of this process holds
 */
static uint64_t program_cost(const AgxUscProgram *p)
{
    return p->nbytes / 64 + p->ninsns;
}

static GMutex cache_lock;
static GHashTable *cache;
static uint64_t cache_insns;

AgxUscProgram *agx_usc_program_get(uint64_t va, const AgxUscMemOps *ops,
                                   void *opaque, uint64_t *cost)
{
    AgxUscProgram *p;

    g_mutex_lock(&cache_lock);
    if (!cache) {
        cache = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                      (GDestroyNotify)agx_usc_program_unref);
    }
    p = g_hash_table_lookup(cache, &va);
    if (p && program_matches(p, ops, opaque)) {
        *cost = program_cost(p);
        g_atomic_int_inc(&p->refs);
        g_mutex_unlock(&cache_lock);
        return p;
    }
    if (p) {
        cache_insns -= p->ninsns;
        g_hash_table_remove(cache, &va);
    }
    p = decode_program(va, ops, opaque);
    if (g_hash_table_size(cache) >= CACHE_MAX ||
        cache_insns + p->ninsns > CACHE_MAX_INSNS) {
        g_hash_table_remove_all(cache);
        cache_insns = 0;
    }
    cache_insns += p->ninsns;
    *cost = program_cost(p);
    g_atomic_int_inc(&p->refs);
    g_hash_table_insert(cache, &p->va, p);
    g_mutex_unlock(&cache_lock);
    return p;
}
