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
static bool rec_stepped;        /* the last op was RUN: coalesce steps */

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
    rec_stepped = o == FUZZ_OP_RUN;
}

void agx_record_open(bool v12_3, uint64_t handoff, uint64_t ttbs)
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

void agx_record_step(void)
{
    if (rec && !rec_stepped) {
        op(FUZZ_OP_RUN);
        put8(64);
    }
}
