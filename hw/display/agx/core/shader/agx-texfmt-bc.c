/*
 * AGX texture sampler: BC1-BC5 (S3TC/DXTn and RGTC) blocks
 *
 * As the Khronos Data Format Specification's "S3TC Compressed Texture
 * Image Formats" and "RGTC Compressed Texture Image Formats" define them:
 * little-endian fields, texel i = x + 4 * y of the 4x4 block.  BC1 colour
 * endpoints are RGB565 expanded to [0, 1]; the interpolated colours and
 * values are computed exactly here (choice: the hardware's rounding of
 * the interpolants is unknown; the specification allows an
 * implementation's own within a small error).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "agx-texfmt.h"

static uint64_t le_bits(const uint8_t *p, unsigned start, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        unsigned b = start + i;

        v |= (uint64_t)((p[b / 8] >> (b % 8)) & 1) << i;
    }
    return v;
}

static void rgb565(unsigned v, double c[3])
{
    c[0] = (v >> 11) / 31.0;
    c[1] = ((v >> 5) & 63) / 63.0;
    c[2] = (v & 31) / 31.0;
}

/*
 * The colour of texel @i of a BC1-style colour block @b (8 bytes): two
 * RGB565 endpoints, then 2-bit indices.  BC1 has a 3-colour mode with
 * transparent black when endpoint 0 <= endpoint 1; BC2 and BC3 always
 * interpolate four colours (@four).
 */
static void colour_block(const uint8_t *b, bool four, unsigned i,
                         double rgba[4])
{
    unsigned c0 = le_bits(b, 0, 16), c1 = le_bits(b, 16, 16);
    unsigned idx = le_bits(b, 32 + 2 * i, 2);
    double e0[3], e1[3];

    rgb565(c0, e0);
    rgb565(c1, e1);
    rgba[3] = 1;
    for (int c = 0; c < 3; c++) {
        switch (idx) {
        case 0:
            rgba[c] = e0[c];
            break;
        case 1:
            rgba[c] = e1[c];
            break;
        case 2:
            rgba[c] = four || c0 > c1 ? (2 * e0[c] + e1[c]) / 3
                                      : (e0[c] + e1[c]) / 2;
            break;
        default:
            if (four || c0 > c1) {
                rgba[c] = (e0[c] + 2 * e1[c]) / 3;
            } else {
                rgba[c] = 0;
                rgba[3] = 0;
            }
            break;
        }
    }
}

/*
 * Value @i of a BC3 alpha / BC4 / BC5 channel block (8 bytes): two 8-bit
 * endpoints (signed for the snorm variants), then 3-bit indices.  Eight
 * interpolated values when endpoint 0 > endpoint 1, else six and the
 * range's ends.  Signed: -128 reads as -127 (both -1.0).
 */
static double channel_block(const uint8_t *b, bool is_signed, unsigned i)
{
    int r0 = is_signed ? (int8_t)b[0] : b[0];
    int r1 = is_signed ? (int8_t)b[1] : b[1];
    unsigned idx = le_bits(b, 16 + 3 * i, 3);
    double scale = is_signed ? 127.0 : 255.0;
    double lo = is_signed ? -1.0 : 0.0, v;

    if (idx == 0) {
        v = r0;
    } else if (idx == 1) {
        v = r1;
    } else if (r0 > r1) {
        v = ((8 - idx) * r0 + (idx - 1) * (double)r1) / 7;
    } else if (idx < 6) {
        v = ((6 - idx) * r0 + (idx - 1) * (double)r1) / 5;
    } else {
        return idx == 6 ? lo : 1.0;
    }
    v /= scale;
    return v < lo ? lo : v;
}

void agx_texfmt_bc_decode(unsigned channels, bool is_signed,
                          const uint8_t *block, unsigned x, unsigned y,
                          double rgba[4])
{
    unsigned i = (x & 3) + 4 * (y & 3);

    rgba[0] = rgba[1] = rgba[2] = 0;
    rgba[3] = 1;
    switch (channels) {
    case AGX_TEXFMT_BC1:
        colour_block(block, false, i, rgba);
        break;
    case AGX_TEXFMT_BC2:
        /* 4-bit explicit alpha, then the colour block */
        colour_block(block + 8, true, i, rgba);
        rgba[3] = le_bits(block, 4 * i, 4) / 15.0;
        break;
    case AGX_TEXFMT_BC3:
        colour_block(block + 8, true, i, rgba);
        rgba[3] = channel_block(block, false, i);
        break;
    case AGX_TEXFMT_BC4:
        rgba[0] = channel_block(block, is_signed, i);
        break;
    case AGX_TEXFMT_BC5:
        rgba[0] = channel_block(block, is_signed, i);
        rgba[1] = channel_block(block + 8, is_signed, i);
        break;
    default:
        break;
    }
}
