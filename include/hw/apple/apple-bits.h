/*
 * Bit-field and little-endian load/store helpers for the QEMU-independent
 * code of the Apple coprocessors: RTKit and the GPU firmware core
 *
 * That code builds without QEMU, so it cannot use hw/registerfields.h;
 * these mirror its FIELD()/FIELD_EX64()/FIELD_DP64() naming so that
 * message layouts read the same way as register layouts.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_BITS_H
#define HW_APPLE_APPLE_BITS_H

#include <stdint.h>
#include <string.h>

#define APPLE_MAKE_64BIT_MASK(shift, length) \
    (((~0ULL) >> (64 - (length))) << (shift))

/* Define a field of a 64-bit message: msg ## _ ## field ## _SHIFT etc. */
#define APPLE_FIELD(msg, field, shift, length)                          \
    enum { msg ## _ ## field ## _SHIFT = (shift),                       \
           msg ## _ ## field ## _LENGTH = (length) }

#define APPLE_FIELD_MASK(msg, field)                                    \
    APPLE_MAKE_64BIT_MASK(msg ## _ ## field ## _SHIFT,                  \
                          msg ## _ ## field ## _LENGTH)

#define APPLE_FIELD_EX64(storage, msg, field)                           \
    (((storage) & APPLE_FIELD_MASK(msg, field)) >>                      \
     msg ## _ ## field ## _SHIFT)

#define APPLE_FIELD_DP64(storage, msg, field, val)                      \
    (((storage) & ~APPLE_FIELD_MASK(msg, field)) |                      \
     (((uint64_t)(val) << msg ## _ ## field ## _SHIFT) &                \
      APPLE_FIELD_MASK(msg, field)))

#define APPLE_ROUND_UP(n, d) ((((n) + (d) - 1) / (d)) * (d))

/* A float's bits and back (register words, state words, depth values) */
static inline uint32_t apple_f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float apple_bits_f32(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof(f));
    return f;
}

static inline uint16_t apple_ld16(const void *p)
{
    const uint8_t *b = p;

    return b[0] | (b[1] << 8);
}

static inline uint32_t apple_ld32(const void *p)
{
    const uint8_t *b = p;

    return b[0] | (b[1] << 8) | (b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline uint64_t apple_ld64(const void *p)
{
    return apple_ld32(p) | ((uint64_t)apple_ld32((const uint8_t *)p + 4) << 32);
}

static inline void apple_st32(void *p, uint32_t v)
{
    uint8_t *b = p;

    b[0] = v;
    b[1] = v >> 8;
    b[2] = v >> 16;
    b[3] = v >> 24;
}

static inline void apple_st64(void *p, uint64_t v)
{
    apple_st32(p, v);
    apple_st32((uint8_t *)p + 4, v >> 32);
}

#endif
