/*
 * AGX G13 calibration blobs: the field table
 *
 * Every field of HwDataA, HwDataB and Globals that the blobs fill, once,
 * with its blob and where core/agx-structs.def describes it.  The fillers
 * (agx-calib-fill.c) name a field as AGX_CALIB_FIELD(name) and look its
 * offset up here for the ABI they write.
 *
 * QEMU-independent: GLib and our own headers only.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_M1N1_AGX_CALIB_FIELDS_H
#define HW_ARM_M1N1_AGX_CALIB_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include "hw/agx/agx-abi.h"
#include "hw/arm/m1n1/agx-calib.h"

/* The offset of a field the ABI does not have */
#define AGX_CALIB_NA    AGX_FIELD_ABSENT

/*
 * The fields, each named after its blob and its field in
 * core/agx-structs.def: F(blob, FIELD) is FIELD of the blob's structure
 * (member blob_FIELD), Z(blob, FIELD) FIELD of its first power zone
 * (member blob_PZ_FIELD), X(HWA, FIELD) FIELD of HwDataA's 13.x "SE"
 * block, HwDataA130Extra (member HWA_X_FIELD).  Offsets come from the
 * generated layouts (agx-structs.h); an ABI without the field has
 * AGX_FIELD_ABSENT there.  T81_ is HwDataA's "T81xx" block, SUB_ Globals'
 * packed GlobalsSub.
 */
