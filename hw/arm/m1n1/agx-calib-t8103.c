/*
 * AGX G13 calibration: the t8103 (M1) parameters
 *
 * Values: m1n1's t8103 configuration (rust/src/gpu/hw/t8103.rs) and the
 * power computation of its src/kboot_gpu.c.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/arm/m1n1/agx-calib-t8103.h"
#include "hw/arm/m1n1/agx-softfloat.h"

#define F32(f)          agx_f32_bits(f)

const int32_t agx_t8103_shared1_tab[16] = {
    -1, 0x7282, 0x50ea, 0x370a, 0x25be, 0x1c1f, 0x16fb, -1,
    -1, -1, -1, -1, -1, -1, -1, -1,
};

const int32_t agx_t8103_shared2_tab[10] = {
    0x800, 0x1555, -1, -1, -1, -1, -1, -1, 0, 0,
};

/*
 * t8103 operating points.  The GPU's perf-states are fused per chip and
 * iBoot puts them in the ADT; these are the ones a MacBookAir10,1 reports
 * (seven states, the first one off).  Power per state is m1n1's t8103
 * model (src/kboot_gpu.c): mV times this factor times 100 uW.
 */
static const struct {
    uint32_t mhz;
    uint32_t mv;
    uint32_t pwr_factor;
} t8103_pstates[] = {
    { 0, 400, 0 },
    { 396, 618, 63 },
    { 528, 650, 80 },
    { 720, 687, 108 },
    { 924, 778, 150 },
    { 1128, 868, 198 },
    { 1278, 928, 210 },
};

/*
 * Mac mini (j274): no base pstate in the ADT, m1n1 uses 3 as the
 * downstream j274 device tree does (rust/src/gpu/initdata.rs).
 */
#define T8103_J274_BASE_PSTATE  3

/*
 * m1n1's leakage scaling (kboot_gpu.c): a fraction of the coefficient is
 * "uncore", the rest scales with the share of enabled cores.  Done in
 * single precision as m1n1 does, one rounding per operation (through
 * double, which rounds each of these exactly like float would, and no
 * multiply-add can be fused across the conversions).
 */
static uint32_t t8103_leakage(float coef, unsigned int cores,
                              unsigned int max_cores, float uncore_fraction)
{
    float uncore = (float)((double)coef * uncore_fraction);
    float core = (float)((double)coef - uncore);
    float share = (float)((double)cores / max_cores);
    float scaled = (float)((double)share * core);

    return agx_f32_bits((float)((double)uncore + scaled));
}

void agx_calib_t8103_params(AgxCalibParams *p, uint32_t core_mask,
                            uint64_t uat_ttb_base)
{
    unsigned int cores = __builtin_popcount(core_mask & 0xff);
    AgxCalibPower *c = &p->pwr;

    memset(p, 0, sizeof(*p));
    p->core_mask = core_mask;
    p->num_cores = AGX_T8103_MAX_CORES;
    p->gpu_rev_id = AGX_GPU_REV_B1;
    p->uat_ttb_base = uat_ttb_base;
    p->perf_base_pstate = T8103_J274_BASE_PSTATE;
    p->num_pstates = G_N_ELEMENTS(t8103_pstates);
    for (int i = 0; i < G_N_ELEMENTS(t8103_pstates); i++) {
        p->pstates[i].freq_hz = t8103_pstates[i].mhz * 1000000;
        p->pstates[i].volt_uv = t8103_pstates[i].mv * 1000;
        p->pstates[i].pwr_uw = t8103_pstates[i].mv *
                               t8103_pstates[i].pwr_factor * 100;
    }
    p->core_leak_coef = t8103_leakage(1000.0f, cores, AGX_T8103_MAX_CORES,
                                      0.12f);
    p->sram_leak_coef = t8103_leakage(45.0f, cores, AGX_T8103_MAX_CORES,
                                      0.2f);

    /* m1n1 hw/t8103.rs, the values of the downstream device tree */
    c->power_sample_period = 8;
    c->min_sram_microvolt = 850000;
    c->avg_power_filter_tc_ms = 1000;
    c->avg_power_ki_only = F32(7.5f);
    c->avg_power_kp = F32(4.0f);
    c->avg_power_min_duty_cycle = 40;
    c->avg_power_target_filter_tc = 125;
    c->fast_die0_integral_gain = F32(200.0f);
    c->fast_die0_proportional_gain = F32(5.0f);
    c->fast_die0_prop_tgt_delta = 0;
    c->fast_die0_release_temp = 80;
    c->fender_idle_off_delay_ms = 40;
    c->fw_early_wake_timeout_ms = 5;
    c->idle_off_delay_ms = 2;
    c->idle_off_standby_timer = 0;
    c->perf_boost_ce_step = 25;
    c->perf_boost_min_util = 100;
    c->perf_filter_drop_threshold = 0;
    c->perf_filter_time_constant = 5;
    c->perf_filter_time_constant2 = 50;
    c->perf_integral_gain = F32(7.8956833f);
    c->perf_integral_gain2 = F32(0.197392f);
    c->perf_integral_min_clamp = 0;
    c->perf_proportional_gain = F32(14.707963f);
    c->perf_proportional_gain2 = F32(6.853981f);
    c->perf_reset_iters = 6;
    c->perf_tgt_utilization = 85;
    c->ppm_filter_time_constant_ms = 100;
    c->ppm_ki = F32(91.5f);
    c->ppm_kp = F32(6.9f);
    c->pwr_filter_time_constant = 313;
    c->pwr_integral_gain = F32(0.0202129f);
    c->pwr_integral_min_clamp = 0;
    c->pwr_min_duty_cycle = 40;
    c->pwr_proportional_gain = F32(5.2831855f);
    c->pwr_sample_period_aic_clks = AGX_T8103_BASE_CLOCK_HZ / 1000 *
                                    c->power_sample_period;
    c->se_engagement_criteria = (uint32_t)-1;
    c->se_filter_time_constant = 9;
    c->se_filter_time_constant_1 = 3;
    c->se_inactive_threshold = 2500;
    c->se_ki = F32(-50.0f);
    c->se_ki_1 = F32(-100.0f);
    c->se_kp = F32(-5.0f);
    c->se_kp_1 = F32(-10.0f);
    c->se_reset_criteria = 50;
    c->power_zone_target = 30000;
    c->power_zone_target_offset = 100;
    c->power_zone_filter_tc = 6875;
}
