/*
 * Fuzz target for the AGX firmware core: RTKit messages from the AP,
 * microsequences and command records, all from untrusted bytes.  Whatever
 * the input, the core must not crash, hang or touch memory it was not
 * given; a firmware crash (a guest-visible event) is a valid outcome.
 *
 * Built two ways: with clang -fsanitize=fuzzer for libFuzzer (make fuzz),
 * and as a plain program that replays pseudo-random inputs from a fixed
 * seed, run by make check.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <string.h>
#include "hw/agx/agx-bits.h"
#include "../unit/agx-fake.h"
#include "fuzz-fw.h"

/* Messages from the AP: each 9 bytes are an endpoint and a payload */
static void fuzz_rtkit(Fake *f, const uint8_t *data, size_t size)
{
    uint64_t m0, m1;

    for (size_t i = 0; i + 9 <= size; i += 9) {
        rtkit_receive(&f->rtk, agx_ld64(data + i + 1), data[i]);
        while (rtkit_outbox_pop(&f->rtk, &m0, &m1)) {
            /* the AP reads everything */
        }
    }
}

static const uint8_t *fuzz_useq_data;
static size_t fuzz_useq_size;

static void fuzz_patch(uint8_t *useq, uint32_t *size)
{
    *size = MIN(fuzz_useq_size, AGX_CMD_MAX_USEQ);
    memcpy(useq, fuzz_useq_data, *size);
}

/* A job whose microsequence is the input */
static void fuzz_useq(Fake *f, const uint8_t *data, size_t size)
{
    FakeQueue q;

    fake_queue_init(f, &q, data[0] % AGX_NUM_PIPES, 0, 3);
    fuzz_useq_data = data + 1;
    fuzz_useq_size = MIN(size - 1, FAKE_TS_START - FAKE_USEQ);
    fake_add_run(f, &q, fuzz_patch);
    fake_kick(f, &q);
    fake_run(f, 64);
}

/* A queue whose command records are the input, 64 bytes each */
static void fuzz_commands(Fake *f, const uint8_t *data, size_t size)
{
    uint8_t msg[0x30];
    FakeQueue q;
    uint32_t n = 0;

    fake_queue_init(f, &q, data[0] % AGX_NUM_PIPES, data[0] >> 6, 4);
    for (size_t i = 1; i + 64 <= size && n < 64; i += 64, n++) {
        uint64_t blk = fake_alloc(f, 0x1000);

        memcpy(fake_ptr(f, blk), data + i, 64);
        agx_st64(fake_ptr(f, q.ring_va + 8 * n), blk);
    }
    agx_st32(fake_ptr(f, q.state_va + AGX_RS_CPU_WPTR), n);
    agx_cmd_build_rwq(msg, q.pipe, q.info_va, n, q.slot, true);
    agx_wq_run_msg(&f->fw, q.pipe | q.prio << 2, msg);
    agx_wq_schedule(&f->fw);
    fake_run(f, 64);
}

/*
 * One booted firmware per ABI, set up once; every input starts from its
 * snapshot, and only the RAM pages the last input touched are copied back
 */
static Fake *fuzz_fake(AgxFwVersion version)
{
    static Fake bases[AGX_FW_NUM_VERSIONS];
    static bool ready[AGX_FW_NUM_VERSIONS];
    Fake *f = &bases[version];

    if (!ready[version]) {
        fake_init(f, version);
        fake_snapshot(f);
        ready[version] = true;
    } else {
        fake_restore(f);
    }
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fake *f;

    if (size < 2) {
        return 0;
    }
    f = fuzz_fake(data[0] & 1 ? AGX_FW_V12_3 : AGX_FW_V13_5);
    /* Bits 5:4 arm a fault or hang for the first job */
    f->fw.inject = (data[0] >> 4) % 4;
    switch ((data[0] >> 1) % 3) {
    case 0:
        fuzz_rtkit(f, data + 1, size - 1);
        break;
    case 1:
        fuzz_useq(f, data + 1, size - 1);
        break;
    default:
        fuzz_commands(f, data + 1, size - 1);
        break;
    }
    /* If it halted, the driver recovers and the firmware carries on */
    if (f->fw.halted && f->fw.state == AGX_FW_RUNNING) {
        agx_st32(fake_ptr(f, f->fw.fw_status_va + AGX_FWS_RESUME), 1);
        if (agx_fault_check_resume(&f->fw)) {
            agx_wq_schedule(&f->fw);
            fake_run(f, 64);
        }
    }
    /* Free what this input allocated within it, for libFuzzer's leak check */
    g_ptr_array_set_size(f->errors, 0);
    return 0;
}

