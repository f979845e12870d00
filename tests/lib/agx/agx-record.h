/*
 * qtest library: record what the driver does (RAM writes, mailbox
 * messages, the ASC's RUN bit, time passing) as an input of the core
 * fuzzer (tests/fuzz/fuzz-ops.h), when AGX_QTEST_RECORD names a
 * directory: one file per QEMU the library starts.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_AGX_RECORD_H
#define TESTS_QTEST_AGX_AGX_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Start a recording (no-op unless AGX_QTEST_RECORD is set, or if open) */
void agx_record_open(bool v12_3, uint64_t handoff, uint64_t ttbs,
                     int64_t clock_ns);
void agx_record_close(void);
bool agx_record_active(void);
/* What the device says of its firmware at the end (firmware-state) */
void agx_record_outcome(const char *state, uint64_t jobs_done);

void agx_record_write(uint64_t pa, const void *buf, size_t len);
void agx_record_zero(uint64_t pa, uint64_t len);
void agx_record_msg(uint8_t ep, uint64_t msg);
void agx_record_cpu(bool run);
/* QEMU's virtual clock now reads @clock_ns (after a qtest clock step) */
void agx_record_clock(int64_t clock_ns);
/* The device's inject-fault property was set (FuzzInject) */
void agx_record_inject(unsigned what);

#endif
