/*
 * Unit tests for the tiled vertex buffer manager: InitBuffer binds a
 * buffer-manager slot, an injected overflow raises GrowTVB and holds the
 * vertex job until GrowTVBAck (or the watchdog), the grown block count is
 * read from Info and BlockControl
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "agx-fake.h"
#include "unit-helpers.h"

#define BUF_SLOT        3
#define EV_SLOT         5

typedef struct Fixture {
    Fake f;
    FakeQueue vtx;
    uint64_t info_va;
    uint64_t ctl_va;
} Fixture;

/* What the StartVertex ops of the next vertex jobs name */
static uint32_t sv_slot;
static uint64_t sv_buffer;

static void patch_start_vertex(uint8_t *useq, uint32_t *size)
{
    apple_st64(useq + AGX_OP_START_VERTEX_BUFFER, sv_buffer);
    apple_st32(useq + AGX_OP_START_VERTEX_BUFFER_SLOT, sv_slot);
}

static void fx_setup(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    const AgxJobAbi *ja;

    fake_init(f, data ? AGX_FW_V12_3 : AGX_FW_V13_5);
    ja = f->fw.job_abi;
    fake_queue_init(f, &fx->vtx, AGX_PIPE_VERTEX, 0, EV_SLOT);
    /* The driver's Buffer: Info and BlockControl, 8 blocks */
    fx->info_va = fake_alloc(f, 0xc0);
    fx->ctl_va = fake_alloc(f, 0x40);
    apple_st32(fake_ptr(f, fx->info_va + ja->bi_block_count), 8);
    apple_st64(fake_ptr(f, fx->info_va + ja->bi_block_ctl), fx->ctl_va);
    apple_st32(fake_ptr(f, fx->ctl_va + AGX_BUFFER_BLOCK_CONTROL_TOTAL), 8);
    sv_slot = BUF_SLOT;
    sv_buffer = fx->info_va;
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    fake_free(&fx->f);
}

/* InitBuffer {vm_slot 0, buffer_slot, block_count, buffer} on the queue */
static void add_init_buffer(Fixture *fx, uint32_t slot, uint32_t blocks)
{
    Fake *f = &fx->f;
    FakeQueue *q = &fx->vtx;
    uint64_t blk = fake_alloc(f, AGX_INIT_BUFFER_SIZE);
    uint8_t *b = fake_ptr_n(f, blk, AGX_INIT_BUFFER_SIZE);

    apple_st32(b + AGX_INIT_BUFFER_TAG, AGX_CMD_INIT_BUFFER);
    apple_st32(b + AGX_INIT_BUFFER_BUFFER_SLOT, slot);
    apple_st32(b + AGX_INIT_BUFFER_BLOCK_COUNT, blocks);
    apple_st64(b + AGX_INIT_BUFFER_BUFFER, fx->info_va);
    apple_st32(b + AGX_INIT_BUFFER_STAMP_VALUE, q->value + 0x100);
    apple_st64(fake_ptr_n(f, q->ring_va + q->wptr * 8ULL, 8), blk);
    q->wptr = (q->wptr + 1) % AGX_CMD_WQ_SIZE;
}

/*
 * InitBuffer binds BUF_SLOT (8 blocks), then a vertex job on it is
 * kicked, with grow-tvb armed if grow
 */
static void kick_bound_vertex(Fixture *fx, bool grow)
{
    Fake *f = &fx->f;

    add_init_buffer(fx, BUF_SLOT, 8);
    fake_add_run(f, &fx->vtx, patch_start_vertex);
    if (grow) {
        f->fw.inject = AGX_INJECT_GROW_TVB;
    }
    fake_kick(f, &fx->vtx);
}

