/*
 * Unit tests of the render path's shared pieces: PPP State updates
 * (agx-ppp.c), with words encoded here from the bit positions of Mesa's
 * cmdbuf.xml ("PPP Header", "Cull", "Fragment face", "Viewport"...), and
 * the binned scene (agx-scene.c) written and read back through a small
 * fake memory: a tilemap and a TVB heap of a few 32 KiB pages whose
 * page list is not in address order.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <math.h>
#include <string.h>
#include "hw/agx/agx-ppp.h"
#include "hw/agx/agx-scene.h"

/* PPP header bits and fields, from cmdbuf.xml (not from agx-ppp.h) */
#define H_FRAG_CONTROL  (1u << 0)
#define H_FRONT_FACE    (1u << 2)
#define H_BACK_FACE     (1u << 5)
#define H_DBIAS_SCISSOR (1u << 8)
#define H_REGION_CLIP   (1u << 10)
#define H_VIEWPORT      (1u << 11)
#define H_VP_COUNT(n)   (((n) - 1u) << 12)
#define H_OUTPUT_SELECT (1u << 17)
#define H_VARYINGS_32   (1u << 18)
#define H_CULL          (1u << 21)
#define H_FS            (1u << 23)
#define H_OUTPUT_SIZE   (1u << 27)

static uint32_t fb(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static uint32_t put_words(uint8_t *buf, const uint32_t *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        buf[4 * i] = w[i];
        buf[4 * i + 1] = w[i] >> 8;
        buf[4 * i + 2] = w[i] >> 16;
        buf[4 * i + 3] = w[i] >> 24;
    }
    return 4 * n;
}

/* An update with most structures, in header-bit order, then a smaller one */
static void test_ppp_apply(void)
{
    uint32_t w[] = {
        H_FRAG_CONTROL | H_FRONT_FACE | H_DBIAS_SCISSOR | H_VIEWPORT |
        H_VP_COUNT(1) | H_VARYINGS_32 | H_CULL | H_FS | H_OUTPUT_SIZE,
        1u << 16 | 1u << 18,                    /* scissor, stencil on */
        3u << 24 | 1u << 21 | 0x42,             /* func 3, no z write */
        7u << 16 | 2,                           /* dbias 7, scissor 2 */
        0,                                      /* viewport control */
        fb(32), fb(32), fb(16), fb(-16), fb(0.25f), fb(0.5f),
        2 | 1u << 8,                            /* 2 smooth, 1 flat */
        1u << 1 | 1u << 16 | 3u << 7,           /* cull back, CCW, pv 2 */
        0x2 | 3u << 16, 0x12340 | 0x1, 0x5670, 0,   /* FS words */
        8,                                      /* output size */
    };
    uint32_t w2[] = { H_CULL, 1u << 0 };
    uint8_t buf[sizeof(w)];
    AgxPppState st = { 0 };
    const char *why = NULL;
    uint32_t n = put_words(buf, w, G_N_ELEMENTS(w));

    g_assert_true(agx_ppp_apply(&st, buf, n, &why));
    g_assert_null(why);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.frag_control, PPP_FRAG_CONTROL,
                                      SCISSOR_ENABLE), ==, 1);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.frag_control, PPP_FRAG_CONTROL,
                                      STENCIL_ENABLE), ==, 1);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.front_face, PPP_FACE, DEPTH_FUNC),
                     ==, 3);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.front_face, PPP_FACE,
                                      DISABLE_DEPTH_WRITE), ==, 1);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.front_face, PPP_FACE, STENCIL_REF),
                     ==, 0x42);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.dbias_scissor, PPP_DBIAS_SCISSOR,
                                      SCISSOR), ==, 2);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.dbias_scissor, PPP_DBIAS_SCISSOR,
                                      DBIAS), ==, 7);
    g_assert_cmpuint(st.viewport_count, ==, 1);
    g_assert_cmpfloat(apple_bits_f32(st.viewport[0][AGX_PPP_VP_SCALE_Y]), ==,
                      -16);
    g_assert_cmpfloat(apple_bits_f32(st.viewport[0][AGX_PPP_VP_SCALE_Z]), ==,
                      0.5f);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.varying_counts_32,
                                      PPP_VARYING_COUNTS, FLAT), ==, 1);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.cull, PPP_CULL, BACK), ==, 1);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.cull, PPP_CULL, FRONT_FACE_CCW), ==,
                     1);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.cull, PPP_CULL,
                                      FLAT_SHADING_VERTEX), ==, 3);
    g_assert_cmpuint(agx_ppp_fs_pipeline(&st), ==, 0x12340);
    g_assert_cmpuint(agx_ppp_cf_bindings(&st), ==, 0x5670);
    g_assert_cmpuint(APPLE_FIELD_EX64(st.fs_word[0], PPP_FS_WORD0,
                                      CF_BINDING_COUNT), ==, 3);
    g_assert_cmpuint(st.output_size, ==, 8);

    /* A later update changes only what it carries */
    n = put_words(buf, w2, G_N_ELEMENTS(w2));
    g_assert_true(agx_ppp_apply(&st, buf, n, &why));
    g_assert_cmpuint(st.cull, ==, 1);
    g_assert_cmpuint(agx_ppp_fs_pipeline(&st), ==, 0x12340);
    g_assert_cmpuint(st.present & (H_CULL | H_FS), ==, H_CULL | H_FS);
}

