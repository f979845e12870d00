/*
 * AGX USC interpreter: texture sampling (texture_sample)
 *
 * The instruction as Mesa's agx_pack.c emits it and agx_compile.c /
 * agx_nir_lower_texture.c feed it: 32-bit float coordinates (then, for
 * arrays, an integer layer), an LOD operand whose meaning the LOD mode
 * gives, the texture (state register or bindless), the sampler (state
 * register or sampler heap), a shadow reference and packed texel offsets.
 * The Sampler descriptor is genxml/cmdbuf.xml's "Sampler" (8 bytes, plus a
 * 16-byte "Border" in extended sampler state registers).
 *
 * Filtering follows the Vulkan specification's texel filtering rules
 * (wrap on integer texel coordinates, bilinear and trilinear weights,
 * LOD selection); what the sources leave open is marked "choice".
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include "agx-usc-exec.h"

/* LOD modes (Mesa agx_compiler.h enum agx_lod_mode) */
enum {
    LOD_AUTO = 0,
    LOD_AUTO_BIAS_UNI = 1,
    LOD_MIN_UNI = 2,
    LOD_GRAD = 4,
    LOD_AUTO_BIAS = 5,
    LOD_MIN = 6,
    LOD_AUTO_BIAS_MIN_UNI = 9,
    LOD_GRAD_MIN = 12,
    LOD_AUTO_BIAS_MIN = 13,
};

/* Wrap (cmdbuf.xml enum Wrap) */
enum {
    WRAP_CLAMP_EDGE, WRAP_REPEAT, WRAP_MIRROR, WRAP_BORDER, WRAP_CLAMP_GL,
    WRAP_MIRROR_CLAMP_EDGE,
    WRAP_NONE = 8,              /* the interpreter's: cube seams */
};

/* Hardware-indexed samplers from here on are the sampler heap's entries */
#define SAMPLER_HEAP_FIRST  28
#define SAMPLER_SIZE        8
#define BORDER_SIZE         16
/* hk's subTexelPrecisionBits and mipmapPrecisionBits (both 8) */
#define WEIGHT_ONE          256.0

typedef struct Sampler {
    double min_lod, max_lod;
    unsigned max_aniso;         /* 1, 2, 4, 8, 16 */
    unsigned mag, min, mip;
    unsigned wrap[3];
    bool pixel_coords, compare, seamful;
    unsigned func, border;
    uint32_t border_words[4];
} Sampler;

static uint64_t bits(const uint8_t *d, unsigned start, unsigned width)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < width; i++) {
        unsigned b = start + i;

        v |= (uint64_t)((d[b / 8] >> (b % 8)) & 1) << i;
    }
    return v;
}

static void sampler_parse(const uint8_t *d, Sampler *smp)
{
    /* LODs are 4:6 fixed point (agx_pack_header.h __gen_unpack_lod) */
    smp->min_lod = bits(d, 0, 10) / 64.0;
    smp->max_lod = bits(d, 10, 10) / 64.0;
    /* Maximum anisotropy: log2 (cmdbuf.xml; Mesa writes 1..16) */
    smp->max_aniso = 1u << MIN(bits(d, 20, 3), 4);
    smp->mag = bits(d, 23, 2);
    smp->min = bits(d, 25, 2);
    smp->mip = bits(d, 27, 2);
    for (int i = 0; i < 3; i++) {
        smp->wrap[i] = bits(d, 29 + 3 * i, 3);
    }
    smp->pixel_coords = bits(d, 38, 1);
    smp->func = bits(d, 39, 3);
    smp->compare = bits(d, 42, 1);
    smp->border = bits(d, 55, 2);
    smp->seamful = bits(d, 57, 1);
}

/*
 * Lane @l's sampler: below SAMPLER_HEAP_FIRST a sampler state register
 * (the launch's, or what sampler_state_store put there), from it on entry
 * index - 28 of the command's sampler heap ("All bindless samplers are
 * indexed from 28 in hardware", Mesa hk_descriptor_set.c).  A custom
 * border colour is read after the state register's descriptor (Gallium's
 * extended sampler states, agx_state.c agx_upload_samplers); heap entries
 * are 8 bytes, so theirs read as transparent black (hk applies custom
 * borders in the shader).
 */
static AgxUscStatus sampler_get(Ctx *c, Simd *s, const AgxUscInsn *insn,
                                int l, uint64_t *last, Sampler *smp)
{
    AgxUscStatus st = AGX_USC_OK;
    unsigned idx = insn->f[AGX_USC_F_S];
    const uint64_t *ss = c->sampler_state ? c->sampler_state
                                          : c->l->sampler_state_va;
    uint8_t d[SAMPLER_SIZE];
    bool heap;
    uint64_t va;

    if (insn->f[AGX_USC_F_ST]) {
        idx = get_half(s, idx, l);
    }
    heap = idx >= SAMPLER_HEAP_FIRST;
    va = heap ? c->l->sampler_heap_va +
                (uint64_t)(idx - SAMPLER_HEAP_FIRST) * SAMPLER_SIZE
              : ss[idx];
    if (va == *last) {
        return AGX_USC_OK;
    }
    usc_mem_read(c, insn, va, d, sizeof(d), &st);
    if (st != AGX_USC_OK) {
        return st;
    }
    sampler_parse(d, smp);
    memset(smp->border_words, 0, sizeof(smp->border_words));
    if (smp->border == 3 && !heap) {
        usc_mem_read(c, insn, va + SAMPLER_SIZE, smp->border_words,
                     BORDER_SIZE, &st);
        if (st != AGX_USC_OK) {
            return st;
        }
    } else if (smp->border == 3) {
        smp->border = 0;
    }
    *last = va;
    return AGX_USC_OK;
}

