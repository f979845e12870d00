/*
 * AGX G13 calibration blobs: HwDataA, HwDataB and Globals for t8103
 *
 * The bootloader's share of InitData.  drm/asahi either copies these
 * blobs verbatim into the structures it hands to the firmware, or builds
 * the structures itself from the device tree and compares them with the
 * blobs ("Hwdata A match").  Either way they must be byte-exact for the
 * firmware ABI the device tree names, so this file reproduces the
 * initdata builder's arithmetic, including its software floating point.
 *
 * Layouts: the #[repr(C)] structures HwDataA, HwDataB and Globals of the
 * drm/asahi driver (fw/initdata.rs) and of m1n1 (rust/src/gpu/raw.rs),
 * which agree, for G13 with firmware 12.3 and 13.5.  The offsets below
 * were computed from those definitions; m1n1's Python construct layouts
 * (proxyclient/m1n1/fw/agx/initdata.py) agree except that they make
 * HwDataA.fast_die0_sensor_present 32-bit on 12.3 (HwDataA 0x3d68 bytes
 * there instead of 0x3d6c); the Rust size is what m1n1 allocates and what
 * the driver copies, so it is used here.
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
#include "hw/agx/agx-bits.h"
#include "hw/agx/agx-calib.h"

/*
 * Software floating point with the driver's rounding.  A number is kept as
 * sign, exponent and a fraction whose leading one sits at bit 32, so that
 * its value is frac * 2^(exp - 32).  Products drop the low 8 bits of each
 * factor, quotients those of the divisor, and packing rounds half up.
 */
typedef struct SoftFloat {
    bool neg;
    int32_t exp;
    int64_t frac;
} SoftFloat;

#define SF_LEAD_BIT     32

static bool sf_is_zero(SoftFloat v)
{
    return v.frac == 0 || v.exp < -126;
}

static bool sf_is_inf(SoftFloat v)
{
    return v.exp > 127;
}

static SoftFloat sf_norm(SoftFloat v)
{
    int top = v.frac ? 63 - __builtin_clzll((uint64_t)v.frac) : -1;

    if (top < SF_LEAD_BIT) {
        int shift = SF_LEAD_BIT - top;

        v.frac = shift > 63 ? 0 : v.frac << shift;
        v.exp -= shift;
    } else if (top > SF_LEAD_BIT) {
        v.frac >>= top - SF_LEAD_BIT;
        v.exp += top - SF_LEAD_BIT;
    }
    if (sf_is_zero(v)) {
        v.frac = 0;
        v.exp = 0;
    }
    return v;
}

static SoftFloat sf_unpack(uint32_t bits)
{
    SoftFloat v = {
        .neg = bits >> 31,
        .exp = (int32_t)((bits >> 23) & 0xff) - 127,
        .frac = (int64_t)((bits & 0x7fffff) | 0x800000) << 9,
    };

    return sf_norm(v);
}

static uint32_t sf_pack(SoftFloat v)
{
    uint32_t sign = v.neg ? 0x80000000u : 0;

    v = sf_norm(v);
    if (!sf_is_zero(v)) {
        v.frac += 0x100;
        v = sf_norm(v);
    }
    if (sf_is_inf(v)) {
        return sign | 0x7f800000;
    }
    if (sf_is_zero(v)) {
        return sign;
    }
    return sign | (uint32_t)(v.exp + 127) << 23 |
           (uint32_t)((v.frac >> 9) & 0x7fffff);
}

uint32_t agx_sf_from_u32(uint32_t v)
{
    SoftFloat f = { .neg = false, .exp = SF_LEAD_BIT, .frac = v };

    return sf_pack(sf_norm(f));
}

uint32_t agx_sf_from_i32(int32_t v)
{
    SoftFloat f = {
        .neg = v < 0, .exp = SF_LEAD_BIT, .frac = v < 0 ? -(int64_t)v : v,
    };

    return sf_pack(sf_norm(f));
}

uint32_t agx_sf_add(uint32_t a, uint32_t b)
{
    SoftFloat x = sf_unpack(a), y = sf_unpack(b);
    SoftFloat *lo = x.exp > y.exp ? &y : &x;
    int32_t exp = MAX(x.exp, y.exp);
    int32_t shift = exp - lo->exp;

    /* Align the smaller exponent to the larger one */
    if (shift > 63) {
        lo->frac = 0;
    } else {
        lo->frac >>= shift;
    }
    x.exp = exp;
    x.frac = x.neg == y.neg ? x.frac + y.frac : x.frac - y.frac;
    if (x.frac < 0) {
        x.neg = !x.neg;
        x.frac = -x.frac;
    }
    return sf_pack(x);
}

uint32_t agx_sf_sub(uint32_t a, uint32_t b)
{
    return agx_sf_add(a, b ^ 0x80000000u);
}

uint32_t agx_sf_mul(uint32_t a, uint32_t b)
{
    SoftFloat x = sf_unpack(a), y = sf_unpack(b);
    SoftFloat r = {
        .neg = x.neg != y.neg,
        .exp = x.exp + y.exp,
        .frac = ((x.frac >> 8) * (y.frac >> 8)) >> 16,
    };

    return sf_pack(r);
}

uint32_t agx_sf_div(uint32_t a, uint32_t b)
{
    SoftFloat x = sf_unpack(a), y = sf_unpack(b);
    SoftFloat r;

    if (y.frac == 0 || sf_is_inf(x)) {
        return (x.neg ? 0x80000000u : 0) | 0x7f800000;
    }
    r.neg = x.neg != y.neg;
    r.exp = x.exp - y.exp;
    r.frac = (x.frac << 24) / (y.frac >> 8);
    return sf_pack(r);
}