/* Two region clips and two viewports for a count of 2 */
static void test_ppp_viewports(void)
{
    uint32_t w[1 + 4 + 1 + 12];
    uint8_t buf[sizeof(w)];
    AgxPppState st = { 0 };
    const char *why;

    memset(w, 0, sizeof(w));
    w[0] = H_REGION_CLIP | H_VIEWPORT | H_VP_COUNT(2);
    w[2] = 0x1234;
    w[6 + 6 + 1] = fb(3);                       /* viewport 1 scale x */
    g_assert_true(agx_ppp_apply(&st, buf, put_words(buf, w, 18), &why));
    g_assert_cmpuint(st.viewport_count, ==, 2);
    g_assert_cmpuint(st.region_clip[0][1], ==, 0x1234);
    g_assert_cmpfloat(apple_bits_f32(st.viewport[1][AGX_PPP_VP_SCALE_X]), ==,
                      3);
}

/* Sizes that disagree with the header, unknown bits: nothing applied */
static void test_ppp_bad(void)
{
    uint32_t w[] = { H_CULL | H_OUTPUT_SELECT, 5, 6, 7 };
    uint8_t buf[sizeof(w)];
    AgxPppState st = { 0 };
    const char *why = NULL;

    put_words(buf, w, 4);
    g_assert_false(agx_ppp_apply(&st, buf, 16, &why));
    g_assert_nonnull(why);
    g_assert_false(agx_ppp_apply(&st, buf, 8, &why));
    g_assert_nonnull(why);
    g_assert_true(agx_ppp_apply(&st, buf, 12, &why));
    w[0] = 1u << 9;
    put_words(buf, w, 1);
    g_assert_false(agx_ppp_apply(&st, buf, 4, &why));
    g_assert_false(agx_ppp_apply(&st, buf, 0, &why));
    g_assert_cmpuint(st.output_select, ==, 5);
    g_assert_cmpuint(st.cull, ==, 6);
}

/*
 * Fake memory: the tilemap at TILEMAP, the page list at PLIST naming
 * NPAGES pages at PAGES in reverse order; anything else faults
 */
#define TILEMAP     0x10000ULL
#define PLIST       0x20000ULL
#define PAGES       0x100000ULL
#define NPAGES      4

typedef struct FakeMem {
    uint8_t tilemap[2048];
    uint8_t plist[4 * NPAGES];
    uint8_t pages[NPAGES][AGX_SCENE_PAGE_SIZE];
    unsigned faults;
} FakeMem;

static uint8_t *fake_at(FakeMem *f, uint64_t va, uint32_t len)
{
    if (va >= TILEMAP && va + len <= TILEMAP + sizeof(f->tilemap)) {
        return f->tilemap + (va - TILEMAP);
    }
    if (va >= PLIST && va + len <= PLIST + sizeof(f->plist)) {
        return f->plist + (va - PLIST);
    }
    if (va >= PAGES && va + len <= PAGES + sizeof(f->pages)) {
        return f->pages[0] + (va - PAGES);
    }
    f->faults++;
    return NULL;
}

static bool fake_read(void *opaque, uint64_t va, void *buf, uint32_t len)
{
    uint8_t *p = fake_at(opaque, va, len);

    if (p) {
        memcpy(buf, p, len);
    }
    return p;
}