/* --- coordinates ---------------------------------------------------------- */

static bool dim_is_cube(unsigned dim)
{
    return dim == 6 || dim == 7;
}

/* Float coordinates the instruction reads before the layer, if any */
static unsigned float_coords(unsigned dim)
{
    static const uint8_t n[9] = { 1, 1, 2, 2, 2, 3, 3, 3, 2 };

    return n[dim];
}

static bool dim_is_array(unsigned dim)
{
    return dim == 1 || dim == 3 || dim == 7 || dim == 8;
}

static float lane_f32(Simd *s, unsigned reg, int l)
{
    uint32_t b = row(s, reg)[l];

    if (!(b & 0x7f800000)) {
        b &= 0x80000000;        /* f32 denormals flush on input */
    }
    return apple_bits_f32(b);
}

static void face_st(const double dir[3], unsigned face, double st[2]);

/*
 * Cube map face selection (Vulkan "Cube Map Face Selection"): the major
 * axis, ties broken towards z, then y (choice: the specification leaves
 * ties to the implementation); @st gets the face's (s, t) in [0, 1]
 */
static unsigned cube_face(const double dir[3], double st[2])
{
    double ax = fabs(dir[0]), ay = fabs(dir[1]), az = fabs(dir[2]);
    unsigned face;

    if (az >= ax && az >= ay) {
        face = dir[2] >= 0 ? 4 : 5;
    } else if (ay >= ax) {
        face = dir[1] >= 0 ? 2 : 3;
    } else {
        face = dir[0] >= 0 ? 0 : 1;
    }
    face_st(dir, face, st);
    return face;
}

/*
 * Lane @l's normalized coordinates (u, v, w) and cube face; inactive lanes
 * too (their values take part in a quad's derivatives, as for dfdx)
 */
static unsigned lane_coords(Simd *s, unsigned cr, unsigned dim, int l,
                            double uvw[3])
{
    unsigned n = float_coords(dim);
    double dir[3] = { 0, 0, 0 };

    for (unsigned i = 0; i < n; i++) {
        dir[i] = lane_f32(s, cr + i, l);
    }
    if (dim_is_cube(dim)) {
        unsigned face = cube_face(dir, uvw);

        uvw[2] = 0;
        return face;
    }
    memcpy(uvw, dir, sizeof(dir));
    return 0;
}

/* --- levels of detail ----------------------------------------------------- */

static uint32_t minify(uint32_t v, unsigned level)
{
    return level >= 32 || !(v >> level) ? 1 : v >> level;
}

/* The base level's size along each axis (3D: its depth; else 1) */
static void base_size(const AgxImage *img, unsigned dim, double sz[3])
{
    sz[0] = minify(img->width, img->first_level);
    sz[1] = dim == 0 || dim == 1 ? 1 : minify(img->height, img->first_level);
    sz[2] = dim == 5 ? minify(img->layers, img->first_level) : 1;
}

/*
 * The derivatives of a lane's coordinates (normalized, or pixels), kept
 * for anisotropic filtering
 */
typedef struct Deriv {
    bool valid;
    double dx[3], dy[3];
} Deriv;

/*
 * The scale factor rho from derivatives of the normalized coordinates,
 * in base-level texels: the longer of the two gradient vectors (Vulkan's
 * isotropic rho; anisotropic filtering narrows it afterwards)
 */
static double rho_of(const double dx[3], const double dy[3], const double sz[3],
                     Deriv *dv)
{
    double x = 0, y = 0;

    dv->valid = true;
    memcpy(dv->dx, dx, sizeof(dv->dx));
    memcpy(dv->dy, dy, sizeof(dv->dy));
    for (int i = 0; i < 3; i++) {
        x += (dx[i] * sz[i]) * (dx[i] * sz[i]);
        y += (dy[i] * sz[i]) * (dy[i] * sz[i]);
    }
    return sqrt(MAX(x, y));
}

/*
 * Implicit derivatives: a quad is lanes 4k..4k+3 as a 2x2 block, rows
 * first, the same quads dfdx/dfdy use (agx-usc-alu.c); "fine"
 * differences.  This is the fragment pipe's hook: it places each quad's
 * four pixels (helper lanes included) in lanes 4k..4k+3 of the group it
 * hands to agx_usc_run_group().  In compute, Mesa never emits an implicit
 * LOD but for a level-zero texel fetch (nir_lower_tex
 * lower_invalid_implicit_lod turns the rest into explicit LOD 0), except
 * in shaders with derivative groups, whose quads are the same lanes.
 */
/*
 * The coordinates of the lanes of the quads an instruction's implicit
 * LODs took so far (@done: a bit per quad), when its results cannot
 * overwrite them (texture_sample writes each lane's result before the
 * next lane reads its quad)
 */
typedef struct QuadCoords {
    uint32_t done;
    double c[LANES][3];
} QuadCoords;