/* The driver's answer: DeviceControl GrowTVBAck */
static void ack(Fixture *fx, uint32_t slot, uint32_t counter)
{
    uint8_t msg[AGX_DEVICE_CONTROL_MSG_SIZE] = { 0 };
    Fake *f = &fx->f;

    apple_st32(msg, f->fw.abi->dc_grow_tvb_ack);
    apple_st32(msg + AGX_GROW_TVB_ACK_MSG_UNK_4, 1);
    apple_st32(msg + AGX_GROW_TVB_ACK_MSG_BUFFER_SLOT, slot);
    apple_st32(msg + AGX_GROW_TVB_ACK_MSG_COUNTER, counter);
    agx_uat_tlb_begin(&f->fw.uat);
    agx_tvb_grow_ack(&f->fw, msg);
    agx_wq_schedule(&f->fw);
    agx_uat_tlb_end(&f->fw.uat);
}

static void test_init_buffer_binds(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;

    kick_bound_vertex(fx, false);
    fake_run(f, 8);
    g_assert_cmphex(f->fw.tvb.slots[BUF_SLOT].info_va, ==, fx->info_va);
    g_assert_cmphex(f->fw.tvb.slots[BUF_SLOT].gpu_context, ==,
                    fx->vtx.ctx_va);
    g_assert_cmpuint(f->fw.tvb.blocks, ==, 8);
    /* InitBuffer retires nothing; the job after it does */
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_cmpuint(f->fired[EV_SLOT], ==, 1);
    g_assert_cmpuint(f->grow_events, ==, 0);
    g_assert_false(fake_crashed(f));
    g_assert_cmpuint(f->errors->len, ==, 0);
}

static void test_grow_holds_until_ack(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    int64_t t0 = f->now;

    kick_bound_vertex(fx, true);
    fake_advance(f, 1000000);

    /* GrowTVB {vm_slot 0, buffer slot, counter 1}; the job waits */
    g_assert_cmpuint(f->grow_events, ==, 1);
    g_assert_cmpuint(f->rx_doorbells, ==, 1);
    g_assert_cmpuint(apple_ld32(f->last_event), ==, AGX_EVENT_GROW_TVB);
    g_assert_cmpuint(apple_ld32(f->last_event + 4), ==, 0);
    g_assert_cmpuint(apple_ld32(f->last_event + 8), ==, BUF_SLOT);
    g_assert_cmpuint(apple_ld32(f->last_event + 0xc), ==, 1);
    g_assert_cmpuint(f->fw.inject, ==, AGX_INJECT_NONE);
    g_assert_true(f->fw.tvb.pending);
    g_assert_true(f->fw.pipes[AGX_PIPE_VERTEX].busy);
    g_assert_cmpint(f->timer, ==, t0 + AGX_TVB_WATCHDOG_MS * 1000000LL);
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, 0);

    /*
     * The driver's sync grow: +10 blocks in BlockControl, Info untouched
     * while the scene is active
     */
    apple_st32(fake_ptr(f, fx->ctl_va + AGX_BUFFER_BLOCK_CONTROL_TOTAL), 18);
    ack(fx, BUF_SLOT, 1);
    g_assert_false(f->fw.tvb.pending);
    g_assert_cmpuint(f->fw.tvb.grows, ==, 1);
    g_assert_cmpuint(f->fw.tvb.blocks, ==, 18);
    g_assert_cmpint(f->timer, ==, f->now + (int64_t)f->fw.job_ns);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_cmpuint(f->fired[EV_SLOT], ==, 1);
    g_assert_cmpint(f->now, <, t0 + AGX_TVB_WATCHDOG_MS * 1000000LL);
    g_assert_false(fake_crashed(f));
    g_assert_cmpuint(f->errors->len, ==, 0);
}

static void test_grow_watchdog(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    int64_t t0 = f->now;

    kick_bound_vertex(fx, true);
    fake_run(f, 8);
    g_assert_cmpuint(f->grow_events, ==, 1);
    /* No ack: at the watchdog the job goes on, deterministically */
    g_assert_cmpint(f->now, >=, t0 + AGX_TVB_WATCHDOG_MS * 1000000LL);
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_false(f->fw.tvb.pending);
    g_assert_cmpuint(f->fw.tvb.grows, ==, 0);
    g_assert_cmpuint(f->fw.tvb.blocks, ==, 8);
    g_assert_true(fake_has_error(f, "no GrowTVBAck"));
    g_assert_false(f->fw.halted);
    g_assert_false(fake_crashed(f));
}

