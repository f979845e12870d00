/*
 * asahi-uapi: SUBMIT, its command stream, syncobjs and user timestamps
 * (drm/asahi queue/mod.rs, render.rs and compute.rs; Mesa's
 * src/asahi/vulkan/hk_queue.c)
 */

#define _GNU_SOURCE
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asahi-uapi.h"

#define WAIT_MS 10000

/* A submit ioctl with every field given, for the header checks */
static int submit_raw(int fd, uint32_t queue, const CmdBuf *cb,
                      uint32_t flags, uint32_t pad)
{
    struct drm_asahi_submit s = {
        .cmdbuf = (uintptr_t)cb->bytes,
        .flags = flags,
        .queue_id = queue,
        .cmdbuf_size = cb->len,
        .pad = pad,
    };

    return drm_ioctl(fd, DRM_IOCTL_ASAHI_SUBMIT, &s);
}

static int submit_plain(Client *c, const CmdBuf *cb)
{
    return asahi_submit(c->fd, c->queue_id, cb->bytes, cb->len, NULL, 0,
                        NULL, 0);
}

static void one_compute(Client *c, CmdBuf *cb)
{
    struct drm_asahi_cmd_compute cmd;

    cmdbuf_init(cb);
    client_compute(c, &cmd);
    cmdbuf_push_compute(cb, &cmd);
}

/* Mesa's render pass: its colour target as fragment attachment first */
static void one_render(Client *c, CmdBuf *cb)
{
    struct drm_asahi_cmd_render cmd;
    struct drm_asahi_attachment att;

    client_attachment(c, &att);
    cmdbuf_push_attachments(cb, DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS, &att, 1);
    client_render(c, &cmd, 64, 64);
    cmdbuf_push_render(cb, &cmd);
}

/* One command built by build, on a queue of the given priority */
static int submit_one(uint32_t priority,
                      void (*build)(Client *c, CmdBuf *cb))
{
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, priority));
    cmdbuf_init(&cb);
    build(&c, &cb);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_compute(void)
{
    return submit_one(DRM_ASAHI_PRIORITY_MEDIUM, one_compute);
}

static int test_submit_render(void)
{
    return submit_one(DRM_ASAHI_PRIORITY_MEDIUM, one_render);
}

/* Both priorities Mesa uses run work. */
static int test_submit_low_priority(void)
{
    return submit_one(DRM_ASAHI_PRIORITY_LOW, one_render);
}

/*
 * A submit as hk (Mesa's Vulkan driver) makes it: one header per control
 * stream, each waiting on every render and compute command before it in
 * the submit (the first on all earlier submits), no attachment commands;
 * the queue's own timeline syncobj (created at point 1) is an extra
 * out-sync at the next point of every submit, behind the app's binary
 * semaphore.
 */
static int test_submit_mesa_stream(void)
{
    struct drm_asahi_cmd_compute comp;
    struct drm_asahi_cmd_render rend;
    struct drm_asahi_sync out[2] = {
        { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ },
        { .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ },
    };
    Client c;
    CmdBuf cb;
    int i;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, false, &out[0].handle));
    CHECK_OK(syncobj_create(c.fd, false, &out[1].handle));
    CHECK_OK(syncobj_timeline_signal(c.fd, out[1].handle, 1));
    out[1].timeline_value = 1;
    cmdbuf_init(&cb);
    client_compute(&c, &comp);
    client_render(&c, &rend, 64, 64);
    for (i = 0; i < 2; i++) {
        cmdbuf_push_compute(&cb, &comp);
        cmdbuf_push_render(&cb, &rend);
    }
    CHECK_EQ(cb.nr_vdm, 2);
    CHECK_EQ(cb.nr_cdm, 2);
    for (i = 0; i < 3; i++) {
        out[1].timeline_value++;
        CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0,
                              out, 2));
    }
    CHECK_OK(syncobj_timeline_wait(c.fd, out[1].handle, 4, WAIT_MS));
    CHECK_OK(syncobj_wait(c.fd, out[0].handle, WAIT_MS));
    CHECK_EQ(syncobj_fence_status(c.fd, out[0].handle), 1);
    client_close(&c);
    return TEST_PASS;
}

/*
 * The attachment commands before the commands they describe (the UAPI
 * allows them; Gallium and hk may leave them out): compute, vertex and
 * fragment lists, NONE barriers.
 */
static int test_submit_attachment_stream(void)
{
    struct drm_asahi_attachment att;
    struct drm_asahi_cmd_compute comp;
    Client c;
    CmdBuf cb;
    int i;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    cmdbuf_init(&cb);
    client_attachment(&c, &att);
    for (i = 0; i < 2; i++) {
        client_compute(&c, &comp);
        cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS,
                                &att, 1);
        cmdbuf_push_compute(&cb, &comp);
        cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_VERTEX_ATTACHMENTS,
                                &att, 1);
        one_render(&c, &cb);
    }
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

/* Explicit indices and NONE, in every valid combination */
static int test_submit_barriers(void)
{
    struct drm_asahi_cmd_render r;
    struct drm_asahi_cmd_compute k;
    const uint16_t none = DRM_ASAHI_BARRIER_NONE;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_render(&c, &r, 64, 64);
    client_compute(&c, &k);
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_RENDER, sizeof(r), none, none, &r);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), none, none, &k);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_RENDER, sizeof(r), 1, 1, &r);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), 2, none, &k);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), 0, 2, &k);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_RENDER, sizeof(r), 2, 3, &r);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_bad_barrier(void)
{
    struct drm_asahi_cmd_render r;
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_attachment att;
    const uint16_t none = DRM_ASAHI_BARRIER_NONE;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_render(&c, &r, 64, 64);
    client_compute(&c, &k);
    client_attachment(&c, &att);
    /* waiting on the first render of a submit that has none */
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), 1, none, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    /* waiting on itself */
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), none, 1, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_RENDER, sizeof(r), none, none, &r);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_RENDER, sizeof(r), 2, none, &r);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    /* attachment commands must not wait on anything */
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), none, none, &k);
    cmdbuf_push(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, sizeof(att), none,
                1, &att);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(k), none, none, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

