/*
 * AGX binned scene: what a render's vertex job leaves for its fragment job
 *
 * The tiled vertex buffer's format is the hardware's own: produced by the
 * tiler, consumed by the ISP, opaque to the driver.  The model uses this
 * private format instead, written by the vertex pipe (the VDM, agx-vdm.c)
 * and read by the fragment pipe, and kept entirely in guest memory the
 * driver gave the render, so that a fragment job can run after a
 * migration with nothing but the guest's memory and its Run record:
 *
 *  - the scene header, at the start of the scene's tilemap (RunVertex
 *    job_params1.tvb_tilemap = RunFragment.tvb_tilemap; drm/asahi gives
 *    each scene its own, 4 x rgn_size x 16 x layers bytes, at least 1280,
 *    and zeroes it when it makes the scene).  It says where the rest is;
 *  - records in the TVB heap: the pages of the render's buffer::Info page
 *    list (u32 page numbers, VA >> 15; 32 KiB pages), those of the
 *    buffer's ring the buffer manager gave the scene (agx-tvb.h, live
 *    scenes).  A scene's bytes are
 *    numbered from 0 ("heap offsets"); offset o is in page
 *    (first_page + o / 32K) mod ring_pages of the list.
 *
 * Records, in submission order: a state record (the AgxPppState in force,
 * written when it changed before a primitive) and primitive records.  A
 * primitive: its kind (point, line, triangle), its vertices in window
 * space (x, y in pixels, z in [0, 1] after the depth range, 1/w), the
 * vertex outputs of each vertex (the 32-bit words the vertex shader
 * stored with st_var from index 4 on, i.e. after the position: var[i] is
 * st_var index 4 + i, so a fragment shader's CF binding slot s >= 1 +
 * reads_z is var[s - 1 - reads_z]), whether it faces front, its
 * provoking vertex, layer, the pixel bounding box it may touch, and the
 * heap offset of its state record.  Slot 0 of a CF binding is W (1/rhw),
 * slot 1 Z when the fragment shader reads it (agx_nir_lower_uvs.c).
 *
 * Per-tile lists: after the header, the tilemap holds a u32 per 32 x 32
 * tile and layer (the heap offset of its last list chunk, 0: none); a
 * chunk (64 bytes in the heap) links to the one before and after it and
 * holds the offsets of up to 13 primitives whose bounding box touches
 * the tile.  A walk over a rectangle inside one tile follows its list;
 * any other rectangle walks every primitive and skips those whose
 * bounding box misses it (so does every walk when the tilemap has no
 * room for the table, which drm/asahi's sizes always leave).
 *
 * Heap bytes used are what the render reports as its TVB use (pages,
 * buffer::Stats.max_pages).  A pass of the scene may fill its limit up to
 * a reserve (AGX_SCENE_RESERVE_PAGES): past that, agx_scene_pass_full()
 * asks the vertex pipe for a partial render at the end of its batch of
 * primitives (agx-vdm.c): the binned pass is rendered
 * (agx_scene_pass_end()), its pages are freed and the scene starts its
 * next pass at heap offset 0 with empty tile lists
 * (agx_scene_pass_restart()); the header counts the passes so the
 * fragment job knows it renders the last one.  Only what does not fit
 * even into the reserve (or a scene whose render has no fragment command
 * to pause with) overflows: later primitives are dropped and counted.
 *
 * Every structure the two pipes keep across slices (AgxSceneWriter,
 * AgxSceneReader, AgxSceneCursor) holds only integers: they go in VMState.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_SCENE_H
#define HW_AGX_AGX_SCENE_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-ppp.h"

#define AGX_SCENE_TILE          32          /* pixels, square */
#define AGX_SCENE_PAGE_SHIFT    15          /* TVB pages: 32 KiB */
#define AGX_SCENE_PAGE_SIZE     (1u << AGX_SCENE_PAGE_SHIFT)
/* Bytes of the header at the start of the tilemap */
#define AGX_SCENE_HEADER_SIZE   64
/* Vertex output words a vertex keeps beyond its position */
#define AGX_SCENE_MAX_VARYINGS  128
#define AGX_SCENE_MAGIC         0x53584741u /* "AGXS" */
#define AGX_SCENE_VERSION       3
/* Pages of a pass's limit kept for the end of the batch that fills it */
#define AGX_SCENE_RESERVE_PAGES 1

