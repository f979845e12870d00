/*
 * Unit tests of the compute data master (agx-cdm.c): compute jobs whose
 * control streams, USC control words and shaders are encoded here by hand
 * from the bit tables (reference notes, agx-shaders.md 1.3, 1.4 and 3),
 * run by the in-process firmware on fake RAM, in a user VM the GPU
 * reaches through its own page tables.  Each checks what the shaders
 * wrote against a CPU reference, or how a bad stream fails its job.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <string.h>
#include "agx-fake.h"
#include "usc-asm.h"

/* The user VM: slot 1, 1 MiB at USER_VA; the USC heap in its upper half */
#define VM_SLOT         1
#define USER_VA         0x1000000000ULL
#define USER_SIZE       0x100000
#define USC_BASE        (USER_VA + 0x80000)
#define STREAM          0x0000          /* offsets in the VM */
#define STREAM2         0x1000
#define PIPE            0x82000
#define PIPE2           0x82100
#define INDIRECT        0x3000
#define UNIFORMS        0x3100
#define BUF             0x10000
#define BUF2            0x40000
#define CODE            0x80000         /* = USC offset 0 */
#define CODE_PREAMBLE   0x80400
#define POISON          0xaaaaaaaau
#define PERF_VA         0x2000000000ULL

typedef struct Cdm {
    Fake f;
    FakeQueue q;
    uint64_t kva;               /* the VM's backing memory, kernel VA */
    uint64_t rec;               /* the compute record */
} Cdm;

static uint8_t *vm(Cdm *c, uint64_t off)
{
    return fake_ptr_n(&c->f, c->kva + off, 16);
}

static void put32(Cdm *c, uint64_t off, uint32_t v)
{
    apple_st32(fake_ptr_n(&c->f, c->kva + off, 4), v);
}

static uint32_t get32(Cdm *c, uint64_t off)
{
    return apple_ld32(fake_ptr_n(&c->f, c->kva + off, 4));
}

static void cdm_init(Cdm *c, AgxFwVersion v)
{
    memset(c, 0, sizeof(*c));
    fake_init(&c->f, v);
    c->kva = fake_alloc(&c->f, USER_SIZE);
    fake_map_gpu(&c->f, VM_SLOT, USER_VA, c->kva, USER_SIZE, true);
    /* drm/asahi's default: soft faults */
    apple_st32(fake_ptr_n(&c->f, c->f.fw.globals_va +
                          c->f.fw.abi->gl_fault_control, 4), 0xb);
    fake_queue_init(&c->f, &c->q, AGX_PIPE_COMPUTE, 0, 3);
    for (uint64_t o = BUF; o < CODE; o += 4) {
        put32(c, o, POISON);
    }
}

/* Submit a compute job whose stream starts at @stream (VM offset) */
static void cdm_submit_at(Cdm *c, uint64_t stream_va)
{
    const AgxCmdLayout *l = c->f.layout;
    uint64_t p1, p2;

    c->rec = fake_add_run(&c->f, &c->q, NULL);
    p1 = c->rec + l->params[AGX_CMD_COMPUTE][0];
    p2 = c->rec + l->params[AGX_CMD_COMPUTE][1];
    apple_st32(fake_ptr_n(&c->f, c->rec + l->vm_slot[AGX_CMD_COMPUTE], 4),
               VM_SLOT);
    apple_st64(fake_ptr_n(&c->f, p1 + 0x08, 8), stream_va);
    apple_st64(fake_ptr_n(&c->f, p1 + 0x30, 8), USC_BASE);
    /* Only the first segment: not a stop (hk's 64 KiB chunks) */
    apple_st64(fake_ptr_n(&c->f, p2 + (l == agx_cmd_layout(true) ?
                                       0x2c : 0x30), 8), stream_va + 8);
    fake_kick(&c->f, &c->q);
}

static void cdm_submit(Cdm *c)
{
    cdm_submit_at(c, USER_VA + STREAM);
}

static bool cdm_retired(Cdm *c)
{
    return fake_stamp(&c->f, c->q.slot) == c->q.value;
}

/* Where to encode at VM offset @at */
static uint8_t *at_ptr(Cdm *c, uint64_t at)
{
    return fake_ptr_n(&c->f, c->kva + at, 32);
}

/* Control stream blocks (agx-cmd.h); each returns the offset after it */
static uint64_t launch(Cdm *c, uint64_t at, uint32_t w0, uint32_t pipeline,
                       const uint32_t global[3], const uint32_t local[3])
{
    return at + agx_cmd_cdm_launch(at_ptr(c, at), w0, pipeline, global,
                                   local);
}

static uint64_t barrier(Cdm *c, uint64_t at)
{
    return at + agx_cmd_cdm_barrier(at_ptr(c, at));
}

static uint64_t link(Cdm *c, uint64_t at, uint64_t target, bool ret)
{
    return at + agx_cmd_cdm_link(at_ptr(c, at), target, ret);
}

static uint64_t terminate(Cdm *c, uint64_t at)
{
    return at + agx_cmd_cdm_terminate(at_ptr(c, at));
}

static uint64_t stream_return(Cdm *c, uint64_t at)
{
    return at + agx_cmd_cdm_return(at_ptr(c, at));
}

/* The shader of most tests, with u<ubase> pair the buffer address */
static void grid_shader(Cdm *c, uint64_t code, unsigned ubase)
{
    agx_cmd_grid_shader(at_ptr(c, code), ubase);
}

static void grid_pipeline(Cdm *c, uint64_t at, uint64_t uniforms,
                          unsigned ubase, uint32_t shader, bool preamble)
{
    agx_cmd_grid_pipeline(at_ptr(c, at), USER_VA + uniforms, ubase, shader,
                          preamble ? (int64_t)(CODE_PREAMBLE - CODE) : -1);
}

static void check_grid(Cdm *c, uint64_t buf, uint32_t n, uint32_t room)
{
    for (uint32_t i = 0; i < room; i++) {
        g_assert_cmphex(get32(c, buf + 4 * i), ==, i < n ? i : POISON);
    }
}

static const uint32_t one[3] = { 1, 1, 1 };

/* The data master's trace events, as lines */
static void rec_add(void *opaque, char *line)
{
    g_ptr_array_add(opaque, line);
}

static void rec_cdm_launch(void *opaque, uint64_t va, uint32_t gx,
                           uint32_t gy, uint32_t gz, uint32_t lx,
                           uint32_t ly, uint32_t lz, uint32_t pipeline)
{
    rec_add(opaque, g_strdup_printf("launch 0x%" G_GINT64_MODIFIER "x "
                                    "%ux%ux%u %ux%ux%u 0x%x", va, gx, gy,
                                    gz, lx, ly, lz, pipeline));
}

static void rec_cdm_slice(void *opaque, uint64_t cmd, uint64_t groups,
                          uint64_t insns, bool done)
{
    rec_add(opaque, g_strdup_printf("slice %" G_GUINT64_FORMAT " %d",
                                    groups, done));
}

static void rec_cdm_fault(void *opaque, uint64_t cmd, const char *why,
                          uint64_t va)
{
    rec_add(opaque, g_strdup_printf("fault %s 0x%" G_GINT64_MODIFIER "x",
                                    why, va));
}

