/*
 * Fuzz target for the USC shader interpreter: a launch (sizes, register
 * and memory counts, uniforms) and its code, all from untrusted bytes.
 * Whatever the input, the interpreter must not crash, hang or touch
 * memory it was not given; a shader fault is a valid outcome.
 *
 * Built two ways: with -DAGX_LIBFUZZER for libFuzzer (OSS-Fuzz build,
 * tests/fuzz/oss-fuzz/build.sh), and as a plain program that replays
 * files, writes seeds (--seeds DIR) or, with no argument, runs seeded
 * random and mutated inputs (make check, TAP).
 *
 * Input: flags (bit 0 soft faults, bit 1 preamble, bit 2 u0_u1 = the data
 * buffer), GPR halves, local x, local y, groups x, partial-group cut,
 * shared bytes (2), stack words, preamble offset (2), 16 uniform words,
 * then the code.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <string.h>
#include "fuzz-fw.h"        /* the libFuzzer entry point's prototype */
#include "usc-asm.h"

#define USC_BASE        0x1000000000ull
#define CODE_OFF        0x4000
#define CODE_MAX        8192
#define DATA_VA         0x2000000000ull
#define DATA_SIZE       16384
#define HEADER          (11 + 64)

typedef struct FuzzMem {
    uint8_t code[CODE_MAX];
    uint32_t code_len;
    uint8_t data[DATA_SIZE];
} FuzzMem;

/* Memory is mapped by pages, as the GPU's is: all of code[] reads */
static uint8_t *fm_ptr(FuzzMem *m, uint64_t va, uint32_t len)
{
    if (va >= USC_BASE + CODE_OFF && len <= CODE_MAX &&
        va - USC_BASE - CODE_OFF <= CODE_MAX - len) {
        return m->code + (va - USC_BASE - CODE_OFF);
    }
    if (va >= DATA_VA && len <= DATA_SIZE && va - DATA_VA <= DATA_SIZE - len) {
        return m->data + (va - DATA_VA);
    }
    return NULL;
}

static bool fm_read(void *opaque, uint64_t va, void *buf, uint32_t len,
                    uint64_t *fault_va)
{
    uint8_t *p = fm_ptr(opaque, va, len);

    if (!p) {
        *fault_va = va;
        return false;
    }
    memcpy(buf, p, len);
    return true;
}

static bool fm_write(void *opaque, uint64_t va, const void *buf,
                     uint32_t len, uint64_t *fault_va)
{
    uint8_t *p = fm_ptr(opaque, va, len);

    /* the code is read-only to shaders */
    if (!p || p < ((FuzzMem *)opaque)->data ||
        p >= ((FuzzMem *)opaque)->data + DATA_SIZE) {
        *fault_va = va;
        return false;
    }
    memcpy(p, buf, len);
    return true;
}

static const AgxUscMemOps fm_ops = { .read = fm_read, .write = fm_write };

