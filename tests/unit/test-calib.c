/*
 * Unit tests for the calibration blobs (HwDataA, HwDataB, Globals)
 *
 * Sizes and offsets are those of the driver's #[repr(C)] structures for
 * G13 with firmware 12.3 and 13.5; the values are those m1n1 writes for a
 * t8103.  Floating-point results are checked against the driver's software
 * floating point, worked out independently.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/arm/m1n1/agx-calib.h"
#include "hw/arm/m1n1/agx-calib-fill.h"
#include "hw/arm/m1n1/agx-calib-t8103.h"
#include "hw/arm/m1n1/agx-softfloat.h"

#define TTB_BASE        0x8fff00000ULL

typedef struct Blobs {
    const AgxAbi *abi;
    AgxCalibParams p;
    uint8_t *buf[AGX_CALIB_NUM_BLOBS];
    size_t size[AGX_CALIB_NUM_BLOBS];
} Blobs;

static void blobs_make(Blobs *b, const char *fw, uint32_t core_mask)
{
    b->abi = agx_abi_by_name(fw);
    g_assert_nonnull(b->abi);
    agx_calib_t8103_params(&b->p, core_mask, TTB_BASE);
    g_assert_null(agx_calib_check_params(&b->p));
    for (int i = 0; i < AGX_CALIB_NUM_BLOBS; i++) {
        b->size[i] = agx_calib_size(b->abi, i);
        b->buf[i] = g_malloc(b->size[i]);
        memset(b->buf[i], 0xa5, b->size[i]);
        agx_calib_fill(b->abi, i, &b->p, b->buf[i]);
    }
}

static void blobs_free(Blobs *b)
{
    for (int i = 0; i < AGX_CALIB_NUM_BLOBS; i++) {
        g_free(b->buf[i]);
    }
}

static uint32_t rd32(const Blobs *b, AgxCalibBlob which, uint32_t off)
{
    g_assert_cmpuint(off + 4, <=, b->size[which]);
    return apple_ld32(b->buf[which] + off);
}

static uint64_t rd64(const Blobs *b, AgxCalibBlob which, uint32_t off)
{
    g_assert_cmpuint(off + 8, <=, b->size[which]);
    return apple_ld64(b->buf[which] + off);
}

static bool all_zero(const Blobs *b, AgxCalibBlob which, uint32_t off,
                     uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        if (b->buf[which][off + i]) {
            return false;
        }
    }
    return true;
}

#define A   AGX_CALIB_HWDATA_A
#define B   AGX_CALIB_HWDATA_B
#define G   AGX_CALIB_GLOBALS

static void test_sizes(void)
{
    static const struct {
        const char *fw;
        size_t a, b, g;
    } sizes[] = {
        { "12.3", 0x3d6c, 0xb6c, 0x11d40 },
        { "13.5", 0x421c, 0x1884, 0x12394 },
    };

    for (int i = 0; i < G_N_ELEMENTS(sizes); i++) {
        const AgxAbi *abi = agx_abi_by_name(sizes[i].fw);

        g_assert_cmphex(agx_calib_size(abi, A), ==, sizes[i].a);
        g_assert_cmphex(agx_calib_size(abi, B), ==, sizes[i].b);
        g_assert_cmphex(agx_calib_size(abi, G), ==, sizes[i].g);
    }
    g_assert_cmpstr(agx_calib_region_name(A), ==, "hw-cal-a");
    g_assert_cmpstr(agx_calib_region_name(B), ==, "hw-cal-b");
    g_assert_cmpstr(agx_calib_region_name(G), ==, "globals");
    g_assert_cmpstr(agx_calib_size_prop(A), ==, "debug,hw-cal-a-size");
    g_assert_cmpstr(agx_calib_size_prop(B), ==, "debug,hw-cal-b-size");
    g_assert_cmpstr(agx_calib_size_prop(G), ==, "debug,globals-size");
}

/* Offsets that differ between the two ABIs */
typedef struct Offs {
    const char *fw;
    /* HwDataB */
    uint32_t b_base_clock, b_num_frags, b_max_pstate, b_freqs, b_volts;
    uint32_t b_volts_sram, b_rel_powers, b_rel_boost, b_unk_b38;
    /* HwDataA */
    uint32_t a_clocks, a_max_ps_scaled, a_base_ps_scaled, a_pwr_filter_a;
    uint32_t a_ppm_ki_dt, a_k, a_boost_k, a_core_leak, a_sram_leak;
    uint32_t a_pz_target, a_hws1, a_hws2;
    /* Globals */
    uint32_t g_max_power, g_progress, g_fender, g_sub, g_hws1, g_ppm_ki_dt;
    uint32_t g_cl_ctx_switch;
} Offs;

