/*
 * AGX texture sampler: BC6H and BC7 (BPTC) blocks
 *
 * As the Khronos Data Format Specification's "BPTC Compressed Texture
 * Image Formats" defines them: 128-bit little-endian blocks, texel
 * i = x + 4 * y; the mode in the low bits, then partition, endpoints,
 * P-bits and indices; anchor texels store one index bit less.  The
 * partition and anchor tables and BC6H's per-mode field layouts below are
 * the specification's tables (transcribed by a script and checked
 * against its bit-by-bit interpretation tables, not typed in); both
 * formats' values are bit-exact there (8-bit BC7 channels, half-float
 * BC6H ones).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include "agx-texfmt.h"

/* Subset of each texel, 2 bits per texel from texel 0 up */
static const uint32_t partition2[64] = {
    0x50505050, 0x40404040, 0x54545454, 0x54505040, 0x50404000, 0x55545450,
    0x55545040, 0x54504000, 0x50400000, 0x55555450, 0x55544000, 0x54400000,
    0x55555440, 0x55550000, 0x55555500, 0x55000000, 0x55150100, 0x00004054,
    0x15010000, 0x00405054, 0x00004050, 0x15050100, 0x05010000, 0x40505054,
    0x00404050, 0x05010100, 0x14141414, 0x05141450, 0x01155440, 0x00555500,
    0x15014054, 0x05414150, 0x44444444, 0x55005500, 0x11441144, 0x05055050,
    0x05500550, 0x11114444, 0x41144114, 0x44111144, 0x15055054, 0x01055040,
    0x05041050, 0x05455150, 0x14414114, 0x50050550, 0x41411414, 0x00141400,
    0x00041504, 0x00105410, 0x10541000, 0x04150400, 0x50410514, 0x41051450,
    0x05415014, 0x14054150, 0x41050514, 0x41505014, 0x40011554, 0x54150140,
    0x50505500, 0x00555050, 0x15151010, 0x54540404,
};

static const uint32_t partition3[64] = {
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050,
    0x5555a0a0, 0x5a5a5050, 0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090,
    0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250, 0xa5945040, 0x0a425054,
    0xa5a5a500, 0x55a0a0a0, 0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
    0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, 0xa08585a0, 0xaa821414,
    0x50a4a450, 0x6a5a0200, 0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424,
    0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50, 0x500aa550, 0xaaaa4444,
    0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
    0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580,
    0xaa141414, 0x96960000, 0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000,
    0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254,
};

/* Anchor texels: the second subset's of 2, the second and third of 3 */
static const uint8_t anchor2[64] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2, 8,
    2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2, 15, 15, 6, 8, 2, 8, 15, 15, 2, 8,
    2, 2, 2, 15, 15, 6, 6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2,
    15,
};

static const uint8_t anchor3_2[64] = {
    3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3, 3, 3, 8, 15, 3, 3, 6,
    10, 5, 8, 8, 6, 8, 5, 15, 15, 8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5,
    15, 15, 15, 15, 3, 15, 5, 5, 5, 8, 5, 10, 5, 10, 8, 13, 15, 12, 3, 3,
};

static const uint8_t anchor3_3[64] = {
    15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8, 15, 8, 15, 3,
    15, 8, 15, 8, 3, 15, 6, 10, 15, 15, 10, 8, 15, 3, 15, 10, 10, 8, 9, 10,
    6, 15, 8, 15, 3, 6, 6, 8, 15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    3, 15, 15, 8,
};

static unsigned get(const uint8_t *b, unsigned *pos, unsigned n)
{
    unsigned v = 0;

    for (unsigned k = 0; k < n && *pos < 128; k++, (*pos)++) {
        v |= ((b[*pos / 8] >> (*pos % 8)) & 1u) << k;
    }
    return v;
}

/* Interpolation weights (of 64) for 2-, 3- and 4-bit indices */
static const uint8_t weights2[4] = { 0, 21, 43, 64 };
static const uint8_t weights3[8] = { 0, 9, 18, 27, 37, 46, 55, 64 };
static const uint8_t weights4[16] = {
    0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64,
};

