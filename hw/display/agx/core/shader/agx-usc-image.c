/*
 * AGX USC interpreter: image descriptors, texel addresses and pixel
 * formats, for texel fetches (texture_load) and image stores (image_write)
 *
 * Descriptor fields: Mesa's genxml/cmdbuf.xml "Texture" and "PBE"
 * structures.  Layouts: strided linear, and twiddled as Mesa's
 * src/asahi/layout lays images out (each level a grid of power-of-two
 * tiles in raster order, Morton order inside a tile; a "large" miptree of
 * one-page tiles, then a power-of-two miptree for the small levels;
 * levels 128-byte aligned; layers optionally page aligned) and as
 * libagx's texture.cl addresses a texel inside a level.  Compressed
 * images are read and written as their twiddled body, the metadata
 * (acceleration buffer) ignored: Mesa documents no compressed tile format
 * (libagx's compression.cl only copies tiles through the hardware and
 * marks them uncompressed), and in this model nothing writes compressed
 * tiles, so every body is stored as plain twiddled texels.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-usc-exec.h"
#include "agx-texfmt.h"

#define CACHELINE       128
#define PAGE            16384

static uint64_t field(const uint8_t *d, unsigned start, unsigned width)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < width; i++) {
        unsigned b = start + i;

        v |= (uint64_t)((d[b / 8] >> (b % 8)) & 1) << i;
    }
    return v;
}

/* Channels: the bit widths of R, G, B, A (0: absent); 0 total: unknown */
typedef struct Channels {
    uint8_t code;
    uint8_t bits[4];
} Channels;

static const Channels channel_table[] = {
    { 0x00, { 8 } },                /* R8 */
    { 0x09, { 16 } },               /* R16 */
    { 0x0a, { 8, 8 } },             /* R8G8 */
    { 0x0b, { 5, 6, 5 } },          /* R5G6B5 */
    { 0x0c, { 4, 4, 4, 4 } },       /* R4G4B4A4 */
    { 0x0e, { 5, 5, 5, 1 } },       /* R5G5B5A1 */
    { 0x21, { 32 } },               /* R32 */
    { 0x23, { 16, 16 } },           /* R16G16 */
    { 0x25, { 11, 11, 10 } },       /* R11G11B10 (floats) */
    { 0x26, { 10, 10, 10, 2 } },    /* R10G10B10A2 */
    { 0x27, { 9, 9, 9, 5 } },       /* R9G9B9E5 (shared exponent) */
    { 0x28, { 8, 8, 8, 8 } },       /* R8G8B8A8 */
    { 0x31, { 32, 32 } },           /* R32G32 */
    { 0x32, { 16, 16, 16, 16 } },   /* R16G16B16A16 */
    { 0x38, { 32, 32, 32, 32 } },   /* R32G32B32A32 */
};