static const AgxTraceOps rec_ops = {
    .cdm_launch = rec_cdm_launch,
    .cdm_slice = rec_cdm_slice,
    .cdm_fault = rec_cdm_fault,
};

/* Record the data master's events; g_ptr_array_unref() the result */
static GPtrArray *cdm_trace(Cdm *c)
{
    GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);

    agx_fw_set_trace(&c->f.fw, &rec_ops, lines);
    return lines;
}

static void check_trace(GPtrArray *lines, const char *const *want)
{
    for (guint i = 0; want[i] || i < lines->len; i++) {
        g_assert_cmpuint(i, <, lines->len);
        g_assert_cmpstr(lines->pdata[i], ==, want[i]);
    }
}

/*
 * A direct launch of 100 threads in threadgroups of 32: four
 * threadgroups, the last partial; the worked example's Word0 (1.3)
 */
static void test_direct(const void *opaque)
{
    Cdm c;
    const uint32_t global[3] = { 100, 1, 1 }, local[3] = { 32, 1, 1 };
    uint64_t at;

    g_autoptr(GPtrArray) trace = NULL;
    g_autofree char *launched = NULL;

    cdm_init(&c, GPOINTER_TO_INT(opaque));
    trace = cdm_trace(&c);
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    grid_shader(&c, CODE, 0);
    at = launch(&c, STREAM, 0x1202, PIPE - CODE, global, local);
    at = barrier(&c, at);
    terminate(&c, at);
    cdm_submit(&c);
    fake_run(&c.f, 100);
    launched = g_strdup_printf("launch 0x%" G_GINT64_MODIFIER "x 4x1x1 "
                               "32x1x1 0x%x", (uint64_t)(USER_VA + STREAM),
                               PIPE - CODE);
    check_trace(trace, (const char *const[]) { launched, "slice 4 1", NULL });

    g_assert_false(fake_crashed(&c.f));
    g_assert_true(cdm_retired(&c));
    check_grid(&c, BUF, 100, 200);
    g_assert_cmpuint(c.f.fw.cdm.launches, ==, 1);
    g_assert_cmpuint(c.f.fw.cdm.threadgroups, ==, 4);
    g_assert_cmpuint(c.f.fault_events, ==, 0);
    fake_free(&c.f);
}

/*
 * A launch without threads (a zero global size, as an all-zero Launch
 * has) runs nothing and reads no USC word: its bad pipeline is no fault
 */
static void test_empty_launch(void)
{
    Cdm c;
    const uint32_t none[3] = { 0, 1, 1 };

    cdm_init(&c, AGX_FW_V13_5);
    *at_ptr(&c, PIPE) = 0x77;
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, none, one));
    cdm_submit(&c);
    fake_run(&c.f, 100);
    g_assert_true(cdm_retired(&c));
    g_assert_cmpuint(c.f.fault_events, ==, 0);
    g_assert_cmpuint(c.f.fw.cdm.launches, ==, 0);
    g_assert_cmpuint(c.f.fw.cdm.threadgroups, ==, 0);
    fake_free(&c.f);
}

/*
 * An instruction the interpreter lacks (a texture_sample of a
 * multisampled texture, which Mesa never emits: the words of a Gallium
 * blit's sample with the 2D MS dimension) ends its launch, logged as
 * unimplemented; the next launch runs and the job retires without a fault
 */
static void test_unimplemented(void)
{
    const uint8_t tex_sample[] = { 0x31, 0x11, 0x48, 0x00, 0x00, 0x64,
                                   0x0f, 0x01 };
    const uint32_t global[3] = { 64, 1, 1 }, local[3] = { 32, 1, 1 };
    uint64_t at;
    Cdm c;

    cdm_init(&c, AGX_FW_V13_5);
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    grid_pipeline(&c, PIPE2, UNIFORMS, 0, 0x100, false);
    grid_shader(&c, CODE, 0);
    memcpy(at_ptr(&c, CODE + 0x100), tex_sample, sizeof(tex_sample));
    agx_cmd_op_stop(at_ptr(&c, CODE + 0x100 + sizeof(tex_sample)));
    at = launch(&c, STREAM, 0x1202, PIPE2 - CODE, global, local);
    at = launch(&c, at, 0x1202, PIPE - CODE, global, local);
    terminate(&c, at);
    cdm_submit(&c);
    fake_run(&c.f, 100);

    g_assert_true(cdm_retired(&c));
    g_assert_cmpuint(c.f.fault_events, ==, 0);
    g_assert_cmpuint(c.f.fw.cdm.unimplemented, ==, 1);
    g_assert_true(fake_has_error(&c.f, "is not implemented"));
    check_grid(&c, BUF, 64, 100);
    g_assert_cmpuint(c.f.fw.cdm.threadgroups, ==, 2);
    fake_free(&c.f);
}

/* shaders=off: the job retires and nothing is written */
static void test_shaders_off(void)
{
    Cdm c;
    const uint32_t global[3] = { 100, 1, 1 }, local[3] = { 32, 1, 1 };

    cdm_init(&c, AGX_FW_V13_5);
    c.f.fw.shaders_off = true;
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    grid_shader(&c, CODE, 0);
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, global, local));
    cdm_submit(&c);
    fake_run(&c.f, 100);
    g_assert_true(cdm_retired(&c));
    check_grid(&c, BUF, 0, 200);
    g_assert_cmpuint(c.f.fw.cdm.launches, ==, 0);
    fake_free(&c.f);
}

/*
 * The preamble runs once before the threadgroups: it replaces the buffer
 * address the Uniform word loaded with BUF2's, through uniform_store
 */
static void test_preamble(const void *opaque)
{
    Cdm c;
    const uint32_t global[3] = { 64, 1, 1 }, local[3] = { 16, 1, 1 };
    uint64_t code = CODE_PREAMBLE, b2 = USER_VA + BUF2;

    cdm_init(&c, GPOINTER_TO_INT(opaque));
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(&c, PIPE, UNIFORMS, 2, 0, true);
    grid_shader(&c, CODE, 2);
    for (int i = 0; i < 4; i++) {
        code += agx_cmd_op_mov_imm16(at_ptr(&c, code), i, b2 >> (16 * i));
    }
    code += agx_cmd_op_uniform_store4(at_ptr(&c, code), 0, 4);
    agx_cmd_op_stop(at_ptr(&c, code));
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, global, local));
    cdm_submit(&c);
    fake_run(&c.f, 100);

    g_assert_true(cdm_retired(&c));
    check_grid(&c, BUF2, 64, 128);
    check_grid(&c, BUF, 0, 128);
    fake_free(&c.f);
}

/*
 * Links: the stream calls a sub-stream (Link with return) holding the
 * first launch, which returns; then a plain Link to a second segment with
 * the second launch and the Terminate
 */
