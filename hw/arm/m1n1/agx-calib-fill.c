/*
 * AGX G13 calibration blobs: the fillers of HwDataA, HwDataB and Globals
 *
 * The bootloader's share of InitData.  drm/asahi either copies these
 * blobs verbatim into the structures it hands to the firmware, or builds
 * the structures itself from the device tree and compares them with the
 * blobs ("Hwdata A match").  Either way they must be byte-exact for the
 * firmware ABI the device tree names, so this file reproduces the
 * initdata builder's arithmetic, including its software floating point
 * (agx-softfloat.c).  The offsets are in the field table
 * (agx-calib-fields.h), t8103's values in agx-calib-t8103.c.
 *
 * Layouts: the #[repr(C)] structures HwDataA, HwDataB and Globals of the
 * drm/asahi driver (fw/initdata.rs) and of m1n1 (rust/src/gpu/raw.rs),
 * which agree, for G13 with firmware 12.3 and 13.5.  The offsets of the
 * field table were computed from those definitions; m1n1's Python
 * construct layouts (proxyclient/m1n1/fw/agx/initdata.py) agree except
 * that they make HwDataA.fast_die0_sensor_present 32-bit on 12.3 (HwDataA
 * 0x3d68 bytes there instead of 0x3d6c); the Rust size is what m1n1
 * allocates and what the driver copies, so it is used here.
 *
 * Values: m1n1's t8103 configuration (rust/src/gpu/hw/t8103.rs), its
 * builder (rust/src/gpu/initdata.rs, the same as the driver's) and the
 * power computation of src/kboot_gpu.c.
 *
 * Filled:
 *  - HwDataA: power sampling clocks, pwr_status = 4 (powered off), initial
 *    pstates, the PID/filter coefficients of the power, PPM, performance,
 *    "fast die0" and (13.x) "SE" controllers derived from AgxCalibPower,
 *    the scaled max/base pstates, max power and frequency, sensor masks,
 *    the power zone, the 12.3-only "T81xx" block, the shared tables
 *    hws1/hws2, sram_k per pstate and the leakage coefficients.
 *  - HwDataB: the user VA layout words, the timestamp area base, chip id,
 *    base clock, the constant flags words, num_frags/num_cores, the TTBAT
 *    address, core and revision ids, the pstate tables (MHz, mV, SRAM mV,
 *    sram_k, relative powers and boost frequencies) and the 13.x trailer.
 *  - Globals: the constant header words, max power and pstates, the
 *    average-power and PPM controller, the power zone, hws1/hws2,
 *    fault_control = 0xb, do_init = 1, the progress-check intervals
 *    (40/10/250 ms), idle-off delays (2/40/5 ms) and the compute timeouts.
 * Left zero, as m1n1 and the driver leave them:
 *  - HwDataB.io_mappings (the driver maps the firmware's MMIO windows and
 *    fills them in at probe), sgx_sram_ptr (t8103 has no GPU SRAM) and
 *    the YUV matrices (the driver's TODO);
 *  - everything the firmware writes at run time (HwDataA current pstate,
 *    power, temperature, timestamps; Globals pending_submissions,
 *    pending_stamps, fault_info, idle_ts);
 *  - hws3, the G14 curves of hws2, the CS/AFR tables and the per-core
 *    coefficient tables: t8103 has none of them;
 *  - every field whose meaning and value are unknown.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */


#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/arm/m1n1/agx-calib-fields.h"
#include "hw/arm/m1n1/agx-calib-fill.h"
#include "hw/arm/m1n1/agx-calib-t8103.h"
#include "hw/arm/m1n1/agx-softfloat.h"

#define F32(f)          agx_f32_bits(f)
#define SF_ONE          F32(1.0f)
#define SF_NEG(a)       ((a) ^ 0x80000000u)
#define FLD(n)          AGX_CALIB_FIELD(n)

/* Inside HwDataShared1 and HwDataShared2 (the same on every G13 ABI) */
enum {
    HWS1_TABLE = 0x000,                 /* i32[16] */
    HWS1_UNK_A4 = 0x0a0,
    HWS2_TABLE = 0x000,                 /* i32[10] */
    HWS2_UNK_28 = 0x028,                /* u8[16] */
    HWS2_UNK_508 = 0x508,
};

/* Per-pstate arrays in HwDataB: voltages are [16][8] */
#define HWB_VOLTAGE_COLUMNS     8

/* Where the blob being written is, and which ABI's column applies */
typedef struct CalibOut {
    uint8_t *buf;
    size_t size;
    AgxCalibBlob which;
    AgxCalibCol col;
} CalibOut;

/* NULL if this ABI has no such field */
static uint8_t *field_ptr(CalibOut *o, AgxCalibField f, size_t extra,
                         size_t len)
{
    uint32_t off = agx_calib_field_offset(o->col, f);

    g_assert(agx_calib_field_blob(f) == o->which);
    if (off == AGX_CALIB_NA) {
        return NULL;
    }
    g_assert(off + extra + len <= o->size);
    return o->buf + off + extra;
}

