/*
 * AGX USC interpreter: decoded programs, shared by the decoder, the
 * executor and the float helpers
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AGX_USC_INTERNAL_H
#define AGX_USC_INTERNAL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "hw/agx/agx-usc.h"
#include "agx-isa.h"

/* A decoded operand */
typedef enum AgxUscOpndType {
    AGX_OPND_NONE,
    AGX_OPND_IMM,           /* value in .imm (float sources: f32 bits) */
    AGX_OPND_GPR,           /* half index in .idx */
    AGX_OPND_UNI,           /* uniform half index in .idx */
} AgxUscOpndType;

#define AGX_MOD_ABS     1
#define AGX_MOD_NEG     2
#define AGX_MOD_SX      4

typedef struct AgxUscOpnd {
    uint8_t type;           /* AgxUscOpndType */
    uint8_t size;           /* 16, 32 or 64 bits */
    uint8_t mods;           /* AGX_MOD_* */
    uint16_t idx;
    uint32_t imm;
} AgxUscOpnd;

/* Pseudo-ops for words that did not decode or could not be read */
#define AGX_USC_OP_INVALID  AGX_USC_OP__COUNT
#define AGX_USC_OP_NOFETCH  (AGX_USC_OP__COUNT + 1)

typedef struct AgxUscInsn {
    uint16_t op;
    uint8_t len;
    uint16_t max_half;      /* GPR halves it touches: 1 + the highest */
    int32_t target;         /* jumps: index of the target, -1 invalid */
    uint32_t offset;        /* from the start of the program, in bytes */
    uint64_t raw[2];        /* bytes 0-7 and 8-11 */
    AgxUscOpnd o[AGX_USC_MAX_OPERANDS];     /* D, A, B, C/X, Y */
    uint32_t f[AGX_USC_F__COUNT];
} AgxUscInsn;

/* One decoded straight run of code, from an entry point */
typedef struct AgxUscProgram {
    uint64_t va;            /* GPU VA of the entry */
    uint32_t nbytes;        /* code bytes it covers */
    uint8_t *bytes;         /* their copy, to validate a cached decode */
    uint32_t ninsns;
    AgxUscInsn *insns;
    int refs;
} AgxUscProgram;

/* Largest run of code decoded from one entry point */
#define AGX_USC_MAX_CODE    (256 * 1024)

/*
 * Decode (or find in the cache) the program at @va: never fails for the
 * guest's reasons (undecodable words become AGX_USC_OP_INVALID, unreadable
 * ones AGX_USC_OP_NOFETCH, faulting when executed).  Drop it with
 * agx_usc_program_unref().
 */
AgxUscProgram *agx_usc_program_get(uint64_t va, const AgxUscMemOps *ops,
                                   void *opaque);
void agx_usc_program_unref(AgxUscProgram *p);

/* Decode one instruction from @bytes (@avail of them): false if invalid */
bool agx_usc_decode_one(const uint8_t *bytes, uint32_t avail,
                        AgxUscInsn *insn);

/* Float helpers (agx-usc-float.c); rounding modes of `convert` */
#define AGX_ROUND_RTZ   0
#define AGX_ROUND_RTE   1
#define AGX_ROUND_RTN   2
#define AGX_ROUND_RTP   3

uint16_t usc_f64_to_f16(double d, int round);
uint32_t usc_f64_to_f32(double d, int round);
double usc_f16_to_f64(uint16_t h);
float usc_minifloat(uint8_t v);
double usc_fma_odd(double a, double b, double c);

static inline uint32_t usc_f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float usc_f32_value(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof(f));
    return f;
}

#endif
