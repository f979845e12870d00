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
#include <math.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
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
    uint32_t max_half;      /* GPR halves it touches: 1 + the highest */
    int32_t target;         /* jumps: index of the target, -1 invalid */
    uint32_t offset;        /* from the start of the program, in bytes */
    uint64_t raw[2];        /* bytes 0-7 and 8-11 */
    AgxUscOpnd o[AGX_USC_MAX_OPERANDS];     /* D, A, B, C/X, Y */
    uint32_t f[AGX_USC_F__COUNT];
} AgxUscInsn;

/* One decoded straight run of code, from an entry point */
/*
 * QEMU builds with -ftrivial-auto-var-init=zero, which would clear every
 * lane array on every call: 4-5 times the cost of the instructions
 * themselves (bench-usc).  The interpreter's lane temporaries (and other
 * buffers written whole before they are read) opt out.
 */
#ifdef CONFIG_USC_UNINITIALIZED
#define USC_LANE_TMP __attribute__((uninitialized))
#else
#define USC_LANE_TMP
#endif

typedef struct AgxUscProgram {
    uint64_t va;            /* GPU VA of the entry */
    uint32_t nbytes;        /* code bytes it covers */
    uint8_t *bytes;         /* their copy, to validate a cached decode */
    uint32_t ninsns;
    AgxUscInsn *insns;
    bool nofetch;           /* it has an AGX_USC_OP_NOFETCH */
    int refs;
} AgxUscProgram;

/* Largest run of code decoded from one entry point */
#define AGX_USC_MAX_CODE    (256 * 1024)

/*
 * Decode (or find in the cache) the program at @va: never fails for the
 * guest's reasons (undecodable words become AGX_USC_OP_INVALID, unreadable
 * ones AGX_USC_OP_NOFETCH, faulting when executed).  *@cost is the work
 * it takes, in instructions' worth (checking the code, decoding it), for
 * the caller's budget: the same whether the program was cached or not.
 * Drop it with agx_usc_program_unref().
 */
AgxUscProgram *agx_usc_program_get(uint64_t va, const AgxUscMemOps *ops,
                                   void *opaque, uint64_t *cost);
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
double usc_f16_to_f64(uint16_t h);
float usc_minifloat(uint8_t v);
double usc_srgb_to_linear(double x);
double usc_linear_to_srgb(double x);
double usc_small_float(uint32_t v, unsigned mb);

#define USC_ALIGN(v, a)     (((v) + (a) - 1) / (a) * (a))

/* Images (agx-usc-image.c): a Texture or PBE descriptor, parsed */
typedef struct AgxImage {
    unsigned dim, layout, channels, type;
    uint8_t bits[4];            /* per channel, 0 when absent */
    unsigned bpp;               /* bytes per texel (compressed: block) */
    uint8_t bw, bh;             /* texels per block (1 x 1 unless compressed) */
    uint8_t swizzle[4];
    uint32_t width, height, layers;
    unsigned first_level, levels;   /* PBE: the level written, levels */
    uint64_t va;
    uint32_t stride;            /* linear: bytes per row */
    uint64_t layer_stride;      /* linear arrays */
    bool page_aligned, srgb, extended;
    bool mipmapped;             /* Texture: Unk mipmapped (bit 102) */
    unsigned samples;           /* 1, or 2 / 4 (multisampled Textures) */
    unsigned layout_levels;     /* levels the twiddled layout holds */
    bool compressed;            /* twiddled with compression metadata */
    uint64_t meta_va;           /* its acceleration buffer */
} AgxImage;

/*
 * A compressed image's metadata for texel (x, y, layer) of level 0: the
 * address of its 16x16 tile's 8-byte mode word and the byte of its 8x4
 * subtile; false when the model does not interpret it (other levels,
 * mipmapped layers)
 */
/*
 * The sample grid of a pixel of @img, as compression metadata counts it:
 * @sx x @sy samples (1x1, 1x2 or 2x2)
 */
void agx_image_sample_scale(const AgxImage *img, uint32_t *sx, uint32_t *sy);
bool agx_image_meta(const AgxImage *img, unsigned level, uint32_t x,
                    uint32_t y, uint32_t layer, uint64_t *meta,
                    unsigned *sub);
/* Mode bytes (Mesa's layout.h): a solid colour; uncompressed, by size */
#define AGX_COMP_SOLID          0x03
uint8_t agx_image_uncompressed_mode(const AgxImage *img);

