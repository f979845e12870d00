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
#include "hw/apple/apple-bits.h"
#include "agx-fake.h"
#include "fuzz-fw.h"
#include "agx-fuzz-ops.h"

/* The input, consumed op by op; reading past its end yields zeros */
typedef struct FuzzIn {
    const uint8_t *p;
    size_t left;
} FuzzIn;

static uint64_t in_le(FuzzIn *in, int bytes)
{
    uint64_t v = 0;

    for (int i = 0; i < bytes && in->left; i++, in->p++, in->left--) {
        v |= (uint64_t)*in->p << (8 * i);
    }
    return v;
}

static const uint8_t *in_bytes(FuzzIn *in, size_t *len)
{
    const uint8_t *p = in->p;

    *len = MIN(*len, in->left);
    in->p += *len;
    in->left -= *len;
    return p;
}

/* The linear mode's queues, set up before the snapshot */
typedef struct FuzzBase {
    Fake f;
    FakeQueue q[FUZZ_NUM_QUEUES];
    bool ready;
} FuzzBase;

static const uint8_t *fuzz_useq_data;
static size_t fuzz_useq_size;

/* @useq holds AGX_CMD_MAX_USEQ bytes; the block has room for less */
static void fuzz_patch(uint8_t *useq, uint32_t *size)
{
    *size = MIN(fuzz_useq_size,
                MIN(AGX_CMD_MAX_USEQ, FAKE_TS_START - FAKE_USEQ));
    memcpy(useq, fuzz_useq_data, *size);
}

/* Raw command records appended to a queue's ring, not yet kicked */
static void fuzz_records(Fake *f, FakeQueue *q, FuzzIn *in)
{
    unsigned n = in_le(in, 1);

    for (unsigned i = 0; i < n && fake_can_alloc(f, 0x1000); i++) {
        size_t len = FUZZ_RECORD_SIZE;
        const uint8_t *rec = in_bytes(in, &len);
        uint64_t blk = fake_alloc(f, 0x1000);

        memcpy(fake_ptr_n(f, blk, len), rec, len);
        apple_st64(fake_ptr_n(f, q->ring_va + 8ULL * q->wptr, 8), blk);
        q->wptr = (q->wptr + 1) % AGX_CMD_WQ_SIZE;
    }
}

/* RAM addresses: raw in boot mode, wrapped into the fake RAM otherwise */
static uint64_t fuzz_pa(Fake *f, uint64_t pa)
{
    return f->pages ? pa : FAKE_RAM_BASE + pa % FAKE_RAM_SIZE;
}

/* The device's outcome a recorded session ends with, and the core's */
static struct {
    bool seen;
    unsigned state, got_state;
    uint32_t jobs, got_jobs;
} fuzz_expect;

static FuzzState fuzz_state(Fake *f)
{
    switch (f->fw.state) {
    case AGX_FW_OFF:
        return FUZZ_STATE_OFF;
    case AGX_FW_WAIT_INIT:
        return FUZZ_STATE_WAIT_INIT;
    case AGX_FW_RUNNING:
        return f->fw.halted ? FUZZ_STATE_HALTED : FUZZ_STATE_RUNNING;
    default:
        return FUZZ_STATE_CRASHED;
    }
}

