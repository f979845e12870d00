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

#include "agx-usc-exec.h"

static uint64_t total_lane_insns;

bool agx_usc_general_paths;

uint64_t agx_usc_lane_insns(void)
{
    return __atomic_load_n(&total_lane_insns, __ATOMIC_RELAXED);
}

/* --- faults -------------------------------------------------------------- */

AgxUscStatus usc_fault(Ctx *c, const AgxUscInsn *insn, AgxUscFaultKind k,
                       uint64_t va)
{
    c->fault->kind = k;
    c->fault->pc = c->prog->va + insn->offset;
    c->fault->va = va;
    c->fault->insn = insn->raw[0];
    return AGX_USC_FAULT;
}

/* --- control flow: the r0l nesting counter (§2.4) ------------------------ */

USC_LANE_CLONES
static void exec_stack(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint32_t *r0 = row(s, 0);
    unsigned n = insn->f[AGX_USC_F_NEST];
    uint32_t cond = 0, exec = 0;
    USC_LANE_TMP uint32_t t[LANES], z[LANES];
    bool is_float = false, masks = false;

    switch (insn->op) {
    case AGX_USC_OP_IF_FCMP:
    case AGX_USC_OP_ELSE_FCMP:
    case AGX_USC_OP_WHILE_FCMP:
        is_float = true;
        /* fall through */
    case AGX_USC_OP_IF_ICMP:
    case AGX_USC_OP_ELSE_ICMP:
    case AGX_USC_OP_WHILE_ICMP:
        masks = usc_compare_masks(c, s, insn, is_float, t);
        if (!masks) {
            cond = usc_compare_lanes(c, s, insn, is_float);
        }
        break;
    default:
        break;
    }
    if (!masks) {
        for (int l = 0; l < LANES; l++) {
            t[l] = -((cond >> l) & 1);
        }
    }
#define R0L_LOOP(expr)                                                  \
    for (int l = 0; l < LANES; l++) {                                   \
        uint32_t v = r0[l] & 0xffff;                                    \
        uint32_t cl = t[l] & 1;                                         \
                                                                        \
        (void)cl;                                                       \
        v = (expr) & 0xffff;                                            \
        r0[l] = (r0[l] & 0xffff0000) | v;                               \
        z[l] = v == 0;                                                  \
    }

    switch (insn->op) {
    case AGX_USC_OP_IF_ICMP:
    case AGX_USC_OP_IF_FCMP:
        /* if v != 0: v + n; else if not cond: 1 */
        R0L_LOOP(v ? v + n : cl ? 0 : 1);
        break;
    case AGX_USC_OP_ELSE_ICMP:
    case AGX_USC_OP_ELSE_FCMP:
        /* if v = 0: n; else if v = 1: cond ? 0 : 1 */
        R0L_LOOP(v == 0 ? n : v == 1 ? !cl : v);
        break;
    case AGX_USC_OP_WHILE_ICMP:
    case AGX_USC_OP_WHILE_FCMP:
        /* if v < n: cond ? 0 : n */
        R0L_LOOP(v < n ? (cl ? 0 : n) : v);
        break;
    default:    /* pop_exec: max(v - n, 0) */
        R0L_LOOP(v > n ? v - n : 0);
        break;
    }
#undef R0L_LOOP
    for (int l = 0; l < LANES; l++) {
        exec |= z[l] << l;
    }
    set_exec(s, exec);
}

/* --- special registers (§2.3) -------------------------------------------- */

static bool get_sr(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const AgxUscLaunch *l = c->l;
    unsigned sr = insn->f[AGX_USC_F_SR];
    USC_LANE_TMP uint32_t v[LANES];
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
        case 14:        /* samples_log2: the tile's (fragment work) */
            v[lane] = c->tile ? __builtin_ctz(MAX(c->tile->samples, 1)) : 0;
            break;
        case 60:        /* coverage_mask: the lane's live samples */
            v[lane] = c->group ? s->cov[lane] : 1;
            break;
        case 124:       /* input_sample_mask: as the pixel was launched */
            v[lane] = c->group ? s->cov_in[lane] : 1;
            break;
        case 4 ... 6:
            v[lane] = l->local[sr - 4];
            break;
        case 8 ... 10:
            /* Metal's dispatch size: the declared one (unconfirmed) */
            v[lane] = l->local[sr - 8];
            break;
        case 20:        /* core_id: one core */
        case 21:        /* vm_slot: not visible to the interpreter */
            v[lane] = 0;
            break;
        case 62:        /* backfacing: the fragment's primitive */
            v[lane] = c->group && c->group->back_facing;
            break;
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
            if (c->group && c->tile && sr < 82) {
                /* a fragment: its pixel in the render target */
                v[lane] = sr == 80 ? c->tile->origin_x + c->group->px[lane]
                                   : c->tile->origin_y + c->group->py[lane];
            }
            break;
        default:
            return false;
        }
    }
    wr32(s, &insn->o[0], v);
    return true;
}

