/*
 * Unit tests for the job parameter blocks the firmware reads when a job
 * starts (agx-params.c): each pipe's blocks, read through the Start op's
 * pointers and from the Run record, on both ABIs, at the offsets
 * drm/asahi's structures give them (written down here from
 * fw/{vertex,fragment,compute}.rs, not from the model's tables)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-params.h"
#include "agx-fake.h"

/* A field the driver writes: where in the record, how wide, its name */
typedef struct Probe {
    const char *name;
    uint32_t off[AGX_FW_NUM_VERSIONS];  /* in the Run record: 12.3, 13.5 */
    unsigned width;
} Probe;

/*
 * Record offsets: the block's place in the record plus the field's in
 * the block (12.3 lacks the 13.0b4 counter, 8 bytes, before the blocks)
 */
static const Probe vertex_probes[] = {
    /* RunVertex: the word after sync_grow, unk_568, is uses_scratch */
    { "uses_scratch", { 0x560, 0x568 }, 4 },
    /* TilingParameters at 0x3bc / 0x3c4: x_max +0xc, helper_cfg +0x2c */
    { "tiling.x_max", { 0x3bc + 0xc, 0x3c4 + 0xc }, 2 },
    { "tiling.y_max", { 0x3bc + 0xe, 0x3c4 + 0xe }, 2 },
    { "tiling.helper_cfg", { 0x3bc + 0x2c, 0x3c4 + 0x2c }, 4 },
    /* JobParameters1 at 0x38 / 0x40 */
    { "params1.vdm_ctrl_stream_base", { 0x38 + 0x90, 0x40 + 0x90 }, 8 },
    { "params1.usc_exec_base_ta", { 0x38 + 0xe0, 0x40 + 0xe0 }, 8 },
    { "params1.helper_program", { 0x38 + 0x100, 0x40 + 0x100 }, 4 },
    { "params1.helper_arg", { 0x38 + 0x108, 0x40 + 0x108 }, 8 },
    /* JobParameters2 at 0x488 / 0x490: preempt_buf1 at +0x1c */
    { "params2.preempt_buf1", { 0x488 + 0x1c, 0x490 + 0x1c }, 8 },
};

static const Probe fragment_probes[] = {
    { "samples", { 0x48, 0x50 }, 4 },
    { "isp_merge_upper_x", { 0x60, 0x68 }, 4 },
    /* JobParameters1 at 0x78 / 0x80; AuxFBInfo at +0x30 starts isp_ctl */
    { "params1.bg.address", { 0x78 + 0x10, 0x80 + 0x10 }, 8 },
    { "params1.aux_fb_info.isp_ctl", { 0x78 + 0x30, 0x80 + 0x30 }, 4 },
    /* isp_zls_pixels right after AuxFBInfo (0x10 / 0x18 bytes) */
    { "params1.isp_zls_pixels", { 0x78 + 0x40, 0x80 + 0x48 }, 8 },
    { "params1.isp_oclqry_base", { 0x78 + 0x48, 0x80 + 0x50 }, 8 },
    { "params1.z_load", { 0x78 + 0x58, 0x80 + 0x60 }, 8 },
    /* JobParameters2 at 0x3c0 / 0x3c8 */
    { "params2.eot_usc", { 0x3c0 + 4, 0x3c8 + 4 }, 4 },
    { "params2.isp_bgobjvals", { 0x3c0 + 0x34, 0x3c8 + 0x34 }, 4 },
    /* JobParameters3 at 0x4b0 / 0x4b8, ending with isp_zls_pixels */
    { "params3.isp_zls_pixels", { 0x4b0 + 0x2a0, 0x4b8 + 0x2b0 }, 8 },
    { "params3.sample_size", { 0x4b0 + 0x288, 0x4b8 + 0x290 }, 4 },
};

static const Probe compute_probes[] = {
    /* JobParameters1 at 0x68 / 0x70 */
    { "params1.cdm_ctrl_stream_base", { 0x68 + 8, 0x70 + 8 }, 8 },
    { "params1.helper_cfg", { 0x68 + 0x50, 0x70 + 0x50 }, 4 },
    /* JobParameters2 at 0x1f4 / 0x1fc: 13.0b4 added a word in front */
    { "params2.cdm_ctrl_stream_end", { 0x1f4 + 0x2c, 0x1fc + 0x30 }, 8 },
};

typedef struct Case {
    AgxFwVersion version;
    unsigned pipe;
    const Probe *probes;
    size_t n;
} Case;

static uint64_t probe_value(const Probe *p, unsigned i)
{
    uint64_t v = 0x5eed0000a5a50000ULL | (i + 1) << 4 | p->width;

    return p->width == 8 ? v : v & ((1ULL << (8 * p->width)) - 1);
}