/* Guest memory the scene lives in (the job's UAT context) */
typedef struct AgxSceneMem {
    bool (*read)(void *opaque, uint64_t va, void *buf, uint32_t len);
    bool (*write)(void *opaque, uint64_t va, const void *buf, uint32_t len);
    void *opaque;
} AgxSceneMem;

typedef enum AgxScenePrimKind {
    AGX_SCENE_POINT = 1,
    AGX_SCENE_LINE = 2,
    AGX_SCENE_TRIANGLE = 3,     /* the kind is also the vertex count */
} AgxScenePrimKind;

typedef struct AgxSceneVertex {
    float x, y;                 /* window space, pixels */
    float z;                    /* after the depth range: [0, 1] */
    float rhw;                  /* 1 / clip w */
    uint32_t var[AGX_SCENE_MAX_VARYINGS];
} AgxSceneVertex;

typedef struct AgxScenePrim {
    uint32_t kind;              /* AgxScenePrimKind */
    bool front;                 /* front-facing (points, lines: true) */
    uint32_t provoking;         /* index in v[] of the provoking vertex */
    uint32_t layer;
    uint32_t viewport;
    uint32_t prim_id;           /* primitive index within its draw */
    uint32_t state;             /* heap offset of its state record */
    uint32_t nvar;              /* words of var[] each vertex has */
    float size;                 /* points: size; lines: width (pixels) */
    /* Pixels it may touch: [x0, x1) x [y0, y1), within the render */
    uint16_t x0, y0, x1, y1;
    AgxSceneVertex v[3];
} AgxScenePrim;

/* Where a render's scene goes: what the vertex job's records give */
typedef struct AgxSceneTarget {
    uint64_t tilemap_va;
    uint64_t tilemap_size;
    uint64_t page_list_va;      /* buffer::Info.page_list */
    uint32_t ring_pages;        /* pages in the list (the ring's size) */
    uint32_t first_page;        /* where this scene starts in the ring */
    uint32_t max_pages;         /* its limit: more overflows */
    uint32_t width, height;     /* pixels */
    uint32_t layers;
} AgxSceneTarget;

/* The writer's state: integers only (VMState) */
typedef struct AgxSceneWriter {
    uint64_t tilemap_va;
    uint64_t page_list_va;
    uint32_t ring_pages, first_page, max_pages;
    uint32_t width, height, layers;
    uint32_t used;              /* heap bytes written in this pass */
    uint32_t prims;             /* primitives stored, every pass */
    uint32_t dropped;           /* primitives lost to overflow */
    uint32_t state;             /* heap offset of the current state record */
    bool have_state;
    bool overflowed;            /* a pass overflowed: primitives dropped */
    bool tile_lists;            /* the tilemap holds the tile table */
    uint32_t passes;            /* partial renders done (passes ended) */
    uint32_t pass_prims;        /* primitives stored in this pass */
    uint32_t done_pages;        /* pages the ended passes used */
    uint32_t peak_pages;        /* the most an ended pass used */
    bool full;                  /* this pass overflowed */
} AgxSceneWriter;

/*
 * Start the scene for @t: write its header (empty, not complete).  False
 * if the target is unusable (tilemap too small, no pages): *@why says why;
 * or if writing faulted (*@why NULL).
 */
bool agx_scene_begin(AgxSceneWriter *w, const AgxSceneMem *m,
                     const AgxSceneTarget *t, const char **why);

/* The state in force changed: store it for the primitives that follow */
bool agx_scene_put_state(AgxSceneWriter *w, const AgxSceneMem *m,
                         const AgxPppState *st);

/*
 * Store primitive @p (its state is the last put; p->state, x0..y1 are
 * computed here from the vertices and p->size).  1: stored; 0: dropped
 * (outside the render, or overflow); -1: writing faulted.
 */