bool agx_image_parse(const uint8_t *d, bool pbe, AgxImage *img)
{
    const Channels *ch = NULL;
    unsigned bits = 0, bw, bh, bytes;

    memset(img, 0, sizeof(*img));
    img->dim = field(d, 0, 4);
    img->layout = field(d, 4, 2);
    img->channels = field(d, 6, 7);
    img->type = field(d, 13, 3);
    for (unsigned i = 0; i < G_N_ELEMENTS(channel_table); i++) {
        if (channel_table[i].code == img->channels) {
            ch = &channel_table[i];
        }
    }
    img->bw = img->bh = 1;
    if (!ch && !pbe && agx_texfmt_block(img->channels, &bw, &bh, &bytes)) {
        /* block-compressed (sampled only): addressed by block */
        if (img->type > 1 && img->type != 4) {
            return false;
        }
        img->bw = bw;
        img->bh = bh;
        bits = bytes * 8;
    } else if (!ch || img->type > 4) {
        return false;       /* unknown format */
    } else {
        for (int c = 0; c < 4; c++) {
            img->bits[c] = ch->bits[c];
            bits += ch->bits[c];
        }
    }
    img->bpp = bits / 8;
    img->extended = field(d, 127, 1);
    /* Compressed 1 (PBE bit 59, Texture bit 103), acceleration buffer */
    img->compressed = img->layout == 2 && img->extended &&
                      field(d, pbe ? 59 : 103, 1);
    img->meta_va = img->compressed ? field(d, 128, 60) << 4 : 0;
    if (pbe) {
        for (int c = 0; c < 4; c++) {
            img->swizzle[c] = field(d, 16 + 2 * c, 2);
        }
        img->width = field(d, 24, 14) + 1;
        img->height = field(d, 38, 14) + 1;
        img->va = field(d, 64, 36) << 4;
        img->first_level = field(d, 100, 4);
        img->levels = field(d, 104, 4) + 1;
        img->layers = field(d, 108, 14) + 1;
        img->page_aligned = field(d, 124, 1);
        img->srgb = field(d, 125, 1);
        if (img->layout == 0) {
            img->stride = field(d, 104, 21) + 4;
            img->levels = 1;
            img->layers = 1;
        }
        /* multisampled: Samples (bit 56) 0 = 2, 1 = 4 */
        if (img->dim == 4 || img->dim == 8) {
            img->samples = field(d, 56, 1) ? 4 : 2;
        }
    } else {
        for (int c = 0; c < 4; c++) {
            img->swizzle[c] = field(d, 16 + 3 * c, 3);
        }
        img->width = field(d, 28, 14) + 1;
        img->height = field(d, 42, 14) + 1;
        img->first_level = field(d, 56, 4);
        /* the view's last level: the levels the layout is computed for */
        img->levels = field(d, 60, 4) + 1;
        img->va = field(d, 66, 36) << 4;
        img->srgb = field(d, 108, 1);
        img->page_aligned = field(d, 126, 1);
        if (img->layout == 0) {
            img->stride = (field(d, 110, 18) << 4) + 16;
            img->levels = 1;
            img->layers = 1;
        } else {
            img->layers = field(d, 110, 14) + 1;
        }
        /* a cube view's Depth counts cubes (hk_image_view.c) */
        if (img->dim == 6 || img->dim == 7) {
            img->layers *= 6;
        }
        img->mipmapped = field(d, 102, 1);
        /* multisampled: Samples (bit 64) 0 = 2, 1 = 4 */
        if (img->dim == 4 || img->dim == 8) {
            img->samples = field(d, 64, 1) ? 4 : 2;
        }
    }
    if (!img->samples) {
        img->samples = 1;
    }
    /*
     * The levels the layout holds: Mesa allocates the whole chain of a
     * mipmapped image (ail_make_miptree: "hardware strides are based on
     * the maximum number of levels") and sets Unk mipmapped then; the
     * layer stride follows from it, not from the view's last level
     */
    img->layout_levels = img->levels;
    if (img->mipmapped) {
        uint32_t major = MAX(img->width, img->height);

        if (img->dim == 5) {
            major = MAX(major, img->layers);
        }
        img->layout_levels = 32 - __builtin_clz(major);
    }
    if (img->layout == 0 && img->extended) {
        /* linear 2D arrays: the descriptor's second half */
        img->layers = field(d, 128, 11) + 1;
        img->layer_stride = (field(d, 139, 27) << 7) + 0x80;
    }
    return img->bpp && (img->bpp & (img->bpp - 1)) == 0 && img->bpp <= 16;
}

static uint32_t minify(uint32_t v, unsigned l)
{
    return l >= 32 || !(v >> l) ? 1 : v >> l;
}

static uint32_t next_pow2(uint32_t v)
{
    return v <= 1 ? 1 : 1u << (32 - __builtin_clz(v - 1));
}

/* Level @l's width and height in blocks (texels unless compressed) */
static uint32_t level_w_el(const AgxImage *img, unsigned l)
{
    return (minify(img->width, l) + img->bw - 1) / img->bw;
}

static uint32_t level_h_el(const AgxImage *img, unsigned l)
{
    return (minify(img->height, l) + img->bh - 1) / img->bh;
}

/*
 * The twiddled layout of one layer: the offset, tile size and row length
 * in blocks (whole tiles) of @level and the layer's size
 * (src/asahi/layout's rules, re-derived).  Block-compressed formats lay
 * out blocks as other formats lay out texels, except that a level of the
 * large miptree with a padding column of tiles has one block more per
 * row, and that the power-of-two miptree rounds level 0's size up to a
 * power of two before minifying, its tiles the size of that (layout.c).
 */