static const Offs offs[] = {
    {
        .fw = "12.3",
        .b_base_clock = 0x490, .b_num_frags = 0x53c, .b_max_pstate = 0x56c,
        .b_freqs = 0x574, .b_volts = 0x5b4, .b_volts_sram = 0x7b4,
        .b_rel_powers = 0xa34, .b_rel_boost = 0xa74, .b_unk_b38 = 0xb38,
        .a_clocks = 0x4, .a_max_ps_scaled = 0x44, .a_base_ps_scaled = 0x3c,
        .a_pwr_filter_a = 0x660, .a_ppm_ki_dt = 0x6f0, .a_k = 0x680,
        .a_boost_k = 0x7a8, .a_core_leak = 0x3cf4, .a_sram_leak = 0x3d14,
        .a_pz_target = 0xc5c, .a_hws1 = 0x3648, .a_hws2 = 0x36f0,
        .g_max_power = 0x8908, .g_progress = 0x11020, .g_fender = 0x11034,
        .g_sub = 0x54, .g_hws1 = 0x89f8, .g_ppm_ki_dt = 0x89ec,
        .g_cl_ctx_switch = 0x118e0,
    }, {
        .fw = "13.5",
        .b_base_clock = 0x9a8, .b_num_frags = 0xa5c, .b_max_pstate = 0xa8c,
        .b_freqs = 0xa90, .b_volts = 0xad0, .b_volts_sram = 0xcd0,
        .b_rel_powers = 0xf90, .b_rel_boost = 0xfd0, .b_unk_b38 = 0x174c,
        .a_clocks = 0x4, .a_max_ps_scaled = 0x4c, .a_base_ps_scaled = 0x44,
        .a_pwr_filter_a = 0x66c, .a_ppm_ki_dt = 0x70c, .a_k = 0x68c,
        .a_boost_k = 0x7d4, .a_core_leak = 0x416c, .a_sram_leak = 0x418c,
        .a_pz_target = 0xeb8, .a_hws1 = 0x3a9c, .a_hws2 = 0x3b64,
        .g_max_power = 0x8978, .g_progress = 0x11178, .g_fender = 0x111a0,
        .g_sub = 0x64, .g_hws1 = 0x8b0c, .g_ppm_ki_dt = 0x8a98,
        .g_cl_ctx_switch = 0x11af0,
    },
};

static const uint32_t t8103_mhz[] = { 0, 396, 528, 720, 924, 1128, 1278 };
static const uint32_t t8103_mv[] = { 400, 618, 650, 687, 778, 868, 928 };