int agx_scene_put_prim(AgxSceneWriter *w, const AgxSceneMem *m,
                       AgxScenePrim *p);

/* Finish: write the header, complete.  False if writing faulted. */
bool agx_scene_end(AgxSceneWriter *w, const AgxSceneMem *m);

/* Pages of the heap this pass of the scene used */
uint32_t agx_scene_pages_used(const AgxSceneWriter *w);

/* ... and every pass of it (what Stats.max_pages reports) */
uint32_t agx_scene_total_pages(const AgxSceneWriter *w);

/* ... and the most any pass used: the pages the scene holds */
uint32_t agx_scene_peak_pages(const AgxSceneWriter *w);

/*
 * Has this pass used its limit but the reserve, with primitives to
 * render?  Then it is time for a partial render.
 */
bool agx_scene_pass_full(const AgxSceneWriter *w);

/*
 * A partial render: the pass so far is complete for the reader (it can
 * be opened and walked).  False if writing faulted.
 */
bool agx_scene_pass_end(AgxSceneWriter *w, const AgxSceneMem *m);

/*
 * ... and was rendered: its pages are free, the next pass starts empty
 * (no state record: the next primitive's is stored first).  False if
 * writing faulted.
 */
bool agx_scene_pass_restart(AgxSceneWriter *w, const AgxSceneMem *m);

/* What a scene says of itself */
typedef struct AgxSceneReader {
    uint64_t page_list_va;
    uint32_t ring_pages, first_page;
    uint32_t width, height, layers;
    uint32_t used, prims, dropped;
    uint32_t passes;            /* partial renders before this pass */
    bool complete;
    bool overflowed;
    bool tile_lists;
    uint64_t tilemap_va;
} AgxSceneReader;

/* A walk over the primitives touching one rectangle: integers only */
typedef struct AgxSceneCursor {
    uint32_t x0, y0, x1, y1;    /* pixels, [x0, x1) x [y0, y1) */
    uint32_t layer;
    uint32_t off;               /* heap offset of the next record */
    uint32_t index;             /* primitives passed */
    uint32_t mode;              /* 0: not begun, 1: every record, 2: list */
    uint32_t chunk;             /* list: heap offset of the chunk, 0: end */
    uint32_t slot;              /* list: next entry of the chunk */
} AgxSceneCursor;

/*
 * Open the scene whose tilemap is at @tilemap_va.  False if there is
 * none there (the vertex job did not run or did not finish: *@why) or
 * reading faulted (*@why NULL).
 */
bool agx_scene_open(AgxSceneReader *r, const AgxSceneMem *m,
                    uint64_t tilemap_va, const char **why);

/* Start a walk over the primitives touching a rectangle of @layer */
void agx_scene_cursor_rect(AgxSceneCursor *c, uint32_t x0, uint32_t y0,
                           uint32_t x1, uint32_t y1, uint32_t layer);

/* ... or 32 x 32 tile (@tx, @ty) */
static inline void agx_scene_cursor_tile(AgxSceneCursor *c, uint32_t tx,
                                         uint32_t ty, uint32_t layer)
{
    agx_scene_cursor_rect(c, tx * AGX_SCENE_TILE, ty * AGX_SCENE_TILE,
                          (tx + 1) * AGX_SCENE_TILE,
                          (ty + 1) * AGX_SCENE_TILE, layer);
}

/*
 * The next primitive of the walk, in submission order.  1: *@p filled;
 * 0: no more; -1: reading faulted or the scene is corrupt (*@why says
 * which, NULL for a fault).
 */
int agx_scene_next(const AgxSceneReader *r, const AgxSceneMem *m,
                   AgxSceneCursor *c, AgxScenePrim *p, const char **why);

/* The state record at heap offset @state (AgxScenePrim.state) */
bool agx_scene_get_state(const AgxSceneReader *r, const AgxSceneMem *m,
                         uint32_t state, AgxPppState *st, const char **why);

#endif