static void twiddled_level(const AgxImage *img, unsigned level,
                           uint64_t *offset, uint32_t *tw, uint32_t *th,
                           uint32_t *row_el, uint64_t *layer_size)
{
    static const uint8_t tile_log2[7][2] = {
        { 7, 7 }, { 7, 6 }, { 6, 6 }, { 6, 5 }, { 5, 5 },   /* 1..16 B */
        { 5, 4 }, { 4, 4 },                                 /* 32, 64 B */
    };
    /* a multisampled pixel is one block of all its samples (layout.c) */
    uint32_t block = img->bpp * img->samples;
    unsigned b = __builtin_ctz(block);
    uint32_t tile_w = 1u << tile_log2[b][0], tile_h = 1u << tile_log2[b][1];
    uint32_t stx = (level_w_el(img, 0) + tile_w - 1) / tile_w;
    uint32_t sty = (level_h_el(img, 0) + tile_h - 1) / tile_h;
    bool bc = img->bw > 1 || img->bh > 1;
    unsigned pot_level = 0;
    uint64_t off = 0;
    uint32_t potw, poth;

    /* (compressed: minifying level 0's size rounded up to whole blocks) */
    while (pot_level < 16 &&
           (minify(level_w_el(img, 0) * img->bw, pot_level) + img->bw - 1) /
           img->bw >= tile_w &&
           (minify(level_h_el(img, 0) * img->bh, pot_level) + img->bh - 1) /
           img->bh >= tile_h) {
        pot_level++;
    }
    /* the large miptree: one-page tiles, padded where a level is odd */
    for (unsigned l = 0; l < MIN(pot_level, img->layout_levels); l++) {
        uint64_t tiles = ((uint64_t)stx * sty) >> (2 * l);
        bool pad_left = stx & ((1u << l) - 1);
        bool pad_bottom = sty & ((1u << l) - 1);

        tiles += (pad_left ? sty >> l : 0) + (pad_bottom ? stx >> l : 0) +
                 (pad_left && pad_bottom);
        if (l == level) {
            *offset = off;
            *tw = tile_w;
            *th = tile_h;
            *row_el = USC_ALIGN(level_w_el(img, l) + (bc && pad_left),
                                tile_w);
        }
        off = USC_ALIGN(off + tiles * tile_w * tile_h * block, CACHELINE);
    }
    /* then the power-of-two miptree: square tiles as large as fit */
    if (bc) {
        potw = minify(next_pow2(level_w_el(img, 0)), pot_level);
        poth = minify(next_pow2(level_h_el(img, 0)), pot_level);
    } else {
        potw = next_pow2(minify(img->width, pot_level));
        poth = next_pow2(minify(img->height, pot_level));
    }
    for (unsigned l = pot_level; l < img->layout_levels; l++) {
        if (l == level) {
            *offset = off;
            *tw = *th = bc ? next_pow2(MIN(potw, poth))
                           : next_pow2(minify(MIN(img->width, img->height),
                                              l));
            *row_el = USC_ALIGN(level_w_el(img, l), *tw);
        }
        off = USC_ALIGN(off + (uint64_t)potw * poth * block, CACHELINE);
        potw = minify(potw, 1);
        poth = minify(poth, 1);
    }
    *layer_size = img->page_aligned ? USC_ALIGN(off, PAGE) : off;
}

/*
 * twiddled_level() of the last image and level asked, per thread: a
 * render asks it for every texel of the same few images
 */
typedef struct TwiddledKey {
    uint32_t block, width, height;
    uint8_t bw, bh, level, page_aligned;
    unsigned layout_levels;
} TwiddledKey;

static __thread struct {
    bool valid;
    TwiddledKey key;
    uint64_t offset, layer_size;
    uint32_t tw, th, row_el;
} twiddled_last;

static void twiddled_level_cached(const AgxImage *img, unsigned level,
                                  uint64_t *offset, uint32_t *tw,
                                  uint32_t *th, uint32_t *row_el,
                                  uint64_t *layer_size)
{
    TwiddledKey k = {
        .block = img->bpp * img->samples, .width = img->width,
        .height = img->height, .bw = img->bw, .bh = img->bh, .level = level,
        .page_aligned = img->page_aligned,
        .layout_levels = img->layout_levels,
    };
    const TwiddledKey *o = &twiddled_last.key;

    if (!twiddled_last.valid || k.block != o->block ||
        k.width != o->width || k.height != o->height || k.bw != o->bw ||
        k.bh != o->bh || k.level != o->level ||
        k.page_aligned != o->page_aligned ||
        k.layout_levels != o->layout_levels) {
        twiddled_last.offset = 0;
        twiddled_last.layer_size = 0;
        twiddled_last.tw = twiddled_last.th = twiddled_last.row_el = 1;
        twiddled_level(img, level, &twiddled_last.offset, &twiddled_last.tw,
                       &twiddled_last.th, &twiddled_last.row_el,
                       &twiddled_last.layer_size);
        twiddled_last.key = k;
        twiddled_last.valid = true;
    }
    *offset = twiddled_last.offset;
    *tw = twiddled_last.tw;
    *th = twiddled_last.th;
    *row_el = twiddled_last.row_el;
    *layer_size = twiddled_last.layer_size;
}

/* Bits 0..15 of @v spread to the even bits 0..30 */
static uint32_t spread_bits(uint32_t v)
{
    v &= 0xffff;
    v = (v | v << 8) & 0x00ff00ff;
    v = (v | v << 4) & 0x0f0f0f0f;
    v = (v | v << 2) & 0x33333333;
    v = (v | v << 1) & 0x55555555;
    return v;
}

bool agx_image_texel(const AgxImage *img, unsigned level, uint32_t x,
                     uint32_t y, uint32_t layer, uint64_t *va)
{
    return agx_image_sample(img, level, x, y, layer, 0, va);
}