static void check_hwdata_b(const Blobs *b, const Offs *o)
{
    const AgxAbi *abi = b->abi;
    /* Base pstate 3 (720 MHz), highest 6 (1278 MHz) */
    static const uint32_t rel_boost[] = { 0, 0, 0, 0, 36, 73, 100 };
    static const uint32_t rel_power[] = { 0, 19, 26, 38, 59, 88, 100 };

    g_assert_cmphex(rd32(b, B, abi->hwb_chip_id), ==, 0x8103);
    g_assert_cmpuint(rd32(b, B, o->b_base_clock), ==, 24000);
    g_assert_cmpuint(rd32(b, B, o->b_base_clock + 4), ==, 8);
    g_assert_cmphex(rd64(b, B, abi->hwb_uat_ttb_base), ==, TTB_BASE);
    g_assert_cmpuint(rd32(b, B, abi->hwb_gpu_core_id), ==, 11);
    g_assert_cmpuint(rd32(b, B, abi->hwb_gpu_rev_id), ==, 4);
    g_assert_cmpuint(rd32(b, B, abi->hwb_num_cores), ==, 8);
    g_assert_cmpuint(rd32(b, B, o->b_num_frags), ==, 8);
    g_assert_cmpuint(rd32(b, B, o->b_max_pstate), ==, 6);
    for (int i = 0; i < 7; i++) {
        g_assert_cmpuint(rd32(b, B, o->b_freqs + 4 * i), ==, t8103_mhz[i]);
        for (int j = 0; j < 8; j++) {
            uint32_t cell = 4 * (i * 8 + j);

            g_assert_cmpuint(rd32(b, B, o->b_volts + cell), ==,
                             t8103_mv[i]);
            g_assert_cmpuint(rd32(b, B, o->b_volts_sram + cell), ==,
                             MAX(t8103_mv[i], 850));
        }
        g_assert_cmpuint(rd32(b, B, o->b_rel_powers + 4 * i), ==,
                         rel_power[i]);
        g_assert_cmpuint(rd32(b, B, o->b_rel_boost + 4 * i), ==,
                         rel_boost[i]);
    }
    g_assert_cmpuint(rd32(b, B, o->b_freqs + 4 * 7), ==, 0);
    for (int i = 0; i < 12; i++) {
        g_assert_cmphex(rd32(b, B, o->b_unk_b38 + 4 * i), ==, 0xffffffff);
    }
    /* The driver maps the firmware's MMIO windows itself */
    g_assert_true(all_zero(b, B, abi->hwb_io_mappings,
                           abi->hwb_num_io_mappings * 0x20));
}

static void check_hwdata_a(const Blobs *b, const Offs *o)
{
    g_assert_cmpuint(rd32(b, A, b->abi->hwa_pwr_status), ==, 4);
    g_assert_cmpuint(rd32(b, A, o->a_clocks), ==, 192000);
    g_assert_cmpuint(rd32(b, A, o->a_max_ps_scaled), ==, 600);
    g_assert_cmpuint(rd32(b, A, o->a_base_ps_scaled), ==, 300);
    /* Software float results (see test_soft_float) */
    g_assert_cmphex(rd32(b, A, o->a_pwr_filter_a), ==, 0x3b516154);
    g_assert_cmphex(rd32(b, A, o->a_pwr_filter_a - 8), ==, 0x3f7f2e9f);
    g_assert_cmphex(rd32(b, A, o->a_ppm_ki_dt), ==, 0x3f3b645b);
    g_assert_cmphex(rd32(b, A, o->a_k), ==, 0xbcfc377d);
    g_assert_cmphex(rd32(b, A, o->a_boost_k), ==, 0x404a1af3);
    g_assert_cmphex(rd32(b, A, o->a_core_leak), ==,
                    agx_f32_bits(1000.0f));
    g_assert_cmphex(rd32(b, A, o->a_sram_leak), ==, agx_f32_bits(45.0f));
    g_assert_cmpuint(rd32(b, A, o->a_pz_target), ==, 30000);
    g_assert_cmpuint(rd32(b, A, o->a_pz_target + 4), ==, 29900);
    g_assert_cmphex(rd32(b, A, o->a_hws1 + 4), ==, 0x7282);
    g_assert_cmphex(rd32(b, A, o->a_hws1 + 0xa0), ==, 0xffff);
    g_assert_cmphex(rd32(b, A, o->a_hws2 + 4), ==, 0x1555);
    g_assert_cmphex(rd32(b, A, o->a_hws2 + 0x508), ==, 0xc00007);
}

