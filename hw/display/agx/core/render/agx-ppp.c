/*
 * AGX PPP state: applying a VDM PPP State update
 *
 * Layout: include/hw/agx/agx-ppp.h (Mesa's cmdbuf.xml "PPP Header" and
 * the structures it names, in the order decode.c reads them).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <string.h>
#include "hw/agx/agx-ppp.h"

/* Single words, in header-bit order, up to the depth bias / scissor */
static uint32_t *ppp_early_word(AgxPppState *st, unsigned bit)
{
    switch (1u << bit) {
    case AGX_PPP_FRAG_CONTROL:
        return &st->frag_control;
    case AGX_PPP_FRAG_CONTROL_2:
        return &st->frag_control_2;
    case AGX_PPP_FRONT_FACE:
        return &st->front_face;
    case AGX_PPP_FRONT_FACE_2:
        return &st->front_face_2;
    case AGX_PPP_FRONT_STENCIL:
        return &st->front_stencil;
    case AGX_PPP_BACK_FACE:
        return &st->back_face;
    case AGX_PPP_BACK_FACE_2:
        return &st->back_face_2;
    case AGX_PPP_BACK_STENCIL:
        return &st->back_stencil;
    case AGX_PPP_DBIAS_SCISSOR:
        return &st->dbias_scissor;
    default:
        return NULL;
    }
}

/* A reader over the update's words */
typedef struct PppIn {
    const uint8_t *buf;
    uint32_t size, pos;
} PppIn;

static bool ppp_take(PppIn *in, uint32_t *words, unsigned n)
{
    if (in->size - in->pos < 4 * n) {
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *b = in->buf + in->pos + 4 * i;

        words[i] = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
    }
    in->pos += 4 * n;
    return true;
}

bool agx_ppp_apply(AgxPppState *out, const uint8_t *buf, uint32_t size,
                   const char **why)
{
    static const uint32_t known = 0x1feffdff;
    PppIn in = { .buf = buf, .size = size };
    AgxPppState st = *out;
    uint32_t hdr, n;

    *why = "update shorter than its header implies";
    if (!ppp_take(&in, &hdr, 1)) {
        return false;
    }
    if (hdr & ~known) {
        *why = "unknown bits in the PPP header";
        return false;
    }
    for (unsigned bit = 0; bit <= 8; bit++) {
        uint32_t *w = ppp_early_word(&st, bit);

        if (w && (hdr & (1u << bit)) && !ppp_take(&in, w, 1)) {
            return false;
        }
    }
    n = APPLE_FIELD_EX64(hdr, PPP_HEADER, VIEWPORT_COUNT) + 1;
    if (hdr & (AGX_PPP_REGION_CLIP | AGX_PPP_VIEWPORT)) {
        st.viewport_count = n;
    }
    if (hdr & AGX_PPP_REGION_CLIP) {
        for (unsigned i = 0; i < n; i++) {
            if (!ppp_take(&in, st.region_clip[i], 2)) {
                return false;
            }
        }
    }
    if (hdr & AGX_PPP_VIEWPORT) {
        if (!ppp_take(&in, &st.viewport_control, 1)) {
            return false;
        }
        for (unsigned i = 0; i < n; i++) {
            if (!ppp_take(&in, st.viewport[i], AGX_PPP_VP_WORDS)) {
                return false;
            }
        }
    }
    if (((hdr & AGX_PPP_W_CLAMP) && !ppp_take(&in, &st.w_clamp, 1)) ||
        ((hdr & AGX_PPP_OUTPUT_SELECT) &&
         !ppp_take(&in, &st.output_select, 1)) ||
        ((hdr & AGX_PPP_VARYING_COUNTS_32) &&
         !ppp_take(&in, &st.varying_counts_32, 1)) ||
        ((hdr & AGX_PPP_VARYING_COUNTS_16) &&
         !ppp_take(&in, &st.varying_counts_16, 1)) ||
        ((hdr & AGX_PPP_CULL) && !ppp_take(&in, &st.cull, 1)) ||
        ((hdr & AGX_PPP_CULL_2) && !ppp_take(&in, &st.cull_2, 1)) ||
        ((hdr & AGX_PPP_FRAGMENT_SHADER) && !ppp_take(&in, st.fs_word, 4)) ||
        ((hdr & AGX_PPP_OCCLUSION_QUERY) &&
         !ppp_take(&in, &st.occlusion_query, 1)) ||
        ((hdr & AGX_PPP_OCCLUSION_QUERY_2) &&
         !ppp_take(&in, &st.occlusion_query_2, 1)) ||
        ((hdr & AGX_PPP_OUTPUT_UNKNOWN) &&
         !ppp_take(&in, &st.output_unknown, 1)) ||
        ((hdr & AGX_PPP_OUTPUT_SIZE) && !ppp_take(&in, &st.output_size, 1)) ||
        ((hdr & AGX_PPP_VARYING_WORD_2) &&
         !ppp_take(&in, st.varying_word_2, 2))) {
        return false;
    }
    if (in.pos != size) {
        *why = "update longer than its header implies";
        return false;
    }
    st.present |= hdr & ~APPLE_FIELD_MASK(PPP_HEADER, VIEWPORT_COUNT);
    *out = st;
    *why = NULL;
    return true;
}

void agx_ppp_to_words(const AgxPppState *st,
                      uint32_t words[AGX_PPP_STATE_WORDS])
{
    memcpy(words, st, sizeof(*st));
}

void agx_ppp_from_words(AgxPppState *st,
                        const uint32_t words[AGX_PPP_STATE_WORDS])
{
    memcpy(st, words, sizeof(*st));
}