static unsigned weight(unsigned bits, unsigned idx)
{
    return bits == 2 ? weights2[idx & 3] : bits == 3 ? weights3[idx & 7]
                                                     : weights4[idx & 15];
}

/* Texel @i's subset and whether it is an anchor (one index bit less) */
static unsigned subset_of(unsigned ns, unsigned part, unsigned i,
                          bool *anchor)
{
    unsigned s = 0;

    *anchor = i == 0;
    if (ns == 2) {
        s = (partition2[part] >> (2 * i)) & 3;
        *anchor |= i == anchor2[part];
    } else if (ns == 3) {
        s = (partition3[part] >> (2 * i)) & 3;
        *anchor |= i == anchor3_2[part] || i == anchor3_3[part];
    }
    return s;
}

/*
 * The index of texel @i among 16 indices of @bits bits from *pos
 * (anchors one bit less); *pos ends after all of them
 */
static unsigned read_index(const uint8_t *b, unsigned *pos, unsigned ns,
                           unsigned part, unsigned bits, unsigned i)
{
    unsigned idx = 0;

    for (unsigned t = 0; t < 16; t++) {
        bool anchor;
        unsigned v;

        subset_of(ns, part, t, &anchor);
        v = get(b, pos, bits - anchor);
        if (t == i) {
            idx = v;
        }
    }
    return idx;
}

/*
 * BC7 modes: subsets, partition, rotation and index selection bits,
 * colour and alpha bits, per-endpoint and shared P-bits, index bits
 */
typedef struct Bc7Mode {
    uint8_t ns, pb, rb, isb, cb, ab, epb, spb, ib, ib2;
} Bc7Mode;

static const Bc7Mode bc7_modes[8] = {
    { 3, 4, 0, 0, 4, 0, 1, 0, 3, 0 },
    { 2, 6, 0, 0, 6, 0, 0, 1, 3, 0 },
    { 3, 6, 0, 0, 5, 0, 0, 0, 2, 0 },
    { 2, 6, 0, 0, 7, 0, 1, 0, 2, 0 },
    { 1, 0, 2, 1, 5, 6, 0, 0, 2, 3 },
    { 1, 0, 2, 0, 7, 8, 0, 0, 2, 2 },
    { 1, 0, 0, 0, 7, 7, 1, 0, 4, 0 },
    { 2, 6, 0, 0, 5, 5, 1, 0, 2, 0 },
};

static void bc7_decode(const uint8_t *b, unsigned i, double rgba[4])
{
    const Bc7Mode *m;
    unsigned mode = 0, pos, part, rot, isb, s, idx1, idx2 = 0;
    unsigned ep[3][2][4], p[3][2] = { { 0 } }, out[4];
    bool anchor;

    while (mode < 8 && !((b[0] >> mode) & 1)) {
        mode++;
    }
    if (mode == 8) {
        /* the reserved mode: every channel 0 */
        rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
        return;
    }
    m = &bc7_modes[mode];
    pos = mode + 1;
    part = get(b, &pos, m->pb);
    rot = get(b, &pos, m->rb);
    isb = get(b, &pos, m->isb);
    for (unsigned c = 0; c < 4; c++) {
        unsigned n = c < 3 ? m->cb : m->ab;

        for (unsigned e = 0; e < 2 * m->ns; e++) {
            ep[e / 2][e % 2][c] = n ? get(b, &pos, n) : 255;
        }
    }
    for (unsigned e = 0; e < 2 * m->ns && m->epb; e++) {
        p[e / 2][e % 2] = get(b, &pos, 1);
    }
    for (unsigned k = 0; k < m->ns && m->spb; k++) {
        p[k][0] = p[k][1] = get(b, &pos, 1);
    }
    /* P-bits below the stored bits, then the top bits replicated */
    for (unsigned e = 0; e < 2 * m->ns; e++) {
        for (unsigned c = 0; c < 4; c++) {
            unsigned n = c < 3 ? m->cb : m->ab;
            unsigned v = ep[e / 2][e % 2][c];

            if (!n) {
                continue;
            }
            if (m->epb || m->spb) {
                v = v << 1 | p[e / 2][e % 2];
                n++;
            }
            ep[e / 2][e % 2][c] = (v << (8 - n) | v >> (2 * n - 8)) & 255;
        }
    }
    s = subset_of(m->ns, part, i, &anchor);
    idx1 = read_index(b, &pos, m->ns, part, m->ib, i);
    if (m->ib2) {
        idx2 = read_index(b, &pos, 1, 0, m->ib2, i);
    }
    for (unsigned c = 0; c < 4; c++) {
        bool second = c < 3 ? isb : m->ib2 && !isb;
        unsigned w = second ? weight(m->ib2, idx2) : weight(m->ib, idx1);

        out[c] = ((64 - w) * ep[s][0][c] + w * ep[s][1][c] + 32) >> 6;
    }
    if (rot) {
        unsigned t = out[3];

        out[3] = out[rot - 1];
        out[rot - 1] = t;
    }
    for (unsigned c = 0; c < 4; c++) {
        rgba[c] = out[c] / 255.0;
    }
}