static double implicit_rho(Simd *s, unsigned cr, unsigned dim, int l,
                           const double sz[3], Deriv *dv, QuadCoords *qc)
{
    double c[4][3], dx[3], dy[3];
    int q = l & ~3;

    if (qc && !((qc->done >> (q / 4)) & 1)) {
        for (int i = 0; i < 4; i++) {
            lane_coords(s, cr, dim, q + i, qc->c[q + i]);
        }
        qc->done |= 1u << (q / 4);
    }
    for (int i = 0; i < 4; i++) {
        if (qc) {
            memcpy(c[i], qc->c[q + i], sizeof(c[i]));
        } else {
            lane_coords(s, cr, dim, q + i, c[i]);
        }
    }
    for (int i = 0; i < 3; i++) {
        dx[i] = c[(l & 2) | 1][i] - c[l & 2][i];
        dy[i] = c[2 | (l & 1)][i] - c[l & 1][i];
    }
    return rho_of(dx, dy, sz, dv);
}

/*
 * Cube faces +x, -x, +y, -y, +z, -z: s and t are ss * dir[sa] and
 * ts * dir[ta] over |dir[ma]| (Vulkan's face selection table)
 */
typedef struct CubeFace {
    int8_t sa, ss, ta, ts, ma;
} CubeFace;

static const CubeFace cube_faces[6] = {
    { 2, -1, 1, -1, 0 }, { 2, 1, 1, -1, 0 },
    { 0, 1, 2, 1, 1 }, { 0, 1, 2, -1, 1 },
    { 0, 1, 1, -1, 2 }, { 0, -1, 1, -1, 2 },
};

/* Project direction @dir on cube face @face: its (s, t) in [0, 1] */
static void face_st(const double dir[3], unsigned face, double st[2])
{
    const CubeFace *f = &cube_faces[face];
    double ma = fabs(dir[f->ma]);

    if (ma == 0 || isnan(ma)) {
        st[0] = st[1] = 0.5;
        return;
    }
    st[0] = 0.5 * (f->ss * dir[f->sa] / ma + 1);
    st[1] = 0.5 * (f->ts * dir[f->ta] / ma + 1);
}

/*
 * Seamless cube maps: a texel (x, y) off the edge of its face (layer
 * 6 cube + face) is the texel of the face the direction through its
 * centre reaches (Vulkan "Cube Map Edge Handling"; at a corner, where
 * the specification allows a blend of three texels, the one that
 * direction reaches: choice)
 */
static void cube_seam(int64_t xyz[3], int64_t n)
{
    unsigned face = xyz[2] % 6;
    const CubeFace *f = &cube_faces[face];
    double dir[3], st[2];
    unsigned to;

    if (xyz[0] >= 0 && xyz[0] < n && xyz[1] >= 0 && xyz[1] < n) {
        return;
    }
    dir[f->ma] = face & 1 ? -1 : 1;
    dir[f->sa] = f->ss * (2 * (xyz[0] + 0.5) / n - 1);
    dir[f->ta] = f->ts * (2 * (xyz[1] + 0.5) / n - 1);
    to = cube_face(dir, st);
    xyz[0] = MAX(0, MIN((int64_t)floor(st[0] * n), n - 1));
    xyz[1] = MAX(0, MIN((int64_t)floor(st[1] * n), n - 1));
    xyz[2] += (int64_t)to - face;
}

/*
 * Explicit gradients: per coordinate (d/dx, d/dy) as 32-bit floats from
 * register @dreg on; a cube's are the direction's, projected on the
 * lane's face by finite differences (choice)
 */
static double gradient_rho(Simd *s, unsigned cr, unsigned dreg,
                           unsigned dim, int l, const double sz[3],
                           Deriv *dv)
{
    unsigned n = float_coords(dim);
    double dx[3] = { 0, 0, 0 }, dy[3] = { 0, 0, 0 };

    for (unsigned i = 0; i < n; i++) {
        dx[i] = lane_f32(s, dreg + 2 * i, l);
        dy[i] = lane_f32(s, dreg + 2 * i + 1, l);
    }
    if (dim_is_cube(dim)) {
        double dir[3], px[3], py[3], st[2], sx[2], sy[2];
        unsigned face;

        for (unsigned i = 0; i < 3; i++) {
            dir[i] = lane_f32(s, cr + i, l);
            px[i] = dir[i] + dx[i];
            py[i] = dir[i] + dy[i];
        }
        face = cube_face(dir, st);
        face_st(px, face, sx);
        face_st(py, face, sy);
        for (unsigned i = 0; i < 2; i++) {
            dx[i] = sx[i] - st[i];
            dy[i] = sy[i] - st[i];
        }
        dx[2] = dy[2] = 0;
    }
    return rho_of(dx, dy, sz, dv);
}

/* --- texels ------------------------------------------------------------- */

/*
 * The texels an instruction fetched from memory, unpacked: the lanes of a
 * SIMD-group filter overlapping footprints (a bilinear quad shares most
 * of its texels with its neighbours').  The entries (@valid: a bit each)
 * are of the image the lanes read since the last one that took another
 * descriptor, and hold what fetch() computed for (level, x, y, z) while
 * the instruction had not faulted; nothing writes memory during a
 * texture_sample, so the same fetch gives the same texel again.
 */
#define TEXEL_CACHE_BITS    6

typedef struct TexelEntry {
    uint32_t level;
    int64_t xyz[3];
    uint32_t v[4];
} TexelEntry;

typedef struct TexelCache {
    uint64_t valid;
    TexelEntry e[1u << TEXEL_CACHE_BITS];
} TexelCache;

typedef struct Texels {
    Ctx *c;
    const AgxUscInsn *insn;
    const AgxImage *img;        /* with the identity swizzle */
    const Sampler *smp;
    bool is_int;
    AgxUscStatus st;
    TexelCache *cache;          /* NULL: every texel from memory */
} Texels;

