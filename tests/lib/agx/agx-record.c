/*
 * qtest library: the driver's traffic as a core fuzzer input
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "agx-record.h"
#include "agx-fuzz-ops.h"

static FILE *rec;
static int64_t rec_clock;       /* QEMU's virtual clock, last we heard */
static long rec_step_at = -1;   /* offset of a trailing STEP's argument */
static uint32_t rec_step_ns;

static void put(const void *p, size_t len)
{
    fwrite(p, 1, len, rec);
}

static void put8(uint8_t v)
{
    put(&v, 1);
}

static void put_le(uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        put8(v >> (8 * i));
    }
}

static void op(FuzzOp o)
{
    put8(o);
    rec_step_at = -1;
}

void agx_record_open(bool v12_3, uint64_t handoff, uint64_t ttbs,
                     int64_t clock_ns)
{
    static int seq;
    const char *dir = g_getenv("AGX_QTEST_RECORD");
    g_autofree char *test = g_strdup(g_test_get_path());
    g_autofree char *name = NULL, *path = NULL;

    if (!dir || rec) {
        return;
    }
    name = g_strdup_printf("qtest%s-%d-%d", g_strdelimit(test, "/", '-'),
                           getpid(), seq++);
    path = g_build_filename(dir, name, NULL);
    rec = fopen(path, "wb");
    if (!rec) {
        return;
    }
    rec_clock = clock_ns;
    put8(FUZZ_HDR_BOOT | (v12_3 ? FUZZ_HDR_V12_3 : 0));
    put_le(handoff, 8);
    put_le(ttbs, 8);
}

void agx_record_close(void)
{
    if (rec) {
        fclose(rec);
        rec = NULL;
    }
}

bool agx_record_active(void)
{
    return rec != NULL;
}

void agx_record_outcome(const char *state, uint64_t jobs_done)
{
    static const char *const names[] = {
        [FUZZ_STATE_OFF] = "off",
        [FUZZ_STATE_WAIT_INIT] = "waiting-for-initdata",
        [FUZZ_STATE_RUNNING] = "running",
        [FUZZ_STATE_HALTED] = "halted",
        [FUZZ_STATE_CRASHED] = "crashed",
    };

    for (int i = 0; rec && i < G_N_ELEMENTS(names); i++) {
        if (!strcmp(state, names[i])) {
            op(FUZZ_OP_EXPECT);
            put8(i);
            put_le(jobs_done, 4);
        }
    }
}

void agx_record_write(uint64_t pa, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (rec && len) {
        size_t n = MIN(len, 0xffff);

        op(FUZZ_OP_PWRITE);
        put_le(pa, 8);
        put_le(n, 2);
        put(p, n);
        pa += n;
        p += n;
        len -= n;
    }
}

void agx_record_zero(uint64_t pa, uint64_t len)
{
    if (rec) {
        op(FUZZ_OP_PZERO);
        put_le(pa, 8);
        put_le(len, 4);
    }
}

void agx_record_msg(uint8_t ep, uint64_t msg)
{
    if (rec) {
        op(FUZZ_OP_RTKIT);
        put8(ep);
        put_le(msg, 8);
    }
}

void agx_record_cpu(bool run)
{
    if (rec) {
        op(FUZZ_OP_CPU);
        put8(run);
    }
}

/*
 * Time passes as a STEP by the clock's difference; steps in a row become
 * one (their sum, while it fits in 32 bits)
 */
void agx_record_clock(int64_t clock_ns)
{
    uint64_t delta = clock_ns > rec_clock ? clock_ns - rec_clock : 0;

    rec_clock = MAX(rec_clock, clock_ns);
    while (rec && delta) {
        if (rec_step_at >= 0 && rec_step_ns < UINT32_MAX) {
            long end = ftell(rec);
            uint32_t n = MIN(delta, UINT32_MAX - rec_step_ns);

            rec_step_ns += n;
            delta -= n;
            fseek(rec, rec_step_at, SEEK_SET);
            put_le(rec_step_ns, 4);
            fseek(rec, end, SEEK_SET);
            continue;
        }
        op(FUZZ_OP_STEP);
        rec_step_at = ftell(rec);
        rec_step_ns = 0;
        put_le(0, 4);
    }
}

void agx_record_inject(unsigned what)
{
    if (rec) {
        op(FUZZ_OP_INJECT);
        put8(what);
    }
}
