/*
 * AGX: the driver's software floating point
 *
 * drm/asahi (float.rs) and m1n1 compute the firmware's power tables with
 * their own floating point, on IEEE 754 single-precision bit patterns.  It
 * truncates products and rounds half up, so results can differ from an
 * FPU in the last bit; the calibration blobs use it so that they match
 * what the driver computes.
 *
 * QEMU-independent: GLib and our own headers only.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_M1N1_AGX_SOFTFLOAT_H
#define HW_ARM_M1N1_AGX_SOFTFLOAT_H

#include <stdint.h>

uint32_t agx_sf_from_u32(uint32_t v);
uint32_t agx_sf_from_i32(int32_t v);
uint32_t agx_sf_add(uint32_t a, uint32_t b);
uint32_t agx_sf_sub(uint32_t a, uint32_t b);
uint32_t agx_sf_mul(uint32_t a, uint32_t b);
uint32_t agx_sf_div(uint32_t a, uint32_t b);

/* The bits of a float constant and back (no arithmetic) */
uint32_t agx_f32_bits(float f);
float agx_f32_value(uint32_t bits);

#endif
