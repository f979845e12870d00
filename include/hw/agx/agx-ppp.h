/*
 * AGX PPP state: the render state a VDM PPP State block updates
 *
 * A VDM PPP State block points at an update: a 32-bit header whose bits
 * say which structures follow, then those structures in header-bit order
 * (Mesa's cmdbuf.xml "PPP Header" and decode.c): fragment control words,
 * front and back face and stencil words, the depth bias / scissor
 * indices, region clips and viewports (one per viewport of the header's
 * count), W clamp, output select, varying counts, cull words, the four
 * fragment shader words, occlusion query words, output size and the
 * varying word 2.  The state in force at a draw is every update of the
 * render so far, applied in stream order: AgxPppState holds it, word for
 * word as the stream gave it (fields decoded with the masks below), so
 * that the vertex pipe and the fragment pipe read the same thing.
 *
 * AgxPppState holds only uint32_t words, so it is stored in guest memory
 * (agx-scene.h) and migrated as an array of AGX_PPP_STATE_WORDS words.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_PPP_H
#define HW_AGX_AGX_PPP_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/apple/apple-bits.h"

#define AGX_PPP_MAX_VIEWPORTS   16

/* PPP header bits: which structures an update carries */
enum {
    AGX_PPP_FRAG_CONTROL = 1u << 0,
    AGX_PPP_FRAG_CONTROL_2 = 1u << 1,
    AGX_PPP_FRONT_FACE = 1u << 2,
    AGX_PPP_FRONT_FACE_2 = 1u << 3,
    AGX_PPP_FRONT_STENCIL = 1u << 4,
    AGX_PPP_BACK_FACE = 1u << 5,
    AGX_PPP_BACK_FACE_2 = 1u << 6,
    AGX_PPP_BACK_STENCIL = 1u << 7,
    AGX_PPP_DBIAS_SCISSOR = 1u << 8,
    AGX_PPP_REGION_CLIP = 1u << 10,
    AGX_PPP_VIEWPORT = 1u << 11,
    AGX_PPP_W_CLAMP = 1u << 16,
    AGX_PPP_OUTPUT_SELECT = 1u << 17,
    AGX_PPP_VARYING_COUNTS_32 = 1u << 18,
    AGX_PPP_VARYING_COUNTS_16 = 1u << 19,
    AGX_PPP_CULL = 1u << 21,
    AGX_PPP_CULL_2 = 1u << 22,
    AGX_PPP_FRAGMENT_SHADER = 1u << 23,
    AGX_PPP_OCCLUSION_QUERY = 1u << 24,
    AGX_PPP_OCCLUSION_QUERY_2 = 1u << 25,
    AGX_PPP_OUTPUT_UNKNOWN = 1u << 26,
    AGX_PPP_OUTPUT_SIZE = 1u << 27,
    AGX_PPP_VARYING_WORD_2 = 1u << 28,
};
/* Header: viewport (and region clip) count, minus one */
APPLE_FIELD(PPP_HEADER, VIEWPORT_COUNT, 12, 4);

