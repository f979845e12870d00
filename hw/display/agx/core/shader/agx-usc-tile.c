/*
 * AGX USC interpreter: the tilebuffer (fragment work) and imageblocks
 * (compute): ld_tile, st_tile and block_image_store
 *
 * A tile is @width x @height pixels of @samples samples, each sample
 * @sample_bytes bytes (AgxUscTile).  ld_tile and st_tile move up to four
 * components between registers and one pixel's samples, at a byte offset
 * in the sample, converted by the instruction's tile format (Mesa's
 * enum agx_format: I8, I16, I32, F16, U8NORM, S8NORM, U16NORM, S16NORM,
 * RGB10A2, SRGBA8, RG11B10F, RGB9E5).  The pixel is the lane's own (its
 * fragment, or its position in the threadgroup) or explicit coordinates
 * in two register halves.  block_image_store writes the whole tile to an
 * image through a PBE descriptor, at the tile's origin or at explicit
 * coordinates.  Encodings: Mesa's agx_pack.c and agx_opcodes.py
 * (agx-isa.def); formats: agx_compile.h; how Mesa uses them:
 * agx_nir_lower_tilebuffer.c, agx_bg_eot.c, hk_cmd_meta.c.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "agx-usc-exec.h"

enum {
    FMT_I8, FMT_I16, FMT_I32, FMT_F16, FMT_U8NORM, FMT_S8NORM, FMT_U16NORM,
    FMT_S16NORM, FMT_RGB10A2, FMT_SRGBA8 = 10, FMT_RG11B10F = 12,
    FMT_RGB9E5,
};

/* Bytes per component; 0: the four components share one 32-bit word */
static int fmt_bytes(unsigned fmt)
{
    static const int8_t bytes[16] = {
        1, 2, 4, 2, 1, 1, 2, 2, 0, -1, 1, -1, 0, 0, -1, -1,
    };

    return bytes[fmt & 15];
}

bool agx_usc_tile_format_valid(unsigned fmt)
{
    return fmt_bytes(fmt) >= 0;
}

bool agx_usc_tile_format_is_int(unsigned fmt)
{
    return fmt <= FMT_I32;
}

/* Bits of component @c of a packed format, and where they start */
static unsigned packed_bits(unsigned fmt, unsigned c, unsigned *start)
{
    static const uint8_t bits[3][4] = {
        { 10, 10, 10, 2 }, { 11, 11, 10, 0 }, { 9, 9, 9, 5 },
    };
    const uint8_t *b = bits[fmt == FMT_RGB10A2 ? 0 : fmt == FMT_RG11B10F];

    if (fmt == FMT_RGB9E5) {
        b = bits[2];
    }
    *start = 0;
    for (unsigned i = 0; i < c; i++) {
        *start += b[i];
    }
    return b[c & 3];
}

/* The nearest small float (round to nearest even); negatives are 0 */
static uint32_t to_small_float(double x, unsigned mb)
{
    uint16_t h;
    unsigned e;
    uint32_t m;

    if (isnan(x)) {
        return (31u << mb) | 1;
    }
    if (!(x > 0)) {
        return 0;
    }
    /* f16 has the same exponent range: round to f16, then to @mb bits */
    h = usc_f64_to_f16(x, AGX_ROUND_RTE);
    e = (h >> 10) & 31;
    m = h & 0x3ff;
    if (e == 31) {
        return 31u << mb;
    }
    {
        uint32_t full = (e << 10) | m, sh = 10 - mb;
        uint32_t half = 1u << (sh - 1), rest = full & ((1u << sh) - 1);

        full >>= sh;
        if (rest > half || (rest == half && (full & 1))) {
            full++;
        }
        return MIN(full, 31u << mb);
    }
}

/* RGB9E5: three 9-bit mantissas sharing a 5-bit exponent (bias 15) */
static uint32_t to_rgb9e5(const double *rgb)
{
    const double max = ldexp(511, 16 - 9);
    double c[3], m = 0;
    int e;
    uint32_t out = 0;

    for (int i = 0; i < 3; i++) {
        c[i] = isnan(rgb[i]) || rgb[i] < 0 ? 0 : MIN(rgb[i], max);
        m = MAX(m, c[i]);
    }
    e = m > 0 ? MAX(-16, (int)floor(log2(m))) + 1 : -15;
    e = MAX(e, -15) + 15;
    if ((uint32_t)nearbyint(m / ldexp(1, e - 15 - 9)) == 512) {
        e++;
    }
    for (int i = 0; i < 3; i++) {
        uint32_t v = (uint32_t)nearbyint(c[i] / ldexp(1, e - 15 - 9));

        out |= MIN(v, 511u) << (9 * i);
    }
    return out | (uint32_t)e << 27;
}

