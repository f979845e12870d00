/*
 * AGX binned scene: the model's private TVB format (see agx-scene.h)
 *
 * Header (AGX_SCENE_HEADER_SIZE bytes at the tilemap), little-endian:
 *   0x00 magic, 0x04 version, 0x08 page list VA (u64), 0x10 ring pages,
 *   0x14 first page, 0x18 bytes used, 0x1c primitives, 0x20 dropped,
 *   0x24 width, 0x28 height, 0x2c layers, 0x30 flags (bit 0 complete,
 *   bit 1 overflowed, bit 2 tile lists), 0x34 passes ended before this
 *   one (partial renders).  Then the tile table: a u32 per
 *   tile, layer-major then rows, the heap offset of its last chunk.
 * Records in the heap, 4-byte aligned, each starting with a tag word:
 *   state:     tag STATE, then AGX_PPP_STATE_WORDS words
 *   primitive: tag PRIM | kind | front << 2 | provoking << 3 | nvar << 8,
 *              state offset, layer, viewport, primitive id, size (float),
 *              x0 | y0 << 16, x1 | y1 << 16, then per vertex x, y, z, rhw
 *              (float) and nvar words.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <math.h>
#include <string.h>
#include "hw/agx/agx-scene.h"

#define SCENE_TAG_MASK      0xff000000u
#define SCENE_TAG_STATE     0x53000000u
#define SCENE_TAG_PRIM      0x50000000u
#define SCENE_PRIM_WORDS    8
#define SCENE_FLAG_COMPLETE 1u
#define SCENE_FLAG_OVERFLOW 2u
#define SCENE_FLAG_TILES    4u
/* A tile list chunk: tag, prev, next, n, then n primitive offsets */
#define SCENE_TAG_CHUNK     0x43000000u
#define SCENE_CHUNK_SIZE    64
#define SCENE_CHUNK_ENTRIES 12
#define SCENE_CHUNK_PREV    4
#define SCENE_CHUNK_NEXT    8
#define SCENE_CHUNK_N       12
#define SCENE_CHUNK_ENTRY   16
/* Cursor modes */
#define SCENE_WALK_NEW      0
#define SCENE_WALK_ALL      1
#define SCENE_WALK_LIST     2
#define SCENE_STATE_BYTES   (4 * (1 + AGX_PPP_STATE_WORDS))
#define SCENE_MAX_RECORD    (4 * (SCENE_PRIM_WORDS + \
                                  3 * (4 + AGX_SCENE_MAX_VARYINGS)))

static void st32(uint8_t *b, uint32_t v)
{
    b[0] = v;
    b[1] = v >> 8;
    b[2] = v >> 16;
    b[3] = v >> 24;
}