/* max_commands_per_submission hardware commands, and not one more */
static int test_submit_max_commands(void)
{
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_attachment att;
    unsigned int i, max = asahi_params.max_commands_per_submission;
    static CmdBuf cb;
    Client c;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_compute(&c, &k);
    client_attachment(&c, &att);
    cmdbuf_init(&cb);
    for (i = 0; i < max; i++) {
        /* attachment commands do not count */
        cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS,
                                &att, 1);
        cmdbuf_push_compute(&cb, &k);
    }
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

/* No hardware command at all */
static int test_submit_no_commands(void)
{
    struct drm_asahi_attachment att;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    cmdbuf_init(&cb);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_attachment(&c, &att);
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS, &att, 1);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_bad_header(void)
{
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    one_compute(&c, &cb);
    CHECK_ERR(submit_raw(c.fd, c.queue_id, &cb, 1, 0), EINVAL);
    CHECK_ERR(submit_raw(c.fd, c.queue_id, &cb, 0, 1), EINVAL);
    CHECK_ERR(submit_raw(c.fd, c.queue_id + 100, &cb, 0, 0), ENOENT);
    CHECK_OK(asahi_queue_destroy(c.fd, c.queue_id));
    CHECK_ERR(submit_raw(c.fd, c.queue_id, &cb, 0, 0), ENOENT);
    client_close(&c);
    return TEST_PASS;
}

/* A stream cut in a header or in a payload */
static int test_submit_truncated(void)
{
    Client c;
    CmdBuf cb;
    uint32_t len;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    one_compute(&c, &cb);
    len = cb.len;
    cb.len = len - 1;
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    cb.len = 4;
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    /* a good command followed by half a header */
    cb.len = len;
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, 0, 0, 0, NULL);
    cb.len -= 4;
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    /* cmdbuf_size 0 */
    cb.len = 0;
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_unknown_type(void)
{
    struct drm_asahi_cmd_compute k;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    one_compute(&c, &cb);
    client_compute(&c, &k);
    cmdbuf_push(&cb, 5, sizeof(k), 0, 0, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, 0xffff, sizeof(k), 0, 0, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

/*
 * Older userspace: a command shorter than the kernel's struct is
 * zero-extended.  Newer userspace: trailing fields that are zero are
 * ignored; non-zero ones must be rejected (UAPI introduction).
 */
static int test_submit_command_size(void)
{
    struct {
        struct drm_asahi_cmd_compute k;
        uint64_t future[2];
    } big;
    struct drm_asahi_cmd_render r;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    memset(&big, 0, sizeof(big));
    client_compute(&c, &big.k);
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE,
                offsetof(struct drm_asahi_cmd_compute, ts), 0, 0, &big.k);
    client_render(&c, &r, 64, 64);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_RENDER,
                offsetof(struct drm_asahi_cmd_render, ts_vtx), 0, 1, &r);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    cmdbuf_init(&cb);
    cmdbuf_push(&cb, DRM_ASAHI_CMD_COMPUTE, sizeof(big), 0, 0, &big);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

static int render_fails(Client *c, const struct drm_asahi_cmd_render *r)
{
    CmdBuf cb;

    cmdbuf_init(&cb);
    cmdbuf_push_render(&cb, r);
    return submit_plain(c, &cb) == -EINVAL ? 0 : -1;
}

static int test_submit_bad_render(void)
{
    static const uint8_t bad_utiles[][2] = {
        { 16, 32 }, { 8, 8 }, { 64, 64 }, { 0, 0 }, { 32, 8 },
    };
    struct drm_asahi_cmd_render good, r;
    Client c;
    size_t i;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_render(&c, &good, 64, 64);
    r = good;
    r.flags |= 1u << 5;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.width_px = 0;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.height_px = 0;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.width_px = 16385;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.height_px = 16385;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.layers = 0;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.layers = 2049;
    CHECK(!render_fails(&c, &r));
    r = good;
    r.samples = 3;
    CHECK(!render_fails(&c, &r));
    r.samples = 8;
    CHECK(!render_fails(&c, &r));
    r.samples = 0;
    CHECK(!render_fails(&c, &r));
    for (i = 0; i < sizeof(bad_utiles) / sizeof(bad_utiles[0]); i++) {
        r = good;
        r.utile_width_px = bad_utiles[i][0];
        r.utile_height_px = bad_utiles[i][1];
        CHECK(!render_fails(&c, &r));
    }
    client_close(&c);
    return TEST_PASS;
}

/* The extremes that are allowed: big, layered, multisampled, flags */
static int test_submit_render_shapes(void)
{
    struct drm_asahi_cmd_render r;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    cmdbuf_init(&cb);
    /* the widest and highest, thin (a 16384^2 pass needs a 256 MiB TVB) */
    client_render(&c, &r, 16384, 32);
    cmdbuf_push_render(&cb, &r);
    client_render(&c, &r, 32, 16384);
    cmdbuf_push_render(&cb, &r);
    client_render(&c, &r, 4096, 4096);
    cmdbuf_push_render(&cb, &r);
    client_render(&c, &r, 1, 1);
    r.layers = 2048;
    r.utile_width_px = 16;
    r.utile_height_px = 16;
    r.samples = 4;
    cmdbuf_push_render(&cb, &r);
    client_render(&c, &r, 1920, 1080);
    r.utile_height_px = 16;
    r.samples = 2;
    r.layers = 6;
    r.flags = DRM_ASAHI_RENDER_VERTEX_SCRATCH |
              DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES |
              DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING |
              DRM_ASAHI_RENDER_DBIAS_IS_INT;
    cmdbuf_push_render(&cb, &r);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_bad_compute(void)
{
    struct drm_asahi_cmd_compute k;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_compute(&c, &k);
    k.flags = 1;
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_attachments(void)
{
    struct drm_asahi_attachment att[17];
    struct drm_asahi_cmd_compute k;
    unsigned int i, max = asahi_params.max_attachments;
    Client c;
    CmdBuf cb;

    CHECK(max < 17);
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_compute(&c, &k);
    for (i = 0; i < 17; i++) {
        client_attachment(&c, &att[i]);
        att[i].pointer += i * 0x4000;
        att[i].size = 0x4000 - i;
    }
    cmdbuf_init(&cb);
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, max);
    cmdbuf_push_compute(&cb, &k);
    /* an empty list resets it */
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, 0);
    cmdbuf_push_compute(&cb, &k);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));

    cmdbuf_init(&cb);
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att,
                            max + 1);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);

    att[3].flags = 1;
    cmdbuf_init(&cb);
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_VERTEX_ATTACHMENTS, att, 4);
    one_render(&c, &cb);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    att[3].flags = 0;
    att[3].pad = 1;
    cmdbuf_init(&cb);
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS, att, 4);
    one_render(&c, &cb);
    CHECK_ERR(submit_plain(&c, &cb), EINVAL);
    client_close(&c);
    return TEST_PASS;
}