static void check_globals(const Blobs *b, const Offs *o)
{
    const AgxAbi *abi = b->abi;

    g_assert_cmpuint(rd32(b, G, abi->gl_do_init), ==, 1);
    g_assert_cmphex(rd32(b, G, abi->gl_fault_control), ==, 0xb);
    g_assert_cmpuint(rd32(b, G, abi->gl_idle_off_delay_ms), ==, 2);
    g_assert_cmpuint(rd32(b, G, abi->gl_pending_submissions), ==, 0);
    g_assert_cmpuint(rd32(b, G, abi->gl_pending_submissions - 4), ==, 1);
    g_assert_cmpuint(rd32(b, G, o->g_max_power), ==, 19488);
    g_assert_cmpuint(rd32(b, G, o->g_progress), ==, 40);
    g_assert_cmpuint(rd32(b, G, o->g_progress + 4), ==, 10);
    g_assert_cmpuint(rd32(b, G, o->g_progress + 8), ==, 250);
    g_assert_cmpuint(rd32(b, G, o->g_fender), ==, 40);
    g_assert_cmpuint(rd32(b, G, o->g_fender + 4), ==, 5);
    g_assert_cmpuint(rd32(b, G, o->g_cl_ctx_switch), ==, 40);
    g_assert_cmphex(rd32(b, G, o->g_sub), ==, 0x0028ffff);
    g_assert_cmphex(rd32(b, G, o->g_hws1 + 8), ==, 0x50ea);
    g_assert_cmphex(rd32(b, G, o->g_ppm_ki_dt), ==, 0x3f3b645b);
    g_assert_true(all_zero(b, G, abi->gl_pending_stamps, 0x800));
    g_assert_true(all_zero(b, G, abi->gl_fault_info, 0x18));
}

static void test_blobs(gconstpointer data)
{
    const Offs *o = data;
    Blobs b;

    blobs_make(&b, o->fw, 0xff);
    check_hwdata_b(&b, o);
    check_hwdata_a(&b, o);
    check_globals(&b, o);
    blobs_free(&b);
}

/* What only one of the two ABIs has */
static void test_abi_specific(void)
{
    Blobs v12, v13;

    blobs_make(&v12, "12.3", 0xff);
    blobs_make(&v13, "13.5", 0xff);

    /* 12.3: num_pstates, min SRAM voltage, the T81xx block */
    g_assert_cmpuint(rd32(&v12, B, 0x570), ==, 7);
    g_assert_cmpuint(rd32(&v12, B, 0xab4), ==, 850);
    g_assert_cmphex(rd32(&v12, B, 0xac0), ==, 0x1020);
    g_assert_cmphex(rd32(&v12, B, 0xae4 + 4), ==, 0xf);
    g_assert_cmphex(rd32(&v12, A, 0xd8c), ==, 0x80000000);
    g_assert_cmpuint(rd32(&v12, A, 0xdcc), ==, 600);
    g_assert_cmphex(rd64(&v12, A, 0x1634), ==, 1);
    g_assert_cmphex(rd64(&v12, B, 0x0), ==, 0x1300000000ULL);
    g_assert_cmphex(rd64(&v12, B, 0x30), ==, 0x7fffff8000ULL);
    g_assert_cmpuint(rd32(&v12, G, 0x903c), ==, 0);

    /* 13.5: second clocks word, SE block, trailer, the 13.x globals */
    g_assert_cmpuint(rd32(&v13, A, 0x8), ==, 192000);
    g_assert_cmpuint(rd32(&v13, A, 0x10f4), ==, 2500);
    g_assert_cmphex(rd32(&v13, A, 0x10fc), ==, 0xffffffff);
    g_assert_cmpuint(rd32(&v13, A, 0x1140), ==, 100);
    g_assert_cmphex(rd64(&v13, A, 0x1164), ==, 9 * 192000);
    g_assert_cmphex(rd32(&v13, A, 0x1020), ==, 0);
    g_assert_cmphex(rd32(&v13, B, 0x16ec + 4), ==, 0x3);
    g_assert_cmphex(rd32(&v13, B, 0x1880), ==, 0x1a);
    g_assert_cmpuint(rd32(&v13, B, 0x1010 + 4 * 15), ==, 15);
    g_assert_cmphex(rd64(&v13, B, 0x0), ==, 0x1400000000ULL);
    g_assert_cmphex(rd64(&v13, B, 0x28), ==, 0xffffffae10000000ULL);
    g_assert_cmpuint(rd32(&v13, G, 0x24), ==, 3000);
    g_assert_cmpuint(rd32(&v13, G, 0x11af4), ==, 50);
    g_assert_cmpuint(rd32(&v13, G, 0x1118c), ==, 100);
    g_assert_cmpuint(rd32(&v13, G, 0x9190), ==, 1);

    blobs_free(&v12);
    blobs_free(&v13);
}

