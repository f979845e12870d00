/*
 * AGX G13 calibration blobs: their parameters, names and sizes
 *
 * The parameters' check, the blobs' reserved-memory names and sizes, and
 * the gpu node's "apple,*" power properties.  The blobs themselves are
 * written by agx-calib-fill.c, t8103's parameters come from
 * agx-calib-t8103.c.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/arm/m1n1/agx-calib.h"

const char *agx_calib_check_params(const AgxCalibParams *p)
{
    uint32_t base = p->perf_base_pstate, max = p->num_pstates - 1;
    uint32_t max_pwr = 0;

    if (p->num_pstates < 2 || p->num_pstates > AGX_CALIB_MAX_PSTATES) {
        return "between 2 and 16 pstates are needed";
    }
    if (base >= max) {
        return "the base pstate must be below the highest one";
    }
    for (uint32_t i = 0; i < p->num_pstates; i++) {
        if (i > base && p->pstates[i].freq_hz < p->pstates[i - 1].freq_hz) {
            return "frequencies above the base pstate must not decrease";
        }
        max_pwr = MAX(max_pwr, p->pstates[i].pwr_uw / 1000);
    }
    if (p->pstates[max].freq_hz - p->pstates[base].freq_hz < 100) {
        return "the highest pstate must be faster than the base one";
    }
    if (!max_pwr) {
        return "no pstate has a power of 1 mW or more";
    }
    if (!p->num_cores || p->num_cores > AGX_T8103_MAX_CORES ||
        !p->core_mask || p->core_mask >> p->num_cores) {
        return "core_mask must name 1 to num_cores (at most 8) cores";
    }
    if (!p->pwr.power_sample_period) {
        return "the power sample period must not be zero";
    }
    if (p->pwr.power_zone_target_offset > p->pwr.power_zone_target) {
        return "the power zone offset must not exceed its target";
    }
    return NULL;
}

size_t agx_calib_size(const AgxAbi *abi, AgxCalibBlob which)
{
    switch (which) {
    case AGX_CALIB_HWDATA_A:
        return abi->hwdata_a_size;
    case AGX_CALIB_HWDATA_B:
        return abi->hwdata_b_size;
    case AGX_CALIB_GLOBALS:
        return abi->globals_size;
    default:
        g_assert_not_reached();
    }
}

static const char *const agx_calib_names[AGX_CALIB_NUM_BLOBS][2] = {
    [AGX_CALIB_HWDATA_A] = { "hw-cal-a", "debug,hw-cal-a-size" },
    [AGX_CALIB_HWDATA_B] = { "hw-cal-b", "debug,hw-cal-b-size" },
    [AGX_CALIB_GLOBALS] = { "globals", "debug,globals-size" },
};

const char *agx_calib_region_name(AgxCalibBlob which)
{
    g_assert(which < AGX_CALIB_NUM_BLOBS);
    return agx_calib_names[which][0];
}

const char *agx_calib_size_prop(AgxCalibBlob which)
{
    g_assert(which < AGX_CALIB_NUM_BLOBS);
    return agx_calib_names[which][1];
}

/* The single-cell "apple,*" properties, as the driver names them */
static const struct {
    const char *name;
    size_t off;
} agx_calib_power_props[] = {
#define P(name, field) { "apple," name, offsetof(AgxCalibPower, field) }
    P("power-sample-period", power_sample_period),
    P("min-sram-microvolt", min_sram_microvolt),
    P("avg-power-filter-tc-ms", avg_power_filter_tc_ms),
    P("avg-power-ki-only", avg_power_ki_only),
    P("avg-power-kp", avg_power_kp),
    P("avg-power-min-duty-cycle", avg_power_min_duty_cycle),
    P("avg-power-target-filter-tc", avg_power_target_filter_tc),
    P("fast-die0-integral-gain", fast_die0_integral_gain),
    P("fast-die0-proportional-gain", fast_die0_proportional_gain),
    P("fast-die0-prop-tgt-delta", fast_die0_prop_tgt_delta),
    P("fast-die0-release-temp", fast_die0_release_temp),
    P("fender-idle-off-delay-ms", fender_idle_off_delay_ms),
    P("fw-early-wake-timeout-ms", fw_early_wake_timeout_ms),
    P("idle-off-delay-ms", idle_off_delay_ms),
    P("idleoff-standby-timer", idle_off_standby_timer),
    P("perf-boost-ce-step", perf_boost_ce_step),
    P("perf-boost-min-util", perf_boost_min_util),
    P("perf-filter-drop-threshold", perf_filter_drop_threshold),
    P("perf-filter-time-constant", perf_filter_time_constant),
    P("perf-filter-time-constant2", perf_filter_time_constant2),
    P("perf-integral-gain", perf_integral_gain),
    P("perf-integral-gain2", perf_integral_gain2),
    P("perf-integral-min-clamp", perf_integral_min_clamp),
    P("perf-proportional-gain", perf_proportional_gain),
    P("perf-proportional-gain2", perf_proportional_gain2),
    P("perf-reset-iters", perf_reset_iters),
    P("perf-tgt-utilization", perf_tgt_utilization),
    P("ppm-filter-time-constant-ms", ppm_filter_time_constant_ms),
    P("ppm-ki", ppm_ki),
    P("ppm-kp", ppm_kp),
    P("pwr-filter-time-constant", pwr_filter_time_constant),
    P("pwr-integral-gain", pwr_integral_gain),
    P("pwr-integral-min-clamp", pwr_integral_min_clamp),
    P("pwr-min-duty-cycle", pwr_min_duty_cycle),
    P("pwr-proportional-gain", pwr_proportional_gain),
    P("pwr-sample-period-aic-clks", pwr_sample_period_aic_clks),
    P("se-engagement-criteria", se_engagement_criteria),
    P("se-filter-time-constant", se_filter_time_constant),
    P("se-filter-time-constant-1", se_filter_time_constant_1),
    P("se-inactive-threshold", se_inactive_threshold),
    P("se-ki", se_ki),
    P("se-ki-1", se_ki_1),
    P("se-kp", se_kp),
    P("se-kp-1", se_kp_1),
    P("se-reset-criteria", se_reset_criteria),
#undef P
};

void agx_calib_dt_props(const AgxCalibParams *p, AgxCalibPropFn *fn,
                        void *opaque)
{
    const uint8_t *pwr = (const uint8_t *)&p->pwr;
    uint32_t zone[3] = {
        p->pwr.power_zone_target,
        p->pwr.power_zone_target_offset,
        p->pwr.power_zone_filter_tc,
    };

    for (int i = 0; i < G_N_ELEMENTS(agx_calib_power_props); i++) {
        uint32_t v;

        memcpy(&v, pwr + agx_calib_power_props[i].off, sizeof(v));
        fn(opaque, agx_calib_power_props[i].name, &v, 1);
    }
    fn(opaque, "apple,perf-base-pstate", &p->perf_base_pstate, 1);
    fn(opaque, "apple,core-leak-coef", &p->core_leak_coef, 1);
    fn(opaque, "apple,sram-leak-coef", &p->sram_leak_coef, 1);
    fn(opaque, "apple,power-zones", zone, 3);
}
