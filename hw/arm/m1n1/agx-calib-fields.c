/*
 * AGX G13 calibration blobs: the field table
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/arm/m1n1/agx-calib-fields.h"

#define BLOB_HWA        AGX_CALIB_HWDATA_A
#define BLOB_HWB        AGX_CALIB_HWDATA_B
#define BLOB_GLB        AGX_CALIB_GLOBALS

/* The structure each blob is, and its power zones' */
#define BLOB_STRUCT_HWA HW_DATA_A
#define BLOB_STRUCT_HWB HW_DATA_B
#define BLOB_STRUCT_GLB GLOBALS
#define BLOB_ZONE_HWA   POWER_ZONE
#define BLOB_ZONE_GLB   POWER_ZONE_GLOBAL

/* L(V, STRUCT, FIELD): the offset of FIELD in STRUCT on ABI V */
#define L(v, s, f)      AGX_ ## v ## _ ## s ## _ ## f
#define L_(v, s, f)     L(v, s, f)
/* The offset of FIELD in blob B's structure, or in its power zone */
#define LB(v, b, f)     L_(v, BLOB_STRUCT_ ## b, f)
#define LZ(v, b, f)     L_(v, BLOB_ZONE_ ## b, f)

/* An offset in a structure at an offset, absent if either is */
#define NESTED(a, b) \
    ((a) == AGX_FIELD_ABSENT || (b) == AGX_FIELD_ABSENT ? AGX_FIELD_ABSENT \
                                                         : (a) + (b))

#define FLAT(v, b, f)   .b ## _ ## f = LB(v, b, f),
#define ZONE(v, b, f) \
    .b ## _PZ_ ## f = NESTED(LB(v, b, POWER_ZONES), LZ(v, b, f)),
#define SE(v, b, f) \
    .b ## _X_ ## f = NESTED(LB(v, b, UNK_E10_0), \
                            L(v, HW_DATA_A130_EXTRA, f)),

#define FLAT_V12_3(b, f)        FLAT(V12_3, b, f)
#define ZONE_V12_3(b, f)        ZONE(V12_3, b, f)
#define SE_V12_3(b, f)          SE(V12_3, b, f)
#define FLAT_V13_5(b, f)        FLAT(V13_5, b, f)
#define ZONE_V13_5(b, f)        ZONE(V13_5, b, f)
#define SE_V13_5(b, f)          SE(V13_5, b, f)

static const AgxCalibFields calib_offsets[AGX_CALIB_NUM_COLS] = {
    [AGX_CALIB_COL_V12_3] = {
        AGX_CALIB_FIELDS(FLAT_V12_3, ZONE_V12_3, SE_V12_3)
    },
    [AGX_CALIB_COL_V13_5] = {
        AGX_CALIB_FIELDS(FLAT_V13_5, ZONE_V13_5, SE_V13_5)
    },
};

static const AgxCalibFields calib_blobs = {
#define AGX_CALIB_BLOB(b, f) .b ## _ ## f = BLOB_ ## b,
#define AGX_CALIB_BLOB_PZ(b, f) .b ## _PZ_ ## f = BLOB_ ## b,
#define AGX_CALIB_BLOB_X(b, f) .b ## _X_ ## f = BLOB_ ## b,
    AGX_CALIB_FIELDS(AGX_CALIB_BLOB, AGX_CALIB_BLOB_PZ, AGX_CALIB_BLOB_X)
#undef AGX_CALIB_BLOB
#undef AGX_CALIB_BLOB_PZ
#undef AGX_CALIB_BLOB_X
};

static uint32_t calib_field(const AgxCalibFields *t, AgxCalibField f)
{
    uint32_t v;

    memcpy(&v, (const uint8_t *)t + f, sizeof(v));
    return v;
}

AgxCalibCol agx_calib_col(const AgxAbi *abi)
{
    switch (abi->version) {
    case AGX_FW_V12_3:
        return AGX_CALIB_COL_V12_3;
    case AGX_FW_V13_5:
        return AGX_CALIB_COL_V13_5;
    default:
        g_assert_not_reached();
    }
}

uint32_t agx_calib_field_offset(AgxCalibCol col, AgxCalibField f)
{
    g_assert(col < AGX_CALIB_NUM_COLS);
    return calib_field(&calib_offsets[col], f);
}

AgxCalibBlob agx_calib_field_blob(AgxCalibField f)
{
    return calib_field(&calib_blobs, f);
}
