/*
 * AGX texture sampler: the block-compressed formats' blocks, and the
 * dispatch to each family's decoder
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-texfmt.h"

double agx_texfmt_half(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY)
             : e ? ldexp(m + 1024, (int)e - 25) : ldexp(m, -24);

    return h & 0x8000 ? -v : v;
}

bool agx_texfmt_block(unsigned channels, unsigned *bw, unsigned *bh,
                      unsigned *bytes)
{
    *bw = *bh = 4;
    if (channels >= AGX_TEXFMT_ASTC_FIRST &&
        channels <= AGX_TEXFMT_ASTC_LAST) {
        agx_texfmt_astc_footprint(channels, bw, bh);
        *bytes = 16;
        return true;
    }
    switch (channels) {
    case AGX_TEXFMT_BC1:
    case AGX_TEXFMT_BC4:
    case AGX_TEXFMT_ETC2_RGB8:
    case AGX_TEXFMT_ETC2_RGB8A1:
    case AGX_TEXFMT_EAC_R11:
        *bytes = 8;
        return true;
    case AGX_TEXFMT_BC2:
    case AGX_TEXFMT_BC3:
    case AGX_TEXFMT_BC5:
    case AGX_TEXFMT_ETC2_RGBA8:
    case AGX_TEXFMT_EAC_RG11:
    case AGX_TEXFMT_BC6H:
    case AGX_TEXFMT_BC6H_UF:
    case AGX_TEXFMT_BC7:
        *bytes = 16;
        return true;
    default:
        return false;
    }
}

void agx_texfmt_decode(unsigned channels, unsigned flags,
                       const uint8_t *block, unsigned x, unsigned y,
                       double rgba[4])
{
    bool is_signed = flags & AGX_TEXFMT_SIGNED;

    if (channels >= AGX_TEXFMT_ASTC_FIRST &&
        channels <= AGX_TEXFMT_ASTC_LAST) {
        agx_texfmt_astc_decode(channels, flags & AGX_TEXFMT_SRGB,
                               flags & AGX_TEXFMT_HDR, block, x % 12, y % 12,
                               rgba);
    } else if (channels >= AGX_TEXFMT_BC6H) {
        agx_texfmt_bptc_decode(channels, block, x, y, rgba);
    } else if (channels >= AGX_TEXFMT_BC1) {
        agx_texfmt_bc_decode(channels, is_signed, block, x, y, rgba);
    } else {
        agx_texfmt_etc_decode(channels, is_signed, block, x, y, rgba);
    }
}