static void put16(CalibOut *o, AgxCalibField f, uint16_t v)
{
    uint8_t *p = field_ptr(o, f, 0, 2);

    if (p) {
        p[0] = v;
        p[1] = v >> 8;
    }
}

/* Element @i of a u32 array field */
static void put32i(CalibOut *o, AgxCalibField f, unsigned int i, uint32_t v)
{
    uint8_t *p = field_ptr(o, f, 4 * i, 4);

    if (p) {
        apple_st32(p, v);
    }
}

static void put32(CalibOut *o, AgxCalibField f, uint32_t v)
{
    put32i(o, f, 0, v);
}

static void put64(CalibOut *o, AgxCalibField f, uint64_t v)
{
    uint8_t *p = field_ptr(o, f, 0, 8);

    if (p) {
        apple_st64(p, v);
    }
}

/* Quantities the builder derives from the parameters */
typedef struct CalibDerived {
    uint32_t base_ps;
    uint32_t max_ps;
    uint32_t base_ps_scaled;
    uint32_t max_ps_scaled;
    uint32_t max_power_mw;
    uint32_t max_freq_mhz;
    uint32_t base_clock_khz;
    uint32_t period_ms;
    uint32_t period_s;                  /* f32 */
    uint32_t clocks_per_period;         /* base clocks per sample period */
} CalibDerived;

static void calib_derive(const AgxCalibParams *p, CalibDerived *d)
{
    d->base_ps = p->perf_base_pstate;
    d->max_ps = p->num_pstates - 1;
    d->base_ps_scaled = 100 * d->base_ps;
    d->max_ps_scaled = 100 * d->max_ps;
    d->max_power_mw = 0;
    d->max_freq_mhz = 0;
    for (uint32_t i = 0; i < p->num_pstates; i++) {
        d->max_power_mw = MAX(d->max_power_mw, p->pstates[i].pwr_uw / 1000);
        d->max_freq_mhz = MAX(d->max_freq_mhz,
                              p->pstates[i].freq_hz / 1000000);
    }
    d->base_clock_khz = AGX_T8103_BASE_CLOCK_HZ / 1000;
    d->period_ms = p->pwr.power_sample_period;
    d->period_s = agx_sf_div(agx_sf_from_u32(d->period_ms), F32(1000.0f));
    d->clocks_per_period = d->base_clock_khz * d->period_ms;
}

/* 1 / n, the filter coefficient of a time constant of n periods */
static uint32_t sf_recip(uint32_t n)
{
    return agx_sf_div(SF_ONE, agx_sf_from_u32(n));
}

#define HWS1_SIZE       0xa8
#define HWS2_SIZE       0x510

/* The shared tables HwDataA and Globals both carry */
static void put_shared(CalibOut *o, AgxCalibField hws1, AgxCalibField hws2)
{
    uint8_t *s1 = field_ptr(o, hws1, 0, HWS1_SIZE);
    uint8_t *s2 = field_ptr(o, hws2, 0, HWS2_SIZE);

    for (int i = 0; i < G_N_ELEMENTS(agx_t8103_shared1_tab); i++) {
        apple_st32(s1 + HWS1_TABLE + 4 * i, agx_t8103_shared1_tab[i]);
    }
    apple_st32(s1 + HWS1_UNK_A4, AGX_T8103_SHARED1_A4);
    for (int i = 0; i < G_N_ELEMENTS(agx_t8103_shared2_tab); i++) {
        apple_st32(s2 + HWS2_TABLE + 4 * i, agx_t8103_shared2_tab[i]);
    }
    memset(s2 + HWS2_UNK_28, 0xff, 16);
    apple_st32(s2 + HWS2_UNK_508, AGX_T8103_SHARED2_UNK_508);
}

/* HwDataA: power sampling, power status and the initial pstates */
static void hwa_pstates(CalibOut *o, const AgxCalibParams *p,
                        const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_CLOCKS_PER_PERIOD), c->pwr_sample_period_aic_clks);
    put32(o, FLD(HWA_CLOCKS_PER_PERIOD_2), c->pwr_sample_period_aic_clks);
    put32(o, FLD(HWA_PWR_STATUS), 4);
    put32(o, FLD(HWA_UNK_10), SF_ONE);
    put32(o, FLD(HWA_ACTUAL_PSTATE), 1);
    put32(o, FLD(HWA_TGT_PSTATE), 1);
    put32(o, FLD(HWA_BASE_PSTATE_SCALED), d->base_ps_scaled);
    put32(o, FLD(HWA_UNK_40), 1);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED), max_ps_scaled);
    put32(o, FLD(HWA_MIN_PSTATE_SCALED), 100);
    for (uint32_t i = 0; i < p->num_pstates; i++) {
        put32i(o, FLD(HWA_SRAM_K), i, F32(AGX_T8103_SRAM_K));
    }
    put32(o, FLD(HWA_UNK_64C), 625);
}