static void test_links(const void *opaque)
{
    Cdm c;
    const uint32_t g1[3] = { 40, 1, 1 }, g2[3] = { 70, 1, 1 };
    const uint32_t local[3] = { 8, 1, 1 };
    uint64_t at;

    cdm_init(&c, GPOINTER_TO_INT(opaque));
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    apple_st64(vm(&c, UNIFORMS + 8), USER_VA + BUF2);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    grid_pipeline(&c, PIPE2, UNIFORMS + 8, 0, 0, false);
    grid_shader(&c, CODE, 0);

    at = link(&c, STREAM, USER_VA + STREAM2, true);
    at = barrier(&c, at);
    link(&c, at, USER_VA + STREAM2 + 0x100, false);
    at = launch(&c, STREAM2, 0x1202, PIPE - CODE, g1, local);
    stream_return(&c, barrier(&c, at));
    at = launch(&c, STREAM2 + 0x100, 0x1202, PIPE2 - CODE, g2, local);
    terminate(&c, barrier(&c, at));
    cdm_submit(&c);
    fake_run(&c.f, 100);

    g_assert_true(cdm_retired(&c));
    check_grid(&c, BUF, 40, 100);
    check_grid(&c, BUF2, 70, 100);
    g_assert_cmpuint(c.f.fw.cdm.launches, ==, 2);
    g_assert_cmpuint(c.f.fw.cdm.threadgroups, ==, 5 + 9);
    fake_free(&c.f);
}

/*
 * 40-bit addresses (Uniform word, Stream Link) with bit 39 set are the
 * upper half's: the uniforms and a sub-stream live there
 */
static void test_upper_half(void)
{
    const uint64_t upper = 0xffffffb000000000ULL;
    const uint32_t global[3] = { 50, 1, 1 }, local[3] = { 10, 1, 1 };
    uint64_t kva, at;
    uint8_t *p;
    Cdm c;

    cdm_init(&c, AGX_FW_V13_5);
    kva = fake_alloc(&c.f, 0x4000);
    fake_map_gpu(&c.f, VM_SLOT, upper, kva, 0x4000, true);
    p = fake_ptr_n(&c.f, kva, 0x100);
    apple_st64(p, USER_VA + BUF);
    at = 0x10 + agx_cmd_cdm_launch(p + 0x10, 0x1202, PIPE - CODE, global,
                                   local);
    agx_cmd_cdm_return(p + at);
    agx_cmd_grid_pipeline(at_ptr(&c, PIPE), upper, 0, 0, -1);
    grid_shader(&c, CODE, 0);
    at = link(&c, STREAM, upper + 0x10, true);
    terminate(&c, at);
    cdm_submit(&c);
    fake_run(&c.f, 100);

    g_assert_true(cdm_retired(&c));
    check_grid(&c, BUF, 50, 100);
    fake_free(&c.f);
}

/*
 * Indirect grids: global (the buffer holds threadgroup counts, the block
 * the local size) and local (the buffer holds both sizes, in threads)
 */
static void test_indirect(const void *opaque)
{
    Cdm c;
    uint64_t at, ind = USER_VA + INDIRECT;

    cdm_init(&c, GPOINTER_TO_INT(opaque));
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    apple_st64(vm(&c, UNIFORMS + 8), USER_VA + BUF2);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    grid_pipeline(&c, PIPE2, UNIFORMS + 8, 0, 0, false);
    grid_shader(&c, CODE, 0);
    /* 5 threadgroups of 12 threads */
    put32(&c, INDIRECT, 5);
    put32(&c, INDIRECT + 4, 1);
    put32(&c, INDIRECT + 8, 1);
    /* 50 threads in threadgroups of 16 */
    put32(&c, INDIRECT + 12, 50);
    put32(&c, INDIRECT + 16, 1);
    put32(&c, INDIRECT + 20, 1);
    put32(&c, INDIRECT + 24, 16);
    put32(&c, INDIRECT + 28, 1);
    put32(&c, INDIRECT + 32, 1);

    at = STREAM;
    put32(&c, at, 0x1202 | 1 << 27);
    put32(&c, at + 4, PIPE - CODE);
    put32(&c, at + 8, ind >> 32);
    put32(&c, at + 12, (uint32_t)ind);
    put32(&c, at + 16, 12);
    put32(&c, at + 20, 1);
    put32(&c, at + 24, 1);
    at = barrier(&c, at + 28);
    put32(&c, at, 0x1202 | 2 << 27);
    put32(&c, at + 4, PIPE2 - CODE);
    put32(&c, at + 8, (ind + 12) >> 32);
    put32(&c, at + 12, (uint32_t)(ind + 12));
    terminate(&c, barrier(&c, at + 16));
    cdm_submit(&c);
    fake_run(&c.f, 100);

    g_assert_true(cdm_retired(&c));
    check_grid(&c, BUF, 60, 100);
    check_grid(&c, BUF2, 50, 100);
    g_assert_cmpuint(c.f.fw.cdm.threadgroups, ==, 5 + 4);
    fake_free(&c.f);
}

/*
 * A bad stream fails its job as a GPU fault of the compute data master:
 * a guest error, FAULT_INFO naming the unit and the address, a Fault
 * event, the halt; the driver's resume then retires the command
 */
typedef struct BadCase {
    const char *name;
    void (*build)(Cdm *c);
    const char *error;          /* in the guest error; NULL: none */
    uint64_t fault_va;          /* VM offset the fault names */
} BadCase;

static void bad_unknown(Cdm *c)
{
    put32(c, STREAM, 7u << 29);
}

static void bad_loop(Cdm *c)
{
    link(c, STREAM, USER_VA + STREAM2, false);
    link(c, STREAM2, USER_VA + STREAM, false);
}

static void bad_self(Cdm *c)
{
    link(c, STREAM, USER_VA + STREAM, false);
}

static void bad_deep(Cdm *c)
{
    /* Two blocks that call each other: the return stack overflows */
    link(c, STREAM, USER_VA + STREAM2, true);
    link(c, STREAM2, USER_VA + STREAM, true);
}

static void bad_return(Cdm *c)
{
    stream_return(c, barrier(c, STREAM));
}

static void bad_off_the_end(Cdm *c)
{
    /* The last bytes of the VM hold a Barrier: the next block is unmapped */
    barrier(c, USER_SIZE - 4);
    link(c, STREAM, USER_VA + USER_SIZE - 4, false);
}

static void bad_usc_word(Cdm *c)
{
    const uint32_t global[3] = { 1, 1, 1 };

    *at_ptr(c, PIPE) = 0x77;
    terminate(c, launch(c, STREAM, 0x1202, PIPE - CODE, global, one));
}

static void bad_group_size(Cdm *c)
{
    const uint32_t global[3] = { 2048, 1, 1 }, local[3] = { 2048, 1, 1 };

    terminate(c, launch(c, STREAM, 0x1202, PIPE - CODE, global, local));
}

static const BadCase bad_cases[] = {
    { "unknown-block", bad_unknown, "unknown block", STREAM },
    { "link-loop", bad_loop, "a link loop", STREAM },
    { "link-to-itself", bad_self, "to itself", STREAM },
    { "return-stack-overflow", bad_deep, "more than 16 deep", STREAM },
    { "return-without-link", bad_return, "without a Link", STREAM + 4 },
    { "stream-off-mapped-memory", bad_off_the_end, NULL, USER_SIZE },
    { "unknown-usc-word", bad_usc_word, "USC control word 0x77", PIPE },
    { "threadgroup-too-large", bad_group_size, "threads per threadgroup",
      STREAM },
};