/* The 7-core part: less leakage, everything else the same */
static void test_seven_cores(void)
{
    Blobs b7, b8;

    blobs_make(&b7, "13.5", 0xfe);
    blobs_make(&b8, "13.5", 0xff);
    /* 1000 * (0.12 + 0.88 * 7 / 8) and 45 * (0.2 + 0.8 * 7 / 8) */
    g_assert_cmpfloat_with_epsilon(agx_f32_value(rd32(&b7, A, 0x416c)),
                                   890.0, 0.001);
    g_assert_cmpfloat_with_epsilon(agx_f32_value(rd32(&b7, A, 0x418c)),
                                   40.5, 0.0001);
    g_assert_cmpmem(b7.buf[B], b7.size[B], b8.buf[B], b8.size[B]);
    g_assert_cmpmem(b7.buf[G], b7.size[G], b8.buf[G], b8.size[G]);
    g_assert_cmpmem(b7.buf[A], 0x416c, b8.buf[A], 0x416c);
    blobs_free(&b7);
    blobs_free(&b8);
}

static void test_deterministic(void)
{
    Blobs x, y;

    blobs_make(&x, "13.5", 0xff);
    blobs_make(&y, "13.5", 0xff);
    for (int i = 0; i < AGX_CALIB_NUM_BLOBS; i++) {
        g_assert_cmpmem(x.buf[i], x.size[i], y.buf[i], y.size[i]);
    }
    blobs_free(&x);
    blobs_free(&y);
}

static void test_bad_params(void)
{
    AgxCalibParams p;

    agx_calib_t8103_params(&p, 0xff, TTB_BASE);
    p.num_pstates = 1;
    g_assert_nonnull(agx_calib_check_params(&p));

    agx_calib_t8103_params(&p, 0xff, TTB_BASE);
    p.perf_base_pstate = 6;
    g_assert_nonnull(agx_calib_check_params(&p));

    agx_calib_t8103_params(&p, 0xff, TTB_BASE);
    for (int i = 0; i < p.num_pstates; i++) {
        p.pstates[i].pwr_uw = 999;
    }
    g_assert_nonnull(agx_calib_check_params(&p));

    agx_calib_t8103_params(&p, 0x1ff, TTB_BASE);
    g_assert_nonnull(agx_calib_check_params(&p));

    agx_calib_t8103_params(&p, 0, TTB_BASE);
    g_assert_nonnull(agx_calib_check_params(&p));

    agx_calib_t8103_params(&p, 0xff, TTB_BASE);
    p.pstates[5].freq_hz = p.pstates[6].freq_hz + 1;
    g_assert_nonnull(agx_calib_check_params(&p));
}

typedef struct Props {
    GHashTable *props;                  /* name -> GArray of cells */
} Props;

static void collect_prop(void *opaque, const char *name,
                         const uint32_t *cells, unsigned int ncells)
{
    Props *pr = opaque;
    GArray *a = g_array_new(false, false, sizeof(uint32_t));

    g_assert_false(g_hash_table_contains(pr->props, name));
    g_array_append_vals(a, cells, ncells);
    g_hash_table_insert(pr->props, g_strdup(name), a);
}

static uint32_t prop_cell(Props *pr, const char *name, unsigned int i)
{
    GArray *a = g_hash_table_lookup(pr->props, name);

    g_assert_nonnull(a);
    g_assert_cmpuint(i, <, a->len);
    return g_array_index(a, uint32_t, i);
}