/*
 * Wrap integer texel coordinate @x of an axis of @n texels; -1 selects
 * the border colour
 */
static int64_t wrap(int64_t x, int64_t n, unsigned mode)
{
    int64_t t;

    switch (mode) {
    case WRAP_REPEAT:
        t = x % n;
        return t < 0 ? t + n : t;
    case WRAP_MIRROR:
        t = x % (2 * n);
        t = t < 0 ? t + 2 * n : t;
        return t < n ? t : 2 * n - 1 - t;
    case WRAP_BORDER:
    case WRAP_CLAMP_GL:
        return x < 0 || x >= n ? -1 : x;
    case WRAP_MIRROR_CLAMP_EDGE:
        t = x < 0 ? -1 - x : x;
        return MIN(t, n - 1);
    case WRAP_NONE:
        return MAX(-1, MIN(x, n));
    default:    /* clamp to edge, and the undefined encodings 6 and 7 */
        return MAX(0, MIN(x, n - 1));
    }
}

/* Border colours before the swizzle, as the texel's channels */
static void border_texel(const Texels *t, uint32_t out[4])
{
    uint32_t one = t->is_int ? 1 : 0x3f800000;
    const AgxImage *img = t->img;

    switch (t->smp->border) {
    case 1:     /* opaque black */
        out[0] = out[1] = out[2] = 0;
        out[3] = one;
        return;
    case 2:     /* opaque white */
        out[0] = out[1] = out[2] = out[3] = one;
        return;
    case 3:
        break;
    default:    /* transparent black */
        out[0] = out[1] = out[2] = out[3] = 0;
        return;
    }
    /*
     * Custom: each channel encoded as the format stores it, in a 32-bit
     * word (Mesa agx_border.c): integers as they are, floats as f16 or
     * f32, normalized as usual but sRGB channels with 4 more bits
     */
    for (int i = 0; i < 4; i++) {
        uint32_t w = t->smp->border_words[i];
        unsigned n = img->bits[i];
        double x;

        if (!n) {
            out[i] = i == 3 ? one : 0;
            continue;
        }
        switch (img->type) {
        case 0:
            if (img->srgb && i < 3) {
                n += 4;
            }
            x = (w & ((1ull << n) - 1)) / (double)((1ull << n) - 1);
            out[i] = apple_f32_bits(x);
            break;
        case 1: {
            int64_t v = (int64_t)((uint64_t)w << (64 - n)) >> (64 - n);
            double m = (double)((1ull << (n - 1)) - 1);

            out[i] = apple_f32_bits(MAX(v, -(int64_t)m) / m);
            break;
        }
        case 4:
            out[i] = n <= 16 ? apple_f32_bits(usc_f16_to_f64(w)) : w;
            break;
        default:
            out[i] = w;
            break;
        }
    }
}

/* Texel (x, y, z) of @level (z: layer or 3D slice), unswizzled */
static void fetch(Texels *t, unsigned level, const int64_t xyz[3],
                  uint32_t out[4])
{
    uint8_t texel[16] = { 0 };
    TexelEntry *e = NULL;
    uint64_t va, hit = 0;

    if (xyz[0] < 0 || xyz[1] < 0 || xyz[2] < 0) {
        border_texel(t, out);
        return;
    }
    if (t->cache && t->st == AGX_USC_OK) {
        uint32_t h = ((uint32_t)xyz[0] * 0x9e3779b1u ^
                      (uint32_t)xyz[1] * 0x85ebca77u ^
                      (uint32_t)xyz[2] * 0xc2b2ae3du ^ level * 0x27d4eb2fu) >>
                     (32 - TEXEL_CACHE_BITS);

        hit = 1ull << h;
        e = &t->cache->e[h];
        if ((t->cache->valid & hit) && e->level == level &&
            e->xyz[0] == xyz[0] && e->xyz[1] == xyz[1] &&
            e->xyz[2] == xyz[2]) {
            memcpy(out, e->v, sizeof(e->v));
            return;
        }
    }
    if (t->st == AGX_USC_OK &&
        agx_image_texel(t->img, level, xyz[0], xyz[1], xyz[2], &va)) {
        usc_image_solid(t->c, t->insn, t->img, level, xyz[0], xyz[1],
                        xyz[2], &va, &t->st);
        usc_mem_read(t->c, t->insn, va, texel, t->img->bpp, &t->st);
    }
    agx_image_unpack(t->img, texel, xyz[0], xyz[1], out);
    if (e && t->st == AGX_USC_OK) {
        *e = (TexelEntry) {
            .level = level, .xyz = { xyz[0], xyz[1], xyz[2] },
        };
        memcpy(e->v, out, sizeof(e->v));
        t->cache->valid |= hit;
    }
}

/*
 * Shadow comparison of the texel's first channel with the reference
 * (cmdbuf.xml Compare func: 0 lequal ... 7 never; "ref op texel", as
 * Vulkan's VkCompareOp reads); the result replaces the first channel
 */
static void compare_texel(uint32_t v[4], double ref, unsigned func)
{
    double d = apple_bits_f32(v[0]);
    bool r;

    switch (func) {
    case 0:
        r = ref <= d;
        break;
    case 1:
        r = ref >= d;
        break;
    case 2:
        r = ref < d;
        break;
    case 3:
        r = ref > d;
        break;
    case 4:
        r = ref == d;
        break;
    case 5:
        r = ref != d;
        break;
    case 6:
        r = true;
        break;
    default:
        r = false;
        break;
    }
    v[0] = r ? 0x3f800000 : 0;
}