/* HwDataA: the power controller */
static void hwa_power_controller(CalibOut *o, const AgxCalibParams *p,
                                 const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t pwr_a = sf_recip(c->pwr_filter_time_constant);
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_PWR_FILTER_A_NEG), agx_sf_sub(SF_ONE, pwr_a));
    put32(o, FLD(HWA_PWR_FILTER_A), pwr_a);
    put32(o, FLD(HWA_PWR_INTEGRAL_GAIN), c->pwr_integral_gain);
    put32(o, FLD(HWA_PWR_INTEGRAL_MIN_CLAMP),
          agx_sf_from_u32(c->pwr_integral_min_clamp));
    put32(o, FLD(HWA_MAX_POWER_1), agx_sf_from_u32(d->max_power_mw));
    put32(o, FLD(HWA_PWR_PROPORTIONAL_GAIN), c->pwr_proportional_gain);
    put32(o, FLD(HWA_PWR_PSTATE_RELATED_K),
          agx_sf_div(SF_NEG(agx_sf_from_u32(max_ps_scaled)),
                     agx_sf_from_u32(d->max_power_mw)));
    put32(o, FLD(HWA_PWR_PSTATE_MAX_DC_OFFSET),
          (uint32_t)((int32_t)c->pwr_min_duty_cycle - (int32_t)max_ps_scaled));
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_2), max_ps_scaled);
    put32(o, FLD(HWA_MAX_POWER_2), d->max_power_mw);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_3), max_ps_scaled);
}

/* HwDataA: the PPM controller */
static void hwa_ppm_controller(CalibOut *o, const AgxCalibParams *p,
                               const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t ppm_periods = c->ppm_filter_time_constant_ms / d->period_ms;
    uint32_t ppm_a = sf_recip(ppm_periods);
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_PPM_FILTER_TC_PERIODS_X4), ppm_periods * 4);
    put32(o, FLD(HWA_PPM_FILTER_A_NEG), agx_sf_sub(SF_ONE, ppm_a));
    put32(o, FLD(HWA_PPM_FILTER_A), ppm_a);
    put32(o, FLD(HWA_PPM_KI_DT), agx_sf_mul(c->ppm_ki, d->period_s));
    put32(o, FLD(HWA_UNK_6FC), F32(65536.0f));
    put32(o, FLD(HWA_PPM_KP), c->ppm_kp);
    put32(o, FLD(HWA_PWR_MIN_DUTY_CYCLE), c->pwr_min_duty_cycle);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_4), max_ps_scaled);
    put32(o, FLD(HWA_MAX_POWER_3), d->max_power_mw);
    put32(o, FLD(HWA_PPM_FILTER_TC_MS), c->ppm_filter_time_constant_ms);
    put32(o, FLD(HWA_PPM_FILTER_TC_CLKS),
          ppm_periods * d->period_ms * d->base_clock_khz);
}

/* HwDataA: the performance controller */
static void hwa_perf_controller(CalibOut *o, const AgxCalibParams *p,
                                const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t perf_a = sf_recip(c->perf_filter_time_constant);
    uint32_t perf_a2 = sf_recip(c->perf_filter_time_constant2);
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_PERF_TGT_UTILIZATION), c->perf_tgt_utilization);
    put32(o, FLD(HWA_PERF_BOOST_MIN_UTIL), c->perf_boost_min_util);
    put32(o, FLD(HWA_PERF_BOOST_CE_STEP), c->perf_boost_ce_step);
    put32(o, FLD(HWA_PERF_RESET_ITERS), c->perf_reset_iters);
    put32(o, FLD(HWA_UNK_774), 6);
    put32(o, FLD(HWA_UNK_778), 1);
    put32(o, FLD(HWA_PERF_FILTER_DROP_THRESHOLD),
          c->perf_filter_drop_threshold);
    put32(o, FLD(HWA_PERF_FILTER_A_NEG), agx_sf_sub(SF_ONE, perf_a));
    put32(o, FLD(HWA_PERF_FILTER_A2_NEG), agx_sf_sub(SF_ONE, perf_a2));
    put32(o, FLD(HWA_PERF_FILTER_A), perf_a);
    put32(o, FLD(HWA_PERF_FILTER_A2), perf_a2);
    put32(o, FLD(HWA_PERF_KI), c->perf_integral_gain);
    put32(o, FLD(HWA_PERF_KI2), c->perf_integral_gain2);
    put32(o, FLD(HWA_PERF_INTEGRAL_MIN_CLAMP),
          agx_sf_from_u32(c->perf_integral_min_clamp));
    put32(o, FLD(HWA_UNK_79C), F32(95.0f));
    put32(o, FLD(HWA_PERF_KP), c->perf_proportional_gain);
    put32(o, FLD(HWA_PERF_KP2), c->perf_proportional_gain2);
    put32(o, FLD(HWA_BOOST_STATE_UNK_K),
          agx_sf_div(agx_sf_from_u32(d->max_ps - d->base_ps), F32(0.95f)));
    put32(o, FLD(HWA_BASE_PSTATE_SCALED_2), d->base_ps_scaled);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_5), max_ps_scaled);
    put32(o, FLD(HWA_BASE_PSTATE_SCALED_3), d->base_ps_scaled);
    put32(o, FLD(HWA_PERF_TGT_UTILIZATION_2), c->perf_tgt_utilization);
    put32(o, FLD(HWA_BASE_PSTATE_SCALED_4), d->base_ps_scaled);
    put32(o, FLD(HWA_UNK_7FC), F32(65536.0f));
    put32(o, FLD(HWA_PWR_MIN_DUTY_CYCLE_2),
          agx_sf_from_u32(c->pwr_min_duty_cycle));
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_6), agx_sf_from_u32(max_ps_scaled));
    put32(o, FLD(HWA_MAX_FREQ_MHZ), d->max_freq_mhz);
    put32(o, FLD(HWA_PWR_MIN_DUTY_CYCLE_3), c->pwr_min_duty_cycle);
    put32(o, FLD(HWA_MIN_PSTATE_SCALED_4), F32(100.0f));
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_7), max_ps_scaled);
    put32(o, FLD(HWA_UNK_ALPHA_NEG), F32(0.8f));
    put32(o, FLD(HWA_UNK_ALPHA), F32(0.2f));
}