uint32_t agx_f32_bits(float f)
{
    uint32_t bits;

    memcpy(&bits, &f, sizeof(bits));
    return bits;
}

float agx_f32_value(uint32_t bits)
{
    float f;

    memcpy(&f, &bits, sizeof(f));
    return f;
}

#define F32(f)          agx_f32_bits(f)
#define SF_ONE          F32(1.0f)
#define SF_NEG(a)       ((a) ^ 0x80000000u)

/*
 * Field offsets: F(blob, name, offset on 12.3, offset on 13.5), NA where
 * the ABI has no such field.  PZ_ is the first power zone, T81_ the
 * "T81xx" block, X_ the 13.x "SE" block (HwDataA130Extra), SUB_ the
 * packed GlobalsSub.
 */
#define NA      UINT32_MAX
#define AGX_CALIB_FIELDS(F) \
    F(HWA, HWA_CLOCKS_PER_PERIOD, 0x00004, 0x00004) \
    F(HWA, HWA_CLOCKS_PER_PERIOD_2, NA, 0x00008) \
    F(HWA, HWA_PWR_STATUS, 0x0000c, 0x00010) \
    F(HWA, HWA_UNK_10, 0x00010, 0x00014) \
    F(HWA, HWA_ACTUAL_PSTATE, 0x00028, 0x0002c) \
    F(HWA, HWA_TGT_PSTATE, 0x0002c, 0x00030) \
    F(HWA, HWA_BASE_PSTATE_SCALED, 0x0003c, 0x00044) \
    F(HWA, HWA_UNK_40, 0x00040, 0x00048) \
    F(HWA, HWA_MAX_PSTATE_SCALED, 0x00044, 0x0004c) \
    F(HWA, HWA_MIN_PSTATE_SCALED, 0x0004c, 0x00054) \
    F(HWA, HWA_SRAM_K, 0x00074, 0x00080) \
    F(HWA, HWA_UNK_64C, 0x0064c, 0x00658) \
    F(HWA, HWA_PWR_FILTER_A_NEG, 0x00658, 0x00664) \
    F(HWA, HWA_PWR_FILTER_A, 0x00660, 0x0066c) \
    F(HWA, HWA_PWR_INTEGRAL_GAIN, 0x00668, 0x00674) \
    F(HWA, HWA_PWR_INTEGRAL_MIN_CLAMP, 0x00670, 0x0067c) \
    F(HWA, HWA_MAX_POWER_1, 0x00674, 0x00680) \
    F(HWA, HWA_PWR_PROPORTIONAL_GAIN, 0x00678, 0x00684) \
    F(HWA, HWA_PWR_PSTATE_RELATED_K, 0x00680, 0x0068c) \
    F(HWA, HWA_PWR_PSTATE_MAX_DC_OFFSET, 0x00684, 0x00690) \
    F(HWA, HWA_MAX_PSTATE_SCALED_2, 0x0068c, 0x00698) \
    F(HWA, HWA_MAX_POWER_2, 0x00698, 0x006a4) \
    F(HWA, HWA_MAX_PSTATE_SCALED_3, 0x006b8, 0x006d4) \
    F(HWA, HWA_PPM_FILTER_TC_PERIODS_X4, 0x006d4, 0x006f0) \
    F(HWA, HWA_PPM_FILTER_A_NEG, 0x006e0, 0x006fc) \
    F(HWA, HWA_PPM_FILTER_A, 0x006e8, 0x00704) \
    F(HWA, HWA_PPM_KI_DT, 0x006f0, 0x0070c) \
    F(HWA, HWA_UNK_6FC, 0x006fc, 0x00718) \
    F(HWA, HWA_PPM_KP, 0x00700, 0x0071c) \
    F(HWA, HWA_PWR_MIN_DUTY_CYCLE, 0x0070c, 0x00728) \
    F(HWA, HWA_MAX_PSTATE_SCALED_4, 0x00710, 0x0072c) \
    F(HWA, HWA_MAX_POWER_3, 0x00720, 0x0073c) \
    F(HWA, HWA_PPM_FILTER_TC_MS, 0x00728, 0x00744) \
    F(HWA, HWA_PPM_FILTER_TC_CLKS, NA, 0x0074c) \
    F(HWA, HWA_PERF_TGT_UTILIZATION, 0x0075c, 0x00788) \
    F(HWA, HWA_PERF_BOOST_MIN_UTIL, 0x00764, 0x00790) \
    F(HWA, HWA_PERF_BOOST_CE_STEP, 0x00768, 0x00794) \
    F(HWA, HWA_PERF_RESET_ITERS, 0x0076c, 0x00798) \
    F(HWA, HWA_UNK_774, 0x00774, 0x007a0) \
    F(HWA, HWA_UNK_778, 0x00778, 0x007a4) \
    F(HWA, HWA_PERF_FILTER_DROP_THRESHOLD, 0x0077c, 0x007a8) \
    F(HWA, HWA_PERF_FILTER_A_NEG, 0x00780, 0x007ac) \
    F(HWA, HWA_PERF_FILTER_A2_NEG, 0x00784, 0x007b0) \
    F(HWA, HWA_PERF_FILTER_A, 0x00788, 0x007b4) \
    F(HWA, HWA_PERF_FILTER_A2, 0x0078c, 0x007b8) \
    F(HWA, HWA_PERF_KI, 0x00790, 0x007bc) \
    F(HWA, HWA_PERF_KI2, 0x00794, 0x007c0) \
    F(HWA, HWA_PERF_INTEGRAL_MIN_CLAMP, 0x00798, 0x007c4) \
    F(HWA, HWA_UNK_79C, 0x0079c, 0x007c8) \
    F(HWA, HWA_PERF_KP, 0x007a0, 0x007cc) \
    F(HWA, HWA_PERF_KP2, 0x007a4, 0x007d0) \
    F(HWA, HWA_BOOST_STATE_UNK_K, 0x007a8, 0x007d4) \
    F(HWA, HWA_BASE_PSTATE_SCALED_2, 0x007ac, 0x007d8) \
    F(HWA, HWA_MAX_PSTATE_SCALED_5, 0x007b0, 0x007dc) \
    F(HWA, HWA_BASE_PSTATE_SCALED_3, 0x007b4, 0x007e0) \
    F(HWA, HWA_PERF_TGT_UTILIZATION_2, 0x007c0, 0x007ec) \
    F(HWA, HWA_BASE_PSTATE_SCALED_4, 0x007e0, 0x0081c) \
    F(HWA, HWA_UNK_7FC, 0x007fc, 0x00838) \
    F(HWA, HWA_PWR_MIN_DUTY_CYCLE_2, 0x00800, 0x0083c) \
    F(HWA, HWA_MAX_PSTATE_SCALED_6, 0x00804, 0x00840) \
    F(HWA, HWA_MAX_FREQ_MHZ, 0x00808, 0x00844) \
    F(HWA, HWA_PWR_MIN_DUTY_CYCLE_3, 0x00818, 0x00854) \
    F(HWA, HWA_MIN_PSTATE_SCALED_4, 0x00824, 0x00860) \
    F(HWA, HWA_MAX_PSTATE_SCALED_7, 0x00828, 0x00864) \
    F(HWA, HWA_UNK_ALPHA_NEG, 0x00830, 0x0086c) \
    F(HWA, HWA_UNK_ALPHA, 0x00834, 0x00870) \
    F(HWA, HWA_FAST_DIE0_SENSOR_MASK, 0x00870, 0x008ac) \
    F(HWA, HWA_FAST_DIE0_RELEASE_TEMP_CC, 0x00878, 0x008b4) \
    F(HWA, HWA_UNK_87C, 0x0087c, 0x008b8) \
    F(HWA, HWA_UNK_880, 0x00880, 0x008bc) \
    F(HWA, HWA_UNK_894, 0x00894, 0x008d0) \
    F(HWA, HWA_FAST_DIE0_KI_DT, 0x0089c, 0x008d8) \
    F(HWA, HWA_UNK_8A8, 0x008a8, 0x008e4) \
    F(HWA, HWA_FAST_DIE0_KP, 0x008ac, 0x008e8) \
    F(HWA, HWA_PWR_MIN_DUTY_CYCLE_4, 0x008b8, 0x008f4) \
    F(HWA, HWA_MAX_PSTATE_SCALED_8, 0x008bc, 0x008f8) \
    F(HWA, HWA_MAX_PSTATE_SCALED_9, 0x008c0, 0x008fc) \
    F(HWA, HWA_FAST_DIE0_PROP_TGT_DELTA, 0x008c4, 0x00900) \
    F(HWA, HWA_UNK_8CC, 0x008cc, 0x00908) \
    F(HWA, HWA_MAX_PSTATE_SCALED_10, 0x008ec, 0x00938) \
    F(HWA, HWA_MAX_PSTATE_SCALED_11, 0x00b94, 0x00be0) \
    F(HWA, HWA_UNK_C2C, 0x00c2c, 0x00e80) \
    F(HWA, HWA_POWER_ZONE_COUNT, 0x00c30, 0x00e84) \
    F(HWA, HWA_MAX_POWER_4, 0x00c34, 0x00e88) \
    F(HWA, HWA_MAX_POWER_5, 0x00c38, 0x00e8c) \
    F(HWA, HWA_MAX_POWER_6, 0x00c3c, 0x00e90) \
    F(HWA, HWA_AVG_POWER_TARGET_FILTER_A_NEG, 0x00c48, 0x00e9c) \
    F(HWA, HWA_AVG_POWER_TARGET_FILTER_A, 0x00c4c, 0x00ea0) \
    F(HWA, HWA_AVG_POWER_TARGET_FILTER_TC_X4, 0x00c50, 0x00ea4) \
    F(HWA, HWA_AVG_POWER_TARGET_FILTER_TC_XPERIOD, 0x00c54, 0x00ea8) \
    F(HWA, HWA_AVG_POWER_TARGET_FILTER_TC_CLKS, NA, 0x00eac) \
    F(HWA, HWA_AVG_POWER_FILTER_TC_PERIODS_X4, 0x00cf8, 0x00f7c) \
    F(HWA, HWA_AVG_POWER_FILTER_A_NEG, 0x00d04, 0x00f88) \
    F(HWA, HWA_AVG_POWER_FILTER_A, 0x00d0c, 0x00f90) \
    F(HWA, HWA_AVG_POWER_KI_DT, 0x00d14, 0x00f98) \
    F(HWA, HWA_UNK_D20, 0x00d20, 0x00fa4) \
    F(HWA, HWA_AVG_POWER_KP, 0x00d24, 0x00fa8) \
    F(HWA, HWA_AVG_POWER_MIN_DUTY_CYCLE, 0x00d30, 0x00fb4) \
    F(HWA, HWA_MAX_PSTATE_SCALED_12, 0x00d34, 0x00fb8) \
    F(HWA, HWA_MAX_PSTATE_SCALED_13, 0x00d38, 0x00fbc) \
    F(HWA, HWA_MAX_POWER_7, 0x00d40, 0x00fc4) \
    F(HWA, HWA_MAX_POWER_8, 0x00d44, 0x00fc8) \
    F(HWA, HWA_AVG_POWER_FILTER_TC_MS, 0x00d4c, 0x00fd0) \
    F(HWA, HWA_AVG_POWER_FILTER_TC_CLKS, NA, 0x00fd8) \
    F(HWA, HWA_MAX_PSTATE_SCALED_14, 0x00d64, 0x00ff8) \
    F(HWA, HWA_FAST_DIE0_SENSOR_MASK_2, 0x00e1c, 0x01278) \
    F(HWA, HWA_UNK_E24, 0x00e24, 0x01280) \
    F(HWA, HWA_UNK_E28, 0x00e28, 0x01284) \
    F(HWA, HWA_FAST_DIE0_SENSOR_MASK_ALT, 0x0162c, 0x01a88) \
    F(HWA, HWA_FAST_DIE0_SENSOR_PRESENT, 0x01634, NA) \
    F(HWA, HWA_UNK_163C, 0x0163c, 0x01a90) \
    F(HWA, HWA_UNK_3CE8, 0x03ce8, 0x04160) \
    F(HWA, HWA_HWS1, 0x03648, 0x03a9c) \
    F(HWA, HWA_HWS2, 0x036f0, 0x03b64) \
    F(HWA, HWA_CORE_LEAK_COEF, 0x03cf4, 0x0416c) \
    F(HWA, HWA_SRAM_LEAK_COEF, 0x03d14, 0x0418c) \
    F(HWA, HWA_PZ_TARGET, 0x00c5c, 0x00eb8) \
    F(HWA, HWA_PZ_TARGET_OFF, 0x00c60, 0x00ebc) \
    F(HWA, HWA_PZ_FILTER_TC_X4, 0x00c64, 0x00ec0) \
    F(HWA, HWA_PZ_FILTER_TC_XPERIOD, 0x00c68, 0x00ec4) \
    F(HWA, HWA_PZ_UNK_10, NA, 0x00ec8) \
    F(HWA, HWA_PZ_FILTER_A_NEG, 0x00c6c, 0x00ed0) \
    F(HWA, HWA_PZ_FILTER_A, 0x00c70, 0x00ed4) \
    F(HWA, HWA_T81_D8C, 0x00d8c, 0x01020) \
    F(HWA, HWA_T81_D90, 0x00d90, 0x01024) \
    F(HWA, HWA_T81_D9C, 0x00d9c, 0x01030) \
    F(HWA, HWA_T81_DA4, 0x00da4, 0x01038) \
    F(HWA, HWA_T81_DAC, 0x00dac, 0x01040) \
    F(HWA, HWA_T81_DB8, 0x00db8, 0x0104c) \
    F(HWA, HWA_T81_DBC, 0x00dbc, 0x01050) \
    F(HWA, HWA_T81_MAX_PSTATE_SCALED, 0x00dcc, 0x01060) \
    F(HWA, HWA_X_UNK_38, NA, 0x010ec) \
    F(HWA, HWA_X_UNK_3C, NA, 0x010f0) \
    F(HWA, HWA_X_GPU_SE_INACTIVE_THRESHOLD, NA, 0x010f4) \
    F(HWA, HWA_X_GPU_SE_ENGAGEMENT_CRITERIA, NA, 0x010fc) \
    F(HWA, HWA_X_GPU_SE_RESET_CRITERIA, NA, 0x01100) \
    F(HWA, HWA_X_UNK_54, NA, 0x01108) \
    F(HWA, HWA_X_UNK_58, NA, 0x0110c) \
    F(HWA, HWA_X_GPU_SE_FILTER_A_NEG, NA, 0x01114) \
    F(HWA, HWA_X_GPU_SE_FILTER_1_A_NEG, NA, 0x01118) \
    F(HWA, HWA_X_GPU_SE_FILTER_A, NA, 0x0111c) \
    F(HWA, HWA_X_GPU_SE_FILTER_1_A, NA, 0x01120) \
    F(HWA, HWA_X_GPU_SE_KI_DT, NA, 0x01124) \
    F(HWA, HWA_X_GPU_SE_KI_1_DT, NA, 0x01128) \
    F(HWA, HWA_X_UNK_7C, NA, 0x01130) \
    F(HWA, HWA_X_GPU_SE_KP, NA, 0x01134) \
    F(HWA, HWA_X_GPU_SE_KP_1, NA, 0x01138) \
    F(HWA, HWA_X_UNK_8C, NA, 0x01140) \
    F(HWA, HWA_X_MAX_PSTATE_SCALED_1, NA, 0x01144) \
    F(HWA, HWA_X_UNK_9C, NA, 0x01150) \
    F(HWA, HWA_X_UNK_A0, NA, 0x01154) \
    F(HWA, HWA_X_GPU_SE_FILTER_TIME_CONSTANT_MS, NA, 0x0115c) \
    F(HWA, HWA_X_GPU_SE_FILTER_TIME_CONSTANT_1_MS, NA, 0x01160) \
    F(HWA, HWA_X_GPU_SE_FILTER_TIME_CONSTANT_CLKS, NA, 0x01164) \
    F(HWA, HWA_X_GPU_SE_FILTER_TIME_CONSTANT_1_CLKS, NA, 0x0116c) \
    F(HWA, HWA_X_UNK_C4, NA, 0x01178) \
    F(HWA, HWA_X_UNK_114, NA, 0x011c8) \
    F(HWA, HWA_X_UNK_124, NA, 0x011d8) \
    F(HWA, HWA_X_MAX_PSTATE_SCALED_2, NA, 0x011dc) \
    F(HWB, HWB_UNK_0, 0x00000, NA) \
    F(HWB, HWB_UNK_8, 0x00008, 0x00000) \
    F(HWB, HWB_UNK_10, 0x00010, NA) \
    F(HWB, HWB_UNK_18, 0x00018, 0x00008) \
    F(HWB, HWB_UNK_30, 0x00030, 0x00020) \
    F(HWB, HWB_TIMESTAMP_AREA_BASE, 0x00038, 0x00028) \
    F(HWB, HWB_CHIP_ID, 0x00450, 0x00968) \
    F(HWB, HWB_UNK_454, 0x00454, 0x0096c) \
    F(HWB, HWB_UNK_458, 0x00458, 0x00970) \
    F(HWB, HWB_UNK_460, 0x00460, 0x00978) \
    F(HWB, HWB_UNK_464, 0x00464, 0x0097c) \
    F(HWB, HWB_UNK_468, 0x00468, 0x00980) \
    F(HWB, HWB_UNK_47C, 0x0047c, 0x00994) \
    F(HWB, HWB_UNK_484, 0x00484, 0x0099c) \
    F(HWB, HWB_UNK_48C, 0x0048c, 0x009a4) \
    F(HWB, HWB_BASE_CLOCK_KHZ, 0x00490, 0x009a8) \
    F(HWB, HWB_POWER_SAMPLE_PERIOD, 0x00494, 0x009ac) \
    F(HWB, HWB_UNK_49C, 0x0049c, 0x009b4) \
    F(HWB, HWB_UNK_4A0, 0x004a0, 0x009b8) \
    F(HWB, HWB_UNK_4A4, 0x004a4, 0x009bc) \
    F(HWB, HWB_UNK_4C0, 0x004c0, 0x009d8) \
    F(HWB, HWB_UNK_4F0, 0x004f0, 0x00a08) \
    F(HWB, HWB_UNK_4F4, 0x004f4, 0x00a0c) \
    F(HWB, HWB_UNK_504, 0x00504, 0x00a20) \
    F(HWB, HWB_UNK_524, 0x00524, 0x00a40) \
    F(HWB, HWB_NUM_FRAGS, 0x0053c, 0x00a5c) \
    F(HWB, HWB_UNK_554, 0x00554, 0x00a74) \
    F(HWB, HWB_UAT_TTB_BASE, 0x00558, 0x00a78) \
    F(HWB, HWB_GPU_CORE_ID, 0x00560, 0x00a80) \
    F(HWB, HWB_GPU_REV_ID, 0x00564, 0x00a84) \
    F(HWB, HWB_NUM_CORES, 0x00568, 0x00a88) \
    F(HWB, HWB_MAX_PSTATE, 0x0056c, 0x00a8c) \
    F(HWB, HWB_NUM_PSTATES, 0x00570, NA) \
    F(HWB, HWB_FREQUENCIES, 0x00574, 0x00a90) \
    F(HWB, HWB_VOLTAGES, 0x005b4, 0x00ad0) \
    F(HWB, HWB_VOLTAGES_SRAM, 0x007b4, 0x00cd0) \
    F(HWB, HWB_SRAM_K, 0x009b4, 0x00f10) \
    F(HWB, HWB_REL_MAX_POWERS, 0x00a34, 0x00f90) \
    F(HWB, HWB_REL_BOOST_FREQS, 0x00a74, 0x00fd0) \
    F(HWB, HWB_UNK_ARR_0, NA, 0x01010) \
    F(HWB, HWB_MIN_SRAM_VOLT, 0x00ab4, NA) \
    F(HWB, HWB_UNK_AB8, 0x00ab8, NA) \
    F(HWB, HWB_UNK_ABC, 0x00abc, NA) \
    F(HWB, HWB_UNK_AC0, 0x00ac0, NA) \
    F(HWB, HWB_UNK_AE4, 0x00ae4, 0x016ec) \
    F(HWB, HWB_UNK_B10, 0x00b10, 0x01718) \
    F(HWB, HWB_UNK_B24, 0x00b24, 0x0172c) \
    F(HWB, HWB_UNK_B28, 0x00b28, 0x01730) \
    F(HWB, HWB_UNK_B2C, 0x00b2c, 0x01734) \
    F(HWB, HWB_UNK_B38_0, NA, 0x01740) \
    F(HWB, HWB_UNK_B38_4, NA, 0x01744) \
    F(HWB, HWB_UNK_B38, 0x00b38, 0x0174c) \
    F(HWB, HWB_UNK_C3C, NA, 0x01880) \
    F(GLB, GLB_UNK_24_0, NA, 0x00024) \
    F(GLB, GLB_UNK_28, 0x00028, 0x00034) \
    F(GLB, GLB_UNK_2C, 0x0002c, 0x0003c) \
    F(GLB, GLB_UNK_34, 0x00034, 0x00044) \
    F(GLB, GLB_UNK_8900, 0x08900, 0x08970) \
    F(GLB, GLB_MAX_POWER, 0x08908, 0x08978) \
    F(GLB, GLB_MAX_PSTATE_SCALED, 0x0890c, 0x0897c) \
    F(GLB, GLB_MAX_PSTATE_SCALED_2, 0x08910, 0x08980) \
    F(GLB, GLB_MAX_PSTATE_SCALED_3, 0x0891c, 0x0898c) \
    F(GLB, GLB_POWER_ZONE_COUNT, 0x08924, 0x08994) \
    F(GLB, GLB_AVG_POWER_FILTER_TC_PERIODS, 0x08928, 0x08998) \
    F(GLB, GLB_AVG_POWER_KI_DT, 0x0892c, 0x0899c) \
    F(GLB, GLB_AVG_POWER_KP, 0x08930, 0x089a0) \
    F(GLB, GLB_AVG_POWER_MIN_DUTY_CYCLE, 0x08934, 0x089a4) \
    F(GLB, GLB_AVG_POWER_TARGET_FILTER_TC, 0x08938, 0x089a8) \
    F(GLB, GLB_UNK_89BC, 0x089bc, 0x08a68) \
    F(GLB, GLB_FAST_DIE0_RELEASE_TEMP, 0x089c0, 0x08a6c) \
    F(GLB, GLB_UNK_89C4, 0x089c4, 0x08a70) \
    F(GLB, GLB_FAST_DIE0_PROP_TGT_DELTA, 0x089c8, 0x08a74) \
    F(GLB, GLB_FAST_DIE0_KP, 0x089cc, 0x08a78) \
    F(GLB, GLB_FAST_DIE0_KI_DT, 0x089d0, 0x08a7c) \
    F(GLB, GLB_UNK_89E0, 0x089e0, 0x08a8c) \
    F(GLB, GLB_MAX_POWER_2, 0x089e4, 0x08a90) \
    F(GLB, GLB_PPM_KP, 0x089e8, 0x08a94) \
    F(GLB, GLB_PPM_KI_DT, 0x089ec, 0x08a98) \
    F(GLB, GLB_UNK_89F4_8, NA, 0x08aa8) \
    F(GLB, GLB_HWS1, 0x089f8, 0x08b0c) \
    F(GLB, GLB_HWS2, 0x08aa0, 0x08bb4) \
    F(GLB, GLB_IDLE_OFF_STANDBY_TIMER, NA, 0x090c4) \
    F(GLB, GLB_UNK_900C, 0x0900c, 0x09148) \
    F(GLB, GLB_UNK_9010_0, NA, 0x0914c) \
    F(GLB, GLB_UNK_903C, 0x0903c, 0x09190) \
    F(GLB, GLB_FAULT_CONTROL, 0x10e80, 0x10fd8) \
    F(GLB, GLB_DO_INIT, 0x10e84, 0x10fdc) \
    F(GLB, GLB_PROGRESS_CHECK_INTERVAL_3D, 0x11020, 0x11178) \
    F(GLB, GLB_PROGRESS_CHECK_INTERVAL_TA, 0x11024, 0x1117c) \
    F(GLB, GLB_PROGRESS_CHECK_INTERVAL_CL, 0x11028, 0x11180) \
    F(GLB, GLB_UNK_1102C_0, NA, 0x11184) \
    F(GLB, GLB_UNK_1102C_4, NA, 0x11188) \
    F(GLB, GLB_UNK_1102C_8, NA, 0x1118c) \
    F(GLB, GLB_UNK_1102C_C, NA, 0x11190) \
    F(GLB, GLB_IDLE_OFF_DELAY_MS, 0x11030, 0x1119c) \
    F(GLB, GLB_FENDER_IDLE_OFF_DELAY_MS, 0x11034, 0x111a0) \
    F(GLB, GLB_FW_EARLY_WAKE_TIMEOUT_MS, 0x11038, 0x111a4) \
    F(GLB, GLB_CL_CONTEXT_SWITCH_TIMEOUT_MS, 0x118e0, 0x11af0) \
    F(GLB, GLB_CL_KILL_TIMEOUT_MS, NA, 0x11af4) \
    F(GLB, GLB_SUB_UNK_54, 0x00054, 0x00064) \
    F(GLB, GLB_SUB_UNK_56, 0x00056, 0x00066) \
    F(GLB, GLB_SUB_UNK_58, 0x00058, 0x00068) \
    F(GLB, GLB_SUB_UNK_5E, 0x0005e, 0x0006e) \
    F(GLB, GLB_SUB_UNK_66, 0x00066, 0x00082) \
    F(GLB, GLB_PZ_TARGET, 0x0893c, 0x089ac) \
    F(GLB, GLB_PZ_TARGET_OFF, 0x08940, 0x089b0) \
    F(GLB, GLB_PZ_FILTER_TC, 0x08944, 0x089b4)