bool agx_image_sample(const AgxImage *img, unsigned level, uint32_t x,
                      uint32_t y, uint32_t layer, uint32_t sample,
                      uint64_t *va)
{
    uint64_t offset = 0, layer_size = 0;
    uint32_t tw = 1, th = 1, aw = 1, in_tile = 0;
    uint32_t block = img->bpp * img->samples;

    /*
     * A null image (Mesa's agx_set_null_texture / agx_set_null_pbe, for
     * unbound and null descriptors) has no texels: loads read zeros
     * (its swizzle makes them 0), stores go nowhere (Mesa points the
     * PBE at a sink it never reads)
     */
    if (img->layout == 1) {
        return false;
    }
    if (level >= img->levels || level >= 16 || layer >= img->layers ||
        x >= minify(img->width, level) || y >= minify(img->height, level) ||
        sample >= img->samples) {
        return false;
    }
    x /= img->bw;
    y /= img->bh;
    if (img->layout == 0) {
        uint64_t ls = img->layer_stride ? img->layer_stride
                                        : (uint64_t)img->stride * img->height;

        *va = img->va + layer * ls + (uint64_t)y * img->stride +
              (uint64_t)x * img->bpp;
        return true;
    }
    twiddled_level_cached(img, level, &offset, &tw, &th, &aw, &layer_size);
    /* libagx texture.cl: tile rows, tile columns, Morton inside the tile */
    in_tile = spread_bits(x & (tw - 1)) | spread_bits(y & (th - 1)) << 1;
    *va = img->va + layer * layer_size + offset +
          ((uint64_t)(y & ~(th - 1)) * aw + (uint64_t)(x & ~(tw - 1)) * th +
           in_tile) * block + sample * img->bpp;
    return true;
}

bool agx_image_sample_grid(const AgxImage *img, unsigned level,
                           uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                           uint32_t layer, uint64_t *xs, uint64_t *ys,
                           uint32_t *xn, uint32_t *yn)
{
    uint64_t offset = 0, layer_size = 0;
    uint32_t tw = 1, th = 1, aw = 1, lw, lh;
    uint32_t block = img->bpp * img->samples;

    if (img->layout == 1 || img->bw != 1 || img->bh != 1 ||
        level >= img->levels || level >= 16 || layer >= img->layers ||
        !img->samples || x0 > UINT32_MAX - w || y0 > UINT32_MAX - h) {
        return false;
    }
    lw = minify(img->width, level);
    lh = minify(img->height, level);
    *xn = x0 < lw ? MIN(w, lw - x0) : 0;
    *yn = y0 < lh ? MIN(h, lh - y0) : 0;
    if (img->layout == 0) {
        uint64_t ls = img->layer_stride ? img->layer_stride
                                        : (uint64_t)img->stride * img->height;

        for (uint32_t i = 0; i < *xn; i++) {
            xs[i] = (uint64_t)(x0 + i) * img->bpp;
        }
        for (uint32_t j = 0; j < *yn; j++) {
            ys[j] = img->va + layer * ls + (uint64_t)(y0 + j) * img->stride;
        }
        return true;
    }
    twiddled_level_cached(img, level, &offset, &tw, &th, &aw, &layer_size);
    /* agx_image_sample's sum, its Morton index split into x and y bits */
    for (uint32_t i = 0; i < *xn; i++) {
        uint32_t x = x0 + i;

        xs[i] = ((uint64_t)(x & ~(tw - 1)) * th +
                 spread_bits(x & (tw - 1))) * block;
    }
    for (uint32_t j = 0; j < *yn; j++) {
        uint32_t y = y0 + j;

        ys[j] = img->va + layer * layer_size + offset +
                ((uint64_t)(y & ~(th - 1)) * aw +
                 (spread_bits(y & (th - 1)) << 1)) * block;
    }
    return true;
}

static uint64_t get_bits(const uint8_t *p, unsigned start, unsigned n)
{
    return field(p, start, n);
}

static void put_bits(uint8_t *p, unsigned start, unsigned n, uint64_t v)
{
    if (!(start % 8) && !(n % 8)) {         /* whole bytes, little endian */
        for (unsigned i = 0; i < n / 8; i++) {
            p[start / 8 + i] = v >> (8 * i);
        }
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned b = start + i;

        p[b / 8] = (p[b / 8] & ~(1 << (b % 8))) | ((v >> i) & 1) << (b % 8);
    }
}

/*
 * 1D, 1D array, 2D, 2D array, 2D MS, 3D, cube, cube array, 2D MS array;
 * cubes are addressed as 2D arrays (face + 6 * layer), as Mesa's image
 * code treats them
 */