/* Quantize a filter weight to the precision hk advertises (choice) */
static double weight(double f)
{
    return floor(f * WEIGHT_ONE + 0.5) / WEIGHT_ONE;
}

typedef struct Lookup {
    double uvw[3];              /* normalized (or pixel) coordinates */
    int64_t layer;              /* arrays, cubes: the 2D layer */
    int offset[3];
    bool compare;
    double ref;
    unsigned gather;            /* 0, or the component + 1 */
} Lookup;

/*
 * Filter one level: nearest or (bi/tri-)linear per Vulkan's "Texel
 * Filtering"; the sums are computed on doubles from the exact texel
 * values and rounded once to f32 by the caller (choice)
 */
static void filter_level(Texels *t, const Lookup *k, unsigned dim,
                         unsigned level, bool linear, double acc[4],
                         uint32_t iout[4], uint32_t gather[4])
{
    const AgxImage *img = t->img;
    int64_t size[3] = { minify(img->width, level), 1, 1 };
    unsigned axes = 1;
    int64_t i0[3] = { 0, 0, 0 }, i1[3] = { 0, 0, 0 };
    double a[3] = { 0, 0, 0 };

    if (dim != 0 && dim != 1) {
        size[1] = minify(img->height, level);
        axes = 2;
    }
    if (dim == 5) {
        size[2] = minify(img->layers, level);
        axes = 3;
    }
    for (unsigned i = 0; i < axes; i++) {
        double u = k->uvw[i];
        unsigned mode = t->smp->wrap[i];

        if (dim_is_cube(dim)) {
            /* seamful: clamped to the face; seamless: see cube_seam() */
            mode = t->smp->seamful || !linear ? WRAP_CLAMP_EDGE : WRAP_NONE;
        }
        if (mode == WRAP_CLAMP_GL && !t->smp->pixel_coords) {
            u = isnan(u) ? 0 : MAX(0.0, MIN(u, 1.0));
        }
        if (!t->smp->pixel_coords) {
            u *= size[i];
        }
        if (isnan(u)) {
            u = 0;
        }
        u = MAX(-1e9, MIN(u, 1e9));
        if (linear) {
            double f = floor(u - 0.5);

            a[i] = weight(u - 0.5 - f);
            i0[i] = wrap((int64_t)f + k->offset[i], size[i], mode);
            i1[i] = wrap((int64_t)f + 1 + k->offset[i], size[i], mode);
        } else {
            i0[i] = wrap((int64_t)floor(u) + k->offset[i], size[i], mode);
        }
    }
    if (dim != 5) {
        i0[2] = i1[2] = k->layer;
    }
    if (!linear) {
        uint32_t v[4];

        fetch(t, level, i0, v);
        if (k->compare) {
            compare_texel(v, k->ref, t->smp->func);
        }
        for (int c = 0; c < 4; c++) {
            acc[c] += apple_bits_f32(v[c]);
            iout[c] = v[c];
        }
        return;
    }
    for (unsigned n = 0; n < (1u << axes); n++) {
        int64_t p[3] = { i0[0], i0[1], i0[2] };
        double w = 1;
        uint32_t v[4];

        for (unsigned i = 0; i < axes; i++) {
            bool hi = (n >> i) & 1;

            p[i] = hi ? i1[i] : i0[i];
            w *= hi ? a[i] : 1 - a[i];
        }
        if (dim_is_cube(dim) && !t->smp->seamful) {
            cube_seam(p, size[0]);
        }
        fetch(t, level, p, v);
        if (k->compare) {
            compare_texel(v, k->ref, t->smp->func);
        }
        if (gather && axes == 2) {
            /* Vulkan's order: (i0,j1), (i1,j1), (i1,j0), (i0,j0) */
            static const uint8_t slot[4] = { 3, 2, 0, 1 };

            gather[slot[n]] = v[k->gather - 1];
        }
        for (int c = 0; c < 4; c++) {
            acc[c] += w * apple_bits_f32(v[c]);
        }
        if (n == 0) {
            memcpy(iout, v, 4 * sizeof(uint32_t));
        }
    }
}

/* --- the instruction ------------------------------------------------------ */

static bool lod_mode_valid(unsigned mode)
{
    return mode == LOD_AUTO || mode == LOD_AUTO_BIAS_UNI ||
           mode == LOD_MIN_UNI || mode == LOD_GRAD || mode == LOD_AUTO_BIAS ||
           mode == LOD_MIN || mode == LOD_AUTO_BIAS_MIN_UNI ||
           mode == LOD_GRAD_MIN || mode == LOD_AUTO_BIAS_MIN;
}

/* LOD operand halves @k of the lane: registers, or uniforms (modes 1/2/9) */
static double lod_half(const Ctx *c, Simd *s, const AgxUscInsn *insn,
                       unsigned k, int l)
{
    unsigned d = insn->f[AGX_USC_F_D] + k;
    bool uni = !(insn->f[AGX_USC_F_LOD] & 4);

    return usc_f16_to_f64(uni ? get_uni16(c, d) : get_half(s, d, l));
}