/* --- stage outputs ------------------------------------------------------- */

/*
 * st_vary: each active lane stores 32-bit register R as output idx of
 * its vertex, through the stage's hook; without one (compute) it is an
 * instruction of another stage
 */
static bool st_vary(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const AgxUscGroup *g = c->group;
    unsigned r = insn->f[AGX_USC_F_R], idx = insn->f[AGX_USC_F_IDX];
    bool imm = insn->f[AGX_USC_F_IDXI];

    if (!g || !g->stage || !g->stage->st_var || (r & 1) ||
        r + 2 > c->gpr_halves || (!imm && idx + 1 > c->gpr_halves)) {
        return false;
    }
    for (int l = 0; l < LANES; l++) {
        if (s->exec & (1u << l)) {
            g->stage->st_var(g->stage_opaque, l,
                             imm ? idx : get_half(s, idx, l),
                             row(s, r >> 1)[l]);
        }
    }
    return true;
}

/*
 * The instructions that reach memory (device, uniform, local, stack,
 * textures, images, the tilebuffer): they may fault, so each returns its
 * status
 */
static AgxUscStatus exec_memory(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    switch (insn->op) {
    case AGX_USC_OP_DEVICE_LOAD:
    case AGX_USC_OP_DEVICE_STORE:
        return usc_device_mem(c, s, insn, insn->op == AGX_USC_OP_DEVICE_STORE);
    case AGX_USC_OP_UNIFORM_STORE:
        return usc_uniform_store(c, s, insn);
    case AGX_USC_OP_ATOMIC:
        return usc_atomic(c, s, insn);
    case AGX_USC_OP_LOCAL_LOAD:
    case AGX_USC_OP_LOCAL_STORE:
        return usc_local_mem(c, s, insn, insn->op == AGX_USC_OP_LOCAL_STORE);
    case AGX_USC_OP_LOCAL_ATOMIC:
        return usc_local_atomic(c, s, insn);
    case AGX_USC_OP_STACK_LOAD:
    case AGX_USC_OP_STACK_STORE:
        return usc_stack_mem(c, s, insn, insn->op == AGX_USC_OP_STACK_STORE);
    case AGX_USC_OP_TEXTURE_SAMPLE:
        return usc_texture_sample(c, s, insn);
    case AGX_USC_OP_TEXTURE_LOAD:
        return usc_texture_load(c, s, insn);
    case AGX_USC_OP_IMAGE_WRITE:
        return usc_image_write(c, s, insn);
    case AGX_USC_OP_LD_TILE:
    case AGX_USC_OP_ST_TILE:
        return usc_tile_access(c, s, insn, insn->op == AGX_USC_OP_ST_TILE);
    case AGX_USC_OP_BLOCK_IMAGE_STORE:
        return usc_block_image_store(c, s, insn);
    default:
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
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
        c->lane_insns += s->nexec;
        if (insn->max_half > c->gpr_halves) {
            return usc_fault(c, insn, AGX_USC_FAULT_REGISTER, 0);
        }

        switch (insn->op) {
        case AGX_USC_OP_STOP:
            s->state = SIMD_DONE;
            return AGX_USC_OK;
        case AGX_USC_OP_TRAP:
            return usc_fault(c, insn, AGX_USC_FAULT_TRAP, 0);
        case AGX_USC_OP_NOFETCH:
            return usc_fault(c, insn, AGX_USC_FAULT_FETCH,
                             c->prog->va + insn->offset);
        case AGX_USC_OP_INVALID:
            return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
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
                    return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
                }
                next = insn->target;
            }
            break;
        case AGX_USC_OP_IF_ICMP:
        case AGX_USC_OP_ELSE_ICMP:
        case AGX_USC_OP_WHILE_ICMP:
            if (!usc_icond_valid(insn->f[AGX_USC_F_COND])) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            exec_stack(c, s, insn);
            break;
        case AGX_USC_OP_IF_FCMP:
        case AGX_USC_OP_ELSE_FCMP:
        case AGX_USC_OP_WHILE_FCMP:
            if (insn->f[AGX_USC_F_COND] == 4) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            /* fall through */
        case AGX_USC_OP_POP_EXEC:
            exec_stack(c, s, insn);
            break;
        case AGX_USC_OP_MOV_IMM16:
        case AGX_USC_OP_MOV_IMM32: {
            USC_LANE_TMP uint32_t v[LANES];

            for (int l = 0; l < LANES; l++) {
                v[l] = insn->f[AGX_USC_F_IMM];
            }
            wr32(s, &insn->o[0], v);
            break;
        }
        case AGX_USC_OP_GET_SR:
            if (!get_sr(c, s, insn)) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_FADD:
        case AGX_USC_OP_FMUL:
        case AGX_USC_OP_FFMA:
        case AGX_USC_OP_HADD:
        case AGX_USC_OP_HMUL:
        case AGX_USC_OP_HFMA:
            usc_float_arith(c, s, insn);
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
            usc_float_unary(c, s, insn);
            break;
        case AGX_USC_OP_DFDX:
        case AGX_USC_OP_DFDY:
            usc_derivative(c, s, insn);
            break;
        case AGX_USC_OP_FCMPSEL:
        case AGX_USC_OP_ICMPSEL:
            if (!usc_cmpsel(c, s, insn, insn->op == AGX_USC_OP_FCMPSEL)) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_FCMP_BALLOT:
        case AGX_USC_OP_FCMP_QUAD_BALLOT:
            if (insn->f[AGX_USC_F_COND] == 4) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            usc_ballot(c, s, insn, true,
                       insn->op == AGX_USC_OP_FCMP_QUAD_BALLOT);
            break;
        case AGX_USC_OP_ICMP_BALLOT:
        case AGX_USC_OP_ICMP_QUAD_BALLOT:
            if (!usc_icond_valid(insn->f[AGX_USC_F_COND])) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            usc_ballot(c, s, insn, false,
                       insn->op == AGX_USC_OP_ICMP_QUAD_BALLOT);
            break;
        case AGX_USC_OP_IADD:
            usc_int_add(c, s, insn, false);
            break;
        case AGX_USC_OP_IMAD:
            usc_int_add(c, s, insn, true);
            break;
        case AGX_USC_OP_BFI:
        case AGX_USC_OP_BFEIL:
        case AGX_USC_OP_EXTR:
        case AGX_USC_OP_SHLHI:
        case AGX_USC_OP_SHRHI:
        case AGX_USC_OP_ASR:
        case AGX_USC_OP_ASRH:
            usc_bitfield(c, s, insn);
            break;
        case AGX_USC_OP_BITREV:
        case AGX_USC_OP_POPCOUNT:
        case AGX_USC_OP_FFS:
        case AGX_USC_OP_INTL:
            usc_int_unary(c, s, insn);
            break;
        case AGX_USC_OP_BITOP:
            usc_bitop(c, s, insn);
            break;
        case AGX_USC_OP_CONVERT:
            if (!usc_convert(c, s, insn)) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_SHUFFLE:
            usc_shuffle(c, s, insn);
            break;
        case AGX_USC_OP_REDUCE:
            if (!usc_reduce(c, s, insn)) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_DEVICE_LOAD:
        case AGX_USC_OP_DEVICE_STORE:
        case AGX_USC_OP_UNIFORM_STORE:
        case AGX_USC_OP_ATOMIC:
        case AGX_USC_OP_LOCAL_LOAD:
        case AGX_USC_OP_LOCAL_STORE:
        case AGX_USC_OP_LOCAL_ATOMIC:
        case AGX_USC_OP_STACK_LOAD:
        case AGX_USC_OP_STACK_STORE:
        case AGX_USC_OP_TEXTURE_SAMPLE:
        case AGX_USC_OP_TEXTURE_LOAD:
        case AGX_USC_OP_IMAGE_WRITE:
        case AGX_USC_OP_LD_TILE:
        case AGX_USC_OP_ST_TILE:
        case AGX_USC_OP_BLOCK_IMAGE_STORE:
            st = exec_memory(c, s, insn);
            if (st != AGX_USC_OK) {
                return st;
            }
            /* an access per active lane costs about two instructions */
            *c->budget -= MIN(*c->budget, 2 * s->nexec);
            break;
        case AGX_USC_OP_ITER:
        case AGX_USC_OP_LDCF:
            if (!usc_iter(c, s, insn)) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_SAMPLE_MASK:
            usc_sample_mask(c, s, insn);
            break;
        case AGX_USC_OP_ZS_EMIT:
            usc_zs_emit(c, s, insn);
            break;
        case AGX_USC_OP_WAIT_PIX:
        case AGX_USC_OP_SIGNAL_PIX:
            /* fragments run one SIMD-group at a time, in order */
            break;
        case AGX_USC_OP_TEX_STATE_STORE:
        case AGX_USC_OP_SAMPLER_STATE_STORE:
            usc_state_store(c, s, insn, insn->op == AGX_USC_OP_TEX_STATE_STORE);
            break;
        case AGX_USC_OP_ST_VARY:
            if (!st_vary(c, s, insn)) {
                return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
            }
            break;
        case AGX_USC_OP_NO_VARYINGS:
            break;
        case AGX_USC_OP_STACK_ADJUST: {
            int64_t sp = (int64_t)s->sp + 4 * (int16_t)insn->f[AGX_USC_F_SIZE];

            if (sp < 0 || !usc_stack_reserve(s, sp)) {
                return usc_fault(c, insn, AGX_USC_FAULT_STACK, (uint64_t)sp);
            }
            s->sp = sp;
            break;
        }
        default:
            return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
        }
        s->pc = next;
    }
}

