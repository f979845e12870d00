/*
 * asahi-uapi: recovery from faults the host injects (drm/asahi gpu.rs)
 *
 * Each test asks the boot-test harness, with an "AGX-TEST: host: ..."
 * console line, to set a QOM property of the GPU: inject-fault arms a
 * GPU fault, a firmware timeout or a channel error for the next command,
 * crashed crashes the firmware.  Then it submits until a job's fence
 * carries the error drm/asahi gives it (Fault and ChannelError: EIO,
 * Timeout: ETIMEDOUT, a crash: ENODEV) and, except after a crash, checks
 * that later work completes.  grow-tvb has the firmware ask the driver
 * to grow a render's tiled vertex buffer.  lost-on-fault checks the
 * driver's opt-in lost_on_fault parameter: a queue whose own job faulted
 * refuses later SUBMITs while other queues keep working.  Tests under
 * /asahi/host/ run only when a -p prefix names them; crash is last since
 * the GPU stays dead.
 */

#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "asahi-uapi.h"

#define WAIT_MS 10000
#define TRIES 16

/* Submits cb with an out-syncobj; returns its fence status (1 ok, -errno) */
static int run_cmdbuf(Client *c, const CmdBuf *cb)
{
    struct drm_asahi_sync out = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ };
    int ret = syncobj_create(c->fd, false, &out.handle);

    if (ret) {
        return ret;
    }
    ret = asahi_submit(c->fd, c->queue_id, cb->bytes, cb->len, NULL, 0,
                       &out, 1);
    if (!ret) {
        ret = syncobj_wait(c->fd, out.handle, WAIT_MS);
    }
    if (!ret) {
        ret = syncobj_fence_status(c->fd, out.handle);
    }
    syncobj_destroy(c->fd, out.handle);
    return ret;
}

/* Runs one compute job; returns its fence status (1 ok, -errno). */
static int run_job(Client *c)
{
    struct drm_asahi_cmd_compute k;
    CmdBuf cb;

    client_compute(c, &k);
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    return run_cmdbuf(c, &cb);
}

/* SUBMITs one compute job without syncs; returns the ioctl's result */
static int submit_compute(Client *c)
{
    struct drm_asahi_cmd_compute k;
    CmdBuf cb;

    client_compute(c, &k);
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    return asahi_submit(c->fd, c->queue_id, cb.bytes, cb.len, NULL, 0,
                        NULL, 0);
}

/* One job that must complete without error */
static bool job_ok(Client *c, const char *when)
{
    int status = run_job(c);

    if (status != 1) {
        diag("job %s: fence status %d (%s)", when, status,
             status < 0 ? strerror(-status) : "not signalled");
    }
    return status == 1;
}

/*
 * After "AGX-TEST: host: qom-set /machine/gpu-asc <what>", runs jobs
 * until one fails (at most TRIES); returns the last fence status and
 * says which job it was
 */
static int job_until_failure(Client *c, const char *what)
{
    int i, status = 1;

    say("host: qom-set /machine/gpu-asc %s", what);
    for (i = 0; i < TRIES && status == 1; i++) {
        status = run_job(c);
        if (status == 1) {
            usleep(100 * 1000);
        }
    }
    diag("%s: job %d fence status %d (%s)", what, i, status,
         status < 0 ? strerror(-status) : "ok");
    return status;
}

/*
 * Arms an injected fault, submits until a job fails with one of the
 * errors given, then a job must succeed again.
 */
static int fault_recovery(const char *what, int err, int alt_err)
{
    char req[64];
    Client c;
    int status;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK(job_ok(&c, "before"));
    snprintf(req, sizeof(req), "inject-fault \"%s\"", what);
    status = job_until_failure(&c, req);
    CHECK(status == -err || status == -alt_err);
    CHECK(job_ok(&c, "after"));
    CHECK(job_ok(&c, "after"));
    client_close(&c);
    return TEST_PASS;
}

static int test_host_gpu_fault(void)
{
    return fault_recovery("gpu-fault", EIO, EIO);
}

/* A timeout with FAULT_INFO valid is reported as a fault. */
static int test_host_timeout(void)
{
    return fault_recovery("timeout", ETIMEDOUT, EIO);
}

static int test_host_channel_error(void)
{
    return fault_recovery("channel-error", EIO, EIO);
}