static uint32_t ld_le(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        v |= (uint32_t)p[i] << (8 * i);
    }
    return v;
}

static void st_le(uint8_t *p, unsigned n, uint32_t v)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = v >> (8 * i);
    }
}

static double unorm(uint32_t v, unsigned bits)
{
    return v / (double)((1ull << bits) - 1);
}

static double snorm(uint32_t v, unsigned bits)
{
    int32_t s = (int32_t)(v << (32 - bits)) >> (32 - bits);
    double m = (double)((1u << (bits - 1)) - 1);

    return MAX(s / m, -1.0);
}

static uint32_t to_unorm(double x, unsigned bits)
{
    x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
    return (uint32_t)nearbyint(x * ((1ull << bits) - 1));
}

static uint32_t to_snorm(double x, unsigned bits)
{
    double m = (double)((1u << (bits - 1)) - 1);

    x = isnan(x) ? 0 : x < -1 ? -1 : x > 1 ? 1 : x;
    return (uint32_t)(int32_t)nearbyint(x * m) & ((1u << bits) - 1);
}

/*
 * Component @c of the sample at @p (@avail bytes of it from the offset),
 * as an integer (integer formats) or a double (the others); what lies
 * beyond the sample reads as 0
 */
void agx_usc_tile_get(unsigned fmt, const uint8_t *p, unsigned avail,
                      unsigned c, uint32_t *ival, double *fval)
{
    int n = fmt_bytes(fmt);
    unsigned start, bits;
    uint32_t v, w;

    *ival = 0;
    *fval = 0;
    if (n > 0) {
        if ((c + 1) * n > avail) {
            return;
        }
        v = ld_le(p + c * n, n);
        switch (fmt) {
        case FMT_I8:
        case FMT_I16:
        case FMT_I32:
            *ival = v;
            return;
        case FMT_F16:
            *fval = usc_f16_to_f64(v);
            return;
        case FMT_U8NORM:
        case FMT_U16NORM:
            *fval = unorm(v, 8 * n);
            return;
        case FMT_S8NORM:
        case FMT_S16NORM:
            *fval = snorm(v, 8 * n);
            return;
        default:    /* SRGBA8 */
            *fval = c < 3 ? usc_srgb_to_linear(unorm(v, 8)) : unorm(v, 8);
            return;
        }
    }
    if (avail < 4 || (fmt != FMT_RGB10A2 && c == 3 && fmt != FMT_RGB9E5)) {
        *fval = fmt == FMT_RG11B10F && c == 3 ? 1 : 0;
        return;
    }
    w = ld_le(p, 4);
    bits = packed_bits(fmt, c, &start);
    v = (w >> start) & ((1u << bits) - 1);
    switch (fmt) {
    case FMT_RGB10A2:
        *fval = unorm(v, bits);
        break;
    case FMT_RG11B10F:
        *fval = usc_small_float(v, bits - 5);
        break;
    default:    /* RGB9E5: alpha reads 1 */
        *fval = c == 3 ? 1 : ldexp(v, (int)(w >> 27) - 15 - 9);
        break;
    }
}

/*
 * Store components @cmask of @ival / @fval (indexed by component) into
 * the sample at @p, converted to @fmt; bytes beyond @avail are dropped
 */
void agx_usc_tile_put(unsigned fmt, uint8_t *p, unsigned avail,
                      unsigned cmask, const uint32_t *ival,
                      const double *fval)
{
    int n = fmt_bytes(fmt);
    unsigned start, bits;
    uint32_t w, v;

    if (n > 0) {
        for (unsigned c = 0; c < 4; c++) {
            if (!((cmask >> c) & 1) || (c + 1) * n > avail) {
                continue;
            }
            switch (fmt) {
            case FMT_I8:
            case FMT_I16:
            case FMT_I32:
                v = ival[c];
                break;
            case FMT_F16:
                v = usc_f64_to_f16(fval[c], AGX_ROUND_RTE);
                break;
            case FMT_U8NORM:
            case FMT_U16NORM:
                v = to_unorm(fval[c], 8 * n);
                break;
            case FMT_S8NORM:
            case FMT_S16NORM:
                v = to_snorm(fval[c], 8 * n);
                break;
            default:    /* SRGBA8 */
                v = to_unorm(c < 3 ? usc_linear_to_srgb(MIN(MAX(fval[c], 0), 1))
                                   : fval[c], 8);
                break;
            }
            st_le(p + c * n, n, v);
        }
        return;
    }
    if (avail < 4) {
        return;
    }
    w = ld_le(p, 4);
    if (fmt == FMT_RGB9E5) {
        if ((cmask & 7) == 7) {
            w = to_rgb9e5(fval);
        }
        st_le(p, 4, w);
        return;
    }
    for (unsigned c = 0; c < 4; c++) {
        bits = packed_bits(fmt, c, &start);
        if (!((cmask >> c) & 1) || !bits) {
            continue;
        }
        v = fmt == FMT_RGB10A2 ? to_unorm(fval[c], bits)
                               : to_small_float(fval[c], bits - 5);
        w = (w & ~(((1u << bits) - 1) << start)) | v << start;
    }
    st_le(p, 4, w);
}

