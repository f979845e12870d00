/*
 * Unit tests for the checks of an incoming migration: rtkit_post_load()
 * and agx_fw_post_load() accept the state of a booted firmware, and reject
 * each field out of range with its own reason, leaving the state alone
 *
 * The devices' post_load (hw/apple/apple-asc.c, hw/display/agx/apple-agx.c)
 * only log what these return and fail the migration.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "agx-fake.h"

/* One field out of range, and the words of the reason it is rejected for */
typedef struct Case {
    const char *name;
    void (*spoil)(Fake *f);
    const char *reason;
} Case;

static void boot_state(Fake *f)
{
    f->rtk.boot_state = RTKIT_DEAD + 1;
}

static void outbox_head(Fake *f)
{
    f->rtk.outbox_head = RTKIT_OUTBOX_LEN;
}

static void outbox_count(Fake *f)
{
    f->rtk.outbox_count = RTKIT_OUTBOX_LEN + 1;
}

static void syslog_next(Fake *f)
{
    f->rtk.syslog_next = RTKIT_SYSLOG_ENTRIES;
}

static void epmap_block(Fake *f)
{
    f->rtk.epmap_block = RTKIT_NUM_EPS / 32;
}

static const Case rtkit_cases[] = {
    { "boot-state", boot_state, "boot state" },
    { "outbox-head", outbox_head, "outbox" },
    { "outbox-count", outbox_count, "outbox" },
    { "syslog-next", syslog_next, "syslog" },
    { "epmap-block", epmap_block, "EPMAP" },
};

/* A channel the booted firmware uses */
static AgxChannel *valid_channel(Fake *f)
{
    for (int i = 0; i < AGX_NUM_CHANNELS; i++) {
        if (f->fw.ch[i].valid) {
            return &f->fw.ch[i];
        }
    }
    g_assert_not_reached();
}

static void fw_state(Fake *f)
{
    f->fw.state = AGX_FW_DEAD + 1;
}

static void inject(Fake *f)
{
    f->fw.inject = AGX_INJECT_GROW_TVB + 1;
}

static void tvb_pending_slot(Fake *f)
{
    f->fw.tvb.pending = true;
    f->fw.tvb.pending_slot = AGX_TVB_NUM_SLOTS;
}

static void tvb_live_scenes(Fake *f)
{
    f->fw.tvb.rings[AGX_TVB_RINGS - 1].nlive = AGX_TVB_LIVE_SCENES + 1;
}

/* A vertex job rendering a partial pass of a scene it is not writing */
static void vdm_partial(Fake *f)
{
    f->fw.vdm.active = true;
    f->fw.vdm.partial = true;
    f->fw.vdm.pfrag.active = true;
}

static void channel_count(Fake *f)
{
    valid_channel(f)->count = 0;
}

static void channel_fw_ptr(Fake *f)
{
    AgxChannel *ch = valid_channel(f);

    ch->fw_ptr = ch->count;
}

static void channel_elem_size(Fake *f)
{
    valid_channel(f)->elem_size = AGX_CHANNEL_MAX_ELEM + 1;
}

static void queue_pipe(Fake *f)
{
    f->fw.queues[AGX_MAX_QUEUES - 1].pipe = AGX_NUM_PIPES;
}

static void queue_rptr(Fake *f)
{
    f->fw.queues[0].rptr = AGX_WQ_RING_SIZE;
}

static void queue_wptr(Fake *f)
{
    f->fw.queues[0].wptr = AGX_WQ_RING_SIZE;
}

static void pipe_queue(Fake *f)
{
    f->fw.pipes[AGX_NUM_PIPES - 1].queue = AGX_MAX_QUEUES;
}

static void pipe_useq_size(Fake *f)
{
    f->fw.pipes[0].useq_size = AGX_USEQ_MAX_SIZE + 1;
}

/* A tile in flight, a vertex batch in flight, without their jobs */
static void frag_tile(Fake *f)
{
    f->fw.frag.tile.phase = AGX_FRAG_PHASE_PRIMITIVES;
}

static void vdm_batch(Fake *f)
{
    f->fw.vdm.batch.active = true;
}