static void test_dt_props(void)
{
    static const char *const required[] = {
        "apple,core-leak-coef", "apple,sram-leak-coef",
        "apple,power-sample-period", "apple,min-sram-microvolt",
        "apple,avg-power-filter-tc-ms", "apple,avg-power-ki-only",
        "apple,avg-power-kp", "apple,avg-power-min-duty-cycle",
        "apple,avg-power-target-filter-tc", "apple,fast-die0-integral-gain",
        "apple,fast-die0-proportional-gain",
        "apple,perf-filter-drop-threshold",
        "apple,perf-filter-time-constant", "apple,perf-filter-time-constant2",
        "apple,perf-integral-gain2", "apple,perf-integral-min-clamp",
        "apple,perf-proportional-gain2", "apple,perf-tgt-utilization",
        "apple,ppm-filter-time-constant-ms", "apple,ppm-ki", "apple,ppm-kp",
        "apple,pwr-min-duty-cycle",
    };
    Props pr = {
        .props = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify)g_array_unref),
    };
    AgxCalibParams p;

    agx_calib_t8103_params(&p, 0xff, TTB_BASE);
    agx_calib_dt_props(&p, collect_prop, &pr);
    for (int i = 0; i < G_N_ELEMENTS(required); i++) {
        g_assert_true(g_hash_table_contains(pr.props, required[i]));
    }
    g_assert_cmpuint(prop_cell(&pr, "apple,power-sample-period", 0), ==, 8);
    g_assert_cmpuint(prop_cell(&pr, "apple,min-sram-microvolt", 0), ==,
                     850000);
    g_assert_cmphex(prop_cell(&pr, "apple,ppm-ki", 0), ==,
                    agx_f32_bits(91.5f));
    g_assert_cmphex(prop_cell(&pr, "apple,perf-integral-gain2", 0), ==,
                    agx_f32_bits(0.197392f));
    g_assert_cmphex(prop_cell(&pr, "apple,se-engagement-criteria", 0), ==,
                    0xffffffff);
    g_assert_cmpuint(prop_cell(&pr, "apple,idle-off-delay-ms", 0), ==, 2);
    g_assert_cmpuint(prop_cell(&pr, "apple,perf-base-pstate", 0), ==, 3);
    g_assert_cmphex(prop_cell(&pr, "apple,core-leak-coef", 0), ==,
                    agx_f32_bits(1000.0f));
    g_assert_cmpuint(prop_cell(&pr, "apple,power-zones", 0), ==, 30000);
    g_assert_cmpuint(prop_cell(&pr, "apple,power-zones", 1), ==, 100);
    g_assert_cmpuint(prop_cell(&pr, "apple,power-zones", 2), ==, 6875);
    g_assert_cmpuint(prop_cell(&pr, "apple,pwr-sample-period-aic-clks", 0),
                     ==, 192000);
    g_hash_table_unref(pr.props);

    /* The OPP table: m1n1's t8103 power model, 19.488 W at the top */
    g_assert_cmpuint(p.num_pstates, ==, 7);
    g_assert_cmpuint(p.pstates[0].pwr_uw, ==, 0);
    g_assert_cmpuint(p.pstates[6].freq_hz, ==, 1278000000);
    g_assert_cmpuint(p.pstates[6].volt_uv, ==, 928000);
    g_assert_cmpuint(p.pstates[6].pwr_uw, ==, 19488000);
}