static bool fake_write(void *opaque, uint64_t va, const void *buf,
                       uint32_t len)
{
    uint8_t *p = fake_at(opaque, va, len);

    if (p) {
        memcpy(p, buf, len);
    }
    return p;
}

static FakeMem *fake_new(AgxSceneMem *m)
{
    FakeMem *f = g_new0(FakeMem, 1);

    for (unsigned i = 0; i < NPAGES; i++) {
        uint32_t pn = (PAGES >> 15) + NPAGES - 1 - i;

        put_words(f->plist + 4 * i, &pn, 1);
    }
    *m = (AgxSceneMem) {
        .read = fake_read, .write = fake_write, .opaque = f,
    };
    return f;
}

static void tri(AgxScenePrim *p, float x0, float y0, float x1, float y1,
                float x2, float y2, unsigned nvar, uint32_t tag)
{
    memset(p, 0, sizeof(*p));
    p->kind = AGX_SCENE_TRIANGLE;
    p->front = true;
    p->provoking = 2;
    p->nvar = nvar;
    p->v[0].x = x0;
    p->v[0].y = y0;
    p->v[1].x = x1;
    p->v[1].y = y1;
    p->v[2].x = x2;
    p->v[2].y = y2;
    for (unsigned i = 0; i < 3; i++) {
        p->v[i].z = 0.5f;
        p->v[i].rhw = 1;
        for (unsigned j = 0; j < nvar; j++) {
            p->v[i].var[j] = tag + 16 * i + j;
        }
    }
}

static void scene_target(AgxSceneTarget *t, uint32_t max_pages)
{
    *t = (AgxSceneTarget) {
        .tilemap_va = TILEMAP, .tilemap_size = 2048,
        .page_list_va = PLIST, .ring_pages = NPAGES, .first_page = 1,
        .max_pages = max_pages, .width = 64, .height = 64, .layers = 1,
    };
}

/*
 * Three triangles in the four 32x32 tiles of a 64x64 render, with a state
 * change between them: each tile sees the ones that touch it, in order,
 * with their vertices, outputs and state
 */
static void test_scene_tiles(void)
{
    AgxSceneMem m;
    g_autofree FakeMem *f = fake_new(&m);
    AgxSceneTarget t;
    AgxSceneWriter w;
    AgxSceneReader r;
    AgxSceneCursor c;
    AgxScenePrim p;
    AgxPppState st = { .cull = 1 }, got;
    const char *why;
    uint32_t s1;
    int seen[4] = { 0 };

    scene_target(&t, NPAGES);
    g_assert_true(agx_scene_begin(&w, &m, &t, &why));
    /* Not finished: a fragment job finds no scene */
    g_assert_false(agx_scene_open(&r, &m, TILEMAP, &why));
    g_assert_nonnull(why);
    g_assert_true(agx_scene_put_state(&w, &m, &st));
    tri(&p, 2, 2, 20, 2, 2, 20, 6, 0x100);          /* tile 0, 0 */
    g_assert_cmpint(agx_scene_put_prim(&w, &m, &p), ==, 1);
    s1 = p.state;
    st.cull = 2;
    g_assert_true(agx_scene_put_state(&w, &m, &st));
    tri(&p, 10, 40, 60, 40, 60, 60, 2, 0x200);      /* tiles (0|1, 1) */
    g_assert_cmpint(agx_scene_put_prim(&w, &m, &p), ==, 1);
    tri(&p, 40, 5, 50, 5, 45, 10, 0, 0);            /* tile 1, 0 */
    g_assert_cmpint(agx_scene_put_prim(&w, &m, &p), ==, 1);
    tri(&p, -50, -50, -40, -50, -45, -40, 0, 0);    /* off screen */
    g_assert_cmpint(agx_scene_put_prim(&w, &m, &p), ==, 0);
    g_assert_true(agx_scene_end(&w, &m));
    g_assert_cmpuint(agx_scene_pages_used(&w), ==, 1);

    g_assert_true(agx_scene_open(&r, &m, TILEMAP, &why));
    g_assert_cmpuint(r.prims, ==, 3);
    g_assert_false(r.overflowed);
    for (unsigned ty = 0; ty < 2; ty++) {
        for (unsigned tx = 0; tx < 2; tx++) {
            agx_scene_cursor_tile(&c, tx, ty, 0);
            while (agx_scene_next(&r, &m, &c, &p, &why) == 1) {
                seen[ty * 2 + tx] = seen[ty * 2 + tx] * 10 + p.nvar;
                g_assert_true(agx_scene_get_state(&r, &m, p.state, &got,
                                                  &why));
                g_assert_cmpuint(got.cull, ==, p.nvar == 6 ? 1 : 2);
                if (p.nvar == 6) {
                    g_assert_cmpuint(p.state, ==, s1);
                    g_assert_cmpfloat(p.v[1].x, ==, 20);
                    g_assert_cmpuint(p.v[2].var[5], ==, 0x100 + 32 + 5);
                    g_assert_cmpuint(p.provoking, ==, 2);
                    g_assert_true(p.front);
                }
            }
            g_assert_null(why);
        }
    }
    g_assert_cmpint(seen[0], ==, 6);
    g_assert_cmpint(seen[1], ==, 0);       /* the nvar 0 triangle: 0 */
    g_assert_cmpint(seen[2], ==, 2);
    g_assert_cmpint(seen[3], ==, 2);
    g_assert_cmpuint(f->faults, ==, 0);
}