/*
 * The SIMD-group struct and register file of the last threadgroup of one
 * that ended on this thread (a pipe runs one per 32 pixels), kept for the
 * next instead of freed and allocated again; its registers zeroed again.
 * Not state: nothing of a group is left in them.
 */
typedef struct UscSpare {
    Simd *simd;                 /* an AgxUscSimd's room, or NULL */
    uint32_t *r;                /* room for @nr words, or NULL */
    uint32_t nr;
} UscSpare;

static void usc_spare_free(gpointer p)
{
    UscSpare *sp = p;

    g_free(sp->simd);
    g_free(sp->r);
    g_free(sp);
}

static GPrivate usc_spare = G_PRIVATE_INIT(usc_spare_free);

/* This thread's spare, NULL on the general path (a new allocation each) */
static UscSpare *usc_spare_get(void)
{
    UscSpare *sp;

    if (agx_usc_general_paths) {
        return NULL;
    }
    sp = g_private_get(&usc_spare);
    if (!sp) {
        sp = g_new0(UscSpare, 1);
        g_private_set(&usc_spare, sp);
    }
    return sp;
}

/* @nr zeroed words for a register file */
static uint32_t *usc_regs_new(uint32_t nr)
{
    UscSpare *sp = usc_spare_get();
    uint32_t *r;

    if (!sp || !sp->r || sp->nr < nr) {
        return g_new0(uint32_t, nr);
    }
    r = sp->r;
    sp->r = NULL;
    memset(r, 0, nr * sizeof(*r));
    return r;
}