/* Binary syncobjs: a signalled in-sync, an out-sync per submit */
static int test_sync_binary(void)
{
    struct drm_asahi_sync in = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    struct drm_asahi_sync out[2] = {
        { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ },
        { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ },
    };
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, true, &in.handle));
    CHECK_OK(syncobj_create(c.fd, false, &out[0].handle));
    CHECK_OK(syncobj_create(c.fd, false, &out[1].handle));
    one_compute(&c, &cb);
    CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, &in, 1, out,
                          2));
    CHECK_OK(syncobj_wait(c.fd, out[0].handle, WAIT_MS));
    CHECK_OK(syncobj_wait(c.fd, out[1].handle, WAIT_MS));
    CHECK_EQ(syncobj_fence_status(c.fd, out[0].handle), 1);
    /* the out-fence is the in-fence of the next submit */
    CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, &out[0], 1,
                          &in, 1));
    CHECK_OK(syncobj_wait(c.fd, in.handle, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

/* Timeline points out, waited on, queried, and used as in-syncs */
static int test_sync_timeline(void)
{
    struct drm_asahi_sync s = {
        .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ,
    };
    struct drm_asahi_sync in;
    uint64_t point;
    Client c;
    CmdBuf cb;
    int i;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, false, &s.handle));
    in = s;
    one_compute(&c, &cb);
    for (i = 1; i <= 8; i++) {
        s.timeline_value = i;
        in.timeline_value = i - 1;
        CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, &in,
                              i > 1, &s, 1));
    }
    CHECK_OK(syncobj_timeline_wait(c.fd, s.handle, 8, WAIT_MS));
    CHECK_OK(syncobj_query(c.fd, s.handle, &point));
    CHECK_EQ(point, 8);
    client_close(&c);
    return TEST_PASS;
}

/*
 * Fences of one queue signal in submission order: whenever job k's
 * fence is seen signalled, so are those of all jobs before it.
 */
static int test_sync_in_order(void)
{
    enum { N = 48 };
    struct drm_asahi_sync out[N];
    Client c;
    CmdBuf cb;
    int i, j, samples = 0;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    for (i = 0; i < N; i++) {
        out[i].sync_type = DRM_ASAHI_SYNC_SYNCOBJ;
        out[i].timeline_value = 0;
        CHECK_OK(syncobj_create(c.fd, false, &out[i].handle));
        cmdbuf_init(&cb);
        if (i % 3 == 1) {
            one_render(&c, &cb);
        } else {
            one_compute(&c, &cb);
        }
        CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0,
                              &out[i], 1));
    }
    while (syncobj_wait(c.fd, out[N - 1].handle, 0) == -ETIME &&
           samples < 10000) {
        /* the highest signalled, then everything below it */
        for (i = N - 1; i >= 0; i--) {
            if (syncobj_wait(c.fd, out[i].handle, 0) == 0) {
                break;
            }
        }
        for (j = 0; j < i; j++) {
            CHECK_OK(syncobj_wait(c.fd, out[j].handle, 0));
        }
        samples++;
    }
    CHECK_OK(syncobj_wait(c.fd, out[N - 1].handle, WAIT_MS));
    for (i = 0; i < N; i++) {
        CHECK_EQ(syncobj_fence_status(c.fd, out[i].handle), 1);
    }
    diag("%d samples while the queue ran", samples);
    client_close(&c);
    return TEST_PASS;
}

/* A job on one queue waits for a job on a queue of another VM. */
static int test_sync_cross_queue(void)
{
    struct drm_asahi_sync a = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    struct drm_asahi_sync b = {
        .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ,
        .timeline_value = 5,
    };
    Client c, c2;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    /* vm2 has the same buffers at the same addresses: one cmdbuf serves */
    CHECK_OK(client_open_vm(&c2, &c, DRM_ASAHI_PRIORITY_LOW));
    CHECK_OK(syncobj_create(c.fd, false, &a.handle));
    CHECK_OK(syncobj_create(c.fd, false, &b.handle));
    cmdbuf_init(&cb);
    one_render(&c, &cb);
    CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0, &a,
                          1));
    CHECK_OK(asahi_submit(c.fd, c2.queue_id, cb.bytes, cb.len, &a, 1, &b,
                          1));
    CHECK_OK(syncobj_timeline_wait(c.fd, b.handle, 5, WAIT_MS));
    CHECK_EQ(syncobj_fence_status(c.fd, a.handle), 1);
    client_close(&c2);
    client_close(&c);
    return TEST_PASS;
}