static void fuzz_op(Fake *f, FakeQueue *qs, FuzzIn *in)
{
    FuzzOp op = in_le(in, 1) % FUZZ_NUM_OPS;
    bool linear = !f->pages;
    FakeQueue *q;
    uint64_t pa, v;
    size_t len;
    const uint8_t *p;

    switch (op) {
    case FUZZ_OP_RTKIT:
        v = in_le(in, 1);
        rtkit_receive(&f->rtk, in_le(in, 8), v);
        fake_advance(f, 0);
        break;
    case FUZZ_OP_PWRITE:
        pa = fuzz_pa(f, in_le(in, 8));
        len = in_le(in, 2);
        p = in_bytes(in, &len);
        fake_phys_write(f, pa, p, len);
        break;
    case FUZZ_OP_PZERO:
        pa = fuzz_pa(f, in_le(in, 8));
        v = in_le(in, 4);
        /* Sparse RAM drops whole pages; the linear RAM is kept small */
        fake_phys_zero(f, pa, MIN(v, linear ? 0x4000 : 64 << 20));
        break;
    case FUZZ_OP_CPU:
        fake_cpu(f, in_le(in, 1) & 1);
        fake_advance(f, 0);
        break;
    case FUZZ_OP_RUN:
        fake_run(f, in_le(in, 1));
        break;
    case FUZZ_OP_JOB:
        q = &qs[in_le(in, 1) % FUZZ_NUM_QUEUES];
        len = in_le(in, 2);
        fuzz_useq_data = in_bytes(in, &len);
        fuzz_useq_size = len;
        if (linear && fake_can_alloc(f, FAKE_BLOCK)) {
            fake_add_run(f, q, fuzz_patch);
        }
        break;
    case FUZZ_OP_RECORDS:
        q = &qs[in_le(in, 1) % FUZZ_NUM_QUEUES];
        if (linear) {
            fuzz_records(f, q, in);
        }
        break;
    case FUZZ_OP_BARRIER:
        q = &qs[in_le(in, 1) % FUZZ_NUM_QUEUES];
        v = in_le(in, 1) % FUZZ_NUM_QUEUES;
        pa = in_le(in, 4);
        if (linear && fake_can_alloc(f, 0x40)) {
            fake_add_barrier(f, q, &qs[v], pa);
        }
        break;
    case FUZZ_OP_KICK:
        q = &qs[in_le(in, 1) % FUZZ_NUM_QUEUES];
        if (linear) {
            fake_kick(f, q);
            fake_run(f, 64);
        }
        break;
    case FUZZ_OP_PTE:
        v = in_le(in, 2);
        pa = in_le(in, 8);
        if (linear) {
            fake_set_pte(f, v, pa);
        }
        break;
    case FUZZ_OP_STEP:
        /* Recorded sessions need long steps; linear inputs stay quick */
        v = in_le(in, 4);
        fake_advance(f, linear ? v & 0xffffff : v);
        break;
    case FUZZ_OP_INJECT:
        f->fw.inject = in_le(in, 1) % FUZZ_NUM_INJECT;
        break;
    case FUZZ_OP_EXPECT:
        fuzz_expect.seen = true;
        fuzz_expect.state = in_le(in, 1);
        fuzz_expect.jobs = in_le(in, 4);
        fuzz_expect.got_state = fuzz_state(f);
        fuzz_expect.got_jobs = f->fw.jobs_done;
        break;
    case FUZZ_OP_RESUME:
    default:
        /* The driver recovers a halted firmware and it carries on */
        if (f->fw.halted && f->fw.state == AGX_FW_RUNNING) {
            if (linear && fake_va_ok(f->fw.fw_status_va + AGX_FWS_RESUME, 4)) {
                apple_st32(fake_ptr_n(f, f->fw.fw_status_va +
                                      AGX_FWS_RESUME, 4), 1);
            }
            if (agx_wq_resume(&f->fw)) {
                agx_wq_schedule(&f->fw);
                fake_run(f, 64);
            }
        }
        break;
    }
}

/*
 * Linear mode: one booted firmware per ABI with its queues, set up once;
 * every input starts from its snapshot, and only the RAM pages the last
 * input touched are copied back
 */
static FuzzBase *fuzz_base(AgxFwVersion version)
{
    static FuzzBase bases[AGX_FW_NUM_VERSIONS];
    FuzzBase *b = &bases[version];

    if (!b->ready) {
        fake_init(&b->f, version);
        b->f.lenient = true;
        for (int i = 0; i < FUZZ_NUM_QUEUES; i++) {
            fake_queue_init(&b->f, &b->q[i], i % AGX_NUM_PIPES, i / 3, i);
        }
        fake_snapshot(&b->f);
        b->ready = true;
    } else {
        fake_restore(&b->f);
    }
    return b;
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    uint8_t hdr = in_le(&in, 1);
    AgxFwVersion v = hdr & FUZZ_HDR_V12_3 ? AGX_FW_V12_3 : AGX_FW_V13_5;
    FakeQueue qs[FUZZ_NUM_QUEUES];
    Fake boot, *f;

    memset(&fuzz_expect, 0, sizeof(fuzz_expect));
    if (hdr & FUZZ_HDR_BOOT) {
        uint64_t handoff = in_le(&in, 8);

        fake_init_boot(&boot, v, handoff, in_le(&in, 8));
        boot.lenient = true;
        f = &boot;
        memset(qs, 0, sizeof(qs));
    } else {
        FuzzBase *b = fuzz_base(v);

        f = &b->f;
        memcpy(qs, b->q, sizeof(qs));
    }
    f->fw.inject = (hdr >> FUZZ_HDR_INJECT_SHIFT) % FUZZ_NUM_INJECT;
    if (hdr & FUZZ_HDR_CHAOS) {
        f->fw.chaos_seed = 1 + (hdr >> FUZZ_HDR_CHAOS_SHIFT);
        f->fw.chaos_fault_permille = 100;
        agx_chaos_reset(&f->fw);
    }
    /* Every op consumes at least its opcode: bounded by the input */
    while (in.left) {
        fuzz_op(f, qs, &in);
    }
    fake_run(f, 64);
    if (f == &boot) {
        fake_free(&boot);
    } else {
        /* Free what this input allocated within it (libFuzzer leak check) */
        g_ptr_array_set_size(f->errors, 0);
    }
    return 0;
}