/* HwDataA: the temperature ("fast die0") controller */
static void hwa_fast_die0_controller(CalibOut *o, const AgxCalibParams *p,
                                     const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put64(o, FLD(HWA_FAST_DIE0_SENSOR_MASK), AGX_T8103_FAST_SENSOR_MASK);
    put32(o, FLD(HWA_FAST_DIE0_RELEASE_TEMP_CC),
          100 * c->fast_die0_release_temp);
    put32(o, FLD(HWA_UNK_87C), (uint32_t)AGX_T8103_UNK_87C);
    put32(o, FLD(HWA_UNK_880), 4);
    put32(o, FLD(HWA_UNK_894), SF_ONE);
    put32(o, FLD(HWA_FAST_DIE0_KI_DT),
          agx_sf_mul(c->fast_die0_integral_gain, d->period_s));
    put32(o, FLD(HWA_UNK_8A8), F32(65536.0f));
    put32(o, FLD(HWA_FAST_DIE0_KP), c->fast_die0_proportional_gain);
    put32(o, FLD(HWA_PWR_MIN_DUTY_CYCLE_4), c->pwr_min_duty_cycle);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_8), max_ps_scaled);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_9), max_ps_scaled);
    put32(o, FLD(HWA_FAST_DIE0_PROP_TGT_DELTA),
          100 * c->fast_die0_prop_tgt_delta);
    put32(o, FLD(HWA_UNK_8CC), AGX_T8103_UNK_8CC);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_10), max_ps_scaled);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_11), max_ps_scaled);
}

/* HwDataA: the average power controller and its power zone */
static void hwa_avg_power_controller(CalibOut *o, const AgxCalibParams *p,
                                     const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t avg_periods = c->avg_power_filter_tc_ms / d->period_ms;
    uint32_t avg_target_a = sf_recip(c->avg_power_target_filter_tc);
    uint32_t avg_a = sf_recip(avg_periods);
    uint32_t pz_a = sf_recip(c->power_zone_filter_tc);
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_UNK_C2C), 1);
    put32(o, FLD(HWA_POWER_ZONE_COUNT), 1);
    put32(o, FLD(HWA_MAX_POWER_4), d->max_power_mw);
    put32(o, FLD(HWA_MAX_POWER_5), d->max_power_mw);
    put32(o, FLD(HWA_MAX_POWER_6), d->max_power_mw);
    put32(o, FLD(HWA_AVG_POWER_TARGET_FILTER_A_NEG),
          agx_sf_sub(SF_ONE, avg_target_a));
    put32(o, FLD(HWA_AVG_POWER_TARGET_FILTER_A), avg_target_a);
    put32(o, FLD(HWA_AVG_POWER_TARGET_FILTER_TC_X4),
          4 * c->avg_power_target_filter_tc);
    put32(o, FLD(HWA_AVG_POWER_TARGET_FILTER_TC_XPERIOD),
          d->period_ms * c->avg_power_target_filter_tc);
    put32(o, FLD(HWA_AVG_POWER_TARGET_FILTER_TC_CLKS),
          d->period_ms * c->avg_power_target_filter_tc * d->base_clock_khz);
    put32(o, FLD(HWA_PZ_TARGET), c->power_zone_target);
    put32(o, FLD(HWA_PZ_TARGET_OFF),
          c->power_zone_target - c->power_zone_target_offset);
    put32(o, FLD(HWA_PZ_FILTER_TC_X4), 4 * c->power_zone_filter_tc);
    put32(o, FLD(HWA_PZ_FILTER_TC_XPERIOD),
          d->period_ms * c->power_zone_filter_tc);
    put32(o, FLD(HWA_PZ_UNK_10), 1320000000);
    put32(o, FLD(HWA_PZ_FILTER_A_NEG), agx_sf_sub(SF_ONE, pz_a));
    put32(o, FLD(HWA_PZ_FILTER_A), pz_a);
    put32(o, FLD(HWA_AVG_POWER_FILTER_TC_PERIODS_X4), 4 * avg_periods);
    put32(o, FLD(HWA_AVG_POWER_FILTER_A_NEG), agx_sf_sub(SF_ONE, avg_a));
    put32(o, FLD(HWA_AVG_POWER_FILTER_A), avg_a);
    put32(o, FLD(HWA_AVG_POWER_KI_DT),
          agx_sf_mul(c->avg_power_ki_only, d->period_s));
    put32(o, FLD(HWA_UNK_D20), F32(65536.0f));
    put32(o, FLD(HWA_AVG_POWER_KP), c->avg_power_kp);
    put32(o, FLD(HWA_AVG_POWER_MIN_DUTY_CYCLE), c->avg_power_min_duty_cycle);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_12), max_ps_scaled);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_13), max_ps_scaled);
    put32(o, FLD(HWA_MAX_POWER_7), agx_sf_from_u32(d->max_power_mw));
    put32(o, FLD(HWA_MAX_POWER_8), d->max_power_mw);
    put32(o, FLD(HWA_AVG_POWER_FILTER_TC_MS), c->avg_power_filter_tc_ms);
    put32(o, FLD(HWA_AVG_POWER_FILTER_TC_CLKS),
          avg_periods * d->period_ms * d->base_clock_khz);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_14), max_ps_scaled);
}

