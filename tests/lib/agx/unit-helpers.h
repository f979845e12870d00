/*
 * Helpers the unit tests share: registering a fixture test, and fake
 * guest RAM as one flat byte array
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_UNIT_UNIT_HELPERS_H
#define TESTS_UNIT_UNIT_HELPERS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Register @fn as the test @path (the whole path, "/suite/what-it-shows")
 * with the calling file's fixture: its type Fixture and its fx_setup()
 * and fx_teardown(), which get @data
 */
#define FX_ADD_DATA(path, data, fn) \
    g_test_add(path, Fixture, data, fx_setup, fn, fx_teardown)
#define FX_ADD(path, fn)        FX_ADD_DATA(path, NULL, fn)

/*
 * Guest RAM as @size bytes at @ram standing for the physical addresses
 * [@base, @base + @size): copy @len bytes between @buf and physical @pa,
 * as an AgxPhysRW does.  False, copying nothing, if any byte is not RAM.
 */
static inline bool flat_ram_rw(uint8_t *ram, uint64_t base, uint64_t size,
                               uint64_t pa, void *buf, uint64_t len,
                               bool is_write)
{
    if (pa < base || len > size || pa - base > size - len) {
        return false;
    }
    if (is_write) {
        memcpy(ram + (pa - base), buf, len);
    } else {
        memcpy(buf, ram + (pa - base), len);
    }
    return true;
}

#endif