static void usc_regs_free(uint32_t *r, uint32_t nr)
{
    UscSpare *sp = usc_spare_get();

    if (sp && r && (!sp->r || sp->nr < nr)) {
        g_free(sp->r);
        sp->r = r;
        sp->nr = nr;
    } else {
        g_free(r);
    }
}

/* Room for @n SIMD-groups (simd_init() sets each) */
static Simd *usc_simds_new(int32_t n)
{
    UscSpare *sp = n == 1 ? usc_spare_get() : NULL;
    Simd *s;

    if (!sp || !sp->simd) {
        return g_new(Simd, n);
    }
    s = sp->simd;
    sp->simd = NULL;
    return s;
}

static void usc_simds_free(Simd *s, int32_t n)
{
    UscSpare *sp = n == 1 ? usc_spare_get() : NULL;

    if (sp && s && !sp->simd) {
        sp->simd = s;
    } else {
        g_free(s);
    }
}

static void simd_init(Simd *s, uint32_t index, uint32_t launched,
                      uint32_t gpr_halves, uint32_t stack_bytes)
{
    uint32_t nregs = MAX((gpr_halves + 1) / 2, 1);

    memset(s, 0, sizeof(*s));
    s->index = index;
    s->launched = launched;
    /* GPRs start at zero (§2.1 suggestion) */
    s->nr = nregs * LANES;
    s->r = usc_regs_new(s->nr);
    set_exec(s, launched);
    s->state = launched ? SIMD_RUN : SIMD_DONE;
    memset(s->cov, 0xff, sizeof(s->cov));
    memset(s->cov_in, 0xff, sizeof(s->cov_in));
    if (stack_bytes) {
        s->base_cap = MIN(stack_bytes, MAX_STACK);
        usc_stack_reserve(s, s->base_cap);
    }
}

static void simd_free(Simd *s)
{
    usc_regs_free(s->r, s->nr);
    g_free(s->stack);
}

/* --- threadgroups, resumable --------------------------------------------- */

static uint32_t tg_threads(const AgxUscLaunch *l)
{
    uint64_t threads = (uint64_t)l->local[0] * l->local[1] * l->local[2];

    return MIN(threads, MAX_TG_THREADS + 1);
}

/* The imageblock's bytes for launch @l, 0 without one */
static uint32_t tg_tile_bytes(const AgxUscLaunch *l)
{
    if (!l->tile_width) {
        return 0;
    }
    return l->tile_width * l->tile_height * (l->tile_samples ?: 1) *
           MAX(l->tile_sample_bytes, 1);
}

