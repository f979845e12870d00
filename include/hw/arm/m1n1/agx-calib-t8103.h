/*
 * AGX G13 calibration: the t8103 (M1) parameters
 *
 * agx_calib_t8103_params() gives what a t8103's device tree carries (its
 * operating points, power tunables and leakage); the constants below are
 * the t8103 values the firmware structures take that the device tree
 * does not carry.
 *
 * QEMU-independent: GLib and our own headers only.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_M1N1_AGX_CALIB_T8103_H
#define HW_ARM_M1N1_AGX_CALIB_T8103_H

#include <stdint.h>
#include "hw/arm/m1n1/agx-calib.h"

/*
 * t8103 constants that the device tree does not carry (m1n1 hw/t8103.rs
 * HWCONFIG; the driver has the same table).
 */
#define AGX_T8103_BASE_CLOCK_HZ     24000000
#define AGX_T8103_NUM_CLUSTERS      1
#define AGX_T8103_UNK_87C           (-220)
#define AGX_T8103_UNK_8CC           9880
#define AGX_T8103_UNK_E24           112
#define AGX_T8103_HWB_UNK_454       1
#define AGX_T8103_HWB_UNK_AB8       0x48
#define AGX_T8103_HWB_UNK_ABC       0x8
#define AGX_T8103_SHARED1_A4        0xffff
#define AGX_T8103_SHARED2_UNK_508   0xc00007
#define AGX_T8103_GLOBAL_UNK_54     0xffff
#define AGX_T8103_SRAM_K            1.02f
#define AGX_T8103_FAST_SENSOR_MASK  0x12
#define AGX_T8103_FAST_DIE0_SENSOR_PRESENT 0x01

/* HwDataShared1's and HwDataShared2's tables */
extern const int32_t agx_t8103_shared1_tab[16];
extern const int32_t agx_t8103_shared2_tab[10];

/*
 * t8103 parameters for a GPU with @core_mask enabled (0xff: 8 cores, 0xfe:
 * the 7-core part) whose TTBAT is at @uat_ttb_base.
 */
void agx_calib_t8103_params(AgxCalibParams *p, uint32_t core_mask,
                            uint64_t uat_ttb_base);

#endif