/* HwDataA: the t8103/t8112 ("T81xx") block, only before 13.3 */
static void hwa_t81xx_block(CalibOut *o, const AgxCalibParams *p,
                            const CalibDerived *d)
{
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_T81_D8C), 0x80000000);
    put32(o, FLD(HWA_T81_D90), 4);
    put32(o, FLD(HWA_T81_D9C), F32(0.6f));
    put32(o, FLD(HWA_T81_DA4), F32(0.4f));
    put32(o, FLD(HWA_T81_DAC), F32(0.38552f));
    put32(o, FLD(HWA_T81_DB8), F32(65536.0f));
    put32(o, FLD(HWA_T81_DBC), F32(13.56f));
    put32(o, FLD(HWA_T81_MAX_PSTATE_SCALED), max_ps_scaled);
}

/* HwDataA: the "SE" controller, 13.x only (absent from the 12.3 layout) */
static void hwa_se_controller(CalibOut *o, const AgxCalibParams *p,
                              const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t se_a = sf_recip(c->se_filter_time_constant);
    uint32_t se_1_a = sf_recip(c->se_filter_time_constant_1);
    uint32_t max_ps_scaled = d->max_ps_scaled;

    put32(o, FLD(HWA_X_UNK_38), 4);
    put32(o, FLD(HWA_X_UNK_3C), 8000);
    put32(o, FLD(HWA_X_GPU_SE_INACTIVE_THRESHOLD), c->se_inactive_threshold);
    put32(o, FLD(HWA_X_GPU_SE_ENGAGEMENT_CRITERIA), c->se_engagement_criteria);
    put32(o, FLD(HWA_X_GPU_SE_RESET_CRITERIA), c->se_reset_criteria);
    put32(o, FLD(HWA_X_UNK_54), 50);
    put32(o, FLD(HWA_X_UNK_58), 1);
    put32(o, FLD(HWA_X_GPU_SE_FILTER_A_NEG), agx_sf_sub(SF_ONE, se_a));
    put32(o, FLD(HWA_X_GPU_SE_FILTER_1_A_NEG), agx_sf_sub(SF_ONE, se_1_a));
    put32(o, FLD(HWA_X_GPU_SE_FILTER_A), se_a);
    put32(o, FLD(HWA_X_GPU_SE_FILTER_1_A), se_1_a);
    put32(o, FLD(HWA_X_GPU_SE_KI_DT), agx_sf_mul(c->se_ki, d->period_s));
    put32(o, FLD(HWA_X_GPU_SE_KI_1_DT), agx_sf_mul(c->se_ki_1, d->period_s));
    put32(o, FLD(HWA_X_UNK_7C), F32(65536.0f));
    put32(o, FLD(HWA_X_GPU_SE_KP), c->se_kp);
    put32(o, FLD(HWA_X_GPU_SE_KP_1), c->se_kp_1);
    put32(o, FLD(HWA_X_UNK_8C), 100);          /* 40 before 13.3 */
    put32(o, FLD(HWA_X_MAX_PSTATE_SCALED_1), max_ps_scaled);
    put32(o, FLD(HWA_X_UNK_9C), F32(8000.0f));
    put32(o, FLD(HWA_X_UNK_A0), 1400);
    put32(o, FLD(HWA_X_GPU_SE_FILTER_TIME_CONSTANT_MS),
          c->se_filter_time_constant * d->period_ms);
    put32(o, FLD(HWA_X_GPU_SE_FILTER_TIME_CONSTANT_1_MS),
          c->se_filter_time_constant_1 * d->period_ms);
    put64(o, FLD(HWA_X_GPU_SE_FILTER_TIME_CONSTANT_CLKS),
          c->se_filter_time_constant * d->clocks_per_period);
    put64(o, FLD(HWA_X_GPU_SE_FILTER_TIME_CONSTANT_1_CLKS),
          c->se_filter_time_constant_1 * d->clocks_per_period);
    put32(o, FLD(HWA_X_UNK_C4), F32(65536.0f));
    put32(o, FLD(HWA_X_UNK_114), F32(65536.0f));
    put32(o, FLD(HWA_X_UNK_124), 40);
    put32(o, FLD(HWA_X_MAX_PSTATE_SCALED_2), max_ps_scaled);
}