static int test_sync_errors(void)
{
    struct drm_asahi_sync s = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    uint32_t empty, tl;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, false, &empty));
    CHECK_OK(syncobj_create(c.fd, false, &tl));
    one_compute(&c, &cb);
    /* binary with a timeline value, in and out */
    s.handle = empty;
    s.timeline_value = 1;
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0, &s,
                           1), EINVAL);
    /* a binary in-sync without a fence */
    s.timeline_value = 0;
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, &s, 1, NULL,
                           0), EINVAL);
    /* unknown type and handle */
    s.sync_type = 2;
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0, &s,
                           1), EINVAL);
    s.sync_type = DRM_ASAHI_SYNC_SYNCOBJ;
    s.handle = tl + 100;
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0, &s,
                           1), ENOENT);
    /* a timeline point nobody submitted */
    s.sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ;
    s.handle = tl;
    s.timeline_value = 3;
    CHECK_ERR(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, &s, 1, NULL,
                           0), EINVAL);
    /* bad user pointer for the array */
    {
        struct drm_asahi_submit sub = {
            .syncs = 8,
            .cmdbuf = (uintptr_t)cb.bytes,
            .queue_id = c.queue_id,
            .out_sync_count = 1,
            .cmdbuf_size = cb.len,
        };

        CHECK_ERR(drm_ioctl(c.fd, DRM_IOCTL_ASAHI_SUBMIT, &sub), EFAULT);
        sub.syncs = 0;
        sub.out_sync_count = 0;
        sub.cmdbuf = 8;
        CHECK_ERR(drm_ioctl(c.fd, DRM_IOCTL_ASAHI_SUBMIT, &sub), EFAULT);
    }
    /* nothing was submitted by any of those */
    CHECK_ERR(syncobj_wait(c.fd, empty, 0), ETIME);
    client_close(&c);
    return TEST_PASS;
}

static uint64_t ts_at(const Client *c, uint32_t offset)
{
    /* volatile: the firmware wrote it behind the compiler's back */
    return *(volatile uint64_t *)((uint8_t *)c->ts.map + offset);
}

/*
 * User timestamps: written for compute and for both halves of a
 * render, start before end, and, counted in command_timestamp_frequency_hz
 * units, between GET_TIME's nanoseconds before and after.
 */
static int test_submit_timestamps(void)
{
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_cmd_render r;
    uint64_t t0, t1, v[6];
    Client c;
    CmdBuf cb;
    int i;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(client_bind_timestamps(&c));
    memset(c.ts.map, 0, c.ts.size);
    client_compute(&c, &k);
    k.ts.start.handle = k.ts.end.handle = c.ts_object;
    k.ts.start.offset = 0;
    k.ts.end.offset = 8;
    client_render(&c, &r, 64, 64);
    r.ts_vtx.start.handle = r.ts_vtx.end.handle = c.ts_object;
    r.ts_frag.start.handle = r.ts_frag.end.handle = c.ts_object;
    r.ts_vtx.start.offset = 16;
    r.ts_vtx.end.offset = 24;
    r.ts_frag.start.offset = 32;
    /* the last 8 bytes of the buffer are fine */
    r.ts_frag.end.offset = c.ts.size - 8;
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    cmdbuf_push_render(&cb, &r);
    CHECK_OK(asahi_get_time(c.fd, 0, &t0));
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    CHECK_OK(asahi_get_time(c.fd, 0, &t1));
    v[0] = ts_at(&c, 0);
    v[1] = ts_at(&c, 8);
    v[2] = ts_at(&c, 16);
    v[3] = ts_at(&c, 24);
    v[4] = ts_at(&c, 32);
    v[5] = ts_at(&c, c.ts.size - 8);
    /* command_timestamp_frequency_hz units to GET_TIME's nanoseconds */
    for (i = 0; i < 6; i++) {
        v[i] = (uint64_t)((unsigned __int128)v[i] * 1000000000 /
                          asahi_params.command_timestamp_frequency_hz);
    }
    diag("GET_TIME %llu..%llu; compute %llu..%llu vertex %llu..%llu "
         "fragment %llu..%llu", (unsigned long long)t0,
         (unsigned long long)t1, (unsigned long long)v[0],
         (unsigned long long)v[1], (unsigned long long)v[2],
         (unsigned long long)v[3], (unsigned long long)v[4],
         (unsigned long long)v[5]);
    for (i = 0; i < 6; i++) {
        CHECK(v[i] >= t0 && v[i] <= t1);
    }
    CHECK(v[0] <= v[1] && v[2] <= v[3] && v[4] <= v[5]);
    /* fragment runs after vertex */
    CHECK(v[3] <= v[4]);
    /* Nothing else in the buffer was touched */
    CHECK_EQ(ts_at(&c, 40), 0);
    client_close(&c);
    return TEST_PASS;
}

/*
 * The UAPI fields reach the firmware where drm/asahi places them: a
 * render and a compute command with a distinctive value in every field,
 * then the harness compares what the firmware read when each job started
 * (apple-agx's vertex-params, fragment-params, compute-params) with
 * where queue/render.rs and queue/compute.rs put each field ("host:
 * qom-fields"; a mismatch fails the boot).  The pause lets the host read
 * before a later test's jobs replace them.
 */
#define PV(n)   (0x5a0000000000ULL + ((uint64_t)(n) << 8))
#define P32(n)  (0x5a000000u + ((uint32_t)(n) << 4))