static void test_grow_needs_bound_slot(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    FakeQueue comp;

    /* A compute job and a vertex job of an unbound slot leave it armed */
    f->fw.inject = AGX_INJECT_GROW_TVB;
    fake_queue_init(f, &comp, AGX_PIPE_COMPUTE, 0, 9);
    fake_add_run(f, &comp, NULL);
    fake_kick(f, &comp);
    fake_add_run(f, &fx->vtx, patch_start_vertex);
    fake_kick(f, &fx->vtx);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, 9), ==, comp.value);
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_cmpuint(f->grow_events, ==, 0);
    g_assert_cmpuint(f->fw.inject, ==, AGX_INJECT_GROW_TVB);
    /* Once bound, the next vertex job takes it */
    kick_bound_vertex(fx, false);
    fake_advance(f, 1000000);
    g_assert_cmpuint(f->grow_events, ==, 1);
    g_assert_cmpuint(f->fw.inject, ==, AGX_INJECT_NONE);
}

static void test_ack_unbound_and_destroy(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;

    /* An ack for a slot nobody bound is a guest error, nothing more */
    ack(fx, 7, 1);
    g_assert_true(fake_has_error(f, "not bound"));
    g_assert_cmpuint(f->fw.tvb.grows, ==, 0);
    ack(fx, 1000, 1);
    g_assert_cmpuint(f->fw.tvb.grows, ==, 0);

    kick_bound_vertex(fx, true);
    fake_advance(f, 1000000);
    g_assert_true(f->fw.tvb.pending);
    /* The context goes: its slot is unbound and the grow forgotten */
    agx_wq_destroy_context(&f->fw, fx->vtx.ctx_va);
    g_assert_cmphex(f->fw.tvb.slots[BUF_SLOT].info_va, ==, 0);
    g_assert_false(f->fw.tvb.pending);
    g_assert_false(fake_crashed(f));
}

static void test_bad_init_buffer(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;

    add_init_buffer(fx, AGX_TVB_NUM_SLOTS, 8);
    fake_add_run(f, &fx->vtx, patch_start_vertex);
    fake_kick(f, &fx->vtx);
    fake_run(f, 8);
    g_assert_true(fake_has_error(f, "InitBuffer"));
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_false(fake_crashed(f));
}

/*
 * What the driver lays out and reads back, from drm/asahi (fw/buffer.rs,
 * fw/microseq.rs, fw/fragment.rs), not from the model's tables: the
 * Scene's Stats pointer and page counts, buffer::Stats, the pointers of
 * FinalizeVertex and StartFragment
 */
#define SCENE_SIZE              0x48
#define SCENE_PASS_PAGES        0x00
#define SCENE_STATS(v12_3)      ((v12_3) ? 0x24 : 0x2c)
#define SCENE_TOTAL_PAGES(v12_3) ((v12_3) ? 0x2c : 0x34)
#define STATS_SIZE              0x40
#define STATS_MAX_PAGES         0x00
#define STATS_RESET             0x20
#define SF_TVB_OVERFLOW_COUNT   0x2c

/* What the StartFragment op of the next fragment job names */
static uint64_t sf_overflow;

static void patch_start_fragment(uint8_t *useq, uint32_t *size)
{
    g_assert_cmpuint(apple_ld32(useq) & 0x3f, ==, 0x24);
    apple_st64(useq + SF_TVB_OVERFLOW_COUNT, sf_overflow);
}