/*
 * A scene bigger than its page limit: the primitives that do not fit are
 * dropped and counted, the header says it overflowed; records straddle
 * pages that are not contiguous
 */
static void test_scene_overflow(void)
{
    AgxSceneMem m;
    g_autofree FakeMem *f = fake_new(&m);
    AgxSceneTarget t;
    AgxSceneWriter w;
    AgxSceneReader r;
    AgxSceneCursor c;
    AgxScenePrim p;
    AgxPppState st = { 0 };
    const char *why;
    unsigned stored = 0, read = 0;

    scene_target(&t, 2);
    g_assert_true(agx_scene_begin(&w, &m, &t, &why));
    g_assert_true(agx_scene_put_state(&w, &m, &st));
    for (unsigned i = 0; i < 100; i++) {
        tri(&p, 1, 1, 30, 1, 1, 30, 128, i << 16);
        stored += agx_scene_put_prim(&w, &m, &p) == 1;
    }
    g_assert_true(agx_scene_end(&w, &m));
    g_assert_cmpuint(stored, ==, 2 * AGX_SCENE_PAGE_SIZE / (4 * (8 + 3 * 132)));
    g_assert_cmpuint(w.dropped, ==, 100 - stored);
    g_assert_cmpuint(agx_scene_pages_used(&w), ==, 2);
    g_assert_true(agx_scene_open(&r, &m, TILEMAP, &why));
    g_assert_true(r.overflowed);
    agx_scene_cursor_tile(&c, 0, 0, 0);
    while (agx_scene_next(&r, &m, &c, &p, &why) == 1) {
        g_assert_cmpuint(p.v[1].var[127], ==, (read << 16) + 16 + 127);
        read++;
    }
    g_assert_cmpuint(read, ==, stored);
    g_assert_cmpuint(f->faults, ==, 0);
}

/* A corrupt heap or header is reported, not followed */
static void test_scene_corrupt(void)
{
    AgxSceneMem m;
    g_autofree FakeMem *f = fake_new(&m);
    AgxSceneTarget t;
    AgxSceneWriter w;
    AgxSceneReader r;
    AgxSceneCursor c;
    AgxScenePrim p;
    AgxPppState st = { 0 };
    const char *why;

    scene_target(&t, NPAGES);
    g_assert_true(agx_scene_begin(&w, &m, &t, &why));
    g_assert_true(agx_scene_put_state(&w, &m, &st));
    tri(&p, 1, 1, 30, 1, 1, 30, 1, 0);
    g_assert_cmpint(agx_scene_put_prim(&w, &m, &p), ==, 1);
    g_assert_true(agx_scene_end(&w, &m));
    g_assert_true(agx_scene_open(&r, &m, TILEMAP, &why));
    /* Page 1 of the list is the first: smash the primitive's tag */
    memset(f->pages[NPAGES - 2] + 4 * (1 + AGX_PPP_STATE_WORDS), 0xff, 4);
    agx_scene_cursor_tile(&c, 0, 0, 0);
    g_assert_cmpint(agx_scene_next(&r, &m, &c, &p, &why), ==, -1);
    g_assert_nonnull(why);
    g_assert_false(agx_scene_get_state(&r, &m, 4, &st, &why));
    /* A page list naming an unmapped page: a fault (why NULL) */
    memset(f->plist + 4, 0, 4);
    agx_scene_cursor_tile(&c, 0, 0, 0);
    g_assert_cmpint(agx_scene_next(&r, &m, &c, &p, &why), ==, -1);
    g_assert_null(why);
    /* Too small a tilemap */
    t.tilemap_size = 16;
    g_assert_false(agx_scene_begin(&w, &m, &t, &why));
    g_assert_nonnull(why);
}