/* One member per field: its offset, or the blob it belongs to */
typedef struct CalibFields {
#define AGX_CALIB_MEMBER(b, n, o12, o13) uint32_t n;
    AGX_CALIB_FIELDS(AGX_CALIB_MEMBER)
#undef AGX_CALIB_MEMBER
} CalibFields;

/* A field, as the offset of its member in CalibFields */
typedef size_t CalibField;
#define FLD(n)  offsetof(CalibFields, n)

#define BLOB_HWA        AGX_CALIB_HWDATA_A
#define BLOB_HWB        AGX_CALIB_HWDATA_B
#define BLOB_GLB        AGX_CALIB_GLOBALS

/* Columns of the offset table */
enum { COL_V12_3, COL_V13_5, NUM_COLS };

static const CalibFields calib_offsets[NUM_COLS] = {
    [COL_V12_3] = {
#define AGX_CALIB_V12_3(b, n, o12, o13) .n = o12,
        AGX_CALIB_FIELDS(AGX_CALIB_V12_3)
#undef AGX_CALIB_V12_3
    },
    [COL_V13_5] = {
#define AGX_CALIB_V13_5(b, n, o12, o13) .n = o13,
        AGX_CALIB_FIELDS(AGX_CALIB_V13_5)
#undef AGX_CALIB_V13_5
    },
};