/* Fragment control */
APPLE_FIELD(PPP_FRAG_CONTROL, VISIBILITY_MODE, 14, 2);
APPLE_FIELD(PPP_FRAG_CONTROL, SCISSOR_ENABLE, 16, 1);
APPLE_FIELD(PPP_FRAG_CONTROL, DBIAS_ENABLE, 17, 1);
APPLE_FIELD(PPP_FRAG_CONTROL, STENCIL_ENABLE, 18, 1);
APPLE_FIELD(PPP_FRAG_CONTROL, TWO_SIDED_STENCIL, 19, 1);
APPLE_FIELD(PPP_FRAG_CONTROL, TAG_WRITE_DISABLE, 21, 1);
APPLE_FIELD(PPP_FRAG_CONTROL, SAMPLE_MASK_AFTER_ZS, 25, 1);
APPLE_FIELD(PPP_FRAG_CONTROL, PASS_TYPE, 29, 3);
/* Fragment face (front or back) */
APPLE_FIELD(PPP_FACE, STENCIL_REF, 0, 8);
APPLE_FIELD(PPP_FACE, LINE_WIDTH, 8, 8);       /* 4.4 fixed, minus 1/16 */
APPLE_FIELD(PPP_FACE, POLYGON_MODE, 18, 2);
APPLE_FIELD(PPP_FACE, DISABLE_DEPTH_WRITE, 21, 1);
APPLE_FIELD(PPP_FACE, DEPTH_FUNC, 24, 3);
/* Fragment face 2 */
APPLE_FIELD(PPP_FACE2, DISABLE_DEPTH_WRITE, 21, 1);
APPLE_FIELD(PPP_FACE2, CONSERVATIVE_DEPTH, 22, 2);
APPLE_FIELD(PPP_FACE2, DEPTH_FUNC, 24, 3);
APPLE_FIELD(PPP_FACE2, OBJECT_TYPE, 28, 4);
/* Fragment stencil (front or back) */
APPLE_FIELD(PPP_STENCIL, WRITE_MASK, 0, 8);
APPLE_FIELD(PPP_STENCIL, READ_MASK, 8, 8);
APPLE_FIELD(PPP_STENCIL, DEPTH_PASS, 16, 3);
APPLE_FIELD(PPP_STENCIL, DEPTH_FAIL, 19, 3);
APPLE_FIELD(PPP_STENCIL, STENCIL_FAIL, 22, 3);
APPLE_FIELD(PPP_STENCIL, COMPARE, 25, 3);
/* Depth bias / scissor: indices into the render's arrays */
APPLE_FIELD(PPP_DBIAS_SCISSOR, SCISSOR, 0, 16);
APPLE_FIELD(PPP_DBIAS_SCISSOR, DBIAS, 16, 16);
/* Cull */
APPLE_FIELD(PPP_CULL, FRONT, 0, 1);
APPLE_FIELD(PPP_CULL, BACK, 1, 1);
APPLE_FIELD(PPP_CULL, FLAT_SHADING_VERTEX, 7, 2);  /* 1..3: vertex 0..2 */
APPLE_FIELD(PPP_CULL, DEPTH_CLIP, 10, 1);
APPLE_FIELD(PPP_CULL, DEPTH_CLAMP, 11, 1);
APPLE_FIELD(PPP_CULL, PRIMITIVE_MSAA, 15, 1);
APPLE_FIELD(PPP_CULL, FRONT_FACE_CCW, 16, 1);
APPLE_FIELD(PPP_CULL, RASTERIZER_DISCARD, 17, 1);
/* Cull 2 */
APPLE_FIELD(PPP_CULL2, CLAMP_W, 5, 1);
APPLE_FIELD(PPP_CULL2, RASTERIZER_DISCARD, 17, 1);
/* Output select */
APPLE_FIELD(PPP_OUTPUT_SELECT, CLIP_DISTANCES, 0, 16);
APPLE_FIELD(PPP_OUTPUT_SELECT, VARYINGS, 16, 1);
APPLE_FIELD(PPP_OUTPUT_SELECT, POINT_SIZE, 18, 1);
APPLE_FIELD(PPP_OUTPUT_SELECT, VIEWPORT_TARGET, 19, 1);
APPLE_FIELD(PPP_OUTPUT_SELECT, RENDER_TARGET, 20, 1);
APPLE_FIELD(PPP_OUTPUT_SELECT, FRAG_COORD_Z, 21, 1);
APPLE_FIELD(PPP_OUTPUT_SELECT, BARYCENTRIC, 22, 1);
/* Varying counts (32- and 16-bit words) */
APPLE_FIELD(PPP_VARYING_COUNTS, SMOOTH, 0, 8);
APPLE_FIELD(PPP_VARYING_COUNTS, FLAT, 8, 8);
APPLE_FIELD(PPP_VARYING_COUNTS, LINEAR, 16, 8);
/* Fragment shader word 0 (counts as the CDM Launch Word0), 1, 2 */
APPLE_FIELD(PPP_FS_WORD0, SAMPLERS, 9, 3);
APPLE_FIELD(PPP_FS_WORD0, PRESHADER_REGS, 12, 4);
APPLE_FIELD(PPP_FS_WORD0, CF_BINDING_COUNT, 16, 7);
#define AGX_PPP_FS_PIPELINE_MASK    0xffffffc0u     /* word 1: USC offset */
#define AGX_PPP_FS_CF_BINDINGS_MASK 0xfffffffcu     /* word 2: USC offset */
/* Occlusion query: 64-bit counter index */
APPLE_FIELD(PPP_OCCLUSION_QUERY, INDEX, 17, 15);