AgxUscStatus agx_usc_tg_start(const AgxUscLaunch *l, const uint32_t tg[3],
                              uint64_t limit, AgxUscThreadgroup *t,
                              AgxUscFault *fault)
{
    uint32_t threads = tg_threads(l);
    uint32_t lx = l->local[0], ly = l->local[1];
    uint32_t gpr_halves = MIN(l->gpr_halves, 2 * AGX_USC_GPRS);
    bool full = true;

    memset(fault, 0, sizeof(*fault));
    memset(t, 0, sizeof(*t));
    if (threads == 0 || threads > MAX_TG_THREADS ||
        l->shared_bytes > AGX_USC_MAX_SHARED) {
        fault->kind = AGX_USC_FAULT_LAUNCH;
        fault->pc = l->usc_base + l->main_pc;
        return AGX_USC_FAULT;
    }
    memcpy(t->tg, tg, sizeof(t->tg));
    t->limit = limit;
    t->nsimd = (threads + LANES - 1) / LANES;
    /* zero-filled threadgroup memory (§1.5 suggestion) */
    t->nshared = l->shared_bytes;
    t->shared = t->nshared ? g_malloc0(t->nshared) : NULL;
    /* an imageblock, zero-filled too */
    t->ntile = tg_tile_bytes(l);
    t->tile = t->ntile ? g_malloc0(t->ntile) : NULL;
    t->simd = usc_simds_new(t->nsimd);
    for (int d = 0; d < 3; d++) {
        full &= ((uint64_t)tg[d] + 1) * l->local[d] <= l->global[d];
    }
    for (int32_t k = 0; k < t->nsimd; k++) {
        uint32_t launched = 0;

        if (full) {
            uint32_t left = threads - k * LANES;

            launched = left >= LANES ? ~0u : (1u << left) - 1;
        }
        for (int lane = 0; lane < LANES && !full; lane++) {
            uint32_t i = k * LANES + lane;
            uint32_t pos[3] = { i % lx, (i / lx) % ly, i / (lx * ly) };
            bool in = i < threads;

            /* threads of a partial threadgroup outside the grid */
            for (int d = 0; d < 3 && in; d++) {
                in = (uint64_t)tg[d] * l->local[d] + pos[d] < l->global[d];
            }
            launched |= (uint32_t)in << lane;
        }
        simd_init(&t->simd[k], k, launched, gpr_halves, l->stack_bytes);
    }
    return AGX_USC_OK;
}

void agx_usc_tg_free(AgxUscThreadgroup *t)
{
    for (int32_t k = 0; t->simd && k < t->nsimd; k++) {
        simd_free(&t->simd[k]);
    }
    usc_simds_free(t->simd, t->nsimd);
    g_free(t->shared);
    g_free(t->tile);
    g_free(t->tex_state);
    g_free(t->sampler_state);
    agx_usc_program_unref(t->prog);
    memset(t, 0, sizeof(*t));
}

/*
 * The SIMD-groups of a threadgroup run in rounds, in index order, each
 * until it stops or waits at a barrier; when every one still running
 * waits at a barrier, they are all released for the next round.  t->cur
 * is where a round stands, so a suspended round resumes where it was.
 */
static AgxUscStatus tg_rounds(Ctx *c, AgxUscThreadgroup *t)
{
    for (;;) {
        bool running = false, waiting = false;

        for (; t->cur < (uint32_t)t->nsimd; t->cur++) {
            Simd *s = &t->simd[t->cur];

            if (s->state == SIMD_RUN) {
                AgxUscStatus st = run_simd(c, s);

                if (st != AGX_USC_OK) {
                    return st;
                }
            }
        }
        t->cur = 0;
        for (int32_t k = 0; k < t->nsimd; k++) {
            running |= t->simd[k].state == SIMD_RUN;
            waiting |= t->simd[k].state == SIMD_BARRIER;
        }
        if (!waiting && !running) {
            return AGX_USC_OK;
        }
        /*
         * Every SIMD-group still running waits at a barrier: release them
         * (those that already stopped are not waited for: a choice)
         */
        for (int32_t k = 0; k < t->nsimd; k++) {
            if (t->simd[k].state == SIMD_BARRIER) {
                t->simd[k].state = SIMD_RUN;
            }
        }
    }
}

/*
 * One slice of threadgroup @t (a compute threadgroup or a pipe's group:
 * @c set up for it, its program at @pc): the program fetched the first
 * time (or after a migration), the rounds, the slice and limit counted
 */
