/*
 * AGX G13 calibration blobs: HwDataA, HwDataB and Globals
 *
 * What the bootloader (m1n1 on real hardware, the apple-m1 machine here)
 * hands to drm/asahi in the reserved-memory regions "hw-cal-a", "hw-cal-b"
 * and "globals": the firmware's power and GPU configuration structures,
 * byte-exact for one firmware ABI.  The same parameters also give the
 * gpu node's downstream "apple,*" power properties and OPP table, so that
 * a driver that computes the structures from the device tree arrives at
 * the same bytes.
 *
 * agx-calib-t8103.h gives t8103's parameters, agx-calib-fill.h writes the
 * blobs from them, agx-calib-fields.h is the table of the blobs' fields
 * and agx-softfloat.h the driver's floating point they are computed with.
 *
 * QEMU-independent: GLib and our own headers only.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_M1N1_AGX_CALIB_H
#define HW_ARM_M1N1_AGX_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hw/agx/agx-abi.h"

typedef enum AgxCalibBlob {
    AGX_CALIB_HWDATA_A,                 /* "hw-cal-a" */
    AGX_CALIB_HWDATA_B,                 /* "hw-cal-b" */
    AGX_CALIB_GLOBALS,                  /* "globals" */
    AGX_CALIB_NUM_BLOBS,
} AgxCalibBlob;

/* HwDataB has room for 16 performance states */
#define AGX_CALIB_MAX_PSTATES   16

/* t8103 facts the blobs and the machine share */
#define AGX_T8103_CHIP_ID       0x8103
#define AGX_T8103_GPU_CORE_ID   11      /* G13G, firmware enum */
#define AGX_T8103_MAX_CORES     8       /* per cluster; one cluster */
#define AGX_GPU_REV_B1          4       /* firmware enum: A0 = 1 .. C1 = 6 */

/* One operating point, in device-tree units (an OPP table child) */
typedef struct AgxCalibPState {
    uint32_t freq_hz;                   /* opp-hz */
    uint32_t volt_uv;                   /* opp-microvolt (one cluster) */
    uint32_t pwr_uw;                    /* opp-microwatt */
} AgxCalibPState;

/*
 * The power-management tunables, named after their "apple,*" device-tree
 * properties.  Floating-point values are IEEE 754 single-precision bit
 * patterns, as the device tree carries them.
 */
typedef struct AgxCalibPower {
    uint32_t power_sample_period;       /* ms */
    uint32_t min_sram_microvolt;
    uint32_t avg_power_filter_tc_ms;
    uint32_t avg_power_ki_only;         /* f32 */
    uint32_t avg_power_kp;              /* f32 */
    uint32_t avg_power_min_duty_cycle;
    uint32_t avg_power_target_filter_tc;
    uint32_t fast_die0_integral_gain;   /* f32 */
    uint32_t fast_die0_proportional_gain; /* f32 */
    uint32_t fast_die0_prop_tgt_delta;
    uint32_t fast_die0_release_temp;
    uint32_t fender_idle_off_delay_ms;
    uint32_t fw_early_wake_timeout_ms;
    uint32_t idle_off_delay_ms;
    uint32_t idle_off_standby_timer;
    uint32_t perf_boost_ce_step;
    uint32_t perf_boost_min_util;
    uint32_t perf_filter_drop_threshold;
    uint32_t perf_filter_time_constant;
    uint32_t perf_filter_time_constant2;
    uint32_t perf_integral_gain;        /* f32 */
    uint32_t perf_integral_gain2;       /* f32 */
    uint32_t perf_integral_min_clamp;
    uint32_t perf_proportional_gain;    /* f32 */
    uint32_t perf_proportional_gain2;   /* f32 */
    uint32_t perf_reset_iters;
    uint32_t perf_tgt_utilization;
    uint32_t ppm_filter_time_constant_ms;
    uint32_t ppm_ki;                    /* f32 */
    uint32_t ppm_kp;                    /* f32 */
    uint32_t pwr_filter_time_constant;
    uint32_t pwr_integral_gain;         /* f32 */
    uint32_t pwr_integral_min_clamp;
    uint32_t pwr_min_duty_cycle;
    uint32_t pwr_proportional_gain;     /* f32 */
    uint32_t pwr_sample_period_aic_clks;
    uint32_t se_engagement_criteria;    /* i32 */
    uint32_t se_filter_time_constant;
    uint32_t se_filter_time_constant_1;
    uint32_t se_inactive_threshold;
    uint32_t se_ki;                     /* f32 */
    uint32_t se_ki_1;                   /* f32 */
    uint32_t se_kp;                     /* f32 */
    uint32_t se_kp_1;                   /* f32 */
    uint32_t se_reset_criteria;
    /* The one power zone of t8103: apple,power-zones */
    uint32_t power_zone_target;
    uint32_t power_zone_target_offset;
    uint32_t power_zone_filter_tc;
} AgxCalibPower;

typedef struct AgxCalibParams {
    uint32_t core_mask;                 /* enabled cores (CORE_MASK_0) */
    uint32_t num_cores;                 /* cores per cluster (ID_COUNTS_1) */
    uint32_t gpu_rev_id;                /* firmware enum, AGX_GPU_REV_B1 */
    uint64_t uat_ttb_base;              /* PA of the "ttbs" region */
    uint32_t perf_base_pstate;
    uint32_t num_pstates;
    AgxCalibPState pstates[AGX_CALIB_MAX_PSTATES];
    uint32_t core_leak_coef;            /* f32, one cluster */
    uint32_t sram_leak_coef;            /* f32, one cluster */
    AgxCalibPower pwr;
} AgxCalibParams;

/* NULL if @p can be turned into blobs, else why not */
const char *agx_calib_check_params(const AgxCalibParams *p);

/* Size of one blob for @abi: the exact size of the firmware structure */
size_t agx_calib_size(const AgxAbi *abi, AgxCalibBlob which);

/* Reserved-memory name ("hw-cal-a") and size property ("debug,...") */
const char *agx_calib_region_name(AgxCalibBlob which);
const char *agx_calib_size_prop(AgxCalibBlob which);

/*
 * The gpu node's "apple,*" power properties for @p, in host order: one
 * call of @fn per property with its 32-bit cells.  The OPP table is not
 * included (p->pstates has it).
 */
typedef void AgxCalibPropFn(void *opaque, const char *name,
                            const uint32_t *cells, unsigned int ncells);
void agx_calib_dt_props(const AgxCalibParams *p, AgxCalibPropFn *fn,
                        void *opaque);

#endif