/* Writes the driver's lost_on_fault parameter; 0 on success. */
static int set_lost_on_fault(bool on)
{
    FILE *f = fopen("/sys/module/asahi/parameters/lost_on_fault", "w");
    int ret;

    if (!f) {
        return -errno;
    }
    ret = fputs(on ? "1\n" : "0\n", f) < 0 ? -EIO : 0;
    return fclose(f) ? -errno : ret;
}

static int test_host_lost_on_fault(void)
{
    Client a, b;
    int status;

    CHECK_OK(set_lost_on_fault(true));
    CHECK_OK(client_open(&a, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(client_open(&b, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK(job_ok(&a, "before"));
    status = job_until_failure(&a, "inject-fault \"gpu-fault\"");
    CHECK_OK(set_lost_on_fault(false));
    CHECK_EQ(status, -EIO);
    /* The faulting queue is lost, even with the parameter off again */
    CHECK_ERR(submit_compute(&a), ECANCELED);
    /* Another file's queue was not at fault */
    CHECK(job_ok(&b, "on another queue"));
    client_close(&a);
    client_close(&b);
    return TEST_PASS;
}

/* Runs one render; returns its fence status (1 ok, -errno). */
static int run_render(Client *c)
{
    struct drm_asahi_cmd_render r;
    struct drm_asahi_attachment att;
    CmdBuf cb;

    cmdbuf_init(&cb);
    client_attachment(c, &att);
    cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS, &att,
                            1);
    client_render(c, &r, 64, 64);
    cmdbuf_push_render(&cb, &r);
    return run_cmdbuf(c, &cb);
}

/*
 * A synchronous TVB grow: the host arms grow-tvb, the next render's
 * vertex job (its buffer's slot bound by the first render's InitBuffer)
 * raises GrowTVB and waits; the driver adds 10 blocks to the 8 it started
 * with and acknowledges, and the render completes well before the
 * firmware's one-second watchdog.  The harness checks that apple-agx
 * counted the ack (tvb-grows) and read 18 blocks (tvb-blocks); the pauses
 * let the host act before the test goes on.
 */
static int test_host_grow_tvb(void)
{
    const char *gpu = "/machine/gpu-asc";
    int64_t start, ms;
    Client c;
    int status;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_EQ(run_render(&c), 1);
    say("host: qom-expect %s tvb-blocks 8", gpu);
    say("host: qom-save %s tvb-grows grows", gpu);
    say("host: qom-set %s inject-fault \"grow-tvb\"", gpu);
    usleep(300 * 1000);
    start = now_ns();
    status = run_render(&c);
    ms = (now_ns() - start) / 1000000;
    diag("grow-tvb: render fence status %d after %" PRId64 " ms", status,
         ms);
    CHECK_EQ(status, 1);
    CHECK(ms < 1000);
    say("host: qom-delta %s tvb-grows grows 1", gpu);
    say("host: qom-expect %s tvb-blocks 18", gpu);
    usleep(300 * 1000);
    /* The grown buffer serves the next renders without another InitBuffer */
    CHECK_EQ(run_render(&c), 1);
    CHECK_EQ(run_render(&c), 1);
    client_close(&c);
    return TEST_PASS;
}

/*
 * A firmware crash: pending work fails with ENODEV, and from then on
 * SUBMIT and GET_PARAMS fail with ENODEV (there is no restart).
 */
static int test_host_crash(void)
{
    struct drm_asahi_params_global p;
    Client c;
    int status;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK(job_ok(&c, "before"));
    status = job_until_failure(&c, "crashed true");
    CHECK_EQ(status, -ENODEV);
    CHECK_ERR(submit_compute(&c), ENODEV);
    CHECK_ERR(asahi_get_params(c.fd, 0, 0, &p, sizeof(p)), ENODEV);
    client_close(&c);
    return TEST_PASS;
}

const UapiTest host_tests[] = {
    { "/asahi/host/gpu-fault", test_host_gpu_fault, TEST_GPU_FAULTS },
    { "/asahi/host/timeout", test_host_timeout, TEST_GPU_FAULTS },
    { "/asahi/host/channel-error", test_host_channel_error, TEST_GPU_FAULTS },
    { "/asahi/host/lost-on-fault", test_host_lost_on_fault, TEST_GPU_FAULTS },
    { "/asahi/host/grow-tvb", test_host_grow_tvb },
    { "/asahi/host/crash", test_host_crash, TEST_GPU_FAULTS },
    { NULL, NULL },
};