static AgxUscStatus tg_slice(Ctx *c, AgxUscThreadgroup *t, uint64_t pc,
                             uint64_t *slice)
{
    uint64_t left, run, cost;
    AgxUscStatus st;

    if (!t->prog) {
        /*
         * The first slice, or the first after a migration: only the first
         * pays for the program, so that a migration does not move where
         * slices end
         */
        t->prog = agx_usc_program_get(pc, c->ops, c->opaque, &cost);
        if (!t->charged) {
            t->charged = true;
            t->used += cost;
            *slice -= MIN(*slice, cost);
        }
        if (t->used >= t->limit) {
            agx_usc_program_unref(t->prog);
            t->prog = NULL;
            return AGX_USC_BUDGET;
        }
        for (int32_t k = 0; k < t->nsimd; k++) {
            /* a pc (migrated) the program does not have */
            if (t->simd[k].state != SIMD_DONE &&
                (uint32_t)t->simd[k].pc >= t->prog->ninsns) {
                c->fault->kind = AGX_USC_FAULT_DECODE;
                c->fault->pc = t->prog->va;
                return AGX_USC_FAULT;
            }
        }
    }
    c->prog = t->prog;
    c->shared = t->shared;
    c->shared_home = &t->shared;
    c->shared_bytes = t->nshared;
    c->tex_state = t->tex_state;
    c->sampler_state = t->sampler_state;
    c->budget = &left;
    for (int32_t k = 0; k < t->nsimd; k++) {
        /* the masks derived from exec (after a migration, too) */
        set_exec(&t->simd[k], t->simd[k].exec);
    }
    run = left = MIN(*slice, t->limit - t->used);
    st = tg_rounds(c, t);
    run -= left;
    t->used += run;
    *slice -= run;
    /* what its state register stores set lasts for the threadgroup */
    t->tex_state = c->tex_state;
    t->sampler_state = c->sampler_state;
    t->ntex_state = t->tex_state ? AGX_USC_TEX_STATES : 0;
    t->nsampler_state = t->sampler_state ? AGX_USC_SAMPLER_STATES : 0;
    __atomic_fetch_add(&total_lane_insns, c->lane_insns, __ATOMIC_RELAXED);
    if (st == AGX_USC_BUDGET && t->used < t->limit) {
        return AGX_USC_SUSPENDED;
    }
    return st;
}

AgxUscStatus agx_usc_tg_run(const AgxUscLaunch *l, AgxUscThreadgroup *t,
                            const AgxUscMemOps *ops, void *opaque,
                            uint64_t *slice, AgxUscFault *fault)
{
    Ctx c = {
        .l = l, .uni = l->uniforms, .ops = ops, .opaque = opaque,
        .gpr_halves = MIN(l->gpr_halves, 2 * AGX_USC_GPRS),
        .fault = fault,
    };
    AgxUscTile tile = {
        .mem = t->tile, .width = l->tile_width, .height = l->tile_height,
        .samples = l->tile_samples ?: 1,
        .sample_bytes = l->tile_sample_bytes,
        /* the imageblock's origin is the threadgroup's */
        .origin_x = t->tg[0] * l->local[0],
        .origin_y = t->tg[1] * l->local[1],
    };

    memset(fault, 0, sizeof(*fault));
    if (t->nsimd <= 0) {
        fault->kind = AGX_USC_FAULT_LAUNCH;
        fault->pc = l->usc_base + l->main_pc;
        return AGX_USC_FAULT;
    }
    memcpy(c.tg, t->tg, sizeof(c.tg));
    if (t->ntile) {
        c.tile = &tile;
    }
    return tg_slice(&c, t, l->usc_base + l->main_pc, slice);
}

void agx_usc_tg_loaded(AgxUscThreadgroup *t)
{
    /* buffers the stream had no bytes for were never allocated */
    t->shared = t->nshared ? t->shared : NULL;
    t->tile = t->ntile ? t->tile : NULL;
    t->tex_state = t->ntex_state ? t->tex_state : NULL;
    t->sampler_state = t->nsampler_state ? t->sampler_state : NULL;
    t->prog = NULL;
    for (int32_t k = 0; t->simd && k < t->nsimd; k++) {
        Simd *s = &t->simd[k];

        s->r = s->nr ? s->r : NULL;
        s->stack = s->nstack ? s->stack : NULL;
    }
}