static void test_fields_arrive(gconstpointer data)
{
    const Case *c = data;
    Fake f;
    FakeQueue q;
    uint64_t blk, val;
    g_autofree char *before = NULL, *all = NULL;

    fake_init(&f, c->version);
    fake_queue_init(&f, &q, c->pipe, 0, 3);
    before = agx_params_format(&f.fw, c->pipe);
    g_assert_cmpstr(before, ==, "");
    blk = fake_add_run(&f, &q, NULL);
    for (size_t i = 0; i < c->n; i++) {
        const Probe *p = &c->probes[i];
        uint8_t *at = fake_ptr(&f, blk + p->off[c->version]);
        uint64_t v = probe_value(p, i);

        for (unsigned b = 0; b < p->width; b++) {
            at[b] = v >> (8 * b);
        }
    }
    fake_kick(&f, &q);
    fake_run(&f, 16);
    g_assert_false(fake_crashed(&f));
    all = agx_params_format(&f.fw, c->pipe);
    for (size_t i = 0; i < c->n; i++) {
        const Probe *p = &c->probes[i];
        g_autofree char *want = g_strdup_printf(
            "%s=0x%" G_GINT64_MODIFIER "x", p->name, probe_value(p, i));

        g_assert_true(agx_params_get(&f.fw, c->pipe, p->name, &val));
        g_assert_cmphex(val, ==, probe_value(p, i));
        g_assert_nonnull(strstr(all, want));
    }
    g_assert_false(agx_params_get(&f.fw, c->pipe, "no.such.field", &val));
    fake_free(&f);
}

/* The Start op points at a block the firmware cannot read: it crashes */
static void unmapped_params1(uint8_t *useq, uint32_t *size)
{
    apple_st64(useq + 0x0c, 0xffffffa0dead0000ULL);
}

static void test_unmapped_block_crashes(void)
{
    Fake f;
    FakeQueue q;
    uint64_t val;

    fake_init(&f, AGX_FW_V13_5);
    fake_queue_init(&f, &q, AGX_PIPE_VERTEX, 0, 3);
    fake_add_run(&f, &q, unmapped_params1);
    fake_kick(&f, &q);
    fake_run(&f, 16);
    g_assert_true(fake_crashed(&f));
    g_assert_true(fake_has_error(&f, "vertex JobParameters1"));
    /* Nothing is kept of a job that never started */
    g_assert_false(agx_params_get(&f.fw, AGX_PIPE_VERTEX,
                                  "params1.vdm_ctrl_stream_base", &val));
    fake_free(&f);
}

/* Every field lies inside the block it is read from, on every ABI */
static void test_fields_inside_blocks(void)
{
    for (unsigned p = 0; p < AGX_NUM_PIPES; p++) {
        for (const AgxParamsField *fl = agx_params_fields(p); fl->name;
             fl++) {
            uint32_t max = fl->block == AGX_PARAMS_RECORD ?
                AGX_PARAMS_RECORD_MAX : AGX_PARAMS_BLOCK_MAX;

            for (int v = 0; v < AGX_FW_NUM_VERSIONS; v++) {
                g_assert_cmpuint(fl->off[v] + fl->width, <=, max);
            }
        }
    }
}

#define CASE(v, p, probes) { v, p, probes, G_N_ELEMENTS(probes) }

static const Case cases[] = {
    CASE(AGX_FW_V12_3, AGX_PIPE_VERTEX, vertex_probes),
    CASE(AGX_FW_V13_5, AGX_PIPE_VERTEX, vertex_probes),
    CASE(AGX_FW_V12_3, AGX_PIPE_FRAGMENT, fragment_probes),
    CASE(AGX_FW_V13_5, AGX_PIPE_FRAGMENT, fragment_probes),
    CASE(AGX_FW_V12_3, AGX_PIPE_COMPUTE, compute_probes),
    CASE(AGX_FW_V13_5, AGX_PIPE_COMPUTE, compute_probes),
};

int main(int argc, char **argv)
{
    static const char *const pipes[] = { "vertex", "fragment", "compute" };
    static const char *const versions[] = {
        [AGX_FW_V12_3] = "12.3", [AGX_FW_V13_5] = "13.5",
    };

    g_test_init(&argc, &argv, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_strdup_printf(
            "/params/%s/%s/fields-arrive",
            versions[cases[i].version], pipes[cases[i].pipe]);

        g_test_add_data_func(path, &cases[i], test_fields_arrive);
    }
    g_test_add_func("/params/unmapped-block-crashes",
                    test_unmapped_block_crashes);
    g_test_add_func("/params/fields-inside-blocks",
                    test_fields_inside_blocks);
    return g_test_run();
}