/*
 * A vertex pass reports half the pages of its buffer's 8 blocks (16): in
 * the Scene's pass and total page counts, and in Stats.max_pages, which
 * restarts from the pass when the driver has set Stats.reset (cleared
 * then) and otherwise keeps the largest; drm/asahi's auto_grow then finds
 * no reason to grow (it wants twice the pages used).  A fragment pass
 * never overflowed.
 */
static void test_pass_use_reported(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    bool v12_3 = data != NULL;
    uint64_t scene = fake_alloc(f, SCENE_SIZE);
    uint64_t stats = fake_alloc(f, STATS_SIZE);
    FakeQueue frag;

    sf_overflow = fake_alloc(f, 4);
    apple_st64(fake_ptr(f, scene + SCENE_STATS(v12_3)), stats);
    apple_st32(fake_ptr(f, stats + STATS_MAX_PAGES), 0x5555);
    apple_st32(fake_ptr(f, stats + STATS_RESET), 1);
    apple_st32(fake_ptr(f, sf_overflow), 0xdead);

    fake_add_vertex_run(f, &fx->vtx, scene, fx->info_va);
    fake_kick(f, &fx->vtx);
    fake_queue_init(f, &frag, AGX_PIPE_FRAGMENT, 0, EV_SLOT + 1);
    fake_add_run(f, &frag, patch_start_fragment);
    fake_kick(f, &frag);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_cmphex(fake_stamp(f, EV_SLOT + 1), ==, frag.value);
    g_assert_cmpuint(fake_ld32(f, scene + SCENE_PASS_PAGES), ==, 16);
    g_assert_cmpuint(fake_ld32(f, scene + SCENE_TOTAL_PAGES(v12_3)), ==, 16);
    g_assert_cmpuint(fake_ld32(f, stats + STATS_MAX_PAGES), ==, 16);
    g_assert_cmpuint(fake_ld32(f, stats + STATS_RESET), ==, 0);
    g_assert_cmpuint(fake_ld32(f, sf_overflow), ==, 0);

    /* No reset asked: the larger maximum stays */
    apple_st32(fake_ptr(f, stats + STATS_MAX_PAGES), 40);
    fake_add_vertex_run(f, &fx->vtx, scene, fx->info_va);
    fake_kick(f, &fx->vtx);
    fake_run(f, 8);
    g_assert_cmphex(fake_stamp(f, EV_SLOT), ==, fx->vtx.value);
    g_assert_cmpuint(fake_ld32(f, stats + STATS_MAX_PAGES), ==, 40);
    g_assert_false(fake_crashed(f));
    g_assert_cmpuint(f->errors->len, ==, 0);
}

/*
 * Live scenes of many buffers: every buffer-manager slot's buffer keeps
 * its scenes' pages, so a buffer's next scene starts after its live one
 * however many other buffers rendered meanwhile (8 buffers, once, made
 * the ninth forget the first's)
 */
#define LIVE_PAGES      32
#define LIVE_BINNED     4

static uint64_t live_info(unsigned i)
{
    return 0x100000000ULL + 0x1000ULL * i;
}

static uint64_t live_scene(unsigned i, unsigned k)
{
    return 0x200000000ULL + 0x100000ULL * i + 0x100ULL * k;
}

/* Scene @k of buffer @i begins and bins LIVE_BINNED pages: its first */
static uint32_t live_bin(Fake *f, unsigned i, unsigned k, uint32_t *free)
{
    uint32_t first = ~0u;

    *free = agx_tvb_scene_begin(&f->fw, live_info(i), LIVE_PAGES,
                                live_scene(i, k), &first);
    if (*free) {
        agx_tvb_scene_binned(&f->fw, live_info(i), live_scene(i, k),
                             LIVE_PAGES, LIVE_BINNED);
    }
    return first;
}