/* NULL if @t's SIMD-groups fit launch @l, else why not */
static const char *tg_check_simds(const AgxUscLaunch *l,
                                  const AgxUscThreadgroup *t)
{
    uint32_t nregs = MAX((MIN(l->gpr_halves, 2 * AGX_USC_GPRS) + 1) / 2, 1);
    uint32_t base_cap = MIN(l->stack_bytes, MAX_STACK);

    if (t->used > t->limit ||
        (t->ntex_state && t->ntex_state != AGX_USC_TEX_STATES) ||
        (t->nsampler_state && t->nsampler_state != AGX_USC_SAMPLER_STATES)) {
        return "threadgroup in flight: memory out of range";
    }
    for (int32_t k = 0; k < t->nsimd; k++) {
        const Simd *s = &t->simd[k];

        if (s->index != k || s->nr != nregs * LANES || s->pc < 0 ||
            s->state > SIMD_DONE || s->stack_cap > MAX_STACK ||
            s->nstack != s->stack_cap * LANES || s->base_cap != base_cap ||
            s->stack_cap < MAX(s->sp, s->base_cap)) {
            return "threadgroup in flight: SIMD-group out of range";
        }
    }
    return NULL;
}

const char *agx_usc_tg_check_loaded(const AgxUscLaunch *l,
                                    const AgxUscThreadgroup *t)
{
    uint32_t threads = tg_threads(l);

    if (threads == 0 || threads > MAX_TG_THREADS || !t->simd ||
        t->nsimd != (threads + LANES - 1) / LANES ||
        t->cur >= (uint32_t)t->nsimd) {
        return "threadgroup in flight: SIMD-groups out of range";
    }
    if (t->nshared != l->shared_bytes || t->ntile != tg_tile_bytes(l)) {
        return "threadgroup in flight: memory out of range";
    }
    return tg_check_simds(l, t);
}

AgxUscStatus agx_usc_run_threadgroup(const AgxUscLaunch *l,
                                     const uint32_t tg[3],
                                     const AgxUscMemOps *ops, void *opaque,
                                     uint64_t *budget, AgxUscFault *fault)
{
    AgxUscThreadgroup t;
    AgxUscStatus st;

    st = agx_usc_tg_start(l, tg, *budget, &t, fault);
    if (st != AGX_USC_OK) {
        return st;
    }
    /* the whole budget in one slice: it never suspends */
    st = agx_usc_tg_run(l, &t, ops, opaque, budget, fault);
    agx_usc_tg_free(&t);
    return st;
}

/* --- a pipe's SIMD-group, resumable -------------------------------------- */

AgxUscStatus agx_usc_group_start(const AgxUscLaunch *l, const AgxUscGroup *g,
                                 uint64_t limit, AgxUscThreadgroup *t,
                                 AgxUscFault *fault)
{
    uint32_t gpr_halves = MIN(l->gpr_halves, 2 * AGX_USC_GPRS);
    uint32_t nregs = MIN(g->init_regs, AGX_USC_INIT_REGS);
    Ctx c = { .l = l, .group = g, .tile = g->tile };
    Simd *s;

    memset(fault, 0, sizeof(*fault));
    memset(t, 0, sizeof(*t));
    if (l->shared_bytes > AGX_USC_MAX_SHARED) {
        fault->kind = AGX_USC_FAULT_LAUNCH;
        fault->pc = l->usc_base + l->main_pc;
        return AGX_USC_FAULT;
    }
    t->limit = limit;
    t->nsimd = 1;
    /* a fragment's layer is threadgroup_position_in_grid.z (Mesa) */
    t->tg[2] = g->layer;
    /*
     * zero-filled threadgroup memory (§1.5 suggestion), allocated when
     * the group first accesses it or suspends: most fragment shaders
     * never do, and zeroing it for every group of 32 pixels is costly
     */
    t->nshared = l->shared_bytes;
    t->shared = t->nshared && agx_usc_general_paths ?
                g_malloc0(t->nshared) : NULL;
    t->simd = s = usc_simds_new(1);
    simd_init(s, 0, g->launched, gpr_halves, l->stack_bytes);
    /* presets beyond the declared registers are not there to set */
    nregs = MIN(nregs, (gpr_halves + 1) / 2);
    for (uint32_t r = 0; r < nregs; r++) {
        memcpy(row(s, r), g->init[r], sizeof(g->init[r]));
    }
    usc_group_coverage(&c, s);
    return AGX_USC_OK;
}

AgxUscStatus agx_usc_group_run(const AgxUscLaunch *l, const AgxUscGroup *g,
                               AgxUscThreadgroup *t, const AgxUscMemOps *ops,
                               void *opaque, uint64_t *slice,
                               AgxUscFault *fault)
{
    Ctx c = {
        .l = l, .uni = l->uniforms, .ops = ops, .opaque = opaque,
        .gpr_halves = MIN(l->gpr_halves, 2 * AGX_USC_GPRS),
        .fault = fault, .group = g, .tile = g->tile,
    };
    AgxUscStatus st;

    memset(fault, 0, sizeof(*fault));
    if (t->nsimd != 1) {
        fault->kind = AGX_USC_FAULT_LAUNCH;
        fault->pc = l->usc_base + l->main_pc;
        return AGX_USC_FAULT;
    }
    memcpy(c.tg, t->tg, sizeof(c.tg));
    st = tg_slice(&c, t, l->usc_base + l->main_pc, slice);
    if (st == AGX_USC_SUSPENDED && t->nshared && !t->shared) {
        /* a suspended group has all its state, for a migration */
        t->shared = g_malloc0(t->nshared);
    }
    return st;
}