static void say_fields(const char *prop, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say_fields(const char *prop, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    say("host: qom-fields /machine/gpu-asc %s %s", prop, buf);
}

static int test_submit_params_reach_firmware(void)
{
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_cmd_render r;
    const uint64_t usc = MESA_USC_BASE;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    client_render(&c, &r, 96, 64);
    r.flags |= DRM_ASAHI_RENDER_VERTEX_SCRATCH | DRM_ASAHI_RENDER_DBIAS_IS_INT;
    /* The model walks the stream: client_render()'s is kept */
    r.vertex_helper = (struct drm_asahi_helper_program) {
        .binary = P32(2), .cfg = P32(3), .data = PV(4),
    };
    r.fragment_helper = (struct drm_asahi_helper_program) {
        .binary = P32(5), .cfg = P32(6), .data = PV(7),
    };
    r.isp_scissor_base = PV(8);
    r.isp_dbias_base = PV(9);
    r.isp_oclqry_base = PV(10);
    r.depth = (struct drm_asahi_zls_buffer) {
        .base = PV(11), .comp_base = PV(12), .stride = P32(13),
        .comp_stride = P32(14),
    };
    r.stencil = (struct drm_asahi_zls_buffer) {
        .base = PV(15), .comp_base = PV(16), .stride = P32(17),
        .comp_stride = P32(18),
    };
    r.zls_ctrl = PV(19);
    r.ppp_multisamplectl = PV(20);
    r.sampler_heap = PV(21);
    r.sampler_count = 7;
    r.ppp_ctrl = P32(22);
    r.isp_merge_upper_x = P32(23);
    r.isp_merge_upper_y = P32(24);
    /* the model runs bg and eot for every tile: valid (no-op) programs */
    r.bg = (struct drm_asahi_bg_eot) {
        .usc = USC_PROGRAM(25) | 4, .rsrc_spec = P32(26),
    };
    r.eot = (struct drm_asahi_bg_eot) {
        .usc = USC_PROGRAM(27) | 4, .rsrc_spec = P32(28),
    };
    r.partial_bg = (struct drm_asahi_bg_eot) {
        .usc = USC_PROGRAM(29) | 4, .rsrc_spec = P32(30),
    };
    r.partial_eot = (struct drm_asahi_bg_eot) {
        .usc = USC_PROGRAM(31) | 4, .rsrc_spec = P32(32),
    };
    r.isp_bgobjdepth = P32(33);
    r.isp_bgobjvals = 0x1200;
    r.isp_zls_pixels = P32(34);
    client_compute(&c, &k);
    /* The model walks the stream: client_compute()'s, and any end */
    k.cdm_ctrl_stream_end = PV(41);
    k.sampler_heap = PV(42);
    k.sampler_count = 5;
    k.helper = (struct drm_asahi_helper_program) {
        .binary = P32(43), .cfg = P32(44), .data = PV(45),
    };
    cmdbuf_init(&cb);
    cmdbuf_push_render(&cb, &r);
    cmdbuf_push_compute(&cb, &k);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));

    say_fields("vertex-params",
               "params1.vdm_ctrl_stream_base=0x%llx "
               "params1.helper_program=0x%x params1.helper_arg=0x%llx "
               "tiling.helper_cfg=0x%x tiling.ppp_ctrl=0x%x "
               "params1.ppp_multisamplectl=0x%llx "
               "params1.usc_exec_base_ta=0x%llx",
               (unsigned long long)r.vdm_ctrl_stream_base, P32(2),
               (unsigned long long)PV(4),
               P32(3), P32(22), (unsigned long long)PV(20),
               (unsigned long long)usc);
    say_fields("vertex-params",
               "encoder.sampler_array=0x%llx encoder.sampler_count=0x7 "
               "encoder.sampler_max=0x8 uses_scratch=0x1 tiling.x_max=0x5f "
               "tiling.y_max=0x3f tiling.te_screen=0x1002",
               (unsigned long long)PV(21));
    say_fields("fragment-params",
               "params1.helper_program=0x%x params1.helper_arg=0x%llx "
               "params2.helper_cfg=0x%x params1.isp_scissor_base=0x%llx "
               "params3.isp_scissor_base.ptr=0x%llx "
               "params1.isp_dbias_base=0x%llx "
               "params3.isp_dbias_base.ptr=0x%llx",
               P32(5), (unsigned long long)PV(7), P32(6),
               (unsigned long long)PV(8), (unsigned long long)PV(8),
               (unsigned long long)PV(9), (unsigned long long)PV(9));
    say_fields("fragment-params",
               "params1.isp_oclqry_base=0x%llx "
               "params3.isp_oclqry_base=0x%llx params1.z_load=0x%llx "
               "params1.z_store=0x%llx params1.z_load_stride=0x%x "
               "params1.z_store_comp=0x%llx "
               "params1.z_store_comp_stride=0x%x",
               (unsigned long long)PV(10), (unsigned long long)PV(10),
               (unsigned long long)PV(11), (unsigned long long)PV(11),
               P32(13), (unsigned long long)PV(12), P32(14));
    say_fields("fragment-params",
               "params3.z_partial=0x%llx params3.z_partial_stride=0x%x "
               "params3.z_partial_comp=0x%llx params1.s_load=0x%llx "
               "params1.s_load_comp_stride=0x%x params3.s_store=0x%llx "
               "params3.s_partial_comp_stride=0x%x",
               (unsigned long long)PV(11), P32(13),
               (unsigned long long)PV(12), (unsigned long long)PV(15),
               P32(18), (unsigned long long)PV(15), P32(18));
    say_fields("fragment-params",
               "params1.zls_ctrl=0x%llx params3.zls_ctrl=0x%llx "
               "ppp_multisamplectl=0x%llx params1.ppp_multisamplectl=0x%llx "
               "encoder.sampler_array=0x%llx encoder.sampler_count=0x7 "
               "encoder.sampler_max=0x8",
               (unsigned long long)PV(19), (unsigned long long)PV(19),
               (unsigned long long)PV(20), (unsigned long long)PV(20),
               (unsigned long long)PV(21));
    say_fields("fragment-params",
               "isp_merge_upper_x=0x%x isp_merge_upper_y=0x%x "
               "params2.isp_merge_upper_x=0x%x params1.bg.address=0x%x "
               "params1.bg.rsrc_spec=0x%x params2.eot_usc=0x%x "
               "params2.eot_rsrc_spec=0x%x",
               P32(23), P32(24), P32(23), USC_PROGRAM(25) | 4, P32(26),
               USC_PROGRAM(27) | 4, P32(28));
    say_fields("fragment-params",
               "params3.partial_bg.address=0x%x "
               "params3.unk_partial_bg.rsrc_spec=0x%x "
               "params3.partial_eot.address=0x%x "
               "params3.unk_partial_eot.rsrc_spec=0x%x "
               "params2.isp_bgobjdepth=0x%x params3.isp_bgobjdepth=0x%x "
               "params2.isp_bgobjvals=0x1600 params3.isp_bgobjvals=0x1200",
               USC_PROGRAM(29) | 4, P32(30), USC_PROGRAM(31) | 4, P32(32),
               P32(33), P32(33));
    say_fields("fragment-params",
               "params1.isp_zls_pixels=0x%x params3.isp_zls_pixels=0x%x "
               "params1.aux_fb_info.isp_ctl=0x4c000 "
               "params3.aux_fb_info.width=0x60 params1.aux_fb_info.height=0x40 "
               "process_empty_tiles=0x1 samples=0x1 params3.sample_size=0x4 "
               "params1.usc_exec_base_isp=0x%llx",
               P32(34), P32(34), (unsigned long long)usc);
    say_fields("compute-params",
               "params1.cdm_ctrl_stream_base=0x%llx "
               "params2.cdm_ctrl_stream_end=0x%llx "
               "params1.helper_program=0x%x params1.helper_arg=0x%llx "
               "params1.helper_cfg=0x%x params1.usc_exec_base_cp=0x%llx "
               "encoder.sampler_array=0x%llx encoder.sampler_count=0x5 "
               "encoder.sampler_max=0x6",
               (unsigned long long)k.cdm_ctrl_stream_base,
               (unsigned long long)PV(41),
               P32(43), (unsigned long long)PV(45), P32(44),
               (unsigned long long)usc, (unsigned long long)PV(42));
    /* The host reads the properties before later tests' jobs run */
    usleep(500 * 1000);
    client_close(&c);
    return TEST_PASS;
}