static const CalibFields calib_blobs = {
#define AGX_CALIB_BLOB(b, n, o12, o13) .n = BLOB_ ## b,
    AGX_CALIB_FIELDS(AGX_CALIB_BLOB)
#undef AGX_CALIB_BLOB
};

static uint32_t calib_field(const CalibFields *t, CalibField f)
{
    uint32_t v;

    memcpy(&v, (const uint8_t *)t + f, sizeof(v));
    return v;
}

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

/*
 * t8103 constants that the device tree does not carry (m1n1 hw/t8103.rs
 * HWCONFIG; the driver has the same table).
 */
#define T8103_BASE_CLOCK_HZ     24000000
#define T8103_NUM_CLUSTERS      1
#define T8103_UNK_87C           (-220)
#define T8103_UNK_8CC           9880
#define T8103_UNK_E24           112
#define T8103_HWB_UNK_454       1
#define T8103_HWB_UNK_AB8       0x48
#define T8103_HWB_UNK_ABC       0x8
#define T8103_SHARED1_A4        0xffff
#define T8103_SHARED2_UNK_508   0xc00007
#define T8103_GLOBAL_UNK_54     0xffff
#define T8103_SRAM_K            1.02f
#define T8103_FAST_SENSOR_MASK  0x12
#define T8103_FAST_DIE0_SENSOR_PRESENT 0x01