static void test_bad(const void *opaque)
{
    const BadCase *bc = opaque;
    Cdm c;
    uint64_t info;

    g_autoptr(GPtrArray) trace = NULL;
    g_autofree char *at = NULL;

    cdm_init(&c, AGX_FW_V13_5);
    trace = cdm_trace(&c);
    bc->build(&c);
    cdm_submit(&c);
    /* A loop takes AGX_CDM_MAX_BLOCKS blocks, in many slices */
    fake_run(&c.f, 5000);

    g_assert_false(fake_crashed(&c.f));
    g_assert_cmpuint(c.f.fault_events, ==, 1);
    g_assert_true(c.f.fw.halted);
    info = c.f.fw.fault_info;
    g_assert_cmphex(info, ==, agx_uat_fault_info(&(AgxUatFault) {
        .va = USER_VA + bc->fault_va, .slot = VM_SLOT,
        .reason = AGX_UAT_FAULT_UNMAPPED,
        .level = AGX_UAT_LEVELS - 1,
    }, 0xa2));
    if (bc->error) {
        g_assert_true(fake_has_error(&c.f, bc->error));
    }
    g_assert_false(cdm_retired(&c));
    g_assert_cmpuint(c.f.fw.cdm.faults, ==, 1);
    /* The last events: the fault at its address, the slice that ends */
    g_assert_cmpuint(trace->len, >=, 2);
    g_assert_true(g_str_has_prefix(trace->pdata[trace->len - 2],
                                   bc->error ? "fault bad stream 0x"
                                             : "fault stream read 0x"));
    at = g_strdup_printf("%" G_GINT64_MODIFIER "x",
                         (uint64_t)(USER_VA + bc->fault_va));
    g_assert_true(g_str_has_suffix(trace->pdata[trace->len - 2], at));
    g_assert_cmpstr(trace->pdata[trace->len - 1], ==, "slice 0 0");
    fake_free(&c.f);
}

/*
 * Shader stores to unmapped memory: dropped with soft faults (the job
 * retires), a GPU fault naming the address with fault_control 0
 */
static void test_soft_faults(void)
{
    for (int soft = 0; soft < 2; soft++) {
        Cdm c;
        const uint32_t global[3] = { 4, 1, 1 };

        cdm_init(&c, AGX_FW_V13_5);
        if (!soft) {
            apple_st32(fake_ptr_n(&c.f, c.f.fw.globals_va +
                                  c.f.fw.abi->gl_fault_control, 4), 0);
        }
        apple_st64(vm(&c, UNIFORMS), 0x2000000000ULL);
        grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
        grid_shader(&c, CODE, 0);
        terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, global, one));
        cdm_submit(&c);
        fake_run(&c.f, 100);
        g_assert_cmpuint(cdm_retired(&c), ==, soft);
        g_assert_cmpuint(c.f.fault_events, ==, !soft);
        if (!soft) {
            g_assert_cmphex(c.f.fw.fault_info, ==,
                            agx_uat_fault_info(&(AgxUatFault) {
                .va = 0x2000000000ULL, .slot = VM_SLOT,
                .reason = AGX_UAT_FAULT_UNMAPPED, .is_write = true,
            }, 0xa2));
        }
        fake_free(&c.f);
    }
}

/* A shader that loops for ever: the job hangs, the watchdog times it out */
static void test_runaway(void)
{
    Cdm c;

    cdm_init(&c, AGX_FW_V13_5);
    c.f.fw.cdm_budget = 5000;
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    agx_cmd_op_jmp_any(at_ptr(&c, CODE), 0);
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, one, one));
    cdm_submit(&c);
    fake_advance(&c.f, 10 * 1000 * 1000);
    g_assert_false(cdm_retired(&c));
    g_assert_true(fake_has_error(&c.f, "it hangs"));
    fake_advance(&c.f, 300 * 1000 * 1000);
    g_assert_cmpuint(c.f.timeout_events, ==, 1);
    g_assert_cmpuint(c.f.fault_events, ==, 0);
    fake_free(&c.f);
}

/* A big dispatch: 2 launches of 3000 threads in threadgroups of 4 */
static void big_dispatch(Cdm *c, AgxFwVersion v, uint64_t slice)
{
    const uint32_t global[3] = { 3000, 1, 1 }, local[3] = { 4, 1, 1 };
    uint64_t at;

    cdm_init(c, v);
    c->f.fw.cdm_slice = slice;
    apple_st64(vm(c, UNIFORMS), USER_VA + BUF);
    apple_st64(vm(c, UNIFORMS + 8), USER_VA + BUF2);
    grid_pipeline(c, PIPE, UNIFORMS, 0, 0, false);
    grid_pipeline(c, PIPE2, UNIFORMS + 8, 0, 0, false);
    grid_shader(c, CODE, 0);
    at = launch(c, STREAM, 0x1202, PIPE - CODE, global, local);
    at = link(c, barrier(c, at), USER_VA + STREAM2, true);
    terminate(c, at);
    at = launch(c, STREAM2, 0x1202, PIPE2 - CODE, global, local);
    stream_return(c, barrier(c, at));
    cdm_submit(c);
}

/*
 * Slices: the same dispatch in one slice and in many small ones leaves
 * the same memory; the job retires only after its last slice
 */
static void test_slices(void)
{
    Cdm one_slice, sliced;

    big_dispatch(&one_slice, AGX_FW_V13_5, 1 << 30);
    fake_run(&one_slice.f, 1000);
    g_assert_true(cdm_retired(&one_slice));
    g_assert_cmpuint(one_slice.f.fw.cdm.slices, ==, 1);

    big_dispatch(&sliced, AGX_FW_V13_5, 500);
    /* The first slice comes when the job's work is due, then more */
    fake_advance(&sliced.f, AGX_FW_DEFAULT_JOB_NS + 3 * AGX_CDM_SLICE_NS);
    g_assert_true(sliced.f.fw.cdm.active);
    g_assert_cmpuint(sliced.f.fw.cdm.slices, ==, 4);
    g_assert_false(cdm_retired(&sliced));
    fake_run(&sliced.f, 10000);
    g_assert_true(cdm_retired(&sliced));
    g_assert_cmpuint(sliced.f.fw.cdm.slices, >=, 12);
    g_assert_cmpuint(sliced.f.fw.cdm.threadgroups, ==, 1500);

    g_assert_cmpmem(vm(&one_slice, BUF), CODE - BUF,
                    fake_ptr_n(&sliced.f, sliced.kva + BUF, CODE - BUF),
                    CODE - BUF);
    check_grid(&sliced, BUF, 3000, 3100);
    check_grid(&sliced, BUF2, 3000, 3100);
    fake_free(&one_slice.f);
    fake_free(&sliced.f);
}

/*
 * Migration mid-dispatch: the data master's state (AgxCdm) is all an
 * in-flight dispatch has outside guest memory.  Stop the sliced dispatch
 * inside the called sub-stream, move that state through a copy (the
 * migration stream) while the live one is scrambled, check it as an
 * incoming migration does, and go on: the memory is the one-slice run's.
 */