unsigned agx_image_coords(unsigned dim)
{
    static const uint8_t n[16] = { 1, 2, 2, 3, 3, 3, 3, 3, 4 };

    return n[dim & 15] ? n[dim & 15] : 1;
}

bool agx_image_is_int(const AgxImage *img)
{
    return img->type == 2 || img->type == 3;
}

/*
 * A texel's channels after the Texture swizzle, as f32 bits (unorm, snorm,
 * float) or 32-bit integers (uint, sint); absent channels read 0, alpha 1
 */
void agx_image_unpack(const AgxImage *img, const uint8_t *texel,
                      uint32_t tx, uint32_t ty, uint32_t out[4])
{
    bool is_int = agx_image_is_int(img);
    uint32_t one = is_int ? 1 : 0x3f800000;
    uint32_t ch[4] = { 0, 0, 0, one };
    unsigned pos = 0;

    if (img->bw > 1 || img->bh > 1) {
        double rgba[4];

        agx_texfmt_decode(img->channels,
                          (img->type == 1 ? AGX_TEXFMT_SIGNED : 0) |
                          (img->type == 4 ? AGX_TEXFMT_HDR : 0) |
                          (img->srgb ? AGX_TEXFMT_SRGB : 0), texel,
                          tx % img->bw, ty % img->bh, rgba);
        for (int c = 0; c < 4; c++) {
            if (img->srgb && img->type == 0 && c < 3) {
                rgba[c] = usc_srgb_to_linear(rgba[c]);
            }
            ch[c] = usc_f64_to_f32(rgba[c], AGX_ROUND_RTE);
        }
    }
    for (int c = 0; c < 4; c++) {
        unsigned n = img->bits[c];
        uint64_t v;
        double x;

        if (!n) {
            continue;
        }
        v = get_bits(texel, pos, n);
        pos += n;
        if (img->channels == 0x25) {
            ch[c] = usc_f64_to_f32(usc_small_float(v, n - 5), AGX_ROUND_RTE);
            continue;
        }
        if (img->channels == 0x27) {
            if (c < 3) {
                x = ldexp(v, (int)get_bits(texel, 27, 5) - 15 - 9);
                ch[c] = usc_f64_to_f32(x, AGX_ROUND_RTE);
            }
            continue;
        }
        switch (img->type) {
        case 0:     /* unorm */
            x = v / (double)((1ull << n) - 1);
            if (img->srgb && c < 3) {
                x = usc_srgb_to_linear(x);
            }
            ch[c] = usc_f64_to_f32(x, AGX_ROUND_RTE);
            break;
        case 1: {   /* snorm */
            int64_t s = (int64_t)(v << (64 - n)) >> (64 - n);
            double m = (double)((1ull << (n - 1)) - 1);

            ch[c] = usc_f64_to_f32(MAX(s, -(int64_t)m) / m, AGX_ROUND_RTE);
            break;
        }
        case 2:
            ch[c] = v;
            break;
        case 3:
            ch[c] = (uint32_t)((int64_t)(v << (64 - n)) >> (64 - n));
            break;
        default:    /* float: 16 or 32 bits */
            ch[c] = n == 16 ? usc_f64_to_f32(usc_f16_to_f64(v), AGX_ROUND_RTE)
                            : (uint32_t)v;
            break;
        }
    }
    for (int i = 0; i < 4; i++) {
        unsigned s = img->swizzle[i];

        out[i] = s < 4 ? ch[s] : s == 4 ? one : 0;
    }
}

/*
 * Store channel c of the format from in[swizzle[c]] (the PBE swizzle names
 * the source of each channel): floats as f32 bits, integers as 32 bits
 */
bool agx_image_pack(const AgxImage *img, const uint32_t in[4],
                    uint8_t *texel)
{
    unsigned pos = 0;

    if (img->channels == 0x25 || img->channels == 0x27) {
        return false;       /* packed floats: not written here */
    }
    for (int c = 0; c < 4; c++) {
        unsigned n = img->bits[c];
        uint32_t v = in[img->swizzle[c] & 3];
        double x = apple_bits_f32(v), m;
        uint64_t bits;

        if (!n) {
            continue;
        }
        switch (img->type) {
        case 0:
            x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
            if (img->srgb && c < 3) {
                x = usc_linear_to_srgb(x);
            }
            bits = (uint64_t)nearbyint(x * ((1ull << n) - 1));
            break;
        case 1:
            m = (double)((1ull << (n - 1)) - 1);
            x = isnan(x) ? 0 : x < -1 ? -1 : x > 1 ? 1 : x;
            bits = (uint64_t)(int64_t)nearbyint(x * m);
            break;
        case 2:
        case 3:
            bits = v;       /* the low bits (saturation unconfirmed) */
            break;
        default:
            bits = n == 16 ? usc_f64_to_f16(x, AGX_ROUND_RTE) : v;
            break;
        }
        put_bits(texel, pos, n, bits & ((n == 64 ? 0 : 1ull << n) - 1));
        pos += n;
    }
    return true;
}