static const int32_t t8103_shared1_tab[16] = {
    -1, 0x7282, 0x50ea, 0x370a, 0x25be, 0x1c1f, 0x16fb, -1,
    -1, -1, -1, -1, -1, -1, -1, -1,
};

static const int32_t t8103_shared2_tab[10] = {
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
    c->pwr_sample_period_aic_clks = T8103_BASE_CLOCK_HZ / 1000 *
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

/* Where the blob being written is, and which ABI's column applies */
typedef struct CalibOut {
    uint8_t *buf;
    size_t size;
    AgxCalibBlob which;
    int col;
} CalibOut;

/* NULL if this ABI has no such field */
static uint8_t *field_ptr(CalibOut *o, CalibField f, size_t extra,
                         size_t len)
{
    uint32_t off = calib_field(&calib_offsets[o->col], f);

    g_assert(calib_field(&calib_blobs, f) == o->which);
    if (off == NA) {
        return NULL;
    }
    g_assert(off + extra + len <= o->size);
    return o->buf + off + extra;
}

static void put16(CalibOut *o, CalibField f, uint16_t v)
{
    uint8_t *p = field_ptr(o, f, 0, 2);

    if (p) {
        p[0] = v;
        p[1] = v >> 8;
    }
}

/* Element @i of a u32 array field */
static void put32i(CalibOut *o, CalibField f, unsigned int i, uint32_t v)
{
    uint8_t *p = field_ptr(o, f, 4 * i, 4);

    if (p) {
        agx_st32(p, v);
    }
}

static void put32(CalibOut *o, CalibField f, uint32_t v)
{
    put32i(o, f, 0, v);
}

static void put64(CalibOut *o, CalibField f, uint64_t v)
{
    uint8_t *p = field_ptr(o, f, 0, 8);

    if (p) {
        agx_st64(p, v);
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
    d->base_clock_khz = T8103_BASE_CLOCK_HZ / 1000;
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
static void put_shared(CalibOut *o, CalibField hws1, CalibField hws2)
{
    uint8_t *s1 = field_ptr(o, hws1, 0, HWS1_SIZE);
    uint8_t *s2 = field_ptr(o, hws2, 0, HWS2_SIZE);

    for (int i = 0; i < G_N_ELEMENTS(t8103_shared1_tab); i++) {
        agx_st32(s1 + HWS1_TABLE + 4 * i, t8103_shared1_tab[i]);
    }
    agx_st32(s1 + HWS1_UNK_A4, T8103_SHARED1_A4);
    for (int i = 0; i < G_N_ELEMENTS(t8103_shared2_tab); i++) {
        agx_st32(s2 + HWS2_TABLE + 4 * i, t8103_shared2_tab[i]);
    }
    memset(s2 + HWS2_UNK_28, 0xff, 16);
    agx_st32(s2 + HWS2_UNK_508, T8103_SHARED2_UNK_508);
}

static void fill_hwdata_a(CalibOut *o, const AgxCalibParams *p,
                          const CalibDerived *d)
{
    const AgxCalibPower *c = &p->pwr;
    uint32_t ppm_periods = c->ppm_filter_time_constant_ms / d->period_ms;
    uint32_t avg_periods = c->avg_power_filter_tc_ms / d->period_ms;
    uint32_t pwr_a = sf_recip(c->pwr_filter_time_constant);
    uint32_t ppm_a = sf_recip(ppm_periods);
    uint32_t perf_a = sf_recip(c->perf_filter_time_constant);
    uint32_t perf_a2 = sf_recip(c->perf_filter_time_constant2);
    uint32_t avg_target_a = sf_recip(c->avg_power_target_filter_tc);
    uint32_t avg_a = sf_recip(avg_periods);
    uint32_t pz_a = sf_recip(c->power_zone_filter_tc);
    uint32_t se_a = sf_recip(c->se_filter_time_constant);
    uint32_t se_1_a = sf_recip(c->se_filter_time_constant_1);
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
        put32i(o, FLD(HWA_SRAM_K), i, F32(T8103_SRAM_K));
    }
    put32(o, FLD(HWA_UNK_64C), 625);

    /* Power controller */
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

    /* PPM controller */
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

    /* Performance controller */
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

    /* Temperature ("fast die0") controller */
    put64(o, FLD(HWA_FAST_DIE0_SENSOR_MASK), T8103_FAST_SENSOR_MASK);
    put32(o, FLD(HWA_FAST_DIE0_RELEASE_TEMP_CC),
          100 * c->fast_die0_release_temp);
    put32(o, FLD(HWA_UNK_87C), (uint32_t)T8103_UNK_87C);
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
    put32(o, FLD(HWA_UNK_8CC), T8103_UNK_8CC);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_10), max_ps_scaled);
    put32(o, FLD(HWA_MAX_PSTATE_SCALED_11), max_ps_scaled);

    /* Average power controller and its power zone */
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

    /* The t8103/t8112 block, only before 13.3 */
    if (o->col == COL_V12_3) {
        put32(o, FLD(HWA_T81_D8C), 0x80000000);
        put32(o, FLD(HWA_T81_D90), 4);
        put32(o, FLD(HWA_T81_D9C), F32(0.6f));
        put32(o, FLD(HWA_T81_DA4), F32(0.4f));
        put32(o, FLD(HWA_T81_DAC), F32(0.38552f));
        put32(o, FLD(HWA_T81_DB8), F32(65536.0f));
        put32(o, FLD(HWA_T81_DBC), F32(13.56f));
        put32(o, FLD(HWA_T81_MAX_PSTATE_SCALED), max_ps_scaled);
    }

    /* "SE" controller, 13.x only (absent from the 12.3 layout) */
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

    put64(o, FLD(HWA_FAST_DIE0_SENSOR_MASK_2), T8103_FAST_SENSOR_MASK);
    put32(o, FLD(HWA_UNK_E24), T8103_UNK_E24);
    put32(o, FLD(HWA_UNK_E28), 1);
    put64(o, FLD(HWA_FAST_DIE0_SENSOR_MASK_ALT), T8103_FAST_SENSOR_MASK);
    put64(o, FLD(HWA_FAST_DIE0_SENSOR_PRESENT), T8103_FAST_DIE0_SENSOR_PRESENT);
    put32(o, FLD(HWA_UNK_163C), 1);
    put_shared(o, FLD(HWA_HWS1), FLD(HWA_HWS2));
    put32(o, FLD(HWA_UNK_3CE8), 1);
    put32(o, FLD(HWA_CORE_LEAK_COEF), p->core_leak_coef);
    put32(o, FLD(HWA_SRAM_LEAK_COEF), p->sram_leak_coef);
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
    const uint32_t *unk_ae4 = o->col == COL_V12_3 ? unk_ae4_v12 : unk_ae4_v13;
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
    put32(o, FLD(HWB_UNK_454), T8103_HWB_UNK_454);
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
    put32(o, FLD(HWB_NUM_FRAGS), p->num_cores * T8103_NUM_CLUSTERS);
    put32(o, FLD(HWB_UNK_554), 1);
    put64(o, FLD(HWB_UAT_TTB_BASE), p->uat_ttb_base);
    put32(o, FLD(HWB_GPU_CORE_ID), AGX_T8103_GPU_CORE_ID);
    put32(o, FLD(HWB_GPU_REV_ID), p->gpu_rev_id);
    put32(o, FLD(HWB_NUM_CORES), p->num_cores * T8103_NUM_CLUSTERS);
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
        put32i(o, FLD(HWB_SRAM_K), i, F32(T8103_SRAM_K));
        put32i(o, FLD(HWB_REL_MAX_POWERS), i,
               ps->pwr_uw / 1000 * 100 / d->max_power_mw);
        put32i(o, FLD(HWB_REL_BOOST_FREQS), i,
               i > d->base_ps ? (ps->freq_hz - base_hz) / boost_step : 0);
    }
    for (int i = 0; i < 16; i++) {
        put32i(o, FLD(HWB_UNK_ARR_0), i, i);
    }

    put32(o, FLD(HWB_MIN_SRAM_VOLT), min_sram_mv);
    put32(o, FLD(HWB_UNK_AB8), T8103_HWB_UNK_AB8);
    put32(o, FLD(HWB_UNK_ABC), T8103_HWB_UNK_ABC);
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
    put16(o, FLD(GLB_SUB_UNK_54), T8103_GLOBAL_UNK_54);
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
    put32(o, FLD(GLB_UNK_89BC), T8103_UNK_8CC);
    put32(o, FLD(GLB_FAST_DIE0_RELEASE_TEMP), 100 * c->fast_die0_release_temp);
    put32(o, FLD(GLB_UNK_89C4), (uint32_t)T8103_UNK_87C);
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
    put32(o, FLD(GLB_UNK_903C), o->col == COL_V12_3 ? 0 : 1);

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

static int calib_col(const AgxAbi *abi)
{
    switch (abi->version) {
    case AGX_FW_V12_3:
        return COL_V12_3;
    case AGX_FW_V13_5:
        return COL_V13_5;
    default:
        g_assert_not_reached();
    }
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

void agx_calib_fill(const AgxAbi *abi, AgxCalibBlob which,
                    const AgxCalibParams *p, uint8_t *buf)
{
    CalibOut o = {
        .buf = buf,
        .size = agx_calib_size(abi, which),
        .which = which,
        .col = calib_col(abi),
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