static int test_submit_timestamp_errors(void)
{
    struct drm_asahi_cmd_compute k;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(client_bind_timestamps(&c));
    client_compute(&c, &k);
    k.ts.start.handle = c.ts_object + 100;
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), ENOENT);
    client_compute(&c, &k);
    k.ts.end.handle = c.ts_object;
    k.ts.end.offset = c.ts.size - 4;
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), ERANGE);
    k.ts.end.offset = c.ts.size;
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), ERANGE);
    /* an unbound object is gone */
    CHECK_OK(asahi_unbind_object(c.fd, c.ts_object));
    k.ts.end.offset = 0;
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    CHECK_ERR(submit_plain(&c, &cb), ENOENT);
    client_close(&c);
    return TEST_PASS;
}

/* Submits n jobs (compute and render) with the last one's fence in out */
static int submit_burst(Client *c, int n, uint32_t out)
{
    struct drm_asahi_sync s = {
        .sync_type = DRM_ASAHI_SYNC_SYNCOBJ,
        .handle = out,
    };
    CmdBuf cb;
    int i, ret;

    for (i = 0; i < n; i++) {
        cmdbuf_init(&cb);
        if (i & 1) {
            one_render(c, &cb);
        } else {
            one_compute(c, &cb);
        }
        ret = asahi_submit(c->fd, c->queue_id, cb.bytes, cb.len, NULL, 0,
                           &s, i == n - 1);
        if (ret) {
            return ret;
        }
    }
    return 0;
}

/*
 * QUEUE_DESTROY with work queued and running: the call returns, the
 * last fence still signals (done or cancelled), and the file goes on.
 */
/*
 * QUEUE_DESTROY ends the queue's GPU context: once its work is done the
 * driver sends DeviceControl DestroyContext, as drm/asahi does.  The
 * harness compares apple-agx's live-contexts with its value before the
 * queue ran ("host: qom-save" / "qom-delta"; a mismatch fails the boot);
 * the pauses let the host read before the test goes on.
 */
static int test_teardown_queue_destroy_ends_context(void)
{
    const char *gpu = "/machine/gpu-asc live-contexts";
    Client c;
    CmdBuf cb;

    /* Contexts of earlier tests' queues are ended by now */
    usleep(500 * 1000);
    say("host: qom-save %s before", gpu);
    usleep(300 * 1000);
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    one_compute(&c, &cb);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    /* One context for the queue, whatever its work queues */
    cmdbuf_init(&cb);
    one_render(&c, &cb);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    say("host: qom-delta %s before 1", gpu);
    usleep(300 * 1000);
    CHECK_OK(asahi_queue_destroy(c.fd, c.queue_id));
    c.queue_id = 0;
    /* The driver frees the queue from a work item */
    usleep(300 * 1000);
    say("host: qom-delta %s before 0", gpu);
    usleep(300 * 1000);
    client_close(&c);
    return TEST_PASS;
}

static int test_teardown_queue_destroy(void)
{
    uint32_t out;
    Client c;
    CmdBuf cb;
    int status;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_burst(&c, 64, out));
    CHECK_OK(asahi_queue_destroy(c.fd, c.queue_id));
    CHECK_OK(syncobj_wait(c.fd, out, WAIT_MS));
    status = syncobj_fence_status(c.fd, out);
    diag("last job's fence status after QUEUE_DESTROY: %d", status);
    CHECK(status == 1 || status < 0);
    CHECK_OK(asahi_queue_create(c.fd, c.vm_id, DRM_ASAHI_PRIORITY_MEDIUM,
                                MESA_USC_BASE, &c.queue_id));
    one_compute(&c, &cb);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