/* HwDataA: sensors, the shared tables and the leakage coefficients */
static void hwa_sensors_shared_leakage(CalibOut *o, const AgxCalibParams *p,
                                       const CalibDerived *d)
{
    put64(o, FLD(HWA_FAST_DIE0_SENSOR_MASK_2), AGX_T8103_FAST_SENSOR_MASK);
    put32(o, FLD(HWA_UNK_E24), AGX_T8103_UNK_E24);
    put32(o, FLD(HWA_UNK_E28), 1);
    put64(o, FLD(HWA_FAST_DIE0_SENSOR_MASK_ALT), AGX_T8103_FAST_SENSOR_MASK);
    put64(o, FLD(HWA_FAST_DIE0_SENSOR_PRESENT),
          AGX_T8103_FAST_DIE0_SENSOR_PRESENT);
    put32(o, FLD(HWA_UNK_163C), 1);
    put_shared(o, FLD(HWA_HWS1), FLD(HWA_HWS2));
    put32(o, FLD(HWA_UNK_3CE8), 1);
    put32(o, FLD(HWA_CORE_LEAK_COEF), p->core_leak_coef);
    put32(o, FLD(HWA_SRAM_LEAK_COEF), p->sram_leak_coef);
}

static void fill_hwdata_a(CalibOut *o, const AgxCalibParams *p,
                          const CalibDerived *d)
{
    hwa_pstates(o, p, d);
    hwa_power_controller(o, p, d);
    hwa_ppm_controller(o, p, d);
    hwa_perf_controller(o, p, d);
    hwa_fast_die0_controller(o, p, d);
    hwa_avg_power_controller(o, p, d);
    if (o->col == AGX_CALIB_COL_V12_3) {
        hwa_t81xx_block(o, p, d);
    }
    hwa_se_controller(o, p, d);
    hwa_sensors_shared_leakage(o, p, d);
}

/* GPU VAs the firmware is told about (the driver's layout) */
#define UAT_USER_TOP            (1ULL << 39)
#define UAT_PAGE_SIZE           0x4000
#define IOVA_UNK_PAGE           (UAT_USER_TOP - 2 * UAT_PAGE_SIZE)
#define IOVA_KERN_TIMESTAMPS    0xffffffae10000000ULL