/* What the last input did, for the replayer to print */
static AgxUscStatus last_status;
static AgxUscFault last_fault;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FuzzMem m;
    static AgxUscLaunch l;
    uint8_t h[HEADER] = { 0 };
    uint64_t budget = 20000;
    AgxUscFault fault;
    AgxUscStatus st;
    uint32_t groups;

    memcpy(h, data, MIN(size, sizeof(h)));
    memset(&l, 0, sizeof(l));
    m.code_len = size > HEADER ? MIN(size - HEADER, CODE_MAX) : 0;
    memset(m.code, 0, sizeof(m.code));
    memcpy(m.code, data + HEADER, m.code_len);
    /* the data starts as the code: descriptors for the state registers */
    memset(m.data, 0, sizeof(m.data));
    memcpy(m.data, m.code, MIN(m.code_len, 512));

    l.usc_base = USC_BASE;
    l.main_pc = CODE_OFF;
    l.soft_faults = h[0] & 1;
    l.has_preamble = h[0] & 2;
    l.gpr_halves = h[1];
    l.preamble_gpr_halves = h[1];
    l.local[0] = h[2] % 64 + 1;
    l.local[1] = h[3] % 4 + 1;
    l.local[2] = 1;
    groups = h[4] % 4 + 1;
    l.global[0] = groups * l.local[0] - h[5] % l.local[0];
    l.global[1] = l.local[1];
    l.global[2] = 1;
    l.shared_bytes = (h[6] | h[7] << 8) % 4096;
    l.stack_bytes = 4 * h[8];
    l.preamble_pc = CODE_OFF + (m.code_len ? (h[9] | h[10] << 8) % m.code_len
                                           : 0);
    memcpy(l.uniforms, h + 11, 64);
    if (h[0] & 4) {
        l.uniforms[0] = (uint32_t)DATA_VA;
        l.uniforms[1] = DATA_VA >> 32;
    }
    for (int i = 0; i < 16; i++) {
        l.tex_state_va[i] = DATA_VA + 24 * i;
        l.sampler_state_va[i] = DATA_VA + 8 * i;
    }
    l.sampler_heap_va = DATA_VA + 64;

    st = agx_usc_run_preamble(&l, &fm_ops, &m, &budget, &fault);
    for (uint32_t g = 0; g < groups && st == AGX_USC_OK; g++) {
        uint32_t tg[3] = { g, 0, 0 };

        st = agx_usc_run_threadgroup(&l, tg, &fm_ops, &m, &budget, &fault);
    }
    last_status = st;
    last_fault = fault;
    return 0;
}

#ifndef AGX_LIBFUZZER

/* An input running @a on one 32-thread group with u0_u1 = the data */
static GByteArray *input_for(const Asm *a, uint8_t gprs)
{
    GByteArray *in = g_byte_array_new();
    uint8_t h[HEADER] = { 1 | 4, gprs, 31, 0, 1, 0 };

    g_byte_array_append(in, h, sizeof(h));
    g_byte_array_append(in, a->b, a->n);
    return in;
}

static void set_bits(uint8_t *d, unsigned start, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned b = start + i;

        d[b / 8] = (d[b / 8] & ~(1 << (b % 8))) | ((v >> i) & 1) << (b % 8);
    }
}

/*
 * Gallium's blit word (texture_sample r4..r7, ss1, at r4_r5, 2d) with
 * texture state register 5, whose descriptor (at data offset 120, where
 * the code is copied) is a linear 4x4 RGBA8 image at data offset 256;
 * sampler 1 is whatever code bytes 8..15 are
 */
static void sample_program(Asm *a)
{
    static const uint8_t word[8] = { 0x31, 0x11, 0x48, 0x00, 0x05, 0x62,
                                     0x0f, 0x01 };
    uint8_t *d;

    get_sr(a, 4, SR_GRID_X);
    get_sr(a, 5, SR_LANE);
    memcpy(a->b + a->n, word, sizeof(word));
    a->n += sizeof(word);
    devmem(a, true, 2, 8, true, 0, true, 0, false, 2, 0xf);
    footer(a);
    memset(a->b + a->n, 0, 144 - a->n);
    d = a->b + 120;
    set_bits(d, 0, 4, 2);                       /* 2D */
    set_bits(d, 6, 7, 0x28);                    /* RGBA8 unorm, linear */
    set_bits(d, 16, 12, 0x688);                 /* swizzle RGBA */
    set_bits(d, 28, 14, 3);
    set_bits(d, 42, 14, 3);
    set_bits(d, 66, 36, (DATA_VA + 256) >> 4);
    a->n = 144;
}