static uint8_t seed_useq[AGX_CMD_MAX_USEQ];
static uint32_t seed_useq_size;

static void seed_capture(uint8_t *useq, uint32_t *size)
{
    memcpy(seed_useq, useq, *size);
    seed_useq_size = *size;
}

static void write_seed(const char *dir, const char *name, GByteArray *b)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);

    g_assert_true(g_file_set_contents(path, (const char *)b->data, b->len,
                                      NULL));
    g_byte_array_set_size(b, 0);
}

static void put_le(GByteArray *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        uint8_t c = v >> (8 * i);

        g_byte_array_append(b, &c, 1);
    }
}

/* A job on queue @q whose microsequence is a real one of that pipe */
static void put_job(GByteArray *b, AgxFwVersion v, unsigned q)
{
    Fake f;
    FakeQueue fq;

    fake_init(&f, v);
    fake_queue_init(&f, &fq, q % AGX_NUM_PIPES, 0, 3);
    fake_add_run(&f, &fq, seed_capture);
    fake_free(&f);
    put_le(b, FUZZ_OP_JOB, 1);
    put_le(b, q, 1);
    put_le(b, seed_useq_size, 2);
    g_byte_array_append(b, seed_useq, seed_useq_size);
}

/*
 * Valid inputs to start fuzzing from, in linear mode: a real job on each
 * pipe and ABI (the test bed allocates deterministically, so its pointers
 * are right), Barriers across queues, a fault and the resume, and an
 * RTKit boot as Linux drives it.  Boot-mode seeds are the qtests' own
 * traffic (AGX_QTEST_RECORD).
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
    g_autoptr(GByteArray) b = g_byte_array_new();

    for (int v = 0; v < AGX_FW_NUM_VERSIONS; v++) {
        uint8_t hdr = v == AGX_FW_V12_3 ? FUZZ_HDR_V12_3 : 0;

        for (unsigned q = 0; q < AGX_NUM_PIPES; q++) {
            g_autofree char *name = g_strdup_printf("job-%d-%u", v, q);

            put_le(b, hdr, 1);
            put_job(b, v, q);
            put_le(b, FUZZ_OP_KICK, 1);
            put_le(b, q, 1);
            write_seed(dir, name, b);
        }
        /* Chaos firmware: four queues, two jobs each, time passing */
        put_le(b, hdr | FUZZ_HDR_CHAOS, 1);
        for (unsigned q = 0; q < FUZZ_NUM_QUEUES * 2; q++) {
            put_job(b, v, q % FUZZ_NUM_QUEUES);
        }
        for (unsigned q = 0; q < FUZZ_NUM_QUEUES; q++) {
            put_le(b, FUZZ_OP_KICK, 1);
            put_le(b, q, 1);
        }
        put_le(b, FUZZ_OP_STEP, 1);
        put_le(b, 1000000, 4);
        write_seed(dir, v == AGX_FW_V12_3 ? "chaos-1" : "chaos-0", b);
        /* Queue 1 waits on queue 0's first job, then a fault, resumed */
        put_le(b, hdr | 1 << FUZZ_HDR_INJECT_SHIFT, 1);
        put_job(b, v, 0);
        put_le(b, FUZZ_OP_BARRIER, 1);
        put_le(b, 1, 1);
        put_le(b, 0, 1);
        put_le(b, 1, 4);
        put_job(b, v, 1);
        put_le(b, FUZZ_OP_KICK, 1);
        put_le(b, 1, 1);
        put_le(b, FUZZ_OP_KICK, 1);
        put_le(b, 0, 1);
        put_le(b, FUZZ_OP_RESUME, 1);
        put_le(b, FUZZ_OP_RUN, 1);
        put_le(b, 64, 1);
        write_seed(dir, v == AGX_FW_V12_3 ? "barrier-fault-1"
                                          : "barrier-fault-0", b);
    }
    put_le(b, 0, 1);
    for (int i = 0; i < G_N_ELEMENTS(rtkit_boot); i++) {
        put_le(b, FUZZ_OP_RTKIT, 1);
        put_le(b, rtkit_boot[i][0], 1);
        put_le(b, rtkit_boot[i][1], 8);
    }
    write_seed(dir, "rtkit-boot", b);
}