/*
 * Closes c's file with the job signalling out still in flight and waits
 * (through a sync_file exported first) until that job's fence signals;
 * 0, or -errno
 */
static int close_in_flight(Client *c, uint32_t out)
{
    struct drm_syncobj_handle h = {
        .handle = out,
        .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
    };
    struct pollfd pfd = { .events = POLLIN };
    int ret = drm_ioctl(c->fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);

    client_close(c);
    if (ret) {
        return ret;
    }
    pfd.fd = h.fd;
    do {
        ret = poll(&pfd, 1, WAIT_MS);
    } while (ret < 0 && errno == EINTR);
    close(h.fd);
    return ret == 1 ? 0 : ret == 0 ? -ETIME : -errno;
}

/*
 * Closing the file with work in flight: its fence still signals.  As in
 * drm/asahi, the file's VMs lose their user mappings at close while their
 * queues' jobs may still run: those that read their streams afterwards
 * take a GPU fault (flagged TEST_GPU_FAULTS).
 */
static int test_teardown_close(void)
{
    uint32_t out;
    Client c, d;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_burst(&c, 64, out));
    CHECK_OK(close_in_flight(&c, out));
    /* the GPU still works for others */
    CHECK_OK(client_open(&d, DRM_ASAHI_PRIORITY_MEDIUM));
    one_compute(&d, &cb);
    CHECK_OK(client_submit_wait(&d, &cb, WAIT_MS));
    client_close(&d);
    return TEST_PASS;
}

/*
 * VM_DESTROY and GEM close with work in flight.  The queue holds the VM's
 * page tables, but as in drm/asahi (file.rs: Vm's drop unmaps the whole
 * user range) the user mappings go at once: jobs that read their streams
 * afterwards take a GPU fault (flagged TEST_GPU_FAULTS).  Every fence
 * signals, done or with EIO, and the GPU keeps working.
 */
static int test_teardown_vm_destroy(void)
{
    uint32_t out;
    Client c, d;
    CmdBuf cb;
    int status;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_burst(&c, 32, out));
    CHECK_OK(asahi_vm_destroy(c.fd, c.vm_id));
    CHECK_OK(asahi_gem_close(c.fd, c.data.handle));
    CHECK_OK(asahi_gem_close(c.fd, c.usc.handle));
    CHECK_OK(syncobj_wait(c.fd, out, WAIT_MS));
    status = syncobj_fence_status(c.fd, out);
    diag("last job of a destroyed VM: fence status %d", status);
    CHECK(status == 1 || status == -EIO);
    client_close(&c);
    CHECK_OK(client_open(&d, DRM_ASAHI_PRIORITY_MEDIUM));
    one_compute(&d, &cb);
    CHECK_OK(client_submit_wait(&d, &cb, WAIT_MS));
    client_close(&d);
    return TEST_PASS;
}

/*
 * GEM_BIND_OBJECT UNBIND and GEM close of a timestamp buffer that queued
 * jobs still write: the mapping lives while they hold it.
 */
static int test_teardown_timestamps(void)
{
    struct drm_asahi_sync out = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    struct drm_asahi_cmd_compute k;
    Client c;
    CmdBuf cb;
    int i;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(client_bind_timestamps(&c));
    CHECK_OK(syncobj_create(c.fd, false, &out.handle));
    memset(c.ts.map, 0, c.ts.size);
    for (i = 0; i < 32; i++) {
        client_compute(&c, &k);
        k.ts.start.handle = k.ts.end.handle = c.ts_object;
        k.ts.start.offset = 16 * i;
        k.ts.end.offset = 16 * i + 8;
        cmdbuf_init(&cb);
        cmdbuf_push_compute(&cb, &k);
        CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0,
                              &out, i == 31));
    }
    CHECK_OK(asahi_unbind_object(c.fd, c.ts_object));
    CHECK_OK(asahi_gem_close(c.fd, c.ts.handle));
    CHECK_OK(syncobj_wait(c.fd, out.handle, WAIT_MS));
    /* our CPU mapping still shows what the firmware wrote */
    for (i = 0; i < 64; i++) {
        CHECK(ts_at(&c, 8 * i) != 0);
    }
    client_close(&c);
    return TEST_PASS;
}

/*
 * QUEUE_DESTROY while another process submits to the queue through the
 * same file (a forked copy of the descriptor): every submit succeeds or
 * fails with ENOENT once the queue is gone, and nothing breaks.  The
 * destroyed queue's jobs still run on the VM, so the last one's fence is
 * awaited before the file (and the VM's mappings with it) goes; the
 * submitting process keeps at most 64 jobs queued, so that this is quick.
 */
static int test_teardown_destroy_racing_submit(void)
{
    struct drm_asahi_sync done = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    Client c;
    CmdBuf cb;
    pid_t pid;
    int status, round;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    /* signalled: a round whose process submitted nothing waits for none */
    CHECK_OK(syncobj_create(c.fd, true, &done.handle));
    for (round = 0; round < 32; round++) {
        uint32_t q;

        CHECK_OK(asahi_queue_create(c.fd, c.vm_id, DRM_ASAHI_PRIORITY_LOW,
                                    MESA_USC_BASE, &q));
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            int i, ret = 0;

            for (i = 0; i < 100000 && !ret; i++) {
                cmdbuf_init(&cb);
                if (i & 1) {
                    one_render(&c, &cb);
                } else {
                    one_compute(&c, &cb);
                }
                ret = asahi_submit(c.fd, q, cb.bytes, cb.len, NULL, 0,
                                   &done, 1);
                /* at most 64 jobs queued: the rounds' work stays bounded */
                if (!ret && i % 64 == 63) {
                    ret = syncobj_wait(c.fd, done.handle, WAIT_MS);
                }
            }
            _exit(ret == -ENOENT ? 0 : 1);
        }
        usleep(1000 * (1 + round % 8) * (1 + round % 8));
        CHECK_OK(asahi_queue_destroy(c.fd, q));
        while (waitpid(pid, &status, 0) < 0) {
            CHECK(errno == EINTR);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            diag("round %d: the submitting process ended with 0x%x", round,
                 status);
            return TEST_FAIL;
        }
        /* the last job it queued; those before it ended first */
        CHECK_OK(syncobj_wait(c.fd, done.handle, WAIT_MS));
    }
    /* the file still works */
    one_compute(&c, &cb);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