#define AGX_CALIB_FIELDS(F, Z, X) \
    F(HWA, CLOCKS_PER_PERIOD) \
    F(HWA, CLOCKS_PER_PERIOD_2) \
    F(HWA, PWR_STATUS) \
    F(HWA, UNK_10) \
    F(HWA, ACTUAL_PSTATE) \
    F(HWA, TGT_PSTATE) \
    F(HWA, BASE_PSTATE_SCALED) \
    F(HWA, UNK_40) \
    F(HWA, MAX_PSTATE_SCALED) \
    F(HWA, MIN_PSTATE_SCALED) \
    F(HWA, SRAM_K) \
    F(HWA, UNK_64C) \
    F(HWA, PWR_FILTER_A_NEG) \
    F(HWA, PWR_FILTER_A) \
    F(HWA, PWR_INTEGRAL_GAIN) \
    F(HWA, PWR_INTEGRAL_MIN_CLAMP) \
    F(HWA, MAX_POWER_1) \
    F(HWA, PWR_PROPORTIONAL_GAIN) \
    F(HWA, PWR_PSTATE_RELATED_K) \
    F(HWA, PWR_PSTATE_MAX_DC_OFFSET) \
    F(HWA, MAX_PSTATE_SCALED_2) \
    F(HWA, MAX_POWER_2) \
    F(HWA, MAX_PSTATE_SCALED_3) \
    F(HWA, PPM_FILTER_TC_PERIODS_X4) \
    F(HWA, PPM_FILTER_A_NEG) \
    F(HWA, PPM_FILTER_A) \
    F(HWA, PPM_KI_DT) \
    F(HWA, UNK_6FC) \
    F(HWA, PPM_KP) \
    F(HWA, PWR_MIN_DUTY_CYCLE) \
    F(HWA, MAX_PSTATE_SCALED_4) \
    F(HWA, MAX_POWER_3) \
    F(HWA, PPM_FILTER_TC_MS) \
    F(HWA, PPM_FILTER_TC_CLKS) \
    F(HWA, PERF_TGT_UTILIZATION) \
    F(HWA, PERF_BOOST_MIN_UTIL) \
    F(HWA, PERF_BOOST_CE_STEP) \
    F(HWA, PERF_RESET_ITERS) \
    F(HWA, UNK_774) \
    F(HWA, UNK_778) \
    F(HWA, PERF_FILTER_DROP_THRESHOLD) \
    F(HWA, PERF_FILTER_A_NEG) \
    F(HWA, PERF_FILTER_A2_NEG) \
    F(HWA, PERF_FILTER_A) \
    F(HWA, PERF_FILTER_A2) \
    F(HWA, PERF_KI) \
    F(HWA, PERF_KI2) \
    F(HWA, PERF_INTEGRAL_MIN_CLAMP) \
    F(HWA, UNK_79C) \
    F(HWA, PERF_KP) \
    F(HWA, PERF_KP2) \
    F(HWA, BOOST_STATE_UNK_K) \
    F(HWA, BASE_PSTATE_SCALED_2) \
    F(HWA, MAX_PSTATE_SCALED_5) \
    F(HWA, BASE_PSTATE_SCALED_3) \
    F(HWA, PERF_TGT_UTILIZATION_2) \
    F(HWA, BASE_PSTATE_SCALED_4) \
    F(HWA, UNK_7FC) \
    F(HWA, PWR_MIN_DUTY_CYCLE_2) \
    F(HWA, MAX_PSTATE_SCALED_6) \
    F(HWA, MAX_FREQ_MHZ) \
    F(HWA, PWR_MIN_DUTY_CYCLE_3) \
    F(HWA, MIN_PSTATE_SCALED_4) \
    F(HWA, MAX_PSTATE_SCALED_7) \
    F(HWA, UNK_ALPHA_NEG) \
    F(HWA, UNK_ALPHA) \
    F(HWA, FAST_DIE0_SENSOR_MASK) \
    F(HWA, FAST_DIE0_RELEASE_TEMP_CC) \
    F(HWA, UNK_87C) \
    F(HWA, UNK_880) \
    F(HWA, UNK_894) \
    F(HWA, FAST_DIE0_KI_DT) \
    F(HWA, UNK_8A8) \
    F(HWA, FAST_DIE0_KP) \
    F(HWA, PWR_MIN_DUTY_CYCLE_4) \
    F(HWA, MAX_PSTATE_SCALED_8) \
    F(HWA, MAX_PSTATE_SCALED_9) \
    F(HWA, FAST_DIE0_PROP_TGT_DELTA) \
    F(HWA, UNK_8CC) \
    F(HWA, MAX_PSTATE_SCALED_10) \
    F(HWA, MAX_PSTATE_SCALED_11) \
    F(HWA, UNK_C2C) \
    F(HWA, POWER_ZONE_COUNT) \
    F(HWA, MAX_POWER_4) \
    F(HWA, MAX_POWER_5) \
    F(HWA, MAX_POWER_6) \
    F(HWA, AVG_POWER_TARGET_FILTER_A_NEG) \
    F(HWA, AVG_POWER_TARGET_FILTER_A) \
    F(HWA, AVG_POWER_TARGET_FILTER_TC_X4) \
    F(HWA, AVG_POWER_TARGET_FILTER_TC_XPERIOD) \
    F(HWA, AVG_POWER_TARGET_FILTER_TC_CLKS) \
    F(HWA, AVG_POWER_FILTER_TC_PERIODS_X4) \
    F(HWA, AVG_POWER_FILTER_A_NEG) \
    F(HWA, AVG_POWER_FILTER_A) \
    F(HWA, AVG_POWER_KI_DT) \
    F(HWA, UNK_D20) \
    F(HWA, AVG_POWER_KP) \
    F(HWA, AVG_POWER_MIN_DUTY_CYCLE) \
    F(HWA, MAX_PSTATE_SCALED_12) \
    F(HWA, MAX_PSTATE_SCALED_13) \
    F(HWA, MAX_POWER_7) \
    F(HWA, MAX_POWER_8) \
    F(HWA, AVG_POWER_FILTER_TC_MS) \
    F(HWA, AVG_POWER_FILTER_TC_CLKS) \
    F(HWA, MAX_PSTATE_SCALED_14) \
    F(HWA, FAST_DIE0_SENSOR_MASK_2) \
    F(HWA, UNK_E24) \
    F(HWA, UNK_E28) \
    F(HWA, FAST_DIE0_SENSOR_MASK_ALT) \
    F(HWA, FAST_DIE0_SENSOR_PRESENT) \
    F(HWA, UNK_163C) \
    F(HWA, UNK_3CE8) \
    F(HWA, HWS1) \
    F(HWA, HWS2) \
    F(HWA, CORE_LEAK_COEF) \
    F(HWA, SRAM_LEAK_COEF) \
    Z(HWA, TARGET) \
    Z(HWA, TARGET_OFF) \
    Z(HWA, FILTER_TC_X4) \
    Z(HWA, FILTER_TC_XPERIOD) \
    Z(HWA, UNK_10) \
    Z(HWA, FILTER_A_NEG) \
    Z(HWA, FILTER_A) \
    F(HWA, T81_D8C) \
    F(HWA, T81_D90) \
    F(HWA, T81_D9C) \
    F(HWA, T81_DA4) \
    F(HWA, T81_DAC) \
    F(HWA, T81_DB8) \
    F(HWA, T81_DBC) \
    F(HWA, T81_MAX_PSTATE_SCALED) \
    X(HWA, UNK_38) \
    X(HWA, UNK_3C) \
    X(HWA, GPU_SE_INACTIVE_THRESHOLD) \
    X(HWA, GPU_SE_ENGAGEMENT_CRITERIA) \
    X(HWA, GPU_SE_RESET_CRITERIA) \
    X(HWA, UNK_54) \
    X(HWA, UNK_58) \
    X(HWA, GPU_SE_FILTER_A_NEG) \
    X(HWA, GPU_SE_FILTER_1_A_NEG) \
    X(HWA, GPU_SE_FILTER_A) \
    X(HWA, GPU_SE_FILTER_1_A) \
    X(HWA, GPU_SE_KI_DT) \
    X(HWA, GPU_SE_KI_1_DT) \
    X(HWA, UNK_7C) \
    X(HWA, GPU_SE_KP) \
    X(HWA, GPU_SE_KP_1) \
    X(HWA, UNK_8C) \
    X(HWA, MAX_PSTATE_SCALED_1) \
    X(HWA, UNK_9C) \
    X(HWA, UNK_A0) \
    X(HWA, GPU_SE_FILTER_TIME_CONSTANT_MS) \
    X(HWA, GPU_SE_FILTER_TIME_CONSTANT_1_MS) \
    X(HWA, GPU_SE_FILTER_TIME_CONSTANT_CLKS) \
    X(HWA, GPU_SE_FILTER_TIME_CONSTANT_1_CLKS) \
    X(HWA, UNK_C4) \
    X(HWA, UNK_114) \
    X(HWA, UNK_124) \
    X(HWA, MAX_PSTATE_SCALED_2) \
    F(HWB, UNK_0) \
    F(HWB, UNK_8) \
    F(HWB, UNK_10) \
    F(HWB, UNK_18) \
    F(HWB, UNK_30) \
    F(HWB, TIMESTAMP_AREA_BASE) \
    F(HWB, CHIP_ID) \
    F(HWB, UNK_454) \
    F(HWB, UNK_458) \
    F(HWB, UNK_460) \
    F(HWB, UNK_464) \
    F(HWB, UNK_468) \
    F(HWB, UNK_47C) \
    F(HWB, UNK_484) \
    F(HWB, UNK_48C) \
    F(HWB, BASE_CLOCK_KHZ) \
    F(HWB, POWER_SAMPLE_PERIOD) \
    F(HWB, UNK_49C) \
    F(HWB, UNK_4A0) \
    F(HWB, UNK_4A4) \
    F(HWB, UNK_4C0) \
    F(HWB, UNK_4F0) \
    F(HWB, UNK_4F4) \
    F(HWB, UNK_504) \
    F(HWB, UNK_524) \
    F(HWB, NUM_FRAGS) \
    F(HWB, UNK_554) \
    F(HWB, UAT_TTB_BASE) \
    F(HWB, GPU_CORE_ID) \
    F(HWB, GPU_REV_ID) \
    F(HWB, NUM_CORES) \
    F(HWB, MAX_PSTATE) \
    F(HWB, NUM_PSTATES) \
    F(HWB, FREQUENCIES) \
    F(HWB, VOLTAGES) \
    F(HWB, VOLTAGES_SRAM) \
    F(HWB, SRAM_K) \
    F(HWB, REL_MAX_POWERS) \
    F(HWB, REL_BOOST_FREQS) \
    F(HWB, UNK_ARR_0) \
    F(HWB, MIN_SRAM_VOLT) \
    F(HWB, UNK_AB8) \
    F(HWB, UNK_ABC) \
    F(HWB, UNK_AC0) \
    F(HWB, UNK_AE4) \
    F(HWB, UNK_B10) \
    F(HWB, UNK_B24) \
    F(HWB, UNK_B28) \
    F(HWB, UNK_B2C) \
    F(HWB, UNK_B38_0) \
    F(HWB, UNK_B38_4) \
    F(HWB, UNK_B38) \
    F(HWB, UNK_C3C) \
    F(GLB, UNK_24_0) \
    F(GLB, UNK_28) \
    F(GLB, UNK_2C) \
    F(GLB, UNK_34) \
    F(GLB, UNK_8900) \
    F(GLB, MAX_POWER) \
    F(GLB, MAX_PSTATE_SCALED) \
    F(GLB, MAX_PSTATE_SCALED_2) \
    F(GLB, MAX_PSTATE_SCALED_3) \
    F(GLB, POWER_ZONE_COUNT) \
    F(GLB, AVG_POWER_FILTER_TC_PERIODS) \
    F(GLB, AVG_POWER_KI_DT) \
    F(GLB, AVG_POWER_KP) \
    F(GLB, AVG_POWER_MIN_DUTY_CYCLE) \
    F(GLB, AVG_POWER_TARGET_FILTER_TC) \
    F(GLB, UNK_89BC) \
    F(GLB, FAST_DIE0_RELEASE_TEMP) \
    F(GLB, UNK_89C4) \
    F(GLB, FAST_DIE0_PROP_TGT_DELTA) \
    F(GLB, FAST_DIE0_KP) \
    F(GLB, FAST_DIE0_KI_DT) \
    F(GLB, UNK_89E0) \
    F(GLB, MAX_POWER_2) \
    F(GLB, PPM_KP) \
    F(GLB, PPM_KI_DT) \
    F(GLB, UNK_89F4_8) \
    F(GLB, HWS1) \
    F(GLB, HWS2) \
    F(GLB, IDLE_OFF_STANDBY_TIMER) \
    F(GLB, UNK_900C) \
    F(GLB, UNK_9010_0) \
    F(GLB, UNK_903C) \
    F(GLB, FAULT_CONTROL) \
    F(GLB, DO_INIT) \
    F(GLB, PROGRESS_CHECK_INTERVAL_3D) \
    F(GLB, PROGRESS_CHECK_INTERVAL_TA) \
    F(GLB, PROGRESS_CHECK_INTERVAL_CL) \
    F(GLB, UNK_1102C_0) \
    F(GLB, UNK_1102C_4) \
    F(GLB, UNK_1102C_8) \
    F(GLB, UNK_1102C_C) \
    F(GLB, IDLE_OFF_DELAY_MS) \
    F(GLB, FENDER_IDLE_OFF_DELAY_MS) \
    F(GLB, FW_EARLY_WAKE_TIMEOUT_MS) \
    F(GLB, CL_CONTEXT_SWITCH_TIMEOUT_MS) \
    F(GLB, CL_KILL_TIMEOUT_MS) \
    F(GLB, SUB_UNK_54) \
    F(GLB, SUB_UNK_56) \
    F(GLB, SUB_UNK_58) \
    F(GLB, SUB_UNK_5E) \
    F(GLB, SUB_UNK_66) \
    Z(GLB, TARGET) \
    Z(GLB, TARGET_OFF) \
    Z(GLB, FILTER_TC)