uint32_t agx_sample_max_half(const AgxUscInsn *insn)
{
    const uint32_t *f = insn->f;
    unsigned dim = f[AGX_USC_F_DIM] & 15, mode = f[AGX_USC_F_LOD];
    unsigned n = __builtin_popcount(f[AGX_USC_F_MASK]);
    uint32_t top = 0, nc;

#define NOTE(first, count) (top = MAX(top, (uint32_t)(first) + (count)))
    if (dim > 8) {
        return 0;
    }
    NOTE(f[AGX_USC_F_RT] ? f[AGX_USC_F_R] & ~1 : f[AGX_USC_F_R],
         n * (f[AGX_USC_F_RT] ? 2 : 1));
    nc = float_coords(dim) + dim_is_array(dim);
    NOTE(f[AGX_USC_F_C] & ~1, 2 * nc);
    if (mode == LOD_GRAD || mode == LOD_GRAD_MIN) {
        NOTE(f[AGX_USC_F_D] & ~1,
             2 * (2 * float_coords(dim) + (mode == LOD_GRAD_MIN)));
    } else if (mode == LOD_AUTO_BIAS || mode == LOD_MIN) {
        NOTE(f[AGX_USC_F_D], 1);
    } else if (mode == LOD_AUTO_BIAS_MIN) {
        NOTE(f[AGX_USC_F_D], 2);
    }
    if (f[AGX_USC_F_TT] == 1) {
        NOTE(f[AGX_USC_F_T], 1);
    } else if (f[AGX_USC_F_TT] == 3) {
        NOTE(f[AGX_USC_F_T] & ~1, 2);
    }
    if (f[AGX_USC_F_ST]) {
        NOTE(f[AGX_USC_F_S], 1);
    }
    if (f[AGX_USC_F_SHADOW] || f[AGX_USC_F_OFFS]) {
        NOTE(f[AGX_USC_F_O] & ~1,
             2 * (f[AGX_USC_F_SHADOW] + f[AGX_USC_F_OFFS]));
    }
#undef NOTE
    return top;
}

/* Write component @k of the result: 32-bit, or f16 / 16-bit integer */
static void put_result(Simd *s, unsigned r, bool r32, unsigned k, int l,
                       uint32_t v, bool is_int)
{
    if (!r32 && !is_int) {
        v = usc_f64_to_f16(apple_bits_f32(v), AGX_ROUND_RTE);
    }
    set_data(s, r, r32, k, l, v);
}

/*
 * The level of detail before the sampler's clamps (Vulkan lambda-base
 * plus bias), and the lower bound the instruction adds (-inf if none)
 */
static void lane_lod(const Ctx *c, Simd *s, const AgxUscInsn *insn, int l,
                     const double sz[3], double *lambda, double *min,
                     Deriv *dv, QuadCoords *qc)
{
    unsigned mode = insn->f[AGX_USC_F_LOD], dim = insn->f[AGX_USC_F_DIM];
    unsigned cr = insn->f[AGX_USC_F_C] >> 1, dreg = insn->f[AGX_USC_F_D] >> 1;
    double rho;

    *min = -INFINITY;
    dv->valid = false;
    switch (mode) {
    case LOD_MIN:
    case LOD_MIN_UNI:
        *lambda = lod_half(c, s, insn, 0, l);
        return;
    case LOD_GRAD:
    case LOD_GRAD_MIN:
        rho = gradient_rho(s, cr, dreg, dim, l, sz, dv);
        if (mode == LOD_GRAD_MIN) {
            *min = usc_f16_to_f64(row(s, dreg + 2 * float_coords(dim))[l] &
                                  0xffff);
        }
        break;
    default:
        rho = implicit_rho(s, cr, dim, l, sz, dv, qc);
        break;
    }
    *lambda = rho > 0 ? log2(rho) : -INFINITY;
    if (mode == LOD_AUTO_BIAS || mode == LOD_AUTO_BIAS_UNI ||
        mode == LOD_AUTO_BIAS_MIN || mode == LOD_AUTO_BIAS_MIN_UNI) {
        *lambda += lod_half(c, s, insn, 0, l);
    }
    if (mode == LOD_AUTO_BIAS_MIN || mode == LOD_AUTO_BIAS_MIN_UNI) {
        *min = lod_half(c, s, insn, 1, l);
    }
}

/*
 * Lane @l's lookup: coordinates, layer (clamped to the image's: Mesa
 * clamps it itself; the clamp here only keeps a bad one inside the
 * image, choice), offsets and reference
 */
static void lane_lookup(Simd *s, const AgxUscInsn *insn, const AgxImage *img,
                        const Sampler *smp, int l, Lookup *k)
{
    unsigned dim = insn->f[AGX_USC_F_DIM], cr = insn->f[AGX_USC_F_C] >> 1;
    unsigned o = insn->f[AGX_USC_F_O] >> 1, face;
    uint32_t lr;

    memset(k, 0, sizeof(*k));
    face = lane_coords(s, cr, dim, l, k->uvw);
    if (dim_is_array(dim)) {
        lr = row(s, cr + float_coords(dim))[l];
        k->layer = dim == 8 ? lr >> 16 : lr & 0xffff;
    }
    if (dim_is_cube(dim)) {
        k->layer = k->layer * 6 + face;
    }
    k->layer = MIN(k->layer, (int64_t)img->layers - 1);
    if (insn->f[AGX_USC_F_OFFS]) {
        uint32_t p = row(s, o + insn->f[AGX_USC_F_SHADOW])[l];

        for (int i = 0; i < 3; i++) {
            k->offset[i] = (int32_t)(p << (28 - 4 * i)) >> 28;
        }
    }
    if (insn->f[AGX_USC_F_SHADOW] && smp->compare) {
        k->compare = true;
        k->ref = lane_f32(s, o, l);
        if (img->type == 0 || img->type == 1) {
            /* fixed-point depth: the reference is clamped (Vulkan) */
            k->ref = isnan(k->ref) ? 0 : MAX(0.0, MIN(k->ref, 1.0));
        }
    }
}