static void fill_hwdata_b(CalibOut *o, const AgxCalibParams *p,
                          const CalibDerived *d)
{
    static const uint32_t unk_ae4_v12[4] = { 0x0, 0xf, 0x3f, 0x3f };
    static const uint32_t unk_ae4_v13[4] = { 0x0, 0x3, 0x7, 0x7 };
    const uint32_t *unk_ae4 = o->col == AGX_CALIB_COL_V12_3 ? unk_ae4_v12
                                                            : unk_ae4_v13;
    uint32_t min_sram_mv = p->pwr.min_sram_microvolt / 1000;
    uint32_t base_hz = p->pstates[d->base_ps].freq_hz;
    uint32_t boost_step = (p->pstates[d->max_ps].freq_hz - base_hz) / 100;

    /* User VA layout; 0x20/0x28 ("USC start") stay 0 */
    put64(o, FLD(HWB_UNK_0), 0x1300000000ULL);
    put64(o, FLD(HWB_UNK_8), 0x1400000000ULL);
    put64(o, FLD(HWB_UNK_10), 0x100000000ULL);
    put64(o, FLD(HWB_UNK_18), 0xffc00000ULL);
    put64(o, FLD(HWB_UNK_30), IOVA_UNK_PAGE);
    put64(o, FLD(HWB_TIMESTAMP_AREA_BASE), IOVA_KERN_TIMESTAMPS);

    put32(o, FLD(HWB_CHIP_ID), AGX_T8103_CHIP_ID);
    put32(o, FLD(HWB_UNK_454), AGX_T8103_HWB_UNK_454);
    put32(o, FLD(HWB_UNK_458), 1);
    put32(o, FLD(HWB_UNK_460), 1);
    put32(o, FLD(HWB_UNK_464), 1);
    put32(o, FLD(HWB_UNK_468), 1);
    put32(o, FLD(HWB_UNK_47C), 1);
    put32(o, FLD(HWB_UNK_484), 1);
    put32(o, FLD(HWB_UNK_48C), 1);
    put32(o, FLD(HWB_BASE_CLOCK_KHZ), d->base_clock_khz);
    put32(o, FLD(HWB_POWER_SAMPLE_PERIOD), d->period_ms);
    put32(o, FLD(HWB_UNK_49C), 1);
    put32(o, FLD(HWB_UNK_4A0), 1);
    put32(o, FLD(HWB_UNK_4A4), 1);
    put32(o, FLD(HWB_UNK_4C0), 0x1f);
    put32(o, FLD(HWB_UNK_4F0), 1);
    put32(o, FLD(HWB_UNK_4F4), 1);
    put32(o, FLD(HWB_UNK_504), 0x31);
    put32(o, FLD(HWB_UNK_524), 1);             /* secure cache flush */
    put32(o, FLD(HWB_NUM_FRAGS), p->num_cores * AGX_T8103_NUM_CLUSTERS);
    put32(o, FLD(HWB_UNK_554), 1);
    put64(o, FLD(HWB_UAT_TTB_BASE), p->uat_ttb_base);
    put32(o, FLD(HWB_GPU_CORE_ID), AGX_T8103_GPU_CORE_ID);
    put32(o, FLD(HWB_GPU_REV_ID), p->gpu_rev_id);
    put32(o, FLD(HWB_NUM_CORES), p->num_cores * AGX_T8103_NUM_CLUSTERS);
    put32(o, FLD(HWB_MAX_PSTATE), d->max_ps);
    put32(o, FLD(HWB_NUM_PSTATES), p->num_pstates);

    for (uint32_t i = 0; i < p->num_pstates; i++) {
        const AgxCalibPState *ps = &p->pstates[i];
        uint32_t mv = ps->volt_uv / 1000;

        put32i(o, FLD(HWB_FREQUENCIES), i, ps->freq_hz / 1000000);
        /* One cluster: its voltage fills every column */
        for (int j = 0; j < HWB_VOLTAGE_COLUMNS; j++) {
            put32i(o, FLD(HWB_VOLTAGES), i * HWB_VOLTAGE_COLUMNS + j, mv);
            put32i(o, FLD(HWB_VOLTAGES_SRAM), i * HWB_VOLTAGE_COLUMNS + j,
                   MAX(mv, min_sram_mv));
        }
        put32i(o, FLD(HWB_SRAM_K), i, F32(AGX_T8103_SRAM_K));
        put32i(o, FLD(HWB_REL_MAX_POWERS), i,
               ps->pwr_uw / 1000 * 100 / d->max_power_mw);
        put32i(o, FLD(HWB_REL_BOOST_FREQS), i,
               i > d->base_ps ? (ps->freq_hz - base_hz) / boost_step : 0);
    }
    for (int i = 0; i < 16; i++) {
        put32i(o, FLD(HWB_UNK_ARR_0), i, i);
    }

    put32(o, FLD(HWB_MIN_SRAM_VOLT), min_sram_mv);
    put32(o, FLD(HWB_UNK_AB8), AGX_T8103_HWB_UNK_AB8);
    put32(o, FLD(HWB_UNK_ABC), AGX_T8103_HWB_UNK_ABC);
    put32(o, FLD(HWB_UNK_AC0), 0x1020);
    for (int i = 0; i < 4; i++) {
        put32i(o, FLD(HWB_UNK_AE4), i, unk_ae4[i]);
    }
    put32(o, FLD(HWB_UNK_B10), 1);
    put32(o, FLD(HWB_UNK_B24), 1);
    put32(o, FLD(HWB_UNK_B28), 1);
    put32(o, FLD(HWB_UNK_B2C), 1);
    put32(o, FLD(HWB_UNK_B38_0), 1);
    put32(o, FLD(HWB_UNK_B38_4), 1);
    for (int i = 0; i < 12; i++) {
        put32i(o, FLD(HWB_UNK_B38), i, 0xffffffff);
    }
    put32(o, FLD(HWB_UNK_C3C), 0x1a);          /* 13.3 and later */
}