/* False for what is not interpreted: unknown formats, compressed images */
bool agx_image_parse(const uint8_t *desc, bool pbe, AgxImage *img);
/*
 * The VA of texel (x, y, layer) of @level (block-compressed formats: of
 * its block); false outside the image
 */
bool agx_image_texel(const AgxImage *img, unsigned level, uint32_t x,
                     uint32_t y, uint32_t layer, uint64_t *va);
/* The same for sample @sample of a multisampled image */
bool agx_image_sample(const AgxImage *img, unsigned level, uint32_t x,
                      uint32_t y, uint32_t layer, uint32_t sample,
                      uint64_t *va);
/*
 * agx_image_sample() for sample 0 of the texels (x0 + i, y0 + j), i < @w,
 * j < @h, of @level and @layer, as two terms: texel (i, j) is at
 * xs[i] + ys[j] for i < *@xn and j < *@yn (the columns and rows inside
 * the level), outside the image otherwise.  False, and nothing set, for
 * what it does not cover (null images, block-compressed formats, a level
 * or layer the image lacks, coordinates that wrap): agx_image_sample()
 * then, texel by texel.
 */
bool agx_image_sample_grid(const AgxImage *img, unsigned level,
                           uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                           uint32_t layer, uint64_t *xs, uint64_t *ys,
                           uint32_t *xn, uint32_t *yn);
bool agx_image_is_int(const AgxImage *img);
/* Coordinates a texture instruction of dimension @dim reads */
unsigned agx_image_coords(unsigned dim);
/* Texel (x, y)'s channels from @texel (its block, if compressed) */
void agx_image_unpack(const AgxImage *img, const uint8_t *texel,
                      uint32_t x, uint32_t y, uint32_t out[4]);
bool agx_image_pack(const AgxImage *img, const uint32_t in[4],
                    uint8_t *texel);

/* texture_sample (agx-usc-sample.c): 1 + the highest GPR half it touches */
uint32_t agx_sample_max_half(const AgxUscInsn *insn);

/*
 * Tile formats (Mesa's enum agx_format) of ld_tile, st_tile and
 * block_image_store: component @c of a sample at @p with @avail bytes
 * from there, as an integer (integer formats) or a double; storing the
 * components of @cmask (agx-usc-tile.c)
 */
bool agx_usc_tile_format_valid(unsigned fmt);
bool agx_usc_tile_format_is_int(unsigned fmt);
void agx_usc_tile_get(unsigned fmt, const uint8_t *p, unsigned avail,
                      unsigned c, uint32_t *ival, double *fval);
void agx_usc_tile_put(unsigned fmt, uint8_t *p, unsigned avail,
                      unsigned cmask, const uint32_t *ival,
                      const double *fval);

/*
 * a * b + c rounded to odd: the exact result when it is a double, else the
 * neighbouring double whose last mantissa bit is 1.  a * b is exact for
 * f32 and f16 operands; TwoSum gives the exact error of the addition.
 */
static inline double usc_fma_odd(double a, double b, double c)
{
    double p = a * b;
    double s = p + c;
    double bb, err;
    uint64_t u;

    if (!isfinite(s) || s == 0) {
        return s;
    }
    bb = s - p;
    err = (p - (s - bb)) + (c - bb);
    if (err != 0) {
        memcpy(&u, &s, sizeof(u));
        if (!(u & 1)) {
            u += ((err > 0) == (s > 0)) ? 1 : -1;
        }
        memcpy(&s, &u, sizeof(s));
    }
    return s;
}

/*
 * Double to f32 in mode @round (no flushing here; NaN: 0x7fc00000); inline:
 * every lane of iter, texture and tile results takes it, mostly to nearest
 */
static inline uint32_t usc_f64_to_f32(double d, int round)
{
    float f;

    if (isnan(d)) {
        return 0x7fc00000;
    }
    f = (float)d;               /* to nearest, even */
    if (round != AGX_ROUND_RTE && (double)f != d) {
        bool toward_zero = round == AGX_ROUND_RTZ ||
                           (round == AGX_ROUND_RTN && d > 0) ||
                           (round == AGX_ROUND_RTP && d < 0);
        if (toward_zero && fabs((double)f) > fabs(d)) {
            f = nextafterf(f, 0.0f);
        } else if (!toward_zero && fabs((double)f) < fabs(d)) {
            f = nextafterf(f, d > 0 ? INFINITY : -INFINITY);
        }
    }
    return apple_f32_bits(f);
}

#endif