/*
 * One lane: select levels and filter (Vulkan "Level-of-Detail Operation"
 * and "Texel Filtering"); @out the channels before the swizzle
 */
static void sample_lane(Texels *t, const Lookup *k, unsigned dim,
                        double lambda, bool gather, uint32_t out[4])
{
    const AgxImage *img = t->img;
    const Sampler *smp = t->smp;
    unsigned base = img->first_level;
    int q = (int)img->levels - 1 - (int)base;
    /* bicubic (filter 2, never set by Mesa) filters as linear: choice */
    bool linear = lambda <= 0 ? smp->mag != 0 : smp->min != 0;
    double acc[4] = { 0, 0, 0, 0 }, acc1[4] = { 0, 0, 0, 0 }, d;
    uint32_t iout[4], g[4] = { 0, 0, 0, 0 };
    int d0;

    if (q < 0) {
        q = 0;
    }
    if (gather) {
        filter_level(t, k, dim, base, true, acc, iout, g);
        memcpy(out, g, sizeof(g));
        return;
    }
    if (t->is_int) {
        linear = false;         /* integer formats filter as nearest */
    }
    d = MAX(0.0, MIN(lambda, (double)q));
    switch (smp->mip) {
    case 1:     /* nearest: round half down (Vulkan) */
        d0 = lambda <= 0.5 ? 0 : (int)ceil(MIN(lambda, 64.0) + 0.5) - 1;
        d0 = MIN(d0, q);
        filter_level(t, k, dim, base + d0, linear, acc, iout, NULL);
        break;
    case 2: {   /* linear, the level weight quantized too */
        double w;

        d0 = (int)floor(d);
        w = weight(d - d0);
        filter_level(t, k, dim, base + d0, linear, acc, iout, NULL);
        if (w > 0 && d0 < q && !t->is_int) {
            filter_level(t, k, dim, base + d0 + 1, linear, acc1, iout, NULL);
            for (int c = 0; c < 4; c++) {
                acc[c] = acc[c] * (1 - w) + acc1[c] * w;
            }
        }
        break;
    }
    default:    /* none: the base level */
        filter_level(t, k, dim, base, linear, acc, iout, NULL);
        break;
    }
    for (int c = 0; c < 4; c++) {
        out[c] = t->is_int ? iout[c] : usc_f64_to_f32(acc[c], AGX_ROUND_RTE);
    }
}

/*
 * Anisotropic filtering (choice: the hardware's footprint rule is not
 * documented).  The model follows the approximation the Vulkan
 * specification describes (EXT_texture_filter_anisotropic's): with P_x
 * and P_y the lengths in base-level texels of the two derivative vectors,
 * N = min(ceil(P_max / P_min), max anisotropy) samples are taken at
 * coordinates spread along the longer vector, c + (i / (N + 1) - 1/2) d
 * for i = 1..N, each filtered as usual at the level of detail
 * log2(P_max / N) (the isotropic one less log2 N), and averaged.  Only
 * 2D images and 2D arrays with derivatives (implicit or explicit) are
 * filtered so; 1D, 3D and cube lookups stay isotropic.  Returns N (1:
 * isotropic) and the major axis in normalized (or pixel) coordinates.
 */
static unsigned aniso_count(const Sampler *smp, const Deriv *dv,
                            unsigned dim, const double sz[3],
                            double major[2])
{
    double px, py, pmax, pmin;
    unsigned n;

    if (smp->max_aniso <= 1 || !dv->valid || (dim != 2 && dim != 3)) {
        return 1;
    }
    px = hypot(dv->dx[0] * sz[0], dv->dx[1] * sz[1]);
    py = hypot(dv->dy[0] * sz[0], dv->dy[1] * sz[1]);
    pmax = MAX(px, py);
    pmin = MIN(px, py);
    if (!(pmax > 0) || !isfinite(pmax)) {
        return 1;
    }
    n = pmin > 0 && pmax / pmin < smp->max_aniso ?
        (unsigned)ceil(pmax / pmin) : smp->max_aniso;
    for (int i = 0; i < 2; i++) {
        major[i] = px >= py ? dv->dx[i] : dv->dy[i];
    }
    return MAX(n, 1);
}

/* N lookups along the major axis, averaged (rounded once to f32) */
static void sample_aniso(Texels *t, const Lookup *k, unsigned dim,
                         double lambda, unsigned n, const double major[2],
                         uint32_t out[4])
{
    double acc[4] = { 0, 0, 0, 0 };
    uint32_t one[4];

    for (unsigned i = 1; i <= n; i++) {
        Lookup ki = *k;
        double f = (double)i / (n + 1) - 0.5;

        ki.uvw[0] += f * major[0];
        ki.uvw[1] += f * major[1];
        sample_lane(t, &ki, dim, lambda, false, one);
        for (int c = 0; c < 4; c++) {
            acc[c] += t->is_int ? (double)one[c] : apple_bits_f32(one[c]);
        }
    }
    for (int c = 0; c < 4; c++) {
        out[c] = t->is_int ? (uint32_t)(acc[c] / n)
                           : usc_f64_to_f32(acc[c] / n, AGX_ROUND_RTE);
    }
}

