/*
 * AGX G13 calibration blobs: the fillers of HwDataA, HwDataB and Globals
 *
 * QEMU-independent: GLib and our own headers only.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_M1N1_AGX_CALIB_FILL_H
#define HW_ARM_M1N1_AGX_CALIB_FILL_H

#include <stdint.h>
#include "hw/agx/agx-abi.h"
#include "hw/arm/m1n1/agx-calib.h"

/*
 * Write the whole blob (agx_calib_size() bytes, unset fields zero) for
 * @abi into @buf.  @p must pass agx_calib_check_params().
 */
void agx_calib_fill(const AgxAbi *abi, AgxCalibBlob which,
                    const AgxCalibParams *p, uint8_t *buf);

#endif