static void test_migrate(const void *opaque)
{
    Cdm ref, c;
    AgxCdm saved;

    big_dispatch(&ref, GPOINTER_TO_INT(opaque), 1 << 30);
    fake_run(&ref.f, 1000);
    big_dispatch(&c, GPOINTER_TO_INT(opaque), 300);
    for (int i = 0; i < 1000 && (!c.f.fw.cdm.depth || !c.f.fw.cdm.in_launch ||
                                 !c.f.fw.cdm.next_group); i++) {
        fake_advance(&c.f, AGX_CDM_SLICE_NS);
    }
    g_assert_cmpuint(c.f.fw.cdm.depth, ==, 1);
    g_assert_true(c.f.fw.cdm.in_launch);
    g_assert_cmpuint(c.f.fw.cdm.next_group, >, 0);

    saved = c.f.fw.cdm;
    memset(&c.f.fw.cdm, 0x5a, sizeof(c.f.fw.cdm));
    c.f.fw.cdm = saved;
    g_assert_null(agx_fw_post_load(&c.f.fw));
    fake_run(&c.f, 10000);

    g_assert_true(cdm_retired(&c));
    g_assert_cmpmem(vm(&ref, BUF), CODE - BUF,
                    fake_ptr_n(&c.f, c.kva + BUF, CODE - BUF), CODE - BUF);
    fake_free(&ref.f);
    fake_free(&c.f);
}

/* An incoming state out of range is refused */
static void test_migrate_rejects(void)
{
    Cdm c;

    big_dispatch(&c, AGX_FW_V13_5, 300);
    fake_advance(&c.f, AGX_FW_DEFAULT_JOB_NS);
    g_assert_true(c.f.fw.cdm.active);
    c.f.fw.cdm.depth = AGX_CDM_STACK_DEPTH + 1;
    g_assert_nonnull(strstr(agx_fw_post_load(&c.f.fw) ?: "", "stack"));
    c.f.fw.cdm.depth = 0;
    c.f.fw.cdm.next_group = 1ULL << 40;
    g_assert_nonnull(strstr(agx_fw_post_load(&c.f.fw) ?: "", "launch"));
    fake_free(&c.f);
}

/*
 * Resumable threadgroups: a shader whose thread x loops LONG_ITERS + x
 * times (the lanes of a SIMD-group leave the loop one by one) folding
 * x and the counter into r4, then stores it at buf[x]; two threadgroups
 * of 32 threads run about 1,000,000 instructions, far beyond a slice
 */
#define LONG_ITERS      100000
#define LONG_THREADS    64

static void long_shader(Cdm *c, uint64_t code)
{
    Asm *a = g_new0(Asm, 1);
    uint32_t body;

    get_sr(a, 1, SR_GRID_X);
    mov_imm32(a, 2, 0);
    mov_imm32(a, 3, LONG_ITERS);
    iadd(a, D32(3), R32(3), R32(1), false, 0, false);
    mov_imm32(a, 4, 1);
    PUSH_EXEC(a, 1);
    body = a->n;
    imad(a, D32(4), R32(4), R32(1), R32(2), false, 0);
    bitop(a, D32(4), R32(4), R32(2), 0x6);
    iadd(a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(a, 1, 1, false, R32(2), R32(3));
    jmp(a, false, body - a->n);
    pop_exec(a, 1);
    memcpy(at_ptr(c, code), a->b, a->n);
    code += a->n;
    code += agx_cmd_op_store32(at_ptr(c, code), 4, 0, 1);
    agx_cmd_op_stop(at_ptr(c, code));
    g_free(a);
}

/* The CPU's reference for thread @x */
static uint32_t long_reference(uint32_t x)
{
    uint32_t acc = 1, i = 0;

    do {
        acc = acc * x + i;
        acc ^= i;
        i++;
    } while (i < LONG_ITERS + x);
    return acc;
}

static void long_dispatch(Cdm *c, uint64_t slice)
{
    const uint32_t global[3] = { LONG_THREADS, 1, 1 };
    const uint32_t local[3] = { 32, 1, 1 };

    cdm_init(c, AGX_FW_V13_5);
    c->f.fw.cdm_slice = slice;
    apple_st64(vm(c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(c, PIPE, UNIFORMS, 0, 0, false);
    long_shader(c, CODE);
    terminate(c, launch(c, STREAM, 0x1202, PIPE - CODE, global, local));
    cdm_submit(c);
}

static void check_long(Cdm *c)
{
    g_assert_true(cdm_retired(c));
    g_assert_cmpuint(c->f.fault_events, ==, 0);
    g_assert_cmpuint(c->f.timeout_events, ==, 0);
    g_assert_cmpuint(c->f.fw.cdm.threadgroups, ==, LONG_THREADS / 32);
    for (uint32_t x = 0; x < LONG_THREADS + 4; x++) {
        g_assert_cmphex(get32(c, BUF + 4 * x), ==,
                        x < LONG_THREADS ? long_reference(x) : POISON);
    }
}

/*
 * A threadgroup of about 500,000 instructions runs in dozens of slices
 * of the default size, suspended and resumed in its middle each time,
 * and writes what it writes in one slice (and what the CPU computes)
 */
static void test_resume_long(void)
{
    Cdm ref, c;

    long_dispatch(&ref, 1ULL << 30);
    fake_run(&ref.f, 1000);
    check_long(&ref);
    g_assert_cmpuint(ref.f.fw.cdm.slices, ==, 1);
    g_assert_cmpuint(ref.f.fw.cdm.suspensions, ==, 0);

    long_dispatch(&c, 0);
    fake_run(&c.f, 100000);
    check_long(&c);
    g_assert_cmpuint(c.f.fw.cdm.suspensions, >=, 25);
    g_assert_cmpuint(c.f.fw.cdm.slices, ==, c.f.fw.cdm.suspensions + 1);
    g_assert_null(c.f.fw.cdm.tg.simd);
    g_assert_cmpmem(vm(&ref, BUF), 4 * 128, vm(&c, BUF), 4 * 128);
    fake_free(&ref.f);
    fake_free(&c.f);
}

/* The suspension trace event: the threadgroup and how far it got */
static void rec_cdm_suspend(void *opaque, uint64_t cmd, uint64_t group,
                            uint64_t insns)
{
    rec_add(opaque, g_strdup_printf("suspend %" G_GUINT64_FORMAT " %"
                                    G_GUINT64_FORMAT, group, insns));
}

static const AgxTraceOps rec_suspend_ops = {
    .cdm_suspend = rec_cdm_suspend,
};

static void test_resume_traced(void)
{
    g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
    Cdm c;
    uint64_t last = 0;

    long_dispatch(&c, 50000);
    agx_fw_set_trace(&c.f.fw, &rec_suspend_ops, lines);
    fake_run(&c.f, 100000);
    check_long(&c);
    g_assert_cmpuint(lines->len, ==, c.f.fw.cdm.suspensions);
    g_assert_cmpuint(lines->len, >=, 10);
    /*
     * threadgroup 0 suspended after a slice (less the block costs),
     * getting further each time, then threadgroup 1
     */
    g_assert_true(g_str_has_prefix(lines->pdata[0], "suspend 0 499"));
    for (guint i = 0; i < lines->len; i++) {
        unsigned group;
        uint64_t insns;

        g_assert_cmpint(sscanf(lines->pdata[i], "suspend %u %"
                               G_GUINT64_FORMAT, &group, &insns), ==, 2);
        g_assert_cmpuint(group, <=, 1);
        g_assert_true(insns > last || (group == 1 && insns < last));
        last = insns;
    }
    g_assert_cmpstr(lines->pdata[lines->len - 1], !=, lines->pdata[0]);
    agx_fw_set_trace(&c.f.fw, NULL, NULL);
    fake_free(&c.f);
}

/*
 * A threadgroup that never ends is stopped at its own limit, counted
 * across the slices it was suspended in: the job hangs, as before
 */
static void test_resume_runaway(void)
{
    Cdm c;

    cdm_init(&c, AGX_FW_V13_5);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    agx_cmd_op_jmp_any(at_ptr(&c, CODE), 0);
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, one, one));
    cdm_submit(&c);
    fake_advance(&c.f, AGX_FW_DEFAULT_JOB_NS + 100 * AGX_CDM_SLICE_NS);
    g_assert_cmpuint(c.f.fw.cdm.suspensions, >=, 100);
    g_assert_false(fake_has_error(&c.f, "it hangs"));
    fake_advance(&c.f, 10 * 1000 * 1000);
    g_assert_true(fake_has_error(&c.f, "it hangs"));
    g_assert_false(c.f.fw.cdm.active);
    g_assert_null(c.f.fw.cdm.tg.simd);
    /* its slices ran the threadgroup's limit, no more */
    g_assert_cmpuint(c.f.fw.cdm.suspensions, <=,
                     AGX_CDM_GROUP_BUDGET / AGX_CDM_SLICE_BUDGET);
    g_assert_false(cdm_retired(&c));
    fake_free(&c.f);
}

/*
 * A preamble that never ends (it runs in slices, once) is stopped at its
 * own, smaller limit: the job hangs, the main program never ran
 */
static void test_preamble_runaway(void)
{
    Cdm c;

    cdm_init(&c, AGX_FW_V13_5);
    apple_st64(vm(&c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, true);
    grid_shader(&c, CODE, 0);
    agx_cmd_op_jmp_any(at_ptr(&c, CODE_PREAMBLE), 0);
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, one, one));
    cdm_submit(&c);
    fake_advance(&c.f, AGX_FW_DEFAULT_JOB_NS + 100 * AGX_CDM_SLICE_NS);
    g_assert_false(c.f.fw.cdm.active);
    g_assert_false(c.f.fw.cdm.in_preamble);
    g_assert_null(c.f.fw.cdm.tg.simd);
    fake_advance(&c.f, 10 * 1000 * 1000);
    g_assert_true(fake_has_error(&c.f, "it hangs"));
    /* its slices ran the preamble's limit, no more */
    g_assert_cmpuint(c.f.fw.cdm.suspensions, >=,
                     AGX_CDM_PREAMBLE_BUDGET / AGX_CDM_SLICE_BUDGET - 1);
    g_assert_cmpuint(c.f.fw.cdm.slices, ==, c.f.fw.cdm.suspensions + 1);
    g_assert_cmpuint(c.f.fw.cdm.threadgroups, ==, 0);
    g_assert_cmpuint(c.f.fw.cdm.budget, ==,
                     AGX_CDM_JOB_BUDGET - AGX_CDM_PREAMBLE_BUDGET);
    check_grid(&c, BUF, 0, 4);
    fake_free(&c.f);
}