static const Case fw_cases[] = {
    { "fw-state", fw_state, "firmware state" },
    { "inject", inject, "injected fault" },
    { "channel-count", channel_count, "channel" },
    { "channel-fw-ptr", channel_fw_ptr, "channel" },
    { "channel-elem-size", channel_elem_size, "channel" },
    { "queue-pipe", queue_pipe, "work queue pipe" },
    { "queue-rptr", queue_rptr, "work queue ring pointer" },
    { "queue-wptr", queue_wptr, "work queue ring pointer" },
    { "pipe-queue", pipe_queue, "pipe queue" },
    { "pipe-useq-size", pipe_useq_size, "microsequence size" },
    { "tvb-pending-slot", tvb_pending_slot, "TVB grow slot" },
    { "tvb-live-scenes", tvb_live_scenes, "live scenes" },
    { "vdm-partial", vdm_partial, "partial render" },
    { "frag-tile", frag_tile, "tile in flight" },
    { "vdm-batch", vdm_batch, "batch in flight" },
};

static void test_booted_state_loads(void)
{
    Fake f;

    fake_init(&f, AGX_FW_V13_5);
    g_assert_null(rtkit_post_load(&f.rtk));
    /* The hints the state leaves out come back at their safe values */
    f.fw.queues_end = 0;
    f.fw.barrier_waits = false;
    valid_channel(&f)->name = NULL;
    g_assert_null(agx_fw_post_load(&f.fw));
    g_assert_cmpint(f.fw.queues_end, ==, AGX_MAX_QUEUES);
    g_assert_true(f.fw.barrier_waits);
    g_assert_nonnull(valid_channel(&f)->name);
    fake_free(&f);
}

/* The limits themselves load: a full outbox, the last index of each */
static void test_limits_load(void)
{
    Fake f;

    fake_init(&f, AGX_FW_V13_5);
    f.rtk.boot_state = RTKIT_DEAD;
    f.rtk.outbox_head = RTKIT_OUTBOX_LEN - 1;
    f.rtk.outbox_count = RTKIT_OUTBOX_LEN;
    f.rtk.syslog_next = RTKIT_SYSLOG_ENTRIES - 1;
    f.rtk.epmap_block = RTKIT_NUM_EPS / 32 - 1;
    g_assert_null(rtkit_post_load(&f.rtk));
    f.fw.state = AGX_FW_DEAD;
    f.fw.inject = AGX_INJECT_GROW_TVB;
    f.fw.tvb.pending = true;
    f.fw.tvb.pending_slot = AGX_TVB_NUM_SLOTS - 1;
    f.fw.queues[0].rptr = AGX_WQ_RING_SIZE - 1;
    f.fw.queues[0].pipe = AGX_NUM_PIPES - 1;
    f.fw.pipes[0].queue = AGX_MAX_QUEUES - 1;
    f.fw.pipes[0].useq_size = AGX_USEQ_MAX_SIZE;
    g_assert_null(agx_fw_post_load(&f.fw));
    fake_free(&f);
}

static void test_rtkit_rejects(gconstpointer data)
{
    const Case *c = data;
    Fake f;
    const char *reason;

    fake_init(&f, AGX_FW_V13_5);
    c->spoil(&f);
    reason = rtkit_post_load(&f.rtk);
    g_assert_nonnull(reason);
    g_assert_nonnull(strstr(reason, c->reason));
    fake_free(&f);
}

static void test_fw_rejects(gconstpointer data)
{
    const Case *c = data;
    Fake f;
    const char *reason;

    fake_init(&f, AGX_FW_V13_5);
    c->spoil(&f);
    f.fw.queues_end = 3;
    reason = agx_fw_post_load(&f.fw);
    g_assert_nonnull(reason);
    g_assert_nonnull(strstr(reason, c->reason));
    /* Rejected: nothing set up from it */
    g_assert_cmpint(f.fw.queues_end, ==, 3);
    fake_free(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/migrate/booted-state-loads", test_booted_state_loads);
    g_test_add_func("/migrate/limits-load", test_limits_load);
    for (int i = 0; i < G_N_ELEMENTS(rtkit_cases); i++) {
        g_autofree char *path = g_strdup_printf("/migrate/rtkit-rejects/%s",
                                                rtkit_cases[i].name);

        g_test_add_data_func(path, &rtkit_cases[i], test_rtkit_rejects);
    }
    for (int i = 0; i < G_N_ELEMENTS(fw_cases); i++) {
        g_autofree char *path = g_strdup_printf("/migrate/fw-rejects/%s",
                                                fw_cases[i].name);

        g_test_add_data_func(path, &fw_cases[i], test_fw_rejects);
    }
    return g_test_run();
}
