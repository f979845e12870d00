/*
 * AGX G13 calibration blobs: the field table
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/agx/agx-calib-fields.h"

#define BLOB_HWA        AGX_CALIB_HWDATA_A
#define BLOB_HWB        AGX_CALIB_HWDATA_B
#define BLOB_GLB        AGX_CALIB_GLOBALS

static const AgxCalibFields calib_offsets[AGX_CALIB_NUM_COLS] = {
    [AGX_CALIB_COL_V12_3] = {
#define AGX_CALIB_V12_3(b, n, o12, o13) .n = o12,
        AGX_CALIB_FIELDS(AGX_CALIB_V12_3)
#undef AGX_CALIB_V12_3
    },
    [AGX_CALIB_COL_V13_5] = {
#define AGX_CALIB_V13_5(b, n, o12, o13) .n = o13,
        AGX_CALIB_FIELDS(AGX_CALIB_V13_5)
#undef AGX_CALIB_V13_5
    },
};

static const AgxCalibFields calib_blobs = {
#define AGX_CALIB_BLOB(b, n, o12, o13) .n = BLOB_ ## b,
    AGX_CALIB_FIELDS(AGX_CALIB_BLOB)
#undef AGX_CALIB_BLOB
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