/* One viewport: float bits, in the stream's order */
enum {
    AGX_PPP_VP_TRANSLATE_X,
    AGX_PPP_VP_SCALE_X,
    AGX_PPP_VP_TRANSLATE_Y,
    AGX_PPP_VP_SCALE_Y,
    AGX_PPP_VP_TRANSLATE_Z,
    AGX_PPP_VP_SCALE_Z,
    AGX_PPP_VP_WORDS,
};

/*
 * The accumulated PPP state.  Every field is the stream's word as it
 * was last given (0 until then); @present has a header bit set once an
 * update carried that structure.  Only uint32_t members: see above.
 */
typedef struct AgxPppState {
    uint32_t present;
    uint32_t frag_control;
    uint32_t frag_control_2;
    uint32_t front_face;
    uint32_t front_face_2;
    uint32_t front_stencil;
    uint32_t back_face;
    uint32_t back_face_2;
    uint32_t back_stencil;
    uint32_t dbias_scissor;
    uint32_t viewport_count;            /* 1..16, of the last update */
    uint32_t viewport_control;
    uint32_t region_clip[AGX_PPP_MAX_VIEWPORTS][2];
    uint32_t viewport[AGX_PPP_MAX_VIEWPORTS][AGX_PPP_VP_WORDS];
    uint32_t w_clamp;                   /* float bits */
    uint32_t output_select;
    uint32_t varying_counts_32;
    uint32_t varying_counts_16;
    uint32_t cull;
    uint32_t cull_2;
    uint32_t fs_word[4];
    uint32_t occlusion_query;
    uint32_t occlusion_query_2;
    uint32_t output_unknown;
    uint32_t output_size;
    uint32_t varying_word_2[2];
} AgxPppState;

#define AGX_PPP_STATE_WORDS     (sizeof(AgxPppState) / sizeof(uint32_t))

/* The largest update, in bytes (every structure, 16 viewports) */
#define AGX_PPP_MAX_UPDATE      (4 * (1 + 10 + 2 * 16 + 1 + 6 * 16 + 7 + \
                                      4 + 4 + 2))

/*
 * Apply the update of @size bytes at @buf to @st.  False if it is not
 * well formed (the sizes the header implies differ from @size), with
 * *@why saying how; @st is then unchanged.
 */
bool agx_ppp_apply(AgxPppState *st, const uint8_t *buf, uint32_t size,
                   const char **why);

/* The state's words as an array (for storing and migrating it) */
void agx_ppp_to_words(const AgxPppState *st,
                      uint32_t words[AGX_PPP_STATE_WORDS]);
void agx_ppp_from_words(AgxPppState *st,
                        const uint32_t words[AGX_PPP_STATE_WORDS]);

/* Decoded helpers */
/* USC offset of the fragment shader's pipeline (USC control words) */
static inline uint32_t agx_ppp_fs_pipeline(const AgxPppState *st)
{
    return st->fs_word[1] & AGX_PPP_FS_PIPELINE_MASK;
}

/* USC offset of the CF binding header and bindings */
static inline uint32_t agx_ppp_cf_bindings(const AgxPppState *st)
{
    return st->fs_word[2] & AGX_PPP_FS_CF_BINDINGS_MASK;
}

#endif