#ifndef AGX_LIBFUZZER
static const char *const state_names[] = {
    [FUZZ_STATE_OFF] = "off", [FUZZ_STATE_WAIT_INIT] = "waiting for InitData",
    [FUZZ_STATE_RUNNING] = "running", [FUZZ_STATE_HALTED] = "halted",
    [FUZZ_STATE_CRASHED] = "crashed",
};

static const char *state_name(unsigned state)
{
    return state < G_N_ELEMENTS(state_names) ? state_names[state] : "?";
}

/*
 * Replay one input file as a TAP test.  With @differential, the input is
 * a recorded qtest session: fed the same traffic, the core must end where
 * the device's firmware model ended (state and completed commands).
 */
static bool replay_file(const char *path, bool differential, int n)
{
    g_autofree gchar *buf = NULL;
    g_autofree char *name = g_path_get_basename(path);
    gsize len;
    bool ok = true;

    if (!g_file_get_contents(path, &buf, &len, NULL)) {
        printf("not ok %d - %s: unreadable\n", n, name);
        return false;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    if (!differential) {
        printf("ok %d - %s\n", n, name);
    } else if (!fuzz_expect.seen) {
        printf("not ok %d - %s: no recorded outcome\n", n, name);
        ok = false;
    } else {
        ok = fuzz_expect.state == fuzz_expect.got_state &&
             fuzz_expect.jobs == fuzz_expect.got_jobs;
        printf("%s %d - %s: device %s after %u commands, core %s after %u\n",
               ok ? "ok" : "not ok", n, name, state_name(fuzz_expect.state),
               fuzz_expect.jobs, state_name(fuzz_expect.got_state),
               fuzz_expect.got_jobs);
    }
    return ok;
}

/*
 * Replay: the files and directories named on the command line (with
 * --differential: see replay_file()), then seeded random inputs (none
 * with --no-random).
 * With --seeds DIR, write the seed corpus instead.
 */
int main(int argc, char **argv)
{
    int runs = 3000, n = 0, first = 1;
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    bool differential = false, ok = true;
    GRand *rand;

    if (argc == 3 && !strcmp(argv[1], "--seeds")) {
        write_seeds(argv[2]);
        return 0;
    }
    for (; first < argc && !strncmp(argv[first], "--", 2); first++) {
        if (!strcmp(argv[first], "--differential")) {
            differential = true;
        } else if (!strcmp(argv[first], "--no-random")) {
            runs = 0;
        }
    }
    for (int i = first; i < argc; i++) {
        GDir *dir = g_dir_open(argv[i], 0, NULL);
        const char *name;

        if (!dir) {
            g_ptr_array_add(files, g_strdup(argv[i]));
            continue;
        }
        while ((name = g_dir_read_name(dir))) {
            g_ptr_array_add(files, g_build_filename(argv[i], name, NULL));
        }
        g_dir_close(dir);
    }
    printf("1..%u\n", files->len + (runs ? 1 : 0));
    for (guint i = 0; i < files->len; i++) {
        ok &= replay_file(g_ptr_array_index(files, i), differential, ++n);
    }
    rand = g_rand_new_with_seed(0x61677866);
    for (int i = 0; i < runs; i++) {
        uint8_t buf[2048];
        size_t len = g_rand_int_range(rand, 2, sizeof(buf));

        for (size_t b = 0; b < len; b++) {
            buf[b] = g_rand_int(rand);
        }
        /* Half start with a job on a queue, to get past the first op */
        if (i % 2 && len > 0x20) {
            buf[0] &= ~FUZZ_HDR_BOOT;
            buf[1] = FUZZ_OP_JOB;
            buf[4] = 0;
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    g_rand_free(rand);
    if (runs) {
        printf("ok %d - %d random inputs do not crash the core\n", ++n, runs);
    }
    return ok ? 0 : 1;
}
#endif