/*
 * Per-tile lists: 60 triangles of varied sizes over the four tiles, each
 * tile's walk (its list, chunks of a dozen chained) gives exactly the
 * triangles whose box meets it, in submission order, as the CPU finds
 * them; a rectangle across tiles walks every record and agrees
 */
static void test_scene_tile_lists(void)
{
    AgxSceneMem m;
    g_autofree FakeMem *f = fake_new(&m);
    g_autofree AgxScenePrim *p = g_new0(AgxScenePrim, 1);
    uint16_t box[60][4];
    AgxSceneTarget t;
    AgxSceneWriter w;
    AgxSceneReader r;
    AgxSceneCursor c;
    AgxPppState st = { 0 };
    const char *why;

    scene_target(&t, NPAGES);
    g_assert_true(agx_scene_begin(&w, &m, &t, &why));
    g_assert_true(w.tile_lists);
    g_assert_true(agx_scene_put_state(&w, &m, &st));
    for (unsigned i = 0; i < 60; i++) {
        float x = (i * 7) % 50, y = (i * 13) % 50, s = 2 + (i % 5) * 6;

        tri(p, x, y, x + s, y, x, y + s, 1, i << 8);
        g_assert_cmpint(agx_scene_put_prim(&w, &m, p), ==, 1);
        box[i][0] = p->x0;
        box[i][1] = p->y0;
        box[i][2] = p->x1;
        box[i][3] = p->y1;
    }
    g_assert_true(agx_scene_end(&w, &m));
    g_assert_true(agx_scene_open(&r, &m, TILEMAP, &why));
    g_assert_true(r.tile_lists);
    for (unsigned tile = 0; tile < 5; tile++) {
        /* Tiles (0,0) (1,0) (0,1) (1,1), then a rectangle across them */
        uint32_t x0 = tile < 4 ? 32 * (tile % 2) : 20;
        uint32_t y0 = tile < 4 ? 32 * (tile / 2) : 20;
        uint32_t x1 = tile < 4 ? x0 + 32 : 44, y1 = tile < 4 ? y0 + 32 : 44;
        unsigned next = 0, seen = 0;

        agx_scene_cursor_rect(&c, x0, y0, x1, y1, 0);
        while (agx_scene_next(&r, &m, &c, p, &why) == 1) {
            unsigned i = p->v[0].var[0] >> 8;

            /* The boxes before it that meet the rectangle were seen */
            for (; next < i; next++) {
                g_assert_false(box[next][0] < x1 && box[next][2] > x0 &&
                               box[next][1] < y1 && box[next][3] > y0);
            }
            g_assert_true(box[i][0] < x1 && box[i][2] > x0 &&
                          box[i][1] < y1 && box[i][3] > y0);
            next = i + 1;
            seen++;
        }
        g_assert_null(why);
        for (; next < 60; next++) {
            g_assert_false(box[next][0] < x1 && box[next][2] > x0 &&
                           box[next][1] < y1 && box[next][3] > y0);
        }
        g_assert_cmpuint(seen, >, tile == 0 ? 12 : 0);
    }
    g_assert_cmpuint(f->faults, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/agx/ppp/update-applies-its-structures", test_ppp_apply);
    g_test_add_func("/agx/ppp/viewports-follow-the-count",
                    test_ppp_viewports);
    g_test_add_func("/agx/ppp/bad-update-is-refused", test_ppp_bad);
    g_test_add_func("/agx/scene/tiles-see-their-primitives",
                    test_scene_tiles);
    g_test_add_func("/agx/scene/overflow-drops-and-counts",
                    test_scene_overflow);
    g_test_add_func("/agx/scene/tile-lists-hold-what-meets-the-tile",
                    test_scene_tile_lists);
    g_test_add_func("/agx/scene/corrupt-scene-is-reported",
                    test_scene_corrupt);
    return g_test_run();
}
