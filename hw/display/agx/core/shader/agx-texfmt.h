/*
 * AGX texture sampler: block-compressed formats
 *
 * The formats are the Texture descriptor's Channels values of Mesa's
 * genxml/cmdbuf.xml (ETC2/EAC 0x58-0x5c, ASTC 0x60-0x6d, BCn 0x74-0x7b),
 * which src/asahi/layout/formats.c maps the API's compressed formats to.
 * Each family is decoded in its own file as the Khronos Data Format
 * Specification defines the format; what the hardware does where the
 * specification leaves a choice (interpolation rounding) is unknown and
 * marked "choice" there.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AGX_TEXFMT_H
#define AGX_TEXFMT_H

#include <stdbool.h>
#include <stdint.h>

/* cmdbuf.xml Channels */
enum {
    AGX_TEXFMT_ETC2_RGB8 = 0x58,
    AGX_TEXFMT_ETC2_RGBA8 = 0x59,
    AGX_TEXFMT_ETC2_RGB8A1 = 0x5a,
    AGX_TEXFMT_EAC_R11 = 0x5b,
    AGX_TEXFMT_EAC_RG11 = 0x5c,
    AGX_TEXFMT_ASTC_FIRST = 0x60,   /* 4x4 */
    AGX_TEXFMT_ASTC_LAST = 0x6d,    /* 12x12 */
    AGX_TEXFMT_BC1 = 0x74,
    AGX_TEXFMT_BC2 = 0x75,
    AGX_TEXFMT_BC3 = 0x76,
    AGX_TEXFMT_BC4 = 0x77,
    AGX_TEXFMT_BC5 = 0x78,
    AGX_TEXFMT_BC6H = 0x79,         /* signed */
    AGX_TEXFMT_BC6H_UF = 0x7a,
    AGX_TEXFMT_BC7 = 0x7b,
};

/*
 * The block of a compressed format: width and height in texels and size
 * in bytes; false for the formats that are not block-compressed or that
 * the model does not decode
 */
bool agx_texfmt_block(unsigned channels, unsigned *bw, unsigned *bh,
                      unsigned *bytes);

/*
 * Decode flags: signed variants (BC4/BC5/EAC snorm), sRGB views (ASTC),
 * ASTC's HDR profile (Type Float: cmdbuf.xml)
 */
#define AGX_TEXFMT_SIGNED   1
#define AGX_TEXFMT_SRGB     2
#define AGX_TEXFMT_HDR      4

/*
 * Texel (x, y) of a block (x < bw, y < bh): R, G, B, A as values, unorm
 * channels in [0, 1], snorm in [-1, 1], float formats as floats; channels
 * a format lacks read 0 (colour) and 1 (alpha).  No sRGB conversion here
 * (ASTC expands its sRGB endpoints differently, hence the flag).
 */
void agx_texfmt_decode(unsigned channels, unsigned flags,
                       const uint8_t *block, unsigned x, unsigned y,
                       double rgba[4]);

/* The families (agx-texfmt-bc.c, -etc.c, -bptc.c, -astc.c) */
void agx_texfmt_bc_decode(unsigned channels, bool is_signed,
                          const uint8_t *block, unsigned x, unsigned y,
                          double rgba[4]);
void agx_texfmt_etc_decode(unsigned channels, bool is_signed,
                           const uint8_t *block, unsigned x, unsigned y,
                           double rgba[4]);
void agx_texfmt_bptc_decode(unsigned channels, const uint8_t *block,
                            unsigned x, unsigned y, double rgba[4]);
void agx_texfmt_astc_footprint(unsigned channels, unsigned *bw,
                               unsigned *bh);
void agx_texfmt_astc_decode(unsigned channels, bool srgb, bool hdr,
                            const uint8_t *block, unsigned x, unsigned y,
                            double rgba[4]);

/* The value of half float @h */
double agx_texfmt_half(unsigned h);

#endif