/*
 * A looping preamble: one lane folds PRE_X and the counter into r4
 * PRE_ITERS times, stores it at buf[PRE_AT] through the buffer address
 * the Uniform word loaded, then replaces that address with BUF2's
 * (uniform_store), where the threadgroups write their grid
 */
#define PRE_ITERS       20000
#define PRE_X           0x9e3779b9u
#define PRE_AT          200

static void long_preamble(Cdm *c, uint64_t code)
{
    Asm *a = g_new0(Asm, 1);
    uint64_t b2 = USER_VA + BUF2;
    uint32_t body;

    mov_imm32(a, 1, PRE_X);
    mov_imm32(a, 2, 0);
    mov_imm32(a, 3, PRE_ITERS);
    mov_imm32(a, 4, 1);
    mov_imm32(a, 5, PRE_AT);
    PUSH_EXEC(a, 1);
    body = a->n;
    imad(a, D32(4), R32(4), R32(1), R32(2), false, 0);
    bitop(a, D32(4), R32(4), R32(2), 0x6);
    iadd(a, D32(2), R32(2), IMM(1), false, 0, false);
    WHILE_ICMP(a, 1, 1, false, R32(2), R32(3));
    jmp(a, false, body - a->n);
    pop_exec(a, 1);
    memcpy(at_ptr(c, code), a->b, a->n);
    code += a->n;
    code += agx_cmd_op_store32(at_ptr(c, code), 4, 2, 5);
    for (int i = 0; i < 4; i++) {
        code += agx_cmd_op_mov_imm16(at_ptr(c, code), i, b2 >> (16 * i));
    }
    code += agx_cmd_op_uniform_store4(at_ptr(c, code), 0, 4);
    agx_cmd_op_stop(at_ptr(c, code));
    g_free(a);
}

/* The CPU's reference of what the preamble stores */
static uint32_t preamble_reference(void)
{
    uint32_t acc = 1;

    for (uint32_t i = 0; i < PRE_ITERS; i++) {
        acc = acc * PRE_X + i;
        acc ^= i;
    }
    return acc;
}

static void preamble_dispatch(Cdm *c, uint64_t slice)
{
    const uint32_t global[3] = { 64, 1, 1 }, local[3] = { 16, 1, 1 };

    cdm_init(c, AGX_FW_V13_5);
    c->f.fw.cdm_slice = slice;
    apple_st64(vm(c, UNIFORMS), USER_VA + BUF);
    grid_pipeline(c, PIPE, UNIFORMS, 2, 0, true);
    grid_shader(c, CODE, 2);
    long_preamble(c, CODE_PREAMBLE);
    terminate(c, launch(c, STREAM, 0x1202, PIPE - CODE, global, local));
    cdm_submit(c);
}

static void check_preamble(Cdm *c)
{
    g_assert_true(cdm_retired(c));
    g_assert_cmpuint(c->f.fault_events, ==, 0);
    g_assert_cmpuint(c->f.timeout_events, ==, 0);
    g_assert_false(c->f.fw.cdm.in_preamble);
    g_assert_null(c->f.fw.cdm.tg.simd);
    g_assert_cmpuint(c->f.fw.cdm.threadgroups, ==, 4);
    for (uint32_t i = 0; i < 256; i++) {
        g_assert_cmphex(get32(c, BUF + 4 * i), ==,
                        i == PRE_AT ? preamble_reference() : POISON);
    }
    check_grid(c, BUF2, 64, 128);
}