static void write_seeds(const char *dir)
{
    Asm a = { 0 };
    GByteArray *in;
    char *path;
    uint32_t body;

    /* Mesa's fill shader (agx-shaders.md §7) */
    get_sr(&a, 0, SR_GRID_X);
    imad(&a, D32(0), R32(0), IMM(1), U32(4), false, 0);
    mov(&a, D32(1), U32(5));
    mov(&a, D32(2), U32(6));
    mov(&a, D32(3), U32(7));
    mov(&a, D32(4), U32(8));
    devmem(&a, true, 2, 2, true, 0, true, 0, false, 2, 0xf);
    footer(&a);
    in = input_for(&a, 16);
    path = g_build_filename(dir, "fill", NULL);
    g_file_set_contents(path, (char *)in->data, in->len, NULL);
    g_free(path);
    g_byte_array_unref(in);

    /* a loop with an if inside, a load and an atomic */
    a.n = 0;
    mov_imm16(&a, 0, 0);
    get_sr(&a, 1, SR_LANE);
    mov_imm32(&a, 2, 0);
    PUSH_EXEC(&a, 1);
    body = a.n;
    iadd(&a, D32(2), R32(2), IMM(1), false, 0, false);
    IF_ICMP(&a, 1, 1, false, R32(2), IMM(3));
    devmem(&a, false, 2, 6, true, 0, true, 2, false, 0, 1);
    pop_exec(&a, 1);
    WHILE_ICMP(&a, 1, 1, false, R32(2), R32(1));
    jmp(&a, false, body - a.n);
    pop_exec(&a, 1);
    emit(&a, 0x15 | 2ull << 10 | 1ull << 24 | 1ull << 26 | 1ull << 27 |
         1ull << 31 | 5ull << 44 | 1ull << 47 | 4ull << 48, 0, 8);
    footer(&a);
    in = input_for(&a, 16);
    path = g_build_filename(dir, "loop", NULL);
    g_file_set_contents(path, (char *)in->data, in->len, NULL);
    g_free(path);
    g_byte_array_unref(in);

    a.n = 0;
    sample_program(&a);
    in = input_for(&a, 16);
    path = g_build_filename(dir, "sample", NULL);
    g_file_set_contents(path, (char *)in->data, in->len, NULL);
    g_free(path);
    g_byte_array_unref(in);
}

int main(int argc, char **argv)
{
    GRand *rng;
    unsigned n = 0;

    if (argc == 3 && !strcmp(argv[1], "--seeds")) {
        g_mkdir_with_parents(argv[2], 0755);
        write_seeds(argv[2]);
        return 0;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            char *buf;
            gsize len;

            if (!g_file_get_contents(argv[i], &buf, &len, NULL)) {
                fprintf(stderr, "%s: cannot read\n", argv[i]);
                return 1;
            }
            LLVMFuzzerTestOneInput((uint8_t *)buf, len);
            printf("%s: status %d, fault %d at 0x%" G_GINT64_MODIFIER "x\n",
                   argv[i], last_status, last_fault.kind, last_fault.pc);
            g_free(buf);
        }
        return 0;
    }
    /* seeded random inputs, half of them mutated seeds */
    rng = g_rand_new_with_seed(0xa9c5);
    printf("1..1\n");
    for (; n < 20000; n++) {
        uint8_t buf[HEADER + 512];
        uint32_t len = g_rand_int_range(rng, 1, sizeof(buf));

        for (uint32_t i = 0; i < len; i++) {
            buf[i] = g_rand_int(rng);
        }
        if (n % 2) {
            Asm a = { 0 };
            GByteArray *in;

            if (n % 4 == 3) {
                sample_program(&a);
            } else {
                get_sr(&a, 0, SR_GRID_X);
                imad(&a, D32(0), R32(0), IMM(1), U32(4), false, 0);
                devmem(&a, true, 2, 2, true, 0, true, 0, false, 2, 0xf);
                footer(&a);
            }
            in = input_for(&a, g_rand_int_range(rng, 0, 40));
            len = MIN(in->len, sizeof(buf));
            memcpy(buf, in->data, len);
            for (int k = g_rand_int_range(rng, 1, 8); k > 0; k--) {
                buf[g_rand_int_range(rng, 0, len)] ^=
                    1 << g_rand_int_range(rng, 0, 8);
            }
            g_byte_array_unref(in);
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    g_rand_free(rng);
    printf("ok 1 - %u inputs ran without a crash or a hang\n", n);
    return 0;
}

#endif