const char *agx_usc_group_check_loaded(const AgxUscLaunch *l,
                                       const AgxUscThreadgroup *t)
{
    if (t->nsimd != 1 || !t->simd || t->cur != 0 ||
        t->tg[0] || t->tg[1]) {
        return "SIMD-group in flight out of range";
    }
    if (t->nshared != l->shared_bytes || t->ntile) {
        return "SIMD-group in flight: memory out of range";
    }
    return tg_check_simds(l, t);
}

/* --- a launch's preamble, resumable -------------------------------------- */

static uint32_t preamble_gpr_halves(const AgxUscLaunch *l)
{
    return MIN(l->preamble_gpr_halves, 2 * AGX_USC_GPRS);
}

void agx_usc_preamble_start(const AgxUscLaunch *l, uint64_t limit,
                            AgxUscThreadgroup *t)
{
    memset(t, 0, sizeof(*t));
    t->limit = limit;
    t->nsimd = 1;
    t->simd = usc_simds_new(1);
    /* one SIMD-group, lane 0 active */
    simd_init(t->simd, 0, 1, preamble_gpr_halves(l), l->stack_bytes);
}

AgxUscStatus agx_usc_preamble_run(AgxUscLaunch *l, AgxUscThreadgroup *t,
                                  const AgxUscMemOps *ops, void *opaque,
                                  uint64_t *slice, AgxUscFault *fault)
{
    Ctx c = {
        .l = l, .uniforms = l->uniforms, .uni = l->uniforms, .ops = ops,
        .opaque = opaque, .gpr_halves = preamble_gpr_halves(l),
        .fault = fault,
    };
    AgxUscStatus st;

    memset(fault, 0, sizeof(*fault));
    if (t->nsimd != 1) {
        fault->kind = AGX_USC_FAULT_LAUNCH;
        fault->pc = l->usc_base + l->preamble_pc;
        return AGX_USC_FAULT;
    }
    st = tg_slice(&c, t, l->usc_base + l->preamble_pc, slice);
    if (st != AGX_USC_SUSPENDED) {
        /* the preamble's state register stores are the launch's */
        if (t->tex_state) {
            memcpy(l->tex_state_va, t->tex_state, sizeof(l->tex_state_va));
        }
        if (t->sampler_state) {
            memcpy(l->sampler_state_va, t->sampler_state,
                   sizeof(l->sampler_state_va));
        }
    }
    return st;
}

const char *agx_usc_preamble_check_loaded(const AgxUscLaunch *l,
                                          const AgxUscThreadgroup *t)
{
    AgxUscLaunch pl = *l;

    if (!l->has_preamble || t->nsimd != 1 || !t->simd || t->cur != 0 ||
        t->nshared || t->ntile || t->simd[0].launched != 1) {
        return "preamble in flight out of range";
    }
    /* its SIMD-group has the preamble's registers */
    pl.gpr_halves = preamble_gpr_halves(l);
    return tg_check_simds(&pl, t);
}

AgxUscStatus agx_usc_run_preamble(AgxUscLaunch *l, const AgxUscMemOps *ops,
                                  void *opaque, uint64_t *budget,
                                  AgxUscFault *fault)
{
    AgxUscThreadgroup t;
    AgxUscStatus st;

    memset(fault, 0, sizeof(*fault));
    if (!l->has_preamble) {
        return AGX_USC_OK;
    }
    agx_usc_preamble_start(l, *budget, &t);
    /* the whole budget in one slice: it never suspends */
    st = agx_usc_preamble_run(l, &t, ops, opaque, budget, fault);
    agx_usc_tg_free(&t);
    return st;
}

AgxUscStatus agx_usc_run_group(const AgxUscLaunch *l, const AgxUscGroup *g,
                               const AgxUscMemOps *ops, void *opaque,
                               uint64_t *budget, AgxUscFault *fault)
{
    AgxUscThreadgroup t;
    AgxUscStatus st;

    st = agx_usc_group_start(l, g, *budget, &t, fault);
    if (st != AGX_USC_OK) {
        return st;
    }
    /* the whole budget in one slice: it never suspends */
    st = agx_usc_group_run(l, g, &t, ops, opaque, budget, fault);
    agx_usc_tg_free(&t);
    return st;
}