/*
 * A preamble of about 100,000 instructions runs in slices of 1, 5 and 9
 * instructions (and the default's), suspended and resumed in its middle
 * each time, and writes what it writes in one slice (and what the CPU
 * computes); the threadgroups see its uniform store
 */
static void test_preamble_slices(void)
{
    static const uint64_t slices[] = { 1, 5, 9, 0 };
    Cdm ref;

    preamble_dispatch(&ref, 1ULL << 30);
    fake_run(&ref.f, 1000);
    check_preamble(&ref);
    g_assert_cmpuint(ref.f.fw.cdm.slices, ==, 1);
    g_assert_cmpuint(ref.f.fw.cdm.suspensions, ==, 0);
    for (size_t k = 0; k < G_N_ELEMENTS(slices); k++) {
        Cdm c;

        preamble_dispatch(&c, slices[k]);
        fake_run(&c.f, 10000000);
        check_preamble(&c);
        g_assert_cmpuint(c.f.fw.cdm.suspensions, >=,
                         slices[k] ? 100000 / (slices[k] + 2) / 2 : 2);
        g_assert_cmpmem(vm(&ref, BUF), 4 * 256, vm(&c, BUF), 4 * 256);
        g_assert_cmpmem(vm(&ref, BUF2), 4 * 128, vm(&c, BUF2), 4 * 128);
        fake_free(&c.f);
    }
    fake_free(&ref.f);
}

/*
 * What a migration does to a suspended threadgroup: each buffer is
 * copied through the stream (sizes first; empty ones not allocated) and
 * the program is not, so the destination decodes it again
 */
static void migrate_tg(AgxUscThreadgroup *t)
{
    AgxUscThreadgroup in = *t;

    in.simd = g_new(AgxUscSimd, t->nsimd);
    for (int32_t k = 0; k < t->nsimd; k++) {
        AgxUscSimd *s = &in.simd[k];

        /* what the stream does not carry is garbage on arrival */
        memset(s, 0x5a, sizeof(*s));
        s->nr = t->simd[k].nr;
        s->r = g_memdup2(t->simd[k].r, 4 * s->nr);
        s->exec = t->simd[k].exec;
        s->launched = t->simd[k].launched;
        s->index = t->simd[k].index;
        s->pc = t->simd[k].pc;
        s->state = t->simd[k].state;
        s->nstack = t->simd[k].nstack;
        if (s->nstack) {
            s->stack = g_memdup2(t->simd[k].stack, s->nstack);
        }
        s->stack_cap = t->simd[k].stack_cap;
        s->sp = t->simd[k].sp;
        s->base_cap = t->simd[k].base_cap;
    }
    in.shared = t->nshared ? g_memdup2(t->shared, t->nshared) : NULL;
    in.tile = t->ntile ? g_memdup2(t->tile, t->ntile) : NULL;
    in.tex_state = t->ntex_state ?
                   g_memdup2(t->tex_state, 8 * t->ntex_state) : NULL;
    in.sampler_state = t->nsampler_state ?
                       g_memdup2(t->sampler_state, 8 * t->nsampler_state) :
                       NULL;
    in.prog = (void *)0x5a5a5a5a;
    agx_usc_tg_free(t);
    *t = in;
    agx_usc_tg_loaded(t);
}

/*
 * Migration in the middle of a threadgroup (its SIMD-groups halfway
 * through their loop, lanes gone from it): the destination resumes it
 * and writes what an unmigrated run writes, in the same slices
 */
static void test_resume_migrate(void)
{
    Cdm ref, c;
    AgxCdm saved;
    uint64_t slices;

    /* unmigrated, in the same slices */
    long_dispatch(&ref, 0);
    fake_run(&ref.f, 100000);
    check_long(&ref);
    slices = ref.f.fw.cdm.slices;
    long_dispatch(&c, 0);
    for (int i = 0; i < 100000 && c.f.fw.cdm.suspensions < 20; i++) {
        fake_advance(&c.f, AGX_CDM_SLICE_NS);
    }
    g_assert_cmpuint(c.f.fw.cdm.tg.nsimd, ==, 1);
    g_assert_cmpuint(c.f.fw.cdm.tg.simd[0].pc, >, 0);

    migrate_tg(&c.f.fw.cdm.tg);
    saved = c.f.fw.cdm;
    memset(&c.f.fw.cdm, 0x5a, sizeof(c.f.fw.cdm));
    c.f.fw.cdm = saved;
    g_assert_null(agx_fw_post_load(&c.f.fw));
    fake_run(&c.f, 100000);
    check_long(&c);
    g_assert_cmpmem(vm(&ref, BUF), 4 * 128, vm(&c, BUF), 4 * 128);
    /* it went on where it was: the slices end where they would have */
    g_assert_cmpuint(c.f.fw.cdm.slices, ==, slices);
    fake_free(&ref.f);
    fake_free(&c.f);
}

/* A suspended threadgroup that does not fit its launch is refused */
static void test_resume_migrate_rejects(void)
{
    Cdm c;
    AgxUscThreadgroup *t = &c.f.fw.cdm.tg;

    long_dispatch(&c, 0);
    fake_advance(&c.f, AGX_FW_DEFAULT_JOB_NS + 10 * AGX_CDM_SLICE_NS);
    g_assert_cmpuint(t->nsimd, ==, 1);
    g_assert_null(agx_fw_post_load(&c.f.fw));
#define REJECTS(field, bad, why) do {                                   \
        typeof(field) keep = field;                                     \
                                                                        \
        field = bad;                                                    \
        g_assert_nonnull(strstr(agx_fw_post_load(&c.f.fw) ?: "", why)); \
        field = keep;                                                   \
    } while (0)
    REJECTS(t->nsimd, 2, "SIMD-groups");
    REJECTS(t->cur, 1, "SIMD-groups");
    REJECTS(t->nshared, 16, "memory");
    REJECTS(t->used, t->limit + 1, "memory");
    REJECTS(t->limit, AGX_CDM_GROUP_BUDGET + 1, "limit");
    REJECTS(t->ntex_state, 3, "memory");
    REJECTS(t->simd[0].nr, 4, "SIMD-group");
    REJECTS(t->simd[0].pc, -1, "SIMD-group");
    REJECTS(t->simd[0].state, 7, "SIMD-group");
    REJECTS(t->simd[0].index, 1, "SIMD-group");
    REJECTS(t->simd[0].sp, 64, "SIMD-group");
    REJECTS(t->simd[0].stack_cap, 1u << 20, "SIMD-group");
    REJECTS(c.f.fw.cdm.in_launch, false, "without a launch");
#undef REJECTS
    g_assert_null(agx_fw_post_load(&c.f.fw));
    fake_free(&c.f);
}

/*
 * Migration in the middle of a preamble: the destination resumes it
 * (its state dropped as the stream drops it) and writes what an
 * unmigrated run writes, in the same slices; a preamble in flight that
 * does not fit its launch is refused
 */