/* The byte address of sample @s of pixel (@x, @y), or NULL outside */
static uint8_t *tile_sample(const AgxUscTile *t, uint32_t x, uint32_t y,
                            uint32_t s)
{
    if (x >= t->width || y >= t->height || s >= t->samples) {
        return NULL;
    }
    return t->mem + (((size_t)y * t->width + x) * t->samples + s) *
                    t->sample_bytes;
}

/* The pixel lane @l reaches: its own, or the explicit coordinates */
static void tile_pixel(const Ctx *c, Simd *s, const AgxUscInsn *insn, int l,
                       uint32_t *x, uint32_t *y)
{
    if (insn->f[AGX_USC_F_EXPL]) {
        *x = get_half(s, insn->f[AGX_USC_F_C], l);
        *y = get_half(s, insn->f[AGX_USC_F_C] + 1, l);
    } else if (c->group) {
        *x = c->group->px[l];
        *y = c->group->py[l];
    } else {
        /* a compute thread: its position in the threadgroup */
        uint32_t i = s->index * LANES + l;
        uint32_t lx = c->l->local[0] ? c->l->local[0] : 1;
        uint32_t ly = c->l->local[1] ? c->l->local[1] : 1;

        *x = i % lx;
        *y = (i / lx) % ly;
    }
}

/*
 * st_tile of the four channels of U8NORM (RGBA8 render targets, the
 * common store) at byte @off of samples of @sample_bytes >= @off + 4: the
 * general path's work for that case alone (its conversion, done once per
 * run of lanes storing the same values)
 */
static void tile_store_u8norm4(Ctx *c, Simd *s, const AgxUscInsn *insn,
                               unsigned r, bool r32, unsigned off)
{
    const AgxUscTile *t = c->tile;
    const AgxUscGroup *g = c->group;
    uint32_t last[4] = { 0 }, ns = MIN(t->samples, 8);
    size_t pixel_bytes = (size_t)t->samples * t->sample_bytes;
    uint8_t bytes[4] = { 0 };
    bool have = false;

    for (int l = 0; l < LANES; l++) {
        uint32_t x, y, smask, v[4];
        uint8_t *p;

        if (!((s->exec >> l) & 1) || (g && ((g->helper >> l) & 1))) {
            continue;
        }
        tile_pixel(c, s, insn, l, &x, &y);
        smask = insn->f[AGX_USC_F_ST] ? get_half(s, insn->f[AGX_USC_F_S], l)
                                      : insn->f[AGX_USC_F_S];
        for (unsigned i = 0; i < 4; i++) {
            v[i] = get_data(s, r, r32, i, l);
        }
        if (!have || memcmp(v, last, sizeof(v))) {
            for (unsigned i = 0; i < 4; i++) {
                bytes[i] = to_unorm(r32 ? apple_bits_f32(v[i])
                                        : usc_f16_to_f64(v[i]), 8);
            }
            memcpy(last, v, sizeof(v));
            have = true;
        }
        /* only the samples the fragment still covers */
        smask &= g ? s->cov[l] : 0xff;
        if (x >= t->width || y >= t->height) {
            continue;
        }
        p = t->mem + ((size_t)y * t->width + x) * pixel_bytes + off;
        for (uint32_t sm = 0; sm < ns; sm++) {
            if ((smask >> sm) & 1) {
                memcpy(p + sm * t->sample_bytes, bytes, 4);
            }
        }
    }
}