static void fill_globals(CalibOut *o, const AgxCalibParams *p,
                         const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;

    put32(o, FLD(GLB_UNK_24_0), 3000);
    put32(o, FLD(GLB_UNK_28), 1);
    put32(o, FLD(GLB_UNK_2C), 1);
    put32(o, FLD(GLB_UNK_34), 120);
    put16(o, FLD(GLB_SUB_UNK_54), AGX_T8103_GLOBAL_UNK_54);
    put16(o, FLD(GLB_SUB_UNK_56), 40);
    put16(o, FLD(GLB_SUB_UNK_58), 0xffff);
    put32(o, FLD(GLB_SUB_UNK_5E), 1);
    put32(o, FLD(GLB_SUB_UNK_66), 1);

    put32(o, FLD(GLB_UNK_8900), 1);
    put32(o, FLD(GLB_MAX_POWER), d->max_power_mw);
    put32(o, FLD(GLB_MAX_PSTATE_SCALED), d->max_ps_scaled);
    put32(o, FLD(GLB_MAX_PSTATE_SCALED_2), d->max_ps_scaled);
    put32(o, FLD(GLB_MAX_PSTATE_SCALED_3), d->max_ps_scaled);
    put32(o, FLD(GLB_POWER_ZONE_COUNT), 1);
    put32(o, FLD(GLB_AVG_POWER_FILTER_TC_PERIODS),
          c->avg_power_filter_tc_ms / d->period_ms);
    put32(o, FLD(GLB_AVG_POWER_KI_DT),
          agx_sf_mul(c->avg_power_ki_only, d->period_s));
    put32(o, FLD(GLB_AVG_POWER_KP), c->avg_power_kp);
    put32(o, FLD(GLB_AVG_POWER_MIN_DUTY_CYCLE), c->avg_power_min_duty_cycle);
    put32(o, FLD(GLB_AVG_POWER_TARGET_FILTER_TC),
          c->avg_power_target_filter_tc);
    put32(o, FLD(GLB_PZ_TARGET), c->power_zone_target);
    put32(o, FLD(GLB_PZ_TARGET_OFF),
          c->power_zone_target - c->power_zone_target_offset);
    put32(o, FLD(GLB_PZ_FILTER_TC), c->power_zone_filter_tc);
    put32(o, FLD(GLB_UNK_89BC), AGX_T8103_UNK_8CC);
    put32(o, FLD(GLB_FAST_DIE0_RELEASE_TEMP), 100 * c->fast_die0_release_temp);
    put32(o, FLD(GLB_UNK_89C4), (uint32_t)AGX_T8103_UNK_87C);
    put32(o, FLD(GLB_FAST_DIE0_PROP_TGT_DELTA),
          100 * c->fast_die0_prop_tgt_delta);
    put32(o, FLD(GLB_FAST_DIE0_KP), c->fast_die0_proportional_gain);
    put32(o, FLD(GLB_FAST_DIE0_KI_DT),
          agx_sf_mul(c->fast_die0_integral_gain, d->period_s));
    put32(o, FLD(GLB_UNK_89E0), 1);
    put32(o, FLD(GLB_MAX_POWER_2), d->max_power_mw);
    put32(o, FLD(GLB_PPM_KP), c->ppm_kp);
    put32(o, FLD(GLB_PPM_KI_DT), agx_sf_mul(c->ppm_ki, d->period_s));
    put32(o, FLD(GLB_UNK_89F4_8), 1);
    put_shared(o, FLD(GLB_HWS1), FLD(GLB_HWS2));
    put32(o, FLD(GLB_IDLE_OFF_STANDBY_TIMER), c->idle_off_standby_timer);
    put32(o, FLD(GLB_UNK_900C), 1);
    put32(o, FLD(GLB_UNK_9010_0), 1);
    put32(o, FLD(GLB_UNK_903C), o->col == AGX_CALIB_COL_V12_3 ? 0 : 1);

    put32(o, FLD(GLB_FAULT_CONTROL),
          0xb);     /* macOS's; the driver may override */
    put32(o, FLD(GLB_DO_INIT), 1);
    put32(o, FLD(GLB_PROGRESS_CHECK_INTERVAL_3D), 40);
    put32(o, FLD(GLB_PROGRESS_CHECK_INTERVAL_TA), 10);
    put32(o, FLD(GLB_PROGRESS_CHECK_INTERVAL_CL), 250);
    put32(o, FLD(GLB_UNK_1102C_0), 1);
    put32(o, FLD(GLB_UNK_1102C_4), 1);
    put32(o, FLD(GLB_UNK_1102C_8), 100);
    put32(o, FLD(GLB_UNK_1102C_C), 1);
    put32(o, FLD(GLB_IDLE_OFF_DELAY_MS), c->idle_off_delay_ms);
    put32(o, FLD(GLB_FENDER_IDLE_OFF_DELAY_MS), c->fender_idle_off_delay_ms);
    put32(o, FLD(GLB_FW_EARLY_WAKE_TIMEOUT_MS), c->fw_early_wake_timeout_ms);
    put32(o, FLD(GLB_CL_CONTEXT_SWITCH_TIMEOUT_MS), 40);
    put32(o, FLD(GLB_CL_KILL_TIMEOUT_MS), 50);
}

void agx_calib_fill(const AgxAbi *abi, AgxCalibBlob which,
                    const AgxCalibParams *p, uint8_t *buf)
{
    CalibOut o = {
        .buf = buf,
        .size = agx_calib_size(abi, which),
        .which = which,
        .col = agx_calib_col(abi),
    };
    CalibDerived d;

    g_assert(!agx_calib_check_params(p));
    calib_derive(p, &d);
    memset(buf, 0, o.size);
    switch (which) {
    case AGX_CALIB_HWDATA_A:
        fill_hwdata_a(&o, p, &d);
        break;
    case AGX_CALIB_HWDATA_B:
        fill_hwdata_b(&o, p, &d);
        break;
    case AGX_CALIB_GLOBALS:
        fill_globals(&o, p, &d);
        break;
    default:
        g_assert_not_reached();
    }
}