static uint32_t ld32(const uint8_t *b)
{
    return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t scene_tiles_x(uint32_t width)
{
    return (width + AGX_SCENE_TILE - 1) / AGX_SCENE_TILE;
}

static uint64_t scene_tiles(uint32_t width, uint32_t height)
{
    return (uint64_t)scene_tiles_x(width) * scene_tiles_x(height);
}

/* The VA of heap offset @off, and the bytes left in its page */
static bool scene_page(const AgxSceneMem *m, uint64_t page_list_va,
                       uint32_t ring, uint32_t first, uint32_t off,
                       uint64_t *va, uint32_t *left)
{
    uint32_t idx = (uint32_t)(((uint64_t)first +
                               (off >> AGX_SCENE_PAGE_SHIFT)) % ring);
    uint8_t b[4];
    uint64_t page;

    if (!m->read(m->opaque, page_list_va + 4ULL * idx, b, 4)) {
        return false;
    }
    /* Page numbers are VA >> 15 in 32 bits: bit 46 up is the sign */
    page = (uint64_t)ld32(b) << AGX_SCENE_PAGE_SHIFT;
    page = (uint64_t)((int64_t)(page << 17) >> 17);
    *va = page + (off & (AGX_SCENE_PAGE_SIZE - 1));
    *left = AGX_SCENE_PAGE_SIZE - (off & (AGX_SCENE_PAGE_SIZE - 1));
    return true;
}

static bool scene_rw(const AgxSceneMem *m, uint64_t page_list_va,
                     uint32_t ring, uint32_t first, uint32_t off,
                     uint8_t *buf, uint32_t len, bool is_write)
{
    while (len) {
        uint64_t va;
        uint32_t left, n;
        bool ok;

        if (!scene_page(m, page_list_va, ring, first, off, &va, &left)) {
            return false;
        }
        n = len < left ? len : left;
        ok = is_write ? m->write(m->opaque, va, buf, n)
                      : m->read(m->opaque, va, buf, n);
        if (!ok) {
            return false;
        }
        off += n;
        buf += n;
        len -= n;
    }
    return true;
}

static bool scene_write_header(const AgxSceneWriter *w, const AgxSceneMem *m,
                               uint32_t flags)
{
    uint8_t h[AGX_SCENE_HEADER_SIZE] = { 0 };

    st32(h + 0x00, AGX_SCENE_MAGIC);
    st32(h + 0x04, AGX_SCENE_VERSION);
    st32(h + 0x08, w->page_list_va);
    st32(h + 0x0c, w->page_list_va >> 32);
    st32(h + 0x10, w->ring_pages);
    st32(h + 0x14, w->first_page);
    st32(h + 0x18, w->used);
    st32(h + 0x1c, w->prims);
    st32(h + 0x20, w->dropped);
    st32(h + 0x24, w->width);
    st32(h + 0x28, w->height);
    st32(h + 0x2c, w->layers);
    st32(h + 0x30, flags | (w->overflowed ? SCENE_FLAG_OVERFLOW : 0) |
         (w->tile_lists ? SCENE_FLAG_TILES : 0));
    st32(h + 0x34, w->passes);
    return m->write(m->opaque, w->tilemap_va, h, sizeof(h));
}

/* Every tile's list empty */
static bool scene_clear_tiles(const AgxSceneWriter *w, const AgxSceneMem *m)
{
    static const uint8_t zero[4096];
    uint64_t n = 4ULL * scene_tiles(w->width, w->height) * w->layers;

    if (!w->tile_lists) {
        return true;
    }
    for (uint64_t o = 0; o < n; o += sizeof(zero)) {
        uint32_t len = n - o < sizeof(zero) ? n - o : sizeof(zero);

        if (!m->write(m->opaque, w->tilemap_va + AGX_SCENE_HEADER_SIZE + o,
                      zero, len)) {
            return false;
        }
    }
    return true;
}

bool agx_scene_begin(AgxSceneWriter *w, const AgxSceneMem *m,
                     const AgxSceneTarget *t, const char **why)
{
    memset(w, 0, sizeof(*w));
    *why = NULL;
    if (t->tilemap_size < AGX_SCENE_HEADER_SIZE) {
        *why = "tilemap too small for the scene header";
        return false;
    }
    if (!t->ring_pages || !t->max_pages || t->first_page >= t->ring_pages) {
        *why = "no TVB pages";
        return false;
    }
    if (!t->width || !t->height || t->width > 16384 || t->height > 16384) {
        *why = "render size out of range";
        return false;
    }
    w->tilemap_va = t->tilemap_va;
    w->page_list_va = t->page_list_va;
    w->ring_pages = t->ring_pages;
    w->first_page = t->first_page;
    w->max_pages = t->max_pages < t->ring_pages ? t->max_pages
                                                : t->ring_pages;
    w->width = t->width;
    w->height = t->height;
    w->layers = t->layers ? t->layers : 1;
    w->tile_lists = AGX_SCENE_HEADER_SIZE +
                    4ULL * scene_tiles(w->width, w->height) * w->layers <=
                    t->tilemap_size;
    return scene_clear_tiles(w, m) && scene_write_header(w, m, 0);
}

/* Room for @len more bytes?  If not, the scene overflows */
static bool scene_room(AgxSceneWriter *w, uint32_t len)
{
    uint64_t limit = (uint64_t)w->max_pages << AGX_SCENE_PAGE_SHIFT;

    if (w->full || w->used + (uint64_t)len > limit) {
        w->full = true;
        w->overflowed = true;
        return false;
    }
    return true;
}

bool agx_scene_put_state(AgxSceneWriter *w, const AgxSceneMem *m,
                         const AgxPppState *st)
{
    uint32_t words[AGX_PPP_STATE_WORDS];
    uint8_t buf[SCENE_STATE_BYTES];

    if (!scene_room(w, sizeof(buf))) {
        /* The primitives that would use it are dropped too */
        return true;
    }
    agx_ppp_to_words(st, words);
    st32(buf, SCENE_TAG_STATE);
    for (unsigned i = 0; i < AGX_PPP_STATE_WORDS; i++) {
        st32(buf + 4 + 4 * i, words[i]);
    }
    if (!scene_rw(m, w->page_list_va, w->ring_pages, w->first_page, w->used,
                  buf, sizeof(buf), true)) {
        return false;
    }
    w->state = w->used;
    w->have_state = true;
    w->used += sizeof(buf);
    return true;
}

static uint16_t scene_clamp(float v, uint32_t max)
{
    if (!(v > 0)) {
        return 0;
    }
    return v >= max ? max : (uint16_t)v;
}

static bool scene_ld32(const AgxSceneWriter *w, const AgxSceneMem *m,
                       uint32_t off, uint32_t *v)
{
    uint8_t b[4];

    if (!scene_rw(m, w->page_list_va, w->ring_pages, w->first_page, off, b,
                  4, false)) {
        return false;
    }
    *v = ld32(b);
    return true;
}

static bool scene_st32(const AgxSceneWriter *w, const AgxSceneMem *m,
                       uint32_t off, uint32_t v)
{
    uint8_t b[4];

    st32(b, v);
    return scene_rw(m, w->page_list_va, w->ring_pages, w->first_page, off, b,
                    4, true);
}

/* Append primitive @prim to the list of tile slot @slot */
static bool scene_tile_append(AgxSceneWriter *w, const AgxSceneMem *m,
                              uint64_t slot, uint32_t prim)
{
    uint64_t va = w->tilemap_va + AGX_SCENE_HEADER_SIZE + 4 * slot;
    uint8_t b[4], chunk[SCENE_CHUNK_SIZE] = { 0 };
    uint32_t tail, n = SCENE_CHUNK_ENTRIES;

    if (!m->read(m->opaque, va, b, 4)) {
        return false;
    }
    tail = ld32(b);
    if (tail && !scene_ld32(w, m, tail + SCENE_CHUNK_N, &n)) {
        return false;
    }
    if (tail && n < SCENE_CHUNK_ENTRIES) {
        return scene_st32(w, m, tail + SCENE_CHUNK_ENTRY + 4 * n, prim) &&
               scene_st32(w, m, tail + SCENE_CHUNK_N, n + 1);
    }
    if (!scene_room(w, SCENE_CHUNK_SIZE)) {
        /* The primitive is in the scene, not in this tile: overflowed */
        return true;
    }
    st32(chunk, SCENE_TAG_CHUNK);
    st32(chunk + SCENE_CHUNK_PREV, tail);
    st32(chunk + SCENE_CHUNK_N, 1);
    st32(chunk + SCENE_CHUNK_ENTRY, prim);
    if (!scene_rw(m, w->page_list_va, w->ring_pages, w->first_page, w->used,
                  chunk, sizeof(chunk), true) ||
        (tail && !scene_st32(w, m, tail + SCENE_CHUNK_NEXT, w->used))) {
        return false;
    }
    st32(b, w->used);
    w->used += SCENE_CHUNK_SIZE;
    return m->write(m->opaque, va, b, 4);
}

int agx_scene_put_prim(AgxSceneWriter *w, const AgxSceneMem *m,
                       AgxScenePrim *p)
{
    uint8_t buf[SCENE_MAX_RECORD];
    unsigned n = p->kind, nvar = p->nvar;
    float lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    float pad = 1;
    uint32_t len, pos;

    if (n < AGX_SCENE_POINT || n > AGX_SCENE_TRIANGLE ||
        nvar > AGX_SCENE_MAX_VARYINGS || p->provoking >= n ||
        !w->have_state) {
        w->dropped++;
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        lo_x = fminf(lo_x, p->v[i].x);
        lo_y = fminf(lo_y, p->v[i].y);
        hi_x = fmaxf(hi_x, p->v[i].x);
        hi_y = fmaxf(hi_y, p->v[i].y);
    }
    if (n != AGX_SCENE_TRIANGLE && p->size > 0 && p->size < 1e6f) {
        pad += p->size / 2;
    }
    /* NaN coordinates make an empty box: the primitive covers nothing */
    p->x0 = scene_clamp(floorf(lo_x - pad), w->width);
    p->y0 = scene_clamp(floorf(lo_y - pad), w->height);
    p->x1 = scene_clamp(ceilf(hi_x + pad) + 1, w->width);
    p->y1 = scene_clamp(ceilf(hi_y + pad) + 1, w->height);
    if (p->x0 >= p->x1 || p->y0 >= p->y1) {
        return 0;
    }
    len = 4 * (SCENE_PRIM_WORDS + n * (4 + nvar));
    if (!scene_room(w, len)) {
        w->dropped++;
        return 0;
    }
    p->state = w->state;
    st32(buf, SCENE_TAG_PRIM | n | (p->front ? 4 : 0) | p->provoking << 3 |
         nvar << 8);
    st32(buf + 4, p->state);
    st32(buf + 8, p->layer);
    st32(buf + 12, p->viewport);
    st32(buf + 16, p->prim_id);
    st32(buf + 20, apple_f32_bits(p->size));
    st32(buf + 24, p->x0 | (uint32_t)p->y0 << 16);
    st32(buf + 28, p->x1 | (uint32_t)p->y1 << 16);
    pos = 4 * SCENE_PRIM_WORDS;
    for (unsigned i = 0; i < n; i++) {
        const AgxSceneVertex *v = &p->v[i];

        st32(buf + pos, apple_f32_bits(v->x));
        st32(buf + pos + 4, apple_f32_bits(v->y));
        st32(buf + pos + 8, apple_f32_bits(v->z));
        st32(buf + pos + 12, apple_f32_bits(v->rhw));
        pos += 16;
        for (unsigned j = 0; j < nvar; j++, pos += 4) {
            st32(buf + pos, v->var[j]);
        }
    }
    if (!scene_rw(m, w->page_list_va, w->ring_pages, w->first_page, w->used,
                  buf, len, true)) {
        return -1;
    }
    w->used += len;
    w->prims++;
    w->pass_prims++;
    if (w->tile_lists && p->layer < w->layers) {
        uint32_t tx = scene_tiles_x(w->width), ty = scene_tiles_x(w->height);
        uint32_t prim = w->used - len;

        for (uint32_t y = p->y0 / AGX_SCENE_TILE;
             y <= (uint32_t)(p->y1 - 1) / AGX_SCENE_TILE; y++) {
            for (uint32_t x = p->x0 / AGX_SCENE_TILE;
                 x <= (uint32_t)(p->x1 - 1) / AGX_SCENE_TILE; x++) {
                if (!scene_tile_append(w, m,
                                       ((uint64_t)p->layer * ty + y) * tx + x,
                                       prim)) {
                    return -1;
                }
            }
        }
    }
    return 1;
}

bool agx_scene_end(AgxSceneWriter *w, const AgxSceneMem *m)
{
    return scene_write_header(w, m, SCENE_FLAG_COMPLETE);
}

uint32_t agx_scene_pages_used(const AgxSceneWriter *w)
{
    return (w->used + AGX_SCENE_PAGE_SIZE - 1) >> AGX_SCENE_PAGE_SHIFT;
}

uint32_t agx_scene_total_pages(const AgxSceneWriter *w)
{
    return w->done_pages + agx_scene_pages_used(w);
}

uint32_t agx_scene_peak_pages(const AgxSceneWriter *w)
{
    uint32_t now = agx_scene_pages_used(w);

    return now > w->peak_pages ? now : w->peak_pages;
}

bool agx_scene_pass_full(const AgxSceneWriter *w)
{
    uint32_t keep = w->max_pages > AGX_SCENE_RESERVE_PAGES ?
                    w->max_pages - AGX_SCENE_RESERVE_PAGES : 0;

    return w->pass_prims &&
           (uint64_t)w->used >= (uint64_t)keep << AGX_SCENE_PAGE_SHIFT;
}

bool agx_scene_pass_end(AgxSceneWriter *w, const AgxSceneMem *m)
{
    return scene_write_header(w, m, SCENE_FLAG_COMPLETE);
}

bool agx_scene_pass_restart(AgxSceneWriter *w, const AgxSceneMem *m)
{
    w->done_pages += agx_scene_pages_used(w);
    w->peak_pages = agx_scene_peak_pages(w);
    w->passes++;
    w->used = 0;
    w->pass_prims = 0;
    w->full = false;
    w->state = 0;
    w->have_state = false;
    return scene_clear_tiles(w, m) && scene_write_header(w, m, 0);
}

bool agx_scene_open(AgxSceneReader *r, const AgxSceneMem *m,
                    uint64_t tilemap_va, const char **why)
{
    uint8_t h[AGX_SCENE_HEADER_SIZE];
    uint32_t flags;

    memset(r, 0, sizeof(*r));
    *why = NULL;
    if (!m->read(m->opaque, tilemap_va, h, sizeof(h))) {
        return false;
    }
    if (ld32(h) != AGX_SCENE_MAGIC || ld32(h + 4) != AGX_SCENE_VERSION) {
        *why = "no scene in the tilemap";
        return false;
    }
    flags = ld32(h + 0x30);
    r->page_list_va = ld32(h + 0x08) | (uint64_t)ld32(h + 0x0c) << 32;
    r->ring_pages = ld32(h + 0x10);
    r->first_page = ld32(h + 0x14);
    r->used = ld32(h + 0x18);
    r->prims = ld32(h + 0x1c);
    r->dropped = ld32(h + 0x20);
    r->width = ld32(h + 0x24);
    r->height = ld32(h + 0x28);
    r->layers = ld32(h + 0x2c);
    r->passes = ld32(h + 0x34);
    r->complete = flags & SCENE_FLAG_COMPLETE;
    r->overflowed = flags & SCENE_FLAG_OVERFLOW;
    r->tile_lists = flags & SCENE_FLAG_TILES;
    r->tilemap_va = tilemap_va;
    if (!r->ring_pages || r->first_page >= r->ring_pages) {
        *why = "scene header out of range";
        return false;
    }
    if (!r->complete) {
        *why = "the scene's vertex work did not finish";
        return false;
    }
    return true;
}

void agx_scene_cursor_rect(AgxSceneCursor *c, uint32_t x0, uint32_t y0,
                           uint32_t x1, uint32_t y1, uint32_t layer)
{
    *c = (AgxSceneCursor) {
        .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1, .layer = layer,
    };
}

static bool scene_read(const AgxSceneReader *r, const AgxSceneMem *m,
                       uint32_t off, void *buf, uint32_t len)
{
    return scene_rw(m, r->page_list_va, r->ring_pages, r->first_page, off,
                    buf, len, false);
}

/*
 * The record at @off: its length in *@len; if a primitive of @c's layer
 * whose box meets @c's rectangle, 1 with *@p filled, else 0; -1 if it
 * cannot be read (*@why: corrupt, NULL: a fault)
 */
static int scene_record(const AgxSceneReader *r, const AgxSceneMem *m,
                        const AgxSceneCursor *c, uint32_t off, uint32_t *len,
                        AgxScenePrim *p, const char **why)
{
    uint8_t buf[SCENE_MAX_RECORD];
    uint32_t tag, n, nvar, pos, a, b;

    if (off >= r->used || r->used - off < 4) {
        *why = "truncated record";
        return -1;
    }
    if (!scene_read(r, m, off, buf, 4)) {
        return -1;
    }
    tag = ld32(buf);
    if ((tag & SCENE_TAG_MASK) == SCENE_TAG_STATE) {
        *len = SCENE_STATE_BYTES;
        return 0;
    }
    if ((tag & SCENE_TAG_MASK) == SCENE_TAG_CHUNK) {
        *len = SCENE_CHUNK_SIZE;
        return 0;
    }
    n = tag & 3;
    nvar = (tag >> 8) & 0xff;
    if ((tag & SCENE_TAG_MASK) != SCENE_TAG_PRIM || !n ||
        nvar > AGX_SCENE_MAX_VARYINGS || ((tag >> 3) & 3) >= n) {
        *why = "corrupt record";
        return -1;
    }
    *len = 4 * (SCENE_PRIM_WORDS + n * (4 + nvar));
    if (r->used - off < *len) {
        *why = "truncated record";
        return -1;
    }
    if (!scene_read(r, m, off, buf, 4 * SCENE_PRIM_WORDS)) {
        return -1;
    }
    a = ld32(buf + 24);
    b = ld32(buf + 28);
    if (ld32(buf + 8) != c->layer ||
        (a & 0xffff) >= c->x1 || (b & 0xffff) <= c->x0 ||
        (a >> 16) >= c->y1 || (b >> 16) <= c->y0) {
        return 0;
    }
    if (!scene_read(r, m, off + 4 * SCENE_PRIM_WORDS,
                    buf + 4 * SCENE_PRIM_WORDS, *len - 4 * SCENE_PRIM_WORDS)) {
        return -1;
    }
    memset(p, 0, sizeof(*p));
    p->kind = n;
    p->front = tag & 4;
    p->provoking = (tag >> 3) & 3;
    p->nvar = nvar;
    p->state = ld32(buf + 4);
    p->layer = ld32(buf + 8);
    p->viewport = ld32(buf + 12);
    p->prim_id = ld32(buf + 16);
    p->size = apple_bits_f32(ld32(buf + 20));
    p->x0 = a;
    p->y0 = a >> 16;
    p->x1 = b;
    p->y1 = b >> 16;
    pos = 4 * SCENE_PRIM_WORDS;
    for (unsigned i = 0; i < n; i++) {
        AgxSceneVertex *v = &p->v[i];

        v->x = apple_bits_f32(ld32(buf + pos));
        v->y = apple_bits_f32(ld32(buf + pos + 4));
        v->z = apple_bits_f32(ld32(buf + pos + 8));
        v->rhw = apple_bits_f32(ld32(buf + pos + 12));
        pos += 16;
        for (unsigned j = 0; j < nvar; j++, pos += 4) {
            v->var[j] = ld32(buf + pos);
        }
    }
    return 1;
}

/* A word of a tile list chunk: false if out of the scene or faulted */
static bool scene_read32(const AgxSceneReader *r, const AgxSceneMem *m,
                         uint32_t off, uint32_t *v, const char **why)
{
    uint8_t b[4];

    if (off >= r->used || r->used - off < 4) {
        *why = "corrupt tile list";
        return false;
    }
    if (!scene_read(r, m, off, b, 4)) {
        *why = NULL;
        return false;
    }
    *v = ld32(b);
    return true;
}

/* A walk begins: its tile's list when the rectangle is inside one */
static int scene_walk_begin(const AgxSceneReader *r, const AgxSceneMem *m,
                            AgxSceneCursor *c, const char **why)
{
    uint32_t tx = c->x0 / AGX_SCENE_TILE, ty = c->y0 / AGX_SCENE_TILE;
    uint32_t ntx = scene_tiles_x(r->width), nty = scene_tiles_x(r->height);
    uint32_t chunk, prev;
    uint8_t b[4];

    c->mode = SCENE_WALK_ALL;
    if (!r->tile_lists || c->x1 <= c->x0 || c->y1 <= c->y0 ||
        (c->x1 - 1) / AGX_SCENE_TILE != tx ||
        (c->y1 - 1) / AGX_SCENE_TILE != ty || tx >= ntx || ty >= nty ||
        c->layer >= r->layers) {
        return 0;
    }
    if (!m->read(m->opaque, r->tilemap_va + AGX_SCENE_HEADER_SIZE +
                 4 * (((uint64_t)c->layer * nty + ty) * ntx + tx), b, 4)) {
        return -1;
    }
    /* Back from the last chunk to the first (each a different one) */
    chunk = ld32(b);
    for (uint32_t steps = 0; chunk; steps++) {
        if (steps > r->used / SCENE_CHUNK_SIZE) {
            *why = "corrupt tile list";
            return -1;
        }
        if (!scene_read32(r, m, chunk + SCENE_CHUNK_PREV, &prev, why)) {
            return -1;
        }
        if (!prev) {
            break;
        }
        chunk = prev;
    }
    c->mode = SCENE_WALK_LIST;
    c->chunk = chunk;
    c->slot = 0;
    return 0;
}

int agx_scene_next(const AgxSceneReader *r, const AgxSceneMem *m,
                   AgxSceneCursor *c, AgxScenePrim *p, const char **why)
{
    uint32_t len, steps = 0;
    int got;

    *why = NULL;
    if (c->mode == SCENE_WALK_NEW && scene_walk_begin(r, m, c, why) < 0) {
        return -1;
    }
    if (c->mode == SCENE_WALK_LIST) {
        while (c->chunk) {
            uint32_t n, prim, next;

            if (++steps > r->used / 4 + 1) {
                *why = "corrupt tile list";
                return -1;
            }
            if (!scene_read32(r, m, c->chunk + SCENE_CHUNK_N, &n, why)) {
                return -1;
            }
            if (n > SCENE_CHUNK_ENTRIES) {
                *why = "corrupt tile list";
                return -1;
            }
            if (c->slot >= n) {
                if (!scene_read32(r, m, c->chunk + SCENE_CHUNK_NEXT, &next,
                                  why)) {
                    return -1;
                }
                /* Chunks come in heap order: a loop is corrupt */
                if (next && next <= c->chunk) {
                    *why = "corrupt tile list";
                    return -1;
                }
                c->chunk = next;
                c->slot = 0;
                continue;
            }
            if (!scene_read32(r, m, c->chunk + SCENE_CHUNK_ENTRY + 4 * c->slot,
                              &prim, why)) {
                return -1;
            }
            c->slot++;
            c->index++;
            got = scene_record(r, m, c, prim, &len, p, why);
            if (got != 0) {
                return got;
            }
        }
        return 0;
    }
    while (c->off < r->used) {
        got = scene_record(r, m, c, c->off, &len, p, why);
        if (got < 0) {
            return got;
        }
        c->off += len;
        c->index++;
        if (got) {
            return 1;
        }
    }
    return 0;
}

bool agx_scene_get_state(const AgxSceneReader *r, const AgxSceneMem *m,
                         uint32_t state, AgxPppState *st, const char **why)
{
    uint8_t buf[SCENE_STATE_BYTES];
    uint32_t words[AGX_PPP_STATE_WORDS];

    *why = NULL;
    if (state >= r->used || r->used - state < sizeof(buf)) {
        *why = "state record out of the scene";
        return false;
    }
    if (!scene_read(r, m, state, buf, sizeof(buf))) {
        return false;
    }
    if (ld32(buf) != SCENE_TAG_STATE) {
        *why = "corrupt state record";
        return false;
    }
    for (unsigned i = 0; i < AGX_PPP_STATE_WORDS; i++) {
        words[i] = ld32(buf + 4 + 4 * i);
    }
    agx_ppp_from_words(st, words);
    return true;
}