AgxUscStatus usc_tile_access(Ctx *c, Simd *s, const AgxUscInsn *insn,
                             bool store)
{
    const AgxUscTile *t = c->tile;
    unsigned fmt = insn->f[AGX_USC_F_FMT], off = insn->f[AGX_USC_F_O];
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    bool r32 = insn->f[AGX_USC_F_RT], have = false, same;
    int n = fmt_bytes(fmt);
    uint32_t last[4] = { 0 };
    uint8_t bytes[16];

    if (!t || !agx_usc_tile_format_valid(fmt)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (r32) {
        r &= ~1;
    }
    if (store && fmt == FMT_U8NORM && mask == 0xf &&
        off + 4 <= t->sample_bytes && !agx_usc_general_paths) {
        tile_store_u8norm4(c, s, insn, r, r32, off);
        return AGX_USC_OK;
    }
    for (int l = 0; l < LANES; l++) {
        uint32_t x, y, smask, ival[4] = { 0 };
        double fval[4] = { 0 };
        unsigned k = 0, avail;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        tile_pixel(c, s, insn, l, &x, &y);
        smask = insn->f[AGX_USC_F_ST] ? get_half(s, insn->f[AGX_USC_F_S], l)
                                      : insn->f[AGX_USC_F_S];
        avail = off < t->sample_bytes ? t->sample_bytes - off : 0;
        if (store) {
            if (c->group && ((c->group->helper >> l) & 1)) {
                continue;
            }
            same = have;
            have = true;
            for (unsigned i = 0; i < 4; i++) {
                uint32_t v;

                if (!((mask >> i) & 1)) {
                    continue;
                }
                v = get_data(s, r, r32, k++, l);
                ival[i] = v;
                same &= v == last[i];
            }
            /*
             * Whole-byte formats: the channels' bytes converted once per
             * run of lanes storing the same values (a clear colour)
             */
            if (n <= 0 || !same) {
                for (unsigned i = 0; i < 4; i++) {
                    fval[i] = r32 ? apple_bits_f32(ival[i])
                                  : usc_f16_to_f64(ival[i]);
                    last[i] = ival[i];
                }
            }
            if (n > 0 && !same) {
                agx_usc_tile_put(fmt, bytes, 4 * n, mask, ival, fval);
            }
            /* only the samples the fragment still covers */
            smask &= c->group ? s->cov[l] : 0xff;
            for (uint32_t sm = 0; sm < t->samples && sm < 8; sm++) {
                uint8_t *p = tile_sample(t, x, y, sm);

                if (!p || !((smask >> sm) & 1)) {
                    continue;
                }
                if (n <= 0) {
                    agx_usc_tile_put(fmt, p + off, avail, mask, ival, fval);
                    continue;
                }
                for (unsigned i = 0; i < 4; i++) {
                    if (((mask >> i) & 1) && (i + 1) * n <= avail) {
                        memcpy(p + off + i * n, bytes + i * n, n);
                    }
                }
            }
            continue;
        }
        /*
         * A load reads one sample: the lane's own when the mask has it,
         * else the lowest the mask names (a choice: the sources only show
         * one sample named at a time, or all of them by a pixel-rate
         * shader, whose lanes shade sample 0)
         */
        {
            uint32_t own = c->group ? c->group->sample[l] : 0;
            uint32_t sm = ((smask >> own) & 1) ? own
                          : smask ? __builtin_ctz(smask) : t->samples;
            const uint8_t *p = tile_sample(t, x, y, sm);

            for (unsigned i = 0; i < 4; i++) {
                uint32_t v;

                if (!((mask >> i) & 1)) {
                    continue;
                }
                if (p) {
                    agx_usc_tile_get(fmt, p + off, avail, i, &ival[i],
                                     &fval[i]);
                }
                if (agx_usc_tile_format_is_int(fmt)) {
                    v = r32 ? ival[i] : ival[i] & 0xffff;
                } else if (r32) {
                    v = usc_f64_to_f32(fval[i], AGX_ROUND_RTE);
                } else {
                    v = usc_f64_to_f16(fval[i], AGX_ROUND_RTE);
                }
                set_data(s, r, r32, k++, l, v);
            }
        }
    }
    return AGX_USC_OK;
}

/*
 * One tile pixel's sample into an image texel of @img: integer tile
 * formats carry the channels' bits unchanged (Mesa stores float images
 * through I16/I32 tile formats), the others convert through floats; the
 * packed float formats copy their word when the image has the same
 */
static bool block_texel(const AgxImage *img, unsigned fmt, const uint8_t *p,
                        unsigned avail, uint8_t *texel)
{
    uint32_t in[4];

    if ((fmt == FMT_RG11B10F && img->channels == 0x25) ||
        (fmt == FMT_RGB9E5 && img->channels == 0x27)) {
        if (avail < 4) {
            return false;
        }
        memcpy(texel, p, 4);
        return true;
    }
    for (unsigned i = 0; i < 4; i++) {
        uint32_t iv;
        double fv;

        agx_usc_tile_get(fmt, p, avail, i, &iv, &fv);
        in[i] = agx_usc_tile_format_is_int(fmt) ? iv
                : usc_f64_to_f32(fv, AGX_ROUND_RTE);
    }
    if (agx_usc_tile_format_is_int(fmt)) {
        AgxImage raw = *img;

        raw.type = 2;       /* uint: the low bits of each channel */
        raw.srgb = false;
        return agx_image_pack(&raw, in, texel);
    }
    return agx_image_pack(img, in, texel);
}

/*
 * A compressed image's 16x16 tile the block stores into holds its texels
 * uncompressed now: its metadata says so (the mode Mesa's decompression
 * kernel writes), for reads to take the body and not an older solid
 * colour
 */
static AgxUscStatus block_meta(Ctx *c, const AgxUscInsn *insn,
                               const AgxImage *img, uint32_t x, uint32_t y,
                               uint32_t layer)
{
    AgxUscStatus st = AGX_USC_OK;
    uint8_t modes[8];
    uint64_t meta;
    uint32_t sx, sy;
    unsigned sub;

    if (!img->compressed) {
        return AGX_USC_OK;      /* (agx_image_meta's first test, early) */
    }
    agx_image_sample_scale(img, &sx, &sy);
    if ((x & (16 / sx - 1)) || (y & (16 / sy - 1)) ||
        !agx_image_meta(img, img->first_level, x, y, layer, &meta, &sub)) {
        return AGX_USC_OK;
    }
    memset(modes, agx_image_uncompressed_mode(img), sizeof(modes));
    usc_mem_write(c, insn, meta, modes, sizeof(modes), &st);
    return st;
}

/* The widest and tallest tile whose texel addresses go by rows and columns */
#define BLOCK_GRID      64

/* Texels written at once: consecutive ones within a GPU page */
#define BLOCK_RUN       16384

typedef struct BlockRun {
    uint64_t va;
    uint32_t len;
    uint8_t bytes[BLOCK_RUN];
} BlockRun;

static AgxUscStatus block_run_flush(Ctx *c, const AgxUscInsn *insn,
                                    BlockRun *run)
{
    AgxUscStatus st = AGX_USC_OK;

    if (run->len) {
        usc_mem_write(c, insn, run->va, run->bytes, run->len, &st);
        run->len = 0;
    }
    return st;
}

/* Bits 0, 2, 4, ... of @v gathered into bits 0, 1, 2, ... */
static uint32_t gather_even_bits(uint32_t v)
{
    v &= 0x55555555;
    v = (v | v >> 1) & 0x33333333;
    v = (v | v >> 2) & 0x0f0f0f0f;
    v = (v | v >> 4) & 0x00ff00ff;
    v = (v | v >> 8) & 0x0000ffff;
    return v;
}

/*
 * The block's pixel @i: in Morton order when the image is twiddled and
 * the block's width is its height or twice it (whole Morton squares: a
 * twiddled image's tile holds them at consecutive addresses), in rows
 * otherwise
 */
static void block_walk_pixel(const AgxUscTile *t, bool morton, uint32_t i,
                             uint32_t *x, uint32_t *y)
{
    if (morton) {
        *x = gather_even_bits(i);
        *y = gather_even_bits(i >> 1);
    } else {
        *x = i % t->width;
        *y = i / t->width;
    }
}

/* memcmp(a, b, n) == 0, for the few bytes of a sample, without a call */
static bool block_same(const uint8_t *a, const uint8_t *b, unsigned n)
{
    uint64_t x, y;

    if (n == 8) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    for (unsigned i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

/*
 * The texel of the sample at @p into @run: converted again only when
 * the sample's first 16 bytes (all block_texel reads) differ from the
 * last converted (@src, @keyn of them; flat colours repeat), the run
 * written out first when @va does not continue it within its page
 */
static AgxUscStatus block_put(Ctx *c, const AgxUscInsn *insn,
                              const AgxImage *img, unsigned fmt,
                              const uint8_t *p, unsigned avail, uint64_t va,
                              BlockRun *run, uint8_t *src, unsigned keyn,
                              uint8_t *texel, bool *last_ok)
{
    AgxUscStatus st;

    if (!*last_ok || !block_same(src, p, keyn)) {
        memset(texel, 0, 16);
        *last_ok = block_texel(img, fmt, p, avail, texel);
        memcpy(src, p, keyn);
    }
    if (!*last_ok) {
        st = block_run_flush(c, insn, run);
        return st != AGX_USC_OK ? st
               : usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (run->len && (va != run->va + run->len ||
                     run->len + img->bpp > BLOCK_RUN ||
                     (va + img->bpp - 1) / BLOCK_RUN != run->va / BLOCK_RUN)) {
        st = block_run_flush(c, insn, run);
        if (st != AGX_USC_OK) {
            return st;
        }
    }
    if (!run->len) {
        run->va = va;
    }
    if (img->bpp == 4) {
        memcpy(run->bytes + run->len, texel, 4);
    } else {
        memcpy(run->bytes + run->len, texel, img->bpp);
    }
    run->len += img->bpp;
    return AGX_USC_OK;
}

AgxUscStatus usc_block_image_store(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    USC_LANE_TMP BlockRun run;
    const AgxUscTile *t = c->tile;
    unsigned fmt = insn->f[AGX_USC_F_FMT], dim = insn->f[AGX_USC_F_DIM];
    unsigned cr = insn->f[AGX_USC_F_C];
    AgxUscStatus st = AGX_USC_OK;
    uint64_t last = UINT64_MAX;
    AgxImage img;

    if (!t || !agx_usc_tile_format_valid(fmt) || dim >= 9) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    for (int l = 0; l < LANES; l++) {
        uint32_t ox = t->origin_x, oy = t->origin_y, layer = 0, off;
        bool arrayed = dim == 1 || dim == 3 || dim == 8;
        uint8_t texel[16], src[16];
        USC_LANE_TMP uint64_t xs[BLOCK_GRID], ys[BLOCK_GRID];
        uint32_t samples, xn = 0, yn = 0;
        unsigned keyn;
        bool morton, last_ok, grid;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        st = usc_image_desc(c, s, insn, l, true, &last, &img);
        if (st != AGX_USC_OK) {
            return st;
        }
        if (insn->f[AGX_USC_F_EXPL]) {
            ox = row(s, cr >> 1)[l];
            oy = row(s, (cr >> 1) + 1)[l];
            layer = arrayed && dim != 1 ? row(s, (cr >> 1) + 2)[l] : 0;
        } else if (arrayed) {
            layer = get_half(s, cr, l);
        }
        off = row(s, insn->f[AGX_USC_F_R] >> 1)[l] & 0xffff;
        if (off >= t->sample_bytes) {
            continue;
        }
        /*
         * A multisampled image (2D MS, 2D MS array) takes each sample of
         * the tile's pixels into its own sample (the image's sample count
         * is the render's: Mesa's end-of-tile programs store a tile into
         * an image of the tilebuffer's samples); the others sample 0
         */
        samples = dim == 4 || dim == 8 ? MIN(t->samples, img.samples) : 1;
        morton = img.layout != 0 && (t->width == t->height ||
                                     t->width == 2 * t->height) &&
                 !(t->width & (t->width - 1));
        run.len = 0;
        keyn = MIN(t->sample_bytes - off, sizeof(src));
        last_ok = false;
        /* one sample per pixel: the texels' addresses as rows and columns */
        grid = samples == 1 && !agx_usc_general_paths &&
               t->width <= BLOCK_GRID && t->height <= BLOCK_GRID &&
               agx_image_sample_grid(&img, img.first_level, ox, oy, t->width,
                                     t->height, layer, xs, ys, &xn, &yn);
        for (uint32_t i = 0; i < t->width * t->height; i++) {
            bool inside = true;
            uint32_t x, y;

            block_walk_pixel(t, morton, i, &x, &y);
            for (uint32_t sm = 0; inside && sm < samples; sm++) {
                const uint8_t *p = tile_sample(t, x, y, sm);
                uint64_t va = 0;

                if (grid) {
                    inside = p && x < xn && y < yn;
                    va = inside ? xs[x] + ys[y] : 0;
                } else {
                    inside = p && agx_image_sample(&img, img.first_level,
                                                   ox + x, oy + y, layer, sm,
                                                   &va);
                }
                if (!inside) {
                    break;
                }
                st = block_put(c, insn, &img, fmt, p + off,
                               t->sample_bytes - off, va, &run, src, keyn,
                               texel, &last_ok);
                if (st != AGX_USC_OK) {
                    return st;
                }
            }
            if (!inside) {
                continue;
            }
            /* (metadata words: elsewhere, written before the texels) */
            st = block_meta(c, insn, &img, ox + x, oy + y, layer);
            if (st != AGX_USC_OK) {
                block_run_flush(c, insn, &run);
                return st;
            }
        }
        st = block_run_flush(c, insn, &run);
        if (st != AGX_USC_OK) {
            return st;
        }
        /* the block is the tile's: one lane stores it, others repeat it */
        (*c->budget) -= MIN(*c->budget, (uint64_t)t->width * t->height / 32);
    }
    return AGX_USC_OK;
}

void agx_usc_shared_tile(AgxUscLaunch *l, uint32_t word)
{
    unsigned layout = (word >> 10) & 0x3f;

    l->tile_width = l->tile_height = 0;
    l->tile_samples = 1u << ((word >> 16) & 3);
    l->tile_sample_bytes = ((word >> 20) & 15) * 8;
    switch (layout) {
    case 0x2f:
        l->tile_width = l->tile_height = 32;
        break;
    case 0x3f:
        l->tile_width = 32;
        l->tile_height = 16;
        break;
    case 0x36:
        l->tile_width = l->tile_height = 16;
        break;
    default:
        break;
    }
    if (!((word >> 8) & 1) || !l->tile_sample_bytes) {
        l->tile_width = l->tile_height = 0;
    }
}

void agx_usc_sample_position(uint32_t word, unsigned samples, unsigned s,
                             double *x, double *y)
{
    uint32_t b;

    if (!word) {
        word = samples >= 4 ? 0xeaa26e26u : samples == 2 ? 0x44ccu : 0x88u;
    }
    b = (word >> (8 * (s & 3))) & 0xff;
    *x = (b & 15) / 16.0;
    *y = (b >> 4) / 16.0;
}

/* The tile's samples, as a mask */
static uint32_t tile_all_samples(const AgxUscTile *t)
{
    return t && t->samples && t->samples < 8 ? (1u << t->samples) - 1 : 0xff;
}

void usc_group_coverage(const Ctx *c, Simd *s)
{
    uint32_t all = tile_all_samples(c->tile);

    for (int l = 0; l < LANES; l++) {
        uint32_t cov = c->group ? c->group->coverage[l] : 0;

        s->cov[l] = s->cov_in[l] = (cov ? cov : 0xff) & all;
    }
}

/*
 * Where lane @l interpolates, in pixels from the tile's corner: its pixel
 * centre, the position of one sample (iter's interpolation mode 1 with
 * an immediate index, 3 with the index in a register half), or the
 * centroid (mode 2): the centre when every sample (or none) is covered,
 * else the first covered sample's position (a choice: the APIs ask for a
 * point of the pixel covered by the primitive)
 */
static void iter_position(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                          int l, double *x, double *y)
{
    const AgxUscGroup *g = c->group;
    const AgxUscTile *t = c->tile;
    unsigned mode = insn->f[AGX_USC_F_INTERP], smp = insn->f[AGX_USC_F_SMP];
    uint32_t all = tile_all_samples(t), cov = s->cov_in[l] & all;
    double sx = 0.5, sy = 0.5;
    int sample = -1;

    if (mode == 1) {
        sample = smp;
    } else if (mode == 3) {
        sample = get_half(s, smp, l);
    } else if (mode == 2 && cov && cov != all) {
        sample = __builtin_ctz(cov);
    }
    if (t && sample >= 0) {
        agx_usc_sample_position(t->sample_positions, t->samples,
                                MIN((unsigned)sample, t->samples - 1),
                                &sx, &sy);
    }
    *x = g->px[l] + sx;
    *y = g->py[l] + sy;
}

/*
 * iter / iterproj / ldcf: the primitive's coefficient registers (the
 * fragment pipe's cf hook).  iter gives each channel's plane at the
 * lane's position (iter_position: the pixel centre, a sample or the
 * centroid), iterproj divides by the W register's plane there, ldcf
 * loads a channel's three coefficients into three registers.
 */
bool usc_iter(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    const AgxUscGroup *g = c->group;
    bool ldcf = insn->op == AGX_USC_OP_LDCF;
    bool proj = !ldcf && insn->f[AGX_USC_F_PROJ];
    bool r32 = insn->f[AGX_USC_F_RT];
    unsigned n = insn->f[AGX_USC_F_N] ?: 4, r = insn->f[AGX_USC_F_R];
    unsigned cfi = insn->f[AGX_USC_F_CFI], k = 0;
    float w[3] = { 0, 0, 1 };

    if (!g || !g->stage || !g->stage->cf || insn->f[AGX_USC_F_CFR] ||
        (proj && !g->stage->cf(g->stage_opaque, insn->f[AGX_USC_F_CFJ], w))) {
        return false;
    }
    if (r32) {
        r &= ~1;
    }
    for (unsigned ch = 0; ch < n; ch++) {
        float cf[3];

        if (!g->stage->cf(g->stage_opaque, cfi + ch, cf)) {
            return false;
        }
        for (unsigned j = 0; j < (ldcf ? 3 : 1); j++, k++) {
            for (int l = 0; l < LANES; l++) {
                double x, y, v;

                if (!((s->exec >> l) & 1)) {
                    continue;
                }
                iter_position(c, s, insn, l, &x, &y);
                if (ldcf) {
                    v = cf[j];
                } else {
                    v = (double)cf[0] * x + (double)cf[1] * y + cf[2];
                    if (proj) {
                        v /= (double)w[0] * x + (double)w[1] * y + w[2];
                    }
                }
                set_data(s, r, r32, k, l,
                         r32 ? usc_f64_to_f32(v, AGX_ROUND_RTE)
                             : usc_f64_to_f16(v, AGX_ROUND_RTE));
            }
        }
    }
    return true;
}

/*
 * The depth/stencil test of lane @l's samples @samples, through the
 * stage's hook (helper lanes test nothing): the samples that pass
 */
static uint32_t usc_zs_test(const Ctx *c, int l, uint32_t samples,
                            unsigned zs, float z, uint32_t sref)
{
    const AgxUscGroup *g = c->group;

    if (!samples || !g || ((g->helper >> l) & 1) || !g->stage ||
        !g->stage->zs) {
        return samples;
    }
    return g->stage->zs(g->stage_opaque, l, samples, zs, z, sref) & samples;
}

/*
 * Lane @l loses samples @lost; a lane whose pixel keeps no live sample is
 * discarded (it stops): added to *@kill
 */
static void usc_lose_samples(Simd *s, int l, uint32_t lost, uint32_t *kill)
{
    s->cov[l] &= ~lost;
    if (!s->cov[l]) {
        *kill |= 1u << l;
    }
}

/* Lanes @kill stop */
static void usc_kill_lanes(Simd *s, uint32_t kill)
{
    if (kill & s->launched) {
        s->launched &= ~kill;
        set_exec(s, s->exec);
    }
}

/*
 * sample_mask T, S: of the live samples of T (a mask of samples; all of
 * them when it is ~0), those whose bit of S is clear are killed, those
 * whose bit is set run their depth/stencil test (with the primitive's
 * depth, when the tests are late) and are killed if it fails (Mesa's
 * agx_nir_lower_sample_mask.c: a killed sample stays killed)
 */
void usc_sample_mask(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    uint32_t kill = 0;

    for (int l = 0; l < LANES; l++) {
        uint32_t t, v;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        t = insn->f[AGX_USC_F_TT] ? insn->f[AGX_USC_F_T]
                                  : get_half(s, insn->f[AGX_USC_F_T], l);
        v = insn->f[AGX_USC_F_SI] ? insn->f[AGX_USC_F_S]
                                  : get_half(s, insn->f[AGX_USC_F_S], l);
        t &= s->cov[l];
        usc_lose_samples(s, l, (t & ~v) |
                               (t & v & ~usc_zs_test(c, l, t & v, 0, 0, 0)),
                         &kill);
    }
    usc_kill_lanes(s, kill);
}

/*
 * zs_emit: the live samples of T run their depth/stencil test with the
 * shader's depth (zs bit 0: a float in halves R, R + 1) and stencil
 * reference (bit 1: the half after it, or R alone); those that fail are
 * killed
 */
void usc_zs_emit(const Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned zs = insn->f[AGX_USC_F_ZS], r = insn->f[AGX_USC_F_R];
    uint32_t kill = 0;

    for (int l = 0; l < LANES; l++) {
        uint32_t t, zbits = 0, sref = 0;
        float z;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        t = insn->f[AGX_USC_F_TT] ? insn->f[AGX_USC_F_T]
                                  : get_half(s, insn->f[AGX_USC_F_T], l);
        if (zs & 1) {
            zbits = get_half(s, r, l) | get_half(s, r + 1, l) << 16;
        }
        if (zs & 2) {
            sref = get_half(s, zs & 1 ? r + 2 : r, l);
        }
        memcpy(&z, &zbits, 4);
        t &= s->cov[l];
        usc_lose_samples(s, l, t & ~usc_zs_test(c, l, t, zs, z, sref),
                         &kill);
    }
    usc_kill_lanes(s, kill);
}