/* --- images (§3.9) ---------------------------------------------------- */

/*
 * The descriptor a texture instruction names for lane @l: a texture state
 * register (immediate or 16-bit register index), or bindless, a 64-bit
 * uniform base (half U * 4) plus a 32-bit register byte offset
 */
static bool image_desc_va(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                          int l, uint64_t *va)
{
    unsigned t = insn->f[AGX_USC_F_T];

    const uint64_t *ts = c->tex_state ? c->tex_state : c->l->tex_state_va;

    switch (insn->f[AGX_USC_F_TT]) {
    case 0:
        *va = ts[t & 0xff];
        return true;
    case 1:
        *va = ts[get_half(s, t, l) & 0xff];
        return true;
    case 3:
        *va = get_uni64(c, insn->f[AGX_USC_F_U] * 4) + row(s, t >> 1)[l];
        return true;
    default:
        return false;
    }
}

/* Fetch and parse lane @l's descriptor (reusing the last one if the same) */
AgxUscStatus usc_image_desc(Ctx *c, Simd *s, const AgxUscInsn *insn,
                            int l, bool pbe, uint64_t *last, AgxImage *img)
{
    AgxUscStatus st = AGX_USC_OK;
    uint8_t d[24];
    uint64_t va;

    if (!image_desc_va(c, s, insn, l, &va)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (va == *last) {
        return AGX_USC_OK;
    }
    usc_mem_read(c, insn, va, d, sizeof(d), &st);
    if (st != AGX_USC_OK) {
        return st;
    }
    /* formats and layouts not interpreted (compressed images) */
    if (!agx_image_parse(d, pbe, img)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, va);
    }
    *last = va;
    return AGX_USC_OK;
}

static void image_coords(Simd *s, const AgxUscInsn *insn, int l,
                         uint32_t *x, uint32_t *y, uint32_t *layer,
                         uint32_t *sample)
{
    unsigned cr = insn->f[AGX_USC_F_C] >> 1, dim = insn->f[AGX_USC_F_DIM];
    unsigned n = agx_image_coords(dim);
    uint32_t w;

    if (insn->f[AGX_USC_F_CS]) {
        /*
         * Bit 47: 16-bit coordinates in consecutive halves (Mesa 26's
         * background programs load the pixel's "r0l, r0h" so)
         */
        unsigned h = insn->f[AGX_USC_F_C];

        *x = get_half(s, h, l);
        *y = n > 1 && dim != 1 ? get_half(s, h + 1, l) : 0;
        *layer = dim == 1 ? get_half(s, h + 1, l)
                 : n > 2 && dim != 4 ? get_half(s, h + 2, l) : 0;
        *sample = dim == 4 ? get_half(s, h + 2, l) : 0;
        return;
    }
    *x = row(s, cr)[l];
    *y = *layer = *sample = 0;
    if (dim == 4 || dim == 8) {
        /*
         * x, y, then the sample index, or for arrays the sample in the
         * low half and the layer in the high one (Mesa
         * agx_nir_lower_texture.c packs them so)
         */
        *y = row(s, cr + 1)[l];
        w = row(s, cr + 2)[l];
        *sample = dim == 8 ? w & 0xffff : w;
        *layer = dim == 8 ? w >> 16 : 0;
        return;
    }
    if (dim == 1) {                 /* 1D array: x, layer */
        *layer = row(s, cr + 1)[l];
        return;
    }
    if (n > 1) {
        *y = row(s, cr + 1)[l];
    }
    if (n > 2) {
        *layer = row(s, cr + 2)[l];
    }
}

/*
 * texture_load: a texel fetch (image loads and texelFetch), integer
 * coordinates and level; the masked components go to consecutive
 * registers (Mesa agx_expand_tex_to); outside the image reads zeros
 * (hardware behaviour unconfirmed).  Sampling is not interpreted.
 */