static void test_soft_float(void)
{
    uint32_t one = agx_f32_bits(1.0f);
    uint32_t period_s = agx_sf_div(agx_sf_from_u32(8),
                                   agx_f32_bits(1000.0f));

    /* Exact cases agree with IEEE */
    g_assert_cmphex(agx_sf_from_u32(8), ==, agx_f32_bits(8.0f));
    g_assert_cmphex(agx_sf_from_u32(19488), ==, agx_f32_bits(19488.0f));
    g_assert_cmphex(agx_sf_from_i32(-560), ==, agx_f32_bits(-560.0f));
    g_assert_cmphex(agx_sf_from_u32(0), ==, 0);
    g_assert_cmphex(agx_sf_div(one, agx_sf_from_u32(8)), ==,
                    agx_f32_bits(0.125f));
    g_assert_cmphex(agx_sf_mul(agx_f32_bits(1.5f), agx_f32_bits(-2.0f)), ==,
                    agx_f32_bits(-3.0f));
    g_assert_cmphex(agx_sf_sub(one, agx_f32_bits(0.25f)), ==,
                    agx_f32_bits(0.75f));
    /* Like the driver's, a cancelled sum keeps the first sign: -0 */
    g_assert_cmphex(agx_sf_add(agx_f32_bits(-1.0f), one), ==, 0x80000000);
    g_assert_cmphex(agx_sf_div(one, 0), ==, 0x7f800000);
    g_assert_cmphex(agx_sf_mul(one, 0), ==, 0);

    /* The builder's values, from an independent model of float.rs */
    g_assert_cmphex(period_s, ==, 0x3c03126f);
    g_assert_cmphex(agx_sf_div(one, agx_sf_from_u32(313)), ==, 0x3b516154);
    g_assert_cmphex(agx_sf_sub(one, agx_sf_div(one, agx_sf_from_u32(313))),
                    ==, 0x3f7f2e9f);
    g_assert_cmphex(agx_sf_div(one, agx_sf_from_u32(6875)), ==, 0x39188528);
    g_assert_cmphex(agx_sf_sub(one, agx_sf_div(one, agx_sf_from_u32(125))),
                    ==, 0x3f7df3b6);
    g_assert_cmphex(agx_sf_mul(agx_f32_bits(91.5f), period_s), ==,
                    0x3f3b645b);
    g_assert_cmphex(agx_sf_mul(agx_f32_bits(7.5f), period_s), ==,
                    0x3d75c290);
    g_assert_cmphex(agx_sf_mul(agx_f32_bits(-50.0f), period_s), ==,
                    0xbecccccd);
    g_assert_cmphex(agx_sf_div(agx_sf_from_u32(600) ^ 0x80000000u,
                               agx_sf_from_u32(19488)), ==, 0xbcfc377d);
    g_assert_cmphex(agx_sf_div(agx_sf_from_u32(3), agx_f32_bits(0.95f)), ==,
                    0x404a1af3);

    /* Elsewhere it stays within an ulp or two of IEEE */
    for (int i = 1; i < 2000; i++) {
        float a = i * 0.37f, b = 1000.0f / i;
        float r[] = { a + b, a - b, a * b, a / b };
        uint32_t s[] = {
            agx_sf_add(agx_f32_bits(a), agx_f32_bits(b)),
            agx_sf_sub(agx_f32_bits(a), agx_f32_bits(b)),
            agx_sf_mul(agx_f32_bits(a), agx_f32_bits(b)),
            agx_sf_div(agx_f32_bits(a), agx_f32_bits(b)),
        };

        for (int j = 0; j < G_N_ELEMENTS(r); j++) {
            int64_t d = (int64_t)agx_f32_bits(r[j]) - s[j];

            if (d < -2 || d > 2) {
                g_test_message("%g op%d %g: %08x vs %08x", a, j, b,
                               agx_f32_bits(r[j]), s[j]);
                g_assert_not_reached();
            }
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    g_test_add_func("/calib/sizes", test_sizes);
    for (int i = 0; i < G_N_ELEMENTS(offs); i++) {
        g_autofree char *name = g_strdup_printf("/calib/%s/blobs",
                                                offs[i].fw);

        g_test_add_data_func(name, &offs[i], test_blobs);
    }
    g_test_add_func("/calib/abi-specific", test_abi_specific);
    g_test_add_func("/calib/seven-cores", test_seven_cores);
    g_test_add_func("/calib/deterministic", test_deterministic);
    g_test_add_func("/calib/bad-params", test_bad_params);
    g_test_add_func("/calib/dt-props", test_dt_props);
    g_test_add_func("/calib/soft-float", test_soft_float);
    return g_test_run();
}