static void test_preamble_migrate(void)
{
    Cdm ref, c;
    AgxCdm saved;
    uint64_t slices;
    AgxUscThreadgroup *t = &c.f.fw.cdm.tg;

    preamble_dispatch(&ref, 0);
    fake_run(&ref.f, 100000);
    check_preamble(&ref);
    slices = ref.f.fw.cdm.slices;
    preamble_dispatch(&c, 0);
    for (int i = 0; i < 100000 && c.f.fw.cdm.suspensions < 2; i++) {
        fake_advance(&c.f, AGX_CDM_SLICE_NS);
    }
    g_assert_true(c.f.fw.cdm.in_preamble);
    g_assert_cmpuint(t->nsimd, ==, 1);
    g_assert_cmpuint(t->simd[0].pc, >, 0);
    g_assert_null(agx_fw_post_load(&c.f.fw));
#define REJECTS(field, bad, why) do {                                   \
        typeof(field) keep = field;                                     \
                                                                        \
        field = bad;                                                    \
        g_assert_nonnull(strstr(agx_fw_post_load(&c.f.fw) ?: "", why)); \
        field = keep;                                                   \
    } while (0)
    REJECTS(t->limit, AGX_CDM_PREAMBLE_BUDGET + 1, "preamble");
    REJECTS(t->nshared, 16, "preamble");
    REJECTS(t->simd[0].launched, 2, "preamble");
    REJECTS(t->simd[0].nr, 4, "SIMD-group");
    REJECTS(c.f.fw.cdm.launch.has_preamble, false, "preamble");
    REJECTS(c.f.fw.cdm.in_launch, false, "without a launch");
    REJECTS(t->nsimd, 0, "preamble");
#undef REJECTS

    migrate_tg(t);
    saved = c.f.fw.cdm;
    memset(&c.f.fw.cdm, 0x5a, sizeof(c.f.fw.cdm));
    c.f.fw.cdm = saved;
    g_assert_null(agx_fw_post_load(&c.f.fw));
    fake_run(&c.f, 100000);
    check_preamble(&c);
    g_assert_cmpmem(vm(&ref, BUF), 4 * 256, vm(&c, BUF), 4 * 256);
    g_assert_cmpmem(vm(&ref, BUF2), 4 * 128, vm(&c, BUF2), 4 * 128);
    g_assert_cmpuint(c.f.fw.cdm.slices, ==, slices);
    fake_free(&ref.f);
    fake_free(&c.f);
}

/*
 * Perf (-m perf): the host time of each slice of a dispatch of 8192
 * threadgroups of 256 threads, as the firmware timer runs them
 */
static void test_perf_slices(void)
{
    const uint32_t global[3] = { 8192 * 256, 1, 1 };
    const uint32_t local[3] = { 256, 1, 1 };
    Cdm c;
    int64_t worst = 0, total = 0, n = 0;
    uint64_t lanes = agx_usc_lane_insns(), out;

    cdm_init(&c, AGX_FW_V13_5);
    /* An 8 MiB buffer of its own, one u32 per thread */
    out = fake_alloc(&c.f, 4 * global[0]);
    fake_map_gpu(&c.f, VM_SLOT, PERF_VA, out, 4 * global[0], true);
    apple_st64(vm(&c, UNIFORMS), PERF_VA);
    grid_pipeline(&c, PIPE, UNIFORMS, 0, 0, false);
    grid_shader(&c, CODE, 0);
    terminate(&c, launch(&c, STREAM, 0x1202, PIPE - CODE, global, local));
    cdm_submit(&c);
    fake_advance(&c.f, AGX_FW_DEFAULT_JOB_NS - 1);
    while (!cdm_retired(&c) && n < 100000) {
        int64_t t0 = g_get_monotonic_time(), dt;

        fake_advance(&c.f, AGX_CDM_SLICE_NS);
        dt = g_get_monotonic_time() - t0;
        worst = MAX(worst, dt);
        total += dt;
        n++;
    }
    g_assert_true(cdm_retired(&c));
    g_assert_cmphex(fake_ld32(&c.f, out + 4 * 1234567), ==, 1234567);
    g_test_message("%" G_GINT64_FORMAT " slices, worst %" G_GINT64_FORMAT
                   " us, mean %" G_GINT64_FORMAT " us; %" G_GUINT64_FORMAT
                   " lane instructions, %.1f M/s", n, worst, total / n,
                   agx_usc_lane_insns() - lanes,
                   (agx_usc_lane_insns() - lanes) / (double)MAX(total, 1));
    g_test_maximized_result(worst, "worst slice %" G_GINT64_FORMAT " us",
                            worst);
    fake_free(&c.f);
}

static void add_both(const char *path, GTestDataFunc fn)
{
    g_autofree char *a = g_strdup_printf("/cdm/13.5/%s", path);
    g_autofree char *b = g_strdup_printf("/cdm/12.3/%s", path);

    g_test_add_data_func(a, GINT_TO_POINTER(AGX_FW_V13_5), fn);
    g_test_add_data_func(b, GINT_TO_POINTER(AGX_FW_V12_3), fn);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    add_both("direct/threadgroups-write-the-grid", test_direct);
    add_both("preamble/sets-uniforms-before-the-threadgroups",
             test_preamble);
    add_both("link/call-return-and-chain", test_links);
    add_both("indirect/global-and-local-grids", test_indirect);
    add_both("migrate/mid-dispatch-state-moves-and-resumes", test_migrate);
    g_test_add_func("/cdm/shaders-off/job-retires-writing-nothing",
                    test_shaders_off);
    g_test_add_func("/cdm/empty-launch/runs-and-reads-nothing",
                    test_empty_launch);
    g_test_add_func("/cdm/unimplemented/ends-the-launch-not-the-job",
                    test_unimplemented);
    g_test_add_func("/cdm/upper-half/40-bit-addresses-sign-extend",
                    test_upper_half);
    for (int i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
        g_autofree char *p = g_strdup_printf("/cdm/bad-stream/%s/faults-job",
                                             bad_cases[i].name);

        g_test_add_data_func(p, &bad_cases[i], test_bad);
    }
    g_test_add_func("/cdm/soft-faults/stores-dropped-or-fault",
                    test_soft_faults);
    g_test_add_func("/cdm/runaway/times-out", test_runaway);
    g_test_add_func("/cdm/slices/same-memory-as-one-slice", test_slices);
    g_test_add_func("/cdm/migrate/out-of-range-rejected",
                    test_migrate_rejects);
    g_test_add_func("/cdm/resume/long-threadgroup-same-as-one-slice",
                    test_resume_long);
    g_test_add_func("/cdm/resume/suspensions-traced", test_resume_traced);
    g_test_add_func("/cdm/resume/runaway-stops-at-group-limit",
                    test_resume_runaway);
    g_test_add_func("/cdm/preamble/slices-same-as-one-and-the-cpu",
                    test_preamble_slices);
    g_test_add_func("/cdm/preamble/migrate-mid-preamble",
                    test_preamble_migrate);
    g_test_add_func("/cdm/preamble/runaway-stops-at-its-limit",
                    test_preamble_runaway);
    g_test_add_func("/cdm/resume/migrate-mid-threadgroup",
                    test_resume_migrate);
    g_test_add_func("/cdm/resume/migrate-out-of-range-rejected",
                    test_resume_migrate_rejects);
    if (g_test_perf()) {
        g_test_add_func("/cdm/perf/slice-host-time", test_perf_slices);
    }
    return g_test_run();
}