/*
 * BC6H: each mode's fields after the mode bits, in block order: variable
 * (R0 G0 B0 R1 G1 B1 R2 G2 B2 R3 G3 B3, then 12: the partition), its
 * lowest bit, the bit count, and whether the block's first bit is the
 * variable's highest (the specification's reversed ranges)
 */
typedef struct Bc6Run {
    uint8_t var, lo, n, rev;
} Bc6Run;

static const Bc6Run bc6_mode0[] = {
    { 7, 4, 1, 0 }, { 8, 4, 1, 0 }, { 11, 4, 1, 0 }, { 0, 0, 10, 0 },
    { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 5, 0 }, { 10, 4, 1, 0 },
    { 7, 0, 4, 0 }, { 4, 0, 5, 0 }, { 11, 0, 1, 0 }, { 10, 0, 4, 0 },
    { 5, 0, 5, 0 }, { 11, 1, 1, 0 }, { 8, 0, 4, 0 }, { 6, 0, 5, 0 },
    { 11, 2, 1, 0 }, { 9, 0, 5, 0 }, { 11, 3, 1, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode1[] = {
    { 7, 5, 1, 0 }, { 10, 4, 1, 0 }, { 10, 5, 1, 0 }, { 0, 0, 7, 0 },
    { 11, 0, 1, 0 }, { 11, 1, 1, 0 }, { 8, 4, 1, 0 }, { 1, 0, 7, 0 },
    { 8, 5, 1, 0 }, { 11, 2, 1, 0 }, { 7, 4, 1, 0 }, { 2, 0, 7, 0 },
    { 11, 3, 1, 0 }, { 11, 5, 1, 0 }, { 11, 4, 1, 0 }, { 3, 0, 6, 0 },
    { 7, 0, 4, 0 }, { 4, 0, 6, 0 }, { 10, 0, 4, 0 }, { 5, 0, 6, 0 },
    { 8, 0, 4, 0 }, { 6, 0, 6, 0 }, { 9, 0, 6, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode2[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 5, 0 },
    { 0, 10, 1, 0 }, { 7, 0, 4, 0 }, { 4, 0, 4, 0 }, { 1, 10, 1, 0 },
    { 11, 0, 1, 0 }, { 10, 0, 4, 0 }, { 5, 0, 4, 0 }, { 2, 10, 1, 0 },
    { 11, 1, 1, 0 }, { 8, 0, 4, 0 }, { 6, 0, 5, 0 }, { 11, 2, 1, 0 },
    { 9, 0, 5, 0 }, { 11, 3, 1, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode6[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 4, 0 },
    { 0, 10, 1, 0 }, { 10, 4, 1, 0 }, { 7, 0, 4, 0 }, { 4, 0, 5, 0 },
    { 1, 10, 1, 0 }, { 10, 0, 4, 0 }, { 5, 0, 4, 0 }, { 2, 10, 1, 0 },
    { 11, 1, 1, 0 }, { 8, 0, 4, 0 }, { 6, 0, 4, 0 }, { 11, 0, 1, 0 },
    { 11, 2, 1, 0 }, { 9, 0, 4, 0 }, { 7, 4, 1, 0 }, { 11, 3, 1, 0 },
    { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode10[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 4, 0 },
    { 0, 10, 1, 0 }, { 8, 4, 1, 0 }, { 7, 0, 4, 0 }, { 4, 0, 4, 0 },
    { 1, 10, 1, 0 }, { 11, 0, 1, 0 }, { 10, 0, 4, 0 }, { 5, 0, 5, 0 },
    { 2, 10, 1, 0 }, { 8, 0, 4, 0 }, { 6, 0, 4, 0 }, { 11, 1, 1, 0 },
    { 11, 2, 1, 0 }, { 9, 0, 4, 0 }, { 11, 4, 1, 0 }, { 11, 3, 1, 0 },
    { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode14[] = {
    { 0, 0, 9, 0 }, { 8, 4, 1, 0 }, { 1, 0, 9, 0 }, { 7, 4, 1, 0 },
    { 2, 0, 9, 0 }, { 11, 4, 1, 0 }, { 3, 0, 5, 0 }, { 10, 4, 1, 0 },
    { 7, 0, 4, 0 }, { 4, 0, 5, 0 }, { 11, 0, 1, 0 }, { 10, 0, 4, 0 },
    { 5, 0, 5, 0 }, { 11, 1, 1, 0 }, { 8, 0, 4, 0 }, { 6, 0, 5, 0 },
    { 11, 2, 1, 0 }, { 9, 0, 5, 0 }, { 11, 3, 1, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode18[] = {
    { 0, 0, 8, 0 }, { 10, 4, 1, 0 }, { 8, 4, 1, 0 }, { 1, 0, 8, 0 },
    { 11, 2, 1, 0 }, { 7, 4, 1, 0 }, { 2, 0, 8, 0 }, { 11, 3, 1, 0 },
    { 11, 4, 1, 0 }, { 3, 0, 6, 0 }, { 7, 0, 4, 0 }, { 4, 0, 5, 0 },
    { 11, 0, 1, 0 }, { 10, 0, 4, 0 }, { 5, 0, 5, 0 }, { 11, 1, 1, 0 },
    { 8, 0, 4, 0 }, { 6, 0, 6, 0 }, { 9, 0, 6, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode22[] = {
    { 0, 0, 8, 0 }, { 11, 0, 1, 0 }, { 8, 4, 1, 0 }, { 1, 0, 8, 0 },
    { 7, 5, 1, 0 }, { 7, 4, 1, 0 }, { 2, 0, 8, 0 }, { 10, 5, 1, 0 },
    { 11, 4, 1, 0 }, { 3, 0, 5, 0 }, { 10, 4, 1, 0 }, { 7, 0, 4, 0 },
    { 4, 0, 6, 0 }, { 10, 0, 4, 0 }, { 5, 0, 5, 0 }, { 11, 1, 1, 0 },
    { 8, 0, 4, 0 }, { 6, 0, 5, 0 }, { 11, 2, 1, 0 }, { 9, 0, 5, 0 },
    { 11, 3, 1, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode26[] = {
    { 0, 0, 8, 0 }, { 11, 1, 1, 0 }, { 8, 4, 1, 0 }, { 1, 0, 8, 0 },
    { 8, 5, 1, 0 }, { 7, 4, 1, 0 }, { 2, 0, 8, 0 }, { 11, 5, 1, 0 },
    { 11, 4, 1, 0 }, { 3, 0, 5, 0 }, { 10, 4, 1, 0 }, { 7, 0, 4, 0 },
    { 4, 0, 5, 0 }, { 11, 0, 1, 0 }, { 10, 0, 4, 0 }, { 5, 0, 6, 0 },
    { 8, 0, 4, 0 }, { 6, 0, 5, 0 }, { 11, 2, 1, 0 }, { 9, 0, 5, 0 },
    { 11, 3, 1, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode30[] = {
    { 0, 0, 6, 0 }, { 10, 4, 1, 0 }, { 11, 0, 1, 0 }, { 11, 1, 1, 0 },
    { 8, 4, 1, 0 }, { 1, 0, 6, 0 }, { 7, 5, 1, 0 }, { 8, 5, 1, 0 },
    { 11, 2, 1, 0 }, { 7, 4, 1, 0 }, { 2, 0, 6, 0 }, { 10, 5, 1, 0 },
    { 11, 3, 1, 0 }, { 11, 5, 1, 0 }, { 11, 4, 1, 0 }, { 3, 0, 6, 0 },
    { 7, 0, 4, 0 }, { 4, 0, 6, 0 }, { 10, 0, 4, 0 }, { 5, 0, 6, 0 },
    { 8, 0, 4, 0 }, { 6, 0, 6, 0 }, { 9, 0, 6, 0 }, { 12, 0, 5, 0 },
};
static const Bc6Run bc6_mode3[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 10, 0 },
    { 4, 0, 10, 0 }, { 5, 0, 10, 0 },
};
static const Bc6Run bc6_mode7[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 9, 0 },
    { 0, 10, 1, 0 }, { 4, 0, 9, 0 }, { 1, 10, 1, 0 }, { 5, 0, 9, 0 },
    { 2, 10, 1, 0 },
};
static const Bc6Run bc6_mode11[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 8, 0 },
    { 0, 10, 2, 1 }, { 4, 0, 8, 0 }, { 1, 10, 2, 1 }, { 5, 0, 8, 0 },
    { 2, 10, 2, 1 },
};
static const Bc6Run bc6_mode15[] = {
    { 0, 0, 10, 0 }, { 1, 0, 10, 0 }, { 2, 0, 10, 0 }, { 3, 0, 4, 0 },
    { 0, 10, 6, 1 }, { 4, 0, 4, 0 }, { 1, 10, 6, 1 }, { 5, 0, 4, 0 },
    { 2, 10, 6, 1 },
};

/*
 * BC6H modes: number, transformed endpoints, partition bits, endpoint
 * bits, delta bits per channel, fields
 */
typedef struct Bc6Mode {
    uint8_t mode;
    bool transformed;
    uint8_t pb, epb, delta[3];
    const Bc6Run *runs;
    unsigned nruns;
} Bc6Mode;

#define BC6_MODE(m, t, p, e, dr, dg, db) \
    { m, t, p, e, { dr, dg, db }, bc6_mode##m, G_N_ELEMENTS(bc6_mode##m) }

static const Bc6Mode bc6_modes[14] = {
    BC6_MODE(0, true, 5, 10, 5, 5, 5),
    BC6_MODE(1, true, 5, 7, 6, 6, 6),
    BC6_MODE(2, true, 5, 11, 5, 4, 4),
    BC6_MODE(6, true, 5, 11, 4, 5, 4),
    BC6_MODE(10, true, 5, 11, 4, 4, 5),
    BC6_MODE(14, true, 5, 9, 5, 5, 5),
    BC6_MODE(18, true, 5, 8, 6, 5, 5),
    BC6_MODE(22, true, 5, 8, 5, 6, 5),
    BC6_MODE(26, true, 5, 8, 5, 5, 6),
    BC6_MODE(30, false, 5, 6, 6, 6, 6),
    BC6_MODE(3, false, 0, 10, 10, 10, 10),
    BC6_MODE(7, true, 0, 11, 9, 9, 9),
    BC6_MODE(11, true, 0, 12, 8, 8, 8),
    BC6_MODE(15, true, 0, 16, 4, 4, 4),
};

static int sext(unsigned v, unsigned bits)
{
    return bits >= 32 ? (int)v : (int)(v << (32 - bits)) >> (32 - bits);
}

static int bc6_unquantize(int x, unsigned epb, bool sgn)
{
    int s = 0, unq;

    if (!sgn) {
        if (epb >= 15) {
            return x;
        }
        return !x ? 0 : x == (1 << epb) - 1 ? 0xffff
                                            : ((x << 15) + 0x4000) >> (epb - 1);
    }
    if (epb >= 16) {
        return x;
    }
    if (x < 0) {
        s = 1;
        x = -x;
    }
    if (!x) {
        unq = 0;
    } else if (x >= (1 << (epb - 1)) - 1) {
        unq = 0x7fff;
    } else {
        unq = ((x << 15) + 0x4000) >> (epb - 1);
    }
    return s ? -unq : unq;
}

static void bc6_decode(const uint8_t *b, bool sgn, unsigned i, double rgba[4])
{
    const Bc6Mode *m = NULL;
    unsigned mode = b[0] & 3, pos, v[13] = { 0 }, ns, s, bits, idx;
    int e[4][3];
    bool anchor;

    if (mode >= 2) {
        mode = b[0] & 31;
    }
    for (unsigned k = 0; k < G_N_ELEMENTS(bc6_modes); k++) {
        if (bc6_modes[k].mode == mode) {
            m = &bc6_modes[k];
        }
    }
    rgba[3] = 1;
    if (!m) {
        /* reserved modes 19, 23, 27, 31 */
        rgba[0] = rgba[1] = rgba[2] = 0;
        return;
    }
    pos = mode < 2 ? 2 : 5;
    for (unsigned r = 0; r < m->nruns; r++) {
        const Bc6Run *run = &m->runs[r];

        for (unsigned k = 0; k < run->n; k++) {
            unsigned at = run->rev ? run->lo + run->n - 1 - k : run->lo + k;

            v[run->var] |= get(b, &pos, 1) << at;
        }
    }
    ns = m->pb ? 2 : 1;
    for (unsigned k = 0; k < 2 * ns; k++) {
        for (unsigned c = 0; c < 3; c++) {
            unsigned raw = v[3 * k + c];

            if (k == 0) {
                e[k][c] = sgn ? sext(raw, m->epb) : (int)raw;
            } else if (m->transformed) {
                /*
                 * a signed delta from endpoint 0, the sum wrapped to the
                 * endpoint bits
                 */
                raw = (sext(raw, m->delta[c]) + v[c]) & ((1u << m->epb) - 1);
                e[k][c] = sgn ? sext(raw, m->epb) : (int)raw;
            } else {
                e[k][c] = sgn ? sext(raw, m->epb) : (int)raw;
            }
            e[k][c] = bc6_unquantize(e[k][c], m->epb, sgn);
        }
    }
    s = subset_of(ns, v[12], i, &anchor);
    pos = ns == 2 ? 82 : 65;
    bits = ns == 2 ? 3 : 4;
    idx = read_index(b, &pos, ns, v[12], bits, i);
    for (unsigned c = 0; c < 3; c++) {
        int w = weight(bits, idx);
        int x = ((64 - w) * e[2 * s][c] + w * e[2 * s + 1][c] + 32) >> 6;
        unsigned h;

        if (sgn) {
            h = x < 0 ? ((((unsigned)-x) * 31) >> 5) | 0x8000
                      : ((unsigned)x * 31) >> 5;
        } else {
            h = ((unsigned)x * 31) >> 6;
        }
        rgba[c] = agx_texfmt_half(h & 0xffff);
    }
}

void agx_texfmt_bptc_decode(unsigned channels, const uint8_t *block,
                            unsigned x, unsigned y, double rgba[4])
{
    unsigned i = (x & 3) + 4 * (y & 3);

    if (channels == AGX_TEXFMT_BC7) {
        bc7_decode(block, i, rgba);
    } else {
        bc6_decode(block, channels == AGX_TEXFMT_BC6H, i, rgba);
    }
}