static void test_live_scenes_per_slot(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    uint32_t free, first;

    for (unsigned i = 0; i < AGX_TVB_NUM_SLOTS; i++) {
        first = live_bin(f, i, 0, &free);
        g_assert_cmpuint(first, ==, 0);
        g_assert_cmpuint(free, ==, LIVE_PAGES);
    }
    for (unsigned i = 0; i < AGX_TVB_NUM_SLOTS; i++) {
        first = live_bin(f, i, 1, &free);
        g_assert_cmpuint(first, ==, LIVE_BINNED);
        g_assert_cmpuint(free, ==, LIVE_PAGES - LIVE_BINNED);
    }
    /* A buffer's live scenes up to AGX_TVB_LIVE_SCENES; then it waits */
    for (unsigned k = 2; k * LIVE_BINNED < LIVE_PAGES &&
         k < AGX_TVB_LIVE_SCENES; k++) {
        first = live_bin(f, 0, k, &free);
        g_assert_cmpuint(first, ==, k * LIVE_BINNED);
    }
    first = live_bin(f, 0, 100, &free);
    g_assert_cmpuint(free, ==, 0);
    /* Scene 0's fragment job returns its pages: they go to the next */
    agx_tvb_scene_free(&f->fw, live_info(0), live_scene(0, 0));
    first = live_bin(f, 0, 101, &free);
    g_assert_cmpuint(first, ==, 0);
    g_assert_cmpuint(free, ==, LIVE_BINNED);
    g_assert_cmpuint(f->fw.tvb.evictions, ==, 0);
    g_assert_cmpuint(f->errors->len, ==, 0);
}

/*
 * More buffers with scenes in flight than the buffer manager has slots
 * (only a driver rendering with unbound buffers gets there): the rings
 * take turns, each turn a guest error; the buffer that lost its ring
 * starts again from its first page
 */
static void test_live_scenes_beyond_slots(Fixture *fx, gconstpointer data)
{
    Fake *f = &fx->f;
    uint32_t free, first;

    for (unsigned i = 0; i < AGX_TVB_NUM_SLOTS; i++) {
        live_bin(f, i, 0, &free);
    }
    g_assert_cmpuint(f->errors->len, ==, 0);
    first = live_bin(f, AGX_TVB_NUM_SLOTS, 0, &free);
    g_assert_cmpuint(first, ==, 0);
    g_assert_cmpuint(free, ==, LIVE_PAGES);
    g_assert_cmpuint(f->errors->len, ==, 1);
    g_assert_cmpuint(f->fw.tvb.evictions, ==, 1);
    /* buffer 0 lost its ring; buffer 1 keeps its own until the next turn */
    first = live_bin(f, 1, 1, &free);
    g_assert_cmpuint(first, ==, LIVE_BINNED);
    g_assert_cmpuint(f->errors->len, ==, 1);
    first = live_bin(f, 0, 1, &free);
    g_assert_cmpuint(first, ==, 0);
    g_assert_cmpuint(f->errors->len, ==, 2);
    g_assert_cmpuint(f->fw.tvb.evictions, ==, 3);
    g_assert_false(fake_crashed(f));
}

#define ADD(name, fn) \
    do { \
        g_test_add("/tvb/13.5/" name, Fixture, NULL, fx_setup, fn, \
                   fx_teardown); \
        g_test_add("/tvb/12.3/" name, Fixture, GINT_TO_POINTER(1), \
                   fx_setup, fn, fx_teardown); \
    } while (0)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    ADD("init-buffer-binds", test_init_buffer_binds);
    ADD("live-scenes-per-slot", test_live_scenes_per_slot);
    ADD("live-scenes-beyond-slots", test_live_scenes_beyond_slots);
    ADD("grow-holds-until-ack", test_grow_holds_until_ack);
    ADD("grow-watchdog", test_grow_watchdog);
    ADD("grow-needs-bound-slot", test_grow_needs_bound_slot);
    ADD("ack-unbound-and-destroy", test_ack_unbound_and_destroy);
    ADD("bad-init-buffer", test_bad_init_buffer);
    ADD("pass-use-reported-in-scene-and-stats", test_pass_use_reported);
    return g_test_run();
}
