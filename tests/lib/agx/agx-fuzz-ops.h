/*
 * The core fuzzer's input: a header, then a sequence of typed operations,
 * each an opcode byte and fixed little-endian arguments.  The qtest
 * library records its real traffic in this format (AGX_QTEST_RECORD), so
 * that a driver's boot and jobs are seeds the fuzzer mutates op by op.
 *
 * Header byte: bit 0 firmware 12.3 (else 13.5); bit 1 boot mode: an
 * unbooted firmware on sparse RAM, the handoff's and the TTB array's
 * physical addresses follow (u64 each), and the input plays the whole
 * driver; otherwise a booted firmware on a linear kernel map, with
 * queues the test bed sets up.  Bit 2: chaos firmware, seed 1 + bits 7:6,
 * one job in ten faulting.  Bits 5:4 arm a fault for the first job.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_AGX_FUZZ_OPS_H
#define TESTS_QTEST_AGX_AGX_FUZZ_OPS_H

#define FUZZ_HDR_V12_3          (1 << 0)
#define FUZZ_HDR_BOOT           (1 << 1)
#define FUZZ_HDR_CHAOS          (1 << 2)
#define FUZZ_HDR_CHAOS_SHIFT    6
#define FUZZ_HDR_INJECT_SHIFT   4

typedef enum FuzzOp {
    /* Messages and RUN bit changes run only the timers due now */
    FUZZ_OP_RTKIT,      /* ep u8, msg u64: a mailbox message from the AP */
    FUZZ_OP_PWRITE,     /* pa u64, len u16, bytes: the AP writes RAM */
    FUZZ_OP_PZERO,      /* pa u64, len u32: the AP clears RAM */
    FUZZ_OP_CPU,        /* run u8: ASC CPU_CONTROL.RUN */
    FUZZ_OP_RUN,        /* ticks u8: that many firmware timers fire */
    FUZZ_OP_JOB,        /* queue u8, len u16, bytes: a job, this useq */
    FUZZ_OP_RECORDS,    /* queue u8, n u8, n x 64 bytes: raw commands */
    FUZZ_OP_BARRIER,    /* queue u8, on u8, value u32 */
    FUZZ_OP_KICK,       /* queue u8: submit what was queued */
    FUZZ_OP_PTE,        /* index u16, value u64: edit a kernel PTE */
    FUZZ_OP_RESUME,     /* the driver resumes a halted firmware */
    /*
     * state u8 (FuzzState), jobs u32: what the device's firmware model
     * reported at the end of the recorded session; the replay's
     * differential check compares it with the core's (no-op otherwise)
     */
    FUZZ_OP_EXPECT,
    FUZZ_OP_STEP,       /* ns u32: virtual time passes, due timers fire */
    FUZZ_OP_INJECT,     /* what u8 (FuzzInject): arm the next job's fault */
    FUZZ_NUM_OPS,
} FuzzOp;

/* The device's inject-fault values, in this order */
typedef enum FuzzInject {
    FUZZ_INJECT_NONE,
    FUZZ_INJECT_GPU_FAULT,
    FUZZ_INJECT_TIMEOUT,
    FUZZ_INJECT_CHANNEL_ERROR,
    FUZZ_INJECT_GROW_TVB,
    FUZZ_NUM_INJECT,
} FuzzInject;

typedef enum FuzzState {
    FUZZ_STATE_OFF,
    FUZZ_STATE_WAIT_INIT,
    FUZZ_STATE_RUNNING,
    FUZZ_STATE_HALTED,
    FUZZ_STATE_CRASHED,
} FuzzState;

/* Queues the test bed sets up in linear mode, round-robin over pipes */
#define FUZZ_NUM_QUEUES         4
#define FUZZ_RECORD_SIZE        64

#endif