/*
 * VM_BIND and VM_DESTROY racing in two processes sharing the file: binds
 * succeed or fail with ENOENT once the VM is gone.
 */
static int test_teardown_vm_destroy_racing_bind(void)
{
    uint32_t vm, bo;
    int fd = asahi_open(), status, round;
    pid_t pid;

    CHECK(fd >= 0);
    CHECK_OK(asahi_gem_create(fd, 4 * GPU_PAGE, 0, 0, &bo));
    for (round = 0; round < 8; round++) {
        CHECK_OK(asahi_vm_create_mesa(fd, &vm));
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            uint64_t va = MESA_USER_VA;
            int i, ret = 0;

            for (i = 0; i < 1000000 && !ret; i++) {
                ret = asahi_bind(fd, vm, bo, 0, 4 * GPU_PAGE, va,
                                 DRM_ASAHI_BIND_READ |
                                 DRM_ASAHI_BIND_WRITE);
                if (!ret && (i & 1)) {
                    ret = asahi_unbind(fd, vm, va, 4 * GPU_PAGE);
                }
                va += (i & 1) ? 4 * GPU_PAGE : 0;
            }
            _exit(ret == -ENOENT ? 0 : 1);
        }
        usleep(10 * 1000 * (round + 1));
        CHECK_OK(asahi_vm_destroy(fd, vm));
        while (waitpid(pid, &status, 0) < 0) {
            CHECK(errno == EINTR);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            diag("round %d: the binding process ended with 0x%x", round,
                 status);
            return TEST_FAIL;
        }
    }
    close(fd);
    return TEST_PASS;
}

/*
 * Several files submitting at once, half of them closing with work queued
 * (which may fault, as in close-in-flight); every fence signals
 */
static int test_teardown_many_files(void)
{
    enum { NF = 4 };
    Client c[NF];
    uint32_t out[NF];
    int i;

    for (i = 0; i < NF; i++) {
        CHECK_OK(client_open(&c[i], i & 1));
        CHECK_OK(syncobj_create(c[i].fd, false, &out[i]));
    }
    for (i = 0; i < NF; i++) {
        CHECK_OK(submit_burst(&c[i], 16, out[i]));
    }
    for (i = 0; i < NF; i += 2) {
        CHECK_OK(syncobj_wait(c[i].fd, out[i], WAIT_MS));
    }
    for (i = 1; i < NF; i += 2) {
        CHECK_OK(close_in_flight(&c[i], out[i]));
    }
    for (i = 0; i < NF; i += 2) {
        client_close(&c[i]);
    }
    return TEST_PASS;
}

const UapiTest submit_tests[] = {
    { "/asahi/submit/compute", test_submit_compute },
    { "/asahi/submit/render", test_submit_render },
    { "/asahi/submit/low-priority", test_submit_low_priority },
    { "/asahi/submit/mesa-stream", test_submit_mesa_stream },
    { "/asahi/submit/attachment-stream", test_submit_attachment_stream },
    { "/asahi/submit/barriers", test_submit_barriers },
    { "/asahi/submit/bad-barrier", test_submit_bad_barrier },
    { "/asahi/submit/max-commands", test_submit_max_commands },
    { "/asahi/submit/no-commands", test_submit_no_commands },
    { "/asahi/submit/bad-header", test_submit_bad_header },
    { "/asahi/submit/truncated", test_submit_truncated },
    { "/asahi/submit/unknown-type", test_submit_unknown_type },
    { "/asahi/submit/command-size", test_submit_command_size },
    { "/asahi/submit/bad-render", test_submit_bad_render },
    { "/asahi/submit/render-shapes", test_submit_render_shapes },
    { "/asahi/submit/bad-compute", test_submit_bad_compute },
    { "/asahi/submit/attachments", test_submit_attachments },
    { "/asahi/submit/timestamps", test_submit_timestamps },
    { "/asahi/submit/timestamp-errors", test_submit_timestamp_errors },
    { "/asahi/submit/params-reach-firmware",
      test_submit_params_reach_firmware },
    { "/asahi/sync/binary", test_sync_binary },
    { "/asahi/sync/timeline", test_sync_timeline },
    { "/asahi/sync/in-order", test_sync_in_order },
    { "/asahi/sync/cross-queue", test_sync_cross_queue },
    { "/asahi/sync/errors", test_sync_errors },
    { "/asahi/teardown/queue-destroy-in-flight", test_teardown_queue_destroy },
    { "/asahi/teardown/queue-destroy-ends-context",
      test_teardown_queue_destroy_ends_context },
    { "/asahi/teardown/close-in-flight", test_teardown_close,
      TEST_GPU_FAULTS },
    { "/asahi/teardown/vm-destroy-in-flight", test_teardown_vm_destroy,
      TEST_GPU_FAULTS },
    { "/asahi/teardown/timestamps-in-flight", test_teardown_timestamps },
    { "/asahi/teardown/many-files", test_teardown_many_files,
      TEST_GPU_FAULTS },
    { "/asahi/teardown/destroy-racing-submit",
      test_teardown_destroy_racing_submit },
    { "/asahi/teardown/vm-destroy-racing-bind",
      test_teardown_vm_destroy_racing_bind },
    { NULL, NULL },
};