static uint8_t seed_useq[AGX_CMD_MAX_USEQ];
static uint32_t seed_useq_size;

static void seed_capture(uint8_t *useq, uint32_t *size)
{
    memcpy(seed_useq, useq, *size);
    seed_useq_size = *size;
}

static void write_seed(const char *dir, const char *name, const uint8_t *buf,
                       size_t len)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);

    g_assert_true(g_file_set_contents(path, (const char *)buf, len, NULL));
}

/*
 * Valid inputs to start fuzzing from: the microsequence of a real job on
 * each pipe and ABI (the test bed allocates deterministically, so its
 * pointers are right), and an RTKit boot as Linux drives it.
 */
static void write_seeds(const char *dir)
{
    static const uint64_t rtkit_boot[][2] = {
        { 0, (2ULL << 52) | 12 | (12 << 16) },          /* HELLO_REPLY */
        { 0, (8ULL << 52) | 1 },                        /* EPMAP, more */
        { 0, (8ULL << 52) | (1ULL << 32) | (1ULL << 51) },
        { 0, (5ULL << 52) | (2ULL << 32) | 2 },         /* STARTEP syslog */
        { 0, (0xbULL << 52) | 0x20 },                   /* AP power on */
        { 0, (5ULL << 52) | (0x20ULL << 32) | 2 },
        { 0x20, 0x81ULL << 48 },                        /* INIT */
        { 0x21, (0x83ULL << 48) | 0x11 },
    };
    uint8_t buf[2 + AGX_CMD_MAX_USEQ];

    for (int v = 0; v < AGX_FW_NUM_VERSIONS; v++) {
        for (unsigned pipe = 0; pipe < AGX_NUM_PIPES; pipe++) {
            g_autofree char *name = g_strdup_printf("useq-%d-%u", v, pipe);
            Fake f;
            FakeQueue q;

            fake_init(&f, v);
            fake_queue_init(&f, &q, pipe, 0, 3);
            fake_add_run(&f, &q, seed_capture);
            fake_free(&f);
            buf[0] = (1 << 1) | (v == AGX_FW_V12_3);
            buf[1] = pipe;
            memcpy(buf + 2, seed_useq, seed_useq_size);
            write_seed(dir, name, buf, 2 + seed_useq_size);
        }
    }
    buf[0] = 0;
    for (int i = 0; i < G_N_ELEMENTS(rtkit_boot); i++) {
        buf[1 + 9 * i] = rtkit_boot[i][0];
        agx_st64(buf + 2 + 9 * i, rtkit_boot[i][1]);
    }
    write_seed(dir, "rtkit-boot", buf, 1 + 9 * G_N_ELEMENTS(rtkit_boot));
}

#ifndef AGX_LIBFUZZER
/*
 * Replay: files named on the command line, then seeded random inputs.
 * With --seeds DIR, write the seed corpus instead.
 */
int main(int argc, char **argv)
{
    int runs = 3000;
    GRand *rand;

    if (argc == 3 && !strcmp(argv[1], "--seeds")) {
        write_seeds(argv[2]);
        return 0;
    }
    rand = g_rand_new_with_seed(0x61677866);
    for (int i = 1; i < argc; i++) {
        gchar *buf;
        gsize len;

        if (g_file_get_contents(argv[i], &buf, &len, NULL)) {
            LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
            g_free(buf);
        }
    }
    printf("1..1\n");
    for (int i = 0; i < runs; i++) {
        uint8_t buf[2048];
        size_t len = g_rand_int_range(rand, 2, sizeof(buf));

        for (size_t b = 0; b < len; b++) {
            buf[b] = g_rand_int(rand);
        }
        /* Start most inputs from a valid job to get past the first op */
        if (i % 2 && len > 0x20) {
            buf[1] = 0x29;
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    g_rand_free(rand);
    printf("ok 1 /fuzz/%d-random-inputs-do-not-crash-the-core\n", runs);
    return 0;
}
#endif
