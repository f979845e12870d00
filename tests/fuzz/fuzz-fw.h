/*
 * The libFuzzer entry point of the firmware core's fuzz target
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_FUZZ_FUZZ_FW_H
#define TESTS_FUZZ_FUZZ_FW_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