/*
 * texture_sample: the masked components of the filtered, swizzled texel
 * go to consecutive registers (32-bit, or f16 for a 16-bit destination);
 * gathers return one channel of the four footprint texels; LOD queries
 * (q2 = 2) return the clamped and the unclamped LOD.  Multisampled
 * dimensions fault (Mesa samples them with texture_load only).
 */
AgxUscStatus usc_texture_sample(Ctx *c, Simd *s, const AgxUscInsn *insn)
{
    unsigned mask = insn->f[AGX_USC_F_MASK], r = insn->f[AGX_USC_F_R];
    unsigned mode = insn->f[AGX_USC_F_LOD], dim = insn->f[AGX_USC_F_DIM];
    unsigned gather = insn->f[AGX_USC_F_GATHER];
    bool r32 = insn->f[AGX_USC_F_RT];
    bool query = insn->f[AGX_USC_F_Q2] == 2;
    uint64_t last_t = UINT64_MAX, last_s = UINT64_MAX;
    USC_LANE_TMP TexelCache texels;
    TexelCache *cache = agx_usc_general_paths ? NULL : &texels;
    USC_LANE_TMP QuadCoords quads;
    QuadCoords *qc = NULL;
    unsigned cr = insn->f[AGX_USC_F_C] >> 1, d0, d1;
    AgxImage img, raw;
    Sampler smp;
    AgxUscStatus st;

    if (!mask || dim == 4 || dim >= 8 || !lod_mode_valid(mode) ||
        (insn->f[AGX_USC_F_Q2] && !query)) {
        return usc_fault(c, insn, AGX_USC_FAULT_DECODE, 0);
    }
    if (r32) {
        r &= ~1;
    }
    texels.valid = 0;
    /* the 32-bit registers the results go to (up to 4, or 4 halves) */
    d0 = r >> 1;
    d1 = r32 ? d0 + 3 : (r + 3) >> 1;
    if (!agx_usc_general_paths &&
        (d1 < cr || d0 >= cr + float_coords(dim))) {
        quads.done = 0;
        qc = &quads;
    }
    for (int l = 0; l < LANES; l++) {
        Texels t = {
            .c = c, .insn = insn, .img = &raw, .smp = &smp, .cache = cache,
        };
        double sz[3], lambda, min, lo, hi, major[2] = { 0, 0 };
        uint32_t ch[4], out[4], one;
        Lookup k;
        Deriv dv = { 0 };
        unsigned n = 0, aniso;
        uint64_t prev_t = last_t;

        if (!((s->exec >> l) & 1)) {
            continue;
        }
        st = usc_image_desc(c, s, insn, l, false, &last_t, &img);
        if (st != AGX_USC_OK) {
            return st;
        }
        if (last_t != prev_t) {
            /* another descriptor (img is set only then): other texels */
            texels.valid = 0;
        }
        st = sampler_get(c, s, insn, l, &last_s, &smp);
        if (st != AGX_USC_OK) {
            return st;
        }
        raw = img;
        for (int i = 0; i < 4; i++) {
            raw.swizzle[i] = i;
        }
        t.is_int = agx_image_is_int(&img);
        one = t.is_int ? 1 : 0x3f800000;
        lane_lookup(s, insn, &img, &smp, l, &k);
        base_size(&img, dim, sz);
        if (smp.pixel_coords) {
            sz[0] = sz[1] = sz[2] = 1;  /* derivatives already in texels */
        }
        lane_lod(c, s, insn, l, sz, &lambda, &min, &dv, qc);
        aniso = gather || t.is_int ? 1
                                   : aniso_count(&smp, &dv, dim, sz, major);
        if (aniso > 1) {
            lambda -= log2(aniso);      /* (x - 0 is x, -0 and NaN too) */
        }
        lo = MAX(smp.min_lod, min);
        hi = MAX(lo, smp.max_lod);
        if (query) {
            /*
             * GLSL textureQueryLod: the level accessed (clamped to the
             * sampler's range and the view's levels), the LOD computed
             */
            double q = (double)img.levels - 1 - img.first_level;

            out[0] = usc_f64_to_f32(isnan(lambda) ? MAX(lo, 0) :
                                    MAX(0, MIN(MAX(lo, MIN(lambda, hi)), q)),
                                    AGX_ROUND_RTE);
            out[1] = usc_f64_to_f32(MAX(-1e30, MIN(lambda, 1e30)),
                                    AGX_ROUND_RTE);
            out[2] = out[3] = 0;
            t.is_int = false;
        } else {
            lambda = isnan(lambda) ? lo : MAX(lo, MIN(lambda, hi));
            if (gather & 1) {
                unsigned sw = img.swizzle[gather >> 1];

                if (sw >= 4) {
                    for (int i = 0; i < 4; i++) {
                        out[i] = sw == 4 ? one : 0;
                    }
                } else {
                    k.gather = sw + 1;
                    sample_lane(&t, &k, dim, lambda, true, out);
                }
            } else {
                if (aniso > 1) {
                    sample_aniso(&t, &k, dim, lambda, aniso, major, ch);
                } else {
                    sample_lane(&t, &k, dim, lambda, false, ch);
                }
                for (int i = 0; i < 4; i++) {
                    unsigned sw = img.swizzle[i];

                    out[i] = sw < 4 ? ch[sw] : sw == 4 ? one : 0;
                }
            }
            if (t.st != AGX_USC_OK) {
                return t.st;
            }
        }
        for (unsigned i = 0; i < 4; i++) {
            if ((mask >> i) & 1) {
                put_result(s, r, r32, n++, l, out[i], t.is_int);
            }
        }
    }
    return AGX_USC_OK;
}