/* One member per field: its offset, or the blob it belongs to */
typedef struct AgxCalibFields {
#define AGX_CALIB_MEMBER(b, f) uint32_t b ## _ ## f;
#define AGX_CALIB_MEMBER_PZ(b, f) uint32_t b ## _PZ_ ## f;
#define AGX_CALIB_MEMBER_X(b, f) uint32_t b ## _X_ ## f;
    AGX_CALIB_FIELDS(AGX_CALIB_MEMBER, AGX_CALIB_MEMBER_PZ,
                     AGX_CALIB_MEMBER_X)
#undef AGX_CALIB_MEMBER
#undef AGX_CALIB_MEMBER_PZ
#undef AGX_CALIB_MEMBER_X
} AgxCalibFields;

/* A field, as the offset of its member in AgxCalibFields */
typedef size_t AgxCalibField;
#define AGX_CALIB_FIELD(n)      offsetof(AgxCalibFields, n)

/* The ABIs the table has a column of offsets for */
typedef enum AgxCalibCol {
    AGX_CALIB_COL_V12_3,
    AGX_CALIB_COL_V13_5,
    AGX_CALIB_NUM_COLS,
} AgxCalibCol;

/* The column of @abi */
AgxCalibCol agx_calib_col(const AgxAbi *abi);

/* Offset of @f in its blob in column @col; AGX_CALIB_NA if it has none */
uint32_t agx_calib_field_offset(AgxCalibCol col, AgxCalibField f);

/* The blob @f belongs to */
AgxCalibBlob agx_calib_field_blob(AgxCalibField f);

#endif