AgxUscStatus usc_texture_load(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    unsigned lod_mode = insn->f[AGX_USC_F_LOD], dim = insn->f[AGX_USC_F_DIM];
    bool r32 = insn->f[AGX_USC_F_RT];
    uint64_t last = UINT64_MAX;
    AgxUscStatus st;
    AgxImage img;

    if (!mask || insn->f[AGX_USC_F_Q2] || dim > 8 ||
        (lod_mode != 0 && lod_mode != 2 && lod_mode != 6)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (r32) {
        r &= ~1;
    }
    for (int l = 0; l < LANES; l++) {
        uint32_t x, y, layer, sample, lod = 0, out[4];
        uint8_t texel[16] = { 0 };
        unsigned k = 0;
        uint64_t va;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        st = usc_image_desc(c, s, insn, l, false, &last, &img);
        if (st != AGX_USC_OK) {
            return st;
        }
        image_coords(s, insn, l, &x, &y, &layer, &sample);
        if (insn->f[AGX_USC_F_OFFS]) {
            /*
             * texelFetchOffset: signed 4-bit offsets packed x, y, z from
             * bit 0 (Mesa agx_nir_lower_texture.c) added to the texel
             * coordinates (z: a 3D image's slice)
             */
            uint32_t p = row(s, insn->f[AGX_USC_F_O] >> 1)[l];

            x += (int32_t)(p << 28) >> 28;
            y += (int32_t)(p << 24) >> 28;
            if (dim == 5) {
                layer += (int32_t)(p << 20) >> 28;
            }
        }
        if (lod_mode == 6) {
            lod = get_half(s, insn->f[AGX_USC_F_D], l);
        } else if (lod_mode == 2) {
            lod = get_uni16(c, insn->f[AGX_USC_F_D]);
        }
        if (agx_image_sample(&img, img.first_level + lod, x, y, layer,
                             sample, &va)) {
            usc_image_solid(c, insn, &img, img.first_level + lod, x, y,
                            layer, &va, &st);
            usc_mem_read(c, insn, va, texel, img.bpp, &st);
            if (st != AGX_USC_OK) {
                return st;
            }
        }
        agx_image_unpack(&img, texel, x, y, out);
        for (unsigned i = 0; i < 4; i++) {
            if (!((mask >> i) & 1)) {
                continue;
            }
            if (r32) {
                row(s, (r >> 1) + k)[l] = out[i];
            } else if (agx_image_is_int(&img)) {
                set_half(s, r + k, l, out[i]);
            } else {
                set_half(s, r + k, l, usc_f64_to_f16(apple_bits_f32(out[i]),
                                                     AGX_ROUND_RTE));
            }
            k++;
        }
    }
    return AGX_USC_OK;
}

/*
 * image_write: 4 components from consecutive registers, converted to the
 * PBE descriptor's format at (coordinates, level + LOD); outside the image
 * nothing is written
 */
AgxUscStatus usc_image_write(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned r = insn->f[AGX_USC_F_R], dim = insn->f[AGX_USC_F_DIM];
    bool r32 = insn->f[AGX_USC_F_RT];
    uint64_t last = UINT64_MAX;
    AgxUscStatus st;
    AgxImage img;

    if (dim == 4 || dim >= 8) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (r32) {
        r &= ~1;
    }
    for (int l = 0; l < LANES; l++) {
        uint32_t x, y, layer, sample, lod, in[4];
        uint8_t texel[16] = { 0 };
        uint64_t va;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        st = usc_image_desc(c, s, insn, l, true, &last, &img);
        if (st != AGX_USC_OK) {
            return st;
        }
        image_coords(s, insn, l, &x, &y, &layer, &sample);
        lod = insn->f[AGX_USC_F_DT] ? insn->f[AGX_USC_F_D]
                                    : get_half(s, insn->f[AGX_USC_F_D], l);
        for (unsigned i = 0; i < 4; i++) {
            uint32_t v = r32 ? row(s, (r >> 1) + i)[l] : get_half(s, r + i, l);

            if (!r32 && agx_image_is_int(&img)) {
                v = img.type == 3 ? (uint32_t)(int32_t)(int16_t)v : v;
            } else if (!r32) {
                v = apple_f32_bits(usc_f16_to_f64(v));
            }
            in[i] = v;
        }
        if (!agx_image_pack(&img, in, texel)) {
            return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
        }
        if (agx_image_texel(&img, img.first_level + lod, x, y, layer, &va)) {
            usc_mem_write(c, insn, va, texel, img.bpp, &st);
            if (st != AGX_USC_OK) {
                return st;
            }
        }
    }
    return AGX_USC_OK;
}

/*
 * tex_state_store / sampler_state_store: state register TS takes the
 * descriptor at the 64-bit base B (a uniform pair, or a GPR pair) plus an
 * immediate byte offset.  The operand fields are read as Mesa 26.1.6's
 * disassembler reads them (agx-isa.def); the recorded image shaders of
 * tests/unit/usc-corpus give the bytes the CPU reference expects with
 * this reading.  The interpreter's state registers hold descriptor
 * addresses, so the register takes that address (the same unless the
 * descriptor changes later in the launch).  The preamble's stores last
 * for the launch; a threadgroup's for the threadgroup (unconfirmed).
 */
void usc_state_store(Ctx *c, Simd *s, const AgxUscInsn *insn, bool tex)
{
    uint64_t **regs = tex ? &c->tex_state : &c->sampler_state;
    unsigned pair = insn->f[AGX_USC_F_B] * 2;
    uint64_t offset = insn->f[AGX_USC_F_O] * 2;

    /* the two files have the same size */
    G_STATIC_ASSERT(AGX_USC_TEX_STATES == AGX_USC_SAMPLER_STATES);
    const uint64_t *from = tex ? c->l->tex_state_va : c->l->sampler_state_va;

    for (int l = 0; l < LANES; l++) {
        uint64_t base;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        if (!*regs) {
            *regs = g_new(uint64_t, AGX_USC_TEX_STATES);
            memcpy(*regs, from, AGX_USC_TEX_STATES * sizeof(uint64_t));
        }
        if (insn->f[AGX_USC_F_BU]) {
            base = get_uni64(c, pair * 2);
        } else {
            base = row(s, pair)[l] | (uint64_t)row(s, pair + 1)[l] << 32;
        }
        (*regs)[insn->f[AGX_USC_F_TS] & 0xff] = base + offset;
    }
}

void agx_image_sample_scale(const AgxImage *img, uint32_t *sx, uint32_t *sy)
{
    *sx = img->samples == 4 ? 2 : 1;
    *sy = img->samples >= 2 ? 2 : 1;
}

/*
 * Compressed images (Mesa's layout.c and libagx compression.cl): the
 * metadata holds 8 bytes per 16x16 tile of level 0, tiles of the
 * power-of-two padded image twiddled along its smaller side; a byte per
 * 8x4 subtile (which byte is which subtile is not documented: rows of two
 * subtiles, a choice).  Honeykrisp's fast clears write the solid mode and
 * the colour in the tile's first texels of the body, one per subtile.
 * A multisampled image's tiles count samples (ail_effective_width_sa:
 * 4 samples are 2x2, 2 samples 1x2): a 16x16 tile covers 8x8 pixels of
 * 4 samples (where a pixel's samples lie in its tile is not documented:
 * the pixel's block, a choice).
 */
bool agx_image_meta(const AgxImage *img, unsigned level, uint32_t x,
                    uint32_t y, uint32_t layer, uint64_t *meta,
                    unsigned *sub)
{
    uint32_t w_tl, h_tl, minor, major, bits = 0, mask, il = 0, sx, sy;
    uint32_t tx, ty;
    uint64_t index;

    if (!img->compressed || level != 0 || img->layout_levels > 1) {
        return false;
    }
    agx_image_sample_scale(img, &sx, &sy);
    x *= sx;
    y *= sy;
    tx = x / 16;
    ty = y / 16;
    w_tl = (next_pow2(img->width * sx) + 15) / 16;
    h_tl = (next_pow2(img->height * sy) + 15) / 16;
    minor = MIN(w_tl, h_tl);
    while ((1u << bits) < minor) {
        bits++;
    }
    mask = (1u << bits) - 1;
    major = w_tl > h_tl ? tx : ty;
    for (unsigned i = 0; i < bits; i++) {
        il |= ((tx >> i) & 1) << (2 * i) | ((ty >> i) & 1) << (2 * i + 1);
    }
    index = il + ((uint64_t)(major & ~mask) << bits) +
            (uint64_t)layer * (USC_ALIGN((uint64_t)w_tl * h_tl * 8,
                                         CACHELINE) / 8);
    *meta = img->meta_va + 8 * index;
    *sub = (y % 16) / 4 * 2 + (x % 16) / 8;
    return true;
}

uint8_t agx_image_uncompressed_mode(const AgxImage *img)
{
    switch (img->bpp * img->samples) {
    case 1:
        return 0x1f;
    case 2:
        return 0x3f;
    case 4:
        return 0x7f;
    default:
        return 0xff;
    }
}

/*
 * A texel of a compressed image in a solid-colour subtile reads the
 * colour at the tile's first texels; others read the body as twiddled
 */
void usc_image_solid(Ctx *c, const AgxUscInsn *insn, const AgxImage *img,
                     unsigned level, uint32_t x, uint32_t y, uint32_t layer,
                     uint64_t *va, AgxUscStatus *st)
{
    uint64_t meta, base;
    uint32_t sx, sy;
    unsigned sub;
    uint8_t mode;

    if (!agx_image_meta(img, level, x, y, layer, &meta, &sub)) {
        return;
    }
    agx_image_sample_scale(img, &sx, &sy);
    usc_mem_read(c, insn, meta + sub, &mode, 1, st);
    if (*st == AGX_USC_OK && mode == AGX_COMP_SOLID &&
        agx_image_texel(img, level, x & ~(16 / sx - 1), y & ~(16 / sy - 1),
                        layer, &base)) {
        *va = base + (img->bpp <= 4 ? sub * img->bpp : 0);
    }
}
